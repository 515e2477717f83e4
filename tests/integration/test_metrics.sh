#!/bin/bash
# SPDX-License-Identifier: MIT
# run --metrics and --metrics-file on a real run (psync, tiny.ini) that lasts
# until the checks are done (its duration is 10 minutes; SIGINT ends it once
# they are, exit 130: a loaded machine takes longer over the checks than a
# short run would last): /metrics fetched mid-run answers with the exposition Content-Type and
# passes "promtool check metrics" clean, its histograms are cumulative with
# +Inf equal to _count, the running verdict is there, other paths are 404
# and the server listens on loopback only; the textfile's last write passes
# promtool too and its diskproof_ios_total per class sums to the totals the
# results file stores (and its exit code is 130); a label value is escaped;
# the verdict values carry one unit per metric (seconds, not ms); [::1]:PORT serves over
# IPv6 (where the host has it), HEAD too, POST is 405. Before anything is
# written: a bad [ADDR:]PORT exits 2, a port in use exits 3, a metrics file
# in a missing directory exits 3. Exit 77 without promtool.
source "$(dirname "$0")/lib.sh"
set -e
command -v promtool >/dev/null || { echo "skipped: no promtool (apt-get install prometheus)"; exit 77; }
P="$DP_SOURCE_DIR/tests/integration/profiles/tiny.ini"
PORT=$(free_port)
mkdir m

# get PATH OUT: the answer's status, Content-Type and body (OUT.body)
get() {
	python3 - "$PORT" "$1" "$2" <<'PY'
import sys, urllib.request, urllib.error
port, path, out = sys.argv[1:]
try:
    r = urllib.request.urlopen("http://127.0.0.1:%s%s" % (port, path), timeout=5)
    code, ctype, body = r.status, r.headers.get("Content-Type"), r.read()
except urllib.error.HTTPError as e:
    code, ctype, body = e.code, e.headers.get("Content-Type"), e.read()
except OSError as e:
    code, ctype, body = 0, "", str(e).encode()
open(out + ".body", "wb").write(body)
print(code, ctype)
PY
}

"$DISKPROOF" run "$P" --engine psync --duration 10m --warmup 1s --data-dir "$WORK/d" \
	--results "$WORK/r.db" --label 'quo"te\back' --metrics "$PORT" \
	--metrics-file "$WORK/m/dp.prom" --quiet >run.out 2>run.err &
PID=$!
at_exit "kill $PID"
# mid-run: measuring, with I/O counted (a minute at most)
for _ in $(seq 300); do
	read -r code ctype < <(get /metrics mid) || true
	[ "$code" = 200 ] && grep -q 'phase="measuring"' mid.body &&
		grep -q '^diskproof_ios_total{.*class="db_read"} [1-9]' mid.body && break
	sleep 0.2
done
[ "$code" = 200 ] || fail "/metrics answered $code: $(cat mid.body)"
# while the run serves: other paths 404, other addresses refuse
read -r code _ < <(get / root)
[ "$code" = 404 ] || fail "/ answered $code"
read -r code _ < <(get /metricsx x)
[ "$code" = 404 ] || fail "/metricsx answered $code"
# loopback only: the host's other addresses refuse
for ip in $(hostname -I 2>/dev/null); do
	case $ip in 127.*|*:*) continue ;; esac
	if python3 -c "import socket,sys; socket.create_connection(('$ip', $PORT), 2)" 2>/dev/null; then
		fail "--metrics $PORT answers on $ip"
	fi
done
# all of the above while the run still serves: a refusal above that came
# from a run already gone would prove nothing (it serves until SIGINT)
read -r code _ < <(get /metrics again)
[ "$code" = 200 ] || fail "the run stopped serving before the checks ended (/metrics answered $code: $(cat run.err))"
grep -q 'phase="measuring"' mid.body || fail "never measuring: $(head -5 mid.body)"
[ "$ctype" = "text/plain; version=0.0.4; charset=utf-8" ] || fail "Content-Type: $ctype"
promtool check metrics <mid.body >lint 2>&1 || fail "promtool: $(cat lint)"
[ ! -s lint ] || fail "promtool said: $(cat lint)"
grep -q '^diskproof_run_info{.*label="quo\\"te\\\\back"' mid.body ||
	fail "label not escaped: $(grep run_info mid.body)"
