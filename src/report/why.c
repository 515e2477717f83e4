/*
 * why.c - one sentence of why a database, a volume or a run failed, from
 * what the run measured: how its IOPS stood against its siblings' under
 * the same load, each of its own criteria that failed with the measured
 * figure and the limit, its I/O errors, and what the kernel logged about
 * its device ("kernel" events, run/kmsg.c). The text, JSON and HTML run
 * reports and every fleet format word their "why" here, nowhere else; the
 * volume's device ("disk3 (loop8)") is the one its run recorded
 * (device.VOLUME.name, env/env.c), absent for a sim run.
 *
 * A sentence says only what was measured: no sibling clause for a lone
 * volume or one within 2 % of its siblings' median, no "same load" where
 * the streams differed, no device where none was recorded.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"

/* Closer to the siblings' median than this (in %) is not worth a clause:
 * compare's own materiality (ANALYZE_MIN_CHANGE_DEFAULT). */
#define WHY_SIBLING_PCT 2.0
/* Streams within this share of the siblings' median count as the same load. */
#define WHY_SAME_LOAD 0.05
#define WHY_CLAUSES 16

struct why {
	struct strbuf c[WHY_CLAUSES];
	size_t n;
};

static struct strbuf *why_clause(struct why *w)
{
	if (w->n == WHY_CLAUSES)
		return NULL;
	w->c[w->n] = (struct strbuf)STRBUF_INIT;
	return &w->c[w->n++];
}

/* The clauses joined: "a, b and c." after the subject. */
static void why_join(struct strbuf *out, struct why *w)
{
	for (size_t i = 0; i < w->n; i++) {
		if (i)
			strbuf_addstr(out, i + 1 == w->n ? " and " : ", ");
		strbuf_addstr(out, w->c[i].buf);
		strbuf_release(&w->c[i]);
	}
	w->n = 0;
	strbuf_addch(out, '.');
}

