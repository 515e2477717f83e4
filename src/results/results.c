/* SPDX-License-Identifier: MIT */
/*
 * results.c - helpers of the results model (results.h): turning accumulated
 * class statistics into the summary numbers every report shows, scope names,
 * and freeing a loaded struct results (its summaries and its time series).
 *
 * These are the only computations between the histograms and the reports:
 * the store calls results_class_from_stats() once per scope and class when a
 * run ends and keeps the outcome in table summary, so every renderer and every
 * later reader sees the same numbers. The one figure a loaded run derives
 * from its samples, the warm-up's (never judged, shown apart), is summed here
 * too (results_warmup_fill), once, for every renderer, and so are the host
 * counters' figures over the measured intervals (results_host_perf_fill).
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diskproof/results.h"

static const char *const scope_kind_names[] = {
	[SCOPE_RUN] = "run",
	[SCOPE_VOLUME] = "volume",
	[SCOPE_DATABASE] = "database",
};

const char *results_scope_kind_name(enum scope_kind k)
{
	if ((unsigned)k >= DP_ARRAY_SIZE(scope_kind_names))
		return "unknown";
	return scope_kind_names[k];
}

int results_scope_kind_from_name(const char *name)
{
	size_t i;

	if (!name)
		return -1;
	for (i = 0; i < DP_ARRAY_SIZE(scope_kind_names); i++)
		if (!strcmp(name, scope_kind_names[i]))
			return (int)i;
	return -1;
}

/*
 * Rates divide by the measured time (warm-up excluded); with no measured time
 * there is no rate, and 0 is reported rather than inf or nan. Average and
 * percentiles come from the histogram (percentiles within 1/128, see stats.h);
 * the maximum is the exact one the histogram keeps apart.
 */
void results_class_from_stats(struct class_summary *out, const struct class_stats *s,
			      uint64_t duration_ns)
{
	double secs = (double)duration_ns / (double)NSEC_PER_SEC;
	const struct hist *h = &s->lat;

	memset(out, 0, sizeof(*out));
	out->max_sample_avg_ms = NAN;
	out->p999_ms = out->p9999_ms = NAN;
	out->ios = h->count;
	out->bytes = s->bytes;
	out->errors = s->errors;
	if (duration_ns) {
		out->iops = (double)out->ios / secs;
		out->mbps = (double)out->bytes / 1e6 / secs;
	}
	if (!h->count)
		return;
	out->avg_ms = hist_mean(h) / (double)NSEC_PER_MSEC;
	out->p50_ms = (double)hist_percentile(h, 50.0) / (double)NSEC_PER_MSEC;
	out->p99_ms = (double)hist_percentile(h, 99.0) / (double)NSEC_PER_MSEC;
	out->max_ms = (double)h->max_ns / (double)NSEC_PER_MSEC;
	out->p999_ms = (double)hist_percentile(h, 99.9) / (double)NSEC_PER_MSEC;
	out->p9999_ms = (double)hist_percentile(h, 99.99) / (double)NSEC_PER_MSEC;
}

bool results_class_present(const struct class_summary *cs)
{
	return cs->ios || cs->errors;
}

double results_class_avg_bytes(const struct class_summary *cs)
{
	return cs->ios ? (double)cs->bytes / (double)cs->ios : NAN;
}

double results_scope_transactional_iops(const struct scope_summary *s)
{
	return s->classes[IO_DB_READ].iops + s->classes[IO_DB_WRITE].iops;
}

bool results_scope_txn_figures(const struct scope_summary *s, struct results_scope_txn_figures *out)
{
	double n = (double)s->txns, lw = (double)s->classes[IO_LOG_WRITE].ios;

	if (!s->txns_recorded)
		return false;
	out->count = s->txns;
	out->per_second = s->tps;
	out->db_reads = n > 0 ? (double)s->classes[IO_DB_READ].ios / n : NAN;
	out->db_writes = n > 0 ? (double)s->classes[IO_DB_WRITE].ios / n : NAN;
	out->log_writes = n > 0 ? lw / n : NAN;
	out->log_bytes = n > 0 ? (double)s->classes[IO_LOG_WRITE].bytes / n : NAN;
	out->commits_per_log_write = lw > 0 ? (double)s->log_commits / lw : NAN;
	return true;
}

