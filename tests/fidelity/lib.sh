# SPDX-License-Identifier: MIT
# shellcheck shell=bash disable=SC2034
# lib.sh - pieces the fidelity harnesses share (sourced after
# tests/bench/lib.sh, not run): loop filesystems, the server's memory
# cgroup, the cold start, and diskproof fingerprint / learn watching a
# window that a command's end closes.
#
# The caller sets WORK (its scratch directory, removed by its cleanup) and
# calls fid_cleanup from its own EXIT trap; LOOPS, MOUNTS and CG are what
# fid_cleanup undoes.

LOOPS=()
MOUNTS=()
CG=""
LOADED=""

# fid_loop_fs NAME SIZE MOUNTPOINT: a sparse file WORK/NAME.img of SIZE,
# attached with "losetup --direct-io=on" (the loop device passes I/O
# straight to its file, no second page cache), ext4 on it, mounted on
# MOUNTPOINT; sets FID_DEV to the loop device
fid_loop_fs() {
	truncate -s "$2" "$WORK/$1.img"
	FID_DEV=$(losetup --find --show --direct-io=on "$WORK/$1.img") || die "losetup $1 failed"
	LOOPS+=("$FID_DEV")
	mkfs.ext4 -q -F "$FID_DEV" || die "mkfs.ext4 $FID_DEV failed"
	mkdir -p "$3"
	mount "$FID_DEV" "$3" || die "mount $FID_DEV failed"
	MOUNTS+=("$3")
}

# fid_cleanup: the mounts, the loop devices and the cgroup, undone
fid_cleanup() {
	local m l
	for m in "${MOUNTS[@]}"; do
		if mountpoint -q "$m"; then
			umount "$m" 2>/dev/null || { sleep 1; umount "$m" 2>/dev/null; } || umount -l "$m"
		fi
		rmdir "$m" 2>/dev/null || true
	done
	[ -z "$CG" ] || rmdir "$CG" 2>/dev/null || true
	for l in "${LOOPS[@]}"; do
		losetup -d "$l" 2>/dev/null || true
	done
}

# fid_preflight: exit 77 (skipped) unless root with losetup; the binary
# there (need_diskproof); OUT made, and absolute from now on
fid_preflight() {
	if [ "$(id -u)" != 0 ]; then
		note "skipped: needs root (losetup, mount, drop_caches)"
		exit 77
	fi
	if ! command -v losetup >/dev/null; then
		note "skipped: no losetup (util-linux)"
		exit 77
	fi
	need_diskproof
	mkdir -p "$OUT"
	OUT=$(cd "$OUT" && pwd)
}

# fid_mem_cgroup SIZE: CG, a memory cgroup of SIZE (cgroup v2 or v1's memory
# controller) under this shell's own, removed by fid_cleanup: the server's
# cache is bounded the same way on every machine
fid_mem_cgroup() {
	local base
	if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
		base=/sys/fs/cgroup$(awk -F: '$1 == "0" { print $3 }' /proc/self/cgroup)
		CG=$base/diskproof-fidelity-$$
		mkdir "$CG" || die "cannot make cgroup $CG"
		echo "$(to_bytes "$1")" >"$CG/memory.max" ||
			die "cannot limit $CG (is the memory controller enabled in $base/cgroup.subtree_control?)"
	else
		base=/sys/fs/cgroup/memory$(awk -F: '$2 == "memory" { print $3 }' /proc/self/cgroup)
		[ -d "$base" ] || die "no memory cgroup (neither cgroup v2 nor v1's memory controller)"
		CG=$base/diskproof-fidelity-$$
		mkdir "$CG" || die "cannot make cgroup $CG"
		echo "$(to_bytes "$1")" >"$CG/memory.limit_in_bytes" || die "cannot limit $CG"
	fi
}

# fid_cg_peak: the cgroup's highest use so far, in MiB
fid_cg_peak() {
	local f
	for f in memory.peak memory.max_usage_in_bytes memory.current memory.usage_in_bytes; do
		[ -r "$CG/$f" ] && { echo "$(($(cat "$CG/$f") >> 20))M"; return; }
	done
	echo "?"
}

