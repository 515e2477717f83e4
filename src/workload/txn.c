/*
 * txn.c - the transaction streams: the mix (insert, delete, replace, seek),
 * a transaction's page reads, its commit (dirty pages for the flusher, a
 * record for the log, a wait for the log unless lazy), open-loop arrivals,
 * and the fixed model's stream (one random or sequential page I/O at a time).
 *
 * Each stream runs closed loop: one page I/O at a time, a random page with
 * no I/O in flight, at most one I/O in flight per page. Every random draw is
 * from ctx->rng, in this order per transaction: the type, (open loop) the
 * next arrival's gap, the page count, each page; then the lazy-commit draw.
 */
#include <math.h>

#include "../util/rng.h"
#include "workload_internal.h"

/* floor(mean) pages, one more with probability frac(mean); 1..WL_TXN_MAX_PAGES */
static unsigned draw_pages(uint64_t *rng, double mean)
{
	unsigned n = (unsigned)mean;

	if (rng_unit(rng) < mean - (double)n)
		n++;
	if (n < 1)
		n = 1;
	return n > WL_TXN_MAX_PAGES ? WL_TXN_MAX_PAGES : n;
}

/* Picks a page of [lo, lo + n) with no I/O in flight: random tries, then a scan. */
static bool pick_page(struct wl_ctx *c, struct wl_db *d, uint64_t *page)
{
	uint64_t n = d->n, p;

	for (int i = 0; i < 16; i++) {
		p = rng_next(&c->rng) % n;
		if (!(d->busy[p] & (WL_BUSY_IO | WL_BUSY_BAD))) {
			*page = d->lo + p;
			return true;
		}
	}
	p = rng_next(&c->rng) % n;
	for (uint64_t i = 0; i < n; i++, p = (p + 1) % n)
		if (!(d->busy[p] & (WL_BUSY_IO | WL_BUSY_BAD))) {
			*page = d->lo + p;
			return true;
		}
	return false;
}

/*
 * A database page fault stall, as Jetstress counts them: the transaction had
 * to wait for a page, because the dirty-page list was full at its commit (the
 * cache holds no clean page to take) or no page was free of I/O to read.
 * Counted once per transaction, however long or often it waits.
 */
static void stream_stall(struct wl_db *d, struct wl_slot *s)
{
	if (s->stalled)
		return;
	s->stalled = 1;
	d->page_stalls++;
}

/* Commits a stream's transaction: dirty its pages, append its record. false
 * when it must wait (no room in the dirty list, or a non-lazy commit). */
static bool stream_commit(struct wl_ctx *c, struct wl_slot *s)
{
	struct wl_db *d = &c->dbs[s->db];
	const struct profile *p = c->prof;
	unsigned fresh = 0;

	if (s->txn != WL_TXN_SEEK && s->wait != WL_WAIT_LOG) {
		for (unsigned i = 0; i < s->ntouched; i++)
			fresh += !(d->busy[s->touched[i] - d->lo] & WL_BUSY_DIRTY);
		if (d->dlen + fresh > d->dcap) {
			stream_stall(d, s);
			s->wait = WL_WAIT_DIRTY;
			return false;
		}
		wl_log_append(c, d, s->touched, s->ntouched);
		for (unsigned i = 0; i < s->ntouched; i++) {
			uint8_t *b = &d->busy[s->touched[i] - d->lo];

			if (*b & (WL_BUSY_DIRTY | WL_BUSY_BAD))
				continue;
			*b |= WL_BUSY_DIRTY;
			d->dirty[(d->dhead + d->dlen++) % d->dcap] =
				(struct wl_dirty_page){s->touched[i], d->lsn};
		}
		s->commit_lsn = d->lsn;
		if (rng_unit(&c->rng) * 100.0 >= p->lazy_commit_pct && d->durable < d->lsn) {
			s->wait = WL_WAIT_LOG;
			return false;
		}
	}
	if (s->wait == WL_WAIT_LOG && d->durable < s->commit_lsn)
		return false;
	s->wait = WL_WAIT_NONE;
	s->ntouched = 0;
	return true;
}

