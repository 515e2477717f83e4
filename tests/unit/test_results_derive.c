/* SPDX-License-Identifier: MIT */
/*
 * test_results_derive.c - what the results model derives for the reports
 * (results.h, src/results/derive.c), on hand-built results with figures
 * worked out by hand: an interval's rates and averages (the whole-ns average
 * truncated, the ms one not), the walk of one scope (its classes summed, its
 * lengths, warm-up marks, other scopes' rows left out), the walk of every
 * scope (groups, lengths per scope, each scope's series), a histogram's CDF,
 * the range of the databases' MB/s, a failed verdict's margin, the warm-up an
 * aborted run went through, the classes a run issued, its failed verdicts
 * and its events of a kind, the tail percentiles from a known histogram,
 * the volumes' and run's database sizes, the average bytes per I/O and the
 * target IOPS's four cases.
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

#include "diskproof/results.h"

static struct results_sample row(uint64_t t_ms, bool warmup, enum scope_kind scope,
				 const char *name, enum io_class cls, uint64_t ios,
				 uint64_t lat_sum_ns)
{
	struct results_sample s = {.t_ms = t_ms,
				   .warmup = warmup,
				   .scope = scope,
				   .cls = cls,
				   .ios = ios,
				   .bytes = ios * 32768,
				   .lat_sum_ns = lat_sum_ns};

	snprintf(s.name, sizeof(s.name), "%s", name);
	return s;
}

static void test_interval_finish(void **state)
{
	struct results_interval iv = {.len_ms = 2000, .ios = 3, .bytes = 3000000, .lat_sum_ns = 10};

	(void)state;
	results_interval_finish(&iv);
	assert_true(iv.iops == 1.5);
	assert_true(iv.mbps == 1.5);
	assert_int_equal(iv.avg_ns, 3); /* 10 / 3, truncated */
	assert_true(fabs(iv.avg_ms - 10.0 / 3.0 / 1e6) < 1e-15);

	/* no length: no rates; no I/O: no average */
	iv = (struct results_interval){.len_ms = 0, .ios = 4, .lat_sum_ns = 8000000};
	results_interval_finish(&iv);
	assert_true(isnan(iv.iops));
	assert_true(isnan(iv.mbps));
	assert_int_equal(iv.avg_ns, 2000000);
	assert_true(iv.avg_ms == 2.0);
	iv = (struct results_interval){.len_ms = 1000};
	results_interval_finish(&iv);
	assert_true(iv.iops == 0.0);
	assert_int_equal(iv.avg_ns, 0);
	assert_true(isnan(iv.avg_ms));
}

static void test_interval_add(void **state)
{
	struct results_interval iv = {0};
	struct results_sample a = row(1000, false, SCOPE_RUN, "run", IO_DB_READ, 10, 100);
	struct results_sample b = row(1000, true, SCOPE_RUN, "run", IO_LOG_WRITE, 5, 50);

	(void)state;
	b.errors = 2;
	results_interval_add(&iv, &a, 1u << IO_DB_READ);
	results_interval_add(&iv, &b, 1u << IO_DB_READ);
	/* b's counts are of another class, its warm-up mark counts */
	assert_int_equal(iv.ios, 10);
	assert_int_equal(iv.bytes, 10 * 32768);
	assert_int_equal(iv.errors, 0);
	assert_int_equal(iv.lat_sum_ns, 100);
	assert_true(iv.warmup);
	results_interval_add(&iv, &b, 1u << IO_LOG_WRITE);
	assert_int_equal(iv.ios, 15);
	assert_int_equal(iv.bytes, 15 * 32768);
	assert_int_equal(iv.errors, 2);
	assert_int_equal(iv.lat_sum_ns, 150);
	/* a row not marked warm-up leaves the mark */
	results_interval_add(&iv, &a, 0);
	assert_true(iv.warmup);
	assert_int_equal(iv.ios, 15);
}

/* Two scopes over three intervals; vol1 has no db_write row at 2000. */
static struct results_sample walk_rows[] = {
	{0}, {0}, {0}, {0}, {0}, {0}, {0},
};

