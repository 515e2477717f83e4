/* SPDX-License-Identifier: MIT */
/*
 * test_html_chart.c - what the HTML charts compute to draw (html.h): the
 * decades of a log10 axis, the thinning of a series to one point per pixel
 * column (its mean, or its highest point so that spikes stay), the
 * heatmap's colour levels and window grouping, the latency bands of the
 * window histograms (results.h), a heatmap drawn from two windows, and
 * charts of values no run writes (an infinite warm-up, latencies of 1e308,
 * windows at the end of time) drawn in bounded time and size: every axis
 * loop ends at a count (an alarm fails the test where one would not).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../src/report/html.h"

static void test_log10_decades(void **state)
{
	int d0, d1;

	(void)state;
	html_log10_decades(0.05, 37, &d0, &d1);
	assert_int_equal(d0, -2);
	assert_int_equal(d1, 2);
	/* exact powers stay their own decade; one value spans one decade */
	html_log10_decades(0.001, 100, &d0, &d1);
	assert_int_equal(d0, -3);
	assert_int_equal(d1, 2);
	html_log10_decades(1, 1, &d0, &d1);
	assert_int_equal(d0, 0);
	assert_int_equal(d1, 1);
	html_log10_decades(3, 3, &d0, &d1);
	assert_int_equal(d0, 0);
	assert_int_equal(d1, 1);
}

/* Feeds n points (x[i], y[i]) and collects what comes out. */
static size_t decimate(enum html_reduce mode, const double *x, const double *y, size_t n,
		       double *ox, double *oy)
{
	struct html_decimate d;
	size_t i, k = 0;

	html_decimate_init(&d, mode);
	for (i = 0; i < n; i++)
		if (html_decimate_add(&d, x[i], y[i], &ox[k], &oy[k]))
			k++;
	if (html_decimate_flush(&d, &ox[k], &oy[k]))
		k++;
	return k;
}

static void test_decimate(void **state)
{
	/* three columns: [10, 11), [11, 12), [13, 14) */
	const double x[] = {10.1, 10.5, 10.9, 11.2, 11.8, 13.0};
	const double y[] = {1, 9, 2, 4, 6, 5};
	double ox[8], oy[8];
	size_t n;

	(void)state;
	n = decimate(HTML_REDUCE_MAX, x, y, 6, ox, oy);
	assert_int_equal(n, 3);
	/* the spike of 9 stays, where it was */
	assert_true(ox[0] == 10.5 && oy[0] == 9);
	assert_true(ox[1] == 11.8 && oy[1] == 6);
	assert_true(ox[2] == 13.0 && oy[2] == 5);
	n = decimate(HTML_REDUCE_MEAN, x, y, 6, ox, oy);
	assert_int_equal(n, 3);
	assert_true(fabs(ox[0] - 10.5) < 1e-12 && fabs(oy[0] - 4) < 1e-12);
	assert_true(fabs(ox[1] - 11.5) < 1e-12 && fabs(oy[1] - 5) < 1e-12);
	n = decimate(HTML_REDUCE_NONE, x, y, 6, ox, oy);
	assert_int_equal(n, 6);
	assert_true(oy[1] == 9);
	/* nothing in, nothing out */
	assert_int_equal(decimate(HTML_REDUCE_MAX, x, y, 0, ox, oy), 0);
}

/* 7200 intervals over 418 columns keep their spike and draw one point each. */
static void test_decimate_long(void **state)
{
	static double x[7200], y[7200], ox[7200], oy[7200];
	double top = 0;
	size_t i, n;

	(void)state;
	for (i = 0; i < 7200; i++) {
		x[i] = 64 + (double)i / 7200 * 418;
		y[i] = i == 4321 ? 250 : 10 + (double)(i % 7);
	}
	n = decimate(HTML_REDUCE_MAX, x, y, 7200, ox, oy);
	assert_true(n >= 418 && n <= 419);
	for (i = 0; i < n; i++)
		top = fmax(top, oy[i]);
	assert_true(top == 250);
}

