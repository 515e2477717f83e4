/* SPDX-License-Identifier: MIT */
/*
 * replicates.c - runs as the replicates of a comparison (analyze.h, "Runs as
 * replicates"): each run's whole-run judged figures are one observation; a
 * side of several runs against another is tested by Student's t on the
 * logarithms of those figures (pooled spread, df = n_A + n_B - 2), one-sided
 * towards worse, against no change, Holm-corrected over the judged figures
 * tested. The gate (gate.c) fails on an established change that is worse
 * than its PCT with (1 - alpha) confidence: least_pct, the one-sided
 * confidence bound of the change, beyond PCT. Pure.
 *
 * Why logs: run-to-run variation is multiplicative (a disk 5 % slower is
 * 5 % slower at any level), so ln(figure) has the same spread whatever the
 * device's level. Why Student and not Welch: with 3 runs a side Welch's df
 * falls between 2 and 4 and nears 2 whenever one side's runs happen to agree
 * (the one-sided 1 % critical t is 6.96 at df 2, 3.75 at df 4): it
 * established a +15 % change at a +-5 % spread 85 times in 100, Student 97.
 * With as many runs on each side the two statistics are the same number and
 * Student's t keeps its level under unequal spreads; only the df differs.
 * Why establish against no change and only then ask for PCT: testing "worse
 * by at most PCT" under Holm's alpha / 5 cost half the power (38 in 100 for
 * the same case). Holm over the five decides which figures changed at all;
 * for those, the bound at alpha (not alpha / 5) decides "beyond PCT", so a
 * true change of exactly PCT fails the gate at most alpha of the time per
 * figure. Failing on the estimate beyond PCT instead (half the time at
 * PCT) failed 3 identical runs against 3 at +-5 % once in 20 sim seeds
 * (+6.0 %, p 0.004): a chance 6 % is established as a change, not as one
 * beyond 5 %. Mann-Whitney on 3 runs
 * against 3 cannot go below p = 0.05 one-sided (1 / C(6, 3)), so it never
 * establishes anything after Holm. The power for each runs-per-side, change
 * and spread is in docs/compare.md (tests/stats/compare_power.py simulates
 * this decision and computes analyze_rep_power as this file does).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diskproof/analyze.h"

const char *analyze_rep_state_words(enum analyze_rep_state s)
{
	switch (s) {
	case ANALYZE_REP_TESTED:
		return "tested";
	case ANALYZE_REP_ONE_RUN:
		return "one run on a side";
	case ANALYZE_REP_NO_VARIATION:
		return "no run-to-run variation";
	default:
		return "missing";
	}
}

/* Whether r's verdict judged maxima on the highest sample average (the
 * default, max_basis = sample) rather than the slowest single I/O. */
static bool max_by_sample(const struct results *r)
{
	for (size_t i = 0; i < r->nr_params; i++)
		if (!strcmp(r->params[i].section, "thresholds") &&
		    !strcmp(r->params[i].key, "max_basis") && r->params[i].value)
			return strcmp(r->params[i].value, "io") != 0;
	return true;
}

static double class_max(const struct results *r, enum io_class c)
{
	const struct class_summary *cs = &r->run.classes[c];

	if (max_by_sample(r) && isfinite(cs->max_sample_avg_ms))
		return cs->max_sample_avg_ms;
	return cs->max_ms;
}

double analyze_run_judged(const struct results *r, enum analyze_judged j)
{
	switch (j) {
	case ANALYZE_J_DB_READ_AVG:
		return r->run.classes[IO_DB_READ].avg_ms;
	case ANALYZE_J_DB_READ_MAX:
		return class_max(r, IO_DB_READ);
	case ANALYZE_J_LOG_WRITE_AVG:
		return r->run.classes[IO_LOG_WRITE].avg_ms;
	case ANALYZE_J_LOG_WRITE_MAX:
		return class_max(r, IO_LOG_WRITE);
	case ANALYZE_J_TRANS_IOPS:
		return results_scope_transactional_iops(&r->run);
	default:
		return NAN;
	}
}

static void mean_var(const double *x, size_t n, double *mean, double *var)
{
	double m = 0, ss = 0;

	for (size_t i = 0; i < n; i++)
		m += x[i];
	m /= (double)n;
	for (size_t i = 0; i < n; i++)
		ss += (x[i] - m) * (x[i] - m);
	*mean = m;
	*var = n > 1 ? ss / (double)(n - 1) : NAN;
}

