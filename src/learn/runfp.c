/* SPDX-License-Identifier: MIT */
/*
 * runfp.c - a run's own device fingerprint (docs/learn.md): the fingerprint
 * a learned profile keeps ([test] fingerprint, read and checked), the
 * devices under a profile's volumes watched over the run's measured window
 * (learn_run_watch: the roles as learn resolves them, /proc/diskstats at the
 * window's two ends), the fingerprint that makes (learn_run_fingerprint, the
 * same figures and arithmetic as "diskproof fingerprint") and its comparison
 * with the kept one as the reports show it (learn_results_compare).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "diskproof/learn.h"
#include "diskproof/profile.h"
#include "diskproof/results.h"
#include "diskproof/trace.h"

/* The line of [test] fingerprint in p, 0 when not known. */
static unsigned key_line(const struct profile *p)
{
	size_t n;
	const struct profile_key *k = profile_keys(&n);

	for (size_t i = 0; p->key_lines && i < n; i++)
		if (!strcmp(k[i].section, "test") && !strcmp(k[i].name, "fingerprint"))
			return p->key_lines[i];
	return 0;
}

/* The whole of path into out; 0 or -errno. */
static int slurp(const char *path, struct strbuf *out)
{
	char chunk[8192];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC), e;

	if (fd < 0)
		return -errno;
	while ((n = read(fd, chunk, sizeof(chunk))) > 0)
		strbuf_add(out, chunk, (size_t)n);
	e = n < 0 ? -errno : 0;
	close(fd);
	return e;
}

/* fingerprint resolved against the directory of the profile's origin. */
static void resolve(const struct profile *p, struct strbuf *path)
{
	const char *o = p->origin ? p->origin : "";
	const char *slash = strrchr(o, '/');

	if (p->fingerprint[0] != '/' && slash && strncmp(o, "builtin:", 8) != 0)
		strbuf_add(path, o, (size_t)(slash - o + 1));
	strbuf_addstr(path, p->fingerprint);
}

int learn_profile_fingerprint(const struct profile *p, struct learn_fp *fp, struct strbuf *json,
			      struct strbuf *err)
{
	struct strbuf path = STRBUF_INIT, why = STRBUF_INIT;
	int ret;

	if (!p->fingerprint || !*p->fingerprint)
		return 1;
	resolve(p, &path);
	strbuf_reset(json);
	ret = slurp(path.buf, json);
	if (ret)
		strbuf_addf(&why, "%s: cannot read: %s", path.buf, strerror(-ret));
	else if ((ret = learn_fp_parse(json->buf, path.buf, fp, &why)) != 0)
		ret = -EINVAL;
	if (ret)
		strbuf_addf(err, "%s:%u: [test] fingerprint: %s", p->origin ? p->origin : "profile",
			    key_line(p), why.buf);
	strbuf_release(&path);
	strbuf_release(&why);
	return ret;
}

int learn_run_watch_init(struct learn_run_watch *w, const struct profile *p, const char *sysfs,
			 struct strbuf *err)
{
	int ret = 0;

	memset(w, 0, sizeof(*w));
	snprintf(w->proc, sizeof(w->proc), "/proc");
	for (size_t i = 0; !ret && i < p->nr_volumes; i++) {
		const struct profile_volume *v = &p->volumes[i];

		ret = learn_where_add(sysfs, v->path, &w->fp.role[LEARN_DATA].where, err);
		if (!ret && v->log_path && *v->log_path) {
			ret = learn_where_add(sysfs, v->log_path, &w->fp.role[LEARN_LOG].where,
					      err);
			w->fp.role[LEARN_LOG].present = true;
		}
	}
	w->fp.role[LEARN_DATA].present = p->nr_volumes > 0;
	w->fp.transactions = -1;
	snprintf(w->fp.source, sizeof(w->fp.source), "run");
	return ret;
}

/* Every watched device's counters now into snap[role][device]. */
static int snapshot(struct learn_run_watch *w, struct learn_counters (*snap)[LEARN_DEVS_MAX])
{
	struct strbuf text = STRBUF_INIT;
	char path[sizeof(w->proc) + 16];
	int ret;

	snprintf(path, sizeof(path), "%s/diskstats", w->proc);
	ret = slurp(path, &text);
	if (ret)
		snprintf(w->error, sizeof(w->error), "%s: cannot read: %s", path, strerror(-ret));
	for (int r = 0; !ret && r < LEARN_ROLES; r++) {
		const struct learn_where *wh = &w->fp.role[r].where;

		for (size_t i = 0; !ret && w->fp.role[r].present && i < wh->nr_devices; i++) {
			ret = learn_diskstats_find(text.buf ? text.buf : "", wh->devices[i],
						   &snap[r][i]);
			if (ret)
				snprintf(w->error, sizeof(w->error),
					 "%s: device %s is not in it (removed?)", path,
					 wh->devices[i]);
		}
	}
	strbuf_release(&text);
	return ret;
}

void learn_run_watch_mark(void *arg, bool end, uint64_t mono_ns)
{
	struct learn_run_watch *w = arg;

	if (w->error[0] || (end ? !w->started || w->ended : w->started))
		return;
	if (!end) {
		time_t now = time(NULL);
		struct tm tm;

		if (gmtime_r(&now, &tm))
			strftime(w->fp.start_utc, sizeof(w->fp.start_utc), "%Y-%m-%dT%H:%M:%SZ",
				 &tm);
		w->t0_ns = mono_ns;
		w->started = !snapshot(w, w->a);
		return;
	}
	w->t1_ns = mono_ns;
	w->ended = !snapshot(w, w->b);
}

