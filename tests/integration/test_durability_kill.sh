#!/bin/bash
# SPDX-License-Identifier: MIT
# The durability test on real files (io_uring, write-through page writes, a
# witness file in another directory): a run killed with SIGKILL at a random
# instant loses nothing the page cache acknowledged (an honest cache), so
# verify --witness exits 0, several times over; and a planted stale page (an
# acknowledged page overwritten with an older copy of itself, pagetool stamp)
# makes it exit 4 naming that page; so do a torn page (its first 4 KiB from
# the generation before, the rest from the acknowledged write) and a corrupt
# one; a page torn by a write never acknowledged (its first 4 KiB from the
# acknowledged write, the rest from the next) is counted, no failure.
source "$(dirname "$0")/lib.sh"
set -e
skip_without_uring
PT="$DP_BINARY_DIR/tests/pagetool"
mkdir -p "$WORK/d" "$WORK/witness"
W="$WORK/witness/w.log"
sed -e 's/^duration = 3s/duration = 1m\ntype = durability\nwitness = '"${W//\//\\/}"'/' \
	"$DP_SOURCE_DIR/tests/integration/profiles/tiny.ini" >dur.ini
run_args=(./dur.ini --data-dir "$WORK/d" --results "$WORK/r.db")
expect_exit 0 "$DISKPROOF" init "${run_args[@]}"

# wait_acks: until the witness holds acknowledgements of this run (the file
# grows past what it held), or the run ended
wait_acks() { # wait_acks SIZE_BEFORE PID
	for _ in $(seq 1 600); do
		[ "$(stat -c %s "$W" 2>/dev/null || echo 0)" -gt "$1" ] && return 0
		kill -0 "$2" 2>/dev/null || fail "the run ended before any acknowledgement"
		sleep 0.1
	done
	fail "no acknowledgement in 60 s"
}

for i in 1 2 3; do
	before=$(stat -c %s "$W" 2>/dev/null || echo 0)
	"$DISKPROOF" run "${run_args[@]}" --quiet >/dev/null 2>&1 &
	pid=$!
	wait_acks "$before" $pid
	sleep "0.$((RANDOM % 10))$((RANDOM % 10))"
	kill -9 $pid
	wait $pid 2>/dev/null || true
	expect_exit 0 "$DISKPROOF" verify "${run_args[@]}" --witness "$W"
	grep -q " 0 lost after acknowledgement, 0 torn, 0 corrupt" out ||
		fail "kill $i: $(tail -2 out)"
	grep -Eq "witness .*: [1-9][0-9]* acknowledgement" out || fail "kill $i: nothing acknowledged"
done

# a planted stale page: one the last run wrote (its generation rose) and the
# witness acknowledged (the run ended by its duration: every completion sent)
db="$WORK/d/a/db1.edb"
npages=$(($(stat -c %s "$db") / 32768))
for p in $(seq 0 $((npages - 1))); do "$PT" gen "$db" "$p"; done >gens.before
expect_exit 0 "$DISKPROOF" run "${run_args[@]}" --duration 2s
for p in $(seq 0 $((npages - 1))); do "$PT" gen "$db" "$p"; done >gens.after
page=$(paste gens.before gens.after | awk '$2 > $1 && $2 >= 3 { print NR - 1; exit }')
[ -n "$page" ] || fail "no page written twice by the last run"
gen=$("$PT" gen "$db" "$page")
expect_exit 0 "$DISKPROOF" verify "${run_args[@]}" --witness "$W"
"$PT" stamp "$db" "$page" $((gen - 1))
expect_exit 4 "$DISKPROOF" verify "${run_args[@]}" --witness "$W"
grep -q "^db1 page $page: lost after acknowledgement (acknowledged generation $gen, found $((gen - 1))" out ||
	fail "the stale page $page is not named: $(head -3 out)"
grep -q " 1 lost after acknowledgement" out || fail "not exactly one lost: $(tail -2 out)"

# torn by a write in flight: the page's first 4 KiB from its acknowledged
# write, the rest from the next generation's (never acknowledged): no
# failure, counted; torn after acknowledgement: the first 4 KiB from the
# generation before, the rest from the acknowledged one (the acknowledged
# write only partly kept): exit 4, named; corrupt: bytes of neither
"$PT" stamp "$db" "$page" "$gen"
expect_exit 0 "$DISKPROOF" verify "${run_args[@]}" --witness "$W"
dd if="$db" of=page.old bs=32768 skip="$page" count=1 status=none
"$PT" stamp "$db" "$page" $((gen + 1))
dd if=page.old of="$db" bs=4096 seek=$((page * 8)) count=1 conv=notrunc status=none
expect_exit 0 "$DISKPROOF" verify "${run_args[@]}" --witness "$W"
grep -q "^1 page(s) torn by a write in flight" out ||
	fail "a page torn by an unacknowledged write is not counted as such: $(cat out)"
grep -q " 0 lost after acknowledgement, 0 torn, 0 corrupt" out || fail "torn in flight: $(tail -1 out)"
[ "$gen" -ge 2 ] || fail "the acknowledged generation $gen has no generation before it"
"$PT" stamp "$db" "$page" $((gen - 1))
dd if="$db" of=page.prev bs=4096 skip=$((page * 8)) count=1 status=none
dd if=page.old of="$db" bs=32768 seek="$page" count=1 conv=notrunc status=none
dd if=page.prev of="$db" bs=4096 seek=$((page * 8)) count=1 conv=notrunc status=none
expect_exit 4 "$DISKPROOF" verify "${run_args[@]}" --witness "$W"
grep -q "^db1 page $page: torn (acknowledged generation $gen, found $((gen - 1))" out ||
	fail "the torn page $page is not named torn: $(head -3 out)"
dd if=page.old of="$db" bs=32768 seek="$page" count=1 conv=notrunc status=none
head -c 100 /dev/urandom | dd of="$db" bs=1 seek=$((page * 32768 + 5000)) conv=notrunc status=none
expect_exit 4 "$DISKPROOF" verify "${run_args[@]}" --witness "$W"
grep -q "^db1 page $page: corrupt " out || fail "the corrupt page $page is not named corrupt: $(head -3 out)"
grep -q " 0 lost after acknowledgement, 0 torn, 1 corrupt" out || fail "corrupt: $(tail -2 out)"
echo "ok"
