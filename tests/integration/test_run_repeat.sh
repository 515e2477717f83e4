#!/bin/bash
# SPDX-License-Identifier: MIT
# run --repeat N: one series of N runs (run.series_uuid, series_index,
# series_size, the label), each run with seeds derived from the profile's
# and its place (stored as "derived" parameters), each run's verdict as it
# ends and the series' spread at the end; the spread and the run's place in
# every report format; list's series column; the exit code is the series'
# (0 all passed, 1 one failed, 130 on Ctrl-C, which stores the run aborted
# and stops the series); --fresh creates the files anew between runs; a bad
# N is a usage error with nothing written. The sim engine keeps it
# deterministic; --fresh uses psync on files.
source "$(dirname "$0")/lib.sh"
set -e
S="$DP_SOURCE_DIR/tests/integration/profiles/sim.ini"
T="$DP_SOURCE_DIR/tests/integration/profiles/tiny.ini"
q() { sqlite3 "$1" "$2"; }

# --- three runs, one series
expect_exit 0 "$DISKPROOF" run "$S" --repeat 3 --duration 1m --warmup 0s --label L --results r.db
[ "$(q r.db "SELECT count(*), count(DISTINCT series_uuid), min(series_index) || max(series_index),
	min(series_size), max(series_size), count(DISTINCT label), min(label) FROM run")" = "3|1|13|3|3|1|L" ] ||
	fail "not one series of three runs: $(q r.db 'SELECT id, series_uuid, series_index, series_size, label FROM run')"
[ "$(q r.db "SELECT group_concat(series_index) FROM (SELECT series_index FROM run ORDER BY id)")" = "1,2,3" ] ||
	fail "series_index not 1, 2, 3 in run order"
[ "$(q r.db "SELECT length(series_uuid) FROM run WHERE id = 1")" = 32 ] || fail "series_uuid not 32 hex digits"
# the seeds: run 1 the profile's, runs 2 and 3 derived, all different, stored
[ "$(q r.db "SELECT value || ' ' || source FROM param WHERE run_id = 1 AND section = 'sim' AND key = 'seed'")" = "7 profile" ] ||
	fail "run 1 does not keep the profile's sim seed"
[ "$(q r.db "SELECT count(DISTINCT value) FROM param WHERE section = 'sim' AND key = 'seed'")" = 3 ] ||
	fail "the sim seeds do not differ per run"
[ "$(q r.db "SELECT count(DISTINCT value) FROM param WHERE section = 'workload' AND key = 'seed'")" = 3 ] ||
	fail "the workload seeds do not differ per run"
[ "$(q r.db "SELECT count(*) FROM param WHERE run_id > 1 AND key = 'seed' AND source = 'derived'")" = 4 ] ||
	fail "the derived seeds are not stored as derived"
# ... so the runs differ, as real ones do
[ "$(q r.db "SELECT count(DISTINCT iops) FROM summary WHERE scope = 'run' AND class = 'db_read'")" = 3 ] ||
	fail "three runs with the same figures: the seeds did not reach the sim"
# what run printed: each run's verdict, then the spread, within 120 columns
for i in 1 2 3; do
	grep -q "^diskproof: series run $i of 3 (run $i): PASS$" err || fail "no verdict line for run $i"
done
grep -q "^series 1: PASS, 3 of 3 runs passed" out || fail "no series verdict in the text"
grep -Eq "^transactional IOPS +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +3$" out || fail "no spread row"
grep -Eq "^log write avg ms +[0-9.]+" out || fail "no log write spread"
[ "$(awk '{ if (length($0) > m) m = length($0) } END { print m }' out)" -le 120 ] || fail "over 120 columns"

# report of a run of the series: its place and the series, in every format
expect_exit 0 "$DISKPROOF" report 2 --results r.db
grep -q "^run 2 of 3 in series 1$" out || fail "text: no place in the series"
grep -q "^series 1: PASS, 3 of 3 runs passed" out || fail "text: no series section"
expect_exit 0 "$DISKPROOF" report 2 --params --results r.db
grep -q "\[sim\] seed .*(derived)" out || fail "text: the derived seed not shown"
expect_exit 0 "$DISKPROOF" report 2 --results r.db --format json
cp out r2.json
[ "$(json 'd["series"]["id"], d["series"]["index"], d["series"]["size"], d["series"]["verdict"], d["series"]["passed"], len(d["series"]["runs"])')" = "(1, 2, 3, 'PASS', 3, 3)" ] ||
	fail "json: series object: $(json 'd["series"]')"
