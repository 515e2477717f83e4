/* SPDX-License-Identifier: MIT */
/*
 * test_results_simulated.c - whether a stored run was simulated: the
 * results model reads it off the engine's name (results_simulated), the run
 * from the engine's flags (engine_simulated); for every engine of the
 * registry, and for a name no engine has, the two agree, so that a run
 * marked simulated where it ran is marked so in every report.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "diskproof/engine.h"
#include "diskproof/results.h"

static void test_registry_agrees(void **state)
{
	size_t n, sim = 0;
	const struct engine_ops *const *ops = engine_registry(&n);

	(void)state;
	for (size_t i = 0; i < n; i++) {
		struct results r = {.engine = (char *)ops[i]->name};

		assert_int_equal(results_simulated(&r), engine_simulated(ops[i]->name));
		sim += results_simulated(&r);
	}
	assert_int_equal(sim, 1); /* the sim engine */
}

static void test_unknown(void **state)
{
	struct results none = {0}, other = {.engine = (char *)"simulator"};

	(void)state;
	assert_false(results_simulated(&none));
	assert_false(results_simulated(&other));
	assert_false(engine_simulated("simulator"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registry_agrees),
		cmocka_unit_test(test_unknown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
