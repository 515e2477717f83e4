/* SPDX-License-Identifier: MIT */
/*
 * test_store.c - the SQLite results file (store.h) on real files in a fresh
 * temporary directory: schema creation and version, a whole run written and
 * loaded back with exact values, histogram rows that decode, latest run and
 * unknown ids, files that are not ours (text, another SQLite database, a
 * newer schema), reopening without re-migrating, and two connections sharing
 * one file under the busy timeout; the time series, env facts, events and
 * histograms loaded back; delete; import (twice adds nothing, hosts kept,
 * across schema versions); rows of classes without I/O left out; and a
 * version-1 file (tests/golden/results, three I/O classes) migrated to the
 * current version and reported; auto-tune steps and facts, and the warm-up,
 * loaded into the results model (and absent from runs without them); host
 * counters written per interval, loaded back with NULL figures as NAN and
 * summed over the measured intervals into the model's exact figures,
 * imported and deleted with their run; a version-3 file (made by dropping
 * what schema 4 added) migrated to the current version; paths that are not
 * regular files refused, and a read-only open that reads and never writes;
 * the row loader refusing a summary, sample or histogram it cannot read and a
 * verdict of an unknown cmp (naming file, run and row), and env facts, events
 * and the run list longer than a first allocation loaded whole and in order;
 * every numeric column given a range (limits.c), and values out of theirs
 * (+-Inf, 1e300, negative, text, buckets not adding up) refused by the
 * loader, naming the run and the value, marked by the run list.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "diskproof/counters.h"
#include "diskproof/report.h"
#include "diskproof/store.h"

#include "../../src/store/store_internal.h" /* store_limit_known */

struct fixture {
	char dir[64];
	char path[128];
};

/* Takes a current file back to schema 8 (before the transactions). */
/* Takes a current file back to schema 12 (before a run's fingerprint). */
#define SCHEMA13_UNDO " DROP TABLE run_fingerprint;"

/* Takes a current file back to schema 11 (before open loop's backlog). */
#define SCHEMA12_UNDO SCHEMA13_UNDO " DROP INDEX backlog_sample_run; DROP TABLE backlog_sample;"

/* Takes a current file back to schema 10 (before the response times). */
#define SCHEMA11_UNDO SCHEMA12_UNDO " DROP TABLE response;"

/* Takes a current file back to schema 9 (before the series columns). */
#define SCHEMA10_UNDO                                                                              \
	SCHEMA11_UNDO                                                                              \
	" DROP INDEX run_series; ALTER TABLE run DROP COLUMN series_uuid;"                         \
	" ALTER TABLE run DROP COLUMN series_index; ALTER TABLE run DROP COLUMN series_size;"

#define SCHEMA9_UNDO                                                                               \
	SCHEMA10_UNDO " DROP INDEX txn_sample_run; DROP TABLE txn_sample; DROP TABLE txn_total;"

/* Takes a current file back to schema 7 (before the fleet columns). */
#define SCHEMA8_UNDO                                                                               \
	SCHEMA9_UNDO                                                                               \
	" ALTER TABLE run DROP COLUMN start_at; ALTER TABLE run DROP COLUMN load_started_at;"

/* Takes a current file back to schema 6 (before the views, percentile
 * columns and absolute times), for the tests that make older files. */
#define SCHEMA7_UNDO                                                                               \
	SCHEMA8_UNDO                                                                               \
	" DROP VIEW v_volume_window; DROP VIEW v_run; DROP VIEW v_run_class; DROP VIEW "           \
	"v_volume_trend;"                                                                          \
	" DROP VIEW v_database_class; DROP VIEW v_failed_verdicts; DROP VIEW v_sample;"            \
	" ALTER TABLE run DROP COLUMN t0_utc; ALTER TABLE summary DROP COLUMN p90_ms;"             \
	" ALTER TABLE summary DROP COLUMN p95_ms; ALTER TABLE summary DROP COLUMN "                \
	"p999_ms;"                                                                                 \
	" ALTER TABLE summary DROP COLUMN p9999_ms; ALTER TABLE sample DROP COLUMN "               \
	"time_utc;"                                                                                \
	" ALTER TABLE event DROP COLUMN time_utc;"                                                 \
	" ALTER TABLE interval_histogram DROP COLUMN time_utc;"                                    \
	" ALTER TABLE interval_histogram DROP COLUMN p50_ms;"                                      \
	" ALTER TABLE interval_histogram DROP COLUMN p90_ms;"                                      \
	" ALTER TABLE interval_histogram DROP COLUMN p95_ms;"                                      \
	" ALTER TABLE interval_histogram DROP COLUMN p99_ms;"                                      \
	" ALTER TABLE interval_histogram DROP COLUMN p999_ms;"                                     \
	" ALTER TABLE interval_histogram DROP COLUMN p9999_ms;"                                    \
	" ALTER TABLE host_sample DROP COLUMN time_utc;"

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "/tmp/dp-test-store-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->path, sizeof(f->path), "%s/results.db", f->dir);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char p[512];
	struct dirent *de;
	DIR *d = opendir(f->dir);

	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", f->dir, de->d_name);
		unlink(p);
	}
	if (d)
		closedir(d);
	rmdir(f->dir);
	free(f);
	return 0;
}

/* A raw connection for looking at the file from outside the store. */
static sqlite3 *raw_open(const char *path)
{
	sqlite3 *db = NULL;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	sqlite3_busy_timeout(db, 5000);
	return db;
}

static int64_t raw_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	int64_t v;

	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static char *raw_text(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	char *v;

	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	v = strdup(sqlite3_column_text(st, 0) ? (const char *)sqlite3_column_text(st, 0) : "");
	sqlite3_finalize(st);
	return v;
}

/* A byte copy of a closed results file (one kept at an old version). */
static void copy_file(const char *from, const char *to)
{
	FILE *in = fopen(from, "rb"), *o = fopen(to, "wb");
	char buf[4096];
	size_t n;

	assert_non_null(in);
	assert_non_null(o);
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		assert_int_equal(fwrite(buf, 1, n, o), n);
	fclose(in);
	assert_int_equal(fclose(o), 0);
}

static struct store *open_ok(const char *path)
{
	struct strbuf err = STRBUF_INIT;
	struct store *s = NULL;
	int ret = store_open(&s, path, &err);

	if (ret)
		fail_msg("store_open: %d: %s", ret, err.buf);
	strbuf_release(&err);
	return s;
}

static const struct store_run_info run_info = {
	.label = "cache 90:10",
	.host = "db-host-1",
	.started_real_ns = 1764454328ULL * NSEC_PER_SEC, /* 2025-11-29T22:12:08Z */
	.profile_name = "exchange-2016",
	.profile_text = "[run]\nstreams = 8\n",
	.command_line = "diskproof run exchange-2016",
	.engine = "sim",
	.test_type = "performance",
	.streams = 8,
	.warmup_ns = 300 * NSEC_PER_SEC,
	.pid = 4242,
};

static int64_t begin_ok(struct store *s)
{
	struct strbuf err = STRBUF_INIT;
	int64_t id = -1;
	int ret = store_run_begin(s, &run_info, &id, &err);

	if (ret)
		fail_msg("store_run_begin: %d: %s", ret, err.buf);
	strbuf_release(&err);
	return id;
}

static void write_interval(struct store *s, int64_t run_id, uint64_t t_ms)
{
	struct strbuf err = STRBUF_INIT;
	struct store_sample rows[2] = {
		{.t_ms = t_ms,
		 .scope = SCOPE_RUN,
		 .scope_name = "run",
		 .cls = IO_DB_READ,
		 .ios = 100,
		 .bytes = 3276800,
		 .lat_sum_ns = 500000000,
		 .lat_max_ns = 9000000,
		 .p50_ns = 5000000,
		 .p99_ns = 8000000},
		{.t_ms = t_ms,
		 .scope = SCOPE_VOLUME,
		 .scope_name = "vol1",
		 .cls = IO_LOG_WRITE,
		 .ios = 30,
		 .bytes = 122880,
		 .lat_sum_ns = 30000000,
		 .lat_max_ns = 2000000,
		 .p50_ns = 1000000,
		 .p99_ns = 1900000},
	};
	int ret = store_interval_write(s, run_id, rows, 2, &err);

	if (ret)
		fail_msg("store_interval_write: %d: %s", ret, err.buf);
	strbuf_release(&err);
}

static void test_open_creates_schema(void **state)
{
	static const char *const tables[] = {"run",
					     "sample",
					     "summary",
					     "histogram",
					     "verdict",
					     "env",
					     "volume",
					     "database",
					     "event",
					     "autotune_step",
					     "interval_histogram",
					     "host_sample"};
	struct fixture *f = *state;
	struct store *s = open_ok(f->path);
	char sql[128], *mode;
	sqlite3 *db;
	size_t i;

	db = raw_open(f->path);
	assert_int_equal(raw_int(db, "PRAGMA user_version"), STORE_SCHEMA_VERSION);
	mode = raw_text(db, "PRAGMA journal_mode");
	assert_string_equal(mode, "wal");
	free(mode);
	for (i = 0; i < DP_ARRAY_SIZE(tables); i++) {
		snprintf(sql, sizeof(sql),
			 "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '%s'",
			 tables[i]);
		assert_int_equal(raw_int(db, sql), 1);
	}
	assert_int_equal(raw_int(db, "SELECT count(*) FROM pragma_table_info('run') WHERE name IN"
				     " ('id', 'status', 'verdict', 'label', 'host', 'started_at',"
				     " 'ended_at', 'duration_s', 'profile_name', 'profile_text',"
				     " 'command_line', 'pid')"),
			 12);
	assert_int_equal(raw_int(db,
				 "SELECT count(*) FROM pragma_table_info('sample') WHERE name IN"
				 " ('run_id', 't_ms', 'warmup', 'scope', 'scope_name', 'class',"
				 " 'ios', 'bytes', 'lat_sum_ns', 'lat_max_ns', 'p50_ns',"
				 " 'p99_ns')"),
			 12);
	sqlite3_close(db);
	store_close(s);
}

/* Deleting a run removes its rows everywhere (ON DELETE CASCADE). */
static void test_delete_cascades(void **state)
{
	struct fixture *f = *state;
	struct strbuf err = STRBUF_INIT;
	struct store *s = open_ok(f->path);
	int64_t id = begin_ok(s);
	sqlite3 *db;

	write_interval(s, id, 1000);
	assert_int_equal(store_event_add(s, id, 0, "start", "run started", &err), 0);
	assert_int_equal(store_env_add(s, id, "kernel", "6.8.0", &err), 0);
	store_close(s);

	db = raw_open(f->path);
	assert_int_equal(
		sqlite3_exec(db, "PRAGMA foreign_keys = ON; DELETE FROM run", NULL, NULL, NULL),
		SQLITE_OK);
	assert_int_equal(raw_int(db, "SELECT (SELECT count(*) FROM sample) + (SELECT count(*)"
				     " FROM event) + (SELECT count(*) FROM env)"),
			 0);
	sqlite3_close(db);
	strbuf_release(&err);
}

/* Fills stats with n latencies of ns each, plus the given bytes per I/O. */
static void stats_fill(struct class_stats *cs, uint64_t n, uint64_t ns, uint64_t io_bytes)
{
	uint64_t i;

	for (i = 0; i < n; i++) {
		hist_add(&cs->lat, ns);
		cs->bytes += io_bytes;
	}
}

static void assert_close(double a, double b)
{
	if (a < b - 1e-9 || a > b + 1e-9)
		fail_msg("%.12f != %.12f", a, b);
}

