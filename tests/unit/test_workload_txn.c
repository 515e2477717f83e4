/* SPDX-License-Identifier: MIT */
/*
 * test_workload_txn.c - the transaction streams driven alone (txn.c): over
 * many transactions the mix of inserts, deletes, replaces and seeks, and the
 * mean pages each reads, are the profile's; the fixed model's read share is
 * its read_pct; no page ever has two I/Os in flight; every transaction that
 * ends is counted once (wl_db.txn.ended) and every commit record once a log
 * write made it durable (wl_db.log.commits), the fixed model counting none.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

#include "workload_harness.h"

struct counts {
	unsigned txn[4];
	double pages[4];
	unsigned reads, writes;
	unsigned overlap;
	unsigned log_writes, log_done;
	unsigned log_partial; /* log writes that left buffered bytes behind */
};

static void on_issue(struct harness *h, struct wl_slot *s)
{
	struct counts *k = h->arg;
	struct wl_db *d = &h->dbs[s->db];

	if (s->kind == WL_SLOT_LOG) {
		k->log_writes++;
		k->log_partial += d->log.issued < d->log.lsn;
	}
	if (s->kind != WL_SLOT_STREAM && s->kind != WL_SLOT_FLUSH)
		return;
	/* one I/O per page: no other slot in flight on it */
	for (unsigned i = 0; i < h->nslots; i++) {
		const struct wl_slot *o = &h->slots[i];

		if (o != s && o->inflight && o->db == s->db &&
		    (o->kind == WL_SLOT_STREAM || o->kind == WL_SLOT_FLUSH) && o->page == s->page)
			k->overlap++;
	}
	assert_true(d->busy[s->page] & WL_BUSY_IO);
	if (s->kind != WL_SLOT_STREAM)
		return;
	if (s->req.op == ENGINE_OP_READ)
		k->reads++;
	else
		k->writes++;
	if (h->p.model == PROFILE_MODEL_JETSTRESS && s->ntouched == 0) {
		/* a transaction's first page: its type and page count are drawn */
		assert_true(s->txn <= WL_TXN_SEEK);
		k->txn[s->txn]++;
		k->pages[s->txn] += s->left;
	}
}

static void test_mix_ratios(void **state)
{
	struct harness h;
	struct counts k = {0};
	unsigned n = 0;
	const double want[4] = {0.40, 0.20, 0.05, 0.35};

	(void)state;
	h_profile(&h);
	h.streams[0] = 8;
	h.on_issue = on_issue;
	h.arg = &k;
	h_start(&h, 4096);
	while (k.txn[0] + k.txn[1] + k.txn[2] + k.txn[3] < 40000)
		assert_true(h_step(&h));
	for (unsigned t = 0; t < 4; t++)
		n += k.txn[t];
	for (unsigned t = 0; t < 4; t++) {
		double share = (double)k.txn[t] / n;

		/* 40,000 draws: a share's standard deviation is at most 0.0025 */
		assert_true(share > want[t] - 0.01 && share < want[t] + 0.01);
	}
	/* mean pages: floor(mean), one more with probability frac(mean) */
	assert_true(fabs(k.pages[WL_TXN_SEEK] / k.txn[WL_TXN_SEEK] - 1.3) < 0.02);
	for (unsigned t = 0; t < 3; t++)
		assert_true(fabs(k.pages[t] / k.txn[t] - 2.5) < 0.03);
	assert_int_equal(k.overlap, 0);
	h_release(&h);
}

static void on_log_done(struct harness *h, struct wl_slot *s)
{
	struct counts *k = h->arg;

	if (s->kind == WL_SLOT_LOG)
		k->log_done++;
}

/*
 * What the counters must hold at any instant: the transactions begun less
 * those under way have ended; the commit records appended (updates ended,
 * and those waiting for the log, which appended theirs) are buffered, in
 * the write in flight, or durable. Returns the updates ended.
 */
static uint64_t check_txn_counts(const struct harness *h, const struct counts *k)
{
	const struct wl_db *d = &h->dbs[0];
	uint64_t begun = 0, working = 0, upd_begun = 0, upd_working = 0, log_wait = 0;

	for (unsigned t = 0; t < 4; t++) {
		begun += k->txn[t];
		upd_begun += t == WL_TXN_SEEK ? 0 : k->txn[t];
	}
	for (unsigned i = 0; i < h->nslots; i++) {
		const struct wl_slot *s = &h->slots[i];

		if (s->kind != WL_SLOT_STREAM || !s->working)
			continue;
		working++;
		upd_working += s->txn != WL_TXN_SEEK;
	}
	for (unsigned i = 0; i < d->txn.nwait; i++)
		log_wait += h->slots[d->txn.waiters[i]].wait == WL_WAIT_LOG;
	assert_int_equal(d->txn.ended, begun - working);
	assert_int_equal(d->log.commits + d->log.commits_buffered + d->log.commits_inflight,
			 upd_begun - upd_working + log_wait);
	/* nothing in flight carried once the log is idle */
	if (!d->log.busy)
		assert_int_equal(d->log.commits_inflight, 0);
	return upd_begun - upd_working;
}

