#!/bin/bash
# SPDX-License-Identifier: MIT
# Auto-tune (streams = auto):
# - the threshold search (single streams, no plateau stop): sim, a device
#   that saturates at 3000 IOPS, 20 seeds of latency noise (its log write
#   average crosses the 9 ms margin between 25 streams, 1.7 % under, and 26,
#   1.3 % over: a level right on the line could go either way): the chosen
#   count passes every criterion with the 10 % margin over a long fixed run,
#   and two streams more do not. The main test runs at the chosen count and
#   the steps are stored;
# - levels in whole streams per database (the default): every level tried is
#   a multiple of the databases;
# - the plateau stop: a device whose IOPS flatten past 64 streams while
#   latency stays under the thresholds: the search stops at the step that
#   gained less than 5 % and keeps the level below; without it, it climbs on;
# - the slope transient: a latency that climbs for 20 s then stays flat
#   settles after at least 20 samples and passes; one that climbs for ever
#   never settles and says so (steps table, JSON, event);
# - the margin fallback: a layout within the real thresholds but not the
#   margin (16.5 ms reads, 9.5 ms log writes) runs its main test at the level
#   tried, is judged PASS on the real thresholds, has its per-database
#   figures and says "no level passed auto-tune's 10 % margin; the main test
#   ran at 6 streams" (text, JSON, event); autotune.chosen = run.streams;
#   a device that passes nothing (34 ms reads) fails on the real thresholds;
# - the log order: events in time order (t_ms order = the order written),
#   steps stamped at increasing times, the choice after every step;
# - goal target: the fewest streams reaching the target (3 streams give about
#   1,900 IOPS, 4 about 2,200: a 2,100 IOPS target needs 4);
# - a time bound too short for one level (--duration 30s, autotune_limit =
#   5s) is refused up front (exit 2, nothing written) with the least that
#   holds one; that least (35s) measures a level;
# - real files (io_uring): tuning stays within its time bound and the main test
#   runs at its answer.
source "$(dirname "$0")/lib.sh"
set -e

cp "$DP_SOURCE_DIR/tests/integration/profiles/sim-sat.ini" sat.ini

last_run() { sqlite3 r.db "select max(id) from run"; }
json_of() { "$DISKPROOF" report "$1" --results "$WORK/r.db" --format json; }

# passes_with_margin RUN: every database's read and log write averages within
# 90 % of 20 ms and 10 ms, maxima within 90 ms, no error
passes_with_margin() {
	sqlite3 r.db "select count(*) = 0 from summary where run_id = $1 and scope = 'database' and
		((class = 'db_read' and (avg_ms > 18 or max_ms > 90)) or
		 (class = 'log_write' and (avg_ms > 9 or max_ms > 90)) or errors > 0)"
}
sed 's/^streams = auto/streams = auto\nautotune_step = stream\nautotune_plateau = 0/' sat.ini >search.ini
chosen=""
for seed in $(seq 1 20); do
	sed "s/^seed = .*/seed = $seed/" search.ini >s.ini
	expect_exit 0 "$DISKPROOF" run ./s.ini --results "$WORK/r.db" --quiet
	id=$(last_run)
	c=$(sqlite3 r.db "select streams from run where id = $id")
	steps=$(sqlite3 r.db "select count(*) from autotune_step where run_id = $id")
	[ "$steps" -ge 5 ] || fail "seed $seed: $steps steps stored"
	[ "$(sqlite3 r.db "select value from env where run_id = $id and key = 'autotune_chosen'")" = "$c" ] ||
		fail "seed $seed: the main test did not run at the chosen count"
	[ "$(sqlite3 r.db "select ios > 0 from summary where run_id = $id and scope = 'run' and class = 'db_read'")" = 1 ] ||
		fail "seed $seed: no main test"
	# the same device (seed) for longer, at c and at c + 2 streams
	sed "s/^streams = auto/streams = $c/" s.ini >at.ini
	expect_exit 0 "$DISKPROOF" run ./at.ini --duration 5m --warmup 30s --results "$WORK/r.db" --quiet
	[ "$(passes_with_margin "$((id + 1))")" = 1 ] || fail "seed $seed: $c streams do not pass"
	sed "s/^streams = auto/streams = $((c + 2))/" s.ini >above.ini
	set +e
	"$DISKPROOF" run ./above.ini --duration 5m --warmup 30s --results "$WORK/r.db" --quiet >/dev/null 2>&1
	set -e
	[ "$(passes_with_margin "$((id + 2))")" = 0 ] || fail "seed $seed: $((c + 2)) streams pass too"
	chosen="$chosen $c"
