/* SPDX-License-Identifier: MIT */
/*
 * test_workload_log.c - the log writer and replication driven alone (log.c,
 * repl.c): the record tables of the log blocks, read in the order they were
 * written, name exactly the pages the committed transactions changed, in
 * commit order; every block is a sealed log block at its place; and a
 * segment is never written again before replication has read it copies - 1
 * times, nor read by replication while its last write is still in flight.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "workload_harness.h"

#define MAX_PAGES 200000

struct watch {
	uint64_t *committed, *logged;
	size_t ncommitted, nlogged;
	unsigned dirty_waits;
	/* replication: reads each segment still owes, by the test's own count */
	unsigned owed[16];
	unsigned reuse_early, reuses, blocked;
	/* the log write in flight, if any, and replication reads that met it */
	uint64_t log_off, log_len;
	unsigned repl_reads, repl_early;
};

/* A stream's page read completes: its last one commits the transaction
 * (this test keeps the dirty list from filling, so it commits at once). */
static void on_done_txn(struct harness *h, struct wl_slot *s)
{
	struct watch *w = h->arg;

	if (s->kind == WL_SLOT_LOG) {
		/* every block of the write: its record table, in order */
		for (uint32_t o = 0; o < s->len0; o += 512) {
			const char *blk = (const char *)s->buf + o;
			struct page_header ph;
			struct log_records lr;
			char copy[512];

			memcpy(&ph, blk, sizeof(ph));
			assert_int_equal(ph.kind, PAGE_KIND_LOG);
			assert_int_equal(ph.page_no, (s->off0 + o) / 512);
			assert_int_equal(ph.db_id, 1);
			/* sealed: its checksum covers the record table */
			memcpy(copy, blk, sizeof(copy));
			page_reseal(copy, sizeof(copy));
			assert_memory_equal(copy, blk, sizeof(copy));
			memcpy(&lr, blk + PAGE_HEADER_SIZE, sizeof(lr));
			assert_int_equal(lr.magic, LOG_RECORDS_MAGIC);
			assert_true(lr.count <= log_records_capacity(512));
			for (uint32_t i = 0; i < lr.count; i++)
				memcpy(&w->logged[w->nlogged++], blk + PAGE_HEADER_SIZE + 8 + 8 * i,
				       8);
		}
		return;
	}
	if (s->kind != WL_SLOT_STREAM || s->txn == WL_TXN_SEEK || s->left > 1)
		return;
	for (unsigned i = 0; i < s->ntouched; i++)
		w->committed[w->ncommitted++] = s->touched[i];
	w->committed[w->ncommitted++] = s->page;
}

static void test_log_blocks_name_their_pages(void **state)
{
	struct harness h;
	struct watch w = {0};

	(void)state;
	w.committed = calloc(MAX_PAGES, sizeof(uint64_t));
	w.logged = calloc(MAX_PAGES, sizeof(uint64_t));
	h_profile(&h);
	h.on_done = on_done_txn;
	h.arg = &w;
	h.lat[WL_SLOT_LOG] = 300000; /* records pile up: writes of several blocks */
	h_start(&h, 8192);
	while (w.ncommitted < 50000) {
		assert_true(h_step(&h));
		for (unsigned i = 0; i < h.nslots; i++)
			assert_int_not_equal(h.slots[i].wait, WL_WAIT_DIRTY);
	}
	/* drain: no new transactions; the log writes what is buffered */
	h.no_streams = true;
	while (h_step(&h))
		;
	assert_true(h.dbs[0].log.durable == h.dbs[0].log.lsn);
	assert_int_equal(h.dbs[0].log.rlen, 0);
	assert_int_equal(w.nlogged, w.ncommitted);
	assert_memory_equal(w.logged, w.committed, w.ncommitted * sizeof(uint64_t));
	/* and the log's bytes are the records' */
	assert_true(h.dbs[0].log.lsn == (uint64_t)w.ncommitted * h.p.log_record_size);
	free(w.committed);
	free(w.logged);
	h_release(&h);
}

/* The test's own account of which segments replication still owes. */
static void on_issue_repl(struct harness *h, struct wl_slot *s)
{
	struct watch *w = h->arg;
	uint64_t seg = h->p.log_segment_size;

	if (s->kind != WL_SLOT_LOG || s->off0 % seg)
		return;
	/* a write at a segment's start: its first use, or a reuse */
	w->reuses++;
	if (w->owed[s->off0 / seg])
		w->reuse_early++;
}

static void on_done_repl(struct harness *h, struct wl_slot *s)
{
	struct watch *w = h->arg;
	uint64_t seg = h->p.log_segment_size;
	unsigned k = (unsigned)(s->off0 / seg);

	if (h->dbs[0].log.blocked)
		w->blocked++;
	if ((s->off0 + s->len0) % seg)
		return; /* not the end of a segment */
	if (s->kind == WL_SLOT_LOG)
		w->owed[k] = h->p.copies - 1; /* closed: replication owes it */
	else if (s->kind == WL_SLOT_REPL && w->owed[k])
		w->owed[k]--;
}

static void test_segment_not_reused_before_replication(void **state)
{
	struct harness h;
	struct watch w = {0};

	(void)state;
	h_profile(&h);
	h.p.copies = 3;
	h.on_issue = on_issue_repl;
	h.on_done = on_done_repl;
	h.arg = &w;
	h.streams[0] = 16;
	/* replication far slower than the log: the log must wait for it */
	h.lat[WL_SLOT_REPL] = 20 * 1000000;
	h.lat[WL_SLOT_LOG] = 50000;
	h_start(&h, 8192);
	while (w.reuses < 40)
		assert_true(h_step(&h));
	assert_true(w.blocked > 0); /* the bound was reached */
	assert_int_equal(w.reuse_early, 0);
	h_release(&h);
}

/* A replication read issued over a log write still in flight would read
 * the block torn (through the page cache) or as the last lap left it. */
static void on_issue_inflight(struct harness *h, struct wl_slot *s)
{
	struct watch *w = h->arg;

	if (s->kind == WL_SLOT_LOG) {
		w->log_off = s->off0;
		w->log_len = s->len0;
	} else if (s->kind == WL_SLOT_REPL) {
		w->repl_reads++;
		if (w->log_len && s->off0 < w->log_off + w->log_len &&
		    w->log_off < s->off0 + s->len0)
			w->repl_early++;
	}
}

static void on_done_inflight(struct harness *h, struct wl_slot *s)
{
	struct watch *w = h->arg;

	if (s->kind == WL_SLOT_LOG)
		w->log_len = 0;
}

static void test_replication_reads_only_written_blocks(void **state)
{
	struct harness h;
	struct watch w = {0};

	(void)state;
	h_profile(&h);
	h.p.copies = 2;
	h.on_issue = on_issue_inflight;
	h.on_done = on_done_inflight;
	h.arg = &w;
	h.streams[0] = 16;
	/* log writes far slower than replication reads: a segment's reads
	 * would start while its last write is still in flight */
	h.lat[WL_SLOT_LOG] = 5 * 1000000;
	h.lat[WL_SLOT_REPL] = 1000;
	h_start(&h, 8192);
	while (w.repl_reads < 200)
		assert_true(h_step(&h));
	assert_int_equal(w.repl_early, 0);
	h_release(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_log_blocks_name_their_pages),
		cmocka_unit_test(test_segment_not_reused_before_replication),
		cmocka_unit_test(test_replication_reads_only_written_blocks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
