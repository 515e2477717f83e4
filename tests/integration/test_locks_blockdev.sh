#!/bin/bash
# SPDX-License-Identifier: MIT
# One command at a time on a raw block device (root, loop device): while a
# run holds the device (one O_EXCL descriptor for the whole run, reused by
# its own checks), a second run and a verify exit 3 at once naming the run's
# pid (from /run/lock/diskproof/dev-MAJ:MIN.lock), and the run finds no
# integrity error. kill -9 of the holder frees the device at once.
source "$(dirname "$0")/lib.sh"
set -e
skip_without_uring
loop_device disk.img 64M
DEV=$LOOP_DEV
# a loop device's lock file is named by the file behind it
LOCK=/run/lock/diskproof/$(printf 'loop-%x-%u.lock' "$(stat -c %d disk.img)" "$(stat -c %i disk.img)")
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

expect_exit 0 "$DISKPROOF" init ./dev.ini --destroy-data "$DEV" --results "$WORK/r.db" --quiet
"$DISKPROOF" run ./dev.ini --duration 6s --results "$WORK/r.db" --quiet >"$WORK/o1" 2>"$WORK/e1" &
p1=$!
wait_running
quick 3 "$DISKPROOF" run ./dev.ini --duration 2s --results "$WORK/r.db" --quiet
grep -q "volume d ($DEV): in use by diskproof run (pid $p1, started .*lock file $LOCK" err ||
	fail "second run: $(cat err)"
quick 3 "$DISKPROOF" verify ./dev.ini --results "$WORK/r.db"
grep -q "in use by diskproof run (pid $p1" err || fail "verify: $(cat err)"
set +e
wait $p1
r1=$?
set -e
[ $r1 = 0 ] || [ $r1 = 1 ] || { cat "$WORK/e1"; fail "the first run exited $r1"; }
[ "$(sqlite3 r.db "select coalesce(sum(integrity_errors), 0) from summary")" = 0 ] ||
	fail "integrity errors on the device"
expect_exit 0 "$DISKPROOF" verify ./dev.ini --results "$WORK/r.db"

# kill -9: the O_EXCL descriptor and the flock go with the process
"$DISKPROOF" run ./dev.ini --duration 30s --results "$WORK/r.db" --quiet >/dev/null 2>&1 &
p2=$!
for _ in $(seq 1 100); do grep -qs "^pid=$p2\$" "$LOCK" && break; sleep 0.1; done
grep -qs "^pid=$p2\$" "$LOCK" || fail "$LOCK never named pid $p2"
sleep 1
kill -9 $p2
wait $p2 2>/dev/null || true
set +e
"$DISKPROOF" verify ./dev.ini --results "$WORK/r.db" >out 2>err
rc=$?
set -e
[ $rc != 3 ] && ! grep -q "in use" err || fail "verify after kill -9 exited $rc: $(cat err)"
# a second loop device over the same file is the same storage: refused too
DEV2=$(losetup --find --show disk.img)
at_exit "losetup -d $DEV2"
sed "s|^path = $DEV|path = $DEV2|" dev.ini >dev2.ini
"$DISKPROOF" run ./dev.ini --duration 4s --results "$WORK/r.db" --quiet >/dev/null 2>&1 &
pid=$!
wait_running
quick 3 "$DISKPROOF" run ./dev2.ini --duration 1s --results "$WORK/r3.db" --quiet
grep -q "in use by diskproof run (pid $pid" err || fail "the second loop device: $(cat err)"
wait $pid || true
echo "ok"
