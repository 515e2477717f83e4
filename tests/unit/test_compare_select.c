/* SPDX-License-Identifier: MIT */
/*
 * test_compare_select.c - what compare decides without any run data: the run
 * selectors (store_run_selector_parse / _pick / store_run_label_suggest: N,
 * latest, latest~N, label:TEXT, and the errors of each), the material filter
 * (analyze_comparison_set_min_change: significant and at least PCT, an
 * undefined change from 0, a change exactly at the threshold) and the
 * regressions a gate finds (analyze_regressions: direction per judged
 * figure, significance required, strictly beyond PCT), on a comparison built
 * by hand.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diskproof/analyze.h"
#include "diskproof/store.h"

static void test_selector_parse(void **state)
{
	struct store_run_selector s;
	struct strbuf err = STRBUF_INIT;
	static const char *const bad[] = {"",	     "0",	 "-1",	     "x",	  "12x",
					  "latest~", "latest~x", "latest-1", "latest~-1", "latest1",
					  "label:",  "Latest",	 "label"};

	(void)state;
	assert_int_equal(store_run_selector_parse("17", &s, &err), 0);
	assert_int_equal(s.kind, STORE_SEL_ID);
	assert_int_equal(s.id, 17);
	assert_int_equal(store_run_selector_parse("latest", &s, &err), 0);
	assert_int_equal(s.kind, STORE_SEL_LATEST);
	assert_int_equal(s.back, 0);
	assert_int_equal(store_run_selector_parse("latest~3", &s, &err), 0);
	assert_int_equal(s.kind, STORE_SEL_LATEST);
	assert_int_equal(s.back, 3);
	assert_int_equal(store_run_selector_parse("label:fw 2.1", &s, &err), 0);
	assert_int_equal(s.kind, STORE_SEL_LABEL);
	assert_string_equal(s.label, "fw 2.1");
	assert_int_equal(store_run_selector_parse("label:label:x", &s, &err), 0);
	assert_string_equal(s.label, "label:x"); /* only the first prefix counts */
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		strbuf_reset(&err);
		assert_int_equal(store_run_selector_parse(bad[i], &s, &err), -EINVAL);
		assert_non_null(strstr(err.buf, "latest~N"));
	}
	strbuf_release(&err);
}

/* the grammar's sets: N,M,... / N..M / series:N; the bad ones refused with
 * a did-you-mean where one is near */
static void test_selector_sets(void **state)
{
	struct store_run_selector s;
	struct strbuf err = STRBUF_INIT;
	static const char *const bad[] = {
		"1,",	   ",1",   "1,,2",    "1,x",	  "3..2",     "1..",	   "..4", "1...4",
		"1..4..5", "1..0", "series:", "series:0", "series:x", "series:-1", "0,1", "1.5"};

	(void)state;
	assert_int_equal(store_run_selector_parse("3,5,4", &s, &err), 0);
	assert_int_equal(s.kind, STORE_SEL_LIST);
	assert_string_equal(s.list, "3,5,4");
	assert_int_equal(store_run_selector_parse("2..9", &s, &err), 0);
	assert_int_equal(s.kind, STORE_SEL_RANGE);
	assert_int_equal(s.lo, 2);
	assert_int_equal(s.hi, 9);
	assert_int_equal(store_run_selector_parse("4..4", &s, &err), 0);
	assert_int_equal(store_run_selector_parse("series:12", &s, &err), 0);
	assert_int_equal(s.kind, STORE_SEL_SERIES);
	assert_int_equal(s.id, 12);
	assert_int_equal(store_run_selector_parse("label:1,2", &s, &err), 0);
	assert_int_equal(s.kind, STORE_SEL_LABEL); /* a label may hold commas */
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		strbuf_reset(&err);
		assert_int_equal(store_run_selector_parse(bad[i], &s, &err), -EINVAL);
		assert_non_null(strstr(err.buf, "series:N"));
	}
	strbuf_reset(&err);
	assert_int_equal(store_run_selector_parse("seris:4", &s, &err), -EINVAL);
	assert_non_null(strstr(err.buf, "did you mean \"series:4\"?"));
	strbuf_reset(&err);
	assert_int_equal(store_run_selector_parse("lable:fw", &s, &err), -EINVAL);
	assert_non_null(strstr(err.buf, "did you mean \"label:fw\"?"));
	strbuf_reset(&err);
	assert_int_equal(store_run_selector_parse("4-6", &s, &err), -EINVAL);
	assert_non_null(strstr(err.buf, "did you mean \"4..6\"?"));
	strbuf_reset(&err);
	assert_int_equal(store_run_selector_parse("4...6", &s, &err), -EINVAL);
	assert_non_null(strstr(err.buf, "did you mean \"4..6\"?"));
	strbuf_release(&err);
}

