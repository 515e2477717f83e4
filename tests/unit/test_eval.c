/* SPDX-License-Identifier: MIT */
/*
 * test_eval.c - verdicts as a pure function of summaries and thresholds: each
 * criterion at, just under and just over its threshold (the optional p99,
 * highest-window and dispersion ones too, each passing and failing), the
 * target-IOPS criterion only when a target is set, classes without I/O and
 * unknown window stats left unjudged, every verdict naming its scope and
 * database, a volume failing with its databases and the run with its
 * volumes; the lenient maxima of stress and long profiles (and nothing else
 * relaxed); the basis of the maxima (sample averages or the slowest I/O) and
 * its keys; the page fault stall criterion; and, through a short sim run,
 * that the warm-up is measured but never judged.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <unistd.h>

#include "diskproof/eval.h"
#include "diskproof/run.h"
#include "diskproof/store.h"

static const struct profile_thresholds strict = {
	.db_read_avg_ns = 20000000,
	.db_read_max_ns = 100000000,
	.log_write_avg_ns = 10000000,
	.log_write_max_ns = 100000000,
	.io_errors = 0,
};

static struct scope_summary scope(const char *name, const char *vol, double rd_avg, double lw_max)
{
	struct scope_summary s;

	memset(&s, 0, sizeof(s));
	strcpy(s.name, name);
	strcpy(s.volume, vol);
	s.classes[IO_DB_READ] = (struct class_summary){.ios = 100,
						       .iops = 600,
						       .avg_ms = rd_avg,
						       .p99_ms = rd_avg * 1.5,
						       .max_ms = rd_avg * 2};
	s.classes[IO_DB_WRITE] = (struct class_summary){.ios = 60, .iops = 400, .avg_ms = 1};
	s.classes[IO_LOG_WRITE] =
		(struct class_summary){.ios = 30, .avg_ms = 1, .p99_ms = 2, .max_ms = lw_max};
	/* no sample figures: the maxima fall back to the slowest I/O */
	for (unsigned c = 0; c < IO_CLASS_COUNT; c++)
		s.classes[c].max_sample_avg_ms = NAN;
	return s;
}

static const struct verdict *find(const struct verdict *v, size_t n, const char *name,
				  const char *criterion)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].name, name) && !strcmp(v[i].criterion, criterion))
			return &v[i];
	return NULL;
}

/* The verdict of name on criterion, which must exist. */
static const struct verdict *get(const struct verdict *v, size_t n, const char *name,
				 const char *criterion)
{
	const struct verdict *x = find(v, n, name, criterion);

	if (!x)
		fail_msg("no verdict %s of %s", criterion, name);
	return x;
}

static void test_thresholds(void **state)
{
	struct scope_summary dbs[2] = {scope("db1", "vol1", 20.0, 100.0),
				       scope("db2", "vol1", 20.001, 100.001)};
	struct scope_summary vol = scope("vol1", "", 10, 10), run = scope("run", "", 10, 10);
	struct eval_input in = {
		.run = &run, .volumes = &vol, .nr_volumes = 1, .databases = dbs, .nr_databases = 2};
	struct verdict *v;
	size_t n;
	const struct verdict *x;

	assert_int_equal(eval_judge(&in, &strict, &v, &n), 0);
	/* 6 criteria for each of 4 scopes, the two roll-ups, no target, no
	 * optional criterion */
	assert_int_equal(n, 26);
	x = get(v, n, "db1", "db_read_avg_ms");
	assert_true(x->passed); /* at the threshold passes */
	assert_int_equal(x->scope, SCOPE_DATABASE);
	assert_string_equal(x->volume, "vol1");
	assert_true(x->threshold == 20.0);
	x = get(v, n, "db2", "db_read_avg_ms");
	assert_false(x->passed);
	assert_true(x->measured == 20.001);
	assert_false(get(v, n, "db2", "log_write_max_ms")->passed);
	assert_true(get(v, n, "db1", "log_write_max_ms")->passed);
	assert_true(get(v, n, "db1", "db_read_max_ms")->passed);
	assert_true(get(v, n, "vol1", "log_write_avg_ms")->passed);
	assert_null(find(v, n, "run", "transactional_iops"));
	assert_null(find(v, n, "run", "db_read_p99_ms"));
	assert_null(find(v, n, "run", "db_read_interval_avg_ms"));
	assert_null(find(v, n, "run", "db_read_cv_pct"));
	/* databases first, then the volume, then the run */
	assert_int_equal(v[0].scope, SCOPE_DATABASE);
	assert_int_equal(v[n - 1].scope, SCOPE_RUN);
	assert_false(eval_all_passed(v, n));
	free(v);
}

/*
 * latency_basis: an open-loop scope with 2 ms service and 50 ms response
 * times passes the 20 ms average on the service basis and fails it on the
 * response basis, whose maximum is the slowest response; log writes stay
 * service times; a scope without response times is judged on its service
 * time whatever the basis.
 */
