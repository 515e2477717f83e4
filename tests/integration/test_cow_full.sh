#!/bin/bash
# SPDX-License-Identifier: MIT
# A write that fails on a full copy-on-write filesystem is never reported as
# corruption (docs/integrity.md, "Failed writes"). On a small loop-mounted
# btrfs of its own (root; skipped without mkfs.btrfs or io_uring), where
# every O_DIRECT overwrite of a page needs a new extent:
# - plan and check warn that overwrites need free space there (text and
#   JSON), and not on a directory marked NOCOW (chattr +C);
# - a database is made, then the filesystem filled to its last block but
#   for 68 KiB (an odd number of 4 KiB blocks): the run's first page writes
#   take it, then one 8 KiB page write lands half and fails, the rest fail
#   with ENOSPC at once, as on the issue's machine. The run stops with exit 3
#   saying there is no space; its last journal, which finds no room, goes
#   into one of the two spares kept beside it, and marks each page whose
#   write failed;
# - verify exits 0 and names each such page "write failed in run 1" (the
#   torn one included), never "checksum mismatch";
# - with room made, the next run reads those pages without an integrity
#   error and writes them anew; verify still exits 0;
# - a corruption planted in another page (a byte flipped) still makes
#   verify exit 4, and the failed pages are still not called corrupt.
# The database's log is kept off the btrfs (log_path), so that only 8 KiB
# page writes take its space and the torn write happens every time.
source "$(dirname "$0")/lib.sh"
set -e
need_root "loop mounts"
command -v mkfs.btrfs >/dev/null || { echo "skipped: no mkfs.btrfs"; exit 77; }
command -v chattr >/dev/null || { echo "skipped: no chattr"; exit 77; }
skip_without_uring
PT="$DP_BINARY_DIR/tests/pagetool"
MNT="$WORK/mnt"
mkdir -p "$MNT" "$WORK/logs"
truncate -s 200M "$WORK/b.img"
mkfs.btrfs -q "$WORK/b.img" >/dev/null 2>&1 || { echo "skipped: mkfs.btrfs failed"; exit 77; }
mount -o loop "$WORK/b.img" "$MNT" || { echo "skipped: cannot loop-mount btrfs"; exit 77; }
at_exit "umount '$MNT' || umount -l '$MNT'"

cat >cow.ini <<INI
[test]
duration = 5s
warmup = 0s
[sizing]
database_size = 3MiB
log_size = 1MiB
[workload]
page_size = 8KiB
log_segment_size = 256KiB
[engine]
name = io_uring
streams = 4
[volume a]
path = $MNT/a
log_path = $WORK/logs
databases = 1
INI
R="$WORK/r.db"
DB="$MNT/a/db1.edb"
run_cow() { "$DISKPROOF" run cow.ini --results "$R" --quiet "$@"; }
integrity_errors() { # of the latest run
	sqlite3 "$R" "select coalesce(sum(integrity_errors),0) from summary
		where run_id=(select max(id) from run) and scope='run'"
}

# plan and check warn, in text and JSON; a NOCOW directory does not
expect_exit 0 "$DISKPROOF" plan cow.ini
grep -q "copy-on-write (btrfs): overwrites need free space; keep 3 MiB free" out ||
	fail "plan does not warn: $(cat out)"
expect_exit 0 "$DISKPROOF" plan cow.ini --format json
python3 - out <<'EOF' || fail "plan JSON: $(cat "$WORK/out")"
import json, sys
fs = json.load(open(sys.argv[1]))["filesystems"]
cow = [f for f in fs if f["copy_on_write"]]
assert len(cow) == 1 and cow[0]["copy_on_write"] == "btrfs", fs
assert cow[0]["keep_free"] == 3 * 1024 * 1024, cow[0]
assert all(f["keep_free"] == 0 for f in fs if not f["copy_on_write"]), fs
EOF
expect_exit 0 "$DISKPROOF" check cow.ini
grep -q "^WARN  copy-on-write: .*btrfs.*keep 3 MiB free" out || fail "check does not warn: $(cat out)"
mkdir "$MNT/nocow"
chattr +C "$MNT/nocow"
sed "s|^path = .*|path = $MNT/nocow|" cow.ini >nocow.ini
expect_exit 0 "$DISKPROOF" plan nocow.ini
! grep -q "copy-on-write" out || fail "plan warns on a NOCOW directory: $(cat out)"
rmdir "$MNT/nocow"

expect_exit 0 "$DISKPROOF" init cow.ini --results "$R" --quiet
ls "$MNT"/a/db1.gen.spare.1 "$MNT"/a/db1.gen.spare.2 >/dev/null || fail "no journal spares"

