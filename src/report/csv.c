/* SPDX-License-Identifier: MIT */
/*
 * csv.c - the interval time series as CSV (report --format csv), for
 * spreadsheets: one row per interval x scope x class of that scope with I/O.
 *
 * Like the other renderers it formats what struct results holds: each
 * interval's length, rates and average come from the results model
 * (results_walk, results_interval), the percentiles and maximum as stored,
 * ns written as ms; a class of the scope without a row in an interval is a
 * row of zeros (results.h). A class never active in a scope (no I/O, no
 * error in any interval) has no rows. After the series, one row per scope
 * (run, volumes, databases) of class "transactional" with no t_ms: its
 * transactional I/Os and IOPS over the measured span and, in the last
 * column, its time-averaged streams (empty when not stored), and its
 * database sizes at the start and the end (empty when not known). Then one
 * whole-run row per scope and class present, with no t_ms: its summary, its
 * average bytes per I/O and its p99.9 and p99.99 (from the whole-run
 * histograms; the interval rows leave those empty). Every row then has the
 * run's host and, where it has a t_ms, that offset's absolute time, then
 * (schema 9) the scope's transactions (txn_sample's on an interval row,
 * the span's on a transactional row, empty where not counted), then
 * (schema 10) the run's series id, place and size (empty outside a
 * series), then the run's engine (issue 30: "sim" marks a simulated run on
 * every row) and, open loop only, the response time of the scope's
 * db_read on its whole-run row (avg, p50, p99, slowest; empty elsewhere):
 * columns appended after the older ones. docs/reports.md says so.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "report_internal.h"

static const char csv_header[] =
	"run_id,t_ms,warmup,scope,name,class,ios,iops,mb_s,avg_ms,p50_ms,p99_ms,max_ms,errors,"
	"streams,avg_bytes,p999_ms,p9999_ms,size_bytes,final_size_bytes,host,time_utc,txns,"
	"series_id,series_index,series_size,engine,response_avg_ms,response_p50_ms,response_p99_ms,"
	"response_max_ms\n";

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

static void csv_num(struct strbuf *sb, double v, int decimals);

/*
 * The last two columns (added in issue 19, after every older one so that
 * scripts indexing columns keep working): the run's host on every row, and
 * on a row with a t_ms its absolute time, ISO 8601 UTC with milliseconds as
 * the store's time_utc (run.t0_utc + t_ms); empty where the run has no
 * stored clock, and on the whole-run rows.
 */
static void csv_response(struct strbuf *sb, const struct class_summary *rs);

static void csv_tail(struct strbuf *sb, const struct results *r, bool has_t, uint64_t t_ms,
		     const uint64_t *txns, const struct class_summary *rs)
{
	strbuf_addch(sb, ',');
	csv_field(sb, r->host ? r->host : "");
	strbuf_addch(sb, ',');
	if (has_t && r->t0_known && r->t0_unix_ms >= 0)
		time_format_utc_ms(sb, (uint64_t)r->t0_unix_ms + t_ms);
	/* then (schema 9) the scope's transactions: of the interval, or of the
	 * measured span on its transactional row; empty where not counted */
	strbuf_addch(sb, ',');
	if (txns)
		strbuf_addf(sb, "%" PRIu64, *txns);
	/* then (schema 10) the run's series (run --repeat N): its id (the
	 * lowest run id among its runs), the run's place and N; empty
	 * outside a series */
	if (r->series_uuid)
		strbuf_addf(sb, ",%" PRId64 ",%u,%u", r->series ? r->series->id : r->id,
			    r->series_index, r->series_size);
	else
		strbuf_addstr(sb, ",,,");
	/* then the engine, on every row: "sim" says the figures come from a
	 * model, not a device; then the response time (csv_response) */
	strbuf_addch(sb, ',');
	csv_field(sb, r->engine ? r->engine : "");
	csv_response(sb, rs);
	strbuf_addch(sb, '\n');
}

/* Open loop: a whole-run row's response time (from the transaction's
 * intended start; the row's own latencies are service times), avg, p50,
 * p99 and slowest in ms; four empty fields where there is none (NULL: a
 * closed-loop run, an interval or transactional row, a class other than
 * db_read). */
static void csv_response(struct strbuf *sb, const struct class_summary *rs)
{
	if (!rs || !rs->ios) {
		strbuf_addstr(sb, ",,,,");
		return;
	}
	csv_num(sb, rs->avg_ms, 3);
	csv_num(sb, rs->p50_ms, 3);
	csv_num(sb, rs->p99_ms, 3);
	csv_num(sb, rs->max_ms, 3);
}

