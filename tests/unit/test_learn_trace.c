/* SPDX-License-Identifier: MIT */
/*
 * test_learn_trace.c - the BPF tracing source's arithmetic (trace.h), no
 * BPF: the derived figures from planted sketches (hot 10 %, dispersion per
 * 100 ms, gap CV), a known load planted as requests through the user-space
 * reference of the kernel program's rules (sizes, sequential runs, flags,
 * flushes after writes, service times), the "trace" JSON read back, and
 * the comparison's trace rows (shown, never asserted) and the learned
 * profile's header lines.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "diskproof/trace.h"

#define REQ_WRITE 1u
#define REQ_FLUSH 2u
#define REQ_SYNC (1u << 11)
#define REQ_FUA (1u << 17)

static void test_derive(void **state)
{
	struct learn_trace_role t = {.gaps = 2};
	uint64_t regions[] = {1, 1, 1, 1, 10, 1, 1, 1, 1, 1, 1};
	uint32_t slots[] = {0, 10, 0, 10};

	(void)state;
	/* 11 regions: the hottest ceil(1.1) = 2 hold 10 + 1 of 20 I/Os */
	learn_trace_derive(&t, regions, 11, slots, 4, 100 + 300, 100.0 * 100 + 300.0 * 300);
	assert_int_equal(t.regions, 11);
	assert_true(fabs(t.hot_fraction - 0.55) < 1e-9);
	/* slots: mean 5, variance 25 */
	assert_int_equal(t.slots, 4);
	assert_true(fabs(t.dispersion - 5) < 1e-9);
	/* gaps 100 and 300 us: mean 200, sd 100 */
	assert_true(fabs(t.gap_cv - 0.5) < 1e-9);
	/* a metronome: CV 0, dispersion 0 */
	{
		struct learn_trace_role m = {.gaps = 4};
		uint32_t even[] = {7, 7, 7};

		learn_trace_derive(&m, NULL, 0, even, 3, 400, 4 * 100.0 * 100);
		assert_true(fabs(m.gap_cv) < 1e-9);
		assert_true(fabs(m.dispersion) < 1e-9);
		assert_true(isnan(m.hot_fraction));
	}
}

/* Write bursts and the depth a write meets, through the reference rules: a
 * write-back pass every 2 s of 400 writes kept 16 in flight, each served in
 * 1 ms, over a steady 10 writes a 100 ms slot one at a time (served in
 * 100 us); 10 s. The passes are 4 bursts, 2 s apart, with 1,600 of the
 * 2,600 writes; a pass's write meets 15 others in flight (the first ones
 * fewer), a steady write none or a pass's 16. */
