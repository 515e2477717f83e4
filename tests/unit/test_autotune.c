/* SPDX-License-Identifier: MIT */
/*
 * test_autotune.c - the auto-tune search against a device model: latency is
 * flat until the device saturates at K streams, then grows in proportion to
 * the streams (a closed loop's queue). With a 20 ms read threshold and a 10 %
 * margin a level passes while its read average is at most 18 ms. Also the
 * pure pieces: the latency slope, the levels on the per-database grid, the
 * transient (settled and never settled), the plateau stop and the fallback.
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
	double drift_ms;   /* per sample of a level's transient */
	unsigned drift_n;  /* samples it lasts; 0: for ever */
	unsigned iops_cap; /* > 0: IOPS flat from this many streams on */
};

static double unit(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (double)(*s >> 11) / 9007199254740992.0;
}

static double model_lat(const struct model *m, unsigned n)
{
	return n <= m->k ? m->base_ms : m->base_ms * n / m->k;
}

static void model_window(struct model *m, unsigned n, struct tune_window *w)
{
	double lat = model_lat(m, n);
	double x = 1.0 + m->noise * (2 * unit(&m->rng) - 1);
	unsigned eff = n <= m->k ? n : m->k;

	memset(w, 0, sizeof(*w));
	if (m->iops_cap && eff > m->iops_cap)
		eff = m->iops_cap;
	w->read_avg_ms = lat * x;
	w->read_max_ms = lat * 2;
	w->log_avg_ms = lat / 4;
	w->log_max_ms = lat / 2;
	w->iops = m->iops_per_stream * eff;
	snprintf(w->read_db, sizeof(w->read_db), "db1");
	snprintf(w->log_db, sizeof(w->log_db), "db1");
}

/* One level: samples until the transient is over (or never is), then its
 * window. Returns autotune_window_feed's answer; *samples the samples fed. */
static int feed_level(struct tuner *t, struct model *m, unsigned *samples)
{
	struct tune_window w;
	unsigned i = 0;
	int ret;

	do {
		unsigned d = m->drift_n && i > m->drift_n ? m->drift_n : i;
		double y = model_lat(m, t->cur) + m->drift_ms * d;

		ret = autotune_sample(t, y, y / 4);
		i++;
		assert_true(i < 100000);
	} while (ret == TUNE_MORE);
	assert_true(ret == TUNE_SETTLED || ret == TUNE_UNSETTLED);
	if (samples)
		*samples = i;
	model_window(m, t->cur, &w);
	return autotune_window_feed(t, &w);
}

/* Runs the search to its end; returns the levels it took. */
static unsigned drive(struct tuner *t, struct model *m)
{
	unsigned levels = 0;
	int ret;

	do {
		ret = feed_level(t, m, NULL);
		assert_true(ret >= 0);
		levels++;
		assert_true(levels < 1000);
	} while (ret != TUNE_DONE);
	return levels;
}

static struct tune_settings settings(enum tune_goal goal, unsigned min, double target)
{
	return (struct tune_settings){
		.goal = goal,
		.step = TUNE_STEP_STREAM,
		.databases = 1,
		.margin = 0.10,
		.plateau = 0,
		.target_iops = target,
		.min_streams = min,
		.max_streams = 100000,
		.thresholds = {.db_read_avg_ns = 20000000,
			       .db_read_max_ns = 100000000,
			       .log_write_avg_ns = 10000000,
			       .log_write_max_ns = 100000000},
		.slope_window = 10,
		.slope_max_ms = 0.1,
		.transient_max = 40,
	};
}

static void init_max(struct tuner *t, unsigned min)
{
	struct tune_settings s = settings(TUNE_GOAL_MAX, min, 0);

	autotune_init(t, &s);
}

/* The least-squares slope of a window of samples, through the ring. */
static void test_slope(void **state)
{
	struct tune_slope s;

	(void)state;
	autotune_slope_reset(&s);
	assert_true(autotune_slope_get(&s, 30) == 0);
	autotune_slope_push(&s, 30, 5);
	assert_true(autotune_slope_get(&s, 30) == 0); /* one sample: no slope */
	autotune_slope_reset(&s);
	for (int i = 0; i < 10; i++)
		autotune_slope_push(&s, 30, 3 + 0.5 * i);
	assert_float_equal(autotune_slope_get(&s, 30), 0.5, 1e-9);
	/* past the window: only the last 30 count (a line falling at 2 per
	 * sample after 40 rising ones) */
	autotune_slope_reset(&s);
	for (int i = 0; i < 40; i++)
		autotune_slope_push(&s, 30, 100 + i);
	for (int i = 0; i < 30; i++)
		autotune_slope_push(&s, 30, 50 - 2.0 * i);
	assert_int_equal(s.n, 30);
	assert_float_equal(autotune_slope_get(&s, 30), -2.0, 1e-9);
	/* noise around a flat line: a small slope */
	autotune_slope_reset(&s);
	for (int i = 0; i < 30; i++)
		autotune_slope_push(&s, 30, i % 2 ? 10.5 : 9.5);
	assert_true(autotune_slope_get(&s, 30) < 0.04 && autotune_slope_get(&s, 30) > -0.04);
}

