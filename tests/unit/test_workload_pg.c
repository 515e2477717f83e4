/* SPDX-License-Identifier: MIT */
/*
 * test_workload_pg.c - the PostgreSQL-like features of the generators,
 * driven alone (workload_harness.h): the cache model (a page read once is a
 * hit after, the cache never holds more than its share, reads go on when it
 * is smaller than the database), read-only pages and read ahead;
 * checkpoints (no page written before the first, each checkpoint's writes in
 * page order, merged writes of adjacent pages only, write-ahead kept);
 * full-page images (a page's first change after a checkpoint logs the page);
 * the WAL page rewrite (each write starts in the page the last ended in);
 * commit_delay (no log write before its delay); log_sync = fdatasync (each
 * log write a plain one, then its flush, durable only after it). That every feature off
 * leaves the model as it was is the golden runs' part (tests/golden).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "workload_harness.h"

#define MS 1000000ULL

struct watch {
	uint64_t reads, read_pages, writes, write_pages, log_writes, log_bytes;
	uint64_t first_write_at, early, unsorted, bad_merge, bad_log, delay_short;
	uint64_t last_page, last_ckpt, log_end;
	uint8_t *read_once; /* per page: read before (cache as large as the db) */
	uint64_t reread, grouped;
	uint64_t log_flushes, bad_sync;
	bool unflushed; /* log_sync = fdatasync: a log write not flushed yet */
};

static void on_issue(struct harness *h, struct wl_slot *s)
{
	struct watch *w = h->arg;
	const struct wl_db *d = &h->dbs[s->db];

	if (s->kind == WL_SLOT_LOG && s->req.op == ENGINE_OP_FSYNC) {
		/* the log file's, after its write, which is done and not yet
		 * durable */
		w->log_flushes++;
		if (!w->unflushed || d->log.durable >= d->log.inflight_end ||
		    s->req.file != wl_file_log(s->db))
			w->bad_sync++;
		w->unflushed = false;
		return;
	}
	if (s->kind == WL_SLOT_LOG) {
		uint64_t lp = h->p.log_page_size, off = s->req.offset - d->pdb->log_base;

		w->log_writes++;
		w->log_bytes += s->req.len;
		/* write-through, or a plain write flushed before the next */
		if (h->p.log_sync == PROFILE_LOG_SYNC_FDATASYNC
			    ? w->unflushed || (s->req.flags & ENGINE_RF_DSYNC)
			    : !(s->req.flags & ENGINE_RF_DSYNC))
			w->bad_sync++;
		w->unflushed = h->p.log_sync == PROFILE_LOG_SYNC_FDATASYNC;
		/* a rewrite starts on a log page, in or before where the last
		 * write ended, and never leaves a gap */
		if (lp && (off % lp || s->req.len % lp || off > w->log_end))
			w->bad_log++;
		w->log_end = off + s->req.len;
		/* (the write just issued carries commits_inflight) */
		if (h->p.commit_delay_ns && h->now < d->log.pending_since + h->p.commit_delay_ns &&
		    (!h->p.commit_group || d->log.commits_inflight < h->p.commit_group))
			w->delay_short++;
		if (h->p.commit_group && d->log.commits_inflight >= h->p.commit_group)
			w->grouped++;
		return;
	}
	if (s->kind == WL_SLOT_STREAM && s->req.op == ENGINE_OP_READ) {
		w->reads++;
		w->read_pages += s->npages;
		for (unsigned i = 0; w->read_once && i < s->npages; i++) {
			if (!(s->held & (1ULL << i)))
				continue;
			w->reread += w->read_once[s->page + i];
			w->read_once[s->page + i] = 1;
		}
		return;
	}
	if (s->kind != WL_SLOT_FLUSH)
		return;
	w->writes++;
	w->write_pages += s->npages;
	if (!w->first_write_at)
		w->first_write_at = h->now;
	if (s->req.len != s->npages * h->p.page_size ||
	    s->held != (s->npages == 64 ? ~0ULL : (1ULL << s->npages) - 1))
		w->bad_merge++;
	/* sorted within one checkpoint's set */
	if (d->ckpt.set && d->ckpt.start == w->last_ckpt && s->page <= w->last_page)
		w->unsorted++;
	w->last_ckpt = d->ckpt.start;
	w->last_page = s->page + s->npages - 1;
}

/* write-ahead: every page a flush write holds was dirtied by records now
 * durable (its set entry's lsn) */
