#!/bin/bash
# SPDX-License-Identifier: MIT
# parity_vs_fio.sh - device parity: diskproof's fixed model against fio on the
# very same files, same block size, same I/Os in flight, run alternately.
#
# usage: tests/bench/parity_vs_fio.sh [DIR [ROUNDS [SECONDS]]]
#        tests/bench/parity_vs_fio.sh best [DIR [ROUNDS [SECONDS]]] | best-done
#        (4 KiB random reads against fio tuned for speed: parity_best.sh)
#   DIR      scratch directory (default ./bench-data); DIR/parity must not
#            exist: it is created and removed by this script
#   ROUNDS   rounds per mix (default 5)
#   SECONDS  length of every run (default 5: short runs, closely interleaved,
#            because this shared disk's speed drifts by +-30 % within a minute)
# env: DISKPROOF (default build/diskproof; use a Release build), FIO (fio),
#      STREAMS (I/Os in flight, default 16), DBS (files, default 2),
#      DB_SIZE (each, default 1GiB), MIXES (read percentages, default "100 70"),
#      FIO_EXTRA (more fio options, e.g. "--fixedbufs --registerfiles", which
#      diskproof's io_uring engine does on its side; default none)
#
# Files: "diskproof init" lays out DBS databases of DB_SIZE in DIR/parity/vol1;
# fio reads and writes those .edb files themselves (--filename a.edb:b.edb).
# diskproof: [workload] model = fixed, block_size = 32KiB, read_pct, random;
# [engine] io_uring, direct, streams = STREAMS, workers = W (one per CPU, at
# most STREAMS: what diskproof picks by default, written out so that it cannot
# drift); verify = off and verify = on are two separate runs.
# Each diskproof worker drives its own 1/W of every file with STREAMS/W I/Os
# in flight spread over the files; fio gets the same shape: numjobs = W
# (--thread), iodepth = STREAMS/W, each job its 1/W slice of every file
# (--size = DBS x DB_SIZE/W, --offset_increment = DB_SIZE/W), --bs=32k
# --direct=1 --ioengine=io_uring --norandommap --time_based, --rw=randread or
# --rw=randrw --rwmixread=PCT, --lat_percentiles=1.
# Every round runs fio, diskproof verify off and diskproof verify on, in an
# order that rotates from round to round. fio's writes leave pages diskproof
# would rightly call corrupt (and refuses to drive), so after fio has written,
# the files are made again (rm, diskproof init) before the next diskproof run.
#
# Figures per run: IOPS (diskproof: summary of the run; fio: read + write
# iops), mean and p99 latency per direction (diskproof: submit to reap; fio:
# "lat", submission to completion, with its own percentiles), and CPU seconds
# per I/O = (user + sys of the whole process, from wait4 at its exit) / I/Os
# completed. Ratios are diskproof/fio within the same round; the script prints
# each round and then the median [min..max] of the rounds' ratios.
set -eu
# best, best-done: against fio tuned for speed (issue 33), parity_best.sh
case "${1:-}" in best | best-done) exec "$(dirname "$0")/parity_best.sh" "$@" ;; esac
source "$(dirname "$0")/lib.sh"

DIR=${1:-./bench-data}
ROUNDS=${2:-5}
SECS=${3:-5}
STREAMS=${STREAMS:-16}
DBS=${DBS:-2}
DB_SIZE=$(to_bytes "${DB_SIZE:-1GiB}")
MIXES=${MIXES:-100 70}
is_count "$ROUNDS" rounds
is_count "$SECS" seconds
is_count "$STREAMS" STREAMS
is_count "$DBS" DBS
need_diskproof
need_fio

NCPU=$(nproc)
W=$((NCPU < STREAMS ? NCPU : STREAMS))
[ $((STREAMS % W)) = 0 ] || die "STREAMS=$STREAMS does not split evenly over $W workers"
[ $((STREAMS % (W * DBS))) = 0 ] ||
	note "warning: $STREAMS streams over $W workers x $DBS files is uneven; fio's jobs spread theirs evenly"
SLICE=$((DB_SIZE / W))
[ $((SLICE % 32768)) = 0 ] || die "DB_SIZE / $W workers is not a whole number of 32 KiB blocks"

bench_workdir "$DIR" parity
cleanup() { rm -rf "$WORK"; }
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
RES=$WORK/results.db
VOL=$WORK/vol1

