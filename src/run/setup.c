/* SPDX-License-Identifier: MIT */
/*
 * setup.c - setting up and releasing workers: which worker drives which
 * databases, page ranges and streams, their slots and buffers, their files
 * and engine contexts, and the expected generations loaded from the
 * journals.
 */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "diskproof/fileopen.h"
#include "diskproof/journal.h"

#include "run_internal.h"

void run_worker_release(struct worker *w)
{
	if (engine_drv_inflight(&w->drv) && !w->run->virt) {
		/* I/O the device never completed may still land in these buffers:
		 * leave ring, files and buffers to the process exit */
		return;
	}
	engine_drv_release(&w->drv);
	if (w->fds)
		for (unsigned i = 0; i < 2 * w->ndb; i++)
			if (w->fds[i] >= 0)
				close(w->fds[i]);
	wl_ctx_release(&w->wl);
	if (w->bufmap)
		munmap(w->bufmap, w->bufmap_len);
	free(w->spare);
	free(w->spare_index);
	free(w->pv);
	for (unsigned i = 0; i < w->ndb && w->dbs; i++) {
		struct wl_db *d = &w->dbs[i];

		free(d->expect);
		free(d->busy);
	}
	for (unsigned i = 0; i < RUN_SLOTS; i++) {
		for (unsigned j = 0; w->snaps[i].cs && j < w->ndb * IO_CLASS_COUNT; j++)
			stats_class32_release(&w->snaps[i].cs[j]);
		free(w->snaps[i].cs);
		stats_arena_release(&w->snaps[i].arena);
		free(w->snaps[i].integrity);
		free(w->snaps[i].stream_ns);
		free(w->snaps[i].stalls);
		free(w->snaps[i].txn);
		for (unsigned j = 0; w->snaps[i].resp && j < w->ndb; j++)
			stats_class32_release(&w->snaps[i].resp[j]);
		free(w->snaps[i].resp);
		stats_arena_release(&w->snaps[i].resp_arena);
		free(w->snaps[i].msgs);
	}
	free(w->jcopy);
	free(w->stream_prev);
	free(w->dbs);
	free(w->slots);
	free(w->wl.idle);
	free(w->fds);
	free(w->files);
	free(w->sim_devs);
	free(w->iov);
}

static int worker_open_files(struct worker *w, struct strbuf *err)
{
	const struct profile *p = w->run->prof;
	int flags = O_RDWR | O_NOFOLLOW | (p->direct ? O_DIRECT : 0);

	for (unsigned i = 0; i < w->ndb; i++) {
		const char *paths[2] = {w->dbs[i].pdb->path, w->dbs[i].pdb->log_file};

		for (unsigned j = 0; j < 2; j++) {
			int fd = file_open_checked(paths[j], flags, 0,
						   FILE_OPEN_REGULAR | FILE_OPEN_BLOCK, NULL, err);

			w->fds[j ? wl_file_log(i) : wl_file_db(i)] = fd >= 0 ? fd : -1;
			if (fd < 0 && fd != -EMEDIUMTYPE)
				strbuf_addf(err, "%s: cannot open: %s", paths[j], strerror(-fd));
			if (fd < 0)
				return fd;
		}
	}
	return 0;
}

/* Notes the pages of a journal whose last write failed, once per
 * database: the run keeps their marks until it writes them anew. */
static void note_failed(struct run *r, const struct plan_db *pdb, const uint32_t *gens, uint64_t n)
{
	uint64_t count = 0, run = 0;
	bool others = false;

	for (uint64_t i = 0; i < n; i++) {
		if (!journal_gen_failed(gens[i]))
			continue;
		if (count++ == 0)
			run = journal_failed_run(gens[i]);
		else if (journal_failed_run(gens[i]) != run)
			others = true;
	}
	if (count)
		strbuf_addf(&r->jnl.notes,
			    "%s: %llu page(s) whose last write failed (run %llu%s): what they "
			    "hold is undefined, so it is accepted as it is until each is written "
			    "anew\n",
			    pdb->name, (unsigned long long)count, (unsigned long long)run,
			    others ? " and others" : "");
}

/*
 * The expected generations of the pages [lo, lo + n) of a database:
 * generation 1 from fresh on (written by init just now), the journal's below
 * (exact when it was written clean, else lower bounds; a failed-write mark
 * as it is), 0 (unknown) where there is none.
 */
