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

# fid_pin: with PIN=1 (the caller's choice) and 2 CPUs or more, the measured
# sides go on the last CPU and the loop devices' kernel work has the others
# (tests/fidelity/README.md, "Pinned"): sets PIN_CPU and PINNED (the taskset
# prefix; empty, and PIN=0, when not pinned)
fid_pin() {
	PINNED=()
	if [ "$PIN" = 1 ] && [ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null; then
		PIN_CPU=$(($(nproc) - 1))
		PINNED=(taskset -c "$PIN_CPU")
	else
		PIN=0
	fi
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
