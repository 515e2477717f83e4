#!/bin/bash
# SPDX-License-Identifier: MIT
# No false integrity errors after a crash: a run killed with SIGKILL at 1 s,
# mid-run or in its end phase leaves journals that are lower bounds (marked
# in progress before the first write), so verify exits 0 and the next run
# finds no integrity error; each journal from an unclean end is said once per
# database. A lost write planted before the crash is still found, by the
# killed run or by verify.
source "$(dirname "$0")/lib.sh"
set -e
skip_without_uring
T="$DP_SOURCE_DIR/tests/integration/profiles/tiny.ini"
PT="$DP_BINARY_DIR/tests/pagetool"

run_bg() { # run_bg DURATION: a run in the background, its pid in $pid
	next_id=$(($(sqlite3 "$WORK/r.db" "select coalesce(max(id), 0) from run" 2>/dev/null || echo 0) + 1))
	"$DISKPROOF" run "$T" --data-dir "$WORK/d" --duration "$1" --results "$WORK/r.db" \
		--quiet >/dev/null 2>&1 &
	pid=$!
}

# wait_load DB: until run $next_id in DB has stored its first interval (its
# load began a second ago, its journals marked before its first write),
# however long a loaded machine took to get there
wait_load() {
	for _ in $(seq 1 600); do
		[ "$(sqlite3 "$1" "select count(*) from sample where run_id=$next_id" 2>/dev/null)" -gt 0 ] \
			2>/dev/null && return 0
		kill -0 $pid 2>/dev/null || fail "run $next_id ended before its first interval"
		sleep 0.1
	done
	fail "run $next_id stored no interval in 60 s"
}