done
echo "chosen over 20 seeds:$chosen"

# whole streams per database (the default), on 3 databases
sed 's/^databases = 2/databases = 3/; s/^streams = auto/streams = auto\nautotune_plateau = 0/' sat.ini >db.ini
expect_exit 0 "$DISKPROOF" run ./db.ini --results "$WORK/r.db" --quiet
id=$(last_run)
levels=$(sqlite3 r.db "select group_concat(streams, ' ') from autotune_step where run_id = $id order by step")
echo "whole streams per database, 3 databases: $levels"
[ "$(sqlite3 r.db "select count(*) from autotune_step where run_id = $id and streams % 3 != 0")" = 0 ] ||
	fail "per database: a level that is not a multiple of 3: $levels"
[ "$(echo "$levels" | wc -w)" -ge 4 ] || fail "per database: levels $levels"
c=$(sqlite3 r.db "select streams from run where id = $id")
[ $((c % 3)) = 0 ] || fail "per database: chose $c"
grep -q "levels of 3 streams" <(sqlite3 r.db "select message from event where run_id = $id") ||
	fail "per database: the first event does not say the levels"
# the main test after tuning runs every chosen stream, evenly: its databases'
# time-averaged streams add up to the count (a virtual clock that the
# generators read before it was set back gave 0 here)
[ "$(sqlite3 r.db "select abs(sum(streams) - $c) <= 0.02 * $c and
	max(streams) <= 1.05 * min(streams) from stream_share
	where run_id = $id and scope = 'database'")" = 1 ] ||
	fail "per database: streams of the main test: $(sqlite3 r.db "select name, streams from stream_share where run_id = $id")"

# the plateau stop: 4 databases on two devices of 4000 IOPS each
cat >plateau.ini <<'INI'
[test]
duration = 1m
[sizing]
database_size = 256MiB
[engine]
name = sim
streams = auto
autotune_limit = 1h
autotune_window = 5s
[sim]
read_latency = 4ms
write_latency = 5ms
log_write_latency = 1ms
jitter = 20%
saturation_iops = 4000
seed = 5
[volume v1]
path = /nonexistent/v1
databases = 2
[volume v2]
path = /nonexistent/v2
databases = 2
INI
expect_exit 0 "$DISKPROOF" run ./plateau.ini --results "$WORK/r.db"
id=$(last_run)
grep -q "auto-tune chose [0-9]* streams .*IOPS flattened: [0-9]* streams give [0-9]* IOPS, [-+][0-9.]* % over [0-9]* streams' [0-9]* (less than the 5 % plateau)" out err ||
	fail "plateau: $(grep 'auto-tune chose' out err)"
c=$(sqlite3 r.db "select streams from run where id = $id")
# the last step is the one that flattened: passed, more streams, < 5 % more IOPS than c's
sqlite3 r.db "select step, streams, iops, passed from autotune_step where run_id = $id order by step"
[ "$(sqlite3 r.db "select l.passed and l.streams > s.streams and l.iops < 1.05 * s.iops
	from autotune_step l, autotune_step s where l.run_id = $id and s.run_id = $id and
	l.step = (select max(step) from autotune_step where run_id = $id) and s.streams = $c")" = 1 ] ||
	fail "plateau: the last step does not show the flat gain over $c streams"
# and the chosen level had gained at least 5 % over the one before it
[ "$(sqlite3 r.db "select c.iops >= 1.05 * b.iops from autotune_step c, autotune_step b
	where c.run_id = $id and b.run_id = $id and c.streams = $c and b.step = c.step - 1")" = 1 ] ||
	fail "plateau: $c streams did not gain 5 % over the level below"
sed 's/^streams = auto/streams = auto\nautotune_plateau = 0/' plateau.ini >noplateau.ini
expect_exit 0 "$DISKPROOF" run ./noplateau.ini --results "$WORK/r.db" --quiet
c0=$(sqlite3 r.db "select streams from run where id = $(last_run)")
echo "plateau: $c streams; without the plateau stop: $c0"
[ "$c0" -gt "$c" ] || fail "without the plateau stop it chose $c0, with it $c"

