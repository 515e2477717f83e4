/* SPDX-License-Identifier: MIT */
/*
 * compare.c - a run comparison as text for the terminal (analyze.h;
 * documented in docs/compare.md; the JSON renderer is compare_json.c). It
 * computes nothing: every figure, change, p value, significance flag,
 * dispersion and host counter comes from struct analyze_comparison; it
 * chooses order, wording and layout only ("n/a" where a number is
 * undefined, so it never shows inf or nan).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "diskproof/analyze.h"
#include "diskproof/json.h"
#include "html.h"

/* ---- text ---- */

const char *const report_metric_words[] = {
	[ANALYZE_IOPS] = "IOPS",     [ANALYZE_AVG_MS] = "avg ms",     [ANALYZE_P50_MS] = "p50 ms",
	[ANALYZE_P99_MS] = "p99 ms", [ANALYZE_MAX_MS] = "slowest ms",
};

/* A judged figure's words: compared interval by interval (trend, two-run
 * gate) a max is the slowest I/O ("slowest ms", issue 30); over runs as
 * replicates each run's max on its verdict's max_basis ("judged max"). */
static const char *judged_words(enum analyze_judged j, bool replicates)
{
	if (j == ANALYZE_J_DB_READ_MAX)
		return replicates ? "db_read judged max" : "db_read slowest ms";
	if (j == ANALYZE_J_LOG_WRITE_MAX)
		return replicates ? "log_write judged max" : "log_write slowest ms";
	return analyze_judged_def(j)->words;
}

static void text_run_line(struct strbuf *sb, const char *side, const struct results *r)
{
	strbuf_addf(sb, "  %s: run %" PRId64, side, r->id);
	if (r->label) {
		strbuf_addstr(sb, " [");
		report_text_escape(sb, r->label);
		strbuf_addch(sb, ']');
	}
	strbuf_addstr(sb, ", host ");
	report_text_escape(sb, r->host);
	strbuf_addf(sb, ", started %s, profile ", report_str_or(r->started_at, "-"));
	report_text_escape(sb, r->profile_name);
	strbuf_addf(sb, ", engine %s\n", report_str_or(r->engine, "-"));
}

/* a number in a column of width w, "n/a" when undefined */
static void text_col(struct strbuf *sb, int w, double v, int decimals)
{
	if (isfinite(v))
		strbuf_addf(sb, " %*.*f", w, decimals, v);
	else
		strbuf_addf(sb, " %*s", w, "n/a");
}

static void text_p(struct strbuf *sb, const struct analyze_mw *t)
{
	if (t->method == ANALYZE_NONE || !isfinite(t->p_value))
		strbuf_addf(sb, " %9s", "n/a");
	else if (t->p_value < 0.0001)
		strbuf_addf(sb, " %9s", "<0.0001");
	else
		strbuf_addf(sb, " %9.4f", t->p_value);
	if (t->method == ANALYZE_EXACT)
		strbuf_addstr(sb, " exact");
	else if (t->method == ANALYZE_F)
		strbuf_addstr(sb, " B-F");
	else if (t->method == ANALYZE_NORMAL && t->n_a + t->n_b <= ANALYZE_EXACT_MAX)
		strbuf_addstr(sb, " approx."); /* small sample with ties */
}

bool report_unchanged_zero(double a, double b, double pct, int decimals)
{
	double half = 0.5 * pow(10, -decimals);

	return isfinite(pct) && isfinite(a) && isfinite(b) && fabs(a) < half && fabs(b) < half;
}

static void text_change(struct strbuf *sb, double pct)
{
	if (isfinite(pct))
		strbuf_addf(sb, " %+8.1f%%", pct);
	else
		strbuf_addf(sb, " %9s", "n/a");
}

/* A, B, change, the significance mark and p of one figure, and the newline. */
static void text_fig_tail(struct strbuf *sb, const struct analyze_figure *f, int dec, bool color)
{
	text_col(sb, 12, f->a, dec);
	text_col(sb, 12, f->b, dec);
	if (report_unchanged_zero(f->a, f->b, f->change_pct, dec))
		strbuf_addf(sb, " %9s", "unchanged");
	else
		text_change(sb, f->change_pct);
	if (f->significant)
		strbuf_addf(sb, " %s*%s ", color ? REPORT_ANSI_BOLD : "",
			    color ? REPORT_ANSI_RESET : "");
	else
		strbuf_addstr(sb, "    ");
	text_p(sb, &f->test);
	strbuf_addch(sb, '\n');
}

/* One table per scope: the classes either run issued there (k->present);
 * the dispersion row carries its Brown-Forsythe test, the last row the
 * transactional IOPS. */
