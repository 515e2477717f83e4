/* SPDX-License-Identifier: MIT */
/*
 * test_sim_cache_model.c - the sim engine's write cache at a power cut
 * ([sim] write_cache, lie_window, cut_at; engine_sim_survivors): honest never
 * loses a flushed (write-through) write, lying loses exactly the flushed
 * writes within lie_window before the cut, tearing tears only the pages in
 * flight at the cut, and none keeps no cut state (today's model).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <errno.h>

#include "diskproof/engine.h"
#include "diskproof/page.h"
#include "diskproof/stats.h"

#define MS 1000000ULL
#define PAGES 64u
#define PAGE 4096u

/* One device, one database file of PAGES pages, write latency 3 ms, no
 * jitter (every completion time known), the cut at 100 ms. */
struct box {
	struct engine_sim_model sim;
	struct engine_clock clock;
	struct engine_file file;
	struct engine_ctx ctx;
	struct engine_req req[PAGES];
	struct engine_req *out[PAGES];
	char bufs[PAGES][PAGE];
	uint32_t survivors[PAGES];
	unsigned n; /* requests used: each stays in the engine's heap */
};

static struct box *box_new(uint32_t cache, uint64_t lie_window_ns)
{
	struct box *b = calloc(1, sizeof(*b));
	struct strbuf err = STRBUF_INIT;

	assert_non_null(b);
	b->sim = (struct engine_sim_model){.read_latency_ns = 2 * MS,
					   .write_latency_ns = 3 * MS,
					   .log_write_latency_ns = 1 * MS,
					   .cut_at_ns = 100 * MS,
					   .lie_window_ns = lie_window_ns,
					   .write_cache = cache,
					   .seed = 1};
	engine_clock_init_virtual(&b->clock);
	b->file = (struct engine_file){.size = PAGES * PAGE, .block = PAGE, .tag = 1};
	b->ctx = (struct engine_ctx){.depth = PAGES,
				     .files = &b->file,
				     .nr_files = 1,
				     .nr_devices = 1,
				     .clock = &b->clock,
				     .sim = &b->sim};
	assert_int_equal(engine_sim.init(&b->ctx, &err), 0);
	assert_int_equal(engine_sim.open(&b->ctx, &err), 0);
	strbuf_release(&err);
	return b;
}

static void box_free(struct box *b)
{
	engine_sim.close(&b->ctx);
	engine_sim.cleanup(&b->ctx);
	free(b);
}

/* At virtual time t, a write of page (generation gen), write-through when
 * dsync; it completes at t + 3 ms. */
static void write_at(struct box *b, uint64_t t, uint64_t page, uint64_t gen, bool dsync)
{
	struct engine_req *r = &b->req[b->n];

	b->clock.virtual_ns = t;
	memset(r, 0, sizeof(*r));
	r->op = ENGINE_OP_WRITE;
	r->cls = IO_DB_WRITE;
	r->flags = dsync ? ENGINE_RF_DSYNC : 0;
	r->offset = page * PAGE;
	r->len = PAGE;
	r->buf = b->bufs[b->n++];
	r->buf_index = -1;
	page_stamp(r->buf, PAGE, PAGE_KIND_DB, 1, page, gen, 1, 1, false);
	assert_int_equal(engine_sim.queue(&b->ctx, r), ENGINE_Q_QUEUED);
	assert_int_equal(r->t_done_ns, t + 3 * MS);
}

static void survivors(struct box *b)
{
	assert_int_equal(engine_sim_survivors(&b->ctx, 0, b->survivors, PAGES), 0);
}

/* honest: every flushed write kept, whenever before the cut it completed;
 * a write without a flush and one in flight at the cut leave the page as it
 * was; nothing torn */
