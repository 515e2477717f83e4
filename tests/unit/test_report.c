/* SPDX-License-Identifier: MIT */
/*
 * test_report.c - the report renderers (report.h) and the results helpers
 * (results.h) on hand-built results: JSON is one valid document (checked by
 * python3's json module) with the documented keys and values and never nan
 * or inf; text puts the verdict first and failing verdicts above the table;
 * verdict sentences read exactly as documented; class summaries are computed
 * as results.h says; CSV has its header, one row per sample with rates over
 * each scope's own interval, and RFC 4180 quoting of names. Of the six I/O
 * classes, text and CSV show only those present (I/O or errors) and JSON
 * keeps every one; CSV reads a class missing from an interval as zeros.
 * Host counters: their figures over the measured intervals worked out by
 * hand, and their text, JSON and HTML sections (none without them).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diskproof/report.h"

/* Fills a scope with simple, distinct numbers. */
static void scope_fill(struct scope_summary *sc, const char *name, const char *volume, double base)
{
	int c;

	memset(sc, 0, sizeof(*sc));
	snprintf(sc->name, sizeof(sc->name), "%s", name);
	snprintf(sc->volume, sizeof(sc->volume), "%s", volume);
	for (c = 0; c < IO_CLASS_COUNT; c++) {
		sc->classes[c].ios = (uint64_t)(base * 1000) + (uint64_t)c;
		sc->classes[c].bytes = sc->classes[c].ios * 32768;
		sc->classes[c].iops = base * 10 + c;
		sc->classes[c].mbps = base + c / 10.0;
		sc->classes[c].avg_ms = 5.25 + c;
		sc->classes[c].p50_ms = 4.5;
		sc->classes[c].p99_ms = 12.125;
		sc->classes[c].max_ms = 80.0 + c;
	}
}

struct sample {
	struct results r;
	struct scope_summary vols[2];
	struct scope_summary dbs[2];
	struct verdict verdicts[4];
};

/* A two-volume run where db3 on vol2 fails its read average. */
static void sample_build(struct sample *s)
{
	static const struct verdict verdicts[] = {
		{.scope = SCOPE_RUN,
		 .name = "run",
		 .criterion = "transactional_iops",
		 .cmp = VERDICT_GE,
		 .threshold = 100,
		 .measured = 150.5,
		 .passed = true},
		{.scope = SCOPE_VOLUME,
		 .name = "vol1",
		 .criterion = "log_write_max_ms",
		 .cmp = VERDICT_LE,
		 .threshold = 100,
		 .measured = 81,
		 .passed = true},
		{.scope = SCOPE_DATABASE,
		 .name = "db3",
		 .volume = "vol2",
		 .criterion = "db_read_avg_ms",
		 .cmp = VERDICT_LE,
		 .threshold = 20,
		 .measured = 21.4,
		 .passed = false},
		{.scope = SCOPE_DATABASE,
		 .name = "db1",
		 .volume = "vol1",
		 .criterion = "db_read_avg_ms",
		 .cmp = VERDICT_LE,
		 .threshold = 20,
		 .measured = 6.25,
		 .passed = true},
	};

	memset(s, 0, sizeof(*s));
	s->r.id = 42;
	s->r.status = "failed";
	s->r.verdict = "FAIL";
	s->r.label = "cache \"90:10\"\nafter fw";
	s->r.host = "db-host-1";
	s->r.started_at = "2025-11-29T22:12:08Z";
	s->r.ended_at = "2025-11-30T00:17:08Z";
	s->r.duration_s = 7200;
	s->r.warmup_s = 300;
	s->r.profile_name = "exchange-2016";
	s->r.engine = "sim";
	s->r.test_type = "performance";
	s->r.streams = 8;
	s->r.exit_code = 1;
	scope_fill(&s->r.run, "run", "", 4);
	s->r.run.integrity_errors = 0;
	scope_fill(&s->vols[0], "vol1", "", 2);
	scope_fill(&s->vols[1], "vol2", "", 2);
	scope_fill(&s->dbs[0], "db1", "vol1", 2);
	scope_fill(&s->dbs[1], "db3", "vol2", 2);
	s->dbs[1].integrity_errors = 3;
	s->r.volumes = s->vols;
	s->r.nr_volumes = 2;
	s->r.databases = s->dbs;
	s->r.nr_databases = 2;
	memcpy(s->verdicts, verdicts, sizeof(verdicts));
	s->r.verdicts = s->verdicts;
	s->r.nr_verdicts = DP_ARRAY_SIZE(verdicts);
}

/*
 * Runs python3 over the document: it must parse as JSON, and the script's
 * output (one expression per line) is returned. Skips when python3 is absent.
 */
static char *python_json(const char *doc, const char *exprs)
{
	char path[] = "/tmp/dp-test-report-XXXXXX";
	struct strbuf cmd = STRBUF_INIT, out = STRBUF_INIT;
	char buf[512];
	size_t n;
	FILE *fp;
	int fd, status;

	static int have_python = -1; /* asked once: a python3 start is dear on a busy machine */

	if (have_python < 0)
		have_python = system("python3 -c 'import json' >/dev/null 2>&1") == 0;
	if (!have_python)
		skip();
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, doc, strlen(doc)), (ssize_t)strlen(doc));
	close(fd);
	strbuf_addf(&cmd,
		    "python3 -c 'import json,sys\nd = json.load(open(sys.argv[1]))\n%s' %s 2>&1",
		    exprs, path);
	fp = popen(cmd.buf, "r");
	assert_non_null(fp);
	while ((n = fread(buf, 1, sizeof(buf), fp)) > 0)
		strbuf_add(&out, buf, n);
	status = pclose(fp);
	unlink(path);
	if (status != 0)
		fail_msg("python3 rejected the JSON: %s\n%s", out.buf, doc);
	strbuf_release(&cmd);
	return strbuf_detach(&out, NULL);
}

static void test_json_valid_with_keys(void **state)
{
	struct strbuf out = STRBUF_INIT;
	struct sample s;
	char *got;

	sample_build(&s);
	report_render(&out, &s.r, REPORT_JSON, NULL);
	got = python_json(
		out.buf,
		"print(sorted(d))\n"
		"print(sorted(d[\"run\"]))\n"
		"print(d[\"run\"][\"id\"], repr(d[\"run\"][\"label\"]))\n"
		"print(d[\"run\"][\"profile\"], d[\"run\"][\"streams\"])\n"
		"print(sorted(d[\"summary\"]))\n"
		"print(sorted(d[\"summary\"][\"classes\"]))\n"
		"print(sorted(d[\"summary\"][\"classes\"][\"db_read\"]))\n"
		"print(d[\"summary\"][\"classes\"][\"db_read\"][\"ios\"])\n"
		"print(d[\"summary\"][\"transactional_iops\"])\n"
		"print([v[\"name\"] for v in d[\"volumes\"]])\n"
		"print([(x[\"name\"], x[\"volume\"]) for x in d[\"databases\"]])\n"
		"print(d[\"databases\"][1][\"integrity_errors\"])\n"
		"print(d[\"volumes\"][0][\"classes\"][\"log_write\"][\"max_ms\"])\n"
		"print([sorted(v) for v in d[\"verdicts\"][1:3]])\n"
		"print(d[\"verdicts\"][2][\"measured\"], d[\"verdicts\"][2][\"passed\"])\n");
	assert_string_equal(
		got, "['autotune', 'clock', 'databases', 'diskproof_version', 'environment', "
		     "'events', 'format_version', 'host', 'parameters', 'parameters_from', 'run', "
		     "'summary', 'uuid', 'verdicts', 'volumes', 'warmup']\n"
		     "['duration_s', 'ended', 'engine', 'exit_code', 'host', 'id', 'inconclusive', "
		     "'label', 'load_started_at', 'profile', 'reads_reach', 'reads_reach_why', "
		     "'sample_s', 'simulated', 'start_at', 'started', 'status', "
		     "'streams', 'target_iops', 'target_iops_result', 'test_type', 'verdict', "
		     "'warmup_s', 'why']\n"
		     "42 'cache \"90:10\"\\nafter fw'\n"
		     "exchange-2016 8\n"
		     "['classes', 'final_size_bytes', 'integrity_errors', 'page_fault_stalls', "
		     "'page_fault_stalls_per_s', 'size_bytes', 'streams', 'transactional_iops', "
		     "'transactions']\n"
		     "['backup_read', 'bdm_read', 'db_flush', 'db_read', 'db_write', 'log_read', "
		     "'log_write']\n"
		     "['avg_bytes', 'avg_ms', 'bytes', 'errors', 'iops', 'ios', 'max_ms', "
		     "'max_sample_avg_ms', 'mbps', 'p50_ms', 'p9999_ms', 'p999_ms', 'p99_ms']\n"
		     "4000\n"
		     "81.0\n"
		     "['vol1', 'vol2']\n"
		     "[('db1', 'vol1'), ('db3', 'vol2')]\n"
		     "3\n"
		     "82.0\n"
		     "[['cmp', 'criterion', 'measured', 'name', 'passed', 'scope', 'threshold'], "
		     "['cmp', 'criterion', 'measured', 'name', 'passed', 'scope', 'threshold', "
		     "'volume']]\n"
		     "21.4 False\n");
	free(got);
	strbuf_release(&out);
}

