#!/bin/bash
# SPDX-License-Identifier: MIT
# test_import_unfinished.sh - importing a run while it is still going, then
# again once it has ended, with a real run (psync on tiny files in $WORK):
#  - the first import (the run stopped with SIGSTOP meanwhile, so that it is
#    going whatever the machine's load) copies it marked aborted, with an
#    event saying it was still running;
#  - a copy of the live file taken then (sqlite3 .backup) imported too adds
#    nothing: the same run, no further;
#  - once the run has ended, importing its file again replaces the unfinished
#    copy, under the same id: status, verdict, exit code and every sample as
#    the run wrote them, and no "still running" event;
#  - importing the unfinished copy after that changes nothing: a finished
#    copy is never replaced by an unfinished one; nor does a third import.
source "$(dirname "$0")/lib.sh"
set -e
T="$DP_SOURCE_DIR/tests/integration/profiles/tiny.ini"

"$DISKPROOF" run "$T" --engine psync --data-dir "$WORK/data" --duration 20s --quiet \
	--results "$WORK/live.db" >"$WORK/run.out" 2>"$WORK/run.err" &
pid=$!
at_exit "kill -CONT $pid; kill $pid"
# until the run has written its first interval (60 s at most)
for _ in $(seq 1 600); do
	n=$(sqlite3 "$WORK/live.db" "SELECT count(*) FROM sample s JOIN run r ON r.id = s.run_id
		WHERE r.status = 'running'" 2>/dev/null || echo 0)
	[ "${n:-0}" -gt 0 ] && break
	kill -0 $pid 2>/dev/null || { cat "$WORK/run.err"; fail "the run ended before its first interval"; }
	sleep 0.1
done
[ "${n:-0}" -gt 0 ] || fail "the run wrote no interval in 60 s"
kill -STOP $pid # still going, for as long as the imports take
expect_exit 0 "$DISKPROOF" import "$WORK/live.db" --results "$WORK/into.db"
grep -q "imported 1 run(s)" "$WORK/err" || fail "first import: $(cat "$WORK/err")"
sqlite3 "$WORK/live.db" ".backup '$WORK/running.db'"
kill -CONT $pid
[ "$(sqlite3 "$WORK/running.db" "SELECT status FROM run")" = running ] ||
	fail "the copy taken meanwhile is not of a running run"
[ "$(sqlite3 into.db "SELECT id, status, verdict FROM run")" = "1|aborted|NONE" ] ||
	fail "the unfinished copy: $(sqlite3 into.db "SELECT * FROM run")"
sqlite3 into.db "SELECT message FROM event WHERE run_id = 1 AND kind = 'stop'" |
	grep -q "still running in the imported file" || fail "no event on the unfinished copy"
# the same run, no further: nothing to replace
expect_exit 0 "$DISKPROOF" import "$WORK/running.db" --results "$WORK/into.db"
grep -q "imported 0 run(s) from .*, 1 already here$" "$WORK/err" ||
	fail "unfinished over unfinished: $(cat "$WORK/err")"

set +e
wait $pid
rc=$?
set -e
[ $rc = 0 ] || [ $rc = 1 ] || { cat "$WORK/run.err"; fail "the run exited $rc"; }
want=$(sqlite3 live.db "SELECT status, verdict, exit_code, (SELECT count(*) FROM sample),
	(SELECT count(*) FROM verdict) FROM run")
case $want in passed\|PASS\|0\|* | failed\|FAIL\|1\|*) ;; *) fail "the run ended as $want" ;; esac

expect_exit 0 "$DISKPROOF" import "$WORK/live.db" --results "$WORK/into.db"
grep -q "imported 0 run(s) from .*, 0 already here, 1 replaced" "$WORK/err" ||
	fail "import once ended: $(cat "$WORK/err")"
got=$(sqlite3 into.db "SELECT status, verdict, exit_code, (SELECT count(*) FROM sample),
	(SELECT count(*) FROM verdict) FROM run WHERE id = 1")
[ "$got" = "$want" ] || fail "the replaced copy is $got, the run $want"
[ "$(sqlite3 into.db "SELECT count(*) FROM run")" = 1 ] || fail "a second run appeared"
[ "$(sqlite3 into.db "SELECT count(*) FROM event WHERE message LIKE 'still running%'")" = 0 ] ||
	fail "the finished copy keeps the unfinished copy's event"
expect_exit 0 "$DISKPROOF" report 1 --results "$WORK/into.db" --format json
python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["run"]["status"] in ("passed", "failed")' \
	"$WORK/out" || fail "report of the replaced copy"

# a finished copy is never replaced by an unfinished one, nor again
for f in running.db live.db; do
	expect_exit 0 "$DISKPROOF" import "$WORK/$f" --results "$WORK/into.db"
	grep -q "imported 0 run(s) from .*, 1 already here$" "$WORK/err" ||
		fail "import of $f over the finished copy: $(cat "$WORK/err")"
	got=$(sqlite3 into.db "SELECT status, verdict, exit_code, (SELECT count(*) FROM sample),
		(SELECT count(*) FROM verdict) FROM run WHERE id = 1")
	[ "$got" = "$want" ] || fail "after importing $f: $got, want $want"
done
echo "ok"
