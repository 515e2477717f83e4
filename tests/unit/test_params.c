/* SPDX-License-Identifier: MIT */
/*
 * test_params.c - a profile's effective parameters (profile_params) and two
 * runs' parameter differences (analyze_param_diffs): every key listed with
 * the value the run used, spelled as a profile writes it; its source
 * (profile, default, option, derived) right in each case; and a difference
 * found for a [sim] key, a volume key, the streams and the profile, none for
 * a run against itself.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "diskproof/analyze.h"
#include "diskproof/profile.h"

static void parse_ok(struct profile *p, const char *text)
{
	struct strbuf err = STRBUF_INIT;

	if (profile_parse(p, "t.ini", text, strlen(text), &err))
		fail_msg("unexpected errors:\n%s", err.buf);
	strbuf_release(&err);
}

static const struct profile_param *find(const struct profile_param *v, size_t n,
					const char *section, const char *name, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].section, section) && !strcmp(v[i].name, name) &&
		    !strcmp(v[i].key, key))
			return &v[i];
	fail_msg("no parameter [%s %s] %s", section, name, key);
	return NULL;
}

static void expect(const struct profile_param *v, size_t n, const char *section, const char *name,
		   const char *key, const char *value, enum profile_param_source src)
{
	const struct profile_param *p = find(v, n, section, name, key);

	if (value)
		assert_string_equal(p->value, value);
	else
		assert_null(p->value);
	assert_string_equal(profile_param_source_name(p->source), profile_param_source_name(src));
}

static void test_every_key_and_source(void **state)
{
	struct profile p;
	struct profile_param *v;
	size_t n, nk, nvol_keys = 0, nquiet = 0;
	const struct profile_key *keys = profile_keys(&nk);

	(void)state;
	parse_ok(&p, "[test]\ntype = stress\n[sizing]\nmailboxes = 300\nmailbox_size = 1GiB\n"
		     "iops_per_mailbox = 0.1\n[sim]\nread_latency = 4ms\njitter = 5%\n"
		     "[volume v1]\npath = /d1\nlog_path = /l1\n[volume v2]\npath = /d2\n");
	assert_int_equal(profile_params(&p, &v, &n), 0);
	for (size_t i = 0; i < nk; i++) {
		nvol_keys += !strcmp(keys[i].section, "volume");
		nquiet += keys[i].listed_when_set;
	}
	/* every key once, each volume's keys once per volume; those listed
	 * only when set (the InnoDB-like keys) not at their defaults */
	assert_int_equal(n, nk - nvol_keys + 2 * nvol_keys - nquiet);
	for (size_t i = 0; i < n; i++)
		assert_false(!strcmp(v[i].key, "doublewrite"));
	expect(v, n, "test", "", "type", "stress", PROFILE_PARAM_PROFILE);
	/* a stress test's duration and its lenient maxima follow from the type */
	expect(v, n, "test", "", "duration", "1d", PROFILE_PARAM_DERIVED);
	expect(v, n, "thresholds", "", "db_read_max", "200ms", PROFILE_PARAM_DERIVED);
	expect(v, n, "thresholds", "", "db_read_avg", "20ms", PROFILE_PARAM_DEFAULT);
	/* sized from mailboxes: 300 x 1 GiB over 2 databases */
	expect(v, n, "sizing", "", "database_size", "150GiB", PROFILE_PARAM_DERIVED);
	expect(v, n, "sizing", "", "target_iops", "30", PROFILE_PARAM_DERIVED);
	expect(v, n, "sizing", "", "iops_per_mailbox", "0.1", PROFILE_PARAM_PROFILE);
	expect(v, n, "sim", "", "read_latency", "4ms", PROFILE_PARAM_PROFILE);
	expect(v, n, "sim", "", "jitter", "5%", PROFILE_PARAM_PROFILE);
	expect(v, n, "sim", "", "write_latency", "3ms", PROFILE_PARAM_DEFAULT);
	expect(v, n, "workload", "", "page_size", "32KiB", PROFILE_PARAM_DEFAULT);
	expect(v, n, "workload", "", "bdm", "on", PROFILE_PARAM_DEFAULT);
	expect(v, n, "engine", "", "name", "io_uring", PROFILE_PARAM_DEFAULT);
	/* unset streams are 2 per database, the count the run uses */
	expect(v, n, "engine", "", "streams", "4", PROFILE_PARAM_DERIVED);
	/* optional, not set: not judged */
	expect(v, n, "thresholds", "", "db_read_p99", NULL, PROFILE_PARAM_DEFAULT);
	expect(v, n, "volume", "v1", "log_path", "/l1", PROFILE_PARAM_PROFILE);
	expect(v, n, "volume", "v2", "path", "/d2", PROFILE_PARAM_PROFILE);
	profile_params_release(v, n);
	profile_release(&p);
}

