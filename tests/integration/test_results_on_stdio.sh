#!/bin/bash
# SPDX-License-Identifier: MIT
# stdout or stderr that is the results file (run --results r.db >r.db,
# --results /dev/stdout >FILE, report >>r.db): the text would overwrite the
# SQLite file from offset 0 (or grow it with junk). run refuses with exit 3
# before anything is written; report refuses to print, the file unchanged.
source "$(dirname "$0")/lib.sh"
set -e
SIM="$DP_SOURCE_DIR/tests/integration/profiles/sim.ini"
RUN=(run "$SIM" --duration 1m --warmup 0s --quiet)

set +e
"$DISKPROOF" "${RUN[@]}" --results r.db >r.db 2>err
rc=$?
set -e
[ "$rc" = 3 ] || fail "run >r.db: exit $rc: $(cat err)"
grep -q "stdout is the results file" err || fail "run >r.db: $(cat err)"
[ ! -s r.db ] || fail "run >r.db wrote r.db"
rm r.db

set +e
"$DISKPROOF" "${RUN[@]}" --results /dev/stdout >o.db 2>err
rc=$?
set -e
[ "$rc" = 3 ] || fail "--results /dev/stdout >o.db: exit $rc: $(cat err)"
[ ! -s o.db ] || fail "--results /dev/stdout wrote o.db"

set +e
"$DISKPROOF" "${RUN[@]}" --results e.db 2>e.db
rc=$?
set -e
[ "$rc" = 3 ] || fail "run 2>e.db: exit $rc"
grep -q "stderr is the results file" e.db || fail "run 2>e.db: $(cat e.db)"
[ "$(sqlite3 e.db 'select count(*) from run' 2>/dev/null)" = "" ] || fail "a run stored in e.db"

expect_exit 0 "$DISKPROOF" "${RUN[@]}" --results r.db
cp r.db r.orig
for f in text json; do
	set +e
	"$DISKPROOF" report --results r.db --format $f >>r.db 2>err
	rc=$?
	"$DISKPROOF" "${RUN[@]}" --results r.db --format $f >>r.db 2>err2
	rc2=$?
	set -e
	[ "$rc" = 3 ] || fail "report --format $f >>r.db: exit $rc: $(cat err)"
	[ "$rc2" = 3 ] || fail "run --format $f >>r.db: exit $rc2: $(cat err2)"
	cmp -s r.db r.orig || fail "r.db changed ($f)"
done
[ "$(sqlite3 r.db 'select count(*) from run')" = 1 ] || fail "runs"
# a pipe and a plain file still work
"$DISKPROOF" report --results r.db | grep -q "diskproof run 1: PASS" || fail "report | grep"
"$DISKPROOF" report --results r.db >rep.txt
grep -q "diskproof run 1: PASS" rep.txt || fail "report >rep.txt"
echo ok
