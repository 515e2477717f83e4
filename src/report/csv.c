/*
 * csv.c - the interval time series as CSV (report --format csv), for
 * spreadsheets: one row per stored sample (interval x scope x class).
 *
 * Like the other renderers it formats what struct results holds. The only
 * arithmetic is turning a sample's stored counts into that interval's rates
 * and averages: ios and bytes over the interval's length (the difference of
 * consecutive t_ms of the same scope, name and class, the first from 0),
 * lat_sum_ns over ios, and ns to ms. docs/reports.md says so.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "diskproof/report.h"

static const char csv_header[] =
	"run_id,t_ms,warmup,scope,name,class,ios,iops,mb_s,avg_ms,p50_ms,p99_ms,max_ms,errors\n";

/* RFC 4180: a field holding a comma, a quote, CR or LF is quoted, quotes doubled. */
static void csv_field(struct strbuf *sb, const char *v)
{
	if (!strpbrk(v, ",\"\r\n")) {
		strbuf_addstr(sb, v);
		return;
	}
	strbuf_addch(sb, '"');
	for (; *v; v++) {
		if (*v == '"')
			strbuf_addch(sb, '"');
		strbuf_addch(sb, *v);
	}
	strbuf_addch(sb, '"');
}

/* The previous t_ms of each series (scope, name, class) seen so far. */
struct csv_series {
	enum scope_kind scope;
	enum io_class cls;
	const char *name;
	uint64_t last_t_ms;
};

struct csv_state {
	struct csv_series *v;
	size_t nr;
	size_t next; /* where the next sample's series probably is */
};

/*
 * Every interval writes its series in the same order, so the entry after the
 * last one found is tried first: one comparison per row in the usual case.
 * NULL when out of memory.
 */
static struct csv_series *csv_series_get(struct csv_state *cs, const struct results_sample *s)
{
	struct csv_series *n;
	size_t i, k;

	for (k = 0; k < cs->nr; k++) {
		i = (cs->next + k) % cs->nr;
		n = &cs->v[i];
		if (n->scope == s->scope && n->cls == s->cls && !strcmp(n->name, s->name)) {
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
	n->cls = s->cls;
	n->name = s->name;
	n->last_t_ms = 0;
	cs->next = cs->nr;
	return n;
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
 * Out of memory for the series table (a few hundred entries at most), rates
 * fall back to intervals measured from 0 rather than failing the report;
 * strbuf itself aborts on allocation failure.
 */
void report_csv(struct strbuf *out, const struct results *r)
{
	struct csv_state cs = {0};
	struct csv_series *series;
	const struct results_sample *s;
	uint64_t len_ms;
	size_t i;

	strbuf_addstr(out, csv_header);
	for (i = 0; i < r->nr_samples; i++) {
		s = &r->samples[i];
		series = csv_series_get(&cs, s);
		len_ms = s->t_ms;
		if (series) {
			len_ms = s->t_ms >= series->last_t_ms ? s->t_ms - series->last_t_ms : 0;
			series->last_t_ms = s->t_ms;
		}
		csv_row(out, r, s, len_ms);
	}
	free(cs.v);
}
