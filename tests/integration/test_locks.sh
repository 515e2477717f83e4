#!/bin/bash
# SPDX-License-Identifier: MIT
# One command at a time on a volume (directories): while a run holds its
# volumes, a second run, a verify and a clean --yes on them exit 3 at once
# naming the run's pid, delete of the running run is refused, and the run
# finds no integrity error; afterwards delete works. kill -9 of a holder
# frees its volumes at once (flock). Volumes sharing one log directory, or a
# volume whose logs are in another's directory, run without refusing
# themselves. A lock file that is a symbolic link or a FIFO is refused.
# check, which takes no lock, names the holder in a WARN line.
source "$(dirname "$0")/lib.sh"
set -e
skip_without_uring
T="$DP_SOURCE_DIR/tests/integration/profiles/tiny.ini"

# wait_holder FILE PID: until the lock file FILE names PID (10 s at most)
wait_holder() {
	for _ in $(seq 1 100); do
		grep -qs "^pid=$2\$" "$1" && return 0
		sleep 0.1
	done
	fail "lock file $1 never named pid $2"
}

expect_exit 0 "$DISKPROOF" init "$T" --data-dir "$WORK/d" --quiet
"$DISKPROOF" run "$T" --data-dir "$WORK/d" --duration 6s --results "$WORK/r.db" --quiet \
	>"$WORK/o1" 2>"$WORK/e1" &
p1=$!
wait_running
id=$(sqlite3 r.db "select id from run where status='running'")

quick 3 "$DISKPROOF" run "$T" --data-dir "$WORK/d" --duration 2s --results "$WORK/r2.db" --quiet
grep -q "volume a ($WORK/d/a): in use by diskproof run (pid $p1, started " err ||
	fail "second run: $(cat err)"
grep -q "lock file $WORK/d/a/.diskproof.lock" err || fail "second run names no lock file: $(cat err)"
quick 3 "$DISKPROOF" verify "$T" --data-dir "$WORK/d"
grep -q "in use by diskproof run (pid $p1" err || fail "verify: $(cat err)"
quick 3 "$DISKPROOF" init "$T" --data-dir "$WORK/d"
grep -q "in use by diskproof run (pid $p1" err || fail "init: $(cat err)"
quick 3 "$DISKPROOF" clean "$T" --data-dir "$WORK/d" --yes
grep -q "in use by diskproof run (pid $p1.*nothing removed" err || fail "clean: $(cat err)"
for f in a/db1.edb a/db1.log a/db1.gen b/db2.edb; do
	[ -f "$WORK/d/$f" ] || fail "clean removed $f of a running run"
done
# check takes no lock, and says who holds the volumes
expect_exit 0 "$DISKPROOF" check "$T" --data-dir "$WORK/d"
grep -q "^WARN  locks: volume a ($WORK/d/a): in use by diskproof run (pid $p1" out ||
	fail "check: $(cat out)"
quick 3 "$DISKPROOF" delete "$id" --results "$WORK/r.db"
grep -q "run $id is still running (diskproof run, pid $p1" err || fail "delete: $(cat err)"
[ "$(sqlite3 r.db "select count(*) from run where id=$id")" = 1 ] || fail "delete removed the row"

set +e
wait $p1
r1=$?
set -e
[ $r1 = 0 ] || [ $r1 = 1 ] || { cat "$WORK/e1"; fail "the first run exited $r1"; }
[ "$(sqlite3 r.db "select coalesce(sum(integrity_errors), 0) from summary where run_id=$id")" = 0 ] ||
	fail "the first run found integrity errors"
expect_exit 0 "$DISKPROOF" verify "$T" --data-dir "$WORK/d"
expect_exit 0 "$DISKPROOF" delete "$id" --results "$WORK/r.db"

# kill -9: the kernel drops the flock; the next commands are not refused
"$DISKPROOF" run "$T" --data-dir "$WORK/d" --duration 30s --results "$WORK/r.db" --quiet \
	>/dev/null 2>&1 &
p2=$!
wait_holder "$WORK/d/a/.diskproof.lock" $p2
sleep 1
kill -9 $p2
wait $p2 2>/dev/null || true
set +e
"$DISKPROOF" verify "$T" --data-dir "$WORK/d" >out 2>err
rc=$?
set -e
[ $rc != 3 ] && ! grep -q "in use" err || fail "verify after kill -9 exited $rc: $(cat err)"
set +e
"$DISKPROOF" run "$T" --data-dir "$WORK/d" --duration 1s --results "$WORK/r.db" --quiet >out 2>err
rc=$?
set -e
[ $rc != 3 ] && ! grep -q "in use" err || fail "run after kill -9 exited $rc: $(cat err)"

# shared log directories: each directory is locked once
cat >shared.ini <<INI
[test]
duration = 2s
warmup = 0s
[sizing]
database_size = 8MiB
log_size = 1MiB
[workload]
log_segment_size = 256KiB
[engine]
streams = 4
[volume a]
path = $WORK/s/a
log_path = $WORK/s/logs
databases = 1
[volume b]
path = $WORK/s/b
log_path = $WORK/s/logs
databases = 1
[volume c]
path = $WORK/s/c
log_path = $WORK/s/a
databases = 1
INI
expect_verdict "$DISKPROOF" run ./shared.ini --results "$WORK/r.db" --quiet
! grep -q "in use" err || fail "shared log directory: $(cat err)"
[ -f "$WORK/s/logs/.diskproof.lock" ] || fail "no lock file in the log directory"
expect_exit 0 "$DISKPROOF" verify ./shared.ini

# the lock file itself must be a regular file, never followed
echo precious >"$WORK/target"
rm -f "$WORK/d/a/.diskproof.lock"
ln -s "$WORK/target" "$WORK/d/a/.diskproof.lock"
quick 3 "$DISKPROOF" run "$T" --data-dir "$WORK/d" --duration 1s --results "$WORK/r.db" --quiet
grep -q "lock file $WORK/d/a/.diskproof.lock is a symbolic link" err || fail "symlink: $(cat err)"
[ "$(cat "$WORK/target")" = precious ] || fail "the link's target was written"
rm -f "$WORK/d/a/.diskproof.lock"
mkfifo "$WORK/d/a/.diskproof.lock"
quick 3 timeout -k 1 10 "$DISKPROOF" verify "$T" --data-dir "$WORK/d"
grep -q "lock file $WORK/d/a/.diskproof.lock is a FIFO" err || fail "FIFO lock file: $(cat err)"
rm -f "$WORK/d/a/.diskproof.lock"

# clean removes the lock files last, and with them the directories
expect_exit 0 "$DISKPROOF" clean "$T" --data-dir "$WORK/d" --yes
[ ! -e "$WORK/d/a" ] && [ ! -e "$WORK/d/b" ] || fail "clean left: $(ls -a "$WORK/d"/*)"
echo "ok"
