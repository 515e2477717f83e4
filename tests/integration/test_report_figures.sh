#!/bin/bash
# SPDX-License-Identifier: MIT
# test_report_figures.sh - the figures that show why (issue 18), on real sim
# runs of tests/integration/profiles/sim.ini (2 volumes x 2 databases of
# 256 MiB): p99.9 and p99.99 of every scope and class from the whole-run
# histograms (p99 <= p99.9 <= p99.99 <= max, null without I/O) in JSON, text,
# CSV and HTML; the average bytes per I/O (a page for database I/O; log
# writes at least one log block, more when commits batch behind a slow log
# and at least one record of log_record_size); each database's size at the
# start and at the end, with the volumes' and run's sums; the target IOPS
# always (a number and PASS, or "none"); the text report's per-database
# table (15 databases within 100 columns); a run that did not reach its end (its final sizes and verdicts
# removed, as a killed run leaves them) showing the final size and target
# as unknown, never 0; and, where io_uring works, a real run's final size
# being its file's.
set -e
. "$(dirname "$0")/lib.sh"

PROFILE="$DP_SOURCE_DIR/tests/integration/profiles/sim.ini"
MIB256=268435456

# run NAME [SED-EXPR...]: the profile edited by the sed expressions, run
# for 20 s after 5 s of warm-up into NAME.db (exit status kept in $rc)
run() {
	local name=$1
	shift
	sed "$@" "$PROFILE" >"$name.ini"
	set +e
	"$DISKPROOF" run "$name.ini" --duration 20s --warmup 5s --results "$name.db" --quiet \
		>/dev/null 2>"$name.err"
	rc=$?
	set -e
}
json() { # json DB PYTHON-EXPR: the expression over the JSON report d
	"$DISKPROOF" report 1 --results "$1" --format json >"$1.json"
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1.json"
}
check() { # check DB PYTHON-ASSERTIONS (a statement over d)
	"$DISKPROOF" report 1 --results "$1" --format json >"$1.json"
	python3 -c "import json,sys
d=json.load(open(sys.argv[1]))
$2" "$1.json" || fail "$1: $2"
}

# --- the plain profile: no target
run plain -e 's/^x//'
[ $rc = 0 ] || fail "plain run exit $rc: $(cat plain.err)"

# tails: every scope and class, ordered, and null where there was no I/O
check plain.db '
scopes = [d["summary"]] + d["volumes"] + d["databases"]
n = 0
for s in scopes:
    for name, c in s["classes"].items():
        if c["ios"] == 0:
            assert c["p999_ms"] is None and c["p9999_ms"] is None and c["avg_bytes"] is None, name
            continue
        assert c["p99_ms"] <= c["p999_ms"] <= c["p9999_ms"] <= c["max_ms"], (name, c)
        assert c["avg_bytes"] == round(c["bytes"] / c["ios"], 3), (name, c)
        n += 1
assert n == 7 * 5, n  # run, 2 volumes, 4 databases; 5 classes each'

# bytes per I/O: a 32 KiB page for database I/O, log writes one 4 KiB block
# each at 1 ms (a commit of 2 KiB records fills less than one block)
check plain.db '
c = d["summary"]["classes"]
assert c["db_read"]["avg_bytes"] == 32768 and c["db_write"]["avg_bytes"] == 32768, c
assert c["log_write"]["avg_bytes"] == 4096, c["log_write"]'

# database sizes: each 256 MiB at the start and at the end (sim: the size
# it simulated), the volumes' and the run's the sums
check plain.db "
for x in d['databases']:
    assert x['size_bytes'] == $MIB256 and x['final_size_bytes'] == $MIB256, x['name']
for v in d['volumes']:
    assert v['size_bytes'] == 2 * $MIB256 and v['final_size_bytes'] == 2 * $MIB256, v['name']
assert d['summary']['size_bytes'] == 4 * $MIB256 == d['summary']['final_size_bytes']"
[ "$(sqlite3 plain.db 'select count(*) from database_final where run_id = 1')" = 4 ] ||
	fail "no database_final rows"