static void worker_load_journal(struct run *r, struct wl_db *d, uint64_t fresh)
{
	const struct plan_db *pdb = d->pdb;
	struct journal_info ji;
	struct strbuf err = STRBUF_INIT;
	uint32_t *gens = NULL;
	bool use = false, noted = r->jnl.noted[d->global];
	int ret;

	if (r->plan.files && fresh > d->lo) {
		ret = journal_read(&pdb->jloc, &ji, &gens, &err);
		use = !ret && journal_info_matches(&ji, pdb->id, r->prof->page_size, pdb->nr_pages);
		/* a database shared by several workers is noted once */
		r->jnl.noted[d->global] = true;
		if (noted)
			;
		else if (!ret && !use)
			strbuf_addf(&r->jnl.notes,
				    "%s: journal %s does not match the file (database %u, %llu "
				    "pages of %u bytes); generations are learnt on first read\n",
				    pdb->name, pdb->journal, ji.db_id,
				    (unsigned long long)ji.nr_pages, ji.page_size);
		else if (ret && ret != -ENOENT)
			strbuf_addf(&r->jnl.notes, "%s; generations are learnt on first read\n",
				    err.buf);
		else if (use && !(ji.flags & JOURNAL_CLEAN))
			strbuf_addf(&r->jnl.notes,
				    "%s: journal %s is from a run that did not end cleanly "
				    "(run %llu): its generations are lower bounds; pages found "
				    "newer are accepted and learnt\n",
				    pdb->name, pdb->journal, (unsigned long long)ji.run_id);
		if (!noted && use)
			note_failed(r, pdb, gens, ji.nr_pages);
	}
	if (!use) /* the maps are not what the journal on disk holds */
		r->jnl.rewrite[d->global] = true;
	for (uint64_t i = 0; i < d->n; i++) {
		uint64_t pg = d->lo + i;

		if (pg >= fresh)
			d->expect[i] = 1;
		else if (use && journal_gen_failed(gens[pg]))
			d->expect[i] = gens[pg];
		else if (use && (gens[pg] & ~JOURNAL_GEN_LOWER))
			d->expect[i] =
				gens[pg] | ((ji.flags & JOURNAL_CLEAN) ? 0 : WL_EXPECT_LOWER);
		else
			d->expect[i] = 0;
	}
	free(gens);
	strbuf_release(&err);
}

/*
 * The simulated device of volume v's logs: its data device (index v) when
 * its log_path is unset or its path, else one device per distinct log_path
 * after the nr_vols data devices, numbered in the order the paths first
 * appear. Volumes whose logs share a path share the device, so that their
 * log writes queue behind each other as on one log disk.
 */
static bool log_apart(const struct plan_volume *pv)
{
	return pv->log_path && strcmp(pv->log_path, pv->path);
}

static uint32_t log_device(const struct run *r, unsigned v)
{
	const struct plan_volume *pv = r->plan.vols;
	uint32_t n = (uint32_t)r->plan.nr_vols;
	unsigned f = v, u, t;

	if (!log_apart(&pv[v]))
		return v;
	for (u = 0; u < v; u++)
		if (log_apart(&pv[u]) && !strcmp(pv[u].log_path, pv[v].log_path)) {
			f = u; /* the first volume on this log path */
			break;
		}
	for (u = 0; u < f; u++) {
		if (!log_apart(&pv[u]))
			continue;
		for (t = 0; t < u; t++)
			if (log_apart(&pv[t]) && !strcmp(pv[t].log_path, pv[u].log_path))
				break;
		n += t == u; /* u's path is new: a device before f's */
	}
	return n;
}

/* The sim engine's model of a device from the profile's (field for field) */
static struct engine_sim_model sim_model(const struct profile_sim *s)
{
	_Static_assert(sizeof(struct engine_sim_model) == sizeof(struct profile_sim),
		       "struct engine_sim_model and struct profile_sim have the same fields");
	return (struct engine_sim_model){.read_latency_ns = s->read_latency_ns,
					 .write_latency_ns = s->write_latency_ns,
					 .log_write_latency_ns = s->log_write_latency_ns,
					 .jitter_pct = s->jitter_pct,
					 .saturation_iops = s->saturation_iops,
					 .drift_ns = s->drift_ns,
					 .drift_time_ns = s->drift_time_ns,
					 .error_rate_pct = s->error_rate_pct,
					 .drop_write_rate_pct = s->drop_write_rate_pct,
					 .hang_rate_pct = s->hang_rate_pct,
					 .spike_every = s->spike_every,
					 .spike_latency_ns = s->spike_latency_ns,
					 .transfer_rate = s->transfer_rate,
					 .stall_period_ns = s->stall_period_ns,
					 .stall_length_ns = s->stall_length_ns,
					 .stall_latency_ns = s->stall_latency_ns,
					 .run_spread_pct = s->run_spread_pct,
					 .lie_window_ns = s->lie_window_ns,
					 .cut_at_ns = s->cut_at_ns,
					 .write_cache = s->write_cache,
					 .seed = s->seed};
}