static void test_heat_levels(void **state)
{
	(void)state;
	assert_int_equal(html_heat_level(1e-6), 0);
	assert_int_equal(html_heat_level(1e-4), 1);
	assert_int_equal(html_heat_level(0.015), 3);
	assert_int_equal(html_heat_level(0.02), 4);
	assert_int_equal(html_heat_level(0.3), 7);
	assert_int_equal(html_heat_level(1), HTML_HEAT_LEVELS - 1);
	/* levels only rise with the share */
	for (double v = 1e-6; v < 1; v *= 1.1)
		assert_true(html_heat_level(v) <= html_heat_level(v * 1.1));
	assert_int_equal(html_heat_group(0), 1);
	assert_int_equal(html_heat_group(HTML_HEAT_MAX_COLS), 1);
	assert_int_equal(html_heat_group(HTML_HEAT_MAX_COLS + 1), 2);
	/* 2 h of 15 s windows and the warm-up's: at most HTML_HEAT_MAX_COLS columns */
	assert_true((482 + html_heat_group(482) - 1) / html_heat_group(482) <= HTML_HEAT_MAX_COLS);
}

/* Every bucket lies in the band whose edges hold its values. */
static void test_bands(void **state)
{
	unsigned i, b;

	(void)state;
	assert_int_equal(RESULTS_BANDS, 129);
	assert_int_equal(results_band_of_bucket(0), 0);
	assert_int_equal(results_band_of_bucket(63), 0);
	assert_int_equal(results_band_of_bucket(64), 1);
	assert_int_equal(results_band_of_bucket(HIST_BUCKETS - 1), RESULTS_BANDS - 1);
	assert_int_equal(results_band_lower_ns(1), 64);
	assert_int_equal(results_band_lower_ns(2), 80);
	assert_int_equal(results_band_lower_ns(5), 128);
	assert_true(results_band_lower_ns(RESULTS_BANDS) == (uint64_t)1 << HIST_MAX_BITS);
	for (i = 0; i < HIST_BUCKETS; i++) {
		b = results_band_of_bucket(i);
		assert_true(b < RESULTS_BANDS);
		assert_true(results_band_lower_ns(b) <= hist_bucket_lower(i));
		assert_true(hist_bucket_lower(i) < results_band_lower_ns(b + 1));
	}
}

static size_t count_of(const char *s, const char *what)
{
	size_t n = 0;

	while ((s = strstr(s, what))) {
		n++;
		s += strlen(what);
	}
	return n;
}

/* Two windows of v1's db_read (one I/O at 1 ms and one at 50 ms, then
 * four at 1 ms): two columns, each band holding half or all of its
 * column's I/Os, so one path of three cells at level 8; the threshold
 * across; another volume's window left out. */
/*
 * The heatmap's legend does not overlap itself nor the plot: its title ends
 * (text-anchor end) before the first swatch; the swatches are 30 apart, each
 * label (9 px, at most 4 characters: under 30) under its swatch's left edge;
 * all of it right-aligned on the plot's right edge (500 - 18) and above the
 * "warm-up ends" label (baseline CH_TOP - 3 = 37, 11 px: its top near 29).
 */
static void heat_legend_check(const char *svg)
{
	const char *g = strstr(svg, "<g class=\"legend\">"), *end, *at;
	double title_x = 0, x, prev = -1;
	int n = 0;

	assert_non_null(g);
	end = strstr(g, "</g>");
	assert_non_null(end);
	assert_int_equal(
		sscanf(g, "<g class=\"legend\"><text class=\"legend-title\" x=\"%lf\"", &title_x),
		1);
	assert_non_null(strstr(g, "text-anchor=\"end\">share of I/Os"));
	for (at = strstr(g, "<rect x=\""); at && at < end; at = strstr(at + 1, "<rect x=\"")) {
		double y, lx, ly;

		assert_int_equal(sscanf(at, "<rect x=\"%lf\" y=\"%lf\"", &x, &y), 2);
		if (!n)
			assert_true(title_x <= x - 2);
		else
			assert_true(fabs(x - prev - 30) < 1e-9);
		at = strstr(at, "<text x=\"");
		assert_int_equal(sscanf(at, "<text x=\"%lf\" y=\"%lf\">", &lx, &ly), 2);
		assert_true(lx >= x && lx < x + 4);
		assert_true(ly <= 28);
		assert_true(strcspn(strchr(at, '>') + 1, "<") <= 5); /* "&gt;0" the widest */
		prev = x;
		n++;
	}
	assert_int_equal(n, HTML_HEAT_LEVELS);
	assert_true(fabs(prev + 30 - (500 - 18)) < 1e-9);
}

