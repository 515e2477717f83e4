/* SPDX-License-Identifier: MIT */
/*
 * flush.c - the flusher: a database's dirty pages (committed by streams) are
 * written back, at most flush_depth writes at a time (one slot each), each
 * only once the log records that dirtied it are durable (write-ahead) and
 * while no other I/O is in flight on it. A full dirty list holds committing
 * streams back (txn.c); each write that completes wakes them.
 *
 * Without checkpoints the pages go oldest first, as soon as they may.
 *
 * With checkpoint_interval, as PostgreSQL does it: a page is written only by
 * a checkpoint. One begins every interval (the first one interval into the
 * run, or as soon as the one before is done when that took longer): the
 * pages dirty at that instant are its set, sorted by page number, written
 * spread evenly over checkpoint_target of the interval, runs of adjacent
 * pages as one write of up to write_merge pages (the block layer merges a
 * sorted write-back). A page changed again before its write goes with it;
 * one dirtied after the set was taken waits for the next checkpoint. Its
 * beginning also clears every page's full-page-image bit (txn.c). Between
 * checkpoints, write-back passes (writeback_interval) write the pages dirty
 * for writeback_age, at once; with writeback_hot off, not those of the hot
 * region, which the buffer pool keeps until the checkpoint.
 */
#include <stdlib.h>

#include "workload_internal.h"

struct wl_slot *wl_flush_oldest(struct wl_ctx *c, struct wl_db *d, uint64_t now)
{
	struct wl_dirty_page *dp;
	struct wl_slot *s;

	/* a page found bad since it was dirtied is not written: dropped */
	while (d->flush.len &&
	       (d->busy[d->flush.dirty[d->flush.head].page - d->lo] & WL_BUSY_BAD)) {
		d->busy[d->flush.dirty[d->flush.head].page - d->lo] &= (uint8_t)~WL_BUSY_DIRTY;
		d->flush.head = (d->flush.head + 1) % d->flush.cap;
		d->flush.len--;
	}
	if (!d->flush.len)
		return NULL;
	dp = &d->flush.dirty[d->flush.head];
	/* write-ahead: the page's log record first; one I/O per page */
	if (dp->lsn > d->log.durable || (d->busy[dp->page - d->lo] & WL_BUSY_IO))
		return NULL;
	s = &c->slots[d->flush.free_slots[--d->flush.nfree]];
	s->page = dp->page;
	d->busy[dp->page - d->lo] &= (uint8_t)~WL_BUSY_DIRTY;
	d->flush.head = (d->flush.head + 1) % d->flush.cap;
	d->flush.len--;
	wl_page_io_prepare(c, s, false, now);
	return s;
}

static int page_cmp(const void *a, const void *b)
{
	uint64_t x = ((const struct wl_dirty_page *)a)->page;
	uint64_t y = ((const struct wl_dirty_page *)b)->page;

	return x < y ? -1 : x > y;
}

/* The set ckpt[0, n) is sorted and is being written. */
static void set_begin(struct wl_db *d, unsigned n)
{
	d->ckpt.len = n;
	d->ckpt.next = 0;
	qsort(d->ckpt.set, d->ckpt.len, sizeof(*d->ckpt.set), page_cmp);
	d->ckpt.active = true;
}

/* The oldest n dirty pages become the set being written, sorted. */
static void set_take(struct wl_db *d, unsigned n)
{
	for (unsigned k = 0; k < n; k++)
		d->ckpt.set[k] = d->flush.dirty[(d->flush.head + k) % d->flush.cap];
	d->flush.head = (d->flush.head + n) % d->flush.cap;
	d->flush.len -= n;
	set_begin(d, n);
}

/* writeback_hot = off: of the oldest n dirty pages, those outside the hot
 * region become the set; the hot ones go to the ring's end, kept for the
 * next checkpoint (the buffer pool keeps its busiest pages). In place: the
 * k-th entry is read before the slot an entry is kept in is written (that
 * slot is at most the k-th when the ring is full). The count taken. */