/* Starts a stream's next transaction; false when open loop has none due. */
static bool stream_begin(struct wl_ctx *c, struct wl_slot *s, uint64_t now)
{
	const struct profile *p = c->prof;
	double u = rng_unit(&c->rng);

	if (c->dbs[s->db].phase != WL_PHASE_RUN)
		return false;
	if (p->arrival == PROFILE_ARRIVAL_RATE) {
		if (c->next_arrival > now) {
			if (c->next_arrival < c->next_due)
				c->next_due = c->next_arrival;
			s->wait = WL_WAIT_ARRIVAL;
			return false;
		}
		s->t_start = c->next_arrival;
		/* Poisson arrivals: exponential gaps */
		c->next_arrival +=
			(uint64_t)(-log(1.0 - rng_unit(&c->rng)) * c->arrival_gap_ns) + 1;
	}
	s->wait = WL_WAIT_NONE;
	s->stalled = 0;
	s->txn = u < c->mix[0]	 ? WL_TXN_INSERT
		 : u < c->mix[1] ? WL_TXN_DELETE
		 : u < c->mix[2] ? WL_TXN_REPLACE
				 : WL_TXN_SEEK;
	s->left = (uint16_t)draw_pages(&c->rng,
				       s->txn == WL_TXN_SEEK ? p->seek_pages : p->update_pages);
	s->ntouched = 0;
	return true;
}

/* The fixed model: a random (or the next sequential) page, read or written
 * by the read share. */
static bool fixed_prepare(struct wl_ctx *c, struct wl_slot *s, uint64_t now)
{
	struct wl_db *d = &c->dbs[s->db];
	const struct profile *p = c->prof;
	bool read = rng_unit(&c->rng) * 100.0 < p->read_pct;

	if (p->pattern == PROFILE_PATTERN_SEQUENTIAL) {
		uint64_t i;

		for (i = 0; i < d->n; i++) {
			if (s->cursor >= d->lo + d->n)
				s->cursor = d->lo;
			if (!(d->busy[s->cursor - d->lo] & (WL_BUSY_IO | WL_BUSY_BAD)))
				break;
			s->cursor++;
		}
		if (i == d->n)
			return false;
		s->page = s->cursor++;
	} else if (!pick_page(c, d, &s->page)) {
		return false;
	}
	wl_page_io_prepare(c, s, read, now);
	return true;
}

bool wl_stream_prepare(struct wl_ctx *c, struct wl_slot *s, uint64_t now)
{
	struct wl_db *d = &c->dbs[s->db];
	const struct profile *p = c->prof;
	bool first;

	if (wl_fixed_model(c))
		return fixed_prepare(c, s, now);
	if (d->phase == WL_PHASE_REPLAY)
		return wl_replay_page_prepare(c, s, now);
	if (!s->left && !stream_begin(c, s, now))
		return false;
	if (!pick_page(c, d, &s->page)) {
		stream_stall(d, s);
		return false;
	}
	first = s->ntouched == 0;
	wl_page_io_prepare(c, s, true, now);
	if (first && s->t_start && p->arrival == PROFILE_ARRIVAL_RATE) {
		/* open loop: the first I/O counts from the intended start */
		s->t_issue = s->t_start;
		s->keep_issue = true;
	}
	return true;
}

void wl_stream_done(struct wl_ctx *c, struct wl_slot *s)
{
	struct wl_db *d = &c->dbs[s->db];
	unsigned si = (unsigned)(s - c->slots);

	if (wl_fixed_model(c)) {
		c->idle[c->nidle++] = si;
		return;
	}
	if (wl_slot_replaying(s)) {
		wl_replay_page_done(c, s);
		return;
	}
	/* a transaction's page read */
	s->touched[s->ntouched++] = s->page;
	if (s->left)
		s->left--;
	if (s->left) {
		c->idle[c->nidle++] = si;
		return;
	}
	if (stream_commit(c, s))
		c->idle[c->nidle++] = si;
	else
		d->waiters[d->nwait++] = si;
}

void wl_wake_waiters(struct wl_ctx *c, struct wl_db *d)
{
	for (unsigned i = 0; i < d->nwait;) {
		struct wl_slot *s = &c->slots[d->waiters[i]];

		if (stream_commit(c, s)) {
			c->idle[c->nidle++] = d->waiters[i];
			d->waiters[i] = d->waiters[--d->nwait];
		} else {
			i++;
		}
	}
}

void wl_arrivals_init(struct wl_ctx *c, double rate, uint64_t now)
{
	c->arrival_gap_ns = rate > 0 ? 1e9 / rate : 1e18;
	c->next_arrival = now;
}
