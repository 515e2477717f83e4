/* SPDX-License-Identifier: MIT */
/*
 * html_compare.c - the HTML page of a run comparison (compare --format
 * html): the two runs, the significant changes, A/B overlay charts, verdict
 * and environment changes, host counters side by side and every figure.
 * It computes nothing: every figure, change and p value comes from struct
 * analyze_comparison (analyze.h, docs/compare.md).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "diskproof/analyze.h"
#include "html.h"

#define COLOR_A "#64748b"
#define COLOR_B "#dc2626"

static const char *const cmp_sections[][2] = {
	{"summary", "Summary"},
	{"replicates", "Runs as replicates"},
	{"significant", "Significant changes"},
	{"charts", "Charts"},
	{"autotune", "Auto-tune"},
	{"gate", "Regression gate"},
	{"verdict-changes", "Verdict changes"},
	{"env-diffs", "Environment"},
	{"host", "Host performance"},
	{"figures", "All figures"},
};

static void cmp_run_row(struct strbuf *sb, const char *side, const struct results *r)
{
	strbuf_addf(sb, "<tr><th>%s</th><td>%" PRId64 "</td><td>", side, r->id);
	html_esc(sb, report_str_or(r->label, "-"));
	strbuf_addstr(sb, "</td><td>");
	html_esc(sb, report_str_or(r->host, "-"));
	strbuf_addstr(sb, "</td><td>");
	html_esc(sb, report_str_or(r->started_at, "-"));
	strbuf_addstr(sb, "</td><td>");
	html_esc(sb, report_str_or(r->profile_name, "-"));
	strbuf_addstr(sb, "</td><td>");
	html_esc(sb, report_str_or(r->engine, "-"));
	strbuf_addstr(sb, "</td><td>");
	html_verdict_badge(sb, r->verdict, false);
	strbuf_addstr(sb, "</td></tr>\n");
}

static void cmp_scope_name(struct strbuf *sb, const struct analyze_scope *s)
{
	if (s->scope == SCOPE_RUN) {
		strbuf_addstr(sb, "whole run");
		return;
	}
	strbuf_addf(sb, "%s ", results_scope_kind_name(s->scope));
	html_esc(sb, s->name);
	if (s->volume[0]) {
		strbuf_addstr(sb, " on ");
		html_esc(sb, s->volume);
	}
}

static void cmp_p(struct strbuf *sb, const struct analyze_mw *t)
{
	strbuf_addstr(sb, "<td class=\"num\">");
	if (t->method == ANALYZE_NONE || !isfinite(t->p_value))
		strbuf_addstr(sb, "n/a");
	else if (t->p_value < 0.0001)
		strbuf_addstr(sb, "&lt;0.0001");
	else
		strbuf_addf(sb, "%.4f", t->p_value);
	strbuf_addf(sb, " <small>%s</small></td>", analyze_method_name(t->method));
}

static void cmp_figure_row(struct strbuf *sb, const struct analyze_scope *s, int c, int m,
			   bool with_scope)
{
	const struct analyze_figure *f = &s->classes[c].fig[m];
	int dec = m == ANALYZE_IOPS ? 1 : 3;

	strbuf_addf(sb, "<tr%s>", f->significant ? " class=\"sig\"" : "");
	if (with_scope) {
		strbuf_addstr(sb, "<td>");
		cmp_scope_name(sb, s);
		strbuf_addstr(sb, "</td>");
	}
	strbuf_addf(sb, "<td>%s</td><td>%s</td>", stats_io_class_name(c), report_metric_words[m]);
	html_td_num(sb, f->a, dec);
	html_td_num(sb, f->b, dec);
	strbuf_addstr(sb, "<td class=\"num\">");
	if (report_unchanged_zero(f->a, f->b, f->change_pct, dec))
		strbuf_addstr(sb, "unchanged");
	else if (isfinite(f->change_pct))
		strbuf_addf(sb, "%+.1f %%", f->change_pct);
	else
		strbuf_addstr(sb, "n/a");
	strbuf_addf(sb, "</td><td>%s</td>", f->significant ? "<b>significant</b>" : "");
	cmp_p(sb, &f->test);
	strbuf_addstr(sb, "</tr>\n");
}

static const char cmp_fig_head[] =
	"<th>class</th><th>metric</th><th class=\"num\">A</th><th class=\"num\">B</th>"
	"<th class=\"num\">change</th><th>significant</th><th class=\"num\">p</th></tr>\n";

/* A row of a figure that is not one of a class's five metrics: a class's
 * dispersion (sd) or the transactional IOPS. */
static void cmp_extra_row(struct strbuf *sb, const struct analyze_scope *s, const char *cls,
			  const char *words, const struct analyze_figure *f, int dec,
			  bool with_scope)
{
	strbuf_addf(sb, "<tr%s>", f->significant ? " class=\"sig\"" : "");
	if (with_scope) {
		strbuf_addstr(sb, "<td>");
		cmp_scope_name(sb, s);
		strbuf_addstr(sb, "</td>");
	}
	strbuf_addf(sb, "<td>%s</td><td>%s</td>", cls, words);
	html_td_num(sb, f->a, dec);
	html_td_num(sb, f->b, dec);
	strbuf_addstr(sb, "<td class=\"num\">");
	if (report_unchanged_zero(f->a, f->b, f->change_pct, dec))
		strbuf_addstr(sb, "unchanged");
	else if (isfinite(f->change_pct))
		strbuf_addf(sb, "%+.1f %%", f->change_pct);
	else
		strbuf_addstr(sb, "n/a");
	strbuf_addf(sb, "</td><td>%s</td>", f->significant ? "<b>significant</b>" : "");
	cmp_p(sb, &f->test);
	strbuf_addstr(sb, "</tr>\n");
}