/* No label and no end time are JSON null, not strings. */
static void test_json_nulls(void **state)
{
	struct strbuf out = STRBUF_INIT;
	struct sample s;
	char *got;

	sample_build(&s);
	s.r.label = NULL;
	s.r.ended_at = NULL;
	s.r.verdict = NULL;
	s.r.status = "running";
	s.r.nr_verdicts = 0;
	s.r.nr_volumes = 0;
	s.r.nr_databases = 0;
	report_render(&out, &s.r, REPORT_JSON, NULL);
	got = python_json(out.buf, "print(d[\"run\"][\"label\"], d[\"run\"][\"ended\"], "
				   "d[\"verdicts\"], d[\"volumes\"], d[\"databases\"])\n"
				   "print(d[\"warmup\"], d[\"autotune\"])\n");
	assert_string_equal(got, "None None [] [] []\nNone None\n");
	free(got);
	strbuf_release(&out);
}

static bool has_nan_or_inf(const char *s)
{
	for (; *s; s++)
		if (!strncasecmp(s, "nan", 3) || !strncasecmp(s, "inf", 3))
			return true;
	return false;
}

/* Zero durations and even non-finite values never reach the document. */
static void test_json_finite_numbers(void **state)
{
	struct strbuf out = STRBUF_INIT;
	struct class_stats cs;
	struct sample s;
	char *got;

	sample_build(&s);
	stats_class_init(&cs);
	hist_add(&cs.lat, 1000000);
	cs.bytes = 4096;
	results_class_from_stats(&s.r.run.classes[IO_DB_READ], &cs, 0);
	s.r.duration_s = 0;
	s.r.warmup_s = NAN;
	s.vols[0].classes[IO_DB_WRITE].avg_ms = INFINITY;
	s.vols[1].classes[IO_LOG_WRITE].iops = -INFINITY;
	s.verdicts[0].measured = NAN;
	report_render(&out, &s.r, REPORT_JSON, NULL);
	assert_false(has_nan_or_inf(out.buf));
	got = python_json(out.buf, "print(d[\"run\"][\"duration_s\"], d[\"run\"][\"warmup_s\"])\n"
				   "print(d[\"summary\"][\"classes\"][\"db_read\"][\"iops\"])\n"
				   "print(d[\"verdicts\"][0][\"measured\"])\n");
	assert_string_equal(got, "0.0 None\n0.0\nNone\n");
	free(got);
	strbuf_release(&out);
}

static void test_text_failures_first(void **state)
{
	struct strbuf out = STRBUF_INIT;
	const char *fail_line, *table, *vol1, *vol2, *nl;
	struct sample s;

	sample_build(&s);
	report_render(&out, &s.r, REPORT_TEXT, NULL);
	nl = strchr(out.buf, '\n');
	assert_non_null(nl);
	assert_true(!strncmp(out.buf, "diskproof run 42: FAIL", strlen("diskproof run 42: FAIL")));
	assert_true(strstr(out.buf, "FAIL") < nl);
	fail_line = strstr(out.buf,
			   "  FAIL db3 on vol2: database read average 21.4 ms > 20 ms (+7 %)\n");
	table = strstr(out.buf, "\nvolume ");
	assert_non_null(fail_line);
	assert_non_null(table);
	assert_true(fail_line < table);
	/* passing verdicts are not listed above the table */
	assert_null(strstr(out.buf, "PASS run:"));
	assert_null(strstr(out.buf, "\033"));
	/* vol2 fails through its database, vol1 passes */
	vol1 = strstr(table, "\nvol1 ");
	vol2 = strstr(table, "\nvol2 ");
	assert_non_null(vol1);
	assert_non_null(vol2);
	nl = strchr(vol1 + 1, '\n');
	assert_true(strstr(vol1, "PASS") < nl);
	nl = strchr(vol2 + 1, '\n');
	assert_true(strstr(vol2, "FAIL") < nl);
	assert_non_null(strstr(table, "\ntotal "));
	assert_non_null(strstr(out.buf, "verdicts: 3 passed, 1 failed\n"));
	strbuf_release(&out);
}

#define TEXT_HEAD                                                                                  \
	"diskproof run 42: \033[32mPASS\033[0m [baseline] (simulated: engine sim, no device "      \
	"measured)\n"

static void test_text_pass_and_color(void **state)
{
	struct report_options opt = {.color = true};
	struct strbuf out = STRBUF_INIT;
	struct sample s;

	sample_build(&s);
	s.r.verdict = "PASS";
	s.r.status = "passed";
	s.r.label = "baseline";
	s.verdicts[2].passed = true;
	report_render(&out, &s.r, REPORT_TEXT, &opt);
	/* the fixture's engine is sim: said on the first line */
	assert_true(!strncmp(out.buf, TEXT_HEAD, strlen(TEXT_HEAD)));
	assert_null(strstr(out.buf, "FAIL"));
	strbuf_release(&out);
}

static void assert_verdict_line(const struct verdict *v, const char *want)
{
	struct strbuf out = STRBUF_INIT;

	report_verdict_line(&out, v);
	assert_string_equal(out.buf, want);
	strbuf_release(&out);
}

static void test_verdict_lines(void **state)
{
	const struct verdict db = {.scope = SCOPE_DATABASE,
				   .name = "db3",
				   .volume = "vol2",
				   .criterion = "db_read_avg_ms",
				   .cmp = VERDICT_LE,
				   .threshold = 20,
				   .measured = 21.4};
	const struct verdict vol = {.scope = SCOPE_VOLUME,
				    .name = "vol1",
				    .criterion = "log_write_max_ms",
				    .cmp = VERDICT_LE,
				    .threshold = 100,
				    .measured = 130};
	const struct verdict run = {.scope = SCOPE_RUN,
				    .name = "run",
				    .criterion = "transactional_iops",
				    .cmp = VERDICT_GE,
				    .threshold = 1000,
				    .measured = 812};
	const struct verdict pass = {.scope = SCOPE_DATABASE,
				     .name = "db1",
				     .volume = "vol1",
				     .criterion = "log_write_avg_ms",
				     .cmp = VERDICT_LE,
				     .threshold = 10,
				     .measured = 3.25,
				     .passed = true};
	const struct verdict errs = {.scope = SCOPE_VOLUME,
				     .name = "vol1",
				     .criterion = "io_errors",
				     .cmp = VERDICT_LE,
				     .measured = 3};
	const struct verdict integ = {.scope = SCOPE_RUN,
				      .name = "run",
				      .criterion = "integrity_errors",
				      .cmp = VERDICT_LE,
				      .passed = true};
	const struct verdict dbmax = {.scope = SCOPE_DATABASE,
				      .name = "db2",
				      .volume = "vol1",
				      .criterion = "db_read_max_ms",
				      .cmp = VERDICT_LE,
				      .threshold = 100,
				      .measured = 100.0004};
	const struct verdict unknown = {.scope = SCOPE_RUN,
					.name = "run",
					.criterion = "fancy_metric",
					.cmp = VERDICT_LE,
					.threshold = 1,
					.measured = 1.5};

	assert_verdict_line(&db, "db3 on vol2: database read average 21.4 ms > 20 ms");
	assert_verdict_line(&vol, "vol1: log write maximum 130 ms > 100 ms");
	assert_verdict_line(&run, "run: achieved transactional IOPS 812 < 1000");
	assert_verdict_line(&pass, "db1 on vol1: log write average 3.25 ms <= 10 ms");
	assert_verdict_line(&errs, "vol1: I/O errors 3 > 0");
	assert_verdict_line(&integ, "run: integrity errors 0 <= 0");
	/* rounding never prints a failure as "100 > 100" */
	assert_verdict_line(&dbmax, "db2 on vol1: database read maximum 100.0004 ms > 100 ms");
	assert_verdict_line(&unknown, "run: fancy_metric 1.5 > 1");
}

