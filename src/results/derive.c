/* SPDX-License-Identifier: MIT */
/*
 * derive.c - the figures the reports show that are not stored as such, each
 * derived here once from struct results (results.h) so that the renderers
 * only format them: an interval's rates and average per I/O, the walks that
 * give each interval of a scope its length, a histogram's CDF, the range of
 * the databases' MB/s, a failed verdict's margin, the warm-up a run went
 * through, the classes it issued, how many of its verdicts failed and how
 * many events of a kind it stored, the tail percentiles of every summary,
 * the volumes' and the run's database sizes, and the target IOPS.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diskproof/results.h"

void results_interval_add(struct results_interval *iv, const struct results_sample *row,
			  unsigned classes)
{
	iv->warmup |= row->warmup;
	if (!(classes & (1u << row->cls)))
		return;
	iv->ios += row->ios;
	iv->bytes += row->bytes;
	iv->errors += row->errors;
	iv->lat_sum_ns += row->lat_sum_ns;
}

/*
 * Rates are counts over the interval's length in seconds; the average in
 * whole ns is the integer quotient (the CSV's precision, like the stored
 * percentiles), the one in ms is not rounded (the charts' points).
 */
void results_interval_finish(struct results_interval *iv)
{
	double secs = (double)iv->len_ms / 1000.0;

	iv->iops = iv->mbps = NAN;
	if (iv->len_ms) {
		iv->iops = (double)iv->ios / secs;
		iv->mbps = (double)iv->bytes / 1e6 / secs;
	}
	iv->avg_ns = iv->ios ? iv->lat_sum_ns / iv->ios : 0;
	iv->avg_ms = iv->ios ? (double)iv->lat_sum_ns / (double)iv->ios / 1e6 : NAN;
}

static bool sample_in(const struct results_sample *x, enum scope_kind scope, const char *name)
{
	return x->scope == scope && !strcmp(x->name, name);
}

void results_scope_walk_init(struct results_scope_walk *w, const struct results *r,
			     enum scope_kind scope, const char *name, unsigned classes)
{
	memset(w, 0, sizeof(*w));
	w->r = r;
	w->scope = scope;
	w->name = name;
	w->classes = classes;
}

/*
 * Samples are stored in t_ms order, so the rows of one interval are
 * contiguous: the scope's next row gives the interval's end, and every row
 * of the scope up to the next t_ms belongs to it.
 */
bool results_scope_walk_next(struct results_scope_walk *w, struct results_interval *out)
{
	const struct results *r = w->r;
	uint64_t t;
	size_t j;

	while (w->i < r->nr_samples && !sample_in(&r->samples[w->i], w->scope, w->name))
		w->i++;
	if (w->i == r->nr_samples)
		return false;
	t = r->samples[w->i].t_ms;
	memset(out, 0, sizeof(*out));
	out->t_ms = t;
	for (j = w->i; j < r->nr_samples && r->samples[j].t_ms == t; j++)
		if (sample_in(&r->samples[j], w->scope, w->name))
			results_interval_add(out, &r->samples[j], w->classes);
	w->i = j;
	out->len_ms = t > w->prev_t_ms ? t - w->prev_t_ms : 0;
	w->prev_t_ms = t;
	results_interval_finish(out);
	return true;
}

/* A scope of a walk over every scope: the end of its previous interval and
 * its series (struct results_walk). */
struct results_walk_scope {
	enum scope_kind scope;
	const char *name;
	uint64_t last_t_ms;
	unsigned series; /* bit (1 << class) */
};

/*
 * Every interval writes its scopes in the same order, so the entry after the
 * last one found is tried first: one comparison per scope in the usual case.
 * NULL when out of memory.
 */
static struct results_walk_scope *walk_scope_get(struct results_walk *w,
						 const struct results_sample *s)
{
	struct results_walk_scope *n;
	size_t i, k;

	for (k = 0; k < w->nr; k++) {
		i = (w->next + k) % w->nr;
		n = &w->v[i];
		if (n->scope == s->scope && !strcmp(n->name, s->name)) {
			w->next = i + 1;
			return n;
		}
	}
	n = realloc(w->v, (w->nr + 1) * sizeof(*n));
	if (!n)
		return NULL;
	w->v = n;
	n = &n[w->nr++];
	n->scope = s->scope;
	n->name = s->name;
	n->last_t_ms = 0;
	n->series = 0;
	w->next = w->nr;
	return n;
}

/* A first pass finds each scope's series: the classes with I/O or errors in
 * some interval. */
void results_walk_init(struct results_walk *w, const struct results *r)
{
	struct results_walk_scope *sc;
	const struct results_sample *s;
	size_t i;

	memset(w, 0, sizeof(*w));
	w->r = r;
	for (i = 0; i < r->nr_samples; i++) {
		s = &r->samples[i];
		sc = walk_scope_get(w, s);
		if (sc && (s->ios || s->errors))
			sc->series |= 1u << s->cls;
	}
}