# profile MIX VERIFY: the fixed-model profile for one mix and verify setting
profile() {
	fixed_profile "$WORK/p-$1-$2.ini" "$SECS" "$DB_SIZE" "$1" "$2" "$STREAMS" "$W" "$VOL" "$DBS"
	echo "$WORK/p-$1-$2.ini"
}

make_files() {
	rm -rf "$VOL"
	"$DISKPROOF" init "$(profile 100 off)" --results "$RES" >"$WORK/init.out" 2>&1 ||
		die "diskproof init failed: $(cat "$WORK/init.out")"
	sync
}

FILES=""
for i in $(seq 1 "$DBS"); do
	FILES="$FILES${FILES:+:}$VOL/db$i.edb"
done

# Each run_* sets IOPS, IOS, RAVG RP99 WAVG WP99 (ms; 0 when no such I/O), CPU
# (s per million I/Os) and SEC (user+sys).
run_dp() { # MIX VERIFY
	local p id
	p=$(profile "$1" "$2")
	"$PROCRUN" --out "$WORK/pr.json" --log "$WORK/dp.out" -- \
		"$DISKPROOF" run "$p" --results "$RES" --quiet
	# 0 passed, 1 a verdict failed (a slow maximum on a shared disk): both measured
	case "$(json "$WORK/pr.json" 'j["rc"]')" in
	0 | 1) ;;
	*) die "diskproof run ($1 % reads, verify $2) failed: $(tail -5 "$WORK/dp.out")" ;;
	esac
	id=$(last_run "$RES")
	WF=$(env_fact "$RES" "$id" workers)
	case "$WF" in "$W "*) ;; *) die "diskproof used workers \"$WF\", expected $W" ;; esac
	IOS=$(summary_sql "$RES" "$id" "sum(ios)" "'db_read','db_write'")
	IOPS=$(summary_sql "$RES" "$id" "sum(iops)" "'db_read','db_write'")
	RAVG=$(summary_sql "$RES" "$id" "avg_ms" "'db_read'")
	RP99=$(summary_sql "$RES" "$id" "p99_ms" "'db_read'")
	WAVG=$(summary_sql "$RES" "$id" "avg_ms" "'db_write'")
	WP99=$(summary_sql "$RES" "$id" "p99_ms" "'db_write'")
	SEC=$(json "$WORK/pr.json" 'j["user_s"] + j["sys_s"]')
	CPU=$(calc "$SEC / $IOS * 1e6")
}

run_fio() { # MIX
	local rw=randread
	[ "$1" = 100 ] || rw="randrw --rwmixread=$1"
	# shellcheck disable=SC2086
	"$PROCRUN" --out "$WORK/pr.json" --log "$WORK/fio.out" -- \
		"$FIO" --name=parity --filename="$FILES" --direct=1 --ioengine=io_uring \
		--thread --numjobs="$W" --iodepth=$((STREAMS / W)) --bs=32k --rw=$rw \
		--norandommap --time_based --runtime="$SECS" \
		--size=$((DBS * SLICE)) --offset_increment="$SLICE" \
		--lat_percentiles=1 --group_reporting ${FIO_EXTRA:-} \
		--output-format=json --output="$WORK/fio.json"
	[ "$(json "$WORK/pr.json" 'j["rc"]')" = 0 ] || die "fio failed: $(tail -5 "$WORK/fio.out")"
	local j='j["jobs"][0]'
	IOS=$(json "$WORK/fio.json" "${j}[\"read\"][\"total_ios\"] + ${j}[\"write\"][\"total_ios\"]")
	IOPS=$(json "$WORK/fio.json" "round(${j}[\"read\"][\"iops\"] + ${j}[\"write\"][\"iops\"], 1)")
	RAVG=$(json "$WORK/fio.json" "${j}[\"read\"][\"lat_ns\"][\"mean\"] / 1e6")
	RP99=$(json "$WORK/fio.json" "${j}[\"read\"][\"lat_ns\"].get(\"percentile\", {}).get(\"99.000000\", 0) / 1e6")
	WAVG=$(json "$WORK/fio.json" "${j}[\"write\"][\"lat_ns\"][\"mean\"] / 1e6")
	WP99=$(json "$WORK/fio.json" "${j}[\"write\"][\"lat_ns\"].get(\"percentile\", {}).get(\"99.000000\", 0) / 1e6")
	SEC=$(json "$WORK/pr.json" 'j["user_s"] + j["sys_s"]')
	CPU=$(calc "$SEC / $IOS * 1e6")
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else printf "-" }'; }

