#!/bin/bash
# SPDX-License-Identifier: MIT
# compare decides (issue 18), on sim runs of tests/integration/profiles/sim.ini:
# run 1 (label "base"), run 2 (label "fw 2.1": reads 20 % slower), run 3 (run
# 1 again: identical data), run 4 (the same mean, jitter 50 % instead of
# 20 %), runs 5 and 6 (auto-tuned on a device saturating at 3000 and 3450
# IOPS). Asserts: the default listing is short, has the real change and no
# "+0.0 %" line, --all lists every figure; JSON keeps every figure with its
# listed/material flags; the dispersion-only change is flagged (Brown-
# Forsythe) with its change %; three runs give a trend against the baseline;
# latest~N and label: select runs (an unknown label exits 2 with a
# suggestion); --fail-on-regression exits 5 (one run a side: inconclusive) on
# the 20 % read regression and 0
# on a self-compare, on a change below PCT and on an improvement; auto-tune
# steps side by side.
source "$(dirname "$0")/lib.sh"
set -e
P="$DP_SOURCE_DIR/tests/integration/profiles/sim.ini"
R=(--results "$WORK/r.db")

sed 's/^read_latency = .*/read_latency = 2.4ms/' "$P" >slow.ini
sed 's/^jitter = .*/jitter = 50%/' "$P" >jitter.ini
sed -e 's/^streams = .*/streams = auto\nautotune_limit = 1h\nautotune_window = 5s/' \
	-e 's/^seed = .*/&\nsaturation_iops = 3000/' "$P" >tune.ini
sed 's/^saturation_iops = .*/saturation_iops = 3450/' tune.ini >tune2.ini
grep -q "^read_latency = 2.4ms" slow.ini && grep -q "^jitter = 50%" jitter.ini &&
	grep -q "^saturation_iops = 3450" tune2.ini || fail "sed did not change the profiles"

expect_exit 0 "$DISKPROOF" run "$P" --duration 2m --quiet --label base "${R[@]}"        # 1
expect_exit 0 "$DISKPROOF" run ./slow.ini --duration 2m --quiet --label "fw 2.1" "${R[@]}" # 2
expect_exit 0 "$DISKPROOF" run "$P" --duration 2m --quiet "${R[@]}"                     # 3
expect_exit 0 "$DISKPROOF" run ./jitter.ini --duration 2m --quiet "${R[@]}"             # 4
expect_exit 0 "$DISKPROOF" run ./tune.ini --duration 1m --warmup 10s --quiet "${R[@]}"  # 5
expect_exit 0 "$DISKPROOF" run ./tune2.ini --duration 1m --warmup 10s --quiet "${R[@]}" # 6

# --- the default listing: short, the real change, no +0.0 %
expect_exit 0 "$DISKPROOF" compare 1 2 "${R[@]}"
cp out list.txt
grep -q "^  run        db_read        .*avg ms 2.000 → 2.400 (+20.0 %)" list.txt ||
	fail "the run's db_read avg change is not listed: $(cat list.txt)"
! grep -q "+0.0 %" list.txt || fail "a +0.0 % line is listed: $(grep -n '+0.0 %' list.txt)"
! grep -q "^volume v1 (1 s intervals)" list.txt || fail "the default shows the full tables"
n=$(sed -n '/^changes (significant and at least 2 %):$/,/^$/p' list.txt | wc -l)
[ "$n" -ge 3 ] && [ "$n" -le 24 ] || fail "changes block of $n lines (want a short list)"
[ "$(wc -l <list.txt)" -le 55 ] || fail "default compare output of $(wc -l <list.txt) lines"
grep -q "^listed: changes both significant and at least 2 % (--min-change)" list.txt ||
	fail "the filter is not named"

# --all: every figure, as before
expect_exit 0 "$DISKPROOF" compare 1 2 --all "${R[@]}"
grep -q "^volume v1 (1 s intervals)" out && grep -q "^database db4 on v2 (15 s intervals)" out ||
	fail "--all lacks the scope tables"
