#!/bin/bash
# SPDX-License-Identifier: MIT
# harness.sh - the harness ceiling: how many requests per second one core of
# diskproof's own machinery sustains when the device costs nothing, and how
# many 32 KiB pages per second one core verifies.
#
# usage: tests/bench/harness.sh [ROUNDS [VSECONDS]]
#   ROUNDS    rounds (default 3); each runs every case once, in rotating order
#   VSECONDS  virtual seconds per run (default 3: 48 million I/Os at 16 in
#             flight and 1 us each)
# env: DISKPROOF (default build/diskproof; use a Release build), STREAMS (16),
#      PAGE_BENCH (default: tests/page_bench in DISKPROOF's build directory)
#
# 1. The sim engine at its minimum latency: [sim] read_latency =
#    write_latency = log_write_latency = 1us, jitter 0, never saturating;
#    [workload] model = fixed, 32 KiB, random, 100 % reads and 70/30; verify
#    off and on. The sim run is one discrete-event loop on a virtual clock (one
#    worker thread; no clock reads, no syscalls per I/O): what it measures is
#    the generator (page pick, busy map), the request bookkeeping, the
#    histogram add, the generation map, header stamping of writes and header
#    checks of reads (sim moves no data: no payload, no CRC32C), the sim
#    device's heap, and the coordinator's per-interval merge and SQLite
#    writes. Figure: I/Os completed (every interval, summary) / CPU seconds
#    of the whole process (user + sys, wait4) = requests per CPU-second,
#    i.e. per core.
# 2. page_bench: verified 32 KiB page reads per second on one core
#    (page_verify with the CRC32C, what each real page read costs on top).
# Targets: >= 2,000,000 requests/s per core without verification; >= 400,000
# verified 32 KiB page reads/s per core.
set -eu
source "$(dirname "$0")/lib.sh"

ROUNDS=${1:-3}
VSECS=${2:-3}
STREAMS=${STREAMS:-16}
is_count "$ROUNDS" rounds
is_count "$VSECS" "virtual seconds"
need_diskproof
PAGE_BENCH=${PAGE_BENCH:-$(dirname "$DISKPROOF")/tests/page_bench}

WORK=$(mktemp -d "${TMPDIR:-/tmp}/harness.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
RES=$WORK/results.db

profile() { # READ_PCT VERIFY
	cat >"$WORK/p-$1-$2.ini" <<EOF
[test]
duration = ${VSECS}s
warmup = 0s
[sizing]
database_size = 1GiB
[workload]
model = fixed
block_size = 32KiB
read_pct = $1
pattern = random
verify = $2
[engine]
name = sim
streams = $STREAMS
[sim]
read_latency = 1us
write_latency = 1us
log_write_latency = 1us
jitter = 0
[volume sim]
path = $WORK/sim
databases = 2
EOF
	echo "$WORK/p-$1-$2.ini"
}

echo "diskproof: $("$DISKPROOF" --version) ($DISKPROOF)"
echo "host:      $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "sim:       $STREAMS in flight, 1 us per I/O, $VSECS virtual s per run = $((STREAMS * VSECS)) million I/Os"
echo
printf '%-3s %-14s %-7s %12s %8s %8s %8s %16s\n' rnd mix verify "I/Os" "wall s" "user s" "sys s" "I/Os per CPU-s"

CASES=("100 off" "100 on" "70 off" "70 on")
declare -A RATE
for r in $(seq 1 "$ROUNDS"); do
	n=${#CASES[@]}
	for k in $(seq 0 $((n - 1))); do
		c=${CASES[$(((k + r - 1) % n))]}
		set -- $c
		"$PROCRUN" --out "$WORK/pr.json" --log "$WORK/run.out" -- \
			"$DISKPROOF" run "$(profile "$1" "$2")" --results "$RES" --quiet
		case "$(json "$WORK/pr.json" 'j["rc"]')" in
		0 | 1) ;; # passed, or a verdict failed: measured either way
		*) die "diskproof run failed: $(tail -5 "$WORK/run.out")" ;;
		esac
		id=$(last_run "$RES")
		ios=$(sqlite3 "$RES" "select sum(ios) from sample where run_id = $id and scope = 'run'")
		read -r wall us ss < <(json "$WORK/pr.json" '"%.3f %.3f %.3f" % (j["wall_s"], j["user_s"], j["sys_s"])')
		rate=$(awk -v n="$ios" -v u="$us" -v s="$ss" 'BEGIN { printf "%.0f", n / (u + s) }')
		RATE[$1,$2]="${RATE[$1,$2]:-} $rate"
		printf '%-3s %-14s %-7s %12s %8s %8s %8s %16s\n' "$r" "$1/$((100 - $1))" "$2" "$ios" \
			"$wall" "$us" "$ss" "$rate"
	done
done

echo
echo "requests per CPU-second (one worker thread + coordinator), mean [min..max] over $ROUNDS rounds:"
for c in "${CASES[@]}"; do
	set -- $c
	# shellcheck disable=SC2046,SC2086
	set -- "$1" "$2" $(stats ${RATE[$1,$2]})
	printf '  %-6s reads, verify %-3s: %12.0f [%.0f..%.0f]\n' "$1%" "$2" "$3" "$4" "$5"
done
echo "  target: >= 2000000 without verification"

echo
if [ -x "$PAGE_BENCH" ]; then
	echo "page_bench (one core; $PAGE_BENCH 1):"
	"$PAGE_BENCH" 1 | sed 's/^/  /'
	echo "  target: >= 400 K verified 32 KiB page reads/s per core (the 32768 B line's pages/s)"
else
	echo "page_bench: $PAGE_BENCH not built (it is built with the tests: cmake --build BUILD --target page_bench)"
fi