/* Student's t (pooled), one-sided: a clear rise is significant upwards
 * only; no variance or one value a side is not tested */
static void test_pooled_t(void **state)
{
	double a[] = {0.00, 0.05, -0.05}, b[] = {0.14, 0.19, 0.09}, same[] = {1, 1, 1};
	double t, df, p;

	(void)state;
	analyze_pooled_t(a, 3, b, 3, true, &t, &df, &p);
	/* means 0 and 0.14, sd 0.05 each: t = 0.14 / (0.05 sqrt(2/3)) = 3.43, df 4 */
	assert_true(fabs(t - 3.4293) < 1e-3);
	assert_true(fabs(df - 4) < 1e-9);
	assert_true(p > 0.01 && p < 0.02); /* P(T_4 >= 3.43) = 0.0133 */
	analyze_pooled_t(a, 3, b, 3, false, &t, &df, &p);
	assert_true(p > 0.98); /* a rise is not "worse" for IOPS */
	analyze_pooled_t(same, 3, same, 3, true, &t, &df, &p);
	assert_true(isnan(p));
	analyze_pooled_t(a, 1, b, 3, true, &t, &df, &p);
	assert_true(isnan(p));
}

/* the runs a change needs: +15 % at a 5 % spread (sd of ln) in 5 (the
 * exact power at Holm's first step, docs/compare.md's table); more for less
 * change or more spread; none for no change */
static void test_runs_needed(void **state)
{
	unsigned n15 = analyze_runs_needed(15, 5, 0.05), n5 = analyze_runs_needed(5, 5, 0.05);

	(void)state;
	assert_int_equal(n15, 5);
	assert_true(n5 > n15);
	assert_true(analyze_runs_needed(15, 10, 0.05) > n15);
	assert_int_equal(analyze_runs_needed(0, 5, 0.05), 0);
	assert_int_equal(analyze_runs_needed(0.5, 20, 0.05), 0); /* past 50 runs */
}

/* the gate over runs: established with its bound beyond PCT fails,
 * established with the estimate but not the bound beyond PCT passes,
 * untestable beyond PCT is inconclusive, tested and not established passes */
static void test_rep_gate(void **state)
{
	struct analyze_replicates r;
	struct analyze_regression *regs = NULL;
	enum analyze_gate_outcome o = ANALYZE_GATE_PASS;
	unsigned need = 0;
	size_t n = 0;

	(void)state;
	memset(&r, 0, sizeof(r));
	for (int j = 0; j < ANALYZE_JUDGED_COUNT; j++)
		r.fig[j] = (struct analyze_rep_figure){.a = 1, .b = 1, .state = ANALYZE_REP_TESTED};
	r.fig[ANALYZE_J_DB_READ_AVG] = (struct analyze_rep_figure){
		.change_pct = 20, .worse = true, .state = ANALYZE_REP_TESTED, .established = false};
	assert_int_equal(analyze_rep_gate(&r, 0, 5, &o, &need, &regs, &n), 0);
	assert_int_equal(o, ANALYZE_GATE_PASS);
	r.fig[ANALYZE_J_DB_READ_AVG].state = ANALYZE_REP_ONE_RUN;
	r.fig[ANALYZE_J_DB_READ_AVG].runs_needed = 3;
	assert_int_equal(analyze_rep_gate(&r, 0, 5, &o, &need, &regs, &n), 0);
	assert_int_equal(o, ANALYZE_GATE_INCONCLUSIVE);
	assert_int_equal(need, 3);
	assert_int_equal(n, 0);
	r.fig[ANALYZE_J_LOG_WRITE_AVG] = (struct analyze_rep_figure){.change_pct = 8,
								     .worse = true,
								     .state = ANALYZE_REP_TESTED,
								     .established = true,
								     .least_pct = 3};
	assert_int_equal(analyze_rep_gate(&r, 0, 5, &o, &need, &regs, &n), 0);
	assert_int_equal(n, 0); /* at least 3 %: not surely beyond 5 % */
	r.fig[ANALYZE_J_LOG_WRITE_AVG].least_pct = 6;
	assert_int_equal(analyze_rep_gate(&r, 0, 10, &o, &need, &regs, &n), 0);
	assert_int_equal(n, 0); /* 8 % is within a 10 % gate */
	assert_int_equal(analyze_rep_gate(&r, 0, 5, &o, &need, &regs, &n), 0);
	assert_int_equal(o, ANALYZE_GATE_FAIL);
	assert_int_equal(n, 1);
	assert_int_equal(regs[0].fig, ANALYZE_J_LOG_WRITE_AVG);
	free(regs);
}

