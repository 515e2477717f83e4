/* SPDX-License-Identifier: MIT */
/*
 * test_learn_db.c - the database model features of the fit (model_db.c):
 * a fingerprint made on sim by a profile with InnoDB's doublewrite and
 * data-file flushes per batch, or PostgreSQL-like data-file flushes at a
 * rate, or a cache, or reads ahead, or a write-back in bursts (its trace
 * the bursts' figures), is learned back with the feature's keys set and its
 * figures within tolerance; a fingerprint with none of them sets none (the
 * learned profile of a plain load is what it was before the features).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "diskproof/dbstat.h"
#include "diskproof/learn.h"
#include "diskproof/profile.h"

static const struct learn_figure *fig(const struct learn_figure *f, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(f[i].key, key))
			return &f[i];
	fail_msg("no figure %s", key);
	return NULL;
}

/* The fingerprint m0 makes on sim (loop devices: no FUA, a write-through
 * write's flush counted as a write), learned back into fit. */
static void learn_back(const struct learn_model *m0, struct learn_fp *obs, struct learn_fit *fit)
{
	struct strbuf err = STRBUF_INIT;
	struct learn_fp shape = {0};
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";

	shape.role[LEARN_DATA].present = shape.role[LEARN_LOG].present = true;
	shape.role[LEARN_DATA].where.flush_counted_as_write = true;
	shape.role[LEARN_LOG].where.flush_counted_as_write = true;
	shape.transactions = 1;
	assert_int_equal(learn_sim_predict(m0, &shape, tmp, obs, &err), 0);
	obs->role[LEARN_DATA].where.flush_counted_as_write = true;
	obs->role[LEARN_LOG].where.flush_counted_as_write = true;
	learn_fit_init(fit);
	if (learn_fit_run(obs, m0->database_size, 0, tmp, fit, &err))
		fail_msg("fit: %s", err.buf);
	strbuf_release(&err);
}

/* obs (its trace or counters edited) fitted again into fit. */
static void refit(const struct learn_fp *obs, uint64_t db_size, struct learn_fit *fit)
{
	struct strbuf err = STRBUF_INIT;
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";

	learn_fit_init(fit);
	if (learn_fit_run(obs, db_size, 0, tmp, fit, &err))
		fail_msg("fit: %s", err.buf);
	strbuf_release(&err);
}

/* The figure key of fit's prediction within tol (a share) of obs's. */
static void within(const struct learn_fp *obs, const struct learn_fit *fit, const char *key,
		   double tol)
{
	struct learn_figure fo[LEARN_FIGURES_MAX], fp[LEARN_FIGURES_MAX];
	size_t n = learn_fp_figures(obs, fo);
	const struct learn_figure *a, *b;
	double d;

	learn_fp_figures(&fit->predicted, fp);
	a = fig(fo, n, key);
	b = fig(fp, n, key);
	d = fabs(b->value / a->value - 1);
	if (getenv("TEST_LEARN_DB_PRINT"))
		fprintf(stderr, "%s: learned %g, made %g\n", key, b->value, a->value);
	if (!(d <= tol))
		fail_msg("%s: learned %g, made %g (%.1f %%, tolerance %.0f %%)", key, b->value,
			 a->value, d * 100, tol * 100);
}

static const struct learn_model base = {.rate = 150,
					.update_pages = 3,
					.read_pages = 6,
					.page_size = 16384,
					.log_record_size = 600,
					.database_size = 256 << 20,
					.log_segment_size = 1 << 20,
					.log_segments = 64,
					.streams = 16};

/* InnoDB's flushing on m: doublewrite batches of depth pages, the data
 * files flushed a batch, the page cleaner a pass a second of up to pages */
static void innodb_flushing(struct learn_model *m, unsigned depth, unsigned pages)
{
	m->doublewrite = true;
	m->data_flush = PROFILE_DATA_FLUSH_PER_BATCH;
	m->cleaner_interval_s = 1;
	m->cleaner_pages = pages;
	m->flush_depth = depth;
}

