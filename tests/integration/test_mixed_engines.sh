#!/bin/bash
# SPDX-License-Identifier: MIT
# Simulated and real runs kept apart: a sim run and a short real io_uring run
# (O_DIRECT, on files in the scratch directory of the build tree, a real
# filesystem) in one results file. compare and fleet refuse to put them
# together (exit 2, saying which run is simulated, nothing written) unless
# --allow-mixed, and then say so on the first line (text) and in
# "mixed_engines" (JSON); list shows the engine; a simulated run's report
# says so on its first line and in the JSON (run.simulated). Two sim runs
# compare as before. Exit 77 only when the kernel has no io_uring.
source "$(dirname "$0")/lib.sh"
set -e
skip_without_uring

expect_verdict "$DISKPROOF" run sim-quick --duration 5s --warmup 0s --label mix --quiet --results "$WORK/r.db" \
	--metrics-file "$WORK/m1.prom"
expect_verdict "$DISKPROOF" run quick --engine io_uring --duration 2s --warmup 0s --db-size 8MiB \
	--data-dir "$WORK/d" --label mix --quiet --results "$WORK/r.db" --metrics-file "$WORK/m2.prom"
expect_verdict "$DISKPROOF" run sim-quick --duration 5s --warmup 0s --quiet --results "$WORK/r.db"
[ "$(sqlite3 r.db "select group_concat(id || ':' || engine, ' ') from run")" = "1:sim 2:io_uring 3:sim" ] ||
	fail "runs: $(sqlite3 r.db 'select id, engine from run')"
# the metrics: the run's info series names its engine
grep -q '^diskproof_run_info{.*,engine="sim"} 1$' m1.prom || fail "metrics: run 1 $(grep run_info m1.prom)"
grep -q '^diskproof_run_info{.*,engine="io_uring"} 1$' m2.prom || fail "metrics: run 2 $(grep run_info m2.prom)"
why="mixed engines: simulated run 1 (engine sim) with real run 2 (engine io_uring): a simulated run's figures come from a model, not from a device"

# compare: refused, nothing written
expect_exit 2 "$DISKPROOF" compare 1 2 --results "$WORK/r.db" -o cmp.txt
grep -qF "diskproof: compare: $why; refused (nothing written): --allow-mixed" err ||
	fail "compare: $(cat err)"
[ ! -s out ] && [ ! -e cmp.txt ] || fail "compare: something written"
# --allow-mixed: the first line says it, in text and JSON
expect_verdict "$DISKPROOF" compare 1 2 --allow-mixed --results "$WORK/r.db"
[ "$(head -1 out)" = "$why" ] || fail "compare --allow-mixed: first line $(head -1 out)"
expect_verdict "$DISKPROOF" compare 2 1 --allow-mixed --results "$WORK/r.db" --format json
[ "$(json 'd["mixed_engines"]')" = "${why}" ] || fail "compare JSON: $(json 'd.get("mixed_engines")')"
# two simulated runs: no such line
expect_exit 0 "$DISKPROOF" compare 1 3 --results "$WORK/r.db"
grep -q "mixed engines" out && fail "compare of two sim runs says mixed"
expect_exit 0 "$DISKPROOF" compare 1 3 --results "$WORK/r.db" --format json
[ "$(json 'd["mixed_engines"]')" = None ] || fail "compare JSON of two sim runs: mixed"

