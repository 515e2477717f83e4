#!/bin/bash
# SPDX-License-Identifier: MIT
# A journal that cannot be written fails the run (exit 3), and never leaves a
# stale clean journal behind: the journals' filesystem full before the run
# (refused before the first write, the databases untouched), full during the
# run, and shut down mid-run (EXT4_IOC_SHUTDOWN). Afterwards verify exits 0
# and the next run finds no integrity error. An I/O error on a journal is
# said as one ("cannot read the journal: Input/output error"), never as "not
# a diskproof generation journal", and nothing says --destroy-data then.
#
# The faults during the run land at a known phase whatever the machine's
# speed: the run is frozen (SIGSTOP, every thread stopped) once both
# journals are marked in progress by it and before either final journal
# write has begun, the fault is made while it is frozen, and the run goes on
# (SIGCONT): its end-phase journal write meets the fault. No sleep decides
# anything. Root: a small ext4 image of its own.
source "$(dirname "$0")/lib.sh"
set -e
skip_without_uring
PT="$DP_BINARY_DIR/tests/pagetool"
# tiny, with an io_timeout that no freeze of the run comes near
sed '/^\[test\]/a io_timeout = 10m' "$DP_SOURCE_DIR/tests/integration/profiles/tiny.ini" >tiny.ini
T="$WORK/tiny.ini"
MNT="$WORK/mnt"
loop_mount "$MNT" 48M -m 0 -b 4096 -E lazy_itable_init=0,lazy_journal_init=0
D="$MNT/d"

