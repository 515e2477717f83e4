#!/bin/bash
# SPDX-License-Identifier: MIT
# A device that hangs just before a periodic journal write (every 60 s of a
# run) still ends the run within io_timeout plus a few seconds: the periodic
# writes go through a thread of their own, so the coordinator never waits on
# the hung filesystem and stores and prints the verdict. The journals stay
# lower bounds: after the thaw verify exits 0 and the next run finds no
# integrity error. Slow (70 s): label "slow", Release pass only.
source "$(dirname "$0")/lib.sh"
set -e
skip_without_uring
hung_setup 70s

ASAN_OPTIONS=detect_leaks=0 "$DISKPROOF" run hung.ini --results "$WORK/r.db" >"$WORK/run.out" \
	2>"$WORK/run.err" &
pid=$!
wait_running
# the first periodic journal write is due 60 s into the run: freeze 1.5 s
# before it, so that it comes before the hang is seen (io_timeout = 2 s)
sleep 58.5
freeze_watched
wait_verdict "$WORK/run.out" "$WORK/run.err"
[ "$(sqlite3 r.db "select status from run where id=1")" = failed ] ||
	fail "run row: $(sqlite3 r.db "select status from run where id=1")"
thaw_and_check $pid
echo ok
