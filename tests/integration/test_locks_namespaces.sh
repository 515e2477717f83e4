#!/bin/bash
# SPDX-License-Identifier: MIT
# Locks that cannot be taken, and loop devices seen from private mount
# namespaces (root; unshare -m; loop devices from losetup -f, detached at
# exit; every mount is made inside a namespace of its own and goes with it).
#  1. The device lock directory unusable (a read-only /run/lock, a file or a
#     symbolic link at /run/lock/diskproof, a directory there writable by
#     others, no /run/lock under a read-only /run): run, init and verify on a
#     loop device exit 3 naming the path and why, check says FAIL; with
#     --no-lock they go on, warn on stderr, and the run stores a "lock" event.
#  2. A volume directory on a read-only bind mount without a lock file (the
#     filesystem is still writable through its other mount): verify and
#     clean exit 3 naming the lock file; check says FAIL; a lock file that
#     is a symbolic link refuses clean, which --no-lock lets go on.
#  3. Two loop devices over one image, each used from a namespace with its
#     own empty /run/lock: the second run (and verify, init) is refused,
#     naming the first run's pid, by the lock on the image file itself; and
#     from a namespace where /sys's path of the image is another file, the
#     loop device is still named by the image (LOOP_GET_STATUS64). An image
#     that is another file there, or deleted, cannot be locked: refused,
#     and --no-lock goes on.
# No machine-wide lock: the loop devices are free ones, the lock files under
# the real /run/lock are named by this test's own image.
source "$(dirname "$0")/lib.sh"
# warnings whole on one line (off a terminal they wrap at 120 columns;
# test_first_screen checks the width)
export COLUMNS=1000
set -e
need_root "mount namespaces"
command -v unshare >/dev/null || { echo "skipped: no unshare"; exit 77; }
unshare -m true 2>/dev/null || { echo "skipped: unshare -m is not allowed here"; exit 77; }
skip_without_uring
mkdir img
loop_device img/disk.img 64M
DEV=$LOOP_DEV

# in_ns SETUP CMD...: CMD in a new private mount namespace, after the shell
# commands SETUP have run there
in_ns() {
	local setup=$1
	shift
	unshare -m --propagation private sh -c "$setup"' && exec "$@"' in_ns "$@"
}

cat >dev.ini <<INI
[test]
duration = 1s
warmup = 0s
[sizing]
database_size = 16MiB
log_size = 2MiB
[engine]
streams = 4
[volume d]
path = $DEV
databases = 2
INI
expect_exit 0 "$DISKPROOF" init ./dev.ini --destroy-data "$DEV" --quiet

# --- 1. the device lock directory unusable
RO="mount -t tmpfs -o ro tmpfs /run/lock"
FILE="mount -t tmpfs tmpfs /run/lock && touch /run/lock/diskproof"
LINK="mount -t tmpfs tmpfs /run/lock && ln -s /tmp /run/lock/diskproof"
OPEN="mount -t tmpfs tmpfs /run/lock && mkdir -m 777 /run/lock/diskproof"
NORUN="mount -t tmpfs -o ro tmpfs /run"
for setup in "$RO" "$FILE" "$LINK" "$OPEN" "$NORUN"; do
	case $setup in
	"$RO") why="cannot make the device lock directory /run/lock/diskproof: Read-only file system" ;;
	"$FILE") why="/run/lock/diskproof is a regular file, not a directory" ;;
	"$LINK") why="/run/lock/diskproof is a symbolic link, not a directory" ;;
	"$OPEN") why="/run/lock/diskproof: not owned by root (or this user) or writable by others" ;;
	"$NORUN") why="cannot make the device lock directory /run/lock/diskproof: No such file or directory" ;;
	esac
	quick 3 in_ns "$setup" "$DISKPROOF" run ./dev.ini --results "$WORK/r.db" --quiet
	grep -qF "volume d ($DEV): $why" err || fail "run [$setup]: $(cat err)"
	grep -q "pass --no-lock" err || fail "run [$setup] says nothing of --no-lock: $(cat err)"
	[ ! -e r.db ] || [ "$(sqlite3 r.db "select count(*) from run")" = 0 ] ||
		fail "run [$setup] stored a run"
	quick 3 in_ns "$setup" "$DISKPROOF" init ./dev.ini --quiet
	grep -qF "volume d ($DEV): $why" err || fail "init [$setup]: $(cat err)"
	quick 3 in_ns "$setup" "$DISKPROOF" verify ./dev.ini --quiet
	grep -qF "volume d ($DEV): $why" err || fail "verify [$setup]: $(cat err)"
	expect_exit 3 in_ns "$setup" "$DISKPROOF" check ./dev.ini
	grep -qF "FAIL  locks: volume d ($DEV): $why" out || fail "check [$setup]: $(cat out)"
	! grep -q "^OK    locks" out || fail "check [$setup] says OK: $(cat out)"
