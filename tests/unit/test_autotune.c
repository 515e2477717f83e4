/*
 * test_autotune.c - the auto-tune search against a device model: latency is
 * flat until the device saturates at K streams, then grows in proportion to
 * the streams (a closed loop's queue). With a 20 ms read threshold and a 10 %
 * margin a level passes while its read average is at most 18 ms.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "../../src/run/autotune.h"

struct model {
	double base_ms; /* latency below saturation */
	unsigned k;	/* streams at saturation */
	double iops_per_stream;
	double noise; /* relative, uniform +- */
	uint64_t rng;
	unsigned flip; /* > 0: windows alternate by this factor (never settle) */
};

static double unit(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (double)(*s >> 11) / 9007199254740992.0;
}

static void model_window(struct model *m, unsigned n, unsigned i, struct tune_window *w)
{
	double lat = n <= m->k ? m->base_ms : m->base_ms * n / m->k;
	double x = 1.0 + m->noise * (2 * unit(&m->rng) - 1);

	memset(w, 0, sizeof(*w));
	if (m->flip && i % 2)
		x *= m->flip;
	w->read_avg_ms = lat * x;
	w->read_max_ms = lat * 2;
	w->log_avg_ms = lat / 4;
	w->log_max_ms = lat / 2;
	w->iops = m->iops_per_stream * (n <= m->k ? n : m->k);
	snprintf(w->read_db, sizeof(w->read_db), "db1");
	snprintf(w->log_db, sizeof(w->log_db), "db1");
}

/* Runs the search to its end; returns the windows it took. */
static unsigned drive(struct tuner *t, struct model *m)
{
	struct tune_window w;
	unsigned windows = 0;
	int ret;

	do {
		model_window(m, t->cur, windows, &w);
		ret = tuner_window(t, &w);
		assert_true(ret >= 0);
		windows++;
		assert_true(windows < 1000);
	} while (ret != TUNE_DONE);
	return windows;
}

static void init_max(struct tuner *t, unsigned min)
{
	tuner_init(t, TUNE_GOAL_MAX, 0.10, 0, min, 100000, 20, 100, 10, 100);
}

/* read average = 2 ms x n / 40 past 40 streams: <= 18 ms up to 360 streams */
static void test_max_exact(void **state)
{
	struct model m = {2.0, 40, 100, 0, 1, 0};
	struct tuner t;

	(void)state;
	init_max(&t, 4);
	drive(&t, &m);
	assert_int_equal(t.chosen, 360);
	assert_true(t.done);
	assert_non_null(strstr(t.stopped_because, "360 streams pass, 361 do not"));
	/* doubling from 4: 4 8 16 32 64 128 256 512, then bisection */
	assert_int_equal(t.steps[0].streams, 4);
	assert_int_equal(t.steps[7].streams, 512);
	assert_false(t.steps[7].passed);
	for (unsigned i = 0; i < t.nsteps; i++) {
		assert_true(t.steps[i].settled);
		assert_int_equal(t.steps[i].passed, t.steps[i].streams <= 360);
	}
	tuner_release(&t);
}

/* Window averages carry a little noise (a simulated device's jitter averaged
 * over a window): over 20 seeds the answer is the highest passing level or
 * one below it. */
static void test_max_noise(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 20; seed++) {
		struct model m = {2.0, 40, 100, 0.001, seed * 7919, 0};
		struct tuner t;

		init_max(&t, 4);
		drive(&t, &m);
		assert_true(t.chosen == 360 || t.chosen == 359);
		tuner_release(&t);
	}
}

static void test_never_passes(void **state)
{
	struct model m = {34.0, 1000, 100, 0, 1, 0};
	struct tuner t;

	(void)state;
	init_max(&t, 1);
	drive(&t, &m);
	assert_int_equal(t.chosen, 0);
	assert_string_equal(t.stopped_because,
			    "no level passes: at 1 stream database read average 34.0 ms (db1) > "
			    "18.0 ms (90 % of 20 ms)");
	assert_int_equal(t.nsteps, 1);
	tuner_release(&t);
}

/* Goal target: 100 IOPS per stream up to saturation at 40 streams; the
 * fewest streams reaching 2,550 IOPS are 26. */
static void test_target(void **state)
{
	struct model m = {2.0, 40, 100, 0, 1, 0};
	struct tuner t;

	(void)state;
	tuner_init(&t, TUNE_GOAL_TARGET, 0.10, 2550, 4, 100000, 20, 100, 10, 100);
	drive(&t, &m);
	assert_int_equal(t.chosen, 26);
	assert_non_null(strstr(t.stopped_because, "26 streams are the fewest"));
	tuner_release(&t);
	/* out of reach: saturation caps IOPS at 4,000 */
	tuner_init(&t, TUNE_GOAL_TARGET, 0.10, 5000, 4, 100000, 20, 100, 10, 100);
	drive(&t, &m);
	assert_non_null(strstr(t.stopped_because, "out of reach"));
	assert_int_equal(t.chosen, 256); /* the highest passing count tried */
	tuner_release(&t);
}

/* Windows that never agree: the level is decided after TUNE_MAX_WINDOWS on
 * its last two, and says so. */
