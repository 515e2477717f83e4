#!/bin/bash
# SPDX-License-Identifier: MIT
# A real Prometheus scrapes a real run: Prometheus (on a free loopback port,
# its TSDB in $WORK) scrapes "diskproof run --metrics" every second during a
# 12 s run; its HTTP API then says up == 1 for the target, and has
# diskproof_ios_total with the volume, database and class labels of the
# profile, the latency histograms (23 buckets per database and class, 170
# per volume and class), the run info and the verdict gauges; and
# every metric name the Grafana dashboard (deploy/grafana/diskproof.json)
# queries is in the scrape, and every panel's query evaluates at the run's
# last scrape (the final text): the latency heat map to a row per bucket
# bound of diskproof_volume_latency_seconds_bucket, the verdict table to the
# measured value and threshold in seconds. Then a Prometheus whose scrapes
# time out (1 ms) scrapes a sim run: the linger ends early only if that
# Prometheus holds the final text. Exit 77 without prometheus. Slow (label
# slow).
source "$(dirname "$0")/lib.sh"
set -e
command -v prometheus >/dev/null || { echo "skipped: no prometheus (apt-get install prometheus)"; exit 77; }
P="$DP_SOURCE_DIR/tests/integration/profiles/tiny.ini"
DASH="$DP_SOURCE_DIR/deploy/grafana/diskproof.json"
prometheus_start

# query EXPR: the API's JSON answer (an instant query) on stdout
query() {
	python3 - "$API" "$1" <<'PY'
import json, sys, urllib.parse, urllib.request
api, expr = sys.argv[1:]
u = api + "/query?" + urllib.parse.urlencode({"query": expr})
print(json.dumps(json.load(urllib.request.urlopen(u, timeout=5))))
PY
}
for _ in $(seq 100); do
	query 'vector(1)' >/dev/null 2>&1 && break
	kill -0 $PROM 2>/dev/null || fail "prometheus exited: $(tail -5 prom.log)"
	sleep 0.2
done
query 'vector(1)' >/dev/null || fail "prometheus does not answer: $(tail -5 prom.log)"

expect_verdict "$DISKPROOF" run "$P" --engine psync --duration 11s --warmup 1s --data-dir "$WORK/d" \
	--results "$WORK/r.db" --label scraped --metrics "$DP_PORT" --quiet
# the samples of the last scrapes are there by now (1 s interval); up is
# checked over the run, since the port went away with it
python3 - "$API" "$DASH" <<'PY' || fail "the scrape"
import json, re, sys, urllib.parse, urllib.request
api, dash = sys.argv[1:]
def q(expr):
    u = api + "/query?" + urllib.parse.urlencode({"query": expr})
    r = json.load(urllib.request.urlopen(u, timeout=5))
    assert r["status"] == "success", r
    return r["data"]["result"]
up = q('max_over_time(up{job="diskproof"}[1m])')
assert up and up[0]["value"][1] == "1", ("up", up)
ios = q('last_over_time(diskproof_ios_total[1m])')
keys = {(s["metric"]["volume"], s["metric"]["database"], s["metric"]["class"]) for s in ios}
for v, d in (("a", "db1"), ("b", "db2")):
    for c in ("db_read", "db_write", "log_write"):
        assert (v, d, c) in keys, ("missing", v, d, c, sorted(keys))
assert sum(float(s["value"][1]) for s in ios) > 0, "no I/O counted"
info = q('last_over_time(diskproof_run_info[1m])')
assert any(s["metric"].get("label") == "scraped" and s["metric"].get("profile") for s in info), info
b = q('last_over_time(diskproof_io_latency_seconds_bucket{class="db_read",le="+Inf"}[1m])')
assert len(b) == 2, b
# the fine buckets are per volume (one series a volume, 170 bounds); the
# per-database ones one an octave (23)
b = q('last_over_time(diskproof_volume_latency_seconds_bucket{class="db_read",le="+Inf"}[1m])')
assert len(b) == 2 and "database" not in b[0]["metric"], b
n = q('count by (volume) (last_over_time(diskproof_volume_latency_seconds_bucket{class="db_read"}[1m]))')
assert sorted(float(x["value"][1]) for x in n) == [170, 170], n
n = q('count by (database) (last_over_time(diskproof_io_latency_seconds_bucket{class="db_read"}[1m]))')
assert sorted(float(x["value"][1]) for x in n) == [23, 23], n
vp = q('last_over_time(diskproof_verdict_pass{scope="run"}[1m])')
assert vp, "no verdict gauges"
# rate() at some instant of the run (a subquery over the last 5 min): at
# the query's own instant the run may be over by more than the 5 s window
# (a loaded machine's Python starts alone take seconds)
rate = q('max_over_time(sum(rate(diskproof_ios_total[5s]))[5m:1s]) > 0')
assert rate, "rate() over the scrapes is empty"
# every metric the dashboard queries is in the scrape
d = json.load(open(dash))
exprs = []
def walk(x):
    if isinstance(x, dict):
        for k, v in x.items():
            if k in ("expr", "definition") and isinstance(v, str):
                exprs.append(v)
            walk(v)
    elif isinstance(x, list):
        for v in x:
            walk(v)
