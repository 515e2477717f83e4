/* SPDX-License-Identifier: MIT */
/*
 * fleet.c - the fleet report's model (report.h): the runs of many hosts as
 * one, their totals from exactly merged histograms, where each load began
 * against the earliest, and which runs differ from the rest (the test is
 * analyze's, run against the pooled other runs). The renderers are in
 * fleet_text.c, fleet_json.c and fleet_html.c.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diskproof/analyze.h"
#include "diskproof/report.h"
#include "diskproof/util.h"
#include "report_internal.h"

static const char *const fig_keys[REPORT_FLEET_FIG_COUNT] = {
	[REPORT_FLEET_TRANS_IOPS] = "trans_iops",
	[REPORT_FLEET_DB_READ_AVG] = "db_read_avg_ms",
	[REPORT_FLEET_LOG_WRITE_AVG] = "log_write_avg_ms",
};

static const char *const fig_words[REPORT_FLEET_FIG_COUNT] = {
	[REPORT_FLEET_TRANS_IOPS] = "transactional IOPS",
	[REPORT_FLEET_DB_READ_AVG] = "db read avg ms",
	[REPORT_FLEET_LOG_WRITE_AVG] = "log write avg ms",
};

const char *report_fleet_fig_key(enum report_fleet_fig f)
{
	return (unsigned)f < REPORT_FLEET_FIG_COUNT ? fig_keys[f] : "unknown";
}

const char *report_fleet_fig_words(enum report_fleet_fig f)
{
	return (unsigned)f < REPORT_FLEET_FIG_COUNT ? fig_words[f] : "unknown";
}

int report_fleet_parse_time(const char *s, int64_t *us)
{
	struct strbuf err = STRBUF_INIT;
	uint64_t ns = 0;
	int ret;

	/* the run's own parser of --start-at: one reading of RFC 3339 */
	ret = s ? time_parse_rfc3339(s, &ns, &err) : -EINVAL;
	strbuf_release(&err);
	if (ret)
		return -EINVAL;
	*us = (int64_t)(ns / 1000);
	return 0;
}

void report_fleet_merge_class(const struct results *runs, size_t n, enum io_class c,
			      struct class_summary *out, bool *complete)
{
	struct class_stats *cs = malloc(sizeof(*cs));
	double iops = 0, mbps = 0, lat_ms = 0, max_ms = NAN, msa = NAN;
	uint64_t ios = 0, bytes = 0, errors = 0;

	*complete = true;
	for (size_t i = 0; i < n; i++) {
		const struct class_summary *s = &runs[i].run.classes[c];
		const struct hist *h = results_hist_get(&runs[i], SCOPE_RUN, "run", c);

		ios += s->ios;
		bytes += s->bytes;
		errors += s->errors;
		iops += isfinite(s->iops) ? s->iops : 0;
		mbps += isfinite(s->mbps) ? s->mbps : 0;
		if (s->ios) {
			lat_ms += s->avg_ms * (double)s->ios;
			if (!(max_ms >= s->max_ms))
				max_ms = s->max_ms;
			if (isfinite(s->max_sample_avg_ms) && !(msa >= s->max_sample_avg_ms))
				msa = s->max_sample_avg_ms;
		}
		if (s->ios && (!h || h->count != s->ios))
			*complete = false;
		if (cs && i == 0)
			stats_class_init(cs);
		if (cs && h)
			hist_merge(&cs->lat, h);
	}
	memset(out, 0, sizeof(*out));
	if (cs && *complete && n) {
		/* the percentiles of the merged histogram: what one histogram of
		 * every I/O of the fleet would give */
		results_class_from_stats(out, cs, 0);
	} else {
		out->p50_ms = out->p99_ms = out->p999_ms = out->p9999_ms = NAN;
		out->avg_ms = ios ? lat_ms / (double)ios : 0;
		if (!cs)
			*complete = false;
	}
	out->ios = ios;
	out->bytes = bytes;
	out->errors = errors;
	out->iops = iops;
	out->mbps = mbps;
	out->max_ms = ios ? max_ms : 0;
	out->max_sample_avg_ms = msa;
	free(cs);
}

