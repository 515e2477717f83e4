/* SPDX-License-Identifier: MIT */
/*
 * test_dbstat.c - the database's counters source (dbstat.h) with the client
 * layer replaced by a planted table of results: the PostgreSQL and MariaDB
 * readings, the window's differences and the figures derived from them
 * (transactions less the reading's own queries, the Handler_commit
 * fallback), the fingerprint's database section through JSON and back, and
 * an old fingerprint without one.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "diskproof/learn.h"

/* A planted result: the rows answered to a query holding match. */
struct planted {
	const char *match;
	size_t ncols, nrows;
	const char *const *names;
	const char *const *cells;
};

struct fake {
	const struct planted *p;
	size_t n;
	char sql[8][1024]; /* the queries asked, in order */
	size_t asked;
};

static int fake_query(void *impl, const char *sql, struct learn_db_rows *out, struct strbuf *err)
{
	struct fake *f = impl;

	if (f->asked < 8)
		snprintf(f->sql[f->asked], sizeof(f->sql[0]), "%s", sql);
	f->asked++;
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < f->n; i++) {
		const struct planted *p = &f->p[i];

		if (!strstr(sql, p->match))
			continue;
		out->ncols = p->ncols;
		out->nrows = p->nrows;
		out->names = calloc(p->ncols, sizeof(char *));
		out->cells = calloc(p->ncols * p->nrows + 1, sizeof(char *));
		for (size_t c = 0; c < p->ncols; c++)
			out->names[c] = strdup(p->names[c]);
		for (size_t c = 0; c < p->ncols * p->nrows; c++)
			out->cells[c] = p->cells[c] ? strdup(p->cells[c]) : NULL;
		return 0;
	}
	strbuf_addf(err, "fake: no result planted for %s", sql);
	return -5;
}

static struct learn_db_client fake_client(struct fake *f)
{
	return (struct learn_db_client){.impl = f, .query = fake_query};
}

/* ---- PostgreSQL ---- */

static const char *const pg_db_names[] = {"xact_commit", "xact_rollback", "blks_read",
					  "blks_hit",	 "version_num",	  "db"};
static const char *const pg_wal_names[] = {"wal_records", "wal_bytes", "wal_write", "wal_sync"};
static const char *const pg_bgw_names[] = {"checkpoints_timed", "buffers_checkpoint",
					   "buffers_clean", "buffers_backend"};
static const char *const pg_set_names[] = {"name", "value", "setting"};
static const char *const pg_set_cells[] = {
	"block_size",	      "8192", "8192", "shared_buffers", "128MB", "16384",
	"synchronous_commit", "on",   "on",   "server_version", "15.14", "15.14"};

static void pg_reading(const char *version, const char *commit, const char *wal_bytes,
		       const char *sync, const char *ckp, const char *conninfo,
		       struct learn_db_reading *r, struct fake *f)
{
	const char *const db[] = {commit, "5", "100", "900", version, "bench"};
	const char *const wal[] = {"1000", wal_bytes, "50", sync};
	const char *const bgw[] = {"3", ckp, "20", "7"};
	const struct planted p[] = {
		{"pg_stat_database", 6, 1, pg_db_names, db},
		{"pg_stat_wal", 4, 1, pg_wal_names, wal},
		{"pg_stat_bgwriter", 4, 1, pg_bgw_names, bgw},
		{"pg_settings", 3, 4, pg_set_names, pg_set_cells},
	};
	struct strbuf err = STRBUF_INIT;
	struct learn_db_client c;

	memset(f, 0, sizeof(*f));
	f->p = p;
	f->n = DP_ARRAY_SIZE(p);
	c = fake_client(f);
	memset(r, 0, sizeof(*r));
	assert_int_equal(learn_db_pg_read(&c, conninfo, r, &err), 0);
	strbuf_release(&err);
	f->p = NULL;
}

static void test_pg_window(void **state)
{
	struct learn_db_reading a, b;
	struct learn_db db;
	struct fake f;

	(void)state;
	pg_reading("150014", "1000", "40000", "10", "100", "host=/tmp/s dbname=bench", &a, &f);
	/* pg_stat_database first, for one database; then wal, bgwriter, settings */
	assert_non_null(strstr(f.sql[0], "pg_stat_database"));
	assert_non_null(strstr(f.sql[0], "WHERE datname = current_database()"));
	assert_int_equal(f.asked, 4);
	assert_int_equal(a.own_txns, 4);
	pg_reading("150014", "3204", "1064000", "2010", "350", "host=/tmp/s dbname=bench", &b, &f);
	learn_db_window(LEARN_DB_POSTGRES, &a, &b, &db);
	assert_true(db.used);
	/* 2204 commits, 0 rollbacks, less the start reading's own 4 */
	assert_true(db.transactions == 2200);
	assert_non_null(strstr(db.txn_from, "pg_stat_database xact_commit + xact_rollback"));
	assert_non_null(strstr(db.scope, "database bench"));
	assert_true(db.log_bytes == 1024000);
	assert_true(db.log_flushes == 2000);
	assert_true(db.pages_read == 0);
	assert_true(db.pages_written == 250); /* 250 by checkpoints, none cleaned or by backends */
	assert_int_equal(db.page_size, 8192);
	assert_int_equal(db.buffer_pool, 16384ull * 8192);
	assert_string_equal(db.version, "15.14");
	assert_string_equal(db.notes, "");
	assert_true(learn_db_counter(db.counters, db.nr_counters, "xact_commit") == 2204);
}

