# SPDX-License-Identifier: MIT
# shellcheck shell=bash disable=SC2034
# lib.sh - shared pieces of the benchmarks in tests/bench (sourced, not run).
#
# Sets REPO, DISKPROOF (env, default build/diskproof under the repository
# root; use a Release build), FIO (env, default fio), PROCRUN (procrun.py
# beside this file) and BENCH (the calling script's name, for messages).

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BENCH=$(basename "$0")
DISKPROOF=${DISKPROOF:-$REPO/build/diskproof}
FIO=${FIO:-fio}
PROCRUN=$REPO/tests/bench/procrun.py

die() {
	echo "$BENCH: $*" >&2
	exit 1
}

note() {
	echo "$BENCH: $*" >&2
}

# need_diskproof: the binary, python3 and sqlite3 are there
need_diskproof() {
	[ -x "$DISKPROOF" ] ||
		die "$DISKPROOF: not built (cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j2; or set DISKPROOF)"
	command -v python3 >/dev/null || die "python3 is needed (procrun.py, fio's JSON)"
	command -v sqlite3 >/dev/null || die "sqlite3 is needed to read the results file"
}

# apt_install PACKAGE...: as root, or through sudo; with no service started
# or left enabled at boot (postgresql's cluster, fio's server:
# tests/apt_install_no_services.sh)
apt_install() {
	if [ "$(id -u)" = 0 ]; then
		"$REPO/tests/apt_install_no_services.sh" "$@" >/dev/null
	else
		sudo "$REPO/tests/apt_install_no_services.sh" "$@" >/dev/null
	fi
}

# need_fio: fio, installed from the distribution when missing
need_fio() {
	if ! command -v "$FIO" >/dev/null; then
		note "installing fio"
		apt_install fio || die "cannot install fio (apt-get install -y fio)"
	fi
	command -v "$FIO" >/dev/null || die "$FIO: not found"
}

# bench_workdir DIR NAME: makes DIR (absolute from now on: sets DIR) and the
# scratch directory WORK=DIR/NAME, which must not exist yet (the caller removes
# it on exit)
bench_workdir() {
	mkdir -p "$1"
	DIR=$(cd "$1" && pwd)
	WORK=$DIR/$2
	[ ! -e "$WORK" ] || die "$WORK exists: this script writes and removes it; pick another DIR"
	mkdir -p "$WORK"
}

# to_bytes SIZE: 4GiB, 4G, 512MiB, 512M, 1024K, or plain bytes
to_bytes() {
	local n unit
	n=${1%%[!0-9]*}
	unit=${1#"$n"}
	[ -n "$n" ] || die "size \"$1\": not a number"
	case "$unit" in
	"" | B) echo "$n" ;;
	K | KiB) echo $((n << 10)) ;;
	M | MiB) echo $((n << 20)) ;;
	G | GiB) echo $((n << 30)) ;;
	T | TiB) echo $((n << 40)) ;;
	*) die "size \"$1\": unknown unit \"$unit\" (K, M, G, T or KiB, MiB, GiB, TiB)" ;;
	esac
}

# is_count WORD NAME: WORD is a whole number >= 1
is_count() {
	case "$1" in
	'' | *[!0-9]*) die "$2 \"$1\": not a number" ;;
	esac
	[ "$1" -ge 1 ] || die "$2 must be at least 1"
}

# json FILE EXPR: evaluates the Python expression EXPR with j = the JSON in FILE
json() {
	python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# calc EXPR: awk arithmetic, printed with %.4g unless EXPR formats itself
calc() {
	awk "BEGIN { printf \"%.4g\", $1 }"
}

# stats V...: "mean min max" of the values (spread = min..max)
stats() {
	printf '%s\n' "$@" | awk '
		NR == 1 { min = $1; max = $1 }
		{ s += $1; if ($1 < min) min = $1; if ($1 > max) max = $1 }
		END { if (NR) printf "%.3f %.3f %.3f\n", s / NR, min, max; else print "nan nan nan" }'
}

# summary_sql RESULTS RUN_ID SQL_EXPR CLASSES: SQL_EXPR over the run scope
# summary rows of those classes ('db_read','db_write')
summary_sql() {
	sqlite3 "$1" "select $3 from summary where run_id = $2 and scope = 'run' and class in ($4)"
}

# last_run RESULTS: the newest run's id
last_run() {
	sqlite3 "$1" "select max(id) from run"
}

# env_fact RESULTS RUN_ID KEY
env_fact() {
	sqlite3 "$1" "select value from env where run_id = $2 and key = '$3'"
}

# ratio3 A B: A / B with 4 decimals, "-" when B is 0
ratio3() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.4f", a / b; else printf "-" }'
}

