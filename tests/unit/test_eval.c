/*
 * test_eval.c - verdicts as a pure function of summaries and thresholds: each
 * criterion at, just under and just over its threshold, the target-IOPS
 * criterion only when a target is set, classes without I/O left unjudged,
 * and every verdict naming its scope and database.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "diskproof/eval.h"

static const struct profile_thresholds strict = {
	.db_read_avg_ns = 20000000,
	.db_read_max_ns = 100000000,
	.log_write_avg_ns = 10000000,
	.log_write_max_ns = 100000000,
	.io_errors = 0,
};

static struct scope_summary scope(const char *name, const char *vol, double rd_avg, double lw_max)
{
	struct scope_summary s;

	memset(&s, 0, sizeof(s));
	strcpy(s.name, name);
	strcpy(s.volume, vol);
	s.classes[IO_DB_READ] = (struct class_summary){
		.ios = 100, .iops = 600, .avg_ms = rd_avg, .max_ms = rd_avg * 2};
	s.classes[IO_DB_WRITE] = (struct class_summary){.ios = 60, .iops = 400, .avg_ms = 1};
	s.classes[IO_LOG_WRITE] = (struct class_summary){.ios = 30, .avg_ms = 1, .max_ms = lw_max};
	return s;
}

static const struct verdict *find(const struct verdict *v, size_t n, const char *name,
				  const char *criterion)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].name, name) && !strcmp(v[i].criterion, criterion))
			return &v[i];
	return NULL;
}

static void test_thresholds(void **state)
{
	struct scope_summary dbs[2] = {scope("db1", "vol1", 20.0, 100.0),
				       scope("db2", "vol1", 20.001, 100.001)};
	struct scope_summary vol = scope("vol1", "", 10, 10), run = scope("run", "", 10, 10);
	struct eval_input in = {&run, &vol, 1, dbs, 2, 0};
	struct verdict *v;
	size_t n;
	const struct verdict *x;

	assert_int_equal(eval_judge(&in, &strict, &v, &n), 0);
	/* 6 criteria for each of 4 scopes, no target */
	assert_int_equal(n, 24);
	x = find(v, n, "db1", "db_read_avg_ms");
	assert_non_null(x);
	assert_true(x->passed); /* at the threshold passes */
	assert_int_equal(x->scope, SCOPE_DATABASE);
	assert_string_equal(x->volume, "vol1");
	assert_true(x->threshold == 20.0);
	x = find(v, n, "db2", "db_read_avg_ms");
	assert_false(x->passed);
	assert_true(x->measured == 20.001);
	assert_false(find(v, n, "db2", "log_write_max_ms")->passed);
	assert_true(find(v, n, "db1", "log_write_max_ms")->passed);
	assert_null(find(v, n, "run", "transactional_iops"));
	assert_false(eval_all_passed(v, n));
	free(v);
}

static void test_errors_and_target(void **state)
{
	struct scope_summary run = scope("run", "", 5, 5);
	struct eval_input in = {&run, NULL, 0, NULL, 0, 1000};
	struct verdict *v;
	size_t n;

	assert_int_equal(eval_judge(&in, &strict, &v, &n), 0);
	assert_true(find(v, n, "run", "transactional_iops")->passed); /* 600 + 400 >= 1000 */
	assert_int_equal(find(v, n, "run", "transactional_iops")->cmp, VERDICT_GE);
	assert_true(eval_all_passed(v, n));
	free(v);
	in.target_iops = 1001;
	run.classes[IO_DB_WRITE].errors = 1;
	run.integrity_errors = 2;
	assert_int_equal(eval_judge(&in, &strict, &v, &n), 0);
	assert_false(find(v, n, "run", "transactional_iops")->passed);
	assert_false(find(v, n, "run", "io_errors")->passed);
	assert_true(find(v, n, "run", "io_errors")->measured == 1);
	assert_false(find(v, n, "run", "integrity_errors")->passed);
	free(v);
}

static void test_no_io_not_judged(void **state)
{
	struct scope_summary run = scope("run", "", 5, 5);
	struct eval_input in = {&run, NULL, 0, NULL, 0, 0};
	struct verdict *v;
	size_t n;

	run.classes[IO_LOG_WRITE].ios = 0;
	assert_int_equal(eval_judge(&in, &strict, &v, &n), 0);
	assert_null(find(v, n, "run", "log_write_avg_ms"));
	assert_non_null(find(v, n, "run", "db_read_avg_ms"));
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_thresholds),
		cmocka_unit_test(test_errors_and_target),
		cmocka_unit_test(test_no_io_not_judged),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
