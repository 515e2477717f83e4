#!/bin/bash
# SPDX-License-Identifier: MIT
# log_apart.sh - the threshold ceiling's mix with the logs off the databases'
# disk: diskproof's exchange-2013 at two stream counts against fio's randrw at
# two depths, both tools' logs on a RAM-backed loop device, alternately.
#
# usage: tests/bench/log_apart.sh [DIR [ROUNDS [SECONDS]]]   (root: loop, mount)
#   DIR      scratch directory for the databases (default ./bench-data);
#            DIR/log_apart must not exist: it is created and removed
#   ROUNDS   rounds (default 4)
#   SECONDS  length of every run (default 5)
# env: DISKPROOF (default build/diskproof; use a Release build), FIO (fio),
#      LEVELS (diskproof streams and fio depths, default "16 32")
#
# The databases: exchange-2013's 4 of 256 MiB in DIR/log_apart/vol1, made
# again before every diskproof run (fio's writes leave pages diskproof would
# call foreign), verify = off (fio checks nothing). The logs: an ext4 on a
# loop device over a 1 GiB file in /dev/shm, so they leave the databases'
# disk; diskproof's [volume] log_path points there. Every round, for each
# level L: diskproof at L streams (5 s), then fio at depth L: one job of
# 32 KiB random reads and writes 3:2 over the 4 .edb files, beside 4 log
# jobs (sequential O_DSYNC writes on the same log files) at the log write
# rate and size that diskproof's run just before measured. Figures:
# transactional IOPS (database reads + writes per second) and read mean;
# then each side's mean over the rounds, and diskproof's best level against
# fio's best depth. ceiling.sh compares the same mix with the logs beside
# the databases (this VM has one disk); see docs/performance.md, fix G.
set -eu
source "$(dirname "$0")/lib.sh"

DIR=${1:-./bench-data}
ROUNDS=${2:-4}
SECS=${3:-5}
LEVELS=${LEVELS:-16 32}
is_count "$ROUNDS" rounds
is_count "$SECS" seconds
for l in $LEVELS; do is_count "$l" "a level in LEVELS"; done
[ "$(id -u)" = 0 ] || die "needs root (a loop device and a mount for the logs)"
[ -d /dev/shm ] || die "no /dev/shm for the logs' device"
need_diskproof
need_fio

