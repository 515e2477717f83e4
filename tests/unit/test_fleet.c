/* SPDX-License-Identifier: MIT */
/*
 * test_fleet.c - the fleet report's model (report.h, src/report/fleet.c):
 * the totals' histograms merge exactly (every percentile of the merged
 * histograms equals that of one histogram of all the runs' samples
 * together; counts, bytes, errors and rates add; the maximum is the
 * maximum) and a run lacking its histogram makes the percentiles unknown,
 * not wrong; a run whose per-interval series is shifted is flagged as
 * differing from the pooled others, on that figure only and in its
 * direction, and runs alike are not (nor the alike ones beside an
 * outlier); two identical runs differ in nothing; the start skew and each
 * run's offset come from load_started_at to the microsecond, null with
 * fewer than two; RFC 3339 times parse, bad ones are refused; and the JSON
 * document is valid JSON with the documented keys. The fleet's verdict
 * passes only when every run passed and every expected host has a run (a
 * run that failed or ended in an error, a host missing: FAIL); a load
 * begun 100 ms or more after its start_at is late, by how much.
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

#include "diskproof/report.h"

#define NI 40 /* measured intervals per synthetic run */

static uint64_t lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return *s >> 33;
}

struct fake_run {
	struct results r;
	struct results_hist hists[IO_CLASS_COUNT];
	struct hist h[IO_CLASS_COUNT];
	struct results_sample samples[NI * 3];
};

/*
 * A run: NI 1 s intervals of db_read, db_write and log_write rows, each
 * interval's read average read_ms x (1 +- 5 %) and IOPS iops x (1 +- 5 %),
 * log writes 1 ms +- 5 %; the whole-run summary the series' own figures;
 * every class's histogram of latencies drawn the same way.
 */
static void fake_run(struct fake_run *f, int64_t id, const char *host, double read_ms, double iops,
		     uint64_t seed)
{
	const enum io_class cls[3] = {IO_DB_READ, IO_DB_WRITE, IO_LOG_WRITE};
	double base_ms[3] = {read_ms, 3.0, 1.0};
	uint64_t s = seed;

	memset(f, 0, sizeof(*f));
	f->r.id = id;
	f->r.host = (char *)host;
	f->r.verdict = (char *)"PASS";
	f->r.status = (char *)"passed";
	f->r.duration_s = NI;
	snprintf(f->r.run.name, sizeof(f->r.run.name), "run");
	for (int k = 0; k < 3; k++) {
		struct class_summary *cs = &f->r.run.classes[cls[k]];
		double lat_sum = 0;

		hist_init(&f->h[cls[k]]);
		for (int i = 0; i < NI; i++) {
			struct results_sample *row = &f->samples[f->r.nr_samples++];
			double jit = 0.95 + 0.1 * (double)(lcg(&s) % 1000) / 1000.0;
			double jit2 = 0.95 + 0.1 * (double)(lcg(&s) % 1000) / 1000.0;
			uint64_t ios = (uint64_t)(iops * jit2 * (k == 0 ? 0.6 : 0.4));
			double avg_ns = base_ms[k] * jit * 1e6;

			row->t_ms = (uint64_t)(i + 1) * 1000;
			row->scope = SCOPE_RUN;
			snprintf(row->name, sizeof(row->name), "run");
			row->cls = cls[k];
			row->ios = ios;
			row->lat_sum_ns = (uint64_t)(avg_ns * (double)ios);
			row->lat_max_ns = (uint64_t)(avg_ns * 1.2);
			row->p50_ns = row->p99_ns = (uint64_t)avg_ns;
			cs->ios += ios;
			lat_sum += (double)row->lat_sum_ns;
			for (uint64_t n = 0; n < ios; n += 50)
				hist_add(&f->h[cls[k]],
					 (uint64_t)(avg_ns * (0.8 + 0.4 * (double)(lcg(&s) % 1000) /
									    1000.0)));
		}
		/* the histogram's count is the summary's (one latency per 50 I/Os
		 * is enough for the merge: what counts is the same I/Os) */
		cs->ios = f->h[cls[k]].count;
		cs->bytes = cs->ios * 32768;
		cs->errors = (uint64_t)k;
		cs->iops = (double)cs->ios / NI;
		cs->mbps = (double)cs->bytes / 1e6 / NI;
		cs->avg_ms = hist_mean(&f->h[cls[k]]) / 1e6;
		cs->p99_ms = (double)hist_percentile(&f->h[cls[k]], 99) / 1e6;
		cs->max_ms = (double)f->h[cls[k]].max_ns / 1e6;
		cs->max_sample_avg_ms = base_ms[k] * (1 + id / 100.0);
		(void)lat_sum;
		f->hists[f->r.nr_hists] = (struct results_hist){
			.scope = SCOPE_RUN, .cls = cls[k], .h = &f->h[cls[k]]};
		snprintf(f->hists[f->r.nr_hists].name, RESULTS_NAME_MAX, "run");
		f->r.nr_hists++;
	}
	/* rows in time order, as the store keeps them */
	for (size_t a = 0; a < f->r.nr_samples; a++)
		for (size_t b = a + 1; b < f->r.nr_samples; b++)
			if (f->samples[b].t_ms < f->samples[a].t_ms) {
				struct results_sample t = f->samples[a];

				f->samples[a] = f->samples[b];
				f->samples[b] = t;
			}
	f->r.samples = f->samples;
	f->r.hists = f->hists;
}

