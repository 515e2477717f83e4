/* SPDX-License-Identifier: MIT */
/*
 * autotune.c - the auto-tune search (see autotune.h).
 */
#include <assert.h>
#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diskproof/eval.h"

#include "autotune.h"

void autotune_slope_reset(struct tune_slope *s)
{
	s->n = s->next = 0;
}

void autotune_slope_push(struct tune_slope *s, unsigned window, double y)
{
	if (window > TUNE_SLOPE_WINDOW_MAX)
		window = TUNE_SLOPE_WINDOW_MAX;
	if (window < 2)
		window = 2;
	s->y[s->next] = y;
	s->next = (s->next + 1) % window;
	if (s->n < window)
		s->n++;
}

/*
 * Least squares over x = 0 .. n-1 (oldest first): slope = sum((x - xm) y) /
 * sum((x - xm)^2), with sum((x - xm)^2) = n (n^2 - 1) / 12. The ring holds
 * the oldest sample at next once full, at 0 before.
 */
double autotune_slope_get(const struct tune_slope *s, unsigned window)
{
	double xm, num = 0, den;
	unsigned start;

	if (window > TUNE_SLOPE_WINDOW_MAX)
		window = TUNE_SLOPE_WINDOW_MAX;
	if (window < 2)
		window = 2;
	if (s->n < 2)
		return 0;
	start = s->n < window ? 0 : s->next;
	xm = (s->n - 1) / 2.0;
	for (unsigned i = 0; i < s->n; i++)
		num += (i - xm) * s->y[(start + i) % window];
	den = (double)s->n * ((double)s->n * s->n - 1) / 12.0;
	return num / den;
}

static unsigned round_down(unsigned n, unsigned unit)
{
	return n / unit * unit;
}

void autotune_init(struct tuner *t, const struct tune_settings *set)
{
	struct tune_settings *s = &t->set;

	memset(t, 0, sizeof(*t));
	*s = *set;
	t->unit = s->step == TUNE_STEP_DATABASE && s->databases ? s->databases : 1;
	if (s->min_streams < t->unit)
		s->min_streams = t->unit;
	s->min_streams = round_down(s->min_streams + t->unit - 1, t->unit);
	s->max_streams = round_down(s->max_streams, t->unit);
	if (s->max_streams < s->min_streams)
		s->max_streams = s->min_streams;
	if (s->slope_window < 2)
		s->slope_window = 2;
	if (s->slope_window > TUNE_SLOPE_WINDOW_MAX)
		s->slope_window = TUNE_SLOPE_WINDOW_MAX;
	if (s->transient_max < s->slope_window)
		s->transient_max = s->slope_window;
	t->cur = s->min_streams;
}

unsigned autotune_up(const struct tuner *t, unsigned n)
{
	return n * 2 > t->set.max_streams ? t->set.max_streams : n * 2;
}

unsigned autotune_mid(const struct tuner *t, unsigned lo, unsigned hi)
{
	return lo + (hi - lo) / t->unit / 2 * t->unit;
}

static void level_reset(struct tuner *t)
{
	t->measuring = false;
	t->nsamp = 0;
	autotune_slope_reset(&t->slope[0]);
	autotune_slope_reset(&t->slope[1]);
}

int autotune_sample(struct tuner *t, double read_ms, double log_ms)
{
	const struct tune_settings *s = &t->set;

	if (t->done)
		return TUNE_DONE;
	if (t->measuring)
		return TUNE_SETTLED;
	if (t->unsettled)
		return TUNE_UNSETTLED;
	t->nsamp++;
	autotune_slope_push(&t->slope[0], s->slope_window, read_ms);
	autotune_slope_push(&t->slope[1], s->slope_window, log_ms);
	if (t->slope[0].n >= s->slope_window &&
	    fabs(autotune_slope_get(&t->slope[0], s->slope_window)) <= s->slope_max_ms &&
	    fabs(autotune_slope_get(&t->slope[1], s->slope_window)) <= s->slope_max_ms) {
		t->measuring = true;
		return TUNE_SETTLED;
	}
	if (t->nsamp >= s->transient_max) {
		t->unsettled = true;
		return TUNE_UNSETTLED;
	}
	return TUNE_MORE;
}

