#!/bin/bash
# SPDX-License-Identifier: MIT
# Long and remote runs. SIGHUP (a dropped SSH session) no longer ends a run:
# it goes on to its normal end, exit code and status as its verdict says,
# with one "hangup" event however many SIGHUPs came; output to what is not a
# terminal (a file here) goes on. A run in a real pty whose master is closed
# (the kernel hangs the terminal up and sends SIGHUP) ends the same way.
# SIGUSR1 prints one status line. A reader of the output that goes away
# (EPIPE, SIGPIPE ignored) costs the run nothing. --status-interval spaces
# the status lines off a terminal. Real runs where signals need real time,
# sim where virtual time does.
source "$(dirname "$0")/lib.sh"
set -e
skip_without_uring
SIM="$DP_SOURCE_DIR/tests/integration/profiles/sim.ini"
# within 120 columns a line leaves out classes after db_read (issue 32)
LINE='^\[[0-9]+:[0-9]{2}/[0-9]+:[0-9]{2} (warm-up|measuring|draining)\] db_read [0-9]+ IOPS [0-9.]+ ms( \| [a-z_]+ [0-9]+ IOPS ([0-9.]+|-) ms)* \| errors [0-9]+ \| would (PASS|FAIL: .+)$'

# check_normal_end ID RC: run ID finished as its verdict says, exit RC
# matching (0 PASS, 1 FAIL), its whole duration measured, one hangup event
check_normal_end() {
	local st
	st=$(sqlite3 r.db "select status||' '||verdict||' '||exit_code||' '||duration_s from run where id=$1")
	case "$2 $st" in
	"0 passed PASS 0 6.0" | "1 failed FAIL 1 6.0") ;;
	*) fail "run $1: exit $2, stored \"$st\" (expected a finished 6 s run)" ;;
	esac
	[ "$(sqlite3 r.db "select count(*) from event where run_id=$1 and kind='hangup'")" = 1 ] ||
		fail "run $1: expected one hangup event: $(sqlite3 r.db "select kind, message from event where run_id=$1")"
	sqlite3 r.db "select message from event where run_id=$1 and kind='hangup'" |
		grep -qE '^SIGHUP at 20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z: the session hung up; the run goes on to its end$' ||
		fail "run $1: hangup event: $(sqlite3 r.db "select message from event where run_id=$1 and kind='hangup'")"
	# its time on the run clock: mid-run
	t=$(sqlite3 r.db "select t_ms from event where run_id=$1 and kind='hangup'")
	[ "$t" -ge 500 ] && [ "$t" -le 5500 ] || fail "run $1: hangup at $t ms"
}

RUN=(run quick --duration 6s --warmup 0s --db-size 8MiB --data-dir "$WORK/d" --results "$WORK/r.db")
"$DISKPROOF" init quick --db-size 8MiB --data-dir "$WORK/d" --quiet

# 1. SIGUSR1, then SIGHUP twice, stderr to a file: the run goes on
set +e
"$DISKPROOF" "${RUN[@]}" >out 2>err &
pid=$!
wait_running
sleep 1.5
kill -USR1 $pid
sleep 0.5
kill -HUP $pid
sleep 0.5
kill -HUP $pid
wait $pid
rc=$?
set -e
check_normal_end 1 $rc
# the status lines: the first and last of the default 60 s interval, and
# SIGUSR1's mid-run (not 6: one a second is gone)
n=$(grep -cE "$LINE" err || true)
[ "$n" = 3 ] || fail "expected 3 status lines (start, SIGUSR1, end), got $n: $(cat err)"
grep -qE '^\[0:0[1-5]/0:06 measuring\] ' err || fail "no SIGUSR1 status line mid-run: $(cat err)"
grep -qE '^\[0:06/0:06 measuring\] ' err || fail "no status line at the end: $(cat err)"
# stderr and stdout were files: nothing dropped, the summary is there
grep -q "verdicts:" out || fail "no summary on stdout: $(cat out)"

# 2. a real terminal that goes away: a pty whose master is closed mid-run
python3 - "$DISKPROOF" "${RUN[@]}" <<'PY' || fail "pty run: see above"
import os, pty, select, sys, time
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:])
seen, t0 = b"", time.time()
while b"measuring" not in seen and time.time() - t0 < 20:
    if select.select([fd], [], [], 0.2)[0]:
        try:
            seen += os.read(fd, 65536)
        except OSError:
            break