/* The fleet's whole-run scope: every class merged, the scope's counts summed. */
static void fleet_summary(struct report_fleet *f, const struct results *runs, size_t n)
{
	struct scope_summary *sc = &f->summary;
	bool stalls = n > 0, size = n > 0, fsize = n > 0, streams = n > 0, txns = n > 0;

	memset(sc, 0, sizeof(*sc));
	snprintf(sc->name, sizeof(sc->name), "fleet");
	for (int c = 0; c < IO_CLASS_COUNT; c++) {
		report_fleet_merge_class(runs, n, c, &sc->classes[c], &f->hist_complete[c]);
		f->ios += sc->classes[c].ios;
	}
	for (size_t i = 0; i < n; i++) {
		const struct scope_summary *r = &runs[i].run;

		sc->integrity_errors += r->integrity_errors;
		stalls = stalls && r->stalls_recorded;
		sc->page_fault_stalls += r->page_fault_stalls;
		sc->page_fault_stalls_per_s += r->page_fault_stalls_per_s;
		size = size && r->size_known;
		sc->size += r->size;
		fsize = fsize && r->final_size_known;
		sc->final_size += r->final_size;
		streams = streams && isfinite(r->streams);
		sc->streams += isfinite(r->streams) ? r->streams : 0;
		/* the fleet's transactions per second: the runs' rates summed,
		 * as their IOPS are (they ran at the same time) */
		txns = txns && r->txns_recorded;
		sc->txns += r->txns;
		sc->log_commits += r->log_commits;
		sc->tps += r->tps;
	}
	sc->stalls_recorded = stalls;
	sc->txns_recorded = txns;
	sc->size_known = size;
	sc->final_size_known = fsize;
	if (!streams)
		sc->streams = NAN;
}

static double lat_or_nan(const struct class_summary *cs, double v)
{
	return cs->ios ? v : NAN;
}

static void host_figures(struct report_fleet_host *h, const struct results *r)
{
	const struct class_summary *rd = &r->run.classes[IO_DB_READ];
	const struct class_summary *lw = &r->run.classes[IO_LOG_WRITE];
	struct report_clock clock;
	int64_t at_us;

	h->r = r;
	/* a run that measured nothing (aborted or late in its wait, an error
	 * before the load) has no rate: its 0 would drag the fleet's median
	 * towards 0 and flag the healthy runs beside it. A run that measured
	 * and did no I/O keeps its 0: that host stalled */
	h->trans_iops = r->duration_s > 0 ? results_scope_transactional_iops(&r->run) : NAN;
	h->db_read_avg_ms = lat_or_nan(rd, rd->avg_ms);
	h->db_read_p99_ms = lat_or_nan(rd, rd->p99_ms);
	h->db_read_max_ms = lat_or_nan(rd, rd->max_ms);
	h->log_write_avg_ms = lat_or_nan(lw, lw->avg_ms);
	h->db_read_resp_avg_ms = r->run.response_recorded
					 ? lat_or_nan(&r->run.response[IO_DB_READ],
						      r->run.response[IO_DB_READ].avg_ms)
					 : NAN;
	h->simulated = results_simulated(r);
	for (int c = 0; c < IO_CLASS_COUNT; c++)
		h->ios += r->run.classes[c].ios;
	h->has_load =
		r->load_started_at && !report_fleet_parse_time(r->load_started_at, &h->load_us);
	h->start_offset_ms = NAN;
	h->late_ms = NAN;
	if (h->has_load && r->start_at && !report_fleet_parse_time(r->start_at, &at_us))
		h->late_ms = (double)(h->load_us - at_us) / 1000.0;
	h->late = h->late_ms >= REPORT_FLEET_LATE_MS;
	report_clock_get(r, &clock);
	h->clock_synchronised = clock.synchronised;
	h->clock_max_error_ms = clock.max_error_ms;
	h->clock_warning = clock.warning;
}

static void fleet_skew(struct report_fleet *f)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	size_t with = 0;

	for (size_t i = 0; i < f->nr_hosts; i++) {
		const struct report_fleet_host *h = &f->hosts[i];

		if (!h->has_load)
			continue;
		with++;
		lo = h->load_us < lo ? h->load_us : lo;
		hi = h->load_us > hi ? h->load_us : hi;
	}
	f->clock_max_error_ms = NAN;
	for (size_t i = 0; i < f->nr_hosts; i++) {
		double e = f->hosts[i].clock_max_error_ms;

		if (isfinite(e) && !(e <= f->clock_max_error_ms))
			f->clock_max_error_ms = e;
	}
	f->nr_no_load = f->nr_hosts - with;
	f->nr_no_start_at = 0;
	for (size_t i = 0; i < f->nr_hosts; i++)
		f->nr_no_start_at += !f->hosts[i].r->start_at;
	f->has_skew = with >= 2;
	f->start_skew_ms = f->has_skew ? (double)(hi - lo) / 1000.0 : NAN;
	for (size_t i = 0; with && i < f->nr_hosts; i++)
		if (f->hosts[i].has_load)
			f->hosts[i].start_offset_ms = (double)(f->hosts[i].load_us - lo) / 1000.0;
}

