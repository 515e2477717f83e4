/* SPDX-License-Identifier: MIT */
/*
 * db.c - the generators' state of one worker's databases and the layout of
 * its slots: what the flusher, the log, replication, maintenance, backup and
 * recovery keep per database, the RNG and the mix, set up before the first
 * I/O and released after the last.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util/rng.h"
#include "workload_internal.h"

/* dirty pages a database may hold when the profile does not say
 * ([workload] dirty_pages): enough for its streams to run ahead of the
 * flusher, as a database cache would */
#define WL_DIRTY_MAX 4096u
/* log records buffered, and replayed pages waiting, per database */
#define WL_RECS_CAP 65536u
#define WL_REPLAY_CAP 65536u

static int db_init(struct wl_ctx *c, struct wl_db *d, unsigned streams)
{
	const struct wl_config *p = &c->cfg;

	d->repl.slot = d->scan.slot = d->log.slot = WL_NO_SLOT;
	d->txn.seq_next = d->lo;
	/* any of the worker's streams may wait on any of its databases */
	if (streams && !(d->txn.waiters = calloc(streams, sizeof(*d->txn.waiters))))
		return -ENOMEM;
	if (wl_fixed_model(c) || wl_backup_test(c))
		return 0;
	if (wl_recovery_test(c)) {
		d->replay.cap = WL_REPLAY_CAP;
		d->replay.pages = calloc(d->replay.cap, sizeof(*d->replay.pages));
		d->replay.ns = calloc(p->recovery_segments, sizeof(*d->replay.ns));
		d->replay.count = calloc(p->recovery_segments, sizeof(*d->replay.count));
		d->replay.recs = calloc(p->log_segments, sizeof(*d->replay.recs));
		if (!d->replay.pages || !d->replay.ns || !d->replay.count || !d->replay.recs)
			return -ENOMEM;
	}
	d->flush.cap = p->dirty_pages ? p->dirty_pages : WL_DIRTY_MAX;
	if (d->n < d->flush.cap)
		d->flush.cap = (unsigned)d->n;
	d->flush.dirty = calloc(d->flush.cap, sizeof(*d->flush.dirty));
	d->flush.free_slots = calloc(p->flush_depth, sizeof(*d->flush.free_slots));
	d->log.rcap = WL_RECS_CAP;
	d->log.recs = calloc(d->log.rcap, sizeof(*d->log.recs));
	d->repl.seg_owed = calloc(p->log_segments, 1);
	d->repl.q = calloc(p->log_segments, sizeof(*d->repl.q));
	if (!d->flush.dirty || !d->flush.free_slots || !d->log.recs || !d->repl.seg_owed ||
	    !d->repl.q)
		return -ENOMEM;
	if (p->checkpoint_interval_ns &&
	    !(d->ckpt.set = calloc(d->flush.cap, sizeof(*d->ckpt.set))))
		return -ENOMEM;
	if (c->batch) {
		struct wl_db_batch *b = wl_batch(c, d);

		/* the area: at most half the worker's share of the database */
		d->dw_n = wl_dw_pages(p->doublewrite, p->doublewrite_size, p->page_size);
		if (d->dw_n > d->n / 2)
			d->dw_n = (uint32_t)(d->n / 2);
		if (!(b->held = calloc(p->flush_depth, sizeof(*b->held))))
			return -ENOMEM;
	}
	if (p->hot_size) {
		/* this worker's share of the hot region, as of its pages */
		d->hot_n = (uint64_t)((double)(p->hot_size / p->page_size) * (double)d->n /
				      (double)(d->pdb->nr_pages ? d->pdb->nr_pages : 1));
		if (d->hot_n >= d->n)
			d->hot_n = 0; /* all hot: uniform */
	}
	if (p->cache_size) {
		/* this worker's share of the database's cache, as of its pages */
		double share = (double)(p->cache_size / p->page_size) * (double)d->n /
			       (double)(d->pdb->nr_pages ? d->pdb->nr_pages : 1);

		d->cache.cap = share >= (double)d->n ? d->n : (uint64_t)share;
		if (d->cache.cap < d->n && d->cache.cap &&
		    !(d->cache.ring = calloc(d->cache.cap, sizeof(*d->cache.ring))))
			return -ENOMEM;
	}
	return 0;
}

/* What the allocator takes for n bytes at most (glibc): a 16-byte header in
 * 16-byte granules, at least 32 B, or from its mmap threshold (128 KiB) on
 * the whole pages of a mapping of its own */