int learn_run_fingerprint(const struct learn_run_watch *w, double transactions,
			  struct learn_fp *out, struct strbuf *err)
{
	if (w->error[0]) {
		strbuf_addstr(err, w->error);
		return -EIO;
	}
	if (!w->started || !w->ended || w->t1_ns <= w->t0_ns) {
		strbuf_addstr(err, "the run's measured window was not watched (it did not start "
				   "or end)");
		return -ENODATA;
	}
	*out = w->fp;
	out->seconds = (double)(w->t1_ns - w->t0_ns) / 1e9;
	out->transactions = transactions;
	for (int r = 0; r < LEARN_ROLES; r++) {
		struct learn_role *role = &out->role[r];

		memset(&role->c, 0, sizeof(role->c));
		for (size_t i = 0; role->present && i < role->where.nr_devices; i++) {
			struct learn_counters d;

			learn_counters_delta(&w->a[r][i], &w->b[r][i], &d);
			learn_counters_add(&role->c, &d, i == 0);
		}
	}
	return 0;
}

/* Every row the comparison can have: no row dropped (63 of 64 were used),
 * and each role's traced figures fit the figures' arrays they go into. */
_Static_assert(LEARN_TRACE_FIGURES <= LEARN_FIGURES_MAX, "a role's traced figures fit");
_Static_assert(RESULTS_FP_ROWS_MAX >= LEARN_FIGURES_MAX + LEARN_ROLES * LEARN_TRACE_FIGURES,
	       "results_fp_compare holds the figures and each role's traced ones");

/* One row of the comparison (fingerprint.c's compare_row, as data). */
static void compare_row(const struct learn_figure *fa, const struct learn_figure *fb,
			struct results_fp_compare *c)
{
	struct results_fp_row *row;

	if ((isnan(fa->value) && isnan(fb->value)) || c->nr_rows == RESULTS_FP_ROWS_MAX)
		return;
	row = &c->rows[c->nr_rows++];
	snprintf(row->label, sizeof(row->label), "%s", fa->label);
	snprintf(row->key, sizeof(row->key), "%s", fa->key);
	row->kept = fa->value;
	row->run = fb->value;
	row->diff_pct = (fb->value - fa->value) / fa->value * 100;
	if (!isfinite(row->diff_pct))
		row->diff_pct = NAN;
	row->events_kept = fa->events;
	row->events_run = fb->events;
	row->decimals = fa->decimals;
	row->asserted = fa->asserted;
	row->left_out = fa->events < LEARN_EVENTS_MIN || fb->events < LEARN_EVENTS_MIN;
	if (row->left_out) {
		c->left_out++;
		return;
	}
	if (row->asserted) {
		c->asserted++;
		row->off = !(isfinite(row->diff_pct) && fabs(row->diff_pct) <= c->tolerance_pct);
		c->off += row->off;
	}
}

void learn_fp_compare_rows(const struct learn_fp *a, const struct learn_fp *b, double tol_pct,
			   struct results_fp_compare *c)
{
	struct learn_figure fa[LEARN_FIGURES_MAX], fb[LEARN_FIGURES_MAX];
	size_t n = learn_fp_figures(a, fa);

	learn_fp_figures(b, fb);
	c->tolerance_pct = tol_pct;
	for (size_t i = 0; i < n; i++)
		compare_row(&fa[i], &fb[i], c);
	for (int r = 0; r < LEARN_ROLES; r++) {
		size_t na = learn_trace_figures(a, r, fa), nb = learn_trace_figures(b, r, fb);

		for (size_t i = 0; na == nb && i < na; i++)
			compare_row(&fa[i], &fb[i], c);
	}
}

int learn_results_compare(struct results *r, double tol_pct, struct strbuf *err)
{
	struct learn_fp *a, *b;
	struct strbuf table = STRBUF_INIT;
	unsigned off, asserted, left;
	int ret = 0;

	if (!r->fp_kept || !r->fp_run || r->fp_compare)
		return 0;
	a = calloc(1, sizeof(*a));
	b = calloc(1, sizeof(*b));
	r->fp_compare = calloc(1, sizeof(*r->fp_compare));
	if (!a || !b || !r->fp_compare) {
		strbuf_addstr(err, "fingerprint comparison: out of memory");
		ret = -ENOMEM;
		goto out;
	}
	ret = learn_fp_parse(r->fp_kept, r->fp_kept_name, a, err);
	if (!ret)
		ret = learn_fp_parse(r->fp_run, "the run's fingerprint", b, err);
	if (ret)
		goto out;
	learn_fp_compare_rows(a, b, tol_pct, r->fp_compare);
	learn_fp_compare(a, b, "kept", "this run", tol_pct, &table, &off, &asserted, &left);
	r->fp_compare->table = strbuf_detach(&table, NULL);
out:
	if (ret) {
		free(r->fp_compare);
		r->fp_compare = NULL;
	}
	strbuf_release(&table);
	free(a);
	free(b);
	return ret;
}