static void test_pg_all_databases_and_old_server(void **state)
{
	struct learn_db_reading a, b;
	struct learn_db db;
	struct fake f;

	(void)state;
	pg_reading("130011", "1000", "0", "0", "0", "host=/tmp/s port=5433", &a, &f);
	assert_null(strstr(f.sql[0], "WHERE"));
	for (size_t i = 0; i < f.asked; i++)
		assert_null(strstr(f.sql[i], "pg_stat_wal")); /* PostgreSQL 13 has none */
	pg_reading("130011", "1500", "0", "0", "0", "postgresql://h/", &b, &f);
	assert_null(strstr(f.sql[0], "WHERE"));
	learn_db_window(LEARN_DB_POSTGRES, &a, &b, &db);
	assert_non_null(strstr(db.scope, "all databases"));
	assert_non_null(strstr(db.notes, "pg_stat_wal"));
	assert_true(db.log_bytes < 0 && db.log_flushes < 0);
	assert_true(db.transactions == 500 - 3);
	/* a URI's path names the database */
	pg_reading("150000", "1", "0", "0", "0", "postgresql://u@host:5432/app?sslmode=off", &a,
		   &f);
	assert_non_null(strstr(f.sql[0], "WHERE datname"));
}

/* ---- MariaDB ---- */

/* the MariaDB client layer names SHOW's two columns name and value */
static const char *const my_names[] = {"name", "value"};

static void my_reading(const char *com, const char *handler, const char *redo,
		       struct learn_db_reading *r)
{
	const char *const status[] = {
		"Com_commit",		com,	 "Com_rollback",	  "0",
		"Handler_commit",	handler, "Innodb_os_log_written", redo,
		"Innodb_os_log_fsyncs", "40",	 "Innodb_pages_read",	  "10",
		"Innodb_pages_written", "60",	 "Unlisted_counter",	  "99"};
	const char *const vars[] = {"innodb_page_size",
				    "16384",
				    "innodb_buffer_pool_size",
				    "134217728",
				    "innodb_flush_log_at_trx_commit",
				    "1",
				    "innodb_doublewrite",
				    "ON",
				    "version",
				    "10.11.19-MariaDB"};
	const struct planted p[] = {
		{"SHOW GLOBAL STATUS", 2, 8, my_names, status},
		{"SHOW GLOBAL VARIABLES", 2, 5, my_names, vars},
	};
	struct fake f = {.p = p, .n = DP_ARRAY_SIZE(p)};
	struct learn_db_client c = fake_client(&f);
	struct strbuf err = STRBUF_INIT;

	memset(r, 0, sizeof(*r));
	assert_int_equal(learn_db_my_read(&c, r, &err), 0);
	assert_non_null(strstr(f.sql[0], "'Innodb_os_log_written'"));
	strbuf_release(&err);
}

static void test_my_window(void **state)
{
	struct learn_db_reading a, b;
	struct learn_db db;

	(void)state;
	my_reading("100", "500", "1000", &a);
	assert_true(isnan(learn_db_counter(a.c, a.nr_counters, "Unlisted_counter")));
	my_reading("400", "1400", "513000", &b);
	learn_db_window(LEARN_DB_MYSQL, &a, &b, &db);
	assert_true(db.transactions == 300);
	assert_non_null(strstr(db.txn_from, "Com_commit + Com_rollback"));
	assert_true(db.log_bytes == 512000);
	assert_true(db.log_flushes == 0);
	assert_true(db.pages_written == 0);
	assert_int_equal(db.page_size, 16384);
	assert_int_equal(db.buffer_pool, 134217728);
	assert_string_equal(db.version, "10.11.19-MariaDB");
	/* no COMMIT statement counted (autocommit): Handler_commit */
	my_reading("100", "1400", "513000", &b);
	learn_db_window(LEARN_DB_MYSQL, &a, &b, &db);
	assert_true(db.transactions == 900);
	assert_non_null(strstr(db.txn_from, "Handler_commit"));
	/* what the server does not show is named */
	assert_non_null(strstr(db.notes, "Innodb_dblwr_writes"));
}

