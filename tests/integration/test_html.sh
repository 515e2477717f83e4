#!/bin/bash
# test_html.sh - the HTML pages (report --format html, compare --format html)
# in headless Chromium: a sim run labelled with a <script> tag and a compare of
# two sim runs (B with twice A's read latency). Each page must render with no
# script error (report.js writes data-js-error on the root element when one
# happens, and data-rendered once the document is loaded), have its sections
# and SVG charts whose series carry data points, show the label as escaped
# text, and reference nothing over the network. Screenshots are kept in
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
expect_exit 0 "$DISKPROOF" report 1 --format html -o run.html "${R[@]}"
expect_exit 0 "$DISKPROOF" compare 1 2 --format html -o compare.html "${R[@]}"

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

# run page: 2 volume IOPS + 3 latency + 3 CDF lines + the database bars
check run 9 summary sizing parameters databases over-time distribution maintenance total-io \
	host verdicts log
for id in chart-iops chart-lat-db_read chart-lat-db_write chart-lat-log_write chart-cdf chart-db-iops; do
	grep -q "id=\"$id\"" run.dom || fail "run: no chart $id"
done
grep -q 'class="threshold"' run.dom || fail "run: no threshold line"
grep -q 'class="warmup"' run.dom || fail "run: warm-up not shaded"
grep -qi 'not in this workload yet' run.dom || fail "run: maintenance section does not say so"
# the label is text, never markup
! grep -q '<script>alert' run.html || fail "run: label not escaped in the file"
grep -q '&lt;script&gt;alert(1)&lt;/script&gt; &amp; "fw 2.1"' run.dom ||
	fail "run: escaped label text not in the DOM"
[ "$(grep -c '<script' run.dom)" = 1 ] || fail "run: a script element other than report.js"

# compare page: IOPS + 3 latency + 3 CDF charts, A and B each
check compare 14 summary significant charts verdict-changes env-diffs figures
grep -q 'Mann-Whitney U' compare.dom || fail "compare: test not named"
python3 - compare.dom <<'EOF' || fail "compare: db_read avg not flagged significant"
import re, sys
dom = open(sys.argv[1]).read()
sig = dom[dom.index('id="significant"'):dom.index('id="charts"')]
if not re.search(r'<td>db_read</td><td>avg ms</td>', sig):
    sys.exit("no db_read avg row among the significant changes")
EOF
echo "ok ($ART/run.png, $ART/compare.png)"
