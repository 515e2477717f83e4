#!/bin/bash
# A device that hangs just before a periodic journal write (every 60 s of a
# run) still ends the run within io_timeout plus a few seconds: the periodic
# writes go through a thread of their own, so the coordinator never waits on
# the hung filesystem and stores and prints the verdict. The journals stay
# lower bounds: after the thaw verify exits 0 and the next run finds no
# integrity error. Slow (70 s): label "slow", Release pass only.
source "$(dirname "$0")/lib.sh"
set -e
skip_without_uring
command -v fsfreeze >/dev/null || { echo "skipped: no fsfreeze"; exit 77; }
MNT="$WORK/mnt"
loop_mount "$MNT" 64M
cat >p.ini <<INI
[test]
duration = 70s
warmup = 0s
io_timeout = 2s
[sizing]
database_size = 8MiB
log_size = 1MiB
[workload]
log_segment_size = 256KiB
[engine]
name = io_uring
streams = 4
[volume a]
path = $MNT/a
databases = 1
INI
expect_exit 0 "$DISKPROOF" init p.ini --quiet

ASAN_OPTIONS=detect_leaks=0 "$DISKPROOF" run p.ini --results "$WORK/r.db" >"$WORK/run.out" \
	2>"$WORK/run.err" &
pid=$!
wait_running
# the first periodic journal write is due 60 s into the run: freeze 1.5 s
# before it, so that it comes before the hang is seen (io_timeout = 2 s)
sleep 58.5
fsfreeze -f "$MNT"
sleep 40 </dev/null >/dev/null 2>&1 &
watchdog=$!
at_exit "kill $watchdog"
(while kill -0 $watchdog 2>/dev/null; do sleep 1; done
	fsfreeze -u "$MNT") </dev/null >/dev/null 2>&1 &
t0=$(date +%s%N)
while ! grep -q "^verdicts:" "$WORK/run.out"; do
	[ $(( ($(date +%s%N) - t0) / 1000000 )) -lt 8000 ] ||
		{ cat "$WORK/run.err" >&2; fail "no verdict within io_timeout + 6 s of the freeze"; }
	sleep 0.1
done
echo "verdict $(( ($(date +%s%N) - t0) / 1000000 )) ms after the freeze"
[ "$(sqlite3 r.db "select status from run where id=1")" = failed ] ||
	fail "run row: $(sqlite3 r.db "select status from run where id=1")"
fsfreeze -u "$MNT"
set +e
wait $pid
rc=$?
set -e
[ $rc = 1 ] || { cat "$WORK/run.err"; fail "exit $rc after the thaw, want 1"; }
expect_exit 0 "$DISKPROOF" verify p.ini --results "$WORK/r.db"
expect_verdict "$DISKPROOF" run p.ini --duration 1s --results "$WORK/r.db" --quiet
ie=$(sqlite3 r.db "select coalesce(sum(integrity_errors),0) from summary where run_id=2
	and scope='run'")
[ "$ie" = 0 ] || fail "the run after the hang found $ie integrity errors"
echo ok