# target: none
[ "$(json plain.db 'd["run"]["target_iops"], d["run"]["target_iops_result"]')" = "None none" ] ||
	fail "plain: target not none"

# text: the new columns (every one with --wide: within 120 columns B/IO
# and p99.99 are left out), the target line, the per-database table (4 rows
# and a total, sizes start -> end), all within 100 columns
expect_exit 0 "$DISKPROOF" report 1 --results plain.db --wide
cp "$WORK/out" plain.txt
grep -q ' B/IO .* p99 ms  p99.9 ms p99.99 ms ' plain.txt || fail "text: no B/IO, p99.9, p99.99 columns"
grep -Eq '^        log_write +[0-9]+ +[0-9.]+ +[0-9.]+ +4096 ' plain.txt || fail "text: log write B/IO"
grep -qx 'target transactional IOPS: none (no IOPS criterion: the profile sets no target)' plain.txt ||
	fail "text: no target line"
[ "$(grep -cE '^db[1-4] +v[12] +2\.00 +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +256 -> 256  PASS$' plain.txt)" = 4 ] ||
	fail "text: per-database rows: $(grep -A7 '^database ' plain.txt)"
grep -Eq '^total +8\.00 +6[0-9]{3}\.[0-9] .* 1024 -> 1024  PASS$' plain.txt || fail "text: per-database total"
awk '/^database /,/^total /' plain.txt | awk 'length > 100 { exit 1 }' ||
	fail "text: per-database table wider than 100 columns"

# CSV: whole-run rows with bytes per I/O and tails, sizes on the scope rows
expect_exit 0 "$DISKPROOF" report 1 --results plain.db --format csv
grep -Eq '^1,,,run,run,log_write,[0-9]+,[0-9.]+,[0-9.]+,[0-9.]+,[0-9.]+,[0-9.]+,[0-9.]+,0,,4096\.0,[0-9.]+,[0-9.]+,,,[^,]+,,,,,,sim,,,,$' "$WORK/out" ||
	fail "csv: no whole-run log_write row"
grep -q "^1,,,database,db1,transactional,.*,$MIB256,$MIB256,[^,]*,,[0-9]*,,,,sim,,,,\$" "$WORK/out" || fail "csv: database sizes"

# HTML tables
expect_exit 0 "$DISKPROOF" report 1 --results plain.db --format html
grep -q '<th class="num">p99.9 ms</th><th class="num">p99.99 ms</th>' "$WORK/out" || fail "html: tails"
grep -q '<th colspan="2">size MiB</th>' "$WORK/out" || fail "html: database sizes"
grep -q '<th colspan="3">log_write</th>' "$WORK/out" || fail "html: log write bytes per I/O per database"
grep -q '<div class="k">target transactional IOPS</div><div class="v">none</div>' "$WORK/out" ||
	fail "html: target none"

# --- a target the run reaches, shown with its verdict
run target -e 's/^database_size = 256MiB$/&\ntarget_iops = 1000/'
[ $rc = 0 ] || fail "target run exit $rc: $(cat target.err)"
[ "$(json target.db 'd["run"]["target_iops"], d["run"]["target_iops_result"]')" = "1000 pass" ] ||
	fail "target: not 1000 pass"
expect_exit 0 "$DISKPROOF" report 1 --results target.db
grep -qx 'target transactional IOPS: 1000: PASS' "$WORK/out" || fail "text: target 1000 PASS"

# --- commit batching: a 20 ms log gathers commits into larger writes; 8 KiB
# records make every write at least one record
run slowlog -e 's/^log_write_latency = 1ms$/log_write_latency = 20ms/'
check slowlog.db '
c = d["summary"]["classes"]["log_write"]
assert c["avg_bytes"] > 2 * 4096, c'
run rec8 -e 's/^\[engine\]$/[workload]\nlog_record_size = 8KiB\n\n&/'
[ $rc = 0 ] || fail "rec8 run exit $rc: $(cat rec8.err)"
check rec8.db '
c = d["summary"]["classes"]["log_write"]
assert c["avg_bytes"] >= 8192 and c["bytes"] % 4096 == 0, c'

