/* SPDX-License-Identifier: MIT */
/*
 * test_analyze.c - the statistics of a comparison (analyze.h) and their
 * renderers: the Mann-Whitney U test on small examples worked out by hand
 * (exact null distribution; ties with the normal approximation; too few
 * intervals), significance on clearly shifted against identical series,
 * dispersion, the percent change with a zero baseline, per-interval series
 * (warm-up excluded, IOPS over the interval's length, a class without a row
 * in an interval counted as 0 there), and a whole comparison of hand-made
 * results: verdict changes, environment differences, unmatched scopes,
 * classes neither run issued left untested and out of the family, and a JSON
 * document python3 accepts with no nan or inf in it; host counters side by
 * side (devices matched by name, untested) in text, JSON and HTML.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diskproof/analyze.h"
#include "diskproof/report.h"

static void mw(const double *a, size_t na, const double *b, size_t nb, struct analyze_mw *t)
{
	assert_int_equal(analyze_mann_whitney(a, na, b, nb, t), 0);
}

/* A = {1,2,3}, B = {4,5,6}: U_A = 0, the most extreme of C(6,3) = 20
 * arrangements on either side: p = 2/20. */
static void test_mw_exact_separated(void **state)
{
	const double a[] = {1, 2, 3}, b[] = {4, 5, 6};
	struct analyze_mw t;

	mw(a, 3, b, 3, &t);
	assert_int_equal(t.method, ANALYZE_EXACT);
	assert_true(t.u == 0);
	assert_true(fabs(t.p_value - 0.1) < 1e-12);
	/* swapped: U_A = 9, same p */
	mw(b, 3, a, 3, &t);
	assert_true(t.u == 9);
	assert_true(fabs(t.p_value - 0.1) < 1e-12);
}

/* A = {1,3,5}, B = {2,4,6}: R_A = 9, U_A = 3. The counts of U = 0..9 over the
 * 20 arrangements are 1 1 2 3 3 3 3 2 1 1, so P[U <= 3] = 7/20 and p = 0.7. */
static void test_mw_exact_interleaved(void **state)
{
	const double a[] = {5, 1, 3}, b[] = {6, 2, 4};
	struct analyze_mw t;

	mw(a, 3, b, 3, &t);
	assert_int_equal(t.method, ANALYZE_EXACT);
	assert_true(t.u == 3);
	assert_true(fabs(t.p_value - 0.7) < 1e-12);
}

/* 5 against 5, separated: p = 2 / C(10,5) = 2/252; 10 against 10: 2 / C(20,10). */
static void test_mw_exact_larger(void **state)
{
	double a[10], b[10];
	struct analyze_mw t;

	for (int i = 0; i < 10; i++) {
		a[i] = i + 1;
		b[i] = i + 11;
	}
	mw(a, 5, b + 5, 5, &t);
	assert_true(fabs(t.p_value - 2.0 / 252.0) < 1e-12);
	mw(b, 10, a, 10, &t);
	assert_true(t.u == 100);
	assert_true(fabs(t.p_value / (2.0 / 184756.0) - 1) < 1e-9);
}

/*
 * Ties: A = {1,2,2,3}, B = {2,3,4,5}. Pooled ranks: 1 -> 1, the three 2s ->
 * 3, the two 3s -> 5.5, 4 -> 7, 5 -> 8; R_A = 1 + 3 + 3 + 5.5 = 12.5, U_A =
 * 12.5 - 10 = 2.5, E[U] = 8. Tie term 3^3-3 + 2^3-2 = 30, N = 8: Var[U] =
 * 16/12 x (9 - 30/56) = 11.2857142857; z = (5.5 - 0.5) / sqrt(Var) =
 * 1.4883513945; p = erfc(z / sqrt 2) = 0.1366582477.
 */
static void test_mw_ties_normal(void **state)
{
	const double a[] = {1, 2, 2, 3}, b[] = {2, 3, 4, 5};
	struct analyze_mw t;

	mw(a, 4, b, 4, &t);
	assert_int_equal(t.method, ANALYZE_NORMAL);
	assert_true(t.u == 2.5);
	assert_true(fabs(t.z - 1.4883513945) < 1e-9);
	assert_true(fabs(t.p_value - 0.1366582477) < 1e-9);
}

static void test_mw_degenerate(void **state)
{
	const double a[] = {1, 1, 1, 1}, b[] = {1, 1, 1, 1}, one[] = {3}, bad[] = {1, NAN};
	struct analyze_mw t;

	mw(a, 4, b, 4, &t); /* all equal: no evidence */
	assert_true(t.p_value == 1.0);
	mw(one, 1, b, 4, &t); /* one interval: not tested */
	assert_int_equal(t.method, ANALYZE_NONE);
	assert_true(isnan(t.p_value));
	mw(NULL, 0, NULL, 0, &t);
	assert_int_equal(t.method, ANALYZE_NONE);
	assert_int_equal(analyze_mann_whitney(bad, 2, b, 4, &t), -EINVAL);
}

/* 120 intervals around 2 ms against 120 around 4 ms: significant; the same
 * 120 against themselves: p = 1; two draws of the same noise: not. */
