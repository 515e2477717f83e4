#!/bin/bash
# SPDX-License-Identifier: MIT
# parity_best.sh - diskproof against fio tuned for speed (issue 33): small
# random reads, equal threads and depth, run alternately; the IOPS and CPU per
# I/O ratios, median [min..max] over the rounds.
#
# usage: tests/bench/parity_best.sh best [DIR [ROUNDS [SECONDS]]]
#        tests/bench/parity_best.sh best-done
#   (or the same through tests/bench/parity_vs_fio.sh best ... / best-done)
#   best       every case of CASES (default: a RAM-backed loop device and DIR
#              on the machine's disk; 1 and 2 workers/jobs; depths 1, 8, 32;
#              verify off and on: 24 cases, about 25 min at 5 rounds)
#   best-done  the cases of issue 33's "Done means", on the RAM-backed loop
#              device only, 5 rounds of 5 s: 1v1 depth 32, 2v2 depth 32, 1v1
#              depth 1, 1v1 depth 32 verify on (about 5 min on a quiet
#              machine); prints the table
#   DIR        scratch directory for the disk cases (default ./bench-data);
#              DIR/best must not exist: it is created and removed
#   ROUNDS     rounds (default 5); SECONDS: measured length (default 5)
# env: DISKPROOF, FIO (lib.sh), CASES ("W:DEPTH:VERIFY:TARGET ...", TARGET ram
#      or disk), BS (default 4KiB), SIZE (bytes each side reads, default
#      768MiB; 256MiB for best-done, quicker to lay out), WARM (warm-up seconds, default 1), FIO_BEST (fio's tuning,
#      default "--fixedbufs --registerfiles --iodepth_batch_submit=8
#      --iodepth_batch_complete_max=32", the batch sizes capped at the depth),
#      DP_BATCH (diskproof's [engine] submit_batch, default 8 as fio's
#      --iodepth_batch_submit, capped at the depth as fio's is; 1: each I/O
#      at once, diskproof's default), DP_ENGINE (more [engine] lines for
#      diskproof, e.g. "sqpoll = on")
#
# Each side has its own data, made once: diskproof's pages (diskproof init)
# and fio's blocks carrying its crc32c verify headers (a sequential write with
# --verify=crc32c --do_verify=0), so that fio with verify on checks every
# block it reads as diskproof checks every page. RAM: two loop devices
# (--direct-io=on) over files in /dev/shm, one a side. Disk: a volume of one
# database of SIZE in DIR/best/vol, and one fio file of SIZE beside it.
#
# diskproof: [workload] model = fixed, block_size = BS, read_pct = 100,
# pattern = random, verify; [engine] io_uring, streams = W x DEPTH, workers =
# W; [test] duration = SECONDS, warmup = WARM. fio: --rw=randread --bs=BS
# --direct=1 --ioengine=io_uring --thread --numjobs=W --iodepth=DEPTH
# --norandommap --time_based --runtime=SECONDS --ramp_time=WARM, each job its
# 1/W of the data (--size, --offset_increment), FIO_BEST, --verify=crc32c with
# verify on. IOPS: diskproof's run summary (measured intervals), fio's iops
# (after its ramp). CPU per I/O: user + sys of the whole process (wait4, via
# procrun.py: every thread, the kernel's io_uring threads too, which are
# threads of the process since Linux 5.12) over the measured I/Os: start-up,
# warm-up, the results store and the report count for diskproof, as the ramp
# and the JSON output count for fio. Ratios are diskproof / fio within a round.
set -eu
source "$(dirname "$0")/lib.sh"

MODE=${1:-best}
case "$MODE" in
best) DIR=${2:-./bench-data} ROUNDS=${3:-5} SECS=${4:-5} DEF_SIZE=768MiB
	CASES=${CASES:-$(for t in ram disk; do for w in 1 2; do for d in 1 8 32; do
		for v in off on; do echo "$w:$d:$v:$t"; done; done; done; done)} ;;
best-done) DIR=${2:-./bench-data} ROUNDS=5 SECS=5 DEF_SIZE=256MiB
	CASES=${CASES:-1:32:off:ram 2:32:off:ram 1:1:off:ram 1:32:on:ram} ;;
*) die "usage: $BENCH best [DIR [ROUNDS [SECONDS]]] | best-done" ;;
esac
CASES=$(echo $CASES)
WARM=${WARM:-1}
BS=$(to_bytes "${BS:-4KiB}")
SIZE=$(to_bytes "${SIZE:-$DEF_SIZE}")
DP_BATCH=${DP_BATCH:-8}
is_count "$DP_BATCH" DP_BATCH
FIO_BEST=${FIO_BEST:---fixedbufs --registerfiles --iodepth_batch_submit=8 --iodepth_batch_complete_max=32}
is_count "$ROUNDS" rounds
is_count "$SECS" seconds
need_diskproof
need_fio
case " $CASES" in *:ram*) [ "$(id -u)" = 0 ] || die "the ram cases need root (losetup)" ;; esac