/* The listed figures as the text lists them: one row per scope level and
 * class (report_compare_list_line), names HTML-escaped. */
static void cmp_list_lines(struct strbuf *sb, const struct analyze_comparison *c)
{
	static const enum scope_kind levels[] = {SCOPE_RUN, SCOPE_VOLUME, SCOPE_DATABASE};
	struct strbuf line = STRBUF_INIT;
	size_t rows = 0;

	for (size_t l = 0; l < DP_ARRAY_SIZE(levels); l++) {
		for (int cls = 0; cls <= LIST_TRANS; cls++) {
			strbuf_reset(&line);
			if (!report_compare_list_line(&line, c, levels[l], cls, html_esc))
				continue;
			if (!rows++)
				strbuf_addstr(sb, "<table class=\"changes\">\n<tr><th>level</th>"
						  "<th>class</th><th>what changed</th></tr>\n");
			strbuf_addf(sb,
				    "<tr class=\"change\"><td>%s</td><td>%s</td><td>%s</td></tr>\n",
				    report_compare_level_words(levels[l]),
				    cls == LIST_TRANS ? "transactional" : stats_io_class_name(cls),
				    line.buf);
		}
	}
	if (rows)
		strbuf_addstr(sb, "</table>\n");
	strbuf_release(&line);
}

/* The judged figures whose within-run test lacks intervals
 * (analyze_judged_short): said, as the text says them, not left out. */
static void cmp_short(struct strbuf *sb, const struct analyze_comparison *c)
{
	bool head = false;

	for (size_t i = 0; i < c->nr_scopes; i++) {
		for (int j = 0; j < ANALYZE_JUDGED_COUNT; j++) {
			struct analyze_short sh;

			if (!analyze_judged_short(c, &c->scopes[i], j, &sh))
				continue;
			if (!head)
				strbuf_addstr(sb,
					      "<p class=\"note\">Short of intervals (judged "
					      "figures the within-run test cannot decide):</p>\n"
					      "<ul class=\"short\">\n");
			head = true;
			strbuf_addstr(sb, "<li>");
			cmp_scope_name(sb, &c->scopes[i]);
			strbuf_addf(sb, " %s: %s (%zu interval%s against %zu, %zu needed)</li>\n",
				    analyze_judged_def(j)->words,
				    sh.tested ? "cannot be significant" : "not tested", sh.n_b,
				    sh.n_b == 1 ? "" : "s", sh.n_a, sh.needed);
		}
	}
	if (head)
		strbuf_addstr(sb, "</ul>\n");
}

/* The listed figures (significant and material), or with --all every
 * significant one, of every scope. */
static void cmp_significant(struct strbuf *sb, const struct analyze_comparison *c, bool all,
			    const char *id)
{
	size_t i, rows = 0;
	int k, m;

	html_section_open(sb, id, "Significant changes", false);
	strbuf_addf(sb, "<p class=\"note\">%s (alpha %g, Holm per scope; dispersion: %s).</p>\n",
		    all ? "Every significant change" : "Changes both significant and material",
		    c->alpha, ANALYZE_DISPERSION_TEST_NAME);
	if (!all)
		strbuf_addf(sb,
			    "<p class=\"note\">Material: at least %g %% (--min-change); "
			    "--all shows every significant change.</p>\n",
			    c->min_change_pct);
	if (!all)
		cmp_list_lines(sb, c);
	strbuf_addf(sb, "%s<table>\n<tr><th>scope</th>%s",
		    all ? "" : "<details><summary>each listed figure with its test</summary>\n",
		    cmp_fig_head);
	for (i = 0; i < c->nr_scopes; i++) {
		const struct analyze_scope *s = &c->scopes[i];

		for (k = 0; k < IO_CLASS_COUNT; k++) {
			for (m = 0; m < ANALYZE_METRIC_COUNT; m++) {
				const struct analyze_figure *f = &s->classes[k].fig[m];

				if (all ? f->significant : f->listed) {
					cmp_figure_row(sb, s, k, m, true);
					rows++;
				}
			}
			if (all ? s->classes[k].sd.significant : s->classes[k].sd.listed) {
				cmp_extra_row(sb, s, stats_io_class_name(k), "sd ms",
					      &s->classes[k].sd, 3, true);
				rows++;
			}
		}
		if (all ? s->trans_iops.significant : s->trans_iops.listed) {
			cmp_extra_row(sb, s, "db_read+db_write", "IOPS", &s->trans_iops, 1, true);
			rows++;
		}
	}
	strbuf_addf(sb, "</table>\n%s", all ? "" : "</details>\n");
	if (!rows)
		strbuf_addstr(sb, "<p>No figure changed significantly.</p>\n");
	cmp_short(sb, c);
	strbuf_addstr(sb, "</section>\n");
}

