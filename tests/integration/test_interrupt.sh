#!/bin/bash
# SPDX-License-Identifier: MIT
# Ctrl-C (SIGINT) mid-run: exit 130 within seconds, the run is stored as
# aborted with the intervals up to the stop; SIGTERM gives 143. Also when the
# process starts with SIGINT ignored, as a background job of a script does.
source "$(dirname "$0")/lib.sh"
set -e
skip_without_uring
T="$DP_SOURCE_DIR/tests/integration/profiles/tiny.ini"
run_and_signal() { # SIGNAL EXPECTED-EXIT
	set +e
	"$DISKPROOF" run "$T" --data-dir "$WORK/data" --duration 60s --results "$WORK/r.db" \
		--quiet >"$WORK/out" 2>"$WORK/err" &
	local pid=$! rc
	sleep 4
	kill -s "$1" $pid
	local t0=$SECONDS
	wait $pid
	rc=$?
	set -e
	[ $rc = "$2" ] || { cat "$WORK/err"; fail "expected exit $2 after $1, got $rc"; }
	[ $((SECONDS - t0)) -le 10 ] || fail "took more than 10 s to stop"
}
run_and_signal INT 130
[ "$(sqlite3 r.db "select status from run where id=1")" = aborted ] || fail "run 1 not aborted"
n=$(sqlite3 r.db "select count(*) from sample where run_id=1 and scope='run' and class='db_read'")
[ "$n" -ge 2 ] && [ "$n" -le 8 ] || fail "expected the intervals up to the stop, got $n"
run_and_signal TERM 143
[ "$(sqlite3 r.db "select status from run where id=2")" = aborted ] || fail "run 2 not aborted"
# started with SIGINT ignored
set +e
(trap '' INT; exec "$DISKPROOF" run "$T" --data-dir "$WORK/data" --duration 60s \
	--results "$WORK/r.db" --quiet >/dev/null 2>&1) &
pid=$!
sleep 4
kill -INT $pid
wait $pid
rc=$?
set -e
[ $rc = 130 ] || fail "with SIGINT ignored at start: exit $rc"
echo "ok"
