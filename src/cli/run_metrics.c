/* SPDX-License-Identifier: MIT */
/*
 * run_metrics.c - run --metrics as the command sees it: the server is
 * started here, before the run (so a series' runs share one port, and it
 * outlives the run), its URL said on stderr; after the report, the linger
 * keeps it serving the run's final text until one scrape has fetched it
 * (docs/metrics.md, "After the run"): without it the port would close
 * with the run, and Prometheus, which scrapes every 15 s to 1 min, would
 * hold the state of the run's last minutes but never its verdict.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>

#include "diskproof/metrics.h"
#include "diskproof/run.h"
#include "diskproof/util.h"

#include "cli.h"

int cli_metrics_start(const struct cli_opts *o, struct metrics_server **out)
{
	struct strbuf err = STRBUF_INIT;
	struct metrics_addr a;
	int ret;

	*out = NULL;
	if (!o->metrics)
		return 0;
	ret = metrics_addr_parse(o->metrics, &a, &err);
	if (ret) {
		fprintf(stderr, "diskproof: --metrics %s: %s\n", o->metrics, err.buf);
		strbuf_release(&err);
		return DP_EXIT_USAGE;
	}
	ret = metrics_server_start(out, &a, &err);
	if (ret) {
		cli_print_err(err.buf);
		strbuf_release(&err);
		return DP_EXIT_ENV;
	}
	/* said even with --quiet: with PORT 0 it is the only way to know */
	fprintf(stderr, "diskproof: metrics at %s\n", metrics_server_url(*out));
	return 0;
}

/* The linger itself (cli_run_finish). */
static void linger(const struct cli_opts *o, struct metrics_server *s, int sfd, int exit_code)
{
	uint64_t d = o->has_metrics_linger ? o->metrics_linger_ns : METRICS_LINGER_DEFAULT_NS;
	uint64_t end = time_mono_ns() + d;
	struct strbuf t = STRBUF_INIT;
	int ret;

	/* interrupted: whoever sent the signal wants the command to end */
	if (!s || !d || exit_code == DP_EXIT_SIGINT || exit_code == DP_EXIT_SIGTERM ||
	    !metrics_server_finished(s))
		return;
	unit_format_duration(&t, d);
	fflush(stdout); /* the report first, then the wait is said */
	fprintf(stderr, "diskproof: serving final metrics until scraped or %s (--metrics-linger)\n",
		t.buf);
	for (;;) {
		uint64_t now = time_mono_ns();

		ret = metrics_server_wait_scraped(s, now < end ? end - now : 0, sfd);
		/* a SIGHUP or SIGUSR1 read: the linger goes on */
		if (ret != -EINTR || cli_signals_read(sfd))
			break;
	}
	/* nobody read it: whoever watches the dashboard has no verdict */
	if (ret == -ETIMEDOUT)
		fprintf(stderr, "diskproof: the final metrics were not scraped in %s\n", t.buf);
	strbuf_release(&t);
}

int cli_run_finish(const struct cli_opts *o, struct metrics_server *s, int sfd, int exit_code)
{
	int late = cli_signals_read(sfd), after;

	if (!late)
		linger(o, s, sfd, exit_code);
	metrics_server_stop(s);
	after = cli_signals_finish(sfd);
	return late ? late : after;
}
