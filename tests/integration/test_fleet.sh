#!/bin/bash
# SPDX-License-Identifier: MIT
# test_fleet.sh - "diskproof fleet" over real runs: three sim runs labelled
# alike, each in its own results file as on three hosts (two of them named
# the same), one of them with reads 20 % slower, imported into one file with
# a real io_uring run; their load_started_at set as h-start's run writes it
# (RFC 3339 to the microsecond) where a run left it NULL. Checked: a row per
# run (the two same-named hosts stay two rows); the merged I/O count equals
# the sum of the rows' and the sum of each run's own report JSON summary;
# each class's merged p99 and p99.9 equal the percentile of the runs'
# stored histograms added bucket by bucket (worked out here in Python from
# table histogram); start_skew_ms and each offset match the times set; the
# slow run differs (db read average higher) and the identical ones do not;
# label:TEXT takes every run so labelled and equals the id list; a run still
# running is left out with a note; a selector matching nothing exits 2, an
# unreadable results file 3; fewer than two runs: a report that says so,
# skew null. The fleet's verdict is its exit code: 0 when every run passed,
# 1 with runs that FAILed or were aborted (their verdicts in the report);
# --expect-hosts lists each expected host with no run as missing (text,
# JSON, a row) and fails the fleet; a run whose load began 100 ms or more
# after its start_at is named late with how late.
source "$(dirname "$0")/lib.sh"
set -e
P="$DP_SOURCE_DIR/tests/integration/profiles/sim.ini"

# the slow host's profile is named sim too (as on a real fleet, where one
# profile runs everywhere and a host is slow): its file is slow/sim.ini
mkdir -p slow
sed 's/^read_latency = .*/read_latency = 2.4ms/' "$P" >slow/sim.ini
for h in 1 2 3; do
	prof=$P
	[ $h = 3 ] && prof=./slow/sim.ini
	expect_exit 0 "$DISKPROOF" run "$prof" --duration 1m --quiet --label wave1 --results "h$h.db"
done
# the hosts' names as three machines would record them: two share one
sqlite3 h1.db "UPDATE run SET host = 'db-a'"
sqlite3 h2.db "UPDATE run SET host = 'db-a'"
sqlite3 h3.db "UPDATE run SET host = 'db-c'"
# a run the fleet does not select (another label), on a real device when
# this machine has io_uring: its I/O must not be counted
expect_verdict "$DISKPROOF" run quick --engine io_uring --duration 2s --warmup 0s --db-size 8MiB \
	--data-dir "$WORK/d" --label other --quiet --results real.db ||
	expect_verdict "$DISKPROOF" run sim-quick --duration 5s --warmup 0s --label other --quiet \
		--results real.db
for f in h1 real h2 h3; do
	expect_exit 0 "$DISKPROOF" import "$f.db" --results all.db
done
# ids: h1 -> 1, real -> 2, h2 -> 3, h3 -> 4
[ "$(sqlite3 all.db "select group_concat(id || ':' || host || ':' || coalesce(label, ''), ' ') from run")" = \
	"1:db-a:wave1 2:$(sqlite3 real.db 'select host from run'):other 3:db-a:wave1 4:db-c:wave1" ] ||
	fail "imported runs: $(sqlite3 all.db 'select id, host, label from run')"
# load_started_at as run --start-at records it (set here, whatever a run
# recorded itself, for known values): run 1 first, run 3 250.123 ms later,
# run 4 1.5 s later; run 2 (another label) without one
L1=2026-12-03T15:20:00.000100Z L3=2026-12-03T15:20:00.250223Z L4=2026-12-03T15:20:01.500100Z
for x in "1 $L1" "3 $L3" "4 $L4"; do
	set -- $x
	sqlite3 all.db "UPDATE run SET load_started_at = '$2' WHERE id = $1"
done
sqlite3 all.db "UPDATE run SET load_started_at = NULL WHERE id = 2"

