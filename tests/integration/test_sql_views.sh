#!/bin/bash
# SPDX-License-Identifier: MIT
# test_sql_views.sh - the results file for sqlite3 users (schema 7): on two sim
# runs (one failing its read latency) and a short real run (psync, 8 MiB
# databases), the views v_run, v_run_class, v_volume_trend, v_database_class and
# v_failed_verdicts give the figures `report --format json` shows (avg, p50,
# p99, p99.9, p99.99, max, IOPS, MB/s, transactional IOPS: the same numbers at
# the report's three decimals), the stored p90/p95 lie between p50 and p99.9;
# every offset has its absolute time; the 15 s windows' percentiles add up; the CSV's host and time_utc columns are
# on every row and within the real run's start..end; the version-1 golden file
# is migrated with the views and its percentiles filled from its histograms,
# and an import of it fills them the same way.
set -e
. "$(dirname "$0")/lib.sh"

SIM="$DP_SOURCE_DIR/tests/integration/profiles/sim.ini"
sed -e 's/^read_latency = 2ms/read_latency = 30ms/' "$SIM" >slow.ini
sed -e 's/^name = io_uring/name = psync/' "$DP_SOURCE_DIR/tests/integration/profiles/tiny.ini" >real.ini

expect_exit 0 "$DISKPROOF" run "$SIM" --duration 5s --warmup 1s --results r.db --label trend --quiet
expect_exit 1 "$DISKPROOF" run ./slow.ini --duration 5s --warmup 1s --results r.db --label trend --quiet
set +e
"$DISKPROOF" run ./real.ini --data-dir "$WORK/data" --duration 3s --warmup 1s --results r.db \
	--label real --quiet >run.out 2>run.err
rc=$?
set -e
[ $rc = 0 ] || [ $rc = 1 ] || { cat run.err; fail "real run exited $rc"; }

# the version this build writes, as store.h says
schema=$(sed -n 's/^#define STORE_SCHEMA_VERSION \([0-9]*\)$/\1/p' "$DP_SOURCE_DIR/include/diskproof/store.h")
[ -n "$schema" ] || fail "no STORE_SCHEMA_VERSION in store.h"
[ "$(sqlite3 r.db 'PRAGMA user_version')" = "$schema" ] || fail "schema version"
for id in 1 2 3; do
	expect_exit 0 "$DISKPROOF" report $id --results r.db --format json
	cp "$WORK/out" "r$id.json"
	expect_exit 0 "$DISKPROOF" report $id --results r.db --format csv
	cp "$WORK/out" "r$id.csv"
done

# check_views DB ID JSON: every view row of run ID against the JSON report
check_views() {
	python3 - "$@" <<'PY'
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.row_factory = sqlite3.Row
rid = int(sys.argv[2])
d = json.load(open(sys.argv[3]))
FIGS = ("iops", "mbps", "avg_ms", "p50_ms", "p99_ms", "p999_ms", "p9999_ms", "max_ms")

def same(view, js, what):
    """A view's figure is the report's: the same number at three decimals;
    NULL where the report has null, or 0 for a class without I/O."""
    if view is None:
        assert js is None or js == 0, (what, view, js)
        return
    assert js is not None and f"{view:.3f}" == f"{js:.3f}", (what, view, js)

def check_classes(rows, classes, what):
    # a run recorded with three classes has three rows; the JSON lists six
    seen = {row["class"] for row in rows}
    assert len(seen) == len(rows) >= 3, (what, len(rows))
    assert all(c["ios"] == 0 for k, c in classes.items() if k not in seen), what
    for row in rows:
        c = classes.get(row["class"])
        if c is None:
            # a class the JSON lists only where a run has some (db_flush)
            assert row["ios"] == 0 and row["errors"] == 0, (what, row["class"])
            continue
        assert row["ios"] == c["ios"] and row["errors"] == c["errors"], (what, row["class"])
        for f in FIGS:
            same(row[f], c[f], f"{what} {row['class']} {f}")
        if row["ios"]:
            # the stored p90 and p95 come from the same histogram
            assert row["p50_ms"] <= row["p90_ms"] <= row["p95_ms"] <= row["p99_ms"], dict(row)
            assert row["p99_ms"] <= row["p999_ms"] <= row["p9999_ms"] <= row["max_ms"] + 1e-9
        else:
            assert row["p90_ms"] is None and row["p999_ms"] is None, dict(row)

run = db.execute("SELECT * FROM v_run WHERE run_id = ?", (rid,)).fetchone()
r = d["run"]
assert run["uuid"] and len(run["uuid"]) == 32
assert (run["label"], run["profile"], run["host"], run["status"], run["verdict"]) == (
    r["label"], r["profile"], r["host"], r["status"], r["verdict"]), dict(run)
assert run["started_at"] == r["started"], (run["started_at"], r["started"])
same(run["transactional_iops"], d["summary"]["transactional_iops"], "v_run tiops")
same(run["db_read_p999_ms"], d["summary"]["classes"]["db_read"]["p999_ms"], "v_run p999")
same(run["log_write_avg_ms"], d["summary"]["classes"]["log_write"]["avg_ms"], "v_run lw avg")
failed = [v for v in d["verdicts"] if not v["passed"]]
assert run["failed_verdicts"] == len(failed), (run["failed_verdicts"], len(failed))

rows = db.execute("SELECT * FROM v_run_class WHERE run_id = ?", (rid,)).fetchall()
check_classes(rows, d["summary"]["classes"], "run")
for row in rows:
    same(row["transactional_iops"], d["summary"]["transactional_iops"], "v_run_class tiops")
    assert row["started_at"] == r["started"] and row["label"] == r["label"]
for v in d["volumes"]:
    rows = db.execute("SELECT * FROM v_volume_trend WHERE run_id = ? AND volume = ?",
                      (rid, v["name"])).fetchall()
    check_classes(rows, v["classes"], "volume " + v["name"])
    same(rows[0]["transactional_iops"], v["transactional_iops"], "volume tiops")
for x in d["databases"]:
    rows = db.execute("SELECT * FROM v_database_class WHERE run_id = ? AND database = ?",
                      (rid, x["name"])).fetchall()
    check_classes(rows, x["classes"], "database " + x["name"])
    assert rows[0]["volume"] == x["volume"]
    same(rows[0]["transactional_iops"], x["transactional_iops"], "database tiops")

fv = db.execute("SELECT * FROM v_failed_verdicts WHERE run_id = ?"
                " ORDER BY rowid", (rid,)).fetchall()
got = sorted((x["scope"], x["name"], x["criterion"], f"{x['measured']:.3f}",
              f"{x['threshold']:.3f}") for x in fv)
want = sorted((v["scope"], v["name"], v["criterion"], f"{v['measured']:.3f}",
               f"{v['threshold']:.3f}") for v in failed)
assert got == want, (got, want)
PY
}