static void cmp_charts(struct strbuf *sb, const struct analyze_comparison *c)
{
	struct html_series s[2];
	struct html_hline hl;
	struct html_chart ch;
	char id[48], title[112], hlabel[64], la[48], lb[48];
	int k;

	snprintf(la, sizeof(la), "A: run %" PRId64, c->a->id);
	snprintf(lb, sizeof(lb), "B: run %" PRId64, c->b->id);
	html_section_open(sb, "charts", "Charts", false);
	strbuf_addstr(sb, "<p class=\"note\">A and B on the same axes, whole run. Time charts "
			  "exclude the warm-up and start at the end of each run's warm-up.</p>\n");
	s[0] = (struct html_series){.r = c->a,
				    .src = HTML_SRC_IOPS,
				    .scope = SCOPE_RUN,
				    .name = "run",
				    .classes = HTML_TRANSACTIONAL,
				    .measured = true,
				    .label = la,
				    .color = COLOR_A};
	s[1] = s[0];
	s[1].r = c->b;
	s[1].label = lb;
	s[1].color = COLOR_B;
	ch = (struct html_chart){.id = "chart-iops",
				 .title = "Transactional IOPS over time (db_read + db_write)",
				 .x_label = "seconds since the end of warm-up",
				 .y_label = "IOPS",
				 .series = s,
				 .nr_series = 2};
	html_chart_line(sb, &ch);
	strbuf_addstr(sb, "<div class=\"charts2\">\n");
	for (k = 0; k < IO_CLASS_COUNT; k++) {
		if (!c->scopes[0].classes[k].present) /* neither run issued it */
			continue;
		snprintf(id, sizeof(id), "chart-lat-%s", stats_io_class_name(k));
		snprintf(title, sizeof(title), "%s average latency over time",
			 stats_io_class_name(k));
		s[0].src = s[1].src = HTML_SRC_AVG_MS;
		s[0].classes = s[1].classes = 1u << k;
		hl.y = html_class_avg_threshold(c->a, k);
		snprintf(hlabel, sizeof(hlabel), "threshold %g ms (A)", isfinite(hl.y) ? hl.y : 0);
		hl.label = hlabel;
		hl.color = "#b91c1c";
		ch = (struct html_chart){.id = id,
					 .title = title,
					 .x_label = "seconds since the end of warm-up",
					 .y_label = "ms",
					 .series = s,
					 .nr_series = 2,
					 .hlines = &hl,
					 .nr_hlines = isfinite(hl.y) ? 1 : 0,
					 .compact = true};
		html_chart_line(sb, &ch);
	}
	for (k = 0; k < IO_CLASS_COUNT; k++) {
		if (!c->scopes[0].classes[k].present)
			continue;
		snprintf(id, sizeof(id), "chart-cdf-%s", stats_io_class_name(k));
		snprintf(title, sizeof(title), "%s latency CDF", stats_io_class_name(k));
		s[0].src = s[1].src = HTML_SRC_CDF;
		s[0].cls = s[1].cls = (enum io_class)k;
		ch = (struct html_chart){
			.id = id,
			.title = title,
			.x_label = "latency (ms, log scale)",
			.y_label = "share of I/Os at or below",
			.series = s,
			.nr_series = 2,
			.y_percent = true,
			.x_log10 = true, /* as the run page's: the tail as wide as the body */
			.compact = true};
		html_chart_line(sb, &ch);
	}
	strbuf_addstr(sb, "</div>\n</section>\n");
}

static void cmp_verdict_changes(struct strbuf *sb, const struct analyze_comparison *c)
{
	const struct analyze_verdict_change *v;
	size_t i;

	html_section_open(sb, "verdict-changes", "Verdict changes", false);
	if (!c->nr_verdict_changes) {
		strbuf_addstr(sb, "<p>No verdict changed.</p>\n</section>\n");
		return;
	}
	strbuf_addstr(sb, "<table>\n<tr><th>scope</th><th>name</th><th>criterion</th>"
			  "<th class=\"num\">threshold A</th><th class=\"num\">measured A</th>"
			  "<th>A</th><th class=\"num\">threshold B</th>"
			  "<th class=\"num\">measured B</th><th>B</th></tr>\n");
	for (i = 0; i < c->nr_verdict_changes; i++) {
		v = &c->verdict_changes[i];
		strbuf_addf(sb, "<tr%s><td>%s</td><td>", v->passed_b ? "" : " class=\"fail\"",
			    results_scope_kind_name(v->scope));
		html_esc(sb, v->name);
		strbuf_addstr(sb, "</td><td>");
		html_esc(sb, v->criterion);
		if (strcmp(v->criterion_b, v->criterion)) {
			strbuf_addstr(sb, " (B: ");
			html_esc(sb, v->criterion_b);
			strbuf_addch(sb, ')');
		}
		strbuf_addstr(sb, "</td>");
		html_td_num(sb, v->threshold_a, 3);
		html_td_num(sb, v->measured_a, 3);
		strbuf_addf(sb, "<td class=\"%s\">%s</td>", v->passed_a ? "PASS" : "FAIL",
			    v->passed_a ? "PASS" : "FAIL");
		html_td_num(sb, v->threshold_b, 3);
		html_td_num(sb, v->measured_b, 3);
		strbuf_addf(sb, "<td class=\"%s\">%s</td></tr>\n", v->passed_b ? "PASS" : "FAIL",
			    v->passed_b ? "PASS" : "FAIL");
	}
	strbuf_addstr(sb, "</table>\n</section>\n");
}

static void cmp_env(struct strbuf *sb, const struct analyze_comparison *c)
{
	size_t i;

	html_section_open(sb, "env-diffs", "Environment", false);
	if (!c->nr_env_diffs)
		strbuf_addstr(sb, "<p>No environment fact differs.</p>\n");
	else
		strbuf_addstr(sb, "<table>\n<tr><th>fact</th><th>A</th><th>B</th></tr>\n");
	for (i = 0; i < c->nr_env_diffs; i++) {
		strbuf_addstr(sb, "<tr><td>");
		html_esc(sb, c->env_diffs[i].key);
		strbuf_addstr(sb, "</td><td>");
		html_esc(sb, report_str_or(c->env_diffs[i].a, "(absent)"));
		strbuf_addstr(sb, "</td><td>");
		html_esc(sb, report_str_or(c->env_diffs[i].b, "(absent)"));
		strbuf_addstr(sb, "</td></tr>\n");
	}
	if (c->nr_env_diffs)
		strbuf_addstr(sb, "</table>\n");
	for (i = 0; i < c->nr_unmatched; i++) {
		strbuf_addf(sb, "<p class=\"note\">%s ",
			    results_scope_kind_name(c->unmatched[i].scope));
		html_esc(sb, c->unmatched[i].name);
		strbuf_addf(sb, " is only in %s: not compared.</p>\n",
			    c->unmatched[i].in_a ? "A" : "B");
	}
	strbuf_addstr(sb, "</section>\n");
}

