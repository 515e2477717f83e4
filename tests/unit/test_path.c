/* SPDX-License-Identifier: MIT */
/*
 * test_path.c - the shared path helpers (util/path.c): joining, the directory
 * part, the nearest existing ancestor, resolving a path not there yet, and
 * "is under" by name (never by prefix alone).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "diskproof/util.h"

static void join_one(const char *dir, const char *name, const char *ext, const char *want)
{
	char *got = path_join(dir, name, ext);

	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

static void test_join(void **state)
{
	(void)state;
	join_one("/srv/v1", "db1", ".edb", "/srv/v1/db1.edb");
	join_one("/srv/v1/", "db1", ".log", "/srv/v1/db1.log");
	join_one("/srv/v1//", "db1", "", "/srv/v1/db1");
	join_one("/", "v1", "-log", "/v1-log");
	join_one("rel", "db2", NULL, "rel/db2");
	join_one("", "db1", ".gen", "db1.gen");
}

static void dirname_one(const char *path, const char *want)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(&sb, "stale");
	path_dirname(path, &sb);
	assert_string_equal(sb.buf, want);
	strbuf_release(&sb);
}

static void test_dirname(void **state)
{
	(void)state;
	dirname_one("/a/b/results.db", "/a/b");
	dirname_one("/results.db", "/");
	dirname_one("results.db", ".");
	dirname_one("a/b", "a");
}

static void test_nearest_existing(void **state)
{
	char tmpl[] = "/tmp/dp-path-XXXXXX", want[PATH_MAX], out[PATH_MAX], tiny[4];

	(void)state;
	assert_non_null(mkdtemp(tmpl));
	snprintf(want, sizeof(want), "%s/x/y/z", tmpl);
	assert_int_equal(path_nearest_existing(want, out, sizeof(out)), 0);
	assert_string_equal(out, tmpl);
	assert_int_equal(path_nearest_existing(tmpl, out, sizeof(out)), 0);
	assert_string_equal(out, tmpl);
	assert_int_equal(path_nearest_existing("no-such-dir-here/a", out, sizeof(out)), 0);
	assert_string_equal(out, ".");
	assert_int_equal(path_nearest_existing("/no-such-dir-here", out, sizeof(out)), 0);
	assert_string_equal(out, "/");
	assert_int_equal(path_nearest_existing(tmpl, tiny, sizeof(tiny)), -ENAMETOOLONG);
	assert_int_equal(rmdir(tmpl), 0);
}

static void test_resolve_same(void **state)
{
	char tmpl[] = "/tmp/dp-path-XXXXXX", p[PATH_MAX], dot[PATH_MAX];
	char *r;

	(void)state;
	assert_non_null(mkdtemp(tmpl));
	snprintf(p, sizeof(p), "%s/./new.db", tmpl);
	r = path_resolve(p);
	assert_non_null(r);
	snprintf(p, sizeof(p), "%s/new.db", tmpl);
	assert_string_equal(r, p);
	free(r);
	snprintf(p, sizeof(p), "%s/missing/new.db", tmpl);
	assert_null(path_resolve(p));
	snprintf(dot, sizeof(dot), "%s/.", tmpl);
	assert_true(path_same(tmpl, dot));
	assert_false(path_same(tmpl, "/"));
	snprintf(p, sizeof(p), "%s/missing", tmpl);
	assert_false(path_same(p, p)); /* neither resolves */
	assert_int_equal(rmdir(tmpl), 0);
}

static void test_is_under(void **state)
{
	(void)state;
	assert_true(path_is_under("/a", "/a"));
	assert_true(path_is_under("/a", "/a/b"));
	assert_false(path_is_under("/a", "/ab"));
	assert_false(path_is_under("/a/b", "/a"));
	assert_true(path_is_under("/", "/anything"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_join),
		cmocka_unit_test(test_dirname),
		cmocka_unit_test(test_nearest_existing),
		cmocka_unit_test(test_resolve_same),
		cmocka_unit_test(test_is_under),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