bench_workdir "$DIR" best
DEVS=()
cleanup() {
	for d in "${DEVS[@]}"; do losetup -d "$d" 2>/dev/null || true; done
	rm -f /dev/shm/diskproof-best-$$-*.img
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
RES=$WORK/results.db

# ram_dev NAME: sets DEV to a loop device over a file of SIZE + 128 MiB
# (diskproof's log and journals) in /dev/shm
ram_dev() {
	local img=/dev/shm/diskproof-best-$$-$1.img
	truncate -s $((SIZE + (128 << 20))) "$img"
	DEV=$(losetup --find --show --direct-io=on "$img") || die "losetup failed"
	DEVS+=("$DEV")
}

# profile W DEPTH VERIFY PATH: diskproof's profile, to stdout
profile() {
	cat <<PROFILE
[test]
duration = ${SECS}s
warmup = ${WARM}s
[sizing]
database_size = $SIZE
[workload]
model = fixed
block_size = $BS
read_pct = 100
pattern = random
verify = $3
[engine]
name = io_uring
direct = on
streams = $(($1 * $2))
workers = $1
submit_batch = $(($2 < DP_BATCH ? $2 : DP_BATCH))
${DP_ENGINE:-}
[volume v]
path = $4
databases = 1
PROFILE
}

declare -A DP_PATH FIO_FILE
setup_target() { # TARGET
	case $1 in
	ram)
		ram_dev dp
		DP_PATH[ram]=$DEV
		ram_dev fio
		FIO_FILE[ram]=$DEV
		profile 1 1 off "${DP_PATH[ram]}" >"$WORK/init.ini"
		"$DISKPROOF" init "$WORK/init.ini" --destroy-data "${DP_PATH[ram]}" --results "$RES" \
			--quiet >"$WORK/init.out" 2>&1 || die "diskproof init failed: $(cat "$WORK/init.out")"
		;;
	disk)
		DP_PATH[disk]=$WORK/vol
		FIO_FILE[disk]=$WORK/fio.dat
		profile 1 1 off "${DP_PATH[disk]}" >"$WORK/init.ini"
		"$DISKPROOF" init "$WORK/init.ini" --results "$RES" --quiet >"$WORK/init.out" 2>&1 ||
			die "diskproof init failed: $(cat "$WORK/init.out")"
		;;
	esac
	"$FIO" --name=write --filename="${FIO_FILE[$1]}" --rw=write --bs="$BS" --direct=1 \
		--ioengine=io_uring --iodepth=32 --size="$SIZE" --verify=crc32c --do_verify=0 --verify_state_save=0 \
		--output="$WORK/fiow.out" >/dev/null 2>&1 || die "fio's write pass failed: $(tail -3 "$WORK/fiow.out")"
	sync
}

# run_dp W DEPTH VERIFY TARGET: sets IOPS and CPU (us per I/O)
run_dp() {
	local id
	profile "$1" "$2" "$3" "${DP_PATH[$4]}" >"$WORK/p.ini"
	"$PROCRUN" --out "$WORK/pr.json" --log "$WORK/dp.out" -- \
		"$DISKPROOF" run "$WORK/p.ini" --results "$RES" --quiet
	case "$(json "$WORK/pr.json" 'j["rc"]')" in
	0 | 1) ;; # passed, or a slow maximum on a shared machine: measured either way
	*) die "diskproof run ($*) failed: $(tail -5 "$WORK/dp.out")" ;;
	esac
	id=$(last_run "$RES")
	IOS=$(summary_sql "$RES" "$id" "sum(ios)" "'db_read'")
	IOPS=$(summary_sql "$RES" "$id" "sum(iops)" "'db_read'")
	CPU=$(calc "$(json "$WORK/pr.json" 'j["user_s"] + j["sys_s"]') / $IOS * 1e6")
	FEAT=$(env_fact "$RES" "$id" engine_features)
}

