#!/bin/bash
# SPDX-License-Identifier: MIT
# On a kernel without io_uring (simulated with a seccomp filter that fails
# io_uring_setup with ENOSYS) an io_uring run is an environment error: exit 3,
# a message that says io_uring is missing, no crash, nothing written. The sim
# engine still runs there, and so does psync for everything that touches
# files: init creates them, run measures them (PASS or FAIL: the verdict is
# the disk's, and a loaded one can fail it), verify reads them back, all
# through the profile's engine (libaio as well). init and verify of an io_uring profile say
# io_uring is missing (exit 3) and write no file.
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

# psync: init, run and verify need no io_uring
sed 's/^name = io_uring$/name = psync/' "$T" >"$WORK/psync.ini"
grep -q '^name = psync$' "$WORK/psync.ini" || fail "psync profile not made"
expect_exit 0 "$NO_URING" "$DISKPROOF" init "$WORK/psync.ini" --data-dir "$WORK/ps" \
	--results "$WORK/p.db" --quiet
[ "$(stat -c %s "$WORK/ps/a/db1.edb")" = 8388608 ] || fail "init with psync made no database"
expect_verdict "$NO_URING" "$DISKPROOF" run "$WORK/psync.ini" --data-dir "$WORK/ps" \
	--duration 2s --results "$WORK/p.db" --quiet
expect_exit 0 "$NO_URING" "$DISKPROOF" verify "$WORK/psync.ini" --data-dir "$WORK/ps" --quiet
grep -q "no problems" out err || fail "verify with psync: $(cat out err)"
# and a missing database is created by the run itself, through psync
rm "$WORK/ps/b/db2.edb" "$WORK/ps/b/db2.gen"
expect_verdict "$NO_URING" "$DISKPROOF" run "$WORK/psync.ini" --data-dir "$WORK/ps" \
	--duration 2s --results "$WORK/p.db" --quiet
[ "$(stat -c %s "$WORK/ps/b/db2.edb")" = 8388608 ] || fail "run with psync did not create db2"

# libaio too, where it is built in (else its init says why not)
sed 's/^name = io_uring$/name = libaio/' "$T" >"$WORK/aio.ini"
if "$NO_URING" "$DISKPROOF" init "$WORK/aio.ini" --data-dir "$WORK/aio" --results "$WORK/a.db" \
	--quiet >out 2>err; then
	expect_exit 0 "$NO_URING" "$DISKPROOF" verify "$WORK/aio.ini" --data-dir "$WORK/aio" --quiet
	grep -q "no problems" out err || fail "verify with libaio: $(cat out err)"
else
	grep -q "libaio" err || fail "init with libaio failed: $(cat err)"
fi

# io_uring profiles: init and verify say what is missing, and write no file
expect_exit 3 "$NO_URING" "$DISKPROOF" init "$T" --data-dir "$WORK/u" --results "$WORK/u.db"
grep -q "creating files: io_uring: cannot set up a ring of .* entries: Function not implemented" err ||
	fail "init's message: $(cat err)"
[ -z "$(find "$WORK/u" -name 'db*' 2>/dev/null)" ] || fail "init made files without an engine"
expect_exit 3 "$NO_URING" "$DISKPROOF" verify "$T" --data-dir "$WORK/ps"
grep -q "volume a: io_uring: cannot set up a ring of .* entries: Function not implemented" err ||
	fail "verify's message: $(cat err)"
echo "ok"