/* ---- the fingerprint's database section ---- */

static double figure(const struct learn_fp *fp, const char *key)
{
	struct learn_figure f[LEARN_FIGURES_MAX];
	size_t n = learn_fp_figures(fp, f);

	for (size_t i = 0; i < n; i++)
		if (!strcmp(f[i].key, key))
			return f[i].value;
	fail_msg("no figure %s", key);
	return NAN;
}

static void test_fp_json_round_trip(void **state)
{
	struct learn_db_reading a, b;
	struct learn_fp fp, back;
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;

	(void)state;
	memset(&fp, 0, sizeof(fp));
	fp.seconds = 10;
	fp.transactions = -1;
	fp.role[LEARN_DATA].present = true;
	fp.role[LEARN_DATA].c.writes = 5000;
	my_reading("100", "500", "1000", &a);
	my_reading("600", "1500", "1025000", &b);
	learn_db_window(LEARN_DB_MYSQL, &a, &b, &fp.db);
	fp.transactions = fp.db.transactions;
	fp.db.gave_txns = true;
	assert_true(fabs(figure(&fp, "database.log_kib_per_txn") - 2.0) < 1e-9);
	learn_fp_json(&fp, &out);
	assert_non_null(strstr(out.buf, "\"database\""));
	assert_non_null(strstr(out.buf, "\"innodb_doublewrite\": \"ON\""));
	assert_int_equal(learn_fp_parse(out.buf, "t", &back, &err), 0);
	assert_int_equal(back.db.kind, LEARN_DB_MYSQL);
	assert_true(back.transactions == 500);
	assert_true(back.db.log_bytes == 1024000);
	assert_int_equal(back.db.page_size, 16384);
	assert_true(fabs(figure(&back, "database.log_kib_per_txn") - 2.0) < 1e-9);
	assert_true(isnan(figure(&back, "database.log_flushes_per_txn")) ||
		    figure(&back, "database.log_flushes_per_txn") == 0);
	assert_true(learn_db_counter(back.db.counters, back.db.nr_counters, "Com_commit") == 500);
	strbuf_release(&out);
	strbuf_release(&err);
}

static void test_fp_without_database(void **state)
{
	static const char old[] =
		"{\"kind\": \"diskproof-fingerprint\", \"seconds\": 10, \"transactions\": null,"
		" \"data\": {\"counters\": {\"reads\": 100, \"writes\": 50}}}";
	struct learn_fp fp;
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	unsigned off, asserted, left;

	(void)state;
	assert_int_equal(learn_fp_parse(old, "old", &fp, &err), 0);
	assert_int_equal(fp.db.kind, LEARN_DB_NONE);
	assert_true(isnan(figure(&fp, "database.pages_read_per_txn")));
	learn_fp_json(&fp, &out);
	assert_null(strstr(out.buf, "\"database\""));
	strbuf_reset(&out);
	learn_fp_compare(&fp, &fp, "A", "B", 10, &out, &off, &asserted, &left);
	assert_null(strstr(out.buf, "db log"));
	strbuf_release(&err);
	strbuf_release(&out);
}

/* The library missing: said, with the package to install. */
static void test_library_missing(void **state)
{
	struct learn_db_reading r;
	struct strbuf err = STRBUF_INIT;

	(void)state;
	setenv("DISKPROOF_LIBPQ", "/nonexistent/libpq.so.5", 1);
	assert_int_equal(learn_db_reading_take(LEARN_DB_POSTGRES, "host=/x", &r, &err), -ENOENT);
	assert_string_equal(err.buf, "/nonexistent/libpq.so.5 not found (apt-get install libpq5)");
	strbuf_reset(&err);
	setenv("DISKPROOF_LIBMARIADB", "/nonexistent/libmariadb.so.3", 1);
	assert_int_equal(learn_db_reading_take(LEARN_DB_MYSQL, "socket=/x user=me", &r, &err),
			 -ENOENT);
	assert_non_null(strstr(err.buf, "libmariadb.so.3 not found"));
	strbuf_reset(&err);
	/* a --mysql key it does not know is said before any library is loaded */
	assert_int_equal(learn_db_reading_take(LEARN_DB_MYSQL, "sock=/x", &r, &err), -EINVAL);
	assert_non_null(strstr(err.buf, "unknown key sock"));
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pg_window),
		cmocka_unit_test(test_pg_all_databases_and_old_server),
		cmocka_unit_test(test_my_window),
		cmocka_unit_test(test_fp_json_round_trip),
		cmocka_unit_test(test_fp_without_database),
		cmocka_unit_test(test_library_missing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
