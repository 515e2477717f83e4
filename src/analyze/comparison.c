/* SPDX-License-Identifier: MIT */
/*
 * comparison.c - run A against run B (analyze.h): matches scopes, verdicts and
 * environment facts by name, pulls each scope's per-interval series out of the
 * samples, and attaches to every figure its Mann-Whitney test and to every
 * class its dispersion. The derivations and their limits are in analyze.h.
 *
 * The samples of a run are interleaved (every scope and class per interval,
 * in time order); a sorted index of pointers (scope, name, then array
 * position, which keeps time order) makes each scope's rows one contiguous
 * run found by binary search, so a comparison costs O(S log S) for S samples
 * plus a walk of a scope's rows per series, rather than a scan of all rows
 * per series. The scope's rows of every class are walked, not the class's
 * alone: its intervals are the t_ms of those rows, and a class without a row
 * in one had no I/O there (results.h), an IOPS value of 0. The host
 * counters are set side by side, devices matched by name, untested.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diskproof/analyze.h"

/* the step sd ms and cv are shown in (4 decimals): both 0 there is unchanged */
#define SD_RES 1e-4

static const char *const metric_names[] = {
	[ANALYZE_IOPS] = "iops",     [ANALYZE_AVG_MS] = "avg_ms", [ANALYZE_P50_MS] = "p50_ms",
	[ANALYZE_P99_MS] = "p99_ms", [ANALYZE_MAX_MS] = "max_ms",
};

const char *analyze_metric_name(enum analyze_metric m)
{
	if ((unsigned)m >= DP_ARRAY_SIZE(metric_names))
		return "unknown";
	return metric_names[m];
}

/* ---- series ---- */

struct series_index {
	const struct results_sample **p;
	size_t n;
};

static int key_cmp(enum scope_kind scope, const char *name, const struct results_sample *s)
{
	if (scope != s->scope)
		return scope < s->scope ? -1 : 1;
	return strcmp(name, s->name);
}

static int sample_ptr_cmp(const void *x, const void *y)
{
	const struct results_sample *p = *(const struct results_sample *const *)x;
	const struct results_sample *q = *(const struct results_sample *const *)y;
	int c = key_cmp(p->scope, p->name, q);

	if (c)
		return c;
	return (p > q) - (p < q); /* same scope: array order, i.e. time order */
}

static int series_index_build(struct series_index *ix, const struct results *r)
{
	ix->n = r->nr_samples;
	ix->p = NULL;
	if (!ix->n)
		return 0;
	ix->p = malloc(ix->n * sizeof(*ix->p));
	if (!ix->p)
		return -ENOMEM;
	for (size_t i = 0; i < ix->n; i++)
		ix->p[i] = &r->samples[i];
	qsort(ix->p, ix->n, sizeof(*ix->p), sample_ptr_cmp);
	return 0;
}

/* [*lo, *hi) of the index holding (scope, name). */
static void series_find(const struct series_index *ix, enum scope_kind scope, const char *name,
			size_t *lo, size_t *hi)
{
	size_t l = 0, h = ix->n, m;

	while (l < h) {
		m = l + (h - l) / 2;
		if (key_cmp(scope, name, ix->p[m]) > 0)
			l = m + 1;
		else
			h = m;
	}
	*lo = l;
	for (h = l; h < ix->n && !key_cmp(scope, name, ix->p[h]); h++)
		;
	*hi = h;
}

/* The value of metric m in the interval ending at t_ms, whose row of the
 * class is s (NULL: the class had no I/O there); false when it has none. */
static bool interval_value(const struct results_sample *s, uint64_t t_ms, uint64_t prev_t_ms,
			   enum analyze_metric m, double *v)
{
	const double ms = (double)NSEC_PER_MSEC;

