#!/bin/bash
# SPDX-License-Identifier: MIT
# Raw-device journals live on the device (a region per database after the
# databases and logs), so they are found the same way whatever the current
# directory or --results: runs and verify from different directories with
# different results files find no integrity error, and a lost write planted
# on the device (a page overwritten with an older image of itself) is found
# by verify from any directory. Nothing is left beside the results files.
source "$(dirname "$0")/lib.sh"
set -e
PT="${PAGETOOL:-$DP_BINARY_DIR/tests/pagetool}"
skip_without_uring
loop_device disk.img 64M
DEV=$LOOP_DEV
cat >dev.ini <<INI
[test]
duration = 2s
warmup = 0s
[sizing]
database_size = 16MiB
log_size = 2MiB
[workload]
log_segment_size = 256KiB
[engine]
streams = 4
[volume d]
path = $DEV
databases = 2
INI
PS=32768
mkdir -p A B C
# plan says where the journals are: after both databases and logs
expect_exit 0 "$DISKPROOF" plan ./dev.ini --format json
off=$(json "d['volumes'][0]['databases'][0]['journal_offset']")
size=$(json "d['volumes'][0]['databases'][0]['journal_size']")
[ "$off" = $((36 << 20)) ] || fail "db1's journal region at $off, expected after the logs"
expect_exit 0 "$DISKPROOF" plan ./dev.ini
grep -q "^  db1 .* journal @$off " "$WORK/out" || fail "plan does not show db1's journal: $(cat "$WORK/out")"

# the device must hold the journal regions too: databases and logs that
# fill it exactly are refused before anything is written
sed 's/^database_size = .*/database_size = 30MiB/' dev.ini >full.ini
expect_exit 3 "$DISKPROOF" plan ./full.ini
grep -q "the databases, logs and their journals need 66 MiB, the device has 64 MiB" "$WORK/err" ||
	fail "too small a device: $(cat "$WORK/err")"
expect_exit 3 "$DISKPROOF" init ./full.ini --destroy-data "$DEV" --results "$WORK/r.db"

cd A
expect_exit 0 "$DISKPROOF" init ../dev.ini --destroy-data "$DEV" --results "$WORK/A/r.db"
expect_verdict "$DISKPROOF" run ../dev.ini --results "$WORK/A/r.db" --quiet
cd ../B
expect_verdict "$DISKPROOF" run ../dev.ini --results "$WORK/B/r.db" --quiet
# back to A's results (a journal beside them would be stale now)
cd ../C
expect_exit 0 "$DISKPROOF" verify ../dev.ini --results "$WORK/A/r.db"
grep -q "^db1: .*no problems; journal clean" "$WORK/out" || fail "verify from C: $(cat "$WORK/out")"
grep -q "^db2: .*no problems; journal clean" "$WORK/out" || fail "verify from C: $(cat "$WORK/out")"
cd "$WORK"
expect_verdict "$DISKPROOF" run ./dev.ini --results "$WORK/A/r.db" --quiet
[ -z "$(ls A B C | grep '\.gen')" ] || fail "journals beside the results: $(ls A B C)"
"$PT" journal "$DEV" "$off" "$size" >j 2>/dev/null || fail "no journal in db1's region"

# a lost write: db1 (at byte 0 of the device) page P back to generation G - 1
read -r P G < <(awk '$2 >= 2 {print; exit}' j)
[ -n "$P" ] || fail "no page of db1 written twice"
"$PT" stamp "$DEV" "$P" $((G - 1))
for dir in A B C; do
	cd "$WORK/$dir"
	expect_exit 4 "$DISKPROOF" verify ../dev.ini --results "$WORK/$dir/r.db"
	grep -q "^db1 page $P (.*offset $((P * PS))): lost write.*(expected generation $G, found $((G - 1)))" \
		"$WORK/out" || fail "lost write not found from $dir: $(cat "$WORK/out")"
done
echo ok
