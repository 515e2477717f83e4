#!/bin/bash
# SPDX-License-Identifier: MIT
# Database page fault stalls on the sim engine (deterministic): with a tight
# dirty-page cap ([workload] dirty_pages = 64) and a slow flusher (10 ms
# writes, one in flight) most updating transactions wait for a page, the
# stalls per second exceed [thresholds] page_fault_stalls = 1 and the run
# fails on page_fault_stalls for every database, volume and the run. With
# the default cap (4096) and flusher the same layout passes with its
# page_fault_stalls rows present at 0. The figures are stored and reported
# per database, volume and run; a profile that does not set the threshold
# gets no row, and the Exchange built-in sets 1.
source "$(dirname "$0")/lib.sh"
set -e
P="$DP_SOURCE_DIR/tests/integration/profiles/sim.ini"

sed 's/^\[engine\]/[thresholds]\npage_fault_stalls = 1\n\n[engine]/' "$P" >loose.ini
sed 's/^write_latency = .*/write_latency = 10ms/; s/^\[engine\]/[workload]\ndirty_pages = 64\nflush_depth = 1\n\n[engine]/' \
	loose.ini >tight.ini

expect_exit 1 "$DISKPROOF" run ./tight.ini --duration 2m --results "$WORK/r.db"
grep -q "^diskproof run 1: FAIL" out || fail "tight cap did not fail"
grep -q "FAIL db1 on v1: page fault stalls per second per database [0-9.]* > 1" out || fail "db1 not failed on stalls: $(cat out)"
grep -q "FAIL run: page fault stalls per second per database [0-9.]* > 1" out || fail "run not failed on stalls"
grep -q "^page fault stalls: [0-9.]*/s ([0-9]* in all); v1 [0-9.]*/s, v2 [0-9.]*/s; per database" out ||
	fail "no stall line in the text report: $(cat out)"
# it failed on stalls, and on nothing else of its own
expect_exit 0 "$DISKPROOF" report 1 --format json --results "$WORK/r.db"
[ "$(json 'sorted(set(v["criterion"] for v in d["verdicts"] if not v["passed"]))')" = \
	"['databases_failed', 'page_fault_stalls', 'volumes_failed']" ] ||
	fail "failed criteria: $(json '[v for v in d["verdicts"] if not v["passed"]]')"
[ "$(json 'sum(1 for v in d["verdicts"] if v["criterion"]=="page_fault_stalls" and not v["passed"])')" = 7 ] ||
	fail "stall verdicts per scope"
# stored: the run's stalls are its databases' sum, and per second over 120 s
n=$(sqlite3 r.db "select page_fault_stalls from scope_extra where run_id=1 and scope='run' and class='db_read'")
sum=$(sqlite3 r.db "select sum(page_fault_stalls) from scope_extra where run_id=1 and scope='database' and class='db_read'")
[ "$n" = "$sum" ] && [ "$n" -gt 120 ] || fail "run stalls $n, databases' sum $sum"
[ "$(json "abs(d['summary']['page_fault_stalls_per_s'] - $n / 120) < 0.01")" = True ] || fail "stalls per second"
[ "$(json 'all(db["page_fault_stalls_per_s"] > 1 for db in d["databases"])')" = True ] || fail "database rates"
[ "$(json 'all(v["page_fault_stalls_per_s"] > 1 for v in d["volumes"])')" = True ] || fail "volume rates"

expect_exit 0 "$DISKPROOF" run ./loose.ini --duration 2m --results "$WORK/r.db"
grep -q "^diskproof run 2: PASS" out || fail "loose cap did not pass: $(cat out)"
expect_exit 0 "$DISKPROOF" report 2 --format json --results "$WORK/r.db"
[ "$(json '[(v["name"], v["measured"] == 0, v["passed"]) for v in d["verdicts"] if v["criterion"]=="page_fault_stalls"]')" = \
	"[('db1', True, True), ('db2', True, True), ('db3', True, True), ('db4', True, True), ('v1', True, True), ('v2', True, True), ('run', True, True)]" ] ||
	fail "loose: stall rows $(json '[v for v in d["verdicts"] if v["criterion"]=="page_fault_stalls"]')"

# not set: counted and reported, not judged
expect_exit 0 "$DISKPROOF" run "$P" --duration 1m --results "$WORK/r.db"
expect_exit 0 "$DISKPROOF" report 3 --format json --results "$WORK/r.db"
[ "$(json 'sum(1 for v in d["verdicts"] if v["criterion"]=="page_fault_stalls")')" = 0 ] || fail "judged unset"
[ "$(json 'd["summary"]["page_fault_stalls"]')" = 0 ] || fail "stalls not reported when unset"

# the Exchange built-in judges stalls at 1 per second
expect_exit 0 "$DISKPROOF" run exchange-2013 --engine sim --duration 1m --warmup 10s --data-dir "$WORK/x" --results "$WORK/r.db"
expect_exit 0 "$DISKPROOF" report 4 --format json --results "$WORK/r.db"
[ "$(json '[v["threshold"] == 1 for v in d["verdicts"] if v["criterion"]=="page_fault_stalls" and v["scope"]=="run"]')" = \
	"[True]" ] || fail "exchange-2013: no page_fault_stalls verdict at 1/s"
echo "ok"