# after a crash: verify exits 0 and a short run finds no integrity error
after_crash() { # after_crash WHAT
	expect_exit 0 "$DISKPROOF" verify "$T" --data-dir "$WORK/d" --results "$WORK/r.db"
	grep -q "newer than the clean journal" "$WORK/out" "$WORK/err" &&
		fail "$1: verify reports pages newer than a clean journal"
	expect_verdict "$DISKPROOF" run "$T" --data-dir "$WORK/d" --duration 1s \
		--results "$WORK/r.db" --quiet
	local id ie
	id=$(sqlite3 r.db "select max(id) from run")
	ie=$(sqlite3 r.db "select coalesce(sum(integrity_errors),0) from summary
		where run_id=$id and scope='run'")
	[ "$ie" = 0 ] || fail "$1: the run after the crash found $ie integrity errors"
	grep -qi "integrity" "$WORK/err" && fail "$1: $(cat "$WORK/err")"
	true
}

expect_verdict "$DISKPROOF" run "$T" --data-dir "$WORK/d" --duration 2s --results "$WORK/r.db" \
	--quiet

# killed at 1 s (of load)
run_bg 10s
wait_load "$WORK/r.db"
kill -KILL $pid
wait $pid 2>/dev/null || true
after_crash "killed at 1 s"
# the next run said once per database that the journal was from an unclean end
id=$(sqlite3 r.db "select max(id) from run")
n=$(sqlite3 r.db "select count(*) from event where run_id=$id and kind='journal'
	and message like '%did not end cleanly%'")
[ "$n" = 2 ] || fail "journal notes after the crash: $n, want one per database (2)"

# one clean run after a crash makes the journals clean again, even where it
# did not touch every page (4096 a database here): pages it never touched
# stay marked lower bounds, the rest is exact, so a page written behind
# diskproof's back is found newer than the clean journal
B=(--data-dir "$WORK/big" --db-size 128MiB --results "$WORK/big.db")
expect_exit 0 "$DISKPROOF" init "$T" "${B[@]:0:4}" --quiet
next_id=1
"$DISKPROOF" run "$T" "${B[@]}" --duration 10s --quiet >/dev/null 2>&1 &
pid=$!
wait_load "$WORK/big.db"
kill -KILL $pid
wait $pid 2>/dev/null || true
expect_verdict "$DISKPROOF" run "$T" "${B[@]}" --duration 1s --quiet
"$PT" journal big/a/db1.gen 2>jh >jg
grep -q "flags 1" jh || fail "the journal is not clean after a clean run: $(cat jh)"
grep -q " lower$" jg || fail "every page of 4096 touched in 1 s: nothing marked a lower bound"
page=$(awk 'NF == 2 && $2 > 1 {print $1; exit}' jg)
[ -n "$page" ] || fail "no exact page in db1's journal"
gen=$("$PT" gen big/a/db1.edb "$page")
"$PT" stamp big/a/db1.edb "$page" $((gen + 5))
expect_exit 4 "$DISKPROOF" verify "$T" "${B[@]}"
grep -q "db1 page $page .*newer than the clean journal" "$WORK/out" "$WORK/err" ||
	fail "a page written behind diskproof's back after a clean run: $(cat "$WORK/out")"
rm -rf big big.db*

# killed mid-run
run_bg 8s
wait_load "$WORK/r.db"
sleep 3
kill -KILL $pid
wait $pid 2>/dev/null || true
after_crash "killed mid-run"

# killed in the end phase: at the end of the duration, a few instants apart
for ms in 0 150 300 450 600; do
	run_bg 2s
	sleep "$(printf '2.%03d' "$ms")"
	kill -KILL $pid 2>/dev/null || true
	wait $pid 2>/dev/null || true
	after_crash "killed $ms ms after the duration"
done

# a lost write planted before a crash is still found, with its page: the
# killed run only reads (the same layout in the fixed model), so that what
# it found before its events were stored is still on disk for verify
sed -e 's/^log_segment_size.*/model = fixed\nread_pct = 100/' -e '/^log_size/d' "$T" >ro.ini
page=$("$PT" journal d/a/db1.gen 2>/dev/null | awk '$2 > 2 {print $1; exit}')
[ -n "$page" ] || fail "no page of db1 written twice"
gen=$("$PT" gen d/a/db1.edb "$page")
"$PT" stamp d/a/db1.edb "$page" $((gen - 1))
"$DISKPROOF" run ro.ini --data-dir "$WORK/d" --duration 10s --results "$WORK/r.db" \
	--quiet >/dev/null 2>&1 &
pid=$!
sleep 1
kill -KILL $pid
wait $pid 2>/dev/null || true
expect_exit 4 "$DISKPROOF" verify "$T" --data-dir "$WORK/d" --results "$WORK/r.db"
grep -q "db1 page $page .*lost write" "$WORK/out" "$WORK/err" ||
	fail "verify does not name the lost write on db1 page $page: $(cat "$WORK/err")"
n=$(cat "$WORK/out" "$WORK/err" | grep -c "page .*(.*offset" || true)
[ "$n" = 1 ] || fail "verify names $n bad pages, want just the planted one"

# lost writes planted on 40 pages, then a transactional run killed before it
# stored what it found: a page it found bad is left as it was (never written
# again by the run), so each one is named by the run or by verify
expect_exit 0 "$DISKPROOF" init "$T" --data-dir "$WORK/k" --quiet
expect_verdict "$DISKPROOF" run "$T" --data-dir "$WORK/k" --duration 2s --results "$WORK/k.db" \
	--quiet
"$PT" journal k/a/db1.gen 2>/dev/null | awk '$2 > 2 {print $1, $2}' | head -40 >planted
[ "$(wc -l <planted)" = 40 ] || fail "fewer than 40 pages of db1 written twice"
while read -r p g; do "$PT" stamp k/a/db1.edb "$p" $((g - 1)); done <planted
"$DISKPROOF" run "$T" --data-dir "$WORK/k" --duration 10s --results "$WORK/k.db" --quiet \
	>/dev/null 2>&1 &
pid=$!
sleep 0.7
kill -KILL $pid
wait $pid 2>/dev/null || true
id=$(sqlite3 k.db "select max(id) from run")
sqlite3 k.db "select message from event where run_id=$id and kind='error'" >k.events
set +e
"$DISKPROOF" verify "$T" --data-dir "$WORK/k" --results "$WORK/k.db" >k.verify 2>&1
set -e
missing=0
while read -r p g; do
	grep -q "^db1 page $p " k.events || grep -q "db1 page $p " k.verify || missing=$((missing + 1))
done <planted
[ $missing = 0 ] || fail "$missing of 40 planted lost writes named neither by the killed run nor by verify"
echo "killed run named $(grep -c . k.events || true), verify $(grep -c "db1 page" k.verify || true)"
echo ok
