#!/bin/bash
# SPDX-License-Identifier: MIT
# run --ready-file / --start-file / --start-timeout: the readiness start of a
# fleet, by hand, as docs/fleet.md tells it with a shell per host. Two runs
# (two "hosts", a results file each) where the second is launched only once
# the first is ready and waiting (a host slow to prepare, however slow):
# each writes its ready record (one JSON line: host, ready_at, ready_unix,
# pid, run_id, clock), the instant written to both start files is the
# latest ready time plus 2 s, and both loads begin at it (start_at the
# same, load_started_at at most 100 ms after it), the fast host having
# waited. Then every other way the wait ends: no TIME within --start-timeout
# (exit 3, an error row, nothing measured), "cancel" (exit 3), a TIME that
# is not one (exit 3), a TIME already past (the load begins at once, late,
# exit 0, a "late" event), SIGINT (130, aborted). Leftovers of an earlier
# run at both paths are removed (an old TIME never starts a new run); a
# file that is not one is refused before anything is written (exit 3, the
# file kept); --start-at with --start-file, --start-timeout alone and one
# path for both are usage errors (exit 2, nothing written). Uses no
# machine-wide resource (sim runs, files under $WORK).
source "$(dirname "$0")/lib.sh"
set -e
S="$DP_SOURCE_DIR/tests/integration/profiles/sim.ini"
q() { sqlite3 "$1" "$2"; }
# wait_file PATH: until PATH exists (60 s at most: a bound, not a timing)
wait_file() {
	for _ in $(seq 600); do [ -e "$1" ] && return 0; sleep 0.1; done
	fail "no $1 after 60 s"
}
utc_ns() {
	python3 -c 'import sys, datetime as d
t = d.datetime.strptime(sys.argv[1], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=d.timezone.utc)
print(int(t.timestamp()) * 10**9 + t.microsecond * 1000)' "$1"
}
run_bg() { # NAME ARGS...: a run in the background, its pid in $pid
	local name=$1
	shift
	"$DISKPROOF" run "$S" --duration 1s --warmup 0s --results "$WORK/$name.db" "$@" \
		>"$name.out" 2>"$name.err" &
	pid=$!
}

