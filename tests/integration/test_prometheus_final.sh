#!/bin/bash
# SPDX-License-Identifier: MIT
# A real Prometheus scrapes a real 60 s run (psync on files, tiny.ini) every
# second to its end, and holds what the run ended with (issue 32): after
# diskproof exits, the last sample of diskproof_run_finished is 1, that of
# diskproof_run_pass is the run's verdict (1 for exit 0, 0 for exit 1) and
# that of diskproof_run_exit_code its exit code, which the final text only
# has: the run serves it after its report until one scrape has fetched it
# (--metrics-linger), and that scrape, not the 75 s timeout, ends the wait.
# And histogram_quantile(0.99) over the run's database reads (the final
# cumulative fine buckets of diskproof_volume_latency_seconds, summed over
# the volumes) is within 5 % of the p99
# that "diskproof report --json" gives: the buckets are the report
# histogram's own edges, at most 9.6 % apart (16 decimal buckets put it up
# to 40 % off). Exit 77 without prometheus. Slow (label slow): 80 s.
source "$(dirname "$0")/lib.sh"
set -e
command -v prometheus >/dev/null || { echo "skipped: no prometheus (apt-get install prometheus)"; exit 77; }
P="$DP_SOURCE_DIR/tests/integration/profiles/tiny.ini"
prometheus_start
for _ in $(seq 100); do
	curl -sf "$API/query?query=vector(1)" >/dev/null && break
	kill -0 $PROM 2>/dev/null || fail "prometheus exited: $(tail -5 prom.log)"
	sleep 0.2
done
curl -sf "$API/query?query=vector(1)" >/dev/null || fail "prometheus does not answer: $(tail -5 prom.log)"

set +e
"$DISKPROOF" run "$P" --engine psync --duration 60s --warmup 2s --data-dir "$WORK/d" \
	--results "$WORK/r.db" --label final --metrics "$DP_PORT" >run.out 2>run.err &
RUN=$!
at_exit "kill $RUN"
# the moment the linger is said, and the one the command exits
for _ in $(seq 1800); do
	grep -q "serving final metrics" run.err 2>/dev/null && break
	kill -0 $RUN 2>/dev/null || break
	sleep 0.1
done
said=$(date +%s.%N)
wait $RUN
rc=$?
done_at=$(date +%s.%N)
set -e
[ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "run exit $rc: $(cat run.err)"
grep -q "^diskproof: metrics at http://127.0.0.1:$DP_PORT/metrics$" run.err ||
	fail "the URL is not said: $(cat run.err)"
grep -q "serving final metrics until scraped or 1m 15s (--metrics-linger)" run.err ||
	fail "the linger is not said: $(cat run.err)"
# the report came first (stdout is complete before the wait is said)
[ -s run.out ] || fail "no report"
python3 -c "import sys; d = float(sys.argv[2]) - float(sys.argv[1]); print('linger %.1f s' % d); \
sys.exit(d > 20)" "$said" "$done_at" || fail "the linger was not ended by a scrape"
"$DISKPROOF" report --results "$WORK/r.db" --format json >report.json

python3 - "$API" "$rc" report.json <<'PY' || fail "what Prometheus holds"
import json, sys, urllib.parse, urllib.request
api, rc, rep = sys.argv[1], int(sys.argv[2]), json.load(open(sys.argv[3]))
def q(expr):
    u = api + "/query?" + urllib.parse.urlencode({"query": expr})
    r = json.load(urllib.request.urlopen(u, timeout=10))
    assert r["status"] == "success", r
    return r["data"]["result"]
def last(name):
    r = q("last_over_time(%s[10m])" % name)
    assert len(r) == 1, (name, r)
    return float(r[0]["value"][1])
assert last("diskproof_run_finished") == 1, "the final text was never scraped"
assert last("diskproof_run_exit_code") == rc, ("exit code", last("diskproof_run_exit_code"), rc)
assert last("diskproof_run_pass") == (1 if rc == 0 else 0), ("verdict", rc)
assert rep["run"]["verdict"] == ("PASS" if rc == 0 else "FAIL"), rep["run"]["verdict"]
info = q('last_over_time(diskproof_run_info{label="final"}[10m])')
assert info and info[0]["metric"]["phase"] == "finished", info
# p99 of the database reads over the whole run: the final (cumulative)
# fine buckets per volume, summed over the volumes, against the report's
# run-scope p99
r = q('histogram_quantile(0.99, sum by (le) '
      '(last_over_time(diskproof_volume_latency_seconds_bucket{class="db_read"}[10m])))')
prom = float(r[0]["value"][1]) * 1e3
want = rep["summary"]["classes"]["db_read"]["p99_ms"]
off = abs(prom - want) / want
print("db_read p99: Prometheus %.4f ms, report %.4f ms, %.2f %% off" % (prom, want, 100 * off))
assert off <= 0.05, "more than 5 % off"
PY
echo ok
