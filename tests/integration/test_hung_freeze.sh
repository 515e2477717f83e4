#!/bin/bash
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
command -v fsfreeze >/dev/null || { echo "skipped: no fsfreeze"; exit 77; }
MNT="$WORK/mnt"
loop_mount "$MNT" 64M
cat >p.ini <<EOF
[test]
duration = 30s
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
EOF
expect_exit 0 "$DISKPROOF" init p.ini --quiet

# the process does not exit before the thaw; buffers the device may still
# fill are left to the process exit on purpose: no leak check for this run
ASAN_OPTIONS=detect_leaks=0 "$DISKPROOF" run p.ini --results "$WORK/r.db" >"$WORK/run.out" \
	2>"$WORK/run.err" &
pid=$!
sleep 1.5
fsfreeze -f "$MNT"
sleep 40 </dev/null >/dev/null 2>&1 &
watchdog=$!
at_exit "kill $watchdog"
(wait_for=$watchdog; while kill -0 $wait_for 2>/dev/null; do sleep 1; done
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