	if (m == ANALYZE_IOPS) {
		if (t_ms <= prev_t_ms)
			return false;
		*v = (double)(s ? s->ios : 0) * 1000.0 / (double)(t_ms - prev_t_ms);
		return true;
	}
	if (!s || !s->ios)
		return false;
	switch (m) {
	case ANALYZE_AVG_MS:
		*v = (double)s->lat_sum_ns / (double)s->ios / ms;
		break;
	case ANALYZE_P50_MS:
		*v = (double)s->p50_ns / ms;
		break;
	case ANALYZE_P99_MS:
		*v = (double)s->p99_ns / ms;
		break;
	default:
		*v = (double)s->lat_max_ns / ms;
		break;
	}
	return true;
}

/*
 * The scope's rows in time order, one interval per distinct t_ms (rows of one
 * interval are adjacent); the first row of class cls in an interval is its
 * value.
 */
static int series_extract(const struct series_index *ix, enum scope_kind scope, const char *name,
			  enum io_class cls, enum analyze_metric m, double **out, size_t *n)
{
	const struct results_sample *row;
	size_t lo, hi, j, k = 0;
	uint64_t prev = 0, t;
	bool warm;
	double *v;

	*out = NULL;
	*n = 0;
	series_find(ix, scope, name, &lo, &hi);
	if (lo == hi)
		return 0;
	v = malloc((hi - lo) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = lo; i < hi; i = j) {
		t = ix->p[i]->t_ms;
		warm = ix->p[i]->warmup;
		row = NULL;
		for (j = i; j < hi && ix->p[j]->t_ms == t; j++)
			if (!row && ix->p[j]->cls == cls)
				row = ix->p[j];
		if (!warm && interval_value(row, t, prev, m, &v[k]))
			k++;
		prev = t;
	}
	if (!k) {
		free(v);
		v = NULL;
	}
	*out = v;
	*n = k;
	return 0;
}

/*
 * Transactional IOPS of each measured interval of a scope: the db_read and
 * db_write ios of the interval over its length (0 where neither had a row).
 */
static int series_extract_trans(const struct series_index *ix, enum scope_kind scope,
				const char *name, double **out, size_t *n)
{
	size_t lo, hi, j, k = 0;
	uint64_t prev = 0, t, ios;
	bool warm, seen[IO_CLASS_COUNT];
	double *v;

	*out = NULL;
	*n = 0;
	series_find(ix, scope, name, &lo, &hi);
	if (lo == hi)
		return 0;
	v = malloc((hi - lo) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = lo; i < hi; i = j) {
		t = ix->p[i]->t_ms;
		warm = ix->p[i]->warmup;
		ios = 0;
		memset(seen, 0, sizeof(seen));
		for (j = i; j < hi && ix->p[j]->t_ms == t; j++) {
			enum io_class c = ix->p[j]->cls;

			if ((c == IO_DB_READ || c == IO_DB_WRITE) && !seen[c]) {
				seen[c] = true;
				ios += ix->p[j]->ios;
			}
		}
		if (!warm && t > prev)
			v[k++] = (double)ios * 1000.0 / (double)(t - prev);
		prev = t;
	}
	if (!k) {
		free(v);
		v = NULL;
	}
	*out = v;
	*n = k;
	return 0;
}

int analyze_series(const struct results *r, enum scope_kind scope, const char *name,
		   enum io_class cls, enum analyze_metric m, double **out, size_t *n)
{
	struct series_index ix;
	int ret;

	*out = NULL;
	*n = 0;
	ret = series_index_build(&ix, r);
	if (ret)
		return ret;
	ret = series_extract(&ix, scope, name, cls, m, out, n);
	free(ix.p);
	return ret;
}

int analyze_series_trans(const struct results *r, enum scope_kind scope, const char *name,
			 double **out, size_t *n)
{
	struct series_index ix;
	int ret;

	*out = NULL;
	*n = 0;
	ret = series_index_build(&ix, r);
	if (ret)
		return ret;
	ret = series_extract_trans(&ix, scope, name, out, n);
	free(ix.p);
	return ret;
}

/* ---- figures ---- */

static double summary_metric(const struct class_summary *cs, enum analyze_metric m)
{
	switch (m) {
	case ANALYZE_IOPS:
		return cs->iops;
	case ANALYZE_AVG_MS:
		return cs->avg_ms;
	case ANALYZE_P50_MS:
		return cs->p50_ms;
	case ANALYZE_P99_MS:
		return cs->p99_ms;
	default:
		return cs->max_ms;
	}
}

