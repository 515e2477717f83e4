/* SPDX-License-Identifier: MIT */
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

/*
 * Stalls: periodic windows where a class's I/O stopped. An interval (the
 * run's 1 s rows, warm-up left out) is a stall's when the class's average
 * latency there is WHY_STALL_FACTOR times its median over the intervals, or
 * its completions WHY_STALL_FACTOR times fewer than the median (a device
 * that holds its I/O completes few); consecutive ones are one stall. Three
 * or more whose starts are evenly spaced (each gap within WHY_STALL_TOL of
 * the median gap, or one second) are "every N s"; fewer, or uneven, are
 * counted. Only a class one of the scope's failed criteria judged is looked
 * at: the stalls explain that failure or are not said.
 */
#define WHY_STALL_FACTOR 5.0
#define WHY_STALL_MIN_IOS 5.0 /* median completions per interval to judge a collapse */
#define WHY_STALL_PERIODIC 3
#define WHY_STALL_TOL 0.1
#define WHY_STALL_MAX 256

struct why_stalls {
	double start[WHY_STALL_MAX], len[WHY_STALL_MAX]; /* ms */
	size_t n;					 /* stalls found */
	uint64_t in_ios, in_ns, out_ios, out_ns;	 /* I/Os and latency in them and out */
};

/* The median average latency and completion rate of class c's measured
 * intervals of a scope; false when there are none. */
static bool stall_medians(const struct results *r, enum scope_kind kind, const char *name, int c,
			  double *avg, double *rate)
{
	struct results_scope_walk wk;
	struct results_interval iv;
	size_t n = 0, k = 0, ka = 0;
	double *a, *io;

	results_scope_walk_init(&wk, r, kind, name, 1u << c);
	while (results_scope_walk_next(&wk, &iv))
		n++;
	a = calloc(n ? n : 1, sizeof(*a));
	io = calloc(n ? n : 1, sizeof(*io));
	results_scope_walk_init(&wk, r, kind, name, 1u << c);
	while (a && io && results_scope_walk_next(&wk, &iv)) {
		if (iv.warmup || !iv.len_ms)
			continue;
		io[k++] = iv.iops;
		if (iv.ios)
			a[ka++] = iv.avg_ms;
	}
	*avg = median(a, ka);
	*rate = median(io, k);
	free(a);
	free(io);
	return isfinite(*avg) && isfinite(*rate);
}

static bool stall_interval(const struct results_interval *iv, double avg, double rate)
{
	if (iv->ios && iv->avg_ms >= WHY_STALL_FACTOR * avg)
		return true;
	return rate * (double)iv->len_ms / 1000.0 >= WHY_STALL_MIN_IOS &&
	       iv->iops * WHY_STALL_FACTOR <= rate;
}

/* Finds class c's stalls in a scope's intervals (struct why_stalls);
 * false when it has none, or more than WHY_STALL_MAX. */
static bool stall_scan(struct why_stalls *st, const struct results *r, enum scope_kind kind,
		       const char *name, int c)
{
	struct results_scope_walk wk;
	struct results_interval iv;
	double avg, rate;
	bool in = false;

	memset(st, 0, sizeof(*st));
	if (!stall_medians(r, kind, name, c, &avg, &rate))
		return false;
	results_scope_walk_init(&wk, r, kind, name, 1u << c);
	while (results_scope_walk_next(&wk, &iv)) {
		if (iv.warmup || !iv.len_ms)
			continue;
		if (!stall_interval(&iv, avg, rate)) {
			in = false;
			st->out_ios += iv.ios;
			st->out_ns += iv.lat_sum_ns;
			continue;
		}
		if (!in) {
			if (st->n == WHY_STALL_MAX)
				return false;
			st->start[st->n] = (double)(iv.t_ms - iv.len_ms);
			st->len[st->n++] = 0;
			in = true;
		}
		st->len[st->n - 1] += (double)iv.len_ms;
		st->in_ios += iv.ios;
		st->in_ns += iv.lat_sum_ns;
	}
	return st->n > 0;
}

/* The median gap between the stalls' starts when they are evenly spaced,
 * NAN when not (or too few to say). */
static double stall_period(const struct why_stalls *st)
{
	double gaps[WHY_STALL_MAX], sorted[WHY_STALL_MAX], med;

	if (st->n < WHY_STALL_PERIODIC)
		return NAN;
	for (size_t i = 0; i + 1 < st->n; i++)
		gaps[i] = sorted[i] = st->start[i + 1] - st->start[i];
	med = median(sorted, st->n - 1);
	for (size_t i = 0; i + 1 < st->n; i++)
		if (fabs(gaps[i] - med) > fmax(WHY_STALL_TOL * med, 1000.0))
			return NAN;
	return med;
}

static void add_secs(struct strbuf *c, double ms)
{
	if (fmod(ms, 1000.0) == 0)
		strbuf_addf(c, "%.0f s", ms / 1000.0);
	else
		strbuf_addf(c, "%.1f s", ms / 1000.0);
}

static const char *class_words(int c)
{
	switch (c) {
	case IO_DB_READ:
		return "database reads";
	case IO_DB_WRITE:
		return "database writes";
	case IO_LOG_WRITE:
		return "log writes";
	default:
		return stats_io_class_name(c);
	}
}

/* "log writes stalled 3 s every 60 s (5 times; 200.9 ms per I/O then,
 * 1.0 ms otherwise)" */