static bool same_group(const struct results_sample *a, const struct results_sample *b)
{
	return a->t_ms == b->t_ms && a->scope == b->scope && !strcmp(a->name, b->name);
}

bool results_walk_next(struct results_walk *w, struct results_group *g)
{
	const struct results *r = w->r;
	struct results_walk_scope *sc;
	const struct results_sample *s;
	size_t j;

	if (w->i >= r->nr_samples)
		return false;
	s = &r->samples[w->i];
	for (j = w->i + 1; j < r->nr_samples && same_group(s, &r->samples[j]); j++)
		;
	g->rows = s;
	g->n = j - w->i;
	w->i = j;
	sc = walk_scope_get(w, s);
	g->len_ms = s->t_ms;
	g->series = (1u << IO_CLASS_COUNT) - 1;
	if (sc) {
		g->len_ms = s->t_ms >= sc->last_t_ms ? s->t_ms - sc->last_t_ms : 0;
		sc->last_t_ms = s->t_ms;
		g->series = sc->series;
	}
	return true;
}

void results_walk_release(struct results_walk *w)
{
	free(w->v);
	w->v = NULL;
	w->nr = w->next = 0;
}

const struct hist *results_hist_get(const struct results *r, enum scope_kind scope,
				    const char *name, enum io_class cls)
{
	const struct results_hist *rh;
	size_t i;

	for (i = 0; i < r->nr_hists; i++) {
		rh = &r->hists[i];
		if (rh->scope == scope && rh->cls == cls && !strcmp(rh->name, name))
			return rh->h;
	}
	return NULL;
}

void results_cdf_init(struct results_cdf *it, const struct hist *h)
{
	memset(it, 0, sizeof(*it));
	it->h = h;
}

bool results_cdf_next(struct results_cdf *it, double *ms, double *share)
{
	const struct hist *h = it->h;

	if (!h || !h->count)
		return false;
	for (; it->i < HIST_BUCKETS; it->i++) {
		if (!h->buckets[it->i])
			continue;
		it->cum += h->buckets[it->i];
		*ms = (double)hist_bucket_value((unsigned)it->i) / 1e6;
		*share = (double)it->cum / (double)h->count;
		it->i++;
		return true;
	}
	return false;
}

static double finite_or_0(double v)
{
	return isfinite(v) ? v : 0.0;
}

bool results_db_mbps_range(const struct results *r, enum io_class c, double *min, double *max)
{
	double lo = HUGE_VAL, hi = -HUGE_VAL, v;
	size_t i;

	if (!r->nr_databases)
		return false;
	for (i = 0; i < r->nr_databases; i++) {
		v = finite_or_0(r->databases[i].classes[c].mbps);
		lo = fmin(lo, v);
		hi = fmax(hi, v);
	}
	*min = lo;
	*max = hi;
	return true;
}

bool results_db_stalls_range(const struct results *r, double *min, double *max)
{
	double lo = HUGE_VAL, hi = -HUGE_VAL;
	bool any = false;

	for (size_t i = 0; i < r->nr_databases; i++) {
		if (!r->databases[i].stalls_recorded)
			continue;
		lo = fmin(lo, r->databases[i].page_fault_stalls_per_s);
		hi = fmax(hi, r->databases[i].page_fault_stalls_per_s);
		any = true;
	}
	if (!any)
		return false;
	*min = lo;
	*max = hi;
	return true;
}

double results_verdict_margin_pct(const struct verdict *v)
{
	double pct;

	if (v->passed || !isfinite(v->threshold) || !isfinite(v->measured) || v->threshold == 0)
		return NAN;
	pct = (v->measured - v->threshold) / fabs(v->threshold) * 100.0;
	return isfinite(pct) ? pct : NAN;
}

/* [workload] max_streams as the run had it: its value, else 4 x streams. */
static unsigned backlog_bound(const struct results *r)
{
	for (size_t i = 0; i < r->nr_params; i++) {
		const struct results_param *p = &r->params[i];

		if (!strcmp(p->section, "workload") && !strcmp(p->key, "max_streams") && p->value)
			return (unsigned)strtoul(p->value, NULL, 10);
	}
	return r->streams ? 4 * r->streams : 0;
}