static uint64_t alloc_bound(uint64_t n)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t g = n + 16 >= (128u << 10) ? (page > 0 ? (uint64_t)page : 65536) : 16;
	uint64_t b = (n + 16 + g - 1) / g * g;

	return b < 32 ? 32 : b;
}

/* the size of one element of a table of struct wl_db */
#define WL_ELEM(field) ((uint64_t)sizeof(((struct wl_db *)0)->field[0]))

uint64_t wl_db_memory(const struct profile *p, uint64_t nr_pages, unsigned streams)
{
	uint64_t m = sizeof(struct wl_db), dcap;
	bool batch = p->doublewrite || p->data_flush != PROFILE_DATA_FLUSH_NONE ||
		     p->cleaner_interval_ns;

	if (streams)
		m += alloc_bound(streams * WL_ELEM(txn.waiters));
	if (p->model == PROFILE_MODEL_FIXED || p->type == PROFILE_TEST_BACKUP)
		return m;
	if (p->type == PROFILE_TEST_RECOVERY)
		m += alloc_bound(WL_REPLAY_CAP * WL_ELEM(replay.pages)) +
		     alloc_bound(p->recovery_segments * WL_ELEM(replay.ns)) +
		     alloc_bound(p->recovery_segments * WL_ELEM(replay.count)) +
		     alloc_bound(p->log_segments * WL_ELEM(replay.recs));
	dcap = p->dirty_pages ? p->dirty_pages : WL_DIRTY_MAX;
	dcap = nr_pages < dcap ? nr_pages : dcap;
	m += alloc_bound(dcap * WL_ELEM(flush.dirty)) +
	     alloc_bound(p->flush_depth * WL_ELEM(flush.free_slots)) +
	     alloc_bound(WL_RECS_CAP * WL_ELEM(log.recs)) +
	     alloc_bound(p->log_segments * WL_ELEM(repl.seg_owed)) +
	     alloc_bound(p->log_segments * WL_ELEM(repl.q));
	if (p->checkpoint_interval_ns)
		m += alloc_bound(dcap * WL_ELEM(ckpt.set));
	/* batch.c's state (wl_ctx.batch, one per database) and its slots */
	if (batch)
		m += sizeof(struct wl_db_batch) + 16 +
		     alloc_bound(p->flush_depth * sizeof(*((struct wl_db_batch *)0)->held));
	/* the cache model's CLOCK ring: the pages the cache holds (all of
	 * them on a worker that drives the whole database) */
	if (p->cache_size && p->cache_size / p->page_size < nr_pages &&
	    p->cache_size >= p->page_size)
		m += alloc_bound(p->cache_size / p->page_size * WL_ELEM(cache.ring));
	return m;
}

/* The workload part of profile p (struct wl_config). */
static void config_from_profile(struct wl_config *f, const struct profile *p)
{
	*f = (struct wl_config){
		.type = p->type,
		.recovery_segments = p->recovery_segments,
		.model = p->model,
		.page_size = p->page_size,
		.log_record_size = p->log_record_size,
		.seed = p->seed,
		.verify = p->verify,
		.insert_pct = p->insert_pct,
		.delete_pct = p->delete_pct,
		.replace_pct = p->replace_pct,
		.seek_pct = p->seek_pct,
		.lazy_commit_pct = p->lazy_commit_pct,
		.seek_pages = p->seek_pages,
		.update_pages = p->update_pages,
		.flush_depth = p->flush_depth,
		.dirty_pages = p->dirty_pages,
		.log_segments = p->log_segments,
		.log_segment_size = p->log_segment_size,
		.bdm = p->bdm,
		.bdm_rate = p->bdm_rate,
		.bdm_io_size = p->bdm_io_size,
		.copies = p->copies,
		.backup_io_size = p->backup_io_size,
		.arrival = p->arrival,
		.read_pages = p->read_pages,
		.hot_size = p->hot_size,
		.hot_pct = p->hot_pct,
		.cache_size = p->cache_size,
		.readahead_size = p->readahead_size,
		.readahead_pct = p->readahead_pct,
		.checkpoint_interval_ns = p->checkpoint_interval_ns,
		.checkpoint_log_size = p->checkpoint_log_size,
		.checkpoint_target_pct = p->checkpoint_target_pct,
		.write_merge = p->write_merge,
		.writeback_interval_ns = p->writeback_interval_ns,
		.writeback_age_ns = p->writeback_age_ns,
		.writeback_hot = p->writeback_hot,
		.full_page_writes = p->full_page_writes,
		.log_page_size = p->log_page_size,
		.commit_delay_ns = p->commit_delay_ns,
		.commit_group = p->commit_group,
		.log_sync = p->log_sync,
		.doublewrite = p->doublewrite,
		.doublewrite_size = p->doublewrite_size,
		.data_flush = p->data_flush,
		.data_flush_rate = p->data_flush_rate,
		.data_flush_count = p->data_flush_count,
		.cleaner_interval_ns = p->cleaner_interval_ns,
		.cleaner_pages = p->cleaner_pages,
		.cleaner_spread = p->cleaner_spread,
		.read_pct = p->read_pct,
		.pattern = p->pattern,
	};
}