static void test_round_trip(void **state)
{
	struct fixture *f = *state;
	struct strbuf err = STRBUF_INIT;
	struct store *s = open_ok(f->path);
	struct class_stats run_c[IO_CLASS_COUNT], vol_c[2][IO_CLASS_COUNT], db_c[IO_CLASS_COUNT];
	const struct store_volume_row vols[] = {
		{.name = "vol2", .path = "/mnt/v2", .log_path = "/mnt/l2", .databases = 1},
		{.name = "vol1", .path = "/mnt/v1", .log_path = "/mnt/v1", .databases = 1},
	};
	const struct store_database_row dbs[] = {
		{.name = "db1",
		 .volume = "vol2",
		 .path = "/mnt/v2/db1.edb",
		 .log_path = "/mnt/l2/db1.log",
		 .size = 1ULL << 30},
	};
	const struct verdict verdicts[] = {
		{.scope = SCOPE_DATABASE,
		 .name = "db1",
		 .volume = "vol2",
		 .criterion = "db_read_avg_ms",
		 .cmp = VERDICT_LE,
		 .threshold = 20,
		 .measured = 21.4,
		 .passed = false},
		{.scope = SCOPE_RUN,
		 .name = "run",
		 .criterion = "transactional_iops",
		 .cmp = VERDICT_GE,
		 .threshold = 100,
		 .measured = 150.5,
		 .passed = true},
	};
	struct store_scope_total totals[4];
	/* db1 grew by 1 MiB in the run */
	static const struct store_database_final finals[] = {{"db1", (1 << 30) + (1 << 20)}};
	struct store_run_end end = {
		.status = "failed",
		.verdict = "FAIL",
		.ended_real_ns = (1764454328ULL + 7500) * NSEC_PER_SEC,
		.duration_ns = 10 * NSEC_PER_SEC,
		.exit_code = 1,
		.totals = totals,
		.nr_totals = 4,
		.verdicts = verdicts,
		.nr_verdicts = 2,
		.finals = finals,
		.nr_finals = 1,
	};
	struct results r;
	struct hist decoded;
	sqlite3_stmt *st;
	sqlite3 *db;
	int64_t id;
	int c, v;

	for (c = 0; c < IO_CLASS_COUNT; c++) {
		stats_class_init(&run_c[c]);
		stats_class_init(&db_c[c]);
		for (v = 0; v < 2; v++)
			stats_class_init(&vol_c[v][c]);
	}
	stats_fill(&db_c[IO_DB_READ], 1000, 5000000, 32768);
	stats_fill(&db_c[IO_DB_READ], 1, 30000000, 32768);
	db_c[IO_DB_READ].errors = 2;
	stats_fill(&db_c[IO_DB_WRITE], 500, 8000000, 32768);
	stats_fill(&db_c[IO_LOG_WRITE], 300, 1000000, 4096);
	for (c = 0; c < IO_CLASS_COUNT; c++) {
		stats_class_merge(&vol_c[0][c], &db_c[c]);
		stats_class_merge(&run_c[c], &db_c[c]);
	}
	totals[0] = (struct store_scope_total){
		.scope = SCOPE_RUN, .name = "run", .integrity_errors = 1, .classes = run_c};
	totals[1] = (struct store_scope_total){
		.scope = SCOPE_VOLUME, .name = "vol2", .integrity_errors = 1, .classes = vol_c[0]};
	totals[2] = (struct store_scope_total){
		.scope = SCOPE_VOLUME, .name = "vol1", .classes = vol_c[1]};
	totals[3] = (struct store_scope_total){.scope = SCOPE_DATABASE,
					       .name = "db1",
					       .volume = "vol2",
					       .integrity_errors = 1,
					       .classes = db_c,
					       .stream_ns = 0};
	/* stream time: 3 streams on average over the measured span */
	totals[3].stream_ns = 3 * end.duration_ns;
	totals[0].stream_ns = 3 * end.duration_ns;

	id = begin_ok(s);
	assert_true(id > 0);
	assert_int_equal(store_run_layout(s, id, vols, 2, dbs, 1, &err), 0);
	write_interval(s, id, 1000);
	write_interval(s, id, 2000);
	assert_int_equal(store_event_add(s, id, 300000, "warmup_end", NULL, &err), 0);
	assert_int_equal(store_env_add(s, id, "kernel", "6.8.0", &err), 0);
	assert_int_equal(store_env_add(s, id, "kernel", "6.8.1", &err), 0);
	if (store_run_finish(s, id, &end, &err))
		fail_msg("store_run_finish: %s", err.buf);

	assert_int_equal(store_results_load(s, id, &r, &err), 0);
	assert_int_equal(r.id, id);
	assert_string_equal(r.status, "failed");
	assert_string_equal(r.verdict, "FAIL");
	assert_string_equal(r.label, "cache 90:10");
	assert_string_equal(r.host, "db-host-1");
	assert_string_equal(r.started_at, "2025-11-29T22:12:08Z");
	assert_string_equal(r.ended_at, "2025-11-30T00:17:08Z");
	assert_string_equal(r.profile_name, "exchange-2016");
	assert_string_equal(r.profile_text, "[run]\nstreams = 8\n");
	assert_string_equal(r.command_line, "diskproof run exchange-2016");
	assert_string_equal(r.engine, "sim");
	assert_string_equal(r.test_type, "performance");
	assert_int_equal(r.streams, 8);
	assert_int_equal(r.exit_code, 1);
	assert_close(r.duration_s, 10.0);
	assert_close(r.warmup_s, 300.0);

	assert_string_equal(r.run.name, "run");
	assert_int_equal(r.run.integrity_errors, 1);
	assert_int_equal(r.run.classes[IO_DB_READ].ios, 1001);
	assert_int_equal(r.run.classes[IO_DB_READ].bytes, 1001 * 32768);
	assert_int_equal(r.run.classes[IO_DB_READ].errors, 2);
	assert_close(r.run.classes[IO_DB_READ].iops, 100.1);
	assert_close(r.run.classes[IO_DB_READ].mbps, 1001 * 32768 / 1e6 / 10);
	assert_close(r.run.classes[IO_DB_READ].avg_ms, (1000 * 5.0 + 30.0) / 1001);
	assert_close(r.run.classes[IO_DB_READ].max_ms, 30.0);
	assert_close(r.run.classes[IO_DB_WRITE].iops, 50.0);
	assert_int_equal(r.run.classes[IO_LOG_WRITE].bytes, 300 * 4096);
	assert_close(results_scope_transactional_iops(&r.run), 150.1);

	/* volumes and databases in the order they were written */
	assert_int_equal(r.nr_volumes, 2);
	assert_string_equal(r.volumes[0].name, "vol2");
	assert_string_equal(r.volumes[1].name, "vol1");
	assert_int_equal(r.volumes[0].classes[IO_DB_WRITE].ios, 500);
	assert_int_equal(r.volumes[1].classes[IO_DB_WRITE].ios, 0);
	assert_close(r.volumes[1].classes[IO_DB_WRITE].avg_ms, 0.0);
	assert_string_equal(r.volumes[0].volume, "");
	assert_int_equal(r.nr_databases, 1);
	assert_string_equal(r.databases[0].name, "db1");
	assert_string_equal(r.databases[0].volume, "vol2");
	assert_int_equal(r.databases[0].classes[IO_LOG_WRITE].ios, 300);
	assert_close(r.databases[0].streams, 3);
	assert_close(r.run.streams, 3);
	assert_close(r.volumes[1].streams, 0);
	/* sizes: the layout's at the start, database_final's at the end; vol2's
	 * and the run's the sums of their databases' (vol1 has none: unknown) */
	assert_true(r.databases[0].size_known && r.databases[0].size == 1 << 30);
	assert_true(r.databases[0].final_size_known);
	assert_int_equal(r.databases[0].final_size, (1 << 30) + (1 << 20));
	assert_true(r.volumes[0].final_size_known);
	assert_int_equal(r.volumes[0].final_size, (1 << 30) + (1 << 20));
	assert_false(r.volumes[1].size_known || r.volumes[1].final_size_known);
	assert_true(r.run.size_known && r.run.size == 1 << 30);
	/* the tails from the whole-run histograms: 1 of 1001 reads took 30 ms */
	assert_true(fabs(r.run.classes[IO_DB_READ].p999_ms - 5.0) <= 5.0 / 128);
	assert_true(fabs(r.run.classes[IO_DB_READ].p9999_ms - 30.0) <= 30.0 / 128);
	assert_true(isnan(r.run.classes[IO_BDM_READ].p999_ms));

	assert_int_equal(r.nr_verdicts, 2);
	assert_int_equal(r.verdicts[0].scope, SCOPE_DATABASE);
	assert_string_equal(r.verdicts[0].name, "db1");
	assert_string_equal(r.verdicts[0].volume, "vol2");
	assert_string_equal(r.verdicts[0].criterion, "db_read_avg_ms");
	assert_int_equal(r.verdicts[0].cmp, VERDICT_LE);
	assert_close(r.verdicts[0].threshold, 20.0);
	assert_close(r.verdicts[0].measured, 21.4);
	assert_false(r.verdicts[0].passed);
	assert_int_equal(r.verdicts[1].scope, SCOPE_RUN);
	assert_int_equal(r.verdicts[1].cmp, VERDICT_GE);
	assert_string_equal(r.verdicts[1].volume, "");
	assert_true(r.verdicts[1].passed);
	results_release(&r);
	results_release(&r); /* safe twice */
	store_close(s);

	/* the raw rows: samples, env (last value wins), layout, histogram */
	db = raw_open(f->path);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM sample"), 4);
	assert_int_equal(raw_int(db, "SELECT sum(ios) FROM sample WHERE class = 'db_read'"), 200);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM env WHERE value = '6.8.1'"), 1);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM env"), 1);
	assert_int_equal(raw_int(db, "SELECT size FROM database WHERE name = 'db1'"), 1 << 30);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM volume"), 2);
	assert_int_equal(raw_int(db, "SELECT pid FROM run"), 4242);
	/* totals keep every class of every scope, empty or not: vol1 moved nothing,
	 * the three others only db_read, db_write and log_write */
	assert_int_equal(raw_int(db, "SELECT count(*) FROM summary"), 4 * IO_CLASS_COUNT);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM histogram"), 4 * IO_CLASS_COUNT);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM histogram WHERE min_ns IS NULL"),
			 IO_CLASS_COUNT + 3 * (IO_CLASS_COUNT - 3));
	assert_int_equal(raw_int(db, "SELECT count(*) FROM summary WHERE class = 'bdm_read'"), 4);
	assert_int_equal(sqlite3_prepare_v2(db,
					    "SELECT count, sum_ns, min_ns, max_ns, buckets FROM"
					    " histogram WHERE scope = 'database' AND name = 'db1'"
					    " AND class = 'db_read'",
					    -1, &st, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int64(st, 0), 1001);
	assert_int_equal(sqlite3_column_int64(st, 1), 1000 * 5000000LL + 30000000LL);
	assert_int_equal(sqlite3_column_int64(st, 2), 5000000);
	assert_int_equal(sqlite3_column_int64(st, 3), 30000000);
	hist_init(&decoded);
	assert_int_equal(hist_decode(&decoded, (const char *)sqlite3_column_text(st, 4)), 0);
	assert_memory_equal(decoded.buckets, db_c[IO_DB_READ].lat.buckets, sizeof(decoded.buckets));
	sqlite3_finalize(st);
	sqlite3_close(db);
	strbuf_release(&err);
}

static void test_latest(void **state)
{
	struct fixture *f = *state;
	struct strbuf err = STRBUF_INIT;
	struct store *s = open_ok(f->path);
	int64_t id = 0, first, second;

	assert_int_equal(store_run_latest(s, &id, &err), -ENOENT);
	assert_non_null(strstr(err.buf, f->path));
	strbuf_reset(&err);
	first = begin_ok(s);
	second = begin_ok(s);
	assert_true(second > first);
	assert_int_equal(store_run_latest(s, &id, &err), 0);
	assert_int_equal(id, second);
	store_close(s);
	strbuf_release(&err);
}

static void test_unknown_run(void **state)
{
	struct fixture *f = *state;
	struct strbuf err = STRBUF_INIT;
	struct store *s = open_ok(f->path);
	struct store_run_end end = {.status = "passed", .verdict = "PASS"};
	struct results r;

	begin_ok(s);
	assert_int_equal(store_results_load(s, 42, &r, &err), -ENOENT);
	assert_non_null(strstr(err.buf, "run 42 not found"));
	assert_non_null(strstr(err.buf, f->path));
	assert_null(r.status);
	assert_int_equal(r.nr_volumes, 0);
	results_release(&r);
	strbuf_reset(&err);
	assert_int_equal(store_run_finish(s, 42, &end, &err), -ENOENT);
	assert_non_null(strstr(err.buf, "run 42 not found"));
	store_close(s);
	strbuf_release(&err);
}

/* A run that never finished loads as it was left: running, no totals. */
static void test_unfinished_run_loads(void **state)
{
	struct fixture *f = *state;
	struct strbuf err = STRBUF_INIT;
	struct store *s = open_ok(f->path);
	int64_t id = begin_ok(s);
	struct results r;

	write_interval(s, id, 1000);
	assert_int_equal(store_results_load(s, id, &r, &err), 0);
	assert_string_equal(r.status, "running");
	assert_null(r.verdict);
	assert_null(r.ended_at);
	assert_close(r.duration_s, 0.0);
	assert_int_equal(r.nr_volumes, 0);
	assert_int_equal(r.nr_verdicts, 0);
	results_release(&r);
	store_close(s);
	strbuf_release(&err);
}

/* The status of run id. */
static char *run_status(struct store *s, int64_t id)
{
	struct strbuf err = STRBUF_INIT;
	struct results r;
	char *st;

	assert_int_equal(store_results_load(s, id, &r, &err), 0);
	st = strdup(r.status);
	results_release(&r);
	strbuf_release(&err);
	return st;
}

/*
 * run --host names a run for a fleet, not for the machine: the stale-run
 * reaper finds this machine's runs by the machine's name stored with the
 * row too, so a killed run named "fleet-x" is reaped, a live one never,
 * and another machine's run (whose pid means nothing here) is left alone.
 */
static void test_reap_by_machine(void **state)
{
	struct fixture *f = *state;
	struct strbuf err = STRBUF_INIT;
	struct store *s = open_ok(f->path);
	struct store_run_info dead = run_info, live = run_info, other = run_info;
	int64_t id_dead, id_live, id_other;
	unsigned n = 99;
	pid_t child = fork();
	char *st;

	assert_true(child >= 0);
	if (!child)
		_exit(0);
	assert_int_equal(waitpid(child, NULL, 0), child); /* its pid is now free */
	dead.host = "fleet-x";
	dead.machine = "machine-1";
	dead.pid = (int)child;
	live.host = "fleet-y";
	live.machine = "machine-1";
	live.pid = (int)getpid();
	other.host = "fleet-z";
	other.machine = "machine-2";
	other.pid = (int)child;
	assert_int_equal(store_run_begin(s, &dead, &id_dead, &err), 0);
	assert_int_equal(store_run_begin(s, &live, &id_live, &err), 0);
	assert_int_equal(store_run_begin(s, &other, &id_other, &err), 0);
	assert_int_equal(store_runs_reap_stale(s, "machine-1", &n, &err), 0);
	assert_int_equal(n, 1);
	st = run_status(s, id_dead);
	assert_string_equal(st, "aborted");
	free(st);
	st = run_status(s, id_live);
	assert_string_equal(st, "running");
	free(st);
	st = run_status(s, id_other);
	assert_string_equal(st, "running");
	free(st);
	/* not by run.host when the row names its machine: the machine called
	 * fleet-z cannot judge machine-2's pid (its run may well live) */
	assert_int_equal(store_runs_reap_stale(s, "fleet-z", &n, &err), 0);
	assert_int_equal(n, 0);
	st = run_status(s, id_other);
	assert_string_equal(st, "running");
	free(st);
	/* a row without a machine name (older runs): by run.host as before */
	other.host = "old-host";
	other.machine = NULL;
	assert_int_equal(store_run_begin(s, &other, &id_other, &err), 0);
	assert_int_equal(store_runs_reap_stale(s, "old-host", &n, &err), 0);
	assert_int_equal(n, 1);
	st = run_status(s, id_other);
	assert_string_equal(st, "aborted");
	free(st);
	store_close(s);
	strbuf_release(&err);
}