done
# --no-lock: they go on, saying so, and the run keeps it among its events
for setup in "$RO" "$NORUN"; do
	expect_verdict in_ns "$setup" "$DISKPROOF" run ./dev.ini --results "$WORK/r.db" --quiet --no-lock
	grep -q "warning: --no-lock: volume d ($DEV) is not locked (.*/run/lock/diskproof.*); a second command on it would not be refused" err ||
		fail "run --no-lock [$setup]: $(cat err)"
	id=$(sqlite3 r.db "select max(id) from run")
	ev=$(sqlite3 r.db "select message from event where run_id=$id and kind='lock'")
	echo "$ev" | grep -q "^--no-lock: volume d ($DEV) is not locked" || fail "event [$setup]: $ev"
	expect_exit 0 in_ns "$setup" "$DISKPROOF" init ./dev.ini --quiet --no-lock
	grep -q "warning: --no-lock: volume d ($DEV) is not locked" err || fail "init --no-lock: $(cat err)"
	expect_exit 0 in_ns "$setup" "$DISKPROOF" verify ./dev.ini --quiet --no-lock
	grep -q "warning: --no-lock: volume d ($DEV) is not locked" err || fail "verify --no-lock: $(cat err)"
	# check fails all the same: it says what a command without --no-lock meets
	expect_exit 3 in_ns "$setup" "$DISKPROOF" check ./dev.ini
done
[ "$(sqlite3 r.db "select count(*) from summary where integrity_errors > 0")" = 0 ] ||
	fail "integrity errors with --no-lock"

# --- 2. a volume directory on a read-only bind mount, no lock file there
T="$DP_SOURCE_DIR/tests/integration/profiles/tiny.ini"
expect_exit 0 "$DISKPROOF" init "$T" --data-dir "$WORK/d" --quiet
rm -f "$WORK/d/a/.diskproof.lock" "$WORK/d/b/.diskproof.lock"
ROBIND="mount --bind -o ro '$WORK/d' '$WORK/d'"
quick 3 in_ns "$ROBIND" "$DISKPROOF" verify "$T" --data-dir "$WORK/d" --quiet
grep -qF "volume a ($WORK/d/a): cannot create the lock file $WORK/d/a/.diskproof.lock: Read-only file system" err ||
	fail "verify on a read-only bind mount: $(cat err)"
quick 3 in_ns "$ROBIND" "$DISKPROOF" clean "$T" --data-dir "$WORK/d" --yes
grep -q "cannot create the lock file $WORK/d/a/.diskproof.lock.*nothing removed" err ||
	fail "clean on a read-only bind mount: $(cat err)"
expect_exit 3 in_ns "$ROBIND" "$DISKPROOF" check "$T" --data-dir "$WORK/d"
grep -qF "FAIL  locks: volume a ($WORK/d/a): cannot create the lock file" out || fail "check: $(cat out)"
expect_exit 0 in_ns "$ROBIND" "$DISKPROOF" verify "$T" --data-dir "$WORK/d" --quiet --no-lock
grep -q "warning: --no-lock: volume a ($WORK/d/a) is not locked" err || fail "verify --no-lock: $(cat err)"
[ ! -e "$WORK/d/a/.diskproof.lock" ] || fail "a lock file appeared under the read-only mount"
# a lock file that is a symbolic link: clean refused, and with --no-lock done
ln -s "$WORK/nowhere" "$WORK/d/a/.diskproof.lock"
quick 3 "$DISKPROOF" clean "$T" --data-dir "$WORK/d" --yes
grep -q "is a symbolic link.*nothing removed" err || fail "clean with a linked lock file: $(cat err)"
expect_exit 0 "$DISKPROOF" clean "$T" --data-dir "$WORK/d" --yes --no-lock
grep -q "warning: --no-lock: volume a ($WORK/d/a) is not locked (.*symbolic link" err ||
	fail "clean --no-lock: $(cat err)"
[ ! -e "$WORK/d/a/db1.edb" ] && [ ! -e "$WORK/d/b/db2.edb" ] || fail "clean --no-lock removed nothing"
[ ! -e "$WORK/nowhere" ] || fail "the link's target was made"