run_tiny() { "$DISKPROOF" run "$T" --data-dir "$D" --results "$WORK/r.db" --quiet "$@"; }
# fill the filesystem to the last block: blocks freed in a transaction not
# yet committed (the old journals' blocks, replaced by rename) are free only
# after the commit, which a write that meets ENOSPC forces: so blocks are
# taken until a pass after a sync (a commit) finds none
fill() {
	local i=0 took=1
	dd if=/dev/zero of="$MNT/fill" bs=1M 2>/dev/null || true
	while [ $took = 1 ]; do
		took=0
		while head -c 4096 /dev/zero 2>/dev/null >"$MNT/fill.$i"; do
			i=$((i + 1))
			took=1
		done
		i=$((i + 1))
		sync
	done
}
unfill() { rm -f "$MNT"/fill*; sync; }
shutdown_fs() { # EXT4_IOC_SHUTDOWN without flushing the log, as a dying disk
	python3 - "$MNT" <<'EOF'
import fcntl, os, struct, sys
EXT4_IOC_SHUTDOWN = 0x8004587D  # _IOR('X', 125, __u32)
fd = os.open(sys.argv[1], os.O_RDONLY)
fcntl.ioctl(fd, EXT4_IOC_SHUTDOWN, struct.pack("I", 2))  # EXT4_GOING_FLAGS_NOLOGFLUSH
EOF
}
# remount: the image mounted afresh after a shutdown, on a loop device of
# its own (mount -o loop may take the device it used before while that one
# is still being let go of in the background, whose I/O then fails), and
# checked to answer: a file made, the journals read. A mount that does not
# answer (the shut-down superblock back, or the device going) is made again.
remount() {
	local old dev t
	old=$(findmnt -n -o SOURCE --mountpoint "$MNT")
	umount "$MNT"
	losetup -d "$old" 2>/dev/null || true # cleared by itself already, or now
	for t in $(seq 1 100); do
		dev=$(losetup --find --show "$MNT.img")
		mount "$dev" "$MNT"
		if touch "$MNT/.alive" 2>/dev/null && cat "$D"/*/db*.gen >/dev/null 2>&1; then
			rm -f "$MNT/.alive"
			at_exit "losetup -d $dev"
			return 0
		fi
		echo "remount $t: $dev does not answer yet; again"
		umount "$MNT"
		losetup -d "$dev"
		sleep 0.1
	done
	fail "the filesystem does not answer after 100 remounts"
}
last_status() { sqlite3 "$WORK/r.db" "select status from run order by id desc limit 1"; }
no_integrity_errors() { # the latest run's integrity errors are 0
	local id ie
	id=$(sqlite3 "$WORK/r.db" "select max(id) from run")
	ie=$(sqlite3 "$WORK/r.db" "select coalesce(sum(integrity_errors),0) from summary
		where run_id=$id and scope='run'")
	[ "$ie" = 0 ] || fail "$1: run $id found $ie integrity errors"
}
after() { # after WHAT: verify 0, a short run finds no integrity error
	expect_exit 0 "$DISKPROOF" verify "$T" --data-dir "$D" --results "$WORK/r.db"
	expect_verdict run_tiny --duration 1s
	no_integrity_errors "$1"
}

# Every thread of PID stopped (state T): none is still inside a system call.
# io_uring's kernel workers (iou-*) run no code of ours and are left out.
all_stopped() {
	local t
	for t in /proc/$1/task/*; do
		case "$(cat "$t/comm" 2>/dev/null)" in iou-*) continue ;; esac
		case "$(sed 's/.*) //' "$t/stat" 2>/dev/null | cut -d' ' -f1)" in
		T | t) ;;
		*) return 1 ;;
		esac
	done
}
# Both journals marked in progress by run ID (flags 0) and no final journal
# write begun (no temporary journal file): the end-phase writes are to come.
marked() {
	local j
	for j in "$D/a/db1.gen" "$D/b/db2.gen"; do
		"$PT" journal "$j" 2>&1 >/dev/null | grep -q " run_id $1 flags 0$" || return 1
	done
	! ls "$D"/a/*.tmp.* "$D"/b/*.tmp.* >/dev/null 2>&1
}
# frozen PID ID: 0 with PID stopped while run ID is marked and before its
# final journal writes; 1 when PID got past that first (it is left going).
frozen() {
	local pid=$1 id=$2
	while kill -0 "$pid" 2>/dev/null; do
		# the forked shell until it has exec'd the binary: not frozen then
		[ "$(cat /proc/$pid/comm 2>/dev/null)" = diskproof ] || { sleep 0.01; continue; }
		if marked "$id"; then
			kill -STOP "$pid"
			while ! all_stopped "$pid"; do sleep 0.01; done
			marked "$id" && return 0
			kill -CONT "$pid"
			return 1
		fi
		sleep 0.02
	done
	return 1
}
# mid_run WHAT FAULT: a run frozen by frozen(), FAULT (a command) made while
# it is frozen, then let go; its exit code in $rc, stderr in $WORK/err.mid.
# A run that got past the point before it was caught (a machine that
# stalled for seconds) ends on its own and a new one is tried.
mid_run() {
	local what=$1 fault=$2 id pid try
	for try in 1 2 3 4 5; do
		id=$(($(sqlite3 "$WORK/r.db" "select coalesce(max(id),0) from run") + 1))
		# the binary itself in the background (a function would be a
		# subshell, and its pid not the run's)
		"$DISKPROOF" run "$T" --data-dir "$D" --results "$WORK/r.db" --quiet --duration 4s \
			>"$WORK/out.mid" 2>"$WORK/err.mid" &
		pid=$!
		if frozen $pid $id; then
			$fault
			kill -CONT $pid
			set +e
			wait $pid
			rc=$?
			set -e
			echo "$what: the fault made in run $id (try $try)"
			return 0
		fi
		wait $pid || true
		echo "$what: run $id got past its measuring before it was caught; again"
	done
	fail "$what: no run caught in 5 tries"
}
# no_destroy_advice WHAT FILE: nothing in FILE invites destroying data
no_destroy_advice() {
	! grep -q -- "--destroy-data" "$2" || fail "$1: advises --destroy-data: $(cat "$2")"
	! grep -q "not a diskproof generation journal" "$2" ||
		fail "$1: calls the journal not ours: $(cat "$2")"
}

expect_verdict run_tiny --duration 2s

# full before the run: refused before the first write
fill
sum0=$(cat "$D"/a/db1.edb "$D"/b/db2.edb | sha256sum)
expect_exit 3 run_tiny --duration 2s
grep -q "journal" "$WORK/err" && grep -q "No space left" "$WORK/err" ||
	fail "full before the run: $(cat "$WORK/err")"
[ "$(last_status)" = error ] || fail "full before the run: status $(last_status)"
[ "$(cat "$D"/a/db1.edb "$D"/b/db2.edb | sha256sum)" = "$sum0" ] ||
	fail "full before the run: the databases were written"
unfill
after "full before the run"

# full during the run: the end-phase journal write fails: exit 3, error
mid_run "full during the run" fill
[ $rc = 3 ] || { cat "$WORK/err.mid"; fail "full during the run: exit $rc, want 3"; }
grep -q "db[12].gen.*No space left on device" "$WORK/err.mid" ||
	fail "full during the run: $(cat "$WORK/err.mid")"
[ "$(last_status)" = error ] || fail "full during the run: status $(last_status)"
no_destroy_advice "full during the run" "$WORK/err.mid"
unfill
after "full during the run"

# the filesystem shut down mid-run (as a dying disk would leave it): the
# journal cannot be read, said as an I/O error, never as "not a journal"
mid_run "shut down mid-run" shutdown_fs
[ $rc = 3 ] || { cat "$WORK/err.mid"; fail "shut down mid-run: exit $rc, want 3"; }
[ "$(last_status)" = error ] || fail "shut down mid-run: status $(last_status)"
grep -q "db[12].gen: cannot read the journal: Input/output error" "$WORK/err.mid" ||
	fail "shut down mid-run: the journal's I/O error not said: $(cat "$WORK/err.mid")"
no_destroy_advice "shut down mid-run" "$WORK/err.mid"
sqlite3 "$WORK/r.db" "select message from event where run_id=(select max(id) from run)" \
	>events.mid
grep -q "cannot read the journal: Input/output error" events.mid ||
	fail "shut down mid-run: no event says the I/O error: $(cat events.mid)"
no_destroy_advice "shut down mid-run (events)" events.mid
# the other commands on the shut-down filesystem: each says an I/O error,
# none calls anything there not diskproof's or invites --destroy-data
for cmd in verify init run; do
	extra=()
	[ $cmd = run ] && extra=(--duration 1s)
	set +e
	"$DISKPROOF" $cmd "$T" --data-dir "$D" --results "$WORK/r.db" --quiet "${extra[@]}" \
		>"$WORK/out.$cmd" 2>"$WORK/err.$cmd"
	c=$?
	set -e
	[ $c = 3 ] || { cat "$WORK/err.$cmd"; fail "$cmd on the shut-down filesystem: exit $c, want 3"; }
	grep -q "Input/output error" "$WORK/err.$cmd" ||
		fail "$cmd on the shut-down filesystem: $(cat "$WORK/err.$cmd")"
	no_destroy_advice "$cmd on the shut-down filesystem" "$WORK/err.$cmd"
	! grep -q "not a diskproof" "$WORK/err.$cmd" ||
		fail "$cmd calls a file not diskproof's: $(cat "$WORK/err.$cmd")"
done
remount
after "shut down mid-run"

# through the page cache (direct = off): a passing run, then the filesystem
# shut down without flushing its log (as a power cut would leave it): the
# pages were flushed before their clean journal, so none is a false lost write
sed -e 's/^name = io_uring/name = io_uring\ndirect = off/' "$T" >buffered.ini
grep -q "^direct = off" buffered.ini || fail "buffered.ini"
rm -rf "$D"
expect_exit 0 "$DISKPROOF" init ./buffered.ini --data-dir "$D" --quiet
sync
# its reads can come from the page cache: PASS, FAIL, or inconclusive (5,
# the reads did not reach the device, docs/verdicts.md) are all a run that
# ended with its results
set +e
"$DISKPROOF" run ./buffered.ini --data-dir "$D" --duration 2s --results "$WORK/r.db" --quiet \
	>"$WORK/out" 2>"$WORK/err"
rc=$?
set -e
case $rc in
0 | 1 | 5) ;;
*) cat "$WORK/err" >&2; fail "buffered run: exit $rc" ;;
esac
shutdown_fs
remount
expect_exit 0 "$DISKPROOF" verify ./buffered.ini --data-dir "$D" --results "$WORK/r.db"
echo ok
