#!/bin/bash
# SPDX-License-Identifier: MIT
# cpu_ab.sh - CPU per I/O of two diskproof builds, side by side, alternating:
# where the time goes (diskproof's own code, liburing, the kernel), not only
# how much of it.
#
#   tests/bench/cpu_ab.sh BEFORE AFTER [ROUNDS [SECONDS]]
#
# BEFORE and AFTER are two diskproof binaries (Release builds). Each round runs
# a fixed-model 100/0 run (verify on; VERIFY=off for the other) of SECONDS
# (default 10) with each binary, BEFORE first, under `perf record -e
# cpu-clock` (a software clock: it works in virtual machines without a PMU),
# on two 256 MiB databases in an ext4 filesystem on a loop device over a tmpfs
# file: no disk in the figures, only the CPU that drives it. Printed per run:
# the I/Os done and perf's samples per million I/Os by where they fell
# (diskproof, liburing, kernel, total); then, per binary, the medians, and
# diskproof's own symbols (samples per million I/Os, summed over the rounds).
# One sample is 1/2000 s of one CPU, so 2,000 samples per million I/Os are
# 1 µs of CPU per I/O.
#
# Needs root (a loop device), perf (apt-get install linux-perf) and sqlite3.
set -eu
# shellcheck source=tests/bench/lib.sh
source "$(dirname "$0")/lib.sh"

[ $# -ge 2 ] || die "usage: $BENCH BEFORE AFTER [ROUNDS [SECONDS]]"
BEFORE=$1
AFTER=$2
ROUNDS=${3:-3}
SECS=${4:-10}
VERIFY=${VERIFY:-on}
is_count "$ROUNDS" rounds
is_count "$SECS" seconds
for b in "$BEFORE" "$AFTER"; do [ -x "$b" ] || die "$b: not an executable"; done
[ "$(id -u)" = 0 ] || die "needs root (a loop device over a tmpfs file)"
command -v perf >/dev/null || apt_install linux-perf
command -v sqlite3 >/dev/null || die "sqlite3 is needed to read the results file"

SHM=$(mktemp -d /dev/shm/cpu_ab.XXXXXX)
MNT=$(mktemp -d)
DEV=""
cleanup() {
	umount "$MNT" 2>/dev/null || true
	[ -z "$DEV" ] || losetup -d "$DEV" 2>/dev/null || true
	rm -rf "$SHM" "$MNT"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
truncate -s 1200M "$SHM/img"
DEV=$(losetup -f --show "$SHM/img")
mkfs.ext4 -q "$DEV"
mount "$DEV" "$MNT"
WORK=$MNT/w
mkdir -p "$WORK"
RES=$WORK/results.db
P=$WORK/p.ini
fixed_profile "$P" "$SECS" $((256 * 1024 * 1024)) 100 "$VERIFY" 16 2 "$WORK/vol1" 2
"$BEFORE" init "$P" --results "$RES" >"$WORK/init.out" 2>&1 ||
	die "init failed: $(cat "$WORK/init.out")"

# one_run SIDE BINARY: a run under perf; prints "SIDE ios user uring kernel total"
one_run() {
	local id ios
	perf record -q -e cpu-clock -F 2000 -o "$WORK/perf.data" -- \
		"$2" run "$P" --results "$RES" --quiet >"$WORK/run.out" 2>&1 || true
	id=$(last_run "$RES")
	ios=$(summary_sql "$RES" "$id" "sum(ios)" "'db_read','db_write'")
	if [ -z "$ios" ] || [ "$ios" -le 0 ]; then
		die "$2: no I/O stored: $(tail -3 "$WORK/run.out")"
	fi
	perf report -i "$WORK/perf.data" --no-children --sort dso -n --stdio 2>/dev/null |
		awk -v s="$1" -v io="$ios" '/^#/ || NF < 3 { next }
			{ n = $2; t += n }
			$3 == "diskproof" { u += n } $3 ~ /^liburing/ { r += n }
			$3 == "[kernel.kallsyms]" { k += n }
			END { printf "%s %d %.0f %.0f %.0f %.0f\n", s, io, u * 1e6 / io,
				r * 1e6 / io, k * 1e6 / io, t * 1e6 / io }'
	perf report -i "$WORK/perf.data" --no-children --dsos diskproof --sort sym -n \
		--stdio 2>/dev/null | awk -v s="$1" -v io="$ios" '/^#/ || NF < 4 { next }
			{ printf "sym %s %s %.1f\n", s, $4, $2 * 1e6 / io }' >>"$WORK/syms"
}

: >"$WORK/syms"
echo "side I/Os diskproof liburing kernel total (samples per million I/Os)"
for _ in $(seq 1 "$ROUNDS"); do
	one_run before "$BEFORE" | tee -a "$WORK/runs"
	one_run after "$AFTER" | tee -a "$WORK/runs"
done
echo "medians:"
for side in before after; do
	awk -v s="$side" '$1 == s' "$WORK/runs" | python3 -c '
import statistics, sys
rows = [l.split() for l in sys.stdin]
cols = ["diskproof", "liburing", "kernel", "total"]
print(sys.argv[1], " ".join("%s %.0f" % (c, statistics.median(float(r[2 + i]) for r in rows))
                            for i, c in enumerate(cols)))' "$side"
done
echo "diskproof's symbols, samples per million I/Os (mean over the rounds), before | after:"
awk -v n="$ROUNDS" '$1 == "sym" { v[$3 " " $2] += $4 / n; k[$3] = 1 }
	END { for (s in k) printf "%8.1f %8.1f %s\n", v[s " before"], v[s " after"], s }' \
	"$WORK/syms" | sort -k2 -rn | head -25