static void test_unsettled(void **state)
{
	struct model m = {2.0, 40, 100, 0, 1, 3};
	struct tuner t;
	struct tune_window w;
	int ret = TUNE_MORE;
	unsigned n = 0;

	(void)state;
	init_max(&t, 4);
	while (ret == TUNE_MORE) {
		model_window(&m, t.cur, n++, &w);
		ret = tuner_window(&t, &w);
	}
	assert_int_equal(n, TUNE_MAX_WINDOWS);
	assert_int_equal(t.nsteps, 1);
	assert_false(t.steps[0].settled);
	assert_non_null(strstr(t.steps[0].reason, "(latency did not settle)"));
	tuner_release(&t);
}

/* An I/O error fails the level; stopping early keeps the best level. */
static void test_errors_and_stop(void **state)
{
	struct tuner t;
	struct tune_window w = {.iops = 100, .read_avg_ms = 2, .log_avg_ms = 1};
	int ret;

	(void)state;
	init_max(&t, 2);
	/* a level: one transient window, then two that agree */
	assert_int_equal(tuner_window(&t, &w), TUNE_MORE);
	assert_int_equal(tuner_window(&t, &w), TUNE_MORE);
	assert_int_equal(tuner_window(&t, &w), TUNE_NEXT); /* 2 passes */
	assert_int_equal(t.cur, 4);
	w.errors = 3;
	assert_int_equal(tuner_window(&t, &w), TUNE_MORE);
	assert_int_equal(tuner_window(&t, &w), TUNE_MORE);
	ret = tuner_window(&t, &w);
	assert_int_equal(ret, TUNE_NEXT); /* 2 pass, 4 fail: bisect to 3 */
	assert_int_equal(t.cur, 3);
	assert_int_equal(tuner_window(&t, &w), TUNE_MORE);
	assert_int_equal(tuner_window(&t, &w), TUNE_MORE);
	assert_int_equal(tuner_window(&t, &w), TUNE_DONE);
	assert_int_equal(t.chosen, 2);
	assert_non_null(strstr(t.steps[1].reason, "3 I/O error(s)"));
	assert_int_equal(t.steps[0].windows, 3);
	tuner_release(&t);

	init_max(&t, 2);
	w.errors = 0;
	for (int i = 0; i < 4; i++)
		tuner_window(&t, &w); /* 2 streams decided, 4 streams: one window */
	tuner_stop(&t, "the time bound is spent");
	assert_true(t.done);
	assert_int_equal(t.chosen, 2);
	assert_string_equal(t.stopped_because,
			    "the time bound is spent; best level found: 2 streams");
	tuner_release(&t);
}

/*
 * Goal iops on a device past its knee: latency grows with the streams but
 * stays under the thresholds up to 360 streams (as in test_max_exact), while
 * the IOPS peak at 64 streams and fall beyond (a deep queue thrashing the
 * device). Goal max climbs to 360; goal iops takes 64, from the same search.
 */
static void test_iops_peak(void **state)
{
	static const double iops[] = {[4] = 400, [8] = 800, [16] = 1600, [32] = 3000, [64] = 3300};
	struct tuner t;
	struct tune_window w;
	unsigned n = 0;
	int ret;

	(void)state;
	tuner_init(&t, TUNE_GOAL_IOPS, 0.10, 0, 4, 100000, 20, 100, 10, 100);
	do {
		struct model m = {2.0, 40, 100, 0, 1, 0};

		model_window(&m, t.cur, n++, &w);
		w.iops = t.cur < sizeof(iops) / sizeof(iops[0]) && iops[t.cur] ? iops[t.cur]
			 : t.cur > 64					       ? 3300.0 * 64 / t.cur
									       : 50.0 * t.cur;
		ret = tuner_window(&t, &w);
		assert_true(ret >= 0);
		assert_true(n < 1000);
	} while (ret != TUNE_DONE);
	assert_int_equal(t.chosen, 64);
	assert_non_null(strstr(t.stopped_because, "360 streams pass, 361 do not"));
	assert_non_null(strstr(t.stopped_because,
			       "the most IOPS within the thresholds: 64 streams (3300 IOPS)"));
	/* the same steps as goal max would take */
	assert_int_equal(t.steps[7].streams, 512);
	tuner_release(&t);

	/* IOPS within 3 % of the most count as a tie, which goes to the fewer
	 * streams; stopping early chooses the same way */
	tuner_init(&t, TUNE_GOAL_IOPS, 0.10, 0, 2, 100000, 20, 100, 10, 100);
	w = (struct tune_window){.iops = 100, .read_avg_ms = 2, .log_avg_ms = 1};
	for (int i = 0; i < 3; i++)
		assert_true(tuner_window(&t, &w) >= 0); /* 2 streams: 100 IOPS */
	w.iops = 102.5;
	for (int i = 0; i < 3; i++)
		assert_true(tuner_window(&t, &w) >= 0); /* 4 streams: 102.5 IOPS */
	w.iops = 104;
	for (int i = 0; i < 3; i++)
		assert_true(tuner_window(&t, &w) >= 0); /* 8 streams: 104 IOPS */
	assert_int_equal(t.nsteps, 3);
	tuner_stop(&t, "the time bound is spent");
	/* 100 is 3.8 % under 104, 102.5 is 1.4 % under: 4 streams */
	assert_int_equal(t.chosen, 4);
	assert_string_equal(t.stopped_because,
			    "the time bound is spent; best level found: 8 streams; the most IOPS "
			    "within the thresholds: 4 streams (102 IOPS)");
	tuner_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_max_exact),    cmocka_unit_test(test_max_noise),
		cmocka_unit_test(test_never_passes), cmocka_unit_test(test_target),
		cmocka_unit_test(test_unsettled),    cmocka_unit_test(test_errors_and_stop),
		cmocka_unit_test(test_iops_peak),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
