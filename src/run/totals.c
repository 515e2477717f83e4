/* SPDX-License-Identifier: MIT */
/*
 * totals.c - whole-run figures: totals per database, volume and run as the
 * store and eval take them, window statistics, and the backup and
 * recovery figures.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diskproof/eval.h"

#include "run_internal.h"

void run_totals_release(struct run_totals *t)
{
	free(t->vol_cs);
	free(t->resp_cs);
	free(t->sums);
	free(t->totals);
	memset(t, 0, sizeof(*t));
}

/* Merges the databases' measured totals into volumes and the run. */
static void pass_done(const struct run *r, struct scope_summary *dbs);

/* Each database's measured transactions and durable commits, summed into
 * its volume and the run (run_totals.sums order). */
static void txn_fill(const struct run *r, struct scope_summary *sums, uint64_t measured)
{
	size_t nv = r->plan.nr_vols, nd = r->plan.nr_dbs;
	double secs = (double)measured / (double)NSEC_PER_SEC;

	for (size_t i = 0; i < 1 + nv + nd; i++) {
		sums[i].txns_recorded = txns_counted(r);
		sums[i].txns = sums[i].log_commits = 0;
	}
	for (size_t d = 0; d < nd; d++) {
		size_t scopes[3] = {0, 1 + r->plan.dbs[d].volume, 1 + nv + d};

		for (unsigned k = 0; k < 3; k++) {
			sums[scopes[k]].txns += r->coord.txn_db[d].txns;
			sums[scopes[k]].log_commits += r->coord.txn_db[d].log_commits;
		}
	}
	for (size_t i = 0; i < 1 + nv + nd; i++)
		sums[i].tps = secs > 0 ? (double)sums[i].txns / secs : 0;
}

/* Open loop: each database's page reads' response times (coord.resp_db),
 * merged into its volume and the run, into the summaries (run_totals.sums
 * order). 0, or -ENOMEM. Closed loop: nothing (response is service). */
static int response_fill(const struct run *r, struct run_totals *t, uint64_t measured)
{
	size_t nv = r->plan.nr_vols, nd = r->plan.nr_dbs;

	if (!r->coord.resp_db)
		return 0;
	t->resp_cs = calloc(nv + 1, sizeof(*t->resp_cs));
	if (!t->resp_cs)
		return -ENOMEM;
	for (size_t i = 0; i < nv + 1; i++)
		stats_class_reset(&t->resp_cs[i]);
	for (size_t d = 0; d < nd; d++) {
		const struct class_stats *cs = &r->coord.resp_db[d];

		stats_class_merge(&t->resp_cs[r->plan.dbs[d].volume], cs);
		stats_class_merge(&t->resp_cs[nv], cs);
		results_class_from_stats(&t->sums[1 + nv + d].response[IO_DB_READ], cs, measured);
	}
	for (size_t v = 0; v < nv; v++)
		results_class_from_stats(&t->sums[1 + v].response[IO_DB_READ], &t->resp_cs[v],
					 measured);
	results_class_from_stats(&t->sums[0].response[IO_DB_READ], &t->resp_cs[nv], measured);
	for (size_t i = 0; i < t->nt; i++) {
		t->sums[i].response_recorded = true;
		for (unsigned c = 0; c < IO_CLASS_COUNT; c++)
			if (c != IO_DB_READ)
				t->sums[i].response[c].max_sample_avg_ms = NAN;
	}
	return 0;
}

