# SPDX-License-Identifier: MIT
# lib.sh - shared set-up for the integration tests: a scratch directory under
# the build tree (a real disk, where O_DIRECT works), removed on exit, and
# small assertion helpers. Sourced, not run.
set -u
: "${DISKPROOF:?set DISKPROOF to the built binary (ctest does)}"
: "${DP_BINARY_DIR:=$(dirname "$DISKPROOF")}"
: "${DP_SOURCE_DIR:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
mkdir -p "$DP_BINARY_DIR/scratch"
WORK=$(mktemp -d "$DP_BINARY_DIR/scratch/$(basename "$0" .sh).XXXXXX")
# whose scratch directory this is: leftovers_remove tells a live test's
# from one a killed test left
echo $$ >"$WORK/.owner"
# at_exit CMD: CMD (a string, evaluated) runs when the test ends, whatever
# the end, the last registered first, before $WORK goes; failures there are
# ignored (what it undoes may be undone already).
AT_EXIT=()
at_exit() { AT_EXIT=("$1" "${AT_EXIT[@]}"); }
lib_cleanup() {
	set +e
	for c in "${AT_EXIT[@]}"; do
		eval "$c" >/dev/null 2>&1
	done
	rm -rf "$WORK"
	true
}
trap lib_cleanup EXIT
# a signal ends the test through its EXIT trap, so that its cleanup runs
# (ctest's timeout sends SIGKILL, which no trap sees: leftovers_remove)
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
cd "$WORK"

# leftovers_remove: what earlier runs of this test left when they were
# killed (SIGKILL, as ctest's timeout sends, runs no cleanup): every
# scratch directory of this test's name whose owner (.owner) is dead, and
# every process whose command line names one (sshd, diskproof, Ansible's
# async jobs), ended with SIGKILL. A live run's directory is left alone.
leftovers_remove() {
	local d owner p
	for d in "$DP_BINARY_DIR/scratch/$(basename "$0" .sh)".*; do
		[ -d "$d" ] && [ "$d" != "$WORK" ] || continue
		owner=$(cat "$d/.owner" 2>/dev/null) || owner=
		[ -n "$owner" ] && kill -0 "$owner" 2>/dev/null && continue
		for p in /proc/[0-9]*; do
			[ "${p#/proc/}" != $$ ] || continue
			tr '\0' ' ' <"$p/cmdline" 2>/dev/null | grep -qF -- "$d/" && kill -9 "${p#/proc/}" 2>/dev/null
		done
		echo "removing $d, left by a run of this test that was killed"
		rm -rf "$d"
	done
	true
}

# machine_lock NAME WHAT: holds the machine-wide lock
# /run/lock/diskproof-test-NAME.lock (flock, until the test ends) on a
# resource every build's tests share (WHAT: a subnet, the dpkg database),
# waiting for another holder up to 240 s, then failing with its pid.
machine_lock() {
	local f="/run/lock/diskproof-test-$1.lock" fd
	exec {fd}>>"$f" || fail "cannot open the machine lock $f"
	if ! flock -w 240 "$fd"; then
		fail "the machine lock $f ($2) is held by pid $(cat "$f" 2>/dev/null) for over 240 s"
	fi
	echo $$ >"$f"
}

# need_root WHY: exit 77 ("skipped") unless root.
need_root() {
	[ "$(id -u)" = 0 ] || { echo "skipped: needs root ($1)"; exit 77; }
}

# loop_device IMG SIZE: a new image file IMG of SIZE attached to a loop
# device, named in $LOOP_DEV and detached at exit; exit 77 without one.
loop_device() {
	need_root "loop devices"
	command -v losetup >/dev/null || { echo "skipped: no losetup"; exit 77; }
	truncate -s "$2" "$1"
	LOOP_DEV=$(losetup --find --show "$1" 2>"$WORK/losetup.err") ||
		{ echo "skipped: losetup: $(cat "$WORK/losetup.err")"; exit 77; }
	at_exit "losetup -d $LOOP_DEV"
}

