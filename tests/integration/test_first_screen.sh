#!/bin/bash
# SPDX-License-Identifier: MIT
# test_first_screen.sh - the first screen a person reads (issue 32): the quick
# run on real files, its stdout and stderr captured apart off a terminal. The
# verdict block (the verdict, the count of verdicts) is within the first 10
# lines of stdout (the live "would PASS" lines are on stderr), no line of
# either is over 120 columns, and no parameter dump is on stdout (it is
# report --params). With COLUMNS=80 no line is over 80, report --wide keeps
# the full tables, run -q prints the verdict block alone, and a failing sim
# run names its failing criterion, database and volume in its first lines.
source "$(dirname "$0")/lib.sh"
set -e
Q=(--duration 3s --warmup 0s --db-size 8MiB --data-dir "$WORK/d" --results "$WORK/r.db")

# widest line of a file, in columns (ASCII: bytes)
widest() { awk '{ if (length > m) m = length } END { print m + 0 }' "$1"; }
# no line of FILE over N columns
fits() {
	local w
	w=$(widest "$1")
	[ "$w" -le "$2" ] || fail "$1: a line of $w columns (over $2): $(awk -v n="$2" 'length > n' "$1")"
}

unset COLUMNS
expect_verdict "$DISKPROOF" run quick "${Q[@]}"
cp "$WORK/out" out1
cp "$WORK/err" err1
head -n 10 out1 | grep -Eq '^diskproof run 1: (PASS|FAIL)' || fail "no verdict in the first 10 lines: $(head -n 10 out1)"
head -n 10 out1 | grep -Eq '^verdicts: [0-9]+ passed, [0-9]+ failed$' ||
	fail "no count of verdicts in the first 10 lines: $(head -n 10 out1)"
! grep -q 'would PASS\|would FAIL' out1 || fail "live status lines on stdout"
grep -Eq 'would (PASS|FAIL)' err1 || fail "no status line on stderr: $(cat err1)"
grep -q '^creating: ' err1 || fail "no creation lines on stderr: $(cat err1)"
fits out1 120
fits err1 120
# the parameter dump is report --params'
! grep -q 'parameters (the values the run used\|at their defaults' out1 || fail "a parameter dump on stdout"
expect_exit 0 "$DISKPROOF" report 1 --params --results "$WORK/r.db"
grep -q '^  \[engine\] streams  *8' "$WORK/out" || fail "report --params: no [engine] streams: $(cat "$WORK/out")"
fits "$WORK/out" 120
# the run's own tables are there, within 120 columns: fewer columns
grep -Eq '^volume +class +IOs +IOPS +MB/s +avg ms +p99 ms' out1 || fail "no volume table: $(cat out1)"
grep -q 'report --wide shows them' out1 || fail "no note of the columns left out"
expect_exit 0 "$DISKPROOF" report 1 --wide --results "$WORK/r.db"
grep -Eq '^volume +class +IOs +IOPS +MB/s +B/IO +avg ms +p99 ms +p99.9 ms +p99.99 ms +slowest ms' "$WORK/out" ||
	fail "report --wide: not every column: $(grep '^volume' "$WORK/out")"
[ "$(widest "$WORK/out")" -gt 120 ] || fail "report --wide: nothing wider than 120 columns"
expect_exit 2 "$DISKPROOF" report 1 --wide --format json --results "$WORK/r.db"

# COLUMNS=80: every line of both within 80 (files exist: no creation lines,
# so init's are checked apart)
COLUMNS=80 expect_verdict "$DISKPROOF" run quick "${Q[@]}"
fits "$WORK/out" 80
fits "$WORK/err" 80
grep -q '^diskproof run 2: ' "$WORK/out" || fail "COLUMNS=80: no verdict line"
# junk in COLUMNS is ignored: 120
COLUMNS=80x expect_exit 0 "$DISKPROOF" report 1 --results "$WORK/r.db"
[ "$(widest "$WORK/out")" -gt 80 ] || fail "COLUMNS=80x taken for a width"
fits "$WORK/out" 120
# init's progress: within 80 columns, even where COLUMNS is wider
COLUMNS=200 expect_exit 0 "$DISKPROOF" init quick --db-size 8MiB --data-dir "$WORK/i"
grep -q '^creating: ' "$WORK/err" || fail "init: no creation lines: $(cat "$WORK/err")"
fits "$WORK/out" 80
fits "$WORK/err" 80

# run -q: stdout is the verdict block alone, stderr empty
expect_verdict "$DISKPROOF" run quick -q "${Q[@]}"
grep -q '^diskproof run 3: ' "$WORK/out" || fail "run -q: no verdict: $(cat "$WORK/out")"
tail -n 1 "$WORK/out" | grep -Eq '^verdicts: [0-9]+ passed, [0-9]+ failed$' ||
	fail "run -q: not ending at the count of verdicts: $(cat "$WORK/out")"
[ "$(wc -l <"$WORK/out")" -le 12 ] || fail "run -q: more than the verdict block: $(cat "$WORK/out")"
! grep -q '^volume \|^database ' "$WORK/out" || fail "run -q: a table on stdout"
[ ! -s "$WORK/err" ] || fail "run -q: stderr: $(cat "$WORK/err")"

# a failing sim run: the first lines name the criterion, database and volume
expect_exit 1 "$DISKPROOF" run "$DP_SOURCE_DIR/examples/five-disks-slow.ini" --duration 2m --warmup 10s \
	--results "$WORK/s.db"
head -n 1 "$WORK/out" | grep -q '^diskproof run 1: FAIL' || fail "sim: not FAIL first: $(head -n 3 "$WORK/out")"
head -n 10 "$WORK/out" | grep -Eq '^  FAIL db7 on disk3: database read average [0-9.]+ ms > 20 ms' ||
	fail "sim: db7 on disk3 not in the first 10 lines: $(head -n 10 "$WORK/out")"
head -n 10 "$WORK/out" | grep -Eq '^  FAIL disk3: database read average' ||
	fail "sim: disk3 not in the first 10 lines: $(head -n 10 "$WORK/out")"
fits "$WORK/out" 120
fits "$WORK/err" 120
echo ok
