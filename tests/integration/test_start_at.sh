#!/bin/bash
# SPDX-License-Identifier: MIT
# run --start-at TIME and --host NAME (fleet runs): a run prepares, waits and
# begins its load at TIME, recording when it really did to the microsecond
# (+3s: 3 s after the command started, and within 20 ms of its start_at
# (100 ms, the fleet's bound, when the CPUs are contended: start_bound);
# from the shell's clock, 3 to 4 s: a loaded machine, or ASan, can take
# hundreds of ms to start the process); two runs given one absolute
# TIME begin within 20 ms of each other; a TIME 5 s past is a usage error
# that writes nothing; a run not ready by TIME (its files take longer to
# create than the lead) exits 3, recorded as an error with nothing
# measured; SIGINT during the wait exits 130. --host is what run.host holds,
# and a run so named is still this machine's: reaped when killed, never
# while it lives. Every run records host.clock.*; the clock warning is
# printed and recorded exactly when adjtimex says the clock is worse than
# --max-clock-error.
source "$(dirname "$0")/lib.sh"
set -e
S="$DP_SOURCE_DIR/tests/integration/profiles/sim.ini"
T="$DP_SOURCE_DIR/tests/integration/profiles/tiny.ini"
now_ns() { date +%s%N; }
# utc_ns TIME: an RFC 3339 UTC time with microseconds as ns since the epoch
utc_ns() {
	python3 -c 'import sys, datetime as d
t = d.datetime.strptime(sys.argv[1], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=d.timezone.utc)
print(int(t.timestamp()) * 10**9 + t.microsecond * 1000)' "$1"
}
q() { sqlite3 "$1" "$2"; }
# start_bound: how late a load may begin, in ns: 20 ms, or the fleet's own
# 100 ms (docs/fleet.md) when tasks waited for a CPU more than 10 % of the
# last 10 s (PSI, /proc/pressure/cpu): the wake-up at TIME is the
# scheduler's, and beside CPU hogs it came 21.5 ms late once
start_bound() {
	local p
	p=$(awk '/^some/ {sub("avg10=", "", $2); print int($2)}' /proc/pressure/cpu 2>/dev/null || echo 0)
	if [ "${p:-0}" -gt 10 ]; then
		echo "the machine is loaded (tasks waited for a CPU $p % of the last 10 s): 100 ms bound" >&2
		echo 100000000
	else
		echo 20000000
	fi
}

# --- +3s, with --host and a tiny --max-clock-error
t0=$(now_ns)
expect_exit 0 "$DISKPROOF" run "$S" --duration 1s --warmup 0s --results "$WORK/a.db" \
	--start-at +3s --host fleet-a --max-clock-error 1us
load=$(q a.db "select load_started_at from run where id=1")
at=$(q a.db "select start_at from run where id=1")
[[ $load =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z$ ]] ||
	fail "load_started_at '$load': not RFC 3339 UTC with 6 fractional digits"
[[ $at =~ \.[0-9]{6}Z$ ]] || fail "start_at '$at'"
lead=$(( $(utc_ns "$load") - t0 ))
[ $lead -ge 3000000000 ] && [ $lead -le 4000000000 ] ||
	fail "the load began $lead ns after the command, want 3 to 4 s"
late=$(( $(utc_ns "$load") - $(utc_ns "$at") ))
bound=$(start_bound)
[ $late -ge 0 ] && [ $late -le $bound ] || fail "the load began $late ns after start_at (bound $bound ns)"
grep -q "waiting until $at" err || fail "no line saying until when it waits: $(cat err)"
[ "$(q a.db "select host from run where id=1")" = fleet-a ] || fail "run.host is not --host's"
[ "$(q a.db "select value from env where run_id=1 and key='hostname'")" = "$(hostname)" ] ||
	fail "env hostname is not the machine's"
[ "$(q a.db "select count(*) from env where run_id=1 and key in ('host.clock.synchronised',
	'host.clock.max_error_us', 'host.clock.est_error_us', 'host.clock.state',
	'host.clock.daemon')")" = 5 ] || fail "host.clock.* facts missing"
sync=$(q a.db "select value from env where run_id=1 and key='host.clock.synchronised'")
maxe=$(q a.db "select value from env where run_id=1 and key='host.clock.max_error_us'")
case $sync in yes | no) ;; *) fail "host.clock.synchronised '$sync'" ;; esac
[[ $maxe =~ ^[0-9]+$ ]] || fail "host.clock.max_error_us '$maxe'"
grep -q "^start at $at, load started $load$" out || fail "text report: no start line: $(head -6 out)"
grep -q "^Clock: " out || fail "text report: no Clock line"
# the warning at 1us: whenever the clock is unsynchronised or off by more
# than 1 us, which is what adjtimex said (a clock that claims <= 1 us gets none)
want=0
{ [ "$sync" = no ] || [ "$maxe" -gt 1 ]; } && want=1
[ "$(q a.db "select count(*) from event where run_id=1 and kind='clock'")" = $want ] ||
	fail "clock event: want $want (synchronised $sync, max error $maxe us)"
