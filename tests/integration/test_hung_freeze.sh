#!/bin/bash
# SPDX-License-Identifier: MIT
# A hung device ends the run: with io_timeout = 2s and the volume's filesystem
# frozen (fsfreeze -f) mid-run, the verdict (failed, hung I/O) is stored and
# printed within io_timeout plus a few seconds, without spinning, and before
# any write to the frozen filesystem (the end-phase journal write is skipped:
# the journals stay marked in progress). The kernel keeps the process from
# exiting until the thaw, which is said. Afterwards verify exits 0 and the
# next run finds no integrity error. Only a loop filesystem of the test's own
# is frozen, and a watchdog thaws it whatever happens.
source "$(dirname "$0")/lib.sh"
set -e
skip_without_uring
hung_setup 30s

# the process does not exit before the thaw; buffers the device may still
# fill are left to the process exit on purpose: no leak check for this run
ASAN_OPTIONS=detect_leaks=0 "$DISKPROOF" run hung.ini --results "$WORK/r.db" >"$WORK/run.out" \
	2>"$WORK/run.err" &
pid=$!
sleep 1.5
freeze_watched
wait_verdict "$WORK/run.out" "$WORK/run.err"
[ "$(sqlite3 r.db "select status from run where id=1")" = failed ] ||
	fail "run row: $(sqlite3 r.db "select status from run where id=1")"
sqlite3 r.db "select message from event where run_id=1 and kind='stop'" | grep -q "hangs" ||
	fail "no stop event naming the hang"
grep -q "never completed" "$WORK/run.err" || fail "the pending I/O is not said: $(cat "$WORK/run.err")"
# no spinning while the kernel holds the process
if [ -r /proc/$pid/stat ]; then
	c0=$(awk '{print $14 + $15}' /proc/$pid/stat 2>/dev/null || echo 0)
	sleep 2
	c1=$(awk '{print $14 + $15}' /proc/$pid/stat 2>/dev/null || echo "$c0")
	[ $((c1 - c0)) -le 20 ] || fail "the process used $((c1 - c0)) ticks in 2 s while frozen"
fi
thaw_and_check $pid
echo ok