static void text_scope(struct strbuf *sb, const struct analyze_scope *s, bool color)
{
	bool any = false;

	if (s->scope == SCOPE_RUN)
		strbuf_addstr(sb, "\nrun (1 s intervals)\n");
	else if (s->scope == SCOPE_VOLUME)
		strbuf_addf(sb, "\nvolume %s (1 s intervals)\n", s->name);
	else if (s->volume[0])
		strbuf_addf(sb, "\ndatabase %s on %s (15 s intervals)\n", s->name, s->volume);
	else
		strbuf_addf(sb, "\ndatabase %s (15 s intervals)\n", s->name);
	strbuf_addf(sb, "  %-11s  %-10s %12s %12s %9s %3s %9s\n", "class", "metric", "A", "B",
		    "change %", "sig", "p");
	for (int c = 0; c < IO_CLASS_COUNT; c++) {
		const struct analyze_class *k = &s->classes[c];

		if (!k->present) /* neither run issued it here */
			continue;
		any = true;
		for (int m = 0; m < ANALYZE_METRIC_COUNT; m++) {
			const struct analyze_figure *f = &k->fig[m];
			int dec = m == ANALYZE_IOPS ? 1 : 3;

			strbuf_addf(sb, "  %-11s  %-10s", m ? "" : stats_io_class_name(c),
				    report_metric_words[m]);
			text_fig_tail(sb, f, dec, color);
		}
		strbuf_addf(sb, "  %-11s  %-10s", "", "sd ms");
		text_fig_tail(sb, &k->sd, 4, color);
		strbuf_addf(sb, "  %-11s  %-10s", "", "cv");
		text_col(sb, 12, k->cv_a, 4);
		text_col(sb, 12, k->cv_b, 4);
		if (report_unchanged_zero(k->cv_a, k->cv_b, k->cv_change_pct, 4))
			strbuf_addf(sb, " %9s", "unchanged");
		else
			text_change(sb, k->cv_change_pct);
		strbuf_addstr(sb, "      (sd over mean; tested as sd)\n");
	}
	if (!any) {
		strbuf_addstr(sb, "  (no I/O in either run)\n");
		return;
	}
	strbuf_addf(sb, "  %-11s  %-10s", "transaction", "IOPS"); /* db_read + db_write */
	text_fig_tail(sb, &s->trans_iops, 1, color);
}

static void text_verdict_changes(struct strbuf *sb, const struct analyze_comparison *c)
{
	strbuf_addstr(sb, "\nverdict changes:\n");
	if (!c->nr_verdict_changes)
		strbuf_addstr(sb, "  none\n");
	for (size_t i = 0; i < c->nr_verdict_changes; i++) {
		const struct analyze_verdict_change *vc = &c->verdict_changes[i];
		struct verdict v = {.scope = vc->scope, .cmp = vc->cmp};

		memcpy(v.name, vc->name, sizeof(v.name));
		memcpy(v.volume, vc->volume, sizeof(v.volume));
		memcpy(v.criterion, vc->criterion, sizeof(v.criterion));
		strbuf_addf(sb, "  %s \u2192 %s  ", vc->passed_a ? "PASS" : "FAIL",
			    vc->passed_b ? "PASS" : "FAIL");
		memcpy(v.criterion, vc->criterion_b, sizeof(v.criterion));
		v.threshold = vc->threshold_b;
		v.measured = vc->measured_b;
		v.passed = vc->passed_b;
		report_verdict_line(sb, &v);
		strbuf_addstr(sb, " (A: ");
		memcpy(v.criterion, vc->criterion, sizeof(v.criterion));
		v.threshold = vc->threshold_a;
		v.measured = vc->measured_a;
		v.passed = vc->passed_a;
		report_verdict_line(sb, &v);
		strbuf_addstr(sb, ")\n");
	}
}

static void text_env(struct strbuf *sb, const struct analyze_comparison *c)
{
	strbuf_addstr(sb, "\nenvironment differences:\n");
	if (!c->nr_env_diffs)
		strbuf_addstr(sb, "  none\n");
	for (size_t i = 0; i < c->nr_env_diffs; i++) {
		const struct analyze_env_diff *e = &c->env_diffs[i];

		strbuf_addf(sb, "  %s: %s \u2192 %s\n", e->key, e->a ? e->a : "(absent)",
			    e->b ? e->b : "(absent)");
	}
}

const struct report_host_word report_host_words[] = {
	[ANALYZE_HOST_CPU_USER] = {"cpu user %", 1, 1},
	[ANALYZE_HOST_CPU_SYSTEM] = {"cpu system %", 1, 1},
	[ANALYZE_HOST_CPU_IOWAIT] = {"cpu iowait %", 1, 1},
	[ANALYZE_HOST_MEM_MIN] = {"memory available min MiB", 1, 1.0 / (1024 * 1024)},
	[ANALYZE_HOST_MEM_AVG] = {"memory available mean MiB", 1, 1.0 / (1024 * 1024)},
};

const struct report_host_word report_dev_words[] = {
	[ANALYZE_DEV_READS_PER_S] = {"reads/s", 1, 1},
	[ANALYZE_DEV_WRITES_PER_S] = {"writes/s", 1, 1},
	[ANALYZE_DEV_READ_MBPS] = {"read MB/s", 2, 1},
	[ANALYZE_DEV_WRITE_MBPS] = {"write MB/s", 2, 1},
	[ANALYZE_DEV_READ_WAIT_MS] = {"read wait ms", 3, 1},
	[ANALYZE_DEV_WRITE_WAIT_MS] = {"write wait ms", 3, 1},
	[ANALYZE_DEV_AVG_WAIT_MS] = {"avg wait ms", 3, 1},
	[ANALYZE_DEV_UTIL_PCT] = {"util %", 1, 1},
	[ANALYZE_DEV_QUEUE] = {"queue", 2, 1},
};