echo "diskproof: $("$DISKPROOF" --version) ($DISKPROOF)"
echo "fio:       $("$FIO" --version)"
echo "in flight: $STREAMS = diskproof $W workers x $((STREAMS / W)) streams" \
	"= fio numjobs=$W x iodepth=$((STREAMS / W)); 32 KiB random; ${SECS} s per run, $ROUNDS rounds"
[ -z "${FIO_EXTRA:-}" ] || echo "fio extra: $FIO_EXTRA"
echo "cpu:       $NCPU CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
make_files
echo "files:     $DBS x $((DB_SIZE >> 20)) MiB in $VOL (on $(df -P "$VOL" | awk 'NR == 2 { print $1 }'))"

declare -A R # R[mix,verify,metric] = space-separated per-round ratios
add() { R[$1]="${R[$1]:-} $2"; }

for mix in $MIXES; do
	echo
	echo "== ${mix} % reads, $((100 - mix)) % writes =="
	printf '%-3s %-11s %9s %8s %8s %8s %8s %9s\n' rnd side IOPS "rd avg" "rd p99" "wr avg" "wr p99" "CPU us/IO"
	dirty=false
	for r in $(seq 1 "$ROUNDS"); do
		case $((r % 3)) in
		1) order="off fio on" ;;
		2) order="fio on off" ;;
		0) order="on off fio" ;;
		esac
		for side in $order; do
			case $side in
			fio)
				run_fio "$mix"
				[ "$mix" = 100 ] || dirty=true
				F=("$IOPS" "$RAVG" "$RP99" "$WAVG" "$WP99" "$CPU")
				;;
			*)
				# diskproof checks a file's pages before it drives it, verify
				# on or off: fio's writes made them foreign
				if $dirty; then
					make_files
					dirty=false
				fi
				run_dp "$mix" "$side"
				eval "D_$side=(\"\$IOPS\" \"\$RAVG\" \"\$RP99\" \"\$WAVG\" \"\$WP99\" \"\$CPU\")"
				;;
			esac
			printf '%-3s %-11s %9.1f %8.3f %8.3f %8.3f %8.3f %9.2f\n' "$r" \
				"$([ "$side" = fio ] && echo fio || echo "dp verify $side")" \
				"$IOPS" "$RAVG" "$RP99" "$WAVG" "$WP99" "$CPU"
		done
		for v in off on; do
			# shellcheck disable=SC1087
			eval "D=(\"\${D_$v[@]}\")"
			add "$mix,$v,iops" "$(ratio "${D[0]}" "${F[0]}")"
			add "$mix,$v,ravg" "$(ratio "${D[1]}" "${F[1]}")"
			add "$mix,$v,rp99" "$(ratio "${D[2]}" "${F[2]}")"
			if [ "$mix" != 100 ]; then
				add "$mix,$v,wavg" "$(ratio "${D[3]}" "${F[3]}")"
				add "$mix,$v,wp99" "$(ratio "${D[4]}" "${F[4]}")"
			fi
			add "$mix,$v,cpu" "$(ratio "${D[5]}" "${F[5]}")"
		done
	done
done

echo
echo "ratios diskproof/fio, median [min..max] over $ROUNDS rounds (targets: IOPS >= 0.97," \
	"latency 0.95..1.05, CPU/IO <= 1.00 verify off, <= 1.30 verify on)"
printf '%-8s %-7s %-22s %-22s %-22s %-22s %-22s %-22s\n' mix verify IOPS "read avg" "read p99" \
	"write avg" "write p99" "CPU s/IO"
for mix in $MIXES; do
	for v in off on; do
		line=""
		for m in iops ravg rp99 wavg wp99 cpu; do
			if [ -n "${R[$mix,$v,$m]:-}" ]; then
				# shellcheck disable=SC2046,SC2086
				set -- $(mstats ${R[$mix,$v,$m]})
				line="$line$(printf '%-22s ' "$1 [$2..$3]")"
			else
				line="$line$(printf '%-22s ' -)"
			fi
		done
		printf '%-8s %-7s %s\n' "$mix/$((100 - mix))" "$v" "$line"
	done
done
