/* SPDX-License-Identifier: MIT */
/*
 * recovery.c - the recovery test's replay: a database runs transactions
 * until it has written recovery_segments log segments, drains (the flusher
 * and the log finish, every stream stops), then replays: it reads each
 * segment in pieces (through the replication slot), and its streams apply
 * the pages the pieces' record tables name (read the page, write it back),
 * piece after piece. The time and the pages of each segment's replay are
 * kept for the run's figures.
 *
 * Without page content (the sim engine keeps none, so a log read returns no
 * record tables) the log writer counts the records it wrote into each
 * segment instead (replay.recs), and a replayed piece names its share of them,
 * pro rata to its length, as pages drawn from ctx->rng over the database's
 * range: the same number of page reads and writes as on a real log, each
 * page as likely as a transaction's, and the same figures for a seed.
 */
#include <string.h>

#include "../util/rng.h"
#include "workload_internal.h"

void wl_recovery_step(struct wl_ctx *c, unsigned db)
{
	const struct wl_config *p = &c->cfg;
	struct wl_db *d = &c->dbs[db];

	if (d->replay.phase == WL_PHASE_RUN && d->replay.segs_closed >= p->recovery_segments)
		d->replay.phase = WL_PHASE_DRAIN;
	if (d->replay.phase != WL_PHASE_DRAIN || d->flush.len || d->flush.nfree < p->flush_depth ||
	    d->log.busy || d->log.sync_due || d->log.lsn != d->log.issued || d->repl.busy ||
	    d->repl.qlen || d->txn.nwait)
		return;
	for (unsigned i = 0; i < c->nslots; i++) {
		const struct wl_slot *s = &c->slots[i];

		if (s->kind == WL_SLOT_STREAM && s->db == db && (s->left || s->inflight))
			return;
	}
	d->replay.phase = WL_PHASE_REPLAY;
	d->replay.seg = 0;
	d->replay.off = 0;
}

bool wl_replay_read_prepare(struct wl_ctx *c, struct wl_db *d, struct wl_slot *s, uint64_t now)
{
	uint64_t len;

	/* the next piece of the segment being replayed, once the pages of the
	 * last one are applied */
	if (d->repl.busy || d->replay.len || d->replay.active || d->replay.off >= wl_seg_size(c))
		return false;
	if (!d->replay.off)
		d->replay.t0 = now;
	len = wl_seg_size(c) - d->replay.off;
	if (len > s->buf_len)
		len = s->buf_len;
	s->page = d->replay.seg;
	wl_slot_request(s, ENGINE_OP_READ, IO_LOG_READ, 0, wl_file_log(s->db),
			d->pdb->log_base + (uint64_t)d->replay.seg * wl_seg_size(c) + d->replay.off,
			(uint32_t)len, now);
	d->repl.busy = true;
	return true;
}

/* The pages the records of a replayed piece name, to apply. */
static void replay_parse(struct wl_db *d, const struct wl_slot *s)
{
	const uint32_t bs = d->log_align;

	for (uint64_t o = 0; o + bs <= s->len0; o += bs) {
		const char *blk = (const char *)s->buf + o;
		struct log_records lr;

		memcpy(&lr, blk + PAGE_HEADER_SIZE, sizeof(lr));
		if (lr.magic != LOG_RECORDS_MAGIC || lr.count > log_records_capacity(bs))
			continue; /* no records (or reported by the check) */
		for (uint32_t i = 0; i < lr.count && d->replay.len < d->replay.cap; i++) {
			uint64_t pg;

			memcpy(&pg, blk + PAGE_HEADER_SIZE + sizeof(lr) + 8 * i, 8);
			if (pg < d->lo || pg >= d->lo + d->n)
				continue;
			d->replay.pages[(d->replay.head + d->replay.len++) % d->replay.cap] = pg;
		}
	}
}

/* No page content: the piece [off, off + len) of the segment names its
 * share of the records written into it, as pages drawn at random. */
static void replay_draw(struct wl_ctx *c, struct wl_db *d, uint64_t off, uint64_t len)
{
	uint64_t seg = wl_seg_size(c), recs = d->replay.recs[d->replay.seg];
	uint64_t n = recs * (off + len) / seg - recs * off / seg;

	for (uint64_t i = 0; i < n && d->replay.len < d->replay.cap; i++)
		d->replay.pages[(d->replay.head + d->replay.len++) % d->replay.cap] =
			d->lo + rng_next(&c->rng) % d->n;
}

/* The segment's pieces read and its pages applied? Then the next one. */
static void replay_check_segment(struct wl_ctx *c, struct wl_db *d, uint64_t now)
{
	if (d->replay.phase != WL_PHASE_REPLAY || d->repl.busy || d->replay.len ||
	    d->replay.active || d->replay.off < wl_seg_size(c))
		return;
	d->replay.ns[d->replay.seg] = now - d->replay.t0;
	d->replay.seg++;
	d->replay.off = 0;
	if (d->replay.seg >= c->cfg.recovery_segments)
		d->replay.phase = WL_PHASE_DONE;
}

void wl_replay_read_done(struct wl_ctx *c, struct wl_db *d, struct wl_slot *s)
{
	if (c->full)
		replay_parse(d, s);
	else
		replay_draw(c, d, d->replay.off, s->len0);
	d->replay.off += s->len0;
	replay_check_segment(c, d, s->req.t_done_ns);
}

bool wl_replay_page_prepare(struct wl_ctx *c, struct wl_slot *s, uint64_t now)
{
	struct wl_db *d = &c->dbs[s->db];

	/* read a page a record names, then write it */
	if (s->left) {
		wl_page_io_prepare(c, s, false, now);
		s->left = 0;
		return true;
	}
	while (d->replay.len && (d->busy[d->replay.pages[d->replay.head] - d->lo] & WL_BUSY_BAD)) {
		/* found bad: not replayed over */
		d->replay.head = (d->replay.head + 1) % d->replay.cap;
		d->replay.len--;
	}
	if (!d->replay.len || (d->busy[d->replay.pages[d->replay.head] - d->lo] & WL_BUSY_IO))
		return false;
	s->page = d->replay.pages[d->replay.head];
	d->replay.head = (d->replay.head + 1) % d->replay.cap;
	d->replay.len--;
	d->replay.active++;
	s->txn = WL_TXN_REPLAY;
	wl_page_io_prepare(c, s, true, now);
	return true;
}

void wl_replay_page_done(struct wl_ctx *c, struct wl_slot *s)
{
	struct wl_db *d = &c->dbs[s->db];

	/* the page read, its write next; or both done */
	if (s->req.op == ENGINE_OP_READ) {
		s->left = 1;
		d->busy[s->page - d->lo] |= WL_BUSY_IO; /* held for its write */
	} else {
		s->txn = WL_TXN_SEEK;
		d->replay.active--;
		d->replay.count[d->replay.seg]++;
		replay_check_segment(c, d, s->req.t_done_ns);
	}
	c->idle[c->nidle++] = (unsigned)(s - c->slots);
}