# full but for 68 KiB, made free just before the run
head -c $((68 * 1024)) /dev/zero >"$MNT/room"
sync
for pass in 1 2; do
	dd if=/dev/zero of="$MNT/fill.$pass" bs=1M 2>/dev/null || true
	for i in $(seq 1 64); do
		head -c 4096 /dev/zero 2>/dev/null >"$MNT/fill.$pass.$i" || break
	done
	sync
done
rm "$MNT/room"
sync

expect_exit 3 run_cow
grep -q "No space left on device" err || fail "run: no ENOSPC named: $(cat err)"
grep -q "copy-on-write" err || fail "run: the stop does not say why: $(cat err)"
[ "$(sqlite3 "$R" "select status from run where id=1")" = error ] || fail "run 1 not an error"
# the full filesystem took its last journal in a spare: one left
[ "$(ls "$MNT"/a/db1.gen.spare.* | wc -l)" = 1 ] || fail "the last journal did not go into a spare"
"$PT" journal "$MNT/a/db1.gen" 2>/dev/null | awk '$2 == "failed" { print $1 }' >failed.txt
[ -s failed.txt ] || fail "no failed-write mark in the journal"
awk '$3 != 1 { exit 1 }' <("$PT" journal "$MNT/a/db1.gen" 2>/dev/null | grep failed) ||
	fail "a mark does not name run 1"
# the pages marked are pages whose writes the run reported failed
sqlite3 "$R" "select message from event where run_id=1 and message like '%db1.edb: write%failed%'" |
	sed 's/.* at offset \([0-9]*\) failed.*/\1/' | awk '{ print $1 / 8192 }' | sort -n >events.txt
comm -23 <(sort -n failed.txt) events.txt | grep . && fail "marked pages with no failed write"
# the issue's case: a page the failed write left torn
torn=0
while read -r pg; do
	[ "$("$PT" crc "$DB" "$pg")" = bad ] && torn=$((torn + 1))
done <failed.txt
[ $torn -ge 1 ] || fail "no torn page among $(wc -l <failed.txt) failed writes: the test lost its case"

expect_exit 0 "$DISKPROOF" verify cow.ini
n=$(grep -c ": write failed in run 1" out || true)
[ "$n" = "$(wc -l <failed.txt)" ] || fail "verify names $n failed pages, the journal $(wc -l <failed.txt): $(cat out)"
! grep -q "checksum mismatch" out || fail "a failed write called corrupt: $(cat out)"
grep -q "not an integrity error" err || fail "verify says nothing of the failed writes: $(cat err)"
expect_exit 0 "$DISKPROOF" verify cow.ini --format json
python3 - out "$(wc -l <failed.txt)" <<'EOF' || fail "verify JSON: $(cat "$WORK/out")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["result"] == "clean" and d["integrity_errors"] == 0, d
assert d["write_failed"] == int(sys.argv[2]), d["write_failed"]
bad = d["databases"][0]["bad_listed"]
assert all(b["problem"] == "write_failed" and b["failed_in_run"] == 1 for b in bad), bad
EOF

# room again: the next run reads and rewrites them, with no integrity error
rm -f "$MNT"/fill*
sync
expect_verdict run_cow
[ "$(integrity_errors)" = 0 ] || fail "run 2 found $(integrity_errors) integrity errors"
sqlite3 "$R" "select message from event where run_id=2 and kind='journal'" |
	grep -q "^db1: [0-9]* page(s) whose last write failed (run 1)" ||
	fail "run 2 does not note the pages whose write failed"
expect_exit 0 "$DISKPROOF" verify cow.ini
! grep -q "checksum mismatch" out || fail "after run 2: $(cat out)"
"$PT" journal "$MNT/a/db1.gen" 2>/dev/null | awk '$2 == "failed" { print $1 }' >failed2.txt
[ "$(wc -l <failed2.txt)" -lt "$(wc -l <failed.txt)" ] || fail "run 2 rewrote none of them"

# a real corruption elsewhere is still one
good=$("$PT" journal "$MNT/a/db1.gen" 2>/dev/null | awk '$2 != "failed" && $1 > 0 { print $1; exit }')
printf '\xff' | dd of="$DB" bs=1 seek=$((good * 8192 + 4000)) conv=notrunc 2>/dev/null
sync
expect_exit 4 "$DISKPROOF" verify cow.ini
grep -q "^db1 page $good .*checksum mismatch" out || fail "planted corruption not found: $(cat out)"
[ "$(grep -c "checksum mismatch: corrupt" out)" = 1 ] || fail "more than the planted page: $(cat out)"
spares=$(ls "$MNT"/a/db1.gen.spare.* 2>/dev/null | wc -l)
echo "ok: $(wc -l <failed.txt) failed page writes marked ($torn torn), $(wc -l <failed2.txt) still marked after run 2; $spares spare(s) now"