grep -qE '^diskproof_verdict_pass\{scope="run",name="run",criterion="db_read_avg_ms"\} [01]$' mid.body ||
	fail "no running verdict: $(grep -c verdict_pass mid.body) verdict lines"
grep -qE '^diskproof_run_pass [01]$' mid.body || fail "no diskproof_run_pass"
# one unit per metric: a criterion judged in ms is in seconds under _seconds
# (its threshold, the default db_read_avg of 20 ms, is 0.02), the counts
# alone under the plain names
python3 - mid.body <<'PY' || fail "verdict units"
import re, sys
units = {"_seconds": ("_ms",), "_ratio": ("_pct",), "_per_second": ("_iops", "page_fault_stalls"),
         "_seconds_per_sample": ("autotune_settled",),
         "": ("io_errors", "integrity_errors", "databases_failed", "volumes_failed")}
seen = 0
for line in open(sys.argv[1]):
    m = re.match(r'diskproof_verdict_(measured|threshold)([a-z_]*)\{.*criterion="([a-z_0-9]+)"\} (\S+)$', line)
    if not m:
        continue
    seen += 1
    assert m[2] in units and m[3].endswith(units[m[2]]), ("unit", line)
    if m[1] == "threshold" and m[3] == "db_read_avg_ms":
        assert float(m[4]) == 0.02, line
assert seen, "no verdict values"
assert re.search(r'^diskproof_verdict_threshold_seconds\{scope="run",name="run",criterion="db_read_avg_ms"\} 0.02$',
                 open(sys.argv[1]).read(), re.M), "no threshold in seconds"
PY
for m in diskproof_bytes_total diskproof_io_errors_total diskproof_integrity_errors_total \
	diskproof_run_elapsed_seconds diskproof_io_latency_seconds_sum; do
	grep -q "^$m" mid.body || fail "no $m mid-run"
done

# every histogram: buckets ascending and cumulative, +Inf == _count
python3 - mid.body <<'PY' || fail "histogram check"
import re, sys, collections
b = collections.defaultdict(list); cnt = {}
for line in open(sys.argv[1]):
    m = re.match(r'diskproof_(io|volume)_latency_seconds_bucket\{(.*),le="([^"]+)"\} (\d+)$', line)
    if m:
        b[m[1], m[2]].append((float(m[3]), int(m[4])))
    m = re.match(r'diskproof_(io|volume)_latency_seconds_count\{(.*)\} (\d+)$', line)
    if m:
        cnt[m[1], m[2]] = int(m[3])
assert b and set(b) == set(cnt), "series differ"
for k, v in b.items():
    les = [x[0] for x in v]; counts = [x[1] for x in v]
    assert les == sorted(les) and les[-1] == float("inf"), (k, les)
    assert counts == sorted(counts), (k, counts)
    assert counts[-1] == cnt[k], (k, counts[-1], cnt[k])
    assert len(v) == (23 if k[0] == "io" else 170), (k, len(v))
assert {k[0] for k in b} == {"io", "volume"}, "per database and per volume"
print("histograms:", len(b))
PY

# the checks are done: the run ends now, interrupted
kill -INT $PID
set +e
wait $PID
rc=$?
set -e
[ $rc = 130 ] || fail "run exit $rc after SIGINT: $(cat run.err)"
[ ! -e m/dp.prom.tmp ] || fail "dp.prom.tmp left behind"
promtool check metrics <m/dp.prom >lint 2>&1 || fail "promtool (file): $(cat lint)"
[ ! -s lint ] || fail "promtool said (file): $(cat lint)"
grep -q 'phase="finished"' m/dp.prom || fail "last write not the final one"
grep -qE "^diskproof_run_exit_code $rc$" m/dp.prom || fail "exit code not $rc"
uuid=$(sqlite3 r.db "select uuid from run")
grep -q "run_uuid=\"$uuid\"" m/dp.prom || fail "run_uuid not $uuid"
# the last write's totals are the stored ones, per class
python3 - m/dp.prom <<'PY' >file.tot
import re, sys, collections
t = collections.Counter()
for line in open(sys.argv[1]):
    m = re.match(r'diskproof_ios_total\{.*class="([a-z_]+)"\} (\d+)$', line)
    if m:
        t[m[1]] += int(m[2])