static void test_bad_rows_rejected(void **state)
{
	struct fixture *f = *state;
	struct strbuf err = STRBUF_INIT;
	struct store *s = open_ok(f->path);
	int64_t id = begin_ok(s);
	struct store_sample row = {.scope = SCOPE_RUN, .scope_name = "run", .cls = IO_CLASS_COUNT};
	struct store_run_end end = {.status = "bogus", .verdict = "PASS"};

	assert_int_equal(store_interval_write(s, id, &row, 1, &err), -EINVAL);
	assert_non_null(strstr(err.buf, f->path));
	strbuf_reset(&err);
	/* a status outside the schema's CHECK is refused and nothing is kept */
	assert_int_equal(store_run_finish(s, id, &end, &err), -EIO);
	assert_non_null(strstr(err.buf, "finish run"));
	strbuf_reset(&err);
	/* the store is still usable afterwards */
	write_interval(s, id, 1000);
	store_close(s);
	strbuf_release(&err);
}

static void write_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

static void test_text_file_refused(void **state)
{
	struct fixture *f = *state;
	struct strbuf err = STRBUF_INIT;
	struct store *s = NULL;
	char text[2048];

	memset(text, 'x', sizeof(text) - 1);
	text[sizeof(text) - 1] = '\0';
	write_file(f->path, text);
	assert_int_equal(store_open(&s, f->path, &err), -EIO);
	assert_null(s);
	assert_non_null(strstr(err.buf, f->path));
	assert_non_null(strstr(err.buf, "not a diskproof results file (file is not a database)"));
	strbuf_reset(&err);

	write_file(f->path, "hello\n");
	assert_int_equal(store_open(&s, f->path, &err), -EIO);
	assert_non_null(strstr(err.buf, "not a diskproof results file"));
	strbuf_release(&err);
}

