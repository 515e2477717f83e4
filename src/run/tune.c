/* SPDX-License-Identifier: MIT */
/*
 * tune.c - the auto-tune driver (streams = auto): measures the levels the
 * search (autotune.c) asks for on freshly set-up workers, and records each
 * decided level.
 */
#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "diskproof/store.h"

#include "autotune.h"
#include "run_internal.h"

/* Ends the level being measured: the workers drain and stop at interval k. */
static void tune_end_level(struct run *r, unsigned k)
{
	r->ctl.time = engine_clock_now(&r->clock);
	atomic_store_explicit(&r->ctl.last, k, memory_order_release);
	atomic_store_explicit(&r->ctl.stop, true, memory_order_release);
}

/* The highest sample average of database d's class c in the window (its
 * samples closed), 0 when no sample had any. */
static double tune_sample_max(const struct run *r, size_t d, unsigned c)
{
	double m = r->smp.acc[(1 + r->plan.nr_vols + d) * IO_CLASS_COUNT + c].max_ms;

	return isnan(m) ? 0 : m;
}

/*
 * The worst database figures of the level's window so far (win_db, over
 * secs seconds); the window restarts. The maxima are judged on the basis the
 * main test is (max_basis): with sample, the highest average of a
 * sample_interval of the window (a shorter window is one sample), as
 * samples.c keeps them; with io, the slowest single I/O.
 */
static void tune_window_build(struct run *r, double secs, struct tune_window *w)
{
	uint64_t rd = 0, wr = 0;

	memset(w, 0, sizeof(*w));
	w->max_sampled = r->prof->thresholds.max_basis == PROFILE_MAX_SAMPLE && r->smp.acc;
	if (w->max_sampled)
		run_samples_interval(r, true); /* the window's last sample */
	for (size_t d = 0; d < r->plan.nr_dbs; d++) {
		const struct class_stats *cs = &r->coord.win_db[d * IO_CLASS_COUNT];
		double ra = hist_mean(&cs[IO_DB_READ].lat) / 1e6;
		double la = hist_mean(&cs[IO_LOG_WRITE].lat) / 1e6;

		rd += cs[IO_DB_READ].lat.count;
		wr += cs[IO_DB_WRITE].lat.count;
		if (ra >= w->read_avg_ms) {
			w->read_avg_ms = ra;
			snprintf(w->read_db, sizeof(w->read_db), "%s", r->plan.dbs[d].name);
		}
		if (la >= w->log_avg_ms) {
			w->log_avg_ms = la;
			snprintf(w->log_db, sizeof(w->log_db), "%s", r->plan.dbs[d].name);
		}
		double rm = w->max_sampled ? tune_sample_max(r, d, IO_DB_READ)
					   : (double)cs[IO_DB_READ].lat.max_ns / 1e6;
		double lm = w->max_sampled ? tune_sample_max(r, d, IO_LOG_WRITE)
					   : (double)cs[IO_LOG_WRITE].lat.max_ns / 1e6;

		if (rm > w->read_max_ms)
			w->read_max_ms = rm;
		if (lm > w->log_max_ms)
			w->log_max_ms = lm;
		for (unsigned c = 0; c < IO_CLASS_COUNT; c++)
			w->errors += cs[c].errors;
	}
	for (size_t i = 0; i < r->plan.nr_dbs * IO_CLASS_COUNT; i++)
		stats_class_reset(&r->coord.win_db[i]);
	run_samples_reset(r);
	w->iops = secs > 0 ? (double)(rd + wr) / secs : 0;
}

/*
 * Auto-tune: one interval of the level being measured. While the level's
 * transient lasts, the interval's database read and log write averages (all
 * databases) are a sample of the latency slope; once it is flat, one window
 * is measured and its worst database figures go to the search. A level that
 * never settles goes to the search with its figures since it started.
 */