static struct results *runs_of(struct fake_run *f, size_t n)
{
	struct results *r = calloc(n, sizeof(*r));

	assert_non_null(r);
	for (size_t i = 0; i < n; i++) {
		r[i] = f[i].r;
		r[i].samples = f[i].samples;
		r[i].hists = f[i].hists;
	}
	return r;
}

static void test_merge_exact(void **state)
{
	struct fake_run *f = calloc(3, sizeof(*f));
	struct hist *all = malloc(sizeof(*all));
	struct class_summary out;
	struct results *r;
	bool complete;
	uint64_t s = 99;

	(void)state;
	assert_non_null(f);
	assert_non_null(all);
	fake_run(&f[0], 1, "a", 2.0, 1000, 1);
	fake_run(&f[1], 2, "b", 2.0, 1000, 2);
	fake_run(&f[2], 3, "c", 6.0, 1000, 3);
	/* db_read: replace the histograms by known samples, each run its own
	 * distribution, and one histogram of all of them together */
	hist_init(all);
	for (int i = 0; i < 3; i++) {
		hist_init(&f[i].h[IO_DB_READ]);
		for (int k = 0; k < 5000 * (i + 1); k++) {
			uint64_t v = 100000 + lcg(&s) % (1000000 * (uint64_t)(i + 1));

			if (i == 2 && k % 97 == 0)
				v *= 40; /* a tail on one host only */
			hist_add(&f[i].h[IO_DB_READ], v);
			hist_add(all, v);
		}
		f[i].r.run.classes[IO_DB_READ].ios = f[i].h[IO_DB_READ].count;
		f[i].r.run.classes[IO_DB_READ].max_ms = (double)f[i].h[IO_DB_READ].max_ns / 1e6;
		f[i].r.run.classes[IO_DB_READ].avg_ms = hist_mean(&f[i].h[IO_DB_READ]) / 1e6;
	}
	r = runs_of(f, 3);
	report_fleet_merge_class(r, 3, IO_DB_READ, &out, &complete);
	assert_true(complete);
	assert_int_equal(out.ios, all->count);
	assert_int_equal(out.ios, 5000 + 10000 + 15000);
	assert_int_equal(out.bytes, r[0].run.classes[IO_DB_READ].bytes +
					    r[1].run.classes[IO_DB_READ].bytes +
					    r[2].run.classes[IO_DB_READ].bytes);
	assert_float_equal(out.p50_ms, (double)hist_percentile(all, 50) / 1e6, 1e-12);
	assert_float_equal(out.p99_ms, (double)hist_percentile(all, 99) / 1e6, 1e-12);
	assert_float_equal(out.p999_ms, (double)hist_percentile(all, 99.9) / 1e6, 1e-12);
	assert_float_equal(out.p9999_ms, (double)hist_percentile(all, 99.99) / 1e6, 1e-12);
	assert_float_equal(out.avg_ms, hist_mean(all) / 1e6, 1e-9);
	assert_float_equal(out.max_ms, (double)all->max_ns / 1e6, 1e-12);
	/* not the average of the runs' p99s: the tail of one host is the fleet's */
	assert_true(fabs(out.p99_ms - (r[0].run.classes[IO_DB_READ].p99_ms +
				       r[1].run.classes[IO_DB_READ].p99_ms +
				       r[2].run.classes[IO_DB_READ].p99_ms) /
					      3) > 0.1);
	assert_float_equal(out.iops,
			   r[0].run.classes[IO_DB_READ].iops + r[1].run.classes[IO_DB_READ].iops +
				   r[2].run.classes[IO_DB_READ].iops,
			   1e-9);
	/* errors add (log_write: 2 per run), the sample maxima take the highest */
	report_fleet_merge_class(r, 3, IO_LOG_WRITE, &out, &complete);
	assert_int_equal(out.errors, 6);
	assert_float_equal(out.max_sample_avg_ms, 1.0 * 1.03, 1e-12);
	/* a run without its histogram: counts still add, percentiles unknown */
	r[1].nr_hists = 0;
	report_fleet_merge_class(r, 3, IO_DB_READ, &out, &complete);
	assert_false(complete);
	assert_int_equal(out.ios, 30000);
	assert_true(isnan(out.p99_ms));
	assert_true(isnan(out.p50_ms));
	free(r);
	free(all);
	free(f);
}

