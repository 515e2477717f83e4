/*
 * workers.c - the worker layout, the one rule for how many workers a run
 * starts and what each drives, used by the run (setup), `plan` and `check`
 * alike so that the three never disagree.
 *
 * The rule: one worker per online CPU unless [engine] workers says, one in
 * all for an engine that keeps its own (virtual) clock; the jetstress model,
 * backup and recovery: at most one worker per database, databases round robin
 * over the workers, each database's streams with it; the fixed model: at most
 * one worker per stream, every worker drives its own contiguous share of every
 * database's pages with its share of that database's streams (a share with no
 * pages or no streams is left out). Streams spread over databases evenly,
 * the first databases taking one more when they do not divide.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diskproof/engine.h"
#include "diskproof/plan.h"

unsigned plan_online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (unsigned)n : 1;
}

bool plan_engine_virtual(const struct profile *p)
{
	const struct engine_ops *ops = engine_find(p->engine);

	return ops && (ops->flags & ENGINE_F_OWN_CLOCK);
}

unsigned plan_streams(const struct profile *p, const struct plan *pl)
{
	if (p->type == PROFILE_TEST_BACKUP)
		return 0;
	if (p->streams && p->streams != PROFILE_STREAMS_AUTO)
		return p->streams;
	return 2 * (unsigned)pl->nr_dbs;
}

unsigned plan_worker_count(const struct profile *p, const struct plan *pl, unsigned streams,
			   unsigned cpus)
{
	unsigned ndb = (unsigned)pl->nr_dbs;
	unsigned nw = plan_engine_virtual(p) ? 1 : p->workers ? p->workers : cpus ? cpus : 1;

	if (p->model == PROFILE_MODEL_FIXED && p->type != PROFILE_TEST_BACKUP) {
		if (nw > streams)
			nw = streams;
	} else if (nw > ndb) {
		nw = ndb;
	}
	return nw ? nw : 1;
}

void plan_workers_release(struct plan_workers *lw)
{
	free(lw->first);
	free(lw->wdb);
	memset(lw, 0, sizeof(*lw));
}

int plan_workers_layout(const struct profile *p, const struct plan *pl, unsigned streams,
			unsigned cpus, struct plan_workers *lw)
{
	unsigned ndb = (unsigned)pl->nr_dbs, nw = plan_worker_count(p, pl, streams, cpus);
	bool fixed = p->model == PROFILE_MODEL_FIXED && p->type != PROFILE_TEST_BACKUP;
	unsigned *spd = NULL;
	size_t n = 0, cap = fixed ? (size_t)nw * ndb : ndb;

	memset(lw, 0, sizeof(*lw));
	spd = calloc(ndb ? ndb : 1, sizeof(*spd));
	lw->first = calloc((size_t)nw + 1, sizeof(*lw->first));
	lw->wdb = calloc(cap ? cap : 1, sizeof(*lw->wdb));
	if (!spd || !lw->first || !lw->wdb) {
		free(spd);
		plan_workers_release(lw);
		return -ENOMEM;
	}
	lw->nworkers = nw;
	lw->streams = streams;
	for (unsigned i = 0; i < ndb; i++)
		spd[i] = streams / ndb + (i < streams % ndb ? 1 : 0);
	for (unsigned wi = 0; wi < nw; wi++) {
		lw->first[wi] = (unsigned)n;
		if (fixed) {
			for (unsigned i = 0; i < ndb; i++) {
				uint64_t np = pl->dbs[i].nr_pages, lo = np * wi / nw;
				uint64_t cnt = np * (wi + 1) / nw - lo;
				unsigned s = spd[i] / nw + (wi < spd[i] % nw ? 1 : 0);

				if (cnt && s)
					lw->wdb[n++] = (struct plan_wdb){i, lo, cnt, s};
			}
		} else {
			for (unsigned i = wi; i < ndb; i += nw)
				lw->wdb[n++] = (struct plan_wdb){i, 0, pl->dbs[i].nr_pages, spd[i]};
		}
	}
	lw->first[nw] = (unsigned)n;
	free(spd);
	return 0;
}