int wl_ctx_init(struct wl_ctx *c, const struct profile *p, unsigned worker_index, struct wl_db *dbs,
		unsigned ndb, unsigned nstreams, struct wl_slot *slots, unsigned nslots,
		unsigned *idle)
{
	double acc = 0, tot = p->insert_pct + p->delete_pct + p->replace_pct + p->seek_pct;

	config_from_profile(&c->cfg, p);
	c->dbs = dbs;
	c->ndb = ndb;
	c->slots = slots;
	c->nslots = nslots;
	c->idle = idle;
	c->nidle = 0;
	c->nstreams = c->max_streams = nstreams;
	c->rr = 0;
	c->rng = p->seed * RNG_GOLDEN + worker_index + 1;
	/* open loop's arrival times: an RNG of their own, drawn the same
	 * twice (txn.c: where transactions begin, and the backlog's frontier) */
	c->arr_rng = c->bl.rng =
		(p->seed + 1) * RNG_GOLDEN ^ (worker_index + 1) * 0x2545f4914f6cdd1dULL;
	c->next_due = UINT64_MAX;
	acc += p->insert_pct;
	c->mix[0] = acc / tot;
	acc += p->delete_pct;
	c->mix[1] = acc / tot;
	acc += p->replace_pct;
	c->mix[2] = acc / tot;
	c->mix[3] = 1.0;
	c->batch = NULL;
	if (wl_batch_on(&c->cfg) && !wl_fixed_model(c) && !wl_backup_test(c) &&
	    !wl_recovery_test(c) && ndb && !(c->batch = calloc(ndb, sizeof(*c->batch))))
		return -ENOMEM;
	for (unsigned i = 0; i < ndb; i++)
		if (db_init(c, &dbs[i], nstreams))
			return -ENOMEM;
	return 0;
}

void wl_ctx_release(struct wl_ctx *c)
{
	for (unsigned i = 0; c->slots && i < c->nslots; i++)
		free(c->slots[i].touched);
	for (unsigned i = 0; c->dbs && i < c->ndb; i++) {
		struct wl_db *d = &c->dbs[i];

		free(d->flush.dirty);
		free(d->flush.free_slots);
		free(d->log.recs);
		free(d->repl.seg_owed);
		free(d->repl.q);
		free(d->txn.waiters);
		free(d->replay.pages);
		free(d->replay.ns);
		free(d->replay.count);
		free(d->replay.recs);
		free(d->cache.ring);
		free(d->ckpt.set);
		if (c->batch)
			free(c->batch[i].held);
	}
	free(c->batch);
	c->batch = NULL;
	/* what it points at is the caller's: forgotten, so a second release
	 * frees nothing twice */
	c->slots = NULL;
	c->dbs = NULL;
}

/* Generator slots per database: log, replication (or recovery), maintenance
 * and the flusher; backup: its scan. */
static unsigned slots_per_db(const struct wl_config *p)
{
	if (p->type == PROFILE_TEST_BACKUP)
		return 1;
	if (p->model == PROFILE_MODEL_FIXED)
		return 0;
	return 1 + (p->copies > 1 || p->type == PROFILE_TEST_RECOVERY) + p->bdm + p->flush_depth +
	       wl_batch_on(p);
}

unsigned wl_slot_count(const struct profile *p, unsigned ndb, unsigned nstreams)
{
	struct wl_config f;

	config_from_profile(&f, p);
	return nstreams + ndb * slots_per_db(&f);
}