static void test_bursts_depth(void **state)
{
	struct learn_trace_role t = {0};
	uint32_t slots[100] = {0}, wslots[100] = {0};
	uint64_t wsvc[100] = {0};
	struct learn_trace_acc a = {
		.t = &t, .slots = slots, .wslots = wslots, .wsvc = wsvc, .nslots = 100};
	struct learn_trace_event ev[2600];
	size_t n = 0;

	(void)state;
	for (uint64_t k = 0; k < 1000; k++) /* steady, every 10 ms */
		ev[n++] = (struct learn_trace_event){.issue_ns = k * 10000000 + 5000000,
						     .complete_ns = k * 10000000 + 5100000,
						     .cmd_flags = REQ_WRITE,
						     .bytes = 8192,
						     .sector = k * 64};
	for (uint64_t p = 0; p < 4; p++) /* passes at 1.0, 3.0, 5.0, 7.0 s */
		for (uint64_t k = 0; k < 400; k++) {
			/* 16 issued each ms, each served in 1 ms: 25 ms a pass */
			uint64_t at = (1000 + 2000 * p) * 1000000 + k / 16 * 1000000 + k % 16;

			ev[n++] =
				(struct learn_trace_event){.issue_ns = at,
							   .complete_ns = at + 1000000 - 16,
							   .cmd_flags = REQ_WRITE,
							   .bytes = 8192,
							   .sector = 8000000 + p * 10000 + k * 16};
		}
	/* in order of issue, as the tracepoint sees them */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && ev[j].issue_ns < ev[j - 1].issue_ns; j--) {
			struct learn_trace_event x = ev[j];

			ev[j] = ev[j - 1], ev[j - 1] = x;
		}
	for (size_t i = 0; i < n; i++)
		learn_trace_account(&a, &ev[i]);
	learn_trace_bursts(&t, wslots, wsvc, 100);
	assert_int_equal(t.ops[1], 2600);
	assert_int_equal(t.bursts, 4);
	/* the pass slots also hold their slot's 10 steady writes */
	assert_true(fabs(t.burst_share - 1640.0 / 2600) < 1e-9);
	assert_true(fabs(t.burst_interval_s - 2.0) < 1e-9);
	assert_true(fabs(t.burst_peak - 410) < 1e-9);
	/* the fullest slot: 400 writes of 1 ms and 10 of 100 us over 100 ms */
	assert_true(fabs(t.burst_depth - (400 * (1e6 - 16) + 10 * 1e5) / 1e8) < 1e-9);
	/* a pass's writes meet 15 in flight (each ms's first 16 the previous
	 * ms's less those done: 0 to 15, mean 7.5, the pass's first ms
	 * fewer), the steady ones 0: between 7.5 x 1600 / 2600 and
	 * 15 x 1600 / 2600 */
	assert_true((double)t.depth_sum[1] / 2600 > 4.0);
	assert_true((double)t.depth_sum[1] / 2600 < 9.3);
	/* a steady load alone: no bursts, depth 0 */
	{
		struct learn_trace_role s = {0};
		uint32_t ws[100] = {0}, sl[100] = {0};
		struct learn_trace_acc b = {.t = &s, .slots = sl, .wslots = ws, .nslots = 100};

		for (size_t i = 0; i < n; i++)
			if (ev[i].sector < 8000000)
				learn_trace_account(&b, &ev[i]);
		learn_trace_bursts(&s, ws, NULL, 100);
		assert_int_equal(s.bursts, 0);
		assert_true(fabs(s.burst_share) < 1e-9);
		assert_true(isnan(s.burst_interval_s));
		assert_true(isnan(s.burst_peak));
		assert_true(isnan(s.burst_depth));
		assert_int_equal(s.depth_sum[1], 0);
	}
}

/* The known load: data 1,000 4 KiB reads at random 4 KiB offsets, one per
 * ms, 3 in 4 on the first 1 MiB region (hot), each served in 100 us; log
 * 200 64 KiB writes one after the other (sequential), each followed by a
 * flush, every other one FUA. */
static void plant(struct learn_fp *fp, uint64_t (*reg)[2], size_t max, uint32_t *slots,
		  size_t nslots)
{
	struct learn_trace_acc a = {.t = &fp->role[LEARN_DATA].trace,
				    .regions = reg,
				    .nregions_max = max,
				    .slots = slots,
				    .nslots = nslots};
	struct learn_trace_acc l = a;
	uint64_t seed = 42;

	l.t = &fp->role[LEARN_LOG].trace;
	l.regions = reg + max;
	l.slots = slots + nslots;
	for (uint64_t i = 0; i < 1000; i++) {
		struct learn_trace_event e = {.issue_ns = i * 1000000, .bytes = 4096};

		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		/* region 0 or one of 1..100; 8-sector aligned, never adjacent */
		e.sector = (i % 4 != 3 ? 0 : ((seed >> 33) % 100 + 1) << 11) + (i % 2) * 512 + 8;
		e.complete_ns = e.issue_ns + 100000;
		learn_trace_account(&a, &e);
	}
	for (uint64_t i = 0; i < 200; i++) {
		struct learn_trace_event w = {.issue_ns = i * 5000000,
					      .cmd_flags =
						      REQ_WRITE | REQ_SYNC | (i % 2 ? REQ_FUA : 0),
					      .bytes = 65536,
					      .sector = 1000000 + i * 128,
					      .complete_ns = i * 5000000 + 50000};
		struct learn_trace_event f = {.issue_ns = w.issue_ns + 60000,
					      .cmd_flags = REQ_FLUSH,
					      .complete_ns = w.issue_ns + 70000};

		learn_trace_account(&l, &w);
		learn_trace_account(&l, &f);
	}
	learn_trace_derive(a.t, NULL, 0, slots, nslots, a.gap_us, a.gap_us2);
	learn_trace_derive(l.t, NULL, 0, slots + nslots, nslots, l.gap_us, l.gap_us2);
	/* regions: the sketch's counts of each role */
	{
		uint64_t ios[256];

		for (size_t i = 0; i < a.nregions; i++)
			ios[i] = reg[i][1];
		learn_trace_derive(a.t, ios, a.nregions, slots, nslots, a.gap_us, a.gap_us2);
		for (size_t i = 0; i < l.nregions; i++)
			ios[i] = reg[max + i][1];
		learn_trace_derive(l.t, ios, l.nregions, slots + nslots, nslots, l.gap_us,
				   l.gap_us2);
	}
}

