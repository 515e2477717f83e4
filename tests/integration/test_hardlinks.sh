#!/bin/bash
# SPDX-License-Identifier: MIT
# A hard link is another name of a file that is also elsewhere: diskproof
# writes none of its files through one. A results file's -wal or -shm, a
# volume's lock file, a database or log file that is a hard link to a user's
# file: refused (exit 3), the user's file byte for byte, even an empty one.
source "$(dirname "$0")/lib.sh"
set -e
T="$DP_SOURCE_DIR/tests/integration/profiles/tiny.ini"
printf 'precious\n' >victim
sum=$(sha256sum <victim)
same() { [ "$(sha256sum <victim)" = "$sum" ] || fail "$1: the linked file was written"; }

expect_exit 0 "$DISKPROOF" run sim-quick --results "$WORK/r.db" --quiet
rm -f r.db-wal r.db-shm
for sib in wal shm; do
	ln victim "r.db-$sib"
	expect_exit 3 "$DISKPROOF" list --results "$WORK/r.db"
	grep -q "r.db-$sib: has 2 hard links" err || fail "-$sib link: $(cat err)"
	expect_exit 3 "$DISKPROOF" run sim-quick --results "$WORK/r.db" --quiet
	same "-$sib"
	rm "r.db-$sib"
done

mkdir -p d/a
ln victim d/a/.diskproof.lock
expect_exit 3 "$DISKPROOF" init "$T" --data-dir "$WORK/d" --quiet
grep -q "lock file .*has 2 hard links" err || fail "lock file link: $(cat err)"
same "lock file"
rm d/a/.diskproof.lock

: >empty
ln empty d/a/db1.edb
expect_exit 3 "$DISKPROOF" init "$T" --data-dir "$WORK/d" --quiet
grep -q "db1.edb: has 2 hard links" err || fail "database link: $(cat err)"
expect_exit 3 "$DISKPROOF" init "$T" --data-dir "$WORK/d" --destroy-data "$WORK/d/a/db1.edb" \
	--quiet
[ ! -s empty ] || fail "the empty file linked as db1.edb was filled"
rm d/a/db1.edb
ln victim d/a/db1.edb
expect_exit 3 "$DISKPROOF" run "$T" --data-dir "$WORK/d" --results "$WORK/r.db" --quiet
same "database"
echo ok