static void test_latency_basis(void **state)
{
	struct scope_summary db = scope("db1", "vol1", 2.0, 1.0),
			     closed = scope("db2", "vol1", 2, 1);
	struct scope_summary vol = scope("vol1", "", 2, 1), run = scope("run", "", 2, 1);
	struct eval_input in = {
		.run = &run, .volumes = &vol, .nr_volumes = 1, .databases = &db, .nr_databases = 1};
	struct profile_thresholds t = strict;
	struct verdict *v;
	size_t n;

	(void)state;
	db.response_recorded = true;
	db.response[IO_DB_READ] = (struct class_summary){
		.ios = 100, .avg_ms = 50, .p50_ms = 40, .p99_ms = 90, .max_ms = 150};
	db.response[IO_LOG_WRITE].ios = 30; /* never judged: log writes are service times */
	db.response[IO_LOG_WRITE].avg_ms = 500;
	assert_int_equal(eval_judge(&in, &t, &v, &n), 0);
	assert_true(get(v, n, "db1", "db_read_avg_ms")->passed);
	assert_true(get(v, n, "db1", "db_read_avg_ms")->measured == 2.0);
	free(v);

	t.latency_basis = PROFILE_LATENCY_RESPONSE;
	assert_int_equal(eval_judge(&in, &t, &v, &n), 0);
	assert_false(get(v, n, "db1", "db_read_avg_ms")->passed);
	assert_true(get(v, n, "db1", "db_read_avg_ms")->measured == 50.0);
	assert_false(get(v, n, "db1", "db_read_max_ms")->passed);
	assert_true(get(v, n, "db1", "db_read_max_ms")->measured == 150.0);
	assert_true(get(v, n, "db1", "log_write_avg_ms")->passed);
	assert_true(get(v, n, "db1", "log_write_avg_ms")->measured == 1.0);
	free(v);

	in.databases = &closed;
	assert_int_equal(eval_judge(&in, &t, &v, &n), 0);
	assert_true(get(v, n, "db2", "db_read_avg_ms")->measured == 2.0);
	free(v);
}

static void test_errors_and_target(void **state)
{
	struct scope_summary run = scope("run", "", 5, 5);
	struct eval_input in = {.run = &run, .target_iops = 1000};
	struct verdict *v;
	size_t n;

	assert_int_equal(eval_judge(&in, &strict, &v, &n), 0);
	assert_true(get(v, n, "run", "transactional_iops")->passed); /* 600 + 400 >= 1000 */
	assert_int_equal(get(v, n, "run", "transactional_iops")->cmp, VERDICT_GE);
	assert_true(get(v, n, "run", "io_errors")->passed);
	assert_true(get(v, n, "run", "integrity_errors")->passed);
	/* no volumes: nothing to roll up */
	assert_null(find(v, n, "run", "volumes_failed"));
	assert_true(eval_all_passed(v, n));
	free(v);
	in.target_iops = 1001;
	run.classes[IO_DB_WRITE].errors = 1;
	run.integrity_errors = 2;
	assert_int_equal(eval_judge(&in, &strict, &v, &n), 0);
	assert_false(get(v, n, "run", "transactional_iops")->passed);
	assert_false(get(v, n, "run", "io_errors")->passed);
	assert_true(get(v, n, "run", "io_errors")->measured == 1);
	assert_false(get(v, n, "run", "integrity_errors")->passed);
	assert_true(get(v, n, "run", "integrity_errors")->measured == 2);
	free(v);
	/* a profile may allow some I/O errors */
	{
		struct profile_thresholds t = strict;

		t.io_errors = 1;
		assert_int_equal(eval_judge(&in, &t, &v, &n), 0);
		assert_true(get(v, n, "run", "io_errors")->passed);
		free(v);
	}
}

/* Every class judged on its own thresholds, both optional ones on. */
static const struct profile_thresholds all_on = {
	.db_read_avg_ns = 20000000,
	.db_read_max_ns = 100000000,
	.log_write_avg_ns = 10000000,
	.log_write_max_ns = 100000000,
	.db_read_p99_ns = 30000000,
	.log_write_p99_ns = 5000000,
	.interval_avg = true,
	.db_read_cv_pct = 25,
	.log_write_cv_pct = 50,
};

static void test_no_io_not_judged(void **state)
{
	struct eval_window_stats w[IO_CLASS_COUNT] = {
		[IO_DB_READ] = {.n = 4, .max_avg_ms = 12, .mean_ms = 10, .cv = 0.1},
		[IO_LOG_WRITE] = {.n = 4, .max_avg_ms = 2, .mean_ms = 1, .cv = 0.2},
	};
	struct scope_summary run = scope("run", "", 5, 5);
	struct eval_input in = {.run = &run, .run_windows = w};
	struct verdict *v;
	size_t n;

	run.classes[IO_LOG_WRITE].ios = 0;
	assert_int_equal(eval_judge(&in, &all_on, &v, &n), 0);
	assert_null(find(v, n, "run", "log_write_avg_ms"));
	assert_null(find(v, n, "run", "log_write_max_ms"));
	assert_null(find(v, n, "run", "log_write_p99_ms"));
	assert_null(find(v, n, "run", "log_write_interval_avg_ms"));
	assert_null(find(v, n, "run", "log_write_cv_pct"));
	assert_non_null(find(v, n, "run", "db_read_avg_ms"));
	assert_non_null(find(v, n, "run", "db_read_p99_ms"));
	assert_non_null(find(v, n, "run", "db_read_interval_avg_ms"));
	assert_non_null(find(v, n, "run", "db_read_cv_pct"));
	free(v);
}

