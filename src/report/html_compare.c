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
	{"summary", "Summary"},	      {"significant", "Significant changes"},
	{"charts", "Charts"},	      {"verdict-changes", "Verdict changes"},
	{"env-diffs", "Environment"}, {"host", "Host performance"},
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
	strbuf_addf(sb, "%s ", scope_kind_name(s->scope));
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
	strbuf_addf(sb, "<td>%s</td><td>%s</td>", io_class_name(c), report_metric_words[m]);
	html_td_num(sb, f->a, dec);
	html_td_num(sb, f->b, dec);
	strbuf_addstr(sb, "<td class=\"num\">");
	if (isfinite(f->change_pct))
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

static void cmp_significant(struct strbuf *sb, const struct analyze_comparison *c)
{
	size_t i, rows = 0;
	int k, m;

	html_section_open(sb, "significant", "Significant changes", false);
	strbuf_addf(sb, "<table>\n<tr><th>scope</th>%s", cmp_fig_head);
	for (i = 0; i < c->nr_scopes; i++)
		for (k = 0; k < IO_CLASS_COUNT; k++)
			for (m = 0; m < ANALYZE_METRIC_COUNT; m++)
				if (c->scopes[i].classes[k].fig[m].significant) {
					cmp_figure_row(sb, &c->scopes[i], k, m, true);
					rows++;
				}
	strbuf_addstr(sb, "</table>\n");
	if (!rows)
		strbuf_addstr(sb, "<p>No figure changed significantly.</p>\n");
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
		snprintf(id, sizeof(id), "chart-lat-%s", io_class_name(k));
		snprintf(title, sizeof(title), "%s average latency over time", io_class_name(k));
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
		snprintf(id, sizeof(id), "chart-cdf-%s", io_class_name(k));
		snprintf(title, sizeof(title), "%s latency CDF", io_class_name(k));
		s[0].src = s[1].src = HTML_SRC_CDF;
		s[0].cls = s[1].cls = (enum io_class)k;
		ch = (struct html_chart){.id = id,
					 .title = title,
					 .x_label = "latency (ms)",
					 .y_label = "share of I/Os at or below",
					 .series = s,
					 .nr_series = 2,
					 .y_percent = true,
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
			    scope_kind_name(v->scope));
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
		strbuf_addf(sb, "<p class=\"note\">%s ", scope_kind_name(c->unmatched[i].scope));
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
	if (isfinite(p->change_pct))
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
			  "coefficient of variation (cv) of the per-interval average latency. A "
			  "class neither run issued in a scope is left out.</p>\n");
	for (i = 0; i < c->nr_scopes; i++) {
		s = &c->scopes[i];
		strbuf_addstr(sb, "<h3>");
		cmp_scope_name(sb, s);
		strbuf_addf(sb, "</h3>\n<table>\n<tr>%s", cmp_fig_head);
		for (cl = 0; cl < IO_CLASS_COUNT; cl++)
			for (m = 0; m < ANALYZE_METRIC_COUNT && s->classes[cl].present; m++)
				cmp_figure_row(sb, s, cl, m, false);
		strbuf_addstr(sb, "</table>\n<table>\n<tr><th>class</th><th class=\"num\">sd ms A"
				  "</th><th class=\"num\">sd ms B</th><th class=\"num\">cv A</th>"
				  "<th class=\"num\">cv B</th></tr>\n");
		for (cl = 0; cl < IO_CLASS_COUNT; cl++) {
			k = &s->classes[cl];
			if (!k->present)
				continue;
			strbuf_addf(sb, "<tr><td>%s</td>", io_class_name(cl));
			html_td_num(sb, k->sd_ms_a, 3);
			html_td_num(sb, k->sd_ms_b, 3);
			html_td_num(sb, k->cv_a, 3);
			html_td_num(sb, k->cv_b, 3);
			strbuf_addstr(sb, "</tr>\n");
		}
		strbuf_addstr(sb, "</table>\n");
	}
	strbuf_addstr(sb, "</section>\n");
}

void report_compare_html(struct strbuf *sb, const struct analyze_comparison *c,
			 const struct report_options *opt)
{
	html_page_head(sb, "diskproof compare: run", c->a->id, NULL);
	strbuf_addf(sb,
		    "<header class=\"page\"><h1>diskproof compare: run %" PRId64 " (A) vs run "
		    "%" PRId64 " (B)</h1>\n<div class=\"sub\">test: ",
		    c->a->id, c->b->id);
	html_esc(sb, c->test);
	strbuf_addf(sb, " &middot; alpha %g, Holm-corrected per scope (%zu figures)</div>\n",
		    c->alpha, c->family);
	html_nav(sb, cmp_sections, DP_ARRAY_SIZE(cmp_sections), NULL, 0);
	strbuf_addstr(sb, "</header>\n");
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
	cmp_significant(sb, c);
	cmp_charts(sb, c);
	cmp_verdict_changes(sb, c);
	cmp_env(sb, c);
	cmp_host(sb, c);
	cmp_figures(sb, c);
	html_page_foot(sb);
}
