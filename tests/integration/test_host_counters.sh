#!/bin/bash
# SPDX-License-Identifier: MIT
# test_host_counters.sh - the host counters stored beside the samples (table
# host_sample, counters.h). A sim run records none: its intervals are virtual
# seconds, so the host's CPU, iowait and memory over them would mean nothing
# (coord.c); its event says so and its reports have no host section. A run
# on real files records the host's CPU and memory every interval. A run on a
# file-backed loop device (named with --destroy-data, as in test_blockdev.sh;
# root only, exit 77 without losetup) stores that device's /proc/diskstats
# figures every interval, warm-up included, and the reads and writes they
# count over the run agree within 3 % with diskproof's own count of its I/Os
# (the run summary's ios of every class, plus the warm-up samples'); the
# reports (text, JSON, HTML) show the device, and the run's event log says
# what was sampled.
source "$(dirname "$0")/lib.sh"
set -e
command -v sqlite3 >/dev/null || { echo "skipped: no sqlite3"; exit 77; }
P="$DP_SOURCE_DIR/tests/integration/profiles/sim.ini"
q() { sqlite3 "$@"; }

# --- sim: no host figures at all (a virtual clock), and the event says why
expect_exit 0 "$DISKPROOF" run "$P" --duration 10s --warmup 2s --results sim.db --quiet
[ "$(q sim.db "select count(*) from host_sample where run_id = 1")" = 0 ] ||
	fail "sim run: host_sample rows stored for a virtual-clock run"
q sim.db "select message from event where run_id = 1 and kind = 'host_counters'" |
	grep -q "^host counters: not sampled: the sim engine runs on a virtual clock" ||
	fail "sim run: event: $(q sim.db "select message from event where kind = 'host_counters'")"
expect_exit 0 "$DISKPROOF" report 1 --results sim.db --format json
[ "$(json 'd["host"]')" = None ] || fail "sim run: JSON host section: $(json 'd["host"]')"
expect_exit 0 "$DISKPROOF" report 1 --results sim.db
! grep -qi "^host performance\|cpu user\|iowait" out || fail "sim run: text report shows host figures: $(cat out)"

# --- real files (psync: no io_uring needed): CPU and memory every interval
cat >files.ini <<INI
[test]
duration = 3s
[sizing]
database_size = 8MiB
log_size = 1MiB
[workload]
log_segment_size = 256KiB
[engine]
name = psync
streams = 2
[volume f]
path = $WORK/files
INI
expect_verdict "$DISKPROOF" run ./files.ini --results files.db --quiet
host=$(q files.db "select count(*) from host_sample where run_id = 1 and device is null")
[ "$host" -gt 0 ] || fail "real run: no host rows (is the host sampler wired into the run?)"
[ "$host" = "$(q files.db "select count(distinct t_ms) from sample where run_id = 1 and scope = 'run'")" ] ||
	fail "real run: $host host rows, not one per interval"
[ "$(q files.db "select count(*) from host_sample where run_id = 1 and device is null and cpu_user_pct is not null")" -gt 0 ] ||
	fail "real run: no CPU figures in the host rows"
[ "$(q files.db "select count(*) from host_sample where run_id = 1 and device is null and not (mem_available > 0)")" = 0 ] ||
	fail "real run: a host row without the memory available"
expect_exit 0 "$DISKPROOF" report 1 --results files.db --format json
[ "$(json 'd["host"]["cpu"]["intervals"] > 0 and d["host"]["memory"]["available_min_bytes"] > 0')" = True ] ||
	fail "real run: JSON host section: $(json 'd["host"]')"