/*
 * Worker w's simulated devices and their models (profile.h, struct
 * profile_volume): volume v's data device is v, with the volume's model;
 * a log device takes the log model of the first volume on it (the profile
 * made every sharing volume's the same). The plan's paths are the ones the
 * run uses (after --data-dir).
 */
static int sim_devices(struct run *r, struct worker *w)
{
	const struct profile *p = r->prof;
	unsigned nv = (unsigned)r->plan.nr_vols, n = nv;

	for (unsigned v = 0; v < nv; v++)
		if (log_device(r, v) >= n)
			n = log_device(r, v) + 1;
	w->sim_devs = calloc(n + 1, sizeof(*w->sim_devs));
	if (!w->sim_devs)
		return -ENOMEM;
	for (unsigned v = nv; v-- > 0;) {
		/* backwards, so that the first volume of a log device sets it */
		const struct profile_volume *pv = v < p->nr_volumes ? &p->volumes[v] : NULL;

		w->sim_devs[v] = sim_model(pv ? &pv->sim : &p->sim);
		if (log_device(r, v) != v)
			w->sim_devs[log_device(r, v)] = sim_model(pv ? &pv->sim_log : &p->sim);
	}
	w->sim_devs[n] = sim_model(&p->sim);
	w->ctx.nr_devices = n;
	w->ctx.dev_sims = w->sim_devs;
	w->ctx.sim = &w->sim_devs[n];
	return 0;
}

/* One database of a worker: its pages and their expected generations (the
 * generators' state is wl_ctx_init's). */
static int wdb_setup(struct run *r, struct wl_db *d, unsigned global, uint64_t lo, uint64_t n)
{
	const struct plan_db *pdb = &r->plan.dbs[global];

	d->pdb = pdb;
	d->global = global;
	d->lo = lo;
	d->n = n;
	d->log_align = r->plan.vols[pdb->volume].log_align;
	d->expect = malloc(n * sizeof(*d->expect));
	d->busy = calloc(n, 1);
	if (!d->expect || !d->busy)
		return -ENOMEM;
	/* pages written by init in this very invocation hold generation 1;
	 * older ones come from the journal, else are learnt on first read */
	worker_load_journal(r, d, r->fresh_from ? r->fresh_from[global] : 0);
	return 0;
}

/* Sets up worker w: databases dbs[] (global indices) with their page ranges,
 * and nstreams streams shared by them, the last working last_duty of the
 * time. */
static const char worker_nomem[] = "out of memory setting up a worker";

/* The worker's arrays: databases, slots, files, the spares' and every
 * buffer's iovecs, the interval snapshots. 0 or -ENOMEM (run_worker_release
 * frees what was made). */