static void test_options_win(void **state)
{
	struct profile p;
	struct profile_param *v;
	struct strbuf err = STRBUF_INIT;
	struct profile_overrides o = {.has_duration = true,
				      .duration_ns = 90 * NSEC_PER_SEC,
				      .engine = "sim",
				      .streams = 6,
				      .data_dir = "/tmp/x"};
	size_t n;

	(void)state;
	parse_ok(&p, "[test]\nduration = 10m\n[volume v1]\npath = /d1\n");
	assert_int_equal(profile_apply_overrides(&p, &o, &err), 0);
	assert_int_equal(profile_params(&p, &v, &n), 0);
	expect(v, n, "test", "", "duration", "90s", PROFILE_PARAM_OPTION);
	expect(v, n, "engine", "", "name", "sim", PROFILE_PARAM_OPTION);
	expect(v, n, "engine", "", "streams", "6", PROFILE_PARAM_OPTION);
	expect(v, n, "volume", "v1", "path", "/tmp/x/v1", PROFILE_PARAM_OPTION);
	expect(v, n, "test", "", "warmup", "0s", PROFILE_PARAM_DEFAULT);
	profile_params_release(v, n);
	profile_release(&p);
	strbuf_release(&err);
}

/* --data-dir keeps the profile's layout: volumes whose logs shared a
 * directory share the first one's DIR/NAME-log (one sim log device, as the
 * profile has), a volume with its own logs gets its own, and logs on the
 * data directory stay there. */
static void test_data_dir_keeps_shared_logs(void **state)
{
	struct profile p;
	struct strbuf err = STRBUF_INIT;
	struct profile_overrides o = {.data_dir = "/tmp/x"};

	(void)state;
	parse_ok(&p, "[volume v1]\npath = /d1\nlog_path = /logs\n[volume v2]\npath = /d2\n"
		     "log_path = /logs\n[volume v3]\npath = /d3\nlog_path = /l3\n"
		     "[volume v4]\npath = /d4\n");
	assert_int_equal(profile_apply_overrides(&p, &o, &err), 0);
	assert_string_equal(p.volumes[0].log_path, "/tmp/x/v1-log");
	assert_string_equal(p.volumes[1].log_path, "/tmp/x/v1-log");
	assert_string_equal(p.volumes[1].path, "/tmp/x/v2");
	assert_string_equal(p.volumes[2].log_path, "/tmp/x/v3-log");
	assert_string_equal(p.volumes[3].log_path, "/tmp/x/v4");
	profile_release(&p);
	strbuf_release(&err);
}

/* A results model holding p's parameters, as the store hands them back. */
static void to_results(struct results *r, const char *text, const char *name, unsigned streams)
{
	struct profile p;
	struct profile_param *v;
	size_t n;

	memset(r, 0, sizeof(*r));
	parse_ok(&p, text);
	assert_int_equal(profile_params(&p, &v, &n), 0);
	r->params = calloc(n, sizeof(*r->params));
	assert_non_null(r->params);
	for (size_t i = 0; i < n; i++) {
		snprintf(r->params[i].section, sizeof(r->params[i].section), "%s", v[i].section);
		snprintf(r->params[i].name, sizeof(r->params[i].name), "%s", v[i].name);
		snprintf(r->params[i].key, sizeof(r->params[i].key), "%s", v[i].key);
		snprintf(r->params[i].source, sizeof(r->params[i].source), "%s",
			 profile_param_source_name(v[i].source));
		r->params[i].value = v[i].value ? strdup(v[i].value) : NULL;
	}
	r->nr_params = n;
	r->profile_name = strdup(name);
	r->streams = streams;
	r->duration_s = 600;
	profile_params_release(v, n);
	profile_release(&p);
}

static const struct analyze_param_diff *diff_find(const struct analyze_param_diff *d, size_t n,
						  const char *what)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(d[i].what, what))
			return &d[i];
	fail_msg("no difference %s", what);
	return NULL;
}

