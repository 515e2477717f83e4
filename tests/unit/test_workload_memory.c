/* SPDX-License-Identifier: MIT */
/*
 * test_workload_memory.c - wl_db_memory(), the generators' part of the
 * memory estimate that plan shows and plan, init and run refuse by, is an
 * upper bound of what the generators really allocate: one worker's
 * wl_ctx_init over 1,000 databases (a full dirty list each, with and
 * without checkpoints, the recovery test's replay state, the cache model's
 * ring), measured as glibc's allocator counts it (mallinfo2: the bytes in
 * use, chunk headers and whole mappings included), against 1,000 times the estimate of one
 * database. Skipped under a sanitizer's allocator, which glibc does not see.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <malloc.h>

#include "diskproof/plan.h"
#include "diskproof/profile.h"
#include "diskproof/workload.h"

/* the bytes in use: in the heap's chunks and in chunks of their own mapping */
static uint64_t heap_in_use(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
}

/* 1,000 databases of 8,192 pages (32 KiB) on one worker with the default
 * 2,000 streams, and the extra [workload] or [test] lines */
static void measure(const char *what, const char *extra)
{
	char text[512];
	struct strbuf err = STRBUF_INIT;
	struct profile p;
	struct plan pl;
	struct wl_ctx c;
	struct wl_db *dbs;
	struct wl_slot *slots;
	unsigned *idle, ndb, streams, nslots;
	uint64_t before, real, est = 0;

	snprintf(text, sizeof(text),
		 "[sizing]\ndatabase_size = 256MiB\nlog_size = 64MiB\n%s\n"
		 "[volume v]\npath = /nonexistent/v\ndatabases = 1000\n",
		 extra);
	if (profile_parse(&p, "t.ini", text, strlen(text), &err))
		fail_msg("%s", err.buf);
	if (plan_build(&pl, &p, false, &err))
		fail_msg("%s", err.buf);
	ndb = (unsigned)pl.nr_dbs;
	streams = 2 * ndb;
	assert_int_equal(ndb, 1000);
	nslots = wl_slot_count(&p, ndb, streams);
	slots = calloc(nslots, sizeof(*slots));
	idle = calloc(nslots, sizeof(*idle));
	assert_non_null(slots);
	assert_non_null(idle);
	memset(&c, 0, sizeof(c));
	/* the caller's table: its elements count per database, its header and
	 * page rounding are the run's bookkeeping */
	dbs = calloc(ndb, sizeof(*dbs));
	assert_non_null(dbs);
	for (unsigned i = 0; i < ndb; i++) {
		dbs[i].pdb = &pl.dbs[i];
		dbs[i].global = i;
		dbs[i].n = pl.dbs[i].nr_pages;
		dbs[i].log_align = 4096;
	}
	before = heap_in_use();
	assert_int_equal(wl_ctx_init(&c, &p, 0, dbs, ndb, streams, slots, nslots, idle), 0);
	real = heap_in_use() - before;
	if (!real) {
		wl_ctx_release(&c);
		free(dbs);
		free(slots);
		free(idle);
		plan_release(&pl);
		profile_release(&p);
		skip(); /* a sanitizer's allocator: glibc counts nothing */
	}
	real += ndb * sizeof(*dbs);
	for (unsigned i = 0; i < ndb; i++)
		est += wl_db_memory(&p, pl.dbs[i].nr_pages, streams);
	print_message("%s: allocated %llu B, estimated %llu B\n", what, (unsigned long long)real,
		      (unsigned long long)est);
	if (real > est)
		fail_msg("the estimate (%llu B) is below what 1,000 databases allocate (%llu B)",
			 (unsigned long long)est, (unsigned long long)real);
	wl_ctx_release(&c);
	free(dbs);
	free(slots);
	free(idle);
	plan_release(&pl);
	profile_release(&p);
	strbuf_release(&err);
}

static void test_default(void **state)
{
	(void)state;
	measure("default", "");
}

static void test_checkpoints(void **state)
{
	(void)state;
	measure("checkpoints", "[workload]\ncheckpoint_interval = 60s\n");
}

static void test_recovery(void **state)
{
	(void)state;
	measure("recovery", "[test]\ntype = recovery\nrecovery_segments = 8\n");
}

static void test_cache(void **state)
{
	(void)state;
	measure("cache", "[workload]\ncache_size = 64MiB\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default),
		cmocka_unit_test(test_checkpoints),
		cmocka_unit_test(test_recovery),
		cmocka_unit_test(test_cache),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