bench_workdir "$DIR" log_apart
SHM=$(mktemp -d /dev/shm/diskproof-log_apart.XXXXXX)
MNT=$WORK/logdev
LOOP=""
cleanup() {
	if mountpoint -q "$MNT" 2>/dev/null; then umount "$MNT" || true; fi
	[ -z "$LOOP" ] || losetup -d "$LOOP" || true
	rm -rf "$SHM" "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
truncate -s 1G "$SHM/img"
LOOP=$(losetup -f --show "$SHM/img") || die "no loop device"
mkfs.ext4 -q "$LOOP" || die "mkfs.ext4 on $LOOP failed"
mkdir -p "$MNT"
mount "$LOOP" "$MNT" || die "cannot mount $LOOP"
RES=$WORK/results.db
LOGS=$MNT/vol1-log
EDB="" LOGF=()
for i in 1 2 3 4; do
	EDB="$EDB${EDB:+:}$WORK/vol1/db$i.edb"
	LOGF+=("$LOGS/db$i.log")
done

profile() { # STREAMS
	local f=$WORK/s$1.ini
	"$DISKPROOF" profiles show exchange-2013 |
		sed "s/^name = io_uring\$/name = io_uring\nstreams = $1/; s/^\[workload\]\$/[workload]\nverify = off/; s#^log_path = .*#log_path = $LOGS#; s#^path = .*#path = $WORK/vol1#" >"$f"
	grep -q "^log_path = $LOGS\$" "$f" && grep -q "^path = $WORK/vol1\$" "$f" ||
		die "could not set the paths in exchange-2013's [volume vol1]"
	echo "$f"
}

make_files() {
	rm -rf "$WORK/vol1" "$LOGS"
	"$DISKPROOF" init "$(profile 16)" --db-size 256MiB --results "$RES" >"$WORK/init.out" 2>&1 ||
		die "diskproof init failed: $(tail -5 "$WORK/init.out")"
	sync
}

run_dp() { # STREAMS; sets IOPS RAVG LOG_RATE LOG_BS
	local id rc=0
	"$DISKPROOF" run "$(profile "$1")" --db-size 256MiB --warmup 0s --duration "${SECS}s" \
		--results "$RES" --quiet >"$WORK/run.out" 2>&1 || rc=$?
	[ $rc -le 1 ] || die "diskproof run failed (exit $rc): $(tail -5 "$WORK/run.out")"
	id=$(last_run "$RES")
	IOPS=$(summary_sql "$RES" "$id" "printf('%.1f', sum(iops))" "'db_read','db_write'")
	RAVG=$(summary_sql "$RES" "$id" "printf('%.3f', avg_ms)" "'db_read'")
	LOG_RATE=$(summary_sql "$RES" "$id" "max(1, cast(iops / 4 + 0.5 as int))" "'log_write'")
	LOG_BS=$(summary_sql "$RES" "$id" "(bytes / max(ios, 1) + 511) / 512 * 512" "'log_write'")
	[ "${LOG_BS:-0}" -gt 0 ] || die "diskproof's run has no log writes"
}

run_fio() { # QD; uses LOG_RATE LOG_BS; sets IOPS RAVG
	fio_tx "$WORK/fio.json" "$1" "$SECS" "$EDB" "$LOG_BS" "$LOG_RATE" "${LOGF[@]}"
	read -r IOPS RAVG < <(python3 - "$WORK/fio.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))["jobs"]
db = [x for x in j if x["jobname"] == "db"][0]
print("%.1f %.3f" % (db["read"]["iops"] + db["write"]["iops"], db["read"]["lat_ns"]["mean"] / 1e6))
PY
)
}

echo "diskproof: $("$DISKPROOF" --version) ($DISKPROOF)"
echo "fio:       $("$FIO" --version)"
echo "host:      $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "layout:    exchange-2013, verify = off, 4 x 256 MiB in $WORK/vol1 (on $(df -P "$WORK" | awk 'NR == 2 { print $1 }')), logs on $LOOP (RAM)"
echo "levels:    $LEVELS; $ROUNDS rounds of ${SECS} s per side"
echo
printf '%-3s %-16s %10s %8s %s\n' rnd side IOPS "rd avg" "fio's log jobs"
declare -A S # S[side] = space-separated IOPS
for r in $(seq 1 "$ROUNDS"); do
	for l in $LEVELS; do
		make_files
		run_dp "$l"
		printf '%-3s %-16s %10s %8s\n' "$r" "diskproof $l" "$IOPS" "$RAVG"
		S[dp$l]="${S[dp$l]:-} $IOPS"
		run_fio "$l"
		printf '%-3s %-16s %10s %8s %s\n' "$r" "fio QD $l" "$IOPS" "$RAVG" "${LOG_RATE}/s x $LOG_BS B each"
		S[fio$l]="${S[fio$l]:-} $IOPS"
	done
done

echo
echo "mean [min..max] of the rounds' transactional IOPS:"
BEST_DP=0 BEST_FIO=0
for l in $LEVELS; do
	for t in dp fio; do
		# shellcheck disable=SC2086 # the rounds' figures are separate arguments
		read -r m lo hi < <(stats ${S[$t$l]})
		printf '  %-16s %10s [%s..%s]\n' "$([ $t = dp ] && echo "diskproof $l" || echo "fio QD $l")" "$m" "$lo" "$hi"
		if [ $t = dp ]; then
			awk -v a="$m" -v b="$BEST_DP" 'BEGIN { exit !(a > b) }' && BEST_DP=$m
		else
			awk -v a="$m" -v b="$BEST_FIO" 'BEGIN { exit !(a > b) }' && BEST_FIO=$m
		fi
	done
done
echo "diskproof's best level / fio's best depth: $(ratio3 "$BEST_DP" "$BEST_FIO")"
