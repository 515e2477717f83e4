#!/bin/bash
# SPDX-License-Identifier: MIT
# A 3 s io_uring run on real files in a temporary directory: the JSON report
# shows reads and writes in every class, for the run and for each volume and
# database, and the files are laid out as ARCHITECTURE.md says.
source "$(dirname "$0")/lib.sh"
set -e
skip_without_uring

set +e
"$DISKPROOF" run "$DP_SOURCE_DIR/tests/integration/profiles/tiny.ini" --data-dir "$WORK/data" \
	--duration 3s --warmup 1s --results "$WORK/r.db" --label "it run" >"$WORK/run.out" 2>"$WORK/run.err"
rc=$?
set -e
# the verdict depends on this disk; the run must have completed and been judged
[ $rc = 0 ] || [ $rc = 1 ] || { cat "$WORK/run.err"; fail "run exited $rc"; }
grep -q "^diskproof run 1: \(PASS\|FAIL\)" "$WORK/run.out" || fail "no verdict line"
grep -q "^a  *db_read" "$WORK/run.out" || fail "no per-volume table"

for f in data/a/db1.edb data/a/db1.log data/b/db2.edb data/b/db2.log; do
	[ -f "$f" ] || fail "missing $f"
done
[ "$(stat -c %s data/a/db1.edb)" = 8388608 ] || fail "db1.edb has the wrong size"

expect_exit 0 "$DISKPROOF" report latest --format json --results "$WORK/r.db"
[ "$(json 'd["run"]["status"] in ("passed", "failed")')" = True ] || fail "status"
[ "$(json 'd["run"]["label"]')" = "it run" ] || fail "label"
[ "$(json 'd["run"]["duration_s"]')" = 3.0 ] || fail "measured duration is not 3 s"
for cls in db_read db_write log_write; do
	[ "$(json "d['summary']['classes']['$cls']['ios'] > 0")" = True ] || fail "run: no $cls"
	for i in 0 1; do
		[ "$(json "d['volumes'][$i]['classes']['$cls']['ios'] > 0")" = True ] ||
			fail "volume $i: no $cls"
		[ "$(json "d['databases'][$i]['classes']['$cls']['iops'] > 0")" = True ] ||
			fail "database $i: no $cls"
	done
done
[ "$(json 'len(d["verdicts"]) > 0 and all("criterion" in v for v in d["verdicts"])')" = True ] ||
	fail "verdicts"
# the sample table has per-second rows for each volume and class
n=$(sqlite3 "$WORK/r.db" "select count(*) from sample where scope='volume' and warmup=0 and class='db_read'")
[ "$n" -ge 6 ] || fail "expected >= 6 volume db_read samples, got $n"
# host and device facts are recorded with the run
for k in kernel cpus memory_total device.a.name device.a.scheduler device.b.write_cache engine_notes; do
	[ -n "$(sqlite3 "$WORK/r.db" "select value from env where run_id=1 and key='$k'")" ] ||
		fail "no env fact $k"
done
sqlite3 "$WORK/r.db" "select value from env where key='device.a.scheduler'" | grep -qv '\[' ||
	fail "scheduler not reduced to the active one"
echo "ok"