static void test_p99(void **state)
{
	struct scope_summary run = scope("run", "", 20, 5); /* db_read p99 30 ms */
	struct eval_input in = {.run = &run};
	struct profile_thresholds t = strict;
	const struct verdict *x;
	struct verdict *v;
	size_t n;

	/* off by default */
	assert_int_equal(eval_judge(&in, &t, &v, &n), 0);
	assert_null(find(v, n, "run", "db_read_p99_ms"));
	assert_null(find(v, n, "run", "log_write_p99_ms"));
	free(v);

	/* at the threshold: passes; the measured value is the summary's p99 */
	t.db_read_p99_ns = 30000000;
	t.log_write_p99_ns = 2000000;
	assert_int_equal(eval_judge(&in, &t, &v, &n), 0);
	x = get(v, n, "run", "db_read_p99_ms");
	assert_true(x->passed);
	assert_true(x->measured == 30.0 && x->threshold == 30.0);
	assert_int_equal(x->cmp, VERDICT_LE);
	x = get(v, n, "run", "log_write_p99_ms");
	assert_true(x->passed);
	assert_true(x->measured == 2.0 && x->threshold == 2.0);
	assert_true(eval_all_passed(v, n));
	free(v);

	/* just over: fails, each class on its own threshold */
	run.classes[IO_DB_READ].p99_ms = 30.001;
	assert_int_equal(eval_judge(&in, &t, &v, &n), 0);
	assert_false(get(v, n, "run", "db_read_p99_ms")->passed);
	assert_true(get(v, n, "run", "log_write_p99_ms")->passed);
	free(v);
	run.classes[IO_DB_READ].p99_ms = 29;
	run.classes[IO_LOG_WRITE].p99_ms = 2.5;
	assert_int_equal(eval_judge(&in, &t, &v, &n), 0);
	assert_true(get(v, n, "run", "db_read_p99_ms")->passed);
	assert_false(get(v, n, "run", "log_write_p99_ms")->passed);
	assert_false(eval_all_passed(v, n));
	free(v);
}

/*
 * Highest 15 s window average and dispersion, from the window stats of the
 * right scope: a database's, a volume's, the run's.
 */
static void test_windows(void **state)
{
	struct scope_summary dbs[2] = {scope("db1", "vol1", 5, 5), scope("db2", "vol1", 5, 5)};
	struct scope_summary vol = scope("vol1", "", 5, 5), run = scope("run", "", 5, 5);
	struct eval_window_stats dw[2 * IO_CLASS_COUNT] = {0}, vw[IO_CLASS_COUNT] = {0},
					rw[IO_CLASS_COUNT] = {0};
	struct eval_input in = {.run = &run,
				.volumes = &vol,
				.nr_volumes = 1,
				.databases = dbs,
				.nr_databases = 2,
				.run_windows = rw,
				.volume_windows = vw,
				.database_windows = dw};
	const struct verdict *x;
	struct verdict *v;
	size_t n;

	/* db1: read windows at the threshold (passes); db2: one window over */
	dw[IO_DB_READ] = (struct eval_window_stats){3, 20.0, 10, 0.25};
	dw[IO_LOG_WRITE] = (struct eval_window_stats){3, 10.0, 5, 0.5};
	dw[IO_CLASS_COUNT + IO_DB_READ] = (struct eval_window_stats){3, 20.5, 10, 0.26};
	dw[IO_CLASS_COUNT + IO_LOG_WRITE] = (struct eval_window_stats){3, 10.25, 5, 0.51};
	vw[IO_DB_READ] = (struct eval_window_stats){3, 15, 10, 0.1};
	vw[IO_LOG_WRITE] = (struct eval_window_stats){3, 5, 4, 0.1};
	rw[IO_DB_READ] = (struct eval_window_stats){3, 14, 10, 0.1};
	rw[IO_LOG_WRITE] = (struct eval_window_stats){3, 4, 4, 0.05};

	/* off: none of them */
	assert_int_equal(eval_judge(&in, &strict, &v, &n), 0);
	for (size_t i = 0; i < n; i++) {
		assert_null(strstr(v[i].criterion, "interval"));
		assert_null(strstr(v[i].criterion, "_cv_"));
	}
	free(v);

	assert_int_equal(eval_judge(&in, &all_on, &v, &n), 0);
	x = get(v, n, "db1", "db_read_interval_avg_ms");
	assert_true(x->passed);
	assert_true(x->measured == 20.0 && x->threshold == 20.0); /* the average threshold */
	assert_string_equal(x->volume, "vol1");
	x = get(v, n, "db1", "log_write_interval_avg_ms");
	assert_true(x->passed);
	assert_true(x->measured == 10.0 && x->threshold == 10.0);
	x = get(v, n, "db2", "db_read_interval_avg_ms");
	assert_false(x->passed);
	assert_true(x->measured == 20.5);
	assert_false(get(v, n, "db2", "log_write_interval_avg_ms")->passed);
	/* dispersion in percent: cv 0.25 at 25 % passes, 0.26 fails */
	x = get(v, n, "db1", "db_read_cv_pct");
	assert_true(x->passed);
	assert_true(fabs(x->measured - 25.0) < 1e-9 && x->threshold == 25.0);
	x = get(v, n, "db2", "db_read_cv_pct");
	assert_false(x->passed);
	assert_true(fabs(x->measured - 26.0) < 1e-9);
	assert_true(get(v, n, "db1", "log_write_cv_pct")->passed);
	assert_false(get(v, n, "db2", "log_write_cv_pct")->passed);
	/* the volume's and the run's own windows */
	assert_true(get(v, n, "vol1", "db_read_interval_avg_ms")->measured == 15);
	assert_true(get(v, n, "vol1", "db_read_interval_avg_ms")->passed);
	assert_true(get(v, n, "run", "log_write_interval_avg_ms")->measured == 4);
	assert_true(fabs(get(v, n, "run", "log_write_cv_pct")->measured - 5.0) < 1e-9);
	free(v);

	/* over at the volume and the run too */
	vw[IO_LOG_WRITE].max_avg_ms = 11;
	rw[IO_DB_READ].cv = 0.3;
	assert_int_equal(eval_judge(&in, &all_on, &v, &n), 0);
	assert_false(get(v, n, "vol1", "log_write_interval_avg_ms")->passed);
	assert_false(get(v, n, "run", "db_read_cv_pct")->passed);
	free(v);

	/* one window: a highest average, but no dispersion to judge */
	rw[IO_DB_READ] = (struct eval_window_stats){1, 14, 14, 0};
	/* no window with I/O of the class: neither */
	rw[IO_LOG_WRITE] = (struct eval_window_stats){0, 0, 0, 0};
	assert_int_equal(eval_judge(&in, &all_on, &v, &n), 0);
	assert_non_null(find(v, n, "run", "db_read_interval_avg_ms"));
	assert_null(find(v, n, "run", "db_read_cv_pct"));
	assert_null(find(v, n, "run", "log_write_interval_avg_ms"));
	assert_null(find(v, n, "run", "log_write_cv_pct"));
	/* the summary criteria do not depend on windows */
	assert_non_null(find(v, n, "run", "log_write_avg_ms"));
	assert_non_null(find(v, n, "run", "log_write_p99_ms"));
	free(v);

	/* unknown window stats (NULL): skipped, scope by scope */
	in.database_windows = NULL;
	assert_int_equal(eval_judge(&in, &all_on, &v, &n), 0);
	assert_null(find(v, n, "db1", "db_read_interval_avg_ms"));
	assert_null(find(v, n, "db2", "db_read_cv_pct"));
	assert_non_null(find(v, n, "vol1", "db_read_interval_avg_ms"));
	assert_non_null(find(v, n, "db1", "db_read_p99_ms"));
	free(v);
	in.volume_windows = NULL;
	in.run_windows = NULL;
	assert_int_equal(eval_judge(&in, &all_on, &v, &n), 0);
	for (size_t i = 0; i < n; i++) {
		assert_null(strstr(v[i].criterion, "interval"));
		assert_null(strstr(v[i].criterion, "_cv_"));
	}
	free(v);
}