static struct verdict verdict_make(enum scope_kind k, const char *name, const char *volume,
				   const char *criterion, enum verdict_cmp cmp, double threshold,
				   double measured)
{
	struct verdict v = {.scope = k, .cmp = cmp, .threshold = threshold, .measured = measured};

	snprintf(v.name, sizeof(v.name), "%s", name);
	snprintf(v.volume, sizeof(v.volume), "%s", volume);
	snprintf(v.criterion, sizeof(v.criterion), "%s", criterion);
	v.passed = cmp == VERDICT_LE ? measured <= threshold : measured >= threshold;
	return v;
}

/* line + margin, as the text summary prints a failure */
static void assert_failure_line(const struct verdict *v, const char *want)
{
	struct strbuf out = STRBUF_INIT;

	report_verdict_line(&out, v);
	report_verdict_margin(&out, v);
	assert_string_equal(out.buf, want);
	strbuf_release(&out);
}

/* The optional and roll-up criteria in words, and the margins of failures. */
static void test_verdict_lines_new(void **state)
{
	static const struct {
		enum scope_kind k;
		const char *name, *volume, *criterion;
		enum verdict_cmp cmp;
		double threshold, measured;
		const char *want;
	} cases[] = {
		{SCOPE_DATABASE, "db3", "vol2", "db_read_avg_ms", VERDICT_LE, 20, 21.4,
		 "db3 on vol2: database read average 21.4 ms > 20 ms (+7 %)"},
		{SCOPE_RUN, "run", "", "transactional_iops", VERDICT_GE, 1000, 812,
		 "run: achieved transactional IOPS 812 < 1000 (-18.8 %)"},
		{SCOPE_DATABASE, "db1", "v1", "db_read_p99_ms", VERDICT_LE, 50, 61.25,
		 "db1 on v1: database read 99th percentile 61.25 ms > 50 ms (+22.5 %)"},
		{SCOPE_VOLUME, "v1", "", "log_write_p99_ms", VERDICT_LE, 5, 4.5,
		 "v1: log write 99th percentile 4.5 ms <= 5 ms"},
		{SCOPE_DATABASE, "db2", "v1", "db_read_interval_avg_ms", VERDICT_LE, 20, 24.1,
		 "db2 on v1: highest 15 s database read average 24.1 ms > 20 ms (+20.5 %)"},
		{SCOPE_RUN, "run", "", "log_write_interval_avg_ms", VERDICT_LE, 10, 10,
		 "run: highest 15 s log write average 10 ms <= 10 ms"},
		{SCOPE_VOLUME, "v2", "", "db_read_cv_pct", VERDICT_LE, 10, 12.5,
		 "v2: CV of the 15 s database read averages 12.5 % > 10 %"},
		{SCOPE_RUN, "run", "", "log_write_cv_pct", VERDICT_LE, 30, 3.126,
		 "run: CV of the 15 s log write averages 3.13 % <= 30 %"},
		{SCOPE_VOLUME, "v2", "", "databases_failed", VERDICT_LE, 0, 2,
		 "v2: failed databases 2 > 0"},
		{SCOPE_RUN, "run", "", "volumes_failed", VERDICT_LE, 0, 1,
		 "run: failed volumes 1 > 0"},
		{SCOPE_RUN, "run", "", "volumes_failed", VERDICT_LE, 0, 0,
		 "run: failed volumes 0 <= 0"},
		{SCOPE_VOLUME, "v1", "", "io_errors", VERDICT_LE, 0, 3, "v1: I/O errors 3 > 0"},
		{SCOPE_RUN, "run", "", "autotune_streams", VERDICT_GE, 4, 0,
		 "run: streams that passed auto-tune 0 < 4"},
		/* a failure just over the line keeps a margin that is not 0 */
		{SCOPE_DATABASE, "db2", "v1", "db_read_max_ms", VERDICT_LE, 100, 100.0004,
		 "db2 on v1: database read maximum 100.0004 ms > 100 ms (+0.0004 %)"},
		{SCOPE_RUN, "run", "", "fancy_metric", VERDICT_LE, 1, 1.5,
		 "run: fancy_metric 1.5 > 1"},
	};
	struct verdict v;

	for (size_t i = 0; i < DP_ARRAY_SIZE(cases); i++) {
		v = verdict_make(cases[i].k, cases[i].name, cases[i].volume, cases[i].criterion,
				 cases[i].cmp, cases[i].threshold, cases[i].measured);
		assert_failure_line(&v, cases[i].want);
	}
	/* nothing to say when the numbers are not finite */
	v = verdict_make(SCOPE_RUN, "run", "", "db_read_avg_ms", VERDICT_LE, 20, 30);
	v.measured = NAN;
	{
		struct strbuf out = STRBUF_INIT;

		report_verdict_margin(&out, &v);
		assert_string_equal(out.buf, "");
		strbuf_release(&out);
	}
}

static void test_format_names(void **state)
{
	assert_int_equal(report_format_from_name("text"), REPORT_TEXT);
	assert_int_equal(report_format_from_name("json"), REPORT_JSON);
	assert_int_equal(report_format_from_name("csv"), REPORT_CSV);
	assert_int_equal(report_format_from_name("html"), REPORT_HTML);
	assert_int_equal(report_format_from_name("xml"), -1);
	assert_int_equal(report_format_from_name(NULL), -1);
}

/* Every entry of the table of formats: a name that finds it again, and a
 * renderer that writes something; compare offers text, json and html. */
static void test_format_table(void **state)
{
	struct results r = {0};
	int f;

	for (f = 0; f < REPORT_FORMAT_COUNT; f++) {
		const char *name = report_format_name((enum report_format)f);
		struct strbuf out = STRBUF_INIT;

		assert_non_null(name);
		assert_int_equal(report_format_from_name(name), f);
		report_render(&out, &r, (enum report_format)f, NULL);
		assert_true(out.len > 0);
		strbuf_release(&out);
	}
	assert_null(report_format_name(REPORT_FORMAT_COUNT));
	assert_true(report_format_compares(REPORT_TEXT));
	assert_true(report_format_compares(REPORT_JSON));
	assert_false(report_format_compares(REPORT_CSV));
	assert_true(report_format_compares(REPORT_HTML));
	assert_false(report_format_compares(REPORT_FORMAT_COUNT));
}

static void test_class_summary(void **state)
{
	struct class_summary out;
	struct class_stats cs;
	unsigned i;

	stats_class_init(&cs);
	results_class_from_stats(&out, &cs, 10 * NSEC_PER_SEC);
	assert_int_equal(out.ios, 0);
	assert_true(out.iops == 0 && out.avg_ms == 0 && out.p99_ms == 0 && out.max_ms == 0);

	/* 99 I/Os of 2 ms and one of 50 ms over 4 s, 8 KiB each */
	for (i = 0; i < 99; i++)
		hist_add(&cs.lat, 2 * NSEC_PER_MSEC);
	hist_add(&cs.lat, 50 * NSEC_PER_MSEC);
	cs.bytes = 100 * 8192;
	cs.errors = 4;
	results_class_from_stats(&out, &cs, 4 * NSEC_PER_SEC);
	assert_int_equal(out.ios, 100);
	assert_int_equal(out.bytes, 819200);
	assert_int_equal(out.errors, 4);
	assert_true(fabs(out.iops - 25.0) < 1e-9);
	assert_true(fabs(out.mbps - 0.2048) < 1e-9);
	assert_true(fabs(out.avg_ms - 2.48) < 1e-9);
	assert_true(fabs(out.p50_ms - 2.0) <= 2.0 / 128);
	assert_true(fabs(out.p99_ms - 2.0) <= 2.0 / 128);
	assert_true(out.max_ms == 50.0);

	/* no measured time: no rates, never inf */
	results_class_from_stats(&out, &cs, 0);
	assert_true(out.iops == 0 && out.mbps == 0);
	assert_true(fabs(out.avg_ms - 2.48) < 1e-9);
}

static void test_scope_helpers(void **state)
{
	struct scope_summary sc;
	struct results r;
	int k;

	for (k = SCOPE_RUN; k <= SCOPE_DATABASE; k++)
		assert_int_equal(results_scope_kind_from_name(results_scope_kind_name(k)), k);
	assert_string_equal(results_scope_kind_name(SCOPE_DATABASE), "database");
	assert_int_equal(results_scope_kind_from_name("host"), -1);
	assert_int_equal(results_scope_kind_from_name(NULL), -1);

	memset(&sc, 0, sizeof(sc));
	sc.classes[IO_DB_READ].iops = 600.5;
	sc.classes[IO_DB_WRITE].iops = 400.25;
	sc.classes[IO_LOG_WRITE].iops = 1000;
	assert_true(results_scope_transactional_iops(&sc) == 1000.75);

	memset(&r, 0, sizeof(r));
	results_release(&r);
	results_release(&r);
	results_release(NULL);
}

