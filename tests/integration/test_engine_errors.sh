#!/bin/bash
# SPDX-License-Identifier: MIT
# An engine error that lasts (io_uring_enter failing with ENOSYS every time,
# through no_uring --enter's seccomp filter: the ring is set up, nothing can
# be submitted) is said by every client of the engine driver, never spun on
# in silence: verify ends "incomplete" (exit 3) naming each file it could not
# read in full and the engine's reason (it spun for ever before the one
# driver, deaf even to SIGTERM: the timeout here is only a hang guard), run
# ends in an error (exit 3), init and init --precondition stop with exit 3.
# Nothing machine-wide: files under $WORK only.
source "$(dirname "$0")/lib.sh"
set -e
NO_URING="$DP_BINARY_DIR/tests/no_uring"
[ -x "$NO_URING" ] || fail "missing $NO_URING"
T="$DP_SOURCE_DIR/tests/integration/profiles/tiny.ini"
MSG="io_uring engine: submit failed: Function not implemented"
# the files, made with psync (which needs no io_uring)
sed 's/^name = io_uring$/name = psync/' "$T" >"$WORK/psync.ini"
expect_exit 0 "$DISKPROOF" init "$WORK/psync.ini" --data-dir "$WORK/d" --results "$WORK/r.db" \
	--quiet

# reads the engine took but never completed are left to the process exit, as
# after a hung device (closing a ring may wait for them): no leak check
expect_exit 3 env ASAN_OPTIONS=detect_leaks=0 timeout -k 5 120 "$NO_URING" --enter "$DISKPROOF" \
	verify "$T" --data-dir "$WORK/d"
for f in a/db1.edb a/db1.log b/db2.edb b/db2.log; do
	grep -qF "$WORK/d/$f: not verified in full: volume ${f%%/*}: $MSG" err ||
		fail "verify does not name $f and the engine's error: $(cat err)"
done
grep -q "verification incomplete" err || fail "verify does not say it is incomplete: $(cat err)"

# the I/O never submitted counts as in flight: the worker leaves its buffers to
# the process exit, as after a hung device (no leak check, as test_hung_freeze)
expect_exit 3 env ASAN_OPTIONS=detect_leaks=0 timeout -k 5 120 "$NO_URING" --enter "$DISKPROOF" \
	run "$T" --data-dir "$WORK/d" --results "$WORK/r.db" --duration 2s --quiet
grep -qF "$MSG" err || fail "run does not say the engine failed: $(cat err)"

expect_exit 3 timeout -k 5 120 "$NO_URING" --enter "$DISKPROOF" init "$T" --data-dir "$WORK/e" \
	--results "$WORK/e.db" --quiet
grep -qF "$MSG" err || fail "init does not say the engine failed: $(cat err)"

# preconditioning the files psync made: its writes go through the driver too
expect_exit 3 env ASAN_OPTIONS=detect_leaks=0 timeout -k 5 120 "$NO_URING" --enter "$DISKPROOF" \
	init "$WORK/psync.ini" --data-dir "$WORK/d" --results "$WORK/r.db" --precondition --quiet
grep -qF "precondition: $MSG" err || fail "precondition does not say the engine failed: $(cat err)"
echo "ok"