[ "$(grep -c '^  .* [+-][0-9.]*% ' out)" -ge 77 ] || fail "--all lists fewer than 77 rows"

# JSON keeps every figure with its flags; listed = significant and material
expect_exit 0 "$DISKPROOF" compare 1 2 --format json "${R[@]}"
cp out list.json
figs='[f for s in d["scopes"] for k in s["classes"].values() for f in
	[k[m] for m in ("iops", "avg_ms", "p50_ms", "p99_ms", "max_ms", "sd_ms")]] +
	[s["transactional_iops"] for s in d["scopes"]]'
[ "$(json "len($figs)")" = $((7 * (6 * 6 + 1))) ] || fail "JSON lost figures: $(json "len($figs)")"
[ "$(json "all(f['listed'] == (f['significant'] and f['material']) for f in $figs)")" = True ] ||
	fail "listed is not significant and material"
[ "$(json "sum(f['listed'] for f in $figs) == d['listed'] > 0")" = True ] || fail "listed count"
[ "$(json "all(abs(f['change_pct']) >= 2 for f in $figs if f['listed'] and f['change_pct'] is not None)")" = True ] ||
	fail "a listed change below 2 %"
[ "$(json 'd["min_change_pct"]')" = 2 ] || fail "min_change_pct"
[ "$(json 'd["dispersion_test"]')" = "Brown-Forsythe on per-interval means" ] || fail "dispersion test"

# --min-change 60: none of the changes (about 20 %, v1's log_read dispersion
# +48 %) is material
expect_exit 0 "$DISKPROOF" compare 1 2 --min-change 60 "${R[@]}"
grep -A1 "^changes (significant and at least 60 %):" out | grep -q "^  none$" ||
	fail "--min-change 60 still lists: $(cat out)"
expect_exit 2 "$DISKPROOF" compare 1 2 --min-change lots "${R[@]}"
expect_exit 2 "$DISKPROOF" compare 1 2 --min-chnage=3 "${R[@]}"
grep -q "did you mean --min-change?" err || fail "no did-you-mean: $(cat err)"

# --- identical data and self-compare: no change
for pair in "1 3" "1 1"; do
	expect_exit 0 "$DISKPROOF" compare $pair --fail-on-regression "${R[@]}"
	grep -A1 "^changes (significant and at least 2 %):" out | grep -q "^  none$" ||
		fail "compare $pair lists a change: $(cat out)"
	grep -q "^regression gate (--fail-on-regression 5 %): pass" out || fail "compare $pair: gate"
done

# --- dispersion only: same mean, jitter 50 % instead of 20 %
expect_exit 0 "$DISKPROOF" compare 1 4 --format json "${R[@]}"
rd='d["scopes"][0]["classes"]["db_read"]'
[ "$(json "$rd['sd_ms']['significant'] and $rd['sd_ms']['listed'] and $rd['sd_ms']['method'] == 'f'")" = True ] ||
	fail "db_read dispersion not flagged: $(json "$rd['sd_ms']")"
[ "$(json "$rd['sd_ms']['change_pct'] > 50 and $rd['sd_ms']['p_value'] < 0.01")" = True ] ||
	fail "db_read dispersion change: $(json "$rd['sd_ms']")"
[ "$(json "abs($rd['avg_ms']['change_pct']) < 1 and not $rd['avg_ms']['listed']")" = True ] ||
	fail "the mean moved: $(json "$rd['avg_ms']")"
expect_exit 0 "$DISKPROOF" compare 1 4 "${R[@]}"
grep -Eq "^  run        db_read .*sd ms [0-9.]+ → [0-9.]+ \(\+[0-9.]+ %\)" out ||
	fail "text lacks the dispersion change: $(cat out)"