static const struct report_fleet_host *host_of(const struct report_fleet *f, int64_t id)
{
	for (size_t i = 0; i < f->nr_hosts; i++)
		if (f->hosts[i].r->id == id)
			return &f->hosts[i];
	fail_msg("no run %lld", (long long)id);
	return NULL;
}

static void test_outlier(void **state)
{
	struct fake_run *f = calloc(4, sizeof(*f));
	struct report_fleet fl;
	struct strbuf err = STRBUF_INIT;
	struct results *r;
	const struct report_fleet_host *h;

	(void)state;
	assert_non_null(f);
	/* three alike (different noise), the fourth reads 60 % slower; two
	 * share a host name and stay two rows */
	fake_run(&f[0], 1, "a", 2.0, 1000, 11);
	fake_run(&f[1], 2, "a", 2.0, 1000, 12);
	fake_run(&f[2], 3, "c", 2.0, 1000, 13);
	fake_run(&f[3], 4, "d", 3.2, 1000, 14);
	r = runs_of(f, 4);
	assert_int_equal(report_fleet_build(&fl, r, 4, NULL, 0, 0.01, &err), 0);
	assert_int_equal(fl.nr_hosts, 4);
	assert_int_equal(fl.nr_host_names, 3);
	for (int64_t id = 1; id <= 3; id++) {
		h = host_of(&fl, id);
		assert_false(h->differs);
		for (int g = 0; g < REPORT_FLEET_FIG_COUNT; g++)
			assert_false(h->diff[g].differs);
		assert_true(h->diff[REPORT_FLEET_DB_READ_AVG].tested);
	}
	h = host_of(&fl, 4);
	assert_true(h->differs);
	assert_true(h->diff[REPORT_FLEET_DB_READ_AVG].differs);
	assert_true(h->diff[REPORT_FLEET_DB_READ_AVG].change_pct > 40);
	assert_true(h->diff[REPORT_FLEET_DB_READ_AVG].p_value < 1e-6);
	assert_false(h->diff[REPORT_FLEET_LOG_WRITE_AVG].differs);
	assert_false(h->diff[REPORT_FLEET_TRANS_IOPS].differs);
	/* no load_started_at anywhere: no skew, every run says so */
	assert_false(fl.has_skew);
	assert_int_equal(fl.nr_no_load, 4);
	report_fleet_release(&fl);
	report_fleet_release(&fl); /* twice is fine */

	/* fewer IOPS on one host: flagged lower, latency not */
	fake_run(&f[3], 4, "d", 2.0, 600, 14);
	free(r);
	r = runs_of(f, 4);
	assert_int_equal(report_fleet_build(&fl, r, 4, NULL, 0, 0.01, &err), 0);
	h = host_of(&fl, 4);
	assert_true(h->diff[REPORT_FLEET_TRANS_IOPS].differs);
	assert_true(h->diff[REPORT_FLEET_TRANS_IOPS].change_pct < -30);
	assert_false(h->diff[REPORT_FLEET_DB_READ_AVG].differs);
	for (int64_t id = 1; id <= 3; id++)
		assert_false(host_of(&fl, id)->differs);
	report_fleet_release(&fl);

	/* two identical runs: nothing differs (p = 1) */
	fake_run(&f[1], 2, "b", 2.0, 1000, 11);
	free(r);
	r = runs_of(f, 2);
	assert_int_equal(report_fleet_build(&fl, r, 2, NULL, 0, 0.01, &err), 0);
	for (size_t i = 0; i < 2; i++) {
		assert_false(fl.hosts[i].differs);
		assert_float_equal(fl.hosts[i].diff[REPORT_FLEET_DB_READ_AVG].p_value, 1.0, 1e-12);
	}
	report_fleet_release(&fl);
	free(r);
	free(f);
	strbuf_release(&err);
}