for id in 1 2 3; do
	check_views r.db $id "r$id.json" || fail "views of run $id differ from its JSON report"
done
[ "$(sqlite3 r.db 'SELECT count(*) FROM v_failed_verdicts WHERE run_id = 2')" -gt 0 ] ||
	fail "the slow run has no failed verdict in v_failed_verdicts"
[ "$(sqlite3 r.db 'SELECT count(*) FROM v_failed_verdicts WHERE run_id = 1')" = 0 ] ||
	fail "the passing run has failed verdicts"
# the docs' one-liner: p99.9 of db_read of the last 10 runs labelled trend
[ "$(sqlite3 r.db "SELECT count(*) FROM (SELECT run_id, p999_ms FROM v_run_class WHERE label = 'trend' AND class = 'db_read' ORDER BY run_id DESC LIMIT 10)")" = 2 ] ||
	fail "one-liner"

# absolute times: on every row with an offset, and in order with it
python3 - r.db <<'PY' || fail "time_utc"
import sqlite3, sys
from datetime import datetime, timedelta
db = sqlite3.connect(sys.argv[1])
def ts(s):
    assert s.endswith("Z") and len(s) == 24, s
    return datetime.strptime(s, "%Y-%m-%dT%H:%M:%S.%fZ")
for rid, t0, started in db.execute("SELECT id, t0_utc, started_at FROM run"):
    t0 = ts(t0)
    start = datetime.strptime(started, "%Y-%m-%dT%H:%M:%SZ")
    assert start <= t0 < start + timedelta(seconds=5), (rid, t0, start)
    for table in ("sample", "interval_histogram", "host_sample"):
        for t_ms, utc in db.execute(f"SELECT t_ms, time_utc FROM {table} WHERE run_id = ?",
                                    (rid,)):
            assert ts(utc) == t0 + timedelta(milliseconds=t_ms), (table, rid, t_ms, utc, t0)
    n = 0
    for t_ms, utc in db.execute("SELECT t_ms, time_utc FROM event WHERE run_id = ?", (rid,)):
        assert ts(utc) >= start, (rid, t_ms, utc)
        n += 1
    assert n > 0
    assert db.execute("SELECT count(*) FROM v_sample WHERE run_id = ? AND time_utc IS NULL",
                      (rid,)).fetchone()[0] == 0