# fid_cold: the page cache dropped before a side is measured, and the
# machine's own load looked at just then (nothing of ours running): a side
# measured on a loaded machine is shown, never asserted (LOADED says why)
fid_cold() {
	local load
	sync
	echo 3 >/proc/sys/vm/drop_caches
	load=$(machine_load 3)
	echo "            before measuring: $load; load average $(cut -d' ' -f1-3 /proc/loadavg)"
	case "$load" in LOADED*) LOADED=${LOADED:+$LOADED; }${load#LOADED: } ;; esac
}

# fid_watch_start CMD ARGS...: a diskproof command that watches a window
# (fingerprint, learn) started in the background with a window of an hour,
# its messages in WORK/watch-PID.err; sets FID_PID. fid_watch_stop PID ends
# the window (SIGINT: the fingerprint of what was seen is still written) and
# waits for it (learn then fits: seconds); its exit code.
fid_watch_start() {
	"$DISKPROOF" "$@" --duration 1h 2>"$WORK/watch.err.tmp" &
	FID_PID=$!
	mv "$WORK/watch.err.tmp" "$WORK/watch-$FID_PID.err"
}
fid_watch_stop() {
	local rc=0
	kill -INT "$1" 2>/dev/null || true
	wait "$1" || rc=$?
	return $rc
}

# fid_set_txns FP.json N: the fingerprint's transactions set to N (counted
# by the database's benchmark or the run after the window began)
fid_set_txns() {
	python3 - "$1" "$2" <<'EOF'
import json, sys
p, n = sys.argv[1], float(sys.argv[2])
j = json.load(open(p))
j["transactions"] = n
json.dump(j, open(p, "w"), indent=2)
open(p, "a").write("\n")
EOF
}

# The CPUs' layout while a harness measures (tests/fidelity/README.md,
# "Pinned"). The kernel's unbound workqueues' CPUs are the machine's own
# setting: the harness that changes them claims them first with a record,
# FID_WQ_STATE ("PID START MASK": the shell's process, its start time, the
# mask it found), read and made under a lock (FID_WQ_STATE.lock, held for
# those moments only), so that a second harness at the same time is
# refused, a record whose process is gone (killed with SIGKILL: no
# trap ran) is put back by the next harness, and a reused process number
# is not taken for the harness (its start time differs). FID_WQ_STATE may
# be set (tests use their own); harnesses share the default.
FID_WQ=/sys/devices/virtual/workqueue/cpumask
FID_WQ_STATE=${FID_WQ_STATE:-/run/diskproof-fidelity.wqmask}
PIN_WQ_OLD=""

