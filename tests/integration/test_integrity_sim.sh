#!/bin/bash
# SPDX-License-Identifier: MIT
# Lost writes on a simulated device are caught by the run's page checks: the
# run exits 4 (data integrity) and the events name database and page; I/O
# errors fail the run (exit 1) and are counted.
source "$(dirname "$0")/lib.sh"
set -e
P="$DP_SOURCE_DIR/tests/integration/profiles/sim.ini"
sed 's/^seed = 7/seed = 7\ndrop_write_rate = 0.5%/' "$P" >drop.ini
expect_exit 4 "$DISKPROOF" run ./drop.ini --duration 2m --results "$WORK/r.db"
grep -q "integrity error" err || fail "no integrity message"
n=$(sqlite3 r.db "select count(*) from event where run_id=1 and message like '%lost write%'")
[ "$n" -gt 0 ] || fail "no lost-write event"
sqlite3 r.db "select message from event where run_id=1 and message like '%lost write%' limit 1" |
	grep -q "^db[0-9] page [0-9]* " || fail "event does not name database and page"

sed 's/^seed = 7/seed = 7\nerror_rate = 0.1%/' "$P" >eio.ini
expect_exit 1 "$DISKPROOF" run ./eio.ini --duration 2m --results "$WORK/r.db"
grep -q "I/O errors" out || fail "I/O error verdict not shown"
echo "ok"
