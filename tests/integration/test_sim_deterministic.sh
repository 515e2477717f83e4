#!/bin/bash
# SPDX-License-Identifier: MIT
# Same profile, same seed: the sim engine gives the same numbers bit for bit;
# another seed gives other numbers.
source "$(dirname "$0")/lib.sh"
set -e
P="$DP_SOURCE_DIR/tests/integration/profiles/sim.ini"
summary() {
	expect_exit 0 "$DISKPROOF" report "$1" --format json --results "$WORK/r.db"
	json '[d["summary"], d["volumes"], d["databases"], d["verdicts"]]'
}
expect_exit 0 "$DISKPROOF" run "$P" --duration 2m --results "$WORK/r.db" --quiet
expect_exit 0 "$DISKPROOF" run "$P" --duration 2m --results "$WORK/r.db" --quiet
sed 's/^seed = 7/seed = 8/' "$P" >other.ini
expect_exit 0 "$DISKPROOF" run ./other.ini --duration 2m --results "$WORK/r.db" --quiet
a=$(summary 1)
b=$(summary 2)
c=$(summary 3)
[ "$a" = "$b" ] || fail "same seed, different results"
[ "$a" != "$c" ] || fail "another seed gave the same results"
s1=$(sqlite3 r.db "select group_concat(ios||':'||lat_sum_ns||':'||p99_ns) from sample where run_id=1")
s2=$(sqlite3 r.db "select group_concat(ios||':'||lat_sum_ns||':'||p99_ns) from sample where run_id=2")
[ "$s1" = "$s2" ] || fail "interval samples differ"
echo "ok"
