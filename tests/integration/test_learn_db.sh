#!/bin/bash
# SPDX-License-Identifier: MIT
# test_learn_db.sh - the database's counters as a source of `diskproof
# fingerprint` and `diskproof learn` (--postgres, --mysql; docs/learn.md):
#   1. the binary does not link libpq or libmariadb (readelf -d: NEEDED);
#   2. without the library (DISKPROOF_LIBPQ=/nonexistent/...), learn says it
#      cannot read the database's counters, names the library, still writes
#      its profile and exits 0; the header says why the source was not used;
#   3. a real PostgreSQL (initdb, a private socket directory, no TCP, run as
#      postgres) under pgbench for 10 s, watched by fingerprint --postgres
#      and learn --postgres: the fingerprint's transactions within 2 % of
#      pgbench's "actually processed", from pg_stat_database, WAL bytes and
#      syncs > 0, the page size 8192 from block_size; the learned profile's
#      header names the transactions' origin and the copied settings;
#   4. a real MariaDB (mariadb-install-db, a private datadir and socket, no
#      TCP) and 300 BEGIN/INSERT/COMMIT from the mariadb client, watched by
#      fingerprint --mysql: Com_commit counted, 300 transactions.
# Each fingerprint is checked against docs/schema/fingerprint.schema.json
# (where python3-jsonschema is installed). Parts 3 and 4 each skip (said) where the server is not installed; exit 77
# when neither ran. Root (initdb and mariadbd run as their users), else 77.
source "$(dirname "$0")/lib.sh"
set -e
need_root "PostgreSQL and MariaDB run as their own users"
chmod 755 "$WORK"
RAN=0
# schema_check FILE: FILE valid against the fingerprint schema
schema_check() {
	python3 -c 'import jsonschema' 2>/dev/null || return 0
	python3 -c 'import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))' \
		"$DP_SOURCE_DIR/docs/schema/fingerprint.schema.json" "$1" ||
		fail "$1: not valid against fingerprint.schema.json"
}

# --- 1. not linked
if readelf -d "$DISKPROOF" | grep -E 'NEEDED.*(libpq|libmariadb|libmysql)'; then
	fail "the binary links a database client library"
fi

# --- 2. the library missing: said, and learn goes on
mkdir "$WORK/empty"
set +e
DISKPROOF_LIBPQ=/nonexistent/libpq.so.5 "$DISKPROOF" learn --data "$WORK/empty" \
	--duration 2s --postgres "host=/nonexistent dbname=x" -o nolib.ini >nolib.out 2>nolib.err
rc=$?
set -e
cat nolib.err
[ "$rc" = 0 ] || fail "learn without libpq: exit $rc"
grep -q "cannot read the database's counters: /nonexistent/libpq.so.5 not found (apt-get install libpq5)" \
	nolib.err || fail "learn without libpq: no word of it"
grep -q "^; database counters: not used: at the window's start: /nonexistent/libpq.so.5 not found" \
	nolib.ini || fail "header: the database source's absence not said: $(grep -i database nolib.ini)"
grep -q "^\[volume data\]" nolib.ini || fail "learn without libpq: no profile"

# --- 3. PostgreSQL under pgbench
PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
if [ -n "$PGBIN" ] && [ -x "$PGBIN/initdb" ] && [ -x "$PGBIN/pgbench" ]; then
	RAN=1
	PG=$WORK/pg
	mkdir -p "$PG/sock"
	chown -R postgres "$PG"
	pgsu() { runuser -u postgres -- "$@"; }
	pgsu "$PGBIN/initdb" -D "$PG/data" >initdb.log 2>&1 || { cat initdb.log; fail "initdb"; }
	pgsu "$PGBIN/pg_ctl" -D "$PG/data" -l "$PG/log" -w \
		-o "-k $PG/sock -c listen_addresses= -c shared_buffers=32MB" start >/dev/null ||
		{ cat "$PG/log"; fail "PostgreSQL did not start"; }
	at_exit "runuser -u postgres -- $PGBIN/pg_ctl -D $PG/data -m immediate -w stop"
	pgsu "$PGBIN/pgbench" -h "$PG/sock" -i -q -s 2 postgres >pginit.log 2>&1 ||
		{ cat pginit.log; fail "pgbench -i"; }
	CI="host=$PG/sock dbname=postgres user=postgres"
	"$DISKPROOF" fingerprint --data "$PG/data" --postgres "$CI" --duration 15s -o pg.json \
		--quiet 2>fp-pg.err &
	fp=$!
	"$DISKPROOF" learn --data "$PG/data" --postgres "$CI" --duration 15s -o pg.ini \
		>learn-pg.out 2>learn-pg.err &
	lp=$!
	sleep 2
	pgsu "$PGBIN/pgbench" -h "$PG/sock" -n -c 4 -j 2 -T 10 postgres >pgbench.out 2>&1 ||
		{ cat pgbench.out; fail "pgbench"; }
	wait "$fp" || { cat fp-pg.err; fail "fingerprint --postgres: exit $?"; }
	wait "$lp" || { cat learn-pg.err; fail "learn --postgres: exit $?"; }
	N=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' pgbench.out)
	[ -n "$N" ] && [ "$N" -gt 0 ] || { cat pgbench.out; fail "no transaction count from pgbench"; }
	cp pg.json out
	T=$(json 'd["transactions"]')
	echo "pgbench: $N transactions; fingerprint: $T; $(json 'd["database"]["transactions_from"]')"
	python3 - "$N" "$T" <<'EOF' || fail "transactions $T not within 2 % of pgbench's $N"
