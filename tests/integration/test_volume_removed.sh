#!/bin/bash
# SPDX-License-Identifier: MIT
# A volume directory removed while a run is going: the run stops within a few
# seconds with an environment error (exit 3) naming the volume and directory,
# and the run is stored with status "error".
source "$(dirname "$0")/lib.sh"
set -e
skip_without_uring
T="$DP_SOURCE_DIR/tests/integration/profiles/tiny.ini"
"$DISKPROOF" run "$T" --data-dir "$WORK/data" --duration 60s --results "$WORK/r.db" \
	>"$WORK/out" 2>"$WORK/err" &
pid=$!
sleep 3
rm -rf "$WORK/data/b"
t0=$SECONDS
set +e
wait $pid
rc=$?
set -e
[ $rc = 3 ] || { cat "$WORK/err"; fail "expected exit 3, got $rc"; }
[ $((SECONDS - t0)) -le 10 ] || fail "took $((SECONDS - t0)) s to notice"
grep -q "volume b: directory .*/data/b disappeared during the run" "$WORK/err" || fail "message"
[ "$(sqlite3 r.db "select status from run where id=1")" = error ] || fail "status"
# a run ended by an environment error is not judged: no PASS anywhere
expect_exit 0 "$DISKPROOF" report 1 --results "$WORK/r.db"
grep -qw PASS "$WORK/out" && fail "a run that ended in an error shows PASS: $(cat "$WORK/out")"
grep -q "^verdicts: none: the run ended in an error" "$WORK/out" || fail "verdict line"
echo "ok"