static void csv_ms(struct strbuf *sb, uint64_t ns, bool any)
{
	strbuf_addch(sb, ',');
	if (any)
		strbuf_addf(sb, "%.3f", (double)ns / (double)NSEC_PER_MSEC);
}

/* A stored row (or a row of zeros) with its interval's figures (iv). */
static void csv_row(struct strbuf *sb, const struct results *r, const struct results_sample *s,
		    const struct results_interval *iv, const uint64_t *txns)
{
	strbuf_addf(sb, "%" PRId64 ",%" PRIu64 ",%d,%s,", r->id, s->t_ms, s->warmup ? 1 : 0,
		    results_scope_kind_name(s->scope));
	csv_field(sb, s->name);
	strbuf_addf(sb, ",%s,%" PRIu64 ",", stats_io_class_name(s->cls), iv->ios);
	if (iv->len_ms)
		strbuf_addf(sb, "%.3f,%.3f", iv->iops, iv->mbps);
	else
		strbuf_addch(sb, ',');
	csv_ms(sb, iv->avg_ns, iv->ios);
	csv_ms(sb, s->p50_ns, s->ios);
	csv_ms(sb, s->p99_ns, s->ios);
	csv_ms(sb, s->lat_max_ns, s->ios);
	strbuf_addf(sb, ",%" PRIu64 ",", iv->errors);
	csv_num(sb, iv->ios ? (double)iv->bytes / (double)iv->ios : NAN, 1);
	strbuf_addstr(sb, ",,,,"); /* the tails and sizes are whole-run figures */
	csv_tail(sb, r, true, s->t_ms, txns, NULL);
}

/* A whole-run figure after its comma, empty when undefined (never 0). */
static void csv_num(struct strbuf *sb, double v, int decimals)
{
	strbuf_addch(sb, ',');
	if (isfinite(v))
		strbuf_addf(sb, "%.*f", decimals, v);
}

static void csv_size(struct strbuf *sb, bool known, uint64_t bytes)
{
	strbuf_addch(sb, ',');
	if (known)
		strbuf_addf(sb, "%" PRIu64, bytes);
}

/*
 * A scope's whole-run row of one class (t_ms empty): its summary's figures
 * over the measured span, with the average bytes per I/O and the p99.9 and
 * p99.99 of its whole-run histogram.
 */
static void csv_class_row(struct strbuf *sb, const struct results *r, enum scope_kind k,
			  const struct scope_summary *sc, enum io_class c)
{
	const struct class_summary *cs = &sc->classes[c];

	strbuf_addf(sb, "%" PRId64 ",,,%s,", r->id, results_scope_kind_name(k));
	csv_field(sb, sc->name);
	strbuf_addf(sb, ",%s,%" PRIu64, stats_io_class_name(c), cs->ios);
	csv_num(sb, cs->iops, 3);
	csv_num(sb, cs->mbps, 3);
	csv_num(sb, cs->ios ? cs->avg_ms : NAN, 3);
	csv_num(sb, cs->ios ? cs->p50_ms : NAN, 3);
	csv_num(sb, cs->ios ? cs->p99_ms : NAN, 3);
	csv_num(sb, cs->ios ? cs->max_ms : NAN, 3);
	strbuf_addf(sb, ",%" PRIu64 ",", cs->errors);
	csv_num(sb, results_class_avg_bytes(cs), 1);
	csv_num(sb, cs->ios ? cs->p999_ms : NAN, 3);
	csv_num(sb, cs->ios ? cs->p9999_ms : NAN, 3);
	strbuf_addstr(sb, ",,");
	csv_tail(sb, r, false, 0, NULL, sc->response_recorded ? &sc->response[c] : NULL);
}

/* Every class present in the scope (results_class_present). */
static void csv_class_rows(struct strbuf *sb, const struct results *r, enum scope_kind k,
			   const struct scope_summary *sc)
{
	for (int c = 0; c < IO_CLASS_COUNT; c++)
		if (results_class_present(&sc->classes[c]))
			csv_class_row(sb, r, k, sc, (enum io_class)c);
}

/* A scope's transactional row: its I/Os, IOPS and errors of the database
 * classes over the measured span, and its streams. */
