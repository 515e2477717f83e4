#!/bin/bash
# SPDX-License-Identifier: MIT
# verify and plan read sizes from the files there, not from the profile: a
# tree made with --db-size 8MiB, then verify and plan with the profile's
# own database size (64 MiB). verify checks the 8 MiB written, with the
# journals' exact generations, says once that the profile's size differs,
# and exits 0; plan shows the size the files hold beside the profile's. A
# file cut short of what its journal knows is still a lost end (exit 4); a
# missing one is named, its journal still read at its own size.
source "$(dirname "$0")/lib.sh"
set -e
skip_without_uring

expect_exit 0 "$DISKPROOF" init quick --data-dir "$WORK/data" --db-size 8MiB --quiet

# --- verify with the profile's size: what the files hold is verified, once said
expect_exit 0 "$DISKPROOF" verify quick --data-dir "$WORK/data"
[ "$(grep -c "profile says" err)" = 1 ] || { cat err >&2; fail "the size difference not said once"; }
grep -q "^diskproof: every database: profile says 64 MiB, files hold 8 MiB: verifying the 8 MiB written$" \
	err || { cat err >&2; fail "size line"; }
grep -q "^db1: 256 pages, [0-9]* log blocks checked: no problems; journal" out || fail "db1 pages"
grep -q "^verified 4 database(s): 1024 pages and .*: no problems$" out || fail "total line"
grep -q "journal unusable\|truncated\|verification incomplete" out err && fail "complained of the size"
! grep -q "journal unusable" out || fail "journal not used"

# --- JSON too: exit 0, clean
expect_exit 0 "$DISKPROOF" verify quick --data-dir "$WORK/data" --format json
grep -q '"result":"clean"' out || grep -q '"result": "clean"' out || fail "json result"

# --- plan shows both sizes
expect_exit 0 "$DISKPROOF" plan quick --data-dir "$WORK/data"
grep -q "^  db1   $WORK/data/vol1/db1.edb  64 MiB (file holds 8 MiB)  log " out ||
	{ cat out >&2; fail "plan: no held size beside the profile's"; }
expect_exit 0 "$DISKPROOF" plan quick --data-dir "$WORK/data" --format json
grep -q '"held_size": *8388608' out || fail "plan json: held_size"

# --- one database whose file lost its end: still a lost write, named per database
truncate -s 4MiB data/vol1/db2.edb
expect_exit 4 "$DISKPROOF" verify quick --data-dir "$WORK/data"
grep -q "db2.edb: is 4194608 bytes\|db2.edb: is 4194304 bytes, but its journal" err ||
	{ cat err >&2; fail "lost end not reported"; }

# --- a database file gone: named missing, its journal still its own (no
# "journal of database 3 with 256 pages" against the profile's 2048)
rm data/vol2/db3.edb
expect_exit 4 "$DISKPROOF" verify quick --data-dir "$WORK/data"
grep -q "db3.edb: missing: no database file here" err || { cat err >&2; fail "missing file not named"; }
! grep -q "journal of database 3" err || { cat err >&2; fail "db3's journal taken for another size"; }
echo PASS
