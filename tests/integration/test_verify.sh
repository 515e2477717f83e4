#!/bin/bash
# SPDX-License-Identifier: MIT
# diskproof verify: a clean tree verifies (exit 0); each kind of damage is
# found and reported with database, page, file and offset (exit 4): a flipped
# byte (checksum mismatch), another page's content (misdirected write), an
# older generation than the journal's (lost write), a payload changed under
# a valid checksum (only --deep), a damaged log block; a missing database is
# exit 3 naming it, a foreign file is refused unread; --rate and Ctrl-C
# (130); and verify never changes a byte of what it reads.
source "$(dirname "$0")/lib.sh"
set -e
skip_without_uring
PT="${PAGETOOL:-$DP_BINARY_DIR/tests/pagetool}"
[ -x "$PT" ] || fail "no $PT (build the tests)"
PS=32768

V() {
	"$DISKPROOF" verify quick --data-dir "$WORK/data" --db-size 4MiB "$@"
}

# flip FILE OFFSET: inverts one byte in place
flip() {
	local b
	b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
	printf "$(printf '\\%03o' $((b ^ 0xff)))" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

# save FILE / restore FILE: a copy to undo one case's damage
save() { cp "$1" "$WORK/saved.$(basename "$1")"; }
restore() { cp "$WORK/saved.$(basename "$1")" "$1"; }

expect_verdict "$DISKPROOF" run quick --data-dir "$WORK/data" --db-size 4MiB --duration 2s \
	--warmup 0s --results "$WORK/r.db" --quiet

# --- a clean tree
expect_exit 0 V
grep -q "^db4: 128 pages, [0-9]* log blocks checked: no problems" out || fail "clean summary"
grep -q "^verified 4 database(s): 512 pages and [0-9]* log blocks.*MB/s): no problems" out ||
	fail "total line"
# run wrote a clean journal (DB.gen) at its end: generations are checked exactly
[ -f data/vol1/db1.gen ] || fail "run wrote no journal"
grep -q "journal clean: exact generations checked" out || fail "journal not used"

# --- one byte flipped inside page 7 of db2
save data/vol1/db2.edb
flip data/vol1/db2.edb $((7 * PS + 1000))
expect_exit 4 V
grep -q "^db2 page 7 ($WORK/data/vol1/db2.edb offset 229376): checksum mismatch" out ||
	fail "flipped byte not reported as expected"
[ "$(grep -c "^db. page" out)" = 1 ] || fail "more than the one bad page reported"
grep -q "data integrity error" err || fail "verdict"
restore data/vol1/db2.edb

# --- page 3 of db1 copied over page 9: a misdirected write
save data/vol1/db1.edb
dd if=data/vol1/db1.edb of=data/vol1/db1.edb bs=$PS skip=3 seek=9 count=1 conv=notrunc \
	status=none
expect_exit 4 V
grep -q "^db1 page 9 ($WORK/data/vol1/db1.edb offset $((9 * PS))): misdirected write: holds db1 page 3" \
	out || fail "misdirected write not reported"
restore data/vol1/db1.edb

# --- a lost write: a page older than the journal says
read -r P G < <("$PT" journal data/vol1/db1.gen 2>/dev/null | awk '$2 >= 2 {print; exit}')
[ -n "$P" ] || fail "no page of db1 written twice in the journal"
save data/vol1/db1.edb
"$PT" stamp data/vol1/db1.edb "$P" $((G - 1))
expect_exit 4 V
grep -q "^db1 page $P (.*offset $((P * PS))): lost write.*(expected generation $G, found $((G - 1)))" \
	out || fail "lost write not reported"
# newer than a clean journal is an error too
"$PT" stamp data/vol1/db1.edb "$P" $((G + 1))
expect_exit 4 V
grep -q "^db1 page $P .*newer than the clean journal.*(expected generation $G, found $((G + 1)))" \
	out || fail "newer page not reported"
restore data/vol1/db1.edb
# --- without a journal any generation from 1 up is accepted
mv data/vol1/db1.gen data/vol1/db1.gen.saved
save data/vol1/db1.edb
"$PT" stamp data/vol1/db1.edb 5 7
expect_exit 0 V
grep -q "^db1: .*no journal: generations not checked" out || fail "no-journal note"
restore data/vol1/db1.edb
mv data/vol1/db1.gen.saved data/vol1/db1.gen

# --- a payload byte changed under a valid checksum: only --deep sees it
save data/vol2/db3.edb
flip data/vol2/db3.edb $((2 * PS + 5000))
"$PT" recrc data/vol2/db3.edb 2
expect_exit 0 V
expect_exit 4 V --deep
grep -q "^db3 page 2 ($WORK/data/vol2/db3.edb offset $((2 * PS))): payload mismatch" out ||
	fail "payload mismatch not reported"
grep -q "^verified 4 database(s) deep" out || fail "deep summary"
restore data/vol2/db3.edb

# --- a damaged log block
BS=$(od -An -tu4 -j20 -N4 data/vol1/db1.log | tr -d ' ')
save data/vol1/db1.log
flip data/vol1/db1.log $((3 * BS + 100))
expect_exit 4 V
grep -q "^db1 log block 3 ($WORK/data/vol1/db1.log offset $((3 * BS))): checksum mismatch" out ||
	fail "log damage not reported"
restore data/vol1/db1.log

# --- a missing database: exit 3, named; the others are still verified
mv data/vol2/db4.edb missing.edb
expect_exit 3 V
grep -q "db4.edb: missing" err || fail "missing database not named"
grep -q "^db3: 128 pages" out || fail "the other databases were not verified"
mv missing.edb data/vol2/db4.edb

# --- somebody else's file: reported, not read through, not written
save data/vol2/db4.edb
head -c $((128 * PS)) /dev/urandom >data/vol2/db4.edb
expect_exit 3 V
grep -q "db4.edb: not a diskproof database file" err || fail "foreign file not reported"
grep -q "^db4: 0 pages" out || fail "foreign file was verified"
restore data/vol2/db4.edb

# --- verify never writes (but its lock files): a damaged tree is byte for byte
# the same after
flip data/vol1/db2.edb $((7 * PS + 1000))
dd if=data/vol1/db1.edb of=data/vol1/db1.edb bs=$PS skip=3 seek=9 count=1 conv=notrunc \
	status=none
flip data/vol2/db4.log $((5 * BS + 7))
before=$(cd data && find . -type f ! -name .diskproof.lock | sort | xargs sha256sum)
expect_exit 4 V --deep
[ "$(grep -c "^db. \(page\|log block\)" out)" = 3 ] || fail "expected 3 bad pages/blocks"
after=$(cd data && find . -type f ! -name .diskproof.lock | sort | xargs sha256sum)
[ "$before" = "$after" ] || fail "verify changed a file"

# --- --rate and Ctrl-C: 130, promptly
set +e
t0=$(date +%s%N)
"$DISKPROOF" verify quick --data-dir "$WORK/data" --db-size 4MiB --rate 10MiB >out 2>err &
pid=$!
sleep 1
kill -INT $pid
wait $pid
rc=$?
set -e
t1=$(date +%s%N)
[ $rc = 130 ] || fail "interrupted verify exited $rc, expected 130"
[ $(((t1 - t0) / 1000000)) -lt 4000 ] || fail "interrupt took too long"
grep -q "interrupted" err || fail "interrupt not reported"
echo "ok"