static void test_foreign_sqlite_refused(void **state)
{
	struct fixture *f = *state;
	struct strbuf err = STRBUF_INIT;
	struct store *s = NULL;
	sqlite3 *db = raw_open(f->path);

	assert_int_equal(sqlite3_exec(db, "CREATE TABLE customers (id INTEGER)", NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(store_open(&s, f->path, &err), -EIO);
	assert_non_null(strstr(err.buf, "not a diskproof results file"));
	strbuf_release(&err);
}

static void test_newer_schema_refused(void **state)
{
	struct fixture *f = *state;
	struct strbuf err = STRBUF_INIT;
	char want[128];
	struct store *s = NULL;
	sqlite3 *db = raw_open(f->path);

	assert_int_equal(sqlite3_exec(db, "PRAGMA user_version = 99", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(store_open(&s, f->path, &err), -EPROTO);
	assert_null(s);
	assert_non_null(strstr(err.buf, f->path));
	snprintf(want, sizeof(want),
		 "results file was written by a newer diskproof (schema 99, this build knows %d)",
		 STORE_SCHEMA_VERSION);
	assert_non_null(strstr(err.buf, want));
	strbuf_release(&err);
}

static void test_unopenable_path(void **state)
{
	struct fixture *f = *state;
	struct strbuf err = STRBUF_INIT;
	struct store *s = NULL;
	char path[256];
	int ret;

	snprintf(path, sizeof(path), "%s/no/such/dir/results.db", f->dir);
	ret = store_open(&s, path, &err);
	assert_true(ret < 0);
	assert_int_not_equal(ret, -EIO);
	assert_null(s);
	assert_non_null(strstr(err.buf, path));
	assert_non_null(strstr(err.buf, "cannot open"));
	strbuf_release(&err);
}

/* store_open() on path gives -ENOTSUP, no store, and a message with want. */
static void refused(const char *path, const char *want)
{
	struct strbuf err = STRBUF_INIT;
	struct store *s = NULL;
	int ret;

	ret = store_open(&s, path, &err);
	assert_int_equal(ret, -ENOTSUP);
	assert_null(s);
	if (!strstr(err.buf, want) || !strstr(err.buf, "must be a regular file"))
		fail_msg("%s: \"%s\" lacks \"%s\"", path, err.buf, want);
	strbuf_reset(&err);
	ret = store_open_read(&s, path, true, &err);
	assert_int_equal(ret, -ENOTSUP);
	assert_null(s);
	assert_non_null(strstr(err.buf, want));
	strbuf_release(&err);
}

/*
 * The results file is only ever a regular file or a new path: a FIFO, a
 * directory, /dev/null, a symbolic link to one or to nothing, and a -wal or
 * -shm beside it that is not a regular file, are refused without a file
 * being created anywhere (no /dev/null-journal, nothing in the directory).
 */
static void test_path_refused(void **state)
{
	struct fixture *f = *state;
	char p[256], q[256];
	struct stat st;

	snprintf(p, sizeof(p), "%s/fifo", f->dir);
	assert_int_equal(mkfifo(p, 0600), 0);
	refused(p, "fifo: is a FIFO");
	snprintf(p, sizeof(p), "%s/dir", f->dir);
	assert_int_equal(mkdir(p, 0700), 0);
	refused(p, "dir: is a directory");
	refused("/dev/null", "/dev/null: is a character device");
	assert_int_not_equal(lstat("/dev/null-journal", &st), 0);
	assert_int_not_equal(lstat("/dev/null-wal", &st), 0);
	snprintf(p, sizeof(p), "%s/null", f->dir);
	assert_int_equal(symlink("/dev/null", p), 0);
	refused(p, "null: is a symbolic link to a character device");
	snprintf(p, sizeof(p), "%s/dangling", f->dir);
	assert_int_equal(symlink("nothere.db", p), 0);
	refused(p, "dangling: is a symbolic link to nothing");
	snprintf(p, sizeof(p), "%s/nothere.db", f->dir);
	assert_int_not_equal(lstat(p, &st), 0);
	snprintf(p, sizeof(p), "%s/dir", f->dir);
	assert_int_equal(rmdir(p), 0); /* it stayed empty */

	store_close(open_ok(f->path));
	snprintf(p, sizeof(p), "%s-wal", f->path);
	assert_int_equal(symlink("/dev/null", p), 0);
	refused(f->path, "results.db-wal: is a symbolic link to a character device");
	unlink(p);
	snprintf(q, sizeof(q), "%s-shm", f->path);
	assert_int_equal(mkfifo(q, 0600), 0);
	refused(f->path, "results.db-shm: is a FIFO");
	unlink(q);
	/* a symbolic link to the results file itself is fine */
	snprintf(p, sizeof(p), "%s/link.db", f->dir);
	assert_int_equal(symlink(f->path, p), 0);
	store_close(open_ok(p));
}

/* store_open_read(reap = false) reads and never writes: the run list comes
 * back, and a write through it fails. */
static void test_open_read_only(void **state)
{
	struct fixture *f = *state;
	struct strbuf err = STRBUF_INIT;
	struct store_run_brief *runs = NULL;
	struct store_run_info info = {.host = "h", .profile_name = "p", .engine = "sim"};
	struct store *s = open_ok(f->path);
	int64_t id;
	size_t n = 0;

	begin_ok(s);
	store_close(s);
	s = NULL;
	assert_int_equal(store_open_read(&s, f->path, false, &err), 0);
	assert_int_equal(store_run_list(s, &runs, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_int_not_equal(store_run_begin(s, &info, &id, &err), 0);
	free(runs);
	store_close(s);
	strbuf_release(&err);
}

/* Reopening a current file changes no schema (the schema cookie stays). */
static void test_reopen_keeps_schema(void **state)
{
	struct fixture *f = *state;
	struct strbuf err = STRBUF_INIT;
	struct store *s = open_ok(f->path);
	int64_t id = begin_ok(s), cookie, latest = 0;
	sqlite3 *db;

	store_close(s);
	db = raw_open(f->path);
	cookie = raw_int(db, "PRAGMA schema_version");
	sqlite3_close(db);

	s = open_ok(f->path);
	assert_int_equal(store_run_latest(s, &latest, &err), 0);
	assert_int_equal(latest, id);
	store_close(s);
	s = open_ok(f->path);
	store_close(s);

	db = raw_open(f->path);
	assert_int_equal(raw_int(db, "PRAGMA schema_version"), cookie);
	assert_int_equal(raw_int(db, "PRAGMA user_version"), STORE_SCHEMA_VERSION);
	sqlite3_close(db);
	strbuf_release(&err);
}

/* Two runs sharing one file, as two processes would. */
static void test_two_stores_interleaved(void **state)
{
	struct fixture *f = *state;
	struct store *a = open_ok(f->path), *b = open_ok(f->path);
	int64_t ida = begin_ok(a), idb = begin_ok(b);
	char sql[128];
	sqlite3 *db;
	uint64_t t;

	for (t = 1; t <= 50; t++) {
		write_interval(a, ida, t * 1000);
		write_interval(b, idb, t * 1000);
	}
	store_close(a);
	store_close(b);
	db = raw_open(f->path);
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM sample WHERE run_id = %lld",
		 (long long)ida);
	assert_int_equal(raw_int(db, sql), 100);
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM sample WHERE run_id = %lld",
		 (long long)idb);
	assert_int_equal(raw_int(db, sql), 100);
	sqlite3_close(db);
}

struct locker {
	const char *path;
	int ready[2]; /* pipe: the lock is held */
	unsigned hold_ms;
};

/* Holds the write lock of the file for hold_ms, as another run's writer would. */
static void *locker_main(void *arg)
{
	struct locker *l = arg;
	sqlite3 *db = NULL;
	char c = 1;

	if (sqlite3_open(l->path, &db) != SQLITE_OK ||
	    sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		c = 0;
	if (write(l->ready[1], &c, 1) != 1)
		c = 0;
	usleep(l->hold_ms * 1000);
	sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	sqlite3_close(db);
	return NULL;
}

static void run_against_locker(struct fixture *f, unsigned hold_ms, int want_ret,
			       uint64_t min_wait_ms)
{
	struct strbuf err = STRBUF_INIT;
	struct store *s = open_ok(f->path);
	int64_t id = begin_ok(s);
	struct store_sample row = {.scope = SCOPE_RUN, .scope_name = "run", .cls = IO_DB_READ};
	struct locker l = {.path = f->path, .hold_ms = hold_ms};
	uint64_t t0, waited_ms;
	pthread_t th;
	char c = 0;

	assert_int_equal(pipe(l.ready), 0);
	assert_int_equal(pthread_create(&th, NULL, locker_main, &l), 0);
	assert_int_equal(read(l.ready[0], &c, 1), 1);
	assert_int_equal(c, 1);
	t0 = time_mono_ns();
	assert_int_equal(store_interval_write(s, id, &row, 1, &err), want_ret);
	waited_ms = (time_mono_ns() - t0) / NSEC_PER_MSEC;
	assert_true(waited_ms >= min_wait_ms);
	if (want_ret)
		assert_non_null(strstr(err.buf, f->path));
	pthread_join(th, NULL);
	close(l.ready[0]);
	close(l.ready[1]);
	store_close(s);
	strbuf_release(&err);
}

/* A writer holding the file briefly is waited for. */
static void test_busy_waits(void **state)
{
	run_against_locker(*state, 300, 0, 200);
}

/* A writer holding it past the busy timeout (5 s) gives -EBUSY, not a hang. */
static void test_busy_timeout(void **state)
{
	run_against_locker(*state, 6500, -EBUSY, 4500);
}

/* A finished run of host with two intervals, two events, two facts and totals. */
static int64_t full_run(struct store *s, const char *host, uint64_t started_s)
{
	struct strbuf err = STRBUF_INIT;
	struct store_run_info info = run_info;
	struct class_stats cls[IO_CLASS_COUNT];
	struct store_scope_total total = {.scope = SCOPE_RUN, .name = "run", .classes = cls};
	struct store_run_end end = {
		.status = "passed",
		.verdict = "PASS",
		.ended_real_ns = (started_s + 60) * NSEC_PER_SEC,
		.duration_ns = 2 * NSEC_PER_SEC,
		.totals = &total,
		.nr_totals = 1,
	};
	int64_t id;
	int c;

	info.host = host;
	info.started_real_ns = started_s * NSEC_PER_SEC;
	for (c = 0; c < IO_CLASS_COUNT; c++)
		stats_class_init(&cls[c]);
	stats_fill(&cls[IO_DB_READ], 200, 5000000, 32768);
	stats_fill(&cls[IO_DB_READ], 1, 9000000, 32768);
	if (store_run_begin(s, &info, &id, &err))
		fail_msg("store_run_begin: %s", err.buf);
	write_interval(s, id, 2000);
	write_interval(s, id, 1000);
	assert_int_equal(store_event_add(s, id, 2000, "stop", "done", &err), 0);
	assert_int_equal(store_event_add(s, id, 0, "start", NULL, &err), 0);
	assert_int_equal(store_env_add(s, id, "kernel", "6.8.0", &err), 0);
	assert_int_equal(store_env_add(s, id, "cpu", "Xeon, 8 cores", &err), 0);
	if (store_run_finish(s, id, &end, &err))
		fail_msg("store_run_finish: %s", err.buf);
	strbuf_release(&err);
	return id;
}

/*
 * Schema 7: the percentile columns written at the end, a file of schema 6
 * migrated to the same figures from its histograms (and its views made),
 * and the absolute times of the offsets from the run's clocks.
 */
static void test_migrate_v6(void **state)
{
	struct fixture *f = *state;
	struct strbuf err = STRBUF_INIT;
	struct store *s = open_ok(f->path);
	int64_t id = full_run(s, "db-host-1", 1764454328ULL);
	char *before, *after;
	sqlite3 *db;

	store_close(s);
	db = raw_open(f->path);
	before = raw_text(db, "SELECT group_concat(class || ':' || coalesce(p90_ms, '-') || ','"
			      " || coalesce(p95_ms, '-') || ',' || coalesce(p999_ms, '-') || ','"
			      " || coalesce(p9999_ms, '-'), ' ') FROM summary");
	/* 200 reads of 5 ms and one of 9 ms: p99.9 is the slow one, p90 not */
	assert_true(raw_int(db, "SELECT p999_ms > 8.9 AND p999_ms <= 9 AND p90_ms < 5.1"
				" FROM summary WHERE class = 'db_read'"));
	assert_int_equal(raw_int(db, "SELECT count(*) FROM summary WHERE ios = 0"
				     " AND p999_ms IS NOT NULL"),
			 0);
	assert_int_equal(sqlite3_exec(db,
				      SCHEMA7_UNDO " PRAGMA user_version = 6;"
						   " PRAGMA wal_checkpoint(TRUNCATE)",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(db);

	s = open_ok(f->path);
	store_close(s);
	db = raw_open(f->path);
	assert_int_equal(raw_int(db, "PRAGMA user_version"), STORE_SCHEMA_VERSION);
	after = raw_text(db, "SELECT group_concat(class || ':' || coalesce(p90_ms, '-') || ','"
			     " || coalesce(p95_ms, '-') || ',' || coalesce(p999_ms, '-') || ','"
			     " || coalesce(p9999_ms, '-'), ' ') FROM summary");
	assert_string_equal(before, after);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM sqlite_master WHERE type = 'view'"
				     " AND name LIKE 'v\\_%' ESCAPE '\\'"),
			 7);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM v_run_class"), IO_CLASS_COUNT);
	/* an old run's times: its started_at (whole seconds) plus the offset */
	assert_int_equal(raw_int(db, "SELECT count(*) FROM sample WHERE time_utc ="
				     " '2025-11-29T22:12:09.000Z' AND t_ms = 1000"),
			 raw_int(db, "SELECT count(*) FROM sample WHERE t_ms = 1000"));
	assert_int_equal(raw_int(db, "SELECT count(*) FROM event WHERE time_utc ="
				     " '2025-11-29T22:12:10.000Z' AND kind = 'stop'"),
			 1);
	sqlite3_close(db);
	free(before);
	free(after);

	/* a run's clocks: the samples' from the grid's start, the events' that
	 * much earlier as the run clock had run before it */
	s = open_ok(f->path);
	id = begin_ok(s);
	assert_int_equal(store_run_clock(s, id, 1764454328500000000ULL, 250000000ULL, &err), 0);
	write_interval(s, id, 1000);
	assert_int_equal(store_event_add(s, id, 2000, "stop", "done", &err), 0);
	store_close(s);
	db = raw_open(f->path);
	before = raw_text(db, "SELECT t0_utc FROM run ORDER BY id DESC LIMIT 1");
	assert_string_equal(before, "2025-11-29T22:12:08.500Z");
	free(before);
	assert_int_equal(raw_int(db, "SELECT count(DISTINCT time_utc) FROM sample WHERE run_id ="
				     " (SELECT max(id) FROM run) AND time_utc ="
				     " '2025-11-29T22:12:09.500Z'"),
			 1);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM event WHERE run_id ="
				     " (SELECT max(id) FROM run) AND time_utc ="
				     " '2025-11-29T22:12:10.250Z'"),
			 1);
	sqlite3_close(db);
	strbuf_release(&err);
}

static void test_load_series(void **state)
{
	struct fixture *f = *state;
	struct strbuf err = STRBUF_INIT;
	struct store *s = open_ok(f->path);
	const struct results_hist *h;
	struct results r;
	int64_t id = full_run(s, "db-host-1", 1764454328ULL);

	assert_int_equal(store_results_load(s, id, &r, &err), 0);
	/* samples by t_ms, then in the order written */
	assert_int_equal(r.nr_samples, 4);
	assert_int_equal(r.samples[0].t_ms, 1000);
	assert_int_equal(r.samples[0].scope, SCOPE_RUN);
	assert_string_equal(r.samples[0].name, "run");
	assert_int_equal(r.samples[0].cls, IO_DB_READ);
	assert_int_equal(r.samples[0].ios, 100);
	assert_int_equal(r.samples[0].bytes, 3276800);
	assert_int_equal(r.samples[0].lat_sum_ns, 500000000);
	assert_int_equal(r.samples[0].lat_max_ns, 9000000);
	assert_int_equal(r.samples[0].p50_ns, 5000000);
	assert_int_equal(r.samples[0].p99_ns, 8000000);
	assert_false(r.samples[0].warmup);
	assert_int_equal(r.samples[1].t_ms, 1000);
	assert_int_equal(r.samples[1].scope, SCOPE_VOLUME);
	assert_string_equal(r.samples[1].name, "vol1");
	assert_int_equal(r.samples[1].cls, IO_LOG_WRITE);
	assert_int_equal(r.samples[2].t_ms, 2000);
	assert_int_equal(r.samples[3].t_ms, 2000);
	/* env by key, events by time */
	assert_int_equal(r.nr_env, 2);
	assert_string_equal(r.env[0].key, "cpu");
	assert_string_equal(r.env[0].value, "Xeon, 8 cores");
	assert_string_equal(r.env[1].key, "kernel");
	assert_int_equal(r.nr_events, 2);
	assert_int_equal(r.events[0].t_ms, 0);
	assert_string_equal(r.events[0].kind, "start");
	assert_null(r.events[0].message);
	assert_string_equal(r.events[1].kind, "stop");
	assert_string_equal(r.events[1].message, "done");
	/* histograms: one per scope x class, decoded with their exact columns */
	assert_int_equal(r.nr_hists, IO_CLASS_COUNT);
	h = &r.hists[IO_DB_READ];
	assert_int_equal(h->scope, SCOPE_RUN);
	assert_string_equal(h->name, "run");
	assert_int_equal(h->cls, IO_DB_READ);
	assert_int_equal(h->h->count, 201);
	assert_int_equal(h->h->sum_ns, 200 * 5000000ULL + 9000000ULL);
	assert_int_equal(h->h->min_ns, 5000000);
	assert_int_equal(h->h->max_ns, 9000000);
	assert_int_equal(h->h->buckets[hist_bucket_index(5000000)], 200);
	assert_int_equal(h->h->buckets[hist_bucket_index(9000000)], 1);
	assert_int_equal(hist_percentile(h->h, 50), hist_bucket_value(hist_bucket_index(5000000)));
	assert_int_equal(r.hists[IO_LOG_WRITE].h->count, 0);
	assert_int_equal(r.hists[IO_LOG_WRITE].h->min_ns, UINT64_MAX);
	results_release(&r);
	results_release(&r);
	store_close(s);
	strbuf_release(&err);
}

/*
 * Auto-tune's steps (in step order, whatever the order written; a step with
 * no figures or reason stored reads as NAN and NULL) and its outcome from the
 * env facts; the warm-up from the run-scope warm-up rows. A run with neither
 * has no auto-tune and no warm-up.
 */
static void test_load_autotune_warmup(void **state)
{
	struct fixture *f = *state;
	struct strbuf err = STRBUF_INIT;
	struct store *s = open_ok(f->path);
	const struct results_autotune *a;
	struct results r;
	int64_t plain = full_run(s, "db-host-1", 1764454328ULL), id = begin_ok(s);
	struct store_sample warm = {.t_ms = 500,
				    .warmup = true,
				    .scope = SCOPE_RUN,
				    .scope_name = "run",
				    .cls = IO_DB_READ,
				    .ios = 50,
				    .bytes = 50 * 32768,
				    .lat_sum_ns = 50 * 4000000ULL};
	char sql[160];
	sqlite3 *db;

	assert_int_equal(store_autotune_step_add(s, id, 2, 8, 4441.25, 2.783, 1.571, false,
						 "log write average 9.3 ms > 9.0 ms", &err),
			 0);
	assert_int_equal(store_autotune_step_add(s, id, 1, 4, 2744.5, 2.273, 1.097, true,
						 "within 90 % of the thresholds", &err),
			 0);
	db = raw_open(f->path);
	snprintf(sql, sizeof(sql),
		 "INSERT INTO autotune_step (run_id, step, streams, passed) VALUES (%lld, 3, 6, 1)",
		 (long long)id);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(store_env_add(s, id, "autotune_goal", "max", &err), 0);
	assert_int_equal(store_env_add(s, id, "autotune_chosen", "6", &err), 0);
	assert_int_equal(store_env_add(s, id, "autotune_stopped_because", "6 pass, 8 do not", &err),
			 0);
	assert_int_equal(store_interval_write(s, id, &warm, 1, &err), 0);
	warm.t_ms = 1000;
	assert_int_equal(store_interval_write(s, id, &warm, 1, &err), 0);
	warm.t_ms = 2000;
	warm.warmup = false;
	assert_int_equal(store_interval_write(s, id, &warm, 1, &err), 0);

	assert_int_equal(store_results_load(s, id, &r, &err), 0);
	a = &r.autotune;
	assert_true(results_autotune_ran(&r));
	assert_string_equal(a->goal, "max");
	assert_true(a->has_chosen);
	assert_int_equal(a->chosen, 6);
	assert_string_equal(a->stopped_because, "6 pass, 8 do not");
	assert_int_equal(a->nr_steps, 3);
	assert_int_equal(a->steps[0].step, 1);
	assert_int_equal(a->steps[0].streams, 4);
	assert_true(a->steps[0].iops == 2744.5);
	assert_true(a->steps[0].db_read_avg_ms == 2.273);
	assert_true(a->steps[0].log_write_avg_ms == 1.097);
	assert_true(a->steps[0].passed);
	assert_string_equal(a->steps[0].reason, "within 90 % of the thresholds");
	assert_int_equal(a->steps[1].step, 2);
	assert_false(a->steps[1].passed);
	assert_int_equal(a->steps[2].streams, 6);
	assert_true(isnan(a->steps[2].iops) && isnan(a->steps[2].db_read_avg_ms) &&
		    isnan(a->steps[2].log_write_avg_ms));
	assert_null(a->steps[2].reason);
	assert_true(r.warmup.duration_s == 1.0);
	assert_int_equal(r.warmup.classes[IO_DB_READ].ios, 100);
	assert_true(r.warmup.classes[IO_DB_READ].iops == 100.0);
	assert_true(fabs(r.warmup.classes[IO_DB_READ].avg_ms - 4.0) < 1e-9);
	results_release(&r);
	results_release(&r);

	assert_int_equal(store_results_load(s, plain, &r, &err), 0);
	assert_false(results_autotune_ran(&r));
	assert_int_equal(r.autotune.nr_steps, 0);
	assert_true(r.warmup.duration_s == 0);
	results_release(&r);
	store_close(s);
	strbuf_release(&err);
}

/* One interval's rows of a scope, every class: ios[c] I/Os (errors[c] errors). */
static size_t interval_rows(struct store_sample *rows, uint64_t t_ms, enum scope_kind scope,
			    const char *name, const uint64_t *ios, const uint64_t *errors)
{
	for (int c = 0; c < IO_CLASS_COUNT; c++)
		rows[c] = (struct store_sample){.t_ms = t_ms,
						.scope = scope,
						.scope_name = name,
						.cls = (enum io_class)c,
						.ios = ios[c],
						.bytes = ios[c] * 4096,
						.errors = errors ? errors[c] : 0,
						.lat_sum_ns = ios[c] * 1000000,
						.lat_max_ns = ios[c] ? 2000000 : 0};
	return IO_CLASS_COUNT;
}

/*
 * Rows of classes with no I/O and no error are not written, but every
 * interval of a scope keeps one row (a stall stays on record); empty window
 * histograms are not written either. Loaded back, the rows are those written.
 */
static void test_empty_classes_skipped(void **state)
{
	struct fixture *f = *state;
	struct strbuf err = STRBUF_INIT;
	struct store *s = open_ok(f->path);
	int64_t id = begin_ok(s);
	const uint64_t busy[IO_CLASS_COUNT] = {[IO_DB_READ] = 100, [IO_BDM_READ] = 4};
	const uint64_t idle[IO_CLASS_COUNT] = {0};
	const uint64_t failed[IO_CLASS_COUNT] = {[IO_LOG_READ] = 1};
	struct store_sample rows[4 * IO_CLASS_COUNT];
	struct store_interval_hist hrows[IO_CLASS_COUNT];
	struct hist h[IO_CLASS_COUNT];
	struct results r;
	size_t n = 0;
	sqlite3 *db;

	n += interval_rows(&rows[n], 1000, SCOPE_VOLUME, "vol1", busy, NULL);
	n += interval_rows(&rows[n], 1000, SCOPE_VOLUME, "vol2", idle, NULL);
	n += interval_rows(&rows[n], 1000, SCOPE_RUN, "run", busy, NULL);
	n += interval_rows(&rows[n], 1000, SCOPE_DATABASE, "db1", idle, failed);
	assert_int_equal(store_interval_write(s, id, rows, n, &err), 0);
	for (int c = 0; c < IO_CLASS_COUNT; c++) {
		hist_init(&h[c]);
		if (c == IO_DB_READ)
			hist_add(&h[c], 1000000);
		hrows[c] = (struct store_interval_hist){
			.t_ms = 1000, .scope = SCOPE_VOLUME, .name = "vol1", .cls = c, .h = &h[c]};
	}
	assert_int_equal(store_interval_hists_write(s, id, hrows, IO_CLASS_COUNT, &err), 0);
	hrows[IO_DB_READ].h = &h[IO_DB_WRITE]; /* all empty: nothing, and no error */
	assert_int_equal(store_interval_hists_write(s, id, hrows, IO_CLASS_COUNT, &err), 0);

	assert_int_equal(store_results_load(s, id, &r, &err), 0);
	/* vol1: db_read, bdm_read; vol2 (idle): its first row; run: two; db1: the error */
	assert_int_equal(r.nr_samples, 2 + 1 + 2 + 1);
	assert_string_equal(r.samples[0].name, "vol1");
	assert_int_equal(r.samples[0].cls, IO_DB_READ);
	assert_int_equal(r.samples[1].cls, IO_BDM_READ);
	assert_int_equal(r.samples[1].ios, 4);
	assert_string_equal(r.samples[2].name, "vol2");
	assert_int_equal(r.samples[2].cls, IO_DB_READ);
	assert_int_equal(r.samples[2].ios, 0);
	assert_string_equal(r.samples[5].name, "db1");
	assert_int_equal(r.samples[5].cls, IO_LOG_READ);
	assert_int_equal(r.samples[5].errors, 1);
	/* the one stored window, in bands: 1 ms in the band of its bucket */
	assert_int_equal(r.nr_windows, 1);
	assert_string_equal(r.windows[0].name, "vol1");
	assert_int_equal(r.windows[0].cls, IO_DB_READ);
	assert_int_equal(r.windows[0].count, 1);
	assert_int_equal(r.windows[0].lo, results_band_of_bucket(hist_bucket_index(1000000)));
	assert_int_equal(r.windows[0].nr, 1);
	assert_int_equal(r.windows[0].bands[0], 1);
	results_release(&r);
	store_close(s);

	db = raw_open(f->path);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM interval_histogram"), 1);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM interval_histogram WHERE class ="
				     " 'db_read' AND count = 1 AND min_ns = 1000000"),
			 1);
	sqlite3_close(db);
	strbuf_release(&err);
}

static void test_run_delete(void **state)
{
	struct fixture *f = *state;
	struct strbuf err = STRBUF_INIT;
	struct store *s = open_ok(f->path);
	int64_t a = full_run(s, "h", 1000), b = full_run(s, "h", 2000), c = full_run(s, "h", 3000);
	int64_t bad[] = {a, 999}, good[] = {a, c};
	struct store_run_brief *runs;
	size_t n;
	sqlite3 *db;

	/* an unknown id: named, and nothing deleted */
	assert_int_equal(store_run_delete(s, bad, 2, &err), -ENOENT);
	assert_non_null(strstr(err.buf, "run 999 not found"));
	strbuf_reset(&err);
	assert_int_equal(store_run_list(s, &runs, &n, &err), 0);
	assert_int_equal(n, 3);
	free(runs);

	assert_int_equal(store_run_delete(s, good, 2, &err), 0);
	assert_int_equal(store_run_list(s, &runs, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_int_equal(runs[0].id, b);
	free(runs);
	store_close(s);

	db = raw_open(f->path);
	assert_int_equal(raw_int(db, "SELECT (SELECT count(*) FROM sample) + (SELECT count(*)"
				     " FROM event) + (SELECT count(*) FROM env) + (SELECT"
				     " count(*) FROM summary) + (SELECT count(*) FROM histogram)"),
			 4 + 2 + 2 + IO_CLASS_COUNT + IO_CLASS_COUNT);
	sqlite3_close(db);
	strbuf_release(&err);
}

static void import_ok(struct store *s, const char *other, unsigned want_imported,
		      unsigned want_skipped)
{
	struct strbuf err = STRBUF_INIT, refusals = STRBUF_INIT;
	struct store_import_counts n = {99, 99, 99, 99};
	int ret = store_import(s, other, &n, &refusals, &err);

	if (ret)
		fail_msg("store_import: %d: %s", ret, err.buf);
	assert_int_equal(n.imported, want_imported);
	assert_int_equal(n.skipped, want_skipped);
	assert_int_equal(n.replaced, 0);
	assert_int_equal(n.refused, 0);
	assert_int_equal(refusals.len, 0);
	strbuf_release(&err);
	strbuf_release(&refusals);
}

/* Runs of another file come in with new ids and their host; twice adds nothing. */
static void test_import(void **state)
{
	struct fixture *f = *state;
	struct strbuf err = STRBUF_INIT;
	char other[192];
	struct store *s = open_ok(f->path), *o;
	struct store_run_brief *runs;
	struct results r;
	size_t n;
	sqlite3 *db;

	snprintf(other, sizeof(other), "%s/other.db", f->dir);
	o = open_ok(other);
	full_run(o, "server-b", 1000);
	full_run(o, "server-b", 2000);
	store_close(o);
	full_run(s, "server-a", 500);

	import_ok(s, other, 2, 0);
	import_ok(s, other, 0, 2);
	assert_int_equal(store_run_list(s, &runs, &n, &err), 0);
	assert_int_equal(n, 3);
	assert_string_equal(runs[0].host, "server-a");
	assert_string_equal(runs[1].host, "server-b");
	assert_string_equal(runs[2].host, "server-b");
	assert_string_equal(runs[1].started_at, "1970-01-01T00:16:40Z");
	assert_string_equal(runs[1].label, "cache 90:10");
	assert_int_equal(store_results_load(s, runs[2].id, &r, &err), 0);
	assert_int_equal(r.nr_samples, 4);
	assert_int_equal(r.nr_env, 2);
	assert_int_equal(r.nr_events, 2);
	assert_int_equal(r.nr_hists, IO_CLASS_COUNT);
	assert_int_equal(r.run.classes[IO_DB_READ].ios, 201);
	assert_string_equal(r.status, "passed");
	results_release(&r);
	free(runs);

	/* importing a file into itself adds nothing either */
	import_ok(s, f->path, 0, 3);
	store_close(s);

	/* the other file is untouched; uuids differ */
	db = raw_open(other);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM run"), 2);
	sqlite3_close(db);
	db = raw_open(f->path);
	assert_int_equal(raw_int(db, "SELECT count(DISTINCT uuid) FROM run"), 3);
	sqlite3_close(db);
	strbuf_release(&err);
}

static void test_import_refuses(void **state)
{
	struct fixture *f = *state;
	struct strbuf err = STRBUF_INIT;
	struct store *s = open_ok(f->path);
	char other[192];
	struct store_import_counts n;
	sqlite3 *db;

	snprintf(other, sizeof(other), "%s/foreign.db", f->dir);
	db = raw_open(other);
	assert_int_equal(sqlite3_exec(db, "CREATE TABLE t (x)", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(store_import(s, other, &n, &err, &err), -EINVAL);
	assert_non_null(strstr(err.buf, "not a diskproof results file"));
	strbuf_reset(&err);
	snprintf(other, sizeof(other), "%s/missing.db", f->dir);
	assert_true(store_import(s, other, &n, &err, &err) < 0);
	assert_int_equal(access(other, F_OK), -1); /* not created */
	store_close(s);
	strbuf_release(&err);
}

/* Copies the committed version-1 fixture to path. */
static void copy_v1_fixture(const char *path)
{
	char buf[4096];
	size_t n;
	FILE *in = fopen(DP_SOURCE_DIR "/tests/golden/results/schema-v1.db", "rb");
	FILE *out = fopen(path, "wb");

	assert_non_null(in);
	assert_non_null(out);
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		assert_int_equal(fwrite(buf, 1, n, out), n);
	fclose(in);
	assert_int_equal(fclose(out), 0);
}

/* A file made by schema 1 (three I/O classes) is migrated: current version,
 * runs load and report, uuids filled. */
static void test_migrate_v1(void **state)
{
	struct fixture *f = *state;
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	size_t i, lines;
	int c;
	struct store *s;
	struct results r;
	char *uuid;
	sqlite3 *db;

	copy_v1_fixture(f->path);
	db = raw_open(f->path);
	assert_int_equal(raw_int(db, "PRAGMA user_version"), 1);
	sqlite3_close(db);

	s = open_ok(f->path);
	assert_int_equal(store_results_load(s, 1, &r, &err), 0);
	assert_string_equal(r.label, "v1 fixture");
	assert_string_equal(r.status, "passed");
	assert_true(r.nr_samples > 0);
	assert_true(r.nr_hists > 0);
	assert_true(r.nr_env > 0);
	assert_true(r.nr_events > 0);
	assert_int_equal(r.nr_volumes, 2);
	/* written with three classes: those are present, the later ones absent */
	for (c = 0; c < IO_CLASS_COUNT; c++)
		assert_int_equal(results_class_present(&r.run.classes[c]), c <= IO_LOG_WRITE);
	/* from before auto-tune: none */
	assert_false(results_autotune_ran(&r));
	/* its reports show the three classes, and its CSV every stored row */
	report_render(&out, &r, REPORT_TEXT, NULL);
	assert_non_null(strstr(out.buf, "log_write"));
	assert_null(strstr(out.buf, "bdm_read"));
	assert_null(strstr(out.buf, "backup_read"));
	strbuf_reset(&out);
	report_render(&out, &r, REPORT_CSV, NULL);
	for (i = 0, lines = 0; i < out.len; i++)
		lines += out.buf[i] == '\n';
	/* the series, then a transactional row per scope, then a whole-run row
	 * per scope and class present */
	{
		size_t whole = 0;

		for (c = 0; c < IO_CLASS_COUNT; c++) {
			whole += results_class_present(&r.run.classes[c]);
			for (i = 0; i < r.nr_volumes; i++)
				whole += results_class_present(&r.volumes[i].classes[c]);
			for (i = 0; i < r.nr_databases; i++)
				whole += results_class_present(&r.databases[i].classes[c]);
		}
		assert_true(whole >= 3);
		assert_int_equal(lines,
				 1 + r.nr_samples + 1 + r.nr_volumes + r.nr_databases + whole);
	}
	/* from before schema 6: no final database size */
	for (i = 0; i < r.nr_databases; i++)
		assert_false(r.databases[i].final_size_known);
	/* from before the stream pool: no streams per scope */
	assert_true(isnan(r.run.streams));
	for (i = 0; i < r.nr_databases; i++)
		assert_true(isnan(r.databases[i].streams));
	strbuf_release(&out);
	results_release(&r);
	store_close(s);

	db = raw_open(f->path);
	assert_int_equal(raw_int(db, "PRAGMA user_version"), STORE_SCHEMA_VERSION);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM run WHERE uuid IS NULL"), 0);
	uuid = raw_text(db, "SELECT uuid FROM run WHERE id = 1");
	assert_int_equal(strlen(uuid), 32);
	assert_int_equal(strspn(uuid, "0123456789abcdef"), 32);
	free(uuid);
	sqlite3_close(db);
	strbuf_release(&err);
}

/*
 * A version-1 file imported as it is (left at version 1), then the same file
 * after its migration: the run is recognized, nothing is added twice.
 */
static void test_import_v1(void **state)
{
	struct fixture *f = *state;
	char old[192];
	struct store *s = open_ok(f->path), *o;
	sqlite3 *db;

	snprintf(old, sizeof(old), "%s/v1.db", f->dir);
	copy_v1_fixture(old);
	import_ok(s, old, 1, 0);
	db = raw_open(old);
	assert_int_equal(raw_int(db, "PRAGMA user_version"), 1);
	sqlite3_close(db);
	o = open_ok(old); /* migrates it */
	store_close(o);
	import_ok(s, old, 0, 1);
	store_close(s);
}

/* ---- host counters ---- */

static void host_write(struct store *s, int64_t id, uint64_t t_ms, bool warm,
		       const struct host_sample *hs)
{
	struct strbuf err = STRBUF_INIT;
	int ret = store_host_samples_write(s, id, t_ms, warm, hs, &err);

	if (ret)
		fail_msg("store_host_samples_write: %d: %s", ret, err.buf);
	strbuf_release(&err);
}

static struct host_dev_sample dev_row(const char *name, uint64_t span_ms, uint64_t reads,
				      uint64_t writes, uint64_t rs, uint64_t ws, double rw,
				      double ww, double util, double queue)
{
	struct host_dev_sample d = {
		.valid = true,
		.elapsed_ns = span_ms * NSEC_PER_MSEC,
		.reads = reads,
		.writes = writes,
		.read_sectors = rs,
		.write_sectors = ws,
		.reads_per_s = (double)reads * 1000.0 / (double)span_ms,
		.writes_per_s = (double)writes * 1000.0 / (double)span_ms,
		.read_kbps = (double)rs / 2.0 * 1000.0 / (double)span_ms,
		.write_kbps = (double)ws / 2.0 * 1000.0 / (double)span_ms,
		.read_wait_ms = rw,
		.write_wait_ms = ww,
		.avg_wait_ms = reads + writes ? ((double)reads * (isnan(rw) ? 0 : rw) +
						 (double)writes * (isnan(ww) ? 0 : ww)) /
							(double)(reads + writes)
					      : NAN,
		.util_pct = util,
		.queue = queue};

	snprintf(d.name, sizeof(d.name), "%s", name);
	return d;
}

/*
 * A warm-up interval and three measured ones (2 s long, then one without a
 * CPU figure), two devices (sdc in one interval only, with no reads): the
 * rows as written, and the figures over the measured intervals worked out
 * by hand in the comments.
 */
static int64_t host_run(struct store *s)
{
	int64_t id = full_run(s, "db-host-1", 1764454328ULL);
	struct host_dev_sample d[2];
	struct host_sample hs = {.has_cpu = true,
				 .cpu_elapsed_ns = NSEC_PER_SEC,
				 .cpu_user_pct = 50,
				 .cpu_system_pct = 10,
				 .cpu_iowait_pct = 5,
				 .has_mem = true,
				 .mem_available = 1000000000,
				 .elapsed_ns = NSEC_PER_SEC,
				 .devs = d,
				 .nr_devs = 1};

	d[0] = dev_row("sdb", 1000, 100, 50, 6400, 3200, 1.0, 1.0, 90, 5.0);
	host_write(s, id, 1000, true, &hs);
	hs.cpu_user_pct = 20;
	hs.cpu_system_pct = 10;
	hs.cpu_iowait_pct = 4;
	hs.mem_available = 3000000000;
	d[0] = dev_row("sdb", 1000, 200, 100, 12800, 6400, 2.0, 6.0, 50, 1.0);
	d[1] = dev_row("sdc", 1000, 0, 10, 0, 80, NAN, 1.0, 5, 0.1);
	hs.nr_devs = 2;
	host_write(s, id, 2000, false, &hs);
	hs.cpu_elapsed_ns = hs.elapsed_ns = 2 * NSEC_PER_SEC;
	hs.cpu_user_pct = 50;
	hs.cpu_system_pct = 20;
	hs.cpu_iowait_pct = 10;
	hs.mem_available = 2000000000;
	d[0] = dev_row("sdb", 2000, 600, 0, 25600, 0, 4.0, NAN, 80, 3.0);
	d[1].valid = false; /* sdc went away */
	host_write(s, id, 4000, false, &hs);
	hs.has_cpu = false;
	hs.elapsed_ns = NSEC_PER_SEC;
	hs.mem_available = 2500000000;
	hs.nr_devs = 0;
	host_write(s, id, 5000, false, &hs);
	/* nothing measured: nothing written */
	hs.has_mem = false;
	host_write(s, id, 6000, false, &hs);
	return id;
}

static void test_host_round_trip(void **state)
{
	struct fixture *f = *state;
	struct strbuf err = STRBUF_INIT;
	struct store *s = open_ok(f->path);
	const struct results_host_perf *h;
	const struct results_host_device *sdb, *sdc;
	const struct results_host_sample *x;
	int64_t id = host_run(s), plain = full_run(s, "db-host-1", 1764454400ULL);
	struct results r;
	sqlite3 *db;

	assert_int_equal(store_results_load(s, id, &r, &err), 0);
	/* rows by time, the host's before its devices' */
	assert_int_equal(r.nr_host_samples, 2 + 3 + 2 + 1);
	x = &r.host_samples[0];
	assert_int_equal(x->t_ms, 1000);
	assert_true(x->warmup);
	assert_string_equal(x->device, "");
	assert_int_equal(x->span_ms, 1000);
	assert_close(x->cpu_user_pct, 50);
	assert_close(x->mem_available, 1e9);
	assert_true(isnan(x->reads_per_s));
	assert_int_equal(x->reads, 0);
	x = &r.host_samples[1];
	assert_string_equal(x->device, "sdb");
	assert_true(isnan(x->cpu_user_pct));
	assert_true(isnan(x->mem_available));
	assert_int_equal(x->reads, 100);
	assert_int_equal(x->write_sectors, 3200);
	assert_close(x->reads_per_s, 100);
	assert_close(x->read_kbps, 3200);
	assert_close(x->util_pct, 90);
	assert_close(x->queue, 5);
	x = &r.host_samples[4];
	assert_string_equal(x->device, "sdc");
	assert_true(isnan(x->read_wait_ms)); /* no reads: NULL, back as NAN */
	assert_close(x->write_wait_ms, 1.0);
	x = &r.host_samples[5];
	assert_int_equal(x->t_ms, 4000);
	assert_int_equal(x->span_ms, 2000);
	x = &r.host_samples[7];
	assert_int_equal(x->t_ms, 5000);
	assert_true(isnan(x->cpu_user_pct));
	assert_close(x->mem_available, 2.5e9);
	assert_int_equal(x->span_ms, 1000);

	h = &r.host_perf;
	assert_true(h->recorded);
	/* CPU: 1 s at 20/10/4 and 2 s at 50/20/10 */
	assert_int_equal(h->cpu_intervals, 2);
	assert_close(h->cpu_user_pct, (20.0 + 100.0) / 3);
	assert_close(h->cpu_system_pct, (10.0 + 40.0) / 3);
	assert_close(h->cpu_iowait_pct, (4.0 + 20.0) / 3);
	/* memory: 3e9, 2e9, 2.5e9 (the warm-up's 1e9 not counted) */
	assert_int_equal(h->mem_intervals, 3);
	assert_close(h->mem_available_min, 2e9);
	assert_close(h->mem_available_avg, 2.5e9);
	assert_int_equal(h->nr_devices, 2);
	sdb = &h->devices[0];
	sdc = &h->devices[1];
	assert_string_equal(sdb->name, "sdb");
	assert_int_equal(sdb->intervals, 2);
	assert_int_equal(sdb->reads, 800);
	assert_int_equal(sdb->writes, 100);
	assert_close(sdb->reads_per_s, 800.0 / 3);
	assert_close(sdb->writes_per_s, 100.0 / 3);
	assert_close(sdb->read_mbps, 38400.0 * 512 / 1e6 / 3);
	assert_close(sdb->write_mbps, 6400.0 * 512 / 1e6 / 3);
	assert_close(sdb->read_wait_ms, (200 * 2.0 + 600 * 4.0) / 800); /* 3.5 */
	assert_close(sdb->write_wait_ms, 6.0);
	assert_close(sdb->avg_wait_ms, (400.0 + 600.0 + 2400.0) / 900);
	assert_close(sdb->util_pct, (50.0 + 2 * 80.0) / 3); /* 70 */
	assert_close(sdb->util_max_pct, 80);
	assert_close(sdb->queue, (1.0 + 2 * 3.0) / 3);
	assert_string_equal(sdc->name, "sdc");
	assert_int_equal(sdc->intervals, 1);
	assert_close(sdc->reads_per_s, 0);
	assert_true(isnan(sdc->read_wait_ms));
	assert_close(sdc->avg_wait_ms, 1.0);
	assert_close(sdc->read_mbps, 0);
	assert_close(sdc->write_mbps, 80.0 * 512 / 1e6);
	results_release(&r);

	/* a run without host rows: nothing recorded */
	assert_int_equal(store_results_load(s, plain, &r, &err), 0);
	assert_int_equal(r.nr_host_samples, 0);
	assert_false(r.host_perf.recorded);
	assert_int_equal(r.host_perf.nr_devices, 0);
	results_release(&r);

	/* deleted with the run */
	assert_int_equal(store_run_delete(s, &id, 1, &err), 0);
	store_close(s);
	db = raw_open(f->path);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM host_sample"), 0);
	sqlite3_close(db);
	strbuf_release(&err);
}

/* A device row without a name is refused, and nothing of the interval kept. */
static void test_host_bad_row(void **state)
{
	struct fixture *f = *state;
	struct strbuf err = STRBUF_INIT;
	struct store *s = open_ok(f->path);
	int64_t id = begin_ok(s);
	struct host_dev_sample d = {.valid = true};
	struct host_sample hs = {.has_mem = true, .mem_available = 1, .devs = &d, .nr_devs = 1};
	sqlite3 *db;

	assert_int_equal(store_host_samples_write(s, id, 1000, false, &hs, &err), -EINVAL);
	assert_non_null(strstr(err.buf, "device 0 has no name"));
	store_close(s);
	db = raw_open(f->path);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM host_sample"), 0);
	sqlite3_close(db);
	strbuf_release(&err);
}

/* Host rows travel with an imported run. */
static void test_host_import(void **state)
{
	struct fixture *f = *state;
	struct strbuf err = STRBUF_INIT;
	struct store *s = open_ok(f->path), *o;
	struct results r;
	char other[192];
	int64_t id;

	snprintf(other, sizeof(other), "%s/other.db", f->dir);
	o = open_ok(other);
	host_run(o);
	store_close(o);
	import_ok(s, other, 1, 0);
	assert_int_equal(store_run_latest(s, &id, &err), 0);
	assert_int_equal(store_results_load(s, id, &r, &err), 0);
	assert_int_equal(r.nr_host_samples, 8);
	assert_int_equal(r.host_perf.nr_devices, 2);
	assert_close(r.host_perf.devices[0].read_wait_ms, 3.5);
	results_release(&r);
	store_close(s);
	strbuf_release(&err);
}

/*
 * A version-3 file: one made now with what schema 4 added dropped and its
 * version set back (schema 4 only adds table host_sample). Opening migrates
 * it (the table back, empty, version 4), its run loads with no host figures
 * and reports "host": null, and host rows can be written to it; an import
 * from a version-3 file copies its runs.
 */
static void test_migrate_v3(void **state)
{
	struct fixture *f = *state;
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	struct host_sample hs = {.has_mem = true, .mem_available = 42};
	char v3[192];
	struct store *s = open_ok(f->path);
	int64_t id = full_run(s, "db-host-1", 1764454328ULL);
	struct results r;
	sqlite3 *db;

	store_close(s);
	db = raw_open(f->path);
	assert_int_equal(
		sqlite3_exec(db,
			     SCHEMA7_UNDO
			     "DROP TABLE host_sample; DROP TABLE stream_share;"
			     " DROP TABLE scope_extra; DROP TABLE param; DROP TABLE database_final;"
			     " PRAGMA user_version = 3;"
			     " PRAGMA wal_checkpoint(TRUNCATE)",
			     NULL, NULL, NULL),
		SQLITE_OK);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM sqlite_master WHERE name LIKE"
				     " 'host_sample%'"),
			 0);
	sqlite3_close(db);
	snprintf(v3, sizeof(v3), "%s/v3.db", f->dir);
	copy_file(f->path, v3); /* kept at version 3, for the import below */

	s = open_ok(f->path);
	db = raw_open(f->path);
	assert_int_equal(raw_int(db, "PRAGMA user_version"), STORE_SCHEMA_VERSION);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM sqlite_master WHERE name IN"
				     " ('host_sample', 'host_sample_run')"),
			 2);
	sqlite3_close(db);
	assert_int_equal(store_results_load(s, id, &r, &err), 0);
	assert_false(r.host_perf.recorded);
	/* schema 5's table is back too, empty: no streams per scope */
	assert_true(isnan(r.run.streams));
	report_render(&out, &r, REPORT_JSON, NULL);
	assert_non_null(strstr(out.buf, "\n  \"host\": null,\n"));
	strbuf_reset(&out);
	report_render(&out, &r, REPORT_TEXT, NULL);
	assert_null(strstr(out.buf, "host performance"));
	results_release(&r);
	host_write(s, id, 1000, false, &hs);
	assert_int_equal(store_results_load(s, id, &r, &err), 0);
	assert_true(r.host_perf.recorded);
	assert_close(r.host_perf.mem_available_min, 42);
	results_release(&r);
	store_close(s);

	/* import from a version-3 file: the run, without host rows */
	snprintf(f->path, sizeof(f->path), "%s/fresh.db", f->dir);
	s = open_ok(f->path);
	db = raw_open(v3);
	assert_int_equal(raw_int(db, "PRAGMA user_version"), 3);
	sqlite3_close(db);
	import_ok(s, v3, 1, 0);
	store_close(s);
	strbuf_release(&out);
	strbuf_release(&err);
}

/*
 * Schema 5's scope_extra: a run's sample maxima and page fault stalls are
 * stored with its totals and loaded into the summaries (stalls per second
 * over the measured time; a class without a sample figure NAN, a scope that
 * counted no stalls not recorded), the JSON report shows them (null where
 * unknown), and an import copies them. A version-4 file (the table dropped,
 * the version set back) migrates to the table, empty: its run loads with
 * the figures unknown and reports them as null.
 */
static void test_scope_extra(void **state)
{
	struct fixture *f = *state;
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	struct store_run_info info = run_info;
	struct class_stats cls[IO_CLASS_COUNT];
	struct scope_summary sum = {0}, dbsum = {0};
	struct store_scope_total tot[2] = {
		{.scope = SCOPE_RUN,
		 .name = "run",
		 .classes = cls,
		 .summary = &sum,
		 .sample_ms = 15000},
		{.scope = SCOPE_DATABASE,
		 .name = "db1",
		 .volume = "v1",
		 .classes = cls,
		 .summary = &dbsum,
		 .sample_ms = 15000},
	};
	struct store_run_end end = {.status = "passed",
				    .verdict = "PASS",
				    .ended_real_ns = 1764454400ULL * NSEC_PER_SEC,
				    .duration_ns = 4 * NSEC_PER_SEC,
				    .totals = tot,
				    .nr_totals = 2};
	char v4[192];
	struct store *s = open_ok(f->path);
	struct results r;
	int64_t id;
	sqlite3 *db;

	for (int c = 0; c < IO_CLASS_COUNT; c++) {
		stats_class_init(&cls[c]);
		sum.classes[c].max_sample_avg_ms = NAN;
		dbsum.classes[c].max_sample_avg_ms = NAN;
	}
	stats_fill(&cls[IO_DB_READ], 200, 5000000, 32768);
	sum.classes[IO_DB_READ].max_sample_avg_ms = 7.25;
	sum.stalls_recorded = true;
	sum.page_fault_stalls = 10;
	info.started_real_ns = 1764454328ULL * NSEC_PER_SEC;
	if (store_run_begin(s, &info, &id, &err))
		fail_msg("store_run_begin: %s", err.buf);
	if (store_run_finish(s, id, &end, &err))
		fail_msg("store_run_finish: %s", err.buf);
	assert_int_equal(store_results_load(s, id, &r, &err), 0);
	assert_true(r.run.classes[IO_DB_READ].max_sample_avg_ms == 7.25);
	assert_true(isnan(r.run.classes[IO_LOG_WRITE].max_sample_avg_ms));
	assert_true(r.run.stalls_recorded);
	assert_int_equal(r.run.page_fault_stalls, 10);
	assert_true(r.run.page_fault_stalls_per_s == 2.5); /* 10 over 4 s */
	assert_true(r.sample_s == 15);
	assert_int_equal(r.nr_databases, 1);
	assert_false(r.databases[0].stalls_recorded);
	assert_true(isnan(r.databases[0].classes[IO_DB_READ].max_sample_avg_ms));
	report_render(&out, &r, REPORT_JSON, NULL);
	assert_non_null(strstr(out.buf, "\"max_sample_avg_ms\": 7.250"));
	assert_non_null(strstr(out.buf, "\"page_fault_stalls\": 10,"));
	assert_non_null(strstr(out.buf, "\"page_fault_stalls\": null"));
	results_release(&r);
	store_close(s);
	{
		/* an import copies them */
		char copy[192];

		snprintf(copy, sizeof(copy), "%s/copy.db", f->dir);
		s = open_ok(copy);
		import_ok(s, f->path, 1, 0);
		assert_int_equal(store_results_load(s, 1, &r, &err), 0);
		assert_true(r.run.classes[IO_DB_READ].max_sample_avg_ms == 7.25);
		assert_int_equal(r.run.page_fault_stalls, 10);
		results_release(&r);
		store_close(s);
	}

	db = raw_open(f->path);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM scope_extra"), IO_CLASS_COUNT);
	assert_int_equal(
		sqlite3_exec(db,
			     SCHEMA7_UNDO
			     "DROP TABLE scope_extra; DROP TABLE stream_share; DROP TABLE param;"
			     " DROP TABLE database_final; PRAGMA user_version = 4;"
			     " PRAGMA wal_checkpoint(TRUNCATE)",
			     NULL, NULL, NULL),
		SQLITE_OK);
	sqlite3_close(db);
	snprintf(v4, sizeof(v4), "%s/v4.db", f->dir);
	copy_file(f->path, v4);
	s = open_ok(f->path);
	db = raw_open(f->path);
	assert_int_equal(raw_int(db, "PRAGMA user_version"), STORE_SCHEMA_VERSION);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM scope_extra"), 0);
	sqlite3_close(db);
	assert_int_equal(store_results_load(s, id, &r, &err), 0);
	assert_true(isnan(r.run.classes[IO_DB_READ].max_sample_avg_ms));
	assert_false(r.run.stalls_recorded);
	assert_true(r.sample_s == 0);
	strbuf_reset(&out);
	report_render(&out, &r, REPORT_JSON, NULL);
	assert_non_null(strstr(out.buf, "\"max_sample_avg_ms\": null"));
	assert_null(strstr(out.buf, "\"page_fault_stalls\": 1"));
	results_release(&r);
	store_close(s);

	/* an import from a version-4 file copies its run, without the figures */
	snprintf(f->path, sizeof(f->path), "%s/fresh.db", f->dir);
	s = open_ok(f->path);
	import_ok(s, v4, 1, 0);
	store_close(s);
	strbuf_release(&out);
	strbuf_release(&err);
}

/* A file with one run (its id in *id), closed again. */
static void make_run(const char *path, int64_t *id)
{
	struct store *s = open_ok(path);

	*id = begin_ok(s);
	store_close(s);
}

/* Runs one statement, ?1 bound to the run's id, on a raw connection with
 * the schema's CHECKs off. */
static void raw_exec(const char *path, const char *sql, int64_t id)
{
	sqlite3_stmt *st = NULL;
	sqlite3 *db = NULL;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "PRAGMA ignore_check_constraints = ON", NULL, NULL, NULL),
			 SQLITE_OK);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) != SQLITE_DONE)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	sqlite3_finalize(st);
	sqlite3_close(db);
}

