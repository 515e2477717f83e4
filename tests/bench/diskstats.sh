#!/bin/bash
# SPDX-License-Identifier: MIT
# diskstats.sh - counters: does diskproof count every I/O it makes, and only
# those? Its I/O count and bytes for a run against the kernel's own counters
# (/proc/diskstats) of a device nothing else touches: a loop device, backed by
# a file, that diskproof uses as a raw volume.
#
# usage: tests/bench/diskstats.sh [DIR [SECONDS]]      (root: losetup)
#   DIR      where the loop device's backing file goes (default ./bench-data);
#            DIR/diskstats must not exist: it is created and removed
#   SECONDS  measured length of each run (default 10; plus 2 s of warm-up)
# env: DISKPROOF (default build/diskproof; use a Release build)
#
# Layout: a 768 MiB sparse file, attached with "losetup --direct-io=on" (so
# the loop device passes I/O straight to the file, no second page cache), is
# the volume: "path = /dev/loopN", 2 databases of 256 MiB and their 64 MiB
# logs as regions of it, made by "diskproof init --destroy-data /dev/loopN";
# the generation journals live beside the results file.
# Runs (fixed model, io_uring, 16 in flight, 32 KiB): 70 % random reads / 30 %
# writes; 100 % sequential reads (where the block layer could merge).
# For each run: /proc/diskstats of loopN just before the command and just
# after it exits; diskproof's count is the sum of every class over every
# interval of the run scope, warm-up included (sample table), which must
# equal the summary (measured) plus the warm-up intervals. Printed: both
# sides, the difference and the ratio diskproof/device for reads, writes,
# and sectors (bytes / 512). The device counts requests after merging, and
# counts the I/Os it merged into others apart ("merged"): an I/O diskproof
# submitted is one completed or one merged, so the ratio is taken on
# completed + merged (io_uring submits a turn's reads in one call since issue
# 33, and the block layer merges the neighbours of a sequential stream).
set -eu
source "$(dirname "$0")/lib.sh"

DIR=${1:-./bench-data}
SECS=${2:-10}
is_count "$SECS" seconds
need_diskproof
[ "$(id -u)" = 0 ] || die "needs root (losetup)"
command -v losetup >/dev/null || die "losetup is needed (util-linux)"

bench_workdir "$DIR" diskstats
DEV=""
cleanup() {
	[ -n "$DEV" ] && losetup -d "$DEV" 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

truncate -s 768M "$WORK/disk.img"
DEV=$(losetup --find --show --direct-io=on "$WORK/disk.img") || die "losetup failed"
NAME=$(basename "$DEV")
RES=$WORK/results.db

profile() { # READ_PCT PATTERN
	cat >"$WORK/p.ini" <<EOF
[test]
duration = ${SECS}s
warmup = 2s
[sizing]
database_size = 256MiB
[workload]
model = fixed
block_size = 32KiB
read_pct = $1
pattern = $2
[engine]
name = io_uring
streams = 16
[volume loop]
path = $DEV
databases = 2
EOF
	echo "$WORK/p.ini"
}

# diskstats: reads_completed reads_merged sectors_read writes_completed
# writes_merged sectors_written of the loop device
stats_now() {
	awk -v d="$NAME" '$3 == d { print $4, $5, $6, $8, $9, $10 }' /proc/diskstats
}

echo "diskproof: $("$DISKPROOF" --version) ($DISKPROOF)"
echo "device:    $DEV (loop, direct I/O) on $WORK/disk.img; $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
"$DISKPROOF" init "$(profile 70 random)" --destroy-data "$DEV" --results "$RES" >"$WORK/init.out" 2>&1 ||
	die "diskproof init failed: $(cat "$WORK/init.out")"

ALL_OK=true
for mix in "70 random" "100 sequential"; do
	set -- $mix
	p=$(profile "$1" "$2")
	sync
	sleep 1
	read -r r0 rm0 rs0 w0 wm0 ws0 < <(stats_now)
	rc=0
	"$DISKPROOF" run "$p" --results "$RES" --quiet >"$WORK/run.out" 2>&1 || rc=$?
	# 0 passed, 1 a verdict failed (a slow maximum): counted either way
	[ $rc -le 1 ] || die "diskproof run failed (exit $rc): $(tail -5 "$WORK/run.out")"
	read -r r1 rm1 rs1 w1 wm1 ws1 < <(stats_now)
	id=$(last_run "$RES")
	q="select coalesce(sum(%s), 0) from sample where run_id = $id and scope = 'run' and class in (%s)"
	# shellcheck disable=SC2059
	{
		dr=$(sqlite3 "$RES" "$(printf "$q" ios "'db_read','bdm_read','log_read','backup_read'")")
		dw=$(sqlite3 "$RES" "$(printf "$q" ios "'db_write','log_write'")")
		drb=$(sqlite3 "$RES" "$(printf "$q" bytes "'db_read','bdm_read','log_read','backup_read'")")
		dwb=$(sqlite3 "$RES" "$(printf "$q" bytes "'db_write','log_write'")")
		warm=$(sqlite3 "$RES" "select coalesce(sum(ios), 0) from sample where run_id = $id and scope = 'run' and warmup = 1")
	}
	meas=$(sqlite3 "$RES" "select sum(ios) from summary where run_id = $id and scope = 'run'")
	[ $((meas + warm)) = $((dr + dw)) ] ||
		note "warning: summary $meas + warm-up $warm != interval samples $((dr + dw))"
	kr=$((r1 - r0)) kw=$((w1 - w0)) krm=$((rm1 - rm0)) kwm=$((wm1 - wm0))
	ks=$((rs1 - rs0 + ws1 - ws0))
	echo
	echo "== $1 % reads, $2 (run $id: ${SECS} s measured + 2 s warm-up) =="
	printf '%-22s %12s %12s %14s\n' "" reads writes sectors
	printf '%-22s %12s %12s %14s\n' "diskproof (all intervals)" "$dr" "$dw" $(((drb + dwb) / 512))
	printf '%-22s %12s %12s %14s\n' "  of which warm-up" "" "" "($warm I/Os)"
	printf '%-22s %12s %12s %14s\n' "/proc/diskstats delta" "$kr" "$kw" "$ks"
	printf '%-22s %12s %12s %14s\n' "  merged (not in above)" "$krm" "$kwm" ""
	printf '%-22s %12s %12s %14s\n' "difference" $((dr - kr)) $((dw - kw)) $(((drb + dwb) / 512 - ks))
	printf '%-22s %12s %12s %14s\n' "ratio diskproof/device" "$(ratio3 "$dr" $((kr + krm)))" \
		"$(ratio3 "$dw" $((kw + kwm)))" "$(ratio3 $(((drb + dwb) / 512)) "$ks")"
	printf '%-22s %12s %12s %14s\n' "  (on completed alone)" "$(ratio3 "$dr" "$kr")" "$(ratio3 "$dw" "$kw")" ""
	tot=$(ratio3 $((dr + dw)) $((kr + krm + kw + kwm)))
	echo "I/O count ratio (reads + writes, completed + merged): $tot  (target: within 1 %, 0.990..1.010)"
	awk -v t="$tot" 'BEGIN { exit !(t >= 0.99 && t <= 1.01) }' || ALL_OK=false
done
echo
$ALL_OK && echo "result: every run within 1 % of /proc/diskstats" ||
	echo "result: a run is off by more than 1 % (see above)"
