#!/bin/bash
# SPDX-License-Identifier: MIT
# test_json_schema.sh - every JSON document diskproof prints (run, report,
# compare, fleet, plan, list, check, verify --format json) validates against its
# schema in docs/schema/ (draft 2020-12, python3-jsonschema); stdout of
# `run --format json` is exactly one document, the stored run's (id and uuid
# of the latest run, byte for byte what `report --format json` gives), with
# the text summary on stderr; a run that cannot start leaves stdout empty;
# a failed and an interrupted run print theirs too; and a schema rejects a
# document with a key removed, renamed or retyped.
set -e
. "$(dirname "$0")/lib.sh"

python3 -c 'import jsonschema' 2>/dev/null || { echo "skipped: no python3 jsonschema"; exit 77; }
SCHEMAS="$DP_SOURCE_DIR/docs/schema"

# schema_ok NAME FILE: FILE holds exactly one JSON document (the whole of it
# parses as one) that is valid against docs/schema/NAME.schema.json
schema_ok() {
	python3 - "$SCHEMAS/$1.schema.json" "$2" <<'EOF'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
doc = json.loads(open(sys.argv[2]).read())
errors = list(jsonschema.Draft202012Validator(schema).iter_errors(doc))
for e in errors[:10]:
    print("%s: at %s: %s" % (sys.argv[2], "/".join(map(str, e.absolute_path)), e.message[:300]),
          file=sys.stderr)
sys.exit(1 if errors else 0)
EOF
}
validate() { schema_ok "$1" "$2" || fail "$2 is not a valid $1 document"; }