# the slope transient: 0.3 ms more per second for 20 s, then flat
sed 's/^streams = auto/streams = auto\nautotune_slope_window = 10\nautotune_transient_max = 60s/;
     s/^jitter = .*/jitter = 20%\nlatency_drift = 0.3ms\nlatency_drift_time = 20s/' sat.ini >drift.ini
expect_exit 0 "$DISKPROOF" run ./drift.ini --results "$WORK/r.db" --quiet
id=$(last_run)
ev=$(sqlite3 r.db "select message from event where run_id = $id and kind = 'autotune_step' order by t_ms, rowid limit 1")
echo "$ev"
n=$(echo "$ev" | sed -n 's/^auto-tune: 2 streams (settled after \([0-9]*\) samples): .*: pass: .*/\1/p')
[ -n "$n" ] && [ "$n" -ge 20 ] && [ "$n" -le 40 ] || fail "transient: the first level: $ev"
# ... and one that climbs for ever
sed 's/^latency_drift_time = .*/latency_drift_time = 0s/' drift.ini >never.ini
expect_exit 1 "$DISKPROOF" run ./never.ini --results "$WORK/r.db"
id=$(last_run)
[ "$(sqlite3 r.db "select count(*) from autotune_step where run_id = $id and passed = 0 and
	reason like 'latency did not settle in 60 samples: database read slope +0.___ ms per sample over the last 10 (at most 0.100)'")" = 1 ] ||
	fail "never settles: steps $(sqlite3 r.db "select * from autotune_step where run_id = $id")"
grep -q "auto-tune: 2 streams: [0-9]* IOPS, .*: fail: latency did not settle in 60 samples" \
	<(sqlite3 r.db "select message from event where run_id = $id and kind = 'autotune_step'") ||
	fail "never settles: no event"
json_of "$id" >never.json
python3 - never.json <<'PY' || fail "never settles: JSON"
import json, sys
d = json.load(open(sys.argv[1]))
a = d["autotune"]
assert a["steps"][0]["reason"].startswith("latency did not settle"), a
assert not a["steps"][0]["passed"], a
assert a["chosen"] == d["run"]["streams"] == 2, a
PY
"$DISKPROOF" report "$id" --results "$WORK/r.db" >never.txt
grep -q "^     1 .*  2 .*fail    latency did not settle in 60 samples" never.txt || { cat never.txt; fail "never settles: text report"; }

# the margin fallback: within the real thresholds, not within the margin
cat >fallback.ini <<'INI'
[test]
duration = 1m
warmup = 10s
[sizing]
database_size = 256MiB
[engine]
name = sim
streams = auto
autotune_limit = 1h
autotune_window = 10s
[sim]
read_latency = 16.5ms
write_latency = 3ms
log_write_latency = 9.5ms
jitter = 0%
[volume v1]
path = /nonexistent/v1
databases = 3
[volume v2]
path = /nonexistent/v2
databases = 3
INI
note="no level passed auto-tune's 10 % margin; the main test ran at 6 streams"
expect_exit 0 "$DISKPROOF" run ./fallback.ini --results "$WORK/r.db"
id=$(last_run)
grep -qF "$note" out || { cat out; fail "fallback: the text report does not say it"; }
grep -q "^db1 \|db1 " out || true
[ "$(sqlite3 r.db "select status || ' ' || verdict || ' ' || streams from run where id = $id")" = "passed PASS 6" ] ||
	fail "fallback: run row $(sqlite3 r.db "select status, verdict, streams from run where id = $id")"
[ "$(sqlite3 r.db "select count(*) from event where run_id = $id and kind = 'autotune' and message like '$(echo "$note" | sed "s/'/''/g")%'")" = 1 ] ||
	fail "fallback: no event"
[ "$(sqlite3 r.db "select count(*) from verdict where run_id = $id and criterion = 'autotune_streams'")" = 0 ] ||
	fail "fallback: an autotune_streams verdict"
