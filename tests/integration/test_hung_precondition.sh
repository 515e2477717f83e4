#!/bin/bash
# SPDX-License-Identifier: MIT
# A device that stops answering during preconditioning: with io_timeout = 2s
# and the volume's filesystem frozen (fsfreeze -f) in the first round,
# "init --precondition" says "the device does not answer" within io_timeout
# plus a few seconds, while the filesystem is still frozen: it neither waits
# for the writes in flight (closing the ring may wait for them on some
# kernels: the engine and its buffers are left to the process exit, as a
# run's worker does) nor writes to the frozen filesystem first. After the
# thaw it exits 3, verify exits 0, and a run finds no integrity error. Only a
# loop filesystem of the test's own is frozen, and a watchdog thaws it.
source "$(dirname "$0")/lib.sh"
set -e
skip_without_uring
hung_setup 30s

# buffers the device may still fill are left to the process exit on
# purpose: no leak check for this command
ASAN_OPTIONS=detect_leaks=0 "$DISKPROOF" init hung.ini --precondition --results "$WORK/r.db" \
	>"$WORK/pc.out" 2>"$WORK/pc.err" &
pid=$!
sleep 2
kill -0 $pid 2>/dev/null || { cat "$WORK/pc.err"; fail "preconditioning ended within 2 s"; }
freeze_watched
wait_line "the device does not answer" "$WORK/pc.err" "$WORK/pc.err" "'does not answer'"
fsfreeze -u "$MNT"
set +e
wait $pid
rc=$?
set -e
[ $rc = 3 ] || { cat "$WORK/pc.err"; fail "exit $rc after the thaw, want 3"; }
expect_exit 0 "$DISKPROOF" verify hung.ini --results "$WORK/r.db"
expect_verdict "$DISKPROOF" run hung.ini --duration 1s --results "$WORK/r.db" --quiet
ie=$(sqlite3 "$WORK/r.db" "select coalesce(sum(integrity_errors),0) from summary
	where scope='run'")
[ "$ie" = 0 ] || fail "the run after the hang found $ie integrity errors"
echo "ok"
