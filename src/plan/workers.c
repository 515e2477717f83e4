/* SPDX-License-Identifier: MIT */
/*
 * workers.c - the worker layout, the one rule for how many workers a run
 * starts and what each drives, used by the run (setup), `plan` and `check`
 * alike so that the three never disagree.
 *
 * The rule: one worker per online CPU unless [engine] workers says, one in
 * all for an engine that keeps its own (virtual) clock; the jetstress model,
 * backup and recovery: at most one worker per database, databases round robin
 * over the workers; the fixed model: at most one worker per stream, every
 * worker drives its own contiguous share of every database's pages (a share
 * with no pages is left out).
 *
 * Streams are a pool, not bound to databases: within a worker each unit of
 * work goes to its database with the least stream time (workload/txn.c), so
 * a worker's databases share its streams evenly. Across workers, a worker
 * with d of the D databases carries S x d / D of the S streams: the whole
 * part as full-time streams, the fraction as one part-time stream that works
 * only that fraction of the time, so that every database has S / D streams
 * on average and the workers never talk to each other per I/O. The fixed
 * model's workers each drive every database: S / W streams each, the first
 * taking one more when they do not divide.
 *
 * Where the workers may run: the NUMA map of the plan's volumes
 * (plan_numa_map), which env/numa.c's placement reads.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diskproof/engine.h"
#include "diskproof/env.h"
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
	return profile_streams_default((unsigned)pl->nr_dbs);
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
	free(lw->nstreams);
	free(lw->duty);
	free(lw->share);
	free(lw->wdb);
	memset(lw, 0, sizeof(*lw));
}

int plan_workers_layout(const struct profile *p, const struct plan *pl, unsigned streams,
			unsigned cpus, struct plan_workers *lw)
{
	unsigned ndb = (unsigned)pl->nr_dbs, nw = plan_worker_count(p, pl, streams, cpus);
	bool fixed = p->model == PROFILE_MODEL_FIXED && p->type != PROFILE_TEST_BACKUP;
	size_t n = 0, cap = fixed ? (size_t)nw * ndb : ndb;

	memset(lw, 0, sizeof(*lw));
	lw->first = calloc((size_t)nw + 1, sizeof(*lw->first));
	lw->nstreams = calloc(nw, sizeof(*lw->nstreams));
	lw->duty = calloc(nw, sizeof(*lw->duty));
	lw->share = calloc(nw, sizeof(*lw->share));
	lw->wdb = calloc(cap ? cap : 1, sizeof(*lw->wdb));
	if (!lw->first || !lw->nstreams || !lw->duty || !lw->share || !lw->wdb) {
		plan_workers_release(lw);
		return -ENOMEM;
	}
	lw->nworkers = nw;
	lw->streams = streams;
	for (unsigned wi = 0; wi < nw; wi++) {
		unsigned d = 0;
		uint64_t sd;

		lw->first[wi] = (unsigned)n;
		if (fixed) {
			for (unsigned i = 0; i < ndb; i++) {
				uint64_t np = pl->dbs[i].nr_pages, lo = np * wi / nw;
				uint64_t cnt = np * (wi + 1) / nw - lo;

				if (cnt)
					lw->wdb[n++] = (struct plan_wdb){i, lo, cnt};
			}
			lw->nstreams[wi] = streams / nw + (wi < streams % nw ? 1 : 0);
			lw->duty[wi] = 1;
			lw->share[wi] = lw->nstreams[wi];
			continue;
		}
		for (unsigned i = wi; i < ndb; i += nw, d++)
			lw->wdb[n++] = (struct plan_wdb){i, 0, pl->dbs[i].nr_pages};
		/* S x d / D: whole streams, and the remainder's part-time one;
		 * the remainders over all workers add up to whole streams */
		sd = (uint64_t)streams * d;
		lw->nstreams[wi] = ndb ? (unsigned)(sd / ndb) : 0;
		lw->duty[wi] = 1;
		if (ndb && sd % ndb) {
			lw->nstreams[wi]++;
			lw->duty[wi] = (double)(sd % ndb) / ndb;
		}
		lw->share[wi] = ndb ? (double)sd / ndb : 0;
	}
	lw->first[nw] = (unsigned)n;
	return 0;
}

int plan_numa_map(struct env_numa_map *m, const struct plan *pl)
{
	struct env_numa_volume *vols = calloc(pl->nr_vols ? pl->nr_vols : 1, sizeof(*vols));
	char(*names)[2][ENV_NAME_MAX] = calloc(pl->nr_vols ? pl->nr_vols : 1, sizeof(*names));
	int ret = -ENOMEM;

	if (!vols || !names)
		goto out;
	for (size_t v = 0; v < pl->nr_vols; v++) {
		vols[v].name = pl->vols[v].name;
		if (env_path_device("/sys", pl->vols[v].path, names[v][0], ENV_NAME_MAX) == 0)
			vols[v].device = names[v][0];
		if (env_path_device("/sys", pl->vols[v].log_path, names[v][1], ENV_NAME_MAX) == 0)
			vols[v].log_device = names[v][1];
	}
	ret = env_numa_map_build(m, "/sys", vols, pl->nr_vols);
out:
	free(vols);
	free(names);
	return ret;
}
