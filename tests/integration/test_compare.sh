#!/bin/bash
# SPDX-License-Identifier: MIT
# diskproof compare on sim runs: B's device has twice A's read latency (same
# seed, everything else equal) -> db_read avg is flagged significant in every
# volume and database, db_write avg is not; two runs of the same profile and
# seed -> identical data, nothing significant, no verdict or environment
# difference. Also: JSON is one valid document (no NaN/Infinity), the text
# names the test, "latest" works, -o writes a file, an unknown run exits 2;
# the classes compared are those the runs issued (five of six).
source "$(dirname "$0")/lib.sh"
set -e
P="$DP_SOURCE_DIR/tests/integration/profiles/sim.ini"
R=(--results "$WORK/r.db")

sed 's/^read_latency = .*/read_latency = 4ms/' "$P" >slow.ini
grep -q "^read_latency = 4ms" slow.ini || fail "sed did not change read_latency"

expect_exit 0 "$DISKPROOF" run "$P" --duration 2m --quiet "${R[@]}"     # run 1
expect_exit 0 "$DISKPROOF" run ./slow.ini --duration 2m --quiet "${R[@]}" # run 2
expect_exit 0 "$DISKPROOF" run "$P" --duration 2m --quiet "${R[@]}"     # run 3

# strict JSON: python accepts NaN/Infinity unless told not to
jsonok() {
	python3 -c 'import json,sys
def bad(c): raise ValueError("non-finite number " + c)
json.load(open(sys.argv[1]), parse_constant=bad)' "$1" || fail "invalid JSON in $1"
}

# --- 2x read latency: regression flagged, writes not
expect_exit 0 "$DISKPROOF" compare 1 2 --format json "${R[@]}"
jsonok "$WORK/out"
[ "$(json 'd["test"]')" = "Mann-Whitney U on per-interval means" ] || fail "test name"
[ "$(json 'd["alpha"]')" = 0.01 ] || fail "alpha"
[ "$(json '(d["a"]["id"], d["b"]["id"])')" = "(1, 2)" ] || fail "run ids"
[ "$(json '[s["scope"] for s in d["scopes"]]')" = \
	"['run', 'volume', 'volume', 'database', 'database', 'database', 'database']" ] ||
	fail "scopes: $(json '[s["name"] for s in d["scopes"]]')"
# every scope: db_read avg significant and about +100 %
[ "$(json 'all(s["classes"]["db_read"]["avg_ms"]["significant"] for s in d["scopes"])')" = True ] ||
	fail "db_read avg not significant everywhere: $(json '[(s["name"], s["classes"]["db_read"]["avg_ms"]) for s in d["scopes"]]')"
[ "$(json 'all(80 < s["classes"]["db_read"]["avg_ms"]["change_pct"] < 120 for s in d["scopes"])')" = True ] ||
	fail "db_read avg change not about +100 %"
# db_write avg did not change: flagged in no scope. (Before the per-scope Holm
# correction, db2's write average moved by -0.2 % with an exact p of 0.002 on
# its 8 windows of 15 s and came out "significant" by chance.)
[ "$(json '[s["name"] for s in d["scopes"] if s["classes"]["db_write"]["avg_ms"]["significant"]]')" = "[]" ] ||
	fail "db_write avg flagged: $(json '[(s["name"], s["classes"]["db_write"]["avg_ms"]) for s in d["scopes"]]')"
# the family: 5 metrics and the dispersion test x the 5 classes the jetstress
# model issues (db_read, db_write, log_write, bdm_read, log_read), and the
# transactional IOPS: 31; backup_read is in neither run, so it is not tested
# and does not weaken the correction
[ "$(json 'd["correction"] == "holm" and d["family"] == 31')" = True ] ||
	fail "correction not named or family not 31: $(json 'd["family"]')"
[ "$(json 'sorted(c for c, k in d["scopes"][0]["classes"].items() if k["present"])')" = \
	"['bdm_read', 'db_read', 'db_write', 'log_read', 'log_write']" ] || fail "classes compared"
[ "$(json '[(s["name"], m) for s in d["scopes"] for m, f in s["classes"]["backup_read"].items()
	if isinstance(f, dict) and "method" in f and (f["method"] != "none" or f["significant"])]')" = "[]" ] ||
	fail "backup_read (in neither run) was tested"
[ "$(json 'd["scopes"][1]["classes"]["db_read"]["avg_ms"]["n_a"] >= 100')" = True ] ||
	fail "too few intervals"
[ "$(json 'd["env_differences"]')" = "[]" ] || fail "env differs between two sim runs on one host"

expect_exit 0 "$DISKPROOF" compare 1 2 --all "${R[@]}"
grep -q "test: Mann-Whitney U on per-interval means, alpha 0.01" out || fail "text names no test"
grep -A1 "^  db_read " out | grep -Eq "avg ms .*%? \*" || fail "text marks no significant db_read avg"
grep -q "^volume v1" out && grep -q "^database db1 on v1" out || fail "text scopes"
grep -q "^  bdm_read " out && grep -q "^  log_read " out || fail "text lacks bdm_read or log_read"
! grep -q "backup_read" out || fail "text shows backup_read, which neither run issued"

# --- same profile and seed: identical data, nothing significant
expect_exit 0 "$DISKPROOF" compare 1 latest --format json "${R[@]}"
jsonok "$WORK/out"
[ "$(json 'd["b"]["id"]')" = 3 ] || fail "latest is not run 3"
[ "$(json '[(s["name"], c, m) for s in d["scopes"] for c, k in s["classes"].items() for m in
	("iops", "avg_ms", "p50_ms", "p99_ms", "max_ms") if k[m]["significant"]]')" = "[]" ] ||
	fail "identical runs flagged a change"
[ "$(json 'd["verdict_changes"]')" = "[]" ] || fail "identical runs: verdict change"
[ "$(json 'all(s["classes"]["db_read"]["avg_ms"]["change_pct"] == 0 for s in d["scopes"])')" = True ] ||
	fail "identical runs: change not 0"

# --- -o FILE, unknown run, bad format, bad id
expect_exit 0 "$DISKPROOF" compare 2 1 --format json -o "$WORK/cmp.json" "${R[@]}"
[ ! -s out ] || fail "-o also wrote to stdout"
jsonok "$WORK/cmp.json"
expect_exit 2 "$DISKPROOF" compare 1 9 "${R[@]}"
grep -q "9" err || fail "unknown run not named: $(cat err)"
expect_exit 2 "$DISKPROOF" compare 1 2 --format csv "${R[@]}"
expect_exit 2 "$DISKPROOF" compare 1 x "${R[@]}"
expect_exit 2 "$DISKPROOF" compare 1 "${R[@]}"
expect_exit 3 "$DISKPROOF" compare 1 2 --results "$WORK/none.db"
echo "ok"
