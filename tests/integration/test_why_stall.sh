#!/bin/bash
# SPDX-License-Identifier: MIT
# test_why_stall.sh - the why sentence says what happened, in virtual time
# (report/why.c):
# - a log device that stalls 3 s every 60 s (200 ms per write while it
#   stalls) fails log_write_max: the volume's, its databases' and the run's
#   sentences say "log writes stalled 3 s every 60 s" in text, JSON and HTML;
#   the sibling volume, which does not stall, passes and has no sentence;
# - a failure the stalls do not explain says no stall: the same device
#   failing only its database read average (a limit the reads miss) leaves
#   the log's stalls out;
# - an open loop judged on the response time (latency_basis = response) with
#   a fast device and too few streams says the tool's own queue, not the
#   device, held transactions, with both figures.
source "$(dirname "$0")/lib.sh"
set -e

cat >stall.ini <<'INI'
[test]
duration = 5m
warmup = 0s
[sizing]
database_size = 256MiB
log_size = 16MiB
[workload]
page_size = 32KiB
seed = 1
[engine]
name = sim
streams = 8
[sim]
read_latency = 2ms
write_latency = 3ms
log_write_latency = 1ms
jitter = 20%
seed = 1
[thresholds]
max_basis = io
log_write_max = 50ms
[volume vol1]
path = /nonexistent/vol1
log_path = /nonexistent/log1
databases = 2
[volume vol2]
path = /nonexistent/vol2
log_path = /nonexistent/log2
databases = 2
[sim-log vol1]
stall_period = 60s
stall_length = 3s
stall_latency = 200ms
INI

expect_exit 1 "$DISKPROOF" run ./stall.ini --results r.db --quiet
expect_exit 0 "$DISKPROOF" report 1 --results r.db
STALL='log writes stalled 3 s every 60 s \(5 times; [0-9.]+ ms per I/O then, 1\.0 ms otherwise\)'
# the text wraps its sentences: joined again for the match
sed -n '/^why:/,/^$/p' "$WORK/out" | tr '\n' ' ' | tr -s ' ' >why.txt
grep -Eq "1 of 2 volume\(s\) failed: vol1 .*$STALL" why.txt || fail "text: the run's sentence: $(cat why.txt)"
grep -Eq " vol1 served .*$STALL and its databases db1 and db2 failed\." why.txt ||
	fail "text: vol1's sentence: $(cat why.txt)"
grep -Eq " db1 on vol1 .*log writes on vol1 stalled 3 s every 60 s \(5 times" why.txt ||
	fail "text: db1's sentence: $(cat why.txt)"
if grep -q ' vol2 ' why.txt; then fail "text: vol2 passed but has a sentence: $(cat why.txt)"; fi
sed -n '/^why:/,/^$/p' "$WORK/out" | awk 'length > 120 { exit 1 }' || fail "text: a why line over 120 columns"

expect_exit 0 "$DISKPROOF" report 1 --results r.db --format json
python3 - "$WORK/out" <<'PY' || fail "json: the stall in the why sentences"
import json, re, sys
d = json.load(open(sys.argv[1]))
pat = r"log writes stalled 3 s every 60 s \(5 times; [0-9.]+ ms per I/O then, 1\.0 ms otherwise\)"
vols = {v["name"]: v for v in d["volumes"]}
assert re.search(pat, vols["vol1"]["why"]), vols["vol1"]["why"]
assert vols["vol2"]["why"] is None, vols["vol2"]["why"]
dbs = {x["name"]: x for x in d["databases"]}
assert "log writes on vol1 stalled 3 s every 60 s" in dbs["db1"]["why"], dbs["db1"]["why"]
assert dbs["db3"]["why"] is None
assert re.search(pat, d["run"]["why"]), d["run"]["why"]
PY

expect_exit 0 "$DISKPROOF" report 1 --results r.db --format html
grep -Eq '<li class="why-volume">vol1 [^<]*log writes stalled 3 s every 60 s \(5 times' "$WORK/out" ||
	fail "html: vol1's why: $(grep -o '<li class="why-[^<]*' "$WORK/out")"

# a failure the stalls do not explain: the reads (about 2 ms) miss a 1 ms
# average, the log's maximum is let be
sed -e 's/^log_write_max = 50ms/log_write_max = 1s\ndb_read_avg = 1ms/' stall.ini >reads.ini
expect_exit 1 "$DISKPROOF" run ./reads.ini --results r.db --quiet
expect_exit 0 "$DISKPROOF" report 2 --results r.db
grep -q 'database read average' "$WORK/out" || fail "reads.ini: no read failure: $(cat "$WORK/out")"
if grep -q 'stalled' "$WORK/out"; then fail "reads.ini: a stall said of a read failure: $(grep stalled "$WORK/out")"; fi

# the open loop judged on response time: a 2 ms device behind 4 streams at
# 2000 transactions/s (test_open_loop_sim.sh's case), the streams bounded
# where they start (max_streams = 4: left to grow to 16 they would carry
# the rate, and nothing would wait)
cat >open.ini <<'INI'
[test]
duration = 30s
warmup = 0s
[sizing]
database_size = 256MiB
[workload]
arrival = rate
rate = 2000
max_streams = 4
[thresholds]
latency_basis = response
[engine]
name = sim
streams = 4
[sim]
read_latency = 2ms
write_latency = 1ms
log_write_latency = 500us
seed = 7
[volume v1]
path = /nonexistent/v1
databases = 2
INI
expect_exit 1 "$DISKPROOF" run ./open.ini --results o.db --quiet
expect_exit 0 "$DISKPROOF" report 1 --results o.db --format json
python3 - "$WORK/out" <<'PY' || fail "json: the tool's own queue"
import json, re, sys
d = json.load(open(sys.argv[1]))
pat = (r"the tool's own queue, not the device, held transactions \(db_read response time "
       r"[0-9]{4,}\.[0-9] ms, service time 2\.0 ms within the 20 ms limit\)")
for w in [d["run"]["why"]] + [v["why"] for v in d["volumes"]] + [x["why"] for x in d["databases"]]:
    assert re.search(pat, w), w
PY
# a closed loop of the same device judged on service time has nothing to say
expect_exit 0 "$DISKPROOF" report 1 --results o.db
grep -q "the tool's own queue, not the device" "$WORK/out" || fail "text: the queue sentence"
echo "ok"