/* A volume fails with any of its databases, the run with any of its volumes. */
static void test_rollup(void **state)
{
	struct scope_summary dbs[3] = {scope("db1", "vol1", 5, 5), scope("db2", "vol1", 5, 5),
				       scope("db3", "vol2", 5, 5)};
	struct scope_summary vols[3] = {scope("vol1", "", 5, 5), scope("vol2", "", 5, 5),
					scope("vol3", "", 5, 5)};
	struct scope_summary run = scope("run", "", 5, 5);
	struct eval_input in = {
		.run = &run, .volumes = vols, .nr_volumes = 3, .databases = dbs, .nr_databases = 3};
	const struct verdict *x;
	struct verdict *v;
	size_t n;

	/* all pass: 0 failed databases on vol1 and vol2; vol3 has none to roll up */
	assert_int_equal(eval_judge(&in, &strict, &v, &n), 0);
	x = get(v, n, "vol1", "databases_failed");
	assert_true(x->passed);
	assert_int_equal(x->scope, SCOPE_VOLUME);
	assert_true(x->measured == 0 && x->threshold == 0);
	assert_int_equal(x->cmp, VERDICT_LE);
	assert_true(get(v, n, "vol2", "databases_failed")->passed);
	assert_null(find(v, n, "vol3", "databases_failed"));
	x = get(v, n, "run", "volumes_failed");
	assert_true(x->passed);
	assert_int_equal(x->scope, SCOPE_RUN);
	assert_true(eval_all_passed(v, n));
	free(v);

	/* db1 and db2 fail on two criteria each, vol1's own figures pass: vol1
	 * counts two failed databases, the run one failed volume */
	dbs[0].classes[IO_DB_READ].avg_ms = 25;
	dbs[0].classes[IO_LOG_WRITE].max_ms = 150;
	dbs[1].integrity_errors = 1;
	dbs[1].classes[IO_DB_WRITE].errors = 2;
	assert_int_equal(eval_judge(&in, &strict, &v, &n), 0);
	assert_true(get(v, n, "vol1", "db_read_avg_ms")->passed);
	x = get(v, n, "vol1", "databases_failed");
	assert_false(x->passed);
	assert_true(x->measured == 2);
	assert_true(get(v, n, "vol2", "databases_failed")->passed);
	x = get(v, n, "run", "volumes_failed");
	assert_false(x->passed);
	assert_true(x->measured == 1);
	free(v);

	/* a volume failing on its own (vol3, no databases) counts too */
	vols[2].classes[IO_DB_READ].max_ms = 101;
	assert_int_equal(eval_judge(&in, &strict, &v, &n), 0);
	assert_true(get(v, n, "run", "volumes_failed")->measured == 2);
	free(v);
}

static void parse(struct profile *p, const char *type, const char *duration, const char *extra);

/*
 * max_basis: on sample (the default) the maxima judge the highest sample
 * average under their _max_sample_avg_ms names, on io the slowest I/O under
 * the _max_ms names; one slow I/O among good samples fails io and passes
 * sample; a sample average over the threshold fails sample whatever the
 * basis of the other class; a scope with no sample figure falls back to the
 * slowest I/O; the p99 criterion is the same on both bases.
 */