import sys
n, t = float(sys.argv[1]), float(sys.argv[2])
sys.exit(0 if abs(t - n) <= 0.02 * n else 1)
EOF
	[ "$(json 'd["database"]["kind"]')" = postgresql ] || fail "database kind"
	[ "$(json 'd["database"]["gave_transactions"]')" = True ] || fail "transactions not from it"
	[ "$(json 'd["database"]["log_bytes"] > 0')" = True ] || fail "no WAL bytes"
	[ "$(json 'd["database"]["log_flushes"] > 0')" = True ] || fail "no WAL syncs"
	[ "$(json 'd["database"]["page_size"]')" = 8192 ] || fail "page size not block_size's"
	[ "$(json 'd["database"]["counters"]["xact_commit"] > 0')" = True ] || fail "no xact_commit"
	[ "$(json 'd["database"]["settings"]["synchronous_commit"]')" = on ] ||
		fail "settings: synchronous_commit"
	json 'd["database"]["figures"]'
	echo "notes: $(json 'd["database"]["notes"]')"
	schema_check pg.json
	grep -q "^; transactions: [0-9]* from pg_stat_database xact_commit + xact_rollback (database postgres" \
		pg.ini || fail "learn header: transactions' origin: $(grep -i transactions pg.ini)"
	grep -q "^; database counters: used: postgresql " pg.ini || fail "learn header: source used"
	grep -q "^;   copied fact: page size 8192 bytes (block_size)" pg.ini || fail "header: page size"
	grep -q "^;   copied fact: shared_buffers = 32MB" pg.ini || fail "header: shared_buffers"
	grep -q "^page_size = 8KiB" pg.ini || fail "page_size not copied: $(grep page_size pg.ini)"
	# the database's rows are shown in compare (not asserted)
	"$DISKPROOF" fingerprint compare pg.json pg.json >cmp.out || fail "compare with itself"
	grep -q "^db log KiB/txn" cmp.out || { cat cmp.out; fail "compare: no database rows"; }
else
	echo "PostgreSQL part skipped: no /usr/lib/postgresql/*/bin/initdb and pgbench"
fi

# --- 4. MariaDB
MYD=$(command -v mariadbd || ls /usr/sbin/mariadbd 2>/dev/null || true)
if [ -n "$MYD" ] && command -v mariadb-install-db >/dev/null && command -v mariadb >/dev/null; then
	RAN=1
	MY=$WORK/my
	mkdir -p "$MY/data"
	chown -R mysql "$MY"
	mariadb-install-db --no-defaults --user=mysql --datadir="$MY/data" >myinit.log 2>&1 ||
		{ cat myinit.log; fail "mariadb-install-db"; }
	"$MYD" --no-defaults --user=mysql --datadir="$MY/data" --socket="$MY/sock" \
		--skip-networking --pid-file="$MY/pid" --log-error="$MY/err" \
		--innodb-buffer-pool-size=32M &
	at_exit "kill $!"
	for _ in $(seq 60); do
		mariadb --no-defaults -S "$MY/sock" -u root -e 'select 1' >/dev/null 2>&1 && break
		sleep 0.5
	done
	my() { mariadb --no-defaults -S "$MY/sock" -u root "$@"; }
	my -e 'select 1' >/dev/null || { cat "$MY/err"; fail "mariadbd did not start"; }
	my -e 'CREATE DATABASE t; CREATE TABLE t.a (i INT PRIMARY KEY) ENGINE=InnoDB'
	"$DISKPROOF" fingerprint --data "$MY/data" --mysql "socket=$MY/sock user=root" \
		--duration 8s -o my.json --quiet 2>fp-my.err &
	fp=$!
	sleep 2
	for i in $(seq 300); do echo "BEGIN; INSERT INTO t.a VALUES ($i); COMMIT;"; done | my
	wait "$fp" || { cat fp-my.err; fail "fingerprint --mysql: exit $?"; }
	cp my.json out
	echo "mariadb: $(json 'd["database"]["version"]'): $(json 'd["transactions"]') transactions" \
		"from $(json 'd["database"]["transactions_from"]')"
	[ "$(json 'd["database"]["kind"]')" = mysql ] || fail "database kind"
	echo "notes: $(json 'd["database"]["notes"]')"
	schema_check my.json
	[ "$(json 'd["database"]["counters"]["Com_commit"]')" = 300 ] ||
		fail "Com_commit: $(json 'd["database"]["counters"]')"
	[ "$(json 'd["transactions"]')" = 300 ] || fail "transactions not 300"
	[ "$(json 'd["database"]["page_size"]')" = 16384 ] || fail "innodb_page_size"
	[ "$(json 'd["database"]["log_bytes"] > 0')" = True ] || fail "no redo bytes"
	[ "$(json 'd["database"]["settings"]["innodb_flush_log_at_trx_commit"]')" = 1 ] ||
		fail "settings: innodb_flush_log_at_trx_commit"
else
	echo "MariaDB part skipped: no mariadbd, mariadb-install-db and mariadb"
fi
[ "$RAN" = 1 ] || { echo "skipped: neither PostgreSQL nor MariaDB installed"; exit 77; }
echo ok
