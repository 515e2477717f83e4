#!/bin/bash
# SPDX-License-Identifier: MIT
# test_html.sh - the HTML pages (report --format html, compare --format html)
# in headless Chromium: a sim run labelled with a <script> tag, a compare of
# two sim runs (B with twice A's read latency), and an auto-tuned sim run on a
# device that saturates (levels that pass and levels that fail: its auto-tune
# chart and table must show every step the JSON report lists, in the order of
# their streams, hollow markers for the failed ones). Each page must render with no
# script error (report.js writes data-js-error on the root element when one
# happens, and data-rendered once the document is loaded), have its sections
# and SVG charts whose series carry data points (one per class the runs
# issued, thresholds on the judged classes only), show the label as escaped
# text, and reference nothing over the network. Run 1 is given host counters
# as a real device would store them (CPU, memory, a device vdb): its host
# section has the CPU and the device charts, and the compare page vdb's
# figures. The run page has one average latency chart per volume and judged
# class (section volume-latency). Screenshots are kept in
# $DP_BINARY_DIR/artifacts/. Exit 77 when /usr/bin/chromium is absent.
source "$(dirname "$0")/lib.sh"
set -e
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
[ -x "$CHROMIUM" ] || { echo "skipped: no $CHROMIUM (apt-get install chromium)"; exit 77; }
P="$DP_SOURCE_DIR/tests/integration/profiles/sim.ini"
R=(--results "$WORK/r.db")
ART="$DP_BINARY_DIR/artifacts"
mkdir -p "$ART"
LABEL='<script>alert(1)</script> & "fw 2.1"'

sed 's/^read_latency = .*/read_latency = 4ms/' "$P" >slow.ini
expect_exit 0 "$DISKPROOF" run "$P" --duration 2m --quiet --label "$LABEL" "${R[@]}"
expect_exit 0 "$DISKPROOF" run ./slow.ini --duration 2m --quiet "${R[@]}"
# run 1's host counters as a run on a real device would store them: CPU in
# the host rows and a device vdb, every interval (a sim run has no device)
sqlite3 "$WORK/r.db" "
WITH iv AS (SELECT DISTINCT t_ms, warmup FROM sample WHERE run_id = 1 AND scope = 'run')
INSERT INTO host_sample (run_id, t_ms, warmup, device, span_ms, cpu_user_pct, cpu_system_pct,
	cpu_iowait_pct, mem_available)
SELECT 1, t_ms, warmup, NULL, 1000, 20 + t_ms % 7000 / 1000.0, 5, 1.5, 8000000000 FROM iv;
WITH iv AS (SELECT DISTINCT t_ms, warmup FROM sample WHERE run_id = 1 AND scope = 'run')
INSERT INTO host_sample (run_id, t_ms, warmup, device, span_ms, reads, writes, read_sectors,
	write_sectors, reads_per_s, writes_per_s, read_kbps, write_kbps, read_wait_ms,
	write_wait_ms, avg_wait_ms, util_pct, queue)
SELECT 1, t_ms, warmup, 'vdb', 1000, 3000, 2000, 192000, 64000, 3000, 2000, 96000, 32000, 2.0,
	3.0, 2.4, 60 + t_ms % 5000 / 250.0, 7.2 FROM iv;" || fail "could not add host rows"
expect_exit 0 "$DISKPROOF" report 1 --format html -o run.html "${R[@]}"
expect_exit 0 "$DISKPROOF" compare 1 2 --format html -o compare.html "${R[@]}"
# run 3: streams = auto on a device saturating at 3000 IOPS
sed -e 's/^streams = .*/streams = auto\nautotune_limit = 1h\nautotune_window = 5s/' \
	-e 's/^seed = .*/&\nsaturation_iops = 3000/' "$P" >tune.ini
expect_exit 0 "$DISKPROOF" run ./tune.ini --duration 1m --warmup 10s --quiet "${R[@]}"
expect_exit 0 "$DISKPROOF" report 3 --format html -o tune.html "${R[@]}"
expect_exit 0 "$DISKPROOF" report 3 --format json -o tune.json "${R[@]}"