/* A latency of a class with no I/O is undefined (NAN: null, "n/a"), not 0:
 * a class one run did not issue did not get -100 % faster in it. */
static double figure_of(const struct class_summary *cs, enum analyze_metric m)
{
	if (m != ANALYZE_IOPS && !cs->ios)
		return NAN;
	return summary_metric(cs, m);
}

struct cmp_ctx {
	const struct results *a, *b;
	struct series_index ia, ib;
	double alpha;
};

/*
 * A class neither run issued in the scope (results_class_present) keeps its
 * figures (IOPS 0, latencies NAN) but is not tested: a series of zero IOPS on both sides
 * says nothing, and counting it in the scope's family would only weaken
 * Holm's correction for the classes that ran.
 */
static int class_compare(struct cmp_ctx *cx, const struct scope_summary *sa,
			 const struct scope_summary *sb, enum scope_kind scope, enum io_class cls,
			 struct analyze_class *out)
{
	double *xa = NULL, *xb = NULL;
	size_t na = 0, nb = 0;
	int ret = 0;

	out->present = results_class_present(&sa->classes[cls]) ||
		       results_class_present(&sb->classes[cls]);
	for (int m = 0; m < ANALYZE_METRIC_COUNT && !ret; m++) {
		struct analyze_figure *f = &out->fig[m];

		f->a = figure_of(&sa->classes[cls], m);
		f->b = figure_of(&sb->classes[cls], m);
		f->change_pct = analyze_change_pct(f->a, f->b);
		if (out->present)
			ret = series_extract(&cx->ia, scope, sa->name, cls, m, &xa, &na);
		if (!ret && out->present)
			ret = series_extract(&cx->ib, scope, sb->name, cls, m, &xb, &nb);
		if (!ret)
			ret = analyze_mann_whitney(xa, na, xb, nb, &f->test);
		f->significant = false; /* decided over the whole family: holm() */
		if (!ret && m == ANALYZE_AVG_MS) {
			analyze_dispersion(xa, na, &out->sd_ms_a, &out->cv_a);
			analyze_dispersion(xb, nb, &out->sd_ms_b, &out->cv_b);
			out->sd.a = out->sd_ms_a;
			out->sd.b = out->sd_ms_b;
			out->sd.change_pct =
				analyze_change_pct_res(out->sd_ms_a, out->sd_ms_b, SD_RES);
			out->cv_change_pct = analyze_change_pct_res(out->cv_a, out->cv_b, SD_RES);
			ret = analyze_brown_forsythe(xa, na, xb, nb, &out->sd.test);
		}
		free(xa);
		free(xb);
		xa = xb = NULL;
	}
	return ret;
}

/* The scope's transactional IOPS (db_read + db_write), tested like a class's
 * IOPS when either run issued either class there. */
static int trans_compare(struct cmp_ctx *cx, const struct scope_summary *sa,
			 const struct scope_summary *sb, enum scope_kind scope,
			 struct analyze_scope *s)
{
	struct analyze_figure *f = &s->trans_iops;
	double *xa = NULL, *xb = NULL;
	size_t na = 0, nb = 0;
	int ret = 0;

	f->a = sa->classes[IO_DB_READ].iops + sa->classes[IO_DB_WRITE].iops;
	f->b = sb->classes[IO_DB_READ].iops + sb->classes[IO_DB_WRITE].iops;
	f->change_pct = analyze_change_pct(f->a, f->b);
	if (s->classes[IO_DB_READ].present || s->classes[IO_DB_WRITE].present) {
		ret = series_extract_trans(&cx->ia, scope, sa->name, &xa, &na);
		if (!ret)
			ret = series_extract_trans(&cx->ib, scope, sb->name, &xb, &nb);
	}
	if (!ret)
		ret = analyze_mann_whitney(xa, na, xb, nb, &f->test);
	free(xa);
	free(xb);
	return ret;
}