static void test_max_basis(void **state)
{
	struct scope_summary dbs[1] = {scope("db1", "vol1", 2, 150)};
	struct scope_summary vol = scope("vol1", "", 2, 150), run = scope("run", "", 2, 150);
	struct eval_input in = {
		.run = &run, .volumes = &vol, .nr_volumes = 1, .databases = dbs, .nr_databases = 1};
	struct profile_thresholds t = strict;
	struct scope_summary *all[] = {&dbs[0], &vol, &run};
	const struct verdict *x;
	struct verdict *v;
	size_t n;

	t.db_read_p99_ns = 50000000;
	/* one 150 ms log write (the slowest I/O); the samples' averages are low */
	for (size_t i = 0; i < DP_ARRAY_SIZE(all); i++) {
		all[i]->classes[IO_DB_READ].max_sample_avg_ms = 3;
		all[i]->classes[IO_LOG_WRITE].max_sample_avg_ms = 1.5;
	}
	t.max_basis = PROFILE_MAX_SAMPLE;
	assert_int_equal(eval_judge(&in, &t, &v, &n), 0);
	x = get(v, n, "db1", "log_write_max_sample_avg_ms");
	assert_true(x->passed);
	assert_true(x->measured == 1.5 && x->threshold == 100);
	assert_true(get(v, n, "run", "db_read_max_sample_avg_ms")->measured == 3);
	assert_null(find(v, n, "db1", "log_write_max_ms"));
	assert_null(find(v, n, "run", "db_read_max_ms"));
	assert_true(get(v, n, "run", "db_read_p99_ms")->passed);
	assert_true(eval_all_passed(v, n));
	free(v);

	t.max_basis = PROFILE_MAX_IO;
	assert_int_equal(eval_judge(&in, &t, &v, &n), 0);
	x = get(v, n, "db1", "log_write_max_ms");
	assert_false(x->passed);
	assert_true(x->measured == 150);
	assert_true(get(v, n, "db1", "db_read_max_ms")->passed);
	assert_null(find(v, n, "db1", "log_write_max_sample_avg_ms"));
	assert_false(get(v, n, "vol1", "databases_failed")->passed);
	assert_true(get(v, n, "run", "db_read_p99_ms")->passed); /* p99: the same */
	assert_false(eval_all_passed(v, n));
	free(v);

	/* a sample at the threshold passes, one just over fails (and rolls up) */
	t.max_basis = PROFILE_MAX_SAMPLE;
	dbs[0].classes[IO_DB_READ].max_sample_avg_ms = 100;
	assert_int_equal(eval_judge(&in, &t, &v, &n), 0);
	assert_true(get(v, n, "db1", "db_read_max_sample_avg_ms")->passed);
	free(v);
	dbs[0].classes[IO_DB_READ].max_sample_avg_ms = 100.001;
	assert_int_equal(eval_judge(&in, &t, &v, &n), 0);
	x = get(v, n, "db1", "db_read_max_sample_avg_ms");
	assert_false(x->passed);
	assert_int_equal(x->cmp, VERDICT_LE);
	assert_false(get(v, n, "vol1", "databases_failed")->passed);
	assert_true(get(v, n, "vol1", "db_read_max_sample_avg_ms")->passed);
	free(v);

	/* no sample figure (an older results file): the slowest I/O, io's name */
	run.classes[IO_LOG_WRITE].max_sample_avg_ms = NAN;
	assert_int_equal(eval_judge(&in, &t, &v, &n), 0);
	assert_false(get(v, n, "run", "log_write_max_ms")->passed);
	assert_null(find(v, n, "run", "log_write_max_sample_avg_ms"));
	assert_non_null(find(v, n, "run", "db_read_max_sample_avg_ms"));
	free(v);
}

/*
 * page_fault_stalls: judged per database, volume and run only where the
 * profile sets the threshold and the scope counted stalls; its row is there
 * at 0 stalls; at the threshold it passes, over it fails, and a database
 * failing on it fails its volume and the run; a volume and the run are
 * judged on their rate per database.
 */
