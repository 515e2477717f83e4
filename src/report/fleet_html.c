/* SPDX-License-Identifier: MIT */
/*
 * fleet_html.c - the fleet report as one self-contained HTML page
 * (report.h): the fleet at a glance, a row per run, the runs that differ,
 * a bar chart per figure across the runs, each run's per-interval database
 * read latency and transactional IOPS as lines on shared axes, and the
 * fleet totals from the merged histograms. Charts are html_chart.c's; every
 * string from the results is escaped.
 */
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"

/* a run's colour: ten distinct hues, then again dashed (fleet_series) */
static const char *const fleet_colors[] = {
	"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
	"#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
};

#define NCOLORS DP_ARRAY_SIZE(fleet_colors)

static const char *const fleet_sections[][2] = {
	{"summary", "Summary"}, {"hosts", "Runs"},	{"differs", "Differences"},
	{"bars", "Per run"},	{"lines", "Over time"}, {"totals", "Fleet totals"},
};

/* "host (run N)", the label of run h's bar and line */
static char *host_label(const struct report_fleet_host *h)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "%s (run %" PRId64 ")", report_str_or(h->r->host, "-"), h->r->id);
	return strbuf_detach(&sb, NULL);
}

static void fleet_failed_list(struct strbuf *sb, const struct report_fleet *f);

static void fleet_summary_section(struct strbuf *sb, const struct report_fleet *f)
{
	size_t differ = 0;

	for (size_t i = 0; i < f->nr_hosts; i++)
		differ += f->hosts[i].differs;
	html_section_open(sb, "summary", "Summary", true);
	strbuf_addstr(sb, "<table>\n<tr><th>fleet verdict</th><td id=\"fleet-verdict\">");
	html_verdict_badge(sb, f->passed ? "PASS" : "FAIL", false);
	strbuf_addstr(sb, "</td></tr>\n</table>\n");
	fleet_failed_list(sb, f);
	strbuf_addstr(sb, "<table>\n<tr><th>selector</th><td>");
	for (size_t i = 0; i < f->nr_selectors; i++) {
		if (i)
			strbuf_addch(sb, ' ');
		html_esc(sb, f->selectors[i]);
	}
	strbuf_addf(
		sb,
		"</td></tr>\n<tr><th>runs</th><td class=\"num\" id=\"nr-runs\">%zu</td></tr>\n"
		"<tr><th>host names</th><td class=\"num\">%zu</td></tr>\n"
		"<tr><th>failed</th><td class=\"num\">%zu</td></tr>\n"
		"<tr><th>error or aborted (no verdict)</th><td class=\"num\" "
		"id=\"nr-unjudged\">%zu</td></tr>\n"
		"<tr><th>expected hosts missing</th><td class=\"num\" "
		"id=\"nr-missing\">%zu</td></tr>\n"
		"<tr><th>late (load %.0f ms or more after its start time)</th><td class=\"num\" "
		"id=\"nr-late\">%zu</td></tr>\n"
		"<tr><th>differ from the rest</th><td class=\"num\">%zu</td></tr>\n"
		"<tr><th>start skew (ms)</th>",
		f->nr_hosts, f->nr_host_names, f->nr_failed, f->nr_unjudged, f->nr_missing,
		REPORT_FLEET_LATE_MS, f->nr_late, differ);
	html_td_num(sb, f->has_skew ? f->start_skew_ms : NAN, 3);
	strbuf_addstr(sb, "</tr>\n<tr><th>clocks' largest max error (ms)</th>");
	html_td_num(sb, f->clock_max_error_ms, 3);
	strbuf_addf(sb,
		    "</tr>\n<tr><th>I/Os in all</th><td class=\"num\">%" PRIu64
		    "</td></tr>\n</table>\n",
		    f->ios);
	if (f->nr_hosts < 2)
		strbuf_addstr(sb, "<p class=\"note\">Fewer than 2 runs: nothing to compare them "
				  "with.</p>\n");
	if (f->unlike.len) { /* profile names are the user's text */
		strbuf_addstr(sb, "<p class=\"note\" id=\"unlike\">Warning: ");
		html_esc(sb, f->unlike.buf);
		strbuf_addstr(sb, ".</p>\n");
	}
	if (f->nr_no_load)
		strbuf_addf(sb,
			    "<p class=\"note\">%zu run(s) recorded no load start; the skew is "
			    "over the others.</p>\n",
			    f->nr_no_load);
	for (size_t i = 0; i < f->nr_skipped; i++)
		strbuf_addf(sb, "<p class=\"note\">Run %" PRId64 " skipped: %s.</p>\n",
			    f->skipped[i].id, f->skipped[i].why);
	strbuf_addstr(sb, "</section>\n");
}

