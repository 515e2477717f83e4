#!/bin/bash
# SPDX-License-Identifier: MIT
# The command line's help and parsing: --help, -h and "help CMD" on every
# command print its usage on stdout (exit 0, nothing on stderr); a misspelt
# option or command is refused with exit 2 and a did-you-mean; "--" ends the
# options; short flags work; abbreviations are refused; and every option of
# the table is in docs/diskproof.1 and in the bash completion, the
# completion's lists equal to the table's, so none of them can drift.
source "$(dirname "$0")/lib.sh"
set -e
MAN="$DP_SOURCE_DIR/docs/diskproof.1"
COMPLETION="$DP_SOURCE_DIR/deploy/bash-completion/diskproof"

expect_exit 0 "$DISKPROOF" help
cmds=$(sed -n '/^commands:/,/^$/s/^  \([a-z]\+\).*/\1/p' out)
[ "$(echo $cmds)" = "run init verify clean plan check profiles report list compare fleet witness fingerprint learn delete import" ] ||
	fail "commands listed by help: $(echo $cmds)"
for c in $cmds; do
	for how in "$c --help" "$c -h" "help $c"; do
		expect_exit 0 "$DISKPROOF" $how
		[ ! -s err ] || fail "$how wrote on stderr: $(cat err)"
		head -1 out | grep -q "^usage: diskproof $c" || fail "$how: $(head -3 out)"
	done
	# help after the arguments, or bundled, all the same
	expect_exit 0 "$DISKPROOF" $c x --help
	grep -q "^usage: diskproof $c" out || fail "$c x --help"
done
# every option of a command is in its usage, with its help line
expect_exit 0 "$DISKPROOF" run --help
for o in --duration --force --status-interval --metrics --metrics-file "-q, --quiet" "-f, --format text|json"; do
	grep -qF -- "$o" out || fail "run --help lacks $o: $(cat out)"
done
expect_exit 0 "$DISKPROOF" verify --help
grep -q -- "--results FILE" out || fail "verify --results undocumented"
expect_exit 0 "$DISKPROOF" report --help
grep -q -- "-f, --format text|json|csv|html" out || fail "report's formats"
expect_exit 0 "$DISKPROOF" -h
grep -q "130" out && grep -q "^  compare RUN_A RUN_B" out || fail "global -h: $(cat out)"
expect_exit 0 "$DISKPROOF" -V
grep -q "^diskproof " out || fail "-V: $(cat out)"
# no arguments: the global usage on stderr, exit 2
expect_exit 2 "$DISKPROOF"
grep -q "^usage: diskproof" err || fail "no arguments: $(cat err)"

# misspelt options and commands
expect_exit 2 "$DISKPROOF" run --duraton 5s
grep -q 'unknown option "--duraton" for run; did you mean --duration?' err || fail "$(cat err)"
expect_exit 2 "$DISKPROOF" report --formt json
grep -q "did you mean --format?" err || fail "$(cat err)"
expect_exit 2 "$DISKPROOF" list --destroy-data x
grep -q '"--destroy-data" for list: --destroy-data is an option of run and init' err || fail "$(cat err)"
expect_exit 2 "$DISKPROOF" verify --labl x
grep -q "did you mean --label (an option of run)?" err || fail "$(cat err)"
expect_exit 2 "$DISKPROOF" rnu
grep -q 'unknown command "rnu"; did you mean "run"?' err || fail "$(cat err)"
expect_exit 2 "$DISKPROOF" help repotr
grep -q 'did you mean "report"?' err || fail "$(cat err)"
expect_exit 2 "$DISKPROOF" --verison
grep -q "did you mean --version?" err || fail "$(cat err)"
# abbreviations refused, the whole name said
expect_exit 2 "$DISKPROOF" run sim-quick --dur 5s --results "$WORK/r.db"
grep -q "never abbreviated: did you mean --duration?" err || fail "$(cat err)"
expect_exit 2 "$DISKPROOF" init --destroy /dev/null
grep -q "did you mean --destroy-data?" err || fail "$(cat err)"
expect_exit 2 "$DISKPROOF" run --quiet=yes
grep -q "option --quiet takes no value" err || fail "$(cat err)"
expect_exit 2 "$DISKPROOF" report -o
grep -q "option --output needs a value" err || fail "$(cat err)"
expect_exit 2 "$DISKPROOF" report -o -q
grep -q "option --output needs a value (got the option -q" err || fail "$(cat err)"
expect_exit 2 "$DISKPROOF" run -V
grep -q 'unknown option "-V" for run: it goes before the command (diskproof -V)' err || fail "$(cat err)"
expect_exit 2 "$DISKPROOF" list -x
grep -q 'unknown option "-x" for list' err || fail "$(cat err)"
[ ! -e r.db ] || fail "a refused command line wrote a results file"