void tune_interval(struct run *r, unsigned k)
{
	struct tuner *t = r->tune.tuner;
	struct tune_window w;
	int ret;

	r->tune.nint++;
	if (t->measuring && r->tune.nint < r->tune.win)
		run_samples_interval(r, false); /* a sample of the window may end */
	if (!t->measuring) {
		const struct class_stats *rd = &r->coord.iv_run[IO_DB_READ];
		const struct class_stats *lg = &r->coord.iv_run[IO_LOG_WRITE];

		if (!rd->lat.count || !lg->lat.count)
			return; /* no sample */
		ret = autotune_sample(t, hist_mean(&rd->lat) / 1e6, hist_mean(&lg->lat) / 1e6);
		if (ret == TUNE_SETTLED) {
			/* the window starts now */
			for (size_t i = 0; i < r->plan.nr_dbs * IO_CLASS_COUNT; i++)
				stats_class_reset(&r->coord.win_db[i]);
			run_samples_reset(r);
			r->tune.nint = 0;
			return;
		}
		if (ret != TUNE_UNSETTLED)
			return;
	} else if (r->tune.nint < r->tune.win) {
		return;
	}
	tune_window_build(r, (double)r->tune.nint * (double)RUN_INTERVAL_NS / 1e9, &w);
	r->tune.nint = 0;
	ret = autotune_window_feed(t, &w);
	r->tune.state = ret < 0 ? TUNE_DONE : ret;
	if (ret < 0)
		autotune_stop(t, "out of memory");
	if (r->tune.state != TUNE_MORE)
		tune_end_level(r, k);
}

/* profile_tune_*() count auto-tune's time in samples of 1 s: the run's
 * intervals. */
_Static_assert(RUN_INTERVAL_NS == NSEC_PER_SEC, "auto-tune's samples are the run's intervals");

/* default: 4 x the slope window; never shorter than it */
static unsigned tune_transient_max(const struct profile *p, unsigned slope_window)
{
	uint64_t n = p->tune_transient_max_ns
			     ? (p->tune_transient_max_ns + RUN_INTERVAL_NS - 1) / RUN_INTERVAL_NS
			     : 4ULL * slope_window;

	return n < slope_window ? slope_window : n > 1000000 ? 1000000 : (unsigned)n;
}

static const char *tune_goal_name(enum tune_goal g)
{
	return g == TUNE_GOAL_TARGET ? "target" : g == TUNE_GOAL_IOPS ? "iops" : "max";
}

static void tune_settings_fill(const struct run *r, struct tune_settings *s)
{
	const struct profile *p = r->prof;
	const struct profile_thresholds *th = &p->thresholds;
	unsigned ndb = (unsigned)r->plan.nr_dbs, maxs;

	maxs = p->tune_max_streams ? p->tune_max_streams : 128 * ndb;
	if (maxs > PROFILE_STREAMS_MAX)
		maxs = PROFILE_STREAMS_MAX;
	*s = (struct tune_settings){
		.goal = p->tune_goal == PROFILE_TUNE_TARGET ? TUNE_GOAL_TARGET
			: p->tune_goal == PROFILE_TUNE_IOPS ? TUNE_GOAL_IOPS
							    : TUNE_GOAL_MAX,
		.step = p->tune_step == PROFILE_TUNE_STEP_STREAM ? TUNE_STEP_STREAM
								 : TUNE_STEP_DATABASE,
		.databases = ndb,
		.margin = p->tune_margin_pct / 100.0,
		.plateau = p->tune_plateau_pct / 100.0,
		.target_iops = (double)p->target_iops,
		.min_streams = ndb,
		.max_streams = maxs,
		.thresholds = *th,
		.slope_window = profile_tune_slope_window(p),
		.slope_max_ms = (double)p->tune_slope_max_ns / 1e6,
	};
	s->transient_max = tune_transient_max(p, s->slope_window);
}

/* After a level (its drain included): the run clock goes on from where the
 * level left it, the next level's or the main test's grid after it. */
static void tune_clock_advance(struct run *r)
{
	uint64_t now = engine_clock_now(&r->clock);

	if (r->grid.interval && now > r->grid.t0)
		r->tune.ev_base_ns += now - r->grid.t0;
	r->grid.t0 = now;
}

/* The levels decided since the last call: an event each, stamped on the run
 * clock as the level ends, and a row of table autotune_step. */
