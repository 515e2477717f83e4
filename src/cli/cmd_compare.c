/* SPDX-License-Identifier: MIT */
/*
 * cmd_compare.c - "diskproof compare RUN_A RUN_B [RUN_C ...] [--format
 * text|json|html] [--min-change PCT] [--all] [--fail-on-regression[=PCT]]
 * [--results FILE] [-o FILE]": loads the stored runs, has analyze compare
 * each later run against RUN_A, the baseline (the statistics live there, see
 * analyze.h), and prints the comparison to stdout, or writes it to FILE
 * atomically (cli_write_output). A side is a selector (store.h,
 * store_runs_select: N, latest, latest~N, N,M,..., N..M, series:N,
 * label:TEXT, which takes the whole series of the newest run so labelled):
 * one run or several. The runs are the replicates (analyze_replicates); the
 * within-run evidence is the newest run of each side against the other's
 * (analyze_compare), shown beside it.
 *
 * Exit 0 when the comparison was printed, 1 with --fail-on-regression when a
 * judged figure's change worse than PCT is established over the runs
 * (analyze_rep_gate; the output says which), 5 when such a change is seen
 * but cannot be decided (one run on a side, no run-to-run variation: the
 * output says how many runs per side would), 2 for a usage error or an
 * unknown run, or simulated and real runs together without --allow-mixed
 * (with it, the output's first line says so), 3 when the results file
 * cannot be used.
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
	size_t nr_runs;		 /* sides */
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

/* One side: its runs (selected and loaded, by id) */
struct compare_side {
	struct store_run_set set;
	struct results *r;
	const struct results **rp; /* r's addresses, for analyze_replicates */
};

static void compare_side_release(struct compare_side *s)
{
	for (size_t i = 0; s->r && i < s->set.n; i++)
		results_release(&s->r[i]);
	free(s->r);
	free(s->rp);
	store_run_set_release(&s->set);
}

/* Selects and loads every side; a run named on two sides is loaded twice
 * (a self-compare). */
static int compare_load_all(struct store *st, const struct compare_args *ca,
			    struct compare_side *sides, struct strbuf *err)
{
	int ret = 0;

	for (size_t i = 0; i < ca->nr_runs && !ret; i++) {
		struct compare_side *s = &sides[i];

		ret = store_runs_select(st, ca->runs[i], STORE_LABEL_SERIES, &s->set, err);
		if (ret)
			break;
		s->r = calloc(s->set.n, sizeof(*s->r));
		s->rp = calloc(s->set.n, sizeof(*s->rp));
		if (!s->r || !s->rp) {
			strbuf_addstr(err, "compare: out of memory");
			return -ENOMEM;
		}
		for (size_t k = 0; k < s->set.n && !ret; k++) {
			ret = store_results_load(st, s->set.ids[k], &s->r[k], err);
			s->rp[k] = &s->r[k];
		}
	}
	return ret;
}

/* Whether the runs of every side mix simulated and real ones: the sentence
 * in why (empty when they do not). 0, or -ENOMEM. */
static int compare_mixed(const struct compare_args *ca, const struct compare_side *sides,
			 struct strbuf *why)
{
	struct results *all;
	size_t n = 0, k = 0;

	for (size_t i = 0; i < ca->nr_runs; i++)
		n += sides[i].set.n;
	all = calloc(n ? n : 1, sizeof(*all));
	if (!all)
		return -ENOMEM;
	/* shallow copies, read only: the id and the engine */
	for (size_t i = 0; i < ca->nr_runs; i++)
		for (size_t j = 0; j < sides[i].set.n; j++)
			all[k++] = sides[i].r[j];
	cli_engines_mixed(all, n, why);
	free(all);
	return 0;
}

/* Each later side against A: the runs as replicates, the within-run
 * evidence of the newest run of each side, the gate over the runs. */
static int compare_analyze(const struct compare_args *ca, const struct compare_side *sides,
			   struct analyze_comparison *pairs, struct analyze_replicates *reps,
			   struct report_compare_view *v, struct analyze_regression **regs,
			   struct strbuf *err)
{
	const struct compare_side *a = &sides[0];
	int ret = 0;

