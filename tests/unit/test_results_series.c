/* SPDX-License-Identifier: MIT */
/*
 * test_results_series.c - a series' spread (results_spread_compute,
 * results_series_fill, results.h): mean, min, max and the coefficient of
 * variation (sample standard deviation over the mean) of known numbers; one
 * run (no variation known: CV NAN); a zero mean (CV NAN); runs without the
 * figure left out; the series' verdict.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "diskproof/results.h"

static void test_known(void **state)
{
	/* mean 5; squares around it 9+1+1+9 = 20, /3: sd 2.5820; CV 51.64 % */
	const double x[] = {2, 4, 6, 8};
	struct results_spread s;

	(void)state;
	results_spread_compute(x, 4, &s);
	assert_int_equal(s.n, 4);
	assert_float_equal(s.mean, 5.0, 1e-12);
	assert_float_equal(s.min, 2.0, 0);
	assert_float_equal(s.max, 8.0, 0);
	assert_float_equal(s.cv_pct, 100.0 * sqrt(20.0 / 3.0) / 5.0, 1e-9);
}

/* runs that agree to many places: the CV is tiny, not lost to rounding
 * (sum of squares around the mean) nor negative */
static void test_close_values(void **state)
{
	const double x[] = {1000000.001, 1000000.002, 1000000.003};
	struct results_spread s;

	(void)state;
	results_spread_compute(x, 3, &s);
	assert_true(s.cv_pct > 0);
	assert_float_equal(s.cv_pct, 100.0 * 0.001 / 1000000.002, 1e-12);
}

static void test_one_run(void **state)
{
	const double x[] = {3.5};
	struct results_spread s;

	(void)state;
	results_spread_compute(x, 1, &s);
	assert_int_equal(s.n, 1);
	assert_float_equal(s.mean, 3.5, 0);
	assert_float_equal(s.min, 3.5, 0);
	assert_float_equal(s.max, 3.5, 0);
	assert_true(isnan(s.cv_pct));
}

static void test_zero_mean(void **state)
{
	const double x[] = {-1, 0, 1};
	const double z[] = {0, 0, 0};
	struct results_spread s;

	(void)state;
	results_spread_compute(x, 3, &s);
	assert_float_equal(s.mean, 0, 0);
	assert_float_equal(s.min, -1, 0);
	assert_float_equal(s.max, 1, 0);
	assert_true(isnan(s.cv_pct));
	results_spread_compute(z, 3, &s);
	assert_true(isnan(s.cv_pct));
}

static void test_nan_left_out(void **state)
{
	const double x[] = {NAN, 10, NAN, 20};
	struct results_spread s;

	(void)state;
	results_spread_compute(x, 4, &s);
	assert_int_equal(s.n, 2);
	assert_float_equal(s.mean, 15, 1e-12);
	assert_float_equal(s.cv_pct, 100.0 * sqrt(50.0) / 15.0, 1e-9);
	results_spread_compute(x, 0, &s);
	assert_int_equal(s.n, 0);
	assert_true(isnan(s.mean) && isnan(s.min) && isnan(s.max) && isnan(s.cv_pct));
}

static void run_set(struct results_series_run *r, unsigned i, const char *verdict, double iops)
{
	memset(r, 0, sizeof(*r));
	r->id = i;
	r->index = i;
	strcpy(r->verdict, verdict);
	for (unsigned f = 0; f < RESULTS_SERIES_FIG_COUNT; f++)
		r->fig[f] = iops + f;
}

/* the spread is over the runs with a verdict; the series passes only when
 * every one of its N runs is stored and passed */
static void test_series_fill(void **state)
{
	struct results_series_run runs[3];
	struct results_series s = {.size = 3, .runs = runs, .nr_runs = 3};

	(void)state;
	run_set(&runs[0], 1, "PASS", 100);
	run_set(&runs[1], 2, "PASS", 110);
	run_set(&runs[2], 3, "PASS", 120);
	results_series_fill(&s);
	assert_int_equal(s.passed, 3);
	assert_string_equal(results_series_verdict(&s), "PASS");
	assert_float_equal(s.spread[RESULTS_SERIES_TRANS_IOPS].mean, 110, 1e-9);
	assert_float_equal(s.spread[RESULTS_SERIES_TRANS_IOPS].cv_pct, 100.0 * 10 / 110, 1e-9);
	run_set(&runs[2], 3, "", 1e6); /* aborted: not in the spread */
	results_series_fill(&s);
	assert_string_equal(results_series_verdict(&s), "NONE");
	assert_int_equal(s.spread[RESULTS_SERIES_TRANS_IOPS].n, 2);
	assert_float_equal(s.spread[RESULTS_SERIES_TRANS_IOPS].max, 110, 0);
	run_set(&runs[1], 2, "FAIL", 110);
	results_series_fill(&s);
	assert_int_equal(s.failed, 1);
	assert_string_equal(results_series_verdict(&s), "FAIL");
	s.nr_runs = 2; /* two of three stored, both passed: not a PASS */
	run_set(&runs[1], 2, "PASS", 110);
	results_series_fill(&s);
	assert_string_equal(results_series_verdict(&s), "NONE");
	assert_string_equal(results_series_fig_name(RESULTS_SERIES_LOG_WRITE_AVG),
			    "log_write_avg_ms");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known),	     cmocka_unit_test(test_close_values),
		cmocka_unit_test(test_one_run),	     cmocka_unit_test(test_zero_mean),
		cmocka_unit_test(test_nan_left_out), cmocka_unit_test(test_series_fill),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