# chrome ARGS...: headless Chromium with no network side traffic, a fresh profile
chrome() {
	timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$(mktemp -d "$WORK/chrome.XXXXXX")" --virtual-time-budget=5000 "$@"
}

# series_ok DOM MIN: at least MIN chart series, each with data-points > 0
series_ok() {
	python3 - "$1" "$2" <<'EOF' || fail "chart series in $1"
import re, sys
dom = open(sys.argv[1]).read()
pts = [int(n) for n in re.findall(r'class="series"[^>]*data-points="(\d+)"', dom)]
if len(pts) < int(sys.argv[2]) or min(pts) <= 0:
    sys.exit("%d series (want >= %s), data-points %s" % (len(pts), sys.argv[2], pts))
EOF
}

# offline FILE: only "#" anchors and data: URIs; no http(s) anywhere
offline() {
	! grep -Eqi 'https?://' "$1" || fail "$1 mentions a network URL: $(grep -Eoi 'https?://[^ "]*' "$1" | head -3)"
	! grep -Eoi '(src|href)="[^"]*"' "$1" | grep -Eqv '(src|href)="(#|data:)' ||
		fail "$1 references something outside: $(grep -Eoi '(src|href)="[^"]*"' "$1" | grep -Ev '="(#|data:)' | head -3)"
	! grep -Eqi '@import|url\(' "$1" || fail "$1 imports a stylesheet or url()"
}

