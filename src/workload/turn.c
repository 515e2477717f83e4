/* SPDX-License-Identifier: MIT */
/*
 * turn.c - the order the generators run in, for every caller (the run's
 * workers, the unit tests' harness): one turn (each database's recovery
 * step, log writer, flusher, replication and scan, then the idle streams,
 * open loop's new streams while arrivals wait, then the cache model's
 * second pass of the log writers) and one completion (a slot's pages
 * released, a write's generations learnt, the pages a read
 * returned handed to the caller's checks, then the generator that issued it
 * told). The caller queues, accounts and checks; nothing here does I/O.
 */
#include "workload_internal.h"

/* Queues s; false when the caller takes no more this turn. */
static inline bool turn_queue(struct wl_slot *s, uint64_t now, wl_queue_fn queue, void *arg)
{
	s->inflight = true;
	return queue(arg, s, now);
}

void wl_turn(struct wl_ctx *c, uint64_t now, wl_queue_fn queue, void *arg)
{
	struct wl_slot *s;

	c->next_due = UINT64_MAX;
	for (unsigned i = 0; i < c->ndb; i++) {
		struct wl_db *d = &c->dbs[i];

		if (wl_recovery_test(c))
			wl_recovery_step(c, i);
		if ((s = wl_log_prepare(c, d, now)) && !turn_queue(s, now, queue, arg))
			return;
		while ((s = wl_flush_prepare(c, d, now)))
			if (!turn_queue(s, now, queue, arg))
				return;
		if ((s = wl_repl_prepare(c, d, now)) && !turn_queue(s, now, queue, arg))
			return;
		if ((s = wl_scan_prepare(c, d, now)) && !turn_queue(s, now, queue, arg))
			return;
	}
	for (unsigned k = c->nidle; k--;) {
		int next;

		s = &c->slots[c->idle[k]];
		if ((next = wl_stream_prepare(c, s, now)) == WL_STREAM_NONE)
			continue;
		c->idle[k] = c->idle[--c->nidle];
		if (next == WL_STREAM_IO && !turn_queue(s, now, queue, arg))
			return;
	}
	/* open loop: an arrival still waits, every stream at work: one more
	 * stream (its slot placed already), up to the bound */
	while (c->nstreams < c->max_streams && c->next_arrival <= now) {
		unsigned si = c->nstreams++; /* the stream slots come first */
		int next;

		s = &c->slots[si];
		if ((next = wl_stream_prepare(c, s, now)) == WL_STREAM_NONE) {
			c->idle[c->nidle++] = si;
			break;
		}
		if (next == WL_STREAM_IO && !turn_queue(s, now, queue, arg))
			return;
	}
	/* with every stream at work, the next arrival is due a turn of its own
	 * while the streams may still grow: it starts one at once, not at the
	 * next completion */
	if (c->nstreams < c->max_streams && !c->nidle && c->next_arrival < c->next_due)
		c->next_due = c->next_arrival;
	/* transactions finished from the cache model just now committed with
	 * no I/O of their own, after the log's turn above: their log write
	 * goes in this turn too, not at whatever completes next (up to the
	 * worker's reap wait, or the interval's end on sim, when nothing else
	 * is in flight) */
	for (unsigned i = 0; c->cfg.cache_size && i < c->ndb; i++)
		if ((s = wl_log_prepare(c, &c->dbs[i], now)) && !turn_queue(s, now, queue, arg))
			return;
}

/* What a page whose write failed is marked with in its map (and journal):
 * this run's failed-write mark (journal.h). */
static inline uint32_t failed_mark(const struct wl_ctx *c)
{
	int64_t id = c->run_id;

	return journal_failed_mark(id > 0 ? (uint64_t)id : 0);
}

/* A page of a read checked, when the caller checks pages. */
static inline void check_page(const struct wl_check *k, struct wl_db *d, struct wl_slot *s,
			      unsigned i, uint32_t page_size)
{
	if (k->page)
		k->page(k->arg, d, s->db, s->page + i, (char *)s->buf + (uint64_t)i * page_size,
			s->off0 + (uint64_t)i * page_size);
}