static struct learn_fp *planted(void)
{
	static uint64_t reg[2 * 128][2];
	static uint32_t slots[2 * 10];
	static struct learn_fp fp;

	memset(&fp, 0, sizeof(fp));
	memset(reg, 0, sizeof(reg));
	memset(slots, 0, sizeof(slots));
	fp.seconds = 1;
	fp.transactions = -1;
	fp.role[LEARN_DATA].present = fp.role[LEARN_LOG].present = true;
	snprintf(fp.trace_status, sizeof(fp.trace_status), "used (planted)");
	plant(&fp, reg, 128, slots, 10);
	return &fp;
}

static const struct learn_figure *tfig(const struct learn_figure *f, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(f[i].key, key))
			return &f[i];
	fail_msg("no figure %s", key);
	return NULL;
}

static void test_known_load(void **state)
{
	struct learn_fp *fp = planted();
	const struct learn_trace_role *d = &fp->role[LEARN_DATA].trace,
				      *l = &fp->role[LEARN_LOG].trace;
	struct learn_figure f[LEARN_TRACE_FIGURES];
	size_t n;

	(void)state;
	assert_int_equal(d->ops[LEARN_TRACE_READ], 1000);
	assert_int_equal(d->sizes[0][12], 1000); /* 4 KiB */
	assert_int_equal(d->sequential, 0);
	assert_int_equal(l->ops[LEARN_TRACE_WRITE], 200);
	assert_int_equal(l->ops[LEARN_TRACE_FLUSH], 200);
	assert_int_equal(l->sizes[1][16], 200); /* 64 KiB */
	assert_int_equal(l->fua_writes, 100);
	assert_int_equal(l->sync_writes, 200);
	assert_int_equal(l->flush_after_write, 200);
	/* each write starts where the previous ended, but after a flush */
	assert_int_equal(l->sequential, 199);
	n = learn_trace_figures(fp, LEARN_DATA, f);
	assert_int_equal(n, LEARN_TRACE_FIGURES);
	assert_true(fabs(tfig(f, n, "data.trace.reads_per_s")->value - 1000) < 1e-9);
	assert_true(fabs(tfig(f, n, "data.trace.read_size_mode_kib")->value - 4) < 1e-9);
	assert_true(fabs(tfig(f, n, "data.trace.read_service_ms")->value - 0.1) < 1e-9);
	assert_true(fabs(tfig(f, n, "data.trace.sequential_pct")->value) < 1e-9);
	/* 750 reads on region 0 of the 1 + (at most 100) regions touched: the hot
	 * 10 % hold at least 75 % */
	assert_true(d->regions > 50 && d->regions <= 101);
	assert_true(tfig(f, n, "data.trace.hot_10pct_share_pct")->value >= 75);
	/* one read per ms: a metronome, 100 per 100 ms slot */
	assert_true(fabs(tfig(f, n, "data.trace.gap_cv")->value) < 1e-9);
	assert_true(fabs(tfig(f, n, "data.trace.dispersion_100ms")->value) < 1e-9);
	n = learn_trace_figures(fp, LEARN_LOG, f);
	assert_true(fabs(tfig(f, n, "log.trace.write_size_mode_kib")->value - 64) < 1e-9);
	assert_true(fabs(tfig(f, n, "log.trace.fua_writes_pct")->value - 50) < 1e-9);
	assert_true(fabs(tfig(f, n, "log.trace.flushes_per_write")->value - 1) < 1e-9);
	assert_true(fabs(tfig(f, n, "log.trace.flush_after_write_pct")->value - 100) < 1e-9);
	assert_true(fabs(tfig(f, n, "log.trace.sequential_pct")->value - 99.5) < 1e-9);
	assert_true(fabs(tfig(f, n, "log.trace.working_set_mib")->value - 13) < 1e-9);
	/* write, flush 60 us later, the next write 4.94 ms after: bursts */
	assert_true(tfig(f, n, "log.trace.gap_cv")->value > 0.9);
	assert_true(fabs(tfig(f, n, "log.trace.flush_service_ms")->value - 0.01) < 1e-9);
}