static void why_stall_clause(struct why *w, const struct why_stalls *st, int c, const char *on)
{
	double period = stall_period(st), lens[WHY_STALL_MAX], longest = 0;
	struct strbuf *cl;

	/* a lull with the usual latency (the load paused) explains no
	 * latency failure */
	if (!st->out_ios ||
	    (st->in_ios && (double)st->in_ns / (double)st->in_ios <
				   WHY_STALL_FACTOR * (double)st->out_ns / (double)st->out_ios))
		return;
	if (!(cl = why_clause(w)))
		return;
	for (size_t i = 0; i < st->n; i++) {
		lens[i] = st->len[i];
		longest = fmax(longest, st->len[i]);
	}
	strbuf_addstr(cl, class_words(c));
	if (on)
		strbuf_addf(cl, " on %s", on);
	strbuf_addstr(cl, " stalled ");
	if (isfinite(period)) {
		add_secs(cl, median(lens, st->n));
		strbuf_addstr(cl, " every ");
		add_secs(cl, period);
		strbuf_addf(cl, " (%zu times; ", st->n);
	} else {
		strbuf_addf(cl, "%zu time(s), ", st->n);
		add_secs(cl, longest);
		strbuf_addstr(cl, " at most (");
	}
	if (st->in_ios)
		strbuf_addf(cl, "%.1f ms per I/O then",
			    (double)st->in_ns / 1e6 / (double)st->in_ios);
	else
		strbuf_addstr(cl, "none completed then");
	strbuf_addf(cl, ", %.1f ms otherwise", (double)st->out_ns / 1e6 / (double)st->out_ios);
	strbuf_addch(cl, ')');
}

/* The class a criterion judges ("log_write_max_ms": log_write), -1 for none. */
static int criterion_class(const char *criterion)
{
	for (int c = 0; c < IO_CLASS_COUNT; c++) {
		const char *n = stats_io_class_name(c);
		size_t len = strlen(n);

		if (!strncmp(criterion, n, len) && criterion[len] == '_')
			return c;
	}
	return -1;
}

/* A scope's failed criteria of its own (the rollups and errors aside), as
 * a bit (1 << class) per class they judge. */
static unsigned failed_classes(const struct results *r, enum scope_kind kind, const char *name,
			       const char *volume)
{
	unsigned classes = 0;

	for (size_t i = 0; i < r->nr_verdicts; i++) {
		const struct verdict *v = &r->verdicts[i];
		int c;

		if (v->passed || v->scope != kind || strcmp(v->name, name))
			continue;
		if (kind == SCOPE_DATABASE && volume && strcmp(v->volume, volume))
			continue;
		if ((c = criterion_class(v->criterion)) >= 0)
			classes |= 1u << c;
	}
	return classes;
}

/* One stall clause per class a failed criterion of the scope judged and
 * whose intervals show stalls. A database's rows are 15 s apart, too
 * coarse for a stall of seconds: its volume's 1 s rows are looked at
 * ("log writes on vol1 stalled ..."), the I/O the database shares. */
static void why_stalls(struct why *w, const struct results *r, enum scope_kind kind,
		       const char *name, const char *volume)
{
	unsigned classes = failed_classes(r, kind, name, volume);
	bool db = kind == SCOPE_DATABASE && volume;
	struct why_stalls *st;

	if (!classes || !(st = malloc(sizeof(*st))))
		return;
	for (int c = 0; c < IO_CLASS_COUNT; c++)
		if (classes & (1u << c) &&
		    stall_scan(st, r, db ? SCOPE_VOLUME : kind, db ? volume : name, c))
			why_stall_clause(w, st, c, db ? volume : NULL);
	free(st);
}

/* A latency criterion's figure of the service time in cs: the figure the
 * criterion would have judged under latency_basis = service; NAN for a
 * criterion of another kind. */
static double service_figure(const struct class_summary *cs, const char *criterion)
{
	if (strstr(criterion, "_max_sample_avg_ms"))
		return cs->max_sample_avg_ms;
	if (strstr(criterion, "_avg_ms") && !strstr(criterion, "_interval_"))
		return cs->avg_ms;
	if (strstr(criterion, "_p99_ms"))
		return cs->p99_ms;
	if (strstr(criterion, "_max_ms"))
		return cs->max_ms;
	return NAN;
}

/*
 * latency_basis = response: a latency criterion the response time failed
 * while the device's service time met its limit. The wait was the tool's
 * own (a transaction waiting for a free stream), not the device's: "the
 * tool's own queue, not the device, held transactions (db_read response
 * avg 1234.5 ms, service time 2.0 ms)". Said once per scope.
 */
static void why_response(struct why *w, const struct results *r, enum scope_kind kind,
			 const char *name, const char *volume, const struct scope_summary *s)
{
	if (!s || !results_response_judged(r))
		return;
	for (size_t i = 0; i < r->nr_verdicts; i++) {
		const struct verdict *v = &r->verdicts[i];
		int c = criterion_class(v->criterion);
		double svc;
		struct strbuf *cl;

		if (v->passed || v->scope != kind || strcmp(v->name, name) || c < 0)
			continue;
		if (kind == SCOPE_DATABASE && volume && strcmp(v->volume, volume))
			continue;
		svc = service_figure(&s->classes[c], v->criterion);
		if (!isfinite(svc) || svc > v->threshold || !(cl = why_clause(w)))
			continue;
		strbuf_addf(cl,
			    "the tool's own queue, not the device, held transactions (%s response "
			    "time %.1f ms, service time %.1f ms within the %g ms limit)",
			    stats_io_class_name(c), v->measured, svc, v->threshold);
		return;
	}
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
	why_stalls(&w, r, kind, name, volume);
	why_response(&w, r, kind, name, volume, s);
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
	if (failed != 1)
		why_stalls(&w, r, SCOPE_RUN, "run", NULL);
	why_response(&w, r, SCOPE_RUN, "run", NULL, &r->run);
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