# --- three runs: each against the baseline, with a trend
expect_exit 0 "$DISKPROOF" compare label:base 2 3 "${R[@]}"
grep -q "^diskproof compare: 3 runs, each against run 1 (A, the baseline)" out || fail "3-run head"
grep -q "^trend (whole run; change against the baseline, run 1; \* significant):" out ||
	fail "no trend: $(cat out)"
grep -Eq "^  db_read avg ms +2\.000 +2\.400 +\+20\.0%\* +2\.000 +\+0\.0%$" out ||
	fail "trend row: $(grep 'db_read avg ms' out)"
grep -q "^=== B2: run 3 (B) against run 1 (A) ===" out || fail "no B2 section"
expect_exit 0 "$DISKPROOF" compare 1 2 3 --format json "${R[@]}"
t='{x["figure"]: x["runs"] for x in d["trend"]}'
[ "$(json "[r['id'] for r in ($t)['db_read_avg_ms']]")" = "[1, 2, 3]" ] || fail "trend ids"
[ "$(json "19 < ($t)['db_read_avg_ms'][1]['change_pct'] < 21 and ($t)['db_read_avg_ms'][1]['significant']")" = True ] ||
	fail "trend: run 2's change"
[ "$(json "($t)['db_read_avg_ms'][2]['change_pct'] == 0 and not ($t)['transactional_iops'][2]['significant']")" = True ] ||
	fail "trend: run 3's change"
[ "$(json 'len(d["comparisons"]) == 2 and d["against"] == "baseline" and d["baseline"]["id"] == 1')" = True ] ||
	fail "comparisons"

# --- selectors
expect_exit 0 "$DISKPROOF" compare latest~5 latest~4 --format json "${R[@]}"
[ "$(json '(d["a"]["id"], d["b"]["id"])')" = "(1, 2)" ] || fail "latest~5 latest~4"
expect_exit 0 "$DISKPROOF" compare 'label:fw 2.1' latest --format json "${R[@]}"
[ "$(json '(d["a"]["id"], d["b"]["id"])')" = "(2, 6)" ] || fail "label: and latest"
expect_exit 0 "$DISKPROOF" report latest~1 --format json "${R[@]}"
[ "$(json 'd["run"]["id"]')" = 5 ] || [ "$(json 'd["id"]')" = 5 ] || fail "report latest~1"
expect_exit 2 "$DISKPROOF" compare label:fw2.1 1 "${R[@]}"
grep -q 'no run labelled "fw2.1"' err && grep -q 'did you mean "fw 2.1" (run 2)?' err ||
	fail "unknown label: $(cat err)"
expect_exit 2 "$DISKPROOF" compare latest~6 1 "${R[@]}"
grep -q "only 6 run(s)" err || fail "latest~6: $(cat err)"
expect_exit 2 "$DISKPROOF" compare latest~x 1 "${R[@]}"
expect_exit 2 "$DISKPROOF" report label: "${R[@]}"

# --- the regression gate: one run a side never fails it (issue 31): a
# change beyond PCT is inconclusive, exit 5, with the runs that would decide
expect_exit 5 "$DISKPROOF" compare 1 2 --fail-on-regression "${R[@]}"
grep -q "inconclusive: a judged figure is worse by more than 5 %" err ||
	fail "the gate does not say why: $(cat err)"
grep -q "^regression gate (--fail-on-regression 5 %): inconclusive" out || fail "gate not in the output"
grep -q "^  db_read avg ms  *2.000  *2.400  *+20.0% .*no (one run on a side)$" out ||
	fail "the change is not shown: $(cat out)"