static void cmp_host_row(struct strbuf *sb, const char *device, const struct report_host_word *w,
			 const struct analyze_pair *p)
{
	strbuf_addstr(sb, "<tr class=\"host-figure\"><td>");
	html_esc(sb, device);
	strbuf_addf(sb, "</td><td>%s</td>", w->words);
	html_td_num(sb, p->a * w->scale, w->decimals);
	html_td_num(sb, p->b * w->scale, w->decimals);
	strbuf_addstr(sb, "<td class=\"num\">");
	if (report_unchanged_zero(p->a * w->scale, p->b * w->scale, p->change_pct, w->decimals))
		strbuf_addstr(sb, "unchanged");
	else if (isfinite(p->change_pct))
		strbuf_addf(sb, "%+.1f %%", p->change_pct);
	else
		strbuf_addstr(sb, "n/a");
	strbuf_addstr(sb, "</td></tr>\n");
}

/* The host counters of both runs side by side (analyze_host), untested. */
static void cmp_host(struct strbuf *sb, const struct analyze_comparison *c)
{
	const struct analyze_host *h = &c->host;
	const struct analyze_host_device *d;
	char name[RESULTS_NAME_MAX + 16];
	size_t i;
	int m;

	html_section_open(sb, "host", "Host performance", false);
	if (!h->in_a && !h->in_b) {
		strbuf_addstr(sb, "<p>Neither run recorded host counters.</p>\n</section>\n");
		return;
	}
	strbuf_addstr(sb, "<table>\n<tr><th>device</th><th>figure</th><th class=\"num\">A</th>"
			  "<th class=\"num\">B</th><th class=\"num\">change</th></tr>\n");
	for (m = 0; m < ANALYZE_HOST_METRIC_COUNT; m++)
		cmp_host_row(sb, "host", &report_host_words[m], &h->fig[m]);
	for (i = 0; i < h->nr_devices; i++) {
		d = &h->devices[i];
		snprintf(name, sizeof(name), "%s%s", d->name,
			 d->in_a && d->in_b ? ""
			 : d->in_a	    ? " (A only)"
					    : " (B only)");
		for (m = 0; m < ANALYZE_DEV_METRIC_COUNT; m++)
			cmp_host_row(sb, name, &report_dev_words[m], &d->fig[m]);
	}
	strbuf_addstr(sb, "</table>\n<p class=\"note\">Each run's host counters over its "
			  "measured intervals (see the run's Host performance section), side by "
			  "side and not tested; devices are matched by name.</p>\n</section>\n");
}

static void cmp_figures(struct strbuf *sb, const struct analyze_comparison *c)
{
	const struct analyze_scope *s;
	const struct analyze_class *k;
	size_t i;
	int cl, m;

	html_section_open(sb, "figures", "All figures", false);
	strbuf_addstr(sb, "<p class=\"note\">Run and volume series are 1 s intervals, database "
			  "series 15 s intervals. Dispersion: standard deviation (sd) and "
			  "coefficient of variation (cv) of the per-interval average latency, sd "
			  "tested by Brown-Forsythe (method f). A "
			  "class neither run issued in a scope is left out.</p>\n");
	for (i = 0; i < c->nr_scopes; i++) {
		s = &c->scopes[i];
		strbuf_addstr(sb, "<h3>");
		cmp_scope_name(sb, s);
		strbuf_addf(sb, "</h3>\n<table>\n<tr>%s", cmp_fig_head);
		for (cl = 0; cl < IO_CLASS_COUNT; cl++)
			for (m = 0; m < ANALYZE_METRIC_COUNT && s->classes[cl].present; m++)
				cmp_figure_row(sb, s, cl, m, false);
		for (cl = 0; cl < IO_CLASS_COUNT; cl++)
			if (s->classes[cl].present)
				cmp_extra_row(sb, s, stats_io_class_name(cl), "sd ms",
					      &s->classes[cl].sd, 3, false);
		if (s->classes[IO_DB_READ].present || s->classes[IO_DB_WRITE].present)
			cmp_extra_row(sb, s, "db_read+db_write", "IOPS", &s->trans_iops, 1, false);
		strbuf_addstr(sb, "</table>\n<table>\n<tr><th>class</th><th class=\"num\">cv A"
				  "</th><th class=\"num\">cv B</th><th class=\"num\">change</th>"
				  "</tr>\n");
		for (cl = 0; cl < IO_CLASS_COUNT; cl++) {
			k = &s->classes[cl];
			if (!k->present)
				continue;
			strbuf_addf(sb, "<tr><td>%s</td>", stats_io_class_name(cl));
			html_td_num(sb, k->cv_a, 3);
			html_td_num(sb, k->cv_b, 3);
			strbuf_addstr(sb, "<td class=\"num\">");
			if (isfinite(k->cv_change_pct))
				strbuf_addf(sb, "%+.1f %%", k->cv_change_pct);
			else
				strbuf_addstr(sb, "n/a");
			strbuf_addstr(sb, "</td></tr>\n");
		}
		strbuf_addstr(sb, "</table>\n");
	}
	strbuf_addstr(sb, "</section>\n");
}

