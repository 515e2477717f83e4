#!/bin/bash
# SPDX-License-Identifier: MIT
# test_results_readonly.sh - reading results never needs write access, and a
# full disk never keeps them from being read. On an ext4 image mounted
# read-only, a results file made by real runs is listed, reported (text, JSON,
# -o elsewhere) and compared (exit 0), while the commands that write it
# (delete, import, run) exit 3 without a word of "usage". On a full
# filesystem (tmpfs filled with dd) list and report still work, and a run
# killed there is marked aborted once there is room again; a run whose
# results filesystem fills behind its back (to the last byte) ends as "error"
# with no verdict, not "running": the room for its end was kept beforehand.
# Root only (mounts); exit 77 otherwise.
source "$(dirname "$0")/lib.sh"
set -e
[ "$(id -u)" = 0 ] || { echo "skipped: needs root for mounts"; exit 77; }
command -v mkfs.ext4 >/dev/null || { echo "skipped: no mkfs.ext4"; exit 77; }
MNTS=()
PIDS=()
cleanup() {
	set +e # undo everything, whatever is already undone
	for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null || true; done
	for m in "${MNTS[@]}"; do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true; done
	rm -rf "$WORK"
}
trap cleanup EXIT
S="$DP_SOURCE_DIR/tests/integration/profiles/sim.ini"
sim() { "$DISKPROOF" run "$S" --duration 5s --warmup 1s --quiet "$@"; }

# --- a read-only ext4 holding a results file made by real runs
truncate -s 32M ro.img
mkfs.ext4 -q -F ro.img >/dev/null
mkdir ro
mount -o loop ro.img ro 2>mount.err || { echo "skipped: cannot loop-mount: $(cat mount.err)"; exit 77; }
MNTS+=("$WORK/ro")
expect_exit 0 sim --results ro/r.db
expect_exit 0 sim --results ro/r.db --label second
umount ro
mount -o loop,ro ro.img ro
sum=$(sha256sum ro.img)
expect_exit 0 "$DISKPROOF" list --results ro/r.db
[ "$(tail -n +2 out | wc -l)" = 2 ] || fail "list on a read-only filesystem: $(cat out)"
expect_exit 0 "$DISKPROOF" report --results ro/r.db
grep -q "second" out || grep -q "run 2" out || fail "report latest: $(head -5 out)"
expect_exit 0 "$DISKPROOF" report 1 --results ro/r.db --format json
[ "$(json 'd["run"]["id"]')" = 1 ] || fail "report 1 json"
expect_exit 0 "$DISKPROOF" report 2 --results ro/r.db --format html -o "$WORK/r2.html"
[ -s r2.html ] || fail "report -o"
expect_exit 0 "$DISKPROOF" compare 1 2 --results ro/r.db
expect_exit 0 "$DISKPROOF" compare 1 latest --results ro/r.db --format json
# writers: an environment error (3), never a usage error (2)
expect_exit 3 "$DISKPROOF" delete 1 --results ro/r.db
expect_exit 3 "$DISKPROOF" run "$S" --duration 5s --warmup 1s --results ro/r.db --quiet
expect_exit 3 "$DISKPROOF" report 9 --results ro/missing.db
expect_exit 0 sim --results other.db
expect_exit 3 "$DISKPROOF" import other.db --results ro/r.db
# and the file is still readable by the file's own reader afterwards
expect_exit 0 "$DISKPROOF" import ro/r.db --results copy.db
grep -q "imported 2 run" err || fail "import from a read-only filesystem: $(cat err)"
umount ro
[ "$(sha256sum ro.img)" = "$sum" ] || fail "the read-only image changed"
mount -o loop,ro ro.img ro
ls ro/r.db-* 2>/dev/null && fail "siblings on a read-only filesystem"

# --- a full filesystem: list and report still work
mkdir full
mount -t tmpfs -o size=24M tmpfs full
MNTS+=("$WORK/full")
expect_exit 0 sim --results full/r.db
# a run killed mid-way leaves its row "running" and its -wal behind
"$DISKPROOF" run "$S" --duration 24h --results full/r.db --quiet >/dev/null 2>&1 &
KPID=$!
PIDS+=($KPID)
for _ in $(seq 100); do
	[ "$(sqlite3 full/r.db "select count(*) from sample where run_id=2" 2>/dev/null)" -gt 0 ] 2>/dev/null &&
		break
	sleep 0.1
done
kill -9 $KPID
wait $KPID 2>/dev/null || true
dd if=/dev/zero of=full/fill bs=1M status=none 2>/dev/null || true
[ "$(df --output=avail full | tail -1)" -lt 64 ] || fail "tmpfs not full"
expect_exit 0 "$DISKPROOF" list --results full/r.db
[ "$(tail -n +2 out | wc -l)" = 2 ] || fail "list on a full filesystem: $(cat out)"
expect_exit 0 "$DISKPROOF" report 1 --results full/r.db --format json
[ "$(json 'd["run"]["status"]')" = passed ] || fail "report on a full filesystem"
rm -f full/fill
expect_exit 0 "$DISKPROOF" list --results full/r.db
grep -Eq "^ +2  aborted " out || fail "killed run not marked aborted once there is room: $(cat out)"

# --- the results filesystem filled behind a run's back, to the last byte: the
# run's row still says "error" (not "running"), in the room the store kept
rm -f full/r.db*
"$DISKPROOF" run "$S" --duration 24h --results full/r.db --quiet >run.out 2>run.err &
RPID=$!
PIDS+=($RPID)
for _ in $(seq 100); do
	[ "$(sqlite3 full/r.db "select count(*) from sample" 2>/dev/null)" -gt 0 ] 2>/dev/null && break
	sleep 0.1
done
kill -STOP $RPID # the fill happens at once, between two of its intervals
# kill returns before the stop is delivered: wait until every thread is
# stopped, or a write it was making could take room after the fill measured it
for _ in $(seq 200); do
	grep -q '^State:[[:space:]]*[^T[:space:]]' /proc/$RPID/task/*/status 2>/dev/null || break
	sleep 0.05
done
avail=$(df --output=avail -B1 full | tail -1)
fallocate -l "$avail" full/fill || fail "fallocate of $avail bytes: $(df -B1 full)"
dd if=/dev/zero of=full/fill2 bs=4k status=none 2>/dev/null || true
[ "$(df --output=avail -B1 full | tail -1)" -eq 0 ] || fail "tmpfs not filled to the last byte: $(df -B1 full)"
kill -CONT $RPID
set +e
wait $RPID
rc=$?
set -e
[ "$rc" = 3 ] || fail "run on a filled results filesystem: exit $rc: $(cat run.err)"
# each error on a line of its own, named: never two glued on one line
grep -v "^diskproof: " run.err | grep -q . && fail "unprefixed error lines: $(cat run.err)"
grep -q ")[^ ].*: commit" run.err && fail "two errors glued on one line: $(cat run.err)"
rm -f full/fill full/fill2
[ "$(sqlite3 full/r.db "select status || ' ' || verdict from run")" = "error NONE" ] ||
	fail "run row after the results file filled: $(sqlite3 full/r.db "select status, verdict from run")"
echo "ok"
