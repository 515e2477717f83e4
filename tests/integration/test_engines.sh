#!/bin/bash
# SPDX-License-Identifier: MIT
# The same profile on every real engine: tiny.ini run for 3 s with --engine
# io_uring, libaio and psync on real files. Each run must be judged on its
# thresholds alone (exit 0 or 1, never an error), record reads and writes of
# every class for the run and for each volume, with no I/O or integrity
# error, and name its engine in the report and in its env facts. Skipped (77)
# when an engine cannot be tried here (libaio not built in, or a kernel
# without io_uring), after the others have passed.
source "$(dirname "$0")/lib.sh"
set -e

skipped=""
for engine in io_uring libaio psync; do
	rm -rf "$WORK/data" "$WORK/r.db"*
	set +e
	"$DISKPROOF" run "$DP_SOURCE_DIR/tests/integration/profiles/tiny.ini" --engine "$engine" \
		--data-dir "$WORK/data" --duration 3s --warmup 1s --results "$WORK/r.db" \
		>"$WORK/run.out" 2>"$WORK/run.err"
	rc=$?
	set -e
	if [ $rc = 3 ] && grep -q "engine $engine is not available: built without" "$WORK/run.err"; then
		skipped="$skipped; $(grep -m1 "not available" "$WORK/run.err")"
		continue
	fi
	if [ $rc = 3 ] && [ "$engine" = io_uring ] && grep -q "io_uring: " "$WORK/run.err"; then
		skipped="$skipped; $(grep -m1 "io_uring: " "$WORK/run.err")"
		continue
	fi
	# the verdict depends on this disk; the run must have completed and been judged
	[ $rc = 0 ] || [ $rc = 1 ] || { cat "$WORK/run.err"; fail "$engine: run exited $rc"; }
	grep -q "engine $engine," "$WORK/run.out" || fail "$engine: not named in the run's header"

	expect_exit 0 "$DISKPROOF" report latest --format json --results "$WORK/r.db"
	[ "$(json 'd["run"]["engine"]')" = "$engine" ] || fail "$engine: engine in the report"
	want=$([ $rc = 0 ] && echo passed || echo failed)
	[ "$(json 'd["run"]["status"]')" = "$want" ] || fail "$engine: status does not match exit $rc"
	for cls in db_read db_write log_write; do
		[ "$(json "d['summary']['classes']['$cls']['ios'] > 0")" = True ] ||
			fail "$engine: no $cls recorded"
		for i in 0 1; do
			[ "$(json "d['volumes'][$i]['classes']['$cls']['ios'] > 0")" = True ] ||
				fail "$engine: volume $i: no $cls recorded"
		done
	done
	[ "$(json 'sum(c["errors"] for c in d["summary"]["classes"].values())')" = 0 ] ||
		fail "$engine: I/O errors: $(cat "$WORK/run.out")"
	# a failed run failed on latency, never on I/O errors or integrity
	[ "$(json 'all(v["passed"] for v in d["verdicts"] if v["criterion"] in ("io_errors", "integrity_errors"))')" = True ] ||
		fail "$engine: error criteria failed"
	[ "$(json 'len(d["verdicts"]) > 0')" = True ] || fail "$engine: no verdicts"
	[ -n "$(sqlite3 "$WORK/r.db" "select value from env where run_id=1 and key='engine_notes'")" ] ||
		fail "$engine: no engine_notes env fact"
	echo "$engine: exit $rc, $(json 'd["summary"]["classes"]["db_read"]["ios"]') db reads," \
		"$(json 'd["summary"]["classes"]["log_write"]["ios"]') log writes"
done

if [ -n "$skipped" ]; then
	echo "skipped:${skipped#;}"
	exit 77
fi
echo "ok"