# --- two hosts: b launched only once a is ready and waiting
run_bg a --host fleet-a --ready-file a.ready --start-file a.start
pa=$pid
wait_file a.ready
[ ! -e b.ready ] || fail "b's ready file before b was launched"
run_bg b --host fleet-b --ready-file b.ready --start-file b.start
pb=$pid
wait_file b.ready
python3 - a.ready b.ready "$pa" "$pb" <<'PY' >start.txt || fail "ready records (above)"
import json, sys, datetime as d
recs = [json.loads(open(p).read()) for p in sys.argv[1:3]]
for r, host, pid in zip(recs, ("fleet-a", "fleet-b"), sys.argv[3:5]):
    assert r["diskproof_ready"] == 1 and r["host"] == host and r["pid"] == int(pid), r
    assert r["run_id"] == 1 and r["start_file"].endswith(host[-1] + ".start"), r
    assert r["clock"]["synchronised"] in ("yes", "no", "unknown"), r
    t = d.datetime.strptime(r["ready_at"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=d.timezone.utc)
    assert abs(t.timestamp() - r["ready_unix"]) < 1e-5, r
assert recs[1]["ready_unix"] > recs[0]["ready_unix"], "b ready before a: %s" % recs
PY
# the fast host waits however long the slow one took: nothing has started
[ "$(q a.db "select count(*) from sample")" = 0 ] || fail "a measured before its start time"
[ -z "$(q a.db "select load_started_at from run")" ] || fail "a began before its start time"
grep -q "waiting for a start time in a.start" a.err || fail "a does not say it waits: $(cat a.err)"
# the instant: the latest ready time (or now, when later) plus a margin, as
# the playbook picks it, written at once to both start files as a shell
# would (in place, not atomically: a TIME caught halfway is waited out)
python3 - a.ready b.ready <<'PY' >start.txt || fail "writing the start files"
import json, sys, time, datetime as d
at = max([json.loads(open(p).read())["ready_unix"] for p in sys.argv[1:3]] + [time.time()]) + 3
t = d.datetime.fromtimestamp(at, d.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
for h in "ab":
    with open(h + ".start", "w") as f:
        f.write(t + "\n")
print(t)
PY
wait $pa || fail "run a: $(cat a.err)"
wait $pb || fail "run b: $(cat b.err)"
at=$(cat start.txt)
for h in a b; do
	[ "$(q $h.db "select start_at from run")" = "$at" ] || fail "$h: start_at $(q $h.db "select start_at from run"), want $at"
	late=$(($(utc_ns "$(q $h.db "select load_started_at from run")") - $(utc_ns "$at")))
	[ $late -ge 0 ] && [ $late -le 100000000 ] || fail "$h: the load began $late ns after the start time"
	q $h.db "select message from event where kind = 'ready'" | grep -q "^ready at .*waiting for a start time in $h.start" ||
		fail "$h: no ready event: $(q $h.db "select kind, message from event")"
	[ "$(q $h.db "select count(*) from event where kind = 'late'")" = 0 ] || fail "$h: a late event"
done
ready_a=$(q a.db "select message from event where kind = 'ready'" | sed 's/^ready at \([^ ]*\) .*/\1/')
ready_b=$(q b.db "select message from event where kind = 'ready'" | sed 's/^ready at \([^ ]*\) .*/\1/')
[ "$(utc_ns "$ready_a")" -lt "$(utc_ns "$ready_b")" ] || fail "the events' ready times: a $ready_a, b $ready_b"

# --- no TIME within --start-timeout: exit 3, an error row, nothing measured
expect_exit 3 "$DISKPROOF" run "$S" --duration 1s --warmup 0s --results "$WORK/t.db" \
	--ready-file t.ready --start-file t.start --start-timeout 1s --quiet
grep -q "no start time in t.start within --start-timeout 1s of being ready" err || fail "timeout: $(cat err)"
[ "$(q t.db "select status || ' ' || verdict from run")" = "error NONE" ] || fail "timeout: run row"
[ "$(q t.db "select count(*) from sample")" = 0 ] || fail "timeout: measured"
[ -z "$(q t.db "select load_started_at from run")" ] || fail "timeout: a load start"
[ -s t.ready ] || fail "timeout: no ready record"

# --- cancel, and a TIME that is not one: exit 3, nothing measured
for what in cancel tomorrow; do
	run_bg "c$what" --start-file "c$what.start" --ready-file "c$what.ready"
	wait_file "c$what.ready"
	echo "$what" >"c$what.start"
	set +e
	wait $pid
	rc=$?
	set -e
	[ $rc = 3 ] || fail "$what: exit $rc, want 3: $(cat "c$what.err")"
	[ "$(q "c$what.db" "select count(*) from sample")" = 0 ] || fail "$what: measured"
done
grep -q "cancelled: the start file ccancel.start says cancel" ccancel.err || fail "cancel: $(cat ccancel.err)"
grep -q 'ctomorrow.start: "tomorrow" is not an RFC 3339 UTC time' ctomorrow.err ||
	fail "bad TIME: $(cat ctomorrow.err)"

# --- a TIME already past: the load begins at once, late, and says so
run_bg late --start-file late.start --ready-file late.ready
wait_file late.ready
past=$(date -u -d '-3 sec' +%Y-%m-%dT%H:%M:%SZ)
echo "$past" >late.start
wait $pid || fail "late run: $(cat late.err)"
late=$(($(utc_ns "$(q late.db "select load_started_at from run")") - $(utc_ns "${past%Z}.000000Z")))
[ $late -ge 3000000000 ] || fail "late run: the load began $late ns after the start time"
q late.db "select message from event where kind = 'late'" | grep -q "late.start was [0-9.]* s past: the load begins at once, late" ||
	fail "late run: no late event: $(q late.db "select kind, message from event")"

# --- SIGINT while waiting for the start time: 130, aborted
run_bg int --start-file int.start --ready-file int.ready
wait_file int.ready
kill -INT $pid
set +e
wait $pid
rc=$?
set -e
[ $rc = 130 ] || fail "SIGINT while waiting: exit $rc"
[ "$(q int.db "select status from run")" = aborted ] || fail "SIGINT while waiting: not aborted"

# --- leftovers of an earlier run: an old TIME and an old ready record go;
# the new run waits for a new TIME
cp start.txt old.start
cp a.ready old.ready
run_bg old --start-file old.start --ready-file old.ready --host fleet-new
for _ in $(seq 600); do grep -q fleet-new old.ready 2>/dev/null && break; sleep 0.1; done
grep -q '"host": "fleet-new"' old.ready || fail "leftover: the old ready record was not replaced"
[ ! -e old.start ] || fail "leftover: the old start file is still there"
[ -z "$(q old.db "select load_started_at from run")" ] || fail "leftover: the old TIME started the run"
echo "+1s" >old.start
wait $pid || fail "leftover run: $(cat old.err)"

# --- a file that is not one, at either path: refused, nothing written, kept
echo "my notes" >notes.txt
expect_exit 3 "$DISKPROOF" run "$S" --results "$WORK/n.db" --start-file notes.txt
grep -q "start-file notes.txt: exists and is not a start file" err || fail "foreign start file: $(cat err)"
expect_exit 3 "$DISKPROOF" run "$S" --results "$WORK/n.db" --ready-file notes.txt
grep -q "ready-file notes.txt: exists and is not a diskproof ready record" err ||
	fail "foreign ready file: $(cat err)"
[ "$(cat notes.txt)" = "my notes" ] || fail "the foreign file was changed"
[ ! -e n.db ] || fail "a refused file created the results file"

# --- usage errors, nothing written
expect_exit 2 "$DISKPROOF" run "$S" --results "$WORK/n.db" --start-file x.start --start-at +5s
grep -q "give one" err || fail "--start-at with --start-file: $(cat err)"
expect_exit 2 "$DISKPROOF" run "$S" --results "$WORK/n.db" --start-timeout 5s
grep -q "start-timeout is for --start-file" err || fail "--start-timeout alone: $(cat err)"
expect_exit 2 "$DISKPROOF" run "$S" --results "$WORK/n.db" --start-file x --ready-file ./x
grep -q "name one file" err || fail "one path for both: $(cat err)"
expect_exit 2 "$DISKPROOF" run "$S" --results "$WORK/n.db" --start-file x --start-timeout 0s
[ ! -e n.db ] && [ ! -e x ] || fail "a usage error wrote something"
echo "ok"
