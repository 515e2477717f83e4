#!/bin/bash
# SPDX-License-Identifier: MIT
# test_params_report.sh - a run's effective parameters on a real sim run: the
# options given read "option", the profile's keys "profile", unset streams
# the count the run used ("derived"); a run whose parameters are not stored
# (a results file from before schema 6, made here by deleting its rows) gets
# them back from its profile text and run row (name, duration, warm-up,
# streams), so comparing it with the same run made now lists no parameter
# difference; and two runs that differ in one [sim] key and --streams list
# exactly those.
source "$(dirname "$0")/lib.sh"
set -e
P="$DP_SOURCE_DIR/tests/integration/profiles/sim.ini"
R=(--results "$WORK/r.db")
sed 's/^streams = 8$//' "$P" >nostreams.ini
expect_exit 0 "$DISKPROOF" run ./nostreams.ini --duration 20s --warmup 0s --quiet "${R[@]}"
expect_exit 0 "$DISKPROOF" run ./nostreams.ini --duration 20s --warmup 0s --quiet "${R[@]}"
sed 's/^read_latency = .*/read_latency = 2500us/' nostreams.ini >other.ini
expect_exit 0 "$DISKPROOF" run ./other.ini --duration 20s --warmup 0s --streams 6 --quiet "${R[@]}"

params() { # RUN: the JSON parameters as "[section name] key=value (source)" lines
	expect_exit 0 "$DISKPROOF" report "$1" --format json "${R[@]}"
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print("from", d["parameters_from"])
for p in d["parameters"]:
    print("[%s %s] %s=%s (%s)" % (p["section"], p.get("name", ""), p["key"], p["value"], p["source"]))' "$WORK/out"
}
params 1 >p1
for want in "from stored" "[test ] duration=20s (option)" "[test ] warmup=0s (option)" \
	"[engine ] streams=8 (derived)" "[engine ] name=sim (profile)" "[sim ] read_latency=2ms (profile)" \
	"[test ] name=nostreams (derived)" "[volume v1] path=/nonexistent/v1 (profile)" \
	"[thresholds ] db_read_p99=None (default)"; do
	grep -qxF "$want" p1 || fail "run 1 lacks: $want"
done

# run 2 as a file from before schema 6 would hold it: no parameter rows
sqlite3 r.db "DELETE FROM param WHERE run_id = 2"
params 2 >p2
grep -qx "from profile_text" p2 || fail "run 2: parameters not read back from the text"
for want in "[test ] duration=20s (option)" "[test ] warmup=0s (option)" \
	"[test ] name=nostreams (derived)" "[engine ] streams=8 (derived)"; do
	grep -qxF "$want" p2 || fail "run 2 (from text) lacks: $want"
done
expect_exit 0 "$DISKPROOF" compare 1 2 "${R[@]}"
grep -qx "parameter differences: none" out || fail "false differences: $(sed -n '/^parameter/,/^$/p' out)"
expect_exit 0 "$DISKPROOF" report 2 --params "${R[@]}"
grep -q "read back from the stored profile text" out || fail "text report does not say where they came from"

# run 3: one [sim] key and --streams differ, and nothing else
expect_exit 0 "$DISKPROOF" compare 1 3 --format json "${R[@]}"
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
got = sorted((x["what"], x["a"], x["b"]) for x in d["parameter_differences"])
want = sorted([("profile", "nostreams", "other"), ("streams (as run)", "8", "6"),
               ("[engine] streams", "8", "6"), ("[sim] read_latency", "2ms", "2500us")])
assert got == want, got' "$WORK/out" || fail "run 1 against run 3"
echo "ok"
