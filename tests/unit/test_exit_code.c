/* SPDX-License-Identifier: MIT */
/*
 * test_exit_code.c - the exit code of a run's outcome (run_exit_code, run.h):
 * each code alone, then the precedence README.md and ARCHITECTURE.md give
 * when several apply: 130/143 before 4, 4 before 3, 3 before 1, 1 before 5
 * (inconclusive), 5 before 0;
 * a signal other than SIGINT counts as SIGTERM.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <signal.h>

#include "diskproof/run.h"

static int code(int sig, bool integrity, bool env, bool passed)
{
	struct run_exit_facts f = {
		.signal = sig, .integrity = integrity, .env_error = env, .passed = passed};

	return run_exit_code(&f);
}

static void test_alone(void **state)
{
	(void)state;
	assert_int_equal(code(0, false, false, true), DP_EXIT_OK);
	assert_int_equal(code(0, false, false, false), DP_EXIT_FAIL);
	assert_int_equal(code(0, false, true, true), DP_EXIT_ENV);
	assert_int_equal(code(0, true, false, true), DP_EXIT_INTEGRITY);
	assert_int_equal(code(SIGINT, false, false, true), DP_EXIT_SIGINT);
	assert_int_equal(code(SIGTERM, false, false, true), DP_EXIT_SIGTERM);
	assert_int_equal(DP_EXIT_SIGINT, 130);
	assert_int_equal(DP_EXIT_SIGTERM, 143);
}

/* 1 over 0: a failed verdict is not hidden by the others that passed */
static void test_fail_over_pass(void **state)
{
	(void)state;
	assert_int_equal(code(0, false, false, false), 1);
}

/* 3 over 1 and 0: an environment error, whatever the verdicts */
static void test_env_over_verdicts(void **state)
{
	(void)state;
	assert_int_equal(code(0, false, true, false), 3);
	assert_int_equal(code(0, false, true, true), 3);
}

/* 4 over 3, 1 and 0: integrity errors are said even when the run also
 * met an environment error or failed its verdicts */
static void test_integrity_over_env(void **state)
{
	(void)state;
	assert_int_equal(code(0, true, true, false), 4);
	assert_int_equal(code(0, true, true, true), 4);
	assert_int_equal(code(0, true, false, false), 4);
}

/* 130/143 over everything: an interrupted run says so */
static void test_signal_over_all(void **state)
{
	(void)state;
	for (int i = 0; i < 8; i++) {
		bool integ = i & 1, env = i & 2, passed = i & 4;

		assert_int_equal(code(SIGINT, integ, env, passed), 130);
		assert_int_equal(code(SIGTERM, integ, env, passed), 143);
	}
}

/* a stop by another signal (the runner takes SIGINT and SIGTERM only)
 * counts as SIGTERM, as it always did */
static void test_other_signal_as_sigterm(void **state)
{
	(void)state;
	assert_int_equal(code(SIGHUP, false, false, true), 143);
}

static int code5(int sig, bool integrity, bool env, bool passed)
{
	struct run_exit_facts f = {.signal = sig,
				   .integrity = integrity,
				   .env_error = env,
				   .passed = passed,
				   .inconclusive = true};

	return run_exit_code(&f);
}

/* 5 only when nothing else applies: an inconclusive run that also failed a
 * verdict says 1, one that met an error says 3 or 4, a signal 130/143 */
static void test_inconclusive_after_fail(void **state)
{
	(void)state;
	assert_int_equal(DP_EXIT_INCONCLUSIVE, 5);
	assert_int_equal(code5(0, false, false, true), 5);
	assert_int_equal(code5(0, false, false, false), 1);
	assert_int_equal(code5(0, false, true, true), 3);
	assert_int_equal(code5(0, true, false, true), 4);
	assert_int_equal(code5(SIGINT, false, false, true), 130);
	assert_int_equal(code5(SIGTERM, false, false, true), 143);
	/* and not without the fact */
	assert_int_equal(code(0, false, false, true), 0);
}

/* a series' code from its runs' (run_exit_worst): the precedence above */
static void test_worst(void **state)
{
	(void)state;
	assert_int_equal(run_exit_worst(DP_EXIT_OK, DP_EXIT_OK), DP_EXIT_OK);
	assert_int_equal(run_exit_worst(DP_EXIT_OK, DP_EXIT_FAIL), DP_EXIT_FAIL);
	assert_int_equal(run_exit_worst(DP_EXIT_FAIL, DP_EXIT_OK), DP_EXIT_FAIL);
	assert_int_equal(run_exit_worst(DP_EXIT_INCONCLUSIVE, DP_EXIT_OK), DP_EXIT_INCONCLUSIVE);
	assert_int_equal(run_exit_worst(DP_EXIT_INCONCLUSIVE, DP_EXIT_FAIL), DP_EXIT_FAIL);
	assert_int_equal(run_exit_worst(DP_EXIT_FAIL, DP_EXIT_ENV), DP_EXIT_ENV);
	assert_int_equal(run_exit_worst(DP_EXIT_ENV, DP_EXIT_INTEGRITY), DP_EXIT_INTEGRITY);
	assert_int_equal(run_exit_worst(DP_EXIT_INTEGRITY, DP_EXIT_SIGINT), DP_EXIT_SIGINT);
	assert_int_equal(run_exit_worst(DP_EXIT_SIGTERM, DP_EXIT_SIGINT), DP_EXIT_SIGTERM);
	assert_int_equal(run_exit_worst(DP_EXIT_SIGINT, DP_EXIT_FAIL), DP_EXIT_SIGINT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_worst),
		cmocka_unit_test(test_alone),
		cmocka_unit_test(test_fail_over_pass),
		cmocka_unit_test(test_env_over_verdicts),
		cmocka_unit_test(test_integrity_over_env),
		cmocka_unit_test(test_signal_over_all),
		cmocka_unit_test(test_other_signal_as_sigterm),
		cmocka_unit_test(test_inconclusive_after_fail),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
