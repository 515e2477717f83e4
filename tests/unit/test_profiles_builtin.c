/* SPDX-License-Identifier: MIT */
/*
 * test_profiles_builtin.c - every profile shipped in profiles/ parses without
 * an error, every built-in (embedded at build time) parses too, the two sets
 * are the same profiles with the same text, and each has a one-line
 * description for "diskproof profiles".
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "diskproof/profile.h"

#define PROFILES_DIR DP_SOURCE_DIR "/profiles"

static bool is_ini(const char *name)
{
	size_t n = strlen(name);

	return n > 4 && !strcmp(name + n - 4, ".ini") && name[0] != '.';
}

static void check_profile(const struct profile *p, const char *name)
{
	assert_string_equal(p->name, name);
	if (!p->description || !*p->description || strchr(p->description, '\n'))
		fail_msg("%s: needs a one-line [test] description", name);
	assert_true(p->nr_volumes >= 1);
	assert_true(profile_database_count(p) >= 1);
}

static void test_files_parse(void **state)
{
	struct strbuf err = STRBUF_INIT, path = STRBUF_INIT;
	struct dirent *de;
	struct profile p;
	unsigned n = 0;
	DIR *d;

	d = opendir(PROFILES_DIR);
	assert_non_null(d);
	while ((de = readdir(d))) {
		char name[256];

		if (!is_ini(de->d_name))
			continue;
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s", PROFILES_DIR, de->d_name);
		if (profile_load_file(&p, path.buf, &err))
			fail_msg("%s", err.buf);
		snprintf(name, sizeof(name), "%.*s", (int)(strlen(de->d_name) - 4), de->d_name);
		check_profile(&p, name);
		profile_release(&p);
		n++;
	}
	closedir(d);
	assert_true(n >= 4);
	strbuf_release(&err);
	strbuf_release(&path);
}

static void test_builtins_parse(void **state)
{
	const struct profile_builtin *b;
	struct strbuf err = STRBUF_INIT;
	struct profile p;
	size_t n, i;

	b = profile_builtins(&n);
	assert_true(n >= 4);
	for (i = 0; i < n; i++) {
		if (profile_resolve(&p, b[i].name, &err))
			fail_msg("builtin %s: %s", b[i].name, err.buf);
		check_profile(&p, b[i].name);
		assert_string_equal(p.text, b[i].text);
		profile_release(&p);
		if (i)
			assert_true(strcmp(b[i - 1].name, b[i].name) < 0); /* sorted */
	}
	strbuf_release(&err);
}

/* The embedded set is exactly the file set, text for text. */
static void test_builtins_match_files(void **state)
{
	struct strbuf path = STRBUF_INIT, text = STRBUF_INIT;
	struct dirent *de;
	size_t n, files = 0;
	char buf[4096];
	size_t r;
	FILE *f;
	DIR *d;

	profile_builtins(&n);
	d = opendir(PROFILES_DIR);
	assert_non_null(d);
	while ((de = readdir(d))) {
		char name[256];

		if (!is_ini(de->d_name))
			continue;
		files++;
		snprintf(name, sizeof(name), "%.*s", (int)(strlen(de->d_name) - 4), de->d_name);
		if (!profile_builtin_find(name))
			fail_msg("profiles/%s is not built in (re-run cmake?)", de->d_name);
		strbuf_reset(&path);
		strbuf_reset(&text);
		strbuf_addf(&path, "%s/%s", PROFILES_DIR, de->d_name);
		f = fopen(path.buf, "r");
		assert_non_null(f);
		while ((r = fread(buf, 1, sizeof(buf), f)) > 0)
			strbuf_add(&text, buf, r);
		fclose(f);
		assert_string_equal(profile_builtin_find(name)->text, text.buf);
	}
	closedir(d);
	assert_int_equal(files, n);
	strbuf_release(&path);
	strbuf_release(&text);
}

/* What each shipped profile promises. */
static void test_builtin_contents(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct profile p;

	assert_int_equal(profile_resolve(&p, "quick", &err), 0);
	assert_int_equal(p.nr_volumes, 2);
	assert_int_equal(profile_database_count(&p), 4);
	assert_int_equal(p.database_size, 64ULL << 20);
	assert_int_equal(p.log_size, 16ULL << 20);
	assert_int_equal(p.duration_ns, 30 * NSEC_PER_SEC);
	assert_int_equal(p.warmup_ns, 2 * NSEC_PER_SEC);
	assert_string_equal(p.engine, "io_uring");
	assert_int_equal(p.streams, 8);
	assert_string_equal(p.volumes[0].path, "./diskproof-data/vol1");
	profile_release(&p);

	assert_int_equal(profile_resolve(&p, "exchange-2013", &err), 0);
	assert_int_equal(p.type, PROFILE_TEST_PERFORMANCE);
	assert_int_equal(p.duration_ns, 2 * 3600 * NSEC_PER_SEC);
	assert_int_equal(p.nr_volumes, 1);
	assert_int_equal(p.volumes[0].databases, 4);
	assert_int_equal(p.database_size, 1ULL << 30);
	assert_string_equal(p.volumes[0].path, "./diskproof-data/vol1");
	assert_string_equal(p.volumes[0].log_path, "./diskproof-data/vol1-log");
	assert_string_equal(p.engine, "io_uring");
	assert_false(p.thresholds.lenient);
	profile_release(&p);

	assert_int_equal(profile_resolve(&p, "stress", &err), 0);
	assert_int_equal(p.type, PROFILE_TEST_STRESS);
	assert_int_equal(p.duration_ns, 24 * 3600 * NSEC_PER_SEC);
	assert_true(p.thresholds.lenient);
	assert_int_equal(p.thresholds.db_read_max_ns, 200 * NSEC_PER_MSEC);
	assert_int_equal(p.thresholds.log_write_max_ns, 200 * NSEC_PER_MSEC);
	profile_release(&p);

	assert_int_equal(profile_resolve(&p, "sim-quick", &err), 0);
	assert_string_equal(p.engine, "sim");
	assert_int_equal(p.duration_ns, 2 * 3600 * NSEC_PER_SEC);
	assert_int_equal(p.nr_volumes, 2);
	assert_int_equal(profile_database_count(&p), 4);
	assert_int_equal(p.sim.read_latency_ns, 2 * NSEC_PER_MSEC);
	profile_release(&p);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_files_parse),
		cmocka_unit_test(test_builtins_parse),
		cmocka_unit_test(test_builtins_match_files),
		cmocka_unit_test(test_builtin_contents),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
