#!/bin/bash
# SPDX-License-Identifier: MIT
# Integrity with every PostgreSQL-like feature on (cache with read ahead, a
# hot region, read-only pages, checkpoints with merged writes, write-back,
# full-page images, WAL page rewrite, commit_delay), on sim:
# - failed I/O alone (error_rate) reports no integrity error: a failed
#   write's pages, merged or read ahead, are unknown, never lost;
# - dropped writes (drop_write_rate) are found, and every integrity error is
#   a lost write: an older generation than acknowledged.
source "$(dirname "$0")/lib.sh"
set -e

profile() {
	cat >"$WORK/$1.ini" <<EOT
[test]
type = performance
duration = 2m
max_errors = 1000000

[sizing]
database_size = 32MiB

[workload]
page_size = 8KiB
log_record_size = 800B
log_segments = 16
log_page_size = 8KiB
update_pages = 2
read_pages = 1.3
hot_size = 4MiB
hot_pct = 50
cache_size = 8MiB
readahead_size = 64KiB
readahead_pct = 50
dirty_pages = 1024
flush_depth = 8
checkpoint_interval = 2s
checkpoint_log_size = 4MiB
checkpoint_target = 50
write_merge = 16
full_page_writes = on
writeback_interval = 500ms
writeback_age = 300ms
commit_delay = 200us

[engine]
name = sim
streams = 8

[sim]
$2

[volume v]
path = $WORK/data-$1
databases = 2
EOT
}

profile errors "error_rate = 2%"
expect_exit 1 "$DISKPROOF" run "$WORK/errors.ini" --results "$WORK/e.db" --quiet
n=$(sqlite3 "$WORK/e.db" "select count(*) from event where kind = 'error' and (message like '%generation%' or message like '%log block%')")
[ "$n" = 0 ] || fail "failed I/O alone: $n integrity errors"
n=$(sqlite3 "$WORK/e.db" "select count(*) from event where kind = 'error'")
[ "$n" -gt 100 ] || fail "error_rate = 2 %: only $n I/O errors"

profile drops "drop_write_rate = 0.5%"
expect_exit 4 "$DISKPROOF" run "$WORK/drops.ini" --results "$WORK/d.db" --quiet
n=$(sqlite3 "$WORK/d.db" "select count(*) from event where kind = 'error' and (message like '%generation%' or message like '%log block%')")
[ "$n" -gt 10 ] || fail "dropped writes: only $n integrity errors"
bad=$(sqlite3 "$WORK/d.db" "select message from event where kind = 'error' and message like '%generation%' and message not like '%lost write (older generation than acknowledged)%'")
[ -z "$bad" ] || fail "integrity errors that are not lost writes: $bad"
echo "dropped writes: $n lost writes found, nothing else"