static void test_honest(void **state)
{
	struct box *b = box_new(ENGINE_SIM_CACHE_HONEST, 0);

	write_at(b, 10 * MS, 1, 2, true);
	write_at(b, 20 * MS, 1, 3, true);  /* the newer flushed one */
	write_at(b, 96 * MS, 2, 2, true);  /* completes at 99 ms: just before */
	write_at(b, 97 * MS, 3, 2, true);  /* completes at exactly the cut */
	write_at(b, 98 * MS, 4, 2, true);  /* in flight at the cut */
	write_at(b, 50 * MS, 5, 2, false); /* never flushed */
	write_at(b, 30 * MS, 6, 2, true);
	write_at(b, 98 * MS, 6, 3, true);  /* its next write in flight: 2 stays */
	write_at(b, 120 * MS, 7, 2, true); /* after the cut */
	survivors(b);
	assert_int_equal(b->survivors[1], 3);
	assert_int_equal(b->survivors[2], 2);
	assert_int_equal(b->survivors[3], 2);
	assert_int_equal(b->survivors[4], 0);
	assert_int_equal(b->survivors[5], 0);
	assert_int_equal(b->survivors[6], 2);
	assert_int_equal(b->survivors[7], 0);
	for (unsigned i = 0; i < PAGES; i++)
		assert_false(b->survivors[i] & ENGINE_SIM_TORN);
	box_free(b);
}

/* lying, lie_window 10 ms: flushed writes completing in (90, 100] ms lost,
 * exactly those; one at 90 ms (10 ms before) and earlier kept */
static void test_lying(void **state)
{
	struct box *b = box_new(ENGINE_SIM_CACHE_LYING, 10 * MS);

	write_at(b, 40 * MS, 1, 2, true);
	write_at(b, 88 * MS, 1, 3, true); /* done at 91 ms: lost, 2 stays */
	write_at(b, 87 * MS, 2, 2, true); /* done at 90 ms: 10 ms before, kept */
	write_at(b, 86 * MS, 3, 2, true); /* done at 89 ms: kept */
	write_at(b, 96 * MS, 4, 2, true); /* done at 99 ms: lost */
	write_at(b, 97 * MS, 5, 2, true); /* done at the cut: lost */
	write_at(b, 98 * MS, 6, 2, true); /* in flight: not acknowledged */
	survivors(b);
	assert_int_equal(b->survivors[1], 2);
	assert_int_equal(b->survivors[2], 2);
	assert_int_equal(b->survivors[3], 2);
	assert_int_equal(b->survivors[4], 0);
	assert_int_equal(b->survivors[5], 0);
	assert_int_equal(b->survivors[6], 0);
	box_free(b);
}

/* tearing: the pages in flight at the cut torn (their old generation kept
 * with the mark), every other as honest has it */
static void test_tearing(void **state)
{
	struct box *b = box_new(ENGINE_SIM_CACHE_TEARING, 0);

	write_at(b, 10 * MS, 1, 2, true);
	write_at(b, 98 * MS, 1, 3, true);  /* in flight: torn over 2 */
	write_at(b, 99 * MS, 2, 2, true);  /* in flight, never written before */
	write_at(b, 50 * MS, 3, 2, true);  /* kept whole */
	write_at(b, 60 * MS, 4, 2, false); /* not flushed, done: not torn */
	write_at(b, 101 * MS, 5, 2, true); /* after the cut: untouched */
	survivors(b);
	assert_int_equal(b->survivors[1], 2 | ENGINE_SIM_TORN);
	assert_int_equal(b->survivors[2], ENGINE_SIM_TORN);
	assert_int_equal(b->survivors[3], 2);
	assert_int_equal(b->survivors[4], 0);
	assert_int_equal(b->survivors[5], 0);
	for (unsigned i = 6; i < PAGES; i++)
		assert_int_equal(b->survivors[i], 0);
	box_free(b);
}

/* none: no cut state at all, and reads see the last write as before */
static void test_none(void **state)
{
	struct box *b = box_new(ENGINE_SIM_CACHE_NONE, 0);
	struct page_header h;

	write_at(b, 98 * MS, 1, 5, true);
	assert_int_equal(engine_sim_survivors(&b->ctx, 0, b->survivors, PAGES), -EINVAL);
	assert_int_equal(engine_sim.reap(&b->ctx, b->out, PAGES, 10 * MS), 1);
	b->clock.virtual_ns = 200 * MS;
	b->req[1] = (struct engine_req){.op = ENGINE_OP_READ,
					.cls = IO_DB_READ,
					.offset = PAGE,
					.len = PAGE,
					.buf = b->bufs[1],
					.buf_index = -1};
	assert_int_equal(engine_sim.queue(&b->ctx, &b->req[1]), ENGINE_Q_QUEUED);
	memcpy(&h, b->bufs[1], sizeof(h));
	assert_int_equal(h.generation, 5);
	box_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_honest),
		cmocka_unit_test(test_lying),
		cmocka_unit_test(test_tearing),
		cmocka_unit_test(test_none),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