static void text_pair(struct strbuf *sb, const char *indent, const struct report_host_word *w,
		      const struct analyze_pair *p)
{
	strbuf_addf(sb, "%s%-*s", indent, 28 - (int)strlen(indent), w->words);
	text_col(sb, 12, p->a * w->scale, w->decimals);
	text_col(sb, 12, p->b * w->scale, w->decimals);
	if (report_unchanged_zero(p->a * w->scale, p->b * w->scale, p->change_pct, w->decimals))
		strbuf_addf(sb, " %9s\n", "unchanged");
	else if (isfinite(p->change_pct))
		strbuf_addf(sb, " %+8.1f%%\n", p->change_pct);
	else
		strbuf_addf(sb, " %9s\n", "n/a");
}

/* The host counters of both runs side by side, when either has them. */
static void text_host(struct strbuf *sb, const struct analyze_comparison *c)
{
	const struct analyze_host *h = &c->host;

	if (!h->in_a && !h->in_b)
		return;
	strbuf_addstr(sb, "\nhost performance (measured intervals; side by side, not tested):\n");
	strbuf_addf(sb, "  %-26s %12s %12s %9s\n", "figure", "A", "B", "change %");
	for (int m = 0; m < ANALYZE_HOST_METRIC_COUNT; m++)
		text_pair(sb, "  ", &report_host_words[m], &h->fig[m]);
	for (size_t i = 0; i < h->nr_devices; i++) {
		const struct analyze_host_device *d = &h->devices[i];

		strbuf_addf(sb, "  device %s%s\n", d->name,
			    d->in_a && d->in_b ? ""
			    : d->in_a	       ? " (only in A)"
					       : " (only in B)");
		for (int m = 0; m < ANALYZE_DEV_METRIC_COUNT; m++)
			text_pair(sb, "    ", &report_dev_words[m], &d->fig[m]);
	}
}

/* ---- what changed: one line per scope level and class ---- */

/* The figures of a listing line, in order: IOPS, the latencies, sd. */
#define LIST_SD ANALYZE_METRIC_COUNT
#define LIST_FIGS (ANALYZE_METRIC_COUNT + 1)
/* the pseudo-class of the transactional IOPS */

static const struct analyze_figure *list_fig(const struct analyze_scope *s, int cls, int m)
{
	if (cls == LIST_TRANS)
		return m == ANALYZE_IOPS ? &s->trans_iops : NULL;
	return m == LIST_SD ? &s->classes[cls].sd : &s->classes[cls].fig[m];
}

static const char *list_fig_words(int m)
{
	return m == LIST_SD ? "sd ms" : report_metric_words[m];
}

static bool list_present(const struct analyze_scope *s, int cls)
{
	if (cls == LIST_TRANS)
		return s->classes[IO_DB_READ].present || s->classes[IO_DB_WRITE].present;
	return s->classes[cls].present;
}

static void text_pct(struct strbuf *sb, double pct)
{
	if (isfinite(pct))
		strbuf_addf(sb, "%+.1f %%", pct);
	else
		strbuf_addstr(sb, "n/a");
}

/* "+19.8..+20.3 %", or one figure when both read the same at one decimal */
static void text_range(struct strbuf *sb, double lo, double hi)
{
	char a[32], b[32];

	snprintf(a, sizeof(a), "%+.1f", lo);
	snprintf(b, sizeof(b), "%+.1f", hi);
	if (!strcmp(a, b))
		strbuf_addf(sb, "%s %%", a);
	else
		strbuf_addf(sb, "%s..%s %%", a, b);
}

/* a figure with its decimals, "n/a" when undefined, no padding */
static void text_num(struct strbuf *sb, double v, int decimals)
{
	if (isfinite(v))
		strbuf_addf(sb, "%.*f", decimals, v);
	else
		strbuf_addstr(sb, "n/a");
}

/*
 * The run's line of class cls: each listed figure as "avg ms 2.000 -> 2.400
 * (+20.0 %)". false when nothing of it is listed.
 */
static bool text_list_run(struct strbuf *sb, const struct analyze_scope *s, int cls)
{
	bool any = false;

	for (int m = 0; m < LIST_FIGS; m++) {
		const struct analyze_figure *f = list_fig(s, cls, m);
		int dec = m == ANALYZE_IOPS ? 1 : m == LIST_SD ? 4 : 3;

		if (!f || !f->listed)
			continue;
		strbuf_addf(sb, "%s%s ", any ? ", " : "", list_fig_words(m));
		text_num(sb, f->a, dec);
		strbuf_addstr(sb, " \u2192 ");
		text_num(sb, f->b, dec);
		strbuf_addstr(sb, " (");
		text_pct(sb, f->change_pct);
		strbuf_addch(sb, ')');
		any = true;
	}
	return any;
}

/*
 * The line of class cls over every scope of one level (volumes or
 * databases): each figure listed in any of them once, with the range of its
 * changes there and where: the scopes' names when at most three, else "k of
 * n" (n the scopes of the level that issued the class).
 */
static bool text_list_level(struct strbuf *sb, const struct analyze_comparison *c,
			    enum scope_kind level, int cls, report_escape_fn esc)
{
	bool any = false;

