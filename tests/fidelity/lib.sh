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

# fid_pin DIR: with PIN=1 (the caller's choice) and 2 CPUs or more, the
# measured sides go on one CPU and the devices' kernel work has the others
# (tests/fidelity/README.md, "Pinned"). DIR holds the loop devices' backing
# files: the CPU chosen is the last one that takes none of the interrupts of
# the disk under DIR (a virtio or NVMe disk's are bound by the kernel and
# cannot be moved), else the last CPU; the kernel's unbound workqueues (the
# loop devices' workers among them) are held to the other CPUs until
# fid_unpin (or, after a kill -9, the next fid_pin). Sets PIN_CPU, PIN_IRQ
# (the disk and its interrupts' CPUs, or empty), PIN_WQ (the workqueues'
# CPUs, or empty when left alone) and PINNED (the taskset prefix; empty, and
# PIN=0, when not pinned)
PIN_WQ_OLD=""
FID_WQ=/sys/devices/virtual/workqueue/cpumask
# the mask fid_pin found, and its process, while it holds another:
# "PID MASK"
FID_WQ_STATE=${FID_WQ_STATE:-/run/diskproof-fidelity.wqmask}

# fid_wq_reclaim: the workqueues' CPUs put back as a harness killed before
# its fid_unpin found them; dies when another harness holds them now (two
# at once would measure each other, and the second would put back the
# first's mask)
fid_wq_reclaim() {
	local pid="" mask=""
	[ -f "$FID_WQ_STATE" ] || return 0
	read -r pid mask <"$FID_WQ_STATE" || true
	if [ -n "$pid" ] && [ "$pid" != $$ ] && kill -0 "$pid" 2>/dev/null &&
		tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q fidelity; then
		die "another fidelity harness (process $pid) has the CPUs laid out ($FID_WQ_STATE): run one at a time"
	fi
	if [ -n "$mask" ] && echo "$mask" >"$FID_WQ" 2>/dev/null; then
		note "the unbound workqueues' CPUs put back to $mask, as a harness killed before its end (process $pid) found them"
	fi
	rm -f "$FID_WQ_STATE"
}

fid_pin() {
	local out
	PINNED=() PIN_IRQ="" PIN_WQ=""
	if [ "$PIN" != 1 ] || [ "$(nproc)" -lt 2 ] || ! command -v taskset >/dev/null; then
		PIN=0
		return 0
	fi
	fid_wq_reclaim
	out=$(python3 - "$1" <<'EOF'
import glob, os, sys

def cpus(text):
    got = set()
    for part in text.strip().split(","):
        if part:
            lo, _, hi = part.partition("-")
            got.update(range(int(lo), int(hi or lo) + 1))
    return got

def disk_of(path):
    # the whole disk (not a partition) holding the filesystem under path
    st = os.stat(path)
    sysdev = os.path.realpath("/sys/dev/block/%d:%d" % (os.major(st.st_dev), os.minor(st.st_dev)))
    if not os.path.isdir(sysdev):
        return None
    if os.path.exists(os.path.join(sysdev, "partition")):
        sysdev = os.path.dirname(sysdev)
    return sysdev

mine = sorted(os.sched_getaffinity(0))
disk, irq_cpus = disk_of(sys.argv[1]), set()
if disk and os.path.exists(os.path.join(disk, "device")):
    d = os.path.realpath(os.path.join(disk, "device"))
    while d != "/" and not os.path.isdir(os.path.join(d, "msi_irqs")):
        d = os.path.dirname(d)
    for irq in glob.glob(os.path.join(d, "msi_irqs", "*")):
        try:
            irq_cpus |= cpus(open("/proc/irq/%s/effective_affinity_list" % os.path.basename(irq)).read())
        except OSError:
            pass
free = [c for c in mine if c not in irq_cpus]
pin = free[-1] if free and irq_cpus else mine[-1]
irq = "%s (CPU %s)" % (os.path.basename(disk), ",".join(map(str, sorted(irq_cpus)))) if irq_cpus else ""
# the unbound workqueues' mask: every CPU it had but the pinned one
wq, old, new = "", "", ""
try:
    old = open("/sys/devices/virtual/workqueue/cpumask").read().strip()
    bits = int(old.replace(",", ""), 16) & ~(1 << pin)
    if bits:
        words = []
        while bits or not words:
            words.append("%08x" % (bits & 0xFFFFFFFF))
            bits >>= 32
        new = ",".join(reversed(words)).lstrip("0") or "0"
        wq = ",".join(str(c) for c in range(4096) if int(new.replace(",", ""), 16) >> c & 1)
except (OSError, ValueError):
    old = ""
print(pin, old or "-", new or "-", wq or "-", irq or "-", sep="\t")
EOF
) || die "fid_pin: could not read the CPUs"
	IFS=$'\t' read -r PIN_CPU PIN_WQ_OLD PIN_WQ_NEW PIN_WQ PIN_IRQ <<<"$out"
	[ "$PIN_IRQ" != - ] || PIN_IRQ=""
	# the state first: a kill between the two leaves a state to reclaim
	if [ "$PIN_WQ_NEW" != - ] && echo "$$ $PIN_WQ_OLD" 2>/dev/null >"$FID_WQ_STATE" &&
		echo "$PIN_WQ_NEW" 2>/dev/null >"$FID_WQ"; then
		:
	else
		rm -f "$FID_WQ_STATE"
		PIN_WQ_OLD="" PIN_WQ=""
	fi
	PINNED=(taskset -c "$PIN_CPU")
}

# fid_unpin: the unbound workqueues' CPUs as fid_pin found them (from the
# caller's EXIT trap; a kill -9 leaves them held, and the next fid_pin puts
# them back)
fid_unpin() {
	local pid=$$
	if [ -n "$PIN_WQ_OLD" ] && [ "$PIN_WQ_OLD" != - ]; then
		[ ! -f "$FID_WQ_STATE" ] || read -r pid _ <"$FID_WQ_STATE" || true
		# a record that is not this shell's: another harness holds the
		# CPUs now, and their mask is its to put back
		if [ "$pid" = $$ ]; then
			echo "$PIN_WQ_OLD" 2>/dev/null >"$FID_WQ" || true
			rm -f "$FID_WQ_STATE"
		fi
	fi
	PIN_WQ_OLD=""
}

# fid_pin_where: one line saying where the measured sides and the devices'
# kernel work run (WHAT: the measured sides' names)
fid_pin_where() {
	if [ "$PIN" != 1 ]; then
		echo "not pinned: the measured sides and the loop devices' kernel work share every CPU"
		return 0
	fi
	local irq="" wq="left on every CPU"
	[ -z "$PIN_IRQ" ] || irq="the backing disk's interrupts on $PIN_IRQ, "
	[ -z "$PIN_WQ" ] || wq="held to CPU $PIN_WQ"
	echo "measured sides pinned to CPU $PIN_CPU ($1); ${irq}unbound workqueues (the loop devices' workers) $wq"
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
