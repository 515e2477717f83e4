#!/bin/bash
# SPDX-License-Identifier: MIT
# Journals never replace what is not theirs, and a resumed init leaves one
# for every database:
#  - a user's file named db1.gen survives init byte for byte (exit 3, named);
#    with --destroy-data naming it, it is replaced by a journal;
#  - a link planted at the temporary journal's name (dbN.gen.tmp.PID, the pid
#    known in advance through exec) pointing at a victim file leaves the
#    victim unchanged, and the journal is written all the same;
#  - init killed (kill -9) once the first database file is complete, then run
#    again: every dbN.gen exists and verify exits 0.
source "$(dirname "$0")/lib.sh"
set -e
skip_without_uring
T="$DP_SOURCE_DIR/tests/integration/profiles/tiny.ini"
PT="${PAGETOOL:-$DP_BINARY_DIR/tests/pagetool}"

# --- a user's file at db1.gen
mkdir -p d/a
printf 'my notes, not a journal\n' >d/a/db1.gen
sum=$(sha256sum <d/a/db1.gen)
expect_exit 3 "$DISKPROOF" init "$T" --data-dir "$WORK/d" --results "$WORK/r.db"
grep -q "d/a/db1.gen: exists and is not a diskproof generation journal" err ||
	fail "init's message: $(cat err)"
[ "$(sha256sum <d/a/db1.gen)" = "$sum" ] || fail "the user's db1.gen was changed"
# named with --destroy-data: replaced
expect_exit 0 "$DISKPROOF" init "$T" --data-dir "$WORK/d" --results "$WORK/r.db" \
	--destroy-data "$WORK/d/a/db1.gen"
"$PT" journal d/a/db1.gen >/dev/null 2>&1 || fail "db1.gen is not a journal after --destroy-data"
expect_exit 0 "$DISKPROOF" verify "$T" --data-dir "$WORK/d" --results "$WORK/r.db"

# --- links planted at the temporary journals' names: the pid is the
# shell's, which exec keeps
rm -rf d
mkdir -p d/a d/b
printf 'victim\n' >victim
vsum=$(sha256sum <victim)
set +e
bash -c 'ln -s "$1" "$2/a/db1.gen.tmp.$$" && ln -s "$1" "$2/b/db2.gen.tmp.$$" &&
	exec "$3" init "$4" --data-dir "$2" --results "$5"' _ \
	"$WORK/victim" "$WORK/d" "$DISKPROOF" "$T" "$WORK/r.db" >out 2>err
rc=$?
set -e
[ $rc = 0 ] || fail "init with planted links exited $rc: $(cat err)"
[ "$(sha256sum <victim)" = "$vsum" ] || fail "the victim file was written through the link"
[ -L "$(echo d/a/db1.gen.tmp.*)" ] || fail "the planted link was removed or replaced"
"$PT" journal d/a/db1.gen >/dev/null 2>&1 || fail "db1.gen is not a journal"
"$PT" journal d/b/db2.gen >/dev/null 2>&1 || fail "db2.gen is not a journal"
expect_exit 0 "$DISKPROOF" verify "$T" --data-dir "$WORK/d" --results "$WORK/r.db"
grep -q "db1: .*journal clean" out || fail "verify: $(cat out)"

# --- a resumed init after kill -9: the two databases of one volume are
# created in order; the first complete, the second under way
cat >one.ini <<INI
[test]
duration = 2s
warmup = 0s
[sizing]
database_size = 128MiB
log_size = 1MiB
[workload]
log_segment_size = 256KiB
[engine]
name = io_uring
streams = 4
[volume a]
path = ./a
databases = 2
INI
rm -rf d
full=$((128 << 20))
"$DISKPROOF" init ./one.ini --data-dir "$WORK/d" --results "$WORK/r.db" >out 2>err &
pid=$!
for _ in $(seq 1 2000); do
	s=$(stat -c %s d/a/db1.edb 2>/dev/null || echo 0)
	[ "$s" -ge $full ] && [ -e d/a/db2.edb ] && break
	sleep 0.005
done
kill -9 $pid 2>/dev/null || true
wait $pid || true
if [ -e d/a/db1.gen ]; then
	# it finished before the kill: make the state it would have left
	rm -f d/a/db1.gen d/a/db2.gen
	truncate -s $((full / 2)) d/a/db2.edb
	echo "note: init finished before the kill; state made by hand"
fi
[ "$(stat -c %s d/a/db1.edb)" = $full ] || fail "db1.edb not complete when killed"
expect_exit 0 "$DISKPROOF" init ./one.ini --data-dir "$WORK/d" --results "$WORK/r.db"
[ -f d/a/db1.gen ] || fail "resumed init wrote no journal for db1 (finished before the kill)"
[ -f d/a/db2.gen ] || fail "resumed init wrote no journal for db2"
expect_exit 0 "$DISKPROOF" verify ./one.ini --data-dir "$WORK/d" --results "$WORK/r.db"
grep -q "^db1: .*no problems" out || fail "verify db1: $(cat out)"
grep -q "^db2: .*no problems; journal clean" out || fail "verify db2: $(cat out)"
echo ok
