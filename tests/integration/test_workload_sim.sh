#!/bin/bash
# SPDX-License-Identifier: MIT
# The I/O model on a fast simulated device (never saturates), in virtual time:
# - exchange-2013 at its default stream count holds the calibration facts of
#   ARCHITECTURE.md: database reads : writes in 1.4-1.6, database transfers per
#   log write in 3.2-3.8;
# - background maintenance reads 1 MiB/s per database (within 5 %), and
#   replication reads (copies - 1) x the log bytes (within 5 %);
# - open loop at a rate above the device's saturation: the response time
#   (from each transaction's intended start) grows over the run, to seconds,
#   while the device's service time stays what closed loop on the same
#   device measures, flat (open loop is judged on it: exit 0).
source "$(dirname "$0")/lib.sh"
set -e

# ratio EXPR LO HI WHAT: fails unless LO <= EXPR <= HI (EXPR over d, the JSON)
ratio() {
	local v
	v=$(json "$1")
	python3 -c "import sys; v=float(sys.argv[1]); sys.exit(0 if $2 <= v <= $3 else 1)" "$v" ||
		fail "$4: $v is not within $2..$3"
	echo "$4: $v"
}

expect_exit 0 "$DISKPROOF" run exchange-2013 --engine sim --duration 10m --warmup 1m \
	--results "$WORK/r.db" --quiet
expect_exit 0 "$DISKPROOF" report --format json --results "$WORK/r.db"
C='d["summary"]["classes"]'
ratio "$C[\"db_read\"][\"ios\"] / $C[\"db_write\"][\"ios\"]" 1.4 1.6 "exchange-2013 reads:writes"
ratio "($C[\"db_read\"][\"ios\"] + $C[\"db_write\"][\"ios\"]) / $C[\"log_write\"][\"ios\"]" \
	3.2 3.8 "exchange-2013 database transfers per log write"
[ "$(json 'd["run"]["streams"]')" = 8 ] || fail "default streams: 2 per database"
# every database: maintenance at 1 MiB/s = 1.048576 MB/s; replication = log bytes
for i in 0 1 2 3; do
	D="d[\"databases\"][$i][\"classes\"]"
	ratio "$D[\"bdm_read\"][\"bytes\"] / 600 / 1048576" 0.95 1.05 "db$((i + 1)) BDM rate / setting"
	ratio "$D[\"log_read\"][\"bytes\"] / $D[\"log_write\"][\"bytes\"]" 0.95 1.05 \
		"db$((i + 1)) replication bytes / log bytes (copies = 2)"
done

# the other built-in profiles: each class's share follows from the profile's
# keys. Reads per transaction = seek% x seek_pages + changing% x update_pages,
# writes = changing% x update_pages (the default 1.3 and 1.4 pages):
# postgres-oltp (50 % seeks) 1 + 50 x 1.3 / (50 x 1.4) = 1.929, within 3 %;
# mariadb-oltp (learned: replaces that read update_pages and read_pages more,
# the doublewrite doubling the page writes' bytes, a data flush a batch).
shares() {
	expect_exit 0 "$DISKPROOF" run "$1" --engine sim --duration 5m --warmup 0s \
		--results "$WORK/$1.db" --quiet
	expect_exit 0 "$DISKPROOF" report --format json --results "$WORK/$1.db"
}
shares exchange-2010
ratio "$C[\"db_read\"][\"ios\"] / $C[\"db_write\"][\"ios\"]" 1.4 1.6 "exchange-2010 reads:writes"
for i in 0 1 2 3; do
	ratio "d[\"databases\"][$i][\"classes\"][\"bdm_read\"][\"bytes\"] / 300 / (5 * 1048576)" \
		0.95 1.05 "exchange-2010 db$((i + 1)) BDM rate / 5 MiB/s"
done
shares mariadb-oltp
ratio "$C[\"db_read\"][\"bytes\"] / $C[\"db_read\"][\"ios\"]" 16384 16384 "mariadb-oltp page size"
ratio "$C[\"db_write\"][\"bytes\"] / $C[\"db_write\"][\"ios\"] / 16384" 1.5 2 \
	"mariadb-oltp write size / page (doublewrite: each page twice, a batch's in one write)"
