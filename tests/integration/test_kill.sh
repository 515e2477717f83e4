#!/bin/bash
# SPDX-License-Identifier: MIT
# A run killed with SIGKILL is left "running"; the next command that opens the
# results file (here: list) finds it aborted, with the intervals and totals it
# had stored, and no final database size (unknown). Two Ctrl-Cs in a row also leave an aborted run, at once.
source "$(dirname "$0")/lib.sh"
set -e
skip_without_uring
T="$DP_SOURCE_DIR/tests/integration/profiles/tiny.ini"
"$DISKPROOF" run "$T" --data-dir "$WORK/data" --duration 60s --warmup 1s --results "$WORK/r.db" \
	--quiet >/dev/null 2>&1 &
pid=$!
sleep 19
kill -KILL $pid
wait $pid 2>/dev/null || true
[ "$(sqlite3 r.db "select status from run where id=1")" = running ] || fail "not left running"
expect_exit 0 "$DISKPROOF" list --results "$WORK/r.db"
grep -q "^ *1  aborted " out || fail "list does not show run 1 aborted: $(cat out)"
[ "$(sqlite3 r.db "select verdict from run where id=1")" = NONE ] || fail "verdict"
[ -n "$(sqlite3 r.db "select ended_at from run where id=1")" ] || fail "no ended_at"
n=$(sqlite3 r.db "select count(*) from sample where run_id=1 and scope='run' and class='db_read'")
[ "$n" -ge 15 ] || fail "intervals before the kill are missing ($n)"
# totals checkpointed every 15 s of measurement
ios=$(sqlite3 r.db "select ios from summary where run_id=1 and scope='run' and class='db_read'")
[ "${ios:-0}" -gt 0 ] || fail "no checkpointed totals"
sqlite3 r.db "select message from event where run_id=1 and kind='stop'" | grep -q "killed" ||
	fail "no stop event"
expect_exit 0 "$DISKPROOF" report 1 --results "$WORK/r.db"
grep -q "aborted" out || grep -q "NONE" out || fail "report of the killed run: $(head -3 out)"
# a killed run never reached its end: no final database size (unknown, not
# 0), while the size it started at is known
[ "$(sqlite3 r.db "select count(*) from database_final where run_id=1")" = 0 ] ||
	fail "killed run has final sizes"
grep -Eq '^db1 .* [0-9.]+ -> -  -$' out || fail "text: final size of the killed run: $(cat out)"
expect_exit 0 "$DISKPROOF" report 1 --results "$WORK/r.db" --format json
python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
assert all(x["final_size_bytes"] is None and x["size_bytes"] > 0 for x in d["databases"]), d["databases"]
# the profile sets no target, and the run'"'"'s parameters say so
assert d["run"]["target_iops_result"] == "none"' "$WORK/out" || fail "json: killed run sizes"

# two interrupts: out within a second or two, run aborted, file consistent
"$DISKPROOF" run "$T" --data-dir "$WORK/data" --duration 60s --results "$WORK/r.db" \
	--quiet >/dev/null 2>"$WORK/err2" &
pid=$!
sleep 3
kill -INT $pid
kill -INT $pid
t0=$SECONDS
set +e
wait $pid
rc=$?
set -e
[ $rc = 130 ] || { cat "$WORK/err2"; fail "exit $rc after two interrupts"; }
[ $((SECONDS - t0)) -le 3 ] || fail "two interrupts took $((SECONDS - t0)) s"
[ "$(sqlite3 r.db "select status from run where id=2")" = aborted ] || fail "run 2 not aborted"
[ "$(sqlite3 r.db "pragma integrity_check")" = ok ] || fail "results file damaged"
echo "ok"