for c in sorted(t):
    if t[c]:
        print(c, t[c])
PY
sqlite3 -separator ' ' r.db "select class, ios from summary where scope = 'run' and ios > 0 order by class" >db.tot
[ -s db.tot ] || fail "no stored totals"
diff db.tot file.tot >/dev/null || fail "file totals differ from stored: $(diff db.tot file.tot)"
s=$(sqlite3 r.db "select sum(errors) from summary where scope = 'run'")
f=$(awk '/^diskproof_io_errors_total/ {s += $2} END {print s + 0}' m/dp.prom)
[ "$s" = "$f" ] || fail "errors: stored $s, file $f"

# IPv6 loopback, where the host has it: served there, and HEAD and POST
if PORT6=$(python3 -c 'import socket; s=socket.socket(socket.AF_INET6); s.bind(("::1", 0)); print(s.getsockname()[1])' 2>/dev/null); then
	"$DISKPROOF" run "$P" --engine psync --duration 10m --warmup 0s --data-dir "$WORK/d" \
		--results "$WORK/r6.db" --metrics "[::1]:$PORT6" --quiet >/dev/null 2>run6.err &
	PID6=$!
	at_exit "kill $PID6"
	python3 - "$PORT6" <<'PY' || fail "IPv6: see above"
import http.client, sys, time
port = int(sys.argv[1])
for _ in range(300):
    try:
        c = http.client.HTTPConnection("::1", port, timeout=5)
        c.request("GET", "/metrics")
        r = c.getresponse(); body = r.read()
        if r.status == 200 and b"\ndiskproof_ios_total{" in body:
            break
    except OSError:
        pass
    time.sleep(0.2)
else:
    sys.exit("no /metrics on [::1]:%d" % port)
c = http.client.HTTPConnection("::1", port, timeout=5)
c.request("HEAD", "/metrics"); r = c.getresponse()
assert r.status == 200 and int(r.getheader("Content-Length")) > 0 and r.read() == b"", "HEAD"
c = http.client.HTTPConnection("::1", port, timeout=5)
c.request("POST", "/metrics", body=b"x"); r = c.getresponse()
assert r.status == 405 and "GET" in r.getheader("Allow"), ("POST", r.status)
PY
	kill -INT $PID6
	wait $PID6 || [ $? = 130 ] || fail "IPv6 run: $(cat run6.err)"
fi

# before anything is written: bad [ADDR:]PORT exits 2
for bad in -1 70000 http host.example:80 "::1:80" "[::1]"; do
	expect_exit 2 "$DISKPROOF" run "$P" --engine psync --data-dir "$WORK/bad" \
		--results "$WORK/bad.db" --metrics "$bad"
	grep -q -- "--metrics" err || fail "$bad: $(cat err)"
	[ ! -e bad.db ] && [ ! -e bad ] || fail "$bad: something was written"
done
# a port in use exits 3
python3 -c 'import socket, time, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
open(sys.argv[1], "w").write(str(s.getsockname()[1])); time.sleep(60)' held &
HOLD=$!
at_exit "kill $HOLD"
for _ in $(seq 50); do [ -s held ] && break; sleep 0.1; done
expect_exit 3 "$DISKPROOF" run "$P" --engine psync --data-dir "$WORK/bad" \
	--results "$WORK/bad.db" --metrics "$(cat held)"
grep -q "in use" err || fail "port in use: $(cat err)"
[ ! -e bad.db ] && [ ! -e bad ] || fail "port in use: something was written"
# a metrics file in a directory that is not there exits 3
expect_exit 3 "$DISKPROOF" run "$P" --engine psync --data-dir "$WORK/bad" \
	--results "$WORK/bad.db" --metrics-file "$WORK/nodir/dp.prom"
grep -q "does not exist" err || fail "missing dir: $(cat err)"
[ ! -e bad.db ] && [ ! -e bad ] || fail "missing dir: something was written"
echo "ok"
