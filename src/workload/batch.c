/* SPDX-License-Identifier: MIT */
/*
 * batch.c - the flusher as InnoDB's: in batches, through a doublewrite area,
 * with flushes of the database file, and paced by a page cleaner. In use
 * when any of doublewrite, data_flush or cleaner_interval is on (and never
 * with checkpoints: the profile refuses that); otherwise flush.c works
 * alone and nothing here runs.
 *
 * A batch (doublewrite, or data_flush = per_batch): the oldest dirty pages
 * that may go now (write-ahead, no I/O on them), up to the doublewrite
 * area's pages and the free flusher slots, are taken at once, each stamped
 * on its slot and held. With doublewrite they are first written as one
 * sequential write of that many pages to the area at the end of the
 * worker's share of the database (the area's own pages stamped with their
 * next generations: verify and the journal see them as the pages they
 * are), and the file flushed; then released to be written in place, up to
 * flush_depth in flight (all of them: a batch is at most flush_depth
 * pages). Once every one is done, per_batch flushes the file
 * (data_flush_count times, one after the other: InnoDB fsyncs every file
 * the batch wrote); then the next batch. The writes and flushes of the batch's own are on one slot
 * (WL_SLOT_BATCH), one at a time.
 *
 * data_flush = rate: the file flushed every 1 / data_flush_rate seconds,
 * when it was written to since the last flush, between batches' steps.
 *
 * cleaner_interval: the flusher takes pages only during a pass. Every
 * interval a pass may write up to cleaner_pages of the pages dirty when it
 * began, oldest first; pages dirtied later wait for the next pass, unless a
 * commit waits for room in a full dirty list (then the oldest goes, as an
 * InnoDB thread that finds no free page flushes one itself).
 * cleaner_spread: the pass's pages are spread evenly over its interval,
 * a whole batch at a time when batching: the next batch (or page) may
 * begin once the interval's share of the pass the pages before it make
 * has gone by.
 */
#include "workload_internal.h"

enum wl_batch_phase {
	WL_BATCH_IDLE,	   /* no batch: the next one taken once pages may go */
	WL_BATCH_DW,	   /* the doublewrite write: to issue, or in flight */
	WL_BATCH_DW_FLUSH, /* the flush after it: to issue, or in flight */
	WL_BATCH_WRITES,   /* the pages released to be written in place */
	WL_BATCH_FLUSH,	   /* per_batch: the flush after them */
};

/* Are the flusher's writes taken in batches? */
static bool batching(const struct wl_config *p)
{
	return p->doublewrite || p->data_flush == PROFILE_DATA_FLUSH_PER_BATCH;
}

/* cleaner_spread: when the pass's next page may go (its share of the
 * interval after the pages taken so far). */
static uint64_t spread_due(const struct wl_config *p, const struct wl_db_batch *b)
{
	uint64_t taken = b->clean_budget - b->clean_left;

	return b->clean_start +
	       (uint64_t)((double)p->cleaner_interval_ns * (double)taken / (double)b->clean_budget);
}

/* cleaner_interval: may the flusher take a page now? Begins a pass when
 * one is due (its budget: the pages dirty now, up to cleaner_pages). paced:
 * this page may begin a batch (or is taken alone), so cleaner_spread holds
 * it to its share of the interval. */
static bool clean_may(struct wl_ctx *c, struct wl_db *d, uint64_t now, bool paced)
{
	const struct wl_config *p = &c->cfg;
	struct wl_db_batch *b = wl_batch(c, d);

	if (!p->cleaner_interval_ns)
		return true;
	if (!b->clean_left && now >= b->clean_due) {
		b->clean_left = d->flush.len < p->cleaner_pages ? d->flush.len : p->cleaner_pages;
		b->clean_budget = b->clean_left;
		b->clean_start = b->clean_due;
		/* on the interval's grid, as a cleaner that sleeps out the rest
		 * of its second; one that fell a whole interval behind starts
		 * the grid anew (and cleaner_spread its pass from now) */
		b->clean_due += p->cleaner_interval_ns;
		if (b->clean_due <= now) {
			b->clean_due = now + p->cleaner_interval_ns;
			b->clean_start = now;
		}
	}
	if (b->clean_left && paced && p->cleaner_spread && now < spread_due(p, b)) {
		if (spread_due(p, b) < c->next_due)
			c->next_due = spread_due(p, b);
		return wl_flush_dirty_waited(c, d);
	}
	if (b->clean_left)
		return true;
	if (b->clean_due < c->next_due)
		c->next_due = b->clean_due;
	return wl_flush_dirty_waited(c, d);
}

/* The oldest dirty page's write on a free flusher slot, within the
 * cleaner's pass; NULL when none may go now. paced: see clean_may. */
static struct wl_slot *take(struct wl_ctx *c, struct wl_db *d, uint64_t now, bool paced)
{
	struct wl_slot *s;

	if (!d->flush.nfree || !d->flush.len || !clean_may(c, d, now, paced) ||
	    !(s = wl_flush_oldest(c, d, now)))
		return NULL;
	if (wl_batch(c, d)->clean_left)
		wl_batch(c, d)->clean_left--;
	return s;
}

/* The batch slot as a flush of d's database file. */
static struct wl_slot *flush_issue(struct wl_ctx *c, struct wl_db *d, uint64_t now)
{
	struct wl_slot *s = &c->slots[wl_batch(c, d)->slot];

	wl_slot_request(s, ENGINE_OP_FSYNC, IO_DB_FLUSH, 0, wl_file_db(s->db), 0, 0, now);
	s->npages = 0;
	s->held = 0;
	wl_batch(c, d)->written = false;
	return s;
}

