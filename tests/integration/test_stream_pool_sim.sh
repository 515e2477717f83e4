#!/bin/bash
# SPDX-License-Identifier: MIT
# The stream pool on a uniform simulated device, in virtual time: 15
# databases (5 volumes of 3) at 16 and 45 streams, and at 4 (fewer streams
# than databases, no longer refused), give every database the same
# transactional IOPS and the same time-averaged streams within 5 %
# (report --format json), and the databases' streams add up to the run's.
# Before the pool, 16 streams on 15 databases gave db1 two streams and
# twice the IOPS of the others.
source "$(dirname "$0")/lib.sh"
set -e

cat >p15.ini <<'INI'
[test]
duration = 3m
warmup = 30s
[sizing]
database_size = 256MiB
[engine]
name = sim
[sim]
read_latency = 2ms
write_latency = 3ms
log_write_latency = 1ms
jitter = 20%
seed = 7
INI
for v in 1 2 3 4 5; do
	printf '[volume v%s]\npath = /nonexistent/v%s\ndatabases = 3\n' $v $v >>p15.ini
done

# spread EXPR: max / min of the per-database values of EXPR (over x, a database)
spread() {
	json "max($1 for x in d['databases']) / min($1 for x in d['databases'])"
}
TIOPS='x["transactional_iops"]'
for s in 16 45 4; do
	expect_exit 0 "$DISKPROOF" run ./p15.ini --streams $s --results "$WORK/r$s.db" --quiet
	expect_exit 0 "$DISKPROOF" report --format json --results "$WORK/r$s.db"
	[ "$(json 'len(d["databases"])')" = 15 ] || fail "$s streams: 15 databases"
	[ "$(json 'd["run"]["streams"]')" = $s ] || fail "$s streams: the run's count"
	iops=$(spread "$TIOPS")
	streams=$(spread 'x["streams"]')
	total=$(json 'sum(x["streams"] for x in d["databases"])')
	echo "$s streams: transactional IOPS max/min $iops, streams max/min $streams," \
		"per database $(json 'd["databases"][0]["streams"]'), in all $total"
	python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) <= 1.05 else 1)" "$iops" ||
		fail "$s streams: per-database transactional IOPS differ by more than 5 % ($iops)"
	python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) <= 1.05 else 1)" "$streams" ||
		fail "$s streams: per-database streams differ by more than 5 % ($streams)"
	python3 -c "import sys; sys.exit(0 if abs(float(sys.argv[1]) - $s) <= 0.02 * $s else 1)" \
		"$total" || fail "$s streams: the databases' streams add up to $total"
	python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) > 0 else 1)" \
		"$(json "min($TIOPS for x in d['databases'])")" || fail "$s streams: a database idle"
done
# every report shows the streams per database
expect_exit 0 "$DISKPROOF" report --results "$WORK/r16.db"
grep -qE '^db15 +v5 +1\.07 +[0-9.]+ ' out || fail "text: no streams per database: $(cat out)"
expect_exit 0 "$DISKPROOF" report --format csv --results "$WORK/r16.db"
grep -qE '^1,,,database,db1,transactional,[0-9]+,[0-9.]+,,,,,,0,1\.0[67][0-9],' out ||
	fail "csv: no transactional row of db1"
expect_exit 0 "$DISKPROOF" report --format html --results "$WORK/r16.db"
grep -q '<th rowspan="2">streams</th>' out || fail "html: no streams column"
echo ok