static void test_heatmap(void **state)
{
	struct results r;
	struct results_window w[3];
	uint64_t b2[1] = {4}, bo[1] = {7};
	struct strbuf sb = STRBUF_INIT;
	unsigned fast = results_band_of_bucket(hist_bucket_index(1000000));
	unsigned slow = results_band_of_bucket(hist_bucket_index(50000000));
	uint64_t two[64] = {0};
	const char *d;

	(void)state;
	memset(&r, 0, sizeof(r));
	memset(w, 0, sizeof(w));
	/* window 1: bands fast .. slow, one I/O at each end */
	two[0] = 1;
	two[slow - fast] = 1;
	w[0] = (struct results_window){.t_ms = 15000,
				       .scope = SCOPE_VOLUME,
				       .cls = IO_DB_READ,
				       .count = 2,
				       .lo = fast,
				       .nr = slow - fast + 1,
				       .bands = two};
	strcpy(w[0].name, "v1");
	w[1] = (struct results_window){.t_ms = 15000,
				       .scope = SCOPE_VOLUME,
				       .cls = IO_DB_READ,
				       .count = 7,
				       .lo = slow,
				       .nr = 1,
				       .bands = bo};
	strcpy(w[1].name, "v2");
	w[2] = (struct results_window){.t_ms = 30000,
				       .scope = SCOPE_VOLUME,
				       .cls = IO_DB_READ,
				       .count = 4,
				       .lo = fast,
				       .nr = 1,
				       .bands = b2};
	strcpy(w[2].name, "v1");
	r.windows = w;
	r.nr_windows = 3;
	html_chart_heatmap(&sb, &(struct html_heatmap){.id = "h",
						       .title = "v1 <db_read>",
						       .r = &r,
						       .volume = "v1",
						       .cls = IO_DB_READ,
						       .threshold_ms = 20,
						       .warmup_s = 0});
	assert_non_null(strstr(sb.buf,
			       "class=\"heatmap\" data-volume=\"v1\" data-class=\"db_read\" "
			       "data-windows=\"2\" data-columns=\"2\" data-cells=\"3\""));
	assert_non_null(strstr(sb.buf, "<title>v1 &lt;db_read&gt;</title>"));
	/* half of window 1 in each band: level 8 (50 %) twice; window 2 all fast */
	assert_int_equal(count_of(sb.buf, "<path class=\"heat\""), 1);
	assert_int_equal(count_of(sb.buf, "data-level=\"8\""), 1);
	d = strstr(strstr(sb.buf, "data-level=\"8\""), " d=\"") + 4;
	assert_int_equal(count_of(d, "z") - count_of(strchr(d, '"'), "z"), 3);
	assert_int_equal(count_of(sb.buf, "class=\"threshold\""), 1);
	/* 1 ms to 50 ms: decades 0.1 .. 100 */
	assert_non_null(strstr(sb.buf, ">0.1</text>"));
	assert_non_null(strstr(sb.buf, ">100</text>"));
	heat_legend_check(sb.buf);
	strbuf_release(&sb);

	/* a volume without windows says so */
	html_chart_heatmap(&sb, &(struct html_heatmap){.id = "h",
						       .title = "v3",
						       .r = &r,
						       .volume = "v3",
						       .cls = IO_DB_READ,
						       .threshold_ms = NAN});
	assert_non_null(strstr(sb.buf, "data-windows=\"0\""));
	assert_non_null(strstr(sb.buf, "no window histograms in this run"));
	assert_null(strstr(sb.buf, "class=\"threshold\""));
	strbuf_release(&sb);
}

/* An axis draws at most this many ticks (html_chart.c's CH_TICKS_MAX). */
#define TICKS_MAX 64

/* A chart of the values that the store refuses (limits.c), had they got
 * through: it ends, small, with a bounded number of ticks per axis. */