static void test_skew(void **state)
{
	struct fake_run *f = calloc(3, sizeof(*f));
	struct report_fleet fl;
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	struct results *r;

	(void)state;
	assert_non_null(f);
	fake_run(&f[0], 1, "a", 2.0, 1000, 1);
	fake_run(&f[1], 2, "b", 2.0, 1000, 2);
	fake_run(&f[2], 3, "c", 2.0, 1000, 3);
	f[0].r.load_started_at = (char *)"2026-12-03T15:20:00.000123Z";
	f[1].r.load_started_at = (char *)"2026-12-03T15:19:59.999900Z";
	r = runs_of(f, 3);
	assert_int_equal(report_fleet_build(&fl, r, 3, NULL, 0, 0.01, &err), 0);
	assert_true(fl.has_skew);
	assert_float_equal(fl.start_skew_ms, 0.223, 1e-9);
	assert_float_equal(fl.hosts[0].start_offset_ms, 0.223, 1e-9);
	assert_float_equal(fl.hosts[1].start_offset_ms, 0.0, 1e-12);
	assert_true(isnan(fl.hosts[2].start_offset_ms));
	assert_int_equal(fl.nr_no_load, 1);
	report_fleet_render(&out, &fl, REPORT_JSON, NULL);
	assert_non_null(strstr(out.buf, "\"start_skew_ms\": 0.223"));
	assert_non_null(strstr(out.buf, "\"without_load_started_at\": [3]"));
	assert_null(strstr(out.buf, "nan"));
	report_fleet_release(&fl);
	/* one run with it: no skew */
	f[0].r.load_started_at = NULL;
	free(r);
	r = runs_of(f, 3);
	assert_int_equal(report_fleet_build(&fl, r, 3, NULL, 0, 0.01, &err), 0);
	assert_false(fl.has_skew);
	strbuf_reset(&out);
	report_fleet_render(&out, &fl, REPORT_JSON, NULL);
	assert_non_null(strstr(out.buf, "\"start_skew_ms\": null"));
	report_fleet_release(&fl);
	free(r);
	free(f);
	strbuf_release(&err);
	strbuf_release(&out);
}

