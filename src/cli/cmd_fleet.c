/* SPDX-License-Identifier: MIT */
/*
 * cmd_fleet.c - "diskproof fleet SELECTOR... [--results FILE] [--format
 * text|json|html] [-o FILE]": the runs of a fleet (label:TEXT: every run so
 * labelled; N: run N; several, mixed) as one report (report.h: a row per
 * run, totals from merged histograms, the start skew, the runs that differ
 * from the rest).
 *
 * A run selected twice is reported once. A run still running is skipped
 * (its totals are not written yet) and the report says so; a deleted run
 * is not in the file, so no selector finds it. --expect-hosts H1,H2,...
 * names the hosts that should have a run: each with none is listed missing.
 * Once the report is written, the exit code is the fleet's verdict: 0 when
 * every run passed and no expected host is missing, 1 otherwise (a run that
 * failed, ended in an error or was aborted, a host missing); 2 for a usage
 * error, a selector matching no run, only running runs, or simulated and
 * real runs together without --allow-mixed (with it, the report's first
 * line says so); 3 when the results file cannot be used.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diskproof/analyze.h"
#include "diskproof/report.h"
#include "diskproof/run.h"
#include "diskproof/store.h"

#include "cli.h"

struct fleet_ids {
	int64_t *v;
	size_t n, cap;
};

static int ids_add(struct fleet_ids *ids, int64_t id)
{
	int64_t *nv;

	for (size_t i = 0; i < ids->n; i++)
		if (ids->v[i] == id)
			return 0;
	if (ids->n == ids->cap) {
		ids->cap = ids->cap ? 2 * ids->cap : 16;
		nv = realloc(ids->v, ids->cap * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		ids->v = nv;
	}
	ids->v[ids->n++] = id;
	return 0;
}

static int id_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Every selector's runs, each once, in id order. */
static int fleet_select(struct store *st, const char *const *sel, size_t n, struct fleet_ids *ids,
			struct strbuf *err)
{
	int ret = 0;

	for (size_t i = 0; i < n && !ret; i++) {
		struct store_run_set set;

		/* the one grammar (store_runs_select); label:TEXT is every run
		 * so labelled */
		ret = store_runs_select(st, sel[i], STORE_LABEL_ALL, &set, err);
		for (size_t k = 0; !ret && k < set.n; k++)
			ret = ids_add(ids, set.ids[k]);
		store_run_set_release(&set);
		if (ret == -ENOMEM)
			strbuf_addstr(err, "fleet: out of memory");
	}
	if (!ret)
		qsort(ids->v, ids->n, sizeof(*ids->v), id_cmp);
	return ret;
}

/* --expect-hosts "h1,h2" split at its commas into *hosts (pointing into
 * *buf; both the caller's to free). 0 or DP_EXIT_ENV. */