const char *report_volume_device(const struct results *r, const char *volume)
{
	struct strbuf key = STRBUF_INIT;
	const char *v;

	strbuf_addf(&key, "device.%s.name", volume);
	v = results_env_get(r, key.buf);
	strbuf_release(&key);
	if (!v || !*v || !strcmp(v, "unknown"))
		return NULL;
	return v;
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of v[0..n) (sorted in place); NAN for none. */
static double median(double *v, size_t n)
{
	if (!n)
		return NAN;
	qsort(v, n, sizeof(*v), dbl_cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The scopes of one kind: the volumes or the databases of the run. */
static const struct scope_summary *scopes_of(const struct results *r, enum scope_kind kind,
					     size_t *n)
{
	*n = kind == SCOPE_VOLUME ? r->nr_volumes : r->nr_databases;
	return kind == SCOPE_VOLUME ? r->volumes : r->databases;
}

/*
 * "served 15 % fewer IOPS than its siblings (median 91.6) under the same
 * load": the scope's transactional IOPS against the median of the other
 * scopes of its kind (every other database of the run for a database).
 */
static void why_siblings(struct why *w, const struct results *r, enum scope_kind kind,
			 const struct scope_summary *self)
{
	size_t n, k = 0, ks = 0;
	const struct scope_summary *s = scopes_of(r, kind, &n);
	double *iops = calloc(n ? n : 1, sizeof(*iops));
	double *streams = calloc(n ? n : 1, sizeof(*streams));
	double mine = results_scope_transactional_iops(self), med, med_streams, pct;
	struct strbuf *c;

	for (size_t i = 0; iops && streams && i < n; i++) {
		double v = results_scope_transactional_iops(&s[i]);

		if (&s[i] == self)
			continue;
		if (isfinite(v))
			iops[k++] = v;
		if (isfinite(s[i].streams))
			streams[ks++] = s[i].streams;
	}
	med = median(iops, k);
	med_streams = median(streams, ks);
	free(iops);
	free(streams);
	if (!isfinite(med) || med <= 0 || !isfinite(mine))
		return;
	pct = (mine - med) / med * 100.0;
	if (fabs(pct) < WHY_SIBLING_PCT || !(c = why_clause(w)))
		return;
	strbuf_addf(c, "served %.0f %% %s IOPS than its %s (median ", fabs(pct),
		    pct < 0 ? "fewer" : "more",
		    kind == SCOPE_VOLUME ? "sibling volumes" : "sibling databases");
	report_number(c, med, 1);
	strbuf_addch(c, ')');
	if (isfinite(self->streams) && isfinite(med_streams) &&
	    fabs(self->streams - med_streams) <= WHY_SAME_LOAD * med_streams)
		strbuf_addstr(c, " under the same load");
}

static bool is_rollup(const char *criterion)
{
	return !strcmp(criterion, "databases_failed") || !strcmp(criterion, "volumes_failed");
}

/* Each failed criterion of exactly this scope, its figure and its limit. */
static void why_criteria(struct why *w, const struct results *r, enum scope_kind kind,
			 const char *name, const char *volume)
{
	for (size_t i = 0; i < r->nr_verdicts; i++) {
		const struct verdict *v = &r->verdicts[i];
		struct strbuf *c;

		if (v->passed || v->scope != kind || strcmp(v->name, name) ||
		    is_rollup(v->criterion))
			continue;
		if (kind == SCOPE_DATABASE && volume && strcmp(v->volume, volume))
			continue;
		/* its errors have their own clause (why_errors), by class */
		if (!strcmp(v->criterion, "io_errors"))
			continue;
		c = why_clause(w);
		if (c)
			report_verdict_fact(c, v);
	}
}

/* "3 I/O errors (db_read 2, log_write 1)" */
static void why_errors(struct why *w, const struct scope_summary *s)
{
	uint64_t n = 0;
	struct strbuf *c;
	bool first = true;

	for (int k = 0; k < IO_CLASS_COUNT; k++)
		n += s->classes[k].errors;
	if (!n || !(c = why_clause(w)))
		return;
	strbuf_addf(c, "%llu I/O error(s) (", (unsigned long long)n);
	for (int k = 0; k < IO_CLASS_COUNT; k++) {
		if (!s->classes[k].errors)
			continue;
		strbuf_addf(c, "%s%s %llu", first ? "" : ", ", stats_io_class_name(k),
			    (unsigned long long)s->classes[k].errors);
		first = false;
	}
	strbuf_addch(c, ')');
	if (s->integrity_errors && (c = why_clause(w)))
		strbuf_addf(c, "%llu page(s) failed verification",
			    (unsigned long long)s->integrity_errors);
}

/* Whether text names device as a word: "loop8" in "loop8: I/O error" but
 * not in "loop80" (the capture matched partitions already: run/kmsg.c). */
static bool names_device(const char *text, const char *dev)
{
	size_t len = strlen(dev);

	for (const char *p = strstr(text, dev); p; p = strstr(p + 1, dev)) {
		bool before = p == text || !(p[-1] == '_' || (p[-1] >= '0' && p[-1] <= '9') ||
					     (p[-1] >= 'a' && p[-1] <= 'z'));
		char a = p[len];

		if (before && !(a >= '0' && a <= '9') && !(a >= 'a' && a <= 'z'))
			return true;
	}
	return false;
}

/* "the kernel logged 2 message(s) about loop8 (the first: ...)" */
static void why_kernel(struct why *w, const struct results *r, const char *dev)
{
	const char *first = NULL;
	size_t n = 0;
	struct strbuf *c;

	for (size_t i = 0; i < r->nr_events; i++) {
		if (strcmp(r->events[i].kind, "kernel") || !r->events[i].message)
			continue;
		if (dev && !names_device(r->events[i].message, dev))
			continue;
		first = first ? first : r->events[i].message;
		n++;
	}
	if (!n || !(c = why_clause(w)))
		return;
	strbuf_addf(c, "the kernel logged %zu message(s) about %s (the first: \"%s\")", n,
		    dev ? dev : "the run's devices", first);
}

static const struct scope_summary *scope_find(const struct results *r, enum scope_kind kind,
					      const char *name, const char *volume)
{
	size_t n;
	const struct scope_summary *s = scopes_of(r, kind, &n);

	for (size_t i = 0; i < n; i++)
		if (!strcmp(s[i].name, name) &&
		    (kind != SCOPE_DATABASE || !volume || !strcmp(s[i].volume, volume)))
			return &s[i];
	return NULL;
}

/* The failed databases of volume, as "db7, db8 and db9". */
static size_t failed_databases(struct strbuf *out, const struct results *r, const char *volume)
{
	size_t n = 0, total = 0;

	for (size_t i = 0; i < r->nr_databases; i++)
		if (!strcmp(r->databases[i].volume, volume) &&
		    !strcmp(report_scope_verdict(r, SCOPE_DATABASE, r->databases[i].name, volume),
			    "FAIL"))
			total++;
	for (size_t i = 0; i < r->nr_databases; i++) {
		const struct scope_summary *d = &r->databases[i];

		if (strcmp(d->volume, volume) ||
		    strcmp(report_scope_verdict(r, SCOPE_DATABASE, d->name, volume), "FAIL"))
			continue;
		if (n)
			strbuf_addstr(out, n + 1 == total ? " and " : ", ");
		strbuf_addstr(out, d->name);
		n++;
	}
	return n;
}

bool report_why(struct strbuf *out, const struct results *r, enum scope_kind kind, const char *name,
		const char *volume)
{
	struct why w = {0};
	const struct scope_summary *s;
	const char *vol = kind == SCOPE_DATABASE ? volume : name;
	const char *dev = vol ? report_volume_device(r, vol) : NULL;
	size_t before = w.n;

	if (kind == SCOPE_RUN)
		return report_why_run(out, r);
	if (strcmp(report_scope_verdict(r, kind, name, volume), "FAIL"))
		return false;
	s = scope_find(r, kind, name, volume);
	strbuf_addstr(out, name);
	if (kind == SCOPE_DATABASE && volume)
		strbuf_addf(out, " on %s", volume);
	if (dev)
		strbuf_addf(out, " (%s)", dev);
	if (s)
		why_siblings(&w, r, kind, s);
	why_criteria(&w, r, kind, name, volume);
	if (s)
		why_errors(&w, s);
	if (kind == SCOPE_VOLUME) {
		struct strbuf dbs = STRBUF_INIT;
		size_t n = failed_databases(&dbs, r, name);
		struct strbuf *c;

		if (n && (c = why_clause(&w)))
			strbuf_addf(c, "%s %s failed", n == 1 ? "its database" : "its databases",
				    dbs.buf);
		strbuf_release(&dbs);
	}
	if (dev)
		why_kernel(&w, r, dev);
	if (w.n == before) {
		strbuf_addstr(out, " failed.");
		return true;
	}
	strbuf_addch(out, ' ');
	why_join(out, &w);
	return true;
}

/* The last event of kind, NULL when none. */
static const char *last_event(const struct results *r, const char *kind)
{
	const char *m = NULL;

	for (size_t i = 0; i < r->nr_events; i++)
		if (!strcmp(r->events[i].kind, kind))
			m = r->events[i].message;
	return m;
}

bool report_why_run(struct strbuf *out, const struct results *r)
{
	struct why w = {0};
	size_t failed = 0;
	const char *vname = NULL;

	if (r->status && (!strcmp(r->status, "error") || !strcmp(r->status, "aborted"))) {
		const char *m = last_event(r, "error");

		m = m ? m : last_event(r, "stop");
		strbuf_addstr(out, !strcmp(r->status, "error") ? "The run ended in an error"
							       : "The run was aborted");
		if (m)
			strbuf_addf(out, ": %s", m);
		strbuf_addstr(out, "; nothing was judged.");
		return true;
	}
	if (!r->verdict || strcmp(r->verdict, "FAIL"))
		return false;
	for (size_t i = 0; i < r->nr_volumes; i++)
		if (!strcmp(report_scope_verdict(r, SCOPE_VOLUME, r->volumes[i].name, NULL),
			    "FAIL")) {
			failed++;
			vname = r->volumes[i].name;
		}
	if (failed == 1) {
		strbuf_addf(out, "1 of %zu volume(s) failed: ", r->nr_volumes);
		(void)report_why(out, r, SCOPE_VOLUME, vname, NULL);
		if (out->len && out->buf[out->len - 1] == '.')
			out->buf[--out->len] = '\0';
	} else if (failed) {
		bool first = true;

		strbuf_addf(out, "%zu of %zu volume(s) failed (", failed, r->nr_volumes);
		for (size_t i = 0; i < r->nr_volumes; i++) {
			if (strcmp(report_scope_verdict(r, SCOPE_VOLUME, r->volumes[i].name, NULL),
				   "FAIL"))
				continue;
			strbuf_addf(out, "%s%s", first ? "" : ", ", r->volumes[i].name);
			first = false;
		}
		strbuf_addch(out, ')');
	} else {
		strbuf_addstr(out, "The run failed");
	}
	why_criteria(&w, r, SCOPE_RUN, "run", NULL);
	if (!failed)
		why_errors(&w, &r->run);
	if (failed != 1)
		why_kernel(&w, r, NULL);
	if (!w.n) {
		strbuf_addch(out, '.');
		return true;
	}
	strbuf_addstr(out, failed ? "; the run: " : ": ");
	why_join(out, &w);
	return true;
}

void report_text_wrap(struct strbuf *out, const char *text, size_t indent, size_t width)
{
	size_t col = 0;
	const char *p = text;

	while (*p) {
		const char *sp = strchr(p, ' ');
		size_t len = sp ? (size_t)(sp - p) : strlen(p);

		if (col > indent + 2 && col + 1 + len > width) {
			strbuf_addch(out, '\n');
			col = 0;
		}
		if (!col) {
			/* a sentence's further lines hang under its first */
			size_t in = out->len && out->buf[out->len - 1] == '\n' && p != text
					    ? indent + 2
					    : indent;

			strbuf_addf(out, "%*s", (int)in, "");
			col = in;
		} else {
			strbuf_addch(out, ' ');
			col++;
		}
		/* the words themselves escaped: a host or event text cannot
		 * move the cursor */
		{
			struct strbuf word = STRBUF_INIT;

			strbuf_add(&word, p, len);
			report_text_escape(out, word.buf);
			strbuf_release(&word);
		}
		col += len;
		p += len;
		while (*p == ' ')
			p++;
	}
	if (col)
		strbuf_addch(out, '\n');
}
