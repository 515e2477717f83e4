/* SPDX-License-Identifier: MIT */
/*
 * txn.c - the transaction streams: the mix (insert, delete, replace, seek),
 * a transaction's page reads, its commit (dirty pages for the flusher, a
 * record for the log, a wait for the log unless lazy), open-loop arrivals,
 * and the fixed model's stream (one random or sequential page I/O at a time).
 *
 * Each stream runs closed loop: one page I/O at a time, a random page with
 * no I/O in flight, at most one I/O in flight per page. Every random draw is
 * from ctx->rng, in this order per transaction: the type, the page count,
 * each page; then the lazy-commit draw. Open loop's arrival gaps come from
 * ctx->arr_rng, and the same sequence again from the backlog's copy of it,
 * which counts the arrivals ahead of the streams (the tool's own queue).
 */
#include <limits.h>
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

/* A random page index of [0, n): uniform, or with hot_size, hot_pct of the
 * picks in the hot region (the first hot_n pages: an index, say) and the
 * rest in the others. */
static inline uint64_t draw_index(struct wl_ctx *c, const struct wl_db *d)
{
	if (d->hot_n) {
		if (rng_unit(&c->rng) * 100.0 < c->cfg.hot_pct)
			return rng_next(&c->rng) % d->hot_n;
		return d->hot_n + rng_next(&c->rng) % (wl_db_pages(d) - d->hot_n);
	}
	return rng_next(&c->rng) % wl_db_pages(d);
}

