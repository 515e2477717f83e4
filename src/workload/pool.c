/* SPDX-License-Identifier: MIT */
/*
 * pool.c - the stream pool: the database each unit of work of a stream goes
 * to, and the stream time each database has had.
 *
 * Streams belong to no database: each time a stream starts
 * a unit of work (a transaction, from its first page read to its commit
 * done; a replayed page; a fixed-model I/O) it takes the worker's database
 * with the least stream time so far, ties in round robin, and that unit's
 * state (pages, dirty list, log record, commit wait) is that database's
 * until it ends. Stream time is kept per database as three worker-local
 * numbers (finished time, units under way, the sum of their starts), so
 * the time up to any instant is one multiply-add: no lock, no atomic, and
 * the choice is a scan of the worker's databases once per unit. Each
 * database's time-averaged number of streams then stays within one unit's
 * length of every other's: on a uniform device, equal transactional IOPS
 * at any stream count, fewer streams than databases included. A part-time
 * stream (duty below 1: the worker's fraction of a stream, plan/workers.c)
 * starts a unit only while its own busy time is below duty x elapsed.
 */
#include <limits.h>

#include "workload_internal.h"

static inline uint64_t pool_rel(const struct wl_ctx *c, uint64_t t)
{
	return t > c->t0 ? t - c->t0 : 0;
}

uint64_t wl_db_stream_ns(const struct wl_ctx *c, const struct wl_db *d, uint64_t t)
{
	uint64_t run = (uint64_t)d->pool.act * pool_rel(c, t);

	/* units begun after t (a snapshot taken late) count from t: nothing */
	return d->pool.done + (run > d->pool.starts ? run - d->pool.starts : 0);
}

/* May database d take a new unit of work now? */
static bool pool_open(const struct wl_db *d)
{
	if (d->replay.phase == WL_PHASE_RUN)
		return true;
	return d->replay.phase == WL_PHASE_REPLAY && d->replay.len;
}

/* The worker's database with the fewest streams at work on it now, and of
 * those the least stream time up to now (ties: the next in round robin);
 * -1 when none takes work. Fewest at work first keeps each database's
 * concurrency within one stream of every other's at every instant (as
 * streams bound evenly would, so commits batch into log writes as they do
 * there); the least time then evens out the remainder over time. */
int wl_pool_pick(struct wl_ctx *c, uint64_t now)
{
	uint64_t best_ns = UINT64_MAX;
	unsigned best_act = UINT_MAX, nbest = 0;
	int best = -1;

	/* the fewest at work: most often one database alone, and then its
	 * stream time need not be read (a pick per transaction) */
	for (unsigned k = 0; k < c->ndb; k++) {
		unsigned i = c->rr + k < c->ndb ? c->rr + k : c->rr + k - c->ndb;
		const struct wl_db *d = &c->dbs[i];

		if (!pool_open(d) || d->pool.act > best_act)
			continue;
		if (d->pool.act < best_act) {
			best_act = d->pool.act;
			best = (int)i;
			nbest = 1;
		} else {
			nbest++;
		}
	}
	if (nbest < 2)
		return best;
	for (unsigned k = 0; k < c->ndb; k++) {
		unsigned i = c->rr + k < c->ndb ? c->rr + k : c->rr + k - c->ndb;
		const struct wl_db *d = &c->dbs[i];
		uint64_t ns;

		if (d->pool.act != best_act || !pool_open(d))
			continue;
		ns = wl_db_stream_ns(c, d, now);
		if (ns < best_ns) {
			best_ns = ns;
			best = (int)i;
		}
	}
	return best;
}

/* A part-time stream that has had its share so far waits (false), and
 * asks to be woken when it may go again. */
bool wl_pool_duty_ok(struct wl_ctx *c, struct wl_slot *s, uint64_t now)
{
	uint64_t due;

	if (s->duty >= 1 || (double)s->busy_ns <= s->duty * (double)pool_rel(c, now))
		return true;
	due = c->t0 + (uint64_t)((double)s->busy_ns / s->duty) + 1;
	if (due < c->next_due)
		c->next_due = due;
	return false;
}

/* Stream s starts a unit of work on database db. */
void wl_pool_begin(struct wl_ctx *c, struct wl_slot *s, unsigned db, uint64_t now)
{
	struct wl_db *d = &c->dbs[db];

	s->db = db;
	s->working = true;
	s->t_begin = pool_rel(c, now);
	d->pool.act++;
	d->pool.starts += s->t_begin;
	c->rr = db + 1 < c->ndb ? db + 1 : 0;
}

/* Stream s's unit of work ended at c->now. */
void wl_pool_end(struct wl_ctx *c, struct wl_slot *s)
{
	struct wl_db *d = &c->dbs[s->db];
	uint64_t t = pool_rel(c, c->now), ns = t > s->t_begin ? t - s->t_begin : 0;

	if (!s->working)
		return;
	s->working = false;
	d->pool.act--;
	d->pool.starts -= s->t_begin;
	d->pool.done += ns;
	s->busy_ns += ns;
}