static void sample_set(struct results_sample *s, uint64_t t_ms, enum scope_kind scope,
		       const char *name, enum io_class cls, uint64_t ios)
{
	memset(s, 0, sizeof(*s));
	s->t_ms = t_ms;
	s->scope = scope;
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->cls = cls;
	s->ios = ios;
	s->bytes = ios * 32768;
	s->lat_sum_ns = ios * 2000000;
	s->lat_max_ns = 7500000;
	s->p50_ns = 2000000;
	s->p99_ns = 5250000;
}

static void test_csv(void **state)
{
	struct results_sample samples[6];
	/* a host that needs quoting, and the run's clock: the last two columns */
	struct results r = {.id = 7,
			    .samples = samples,
			    .nr_samples = 6,
			    .host = "db,host",
			    .t0_known = true,
			    .t0_unix_ms = 1764454328250,
			    .engine = "sim"};
	struct strbuf out = STRBUF_INIT;

	sample_set(&samples[0], 500, SCOPE_VOLUME, "v1", IO_DB_READ, 100);
	samples[0].warmup = true;
	sample_set(&samples[1], 500, SCOPE_VOLUME, "a,\"b\"", IO_DB_READ, 50);
	sample_set(&samples[2], 1500, SCOPE_VOLUME, "v1", IO_DB_READ, 300);
	samples[2].errors = 2;
	sample_set(&samples[3], 1500, SCOPE_VOLUME, "a,\"b\"", IO_DB_READ, 0);
	/* another series (database scope, 15 s) starts its first interval at 0 */
	sample_set(&samples[4], 15000, SCOPE_DATABASE, "v1", IO_DB_READ, 1500);
	sample_set(&samples[5], 15000, SCOPE_DATABASE, "line\nbreak", IO_LOG_WRITE, 15);

	report_render(&out, &r, REPORT_CSV, NULL);
	assert_string_equal(
		out.buf,
		"run_id,t_ms,warmup,scope,name,class,ios,iops,mb_s,avg_ms,p50_ms,p99_ms,max_ms,"
		"errors,streams,avg_bytes,p999_ms,p9999_ms,size_bytes,final_size_bytes,host,"
		"time_utc,txns,series_id,series_index,series_size,engine,response_avg_ms,response_"
		"p50_ms,response_p99_ms,response_max_ms\n"
		"7,500,1,volume,v1,db_read,100,200.000,6.554,2.000,2.000,5.250,7.500,0,,32768.0,,,,"
		","
		"\"db,host\",2025-11-29T22:12:08.750Z,,,,,sim,,,,\n"
		"7,500,0,volume,\"a,\"\"b\"\"\",db_read,50,100.000,3.277,2.000,2.000,5.250,7.500,"
		"0,,32768.0,,,,,\"db,host\",2025-11-29T22:12:08.750Z,,,,,sim,,,,\n"
		"7,1500,0,volume,v1,db_read,300,300.000,9.830,2.000,2.000,5.250,7.500,2,,32768.0,,,"
		",,\"db,host\",2025-11-29T22:12:09.750Z,,,,,sim,,,,\n"
		"7,1500,0,volume,\"a,\"\"b\"\"\",db_read,0,0.000,0.000,,,,,0,,,,,,,\"db,host\","
		"2025-11-29T22:12:09.750Z,,,,,sim,,,,\n"
		"7,15000,0,database,v1,db_read,1500,100.000,3.277,2.000,2.000,5.250,7.500,0,,32768."
		"0,,,,,\"db,host\",2025-11-29T22:12:23.250Z,,,,,sim,,,,\n"
		"7,15000,0,database,\"line\nbreak\",log_write,15,1.000,0.033,2.000,2.000,5.250,"
		"7.500,0,,32768.0,,,,,\"db,host\",2025-11-29T22:12:23.250Z,,,,,sim,,,,\n"
		"7,,,run,,transactional,0,0.000,,,,,,0,0.000,,,,,,\"db,host\",,,,,,sim,,,,\n");
	strbuf_release(&out);

	/* no samples: the header alone; no host, no clock: empty */
	r.nr_samples = 0;
	r.host = NULL;
	r.t0_known = false;
	r.engine = NULL;
	report_render(&out, &r, REPORT_CSV, NULL);
	assert_string_equal(out.buf,
			    "run_id,t_ms,warmup,scope,name,class,ios,iops,mb_s,avg_ms,"
			    "p50_ms,p99_ms,max_ms,errors,streams,avg_bytes,p999_ms,"
			    "p9999_ms,size_bytes,final_size_bytes,host,time_utc,txns,"
			    "series_id,series_index,series_size,engine,response_avg_ms,response_"
			    "p50_ms,response_p99_ms,response_max_ms\n"
			    "7,,,run,,transactional,0,0.000,,,,,,0,0.000,,,,,,,,,,,,,,,,\n");
	strbuf_release(&out);
}

/* Only the classes with I/O or errors get a row; JSON keeps all six. */
static void test_classes_present(void **state)
{
	struct strbuf out = STRBUF_INIT;
	struct sample s;
	const char *table;
	char *got;
	int c;

	sample_build(&s);
	/* a `fixed` model run: database reads and writes only, vol2 idle */
	for (c = IO_LOG_WRITE; c < IO_CLASS_COUNT; c++) {
		memset(&s.r.run.classes[c], 0, sizeof(s.r.run.classes[c]));
		memset(&s.vols[0].classes[c], 0, sizeof(s.vols[0].classes[c]));
	}
	memset(s.vols[1].classes, 0, sizeof(s.vols[1].classes));
	s.vols[0].classes[IO_BACKUP_READ].errors = 1; /* errors alone make it present */
	report_render(&out, &s.r, REPORT_TEXT, NULL);
	table = strstr(out.buf, "\nvolume ");
	assert_non_null(table);
	assert_non_null(strstr(table, "\nvol1    db_read "));
	assert_non_null(strstr(table, "\n        db_write "));
	assert_non_null(strstr(table, "\n        backup_read            0 "));
	assert_null(strstr(table, "\n        log_write "));
	assert_null(strstr(table, "bdm_read"));
	assert_null(strstr(table, "log_read"));
	/* a scope with no class present keeps its line and its verdict */
	assert_non_null(strstr(table, "\nvol2    (no I/O)"));
	assert_non_null(strstr(strstr(table, "\nvol2 "), "FAIL\n"));
	assert_non_null(strstr(out.buf, "\nachieved transactional IOPS: 81.0\n"));
	assert_null(strstr(out.buf, "background maintenance"));
	assert_null(strstr(out.buf, "replication"));

	strbuf_reset(&out);
	report_render(&out, &s.r, REPORT_JSON, NULL);
	got = python_json(out.buf, "print(sorted(d[\"volumes\"][1][\"classes\"]))\n"
				   "print(d[\"volumes\"][1][\"classes\"][\"bdm_read\"])\n");
	assert_string_equal(got,
			    "['backup_read', 'bdm_read', 'db_read', 'db_write', 'log_read', "
			    "'log_write']\n"
			    "{'ios': 0, 'iops': 0.0, 'mbps': 0.0, 'avg_ms': 0.0, 'p50_ms': 0.0, "
			    "'p99_ms': 0.0, 'max_ms': 0.0, 'max_sample_avg_ms': None, 'errors': 0, "
			    "'bytes': 0, 'avg_bytes': None, 'p999_ms': None, 'p9999_ms': None}\n");
	free(got);
	strbuf_release(&out);
}

/* Maintenance and replication rates under the totals; a backup test's rate
 * per database, and no transactional IOPS for it. */