/* Loading the run is refused with -EIO, and the message names the file,
 * the run and what was wrong with the row. */
static void expect_refused(const char *path, int64_t id, const char *what)
{
	struct strbuf err = STRBUF_INIT, want = STRBUF_INIT;
	struct store *s = NULL;
	struct results r;

	if (store_open_read(&s, path, false, &err))
		fail_msg("store_open_read: %s", err.buf);
	assert_int_equal(store_results_load(s, id, &r, &err), -EIO);
	strbuf_addf(&want, "%s: run %" PRId64 ": %s", path, id, what);
	assert_string_equal(err.buf, want.buf);
	store_close(s);
	strbuf_release(&want);
	strbuf_release(&err);
}

/* Loading the run is refused with -ERANGE (a value out of its range,
 * limits.c): the message names the file, the run and the value. */
static void expect_unusable(const char *path, int64_t id, const char *what)
{
	struct strbuf err = STRBUF_INIT, want = STRBUF_INIT;
	struct store *s = NULL;
	struct results r;

	if (store_open_read(&s, path, false, &err))
		fail_msg("store_open_read: %s", err.buf);
	assert_int_equal(store_results_load(s, id, &r, &err), -ERANGE);
	strbuf_addf(&want, "%s: run %" PRId64 " is unusable: %s (", path, id, what);
	if (strncmp(err.buf, want.buf, want.len))
		fail_msg("got \"%s\", want it to begin \"%s\"", err.buf, want.buf);
	store_close(s);
	strbuf_release(&want);
	strbuf_release(&err);
}