	for (int m = 0; m < LIST_FIGS; m++) {
		double lo = INFINITY, hi = -INFINITY;
		size_t k = 0, n = 0, named = 0;

		for (size_t i = 0; i < c->nr_scopes; i++) {
			const struct analyze_scope *s = &c->scopes[i];
			const struct analyze_figure *f = list_fig(s, cls, m);

			if (s->scope != level || !f || !list_present(s, cls))
				continue;
			n++;
			if (!f->listed)
				continue;
			k++;
			if (isfinite(f->change_pct)) {
				lo = fmin(lo, f->change_pct);
				hi = fmax(hi, f->change_pct);
			}
		}
		if (!k)
			continue;
		strbuf_addf(sb, "%s%s ", any ? ", " : "", list_fig_words(m));
		if (lo > hi)
			strbuf_addstr(sb, "n/a");
		else
			text_range(sb, lo, hi);
		strbuf_addstr(sb, " (");
		if (k > 3) {
			strbuf_addf(sb, "%zu of %zu", k, n);
		} else {
			for (size_t i = 0; i < c->nr_scopes; i++) {
				const struct analyze_scope *s = &c->scopes[i];
				const struct analyze_figure *f = list_fig(s, cls, m);

				if (s->scope != level || !f || !f->listed)
					continue;
				strbuf_addf(sb, "%s", named++ ? ", " : "");
				esc(sb, s->name);
			}
			if (k < n)
				strbuf_addf(sb, "; %zu of %zu", k, n);
		}
		strbuf_addch(sb, ')');
		any = true;
	}
	return any;
}

static const char *level_words(enum scope_kind level)
{
	return level == SCOPE_RUN ? "run" : level == SCOPE_VOLUME ? "volumes" : "databases";
}

bool report_compare_list_line(struct strbuf *sb, const struct analyze_comparison *c,
			      enum scope_kind level, int cls, report_escape_fn esc)
{
	if (level == SCOPE_RUN)
		return c->nr_scopes && text_list_run(sb, &c->scopes[0], cls);
	return text_list_level(sb, c, level, cls, esc);
}

const char *report_compare_level_words(enum scope_kind level)
{
	return level_words(level);
}

/* The listed figures: one line per scope level (run, volumes, databases) and
 * class, the transactional IOPS as a class of its own. */
static void text_changes(struct strbuf *sb, const struct analyze_comparison *c)
{
	static const enum scope_kind levels[] = {SCOPE_RUN, SCOPE_VOLUME, SCOPE_DATABASE};
	struct strbuf line = STRBUF_INIT;

	strbuf_addf(sb, "\nchanges (significant and at least %g %%):\n", c->min_change_pct);
	if (!c->nr_listed)
		strbuf_addstr(sb, "  none\n");
	for (size_t l = 0; l < DP_ARRAY_SIZE(levels) && c->nr_listed; l++) {
		for (int cls = 0; cls <= LIST_TRANS; cls++) {
			bool any;

			strbuf_reset(&line);
			any = report_compare_list_line(&line, c, levels[l], cls,
						       report_text_escape);
			if (any)
				strbuf_addf(sb, "  %-10s %-14s %s\n", level_words(levels[l]),
					    cls == LIST_TRANS ? "transactional"
							      : stats_io_class_name(cls),
					    line.buf);
		}
	}
	strbuf_release(&line);
}

/* ---- large changes not listed, and why ---- */

/* A change this large (in %) that the run scope does not list is said, with
 * why: a reader sees -40 % in the replicates' table or --all and would
 * otherwise wonder why "changes" leaves it out. */
#define UNLISTED_LARGE_PCT 10.0

/* The replicate test's word on figure f of run scope s, when it is one of
 * the judged figures and not established: "runs: 1 against 1, not
 * established, repeat 3 times a side". */
static void unlisted_runs(struct strbuf *sb, const struct analyze_scope *s,
			  const struct analyze_figure *f, const struct analyze_replicates *rep)
{
	for (int j = 0; rep && j < ANALYZE_JUDGED_COUNT; j++) {
		const struct analyze_rep_figure *rf = &rep->fig[j];

		if (analyze_judged_figure(s, (enum analyze_judged)j) != f || rf->established)
			continue;
		strbuf_addf(sb, "runs: %zu against %zu, not established", rep->n_a, rep->n_b);
		if (rf->runs_needed)
			strbuf_addf(sb, ", repeat %u times a side", rf->runs_needed);
		else if (rep->n_a < 2 || rep->n_b < 2)
			strbuf_addstr(sb, ", repeat each side");
	}
}

/* One line for a large change the run scope does not list: its figure and
 * change, and why: not tested (intervals), or not significant (its p; for a
 * latency, how much the per-interval averages it sits in vary), and for a
 * judged figure what the runs as replicates say, on a second line when the
 * first would pass 120 columns. */
static void unlisted_line(struct strbuf *sb, const struct analyze_scope *s, const char *cls,
			  const char *metric, const struct analyze_figure *f, double cv,
			  const struct analyze_replicates *rep)
{
	struct strbuf one = STRBUF_INIT, runs = STRBUF_INIT;

	strbuf_addf(&one, "  %s %s %+.1f %%: ", cls, metric, f->change_pct);
	if (f->test.method == ANALYZE_NONE)
		strbuf_addf(&one, "not tested (%zu interval%s against %zu)", f->test.n_b,
			    f->test.n_b == 1 ? "" : "s", f->test.n_a);
	else if (!f->material)
		strbuf_addstr(&one, "below --min-change");
	else
		strbuf_addf(&one, "not significant (p %.4f)", f->test.p_value);
	if (isfinite(cv) && cv > 0)
		strbuf_addf(&one, ", interval averages vary %.0f %%", 100 * cv);
	unlisted_runs(&runs, s, f, rep);
	strbuf_addstr(sb, one.buf);
	if (runs.len)
		strbuf_addf(sb, "%s%s", one.len + 2 + runs.len > 120 ? "\n    " : "; ", runs.buf);
	strbuf_addch(sb, '\n');
	strbuf_release(&one);
	strbuf_release(&runs);
}