/* A scan read's pages: the ones it held checked, then the scan told. */
static void complete_scan(struct wl_ctx *c, struct wl_db *d, struct wl_slot *s, bool ok,
			  const struct wl_check *k)
{
	for (unsigned i = 0; ok && c->cfg.verify && i < s->npages; i++)
		if (s->held & (1ULL << i))
			check_page(k, d, s, i, c->cfg.page_size);
	wl_scan_done(c, d, s, ok);
}

/* A page I/O of a stream or the flusher: a read ahead's or a merged write's
 * pages after the first, then the first (a stream's read may be set aside
 * to check later: it stays busy until then), then the generator told. */
static void complete_pages(struct wl_ctx *c, struct wl_db *d, struct wl_slot *s, bool ok,
			   const struct wl_check *k)
{
	bool write = s->req.op == ENGINE_OP_WRITE, verify = ok && c->cfg.verify;
	bool durable = write && ok && k->durable && (s->req.flags & ENGINE_RF_DSYNC);

	for (unsigned i = 1; i < s->npages; i++) {
		uint64_t page = s->page + i;

		if (!(s->held & (1ULL << i)))
			continue;
		if (write) {
			d->expect[page - d->lo] =
				ok ? (uint32_t)wl_next_gen(d->expect[page - d->lo])
				   : failed_mark(c);
			if (durable)
				k->durable(k->arg, d, s->db, page, d->expect[page - d->lo],
					   s->req.t_done_ns);
		} else if (verify)
			check_page(k, d, s, i, c->cfg.page_size);
		d->busy[page - d->lo] &= (uint8_t)~WL_BUSY_IO;
	}
	if (verify && !write && s->kind == WL_SLOT_STREAM && !wl_slot_replaying(s) &&
	    k->set_aside && k->set_aside(k->arg, s)) {
		/* checked once the stream is on its way again */
	} else {
		d->busy[s->page - d->lo] &= (uint8_t)~WL_BUSY_IO;
		if (write) {
			/* a failed write may have landed, or not, or in part */
			d->expect[s->page - d->lo] = ok ? (uint32_t)s->gen : failed_mark(c);
			if (durable)
				k->durable(k->arg, d, s->db, s->page, s->gen, s->req.t_done_ns);
		} else if (verify)
			check_page(k, d, s, 0, c->cfg.page_size);
	}
	if (s->kind == WL_SLOT_FLUSH)
		wl_flush_done(c, s);
	else
		wl_stream_done(c, s);
}

/* The batch slot's doublewrite write (the area's pages released, their
 * generations learnt) or flush, then the batch told. */
static void complete_batch(struct wl_ctx *c, struct wl_db *d, struct wl_slot *s, bool ok)
{
	for (unsigned i = 0; s->req.op == ENGINE_OP_WRITE && i < s->npages; i++) {
		uint64_t k = s->page + i - d->lo;

		d->expect[k] = ok ? (uint32_t)wl_next_gen(d->expect[k]) : failed_mark(c);
		d->busy[k] &= (uint8_t)~WL_BUSY_IO;
	}
	wl_batch_done(c, d);
}

void wl_complete(struct wl_ctx *c, struct wl_slot *s, bool ok, const struct wl_check *k)
{
	struct wl_db *d = &c->dbs[s->db];

	s->inflight = false;
	c->now = s->req.t_done_ns; /* a unit of work that ends here ends then */
	switch (s->kind) {
	case WL_SLOT_LOG:
		wl_log_done(c, d, ok);
		return;
	case WL_SLOT_REPL:
		if (ok && k->log)
			k->log(k->arg, d, s);
		wl_repl_done(c, d, s);
		return;
	case WL_SLOT_SCAN:
		complete_scan(c, d, s, ok, k);
		return;
	case WL_SLOT_BATCH:
		complete_batch(c, d, s, ok);
		return;
	case WL_SLOT_FLUSH:
	case WL_SLOT_STREAM:
		complete_pages(c, d, s, ok, k);
		return;
	}
}