void results_backlog_summary(const struct results *r, struct results_backlog *b)
{
	uint64_t prev = 0, span = 0;
	double area = 0, busy = 0;

	*b = (struct results_backlog){0};
	for (size_t i = 0; i < r->nr_backlog_samples; i++) {
		const struct results_backlog_sample *s = &r->backlog_samples[i];
		uint64_t len = s->t_ms > prev ? s->t_ms - prev : 0;

		prev = s->t_ms;
		if (s->warmup)
			continue;
		if (!b->recorded)
			b->streams_start = s->streams;
		b->recorded = true;
		span += len;
		area += s->mean * (double)len;
		busy += (double)(s->busy_ms < len ? s->busy_ms : len);
		if (s->peak > b->peak)
			b->peak = s->peak;
		if (s->streams > b->streams_max)
			b->streams_max = s->streams;
		b->streams_end = s->streams;
	}
	if (!b->recorded)
		return;
	b->measured_s = (double)span / 1e3;
	b->mean = span ? area / (double)span : 0;
	b->seconds = busy / 1e3;
	b->bound = backlog_bound(r);
	if (b->streams_start > r->streams && r->streams)
		b->streams_start = r->streams; /* the first interval grew already */
}

bool results_response_judged(const struct results *r)
{
	for (size_t i = 0; i < r->nr_params; i++) {
		const struct results_param *p = &r->params[i];

		if (!strcmp(p->section, "thresholds") && !strcmp(p->key, "latency_basis"))
			return p->value && !strcmp(p->value, "response");
	}
	return false;
}

bool results_response_next(const struct results *r, size_t *i, const struct verdict **v,
			   double *response)
{
	const struct class_summary *rs = &r->run.response[IO_DB_READ];

	if (!r->run.response_recorded || !rs->ios || results_response_judged(r))
		return false;
	for (; *i < r->nr_verdicts; (*i)++) {
		const struct verdict *x = &r->verdicts[*i];
		double fig;

		if (x->scope != SCOPE_RUN || !x->passed || x->cmp != VERDICT_LE)
			continue;
		if (!strcmp(x->criterion, "db_read_avg_ms"))
			fig = rs->avg_ms;
		else if (!strcmp(x->criterion, "db_read_p99_ms"))
			fig = rs->p99_ms;
		else if (!strcmp(x->criterion, "db_read_max_ms") ||
			 !strcmp(x->criterion, "db_read_max_sample_avg_ms"))
			fig = rs->max_ms;
		else
			continue;
		if (!(fig > x->threshold))
			continue;
		*v = x;
		*response = fig;
		(*i)++;
		return true;
	}
	return false;
}

/* A run stopped in its warm-up stored only the part that ran (its warm-up
 * intervals, results_warmup_fill). */
double results_warmup_ran_s(const struct results *r)
{
	double warmup = isfinite(r->warmup_s) ? r->warmup_s : 0;

	if (r->status && (!strcmp(r->status, "aborted") || !strcmp(r->status, "error")) &&
	    r->warmup.duration_s < warmup)
		warmup = r->warmup.duration_s;
	return warmup;
}

unsigned results_classes_issued(const struct results *r)
{
	const struct results_sample *x;
	unsigned issued = 0;
	size_t i;
	int c;

	for (c = 0; c < IO_CLASS_COUNT; c++)
		if (results_class_present(&r->run.classes[c]))
			issued |= 1u << c;
	for (i = 0; i < r->nr_samples; i++) {
		x = &r->samples[i];
		if (x->scope == SCOPE_RUN && (x->ios || x->errors) && x->cls < IO_CLASS_COUNT)
			issued |= 1u << x->cls;
	}
	return issued;
}

size_t results_verdicts_failed(const struct results *r)
{
	size_t i, failed = 0;

	for (i = 0; i < r->nr_verdicts; i++)
		failed += !r->verdicts[i].passed;
	return failed;
}

size_t results_events_count(const struct results *r, const char *kind)
{
	size_t i, n = 0;

	for (i = 0; i < r->nr_events; i++)
		n += !strcmp(r->events[i].kind, kind);
	return n;
}

const char *results_reads_reach(const struct results *r, const char **message)
{
	static const struct {
		const char *kind, *state;
	} map[] = {{"reads_reached", "reached"},
		   {"reads_not_reached", "not_reached"},
		   {"reads_unchecked", "unchecked"}};

	*message = NULL;
	for (size_t i = 0; i < r->nr_events; i++)
		for (size_t k = 0; k < DP_ARRAY_SIZE(map); k++)
			if (!strcmp(r->events[i].kind, map[k].kind)) {
				*message = r->events[i].message;
				return map[k].state;
			}
	return NULL;
}

bool results_inconclusive(const struct results *r)
{
	const char *msg, *st = results_reads_reach(r, &msg);

	return st && !strcmp(st, "not_reached");
}

/* A group's 64 buckets split into RESULTS_BANDS_PER_OCTAVE runs of 16. */
#define BAND_BUCKETS (HIST_GROUP_BUCKETS / RESULTS_BANDS_PER_OCTAVE)