# the spread is the runs' own figures: mean, min, max and the CV by hand
for i in 1 2 3; do "$DISKPROOF" report $i --results r.db --format json >r$i.json; done
python3 - r1.json r2.json r3.json <<'PY' || fail "json: spread not the runs' figures"
import json, statistics, sys
docs = [json.load(open(p)) for p in sys.argv[1:]]
x = [d["summary"]["transactional_iops"] for d in docs]
f = docs[1]["series"]["figures"]["transactional_iops"]
assert f["runs"] == 3, f
assert abs(f["mean"] - statistics.mean(x)) < 0.01, (f, x)
assert abs(f["min"] - min(x)) < 0.01 and abs(f["max"] - max(x)) < 0.01, (f, x)
cv = 100 * statistics.stdev(x) / statistics.mean(x)
assert f["cv_pct"] > 0 and abs(f["cv_pct"] - cv) < 0.002, (f, cv)
y = [d["summary"]["classes"]["log_write"]["avg_ms"] for d in docs]
g = docs[1]["series"]["figures"]["log_write_avg_ms"]
assert abs(g["mean"] - statistics.mean(y)) < 0.001, (g, y)
PY
# the series object and list's series fields, against their schemas
if python3 -c 'import jsonschema' 2>/dev/null; then
	"$DISKPROOF" list --results r.db --format json >list.json
	python3 - "$DP_SOURCE_DIR/docs/schema" r2.json list.json <<'PY' || fail "json: not valid against docs/schema"
import json, sys, jsonschema
for doc, schema in ((sys.argv[2], "report"), (sys.argv[3], "list")):
    s = json.load(open(f"{sys.argv[1]}/{schema}.schema.json"))
    jsonschema.Draft202012Validator(s).validate(json.load(open(doc)))
PY
fi
expect_exit 0 "$DISKPROOF" report 1 --results r.db --format html
grep -q '<section id="series"' out || fail "html: no series section"
grep -q 'data-figure="transactional_iops"' out || fail "html: no spread row"
grep -q "run 1 of 3 in series 1" out || fail "html: no place in the series"
expect_exit 0 "$DISKPROOF" report 3 --results r.db --format csv
head -1 out | grep -q ',txns,series_id,series_index,series_size,' || fail "csv: no series columns"
[ "$(tail -n +2 out | grep -vc ',1,3,3,sim,,,,$')" = 0 ] || fail "csv: a row without the run's series"
# list: the series column
expect_exit 0 "$DISKPROOF" list --results r.db
grep -Eq "^ +2 .* 1:2/3 +L$" out || fail "list: no series column"
expect_exit 0 "$DISKPROOF" list --results r.db --format json
[ "$(json '[(r["series"], r["series_index"], r["series_size"]) for r in d["runs"]]')" = "[(1, 1, 3), (1, 2, 3), (1, 3, 3)]" ] ||
	fail "list json: series"

# a single run is in no series, and its report says nothing of one
expect_exit 0 "$DISKPROOF" run "$S" --duration 20s --warmup 0s --results r.db --quiet
[ "$(q r.db "SELECT series_uuid IS NULL AND series_index IS NULL FROM run WHERE id = 4")" = 1 ] ||
	fail "a single run has a series"
expect_exit 0 "$DISKPROOF" report 4 --results r.db --format json
[ "$(json '"series" in d')" = False ] || fail "json: a single run has a series object"
# a second series is another series, named by its first run
expect_exit 0 "$DISKPROOF" run "$S" --repeat 2 --duration 20s --warmup 0s --results r.db --quiet
[ "$(q r.db "SELECT count(DISTINCT series_uuid) FROM run")" = 2 ] || fail "two series share a uuid"
grep -q "^series 5: PASS, 2 of 2 runs passed" out || fail "the second series is not series 5"

# --- one run fails: the series fails, exit 1
sed 's/^read_latency = 2ms/read_latency = 30ms/' "$S" >slow.ini
expect_exit 1 "$DISKPROOF" run slow.ini --repeat 2 --duration 20s --warmup 0s --results f.db
grep -q "^series 1: FAIL, 0 of 2 runs passed, 2 failed" out || fail "no FAIL for the series"
grep -q "series run 2 of 2 (run 2): FAIL" err || fail "the series did not go on after a failed run"