	for (size_t i = 1; i < ca->nr_runs && !ret; i++) {
		const struct compare_side *b = &sides[i];

		ret = analyze_compare(&pairs[i - 1], &a->r[a->set.n - 1], &b->r[b->set.n - 1],
				      ANALYZE_ALPHA_DEFAULT, err);
		if (ret)
			break;
		v->nr_pairs = i;
		if (ca->o->has_min_change)
			analyze_comparison_set_min_change(&pairs[i - 1], ca->o->min_change_pct);
		ret = analyze_replicates(a->rp, a->set.n, b->rp, b->set.n, ANALYZE_REPLICATE_ALPHA,
					 ca->o->gate ? ca->o->gate_pct : 0, &reps[i - 1]);
		if (!ret && ca->o->gate)
			ret = analyze_rep_gate(&reps[i - 1], i - 1, ca->o->gate_pct, &v->outcome,
					       &v->runs_needed, regs, &v->nr_regressions);
		if (ret)
			strbuf_addstr(err, "analyze: replicates: out of memory");
	}
	v->regressions = *regs;
	return ret;
}

static int compare_print(const struct compare_args *ca)
{
	const struct cli_opts *o = ca->o;
	struct store *st = NULL;
	struct compare_side *sides = calloc(ca->nr_runs, sizeof(*sides));
	struct report_compare_side *vs = calloc(ca->nr_runs, sizeof(*vs));
	struct analyze_comparison *pairs = calloc(ca->nr_runs, sizeof(*pairs));
	struct analyze_replicates *reps = calloc(ca->nr_runs, sizeof(*reps));
	struct analyze_regression *regs = NULL;
	struct report_compare_view v = {.pairs = pairs,
					.all = o->all,
					.gate = o->gate,
					.gate_pct = o->gate_pct,
					.sides = vs,
					.reps = reps};
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT, mixed = STRBUF_INIT;
	struct report_options ro = {.color = ca->fmt == REPORT_TEXT && !o->output &&
					     cli_use_color(stdout)};
	int ret;

	if (!sides || !vs || !pairs || !reps) {
		fprintf(stderr, "diskproof: compare: out of memory\n");
		ret = DP_EXIT_ENV;
		goto out;
	}
	ret = store_open_read(&st, o->results, true, &err);
	if (!ret)
		ret = compare_load_all(st, ca, sides, &err);
	if (ret) {
		cli_print_err(err.buf);
		ret = ret == -ENOENT && st ? DP_EXIT_USAGE : DP_EXIT_ENV;
		goto out;
	}
	/* a simulated run against a real one compares a model with a device */
	ret = compare_mixed(ca, sides, &mixed);
	if (ret) {
		fprintf(stderr, "diskproof: compare: out of memory\n");
		ret = DP_EXIT_ENV;
		goto out;
	}
	if (mixed.len) {
		if (!o->allow_mixed) {
			ret = cli_engines_mixed_refuse("compare", mixed.buf);
			goto out;
		}
		v.mixed = mixed.buf;
	}
	for (size_t i = 0; i < ca->nr_runs; i++)
		vs[i] = (struct report_compare_side){.ids = sides[i].set.ids,
						     .n = sides[i].set.n,
						     .series = sides[i].set.series,
						     .from_label = sides[i].set.from_label};
	ret = compare_analyze(ca, sides, pairs, reps, &v, &regs, &err);
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
	if (!ret && o->gate && v.outcome == ANALYZE_GATE_FAIL) {
		const struct analyze_regression *g = &regs[0];
		const struct analyze_replicates *rp = &reps[g->pair];

		fprintf(stderr,
			"diskproof: regression: side %zu against A: whole run %s %+.1f %% "
			"(established over %zu against %zu runs, p %.4f, beyond %g %%)%s\n",
			g->pair + 1, analyze_judged_def(g->fig)->words, g->change_pct, rp->n_b,
			rp->n_a, rp->fig[g->fig].p_value, o->gate_pct,
			v.nr_regressions > 1 ? "; every regression is listed in the output" : "");
		ret = DP_EXIT_FAIL;
	} else if (!ret && o->gate && v.outcome == ANALYZE_GATE_INCONCLUSIVE) {
		fprintf(stderr,
			"diskproof: inconclusive: a judged figure is worse by more than %g %% but "
			"not established (one run on a side, or no run-to-run variation)",
			o->gate_pct);
		if (v.runs_needed)
			fprintf(stderr,
				"; repeat: %u runs per side would decide it (run --repeat %u)",
				v.runs_needed, v.runs_needed);
		fputc('\n', stderr);
		ret = DP_EXIT_INCONCLUSIVE;
	}
out:
	for (size_t i = 0; pairs && i < ca->nr_runs; i++)
		analyze_comparison_release(&pairs[i]);
	for (size_t i = 0; sides && i < ca->nr_runs; i++)
		compare_side_release(&sides[i]);
	free(regs);
	free(pairs);
	free(reps);
	free(vs);
	free(sides);
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
		return cli_usage_error("compare takes two sides or more, A B [C ...] (each a run "
				       "or runs: N, latest, latest~N, N,M,..., N..M, series:N or "
				       "label:TEXT), got %d",
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