static void test_txns_counted(void **state)
{
	struct harness h;
	struct counts k = {0};
	uint64_t updates = 0;

	(void)state;
	h_profile(&h);
	h.streams[0] = 16;
	h.on_issue = on_issue;
	h.on_done = on_log_done;
	h.arg = &k;
	h_start(&h, 4096);
	for (unsigned n = 0; k.txn[0] + k.txn[1] + k.txn[2] + k.txn[3] < 20000; n++) {
		assert_true(h_step(&h));
		if (n % 97 == 0)
			updates = check_txn_counts(&h, &k);
	}
	updates = check_txn_counts(&h, &k);
	assert_true(h.dbs[0].txn.ended > 19000);
	assert_true(k.log_done > 0);
	/* group commit: 16 streams, 70% lazy commits, one log write at a time:
	 * writes carry several commits, and no more than were made */
	assert_true(h.dbs[0].log.commits <= updates);
	assert_true((double)h.dbs[0].log.commits / k.log_done > 1.5);
	h_release(&h);
}

/* A log write too short for what is buffered (segments of 8 KiB, records
 * of 3 KiB a page: a write often stops at the segment's end) carries its
 * share of the commits; the rest follow with the next. */
static void test_log_commits_partial_writes(void **state)
{
	struct harness h;
	struct counts k = {0};

	(void)state;
	h_profile(&h);
	h.p.log_record_size = 3072;
	h.p.log_segment_size = 8192;
	h.streams[0] = 8;
	h.on_issue = on_issue;
	h.on_done = on_log_done;
	h.arg = &k;
	h_start(&h, 4096);
	for (unsigned n = 0; k.txn[0] + k.txn[1] + k.txn[2] + k.txn[3] < 5000; n++) {
		assert_true(h_step(&h));
		if (n % 31 == 0)
			check_txn_counts(&h, &k);
	}
	check_txn_counts(&h, &k);
	assert_true(k.log_partial > 0);
	assert_true(h.dbs[0].log.commits > 0);
	h_release(&h);
}

/* Open loop's own queue: with no transaction begun, every arrival waits;
 * the interval's peak, time-weighted mean and busy time follow from the
 * Poisson arrivals (rate 1000/s over 1 s: about 1000, mean about half). */
static void test_backlog_accounting(void **state)
{
	struct wl_ctx c = {0};
	struct wl_backlog_iv iv;
	uint64_t n;

	(void)state;
	c.arr_rng = c.bl.rng = 12345;
	c.nstreams = c.max_streams = 2;
	wl_arrivals_init(&c, 1000, 0);
	wl_backlog_take(&c, NSEC_PER_SEC, &iv);
	n = wl_backlog_now(&c);
	assert_in_range(n, 900, 1100);
	assert_true(iv.peak == n || iv.peak + 1 == n); /* one at t itself waited 0 ns */
	assert_in_range(iv.area / NSEC_PER_SEC, n / 2 - 60, n / 2 + 60);
	assert_int_equal(iv.busy_ns, NSEC_PER_SEC); /* the first arrival is at 0 */
	assert_int_equal(iv.streams, 2);
	/* all begun: the next interval holds at most the few that arrive in it */
	c.bl.begun = c.bl.arrived;
	wl_backlog_take(&c, NSEC_PER_SEC + NSEC_PER_MSEC, &iv);
	assert_true(iv.peak <= 10);
	assert_true(iv.busy_ns < NSEC_PER_MSEC);
	/* nothing arrives before the frontier: an empty interval is all zeros */
	c.bl.begun = c.bl.arrived;
	c.bl.frontier = UINT64_MAX / 2;
	wl_backlog_take(&c, 2 * NSEC_PER_SEC, &iv);
	assert_int_equal(iv.peak, 0);
	assert_int_equal(iv.area, 0);
	assert_int_equal(iv.busy_ns, 0);
}

static void test_fixed_read_share(void **state)
{
	struct harness h;
	struct counts k = {0};

	(void)state;
	h_profile(&h);
	h.p.model = PROFILE_MODEL_FIXED;
	h.p.read_pct = 70;
	h.streams[0] = 16;
	h.on_issue = on_issue;
	h.arg = &k;
	h_start(&h, 1024);
	while (k.reads + k.writes < 40000)
		assert_true(h_step(&h));
	assert_true(fabs((double)k.reads / (k.reads + k.writes) - 0.70) < 0.01);
	assert_int_equal(k.overlap, 0);
	/* the fixed model has no transactions */
	assert_int_equal(h.dbs[0].txn.ended, 0);
	assert_int_equal(h.dbs[0].log.commits, 0);
	h_release(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mix_ratios),
		cmocka_unit_test(test_fixed_read_share),
		cmocka_unit_test(test_backlog_accounting),
		cmocka_unit_test(test_txns_counted),
		cmocka_unit_test(test_log_commits_partial_writes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
