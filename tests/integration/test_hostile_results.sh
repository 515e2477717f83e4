#!/bin/bash
# SPDX-License-Identifier: MIT
# test_hostile_results.sh - a results file whose numbers no run could have
# written (made with sqlite3 from a sound sim run: warm-up +Inf (1e400) and
# -Inf, huge finite values (1e300), negative durations and streams, t_ms in
# the far future, a histogram with absurd counts, text in a count, a host
# counter of +Inf) never takes the machine down and never reports a figure
# from it. For each hostile value in run 1 (run 2 beside it is sound):
#  - report (text, json, csv, html), compare and fleet refuse run 1 with exit
#    3 and a message naming the run and the field;
#  - list still lists it (marked unusable where the run row or its summaries
#    hold the value) and exits 0;
#  - import refuses run 1 (exit 3, the run and field named) and imports run 2;
#  - delete 1 deletes it, after which report works again.
# Every command runs under `timeout 20` with its address space bounded
# (ulimit -v, left out under ASan, which reserves terabytes): a command that
# loops or grows without bound fails the test, it does not hang it.
# A NULL (what SQLite stores for 0.0/0, NaN) is "not stored" and reported.
source "$(dirname "$0")/lib.sh"
set -e
P="$DP_SOURCE_DIR/tests/integration/profiles/sim.ini"
VMEM=$((2 * 1024 * 1024)) # KiB
ldd "$DISKPROOF" 2>/dev/null | grep -q libasan && VMEM=unlimited

# bounded CODE CMD...: CMD under timeout 20 and ulimit -v; fails when it
# timed out (124) or exited other than CODE. Output in $WORK/out, $WORK/err.
bounded() {
	local want=$1 got
	shift
	set +e
	(ulimit -v "$VMEM" && exec timeout -k 5 20 "$@") >"$WORK/out" 2>"$WORK/err"
	got=$?
	set -e
	if [ "$got" = 124 ] || [ "$got" = 137 ]; then
		fail "timed out (20 s) or killed: $*"
	fi
	if [ "$got" != "$want" ]; then
		echo "--- stderr" >&2
		head -c 2000 "$WORK/err" >&2
		fail "expected exit $want, got $got from: $*"
	fi
}

expect_exit 0 "$DISKPROOF" run "$P" --duration 5s --warmup 2s --quiet --results "$WORK/good.db"
expect_exit 0 "$DISKPROOF" run "$P" --duration 5s --warmup 2s --quiet --results "$WORK/good.db"
sqlite3 good.db "pragma wal_checkpoint(truncate)" >/dev/null

one_sample="(SELECT max(rowid) FROM sample WHERE run_id = 1)"
one_hist="(SELECT min(rowid) FROM histogram WHERE run_id = 1)"
# name | SQL on run 1 | the field the message names | list marks it (1) or not (0)
cases=(
	"warmup_inf|UPDATE run SET warmup_s = 1e400 WHERE id = 1|warmup_s|1"
	"warmup_neginf|UPDATE run SET warmup_s = -1e400 WHERE id = 1|warmup_s|1"
	"duration_huge|UPDATE run SET duration_s = 1e300 WHERE id = 1|duration_s|1"
	"duration_neg|UPDATE run SET duration_s = -60 WHERE id = 1|duration_s|1"
	"streams_neg|UPDATE run SET streams = -8 WHERE id = 1|streams|1"
	"iops_huge|UPDATE summary SET iops = 1e300 WHERE run_id = 1 AND class = 'db_read'|iops|1"
	"share_neg|UPDATE stream_share SET streams = -2 WHERE run_id = 1|streams|0"
	"t_future|UPDATE sample SET t_ms = 9000000000000000 WHERE rowid = $one_sample|t_ms|0"
	"t_max|UPDATE sample SET t_ms = 9223372036854775807 WHERE rowid = $one_sample|t_ms|0"
	"t_inf|UPDATE sample SET t_ms = 1e400 WHERE rowid = $one_sample|t_ms|0"
	"ios_text|UPDATE sample SET ios = 'lots' WHERE rowid = $one_sample|ios|0"
	"hist_absurd|UPDATE histogram SET count = 9223372036854775807, buckets = '100:9223372036854775807 101:9223372036854775807' WHERE rowid = $one_hist|count|0"
	"hist_mismatch|UPDATE histogram SET count = count + 5 WHERE rowid = $one_hist|count|0"
	"window_inf|UPDATE interval_histogram SET t_ms = 1e400 WHERE run_id = 1|t_ms|0"
	"verdict_huge|UPDATE verdict SET measured = 1e300 WHERE run_id = 1|measured|0"
	"event_neg|UPDATE event SET t_ms = -5 WHERE run_id = 1|t_ms|0"
	"host_inf|INSERT INTO host_sample (run_id, t_ms, warmup, device, span_ms, cpu_user_pct) VALUES (1, 3000, 0, NULL, 1000, 1e400)|cpu_user_pct|0"
)