unsigned results_band_of_bucket(unsigned idx)
{
	if (idx < HIST_GROUP_BUCKETS)
		return 0;
	return 1 + (idx - HIST_GROUP_BUCKETS) / BAND_BUCKETS;
}

uint64_t results_band_lower_ns(unsigned b)
{
	if (!b)
		return 0;
	return hist_bucket_lower(HIST_GROUP_BUCKETS + (b - 1) * BAND_BUCKETS);
}

/*
 * The tail percentiles come from the whole-run histogram of the scope and
 * class, the same one the stored p50 and p99 were computed from (a volume's
 * and the run's are exact merges of their databases', made by the run), so
 * they are within 1/128 of the true value like every percentile (stats.h)
 * and never below the stored p99. A class without I/O has none: NAN, which
 * every report shows as undefined, never 0.
 */
static void scope_tail_fill(const struct results *r, struct scope_summary *sc, enum scope_kind kind)
{
	struct class_summary *cs;
	const struct hist *h;

	for (int c = 0; c < IO_CLASS_COUNT; c++) {
		cs = &sc->classes[c];
		h = results_hist_get(r, kind, sc->name, (enum io_class)c);
		cs->p999_ms = cs->p9999_ms = NAN;
		if (!h || !h->count || !cs->ios)
			continue;
		cs->p999_ms = (double)hist_percentile(h, 99.9) / (double)NSEC_PER_MSEC;
		cs->p9999_ms = (double)hist_percentile(h, 99.99) / (double)NSEC_PER_MSEC;
	}
}

void results_tail_fill(struct results *r)
{
	scope_tail_fill(r, &r->run, SCOPE_RUN);
	for (size_t i = 0; i < r->nr_volumes; i++)
		scope_tail_fill(r, &r->volumes[i], SCOPE_VOLUME);
	for (size_t i = 0; i < r->nr_databases; i++)
		scope_tail_fill(r, &r->databases[i], SCOPE_DATABASE);
}

/* The sums of the databases on volume (NULL: all of them) into sc. */
static void scope_sizes_sum(const struct results *r, struct scope_summary *sc, const char *volume)
{
	bool any = false, known = true, final_known = true;
	uint64_t size = 0, final = 0;

	for (size_t i = 0; i < r->nr_databases; i++) {
		const struct scope_summary *d = &r->databases[i];

		if (volume && strcmp(d->volume, volume))
			continue;
		any = true;
		known = known && d->size_known;
		final_known = final_known && d->final_size_known;
		size += d->size;
		final += d->final_size;
	}
	sc->size_known = any && known;
	sc->size = sc->size_known ? size : 0;
	sc->final_size_known = any && final_known;
	sc->final_size = sc->final_size_known ? final : 0;
}

void results_sizes_fill(struct results *r)
{
	scope_sizes_sum(r, &r->run, NULL);
	for (size_t i = 0; i < r->nr_volumes; i++)
		scope_sizes_sum(r, &r->volumes[i], r->volumes[i].name);
}

/* Only the run scope is judged on its IOPS (eval.h); a judged run (passed
 * or failed) stores every verdict, so its absence there means no target
 * was set. */
enum results_target results_target_iops(const struct results *r, double *iops)
{
	const struct verdict *v;

	*iops = NAN;
	for (size_t i = 0; i < r->nr_verdicts; i++) {
		v = &r->verdicts[i];
		if (v->scope != SCOPE_RUN || strcmp(v->criterion, "transactional_iops"))
			continue;
		*iops = v->threshold;
		return v->passed ? RESULTS_TARGET_PASSED : RESULTS_TARGET_FAILED;
	}
	if (r->nr_verdicts ||
	    (r->status && (!strcmp(r->status, "passed") || !strcmp(r->status, "failed"))))
		return RESULTS_TARGET_NONE;
	/* not judged: the run's parameters still say what the target was */
	for (size_t i = 0; i < r->nr_params; i++) {
		const struct results_param *p = &r->params[i];
		char *end;
		double t;

		if (strcmp(p->section, "sizing") || strcmp(p->key, "target_iops") || !p->value)
			continue;
		t = strtod(p->value, &end);
		if (end == p->value || *end || !(t >= 0))
			break;
		if (t == 0)
			return RESULTS_TARGET_NONE;
		*iops = t;
		break;
	}
	return RESULTS_TARGET_UNKNOWN;
}

const char *results_target_name(enum results_target t)
{
	static const char *const names[] = {
		[RESULTS_TARGET_PASSED] = "pass",
		[RESULTS_TARGET_FAILED] = "fail",
		[RESULTS_TARGET_NONE] = "none",
		[RESULTS_TARGET_UNKNOWN] = "unknown",
	};

	return (unsigned)t < DP_ARRAY_SIZE(names) ? names[t] : "unknown";
}