static int scope_add(struct cmp_ctx *cx, struct analyze_comparison *c, enum scope_kind scope,
		     const struct scope_summary *sa, const struct scope_summary *sb)
{
	struct analyze_scope *s = &c->scopes[c->nr_scopes++];
	int ret = 0;

	memset(s, 0, sizeof(*s));
	s->scope = scope;
	memcpy(s->name, sa->name, sizeof(s->name));
	s->name[sizeof(s->name) - 1] = '\0';
	if (scope == SCOPE_DATABASE) {
		memcpy(s->volume, sb->volume, sizeof(s->volume));
		s->volume[sizeof(s->volume) - 1] = '\0';
	}
	for (int k = 0; k < IO_CLASS_COUNT && !ret; k++)
		ret = class_compare(cx, sa, sb, scope, k, &s->classes[k]);
	if (!ret)
		ret = trans_compare(cx, sa, sb, scope, s);
	return ret;
}

static const struct scope_summary *scope_lookup(const struct scope_summary *arr, size_t n,
						const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(arr[i].name, name))
			return &arr[i];
	return NULL;
}

static void unmatched_add(struct analyze_comparison *c, enum scope_kind scope, const char *name,
			  bool in_a)
{
	struct analyze_unmatched *u = &c->unmatched[c->nr_unmatched++];

	u->scope = scope;
	memcpy(u->name, name, sizeof(u->name));
	u->name[sizeof(u->name) - 1] = '\0';
	u->in_a = in_a;
}

/* Every volume (or database) of A matched in B by name; the rest unmatched. */
static int scopes_match(struct cmp_ctx *cx, struct analyze_comparison *c, enum scope_kind scope,
			const struct scope_summary *arr_a, size_t na,
			const struct scope_summary *arr_b, size_t nb)
{
	const struct scope_summary *m;
	int ret = 0;

	for (size_t i = 0; i < na && !ret; i++) {
		m = scope_lookup(arr_b, nb, arr_a[i].name);
		if (m)
			ret = scope_add(cx, c, scope, &arr_a[i], m);
		else
			unmatched_add(c, scope, arr_a[i].name, true);
	}
	for (size_t i = 0; i < nb; i++)
		if (!scope_lookup(arr_a, na, arr_b[i].name))
			unmatched_add(c, scope, arr_b[i].name, false);
	return ret;
}

/* ---- verdicts and environment ---- */

/* The length of s before suffix, 0 when s does not end with it. */
static size_t before_suffix(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lf = strlen(suffix);

	return ls > lf && !strcmp(s + ls - lf, suffix) ? ls - lf : 0;
}

/* The two bases of one maximum (max_basis): "C_max_ms" and
 * "C_max_sample_avg_ms" of the same class C judge the same thing. */
static bool criterion_same(const char *x, const char *y)
{
	static const char io[] = "_max_ms", smp[] = "_max_sample_avg_ms";
	size_t n;

	if (!strcmp(x, y))
		return true;
	n = before_suffix(x, io);
	if (n && n == before_suffix(y, smp) && !strncmp(x, y, n))
		return true;
	n = before_suffix(x, smp);
	return n && n == before_suffix(y, io) && !strncmp(x, y, n);
}

static bool verdict_same_item(const struct verdict *x, const struct verdict *y)
{
	return x->scope == y->scope && !strcmp(x->name, y->name) &&
	       criterion_same(x->criterion, y->criterion);
}