/* The runs' table's head: the engine column when a run is simulated, the
 * response time's when a run has one (open loop). */
static void fleet_hosts_head(struct strbuf *sb, bool sim, bool resp)
{
	strbuf_addf(sb,
		    "<table>\n<tr><th>host</th><th>run</th>%s<th>verdict</th>"
		    "<th>transactional IOPS</th><th>db read avg ms</th><th>db read p99 ms</th>"
		    "<th>db read slowest ms</th>%s<th>log write avg ms</th><th>I/Os</th>"
		    "<th>load start offset ms</th><th>late ms</th><th>clock</th><th>differs</th>"
		    "</tr>\n",
		    sim ? "<th>engine</th>" : "", resp ? "<th>db read response avg ms</th>" : "");
}

static void fleet_hosts_section(struct strbuf *sb, const struct report_fleet *f)
{
	bool sim = false, resp = false;

	for (size_t i = 0; i < f->nr_hosts; i++) {
		sim |= f->hosts[i].simulated;
		resp |= isfinite(f->hosts[i].db_read_resp_avg_ms);
	}
	html_section_open(sb, "hosts", "Runs", false);
	fleet_hosts_head(sb, sim, resp);
	for (size_t i = 0; i < f->nr_hosts; i++) {
		const struct report_fleet_host *h = &f->hosts[i];

		strbuf_addf(sb,
			    "<tr class=\"host\" data-run=\"%" PRId64 "\" data-differs=\"%d\"><td>",
			    h->r->id, h->differs ? 1 : 0);
		html_esc(sb, report_str_or(h->r->host, "-"));
		strbuf_addf(sb, "</td><td class=\"num\">%" PRId64 "</td>", h->r->id);
		if (sim && h->simulated)
			strbuf_addstr(sb, "<td class=\"engine sim\">sim (simulated: no device "
					  "measured)</td>");
		else if (sim) {
			strbuf_addstr(sb, "<td class=\"engine\">");
			html_esc(sb, report_str_or(h->r->engine, "-"));
			strbuf_addstr(sb, "</td>");
		}
		strbuf_addstr(sb, "<td>");
		html_verdict_badge(sb, h->r->verdict, false);
		strbuf_addstr(sb, "</td>");
		html_td_num(sb, h->trans_iops, 1);
		html_td_num(sb, h->db_read_avg_ms, 3);
		html_td_num(sb, h->db_read_p99_ms, 3);
		html_td_num(sb, h->db_read_max_ms, 3);
		if (resp)
			html_td_num(sb, h->db_read_resp_avg_ms, 3);
		html_td_num(sb, h->log_write_avg_ms, 3);
		strbuf_addf(sb, "<td class=\"num\">%" PRIu64 "</td>", h->ios);
		html_td_num(sb, h->start_offset_ms, 3);
		if (h->late)
			strbuf_addf(sb, "<td class=\"num late\"><b>%.3f</b></td>", h->late_ms);
		else
			html_td_num(sb, h->late_ms, 3);
		/* the offset is as this host's clock read it */
		strbuf_addstr(sb, "<td>");
		if (h->clock_warning)
			html_esc(sb, h->clock_warning);
		else if (h->clock_synchronised && !strcmp(h->clock_synchronised, "yes"))
			strbuf_addstr(sb, "synchronised");
		else if (h->clock_synchronised && !strcmp(h->clock_synchronised, "no"))
			strbuf_addstr(sb, "not synchronised");
		else
			strbuf_addstr(sb, "&ndash;");
		strbuf_addf(sb, "</td><td>%s</td></tr>\n",
			    h->differs ? "<b>differs</b>" : "&ndash;");
	}
	for (size_t i = 0; i < f->nr_missing; i++) {
		strbuf_addstr(sb, "<tr class=\"missing\" data-host=\"");
		html_esc(sb, f->missing[i]);
		strbuf_addstr(sb, "\"><td>");
		html_esc(sb, f->missing[i]);
		strbuf_addstr(sb,
			      "</td><td>&ndash;</td><td><span class=\"badge FAIL\">MISSING</span>"
			      "</td><td colspan=\"10\">expected, no run</td></tr>\n");
	}
	strbuf_addstr(sb, "</table>\n</section>\n");
}