static void test_mw_shifted_vs_identical(void **state)
{
	double a[120], b[120], c[120];
	struct analyze_mw t;
	uint64_t x = 12345;

	for (int i = 0; i < 120; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		a[i] = 2.0 + (double)(x >> 40) / (double)(1ULL << 24) * 0.4;
		b[i] = 2 * a[i];
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		c[i] = 2.0 + (double)(x >> 40) / (double)(1ULL << 24) * 0.4;
	}
	mw(a, 120, b, 120, &t);
	assert_int_equal(t.method, ANALYZE_NORMAL);
	assert_true(t.p_value < 1e-30);
	mw(a, 120, a, 120, &t);
	assert_true(t.p_value == 1.0);
	mw(a, 120, c, 120, &t);
	assert_true(t.p_value > ANALYZE_ALPHA_DEFAULT);
}

static void test_change_pct(void **state)
{
	assert_true(analyze_change_pct(10, 15) == 50);
	assert_true(analyze_change_pct(4, 2) == -50);
	assert_true(analyze_change_pct(0, 0) == 0);
	assert_true(isnan(analyze_change_pct(0, 5)));
	assert_true(isnan(analyze_change_pct(NAN, 5)));
	assert_true(isnan(analyze_change_pct(1, INFINITY)));
	/* shown in steps of 0.1: 0.04 and 0 both read 0.0 */
	assert_true(analyze_change_pct_res(0.04, 0, 0.1) == 0);
	assert_true(analyze_change_pct_res(0, 0.04, 0.1) == 0);
	assert_true(isnan(analyze_change_pct_res(0.04, 0.3, 0.1)));
	assert_true(analyze_change_pct_res(0.2, 0, 0.1) == -100);
	assert_true(analyze_change_pct_res(10, 15, 0.1) == 50);
	assert_true(isnan(analyze_change_pct_res(NAN, 0, 0.1)));
}

/* {2,4,4,4,5,5,7,9}: mean 5, sum of squares 32, sd = sqrt(32/7), cv = sd/5. */
static void test_dispersion(void **state)
{
	const double x[] = {2, 4, 4, 4, 5, 5, 7, 9}, z[] = {0, 0, 0};
	double sd, cv;

	analyze_dispersion(x, 8, &sd, &cv);
	assert_true(fabs(sd - 2.138089935299395) < 1e-12);
	assert_true(fabs(cv - 0.427617987059879) < 1e-12);
	analyze_dispersion(x, 1, &sd, &cv);
	assert_true(isnan(sd) && isnan(cv));
	analyze_dispersion(z, 3, &sd, &cv);
	assert_true(sd == 0 && isnan(cv));
}

/*
 * Student t tails against values known in closed form or from tables:
 * nu = 1 (Cauchy: P(|T| >= 1) = 1/2), nu = 2 (1 - t / sqrt(2 + t^2)), nu = 3
 * (1 - 2/pi (atan(t/sqrt 3) + (t/sqrt 3) / (1 + t^2/3))), and the table
 * quantiles t(0.975; 10) = 2.228139, t(0.995; 5) = 4.032143 (6 digits).
 */
static void test_t_tail(void **state)
{
	double t = 2.5, r3 = sqrt(3.0);
	double p3 = 1 - 2 / M_PI * (atan(t / r3) + (t / r3) / (1 + t * t / 3));

	assert_true(fabs(analyze_t_p2(1, 1) - 0.5) < 1e-13);
	assert_true(fabs(analyze_t_p2(-1, 1) - 0.5) < 1e-13);
	assert_true(fabs(analyze_t_p2(2, 2) - (1 - 2 / sqrt(6.0))) < 1e-13);
	assert_true(fabs(analyze_t_p2(t, 3) - p3) < 1e-13);
	assert_true(fabs(analyze_t_p2(2.228139, 10) - 0.05) < 1e-6);
	assert_true(fabs(analyze_t_p2(4.032143, 5) - 0.01) < 1e-6);
	/* large nu: the normal limit, 2 (1 - Phi(1.959964)) = 0.05 */
	assert_true(fabs(analyze_t_p2(1.959964, 1e6) - 0.05) < 1e-5);
	assert_true(analyze_t_p2(0, 7) == 1.0);
	assert_true(analyze_t_p2(INFINITY, 7) == 0.0);
	assert_true(analyze_t_p2(40, 200) < 1e-90 && analyze_t_p2(40, 200) > 0);
	assert_true(isnan(analyze_t_p2(1, 0)));
	/* I_x(a, 1) = x^a; I_x(1, b) = 1 - (1 - x)^b; symmetric branch */
	assert_true(fabs(analyze_ibeta(0.3, 2.5, 1) - pow(0.3, 2.5)) < 1e-13);
	assert_true(fabs(analyze_ibeta(0.9, 1, 3) - (1 - pow(0.1, 3))) < 1e-13);
	assert_true(isnan(analyze_ibeta(1.5, 1, 1)));
}

static void bf(const double *a, size_t na, const double *b, size_t nb, struct analyze_mw *t)
{
	assert_int_equal(analyze_brown_forsythe(a, na, b, nb, t), 0);
}

