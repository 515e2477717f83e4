#!/bin/bash
# A journal that cannot be written fails the run (exit 3), and never leaves a
# stale clean journal behind: the journals' filesystem full before the run
# (refused before the first write, the databases untouched), full during the
# run, and shut down mid-run (EXT4_IOC_SHUTDOWN). Afterwards verify exits 0
# and the next run finds no integrity error. Root: a small ext4 image of its own.
source "$(dirname "$0")/lib.sh"
set -e
skip_without_uring
T="$DP_SOURCE_DIR/tests/integration/profiles/tiny.ini"
MNT="$WORK/mnt"
loop_mount "$MNT" 48M -m 0 -b 4096 -E lazy_itable_init=0,lazy_journal_init=0
D="$MNT/d"

run_tiny() { "$DISKPROOF" run "$T" --data-dir "$D" --results "$WORK/r.db" --quiet "$@"; }
fill() { # fill the filesystem to the last block
	dd if=/dev/zero of="$MNT/fill" bs=1M 2>/dev/null || true
	for i in $(seq 1 256); do
		head -c 4096 /dev/zero 2>/dev/null >"$MNT/fill.$i" || break
	done
	sync
}
unfill() { rm -f "$MNT"/fill*; sync; }
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
run_tiny --duration 3s >"$WORK/out2" 2>"$WORK/err2" &
pid=$!
sleep 1.2
fill
set +e
wait $pid
rc=$?
set -e
[ $rc = 3 ] || { cat "$WORK/err2"; fail "full during the run: exit $rc, want 3"; }
grep -q "journal" "$WORK/err2" || fail "full during the run: $(cat "$WORK/err2")"
[ "$(last_status)" = error ] || fail "full during the run: status $(last_status)"
unfill
after "full during the run"

# the filesystem shut down mid-run (as a dying disk would leave it)
run_tiny --duration 4s >"$WORK/out3" 2>"$WORK/err3" &
pid=$!
sleep 1.2
python3 - "$MNT" <<'EOF'
import fcntl, os, struct, sys
EXT4_IOC_SHUTDOWN = 0x8004587D  # _IOR('X', 125, __u32)
fd = os.open(sys.argv[1], os.O_RDONLY)
fcntl.ioctl(fd, EXT4_IOC_SHUTDOWN, struct.pack("I", 2))  # EXT4_GOING_FLAGS_NOLOGFLUSH
EOF
set +e
timeout 60 tail --pid=$pid -f /dev/null
wait $pid
rc=$?
set -e
[ $rc = 3 ] || { cat "$WORK/err3"; fail "shut down mid-run: exit $rc, want 3"; }
[ "$(last_status)" = error ] || fail "shut down mid-run: status $(last_status)"
umount "$MNT"
mount -o loop "$MNT.img" "$MNT"
after "shut down mid-run"

# through the page cache (direct = off): a passing run, then the filesystem
# shut down without flushing its log (as a power cut would leave it): the
# pages were flushed before their clean journal, so none is a false lost write
sed -e 's/^name = io_uring/name = io_uring\ndirect = off/' "$T" >buffered.ini
grep -q "^direct = off" buffered.ini || fail "buffered.ini"
rm -rf "$D"
expect_exit 0 "$DISKPROOF" init ./buffered.ini --data-dir "$D" --quiet
sync
expect_verdict "$DISKPROOF" run ./buffered.ini --data-dir "$D" --duration 2s --results "$WORK/r.db" \
	--quiet
python3 - "$MNT" <<'EOF'
import fcntl, os, struct, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
fcntl.ioctl(fd, 0x8004587D, struct.pack("I", 2))  # EXT4_IOC_SHUTDOWN, NOLOGFLUSH
EOF
umount "$MNT"
mount -o loop "$MNT.img" "$MNT"
expect_exit 0 "$DISKPROOF" verify ./buffered.ini --data-dir "$D" --results "$WORK/r.db"
echo ok