static void fleet_differs_section(struct strbuf *sb, const struct report_fleet *f)
{
	size_t n = 0;

	html_section_open(sb, "differs", "Differences", false);
	strbuf_addstr(sb, "<p class=\"note\">Each run's per-interval series against those of every "
			  "other run pooled (" ANALYZE_TEST_NAME ", Holm-corrected over the run's "
			  "figures); a figure differs when significant and at least 2 % away from "
			  "the median of every run's own figure.</p>\n");
	strbuf_addstr(sb, "<table>\n<tr><th>host</th><th>run</th><th>figure</th><th>run's</th>"
			  "<th>fleet median</th><th>change %</th><th>p</th></tr>\n");
	for (size_t i = 0; i < f->nr_hosts; i++) {
		const struct report_fleet_host *h = &f->hosts[i];

		for (int g = 0; g < REPORT_FLEET_FIG_COUNT; g++) {
			const struct report_fleet_diff *d = &h->diff[g];

			if (!d->differs)
				continue;
			n++;
			strbuf_addf(sb, "<tr class=\"differs\" data-run=\"%" PRId64 "\"><td>",
				    h->r->id);
			html_esc(sb, report_str_or(h->r->host, "-"));
			strbuf_addf(sb, "</td><td class=\"num\">%" PRId64 "</td><td>%s</td>",
				    h->r->id, report_fleet_fig_words(g));
			html_td_num(sb, d->value, 3);
			html_td_num(sb, d->median, 3);
			html_td_num(sb, d->change_pct, 1);
			strbuf_addf(sb, "<td class=\"num\">%.2g</td></tr>\n", d->p_value);
		}
	}
	strbuf_addstr(sb, "</table>\n");
	/* a separate finding from the verdict: while a host fails, never "no
	 * run differs" (report_fleet_finding) */
	if (report_fleet_finding(f))
		strbuf_addf(sb, "<p id=\"finding\">%c%s.</p>\n",
			    report_fleet_finding(f)[0] - 'a' + 'A', report_fleet_finding(f) + 1);
	strbuf_addstr(sb, "</section>\n");
}

/*
 * A failing run's databases, each with its volume (and device), its verdict
 * and its main figures: the per-database verdicts on screen and on paper
 * (the failing ones first, then the rest, in the run's order).
 */
static void fleet_failed_databases(struct strbuf *sb, const struct results *r)
{
	strbuf_addf(sb,
		    "<table class=\"failed-dbs\" data-run=\"%" PRId64 "\">\n<tr><th>database</th>"
		    "<th>volume</th><th>device</th><th>verdict</th><th>db read avg ms</th>"
		    "<th>db read slowest ms</th><th>log write avg ms</th></tr>\n",
		    r->id);
	for (int failing = 1; failing >= 0; failing--)
		for (size_t d = 0; d < r->nr_databases; d++) {
			const struct scope_summary *db = &r->databases[d];
			const struct class_summary *rd = &db->classes[IO_DB_READ];
			const struct class_summary *lw = &db->classes[IO_LOG_WRITE];
			const char *v =
				report_scope_verdict(r, SCOPE_DATABASE, db->name, db->volume);
			const char *dev = report_volume_device(r, db->volume);

			if ((strcmp(v, "FAIL") == 0) != (failing == 1))
				continue;
			strbuf_addf(sb, "<tr%s><td>", failing ? " class=\"fail\"" : "");
			html_esc(sb, db->name);
			strbuf_addstr(sb, "</td><td>");
			html_esc(sb, db->volume);
			strbuf_addstr(sb, "</td><td>");
			html_esc(sb, dev ? dev : "-");
			strbuf_addstr(sb, "</td><td>");
			html_verdict_badge(sb, v, false);
			strbuf_addstr(sb, "</td>");
			html_td_num(sb, rd->ios ? rd->avg_ms : NAN, 3);
			html_td_num(sb, rd->ios ? rd->max_ms : NAN, 3);
			html_td_num(sb, lw->ios ? lw->avg_ms : NAN, 3);
			strbuf_addstr(sb, "</tr>\n");
		}
	strbuf_addstr(sb, "</table>\n");
}

/* Every run that fails the fleet: host, failed volumes (device) and
 * databases, and why (why.c), right under the verdict; then its
 * databases' verdicts (fleet_failed_databases). */