static int worker_alloc(struct run *r, struct worker *w, unsigned ndb, unsigned nstreams)
{
	const struct profile *p = r->prof;

	/* per database: log, replication and maintenance, and the flusher */
	w->nslots = wl_slot_count(p, ndb, nstreams);
	w->dbs = calloc(ndb, sizeof(*w->dbs));
	w->slots = calloc(w->nslots, sizeof(*w->slots));
	w->wl.idle = calloc(w->nslots, sizeof(*w->wl.idle));
	w->fds = malloc(2 * ndb * sizeof(*w->fds));
	for (unsigned i = 0; w->fds && i < 2 * ndb; i++)
		w->fds[i] = -1;
	w->files = calloc(2 * ndb, sizeof(*w->files));
	/* verify after re-issue (worker_defer_verify): a spare page buffer per
	 * stream; not for sim (no page content) nor recovery (a page read is
	 * written back from its buffer) */
	if (p->verify && !(r->ops->flags & ENGINE_F_NO_FILES) && !recovery_test(r) &&
	    !backup_test(r) && nstreams) {
		w->spare = calloc(nstreams, sizeof(*w->spare));
		w->spare_index = calloc(nstreams, sizeof(*w->spare_index));
		w->pv = calloc(nstreams, sizeof(*w->pv));
		if (!w->spare || !w->spare_index || !w->pv)
			return -ENOMEM;
	}
	w->iov = calloc(w->nslots + (w->spare ? nstreams : 0), sizeof(*w->iov));
	if (!w->dbs || !w->slots || !w->wl.idle || !w->fds || !w->files || !w->iov)
		return -ENOMEM;
	for (unsigned i = 0; i < RUN_SLOTS; i++) {
		w->snaps[i].cs = calloc(ndb * IO_CLASS_COUNT, sizeof(*w->snaps[i].cs));
		w->snaps[i].integrity = calloc(ndb, sizeof(uint64_t));
		w->snaps[i].stream_ns = calloc(ndb, sizeof(uint64_t));
		w->snaps[i].stalls = calloc(ndb, sizeof(uint64_t));
		w->snaps[i].txn = calloc(ndb, sizeof(*w->snaps[i].txn));
		if (!w->snaps[i].cs || !w->snaps[i].integrity || !w->snaps[i].stream_ns ||
		    !w->snaps[i].stalls || !w->snaps[i].txn ||
		    stats_arena_init(&w->snaps[i].arena, (size_t)ndb * IO_CLASS_COUNT))
			return -ENOMEM;
		if (open_loop(r)) {
			w->snaps[i].resp = calloc(ndb, sizeof(*w->snaps[i].resp));
			if (!w->snaps[i].resp || stats_arena_init(&w->snaps[i].resp_arena, ndb))
				return -ENOMEM;
		}
		w->snaps[i].kept = &r->ctl.msgs_kept;
		worker_snap_reset(&w->snaps[i], ndb);
	}
	return 0;
}

static size_t page_up(size_t n)
{
	return (n + 4095) & ~(size_t)4095;
}

/*
 * Each slot's page buffer, then each spare's (a stream's size), 4 KiB
 * aligned, with their iovecs: 0 or -ENOMEM. They are carved from one
 * anonymous mapping, zeroed and made resident by the kernel at once
 * (MAP_POPULATE), so that no buffer faults while the run measures: a
 * thousand databases' buffers are hundreds of MiB, which page by page
 * (malloc, then memset) took most of the start-up's CPU.
 */