static void check_set(struct harness *h, struct watch *w)
{
	const struct wl_db *d = &h->dbs[0];

	for (unsigned k = 0; d->ckpt.set && k < d->ckpt.next; k++)
		if (d->ckpt.set[k].lsn > d->log.durable &&
		    (d->busy[d->ckpt.set[k].page] & WL_BUSY_IO) &&
		    !(d->busy[d->ckpt.set[k].page] & WL_BUSY_DIRTY))
			w->early++;
}

static void pg_profile(struct harness *h)
{
	h_profile(h);
	h->p.insert_pct = h->p.delete_pct = h->p.seek_pct = 0;
	h->p.replace_pct = 100;
	h->p.update_pages = 1;
	h->p.lazy_commit_pct = 0;
	h->p.dirty_pages = 8192;
	h->p.log_segments = 64;
	h->p.log_segment_size = 256 * 1024;
	h->p.checkpoint_target_pct = 90;
	h->p.write_merge = 1;
	h->p.writeback_hot = true;
	h->streams[0] = 8;
}

static void run_for(struct harness *h, struct watch *w, uint64_t ns)
{
	while (h->now < ns) {
		assert_true(h_step(h));
		check_set(h, w);
	}
}

/* The cache as large as the database: every page is read at most once, then
 * hit; reads below writes are possible (and happen here: one page changed
 * per transaction, most of them hits once the cache is warm). */
static void test_cache_whole(void **state)
{
	struct harness h;
	struct watch w = {0};
	const uint64_t pages = 2048;

	(void)state;
	pg_profile(&h);
	h.p.cache_size = pages * h.p.page_size;
	h.on_issue = on_issue;
	h.arg = &w;
	w.read_once = calloc(pages, 1);
	h_start(&h, pages);
	run_for(&h, &w, 4000 * MS);
	assert_int_equal(w.reread, 0);
	assert_true(w.read_pages <= pages);
	assert_true(h.dbs[0].cache.hits > 10 * w.reads); /* warm: mostly hits */
	assert_true(h.dbs[0].cache.len <= pages);
	assert_true(w.writes > w.reads);
	free(w.read_once);
	h_release(&h);
}

/* A cache of a quarter of the database: it never holds more, reads go on
 * (steady misses), and a page may be read again after it was dropped. */
static void test_cache_quarter(void **state)
{
	struct harness h;
	struct watch w = {0};
	const uint64_t pages = 4096;
	uint64_t cached = 0, reads_then;

	(void)state;
	pg_profile(&h);
	h.p.cache_size = pages / 4 * h.p.page_size;
	h.p.read_pages = 1; /* and one page only read per transaction */
	h.on_issue = on_issue;
	h.arg = &w;
	h_start(&h, pages);
	run_for(&h, &w, 2000 * MS);
	reads_then = w.reads;
	run_for(&h, &w, 4000 * MS);
	for (uint64_t i = 0; i < pages; i++)
		cached += !!(h.dbs[0].busy[i] & WL_BUSY_CACHED);
	assert_true(cached <= pages / 4);
	assert_int_equal(h.dbs[0].cache.len, pages / 4);
	/* the second half still misses about 3 of 4 pages */
	assert_true(w.reads - reads_then > (h.dbs[0].cache.hits + h.dbs[0].cache.misses) / 4);
	assert_true(h.dbs[0].cache.hits > 0);
	h_release(&h);
}

/* Read ahead: some misses read more than a page, all of it into the cache,
 * none of it twice while the cache holds it all. */
static void test_read_ahead(void **state)
{
	struct harness h;
	struct watch w = {0};
	const uint64_t pages = 4096;

	(void)state;
	pg_profile(&h);
	h.p.cache_size = pages * h.p.page_size;
	h.p.readahead_size = 8 * h.p.page_size;
	h.p.readahead_pct = 50;
	h.on_issue = on_issue;
	h.arg = &w;
	w.read_once = calloc(pages, 1);
	h_start(&h, pages);
	run_for(&h, &w, 1000 * MS);
	assert_true(w.read_pages > w.reads * 3 / 2); /* ~half read up to 8 pages */
	assert_int_equal(w.reread, 0);
	free(w.read_once);
	h_release(&h);
}

/* Read ahead without a cache (the kernel's readahead of a database that
 * reads through the page cache, learn's fit): misses still read more than
 * a page, and nothing is kept: every transaction's page is read again. */