/* Every change of the run scope of at least UNLISTED_LARGE_PCT that the
 * listing leaves out, one line each, with why (nothing when there is none). */
static void text_unlisted(struct strbuf *sb, const struct analyze_comparison *c,
			  const struct analyze_replicates *rep)
{
	struct strbuf lines = STRBUF_INIT;

	for (size_t i = 0; i < c->nr_scopes; i++) {
		const struct analyze_scope *s = &c->scopes[i];

		if (s->scope != SCOPE_RUN)
			continue;
		for (int k = 0; k < IO_CLASS_COUNT; k++) {
			const struct analyze_class *cl = &s->classes[k];

			for (int m = 0; cl->present && m < ANALYZE_METRIC_COUNT; m++) {
				const struct analyze_figure *f = &cl->fig[m];

				if (f->listed || !isfinite(f->change_pct) ||
				    fabs(f->change_pct) < UNLISTED_LARGE_PCT)
					continue;
				unlisted_line(
					&lines, s, stats_io_class_name(k), report_metric_words[m],
					f, m == ANALYZE_IOPS ? NAN : fmax(cl->cv_a, cl->cv_b), rep);
			}
		}
		if (!s->trans_iops.listed && isfinite(s->trans_iops.change_pct) &&
		    fabs(s->trans_iops.change_pct) >= UNLISTED_LARGE_PCT)
			unlisted_line(&lines, s, "transactional", "IOPS", &s->trans_iops, NAN, rep);
	}
	if (lines.len)
		strbuf_addf(sb, "\nlarge changes not listed (run, at least %g %%), and why:\n%s",
			    UNLISTED_LARGE_PCT, lines.buf);
	strbuf_release(&lines);
}

/* "not tested (1 interval against 1, 8 needed)" or "cannot be significant
 * (3 intervals against 3, 8 needed)" */
static void text_short_words(struct strbuf *sb, const struct analyze_short *sh)
{
	strbuf_addf(sb, "%s (%zu interval%s against %zu, %zu needed)",
		    sh->tested ? "cannot be significant" : "not tested", sh->n_b,
		    sh->n_b == 1 ? "" : "s", sh->n_a, sh->needed);
}

/* The judged figures whose within-run test lacks intervals, by scope
 * (analyze_judged_short): said, not left out. One line for a scope whose five
 * are short alike. */
static void text_short(struct strbuf *sb, const struct analyze_comparison *c)
{
	bool head = false;

	for (size_t i = 0; i < c->nr_scopes; i++) {
		const struct analyze_scope *s = &c->scopes[i];
		struct analyze_short sh[ANALYZE_JUDGED_COUNT];
		bool is[ANALYZE_JUDGED_COUNT], alike = true, any = false;

		for (int j = 0; j < ANALYZE_JUDGED_COUNT; j++) {
			is[j] = analyze_judged_short(c, s, j, &sh[j]);
			any |= is[j];
			alike = alike && is[j] && sh[j].tested == sh[0].tested &&
				sh[j].n_a == sh[0].n_a && sh[j].n_b == sh[0].n_b &&
				sh[j].needed == sh[0].needed;
		}
		if (!any)
			continue;
		if (!head)
			strbuf_addstr(sb, "\nshort of intervals (judged figures the within-run "
					  "test cannot decide):\n");
		head = true;
		strbuf_addf(sb, "  %s",
			    s->scope == SCOPE_RUN ? "run" : results_scope_kind_name(s->scope));
		if (s->scope != SCOPE_RUN) {
			strbuf_addch(sb, ' ');
			report_text_escape(sb, s->name);
		}
		if (alike) {
			strbuf_addstr(sb, ": the five judged figures: ");
			text_short_words(sb, &sh[0]);
			strbuf_addch(sb, '\n');
			continue;
		}
		strbuf_addstr(sb, ":\n");
		for (int j = 0; j < ANALYZE_JUDGED_COUNT; j++) {
			if (!is[j])
				continue;
			strbuf_addf(sb, "    %s: ", analyze_judged_def(j)->words);
			text_short_words(sb, &sh[j]);
			strbuf_addch(sb, '\n');
		}
	}
}

/* ---- auto-tune side by side ---- */

/* drops the blanks a line's padding left at its end */
static void trim_end(struct strbuf *sb)
{
	while (sb->len && sb->buf[sb->len - 1] == ' ')
		sb->buf[--sb->len] = '\0';
}

static void text_tune_side(struct strbuf *sb, const struct results *r, size_t i)
{
	const struct results_autotune_step *st;

	if (i >= r->autotune.nr_steps) { /* as wide as a step: 12 + 10 + 8 + 8 + 7 */
		strbuf_addf(sb, "%-45s", "");
		return;
	}
	st = &r->autotune.steps[i];
	strbuf_addf(sb, "%4u %7u", st->step, st->streams);
	text_col(sb, 9, st->iops, 1);
	text_col(sb, 7, st->db_read_avg_ms, 2);
	text_col(sb, 7, st->log_write_avg_ms, 2);
	strbuf_addf(sb, " %-4s  ", st->passed ? "pass" : "FAIL");
}

