#!/bin/bash
# SPDX-License-Identifier: MIT
# test_open_loop_sim.sh - open loop (arrival = rate) without coordinated
# omission, in virtual time (docs/verdicts.md#service-and-response-time): a
# fast simulated device (2 ms reads) behind too few streams (4 streams at
# 2000 transactions/s: they can serve about 1400/s), so transactions queue
# for a stream.
# - the db_read figures are the device's service time (about 2 ms), the
#   response time (intended start to completion, every page read of a
#   transaction) is seconds, stored per scope (table response) and shown in
#   JSON (classes.db_read.response), HTML (section "response") and in the
#   text summary, whose line says the response time is over the threshold
#   the service time met;
# - the run passes on service time (exit 0); the same profile with
#   [thresholds] latency_basis = response fails (exit 1) on db_read_avg_ms;
# - the tool's own queue (transactions arrived and not begun for want of a
#   stream) is reported: the streams grew from 4 to their bound
#   ([workload] max_streams = 5, still too few), the backlog's peak, mean
#   and seconds are in JSON (backlog, per interval too) and in one text
#   line; stored per interval (table backlog_sample, schema 12);
# - with enough streams (a tenth of the rate, the default bound) the backlog is zero: zeros in
#   JSON, no line; a schema-11 file (no backlog_sample) reads as no backlog;
# - max_streams needs arrival = rate and at least the streams;
# - a closed-loop run stores no response times (response is service), nor
#   does a fixed-model run, which ignores arrival.
source "$(dirname "$0")/lib.sh"
set -e

cat >open.ini <<'INI'
[test]
duration = 30s
warmup = 0s
[sizing]
database_size = 256MiB
[workload]
arrival = rate
rate = 2000
max_streams = 5
[engine]
name = sim
streams = 4
[sim]
read_latency = 2ms
write_latency = 1ms
log_write_latency = 500us
seed = 7
[volume v1]
path = /nonexistent/v1
databases = 2
INI

expect_exit 0 "$DISKPROOF" run ./open.ini --results r.db --quiet --metrics-file open.prom
expect_exit 0 "$DISKPROOF" report 1 --results r.db --format json
cp "$WORK/out" open.json
python3 - open.json <<'PY' || fail "json: service and response times"
import json, sys
d = json.load(open(sys.argv[1]))
for scope in [d["summary"]] + d["volumes"] + d["databases"]:
    rd = scope["classes"]["db_read"]
    rs = rd["response"]
    assert 1.5 < rd["avg_ms"] < 2.5, rd          # service: the device's 2 ms
    assert rs["avg_ms"] > 1000, rs                # response: the stream queue's seconds
    assert rs["p50_ms"] <= rs["p99_ms"] <= rs["max_ms"], rs
    assert rs["ios"] == rd["ios"], (rs, rd)       # every page read, not only the first
    assert "response" not in scope["classes"]["log_write"], scope
b = d["backlog"]                                  # the tool's own queue
assert b["peak"] > 100 and b["mean"] > 10, b
assert 25 < b["seconds"] <= b["measured_s"] == 30, b
assert b["streams_start"] == 4 and b["streams_max"] == b["streams_bound"] == 5, b
assert len(b["intervals"]) == 30 and all(i["streams"] == 5 for i in b["intervals"][1:]), b
assert max(i["peak"] for i in b["intervals"]) == b["peak"], b
print("service %.3f ms, response %.3f ms, backlog peak %d mean %.1f" % (
    d["summary"]["classes"]["db_read"]["avg_ms"],
    d["summary"]["classes"]["db_read"]["response"]["avg_ms"], b["peak"], b["mean"]))
PY
python3 - open.json "$DP_SOURCE_DIR/docs/schema/report.schema.json" <<'PY' || fail "json: not valid against the report schema"
import json, sys
try:
    import jsonschema
except ImportError:
    sys.exit(0)  # test_json_schema says so; nothing to validate with here
jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))
PY
[ "$(sqlite3 r.db "select count(*) from response where run_id = 1 and class = 'db_read'")" = 4 ] ||
	fail "response rows: run, volume and two databases"
# metrics: the response gauges per database, as stored
python3 - open.prom open.json <<'PY' || fail "metrics: the response gauges"
import json, re, sys
text = open(sys.argv[1]).read()
d = json.load(open(sys.argv[2]))
for fam, key in (("avg", "avg_ms"), ("max", "max_ms")):
    got = dict(re.findall(r'^diskproof_io_response_%s_seconds\{volume="v1",database="(db\d)",class="db_read"\} (\S+)$' % fam,
                          text, re.M))
    want = {x["name"]: x["classes"]["db_read"]["response"][key] for x in d["databases"]}
    assert sorted(got) == sorted(want), (fam, got)
    for n in want:
        assert abs(float(got[n]) * 1000 - want[n]) < 0.01, (fam, n, got[n], want[n])
assert "# TYPE diskproof_io_response_avg_seconds gauge" in text
PY
if command -v promtool >/dev/null; then
	promtool check metrics <open.prom >lint 2>&1 && [ ! -s lint ] || fail "promtool: $(cat lint)"
fi

expect_exit 0 "$DISKPROOF" report 1 --results r.db
grep -Eq "^db_read response time \(incl\. the tool's own queue\): avg [0-9]{4,}\.[0-9]{3} ms > 20 ms, which the service time met \(2\.[0-9]{3} ms\)$" \
	"$WORK/out" || fail "text: the response line: $(grep response "$WORK/out")"
grep "response" "$WORK/out" | awk 'length > 120 { exit 1 }' || fail "text: a response line over 120 columns"
grep -Eq "^the tool's own queue held up to [0-9]{3,} transactions \(mean [0-9]+\.[0-9], (2[6-9]|30) s of 30 s\): response time includes that wait$" \
	"$WORK/out" || fail "text: the backlog line: $(grep -A1 "own queue" "$WORK/out")"
grep -q '^  open loop: streams grew 4 -> 5 (bound 5)$' "$WORK/out" || fail "text: the streams' growth"
[ "$(sqlite3 r.db "select count(*) from backlog_sample where run_id = 1 and peak > 0")" -ge 25 ] ||
	fail "backlog_sample rows"

expect_exit 0 "$DISKPROOF" report 1 --results r.db --format html
grep -q '<section id="response">' "$WORK/out" || fail "html: no response section"
grep -q 'class="backlog" data-max' "$WORK/out" || fail "html: no backlog chart"
grep -Eq "The tool's own queue .*peak [0-9]{3,}, .*streams 4 &rarr; 5 \(bound 5" "$WORK/out" ||
	fail "html: the backlog's note"

# enough streams for the rate (a tenth of it, the default bound 4 x 4): no
# backlog, zeros in JSON, no line
sed 's/^rate = .*/rate = 200/; /^max_streams = /d' open.ini >enough.ini
expect_exit 0 "$DISKPROOF" run ./enough.ini --results e.db
! grep -q "own queue held" "$WORK/out" || fail "enough streams: a backlog line"
expect_exit 0 "$DISKPROOF" report 1 --results e.db --format json
[ "$(json 'd["backlog"]["peak"], d["backlog"]["seconds"], d["backlog"]["mean"]')" = "(0, 0.0, 0.0)" ] ||
	fail "enough streams: backlog $(json 'd["backlog"]')"