# one run of three fails, not the last: the series fails, exit 1 (a target
# between the runs' transactional IOPS, 6169.6, 6175.5 and 6178.8 for this
# model and these seeds: run 1 misses it)
awk '/^\[sizing\]/ { print; print "target_iops = 6172"; next } { print }' "$S" >mixed.ini
expect_exit 1 "$DISKPROOF" run mixed.ini --repeat 3 --duration 2m --warmup 0s --results m.db
grep -q "series run 1 of 3 (run 1): FAIL" err || fail "mixed: run 1 did not fail"
grep -q "series run 3 of 3 (run 3): PASS" err || fail "mixed: run 3 did not pass"
grep -q "^series 1: FAIL, 2 of 3 runs passed, 1 failed" out || fail "mixed: series not FAIL"

# --- bad N: a usage error, nothing written
for n in 0 -1 abc 1001 3x ""; do
	expect_exit 2 "$DISKPROOF" run "$S" --repeat "$n" --duration 20s --warmup 0s --results bad.db
	[ ! -e bad.db ] || fail "--repeat '$n' wrote the results file"
	grep -q -- "--repeat" err || fail "--repeat '$n': not refused for N"
done
expect_exit 2 "$DISKPROOF" run "$S" --fresh --duration 20s --warmup 0s --results bad.db
grep -q "fresh is for --repeat" err || fail "--fresh alone: no reason"
expect_exit 2 "$DISKPROOF" run "$S" --repeat 2 --fresh --duration 20s --warmup 0s --results bad.db
grep -q "sim engine" err || fail "--fresh with the sim: no reason"
expect_exit 2 "$DISKPROOF" run "$S" --repeat 2 --start-at +10s --duration 20s --warmup 0s --results bad.db
[ ! -e bad.db ] || fail "a refused series wrote the results file"

# --- --fresh: the files created anew before runs 2 and 3 (psync on files)
expect_verdict "$DISKPROOF" run "$T" --engine psync --data-dir data --duration 1s --repeat 3 --fresh \
	--results fr.db --quiet
[ "$(q fr.db "SELECT group_concat(n) FROM (SELECT (SELECT count(*) FROM event e WHERE e.run_id = run.id
	AND e.kind = 'destroy_data') AS n FROM run ORDER BY id)")" = "0,1,1" ] ||
	fail "--fresh: not re-created before runs 2 and 3: $(q fr.db 'SELECT run_id, kind, message FROM event WHERE kind = "destroy_data"')"
q fr.db "SELECT message FROM event WHERE kind = 'destroy_data' AND run_id = 2" | grep -q "a/db1.edb" ||
	fail "--fresh: the database not named"
# without --fresh the files stay as they are
expect_verdict "$DISKPROOF" run "$T" --engine psync --data-dir data --duration 1s --repeat 2 \
	--results nf.db --quiet
[ "$(q nf.db "SELECT count(*) FROM event WHERE kind = 'destroy_data'")" = 0 ] ||
	fail "files re-created without --fresh"

# --- Ctrl-C in run 2: run 2 stored aborted, no run 3, exit 130
set +e
"$DISKPROOF" run "$S" --repeat 3 --duration 30m --warmup 0s --results i.db >i.out 2>i.err &
pid=$!
t0=$SECONDS
while ! grep -q "series run 1 of 3" i.err; do
	[ $((SECONDS - t0)) -lt 600 ] || { kill $pid; fail "run 1 did not end"; }
	sleep 0.1
done
sleep 1
kill -INT $pid
wait $pid
rc=$?
set -e
[ $rc = 130 ] || { cat i.err; fail "Ctrl-C in the series: exit $rc"; }
[ "$(q i.db "SELECT group_concat(status) FROM (SELECT status FROM run ORDER BY id)")" = "passed,aborted" ] ||
	fail "Ctrl-C: runs $(q i.db 'SELECT id, status FROM run')"
grep -q "series stopped after run 2 of 3" i.err || fail "Ctrl-C: the stop not said"
# the series of a run says so: not a PASS, the aborted run named, not in the spread
expect_exit 0 "$DISKPROOF" report 1 --results i.db
grep -q "^series 1: NONE, 1 of 3 runs passed, 2 stored" out || fail "Ctrl-C: series verdict"
grep -q "^runs: 1 PASS, 2 aborted$" out || fail "Ctrl-C: the aborted run not named"
grep -Eq "^transactional IOPS .* 1$" out || fail "Ctrl-C: the aborted run in the spread"
echo ok
