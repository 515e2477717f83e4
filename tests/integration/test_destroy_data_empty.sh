#!/bin/bash
# SPDX-License-Identifier: MIT
# --destroy-data with an empty value (--destroy-data="$DEV" with DEV unset in
# a script) is a usage error, exit 2 before anything is written, not an
# option silently taken as naming nothing.
source "$(dirname "$0")/lib.sh"
set -e
SIM="$DP_SOURCE_DIR/tests/integration/profiles/sim.ini"
TINY="$DP_SOURCE_DIR/tests/integration/profiles/tiny.ini"
expect_exit 2 "$DISKPROOF" run "$SIM" --duration 1m --results r.db --destroy-data=
grep -q -- "--destroy-data.*needs a" err || fail "run: $(cat err)"
[ ! -e r.db ] || fail "run made the results file"
expect_exit 2 "$DISKPROOF" init "$TINY" --data-dir "$WORK/d" --results r.db --destroy-data ""
grep -q -- "--destroy-data.*needs a" err || fail "init: $(cat err)"
[ ! -e d ] && [ ! -e r.db ] || fail "init wrote"
echo ok
