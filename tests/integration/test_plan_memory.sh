#!/bin/bash
# SPDX-License-Identifier: MIT
# A layout that cannot fit in memory is refused up front: plan estimates what
# the run would keep in memory (an upper bound: per page, per database, the
# I/O buffers) and, with 100,000 tiny databases, refuses within seconds with
# exit 3 and both figures, as run does before it creates the results file or
# any directory; so do init and run of one database with 100,000 streams.
# "Within seconds" is the CPU time plan spends (user + system, under 5 s),
# not the wall clock: a machine loaded by others stretches the one, not the
# other, and what the test guards against is work per database.
# A small layout shows its estimate in plan --format json.
source "$(dirname "$0")/lib.sh"
set -e
T="$DP_SOURCE_DIR/tests/integration/profiles/tiny.ini"

expect_exit 0 "$DISKPROOF" plan "$T" --data-dir "$WORK/d" --format json
[ "$(json 'd["memory"]["estimate"] > 0 and d["memory"]["estimate"] < 1 << 30')" = True ] ||
	fail "tiny estimate: $(json 'd.get("memory")')"
[ "$(json 'd["memory"]["enough"]')" = True ] || fail "tiny does not fit"
grep -q '"enough_space": ' out || fail "existing keys changed"

python3 - >big.ini <<'PY'
print("[test]\nduration = 10s\n[sizing]\ndatabase_size = 32KiB\nlog_size = 128KiB")
print("[workload]\nlog_segment_size = 64KiB\nbdm_io_size = 32KiB")
for i in range(100):
    print(f"[volume v{i}]\npath = ./data/v{i}\ndatabases = 1000")
PY
set +e
TIMEFORMAT='%3U %3S'
{ time "$DISKPROOF" plan ./big.ini --results "$WORK/r.db" --format json >out 2>err; } 2>cpu
rc=$?
set -e
cpu_ms=$(awk '{printf "%d", ($1 + $2) * 1000}' cpu)
if [ $rc = 0 ] && [ "$(json 'd["memory"]["enough"]')" = True ]; then
	echo "skipped: this host has the memory for 100000 databases ($(json 'd["memory"]'))"
	exit 77
fi
[ $rc = 3 ] || fail "plan of 100000 databases: exit $rc, wanted 3: $(cat err)"
# ASan's checks make every allocation and access dearer: 4.2 s of CPU there
# alone, 5.4 s beside another test (ctest -j2); 2.9 s without ASan
limit=5000
ldd "$DISKPROOF" 2>/dev/null | grep -q libasan && limit=15000
[ "$cpu_ms" -lt $limit ] || fail "plan took $cpu_ms ms of CPU time (limit $limit)"
grep -q "the run needs about [0-9.]* GiB of memory, this host has [0-9.]* [GM]iB available" err ||
	fail "no memory figures: $(cat err)"
[ "$(json 'd["memory"]["enough"]')" = False ] || fail "json says enough"
[ "$(json 'd["databases"]')" = 100000 ] || fail "not the whole layout"

# run (sim: no open-file limit in the way) refuses before writing anything
expect_exit 3 "$DISKPROOF" run ./big.ini --engine sim --results "$WORK/r.db"
grep -q "the run needs about [0-9.]* GiB of memory" err || fail "run: $(cat err)"
[ ! -e r.db ] && [ ! -e data ] || fail "run wrote something"

# one database with 100000 streams of 1 MiB pages: 200 GB of I/O buffers;
# init and run (a real engine) refuse before creating anything
cat >streams.ini <<'INI'
[sizing]
database_size = 1MiB
log_size = 2MiB
[workload]
page_size = 1MiB
bdm_io_size = 1MiB
backup_io_size = 1MiB
[engine]
streams = 100000
[volume v1]
path = ./data/v1
INI
for cmd in init run; do
	expect_exit 3 "$DISKPROOF" $cmd ./streams.ini --results "$WORK/r.db"
	grep -q "the run needs about [0-9.]* GiB of memory, this host has" err || fail "$cmd: $(cat err)"
	[ ! -e r.db ] && [ ! -e data ] || fail "$cmd wrote something"
done
echo "ok"