if b"measuring" not in seen:
    sys.exit("pty: the live view never showed: %r" % seen[-500:])
time.sleep(1)
os.close(fd)  # the kernel hangs the slave up: SIGHUP to the session
deadline = time.time() + 30
while time.time() < deadline:
    done, status = os.waitpid(pid, os.WNOHANG)
    if done:
        break
    time.sleep(0.1)
else:
    os.kill(pid, 9)
    sys.exit("pty: diskproof did not end within 30 s of the hangup")
if os.WIFSIGNALED(status):
    sys.exit("pty: diskproof was killed by signal %d" % os.WTERMSIG(status))
open("pty.rc", "w").write("%d\n" % os.WEXITSTATUS(status))
PY
check_normal_end 2 "$(cat pty.rc)"

# 3. stdout and stderr to a pipe whose reader has gone: EPIPE, not SIGPIPE
set +e
"$DISKPROOF" run "$SIM" --duration 2m --results "$WORK/r.db" --status-interval 1s 2>&1 | true
rc=${PIPESTATUS[0]}
set -e
[ "$rc" = 0 ] || fail "a run writing to a closed pipe exited $rc"
[ "$(sqlite3 r.db "select status||' '||duration_s from run where id=3")" = "passed 120.0" ] ||
	fail "run 3: $(sqlite3 r.db "select status, duration_s from run where id=3")"

# 4. --status-interval 2s on a 7 s run (sim's virtual seconds), stderr to a
# file: the first line, one every 2 s, the last: about 4, not 7
"$DISKPROOF" run "$SIM" --duration 7s --warmup 0s --status-interval 2s --results "$WORK/r.db" \
	>out 2>err
n=$(grep -cE "$LINE" err || true)
[ "$n" -ge 3 ] && [ "$n" -le 5 ] || fail "--status-interval 2s on 7 s: $n lines: $(cat err)"
grep -qE '^\[0:07/0:07 measuring\] ' err || fail "no last line: $(cat err)"
# with one a second, 7
"$DISKPROOF" run "$SIM" --duration 7s --warmup 0s --status-interval 1s --results "$WORK/r.db" \
	>out 2>err
n=$(grep -cE "$LINE" err || true)
[ "$n" = 7 ] || fail "--status-interval 1s on 7 s: $n lines: $(cat err)"
# the running verdict on the lines is the final verdict's judgement so far:
# 40 ms reads (db_read_avg 20 ms) pass through the warm-up (its latencies
# are not judged), fail from the first measured second, and the last line
# says what the stored verdict says
sed 's/^read_latency = .*/read_latency = 40ms/' "$SIM" >slow.ini
expect_exit 1 "$DISKPROOF" run ./slow.ini --warmup 3s --duration 4s --status-interval 1s \
	--results "$WORK/r.db"
[ "$(grep -cE '^\[0:0[1-3]/0:07 warm-up\] .* \| would PASS$' err)" = 3 ] ||
	fail "warm-up lines not all \"would PASS\": $(cat err)"
[ "$(grep -cE '^\[0:0[4-7]/0:07 measuring\] .* \| would FAIL: v1 db1 db_read avg \(and [0-9]+ more\)$' err)" = 4 ] ||
	fail "measured lines not all \"would FAIL: v1 db1 db_read avg\": $(cat err)"
id=$(sqlite3 r.db "select max(id) from run")
[ "$(sqlite3 r.db "select verdict from run where id=$id")" = FAIL ] || fail "stored verdict"
[ "$(sqlite3 r.db "select scope||' '||name||' '||criterion from verdict where run_id=$id and passed=0 order by rowid limit 1")" = \
	"database db1 db_read_avg_ms" ] || fail "the first stored failure is not db1's read average"
for bad in 0 0s abc -1s; do
	expect_exit 2 "$DISKPROOF" run "$SIM" --status-interval "$bad" --results "$WORK/r.db"
	grep -q -- "--status-interval" err || fail "--status-interval $bad: $(cat err)"
done
expect_exit 2 "$DISKPROOF" plan "$SIM" --status-interval 5s
echo "ok"