/* Both runs' auto-tune steps side by side, when either was auto-tuned. */
static void cmp_tune_side(struct strbuf *sb, const struct results *r, size_t i)
{
	const struct results_autotune_step *st;

	if (i >= r->autotune.nr_steps) {
		strbuf_addstr(sb, "<td></td><td></td><td></td><td></td><td></td><td></td>");
		return;
	}
	st = &r->autotune.steps[i];
	strbuf_addf(sb, "<td class=\"num\">%u</td>", st->streams);
	html_td_num(sb, st->iops, 1);
	html_td_num(sb, st->db_read_avg_ms, 2);
	html_td_num(sb, st->log_write_avg_ms, 2);
	strbuf_addf(sb, "<td class=\"%s\">%s</td><td>", st->passed ? "PASS" : "FAIL",
		    st->passed ? "PASS" : "FAIL");
	html_esc(sb, st->reason);
	strbuf_addstr(sb, "</td>");
}

static void cmp_tune_outcome(struct strbuf *sb, const char *side, const struct results *r)
{
	strbuf_addf(sb, "<p>%s: ", side);
	if (!results_autotune_ran(r))
		strbuf_addstr(sb, "not auto-tuned");
	else if (r->autotune.has_chosen && r->autotune.chosen)
		strbuf_addf(sb, "chose %u streams", r->autotune.chosen);
	else
		strbuf_addstr(sb, "no level passed");
	if (r->autotune.stopped_because) {
		strbuf_addstr(sb, " (stopped because ");
		html_esc(sb, r->autotune.stopped_because);
		strbuf_addch(sb, ')');
	}
	strbuf_addstr(sb, "</p>\n");
}

static void cmp_autotune(struct strbuf *sb, const struct analyze_comparison *c)
{
	size_t n = c->a->autotune.nr_steps;

	if (c->b->autotune.nr_steps > n)
		n = c->b->autotune.nr_steps;
	html_section_open(sb, "autotune", "Auto-tune", false);
	strbuf_addstr(sb, "<table>\n<tr><th class=\"num\">step</th><th class=\"num\">A streams"
			  "</th><th class=\"num\">IOPS</th><th class=\"num\">read ms</th>"
			  "<th class=\"num\">log ms</th><th>A</th><th>reason</th>"
			  "<th class=\"num\">B streams</th><th class=\"num\">IOPS</th>"
			  "<th class=\"num\">read ms</th><th class=\"num\">log ms</th><th>B</th>"
			  "<th>reason</th></tr>\n");
	for (size_t i = 0; i < n; i++) {
		strbuf_addf(sb, "<tr class=\"tune-pair\"><td class=\"num\">%zu</td>", i + 1);
		cmp_tune_side(sb, c->a, i);
		cmp_tune_side(sb, c->b, i);
		strbuf_addstr(sb, "</tr>\n");
	}
	strbuf_addstr(sb, "</table>\n");
	cmp_tune_outcome(sb, "A", c->a);
	cmp_tune_outcome(sb, "B", c->b);
	strbuf_addstr(sb, "</section>\n");
}

static void cmp_gate(struct strbuf *sb, const struct report_compare_view *v)
{
	bool undecided = v->reps && v->outcome == ANALYZE_GATE_INCONCLUSIVE;

	html_section_open(sb, "gate", "Regression gate", false);
	strbuf_addf(sb, "<p>--fail-on-regression %g %%: <b>%s</b></p>\n", v->gate_pct,
		    undecided		? "inconclusive"
		    : v->nr_regressions ? "FAIL"
					: "pass");
	if (undecided) {
		/* as the text says it (compare.c): seen, not established */
		strbuf_addf(sb,
			    "<p>A judged figure is worse by more than %g %%, but with one run on a "
			    "side (or no run-to-run variation) the change is not established",
			    v->gate_pct);
		if (v->runs_needed)
			strbuf_addf(sb, "; repeat with %u runs per side (run --repeat %u)",
				    v->runs_needed, v->runs_needed);
		strbuf_addstr(sb, " (exit 5).</p>\n");
	}
	if (v->nr_regressions)
		strbuf_addstr(sb, "<table>\n<tr><th>run</th><th>scope</th><th>figure</th>"
				  "<th class=\"num\">A</th><th class=\"num\">B</th>"
				  "<th class=\"num\">change</th></tr>\n");
	for (size_t i = 0; i < v->nr_regressions; i++) {
		const struct analyze_regression *g = &v->regressions[i];
		const struct analyze_comparison *c = &v->pairs[g->pair];
		const struct analyze_scope *s = &c->scopes[g->scope];
		const struct analyze_figure *f = analyze_judged_figure(s, g->fig);
		int dec = g->fig == ANALYZE_J_TRANS_IOPS ? 1 : 3;

		strbuf_addf(sb, "<tr class=\"fail\"><td>%" PRId64 "</td><td>", c->b->id);
		cmp_scope_name(sb, s);
		strbuf_addf(sb, "</td><td>%s</td>", analyze_judged_def(g->fig)->words);
		html_td_num(sb, f->a, dec);
		html_td_num(sb, f->b, dec);
		strbuf_addf(sb, "<td class=\"num\">%+.1f %%</td></tr>\n", g->change_pct);
	}
	if (v->nr_regressions)
		strbuf_addstr(sb, "</table>\n");
	strbuf_addstr(sb, "</section>\n");
}

static void cmp_pct_cell(struct strbuf *sb, double pct)
{
	if (isfinite(pct))
		strbuf_addf(sb, "<td class=\"num\">%+.1f %%</td>", pct);
	else
		strbuf_addstr(sb, "<td class=\"num\">n/a</td>");
}

