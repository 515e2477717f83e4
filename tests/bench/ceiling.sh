#!/bin/bash
# SPDX-License-Identifier: MIT
# ceiling.sh - threshold ceiling: the transactional IOPS diskproof's auto-tune
# finds under the latency thresholds, against the best a brute-force fio
# search over queue depths finds for an equivalent mix on the same files.
#
# usage: tests/bench/ceiling.sh [DIR [SECONDS]]
#   DIR      scratch directory (default ./bench-data); DIR/ceiling must not
#            exist: it is created and removed (about 1.3 GB is written)
#   SECONDS  length of each fio level and of diskproof's main test (default 10;
#            diskproof's main test runs 3 x SECONDS)
# env: DISKPROOF (default build/diskproof; use a Release build), FIO (fio),
#      QDS (fio queue depths, default "1 2 4 8 16 32 64 128 256"),
#      TUNE_LIMIT (autotune_limit, default 90s), TUNE_WINDOW (5s),
#      TUNE_GOAL (autotune_goal, default iops: the most IOPS within the
#      thresholds, the question fio's search answers; max: the most streams),
#      CONFIRM (confirmation rounds, default 5; 0: none), CONFIRM_SECS (the
#      length of each side of a confirmation round, default 5), VERIFY
#      (diskproof's [workload] verify, default off: fio's mix checks nothing
#      it reads, and checking costs this machine's device about 10 % of its
#      IOPS whichever program does it, see verify_cost.sh; on: the profile's
#      own default)
#
# diskproof: the built-in exchange-2013 profile (4 databases, logs in their
# own directory, the Jetstress mix) with streams = auto, autotune_goal =
# TUNE_GOAL, autotune_limit = TUNE_LIMIT, autotune_window = TUNE_WINDOW, run
# with --db-size 256MiB --warmup 0s --duration 3xSECONDS. Auto-tune keeps, of
# the stream counts whose windows pass every criterion with a 10 % margin
# (read average <= 18 ms, log write average <= 9 ms, maxima <= 90 ms), the
# one with the most transactional IOPS (goal max: the most streams). Its
# figure: the main test's
# transactional IOPS (database reads + writes per second).
# fio, afterwards, on the very same files: one job of 32 KiB random reads and
# writes 3:2 (--rw=randrw --rwmixread=60) over the 4 .edb files at queue
# depth QD; four log jobs, one per .log file, sequential writes through
# O_DSYNC (--sync=dsync), one in flight, each of diskproof's average log
# write size and rate-limited to diskproof's log writes per second per
# database (both from its main test), so the log load is the same. For every
# QD: transactional IOPS (the db job's reads + writes per second), its read
# average and the log jobs' write average (fio "lat": submission to
# completion), and the maxima. fio's best: the highest IOPS whose read
# average <= 18 ms and log write average <= 9 ms (the brief's criterion), and
# the highest that also keeps both maxima <= 90 ms (all of auto-tune's).
# diskproof runs first: fio's writes leave pages diskproof would call corrupt.
# One round (the search itself is the repetition); the fio levels run from
# the lowest depth up. On a noisy device fio's best of many levels is biased
# upwards (the maximum of several noisy draws): read it with the table.
# So, last, the two chosen levels are run again, alternately (CONFIRM rounds,
# CONFIRM_SECS per side, about 15 s a round): diskproof at the stream count
# auto-tune chose, fixed, and fio at the depth of its best (with maxima);
# short alternating runs follow the device's drift, as parity_vs_fio.sh.
# Target: diskproof's auto-tuned transactional IOPS >= 0.9 x fio's best.
set -eu
source "$(dirname "$0")/lib.sh"

DIR=${1:-./bench-data}
SECS=${2:-10}
QDS=${QDS:-1 2 4 8 16 32 64 128 256}
TUNE_LIMIT=${TUNE_LIMIT:-90s}
TUNE_WINDOW=${TUNE_WINDOW:-5s}
TUNE_GOAL=${TUNE_GOAL:-iops}
CONFIRM=${CONFIRM:-5}
VERIFY=${VERIFY:-off}
case $VERIFY in on | off) ;; *) die "VERIFY must be on or off, not \"$VERIFY\"" ;; esac
CONFIRM_SECS=${CONFIRM_SECS:-5}
is_count "$SECS" seconds
[[ "$CONFIRM" =~ ^[0-9]+$ ]] || die "CONFIRM must be a number of rounds, not \"$CONFIRM\""
is_count "$CONFIRM_SECS" CONFIRM_SECS

need_diskproof
need_fio

bench_workdir "$DIR" ceiling
trap 'rm -rf "$WORK"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
RES=$WORK/results.db
P=$WORK/tune.ini

"$DISKPROOF" profiles show exchange-2013 |
	sed "s/^name = io_uring\$/name = io_uring\nstreams = auto\nautotune_goal = $TUNE_GOAL\nautotune_limit = $TUNE_LIMIT\nautotune_window = $TUNE_WINDOW/; s/^\[workload\]\$/[workload]\nverify = $VERIFY/" >"$P"