# loop_mount DIR SIZE [MKFS-OPTION...]: a new ext4 of SIZE (image DIR.img)
# mounted at DIR, thawed and unmounted at exit; exit 77 where that cannot be.
loop_mount() {
	local dir=$1 size=$2
	shift 2
	need_root "loop mounts"
	command -v mkfs.ext4 >/dev/null || { echo "skipped: no mkfs.ext4"; exit 77; }
	mkdir -p "$dir"
	truncate -s "$size" "$dir.img"
	mkfs.ext4 -q "$@" "$dir.img"
	mount -o loop "$dir.img" "$dir" || { echo "skipped: cannot loop-mount"; exit 77; }
	at_exit "fsfreeze -u '$dir'; umount '$dir' || umount -l '$dir'"
}

# dio_mount NAME SIZE [IMAGE]: a new ext4 on a direct-I/O loop device
# (losetup --direct-io=on) of IMAGE (default $WORK/NAME.img, SIZE) mounted
# at $WORK/NAME, the device in $DEV; made without lazy init (ext4lazyinit
# would write to the device in a measured window); detached and unmounted
# at exit, exit 77 where that cannot be.
dio_mount() {
	local img=${3:-$WORK/$1.img}
	need_root "loop devices"
	command -v losetup >/dev/null && command -v mkfs.ext4 >/dev/null ||
		{ echo "skipped: no losetup or mkfs.ext4"; exit 77; }
	truncate -s "$2" "$img"
	DEV=$(losetup --direct-io=on --find --show "$img") || { echo "skipped: losetup"; exit 77; }
	at_exit "losetup -d $DEV"
	mkfs.ext4 -q -E lazy_itable_init=0,lazy_journal_init=0 "$DEV"
	mkdir -p "$WORK/$1"
	mount "$DEV" "$WORK/$1" || { echo "skipped: cannot mount $DEV"; exit 77; }
	at_exit "umount '$WORK/$1' || umount -l '$WORK/$1'"
}

# dev_flushes NAME: the flush requests block device NAME (loop0) completed
# (/proc/diskstats); need_dev_flushes NAME: exit 77 where it has no count.
dev_flushes() { awk -v d="$1" '$3 == d { print $19 }' /proc/diskstats; }
need_dev_flushes() {
	[ "$(awk -v d="$1" '$3 == d { print NF }' /proc/diskstats)" -ge 20 ] ||
		{ echo "skipped: /proc/diskstats has no flushes column (Linux 5.5 or newer)"; exit 77; }
}

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# expect_exit CODE CMD...: runs CMD, keeps its output in $WORK/out and
# $WORK/err, and fails unless it exits with CODE.
expect_exit() {
	local want=$1 got
	shift
	set +e
	"$@" >"$WORK/out" 2>"$WORK/err"
	got=$?
	set -e
	if [ "$got" != "$want" ]; then
		echo "--- stdout" >&2; cat "$WORK/out" >&2
		echo "--- stderr" >&2; cat "$WORK/err" >&2
		fail "expected exit $want, got $got from: $*"
	fi
}

# expect_verdict CMD...: a run on a real disk whose verdict may go either way
# (a shared, loaded disk can push a maximum over its threshold): exit 0 or 1
# is fine, anything else fails. Output as expect_exit keeps it.
expect_verdict() {
	local got
	set +e
	"$@" >"$WORK/out" 2>"$WORK/err"
	got=$?
	set -e
	if [ "$got" != 0 ] && [ "$got" != 1 ]; then
		echo "--- stdout" >&2; cat "$WORK/out" >&2
		echo "--- stderr" >&2; cat "$WORK/err" >&2
		fail "expected exit 0 or 1, got $got from: $*"
	fi
}