/* data_flush = rate: the file's flush once due, when written to since the
 * last one; the slot must be free. */
static struct wl_slot *rate_step(struct wl_ctx *c, struct wl_db *d, uint64_t now)
{
	const struct wl_config *p = &c->cfg;
	struct wl_db_batch *b = wl_batch(c, d);
	struct wl_slot *s;

	if (p->data_flush != PROFILE_DATA_FLUSH_RATE)
		return NULL;
	if (now < b->flush_due) {
		if (b->flush_due < c->next_due)
			c->next_due = b->flush_due;
		return NULL;
	}
	if (c->slots[b->slot].inflight || !b->written)
		return NULL; /* its completion, or the next write, calls again */
	b->flush_due = now + (uint64_t)(1e9 / p->data_flush_rate);
	s = flush_issue(c, d, now);
	b->rate_flush = true;
	return s;
}

/* The doublewrite write of the batch's nheld pages: the area's first
 * nheld pages, stamped, in one write; NULL while one of them has an I/O in
 * flight (a maintenance scan's read). */
static struct wl_slot *dw_build(struct wl_ctx *c, struct wl_db *d, uint64_t now)
{
	const struct wl_config *p = &c->cfg;
	struct wl_slot *s = &c->slots[wl_batch(c, d)->slot];
	uint64_t first = d->lo + wl_db_pages(d);
	unsigned n = wl_batch(c, d)->nheld;

	for (unsigned k = 0; k < n; k++)
		if (d->busy[first + k - d->lo] & WL_BUSY_IO)
			return NULL;
	for (unsigned k = 0; k < n; k++) {
		d->busy[first + k - d->lo] |= WL_BUSY_IO;
		wl_stamp_page(c, d, first + k, (char *)s->buf + (uint64_t)k * p->page_size);
	}
	wl_slot_request(s, ENGINE_OP_WRITE, IO_DB_WRITE, 0, wl_file_db(s->db),
			d->pdb->base + first * p->page_size, n * p->page_size, now);
	s->page = first;
	s->npages = n;
	s->held = n >= 64 ? ~0ULL : (1ULL << n) - 1;
	wl_batch(c, d)->issued = true;
	return s;
}

/* A new batch: the pages that may go now, taken and held; false when
 * there are none. */
static bool batch_begin(struct wl_ctx *c, struct wl_db *d, uint64_t now)
{
	struct wl_db_batch *b = wl_batch(c, d);
	unsigned max = d->dw_n ? (unsigned)d->dw_n : c->cfg.flush_depth;
	struct wl_slot *s;

	b->nheld = b->nrel = 0;
	while (b->nheld < max && (s = take(c, d, now, !b->nheld)))
		b->held[b->nheld++] = (unsigned)(s - c->slots);
	if (!b->nheld)
		return false;
	b->batches++;
	b->issued = false;
	b->phase = c->cfg.doublewrite ? WL_BATCH_DW : WL_BATCH_WRITES;
	return true;
}

struct wl_slot *wl_batch_build(struct wl_ctx *c, struct wl_db *d, uint64_t now)
{
	struct wl_db_batch *b = wl_batch(c, d);
	bool slot_free = !c->slots[b->slot].inflight;
	struct wl_slot *s = NULL;

	if (!batching(&c->cfg)) {
		if ((s = take(c, d, now, true)))
			return s;
		return rate_step(c, d, now);
	}
	if (b->phase == WL_BATCH_IDLE && !batch_begin(c, d, now))
		return rate_step(c, d, now);
	switch (b->phase) {
	case WL_BATCH_DW:
		if (!b->issued && slot_free)
			s = dw_build(c, d, now);
		break;
	case WL_BATCH_DW_FLUSH:
	case WL_BATCH_FLUSH:
		if (!b->issued && slot_free) {
			s = flush_issue(c, d, now);
			b->issued = true;
		}
		break;
	case WL_BATCH_WRITES:
		if (b->nrel < b->nheld) {
			b->inflight++;
			return &c->slots[b->held[b->nrel++]];
		}
		break;
	}
	return s ? s : rate_step(c, d, now);
}

void wl_batch_write_done(struct wl_ctx *c, struct wl_db *d)
{
	struct wl_db_batch *b = wl_batch(c, d);

	b->written = true;
	if (!batching(&c->cfg) || !b->inflight)
		return;
	b->inflight--;
	if (b->phase != WL_BATCH_WRITES || b->nrel < b->nheld || b->inflight)
		return;
	b->issued = false;
	b->nflushed = 0;
	b->phase =
		c->cfg.data_flush == PROFILE_DATA_FLUSH_PER_BATCH ? WL_BATCH_FLUSH : WL_BATCH_IDLE;
}

void wl_batch_done(struct wl_ctx *c, struct wl_db *d)
{
	struct wl_db_batch *b = wl_batch(c, d);
	struct wl_slot *s = &c->slots[b->slot];

	if (s->req.op == ENGINE_OP_FSYNC)
		b->flushes++;
	if (s->req.op == ENGINE_OP_WRITE)
		b->written = true;
	if (b->rate_flush) {
		b->rate_flush = false;
		return;
	}
	b->issued = false;
	if (b->phase == WL_BATCH_DW)
		b->phase = WL_BATCH_DW_FLUSH;
	else if (b->phase == WL_BATCH_DW_FLUSH)
		b->phase = WL_BATCH_WRITES;
	else if (b->phase == WL_BATCH_FLUSH && ++b->nflushed >= c->cfg.data_flush_count)
		b->phase = WL_BATCH_IDLE;
}