/* ids 2, 5, 9, 4 (3 deleted, not in order): latest 9, latest~1 5, latest~3 2 */
static void test_selector_pick(void **state)
{
	const int64_t ids[] = {2, 5, 9, 4};
	struct store_run_selector s;
	struct strbuf err = STRBUF_INIT;
	int64_t id = 0;

	(void)state;
	assert_int_equal(store_run_selector_parse("latest", &s, &err), 0);
	assert_int_equal(store_run_selector_pick(&s, ids, 4, &id, &err), 0);
	assert_int_equal(id, 9);
	assert_int_equal(store_run_selector_parse("latest~1", &s, &err), 0);
	assert_int_equal(store_run_selector_pick(&s, ids, 4, &id, &err), 0);
	assert_int_equal(id, 5);
	assert_int_equal(store_run_selector_parse("latest~3", &s, &err), 0);
	assert_int_equal(store_run_selector_pick(&s, ids, 4, &id, &err), 0);
	assert_int_equal(id, 2);
	assert_int_equal(store_run_selector_parse("latest~4", &s, &err), 0);
	assert_int_equal(store_run_selector_pick(&s, ids, 4, &id, &err), -ENOENT);
	assert_non_null(strstr(err.buf, "only 4 run(s)"));
	assert_int_equal(store_run_selector_parse("4", &s, &err), 0);
	assert_int_equal(store_run_selector_pick(&s, ids, 4, &id, &err), 0);
	assert_int_equal(id, 4);
	strbuf_reset(&err);
	assert_int_equal(store_run_selector_parse("3", &s, &err), 0);
	assert_int_equal(store_run_selector_pick(&s, ids, 4, &id, &err), -ENOENT);
	assert_non_null(strstr(err.buf, "no run 3"));
	strbuf_reset(&err);
	assert_int_equal(store_run_selector_parse("latest", &s, &err), 0);
	assert_int_equal(store_run_selector_pick(&s, NULL, 0, &id, &err), -ENOENT);
	assert_non_null(strstr(err.buf, "no runs"));
	strbuf_release(&err);
}

static void test_label_suggest(void **state)
{
	struct store_run_brief runs[4] = {{.id = 1}, {.id = 2}, {.id = 3}, {.id = 4}};
	struct strbuf err = STRBUF_INIT;

	(void)state;
	strcpy(runs[0].label, "fw 2.0");
	strcpy(runs[1].label, "fw 2.1");
	strcpy(runs[2].label, "cache 75:25");
	strcpy(runs[3].label, "fw 2.1"); /* the newer of two: named once, as run 4 */
	store_run_label_suggest(runs, 4, "fw2.1", &err);
	assert_string_equal(err.buf, "no run labelled \"fw2.1\" in this results file; did you "
				     "mean \"fw 2.1\" (run 4), \"fw 2.0\" (run 1)?");
	strbuf_reset(&err);
	store_run_label_suggest(runs, 4, "cache", &err); /* held by a label */
	assert_non_null(strstr(err.buf, "did you mean \"cache 75:25\" (run 3)?"));
	strbuf_reset(&err);
	store_run_label_suggest(runs, 4, "zzzzzzzzzz", &err);
	assert_non_null(strstr(err.buf, "\"diskproof list\" shows the labels"));
	strbuf_reset(&err);
	store_run_label_suggest(runs, 0, "x", &err);
	assert_non_null(strstr(err.buf, "no run here has a label"));
	strbuf_release(&err);
}

static void fig(struct analyze_figure *f, double a, double b, bool sig)
{
	memset(f, 0, sizeof(*f));
	f->a = a;
	f->b = b;
	f->change_pct = analyze_change_pct(a, b);
	f->significant = sig;
	f->test.method = ANALYZE_NORMAL;
	f->test.p_value = sig ? 1e-6 : 0.5;
}

/* a run scope: db_read avg +20 % significant, p50 +1 % significant (not
 * material), p99 +30 % not significant, IOPS 0 -> 5 significant (material:
 * from nothing), log_write avg -2 % significant (exactly the threshold),
 * transactional IOPS -10 % significant */