static void text_tune_outcome(struct strbuf *sb, const char *side, const struct results *r)
{
	const struct results_autotune *t = &r->autotune;

	strbuf_addf(sb, "  %s: ", side);
	if (!results_autotune_ran(r)) {
		strbuf_addstr(sb, "not auto-tuned\n");
		return;
	}
	if (t->has_chosen && t->chosen)
		strbuf_addf(sb, "chose %u streams", t->chosen);
	else
		strbuf_addstr(sb, "no level passed");
	if (t->stopped_because) {
		strbuf_addstr(sb, " (stopped because ");
		report_text_escape(sb, t->stopped_because);
		strbuf_addch(sb, ')');
	}
	strbuf_addch(sb, '\n');
	for (size_t i = 0; i < t->nr_steps; i++) {
		if (!t->steps[i].reason)
			continue;
		strbuf_addf(sb, "    step %u: ", t->steps[i].step);
		report_text_escape(sb, t->steps[i].reason);
		strbuf_addch(sb, '\n');
	}
}

/* Both runs' auto-tune steps side by side, when either was auto-tuned. */
static void text_autotune(struct strbuf *sb, const struct analyze_comparison *c)
{
	size_t n = c->a->autotune.nr_steps;

	if (!results_autotune_ran(c->a) && !results_autotune_ran(c->b))
		return;
	if (c->b->autotune.nr_steps > n)
		n = c->b->autotune.nr_steps;
	strbuf_addstr(sb, "\nauto-tune steps (A | B; IOPS transactional, read and log averages in "
			  "ms):\n");
	strbuf_addf(sb, "  %4s %7s %9s %7s %7s %-4s  | %4s %7s %9s %7s %7s", "step", "streams",
		    "IOPS", "read", "log", "", "step", "streams", "IOPS", "read", "log");
	strbuf_addch(sb, '\n');
	for (size_t i = 0; i < n; i++) {
		strbuf_addstr(sb, "  ");
		text_tune_side(sb, c->a, i);
		strbuf_addstr(sb, "| ");
		text_tune_side(sb, c->b, i);
		trim_end(sb);
		strbuf_addch(sb, '\n');
	}
	text_tune_outcome(sb, "A", c->a);
	text_tune_outcome(sb, "B", c->b);
}

/* ---- runs as replicates ---- */

/* "3 runs (7, 8, 9; series:7)" */
static void text_side(struct strbuf *sb, const char *name, const struct report_compare_side *s)
{
	strbuf_addf(sb, "  %s: %zu run%s (", name, s->n, s->n == 1 ? "" : "s");
	for (size_t i = 0; i < s->n; i++)
		strbuf_addf(sb, "%s%" PRId64, i ? ", " : "", s->ids[i]);
	if (s->series)
		strbuf_addf(sb, "; series:%" PRId64 "%s", s->series,
			    s->from_label ? ", the series of the newest run so labelled" : "");
	strbuf_addstr(sb, ")\n");
}

/* The judged figures over the runs of side A and side B (pair i): the
 * evidence the gate decides by. */
