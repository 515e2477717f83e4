/*
 * cmd_compare.c - "diskproof compare RUN_A RUN_B [RUN_C ...] [--format
 * text|json|html] [--min-change PCT] [--all] [--fail-on-regression[=PCT]]
 * [--results FILE] [-o FILE]": loads the stored runs, has analyze compare
 * each later run against RUN_A, the baseline (the statistics live there, see
 * analyze.h), and prints the comparison to stdout, or writes it to FILE
 * atomically (cli_write_output). A run is a selector (store.h: N, latest,
 * latest~N, label:TEXT).
 *
 * Exit 0 when the comparison was printed, 1 with --fail-on-regression when a
 * judged figure regressed significantly beyond PCT (analyze_regressions; the
 * output says which), 2 for a usage error, an unknown run, or simulated and
 * real runs together without --allow-mixed (with it, the output's first line
 * says so), 3 when the results file cannot be used.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diskproof/analyze.h"
#include "diskproof/engine.h"
#include "diskproof/report.h"
#include "diskproof/run.h"
#include "diskproof/store.h"

#include "cli.h"

struct compare_args {
	const char *const *runs; /* the selectors, baseline first */
	size_t nr_runs;
	enum report_format fmt;
	const struct cli_opts *o;
};

/* The ids of runs r[0..n) whose engine is (not) simulated, ", "-separated,
 * and their engine ("engines A, B" when they differ). */
static void engines_list(struct strbuf *sb, const struct results *r, size_t n, bool sim)
{
	struct strbuf eng = STRBUF_INIT;
	size_t k = 0, ne = 0;

	for (size_t i = 0; i < n; i++) {
		const char *e = r[i].engine ? r[i].engine : "-";
		bool seen = false;

		if (engine_simulated(e) != sim)
			continue;
		strbuf_addf(sb, "%s%lld", k++ ? ", " : "", (long long)r[i].id);
		for (size_t j = 0; j < i && !seen; j++)
			seen = engine_simulated(r[j].engine ? r[j].engine : "-") == sim &&
			       !strcmp(r[j].engine ? r[j].engine : "-", e);
		if (!seen)
			strbuf_addf(&eng, "%s%s", ne++ ? ", " : "", e);
	}
	strbuf_addf(sb, " (engine%s %s)", ne > 1 ? "s" : "", eng.buf);
	strbuf_release(&eng);
}

bool cli_engines_mixed(const struct results *r, size_t n, struct strbuf *why)
{
	size_t sim = 0;

	for (size_t i = 0; i < n; i++)
		sim += engine_simulated(r[i].engine ? r[i].engine : "");
	if (!sim || sim == n)
		return false;
	strbuf_addf(why, "mixed engines: simulated run%s ", sim > 1 ? "s" : "");
	engines_list(why, r, n, true);
	strbuf_addf(why, " with real run%s ", n - sim > 1 ? "s" : "");
	engines_list(why, r, n, false);
	strbuf_addstr(why, ": a simulated run's figures come from a model, not from a device");
	return true;
}

int cli_engines_mixed_refuse(const char *cmd, const char *why)
{
	fprintf(stderr,
		"diskproof: %s: %s; refused (nothing written): --allow-mixed puts them together "
		"all the same\n",
		cmd, why);
	return DP_EXIT_USAGE;
}

/* Loads every run; a run named twice is loaded twice (a self-compare). */
static int compare_load_all(struct store *st, const struct compare_args *ca, struct results *r,
			    struct strbuf *err)
{
	int64_t id;
	int ret = 0;

	for (size_t i = 0; i < ca->nr_runs && !ret; i++) {
		ret = store_run_select(st, ca->runs[i], &id, err);
		if (!ret)
			ret = store_results_load(st, id, &r[i], err);
	}
	return ret;
}

static int compare_analyze(const struct compare_args *ca, const struct results *r,
			   struct analyze_comparison *pairs, struct report_compare_view *v,
			   struct analyze_regression **regs, struct strbuf *err)
{
	int ret = 0;

	for (size_t i = 1; i < ca->nr_runs && !ret; i++) {
		ret = analyze_compare(&pairs[i - 1], &r[0], &r[i], ANALYZE_ALPHA_DEFAULT, err);
		if (ret)
			break;
		v->nr_pairs = i;
		if (ca->o->has_min_change)
			analyze_comparison_set_min_change(&pairs[i - 1], ca->o->min_change_pct);
		if (ca->o->gate)
			ret = analyze_regressions(&pairs[i - 1], i - 1, ca->o->gate_pct, regs,
						  &v->nr_regressions);
		if (ret)
			strbuf_addstr(err, "analyze: regressions: out of memory");
	}
	v->regressions = *regs;
	return ret;
}