# jq_py FILE EXPR: a Python expression of the document d, printed
jq_py() {
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# run_json NAME: the last run's stdout and stderr (expect_exit's) checked and
# kept as NAME.json, NAME.err
run_json() {
	cp "$WORK/out" "$1.json"
	cp "$WORK/err" "$1.err"
	validate report "$1.json"
	local id uuid
	id=$(sqlite3 r.db "select max(id) from run")
	uuid=$(sqlite3 r.db "select uuid from run where id = $id")
	[ "$(jq_py "$1.json" 'd["run"]["id"]')" = "$id" ] || fail "$1: run id is not the stored latest ($id)"
	[ "$(jq_py "$1.json" 'd["uuid"]')" = "$uuid" ] || fail "$1: uuid is not the stored run's ($uuid)"
	[ "$(jq_py "$1.json" 'd["diskproof_version"]')" = "$("$DISKPROOF" --version | sed 's/^diskproof //')" ] ||
		fail "$1: diskproof_version is not what --version says"
	[ "$(jq_py "$1.json" 'd["environment"]["kernel"]')" = "$(uname -r)" ] || fail "$1: environment.kernel"
	grep -q "^diskproof run $id: " "$1.err" || fail "$1: no text summary on stderr"
	grep -q "^volume  class" "$1.err" || fail "$1: no volume table on stderr"
	# the same document as report --format json of that run, byte for byte
	"$DISKPROOF" report "$id" --results r.db --format json >"$1.report"
	cmp -s "$1.json" "$1.report" || fail "$1: run --format json differs from report --format json $id"
}

# 1. a sim run and a real one, with --format json
expect_exit 0 "$DISKPROOF" run sim-quick --duration 5s --warmup 0s --results r.db --format json
run_json sim
[ "$(jq_py sim.json 'd["run"]["engine"]')" = sim ] || fail "sim run: engine"
expect_verdict "$DISKPROOF" run quick --duration 2s --warmup 0s --db-size 8MiB --data-dir "$WORK/d" \
	--results r.db --format json
run_json real
# a real run records its volumes' devices: the environment lists them
[ "$(jq_py real.json 'len(d["environment"]["volumes"])')" = 2 ] || fail "real run: environment.volumes"
[ "$(jq_py real.json 'sorted(v["name"] for v in d["environment"]["volumes"])')" = "['vol1', 'vol2']" ] ||
	fail "real run: environment volume names"
expect_exit 0 "$DISKPROOF" run sim-quick --duration 5s --warmup 0s --results r.db --format text
grep -q '^diskproof run 3: PASS' "$WORK/out" || fail "--format text: the summary is not on stdout"

# 2. a run that does not start: stdout empty, the error on stderr, nothing
# written for an unknown format
expect_exit 2 "$DISKPROOF" run sim-quick --format xml --results new.db
[ ! -s "$WORK/out" ] || fail "unknown format: stdout not empty"
grep -q 'unknown format "xml"' "$WORK/err" || fail "unknown format: no message"
[ ! -e new.db ] || fail "unknown format: the results file was created"
expect_exit 2 "$DISKPROOF" run no-such-profile --format json --results new.db
[ ! -s "$WORK/out" ] || fail "unknown profile: stdout not empty"
mkdir notafile.db
expect_exit 3 "$DISKPROOF" run sim-quick --duration 1s --warmup 0s --format json --results notafile.db
[ ! -s "$WORK/out" ] || fail "unusable results file: stdout not empty"
[ -s "$WORK/err" ] || fail "unusable results file: no message"
for cmd in list check verify; do
	expect_exit 2 "$DISKPROOF" $cmd --format csv --results r.db
	grep -q 'unknown format "csv"' "$WORK/err" || fail "$cmd --format csv: no message"
done

# 3. the other documents
expect_exit 0 "$DISKPROOF" report 1 --results r.db --format json
cp "$WORK/out" report.json
validate report report.json
expect_exit 0 "$DISKPROOF" list --results r.db --format json
cp "$WORK/out" list.json
validate list list.json
[ "$(jq_py list.json '[r["id"] for r in d["runs"]]')" = "[1, 2, 3]" ] || fail "list: run ids"
[ "$(jq_py list.json 'd["runs"][1]["uuid"]')" = "$(sqlite3 r.db 'select uuid from run where id = 2')" ] ||
	fail "list: uuid"
# a run of a schema-1 file (migrated: its uuid derived, nulls where not recorded)
cp "$DP_SOURCE_DIR/tests/golden/results/schema-v1.db" v1.db
expect_exit 0 "$DISKPROOF" report 1 --results v1.db --format json
cp "$WORK/out" v1-report.json
validate report v1-report.json
expect_exit 0 "$DISKPROOF" list --results v1.db --format json
cp "$WORK/out" v1-list.json
validate list v1-list.json
[ "$(jq_py v1-list.json 'd["runs"][0]["uuid"]')" = "$(jq_py v1-report.json 'd["uuid"]')" ] ||
	fail "schema-1 run: list and report disagree on the uuid"
expect_exit 0 "$DISKPROOF" compare 1 3 --results r.db --format json
cp "$WORK/out" compare2.json
validate compare compare2.json
[ "$(jq_py compare2.json 'd["b"]["uuid"]')" = "$(sqlite3 r.db 'select uuid from run where id = 3')" ] ||
	fail "compare: uuid of b"
# run 2 is real among sim runs: --allow-mixed (mixed_engines then a string)
expect_exit 0 "$DISKPROOF" compare 1 2 3 --allow-mixed --results r.db --format json
cp "$WORK/out" compare3.json
validate compare compare3.json
# fleet: the three runs (a sim, a real and a sim one) as one report (exit 1
# when the real run FAILed on this disk: the fleet's verdict), then with a
# host expected that has no run (missing, exit 1)
expect_verdict "$DISKPROOF" fleet 1 2 3 --allow-mixed --results r.db --format json
cp "$WORK/out" fleet.json
validate fleet fleet.json
expect_exit 1 "$DISKPROOF" fleet 1 2 3 --allow-mixed --results r.db --format json --expect-hosts nowhere,"$(hostname)"
cp "$WORK/out" fleet_missing.json
validate fleet fleet_missing.json
[ "$(jq_py fleet_missing.json 'd["missing"]')" = "['nowhere']" ] || fail "fleet: missing"
[ "$(jq_py fleet.json '[h["run_id"] for h in d["hosts"]]')" = "[1, 2, 3]" ] || fail "fleet: run ids"
[ "$(jq_py fleet.json 'd["hosts"][1]["uuid"]')" = "$(sqlite3 r.db 'select uuid from run where id = 2')" ] ||
	fail "fleet: uuid"
expect_exit 0 "$DISKPROOF" plan quick --db-size 8MiB --data-dir "$WORK/d" --format json
cp "$WORK/out" plan.json
validate plan plan.json
set +e
"$DISKPROOF" check quick --db-size 8MiB --data-dir "$WORK/d" --results r.db --format json >check.json
rc=$?
set -e
[ $rc = 0 ] || [ $rc = 3 ] || fail "check: exit $rc"
validate check check.json
want=OK
[ $rc = 3 ] && want=FAIL
[ "$(jq_py check.json 'd["result"].replace("WARN", "OK")')" = $want ] || fail "check: result against exit $rc"
[ "$(jq_py check.json 'len(d["checks"]) > 5')" = True ] || fail "check: too few lines"
expect_exit 0 "$DISKPROOF" verify quick --db-size 8MiB --data-dir "$WORK/d" --format json --quiet
cp "$WORK/out" verify.json
validate verify verify.json
[ "$(jq_py verify.json 'd["result"]')" = clean ] || fail "verify: not clean"
[ "$(jq_py verify.json 'd["databases"][0]["data"]["checked"]')" = 256 ] || fail "verify: pages of db1"
# one page damaged: exit 4 as before, the page listed
printf 'XXXXXXXX' | dd of="$WORK/d/vol1/db1.edb" bs=1 seek=$((32768 * 3 + 100)) conv=notrunc 2>/dev/null
expect_exit 4 "$DISKPROOF" verify quick --db-size 8MiB --data-dir "$WORK/d" --format json --quiet
cp "$WORK/out" verify-bad.json
validate verify verify-bad.json
[ "$(jq_py verify-bad.json 'd["result"]')" = integrity_error ] || fail "verify: result of a bad page"
[ "$(jq_py verify-bad.json '[(b["index"], b["problem"]) for b in d["databases"][0]["bad_listed"]]')" = \
	"[(3, 'checksum')]" ] || fail "verify: the bad page listed"
grep -q 'data integrity error' "$WORK/err" || fail "verify: no message on stderr"

# 4. a run that failed or was interrupted: its document all the same
sed 's/^read_latency = .*/read_latency = 40ms/' "$DP_SOURCE_DIR/tests/integration/profiles/sim.ini" >slow.ini
expect_exit 1 "$DISKPROOF" run ./slow.ini --results r.db --format json
run_json failed
[ "$(jq_py failed.json 'd["run"]["status"], d["run"]["verdict"]')" = "('failed', 'FAIL')" ] ||
	fail "failed run: status and verdict"
set +e
"$DISKPROOF" run quick --duration 30s --warmup 0s --db-size 8MiB --data-dir "$WORK/d" --results r.db \
	--format json >"$WORK/out" 2>"$WORK/err" &
pid=$!
set -e
at_exit "kill -9 $pid"
wait_running
sleep 1
kill -INT $pid
set +e
wait $pid
rc=$?
set -e
[ $rc = 130 ] || fail "interrupted run: exit $rc, not 130"
run_json interrupted
[ "$(jq_py interrupted.json 'd["run"]["status"]')" = aborted ] || fail "interrupted run: status"

# 5. the schemas are not vacuous: a key removed, renamed or retyped fails
# mutate FILE EXPR: FILE with the Python statement EXPR applied to d, as bad.json
mutate() {
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); exec(sys.argv[2]); json.dump(d, open("bad.json", "w"))' "$1" "$2"
}
# rejected NAME: bad.json fails the schema
rejected() {
	if schema_ok "$1" bad.json 2>/dev/null; then
		fail "$1 schema accepts a broken document ($2)"
	fi
}
mutate sim.json 'del d["summary"]'
rejected report "no summary"
mutate sim.json 'del d["uuid"]'
rejected report "no uuid"
mutate sim.json 'd["run"]["iden"] = d["run"].pop("id")'
rejected report "run.id renamed"
mutate sim.json 'd["format_version"] = "1"'
rejected report "format_version a string"
mutate sim.json 'd["volumes"][0]["classes"]["db_read"]["ios"] = 1.5'
rejected report "ios not an integer"
mutate sim.json 'del d["environment"]["facts"]'
rejected report "no environment facts"
mutate list.json 'del d["runs"][0]["uuid"]'
rejected list "a run without uuid"
mutate compare2.json 'del d["a"]["uuid"]'
rejected compare "run a without uuid"
mutate compare3.json 'del d["comparisons"]'
rejected compare "no comparisons"
mutate fleet.json 'del d["hosts"][0]["differs"]'
rejected fleet "a host row without differs"
mutate fleet.json 'd["start_skew_ms"] = "0"'
rejected fleet "start_skew_ms a string"
mutate fleet_missing.json 'd["verdict"] = "MISSING"'
rejected fleet "an unknown fleet verdict"
mutate fleet_missing.json 'del d["hosts"][0]["late_ms"]'
rejected fleet "a host row without late_ms"
mutate fleet.json 'del d["summary"]["classes"]["db_read"]["p99_ms"]'
rejected fleet "a summary class without p99_ms"
mutate check.json 'd["checks"][0]["state"] = "okay"'
rejected check "an unknown state"
mutate verify.json 'del d["databases"][0]["log"]'
rejected verify "a database without its log"
mutate plan.json 'del d["diskproof_version"]'
rejected plan "no diskproof_version"
# and an unknown top-level key is an addition, allowed
mutate sim.json 'd["added_later"] = 1'
validate report bad.json
echo "ok"
