/*
 * tune.c - the auto-tune driver (streams = auto): measures the levels the
 * search (autotune.c) asks for on freshly set-up workers, and records each
 * decided level.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>

#include "diskproof/store.h"

#include "autotune.h"
#include "run_internal.h"

/* Ends the level being measured: the workers drain and stop at interval k. */
static void tune_end_level(struct run *r, unsigned k)
{
	r->stop_time = engine_clock_now(&r->clock);
	atomic_store_explicit(&r->last, k, memory_order_release);
	atomic_store_explicit(&r->stop, true, memory_order_release);
}

/* Auto-tune: one interval of the level being measured. When a window is
 * complete, its worst database figures go to the search. */
void tune_interval(struct run *r, unsigned k)
{
	struct tune_window w = {0};
	double secs = (double)r->tune_win * (double)RUN_INTERVAL_NS / 1e9;
	uint64_t rd = 0, wr = 0;
	int ret;

	if (++r->tune_nint < r->tune_win)
		return;
	for (size_t d = 0; d < r->plan.nr_dbs; d++) {
		const struct class_stats *cs = &r->win_db[d * IO_CLASS_COUNT];
		double ra = hist_mean(&cs[IO_DB_READ].lat) / 1e6;
		double la = hist_mean(&cs[IO_LOG_WRITE].lat) / 1e6;

		rd += cs[IO_DB_READ].lat.count;
		wr += cs[IO_DB_WRITE].lat.count;
		if (ra >= w.read_avg_ms) {
			w.read_avg_ms = ra;
			snprintf(w.read_db, sizeof(w.read_db), "%s", r->plan.dbs[d].name);
		}
		if (la >= w.log_avg_ms) {
			w.log_avg_ms = la;
			snprintf(w.log_db, sizeof(w.log_db), "%s", r->plan.dbs[d].name);
		}
		if ((double)cs[IO_DB_READ].lat.max_ns / 1e6 > w.read_max_ms)
			w.read_max_ms = (double)cs[IO_DB_READ].lat.max_ns / 1e6;
		if ((double)cs[IO_LOG_WRITE].lat.max_ns / 1e6 > w.log_max_ms)
			w.log_max_ms = (double)cs[IO_LOG_WRITE].lat.max_ns / 1e6;
		for (unsigned c = 0; c < IO_CLASS_COUNT; c++)
			w.errors += cs[c].errors;
	}
	for (size_t i = 0; i < r->plan.nr_dbs * IO_CLASS_COUNT; i++)
		class_stats_reset(&r->win_db[i]);
	r->tune_nint = 0;
	w.iops = (double)(rd + wr) / secs;
	ret = tuner_window(r->tune, &w);
	r->tune_state = ret < 0 ? TUNE_DONE : ret;
	if (ret < 0)
		tuner_stop(r->tune, "out of memory");
	if (r->tune_state != TUNE_MORE)
		tune_end_level(r, k);
}

/* Auto-tune's time bound and window length (in intervals). */
static uint64_t tune_limit_ns(const struct profile *p)
{
	uint64_t l = p->tune_limit_ns ? p->tune_limit_ns : p->duration_ns / 5;

	if (!p->tune_limit_ns && l > 30ULL * 60 * NSEC_PER_SEC)
		l = 30ULL * 60 * NSEC_PER_SEC;
	return l;
}

static unsigned tune_window_intervals(const struct profile *p)
{
	uint64_t w = p->tune_window_ns ? p->tune_window_ns : tune_limit_ns(p) / 24;

	if (!p->tune_window_ns && w < 2 * NSEC_PER_SEC)
		w = 2 * NSEC_PER_SEC;
	if (!p->tune_window_ns && w > 30 * NSEC_PER_SEC)
		w = 30 * NSEC_PER_SEC;
	return (unsigned)((w + RUN_INTERVAL_NS - 1) / RUN_INTERVAL_NS);
}

static const char *tune_goal_name(enum tune_goal g)
{
	return g == TUNE_GOAL_TARGET ? "target" : g == TUNE_GOAL_IOPS ? "iops" : "max";
}

/*
 * streams = auto: measures levels (stream counts) as the search asks, each on
 * freshly set-up workers over the same files, until it is done, the time
 * bound is spent, or the run is stopped. Every decided level is stored (table
 * autotune_step and an event); r->streams is left at the chosen count (0: no
 * level passes).
 */