walk(d)
names = set(re.findall(r"\bdiskproof_[a-z_]+", " ".join(exprs)))
assert len(names) >= 10, names
scraped = {s["metric"]["__name__"] for s in q('last_over_time({__name__=~"diskproof_.+"}[1m])')}
missing = names - scraped
assert not missing, ("dashboard metrics not scraped", missing)
# every panel's query is PromQL Prometheus evaluates, at the run's last
# scrape (the final text, --metrics-linger), the variables as "all"
def at(expr, t):
    u = api + "/query?" + urllib.parse.urlencode({"query": expr, "time": t})
    r = json.load(urllib.request.urlopen(u, timeout=5))
    assert r["status"] == "success", (expr, r)
    return r["data"]["result"]
# the run ended when a scrape had read the final text; Prometheus appends
# what it scraped a moment later (longer on a loaded machine): waited for
import time
for _ in range(60):
    t = q('max_over_time(timestamp(diskproof_run_finished)[5m:1s])')[0]["value"][1]
    fin = at("diskproof_run_finished", t)
    if fin and fin[0]["value"][1] == "1":
        break
    time.sleep(0.5)
assert fin and fin[0]["value"][1] == "1", ("the last scrape is not the final text", fin,
    q('last_over_time(up{job="diskproof"}[1m])'), q('max_over_time(scrape_duration_seconds[1m])'))
def concrete(expr):
    for v in ("instance", "volume", "class"):
        expr = expr.replace('"$%s"' % v, '".*"')
    return expr.replace("$__rate_interval", "1m")
for p in d["panels"]:
    for tg in p.get("targets", []):
        res = at(concrete(tg["expr"]), t)
        if p["type"] in ("heatmap", "table"):
            assert res, ("no result", p["title"], tg["expr"])
# the latency heat map: from the histogram's buckets, one row per bound
heat = [p for p in d["panels"] if p["type"] == "heatmap"]
assert len(heat) == 1, "no latency heat map panel"
tg = heat[0]["targets"][0]
assert tg.get("format") == "heatmap" and heat[0]["options"]["calculate"] is False, tg
hm = set(re.findall(r"\bdiskproof_[a-z_]+", tg["expr"]))
assert hm == {"diskproof_volume_latency_seconds_bucket"} and hm <= scraped, hm
rows = at(concrete(tg["expr"]), t)
assert len(rows) > 100 and all("le" in r["metric"] for r in rows), len(rows)
# the verdict table: measured and threshold of one criterion side by side,
# in seconds
for ref in ("B", "C"):
    e = [x for p in d["panels"] if p["type"] == "table" for x in p["targets"] if x["refId"] == ref]
    vals = at(concrete(e[-1]["expr"]), t)
    row = [r for r in vals if r["metric"].get("criterion") == "db_read_avg_ms"
           and r["metric"].get("scope") == "run"]
    assert row and row[0]["metric"].get("unit") == "seconds", (ref, row)
    assert ref == "B" or float(row[0]["value"][1]) == 0.02, row
print("dashboard metrics scraped:", len(names), "of", len(scraped))
PY

# a Prometheus whose scrapes time out (scrape_timeout 1ms, too short for
# nearly every scrape) does not have the final text, so the linger does not
# end on its scrapes: the claim is that the linger ended early only if
# Prometheus holds the final text
kill $PROM
wait $PROM || true
prometheus_start 1ms
for _ in $(seq 100); do
	query 'vector(1)' >/dev/null 2>&1 && break
	sleep 0.2
done
"$DISKPROOF" run "$DP_SOURCE_DIR/tests/integration/profiles/sim.ini" --duration 5s --warmup 1s \
	--results "$WORK/t.db" --metrics "$DP_PORT" --metrics-linger 6s --quiet >t.out 2>t.err ||
	fail "sim run: $(cat t.err)"
grep -q "serving final metrics until scraped or 6s" t.err || fail "no linger: $(cat t.err)"
sel="{job=\"diskproof\",instance=\"127.0.0.1:$DP_PORT\"}"
sleep 2 # what was scraped is appended
query "count_over_time(up$sel[1m])" | grep -q '"value"' || fail "the 1ms Prometheus never tried a scrape"
have=$(query "max_over_time(diskproof_run_finished$sel[1m])" | grep -c '"1"\]' || true)
if grep -q "the final metrics were not scraped in 6s" t.err; then
	[ "$have" = 0 ] || fail "Prometheus has the final text, and the linger said it was not scraped"
	echo "every 1ms scrape timed out: the linger ran its 6 s, and said so"
else
	[ "$have" = 1 ] || fail "the linger ended on a scrape, and Prometheus has no final text: $(query "up$sel[1m]")"
	echo "a 1ms scrape succeeded: the linger ended with the final text in Prometheus"
fi
echo ok
