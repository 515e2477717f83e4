/* SPDX-License-Identifier: MIT */
/*
 * test_workload_batch.c - the flusher in batches (batch.c), driven alone:
 * - doublewrite with data_flush = per_batch: each batch is one sequential
 *   write of k pages to the area at the end of the database (k at most the
 *   area and flush_depth), then a flush of the file, then the same k pages
 *   written in place, one page each, only once that flush is done, then a
 *   flush once all of them are (data_flush_count of them, one after the
 *   other); no transaction touches the area, whose
 *   pages' generations move on with each doublewrite write;
 * - data_flush = rate: flushes of the database file at the rate, never two
 *   closer than its interval, the page writes as without it;
 * - cleaner_interval: page writes only in passes, at most cleaner_pages a
 *   pass, each pass's writes in a burst at its start; with cleaner_spread,
 *   spread over the interval: a pass's k-th page (or, in batches, the page
 *   beginning its batch) no earlier than k / the pass's pages into it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "diskproof/stats.h"
#include "workload_harness.h"

#define PAGES 4096

/* doublewrite: the order of a batch's I/O, as a state per step */
enum { B_IDLE, B_DW, B_DW_DONE, B_DW_FLUSH, B_WRITES, B_FLUSH, B_FLUSHED };

struct bwatch {
	unsigned phase, k, released, done;
	unsigned count, nflushed; /* per_batch's flushes a batch, and this one's so far */
	unsigned batches, dw_pages, writes, fsyncs, stream_in_area;
	uint64_t area; /* its first page */
	uint64_t last_fsync, min_gap;
	uint64_t t_writes[8192];
};

static void on_issue_dw(struct harness *h, struct wl_slot *s)
{
	struct bwatch *w = h->arg;
	uint32_t ps = h->p.page_size;

	if (s->kind == WL_SLOT_STREAM) {
		w->stream_in_area += s->page >= w->area;
		return;
	}
	if (s->kind == WL_SLOT_BATCH && s->req.op == ENGINE_OP_WRITE) {
		assert_int_equal(w->phase, B_IDLE);
		assert_int_equal(s->req.offset, w->area * ps);
		w->k = s->req.len / ps;
		assert_int_equal(s->req.len, w->k * ps);
		assert_true(w->k >= 1 && w->k <= h->dbs[0].dw_n && w->k <= h->p.flush_depth);
		w->phase = B_DW;
		w->batches++;
		w->dw_pages += w->k;
	} else if (s->kind == WL_SLOT_BATCH) {
		assert_int_equal(s->req.op, ENGINE_OP_FSYNC);
		assert_int_equal(s->req.cls, IO_DB_FLUSH);
		assert_int_equal(s->req.file, wl_file_db(0));
		if (w->phase == B_DW_DONE)
			w->phase = B_DW_FLUSH;
		else if ((w->phase == B_WRITES && w->done == w->k) || w->phase == B_FLUSHED)
			w->phase = B_FLUSH;
		else
			fail_msg("a flush in phase %u (%u of %u written)", w->phase, w->done, w->k);
		w->fsyncs++;
	} else if (s->kind == WL_SLOT_FLUSH) {
		assert_int_equal(w->phase, B_WRITES);
		assert_true(w->released < w->k);
		assert_true(s->page < w->area);
		assert_int_equal(s->req.offset, s->page * ps);
		assert_int_equal(s->req.len, ps);
		w->released++;
		w->writes++;
	}
}

static void on_done_dw(struct harness *h, struct wl_slot *s)
{
	struct bwatch *w = h->arg;

	(void)h;
	if (s->kind == WL_SLOT_FLUSH) {
		w->done++;
	} else if (s->kind == WL_SLOT_BATCH && s->req.op == ENGINE_OP_WRITE) {
		assert_int_equal(w->phase, B_DW);
		w->phase = B_DW_DONE;
	} else if (s->kind == WL_SLOT_BATCH) {
		if (w->phase == B_DW_FLUSH) {
			w->phase = B_WRITES;
			w->released = w->done = 0;
		} else {
			assert_int_equal(w->phase, B_FLUSH);
			/* data_flush_count: that many, one after the other */
			w->phase = ++w->nflushed < (w->count ? w->count : 1) ? B_FLUSHED : B_IDLE;
			if (w->phase == B_IDLE)
				w->nflushed = 0;
		}
	}
}

