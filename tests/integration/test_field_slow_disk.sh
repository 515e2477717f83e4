#!/bin/bash
# SPDX-License-Identifier: MIT
# Field case (a), examples/five-disks-slow.ini on the sim engine: five disks of
# 290 IOPS, 3 databases each, logs on log devices of their own, one disk
# (disk3) slightly slower. Only disk3 fails the database read average, at
# about 21 ms; the other four pass clearly under 20 ms; every volume's log
# writes (on their own devices, counted under the database's volume) average
# well under 10 ms; and the engine simulates 10 devices (5 data, 5 log). The
# report's why names disk3 and its databases with the measured facts (text
# and JSON), and the test log ends with an "end" event.
# Log I/O still counts under its database's volume. The same layout with the
# logs moved onto the data disks shows what the separate devices changed.
source "$(dirname "$0")/lib.sh"
set -e
P="$DP_SOURCE_DIR/examples/five-disks-slow.ini"

expect_exit 1 "$DISKPROOF" run "$P" --results "$WORK/r.db" --duration 3m
grep -q "^diskproof run 1: FAIL" out || fail "no FAIL line: $(cat out)"
# the failed verdicts are disk3's and its databases' (and the run's roll-up)
grep -q "FAIL disk3: database read average 2[01]\.[0-9]* ms > 20 ms" out || fail "disk3: $(cat out)"
[ "$(grep -c '^  FAIL' out)" = 6 ] || fail "more failed than disk3: $(grep FAIL out)"
for d in db7 db8 db9; do
	grep -q "FAIL $d on disk3: database read average" out || fail "$d not failed"
done
grep -q "FAIL run: failed volumes 1 > 0" out || fail "run roll-up"
# why (report/why.c): one sentence for the run, disk3 and each of its
# databases, from what was measured; none for a volume that passed
expect_exit 0 "$DISKPROOF" report 1 --results "$WORK/r.db"
sed -n '/^why:$/,/^$/p' "$WORK/out" >why.txt
grep -q "^  disk3 served 1[0-9] % fewer IOPS than its sibling volumes (median [0-9.]*) under the same load" why.txt ||
	fail "why: disk3: $(cat why.txt)"
tr '\n' ' ' <why.txt | tr -s ' ' | grep -q "disk3 served .* its database read average was 2[01]\.[0-9] ms against a limit of 20 ms and its databases db7, db8 and db9 failed\." ||
	fail "why: disk3's sentence: $(cat why.txt)"
for d in db7 db8 db9; do
	grep -q "^  $d on disk3 served 1[0-9] % fewer IOPS than its sibling databases" why.txt || fail "why: $d"
done
grep -q "disk[1245]" why.txt && fail "why: a volume that passed: $(cat why.txt)"
awk 'length > 120 { bad = 1 } END { exit bad }' why.txt || fail "why: a line over 120 columns"

expect_exit 0 "$DISKPROOF" report 1 --format json --results "$WORK/r.db"
python3 - "$WORK/out" <<'PY' || fail "volume figures"
import json, sys
d = json.load(open(sys.argv[1]))
v = {x["name"]: x["classes"] for x in d["volumes"]}
why = {x["name"]: x["why"] for x in d["volumes"]}
assert [n for n, w in sorted(why.items()) if w] == ["disk3"], why
assert why["disk3"].startswith("disk3 served") and "fewer IOPS than its sibling volumes" in why["disk3"], why
assert "database read average was 2" in why["disk3"], why["disk3"]
assert d["run"]["why"].startswith("1 of 5 volume(s) failed: disk3 served"), d["run"]["why"]
assert sorted(x["name"] for x in d["databases"] if x["why"]) == ["db7", "db8", "db9"], d["databases"]
assert d["events"][-1]["kind"] == "end" and d["events"][-1]["message"].startswith("run ended: failed, verdict FAIL, exit code 1"), d["events"][-1]
assert sorted(v) == ["disk%d" % i for i in range(1, 6)], sorted(v)
for name, c in sorted(v.items()):
    r, l = c["db_read"]["avg_ms"], c["log_write"]["avg_ms"]
    print("%s: db_read avg %.3f ms, log_write avg %.3f ms" % (name, r, l))
    if name == "disk3":
        assert 20.5 <= r <= 22.0, (name, r)
    else:
        assert 16.5 <= r <= 19.0, (name, r)  # clearly under 20 ms
    assert l < 2.0, (name, l)  # logs on their own 800 us devices: well under 10 ms
    assert c["log_write"]["ios"] > 0 and c["log_read"]["ios"] > 0, c
PY
# log I/O counts under its database's volume, whatever device it ran on: each
# volume's log classes are its databases' sums, and the volumes' add up to the run's
for cls in log_write log_read; do
	[ "$(sqlite3 r.db "select count(*) from summary v where v.run_id = 1 and v.scope = 'volume'
		and v.class = '$cls' and v.ios > 0 and v.ios = (select sum(d.ios) from summary d
		where d.run_id = 1 and d.scope = 'database' and d.volume = v.name and d.class = '$cls')")" = 5 ] ||
		fail "$cls: volume and database counts differ"
	[ "$(sqlite3 r.db "select (select sum(ios) from summary where run_id = 1 and scope = 'volume'
		and class = '$cls') = (select ios from summary where run_id = 1 and scope = 'run' and
		class = '$cls')")" = 1 ] || fail "$cls: volumes do not add up to the run"
done
[ "$(sqlite3 r.db "select value from env where run_id = 1 and key = 'engine_notes'")" = \
	"virtual time, 10 simulated device(s)" ] || fail "device count"
# the same layout with the logs on the data disks: they queue behind the
# reads there (about 11 ms, over the 10 ms threshold, and every volume fails),
# where their own devices wrote them in 0.8 ms
python3 - "$P" >ondata.ini <<'PY'
import re, sys
s = open(sys.argv[1]).read()
s = re.sub(r"; disk\d's log device[^\n]*\n\[sim-log disk\d\]\n(?:[a-z_]+ = [^\n]*\n)*", "", s)
print(re.sub(r"log_path = [^\n]*\n", "", s), end="")
PY
expect_exit 1 "$DISKPROOF" run ./ondata.ini --results "$WORK/r.db" --duration 3m
[ "$(sqlite3 r.db "select value from env where run_id = 2 and key = 'engine_notes'")" = \
	"virtual time, 5 simulated device(s)" ] || fail "device count with logs on the data disks"
[ "$(sqlite3 r.db "select count(*) from summary where run_id = 2 and scope = 'volume' and
	class = 'log_write' and avg_ms > 5")" = 5 ] ||
	fail "logs on the data disks: $(sqlite3 r.db "select name, avg_ms from summary where run_id = 2 and scope = 'volume' and class = 'log_write'")"
echo "ok"