static void chart_bounded(const struct html_chart *c, size_t max_text)
{
	struct strbuf sb = STRBUF_INIT;

	html_chart_line(&sb, c);
	assert_true(sb.len < 256 * 1024);
	assert_true((size_t)count_of(sb.buf, "<text ") <= max_text);
	strbuf_release(&sb);
}

static void test_hostile_values_bounded(void **state)
{
	struct results_host_sample hs[3];
	struct results_window w[2];
	uint64_t band[1] = {5};
	struct results r;
	struct html_series se = {.src = HTML_SRC_HOST,
				 .name = "",
				 .host_field = HTML_HOST_CPU_USER,
				 .label = "cpu",
				 .color = "#000"};
	struct html_chart c = {.id = "c",
			       .title = "t",
			       .x_label = "s",
			       .y_label = "%",
			       .series = &se,
			       .nr_series = 1};
	double huge[] = {1e308, 1.7e308, 5};
	const char *names[] = {"a", "b", "c"};
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	alarm(20); /* a loop that runs away fails the test, it does not hang it */
	memset(&r, 0, sizeof(r));
	memset(hs, 0, sizeof(hs));
	for (int i = 0; i < 3; i++) {
		hs[i].t_ms = 1000 * (uint64_t)(i + 1);
		hs[i].cpu_user_pct = huge[i];
	}
	r.host_samples = hs;
	r.nr_host_samples = 3;
	se.r = &r;
	/* y up to 1.7e308: 1.05 times that is +Inf */
	chart_bounded(&c, 4 * TICKS_MAX);
	/* an infinite warm-up shaded on the x axis */
	c.warmup_s = INFINITY;
	chart_bounded(&c, 4 * TICKS_MAX);
	/* times at the end of 64-bit milliseconds: a step too small for them */
	hs[0].t_ms = UINT64_MAX - 2;
	hs[1].t_ms = UINT64_MAX - 1;
	hs[2].t_ms = UINT64_MAX;
	c.warmup_s = 0;
	chart_bounded(&c, 4 * TICKS_MAX);
	/* the same on a right-hand axis */
	c.y2_label = "right";
	se.right = true;
	chart_bounded(&c, 4 * TICKS_MAX);

	/* bars of 1.7e308: 1.12 times that is +Inf */
	html_chart_bars(&sb, &(struct html_bars){.id = "b",
						 .title = "bars",
						 .x_label = "IOPS",
						 .series_name = "dbs",
						 .unit = "IOPS",
						 .names = names,
						 .values = huge,
						 .nr = 3});
	assert_true(sb.len < 256 * 1024);
	assert_true((size_t)count_of(sb.buf, "<text ") <= TICKS_MAX + 2 * 3 + 2);
	strbuf_reset(&sb);

	/* heatmap windows at the end of time, an infinite warm-up */
	memset(w, 0, sizeof(w));
	for (int i = 0; i < 2; i++) {
		w[i] = (struct results_window){.t_ms = UINT64_MAX - (uint64_t)i,
					       .scope = SCOPE_VOLUME,
					       .cls = IO_DB_READ,
					       .count = 5,
					       .lo = 40,
					       .nr = 1,
					       .bands = band};
		strcpy(w[i].name, "v1");
	}
	r.windows = w;
	r.nr_windows = 2;
	html_chart_heatmap(&sb, &(struct html_heatmap){.id = "h",
						       .title = "v1",
						       .r = &r,
						       .volume = "v1",
						       .cls = IO_DB_READ,
						       .threshold_ms = 1e300,
						       .warmup_s = INFINITY});
	assert_true(sb.len < 256 * 1024);
	assert_true((size_t)count_of(sb.buf, "<text ") <= 2 * TICKS_MAX + 4 + 20);
	strbuf_release(&sb);
	alarm(0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_log10_decades),
		cmocka_unit_test(test_decimate),
		cmocka_unit_test(test_decimate_long),
		cmocka_unit_test(test_heat_levels),
		cmocka_unit_test(test_bands),
		cmocka_unit_test(test_heatmap),
		cmocka_unit_test(test_hostile_values_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