static void fleet_failed_list(struct strbuf *sb, const struct report_fleet *f)
{
	struct strbuf w = STRBUF_INIT;
	size_t n = 0;

	for (size_t i = 0; i < f->nr_hosts; i++) {
		const struct results *r = f->hosts[i].r;

		if (!report_fleet_host_failed(&f->hosts[i]))
			continue;
		if (!n++)
			strbuf_addstr(sb, "<ul id=\"failed-hosts\">\n");
		strbuf_addf(sb, "<li class=\"failed-host\" data-run=\"%" PRId64 "\"><b>", r->id);
		html_esc(sb, report_str_or(r->host, "-"));
		strbuf_addf(sb, "</b> (run %" PRId64 ") ", r->id);
		html_verdict_badge(sb, r->verdict, false);
		for (size_t v = 0; v < r->nr_volumes; v++) {
			const char *vol = r->volumes[v].name, *dev = report_volume_device(r, vol);
			bool first = true;

			if (strcmp(report_scope_verdict(r, SCOPE_VOLUME, vol, NULL), "FAIL"))
				continue;
			strbuf_addstr(sb, " volume <b class=\"failed-volume\">");
			html_esc(sb, vol);
			strbuf_addstr(sb, "</b>");
			if (dev) {
				strbuf_addstr(sb, " (");
				html_esc(sb, dev);
				strbuf_addch(sb, ')');
			}
			for (size_t d = 0; d < r->nr_databases; d++) {
				const char *db = r->databases[d].name;

				if (strcmp(r->databases[d].volume, vol) ||
				    strcmp(report_scope_verdict(r, SCOPE_DATABASE, db, vol),
					   "FAIL"))
					continue;
				strbuf_addstr(sb, first ? ", databases " : ", ");
				html_esc(sb, db);
				first = false;
			}
			strbuf_addch(sb, ';');
		}
		strbuf_reset(&w);
		if (report_why_run(&w, r)) {
			strbuf_addstr(sb, "<br><span class=\"why\">");
			html_esc(sb, w.buf);
			strbuf_addstr(sb, "</span>");
		}
		if (r->nr_databases)
			fleet_failed_databases(sb, r);
		strbuf_addstr(sb, "</li>\n");
	}
	if (n)
		strbuf_addstr(sb, "</ul>\n");
	strbuf_release(&w);
}

/* what a bar chart of the runs shows */
static const struct {
	const char *id, *title, *unit;
	int decimals;
	size_t off; /* of the figure in struct report_fleet_host */
	int fig;    /* its enum report_fleet_fig, -1: not tested */
} fleet_bars[] = {
	{"bars-trans-iops", "Transactional IOPS per run", "IOPS", 1,
	 offsetof(struct report_fleet_host, trans_iops), REPORT_FLEET_TRANS_IOPS},
	{"bars-db-read-avg", "Database read average (ms) per run", "ms", 3,
	 offsetof(struct report_fleet_host, db_read_avg_ms), REPORT_FLEET_DB_READ_AVG},
	{"bars-db-read-p99", "Database read p99 (ms) per run", "ms", 3,
	 offsetof(struct report_fleet_host, db_read_p99_ms), -1},
	{"bars-log-write-avg", "Log write average (ms) per run", "ms", 3,
	 offsetof(struct report_fleet_host, log_write_avg_ms), REPORT_FLEET_LOG_WRITE_AVG},
};

static void fleet_bars_section(struct strbuf *sb, const struct report_fleet *f, char **labels)
{
	size_t n = f->nr_hosts ? f->nr_hosts : 1;
	double *v = calloc(n, sizeof(*v));
	bool *marks = calloc(n, sizeof(*marks));
	const char **colors = calloc(n, sizeof(*colors));

	html_section_open(sb, "bars", "Per run", false);
	strbuf_addstr(sb, "<p class=\"note\">Red: the run differs from the rest in that figure "
			  "(p99, not tested itself: in any).</p>\n");
	for (size_t k = 0; v && marks && colors && k < DP_ARRAY_SIZE(fleet_bars); k++) {
		struct html_bars b = {.id = fleet_bars[k].id,
				      .title = fleet_bars[k].title,
				      .x_label = fleet_bars[k].title,
				      .series_name = "runs",
				      .unit = fleet_bars[k].unit,
				      .decimals = fleet_bars[k].decimals,
				      .names = (const char *const *)labels,
				      .colors = colors,
				      .marks = marks,
				      .values = v,
				      .nr = f->nr_hosts};

		for (size_t i = 0; i < f->nr_hosts; i++) {
			v[i] = *(const double *)((const char *)&f->hosts[i] + fleet_bars[k].off);
			marks[i] = fleet_bars[k].fig < 0
					   ? f->hosts[i].differs
					   : f->hosts[i].diff[fleet_bars[k].fig].differs;
			colors[i] = marks[i] ? "#d62728" : "#3b82c4";
		}
		html_chart_bars(sb, &b);
	}
	strbuf_addstr(sb, "</section>\n");
	free(v);
	free(marks);
	free(colors);
}

