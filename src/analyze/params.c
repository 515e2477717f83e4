/* SPDX-License-Identifier: MIT */
/*
 * params.c - what two runs were asked to do differently: the profile, the
 * streams they ran at, the measured duration, and every effective parameter
 * (results.h, struct results_param; the [sim] device keys included). A
 * comparison that says "environment differences: none" about two runs of
 * different profiles hides the first thing a reader must know.
 *
 * Parameters are matched by section, section name and key. Their values are
 * compared as text: both runs wrote them through the same formatter
 * (profile_params), so equal values are equal strings.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diskproof/analyze.h"

struct diffs {
	struct analyze_param_diff *v;
	size_t n, cap;
};

static int diff_add(struct diffs *d, const char *what, const char *a, const char *b,
		    const char *src_a, const char *src_b)
{
	struct analyze_param_diff *e;

	if (d->n == d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 16;
		struct analyze_param_diff *v = realloc(d->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		d->v = v;
		d->cap = cap;
	}
	e = &d->v[d->n];
	memset(e, 0, sizeof(*e));
	e->what = strdup(what);
	e->a = a ? strdup(a) : NULL;
	e->b = b ? strdup(b) : NULL;
	d->n++; /* counted before the checks: released with the rest */
	if (!e->what || (a && !e->a) || (b && !e->b))
		return -ENOMEM;
	snprintf(e->source_a, sizeof(e->source_a), "%s", src_a ? src_a : "");
	snprintf(e->source_b, sizeof(e->source_b), "%s", src_b ? src_b : "");
	return 0;
}

static bool str_same(const char *x, const char *y)
{
	return (!x || !y) ? x == y : !strcmp(x, y);
}

static const struct results_param *param_find(const struct results *r,
					      const struct results_param *p)
{
	for (size_t i = 0; i < r->nr_params; i++) {
		const struct results_param *q = &r->params[i];

		if (!strcmp(q->section, p->section) && !strcmp(q->name, p->name) &&
		    !strcmp(q->key, p->key))
			return q;
	}
	return NULL;
}

/*
 * p's counterpart in r: its own entry, or, for a volume's [sim NAME] or
 * [sim-log NAME] key that r's profile did not set, r's [sim] value, which
 * that volume's device inherits (*inherited set). NULL: r has neither.
 */
static const struct results_param *param_effective(const struct results *r,
						   const struct results_param *p, bool *inherited)
{
	const struct results_param *q = param_find(r, p);
	struct results_param global = {.section = "sim"};

	struct results_param vol = {.section = "volume", .key = "path"};

	*inherited = false;
	if (q || !*p->name || (strcmp(p->section, "sim") && strcmp(p->section, "sim-log")))
		return q;
	/* a volume r does not have inherits nothing: it is absent */
	snprintf(vol.name, sizeof(vol.name), "%s", p->name);
	if (!param_find(r, &vol))
		return NULL;
	snprintf(global.key, sizeof(global.key), "%s", p->key);
	q = param_find(r, &global);
	*inherited = q != NULL;
	return q;
}

static void param_what(char *out, size_t len, const struct results_param *p)
{
	if (*p->name)
		snprintf(out, len, "[%s %s] %s", p->section, p->name, p->key);
	else
		snprintf(out, len, "[%s] %s", p->section, p->key);
}

/* The run-level figures: profile, streams, measured duration. */
static int run_diffs(struct diffs *d, const struct results *a, const struct results *b)
{
	char va[64], vb[64];
	double da = a->duration_s, db = b->duration_s;
	int ret = 0;

	if (!str_same(a->profile_name, b->profile_name))
		ret = diff_add(d, "profile", a->profile_name, b->profile_name, "", "");
	if (!ret && a->streams != b->streams) {
		snprintf(va, sizeof(va), "%u", a->streams);
		snprintf(vb, sizeof(vb), "%u", b->streams);
		ret = diff_add(d, "streams (as run)", va, vb, "", "");
	}
	/* the databases' total size at the start (capacity sizing makes it
	 * differ where database_size does not) */
	if (!ret && a->run.size_known && b->run.size_known && a->run.size != b->run.size) {
		snprintf(va, sizeof(va), "%.3f GiB", (double)a->run.size / (1 << 30));
		snprintf(vb, sizeof(vb), "%.3f GiB", (double)b->run.size / (1 << 30));
		ret = diff_add(d, "database size (all databases, at the start)", va, vb, "", "");
	}
	/* a measured duration differs by a few ms from run to run */
	if (!ret && fabs(da - db) > 1.0 && fabs(da - db) > 0.01 * fmax(da, db)) {
		snprintf(va, sizeof(va), "%.1f s", da);
		snprintf(vb, sizeof(vb), "%.1f s", db);
		ret = diff_add(d, "measured duration", va, vb, "", "");
	}
	return ret;
}

int analyze_param_diffs(const struct results *a, const struct results *b,
			struct analyze_param_diff **out, size_t *n)
{
	struct diffs d = {0};
	char what[3 * RESULTS_NAME_MAX + 8];
	int ret;

	*out = NULL;
	*n = 0;
	ret = run_diffs(&d, a, b);
	for (size_t i = 0; !ret && i < a->nr_params; i++) {
		const struct results_param *pa = &a->params[i], *pb;
		bool inh;

		pb = param_effective(b, pa, &inh);
		if (pb && str_same(pa->value, pb->value))
			continue;
		/* the profile's name is listed above as "profile" */
		if (!strcmp(pa->section, "test") && !strcmp(pa->key, "name") && pb &&
		    !str_same(a->profile_name, b->profile_name))
			continue;
		param_what(what, sizeof(what), pa);
		ret = diff_add(&d, what, pa->value ? pa->value : "(not set)",
			       pb ? (pb->value ? pb->value : "(not set)") : NULL, pa->source,
			       pb ? (inh ? "from [sim]" : pb->source) : "");
	}
	for (size_t i = 0; !ret && i < b->nr_params; i++) {
		const struct results_param *pb = &b->params[i], *pa;
		bool inh;

		if (param_find(a, pb))
			continue; /* listed above */
		pa = param_effective(a, pb, &inh);
		if (pa && str_same(pa->value, pb->value))
			continue;
		param_what(what, sizeof(what), pb);
		ret = diff_add(&d, what, pa ? (pa->value ? pa->value : "(not set)") : NULL,
			       pb->value ? pb->value : "(not set)",
			       pa ? (inh ? "from [sim]" : pa->source) : "", pb->source);
	}
	if (ret) {
		analyze_param_diffs_release(d.v, d.n);
		return ret;
	}
	*out = d.v;
	*n = d.n;
	return 0;
}

void analyze_param_diffs_release(struct analyze_param_diff *d, size_t n)
{
	if (!d)
		return;
	for (size_t i = 0; i < n; i++) {
		free(d[i].what);
		free(d[i].a);
		free(d[i].b);
	}
	free(d);
}
