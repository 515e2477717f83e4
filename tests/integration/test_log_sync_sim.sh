#!/bin/bash
# SPDX-License-Identifier: MIT
# log_sync on the sim engine, in virtual time: a log write and its flush
# (log_sync = fdatasync) are one log write, counted once, its latency from
# the write's submission to the flush's completion, and the flush costs the
# sim nothing of its own (log_write_latency is the time until the log is
# durable). So, the same profile in each mode: as many log writes (within
# 2 %), each taking log_write_latency on average (within 3 %; counted twice,
# or the flush charged the latency, both fail).
source "$(dirname "$0")/lib.sh"
set -e

# val EXPR: the value of a Python expression over d, the report's JSON
val() { json "$1"; }
within() { # A B PCT WHAT: fails unless |A / B - 1| <= PCT %
	python3 -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); sys.exit(0 if b and abs(a / b - 1) <= $3 / 100 else 1)" "$1" "$2" ||
		fail "$4: $1 against $2, more than $3 % apart"
	echo "$4: $1, $2"
}

for mode in write_through fdatasync; do
	cat >"$WORK/$mode.ini" <<EOT
[test]
type = performance
duration = 60s
warmup = 0s

[sizing]
database_size = 256MiB
log_size = 64MiB

[workload]
page_size = 8KiB
bdm = off
copies = 1
arrival = rate
rate = 300
log_sync = $mode

[engine]
name = sim
streams = 8

[sim]
read_latency = 1ms
write_latency = 1ms
log_write_latency = 2ms

[volume v]
path = $WORK/v
log_path = $WORK/l
databases = 1
EOT
done
C='d["summary"]["classes"]["log_write"]'
for mode in write_through fdatasync; do
	expect_exit 0 "$DISKPROOF" run "$WORK/$mode.ini" --results "$WORK/$mode.db" --quiet
	expect_exit 0 "$DISKPROOF" report --format json --results "$WORK/$mode.db"
	eval "ios_$mode=$(val "$C[\"ios\"]") avg_$mode=$(val "$C[\"avg_ms\"]")"
done
[ "$ios_write_through" -gt 5000 ] || fail "only $ios_write_through log writes in 60 s at 300/s"
within "$ios_fdatasync" "$ios_write_through" 2 "log writes, fdatasync and write-through"
within "$avg_write_through" 2 3 "log write latency written through (ms)"
within "$avg_fdatasync" 2 3 "log write latency, a write and its fdatasync (ms)"

