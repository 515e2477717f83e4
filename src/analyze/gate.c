/* SPDX-License-Identifier: MIT */
/*
 * gate.c - what a comparison decides (analyze.h): which figures are listed
 * (significant and material), the judged figures and their regressions past
 * a gate's percentage (compare --fail-on-regression). Pure: flags and lists
 * over a finished struct analyze_comparison.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "diskproof/analyze.h"

/* A change is material when it is at least the threshold, or when it is
 * undefined while both figures are finite (A was 0: a class from nothing). */
static void figure_mark(struct analyze_figure *f, double min, size_t *listed)
{
	f->material = isfinite(f->change_pct) ? fabs(f->change_pct) >= min
					      : isfinite(f->a) && isfinite(f->b);
	f->listed = f->significant && f->material;
	*listed += f->listed;
}

void analyze_comparison_set_min_change(struct analyze_comparison *c, double min_change_pct)
{
	c->min_change_pct = min_change_pct;
	c->nr_listed = 0;
	for (size_t i = 0; i < c->nr_scopes; i++) {
		struct analyze_scope *s = &c->scopes[i];

		for (int k = 0; k < IO_CLASS_COUNT; k++) {
			for (int m = 0; m < ANALYZE_METRIC_COUNT; m++)
				figure_mark(&s->classes[k].fig[m], min_change_pct, &c->nr_listed);
			figure_mark(&s->classes[k].sd, min_change_pct, &c->nr_listed);
		}
		figure_mark(&s->trans_iops, min_change_pct, &c->nr_listed);
	}
}

static const struct analyze_judged_def judged_defs[] = {
	[ANALYZE_J_DB_READ_AVG] = {"db_read_avg_ms", "db_read avg ms", true},
	[ANALYZE_J_DB_READ_MAX] = {"db_read_max_ms", "db_read max ms", true},
	[ANALYZE_J_LOG_WRITE_AVG] = {"log_write_avg_ms", "log_write avg ms", true},
	[ANALYZE_J_LOG_WRITE_MAX] = {"log_write_max_ms", "log_write max ms", true},
	[ANALYZE_J_TRANS_IOPS] = {"transactional_iops", "transactional IOPS", false},
};

_Static_assert(DP_ARRAY_SIZE(judged_defs) == ANALYZE_JUDGED_COUNT, "a judged figure unnamed");

const struct analyze_judged_def *analyze_judged_def(enum analyze_judged j)
{
	return (unsigned)j < ANALYZE_JUDGED_COUNT ? &judged_defs[j] : &judged_defs[0];
}

const struct analyze_figure *analyze_judged_figure(const struct analyze_scope *s,
						   enum analyze_judged j)
{
	switch (j) {
	case ANALYZE_J_DB_READ_MAX:
		return &s->classes[IO_DB_READ].fig[ANALYZE_MAX_MS];
	case ANALYZE_J_LOG_WRITE_AVG:
		return &s->classes[IO_LOG_WRITE].fig[ANALYZE_AVG_MS];
	case ANALYZE_J_LOG_WRITE_MAX:
		return &s->classes[IO_LOG_WRITE].fig[ANALYZE_MAX_MS];
	case ANALYZE_J_TRANS_IOPS:
		return &s->trans_iops;
	default:
		return &s->classes[IO_DB_READ].fig[ANALYZE_AVG_MS];
	}
}

int analyze_regressions(const struct analyze_comparison *c, size_t pair, double pct,
			struct analyze_regression **out, size_t *n)
{
	for (size_t i = 0; i < c->nr_scopes; i++) {
		for (int j = 0; j < ANALYZE_JUDGED_COUNT; j++) {
			const struct analyze_figure *f = analyze_judged_figure(&c->scopes[i], j);
			double worse =
				judged_defs[j].higher_is_worse ? f->change_pct : -f->change_pct;
			struct analyze_regression *p;

			if (!f->significant || !isfinite(worse) || !(worse > pct))
				continue;
			p = realloc(*out, (*n + 1) * sizeof(**out));
			if (!p)
				return -ENOMEM;
			*out = p;
			p[(*n)++] = (struct analyze_regression){pair, i, (enum analyze_judged)j,
								f->change_pct};
		}
	}
	return 0;
}

