#!/bin/bash
# SPDX-License-Identifier: MIT
# A cache model (cache_size) that holds the whole database, with read-only
# transactions in a closed loop: once every page is in, no transaction needs
# an I/O. The run must still end on time and keep running transactions:
# - sim: virtual time moves on (a turn of cached transactions takes a CPU's
#   time); it used to run every transaction at one virtual instant, for ever;
# - io_uring: the worker does not sleep between turns of cached transactions
#   (it used to wait 100 ms whenever no I/O was in flight: a few hundred
#   transactions per second, at the pace of that constant);
# - a commit made from the cache gets its log write at once.
source "$(dirname "$0")/lib.sh"
set -e

profile() {
	cat >"$WORK/$1.ini" <<EOT
[test]
type = performance
duration = $2

[sizing]
database_size = 8MiB

[workload]
page_size = 8KiB
insert_pct = 0
delete_pct = 0
replace_pct = 0
seek_pct = 100
bdm = off
cache_size = 8MiB

[engine]
name = $1
streams = 4

[volume v]
path = $WORK/data-$1
databases = 1
EOT
}

# tps DB: the run's transactions per second
tps() {
	expect_exit 0 "$DISKPROOF" report --format json --results "$1"
	json 'd["summary"]["transactions"]["per_second"]'
}

profile sim 30m
expect_exit 0 timeout 120 "$DISKPROOF" run "$WORK/sim.ini" --results "$WORK/sim.db" --quiet
t=$(tps "$WORK/sim.db")
echo "sim: $t transactions/s"
python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) > 10000 else 1)" "$t" ||
	fail "sim: $t transactions/s from a cache that holds every page"

# Changing transactions whose pages are all cached, each commit waiting for
# its log write (1 ms) on one stream: about 1,000 a second once the cache
# is warm. Their log write used to wait for the next completion of anything
# else (a page write's 3 ms): about 300 a second.
cat >"$WORK/log.ini" <<EOT
[test]
type = performance
warmup = 10s
duration = 20s

[sizing]
database_size = 8MiB

[workload]
page_size = 8KiB
insert_pct = 0
delete_pct = 0
replace_pct = 100
seek_pct = 0
lazy_commit_pct = 0
bdm = off
copies = 1
cache_size = 8MiB

[engine]
name = sim
streams = 1

[volume v]
path = $WORK/data-log
databases = 1
EOT
expect_exit 0 timeout 120 "$DISKPROOF" run "$WORK/log.ini" --results "$WORK/log.db" --quiet
t=$(tps "$WORK/log.db")
echo "sim, cached changes committed one by one: $t transactions/s"
python3 -c "import sys; sys.exit(0 if 900 < float(sys.argv[1]) < 1100 else 1)" "$t" ||
	fail "sim: $t transactions/s, not about one per 1 ms log write"

skip_without_uring
profile io_uring 3s
expect_exit 0 timeout 60 "$DISKPROOF" run "$WORK/io_uring.ini" --results "$WORK/u.db" --quiet
t=$(tps "$WORK/u.db")
echo "io_uring: $t transactions/s"
python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) > 100000 else 1)" "$t" ||
	fail "io_uring: $t transactions/s from a cache that holds every page"
