/* SPDX-License-Identifier: MIT */
/*
 * workload_harness.h - drives the generators of src/workload/ alone, through
 * their narrow context, with the worker's own turn and completion (wl_turn,
 * wl_complete); completions come back from a tiny device model (a fixed
 * latency per slot kind, completed in time order). The log file is an image in
 * memory, so replication reads return what the log wrote. Hooks let a test
 * watch every request as it is issued and completed.
 */
#ifndef DP_TEST_WORKLOAD_HARNESS_H
#define DP_TEST_WORKLOAD_HARNESS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diskproof/page.h"
#include "diskproof/plan.h"
#include "diskproof/profile.h"
#include "diskproof/workload.h"

#define H_MAX_DB 2

struct harness;
typedef void (*h_hook)(struct harness *h, struct wl_slot *s);

struct harness {
	struct profile p;
	struct plan_db pdb[H_MAX_DB];
	struct wl_db dbs[H_MAX_DB];
	unsigned ndb;
	unsigned streams[H_MAX_DB];
	struct wl_slot *slots;
	unsigned nslots, *idle;
	struct wl_ctx c;
	int64_t run_id;
	uint8_t *log[H_MAX_DB]; /* each database's log file */
	uint64_t lat[6];	/* ns per request, by enum wl_slot_kind */
	uint64_t *due;		/* per slot: completion time while in flight */
	uint64_t now;
	bool no_streams;	  /* draining: no stream issues */
	h_hook on_issue, on_done; /* before the generator's *_done */
	void *arg;
};

/* A jetstress profile, small: 4 KiB pages, 512-byte log blocks, 4 segments
 * of 64 KiB; a test changes what it needs before h_start. */
static inline void h_profile(struct harness *h)
{
	struct profile *p = &h->p;

	memset(h, 0, sizeof(*h));
	p->type = PROFILE_TEST_PERFORMANCE;
	p->model = PROFILE_MODEL_JETSTRESS;
	p->page_size = 4096;
	p->log_record_size = 128;
	p->seed = 1;
	p->verify = true;
	p->insert_pct = 40, p->delete_pct = 20, p->replace_pct = 5, p->seek_pct = 35;
	p->lazy_commit_pct = 70;
	p->seek_pages = 1.3;
	p->update_pages = 2.5;
	p->flush_depth = 4;
	p->log_segments = 4;
	p->log_segment_size = 64 * 1024;
	p->copies = 1;
	p->backup_io_size = 64 * 1024;
	p->bdm_io_size = 64 * 1024;
	p->bdm_rate = 1 << 20;
	p->recovery_segments = 2;
	h->ndb = 1;
	h->streams[0] = 4;
	for (unsigned k = 0; k < 6; k++)
		h->lat[k] = 100000; /* 100 us */
	h->run_id = 7;
}

static inline void h_start(struct harness *h, uint64_t pages)
{
	unsigned nstreams = 0;

	for (unsigned i = 0; i < h->ndb; i++) {
		struct plan_db *pdb = &h->pdb[i];
		struct wl_db *d = &h->dbs[i];

		snprintf(pdb->name, sizeof(pdb->name), "db%u", i + 1);
		pdb->id = i + 1;
		pdb->nr_pages = pages;
		pdb->log_size = (uint64_t)h->p.log_segments * h->p.log_segment_size;
		d->pdb = pdb;
		d->lo = 0;
		d->n = pages;
		d->log_align = 512;
		d->expect = calloc(pages, sizeof(*d->expect));
		d->busy = calloc(pages, 1);
		for (uint64_t k = 0; k < pages; k++)
			d->expect[k] = 1;
		h->log[i] = calloc(1, pdb->log_size);
		nstreams += h->streams[i];
	}
	h->nslots = wl_slot_count(&h->p, h->ndb, nstreams);
	h->slots = calloc(h->nslots, sizeof(*h->slots));
	h->idle = calloc(h->nslots, sizeof(*h->idle));
	h->due = calloc(h->nslots, sizeof(*h->due));
	if (wl_ctx_init(&h->c, &h->p, 0, h->dbs, h->ndb, nstreams, h->slots, h->nslots, h->idle) ||
	    wl_slots_place(&h->c, 1, h->now))
		abort();
	h->c.run_id = h->run_id;
	h->c.full = true;
	for (unsigned i = 0; i < h->nslots; i++) {
		h->slots[i].buf = aligned_alloc(4096, (h->slots[i].buf_len + 4095) / 4096 * 4096);
		memset(h->slots[i].buf, 0, h->slots[i].buf_len);
		h->slots[i].req.owner = &h->slots[i];
	}
}

