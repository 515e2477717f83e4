/*
 * autotune.c - the auto-tune search (see autotune.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "autotune.h"

void tuner_init(struct tuner *t, enum tune_goal goal, double margin, double target_iops,
		unsigned min_streams, unsigned max_streams, double read_avg_ms, double read_max_ms,
		double log_avg_ms, double log_max_ms)
{
	memset(t, 0, sizeof(*t));
	t->goal = goal;
	t->margin = margin;
	t->target_iops = target_iops;
	t->min_streams = min_streams ? min_streams : 1;
	t->max_streams = max_streams < t->min_streams ? t->min_streams : max_streams;
	t->read_avg_ms = read_avg_ms;
	t->read_max_ms = read_max_ms;
	t->log_avg_ms = log_avg_ms;
	t->log_max_ms = log_max_ms;
	t->cur = t->min_streams;
}

/* Two windows agree: the level's transient is over. */
static bool agree(const struct tune_window *a, const struct tune_window *b)
{
	double dr = fabs(a->read_avg_ms - b->read_avg_ms);
	double dl = fabs(a->log_avg_ms - b->log_avg_ms);
	double di = fabs(a->iops - b->iops);

	return dr <= fmax(TUNE_AGREE * b->read_avg_ms, 0.2) &&
	       dl <= fmax(TUNE_AGREE * b->log_avg_ms, 0.2) && di <= TUNE_AGREE * fmax(b->iops, 1.0);
}

/* Whether one window passes every latency and error criterion with the
 * margin; why not in why (the first criterion missed, with its margin). */