# run_fio W DEPTH VERIFY TARGET: sets IOPS and CPU (us per I/O)
run_fio() {
	local v="" fb j='j["jobs"][0]["read"]'
	[ "$3" = off ] || v=--verify=crc32c
	fb=${FIO_BEST//submit=8/submit=$(($2 < 8 ? $2 : 8))}
	fb=${fb//complete_max=32/complete_max=$(($2 < 32 ? $2 : 32))}
	# shellcheck disable=SC2086
	"$PROCRUN" --out "$WORK/pr.json" --log "$WORK/fio.out" -- \
		"$FIO" --name=best --filename="${FIO_FILE[$4]}" --direct=1 --ioengine=io_uring \
		--thread --numjobs="$1" --iodepth="$2" --bs="$BS" --rw=randread --norandommap \
		--time_based --runtime="$SECS" --ramp_time="$WARM" \
		--size=$((SIZE / $1)) --offset_increment=$((SIZE / $1)) --group_reporting \
		$fb $v --output-format=json --output="$WORK/fio.json"
	[ "$(json "$WORK/pr.json" 'j["rc"]')" = 0 ] || die "fio failed: $(tail -5 "$WORK/fio.out")"
	IOS=$(json "$WORK/fio.json" "${j}[\"total_ios\"]")
	IOPS=$(json "$WORK/fio.json" "round(${j}[\"iops\"], 1)")
	CPU=$(calc "$(json "$WORK/pr.json" 'j["user_s"] + j["sys_s"]') / $IOS * 1e6")
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else printf "-" }'; }

echo "diskproof: $("$DISKPROOF" --version) ($DISKPROOF)"
echo "fio:       $("$FIO" --version), tuned: $FIO_BEST (batch sizes capped at the depth)"
echo "runs:      $((BS >> 10)) KiB random reads over $((SIZE >> 20)) MiB a side, ${WARM} s warm-up +" \
	"${SECS} s, $ROUNDS alternating rounds; $(nproc) CPUs"
echo "diskproof: submit_batch = $DP_BATCH (capped at the depth)${DP_ENGINE:+; [engine] $DP_ENGINE}"
for t in ram disk; do
	case " $CASES" in *:$t*) setup_target $t ;; esac
done
echo "ram:       ${DP_PATH[ram]:-} / ${FIO_FILE[ram]:-} (loop, direct I/O, files in /dev/shm);" \
	"disk: ${DP_PATH[disk]:-} / ${FIO_FILE[disk]:-}"

declare -A RI RC DI FI DC FC # per case: ratios and absolute figures, per round
printf '\n%-3s %-14s %-6s %10s %8s %10s %8s %7s %7s  %s\n' rnd case first "dp IOPS" "dp us" \
	"fio IOPS" "fio us" IOPS× CPU× load
for r in $(seq 1 "$ROUNDS"); do
	for c in $CASES; do
		IFS=: read -r w d v t <<<"$c"
		# alternate which side goes first
		if [ $((r % 2)) = 1 ]; then
			run_dp "$w" "$d" "$v" "$t"
			DPI=$IOPS DPC=$CPU
			run_fio "$w" "$d" "$v" "$t"
			first=dp
		else
			run_fio "$w" "$d" "$v" "$t"
			FI_=$IOPS FC_=$CPU
			run_dp "$w" "$d" "$v" "$t"
			DPI=$IOPS DPC=$CPU IOPS=$FI_ CPU=$FC_
			first=fio
		fi
		ri=$(ratio "$DPI" "$IOPS") rc=$(ratio "$DPC" "$CPU")
		RI[$c]="${RI[$c]:-} $ri" RC[$c]="${RC[$c]:-} $rc"
		DI[$c]="${DI[$c]:-} $DPI" FI[$c]="${FI[$c]:-} $IOPS"
		DC[$c]="${DC[$c]:-} $DPC" FC[$c]="${FC[$c]:-} $CPU"
		printf '%-3s %-14s %-6s %10.0f %8.2f %10.0f %8.2f %7s %7s  %s\n' "$r" "$c" "$first" \
			"$DPI" "$DPC" "$IOPS" "$CPU" "$ri" "$rc" "$(cut -d' ' -f1 /proc/loadavg)"
	done
done
echo
echo "diskproof: engine_features $FEAT"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "ratios diskproof / fio tuned, median [min..max] over $ROUNDS rounds; absolute medians"
echo "(case = workers/jobs : depth each : verify : target)"
printf '%-14s %-22s %-22s %10s %10s %8s %8s\n' case "IOPS ratio" "CPU/IO ratio" "dp IOPS" \
	"fio IOPS" "dp us" "fio us"
for c in $CASES; do
	# shellcheck disable=SC2086
	{
		set -- $(mstats ${RI[$c]})
		a="$1 [$2..$3]"
		set -- $(mstats ${RC[$c]})
		b="$1 [$2..$3]"
		di=$(mstats ${DI[$c]} | cut -d' ' -f1) fi=$(mstats ${FI[$c]} | cut -d' ' -f1)
		dc=$(mstats ${DC[$c]} | cut -d' ' -f1) fc=$(mstats ${FC[$c]} | cut -d' ' -f1)
	}
	printf '%-14s %-22s %-22s %10.0f %10.0f %8.2f %8.2f\n' "$c" "$a" "$b" "$di" "$fi" "$dc" "$fc"
done
if [ "$MODE" = best-done ]; then
	echo
	echo "issue 33, Done means (targets): 1:32:off IOPS >= 1.0, CPU/IO <= 0.8; 2:32:off and" \
		"1:1:off IOPS >= 0.95; 1:32:on IOPS >= 0.95, CPU/IO <= 1.1"
fi
