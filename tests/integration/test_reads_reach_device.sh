#!/bin/bash
# SPDX-License-Identifier: MIT
# Results a device could not give are flagged (issue 30, item 7): a buffered
# run (direct = off) of databases that were just written and fit in the page
# cache reads them from the cache, and /proc/diskstats of the loop device the
# volumes are on counts (almost) no read. Such a run is not shown as PASS:
# "INCONCLUSIVE" in the first line of run's output and of the text report,
# the reason in the verdict block, inconclusive in the JSON, the HTML's
# badge, exit 5 (1 when a criterion fails, by precedence). The same run with
# direct = on reads the device: not flagged, exit 0 or 1 by its verdict, and
# the JSON says the reads reached it. Root: an ext4 image of its own on a
# loop device (exit 77 without).
source "$(dirname "$0")/lib.sh"
set -e
skip_without_uring
MNT="$WORK/mnt"
loop_mount "$MNT" 96M -b 4096 -E lazy_itable_init=0,lazy_journal_init=0
D="$MNT/d"
# tiny's two volumes on the one loop device, 5 s measured
sed -e 's/^duration = .*/duration = 5s/' \
	"$DP_SOURCE_DIR/tests/integration/profiles/tiny.ini" >direct.ini
sed -e 's/^name = io_uring/name = io_uring\ndirect = off/' direct.ini >buffered.ini
grep -q "^direct = off" buffered.ini || fail "buffered.ini"

# buffered: every page was just written through the page cache by init,
# 16 MiB in all, so every read is a cache hit
expect_exit 0 "$DISKPROOF" init ./buffered.ini --data-dir "$D" --quiet
set +e
"$DISKPROOF" run ./buffered.ini --data-dir "$D" --results "$WORK/r.db" --quiet >out 2>err
got=$?
set -e
cat out err
[ "$got" = 5 ] || [ "$got" = 1 ] || fail "buffered run: exit $got, expected 5 (or 1 on a failed criterion)"
head -1 out | grep -q "PASS" && fail "the first line says PASS: $(head -1 out)"
grep -qE "^  INCONCLUSIVE reads did not reach the device: loop[0-9]+ \(volumes a, b\) read" out ||
	fail "no INCONCLUSIVE line naming the loop device in the verdict block"
head -5 out | grep -q "INCONCLUSIVE reads did not reach the device" ||
	fail "the flag is not in the first 5 lines"
if [ "$got" = 5 ]; then
	head -1 out | grep -q ": INCONCLUSIVE (the figures pass" || fail "first line: $(head -1 out)"
fi
# the report, in every format
"$DISKPROOF" report latest --results "$WORK/r.db" >rep.txt
cmp <(head -3 rep.txt) <(head -3 out) || fail "the report's first lines differ from run's"
"$DISKPROOF" report latest --results "$WORK/r.db" --format json >rep.json
python3 - rep.json "$got" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))["run"]
assert run["inconclusive"] is True, run
assert run["reads_reach"] == "not_reached", run
assert "page cache" in run["reads_reach_why"], run
assert run["exit_code"] == int(sys.argv[2]), run
PY
"$DISKPROOF" report latest --results "$WORK/r.db" --format html -o rep.html
grep -q 'INCONCLUSIVE' rep.html || fail "the HTML does not say INCONCLUSIVE"
grep -q 'reads did not reach the device' rep.html || fail "the HTML does not say why"
# list: the stored verdict is the criteria's, the run marked inconclusive
"$DISKPROOF" list --results "$WORK/r.db" >list.txt
if [ "$got" = 5 ]; then
	tail -1 list.txt | grep -q '\[inconclusive: exit 5\]$' || fail "list: $(cat list.txt)"
fi

# direct = on: the same files, read from the device
set +e
"$DISKPROOF" run ./direct.ini --data-dir "$D" --results "$WORK/r.db" --quiet >out 2>err
got=$?
set -e
cat out err
[ "$got" = 0 ] || [ "$got" = 1 ] || fail "direct run: exit $got, expected 0 or 1"
grep -q "INCONCLUSIVE\|did not reach" out && fail "a direct run flagged"
"$DISKPROOF" report latest --results "$WORK/r.db" --format json >rep.json
python3 - rep.json <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))["run"]
assert run["inconclusive"] is False, run
assert run["reads_reach"] == "reached", run
PY
echo ok
