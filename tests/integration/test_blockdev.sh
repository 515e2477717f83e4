#!/bin/bash
# SPDX-License-Identifier: MIT
# Raw block devices as volumes, on a loop device (root only): one carrying an
# ext4 filesystem is refused by init and by run, without --destroy-data and
# with it alone, its first MiB unchanged; a mounted one is refused even with
# --destroy-data and --force; with both flags the device is initialized
# (databases, logs and journals as regions of it), verified, and runs.
source "$(dirname "$0")/lib.sh"
set -e
[ "$(id -u)" = 0 ] || { echo "skipped: needs root for loop devices"; exit 77; }
command -v losetup >/dev/null && command -v mkfs.ext4 >/dev/null ||
	{ echo "skipped: no losetup or mkfs.ext4"; exit 77; }
DEV=""
MNT=""
cleanup() {
	[ -n "$MNT" ] && umount "$MNT" 2>/dev/null
	[ -n "$DEV" ] && losetup -d "$DEV" 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT
skip_without_uring
truncate -s 96M disk.img
mkfs.ext4 -q -F -L precious disk.img
DEV=$(losetup --find --show disk.img 2>"$WORK/losetup.err") ||
	{ echo "skipped: losetup: $(cat "$WORK/losetup.err")"; exit 77; }
cat >dev.ini <<INI
[test]
duration = 3s
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
first() { dd if="$DEV" bs=1M count=1 status=none | sha256sum; }
sum=$(first)

expect_exit 3 "$DISKPROOF" init ./dev.ini --results "$WORK/r.db"
grep -q "$DEV: the block device does not hold diskproof's databases (it carries an ext4 filesystem (LABEL=precious)); name it with --destroy-data" err ||
	fail "init without --destroy-data: $(cat err)"
expect_exit 3 "$DISKPROOF" run ./dev.ini --results "$WORK/r.db"
grep -q "does not hold diskproof's databases" err || fail "run without --destroy-data: $(cat err)"
expect_exit 3 "$DISKPROOF" init ./dev.ini --destroy-data "$DEV" --results "$WORK/r.db"
grep -q "$DEV: the block device carries an ext4 filesystem (LABEL=precious); add --force" err ||
	fail "init with --destroy-data alone: $(cat err)"
expect_exit 3 "$DISKPROOF" run ./dev.ini --destroy-data "$DEV" --results "$WORK/r.db"
grep -q "add --force" err || fail "run with --destroy-data alone: $(cat err)"
[ "$(first)" = "$sum" ] || fail "the device's first MiB changed"

# mounted: refused even with both flags
mkdir mnt
mount "$DEV" mnt && MNT="$WORK/mnt"
expect_exit 3 "$DISKPROOF" init ./dev.ini --destroy-data "$DEV" --force --results "$WORK/r.db"
grep -q "the block device is in use" err || fail "mounted device: $(cat err)"
umount mnt && MNT=""
# (mounting updated the superblock: check the filesystem is whole instead)
e2fsck -n -f "$DEV" >/dev/null 2>&1 || fail "the filesystem was damaged"

# both flags: initialized, verified, run
expect_exit 0 "$DISKPROOF" init ./dev.ini --destroy-data "$DEV" --force --results "$WORK/r.db"
[ ! -e "$WORK/$(basename "$DEV")-db1.gen" ] || fail "a journal beside the results file"
expect_exit 0 "$DISKPROOF" verify ./dev.ini --results "$WORK/r.db"
grep -q "journal clean" out || fail "verify: $(cat out)"
set +e
"$DISKPROOF" run ./dev.ini --results "$WORK/r.db" >out 2>err
rc=$?
set -e
[ $rc = 0 ] || [ $rc = 1 ] || { cat err; fail "run on the device exited $rc"; }
[ "$(sqlite3 r.db "select count(*) from summary where scope='database' and class='db_write' and ios > 0")" = 2 ] ||
	fail "no writes to both databases"
# now it holds diskproof's databases: no flag needed any more
expect_exit 0 "$DISKPROOF" init ./dev.ini --results "$WORK/r.db"
grep -q "every file was there already" out || fail "second init: $(cat out)"
expect_exit 0 "$DISKPROOF" verify ./dev.ini --results "$WORK/r.db"

# a filesystem made over it since, which left diskproof's first page header
# alone (as ext4 leaves its first 1 KiB): still probed, refused without both
# flags, the filesystem whole
dd if="$DEV" of=hdr.bin bs=64 count=1 status=none
mkfs.ext4 -q -F -E nodiscard -L newfs "$DEV"
dd if=hdr.bin of="$DEV" bs=64 count=1 conv=notrunc status=none
e2fsck -n -f "$DEV" >/dev/null 2>&1 || fail "the planted filesystem is not whole"
sum=$(first)
expect_exit 3 "$DISKPROOF" init ./dev.ini --results "$WORK/r.db"
grep -q "holds diskproof's databases but also carries an ext4 filesystem" err ||
	fail "init over a filesystem made since: $(cat err)"
expect_exit 3 "$DISKPROOF" run ./dev.ini --results "$WORK/r.db" --quiet
expect_exit 3 "$DISKPROOF" init ./dev.ini --destroy-data "$DEV" --results "$WORK/r.db"
[ "$(first)" = "$sum" ] || fail "the device was written"
e2fsck -n -f "$DEV" >/dev/null 2>&1 || fail "the filesystem made since was damaged"
expect_exit 0 "$DISKPROOF" init ./dev.ini --destroy-data "$DEV" --force --results "$WORK/r.db"
expect_exit 0 "$DISKPROOF" verify ./dev.ini --results "$WORK/r.db"

# one device named twice (here through a link): the volumes' regions would
# overlap, so the profile is refused before anything is written
ln -s "$DEV" devlink
printf '[sizing]\ndatabase_size = 16MiB\nlog_size = 2MiB\n[volume a]\npath = %s\ndatabases = 1\n[volume b]\npath = %s\ndatabases = 1\n' \
	"$DEV" "$WORK/devlink" >twice.ini
sum=$(first)
expect_exit 2 "$DISKPROOF" plan ./twice.ini
grep -q "volumes a and b are the same block device" err || fail "twice: $(cat err)"
expect_exit 2 "$DISKPROOF" init ./twice.ini --destroy-data "$DEV" --force --results "$WORK/r.db"
[ "$(first)" = "$sum" ] || fail "one device named twice was written"
echo "ok"