[ "$(json 'd["backlog"]["streams_bound"]')" = 16 ] || fail "enough streams: the default bound"
# a schema-11 file: no table backlog_sample (nor the later run_fingerprint,
# schema 13); it opens (migrated) and reads as no backlog
cp r.db old.db
sqlite3 old.db "drop table backlog_sample; drop table run_fingerprint; pragma user_version = 11"
expect_exit 0 "$DISKPROOF" report 1 --results old.db --format json
[ "$(json '"backlog" in d')" = False ] || fail "schema 11: a backlog key"
expect_exit 0 "$DISKPROOF" report 1 --results old.db
! grep -q "own queue held" "$WORK/out" || fail "schema 11: a backlog line"
# max_streams bounds an open loop's streams, from the streams up
sed 's/^max_streams = .*/max_streams = 3/' open.ini >few.ini
expect_exit 2 "$DISKPROOF" plan ./few.ini
grep -q '^./few.ini:[0-9]*: \[workload\] max_streams: .*fewer than the 4 streams' "$WORK/err" ||
	fail "max_streams < streams: $(cat "$WORK/err")"
sed '/^arrival = rate/d; /^rate = /d' open.ini >closed-max.ini
expect_exit 2 "$DISKPROOF" plan ./closed-max.ini
grep -q '^./closed-max.ini:[0-9]*: \[workload\] max_streams: .*needs arrival = rate' "$WORK/err" ||
	fail "closed loop with max_streams: $(cat "$WORK/err")"

# CSV: the response columns on each scope's whole-run db_read row, as the
# JSON has them; empty on every other row
expect_exit 0 "$DISKPROOF" report 1 --results r.db --format csv
cp "$WORK/out" open.csv
python3 - open.csv open.json <<'PY' || fail "csv: the response columns"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
d = json.load(open(sys.argv[2]))
want = {("run", "run"): d["summary"]}
want.update({("volume", v["name"]): v for v in d["volumes"]})
want.update({("database", x["name"]): x for x in d["databases"]})
cols = ("avg_ms", "p50_ms", "p99_ms", "max_ms")
seen = 0
for row in rows:
    got = [row["response_" + k] for k in cols]
    if row["t_ms"] == "" and row["class"] == "db_read":
        rs = want[(row["scope"], row["name"])]["classes"]["db_read"]["response"]
        assert [float(x) for x in got] == [round(rs[k], 3) for k in cols], (row, rs)
        assert float(row["avg_ms"]) < 3 < float(row["response_avg_ms"]), row
        seen += 1
    else:
        assert got == ["", "", "", ""], row
assert seen == 4, seen
PY

# the same profile judged on the response time fails, on db_read's average
sed 's/^\[engine\]/[thresholds]\nlatency_basis = response\n\n[engine]/' open.ini >resp.ini
expect_exit 1 "$DISKPROOF" run ./resp.ini --results r.db
grep -Eq '^  FAIL run: database read average [0-9]{4,}\.[0-9]{3} ms > 20 ms' "$WORK/out" ||
	fail "latency_basis = response: no failed read average"
! grep -q "FAIL.*log write" "$WORK/out" || fail "latency_basis = response: log writes judged on a response time"
expect_exit 0 "$DISKPROOF" report 2 --results r.db
grep -Eq '^latency thresholds judged the response time \(latency_basis = response\): db_read avg [0-9]{4,}\.[0-9]{3} ms, service time 2\.[0-9]{3} ms$' \
	"$WORK/out" || fail "text: the basis line"
! grep -q "which the service time met" "$WORK/out" || fail "text: the service line on the response basis"
# and a closed-loop profile cannot ask for it
sed '/^arrival = rate/d; /^rate = /d; /^max_streams = /d' resp.ini >resp-closed.ini
expect_exit 2 "$DISKPROOF" plan ./resp-closed.ini
grep -q '^./resp-closed.ini:[0-9]*: \[thresholds\] latency_basis: .*needs arrival = rate' "$WORK/err" ||
	fail "closed loop with latency_basis = response: $(cat "$WORK/err")"

