#!/bin/bash
# SPDX-License-Identifier: MIT
# run --metrics after the run (sim runs, a few seconds each): the URL with
# the port bound is said as the server starts (--metrics 0: a free port);
# after the report the final text is served until one GET has read it to
# its end (a client that closed before the answer came, or with it unread,
# as a Prometheus whose scrape timed out does, is no read: the wait goes
# on), and that GET ends the command at once (exit 0, the text phase="finished"
# with the exit code); --metrics-linger D ends an unscraped wait after D;
# SIGINT during the wait ends it at once and the exit code stays the run's;
# --metrics-linger 0 and a run stopped by SIGINT do not wait; a series
# waits once, after its last run.
source "$(dirname "$0")/lib.sh"
set -e
SIM="$DP_SOURCE_DIR/tests/integration/profiles/sim.ini"
now() { date +%s.%N; }
# secs_since T: seconds since T, as a number
secs_since() { python3 -c "import sys, time; print('%.1f' % (float('$(now)') - float(sys.argv[1])))" "$1"; }
# start NAME ARGS...: a run in the background, its stderr in NAME.err; waits
# for the linger's line (or the run's end) and sets PID and SAID
start() {
	local name=$1
	shift
	"$DISKPROOF" run "$SIM" --duration 1m --results "$WORK/$name.db" --metrics 0 "$@" \
		>"$name.out" 2>"$name.err" &
	PID=$!
	at_exit "kill $PID 2>/dev/null"
	for _ in $(seq 600); do
		grep -q "serving final metrics" "$name.err" && break
		kill -0 $PID 2>/dev/null || break
		sleep 0.1
	done
	SAID=$(now)
}
# finish: the run's exit code in RC
finish() {
	set +e
	wait $PID
	RC=$?
	set -e
}

# scraped: the GET of the final text ends the wait
start scraped --metrics-linger 60s
url=$(sed -n 's/^diskproof: metrics at \(http:\/\/127\.0\.0\.1:[1-9][0-9]*\/metrics\)$/\1/p' scraped.err)
[ -n "$url" ] || fail "no URL said: $(cat scraped.err)"
grep -q "serving final metrics until scraped or 1m 0s (--metrics-linger)" scraped.err ||
	fail "no linger said: $(cat scraped.err)"
[ -s scraped.out ] || fail "the report is not printed before the wait"
kill -0 $PID 2>/dev/null || fail "the run did not wait: $(cat scraped.err)"
curl -sf "$url" >final.txt || fail "no final text at $url"
finish
[ "$RC" = 0 ] || fail "scraped: exit $RC: $(cat scraped.err)"
t=$(secs_since "$SAID")
python3 -c "import sys; sys.exit(float('$t') > 10)" || fail "the scrape did not end the wait ($t s)"
grep -q '^diskproof_run_info{.*phase="finished"' final.txt || fail "not the final text: $(head -3 final.txt)"
grep -qx 'diskproof_run_exit_code 0' final.txt || fail "no exit code in the final text"

# clients that do not read the final text do not end the wait: one that
# closes before the answer comes, one that closes with it unread (a reset)
start unread --metrics-linger 60s
url=$(sed -n 's/^diskproof: metrics at \(http:\/\/127\.0\.0\.1:[1-9][0-9]*\/metrics\)$/\1/p' unread.err)
port=${url##*:}
port=${port%/metrics}
for mode in early unread; do
	python3 - "$port" "$mode" <<'PY'
import select, socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
if sys.argv[2] == "unread":
    select.select([s], [], [], 10)
    time.sleep(0.2)
s.close()
PY
	sleep 0.5
	kill -0 $PID 2>/dev/null || fail "a client that closed $mode ended the linger: $(cat unread.err)"
done
curl -sf "$url" >/dev/null || fail "no final text at $url"
finish
[ "$RC" = 0 ] || fail "unread: exit $RC: $(cat unread.err)"
grep -q "not scraped" unread.err && fail "a scraped linger said it was not: $(cat unread.err)"

# nobody scrapes: the wait ends after D
start timeout --metrics-linger 2s
grep -q "until scraped or 2s" timeout.err || fail "timeout: $(cat timeout.err)"
finish
[ "$RC" = 0 ] || fail "timeout: exit $RC: $(cat timeout.err)"
grep -q "the final metrics were not scraped in 2s" timeout.err || fail "timeout not said: $(cat timeout.err)"
t=$(secs_since "$SAID")
python3 -c "import sys; sys.exit(not 1.5 <= float('$t') <= 12)" || fail "a 2s linger took $t s"

# SIGINT in the wait: it ends at once, the exit code is the run's
start sigint
kill -INT $PID
finish
t=$(secs_since "$SAID")
[ "$RC" = 0 ] || fail "SIGINT in the linger: exit $RC: $(cat sigint.err)"
python3 -c "import sys; sys.exit(float('$t') > 10)" || fail "SIGINT did not end the wait ($t s)"
grep -q "came after" sigint.err && fail "SIGINT in the linger counted as late: $(cat sigint.err)"
[ "$(sqlite3 sigint.db "select status from run")" = passed ] || fail "stored"

# --metrics-linger 0: no wait
start zero --metrics-linger 0
finish
[ "$RC" = 0 ] || fail "zero: exit $RC"
grep -q "serving final" zero.err && fail "--metrics-linger 0 waited: $(cat zero.err)"

# a run stopped by SIGINT does not wait
"$DISKPROOF" run "$SIM" --duration 24h --results "$WORK/stopped.db" --metrics 0 \
	>stopped.out 2>stopped.err &
PID=$!
at_exit "kill $PID 2>/dev/null"
for _ in $(seq 300); do
	[ "$(sqlite3 stopped.db "select count(*) from sample" 2>/dev/null)" -gt 0 ] 2>/dev/null && break
	sleep 0.1
done
kill -INT $PID
finish
[ "$RC" = 130 ] || fail "stopped: exit $RC: $(cat stopped.err)"
grep -q "serving final" stopped.err && fail "a stopped run waited: $(cat stopped.err)"

# a series: one port, one wait, after its last run
start series --repeat 2 --metrics-linger 1s
finish
[ "$RC" = 0 ] || fail "series: exit $RC: $(cat series.err)"
[ "$(grep -c "serving final" series.err)" = 1 ] || fail "series: $(cat series.err)"
[ "$(grep -c "^diskproof: metrics at" series.err)" = 1 ] || fail "series: $(cat series.err)"
[ "$(grep -n "serving final" series.err | cut -d: -f1)" -gt "$(grep -n "series run 2 of 2" series.err | cut -d: -f1)" ] ||
	fail "series: the wait is not after the last run: $(cat series.err)"
echo ok
