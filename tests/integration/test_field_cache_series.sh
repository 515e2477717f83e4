#!/bin/bash
# SPDX-License-Identifier: MIT
# Field case (b) as series (issue 31, item 7), as docs/compare.md shows it:
# examples/cache-90-10.ini and examples/cache-75-25.ini set [test] repeat = 3
# and [sim] run_spread = 5 %, so each `run` of them is a series of three runs
# that differ as real runs do. Asserts: each side is one series of 3 (list,
# the results file); compare by label reads them as 3 against 3; the
# conclusion the docs state holds: going to 75:25 the log-write mean falls by
# about 43 % (90:10's destaging stalls reach the log devices), nothing judged
# is established worse and --fail-on-regression exits 0, the newest runs'
# read dispersion (sd of the one-second averages) is listed at under a third;
# going back to 90:10 the log-write mean is established worse and the gate
# exits 1. And [test] repeat's own rules: --repeat 1 runs the profile once,
# outside a series; the profile's series does not go with --start-at (exit 2,
# naming [test] repeat, nothing written). Durations shortened to 3 minutes.
source "$(dirname "$0")/lib.sh"
set -e
E="$DP_SOURCE_DIR/examples"
R=(--results "$WORK/r.db")
D=(--duration 3m --warmup 30s)

expect_exit 0 "$DISKPROOF" run "$E/cache-90-10.ini" "${D[@]}" "${R[@]}" --label "cache 90:10"
grep -q "^series 1: PASS, 3 of 3 runs passed" out || fail "90:10: not a series of 3: $(cat out err)"
expect_exit 0 "$DISKPROOF" run "$E/cache-75-25.ini" "${D[@]}" "${R[@]}" --label "cache 75:25"
[ "$(sqlite3 "$WORK/r.db" "SELECT group_concat(label || ':' || series_index || '/' || series_size, ',')
	FROM (SELECT * FROM run ORDER BY id)")" = \
	"cache 90:10:1/3,cache 90:10:2/3,cache 90:10:3/3,cache 75:25:1/3,cache 75:25:2/3,cache 75:25:3/3" ] ||
	fail "not two series of three: $(sqlite3 "$WORK/r.db" 'SELECT id, label, series_index, series_size FROM run')"
[ "$(sqlite3 "$WORK/r.db" "SELECT count(DISTINCT series_uuid) FROM run")" = 2 ] || fail "series ids"

# 90:10 -> 75:25: 3 against 3, the log-write mean -43 %, the gate passes
expect_exit 0 "$DISKPROOF" compare "label:cache 90:10" "label:cache 75:25" --fail-on-regression "${R[@]}"
grep -q "^runs as replicates (3 against 3):" out || fail "not 3 v 3: $(cat out)"
grep -q "^  A: 3 runs (1, 2, 3; series:1, the series of the newest run so labelled)$" out || fail "side A: $(cat out)"
grep -q "^  B: 3 runs (4, 5, 6; series:4, the series of the newest run so labelled)$" out || fail "side B: $(cat out)"
grep -Eq "^  log_write avg ms .* -4[0-6]\.[0-9]% .*  no$" out || fail "log-write mean: $(grep 'log_write avg' out)"
grep -Eq '^  run +db_read +sd ms [0-9.]+ → [0-9.]+ \(-[0-9.]+ %\)' out || fail "read sd not listed: $(cat out)"
grep -q "regression gate (--fail-on-regression 5 %): pass" out || fail "gate: $(grep -A3 'regression gate' out)"
expect_exit 0 "$DISKPROOF" compare "label:cache 90:10" "label:cache 75:25" --format json "${R[@]}"
python3 - out <<'PY' || fail "JSON: $(cat out)"
import json, sys
d = json.load(open(sys.argv[1]))
assert [s["replicates"] for s in d["sides"]] == [3, 3], d["sides"]
ch = {c["figure"]: c for c in d["replicate_test"]["changes"]}
lw = ch["log_write_avg_ms"]
assert -0.46 <= lw["b"] / lw["a"] - 1 <= -0.40, lw
assert not any(c["established"] for c in ch.values()), ch
# the reads: the average within 5 %, the one-second averages' sd under a third
r = [s for s in d["scopes"] if s["scope"] == "run"][0]["classes"]["db_read"]
assert abs(ch["db_read_avg_ms"]["b"] / ch["db_read_avg_ms"]["a"] - 1) < 0.05, ch
assert r["sd_ms"]["b"] * 3 < r["sd_ms"]["a"] and r["sd_ms"]["listed"], r["sd_ms"]
PY

# 75:25 -> 90:10: the stalls come back, the log-write mean established worse
expect_exit 1 "$DISKPROOF" compare "label:cache 75:25" "label:cache 90:10" --fail-on-regression "${R[@]}"
grep -Eq "^  log_write avg ms .* \+[67][0-9]\.[0-9]% .*  yes$" out || fail "back to 90:10: $(cat out)"

# --repeat 1: one run, outside a series, its parameter from the option
expect_exit 0 "$DISKPROOF" run "$E/cache-75-25.ini" --repeat 1 --duration 20s --warmup 0s "${R[@]}"
[ "$(sqlite3 "$WORK/r.db" "SELECT ifnull(series_uuid, 'none') FROM run WHERE id = 7")" = none ] ||
	fail "--repeat 1 made a series"
[ "$(sqlite3 "$WORK/r.db" "SELECT value || ' ' || source FROM param
	WHERE run_id = 7 AND section = 'test' AND key = 'repeat'")" = "1 option" ] || fail "run 7's repeat parameter"
# the profile's series and a fleet start: refused before anything is written
expect_exit 2 "$DISKPROOF" run "$E/cache-75-25.ini" --start-at +10s --results "$WORK/new.db"
grep -q "profile cache-75-25 runs a series (\[test\] repeat = 3), one run after another:$" err &&
	grep -q "^  not with --start-at, --start-file or --ready-file (--repeat 1 runs it once)$" err ||
	fail "$(cat err)"
[ ! -e "$WORK/new.db" ] || fail "the refused run wrote its results file"
echo PASS