grep -q '^streams = auto' "$P" || die "could not set streams = auto in exchange-2013's [engine]"
grep -q "^verify = $VERIFY\$" "$P" || die "could not set verify in exchange-2013's [workload]"

echo "diskproof: $("$DISKPROOF" --version) ($DISKPROOF)"
echo "fio:       $("$FIO" --version)"
echo "host:      $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "diskproof: exchange-2013, verify = $VERIFY, 4 x 256 MiB, streams = auto (goal $TUNE_GOAL, limit $TUNE_LIMIT, window $TUNE_WINDOW), main test $((3 * SECS)) s"
"$DISKPROOF" init "$P" --db-size 256MiB --data-dir "$WORK" --results "$RES" >"$WORK/init.out" 2>&1 ||
	die "diskproof init failed: $(tail -5 "$WORK/init.out")"
sync
t0=$(date +%s)
rc=0
"$DISKPROOF" run "$P" --db-size 256MiB --data-dir "$WORK" --warmup 0s --duration "$((3 * SECS))s" \
	--results "$RES" --quiet >"$WORK/run.out" 2>&1 || rc=$?
[ $rc -le 1 ] || die "diskproof run failed (exit $rc): $(tail -5 "$WORK/run.out")"
id=$(last_run "$RES")
echo "diskproof: exit $rc after $(($(date +%s) - t0)) s; auto-tune chose $(env_fact "$RES" "$id" autotune_chosen)" \
	"streams ($(env_fact "$RES" "$id" autotune_stopped_because))"
sqlite3 -separator ' ' "$RES" "select step, streams, printf('%.0f', iops), printf('%.2f', db_read_avg_ms), printf('%.2f', log_write_avg_ms), passed, coalesce(reason, '') from autotune_step where run_id = $id order by step" 2>/dev/null |
	awk 'BEGIN { printf "  %-5s %8s %10s %10s %10s %s\n", "step", "streams", "IOPS", "rd avg", "log avg", "verdict" }
	{ why = ""; for (i = 7; i <= NF; i++) why = why " " $i; printf "  %-5s %8s %10s %10s %10s %s%s\n", $1, $2, $3, $4, $5, ($6 ? "pass" : "fail"), why }' ||
	true
DP_IOPS=$(summary_sql "$RES" "$id" "printf('%.1f', sum(iops))" "'db_read','db_write'")
DP_RAVG=$(summary_sql "$RES" "$id" "printf('%.2f', avg_ms)" "'db_read'")
DP_LAVG=$(summary_sql "$RES" "$id" "printf('%.2f', avg_ms)" "'log_write'")
LOG_IOS=$(summary_sql "$RES" "$id" "ios" "'log_write'")
LOG_BYTES=$(summary_sql "$RES" "$id" "bytes" "'log_write'")
LOG_IOPS=$(summary_sql "$RES" "$id" "iops" "'log_write'")
[ "${LOG_IOS:-0}" -gt 0 ] || die "diskproof's main test has no log writes"
LOG_BS=$(((LOG_BYTES / LOG_IOS + 511) / 512 * 512))
LOG_RATE=$(awk -v r="$LOG_IOPS" 'BEGIN { printf "%d", r / 4 + 0.5 }')
[ "$LOG_RATE" -ge 1 ] || LOG_RATE=1
echo "diskproof main test at $(sqlite3 "$RES" "select streams from run where id = $id") streams:" \
	"$DP_IOPS transactional IOPS, read avg $DP_RAVG ms, log write avg $DP_LAVG ms;" \
	"log writes $LOG_BS B average, $LOG_RATE/s per database"

EDB="" LOGS=()
for i in 1 2 3 4; do
	EDB="$EDB${EDB:+:}$WORK/vol1/db$i.edb"
	LOGS+=("$WORK/vol1-log/db$i.log")
	[ -f "$WORK/vol1/db$i.edb" ] && [ -f "$WORK/vol1-log/db$i.log" ] || die "no db$i files where expected"
done

echo
echo "fio search (${SECS} s per depth; db job: randrw 60 % reads, 32 KiB; 4 log jobs: $LOG_BS B O_DSYNC writes at $LOG_RATE/s):"
printf '  %-5s %10s %10s %10s %10s %10s %s\n' QD IOPS "rd avg" "rd max" "log avg" "log max" "pass (avg / avg+max)"
# fio_level QD [SECONDS]: runs fio's db job at depth QD beside the 4 log jobs
# for SECONDS (default SECS); sets iops ravg rmax lavg lmax
fio_level() {
	fio_tx "$WORK/fio.json" "$1" "${2:-$SECS}" "$EDB" "$LOG_BS" "$LOG_RATE" "${LOGS[@]}"
	read -r iops ravg rmax lavg lmax < <(python3 - "$WORK/fio.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))["jobs"]
db = [x for x in j if x["jobname"] == "db"][0]
logs = [x for x in j if x["jobname"].startswith("log")]
iops = db["read"]["iops"] + db["write"]["iops"]
ravg = db["read"]["lat_ns"]["mean"] / 1e6
rmax = db["read"]["lat_ns"]["max"] / 1e6
n = sum(x["write"]["total_ios"] for x in logs)
lavg = sum(x["write"]["lat_ns"]["mean"] * x["write"]["total_ios"] for x in logs) / n / 1e6 if n else 0
lmax = max(x["write"]["lat_ns"]["max"] for x in logs) / 1e6
print("%.1f %.2f %.1f %.2f %.1f" % (iops, ravg, rmax, lavg, lmax))
PY
)
}

