#!/bin/bash
# SPDX-License-Identifier: MIT
# test_fleet_html.sh - the HTML page of a fleet of three sim runs (the third
# with reads 20 % slower; two hosts of the same name) in headless Chromium:
# the page renders with no script error; it has a title and a heading
# naming its runs, hosts and label; it has every section; the runs
# table has a row per run, the slow one marked differs; each per-run bar
# chart has a bar per run, the slow run's marked where it differs (not on
# its log writes); the two over-time charts
# have a line per run; the totals table has the merged I/O count of the
# JSON. A screenshot goes to $DP_BINARY_DIR/artifacts/fleet.png. Then a
# failing fleet (three hosts, one slow disk) printed to an A4 PDF: the
# failing host, its volume and databases and each database's verdict are in
# the PDF's text (pdftotext); fleet-failing.png and .pdf go to artifacts.
# Exit 77 without /usr/bin/chromium or pdftotext.
source "$(dirname "$0")/lib.sh"
set -e
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
[ -x "$CHROMIUM" ] || { echo "skipped: no $CHROMIUM (apt-get install chromium)"; exit 77; }
P="$DP_SOURCE_DIR/tests/integration/profiles/sim.ini"
R=(--results "$WORK/r.db")
ART="$DP_BINARY_DIR/artifacts"
mkdir -p "$ART"

sed 's/^read_latency = .*/read_latency = 2.4ms/' "$P" >slow.ini
expect_exit 0 "$DISKPROOF" run "$P" --duration 1m --quiet --label w "${R[@]}"
expect_exit 0 "$DISKPROOF" run "$P" --duration 1m --quiet --label w "${R[@]}"
expect_exit 0 "$DISKPROOF" run ./slow.ini --duration 1m --quiet --label w "${R[@]}"
sqlite3 r.db "UPDATE run SET host = CASE id WHEN 3 THEN 'db-<c>' ELSE 'db-a' END"
sqlite3 r.db "UPDATE run SET load_started_at = '2026-12-03T15:20:0' || id || '.000000Z'"
expect_exit 0 "$DISKPROOF" fleet label:w --format html -o fleet.html "${R[@]}"
[ -s fleet.html ] || fail "no page written"
[ ! -s "$WORK/out" ] || fail "-o: something on stdout"
expect_exit 0 "$DISKPROOF" fleet label:w --format json "${R[@]}"
cp "$WORK/out" fleet.json
! grep -q 'db-<c>' fleet.html || fail "host name not escaped"
# a title and a heading naming the runs, hosts and label
grep -q '<title>diskproof fleet: 3 runs on 2 hosts (w) - PASS</title>' fleet.html ||
	fail "title: $(grep -o '<title>[^<]*</title>' fleet.html | head -1)"
grep -q '<h1>diskproof fleet: 3 runs on 2 hosts <span class="badge PASS">PASS</span> <span class="label">w</span></h1>' \
	fleet.html || fail "no h1"
grep -q '<div class="sub">hosts db-a, db-&lt;c&gt; &middot; selector label:w</div>' fleet.html ||
	fail "no hosts under the h1"
! grep -Eq '(src|href)="(https?:)?//' fleet.html || fail "the page loads something over the network"

chrome() {
	timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$(mktemp -d "$WORK/chrome.XXXXXX")" --virtual-time-budget=5000 "$@"
}
chrome --enable-logging=stderr --v=0 --dump-dom "file://$WORK/fleet.html" >fleet.dom 2>fleet.log ||
	fail "chromium could not load fleet.html"
