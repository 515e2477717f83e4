/* SPDX-License-Identifier: MIT */
/*
 * samples.c - what the coordinator keeps for two criteria of eval beyond the
 * totals: the highest per-sample average latency of every database, volume
 * and the run (max_basis = sample), and the database page fault stalls.
 *
 * A sample is [thresholds] sample_interval of measured time: that many of
 * the 1 s intervals the coordinator merges, summed (I/Os and latency sums),
 * its average taken when the sample is complete, or at the run's last
 * interval for a shorter tail (so that a run shorter than one sample still
 * has one). Jetstress judges its maxima on its 15 s counter samples in the
 * same way: an average over the sample, not one I/O. The warm-up and
 * auto-tune's levels are never sampled. Stored database rows come every
 * RUN_DB_SAMPLE_EVERY intervals whatever the sample is, so the figures are
 * taken here from every interval's merge, not from the stored rows.
 *
 * Stalls arrive per database and interval in the workers' snapshots
 * (wl_db.txn.stalls, counted by the transaction streams in workload/txn.c);
 * a volume's and the run's are the sums of their databases'.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "run_internal.h"

int run_samples_init(struct run *r)
{
	struct run_samples *s = &r->smp;
	uint64_t every = r->prof->thresholds.sample_interval_ns / RUN_INTERVAL_NS;

	s->every = every ? (unsigned)every : 1;
	s->nscopes = 1 + r->plan.nr_vols + r->plan.nr_dbs;
	s->acc = calloc(s->nscopes * IO_CLASS_COUNT, sizeof(*s->acc));
	s->stalls = calloc(s->nscopes, sizeof(*s->stalls));
	if (!s->acc || !s->stalls) {
		run_samples_release(r);
		return -ENOMEM;
	}
	run_samples_reset(r);
	return 0;
}

void run_samples_release(struct run *r)
{
	free(r->smp.acc);
	free(r->smp.stalls);
	memset(&r->smp, 0, sizeof(r->smp));
}

/* Nothing sampled yet: at the start and after auto-tune. */
void run_samples_reset(struct run *r)
{
	struct run_samples *s = &r->smp;

	for (size_t i = 0; s->acc && i < s->nscopes * IO_CLASS_COUNT; i++)
		s->acc[i] = (struct smp_acc){0, 0, NAN};
	if (s->stalls)
		memset(s->stalls, 0, s->nscopes * sizeof(*s->stalls));
	s->len = 0;
}

static void acc_add(struct smp_acc *a, uint64_t n, uint64_t sum_ns)
{
	a->n += n;
	a->sum_ns += sum_ns;
}

/* One database's measured interval of class c, into it, its volume and the run. */
void run_samples_db(struct run *r, unsigned gdb, unsigned c, const struct class_stats32 *cs)
{
	struct run_samples *s = &r->smp;
	size_t nv = r->plan.nr_vols, v = r->plan.dbs[gdb].volume;
	uint64_t n = cs->count, sum = cs->sum_ns;

	if (!s->acc)
		return;
	if (cs->spill) {
		/* counts moved to the 64-bit histogram (stats.h) */
		n += cs->spill->count;
		sum += cs->spill->sum_ns;
	}
	if (!n)
		return;
	acc_add(&s->acc[(1 + nv + gdb) * IO_CLASS_COUNT + c], n, sum);
	acc_add(&s->acc[(1 + v) * IO_CLASS_COUNT + c], n, sum);
	acc_add(&s->acc[c], n, sum);
}

void run_samples_stalls(struct run *r, unsigned gdb, uint64_t n)
{
	struct run_samples *s = &r->smp;

	if (!s->stalls || !n)
		return;
	s->stalls[1 + r->plan.nr_vols + gdb] += n;
	s->stalls[1 + r->plan.dbs[gdb].volume] += n;
	s->stalls[0] += n;
}

/* A measured interval is merged: the sample ends after `every` of them, or
 * early at the run's last. */
void run_samples_interval(struct run *r, bool last)
{
	struct run_samples *s = &r->smp;

	if (!s->acc)
		return;
	if (++s->len < s->every && !last)
		return;
	for (size_t i = 0; i < s->nscopes * IO_CLASS_COUNT; i++) {
		struct smp_acc *a = &s->acc[i];
		double avg;

		if (!a->n)
			continue;
		avg = (double)a->sum_ns / (double)a->n / (double)NSEC_PER_MSEC;
		if (isnan(a->max_ms) || avg > a->max_ms)
			a->max_ms = avg;
		a->n = a->sum_ns = 0;
	}
	s->len = 0;
}

/* Stalls are counted by the jetstress model's transaction streams only. */
static bool stalls_counted(const struct run *r)
{
	return !fixed_model(r) && !backup_test(r) && !recovery_test(r);
}

/*
 * The sample maxima and stalls into the totals' summaries (run_totals.sums
 * order). A sample still open (a checkpoint mid-sample) counts with what it
 * has, so that a killed run keeps a figure for it.
 */
void run_samples_fill(const struct run *r, struct scope_summary *sums, uint64_t measured)
{
	const struct run_samples *s = &r->smp;
	double secs = (double)measured / (double)NSEC_PER_SEC;

	if (!s->acc)
		return;
	for (size_t i = 0; i < s->nscopes; i++) {
		for (unsigned c = 0; c < IO_CLASS_COUNT; c++) {
			const struct smp_acc *a = &s->acc[i * IO_CLASS_COUNT + c];
			double m = a->max_ms;

			if (a->n) {
				double open =
					(double)a->sum_ns / (double)a->n / (double)NSEC_PER_MSEC;

				if (isnan(m) || open > m)
					m = open;
			}
			sums[i].classes[c].max_sample_avg_ms = sums[i].classes[c].ios ? m : NAN;
		}
		sums[i].stalls_recorded = stalls_counted(r);
		sums[i].page_fault_stalls = s->stalls[i];
		sums[i].page_fault_stalls_per_s = secs > 0 ? (double)s->stalls[i] / secs : 0;
	}
}