/* count: data_flush_count (0: the key's default) */
static void doublewrite_per_batch(unsigned count)
{
	struct harness h;
	struct bwatch *w = calloc(1, sizeof(*w));
	uint64_t steps = 0;
	const struct wl_db *d = &h.dbs[0];
	unsigned f = count ? count + 1 : 2; /* flushes a batch */

	h_profile(&h);
	if (count)
		h.p.data_flush_count = count;
	w->count = count;
	h.p.flush_depth = 6;
	h.p.doublewrite = true;
	h.p.doublewrite_size = 8 * 4096; /* 8 pages: batches of up to 6 */
	h.p.data_flush = PROFILE_DATA_FLUSH_PER_BATCH;
	h.p.lazy_commit_pct = 100;
	h.streams[0] = 16;
	h.on_issue = on_issue_dw;
	h.on_done = on_done_dw;
	h.arg = w;
	h_start(&h, PAGES);
	assert_int_equal(d->dw_n, 8);
	w->area = PAGES - 8;
	while (steps++ < 2000000 && w->batches < 500)
		assert_true(h_step(&h));
	assert_true(w->batches >= 500);
	/* each batch: its pages twice (area, then in place), two flushes (the
	 * doublewrite's and per_batch's), or 1 + data_flush_count */
	assert_true(w->writes + w->k >= w->dw_pages && w->writes <= w->dw_pages);
	assert_true(w->fsyncs + f >= f * w->batches && w->fsyncs <= f * w->batches);
	assert_true(w->dw_pages > w->batches); /* batches of more than a page */
	assert_int_equal(w->stream_in_area, 0);
	assert_true(h.c.batch[0].flushes + f >= f * w->batches);
	/* the area's pages were written: their generations moved on */
	assert_true(d->expect[w->area] > 1);
	for (uint64_t p = w->area; p < PAGES; p++)
		assert_false(d->busy[p] & WL_BUSY_DIRTY);
	h_release(&h);
	free(w);
}

static void test_doublewrite_per_batch(void **state)
{
	(void)state;
	doublewrite_per_batch(0);
}

/* data_flush_count = 3: three flushes after each batch's in-place writes,
 * one after the other, then the next batch */
static void test_doublewrite_flush_count(void **state)
{
	(void)state;
	doublewrite_per_batch(3);
}

static void on_issue_rate(struct harness *h, struct wl_slot *s)
{
	struct bwatch *w = h->arg;

	if (s->kind == WL_SLOT_FLUSH)
		w->writes++;
	if (s->kind != WL_SLOT_BATCH)
		return;
	assert_int_equal(s->req.op, ENGINE_OP_FSYNC);
	if (w->fsyncs && h->now - w->last_fsync < w->min_gap)
		w->min_gap = h->now - w->last_fsync;
	w->last_fsync = h->now;
	w->fsyncs++;
}

static void test_data_flush_rate(void **state)
{
	struct harness h;
	struct bwatch *w = calloc(1, sizeof(*w));
	uint64_t steps = 0;

	(void)state;
	h_profile(&h);
	h.p.data_flush = PROFILE_DATA_FLUSH_RATE;
	h.p.data_flush_rate = 50; /* every 20 ms */
	h.on_issue = on_issue_rate;
	h.arg = w;
	w->min_gap = UINT64_MAX;
	h_start(&h, PAGES);
	while (steps++ < 5000000 && h.now < 2 * NSEC_PER_SEC)
		assert_true(h_step(&h));
	/* 2 s at 50/s: 100 (the first one 20 ms in), writes all along */
	assert_true(w->fsyncs >= 98 && w->fsyncs <= 100);
	assert_true(w->min_gap >= 20 * NSEC_PER_MSEC);
	assert_true(w->writes > 1000);
	assert_int_equal(h.dbs[0].dw_n, 0);
	h_release(&h);
	free(w);
}

static void on_issue_clean(struct harness *h, struct wl_slot *s)
{
	struct bwatch *w = h->arg;

	assert_true(s->kind != WL_SLOT_BATCH); /* no flushes, no doublewrite */
	if (s->kind == WL_SLOT_FLUSH && w->writes < 8192)
		w->t_writes[w->writes++] = h->now;
}

