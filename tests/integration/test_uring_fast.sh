#!/bin/bash
# SPDX-License-Identifier: MIT
# The io_uring engine's fast set-up (issue 33) on a loop device: the ring's
# features are recorded (engine_features: single issuer and deferred task
# running where the kernel has them, 6.1 and newer; registered ring, files and
# buffers), every read is still verified and counted once (diskproof's count
# against /proc/diskstats, with completions that the kernel holds back until
# the worker asks for them), sqpoll = on runs with a submission thread,
# hipri = on is refused where the device has no poll queues (a loop device
# has none), and both are refused in a profile for another engine.
source "$(dirname "$0")/lib.sh"
set -e
skip_without_uring
loop_device "$WORK/disk.img" 192M
NAME=$(basename "$LOOP_DEV")

profile() { # VERIFY [ENGINE-LINES...]
	local v=$1
	shift
	cat <<EOF
[test]
duration = 2s
warmup = 1s
[sizing]
database_size = 64MiB
[workload]
model = fixed
block_size = 4KiB
read_pct = 100
pattern = random
verify = $v
[engine]
name = io_uring
streams = 16
workers = 1
$(printf '%s\n' "$@")
[volume loop]
path = $LOOP_DEV
databases = 1
EOF
}

profile on >"$WORK/p.ini"
expect_exit 0 "$DISKPROOF" init "$WORK/p.ini" --destroy-data "$LOOP_DEV" --results "$WORK/r.db" \
	--quiet
sync
# reads completed + reads merged into others (small random reads over 64 MiB
# are often adjacent: the device counts a merged pair once)
reads() { awk -v d="$NAME" '$3 == d { print $4 + $5 }' /proc/diskstats; }
r0=$(reads)
expect_verdict "$DISKPROOF" run "$WORK/p.ini" --results "$WORK/r.db" --quiet
r1=$(reads)
id=$(sqlite3 "$WORK/r.db" "select max(id) from run")
feat=$(sqlite3 "$WORK/r.db" "select value from env where run_id = $id and key = 'engine_features'")
case "$feat" in
"io_uring: "*registered_ring,fixed_files,fixed_buffers) ;;
*) fail "engine_features: \"$feat\"" ;;
esac
IFS=. read -r kmaj kmin _ <<<"$(uname -r)"
if [ "$kmaj" -gt 6 ] || { [ "$kmaj" = 6 ] && [ "${kmin%%[!0-9]*}" -ge 1 ]; }; then
	case "$feat" in
	"io_uring: single_issuer,defer_taskrun,taskrun_flag,"*) ;;
	*) fail "Linux $(uname -r) has deferred task running, engine_features says \"$feat\"" ;;
	esac
fi
# every read counted once and checked: the device saw as many (plus its own
# few start-up reads of the device: signature and regions)
dp=$(sqlite3 "$WORK/r.db" "select sum(ios) from sample where run_id = $id and scope = 'run'
	and class = 'db_read'")
bad=$(sqlite3 "$WORK/r.db" "select sum(integrity_errors) + sum(errors) from summary
	where run_id = $id and scope = 'run'")
[ "$dp" -gt 1000 ] || fail "only $dp reads"
[ "$bad" = 0 ] || fail "$bad errors or integrity errors"
dev=$((r1 - r0))
[ "$dev" -ge "$dp" ] && [ "$dev" -le $((dp + 64)) ] ||
	fail "diskproof counted $dp reads, /proc/diskstats $dev"
# the latency is still per I/O: a mean and a p99 from the histogram
avg=$(sqlite3 "$WORK/r.db" "select avg_ms > 0 and p99_ms >= avg_ms from summary
	where run_id = $id and scope = 'run' and class = 'db_read'")
[ "$avg" = 1 ] || fail "read latency figures missing"

# a kernel submission thread
profile off "sqpoll = on" >"$WORK/sq.ini"
expect_verdict "$DISKPROOF" run "$WORK/sq.ini" --results "$WORK/r.db" --quiet
id=$(sqlite3 "$WORK/r.db" "select max(id) from run")
feat=$(sqlite3 "$WORK/r.db" "select value from env where run_id = $id and key = 'engine_features'")
case "$feat" in "io_uring: sqpoll,"*) ;; *) fail "sqpoll run: engine_features \"$feat\"" ;; esac
[ "$(sqlite3 "$WORK/r.db" "select ios > 0 and integrity_errors = 0 from summary where run_id = $id and scope = 'run'
	and class = 'db_read'")" = 1 ] || fail "sqpoll run: no reads, or integrity errors"

# polled completion on a device without poll queues: refused, naming it
profile off "hipri = on" >"$WORK/hp.ini"
expect_exit 3 "$DISKPROOF" run "$WORK/hp.ini" --results "$WORK/r.db" --quiet
majmin=$(cat "/sys/block/$NAME/dev")
grep -qF "io_uring: hipri = on needs polled completion, and $LOOP_DEV ($majmin) has no poll queues" \
	err || fail "hipri: $(cat err)"

# another engine: the profile is refused at its line
profile off "sqpoll = on" | sed 's/^name = io_uring$/name = psync/' >"$WORK/ps.ini"
line=$(grep -n '^sqpoll' "$WORK/ps.ini" | cut -d: -f1)
expect_exit 2 "$DISKPROOF" run "$WORK/ps.ini" --results "$WORK/x.db" --quiet
grep -qF "ps.ini:$line: [engine] sqpoll: sqpoll = on is an io_uring set-up: it needs name = io_uring" \
	err || fail "sqpoll with psync: $(cat err)"
[ ! -e "$WORK/x.db" ] || fail "a refused profile wrote a results file"
echo "ok"