static void test_doublewrite(void **state)
{
	struct learn_model m0 = base;
	struct learn_fp obs;
	struct learn_fit fit;
	struct strbuf prof = STRBUF_INIT;

	(void)state;
	innodb_flushing(&m0, 16, 2000);
	learn_back(&m0, &obs, &fit);
	assert_true(fit.m.doublewrite);
	assert_int_equal(fit.m.data_flush, PROFILE_DATA_FLUSH_PER_BATCH);
	assert_true(fit.m.cleaner_interval_s > 0);
	assert_non_null(strstr(fit.db_keys.buf, "doublewrite = on"));
	within(&obs, &fit, "data.writes_per_s", 0.10);
	within(&obs, &fit, "data.write_size_kib", 0.10);
	within(&obs, &fit, "data.flushes_per_s", 0.10);
	within(&obs, &fit, "data.reads_per_s", 0.05);
	within(&obs, &fit, "log.writes_per_s", 0.05);
	learn_profile_write(&obs, &fit, &prof);
	if (getenv("TEST_LEARN_DB_PRINT")) /* the learned profile, to read */
		fputs(prof.buf, stderr);
	assert_non_null(strstr(prof.buf, "\ndoublewrite = on\n"));
	assert_non_null(strstr(prof.buf, "\ndata_flush = per_batch\n"));
	assert_non_null(strstr(prof.buf, "fitted, the database model"));
	strbuf_release(&prof);
	learn_fit_release(&fit);
}

/*
 * Doublewrite seen by the trace: a fingerprint made on sim by batches of
 * 48 pages with 5 data flushes a batch besides the doublewrite's (InnoDB
 * fsyncs each file a batch wrote), its trace's write sizes those the sim
 * made (each page once in place, each batch one doublewrite write of 48
 * pages): the batches come from the sizes, not the flushes, so flush_depth
 * is 48 and data_flush_count 5. Without the trace the flushes are taken
 * for batches (a batch of a few pages): the trace is what tells them
 * apart.
 */
static void test_doublewrite_traced(void **state)
{
	struct learn_model m0 = base;
	struct learn_fp obs;
	struct learn_fit fit;
	struct learn_trace_role *t;
	double P = 16384, bytes, pages, w;

	(void)state;
	m0.rate = 300;
	innodb_flushing(&m0, 48, 5000);
	m0.data_flush_count = 5;
	learn_back(&m0, &obs, &fit);
	assert_true(fit.m.doublewrite);
	assert_true(fit.m.flush_depth < 24); /* the flushes taken for batches */
	assert_false(fit.m.cleaner_spread);  /* no trace: how the writes came, unknown */
	learn_fit_release(&fit);
	/* the trace of what the sim made */
	t = &obs.role[LEARN_DATA].trace;
	bytes = (double)obs.role[LEARN_DATA].c.write_sectors * 512;
	w = (double)(obs.role[LEARN_DATA].c.writes - obs.role[LEARN_DATA].c.flushes);
	pages = bytes / (2 * P);
	memset(t, 0, sizeof(*t));
	t->present = true;
	t->ops[LEARN_TRACE_WRITE] = (uint64_t)w;
	t->bytes[LEARN_TRACE_WRITE] = (uint64_t)bytes;
	t->sizes[1][14] = (uint64_t)pages;	 /* 16 KiB */
	t->sizes[1][19] = (uint64_t)(w - pages); /* 768 KiB: 2^19 to 2^20 */
	refit(&obs, m0.database_size, &fit);
	if (getenv("TEST_LEARN_DB_PRINT"))
		fprintf(stderr, "%s", fit.db_keys.buf);
	assert_true(fit.m.flush_depth >= 45 && fit.m.flush_depth <= 50);
	assert_int_equal(fit.m.data_flush, PROFILE_DATA_FLUSH_PER_BATCH);
	assert_int_equal(fit.m.data_flush_count, 5);
	assert_non_null(strstr(fit.db_keys.buf, "doublewrite writes of two pages or more"));
	within(&obs, &fit, "data.writes_per_s", 0.05);
	within(&obs, &fit, "data.write_size_kib", 0.05);
	within(&obs, &fit, "data.flushes_per_s", 0.05);
	within(&obs, &fit, "data.reads_per_s", 0.05);
	within(&obs, &fit, "log.writes_per_s", 0.05);
	/* the trace saw no write bursts: the cleaner's pass spread */
	assert_true(fit.m.cleaner_spread);
	assert_non_null(strstr(fit.db_keys.buf, "cleaner_spread = on"));
	learn_fit_release(&fit);
	/* most writes in bursts: a pass at the start of each second */
	t->burst_share = 0.8;
	refit(&obs, m0.database_size, &fit);
	assert_false(fit.m.cleaner_spread);
	learn_fit_release(&fit);
}