# --- a run that did not reach its end: no final sizes and no verdicts
cp plain.db cut.db
sqlite3 cut.db "DELETE FROM database_final; DELETE FROM verdict; DELETE FROM param; UPDATE run SET profile_text = NULL;
	UPDATE run SET status = 'aborted', verdict = 'NONE' WHERE id = 1"
check cut.db "
for x in d['databases']:
    assert x['size_bytes'] == $MIB256 and x['final_size_bytes'] is None, x
assert d['summary']['final_size_bytes'] is None and d['summary']['size_bytes'] == 4 * $MIB256
assert d['run']['target_iops'] is None and d['run']['target_iops_result'] == 'unknown'"
expect_exit 0 "$DISKPROOF" report 1 --results cut.db
[ "$(grep -cE '^db[1-4] .* 256 -> -  -$' "$WORK/out")" = 4 ] || fail "text: unknown final size: $(cat "$WORK/out")"
grep -q '^(size -: not known' "$WORK/out" || fail "text: no note on the unknown size"
grep -qx 'target transactional IOPS: unknown (the run was not judged)' "$WORK/out" || fail "text: target unknown"
expect_exit 0 "$DISKPROOF" report 1 --results cut.db --format csv
grep -q "^1,,,database,db1,transactional,.*,$MIB256,,[^,]*,,[0-9]*,,,,sim,,,,\$" "$WORK/out" || fail "csv: unknown final size not empty"
# with its parameters (schema 6) a run that was not judged still says its
# target, and that it was not judged against it
cp plain.db cutp.db
sqlite3 cutp.db "DELETE FROM verdict; UPDATE run SET status = 'aborted', verdict = 'NONE' WHERE id = 1;
	UPDATE param SET value = '1000', source = 'profile' WHERE section = 'sizing' AND key = 'target_iops'"
check cutp.db "
assert d['run']['target_iops'] == 1000 and d['run']['target_iops_result'] == 'unknown', d['run']"
expect_exit 0 "$DISKPROOF" report 1 --results cutp.db
grep -qx 'target transactional IOPS: 1000 (the run was not judged)' "$WORK/out" ||
	fail "text: target of a run not judged: $(grep target "$WORK/out")"

# --- 15 databases (examples/five-disks.ini on the sim engine): one line
# each and the total, sizes in GiB, all within 100 columns
set +e
"$DISKPROOF" run "$DP_SOURCE_DIR/examples/five-disks.ini" --engine sim --duration 30s --warmup 5s \
	--results five.db --quiet >/dev/null 2>five.err
rc=$?
set -e
[ $rc = 0 ] || [ $rc = 1 ] || fail "five-disks run exit $rc: $(cat five.err)"
expect_exit 0 "$DISKPROOF" report 1 --results five.db
awk '/^database /,/^total /' "$WORK/out" >five.table
[ "$(grep -c '^db' five.table)" = 15 ] || fail "five disks: not 15 database lines: $(cat five.table)"
grep -q ' size GiB$' "$WORK/out" || fail "five disks: sizes not in GiB"
awk 'length > 100 { exit 1 }' five.table || fail "five disks: table wider than 100 columns"

# --- a real run (io_uring, where the kernel has it): the final size is the
# file's, as fstat gives it
set +e
"$DISKPROOF" run "$DP_SOURCE_DIR/tests/integration/profiles/tiny.ini" --data-dir "$WORK/data" \
	--duration 2s --results real.db --quiet >/dev/null 2>real.err
rc=$?
set -e
if [ $rc = 3 ] && grep -q "io_uring" real.err; then
	echo "no io_uring: the real-file final size is not checked"
elif [ $rc = 0 ]; then
	for f in "$WORK"/data/*/*.edb; do
		n=$(basename "$f" .edb)
		[ "$(sqlite3 real.db "select size from database_final where name = '$n'")" = "$(stat -c %s "$f")" ] ||
			fail "real run: final size of $n is not the file's"
	done
	check real.db 'assert all(x["final_size_bytes"] == x["size_bytes"] > 0 for x in d["databases"])'
else
	fail "real run exit $rc: $(cat real.err)"
fi
echo "ok"