# fid_start PID: the process's start time (clock ticks since boot; empty
# when there is no such process)
fid_start() {
	local st
	st=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
	st=${st##*) }
	set -- $st
	echo "${20}"
}

# fid_claim: as root where the workqueues' CPUs can be set, the record
# made (PIN_WQ_OLD: the mask found), a stale one put back first; dies when
# another harness holds it. Called by fid_pin, whether it pins or not: an
# unpinned harness still must not run beside another, nor measure with a
# killed one's mask.
fid_claim() {
	local pid="" start="" mask="" lk
	[ "$(id -u)" = 0 ] && [ -w "$FID_WQ" ] || return 0
	# the record is read, put back and made under a lock (held only here and
	# in fid_unpin, so that no child keeps it): two harnesses starting at
	# once see one another's record whole
	exec {lk}>>"$FID_WQ_STATE.lock" || die "cannot open $FID_WQ_STATE.lock"
	flock -w 10 "$lk" || die "$FID_WQ_STATE.lock: not free after 10 s"
	if [ -f "$FID_WQ_STATE" ]; then
		read -r pid start mask <"$FID_WQ_STATE" || true
		if [ -n "$pid" ] && [ "$pid" != $$ ] && [ -n "$start" ] && [ "$(fid_start "$pid")" = "$start" ]; then
			exec {lk}>&-
			die "another fidelity harness (process $pid) has the CPUs laid out ($FID_WQ_STATE): run one at a time"
		fi
		if [ -n "$mask" ] && echo "$mask" 2>/dev/null >"$FID_WQ"; then
			note "the unbound workqueues' CPUs put back to $mask, as a harness killed before its end (process $pid) found them"
		fi
		rm -f "$FID_WQ_STATE"
	fi
	# the mask asked for (kernels since 6.6 show the effective one, without
	# isolated CPUs, in cpumask): what is put back
	PIN_WQ_OLD=$(cat "${FID_WQ}_requested" 2>/dev/null || cat "$FID_WQ")
	if [ -z "$PIN_WQ_OLD" ] || ! echo "$$ $(fid_start $$) $PIN_WQ_OLD" >"$FID_WQ_STATE"; then
		exec {lk}>&-
		die "cannot read $FID_WQ or write $FID_WQ_STATE"
	fi
	exec {lk}>&-
}

# fid_pin DIR: the record claimed (fid_claim); then with PIN=1 (the
# caller's choice) and 2 CPUs or more, the measured sides go on one CPU and
# the devices' kernel work has the others. DIR holds the loop devices'
# backing files: the CPU chosen is the one that took the fewest interrupts
# of the disks under DIR (through device-mapper and md to their members;
# a virtio or NVMe disk's interrupts are bound by the kernel and cannot be
# moved), the last of equals; none found, the last CPU. The unbound
# workqueues (the loop devices' workers among them) are held to the other
# CPUs until fid_unpin (or, after a SIGKILL, the next harness's fid_claim).
# Sets PIN_CPU, PIN_IRQ (where the disks' interrupts went, or why not
# known), PIN_WQ (the workqueues' CPUs, or empty when left alone) and PINNED
# (the taskset prefix; empty, and PIN=0, when not pinned)
fid_pin() {
	local out new
	PINNED=() PIN_IRQ="" PIN_WQ=""
	fid_claim
	if [ "$PIN" != 1 ] || [ "$(nproc)" -lt 2 ] || ! command -v taskset >/dev/null; then
		PIN=0
		return 0
	fi
	out=$(python3 - "$1" "${PIN_WQ_OLD:--}" <<'PY'
import glob, os, sys

def cpus_of_mask(mask):
    bits = int(mask.replace(",", ""), 16)
    return {c for c in range(bits.bit_length()) if bits >> c & 1}

def mask_of_cpus(cpus):
    bits, words = sum(1 << c for c in cpus), []
    while bits or not words:
        words.append("%08x" % (bits & 0xFFFFFFFF))
        bits >>= 32
    return ",".join(reversed(words))

def ranges(cpus):
    out, cs = [], sorted(cpus)
    while cs:
        lo = hi = cs.pop(0)
        while cs and cs[0] == hi + 1:
            hi = cs.pop(0)
        out.append(str(lo) if lo == hi else "%d-%d" % (lo, hi))
    return ",".join(out)

def sysdev_of(path):
    """/sys/dev/block's entry for the filesystem under path, through
    mountinfo's source where the device number has none (btrfs, overlay)"""
    st = os.stat(path)
    d = "/sys/dev/block/%d:%d" % (os.major(st.st_dev), os.minor(st.st_dev))
    if os.path.isdir(d):
        return os.path.realpath(d)
    real, best, src = os.path.realpath(path), "", None
    for line in open("/proc/self/mountinfo"):
        f = line.split()
        mp, tail = f[4], f[f.index("-") + 1:]
        if (real == mp or real.startswith(mp.rstrip("/") + "/")) and len(mp) >= len(best):
            best, src = mp, tail[1] if len(tail) > 1 else None
    try:
        rdev = os.stat(src).st_rdev if src and src.startswith("/dev/") else None
    except OSError:
        rdev = None
    if rdev is None:
        return None
    d = "/sys/dev/block/%d:%d" % (os.major(rdev), os.minor(rdev))
    return os.path.realpath(d) if os.path.isdir(d) else None

def disks(sysdev, seen):
    """the whole disks beneath sysdev: a partition's disk, a dm or md
    device's members"""
    if sysdev is None or sysdev in seen:
        return []
    seen.add(sysdev)
    if os.path.exists(os.path.join(sysdev, "partition")):
        sysdev = os.path.dirname(sysdev)
    slaves = glob.glob(os.path.join(sysdev, "slaves", "*"))
    if slaves:
        return [x for s in slaves for x in disks(os.path.realpath(s), seen)]
    return [sysdev]

mine = sorted(os.sched_getaffinity(0))
names, irqs = [], set()
for disk in disks(sysdev_of(sys.argv[1]), set()):
    names.append(os.path.basename(disk))
    d = os.path.realpath(os.path.join(disk, "device"))
    while d != "/" and not os.path.isdir(os.path.join(d, "msi_irqs")):
        d = os.path.dirname(d)
    irqs |= {os.path.basename(i) for i in glob.glob(os.path.join(d, "msi_irqs", "*"))}
# each CPU's share of those interrupts so far (/proc/interrupts): an
# interrupt that never fires (a config vector) does not count
ncpu = None
count = {c: 0 for c in mine}
for line in open("/proc/interrupts"):
    f = line.split()
    if ncpu is None:
        ncpu = len(f)
        cols = [int(x[3:]) for x in f]
        continue
    if f and f[0].rstrip(":") in irqs:
        for col, n in zip(cols, f[1:1 + ncpu]):
            if col in count:
                count[col] += int(n)
total = sum(count.values())
if total:
    pin = min(mine, key=lambda c: (count[c], -c))
    busy = [c for c in mine if count[c]]
    irq = "(%s) on %s" % (",".join(names), ", ".join(
        "CPU %d %.0f %%" % (c, 100.0 * count[c] / total) for c in sorted(busy)))
else:
    pin = mine[-1]
    irq = "not found (%s): the last CPU" % (
        ",".join(names) + ": no PCI interrupts" if names else "no block device under it")
new = wq = "-"
if sys.argv[2] != "-":
    held = cpus_of_mask(sys.argv[2]) - {pin}
    if held:
        new, wq = mask_of_cpus(held), ranges(held)
print(pin, new, wq, irq, sep="\t")
PY
) || die "fid_pin: could not read the CPUs"
	IFS=$'\t' read -r PIN_CPU new PIN_WQ PIN_IRQ <<<"$out"
	[ "$PIN_WQ" != - ] || PIN_WQ=""
	if [ -n "$PIN_WQ" ] && ! echo "$new" 2>/dev/null >"$FID_WQ"; then
		PIN_WQ=""
	fi
	PINNED=(taskset -c "$PIN_CPU")
}

# fid_unpin: the unbound workqueues' CPUs as fid_claim found them, and the
# record removed, while the record is this shell's (from the caller's EXIT
# trap, first in it: nothing before it may stop the trap)
fid_unpin() {
	local pid="" start="" mask="" lk
	[ -f "$FID_WQ_STATE" ] || return 0
	exec {lk}>>"$FID_WQ_STATE.lock" || return 0
	flock -w 10 "$lk" || true
	read -r pid start mask <"$FID_WQ_STATE" || true
	if [ "$pid" = $$ ] && [ "$start" = "$(fid_start $$)" ]; then
		[ -z "$mask" ] || echo "$mask" 2>/dev/null >"$FID_WQ" || true
		rm -f "$FID_WQ_STATE"
		PIN_WQ_OLD=""
	fi
	exec {lk}>&-
}

# fid_pin_where WHAT: one line saying where the measured sides (WHAT) and
# the devices' kernel work run
fid_pin_where() {
	if [ "$PIN" != 1 ]; then
		echo "not pinned: the measured sides and the loop devices' kernel work share every CPU"
		return 0
	fi
	local wq="not moved"
	[ -z "$PIN_WQ" ] || wq="held to CPU $PIN_WQ"
	echo "measured sides pinned to CPU $PIN_CPU ($1); the backing disk's interrupts $PIN_IRQ; unbound workqueues (the loop devices' workers) $wq"
}

# fid_pin_cgroup WHAT: with PIN=1, every thread of every process in CG on
# PIN_CPU (processes and threads made later inherit it)
fid_pin_cgroup() {
	local p
	[ "$PIN" = 1 ] || return 0
	for p in $(cat "$CG/cgroup.procs"); do
		taskset -a -p -c "$PIN_CPU" "$p" >/dev/null || die "taskset of $1 (process $p) failed"
	done
}
