#!/bin/bash
# SPDX-License-Identifier: MIT
# trace_overhead.sh - what learn's BPF tracing source costs per I/O
# (docs/learn.md, "What it costs"): fio's 4 KiB random O_DIRECT reads
# (psync, one job, queue depth 1) on a RAM-backed loop device (a file in
# /dev/shm, losetup --direct-io=on: the device is as fast as memory, so the
# per-I/O cost of tracing is as large a share as it gets), ROUNDS rounds
# (default 5), each one run without and one with `diskproof fingerprint`
# watching the device (tracing on). Per run: IOPS, the whole machine's busy
# CPU time per I/O (/proc/stat: every state but idle and iowait) and fio's
# own CPU per I/O; for the traced runs also the BPF programs' own run time
# per I/O (kernel.bpf_stats_enabled: run_time_ns / I/Os of the issue and
# complete programs), the one figure other load on the machine does not move.
# Prints each round and the medians: the extra CPU per I/O and the IOPS ratio
# (traced / untraced). Root. The machine's load is printed first: figures
# taken under load are the machine's as much as the tracer's.
#
#   tests/bench/trace_overhead.sh [ROUNDS] [SECONDS]
source "$(dirname "$0")/lib.sh"
set -euo pipefail
ROUNDS=${1:-5}
SECS=${2:-8}
[ "$(id -u)" = 0 ] || die "needs root (loop device, BPF)"
need_fio
[ -x "$DISKPROOF" ] || die "$DISKPROOF: not built"
command -v bpftool >/dev/null || die "bpftool is needed for the BPF programs' run time"
machine_load 3
uptime

IMG=$(mktemp /dev/shm/trace_overhead.XXXXXX)
truncate -s 1GiB "$IMG"
LOOP=$(losetup --direct-io=on --find --show "$IMG")
OUT=$(mktemp -d)
STATS0=$(sysctl -n kernel.bpf_stats_enabled)
trap 'sysctl -qw kernel.bpf_stats_enabled=$STATS0; losetup -d $LOOP; rm -f $IMG; rm -rf $OUT' EXIT
dd if=/dev/zero of="$LOOP" bs=1M count=1024 oflag=direct status=none # pages in RAM
sysctl -qw kernel.bpf_stats_enabled=1

busy() { awk '/^cpu /{print $2+$3+$4+$7+$8+$9}' /proc/stat; }
HZ=$(getconf CLK_TCK)

# run TAG: fio for SECS; prints "ios iops busy_ns fio_cpu_ns"
run() {
	local b0 b1
	b0=$(busy)
	"$FIO" --name=r --filename="$LOOP" --rw=randread --bs=4k --direct=1 --ioengine=psync \
		--runtime="$SECS" --time_based --output-format=json >"$OUT/$1.json"
	b1=$(busy)
	python3 - "$OUT/$1.json" "$b0" "$b1" "$HZ" "$SECS" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
ios = j["read"]["total_ios"]
busy_ns = (int(sys.argv[3]) - int(sys.argv[2])) * 1e9 / int(sys.argv[4])
fio_ns = (j["usr_cpu"] + j["sys_cpu"]) / 100 * float(sys.argv[5]) * 1e9
print(ios, j["read"]["iops"], busy_ns, fio_ns)
PY
}

# the BPF programs' run time so far (ns) of the fingerprint's programs
bpf_ns() {
	bpftool prog show --json | python3 -c '
import json, sys
print(sum(p.get("run_time_ns", 0) for p in json.load(sys.stdin)
          if p.get("name", "") in ("issue_btf", "complete_btf", "issue_raw", "complete_raw")))'
}

printf "%5s %10s %10s %12s %12s %12s\n" round tracing IOPS "busy ns/IO" "fio ns/IO" "BPF ns/IO"
for r in $(seq "$ROUNDS"); do
	read -r ios iops bns fns < <(run "off$r")
	printf "%5s %10s %10.0f %12.0f %12.0f %12s\n" "$r" off "$iops" "$(calc "$bns/$ios")" \
		"$(calc "$fns/$ios")" - | tee -a "$OUT/rows"
	"$DISKPROOF" fingerprint --data "$LOOP" --duration $((SECS + 30))s -o "$OUT/fp$r.json" \
		2>"$OUT/fp$r.err" &
	fp=$!
	sleep 2
	grep -q "BPF tracing: used" "$OUT/fp$r.err" || die "tracing did not start: $(cat "$OUT/fp$r.err")"
	p0=$(bpf_ns)
	read -r ios iops bns fns < <(run "on$r")
	p1=$(bpf_ns)
	kill -INT $fp
	wait $fp || die "fingerprint: $(cat "$OUT/fp$r.err")"
	printf "%5s %10s %10.0f %12.0f %12.0f %12.0f\n" "$r" on "$iops" "$(calc "$bns/$ios")" \
		"$(calc "$fns/$ios")" "$(calc "($p1-$p0)/$ios")" | tee -a "$OUT/rows"
done
python3 - "$OUT/rows" <<'PY'
import statistics as st, sys
rows = [l.split() for l in open(sys.argv[1])]
off = [r for r in rows if r[1] == "off"]
on = [r for r in rows if r[1] == "on"]
med = lambda rs, i: st.median(float(r[i]) for r in rs)
print("medians of %d rounds: IOPS %.0f untraced, %.0f traced (ratio %.3f);" %
      (len(on), med(off, 2), med(on, 2), med(on, 2) / med(off, 2)))
print("  busy CPU per I/O %.0f ns untraced, %.0f traced (%+.0f ns); fio's own %+.0f ns;" %
      (med(off, 3), med(on, 3), med(on, 3) - med(off, 3), med(on, 4) - med(off, 4)))
print("  the BPF programs' own run time %.0f ns per I/O" % med(on, 5))
PY
machine_load 3
uptime