static void test_read_ahead_uncached(void **state)
{
	struct harness h;
	struct watch w = {0};
	const uint64_t pages = 4096;
	uint64_t cached = 0;

	(void)state;
	pg_profile(&h);
	h.p.readahead_size = 4 * h.p.page_size;
	h.p.readahead_pct = 30;
	h.on_issue = on_issue;
	h.arg = &w;
	h_start(&h, pages);
	run_for(&h, &w, 1000 * MS);
	for (uint64_t i = 0; i < pages; i++)
		cached += !!(h.dbs[0].busy[i] & WL_BUSY_CACHED);
	assert_int_equal(cached, 0);
	assert_int_equal(h.dbs[0].cache.len, 0);
	assert_int_equal(h.dbs[0].cache.hits, 0);
	/* 30 % of reads take 4 pages (fewer where the next is busy): 1.9
	 * pages a read expected, 1.95 more than 5 standard deviations out */
	assert_true(w.reads > 10000);
	assert_true(w.read_pages > w.reads * 17 / 10);
	assert_true(w.read_pages < w.reads * 195 / 100);
	h_release(&h);
}

/* commit_group: a log write goes once that many commits wait, before its
 * delay is out; never with fewer before it is. */
static void test_commit_group(void **state)
{
	struct harness h;
	struct watch w = {0};

	(void)state;
	pg_profile(&h);
	h.p.commit_delay_ns = 50 * MS; /* long: only the group lets writes go early */
	h.p.commit_group = 3;
	h.streams[0] = 16;
	h.on_issue = on_issue;
	h.arg = &w;
	h_start(&h, 4096);
	run_for(&h, &w, 1000 * MS);
	assert_true(w.log_writes > 100); /* far more than one per 50 ms */
	assert_int_equal(w.delay_short, 0);
	assert_true(w.grouped > w.log_writes / 2);
	h_release(&h);
}

/* Checkpoints: nothing written before the first one (one interval in); each
 * one's writes in page order, adjacent pages merged up to write_merge;
 * never ahead of the log. */
static void test_checkpoints(void **state)
{
	struct harness h;
	struct watch w = {0};

	(void)state;
	pg_profile(&h);
	h.p.checkpoint_interval_ns = 500 * MS;
	h.p.write_merge = 8;
	h.on_issue = on_issue;
	h.arg = &w;
	h_start(&h, 1024); /* small: adjacent dirty pages are common */
	run_for(&h, &w, 3000 * MS);
	assert_true(w.first_write_at >= 500 * MS);
	assert_true(w.writes > 0);
	assert_true(w.write_pages > w.writes); /* some merged */
	assert_int_equal(w.unsorted, 0);
	assert_int_equal(w.bad_merge, 0);
	assert_int_equal(w.early, 0);
	assert_true(h.dbs[0].ckpt.done >= 4);
	h_release(&h);
}

struct hot_watch {
	uint64_t hot_between, cold_between, at_ckpt;
	uint64_t hot_n;
};

static void on_issue_hot(struct harness *h, struct wl_slot *s)
{
	struct hot_watch *w = h->arg;
	const struct wl_db *d = &h->dbs[s->db];

	if (s->kind != WL_SLOT_FLUSH)
		return;
	if (d->ckpt.full)
		w->at_ckpt++;
	else if (s->page < w->hot_n)
		w->hot_between++;
	else
		w->cold_between++;
}

/* Write-back passes between checkpoints: with writeback_hot off, the hot
 * region's pages are written by checkpoints only; the others by the passes
 * (and with it on, hot pages by the passes too). */
static void test_writeback_hot(void **state)
{
	for (int on = 0; on < 2; on++) {
		struct harness h;
		struct hot_watch w = {0};

		(void)state;
		pg_profile(&h);
		h.p.checkpoint_interval_ns = 1000 * MS;
		h.p.writeback_interval_ns = 100 * MS;
		h.p.writeback_age_ns = 50 * MS;
		h.p.writeback_hot = on;
		h.p.hot_size = 512 * h.p.page_size;
		h.p.hot_pct = 50;
		h.on_issue = on_issue_hot;
		h.arg = &w;
		h_start(&h, 4096);
		w.hot_n = h.dbs[0].hot_n;
		assert_int_equal(w.hot_n, 512);
		while (h.now < 3500 * MS)
			assert_true(h_step(&h));
		assert_true(w.cold_between > 0);
		assert_true(w.at_ckpt > 0);
		if (on)
			assert_true(w.hot_between > 0);
		else
			assert_int_equal(w.hot_between, 0);
		h_release(&h);
	}
}

/* Checkpoints with a dirty list that fills long before the next one: the
 * commits waiting for room get it from writes of the oldest dirty pages, so
 * transactions go on between checkpoints (they used to stop until the next
 * checkpoint began, a whole interval), write-ahead still held. */
