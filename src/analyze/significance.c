/* SPDX-License-Identifier: MIT */
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
 *
 * Brown-Forsythe (analyze.h has the derivation) reduces to a pooled-variance
 * t test on absolute deviations from each group's median; its p value is the
 * Student t tail, computed as a regularized incomplete beta function by its
 * continued fraction (below).
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
	[ANALYZE_F] = "f",
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

double analyze_change_pct_res(double a, double b, double res)
{
	if (isfinite(a) && isfinite(b) && fabs(a) < res / 2)
		return fabs(b) < res / 2 ? 0.0 : NAN;
	return analyze_change_pct(a, b);
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

/*
 * The regularized incomplete beta function I_x(a, b), by its continued
 * fraction
 *   I_x(a, b) = x^a (1 - x)^b / (a B(a, b)) x 1 / (1 + d_1 / (1 + d_2 / (1 + ...)))
 *   d_{2m+1} = -(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1))
 *   d_{2m}   =  m (b - m) x / ((a + 2m - 1)(a + 2m))
 * evaluated by the modified Lentz method (each step's factor C_k D_k; stop
 * when it is within 1e-15 of 1). The fraction converges fast for
 * x < (a + 1) / (a + b + 2); above that, I_x(a, b) = 1 - I_{1-x}(b, a).
 * The prefactor goes through lgamma (relative error ~1e-15), so the result
 * carries a relative error of about 1e-13 for the a, b of interest here
 * (b = 1/2, a up to 1e6 / 2: about sqrt(a) steps are needed, capped at 10^5).
 */
static double ibeta_cf(double x, double a, double b)
{
	const double tiny = 1e-300, eps = 1e-15;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h, num, delta;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	h = d;
	for (int m = 1; m <= 100000; m++) {
		double m2 = 2.0 * m;

		num = m * (b - m) * x / ((a + m2 - 1) * (a + m2)); /* d_{2m} */
		d = 1 + num * d;
		c = 1 + num / c;
		d = fabs(d) < tiny ? 1 / tiny : 1 / d;
		c = fabs(c) < tiny ? tiny : c;
		h *= d * c;
		num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1)); /* d_{2m+1} */
		d = 1 + num * d;
		c = 1 + num / c;
		d = fabs(d) < tiny ? 1 / tiny : 1 / d;
		c = fabs(c) < tiny ? tiny : c;
		delta = d * c;
		h *= delta;
		if (fabs(delta - 1) < eps)
			break;
	}
	return h;
}

double analyze_ibeta(double x, double a, double b)
{
	double lpre;

	if (!(x >= 0 && x <= 1) || !(a > 0) || !(b > 0))
		return NAN;
	if (x == 0 || x == 1)
		return x;
	lpre = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
	if (x < (a + 1) / (a + b + 2))
		return exp(lpre) * ibeta_cf(x, a, b) / a;
	return 1 - exp(lpre) * ibeta_cf(1 - x, b, a) / b;
}

/* P(|T| >= |t|) for Student's t with nu degrees of freedom: the density's
 * tails integrate to I_{nu / (nu + t^2)}(nu / 2, 1 / 2). */
double analyze_t_p2(double t, double nu)
{
	if (isnan(t) || !(nu > 0))
		return NAN;
	if (isinf(t))
		return 0;
	return analyze_ibeta(nu / (nu + t * t), nu / 2, 0.5);
}

static int dbl_cmp(const void *x, const void *y)
{
	double p = *(const double *)x, q = *(const double *)y;

	return (p > q) - (p < q);
}

/* The median of x[0..n), n >= 1; tmp holds n doubles. */
static double median_of(const double *x, size_t n, double *tmp)
{
	memcpy(tmp, x, n * sizeof(*tmp));
	qsort(tmp, n, sizeof(*tmp), dbl_cmp);
	return n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
}

/* The mean of |x_i - med| and their sum of squares about that mean. */
static void abs_dev(const double *x, size_t n, double med, double *mean, double *ss)
{
	double s = 0, q = 0;

	for (size_t i = 0; i < n; i++)
		s += fabs(x[i] - med);
	s /= (double)n;
	for (size_t i = 0; i < n; i++)
		q += (fabs(x[i] - med) - s) * (fabs(x[i] - med) - s);
	*mean = s;
	*ss = q;
}

int analyze_brown_forsythe(const double *a, size_t n_a, const double *b, size_t n_b,
			   struct analyze_mw *out)
{
	double *tmp, ma, mb, za, zb, ssa, ssb, zall, ssbetween, sswithin;
	size_t n = n_a + n_b, i;

	memset(out, 0, sizeof(*out));
	out->n_a = n_a;
	out->n_b = n_b;
	out->p_value = NAN;
	out->u = NAN;
	out->f = NAN;
	for (i = 0; i < n_a; i++)
		if (isnan(a[i]))
			return -EINVAL;
	for (i = 0; i < n_b; i++)
		if (isnan(b[i]))
			return -EINVAL;
	if (n_a < 2 || n_b < 2)
		return 0;
	tmp = malloc((n_a > n_b ? n_a : n_b) * sizeof(*tmp));
	if (!tmp)
		return -ENOMEM;
	ma = median_of(a, n_a, tmp);
	mb = median_of(b, n_b, tmp);
	free(tmp);
	abs_dev(a, n_a, ma, &za, &ssa);
	abs_dev(b, n_b, mb, &zb, &ssb);
	zall = (za * (double)n_a + zb * (double)n_b) / (double)n;
	ssbetween =
		(double)n_a * (za - zall) * (za - zall) + (double)n_b * (zb - zall) * (zb - zall);
	sswithin = ssa + ssb;
	out->method = ANALYZE_F;
	if (sswithin <= 0) {
		/* every deviation equals its group's mean deviation: equal groups
		 * say nothing, different ones differ beyond any doubt */
		out->f = ssbetween > 0 ? INFINITY : 0;
		out->p_value = ssbetween > 0 ? 0 : 1;
		return 0;
	}
	out->f = (double)(n - 2) * ssbetween / sswithin;
	out->z = sqrt(out->f); /* |t| of the equivalent t test */
	out->p_value = fmin(1.0, analyze_t_p2(out->z, (double)(n - 2)));
	return 0;
}
