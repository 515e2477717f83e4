/* SPDX-License-Identifier: MIT */
/*
 * series.c - a series of runs (run --repeat N, results.h): the spread of
 * each judged figure across its runs, and the series' verdict, derived once
 * here so that every report format shows the same numbers.
 *
 * The coefficient of variation uses the sample standard deviation (n - 1 in
 * the denominator): the runs are a sample of the runs the device would give,
 * and with three runs dividing by n would understate the spread by a fifth.
 * The sum of squares is taken around the mean (two passes), not as
 * sum(x^2) - n mean^2, which loses every digit when the runs agree to six
 * places (identical sim runs do).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diskproof/results.h"

static const struct {
	const char *name, *label;
} figs[RESULTS_SERIES_FIG_COUNT] = {
	[RESULTS_SERIES_TRANS_IOPS] = {"transactional_iops", "transactional IOPS"},
	[RESULTS_SERIES_DB_READ_AVG] = {"db_read_avg_ms", "db read avg ms"},
	[RESULTS_SERIES_DB_READ_P99] = {"db_read_p99_ms", "db read p99 ms"},
	[RESULTS_SERIES_DB_READ_MAX] = {"db_read_max_sample_avg_ms", "db read max 15s avg"},
	[RESULTS_SERIES_LOG_WRITE_AVG] = {"log_write_avg_ms", "log write avg ms"},
	[RESULTS_SERIES_LOG_WRITE_P99] = {"log_write_p99_ms", "log write p99 ms"},
	[RESULTS_SERIES_LOG_WRITE_MAX] = {"log_write_max_sample_avg_ms", "log write max 15s avg"},
};

const char *results_series_fig_name(enum results_series_fig f)
{
	return f < RESULTS_SERIES_FIG_COUNT ? figs[f].name : "?";
}

const char *results_series_fig_label(enum results_series_fig f)
{
	return f < RESULTS_SERIES_FIG_COUNT ? figs[f].label : "?";
}

void results_spread_compute(const double *x, size_t n, struct results_spread *out)
{
	double sum = 0, ss = 0;

	out->n = 0;
	out->mean = out->min = out->max = out->cv_pct = NAN;
	for (size_t i = 0; i < n; i++) {
		if (isnan(x[i]))
			continue;
		if (!out->n || x[i] < out->min)
			out->min = x[i];
		if (!out->n || x[i] > out->max)
			out->max = x[i];
		sum += x[i];
		out->n++;
	}
	if (!out->n)
		return;
	out->mean = sum / (double)out->n;
	if (out->n < 2 || out->mean == 0)
		return;
	for (size_t i = 0; i < n; i++)
		if (!isnan(x[i]))
			ss += (x[i] - out->mean) * (x[i] - out->mean);
	out->cv_pct = 100.0 * sqrt(ss / (double)(out->n - 1)) / fabs(out->mean);
}

void results_series_fill(struct results_series *s)
{
	double *x = malloc((s->nr_runs ? s->nr_runs : 1) * sizeof(*x));

	s->passed = s->failed = 0;
	for (size_t i = 0; i < s->nr_runs; i++) {
		s->passed += !strcmp(s->runs[i].verdict, "PASS");
		s->failed += !strcmp(s->runs[i].verdict, "FAIL");
	}
	for (unsigned f = 0; f < RESULTS_SERIES_FIG_COUNT; f++) {
		size_t n = 0;

		for (size_t i = 0; x && i < s->nr_runs; i++)
			/* only runs that ended with a verdict: an aborted
			 * run's figures are of a part of a run */
			if (s->runs[i].verdict[0] && strcmp(s->runs[i].verdict, "NONE"))
				x[n++] = s->runs[i].fig[f];
		results_spread_compute(x, x ? n : 0, &s->spread[f]);
	}
	free(x);
}

const char *results_series_verdict(const struct results_series *s)
{
	if (s->failed)
		return "FAIL";
	if (s->passed == s->size && s->nr_runs == s->size)
		return "PASS";
	return "NONE";
}

void results_series_free(struct results_series *s)
{
	if (!s)
		return;
	free(s->runs);
	free(s);
}