# --- 3. two loop devices over one image, each namespace its own /run/lock
DEV2=$(losetup --find --show img/disk.img)
at_exit "losetup -d $DEV2"
sed "s|^path = $DEV\$|path = $DEV2|" dev.ini >dev2.ini
OWN="mount -t tmpfs tmpfs /run/lock"
# (unshare and sh exec: $! is the run's own pid)
unshare -m --propagation private sh -c "$OWN"' && exec "$@"' in_ns \
	"$DISKPROOF" run ./dev.ini --duration 8s --results "$WORK/r.db" --quiet >"$WORK/o1" 2>"$WORK/e1" &
p1=$!
at_exit "kill $p1"
wait_running
quick 3 in_ns "$OWN" "$DISKPROOF" run ./dev2.ini --results "$WORK/r2.db" --quiet
grep -q "volume d ($DEV2): in use by pid $p1 (diskproof run) through another loop device over the same file ($WORK/img/disk.img)" err ||
	fail "the second loop device, own /run/lock: $(cat err)"
quick 3 in_ns "$OWN" "$DISKPROOF" verify ./dev2.ini --quiet
grep -q "in use by pid $p1 (diskproof run)" err || fail "verify on the second loop device: $(cat err)"
quick 3 in_ns "$OWN" "$DISKPROOF" init ./dev2.ini --quiet
grep -q "in use by pid $p1 (diskproof run)" err || fail "init on the second loop device: $(cat err)"
# --no-lock does not override a command that holds the image
quick 3 in_ns "$OWN" "$DISKPROOF" verify ./dev2.ini --quiet --no-lock
grep -q "in use by pid $p1" err || fail "verify --no-lock over a held image: $(cat err)"
expect_exit 0 in_ns "$OWN" "$DISKPROOF" check ./dev2.ini
grep -q "^WARN  locks: volume d ($DEV2): in use by pid $p1" out || fail "check, held image: $(cat out)"
set +e
wait $p1
r1=$?
set -e
[ $r1 = 0 ] || [ $r1 = 1 ] || { cat "$WORK/e1"; fail "the first run exited $r1"; }
[ "$(sqlite3 r.db "select coalesce(sum(integrity_errors), 0) from summary")" = 0 ] ||
	fail "integrity errors on the image"

# /sys names the image by a path that is another file in this namespace:
# the loop device is still named by the image itself, and the run in the
# first namespace (sharing /run/lock) refuses this one
DECOY="mount -t tmpfs tmpfs '$WORK/img' && touch '$WORK/img/disk.img'"
"$DISKPROOF" run ./dev.ini --duration 8s --results "$WORK/r3.db" --quiet >"$WORK/o1" 2>"$WORK/e1" &
p2=$!
at_exit "kill $p2"
for _ in $(seq 1 200); do
	[ "$(sqlite3 r3.db "select count(*) from run where status='running'" 2>/dev/null)" = 1 ] && break
	sleep 0.1
done
quick 3 in_ns "$DECOY" "$DISKPROOF" run ./dev2.ini --results "$WORK/r4.db" --quiet
grep -q "volume d ($DEV2): in use by diskproof run (pid $p2" err || fail "decoy image: $(cat err)"
set +e
wait $p2
r2=$?
set -e
[ $r2 = 0 ] || [ $r2 = 1 ] || { cat "$WORK/e1"; fail "the decoy-case run exited $r2"; }
# alone, the decoy namespace cannot lock the image: refused, saying why
quick 3 in_ns "$DECOY" "$DISKPROOF" verify ./dev2.ini --quiet
grep -qF "volume d ($DEV2): cannot lock the file behind the loop device" err ||
	fail "decoy image, alone: $(cat err)"
expect_exit 0 in_ns "$DECOY" "$DISKPROOF" verify ./dev2.ini --quiet --no-lock
# the image deleted under its loop devices: nothing can open it to lock it
rm img/disk.img
quick 3 "$DISKPROOF" verify ./dev.ini --quiet
grep -qF "volume d ($DEV): cannot lock the file behind the loop device ($WORK/img/disk.img (deleted)): it was deleted" err ||
	fail "deleted image: $(cat err)"
expect_exit 3 "$DISKPROOF" check ./dev.ini
grep -q "^FAIL  locks: volume d ($DEV): cannot lock the file behind the loop device" out ||
	fail "check, deleted image: $(cat out)"
expect_exit 0 "$DISKPROOF" verify ./dev.ini --quiet --no-lock
echo "ok"
