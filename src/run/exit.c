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