/* Run r's per-interval series of figure g (the run scope, measured intervals). */
static int fig_series(const struct results *r, enum report_fleet_fig g, double **x, size_t *n)
{
	switch (g) {
	case REPORT_FLEET_TRANS_IOPS:
		return analyze_series_trans(r, SCOPE_RUN, "run", x, n);
	case REPORT_FLEET_DB_READ_AVG:
		return analyze_series(r, SCOPE_RUN, "run", IO_DB_READ, ANALYZE_AVG_MS, x, n);
	default:
		return analyze_series(r, SCOPE_RUN, "run", IO_LOG_WRITE, ANALYZE_AVG_MS, x, n);
	}
}

static double host_fig(const struct report_fleet_host *h, enum report_fleet_fig g)
{
	switch (g) {
	case REPORT_FLEET_TRANS_IOPS:
		return h->trans_iops;
	case REPORT_FLEET_DB_READ_AVG:
		return h->db_read_avg_ms;
	default:
		return h->log_write_avg_ms;
	}
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of every run's own figure g, self included (the mean of the
 * middle two for an even count); NAN when none has one. A median, so that
 * an outlier does not move the reference; self included, so that with
 * three runs of which one is slow the median is a fast one's figure (the
 * median of the two others of a fast run would be halfway). */
static double fleet_median(const struct report_fleet *f, enum report_fleet_fig g, double *scratch)
{
	size_t n = 0;

	for (size_t i = 0; i < f->nr_hosts; i++) {
		double v = host_fig(&f->hosts[i], g);

		if (isfinite(v))
			scratch[n++] = v;
	}
	if (!n)
		return NAN;
	qsort(scratch, n, sizeof(*scratch), dbl_cmp);
	return n % 2 ? scratch[n / 2] : (scratch[n / 2 - 1] + scratch[n / 2]) / 2;
}

/*
 * Run self's figures against the pooled series of every other run: the
 * Mann-Whitney test of analyze, Holm over the run's figures, then the
 * material condition against the fleet's median (report.h).
 */
static int host_differs(struct report_fleet *f, size_t self, double **series, size_t *lens)
{
	struct analyze_figure figs[REPORT_FLEET_FIG_COUNT] = {0}, *v[REPORT_FLEET_FIG_COUNT];
	struct report_fleet_host *h = &f->hosts[self];
	size_t m = 0;
	int ret = 0;

	for (int g = 0; g < REPORT_FLEET_FIG_COUNT && !ret; g++) {
		double *pool = NULL, *x = series[self * REPORT_FLEET_FIG_COUNT + g];
		size_t np = 0, nx = lens[self * REPORT_FLEET_FIG_COUNT + g], cap = 0;
		struct report_fleet_diff *d = &h->diff[g];

		for (size_t i = 0; i < f->nr_hosts; i++)
			if (i != self)
				cap += lens[i * REPORT_FLEET_FIG_COUNT + g];
		/* room for the series, and for the other runs' figures after */
		cap = cap > f->nr_hosts ? cap : f->nr_hosts;
		pool = malloc((cap ? cap : 1) * sizeof(*pool));
		if (!pool)
			return -ENOMEM;
		for (size_t i = 0; i < f->nr_hosts; i++) {
			size_t k = i * REPORT_FLEET_FIG_COUNT + g;

			if (i == self || !lens[k])
				continue;
			memcpy(pool + np, series[k], lens[k] * sizeof(*pool));
			np += lens[k];
		}
		ret = analyze_mann_whitney(x, nx, pool, np, &figs[g].test);
		d->value = host_fig(h, g);
		d->median = fleet_median(f, g, pool);
		free(pool);
		d->change_pct = analyze_change_pct(d->median, d->value);
		d->tested = !ret && figs[g].test.method != ANALYZE_NONE;
		d->p_value = d->tested ? figs[g].test.p_value : NAN;
		if (d->tested)
			v[m++] = &figs[g];
	}
	if (ret)
		return ret;
	analyze_holm(v, m, f->alpha);
	for (int g = 0; g < REPORT_FLEET_FIG_COUNT; g++) {
		struct report_fleet_diff *d = &h->diff[g];

		d->significant = figs[g].significant;
		d->differs = d->significant && isfinite(d->change_pct) &&
			     fabs(d->change_pct) >= ANALYZE_MIN_CHANGE_DEFAULT;
		h->differs = h->differs || d->differs;
	}
	return 0;
}