if [ $want = 1 ]; then
	grep -q "^diskproof: clock: " err || fail "clock warning not printed: $(cat err)"
	grep -q "^warning: clock: " out || fail "clock warning not in the text report"
fi
expect_exit 0 "$DISKPROOF" report 1 --results "$WORK/a.db" --format json
python3 - "$WORK/out" "$at" "$load" "$want" "$sync" <<'PY' || fail "json: start_at, clock"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["run"]["start_at"] == sys.argv[2] and d["run"]["load_started_at"] == sys.argv[3], d["run"]
c = d["clock"]
assert c["synchronised"] == (sys.argv[5] == "yes"), c
assert isinstance(c["max_error_ms"], (int, float)) and c["daemon"], c
assert (c["warning"] is not None) == (sys.argv[4] == "1"), c
PY
if python3 -c 'import jsonschema' 2>/dev/null; then
	python3 - "$WORK/out" "$DP_SOURCE_DIR/docs/schema/report.schema.json" <<'PY' ||
import json, sys, jsonschema
jsonschema.Draft202012Validator(json.load(open(sys.argv[2]))).validate(json.load(open(sys.argv[1])))
PY
		fail "the report of a --start-at run does not match its schema"
fi

# --- a run without --start-at records its load's start too, and no clock warning
expect_exit 0 "$DISKPROOF" run "$S" --duration 1s --warmup 0s --results "$WORK/a.db" \
	--max-clock-error 1us --quiet
[ -n "$(q a.db "select load_started_at from run where id=2")" ] || fail "run 2: no load_started_at"
[ -z "$(q a.db "select start_at from run where id=2")" ] || fail "run 2: start_at without --start-at"
[ "$(q a.db "select count(*) from event where run_id=2 and kind='clock'")" = 0 ] ||
	fail "a clock warning without --start-at"