static void cmp_rep_side(struct strbuf *sb, const char *name, const struct report_compare_side *s)
{
	strbuf_addf(sb, "<li>%s: %zu run%s (", name, s->n, s->n == 1 ? "" : "s");
	for (size_t i = 0; i < s->n; i++)
		strbuf_addf(sb, "%s%" PRId64, i ? ", " : "", s->ids[i]);
	if (s->series)
		strbuf_addf(sb, "; series:%" PRId64, s->series);
	strbuf_addstr(sb, ")</li>\n");
}

/* The test over the runs of pair i (analyze.h, "Runs as replicates"): per
 * judged figure the sides' geometric means, the change, the run-to-run
 * spread used, t, df, p and whether the change is established - the
 * evidence the gate decides by, as the text's "runs as replicates". */
static void cmp_replicates(struct strbuf *sb, const struct report_compare_view *v, size_t i,
			   const char *id)
{
	const struct analyze_replicates *r = &v->reps[i];

	html_section_open(sb, id, "Runs as replicates", false);
	strbuf_addf(sb, "<p>Runs per side: <b>%zu against %zu</b></p>\n<ul>\n", r->n_b, r->n_a);
	cmp_rep_side(sb, "A", &v->sides[0]);
	cmp_rep_side(sb, "B", &v->sides[i + 1]);
	strbuf_addf(sb,
		    "</ul>\n<p class=\"note\">Test: %s, against no change; alpha %g, Holm over "
		    "the %zu judged figures tested; each run's figure is one observation; spread: "
		    "the pooled run-to-run sd of ln(figure)",
		    ANALYZE_REPLICATE_TEST_NAME, r->alpha, r->family);
	strbuf_addf(sb, "; bound: worse by at least this with %g %% confidence",
		    100 * (1 - r->alpha));
	if (r->margin_pct > 0)
		strbuf_addf(sb,
			    ". The gate fails on an established change whose bound is worse "
			    "than %g %%",
			    r->margin_pct);
	strbuf_addstr(sb, " (docs/compare.md).</p>\n<table class=\"replicates\">\n<tr>"
			  "<th>figure</th><th class=\"num\">A</th><th class=\"num\">B</th>"
			  "<th class=\"num\">change</th><th class=\"num\">bound</th>"
			  "<th class=\"num\">spread</th>"
			  "<th class=\"num\">t</th><th class=\"num\">df</th>"
			  "<th class=\"num\">p (one-sided)</th><th>established</th></tr>\n");
	for (int j = 0; j < ANALYZE_JUDGED_COUNT; j++) {
		const struct analyze_rep_figure *f = &r->fig[j];
		int dec = j == ANALYZE_J_TRANS_IOPS ? 1 : 3;

		strbuf_addf(sb, "<tr%s><td>%s</td>", f->established ? " class=\"fail\"" : "",
			    analyze_judged_def(j)->words);
		html_td_num(sb, f->a, dec);
		html_td_num(sb, f->b, dec);
		cmp_pct_cell(sb, f->change_pct);
		cmp_pct_cell(sb,
			     analyze_judged_def(j)->higher_is_worse ? f->least_pct : -f->least_pct);
		if (isfinite(f->spread_pct))
			strbuf_addf(sb, "<td class=\"num\">%.1f %%</td>", f->spread_pct);
		else
			strbuf_addstr(sb, "<td class=\"num\">n/a</td>");
		html_td_num(sb, f->t, 2);
		html_td_num(sb, f->df > 0 ? f->df : NAN, 0);
		if (f->p_value < 0.0001)
			strbuf_addstr(sb, "<td class=\"num\">&lt;0.0001</td>");
		else
			html_td_num(sb, f->p_value, 4);
		if (f->established)
			strbuf_addstr(sb, "<td><b>yes</b></td></tr>\n");
		else if (f->state == ANALYZE_REP_TESTED)
			strbuf_addstr(sb, "<td>no</td></tr>\n");
		else
			strbuf_addf(sb, "<td>no (%s)</td></tr>\n",
				    analyze_rep_state_words(f->state));
	}
	strbuf_addstr(sb, "</table>\n");
	for (int j = 0; j < ANALYZE_JUDGED_COUNT; j++) {
		const struct analyze_rep_figure *f = &r->fig[j];

		if (f->state == ANALYZE_REP_TESTED || !f->worse || !f->runs_needed)
			continue;
		strbuf_addf(sb,
			    "<p class=\"note\">%s: %u runs per side would establish a change of "
			    "%.1f %% 8 times in 10 at %s %.1f %% run-to-run spread.</p>\n",
			    analyze_judged_def(j)->words, f->runs_needed, fabs(f->change_pct),
			    isfinite(f->spread_pct) && f->spread_pct > 0 ? "the seen"
									 : "an assumed",
			    isfinite(f->spread_pct) && f->spread_pct > 0 ? f->spread_pct
									 : ANALYZE_SPREAD_ASSUMED);
	}
	strbuf_addstr(sb, "</section>\n");
}

/* The run-wide judged figure j across the runs, x the run's place (baseline
 * first), as an inline SVG line with a marker per run (filled when the
 * change against the baseline is significant). Scaling only: the values are
 * the comparisons'. */
#define TR_W 420.0
#define TR_H 220.0
#define TR_L 64.0
#define TR_R 16.0
#define TR_T 16.0
#define TR_B 40.0

static double trend_value(const struct report_compare_view *v, int j, size_t i)
{
	const struct analyze_figure *f =
		analyze_judged_figure(&v->pairs[i ? i - 1 : 0].scopes[0], (enum analyze_judged)j);

	return i ? f->b : f->a;
}

