#!/bin/bash
# SPDX-License-Identifier: MIT
# devcpu.sh - what a busy CPU does to a loop device's service time, under the
# harnesses' two layouts: the device's kernel work sharing the measured CPU
# (the layout before 2026-12-07: the measured side on the last CPU, which on
# these machines takes the backing disk's interrupts, the loop devices'
# workers on every CPU), and on
# CPUs of its own (fid_pin in lib.sh, what pgbench.sh and mariadb.sh do
# now). fio, pinned to the measured CPU, runs 8 KiB random reads (2 jobs,
# 2,000/s each) and then 16 KiB random writes each followed by fdatasync
# (800/s) on a loop device (direct I/O on a file in DIR), with nothing else
# on that CPU, with one CPU hog under SCHED_IDLE (it yields at once) and with
# four ordinary ones; printed: the kernel's await per request
# (/proc/diskstats), what the fidelity harnesses' queue depths are made of.
# A measurement for docs/fidelity.md, not a test (no exit status but
# errors).
#
# usage: tests/fidelity/devcpu.sh [-n REPS] [DIR]            (root: losetup)
#   DIR       scratch directory (default ./bench-data); DIR/devcpu holds a
#             2 GiB file, removed at the end
#   -n REPS   each case this many times (default 2), alternating
set -u
source "$(dirname "$0")/../bench/lib.sh" # die, note, need_fio, bench_workdir
source "$(dirname "$0")/lib.sh"          # fid_pin, fid_unpin
FIO=${FIO:-fio}
REPS=2
while [ $# -gt 0 ]; do
	case $1 in
	-n) REPS=${2:?-n needs a number}; shift ;;
	-h | --help) sed -n '3,/^set -u/p' "$0" | sed '$d' | cut -c3-; exit 0 ;;
	-*) die "unknown option $1 (see --help)" ;;
	*) break ;;
	esac
	shift
done
is_count "$REPS" "-n"
[ "$(id -u)" = 0 ] || die "needs root (losetup, the workqueues' CPUs)"
[ "$(nproc)" -ge 2 ] || die "needs 2 CPUs or more"
command -v stress-ng >/dev/null || apt_install stress-ng || die "no stress-ng"
need_fio
bench_workdir "${1:-./bench-data}" devcpu
LD="" HOG=""
cleanup() {
	[ -z "$HOG" ] || kill "$HOG" 2>/dev/null
	fid_unpin
	[ -z "$LD" ] || losetup -d "$LD" 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

truncate -s 2G "$WORK/d.img"
dd if=/dev/urandom of="$WORK/d.img" bs=1M count=1024 conv=notrunc status=none || die "cannot fill $WORK/d.img"
LD=$(losetup --find --show --direct-io=on "$WORK/d.img") || die "losetup failed"
DEV=${LD#/dev/}

# the layout now (fid_pin) gives the measured CPU and the disk's interrupts
PIN=1
fid_pin "$WORK"
fid_unpin
NOW_CPU=$PIN_CPU
BEFORE_CPU=$(python3 -c 'import os; print(max(os.sched_getaffinity(0)))')
echo "the backing disk's interrupts $PIN_IRQ; measured CPU now $NOW_CPU, before $BEFORE_CPU (the last)"

# diskstats: reads, read ms, writes, write ms of the loop device
ds() { awk -v d="$DEV" '$3 == d { print $4, $7, $8, $11 }' /proc/diskstats; }

# one LAYOUT LOAD: the two fio jobs, the awaits printed
one() {
	local cpu=$NOW_CPU a b c
	if [ "$1" = before ]; then
		cpu=$BEFORE_CPU
	else
		PIN=1
		fid_pin "$WORK"
		cpu=$PIN_CPU
	fi
	case $2 in
	idle) taskset -c "$cpu" chrt -i 0 stress-ng --cpu 1 --quiet & HOG=$! ;;
	cfs4) taskset -c "$cpu" stress-ng --cpu 4 --quiet & HOG=$! ;;
	esac
	sleep 1
	a=$(ds)
	taskset -c "$cpu" "$FIO" --name=r --filename="$LD" --direct=1 --rw=randread --bs=8k --size=1G \
		--rate_iops=2000 --numjobs=2 --time_based --runtime=8 --ioengine=psync >/dev/null || die "fio failed"
	b=$(ds)
	taskset -c "$cpu" "$FIO" --name=w --filename="$LD" --direct=1 --rw=randwrite --bs=16k --size=1G \
		--rate_iops=800 --fdatasync=1 --time_based --runtime=8 --ioengine=psync >/dev/null || die "fio failed"
	c=$(ds)
	[ -z "$HOG" ] || { kill "$HOG"; wait "$HOG" 2>/dev/null; HOG=""; }
	fid_unpin
	awk -v l="$1" -v h="$2" -v cpu="$cpu" -v a="$a" -v b="$b" -v c="$c" 'BEGIN {
		split(a, A); split(b, B); split(c, C)
		r = B[1] - A[1]; w = C[3] - B[3]
		printf "| %s (CPU %s) | %s | %.3f | %d | %.3f | %d |\n", l, cpu, h,
			r ? (B[2] - A[2]) / r : 0, r, w ? (C[4] - B[4]) / w : 0, w }'
}

echo "| layout (measured CPU) | on the measured CPU | read await ms | reads | write await ms | writes |"
echo "|---|---|---:|---:|---:|---:|"
for ((i = 0; i < REPS; i++)); do
	for load in none idle cfs4; do
		one before "$load"
		one now "$load"
	done
done
