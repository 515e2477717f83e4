#!/bin/bash
# Bad input is a clear error with exit 2 and writes nothing: a profile error
# names file, line and key; a bad option value, an unknown option, an unknown
# built-in profile and an unknown command each say what is wrong.
source "$(dirname "$0")/lib.sh"
set -e
cat >bad.ini <<'INI'
[test]
duration = 5x
[workload]
read_pc = 50
[volume v1]
path = ./data/v1
INI
expect_exit 2 "$DISKPROOF" run ./bad.ini --results "$WORK/r.db"
grep -q "bad.ini:2: \[test\] duration:" err || fail "duration error not located"
grep -q "bad.ini:4: \[workload\] read_pc: .*read_pct" err || fail "no did-you-mean"
[ ! -e r.db ] && [ ! -e data ] || fail "a bad profile wrote something"

expect_exit 2 "$DISKPROOF" run quik --results "$WORK/r.db"
grep -q "quick" err || fail "no suggestion for quik"
expect_exit 2 "$DISKPROOF" run --duration 3 parsecs --results "$WORK/r.db"
expect_exit 2 "$DISKPROOF" run --duration 3x --results "$WORK/r.db"
grep -q -- "--duration" err || fail "bad --duration not named"
expect_exit 2 "$DISKPROOF" run --frobnicate
grep -q "frobnicate" err || fail "unknown option not named"
expect_exit 2 "$DISKPROOF" explode
expect_exit 2 "$DISKPROOF" run --engine nosuch --results "$WORK/r.db"
expect_exit 2 "$DISKPROOF" run --db-size 40KiB --results "$WORK/r.db"
grep -q "page size" err || fail "--db-size not checked against the page size"
expect_exit 2 "$DISKPROOF" report abc --results "$WORK/r.db"
[ ! -e r.db ] && [ ! -e diskproof-data ] || fail "bad input wrote something"
expect_exit 0 "$DISKPROOF" --help
grep -q "130" out || fail "--help does not document exit codes"
expect_exit 0 "$DISKPROOF" --version
expect_exit 0 "$DISKPROOF" profiles
grep -q "^quick " out || fail "quick not listed"
expect_exit 0 "$DISKPROOF" profiles show quick
grep -q "^\[volume vol1\]" out || fail "profiles show quick"
echo "ok"