static void walk_build(struct results *r)
{
	size_t n = 0;

	memset(r, 0, sizeof(*r));
	walk_rows[n++] = row(1000, true, SCOPE_VOLUME, "vol1", IO_DB_READ, 100, 1000000);
	walk_rows[n++] = row(1000, true, SCOPE_VOLUME, "vol1", IO_DB_WRITE, 50, 500000);
	walk_rows[n++] = row(1000, true, SCOPE_VOLUME, "vol2", IO_DB_READ, 7, 7000);
	walk_rows[n++] = row(2000, false, SCOPE_VOLUME, "vol1", IO_DB_READ, 300, 6000000);
	walk_rows[n++] = row(2000, false, SCOPE_VOLUME, "vol2", IO_DB_READ, 0, 0);
	walk_rows[n++] = row(2500, false, SCOPE_VOLUME, "vol1", IO_DB_READ, 10, 30);
	walk_rows[n++] = row(2500, false, SCOPE_VOLUME, "vol1", IO_DB_WRITE, 20, 60);
	r->samples = walk_rows;
	r->nr_samples = n;
}

static void test_scope_walk(void **state)
{
	const unsigned both = (1u << IO_DB_READ) | (1u << IO_DB_WRITE);
	struct results_scope_walk w;
	struct results_interval iv;
	struct results r;

	(void)state;
	walk_build(&r);
	results_scope_walk_init(&w, &r, SCOPE_VOLUME, "vol1", both);
	assert_true(results_scope_walk_next(&w, &iv));
	assert_int_equal(iv.t_ms, 1000);
	assert_int_equal(iv.len_ms, 1000);
	assert_true(iv.warmup);
	assert_int_equal(iv.ios, 150); /* vol2's row is not vol1's */
	assert_true(iv.iops == 150.0);
	assert_true(iv.avg_ms == 0.01);
	assert_true(results_scope_walk_next(&w, &iv));
	assert_int_equal(iv.t_ms, 2000);
	assert_int_equal(iv.len_ms, 1000);
	assert_false(iv.warmup);
	assert_int_equal(iv.ios, 300); /* db_write has no row: 0 there */
	assert_true(iv.avg_ms == 0.02);
	assert_true(results_scope_walk_next(&w, &iv));
	assert_int_equal(iv.t_ms, 2500);
	assert_int_equal(iv.len_ms, 500);
	assert_int_equal(iv.ios, 30);
	assert_true(iv.iops == 60.0);
	assert_int_equal(iv.avg_ns, 3);
	assert_false(results_scope_walk_next(&w, &iv));

	/* one class only; a scope with an interval of no I/O */
	results_scope_walk_init(&w, &r, SCOPE_VOLUME, "vol1", 1u << IO_DB_WRITE);
	assert_true(results_scope_walk_next(&w, &iv));
	assert_int_equal(iv.ios, 50);
	assert_true(results_scope_walk_next(&w, &iv));
	assert_int_equal(iv.ios, 0);
	assert_true(iv.iops == 0.0);
	assert_true(isnan(iv.avg_ms));
	results_scope_walk_init(&w, &r, SCOPE_VOLUME, "vol2", both);
	assert_true(results_scope_walk_next(&w, &iv));
	assert_int_equal(iv.ios, 7);
	assert_true(results_scope_walk_next(&w, &iv));
	assert_int_equal(iv.len_ms, 1000);
	assert_false(results_scope_walk_next(&w, &iv));
	/* a scope with no rows, and a kind that differs with the same name */
	results_scope_walk_init(&w, &r, SCOPE_DATABASE, "vol1", both);
	assert_false(results_scope_walk_next(&w, &iv));
}

/* An interval ending at 0 has no length (it does not end after 0). */
static void test_scope_walk_zero_length(void **state)
{
	struct results_sample rows[2] = {
		row(0, false, SCOPE_RUN, "run", IO_DB_READ, 5, 5),
		row(1000, false, SCOPE_RUN, "run", IO_DB_READ, 5, 5),
	};
	struct results r = {.samples = rows, .nr_samples = 2};
	struct results_scope_walk w;
	struct results_interval iv;

	(void)state;
	results_scope_walk_init(&w, &r, SCOPE_RUN, "run", 1u << IO_DB_READ);
	assert_true(results_scope_walk_next(&w, &iv));
	assert_int_equal(iv.len_ms, 0);
	assert_true(isnan(iv.iops));
	assert_true(results_scope_walk_next(&w, &iv));
	assert_int_equal(iv.len_ms, 1000);
	assert_true(iv.iops == 5.0);
}

