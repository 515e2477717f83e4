/* SPDX-License-Identifier: MIT */
/*
 * exit.c - the exit code a run's outcome comes to (run.h): one pure rule,
 * used by the end of a run and by the command line for a signal that came
 * after the run had finished measuring.
 */
#include <signal.h>

#include "diskproof/run.h"

int run_exit_code(const struct run_exit_facts *f)
{
	if (f->signal)
		return f->signal == SIGINT ? DP_EXIT_SIGINT : DP_EXIT_SIGTERM;
	if (f->integrity)
		return DP_EXIT_INTEGRITY;
	if (f->env_error)
		return DP_EXIT_ENV;
	if (!f->passed)
		return DP_EXIT_FAIL;
	return f->inconclusive ? DP_EXIT_INCONCLUSIVE : DP_EXIT_OK;
}

/* A code's place in the precedence: higher comes first. */
static int exit_rank(int code)
{
	switch (code) {
	case DP_EXIT_SIGINT:
	case DP_EXIT_SIGTERM:
		return 7;
	case DP_EXIT_INTEGRITY:
		return 6;
	case DP_EXIT_ENV:
		return 5;
	case DP_EXIT_USAGE:
		return 4;
	case DP_EXIT_FAIL:
		return 3;
	case DP_EXIT_INCONCLUSIVE:
		return 2;
	case DP_EXIT_OK:
		return 0;
	default: /* not one of ours: as an environment error */
		return 5;
	}
}

int run_exit_worst(int a, int b)
{
	return exit_rank(b) > exit_rank(a) ? b : a;
}