static inline void h_release(struct harness *h)
{
	wl_ctx_release(&h->c);
	for (unsigned i = 0; i < h->nslots; i++)
		free(h->slots[i].buf);
	for (unsigned i = 0; i < h->ndb; i++) {
		free(h->dbs[i].expect);
		free(h->dbs[i].busy);
		free(h->log[i]);
	}
	free(h->slots);
	free(h->idle);
	free(h->due);
}

/* wl_turn's queue: the slot completes after its kind's latency. */
static inline bool h_queue(void *arg, struct wl_slot *s, uint64_t now)
{
	struct harness *h = arg;

	h->due[s - h->slots] = now + h->lat[s->kind];
	if (h->on_issue)
		h->on_issue(h, s);
	return true;
}

/* One turn of the generators, the worker's (wl_turn); draining
 * (no_streams), with the idle streams kept out of it. */
static inline void h_issue(struct harness *h)
{
	unsigned nidle = h->c.nidle;

	if (h->no_streams)
		h->c.nidle = 0; /* nothing completes during a turn: restored as is */
	wl_turn(&h->c, h->now, h_queue, h);
	if (h->no_streams)
		h->c.nidle = nidle;
}

/* wl_check.log: the log wrote what replication read */
static inline void h_check_log(void *arg, struct wl_db *d, struct wl_slot *s)
{
	struct harness *h = arg;
	uint64_t b, o;

	if (wl_repl_check(&h->c, d, s, &b, &o))
		abort();
}

/* The device's part of a completion (the log image read or written), the
 * test's hook, then the worker's (wl_complete: no page is checked). */
static inline void h_complete(struct harness *h, struct wl_slot *s)
{
	const struct wl_db *d = &h->c.dbs[s->db];

	s->req.result = s->req.len;
	s->req.t_done_ns = h->now;
	if (wl_slot_on_log(s)) {
		uint8_t *img = h->log[s->db] + (s->off0 - d->pdb->log_base);

		if (s->req.op == ENGINE_OP_WRITE)
			memcpy(img, s->buf, s->len0);
		else
			memcpy(s->buf, img, s->len0);
	}
	if (h->on_done)
		h->on_done(h, s);
	wl_complete(&h->c, s, true, &(const struct wl_check){.log = h_check_log, .arg = h});
}

/* Issues, then completes what is due first (in slot order at equal times).
 * false when nothing is in flight. */
static inline bool h_step(struct harness *h)
{
	uint64_t t = UINT64_MAX;

	h_issue(h);
	for (unsigned i = 0; i < h->nslots; i++)
		if (h->slots[i].inflight && h->due[i] < t)
			t = h->due[i];
	if (t == UINT64_MAX) {
		/* nothing in flight: on to the next timed event, if any (as
		 * the worker sleeps until it) */
		if (h->c.next_due == UINT64_MAX || h->c.next_due <= h->now)
			return false;
		h->now = h->c.next_due;
		return true;
	}
	h->now = t;
	for (unsigned i = 0; i < h->nslots; i++)
		if (h->slots[i].inflight && h->due[i] == t)
			h_complete(h, &h->slots[i]);
	return true;
}

#endif
