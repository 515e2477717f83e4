#!/bin/bash
# On a kernel without io_uring (simulated with a seccomp filter that fails
# io_uring_setup with ENOSYS) an io_uring run is an environment error: exit 3,
# a message that says io_uring is missing, no crash, nothing written. The sim
# engine still runs there.
source "$(dirname "$0")/lib.sh"
set -e
NO_URING="$DP_BINARY_DIR/tests/no_uring"
[ -x "$NO_URING" ] || fail "missing $NO_URING"
T="$DP_SOURCE_DIR/tests/integration/profiles/tiny.ini"
expect_exit 3 "$NO_URING" "$DISKPROOF" run "$T" --data-dir "$WORK/data" --results "$WORK/r.db"
grep -q "io_uring: cannot set up a ring: Function not implemented (kernel built without io_uring)" err ||
	fail "message does not say io_uring is missing: $(cat err)"
[ ! -e data ] && [ ! -e r.db ] || fail "something was written"
expect_exit 0 "$NO_URING" "$DISKPROOF" run "$DP_SOURCE_DIR/tests/integration/profiles/sim.ini" \
	--duration 1m --results "$WORK/r.db" --quiet
echo "ok"
