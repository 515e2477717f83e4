/*
 * significance.c - the statistics of a comparison that do not know about runs:
 * the two-sided Mann-Whitney U test, the percent change and the dispersion of
 * a series. The derivations and limits are in analyze.h; this file holds the
 * arithmetic.
 *
 * Ranking sorts the pooled sample once (O(N log N)); tied values share their
 * average rank and each tie group of size t adds t^3 - t to the variance
 * correction. The exact null distribution (no ties, N <= ANALYZE_EXACT_MAX) is
 * the number of ways to pick n_A of the ranks 1..N with each rank sum, counted
 * in doubles: the largest count, C(40, 20) ~ 1.4e11, is far below 2^53, so
 * the counts and the p value are exact up to the final division.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diskproof/analyze.h"

static const char *const method_names[] = {
	[ANALYZE_NONE] = "none",
	[ANALYZE_EXACT] = "exact",
	[ANALYZE_NORMAL] = "normal",
};

const char *analyze_method_name(enum analyze_method m)
{
	if ((unsigned)m >= DP_ARRAY_SIZE(method_names))
		return "unknown";
	return method_names[m];
}

struct pooled {
	double v;
	bool in_a;
};

static int pooled_cmp(const void *x, const void *y)
{
	const struct pooled *p = x, *q = y;

	return (p->v > q->v) - (p->v < q->v);
}

/*
 * Exact two-sided p of U_A = u for sample sizes (n_a, n_b) without ties:
 * cnt[j][s] = ways to choose j of the ranks seen so far with rank sum s.
 */
static int mw_exact_p(size_t n_a, size_t n_b, double u, double *p)
{
	size_t n = n_a + n_b, smax = n * (n + 1) / 2, w = smax + 1;
	size_t base = n_a * (n_a + 1) / 2;
	double *cnt, total = 0, le = 0, ge = 0;

	cnt = calloc((n_a + 1) * w, sizeof(*cnt));
	if (!cnt)
		return -ENOMEM;
	cnt[0] = 1;
	for (size_t i = 1; i <= n; i++)
		for (size_t j = i < n_a ? i : n_a; j >= 1; j--)
			for (size_t s = smax; s >= i; s--)
				cnt[j * w + s] += cnt[(j - 1) * w + s - i];
	for (size_t s = base; s <= smax; s++) {
		double c = cnt[n_a * w + s], us = (double)(s - base);

		total += c;
		if (us <= u)
			le += c;
		if (us >= u)
			ge += c;
	}
	free(cnt);
	*p = fmin(1.0, 2.0 * fmin(le, ge) / total);
	return 0;
}

int analyze_mann_whitney(const double *a, size_t n_a, const double *b, size_t n_b,
			 struct analyze_mw *out)
{
	size_t n = n_a + n_b, i, j;
	struct pooled *pool;
	double r_a = 0, ties = 0, mu, var;
	bool tied = false;

	memset(out, 0, sizeof(*out));
	out->n_a = n_a;
	out->n_b = n_b;
	out->p_value = NAN;
	out->u = NAN;
	for (i = 0; i < n_a; i++)
		if (isnan(a[i]))
			return -EINVAL;
	for (i = 0; i < n_b; i++)
		if (isnan(b[i]))
			return -EINVAL;
	if (n_a < 2 || n_b < 2)
		return 0;

	pool = malloc(n * sizeof(*pool));
	if (!pool)
		return -ENOMEM;
	for (i = 0; i < n_a; i++)
		pool[i] = (struct pooled){a[i], true};
	for (i = 0; i < n_b; i++)
		pool[n_a + i] = (struct pooled){b[i], false};
	qsort(pool, n, sizeof(*pool), pooled_cmp);

	/* ranks i+1..j of a tie group [i, j) all get (i + 1 + j) / 2 */
	for (i = 0; i < n; i = j) {
		double t, rank;

		for (j = i + 1; j < n && pool[j].v == pool[i].v; j++)
			;
		t = (double)(j - i);
		rank = (double)(i + 1 + j) / 2.0;
		for (size_t k = i; k < j; k++)
			if (pool[k].in_a)
				r_a += rank;
		if (j - i > 1) {
			tied = true;
			ties += t * t * t - t;
		}
	}
	free(pool);

	out->u = r_a - (double)n_a * (double)(n_a + 1) / 2.0;
	if (!tied && n <= ANALYZE_EXACT_MAX) {
		out->method = ANALYZE_EXACT;
		return mw_exact_p(n_a, n_b, out->u, &out->p_value);
	}
	out->method = ANALYZE_NORMAL;
	mu = (double)n_a * (double)n_b / 2.0;
	var = (double)n_a * (double)n_b / 12.0 *
	      ((double)(n + 1) - ties / ((double)n * (double)(n - 1)));
	if (var <= 0) { /* every value equal: no evidence of a difference */
		out->p_value = 1.0;
		return 0;
	}
	out->z = fmax(0.0, fabs(out->u - mu) - 0.5) / sqrt(var);
	out->p_value = fmin(1.0, erfc(out->z / sqrt(2.0)));
	return 0;
}

double analyze_change_pct(double a, double b)
{
	if (!isfinite(a) || !isfinite(b))
		return NAN;
	if (a == 0)
		return b == 0 ? 0.0 : NAN;
	return (b - a) / a * 100.0;
}

void analyze_dispersion(const double *x, size_t n, double *sd, double *cv)
{
	double mean = 0, ss = 0;
	size_t i;

	*sd = NAN;
	*cv = NAN;
	if (n < 2)
		return;
	for (i = 0; i < n; i++)
		mean += x[i];
	mean /= (double)n;
	for (i = 0; i < n; i++)
		ss += (x[i] - mean) * (x[i] - mean);
	*sd = sqrt(ss / (double)(n - 1));
	if (mean != 0)
		*cv = *sd / mean;
}