/* Levels on the per-database grid: 15 databases give 15, 30, 45 ... and the
 * search bisects only between whole counts per database. */
static void test_levels_per_database(void **state)
{
	struct tune_settings s = settings(TUNE_GOAL_MAX, 15, 0);
	/* passes up to 2 streams per database (30), fails above */
	struct model m = {2.0, 30, 100, 0, 1, 0, 0, 0};
	struct tuner t;
	static const unsigned db_levels[] = {15, 30, 60, 45};
	static const unsigned stream_levels[] = {15, 30, 60, 45, 37, 33, 31, 32};

	(void)state;
	m.base_ms = 17.0; /* 17 ms up to 30 streams; 34 at 60, 25.5 at 45 */
	s.step = TUNE_STEP_DATABASE;
	s.databases = 15;
	s.max_streams = 100;
	autotune_init(&t, &s);
	assert_int_equal(t.unit, 15);
	assert_int_equal(t.set.max_streams, 90); /* rounded down to the grid */
	assert_int_equal(autotune_up(&t, 60), 90);
	assert_int_equal(autotune_mid(&t, 15, 60), 30);
	assert_int_equal(autotune_mid(&t, 30, 60), 45);
	drive(&t, &m);
	assert_int_equal(t.nsteps, 4);
	for (unsigned i = 0; i < t.nsteps; i++) {
		assert_int_equal(t.steps[i].streams, db_levels[i]);
		assert_int_equal(t.steps[i].streams % 15, 0);
	}
	assert_int_equal(t.chosen, 30);
	assert_string_equal(t.stopped_because,
			    "30 streams pass, 45 do not (database read average 25.5 ms (db1) > "
			    "18.0 ms (90 % of 20 ms))");
	autotune_release(&t);

	/* the same device, single-stream bisection */
	s.step = TUNE_STEP_STREAM;
	autotune_init(&t, &s);
	assert_int_equal(t.unit, 1);
	drive(&t, &m);
	assert_int_equal(t.nsteps, 8);
	for (unsigned i = 0; i < t.nsteps; i++)
		assert_int_equal(t.steps[i].streams, stream_levels[i]);
	assert_int_equal(t.chosen, 31); /* 31.76 streams are 18 ms */
	autotune_release(&t);

	/* a first level that passes and a second that fails: 15 -> 30 and done
	 * (single streams would go on 22, 18, 16) */
	m.base_ms = 10;
	m.k = 15; /* 20 ms at 30 streams */
	s.step = TUNE_STEP_DATABASE;
	autotune_init(&t, &s);
	drive(&t, &m);
	assert_int_equal(t.nsteps, 2);
	assert_int_equal(t.chosen, 15);
	autotune_release(&t);
}

/* read average = 2 ms x n / 40 past 40 streams: <= 18 ms up to 360 streams */
static void test_max_exact(void **state)
{
	struct model m = {2.0, 40, 100, 0, 1, 0, 0, 0};
	struct tuner t;

	(void)state;
	init_max(&t, 4);
	drive(&t, &m);
	assert_int_equal(t.chosen, 360);
	assert_true(t.done);
	assert_false(t.fallback);
	assert_non_null(strstr(t.stopped_because, "360 streams pass, 361 do not"));
	/* doubling from 4: 4 8 16 32 64 128 256 512, then bisection */
	assert_int_equal(t.steps[0].streams, 4);
	assert_int_equal(t.steps[7].streams, 512);
	assert_false(t.steps[7].passed);
	for (unsigned i = 0; i < t.nsteps; i++) {
		assert_true(t.steps[i].settled);
		assert_int_equal(t.steps[i].samples, 10); /* flat: one slope window */
		assert_int_equal(t.steps[i].passed, t.steps[i].streams <= 360);
	}
	autotune_release(&t);
}

