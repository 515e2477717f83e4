#!/bin/bash
# SPDX-License-Identifier: MIT
# Bad input is a clear error with exit 2 and writes nothing: a profile error
# names file, line and key; a bad option value, an unknown option, an unknown
# built-in profile and an unknown command each say what is wrong.
source "$(dirname "$0")/lib.sh"
set -e
cat >bad.ini <<'INI'
[test]
duration = 5x
[workload]
read_pc = 50
[volume v1]
path = ./data/v1
INI
expect_exit 2 "$DISKPROOF" run ./bad.ini --results "$WORK/r.db"
grep -q "bad.ini:2: \[test\] duration:" err || fail "duration error not located"
grep -q "bad.ini:4: \[workload\] read_pc: .*read_pct" err || fail "no did-you-mean"
[ ! -e r.db ] && [ ! -e data ] || fail "a bad profile wrote something"

expect_exit 2 "$DISKPROOF" run quik --results "$WORK/r.db"
grep -q "quick" err || fail "no suggestion for quik"
expect_exit 2 "$DISKPROOF" run --duration 3 parsecs --results "$WORK/r.db"
expect_exit 2 "$DISKPROOF" run --duration 3x --results "$WORK/r.db"
grep -q -- "--duration" err || fail "bad --duration not named"
expect_exit 2 "$DISKPROOF" run --frobnicate
grep -q "frobnicate" err || fail "unknown option not named"
expect_exit 2 "$DISKPROOF" explode
expect_exit 2 "$DISKPROOF" run --engine nosuch --results "$WORK/r.db"
expect_exit 2 "$DISKPROOF" run --db-size 40KiB --results "$WORK/r.db"
grep -q "page size" err || fail "--db-size not checked against the page size"
expect_exit 2 "$DISKPROOF" report abc --results "$WORK/r.db"
[ ! -e r.db ] && [ ! -e diskproof-data ] || fail "bad input wrote something"

# Cross-key rules are profile errors, found before anything is written: every
# rule-*.ini of tests/golden/bad-profiles, through plan, check, init and run,
# exits 2 with its FILE:LINE messages and leaves no data directory and no
# results file behind.
GOLDEN="$DP_SOURCE_DIR/tests/golden/bad-profiles"
nothing_written() {
	[ ! -e "$WORK/r.db" ] || fail "$1: a results file was created"
	[ ! -e "$WORK/data" ] || fail "$1: wrote $(find "$WORK/data" | head -3)"
}
for ini in "$GOLDEN"/rule-*.ini; do
	f=$(basename "$ini")
	cp "$ini" "$WORK/$f"
	[ -s "$GOLDEN/${f%.ini}.expected" ] || fail "$f: no ${f%.ini}.expected"
	for cmd in plan check init run; do
		expect_exit 2 "$DISKPROOF" $cmd "./$f" --results "$WORK/r.db"
		while IFS= read -r want; do
			grep -qF -- "$want" err || fail "$cmd $f: no \"$want\" in: $(cat err)"
		done <"$GOLDEN/${f%.ini}.expected"
		nothing_written "$cmd $f"
	done
done

# A rule broken by a command-line option is refused the same way, naming it.
cat >backup.ini <<'INI'
[test]
type = backup
duration = 1m
[sizing]
database_size = 1MiB
log_size = 8MiB
[volume v1]
path = ./data/v1
INI
sed 's/^type = backup/type = recovery/' backup.ini >recovery.ini
{ sed '/^type = /d' backup.ini; printf '[workload]\nmodel = fixed\n'; } >fixed.ini
{ sed '/^type = /d' backup.ini; printf '[engine]\nautotune_goal = target\n'; } >goal.ini
for cmd in plan check run; do
	expect_exit 2 "$DISKPROOF" $cmd ./backup.ini --warmup 10s --results "$WORK/r.db"
	grep -q -- "^--warmup 10s: a backup test has no warm-up" err || fail "$cmd --warmup: $(cat err)"
	nothing_written "$cmd backup.ini --warmup"
	expect_exit 2 "$DISKPROOF" $cmd ./fixed.ini --streams auto --results "$WORK/r.db"
	grep -q -- "^--streams auto: streams = auto tunes the jetstress model" err ||
		fail "$cmd --streams auto on fixed: $(cat err)"
	nothing_written "$cmd fixed.ini --streams auto"
	expect_exit 2 "$DISKPROOF" $cmd ./goal.ini --streams auto --results "$WORK/r.db"
	grep -q -- "^--streams auto: autotune_goal = target needs a target" err ||
		fail "$cmd --streams auto without a target: $(cat err)"
	grep -qF -- "[engine] autotune_goal at ./goal.ini:" err || fail "$cmd: the profile's key not located"
	nothing_written "$cmd goal.ini --streams auto"
	# 500 segments replayed by default do not fit the 8 segments of this log
	expect_exit 2 "$DISKPROOF" $cmd ./recovery.ini --engine sim --results "$WORK/r.db"
	grep -q -- "recovery.ini:2: \[test\] type: recovery_segments = 500 must be fewer than log_segments = 8" err ||
		fail "$cmd recovery.ini: $(cat err)"
	nothing_written "$cmd recovery.ini --engine sim"
done
long="$WORK/data/$(printf 'x%.0s' $(seq 300))"
for cmd in plan check init run; do
	expect_exit 2 "$DISKPROOF" $cmd ./backup.ini --data-dir "$long" --results "$WORK/r.db"
	grep -q -- "^--data-dir $long: " err || fail "$cmd --data-dir too long: $(cat err)"
	grep -q "longer than NAME_MAX" err || fail "$cmd --data-dir: why not said: $(cat err)"
	nothing_written "$cmd --data-dir"
done

expect_exit 0 "$DISKPROOF" --help
grep -q "130" out || fail "--help does not document exit codes"
expect_exit 0 "$DISKPROOF" --version
expect_exit 0 "$DISKPROOF" profiles
grep -q "^quick " out || fail "quick not listed"
expect_exit 0 "$DISKPROOF" profiles show quick
grep -q "^\[volume vol1\]" out || fail "profiles show quick"
# an option given where its value was forgotten: refused, nothing written
expect_exit 2 "$DISKPROOF" run sim-quick --label --quiet --results "$WORK/label.db"
grep -q "option --label needs a value (got the option --quiet" err || fail "--label --quiet: $(cat err)"
[ ! -e "$WORK/label.db" ] || fail "--label --quiet wrote a results file"
echo "ok"