static unsigned set_take_cold(struct wl_db *d, unsigned n)
{
	unsigned m = 0, keep = 0;

	for (unsigned k = 0; k < n; k++) {
		struct wl_dirty_page e = d->flush.dirty[(d->flush.head + k) % d->flush.cap];

		if (e.page - d->lo < d->hot_n)
			d->flush.dirty[(d->flush.head + d->flush.len + keep++) % d->flush.cap] = e;
		else
			d->ckpt.set[m++] = e;
	}
	d->flush.head = (d->flush.head + n) % d->flush.cap;
	d->flush.len = d->flush.len - n + keep;
	if (m)
		set_begin(d, m);
	return m;
}

/* A write-back pass: the pages dirty for writeback_age, at once (span 0);
 * false when there are none. */
static bool wb_begin(struct wl_ctx *c, struct wl_db *d, uint64_t now)
{
	const struct wl_config *p = &c->cfg;
	unsigned n = 0;

	d->ckpt.wb_due = now + p->writeback_interval_ns;
	while (n < d->flush.len &&
	       d->flush.dirty[(d->flush.head + n) % d->flush.cap].t + p->writeback_age_ns <= now)
		n++;
	if (!n)
		return false;
	if (!p->writeback_hot && d->hot_n) {
		if (!set_take_cold(d, n))
			return false;
	} else {
		set_take(d, n);
	}
	d->ckpt.full = false;
	d->ckpt.span = 0;
	d->ckpt.start = now;
	return true;
}

/* A checkpoint begins: the dirty pages now are its set, sorted. */
static void ckpt_begin(struct wl_ctx *c, struct wl_db *d, uint64_t now)
{
	const struct wl_config *p = &c->cfg;
	uint64_t span;

	set_take(d, d->flush.len);
	d->ckpt.full = true;
	if (p->full_page_writes)
		for (uint64_t i = 0; i < d->n; i++)
			d->busy[i] &= (uint8_t)~WL_BUSY_LOGGED;
	/* spread over the target share of the time to the next one: the
	 * interval, or (begun by the log) as long as the last cycle took */
	span = p->checkpoint_interval_ns;
	if (p->checkpoint_log_size && now - d->ckpt.begun < span)
		span = now - d->ckpt.begun;
	if (p->writeback_interval_ns)
		span = 0; /* write-back wrote the rest: what is left goes at once */
	d->ckpt.span = (uint64_t)((double)span * p->checkpoint_target_pct / 100.0);
	d->ckpt.start = d->ckpt.begun = now;
	d->ckpt.lsn = d->log.lsn;
	d->ckpt.due = now + p->checkpoint_interval_ns;
}

/* Does a checkpoint begin now: its time, or (checkpoint_log_size) enough
 * log since the last one began? */
static bool ckpt_begins(struct wl_ctx *c, const struct wl_db *d, uint64_t now)
{
	const struct wl_config *p = &c->cfg;

	if (now >= d->ckpt.due ||
	    (p->checkpoint_log_size && d->log.lsn - d->ckpt.lsn >= p->checkpoint_log_size))
		return true;
	if (d->ckpt.due < c->next_due)
		c->next_due = d->ckpt.due;
	if (p->writeback_interval_ns && d->ckpt.wb_due < c->next_due)
		c->next_due = d->ckpt.wb_due;
	return false;
}

/* Can page (of the checkpoint's set) be written now? Pages found bad are
 * dropped from it (not written, no longer dirty): false, *skip set. */
static bool ckpt_page_ready(const struct wl_db *d, const struct wl_dirty_page *dp, bool *skip)
{
	uint8_t b = d->busy[dp->page - d->lo];

	*skip = !(b & WL_BUSY_DIRTY) || (b & WL_BUSY_BAD);
	return !*skip && !(b & WL_BUSY_IO) && dp->lsn <= d->log.durable;
}

static struct wl_slot *flush_checkpoint(struct wl_ctx *c, struct wl_db *d, uint64_t now)
{
	const struct wl_config *p = &c->cfg;
	uint64_t due;
	struct wl_dirty_page *dp;
	struct wl_slot *s;
	unsigned np = 1;
	bool skip;

