#!/bin/bash
# SPDX-License-Identifier: MIT
# init_vs_fio.sh - how fast "diskproof init" lays out files, next to fio
# writing the same bytes to the same directories with an equivalent job.
#
# usage: tests/bench/init_vs_fio.sh [DIR [SIZE [ROUNDS]]]
#   DIR     where to write (default ./bench-data); DIR/vol1 and DIR/vol2 must
#           not exist: they are created and removed by this script
#   SIZE    total bytes per side and round (default 4GiB; 512MiB, 10G, ...)
#   ROUNDS  rounds (default 3); each runs both sides, in alternating order
# env: DISKPROOF (default build/diskproof under the repository root; use a
#      Release build), FIO (default fio).
#
# diskproof side: "init quick --data-dir DIR --db-size S": 4 databases of S
# on 2 volumes plus a 16 MiB log each, S chosen so the total is about SIZE.
# It writes 1 MiB O_DIRECT writes through io_uring, 4 in flight per volume,
# and fdatasyncs each file when it is complete.
# fio side: one job per volume directory writing the same bytes as 2 files,
# one after the other: rw=write bs=1M direct=1 ioengine=io_uring iodepth=4
# end_fsync=1.
# Each side is timed from outside (date +%s%N, process start to exit) and
# bytes are the sum of the file sizes; each tool's own figure is shown too.
# The ratio is diskproof/fio on the outside timings; the median over rounds
# is the result.
set -eu
source "$(dirname "$0")/lib.sh"

DIR=${1:-./bench-data}
SIZE=$(to_bytes "${2:-4GiB}")
ROUNDS=${3:-3}
MIB=$((1 << 20))
LOG=$((16 * MIB)) # the quick profile's log_size

is_count "$ROUNDS" rounds
need_diskproof
need_fio

# 4 databases, whole MiB each (a multiple of every page size)
DB=$(((SIZE - 4 * LOG) / 4 / MIB * MIB))
[ "$DB" -ge "$MIB" ] || die "size $SIZE: too small (at least 68 MiB)"
PER_FILE=$((DB + LOG))      # fio: each of its files is one database and its log
PER_VOL=$((2 * PER_FILE))   # 2 databases per volume

[ -d "$DIR" ] && MADE_DIR=false || MADE_DIR=true
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
for v in vol1 vol2; do
	[ ! -e "$DIR/$v" ] || die "$DIR/$v exists: this script writes and removes it; pick another DIR"
done
TMP=$(mktemp -d "$DIR/.bench.XXXXXX")
cleanup() {
	rm -rf "$DIR/vol1" "$DIR/vol2" "$TMP"
	if $MADE_DIR; then
		rmdir "$DIR" 2>/dev/null || true
	fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

now_ns() { date +%s%N; }

# bytes of every file under the volume directories (%.0f: mawk's %d stops at 2^31)
written() {
	find "$DIR/vol1" "$DIR/vol2" -type f -printf '%s\n' | awk '{ s += $1 } END { printf "%.0f\n", s }'
}

# MB/s (10^6 bytes per second) from bytes and nanoseconds (comparisons in
# parentheses: in awk, printf x > y writes to a file named y)
mbps() {
	awk -v b="$1" -v ns="$2" 'BEGIN { printf "%.0f", (ns > 0) ? b / (ns / 1e9) / 1e6 : 0 }'
}

# Each run_* sets BYTES, WALL (MB/s from outside) and OWN (MB/s it reports).
run_diskproof() {
	local t0 t1
	t0=$(now_ns)
	"$DISKPROOF" init quick --data-dir "$DIR" --db-size "$DB" >"$TMP/dp.out" 2>"$TMP/dp.err" ||
		die "diskproof init failed: $(cat "$TMP/dp.err" "$TMP/dp.out")"
	t1=$(now_ns)
	BYTES=$(written)
	WALL=$(mbps "$BYTES" $((t1 - t0)))
	OWN=$(sed -n 's/.*(\([0-9.]*\) MB\/s).*/\1/p' "$TMP/dp.out")
	[ -n "$OWN" ] || die "no MB/s in diskproof's output: $(cat "$TMP/dp.out")"
}

run_fio() {
	local t0 t1
	mkdir -p "$DIR/vol1" "$DIR/vol2"
	t0=$(now_ns)
	"$FIO" --output-format=json --output="$TMP/fio.json" --group_reporting \
		--ioengine=io_uring --direct=1 --rw=write --bs=1M --iodepth=4 --end_fsync=1 \
		--nrfiles=2 --filesize="$PER_FILE" --file_service_type=sequential \
		--size="$PER_VOL" \
		--name=vol1 --directory="$DIR/vol1" \
		--name=vol2 --directory="$DIR/vol2" >/dev/null 2>"$TMP/fio.err" ||
		die "fio failed: $(cat "$TMP/fio.err")"
	t1=$(now_ns)
	BYTES=$(written)
	WALL=$(mbps "$BYTES" $((t1 - t0)))
	OWN=$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))["jobs"][0]["write"]; print("%.0f" % (j["bw_bytes"] / 1e6))' "$TMP/fio.json")
}

# median of the arguments
median() {
	printf '%s\n' "$@" | sort -n |
		awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

remove_files() {
	rm -rf "$DIR/vol1" "$DIR/vol2"
	sync
}

echo "diskproof: $("$DISKPROOF" --version) ($DISKPROOF)"
echo "fio:       $("$FIO" --version)"
echo "directory: $DIR; per side and round: 4 x $((DB / MIB)) MiB databases + 4 x 16 MiB logs" \
	"= $(((4 * DB + 4 * LOG) / MIB)) MiB"
echo
printf '%-6s %-15s %16s %16s %12s %12s\n' round first "diskproof MB/s" "fio MB/s" \
	"ratio(wall)" "ratio(own)"
printf '%-6s %-15s %16s %16s %12s %12s\n' "" "" "wall / own" "wall / own" "" ""

RATIOS=()
ORATIOS=()
for r in $(seq 1 "$ROUNDS"); do
	remove_files
	if [ $((r % 2)) = 1 ]; then
		run_diskproof; DPB=$BYTES DPW=$WALL DPO=$OWN; remove_files
		run_fio; FB=$BYTES FW=$WALL FO=$OWN; remove_files
		first=diskproof
	else
		run_fio; FB=$BYTES FW=$WALL FO=$OWN; remove_files
		run_diskproof; DPB=$BYTES DPW=$WALL DPO=$OWN; remove_files
		first=fio
	fi
	[ "$DPB" -ge $((FB - MIB)) ] && [ "$DPB" -le $((FB + MIB)) ] ||
		echo "warning: round $r: diskproof wrote $DPB bytes, fio $FB" >&2
	ratio=$(awk -v a="$DPW" -v b="$FW" 'BEGIN { printf "%.3f", (b > 0) ? a / b : 0 }')
	oratio=$(awk -v a="$DPO" -v b="$FO" 'BEGIN { printf "%.3f", (b > 0) ? a / b : 0 }')
	RATIOS+=("$ratio")
	ORATIOS+=("$oratio")
	printf '%-6s %-15s %16s %16s %12s %12s\n' "$r" "$first" "$DPW / $DPO" "$FW / $FO" \
		"$ratio" "$oratio"
done

echo
echo "median ratio diskproof/fio, wall clock:     $(median "${RATIOS[@]}") (target >= 0.90)"
echo "median ratio diskproof/fio, own figures:    $(median "${ORATIOS[@]}")"
