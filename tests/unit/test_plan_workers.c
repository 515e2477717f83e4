/* SPDX-License-Identifier: MIT */
/*
 * test_plan_workers.c - plan_workers_layout(), the one worker-layout rule:
 * in the jetstress model databases go round robin over the workers and a
 * worker with d of D databases carries S x d / D of the S streams (whole
 * streams plus one part-time stream for the fraction), so the workers'
 * shares add up to S at any count, fewer streams than databases included;
 * the fixed model's workers each drive a page share of every database with
 * S / W streams.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "diskproof/plan.h"
#include "diskproof/profile.h"

struct layout {
	struct profile p;
	struct plan pl;
	struct plan_workers lw;
};

static void layout(struct layout *l, const char *text, unsigned streams)
{
	struct strbuf err = STRBUF_INIT;

	if (profile_parse(&l->p, "t.ini", text, strlen(text), &err))
		fail_msg("%s", err.buf);
	if (plan_build(&l->pl, &l->p, false, &err))
		fail_msg("%s", err.buf);
	assert_int_equal(plan_workers_layout(&l->p, &l->pl, streams, 2, &l->lw), 0);
	strbuf_release(&err);
}

static void layout_release(struct layout *l)
{
	plan_workers_release(&l->lw);
	plan_workers_release(&l->lw); /* safe twice */
	plan_release(&l->pl);
	profile_release(&l->p);
}

/* The workers' shares add up to the streams; each is its databases' part. */
static void check_shares(const struct layout *l, unsigned streams)
{
	double sum = 0;

	for (unsigned w = 0; w < l->lw.nworkers; w++) {
		unsigned d = l->lw.first[w + 1] - l->lw.first[w];
		double share = (double)streams * d / (double)l->pl.nr_dbs;
		double slots = l->lw.nstreams[w] - 1 + l->lw.duty[w];

		assert_true(fabs(l->lw.share[w] - share) < 1e-9);
		/* full-time streams plus the part-time one's duty */
		assert_true(fabs(slots - share) < 1e-9);
		assert_true(l->lw.duty[w] > 0 && l->lw.duty[w] <= 1);
		sum += l->lw.share[w];
	}
	assert_true(fabs(sum - streams) < 1e-9);
}

static void test_jetstress_shares(void **state)
{
	static const char ini[] = "[engine]\nname = io_uring\nworkers = 2\n"
				  "[volume v1]\npath = /d\ndatabases = 15\n";
	static const unsigned counts[] = {1, 4, 15, 16, 45, 100};
	struct layout l;

	(void)state;
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		layout(&l, ini, counts[i]);
		assert_int_equal(l.lw.nworkers, 2);
		/* round robin: 8 and 7 databases, each whole */
		assert_int_equal(l.lw.first[1], 8);
		assert_int_equal(l.lw.first[2], 15);
		assert_int_equal(l.lw.wdb[1].db, 2);
		assert_int_equal(l.lw.wdb[8].db, 1);
		assert_int_equal(l.lw.wdb[0].n, l.pl.dbs[0].nr_pages);
		check_shares(&l, counts[i]);
		layout_release(&l);
	}
	/* 16 on 15: 8.533 and 7.467 streams: 8 + 0.533 and 7 + 0.467 */
	layout(&l, ini, 16);
	assert_int_equal(l.lw.nstreams[0], 9);
	assert_int_equal(l.lw.nstreams[1], 8);
	assert_true(fabs(l.lw.duty[0] - 8.0 / 15) < 1e-9);
	layout_release(&l);
	/* 45 on 15: 24 and 21, all full time */
	layout(&l, ini, 45);
	assert_int_equal(l.lw.nstreams[0], 24);
	assert_int_equal(l.lw.nstreams[1], 21);
	assert_true(l.lw.duty[0] == 1 && l.lw.duty[1] == 1);
	layout_release(&l);
	/* 1 on 15: a part-time stream each, 8/15 and 7/15 of the time */
	layout(&l, ini, 1);
	assert_int_equal(l.lw.nstreams[0], 1);
	assert_int_equal(l.lw.nstreams[1], 1);
	assert_true(fabs(l.lw.duty[1] - 7.0 / 15) < 1e-9);
	layout_release(&l);
}

static void test_fixed_every_database(void **state)
{
	struct layout l;

	(void)state;
	layout(&l,
	       "[workload]\nmodel = fixed\n[engine]\nname = io_uring\nworkers = 2\n"
	       "[volume v1]\npath = /d\ndatabases = 3\n",
	       5);
	assert_int_equal(l.lw.nworkers, 2);
	/* each worker: its half of every database's pages */
	assert_int_equal(l.lw.first[1], 3);
	assert_int_equal(l.lw.first[2], 6);
	assert_int_equal(l.lw.wdb[3].lo, l.pl.dbs[0].nr_pages / 2);
	assert_int_equal(l.lw.nstreams[0], 3);
	assert_int_equal(l.lw.nstreams[1], 2);
	assert_true(l.lw.duty[0] == 1 && l.lw.duty[1] == 1);
	assert_true(fabs(l.lw.share[0] + l.lw.share[1] - 5) < 1e-9);
	layout_release(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_jetstress_shares),
		cmocka_unit_test(test_fixed_every_database),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