static void test_walk_groups(void **state)
{
	const unsigned rd = 1u << IO_DB_READ, both = rd | (1u << IO_DB_WRITE);
	/* each group: its first row, its rows, its length, its scope's series */
	const struct {
		size_t first, n;
		uint64_t len_ms;
		unsigned series;
	} want[] = {{0, 2, 1000, both},
		    {2, 1, 1000, rd},
		    {3, 1, 1000, both},
		    {4, 1, 1000, rd},
		    {5, 2, 500, both}};
	struct results_group g;
	struct results_walk w;
	struct results r;
	size_t k;

	(void)state;
	walk_build(&r);
	results_walk_init(&w, &r);
	for (k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
		assert_true(results_walk_next(&w, &g));
		assert_ptr_equal(g.rows, &walk_rows[want[k].first]);
		assert_int_equal(g.n, want[k].n);
		assert_int_equal(g.len_ms, want[k].len_ms);
		assert_int_equal(g.series, want[k].series);
	}
	assert_false(results_walk_next(&w, &g));
	results_walk_release(&w);

	/* a class whose rows hold only errors is in the series; one of zeros not */
	walk_rows[2].ios = 0;
	walk_rows[2].errors = 1;
	walk_rows[1].ios = walk_rows[6].ios = 0;
	results_walk_init(&w, &r);
	assert_true(results_walk_next(&w, &g));
	assert_int_equal(g.series, 1u << IO_DB_READ);
	assert_true(results_walk_next(&w, &g));
	assert_int_equal(g.series, 1u << IO_DB_READ);
	results_walk_release(&w);

	/* no samples */
	r.nr_samples = 0;
	results_walk_init(&w, &r);
	assert_false(results_walk_next(&w, &g));
	results_walk_release(&w);
}

static void test_hist_cdf(void **state)
{
	struct hist *h = malloc(sizeof(*h)), *empty = malloc(sizeof(*empty));
	struct results_hist hists[2] = {{.scope = SCOPE_RUN, .cls = IO_DB_READ, .h = empty},
					{.scope = SCOPE_RUN, .cls = IO_LOG_WRITE, .h = h}};
	struct results r = {.hists = hists, .nr_hists = 2};
	struct results_cdf it;
	double ms, share, last = -1;
	size_t n = 0;

	(void)state;
	assert_non_null(h);
	assert_non_null(empty);
	hist_init(h);
	hist_init(empty);
	snprintf(hists[0].name, sizeof(hists[0].name), "run");
	snprintf(hists[1].name, sizeof(hists[1].name), "run");
	hist_add(h, 10);
	hist_add(h, 10);
	hist_add(h, 2000000);
	hist_add(h, 30);

	assert_ptr_equal(results_hist_get(&r, SCOPE_RUN, "run", IO_LOG_WRITE), h);
	assert_ptr_equal(results_hist_get(&r, SCOPE_RUN, "run", IO_DB_READ), empty);
	assert_null(results_hist_get(&r, SCOPE_RUN, "run", IO_DB_WRITE));
	assert_null(results_hist_get(&r, SCOPE_VOLUME, "run", IO_LOG_WRITE));
	assert_null(results_hist_get(&r, SCOPE_RUN, "vol1", IO_LOG_WRITE));

	results_cdf_init(&it, h);
	assert_true(results_cdf_next(&it, &ms, &share));
	assert_true(ms == 10 / 1e6); /* exact below 64 ns */
	assert_true(share == 0.5);
	assert_true(results_cdf_next(&it, &ms, &share));
	assert_true(ms == 30 / 1e6);
	assert_true(share == 0.75);
	assert_true(results_cdf_next(&it, &ms, &share));
	assert_true(fabs(ms - 2.0) < 2.0 / 64);
	assert_true(share == 1.0);
	assert_false(results_cdf_next(&it, &ms, &share));
	for (results_cdf_init(&it, h); results_cdf_next(&it, &ms, &share); n++) {
		assert_true(ms > last);
		last = ms;
	}
	assert_int_equal(n, 3);

	results_cdf_init(&it, empty);
	assert_false(results_cdf_next(&it, &ms, &share));
	empty->buckets[3] = 1; /* a damaged histogram: buckets without a count */
	results_cdf_init(&it, empty);
	assert_false(results_cdf_next(&it, &ms, &share));
	results_cdf_init(&it, NULL);
	assert_false(results_cdf_next(&it, &ms, &share));
	free(h);
	free(empty);
}