# a closed-loop run: no response rows, no key, no line, no section
sed '/^arrival = rate/d; /^rate = /d; /^max_streams = /d' open.ini >closed.ini
expect_exit 0 "$DISKPROOF" run ./closed.ini --results r.db --quiet --metrics-file closed.prom
! grep -q diskproof_io_response closed.prom || fail "closed loop: response gauges"
grep -q '^diskproof_io_latency_max_seconds{' closed.prom || fail "closed loop: no metrics"
[ "$(sqlite3 r.db "select count(*) from response where run_id = 3")" = 0 ] || fail "closed loop stored response rows"
expect_exit 0 "$DISKPROOF" report 3 --results r.db --format json
[ "$(json '"response" in d["summary"]["classes"]["db_read"]')" = False ] || fail "closed loop: a response key"
[ "$(json '"backlog" in d')" = False ] || fail "closed loop: a backlog key"
[ "$(sqlite3 r.db "select count(*) from backlog_sample where run_id = 3")" = 0 ] || fail "closed loop stored backlog rows"
expect_exit 0 "$DISKPROOF" report 3 --results r.db --format html
! grep -q 'id="response"' "$WORK/out" || fail "closed loop: a response section"
expect_exit 0 "$DISKPROOF" report 3 --results r.db --format csv
head -1 "$WORK/out" | grep -q ',response_avg_ms,response_p50_ms,response_p99_ms,response_max_ms$' ||
	fail "closed loop: the CSV's columns"
[ "$(tail -n +2 "$WORK/out" | grep -vc ',,,,$')" = 0 ] || fail "closed loop: a response figure in the CSV"
# fleet: a response column when a run has one (run 1, open loop), "-" for
# the closed-loop run 3; JSON db_read_response_avg_ms for run 1 only
expect_exit 0 "$DISKPROOF" fleet 1 3 --results r.db
cp "$WORK/out" fleet.txt
grep -qE '^host +run eng verdict +trans IOPS +avg +p99 +slowest +response +avg ms ' fleet.txt ||
	fail "fleet text: no response column: $(grep '^host' fleet.txt)"
resp=$(python3 -c 'import json,sys; print("%.3f" % json.load(open(sys.argv[1]))["summary"]["classes"]["db_read"]["response"]["avg_ms"])' open.json)
grep -qE "^[^ ]+ +1 sim PASS +[0-9.]+ +2\.[0-9]{3} +[0-9.]+ +[0-9.]+ +$resp " fleet.txt ||
	fail "fleet text: run 1's response $resp: $(grep -E '^[^ ]+ +1 ' fleet.txt)"
grep -qE '^[^ ]+ +3 sim PASS +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +- ' fleet.txt || fail "fleet text: run 3's response not -"
sed -n '/^host  *run /,/^$/p' fleet.txt | awk 'length > 120 { bad = 1 } END { exit bad }' ||
	fail "fleet text: the runs' table over 120 columns"
expect_exit 0 "$DISKPROOF" fleet 1 3 --results r.db --format json
[ "$(json '[(h["run_id"], round(h.get("db_read_response_avg_ms", -1), 3)) for h in d["hosts"]]')" = "[(1, $resp), (3, -1)]" ] ||
	fail "fleet JSON: $(json '[h.get("db_read_response_avg_ms") for h in d["hosts"]]')"
expect_exit 0 "$DISKPROOF" fleet 1 3 --results r.db --format html
grep -q '<th>db read response avg ms</th>' "$WORK/out" || fail "fleet HTML: no response column"
# a fleet of closed-loop runs has no response column
expect_exit 0 "$DISKPROOF" fleet 3 --results r.db
! grep -q response "$WORK/out" || fail "fleet of closed-loop runs: a response column"

# the fixed model ignores arrival (closed loop): no response times either
sed 's/^\[workload\]/[workload]\nmodel = fixed/' open.ini >fixed.ini
expect_exit 0 "$DISKPROOF" run ./fixed.ini --results r.db --quiet
[ "$(sqlite3 r.db "select count(*) from response where run_id = 4")" = 0 ] || fail "fixed model stored response rows"
echo "ok"
