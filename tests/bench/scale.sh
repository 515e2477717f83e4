#!/bin/bash
# SPDX-License-Identifier: MIT
# scale.sh - 1,000 databases on 50 volumes, on real files: how long diskproof
# takes to start, how much memory it holds beyond its I/O buffers and
# generation maps, and how much of a core the coordinator needs per interval.
#
# usage: tests/bench/scale.sh [DIR [SECONDS [ROUNDS]]]
#   DIR      scratch directory (default ./bench-data); DIR/scale must not
#            exist: it is created and removed (about 5 GB is written)
#   SECONDS  measured length of each run (default 20)
#   ROUNDS   runs (default 2)
# env: DISKPROOF (default build/diskproof; use a Release build),
#      VOLUMES (50), DBS_PER_VOLUME (20), STREAMS (1000: one per database,
#      the fewest allowed, to spare a shared disk)
#
# Layout: VOLUMES x [volume vNN] with DBS_PER_VOLUME databases each, at
# DIR/scale/vNN; database_size = 4MiB (128 pages of 32 KiB), log_size = 1MiB
# in 16 segments of 64 KiB (the smallest segment is 32 KiB, a log at least two
# segments); the jetstress model with its defaults (flush_depth 4, copies 2,
# so replication reads) except maintenance at 64 KiB/s in 64 KiB reads (the
# default 1 MiB/s per database would be 1 GB/s over 1,000 databases); io_uring.
# The files are made once by "diskproof init" (not timed), then each run:
#   start-up: from launch (just before fork) to the first interval's live line
#     ("[0:01/...") on its output, minus the 1 s interval: the time to check
#     the 2,000 files, load 1,000 journals, set up workers, register files
#     and buffers and start measuring;
#   peak RSS: wait4's ru_maxrss (= VmHWM), minus
#     I/O buffers = per database: streams x page + flush_depth x page + log
#       write buffer (one segment, at most 1 MiB) + replication read buffer
#       (the same) + maintenance read (bdm_io_size), plus a spare page per
#       stream (verify on: a stream is re-issued into it while the page it
#       read is checked), every one allocated and zeroed at setup;
#     generation maps = pages x 9 bytes: expected generation (4), busy flags
#       (1) and the periodic journal's copy (4);
#   coordinator CPU: time on a CPU of the main thread (the coordinator:
#     merges, live view, SQLite), /proc/PID/task/PID/schedstat, sampled every
#     0.25 s, from the first interval's line to 2 s before the end, divided
#     by the intervals in between (1 s each): ms per interval = % of a core
#     x 10.
# Targets: start-up < 2 s; RSS - buffers - maps < 512 MiB; coordinator < 5 %
# of a core.
set -eu
source "$(dirname "$0")/lib.sh"

DIR=${1:-./bench-data}
SECS=${2:-20}
ROUNDS=${3:-2}
VOLUMES=${VOLUMES:-50}
DPV=${DBS_PER_VOLUME:-20}
STREAMS=${STREAMS:-$((VOLUMES * DPV))}
is_count "$SECS" seconds
is_count "$ROUNDS" rounds
is_count "$VOLUMES" VOLUMES
is_count "$DPV" DBS_PER_VOLUME
[ "$SECS" -ge 5 ] || die "seconds must be at least 5 (the coordinator is measured after the first and before the last 2)"
need_diskproof

NDB=$((VOLUMES * DPV))
PAGE=32768
DB_SIZE=$((4 << 20))
SEG=$((64 << 10))
BDM_IO=$((64 << 10))
FLUSH=4

bench_workdir "$DIR" scale
trap 'rm -rf "$WORK"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
RES=$WORK/results.db
P=$WORK/scale.ini

{
	cat <<EOF
[test]
duration = ${SECS}s
warmup = 0s
[sizing]
database_size = $((DB_SIZE >> 20))MiB
log_size = 1MiB
[workload]
log_segment_size = $((SEG >> 10))KiB
flush_depth = $FLUSH
bdm_rate = $((BDM_IO >> 10))KiB
bdm_io_size = $((BDM_IO >> 10))KiB
[engine]
name = io_uring
streams = $STREAMS
EOF
	for v in $(seq -w 1 "$VOLUMES"); do
		printf '[volume v%s]\npath = %s/v%s\ndatabases = %s\n' "$v" "$WORK" "$v" "$DPV"
	done
} >"$P"

