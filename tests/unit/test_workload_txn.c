/*
 * test_workload_txn.c - the transaction streams driven alone (txn.c): over
 * many transactions the mix of inserts, deletes, replaces and seeks, and the
 * mean pages each reads, are the profile's; the fixed model's read share is
 * its read_pct; no page ever has two I/Os in flight.
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
};

static void on_issue(struct harness *h, struct wl_slot *s)
{
	struct counts *k = h->arg;
	struct wl_db *d = &h->dbs[s->db];

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
	h_release(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mix_ratios),
		cmocka_unit_test(test_fixed_read_share),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