static void test_db_mbps_range(void **state)
{
	struct scope_summary dbs[3] = {0};
	struct results r = {.databases = dbs, .nr_databases = 3};
	double min = -7, max = -7;

	(void)state;
	dbs[0].classes[IO_BDM_READ].mbps = 1.5;
	dbs[1].classes[IO_BDM_READ].mbps = 0.5;
	dbs[2].classes[IO_BDM_READ].mbps = 2.25;
	dbs[2].classes[IO_BACKUP_READ].mbps = NAN;
	dbs[0].classes[IO_BACKUP_READ].mbps = 3;
	dbs[1].classes[IO_BACKUP_READ].mbps = 4;
	assert_true(results_db_mbps_range(&r, IO_BDM_READ, &min, &max));
	assert_true(min == 0.5);
	assert_true(max == 2.25);
	/* a rate not finite counts as 0 */
	assert_true(results_db_mbps_range(&r, IO_BACKUP_READ, &min, &max));
	assert_true(min == 0);
	assert_true(max == 4);
	r.nr_databases = 0;
	min = max = -7;
	assert_false(results_db_mbps_range(&r, IO_BDM_READ, &min, &max));
	assert_true(min == -7 && max == -7);
}

static void test_verdict_margin(void **state)
{
	struct verdict v = {.cmp = VERDICT_LE, .threshold = 20, .measured = 21.4};

	(void)state;
	assert_true(fabs(results_verdict_margin_pct(&v) - 7.0) < 1e-9);
	v = (struct verdict){.cmp = VERDICT_GE, .threshold = 1000, .measured = 900};
	assert_true(fabs(results_verdict_margin_pct(&v) + 10.0) < 1e-9);
	v.threshold = -50; /* relative to the threshold's size */
	v.measured = -60;
	assert_true(fabs(results_verdict_margin_pct(&v) + 20.0) < 1e-9);
	v = (struct verdict){.threshold = 20, .measured = 25, .passed = true};
	assert_true(isnan(results_verdict_margin_pct(&v)));
	v = (struct verdict){.cmp = VERDICT_LE, .threshold = 1, .measured = 1.5};
	assert_true(fabs(results_verdict_margin_pct(&v) - 50.0) < 1e-9);
	v = (struct verdict){.threshold = 0, .measured = 3};
	assert_true(isnan(results_verdict_margin_pct(&v)));
	v = (struct verdict){.threshold = 20, .measured = NAN};
	assert_true(isnan(results_verdict_margin_pct(&v)));
	v = (struct verdict){.threshold = INFINITY, .measured = 3};
	assert_true(isnan(results_verdict_margin_pct(&v)));
	v = (struct verdict){.threshold = 1e-300, .measured = 1e300};
	assert_true(isnan(results_verdict_margin_pct(&v))); /* overflows */
}

static void test_warmup_ran(void **state)
{
	struct results r = {.status = "passed", .warmup_s = 30, .warmup = {.duration_s = 12}};

	(void)state;
	assert_true(results_warmup_ran_s(&r) == 30);
	r.status = "aborted";
	assert_true(results_warmup_ran_s(&r) == 12);
	r.status = "error";
	assert_true(results_warmup_ran_s(&r) == 12);
	r.status = "failed";
	assert_true(results_warmup_ran_s(&r) == 30);
	r.status = NULL;
	assert_true(results_warmup_ran_s(&r) == 30);
	r.status = "aborted";
	r.warmup.duration_s = 40; /* stored more than configured: the configured */
	assert_true(results_warmup_ran_s(&r) == 30);
	r.warmup_s = NAN;
	assert_true(results_warmup_ran_s(&r) == 0);
}

