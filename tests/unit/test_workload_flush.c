/* SPDX-License-Identifier: MIT */
/*
 * test_workload_flush.c - the flusher driven alone (flush.c): never more
 * than flush_depth page writes of a database in flight; a page written only
 * once the log records that dirtied it are durable (write-ahead), and never
 * while another I/O is in flight on it; the dirty list never holds more than
 * its capacity, streams waiting for room instead (and going on once the
 * flusher makes it).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "workload_harness.h"

struct watch {
	unsigned flushes, max_inflight, early, overlap, over_cap, dirty_waits;
};

static void on_issue(struct harness *h, struct wl_slot *s)
{
	struct watch *w = h->arg;
	const struct wl_db *d = &h->dbs[s->db];
	unsigned n = 0;

	if (d->flush.len > d->flush.cap)
		w->over_cap++;
	if (s->kind != WL_SLOT_FLUSH)
		return;
	w->flushes++;
	for (unsigned i = 0; i < h->nslots; i++) {
		const struct wl_slot *o = &h->slots[i];

		if (!o->inflight || o->db != s->db)
			continue;
		if (o->kind == WL_SLOT_FLUSH)
			n++;
		if (o != s && (o->kind == WL_SLOT_STREAM || o->kind == WL_SLOT_FLUSH) &&
		    o->page == s->page)
			w->overlap++;
	}
	if (n > w->max_inflight)
		w->max_inflight = n;
}

/* After each step: streams waiting for room, and the dirty list's pages
 * still marked dirty, none past the log's end. */
static void check_write_ahead(struct harness *h, struct watch *w)
{
	const struct wl_db *d = &h->dbs[0];

	for (unsigned i = 0; i < h->nslots; i++) {
		const struct wl_slot *s = &h->slots[i];

		if (s->kind == WL_SLOT_STREAM && s->wait == WL_WAIT_DIRTY)
			w->dirty_waits++;
	}
	/* every dirty page not yet written: its record durable or in the log
	 * buffer, never written ahead of it */
	for (unsigned k = 0; k < d->flush.len; k++) {
		const struct wl_dirty_page *dp =
			&d->flush.dirty[(d->flush.head + k) % d->flush.cap];

		assert_true(dp->lsn <= d->log.lsn);
		assert_true(d->busy[dp->page] & WL_BUSY_DIRTY);
	}
}

/* A flush write as issued: the dirty entry it took (the ring's last head)
 * names its page, and that page's records are durable by then. */
static void on_issue_wa(struct harness *h, struct wl_slot *s)
{
	struct watch *w = h->arg;
	const struct wl_db *d = &h->dbs[s->db];
	const struct wl_dirty_page *dp =
		&d->flush.dirty[(d->flush.head + d->flush.cap - 1) % d->flush.cap];

	on_issue(h, s);
	if (s->kind != WL_SLOT_FLUSH)
		return;
	assert_true(dp->page == s->page);
	if (dp->lsn > d->log.durable)
		w->early++;
}

static void test_flusher_bound(void **state)
{
	struct harness h;
	struct watch w = {0};
	uint64_t steps = 0;

	(void)state;
	h_profile(&h);
	h.p.flush_depth = 3;
	h.p.lazy_commit_pct = 100; /* commits never wait for the log: the flusher must */
	h.streams[0] = 32;
	h.on_issue = on_issue_wa;
	h.arg = &w;
	/* page writes slow: dirty pages pile up, the list fills */
	h.lat[WL_SLOT_FLUSH] = 2 * 1000000;
	h.lat[WL_SLOT_LOG] = 1000000;
	h_start(&h, 16384); /* a dirty list of 4096 pages */
	while (steps++ < 1000000 && w.flushes < 5000) {
		assert_true(h_step(&h));
		check_write_ahead(&h, &w);
	}
	assert_true(w.flushes >= 5000);
	assert_int_equal(w.max_inflight, 3);
	assert_int_equal(w.overlap, 0);
	assert_int_equal(w.early, 0);
	assert_int_equal(w.over_cap, 0);
	assert_true(w.dirty_waits > 0); /* the list filled: streams waited for room */
	h_release(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flusher_bound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