static void test_verdict(void **state)
{
	struct fake_run *f = calloc(3, sizeof(*f));
	const char *const want[] = {"a", "d", "b", "c", "d"};
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	struct report_fleet fl;
	struct results *r;

	(void)state;
	assert_non_null(f);
	fake_run(&f[0], 1, "a", 2.0, 1000, 1);
	fake_run(&f[1], 2, "b", 2.0, 1000, 2);
	fake_run(&f[2], 3, "c", 2.0, 1000, 3);
	/* a: 50 us after its instant; b: 150 ms (late); c: no start_at */
	f[0].r.start_at = f[1].r.start_at = (char *)"2026-12-03T15:20:00.000000Z";
	f[0].r.load_started_at = (char *)"2026-12-03T15:20:00.000050Z";
	f[1].r.load_started_at = (char *)"2026-12-03T15:20:00.150000Z";
	f[2].r.load_started_at = (char *)"2026-12-03T15:20:00.000100Z";
	r = runs_of(f, 3);
	assert_int_equal(report_fleet_build(&fl, r, 3, NULL, 0, 0.01, &err), 0);
	assert_true(fl.passed);
	assert_int_equal(fl.nr_passed, 3);
	assert_float_equal(fl.hosts[0].late_ms, 0.05, 1e-9);
	assert_false(fl.hosts[0].late);
	assert_float_equal(fl.hosts[1].late_ms, 150.0, 1e-9);
	assert_true(fl.hosts[1].late);
	assert_true(isnan(fl.hosts[2].late_ms));
	assert_false(fl.hosts[2].late);
	assert_int_equal(fl.nr_late, 1);
	/* every expected host has a run: still a pass */
	assert_int_equal(report_fleet_expect(&fl, want + 2, 2, &err), 0);
	assert_true(fl.passed);
	assert_int_equal(fl.nr_missing, 0);
	/* d, expected twice, has none: missing once, and the fleet fails */
	assert_int_equal(report_fleet_expect(&fl, want, 5, &err), 0);
	assert_false(fl.passed);
	assert_int_equal(fl.nr_missing, 1);
	assert_string_equal(fl.missing[0], "d");
	report_fleet_render(&out, &fl, REPORT_JSON, NULL);
	assert_non_null(strstr(out.buf, "\"verdict\": \"FAIL\""));
	assert_non_null(strstr(out.buf, "\"missing\": [\"d\"]"));
	assert_non_null(strstr(out.buf, "\"late\": [2]"));
	strbuf_reset(&out);
	report_fleet_render(&out, &fl, REPORT_TEXT, NULL);
	assert_non_null(strstr(out.buf, "fleet verdict: FAIL (1 expected host(s) missing)\n"));
	assert_non_null(strstr(out.buf, "missing (expected, no run): d\n"));
	assert_non_null(strstr(out.buf, "late: run 2 (b) began its load 150.000 ms after"));
	report_fleet_release(&fl);
	/* a run that failed, or ended in an error, fails the fleet */
	f[2].r.verdict = (char *)"FAIL";
	f[2].r.status = (char *)"failed";
	free(r);
	r = runs_of(f, 3);
	assert_int_equal(report_fleet_build(&fl, r, 3, NULL, 0, 0.01, &err), 0);
	assert_false(fl.passed);
	report_fleet_release(&fl);
	f[2].r.verdict = (char *)"NONE";
	f[2].r.status = (char *)"error";
	free(r);
	r = runs_of(f, 3);
	assert_int_equal(report_fleet_build(&fl, r, 3, NULL, 0, 0.01, &err), 0);
	assert_false(fl.passed);
	assert_int_equal(fl.nr_unjudged, 1);
	report_fleet_release(&fl);
	free(r);
	free(f);
	strbuf_release(&err);
	strbuf_release(&out);
}

static void test_parse_time(void **state)
{
	int64_t us = 0;

	(void)state;
	assert_int_equal(report_fleet_parse_time("1970-01-01T00:00:01.000002Z", &us), 0);
	assert_int_equal(us, 1000002);
	assert_int_equal(report_fleet_parse_time("2026-12-03T15:20:00Z", &us), 0);
	assert_int_equal(us, 1796311200LL * 1000000);
	assert_int_equal(report_fleet_parse_time("2026-12-03T15:20:00.5Z", &us), 0);
	assert_int_equal(us % 1000000, 500000);
	assert_int_equal(report_fleet_parse_time("2026-12-03T15:20:00.123456789Z", &us), 0);
	assert_int_equal(us % 1000000, 123456);
	assert_int_equal(report_fleet_parse_time("2026-12-03 15:20:00Z", &us), -EINVAL);
	assert_int_equal(report_fleet_parse_time("2026-12-03T15:20:00.Z", &us), -EINVAL);
	assert_int_equal(report_fleet_parse_time("2026-12-03T15:20:00+01:00", &us), -EINVAL);
	assert_int_equal(report_fleet_parse_time("2026-13-03T15:20:00Z", &us), -EINVAL);
	assert_int_equal(report_fleet_parse_time(NULL, &us), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merge_exact), cmocka_unit_test(test_outlier),
		cmocka_unit_test(test_skew),	    cmocka_unit_test(test_verdict),
		cmocka_unit_test(test_parse_time),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