static void comparison_build(struct analyze_comparison *c, struct analyze_scope *s)
{
	memset(c, 0, sizeof(*c));
	memset(s, 0, sizeof(*s));
	s->scope = SCOPE_RUN;
	strcpy(s->name, "run");
	for (int k = 0; k < IO_CLASS_COUNT; k++) {
		for (int m = 0; m < ANALYZE_METRIC_COUNT; m++)
			fig(&s->classes[k].fig[m], 1, 1, false);
		fig(&s->classes[k].sd, 1, 1, false);
	}
	fig(&s->classes[IO_DB_READ].fig[ANALYZE_AVG_MS], 2.0, 2.4, true);
	fig(&s->classes[IO_DB_READ].fig[ANALYZE_P50_MS], 2.0, 2.02, true);
	fig(&s->classes[IO_DB_READ].fig[ANALYZE_P99_MS], 2.0, 2.6, false);
	fig(&s->classes[IO_BDM_READ].fig[ANALYZE_IOPS], 0, 5, true);
	fig(&s->classes[IO_LOG_WRITE].fig[ANALYZE_AVG_MS], 1.0, 0.98, true);
	fig(&s->trans_iops, 1000, 900, true);
	c->scopes = s;
	c->nr_scopes = 1;
}

static void test_material_filter(void **state)
{
	struct analyze_comparison c;
	struct analyze_scope s;
	struct analyze_class *rd = &s.classes[IO_DB_READ];

	(void)state;
	comparison_build(&c, &s);
	analyze_comparison_set_min_change(&c, ANALYZE_MIN_CHANGE_DEFAULT);
	assert_true(rd->fig[ANALYZE_AVG_MS].listed);
	assert_true(rd->fig[ANALYZE_P50_MS].significant && !rd->fig[ANALYZE_P50_MS].material);
	assert_false(rd->fig[ANALYZE_P50_MS].listed); /* +1 %: significant, not material */
	assert_true(rd->fig[ANALYZE_P99_MS].material && !rd->fig[ANALYZE_P99_MS].listed);
	assert_true(s.classes[IO_BDM_READ].fig[ANALYZE_IOPS].listed);	 /* 0 -> 5 */
	assert_true(s.classes[IO_LOG_WRITE].fig[ANALYZE_AVG_MS].listed); /* -2 % at 2 % */
	assert_false(rd->sd.material);					 /* unchanged */
	assert_true(s.trans_iops.listed);
	assert_int_equal(c.nr_listed, 4);
	/* a higher bar drops the -2 % and keeps the rest; 0 lists every significant */
	analyze_comparison_set_min_change(&c, 15);
	assert_false(s.classes[IO_LOG_WRITE].fig[ANALYZE_AVG_MS].listed);
	assert_int_equal(c.nr_listed, 2);
	analyze_comparison_set_min_change(&c, 0);
	assert_int_equal(c.nr_listed, 5); /* the four and p50 +1 % */
}

static void test_regressions(void **state)
{
	struct analyze_comparison c;
	struct analyze_scope s;
	struct analyze_regression *r = NULL;
	size_t n = 0;

	(void)state;
	comparison_build(&c, &s);
	/* db_read avg +20 % (worse), trans IOPS -10 % (worse); log_write avg
	 * -2 % is better; db_read max unchanged */
	assert_int_equal(analyze_regressions(&c, 0, 5, &r, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(r[0].fig, ANALYZE_J_DB_READ_AVG);
	assert_true(fabs(r[0].change_pct - 20) < 1e-9);
	assert_int_equal(r[1].fig, ANALYZE_J_TRANS_IOPS);
	/* strictly beyond: 10 % does not regress past 10 % */
	n = 0;
	assert_int_equal(analyze_regressions(&c, 0, 10, &r, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(r[0].fig, ANALYZE_J_DB_READ_AVG);
	/* not significant: +30 % db_read max is no regression */
	fig(&s.classes[IO_DB_READ].fig[ANALYZE_MAX_MS], 2.4, 3.12, false);
	n = 0;
	assert_int_equal(analyze_regressions(&c, 3, 25, &r, &n), 0);
	assert_int_equal(n, 0);
	s.classes[IO_DB_READ].fig[ANALYZE_MAX_MS].significant = true;
	assert_int_equal(analyze_regressions(&c, 3, 25, &r, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(r[0].pair, 3);
	assert_int_equal(r[0].fig, ANALYZE_J_DB_READ_MAX);
	free(r);
	for (int j = 0; j < ANALYZE_JUDGED_COUNT; j++)
		assert_non_null(analyze_judged_def(j)->key);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_selector_parse), cmocka_unit_test(test_selector_pick),
		cmocka_unit_test(test_label_suggest),  cmocka_unit_test(test_material_filter),
		cmocka_unit_test(test_regressions),    cmocka_unit_test(test_selector_sets),
		cmocka_unit_test(test_pooled_t),       cmocka_unit_test(test_runs_needed),
		cmocka_unit_test(test_rep_gate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