/* log_sync from the database's settings: InnoDB writes and then flushes its
 * redo unless written through (O_DSYNC, innodb_log_file_write_through);
 * PostgreSQL's wal_sync_method says which; nothing without the counters
 * or the setting. */
static void set(struct learn_db *db, const char *name, const char *value)
{
	struct learn_db_setting *s = &db->settings[db->nr_settings++];

	snprintf(s->name, sizeof(s->name), "%s", name);
	snprintf(s->value, sizeof(s->value), "%s", value);
}

static void test_log_sync(void **state)
{
	struct learn_db db = {.kind = LEARN_DB_MYSQL, .used = true};
	const char *why = NULL;

	(void)state;
	assert_int_equal(learn_db_log_sync(&db, &why), -1); /* no setting shown */
	set(&db, "innodb_flush_method", "O_DIRECT");
	assert_int_equal(learn_db_log_sync(&db, &why), PROFILE_LOG_SYNC_FDATASYNC);
	assert_non_null(why);
	set(&db, "innodb_log_file_write_through", "ON");
	assert_int_equal(learn_db_log_sync(&db, &why), PROFILE_LOG_SYNC_WRITE_THROUGH);
	db.nr_settings = 0;
	set(&db, "innodb_flush_method", "O_DSYNC");
	assert_int_equal(learn_db_log_sync(&db, &why), PROFILE_LOG_SYNC_WRITE_THROUGH);
	db.used = false;
	assert_int_equal(learn_db_log_sync(&db, &why), -1);
	db = (struct learn_db){.kind = LEARN_DB_POSTGRES, .used = true};
	set(&db, "wal_sync_method", "fdatasync");
	assert_int_equal(learn_db_log_sync(&db, &why), PROFILE_LOG_SYNC_FDATASYNC);
	snprintf(db.settings[0].value, sizeof(db.settings[0].value), "open_datasync");
	assert_int_equal(learn_db_log_sync(&db, &why), PROFILE_LOG_SYNC_WRITE_THROUGH);
	snprintf(db.settings[0].value, sizeof(db.settings[0].value), "something_new");
	assert_int_equal(learn_db_log_sync(&db, &why), -1);
}

/*
 * Doublewrite with the filesystem's journal writes on the data device, as a
 * traced MariaDB window has them (ext4's commits: small writes the model
 * does not make, a tenth more writes here): the pages changed follow the
 * data bytes, not the write count, so each round's correction by the count
 * is undone by the doublewrite's, and the log record must be solved after
 * it, for the pages the next run changes (and solved again after the
 * database model's features set the first pages). Solved for the count's
 * pages (until 2026-12-07) the record came out 7 % short and the log bytes
 * a transaction 10.5 % (a MariaDB window's 7 %).
 */
