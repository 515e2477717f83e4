#!/bin/bash
# SPDX-License-Identifier: MIT
# Rough edges of a run, each once broken: a run aborted in its warm-up shows
# no PASS anywhere and counts only the warm-up that ran; an interrupt while
# the files are created still stores the run, aborted; a database file that
# shrank between runs is lost data (exit 4 from run, init and verify), never
# silently regrown; an interrupt in a run's end phase is never swallowed
# (exit 130, and said).
source "$(dirname "$0")/lib.sh"
set -e
skip_without_uring
T="$DP_SOURCE_DIR/tests/integration/profiles/tiny.ini"

# aborted in the warm-up: interrupted 2 s after its first warm-up interval
# was stored (so at least 3 s into the warm-up, however long creating the
# files took on a busy machine), never after a sleep counted from the launch
"$DISKPROOF" run "$T" --data-dir "$WORK/d" --duration 20s --warmup 10s --results "$WORK/r.db" \
	>"$WORK/w.out" 2>"$WORK/w.err" &
pid=$!
for _ in $(seq 1 600); do
	[ "$(sqlite3 "$WORK/r.db" "select count(*) from sample where run_id=1 and warmup=1" \
		2>/dev/null)" -gt 0 ] 2>/dev/null && break
	kill -0 $pid 2>/dev/null || break
	sleep 0.1
done
sleep 2
kill -INT $pid
set +e
wait $pid
rc=$?
set -e
t_exit=$(date +%s%N)
[ $rc = 130 ] || { cat "$WORK/w.err"; fail "aborted in warm-up: exit $rc, want 130"; }
grep -qw PASS "$WORK/w.out" && fail "an aborted run shows PASS: $(cat "$WORK/w.out")"
grep -q "^verdicts: none" "$WORK/w.out" || fail "verdict line: $(grep verdicts "$WORK/w.out")"
[ "$(sqlite3 r.db "select count(*) from verdict where run_id=1")" = 0 ] ||
	fail "an aborted run has verdict rows"
expect_exit 0 "$DISKPROOF" report 1 --format json --results "$WORK/r.db"
ran=$(json "d['warmup']['duration_s']")
started=$(json "d['run']['load_started_at']")
# the time from the start of the load to the exit, by the wall clock
wall=$(python3 -c "
import datetime
t = datetime.datetime.strptime('$started', '%Y-%m-%dT%H:%M:%S.%fZ').replace(tzinfo=datetime.timezone.utc)
print(round($t_exit / 1e9 - t.timestamp(), 3))")
# at least the 1 s interval seen and the 2 s after it; at most the time from
# the start of the load to the exit (never the end of the interval the
# interrupt fell in, nor the 10 s the profile asked for)
python3 -c "import sys; sys.exit(0 if 2.9 <= $ran <= min($wall + 0.02, 9.5) else 1)" ||
	fail "warm-up of a run stopped after >= 3 s of warm-up, $wall s from the load's start to the exit: $ran s"
grep -q "after $(python3 -c "print(round($ran))") s of warm-up" "$WORK/w.out" ||
	fail "headline ($ran s of warm-up): $(sed -n 2p "$WORK/w.out")"

# interrupted while the files are created: stored, aborted
"$DISKPROOF" run "$T" --data-dir "$WORK/big" --db-size 1GiB --duration 5s \
	--results "$WORK/r.db" >/dev/null 2>"$WORK/c.err" &
pid=$!
for i in $(seq 1 100); do
	[ -e "$WORK/big/a/db1.edb" ] && break
	sleep 0.05
done
sleep 0.2
kill -INT $pid
set +e
wait $pid
rc=$?
set -e
[ $rc = 130 ] || { cat "$WORK/c.err"; fail "interrupted creation: exit $rc, want 130"; }
row=$(sqlite3 r.db "select status || ' ' || verdict from run where id=2")
[ "$row" = "aborted NONE" ] || fail "interrupted creation: run row '$row'"
sqlite3 r.db "select message from event where run_id=2 and kind='stop'" |
	grep -q "while creating" || fail "interrupted creation: no stop event"
rm -rf "$WORK/big"

# a database file that shrank between runs
expect_verdict "$DISKPROOF" run "$T" --data-dir "$WORK/d" --duration 1s --results "$WORK/r.db" \
	--quiet
truncate -s 4M "$WORK/d/a/db1.edb"
expect_exit 4 "$DISKPROOF" run "$T" --data-dir "$WORK/d" --duration 1s --results "$WORK/r.db" \
	--quiet
grep -q "db1.edb: is 4194304 bytes, but its journal" "$WORK/err" || fail "shrunk: $(cat "$WORK/err")"
[ "$(stat -c %s "$WORK/d/a/db1.edb")" = 4194304 ] || fail "the shrunk file was regrown"
expect_exit 4 "$DISKPROOF" init "$T" --data-dir "$WORK/d" --quiet
# verify says the same: each page past the end a lost write
expect_exit 4 "$DISKPROOF" verify "$T" --data-dir "$WORK/d" --results "$WORK/r.db"
grep -q "db1.edb: is 4194304 bytes, but its journal .* the file lost 128 pages" "$WORK/err" ||
	fail "verify of the shrunk file: $(cat "$WORK/err")"
grep -q "^db1: 128 pages, .* 128 lost write" "$WORK/out" || fail "verify: $(cat "$WORK/out")"
expect_exit 0 "$DISKPROOF" init "$T" --data-dir "$WORK/d" --destroy-data "$WORK/d/a/db1.edb" \
	--quiet
expect_exit 0 "$DISKPROOF" verify "$T" --data-dir "$WORK/d" --results "$WORK/r.db"

# an interrupt at any instant around the end: whenever it reached the
# process, the exit is 130 (150 databases: the end phase takes a while)
cat >many.ini <<'EOF'
[test]
duration = 1s
warmup = 0s
[sizing]
database_size = 1MiB
log_size = 512KiB
[workload]
log_segment_size = 128KiB
[engine]
name = io_uring
[volume a]
path = ./a
databases = 150
EOF
expect_exit 0 "$DISKPROOF" init many.ini --data-dir "$WORK/m" --quiet
said=0
for t in 1.0 1.1 1.2 1.3 1.4 1.5 1.6; do
	"$DISKPROOF" run many.ini --data-dir "$WORK/m" --results "$WORK/m.db" --quiet \
		>/dev/null 2>"$WORK/e.err" &
	pid=$!
	sleep $t
	sent=0
	# kill "succeeds" on a process that is already exiting (tearing down
	# its rings can take a while under load) or a zombie, and the signal is
	# then dropped. Stop it first: a process stopped is alive and not
	# exiting (an exiting one ignores SIGSTOP), so a SIGINT sent while it
	# is stopped surely reaches it
	if kill -STOP $pid 2>/dev/null; then
		st=
		for _ in $(seq 500); do
			st=$(awk '{ print $3 }' /proc/$pid/stat 2>/dev/null || true)
			[ "$st" = T ] || [ -z "$st" ] || [ "$st" = Z ] && break
			sleep 0.01
		done
		if [ "$st" = T ]; then
			kill -INT $pid 2>/dev/null && sent=1
		fi
		kill -CONT $pid 2>/dev/null || true
	fi
	set +e
	wait $pid
	rc=$?
	set -e
	if [ $sent = 1 ] && [ $rc != 130 ]; then
		cat "$WORK/e.err" >&2
		fail "SIGINT $t s into a 1 s run reached it, exit $rc"
	fi
	grep -q "came after run" "$WORK/e.err" && said=$((said + 1))
done
echo "interrupts in the end phase said: $said"
echo ok
