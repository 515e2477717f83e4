#!/bin/bash
# SPDX-License-Identifier: MIT
# verify_cost.sh - what checking every page read costs on this machine, for
# diskproof and for fio, each against itself: the control for device parity
# with verify = on (parity_vs_fio.sh compares diskproof checking every page
# against fio checking none).
#
# usage: tests/bench/verify_cost.sh [DIR [ROUNDS [SECONDS]]]
#   DIR      scratch directory (default ./bench-data); DIR/verify_cost must not
#            exist: it is created and removed by this script
#   ROUNDS   rounds (default 5)
#   SECONDS  length of every diskproof run (default 5)
# env: DISKPROOF (default build/diskproof; use a Release build), FIO (fio),
#      STREAMS (I/Os in flight, default 16), DB_SIZE (each of the two files of
#      each tool, default 1GiB)
#
# 100 % random 32 KiB reads, O_DIRECT, io_uring, STREAMS in flight split over
# one worker (fio: job) per CPU, as parity_vs_fio.sh. Four sides, in an order
# that rotates from round to round:
#   dp off / dp on    diskproof's fixed model, verify = off / on, on two files
#                     laid out by "diskproof init" (on: every page's header,
#                     CRC32C and generation are checked);
#   fio off / fio on  fio on two files of its own that it wrote with
#                     --verify=crc32c (a header and CRC32C in every 32 KiB
#                     block); on: --verify=crc32c, every block read is
#                     checked (fio then reads each file's slice once and
#                     stops, ignoring --time_based, so both fio sides are
#                     bounded by size: every block of the slices, once).
# Figures per side: IOPS, read mean and p99 (ms), CPU us per I/O (user + sys
# of the process / I/Os). Ratios: on/off for each tool within a round, then
# the median [min..max] over rounds, and (dp on / fio on) against (dp off /
# fio off).
set -eu
source "$(dirname "$0")/lib.sh"

DIR=${1:-./bench-data}
ROUNDS=${2:-5}
SECS=${3:-5}
STREAMS=${STREAMS:-16}
DB_SIZE=$(to_bytes "${DB_SIZE:-1GiB}")
is_count "$ROUNDS" rounds
is_count "$SECS" seconds
is_count "$STREAMS" STREAMS
need_diskproof
need_fio

NCPU=$(nproc)
W=$((NCPU < STREAMS ? NCPU : STREAMS))
[ $((STREAMS % W)) = 0 ] || die "STREAMS=$STREAMS does not split evenly over $W workers"
SLICE=$((DB_SIZE / W))
[ $((SLICE % 32768)) = 0 ] || die "DB_SIZE / $W workers is not a whole number of 32 KiB blocks"

bench_workdir "$DIR" verify_cost
trap 'rm -rf "$WORK"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
RES=$WORK/results.db
VOL=$WORK/dp
FV=$WORK/fio
mkdir -p "$FV"
FILES=$FV/a.dat:$FV/b.dat

profile() { # VERIFY
	fixed_profile "$WORK/p-$1.ini" "$SECS" "$DB_SIZE" 100 "$1" "$STREAMS" "$W" "$VOL" 2
	echo "$WORK/p-$1.ini"
}

"$DISKPROOF" init "$(profile off)" --results "$RES" >"$WORK/init.out" 2>&1 ||
	die "diskproof init failed: $(cat "$WORK/init.out")"
"$FIO" --name=prep --filename="$FILES" --size=$((2 * DB_SIZE)) --bs=32k --rw=write \
	--direct=1 --ioengine=io_uring --iodepth=16 --verify=crc32c --do_verify=0 --verify_state_save=0 \
	--output="$WORK/prep.out" || die "fio could not write its files: $(tail -5 "$WORK/prep.out")"
sync

run_dp() { # VERIFY
	local id
	"$PROCRUN" --out "$WORK/pr.json" --log "$WORK/dp.out" -- \
		"$DISKPROOF" run "$(profile "$1")" --results "$RES" --quiet
	case "$(json "$WORK/pr.json" 'j["rc"]')" in
	0 | 1) ;;
	*) die "diskproof run (verify $1) failed: $(tail -5 "$WORK/dp.out")" ;;
	esac
	id=$(last_run "$RES")
	IOS=$(summary_sql "$RES" "$id" "sum(ios)" "'db_read'")
	IOPS=$(summary_sql "$RES" "$id" "sum(iops)" "'db_read'")
	RAVG=$(summary_sql "$RES" "$id" "avg_ms" "'db_read'")
	RP99=$(summary_sql "$RES" "$id" "p99_ms" "'db_read'")
	[ "$(summary_sql "$RES" "$id" "sum(errors)" "'db_read'")" = 0 ] ||
		die "diskproof reported read errors (verify $1)"
	CPU=$(calc "$(json "$WORK/pr.json" 'j["user_s"] + j["sys_s"]') / $IOS * 1e6")
}