static int verdicts_compare(struct analyze_comparison *c, const struct results *a,
			    const struct results *b)
{
	size_t cap = a->nr_verdicts;

	if (!cap)
		return 0;
	c->verdict_changes = calloc(cap, sizeof(*c->verdict_changes));
	if (!c->verdict_changes)
		return -ENOMEM;
	for (size_t i = 0; i < a->nr_verdicts; i++) {
		const struct verdict *va = &a->verdicts[i], *vb = NULL;
		struct analyze_verdict_change *vc;

		for (size_t k = 0; k < b->nr_verdicts && !vb; k++)
			if (verdict_same_item(va, &b->verdicts[k]))
				vb = &b->verdicts[k];
		if (!vb || vb->passed == va->passed)
			continue;
		vc = &c->verdict_changes[c->nr_verdict_changes++];
		vc->scope = va->scope;
		memcpy(vc->name, va->name, sizeof(vc->name));
		memcpy(vc->volume, va->volume, sizeof(vc->volume));
		memcpy(vc->criterion, va->criterion, sizeof(vc->criterion));
		vc->name[sizeof(vc->name) - 1] = '\0';
		vc->volume[sizeof(vc->volume) - 1] = '\0';
		vc->criterion[sizeof(vc->criterion) - 1] = '\0';
		memcpy(vc->criterion_b, vb->criterion, sizeof(vc->criterion_b));
		vc->criterion_b[sizeof(vc->criterion_b) - 1] = '\0';
		vc->cmp = va->cmp;
		vc->threshold_a = va->threshold;
		vc->threshold_b = vb->threshold;
		vc->measured_a = va->measured;
		vc->measured_b = vb->measured;
		vc->passed_a = va->passed;
		vc->passed_b = vb->passed;
	}
	return 0;
}

static const struct results_env *env_lookup(const struct results *r, const char *key)
{
	for (size_t i = 0; i < r->nr_env; i++)
		if (r->env[i].key && !strcmp(r->env[i].key, key))
			return &r->env[i];
	return NULL;
}

static bool str_eq(const char *x, const char *y)
{
	if (!x || !y)
		return x == y;
	return !strcmp(x, y);
}

/* Facts that differ from one run to the next on one unchanged machine:
 * the clock's error bounds move every second a time daemon disciplines it.
 * Listed as "what changed", they would bury what did (a firmware). */
static bool env_volatile(const char *key)
{
	return !strcmp(key, "host.clock.max_error_us") || !strcmp(key, "host.clock.est_error_us");
}

static int env_compare(struct analyze_comparison *c, const struct results *a,
		       const struct results *b)
{
	size_t cap = a->nr_env + b->nr_env;

	if (!cap)
		return 0;
	c->env_diffs = calloc(cap, sizeof(*c->env_diffs));
	if (!c->env_diffs)
		return -ENOMEM;
	for (size_t i = 0; i < a->nr_env; i++) {
		const struct results_env *ea = &a->env[i], *eb;

		if (!ea->key || env_lookup(a, ea->key) != ea || /* repeated key: first wins */
		    env_volatile(ea->key))
			continue;
		eb = env_lookup(b, ea->key);
		if (eb && str_eq(ea->value, eb->value))
			continue;
		c->env_diffs[c->nr_env_diffs++] =
			(struct analyze_env_diff){ea->key, ea->value, eb ? eb->value : NULL};
	}
	for (size_t i = 0; i < b->nr_env; i++) {
		const struct results_env *eb = &b->env[i];

		if (!eb->key || env_lookup(b, eb->key) != eb || env_lookup(a, eb->key) ||
		    env_volatile(eb->key))
			continue;
		c->env_diffs[c->nr_env_diffs++] =
			(struct analyze_env_diff){eb->key, NULL, eb->value};
	}
	return 0;
}

/* ---- host counters ---- */

static const char *const host_metric_names[] = {
	[ANALYZE_HOST_CPU_USER] = "cpu_user_pct",
	[ANALYZE_HOST_CPU_SYSTEM] = "cpu_system_pct",
	[ANALYZE_HOST_CPU_IOWAIT] = "cpu_iowait_pct",
	[ANALYZE_HOST_MEM_MIN] = "mem_available_min_bytes",
	[ANALYZE_HOST_MEM_AVG] = "mem_available_avg_bytes",
};

static const char *const dev_metric_names[] = {
	[ANALYZE_DEV_READS_PER_S] = "reads_per_s",
	[ANALYZE_DEV_WRITES_PER_S] = "writes_per_s",
	[ANALYZE_DEV_READ_MBPS] = "read_mbps",
	[ANALYZE_DEV_WRITE_MBPS] = "write_mbps",
	[ANALYZE_DEV_READ_WAIT_MS] = "read_wait_ms",
	[ANALYZE_DEV_WRITE_WAIT_MS] = "write_wait_ms",
	[ANALYZE_DEV_AVG_WAIT_MS] = "avg_wait_ms",
	[ANALYZE_DEV_UTIL_PCT] = "util_pct",
	[ANALYZE_DEV_QUEUE] = "queue",
};

