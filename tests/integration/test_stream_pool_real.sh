#!/bin/bash
# SPDX-License-Identifier: MIT
# The stream pool on real I/O with several workers: an ext4 on a loop device
# whose image lives in RAM (/dev/shm), 8 databases, 9 streams, 2 workers
# (databases round robin, 4 each; each worker carries 9 x 4/8 = 4.5 streams:
# 4 full-time and one part-time stream working half the time). Every database
# gets the same time-averaged streams within 5 %, the databases of one
# worker the same transactional IOPS within 10 % (report --format json), and
# the files verify clean (deep): a transaction's pages, dirty list and log
# record stayed with the database it began on. Round robin binding gave the
# first three databases twice the streams and twice the IOPS of the others
# (here: one database two streams, the rest one), which both checks catch.
# Root (loop mounts) and io_uring, else skipped.
# IOPS on a RAM device are bound by each worker's CPU: on a machine busy
# elsewhere one worker gets less of it than the other (seen: worker 0's
# databases 3,452-3,533 IOPS, worker 1's 4,624-4,711), which says nothing of
# the stream pool, so IOPS are compared within a worker (databases round
# robin: database i on worker i mod 2, plan/workers.c) and the spread across
# workers is printed only. The run is repeated once when only the IOPS bound
# is missed. The verdict is not asserted (a busy host may pass a 100 ms
# maximum).
source "$(dirname "$0")/lib.sh"
set -e
need_root "loop mounts"
[ -d /dev/shm ] && [ -w /dev/shm ] || { echo "skipped: no writable /dev/shm"; exit 77; }
skip_without_uring
RAM=$(mktemp -d /dev/shm/dp-stream-pool.XXXXXX)
at_exit "rm -rf '$RAM'"
loop_mount "$RAM/mnt" 1G

cat >rp.ini <<INI
[test]
duration = 10s
warmup = 2s
[sizing]
database_size = 32MiB
log_size = 4MiB
[workload]
log_segment_size = 256KiB
[engine]
name = io_uring
streams = 9
workers = 2
[volume v1]
path = $RAM/mnt/v1
databases = 8
INI

within() { python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) <= $2 else 1)" "$1"; }
for attempt in 1 2; do
	set +e
	"$DISKPROOF" run ./rp.ini --results "$WORK/r.db" --quiet >"$WORK/out" 2>"$WORK/err"
	rc=$?
	set -e
	[ $rc = 0 ] || [ $rc = 1 ] || { cat "$WORK/err"; fail "run: exit $rc"; }
	expect_exit 0 "$DISKPROOF" report --format json --results "$WORK/r.db"
	[ "$(json 'len(d["databases"])')" = 8 ] || fail "8 databases"
	[ "$(json 'sum(x["classes"][c]["errors"] for x in d["databases"] for c in x["classes"])')" = 0 ] ||
		fail "I/O errors"
	# the largest max/min of transactional IOPS among one worker's databases
	iops=$(json 'max(max(t) / min(t) for t in ([x["transactional_iops"] for x in d["databases"][w::2]] for w in (0, 1)))')
	across=$(json 'max(x["transactional_iops"] for x in d["databases"]) / min(x["transactional_iops"] for x in d["databases"])')
	streams=$(json 'max(x["streams"] for x in d["databases"]) / min(x["streams"] for x in d["databases"])')
	total=$(json 'sum(x["streams"] for x in d["databases"])')
	echo "run $attempt: transactional IOPS $(json '[round(x["transactional_iops"]) for x in d["databases"]]')," \
		"max/min within a worker $iops (across workers $across, not judged); streams $(json '[x["streams"] for x in d["databases"]]'), max/min $streams, in all $total"
	within "$streams" 1.05 || fail "per-database streams differ by more than 5 % ($streams)"
	python3 -c "import sys; sys.exit(0 if 8 <= float(sys.argv[1]) <= 9.05 else 1)" "$total" ||
		fail "the databases' streams add up to $total, not 9"
	within "$iops" 1.10 && break
	[ $attempt = 1 ] || fail "one worker's databases' transactional IOPS differ by more than 10 % ($iops)"
	echo "IOPS spread $iops over 10 %: once more"
done
expect_exit 0 "$DISKPROOF" verify ./rp.ini --results "$WORK/r.db" --deep
echo ok