static void test_summary_of_unknown_class(void **state)
{
	struct fixture *f = *state;
	int64_t id;

	make_run(f->path, &id);
	raw_exec(f->path,
		 "INSERT INTO summary VALUES (?1, 'run', 'run', NULL, 'warp_read',"
		 " 1, 1, 0, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1)",
		 id);
	expect_refused(f->path, id, "summary row of unknown scope or class");
}

static void test_verdict_of_unknown_cmp(void **state)
{
	struct fixture *f = *state;
	int64_t id;

	make_run(f->path, &id);
	raw_exec(f->path,
		 "INSERT INTO verdict VALUES (?1, 'run', 'run', NULL, 'db_read_avg_ms', '==',"
		 " 20, 5, 1)",
		 id);
	expect_refused(f->path, id, "verdict row of unknown scope or cmp");
}

static void test_sample_of_unknown_class(void **state)
{
	struct fixture *f = *state;
	int64_t id;

	make_run(f->path, &id);
	raw_exec(f->path,
		 "INSERT INTO sample VALUES (?1, 1000, 0, 'run', 'run', 'bogus',"
		 " 1, 1, 0, 1, 1, 1, 1, NULL)",
		 id);
	expect_refused(f->path, id, "sample row of unknown scope or class");
}

static void test_histogram_of_other_geometry(void **state)
{
	struct fixture *f = *state;
	int64_t id;

	make_run(f->path, &id);
	raw_exec(f->path,
		 "INSERT INTO histogram VALUES (?1, 'run', 'run', 'db_read', 99, 99,"
		 " 0, 0, NULL, 0, '')",
		 id);
	expect_unusable(f->path, id, "histogram.bits = 99: over 6 (this build's geometry)");
}