# --- two runs at one absolute instant begin together
at=$(python3 -c 'import datetime as d; t = d.datetime.now(d.timezone.utc) + d.timedelta(seconds=3)
print(t.strftime("%Y-%m-%dT%H:%M:%S.%fZ"))')
"$DISKPROOF" run "$S" --duration 1s --warmup 0s --results "$WORK/b1.db" --start-at "$at" \
	--quiet >/dev/null 2>b1.err &
p1=$!
"$DISKPROOF" run "$S" --duration 1s --warmup 0s --results "$WORK/b2.db" --start-at "$at" \
	--quiet >/dev/null 2>b2.err &
p2=$!
wait $p1 || fail "run b1: $(cat b1.err)"
wait $p2 || fail "run b2: $(cat b2.err)"
l1=$(utc_ns "$(q b1.db "select load_started_at from run")")
l2=$(utc_ns "$(q b2.db "select load_started_at from run")")
d=$((l1 > l2 ? l1 - l2 : l2 - l1))
bound=$(start_bound)
[ $d -le $bound ] || fail "two runs at one --start-at began $d ns apart (bound $bound ns)"
[ "$(q b1.db "select start_at from run")" = "$(q b2.db "select start_at from run")" ] ||
	fail "the two runs stored different start_at"

# --- a TIME 5 s past: usage error, nothing written (a new file, an old one)
past=$(date -u -d '5 seconds ago' +%Y-%m-%dT%H:%M:%SZ)
expect_exit 2 "$DISKPROOF" run "$S" --duration 1s --warmup 0s --results "$WORK/none.db" --start-at "$past"
grep -q "^diskproof: --start-at: .* in the past" err || fail "past TIME message: $(cat err)"
[ ! -e none.db ] || fail "a refused --start-at created the results file"
sum=$(md5sum a.db)
expect_exit 2 "$DISKPROOF" run "$S" --duration 1s --warmup 0s --results "$WORK/a.db" --start-at "$past"
[ "$(md5sum a.db)" = "$sum" ] || fail "a refused --start-at changed the results file"
# far ahead: a wrong year or month, refused rather than waited for (3000
# once wrapped round to 2415 and the run waited there)
for far in 3000-01-01T00:00:00Z 2500-01-01T00:00:00Z "$(date -u -d '8 days' +%Y-%m-%dT%H:%M:%SZ)" \
	+8d +5000000h; do
	expect_exit 2 "$DISKPROOF" run "$S" --duration 1s --warmup 0s --results "$WORK/none.db" \
		--start-at "$far"
	grep -q -e "^diskproof: --start-at: more than 7 days ahead" -e "out of range" err ||
		fail "--start-at $far: $(cat err)"
	[ ! -e none.db ] || fail "--start-at $far created the results file"
done
expect_exit 2 "$DISKPROOF" run "$S" --results "$WORK/none.db" --start-at "16:00"
grep -q '^diskproof: --start-at: "16:00" is not an RFC 3339 UTC time' err || fail "bad TIME: $(cat err)"
[ ! -e none.db ] || fail "a bad --start-at created the results file"

# --- not ready by TIME: its files take longer to create than the lead
set +e
"$DISKPROOF" run "$T" --engine psync --data-dir "$WORK/late" --db-size 512MiB --duration 2s \
	--results "$WORK/late.db" --start-at +0.2s >late.out 2>late.err
rc=$?
set -e
[ $rc = 3 ] || { cat late.err; fail "a run late for --start-at exited $rc, want 3"; }
grep -q "not ready by --start-at .* s late" late.err || fail "late message: $(cat late.err)"
[ "$(q late.db "select status || ' ' || verdict from run")" = "error NONE" ] ||
	fail "late run row: $(q late.db "select status, verdict from run")"
q late.db "select message from event where kind='stop'" | grep -q "ready [0-9.]* s late" ||
	fail "no stop event saying how late: $(q late.db "select kind, message from event")"
[ "$(q late.db "select count(*) from sample")" = 0 ] || fail "a late run measured"
[ -n "$(q late.db "select start_at from run")" ] || fail "late run: no start_at"
[ -z "$(q late.db "select load_started_at from run")" ] || fail "late run: a load start"

# --- SIGINT during the wait: 130, nothing measured; a live --host run is
# never reaped by another command, a killed one is
"$DISKPROOF" run "$S" --duration 1s --warmup 0s --results "$WORK/r.db" --start-at +30s --host ghost \
	>/dev/null 2>i.err &
pid=$!
wait_running
for _ in $(seq 1 100); do grep -q "waiting until" i.err && break; sleep 0.05; done
expect_exit 0 "$DISKPROOF" list --results "$WORK/r.db"
[ "$(q r.db "select status from run where id=1")" = running ] || fail "a live --host run was reaped"
# nor deleted: it is this machine's live run whatever --host named it
expect_exit 3 "$DISKPROOF" delete 1 --results "$WORK/r.db"
grep -q "run 1 is still running" err || fail "delete of a live --host run: $(cat err)"
[ "$(q r.db "select count(*) from run where id=1")" = 1 ] || fail "a live --host run was deleted"
kill -INT $pid
set +e
wait $pid
rc=$?
set -e
[ $rc = 130 ] || { cat i.err; fail "SIGINT during the wait: exit $rc, want 130"; }
[ "$(q r.db "select status from run where id=1")" = aborted ] || fail "interrupted wait: not aborted"
[ "$(q r.db "select count(*) from sample where run_id=1")" = 0 ] || fail "interrupted wait measured"
[ -z "$(q r.db "select load_started_at from run where id=1")" ] || fail "interrupted wait: a load start"
[[ $(q r.db "select start_at from run where id=1") =~ \.[0-9]{6}Z$ ]] ||
	fail "interrupted wait: the start_at asked for is not kept"
"$DISKPROOF" run "$S" --duration 1s --warmup 0s --results "$WORK/r.db" --start-at +30s --host ghost \
	--quiet >/dev/null 2>&1 &
pid=$!
wait_running
kill -KILL $pid
wait $pid 2>/dev/null || true
[ "$(q r.db "select status from run where id=2")" = running ] || fail "killed run not left running"
expect_exit 0 "$DISKPROOF" list --results "$WORK/r.db"
[ "$(q r.db "select status from run where id=2")" = aborted ] ||
	fail "a killed --host run of this machine was not reaped"
q r.db "select message from event where run_id=2 and kind='stop'" | grep -q killed ||
	fail "reaped run: no stop event"

# the metrics text while the run waits carries the --host name, the same
# host label it will carry measuring (one diskproof_run_info series)
"$DISKPROOF" run "$S" --duration 2s --warmup 0s --results "$WORK/m.db" --start-at +3s \
	--host fleet-a --metrics-file "$WORK/m.prom" --quiet >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 100); do
	grep -q 'phase="preparing"' "$WORK/m.prom" 2>/dev/null && break
	sleep 0.05
done
grep -q 'phase="preparing"' "$WORK/m.prom" || fail "no metrics text while waiting"
[ "$(grep -o 'host="[^"]*"' "$WORK/m.prom" | sort -u)" = 'host="fleet-a"' ] ||
	fail "metrics while waiting: $(grep -o 'host="[^"]*"' "$WORK/m.prom" | sort -u)"
wait $pid || true
[ "$(grep -o 'host="[^"]*"' "$WORK/m.prom" | sort -u)" = 'host="fleet-a"' ] ||
	fail "metrics at the end: $(grep -o 'host="[^"]*"' "$WORK/m.prom" | sort -u)"
echo "ok"