static void test_doublewrite_journal(void **state)
{
	struct learn_model m0 = base;
	struct learn_fp obs;
	struct learn_fit fit;
	struct learn_counters *c;
	struct learn_trace_role *t;
	double P = 16384, bytes, pages, w, journal;

	(void)state;
	m0.update_pages = 6; /* records that fill their blocks: MariaDB's */
	m0.log_record_size = 2000;
	m0.log_align = 512;
	innodb_flushing(&m0, 16, 4000);
	learn_back(&m0, &obs, &fit);
	learn_fit_release(&fit);
	/* the trace of what the sim made (each page once in place, each batch
	 * one doublewrite write), then the journal's 4 KiB writes */
	c = &obs.role[LEARN_DATA].c;
	t = &obs.role[LEARN_DATA].trace;
	bytes = (double)c->write_sectors * 512;
	w = (double)(c->writes - c->flushes);
	pages = bytes / (2 * P);
	journal = floor(w / 10);
	memset(t, 0, sizeof(*t));
	t->present = true;
	t->ops[LEARN_TRACE_WRITE] = (uint64_t)(w + journal);
	t->bytes[LEARN_TRACE_WRITE] = (uint64_t)(bytes + journal * 4096);
	t->sizes[1][12] = (uint64_t)journal;	 /* 4 KiB */
	t->sizes[1][14] = (uint64_t)pages;	 /* 16 KiB */
	t->sizes[1][18] = (uint64_t)(w - pages); /* 256 KiB: 16 pages */
	c->writes += (uint64_t)journal;
	c->write_sectors += (uint64_t)journal * 8;
	obs.role[LEARN_LOG].where.block = 512;
	refit(&obs, m0.database_size, &fit);
	if (getenv("TEST_LEARN_DB_PRINT"))
		fprintf(stderr, "log_record_size %llu\n",
			(unsigned long long)fit.m.log_record_size);
	assert_true(fit.m.doublewrite);
	assert_int_equal(fit.m.data_flush, PROFILE_DATA_FLUSH_PER_BATCH);
	/* 2026-12-07: -10.5 % with the record solved before the doublewrite's
	 * correction, -2.9 % solved after it for the run's pages at the
	 * first sim run's count-made pages; +1.0 % now */
	within(&obs, &fit, "per_transaction.log_kib", 0.02);
	/* the record itself, the profile's key: m0's within 5 % (1864 B, 2046
	 * and 2056 in the three) */
	assert_true(fit.m.log_record_size >= 1900 && fit.m.log_record_size <= 2100);
	learn_fit_release(&fit);
}

static void test_flush_rate(void **state)
{
	struct learn_model m0 = base;
	struct learn_fp obs;
	struct learn_fit fit;

	(void)state;
	m0.page_size = 8192;
	m0.data_flush = PROFILE_DATA_FLUSH_RATE;
	m0.data_flush_rate = 5;
	learn_back(&m0, &obs, &fit);
	assert_false(fit.m.doublewrite);
	assert_int_equal(fit.m.data_flush, PROFILE_DATA_FLUSH_RATE);
	within(&obs, &fit, "data.flushes_per_s", 0.05);
	within(&obs, &fit, "data.writes_per_s", 0.05);
	within(&obs, &fit, "data.reads_per_s", 0.05);
	learn_fit_release(&fit);
}

static void test_cache(void **state)
{
	struct learn_model m0 = base;
	struct learn_fp obs;
	struct learn_fit fit;

	(void)state;
	m0.page_size = 8192;
	m0.read_pages = 0;
	m0.database_size = 64 << 20;
	m0.cache_fraction = 0.8;
	learn_back(&m0, &obs, &fit);
	assert_true(fit.m.cache_fraction > 0);
	assert_true(fit.m.read_pages == 0);
	within(&obs, &fit, "data.reads_per_s", 0.10);
	within(&obs, &fit, "data.writes_per_s", 0.05);
	learn_fit_release(&fit);
}