static void test_page_fault_stalls(void **state)
{
	struct scope_summary dbs[2] = {scope("db1", "vol1", 2, 2), scope("db2", "vol1", 2, 2)};
	struct scope_summary vol = scope("vol1", "", 2, 2), run = scope("run", "", 2, 2);
	struct eval_input in = {
		.run = &run, .volumes = &vol, .nr_volumes = 1, .databases = dbs, .nr_databases = 2};
	struct scope_summary *all[] = {&dbs[0], &dbs[1], &vol, &run};
	struct profile_thresholds t = strict;
	const struct verdict *x;
	struct verdict *v;
	size_t n;

	for (size_t i = 0; i < DP_ARRAY_SIZE(all); i++)
		all[i]->stalls_recorded = true;
	/* not set in the profile: not judged, even with stalls counted */
	dbs[0].page_fault_stalls_per_s = 50;
	assert_int_equal(eval_judge(&in, &t, &v, &n), 0);
	assert_null(find(v, n, "db1", "page_fault_stalls"));
	assert_null(find(v, n, "run", "page_fault_stalls"));
	assert_true(eval_all_passed(v, n));
	free(v);

	t.page_fault_stalls = 1;
	t.page_fault_stalls_set = true;
	dbs[0].page_fault_stalls_per_s = 0;
	assert_int_equal(eval_judge(&in, &t, &v, &n), 0);
	for (size_t i = 0; i < DP_ARRAY_SIZE(all); i++) {
		x = get(v, n, all[i]->name, "page_fault_stalls");
		assert_true(x->passed); /* 0 stalls: the row is there, passing */
		assert_true(x->measured == 0 && x->threshold == 1);
		assert_int_equal(x->cmp, VERDICT_LE);
	}
	assert_int_equal(get(v, n, "vol1", "page_fault_stalls")->scope, SCOPE_VOLUME);
	free(v);

	dbs[0].page_fault_stalls_per_s = 1; /* at the threshold */
	vol.page_fault_stalls_per_s = run.page_fault_stalls_per_s = 1;
	assert_int_equal(eval_judge(&in, &t, &v, &n), 0);
	assert_true(get(v, n, "db1", "page_fault_stalls")->passed);
	assert_true(eval_all_passed(v, n));
	free(v);

	dbs[1].page_fault_stalls_per_s = 1.5; /* just over */
	vol.page_fault_stalls_per_s = run.page_fault_stalls_per_s = 1.5;
	assert_int_equal(eval_judge(&in, &t, &v, &n), 0);
	x = get(v, n, "db2", "page_fault_stalls");
	assert_false(x->passed);
	assert_true(x->measured == 1.5);
	assert_string_equal(x->volume, "vol1");
	/* a volume and the run are judged per database: 1.5/s over 2 */
	x = get(v, n, "vol1", "page_fault_stalls");
	assert_true(x->passed);
	assert_true(x->measured == 0.75);
	assert_true(get(v, n, "run", "page_fault_stalls")->measured == 0.75);
	assert_true(get(v, n, "vol1", "databases_failed")->measured == 1);
	assert_false(get(v, n, "run", "volumes_failed")->passed);
	free(v);

	/* a volume over the rate per database fails on its own */
	vol.page_fault_stalls_per_s = 2.5;
	assert_int_equal(eval_judge(&in, &t, &v, &n), 0);
	assert_false(get(v, n, "vol1", "page_fault_stalls")->passed);
	assert_true(get(v, n, "vol1", "page_fault_stalls")->measured == 1.25);
	free(v);
	vol.page_fault_stalls_per_s = 0;

	/* a threshold of 0: no stall at all */
	t.page_fault_stalls = 0;
	dbs[1].page_fault_stalls_per_s = 0;
	assert_int_equal(eval_judge(&in, &t, &v, &n), 0);
	assert_false(get(v, n, "db1", "page_fault_stalls")->passed);
	assert_true(get(v, n, "db2", "page_fault_stalls")->passed);
	free(v);

	/* a scope that did not count stalls (backup, fixed model): no row */
	t.page_fault_stalls = 1;
	for (size_t i = 0; i < DP_ARRAY_SIZE(all); i++)
		all[i]->stalls_recorded = false;
	assert_int_equal(eval_judge(&in, &t, &v, &n), 0);
	assert_null(find(v, n, "db1", "page_fault_stalls"));
	assert_null(find(v, n, "run", "page_fault_stalls"));
	free(v);
}

/*
 * The new keys as parse.c sets them: max_basis defaults to sample with a
 * 15 s sample; io and other whole-second samples are taken; a sample under
 * 1 s, or not whole seconds, is refused at its line; page_fault_stalls is
 * judged only where given, and the Exchange built-ins give 1.
 */
static void test_basis_keys(void **state)
{
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	static const char *const bad[][2] = {
		{"sample_interval = 500ms",
		 "t.ini:2: [thresholds] sample_interval: 500ms is too short: the shortest accepted "
		 "is 1s"},
		{"sample_interval = 1500ms",
		 "t.ini:2: [thresholds] sample_interval: 1500ms is not a whole number of seconds"},
		{"max_basis = samples",
		 "t.ini:2: [thresholds] max_basis: \"samples\" is not one of sample or io; did you "
		 "mean sample?"},
		{"page_fault_stall = 1",
		 "t.ini:2: [thresholds] page_fault_stall: unknown key; did you mean "
		 "page_fault_stalls?"},
	};
	struct profile p;

	parse(&p, "performance", "2h", "");
	assert_int_equal(p.thresholds.max_basis, PROFILE_MAX_SAMPLE);
	assert_int_equal(p.thresholds.sample_interval_ns, 15000000000ULL);
	assert_false(p.thresholds.page_fault_stalls_set);
	profile_release(&p);
	parse(&p, "performance", "2h",
	      "max_basis = io\nsample_interval = 30s\npage_fault_stalls = 0");
	assert_int_equal(p.thresholds.max_basis, PROFILE_MAX_IO);
	assert_int_equal(p.thresholds.sample_interval_ns, 30000000000ULL);
	assert_true(p.thresholds.page_fault_stalls_set);
	assert_true(p.thresholds.page_fault_stalls == 0);
	profile_release(&p);
	for (size_t i = 0; i < DP_ARRAY_SIZE(bad); i++) {
		strbuf_reset(&text);
		strbuf_reset(&err);
		strbuf_addf(&text, "[thresholds]\n%s\n[volume v1]\npath = /d\n", bad[i][0]);
		assert_int_not_equal(profile_parse(&p, "t.ini", text.buf, text.len, &err), 0);
		if (!strstr(err.buf, bad[i][1]))
			fail_msg("%s: got \"%s\"", bad[i][0], err.buf);
	}
	for (const char *const *b = (const char *const[]){"exchange-2013", "exchange-2010", NULL};
	     *b; b++) {
		const struct profile_builtin *pb = profile_builtin_find(*b);

		assert_non_null(pb);
		strbuf_reset(&err);
		if (profile_parse(&p, *b, pb->text, strlen(pb->text), &err))
			fail_msg("%s: %s", *b, err.buf);
		assert_true(p.thresholds.page_fault_stalls_set);
		assert_true(p.thresholds.page_fault_stalls == 1);
		assert_int_equal(p.thresholds.max_basis, PROFILE_MAX_SAMPLE);
		profile_release(&p);
	}
	strbuf_release(&text);
	strbuf_release(&err);
}