json() { python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

expect_exit 0 "$DISKPROOF" fleet label:wave1 --results all.db --format json
cp "$WORK/out" fleet.json
# rows, totals and I/O counts: merged == sum of rows == sum of each run's
# own report summary (one Python for them all: on a loaded machine each
# interpreter takes seconds to start)
for id in 1 3 4; do
	"$DISKPROOF" report $id --results all.db --format json >r$id.json
done
python3 - fleet.json r1.json r3.json r4.json <<'PY' || fail "rows, totals and I/O counts (above)"
import json, sys
d = json.load(open(sys.argv[1]))
runs = {i: json.load(open(f)) for i, f in zip((1, 3, 4), sys.argv[2:])}
rows = {h["run_id"]: h for h in d["hosts"]}
assert [h["run_id"] for h in d["hosts"]] == [1, 3, 4], "rows %s" % list(rows)
assert [h["host"] for h in d["hosts"]] == ["db-a", "db-a", "db-c"], "same-named hosts"
assert len(set(h["uuid"] for h in d["hosts"])) == 3, "uuids not apart"
assert d["selector"] == ["label:wave1"], d["selector"]
total = 0
for i, r in runs.items():
    n = sum(c["ios"] for c in r["summary"]["classes"].values())
    assert rows[i]["ios"] == n, "run %d: row ios %d, its report's %d" % (i, rows[i]["ios"], n)
    assert rows[i]["trans_iops"] == r["summary"]["transactional_iops"], "run %d: trans_iops" % i
    assert rows[i]["db_read_p99_ms"] == r["summary"]["classes"]["db_read"]["p99_ms"], "run %d: p99" % i
    total += n
assert d["totals"] == {"ios": total, "runs": 3, "hosts": 2}, "totals %s, want ios %d" % (d["totals"], total)
assert sum(h["ios"] for h in d["hosts"]) == total, "rows' ios do not add up"
assert sum(c["ios"] for c in d["summary"]["classes"].values()) == total, "summary classes' ios"
for c in ("db_read", "db_write", "log_write"):
    merged = d["summary"]["classes"][c]["ios"]
    assert merged != runs[1]["summary"]["classes"][c]["ios"], "%s: merged ios is one run's" % c
    assert merged == sum(r["summary"]["classes"][c]["ios"] for r in runs.values()), "%s: merged ios" % c
PY

# percentiles from the stored histograms added bucket by bucket (stats.h:
# a bucket's value is its midpoint, clamped to [min, max])
python3 - all.db fleet.json <<'EOF2' || fail "merged percentiles"
import json, math, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
doc = json.load(open(sys.argv[2]))
def value(idx):
    g, off = divmod(idx, 64)
    if g == 0:
        return idx
    m = g + 5
    return ((64 + off) << (m - 6)) + ((1 << (m - 6)) >> 1)
for cls in ["db_read", "db_write", "log_write"]:
    buckets, count, lo, hi = {}, 0, None, 0
    for n, mn, mx, text in db.execute(
            "SELECT count, min_ns, max_ns, buckets FROM histogram WHERE scope = 'run' AND class = ?"
            " AND run_id IN (1, 3, 4)", (cls,)):
        count += n
        lo = mn if lo is None else min(lo, mn)
        hi = max(hi, mx)
        for pair in text.split():
            i, c = map(int, pair.split(":"))
            buckets[i] = buckets.get(i, 0) + c
    assert sum(buckets.values()) == count == doc["summary"]["classes"][cls]["ios"], cls
    for p, key in [(50, "p50_ms"), (99, "p99_ms"), (99.9, "p999_ms"), (99.99, "p9999_ms")]:
        rank = max(1, math.ceil(p / 100 * count))
        seen = 0
        for i in sorted(buckets):
            seen += buckets[i]
            if seen >= rank:
                v = min(max(value(i), lo), hi)
                break
        want = round(v / 1e6, 3)
        got = doc["summary"]["classes"][cls][key]
        if abs(got - want) > 0.0015:
            sys.exit("%s %s: fleet %s, merged histograms %s" % (cls, key, got, want))
print("ok")
EOF2

# start skew: run 4's load 1500 ms after run 1's; offsets per run
[ "$(json fleet.json 'd["start_skew_ms"]')" = 1500.0 ] || fail "start_skew_ms $(json fleet.json 'd["start_skew_ms"]')"
# each host's clock as its run recorded it, and the largest max error of
# them: run 4's set to 7.5 ms, the others' to 2 ms (the facts as adjtimex
# gave them, in us), run 3's clock event a warning
sqlite3 all.db "UPDATE env SET value = CASE run_id WHEN 4 THEN '7500' ELSE '2000' END WHERE key = 'host.clock.max_error_us'"
sqlite3 all.db "INSERT INTO event (run_id, t_ms, kind, message) VALUES (3, 0, 'clock', 'the clock is not synchronised')"
expect_exit 0 "$DISKPROOF" fleet label:wave1 --results all.db --format json
cp "$WORK/out" clock.json
python3 - clock.json <<'PY' || fail "clocks (above)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["clock_max_error_ms"] == 7.5, d["clock_max_error_ms"]
assert [h["clock"]["max_error_ms"] for h in d["hosts"]] == [2.0, 2.0, 7.5], [h["clock"] for h in d["hosts"]]
assert [h["clock"]["warning"] for h in d["hosts"]] == [None, "the clock is not synchronised", None], \
    [h["clock"] for h in d["hosts"]]
assert d["without_start_at"] == [1, 3, 4], d["without_start_at"]
PY
expect_exit 0 "$DISKPROOF" fleet label:wave1 --results all.db
grep -q "largest max error a clock reported was 7.500 ms" "$WORK/out" || fail "text: clock error bound"
grep -q "^clock: run 3 (db-a): the clock is not synchronised" "$WORK/out" || fail "text: clock warning"
# runs not started with --start-at: named (without_start_at, above), their
# skew not an alignment
grep -q "^note: not started with --start-at, so not aligned: run(s) 1 3 4 " "$WORK/out" ||
	fail "text: runs not started together"
cp all.db aligned.db
sqlite3 aligned.db "UPDATE run SET start_at = '2026-12-03T15:20:00.000000Z' WHERE id IN (1, 3, 4)"
expect_exit 0 "$DISKPROOF" fleet label:wave1 --results aligned.db --format json
[ "$(json "$WORK/out" 'd["without_start_at"]')" = "[]" ] || fail "aligned: without_start_at"
# late: load_started_at - start_at, runs 3 (250.223 ms) and 4 (1.5001 s) over 100 ms
[ "$(json "$WORK/out" '([h["late_ms"] for h in d["hosts"]], [h["late"] for h in d["hosts"]], d["late"], d["verdict"])')" = \
	"([0.1, 250.223, 1500.1], [False, True, True], [3, 4], 'PASS')" ] ||
	fail "late: $(json "$WORK/out" '([h["late_ms"] for h in d["hosts"]], d["late"], d["verdict"])')"
expect_exit 0 "$DISKPROOF" fleet label:wave1 --results aligned.db
! grep -q "not started with --start-at" "$WORK/out" || fail "aligned: the note"
grep -q "^late: run 4 (db-c) began its load 1500.100 ms after its start time 2026-12-03T15:20:00.000000Z$" "$WORK/out" ||
	fail "text: late run 4: $(grep late "$WORK/out")"
grep -q "^late: run 3 " "$WORK/out" && ! grep -q "^late: run 1 " "$WORK/out" || fail "text: late runs"
grep -q "^fleet verdict: PASS (every run passed)$" "$WORK/out" || fail "text: verdict: $(head -3 "$WORK/out")"

# --expect-hosts: a host with no run is missing, and fails the fleet
expect_exit 1 "$DISKPROOF" fleet label:wave1 --results all.db --expect-hosts db-a,db-x,db-c --format json
[ "$(json "$WORK/out" '(d["missing"], d["expected_hosts"], d["verdict"])')" = "(['db-x'], ['db-a', 'db-x', 'db-c'], 'FAIL')" ] ||
	fail "missing: $(json "$WORK/out" '(d["missing"], d["expected_hosts"], d["verdict"])')"
expect_exit 1 "$DISKPROOF" fleet label:wave1 --results all.db --expect-hosts db-a,db-x,db-c,db-x
grep -q "^fleet verdict: FAIL (1 expected host(s) missing)$" "$WORK/out" || fail "text: missing verdict: $(head -3 "$WORK/out")"
grep -q "^missing (expected, no run): db-x$" "$WORK/out" || fail "text: missing line"
grep -q "^db-x  *-  *MISSING  (expected, no run)$" "$WORK/out" || fail "text: missing row: $(cat "$WORK/out")"
expect_exit 1 "$DISKPROOF" fleet label:wave1 --results all.db --expect-hosts db-a,db-x,db-c --format html
grep -q '<tr class="missing" data-host="db-x"><td>db-x</td>' "$WORK/out" || fail "html: no missing row"
grep -q '<td class="num" id="nr-missing">1</td>' "$WORK/out" || fail "html: missing count"
grep -q '<td id="fleet-verdict"><span class="badge FAIL">' "$WORK/out" || fail "html: fleet verdict"
expect_exit 0 "$DISKPROOF" fleet label:wave1 --results all.db --expect-hosts db-c,db-a --format json
[ "$(json "$WORK/out" '(d["missing"], d["verdict"])')" = "([], 'PASS')" ] ||
	fail "every expected host ran: $(json "$WORK/out" '(d["missing"], d["verdict"])')"
for bad in "" "db-a,,db-c" ",db-a" "db-a,"; do
	expect_exit 2 "$DISKPROOF" fleet label:wave1 --results all.db --expect-hosts "$bad"
done
# offsets and load starts as stored; the slow run differs, on its db read
# average (higher), the others do not
python3 - fleet.json "$L1" "$L3" "$L4" <<'PY' || fail "offsets and differences (above)"
import json, sys
d = json.load(open(sys.argv[1]))
h = d["hosts"]
assert [x["start_offset_ms"] for x in h] == [0.0, 250.123, 1500.0], [x["start_offset_ms"] for x in h]
assert [x["load_started_at"] for x in h] == sys.argv[2:5], "load_started_at not as stored"
assert [x["differs"] for x in h] == [False, False, True], [x["differs"] for x in h]
assert [(x["figure"], x["direction"]) for x in h[2]["differs_on"] if x["figure"] == "db_read_avg_ms"] == \
    [("db_read_avg_ms", "higher")], h[2]["differs_on"]
assert 19 < h[2]["tests"]["db_read_avg_ms"]["change_pct"] < 21, h[2]["tests"]
PY

# the id list gives the same rows; text names the slow run
expect_exit 0 "$DISKPROOF" fleet 4 1 3 1 --results all.db --format json
[ "$(json "$WORK/out" '[h["run_id"] for h in d["hosts"]]')" = "[1, 3, 4]" ] || fail "id list: rows"
[ "$(json "$WORK/out" 'd["totals"]')" = "$(json fleet.json 'd["totals"]')" ] || fail "id list: totals"
expect_exit 0 "$DISKPROOF" fleet label:wave1 --results all.db
grep -q '^fleet of 3 run(s) on 2 host name(s): 0 failed' "$WORK/out" || fail "text: head line"
! grep -q '^warning: ' "$WORK/out" || fail "one profile, one duration: a warning: $(cat "$WORK/out")"
grep -q '^start skew: 1500.000 ms' "$WORK/out" || fail "text: skew"
grep -qE '^db-c +4 (sim )?PASS .*DIFFERS$' "$WORK/out" || fail "text: run 4 row"
[ "$(grep -c '^db-a ' "$WORK/out")" = 2 ] || fail "text: two db-a rows"
grep -q 'run 4 (db-c): db read avg ms 2.4 higher' "$WORK/out" || fail "text: what differs"
# mixed: a label and an id of another label (run 2 may be a real run among
# sim ones: --allow-mixed, test_mixed_engines tests the refusal)
expect_verdict "$DISKPROOF" fleet label:wave1 2 --allow-mixed --results all.db --format json
[ "$(json "$WORK/out" '[h["run_id"] for h in d["hosts"]]')" = "[1, 2, 3, 4]" ] || fail "mixed selectors"
[ "$(json "$WORK/out" 'd["start_skew_ms"]')" = 1500.0 ] || fail "mixed: skew over the runs that have it"
[ "$(json "$WORK/out" 'd["without_load_started_at"]')" = "[2]" ] || fail "mixed: run 2 lacks load_started_at"
[ "$(json "$WORK/out" 'd["hosts"][1]["start_offset_ms"]')" = None ] || fail "mixed: run 2 has an offset"
# ... run 2 is another profile, measured for seconds, not a minute: said so
[[ $(json "$WORK/out" 'd["unlike"]') == *"measured for "*" s to 60 s: the totals add unlike"* ]] ||
	fail "mixed: unlike $(json "$WORK/out" 'd["unlike"]')"
expect_verdict "$DISKPROOF" fleet label:wave1 2 --allow-mixed --results all.db
grep -q '^warning: the runs are of 2 profiles (sim, sim-quick)\|^warning: .*measured for' "$WORK/out" ||
	fail "mixed: no warning in text: $(head -3 "$WORK/out")"

# one run: a report, that says so
expect_exit 0 "$DISKPROOF" fleet 3 --results all.db
grep -q 'fewer than 2 runs' "$WORK/out" || fail "one run: no note"
expect_exit 0 "$DISKPROOF" fleet 3 --results all.db --format json
[ "$(json "$WORK/out" 'd["start_skew_ms"]')" = None ] || fail "one run: skew not null"
[ "$(json "$WORK/out" 'd["hosts"][0]["differs"]')" = False ] || fail "one run: differs"

# no match, bad selectors, unusable results file
expect_exit 2 "$DISKPROOF" fleet label:wave9 --results all.db
grep -q 'no run labelled "wave9"' "$WORK/err" || fail "no match: message"
grep -q 'did you mean "wave1"' "$WORK/err" || fail "no match: suggestion"
expect_exit 2 "$DISKPROOF" fleet 99 --results all.db
grep -q 'no run 99' "$WORK/err" || fail "unknown id: message"
expect_exit 2 "$DISKPROOF" fleet --results all.db
expect_exit 2 "$DISKPROOF" fleet label: --results all.db
expect_exit 2 "$DISKPROOF" fleet label:wave1 --format csv --results all.db
expect_exit 3 "$DISKPROOF" fleet label:wave1 --results missing.db
echo "not sqlite" >junk.db
expect_exit 3 "$DISKPROOF" fleet label:wave1 --results junk.db

# a run still running elsewhere (another host's, so not reaped): left out
cp all.db live.db
sqlite3 live.db "UPDATE run SET status = 'running', ended_at = NULL, host = 'db-x' WHERE id = 3; UPDATE env SET value = 'db-x' WHERE run_id = 3 AND key = 'hostname'"
expect_exit 0 "$DISKPROOF" fleet label:wave1 --results live.db --format json
[ "$(json "$WORK/out" '[h["run_id"] for h in d["hosts"]]')" = "[1, 4]" ] || fail "running run not left out"
[ "$(json "$WORK/out" 'd["skipped"]')" = "[{'run_id': 3, 'why': 'still running'}]" ] || fail "skipped"
grep -q 'run 3 is still running' "$WORK/err" || fail "running run: no note"

# runs that FAILed their thresholds: the report, exit 1, their verdicts in it
{ cat "$P"; printf '\n[thresholds]\ndb_read_avg = 1ms\n'; } >strict.ini
expect_exit 1 "$DISKPROOF" run ./strict.ini --duration 30s --quiet --label failing --results all.db
expect_exit 1 "$DISKPROOF" run ./strict.ini --duration 30s --quiet --label failing --results all.db
expect_exit 1 "$DISKPROOF" fleet label:failing --results all.db --format json
[ "$(json "$WORK/out" '[h["verdict"] for h in d["hosts"]]')" = "['FAIL', 'FAIL']" ] || fail "failed runs: verdicts"
[ "$(json "$WORK/out" 'd["verdict"]')" = FAIL ] || fail "failed runs: the fleet's verdict"
[ "$(json "$WORK/out" 'd["without_load_started_at"]')" = "[5, 6]" ] ||
	[ "$(json "$WORK/out" 'd["without_load_started_at"]')" = "[]" ] || fail "without_load_started_at"
expect_exit 1 "$DISKPROOF" fleet label:failing --results all.db
grep -q '2 failed' "$WORK/out" || fail "failed runs: text"
grep -q '^fleet verdict: FAIL (2 run(s) failed)$' "$WORK/out" || fail "failed runs: text verdict"

# a run that never measured (aborted in its --start-at wait) beside one that
# passed: the head line does not say the fleet merely "0 failed", and the
# aborted run's 0 IOPS is no figure (null), so the fleet's median is the
# passing run's own, not halfway to 0
expect_exit 0 "$DISKPROOF" run "$P" --duration 5s --warmup 0s --quiet --label broken --results all.db
"$DISKPROOF" run "$P" --duration 5s --warmup 0s --label broken --results all.db --start-at +30s \
	>/dev/null 2>ab.err &
pid=$!
for _ in $(seq 1 200); do grep -q "waiting until" ab.err && break; sleep 0.05; done
kill -INT $pid
set +e
wait $pid
rc=$?
set -e
[ $rc = 130 ] || fail "the aborted run exited $rc"
expect_exit 1 "$DISKPROOF" fleet label:broken --results all.db
grep -q '^fleet of 2 run(s) on .*: 0 failed, 1 ended in an error or aborted' "$WORK/out" ||
	fail "aborted run: head line: $(head -1 "$WORK/out")"
grep -q '^fleet verdict: FAIL (1 ended in an error or aborted)$' "$WORK/out" || fail "aborted run: verdict"
expect_exit 1 "$DISKPROOF" fleet label:broken --results all.db --format json
[ "$(json "$WORK/out" '[h["trans_iops"] is None for h in d["hosts"]]')" = "[False, True]" ] ||
	fail "aborted run: trans_iops $(json "$WORK/out" '[h["trans_iops"] for h in d["hosts"]]')"
[ "$(json "$WORK/out" 'd["hosts"][0]["tests"]["trans_iops"]["change_pct"]')" = 0.0 ] ||
	fail "aborted run moved the median: $(json "$WORK/out" 'd["hosts"][0]["tests"]')"
expect_exit 1 "$DISKPROOF" fleet label:broken --results all.db --format html
grep -q '<td class="num" id="nr-unjudged">1</td>' "$WORK/out" || fail "html: no error/aborted count"
# one label used for two fleet runs (the playbook's results files keep the
# earlier wave): two --start-at times, said so (8 s ahead: at a load average
# of 22 a run was ready 2.2 s after its launch, and one not ready by its
# start time ends with exit 3)
for _ in 1 2; do
	expect_exit 0 "$DISKPROOF" run "$P" --duration 5s --warmup 0s --quiet --label waves \
		--start-at +8s --results all.db
done
expect_exit 0 "$DISKPROOF" fleet label:waves --results all.db --format json
[[ $(json "$WORK/out" 'd["unlike"]') == "the runs were given 2 different --start-at times (not one fleet run): "* ]] ||
	fail "two waves: unlike $(json "$WORK/out" 'd["unlike"]')"
expect_exit 1 "$DISKPROOF" fleet label:broken --results all.db --format json
[ "$(json "$WORK/out" 'd["unlike"]')" = None ] || fail "one wave: unlike $(json "$WORK/out" 'd["unlike"]')"
# a --host and --label in Latin-1 (not UTF-8): the JSON still parses as
# UTF-8, the bad byte as U+FFFD
expect_exit 0 "$DISKPROOF" run "$P" --duration 5s --warmup 0s --quiet --label $'caf\xe9' \
	--host $'h\xf4te' --results all.db
expect_exit 0 "$DISKPROOF" fleet $'label:caf\xe9' --results all.db --format json
python3 -c 'import json, sys
d = json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))
assert d["hosts"][0]["host"] == "h\ufffdte", d["hosts"][0]["host"]
assert d["hosts"][0]["label"] == "caf\ufffd", d["hosts"][0]["label"]' "$WORK/out" ||
	fail "fleet JSON of a Latin-1 host name is not UTF-8"
echo ok