/*
 * Reads larger than a page (the kernel's readahead under a database reading
 * through the page cache): a fingerprint made on sim by 20 % of reads of
 * 8 KiB pages reading ahead 4 pages. From its mean read size alone (13 KiB)
 * the page is taken for 16 KiB and nothing is read ahead; with the
 * database's page size from its counters, or the trace's read sizes (4 in
 * 5 reads one page, the rest 4), the mean read within 5 %, and the trace's
 * sizes give the page and 4 pages.
 */
static void test_readahead(void **state)
{
	struct learn_model m0 = base;
	struct learn_fp obs;
	struct learn_fit fit;
	struct learn_trace_role *t;
	double reads, bytes, big;

	(void)state;
	m0.page_size = 8192;
	m0.readahead_pages = 4;
	m0.readahead_pct = 20;
	learn_back(&m0, &obs, &fit);
	/* from the mean alone the page is guessed at 16 KiB: nothing read ahead */
	assert_int_equal(fit.m.page_size, 16384);
	assert_int_equal(fit.m.readahead_pages, 0);
	learn_fit_release(&fit);
	/* the database's counters give its page */
	obs.db.used = true;
	obs.db.page_size = 8192;
	refit(&obs, m0.database_size, &fit);
	assert_int_equal(fit.m.page_size, 8192);
	assert_true(fit.m.readahead_pages >= 2);
	assert_non_null(strstr(fit.db_keys.buf, "no trace"));
	within(&obs, &fit, "data.read_size_kib", 0.05);
	within(&obs, &fit, "data.reads_per_s", 0.05);
	learn_fit_release(&fit);
	/* the trace of what the sim made: one page or four (the sim's reads
	 * ahead may stop short at a busy page: the sizes from the bytes) */
	t = &obs.role[LEARN_DATA].trace;
	reads = (double)obs.role[LEARN_DATA].c.reads;
	bytes = (double)obs.role[LEARN_DATA].c.read_sectors * 512;
	big = (bytes / 8192 - reads) / 3;
	memset(t, 0, sizeof(*t));
	t->present = true;
	t->ops[LEARN_TRACE_READ] = (uint64_t)reads;
	t->bytes[LEARN_TRACE_READ] = (uint64_t)bytes;
	t->sizes[0][13] = (uint64_t)(reads - big); /* 8 KiB */
	t->sizes[0][15] = (uint64_t)big;	   /* 32 KiB */
	obs.db.used = false;			   /* the trace's sizes give the page */
	refit(&obs, m0.database_size, &fit);
	assert_int_equal(fit.m.page_size, 8192);
	assert_int_equal(fit.m.readahead_pages, 4);
	assert_true(fabs(fit.m.readahead_pct - 20) < 4);
	assert_non_null(strstr(fit.db_keys.buf, "of the traced reads took more than a page"));
	within(&obs, &fit, "data.read_size_kib", 0.05);
	within(&obs, &fit, "data.reads_per_s", 0.05);
	within(&obs, &fit, "data.writes_per_s", 0.05);
	learn_fit_release(&fit);
}

/*
 * Write-back in bursts (a database writing through the page cache): a
 * fingerprint made on sim by a cleaner pass every 2 s at flush_depth 32.
 * Its diskstats sums do not show the bursts: no cleaner learned. With a
 * trace that saw 9 bursts 2 s apart holding 85 % of the writes, 16 in
 * flight in their fullest 100 ms: cleaner_interval 2 s, flush_depth 32
 * (the flusher keeps about half its depth there), the writes within 5 %.
 * A trace of steady writes (no bursts) learns none.
 */