/* A window's worst figure of class c: its average, or its maximum. */
static double window_figure(const struct tune_window *w, enum io_class c, bool max)
{
	if (c == IO_DB_READ)
		return max ? w->read_max_ms : w->read_avg_ms;
	assert(c == IO_LOG_WRITE); /* the classes eval judges */
	return max ? w->log_max_ms : w->log_avg_ms;
}

/* Why a window missed class c's average or maximum threshold thr_ms (ms,
 * the margin k applied to it). */
static void window_missed(const struct tune_window *w, enum io_class c, bool max, double k,
			  double thr_ms, char *why, size_t len)
{
	const char *what = c == IO_DB_READ ? "database read" : "log write";
	double m = window_figure(w, c, max);

	if (!max)
		snprintf(why, len, "%s average %.1f ms (%s) > %.1f ms (%.0f %% of %.0f ms)", what,
			 m, c == IO_DB_READ ? w->read_db : w->log_db, k * thr_ms, k * 100, thr_ms);
	else
		snprintf(why, len, "%s maximum%s %.1f ms > %.1f ms", what,
			 w->max_sampled ? " sample average" : "", m, k * thr_ms);
}

/* Whether one window passes every latency and error criterion with the
 * margin; why not in why (the first criterion missed, with its margin).
 * The latency criteria are eval's (eval_class_criteria, eval_class_limits,
 * eval_passes): the averages of every class first, then the maxima. */
static bool window_passes(const struct tuner *t, const struct tune_window *w, char *why, size_t len)
{
	const struct tune_settings *s = &t->set;
	double k = 1.0 - s->margin;
	size_t n;
	const struct eval_class_criteria *crit = eval_class_criteria(&n);

	if (w->errors) {
		snprintf(why, len, "%llu I/O error(s)", (unsigned long long)w->errors);
		return false;
	}
	for (int max = 0; max < 2; max++) {
		for (size_t i = 0; i < n; i++) {
			struct eval_class_limits l = eval_class_limits(&s->thresholds, crit[i].cls);
			double thr_ms = (double)(max ? l.max_ns : l.avg_ns) / 1e6;

			if (eval_passes(VERDICT_LE, k * thr_ms, window_figure(w, crit[i].cls, max)))
				continue;
			window_missed(w, crit[i].cls, max, k, thr_ms, why, len);
			return false;
		}
	}
	snprintf(why, len,
		 "database read average %.1f ms, log write average %.1f ms: within %.0f %% "
		 "of the thresholds",
		 w->read_avg_ms, w->log_avg_ms, k * 100);
	return true;
}