static void test_text_rates(void **state)
{
	struct strbuf out = STRBUF_INIT;
	struct sample s;
	int c;

	sample_build(&s);
	s.r.run.classes[IO_BDM_READ].mbps = 2.097152;
	s.dbs[0].classes[IO_BDM_READ].mbps = 1.048576;
	s.dbs[1].classes[IO_BDM_READ].mbps = 1.048576;
	s.r.run.classes[IO_LOG_READ].mbps = 7.24;
	s.r.run.classes[IO_LOG_WRITE].mbps = 7.2;
	memset(&s.r.run.classes[IO_BACKUP_READ], 0, sizeof(s.r.run.classes[IO_BACKUP_READ]));
	report_render(&out, &s.r, REPORT_TEXT, NULL);
	assert_non_null(strstr(out.buf, "\nachieved transactional IOPS: 81.0\n"
					"target transactional IOPS: 100: PASS\n"
					"background maintenance reads: 2.10 MB/s, 1.05 MB/s per "
					"database\n"
					"replication log reads: 7.24 MB/s (log writes 7.20 MB/s)\n"
					"\n    "));
	assert_null(strstr(out.buf, "backup reads"));

	/* per-database rates that differ are a range */
	strbuf_reset(&out);
	s.dbs[1].classes[IO_BDM_READ].mbps = 0.9;
	report_render(&out, &s.r, REPORT_TEXT, NULL);
	assert_non_null(strstr(out.buf, "background maintenance reads: 2.10 MB/s, 0.90 to 1.05 "
					"MB/s per database\n"));

	/* a backup test: backup_read only */
	strbuf_reset(&out);
	for (c = 0; c < IO_CLASS_COUNT; c++) {
		if (c == IO_BACKUP_READ)
			continue;
		memset(&s.r.run.classes[c], 0, sizeof(s.r.run.classes[c]));
		memset(&s.dbs[0].classes[c], 0, sizeof(s.dbs[0].classes[c]));
		memset(&s.dbs[1].classes[c], 0, sizeof(s.dbs[1].classes[c]));
	}
	s.r.run.classes[IO_BACKUP_READ].ios = 4096;
	s.r.run.classes[IO_BACKUP_READ].mbps = 357.91;
	s.dbs[0].classes[IO_BACKUP_READ].mbps = 178.95;
	s.dbs[1].classes[IO_BACKUP_READ].mbps = 178.96;
	report_render(&out, &s.r, REPORT_TEXT, NULL);
	assert_non_null(strstr(out.buf, "\nbackup reads: 357.91 MB/s, 178.95 to 178.96 MB/s per "
					"database\n"));
	assert_null(strstr(out.buf, "transactional IOPS"));
	strbuf_release(&out);
}

/*
 * The store writes no row for a class without I/O in an interval (results.h):
 * the CSV of such samples is that of the same samples with the rows of zeros
 * written, and a class never active in a scope has no rows either way.
 */
static void test_csv_absent_rows(void **state)
{
	struct results_sample full[12], sparse[12];
	struct results r = {.id = 3};
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	size_t nf = 0, ns = 0;
	uint64_t t;

	for (t = 1000; t <= 3000; t += 1000) {
		/* db_read always; log_read only at 2000; backup_read never */
		sample_set(&full[nf++], t, SCOPE_VOLUME, "v1", IO_DB_READ, t / 10);
		sample_set(&full[nf++], t, SCOPE_VOLUME, "v1", IO_LOG_READ, t == 2000 ? 4 : 0);
		sample_set(&full[nf++], t, SCOPE_VOLUME, "v1", IO_BACKUP_READ, 0);
		/* v2 stalls at 2000: all empty, one row kept */
		sample_set(&full[nf++], t, SCOPE_VOLUME, "v2", IO_DB_READ, t == 2000 ? 0 : 7);
	}
	for (size_t i = 0; i < nf; i++)
		if (full[i].ios || (full[i].scope == SCOPE_VOLUME && !strcmp(full[i].name, "v2")))
			sparse[ns++] = full[i];
	assert_true(ns < nf);

	r.samples = full;
	r.nr_samples = nf;
	report_render(&a, &r, REPORT_CSV, NULL);
	r.samples = sparse;
	r.nr_samples = ns;
	report_render(&b, &r, REPORT_CSV, NULL);
	assert_string_equal(a.buf, b.buf);
	assert_string_equal(
		a.buf,
		"run_id,t_ms,warmup,scope,name,class,ios,iops,mb_s,avg_ms,p50_ms,p99_ms,max_ms,"
		"errors,streams,avg_bytes,p999_ms,p9999_ms,size_bytes,final_size_bytes,host,"
		"time_utc,txns,series_id,series_index,series_size,engine,response_avg_ms,response_"
		"p50_ms,response_p99_ms,response_max_ms\n"
		"3,1000,0,volume,v1,db_read,100,100.000,3.277,2.000,2.000,5.250,7.500,0,,32768.0,,,"
		",,,,,,,,,,,,\n"
		"3,1000,0,volume,v1,log_read,0,0.000,0.000,,,,,0,,,,,,,,,,,,,,,,,\n"
		"3,1000,0,volume,v2,db_read,7,7.000,0.229,2.000,2.000,5.250,7.500,0,,32768.0,,,,,,"
		",,,,,,,,,\n"
		"3,2000,0,volume,v1,db_read,200,200.000,6.554,2.000,2.000,5.250,7.500,0,,32768.0,,,"
		",,,,,,,,,,,,\n"
		"3,2000,0,volume,v1,log_read,4,4.000,0.131,2.000,2.000,5.250,7.500,0,,32768.0,,,,,,"
		",,,,,,,,,\n"
		"3,2000,0,volume,v2,db_read,0,0.000,0.000,,,,,0,,,,,,,,,,,,,,,,,\n"
		"3,3000,0,volume,v1,db_read,300,300.000,9.830,2.000,2.000,5.250,7.500,0,,32768.0,,,"
		",,,,,,,,,,,,\n"
		"3,3000,0,volume,v1,log_read,0,0.000,0.000,,,,,0,,,,,,,,,,,,,,,,,\n"
		"3,3000,0,volume,v2,db_read,7,7.000,0.229,2.000,2.000,5.250,7.500,0,,32768.0,,,,,,"
		",,,,,,,,,\n"
		"3,,,run,,transactional,0,0.000,,,,,,0,0.000,,,,,,,,,,,,,,,,\n");
	strbuf_release(&a);
	strbuf_release(&b);
}

/* One run-scope sample row of class c. */
static void warm_row(struct results_sample *x, uint64_t t_ms, bool warmup, enum scope_kind k,
		     enum io_class c, uint64_t ios, uint64_t lat_ms_each)
{
	sample_set(x, t_ms, k, k == SCOPE_RUN ? "run" : "vol1", c, ios);
	x->warmup = warmup;
	x->lat_sum_ns = ios * lat_ms_each * 1000000;
}

/* The warm-up's figures come from its run-scope rows only. */
static void test_warmup_fill(void **state)
{
	struct results_sample rows[7];
	struct results r = {.samples = rows, .nr_samples = DP_ARRAY_SIZE(rows)};

	warm_row(&rows[0], 1000, true, SCOPE_RUN, IO_DB_READ, 100, 4);
	warm_row(&rows[1], 1000, true, SCOPE_VOLUME, IO_DB_READ, 999, 50); /* not run scope */
	warm_row(&rows[2], 2000, true, SCOPE_RUN, IO_DB_READ, 300, 2);
	warm_row(&rows[3], 2000, true, SCOPE_RUN, IO_LOG_WRITE, 0, 0);
	rows[3].errors = 2;
	warm_row(&rows[4], 2000, true, SCOPE_RUN, IO_DB_WRITE, 40, 3);
	warm_row(&rows[5], 3000, false, SCOPE_RUN, IO_DB_READ, 777, 9); /* measured */
	warm_row(&rows[6], 4000, false, SCOPE_RUN, IO_DB_READ, 777, 9);
	results_warmup_fill(&r);
	assert_true(r.warmup.duration_s == 2.0);
	assert_int_equal(r.warmup.classes[IO_DB_READ].ios, 400);
	assert_true(r.warmup.classes[IO_DB_READ].iops == 200.0);
	assert_true(fabs(r.warmup.classes[IO_DB_READ].avg_ms - 2.5) < 1e-9);
	assert_int_equal(r.warmup.classes[IO_DB_WRITE].ios, 40);
	assert_true(r.warmup.classes[IO_DB_WRITE].iops == 20.0);
	assert_int_equal(r.warmup.classes[IO_LOG_WRITE].errors, 2);
	assert_true(r.warmup.classes[IO_LOG_WRITE].avg_ms == 0);
	assert_int_equal(r.warmup.classes[IO_BDM_READ].ios, 0);

	/* no warm-up rows: nothing */
	r.samples = rows + 5;
	r.nr_samples = 2;
	results_warmup_fill(&r);
	assert_true(r.warmup.duration_s == 0);
	assert_int_equal(r.warmup.classes[IO_DB_READ].ios, 0);
	r.samples = NULL;
	r.nr_samples = 0;
	results_warmup_fill(&r);
	assert_true(r.warmup.duration_s == 0);
}