const char *analyze_host_metric_name(enum analyze_host_metric m)
{
	if ((unsigned)m >= DP_ARRAY_SIZE(host_metric_names))
		return "unknown";
	return host_metric_names[m];
}

const char *analyze_dev_metric_name(enum analyze_dev_metric m)
{
	if ((unsigned)m >= DP_ARRAY_SIZE(dev_metric_names))
		return "unknown";
	return dev_metric_names[m];
}

/* The host figures of a run (NAN when it has none). */
/*
 * The steps the host counters are shown in (report/compare.c's decimals, in
 * the units analyze keeps: memory in bytes), and the dispersion's (sd ms,
 * cv: 4 decimals): two figures that both read 0 at their step are
 * unchanged, not -100 % (analyze_change_pct_res).
 */
static const double host_res[ANALYZE_HOST_METRIC_COUNT] = {
	[ANALYZE_HOST_CPU_USER] = 0.1,
	[ANALYZE_HOST_CPU_SYSTEM] = 0.1,
	[ANALYZE_HOST_CPU_IOWAIT] = 0.1,
	[ANALYZE_HOST_MEM_MIN] = 0.1 * 1024 * 1024,
	[ANALYZE_HOST_MEM_AVG] = 0.1 * 1024 * 1024,
};
static const double dev_res[ANALYZE_DEV_METRIC_COUNT] = {
	[ANALYZE_DEV_READS_PER_S] = 0.1,   [ANALYZE_DEV_WRITES_PER_S] = 0.1,
	[ANALYZE_DEV_READ_MBPS] = 0.01,	   [ANALYZE_DEV_WRITE_MBPS] = 0.01,
	[ANALYZE_DEV_READ_WAIT_MS] = 1e-3, [ANALYZE_DEV_WRITE_WAIT_MS] = 1e-3,
	[ANALYZE_DEV_AVG_WAIT_MS] = 1e-3,  [ANALYZE_DEV_UTIL_PCT] = 0.1,
	[ANALYZE_DEV_QUEUE] = 0.01,
};

static void host_figures(const struct results *r, double *out)
{
	const struct results_host_perf *h = &r->host_perf;

	for (int m = 0; m < ANALYZE_HOST_METRIC_COUNT; m++)
		out[m] = NAN;
	if (!h->recorded)
		return;
	out[ANALYZE_HOST_CPU_USER] = h->cpu_user_pct;
	out[ANALYZE_HOST_CPU_SYSTEM] = h->cpu_system_pct;
	out[ANALYZE_HOST_CPU_IOWAIT] = h->cpu_iowait_pct;
	out[ANALYZE_HOST_MEM_MIN] = h->mem_available_min;
	out[ANALYZE_HOST_MEM_AVG] = h->mem_available_avg;
}

/* A device's figures (NAN for a device the run did not measure). */
static void dev_figures(const struct results_host_device *d, double *out)
{
	const double v[] = {
		[ANALYZE_DEV_READS_PER_S] = d ? d->reads_per_s : NAN,
		[ANALYZE_DEV_WRITES_PER_S] = d ? d->writes_per_s : NAN,
		[ANALYZE_DEV_READ_MBPS] = d ? d->read_mbps : NAN,
		[ANALYZE_DEV_WRITE_MBPS] = d ? d->write_mbps : NAN,
		[ANALYZE_DEV_READ_WAIT_MS] = d ? d->read_wait_ms : NAN,
		[ANALYZE_DEV_WRITE_WAIT_MS] = d ? d->write_wait_ms : NAN,
		[ANALYZE_DEV_AVG_WAIT_MS] = d ? d->avg_wait_ms : NAN,
		[ANALYZE_DEV_UTIL_PCT] = d ? d->util_pct : NAN,
		[ANALYZE_DEV_QUEUE] = d ? d->queue : NAN,
	};

	memcpy(out, v, sizeof(v));
}

