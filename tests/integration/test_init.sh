#!/bin/bash
# SPDX-License-Identifier: MIT
# init: creates every database and log in the on-disk format with a clean
# journal (verify passes, exact generations); stopped with SIGINT it exits 130,
# leaves no file it had not begun (an empty log would be "not diskproof's" to
# verify and clean), and a second init finishes without rewriting what was
# done (bytes counted);
# a third finds everything there and writes nothing; a foreign file where a
# database goes is refused, left byte for byte, and overwritten only when
# --destroy-data names it; a symbolic link is never followed.
source "$(dirname "$0")/lib.sh"
set -e
skip_without_uring
T="$DP_SOURCE_DIR/tests/integration/profiles/tiny.ini"
total=$((2 * (256 * 1048576 + 1048576)))
# the closing line wraps within 80 columns: read it joined
wrote() { tr '\n' ' ' <"$WORK/out" | tr -s ' ' | sed -n 's/.*wrote [^(]* (\([0-9]*\) bytes).*/\1/p'; }

"$DISKPROOF" init "$T" --data-dir "$WORK/data" --db-size 256MiB >"$WORK/out" 2>"$WORK/err" &
pid=$!
# stop it part-way: once some of the first database is on disk
for _ in $(seq 1 200); do
	s=$(stat -c %s data/a/db1.edb 2>/dev/null || echo 0)
	[ "$s" -gt 20000000 ] && break
	sleep 0.01
done
kill -INT $pid
set +e
wait $pid
rc=$?
set -e
[ $rc = 130 ] || { cat "$WORK/err"; fail "interrupted init exited $rc"; }
grep -q "interrupted; run again to resume" "$WORK/err" || fail "no resume hint"
# a file it had not begun is not there (no empty log that verify and clean
# would call not diskproof's)
for f in data/a/db1.log data/b/db2.log; do
	[ ! -e $f ] || [ -s $f ] || fail "interrupted init left an empty $f"
done
have=0
for f in data/a/db1.edb data/a/db1.log data/b/db2.edb data/b/db2.log; do
	[ -f $f ] && have=$((have + $(stat -c %s $f)))
done
[ $have -gt 0 ] && [ $have -lt $total ] || fail "interrupted at $have of $total bytes"

expect_exit 0 "$DISKPROOF" init "$T" --data-dir "$WORK/data" --db-size 256MiB
[ "$(wrote)" = $((total - have)) ] ||
	fail "resume wrote $(wrote) bytes, expected $((total - have)) (had $have of $total)"
expect_exit 0 "$DISKPROOF" init "$T" --data-dir "$WORK/data" --db-size 256MiB
{ [ -z "$(wrote)" ] && grep -q "every file was there already" "$WORK/out"; } ||
	fail "a complete layout was written again: $(cat "$WORK/out")"
expect_exit 0 "$DISKPROOF" verify "$T" --data-dir "$WORK/data" --db-size 256MiB
grep -q "journal clean: exact generations checked" out || fail "init wrote no clean journal"

# a foreign file where db1 goes: refused, untouched; --destroy-data overwrites it
mkdir -p other/a
head -c 3000000 /dev/urandom >other/a/db1.edb
sum=$(sha256sum <other/a/db1.edb)
expect_exit 3 "$DISKPROOF" init "$T" --data-dir "$WORK/other" --db-size 8MiB
grep -q "db1.edb: exists and is not a diskproof database file" err || fail "message: $(cat err)"
[ "$(sha256sum <other/a/db1.edb)" = "$sum" ] || fail "foreign file changed"
[ ! -e other/b/db2.edb ] || fail "other files created after a refusal"
expect_exit 3 "$DISKPROOF" init "$T" --data-dir "$WORK/other" --db-size 8MiB \
	--destroy-data "$WORK/other/a/unrelated"
expect_exit 0 "$DISKPROOF" init "$T" --data-dir "$WORK/other" --db-size 8MiB \
	--destroy-data "$WORK/other/a/db1.edb"
[ "$(stat -c %s other/a/db1.edb)" = 8388608 ] || fail "destroyed file not rewritten to size"
expect_exit 0 "$DISKPROOF" verify "$T" --data-dir "$WORK/other" --db-size 8MiB

# a symbolic link where a database goes: never followed
mkdir -p link/a
echo "precious" >precious.txt
ln -s "$WORK/precious.txt" link/a/db1.edb
expect_exit 3 "$DISKPROOF" init "$T" --data-dir "$WORK/link" --db-size 8MiB
grep -q "db1.edb: is a symbolic link" err || fail "symlink message: $(cat err)"
[ "$(cat precious.txt)" = precious ] || fail "link target changed"
# --precondition: random page overwrites round by round; stopped with Ctrl-C
# after a few seconds it exits 130 and the databases verify exactly
"$DISKPROOF" init "$T" --data-dir "$WORK/pre" --db-size 16MiB --precondition >"$WORK/out" \
	2>"$WORK/err" &
pid=$!
sleep 4
kill -INT $pid
set +e
wait $pid
rc=$?
set -e
[ $rc = 130 ] || { cat "$WORK/err"; fail "interrupted precondition exited $rc"; }
expect_exit 0 "$DISKPROOF" verify "$T" --data-dir "$WORK/pre" --db-size 16MiB
grep -q "^db1: .*no problems; journal clean: exact generations checked" out || fail "verify: $(cat out)"
"$DP_BINARY_DIR/tests/pagetool" journal pre/a/db1.gen 2>/dev/null | awk '$2 > 1' | grep -q . ||
	fail "precondition rewrote no page"
echo "ok"
