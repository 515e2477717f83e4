#!/bin/bash
# SPDX-License-Identifier: MIT
# log_sync on real files (io_uring): the log on ext4 over a direct-I/O loop
# device of its own, the database elsewhere, a 6 s run with each of
# write_through and fdatasync:
# - the log device's flushes (/proc/diskstats) rise by at least the log
#   writes the run reports, and by not much more: a write and its fdatasync
#   are one log write, counted once (counted twice, the writes would be
#   twice the flushes); ext4's own commits and others' sync(2), counted
#   over 5 s before the run, allowed for;
# - the log writes' latency is there (from the write's submission to the
#   flush's completion), and verify finds every page and log block as the
#   run left them (exit 0): a page is written only after its log is durable.
source "$(dirname "$0")/lib.sh"
set -e
skip_without_uring
dio_mount mnt 128M
dev=$(basename "$DEV")
need_dev_flushes "$dev"
flushes() { dev_flushes "$dev"; }

for mode in write_through fdatasync; do
	rm -rf "$WORK/v" "$WORK/mnt/log" "$WORK/r.db"
	cat >"$WORK/p.ini" <<EOT
[test]
type = performance
duration = 6s

[sizing]
database_size = 64MiB
log_size = 16MiB

[workload]
page_size = 8KiB
bdm = off
copies = 1
arrival = rate
rate = 400
log_sync = $mode

[engine]
name = io_uring
streams = 4

[volume v]
path = $WORK/v
log_path = $WORK/mnt/log
databases = 1
EOT
	expect_exit 0 "$DISKPROOF" init "$WORK/p.ini" --quiet
	sync
	before=$(flushes)
	sleep 5
	others=$(($(flushes) - before))
	before=$(flushes)
	expect_exit 0 "$DISKPROOF" run "$WORK/p.ini" --results "$WORK/r.db" --quiet
	seen=$(($(flushes) - before))
	"$DISKPROOF" report --format json --results "$WORK/r.db" >"$WORK/out"
	logw=$(json 'd["summary"]["classes"]["log_write"]["ios"]')
	avg=$(json 'd["summary"]["classes"]["log_write"]["avg_ms"]')
	echo "$mode: $logw log writes reported, avg $avg ms; $dev: $seen flushes ($others in 5 s before)"
	[ "$logw" -gt 200 ] || fail "$mode: only $logw log writes in 6 s at 400 transactions/s"
	[ "$seen" -ge "$logw" ] || fail "$mode: $dev saw $seen flushes, the run reports $logw log writes"
	[ "$seen" -le "$((logw + logw / 10 + 50 + others * 3))" ] ||
		fail "$mode: $dev saw $seen flushes, far more than the $logw log writes reported"
	python3 -c "import sys; sys.exit(0 if float('$avg') > 0 else 1)" ||
		fail "$mode: no log write latency ($avg ms)"
	expect_exit 0 "$DISKPROOF" verify "$WORK/p.ini" --results "$WORK/r.db" --quiet
	echo "$mode: verify clean"
done