# check NAME MIN_SERIES SECTION...: DOM, no script errors, sections, series, screenshot
check() {
	local name=$1 min=$2 s
	shift 2
	offline "$name.html"
	chrome --enable-logging=stderr --v=0 --dump-dom "file://$WORK/$name.html" \
		>"$name.dom" 2>"$name.log" || fail "chromium could not load $name.html"
	grep -q 'data-rendered="[1-9]' "$name.dom" || fail "$name: page not rendered (script did not run)"
	! grep -q 'data-js-error=' "$name.dom" || fail "$name: script error: $(grep -o 'data-js-error="[^"]*"' "$name.dom")"
	! grep -Ei 'Uncaught|console error' "$name.log" || fail "$name: console error"
	for s in "$@"; do
		grep -q "<section id=\"$s\"" "$name.dom" || fail "$name: no section $s"
	done
	series_ok "$name.dom" "$min"
	chrome --hide-scrollbars --screenshot="$ART/$name.png" --window-size=1200,2400 \
		"file://$WORK/$name.html" >/dev/null 2>&1 || fail "$name: screenshot"
	[ -s "$ART/$name.png" ] && [ "$(head -c 8 "$ART/$name.png" | od -An -tx1 | tr -d ' ')" = 89504e470d0a1a0a ] ||
		fail "$name: $ART/$name.png is not a PNG"
}

# run page: the jetstress model issues five classes (db_read, db_write,
# log_write, bdm_read, log_read), not backup_read: 2 volume IOPS + 5 latency +
# 5 CDF lines + the database bars, + the host's 3 CPU lines and vdb's util
# and wait, each with data points
check run 18 summary sizing parameters databases over-time volume-latency warmup distribution maintenance \
	total-io host verdicts log
! grep -q 'id="autotune"' run.dom || fail "run: an auto-tune section, but the run did not tune"
for id in chart-iops chart-lat-db_read chart-lat-db_write chart-lat-log_write chart-lat-bdm_read \
	chart-lat-log_read chart-cdf chart-db-iops; do
	grep -q "id=\"$id\"" run.dom || fail "run: no chart $id"
done
! grep -q 'backup_read' run.dom || fail "run: shows backup_read, which this run did not issue"
# one average chart per volume (v1, v2) and judged class, each its own <svg>
for c in db_read log_write; do
	[ "$(grep -Eo "<svg [^>]*class=\"vol-latency\" data-volume=\"v[12]\" data-class=\"$c\"" run.dom | wc -l)" = 2 ] ||
		fail "run: not one $c chart per volume"
done
grep -q 'class="warmup"' run.dom || fail "run: warm-up not shaded"
python3 - run.dom <<'EOF2' || fail "run: charts per class"
import re, sys
dom = open(sys.argv[1]).read()
def figure(i):
    start = dom.index('<figure class="chart" id="%s"' % i)
    return dom[start:dom.index('</figure>', start)]
# a threshold line on the judged classes' latency charts only
for c, want in (("db_read", 1), ("log_write", 1), ("db_write", 0), ("bdm_read", 0), ("log_read", 0)):
    got = figure("chart-lat-" + c).count('class="threshold"')
    if got != want:
        sys.exit("chart-lat-%s: %d threshold lines, want %d" % (c, got, want))
cdf = re.findall(r'class="series" data-points="(\d+)" data-name="([^"]*)"', figure("chart-cdf"))
if sorted(n for _, n in cdf) != ["bdm_read", "db_read", "db_write", "log_read", "log_write"] or \
        min(int(p) for p, _ in cdf) <= 0:
    sys.exit("CDF series %s" % cdf)
EOF2
# maintenance and replication: per database and in total, with figures
python3 - run.dom <<'EOF2' || fail "run: maintenance section"
import re, sys
dom = open(sys.argv[1]).read()
sec = dom[dom.index('<section id="maintenance"'):]
sec = sec[:sec.index('</section>')]
for w in ("bdm_read", "log_read", "log_write"):
    if w not in sec:
        sys.exit("no " + w)
rows = re.findall(r'<tr><td>([^<]*)</td><td>[^<]*</td>((?:<td class="num">[^<]*</td>)+)</tr>', sec)
if [r[0] for r in rows] != ["db1", "db2", "db3", "db4", "total"]:
    sys.exit("rows %s" % [r[0] for r in rows])
for name, cells in rows:
    nums = [float(x) for x in re.findall(r'>([0-9.]+)<', cells)]
    # IOs, MB/s, avg, max of bdm_read, the same of log_read, log_write MB/s
    if len(nums) != 9 or min(nums) <= 0:
        sys.exit("%s: %s" % (name, nums))
EOF2
# host performance: CPU, memory and vdb's figures, its charts over every
# interval (the warm-up's included)
python3 - run.dom <<'EOF2' || fail "run: host performance section"
import re, sys
dom = open(sys.argv[1]).read()
sec = dom[dom.index('<section id="host"'):]
sec = sec[:sec.index('</section>')]
def figure(i):
    start = sec.index('<figure class="chart" id="%s"' % i)
    return sec[start:sec.index('</figure>', start)]
cpu = re.findall(r'class="series" data-points="(\d+)" data-name="([^"]*)"', figure("chart-host-cpu"))
dev = re.findall(r'class="series" data-points="(\d+)" data-name="([^"]*)"', figure("chart-host-devices"))
if [n for _, n in cpu] != ["user %", "system %", "iowait %"] or min(int(p) for p, _ in cpu) < 120:
    sys.exit("CPU series %s" % cpu)
if [n for _, n in dev] != ["vdb util %", "vdb avg wait ms"] or min(int(p) for p, _ in dev) < 120:
    sys.exit("device series %s" % dev)
if "average wait (ms)</text>" not in figure("chart-host-devices") or 'class="warmup"' not in figure("chart-host-devices"):
    sys.exit("device chart: no right axis or no warm-up")
row = re.search(r'<tr class="host-device"><td>vdb</td><td class="num">(\d+)</td><td class="num">([0-9.]+)</td>', sec)
if not row or row.group(2) != "3000.0":
    sys.exit("vdb row %s" % (row and row.groups()))
if "<h3>Environment</h3>" not in sec:
    sys.exit("no environment facts under the counters")
EOF2
# the label is text, never markup
! grep -q '<script>alert' run.html || fail "run: label not escaped in the file"
grep -q '&lt;script&gt;alert(1)&lt;/script&gt; &amp; "fw 2.1"' run.dom ||
	fail "run: escaped label text not in the DOM"
[ "$(grep -c '<script' run.dom)" = 1 ] || fail "run: a script element other than report.js"

# tuned run page: the run page's 13 series, and the auto-tune chart's two
check tune 15 summary sizing parameters autotune databases over-time warmup distribution \
	maintenance total-io host verdicts log
python3 - tune.dom tune.json <<'EOF2' || fail "tune: auto-tune chart or table"
import json, re, sys
dom = open(sys.argv[1]).read()
tune = json.load(open(sys.argv[2]))["autotune"]
steps = tune["steps"]
if len(steps) < 3 or all(s["passed"] for s in steps) or not any(s["passed"] for s in steps):
    sys.exit("want passing and failing steps, got %s" % steps)
sec = dom[dom.index('<section id="autotune"'):]
sec = sec[:sec.index('</section>')]
start = sec.index('<figure class="chart" id="chart-autotune"')
fig = sec[start:sec.index('</figure>', start)]
series = re.findall(r'class="series" data-points="(\d+)" data-name="([^"]*)"', fig)
names = sorted(n for _, n in series)
if names != ["db_read average (ms, left)", "transactional IOPS (right)"] or \
        any(int(p) != len(steps) for p, _ in series):
    sys.exit("series %s, want 2 of %d points" % (series, len(steps)))
# a marker per step and series, in the order of streams, hollow when failed
pts = re.findall(r'<circle class="point" data-streams="(\d+)" data-passed="([01])"', fig)
order = sorted(range(len(steps)), key=lambda i: (steps[i]["streams"], i))
want = [(str(steps[i]["streams"]), "1" if steps[i]["passed"] else "0") for i in order]
if pts != want + want:
    sys.exit("markers %s, want %s twice" % (pts, want))
if "transactional IOPS</text>" not in fig or "streams (log2 scale)" not in fig:
    sys.exit("axis titles")
# the table: one row per step, as stored
rows = re.findall(r'<tr class="tune-step( fail)?"><td class="num">(\d+)</td><td class="num">(\d+)</td>'
                  r'<td class="num">([0-9.]+)</td>.*?<td class="(PASS|FAIL)">', sec)
got = [(int(r[1]), int(r[2]), round(float(r[3]), 1), r[4] == "PASS", r[0] == " fail") for r in rows]
want = [(s["step"], s["streams"], round(s["iops"], 1), s["passed"], not s["passed"]) for s in steps]
if got != want:
    sys.exit("table rows %s, want %s" % (got, want))
if "<td>%d</td>" % tune["chosen"] not in sec or tune["stopped_because"].split(" (")[0] not in sec:
    sys.exit("chosen %s / stopped because not shown" % tune["chosen"])
EOF2
python3 - tune.dom tune.json <<'EOF2' || fail "tune: warm-up section"
import json, re, sys
dom = open(sys.argv[1]).read()
warm = json.load(open(sys.argv[2]))["warmup"]
sec = dom[dom.index('<section id="warmup"'):]
sec = sec[:sec.index('</section>')]
rows = re.findall(r'<tr><td>([a-z_]+)</td><td class="num">(\d+)</td>', sec)
want = [(c, str(v["ios"])) for c, v in warm["classes"].items() if v["ios"] or v["errors"]]
if warm["duration_s"] != 10 or rows != want:
    sys.exit("warm-up rows %s, want %s (%s s)" % (rows, want, warm["duration_s"]))
EOF2

# compare page: IOPS + 5 latency + 5 CDF charts (the classes the runs issued), A and B each
check compare 22 summary significant charts verdict-changes env-diffs host figures
grep -q '<tr class="host-figure"><td>vdb (A only)</td><td>util %</td>' compare.dom ||
	fail "compare: vdb (only in A) not among the host figures"
! grep -q 'backup_read' compare.dom || fail "compare: shows backup_read, which neither run issued"
grep -q 'Mann-Whitney U' compare.dom || fail "compare: test not named"
python3 - compare.dom <<'EOF' || fail "compare: db_read avg not flagged significant"
import re, sys
dom = open(sys.argv[1]).read()
sig = dom[dom.index('id="significant"'):dom.index('id="charts"')]
if not re.search(r'<td>db_read</td><td>avg ms</td>', sig):
    sys.exit("no db_read avg row among the significant changes")
EOF
echo "ok ($ART/run.png, $ART/tune.png, $ART/compare.png)"