static void test_classes_issued(void **state)
{
	struct results_sample rows[3] = {
		row(1000, false, SCOPE_RUN, "run", IO_LOG_WRITE, 3, 3),
		row(1000, false, SCOPE_DATABASE, "db1", IO_BDM_READ, 3, 3),
		row(1000, false, SCOPE_RUN, "run", IO_LOG_READ, 0, 0),
	};
	struct results r = {0};

	(void)state;
	assert_int_equal(results_classes_issued(&r), 0);
	r.run.classes[IO_DB_READ].ios = 1;
	r.run.classes[IO_BACKUP_READ].errors = 1;
	assert_int_equal(results_classes_issued(&r), (1u << IO_DB_READ) | (1u << IO_BACKUP_READ));
	/* a run without its summary: its run-scope intervals, not a database's */
	memset(&r.run, 0, sizeof(r.run));
	r.samples = rows;
	r.nr_samples = 3;
	assert_int_equal(results_classes_issued(&r), 1u << IO_LOG_WRITE);
	rows[2].errors = 1;
	assert_int_equal(results_classes_issued(&r), (1u << IO_LOG_WRITE) | (1u << IO_LOG_READ));
}

static void test_verdicts_failed(void **state)
{
	struct verdict v[3] = {{.passed = true}, {.passed = false}, {.passed = false}};
	struct results r = {.verdicts = v, .nr_verdicts = 3};

	(void)state;
	assert_int_equal(results_verdicts_failed(&r), 2);
	v[1].passed = true;
	assert_int_equal(results_verdicts_failed(&r), 1);
	r.nr_verdicts = 0;
	assert_int_equal(results_verdicts_failed(&r), 0);
}

static void test_events_count(void **state)
{
	struct results_event ev[4] = {
		{.kind = "error"}, {.kind = "start"}, {.kind = "error"}, {.kind = "errors"}};
	struct results r = {.events = ev, .nr_events = 4};

	(void)state;
	assert_int_equal(results_events_count(&r, "error"), 2);
	assert_int_equal(results_events_count(&r, "start"), 1);
	assert_int_equal(results_events_count(&r, "events_dropped"), 0);
	r.nr_events = 2;
	assert_int_equal(results_events_count(&r, "error"), 1);
}

/*
 * 10,000 I/Os: 9,985 at 1 ms, 10 at 50 ms (the 9,986th to 9,995th), 5 at
 * 200 ms. p99.9 is the 9,990th smallest: 50 ms; p99.99 the 9,999th: 200 ms
 * (the maximum, so exact after the clamp); p99 the 9,900th: 1 ms. Each
 * within 1/128 (stats.h). A class without I/O has neither: NAN.
 */
static void test_tail_fill(void **state)
{
	struct hist *h = malloc(sizeof(*h));
	struct results_hist rh = {.scope = SCOPE_VOLUME, .cls = IO_DB_READ, .h = h};
	struct scope_summary vol = {.name = "v1"};
	struct results r = {0};
	const struct class_summary *cs;

	(void)state;
	assert_non_null(h);
	hist_init(h);
	for (int i = 0; i < 9985; i++)
		hist_add(h, 1000000);
	for (int i = 0; i < 10; i++)
		hist_add(h, 50000000);
	for (int i = 0; i < 5; i++)
		hist_add(h, 200000000);
	snprintf(rh.name, sizeof(rh.name), "v1");
	vol.classes[IO_DB_READ].ios = 10000;
	vol.classes[IO_LOG_WRITE].p999_ms = 7; /* no I/O, no histogram: reset */
	r.volumes = &vol;
	r.nr_volumes = 1;
	r.hists = &rh;
	r.nr_hists = 1;
	results_tail_fill(&r);
	cs = &vol.classes[IO_DB_READ];
	assert_true(fabs(cs->p999_ms - 50.0) <= 50.0 / 128);
	assert_true(fabs(cs->p9999_ms - 200.0) <= 200.0 / 128);
	assert_true(cs->p9999_ms >= cs->p999_ms);
	assert_true(fabs((double)hist_percentile(h, 99.0) / 1e6 - 1.0) <= 1.0 / 128);
	assert_true(isnan(vol.classes[IO_LOG_WRITE].p999_ms));
	assert_true(isnan(vol.classes[IO_LOG_WRITE].p9999_ms));
	/* the run scope has no histogram here: undefined, never 0 */
	assert_true(isnan(r.run.classes[IO_DB_READ].p999_ms));

	/* results_class_from_stats gives the same figures from the stats */
	struct class_stats st = {0};
	struct class_summary out;

	hist_init(&st.lat);
	hist_merge(&st.lat, h);
	results_class_from_stats(&out, &st, 1000000000);
	assert_true(out.p999_ms == cs->p999_ms);
	assert_true(out.p9999_ms == cs->p9999_ms);
	hist_init(&st.lat);
	results_class_from_stats(&out, &st, 1000000000);
	assert_true(isnan(out.p999_ms) && isnan(out.p9999_ms));
	free(h);
}