/* Window averages carry a little noise (a simulated device's jitter averaged
 * over a window): over 20 seeds the answer is the highest passing level or
 * one below it. */
static void test_max_noise(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 20; seed++) {
		struct model m = {2.0, 40, 100, 0.001, seed * 7919, 0, 0, 0};
		struct tuner t;

		init_max(&t, 4);
		drive(&t, &m);
		assert_true(t.chosen == 360 || t.chosen == 359);
		autotune_release(&t);
	}
}

/*
 * The plateau stop: IOPS grow with the streams up to 32, then stay flat (the
 * device is saturated) while latency stays far under the thresholds up to
 * 360 streams. With a 5 % plateau the search stops at 64 (+0 % over 32) and
 * keeps 32; without it, it climbs to 360.
 */
static void test_plateau(void **state)
{
	struct tune_settings s = settings(TUNE_GOAL_MAX, 4, 0);
	struct model m = {2.0, 40, 100, 0, 1, 0, 0, 32};
	struct tuner t;

	(void)state;
	s.plateau = 0.05;
	autotune_init(&t, &s);
	drive(&t, &m);
	assert_int_equal(t.chosen, 32);
	assert_true(t.plateau);
	assert_int_equal(t.nsteps, 5); /* 4 8 16 32 64 */
	assert_true(t.steps[4].passed);
	assert_string_equal(t.stopped_because,
			    "IOPS flattened: 64 streams give 3200 IOPS, +0.0 % over 32 streams' "
			    "3200 (less than the 5 % plateau): 32 streams kept");
	autotune_release(&t);

	/* a gain just over the plateau goes on: 32 -> 64 gives +6 % */
	m.iops_cap = 0;
	m.k = 1000;
	m.iops_per_stream = 100;
	s.max_streams = 64;
	autotune_init(&t, &s);
	drive(&t, &m);
	assert_int_equal(t.chosen, 64);
	assert_false(t.plateau);
	autotune_release(&t);

	/* fewer IOPS for more streams (a deep queue thrashing) stop it too */
	{
		static const double iops[] = {1000, 1900, 1700};
		struct tune_window w = {.read_avg_ms = 2, .log_avg_ms = 1};
		int ret = 0;

		s.max_streams = 100000;
		autotune_init(&t, &s);
		for (int i = 0; i < 3; i++) {
			while (autotune_sample(&t, 2, 1) == TUNE_MORE)
				;
			w.iops = iops[i];
			ret = autotune_window_feed(&t, &w);
		}
		assert_int_equal(ret, TUNE_DONE);
		assert_int_equal(t.chosen, 8);
		assert_non_null(strstr(t.stopped_because, "16 streams give 1700 IOPS, -10.5 %"));
		autotune_release(&t);
	}

	/* plateau 0: no plateau stop, as test_max_exact */
	m = (struct model){2.0, 40, 100, 0, 1, 0, 0, 32};
	init_max(&t, 4);
	drive(&t, &m);
	assert_int_equal(t.chosen, 360);
	autotune_release(&t);
}

/* No level passes: the fewest streams tried are chosen all the same, so the
 * main test runs there (the fallback). */
static void test_never_passes(void **state)
{
	struct model m = {34.0, 1000, 100, 0, 1, 0, 0, 0};
	struct tuner t;

	(void)state;
	init_max(&t, 1);
	drive(&t, &m);
	assert_int_equal(t.chosen, 1);
	assert_true(t.fallback);
	assert_string_equal(t.stopped_because,
			    "no level passes: at 1 stream database read average 34.0 ms (db1) > "
			    "18.0 ms (90 % of 20 ms)");
	assert_int_equal(t.nsteps, 1);
	autotune_release(&t);

	/* just over the margin (16.5 ms read > 13.5 ms with a 25 % margin) on
	 * 15 databases: the main test runs at 15 */
	{
		struct tune_settings s = settings(TUNE_GOAL_MAX, 15, 0);

		s.step = TUNE_STEP_DATABASE;
		s.databases = 15;
		s.margin = 0.25;
		m.base_ms = 16.5;
		autotune_init(&t, &s);
		drive(&t, &m);
		assert_int_equal(t.chosen, 15);
		assert_true(t.fallback);
		autotune_release(&t);
	}
}

/* Goal target: 100 IOPS per stream up to saturation at 40 streams; the
 * fewest streams reaching 2,550 IOPS are 26. */