/*
 * Brown-Forsythe against values worked out independently (the ANOVA of the
 * absolute deviations by hand in Python, its p by numerical integration of
 * the t density): a steady series against a jittery one with the same
 * median, F = 23.476023, p = 1.29936e-4 (significant at 0.01); against one a
 * little wider, F = 1.065789, p = 0.315571 (not).
 */
static void test_brown_forsythe(void **state)
{
	const double a[] = {10.1, 9.8, 10.3, 9.9, 10.0, 10.2, 9.7, 10.1, 10.0, 9.9};
	const double b[] = {10.9, 9.1, 11.2, 8.7, 10.0, 10.8, 9.3, 11.5, 8.6, 10.4};
	const double c[] = {10.0, 10.4, 9.6, 10.1, 9.9, 10.3, 9.8, 10.2, 10.0, 9.7};
	const double flat[] = {5, 5, 5, 5}, flat2[] = {7, 7, 7}, two[] = {1, 3, 1, 3};
	const double one[] = {4}, bad[] = {1, NAN};
	struct analyze_mw t;

	bf(a, 10, b, 10, &t); /* fails "equal dispersion" */
	assert_int_equal(t.method, ANALYZE_F);
	assert_true(fabs(t.f - 23.47602287725476) < 1e-9);
	assert_true(fabs(t.p_value - 1.299359e-4) < 1e-9);
	assert_true(t.p_value < ANALYZE_ALPHA_DEFAULT);
	bf(b, 10, a, 10, &t); /* two-sided: the order does not matter */
	assert_true(fabs(t.p_value - 1.299359e-4) < 1e-9);
	bf(a, 10, c, 10, &t); /* passes */
	assert_true(fabs(t.f - 1.0657894736842124) < 1e-9);
	assert_true(fabs(t.p_value - 0.3155710) < 1e-6);
	bf(a, 10, a, 10, &t); /* identical: F 0, p 1 */
	assert_true(t.f == 0 && fabs(t.p_value - 1) < 1e-12);
	/* ties: every value equal on both sides (no dispersion at all), or
	 * equal deviations within each side but different between them */
	bf(flat, 4, flat2, 3, &t);
	assert_true(t.f == 0 && t.p_value == 1);
	bf(flat, 4, two, 4, &t);
	assert_true(isinf(t.f) && t.p_value == 0);
	/* n < 2 on a side: not tested */
	bf(one, 1, a, 10, &t);
	assert_int_equal(t.method, ANALYZE_NONE);
	assert_true(isnan(t.p_value));
	bf(NULL, 0, NULL, 0, &t);
	assert_int_equal(t.method, ANALYZE_NONE);
	assert_int_equal(analyze_brown_forsythe(bad, 2, a, 10, &t), -EINVAL);
}

/* The comparison as "compare --all" shows it (every scope's table). */
static void render_all(struct strbuf *out, const struct analyze_comparison *c,
		       enum report_format fmt)
{
	const struct report_compare_view v = {.pairs = c, .nr_pairs = 1, .all = true};

	report_compare_view_render(out, &v, fmt, NULL);
}

/* ---- hand-made runs ---- */

#define NI 60 /* measured 1 s intervals */

struct run_fixture {
	struct results r;
	struct scope_summary vols[1];
	struct scope_summary dbs[2];
	struct verdict verdicts[2];
	struct results_sample samples[(NI + 5) * 2 * IO_CLASS_COUNT];
	struct results_env env[3];
};

static void sample_put(struct run_fixture *f, uint64_t t_ms, bool warm, enum scope_kind scope,
		       const char *name, enum io_class cls, uint64_t ios, double avg_ms)
{
	struct results_sample *s = &f->samples[f->r.nr_samples++];

	memset(s, 0, sizeof(*s));
	s->t_ms = t_ms;
	s->warmup = warm;
	s->scope = scope;
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->cls = cls;
	s->ios = ios;
	s->lat_sum_ns = (uint64_t)(avg_ms * 1e6) * ios;
	s->p50_ns = (uint64_t)(avg_ms * 0.9e6);
	s->p99_ns = (uint64_t)(avg_ms * 3e6);
	s->lat_max_ns = (uint64_t)(avg_ms * 5e6);
}

/* A run of one volume v1 with db1 (and db2 in A, db3 in B): read latency
 * read_ms with +-10 % noise seeded by seed, writes always around 3 ms,
 * replication reads (log_read) in every other interval; 5 warm-up intervals
 * with 100 ms reads that must not count. As the store writes them, a class
 * with no I/O in an interval has no row; log_write has none at all, and
 * bdm_read and backup_read neither rows nor totals (a workload without them). */