static void test_diffs(void **state)
{
	struct results a, b;
	struct analyze_param_diff *d;
	const struct analyze_param_diff *e;
	size_t n;

	(void)state;
	to_results(&a, "[sim]\nread_latency = 2ms\n[volume v1]\npath = /d1\n", "cache-90-10", 8);
	to_results(&b,
		   "[sim]\nread_latency = 3ms\n[volume v1]\npath = /d1\ndatabases = 2\n"
		   "[volume v2]\npath = /d2\n",
		   "cache-75-25", 12);
	assert_int_equal(analyze_param_diffs(&a, &b, &d, &n), 0);
	e = diff_find(d, n, "profile");
	assert_string_equal(e->a, "cache-90-10");
	assert_string_equal(e->b, "cache-75-25");
	e = diff_find(d, n, "streams (as run)");
	assert_string_equal(e->a, "8");
	assert_string_equal(e->b, "12");
	e = diff_find(d, n, "[sim] read_latency");
	assert_string_equal(e->a, "2ms");
	assert_string_equal(e->b, "3ms");
	assert_string_equal(e->source_a, "profile");
	e = diff_find(d, n, "[volume v1] databases");
	assert_string_equal(e->a, "1");
	assert_string_equal(e->source_a, "default");
	assert_string_equal(e->b, "2");
	e = diff_find(d, n, "[volume v2] path"); /* only in B */
	assert_null(e->a);
	assert_string_equal(e->b, "/d2");
	/* the same key with the same value is not listed */
	for (size_t i = 0; i < n; i++)
		assert_string_not_equal(d[i].what, "[sim] write_latency");
	analyze_param_diffs_release(d, n);

	results_release(&b);

	/* a volume's [sim NAME] key against the other run's [sim], which that
	 * volume's device inherits there */
	to_results(&b,
		   "[sim]\nread_latency = 2ms\n[sim v1]\nread_latency = 2.5ms\n"
		   "[volume v1]\npath = /d1\n",
		   "cache-90-10", 8);
	assert_int_equal(analyze_param_diffs(&a, &b, &d, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(d[0].what, "[sim v1] read_latency");
	assert_string_equal(d[0].a, "2ms");
	assert_string_equal(d[0].source_a, "from [sim]");
	assert_string_equal(d[0].b, "2500us");
	analyze_param_diffs_release(d, n);
	/* the same value set both ways is no difference */
	results_release(&b);
	to_results(&b,
		   "[sim]\nread_latency = 1ms\n[sim v1]\nread_latency = 2ms\n"
		   "[volume v1]\npath = /d1\n",
		   "cache-90-10", 8);
	assert_int_equal(analyze_param_diffs(&a, &b, &d, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(d[0].what, "[sim] read_latency");
	analyze_param_diffs_release(d, n);

	/* a volume the other run does not have inherits nothing: absent */
	results_release(&b);
	to_results(
		&b,
		"[sim v2]\nread_latency = 5ms\n[volume v1]\npath = /d1\n[volume v2]\npath = /d2\n",
		"cache-90-10", 8);
	assert_int_equal(analyze_param_diffs(&a, &b, &d, &n), 0);
	e = diff_find(d, n, "[sim v2] read_latency");
	assert_null(e->a);
	assert_string_equal(e->b, "5ms");
	analyze_param_diffs_release(d, n);

	/* a run against itself: nothing */
	assert_int_equal(analyze_param_diffs(&a, &a, &d, &n), 0);
	assert_int_equal(n, 0);
	assert_null(d);
	results_release(&a);
	results_release(&b);
}

static void test_sim_sections(void **state)
{
	struct profile p;
	struct profile_param *v;
	size_t n;

	(void)state;
	parse_ok(&p, "[sim]\nread_latency = 10ms\n[sim d3]\nread_latency = 12ms\n"
		     "saturation_iops = 250\n[sim-log d1]\nlog_write_latency = 500us\n"
		     "[volume d1]\npath = /d1\nlog_path = /logs/a\n"
		     "[volume d2]\npath = /d2\nlog_path = /logs/a\n"
		     "[volume d3]\npath = /d3\n");
	assert_int_equal(profile_params(&p, &v, &n), 0);
	expect(v, n, "sim", "", "read_latency", "10ms", PROFILE_PARAM_PROFILE);
	expect(v, n, "sim", "d3", "read_latency", "12ms", PROFILE_PARAM_PROFILE);
	expect(v, n, "sim", "d3", "saturation_iops", "250", PROFILE_PARAM_PROFILE);
	expect(v, n, "sim-log", "d1", "log_write_latency", "500us", PROFILE_PARAM_PROFILE);
	/* d2 shares d1's log path, so d1's [sim-log] sets its log device */
	expect(v, n, "sim-log", "d2", "log_write_latency", "500us", PROFILE_PARAM_DERIVED);
	/* only the keys a section set are listed for a volume */
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(v[i].section, "sim") && *v[i].name)
			assert_string_equal(v[i].name, "d3");
		assert_false(!strcmp(v[i].section, "sim") && !strcmp(v[i].name, "d3") &&
			     !strcmp(v[i].key, "write_latency"));
	}
	profile_params_release(v, n);
	profile_release(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_key_and_source),
		cmocka_unit_test(test_options_win),
		cmocka_unit_test(test_diffs),
		cmocka_unit_test(test_sim_sections),
		cmocka_unit_test(test_data_dir_keeps_shared_logs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