static int add_step(struct tuner *t, const struct tune_step *s)
{
	if (t->nsteps == t->cap) {
		unsigned cap = t->cap ? 2 * t->cap : 16;
		struct tune_step *n = realloc(t->steps, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		t->steps = n;
		t->cap = cap;
	}
	t->steps[t->nsteps++] = *s;
	return 0;
}

static const struct tune_step *step_at(const struct tuner *t, unsigned streams)
{
	for (unsigned i = t->nsteps; i--;)
		if (t->steps[i].streams == streams)
			return &t->steps[i];
	return NULL;
}

static void finish(struct tuner *t, unsigned chosen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void finish(struct tuner *t, unsigned chosen, const char *fmt, ...)
{
	va_list ap;

	t->chosen = chosen;
	t->done = true;
	va_start(ap, fmt);
	vsnprintf(t->stopped_because, sizeof(t->stopped_because), fmt, ap);
	va_end(ap);
}

/* No level passed: the fewest streams tried, so that the main test still
 * runs and is judged on the real thresholds. */
static void finish_fallback(struct tuner *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void finish_fallback(struct tuner *t, const char *fmt, ...)
{
	unsigned fewest = 0;
	va_list ap;

	for (unsigned i = 0; i < t->nsteps; i++)
		if (!fewest || t->steps[i].streams < fewest)
			fewest = t->steps[i].streams;
	t->chosen = fewest ? fewest : t->set.min_streams;
	t->fallback = true;
	t->done = true;
	va_start(ap, fmt);
	vsnprintf(t->stopped_because, sizeof(t->stopped_because), fmt, ap);
	va_end(ap);
}

/* Goal iops, once the search is over: of the levels that passed, the fewest
 * streams within TUNE_IOPS_TIE of the most IOPS (past saturation the IOPS of
 * deeper levels differ by noise, and more streams only add latency); says
 * so when that is not the count the search ended on. */
static void choose_iops(struct tuner *t)
{
	const struct tune_step *best = NULL;
	double most = 0;
	size_t len;

	if (t->set.goal != TUNE_GOAL_IOPS || !t->chosen || t->fallback)
		return;
	for (unsigned i = 0; i < t->nsteps; i++)
		if (t->steps[i].passed && t->steps[i].w.iops > most)
			most = t->steps[i].w.iops;
	for (unsigned i = 0; i < t->nsteps; i++) {
		const struct tune_step *s = &t->steps[i];

		if (s->passed && s->w.iops >= (1.0 - TUNE_IOPS_TIE) * most &&
		    (!best || s->streams < best->streams))
			best = s;
	}
	if (!best || best->streams == t->chosen)
		return;
	len = strlen(t->stopped_because);
	snprintf(t->stopped_because + len, sizeof(t->stopped_because) - len,
		 "; the most IOPS within the thresholds: %u streams (%.0f IOPS)", best->streams,
		 best->w.iops);
	t->chosen = best->streams;
}

/* The plateau rule: level s passed above the passing level below (lower),
 * yet raised transactional IOPS by less than the plateau share. */
static bool flat(const struct tuner *t, const struct tune_step *s, const struct tune_step *lower)
{
	return t->set.plateau > 0 && lower && lower->passed && s->streams > lower->streams &&
	       s->w.iops < (1.0 + t->set.plateau) * lower->w.iops;
}

static void finish_plateau(struct tuner *t, const struct tune_step *s,
			   const struct tune_step *lower, const char *lead)
{
	double gain = lower->w.iops > 0 ? 100.0 * (s->w.iops / lower->w.iops - 1.0) : 0;

	finish(t, lower->streams,
	       "%sIOPS flattened: %u streams give %.0f IOPS, %+.1f %% over %u streams' %.0f "
	       "(less than the %.0f %% plateau): %u streams kept",
	       lead, s->streams, s->w.iops, gain, lower->streams, lower->w.iops,
	       100.0 * t->set.plateau, lower->streams);
	t->plateau = true;
}

/* Goal target: the next count after level s. */
static int next_target(struct tuner *t, const struct tune_step *s)
{
	const struct tune_settings *set = &t->set;
	bool reached = s->passed && s->w.iops >= set->target_iops;
	const struct tune_step *lower = t->best_pass ? step_at(t, t->best_pass) : NULL;
	unsigned n = s->streams, base;

	if (reached)
		t->hi = n; /* the fewest streams known to reach the target */
	else
		t->lo = n; /* known not to */
	if (!t->hi && !s->passed) {
		/* more streams only load a device that fails already */
		if (!t->best_pass) {
			finish_fallback(t, "no level passes: at %u stream%s %s", n,
					n == 1 ? "" : "s", s->reason);
			return TUNE_DONE;
		}
		finish(t, t->best_pass,
		       "the target of %.0f IOPS is out of reach within the thresholds: at %u "
		       "streams %s (%.0f IOPS)",
		       set->target_iops, n, s->reason, s->w.iops);
		return TUNE_DONE;
	}
	if (!t->hi && flat(t, s, lower)) {
		char lead[96];

		snprintf(lead, sizeof(lead),
			 "the target of %.0f IOPS is out of reach: ", set->target_iops);
		finish_plateau(t, s, lower, lead);
		return TUNE_DONE;
	}
	if (s->passed && n > t->best_pass)
		t->best_pass = n;
	if (!t->hi) {
		if (n >= set->max_streams) {
			finish(t, t->best_pass,
			       "the target of %.0f IOPS is out of reach: %u streams (the most "
			       "allowed) give %.0f IOPS",
			       set->target_iops, n, s->w.iops);
			return TUNE_DONE;
		}
		t->cur = autotune_up(t, n);
		return TUNE_NEXT;
	}
	base = t->lo ? t->lo : set->min_streams - t->unit;
	if (t->hi <= base + t->unit) {
		finish(t, t->hi,
		       "%u streams are the fewest that reach %.0f IOPS within the thresholds",
		       t->hi, set->target_iops);
		return TUNE_DONE;
	}
	t->cur = autotune_mid(t, base, t->hi);
	return TUNE_NEXT;
}

/* The next count after level s was decided. */
static int next_level(struct tuner *t, const struct tune_step *s)
{
	const struct tune_step *lower = t->lo ? step_at(t, t->lo) : NULL;
	unsigned n = s->streams;

	if (t->set.goal == TUNE_GOAL_TARGET)
		return next_target(t, s);
	if (s->passed && flat(t, s, lower)) {
		finish_plateau(t, s, lower, "");
		choose_iops(t);
		return TUNE_DONE;
	}
	if (s->passed) {
		t->lo = n;
		if (n > t->best_pass)
			t->best_pass = n;
	} else {
		t->hi = n;
	}
	if (!t->lo) {
		finish_fallback(t, "no level passes: at %u stream%s %s", n, n == 1 ? "" : "s",
				s->reason);
		return TUNE_DONE;
	}
	if (!t->hi) {
		if (n >= t->set.max_streams) {
			finish(t, n, "%u streams (the most allowed) still pass", n);
			choose_iops(t);
			return TUNE_DONE;
		}
		t->cur = autotune_up(t, n);
		return TUNE_NEXT;
	}
	if (t->hi - t->lo <= t->unit) {
		const struct tune_step *f = step_at(t, t->hi);

		finish(t, t->lo, "%u streams pass, %u do not (%s)", t->lo, t->hi,
		       f ? f->reason : "failed");
		choose_iops(t);
		return TUNE_DONE;
	}
	t->cur = autotune_mid(t, t->lo, t->hi);
	return TUNE_NEXT;
}

int autotune_window_feed(struct tuner *t, const struct tune_window *w)
{
	const struct tune_settings *set = &t->set;
	struct tune_step s = {0};
	char why[180];

	if (t->done)
		return TUNE_DONE;
	s.streams = t->cur;
	s.samples = t->nsamp;
	s.w = *w;
	s.settled = !t->unsettled;
	s.slope_ms[0] = autotune_slope_get(&t->slope[0], set->slope_window);
	s.slope_ms[1] = autotune_slope_get(&t->slope[1], set->slope_window);
	if (!s.settled) {
		bool rd = fabs(s.slope_ms[0]) > set->slope_max_ms;

		snprintf(s.reason, sizeof(s.reason),
			 "latency did not settle in %u samples: %s slope %+.3f ms per sample "
			 "over the last %u (at most %.3f)",
			 s.samples, rd ? "database read" : "log write", s.slope_ms[rd ? 0 : 1],
			 set->slope_window, set->slope_max_ms);
	} else {
		s.passed = window_passes(t, w, why, sizeof(why));
		snprintf(s.reason, sizeof(s.reason), "%s", why);
	}
	level_reset(t);
	t->unsettled = false;
	if (add_step(t, &s))
		return -ENOMEM;
	return next_level(t, &t->steps[t->nsteps - 1]);
}

void autotune_stop(struct tuner *t, const char *why)
{
	unsigned best = 0;

	if (t->done)
		return;
	for (unsigned i = 0; i < t->nsteps; i++) {
		const struct tune_step *s = &t->steps[i];
		bool ok = s->passed &&
			  (t->set.goal != TUNE_GOAL_TARGET || s->w.iops >= t->set.target_iops);

		if (!ok)
			continue;
		if (!best ||
		    (t->set.goal != TUNE_GOAL_TARGET ? s->streams > best : s->streams < best))
			best = s->streams;
	}
	if (!best && t->set.goal == TUNE_GOAL_TARGET)
		best = t->best_pass; /* the highest passing, below the target */
	if (!best && !t->nsteps) {
		/* nothing decided yet: the main test runs at the first level and
		 * its verdict says whether that holds */
		finish(t, t->set.min_streams,
		       "%s before any level was decided; the main test runs at the first level "
		       "(%u streams)",
		       why, t->set.min_streams);
		return;
	}
	if (!best) {
		finish_fallback(t, "%s; no level passed", why);
		return;
	}
	finish(t, best, "%s; best level found: %u streams", why, best);
	choose_iops(t);
}

const struct tune_step *autotune_chosen_step(const struct tuner *t)
{
	return t->done && t->chosen ? step_at(t, t->chosen) : NULL;
}

void autotune_release(struct tuner *t)
{
	free(t->steps);
	t->steps = NULL;
	t->nsteps = t->cap = 0;
}