run_fio() { # VERIFY
	local v=""
	[ "$1" = off ] || v=--verify=crc32c
	# shellcheck disable=SC2086
	"$PROCRUN" --out "$WORK/pr.json" --log "$WORK/fio.out" -- \
		"$FIO" --name=vc --filename="$FILES" --direct=1 --ioengine=io_uring \
		--thread --numjobs="$W" --iodepth=$((STREAMS / W)) --bs=32k --rw=randread \
		--norandommap --size=$((2 * SLICE)) --offset_increment="$SLICE" $v --verify_state_save=0 \
		--lat_percentiles=1 --group_reporting --output-format=json \
		--output="$WORK/fio.json"
	[ "$(json "$WORK/pr.json" 'j["rc"]')" = 0 ] || die "fio (verify $1) failed: $(tail -5 "$WORK/fio.out")"
	local j='j["jobs"][0]["read"]'
	IOS=$(json "$WORK/fio.json" "${j}[\"total_ios\"]")
	IOPS=$(json "$WORK/fio.json" "round(${j}[\"iops\"], 1)")
	RAVG=$(json "$WORK/fio.json" "${j}[\"lat_ns\"][\"mean\"] / 1e6")
	RP99=$(json "$WORK/fio.json" "${j}[\"lat_ns\"].get(\"percentile\", {}).get(\"99.000000\", 0) / 1e6")
	CPU=$(calc "$(json "$WORK/pr.json" 'j["user_s"] + j["sys_s"]') / $IOS * 1e6")
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else printf "-" }'; }

echo "diskproof: $("$DISKPROOF" --version) ($DISKPROOF)"
echo "fio:       $("$FIO" --version)"
echo "in flight: $STREAMS = $W workers (fio jobs) x $((STREAMS / W)); 32 KiB random reads; diskproof ${SECS} s per run; fio every block of its slices once; $ROUNDS rounds"
echo "cpu:       $NCPU CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "files:     diskproof 2 x $((DB_SIZE >> 20)) MiB in $VOL, fio 2 x $((DB_SIZE >> 20)) MiB in $FV"
echo
printf '%-3s %-8s %9s %8s %8s %9s\n' rnd side IOPS "rd avg" "rd p99" "CPU us/IO"

declare -A R X # R[key] = space-separated per-round ratios; X[tool,verify,metric]
add() { R[$1]="${R[$1]:-} $2"; }
SIDES=("dp off" "fio off" "dp on" "fio on")
for r in $(seq 1 "$ROUNDS"); do
	for i in 0 1 2 3; do
		side=${SIDES[$(((i + r - 1) % 4))]}
		tool=${side% *} v=${side#* }
		"run_$tool" "$v"
		printf '%-3s %-8s %9.1f %8.3f %8.3f %9.2f\n' "$r" "$side" "$IOPS" "$RAVG" "$RP99" "$CPU"
		X[$tool,$v,iops]=$IOPS X[$tool,$v,ravg]=$RAVG X[$tool,$v,rp99]=$RP99 X[$tool,$v,cpu]=$CPU
	done
	for m in iops ravg rp99 cpu; do
		for tool in dp fio; do
			add "$tool,$m" "$(ratio "${X[$tool,on,$m]}" "${X[$tool,off,$m]}")"
		done
		for v in off on; do
			add "x$v,$m" "$(ratio "${X[dp,$v,$m]}" "${X[fio,$v,$m]}")"
		done
	done
done

# shellcheck disable=SC2086 # the per-round ratios are separate arguments
{
	echo
	echo "verify on / verify off, each tool against itself: median [min..max] of $ROUNDS rounds"
	printf '%-10s %-24s %-24s %-24s %-24s\n' tool IOPS "rd avg" "rd p99" "CPU per I/O"
	for tool in dp fio; do
		printf '%-10s %-24s %-24s %-24s %-24s\n' "$([ $tool = dp ] && echo diskproof || echo fio)" \
			"$(mstats ${R[$tool,iops]})" "$(mstats ${R[$tool,ravg]})" \
			"$(mstats ${R[$tool,rp99]})" "$(mstats ${R[$tool,cpu]})"
	done
	echo
	echo "diskproof / fio, both checking nothing and both checking every block"
	printf '%-10s %-24s %-24s %-24s %-24s\n' verify IOPS "rd avg" "rd p99" "CPU per I/O"
	for v in off on; do
		printf '%-10s %-24s %-24s %-24s %-24s\n' "$v" "$(mstats ${R[x$v,iops]})" \
			"$(mstats ${R[x$v,ravg]})" "$(mstats ${R[x$v,rp99]})" "$(mstats ${R[x$v,cpu]})"
	done
}
