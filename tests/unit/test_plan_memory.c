/* SPDX-License-Identifier: MIT */
/*
 * test_plan_memory.c - run_memory_estimate(), the memory a run of a plan
 * needs at most: its parts add up, each grows with what it counts (pages,
 * databases, streams), the engine without files keeps no journal copy, the
 * fixed model counts every worker's snapshots of every database, and 100,000
 * tiny databases need far more than a small host has (the integration test
 * test_plan_memory.sh holds plan and run to refusing it).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "diskproof/plan.h"
#include "diskproof/profile.h"
#include "diskproof/run.h"

#define GIB (1ULL << 30)

static void estimate(const char *text, unsigned cpus, struct run_memory *m)
{
	struct strbuf err = STRBUF_INIT;
	struct profile p;
	struct plan pl;

	if (profile_parse(&p, "t.ini", text, strlen(text), &err))
		fail_msg("%s", err.buf);
	if (plan_build(&pl, &p, false, &err))
		fail_msg("%s", err.buf);
	run_memory_estimate(&pl, &p, cpus, m);
	assert_int_equal(m->total, m->pages + m->databases + m->buffers + m->other);
	plan_release(&pl);
	profile_release(&p);
	strbuf_release(&err);
}

static void test_parts(void **state)
{
	struct run_memory one, two, big, more;

	(void)state;
	estimate("[engine]\nname = sim\n[sizing]\ndatabase_size = 32MiB\n[volume v]\npath = /d\n",
		 2, &one);
	/* sim: expected generation and busy map, no journal copy: 5 B a page */
	assert_int_equal(one.pages, 1024 * 5);
	assert_true(one.other >= 64ULL << 20);
	estimate("[engine]\nname = sim\n[sizing]\ndatabase_size = 32MiB\n[volume v]\npath = "
		 "/d\ndatabases = 2\n",
		 2, &two);
	assert_int_equal(two.pages, 2 * one.pages);
	assert_int_equal(two.databases, 2 * one.databases);
	assert_true(two.buffers > one.buffers);
	/* the log record ring alone is 512 KiB a database */
	assert_true(one.databases >= 512 * 1024);
	estimate("[engine]\nname = sim\nstreams = 40\n[sizing]\ndatabase_size = 32MiB\n[volume "
		 "v]\npath = /d\ndatabases = 2\n",
		 2, &more);
	assert_int_equal(more.buffers - two.buffers, 36ULL * (32768 + 320));
	/* 16 GiB of 8 KiB pages: 2 M pages, 5 B each */
	estimate("[engine]\nname = sim\n[workload]\npage_size = 8KiB\n[sizing]\ndatabase_size = "
		 "16GiB\n[volume v]\npath = /d\n",
		 2, &big);
	assert_int_equal(big.pages, (2ULL << 20) * 5);
}

static void test_fixed_counts_workers(void **state)
{
	static const char *const text = "[engine]\nname = sim\nstreams = 8\n[workload]\nmodel = "
					"fixed\n[sizing]\ndatabase_size = 1MiB\n[volume v]\npath "
					"= /d\ndatabases = 4\n";
	static const char *const psync = "[engine]\nname = psync\nstreams = 8\n[workload]\nmodel "
					 "= fixed\n[sizing]\ndatabase_size = 1MiB\n[volume "
					 "v]\npath = /d\ndatabases = 4\n";
	struct run_memory sim, w2, w8;

	(void)state;
	estimate(text, 8, &sim); /* sim: one worker */
	estimate(psync, 2, &w2);
	estimate(psync, 8, &w8);
	assert_true(w8.databases > w2.databases);
	/* snapshots: once per worker and database; sim runs one worker */
	assert_int_equal(w8.databases - sim.databases, 7 * (w2.databases - sim.databases));
}

static void test_hundred_thousand(void **state)
{
	struct strbuf text = STRBUF_INIT;
	struct run_memory m;

	(void)state;
	strbuf_addstr(&text, "[engine]\nname = sim\n[sizing]\ndatabase_size = 32KiB\nlog_size = "
			     "128KiB\n[workload]\nlog_segment_size = 64KiB\nbdm_io_size = 32KiB\n");
	for (int i = 0; i < 100; i++)
		strbuf_addf(&text, "[volume v%d]\npath = /d%d\ndatabases = 1000\n", i, i);
	estimate(text.buf, 2, &m);
	assert_true(m.total > 64 * GIB);
	strbuf_release(&text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parts),
		cmocka_unit_test(test_fixed_counts_workers),
		cmocka_unit_test(test_hundred_thousand),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