static void test_cleaner_passes(void **state)
{
	const uint64_t iv = 100 * NSEC_PER_MSEC;
	struct harness h;
	struct bwatch *w = calloc(1, sizeof(*w));
	uint64_t steps = 0;
	unsigned per[20] = {0}, full = 0;

	(void)state;
	h_profile(&h);
	h.p.cleaner_interval_ns = iv;
	h.p.cleaner_pages = 40;
	h.p.lazy_commit_pct = 100;
	h.streams[0] = 2;
	/* slow reads: some 60 pages dirtied an interval, more than a pass
	 * writes, never the list's 4096 (no commit waits for room) */
	h.lat[WL_SLOT_STREAM] = 3 * NSEC_PER_MSEC;
	h.on_issue = on_issue_clean;
	h.arg = w;
	h_start(&h, PAGES);
	while (steps++ < 5000000 && h.now < 20 * iv)
		assert_true(h_step(&h));
	assert_true(w->writes > 0);
	for (unsigned i = 0; i < w->writes; i++) {
		uint64_t t = w->t_writes[i];

		if (t >= 20 * iv)
			break;
		/* a pass begins on the interval: its writes within 5 ms of it */
		assert_true(t >= iv);
		if (t % iv >= 5 * NSEC_PER_MSEC)
			fail_msg("write %u at %llu ns", i, (unsigned long long)t);
		per[t / iv]++;
	}
	for (unsigned k = 0; k < 20; k++) {
		assert_true(per[k] <= 40);
		full += per[k] == 40;
	}
	assert_true(full >= 10); /* the streams dirty more than a pass writes */
	h_release(&h);
	free(w);
}

/* cleaner_spread, a page at a time: each pass begins on the interval's
 * grid and its k-th page goes k / its pages into the interval or later
 * (a page late for its slot, behind the one flusher slot, may go as the
 * next pass begins); the writes are spread (half of them in the second
 * half of their interval), and the passes as full as without it. */
static void on_issue_spread1(struct harness *h, struct wl_slot *s)
{
	struct bwatch *w = h->arg;
	const struct wl_db_batch *b = &h->c.batch[0];
	uint64_t k;

	on_issue_clean(h, s);
	if (s->kind != WL_SLOT_FLUSH || !b->clean_budget)
		return;
	k = b->clean_budget - b->clean_left - 1; /* taken before this one */
	if (b->clean_start % (100 * NSEC_PER_MSEC) ||
	    h->now < b->clean_start + 100 * NSEC_PER_MSEC * k / b->clean_budget)
		fail_msg("write %u (the pass's %llu of %llu) at %llu ns, the pass from %llu",
			 w->writes, (unsigned long long)k, (unsigned long long)b->clean_budget,
			 (unsigned long long)h->now, (unsigned long long)b->clean_start);
}

static void test_cleaner_spread(void **state)
{
	const uint64_t iv = 100 * NSEC_PER_MSEC;
	struct harness h;
	struct bwatch *w = calloc(1, sizeof(*w));
	uint64_t steps = 0;
	unsigned per[20] = {0}, n = 0, late = 0;

	(void)state;
	h_profile(&h);
	h.p.cleaner_interval_ns = iv;
	h.p.cleaner_pages = 40;
	h.p.cleaner_spread = true;
	h.p.lazy_commit_pct = 100;
	h.streams[0] = 2;
	h.lat[WL_SLOT_STREAM] = 3 * NSEC_PER_MSEC;
	h.on_issue = on_issue_spread1;
	h.arg = w;
	h_start(&h, PAGES);
	while (steps++ < 5000000 && h.now < 20 * iv)
		assert_true(h_step(&h));
	for (unsigned i = 0; i < w->writes; i++) {
		uint64_t t = w->t_writes[i];

		if (t >= 20 * iv)
			break;
		assert_true(t >= iv);
		per[t / iv]++;
		n++;
		late += t % iv >= iv / 2;
	}
	for (unsigned k = 0; k < 20; k++)
		assert_true(per[k] <= 41); /* a pass, and one late from the last */
	assert_true(n >= 19 * 35);	   /* the passes about full */
	assert_true(late * 5 >= n * 2);	   /* spread: without it, none */
	h_release(&h);
	free(w);
}

/* cleaner_spread when passes overrun (a slow device, one write at a time):
 * a pass that starts a whole interval late starts the grid anew, and is
 * spread from when it began, never from a start an interval or more old
 * (that would write it all at once). */