/* A profile's thresholds as parse.c sets them. */
static void parse(struct profile *p, const char *type, const char *duration, const char *extra)
{
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;

	strbuf_addf(&text,
		    "[test]\ntype = %s\nduration = %s\n[thresholds]\n%s\n[volume v1]\npath = /d\n",
		    type, duration, extra);
	if (profile_parse(p, "t.ini", text.buf, text.len, &err))
		fail_msg("%s", err.buf);
	strbuf_release(&text);
	strbuf_release(&err);
}

/*
 * The lenient set: a stress test or a run over 6 h gets 200 ms maxima by
 * default, a maximum the profile gives wins, and nothing but the maxima is
 * relaxed (averages, p99, windows, dispersion, errors stay).
 */
static void test_lenient(void **state)
{
	static const char optional[] = "db_read_p99 = 120ms\nlog_write_p99 = 50ms\n"
				       "interval_avg = on\ndb_read_cv = 20%\nlog_write_cv = 30\n";
	struct scope_summary run = scope("run", "", 19, 150); /* max 38 ms read, 150 ms log */
	struct eval_input in = {.run = &run};
	struct profile p;
	struct verdict *v;
	size_t n;

	parse(&p, "performance", "2h", optional);
	assert_false(p.thresholds.lenient);
	assert_int_equal(p.thresholds.db_read_max_ns, 100000000);
	assert_int_equal(p.thresholds.log_write_max_ns, 100000000);
	assert_int_equal(p.thresholds.db_read_p99_ns, 120000000);
	assert_int_equal(p.thresholds.log_write_p99_ns, 50000000);
	assert_true(p.thresholds.interval_avg);
	assert_true(p.thresholds.db_read_cv_pct == 20 && p.thresholds.log_write_cv_pct == 30);
	assert_int_equal(eval_judge(&in, &p.thresholds, &v, &n), 0);
	assert_false(get(v, n, "run", "log_write_max_ms")->passed); /* 150 > 100 */
	free(v);
	profile_release(&p);

	const char *const lenient[][2] = {{"stress", "1h"}, {"performance", "7h"}};
	for (size_t i = 0; i < DP_ARRAY_SIZE(lenient); i++) {
		parse(&p, lenient[i][0], lenient[i][1], optional);
		assert_true(p.thresholds.lenient);
		assert_int_equal(p.thresholds.db_read_max_ns, 200000000);
		assert_int_equal(p.thresholds.log_write_max_ns, 200000000);
		/* the rest as strict */
		assert_int_equal(p.thresholds.db_read_avg_ns, 20000000);
		assert_int_equal(p.thresholds.log_write_avg_ns, 10000000);
		assert_int_equal(p.thresholds.db_read_p99_ns, 120000000);
		assert_int_equal(p.thresholds.log_write_p99_ns, 50000000);
		assert_true(p.thresholds.interval_avg);
		assert_true(p.thresholds.db_read_cv_pct == 20);
		assert_int_equal(p.thresholds.io_errors, 0);
		assert_int_equal(eval_judge(&in, &p.thresholds, &v, &n), 0);
		assert_true(get(v, n, "run", "log_write_max_ms")->passed); /* 150 <= 200 */
		assert_true(get(v, n, "run", "log_write_max_ms")->threshold == 200);
		/* a log p99 of 2 ms, not relaxed: passes on its own threshold */
		assert_true(get(v, n, "run", "log_write_p99_ms")->threshold == 50);
		free(v);
		profile_release(&p);
	}

	/* an explicit maximum wins over the lenient default */
	parse(&p, "stress", "24h", "db_read_max = 80ms\n");
	assert_int_equal(p.thresholds.db_read_max_ns, 80000000);
	assert_int_equal(p.thresholds.log_write_max_ns, 200000000);
	/* the optional criteria are off unless given */
	assert_int_equal(p.thresholds.db_read_p99_ns, 0);
	assert_int_equal(p.thresholds.log_write_p99_ns, 0);
	assert_false(p.thresholds.interval_avg);
	assert_true(p.thresholds.db_read_cv_pct == 0 && p.thresholds.log_write_cv_pct == 0);
	profile_release(&p);
}

/*
 * The warm-up is excluded from what is judged: a 20 s sim run after 15 s of
 * warm-up stores warm-up intervals with I/O, yet the summaries the verdicts
 * judge count the measured intervals only, and the verdicts' figures are
 * those summaries'. With interval_avg on, the runner's window stats reach
 * eval (measured windows only: none of the warm-up's).
 */