static void cmp_trend_chart(struct strbuf *sb, const struct report_compare_view *v, int j)
{
	size_t n = v->nr_pairs + 1, pts = 0;
	double lo = INFINITY, hi = -INFINITY, y, x;
	const char *key = analyze_judged_def(j)->key;

	for (size_t i = 0; i < n; i++) {
		y = trend_value(v, j, i);
		if (isfinite(y)) {
			lo = fmin(lo, y);
			hi = fmax(hi, y);
			pts++;
		}
	}
	if (pts && hi - lo < 1e-9 * fmax(1, fabs(hi))) { /* flat: give it some height */
		lo -= fmax(1e-3, fabs(lo) * 0.05);
		hi += fmax(1e-3, fabs(hi) * 0.05);
	}
	if (pts)
		lo = fmin(lo, 0) < 0 ? lo : fmin(lo, 0.0);
	strbuf_addf(sb,
		    "<figure class=\"chart\" id=\"chart-trend-%s\"><figcaption>%s across the runs"
		    "</figcaption>\n<svg viewBox=\"0 0 %.0f %.0f\" role=\"img\">\n",
		    key, analyze_judged_def(j)->words, TR_W, TR_H);
	strbuf_addf(sb, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\"/>\n",
		    TR_L, TR_H - TR_B, TR_W - TR_R, TR_H - TR_B);
	strbuf_addf(sb, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\"/>\n",
		    TR_L, TR_T, TR_L, TR_H - TR_B);
	if (pts) {
		strbuf_addf(sb, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.4g</text>\n",
			    TR_L - 6, TR_T + 4, hi);
		strbuf_addf(sb, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.4g</text>\n",
			    TR_L - 6, TR_H - TR_B + 4, lo);
	}
	strbuf_addf(sb,
		    "<polyline class=\"series\" data-points=\"%zu\" data-name=\"%s\" "
		    "fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"",
		    pts, key, COLOR_B);
	for (size_t i = 0; i < n; i++) {
		y = trend_value(v, j, i);
		if (!isfinite(y))
			continue;
		x = TR_L + (TR_W - TR_L - TR_R) * ((double)i + 0.5) / (double)n;
		strbuf_addf(sb, "%s%.1f,%.1f", i ? " " : "", x,
			    TR_H - TR_B - (TR_H - TR_B - TR_T) * (y - lo) / (hi - lo));
	}
	strbuf_addstr(sb, "\"/>\n");
	for (size_t i = 0; i < n; i++) {
		const struct analyze_figure *f =
			i ? analyze_judged_figure(&v->pairs[i - 1].scopes[0], j) : NULL;
		const struct results *r = i ? v->pairs[i - 1].b : v->pairs[0].a;

		x = TR_L + (TR_W - TR_L - TR_R) * ((double)i + 0.5) / (double)n;
		strbuf_addf(sb,
			    "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">run %" PRId64
			    "</text>\n",
			    x, TR_H - TR_B + 16, r->id);
		y = trend_value(v, j, i);
		if (!isfinite(y))
			continue;
		strbuf_addf(sb,
			    "<circle class=\"point\" data-run=\"%" PRId64
			    "\" data-significant=\"%d\" "
			    "cx=\"%.1f\" cy=\"%.1f\" r=\"4\" stroke=\"%s\" fill=\"%s\"><title>",
			    r->id, f && f->significant, x,
			    TR_H - TR_B - (TR_H - TR_B - TR_T) * (y - lo) / (hi - lo), COLOR_B,
			    f && f->significant ? COLOR_B : "#fff");
		strbuf_addf(sb, "run %" PRId64 ": %.4g", r->id, y);
		if (f && isfinite(f->change_pct))
			strbuf_addf(sb, " (%+.1f %%%s)", f->change_pct,
				    f->significant ? ", significant" : "");
		strbuf_addstr(sb, "</title></circle>\n");
	}
	strbuf_addstr(sb, "</svg></figure>\n");
}

/* Several runs: the judged figures of the whole run across them, a table and
 * a chart each. */
static void cmp_trend(struct strbuf *sb, const struct report_compare_view *v)
{
	html_section_open(sb, "trend", "Trend", false);
	strbuf_addf(sb,
		    "<p class=\"note\">Each run against the baseline, run %" PRId64
		    "; a filled marker is a significant change.</p>\n<table>\n<tr><th>figure"
		    "</th><th class=\"num\">run %" PRId64 " (baseline)</th>",
		    v->pairs[0].a->id, v->pairs[0].a->id);
	for (size_t i = 0; i < v->nr_pairs; i++)
		strbuf_addf(sb,
			    "<th class=\"num\">run %" PRId64 "</th><th class=\"num\">change</th>",
			    v->pairs[i].b->id);
	strbuf_addstr(sb, "</tr>\n");
	for (int j = 0; j < ANALYZE_JUDGED_COUNT; j++) {
		int dec = j == ANALYZE_J_TRANS_IOPS ? 1 : 3;

		strbuf_addf(sb, "<tr class=\"trend\"><td>%s</td>", analyze_judged_def(j)->words);
		html_td_num(sb, trend_value(v, j, 0), dec);
		for (size_t i = 0; i < v->nr_pairs; i++) {
			const struct analyze_figure *f =
				analyze_judged_figure(&v->pairs[i].scopes[0], j);

			html_td_num(sb, f->b, dec);
			strbuf_addstr(sb, "<td class=\"num\">");
			if (isfinite(f->change_pct)) /* no "-0.0 %" */
				strbuf_addf(sb, "%+.1f %%%s",
					    fabs(f->change_pct) < 0.05 ? 0.0 : f->change_pct,
					    f->significant ? " <b>*</b>" : "");
			else
				strbuf_addstr(sb, "n/a");
			strbuf_addstr(sb, "</td>");
		}
		strbuf_addstr(sb, "</tr>\n");
	}
	strbuf_addstr(sb, "</table>\n<div class=\"charts2\">\n");
	for (int j = 0; j < ANALYZE_JUDGED_COUNT; j++)
		cmp_trend_chart(sb, v, j);
	strbuf_addstr(sb, "</div>\n</section>\n");
}