void results_release(struct results *r)
{
	size_t i;

	if (!r)
		return;
	free(r->status);
	free(r->verdict);
	free(r->label);
	free(r->host);
	free(r->started_at);
	free(r->start_at);
	free(r->load_started_at);
	free(r->ended_at);
	free(r->profile_name);
	free(r->profile_text);
	free(r->command_line);
	free(r->engine);
	free(r->test_type);
	free(r->uuid);
	free(r->series_uuid);
	free(r->fp_kept_name);
	free(r->fp_kept);
	free(r->fp_run);
	if (r->fp_compare)
		free(r->fp_compare->table);
	free(r->fp_compare);
	results_series_free(r->series);
	free(r->volumes);
	free(r->databases);
	free(r->verdicts);
	free(r->samples);
	free(r->txn_samples);
	free(r->backlog_samples);
	for (i = 0; r->env && i < r->nr_env; i++) {
		free(r->env[i].key);
		free(r->env[i].value);
	}
	free(r->env);
	for (i = 0; r->params && i < r->nr_params; i++)
		free(r->params[i].value);
	free(r->params);
	for (i = 0; r->events && i < r->nr_events; i++) {
		free(r->events[i].kind);
		free(r->events[i].message);
	}
	free(r->events);
	for (i = 0; r->hists && i < r->nr_hists; i++)
		free(r->hists[i].h);
	free(r->hists);
	free(r->autotune.goal);
	free(r->autotune.stopped_because);
	free(r->autotune.note);
	for (i = 0; r->autotune.steps && i < r->autotune.nr_steps; i++)
		free(r->autotune.steps[i].reason);
	free(r->autotune.steps);
	free(r->host_samples);
	for (i = 0; r->windows && i < r->nr_windows; i++)
		free(r->windows[i].bands);
	free(r->windows);
	free(r->host_perf.devices);
	memset(r, 0, sizeof(*r));
}

const char *results_env_get(const struct results *r, const char *key)
{
	size_t i;

	for (i = 0; r->env && i < r->nr_env; i++)
		if (r->env[i].key && !strcmp(r->env[i].key, key))
			return r->env[i].value;
	return NULL;
}

/*
 * Rates over the warm-up divide by its length as stored: the end of its last
 * run-scope interval (intervals start at the run's start, 0), which is also
 * right for a run stopped during its warm-up.
 */
void results_warmup_fill(struct results *r)
{
	uint64_t lat[IO_CLASS_COUNT] = {0}, end_ms = 0;
	struct results_warmup *w = &r->warmup;
	const struct results_sample *x;
	struct results_warmup_class *wc;
	size_t i;
	int c;

	memset(w, 0, sizeof(*w));
	for (i = 0; r->samples && i < r->nr_samples; i++) {
		x = &r->samples[i];
		if (!x->warmup || x->scope != SCOPE_RUN || (unsigned)x->cls >= IO_CLASS_COUNT)
			continue;
		w->classes[x->cls].ios += x->ios;
		w->classes[x->cls].errors += x->errors;
		lat[x->cls] += x->lat_sum_ns;
		if (x->t_ms > end_ms)
			end_ms = x->t_ms;
	}
	w->duration_s = (double)end_ms / 1000.0;
	for (c = 0; c < IO_CLASS_COUNT; c++) {
		wc = &w->classes[c];
		if (end_ms)
			wc->iops = (double)wc->ios / w->duration_s;
		if (wc->ios)
			wc->avg_ms = (double)lat[c] / (double)wc->ios / (double)NSEC_PER_MSEC;
	}
}

/* An env fact's copy into *out (NULL stays NULL). */
static int env_dup(const struct results *r, const char *key, char **out)
{
	const char *v = results_env_get(r, key);

	*out = NULL;
	if (!v)
		return 0;
	*out = strdup(v);
	return *out ? 0 : -ENOMEM;
}