/* Auto-tune's outcome from the env facts; no facts and no steps: not tuned. */
static void test_autotune_env(void **state)
{
	struct results_env env[] = {{"autotune_chosen", "48"},
				    {"autotune_goal", "max"},
				    {"autotune_stopped_because", "48 pass, 56 do not"},
				    {"host.kernel", "6.1"}};
	struct results r = {0};

	assert_false(results_autotune_ran(&r));
	assert_int_equal(results_autotune_from_env(&r), 0);
	assert_false(results_autotune_ran(&r));
	assert_null(results_env_get(&r, "autotune_goal"));

	r.env = env;
	r.nr_env = DP_ARRAY_SIZE(env);
	assert_string_equal(results_env_get(&r, "host.kernel"), "6.1");
	assert_int_equal(results_autotune_from_env(&r), 0);
	assert_true(results_autotune_ran(&r));
	assert_string_equal(r.autotune.goal, "max");
	assert_true(r.autotune.has_chosen);
	assert_int_equal(r.autotune.chosen, 48);
	assert_string_equal(r.autotune.stopped_because, "48 pass, 56 do not");

	/* a count that is not one is not taken */
	env[0].value = "48x";
	assert_int_equal(results_autotune_from_env(&r), 0);
	assert_false(r.autotune.has_chosen);
	env[0].value = "0"; /* no level passed */
	assert_int_equal(results_autotune_from_env(&r), 0);
	assert_true(r.autotune.has_chosen);
	assert_int_equal(r.autotune.chosen, 0);
	r.env = NULL;
	r.nr_env = 0;
	results_release(&r);
	results_release(&r);
}

/* The sample run with a warm-up and three auto-tune steps (one failing). */
static void sample_tuned(struct sample *s, struct results_sample *rows, size_t nr_rows,
			 struct results_autotune_step *steps)
{
	static const struct results_autotune_step st[3] = {
		{1, 4, 2744.2, 2.273, 1.097, true, NULL, 40.0},
		{2, 64, 5626.8, 12.198, 10.887, false, NULL, 80.5},
		{3, 32, 5387.4, 7.698, NAN, true, NULL, NAN},
	};

	sample_build(s);
	memcpy(steps, st, sizeof(st));
	steps[0].reason = "within 90 % of the thresholds";
	steps[1].reason = "log write average 10.9 ms (db1) > 9.0 ms (90 % of 10 ms)";
	s->r.autotune.goal = "max";
	s->r.autotune.has_chosen = true;
	s->r.autotune.chosen = 32;
	s->r.autotune.stopped_because = "32 streams pass, 64 do not";
	s->r.autotune.steps = steps;
	s->r.autotune.nr_steps = 3;
	warm_row(&rows[0], 1000, true, SCOPE_RUN, IO_DB_READ, 1500, 2);
	warm_row(&rows[1], 1000, true, SCOPE_RUN, IO_LOG_WRITE, 500, 1);
	warm_row(&rows[2], 2000, true, SCOPE_RUN, IO_DB_READ, 1700, 3);
	warm_row(&rows[3], 3000, false, SCOPE_RUN, IO_DB_READ, 1000, 5);
	s->r.samples = rows;
	s->r.nr_samples = nr_rows;
	results_warmup_fill(&s->r);
}

static void test_text_warmup_autotune(void **state)
{
	struct results_autotune_step steps[3];
	struct results_sample rows[4];
	struct strbuf out = STRBUF_INIT;
	const char *w, *a, *v;
	struct sample s;

	sample_tuned(&s, rows, DP_ARRAY_SIZE(rows), steps);
	report_render(&out, &s.r, REPORT_TEXT, NULL);
	w = strstr(out.buf, "\nwarm-up (not judged): 2 s\n"
			    "  class                IOs       IOPS    avg ms\n"
			    "  db_read             3200     1600.0     2.531\n"
			    "  log_write            500      250.0     1.000\n");
	a = strstr(
		out.buf,
		"\nauto-tune (goal max): chose 32 streams; stopped: 32 streams pass, 64 do not\n"
		"  step     t (s)  streams        IOPS  db read avg ms  log write avg ms  result  "
		"reason\n"
		"     1      40.0        4      2744.2           2.273             1.097  pass    "
		"within 90 % of the thresholds\n"
		"     2      80.5       64      5626.8          12.198            10.887  fail    "
		"log write average 10.9 ms (db1) > 9.0\n" /* wrapped within 120 columns */
		"       ms (90 % of 10 ms)\n"
		"     3         -       32      5387.4           7.698                 -  pass    "
		"\n");
	v = strstr(out.buf, "\nverdicts: 3 passed, 1 failed\n");
	if (!w || !a || !v)
		fail_msg("%s", out.buf);
	/* the count in the verdict block, then the table, the warm-up, then
	 * auto-tune */
	assert_true(v < strstr(out.buf, "\nvolume "));
	assert_true(strstr(out.buf, "\nvolume ") < w);
	assert_true(w < a);

	/* neither: no section */
	strbuf_reset(&out);
	sample_build(&s);
	report_render(&out, &s.r, REPORT_TEXT, NULL);
	assert_null(strstr(out.buf, "warm-up (not judged)"));
	assert_null(strstr(out.buf, "auto-tune"));
	assert_non_null(strstr(out.buf, "MB/s per database\nverdicts: ") ||
			strstr(out.buf, "\nverdicts: "));

	/* no level passed */
	strbuf_reset(&out);
	sample_tuned(&s, rows, DP_ARRAY_SIZE(rows), steps);
	s.r.autotune.chosen = 0;
	report_render(&out, &s.r, REPORT_TEXT, NULL);
	assert_non_null(strstr(out.buf, "\nauto-tune (goal max): no level passed; stopped: "));
	strbuf_release(&out);
}

static void test_json_warmup_autotune(void **state)
{
	struct results_autotune_step steps[3];
	struct results_sample rows[4];
	struct strbuf out = STRBUF_INIT;
	struct sample s;
	char *got;

	sample_tuned(&s, rows, DP_ARRAY_SIZE(rows), steps);
	report_render(&out, &s.r, REPORT_JSON, NULL);
	assert_false(has_nan_or_inf(out.buf));
	got = python_json(out.buf, "w = d[\"warmup\"]\n"
				   "print(w[\"duration_s\"], sorted(w[\"classes\"]))\n"
				   "print(w[\"classes\"][\"db_read\"])\n"
				   "a = d[\"autotune\"]\n"
				   "print(sorted(a), a[\"goal\"], a[\"chosen\"])\n"
				   "print(a[\"stopped_because\"])\n"
				   "print(sorted(a[\"steps\"][0]))\n"
				   "print(a[\"steps\"][1])\n"
				   "print(a[\"steps\"][2][\"log_write_avg_ms\"])\n");
	assert_string_equal(
		got,
		"2.0 ['backup_read', 'bdm_read', 'db_read', 'db_write', 'log_read', "
		"'log_write']\n"
		"{'ios': 3200, 'iops': 1600.0, 'avg_ms': 2.531, 'errors': 0}\n"
		"['chosen', 'goal', 'note', 'steps', 'stopped_because'] max 32\n"
		"32 streams pass, 64 do not\n"
		"['db_read_avg_ms', 'iops', 'log_write_avg_ms', 'passed', 'reason', 'step', "
		"'streams', 't_s']\n"
		"{'step': 2, 't_s': 80.5, 'streams': 64, 'iops': 5626.8, 'db_read_avg_ms': 12.198, "
		"'log_write_avg_ms': 10.887, 'passed': False, 'reason': 'log write average "
		"10.9 ms (db1) > 9.0 ms (90 % of 10 ms)'}\n"
		"None\n");
	free(got);

	/* facts without a choice recorded: chosen is null */
	strbuf_reset(&out);
	s.r.autotune.has_chosen = false;
	s.r.autotune.nr_steps = 0;
	report_render(&out, &s.r, REPORT_JSON, NULL);
	got = python_json(out.buf, "print(d[\"autotune\"])\n");
	assert_string_equal(got, "{'goal': 'max', 'chosen': None, 'stopped_because': '32 streams "
				 "pass, 64 do not', 'note': None, 'steps': []}\n");
	free(got);

	/* the fallback's note */
	strbuf_reset(&out);
	s.r.autotune.note = "no level passed auto-tune's 10 % margin; the main test ran at 4 "
			    "streams";
	report_render(&out, &s.r, REPORT_JSON, NULL);
	got = python_json(out.buf, "print(d[\"autotune\"][\"note\"])\n");
	assert_string_equal(got, "no level passed auto-tune's 10 % margin; the main test ran at 4 "
				 "streams\n");
	free(got);
	strbuf_reset(&out);
	report_render(&out, &s.r, REPORT_TEXT, NULL);
	assert_non_null(strstr(out.buf, "\n  no level passed auto-tune's 10 % margin; the main "
					"test ran at 4 streams\n"));
	strbuf_release(&out);
}