static void test_writeback_bursts(void **state)
{
	struct learn_model m0 = base;
	struct learn_fp obs;
	struct learn_fit fit;
	struct learn_trace_role *t;
	struct strbuf prof = STRBUF_INIT;
	double w;

	(void)state;
	m0.page_size = 8192;
	m0.rate = 400;
	m0.update_pages = 1.2;
	m0.read_pages = 0.5;
	m0.cleaner_interval_s = 2;
	m0.cleaner_pages = 10000;
	m0.dirty_pages = 10000;
	m0.flush_depth = 32;
	learn_back(&m0, &obs, &fit);
	assert_true(fit.m.cleaner_interval_s == 0);
	learn_fit_release(&fit);
	t = &obs.role[LEARN_DATA].trace;
	w = (double)(obs.role[LEARN_DATA].c.writes - obs.role[LEARN_DATA].c.flushes);
	memset(t, 0, sizeof(*t));
	t->present = true;
	t->ops[LEARN_TRACE_WRITE] = (uint64_t)w;
	t->bytes[LEARN_TRACE_WRITE] = (uint64_t)w * 8192;
	t->sizes[1][13] = (uint64_t)w;
	t->depth_sum[1] = (uint64_t)(w * 8);
	/* 800 writes in the fullest 100 ms, 2 ms each: 16 in flight */
	t->completed[LEARN_TRACE_WRITE] = (uint64_t)w;
	t->service_ns[LEARN_TRACE_WRITE] = (uint64_t)w * 2000000;
	t->bursts = 9;
	t->burst_share = 0.85;
	t->burst_interval_s = 2.0;
	t->burst_peak = 800;
	t->burst_depth = 16;
	refit(&obs, m0.database_size, &fit);
	if (getenv("TEST_LEARN_DB_PRINT"))
		fprintf(stderr, "%s", fit.db_keys.buf);
	assert_true(fabs(fit.m.cleaner_interval_s - 2) < 1e-9);
	assert_int_equal(fit.m.flush_depth, 32);
	assert_true(fit.m.cleaner_pages >= 2 * 2 * w / obs.seconds);
	assert_non_null(strstr(fit.db_keys.buf, "write-back in bursts"));
	within(&obs, &fit, "data.writes_per_s", 0.05);
	within(&obs, &fit, "data.reads_per_s", 0.05);
	within(&obs, &fit, "log.writes_per_s", 0.05);
	learn_profile_write(&obs, &fit, &prof);
	assert_non_null(strstr(prof.buf, "\ncleaner_interval = 2000ms\n"));
	assert_non_null(strstr(prof.buf, "\nflush_depth = 32\n"));
	learn_fit_release(&fit);
	/* steady writes: no bursts in the trace */
	t->bursts = 0;
	t->burst_share = 0;
	t->burst_interval_s = t->burst_peak = t->burst_depth = NAN;
	refit(&obs, m0.database_size, &fit);
	assert_true(fit.m.cleaner_interval_s == 0);
	assert_null(strstr(fit.db_keys.buf, "write-back in bursts"));
	learn_fit_release(&fit);
	strbuf_release(&prof);
}

static void test_none(void **state)
{
	struct learn_model m0 = base;
	struct learn_fp obs;
	struct learn_fit fit;

	(void)state;
	learn_back(&m0, &obs, &fit);
	assert_false(fit.m.doublewrite);
	assert_int_equal(fit.m.data_flush, 0);
	assert_true(fit.m.cache_fraction == 0);
	assert_true(fit.m.cleaner_interval_s == 0);
	assert_int_equal(fit.m.readahead_pages, 0);
	assert_int_equal(fit.m.dirty_pages, 0);
	assert_int_equal(fit.db_keys.len, 0);
	learn_fit_release(&fit);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_doublewrite),
		cmocka_unit_test(test_doublewrite_traced),
		cmocka_unit_test(test_doublewrite_journal),
		cmocka_unit_test(test_flush_rate),
		cmocka_unit_test(test_cache),
		cmocka_unit_test(test_readahead),
		cmocka_unit_test(test_writeback_bursts),
		cmocka_unit_test(test_none),
		cmocka_unit_test(test_log_sync),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
