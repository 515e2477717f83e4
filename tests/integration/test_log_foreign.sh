#!/bin/bash
# SPDX-License-Identifier: MIT
# test_log_foreign.sh - replication reads check every log block they read
# (page_log_verify): foreign writes into one database's log during a run
# (made while the run is frozen, SIGSTOP) are found as integrity errors of
# that database only (exit 4), and the other volume, untouched, reports none
# (no false corruption).
source "$(dirname "$0")/lib.sh"
set -e
skip_without_uring
T="$DP_SOURCE_DIR/tests/integration/profiles/tiny.ini"
expect_exit 0 "$DISKPROOF" init "$T" --data-dir "$WORK/data" --quiet
set +e
"$DISKPROOF" run "$T" --data-dir "$WORK/data" --duration 4s --results "$WORK/r.db" --quiet >/dev/null 2>err &
run_pid=$!
set -e
# only once the run drives the files (before, a foreign block is a file the
# run refuses to touch, exit 3, as it must); never block 0. The run is
# frozen while every other block of the log is overwritten, then goes on:
# what it wrote before (behind its write position, or in a closed segment
# not yet read) is foreign when replication reads it, however slow the
# machine; rounds until the run ends, a few tenths of a second apart.
wait_running
while kill -0 $run_pid 2>/dev/null; do
	kill -STOP $run_pid 2>/dev/null || break
	dd if=/dev/urandom of="$WORK/data/a/db1.log" bs=4096 count=255 seek=1 \
		conv=notrunc oflag=direct status=none 2>/dev/null || true
	kill -CONT $run_pid 2>/dev/null || true
	sleep 0.3
done
set +e
wait $run_pid
rc=$?
set -e
[ $rc = 4 ] || { cat err; fail "foreign writes in a log: exit $rc, want 4"; }
n=$(sqlite3 r.db "select count(*) from event where kind='error' and message like 'db1 log block %'")
[ "$n" -ge 1 ] || fail "no log block error of db1 stored"
others=$(sqlite3 r.db "select count(*) from event where kind='error' and message not like 'db1 log block %'")
[ "$others" = 0 ] || fail "errors beyond db1's log: $(sqlite3 r.db "select message from event where kind='error' and message not like 'db1 log block %' limit 3")"
[ "$(sqlite3 r.db "select coalesce(sum(integrity_errors), 0) from summary where run_id=1 and scope='volume' and name='b'")" = 0 ] ||
	fail "volume b reports integrity errors"
echo "ok"
