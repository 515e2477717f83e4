/* SPDX-License-Identifier: MIT */
/*
 * run_fingerprint.c - a run of a profile that keeps a fingerprint ([test]
 * fingerprint, docs/learn.md): the fingerprint checked with the profile, the
 * run's devices watched over its measured window (src/learn/runfp.c), the
 * run's own fingerprint stored beside the kept one in the results file
 * (table run_fingerprint) for the report's comparison, and the comparison
 * filled for a report.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diskproof/engine.h"
#include "diskproof/learn.h"
#include "diskproof/run.h"
#include "diskproof/store.h"

#include "cli.h"

struct cli_run_fp {
	struct learn_run_watch w;
	struct strbuf kept; /* the kept fingerprint's JSON */
	char *name;	    /* as the profile names it */
};

int cli_fingerprint_check(const struct profile *p)
{
	struct learn_fp *fp = calloc(1, sizeof(*fp));
	struct strbuf json = STRBUF_INIT, err = STRBUF_INIT;
	int ret;

	if (!fp)
		return DP_EXIT_ENV;
	ret = learn_profile_fingerprint(p, fp, &json, &err);
	if (ret < 0)
		fprintf(stderr, "%s\n", err.buf);
	free(fp);
	strbuf_release(&json);
	strbuf_release(&err);
	return ret < 0 ? DP_EXIT_USAGE : 0;
}

struct cli_run_fp *cli_run_fp_start(const struct profile *p, struct run_options *ro)
{
	struct cli_run_fp *f;
	struct learn_fp *kept;
	struct strbuf err = STRBUF_INIT;
	int ret;

	if (!p->fingerprint || !*p->fingerprint || engine_simulated(p->engine))
		return NULL;
	f = calloc(1, sizeof(*f));
	kept = calloc(1, sizeof(*kept));
	if (!f || !kept) {
		free(f);
		free(kept);
		return NULL;
	}
	strbuf_init(&f->kept);
	ret = learn_profile_fingerprint(p, kept, &f->kept, &err);
	if (!ret)
		ret = learn_run_watch_init(&f->w, p, "/sys", &err);
	free(kept);
	if (ret || !(f->name = strdup(p->fingerprint))) {
		fprintf(stderr, "diskproof: the run's fingerprint will not be taken: %s\n",
			err.len ? err.buf : "out of memory");
		cli_run_fp_free(f);
		f = NULL;
	} else {
		ro->window = learn_run_watch_mark;
		ro->window_arg = &f->w;
	}
	strbuf_release(&err);
	return f;
}

/* The run's transactions in its measured window from its stored results;
 * -1 when it did not count them. */
static double run_transactions(struct store *st, int64_t run_id)
{
	struct results r = {0};
	struct results_scope_txn_figures t;
	struct strbuf err = STRBUF_INIT;
	double n = -1;

	if (!store_results_load(st, run_id, &r, &err) && results_scope_txn_figures(&r.run, &t))
		n = (double)t.count;
	results_release(&r);
	strbuf_release(&err);
	return n;
}

void cli_run_fp_finish(struct cli_run_fp *f, const char *results, int64_t run_id)
{
	struct learn_fp *fp;
	struct store *st = NULL;
	struct strbuf err = STRBUF_INIT, json = STRBUF_INIT;
	int ret;

	if (!f || !run_id)
		return;
	fp = calloc(1, sizeof(*fp));
	ret = fp ? store_open(&st, results, &err) : -ENOMEM;
	if (!ret)
		ret = learn_run_fingerprint(&f->w, run_transactions(st, run_id), fp, &err);
	if (!ret) {
		learn_fp_json(fp, &json);
		ret = store_run_fingerprint_write(st, run_id, f->name, f->kept.buf, json.buf, &err);
	}
	if (ret)
		fprintf(stderr, "diskproof: run %lld: its own fingerprint not stored: %s\n",
			(long long)run_id, err.len ? err.buf : strerror(-ret));
	store_close(st);
	free(fp);
	strbuf_release(&err);
	strbuf_release(&json);
}

void cli_run_fp_free(struct cli_run_fp *f)
{
	if (!f)
		return;
	strbuf_release(&f->kept);
	free(f->name);
	free(f);
}

void cli_results_fp_compare(struct results *r)
{
	struct strbuf err = STRBUF_INIT;

	if (learn_results_compare(r, 10, &err))
		fprintf(stderr, "diskproof: run %lld: its fingerprints cannot be compared: %s\n",
			(long long)r->id, err.buf);
	strbuf_release(&err);
}