# --- a loop device
[ "$(id -u)" = 0 ] || { echo "skipped (the loop device part): needs root"; exit 77; }
command -v losetup >/dev/null || { echo "skipped (the loop device part): no losetup"; exit 77; }
DEV=""
cleanup() {
	[ -n "$DEV" ] && losetup -d "$DEV" 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT
skip_without_uring
truncate -s 96M disk.img
DEV=$(losetup --find --show disk.img 2>"$WORK/losetup.err") ||
	{ echo "skipped: losetup: $(cat "$WORK/losetup.err")"; exit 77; }
NAME=$(basename "$DEV")
cat >dev.ini <<INI
[test]
duration = 6s
warmup = 2s
[sizing]
database_size = 16MiB
log_size = 2MiB
[engine]
streams = 4
[volume d]
path = $DEV
databases = 2
INI
set +e
"$DISKPROOF" run ./dev.ini --destroy-data "$DEV" --results "$WORK/r.db" --quiet >out 2>err
rc=$?
set -e
[ $rc = 0 ] || [ $rc = 1 ] || { cat err; fail "run on $DEV exited $rc"; }

rows=$(q r.db "select count(*) from host_sample where run_id = 1 and device = '$NAME'")
[ "$rows" -gt 0 ] ||
	fail "no host_sample rows of $NAME stored (is the host sampler wired into the run?)"
[ "$(q r.db "select count(distinct device) from host_sample where run_id = 1 and device is not null")" = 1 ] ||
	fail "devices other than $NAME: $(q r.db "select distinct device from host_sample where run_id = 1")"
[ "$(q r.db "select count(*) from host_sample where run_id = 1 and device = '$NAME' and warmup = 1")" -gt 0 ] ||
	fail "no warm-up rows of $NAME"
[ "$(q r.db "select count(*) from host_sample where run_id = 1 and device is null and cpu_user_pct is not null")" -gt 0 ] ||
	fail "no CPU figures in the host rows"
# diskproof's I/Os: the measured summary of every class, and the warm-up's
# run-scope samples; the device's: reads and writes completed, every interval
mine=$(q r.db "select (select sum(ios) from summary where run_id = 1 and scope = 'run')
	+ (select coalesce(sum(ios), 0) from sample where run_id = 1 and scope = 'run' and warmup = 1)")
theirs=$(q r.db "select sum(reads + writes) from host_sample where run_id = 1 and device = '$NAME'")
echo "diskproof counted $mine I/Os, $NAME completed $theirs reads and writes ($rows intervals)"
[ "$mine" -gt 1000 ] || fail "too few I/Os to compare: $mine"
python3 -c 'import sys; a, b = int(sys.argv[1]), int(sys.argv[2]); sys.exit(abs(a - b) > 0.03 * a)' \
	"$mine" "$theirs" || fail "device counted $theirs I/Os, diskproof $mine: more than 3 % apart"
# rates and figures in range
[ "$(q r.db "select count(*) from host_sample where run_id = 1 and device = '$NAME' and
	not (util_pct between 0 and 100 and queue >= 0 and span_ms > 0 and reads_per_s >= 0)")" = 0 ] ||
	fail "figures out of range"

# the reports and the event log
grep -q "host_counters" <(q r.db "select kind from event where run_id = 1") || fail "no host_counters event"
q r.db "select message from event where run_id = 1 and kind = 'host_counters'" | grep -q "devices $NAME ($DEV)" ||
	fail "event: $(q r.db "select message from event where kind = 'host_counters'")"
expect_exit 0 "$DISKPROOF" report 1 --results r.db
grep -q "^host performance (measured intervals):" out && grep -Eq "^  $NAME +[0-9]" out ||
	fail "text report: no host section with $NAME: $(cat out)"
expect_exit 0 "$DISKPROOF" report 1 --results r.db --format json
[ "$(json '[x["name"] for x in d["host"]["devices"]]')" = "['$NAME']" ] ||
	fail "JSON devices: $(json 'd["host"]')"
[ "$(json 'd["host"]["devices"][0]["reads_per_s"] + d["host"]["devices"][0]["writes_per_s"] > 0')" = True ] ||
	fail "JSON: no device I/O"
expect_exit 0 "$DISKPROOF" report 1 --results r.db --format html -o run.html
grep -q 'id="chart-host-devices"' run.html && grep -q "data-name=\"$NAME util %\"" run.html ||
	fail "HTML: no device chart"
echo "ok"