json_of "$id" >fallback.json
python3 - fallback.json "$note" <<'PY' || fail "fallback: JSON"
import json, sys
d = json.load(open(sys.argv[1]))
a = d["autotune"]
assert a["note"] == sys.argv[2], a["note"]
assert a["chosen"] == d["run"]["streams"] == 6, (a["chosen"], d["run"]["streams"])
assert not any(s["passed"] for s in a["steps"]), a["steps"]
dbs = d["databases"]
assert len(dbs) == 6, len(dbs)
for db in dbs:
    assert db["classes"]["db_read"]["ios"] > 0, db
    assert abs(db["classes"]["db_read"]["avg_ms"] - 16.5) < 0.1, db
    assert abs(db["classes"]["log_write"]["avg_ms"] - 9.5) < 0.1, db
PY
# a device that passes nothing: the main test runs all the same and fails
# on the real thresholds
sed 's/^read_latency = .*/read_latency = 34ms/; s/^databases = 2/databases = 1/; s/^jitter = .*/jitter = 0%/' \
	sat.ini >slow.ini
expect_exit 1 "$DISKPROOF" run ./slow.ini --results "$WORK/r.db"
grep -q "no level passed auto-tune's 10 % margin; the main test ran at 1 streams (auto-tune, [0-9]* s, goal max: no level passes: at 1 stream database read average 34.[0-9] ms (db1) > 18.0 ms" out err ||
	fail "never passes: $(cat out err)"
id=$(last_run)
[ "$(sqlite3 r.db "select status || ' ' || verdict || ' ' || streams from run where id = $id")" = "failed FAIL 1" ] ||
	fail "never passes: run row"
[ "$(sqlite3 r.db "select passed from verdict where run_id = $id and scope = 'database' and criterion = 'db_read_avg_ms'")" = 0 ] ||
	fail "never passes: no failing database read verdict"

# the log order, on the runs above: events read in time order are the events
# in the order written; steps at increasing times; the choice after them all,
# the main test's warm-up end after the choice
for id in $(sqlite3 r.db "select run_id from env where key = 'autotune_chosen'"); do
	a=$(sqlite3 r.db "select group_concat(rowid) from (select rowid from event where run_id = $id order by t_ms, rowid)")
	b=$(sqlite3 r.db "select group_concat(rowid) from (select rowid from event where run_id = $id order by rowid)")
	[ "$a" = "$b" ] || { sqlite3 r.db "select t_ms, kind, substr(message, 1, 60) from event where run_id = $id"; fail "run $id: events out of time order"; }
	[ "$(sqlite3 r.db "select count(*) from event a, event b where a.run_id = $id and b.run_id = $id and
		a.kind = 'autotune_step' and b.kind = 'autotune_step' and a.rowid < b.rowid and a.t_ms >= b.t_ms")" = 0 ] ||
		fail "run $id: two steps at the same time"
	last=$(sqlite3 r.db "select kind || ' ' || substr(message, 1, 18) from event where run_id = $id and kind like 'autotune%' order by rowid desc limit 1")
	case "$last" in
	"autotune auto-tune chose "* | "autotune no level passed "*) ;;
	*) fail "run $id: the last auto-tune event is: $last" ;;
	esac
	[ "$(sqlite3 r.db "select count(*) from event w, event c where w.run_id = $id and c.run_id = $id and
		w.kind = 'warmup_end' and c.kind = 'autotune' and w.t_ms < c.t_ms")" = 0 ] ||
		fail "run $id: the warm-up ended before auto-tune's events"
done
# the text report's steps carry their times, increasing
"$DISKPROOF" report "$(sqlite3 r.db "select max(run_id) from autotune_step where run_id in (select run_id from env where key = 'autotune_chosen')")" \
	--results "$WORK/r.db" >steps.txt
awk '/^  step     t \(s\)/ {on = 1; next} on && /^ +[0-9]+ +[0-9.]+ / {if ($2 <= prev) bad = 1; prev = $2; n++} on && /^$/ {on = 0}
	END {exit !(n >= 1 && !bad)}' steps.txt || { cat steps.txt; fail "text report: step times"; }

# goal target
sed 's/^\[sizing\]/[sizing]\ntarget_iops = 2100/; s/^streams = auto/streams = auto\nautotune_goal = target/' \
	sat.ini >target.ini