ratio "$C[\"db_flush\"][\"ios\"]" 1 1e12 "mariadb-oltp data flushes (a doublewrite flush a batch)"
[ "$(json "$C[\"bdm_read\"][\"ios\"] + $C[\"log_read\"][\"ios\"]")" = 0 ] ||
	fail "mariadb-oltp: no maintenance, no replication"
shares postgres-oltp
ratio "$C[\"db_read\"][\"ios\"] / $C[\"db_write\"][\"ios\"] / 1.929" 0.97 1.03 "postgres-oltp reads:writes / model"
ratio "$C[\"log_write\"][\"bytes\"] / $C[\"log_write\"][\"ios\"]" 8192 1048576 "postgres-oltp WAL write size"
shares random-32k
ratio "$C[\"db_read\"][\"ios\"] / ($C[\"db_read\"][\"ios\"] + $C[\"db_write\"][\"ios\"])" 0.69 0.71 \
	"random-32k read share"
[ "$(json "sum(v[\"ios\"] for k, v in $C.items() if k not in (\"db_read\", \"db_write\"))")" = 0 ] ||
	fail "random-32k: fixed model, page I/O only"

# copies = 3: each closed segment read twice
sed -n '/^\[test\]/,$p' "$DP_SOURCE_DIR/profiles/exchange-2013.ini" |
	sed 's/^\[workload\]/[workload]\ncopies = 3/' >three.ini
expect_exit 0 "$DISKPROOF" run ./three.ini --engine sim --duration 5m --warmup 0s \
	--results "$WORK/r.db" --quiet
expect_exit 0 "$DISKPROOF" report --format json --results "$WORK/r.db"
ratio "$C[\"log_read\"][\"bytes\"] / $C[\"log_write\"][\"bytes\"]" 1.9 2.1 "copies = 3: log read / log written"

# bdm = off: no maintenance reads
sed 's/^\[workload\]/[workload]\nbdm = off/' "$DP_SOURCE_DIR/profiles/exchange-2013.ini" >nobdm.ini
expect_exit 0 "$DISKPROOF" run ./nobdm.ini --engine sim --duration 2m --warmup 0s \
	--results "$WORK/r.db" --quiet
expect_exit 0 "$DISKPROOF" report --format json --results "$WORK/r.db"
[ "$(json "$C[\"bdm_read\"][\"ios\"]")" = 0 ] || fail "bdm = off still read"

# open loop vs closed loop on a device that saturates at 2000 IOPS: 3000
# transactions/s (~7000 I/Os/s) is far above it; the streams stay at 8
# (max_streams = 8: more streams would only queue in the device)
cat >open.ini <<'INI'
[test]
duration = 2m
[sizing]
database_size = 256MiB
[workload]
arrival = rate
rate = 3000
max_streams = 8
[engine]
name = sim
streams = 8
[sim]
saturation_iops = 2000
seed = 3
[volume v1]
path = /nonexistent/v1
databases = 2
INI
sed '/^arrival = rate/d; /^rate = /d; /^max_streams = /d' open.ini >closed.ini
# avg db_read latency (ms) of the run's interval samples in [from, to) s
lat() {
	sqlite3 r.db "select sum(lat_sum_ns) / sum(ios) / 1e6 from sample where run_id = $1 and
		scope = 'run' and class = 'db_read' and t_ms > $2 * 1000 and t_ms <= $3 * 1000"
}
expect_exit 0 "$DISKPROOF" run ./open.ini --results "$WORK/r.db" --quiet
open=$(sqlite3 r.db "select max(id) from run")
expect_exit 0 "$DISKPROOF" run ./closed.ini --results "$WORK/r.db" --quiet
closed=$(sqlite3 r.db "select max(id) from run")
o1=$(lat "$open" 0 30) o4=$(lat "$open" 90 120) c1=$(lat "$closed" 0 30) c4=$(lat "$closed" 90 120)
resp=$(sqlite3 r.db "select avg_ms from response where run_id = $open and scope = 'run' and class = 'db_read'")
echo "open loop: db_read service avg ${o1} ms in the first 30 s, ${o4} ms in the last 30 s; response avg ${resp} ms"
echo "closed loop: ${c1} ms, then ${c4} ms"
python3 -c "import sys; a,b,c,e,r=map(float,sys.argv[1:]); sys.exit(0 if abs(b-a) < 0.2*a and b < 20 and abs(e-c) < 0.2*c and e < 20 and r > 1000 else 1)" \
	"$o1" "$o4" "$c1" "$c4" "$resp" || fail "open loop's response should grow to seconds, service times stay flat"
# the run's duration is the profile's: open loop is not cut short as hung
[ "$(sqlite3 r.db "select duration_s from run where id = $open")" = 120.0 ] || fail "open loop run cut short"
echo "ok"