static void test_dirty_full_between_checkpoints(void **state)
{
	struct harness h;
	struct watch w = {0};
	uint64_t at;

	(void)state;
	pg_profile(&h);
	h.p.dirty_pages = 16;
	h.p.checkpoint_interval_ns = 2000 * MS;
	h.on_issue = on_issue;
	h.arg = &w;
	h_start(&h, 4096);
	run_for(&h, &w, 500 * MS);
	at = h.dbs[0].txn.ended;
	run_for(&h, &w, 1900 * MS); /* before the first checkpoint */
	assert_true(h.dbs[0].txn.ended - at > 1000);
	assert_true(h.dbs[0].ckpt.evictions > 0);
	assert_int_equal(h.dbs[0].ckpt.done, 0);
	assert_int_equal(w.early, 0);
	run_for(&h, &w, 4500 * MS); /* and the checkpoints still end */
	assert_true(h.dbs[0].ckpt.done >= 1);
	h_release(&h);
}

/* Full-page images: the log grows by a page for each page's first change
 * after a checkpoint began, and by the records. */
static void test_full_page_images(void **state)
{
	struct harness h;
	struct watch w = {0};
	const struct wl_db *d;

	(void)state;
	pg_profile(&h);
	h.p.checkpoint_interval_ns = 500 * MS;
	h.p.full_page_writes = true;
	h.on_issue = on_issue;
	h.arg = &w;
	h_start(&h, 4096);
	run_for(&h, &w, 2200 * MS);
	d = &h.dbs[0];
	assert_true(d->log.fpi > 0);
	/* update_pages = 1: a record of log_record_size per transaction and
	 * a page per image; the images fewer than the transactions (a page
	 * changed twice in a cycle is logged whole once) */
	assert_true(d->log.lsn % h.p.log_record_size ==
		    (d->log.fpi * h.p.page_size) % h.p.log_record_size);
	assert_true(d->log.fpi < d->log.lsn / h.p.page_size);
	h_release(&h);
}

/* The WAL page rewrite: with 8 KiB log pages, each write starts on a page
 * at or before where the last ended, and the device takes more bytes than
 * the log holds; commit_delay: no write before its delay. */
static void test_log_page_rewrite(void **state)
{
	struct harness h;
	struct watch w = {0};
	const struct wl_db *d;

	(void)state;
	pg_profile(&h);
	h.p.log_page_size = 8192;
	h.p.commit_delay_ns = 300000;
	h.on_issue = on_issue;
	h.arg = &w;
	h_start(&h, 4096);
	run_for(&h, &w, 1000 * MS);
	d = &h.dbs[0];
	assert_true(w.log_writes > 100);
	assert_int_equal(w.bad_log, 0);
	assert_int_equal(w.delay_short, 0);
	assert_true(w.log_bytes > d->log.issued); /* the rewritten pages */
	assert_int_equal(w.bad_sync, 0);
	assert_int_equal(w.log_flushes, 0); /* write-through */
	h_release(&h);
}

/* log_sync = fdatasync: each log write is a plain one, followed by an
 * fdatasync of the log file before the next, and the log is durable (pages
 * may go, commits are done) only once the flush is; with commit_delay and
 * log pages as PostgreSQL's. */
static void test_log_fdatasync(void **state)
{
	struct harness h;
	struct watch w = {0};
	const struct wl_db *d;

	(void)state;
	pg_profile(&h);
	h.p.log_page_size = 8192;
	h.p.commit_delay_ns = 300000;
	h.p.log_sync = PROFILE_LOG_SYNC_FDATASYNC;
	h.p.checkpoint_interval_ns = 200 * MS;
	h.on_issue = on_issue;
	h.arg = &w;
	h_start(&h, 4096);
	run_for(&h, &w, 1000 * MS);
	d = &h.dbs[0];
	assert_true(w.log_writes > 100);
	assert_int_equal(w.bad_sync, 0);
	assert_int_equal(w.delay_short, 0);
	/* every write flushed, the last perhaps still in flight */
	assert_true(w.log_flushes + 1 >= w.log_writes && w.log_flushes <= w.log_writes);
	assert_true(w.writes > 0); /* checkpoints wrote pages, never ahead of it */
	assert_int_equal(w.early, 0);
	assert_true(d->log.durable <= d->log.issued);
	h_release(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cache_whole),
		cmocka_unit_test(test_cache_quarter),
		cmocka_unit_test(test_read_ahead),
		cmocka_unit_test(test_read_ahead_uncached),
		cmocka_unit_test(test_checkpoints),
		cmocka_unit_test(test_dirty_full_between_checkpoints),
		cmocka_unit_test(test_full_page_images),
		cmocka_unit_test(test_log_page_rewrite),
		cmocka_unit_test(test_writeback_hot),
		cmocka_unit_test(test_commit_group),
		cmocka_unit_test(test_log_fdatasync),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