# mstats V...: "median min max" of the values
mstats() {
	printf '%s\n' "$@" | sort -g | awk '
		{ v[NR] = $1 }
		END {
			if (!NR) { print "nan nan nan"; exit }
			m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf "%.3f %.3f %.3f\n", m, v[1], v[NR]
		}'
}

# fixed_profile FILE SECONDS DB_SIZE READ_PCT VERIFY STREAMS WORKERS VOL DBS:
# writes the fixed-model profile (32 KiB random, io_uring, O_DIRECT, no
# warm-up) of parity_vs_fio.sh and verify_cost.sh to FILE
fixed_profile() {
	cat >"$1" <<PROFILE
[test]
duration = ${2}s
warmup = 0s
[sizing]
database_size = $3
[workload]
model = fixed
block_size = 32KiB
read_pct = $4
pattern = random
verify = $5
[engine]
name = io_uring
direct = on
streams = $6
workers = $7
[volume vol1]
path = $8
databases = $9
PROFILE
}

# fio_tx OUT QD SECONDS EDB LOG_BS LOG_RATE LOGFILE x4: fio's equivalent of
# the transactional mix (ceiling.sh, log_apart.sh): one job of 32 KiB random
# reads and writes 3:2 at depth QD over EDB (files joined by ':'), beside 4
# log jobs, sequential O_DSYNC writes of LOG_BS bytes one at a time at
# LOG_RATE a second, one per LOGFILE; JSON to OUT, fio's own output to
# OUT.out; dies when fio fails
fio_tx() {
	local out=$1 qd=$2 secs=$3 edb=$4 bs=$5 rate=$6 logs=() i=1
	shift 6
	for f in "$@"; do
		logs+=(--name="log$i" --filename="$f" --rw=write --bs="$bs" --iodepth=1
			--sync=dsync --rate_iops="$rate")
		i=$((i + 1))
	done
	"$FIO" --output-format=json --output="$out" --ioengine=io_uring --direct=1 \
		--thread --time_based --runtime="$secs" \
		--name=db --filename="$edb" --rw=randrw --rwmixread=60 --bs=32k --iodepth="$qd" --norandommap \
		"${logs[@]}" >"$out.out" 2>&1 || die "fio failed: $(tail -5 "$out.out")"
}

# machine_load SECS: "LOADED: why" or "quiet: why" for the machine as it is
# now, from the kernel's own counters over SECS seconds (default 3) while
# the caller runs nothing: the CPU time others use (/proc/stat, every state
# but idle and iowait) and the share of time some task waited for I/O
# (/proc/pressure/io "some", where the kernel has PSI). Loaded means others
# used more than 25 % of the CPUs or stalled on I/O more than 20 % of the
# time: figures measured then are the machine's, not the tools'.
machine_load() {
	local secs=${1:-3} c0 c1 i0 i1
	c0=$(awk '/^cpu /{print $2+$3+$4+$7+$8+$9, $5+$6}' /proc/stat)
	i0=$(awk '/^some/{sub("total=","",$5); print $5}' /proc/pressure/io 2>/dev/null || echo 0)
	sleep "$secs"
	c1=$(awk '/^cpu /{print $2+$3+$4+$7+$8+$9, $5+$6}' /proc/stat)
	i1=$(awk '/^some/{sub("total=","",$5); print $5}' /proc/pressure/io 2>/dev/null || echo 0)
	awk -v c0="$c0" -v c1="$c1" -v i0="${i0:-0}" -v i1="${i1:-0}" -v s="$secs" 'BEGIN {
		split(c0, a, " "); split(c1, b, " ")
		busy = b[1] - a[1]; idle = b[2] - a[2]
		cpu = busy + idle > 0 ? 100 * busy / (busy + idle) : 0
		io = 100 * (i1 - i0) / (s * 1e6)
		st = cpu > 25 || io > 20 ? "LOADED" : "quiet"
		printf "%s: others used %.0f %% of the CPUs, some task waited for I/O %.0f %% of %s s\n",
			st, cpu, io, s
	}'
}