# v_volume_window: the 15 s windows' percentiles, their I/Os adding up to the
# volume's summary
for rid, vol, cls, ios in db.execute("SELECT run_id, volume, class, ios FROM v_volume_trend"
                                     " WHERE ios > 0"):
    n, bad = db.execute("SELECT sum(ios), sum(NOT (p50_ms <= p90_ms AND p90_ms <= p95_ms"
                        " AND p95_ms <= p99_ms AND p99_ms <= p999_ms AND p999_ms <= p9999_ms"
                        " AND p9999_ms <= max_ms + 1e-9)) FROM v_volume_window"
                        " WHERE run_id = ? AND volume = ? AND class = ? AND warmup = 0",
                        (rid, vol, cls)).fetchone()
    assert n == ios and bad == 0, (rid, vol, cls, n, ios, bad)
# v_sample's rates over the interval's length: volume rows every second
for len_ms, n in db.execute("SELECT len_ms, count(*) FROM v_sample WHERE run_id = 1"
                            " AND scope = 'volume' AND warmup = 0 GROUP BY len_ms"):
    assert len_ms == 1000, (len_ms, n)
PY

# the CSV: host and time_utc on every row (then txns), the times within the real run
python3 - r.db r3.csv 3 <<'PY' || fail "csv host and time_utc"
import csv, sqlite3, sys
from datetime import datetime, timedelta
db = sqlite3.connect(sys.argv[1])
host, started, ended = db.execute("SELECT host, started_at, ended_at FROM run WHERE id = ?",
                                  (int(sys.argv[3]),)).fetchone()
p = lambda s: datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ")
start, end = p(started), p(ended) + timedelta(seconds=1)  # stored to the second
rows = list(csv.reader(open(sys.argv[2], newline="")))
head = rows[0]
assert head[:20] == ("run_id,t_ms,warmup,scope,name,class,ios,iops,mb_s,avg_ms,p50_ms,p99_ms,"
                     "max_ms,errors,streams,avg_bytes,p999_ms,p9999_ms,size_bytes,"
                     "final_size_bytes").split(","), head
assert head[20:] == ["host", "time_utc", "txns", "series_id", "series_index", "series_size", "engine",
                     "response_avg_ms", "response_p50_ms", "response_p99_ms", "response_max_ms"], head
timed = 0
for row in rows[1:]:
    assert len(row) == 31, row
    assert row[20] == host, row
    if row[1]:
        t = datetime.strptime(row[21], "%Y-%m-%dT%H:%M:%S.%fZ")
        assert start <= t <= end, (row, started, ended)
        timed += 1
    else:
        assert row[21] == "", row
assert timed > 10, timed
PY

# an old file: migrated on open, with the views and its percentiles filled
cp "$DP_SOURCE_DIR/tests/golden/results/schema-v1.db" v1.db
expect_exit 0 "$DISKPROOF" report 1 --results v1.db --format json
cp "$WORK/out" v1.json
[ "$(sqlite3 v1.db 'PRAGMA user_version')" = "$schema" ] || fail "v1 file not migrated"
[ "$(sqlite3 v1.db "SELECT count(*) FROM summary WHERE ios > 0 AND p999_ms IS NULL")" = 0 ] ||
	fail "migration left percentiles empty"
[ "$(sqlite3 v1.db "SELECT count(*) FROM sample WHERE time_utc IS NULL")" = 0 ] ||
	fail "migration left sample times empty"
check_views v1.db 1 v1.json || fail "views of the migrated v1 run differ from its JSON report"
[ "$(sqlite3 v1.db "SELECT time_utc FROM sample WHERE t_ms = 1000 LIMIT 1")" = \
	"$(sqlite3 v1.db "SELECT strftime('%Y-%m-%dT%H:%M:%fZ', started_at, '+1 seconds') FROM run")" ] ||
	fail "migrated time_utc is not started_at + t_ms"

# import of the (unmigrated) v1 file: the same figures
expect_exit 0 "$DISKPROOF" import "$DP_SOURCE_DIR/tests/golden/results/schema-v1.db" --results r.db
id=$(sqlite3 r.db "SELECT max(id) FROM run")
[ "$id" = 4 ] || fail "import added run $id"
check_views r.db 4 v1.json || fail "views of the imported v1 run differ from its JSON report"
[ "$(sqlite3 r.db "SELECT group_concat(p90_ms || '/' || p999_ms) FROM summary WHERE run_id = 4")" = \
	"$(sqlite3 v1.db "SELECT group_concat(p90_ms || '/' || p999_ms) FROM summary WHERE run_id = 1")" ] ||
	fail "import and migration fill different percentiles"
# and an import of a current file copies its times as they are
expect_exit 0 "$DISKPROOF" import r.db --results copy.db
[ "$(sqlite3 copy.db "SELECT group_concat(time_utc) FROM sample WHERE run_id = 3")" = \
	"$(sqlite3 r.db "SELECT group_concat(time_utc) FROM sample WHERE run_id = 3")" ] ||
	fail "import changed the times"
echo ok
