/*
 * csv.c - the interval time series as CSV (report --format csv), for
 * spreadsheets: one row per interval x scope x class of that scope with I/O.
 *
 * Like the other renderers it formats what struct results holds. The only
 * arithmetic is turning a sample's stored counts into that interval's rates
 * and averages: ios and bytes over the interval's length (the difference of
 * consecutive t_ms of the same scope and name, the first from 0), lat_sum_ns
 * over ios, and ns to ms; and writing a row of zeros where the store kept no
 * row for a class of the scope (results.h). A class never active in a scope
 * (no I/O, no error in any interval) has no rows. docs/reports.md says so.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"

static const char csv_header[] =
	"run_id,t_ms,warmup,scope,name,class,ios,iops,mb_s,avg_ms,p50_ms,p99_ms,max_ms,errors\n";

/* RFC 4180: a field holding a comma, a quote, CR or LF is quoted, quotes doubled. */
static const char *const csv_named[0x80] = {['"'] = "\"\""};
static const struct strbuf_escapes csv_escapes = {.named = csv_named};

static void csv_field(struct strbuf *sb, const char *v)
{
	if (!strpbrk(v, ",\"\r\n")) {
		strbuf_addstr(sb, v);
		return;
	}
	strbuf_addch(sb, '"');
	strbuf_add_escaped(sb, v, &csv_escapes);
	strbuf_addch(sb, '"');
}

/*
 * One scope (kind and name) of the time series: the end of its previous
 * interval, and the classes it has rows of I/O or errors for (its series).
 */
struct csv_scope {
	enum scope_kind scope;
	const char *name;
	uint64_t last_t_ms;
	unsigned active; /* bit (1 << class) */
};

struct csv_state {
	struct csv_scope *v;
	size_t nr;
	size_t next; /* where the next sample's scope probably is */
};

/*
 * Every interval writes its scopes in the same order, so the entry after the
 * last one found is tried first: one comparison per scope in the usual case.
 * NULL when out of memory.
 */
static struct csv_scope *csv_scope_get(struct csv_state *cs, const struct results_sample *s)
{
	struct csv_scope *n;
	size_t i, k;

	for (k = 0; k < cs->nr; k++) {
		i = (cs->next + k) % cs->nr;
		n = &cs->v[i];
		if (n->scope == s->scope && !strcmp(n->name, s->name)) {
			cs->next = i + 1;
			return n;
		}
	}
	n = realloc(cs->v, (cs->nr + 1) * sizeof(*n));
	if (!n)
		return NULL;
	cs->v = n;
	n = &n[cs->nr++];
	n->scope = s->scope;
	n->name = s->name;
	n->last_t_ms = 0;
	n->active = 0;
	cs->next = cs->nr;
	return n;
}

static bool csv_same_scope(const struct results_sample *a, const struct results_sample *b)
{
	return a->t_ms == b->t_ms && a->scope == b->scope && !strcmp(a->name, b->name);
}

static void csv_ms(struct strbuf *sb, uint64_t ns, bool any)
{
	strbuf_addch(sb, ',');
	if (any)
		strbuf_addf(sb, "%.3f", (double)ns / (double)NSEC_PER_MSEC);
}

static void csv_row(struct strbuf *sb, const struct results *r, const struct results_sample *s,
		    uint64_t len_ms)
{
	double secs = (double)len_ms / 1000.0;

	strbuf_addf(sb, "%" PRId64 ",%" PRIu64 ",%d,%s,", r->id, s->t_ms, s->warmup ? 1 : 0,
		    scope_kind_name(s->scope));
	csv_field(sb, s->name);
	strbuf_addf(sb, ",%s,%" PRIu64 ",", io_class_name(s->cls), s->ios);
	if (len_ms)
		strbuf_addf(sb, "%.3f,%.3f", (double)s->ios / secs, (double)s->bytes / 1e6 / secs);
	else
		strbuf_addch(sb, ',');
	csv_ms(sb, s->ios ? s->lat_sum_ns / s->ios : 0, s->ios);
	csv_ms(sb, s->p50_ns, s->ios);
	csv_ms(sb, s->p99_ns, s->ios);
	csv_ms(sb, s->lat_max_ns, s->ios);
	strbuf_addf(sb, ",%" PRIu64 "\n", s->errors);
}

/*
 * The rows of one interval of one scope, g[0..n), in class order: each class
 * the scope has a series of, as stored, or as a row of zeros where the store
 * kept none (it writes no row for a class without I/O in an interval).
 */
static void csv_group(struct strbuf *sb, const struct results *r, const struct results_sample *g,
		      size_t n, unsigned active, uint64_t len_ms)
{
	struct results_sample zero;
	bool found;
	size_t i;
	int c;

	for (c = 0; c < IO_CLASS_COUNT; c++) {
		if (!(active & (1u << c)))
			continue;
		found = false;
		for (i = 0; i < n; i++) {
			if (g[i].cls != (enum io_class)c)
				continue;
			csv_row(sb, r, &g[i], len_ms);
			found = true;
		}
		if (found)
			continue;
		zero = g[0];
		zero.cls = (enum io_class)c;
		zero.ios = zero.bytes = zero.errors = 0;
		zero.lat_sum_ns = zero.lat_max_ns = zero.p50_ns = zero.p99_ns = 0;
		csv_row(sb, r, &zero, len_ms);
	}
}

/*
 * Two passes: the first finds each scope's series (classes with I/O or
 * errors in some interval), the second writes each interval of each scope
 * with its length, the distance to that scope's previous interval. Out of
 * memory for the scope table (a few hundred entries at most), every class is
 * written and rates fall back to intervals measured from 0 rather than
 * failing the report; strbuf itself aborts on allocation failure.
 */
void report_csv(struct strbuf *out, const struct results *r, const struct report_options *opt)
{
	struct csv_state cs = {0};
	struct csv_scope *sc;
	const struct results_sample *s;
	uint64_t len_ms;
	size_t i, j;

	strbuf_addstr(out, csv_header);
	for (i = 0; i < r->nr_samples; i++) {
		s = &r->samples[i];
		sc = csv_scope_get(&cs, s);
		if (sc && (s->ios || s->errors))
			sc->active |= 1u << s->cls;
	}
	for (i = 0; i < r->nr_samples; i = j) {
		s = &r->samples[i];
		for (j = i + 1; j < r->nr_samples && csv_same_scope(s, &r->samples[j]); j++)
			;
		sc = csv_scope_get(&cs, s);
		len_ms = s->t_ms;
		if (sc) {
			len_ms = s->t_ms >= sc->last_t_ms ? s->t_ms - sc->last_t_ms : 0;
			sc->last_t_ms = s->t_ms;
		}
		csv_group(out, r, s, j - i, sc ? sc->active : (1u << IO_CLASS_COUNT) - 1, len_ms);
	}
	free(cs.v);
}
