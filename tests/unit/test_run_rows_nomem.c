/* SPDX-License-Identifier: MIT */
/*
 * test_run_rows_nomem.c - the coordinator's interval rows when memory runs
 * out: a sim run whose first growth of the rows array fails (realloc is
 * wrapped at link time, -Wl,--wrap=realloc, and fails the one call that
 * makes the rows' first 64) ends as a run whose results file cannot be
 * written: exit 3, "error", the message saying what ran out. Before, the
 * coordinator called abort().
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "diskproof/run.h"
#include "diskproof/store.h"

void *__real_realloc(void *ptr, size_t size);
void *__wrap_realloc(void *ptr, size_t size);

static bool armed;
static unsigned failed;

/* The rows' first allocation: realloc(NULL, 64 rows); every other call,
 * and every call while not armed, is the real one. */
void *__wrap_realloc(void *ptr, size_t size)
{
	if (armed && !ptr && size == 64 * sizeof(struct store_sample)) {
		failed++;
		return NULL;
	}
	return __real_realloc(ptr, size);
}

static void test_rows_nomem(void **state)
{
	char dir[] = "/tmp/dp-test-rows-nomem-XXXXXX";
	struct strbuf err = STRBUF_INIT, path = STRBUF_INIT, db = STRBUF_INIT;
	struct run_outcome out = {0};
	struct run_options ro = {0};
	struct profile p;
	FILE *f;
	int ret;

	(void)state;
	assert_non_null(mkdtemp(dir));
	strbuf_addf(&path, "%s/sim.ini", dir);
	strbuf_addf(&db, "%s/r.db", dir);
	f = fopen(path.buf, "w");
	assert_non_null(f);
	fputs("[test]\nduration = 30s\nwarmup = 0s\n[engine]\nname = sim\nstreams = 4\n"
	      "[sim]\nseed = 3\n[volume v1]\npath = /nonexistent/v1\ndatabases = 2\n",
	      f);
	fclose(f);
	if (profile_load_file(&p, path.buf, &err))
		fail_msg("%s", err.buf);
	ro.profile = &p;
	ro.results_path = db.buf;
	ro.command_line = "test_run_rows_nomem";
	ro.signal_fd = -1;
	armed = true;
	ret = run_execute(&ro, &out, &err);
	armed = false;
	assert_int_equal(failed, 1);
	assert_true(ret < 0);
	assert_int_equal(out.exit_code, DP_EXIT_ENV);
	assert_string_equal(out.status, "error");
	if (!strstr(err.buf, "results file: interval rows: out of memory (64 rows)"))
		fail_msg("unexpected message: %s", err.buf);

	profile_release(&p);
	for (const char *const *sfx = (const char *const[]){"", "-wal", "-shm", NULL}; *sfx;
	     sfx++) {
		strbuf_reset(&err);
		strbuf_addf(&err, "%s%s", db.buf, *sfx);
		unlink(err.buf);
	}
	unlink(path.buf);
	rmdir(dir);
	strbuf_release(&err);
	strbuf_release(&path);
	strbuf_release(&db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows_nomem),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