static void tune_report_steps(struct run *r, const struct tuner *t, unsigned *reported)
{
	char msg[560];

	for (; *reported < t->nsteps; (*reported)++) {
		const struct tune_step *st = &t->steps[*reported];
		char settled[64] = "";

		if (st->settled)
			snprintf(settled, sizeof(settled), " (settled after %u samples)",
				 st->samples);
		snprintf(msg, sizeof(msg),
			 "auto-tune: %u stream%s%s: %.0f IOPS, database read average %.2f ms (%s), "
			 "log write average %.2f ms: %s: %s",
			 st->streams, st->streams == 1 ? "" : "s", settled, st->w.iops,
			 st->w.read_avg_ms, st->w.read_db, st->w.log_avg_ms,
			 st->passed ? "pass" : "fail", st->reason);
		run_event(r, "autotune_step", msg);
		if (r->store.st && !r->store.failed &&
		    store_autotune_step_add(r->store.st, r->store.run_id, *reported + 1,
					    st->streams, st->w.iops, st->w.read_avg_ms,
					    st->w.log_avg_ms, st->passed, st->reason,
					    &r->store.err))
			coord_store_error(r, -EIO);
	}
}

/* The slope of step st its verdict judges, and whose it is: for a level that
 * never settled, the one its reason names (database reads' when above the
 * limit, else log writes', as autotune.c says it); for a settled one, the
 * steeper of the two. */
static double tune_step_slope(const struct tune_step *st, double max_ms, const char **what)
{
	bool rd = st->settled ? fabs(st->slope_ms[0]) >= fabs(st->slope_ms[1])
			      : fabs(st->slope_ms[0]) > max_ms;

	*what = rd ? "database read" : "log write";
	return st->slope_ms[rd ? 0 : 1];
}

/* The search's outcome: the last auto-tune event, and the run's facts (so
 * that it shows in a comparison when it differs); the level the main test
 * runs at, for its verdict (r->tune.settle). main: the main test runs. When
 * no level passed, the note says why the one it runs at did not: it never
 * settled, or it settled and missed the margin. */
static void tune_report_outcome(struct run *r, const struct tuner *t, uint64_t used, bool main)
{
	const struct tune_step *st = autotune_chosen_step(t);
	char msg[800], n[16], note[240] = "";
	const char *what = "";
	double slope = st ? tune_step_slope(st, t->set.slope_max_ms, &what) : 0;

	r->tune.settle_known = st != NULL;
	if (st)
		r->tune.settle = (struct eval_autotune){fabs(slope), t->set.slope_max_ms};
	if (t->fallback && main && st && !st->settled)
		snprintf(note, sizeof(note),
			 "no level passed auto-tune: %u streams never settled (%s latency slope "
			 "%+.3f ms per sample, limit %.3f); the main test ran at %u streams",
			 t->chosen, what, slope, t->set.slope_max_ms, t->chosen);
	else if (t->fallback && main)
		snprintf(note, sizeof(note),
			 "no level passed auto-tune's %.0f %% margin; the main test ran at %u "
			 "streams",
			 r->prof->tune_margin_pct, t->chosen);
	if (note[0])
		snprintf(msg, sizeof(msg), "%s (auto-tune, %.0f s, goal %s: %s)", note,
			 (double)used / 1e9, tune_goal_name(t->set.goal), t->stopped_because);
	else
		snprintf(msg, sizeof(msg), "auto-tune chose %u streams in %.0f s (goal %s): %s",
			 t->chosen, (double)used / 1e9, tune_goal_name(t->set.goal),
			 t->stopped_because);
	run_event(r, "autotune", msg);
	snprintf(n, sizeof(n), "%u", t->chosen);
	run_env_fact(r, "autotune_goal", tune_goal_name(t->set.goal));
	run_env_fact(r, "autotune_chosen", n);
	run_env_fact(r, "autotune_stopped_because", t->stopped_because);
	if (note[0])
		run_env_fact(r, "autotune_note", note);
}

/*
 * streams = auto: measures levels (stream counts) as the search asks, each on
 * freshly set-up workers over the same files, until it is done, the time
 * bound is spent, or the run is stopped. Every decided level is stored (table
 * autotune_step and an event); r->streams is left at the chosen count (the
 * fewest streams tried when none passed: the main test runs there all the
 * same). Events are stamped on the run clock, which starts with the tuning.
 */