static void test_avg_bytes(void **state)
{
	struct class_summary cs = {.ios = 4, .bytes = 4 * 4096 + 2};

	(void)state;
	assert_true(results_class_avg_bytes(&cs) == 4096.5);
	cs.ios = 0;
	assert_true(isnan(results_class_avg_bytes(&cs)));
}

/* A volume's size is its databases' sum, known only when each one is. */
static void test_sizes_fill(void **state)
{
	struct scope_summary vols[2] = {{.name = "v1"}, {.name = "v2"}};
	struct scope_summary dbs[3] = {
		{.name = "db1",
		 .volume = "v1",
		 .size_known = true,
		 .size = 100,
		 .final_size_known = true,
		 .final_size = 150},
		{.name = "db2",
		 .volume = "v1",
		 .size_known = true,
		 .size = 200,
		 .final_size_known = true,
		 .final_size = 200},
		{.name = "db3", .volume = "v2", .size_known = true, .size = 300},
	};
	struct results r = {.volumes = vols, .nr_volumes = 2, .databases = dbs, .nr_databases = 3};

	(void)state;
	results_sizes_fill(&r);
	assert_true(vols[0].size_known && vols[0].size == 300);
	assert_true(vols[0].final_size_known && vols[0].final_size == 350);
	assert_true(vols[1].size_known && vols[1].size == 300);
	assert_false(vols[1].final_size_known);
	assert_true(r.run.size_known && r.run.size == 600);
	assert_false(r.run.final_size_known);
	assert_int_equal(r.run.final_size, 0);
	r.nr_databases = 0; /* no databases: nothing known */
	results_sizes_fill(&r);
	assert_false(r.run.size_known);
	assert_false(vols[0].size_known);
}

static void test_target_iops(void **state)
{
	struct verdict v[2] = {
		{.scope = SCOPE_RUN,
		 .criterion = "db_read_avg_ms",
		 .threshold = 20,
		 .passed = true},
		{.scope = SCOPE_RUN,
		 .criterion = "transactional_iops",
		 .cmp = VERDICT_GE,
		 .threshold = 1450,
		 .measured = 1400,
		 .passed = false},
	};
	struct results r = {.verdicts = v, .nr_verdicts = 2, .status = "failed"};
	double t;

	(void)state;
	assert_int_equal(results_target_iops(&r, &t), RESULTS_TARGET_FAILED);
	assert_true(t == 1450);
	v[1].passed = true;
	assert_int_equal(results_target_iops(&r, &t), RESULTS_TARGET_PASSED);
	assert_string_equal(results_target_name(RESULTS_TARGET_PASSED), "pass");
	r.nr_verdicts = 1; /* judged, without an IOPS criterion */
	assert_int_equal(results_target_iops(&r, &t), RESULTS_TARGET_NONE);
	assert_true(isnan(t));
	assert_string_equal(results_target_name(RESULTS_TARGET_NONE), "none");
	r.nr_verdicts = 0; /* nothing judged it */
	r.status = "aborted";
	assert_int_equal(results_target_iops(&r, &t), RESULTS_TARGET_UNKNOWN);
	assert_true(isnan(t));
	r.status = "passed"; /* judged, every criterion off */
	assert_int_equal(results_target_iops(&r, &t), RESULTS_TARGET_NONE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_interval_finish),
		cmocka_unit_test(test_interval_add),
		cmocka_unit_test(test_scope_walk),
		cmocka_unit_test(test_scope_walk_zero_length),
		cmocka_unit_test(test_walk_groups),
		cmocka_unit_test(test_hist_cdf),
		cmocka_unit_test(test_db_mbps_range),
		cmocka_unit_test(test_verdict_margin),
		cmocka_unit_test(test_warmup_ran),
		cmocka_unit_test(test_classes_issued),
		cmocka_unit_test(test_verdicts_failed),
		cmocka_unit_test(test_events_count),
		cmocka_unit_test(test_tail_fill),
		cmocka_unit_test(test_avg_bytes),
		cmocka_unit_test(test_sizes_fill),
		cmocka_unit_test(test_target_iops),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