static bool window_passes(const struct tuner *t, const struct tune_window *w, char *why, size_t len)
{
	double k = 1.0 - t->margin;

	if (w->errors) {
		snprintf(why, len, "%llu I/O error(s)", (unsigned long long)w->errors);
		return false;
	}
	if (w->read_avg_ms > k * t->read_avg_ms) {
		snprintf(why, len,
			 "database read average %.1f ms (%s) > %.1f ms (%.0f %% of %.0f ms)",
			 w->read_avg_ms, w->read_db, k * t->read_avg_ms, k * 100, t->read_avg_ms);
		return false;
	}
	if (w->log_avg_ms > k * t->log_avg_ms) {
		snprintf(why, len, "log write average %.1f ms (%s) > %.1f ms (%.0f %% of %.0f ms)",
			 w->log_avg_ms, w->log_db, k * t->log_avg_ms, k * 100, t->log_avg_ms);
		return false;
	}
	if (w->read_max_ms > k * t->read_max_ms) {
		snprintf(why, len, "database read maximum %.1f ms > %.1f ms", w->read_max_ms,
			 k * t->read_max_ms);
		return false;
	}
	if (w->log_max_ms > k * t->log_max_ms) {
		snprintf(why, len, "log write maximum %.1f ms > %.1f ms", w->log_max_ms,
			 k * t->log_max_ms);
		return false;
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

/* Goal iops, once the search is over: of the levels that passed, the fewest
 * streams within TUNE_IOPS_TIE of the most IOPS (past saturation the IOPS of
 * deeper levels differ by noise, and more streams only add latency); says
 * so when that is not the count the search ended on. */
static void choose_iops(struct tuner *t)
{
	const struct tune_step *best = NULL;
	double most = 0;
	size_t len;

	if (t->goal != TUNE_GOAL_IOPS || !t->chosen)
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

/* The next count after level t->cur was decided (passed: its verdict, with
 * the target reached for goal target). */
static int next_level(struct tuner *t, const struct tune_step *s)
{
	bool up = s->passed; /* go higher */
	unsigned n = s->streams;

	if (s->passed && n > t->best_pass)
		t->best_pass = n;

	if (t->goal == TUNE_GOAL_TARGET) {
		bool reached = s->passed && s->w.iops >= t->target_iops;
		unsigned base;

		if (reached)
			t->hi = n; /* the fewest streams known to reach the target */
		else
			t->lo = n; /* known not to */
		if (!t->hi && !s->passed) {
			/* more streams only load a device that fails already */
			finish(t, t->best_pass,
			       "the target of %.0f IOPS is out of reach within the thresholds: at "
			       "%u streams %s (%.0f IOPS)",
			       t->target_iops, n, s->reason, s->w.iops);
			return TUNE_DONE;
		}
		if (!t->hi) {
			if (n >= t->max_streams) {
				finish(t, t->best_pass,
				       "the target of %.0f IOPS is out of reach: %u streams (the "
				       "most allowed) give %.0f IOPS",
				       t->target_iops, n, s->w.iops);
				return TUNE_DONE;
			}
			t->cur = n * 2 > t->max_streams ? t->max_streams : n * 2;
			return TUNE_NEXT;
		}
		base = t->lo ? t->lo : t->min_streams - 1;
		if (t->hi <= base + 1) {
			finish(t, t->hi,
			       "%u streams are the fewest that reach %.0f IOPS within the "
			       "thresholds",
			       t->hi, t->target_iops);
			return TUNE_DONE;
		}
		t->cur = base + (t->hi - base) / 2;
		return TUNE_NEXT;
	}
	if (up)
		t->lo = n;
	else
		t->hi = n;
	if (!t->lo) {
		finish(t, 0, "no level passes: at %u stream%s %s", n, n == 1 ? "" : "s", s->reason);
		return TUNE_DONE;
	}
	if (!t->hi) {
		if (n >= t->max_streams) {
			finish(t, n, "%u streams (the most allowed) still pass", n);
			choose_iops(t);
			return TUNE_DONE;
		}
		t->cur = n * 2 > t->max_streams ? t->max_streams : n * 2;
		return TUNE_NEXT;
	}
	if (t->hi - t->lo <= 1) {
		const struct tune_step *f = step_at(t, t->hi);

		finish(t, t->lo, "%u streams pass, %u do not (%s)", t->lo, t->hi,
		       f ? f->reason : "failed");
		choose_iops(t);
		return TUNE_DONE;
	}
	t->cur = t->lo + (t->hi - t->lo) / 2;
	return TUNE_NEXT;
}

int tuner_window(struct tuner *t, const struct tune_window *w)
{
	struct tune_step s = {0};
	char why[160], pwhy[160];
	bool pass, ppass;

	if (t->done)
		return TUNE_DONE;
	t->nwin++;
	if (t->nwin <= 2) {
		/* the first window is the level's transient (queues filling, the
		 * flusher catching up): never judged */
		t->prev = *w;
		return TUNE_MORE;
	}
	s.settled = agree(w, &t->prev);
	if (!s.settled && t->nwin < TUNE_MAX_WINDOWS) {
		t->prev = *w;
		return TUNE_MORE;
	}
	pass = window_passes(t, w, why, sizeof(why));
	ppass = window_passes(t, &t->prev, pwhy, sizeof(pwhy));
	s.streams = t->cur;
	s.windows = t->nwin;
	s.w = *w;
	s.passed = pass && ppass;
	snprintf(s.reason, sizeof(s.reason), "%s%s", !pass || ppass ? why : pwhy,
		 s.settled ? "" : " (latency did not settle)");
	t->nwin = 0;
	if (add_step(t, &s))
		return -ENOMEM;
	return next_level(t, &t->steps[t->nsteps - 1]);
}

void tuner_stop(struct tuner *t, const char *why)
{
	unsigned best = 0;

	if (t->done)
		return;
	for (unsigned i = 0; i < t->nsteps; i++) {
		const struct tune_step *s = &t->steps[i];
		bool ok = s->passed && (t->goal != TUNE_GOAL_TARGET || s->w.iops >= t->target_iops);

		if (!ok)
			continue;
		if (!best || (t->goal != TUNE_GOAL_TARGET ? s->streams > best : s->streams < best))
			best = s->streams;
	}
	if (!best && t->goal == TUNE_GOAL_TARGET)
		best = t->best_pass; /* the highest passing, below the target */
	if (!best && !t->nsteps) {
		/* nothing decided yet: the main test runs at the first level and
		 * its verdict says whether that holds */
		finish(t, t->min_streams,
		       "%s before any level was decided; the main test runs at the first level "
		       "(%u streams)",
		       why, t->min_streams);
		return;
	}
	finish(t, best, "%s; best level found: %u streams", why, best);
	choose_iops(t);
}

void tuner_release(struct tuner *t)
{
	free(t->steps);
	t->steps = NULL;
	t->nsteps = t->cap = 0;
}