/* count occurrences of needle in hay */
static size_t count_of(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

static void test_html_warmup_autotune(void **state)
{
	struct results_autotune_step steps[3];
	struct results_sample rows[4];
	struct strbuf out = STRBUF_INIT;
	const char *chart, *end;
	struct sample s;

	sample_tuned(&s, rows, DP_ARRAY_SIZE(rows), steps);
	report_render(&out, &s.r, REPORT_HTML, NULL);
	assert_non_null(strstr(out.buf, "<section id=\"autotune\""));
	assert_non_null(strstr(out.buf, "<a href=\"#autotune\">"));
	assert_non_null(strstr(out.buf, "<section id=\"warmup\""));
	assert_non_null(strstr(out.buf, "<a href=\"#warmup\">"));
	/* failures in words carry their margin */
	assert_non_null(strstr(out.buf, "<li class=\"FAIL\">db3 on vol2: database read average "
					"21.4 ms &gt; 20 ms (+7 %)</li>"));
	/* the chart: the read average (3 steps) and the IOPS (3 steps), a marker
	 * per level, hollow for the failed one; in order of streams */
	chart = strstr(out.buf, "<figure class=\"chart\" id=\"chart-autotune\"");
	assert_non_null(chart);
	end = strstr(chart, "</figure>");
	assert_non_null(end);
	assert_non_null(strstr(chart, "class=\"series\" data-points=\"3\" data-name=\"db_read "
				      "average (ms, left)\""));
	assert_non_null(strstr(chart,
			       "class=\"series\" data-points=\"3\" data-name=\"transactional "
			       "IOPS (right)\""));
	assert_true(strstr(chart, "data-streams=\"4\"") < strstr(chart, "data-streams=\"32\""));
	assert_true(strstr(chart, "data-streams=\"32\"") < strstr(chart, "data-streams=\"64\""));
	assert_int_equal(count_of(chart, "<circle class=\"point\""), 6);
	assert_int_equal(count_of(chart, "data-passed=\"0\""), 2);
	assert_true(strstr(chart, "transactional IOPS</text>") < end); /* right axis title */
	assert_int_equal(count_of(out.buf, "<tr class=\"tune-step"), 3);
	assert_int_equal(count_of(out.buf, "<tr class=\"tune-step fail\">"), 1);
	strbuf_reset(&out);

	/* neither: no section and no link to one */
	sample_build(&s);
	report_render(&out, &s.r, REPORT_HTML, NULL);
	assert_null(strstr(out.buf, "autotune"));
	assert_null(strstr(out.buf, "id=\"warmup\""));
	assert_null(strstr(out.buf, "href=\"#warmup\""));
	strbuf_release(&out);
}

/* ---- host counters ---- */

/* A host row (device NULL) or a device row of table host_sample. */
static struct results_host_sample host_row(uint64_t t_ms, bool warm, const char *device,
					   uint64_t span_ms)
{
	struct results_host_sample x = {.t_ms = t_ms, .warmup = warm, .span_ms = span_ms};

	snprintf(x.device, sizeof(x.device), "%s", device);
	x.cpu_user_pct = x.cpu_system_pct = x.cpu_iowait_pct = x.mem_available = NAN;
	x.reads_per_s = x.writes_per_s = x.read_kbps = x.write_kbps = NAN;
	x.read_wait_ms = x.write_wait_ms = x.avg_wait_ms = x.util_pct = x.queue = NAN;
	return x;
}

static void dev_set(struct results_host_sample *x, uint64_t reads, uint64_t writes, double rw,
		    double ww, double util, double queue)
{
	double secs = (double)x->span_ms / 1000.0;

	x->reads = reads;
	x->writes = writes;
	x->read_sectors = reads * 64;
	x->write_sectors = writes * 8;
	x->reads_per_s = (double)reads / secs;
	x->writes_per_s = (double)writes / secs;
	x->read_kbps = (double)x->read_sectors / 2 / secs;
	x->write_kbps = (double)x->write_sectors / 2 / secs;
	x->read_wait_ms = rw;
	x->write_wait_ms = ww;
	x->avg_wait_ms = ((double)reads * rw + (double)writes * ww) / (double)(reads + writes);
	x->util_pct = util;
	x->queue = queue;
}

/*
 * The sample run with host counters: a warm-up interval (left out of the
 * figures) and two measured ones of 1 s; device "vdb" reads 1000 then 3000
 * I/Os of 32 KiB at 2 then 4 ms and writes 500 each time at 1 ms.
 * Over the measured 2 s: 2000 reads/s, 500 writes/s, read MB/s = 4000 x
 * 32768 / 10^6 / 2 = 65.536; read wait (1000 x 2 + 3000 x 4) / 4000 = 3.5;
 * avg wait (14000 + 1000) / 5000 = 3; util (60 + 100) / 2 = 80; queue 5;
 * CPU 30/10/2 then 50/20/4: 40/15/3; memory min 1 GiB.
 */
static void sample_host(struct sample *s, struct results_host_sample *rows)
{
	sample_build(s);
	rows[0] = host_row(1000, true, "", 1000);
	rows[0].cpu_user_pct = 90;
	rows[0].cpu_system_pct = rows[0].cpu_iowait_pct = 0;
	rows[0].mem_available = 1024.0 * 1024;
	rows[1] = host_row(1000, true, "vdb", 1000);
	dev_set(&rows[1], 1, 1, 100, 100, 100, 100);
	rows[2] = host_row(2000, false, "", 1000);
	rows[2].cpu_user_pct = 30;
	rows[2].cpu_system_pct = 10;
	rows[2].cpu_iowait_pct = 2;
	rows[2].mem_available = 2048.0 * 1024 * 1024;
	rows[3] = host_row(2000, false, "vdb", 1000);
	dev_set(&rows[3], 1000, 500, 2, 1, 60, 3);
	rows[4] = host_row(3000, false, "", 1000);
	rows[4].cpu_user_pct = 50;
	rows[4].cpu_system_pct = 20;
	rows[4].cpu_iowait_pct = 4;
	rows[4].mem_available = 1024.0 * 1024 * 1024;
	rows[5] = host_row(3000, false, "vdb", 1000);
	dev_set(&rows[5], 3000, 500, 4, 1, 100, 7);
	s->r.host_samples = rows;
	s->r.nr_host_samples = 6;
	assert_int_equal(results_host_perf_fill(&s->r), 0);
}

static void test_host_fill(void **state)
{
	struct results_host_sample rows[6];
	const struct results_host_device *d;
	struct sample s;

	sample_host(&s, rows);
	assert_true(s.r.host_perf.recorded);
	assert_int_equal(s.r.host_perf.cpu_intervals, 2);
	assert_true(fabs(s.r.host_perf.cpu_user_pct - 40) < 1e-9);
	assert_true(fabs(s.r.host_perf.cpu_system_pct - 15) < 1e-9);
	assert_true(fabs(s.r.host_perf.cpu_iowait_pct - 3) < 1e-9);
	assert_true(s.r.host_perf.mem_available_min == 1024.0 * 1024 * 1024);
	assert_int_equal(s.r.host_perf.nr_devices, 1);
	d = &s.r.host_perf.devices[0];
	assert_string_equal(d->name, "vdb");
	assert_int_equal(d->intervals, 2);
	assert_true(fabs(d->reads_per_s - 2000) < 1e-9);
	assert_true(fabs(d->writes_per_s - 500) < 1e-9);
	assert_true(fabs(d->read_mbps - 65.536) < 1e-9);
	assert_true(fabs(d->read_wait_ms - 3.5) < 1e-9);
	assert_true(fabs(d->write_wait_ms - 1) < 1e-9);
	assert_true(fabs(d->avg_wait_ms - 3) < 1e-9);
	assert_true(fabs(d->util_pct - 80) < 1e-9);
	assert_true(fabs(d->util_max_pct - 100) < 1e-9);
	assert_true(fabs(d->queue - 5) < 1e-9);
	free(s.r.host_perf.devices);
}

static void test_host_text_json(void **state)
{
	struct results_host_sample rows[6];
	struct strbuf out = STRBUF_INIT;
	struct sample s;
	char *got;

	sample_host(&s, rows);
	report_render(&out, &s.r, REPORT_TEXT, NULL);
	assert_non_null(strstr(out.buf,
			       "\nhost performance (measured intervals):\n"
			       "  cpu user 40 %, system 15 %, iowait 3 %; memory available "
			       "min 1024.0 MiB, mean 1536.0 MiB\n"));
	assert_non_null(strstr(out.buf, "  device     reads/s  writes/s   rd MB/s   wr MB/s"
					"    rd ms    wr ms   avg ms util %  queue\n"
					"  vdb         2000.0     500.0     65.54      2.05"
					"    3.500    1.000    3.000   80.0   5.00\n"));
	/* the count of verdicts is in the verdict block, before the tables */
	assert_true(strstr(out.buf, "\nverdicts: 3 passed, 1 failed\n") <
		    strstr(out.buf, "\nhost performance"));
	strbuf_reset(&out);
	report_render(&out, &s.r, REPORT_JSON, NULL);
	got = python_json(out.buf,
			  "h = d[\"host\"]\n"
			  "print(sorted(h))\n"
			  "print(h[\"cpu\"])\n"
			  "print(h[\"memory\"])\n"
			  "print(sorted(h[\"devices\"][0]))\n"
			  "print(h[\"devices\"][0][\"name\"], h[\"devices\"][0][\"read_mbps\"],"
			  " h[\"devices\"][0][\"avg_wait_ms\"], h[\"devices\"][0][\"reads\"])\n");
	assert_string_equal(got,
			    "['cpu', 'devices', 'memory']\n"
			    "{'intervals': 2, 'user_pct': 40.0, 'system_pct': 15.0, "
			    "'iowait_pct': 3.0}\n"
			    "{'intervals': 2, 'available_min_bytes': 1073741824, "
			    "'available_avg_bytes': 1610612736}\n"
			    "['avg_wait_ms', 'intervals', 'name', 'queue', 'read_mbps', "
			    "'read_wait_ms', 'reads', 'reads_per_s', 'util_max_pct', 'util_pct', "
			    "'write_mbps', 'write_wait_ms', 'writes', 'writes_per_s']\n"
			    "vdb 65.536 3.0 4000\n");
	free(got);
	free(s.r.host_perf.devices);

	/* recorded, but nothing measured (stopped in the warm-up): cpu and
	 * memory null, no devices; the text says so */
	sample_host(&s, rows);
	s.r.nr_host_samples = 2;
	assert_int_equal(results_host_perf_fill(&s.r), 0);
	strbuf_reset(&out);
	report_render(&out, &s.r, REPORT_JSON, NULL);
	got = python_json(out.buf, "print(d[\"host\"])\n");
	assert_string_equal(got, "{'cpu': None, 'memory': None, 'devices': []}\n");
	free(got);
	strbuf_reset(&out);
	report_render(&out, &s.r, REPORT_TEXT, NULL);
	assert_non_null(strstr(out.buf, "  cpu not measured; memory available not measured\n"));
	assert_null(strstr(out.buf, "reads/s"));
	free(s.r.host_perf.devices);
	strbuf_release(&out);
}

static void test_host_html(void **state)
{
	struct results_host_sample rows[6];
	struct strbuf out = STRBUF_INIT;
	const char *sec, *chart;
	struct sample s;

	sample_host(&s, rows);
	report_render(&out, &s.r, REPORT_HTML, NULL);
	sec = strstr(out.buf, "<section id=\"host\"");
	assert_non_null(sec);
	assert_non_null(strstr(sec, "40.0 % / 15.0 % / 3.0 % (2 intervals)"));
	assert_non_null(strstr(sec, "<tr class=\"host-device\"><td>vdb</td><td class=\"num\">2"
				    "</td><td class=\"num\">2000.0</td>"));
	/* CPU: three series over every interval, the warm-up's included */
	chart = strstr(sec, "<figure class=\"chart\" id=\"chart-host-cpu\"");
	assert_non_null(chart);
	assert_int_equal(count_of(chart, "data-points=\"3\" data-name=\"user %\""), 1);
	assert_non_null(strstr(chart, "class=\"warmup\""));
	/* devices: util and wait, the wait dashed against the right axis */
	chart = strstr(sec, "<figure class=\"chart\" id=\"chart-host-devices\"");
	assert_non_null(chart);
	assert_non_null(strstr(chart, "data-points=\"3\" data-name=\"vdb util %\""));
	assert_non_null(strstr(chart, "data-points=\"3\" data-name=\"vdb avg wait ms\""));
	assert_non_null(strstr(chart, "average wait (ms)</text>"));
	free(s.r.host_perf.devices);

	/* no host counters: the section holds the environment facts only */
	sample_build(&s);
	strbuf_reset(&out);
	report_render(&out, &s.r, REPORT_HTML, NULL);
	assert_null(strstr(out.buf, "chart-host"));
	assert_null(strstr(out.buf, "host-counters"));
	strbuf_release(&out);
}

/* A fleet run (run --start-at): its start and clock in the text, JSON and
 * HTML; a run without the facts has clock null and no such lines. */
static void test_start_at_clock(void **state)
{
	struct results_env env[] = {
		{"host.clock.synchronised", "yes"}, {"host.clock.max_error_us", "1500"},
		{"host.clock.est_error_us", "250"}, {"host.clock.state", "ok"},
		{"host.clock.daemon", "chronyd"},
	};
	struct results_event ev[] = {
		{0, "start", "run started"},
		{0, "clock", "clock: max error 1.500 ms is over --max-clock-error 1.000 ms"},
	};
	struct strbuf out = STRBUF_INIT;
	struct sample s;
	char *got;

	(void)state;
	sample_build(&s);
	report_render(&out, &s.r, REPORT_TEXT, NULL);
	assert_null(strstr(out.buf, "Clock:"));
	assert_null(strstr(out.buf, "start at"));
	strbuf_reset(&out);
	report_render(&out, &s.r, REPORT_JSON, NULL);
	got = python_json(out.buf, "print(d[\"clock\"], d[\"run\"][\"start_at\"], "
				   "d[\"run\"][\"load_started_at\"])\n");
	assert_string_equal(got, "None None None\n");
	free(got);

	s.r.start_at = "2026-12-03T16:00:00.000000Z";
	s.r.load_started_at = "2026-12-03T16:00:00.000117Z";
	s.r.env = env;
	s.r.nr_env = DP_ARRAY_SIZE(env);
	s.r.events = ev;
	s.r.nr_events = DP_ARRAY_SIZE(ev);
	strbuf_reset(&out);
	report_render(&out, &s.r, REPORT_TEXT, NULL);
	assert_non_null(strstr(out.buf, "\nstart at 2026-12-03T16:00:00.000000Z, load started "
					"2026-12-03T16:00:00.000117Z\n"
					"Clock: synchronised, max error 1.500 ms, est. error "
					"0.250 ms, daemon chronyd\n"
					"warning: clock: max error 1.500 ms is over "
					"--max-clock-error 1.000 ms\n"));
	strbuf_reset(&out);
	report_render(&out, &s.r, REPORT_JSON, NULL);
	got = python_json(out.buf,
			  "print(d[\"clock\"])\n"
			  "print(d[\"run\"][\"start_at\"], d[\"run\"][\"load_started_at\"])\n");
	assert_string_equal(got,
			    "{'synchronised': True, 'max_error_ms': 1.5, 'est_error_ms': 0.25, "
			    "'daemon': 'chronyd', 'warning': 'clock: max error 1.500 ms is "
			    "over --max-clock-error 1.000 ms'}\n"
			    "2026-12-03T16:00:00.000000Z 2026-12-03T16:00:00.000117Z\n");
	free(got);
	strbuf_reset(&out);
	report_render(&out, &s.r, REPORT_HTML, NULL);
	assert_non_null(strstr(out.buf, "<tr><th>Load started (UTC)</th><td>"
					"2026-12-03T16:00:00.000117Z</td></tr>"));
	assert_non_null(strstr(out.buf, "<tr><th>Clock</th><td>synchronised, max error 1.500 "
					"ms, est. error 0.250 ms, daemon chronyd</td></tr>"));
	assert_non_null(strstr(out.buf, "<th>Clock warning</th><td>clock: max error"));
	strbuf_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_valid_with_keys),
		cmocka_unit_test(test_json_nulls),
		cmocka_unit_test(test_json_finite_numbers),
		cmocka_unit_test(test_text_failures_first),
		cmocka_unit_test(test_text_pass_and_color),
		cmocka_unit_test(test_verdict_lines),
		cmocka_unit_test(test_format_names),
		cmocka_unit_test(test_format_table),
		cmocka_unit_test(test_class_summary),
		cmocka_unit_test(test_scope_helpers),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_classes_present),
		cmocka_unit_test(test_text_rates),
		cmocka_unit_test(test_csv_absent_rows),
		cmocka_unit_test(test_verdict_lines_new),
		cmocka_unit_test(test_warmup_fill),
		cmocka_unit_test(test_autotune_env),
		cmocka_unit_test(test_text_warmup_autotune),
		cmocka_unit_test(test_json_warmup_autotune),
		cmocka_unit_test(test_html_warmup_autotune),
		cmocka_unit_test(test_host_fill),
		cmocka_unit_test(test_host_text_json),
		cmocka_unit_test(test_host_html),
		cmocka_unit_test(test_start_at_clock),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
