#!/bin/bash
# SPDX-License-Identifier: MIT
# A page write that fails leaves the page undefined, and is never reported as
# an integrity error (docs/integrity.md, "Failed writes"). On sim, where a
# failed page write reads back with no header at all until written again:
# with 0.2 % of I/Os failing and max_errors = 0, a 10-minute run fails on its
# I/O errors only (exit 1, never 4), its integrity count is 0 and no page is
# reported bad, though maintenance reads every page meanwhile, those whose
# writes failed among them.
source "$(dirname "$0")/lib.sh"
set -e
P="$DP_SOURCE_DIR/tests/integration/profiles/sim.ini"
sed 's/^seed = 7/seed = 7\nerror_rate = 0.2%/; s/^warmup = 30s/warmup = 30s\nmax_errors = 0/' \
	"$P" >eio.ini
expect_exit 1 "$DISKPROOF" run ./eio.ini --results "$WORK/r.db"
grep -q "FAIL run: I/O errors" out || fail "the I/O error verdict is not shown: $(cat out)"
n=$(sqlite3 r.db "select count(*) from event where run_id=1 and kind='error'
	and message like '%.edb: write of % failed: Input/output error'")
[ "$n" -gt 20 ] || fail "only $n failed page writes"
ie=$(sqlite3 r.db "select coalesce(sum(integrity_errors),0) from summary where run_id=1 and scope='run'")
[ "$ie" = 0 ] || fail "$ie integrity errors after $n failed page writes"
bad=$(sqlite3 r.db "select message from event where run_id=1 and message like '% page % (%' limit 3")
[ -z "$bad" ] || fail "pages reported bad: $bad"
echo "ok: $n failed page writes, no integrity error"