static int fleet_differs(struct report_fleet *f)
{
	size_t n = f->nr_hosts * REPORT_FLEET_FIG_COUNT;
	double **series = calloc(n ? n : 1, sizeof(*series));
	size_t *lens = calloc(n ? n : 1, sizeof(*lens));
	int ret = series && lens ? 0 : -ENOMEM;

	for (size_t i = 0; i < f->nr_hosts && !ret; i++)
		for (int g = 0; g < REPORT_FLEET_FIG_COUNT && !ret; g++)
			ret = fig_series(f->hosts[i].r, g, &series[i * REPORT_FLEET_FIG_COUNT + g],
					 &lens[i * REPORT_FLEET_FIG_COUNT + g]);
	for (size_t i = 0; i < f->nr_hosts && !ret; i++)
		ret = host_differs(f, i, series, lens);
	for (size_t i = 0; series && i < n; i++)
		free(series[i]);
	free(series);
	free(lens);
	return ret;
}

/* f->unlike: whether the runs are of one profile and one measured duration. */
static void fleet_unlike(struct report_fleet *f, const struct results *runs, size_t n)
{
	size_t nprof = 0, nat = 0;
	double lo = INFINITY, hi = 0;

	for (size_t i = 0; i < n; i++) {
		const char *p = runs[i].profile_name ? runs[i].profile_name : "";
		bool seen = false;

		for (size_t k = 0; k < i && !seen; k++)
			seen = !strcmp(runs[k].profile_name ? runs[k].profile_name : "", p);
		nprof += !seen;
		/* a run that measured nothing has no duration to differ in */
		if (runs[i].duration_s > 0) {
			lo = runs[i].duration_s < lo ? runs[i].duration_s : lo;
			hi = runs[i].duration_s > hi ? runs[i].duration_s : hi;
		}
	}
	if (nprof > 1) {
		strbuf_addf(&f->unlike, "the runs are of %zu profiles (", nprof);
		for (size_t i = 0; i < n; i++) {
			const char *p = runs[i].profile_name ? runs[i].profile_name : "";
			bool seen = false;

			for (size_t k = 0; k < i && !seen; k++)
				seen = !strcmp(runs[k].profile_name ? runs[k].profile_name : "", p);
			if (!seen)
				strbuf_addf(&f->unlike, "%s%s", i ? ", " : "", p);
		}
		strbuf_addch(&f->unlike, ')');
	}
	/* more than 1 % apart: not the same --duration (runs of one measure
	 * within milliseconds of each other) */
	if (hi > lo && hi - lo > 0.01 * hi)
		strbuf_addf(&f->unlike, "%smeasured for %.3g s to %.3g s",
			    f->unlike.len ? "; " : "the runs were ", lo, hi);
	/* one fleet run gives every host one --start-at: several mean several
	 * waves (a label used again: the playbook's results files keep every
	 * earlier run), whose loads never overlapped */
	for (size_t i = 0; i < n; i++) {
		bool seen = false;

		if (!runs[i].start_at)
			continue;
		for (size_t k = 0; k < i && !seen; k++)
			seen = runs[k].start_at && !strcmp(runs[k].start_at, runs[i].start_at);
		nat += !seen;
	}
	if (nat > 1)
		strbuf_addf(&f->unlike, "%s%zu different --start-at times (not one fleet run)",
			    f->unlike.len ? "; " : "the runs were given ", nat);
	if (f->unlike.len)
		strbuf_addstr(&f->unlike, ": the totals add unlike loads, and the runs "
					  "compared with each other are not alike");
}

int report_fleet_build(struct report_fleet *f, const struct results *runs, size_t n,
		       const struct report_fleet_skip *skipped, size_t nr_skipped, double alpha,
		       struct strbuf *err)
{
	size_t pass = 0;
	int ret = 0;

