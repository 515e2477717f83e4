#!/bin/bash
# SPDX-License-Identifier: MIT
# Integrity while running, on real files: a healthy run where streams collide
# on few pages reports no integrity error; a byte flipped in a page is caught
# by the next run's reads (exit 4, database, 0-based page, offset named); a
# page rolled back to an older generation between runs (a lost write that the
# clean journal of the first run exposes) is caught as a lost write with the
# expected and found generations.
source "$(dirname "$0")/lib.sh"
set -e
skip_without_uring
PT="$DP_BINARY_DIR/tests/pagetool"
[ -x "$PT" ] || fail "no $PT"
T="$DP_SOURCE_DIR/tests/integration/profiles/tiny.ini"
sed 's/^\[engine\]/[workload]\nmodel = fixed\nread_pct = 100\n\n[engine]/' "$T" >readonly.ini
PS=32768
flip() {
	local b
	b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
	printf "$(printf '\\%03o' $((b ^ 0xff)))" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}
integrity() { sqlite3 r.db "select integrity_errors from summary where run_id=$1 and scope='run' and class='db_read'"; }

# 1 MiB databases: 32 pages for 4 streams and the log writers, so pages
# collide all the time; any false integrity error would show here
set +e
"$DISKPROOF" run "$T" --data-dir "$WORK/data" --db-size 1MiB --duration 8s --warmup 0s \
	--results "$WORK/r.db" --quiet >out 2>err
rc=$?
set -e
[ $rc = 0 ] || [ $rc = 1 ] || { cat err; fail "healthy run exited $rc"; }
[ "$(integrity 1)" = 0 ] || fail "integrity errors on a healthy file"
[ "$(sqlite3 r.db "select ios from summary where run_id=1 and scope='run' and class='db_write'")" -gt 1000 ] ||
	fail "too few writes to mean anything"

# a byte flipped in page 7 of db2: the next (read-only) run reads it
flip data/b/db2.edb $((7 * PS + 1000))
expect_exit 4 "$DISKPROOF" run ./readonly.ini --data-dir "$WORK/data" --db-size 1MiB \
	--duration 3s --warmup 0s --results "$WORK/r.db"
sqlite3 r.db "select message from event where run_id=2 and kind='error'" >events
grep -q "^db2 page 7 ($WORK/data/b/db2.edb offset 229376): checksum mismatch (corrupt or torn page)" events ||
	fail "flipped byte not reported: $(head -3 events)"
[ "$(grep -c "page 7 " events)" = 1 ] || fail "the bad page was reported more than once"
grep -q "data integrity error" err || fail "no integrity message"
[ "$(integrity 2)" = 1 ] || fail "integrity count $(integrity 2)"

# a lost write: page P of db1 rolled back one generation behind the journal
expect_exit_01() {
	set +e; "$@" >/dev/null 2>err; local rc=$?; set -e
	[ $rc = 0 ] || [ $rc = 1 ] || { cat err; fail "exit $rc from $*"; }
}
rm -rf data
expect_exit_01 "$DISKPROOF" run "$T" --data-dir "$WORK/data" --db-size 1MiB --duration 3s \
	--warmup 0s --results "$WORK/r.db" --quiet
read -r P G < <("$PT" journal data/a/db1.gen 2>/dev/null | awk '$2 >= 3 {print; exit}')
[ -n "$P" ] || fail "no page written twice"
"$PT" stamp data/a/db1.edb "$P" $((G - 1))
expect_exit 4 "$DISKPROOF" run ./readonly.ini --data-dir "$WORK/data" --db-size 1MiB \
	--duration 3s --warmup 0s --results "$WORK/r.db"
id=$(sqlite3 r.db "select max(id) from run")
sqlite3 r.db "select message from event where run_id=$id and kind='error'" >events
grep -q "^db1 page $P ($WORK/data/a/db1.edb offset $((P * PS))): lost write (older generation than acknowledged) (expected generation $G, found $((G - 1)))" events ||
	fail "lost write not reported: $(head -3 events)"
echo "ok"
