#!/bin/bash
# SPDX-License-Identifier: MIT
# Two runs writing to one results file at the same time both succeed, each
# with all its intervals; a third command reading it meanwhile works too; two
# runs creating one new results file at the same moment both succeed.
source "$(dirname "$0")/lib.sh"
set -e
skip_without_uring
T="$DP_SOURCE_DIR/tests/integration/profiles/tiny.ini"
"$DISKPROOF" run "$T" --data-dir "$WORK/d1" --duration 5s --results "$WORK/r.db" --label one \
	--quiet >"$WORK/o1" 2>"$WORK/e1" &
p1=$!
"$DISKPROOF" run "$T" --data-dir "$WORK/d2" --duration 5s --results "$WORK/r.db" --label two \
	--quiet >"$WORK/o2" 2>"$WORK/e2" &
p2=$!
sleep 3
expect_exit 0 "$DISKPROOF" list --results "$WORK/r.db"
set +e
wait $p1; r1=$?
wait $p2; r2=$?
set -e
for rc in $r1 $r2; do
	[ $rc = 0 ] || [ $rc = 1 ] || { cat "$WORK/e1" "$WORK/e2"; fail "a run exited $rc"; }
done
[ "$(sqlite3 r.db "select count(*) from run where status in ('passed','failed')")" = 2 ] ||
	fail "both runs should be finished"
for l in one two; do
	n=$(sqlite3 r.db "select count(*) from sample s join run r on r.id=s.run_id where r.label='$l' and s.scope='run' and s.class='db_read' and s.warmup=0")
	[ "$n" = 5 ] || fail "run $l has $n measured intervals, not 5"
done
# two processes creating the same new results file at the same moment
S="$DP_SOURCE_DIR/tests/integration/profiles/sim.ini"
for i in $(seq 1 10); do
	rm -f "$WORK/new.db"*
	"$DISKPROOF" run "$S" --duration 10s --warmup 0s --results "$WORK/new.db" --quiet \
		>/dev/null 2>"$WORK/n1" &
	a=$!
	"$DISKPROOF" run "$S" --duration 10s --warmup 0s --results "$WORK/new.db" --quiet \
		>/dev/null 2>"$WORK/n2" &
	b=$!
	set +e
	wait $a; ra=$?
	wait $b; rb=$?
	set -e
	[ $ra = 0 ] && [ $rb = 0 ] || { cat "$WORK/n1" "$WORK/n2"; fail "round $i: exits $ra $rb"; }
done
echo "ok"