static void run_build(struct run_fixture *f, int64_t id, double read_ms, uint64_t seed,
		      bool read_verdict_passes, const char *kernel)
{
	uint64_t x = seed;

	memset(f, 0, sizeof(*f));
	f->r.id = id;
	f->r.host = (char *)"hostA";
	f->r.started_at = (char *)"2026-01-01T00:00:00Z";
	f->r.volumes = f->vols;
	f->r.nr_volumes = 1;
	f->r.databases = f->dbs;
	f->r.nr_databases = 2;
	f->r.samples = f->samples;
	snprintf(f->r.run.name, sizeof(f->r.run.name), "run");
	snprintf(f->vols[0].name, sizeof(f->vols[0].name), "v1");
	snprintf(f->dbs[0].name, sizeof(f->dbs[0].name), "db1");
	snprintf(f->dbs[1].name, sizeof(f->dbs[1].name), id == 1 ? "db2" : "db3");
	snprintf(f->dbs[0].volume, sizeof(f->dbs[0].volume), "v1");
	snprintf(f->dbs[1].volume, sizeof(f->dbs[1].volume), "v1");
	f->vols[0].classes[IO_DB_READ].iops = 100;
	f->vols[0].classes[IO_DB_READ].avg_ms = read_ms;
	f->vols[0].classes[IO_DB_WRITE].iops = 50;
	f->vols[0].classes[IO_DB_WRITE].avg_ms = 3;
	f->vols[0].classes[IO_LOG_READ].ios = 300;
	f->vols[0].classes[IO_LOG_READ].iops = 5;
	f->vols[0].classes[IO_LOG_READ].avg_ms = 5;
	for (int c = 0; c < IO_CLASS_COUNT; c++)
		f->vols[0].classes[c].ios += (uint64_t)f->vols[0].classes[c].iops * NI;
	/* log_write stays all zero: a zero baseline */
	f->r.run = f->vols[0];
	snprintf(f->r.run.name, sizeof(f->r.run.name), "run");

	for (int i = 0; i < NI + 5; i++) {
		bool warm = i < 5;
		uint64_t t = (uint64_t)(i + 1) * 1000;
		double noise[2];

		for (int k = 0; k < 2; k++) {
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			noise[k] = 0.9 + (double)(x >> 40) / (double)(1ULL << 24) * 0.2;
		}
		sample_put(f, t, warm, SCOPE_VOLUME, "v1", IO_DB_READ, 100,
			   warm ? 100 : read_ms * noise[0]);
		sample_put(f, t, warm, SCOPE_VOLUME, "v1", IO_DB_WRITE, 50, 3 * noise[1]);
		if (i % 2)
			sample_put(f, t, warm, SCOPE_VOLUME, "v1", IO_LOG_READ, 10, 5 * noise[1]);
		sample_put(f, t, warm, SCOPE_RUN, "run", IO_DB_READ, 100,
			   warm ? 100 : read_ms * noise[0]);
		sample_put(f, t, warm, SCOPE_RUN, "run", IO_DB_WRITE, 50, 3 * noise[1]);
		if (i % 2)
			sample_put(f, t, warm, SCOPE_RUN, "run", IO_LOG_READ, 10, 5 * noise[1]);
	}

	f->verdicts[0] = (struct verdict){.scope = SCOPE_DATABASE,
					  .name = "db1",
					  .volume = "v1",
					  .criterion = "db_read_avg_ms",
					  .cmp = VERDICT_LE,
					  .threshold = 3,
					  .measured = read_ms,
					  .passed = read_verdict_passes};
	f->verdicts[1] = (struct verdict){.scope = SCOPE_RUN,
					  .name = "run",
					  .criterion = "io_errors",
					  .cmp = VERDICT_LE,
					  .threshold = 0,
					  .measured = 0,
					  .passed = true};
	f->r.verdicts = f->verdicts;
	f->r.nr_verdicts = 2;

	f->env[0] = (struct results_env){(char *)"host.kernel", (char *)kernel};
	f->env[1] = (struct results_env){(char *)"dev.sda.scheduler", (char *)"none"};
	f->env[2] = id == 1 ? (struct results_env){(char *)"dev.sda.write_cache", (char *)"on"}
			    : (struct results_env){(char *)"dev.sdb.model", (char *)"X"};
	f->r.env = f->env;
	f->r.nr_env = 3;
}

static void test_series(void **state)
{
	static struct run_fixture f;
	double *v;
	size_t n;

	run_build(&f, 1, 2.0, 1, true, "6.1");
	assert_int_equal(
		analyze_series(&f.r, SCOPE_VOLUME, "v1", IO_DB_READ, ANALYZE_AVG_MS, &v, &n), 0);
	assert_int_equal(n, NI); /* warm-up excluded */
	for (size_t i = 0; i < n; i++)
		assert_true(v[i] > 1.7 && v[i] < 2.3);
	free(v);
	assert_int_equal(
		analyze_series(&f.r, SCOPE_VOLUME, "v1", IO_DB_WRITE, ANALYZE_IOPS, &v, &n), 0);
	assert_int_equal(n, NI);
	assert_true(v[0] == 50 && v[NI - 1] == 50);
	free(v);
	/* no I/O (no rows): no latency intervals, and IOPS 0 in every interval */
	assert_int_equal(
		analyze_series(&f.r, SCOPE_RUN, "run", IO_LOG_WRITE, ANALYZE_AVG_MS, &v, &n), 0);
	assert_int_equal(n, 0);
	assert_null(v);
	assert_int_equal(analyze_series(&f.r, SCOPE_RUN, "run", IO_LOG_WRITE, ANALYZE_IOPS, &v, &n),
			 0);
	assert_int_equal(n, NI);
	for (size_t i = 0; i < n; i++)
		assert_true(v[i] == 0);
	free(v);
	/* rows in every other interval: each over its own 1 s, 0 in between (the
	 * first measured interval, i = 5, has a row) */
	assert_int_equal(
		analyze_series(&f.r, SCOPE_VOLUME, "v1", IO_LOG_READ, ANALYZE_IOPS, &v, &n), 0);
	assert_int_equal(n, NI);
	for (size_t i = 0; i < n; i++)
		assert_true(v[i] == (i % 2 ? 0 : 10));
	free(v);
	assert_int_equal(
		analyze_series(&f.r, SCOPE_VOLUME, "v1", IO_LOG_READ, ANALYZE_AVG_MS, &v, &n), 0);
	assert_int_equal(n, NI / 2);
	free(v);
	assert_int_equal(
		analyze_series(&f.r, SCOPE_DATABASE, "nope", IO_DB_READ, ANALYZE_IOPS, &v, &n), 0);
	assert_int_equal(n, 0);
}

