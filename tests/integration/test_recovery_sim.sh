#!/bin/bash
# SPDX-License-Identifier: MIT
# test_recovery_sim.sh - the recovery test on the sim engine. The sim keeps
# no log content, so the log writer counts the records of each segment and
# the replay applies that many pages (recovery.c). Checked here:
# - a run with recovery_segments = 6 replays 6 segments per database; the
#   JSON report's "recovery" lists each database's figures and the total;
#   the seconds per segment agree with the device model (a segment read,
#   then each page read and written back, 2 streams per database);
# - the same seed gives the same figures, byte for byte;
# - by default 500 segments are replayed (as Jetstress replays 500 log
#   files) into a log of 501, and `plan` shows that log's size and the space
#   it needs on a real volume; a duration that ends first leaves the replay
#   "(not finished)" and fails the run (pass_done_pct), as a backup test cut
#   short does; each passes with its row at 100 % when it ends its pass.
source "$(dirname "$0")/lib.sh"
set -e
command -v sqlite3 >/dev/null || { echo "skipped: no sqlite3"; exit 77; }
# jsonf FILE EXPR: json over another file than $WORK/out
jsonf() {
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

cat >rec.ini <<'INI'
[test]
type = recovery
duration = 1h
recovery_segments = 6
[sizing]
database_size = 64MiB
[engine]
name = sim
streams = 4
[sim]
read_latency = 2ms
write_latency = 3ms
log_write_latency = 1ms
jitter = 20%
seed = 5
[volume v1]
path = /nonexistent/v1
databases = 2
INI

expect_exit 0 "$DISKPROOF" run ./rec.ini --results r.db
grep -q "recovery: 12 log segments replayed" out err || fail "no recovery total: $(cat out err)"
expect_exit 0 "$DISKPROOF" report 1 --results r.db --format json
cp "$WORK/out" run1.json
[ "$(json 'd["run"]["test_type"]')" = recovery ] || fail "test type: $(json 'd["run"]')"
[ "$(json 'len(d["recovery"])')" = 3 ] || fail "recovery figures: $(json 'd.get("recovery")')"
for db in db1 db2; do
	[ "$(json "sum(1 for m in d['recovery'] if m.startswith('$db: 6 of 6 log segments replayed ('))")" = 1 ] ||
		fail "$db's replay: $(json 'd["recovery"]')"
done
json 'd["recovery"][2]' | grep -Eq '^recovery: 12 log segments replayed \([0-9]+ pages\): [0-9.]+ s per segment on average, slowest db[12] at [0-9.]+ s$' ||
	fail "total: $(json 'd["recovery"][2]')"
# the model: per segment one 1 MiB read (2 ms), then its pages each read
# (2 ms) and written (3 ms) by the database's 2 streams side by side
python3 - "$WORK/out" <<'PY' || fail "replay time does not follow the device model"
import json, re, sys
d = json.load(open(sys.argv[1]))
for m in d["recovery"][:2]:
    g = re.match(r"db\d: (\d+) of \d+ log segments replayed \((\d+) pages read and written\) in ([0-9.]+) s: ([0-9.]+) s per segment", m)
    segs, pages, secs, per = int(g[1]), int(g[2]), float(g[3]), float(g[4])
    model = segs * 0.002 + pages * 0.005 / 2
    print(f"{m}: model {model:.3f} s")
    assert pages >= 100 * segs, "too few pages replayed per segment"
    assert 0.9 * model < secs < 1.2 * model, (secs, model)
    assert abs(per - secs / segs) < 0.002
PY
[ "$(json 'd["summary"]["classes"]["log_read"]["ios"] >= 12')" = True ] || fail "no replay log reads"
[ "$(json 'd["summary"]["classes"]["db_write"]["ios"] > 0')" = True ] || fail "no page writes"
[ "$(json 'd["summary"]["integrity_errors"]')" = 0 ] || fail "integrity errors on the sim"
[ "$(json 'd["host"]')" = None ] || fail "a sim run with host figures: $(json 'd["host"]')"

# the same seed, the same figures
expect_exit 0 "$DISKPROOF" run ./rec.ini --results r.db --quiet
expect_exit 0 "$DISKPROOF" report 2 --results r.db --format json
[ "$(jsonf run1.json 'd["recovery"]')" = "$(json 'd["recovery"]')" ] ||
	fail "not deterministic: $(jsonf run1.json 'd["recovery"]') vs $(json 'd["recovery"]')"

# the default: 500 segments, a log of 501
sed '/^recovery_segments/d' rec.ini >default.ini
expect_exit 0 "$DISKPROOF" plan ./default.ini
grep -q "^  db1   /nonexistent/v1/db1.edb  64 MiB  log /nonexistent/v1/db1.log  501 MiB$" out ||
	fail "plan: $(cat out)"
expect_exit 0 "$DISKPROOF" run ./default.ini --results d.db --quiet
[ "$(sqlite3 d.db "select count(*) from event where kind = 'recovery' and message like 'db_: 500 of 500 log segments replayed (% pages read and written) in % s: % s per segment'")" = 2 ] ||
	fail "default replay: $(sqlite3 d.db "select message from event where kind = 'recovery'")"
[ "$(sqlite3 d.db "select count(*) from verdict where run_id = 1 and criterion = 'pass_done_pct' and scope = 'database' and measured = 100 and passed")" = 2 ] ||
	fail "default replay: pass_done_pct rows: $(sqlite3 d.db "select * from verdict where run_id = 1")"
# a duration that ends before the replay: the figures say so, and the run
# fails on it (it did not measure the replay it is for), never passes
expect_exit 1 "$DISKPROOF" run ./default.ini --duration 20s --results d.db --quiet
[ "$(sqlite3 d.db "select count(*) from event where run_id = 2 and kind = 'recovery' and message like 'db_: (not finished) % of 500 log segments replayed %'")" = 2 ] ||
	fail "cut short: $(sqlite3 d.db "select message from event where run_id = 2 and kind = 'recovery'")"
[ "$(sqlite3 d.db "select count(*) from verdict where run_id = 2 and criterion = 'pass_done_pct' and scope = 'database' and measured < 100 and not passed")" = 2 ] ||
	fail "cut short: pass_done_pct rows: $(sqlite3 d.db "select * from verdict where run_id = 2")"
grep -q "FAIL db1 on v1: share of the backup or replay done before the run ended" out ||
	fail "cut short: the text does not say why: $(cat out)"
# the text and HTML reports show the figures too
expect_exit 0 "$DISKPROOF" report 1 --results d.db
grep -q "^recovery figures:$" out && grep -q "^  db1: 500 of 500 log segments replayed" out ||
	fail "text report: no recovery figures: $(cat out)"
expect_exit 0 "$DISKPROOF" report 1 --results d.db --format html -o "$WORK/rec.html"
grep -q '<section id="pass">' rec.html && grep -q "<li>db2: 500 of 500 log segments" rec.html ||
	fail "HTML report: no recovery figures"
# a backup test cut short fails the same way; read to the end, it passes
B="$DP_SOURCE_DIR/tests/golden/runs/profiles/sim-backup.ini"
expect_exit 1 "$DISKPROOF" run "$B" --duration 1s --results b.db --quiet
[ "$(sqlite3 b.db "select count(*) from verdict where run_id = 1 and criterion = 'pass_done_pct' and measured < 100 and not passed")" = 4 ] ||
	fail "backup cut short: $(sqlite3 b.db "select * from verdict where run_id = 1 and criterion = 'pass_done_pct'")"
expect_exit 0 "$DISKPROOF" run "$B" --results b.db --quiet
[ "$(sqlite3 b.db "select count(*) from verdict where run_id = 2 and criterion = 'pass_done_pct' and measured = 100 and passed")" = 4 ] ||
	fail "backup read to the end: $(sqlite3 b.db "select * from verdict where run_id = 2 and criterion = 'pass_done_pct'")"
# on a real volume the plan counts the 501 MiB logs in the space needed
sed -e '/^name = sim/d' -e 's|^path = /nonexistent/v1|path = ./data/v1|' default.ini >real.ini
set +e
"$DISKPROOF" plan ./real.ini --format json >plan.json 2>err
rc=$?
set -e
[ $rc = 0 ] || [ $rc = 3 ] || fail "plan exited $rc: $(cat err)"
[ "$(jsonf plan.json 'd["volumes"][0]["space"]["logs"]["bytes"]')" = $((2 * 501 << 20)) ] ||
	fail "log space: $(jsonf plan.json 'd["volumes"][0]["space"]')"
[ ! -e data ] || fail "plan wrote files"
echo "ok"