/* Every number a results file holds has a range (limits.c): a column added
 * without one would be loaded and imported unchecked. */
static void test_limits_cover_schema(void **state)
{
	struct fixture *f = *state;
	sqlite3_stmt *tab, *col;
	struct store *s = open_ok(f->path);
	sqlite3 *db;
	char sql[256];
	int checked = 0;

	store_close(s);
	db = raw_open(f->path);
	assert_int_equal(sqlite3_prepare_v2(db,
					    "SELECT name FROM sqlite_master WHERE type = 'table'"
					    " AND name NOT LIKE 'sqlite_%'",
					    -1, &tab, NULL),
			 SQLITE_OK);
	while (sqlite3_step(tab) == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(tab, 0);
		int ncols = 0;

		snprintf(sql, sizeof(sql), "PRAGMA table_info(\"%s\")", t);
		assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &col, NULL), SQLITE_OK);
		while (sqlite3_step(col) == SQLITE_ROW) {
			const char *c = (const char *)sqlite3_column_text(col, 1);
			const char *type = (const char *)sqlite3_column_text(col, 2);

			ncols++;
			if (!strcmp(c, "id") || !strcmp(c, "run_id") ||
			    (strcmp(type, "INTEGER") && strcmp(type, "REAL")))
				continue;
			if (!store_limit_known(t, c))
				fail_msg("%s.%s (%s) has no range in limits.c", t, c, type);
			checked++;
		}
		sqlite3_finalize(col);
		assert_true(ncols <= STORE_ROW_COLS_MAX);
	}
	sqlite3_finalize(tab);
	sqlite3_close(db);
	assert_true(checked > 80);
}

/*
 * Values no run writes, each in a run of its own: loading the run is
 * refused with -ERANGE naming the run and the value; the run list still
 * lists it, marked where its run row or summaries hold the value; deleting
 * it works.
 */
static void test_hostile_values(void **state)
{
	static const struct {
		const char *sql, *says;
		bool listed; /* the list marks it */
	} cases[] = {
		{"UPDATE run SET warmup_s = 1e400 WHERE id = ?1",
		 "run.warmup_s = inf: not a finite number", true},
		{"UPDATE run SET warmup_s = -1e400 WHERE id = ?1",
		 "run.warmup_s = -inf: not a finite number", true},
		{"UPDATE run SET duration_s = -1 WHERE id = ?1", "run.duration_s = -1: negative",
		 true},
		{"UPDATE run SET duration_s = 1e300 WHERE id = ?1",
		 "run.duration_s = 1.0000000000000001e+300: over 31622400 (a year, in s)", true},
		{"UPDATE run SET streams = -3 WHERE id = ?1", "run.streams = -3: negative", true},
		{"UPDATE run SET streams = 2.5 WHERE id = ?1",
		 "run.streams = 2.5: not a whole number", true},
		{"INSERT INTO summary VALUES (?1, 'run', 'run', NULL, 'db_read',"
		 " 1, 1, 0, 1e300, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1)",
		 "summary.iops = 1.0000000000000001e+300: over 9007199254740992 (2^53)", true},
		{"INSERT INTO sample VALUES (?1, 9000000000000000, 0, 'run', 'run', 'db_read',"
		 " 1, 1, 0, 1, 1, 1, 1, NULL)",
		 "sample.t_ms = 9000000000000000: over 31622400000 (a year, in ms)", false},
		{"INSERT INTO sample VALUES (?1, 1000, 0, 'run', 'run', 'db_read',"
		 " 'many', 1, 0, 1, 1, 1, 1, NULL)",
		 "sample.ios = 'many': not a number", false},
		{"INSERT INTO stream_share VALUES (?1, 'run', 'run', 5, -2)",
		 "stream_share.streams = -2: negative", false},
		{"INSERT INTO histogram VALUES (?1, 'run', 'run', 'db_read', 6, 38,"
		 " 3, 300, 100, 100, '100:1 101:1')",
		 "histogram.count = 3: its buckets hold 2 I/Os", false},
		{"INSERT INTO histogram VALUES (?1, 'run', 'run', 'db_read', 6, 38,"
		 " 1, 300, 100, 100, '100:18446744073709551615 101:1')",
		 "histogram.count = 1: its buckets hold more than 2^53 I/Os", false},
		{"INSERT INTO event (run_id, t_ms, kind) VALUES (?1, -5, 'stop')",
		 "event.t_ms = -5: negative", false},
	};
	struct fixture *f = *state;
	struct strbuf err = STRBUF_INIT;
	struct store_run_brief *runs;
	struct store *s;
	size_t n;
	int64_t id;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		make_run(f->path, &id);
		raw_exec(f->path, cases[i].sql, id);
		expect_unusable(f->path, id, cases[i].says);
		s = open_ok(f->path);
		assert_int_equal(store_run_list(s, &runs, &n, &err), 0);
		assert_true(n == 1 && runs[0].id == id);
		if (cases[i].listed)
			assert_string_equal(runs[0].unusable, cases[i].says);
		else
			assert_string_equal(runs[0].unusable, "");
		free(runs);
		assert_int_equal(store_run_delete(s, &id, 1, &err), 0);
		store_close(s);
	}
	strbuf_release(&err);
}

/* More rows than a first allocation holds (64) come back, all, in order. */
static void test_long_arrays_whole(void **state)
{
	struct fixture *f = *state;
	struct strbuf err = STRBUF_INIT, v = STRBUF_INIT;
	struct store_run_brief *runs = NULL;
	struct store *s;
	struct results r;
	size_t nr_runs = 0;
	int64_t id = 0, first;
	char key[32];
	int i;

	s = open_ok(f->path);
	for (i = 0; i < 70; i++)
		if (store_run_begin(s, &run_info, &id, &err))
			fail_msg("%s", err.buf);
	first = id - 69;
	for (i = 0; i < 100; i++) {
		snprintf(key, sizeof(key), "fact.%03d", 99 - i);
		strbuf_reset(&v);
		strbuf_addf(&v, "%d", i);
		if (store_env_add(s, id, key, v.buf, &err) ||
		    store_event_add(s, id, (uint64_t)i * 10, "note", v.buf, &err))
			fail_msg("%s", err.buf);
	}
	assert_int_equal(store_run_list(s, &runs, &nr_runs, &err), 0);
	assert_int_equal(nr_runs, 70);
	for (i = 0; i < 70; i++)
		assert_int_equal(runs[i].id, first + i);
	assert_string_equal(runs[69].host, "db-host-1");
	assert_string_equal(runs[69].status, "running");
	free(runs);

	assert_int_equal(store_results_load(s, id, &r, &err), 0);
	assert_int_equal(r.nr_env, 100);
	assert_int_equal(r.nr_events, 100);
	for (i = 0; i < 100; i++) {
		snprintf(key, sizeof(key), "fact.%03d", i);
		assert_string_equal(r.env[i].key, key); /* ORDER BY key */
		assert_int_equal(r.events[i].t_ms, (uint64_t)i * 10);
	}
	assert_string_equal(r.env[0].value, "99");
	assert_string_equal(r.events[99].message, "99");
	results_release(&r);
	store_close(s);
	strbuf_release(&v);
	strbuf_release(&err);
}