/* Runs the JSON text through python3's json module: exit 0 when valid and
 * free of NaN / Infinity (which the module would otherwise accept). */
static int python_json_ok(const char *text)
{
	char path[] = "/tmp/test_analyze_XXXXXX";
	char cmd[256];
	int fd = mkstemp(path), rc;
	FILE *f;

	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import json,sys\n"
		 "def bad(c): raise ValueError(c)\n"
		 "json.load(open(sys.argv[1]), parse_constant=bad)' %s",
		 path);
	rc = system(cmd);
	unlink(path);
	return rc;
}

static void test_compare(void **state)
{
	static struct run_fixture fa, fb;
	struct analyze_comparison c;
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	const struct analyze_class *k;

	run_build(&fa, 1, 2.0, 1, true, "6.1");
	run_build(&fb, 2, 4.0, 99, false, "6.8");
	fb.vols[0].classes[IO_LOG_WRITE].ios = 300; /* from a zero baseline */
	fb.vols[0].classes[IO_LOG_WRITE].iops = 5;
	fb.vols[0].classes[IO_LOG_WRITE].avg_ms = 1.5;
	assert_int_equal(analyze_compare(&c, &fa.r, &fb.r, 2.0, &err), -EINVAL);
	assert_non_null(strstr(err.buf, "analyze: alpha"));
	assert_int_equal(analyze_compare(&c, &fa.r, &fb.r, ANALYZE_ALPHA_DEFAULT, &err), 0);

	/* run, v1, db1 (db2 only in A, db3 only in B) */
	assert_int_equal(c.nr_scopes, 3);
	assert_int_equal(c.scopes[1].scope, SCOPE_VOLUME);
	assert_string_equal(c.scopes[2].name, "db1");
	assert_string_equal(c.scopes[2].volume, "v1");
	assert_int_equal(c.nr_unmatched, 2);
	assert_string_equal(c.unmatched[0].name, "db2");
	assert_true(c.unmatched[0].in_a);
	assert_string_equal(c.unmatched[1].name, "db3");
	assert_false(c.unmatched[1].in_a);

	k = &c.scopes[1].classes[IO_DB_READ];
	assert_true(k->fig[ANALYZE_AVG_MS].a == 2.0 && k->fig[ANALYZE_AVG_MS].b == 4.0);
	assert_true(k->fig[ANALYZE_AVG_MS].change_pct == 100);
	assert_true(k->fig[ANALYZE_AVG_MS].significant);
	assert_true(k->fig[ANALYZE_P99_MS].significant);
	assert_int_equal(k->fig[ANALYZE_AVG_MS].test.n_a, NI);
	assert_false(k->fig[ANALYZE_IOPS].significant); /* 100 every interval in both */
	assert_true(k->fig[ANALYZE_IOPS].test.p_value == 1.0);
	/* sd roughly doubles with the level (same relative noise), cv stays */
	assert_true(k->sd_ms_b > 1.5 * k->sd_ms_a);
	assert_true(fabs(k->cv_a - k->cv_b) < 0.05);
	k = &c.scopes[1].classes[IO_DB_WRITE];
	assert_false(k->fig[ANALYZE_AVG_MS].significant);
	assert_true(k->fig[ANALYZE_AVG_MS].change_pct == 0);
	k = &c.scopes[1].classes[IO_LOG_WRITE];
	/* A had no log writes: its average is undefined, not 0 (nor -100 %) */
	assert_true(isnan(k->fig[ANALYZE_AVG_MS].a) && k->fig[ANALYZE_AVG_MS].b == 1.5);
	assert_true(isnan(k->fig[ANALYZE_AVG_MS].change_pct));
	assert_int_equal(k->fig[ANALYZE_AVG_MS].test.method, ANALYZE_NONE);
	assert_false(k->fig[ANALYZE_AVG_MS].significant);
	assert_true(isnan(k->sd_ms_a));
	assert_true(isnan(k->fig[ANALYZE_IOPS].change_pct));
	/* B issued it: compared, and its IOPS tested (0 in every interval of both) */
	assert_true(k->present);
	assert_int_equal(k->fig[ANALYZE_IOPS].test.method, ANALYZE_NORMAL);
	/* db1 has no samples here: figures compared, nothing tested */
	assert_false(c.scopes[2].classes[IO_DB_READ].fig[ANALYZE_AVG_MS].significant);

	/* classes neither run issued: IOPS 0, no latencies, untested, not in the family */
	for (int cl = IO_BDM_READ; cl < IO_CLASS_COUNT; cl += IO_BACKUP_READ - IO_BDM_READ) {
		k = &c.scopes[1].classes[cl];
		assert_false(k->present);
		for (int m = 0; m < ANALYZE_METRIC_COUNT; m++) {
			assert_int_equal(k->fig[m].test.method, ANALYZE_NONE);
			if (m == ANALYZE_IOPS)
				assert_true(k->fig[m].a == 0 && k->fig[m].b == 0 &&
					    k->fig[m].change_pct == 0);
			else
				assert_true(isnan(k->fig[m].a) && isnan(k->fig[m].b) &&
					    isnan(k->fig[m].change_pct));
			assert_false(k->fig[m].significant);
		}
		assert_true(isnan(k->sd_ms_a) && isnan(k->cv_b));
	}
	assert_true(c.scopes[1].classes[IO_LOG_READ].present);
	assert_int_equal(c.scopes[1].classes[IO_LOG_READ].fig[ANALYZE_AVG_MS].test.n_a, NI / 2);
	/* db_read 5 + db_write 5 + log_write's IOPS (no latency intervals) +
	 * log_read 5, a dispersion test for each class with latencies (db_read,
	 * db_write, log_read: 3) and the transactional IOPS */
	assert_int_equal(c.family, 20);
	assert_int_equal(c.scopes[1].classes[IO_DB_READ].sd.test.method, ANALYZE_F);
	assert_int_equal(c.scopes[1].classes[IO_LOG_WRITE].sd.test.method, ANALYZE_NONE);
	assert_int_equal(c.scopes[1].trans_iops.test.method, ANALYZE_NORMAL);

	/* the read verdict flipped; io_errors did not */
	assert_int_equal(c.nr_verdict_changes, 1);
	assert_string_equal(c.verdict_changes[0].criterion, "db_read_avg_ms");
	assert_true(c.verdict_changes[0].passed_a && !c.verdict_changes[0].passed_b);
	assert_true(c.verdict_changes[0].measured_b == 4.0);

	/* kernel differs, scheduler equal, write_cache only in A, model only in B */
	assert_int_equal(c.nr_env_diffs, 3);
	assert_string_equal(c.env_diffs[0].key, "host.kernel");
	assert_string_equal(c.env_diffs[0].a, "6.1");
	assert_string_equal(c.env_diffs[0].b, "6.8");
	assert_string_equal(c.env_diffs[1].key, "dev.sda.write_cache");
	assert_null(c.env_diffs[1].b);
	assert_string_equal(c.env_diffs[2].key, "dev.sdb.model");
	assert_null(c.env_diffs[2].a);

	render_all(&out, &c, REPORT_TEXT);
	assert_non_null(strstr(out.buf, "Mann-Whitney U on per-interval means, alpha 0.01"));
	assert_non_null(strstr(out.buf, "host.kernel: 6.1 \u2192 6.8"));
	assert_non_null(strstr(out.buf, "dev.sdb.model: (absent) \u2192 X"));
	assert_non_null(strstr(out.buf, "PASS \u2192 FAIL  db1 on v1: database read average 4 ms"));
	assert_non_null(strstr(out.buf, "database db2 only in A"));
	assert_non_null(strstr(out.buf, "\n  log_read     IOPS "));
	assert_null(strstr(out.buf, "bdm_read"));
	assert_null(strstr(out.buf, "backup_read"));
	assert_null(strstr(out.buf, "nan"));
	assert_null(strstr(out.buf, "inf"));

	strbuf_reset(&out);
	report_compare_render(&out, &c, REPORT_JSON, NULL);
	assert_int_equal(python_json_ok(out.buf), 0);
	assert_non_null(strstr(out.buf, "\"test\": \"Mann-Whitney U on per-interval means\""));
	assert_non_null(strstr(out.buf, "\"env_differences\""));
	assert_non_null(strstr(out.buf, "\"change_pct\": null")); /* v1 log_write IOPS 0 -> 5 */
	/* every class keeps its key; bdm_read says it was not compared */
	assert_non_null(strstr(out.buf, "\"bdm_read\": {\n          \"present\": false,"));
	assert_non_null(strstr(out.buf, "\"backup_read\": {"));

	/* the HTML page leaves out the classes neither run issued, too */
	strbuf_reset(&out);
	report_compare_render(&out, &c, REPORT_HTML, NULL);
	assert_non_null(strstr(out.buf, "id=\"chart-lat-log_read\""));
	/* the CDFs on a log latency axis, as the run page's */
	{
		const char *cdf = strstr(out.buf, "id=\"chart-cdf-db_read\"");

		assert_non_null(cdf);
		assert_non_null(strstr(cdf, "latency (ms, log scale)"));
		assert_true(strstr(cdf, "latency (ms, log scale)") < strstr(cdf, "</figure>"));
	}
	assert_null(strstr(out.buf, "bdm_read"));
	assert_null(strstr(out.buf, "backup_read"));

	analyze_comparison_release(&c);
	analyze_comparison_release(&c);
	strbuf_release(&err);
	strbuf_release(&out);
}