grep -q 'data-rendered="[1-9]' fleet.dom || fail "page not rendered (script did not run)"
! grep -q 'data-js-error=' fleet.dom || fail "script error: $(grep -o 'data-js-error="[^"]*"' fleet.dom)"
for s in summary hosts differs bars lines totals; do
	grep -q "<section id=\"$s\"" fleet.dom || fail "no section $s"
done
python3 - fleet.dom fleet.json <<'EOF2' || fail "page content"
import json, re, sys
dom = open(sys.argv[1]).read()
doc = json.load(open(sys.argv[2]))
def section(name):
    s = dom[dom.index('<section id="%s"' % name):]
    return s[:s.index('</section>')]
rows = re.findall(r'<tr class="host" data-run="(\d+)" data-differs="([01])"><td>([^<]*)</td>', section("hosts"))
if rows != [("1", "0", "db-a"), ("2", "0", "db-a"), ("3", "1", "db-&lt;c&gt;")]:
    sys.exit("runs table %s" % rows)
if not re.search(r'<tr class="differs" data-run="3"><td>[^<]*</td><td class="num">3</td><td>db read avg ms</td>', section("differs")):
    sys.exit("differences: no db read avg row for run 3")
bars = section("bars")
for cid in ["bars-trans-iops", "bars-db-read-avg", "bars-db-read-p99", "bars-log-write-avg"]:
    i = bars.index('<figure class="chart" id="%s"' % cid)
    fig = bars[i:bars.index('</figure>', i)]
    if fig.count("<svg") != 1 or 'data-points="3" data-name="runs"' not in fig:
        sys.exit("%s: not one chart of 3 bars" % cid)
    marks = re.findall(r'<rect class="bar"[^>]*data-marked="([01])"', fig)
    if marks != (["0", "0", "0"] if cid == "bars-log-write-avg" else ["0", "0", "1"]):
        sys.exit("%s: marks %s" % (cid, marks))
lines = section("lines")
for cid in ["chart-db-read-avg", "chart-trans-iops"]:
    i = lines.index('id="%s"' % cid)
    fig = lines[i:lines.index('</figure>', i)]
    n = len(re.findall(r'<polyline class="series" data-points="(\d+)"', fig))
    if n != 3:
        sys.exit("%s: %d lines" % (cid, n))
tot = section("totals")
m = re.search(r'<tr class="total" data-class="db_read"><td>db_read</td><td class="num">(\d+)</td>', tot)
if not m or int(m.group(1)) != doc["summary"]["classes"]["db_read"]["ios"]:
    sys.exit("totals: db_read I/Os %s" % (m and m.group(1)))
if '<td class="num" id="nr-runs">3</td>' not in section("summary"):
    sys.exit("summary: run count")
EOF2
chrome --hide-scrollbars --screenshot="$ART/fleet.png" --window-size=1200,2400 \
	"file://$WORK/fleet.html" >/dev/null 2>&1 || fail "screenshot"
[ "$(head -c 8 "$ART/fleet.png" | od -An -tx1 | tr -d ' ')" = 89504e470d0a1a0a ] ||
	fail "$ART/fleet.png is not a PNG"

# A failing fleet (test_fleet_slow_disk.sh's: three hosts, db-c's disk3
# slow) printed to PDF (A4): the failing host, its failing volume and
# databases and every database's verdict are on the paper, and its runs
# table names the slowest read for what it is
command -v pdftotext >/dev/null || { echo "skipped: no pdftotext (apt-get install poppler-utils)"; exit 77; }
S="$DP_SOURCE_DIR/examples/five-disks-slow.ini"
mkdir -p ok
python3 - "$S" >ok/five-disks-slow.ini <<'PY'
import re, sys
print(re.sub(r"\[sim disk3\]\n(?:[a-z_]+ = [^\n]*\n)*", "", open(sys.argv[1]).read()), end="")
PY
for h in a b c; do
	prof=./ok/five-disks-slow.ini
	want=0
	[ $h = c ] && prof=$S && want=1
	expect_exit $want "$DISKPROOF" run "$prof" --duration 3m --host db-$h --label wave2 --quiet \
		--results "$WORK/f.db"
done
expect_exit 1 "$DISKPROOF" fleet label:wave2 --format html -o failing.html --results "$WORK/f.db"
grep -q '<th>db read slowest ms</th>' failing.html || fail "runs table: no \"db read slowest ms\""
! grep -q 'db read max ms' failing.html || fail "runs table still says \"db read max ms\""
chrome --no-pdf-header-footer --print-to-pdf="$ART/fleet-failing.pdf" "file://$WORK/failing.html" \
	>/dev/null 2>&1 || fail "print to PDF"
pdfinfo "$ART/fleet-failing.pdf" 2>/dev/null | grep -q 'A4' || fail "the PDF is not A4"
pdftotext -layout "$ART/fleet-failing.pdf" failing.txt
grep -Eq 'db-c \(run 3\) +FAIL +volume disk3, databases db7, db8, db9' failing.txt ||
	fail "PDF: the failing host, volume and databases: $(head -20 failing.txt)"
grep -q '1 of 5 volume(s) failed: disk3 served' failing.txt || fail "PDF: no why"
grep -Eq 'diskproof fleet: 3 runs on 3 hosts +FAIL +wave2' failing.txt ||
	fail "PDF: no heading: $(head -3 failing.txt)"
# a row's badge may sit a line below its text in the layout: each database's
# row is its name, volume, device, three figures and its verdict, in either order
python3 - failing.txt <<'PY' || fail "PDF: the databases' verdicts (above)"
import re, sys
t = " ".join(open(sys.argv[1]).read().split())
num = r"[0-9]+\.[0-9]{3}"
rows = re.findall(r"\b(db[0-9]+) (disk[0-9]) - (?:(PASS|FAIL) )?%s %s %s(?: (PASS|FAIL))?" % (num, num, num), t)
got = {db: (vol, a or b) for db, vol, a, b in rows}
want = {"db%d" % i: ("disk%d" % ((i - 1) // 3 + 1), "FAIL" if i in (7, 8, 9) else "PASS") for i in range(1, 16)}
if got != want:
    sys.exit("PDF: databases %s" % sorted(got.items()))
PY
chrome --hide-scrollbars --screenshot="$ART/fleet-failing.png" --window-size=1400,2000 \
	"file://$WORK/failing.html" >/dev/null 2>&1 || fail "screenshot of the failing fleet"
echo "ok ($ART/fleet.png, $ART/fleet-failing.png, $ART/fleet-failing.pdf)"