static void text_replicates(struct strbuf *sb, const struct report_compare_view *v, size_t i)
{
	const struct analyze_replicates *r = &v->reps[i];
	bool one = r->n_a < 2 || r->n_b < 2, flat = false;

	strbuf_addf(sb, "\nruns as replicates (%zu against %zu):\n", r->n_b, r->n_a);
	text_side(sb, "A", &v->sides[0]);
	text_side(sb, v->nr_pairs > 1 ? "B (this side)" : "B", &v->sides[i + 1]);
	strbuf_addf(sb,
		    "  test: %s,\n  alpha %g, Holm over the %zu judged figures tested; each run's "
		    "figure is one observation\n",
		    ANALYZE_REPLICATE_TEST_NAME, r->alpha, r->family);
	strbuf_addf(sb,
		    "  established: changed the worse way (p against no change); bound: worse by "
		    "at least this with %g %% confidence\n",
		    100 * (1 - r->alpha));
	if (r->margin_pct > 0)
		strbuf_addf(sb,
			    "  the gate fails on an established change whose bound is worse than "
			    "%g %%\n",
			    r->margin_pct);
	strbuf_addf(sb, "  %-20s %12s %12s %9s %9s %8s %9s  %s\n", "figure", "A", "B", "change",
		    "bound", "spread", "p", "established");
	for (int j = 0; j < ANALYZE_JUDGED_COUNT; j++) {
		const struct analyze_rep_figure *f = &r->fig[j];
		int dec = j == ANALYZE_J_TRANS_IOPS ? 1 : 3;

		strbuf_addf(sb, "  %-20s", judged_words(j, true));
		text_col(sb, 12, f->a, dec);
		text_col(sb, 12, f->b, dec);
		text_change(sb, f->change_pct);
		text_change(sb,
			    analyze_judged_def(j)->higher_is_worse ? f->least_pct : -f->least_pct);
		if (isfinite(f->spread_pct))
			strbuf_addf(sb, " %7.1f%%", f->spread_pct);
		else
			strbuf_addf(sb, " %8s", "n/a");
		if (isfinite(f->p_value))
			strbuf_addf(sb, " %9.4f", f->p_value);
		else
			strbuf_addf(sb, " %9s", "n/a");
		if (f->established)
			strbuf_addstr(sb, "  yes\n");
		else if (f->state == ANALYZE_REP_TESTED)
			strbuf_addstr(sb, "  no\n");
		else
			strbuf_addf(sb, "  no (%s)\n", analyze_rep_state_words(f->state));
		flat |= f->state == ANALYZE_REP_NO_VARIATION;
	}
	strbuf_addstr(sb, "  (judged max: each run's maximum as its verdict judged it, the highest "
			  "15 s sample average\n   under max_basis = sample (the default), the "
			  "slowest single I/O under max_basis = io)\n");
	if (one) {
		const struct analyze_rep_figure *big = NULL;

		for (int j = 0; j < ANALYZE_JUDGED_COUNT; j++)
			if (r->fig[j].worse && r->fig[j].runs_needed &&
			    (!big || fabs(r->fig[j].change_pct) > fabs(big->change_pct)))
				big = &r->fig[j];
		strbuf_addstr(sb, "  not established: with one run on a side the run-to-run "
				  "variation is unknown");
		if (big)
			strbuf_addf(
				sb,
				";\n  %u runs per side would establish a change of %.1f %% (the "
				"largest worse here) 8 times in 10 at %s %.1f %% run-to-run "
				"spread (docs/compare.md, power)",
				big->runs_needed, fabs(big->change_pct),
				isfinite(big->spread_pct) && big->spread_pct > 0 ? "the seen"
										 : "an assumed",
				isfinite(big->spread_pct) && big->spread_pct > 0
					? big->spread_pct
					: ANALYZE_SPREAD_ASSUMED);
		strbuf_addstr(sb, "\n");
	}
	if (flat)
		strbuf_addstr(sb, "  no run-to-run variation on either side for some figure: "
				  "identical runs (the same sim seed?) cannot tell change from "
				  "noise; not established\n");
}

/* ---- the regression gate ---- */

static void text_gate(struct strbuf *sb, const struct report_compare_view *v)
{
	if (!v->gate)
		return;
	strbuf_addf(sb, "\nregression gate (--fail-on-regression %g %%): ", v->gate_pct);
	if (v->reps && v->outcome == ANALYZE_GATE_INCONCLUSIVE) {
		strbuf_addf(sb,
			    "inconclusive: a judged figure is worse by more than %g %%, but with "
			    "one run on a side (or no run-to-run variation) it is not established",
			    v->gate_pct);
		if (v->runs_needed)
			strbuf_addf(sb, "; repeat with %u runs per side (run --repeat %u)",
				    v->runs_needed, v->runs_needed);
		strbuf_addstr(sb, " (exit 5)\n");
		return;
	}
	if (!v->nr_regressions) {
		strbuf_addf(sb,
			    "pass: no judged figure got worse by more than %g %% with the change "
			    "established over the runs\n",
			    v->gate_pct);
		return;
	}
	strbuf_addf(sb, "FAIL: %zu regression(s)\n", v->nr_regressions);
	for (size_t i = 0; i < v->nr_regressions; i++) {
		const struct analyze_regression *g = &v->regressions[i];
		const struct analyze_comparison *c = &v->pairs[g->pair];
		const struct analyze_scope *s = &c->scopes[g->scope];
		const struct analyze_figure *f = analyze_judged_figure(s, g->fig);
		int dec = g->fig == ANALYZE_J_TRANS_IOPS ? 1 : 3;

		if (v->reps) {
			const struct analyze_rep_figure *rf = &v->reps[g->pair].fig[g->fig];

			strbuf_addf(sb, "  side B%zu: whole run %s ", g->pair + 1,
				    judged_words(g->fig, true));
			text_pct(sb, g->change_pct);
			strbuf_addstr(sb, " (");
			text_num(sb, rf->a, dec);
			strbuf_addstr(sb, " \u2192 ");
			text_num(sb, rf->b, dec);
			strbuf_addf(sb, ", established over %zu against %zu runs, p %.4f)\n",
				    v->reps[g->pair].n_b, v->reps[g->pair].n_a, rf->p_value);
			continue;
		}
		strbuf_addf(sb, "  run %" PRId64 ": ", c->b->id);
		if (s->scope == SCOPE_RUN) {
			strbuf_addstr(sb, "whole run");
		} else {
			strbuf_addf(sb, "%s ", results_scope_kind_name(s->scope));
			report_text_escape(sb, s->name);
		}
		strbuf_addf(sb, " %s ", judged_words(g->fig, false));
		text_pct(sb, g->change_pct);
		strbuf_addstr(sb, " (");
		text_num(sb, f->a, dec);
		strbuf_addstr(sb, " \u2192 ");
		text_num(sb, f->b, dec);
		if (f->test.p_value < 0.0001)
			strbuf_addstr(sb, ", p < 0.0001)\n");
		else
			strbuf_addf(sb, ", p %.4f)\n", f->test.p_value);
	}
}

/* ---- one pair ---- */