static void csv_scope_row(struct strbuf *sb, const struct results *r, enum scope_kind k,
			  const struct scope_summary *sc)
{
	const struct class_summary *rd = &sc->classes[IO_DB_READ], *wr = &sc->classes[IO_DB_WRITE];
	double tiops = results_scope_transactional_iops(sc);

	strbuf_addf(sb, "%" PRId64 ",,,%s,", r->id, results_scope_kind_name(k));
	csv_field(sb, sc->name);
	strbuf_addf(sb, ",transactional,%" PRIu64 ",%.3f,,,,,,%" PRIu64 ",", rd->ios + wr->ios,
		    isfinite(tiops) ? tiops : 0, rd->errors + wr->errors);
	if (isfinite(sc->streams))
		strbuf_addf(sb, "%.3f", sc->streams);
	strbuf_addstr(sb, ",,,");
	csv_size(sb, sc->size_known, sc->size);
	csv_size(sb, sc->final_size_known, sc->final_size);
	csv_tail(sb, r, false, 0, sc->txns_recorded ? &sc->txns : NULL, NULL);
}

/* The row and its figures over the interval's length. */
static void csv_row_of(struct strbuf *sb, const struct results *r, const struct results_sample *s,
		       uint64_t len_ms, const uint64_t *txns)
{
	struct results_interval iv = {.t_ms = s->t_ms, .len_ms = len_ms};

	results_interval_add(&iv, s, 1u << s->cls);
	results_interval_finish(&iv);
	csv_row(sb, r, s, &iv, txns);
}

/* The transactions of the group's interval and scope (txn_sample), NULL
 * where none are stored. Both are in t_ms order: *at only moves forward,
 * and only the rows of one t_ms are searched. */
static const uint64_t *csv_txns(const struct results *r, size_t *at, const struct results_group *g)
{
	const struct results_sample *s = &g->rows[0];

	while (*at < r->nr_txn_samples && r->txn_samples[*at].t_ms < s->t_ms)
		(*at)++;
	for (size_t i = *at; i < r->nr_txn_samples && r->txn_samples[i].t_ms == s->t_ms; i++)
		if (r->txn_samples[i].scope == s->scope && !strcmp(r->txn_samples[i].name, s->name))
			return &r->txn_samples[i].txns;
	return NULL;
}

/*
 * The rows of one interval of one scope (results_walk), in class order: each
 * class of the scope's series, as stored, or as a row of zeros where the
 * store kept none (it writes no row for a class without I/O in an interval).
 */
static void csv_group(struct strbuf *sb, const struct results *r, const struct results_group *g,
		      size_t *txn_at)
{
	const uint64_t *txns = csv_txns(r, txn_at, g);
	struct results_sample zero;
	bool found;
	size_t i;
	int c;

	for (c = 0; c < IO_CLASS_COUNT; c++) {
		if (!(g->series & (1u << c)))
			continue;
		found = false;
		for (i = 0; i < g->n; i++) {
			if (g->rows[i].cls != (enum io_class)c)
				continue;
			csv_row_of(sb, r, &g->rows[i], g->len_ms, txns);
			found = true;
		}
		if (found)
			continue;
		zero = g->rows[0];
		zero.cls = (enum io_class)c;
		zero.ios = zero.bytes = zero.errors = 0;
		zero.lat_sum_ns = zero.lat_max_ns = zero.p50_ns = zero.p99_ns = 0;
		csv_row_of(sb, r, &zero, g->len_ms, txns);
	}
}

/* Each interval of each scope in stored order, with the length and series
 * results_walk gives it (results.h). */
void report_csv(struct strbuf *out, const struct results *r, const struct report_options *opt)
{
	struct results_walk w;
	struct results_group g;
	size_t txn_at = 0;

	strbuf_addstr(out, csv_header);
	results_walk_init(&w, r);
	while (results_walk_next(&w, &g))
		csv_group(out, r, &g, &txn_at);
	results_walk_release(&w);
	csv_scope_row(out, r, SCOPE_RUN, &r->run);
	for (size_t i = 0; i < r->nr_volumes; i++)
		csv_scope_row(out, r, SCOPE_VOLUME, &r->volumes[i]);
	for (size_t i = 0; i < r->nr_databases; i++)
		csv_scope_row(out, r, SCOPE_DATABASE, &r->databases[i]);
	csv_class_rows(out, r, SCOPE_RUN, &r->run);
	for (size_t i = 0; i < r->nr_volumes; i++)
		csv_class_rows(out, r, SCOPE_VOLUME, &r->volumes[i]);
	for (size_t i = 0; i < r->nr_databases; i++)
		csv_class_rows(out, r, SCOPE_DATABASE, &r->databases[i]);
}
