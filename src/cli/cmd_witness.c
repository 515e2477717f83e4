/* SPDX-License-Identifier: MIT */
/*
 * cmd_witness.c - "diskproof witness --listen ADDR:PORT --out FILE": the
 * durability witness on a host outside the failure domain (witness_serve),
 * a line per connection on stdout, stopped by SIGINT or SIGTERM with a
 * summary.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "diskproof/run.h"
#include "diskproof/witness.h"
#include "cli.h"

static void witness_say(void *arg, const char *line)
{
	printf("%s\n", line);
}

/* The summary once stopped: what was recorded, what was turned away. */
static void witness_summary(const struct witness_server_stats *st, const char *why)
{
	printf("witness: stopped%s: %llu connections, %llu batches (%llu acknowledgements) "
	       "recorded, %llu partial batches discarded, %llu clients dropped, %llu dumps\n",
	       why, (unsigned long long)st->connections, (unsigned long long)st->batches,
	       (unsigned long long)st->records, (unsigned long long)st->partial,
	       (unsigned long long)st->dropped, (unsigned long long)st->dumps);
}

int cli_cmd_witness(int argc, char **argv)
{
	struct witness_server_stats st;
	struct signalfd_siginfo si = {0};
	struct cli_opts o;
	sigset_t set, old;
	char err[512] = "";
	int ret, sfd;

	ret = cli_opts_parse(argc, argv, CMD_WITNESS, &o);
	if (ret)
		return ret;
	if (o.npos)
		return cli_usage_error("witness takes no argument (got \"%s\")", o.positional[0]);
	if (!o.listen || !o.out)
		return cli_usage_error("witness needs --listen ADDR:PORT and --out FILE");
	setvbuf(stdout, NULL, _IOLBF, 0);
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, &old);
	sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0) {
		fprintf(stderr, "diskproof: witness: signalfd: %s\n", strerror(errno));
		sigprocmask(SIG_SETMASK, &old, NULL);
		return DP_EXIT_ENV;
	}
	ret = witness_serve(o.listen, o.out, sfd, witness_say, NULL, &st, err, sizeof(err));
	if (read(sfd, &si, sizeof(si)) != (ssize_t)sizeof(si))
		si.ssi_signo = 0;
	close(sfd);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (ret == -EINVAL && !st.connections) {
		fprintf(stderr, "diskproof: %s\n", err);
		return DP_EXIT_USAGE;
	}
	if (ret) {
		fprintf(stderr, "diskproof: %s\n", err);
		witness_summary(&st, " on an error");
		return DP_EXIT_ENV;
	}
	witness_summary(&st, si.ssi_signo == SIGINT ? " by SIGINT" : " by SIGTERM");
	return DP_EXIT_OK;
}