int run_autotune(struct run *r, struct tuner *t, struct strbuf *err)
{
	const struct profile *p = r->prof;
	uint64_t limit = profile_tune_limit_ns(p), used = 0;
	struct tune_settings set;
	unsigned reported = 0;
	char msg[400];
	int ret = 0;

	r->tune.ev_base_ns = 0;
	r->tune.win = profile_tune_window_samples(p);
	tune_settings_fill(r, &set);
	autotune_init(t, &set);
	r->tune.tuner = t;
	snprintf(msg, sizeof(msg),
		 "auto-tune (goal %s, %s): levels of %u stream%s, transient until the latency "
		 "slope over %u samples is at most %.2f ms per sample (at most %u s), then "
		 "windows of %u s; at most %.0f s, %.0f %% under every threshold, %.0f %% "
		 "plateau",
		 tune_goal_name(t->set.goal),
		 t->set.step == TUNE_STEP_DATABASE ? "whole streams per database" : "any count",
		 t->unit, t->unit == 1 ? "" : "s", t->set.slope_window, t->set.slope_max_ms,
		 t->set.transient_max, r->tune.win, (double)limit / 1e9, p->tune_margin_pct,
		 p->tune_plateau_pct);
	run_event(r, "autotune", msg);
	while (!t->done) {
		bool drained;

		if (used + profile_tune_level_min_ns(p) > limit) {
			autotune_stop(t, "the time bound is spent");
			break;
		}
		r->streams = t->cur;
		ret = run_setup_workers(r, err);
		if (ret)
			break;
		/* --start-at: the first level's workers are ready (start.c) */
		if (run_start_wait(r)) {
			autotune_stop(t, r->ctl.signal ? "interrupted" : "the run stopped");
			break;
		}
		run_load_begin(r);
		grid_init(&r->grid, engine_clock_now(&r->clock), 0, limit - used);
		run_clock_record(r);
		atomic_store(&r->ctl.last, r->grid.last);
		atomic_store(&r->ctl.stop, false);
		r->ctl.time = 0;
		r->coord.collected = 0;
		r->tune.nint = 0;
		r->tune.state = TUNE_MORE;
		for (size_t i = 0; i < r->plan.nr_dbs * IO_CLASS_COUNT; i++)
			stats_class_reset(&r->coord.win_db[i]);
		run_samples_reset(r);
		if (r->opt->cb.message) {
			snprintf(msg, sizeof(msg), "auto-tune: measuring %u streams", t->cur);
			r->opt->cb.message(r->opt->cb.arg, msg);
		}
		ret = r->virt ? run_virtual(r) : run_threads(r, err);
		used += (r->ctl.time ? r->ctl.time : r->grid.t0 + r->grid.duration) - r->grid.t0;
		if (r->ctl.abandoned)
			return ret;
		drained = run_workers_drained(r);
		/* the next level's workers learn the generations from the journals */
		if (!r->ctl.hung_seen && run_write_journals(r, false, drained)) {
			r->ctl.env_failed = true;
			coord_stop(r, 0, r->jnl.err.buf);
		}
		for (size_t g = 0; r->fresh_from && g < r->plan.nr_dbs; g++)
			r->fresh_from[g] = r->plan.dbs[g].nr_pages;
		tune_report_steps(r, t, &reported);
		tune_clock_advance(r);
		if (r->ctl.signal || r->ctl.reason[0] || r->ctl.env_failed || !drained) {
			autotune_stop(t, r->ctl.signal ? "interrupted" : "the run stopped");
			break;
		}
		if (!t->done && r->tune.state == TUNE_MORE)
			autotune_stop(t, "the time bound is spent");
		if (!t->done)
			run_release_workers(r);
	}
	r->tune.tuner = NULL;
	r->streams = t->chosen;

	tune_report_outcome(r, t, used,
			    !ret && !r->ctl.signal && !r->ctl.reason[0] && !r->ctl.env_failed);
	return ret;
}