# wait_running: until the results file $WORK/r.db has a running run (20 s at most)
wait_running() {
	for _ in $(seq 1 200); do
		[ "$(sqlite3 "$WORK/r.db" "select count(*) from run where status='running'" 2>/dev/null)" = 1 ] &&
			return 0
		sleep 0.1
	done
	fail "no running run in r.db"
}

# quick CODE CMD...: expect_exit CODE, in under 2 s
quick() {
	local t0 t1
	t0=$(date +%s%N)
	expect_exit "$@"
	t1=$(date +%s%N)
	[ $(((t1 - t0) / 1000000)) -lt 2000 ] || fail "took $(((t1 - t0) / 1000000)) ms: $*"
}

# hung_setup DURATION: a loop filesystem of the test's own at $MNT (a 64 MiB
# ext4), a profile hung.ini of one 8 MiB database on it with io_timeout =
# 2s, initialized; exit 77 without fsfreeze.
hung_setup() {
	command -v fsfreeze >/dev/null || { echo "skipped: no fsfreeze"; exit 77; }
	MNT="$WORK/mnt"
	loop_mount "$MNT" 64M
	cat >hung.ini <<INI
[test]
duration = $1
warmup = 0s
io_timeout = 2s
[sizing]
database_size = 8MiB
log_size = 1MiB
[workload]
log_segment_size = 256KiB
[engine]
name = io_uring
streams = 4
[volume a]
path = $MNT/a
databases = 1
INI
	expect_exit 0 "$DISKPROOF" init hung.ini --quiet
}

# freeze_watched: freezes $MNT; a watchdog thaws it after 40 s whatever
# happens to the test (and at its exit).
freeze_watched() {
	local watchdog
	fsfreeze -f "$MNT"
	sleep 40 </dev/null >/dev/null 2>&1 &
	watchdog=$!
	at_exit "kill $watchdog"
	(while kill -0 $watchdog 2>/dev/null; do sleep 1; done
		fsfreeze -u "$MNT") </dev/null >/dev/null 2>&1 &
}

# wait_line PATTERN FILE ERR WHAT: until FILE holds a line matching PATTERN
# (grep), 8 s at most (io_timeout plus 6 s) from now, else fails showing ERR;
# says how long it took, as WHAT.
wait_line() {
	local t0
	t0=$(date +%s%N)
	while ! grep -q "$1" "$2"; do
		[ $((($(date +%s%N) - t0) / 1000000)) -lt 8000 ] ||
			{ cat "$3" >&2; fail "no $4 within io_timeout + 6 s of the freeze"; }
		sleep 0.1
	done
	echo "$4 $((($(date +%s%N) - t0) / 1000000)) ms after the freeze"
}

# wait_verdict OUT ERR: until OUT holds the verdict line (wait_line).
wait_verdict() {
	wait_line "^verdicts:" "$1" "$2" verdict
}

