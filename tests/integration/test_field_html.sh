#!/bin/bash
# SPDX-License-Identifier: MIT
# test_field_html.sh - the HTML pages of field cases (b) and (c) (case (a) is
# test_html_volumes.sh's) opened in headless Chromium: each run page and each
# compare page renders with no script or console error; the cache compare
# lists the read dispersion change as significant and the two [sim] keys
# among the parameter differences; the firmware "before" run page says
# auto-tune's latency did not settle, and the compare page sets both runs'
# auto-tune steps side by side and lists the transactional IOPS gain.
# Screenshots go to $DP_BINARY_DIR/artifacts/ (docs/reports.md and
# docs/compare.md show them). Exit 77 without /usr/bin/chromium.
source "$(dirname "$0")/lib.sh"
set -e
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
[ -x "$CHROMIUM" ] || { echo "skipped: no $CHROMIUM (apt-get install chromium)"; exit 77; }
E="$DP_SOURCE_DIR/examples"
ART="$DP_BINARY_DIR/artifacts"
mkdir -p "$ART"

chrome() {
	timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$(mktemp -d "$WORK/chrome.XXXXXX")" --virtual-time-budget=5000 "$@"
}

# open NAME: load NAME.html, check it rendered cleanly, keep NAME.dom and a
# screenshot
open_page() {
	local n=$1
	chrome --enable-logging=stderr --v=0 --dump-dom "file://$WORK/$n.html" >"$n.dom" 2>"$n.log" ||
		fail "$n: chromium could not load $n.html"
	grep -q 'data-rendered="[1-9]' "$n.dom" || fail "$n: page not rendered (script did not run)"
	! grep -q 'data-js-error=' "$n.dom" ||
		fail "$n: script error: $(grep -o 'data-js-error="[^"]*"' "$n.dom")"
	! grep -Ei 'Uncaught|console error' "$n.log" || fail "$n: console error"
	chrome --hide-scrollbars --screenshot="$ART/$n.png" --window-size=1200,1800 \
		"file://$WORK/$n.html" >/dev/null 2>&1 || fail "$n: screenshot"
	[ -s "$ART/$n.png" ] || fail "$n: no screenshot"
}

# one run of each (the examples make series of three: [test] repeat)
R=(--results "$WORK/r.db" --quiet --repeat 1)
expect_exit 0 "$DISKPROOF" run "$E/cache-90-10.ini" "${R[@]}" --label "cache 90:10"
expect_exit 0 "$DISKPROOF" run "$E/cache-75-25.ini" "${R[@]}" --label "cache 75:25"
expect_verdict "$DISKPROOF" run "$E/firmware-before.ini" "${R[@]}" --label "fw before"
expect_verdict "$DISKPROOF" run "$E/firmware-after.ini" "${R[@]}" --label "fw after"
Q=(--results "$WORK/r.db")
for i in 1 2 3 4; do
	expect_exit 0 "$DISKPROOF" report "$i" --format html -o "run$i.html" "${Q[@]}"
	open_page "run$i"
	# every run page has one read chart per volume (five disks)
	[ "$(grep -o '<svg[^>]*class="vol-latency"[^>]*data-class="db_read"' "run$i.dom" | wc -l)" = 5 ] ||
		fail "run $i: not five per-volume read charts"
	grep -q 'id="effective-parameters"' "run$i.dom" || fail "run $i: no effective parameters"
done
cp "$ART/run1.png" "$ART/field-b-run.png"

# (b): the cache compare, by label
expect_exit 0 "$DISKPROOF" compare "label:cache 90:10" "label:cache 75:25" --format html \
	-o cache.html "${Q[@]}"
open_page cache
python3 - cache.dom <<'EOF2' || fail "cache compare page"
import re, sys
dom = open(sys.argv[1]).read()
i = dom.index("Parameter differences")
table = dom[i:dom.index("</table>", i)]
for k in ("[sim] stall_latency", "[sim] write_latency", "profile"):
    if k not in table:
        sys.exit("parameter differences lack %s" % k)
if "[sim] read_latency" in table:
    sys.exit("read_latency listed though both runs have 10ms")
# the read dispersion is among the listed (significant and material) changes
text = re.sub(r"<[^>]+>", " ", dom)
if not re.search(r"db_read\s+sd ms", text):
    sys.exit("read sd not listed")
EOF2

# (c): the firmware runs, by selector
grep -q 'did not settle' run3.dom || fail "firmware before: the page does not say latency did not settle"
expect_exit 0 "$DISKPROOF" compare latest~1 latest --format html -o firmware.html "${Q[@]}"
open_page firmware
python3 - firmware.dom <<'EOF2' || fail "firmware compare page"
import re, sys
dom = open(sys.argv[1]).read()
if '<section id="autotune"' not in dom:
    sys.exit("no auto-tune section")
sec = dom[dom.index('<section id="autotune"'):]
sec = sec[:sec.index("</section>")]
if "did not settle" not in sec:
    sys.exit("auto-tune section does not say before's levels did not settle")
text = re.sub(r"<[^>]+>", " ", dom)
m = re.search(r"run\s+transactional\s+IOPS [0-9.]+ → [0-9.]+ \(\+([0-9.]+) %\)", text)
if not m or not 10 <= float(m.group(1)) <= 20:
    sys.exit("transactional IOPS gain not listed as +10..20 %%: %s" % (m and m.group(0)))
EOF2
echo "ok"