static void test_target(void **state)
{
	struct model m = {2.0, 40, 100, 0, 1, 0, 0, 0};
	struct tune_settings s = settings(TUNE_GOAL_TARGET, 4, 2550);
	struct tuner t;

	(void)state;
	autotune_init(&t, &s);
	drive(&t, &m);
	assert_int_equal(t.chosen, 26);
	assert_non_null(strstr(t.stopped_because, "26 streams are the fewest"));
	autotune_release(&t);
	/* out of reach: saturation caps IOPS at 4,000 */
	s.target_iops = 5000;
	autotune_init(&t, &s);
	drive(&t, &m);
	assert_non_null(strstr(t.stopped_because, "out of reach"));
	assert_int_equal(t.chosen, 256); /* the highest passing count tried */
	autotune_release(&t);
	/* ... and with the plateau rule, as soon as IOPS flatten */
	s.plateau = 0.05;
	autotune_init(&t, &s);
	drive(&t, &m);
	assert_int_equal(t.chosen, 64);
	assert_true(t.plateau);
	assert_non_null(strstr(t.stopped_because,
			       "the target of 5000 IOPS is out of reach: IOPS flattened: 128 "
			       "streams give 4000 IOPS, +0.0 % over 64 streams' 4000"));
	autotune_release(&t);
	/* goal target on whole streams per database: 10 databases, the fewest
	 * reaching 2,550 IOPS are 30 */
	s = settings(TUNE_GOAL_TARGET, 10, 2550);
	s.step = TUNE_STEP_DATABASE;
	s.databases = 10;
	autotune_init(&t, &s);
	drive(&t, &m);
	assert_int_equal(t.chosen, 30);
	for (unsigned i = 0; i < t.nsteps; i++)
		assert_int_equal(t.steps[i].streams % 10, 0);
	autotune_release(&t);
}

/*
 * The transient: a latency that climbs 0.5 ms a sample for 25 samples, then
 * stays flat, ends its transient once the last 10 samples are flat (about 10
 * samples after it stops climbing); one that climbs for ever never settles:
 * after transient_max samples the level fails, and says so.
 */
static void test_transient(void **state)
{
	struct model m = {2.0, 40, 100, 0, 1, 0.5, 25, 0};
	struct tuner t;
	unsigned n;

	(void)state;
	init_max(&t, 4);
	assert_int_equal(feed_level(&t, &m, &n), TUNE_NEXT);
	assert_true(n >= 30 && n <= 36);
	assert_true(t.steps[0].settled);
	assert_true(t.steps[0].passed);
	assert_int_equal(t.steps[0].samples, n);
	autotune_release(&t);

	m.drift_n = 0; /* for ever */
	init_max(&t, 4);
	assert_int_equal(feed_level(&t, &m, &n), TUNE_DONE);
	assert_int_equal(n, 40); /* transient_max */
	assert_int_equal(t.nsteps, 1);
	assert_false(t.steps[0].settled);
	assert_false(t.steps[0].passed);
	assert_float_equal(t.steps[0].slope_ms[0], 0.5, 1e-9);
	assert_string_equal(t.steps[0].reason,
			    "latency did not settle in 40 samples: database read slope +0.500 ms "
			    "per sample over the last 10 (at most 0.100)");
	/* the only level: the fallback runs the main test there */
	assert_true(t.fallback);
	assert_int_equal(t.chosen, 4);
	autotune_release(&t);

	/* a slope of the log writes alone keeps the transient going too */
	init_max(&t, 4);
	for (int i = 0; i < 39; i++)
		assert_int_equal(autotune_sample(&t, 2.0, 1.0 + 0.2 * i), TUNE_MORE);
	assert_int_equal(autotune_sample(&t, 2.0, 9.0), TUNE_UNSETTLED);
	autotune_release(&t);
}