/*
 * Schema 9's transactions: a scope's count and durable commits are stored
 * with its totals (txn_total) and loaded into its summary (per second over
 * the measured time; a scope that counted none not recorded), an interval
 * row's into txn_sample; the JSON report shows them (null where unknown);
 * an import copies both. A version-8 file (the tables dropped, the version
 * set back) migrates to the tables, empty: its run loads with the
 * transactions unknown, reported as null, never as 0.
 */
static void test_txn_totals(void **state)
{
	struct fixture *f = *state;
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	struct store_run_info info = run_info;
	struct class_stats cls[IO_CLASS_COUNT];
	struct scope_summary sum = {0}, dbsum = {0};
	struct store_scope_total tot[2] = {
		{.scope = SCOPE_RUN, .name = "run", .classes = cls, .summary = &sum},
		{.scope = SCOPE_DATABASE,
		 .name = "db1",
		 .volume = "v1",
		 .classes = cls,
		 .summary = &dbsum},
	};
	struct store_run_end end = {.status = "passed",
				    .verdict = "PASS",
				    .ended_real_ns = 1764454400ULL * NSEC_PER_SEC,
				    .duration_ns = 4 * NSEC_PER_SEC,
				    .totals = tot,
				    .nr_totals = 2};
	struct store_sample row = {.t_ms = 1000,
				   .scope = SCOPE_RUN,
				   .scope_name = "run",
				   .cls = IO_DB_READ,
				   .ios = 10,
				   .has_txn = true,
				   .txns = 7,
				   .log_commits = 5};
	char copy[192];
	struct store *s = open_ok(f->path);
	struct results r;
	int64_t id;
	sqlite3 *db;

	for (int c = 0; c < IO_CLASS_COUNT; c++) {
		stats_class_init(&cls[c]);
		sum.classes[c].max_sample_avg_ms = dbsum.classes[c].max_sample_avg_ms = NAN;
	}
	stats_fill(&cls[IO_DB_READ], 1000, 5000000, 32768);
	stats_fill(&cls[IO_LOG_WRITE], 200, 1000000, 4096);
	sum.txns_recorded = true;
	sum.txns = 800;
	sum.log_commits = 300;
	if (store_run_begin(s, &info, &id, &err))
		fail_msg("store_run_begin: %s", err.buf);
	if (store_interval_write(s, id, &row, 1, &err))
		fail_msg("store_interval_write: %s", err.buf);
	if (store_run_finish(s, id, &end, &err))
		fail_msg("store_run_finish: %s", err.buf);
	assert_int_equal(store_results_load(s, id, &r, &err), 0);
	assert_true(r.run.txns_recorded);
	assert_int_equal(r.run.txns, 800);
	assert_int_equal(r.run.log_commits, 300);
	assert_true(r.run.tps == 200); /* 800 over 4 s */
	assert_int_equal(r.nr_databases, 1);
	assert_false(r.databases[0].txns_recorded);
	report_render(&out, &r, REPORT_JSON, NULL);
	/* 1000 reads, 200 log writes of 4096 bytes, 300 commits over 800 */
	assert_non_null(strstr(out.buf, "\"transactions\": {\n"));
	assert_non_null(strstr(out.buf, "\"count\": 800,"));
	assert_non_null(strstr(out.buf, "\"per_second\": 200.000,"));
	assert_non_null(strstr(out.buf, "\"db_reads\": 1.250,"));
	assert_non_null(strstr(out.buf, "\"log_writes\": 0.250,"));
	assert_non_null(strstr(out.buf, "\"log_bytes\": 1024.000"));
	assert_non_null(strstr(out.buf, "\"commits_per_log_write\": 1.500"));
	assert_non_null(strstr(out.buf, "\"transactions\": null"));
	strbuf_reset(&out);
	report_render(&out, &r, REPORT_TEXT, NULL);
	assert_non_null(strstr(out.buf, "transactions: 800 (200.0/s); 1.5 commits per log write\n"
					"per transaction: 1.25 db reads, 0.00 db writes, 0.25 log "
					"writes, 1.0 KB log\n"));
	results_release(&r);
	store_close(s);

	/* an import copies them */
	snprintf(copy, sizeof(copy), "%s/copy.db", f->dir);
	s = open_ok(copy);
	import_ok(s, f->path, 1, 0);
	assert_int_equal(store_results_load(s, 1, &r, &err), 0);
	assert_int_equal(r.run.txns, 800);
	assert_int_equal(r.run.log_commits, 300);
	results_release(&r);
	store_close(s);
	db = raw_open(copy);
	assert_int_equal(raw_int(db, "SELECT txns * 10 + log_commits FROM txn_sample"), 75);
	sqlite3_close(db);

	/* a version-8 file: migrated, the run's transactions unknown */
	db = raw_open(f->path);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM txn_total"), 1);
	assert_int_equal(sqlite3_exec(db,
				      SCHEMA9_UNDO " PRAGMA user_version = 8;"
						   " PRAGMA wal_checkpoint(TRUNCATE)",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(db);
	s = open_ok(f->path);
	db = raw_open(f->path);
	assert_int_equal(raw_int(db, "PRAGMA user_version"), STORE_SCHEMA_VERSION);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM txn_total"), 0);
	sqlite3_close(db);
	assert_int_equal(store_results_load(s, id, &r, &err), 0);
	assert_false(r.run.txns_recorded);
	strbuf_reset(&out);
	report_render(&out, &r, REPORT_JSON, NULL);
	assert_null(strstr(out.buf, "\"transactions\": {"));
	assert_non_null(strstr(out.buf, "\"transactions\": null"));
	strbuf_reset(&out);
	report_render(&out, &r, REPORT_TEXT, NULL);
	assert_null(strstr(out.buf, "transactions:"));
	results_release(&r);
	store_close(s);
	strbuf_release(&out);
	strbuf_release(&err);
}

/* Schema 10: a series' columns are kept by an import (the series' uuid is
 * its identity across files, as run.uuid is a run's); a version-9 file
 * migrates with none. */
static void test_series_columns(void **state)
{
	struct fixture *f = *state;
	char other[192];
	struct store *s, *o;
	sqlite3 *db;

	snprintf(other, sizeof(other), "%s/other.db", f->dir);
	o = open_ok(other);
	full_run(o, "server-b", 1000);
	full_run(o, "server-b", 2000);
	store_close(o);
	db = raw_open(other);
	assert_int_equal(sqlite3_exec(db,
				      "UPDATE run SET series_uuid = 'S-1', series_index = id,"
				      " series_size = 2; PRAGMA wal_checkpoint(TRUNCATE)",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(db);

	s = open_ok(f->path);
	full_run(s, "server-a", 500);
	import_ok(s, other, 2, 0);
	store_close(s);
	db = raw_open(f->path);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM run WHERE series_uuid = 'S-1'"), 2);
	assert_int_equal(raw_int(db, "SELECT sum(series_index) FROM run"), 3);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM run WHERE series_uuid IS NULL"), 1);

	/* a version-9 file: migrated, its runs in no series */
	assert_int_equal(sqlite3_exec(db,
				      SCHEMA10_UNDO " PRAGMA user_version = 9;"
						    " PRAGMA wal_checkpoint(TRUNCATE)",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(db);
	s = open_ok(f->path);
	store_close(s);
	db = raw_open(f->path);
	assert_int_equal(raw_int(db, "PRAGMA user_version"), STORE_SCHEMA_VERSION);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM run WHERE series_uuid IS NULL"), 3);
	sqlite3_close(db);
}

/* Takes the current file at path back to schema 12 (SCHEMA13_UNDO), its
 * -wal folded in. */
static void set_back_to_12(const char *path)
{
	sqlite3 *db = raw_open(path);

	assert_int_equal(sqlite3_exec(db,
				      SCHEMA13_UNDO " PRAGMA user_version = 12;"
						    " PRAGMA wal_checkpoint(TRUNCATE)",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(db);
}

/* Table run_fingerprint (schema 13): written, replaced, read back with the
 * run; a run without a row has none; a version-12 file migrates to it, and
 * import copies the row. */
static void test_run_fingerprint(void **state)
{
	struct fixture *f = *state;
	struct strbuf err = STRBUF_INIT;
	struct results r;
	struct store *s = open_ok(f->path);
	int64_t a = full_run(s, "server-a", 100), b = full_run(s, "server-a", 200);
	char other[160];
	sqlite3 *db;

	assert_int_equal(store_run_fingerprint_write(s, a, "k.json", "{\"kept\": 1}", "{}", &err),
			 0);
	assert_int_equal(
		store_run_fingerprint_write(s, a, "k.json", "{\"kept\": 2}", "{\"run\": 2}", &err),
		0);
	assert_int_equal(store_results_load(s, a, &r, &err), 0);
	assert_string_equal(r.fp_kept_name, "k.json");
	assert_string_equal(r.fp_kept, "{\"kept\": 2}");
	assert_string_equal(r.fp_run, "{\"run\": 2}");
	assert_null(r.fp_compare);
	results_release(&r);
	assert_int_equal(store_results_load(s, b, &r, &err), 0);
	assert_null(r.fp_kept_name);
	assert_null(r.fp_run);
	results_release(&r);
	store_close(s);

	/* imported with its run */
	snprintf(other, sizeof(other), "%s/other.db", f->dir);
	s = open_ok(other);
	import_ok(s, f->path, 2, 0);
	db = raw_open(other);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM run_fingerprint"), 1);
	sqlite3_close(db);
	store_close(s);

	/* a version-12 file: migrated, its runs without a fingerprint */
	set_back_to_12(f->path);
	s = open_ok(f->path);
	assert_int_equal(store_results_load(s, a, &r, &err), 0);
	assert_null(r.fp_run);
	results_release(&r);
	store_close(s);
	db = raw_open(f->path);
	assert_int_equal(raw_int(db, "PRAGMA user_version"), STORE_SCHEMA_VERSION);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM run_fingerprint"), 0);
	sqlite3_close(db);
	strbuf_release(&err);
}

/*
 * An older file that a reading command tried to migrate, and could not
 * (here another connection holds its write lock past the busy timeout; a
 * full filesystem or an I/O error end the same way), is not read: the
 * message says the migration failed and why, not that it "needs a command
 * that may write it" (this command was one). Once the lock is gone the same
 * call migrates it.
 */
static void test_migrate_failed_said(void **state)
{
	struct fixture *f = *state;
	struct strbuf err = STRBUF_INIT;
	struct store *s = NULL;
	sqlite3 *db, *lock;

	store_close(open_ok(f->path));
	set_back_to_12(f->path);
	lock = raw_open(f->path);
	assert_int_equal(sqlite3_exec(lock, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(store_open_read(&s, f->path, true, &err), -EPROTO);
	assert_null(s);
	if (!strstr(err.buf, "migrating it failed") || !strstr(err.buf, "locked") ||
	    strstr(err.buf, "may write it"))
		fail_msg("the message: %s", err.buf);
	assert_int_equal(sqlite3_exec(lock, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(lock);
	strbuf_reset(&err);
	assert_int_equal(store_open_read(&s, f->path, true, &err), 0);
	store_close(s);
	db = raw_open(f->path);
	assert_int_equal(raw_int(db, "PRAGMA user_version"), STORE_SCHEMA_VERSION);
	sqlite3_close(db);
	/* a command that may not write (reap = false) still says so */
	set_back_to_12(f->path);
	strbuf_reset(&err);
	assert_int_equal(store_open_read(&s, f->path, false, &err), -EPROTO);
	assert_non_null(strstr(err.buf, "may write it"));
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_open_creates_schema, setup, teardown),
		cmocka_unit_test_setup_teardown(test_delete_cascades, setup, teardown),
		cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_latest, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_run, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unfinished_run_loads, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_rows_rejected, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_file_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_foreign_sqlite_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_newer_schema_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unopenable_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_path_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_read_only, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reopen_keeps_schema, setup, teardown),
		cmocka_unit_test_setup_teardown(test_two_stores_interleaved, setup, teardown),
		cmocka_unit_test_setup_teardown(test_busy_waits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_busy_timeout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_load_series, setup, teardown),
		cmocka_unit_test_setup_teardown(test_load_autotune_warmup, setup, teardown),
		cmocka_unit_test_setup_teardown(test_empty_classes_skipped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_delete, setup, teardown),
		cmocka_unit_test_setup_teardown(test_import, setup, teardown),
		cmocka_unit_test_setup_teardown(test_series_columns, setup, teardown),
		cmocka_unit_test_setup_teardown(test_import_refuses, setup, teardown),
		cmocka_unit_test_setup_teardown(test_migrate_v1, setup, teardown),
		cmocka_unit_test_setup_teardown(test_migrate_failed_said, setup, teardown),
		cmocka_unit_test_setup_teardown(test_import_v1, setup, teardown),
		cmocka_unit_test_setup_teardown(test_host_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_host_bad_row, setup, teardown),
		cmocka_unit_test_setup_teardown(test_host_import, setup, teardown),
		cmocka_unit_test_setup_teardown(test_migrate_v3, setup, teardown),
		cmocka_unit_test_setup_teardown(test_migrate_v6, setup, teardown),
		cmocka_unit_test_setup_teardown(test_scope_extra, setup, teardown),
		cmocka_unit_test_setup_teardown(test_txn_totals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_summary_of_unknown_class, setup, teardown),
		cmocka_unit_test_setup_teardown(test_verdict_of_unknown_cmp, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sample_of_unknown_class, setup, teardown),
		cmocka_unit_test_setup_teardown(test_histogram_of_other_geometry, setup, teardown),
		cmocka_unit_test_setup_teardown(test_limits_cover_schema, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hostile_values, setup, teardown),
		cmocka_unit_test_setup_teardown(test_long_arrays_whole, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reap_by_machine, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_fingerprint, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
