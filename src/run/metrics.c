/* SPDX-License-Identifier: MIT */
/*
 * metrics.c - the run's live metrics (--metrics, --metrics-file;
 * diskproof/metrics.h, docs/metrics.md): the coordinator builds the whole
 * Prometheus text from its cumulative totals once an interval, publishes it
 * to the server thread and writes the textfile; once more at the end with
 * the final verdicts, so that the last text equals what the results file
 * stores. Workers pay nothing: everything here reads coordinator state.
 *
 * Counters count what the totals of the results file count: the measured
 * I/Os (warm-up excluded), errors and integrity errors from the start (the
 * store counts those in the warm-up too). A run that auto-tunes its streams
 * counts its levels' I/O while tuning and starts the main test's from zero,
 * as its stored totals do: Prometheus sees a counter reset there, which
 * rate() and increase() handle.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diskproof/metrics.h"
#include "diskproof/store.h"

#include "run_internal.h"

/* With a virtual clock (sim) intervals pass in microseconds: the text is
 * built at most this often in wall time, and at the end. */
#define METRICS_MIN_GAP_NS NSEC_PER_SEC

/* the per-database histogram keeps the last bound (2^34 ns) too */
_Static_assert((METRICS_LE_COUNT - 1) % METRICS_LE_DB_STEP == 0, "le step");

struct metrics_state {
	const char *phase;
	uint64_t elapsed_ns, measured_ns;
	const struct verdict *verdicts; /* judged so far (or finally) */
	size_t nverd;
	bool judged; /* verdicts say something (a stopped run is not judged) */
	bool finished;
	int exit_code;
};

/* v in decimal; width digits at least, zero-padded (no printf: a large
 * run's text has hundreds of thousands of numbers). */