/* The generator slots of database i from slot *si on. */
static void place_db_slots(struct wl_ctx *c, unsigned i, unsigned *si, uint64_t now)
{
	const struct wl_config *p = &c->cfg;
	struct wl_db *d = &c->dbs[i];
	uint64_t seg = wl_seg_size(c);
	uint64_t lmax = seg < WL_LOG_MAX ? seg : WL_LOG_MAX;
	uint64_t rmax = seg < WL_REPL_MAX ? seg : WL_REPL_MAX;

	if (wl_backup_test(c)) {
		c->slots[*si] = (struct wl_slot){
			.kind = WL_SLOT_SCAN, .db = i, .buf_len = p->backup_io_size};
		d->scan.slot = (*si)++;
		d->scan.next = d->lo;
		return;
	}
	c->slots[*si] = (struct wl_slot){
		.kind = WL_SLOT_LOG, .db = i, .buf_len = (uint32_t)(lmax - lmax % d->log_align)};
	d->log.slot = (*si)++;
	if (p->copies > 1 || wl_recovery_test(c)) {
		c->slots[*si] = (struct wl_slot){.kind = WL_SLOT_REPL,
						 .db = i,
						 .buf_len = (uint32_t)(rmax - rmax % d->log_align)};
		d->repl.slot = (*si)++;
	}
	if (p->bdm) {
		c->slots[*si] =
			(struct wl_slot){.kind = WL_SLOT_SCAN, .db = i, .buf_len = p->bdm_io_size};
		d->scan.slot = (*si)++;
		d->scan.next = d->lo;
		d->scan.gap = (uint64_t)((double)p->bdm_io_size * 1e9 / (double)p->bdm_rate);
		/* databases start their scans staggered over one gap */
		d->scan.due = now + d->scan.gap * i / c->ndb;
	}
	for (unsigned k = 0; k < p->flush_depth; k++) {
		c->slots[*si] =
			(struct wl_slot){.kind = WL_SLOT_FLUSH,
					 .db = i,
					 .buf_len = wl_buf_len_flush(p->page_size, p->write_merge)};
		d->flush.free_slots[d->flush.nfree++] = (*si)++;
	}
	if (c->batch) {
		struct wl_db_batch *b = wl_batch(c, d);

		c->slots[*si] =
			(struct wl_slot){.kind = WL_SLOT_BATCH,
					 .db = i,
					 .buf_len = wl_buf_len_batch(p->page_size, p->doublewrite,
								     p->doublewrite_size)};
		b->slot = (*si)++;
		/* the first pass and rate flush one interval in */
		b->clean_due = now + p->cleaner_interval_ns;
		if (p->data_flush == PROFILE_DATA_FLUSH_RATE)
			b->flush_due = now + (uint64_t)(1e9 / p->data_flush_rate);
	}
	/* the first checkpoint one interval in: the run starts as from a
	 * checkpoint (every page's first change is logged whole) */
	d->ckpt.due = now + p->checkpoint_interval_ns;
	d->ckpt.begun = now; /* as if one began at the start */
	d->ckpt.wb_due = now + p->writeback_interval_ns;
}

int wl_slots_place(struct wl_ctx *c, double last_duty, uint64_t now)
{
	const struct wl_config *p = &c->cfg;
	bool txn = !wl_fixed_model(c) && !wl_backup_test(c);
	unsigned si = 0;

	c->t0 = now;
	c->now = now;
	for (unsigned k = 0; k < c->max_streams; k++, si++) {
		struct wl_slot *s = &c->slots[si];

		s->kind = WL_SLOT_STREAM;
		/* bound to no database: each unit of work picks one */
		s->db = k % (c->ndb ? c->ndb : 1);
		s->buf_len = wl_buf_len_stream(p->page_size, p->readahead_size);
		s->duty = k + 1 == c->nstreams && last_duty > 0 && last_duty < 1 ? last_duty : 1;
		if (txn && !(s->touched = calloc(WL_TXN_MAX_PAGES, sizeof(*s->touched))))
			return -ENOMEM;
		/* open loop's streams past nstreams wait for a backlog */
		if (k < c->nstreams)
			c->idle[c->nidle++] = si;
	}
	for (unsigned i = 0; i < c->ndb && slots_per_db(p); i++)
		place_db_slots(c, i, &si, now);
	/* streams issue in slot order */
	for (unsigned i = 0; i < c->nidle / 2; i++) {
		unsigned t = c->idle[i];

		c->idle[i] = c->idle[c->nidle - 1 - i];
		c->idle[c->nidle - 1 - i] = t;
	}
	return 0;
}

bool wl_db_finished(const struct wl_ctx *c, const struct wl_db *d)
{
	if (wl_backup_test(c) && (!d->scan.done || d->scan.busy))
		return false;
	if (wl_recovery_test(c) && d->replay.phase != WL_PHASE_DONE)
		return false;
	return true;
}