int results_autotune_from_env(struct results *r)
{
	struct results_autotune *a = &r->autotune;
	const char *chosen = results_env_get(r, "autotune_chosen");
	unsigned long n;
	char *end;

	free(a->goal);
	free(a->stopped_because);
	free(a->note);
	a->goal = a->stopped_because = a->note = NULL;
	a->has_chosen = false;
	a->chosen = 0;
	if (chosen && *chosen) {
		n = strtoul(chosen, &end, 10);
		if (!*end && n <= UINT_MAX) {
			a->has_chosen = true;
			a->chosen = (unsigned)n;
		}
	}
	if (env_dup(r, "autotune_goal", &a->goal) ||
	    env_dup(r, "autotune_stopped_because", &a->stopped_because) ||
	    env_dup(r, "autotune_note", &a->note)) {
		free(a->goal);
		free(a->stopped_because);
		a->goal = a->stopped_because = NULL;
		return -ENOMEM;
	}
	/* each step's time: its autotune_step event, one per step in the same
	 * order (files from before have none: NAN) */
	for (size_t i = 0, e = 0; i < a->nr_steps; i++) {
		a->steps[i].t_s = NAN;
		while (e < r->nr_events && strcmp(r->events[e].kind, "autotune_step"))
			e++;
		if (e < r->nr_events)
			a->steps[i].t_s = (double)r->events[e++].t_ms / 1000.0;
	}
	return 0;
}

bool results_simulated(const struct results *r)
{
	return r->engine && !strcmp(r->engine, "sim");
}

bool results_autotune_ran(const struct results *r)
{
	return r->autotune.nr_steps || r->autotune.goal || r->autotune.has_chosen;
}

/* Sums of one device's measured rows, before they become its figures. */
struct host_acc {
	double span_s;		     /* rows with a span */
	double rd_wait, wr_wait;     /* ms x I/Os: the time the I/Os waited */
	uint64_t rd_timed, wr_timed; /* the I/Os those cover */
	double util_s, queue_s;	     /* util % x s, queue x s */
	uint64_t rd_sectors, wr_sectors;
};

/* The device named name in h->devices, appended (with its sums) on first sight. */
static struct results_host_device *
host_device_get(struct results_host_perf *h, struct host_acc **acc, size_t *cap, const char *name)
{
	struct results_host_device *nd;
	struct host_acc *na;
	size_t i;

	for (i = 0; i < h->nr_devices; i++)
		if (!strcmp(h->devices[i].name, name))
			return &h->devices[i];
	if (h->nr_devices == *cap) {
		*cap = *cap ? *cap * 2 : 4;
		nd = realloc(h->devices, *cap * sizeof(*nd));
		if (nd)
			h->devices = nd;
		na = realloc(*acc, *cap * sizeof(*na));
		if (na)
			*acc = na;
		if (!nd || !na)
			return NULL;
	}
	nd = &h->devices[h->nr_devices];
	memset(nd, 0, sizeof(*nd));
	memset(&(*acc)[h->nr_devices], 0, sizeof(**acc));
	snprintf(nd->name, sizeof(nd->name), "%s", name);
	h->nr_devices++;
	return nd;
}

static void host_acc_add(struct results_host_device *d, struct host_acc *a,
			 const struct results_host_sample *x)
{
	double span = (double)x->span_ms / 1000.0;

	d->intervals++;
	d->reads += x->reads;
	d->writes += x->writes;
	a->rd_sectors += x->read_sectors;
	a->wr_sectors += x->write_sectors;
	if (isfinite(x->read_wait_ms)) {
		a->rd_wait += x->read_wait_ms * (double)x->reads;
		a->rd_timed += x->reads;
	}
	if (isfinite(x->write_wait_ms)) {
		a->wr_wait += x->write_wait_ms * (double)x->writes;
		a->wr_timed += x->writes;
	}
	if (!(span > 0))
		return;
	a->span_s += span;
	if (isfinite(x->util_pct)) {
		a->util_s += x->util_pct * span;
		d->util_max_pct = fmax(d->util_max_pct, x->util_pct);
	}
	if (isfinite(x->queue))
		a->queue_s += x->queue * span;
}