/* Picks a page of [lo, lo + n) with no I/O in flight: random tries, then a scan. */
static bool pick_page(struct wl_ctx *c, struct wl_db *d, uint64_t *page)
{
	uint64_t n = wl_db_pages(d), p;

	for (int i = 0; i < 16; i++) {
		p = draw_index(c, d);
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

/* A miss's read ahead (readahead_pct of them): the pages after it that are
 * not cached, busy or bad, up to readahead_size, read with it (and checked)
 * into the cache. Without cache_size nothing keeps them: the read is only
 * the larger I/O (the kernel's readahead for a database reading through
 * the page cache, which the model does not hold). */
static void stream_read_ahead(struct wl_ctx *c, struct wl_db *d, struct wl_slot *s)
{
	const struct wl_config *p = &c->cfg;
	unsigned max = p->readahead_size / p->page_size, np = 1;

	if (rng_unit(&c->rng) * 100.0 >= p->readahead_pct)
		return;
	while (np < max && s->page + np < d->lo + wl_db_pages(d)) {
		uint8_t *b = &d->busy[s->page + np - d->lo];

		if (*b & (WL_BUSY_IO | WL_BUSY_BAD | WL_BUSY_CACHED))
			break;
		*b |= WL_BUSY_IO;
		s->held |= 1ULL << np;
		if (p->cache_size)
			wl_cache_insert(c, d, s->page + np - d->lo);
		np++;
	}
	s->npages = np;
	s->req.len = s->len0 = np * p->page_size;
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
	d->txn.stalls++;
}

/* full_page_writes: the pages the transaction changes first since the
 * checkpoint began, each logged whole (their bit cleared at the next one). */
static unsigned stream_fpi(const struct wl_ctx *c, struct wl_db *d, const struct wl_slot *s)
{
	unsigned n = 0;

	if (!c->cfg.full_page_writes)
		return 0;
	for (unsigned i = 0; i < s->ntouched; i++) {
		uint8_t *b = &d->busy[s->touched[i] - d->lo];

		if (*b & (WL_BUSY_LOGGED | WL_BUSY_BAD))
			continue;
		*b |= WL_BUSY_LOGGED;
		n++;
	}
	d->log.fpi += n;
	return n;
}

/* Commits a stream's transaction: dirty its pages, append its record. false
 * when it must wait (no room in the dirty list, or a non-lazy commit). */
static bool stream_commit(struct wl_ctx *c, struct wl_slot *s)
{
	struct wl_db *d = &c->dbs[s->db];
	const struct wl_config *p = &c->cfg;
	unsigned fresh = 0;

	if (s->txn != WL_TXN_SEEK && s->wait != WL_WAIT_LOG) {
		for (unsigned i = 0; i < s->ntouched; i++)
			fresh += !(d->busy[s->touched[i] - d->lo] & WL_BUSY_DIRTY);
		if (d->flush.len + fresh > d->flush.cap) {
			stream_stall(d, s);
			s->wait = WL_WAIT_DIRTY;
			return false;
		}
		wl_log_append(c, d, s->touched, s->ntouched, stream_fpi(c, d, s));
		for (unsigned i = 0; i < s->ntouched; i++) {
			uint8_t *b = &d->busy[s->touched[i] - d->lo];

			if (*b & (WL_BUSY_DIRTY | WL_BUSY_BAD))
				continue;
			*b |= WL_BUSY_DIRTY;
			d->flush.dirty[(d->flush.head + d->flush.len++) % d->flush.cap] =
				(struct wl_dirty_page){s->touched[i], d->log.lsn, c->now};
		}
		s->commit_lsn = d->log.lsn;
		if (rng_unit(&c->rng) * 100.0 >= p->lazy_commit_pct &&
		    d->log.durable < d->log.lsn) {
			s->wait = WL_WAIT_LOG;
			return false;
		}
	}
	if (s->wait == WL_WAIT_LOG && d->log.durable < s->commit_lsn)
		return false;
	s->wait = WL_WAIT_NONE;
	s->ntouched = 0;
	return true;
}

/* The gap to the next arrival from an arrival RNG: Poisson arrivals,
 * exponential gaps (at least 1 ns). */
static inline uint64_t arrival_gap(const struct wl_ctx *c, uint64_t *rng)
{
	return (uint64_t)(-log(1.0 - rng_unit(rng)) * c->arrival_gap_ns) + 1;
}

/* The backlog held from b->at to t, integrated; the peak is the most held
 * for any time (an arrival begun at its own instant never waited). */
static inline void backlog_hold(struct wl_backlog *b, uint64_t t)
{
	uint64_t n = b->arrived > b->begun ? b->arrived - b->begun : 0;

	if (t <= b->at)
		return;
	b->area += n * (t - b->at);
	if (n)
		b->busy_ns += t - b->at;
	if (n > b->peak)
		b->peak = n;
	b->at = t;
}

void wl_backlog_advance(struct wl_ctx *c, uint64_t t)
{
	struct wl_backlog *b = &c->bl;

	while (b->frontier <= t) {
		backlog_hold(b, b->frontier);
		b->arrived++;
		b->frontier += arrival_gap(c, &b->rng);
	}
	backlog_hold(b, t);
}

void wl_backlog_take(struct wl_ctx *c, uint64_t t, struct wl_backlog_iv *iv)
{
	struct wl_backlog *b = &c->bl;

	wl_backlog_advance(c, t);
	*iv = (struct wl_backlog_iv){b->peak, b->area, b->busy_ns, c->nstreams};
	b->area = b->busy_ns = b->peak = 0;
}

/* Starts a stream's next transaction on database db; false when open loop
 * has none due. */
static bool stream_begin(struct wl_ctx *c, struct wl_slot *s, unsigned db, uint64_t now)
{
	const struct wl_config *p = &c->cfg;
	double u = rng_unit(&c->rng);

	if (p->arrival == PROFILE_ARRIVAL_RATE) {
		if (c->next_arrival > now) {
			if (c->next_arrival < c->next_due)
				c->next_due = c->next_arrival;
			s->wait = WL_WAIT_ARRIVAL;
			return false;
		}
		s->t_start = c->next_arrival;
		c->next_arrival += arrival_gap(c, &c->arr_rng);
		/* it leaves the tool's own queue (counted up to now first) */
		wl_backlog_advance(c, now);
		c->bl.begun++;
	}
	wl_pool_begin(c, s, db, now);
	s->wait = WL_WAIT_NONE;
	s->stalled = 0;
	s->txn = u < c->mix[0]	 ? WL_TXN_INSERT
		 : u < c->mix[1] ? WL_TXN_DELETE
		 : u < c->mix[2] ? WL_TXN_REPLACE
				 : WL_TXN_SEEK;
	s->left = (uint16_t)draw_pages(&c->rng,
				       s->txn == WL_TXN_SEEK ? p->seek_pages : p->update_pages);
	s->nchange = s->left; /* a seek's pages are kept too (not changed) */
	if (s->txn != WL_TXN_SEEK && p->read_pages > 0) {
		/* and the pages it only reads (read_pages), after those */
		unsigned r = (unsigned)p->read_pages;

		if (rng_unit(&c->rng) < p->read_pages - (double)r)
			r++;
		if (s->left + r > WL_TXN_MAX_PAGES)
			r = WL_TXN_MAX_PAGES - s->left;
		s->left = (uint16_t)(s->left + r);
	}
	s->ntouched = 0;
	return true;
}

/* The fixed model: a random (or the next sequential) page of the pool's
 * database, read or written by the read share. */
static bool fixed_prepare(struct wl_ctx *c, struct wl_slot *s, uint64_t now)
{
	const struct wl_config *p = &c->cfg;
	int db = wl_pool_pick(c, now);
	struct wl_db *d;
	bool read;

	if (db < 0 || !wl_pool_duty_ok(c, s, now))
		return false;
	d = &c->dbs[db];
	s->db = (unsigned)db;
	read = rng_unit(&c->rng) * 100.0 < p->read_pct;
	if (p->pattern == PROFILE_PATTERN_SEQUENTIAL) {
		uint64_t i;

		for (i = 0; i < d->n; i++) {
			if (d->txn.seq_next >= d->lo + d->n)
				d->txn.seq_next = d->lo;
			if (!(d->busy[d->txn.seq_next - d->lo] & (WL_BUSY_IO | WL_BUSY_BAD)))
				break;
			d->txn.seq_next++;
		}
		if (i == d->n)
			return false;
		s->page = d->txn.seq_next++;
	} else if (!pick_page(c, d, &s->page)) {
		return false;
	}
	wl_pool_begin(c, s, (unsigned)db, now);
	wl_page_io_prepare(c, s, read, now);
	return true;
}

/* A transaction's page read: kept when it is one it changes (or a seek's). */
static inline void stream_touched(struct wl_slot *s)
{
	if (s->ntouched < s->nchange)
		s->touched[s->ntouched++] = s->page;
}

/* transactions a stream may finish from the cache in one call, before the
 * worker's other work gets a turn */
#define WL_CACHED_TXNS 16

int wl_stream_prepare(struct wl_ctx *c, struct wl_slot *s, uint64_t now)
{
	const struct wl_config *p = &c->cfg;
	unsigned done = 0;
	struct wl_db *d;

	if (wl_fixed_model(c))
		return fixed_prepare(c, s, now) ? WL_STREAM_IO : WL_STREAM_NONE;
again:
	if (!s->left) {
		/* a new unit of work: the pool's database */
		int db = wl_pool_pick(c, now);

		if (db < 0 || !wl_pool_duty_ok(c, s, now))
			return WL_STREAM_NONE;
		if (c->dbs[db].replay.phase == WL_PHASE_REPLAY) {
			s->db = (unsigned)db;
			if (!wl_replay_page_prepare(c, s, now))
				return WL_STREAM_NONE;
			wl_pool_begin(c, s, (unsigned)db, now);
			return WL_STREAM_IO;
		}
		if (!stream_begin(c, s, (unsigned)db, now))
			return WL_STREAM_NONE;
	} else if (wl_slot_replaying(s)) {
		/* the replayed page's write */
		return wl_replay_page_prepare(c, s, now) ? WL_STREAM_IO : WL_STREAM_NONE;
	}
	d = &c->dbs[s->db];
	for (;;) {
		uint8_t *b;

		if (!pick_page(c, d, &s->page)) {
			stream_stall(d, s);
			return WL_STREAM_NONE;
		}
		b = &d->busy[s->page - d->lo];
		if (!(*b & WL_BUSY_CACHED))
			break;
		/* a hit: the page is read from the cache, no I/O */
		*b |= WL_BUSY_REF;
		d->cache.hits++;
		stream_touched(s);
		if (--s->left)
			continue;
		/* every page read: the commit, at once */
		c->now = now;
		if (!stream_commit(c, s)) {
			d->txn.waiters[d->txn.nwait++] = (unsigned)(s - c->slots);
			return WL_STREAM_WAIT;
		}
		d->txn.ended++; /* a transaction ended, from the cache */
		wl_pool_end(c, s);
		if (++done == WL_CACHED_TXNS) {
			c->next_due = now; /* more to do at once: no sleep */
			return WL_STREAM_NONE;
		}
		goto again;
	}
	wl_page_io_prepare(c, s, true, now);
	if (p->cache_size) {
		d->cache.misses++;
		wl_cache_insert(c, d, s->page - d->lo);
	}
	if (p->readahead_size)
		stream_read_ahead(c, d, s);
	if (p->arrival == PROFILE_ARRIVAL_RATE) {
		/* open loop: every I/O of the transaction, not only its first,
		 * has a response time from the transaction's intended start (its
		 * wait for a stream included: open loop without coordinated
		 * omission); its service time still runs from its submission */
		s->t_intended = s->t_start;
		s->has_intended = true;
	}
	return WL_STREAM_IO;
}

void wl_stream_done(struct wl_ctx *c, struct wl_slot *s)
{
	struct wl_db *d = &c->dbs[s->db];
	unsigned si = (unsigned)(s - c->slots);

	if (wl_fixed_model(c)) {
		wl_pool_end(c, s);
		c->idle[c->nidle++] = si;
		return;
	}
	if (wl_slot_replaying(s)) {
		wl_replay_page_done(c, s);
		if (!wl_slot_replaying(s))
			wl_pool_end(c, s); /* its write done */
		return;
	}
	/* a transaction's page read */
	stream_touched(s);
	if (s->left)
		s->left--;
	if (s->left) {
		c->idle[c->nidle++] = si;
		return;
	}
	if (stream_commit(c, s)) {
		d->txn.ended++; /* a transaction ended (diskproof/workload.h) */
		wl_pool_end(c, s);
		c->idle[c->nidle++] = si;
	} else {
		d->txn.waiters[d->txn.nwait++] = si;
	}
}

void wl_wake_waiters(struct wl_ctx *c, struct wl_db *d)
{
	for (unsigned i = 0; i < d->txn.nwait;) {
		struct wl_slot *s = &c->slots[d->txn.waiters[i]];

		if (stream_commit(c, s)) {
			c->dbs[s->db].txn.ended++; /* a transaction ended */
			wl_pool_end(c, s);
			c->idle[c->nidle++] = d->txn.waiters[i];
			d->txn.waiters[i] = d->txn.waiters[--d->txn.nwait];
		} else {
			i++;
		}
	}
}

void wl_arrivals_init(struct wl_ctx *c, double rate, uint64_t now)
{
	c->arrival_gap_ns = rate > 0 ? 1e9 / rate : 1e18;
	c->next_arrival = now;
	c->bl.frontier = c->bl.at = now;
	c->bl.arrived = c->bl.begun = 0;
	c->bl.area = c->bl.busy_ns = c->bl.peak = 0;
}
