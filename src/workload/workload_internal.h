/* SPDX-License-Identifier: MIT */
/*
 * workload_internal.h - what the generators of src/workload/ share among
 * themselves: the test-type tests, filling a slot's request, a page I/O of a
 * stream or the flusher (stamped when it is a write), and the calls from one
 * generator into another (a commit appends to the log, the log and the
 * flusher wake streams, recovery borrows a stream and the replication slot).
 * static inline where they run once per I/O.
 */
#ifndef DISKPROOF_WORKLOAD_INTERNAL_H
#define DISKPROOF_WORKLOAD_INTERNAL_H

#include "diskproof/page.h"
#include "diskproof/plan.h"
#include "diskproof/profile.h"
#include "diskproof/stats.h"
#include "diskproof/workload.h"

static inline bool wl_fixed_model(const struct wl_ctx *c)
{
	return c->cfg.model == PROFILE_MODEL_FIXED;
}

static inline bool wl_backup_test(const struct wl_ctx *c)
{
	return c->cfg.type == PROFILE_TEST_BACKUP;
}

static inline bool wl_recovery_test(const struct wl_ctx *c)
{
	return c->cfg.type == PROFILE_TEST_RECOVERY;
}

static inline uint64_t wl_seg_size(const struct wl_ctx *c)
{
	return c->cfg.log_segment_size;
}

static inline void wl_slot_request(struct wl_slot *s, uint8_t op, uint8_t cls, uint16_t flags,
				   uint32_t file, uint64_t offset, uint32_t len, uint64_t now)
{
	s->req.op = op;
	s->req.cls = cls;
	s->req.flags = flags;
	s->req.file = file;
	s->req.offset = offset;
	s->req.len = len;
	s->req.buf = s->buf;
	s->off0 = offset;
	s->len0 = len;
	s->t_issue = now;
	s->has_intended = false;
}

/* Stamps page's write at buf with its next generation, which it returns. */
static inline uint64_t wl_stamp_page(struct wl_ctx *c, struct wl_db *d, uint64_t page, void *buf)
{
	const struct wl_config *p = &c->cfg;
	uint64_t gen = wl_next_gen(d->expect[page - d->lo]);

	page_stamp(buf, p->page_size, PAGE_KIND_DB, d->pdb->id, page, gen, (uint64_t)c->run_id,
		   p->seed, c->full);
	if (c->stamped)
		c->stamped(c->stamped_arg);
	return gen;
}

/* Stamps a page write with the page's next generation. */
static inline void wl_slot_stamp_write(struct wl_ctx *c, struct wl_slot *s, struct wl_db *d)
{
	s->gen = wl_stamp_page(c, d, s->page, s->buf);
}

/* A page I/O of a stream or the flusher on page s->page. */
static inline void wl_page_io_prepare(struct wl_ctx *c, struct wl_slot *s, bool read, uint64_t now)
{
	struct wl_db *d = &c->dbs[s->db];
	const struct wl_config *p = &c->cfg;

	d->busy[s->page - d->lo] |= WL_BUSY_IO;
	s->npages = 1; /* a read ahead or a merged write adds pages after this */
	s->held = 1;
	/* a durability test's page writes are write-through: each completion
	 * is its durability point (the witness is told of it) */
	wl_slot_request(s, read ? ENGINE_OP_READ : ENGINE_OP_WRITE, read ? IO_DB_READ : IO_DB_WRITE,
			!read && p->type == PROFILE_TEST_DURABILITY ? ENGINE_RF_DSYNC : 0,
			wl_file_db(s->db), d->pdb->base + s->page * p->page_size, p->page_size,
			now);
	if (!read)
		wl_slot_stamp_write(c, s, d);
}

/* batch.c's state of database d (c->batch set) */
static inline struct wl_db_batch *wl_batch(struct wl_ctx *c, const struct wl_db *d)
{
	return &c->batch[d - c->dbs];
}

/* flush.c: the oldest dirty page's write on a free flusher slot (NULL: none
 * may go now), and whether a stream waits for room in the dirty list */
struct wl_slot *wl_flush_oldest(struct wl_ctx *c, struct wl_db *d, uint64_t now);
bool wl_flush_dirty_waited(const struct wl_ctx *c, const struct wl_db *d);
/* batch.c: a flusher write completed (its slot is free again) */
void wl_batch_write_done(struct wl_ctx *c, struct wl_db *d);
/* txn.c: streams of d waiting for the log or the flusher that may go on */
void wl_wake_waiters(struct wl_ctx *c, struct wl_db *d);
/* log.c: appends a commit record naming pages[0..n) to d's log buffer, and
 * fpi whole pages (full-page images) */
void wl_log_append(struct wl_ctx *c, struct wl_db *d, const uint64_t *pages, unsigned n,
		   unsigned fpi);
/* cache.c: puts page (d's index i) into the cache model (a read of it issued) */
void wl_cache_insert(struct wl_ctx *c, struct wl_db *d, uint64_t i);
/* pool.c: the database a stream's next unit of work goes to (-1: none),
 * whether a part-time stream may start one now, and a unit's start and end */
int wl_pool_pick(struct wl_ctx *c, uint64_t now);
bool wl_pool_duty_ok(struct wl_ctx *c, struct wl_slot *s, uint64_t now);
void wl_pool_begin(struct wl_ctx *c, struct wl_slot *s, unsigned db, uint64_t now);
void wl_pool_end(struct wl_ctx *c, struct wl_slot *s);
/* recovery.c: a stream's replay I/O (false: none now), and its completion */
bool wl_replay_page_prepare(struct wl_ctx *c, struct wl_slot *s, uint64_t now);
void wl_replay_page_done(struct wl_ctx *c, struct wl_slot *s);
/* recovery.c: the next piece of the segment being replayed, and its end */
bool wl_replay_read_prepare(struct wl_ctx *c, struct wl_db *d, struct wl_slot *s, uint64_t now);
void wl_replay_read_done(struct wl_ctx *c, struct wl_db *d, struct wl_slot *s);

#endif