/* A device of a run's host figures, with util util and read wait rw. */
static struct results_host_device host_dev(const char *name, double util, double rw)
{
	struct results_host_device d = {.intervals = NI,
					.reads_per_s = 100,
					.writes_per_s = 50,
					.read_mbps = 3.2768,
					.write_mbps = 0.4096,
					.read_wait_ms = rw,
					.write_wait_ms = NAN, /* no writes timed */
					.avg_wait_ms = rw,
					.util_pct = util,
					.util_max_pct = util,
					.queue = 1};

	snprintf(d.name, sizeof(d.name), "%s", name);
	return d;
}

/*
 * Host counters side by side: CPU and memory of both; sdb in both (util 40 ->
 * 80 %: +100 %), sdc only in A, nvme0n1 only in B (NAN on the other side);
 * no test anywhere. Neither run with counters: nothing (JSON null).
 */
static void test_compare_host(void **state)
{
	static struct run_fixture fa, fb;
	struct results_host_device da[2], db[2];
	const struct analyze_host_device *d;
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	struct analyze_comparison c;

	run_build(&fa, 1, 2.0, 1, true, "6.1");
	run_build(&fb, 2, 2.0, 1, true, "6.1");
	assert_int_equal(analyze_compare(&c, &fa.r, &fb.r, ANALYZE_ALPHA_DEFAULT, &err), 0);
	assert_false(c.host.in_a || c.host.in_b);
	assert_int_equal(c.host.nr_devices, 0);
	report_compare_render(&out, &c, REPORT_JSON, NULL);
	assert_non_null(strstr(
		out.buf,
		"\n  \"host\": null,\n  \"autotune\": null,\n  \"regression_gate\": null\n}"));
	strbuf_reset(&out);
	render_all(&out, &c, REPORT_TEXT);
	assert_null(strstr(out.buf, "host performance"));
	strbuf_reset(&out);
	report_compare_render(&out, &c, REPORT_HTML, NULL);
	assert_non_null(strstr(out.buf, "Neither run recorded host counters."));
	analyze_comparison_release(&c);

	da[0] = host_dev("sdb", 40, 2);
	da[1] = host_dev("sdc", 5, 1);
	db[0] = host_dev("nvme0n1", 10, 0.1);
	db[1] = host_dev("sdb", 80, 3);
	fa.r.host_perf = (struct results_host_perf){.recorded = true,
						    .cpu_intervals = NI,
						    .cpu_user_pct = 40,
						    .cpu_system_pct = 15,
						    .cpu_iowait_pct = 3,
						    .mem_intervals = NI,
						    .mem_available_min = 1024.0 * 1024 * 1024,
						    .mem_available_avg = 1536.0 * 1024 * 1024,
						    .devices = da,
						    .nr_devices = 2};
	fb.r.host_perf = fa.r.host_perf;
	fb.r.host_perf.cpu_user_pct = 20;
	fb.r.host_perf.cpu_iowait_pct = 0;
	fb.r.host_perf.devices = db;
	assert_int_equal(analyze_compare(&c, &fa.r, &fb.r, ANALYZE_ALPHA_DEFAULT, &err), 0);
	assert_true(c.host.in_a && c.host.in_b);
	assert_true(c.host.fig[ANALYZE_HOST_CPU_USER].a == 40);
	assert_true(c.host.fig[ANALYZE_HOST_CPU_USER].b == 20);
	assert_true(c.host.fig[ANALYZE_HOST_CPU_USER].change_pct == -50);
	assert_true(c.host.fig[ANALYZE_HOST_CPU_SYSTEM].change_pct == 0);
	assert_true(c.host.fig[ANALYZE_HOST_CPU_IOWAIT].change_pct == -100);
	assert_true(c.host.fig[ANALYZE_HOST_MEM_MIN].a == 1024.0 * 1024 * 1024);
	/* A's devices in A's order, then B's own */
	assert_int_equal(c.host.nr_devices, 3);
	d = &c.host.devices[0];
	assert_string_equal(d->name, "sdb");
	assert_true(d->in_a && d->in_b);
	assert_true(d->fig[ANALYZE_DEV_UTIL_PCT].a == 40 && d->fig[ANALYZE_DEV_UTIL_PCT].b == 80);
	assert_true(d->fig[ANALYZE_DEV_UTIL_PCT].change_pct == 100);
	assert_true(d->fig[ANALYZE_DEV_READ_WAIT_MS].change_pct == 50);
	assert_true(isnan(d->fig[ANALYZE_DEV_WRITE_WAIT_MS].a));
	assert_true(isnan(d->fig[ANALYZE_DEV_WRITE_WAIT_MS].change_pct));
	d = &c.host.devices[1];
	assert_string_equal(d->name, "sdc");
	assert_true(d->in_a && !d->in_b);
	assert_true(d->fig[ANALYZE_DEV_UTIL_PCT].a == 5 && isnan(d->fig[ANALYZE_DEV_UTIL_PCT].b));
	d = &c.host.devices[2];
	assert_string_equal(d->name, "nvme0n1");
	assert_true(!d->in_a && d->in_b);
	assert_true(isnan(d->fig[ANALYZE_DEV_QUEUE].a) && d->fig[ANALYZE_DEV_QUEUE].b == 1);
	/* not in any family: the correction is the same as without them */
	for (size_t i = 0; i < c.nr_scopes; i++)
		for (int k = 0; k < IO_CLASS_COUNT; k++)
			for (int m = 0; m < ANALYZE_METRIC_COUNT; m++)
				assert_false(c.scopes[i].classes[k].fig[m].significant);

	render_all(&out, &c, REPORT_TEXT);
	assert_non_null(strstr(out.buf, "\nhost performance (measured intervals; side by side, "
					"not tested):\n"));
	assert_non_null(strstr(out.buf, "\n  cpu user %                         40.0         "
					"20.0    -50.0%\n"));
	assert_non_null(strstr(out.buf, "\n  memory available min MiB         1024.0       "
					"1024.0     +0.0%\n"));
	assert_non_null(strstr(out.buf, "\n  device sdc (only in A)\n"));
	assert_non_null(strstr(out.buf, "\n  device nvme0n1 (only in B)\n"));
	assert_non_null(strstr(out.buf, "\n    util %                           40.0         "
					"80.0   +100.0%\n"));
	assert_null(strstr(out.buf, "nan"));
	strbuf_reset(&out);
	report_compare_render(&out, &c, REPORT_JSON, NULL);
	assert_int_equal(python_json_ok(out.buf), 0);
	assert_non_null(strstr(out.buf, "\"cpu_user_pct\": {\n      \"a\": 40,\n      \"b\": 20,\n"
					"      \"change_pct\": -50\n    }"));
	assert_non_null(strstr(out.buf, "\"name\": \"nvme0n1\",\n        \"in_a\": false,"));
	strbuf_reset(&out);
	report_compare_render(&out, &c, REPORT_HTML, NULL);
	assert_non_null(strstr(out.buf, "<tr class=\"host-figure\"><td>sdb</td><td>util %</td>"
					"<td class=\"num\">40.0</td><td class=\"num\">80.0</td>"
					"<td class=\"num\">+100.0 %</td></tr>"));
	assert_non_null(strstr(out.buf, "<td>sdc (A only)</td>"));
	assert_non_null(strstr(out.buf, "<a href=\"#host\">Host performance</a>"));
	analyze_comparison_release(&c);
	assert_null(c.host.devices);

	/* 0.04 -> 0 %: both read 0.0 as shown: unchanged, never -100 %, in
	 * text, JSON and HTML; 0.0 -> 0.3 stays undefined (from nothing) */
	fa.r.host_perf.cpu_iowait_pct = 0.04;
	fa.r.host_perf.cpu_system_pct = 0;
	fb.r.host_perf.cpu_system_pct = 0.3;
	assert_int_equal(analyze_compare(&c, &fa.r, &fb.r, ANALYZE_ALPHA_DEFAULT, &err), 0);
	assert_true(c.host.fig[ANALYZE_HOST_CPU_IOWAIT].change_pct == 0);
	assert_true(isnan(c.host.fig[ANALYZE_HOST_CPU_SYSTEM].change_pct));
	strbuf_reset(&out);
	render_all(&out, &c, REPORT_TEXT);
	assert_non_null(strstr(out.buf, "\n  cpu iowait %                        0.0          "
					"0.0 unchanged\n"));
	assert_null(strstr(out.buf, "-100.0%"));
	strbuf_reset(&out);
	report_compare_render(&out, &c, REPORT_JSON, NULL);
	assert_non_null(strstr(out.buf,
			       "\"cpu_iowait_pct\": {\n      \"a\": 0.04,\n      \"b\": 0,\n"
			       "      \"change_pct\": 0\n    }"));
	strbuf_reset(&out);
	report_compare_render(&out, &c, REPORT_HTML, NULL);
	assert_non_null(strstr(out.buf,
			       "<td>cpu iowait %</td><td class=\"num\">0.0</td>"
			       "<td class=\"num\">0.0</td><td class=\"num\">unchanged</td>"));
	analyze_comparison_release(&c);
	strbuf_release(&err);
	strbuf_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mw_exact_separated),
		cmocka_unit_test(test_mw_exact_interleaved),
		cmocka_unit_test(test_mw_exact_larger),
		cmocka_unit_test(test_mw_ties_normal),
		cmocka_unit_test(test_mw_degenerate),
		cmocka_unit_test(test_mw_shifted_vs_identical),
		cmocka_unit_test(test_change_pct),
		cmocka_unit_test(test_dispersion),
		cmocka_unit_test(test_t_tail),
		cmocka_unit_test(test_brown_forsythe),
		cmocka_unit_test(test_series),
		cmocka_unit_test(test_compare),
		cmocka_unit_test(test_compare_host),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