static const struct results_host_device *host_dev_lookup(const struct results_host_perf *h,
							 const char *name)
{
	for (size_t i = 0; i < h->nr_devices; i++)
		if (!strcmp(h->devices[i].name, name))
			return &h->devices[i];
	return NULL;
}

static void host_dev_add(struct analyze_host *h, const char *name,
			 const struct results_host_device *da, const struct results_host_device *db)
{
	struct analyze_host_device *d = &h->devices[h->nr_devices++];
	double a[ANALYZE_DEV_METRIC_COUNT], b[ANALYZE_DEV_METRIC_COUNT];

	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "%s", name);
	d->in_a = da != NULL;
	d->in_b = db != NULL;
	dev_figures(da, a);
	dev_figures(db, b);
	for (int m = 0; m < ANALYZE_DEV_METRIC_COUNT; m++)
		d->fig[m] = (struct analyze_pair){a[m], b[m],
						  analyze_change_pct_res(a[m], b[m], dev_res[m])};
}

static int host_compare(struct analyze_host *h, const struct results *a, const struct results *b)
{
	const struct results_host_perf *ha = &a->host_perf, *hb = &b->host_perf;
	double fa[ANALYZE_HOST_METRIC_COUNT], fb[ANALYZE_HOST_METRIC_COUNT];
	size_t cap = ha->nr_devices + hb->nr_devices;

	h->in_a = ha->recorded;
	h->in_b = hb->recorded;
	host_figures(a, fa);
	host_figures(b, fb);
	for (int m = 0; m < ANALYZE_HOST_METRIC_COUNT; m++)
		h->fig[m] = (struct analyze_pair){
			fa[m], fb[m], analyze_change_pct_res(fa[m], fb[m], host_res[m])};
	if (!cap)
		return 0;
	h->devices = calloc(cap, sizeof(*h->devices));
	if (!h->devices)
		return -ENOMEM;
	for (size_t i = 0; i < ha->nr_devices; i++)
		host_dev_add(h, ha->devices[i].name, &ha->devices[i],
			     host_dev_lookup(hb, ha->devices[i].name));
	for (size_t i = 0; i < hb->nr_devices; i++)
		if (!host_dev_lookup(ha, hb->devices[i].name))
			host_dev_add(h, hb->devices[i].name, NULL, &hb->devices[i]);
	return 0;
}

/* ---- the comparison ---- */

static int cmp_p(const void *x, const void *y)
{
	const struct analyze_figure *a = *(struct analyze_figure *const *)x;
	const struct analyze_figure *b = *(struct analyze_figure *const *)y;

	return a->test.p_value < b->test.p_value ? -1 : a->test.p_value > b->test.p_value;
}

/*
 * Holm's step-down correction within each scope (the run, a volume, a
 * database: 5 metrics and the dispersion test x the classes either run
 * issued there, plus the transactional IOPS: 6 x 5 + 1 = 31 for a normal
 * run's five classes, at most 37): tested one by one at alpha 0.01,
 * a hundred figures give a chance flag about every other comparison of two
 * identical runs. Sorted by p, the k-th smallest of the scope's m tested
 * figures is significant when it and every smaller one satisfy
 * p <= alpha / (m - k + 1); this holds the chance of any false flag in a scope
 * at or below alpha without assuming the tests independent. (Correcting over
 * the whole comparison instead would leave a database's 15 s windows of a
 * short run - 8 against 8, exact p at least 1.6e-4 - no power at all.)
 */
void analyze_holm(struct analyze_figure **v, size_t m, double alpha)
{
	qsort(v, m, sizeof(v[0]), cmp_p);
	for (size_t k = 0; k < m; k++) {
		if (!(v[k]->test.p_value <= alpha / (double)(m - k)))
			break;
		v[k]->significant = true;
	}
}

