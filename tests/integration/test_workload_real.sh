#!/bin/bash
# SPDX-License-Identifier: MIT
# The workload on real files (io_uring):
# - exchange-2013 (databases shrunk to 64 MiB) records, for every database,
#   database reads and writes, log writes, maintenance reads and replication
#   log reads, on every real engine built in (io_uring, libaio, psync);
# - a backup test reads every database once, end to end, and reports MB/s per
#   database and in all;
# - a recovery test writes its log segments, replays them and reports seconds
#   per segment; the files verify clean afterwards (deep);
# - the fixed model with two workers drives one database from both, each on
#   its page range, at its read share; the files verify clean.
source "$(dirname "$0")/lib.sh"
set -e
skip_without_uring
T="$DP_SOURCE_DIR/tests/integration/profiles/tiny.ini"

for engine in io_uring libaio psync; do
	set +e
	"$DISKPROOF" run exchange-2013 --engine $engine --db-size 64MiB --duration 5s --warmup 0s \
		--data-dir "$WORK/x-$engine" --results "$WORK/x.db" --quiet >"$WORK/out" 2>"$WORK/err"
	rc=$?
	set -e
	if [ $rc = 3 ] && grep -q "not available" "$WORK/err"; then
		echo "engine $engine not built in: $(cat "$WORK/err")"
		continue
	fi
	[ $rc = 0 ] || [ $rc = 1 ] || { cat "$WORK/err"; fail "exchange-2013 on $engine: exit $rc"; }
	expect_exit 0 "$DISKPROOF" report --format json --results "$WORK/x.db"
	[ "$(json 'd["run"]["engine"]')" = "$engine" ] || fail "engine recorded"
	[ "$(json 'len(d["databases"])')" = 4 ] || fail "4 databases"
	for c in db_read db_write log_write bdm_read log_read; do
		n=$(json "min(x[\"classes\"][\"$c\"][\"ios\"] for x in d[\"databases\"])")
		[ "$n" -gt 0 ] || fail "$engine: a database without $c"
	done
	[ "$(json 'sum(x["classes"][c]["errors"] for x in d["databases"] for c in x["classes"])')" = 0 ] ||
		fail "$engine: I/O errors"
	echo "$engine: $(json '{c: v["ios"] for c, v in d["summary"]["classes"].items() if v["ios"]}')"
done

# backup: every byte of both 8 MiB databases read once
sed 's/^duration = 3s/duration = 10m\ntype = backup/' "$T" >backup.ini
expect_exit 0 "$DISKPROOF" run ./backup.ini --data-dir "$WORK/d" --results "$WORK/r.db"
grep -q "backup: 16.8 MB read in .* MB/s in all" out err || fail "backup total not reported"
[ "$(sqlite3 r.db "select count(*) from event where kind = 'backup' and message like 'db_: 8.4 MB read in % s: % MB/s'")" = 2 ] ||
	fail "backup per database"
[ "$(sqlite3 r.db "select sum(bytes) from summary where run_id = 1 and scope = 'database' and class = 'backup_read'")" = 16777216 ] ||
	fail "backup read bytes"
[ "$(sqlite3 r.db "select duration_s < 60 from run where id = 1")" = 1 ] || fail "backup ran on after reading everything"

# recovery: 3 segments of 256 KiB per database, replayed
sed 's/^duration = 3s/duration = 10m\ntype = recovery\nrecovery_segments = 3/' "$T" >recovery.ini
expect_verdict "$DISKPROOF" run ./recovery.ini --data-dir "$WORK/d" --results "$WORK/r.db"
[ "$(sqlite3 r.db "select count(*) from event where run_id = 2 and kind = 'recovery' and message like 'db_: 3 of 3 log segments replayed (% pages read and written) in % s: % s per segment'")" = 2 ] ||
	{ sqlite3 r.db "select * from event where run_id = 2"; fail "recovery per database"; }
grep -q "recovery: 6 log segments replayed" out err || fail "recovery total"
[ "$(sqlite3 r.db "select ios > 0 from summary where run_id = 2 and scope = 'run' and class = 'log_read'")" = 1 ] ||
	fail "replay read no log"
expect_exit 0 "$DISKPROOF" verify "$T" --data-dir "$WORK/d" --results "$WORK/r.db" --deep
# bad combinations are refused with a clear error (exit 2)
sed 's/^recovery_segments = 3/recovery_segments = 4/' recovery.ini >toomany.ini
expect_exit 2 "$DISKPROOF" run ./toomany.ini --data-dir "$WORK/d" --results "$WORK/r.db"
grep -q "recovery_segments = 4 must be fewer than log_segments = 4" err || fail "too many segments: $(cat err)"
expect_exit 2 "$DISKPROOF" run ./backup.ini --warmup 5s --data-dir "$WORK/d" --results "$WORK/r.db"
grep -q "a backup test has no warm-up" err || fail "backup warm-up: $(cat err)"
expect_exit 2 "$DISKPROOF" run random-32k --engine sim --streams auto --results "$WORK/r.db"
grep -q "streams = auto tunes the jetstress model's performance and stress tests only" err ||
	fail "auto with the fixed model: $(cat err)"

# fixed model, 2 workers, one database: both halves of it are driven
cat >fixed.ini <<'INI'
[test]
duration = 3s
[sizing]
database_size = 16MiB
log_size = 1MiB
[workload]
model = fixed
block_size = 32KiB
read_pct = 70
log_segment_size = 256KiB
[engine]
streams = 8
workers = 2
[volume a]
path = ./a
INI
expect_verdict "$DISKPROOF" run ./fixed.ini --data-dir "$WORK/f" --results "$WORK/r.db"
id=$(sqlite3 r.db "select max(id) from run")
[ "$(sqlite3 r.db "select value like '2 (fixed model%' from env where run_id = $id and key = 'workers'")" = 1 ] ||
	fail "fixed model: 2 workers on one database"
r=$(sqlite3 r.db "select ios from summary where run_id = $id and scope = 'run' and class = 'db_read'")
w=$(sqlite3 r.db "select ios from summary where run_id = $id and scope = 'run' and class = 'db_write'")
python3 -c "import sys; r,w=map(int,sys.argv[1:]); sys.exit(0 if 0.65 < r/(r+w) < 0.75 else 1)" "$r" "$w" ||
	fail "fixed model read share: $r reads, $w writes"
[ "$(sqlite3 r.db "select count(*) from summary where run_id = $id and scope = 'run' and ios > 0")" = 2 ] ||
	fail "fixed model: reads and writes only (no log, no maintenance)"
# the journal covers both workers' halves: the deep verify checks exact generations
expect_exit 0 "$DISKPROOF" verify ./fixed.ini --data-dir "$WORK/f" --results "$WORK/r.db" --deep
grep -q "journal clean: exact generations checked" out || fail "fixed model journal"
echo "ok"