static void test_warmup_excluded(void **state)
{
	char dir[] = "/tmp/dp-test-eval-XXXXXX";
	struct strbuf err = STRBUF_INIT, path = STRBUF_INIT, db = STRBUF_INIT;
	struct profile_overrides o = {.duration_ns = 20 * NSEC_PER_SEC,
				      .has_duration = true,
				      .warmup_ns = 15 * NSEC_PER_SEC,
				      .has_warmup = true};
	uint64_t measured = 0, warm = 0, lat = 0;
	struct run_outcome out = {0};
	struct run_options ro = {0};
	struct store *st = NULL;
	struct results r;
	struct profile p;
	const struct verdict *x;

	assert_non_null(mkdtemp(dir));
	strbuf_addf(&path, "%s/sim.ini", dir);
	strbuf_addf(&db, "%s/r.db", dir);
	{
		FILE *f = fopen(path.buf, "w");

		assert_non_null(f);
		fputs("[test]\nduration = 1m\n[engine]\nname = sim\nstreams = 4\n"
		      "[thresholds]\ninterval_avg = on\n[sim]\nseed = 3\n"
		      "[volume v1]\npath = /nonexistent/v1\ndatabases = 2\n",
		      f);
		fclose(f);
	}
	if (profile_load_file(&p, path.buf, &err) || profile_apply_overrides(&p, &o, &err))
		fail_msg("%s", err.buf);
	ro.profile = &p;
	ro.results_path = db.buf;
	ro.command_line = "test_eval";
	ro.signal_fd = -1;
	if (run_execute(&ro, &out, &err))
		fail_msg("%s", err.buf);
	assert_int_equal(out.exit_code, DP_EXIT_OK);
	if (store_open(&st, db.buf, &err) || store_results_load(st, out.run_id, &r, &err))
		fail_msg("%s", err.buf);

	for (size_t i = 0; i < r.nr_samples; i++) {
		const struct results_sample *s = &r.samples[i];

		if (s->scope != SCOPE_RUN || s->cls != IO_DB_READ)
			continue;
		if (s->warmup) {
			warm += s->ios;
		} else {
			measured += s->ios;
			lat += s->lat_sum_ns;
		}
	}
	assert_true(warm > 0);
	assert_true(measured > 0);
	assert_int_equal(r.run.classes[IO_DB_READ].ios, measured);
	assert_true(fabs(r.duration_s - 20.0) < 1e-9);
	assert_true(fabs(r.warmup_s - 15.0) < 1e-9);
	/* the warm-up, apart */
	assert_int_equal(r.warmup.classes[IO_DB_READ].ios, warm);
	assert_true(fabs(r.warmup.duration_s - 15.0) < 1e-9);
	/* the verdicts judged the measured figures */
	x = get(r.verdicts, r.nr_verdicts, "run", "db_read_avg_ms");
	assert_true(x->measured == r.run.classes[IO_DB_READ].avg_ms);
	assert_true(fabs(x->measured - (double)lat / (double)measured / 1e6) < 0.01);
	x = get(r.verdicts, r.nr_verdicts, "run", "db_read_interval_avg_ms");
	assert_true(x->passed);
	assert_true(x->measured >= r.run.classes[IO_DB_READ].avg_ms * 0.95);
	assert_non_null(find(r.verdicts, r.nr_verdicts, "db1", "log_write_interval_avg_ms"));
	assert_true(get(r.verdicts, r.nr_verdicts, "v1", "databases_failed")->passed);
	assert_true(get(r.verdicts, r.nr_verdicts, "run", "volumes_failed")->passed);

	results_release(&r);
	store_close(st);
	profile_release(&p);
	for (const char *const *sfx = (const char *const[]){"", "-wal", "-shm", NULL}; *sfx;
	     sfx++) {
		strbuf_reset(&err);
		strbuf_addf(&err, "%s%s", db.buf, *sfx);
		unlink(err.buf);
	}
	unlink(path.buf);
	rmdir(dir);
	strbuf_release(&err);
	strbuf_release(&path);
	strbuf_release(&db);
}

/* A backup or recovery test cut short fails its databases on the share of
 * the pass done; a finished one passes with its row at 100; other tests
 * have no such row. */
static void test_pass_done(void **state)
{
	struct scope_summary dbs[2] = {scope("db1", "vol1", 2, 2), scope("db2", "vol1", 2, 2)};
	struct scope_summary vol = scope("vol1", "", 2, 2), run = scope("run", "", 2, 2);
	struct eval_input in = {
		.run = &run, .volumes = &vol, .nr_volumes = 1, .databases = dbs, .nr_databases = 2};
	struct profile_thresholds t = strict;
	const struct verdict *x;
	struct verdict *v;
	size_t n;

	(void)state;
	assert_int_equal(eval_judge(&in, &t, &v, &n), 0);
	assert_null(find(v, n, "db1", "pass_done_pct"));
	free(v);

	dbs[0].pass_judged = dbs[1].pass_judged = true;
	dbs[0].pass_done_pct = dbs[1].pass_done_pct = 100;
	assert_int_equal(eval_judge(&in, &t, &v, &n), 0);
	x = get(v, n, "db2", "pass_done_pct");
	assert_true(x->passed && x->measured == 100 && x->threshold == 100);
	assert_int_equal(x->cmp, VERDICT_GE);
	assert_null(find(v, n, "vol1", "pass_done_pct")); /* databases only */
	assert_true(eval_all_passed(v, n));
	free(v);

	dbs[1].pass_done_pct = 99.5;
	assert_int_equal(eval_judge(&in, &t, &v, &n), 0);
	assert_false(get(v, n, "db2", "pass_done_pct")->passed);
	assert_true(get(v, n, "db1", "pass_done_pct")->passed);
	assert_true(get(v, n, "vol1", "databases_failed")->measured == 1);
	assert_false(eval_all_passed(v, n));
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_thresholds),	 cmocka_unit_test(test_errors_and_target),
		cmocka_unit_test(test_no_io_not_judged), cmocka_unit_test(test_p99),
		cmocka_unit_test(test_windows),		 cmocka_unit_test(test_rollup),
		cmocka_unit_test(test_lenient),		 cmocka_unit_test(test_warmup_excluded),
		cmocka_unit_test(test_max_basis),	 cmocka_unit_test(test_page_fault_stalls),
		cmocka_unit_test(test_basis_keys),	 cmocka_unit_test(test_pass_done),
		cmocka_unit_test(test_latency_basis),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