static void holm_scope(struct analyze_scope *sc, double alpha, size_t *family)
{
	struct analyze_figure *v[IO_CLASS_COUNT * (ANALYZE_METRIC_COUNT + 1) + 1];
	size_t m = 0;

	for (int k = 0; k < IO_CLASS_COUNT; k++) {
		for (int f = 0; f < ANALYZE_METRIC_COUNT; f++)
			if (sc->classes[k].fig[f].test.method != ANALYZE_NONE)
				v[m++] = &sc->classes[k].fig[f];
		if (sc->classes[k].sd.test.method != ANALYZE_NONE)
			v[m++] = &sc->classes[k].sd;
	}
	if (sc->trans_iops.test.method != ANALYZE_NONE)
		v[m++] = &sc->trans_iops;
	if (m > *family)
		*family = m;
	analyze_holm(v, m, alpha);
}

static int holm(struct analyze_comparison *c)
{
	c->family = 0;
	for (size_t i = 0; i < c->nr_scopes; i++)
		holm_scope(&c->scopes[i], c->alpha, &c->family);
	return 0;
}

int analyze_compare(struct analyze_comparison *out, const struct results *a,
		    const struct results *b, double alpha, struct strbuf *err)
{
	struct cmp_ctx cx = {.a = a, .b = b, .alpha = alpha};
	size_t nscopes = 1 + a->nr_volumes + a->nr_databases;
	size_t nunmatched = a->nr_volumes + b->nr_volumes + a->nr_databases + b->nr_databases;
	int ret;

	memset(out, 0, sizeof(*out));
	out->a = a;
	out->b = b;
	out->alpha = alpha;
	out->test = ANALYZE_TEST_NAME;
	if (!(alpha > 0 && alpha < 1)) {
		strbuf_addf(err, "analyze: alpha %g: must be between 0 and 1", alpha);
		return -EINVAL;
	}
	ret = series_index_build(&cx.ia, a);
	if (!ret)
		ret = series_index_build(&cx.ib, b);
	if (ret)
		goto out_nomem;
	out->scopes = calloc(nscopes, sizeof(*out->scopes));
	out->unmatched = calloc(nunmatched ? nunmatched : 1, sizeof(*out->unmatched));
	if (!out->scopes || !out->unmatched) {
		ret = -ENOMEM;
		goto out_nomem;
	}
	ret = scope_add(&cx, out, SCOPE_RUN, &a->run, &b->run);
	if (!ret)
		ret = scopes_match(&cx, out, SCOPE_VOLUME, a->volumes, a->nr_volumes, b->volumes,
				   b->nr_volumes);
	if (!ret)
		ret = scopes_match(&cx, out, SCOPE_DATABASE, a->databases, a->nr_databases,
				   b->databases, b->nr_databases);
	if (!ret)
		ret = holm(out);
	if (!ret)
		analyze_comparison_set_min_change(out, ANALYZE_MIN_CHANGE_DEFAULT);
	if (!ret)
		ret = verdicts_compare(out, a, b);
	if (!ret)
		ret = env_compare(out, a, b);
	if (!ret)
		ret = analyze_param_diffs(a, b, &out->param_diffs, &out->nr_param_diffs);
	if (!ret)
		ret = host_compare(&out->host, a, b);
out_nomem:
	free(cx.ia.p);
	free(cx.ib.p);
	if (ret) {
		strbuf_addf(err, "analyze: comparing runs %lld and %lld: %s", (long long)a->id,
			    (long long)b->id, ret == -ENOMEM ? "out of memory" : "invalid sample");
		analyze_comparison_release(out);
	}
	return ret;
}

void analyze_comparison_release(struct analyze_comparison *c)
{
	if (!c)
		return;
	free(c->scopes);
	free(c->verdict_changes);
	free(c->env_diffs);
	analyze_param_diffs_release(c->param_diffs, c->nr_param_diffs);
	c->param_diffs = NULL;
	c->nr_param_diffs = 0;
	free(c->unmatched);
	free(c->host.devices);
	c->host.devices = NULL;
	c->host.nr_devices = 0;
	c->scopes = NULL;
	c->verdict_changes = NULL;
	c->env_diffs = NULL;
	c->unmatched = NULL;
	c->nr_scopes = c->nr_verdict_changes = c->nr_env_diffs = c->nr_unmatched = 0;
}
