#!/bin/bash
# SPDX-License-Identifier: MIT
# A full disk, on small loop-mounted ext4 filesystems (root only; skipped
# without loop devices): not enough space for the databases is refused before
# anything is written (exit 3, says how much is needed and free); running out
# of room mid-way while creating files (no inodes left) is a clear exit 3; a
# results file whose filesystem fills up mid-run stops the run with exit 3
# before SQLite runs out of room, and stays a consistent, usable file.
source "$(dirname "$0")/lib.sh"
set -e
[ "$(id -u)" = 0 ] || { echo "skipped: needs root for loop mounts"; exit 77; }
command -v mkfs.ext4 >/dev/null || { echo "skipped: no mkfs.ext4"; exit 77; }
MNTS=()
cleanup() {
	for m in "${MNTS[@]}"; do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true; done
	rm -rf "$WORK"
}
trap cleanup EXIT
mkloopfs() { # NAME SIZE [mkfs options...]
	local name=$1 size=$2
	shift 2
	truncate -s "$size" "$WORK/$name.img"
	mkfs.ext4 -q -F "$@" "$WORK/$name.img" >/dev/null
	mkdir -p "$WORK/$name"
	if ! mount -o loop "$WORK/$name.img" "$WORK/$name" 2>"$WORK/mount.err"; then
		echo "skipped: cannot loop-mount: $(cat "$WORK/mount.err")"
		exit 77
	fi
	MNTS+=("$WORK/$name")
}
skip_without_uring
T="$DP_SOURCE_DIR/tests/integration/profiles/tiny.ini"

# 1. not enough room: refused up front
mkloopfs small 16M
expect_exit 3 "$DISKPROOF" run "$T" --data-dir "$WORK/small/data" --results "$WORK/r.db"
grep -q "not enough free space: the databases and logs need 18 MiB more, .* is free" err ||
	fail "free-space message: $(cat err)"
[ -z "$(find "$WORK/small/data" -type f 2>/dev/null)" ] || fail "files were written"

# 2. out of inodes mid-way: the first files are made, then ENOSPC
mkloopfs inodes 128M -b 4096 -N 16
expect_exit 3 "$DISKPROOF" run "$T" --data-dir "$WORK/inodes/data" --results "$WORK/r.db"
grep -q "cannot create: No space left on device" err || fail "ENOSPC message: $(cat err)"
[ -z "$(sqlite3 r.db "select id from run")" ] || fail "a run row was written before the files"

# 3. the results file's filesystem fills up mid-run: the run stops while
# SQLite still has room to finish the row, and the file stays usable
mkloopfs res 16M
S="$DP_SOURCE_DIR/tests/integration/profiles/sim.ini"
expect_exit 3 "$DISKPROOF" run "$S" --duration 24h --results "$WORK/res/r.db"
grep -q "the results file's filesystem is nearly full" err || fail "no full-disk message: $(cat err)"
[ "$(sqlite3 "$WORK/res/r.db" "pragma integrity_check")" = ok ] || fail "results file damaged"
[ "$(sqlite3 "$WORK/res/r.db" "select status from run where id=1")" = error ] || fail "status"
n=$(sqlite3 "$WORK/res/r.db" "select count(*) from sample")
[ "$n" -gt 0 ] || fail "no samples kept"
expect_exit 0 "$DISKPROOF" list --results "$WORK/res/r.db"
# and a run whose results would go to an (almost) full filesystem is refused
# before any data is written
mkloopfs tiny 8M
expect_exit 3 "$DISKPROOF" run "$T" --data-dir "$WORK/data3" --results "$WORK/tiny/r.db"
grep -q "nearly full" err || fail "full results filesystem not refused up front"
[ ! -e "$WORK/data3" ] || fail "data written"
echo "ok"
