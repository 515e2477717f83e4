#!/bin/bash
# SPDX-License-Identifier: MIT
# The printed (A4) run report keeps the per-database verdict column (issue
# 30, Also): the per-database table is 21 columns (1,600 px on screen) and
# its verdict was cut off the paper. Headless Chromium prints the run page
# of examples/five-disks-slow.ini (disk3's three databases fail) to PDF;
# pdftotext must show every database's row ending in its verdict, PASS or
# FAIL as the JSON has it. Slow (Chromium); exit 77 without Chromium or
# pdftotext.
source "$(dirname "$0")/lib.sh"
set -e
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
[ -x "$CHROMIUM" ] || { echo "skipped: no $CHROMIUM (apt-get install chromium)"; exit 77; }
command -v pdftotext >/dev/null || { echo "skipped: no pdftotext (apt-get install poppler-utils)"; exit 77; }

expect_exit 1 "$DISKPROOF" run "$DP_SOURCE_DIR/examples/five-disks-slow.ini" --duration 60s \
	--warmup 5s --results r.db --quiet
expect_exit 0 "$DISKPROOF" report 1 --format html -o run.html --results r.db
expect_exit 0 "$DISKPROOF" report 1 --format json -o run.json --results r.db
timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run \
	--user-data-dir="$WORK/chrome" --no-pdf-header-footer --print-to-pdf="$WORK/run.pdf" \
	"file://$WORK/run.html" 2>chrome.log || fail "chromium could not print: $(tail -3 chrome.log)"
pdftotext -layout run.pdf run.txt
python3 - run.json run.txt <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
want = {}
for v in d["verdicts"]:
    if v["scope"] == "database":
        want[v["name"]] = want.get(v["name"], "PASS") if v["passed"] else "FAIL"
if len(want) != 15 or sorted(k for k, w in want.items() if w == "FAIL") != ["db7", "db8", "db9"]:
    sys.exit("the run is not the case: %s" % want)
got = {m.group(1): m.group(2)
       for m in re.finditer(r"^ *(db[0-9]+) +disk[0-9]\b.* (PASS|FAIL)$", text, re.M)}
if got != want:
    sys.exit("printed database verdicts %s, want %s" % (got, want))
PY
echo ok