static void test_json_round_trip(void **state)
{
	struct learn_fp *fp = planted(), back;
	struct strbuf js = STRBUF_INIT, err = STRBUF_INIT, out = STRBUF_INIT;
	struct learn_figure a[LEARN_TRACE_FIGURES], b[LEARN_TRACE_FIGURES];
	unsigned off, asserted, left;

	(void)state;
	fp->role[LEARN_DATA].c.reads = 1000; /* the diskstats side of the same window */
	fp->role[LEARN_LOG].c.writes = 400;
	learn_fp_json(fp, &js);
	assert_non_null(strstr(js.buf, "\"trace_source\": \"used (planted)\""));
	assert_non_null(strstr(js.buf, "\"read_sizes\": {\"4096\": 1000}"));
	assert_int_equal(learn_fp_parse(js.buf, "planted.json", &back, &err), 0);
	assert_string_equal(back.trace_status, "used (planted)");
	for (int r = 0; r < LEARN_ROLES; r++) {
		size_t n = learn_trace_figures(fp, r, a);

		assert_int_equal(learn_trace_figures(&back, r, b), n);
		for (size_t i = 0; i < n; i++) {
			if (isnan(a[i].value)) {
				assert_true(isnan(b[i].value) || b[i].value == 0);
				continue;
			}
			assert_true(fabs(a[i].value - b[i].value) <= 1e-5 * fabs(a[i].value));
			assert_int_equal(a[i].events, b[i].events);
		}
	}
	/* a fingerprint from before the depth and the bursts were kept: they
	 * read as not known (NAN), never as a measured 0, and are left out
	 * when it is written again */
	{
		struct strbuf old = STRBUF_INIT, again = STRBUF_INIT;
		struct learn_fp o;
		struct learn_figure f[LEARN_TRACE_FIGURES];
		const char *p = js.buf, *nl;

		for (; *p; p = nl + 1) {
			nl = strchr(p, '\n');
			if (!nl)
				nl = p + strlen(p) - 1;
			if (!strstr(p, "depth_sum\"") || strstr(p, "depth_sum\"") > nl)
				if (!strstr(p, "\"burst") || strstr(p, "\"burst") > nl)
					strbuf_add(&old, p, (size_t)(nl - p + 1));
		}
		assert_null(strstr(old.buf, "write_depth_sum"));
		assert_int_equal(learn_fp_parse(old.buf, "old.json", &o, &err), 0);
		learn_trace_figures(&o, LEARN_DATA, f);
		assert_true(isnan(tfig(f, LEARN_TRACE_FIGURES, "data.trace.write_depth")->value));
		assert_true(
			isnan(tfig(f, LEARN_TRACE_FIGURES, "data.trace.burst_share_pct")->value));
		learn_fp_json(&o, &again);
		assert_null(strstr(again.buf, "write_depth_sum"));
		assert_null(strstr(again.buf, "\"bursts\""));
		/* the new file keeps them */
		assert_non_null(strstr(js.buf, "\"write_depth_sum\""));
		strbuf_release(&old);
		strbuf_release(&again);
	}
	/* compared with itself: the trace rows shown, none asserted */
	learn_fp_compare(fp, &back, "A", "B", 10, &out, &off, &asserted, &left);
	assert_non_null(strstr(out.buf, "data read mode KiB"));
	assert_non_null(strstr(out.buf, "log flushes/write"));
	assert_null(strstr(strstr(out.buf, "data traced reads/s"), "ok ("));
	/* the learned profile's header lines */
	strbuf_reset(&out);
	learn_trace_header(fp, &out);
	assert_non_null(strstr(out.buf, "; BPF tracing of the block layer: used (planted)\n"));
	assert_non_null(strstr(out.buf, "data: 1000 reads, 0 writes, 0 flushes traced; read sizes "
					"4 KiB 100 %; write sizes none"));
	assert_non_null(strstr(out.buf, "log: sequential 99.5 %, working set 13 MiB"));
	assert_non_null(strstr(out.buf, "log: FUA writes 50.0 %, preflush writes 0, flushes per "
					"write 1.000, flushes right after a write 100.0 %"));
	assert_non_null(strstr(out.buf, "data: FUA writes -, "));
	/* a fingerprint without the section has no trace rows */
	back.role[LEARN_DATA].trace.present = back.role[LEARN_LOG].trace.present = false;
	assert_int_equal(learn_trace_figures(&back, LEARN_DATA, b), 0);
	strbuf_release(&js);
	strbuf_release(&err);
	strbuf_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_derive),
		cmocka_unit_test(test_bursts_depth),
		cmocka_unit_test(test_known_load),
		cmocka_unit_test(test_json_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