int run_totals_build(struct run *r, uint64_t measured, struct run_totals *t)
{
	size_t nv = r->plan.nr_vols, nd = r->plan.nr_dbs;
	uint64_t sample_ms = r->prof->thresholds.sample_interval_ns / NSEC_PER_MSEC;
	struct class_stats *run_cs;

	t->nt = 1 + nv + nd;
	t->vol_cs = calloc((nv + 1) * IO_CLASS_COUNT, sizeof(*t->vol_cs));
	t->sums = calloc(t->nt, sizeof(*t->sums));
	t->totals = calloc(t->nt, sizeof(*t->totals));
	if (!t->vol_cs || !t->sums || !t->totals) {
		run_totals_release(t);
		return -ENOMEM;
	}
	run_cs = &t->vol_cs[nv * IO_CLASS_COUNT];
	for (size_t i = 0; i < (nv + 1) * IO_CLASS_COUNT; i++)
		stats_class_reset(&t->vol_cs[i]);
	for (size_t d = 0; d < nd; d++) {
		const struct plan_db *db = &r->plan.dbs[d];
		struct scope_summary *s = &t->sums[1 + nv + d];

		for (unsigned c = 0; c < IO_CLASS_COUNT; c++) {
			const struct class_stats *cs = &r->coord.tot_db[d * IO_CLASS_COUNT + c];

			stats_class_merge(&t->vol_cs[db->volume * IO_CLASS_COUNT + c], cs);
			stats_class_merge(&run_cs[c], cs);
			results_class_from_stats(&s->classes[c], cs, measured);
		}
		snprintf(s->name, sizeof(s->name), "%s", db->name);
		snprintf(s->volume, sizeof(s->volume), "%s", r->plan.vols[db->volume].name);
		s->integrity_errors = r->coord.integ_db[d];
		t->sums[1 + db->volume].integrity_errors += r->coord.integ_db[d];
		t->sums[0].integrity_errors += r->coord.integ_db[d];
		t->totals[1 + nv + d] =
			(struct store_scope_total){SCOPE_DATABASE,
						   db->name,
						   r->plan.vols[db->volume].name,
						   r->coord.integ_db[d],
						   &r->coord.tot_db[d * IO_CLASS_COUNT],
						   r->coord.stream_db[d],
						   s,
						   sample_ms};
	}
	for (size_t v = 0; v < nv; v++) {
		struct scope_summary *s = &t->sums[1 + v];

		snprintf(s->name, sizeof(s->name), "%s", r->plan.vols[v].name);
		for (unsigned c = 0; c < IO_CLASS_COUNT; c++)
			results_class_from_stats(&s->classes[c], &t->vol_cs[v * IO_CLASS_COUNT + c],
						 measured);
		t->totals[1 + v] = (struct store_scope_total){SCOPE_VOLUME,
							      r->plan.vols[v].name,
							      NULL,
							      s->integrity_errors,
							      &t->vol_cs[v * IO_CLASS_COUNT],
							      0,
							      s,
							      sample_ms};
	}
	snprintf(t->sums[0].name, sizeof(t->sums[0].name), "run");
	for (unsigned c = 0; c < IO_CLASS_COUNT; c++)
		results_class_from_stats(&t->sums[0].classes[c], &run_cs[c], measured);
	t->totals[0] = (struct store_scope_total){
		SCOPE_RUN, "run", NULL,	       t->sums[0].integrity_errors,
		run_cs,	   0,	  &t->sums[0], sample_ms};
	/* the streams of a volume and of the run: their databases' */
	for (size_t d = 0; d < nd; d++) {
		t->totals[1 + r->plan.dbs[d].volume].stream_ns += r->coord.stream_db[d];
		t->totals[0].stream_ns += r->coord.stream_db[d];
	}
	if (response_fill(r, t, measured)) {
		run_totals_release(t);
		return -ENOMEM;
	}
	run_samples_fill(r, t->sums, measured);
	txn_fill(r, t->sums, measured);
	pass_done(r, &t->sums[1 + nv]);
	return 0;
}

/*
 * A backup or recovery test is a pass over each database (a read of it all,
 * a replay of recovery_segments): one that the duration cut short measured
 * less than the test is for, and its figures say "(not finished)". Each
 * database's share done goes to eval (criterion pass_done_pct >= 100), so
 * such a run fails instead of passing on what it did not do.
 */
static void pass_done(const struct run *r, struct scope_summary *dbs)
{
	const struct profile *p = r->prof;
	bool backup = backup_test(r);

	if (!backup && !recovery_test(r))
		return;
	for (unsigned wi = 0; wi < r->nworkers; wi++) {
		const struct worker *w = &r->workers[wi];

		for (unsigned i = 0; i < w->ndb; i++) {
			const struct wl_db *d = &w->dbs[i];
			struct scope_summary *s = &dbs[d->pdb - r->plan.dbs];
			double all =
				backup ? (double)d->n * p->page_size : (double)p->recovery_segments;
			double done = backup ? (double)d->scan.bytes : (double)d->replay.seg;

			s->pass_judged = true;
			if (backup ? d->scan.done : d->replay.seg >= p->recovery_segments)
				s->pass_done_pct = 100;
			else
				s->pass_done_pct = all > 0 && done < all ? 100 * done / all : 0;
		}
	}
}

/*
 * The one judgement of a run's measured totals, for the final verdict and
 * the running one alike: the totals up to measured (run_totals_build), the
 * 15 s window statistics so far, eval_judge. live: the run is still going,
 * so a backup or recovery pass not finished yet is not judged (it is not
 * failing: it fails only when the run ends before it does).
 */
int run_judge(struct run *r, uint64_t measured, bool live, struct run_totals *t,
	      struct verdict **verdicts, size_t *nverd)
{
	size_t nv = r->plan.nr_vols, nd = r->plan.nr_dbs;
	struct eval_window_stats *ws = NULL;
	int ret;

	*verdicts = NULL;
	*nverd = 0;
	ret = run_totals_build(r, measured, t);
	if (ret)
		return ret;
	for (size_t d = 0; live && d < nd; d++)
		t->sums[1 + nv + d].pass_judged = false;

	struct eval_input in = {
		.run = &t->sums[0],
		.volumes = &t->sums[1],
		.nr_volumes = nv,
		.databases = &t->sums[1 + nv],
		.nr_databases = nd,
		.target_iops = r->prof->target_iops,
		.autotune = r->tune.settle_known ? &r->tune.settle : NULL,
	};

