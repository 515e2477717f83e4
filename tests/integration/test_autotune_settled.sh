#!/bin/bash
# SPDX-License-Identifier: MIT
# Criterion autotune_settled (sim, deterministic): a run whose auto-tune
# chose a level that never settled (its latency slope stayed above
# autotune_slope_max) fails (exit 1), the verdict in the first 5 lines of
# run's standard output and of report's text, first in the JSON's verdicts,
# with the slope, the limit and the level; the fallback note says the level
# never settled, not that it missed the margin. [thresholds] autotune_settled
# = off opts out: the same run passes, with no such row. A settled auto-tune
# keeps its row, passed, and still passes.
source "$(dirname "$0")/lib.sh"
set -e

cp "$DP_SOURCE_DIR/tests/integration/profiles/sim-sat.ini" sat.ini
last_run() { sqlite3 r.db "select max(id) from run"; }

# the read latency climbs for ever (a drift with no end): 2 streams never settle
sed 's/^streams = auto/streams = auto\nautotune_slope_window = 10\nautotune_transient_max = 30s/;
     s/^jitter = .*/jitter = 0%\nlatency_drift = 0.3ms\nlatency_drift_time = 0s/' sat.ini >never.ini
# the verdict line whole: the report wraps at 120 columns off a terminal
# (test_first_screen checks the width); here the words are checked
export COLUMNS=1000
expect_exit 1 "$DISKPROOF" run ./never.ini --results "$WORK/r.db"
id=$(last_run)
line="FAIL run: auto-tune's level never settled: latency slope 0.[0-9]* ms per sample > 0.1 ms per sample (+[0-9.]* %); the main test ran at 2 streams"
head -5 out | grep -q "^  $line\$" || { cat out; fail "unsettled: not in the first 5 lines of run's output"; }
"$DISKPROOF" report "$id" --results "$WORK/r.db" >never.txt
head -5 never.txt | grep -q "^  $line\$" || { cat never.txt; fail "unsettled: not in the first 5 lines of the report"; }
grep -q "^  no level passed auto-tune: 2 streams never settled (database read latency slope +0.[0-9]* ms per sample, limit 0.100); the main test ran at 2 streams$" never.txt ||
	fail "unsettled: the note: $(grep 'no level passed' never.txt)"
grep -q "margin" <(grep "no level passed" never.txt) && fail "unsettled: the note speaks of the margin"
[ "$(sqlite3 r.db "select status || ' ' || verdict from run where id = $id")" = "failed FAIL" ] ||
	fail "unsettled: run row $(sqlite3 r.db "select status, verdict from run where id = $id")"
"$DISKPROOF" report "$id" --results "$WORK/r.db" --format json >never.json
python3 - never.json <<'PY' || fail "unsettled: JSON"
import json, sys
d = json.load(open(sys.argv[1]))
v = d["verdicts"][0]
assert v["criterion"] == "autotune_settled" and v["scope"] == "run", v
assert not v["passed"] and v["cmp"] == "<=" and v["threshold"] == 0.1 and v["measured"] > 0.1, v
assert d["run"]["verdict"] == "FAIL", d["run"]
# the rest of the run passed: this criterion alone fails it
assert all(x["passed"] for x in d["verdicts"][1:]), [x for x in d["verdicts"] if not x["passed"]]
assert "never settled" in d["autotune"]["note"], d["autotune"]["note"]
PY
# the HTML's failing verdicts say it too
"$DISKPROOF" report "$id" --results "$WORK/r.db" --format html -o never.html
grep -q "<li class=\"FAIL\">run: auto-tune&#39;s level never settled\|<li class=\"FAIL\">run: auto-tune&#x27;s level never settled\|<li class=\"FAIL\">run: auto-tune's level never settled" never.html ||
	fail "unsettled: not in the HTML's failing verdicts"

# the opt-out: the same run passes, no row
sed 's/^\[engine\]/[thresholds]\nautotune_settled = off\n[engine]/' never.ini >off.ini
expect_exit 0 "$DISKPROOF" run ./off.ini --results "$WORK/r.db"
id=$(last_run)
[ "$(sqlite3 r.db "select count(*) from verdict where run_id = $id and criterion = 'autotune_settled'")" = 0 ] ||
	fail "opt-out: an autotune_settled row"
head -1 out | grep -q "^diskproof run $id: PASS" || fail "opt-out: $(head -1 out)"

# a settled auto-tune: the row is there, passed, first; the run passes
expect_exit 0 "$DISKPROOF" run ./sat.ini --results "$WORK/r.db"
id=$(last_run)
[ "$(sqlite3 r.db "select passed || ' ' || (measured <= threshold) || ' ' || threshold from verdict
	where run_id = $id and criterion = 'autotune_settled'")" = "1 1 0.1" ] ||
	fail "settled: $(sqlite3 r.db "select * from verdict where run_id = $id and criterion = 'autotune_settled'")"
[ "$(sqlite3 r.db "select verdict from run where id = $id")" = PASS ] || fail "settled: not PASS"

# a run that does not tune has no such row
sed 's/^streams = auto/streams = 4/' sat.ini >fixed.ini
expect_exit 0 "$DISKPROOF" run ./fixed.ini --results "$WORK/r.db" --quiet
[ "$(sqlite3 r.db "select count(*) from verdict where run_id = $(last_run) and criterion = 'autotune_settled'")" = 0 ] ||
	fail "fixed streams: an autotune_settled row"
echo ok
