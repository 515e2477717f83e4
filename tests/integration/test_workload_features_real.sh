#!/bin/bash
# SPDX-License-Identifier: MIT
# InnoDB's flushing keys on real files (io_uring): a small profile with
# doublewrite, data_flush = per_batch and a page cleaner, its database on
# ext4 over a direct-I/O loop device (its log elsewhere):
# - verify finds every page as the run left it (exit 0), the doublewrite
#   area's pages included;
# - the loop device's flushes (/proc/diskstats, flush requests completed)
#   rise by at least the flushes the run reports (db_flush), and by not
#   much more (ext4's own journal commits, diskproof's generation journal;
#   and the flushes others' sync(2) make the device take, counted over 5 s
#   before the run: under stress-ng --io, a thousand a second).
source "$(dirname "$0")/lib.sh"
set -e
skip_without_uring
dio_mount mnt 256M
dev=$(basename "$DEV")
need_dev_flushes "$dev"
flushes() { dev_flushes "$dev"; }

cat >"$WORK/p.ini" <<EOT
[test]
type = performance
duration = 10s

[sizing]
database_size = 64MiB
log_size = 16MiB

[workload]
page_size = 16KiB
flush_depth = 8
bdm = off
copies = 1
doublewrite = on
doublewrite_size = 256KiB
data_flush = per_batch
cleaner_interval = 500ms
cleaner_pages = 200
dirty_pages = 2048

[engine]
name = io_uring
streams = 4

[volume v]
path = $WORK/mnt/v
log_path = $WORK/log
databases = 1
EOT

expect_exit 0 "$DISKPROOF" init "$WORK/p.ini" --quiet
sync
# the flushes others make the idle device take (sync(2) flushes every
# filesystem), allowed for over the run's 10 s, one and a half times
before=$(flushes)
sleep 5
others=$(($(flushes) - before))
before=$(flushes)
expect_exit 0 "$DISKPROOF" run "$WORK/p.ini" --results "$WORK/r.db" --quiet
after=$(flushes)
"$DISKPROOF" report --format json --results "$WORK/r.db" >"$WORK/out"
reported=$(json 'd["summary"]["classes"]["db_flush"]["ios"]')
writes=$(json 'd["summary"]["classes"]["db_write"]["ios"]')
seen=$((after - before))
echo "run: $writes data writes, $reported flushes reported; $dev: $seen flushes ($others in 5 s before it)"
[ "$reported" -gt 20 ] || fail "only $reported flushes in 10 s of batches"
[ "$seen" -ge "$reported" ] || fail "$dev saw $seen flushes, the run reports $reported"
[ "$seen" -le "$((reported + reported / 10 + 50 + others * 3))" ] ||
	fail "$dev saw $seen flushes, far more than the $reported the run reports"
expect_exit 0 "$DISKPROOF" verify "$WORK/p.ini" --results "$WORK/r.db" --quiet
echo "verify: clean"