static void fleet_lines_section(struct strbuf *sb, const struct report_fleet *f, char **labels)
{
	struct html_series *s = calloc(f->nr_hosts ? f->nr_hosts : 1, sizeof(*s));
	struct html_chart ch;

	html_section_open(sb, "lines", "Over time", false);
	strbuf_addstr(sb, "<p class=\"note\">Each run on the same axes from the end of its "
			  "warm-up: a line per run.</p>\n");
	if (!s) {
		strbuf_addstr(sb, "</section>\n");
		return;
	}
	for (size_t i = 0; i < f->nr_hosts; i++)
		s[i] = (struct html_series){.r = f->hosts[i].r,
					    .src = HTML_SRC_AVG_MS,
					    .scope = SCOPE_RUN,
					    .name = "run",
					    .classes = 1u << IO_DB_READ,
					    .measured = true,
					    .label = labels[i],
					    .color = fleet_colors[i % NCOLORS],
					    .dashed = (i / NCOLORS) % 2 == 1};
	ch = (struct html_chart){.id = "chart-db-read-avg",
				 .title = "Database read average latency over time, per run",
				 .x_label = "seconds since the end of warm-up",
				 .y_label = "ms",
				 .series = s,
				 .nr_series = f->nr_hosts,
				 .svg_class = "fleet-lines"};
	html_chart_line(sb, &ch);
	for (size_t i = 0; i < f->nr_hosts; i++) {
		s[i].src = HTML_SRC_IOPS;
		s[i].classes = HTML_TRANSACTIONAL;
	}
	ch.id = "chart-trans-iops";
	ch.title = "Transactional IOPS over time, per run";
	ch.y_label = "IOPS";
	html_chart_line(sb, &ch);
	strbuf_addstr(sb, "</section>\n");
	free(s);
}

static void fleet_totals_section(struct strbuf *sb, const struct report_fleet *f)
{
	html_section_open(sb, "totals", "Fleet totals", false);
	strbuf_addstr(sb, "<p class=\"note\">Counts and rates added over the runs; percentiles "
			  "from their whole-run histograms merged bucket by bucket (exact to the "
			  "histogram's 1/128), never averaged.</p>\n");
	strbuf_addstr(sb, "<table>\n<tr><th>class</th><th>I/Os</th><th>IOPS</th><th>MB/s</th>"
			  "<th>avg ms</th><th>p50 ms</th><th>p99 ms</th><th>p99.9 ms</th>"
			  "<th>p99.99 ms</th><th>slowest I/O ms</th><th>errors</th></tr>\n");
	for (int c = 0; c < IO_CLASS_COUNT; c++) {
		const struct class_summary *cs = &f->summary.classes[c];

		if (!results_class_present(cs))
			continue;
		strbuf_addf(sb,
			    "<tr class=\"total\" data-class=\"%s\"><td>%s</td>"
			    "<td class=\"num\">%" PRIu64 "</td>",
			    stats_io_class_name(c), stats_io_class_name(c), cs->ios);
		html_td_num(sb, cs->iops, 1);
		html_td_num(sb, cs->mbps, 2);
		html_td_num(sb, cs->ios ? cs->avg_ms : NAN, 3);
		html_td_num(sb, cs->ios ? cs->p50_ms : NAN, 3);
		html_td_num(sb, cs->ios ? cs->p99_ms : NAN, 3);
		html_td_num(sb, cs->ios ? cs->p999_ms : NAN, 3);
		html_td_num(sb, cs->ios ? cs->p9999_ms : NAN, 3);
		html_td_num(sb, cs->ios ? cs->max_ms : NAN, 3);
		strbuf_addf(sb, "<td class=\"num\">%" PRIu64 "</td></tr>\n", cs->errors);
	}
	strbuf_addstr(sb, "</table>\n</section>\n");
}