static void add_u64_w(struct strbuf *sb, uint64_t v, unsigned width)
{
	char d[24];
	unsigned n = 0;

	do {
		d[sizeof(d) - 1 - n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v || n < width);
	strbuf_add(sb, d + sizeof(d) - n, n);
}

static void add_u64(struct strbuf *sb, uint64_t v)
{
	add_u64_w(sb, v, 1);
}

/* ns as seconds, exactly: "12.000345678". */
static void add_secs(struct strbuf *sb, uint64_t ns)
{
	add_u64(sb, ns / NSEC_PER_SEC);
	strbuf_addch(sb, '.');
	add_u64_w(sb, ns % NSEC_PER_SEC, 9);
}

/* v in the fewest digits that read back as v: 0.1, not 0.10000000000000001 */
static void add_double(struct strbuf *sb, double v)
{
	char t[32];

	if (isnan(v)) {
		strbuf_addstr(sb, "NaN");
	} else if (isinf(v)) {
		strbuf_addstr(sb, v > 0 ? "+Inf" : "-Inf");
	} else {
		snprintf(t, sizeof(t), "%.15g", v);
		if (strtod(t, NULL) != v)
			snprintf(t, sizeof(t), "%.17g", v);
		strbuf_addstr(sb, t);
	}
}

/* "NAME{volume="V",database="D",class="C"" (the brace left open); no
 * class for c = IO_CLASS_COUNT. The label sets are escaped once, in
 * run_metrics_prepare. */
static void db_labels(struct strbuf *sb, const char *name, const struct run *r, size_t d,
		      unsigned c)
{
	strbuf_addstr(sb, name);
	strbuf_addch(sb, '{');
	strbuf_addstr(sb, r->metrics.lab[d * (IO_CLASS_COUNT + 1) + c]);
}

/* "NAME{labels} V\n" */
static void db_line(struct strbuf *sb, const char *name, const struct run *r, size_t d, unsigned c,
		    uint64_t v)
{
	db_labels(sb, name, r, d, c);
	strbuf_add(sb, "} ", 2);
	add_u64(sb, v);
	strbuf_addch(sb, '\n');
}

/* Every (database, class) that had I/O or errors so far, in plan order:
 * once shown, a series stays (at 0 after auto-tune's reset). */
static bool db_class_shown(struct run *r, size_t d, unsigned c)
{
	const struct class_stats *cs = &r->coord.tot_db[d * IO_CLASS_COUNT + c];

	if (cs->lat.count || cs->errors)
		r->metrics.seen[d] |= (uint8_t)(1u << c);
	return r->metrics.seen[d] & (1u << c);
}

static void build_run(struct run *r, struct strbuf *sb, const struct metrics_state *m)
{
	char streams[16];

	snprintf(streams, sizeof(streams), "%u", r->streams);
	metrics_family(sb, "diskproof_run_info", "gauge",
		       "The run (value 1): profile, label, phase (preparing, tuning, warmup, "
		       "measuring, draining, finished), streams, run_uuid (run.uuid in the "
		       "results file), host, and engine (sim: simulated, no device measured).");
	strbuf_addstr(sb, "diskproof_run_info{");
	metrics_label(sb, true, "profile", r->prof->name);
	metrics_label(sb, false, "label", r->opt->label);
	metrics_label(sb, false, "phase", m->phase);
	metrics_label(sb, false, "streams", streams);
	metrics_label(sb, false, "run_uuid", r->metrics.run_uuid);
	metrics_label(sb, false, "host", r->metrics.hostname);
	/* issue 30: a simulated run's series say so; engine="sim" on the info
	 * metric joins onto every other series by run_uuid or host */
	metrics_label(sb, false, "engine", r->ops ? r->ops->name : "");
	strbuf_addstr(sb, "} 1\n");

	metrics_family(sb, "diskproof_run_elapsed_seconds", "gauge",
		       "Time since the run's load started, warm-up included (virtual time "
		       "with the sim engine).");
	strbuf_addstr(sb, "diskproof_run_elapsed_seconds ");
	add_secs(sb, m->elapsed_ns);
	strbuf_addch(sb, '\n');
	metrics_family(sb, "diskproof_run_planned_seconds", "gauge",
		       "Warm-up plus duration: how long the load is to last.");
	strbuf_addstr(sb, "diskproof_run_planned_seconds ");
	add_secs(sb, r->prof->warmup_ns + r->prof->duration_ns);
	strbuf_addch(sb, '\n');
	metrics_family(sb, "diskproof_run_measured_seconds", "gauge",
		       "Measured time so far (warm-up excluded): what the counters cover.");
	strbuf_addstr(sb, "diskproof_run_measured_seconds ");
	add_secs(sb, m->measured_ns);
	strbuf_addch(sb, '\n');
	metrics_family(sb, "diskproof_run_start_time_seconds", "gauge",
		       "When the run started, in seconds since the Unix epoch.");
	strbuf_addstr(sb, "diskproof_run_start_time_seconds ");
	add_secs(sb, r->metrics.started_real_ns);
	strbuf_addch(sb, '\n');
	metrics_family(sb, "diskproof_run_streams", "gauge",
		       "Streams in use (auto-tune: the level being measured).");
	strbuf_addf(sb, "diskproof_run_streams %u\n", r->streams);
	metrics_family(sb, "diskproof_run_databases", "gauge", "Databases the run drives.");
	strbuf_addf(sb, "diskproof_run_databases %zu\n", r->plan.nr_dbs);
	metrics_family(sb, "diskproof_run_finished", "gauge",
		       "1 once the run has ended and its results are stored, else 0.");
	strbuf_addf(sb, "diskproof_run_finished %d\n", m->finished);
	if (m->finished) {
		metrics_family(sb, "diskproof_run_exit_code", "gauge",
			       "The run's exit code (0 passed, 1 failed, 3 environment error, "
			       "4 integrity error, 130/143 interrupted).");
		strbuf_addf(sb, "diskproof_run_exit_code %d\n", m->exit_code);
	}
	metrics_family(sb, "diskproof_metrics_update_time_seconds", "gauge",
		       "When this text was built, in seconds since the Unix epoch (a "
		       "textfile older than a few intervals is stale).");
	strbuf_addstr(sb, "diskproof_metrics_update_time_seconds ");
	add_secs(sb, time_real_ns());
	strbuf_addch(sb, '\n');
}

static void build_counters(struct run *r, struct strbuf *sb)
{
	size_t nd = r->plan.nr_dbs;

	metrics_family(sb, "diskproof_ios_total", "counter",
		       "Completed I/Os per database and class, warm-up excluded.");
	for (size_t d = 0; d < nd; d++)
		for (unsigned c = 0; c < IO_CLASS_COUNT; c++)
			if (db_class_shown(r, d, c))
				db_line(sb, "diskproof_ios_total", r, d, c,
					r->coord.tot_db[d * IO_CLASS_COUNT + c].lat.count);
	metrics_family(sb, "diskproof_bytes_total", "counter",
		       "Bytes moved by the completed I/Os, warm-up excluded.");
	for (size_t d = 0; d < nd; d++)
		for (unsigned c = 0; c < IO_CLASS_COUNT; c++)
			if (r->metrics.seen[d] & (1u << c))
				db_line(sb, "diskproof_bytes_total", r, d, c,
					r->coord.tot_db[d * IO_CLASS_COUNT + c].bytes);
	metrics_family(sb, "diskproof_io_errors_total", "counter",
		       "Failed I/Os per database and class, warm-up included.");
	for (size_t d = 0; d < nd; d++)
		for (unsigned c = 0; c < IO_CLASS_COUNT; c++)
			if (r->metrics.seen[d] & (1u << c))
				db_line(sb, "diskproof_io_errors_total", r, d, c,
					r->coord.tot_db[d * IO_CLASS_COUNT + c].errors);
	metrics_family(sb, "diskproof_integrity_errors_total", "counter",
		       "Pages and log blocks that failed verification, per database, warm-up "
		       "included.");
	for (size_t d = 0; d < nd; d++)
		db_line(sb, "diskproof_integrity_errors_total", r, d, IO_CLASS_COUNT,
			r->coord.integ_db[d]);
	if (!txns_counted(r))
		return; /* no transactions: no series, rather than 0 */
	metrics_family(sb, "diskproof_transactions_total", "counter",
		       "Transactions completed per database (seeks included), warm-up "
		       "excluded.");
	for (size_t d = 0; d < nd; d++)
		db_line(sb, "diskproof_transactions_total", r, d, IO_CLASS_COUNT,
			r->coord.txn_db[d].txns);
	metrics_family(sb, "diskproof_log_commits_total", "counter",
		       "Commit records made durable by log writes per database, warm-up "
		       "excluded (per log write: group commit).");
	for (size_t d = 0; d < nd; d++)
		db_line(sb, "diskproof_log_commits_total", r, d, IO_CLASS_COUNT,
			r->coord.txn_db[d].log_commits);
}

/* "NAME_SUFFIX{labels" (the brace left open) */
static void hist_labels(struct strbuf *sb, const char *name, const char *suffix, const char *labels)
{
	strbuf_addstr(sb, name);
	strbuf_addstr(sb, suffix);
	strbuf_addch(sb, '{');
	strbuf_addstr(sb, labels);
}

static void bucket_line(struct run *r, struct strbuf *sb, const char *name, const char *labels,
			unsigned b, uint64_t n)
{
	hist_labels(sb, name, "_bucket", labels);
	strbuf_add(sb, ",le=\"", 5);
	strbuf_addstr(sb, r->metrics.le[b]);
	strbuf_add(sb, "\"} ", 3);
	add_u64(sb, n);
	strbuf_addch(sb, '\n');
}

/* NAME_bucket{labels,le="B"} for bounds 0, step, 2 x step, ... and +Inf
 * (step divides METRICS_LE_COUNT - 1: the last bound is always there),
 * then NAME_sum and NAME_count. */
static void hist_lines(struct run *r, struct strbuf *sb, const char *name, const char *labels,
		       const struct hist *h, unsigned step)
{
	uint64_t cum[METRICS_LE_COUNT + 1];

	metrics_hist_cumulative(h, cum);
	for (unsigned b = 0; b < METRICS_LE_COUNT; b += step)
		bucket_line(r, sb, name, labels, b, cum[b]);
	bucket_line(r, sb, name, labels, METRICS_LE_COUNT, cum[METRICS_LE_COUNT]);
	hist_labels(sb, name, "_sum", labels);
	strbuf_add(sb, "} ", 2);
	add_secs(sb, h->sum_ns);
	strbuf_addch(sb, '\n');
	hist_labels(sb, name, "_count", labels);
	strbuf_add(sb, "} ", 2);
	add_u64(sb, h->count);
	strbuf_addch(sb, '\n');
}

/* Per database and class: the coarse bounds, one an octave (metrics.h). */
static void build_db_latency(struct run *r, struct strbuf *sb)
{
	size_t nd = r->plan.nr_dbs;

	metrics_family(sb, "diskproof_io_latency_seconds", "histogram",
		       "I/O latency per database and class, warm-up excluded, one bucket an "
		       "octave; diskproof_volume_latency_seconds has 8 an octave per volume "
		       "(docs/metrics.md). Each bound is an edge of diskproof's own histogram: "
		       "the counts are exact.");
	for (size_t d = 0; d < nd; d++)
		for (unsigned c = 0; c < IO_CLASS_COUNT; c++) {
			if (!(r->metrics.seen[d] & (1u << c)))
				continue;
			hist_lines(r, sb, "diskproof_io_latency_seconds",
				   r->metrics.lab[d * (IO_CLASS_COUNT + 1) + c],
				   &r->coord.tot_db[d * IO_CLASS_COUNT + c].lat,
				   METRICS_LE_DB_STEP);
		}
}

/* Per volume and class: its databases' histograms merged the way the
 * results' volume totals merge them (run_totals_build), all 169 bounds.
 * A (volume, class) is shown once one of its databases' is. */
static void build_volume_latency(struct run *r, struct strbuf *sb)
{
	struct strbuf lab = STRBUF_INIT;
	struct hist *h = r->metrics.vol_lat;

	if (!h)
		return;
	metrics_family(sb, "diskproof_volume_latency_seconds", "histogram",
		       "I/O latency per volume and class (its databases' I/Os together), "
		       "warm-up excluded. Each bound is an edge of diskproof's own histogram, "
		       "8 an octave (docs/metrics.md): the counts are exact, and p99 within a "
		       "few % of the report's.");
	for (size_t v = 0; v < r->plan.nr_vols; v++)
		for (unsigned c = 0; c < IO_CLASS_COUNT; c++) {
			bool shown = false;

			hist_reset(h);
			for (size_t d = 0; d < r->plan.nr_dbs; d++) {
				if (r->plan.dbs[d].volume != v || !(r->metrics.seen[d] & (1u << c)))
					continue;
				shown = true;
				hist_merge(h, &r->coord.tot_db[d * IO_CLASS_COUNT + c].lat);
			}
			if (!shown)
				continue;
			strbuf_reset(&lab);
			metrics_label(&lab, true, "volume", r->plan.vols[v].name);
			metrics_label(&lab, false, "class", stats_io_class_name(c));
			hist_lines(r, sb, "diskproof_volume_latency_seconds", lab.buf, h, 1);
		}
	strbuf_release(&lab);
}

static void build_latency(struct run *r, struct strbuf *sb)
{
	size_t nd = r->plan.nr_dbs;

	build_db_latency(r, sb);
	build_volume_latency(r, sb);
	metrics_family(sb, "diskproof_io_latency_max_seconds", "gauge",
		       "The slowest I/O so far per database and class (exact), warm-up "
		       "excluded.");
	for (size_t d = 0; d < nd; d++)
		for (unsigned c = 0; c < IO_CLASS_COUNT; c++)
			if (r->metrics.seen[d] & (1u << c)) {
				db_labels(sb, "diskproof_io_latency_max_seconds", r, d, c);
				strbuf_add(sb, "} ", 2);
				add_secs(sb, r->coord.tot_db[d * IO_CLASS_COUNT + c].lat.max_ns);
				strbuf_addch(sb, '\n');
			}
}

/* Open loop (arrival = rate) only: each database's page reads' response
 * time so far (from the transaction's intended start; the latency series
 * above are service times), its average and its slowest, as gauges with
 * class="db_read"; no series at all in a closed loop (response is service). */
static void build_response(struct run *r, struct strbuf *sb)
{
	static const struct {
		const char *name, *help;
	} fam[] = {
		{"diskproof_io_response_avg_seconds",
		 "Open loop: the average response time so far per database of its page reads "
		 "(from the transaction's intended start to completion, the wait for a stream "
		 "included), warm-up excluded."},
		{"diskproof_io_response_max_seconds",
		 "Open loop: the slowest response time so far per database of its page reads, "
		 "warm-up excluded."},
	};
	size_t nd = r->plan.nr_dbs;

	if (!r->coord.resp_db)
		return;
	for (size_t k = 0; k < DP_ARRAY_SIZE(fam); k++) {
		metrics_family(sb, fam[k].name, "gauge", fam[k].help);
		for (size_t d = 0; d < nd; d++) {
			const struct hist *h = &r->coord.resp_db[d].lat;

			if (!(r->metrics.seen[d] & (1u << IO_DB_READ)))
				continue;
			db_labels(sb, fam[k].name, r, d, IO_DB_READ);
			strbuf_add(sb, "} ", 2);
			if (k)
				add_secs(sb, h->max_ns);
			else
				add_double(sb, h->count ? (double)h->sum_ns / h->count / 1e9 : NAN);
			strbuf_addch(sb, '\n');
		}
	}
}

/*
 * One unit per metric (Prometheus' base units): a criterion's measured value
 * and threshold go to the family of its unit, scaled from the criterion's own
 * (eval.h): milliseconds to seconds, percent to a ratio.
 */
enum verdict_unit_id { VU_SECONDS, VU_SLOPE, VU_PER_SECOND, VU_RATIO, VU_COUNT, VU_N };

static const struct verdict_unit {
	const char *suffix; /* of diskproof_verdict_measured / _threshold */
	double div;	    /* the criterion's value over this */
	const char *what;
} verdict_units[VU_N] = {
	[VU_SECONDS] = {"_seconds", 1e3,
			"in seconds (the criteria named _ms, judged in milliseconds: _avg_ms, "
			"_max_ms, _p99_ms, ...)"},
	[VU_SLOPE] = {"_seconds_per_sample", 1e3,
		      "in seconds of latency per sample (autotune_settled: a slope)"},
	[VU_PER_SECOND] = {"_per_second", 1, "per second (transactional_iops, page_fault_stalls)"},
	[VU_RATIO] = {"_ratio", 1e2, "as a ratio (the criteria named _pct: 0.05 is 5 %)"},
	[VU_COUNT] = {"", 1,
		      "a count (io_errors, integrity_errors, databases_failed, volumes_failed)"},
};

/* The first rule whose key the criterion ends in (or, exact, is) gives its
 * unit; a criterion no rule takes is a count. */
static const struct {
	const char *key;
	bool exact;
	enum verdict_unit_id unit;
} verdict_unit_rules[] = {
	{"autotune_settled", true, VU_SLOPE},
	{"page_fault_stalls", true, VU_PER_SECOND},
	{"_iops", false, VU_PER_SECOND},
	{"_ms", false, VU_SECONDS},
	{"_pct", false, VU_RATIO},
};

static enum verdict_unit_id verdict_unit_of(const char *criterion)
{
	size_t n = strlen(criterion);

	for (size_t i = 0; i < DP_ARRAY_SIZE(verdict_unit_rules); i++) {
		const char *key = verdict_unit_rules[i].key;
		size_t k = strlen(key);

		if (verdict_unit_rules[i].exact ? !strcmp(criterion, key)
						: n >= k && !strcmp(criterion + n - k, key))
			return verdict_unit_rules[i].unit;
	}
	return VU_COUNT;
}

/* "NAME{scope,name,criterion} " */
static void verdict_labels(struct strbuf *sb, const char *name, const struct verdict *v)
{
	strbuf_addf(sb, "%s{", name);
	metrics_label(sb, true, "scope", results_scope_kind_name(v->scope));
	metrics_label(sb, false, "name", v->name);
	metrics_label(sb, false, "criterion", v->criterion);
	strbuf_addstr(sb, "} ");
}

/* Measured values (threshold false) or thresholds: a gauge family per unit
 * that has a verdict row, "BASE_UNIT{scope,name,criterion} value". */
static void build_verdict_values(struct strbuf *sb, const struct metrics_state *m, bool threshold)
{
	const char *base = threshold ? "diskproof_verdict_threshold" : "diskproof_verdict_measured";
	char name[80], help[256];

	for (unsigned u = 0; u < VU_N; u++) {
		const struct verdict_unit *vu = &verdict_units[u];
		bool any = false;

		snprintf(name, sizeof(name), "%s%s", base, vu->suffix);
		snprintf(help, sizeof(help), "%s, %s.",
			 threshold ? "The threshold each verdict criterion is judged against"
				   : "The measured value of each verdict criterion so far",
			 vu->what);
		for (size_t i = 0; i < m->nverd; i++) {
			const struct verdict *v = &m->verdicts[i];
			double x = threshold ? v->threshold : v->measured;

			if (verdict_unit_of(v->criterion) != u)
				continue;
			if (!any)
				metrics_family(sb, name, "gauge", help);
			any = true;
			verdict_labels(sb, name, v);
			add_double(sb, x / vu->div);
			strbuf_addch(sb, '\n');
		}
	}
}

static void build_verdicts(struct strbuf *sb, const struct metrics_state *m)
{
	if (!m->judged && m->finished) {
		/* stopped (interrupted, an environment error): not judged, and
		 * so not passed */
		metrics_family(sb, "diskproof_run_pass", "gauge",
			       "1 while every verdict criterion passes (finally: the run passed), "
			       "else 0.");
		strbuf_addstr(sb, "diskproof_run_pass 0\n");
	}
	if (!m->judged)
		return;
	metrics_family(sb, "diskproof_verdict_pass", "gauge",
		       "Each verdict criterion per scope (run, volume, database) as judged so far, "
		       "the way the final verdict judges it: 1 passing, 0 failing.");
	for (size_t i = 0; i < m->nverd; i++) {
		verdict_labels(sb, "diskproof_verdict_pass", &m->verdicts[i]);
		strbuf_addstr(sb, m->verdicts[i].passed ? "1\n" : "0\n");
	}
	build_verdict_values(sb, m, false);
	build_verdict_values(sb, m, true);
	metrics_family(sb, "diskproof_run_pass", "gauge",
		       "1 while every verdict criterion passes (finally: the run passed), "
		       "else 0.");
	strbuf_addf(sb, "diskproof_run_pass %d\n", eval_all_passed(m->verdicts, m->nverd));
}

static void metrics_build(struct run *r, const struct metrics_state *m)
{
	struct strbuf *sb = &r->metrics.text;

	strbuf_reset(sb);
	build_run(r, sb, m);
	if (r->plan.nr_dbs && r->coord.tot_db && r->metrics.seen && r->metrics.lab) {
		build_counters(r, sb);
		build_latency(r, sb);
		build_response(r, sb);
	}
	build_verdicts(sb, m);
}

/* Publishes the text built and writes the textfile; a textfile that cannot
 * be written is said once (an event and a message), and the run goes on. */
static void metrics_emit(struct run *r, bool final)
{
	struct strbuf err = STRBUF_INIT;

	if (r->opt->metrics_file &&
	    metrics_file_write(r->opt->metrics_file, &r->metrics.text, &err) &&
	    !r->metrics.file_failed) {
		r->metrics.file_failed = true;
		run_event(r, "metrics", err.buf);
	}
	strbuf_release(&err);
	if (final)
		metrics_server_publish_final(r->metrics.srv, &r->metrics.text);
	else
		metrics_server_publish(r->metrics.srv, &r->metrics.text);
	r->metrics.last_ns = time_mono_ns();
}

static bool metrics_on(const struct run *r)
{
	return r->opt->metrics || r->opt->metrics_file || r->opt->metrics_server;
}

int run_metrics_open(struct run *r, struct strbuf *err)
{
	struct metrics_addr a;
	int ret;

	strbuf_init(&r->metrics.text);
	if (r->opt->metrics_server) {
		r->metrics.srv = r->opt->metrics_server;
		r->metrics.borrowed = true;
		return 0;
	}
	if (!r->opt->metrics)
		return 0;
	ret = metrics_addr_parse(r->opt->metrics, &a, err);
	if (!ret)
		ret = metrics_server_start(&r->metrics.srv, &a, err);
	return ret;
}

void run_metrics_prepare(struct run *r)
{
	size_t nd = r->plan.nr_dbs;

	if (!metrics_on(r))
		return;
	for (unsigned b = 0; b <= METRICS_LE_COUNT; b++) {
		struct strbuf le = STRBUF_INIT;

		metrics_le_add(&le, b);
		snprintf(r->metrics.le[b], sizeof(r->metrics.le[b]), "%s", le.buf);
		strbuf_release(&le);
	}
	r->metrics.seen = calloc(nd ? nd : 1, sizeof(*r->metrics.seen));
	/* zeroed: hist_reset() takes it as empty */
	r->metrics.vol_lat = calloc(1, sizeof(*r->metrics.vol_lat));
	r->metrics.lab = calloc(nd * (IO_CLASS_COUNT + 1) + 1, sizeof(*r->metrics.lab));
	for (size_t d = 0; r->metrics.lab && d < nd; d++) {
		const struct plan_db *db = &r->plan.dbs[d];

		for (unsigned c = 0; c <= IO_CLASS_COUNT; c++) {
			struct strbuf sb = STRBUF_INIT;

			metrics_label(&sb, true, "volume", r->plan.vols[db->volume].name);
			metrics_label(&sb, false, "database", db->name);
			if (c < IO_CLASS_COUNT)
				metrics_label(&sb, false, "class", stats_io_class_name(c));
			r->metrics.lab[d * (IO_CLASS_COUNT + 1) + c] = strbuf_detach(&sb, NULL);
		}
	}
	/* the name the run will be stored under (run_info_fill): --host when
	 * given, so the preparing text's host label is the measuring text's */
	if (r->opt->host)
		snprintf(r->metrics.hostname, sizeof(r->metrics.hostname), "%s", r->opt->host);
	else if (gethostname(r->metrics.hostname, sizeof(r->metrics.hostname) - 1))
		snprintf(r->metrics.hostname, sizeof(r->metrics.hostname), "unknown");
	metrics_build(r, &(struct metrics_state){.phase = "preparing"});
	metrics_emit(r, false);
}

void run_metrics_begin(struct run *r)
{
	struct strbuf err = STRBUF_INIT;

	if (!metrics_on(r))
		return;
	if (store_run_uuid(r->store.st, r->store.run_id, r->metrics.run_uuid,
			   sizeof(r->metrics.run_uuid), &err))
		r->metrics.run_uuid[0] =
			'\0'; /* the label stays empty: nothing else depends on it */
	strbuf_release(&err);
	metrics_build(r, &(struct metrics_state){.phase = "preparing"});
	metrics_emit(r, false);
}

void run_metrics_interval(struct run *r, unsigned k, const struct verdict *v, size_t nverd)
{
	const struct grid *g = &r->grid;
	struct metrics_state m = {0};
	unsigned last = atomic_load_explicit(&r->ctl.last, memory_order_acquire);

	if (!metrics_on(r))
		return;
	if (r->virt && k != last && time_mono_ns() - r->metrics.last_ns < METRICS_MIN_GAP_NS)
		return;
	m.phase = r->tune.tuner		      ? "tuning"
		  : atomic_load(&r->ctl.stop) ? "draining"
		  : k < g->nw		      ? "warmup"
					      : "measuring";
	m.elapsed_ns = grid_end(g, k) - g->t0;
	m.measured_ns = run_measured_ns(r, grid_end(g, k));
	m.verdicts = v;
	m.nverd = nverd;
	m.judged = v != NULL;
	metrics_build(r, &m);
	metrics_emit(r, false);
}

void run_metrics_final(struct run *r, uint64_t measured, const struct verdict *v, size_t nverd,
		       int exit_code)
{
	const struct grid *g = &r->grid;
	uint64_t end = r->ctl.time ? r->ctl.time : g->t0 + g->warmup + g->duration;
	struct metrics_state m = {.phase = "finished", .finished = true, .exit_code = exit_code};

	if (!metrics_on(r))
		return;
	m.elapsed_ns = g->interval && end > g->t0 ? end - g->t0 : 0;
	m.measured_ns = measured;
	m.verdicts = v;
	m.nverd = nverd;
	m.judged = v != NULL;
	metrics_build(r, &m);
	metrics_emit(r, true);
}

void run_metrics_close(struct run *r)
{
	if (!r->metrics.borrowed)
		metrics_server_stop(r->metrics.srv);
	r->metrics.srv = NULL;
	free(r->metrics.seen);
	r->metrics.seen = NULL;
	free(r->metrics.vol_lat);
	r->metrics.vol_lat = NULL;
	for (size_t i = 0; r->metrics.lab && i < r->plan.nr_dbs * (IO_CLASS_COUNT + 1); i++)
		free(r->metrics.lab[i]);
	free(r->metrics.lab);
	r->metrics.lab = NULL;
	strbuf_release(&r->metrics.text);
}