BEST_AVG=0 BEST_ALL=0 QD_AVG=- QD_ALL=-
for qd in $QDS; do
	fio_level "$qd"
	pa=$(awk -v r="$ravg" -v l="$lavg" 'BEGIN { print (r <= 18 && l <= 9) ? 1 : 0 }')
	pm=$(awk -v a="$pa" -v r="$rmax" -v l="$lmax" 'BEGIN { print (a && r <= 90 && l <= 90) ? 1 : 0 }')
	printf '  %-5s %10s %10s %10s %10s %10s %s / %s\n' "$qd" "$iops" "$ravg" "$rmax" "$lavg" "$lmax" \
		"$([ "$pa" = 1 ] && echo pass || echo fail)" "$([ "$pm" = 1 ] && echo pass || echo fail)"
	if [ "$pa" = 1 ] && awk -v a="$iops" -v b="$BEST_AVG" 'BEGIN { exit !(a > b) }'; then
		BEST_AVG=$iops QD_AVG=$qd
	fi
	if [ "$pm" = 1 ] && awk -v a="$iops" -v b="$BEST_ALL" 'BEGIN { exit !(a > b) }'; then
		BEST_ALL=$iops QD_ALL=$qd
	fi
done

echo
echo "fio best, averages only (read <= 18 ms, log <= 9 ms): $BEST_AVG IOPS at QD $QD_AVG"
echo "fio best, averages and maxima <= 90 ms:               $BEST_ALL IOPS at QD $QD_ALL"
echo "diskproof auto-tuned:                                 $DP_IOPS IOPS"
echo "ratio diskproof/fio best (averages only):             $(ratio3 "$DP_IOPS" "$BEST_AVG")  (target >= 0.90)"
echo "ratio diskproof/fio best (averages and maxima):       $(ratio3 "$DP_IOPS" "$BEST_ALL")"

# Confirmation: fio's best is the highest of several noisy draws, so it is
# biased upwards on a drifting device. Run diskproof's chosen stream count
# (fixed, no search) and fio at its best depth again, alternately, CONFIRM
# rounds of CONFIRM_SECS per side (the files are made again before every diskproof run:
# fio's writes leave pages diskproof rightly calls foreign), and compare the
# two levels without the selection.
CHOSEN=$(sqlite3 "$RES" "select streams from run where id = $id")
QD_C=$QD_ALL
[ "$QD_C" != - ] || QD_C=$QD_AVG
if [ "$CONFIRM" -gt 0 ] && [ "$QD_C" != - ]; then
	PF=$WORK/fixed.ini
	"$DISKPROOF" profiles show exchange-2013 | sed "s/^name = io_uring\$/name = io_uring\nstreams = $CHOSEN/; s/^\[workload\]\$/[workload]\nverify = $VERIFY/" >"$PF"
	grep -q "^streams = $CHOSEN\$" "$PF" || die "could not set streams in exchange-2013's [engine]"
	echo
	echo "confirmation, alternating, $CONFIRM rounds of ${CONFIRM_SECS} s: diskproof at $CHOSEN streams (fixed) against fio at QD $QD_C"
	printf '  %-5s %14s %14s %8s\n' round "diskproof IOPS" "fio IOPS" ratio
	CR=()
	for r in $(seq 1 "$CONFIRM"); do
		rm -rf "$WORK/vol1" "$WORK/vol1-log"
		"$DISKPROOF" init "$PF" --db-size 256MiB --data-dir "$WORK" --results "$RES" >"$WORK/init.out" 2>&1 ||
			die "diskproof init failed: $(tail -5 "$WORK/init.out")"
		sync
		rc=0
		"$DISKPROOF" run "$PF" --db-size 256MiB --data-dir "$WORK" --warmup 0s \
			--duration "${CONFIRM_SECS}s" --results "$RES" --quiet >"$WORK/run.out" 2>&1 || rc=$?
		[ $rc -le 1 ] || die "diskproof run failed (exit $rc): $(tail -5 "$WORK/run.out")"
		d=$(summary_sql "$RES" "$(last_run "$RES")" "printf('%.1f', sum(iops))" "'db_read','db_write'")
		fio_level "$QD_C" "$CONFIRM_SECS"
		CR+=("$(ratio3 "$d" "$iops")")
		printf '  %-5s %14s %14s %8s\n' "$r" "$d" "$iops" "${CR[-1]}"
	done
	echo "ratio diskproof/fio, confirmed (median [min..max]):   $(mstats "${CR[@]}")  (target >= 0.90)"
fi
