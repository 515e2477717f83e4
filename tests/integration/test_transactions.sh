#!/bin/bash
# SPDX-License-Identifier: MIT
# test_transactions.sh - transactions counted (docs/reports.md#transactions):
# an open-loop sim run at [workload] rate = 200 transactions per second
# reports 200/s within 3 % in text and JSON, per database figures that sum
# to the run's, I/Os per transaction that agree with the class totals,
# commits per log write = commit records / log writes, and interval rows
# (txn_sample) that sum to the totals, as the CSV's txns column does; the
# report schema holds the fields.
# A fixed-model run has no transactions: JSON null, no text line.
source "$(dirname "$0")/lib.sh"
set -e
P="$DP_SOURCE_DIR/tests/integration/profiles/sim.ini"

sed 's/^\[sizing\]/[workload]\narrival = rate\nrate = 200\n\n[sizing]/' "$P" >rate.ini
expect_exit 0 "$DISKPROOF" run ./rate.ini --duration 10s --warmup 5s --results r.db --quiet
expect_exit 0 "$DISKPROOF" report 1 --results r.db
# 200/s over 10 s: a Poisson count of 2000, sd 45 (2.2 %): within 4 sd
grep -Eq '^transactions: [0-9]+ \((18[2-9]|19[0-9]|20[0-9]|21[0-8])\.[0-9]/s\); [0-9.]+ commits per log write$' "$WORK/out" ||
	fail "text: transactions line: $(grep transactions "$WORK/out")"
grep -Eq '^per transaction: [0-9.]+ db reads, [0-9.]+ db writes, [0-9.]+ log writes, [0-9.]+ KB log$' "$WORK/out" ||
	fail "text: transactions line: $(grep transactions "$WORK/out")"
grep -Eq '^transactions per database: [0-9.]+( to [0-9.]+)?/s; [0-9.]+( to [0-9.]+)? commits per log write$' "$WORK/out" ||
	fail "text: per-database transactions line"
expect_exit 0 "$DISKPROOF" report 1 --results r.db --format json
cp "$WORK/out" r.json
python3 - r.json <<'PY' || fail "json transactions"
import json, sys
d = json.load(open(sys.argv[1]))
run = d["summary"]
t = run["transactions"]
assert abs(t["per_second"] - 200) < 18, t  # within 4 sd of the Poisson count
assert t["count"] == round(t["per_second"] * d["run"]["duration_s"]), (t, d["run"]["duration_s"])
c = run["classes"]
pt = t["per_transaction"]
assert abs(pt["db_reads"] - c["db_read"]["ios"] / t["count"]) < 1e-3, pt
assert abs(pt["db_writes"] - c["db_write"]["ios"] / t["count"]) < 1e-3, pt
assert abs(pt["log_writes"] - c["log_write"]["ios"] / t["count"]) < 1e-3, pt
assert abs(pt["log_bytes"] - c["log_write"]["bytes"] / t["count"]) < 1e-3, pt
# a seek commits nothing: fewer commits than transactions, at least one a log write
assert 1 <= t["commits_per_log_write"] < t["count"] / c["log_write"]["ios"], t
dbs = [x["transactions"] for x in d["databases"]]
assert len(dbs) == 4 and sum(x["count"] for x in dbs) == t["count"], dbs
vols = [x["transactions"] for x in d["volumes"]]
assert sum(x["count"] for x in vols) == t["count"], vols
PY
# the interval rows sum to the totals, scope by scope
[ "$(sqlite3 r.db "SELECT count(*) FROM txn_total t WHERE t.run_id = 1 AND t.txns =
	(SELECT sum(s.txns) FROM txn_sample s WHERE s.run_id = 1 AND s.warmup = 0
	 AND s.scope = t.scope AND s.name = t.name) AND t.log_commits =
	(SELECT sum(s.log_commits) FROM txn_sample s WHERE s.run_id = 1 AND s.warmup = 0
	 AND s.scope = t.scope AND s.name = t.name)")" = 7 ] ||
	fail "txn_sample does not sum to txn_total: $(sqlite3 r.db 'SELECT * FROM txn_total')"
# 10 measured intervals of the run
[ "$(sqlite3 r.db "SELECT count(*) FROM txn_sample WHERE run_id = 1 AND scope = 'run' AND warmup = 0")" = 10 ] ||
	fail "txn_sample: not one run row per interval"
# the CSV's txns column: the interval's on its rows (the same on each class
# row of a scope's interval), the span's on the transactional rows
expect_exit 0 "$DISKPROOF" report 1 --results r.db --format csv
python3 - "$WORK/out" r.json <<'PY' || fail "csv txns column"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
d = json.load(open(sys.argv[2]))
want = d["summary"]["transactions"]["count"]
per = {}
for r in rows:
    if r["t_ms"] and r["warmup"] == "0" and r["scope"] == "run":
        assert r["txns"] != "", r
        per.setdefault(r["t_ms"], set()).add(r["txns"])
assert len(per) == 10 and all(len(v) == 1 for v in per.values()), per
assert sum(int(next(iter(v))) for v in per.values()) == want, (per, want)
tr = [r for r in rows if r["class"] == "transactional" and r["scope"] == "run"]
assert len(tr) == 1 and int(tr[0]["txns"]) == want, tr
assert all(r["txns"] == "" for r in rows if not r["t_ms"] and r["class"] != "transactional")
PY
if python3 -c 'import jsonschema' 2>/dev/null; then
	python3 - "$DP_SOURCE_DIR/docs/schema/report.schema.json" r.json <<'PY' || fail "report schema"
import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))
PY
fi

# the fixed model: no transactions, never "0 transactions"
sed 's/^\[engine\]/[workload]\nmodel = fixed\nread_pct = 70\n\n[engine]/' "$P" >fixed.ini
expect_exit 0 "$DISKPROOF" run ./fixed.ini --duration 5s --warmup 1s --results f.db --quiet
expect_exit 0 "$DISKPROOF" report 1 --results f.db
! grep -q '^transactions' "$WORK/out" || fail "fixed model: a transactions line"
expect_exit 0 "$DISKPROOF" report 1 --results f.db --format json
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["summary"]["transactions"] is None
assert all(x["transactions"] is None for x in d["databases"] + d["volumes"])
' "$WORK/out" || fail "fixed model: transactions not null"
[ "$(sqlite3 f.db "SELECT count(*) FROM txn_total") $(sqlite3 f.db "SELECT count(*) FROM txn_sample")" = "0 0" ] ||
	fail "fixed model: transaction rows stored"
expect_exit 0 "$DISKPROOF" report 1 --results f.db --format csv
# txns is the ninth column from the end (then the three series columns,
# empty outside a series, the engine and the four response columns, empty
# in a closed loop)
[ "$(tail -n +2 "$WORK/out" | grep -vc ',,,,,[a-z_]*,,,,$')" = 0 ] || fail "fixed model: a txns figure in the CSV"
echo ok
