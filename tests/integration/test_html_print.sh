#!/bin/bash
# SPDX-License-Identifier: MIT
# The printed (A4) run report keeps the per-database verdict column (issue
# 30, Also): the per-database table is 21 columns (1,600 px on screen) and
# its verdict was cut off the paper. Headless Chromium prints the run page
# of examples/five-disks-slow.ini (disk3's three databases fail) to PDF;
# pdftotext must show every database's row ending in its verdict, PASS or
# FAIL as the JSON has it. Then the compare page of a passing run against
# that one, printed: both runs' verdicts and each failing database's
# verdict change (PASS to FAIL, on one row) are on the paper. Slow (Chromium); exit 77 without Chromium or
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

# The compare page, printed alike: the same layout without disk3's slow
# model (all PASS) against the failing run. Both runs' verdicts, and each
# failing database's verdict change (criterion, A's PASS, B's FAIL on one
# row), must be on the paper.
python3 - "$DP_SOURCE_DIR/examples/five-disks-slow.ini" >ok.ini <<'PY'
import re, sys
print(re.sub(r"\[sim disk3\]\n(?:[a-z_]+ = [^\n]*\n)*", "", open(sys.argv[1]).read()), end="")
PY
expect_exit 0 "$DISKPROOF" run ./ok.ini --duration 60s --warmup 5s --results r.db --quiet
expect_exit 0 "$DISKPROOF" compare 2 1 --format html -o cmp.html --results r.db
timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run \
	--user-data-dir="$WORK/chrome" --no-pdf-header-footer --print-to-pdf="$WORK/cmp.pdf" \
	"file://$WORK/cmp.html" 2>chrome.log || fail "chromium could not print: $(tail -3 chrome.log)"
pdfinfo cmp.pdf 2>/dev/null | grep -q 'A4' || fail "the compare PDF is not A4"
pdftotext -layout cmp.pdf cmp.txt
python3 - cmp.txt <<'PY' || fail "the printed compare page (above)"
import re, sys
text = open(sys.argv[1]).read()
# a run's badge may sit a line below its row: A's row then PASS, B's then FAIL
flat = " ".join(text.split())
if not re.search(r"\bA 2 - \S+ [0-9T:-]+Z ok sim PASS B 1 - \S+ [0-9T:-]+Z five-disks-slow sim FAIL", flat):
    sys.exit("summary: the runs' verdicts not on the paper")
for db in ("db7", "db8", "db9"):
    if not re.search(r"^ *database +%s +db_read_avg_ms +[0-9.]+ +[0-9.]+ +PASS +[0-9.]+ +[0-9.]+ +FAIL$" % db,
                     text, re.M):
        sys.exit("verdict change of %s not on the paper whole" % db)
PY
echo ok