/* Whether run i's field (host or label) was seen in an earlier run. */
static bool seen_before(const struct report_fleet *f, size_t i, bool label)
{
	const char *v = label ? f->hosts[i].r->label : f->hosts[i].r->host;

	for (size_t k = 0; k < i; k++) {
		const char *w = label ? f->hosts[k].r->label : f->hosts[k].r->host;

		if (v && w && !strcmp(v, w))
			return true;
	}
	return false;
}

/* "a, b, c" of the runs' distinct hosts (or labels), the first FLEET_NAMED
 * of them, then "and N more"; nothing when none has one. */
#define FLEET_NAMED 6
static void distinct_names(struct strbuf *out, const struct report_fleet *f, bool label)
{
	size_t n = 0, more = 0;

	for (size_t i = 0; i < f->nr_hosts; i++) {
		const char *v = label ? f->hosts[i].r->label : f->hosts[i].r->host;

		if (!v || !*v || seen_before(f, i, label))
			continue;
		if (n++ >= FLEET_NAMED) {
			more++;
			continue;
		}
		strbuf_addf(out, "%s%s", n > 1 ? ", " : "", v);
	}
	if (more)
		strbuf_addf(out, " and %zu more", more);
}

/* The page's title and heading: "diskproof fleet: 4 runs on 4 hosts, FAIL",
 * then the hosts, the runs' labels and the selectors. */
static void fleet_page_head(struct strbuf *sb, const struct report_fleet *f)
{
	struct strbuf t = STRBUF_INIT, hosts = STRBUF_INIT, labels = STRBUF_INIT;

	distinct_names(&hosts, f, false);
	distinct_names(&labels, f, true);
	strbuf_addf(&t, "diskproof fleet: %zu run%s on %zu host%s", f->nr_hosts,
		    f->nr_hosts == 1 ? "" : "s", f->nr_host_names,
		    f->nr_host_names == 1 ? "" : "s");
	if (labels.len)
		strbuf_addf(&t, " (%s)", labels.buf);
	strbuf_addf(&t, " - %s", f->passed ? "PASS" : "FAIL");
	html_page_head_title(sb, t.buf);
	strbuf_addf(sb, "<header class=\"page\"><h1>diskproof fleet: %zu run%s on %zu host%s ",
		    f->nr_hosts, f->nr_hosts == 1 ? "" : "s", f->nr_host_names,
		    f->nr_host_names == 1 ? "" : "s");
	html_verdict_badge(sb, f->passed ? "PASS" : "FAIL", false);
	if (labels.len) {
		strbuf_addstr(sb, " <span class=\"label\">");
		html_esc(sb, labels.buf);
		strbuf_addstr(sb, "</span>");
	}
	strbuf_addstr(sb, "</h1>\n<div class=\"sub\">hosts ");
	html_esc(sb, hosts.len ? hosts.buf : "-");
	strbuf_addstr(sb, " &middot; selector");
	for (size_t i = 0; i < f->nr_selectors; i++) {
		strbuf_addch(sb, ' ');
		html_esc(sb, f->selectors[i]);
	}
	strbuf_addstr(sb, "</div>\n");
	html_nav(sb, fleet_sections, DP_ARRAY_SIZE(fleet_sections), NULL, 0);
	strbuf_addstr(sb, "</header>\n");
	strbuf_release(&t);
	strbuf_release(&hosts);
	strbuf_release(&labels);
}

void report_fleet_html(struct strbuf *sb, const struct report_fleet *f,
		       const struct report_options *opt)
{
	char **labels = calloc(f->nr_hosts ? f->nr_hosts : 1, sizeof(*labels));

	(void)opt;
	fleet_page_head(sb, f);
	if (f->mixed) {
		strbuf_addstr(sb, "<p class=\"note FAIL\">");
		html_esc(sb, f->mixed);
		strbuf_addstr(sb, "</p>\n");
	}
	fleet_summary_section(sb, f);
	fleet_hosts_section(sb, f);
	fleet_differs_section(sb, f);
	for (size_t i = 0; labels && i < f->nr_hosts; i++)
		labels[i] = host_label(&f->hosts[i]);
	if (labels) {
		fleet_bars_section(sb, f, labels);
		fleet_lines_section(sb, f, labels);
	}
	fleet_totals_section(sb, f);
	html_page_foot(sb);
	for (size_t i = 0; labels && i < f->nr_hosts; i++)
		free(labels[i]);
	free(labels);
}