expect_exit 0 "$DISKPROOF" run ./target.ini --results "$WORK/r.db"
[ "$(sqlite3 r.db "select streams from run where id = (select max(id) from run)")" = 4 ] ||
	fail "goal target: $(grep 'auto-tune chose' out err)"
grep -q "auto-tune chose 4 streams .*(goal target): 4 streams are the fewest that reach 2100 IOPS" out err ||
	fail "goal target: why"
# goal target without a target is a usage error
sed 's/^streams = auto/streams = auto\nautotune_goal = target/' sat.ini >notarget.ini
expect_exit 2 "$DISKPROOF" run ./notarget.ini --results "$WORK/r.db"
grep -q "autotune_goal = target needs a target" err || fail "no target: $(cat err)"

# a time bound that cannot hold one level (sim, the default bound: a fifth of
# --duration 30s is 6 s; a level takes a 5-sample slope window and a 2 s
# window, 7 s) is refused before anything is written, naming the least
# duration (35s) and bound (7s); at 35s one level is measured and stored;
# an autotune_limit too short is named the same way
S="$DP_SOURCE_DIR/tests/integration/profiles/sim.ini"
for cmd in run plan; do
	expect_exit 2 "$DISKPROOF" $cmd "$S" --streams auto --duration 30s --results "$WORK/short.db"
	grep -q "^--duration 30s: auto-tune's time bound, 6s (a fifth of the duration), cannot hold one level, which takes 7s .*a duration of 35s or more holds one, or set autotune_limit = 7s or more" err ||
		fail "$cmd --duration 30s: $(cat err)"
	[ ! -e short.db ] || fail "$cmd --duration 30s: a results file was written"
done
expect_exit 0 "$DISKPROOF" run "$S" --streams auto --duration 35s --results "$WORK/short.db" --quiet
[ "$(sqlite3 short.db "select count(*) from autotune_step")" -ge 1 ] || fail "35s: no level measured"
sed 's/^streams = .*/streams = auto\nautotune_limit = 5s/' "$S" >limit.ini
expect_exit 2 "$DISKPROOF" run ./limit.ini --results "$WORK/short2.db"
grep -q "^./limit.ini:[0-9]*: \[engine\] autotune_limit: auto-tune's time bound, 5s (autotune_limit), cannot hold one level, which takes 7s .*set autotune_limit = 7s or more" err ||
	fail "autotune_limit = 5s: $(cat err)"
[ ! -e short2.db ] || fail "autotune_limit = 5s: a results file was written"

# real files: a 20 s bound, 2 s windows, a 3-sample slope
skip_without_uring
sed 's/^streams = 4/streams = auto\nautotune_limit = 20s\nautotune_window = 2s\nautotune_slope_window = 3/' \
	"$DP_SOURCE_DIR/tests/integration/profiles/tiny.ini" >real.ini
grep -q "streams = auto" real.ini || fail "real.ini"
start=$(date +%s)
set +e
"$DISKPROOF" run ./real.ini --data-dir "$WORK/d" --results "$WORK/r.db" >out 2>err
rc=$?
set -e
[ $rc = 0 ] || [ $rc = 1 ] || { cat err; fail "auto-tune on real files: exit $rc"; }
id=$(sqlite3 r.db "select max(id) from run")
msg=$(sqlite3 r.db "select message from event where run_id = $id and kind = 'autotune' and
	(message like 'auto-tune chose%' or message like 'no level passed%')")
echo "$msg"
took=$(echo "$msg" | sed -n 's/.* in \([0-9]*\) s[ :].*/\1/p; s/.*(auto-tune, \([0-9]*\) s, .*/\1/p')
[ -n "$took" ] && [ "$took" -le 21 ] ||
	{ sqlite3 r.db "select message from event where run_id = $id"; fail "tuning took ${took:-?} s, bound 20 s"; }
c=$(sqlite3 r.db "select streams from run where id = $id")
[ "$(sqlite3 r.db "select value from env where run_id = $id and key = 'autotune_chosen'")" = "$c" ] ||
	fail "main test streams $c"
[ "$(sqlite3 r.db "select duration_s from run where id = $id")" = 3.0 ] || fail "main test duration"
[ $(( $(date +%s) - start )) -lt 40 ] || fail "took too long in all"
echo "ok"