# fleet: the same
expect_exit 2 "$DISKPROOF" fleet label:mix --results "$WORK/r.db" -o fleet.txt
grep -qF "diskproof: fleet: $why; refused (nothing written)" err || fail "fleet: $(cat err)"
[ ! -s out ] && [ ! -e fleet.txt ] || fail "fleet: something written"
expect_verdict "$DISKPROOF" fleet label:mix --allow-mixed --results "$WORK/r.db"
[ "$(head -1 out)" = "$why" ] || fail "fleet --allow-mixed: first line $(head -1 out)"
expect_verdict "$DISKPROOF" fleet 1 2 --allow-mixed --results "$WORK/r.db" --format json
[ "$(json 'd["mixed_engines"]')" = "$why" ] || fail "fleet JSON: $(json 'd.get("mixed_engines")')"
expect_verdict "$DISKPROOF" fleet 1 3 --results "$WORK/r.db"
grep -q "mixed engines" out && fail "fleet of two sim runs says mixed"
# each run's own row marks a simulated run: text (column eng), JSON, HTML
expect_verdict "$DISKPROOF" fleet 1 2 --allow-mixed --results "$WORK/r.db"
grep -qE '^host +run eng verdict ' out || fail "fleet text: no eng column: $(grep '^host' out)"
grep -qE '^[^ ]+ +1 sim (PASS|FAIL) ' out || fail "fleet text: run 1 not marked: $(cat out)"
grep -qE '^[^ ]+ +2     (PASS|FAIL) ' out || fail "fleet text: run 2 marked or misaligned: $(cat out)"
grep -q "eng sim: a simulated run" out || fail "fleet text: no note on eng"
sed -n '/^host  *run /,/^$/p' out | awk 'length > 120 { bad = 1 } END { exit bad }' ||
	fail "fleet text: a line of the runs' table over 120 columns"
expect_verdict "$DISKPROOF" fleet 1 2 --allow-mixed --results "$WORK/r.db" --format json
[ "$(json '[(h["run_id"], h["engine"], h["simulated"]) for h in d["hosts"]]')" = \
	"[(1, 'sim', True), (2, 'io_uring', False)]" ] || fail "fleet JSON: engine per host"
expect_verdict "$DISKPROOF" fleet 1 2 --allow-mixed --results "$WORK/r.db" --format html
grep -q '<th>engine</th>' out && grep -q '<td class="engine sim">sim (simulated: no device measured)</td>' out &&
	grep -q '<td class="engine">io_uring</td>' out || fail "fleet HTML: engine cells"

# list: the engine column, and simulated in its JSON
expect_exit 0 "$DISKPROOF" list --results "$WORK/r.db"
head -1 out | grep -q " profile  *engine  *measured " || fail "list header: $(head -1 out)"
grep -q "^    1  .* sim  " out && grep -q "^    2  .* io_uring " out || fail "list: $(cat out)"
expect_exit 0 "$DISKPROOF" list --results "$WORK/r.db" --format json
[ "$(json '[(r["id"], r["engine"], r["simulated"]) for r in d["runs"]]')" = \
	"[(1, 'sim', True), (2, 'io_uring', False), (3, 'sim', True)]" ] || fail "list JSON: $(cat out)"

# a run's report: simulated on its first line (text), run.simulated (JSON)
expect_verdict "$DISKPROOF" report 1 --results "$WORK/r.db"
head -1 out | grep -q "(simulated: engine sim, no device measured)$" || fail "report 1: $(head -1 out)"
expect_verdict "$DISKPROOF" report 2 --results "$WORK/r.db"
grep -q "simulated" <(head -1 out) && fail "report 2 (real) says simulated"
expect_verdict "$DISKPROOF" report 1 --results "$WORK/r.db" --format json
[ "$(json 'd["run"]["simulated"]')" = True ] || fail "report 1 JSON: simulated"
expect_verdict "$DISKPROOF" report 2 --results "$WORK/r.db" --format json
[ "$(json 'd["run"]["simulated"]')" = False ] || fail "report 2 JSON: simulated"
expect_verdict "$DISKPROOF" report 1 --results "$WORK/r.db" --format html -o r1.html
grep -q "(simulated: no device measured)" r1.html || fail "report 1 HTML: not marked"
# the CSV: the engine on every row (a column named engine)
for id in 1 2; do
	expect_verdict "$DISKPROOF" report $id --results "$WORK/r.db" --format csv
	python3 - "$WORK/out" $id <<'PY' || fail "report $id CSV: the engine column"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
want = {"1": "sim", "2": "io_uring"}[sys.argv[2]]
assert len(rows) > 10 and {r["engine"] for r in rows} == {want}, {r.get("engine") for r in rows}
PY
done
echo ok
