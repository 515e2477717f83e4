#!/bin/bash
# SPDX-License-Identifier: MIT
# diskproof never overwrites what it did not write, and says so: a foreign
# file where a database goes is an environment error (exit 3) and stays
# byte for byte; a results file that is not SQLite is exit 3 and untouched;
# an unknown run id is exit 2.
source "$(dirname "$0")/lib.sh"
set -e
skip_without_uring
T="$DP_SOURCE_DIR/tests/integration/profiles/tiny.ini"
mkdir -p data/a
head -c 1048576 /dev/urandom >data/a/db1.edb
sum=$(sha256sum data/a/db1.edb)
expect_exit 3 "$DISKPROOF" run "$T" --data-dir "$WORK/data" --results "$WORK/r.db"
grep -q "db1.edb: exists and is not a diskproof database file" err || fail "foreign file message"
[ "$(sha256sum data/a/db1.edb)" = "$sum" ] || fail "foreign file was changed"
[ ! -e data/b/db2.edb ] || fail "files were created after a refusal"

echo "not a database" >notsql.db
expect_exit 3 "$DISKPROOF" run "$T" --data-dir "$WORK/data2" --results "$WORK/notsql.db"
[ "$(cat notsql.db)" = "not a database" ] || fail "results file was changed"
[ ! -e data2 ] || fail "data was written with an unusable results file"

expect_exit 3 "$DISKPROOF" report latest --results "$WORK/missing.db"
expect_exit 0 "$DISKPROOF" run "$DP_SOURCE_DIR/tests/integration/profiles/sim.ini" --duration 1m \
	--results "$WORK/ok.db" --quiet
expect_exit 2 "$DISKPROOF" report 99 --results "$WORK/ok.db"
grep -q "99" err || fail "unknown run not named"
echo "ok"