# thaw_and_check PID: thaws $MNT; the hung run PID then exits 1 (a failed
# verdict), verify exits 0 and the next run finds no integrity error.
thaw_and_check() {
	local rc ie
	fsfreeze -u "$MNT"
	set +e
	wait "$1"
	rc=$?
	set -e
	[ $rc = 1 ] || { cat "$WORK/run.err"; fail "exit $rc after the thaw, want 1"; }
	expect_exit 0 "$DISKPROOF" verify hung.ini --results "$WORK/r.db"
	expect_verdict "$DISKPROOF" run hung.ini --duration 1s --results "$WORK/r.db" --quiet
	ie=$(sqlite3 "$WORK/r.db" "select coalesce(sum(integrity_errors),0) from summary
		where run_id=2 and scope='run'")
	[ "$ie" = 0 ] || fail "the run after the hang found $ie integrity errors"
}

# json EXPR: evaluates a Python expression over the JSON document in $WORK/out
# (bound to d) and prints the result.
json() {
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' \
		"$WORK/out" "$1"
}

# skip_without_uring: exit 77 ("skipped") when this kernel has no io_uring.
skip_without_uring() {
	set +e
	"$DISKPROOF" run "$DP_SOURCE_DIR/tests/integration/profiles/tiny.ini" --data-dir "$WORK/probe" \
		--duration 1s --results "$WORK/probe.db" --quiet >/dev/null 2>"$WORK/probe.err"
	local rc=$?
	set -e
	if [ $rc = 3 ] && grep -q "io_uring" "$WORK/probe.err"; then
		echo "skipped: $(cat "$WORK/probe.err")"
		exit 77
	fi
	rm -rf "$WORK/probe" "$WORK/probe.db"*
}

# prometheus_start [TIMEOUT]: a real Prometheus of the test's own (its
# directory, a free port) scraping 127.0.0.1:$DP_PORT every second, each
# scrape given TIMEOUT (1s); sets DP_PORT, PROM_PORT, PROM (its pid, killed
# at exit) and API (its HTTP API's base URL)
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
prometheus_start() {
	DP_PORT=$(free_port)
	PROM_PORT=$(free_port)
	cat >prom.yml <<YML
global:
  scrape_interval: 1s
  scrape_timeout: ${1:-1s}
scrape_configs:
  - job_name: diskproof
    static_configs:
      - targets: ['127.0.0.1:$DP_PORT']
YML
	prometheus --config.file=prom.yml --storage.tsdb.path="$WORK/tsdb" \
		--web.listen-address="127.0.0.1:$PROM_PORT" >>prom.log 2>&1 &
	PROM=$!
	at_exit "kill $PROM; wait $PROM"
	API="http://127.0.0.1:$PROM_PORT/api/v1"
}

# cachefs_mount MODE BACKING MNT [OPTION...]: the FUSE rig tests/fuse/cachefs
# (a volatile write cache over BACKING: honest or lying) mounted at MNT, its
# pid in $CACHEFS_PID, unmounted at exit; exit 77 without root, /dev/fuse or
# the rig (built only where pkg-config finds fuse3). cachefs_cut: the rig's
# power cut (SIGUSR1: the cache dropped, MNT detached, the rig gone).
# cachefs_unmount: a clean unmount (what was not made durable is dropped
# all the same: the rig never writes back on its own).
cachefs_mount() {
	local mode=$1 backing=$2 mnt=$3 rig="$DP_BINARY_DIR/tests/cachefs"
	shift 3
	need_root "FUSE mounts"
	[ -c /dev/fuse ] || { echo "skipped: no /dev/fuse"; exit 77; }
	[ -x "$rig" ] || { echo "skipped: the FUSE rig was not built (no libfuse3-dev)"; exit 77; }
	mkdir -p "$backing" "$mnt"
	"$rig" --mode "$mode" "$@" "$backing" "$mnt" 2>>"$WORK/cachefs.err" &
	CACHEFS_PID=$!
	CACHEFS_MNT=$mnt
	at_exit "kill -9 $CACHEFS_PID; umount -l '$mnt'"
	for _ in $(seq 1 100); do
		grep -qF " $(realpath "$mnt") fuse" /proc/self/mounts && return 0
		kill -0 $CACHEFS_PID 2>/dev/null ||
			{ echo "skipped: the FUSE rig did not mount: $(cat "$WORK/cachefs.err")"; exit 77; }
		sleep 0.1
	done
	fail "the FUSE rig did not mount $mnt in 10 s"
}
cachefs_cut() {
	kill -USR1 "$CACHEFS_PID"
	wait "$CACHEFS_PID" || fail "the FUSE rig's cut ended it with exit $?"
}
cachefs_unmount() {
	umount "$CACHEFS_MNT" || fail "cannot unmount the FUSE rig at $CACHEFS_MNT"
	wait "$CACHEFS_PID" || fail "the FUSE rig ended with exit $? at its unmount"
}