void analyze_pooled_t(const double *xa, size_t na, const double *xb, size_t nb, bool up, double *t,
		      double *df, double *p)
{
	double ma, va, mb, vb, sp2, se2, p2;

	*t = NAN;
	*df = 0;
	*p = NAN;
	if (na < 2 || nb < 2)
		return;
	mean_var(xa, na, &ma, &va);
	mean_var(xb, nb, &mb, &vb);
	*df = (double)(na + nb - 2);
	sp2 = ((double)(na - 1) * va + (double)(nb - 1) * vb) / *df;
	se2 = sp2 * (1.0 / (double)na + 1.0 / (double)nb);
	if (!(se2 > 0)) {
		*df = 0;
		return;
	}
	*t = (mb - ma) / sqrt(se2);
	if (!up)
		*t = -*t;
	p2 = analyze_t_p2(*t, *df);
	*p = *t > 0 ? p2 / 2 : 1 - p2 / 2;
}

/* The one-sided critical t at level a for df degrees of freedom: the t with
 * P(T >= t) = a, by bisection on the tail (monotone; 100 halvings of
 * [0, 1000] leave 1e-27). */
static double t_crit(double a, double df)
{
	double lo = 0, hi = 1000;

	for (int i = 0; i < 100; i++) {
		double mid = (lo + hi) / 2;

		if (analyze_t_p2(mid, df) / 2 > a)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/* ln of the chi-square density with k degrees of freedom at v > 0 */
static double chi2_log_pdf(double v, double k)
{
	return (k / 2 - 1) * log(v) - v / 2 - k / 2 * log(2.0) - lgamma(k / 2);
}

/*
 * The power of the one-sided pooled t at level a with n runs a side against
 * a true change d on the log scale and a spread s (sd of ln): exactly, for
 * normal run-to-run variation, P(T' >= c) with T' noncentral t, df k =
 * 2n - 2, noncentrality delta = d / (s sqrt(2 / n)), c = t_crit(a, k).
 * T' = (Z + delta) / sqrt(V / k), V chi-square(k) independent of Z, so
 * P(T' >= c) = integral over v of f_k(v) P(Z >= c sqrt(v / k) - delta):
 * Simpson's rule on [0, k + 60 sqrt(2k) + 60] in 4000 steps (the density
 * beyond is below 1e-20; the error is below 1e-6 at k >= 2, where the
 * density is finite at 0).
 */
static double pooled_power(unsigned n, double d, double s, double a)
{
	double k = 2.0 * n - 2, delta = d / (s * sqrt(2.0 / n)), c = t_crit(a, k);
	double hi = k + 60 * sqrt(2 * k) + 60, h = hi / 4000, sum = 0;

	for (int i = 0; i <= 4000; i++) {
		double v = i * h, w = (i == 0 || i == 4000) ? 1 : (i % 2 ? 4 : 2);
		double f = v > 0 ? exp(chi2_log_pdf(v, k)) : (k == 2 ? 0.5 : 0);

		sum += w * f * 0.5 * erfc((c * sqrt(v / k) - delta) / M_SQRT2);
	}
	return sum * h / 3;
}

double analyze_rep_power(unsigned n, double change_pct, double spread_pct, double alpha,
			 size_t family)
{
	double d = log1p(fabs(change_pct) / 100), s = spread_pct / 100;

	if (n < 2 || !(d > 0) || !isfinite(d) || !(s > 0) || !isfinite(s) || !family)
		return NAN;
	return pooled_power(n, d, s, alpha / (double)family);
}

unsigned analyze_runs_needed(double change_pct, double spread_pct, double alpha)
{
	double d = log1p(fabs(change_pct) / 100);

	if (!(d > 0) || !isfinite(d))
		return 0;
	if (!(spread_pct > 0))
		return 2;
	for (unsigned n = 2; n <= 50; n++)
		if (analyze_rep_power(n, change_pct, spread_pct, alpha, ANALYZE_JUDGED_COUNT) >=
		    ANALYZE_RUNS_POWER)
			return n;
	return 0;
}

/* Holm's step-down over the tested figures' one-sided p values. */
static void rep_holm(struct analyze_replicates *out)
{
	struct analyze_rep_figure *v[ANALYZE_JUDGED_COUNT];
	size_t m = 0;

	for (int j = 0; j < ANALYZE_JUDGED_COUNT; j++)
		if (out->fig[j].state == ANALYZE_REP_TESTED)
			v[m++] = &out->fig[j];
	out->family = m;
	for (size_t i = 1; i < m; i++)
		for (size_t k = i; k > 0 && v[k]->p_value < v[k - 1]->p_value; k--) {
			struct analyze_rep_figure *x = v[k];

			v[k] = v[k - 1];
			v[k - 1] = x;
		}
	for (size_t k = 0; k < m; k++) {
		if (!(v[k]->p_value <= out->alpha / (double)(m - k)))
			break;
		v[k]->established = true;
	}
}

/* ln of each run's figure j into x; false when a run lacks it (or it is
 * not positive: no logarithm) */
static bool side_logs(const struct results *const *r, size_t n, enum analyze_judged j, double *x)
{
	for (size_t i = 0; i < n; i++) {
		double v = analyze_run_judged(r[i], j);

		if (!isfinite(v) || !(v > 0))
			return false;
		x[i] = log(v);
	}
	return true;
}

static void rep_figure(const double *xa, size_t na, const double *xb, size_t nb, bool up,
		       double alpha, struct analyze_rep_figure *f)
{
	double ma, va, mb, vb;

	mean_var(xa, na, &ma, &va);
	mean_var(xb, nb, &mb, &vb);
	f->a = exp(ma);
	f->b = exp(mb);
	f->change_pct = analyze_change_pct(f->a, f->b);
	f->worse = up ? f->b > f->a : f->b < f->a;
	f->spread_pct = NAN;
	if (na >= 2 && nb >= 2)
		f->spread_pct = 100 * sqrt(((double)(na - 1) * va + (double)(nb - 1) * vb) /
					   (double)(na + nb - 2));
	else if (na >= 2)
		f->spread_pct = 100 * sqrt(va);
	else if (nb >= 2)
		f->spread_pct = 100 * sqrt(vb);
	if (na < 2 || nb < 2)
		f->state = ANALYZE_REP_ONE_RUN;
	else if (!(va > 0) && !(vb > 0))
		f->state = ANALYZE_REP_NO_VARIATION;
	else
		f->state = ANALYZE_REP_TESTED;
	f->least_pct = NAN;
	if (f->state == ANALYZE_REP_TESTED) {
		double se = f->spread_pct / 100 * sqrt(1.0 / (double)na + 1.0 / (double)nb);
		double d = mb - ma;

		analyze_pooled_t(xa, na, xb, nb, up, &f->t, &f->df, &f->p_value);
		/* the one-sided (1 - alpha) confidence bound on the better side */
		f->least_pct = up ? 100 * expm1(d - t_crit(alpha, f->df) * se)
				  : -100 * expm1(d + t_crit(alpha, f->df) * se);
	}
	if (f->worse && isfinite(f->change_pct))
		f->runs_needed = analyze_runs_needed(f->change_pct,
						     isfinite(f->spread_pct) && f->spread_pct > 0
							     ? f->spread_pct
							     : ANALYZE_SPREAD_ASSUMED,
						     alpha);
}

int analyze_replicates(const struct results *const *a, size_t n_a, const struct results *const *b,
		       size_t n_b, double alpha, double margin_pct, struct analyze_replicates *out)
{
	double *xa = malloc((n_a + n_b + 1) * sizeof(*xa)), *xb = xa ? xa + n_a : NULL;

	memset(out, 0, sizeof(*out));
	if (!xa)
		return -ENOMEM;
	out->n_a = n_a;
	out->n_b = n_b;
	out->alpha = alpha;
	out->margin_pct = margin_pct;
	for (int j = 0; j < ANALYZE_JUDGED_COUNT; j++) {
		struct analyze_rep_figure *f = &out->fig[j];

		f->t = NAN;
		f->p_value = NAN;
		if (!side_logs(a, n_a, j, xa) || !side_logs(b, n_b, j, xb)) {
			f->a = f->b = f->change_pct = f->spread_pct = NAN;
			f->state = ANALYZE_REP_MISSING;
			continue;
		}
		rep_figure(xa, n_a, xb, n_b, analyze_judged_def(j)->higher_is_worse, alpha, f);
	}
	rep_holm(out);
	free(xa);
	return 0;
}
