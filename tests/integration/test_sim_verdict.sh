#!/bin/bash
# SPDX-License-Identifier: MIT
# The sim engine decides verdicts deterministically: a device with 40 ms reads
# fails (exit 1) naming the criterion and each database; with 2 ms reads the
# same layout passes. A 10 min profile completes in seconds of real time.
source "$(dirname "$0")/lib.sh"
set -e
P="$DP_SOURCE_DIR/tests/integration/profiles/sim.ini"

sed 's/^read_latency = .*/read_latency = 40ms/' "$P" >slow.ini
expect_exit 1 "$DISKPROOF" run ./slow.ini --results "$WORK/r.db"
grep -q "FAIL db1 on v1: database read average 4[0-9.]* ms > 20 ms" out || fail "db1 not named"
grep -q "FAIL db4 on v2: database read average" out || fail "db4 not named"
grep -q "^diskproof run 1: FAIL" out || fail "no FAIL line"
[ ! -e /nonexistent ] || fail "sim touched the filesystem"

expect_exit 0 "$DISKPROOF" run "$P" --results "$WORK/r.db"
grep -q "^diskproof run 2: PASS" out || fail "2 ms reads did not pass"

expect_exit 0 "$DISKPROOF" report 1 --format json --results "$WORK/r.db"
[ "$(json 'd["run"]["verdict"]')" = FAIL ] || fail "stored verdict"
[ "$(json '[v["name"] for v in d["verdicts"] if not v["passed"] and v["scope"]=="database"]')" = \
	"['db1', 'db2', 'db3', 'db4']" ] || fail "failed database verdicts"
[ "$(json 'd["run"]["duration_s"]')" = 600.0 ] || fail "virtual duration"
# 15 s latency histograms per volume x class: measured windows add up to the
# volume's whole-run totals (600 s measured = 40 windows, warm-up 30 s = 2)
[ "$(sqlite3 r.db "select count(*) from interval_histogram where run_id=2 and name='v1' and class='db_read'")" = 42 ] ||
	fail "expected 42 windows of v1 db_read"
a=$(sqlite3 r.db "select sum(count) from interval_histogram where run_id=2 and name='v1' and class='db_read' and warmup=0")
b=$(sqlite3 r.db "select ios from summary where run_id=2 and scope='volume' and name='v1' and class='db_read'")
[ "$a" = "$b" ] || fail "window histograms count $a, the summary $b"
echo "ok"