size_t analyze_intervals_needed(double alpha, size_t m)
{
	double lim = log(alpha / (double)(m ? m : 1));

	for (size_t n = 2; n <= 64; n++)
		if (log(2.0) - (lgamma(2.0 * n + 1) - 2 * lgamma(n + 1.0)) <= lim)
			return n;
	return 0;
}

/* The class of judged figure j, IO_CLASS_COUNT for transactional IOPS. */
static int judged_class(enum analyze_judged j)
{
	switch (j) {
	case ANALYZE_J_DB_READ_AVG:
	case ANALYZE_J_DB_READ_MAX:
		return IO_DB_READ;
	case ANALYZE_J_LOG_WRITE_AVG:
	case ANALYZE_J_LOG_WRITE_MAX:
		return IO_LOG_WRITE;
	default:
		return IO_CLASS_COUNT;
	}
}

bool analyze_judged_short(const struct analyze_comparison *c, const struct analyze_scope *s,
			  enum analyze_judged j, struct analyze_short *out)
{
	const struct analyze_mw *t = &analyze_judged_figure(s, j)->test;
	int cls = judged_class(j);
	size_t m = 1, na = t->n_a, nb = t->n_b;
	double lmin;

	for (int k = 0; k < IO_CLASS_COUNT; k++)
		m += s->classes[k].present ? ANALYZE_METRIC_COUNT + 1 : 0;
	if (cls < IO_CLASS_COUNT
		    ? !s->classes[cls].present
		    : !s->classes[IO_DB_READ].present && !s->classes[IO_DB_WRITE].present)
		return false;
	*out = (struct analyze_short){na, nb, analyze_intervals_needed(c->alpha, m),
				      t->method != ANALYZE_NONE};
	if (!out->tested)
		return true;
	if (t->method != ANALYZE_EXACT)
		return false; /* more intervals than the exact test takes, or ties */
	lmin = log(2.0) -
	       (lgamma((double)(na + nb) + 1) - lgamma((double)na + 1) - lgamma((double)nb + 1));
	return lmin > log(c->alpha / (double)m);
}

bool analyze_rep_beyond(const struct analyze_rep_figure *f, double pct)
{
	return f->state != ANALYZE_REP_MISSING && f->worse && isfinite(f->change_pct) &&
	       fabs(f->change_pct) > pct;
}

int analyze_rep_gate(const struct analyze_replicates *r, size_t pair, double pct,
		     enum analyze_gate_outcome *outcome, unsigned *runs_needed,
		     struct analyze_regression **out, size_t *n)
{
	for (int j = 0; j < ANALYZE_JUDGED_COUNT; j++) {
		const struct analyze_rep_figure *f = &r->fig[j];
		struct analyze_regression *p;

		if (!analyze_rep_beyond(f, pct))
			continue;
		/* established as a change but not surely beyond pct: within it */
		if (!f->established || !(f->least_pct > pct)) {
			if (f->state == ANALYZE_REP_TESTED)
				continue;
			if (*outcome == ANALYZE_GATE_PASS)
				*outcome = ANALYZE_GATE_INCONCLUSIVE;
			if (f->runs_needed > *runs_needed)
				*runs_needed = f->runs_needed;
			continue;
		}
		*outcome = ANALYZE_GATE_FAIL;
		p = realloc(*out, (*n + 1) * sizeof(**out));
		if (!p)
			return -ENOMEM;
		*out = p;
		p[(*n)++] =
			(struct analyze_regression){pair, 0, (enum analyze_judged)j, f->change_pct};
	}
	return 0;
}