static int compare_print(const struct compare_args *ca)
{
	const struct cli_opts *o = ca->o;
	struct store *st = NULL;
	struct results *r = calloc(ca->nr_runs, sizeof(*r));
	struct analyze_comparison *pairs = calloc(ca->nr_runs, sizeof(*pairs));
	struct analyze_regression *regs = NULL;
	struct report_compare_view v = {
		.pairs = pairs, .all = o->all, .gate = o->gate, .gate_pct = o->gate_pct};
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT, mixed = STRBUF_INIT;
	struct report_options ro = {.color = ca->fmt == REPORT_TEXT && !o->output &&
					     cli_use_color(stdout)};
	int ret;

	if (!r || !pairs) {
		fprintf(stderr, "diskproof: compare: out of memory\n");
		ret = DP_EXIT_ENV;
		goto out;
	}
	ret = store_open_read(&st, o->results, true, &err);
	if (!ret)
		ret = compare_load_all(st, ca, r, &err);
	if (ret) {
		cli_print_err(err.buf);
		ret = ret == -ENOENT && st ? DP_EXIT_USAGE : DP_EXIT_ENV;
		goto out;
	}
	/* a simulated run against a real one compares a model with a device */
	if (cli_engines_mixed(r, ca->nr_runs, &mixed)) {
		if (!o->allow_mixed) {
			ret = cli_engines_mixed_refuse("compare", mixed.buf);
			goto out;
		}
		v.mixed = mixed.buf;
	}
	ret = compare_analyze(ca, r, pairs, &v, &regs, &err);
	if (ret) {
		cli_print_err(err.buf);
		ret = DP_EXIT_ENV;
		goto out;
	}
	report_compare_view_render(&text, &v, ca->fmt, &ro);
	/* the results file closed first: none of its descriptors can be the
	 * output (-o /dev/fd/N) */
	store_close(st);
	st = NULL;
	ret = cli_emit(o->output, o->results, &text, stdout);
	if (!ret && v.nr_regressions) {
		const struct analyze_regression *g = &regs[0];
		const struct analyze_comparison *c = &pairs[g->pair];

		const struct analyze_scope *s = &c->scopes[g->scope];

		fprintf(stderr,
			"diskproof: regression: run %lld against run %lld: %s%s%s %s %+.1f %% "
			"(significant, beyond %g %%)%s\n",
			(long long)c->b->id, (long long)c->a->id,
			s->scope == SCOPE_RUN ? "whole run" : results_scope_kind_name(s->scope),
			s->scope == SCOPE_RUN ? "" : " ", s->scope == SCOPE_RUN ? "" : s->name,
			analyze_judged_def(g->fig)->words, g->change_pct, o->gate_pct,
			v.nr_regressions > 1 ? "; every regression is listed in the output" : "");
		ret = DP_EXIT_FAIL;
	}
out:
	for (size_t i = 0; pairs && i < ca->nr_runs; i++)
		analyze_comparison_release(&pairs[i]);
	for (size_t i = 0; r && i < ca->nr_runs; i++)
		results_release(&r[i]);
	free(regs);
	free(pairs);
	free(r);
	store_close(st);
	strbuf_release(&err);
	strbuf_release(&text);
	strbuf_release(&mixed);
	return ret;
}

int cli_cmd_compare(int argc, char **argv)
{
	struct cli_opts o;
	struct compare_args ca = {0};
	int fmt = REPORT_TEXT, ret;

	ret = cli_opts_parse(argc, argv, CMD_COMPARE, &o);
	if (ret)
		return ret;
	if (o.npos < 2)
		return cli_usage_error("compare takes two runs or more, RUN_A RUN_B [RUN_C ...] "
				       "(numbers, latest, latest~N or label:TEXT), got %d",
				       o.npos);
	for (int i = 0; i < o.npos; i++) {
		ret = cli_run_arg_check(o.positional[i]);
		if (ret)
			return ret;
	}
	ret = cli_report_args_check(&o, "compare", &fmt);
	if (ret)
		return ret;
	ca.runs = o.positional;
	ca.nr_runs = (size_t)o.npos;
	ca.fmt = (enum report_format)fmt;
	ca.o = &o;
	return compare_print(&ca);
}
