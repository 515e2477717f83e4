#!/bin/bash
# SPDX-License-Identifier: MIT
# test_results_cmds.sh - the commands that manage a results file, on sim runs:
# report --format csv -o FILE (atomic, same bytes as stdout, no temporary file
# left), delete of a run and of an unknown id (exit 2, nothing deleted), and
# import of a second results file (another host): list shows both hosts,
# importing again adds nothing, a version-1 file is imported and left as is.
set -e
. "$(dirname "$0")/lib.sh"

PROFILE="$DP_SOURCE_DIR/tests/integration/profiles/sim.ini"
run_sim() {
	expect_exit 0 "$DISKPROOF" run "$PROFILE" --duration 5s --warmup 1s --results "$1" --quiet
}
count_runs() {
	"$DISKPROOF" list --results "$1" | tail -n +2 | wc -l
}

run_sim a.db
run_sim a.db
run_sim a.db

# --- report -o
expect_exit 0 "$DISKPROOF" report 2 --results a.db --format csv
cp "$WORK/out" stdout.csv
head -1 stdout.csv | grep -qx 'run_id,t_ms,warmup,scope,name,class,ios,iops,mb_s,avg_ms,p50_ms,p99_ms,max_ms,errors,streams,avg_bytes,p999_ms,p9999_ms,size_bytes,final_size_bytes,host,time_utc,txns,series_id,series_index,series_size,engine,response_avg_ms,response_p50_ms,response_p99_ms,response_max_ms' ||
	fail "csv header"
[ "$(tail -n +2 stdout.csv | cut -d, -f1 | sort -u)" = 2 ] || fail "csv rows of run 2 only"
umask 022
expect_exit 0 "$DISKPROOF" report 2 --results a.db --format csv -o report.csv
[ ! -s "$WORK/out" ] || fail "-o printed to stdout"
cmp -s stdout.csv report.csv || fail "-o FILE differs from stdout"
[ "$(stat -c %a report.csv)" = 644 ] || fail "-o FILE mode $(stat -c %a report.csv), want 644"
ls report.csv.tmp.* 2>/dev/null && fail "temporary file left"
expect_exit 0 "$DISKPROOF" report latest --results a.db --output=latest.json --format json
python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["run"]["id"] == 3' latest.json ||
	fail "--output= json"
expect_exit 3 "$DISKPROOF" report 2 --results a.db -o "$WORK/no/such/dir/r.csv"
grep -q "no/such/dir/r.csv" "$WORK/err" || fail "-o error names the file"
expect_exit 2 "$DISKPROOF" report 2 --results a.db --format xml
grep -q "text, json, csv or html" "$WORK/err" || fail "format error lists the formats"

# --- delete
expect_exit 2 "$DISKPROOF" delete 1 99 --results a.db
grep -q "no run 99 in this results file" "$WORK/err" || fail "delete names the unknown id"
[ "$(count_runs a.db)" = 3 ] || fail "a failed delete deleted something"
expect_exit 2 "$DISKPROOF" delete --results a.db
expect_exit 2 "$DISKPROOF" delete abc --results a.db
expect_exit 3 "$DISKPROOF" delete 1 --results nothere.db
[ ! -e nothere.db ] || fail "delete created a results file"
expect_exit 0 "$DISKPROOF" delete 1 3 --results a.db
[ "$(count_runs a.db)" = 1 ] || fail "delete 1 3 left $(count_runs a.db) runs"
expect_exit 2 "$DISKPROOF" report 1 --results a.db
python3 - a.db <<'PY' || fail "rows of deleted runs left"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for t in ("sample", "summary", "histogram", "verdict", "env", "volume", "database", "event"):
    n = db.execute(f'SELECT count(*) FROM "{t}" WHERE run_id IN (1, 3)').fetchone()[0]
    assert n == 0, (t, n)
assert db.execute("SELECT count(*) FROM sample WHERE run_id = 2").fetchone()[0] > 0
PY

# --- import: another server's file
run_sim b.db
python3 -c 'import sqlite3,sys; db=sqlite3.connect(sys.argv[1]); db.execute("UPDATE run SET host = ?, label = ?", ("server-b", "fw 2.1")); db.commit()' b.db
cp b.db b-before.db
expect_exit 0 "$DISKPROOF" import b.db --results a.db
grep -q "imported 1 run" "$WORK/err" || fail "import reports its count"
cmp -s b.db b-before.db || fail "import changed the other file"
expect_exit 0 "$DISKPROOF" list --results a.db
grep -Eq "^ +2 .* $(hostname) " "$WORK/out" || fail "list lacks this host's run"
grep -Eq "^ +4 .* server-b .*fw 2\.1$" "$WORK/out" || fail "list lacks server-b's run"
expect_exit 0 "$DISKPROOF" report 4 --results a.db --format csv
[ "$(tail -n +2 "$WORK/out" | wc -l)" = "$(tail -n +2 stdout.csv | wc -l)" ] || fail "imported samples"
# the streams per scope (table stream_share) come along
grep -qE '^4,,,database,[^,]+,transactional,[0-9]+,[0-9.]+,,,,,,[0-9]+,[0-9]+\.[0-9]{3},' "$WORK/out" ||
	fail "imported run without its streams per database"
expect_exit 0 "$DISKPROOF" import b.db --results a.db
grep -q "imported 0 run(s) from b.db, 1 already here" "$WORK/err" || fail "re-import added runs"
[ "$(count_runs a.db)" = 2 ] || fail "re-import changed the run count"
# compare across the two hosts: this server's run against server-b's
expect_exit 0 "$DISKPROOF" compare 2 4 --results a.db --format json
python3 - "$WORK/out" <<'PY' || fail "compare across hosts"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["a"]["host"] != d["b"]["host"] == "server-b", (d["a"]["host"], d["b"]["host"])
assert any(x["key"] == "hostname" for x in d["env_differences"]) or d["a"]["host"] != d["b"]["host"]
assert any(s["scope"] == "run" for s in d["scopes"])
PY
# interval histograms came along
[ "$(sqlite3 a.db "select count(*) from interval_histogram where run_id=4")" -gt 0 ] ||
	fail "import lost the 15 s histograms"

# --- import: a file of schema 1, read as it is
cp "$DP_SOURCE_DIR/tests/golden/results/schema-v1.db" v1.db
expect_exit 0 "$DISKPROOF" import v1.db --results a.db
grep -q "imported 1 run" "$WORK/err" || fail "import of a version-1 file"
cmp -s v1.db "$DP_SOURCE_DIR/tests/golden/results/schema-v1.db" || fail "import changed the v1 file"
expect_exit 0 "$DISKPROOF" import v1.db --results a.db
grep -q "imported 0 run" "$WORK/err" || fail "re-import of a version-1 file"

# --- import: not a results file, missing file
echo "not sqlite" >text.db
expect_exit 3 "$DISKPROOF" import text.db --results a.db
expect_exit 3 "$DISKPROOF" import missing.db --results a.db
expect_exit 2 "$DISKPROOF" import --results a.db
[ "$(count_runs a.db)" = 3 ] || fail "failed imports changed the run count"
echo "ok"