/* An I/O error fails the level; stopping early keeps the best level. */
static void test_errors_and_stop(void **state)
{
	struct tuner t;
	struct tune_window w = {.iops = 100, .read_avg_ms = 2, .log_avg_ms = 1};

	(void)state;
	init_max(&t, 2);
	/* a level: a flat slope window, then its window */
	for (int i = 0; i < 9; i++)
		assert_int_equal(autotune_sample(&t, 2, 1), TUNE_MORE);
	assert_int_equal(autotune_sample(&t, 2, 1), TUNE_SETTLED);
	assert_int_equal(autotune_window_feed(&t, &w), TUNE_NEXT); /* 2 passes */
	assert_int_equal(t.cur, 4);
	w.errors = 3;
	while (autotune_sample(&t, 2, 1) == TUNE_MORE)
		;
	assert_int_equal(autotune_window_feed(&t, &w), TUNE_NEXT); /* 2 pass, 4 fail: bisect to 3 */
	assert_int_equal(t.cur, 3);
	while (autotune_sample(&t, 2, 1) == TUNE_MORE)
		;
	assert_int_equal(autotune_window_feed(&t, &w), TUNE_DONE);
	assert_int_equal(t.chosen, 2);
	assert_non_null(strstr(t.steps[1].reason, "3 I/O error(s)"));
	assert_int_equal(t.steps[0].samples, 10);
	autotune_release(&t);

	init_max(&t, 2);
	w.errors = 0;
	while (autotune_sample(&t, 2, 1) == TUNE_MORE)
		;
	autotune_window_feed(&t, &w); /* 2 streams decided; 4 streams: a few samples */
	autotune_sample(&t, 2, 1);
	autotune_stop(&t, "the time bound is spent");
	assert_true(t.done);
	assert_int_equal(t.chosen, 2);
	assert_false(t.fallback);
	assert_string_equal(t.stopped_because,
			    "the time bound is spent; best level found: 2 streams");
	autotune_release(&t);

	/* stopped with only failing levels: the fallback */
	init_max(&t, 2);
	w.errors = 1;
	while (autotune_sample(&t, 2, 1) == TUNE_MORE)
		;
	assert_int_equal(autotune_window_feed(&t, &w), TUNE_DONE);
	assert_true(t.fallback);
	assert_int_equal(t.chosen, 2);
	autotune_release(&t);

	/* stopped before any level was decided: the first level */
	init_max(&t, 2);
	autotune_stop(&t, "interrupted");
	assert_int_equal(t.chosen, 2);
	assert_false(t.fallback);
	autotune_release(&t);
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
	struct tune_settings s = settings(TUNE_GOAL_IOPS, 4, 0);
	struct tuner t;
	struct tune_window w;
	unsigned n = 0;
	int ret;

	(void)state;
	autotune_init(&t, &s);
	do {
		struct model m = {2.0, 40, 100, 0, 1, 0, 0, 0};

		while (autotune_sample(&t, model_lat(&m, t.cur), 1) == TUNE_MORE)
			;
		model_window(&m, t.cur, &w);
		w.iops = t.cur < sizeof(iops) / sizeof(iops[0]) && iops[t.cur] ? iops[t.cur]
			 : t.cur > 64					       ? 3300.0 * 64 / t.cur
									       : 50.0 * t.cur;
		ret = autotune_window_feed(&t, &w);
		assert_true(ret >= 0);
		assert_true(++n < 1000);
	} while (ret != TUNE_DONE);
	assert_int_equal(t.chosen, 64);
	assert_non_null(strstr(t.stopped_because, "360 streams pass, 361 do not"));
	assert_non_null(strstr(t.stopped_because,
			       "the most IOPS within the thresholds: 64 streams (3300 IOPS)"));
	/* the same steps as goal max would take */
	assert_int_equal(t.steps[7].streams, 512);
	autotune_release(&t);

	/* IOPS within 3 % of the most count as a tie, which goes to the fewer
	 * streams; stopping early chooses the same way */
	s.min_streams = 2;
	autotune_init(&t, &s);
	w = (struct tune_window){.iops = 100, .read_avg_ms = 2, .log_avg_ms = 1};
	for (int lv = 0; lv < 3; lv++) {
		while (autotune_sample(&t, 2, 1) == TUNE_MORE)
			;
		w.iops = lv == 0 ? 100 : lv == 1 ? 102.5 : 104; /* 2, 4, 8 streams */
		assert_true(autotune_window_feed(&t, &w) >= 0);
	}
	assert_int_equal(t.nsteps, 3);
	autotune_stop(&t, "the time bound is spent");
	/* 100 is 3.8 % under 104, 102.5 is 1.4 % under: 4 streams */
	assert_int_equal(t.chosen, 4);
	assert_string_equal(t.stopped_because,
			    "the time bound is spent; best level found: 8 streams; the most IOPS "
			    "within the thresholds: 4 streams (102 IOPS)");
	autotune_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slope),		cmocka_unit_test(test_levels_per_database),
		cmocka_unit_test(test_max_exact),	cmocka_unit_test(test_max_noise),
		cmocka_unit_test(test_plateau),		cmocka_unit_test(test_never_passes),
		cmocka_unit_test(test_target),		cmocka_unit_test(test_transient),
		cmocka_unit_test(test_errors_and_stop), cmocka_unit_test(test_iops_peak),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