static double ratio_or_nan(double num, double den)
{
	return den > 0 ? num / den : NAN;
}

static void host_device_finish(struct results_host_device *d, const struct host_acc *a)
{
	d->reads_per_s = ratio_or_nan((double)d->reads, a->span_s);
	d->writes_per_s = ratio_or_nan((double)d->writes, a->span_s);
	d->read_mbps = ratio_or_nan((double)a->rd_sectors * 512.0 / 1e6, a->span_s);
	d->write_mbps = ratio_or_nan((double)a->wr_sectors * 512.0 / 1e6, a->span_s);
	d->read_wait_ms = ratio_or_nan(a->rd_wait, (double)a->rd_timed);
	d->write_wait_ms = ratio_or_nan(a->wr_wait, (double)a->wr_timed);
	d->avg_wait_ms = ratio_or_nan(a->rd_wait + a->wr_wait, (double)(a->rd_timed + a->wr_timed));
	d->util_pct = ratio_or_nan(a->util_s, a->span_s);
	d->queue = ratio_or_nan(a->queue_s, a->span_s);
	if (!d->intervals)
		d->util_max_pct = NAN;
}

/* CPU shares weighted by span, memory's lowest and mean, of the host rows. */
static void host_cpu_mem(struct results_host_perf *h, const struct results *r)
{
	double span, cpu_s = 0, user = 0, sys = 0, iow = 0, mem = 0;
	const struct results_host_sample *x;
	size_t i;

	h->mem_available_min = NAN;
	for (i = 0; i < r->nr_host_samples; i++) {
		x = &r->host_samples[i];
		if (x->warmup || x->device[0])
			continue;
		span = (double)x->span_ms / 1000.0;
		if (isfinite(x->cpu_user_pct) && isfinite(x->cpu_system_pct) &&
		    isfinite(x->cpu_iowait_pct) && span > 0) {
			h->cpu_intervals++;
			cpu_s += span;
			user += x->cpu_user_pct * span;
			sys += x->cpu_system_pct * span;
			iow += x->cpu_iowait_pct * span;
		}
		if (isfinite(x->mem_available)) {
			h->mem_intervals++;
			mem += x->mem_available;
			if (!(x->mem_available >= h->mem_available_min))
				h->mem_available_min = x->mem_available;
		}
	}
	h->cpu_user_pct = ratio_or_nan(user, cpu_s);
	h->cpu_system_pct = ratio_or_nan(sys, cpu_s);
	h->cpu_iowait_pct = ratio_or_nan(iow, cpu_s);
	h->mem_available_avg = ratio_or_nan(mem, (double)h->mem_intervals);
}

/*
 * The figures iostat would print over the measured stretch, from the stored
 * per-interval ones: counts summed; a rate is the counts over the summed
 * spans; a wait is an interval's wait times its I/Os (the time they waited,
 * exactly, as the kernel counted it), summed, over the I/Os; util % and
 * queue are span-weighted means, so a longer interval counts for more.
 */
int results_host_perf_fill(struct results *r)
{
	struct results_host_perf *h = &r->host_perf;
	struct results_host_device *d;
	const struct results_host_sample *x;
	struct host_acc *acc = NULL;
	size_t i, cap = 0;

	free(h->devices);
	memset(h, 0, sizeof(*h));
	h->recorded = r->nr_host_samples > 0;
	host_cpu_mem(h, r);
	for (i = 0; i < r->nr_host_samples; i++) {
		x = &r->host_samples[i];
		if (x->warmup || !x->device[0])
			continue;
		d = host_device_get(h, &acc, &cap, x->device);
		if (!d) {
			free(acc);
			free(h->devices);
			memset(h, 0, sizeof(*h));
			return -ENOMEM;
		}
		host_acc_add(d, &acc[d - h->devices], x);
	}
	for (i = 0; i < h->nr_devices; i++)
		host_device_finish(&h->devices[i], &acc[i]);
	free(acc);
	return 0;
}