static void on_issue_late(struct harness *h, struct wl_slot *s)
{
	struct bwatch *w = h->arg;
	const struct wl_db_batch *b = &h->c.batch[0];
	const uint64_t iv = 100 * NSEC_PER_MSEC;

	if (s->kind != WL_SLOT_FLUSH || !b->clean_budget || b->clean_budget - b->clean_left != 1)
		return; /* a pass's first page */
	if (h->now - b->clean_start >= iv)
		fail_msg("a pass at %llu ns spread from %llu", (unsigned long long)h->now,
			 (unsigned long long)b->clean_start);
	w->writes++;
	w->batches += b->clean_start % iv != 0; /* passes that started the grid anew */
}

static void test_cleaner_spread_late(void **state)
{
	struct harness h;
	struct bwatch *w = calloc(1, sizeof(*w));
	uint64_t steps = 0;

	(void)state;
	h_profile(&h);
	h.p.flush_depth = 1;
	h.p.cleaner_interval_ns = 100 * NSEC_PER_MSEC;
	h.p.cleaner_pages = 40;
	h.p.cleaner_spread = true;
	h.p.lazy_commit_pct = 100;
	h.streams[0] = 2;
	h.lat[WL_SLOT_STREAM] = 3 * NSEC_PER_MSEC;
	h.lat[WL_SLOT_FLUSH] = 6 * NSEC_PER_MSEC; /* 40 pages: 240 ms a pass */
	h.on_issue = on_issue_late;
	h.arg = w;
	h_start(&h, PAGES);
	while (steps++ < 5000000 && h.now < 3 * NSEC_PER_SEC)
		assert_true(h_step(&h));
	assert_true(w->writes >= 8);  /* passes begun */
	assert_true(w->batches >= 4); /* most of them late by an interval or more */
	h_release(&h);
	free(w);
}

/* cleaner_spread in doublewrite batches of up to 6 pages: a batch's
 * doublewrite write k batches into its interval's pass at 6k / 30 of the
 * interval or later; batches stay whole where pages allow. */
static void on_issue_spread(struct harness *h, struct wl_slot *s)
{
	struct bwatch *w = h->arg;
	const uint64_t iv = 100 * NSEC_PER_MSEC;
	uint64_t t = h->now;

	on_issue_dw(h, s);
	if (s->kind != WL_SLOT_BATCH || s->req.op != ENGINE_OP_WRITE || t >= 20 * iv)
		return;
	assert_true(t >= iv);
	if (t / iv != w->last_fsync)
		w->min_gap = 0; /* a new interval: its pass's first batch */
	w->last_fsync = t / iv;
	if (t % iv < iv * w->min_gap / 30)
		fail_msg("a batch %llu pages into its pass at %llu ns",
			 (unsigned long long)w->min_gap, (unsigned long long)t);
	w->min_gap += w->k;
}

static void test_cleaner_spread_batches(void **state)
{
	struct harness h;
	struct bwatch *w = calloc(1, sizeof(*w));
	uint64_t steps = 0;

	(void)state;
	h_profile(&h);
	h.p.flush_depth = 6;
	h.p.doublewrite = true;
	h.p.doublewrite_size = 8 * 4096;
	h.p.data_flush = PROFILE_DATA_FLUSH_PER_BATCH;
	h.p.cleaner_interval_ns = 100 * NSEC_PER_MSEC;
	h.p.cleaner_pages = 30;
	h.p.cleaner_spread = true;
	h.p.lazy_commit_pct = 100;
	h.streams[0] = 2;
	h.lat[WL_SLOT_STREAM] = 3 * NSEC_PER_MSEC;
	h.on_issue = on_issue_spread;
	h.on_done = on_done_dw;
	h.arg = w;
	h_start(&h, PAGES);
	w->area = PAGES - 8;
	while (steps++ < 5000000 && h.now < 20 * 100 * NSEC_PER_MSEC)
		assert_true(h_step(&h));
	assert_true(w->batches >= 19 * 5 - 5); /* about 5 whole batches a pass */
	assert_true(w->dw_pages >= 6 * (w->batches - 20));
	h_release(&h);
	free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_doublewrite_per_batch),
		cmocka_unit_test(test_doublewrite_flush_count),
		cmocka_unit_test(test_data_flush_rate),
		cmocka_unit_test(test_cleaner_passes),
		cmocka_unit_test(test_cleaner_spread),
		cmocka_unit_test(test_cleaner_spread_batches),
		cmocka_unit_test(test_cleaner_spread_late),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