	if (r->coord.wacc_db) {
		ws = calloc((1 + nv + nd) * IO_CLASS_COUNT, sizeof(*ws));
		if (ws) {
			totals_window_stats(ws, r->coord.wacc_run, IO_CLASS_COUNT);
			totals_window_stats(ws + IO_CLASS_COUNT, r->coord.wacc_vol,
					    nv * IO_CLASS_COUNT);
			totals_window_stats(ws + (1 + nv) * IO_CLASS_COUNT, r->coord.wacc_db,
					    nd * IO_CLASS_COUNT);
			in.run_windows = ws;
			in.volume_windows = ws + IO_CLASS_COUNT;
			in.database_windows = ws + (1 + nv) * IO_CLASS_COUNT;
		}
	}
	ret = eval_judge(&in, &r->prof->thresholds, verdicts, nverd);
	free(ws);
	if (ret)
		run_totals_release(t);
	return ret;
}

/* Measured time (warm-up excluded) up to the stop, or up to instant t. */
uint64_t run_measured_ns(const struct run *r, uint64_t t)
{
	uint64_t mstart = r->grid.t0 + r->grid.warmup;
	uint64_t m = t > mstart ? t - mstart : 0;

	return m > r->grid.duration ? r->grid.duration : m;
}

void totals_window_stats(struct eval_window_stats *out, const struct win_acc *a, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		double mean = a[i].n ? a[i].sum / a[i].n : 0, var;

		out[i] = (struct eval_window_stats){a[i].n, a[i].max, mean, 0};
		if (a[i].n >= 2 && mean > 0) {
			var = (a[i].sumsq - a[i].n * mean * mean) / (a[i].n - 1);
			out[i].cv = var > 0 ? sqrt(var) / mean : 0;
		}
	}
}

/* The figures of a backup or recovery test, per database and in all, as
 * events of the run (kind "backup" or "recovery"). */
void totals_pass_figures_record(struct run *r)
{
	char msg[300];
	uint64_t bytes = 0, t0 = UINT64_MAX, t1 = 0, segs = 0, ns = 0, slow = 0, pages = 0;
	const char *slow_db = NULL;
	bool backup = backup_test(r);

	if (!backup && !recovery_test(r))
		return;
	for (unsigned wi = 0; wi < r->nworkers; wi++) {
		struct worker *w = &r->workers[wi];

		for (unsigned i = 0; i < w->ndb; i++) {
			struct wl_db *d = &w->dbs[i];

			if (backup) {
				double secs = d->scan.t1 > d->scan.t0
						      ? (double)(d->scan.t1 - d->scan.t0) / 1e9
						      : 0;

				snprintf(msg, sizeof(msg),
					 "%s: %s%.1f MB read in %.2f s: %.1f MB/s", d->pdb->name,
					 d->scan.done ? "" : "(not finished) ",
					 (double)d->scan.bytes / 1e6, secs,
					 secs > 0 ? (double)d->scan.bytes / 1e6 / secs : 0);
				run_event(r, "backup", msg);
				bytes += d->scan.bytes;
				if (d->scan.t0 && d->scan.t0 < t0)
					t0 = d->scan.t0;
				if (d->scan.t1 > t1)
					t1 = d->scan.t1;
				continue;
			}
			uint64_t dns = 0, dpages = 0;
			unsigned n = d->replay.seg;

			for (unsigned k = 0; k < n; k++) {
				dns += d->replay.ns[k];
				dpages += d->replay.count[k];
			}
			snprintf(msg, sizeof(msg),
				 "%s: %s%u of %llu log segments replayed (%llu pages read and "
				 "written) in %.2f s: %.3f s per segment",
				 d->pdb->name,
				 n < r->prof->recovery_segments ? "(not finished) " : "", n,
				 (unsigned long long)r->prof->recovery_segments,
				 (unsigned long long)dpages, (double)dns / 1e9,
				 n ? (double)dns / 1e9 / n : 0);
			run_event(r, "recovery", msg);
			segs += n;
			ns += dns;
			pages += dpages;
			if (n && dns / n >= slow) {
				slow = dns / n;
				slow_db = d->pdb->name;
			}
		}
	}
	if (backup) {
		double secs = t1 > t0 ? (double)(t1 - t0) / 1e9 : 0;

		snprintf(msg, sizeof(msg), "backup: %.1f MB read in %.2f s: %.1f MB/s in all",
			 (double)bytes / 1e6, secs, secs > 0 ? (double)bytes / 1e6 / secs : 0);
	} else {
		snprintf(msg, sizeof(msg),
			 "recovery: %llu log segments replayed (%llu pages): %.3f s per segment on "
			 "average, slowest %s at %.3f s",
			 (unsigned long long)segs, (unsigned long long)pages,
			 segs ? (double)ns / 1e9 / (double)segs : 0, slow_db ? slow_db : "-",
			 (double)slow / 1e9);
	}
	run_event(r, backup ? "backup" : "recovery", msg);
}