	if (!d->ckpt.active) {
		if (ckpt_begins(c, d, now))
			ckpt_begin(c, d, now);
		else if (!p->writeback_interval_ns || now < d->ckpt.wb_due || !wb_begin(c, d, now))
			return NULL;
	}
	for (;;) {
		if (d->ckpt.next == d->ckpt.len) {
			if (!d->ckpt.inflight) {
				d->ckpt.active = false;
				d->ckpt.done += d->ckpt.full;
				if (d->ckpt.due < c->next_due)
					c->next_due = d->ckpt.due;
			}
			return NULL;
		}
		dp = &d->ckpt.set[d->ckpt.next];
		if (ckpt_page_ready(d, dp, &skip))
			break;
		if (!skip)
			return NULL; /* write-ahead, or an I/O on it: later */
		d->busy[dp->page - d->lo] &= (uint8_t)~WL_BUSY_DIRTY;
		d->ckpt.next++;
	}
	/* spread: the k-th page of the set is due k / len of the way through */
	due = d->ckpt.start + (uint64_t)((double)d->ckpt.span * d->ckpt.next / d->ckpt.len);
	if (d->ckpt.span && now < due) {
		if (due < c->next_due)
			c->next_due = due;
		return NULL;
	}
	s = &c->slots[d->flush.free_slots[--d->flush.nfree]];
	s->page = dp->page;
	d->busy[dp->page - d->lo] &= (uint8_t)~WL_BUSY_DIRTY;
	wl_page_io_prepare(c, s, false, now);
	/* the adjacent pages after it in the set, in the same write */
	while (np < p->write_merge && d->ckpt.next + np < d->ckpt.len &&
	       d->ckpt.set[d->ckpt.next + np].page == s->page + np &&
	       ckpt_page_ready(d, &d->ckpt.set[d->ckpt.next + np], &skip)) {
		uint64_t page = s->page + np;

		d->busy[page - d->lo] =
			(uint8_t)((d->busy[page - d->lo] & ~WL_BUSY_DIRTY) | WL_BUSY_IO);
		wl_stamp_page(c, d, page, (char *)s->buf + (uint64_t)np * p->page_size);
		s->held |= 1ULL << np;
		np++;
	}
	s->npages = np;
	s->req.len = s->len0 = np * p->page_size;
	s->ckpt_write = 1;
	d->ckpt.next += np;
	d->ckpt.inflight++;
	return s;
}

bool wl_flush_dirty_waited(const struct wl_ctx *c, const struct wl_db *d)
{
	for (unsigned i = 0; i < d->txn.nwait; i++)
		if (c->slots[d->txn.waiters[i]].wait == WL_WAIT_DIRTY)
			return true;
	return false;
}

struct wl_slot *wl_flush_build(struct wl_ctx *c, struct wl_db *d, uint64_t now)
{
	struct wl_slot *s;

	if (!d->flush.nfree)
		return NULL;
	if (!d->ckpt.set)
		return wl_flush_oldest(c, d, now);
	if ((s = flush_checkpoint(c, d, now)))
		return s;
	/* the dirty list full and a commit waiting for room: the oldest dirty
	 * page is written now, not at the next checkpoint (as a PostgreSQL
	 * backend that finds no clean buffer writes a dirty one itself); else
	 * every commit would stop until then, for up to a whole interval */
	if (!wl_flush_dirty_waited(c, d) || !(s = wl_flush_oldest(c, d, now)))
		return NULL;
	s->ckpt_write = 0;
	d->ckpt.evictions++;
	return s;
}

void wl_flush_done(struct wl_ctx *c, struct wl_slot *s)
{
	struct wl_db *d = &c->dbs[s->db];

	if (s->ckpt_write && d->ckpt.inflight)
		d->ckpt.inflight--;
	d->flush.free_slots[d->flush.nfree++] = (unsigned)(s - c->slots);
	if (c->batch)
		wl_batch_write_done(c, d);
	wl_wake_waiters(c, d);
}