static void cmp_page_head(struct strbuf *sb, const struct report_compare_view *v,
			  const char *const (*items)[2], size_t n, const char *const *skip,
			  size_t nskip)
{
	const struct analyze_comparison *c = &v->pairs[0];

	html_page_head(sb, "diskproof compare: run", c->a->id, NULL);
	if (v->nr_pairs == 1)
		strbuf_addf(sb,
			    "<header class=\"page\"><h1>diskproof compare: run %" PRId64
			    " (A) vs run %" PRId64 " (B)</h1>\n<div class=\"sub\">test: ",
			    c->a->id, c->b->id);
	else
		strbuf_addf(sb,
			    "<header class=\"page\"><h1>diskproof compare: %zu runs against run "
			    "%" PRId64 " (the baseline)</h1>\n<div class=\"sub\">test: ",
			    v->nr_pairs + 1, c->a->id);
	html_esc(sb, c->test);
	strbuf_addf(sb,
		    " &middot; dispersion: %s &middot; alpha %g, Holm-corrected per scope (%zu "
		    "figures)</div>\n",
		    ANALYZE_DISPERSION_TEST_NAME, c->alpha, c->family);
	html_nav(sb, items, n, skip, nskip);
	strbuf_addstr(sb, "</header>\n");
	if (v->mixed) {
		strbuf_addstr(sb, "<p class=\"note FAIL\">");
		html_esc(sb, v->mixed);
		strbuf_addstr(sb, "</p>\n");
	}
}

/* Several runs: the runs, the trend, the gate, then each comparison's
 * listed changes, verdict changes and environment differences. */
static void report_compare_html_multi(struct strbuf *sb, const struct report_compare_view *v)
{
	static const char *const items[][2] = {{"summary", "Summary"},
					       {"trend", "Trend"},
					       {"gate", "Regression gate"},
					       {"pairs", "Comparisons"}};
	char id[40];

	const char *const skip[] = {v->gate ? NULL : "gate"};

	cmp_page_head(sb, v, items, DP_ARRAY_SIZE(items), skip, 1);
	html_section_open(sb, "summary", "Summary", true);
	strbuf_addstr(sb, "<table>\n<tr><th></th><th>run</th><th>label</th><th>host</th>"
			  "<th>started (UTC)</th><th>profile</th><th>engine</th><th>verdict</th>"
			  "</tr>\n");
	cmp_run_row(sb, "A", v->pairs[0].a);
	for (size_t i = 0; i < v->nr_pairs; i++) {
		snprintf(id, sizeof(id), "B%zu", i + 1);
		cmp_run_row(sb, id, v->pairs[i].b);
	}
	strbuf_addstr(sb, "</table>\n<p class=\"note\">Every later run is compared against the "
			  "baseline A (docs/compare.md).</p>\n</section>\n");
	cmp_trend(sb, v);
	if (v->gate)
		cmp_gate(sb, v);
	html_section_open(sb, "pairs", "Comparisons", false);
	strbuf_addstr(sb, "</section>\n");
	for (size_t i = 0; i < v->nr_pairs; i++) {
		if (v->reps) {
			snprintf(id, sizeof(id), "replicates-%zu", i + 1);
			cmp_replicates(sb, v, i, id);
		}
		snprintf(id, sizeof(id), "significant-%zu", i + 1);
		cmp_significant(sb, &v->pairs[i], v->all, id);
		strbuf_addf(sb,
			    "<p class=\"note\">above: run %" PRId64 " against run %" PRId64
			    "</p>\n",
			    v->pairs[i].b->id, v->pairs[i].a->id);
	}
	html_page_foot(sb);
}

void report_compare_html(struct strbuf *sb, const struct report_compare_view *v,
			 const struct report_options *opt)
{
	const struct analyze_comparison *c = &v->pairs[0];
	bool tuned = results_autotune_ran(c->a) || results_autotune_ran(c->b);
	const char *skip[3];
	size_t nskip = 0;

	(void)opt;
	if (v->nr_pairs > 1) {
		report_compare_html_multi(sb, v);
		return;
	}
	if (!tuned)
		skip[nskip++] = "autotune";
	if (!v->gate)
		skip[nskip++] = "gate";
	if (!v->reps)
		skip[nskip++] = "replicates";
	cmp_page_head(sb, v, cmp_sections, DP_ARRAY_SIZE(cmp_sections), skip, nskip);
	html_section_open(sb, "summary", "Summary", true);
	strbuf_addstr(sb, "<table>\n<tr><th></th><th>run</th><th>label</th><th>host</th>"
			  "<th>started (UTC)</th><th>profile</th><th>engine</th><th>verdict</th>"
			  "</tr>\n");
	cmp_run_row(sb, "A", c->a);
	cmp_run_row(sb, "B", c->b);
	strbuf_addstr(sb, "</table>\n<p class=\"note\">change = (B &minus; A) / A. A figure is "
			  "significant only when the per-interval series say so; p values are "
			  "optimistic because successive intervals are correlated "
			  "(docs/compare.md).</p>\n</section>\n");
	if (v->reps)
		cmp_replicates(sb, v, 0, "replicates");
	cmp_significant(sb, c, v->all, "significant");
	cmp_charts(sb, c);
	if (tuned)
		cmp_autotune(sb, c);
	if (v->gate)
		cmp_gate(sb, v);
	cmp_verdict_changes(sb, c);
	report_html_param_diffs(sb, c->param_diffs, c->nr_param_diffs);
	cmp_env(sb, c);
	cmp_host(sb, c);
	cmp_figures(sb, c);
	html_page_foot(sb);
}