static int worker_buffers(struct worker *w, const struct profile *p, unsigned nstreams)
{
	size_t len = 0, off = 0, spare_len = page_up(wl_stream_buf_len(p));
	char *base;

	for (unsigned i = 0; i < w->nslots; i++)
		len += page_up(w->slots[i].buf_len);
	if (w->spare)
		len += (size_t)nstreams * spare_len;
	/* resident at once: MAP_POPULATE (2 MiB pages were measured slower:
	 * docs/performance.md) */
	base = mmap(NULL, len ? len : 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (base == MAP_FAILED)
		return -ENOMEM;
	w->bufmap = base;
	w->bufmap_len = len ? len : 4096;
	for (unsigned i = 0; i < w->nslots; i++) {
		struct wl_slot *s = &w->slots[i];

		s->buf = base + off;
		off += page_up(s->buf_len);
		s->req.owner = s;
		s->req.buf_index = (int32_t)i;
		s->req.buf = s->buf;
		w->iov[i].iov_base = s->buf;
		w->iov[i].iov_len = s->buf_len;
	}
	for (unsigned i = 0; w->spare && i < nstreams; i++) {
		/* it takes a stream's place: a stream's size */
		w->spare[w->nspare] = base + off;
		off += spare_len;
		w->spare_index[w->nspare++] = (int32_t)(w->nslots + i);
		w->iov[w->nslots + i].iov_base = w->spare[w->nspare - 1];
		w->iov[w->nslots + i].iov_len = wl_stream_buf_len(p);
	}
	return 0;
}

/* The engine context over the worker's files and buffers (the sim
 * engine's devices too) and its driver: 0 or -errno, err says why. The
 * ring is opened by setup_workers once every worker is set up. */
static int worker_engine(struct run *r, struct worker *w, struct strbuf *err)
{
	int ret;

	w->ops = r->ops;
	w->ctx.depth = w->nslots;
	w->ctx.fds = (r->ops->flags & ENGINE_F_NO_FILES) ? NULL : w->fds;
	w->ctx.files = w->files;
	w->ctx.nr_files = 2 * w->ndb;
	w->ctx.nr_devices = (unsigned)r->plan.nr_vols;
	if (r->ops == &engine_sim && sim_devices(r, w)) {
		strbuf_addstr(err, worker_nomem);
		return -ENOMEM;
	}
	w->ctx.bufs = w->iov;
	w->ctx.nr_bufs = w->nslots + w->nspare;
	w->ctx.clock = &r->clock;
	w->ctx.seed = w->index;
	w->ctx.sqpoll = r->prof->sqpoll;
	w->ctx.hipri = r->prof->hipri;
	ret = engine_drv_init(&w->drv, w->ops, &w->ctx, w->nslots, worker_done, w, err);
	w->drv.batch = r->prof->submit_batch;
	return ret;
}

/* nstreams streams to start with, stream slots for bound (open loop grows
 * its streams up to it while arrivals wait; else bound is nstreams). */
static int worker_setup(struct run *r, struct worker *w, const unsigned *dbs, const uint64_t *lo,
			const uint64_t *cnt, unsigned ndb, unsigned nstreams, unsigned bound,
			double last_duty, struct strbuf *err)
{
	const struct profile *p = r->prof;
	int ret;

	w->run = r;
	w->ndb = ndb;
	if (worker_alloc(r, w, ndb, bound))
		goto out_nomem;
	for (unsigned i = 0; i < ndb; i++) {
		struct wl_db *d = &w->dbs[i];
		const struct plan_db *pdb = &r->plan.dbs[dbs[i]];

		if (wdb_setup(r, d, dbs[i], lo[i], cnt[i]))
			goto out_nomem;
		w->files[wl_file_db(i)] =
			(struct engine_file){pdb->size, pdb->volume, p->page_size, pdb->id};
		w->files[wl_file_log(i)] =
			(struct engine_file){pdb->log_size, log_device(r, pdb->volume), 0, pdb->id};
	}
	w->stream_prev = calloc(ndb, sizeof(*w->stream_prev));
	if (!w->stream_prev ||
	    wl_ctx_init(&w->wl, p, w->index, w->dbs, ndb, bound, w->slots, w->nslots, w->wl.idle))
		goto out_nomem;
	w->wl.nstreams = nstreams;
	if (wl_slots_place(&w->wl, last_duty, engine_clock_now(&r->clock)))
		goto out_nomem;
	w->wl.run_id = r->store.run_id; /* 0 until the run is stored: set again then */
	w->wl.full = !(r->ops->flags & ENGINE_F_NO_FILES);
	w->wl.stamped = r->ops->stamp_ready ? worker_stamped : NULL;
	w->wl.stamped_arg = w;
	if (worker_buffers(w, p, bound))
		goto out_nomem;
	if (!(r->ops->flags & ENGINE_F_NO_FILES)) {
		uint64_t pages = 0;

		for (unsigned i = 0; i < ndb; i++)
			pages += w->dbs[i].n;
		w->jcopy = malloc(pages * sizeof(*w->jcopy));
		if (!w->jcopy)
			goto out_nomem;
		ret = worker_open_files(w, err);
		if (ret)
			return ret;
	}
	return worker_engine(r, w, err);
out_nomem:
	strbuf_addstr(err, worker_nomem);
	return -ENOMEM;
}

/* Open loop: worker wi's share of the streams the run may grow by (bound
 * over streams), by its share of the streams; the remainder the first
 * worker's. */
static unsigned worker_extra(const struct plan_workers *lw, unsigned wi, unsigned streams,
			     unsigned bound)
{
	uint64_t extra = bound > streams ? bound - streams : 0, mine, given = 0;

	if (!extra || !streams)
		return 0;
	mine = extra * lw->nstreams[wi] / streams;
	if (wi)
		return (unsigned)mine;
	for (unsigned i = 0; i < lw->nworkers; i++)
		given += extra * lw->nstreams[i] / streams;
	return (unsigned)(mine + (extra > given ? extra - given : 0));
}

/*
 * Workers and what each drives, by the one worker-layout rule that plan and
 * check use too (plan_workers_layout, plan/workers.c), for the streams in use
 * (auto-tune's level while tuning).
 */
int run_setup_workers(struct run *r, struct strbuf *err)
{
	const struct profile *p = r->prof;
	unsigned ndb = (unsigned)r->plan.nr_dbs, nw, streams, bound;
	unsigned *dbs = NULL;
	uint64_t *lo = NULL, *cnt = NULL;
	bool nm_built = false, *drv = NULL;
	struct plan_workers lw = {0};
	struct env_numa_map nm;
	int ret = -ENOMEM;

	/* a virtual clock starts again at 0 for each set of workers (an
	 * auto-tune level, the main test), before the generators take their
	 * start from it: the engine's init sets it back too, but only after
	 * wl_slots_place has read it (stream time, part-time streams and the
	 * maintenance reads' due times count from that start) */
	if (r->virt)
		r->clock.virtual_ns = 0;
	/* warm-up, replay and stream-count rules: profile validation's */
	streams = backup_test(r) ? 0 : r->streams ? r->streams : plan_streams(p, &r->plan);
	bound = r->tune.tuner ? streams : profile_stream_bound(p, streams);
	ret = plan_workers_layout(p, &r->plan, streams, plan_online_cpus(), &lw);
	if (ret)
		goto out;
	nw = lw.nworkers;
	ret = plan_numa_map(&nm, &r->plan);
	if (ret)
		goto out;
	nm_built = true;
	drv = calloc(r->plan.nr_vols, sizeof(*drv));
	r->workers = calloc(nw, sizeof(*r->workers));
	dbs = calloc(ndb, sizeof(*dbs));
	lo = calloc(ndb, sizeof(*lo));
	cnt = calloc(ndb, sizeof(*cnt));
	ret = -ENOMEM;
	if (!r->workers || !dbs || !lo || !cnt || !drv)
		goto out;
	r->nworkers = nw;
	for (unsigned wi = 0; wi < nw; wi++) {
		struct worker *w = &r->workers[wi];
		unsigned n = 0;

		for (unsigned e = lw.first[wi]; e < lw.first[wi + 1]; e++, n++) {
			const struct plan_wdb *x = &lw.wdb[e];

			dbs[n] = x->db;
			lo[n] = x->lo;
			cnt[n] = x->n;
		}
		w->index = wi;
		if (p->arrival == PROFILE_ARRIVAL_RATE && streams) {
			/* this worker's share of the arrivals, by its streams */
			double rate = p->rate * lw.share[wi] / (double)streams;

			wl_arrivals_init(&w->wl, rate, engine_clock_now(&r->clock));
		}
		/* the worker runs (and its memory lives) near the disks it drives */
		memset(drv, 0, r->plan.nr_vols * sizeof(*drv));
		for (unsigned k = 0; k < n; k++)
			drv[r->plan.dbs[dbs[k]].volume] = true;
		if (env_numa_place(&nm, drv, r->virt ? PROFILE_AFFINITY_NONE : p->affinity,
				   &w->numa)) {
			strbuf_addf(err, "affinity = hard: %s", w->numa.note);
			ret = -ENODEV;
			goto out;
		}
		{
			struct env_numa_saved sv;

			ret = env_numa_setup_enter(&w->numa, &sv, err);
			if (!ret)
				ret = worker_setup(r, w, dbs, lo, cnt, n, lw.nstreams[wi],
						   lw.nstreams[wi] +
							   worker_extra(&lw, wi, streams, bound),
						   lw.duty[wi], err);
			env_numa_setup_leave(&sv);
		}
		if (ret)
			goto out;
	}
	/*
	 * Every worker's ring first, then each one's registrations: a kernel
	 * that charges ring memory to the memlock limit (6.13's regions) would
	 * otherwise refuse the second ring once the first worker's fixed
	 * buffers had taken what the limit leaves.
	 */
	for (unsigned i = 0; i < r->nworkers; i++) {
		struct worker *w = &r->workers[i];

		ret = engine_drv_open(&w->drv, err);
		if (ret)
			goto out;
	}
	ret = 0;
out:
	if (nm_built)
		env_numa_map_release(&nm);
	free(drv);
	if (ret == -ENOMEM && !err->len)
		strbuf_addstr(err, "out of memory");
	plan_workers_release(&lw);
	free(dbs);
	free(lo);
	free(cnt);
	return ret;
}

/* Frees the workers of a finished level (auto-tune). */
void run_release_workers(struct run *r)
{
	for (unsigned i = 0; r->workers && i < r->nworkers; i++)
		run_worker_release(&r->workers[i]);
	free(r->workers);
	r->workers = NULL;
	r->nworkers = 0;
	atomic_store(&r->ctl.workers_done, 0);
}
