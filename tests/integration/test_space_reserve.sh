#!/bin/bash
# SPDX-License-Identifier: MIT
# The results file keeps 8 MiB free on its filesystem (STORE_MIN_FREE): when
# the databases share that filesystem, plan and run count the reserve in its
# need. A layout that fits with the results file elsewhere is refused (exit 3,
# before anything is written) with the results file beside it. Root only (a
# loop-mounted ext4).
source "$(dirname "$0")/lib.sh"
set -e
[ "$(id -u)" = 0 ] || { echo "skipped: needs root for loop mounts"; exit 77; }
command -v mkfs.ext4 >/dev/null || { echo "skipped: no mkfs.ext4"; exit 77; }
MNT="$WORK/fs"
cleanup() {
	umount "$MNT" 2>/dev/null || umount -l "$MNT" 2>/dev/null || true
	rm -rf "$WORK"
}
trap cleanup EXIT
truncate -s 64M "$WORK/fs.img"
mkfs.ext4 -q -F -m 0 "$WORK/fs.img" >/dev/null
mkdir -p "$MNT"
mount -o loop "$WORK/fs.img" "$MNT" 2>"$WORK/mount.err" ||
	{ echo "skipped: cannot loop-mount: $(cat "$WORK/mount.err")"; exit 77; }

# databases and log take all but 4 MiB of the free space
free=$(($(stat -f -c '%a' "$MNT") * $(stat -f -c '%S' "$MNT")))
db=$(((free - (4 << 20) - (1 << 20)) / 32768 * 32768))
cat >fit.ini <<INI
[test]
duration = 1s
[sizing]
database_size = $db
log_size = 1MiB
[workload]
log_segment_size = 256KiB
[engine]
streams = 2
[volume a]
path = ./a
INI
expect_exit 0 "$DISKPROOF" plan ./fit.ini --data-dir "$MNT/data" --results "$WORK/r.db"
expect_exit 3 "$DISKPROOF" plan ./fit.ini --data-dir "$MNT/data" --results "$MNT/r.db" --format json
[ "$(json 'd["filesystems"][0]["results_reserve"]')" = 8388608 ] || fail "reserve not counted"
grep -q "not enough free space.*(the need includes the 8 MiB the results file keeps free)" err ||
	fail "plan: $(cat err)"
expect_exit 3 "$DISKPROOF" run ./fit.ini --data-dir "$MNT/data" --results "$MNT/r.db"
grep -q "the need includes the 8 MiB the results file keeps free" err || fail "run: $(cat err)"
[ ! -e "$MNT/r.db" ] && [ ! -e "$MNT/data" ] || fail "run wrote something"
echo "ok"
