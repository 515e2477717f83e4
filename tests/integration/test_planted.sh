#!/bin/bash
# SPDX-License-Identifier: MIT
# Every planted corruption is found with its database and page, by verify and
# by the next run: a flipped byte, a lost write (an older generation), a
# misdirected write (another page's content), a torn page (its second half
# from an older image of it, a page from 40 on) and a zeroed page, each on its own page of db1;
# db2 is left alone and nothing is reported for it.
source "$(dirname "$0")/lib.sh"
set -e
skip_without_uring
T="$DP_SOURCE_DIR/tests/integration/profiles/tiny.ini"
PT="$DP_BINARY_DIR/tests/pagetool"
F="$WORK/d/a/db1.edb"

expect_verdict "$DISKPROOF" run "$T" --data-dir "$WORK/d" --duration 1s --results "$WORK/r.db" \
	--quiet
# an older image of the database, then more writes over it
cp "$F" old.edb
expect_verdict "$DISKPROOF" run "$T" --data-dir "$WORK/d" --duration 1s --results "$WORK/r.db" \
	--quiet
# the torn page: the first from 40 on that was rewritten since the image
for tp in $(seq 40 49); do
	[ "$("$PT" gen old.edb $tp)" != "$("$PT" gen "$F" $tp)" ] && break
done
[ "$("$PT" gen old.edb $tp)" != "$("$PT" gen "$F" $tp)" ] || fail "no page 40-49 rewritten"
dd if=old.edb of=old40 bs=32768 skip=$tp count=1 status=none

python3 - "$F" old40 $tp <<'EOF'
import sys
ps = 32768
with open(sys.argv[1], "r+b") as f:
    def page(n):
        f.seek(n * ps)
        return bytearray(f.read(ps))
    def put(n, b):
        f.seek(n * ps)
        f.write(b)
    b = page(10); b[9000] ^= 0x01; put(10, b)          # flipped byte
    put(30, page(31))                                    # misdirected: page 31's content
    tp = int(sys.argv[3])
    b = page(tp); b[ps // 2:] = open(sys.argv[2], "rb").read()[ps // 2:]; put(tp, b)  # torn
    put(50, bytes(ps))                                   # zeroed
EOF
g=$("$PT" gen "$F" 20)
"$PT" stamp "$F" 20 $((g - 1)) # lost write

expect_exit 4 "$DISKPROOF" verify "$T" --data-dir "$WORK/d" --results "$WORK/r.db"
for p in 10 20 30 $tp 50; do
	grep -q "db1 page $p (" "$WORK/out" "$WORK/err" || fail "verify does not name db1 page $p"
done
grep -q "db1 page 20 .*lost write" "$WORK/out" "$WORK/err" || fail "page 20 not a lost write"
grep -q "db1 page 30 .*misdirected" "$WORK/out" "$WORK/err" || fail "page 30 not misdirected"
grep -q "db2 page" "$WORK/out" "$WORK/err" && fail "verify reports db2, which is intact"

expect_exit 4 "$DISKPROOF" run "$T" --data-dir "$WORK/d" --duration 3s --results "$WORK/r.db" \
	--quiet
id=$(sqlite3 r.db "select max(id) from run")
sqlite3 r.db "select message from event where run_id=$id and kind='error'" >ev
for p in 10 20 30 $tp 50; do
	grep -q "^db1 page $p (" ev || fail "the run does not name db1 page $p: $(cat ev)"
done
n=$(wc -l <ev)
[ "$n" = 5 ] || fail "the run names $n bad pages, want the 5 planted: $(cat ev)"

# zeros where verify first looks for a header (pages 0, 64, 128, 192, 255 of
# db2) and flipped bytes elsewhere: db2's own journal says the file is db2, so
# every page is still checked and every damaged one named (never "not a
# diskproof file, not verified"), and the run calls it an integrity error
python3 - "$WORK/d/b/db2.edb" <<'EOF'
import sys
ps = 32768
with open(sys.argv[1], "r+b") as f:
    for p in (0, 64, 128, 192, 255):
        f.seek(p * ps)
        f.write(bytes(ps))
    for p in (3, 77, 200):
        f.seek(p * ps + 9000)
        b = f.read(1)
        f.seek(p * ps + 9000)
        f.write(bytes([b[0] ^ 0x01]))
EOF
expect_exit 4 "$DISKPROOF" verify "$T" --data-dir "$WORK/d" --results "$WORK/r.db"
for p in 0 64 128 192 255 3 77 200; do
	grep -q "db2 page $p (" "$WORK/out" "$WORK/err" || fail "verify does not name db2 page $p"
done
expect_exit 4 "$DISKPROOF" run "$T" --data-dir "$WORK/d" --duration 2s --results "$WORK/r.db" \
	--quiet
id=$(sqlite3 r.db "select max(id) from run")
sqlite3 r.db "select message from event where run_id=$id and kind='error'" | grep -q "^db2 page 0 (" ||
	fail "the run does not name db2's zeroed page 0"
echo ok