# the whole matrix on a few cases, the main commands on every one
full=" warmup_inf duration_neg t_future hist_absurd host_inf "
for c in "${cases[@]}"; do
	IFS='|' read -r name sql field marked <<<"$c"
	h="$WORK/$name.db"
	cp good.db "$h"
	sqlite3 "$h" "$sql" || fail "$name: could not make the file"
	all=0
	[[ $full == *" $name "* ]] && all=1
	fmts="html text"
	[ $all = 1 ] && fmts="html text json csv"
	for fmt in $fmts; do
		bounded 3 "$DISKPROOF" report 1 --format "$fmt" --results "$h"
		grep -q "run 1" "$WORK/err" && grep -q "$field" "$WORK/err" ||
			fail "$name: report --format $fmt: the message does not name run 1 and $field: $(cat "$WORK/err")"
	done
	bounded 3 "$DISKPROOF" compare 2 1 --results "$h"
	grep -q "run 1.*$field" "$WORK/err" || fail "$name: compare: $(cat "$WORK/err")"
	bounded 3 "$DISKPROOF" fleet 1 2 --results "$h"
	grep -q "run 1.*$field" "$WORK/err" || fail "$name: fleet: $(cat "$WORK/err")"
	if [ $all = 1 ]; then
		bounded 0 "$DISKPROOF" report 2 --format html --results "$h" -o "$WORK/$name.html"
		bounded 3 "$DISKPROOF" compare 2 1 --format html --results "$h"
		bounded 3 "$DISKPROOF" fleet 1 2 --format html --results "$h"
	fi

	bounded 0 "$DISKPROOF" list --results "$h"
	grep -Eq '^ +1 ' "$WORK/out" || fail "$name: list does not list run 1"
	grep -Eq '^ +2 ' "$WORK/out" || fail "$name: list does not list run 2"
	if [ "$marked" = 1 ]; then
		grep -E '^ +1 ' "$WORK/out" | grep -q "unusable.*$field" ||
			fail "$name: list does not mark run 1: $(cat "$WORK/out")"
	fi
	if grep -E '^ +2 ' "$WORK/out" | grep -q unusable; then
		fail "$name: list marks the sound run 2"
	fi
	if [ $all = 1 ]; then
		bounded 0 "$DISKPROOF" list --format json --results "$h"
		python3 - "$WORK/out" "$marked" "$field" <<'PY' || fail "$name: list --format json"
import json, sys
runs = {r["id"]: r for r in json.load(open(sys.argv[1]))["runs"]}
assert set(runs) == {1, 2}, runs.keys()
assert runs[2]["unusable"] is None, runs[2]
if sys.argv[2] == "1":
    assert sys.argv[3] in runs[1]["unusable"], runs[1]
    assert runs[1]["duration_s"] is None, runs[1]
PY
	fi

	rm -f "$WORK/into.db"
	bounded 3 "$DISKPROOF" import "$h" --results "$WORK/into.db"
	grep -q "run 1.*$field" "$WORK/err" || fail "$name: import: $(cat "$WORK/err")"
	grep -q "imported 1 run(s).*1 refused" "$WORK/err" ||
		fail "$name: import does not say it imported the rest: $(cat "$WORK/err")"
	[ "$(sqlite3 "$WORK/into.db" "SELECT count(*) FROM run")" = 1 ] ||
		fail "$name: import did not import exactly the sound run"
	[ $all = 1 ] || continue
	bounded 0 "$DISKPROOF" report latest --format html --results "$WORK/into.db" -o "$WORK/into.html"
	# again: still refused, nothing doubled
	bounded 3 "$DISKPROOF" import "$h" --results "$WORK/into.db"
	grep -q "imported 0 run(s).*1 already here.*1 refused" "$WORK/err" ||
		fail "$name: import again: $(cat "$WORK/err")"

	bounded 0 "$DISKPROOF" delete 1 --results "$h"
	bounded 0 "$DISKPROOF" report latest --format html --results "$h" -o "$WORK/$name.html"
	[ "$(sqlite3 "$h" "SELECT count(*) FROM run")" = 1 ] || fail "$name: delete 1"
done

# NaN cannot be stored: SQLite makes 0.0/0 NULL, a figure not stored
cp good.db nan.db
sqlite3 nan.db "UPDATE run SET warmup_s = 0.0/0 WHERE id = 1"
[ "$(sqlite3 nan.db "SELECT typeof(warmup_s) FROM run WHERE id = 1")" = null ] ||
	fail "sqlite3 stored 0.0/0 as a number"
for fmt in text json csv html; do
	bounded 0 "$DISKPROOF" report 1 --format "$fmt" --results "$WORK/nan.db"
done
echo "ok"