echo "diskproof: $("$DISKPROOF" --version) ($DISKPROOF)"
echo "host:      $(nproc) CPUs, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "layout:    $NDB databases ($VOLUMES volumes x $DPV) of 4 MiB + 1 MiB log, $STREAMS streams, ${SECS} s per run"
t0=$(date +%s%N)
"$DISKPROOF" init "$P" --results "$RES" >"$WORK/init.out" 2>&1 ||
	die "diskproof init failed: $(tail -5 "$WORK/init.out")"
echo "init:      $(awk -v ns=$(($(date +%s%N) - t0)) 'BEGIN { printf "%.1f", ns / 1e9 }') s ($(grep -o 'wrote.*' "$WORK/init.out" | head -1))"
sync

# I/O buffers and generation maps, from the layout (bytes)
STREAMS_BUF=$((2 * STREAMS * PAGE)) # its page and its spare
PER_DB=$((FLUSH * PAGE + SEG + SEG + BDM_IO))
BUFFERS=$((STREAMS_BUF + NDB * PER_DB))
PAGES=$((NDB * DB_SIZE / PAGE))
MAPS=$((PAGES * 9))
mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }
echo "buffers:   $(mib $BUFFERS) MiB = $STREAMS streams x 2 x 32 KiB + $NDB x ($FLUSH x 32 KiB flush + 64 KiB log + 64 KiB replication + 64 KiB maintenance)"
echo "maps:      $(mib $MAPS) MiB = $PAGES pages x 9 B"
echo
printf '%-4s %10s %11s %11s %14s %14s %12s %10s\n' run "start-up s" "peak RSS" "- buf - map" "coord ms/intv" "coord % core" "process CPU" "exit"

SU=() RSS=() CO=()
for r in $(seq 1 "$ROUNDS"); do
	"$PROCRUN" --out "$WORK/pr.json" --log "$WORK/run.out" --match '^\[ *0:01/' -- \
		"$DISKPROOF" run "$P" --results "$RES"
	rc=$(json "$WORK/pr.json" 'j["rc"]')
	[ "$rc" -le 1 ] || die "diskproof run failed (exit $rc): $(tail -5 "$WORK/run.out")"
	m=$(json "$WORK/pr.json" 'j["match_s"]')
	[ "$m" != None ] || die "no first-interval line in the run's output: $(head -5 "$WORK/run.out")"
	su=$(calc "$m - 1.0")
	rss=$(json "$WORK/pr.json" 'j["maxrss_kib"] * 1024')
	net=$((rss - BUFFERS - MAPS))
	# coordinator: main thread CPU between the first interval and 2 s before the end
	co=$(python3 - "$WORK/pr.json" "$SECS" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
s = j["samples"]
a = j["match_s"]
b = a + float(sys.argv[2]) - 3.0
win = [x for x in s if a <= x[0] <= b]
if len(win) < 2:
    print("nan nan")
else:
    dt = win[-1][0] - win[0][0]
    dcpu = (win[-1][1] - win[0][1]) / 1e9
    print("%.2f %.2f" % (dcpu / dt * 1000.0, dcpu / dt * 100.0))
PY
)
	set -- $co
	cpu=$(json "$WORK/pr.json" '"%.2f s" % (j["user_s"] + j["sys_s"])')
	printf '%-4s %10s %9s MiB %7s MiB %14s %14s %12s %10s\n' "$r" "$su" "$(mib "$rss")" "$(mib $net)" \
		"$1" "$2" "$cpu" "$rc"
	SU+=("$su") RSS+=("$(mib $net)") CO+=("$2")
done
echo
# shellcheck disable=SC2046
set -- $(stats "${SU[@]}")
echo "start-up:                mean $1 s [$2..$3]      target < 2 s"
# shellcheck disable=SC2046
set -- $(stats "${RSS[@]}")
echo "RSS - buffers - maps:    mean $1 MiB [$2..$3]   target < 512 MiB"
# shellcheck disable=SC2046
set -- $(stats "${CO[@]}")
echo "coordinator:             mean $1 % of a core [$2..$3]   target < 5 %"