	memset(f, 0, sizeof(*f));
	f->unlike = (struct strbuf)STRBUF_INIT;
	f->alpha = alpha;
	f->hosts = calloc(n ? n : 1, sizeof(*f->hosts));
	f->skipped = calloc(nr_skipped ? nr_skipped : 1, sizeof(*f->skipped));
	if (!f->hosts || !f->skipped) {
		ret = -ENOMEM;
		goto out;
	}
	f->nr_hosts = n;
	if (nr_skipped)
		memcpy(f->skipped, skipped, nr_skipped * sizeof(*skipped));
	f->nr_skipped = nr_skipped;
	for (size_t i = 0; i < n; i++) {
		bool seen = false;

		host_figures(&f->hosts[i], &runs[i]);
		for (size_t k = 0; k < i && !seen; k++)
			seen = !strcmp(runs[k].host ? runs[k].host : "",
				       runs[i].host ? runs[i].host : "");
		f->nr_host_names += !seen;
		f->nr_failed += runs[i].verdict && !strcmp(runs[i].verdict, "FAIL");
		f->nr_unjudged += runs[i].status && (!strcmp(runs[i].status, "error") ||
						     !strcmp(runs[i].status, "aborted"));
		f->nr_late += f->hosts[i].late;
		pass += runs[i].verdict && !strcmp(runs[i].verdict, "PASS");
	}
	f->nr_passed = pass;
	f->passed = n && pass == n;
	fleet_summary(f, runs, n);
	fleet_unlike(f, runs, n);
	fleet_skew(f);
	ret = fleet_differs(f);
out:
	if (ret) {
		strbuf_addstr(err, "fleet: out of memory");
		report_fleet_release(f);
	}
	return ret;
}

void report_fleet_release(struct report_fleet *f)
{
	free(f->hosts);
	free(f->skipped);
	free(f->missing);
	strbuf_release(&f->unlike);
	f->hosts = NULL;
	f->skipped = NULL;
	f->missing = NULL;
	f->nr_hosts = f->nr_skipped = f->nr_missing = 0;
}

/* Has f a row of host name (run.host)? */
static bool fleet_has_host(const struct report_fleet *f, const char *name)
{
	for (size_t i = 0; i < f->nr_hosts; i++)
		if (f->hosts[i].r->host && !strcmp(f->hosts[i].r->host, name))
			return true;
	return false;
}

int report_fleet_expect(struct report_fleet *f, const char *const *hosts, size_t n,
			struct strbuf *err)
{
	f->expected = hosts;
	f->nr_expected = n;
	free(f->missing);
	f->nr_missing = 0;
	f->missing = calloc(n ? n : 1, sizeof(*f->missing));
	if (!f->missing) {
		strbuf_addstr(err, "fleet: out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		bool twice = false;

		for (size_t k = 0; k < i && !twice; k++)
			twice = !strcmp(hosts[k], hosts[i]);
		if (!twice && !fleet_has_host(f, hosts[i]))
			f->missing[f->nr_missing++] = hosts[i];
	}
	if (f->nr_missing)
		f->passed = false;
	return 0;
}

bool report_fleet_host_failed(const struct report_fleet_host *h)
{
	return !h->r->verdict || strcmp(h->r->verdict, "PASS");
}

const char *report_fleet_finding(const struct report_fleet *f)
{
	size_t failing = 0;

	if (f->nr_hosts < 2)
		return NULL;
	for (size_t i = 0; i < f->nr_hosts; i++) {
		if (f->hosts[i].differs && !report_fleet_host_failed(&f->hosts[i]))
			return NULL;
		failing += report_fleet_host_failed(&f->hosts[i]);
	}
	if (failing)
		return "apart from the failing hosts, no host differs from its peers";
	for (size_t i = 0; i < f->nr_hosts; i++)
		if (f->hosts[i].differs)
			return NULL;
	return "no run differs significantly from the rest";
}

void report_fleet_render(struct strbuf *out, const struct report_fleet *f, enum report_format fmt,
			 const struct report_options *opt)
{
	switch (fmt) {
	case REPORT_JSON:
		report_fleet_json(out, f, opt);
		break;
	case REPORT_HTML:
		report_fleet_html(out, f, opt);
		break;
	default:
		report_fleet_text(out, f, opt);
		break;
	}
}
