#!/bin/bash
# SPDX-License-Identifier: MIT
# test_learn_replay.sh - learn --replay-on (issue 34 item 2, docs/learn.md):
# a diskproof load in open loop on two loop devices (data, log) is learned,
# and the learned profile checked by a short real run on two other loop
# devices: the header's "checked on" section has every figure observed,
# replayed and its residual (queue depths and awaits among them), the
# replay's files are gone after and the profile's paths are still the
# observed ones. Refused before the window (exit 2, no profile, nothing
# written on the watched devices): the watched directories, a directory
# under one, a symlink to one, a FIFO, a file on the observed filesystem,
# and a loop device whose backing file is on it. Root (loop devices), else 77.
source "$(dirname "$0")/lib.sh"
set -e
need_root "loop devices"
command -v losetup >/dev/null && command -v mkfs.ext4 >/dev/null ||
	{ echo "skipped: no losetup or mkfs.ext4"; exit 77; }
skip_without_uring

dio_mount data 384MiB
DATA_DEV=$(basename "$DEV")
dio_mount log 128MiB
dio_mount rdata 384MiB
RDATA_DEV=$(basename "$DEV")
dio_mount rlog 128MiB
RLOG_DEV=$(basename "$DEV")
# a loop device whose backing file is on the watched data filesystem
dio_mount nested 32MiB "$WORK/data/nested.img"

# --- refused before the window: exit 2, said, no profile written
mkdir "$WORK/data/sub" "$WORK/plain"
ln -s "$WORK/log" "$WORK/to-log"
mkfifo "$WORK/fifo"
: >"$WORK/data/file"
before=$(find "$WORK/data" "$WORK/log" | sort | md5sum)
# refused PATTERN ARGS...: learn with ARGS exits 2 saying PATTERN, no profile
refused() {
	local want=$1
	shift
	expect_exit 2 "$DISKPROOF" learn --data "$WORK/data" --log "$WORK/log" --duration 1s \
		-o "$WORK/refused.ini" --no-trace "$@"
	grep -q -- "$want" "$WORK/err" || fail "learn $*: not said ($want): $(cat "$WORK/err")"
	[ ! -e "$WORK/refused.ini" ] || fail "learn $*: a profile was written"
}
refused "is on $DATA_DEV, which learn watches (data)" --replay-on "$WORK/data"
refused "is on $DATA_DEV, which learn watches (data)" --replay-on "$WORK/data/sub"
refused "which learn watches (log)" --replay-on "$WORK/to-log"
refused "which learn watches (log)" --replay-on "$WORK/rdata" --replay-log-on "$WORK/log"
refused "is a FIFO" --replay-on "$WORK/fifo"
refused "is a regular file" --replay-on "$WORK/data/file"
refused "is on $DATA_DEV, which learn watches (data)" --replay-on "$WORK/nested"
refused "need --replay-on" --replay-seconds 5
[ "$(find "$WORK/data" "$WORK/log" | sort | md5sum)" = "$before" ] ||
	fail "a refused learn wrote on the watched filesystems"
# --- the load, learned, checked on rdata and rlog
cat >own.ini <<INI
[test]
duration = 60s
warmup = 0s
[sizing]
database_size = 128MiB
[workload]
page_size = 8KiB
log_record_size = 1KiB
log_segment_size = 1MiB
log_segments = 16
insert_pct = 0
delete_pct = 0
replace_pct = 100
seek_pct = 0
lazy_commit_pct = 0
update_pages = 2
read_pages = 1
bdm = off
copies = 1
arrival = rate
rate = 150
[engine]
name = io_uring
direct = on
streams = 16
[volume data]
path = $WORK/data
log_path = $WORK/log
databases = 1
INI
expect_exit 0 "$DISKPROOF" init own.ini --results r.db --quiet
"$DISKPROOF" run own.ini --duration 70s --results r.db --quiet >run.out 2>&1 &
pid=$!
at_exit "kill $pid 2>/dev/null"
sleep 4
# the control: a directory on another device is taken; one for data and log,
# kept with --keep
expect_exit 0 "$DISKPROOF" learn --data "$WORK/data" --log "$WORK/log" --duration 3s \
	-o "$WORK/plain.ini" --no-trace --quiet --replay-on "$WORK/rdata" --replay-seconds 5 \
	--keep
grep -q "^; checked on $WORK/rdata (data on $RDATA_DEV) $WORK/rdata (log on $RDATA_DEV)" \
	"$WORK/plain.ini" || fail "one replay directory for both: $(grep checked "$WORK/plain.ini")"
grep -q "kept the replay's profile, results and files: " "$WORK/err" || fail "--keep not said"
ls "$WORK/rdata" | grep -vq lost+found || fail "--keep: the replay's files removed"
rm -rf "$WORK/rdata"/* "$(sed -n "s/.*files: //p" "$WORK/err")"

expect_exit 0 "$DISKPROOF" learn --data "$WORK/data" --log "$WORK/log" --duration 12s \
	--transactions 1800 -o learned.ini --replay-on "$WORK/rdata" --replay-log-on "$WORK/rlog" \
	--replay-seconds 8
cat "$WORK/err"
sed -n '/^; checked on/,/^; what the model/p' learned.ini
grep -q "^; checked on $WORK/rdata (data on $RDATA_DEV) $WORK/rlog (log on $RLOG_DEV): a real run" \
	learned.ini || fail "no checked section: $(grep -n checked learned.ini)"
# row LABEL: the checked section's row has observed, replayed and a residual
row() {
	sed -n '/^; checked on/,/^; what the model/p' learned.ini |
		grep -E "^; $1 +[0-9.]+ +[0-9.]+ +[+-][0-9.]+ +[0-9]+" ||
		fail "checked section: no figures for $1: $(grep "^; $1" learned.ini)"
}
for r in "data reads/s" "data writes/s" "data queue depth" "data read await ms" \
	"data write await ms" "log writes/s" "log queue depth" "log write await ms" \
	"log writes/txn"; do
	row "$r" >/dev/null
done
# the replay made the load: its data writes/s within a factor of 2 of the observed
row "data writes/s" | awk '{ if ($5 < 0.5 * $4 || $5 > 2 * $4) exit 1 }' ||
	fail "replayed data writes/s far from the observed: $(row "data writes/s")"
grep -q "^path = $WORK/data$" learned.ini || fail "the profile's path moved: $(grep ^path learned.ini)"
grep -q "^log_path = $WORK/log$" learned.ini || fail "the profile's log_path moved"
grep -q "(checked by a short real run with --replay-on DIR)" learned.ini ||
	fail "cannot-make line not updated"
left=$(ls "$WORK/rdata" "$WORK/rlog" | grep -v -e lost+found -e '^$' -e ':$' || true)
[ -z "$left" ] || fail "the replay's files left: $left"
set +e
wait "$pid"
set -e
echo "ok"