static int expect_split(const char *list, char **buf, const char ***hosts, size_t *n)
{
	size_t cap = 1;

	*n = 0;
	*hosts = NULL;
	*buf = list ? strdup(list) : NULL;
	if (!list)
		return 0;
	for (const char *c = list; *c; c++)
		cap += *c == ',';
	*hosts = calloc(cap, sizeof(**hosts));
	if (!*buf || !*hosts) {
		fprintf(stderr, "diskproof: fleet: out of memory\n");
		return DP_EXIT_ENV;
	}
	for (char *save = NULL, *t = strtok_r(*buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
		(*hosts)[(*n)++] = t;
	return 0;
}

static int fleet_print(const char *const *sel, size_t nsel, enum report_format fmt,
		       const struct cli_opts *o)
{
	struct store *st = NULL;
	struct fleet_ids ids = {0};
	struct results *r = NULL;
	struct report_fleet_skip *skip = NULL;
	struct report_fleet f = {0};
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT, mixed = STRBUF_INIT;
	struct report_options ro = {.color = false};
	size_t nr = 0, ns = 0, nexp = 0;
	const char **expected = NULL;
	char *expect_buf = NULL;
	int ret;

	ret = expect_split(o->expect_hosts, &expect_buf, &expected, &nexp);
	if (ret)
		goto out;
	ret = store_open_read(&st, o->results, true, &err);
	if (!ret)
		ret = fleet_select(st, sel, nsel, &ids, &err);
	if (ret) {
		cli_print_err(err.buf);
		ret = (ret == -ENOENT || ret == -EINVAL) && st ? DP_EXIT_USAGE : DP_EXIT_ENV;
		goto out;
	}
	r = calloc(ids.n ? ids.n : 1, sizeof(*r));
	skip = calloc(ids.n ? ids.n : 1, sizeof(*skip));
	if (!r || !skip) {
		fprintf(stderr, "diskproof: fleet: out of memory\n");
		ret = DP_EXIT_ENV;
		goto out;
	}
	for (size_t i = 0; i < ids.n; i++) {
		ret = store_results_load(st, ids.v[i], &r[nr], &err);
		if (ret) {
			cli_print_err(err.buf);
			ret = DP_EXIT_ENV;
			goto out;
		}
		if (r[nr].status && !strcmp(r[nr].status, "running")) {
			/* its totals are written at its end: nothing to add yet */
			skip[ns++] =
				(struct report_fleet_skip){.id = ids.v[i], .why = "still running"};
			fprintf(stderr, "diskproof: note: run %lld is still running: left out\n",
				(long long)ids.v[i]);
			results_release(&r[nr]);
			continue;
		}
		nr++;
	}
	if (!nr) {
		fprintf(stderr, "diskproof: fleet: every selected run is still running\n");
		ret = DP_EXIT_USAGE;
		goto out;
	}
	/* a simulated host among real ones would be merged into their totals */
	if (cli_engines_mixed(r, nr, &mixed) && !o->allow_mixed) {
		ret = cli_engines_mixed_refuse("fleet", mixed.buf);
		goto out;
	}
	ret = report_fleet_build(&f, r, nr, skip, ns, ANALYZE_ALPHA_DEFAULT, &err);
	if (!ret && o->expect_hosts)
		ret = report_fleet_expect(&f, expected, nexp, &err);
	if (ret) {
		cli_print_err(err.buf);
		ret = DP_EXIT_ENV;
		goto out;
	}
	f.selectors = sel;
	f.nr_selectors = nsel;
	f.mixed = mixed.len ? mixed.buf : NULL;
	report_fleet_render(&text, &f, fmt, &ro);
	/* the results file closed first: none of its descriptors can be the
	 * output (-o /dev/fd/N) */
	store_close(st);
	st = NULL;
	ret = cli_emit(o->output, o->results, &text, stdout);
	if (!ret && !f.passed)
		ret = DP_EXIT_FAIL; /* a run failed or a host is missing: the report says which */
out:
	report_fleet_release(&f);
	for (size_t i = 0; r && i < nr; i++)
		results_release(&r[i]);
	free(r);
	free(skip);
	free(ids.v);
	free(expected);
	free(expect_buf);
	store_close(st);
	strbuf_release(&err);
	strbuf_release(&text);
	strbuf_release(&mixed);
	return ret;
}

int cli_cmd_fleet(int argc, char **argv)
{
	struct cli_opts o;
	int fmt = REPORT_TEXT, ret;

	ret = cli_opts_parse(argc, argv, CMD_FLEET, &o);
	if (ret)
		return ret;
	if (o.npos < 1)
		return cli_usage_error("fleet takes one selector or more: label:TEXT (every run so "
				       "labelled), N, N,M,..., N..M or series:N");
	for (int i = 0; i < o.npos; i++) {
		struct store_run_selector s;
		struct strbuf err = STRBUF_INIT;

		ret = store_run_selector_parse(o.positional[i], &s, &err);
		if (ret)
			ret = cli_usage_error("%s", err.buf);
		strbuf_release(&err);
		if (ret)
			return ret;
	}
	ret = cli_report_args_check(&o, "fleet", &fmt);
	if (ret)
		return ret;
	return fleet_print(o.positional, (size_t)o.npos, (enum report_format)fmt, &o);
}