expect_exit 0 "$DISKPROOF" compare 1 2 --fail-on-regression=25 "${R[@]}"
# a bare number after the option is neither taken as the percentage nor as a
# run: refused, nothing compared (a CI gate must not guess)
expect_exit 2 "$DISKPROOF" compare 1 2 --fail-on-regression 25 "${R[@]}"
grep -q "write the percentage as --fail-on-regression=25" err || fail "bare gate value: $(cat err)"
[ ! -s out ] || fail "bare gate value: something was printed"
expect_exit 0 "$DISKPROOF" compare 2 1 --fail-on-regression "${R[@]}" # faster: no regression
expect_exit 5 "$DISKPROOF" compare 1 3 2 --fail-on-regression=10% --format json "${R[@]}"
[ "$(json 'd["regression_gate"]["outcome"] == "inconclusive" and d["regression_gate"]["regressions"] == []')" = True ] ||
	fail "3-run gate: $(json 'd["regression_gate"]')"
expect_exit 2 "$DISKPROOF" compare 1 2 --fail-on-regression=x "${R[@]}"

# --- auto-tune steps side by side
expect_exit 0 "$DISKPROOF" compare 5 6 --format json "${R[@]}"
cp out tune.json
expect_exit 0 "$DISKPROOF" report 5 --format json "${R[@]}"
cp out r5.json
python3 - tune.json r5.json <<'EOF2' || fail "auto-tune steps in the JSON"
import json, sys
c = json.load(open(sys.argv[1]))["autotune"]
r = json.load(open(sys.argv[2]))["autotune"]
if [s["streams"] for s in c["a"]["steps"]] != [s["streams"] for s in r["steps"]]:
    sys.exit("steps of A %s, report %s" % (c["a"]["steps"], r["steps"]))
if len(c["b"]["steps"]) < 2 or c["a"]["chosen"] != r["chosen"]:
    sys.exit("B steps or chosen: %s" % c)
EOF2
expect_exit 0 "$DISKPROOF" compare 5 6 "${R[@]}"
grep -q "^auto-tune steps (A | B; IOPS transactional, read and log averages in ms):" out ||
	fail "no auto-tune side by side: $(cat out)"
[ "$(grep -cE '^ +[0-9]+ +[0-9]+ +[0-9.]+ .*\| +[0-9]+ ' out)" -ge 2 ] || fail "auto-tune rows"
grep -Eq "^  A: (chose [0-9]+ streams|no level passed)" out || fail "auto-tune outcome of A"
expect_exit 0 "$DISKPROOF" compare 5 6 --format html -o tune.html "${R[@]}"
python3 - tune.html tune.json <<'EOF2' || fail "auto-tune steps in the HTML"
import json, re, sys
page = open(sys.argv[1]).read()
c = json.load(open(sys.argv[2]))["autotune"]
sec = page[page.index('<section id="autotune"'):]
sec = sec[:sec.index('</section>')]
rows = re.findall(r'<tr class="tune-pair"><td class="num">(\d+)</td><td class="num">(\d+)</td>', sec)
want = [(str(i + 1), str(s["streams"])) for i, s in enumerate(c["a"]["steps"])]
if rows[:len(want)] != want or len(rows) != max(len(c["a"]["steps"]), len(c["b"]["steps"])):
    sys.exit("rows %s, want %s" % (rows, want))
EOF2
expect_exit 0 "$DISKPROOF" compare 1 2 --format json "${R[@]}"
[ "$(json 'd["autotune"]')" = None ] || fail "autotune not null for untuned runs"
expect_exit 0 "$DISKPROOF" compare 1 2 --format html -o plain.html "${R[@]}"
! grep -q '<section id="autotune"' plain.html || fail "an auto-tune section for untuned runs"
grep -q '<tr class="change"><td>run</td><td>db_read</td><td>[^<]*avg ms 2.000 → 2.400 (+20.0 %)' plain.html ||
	fail "the HTML lists no grouped db_read change"
[ "$(grep -c '<tr class="change">' plain.html)" = "$(sed -n '/^changes (/,/^$/p' list.txt | grep -c '^  [a-z]')" ] ||
	fail "HTML and text list different lines"
! grep -q '<section id="gate"' plain.html || fail "a gate section without --fail-on-regression"
echo "ok"
