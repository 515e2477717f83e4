#!/bin/bash
# Auto-tune (streams = auto):
# - sim, a device that saturates at 3000 IOPS, 20 seeds of latency noise (its
#   log write average crosses the 9 ms margin between 25 streams, 1.7 % under,
#   and 26, 1.3 % over: a level right on the line could go either way): the
#   chosen count passes every criterion with the 10 % margin over a long fixed
#   run, and two streams more do not: it is the highest passing level, or one
#   below it. The main test runs at the chosen count and the steps are stored;
# - goal target: the fewest streams reaching the target (3 streams give about
#   1,900 IOPS, 4 about 2,200: a 2,100 IOPS target needs 4);
# - a device that never passes: exit 1, "no level passes: at 1 stream ...";
# - real files (io_uring): tuning stays within its time bound and the main test
#   runs at its answer.
source "$(dirname "$0")/lib.sh"
set -e

cat >sat.ini <<'INI'
[test]
duration = 1m
[sizing]
database_size = 256MiB
[engine]
name = sim
streams = auto
autotune_limit = 2h
autotune_window = 10s
[sim]
read_latency = 2ms
write_latency = 3ms
log_write_latency = 850us
saturation_iops = 3000
jitter = 20%
seed = 1
[volume v1]
path = /nonexistent/v1
databases = 2
INI

# passes_with_margin RUN: every database's read and log write averages within
# 90 % of 20 ms and 10 ms, maxima within 90 ms, no error
passes_with_margin() {
	sqlite3 r.db "select count(*) = 0 from summary where run_id = $1 and scope = 'database' and
		((class = 'db_read' and (avg_ms > 18 or max_ms > 90)) or
		 (class = 'log_write' and (avg_ms > 9 or max_ms > 90)) or errors > 0)"
}
chosen=""
for seed in $(seq 1 20); do
	sed "s/^seed = .*/seed = $seed/" sat.ini >s.ini
	expect_exit 0 "$DISKPROOF" run ./s.ini --results "$WORK/r.db" --quiet
	id=$(sqlite3 r.db "select max(id) from run")
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

# a device that never passes
sed 's/^read_latency = .*/read_latency = 34ms/; s/^databases = 2/databases = 1/; s/^jitter = .*/jitter = 0%/' \
	sat.ini >slow.ini
expect_exit 1 "$DISKPROOF" run ./slow.ini --results "$WORK/r.db"
grep -q "auto-tune found no passing level in [0-9]* s: no level passes: at 1 stream database read average 34.[0-9] ms (db1) > 18.0 ms" out err ||
	fail "never passes: $(cat out err)"
id=$(sqlite3 r.db "select max(id) from run")
[ "$(sqlite3 r.db "select status || ' ' || verdict from run where id = $id")" = "failed FAIL" ] ||
	fail "never passes: run row"
[ "$(sqlite3 r.db "select passed from verdict where run_id = $id and criterion = 'autotune_streams'")" = 0 ] ||
	fail "never passes: verdict"

# real files: a 20 s bound, 2 s windows
skip_without_uring
sed 's/^streams = 4/streams = auto\nautotune_limit = 20s\nautotune_window = 2s/; s/^duration = 3s/duration = 3s/' \
	"$DP_SOURCE_DIR/tests/integration/profiles/tiny.ini" >real.ini
grep -q "streams = auto" real.ini || fail "real.ini"
start=$(date +%s)
set +e
"$DISKPROOF" run ./real.ini --data-dir "$WORK/d" --results "$WORK/r.db" >out 2>err
rc=$?
set -e
[ $rc = 0 ] || [ $rc = 1 ] || { cat err; fail "auto-tune on real files: exit $rc"; }
id=$(sqlite3 r.db "select max(id) from run")
msg=$(sqlite3 r.db "select message from event where run_id = $id and
	(message like 'auto-tune chose%' or message like 'auto-tune found no passing level%')")
echo "$msg"
took=$(echo "$msg" | sed -n 's/.* in \([0-9]*\) s[ :].*/\1/p')
[ -n "$took" ] && [ "$took" -le 21 ] ||
	{ sqlite3 r.db "select message from event where run_id = $id"; fail "tuning took ${took:-?} s, bound 20 s"; }
c=$(sqlite3 r.db "select streams from run where id = $id")
if [ "$msg" != "${msg#auto-tune found no passing level}" ]; then
	# a loaded disk may pass no level at all: then there is no main test
	[ $rc = 1 ] && [ "$c" = 0 ] || fail "no level passed, yet exit $rc and $c streams"
else
	[ "$msg" != "${msg#auto-tune chose $c streams}" ] || fail "main test streams $c"
	[ "$(sqlite3 r.db "select duration_s from run where id = $id")" = 3.0 ] || fail "main test duration"
fi
[ $(( $(date +%s) - start )) -lt 40 ] || fail "took too long in all"
echo "ok"