int run_autotune(struct run *r, struct tuner *t, struct strbuf *err)
{
	const struct profile *p = r->prof;
	const struct profile_thresholds *th = &p->thresholds;
	unsigned ndb = (unsigned)r->plan.nr_dbs, maxs;
	uint64_t limit = tune_limit_ns(p), used = 0;
	unsigned reported = 0;
	char msg[400];
	int ret = 0;

	maxs = p->tune_max_streams ? p->tune_max_streams : 128 * ndb;
	if (maxs > PROFILE_STREAMS_MAX)
		maxs = PROFILE_STREAMS_MAX;
	tuner_init(t,
		   p->tune_goal == PROFILE_TUNE_TARGET ? TUNE_GOAL_TARGET
		   : p->tune_goal == PROFILE_TUNE_IOPS ? TUNE_GOAL_IOPS
						       : TUNE_GOAL_MAX,
		   p->tune_margin_pct / 100.0, (double)p->target_iops, ndb, maxs,
		   (double)th->db_read_avg_ns / 1e6, (double)th->db_read_max_ns / 1e6,
		   (double)th->log_write_avg_ns / 1e6, (double)th->log_write_max_ns / 1e6);
	r->tune = t;
	r->tune_win = tune_window_intervals(p);
	snprintf(msg, sizeof(msg),
		 "auto-tune (goal %s): windows of %u s, at most %.0f s, %.0f %% under every "
		 "threshold",
		 tune_goal_name(t->goal), r->tune_win, (double)limit / 1e9, p->tune_margin_pct);
	run_event(r, "autotune", msg);
	while (!t->done) {
		bool drained = true;

		if (used + r->tune_win * RUN_INTERVAL_NS > limit) {
			tuner_stop(t, "the time bound is spent");
			break;
		}
		r->streams = t->cur;
		ret = run_setup_workers(r, err);
		if (ret)
			break;
		grid_init(&r->grid, engine_clock_now(&r->clock), 0, limit - used);
		atomic_store(&r->last, r->grid.last);
		atomic_store(&r->stop, false);
		r->stop_time = 0;
		r->collected = 0;
		r->tune_nint = 0;
		r->tune_state = TUNE_MORE;
		for (size_t i = 0; i < r->plan.nr_dbs * IO_CLASS_COUNT; i++)
			class_stats_reset(&r->win_db[i]);
		if (r->opt->cb.message) {
			snprintf(msg, sizeof(msg), "auto-tune: measuring %u streams", t->cur);
			r->opt->cb.message(r->opt->cb.arg, msg);
		}
		ret = r->virt ? run_virtual(r) : run_threads(r, err);
		used += (r->stop_time ? r->stop_time : r->grid.t0 + r->grid.duration) - r->grid.t0;
		if (r->abandoned)
			return ret;
		for (unsigned i = 0; i < r->nworkers; i++)
			if (r->workers[i].inflight || r->workers[i].fatal)
				drained = false;
		/* the next level's workers learn the generations from the journals */
		if (!r->hung_seen && run_write_journals(r, false, drained)) {
			r->env_failed = true;
			coord_stop(r, 0, r->journal_err.buf);
		}
		for (size_t g = 0; r->fresh_from && g < r->plan.nr_dbs; g++)
			r->fresh_from[g] = r->plan.dbs[g].nr_pages;
		for (; reported < t->nsteps; reported++) {
			const struct tune_step *st = &t->steps[reported];

			snprintf(msg, sizeof(msg),
				 "auto-tune: %u stream%s: %.0f IOPS, database read average %.2f ms "
				 "(%s), log write average %.2f ms: %s: %s",
				 st->streams, st->streams == 1 ? "" : "s", st->w.iops,
				 st->w.read_avg_ms, st->w.read_db, st->w.log_avg_ms,
				 st->passed ? "pass" : "fail", st->reason);
			run_event(r, "autotune", msg);
			if (r->store && !r->store_failed &&
			    store_autotune_step_add(r->store, r->run_id, reported + 1, st->streams,
						    st->w.iops, st->w.read_avg_ms, st->w.log_avg_ms,
						    st->passed, st->reason, &r->store_err))
				coord_store_error(r, -EIO);
		}
		if (r->stop_signal || r->stop_reason[0] || r->env_failed || !drained) {
			tuner_stop(t, r->stop_signal ? "interrupted" : "the run stopped");
			break;
		}
		if (!t->done && r->tune_state == TUNE_MORE)
			tuner_stop(t, "the time bound is spent");
		if (!t->done)
			run_release_workers(r);
	}
	r->tune = NULL;
	r->streams = t->chosen;
	snprintf(msg, sizeof(msg), "auto-tune chose %u streams in %.0f s (goal %s): %s", t->chosen,
		 (double)used / 1e9, tune_goal_name(t->goal), t->stopped_because);
	if (!t->chosen)
		snprintf(msg, sizeof(msg), "auto-tune found no passing level in %.0f s: %s",
			 (double)used / 1e9, t->stopped_because);
	run_event(r, "autotune", msg);
	{
		char n[16];

		snprintf(n, sizeof(n), "%u", t->chosen);
		/* the search's outcome travels with the run's facts (and shows in
		 * a comparison when it differs) */
		env_fact(r, "autotune_goal", tune_goal_name(t->goal));
		env_fact(r, "autotune_chosen", n);
		env_fact(r, "autotune_stopped_because", t->stopped_because);
	}
	return ret;
}