# "--": a profile file named -x.ini; without it, an unknown option
"$DISKPROOF" profiles show sim-quick >./-x.ini
expect_exit 2 "$DISKPROOF" plan -x.ini
expect_exit 0 "$DISKPROOF" plan --results "$WORK/r.db" -- -x.ini
grep -q "sim" out || fail "plan -- -x.ini: $(cat out)"
expect_exit 0 "$DISKPROOF" run -q --duration 10m --results "$WORK/r.db" -- -x.ini
! grep -q "^diskproof: profile " err || fail "run -q printed its profile line: $(cat err)"
grep -q "^verdicts:" out || fail "run -- -x.ini: no report"
# short flags: -q (above), -f, -o, bundled -fjson
expect_exit 0 "$DISKPROOF" report -f json --results "$WORK/r.db"
json 'd["run"]["id"]' >/dev/null || fail "report -f json is not JSON"
expect_exit 0 "$DISKPROOF" report latest -o "$WORK/r.csv" -fcsv --results "$WORK/r.db"
head -1 "$WORK/r.csv" | grep -q "," || fail "report -o -fcsv: $(head -2 "$WORK/r.csv")"
expect_exit 0 "$DISKPROOF" report 1 --format=text --results="$WORK/r.db"
grep -q "^verdicts:" out || fail "--opt=VALUE"

# every option of the table in the man page and in the completion; each
# command's completion list equal to what the table says it takes
expect_exit 0 "$DISKPROOF" help --options
cp out options.txt
[ "$(wc -l <options.txt)" -ge 20 ] || fail "help --options: $(cat options.txt)"
source /usr/share/bash-completion/bash_completion 2>/dev/null ||
	{ echo "skipped: no bash-completion"; exit 77; }
source "$COMPLETION"
# the man page's option entries: the line after each .TP of OPTIONS
awk '/^\.SH/ { in_opts = $2 == "OPTIONS" } in_opts && tp { print } { tp = $1 == ".TP" }' "$MAN" |
	sed 's/\\-/-/g' >man-options.txt
while read -r name rest; do
	grep -qE -- "(^|[ \"])$name([ \"[]|$)" man-options.txt || fail "$name not in docs/diskproof.1's OPTIONS"
	grep -qF -- "$name" "$COMPLETION" || fail "$name not in the completion"
	short=${rest%% *}
	[[ $short != -? ]] || grep -qE -- "(^|[ \"])$short[ \",]" man-options.txt ||
		fail "$short ($name) not in docs/diskproof.1's OPTIONS"
done <options.txt
for c in $cmds; do
	want=$(awk -v c="$c" '{ for (i = 2; i <= NF; i++) if ($i == c) {
		print $1; if ($2 ~ /^-.$/) print $2 } }' options.txt | sort)
	got=$(_diskproof_options "$c" | tr ' ' '\n' | grep -v '=$' | sort)
	[ "$want" = "$got" ] || fail "completion of $c: want $(echo $want), got $(echo $got)"
	grep -q "^\.BR $c\b\|^\.BI $c\b\|^\.B $c\b\|^\.BI \"$c\b" "$MAN" || fail "$c not a COMMANDS entry of the man page"
done

# the completion, as bash runs it
comp() {
	COMP_WORDS=("$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMP_LINE="${COMP_WORDS[*]}"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	_diskproof
	echo "${COMPREPLY[*]}"
}
[ "$(comp "$DISKPROOF" ru)" = run ] || fail "ru<TAB>: $(comp "$DISKPROOF" ru)"
[ "$(comp "$DISKPROOF" run --dur)" = --duration ] || fail "run --dur<TAB>: $(comp "$DISKPROOF" run --dur)"
[ "$(comp "$DISKPROOF" report -f "")" = "text json csv html" ] || fail "report -f <TAB>"
[ "$(comp "$DISKPROOF" run sim-q)" = sim-quick ] || fail "run sim-q<TAB>: $(comp "$DISKPROOF" run sim-q)"
mkdir dd
[ "$(comp "$DISKPROOF" plan --data-dir d)" = dd ] || fail "--data-dir d<TAB>: $(comp "$DISKPROOF" plan --data-dir d)"

# the man page renders, without a warning
if command -v man >/dev/null; then
	man -l "$MAN" >man.txt 2>man.err || fail "man -l: $(cat man.err)"
	grep -q "EXIT STATUS" man.txt || fail "man -l rendered nothing"
fi
if command -v groff >/dev/null; then
	groff -man -Tutf8 -ww -z "$MAN" 2>groff.err
	[ ! -s groff.err ] || fail "groff warns: $(cat groff.err)"
fi
echo ok