static void text_head(struct strbuf *sb, const struct analyze_comparison *c,
		      const struct report_compare_view *v)
{
	strbuf_addf(sb,
		    "test: %s, alpha %g, two-sided, Holm-corrected per scope (%zu figures); "
		    "dispersion: %s\n"
		    "(successive intervals are correlated: p values are optimistic, see "
		    "docs/compare.md)\n",
		    c->test, c->alpha, c->family, ANALYZE_DISPERSION_TEST_NAME);
	if (!v->all)
		strbuf_addf(sb,
			    "listed: changes both significant and at least %g %% (--min-change); "
			    "--all lists every figure\n",
			    c->min_change_pct);
}

/* What one comparison shows after the heading: the listed changes (and with
 * --all every scope's table and the host counters), auto-tune, verdict and
 * environment differences. */
static void text_one_pair(struct strbuf *sb, const struct analyze_comparison *c,
			  const struct report_compare_view *v, bool color)
{
	text_changes(sb, c);
	text_unlisted(sb, c, v->reps ? &v->reps[c - v->pairs] : NULL);
	text_short(sb, c);
	if (v->all)
		for (size_t i = 0; i < c->nr_scopes; i++)
			text_scope(sb, &c->scopes[i], color);
	for (size_t i = 0; i < c->nr_unmatched; i++)
		strbuf_addf(sb, "%s%s %s only in %s: not compared\n", i ? "" : "\n",
			    results_scope_kind_name(c->unmatched[i].scope), c->unmatched[i].name,
			    c->unmatched[i].in_a ? "A" : "B");
	if (v->all)
		text_host(sb, c);
	text_autotune(sb, c);
	text_verdict_changes(sb, c);
	report_text_param_diffs(sb, c->param_diffs, c->nr_param_diffs);
	text_env(sb, c);
}

/* ---- several runs: the trend ---- */

static void text_trend(struct strbuf *sb, const struct report_compare_view *v)
{
	strbuf_addf(sb,
		    "\ntrend (whole run; change against the baseline, run %" PRId64
		    "; * significant):\n  %-20s %12s",
		    v->pairs[0].a->id, "figure", "baseline");
	for (size_t i = 0; i < v->nr_pairs; i++) {
		char run[32];

		snprintf(run, sizeof(run), "run %" PRId64, v->pairs[i].b->id);
		strbuf_addf(sb, " %12s%11s", run, "");
	}
	trim_end(sb);
	strbuf_addch(sb, '\n');
	for (int j = 0; j < ANALYZE_JUDGED_COUNT; j++) {
		int dec = j == ANALYZE_J_TRANS_IOPS ? 1 : 3;

		strbuf_addf(sb, "  %-20s", judged_words(j, false));
		text_col(sb, 12, analyze_judged_figure(&v->pairs[0].scopes[0], j)->a, dec);
		for (size_t i = 0; i < v->nr_pairs; i++) {
			const struct analyze_figure *f =
				analyze_judged_figure(&v->pairs[i].scopes[0], j);

			text_col(sb, 12, f->b, dec);
			if (isfinite(f->change_pct))
				strbuf_addf(sb, " %+7.1f%%%s  ",
					    fabs(f->change_pct) < 0.05 ? 0.0 : f->change_pct,
					    f->significant ? "*" : " ");
			else
				strbuf_addf(sb, " %8s   ", "n/a");
		}
		trim_end(sb);
		strbuf_addch(sb, '\n');
	}
}

void report_compare_text(struct strbuf *sb, const struct report_compare_view *v,
			 const struct report_options *opt)
{
	const struct analyze_comparison *c = &v->pairs[0];
	bool color = opt && opt->color;
	char side[24];

	if (v->mixed)
		strbuf_addf(sb, "%s\n", v->mixed);
	if (v->nr_pairs == 1) {
		strbuf_addf(sb,
			    "diskproof compare: run %" PRId64 " (A) against run %" PRId64 " (B)\n",
			    c->a->id, c->b->id);
		text_run_line(sb, "A", c->a);
		text_run_line(sb, "B", c->b);
		if (v->reps) {
			text_replicates(sb, v, 0);
			strbuf_addf(sb,
				    "\nwithin-run evidence (run %" PRId64 " against run %" PRId64
				    ", the newest of each side; intervals, not runs):\n",
				    c->b->id, c->a->id);
		}
		text_head(sb, c, v);
		text_one_pair(sb, c, v, color);
		text_gate(sb, v);
		return;
	}
	strbuf_addf(sb,
		    "diskproof compare: %zu runs, each against run %" PRId64 " (A, the baseline)\n",
		    v->nr_pairs + 1, c->a->id);
	text_run_line(sb, "A", c->a);
	for (size_t i = 0; i < v->nr_pairs; i++) {
		snprintf(side, sizeof(side), "B%zu", i + 1);
		text_run_line(sb, side, v->pairs[i].b);
	}
	text_head(sb, c, v);
	text_trend(sb, v);
	for (size_t i = 0; i < v->nr_pairs; i++) {
		strbuf_addf(sb, "\n=== B%zu: run %" PRId64 " (B) against run %" PRId64 " (A) ===\n",
			    i + 1, v->pairs[i].b->id, v->pairs[i].a->id);
		if (v->reps) {
			text_replicates(sb, v, i);
			strbuf_addstr(sb, "\nwithin-run evidence (the newest run of each side):\n");
		}
		text_one_pair(sb, &v->pairs[i], v, color);
	}
	text_gate(sb, v);
}
