/*
 * html.c - the HTML pages: one run (report --format html) with Jetstress's
 * sections, and a run comparison (compare --format html). Each page is one
 * self-contained file: the stylesheet and script (reports/, embedded at
 * build time) are inline and the charts are inline SVG (html_chart.c), so it
 * loads nothing over the network. Every string that comes from the results
 * file is HTML-escaped. Like the other renderers they compute nothing: they
 * format struct results and struct analyze_comparison (docs/reports.md).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "diskproof/analyze.h"
#include "diskproof/report.h"

#include "html.h"

/* reports/report.css and reports/report.js (cmake/EmbedFile.cmake) */
extern const char report_css[];
extern const char report_js[];

static const char *const class_colors[IO_CLASS_COUNT] = {
	[IO_DB_READ] = "#1d4ed8",  [IO_DB_WRITE] = "#c2410c", [IO_LOG_WRITE] = "#047857",
	[IO_BDM_READ] = "#7c3aed", [IO_LOG_READ] = "#0e7490", [IO_BACKUP_READ] = "#a16207",
};

static const char *const volume_colors[] = {
	"#1d4ed8", "#c2410c", "#047857", "#7c3aed", "#b91c1c", "#0e7490", "#a16207", "#be185d",
};

#define COLOR_A "#64748b"
#define COLOR_B "#dc2626"
#define TRANSACTIONAL ((1u << IO_DB_READ) | (1u << IO_DB_WRITE))

static const char *str_or(const char *s, const char *dflt)
{
	return s && *s ? s : dflt;
}

static void page_head(struct strbuf *sb, const char *title_a, int64_t id, const char *label)
{
	strbuf_addstr(sb,
		      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		      "<title>");
	strbuf_addf(sb, "%s %" PRId64, title_a, id);
	if (label) {
		strbuf_addstr(sb, " - ");
		html_esc(sb, label);
	}
	strbuf_addf(sb, "</title>\n<style>\n%s</style>\n<script>\n%s</script>\n</head>\n<body>\n",
		    report_css, report_js);
}

static void page_foot(struct strbuf *sb)
{
	strbuf_addstr(sb, "<footer>Made by diskproof " DISKPROOF_VERSION
			  ". Renderers format the results file and compute nothing; the "
			  "figures are those of <code>diskproof report --format json</code>."
			  "</footer>\n</body>\n</html>\n");
}

static void verdict_badge(struct strbuf *sb, const char *verdict, bool big)
{
	const char *v = str_or(verdict, "NONE");
	const char *cls = !strcmp(v, "PASS") ? "PASS" : !strcmp(v, "FAIL") ? "FAIL" : "NONE";

	strbuf_addf(sb, "<span class=\"badge%s %s\">", big ? " big" : "", cls);
	html_esc(sb, v);
	strbuf_addstr(sb, "</span>");
}

static void kv_row(struct strbuf *sb, const char *key, const char *value)
{
	strbuf_addf(sb, "<tr><th>%s</th><td>", key);
	html_esc(sb, str_or(value, "-"));
	strbuf_addstr(sb, "</td></tr>\n");
}

static void section_open(struct strbuf *sb, const char *id, const char *title, bool first)
{
	strbuf_addf(sb, "<section id=\"%s\"%s>\n<h2>%s</h2>\n", id, first ? " class=\"first\"" : "",
		    title);
}

static void td_num(struct strbuf *sb, double v, int decimals)
{
	strbuf_addstr(sb, "<td class=\"num\">");
	html_num(sb, v, decimals);
	strbuf_addstr(sb, "</td>");
}

/* The threshold of the run-scope verdict on criterion, else the first one; NAN when none. */
static double verdict_threshold(const struct results *r, const char *criterion)
{
	double t = NAN;
	size_t i;

	for (i = 0; i < r->nr_verdicts; i++) {
		if (strcmp(r->verdicts[i].criterion, criterion))
			continue;
		if (r->verdicts[i].scope == SCOPE_RUN)
			return r->verdicts[i].threshold;
		if (isnan(t))
			t = r->verdicts[i].threshold;
	}
	return t;
}

/*
 * The threshold line of a class's latency chart: only database reads and log
 * writes are judged on their average (eval.h), so only they get one.
 */
static double class_avg_threshold(const struct results *r, enum io_class c)
{
	if (c == IO_DB_READ)
		return verdict_threshold(r, "db_read_avg_ms");
	if (c == IO_LOG_WRITE)
		return verdict_threshold(r, "log_write_avg_ms");
	return NAN;
}

/*
 * Whether the run issued class c: present in the run's summary, or, for a
 * run whose summary is not written yet (still running, killed early), in a
 * run-scope interval. Charts and tables show only such classes.
 */
static bool run_class_seen(const struct results *r, enum io_class c)
{
	const struct results_sample *x;
	size_t i;

	if (class_summary_present(&r->run.classes[c]))
		return true;
	for (i = 0; i < r->nr_samples; i++) {
		x = &r->samples[i];
		if (x->scope == SCOPE_RUN && x->cls == c && (x->ios || x->errors))
			return true;
	}
	return false;
}

/* The run's whole-run histogram of class c holds latencies. */
static bool run_hist_any(const struct results *r, enum io_class c)
{
	size_t i;

	for (i = 0; i < r->nr_hists; i++)
		if (r->hists[i].scope == SCOPE_RUN && r->hists[i].cls == c)
			return r->hists[i].h && r->hists[i].h->count;
	return false;
}

/* PASS / FAIL / "-" for the verdicts of one database. */
static const char *db_verdict(const struct results *r, const struct scope_summary *db)
{
	const struct verdict *v;
	bool judged = false;
	size_t i;

	for (i = 0; i < r->nr_verdicts; i++) {
		v = &r->verdicts[i];
		if (v->scope != SCOPE_DATABASE || strcmp(v->name, db->name) ||
		    strcmp(v->volume, db->volume))
			continue;
		if (!v->passed)
			return "FAIL";
		judged = true;
	}
	return judged ? "PASS" : "-";
}

/* The table of contents; a NULL `skip` entry leaves out nothing. */
static void nav(struct strbuf *sb, const char *const (*items)[2], size_t n, const char *const *skip,
		size_t nr_skip)
{
	size_t i, k;
	bool out;

	strbuf_addstr(sb, "<nav class=\"toc\">");
	for (i = 0; i < n; i++) {
		out = false;
		for (k = 0; k < nr_skip; k++)
			out |= skip[k] && !strcmp(skip[k], items[i][0]);
		if (!out)
			strbuf_addf(sb, "<a href=\"#%s\">%s</a>\n", items[i][0], items[i][1]);
	}
	strbuf_addstr(sb, "</nav>\n");
}

/* ---- one run ---- */

static const char *const run_sections[][2] = {
	{"summary", "Test summary"},
	{"sizing", "Sizing and throughput"},
	{"parameters", "Test parameters"},
	{"autotune", "Auto-tune"},
	{"databases", "Transactional I/O per database"},
	{"over-time", "Performance over time"},
	{"warmup", "Warm-up (not judged)"},
	{"distribution", "Latency distribution"},
	{"maintenance", "Background maintenance and replication"},
	{"total-io", "Total I/O"},
	{"host", "Host performance"},
	{"verdicts", "Verdicts"},
	{"log", "Test log"},
};

static void card(struct strbuf *sb, const char *key, double v, int decimals, const char *unit)
{
	strbuf_addf(sb, "<div class=\"card\"><div class=\"k\">%s</div><div class=\"v\">", key);
	html_num(sb, v, decimals);
	strbuf_addf(sb, "%s</div></div>\n", unit);
}

static void run_summary(struct strbuf *sb, const struct results *r)
{
	double target = verdict_threshold(r, "transactional_iops");
	size_t i, failed = 0;

	for (i = 0; i < r->nr_verdicts; i++)
		failed += !r->verdicts[i].passed;
	section_open(sb, "summary", "Test summary", true);
	strbuf_addstr(sb, "<p>Overall verdict: ");
	verdict_badge(sb, r->verdict, true);
	if (r->status && strcmp(r->status, "passed") && strcmp(r->status, "failed")) {
		strbuf_addstr(sb, " (");
		html_esc(sb, r->status);
		strbuf_addch(sb, ')');
	}
	strbuf_addf(sb, " &nbsp; %zu of %zu verdicts passed</p>\n<div class=\"cards\">\n",
		    r->nr_verdicts - failed, r->nr_verdicts);
	card(sb, "achieved transactional IOPS", scope_transactional_iops(&r->run), 1, "");
	if (isfinite(target))
		card(sb, "target transactional IOPS", target, 1, "");
	if (class_summary_present(&r->run.classes[IO_DB_READ]))
		card(sb, "db read avg", r->run.classes[IO_DB_READ].avg_ms, 3, " ms");
	if (class_summary_present(&r->run.classes[IO_LOG_WRITE]))
		card(sb, "log write avg", r->run.classes[IO_LOG_WRITE].avg_ms, 3, " ms");
	if (class_summary_present(&r->run.classes[IO_BACKUP_READ]))
		card(sb, "backup read", r->run.classes[IO_BACKUP_READ].mbps, 2, " MB/s");
	strbuf_addstr(sb, "</div>\n");
	if (!isfinite(target))
		strbuf_addstr(sb, "<p class=\"note\">No target transactional IOPS was set for this "
				  "run (no <code>transactional_iops</code> verdict).</p>\n");
	if (failed) {
		strbuf_addstr(sb, "<h3>Failing verdicts</h3>\n<ul>\n");
		for (i = 0; i < r->nr_verdicts; i++) {
			struct strbuf line = STRBUF_INIT;

			if (r->verdicts[i].passed)
				continue;
			report_verdict_line(&line, &r->verdicts[i]);
			report_verdict_margin(&line, &r->verdicts[i]);
			strbuf_addstr(sb, "<li class=\"FAIL\">");
			html_esc(sb, line.buf);
			strbuf_addstr(sb, "</li>\n");
			strbuf_release(&line);
		}
		strbuf_addstr(sb, "</ul>\n");
	}
	strbuf_addstr(sb, "<table class=\"kv\">\n");
	kv_row(sb, "Label", r->label);
	kv_row(sb, "Host", r->host);
	kv_row(sb, "Started (UTC)", r->started_at);
	kv_row(sb, "Ended (UTC)", r->ended_at);
	kv_row(sb, "Status", r->status);
	strbuf_addf(sb, "<tr><th>Exit code</th><td>%d</td></tr>\n</table>\n</section>\n",
		    r->exit_code);
}

static void run_sizing(struct strbuf *sb, const struct results *r)
{
	const struct class_summary *cs;
	int c;

	section_open(sb, "sizing", "Sizing and throughput", false);
	strbuf_addf(sb,
		    "<table class=\"kv\">\n<tr><th>Volumes</th><td>%zu</td></tr>\n"
		    "<tr><th>Databases</th><td>%zu</td></tr>\n"
		    "<tr><th>Streams</th><td>%u</td></tr>\n<tr><th>Measured</th><td>",
		    r->nr_volumes, r->nr_databases, r->streams);
	html_num(sb, r->duration_s, 0);
	strbuf_addstr(sb, " s</td></tr>\n<tr><th>Warm-up</th><td>");
	html_num(sb, r->warmup_s, 0);
	strbuf_addstr(sb, " s</td></tr>\n<tr><th>Achieved transactional IOPS</th><td>");
	html_num(sb, scope_transactional_iops(&r->run), 1);
	strbuf_addstr(sb, "</td></tr>\n</table>\n<table>\n<tr><th>class</th><th class=\"num\">IOs"
			  "</th><th class=\"num\">IOPS</th><th class=\"num\">MB/s</th>"
			  "<th class=\"num\">bytes</th></tr>\n");
	for (c = 0; c < IO_CLASS_COUNT; c++) {
		cs = &r->run.classes[c];
		if (!class_summary_present(cs))
			continue;
		strbuf_addf(sb, "<tr><td>%s</td><td class=\"num\">%" PRIu64 "</td>",
			    io_class_name(c), cs->ios);
		td_num(sb, cs->iops, 1);
		td_num(sb, cs->mbps, 2);
		strbuf_addf(sb, "<td class=\"num\">%" PRIu64 "</td></tr>\n", cs->bytes);
	}
	strbuf_addstr(sb, "</table>\n<p class=\"note\">Database sizes and file layout are those of "
			  "the profile under Test parameters. MB/s is 10<sup>6</sup> bytes per "
			  "second; warm-up excluded. Classes this run did not issue are not "
			  "listed.</p>\n</section>\n");
}

static void run_parameters(struct strbuf *sb, const struct results *r)
{
	section_open(sb, "parameters", "Test parameters", false);
	strbuf_addstr(sb, "<table class=\"kv\">\n");
	kv_row(sb, "Profile", r->profile_name);
	kv_row(sb, "Test type", r->test_type);
	kv_row(sb, "Engine", r->engine);
	strbuf_addf(sb, "<tr><th>Streams</th><td>%u</td></tr>\n", r->streams);
	kv_row(sb, "Label", r->label);
	strbuf_addstr(sb, "<tr><th>Command line</th><td><code>");
	html_esc(sb, str_or(r->command_line, "-"));
	strbuf_addstr(sb, "</code></td></tr>\n</table>\n<h3>Profile</h3>\n<pre>");
	html_esc(sb, str_or(r->profile_text, "(not stored)"));
	strbuf_addstr(sb, "</pre>\n</section>\n");
}

static void class_cells(struct strbuf *sb, const struct class_summary *cs)
{
	td_num(sb, cs->iops, 1);
	td_num(sb, cs->avg_ms, 3);
	td_num(sb, cs->p99_ms, 3);
	td_num(sb, cs->max_ms, 3);
}

static void run_databases(struct strbuf *sb, const struct results *r)
{
	const struct scope_summary *db;
	const char *v;
	size_t i;

	section_open(sb, "databases", "Transactional I/O per database", false);
	strbuf_addstr(sb,
		      "<table>\n<tr><th rowspan=\"2\">database</th><th rowspan=\"2\">volume</th>"
		      "<th colspan=\"4\">db_read</th><th colspan=\"4\">db_write</th>"
		      "<th colspan=\"2\">log_write</th><th rowspan=\"2\">verdict</th></tr>\n<tr>");
	for (i = 0; i < 2; i++)
		strbuf_addstr(sb, "<th class=\"num\">IOPS</th><th class=\"num\">avg ms</th>"
				  "<th class=\"num\">p99 ms</th><th class=\"num\">max ms</th>");
	strbuf_addstr(sb, "<th class=\"num\">IOPS</th><th class=\"num\">avg ms</th></tr>\n");
	for (i = 0; i < r->nr_databases; i++) {
		db = &r->databases[i];
		v = db_verdict(r, db);
		strbuf_addf(sb, "<tr%s><td>", !strcmp(v, "FAIL") ? " class=\"fail\"" : "");
		html_esc(sb, db->name);
		strbuf_addstr(sb, "</td><td>");
		html_esc(sb, db->volume);
		strbuf_addstr(sb, "</td>");
		class_cells(sb, &db->classes[IO_DB_READ]);
		class_cells(sb, &db->classes[IO_DB_WRITE]);
		td_num(sb, db->classes[IO_LOG_WRITE].iops, 1);
		td_num(sb, db->classes[IO_LOG_WRITE].avg_ms, 3);
		strbuf_addf(sb, "<td class=\"%s\">%s</td></tr>\n", v, v);
	}
	strbuf_addstr(sb, "</table>\n");
	html_chart_db_bars(sb, "chart-db-iops", "Transactional IOPS per database", r->databases,
			   r->nr_databases);
	strbuf_addstr(sb, "</section>\n");
}

/* The classes of the IOPS-over-time chart: the transactional ones the run
 * issued, or, in a run without them (a backup test), every class it issued. */
static unsigned over_time_classes(const struct results *r, bool *transactional)
{
	unsigned seen = 0;
	int c;

	for (c = 0; c < IO_CLASS_COUNT; c++)
		if (run_class_seen(r, c))
			seen |= 1u << c;
	*transactional = (seen & TRANSACTIONAL) || !seen;
	return *transactional ? TRANSACTIONAL : seen;
}

static void run_over_time(struct strbuf *sb, const struct results *r)
{
	struct html_series vs[DP_ARRAY_SIZE(volume_colors)];
	struct html_series ls;
	struct html_hline hl;
	struct html_chart ch;
	size_t i, nv = r->nr_volumes < DP_ARRAY_SIZE(vs) ? r->nr_volumes : DP_ARRAY_SIZE(vs);
	bool transactional;
	unsigned classes = over_time_classes(r, &transactional);
	int c;

	section_open(sb, "over-time", "Performance over time", false);
	strbuf_addf(sb,
		    "<p class=\"note\">Per-second intervals as stored. The shaded band is the "
		    "warm-up (%.0f s), shown but not counted in any figure or verdict.",
		    isfinite(r->warmup_s) ? r->warmup_s : 0);
	if (r->nr_volumes > nv)
		strbuf_addf(sb, " The IOPS chart shows the first %zu of %zu volumes.", nv,
			    r->nr_volumes);
	strbuf_addstr(sb, "</p>\n");
	for (i = 0; i < nv; i++)
		vs[i] = (struct html_series){.r = r,
					     .src = HTML_SRC_IOPS,
					     .scope = SCOPE_VOLUME,
					     .name = r->volumes[i].name,
					     .classes = classes,
					     .label = r->volumes[i].name,
					     .color = volume_colors[i]};
	ch = (struct html_chart){.id = "chart-iops",
				 .title = transactional ? "Transactional IOPS over time per volume "
							  "(db_read + db_write)"
							: "IOPS over time per volume (every class "
							  "of this run)",
				 .x_label = "seconds since start",
				 .y_label = "IOPS",
				 .series = vs,
				 .nr_series = nv,
				 .warmup_s = r->warmup_s};
	html_chart_line(sb, &ch);

	strbuf_addstr(sb, "<div class=\"charts2\">\n");
	for (c = 0; c < IO_CLASS_COUNT; c++) {
		char id[48], title[96], hlabel[64];

		if (!run_class_seen(r, c))
			continue;
		snprintf(id, sizeof(id), "chart-lat-%s", io_class_name(c));
		snprintf(title, sizeof(title), "%s average latency over time", io_class_name(c));
		ls = (struct html_series){.r = r,
					  .src = HTML_SRC_AVG_MS,
					  .scope = SCOPE_RUN,
					  .name = "run",
					  .classes = 1u << c,
					  .label = io_class_name(c),
					  .color = class_colors[c]};
		hl.y = class_avg_threshold(r, c);
		snprintf(hlabel, sizeof(hlabel), "threshold %g ms", isfinite(hl.y) ? hl.y : 0);
		hl.label = hlabel;
		hl.color = "#b91c1c";
		ch = (struct html_chart){.id = id,
					 .title = title,
					 .x_label = "seconds since start",
					 .y_label = "ms",
					 .series = &ls,
					 .nr_series = 1,
					 .hlines = &hl,
					 .nr_hlines = isfinite(hl.y) ? 1 : 0,
					 .warmup_s = r->warmup_s,
					 .compact = true};
		html_chart_line(sb, &ch);
	}
	strbuf_addstr(sb, "</div>\n</section>\n");
}

/*
 * The warm-up's figures per class, apart: they are in no other figure and no
 * verdict. Only when the run stored warm-up intervals.
 */
static void run_warmup(struct strbuf *sb, const struct results *r)
{
	const struct results_warmup_class *wc;
	int c;

	if (!(r->warmup.duration_s > 0))
		return;
	section_open(sb, "warmup", "Warm-up (not judged)", false);
	strbuf_addstr(sb, "<p class=\"note\">The first ");
	html_num(sb, r->warmup.duration_s, 0);
	strbuf_addstr(sb, " s of the run, measured but not judged: these I/Os count in no other "
			  "figure and no verdict. Per class the run issued then: I/Os, IOPS over "
			  "the warm-up and average latency.</p>\n<table>\n<tr><th>class</th>"
			  "<th class=\"num\">IOs</th><th class=\"num\">IOPS</th>"
			  "<th class=\"num\">avg ms</th><th class=\"num\">errors</th></tr>\n");
	for (c = 0; c < IO_CLASS_COUNT; c++) {
		wc = &r->warmup.classes[c];
		if (!wc->ios && !wc->errors)
			continue;
		strbuf_addf(sb, "<tr><td>%s</td><td class=\"num\">%" PRIu64 "</td>",
			    io_class_name(c), wc->ios);
		td_num(sb, wc->iops, 1);
		td_num(sb, wc->avg_ms, 3);
		strbuf_addf(sb, "<td class=\"num\">%" PRIu64 "</td></tr>\n", wc->errors);
	}
	strbuf_addstr(sb, "</table>\n</section>\n");
}

static void autotune_chart(struct strbuf *sb, const struct results *r)
{
	struct html_series s[2];
	struct html_hline hl;
	struct html_chart ch;
	char hlabel[64];

	s[0] = (struct html_series){.r = r,
				    .src = HTML_SRC_TUNE_DB_READ_MS,
				    .label = "db_read average (ms, left)",
				    .color = class_colors[IO_DB_READ]};
	s[1] = (struct html_series){.r = r,
				    .src = HTML_SRC_TUNE_IOPS,
				    .label = "transactional IOPS (right)",
				    .color = class_colors[IO_DB_WRITE],
				    .right = true};
	hl.y = verdict_threshold(r, "db_read_avg_ms");
	snprintf(hlabel, sizeof(hlabel), "threshold %g ms", isfinite(hl.y) ? hl.y : 0);
	hl.label = hlabel;
	hl.color = "#b91c1c";
	ch = (struct html_chart){
		.id = "chart-autotune",
		.title = "Auto-tune: database read average and IOPS against streams",
		.x_label = "streams (log2 scale)",
		.y_label = "db_read average (ms)",
		.series = s,
		.nr_series = 2,
		.hlines = &hl,
		.nr_hlines = isfinite(hl.y) ? 1 : 0,
		.x_log2 = true,
		.y2_label = "transactional IOPS"};
	html_chart_line(sb, &ch);
}

/*
 * What auto-tune measured before the main test, level by level, what it chose
 * and why it stopped. Only for a run that tuned (results_autotune_ran).
 */
static void run_autotune(struct strbuf *sb, const struct results *r)
{
	const struct results_autotune *a = &r->autotune;
	const struct results_autotune_step *st;
	size_t i;

	if (!results_autotune_ran(r))
		return;
	section_open(sb, "autotune", "Auto-tune", false);
	strbuf_addstr(sb, "<table class=\"kv\">\n");
	kv_row(sb, "Goal", a->goal);
	if (a->has_chosen && a->chosen)
		strbuf_addf(sb, "<tr><th>Chosen streams</th><td>%u</td></tr>\n", a->chosen);
	else
		kv_row(sb, "Chosen streams", a->has_chosen ? "none (no level passed)" : NULL);
	kv_row(sb, "Stopped because", a->stopped_because);
	strbuf_addstr(sb, "</table>\n");
	if (a->nr_steps)
		autotune_chart(sb, r);
	strbuf_addstr(sb, "<table>\n<tr><th class=\"num\">step</th><th class=\"num\">streams"
			  "</th><th class=\"num\">IOPS</th><th class=\"num\">db read avg ms</th>"
			  "<th class=\"num\">log write avg ms</th><th>result</th><th>reason</th>"
			  "</tr>\n");
	for (i = 0; i < a->nr_steps; i++) {
		st = &a->steps[i];
		strbuf_addf(sb,
			    "<tr class=\"tune-step%s\"><td class=\"num\">%u</td>"
			    "<td class=\"num\">%u</td>",
			    st->passed ? "" : " fail", st->step, st->streams);
		td_num(sb, st->iops, 1);
		td_num(sb, st->db_read_avg_ms, 3);
		td_num(sb, st->log_write_avg_ms, 3);
		strbuf_addf(sb, "<td class=\"%s\">%s</td><td>", st->passed ? "PASS" : "FAIL",
			    st->passed ? "PASS" : "FAIL");
		html_esc(sb, str_or(st->reason, ""));
		strbuf_addstr(sb, "</td></tr>\n");
	}
	strbuf_addstr(sb, "</table>\n<p class=\"note\">Each step measured one stream count "
			  "before the main test; a level passes when it stays the profile's "
			  "margin under every latency threshold. Failed levels are hollow in the "
			  "chart. Auto-tune's I/O is in no other figure and no verdict.</p>\n"
			  "</section>\n");
}

static void run_distribution(struct strbuf *sb, const struct results *r)
{
	struct html_series s[IO_CLASS_COUNT];
	struct html_chart ch;
	size_t n = 0;
	int c;

	section_open(sb, "distribution", "Latency distribution", false);
	for (c = 0; c < IO_CLASS_COUNT; c++)
		if (run_hist_any(r, c))
			s[n++] = (struct html_series){.r = r,
						      .src = HTML_SRC_CDF,
						      .scope = SCOPE_RUN,
						      .name = "run",
						      .cls = (enum io_class)c,
						      .label = io_class_name(c),
						      .color = class_colors[c]};
	ch = (struct html_chart){.id = "chart-cdf",
				 .title = "Latency CDF per class (whole run, warm-up excluded)",
				 .x_label = "latency (ms)",
				 .y_label = "share of I/Os at or below",
				 .series = s,
				 .nr_series = n,
				 .y_percent = true};
	html_chart_line(sb, &ch);
	strbuf_addstr(sb, "<p class=\"note\">From the run's latency histogram: each point is a "
			  "bucket's value (within 1/128) and the share of I/Os up to it. One "
			  "curve per class the run issued.</p>\n</section>\n");
}

/* IOs, MB/s, avg ms, max ms of one class */
static void maintenance_cells(struct strbuf *sb, const struct class_summary *cs)
{
	strbuf_addf(sb, "<td class=\"num\">%" PRIu64 "</td>", cs->ios);
	td_num(sb, cs->mbps, 2);
	td_num(sb, cs->avg_ms, 3);
	td_num(sb, cs->max_ms, 3);
}

static void maintenance_row(struct strbuf *sb, const struct scope_summary *sc, const char *name,
			    const char *volume, bool bdm, bool repl)
{
	strbuf_addstr(sb, "<tr><td>");
	html_esc(sb, name);
	strbuf_addstr(sb, "</td><td>");
	html_esc(sb, volume);
	strbuf_addstr(sb, "</td>");
	if (bdm)
		maintenance_cells(sb, &sc->classes[IO_BDM_READ]);
	if (repl) {
		maintenance_cells(sb, &sc->classes[IO_LOG_READ]);
		td_num(sb, sc->classes[IO_LOG_WRITE].mbps, 2);
	}
	strbuf_addstr(sb, "</tr>\n");
}

/*
 * Jetstress's "background database maintenance" and replication figures per
 * database: bdm_read (the sequential maintenance scan, at a set rate per
 * database) and log_read (closed log segments read once per extra copy,
 * beside the log writes they follow).
 */
static void run_maintenance(struct strbuf *sb, const struct results *r)
{
	bool bdm = class_summary_present(&r->run.classes[IO_BDM_READ]);
	bool repl = class_summary_present(&r->run.classes[IO_LOG_READ]);
	size_t i;

	section_open(sb, "maintenance", "Background maintenance and replication", false);
	if (!bdm && !repl) {
		strbuf_addstr(sb, "<p>This run issued no background maintenance reads "
				  "(<code>bdm_read</code>) and no replication reads "
				  "(<code>log_read</code>): its workload or test type has none, "
				  "or the profile turned them off.</p>\n</section>\n");
		return;
	}
	strbuf_addstr(sb, "<table>\n<tr><th rowspan=\"2\">database</th>"
			  "<th rowspan=\"2\">volume</th>");
	if (bdm)
		strbuf_addstr(sb, "<th colspan=\"4\">bdm_read (maintenance scan)</th>");
	if (repl)
		strbuf_addstr(sb, "<th colspan=\"4\">log_read (replication)</th>"
				  "<th>log_write</th>");
	strbuf_addstr(sb, "</tr>\n<tr>");
	for (i = 0; i < (size_t)bdm + (size_t)repl; i++)
		strbuf_addstr(sb, "<th class=\"num\">IOs</th><th class=\"num\">MB/s</th>"
				  "<th class=\"num\">avg ms</th><th class=\"num\">max ms</th>");
	if (repl)
		strbuf_addstr(sb, "<th class=\"num\">MB/s</th>");
	strbuf_addstr(sb, "</tr>\n");
	for (i = 0; i < r->nr_databases; i++)
		maintenance_row(sb, &r->databases[i], r->databases[i].name, r->databases[i].volume,
				bdm, repl);
	maintenance_row(sb, &r->run, "total", "", bdm, repl);
	strbuf_addstr(sb, "</table>\n<p class=\"note\">Maintenance reads scan each database "
			  "sequentially at the profile's rate per database. Replication reads "
			  "each closed log segment once per extra copy, so its MB/s follows "
			  "the log writes' times (copies &minus; 1). Warm-up excluded; "
			  "MB/s is 10<sup>6</sup> bytes per second.</p>\n</section>\n");
}

/* A row per class present in the scope; the first carries the label. A scope
 * with none gets one row saying so. */
static void scope_class_rows(struct strbuf *sb, const struct scope_summary *sc, const char *label)
{
	const struct class_summary *cs;
	bool first = true;
	int c;

	for (c = 0; c < IO_CLASS_COUNT; c++) {
		cs = &sc->classes[c];
		if (!class_summary_present(cs))
			continue;
		strbuf_addstr(sb, "<tr><td>");
		if (first)
			html_esc(sb, label);
		first = false;
		strbuf_addf(sb, "</td><td>%s</td><td class=\"num\">%" PRIu64 "</td>",
			    io_class_name(c), cs->ios);
		td_num(sb, cs->iops, 1);
		td_num(sb, cs->mbps, 2);
		td_num(sb, cs->avg_ms, 3);
		td_num(sb, cs->p50_ms, 3);
		td_num(sb, cs->p99_ms, 3);
		td_num(sb, cs->max_ms, 3);
		strbuf_addf(sb, "<td class=\"num\">%" PRIu64 "</td></tr>\n", cs->errors);
	}
	if (!first)
		return;
	strbuf_addstr(sb, "<tr><td>");
	html_esc(sb, label);
	strbuf_addstr(sb, "</td><td colspan=\"9\">no I/O</td></tr>\n");
}

static void run_total_io(struct strbuf *sb, const struct results *r)
{
	size_t i;

	section_open(sb, "total-io", "Total I/O", false);
	strbuf_addstr(sb, "<table>\n<tr><th>volume</th><th>class</th><th class=\"num\">IOs</th>"
			  "<th class=\"num\">IOPS</th><th class=\"num\">MB/s</th>"
			  "<th class=\"num\">avg ms</th><th class=\"num\">p50 ms</th>"
			  "<th class=\"num\">p99 ms</th><th class=\"num\">max ms</th>"
			  "<th class=\"num\">errors</th></tr>\n");
	for (i = 0; i < r->nr_volumes; i++)
		scope_class_rows(sb, &r->volumes[i], r->volumes[i].name);
	scope_class_rows(sb, &r->run, "total");
	strbuf_addf(sb,
		    "</table>\n<p class=\"note\">Integrity errors (pages that failed "
		    "verification): %" PRIu64 ".</p>\n</section>\n",
		    r->run.integrity_errors);
}

/* CPU shares over time: the host rows (warm-up shaded). */
static void host_cpu_chart(struct strbuf *sb, const struct results *r)
{
	static const char *const labels[] = {"user %", "system %", "iowait %"};
	static const char *const colors[] = {"#1d4ed8", "#c2410c", "#a16207"};
	struct html_series s[3];
	struct html_chart ch;
	int k;

	for (k = 0; k < 3; k++)
		s[k] = (struct html_series){.r = r,
					    .src = HTML_SRC_HOST,
					    .name = "",
					    .host_field = HTML_HOST_CPU_USER + k,
					    .label = labels[k],
					    .color = colors[k]};
	ch = (struct html_chart){.id = "chart-host-cpu",
				 .title = "Host CPU time over time (all CPUs)",
				 .x_label = "seconds since start",
				 .y_label = "% of CPU time",
				 .series = s,
				 .nr_series = 3,
				 .warmup_s = r->warmup_s};
	html_chart_line(sb, &ch);
}

/* Each device's util % (left axis) and average wait (right axis, dashed);
 * a device with no I/O in any measured interval has no wait line. */
static void host_device_chart(struct strbuf *sb, const struct results *r)
{
	const struct results_host_perf *h = &r->host_perf;
	size_t nmax = 2 * DP_ARRAY_SIZE(volume_colors), n = 0, i;
	struct html_series s[2 * DP_ARRAY_SIZE(volume_colors)];
	char labels[2 * DP_ARRAY_SIZE(volume_colors)][RESULTS_NAME_MAX + 24];
	struct html_chart ch;
	const char *color;

	for (i = 0; i < h->nr_devices && n + 2 <= nmax; i++) {
		color = volume_colors[i % DP_ARRAY_SIZE(volume_colors)];
		snprintf(labels[n], sizeof(labels[n]), "%s util %%", h->devices[i].name);
		s[n] = (struct html_series){.r = r,
					    .src = HTML_SRC_HOST,
					    .name = h->devices[i].name,
					    .host_field = HTML_HOST_UTIL,
					    .label = labels[n],
					    .color = color};
		n++;
		if (!isfinite(h->devices[i].avg_wait_ms))
			continue;
		snprintf(labels[n], sizeof(labels[n]), "%s avg wait ms", h->devices[i].name);
		s[n] = s[n - 1];
		s[n].host_field = HTML_HOST_AVG_WAIT;
		s[n].label = labels[n];
		s[n].dashed = true;
		s[n].right = true;
		n++;
	}
	ch = (struct html_chart){.id = "chart-host-devices",
				 .title = "Device utilisation and average wait over time",
				 .x_label = "seconds since start",
				 .y_label = "util %",
				 .series = s,
				 .nr_series = n,
				 .warmup_s = r->warmup_s,
				 .y2_label = "average wait (ms)"};
	html_chart_line(sb, &ch);
}

static void host_device_rows(struct strbuf *sb, const struct results_host_perf *h)
{
	const struct results_host_device *d;
	size_t i;

	strbuf_addstr(sb, "<table>\n<tr><th>device</th><th class=\"num\">intervals</th>"
			  "<th class=\"num\">reads/s</th><th class=\"num\">writes/s</th>"
			  "<th class=\"num\">read MB/s</th><th class=\"num\">write MB/s</th>"
			  "<th class=\"num\">read ms</th><th class=\"num\">write ms</th>"
			  "<th class=\"num\">avg ms</th><th class=\"num\">util %</th>"
			  "<th class=\"num\">util max %</th><th class=\"num\">queue</th></tr>\n");
	for (i = 0; i < h->nr_devices; i++) {
		d = &h->devices[i];
		strbuf_addstr(sb, "<tr class=\"host-device\"><td>");
		html_esc(sb, d->name);
		strbuf_addf(sb, "</td><td class=\"num\">%zu</td>", d->intervals);
		td_num(sb, d->reads_per_s, 1);
		td_num(sb, d->writes_per_s, 1);
		td_num(sb, d->read_mbps, 2);
		td_num(sb, d->write_mbps, 2);
		td_num(sb, d->read_wait_ms, 3);
		td_num(sb, d->write_wait_ms, 3);
		td_num(sb, d->avg_wait_ms, 3);
		td_num(sb, d->util_pct, 1);
		td_num(sb, d->util_max_pct, 1);
		td_num(sb, d->queue, 2);
		strbuf_addstr(sb, "</tr>\n");
	}
	strbuf_addstr(sb, "</table>\n");
}

/*
 * The host counters sampled beside the intervals (results_host_perf), when
 * the run has them: CPU and memory, the block devices under the volumes,
 * their charts; then the environment facts.
 */
static void run_host_counters(struct strbuf *sb, const struct results *r)
{
	const struct results_host_perf *h = &r->host_perf;

	if (!h->recorded)
		return;
	strbuf_addstr(sb, "<table class=\"kv host-counters\">\n<tr><th>CPU user / system / "
			  "iowait</th><td>");
	if (h->cpu_intervals) {
		html_num(sb, h->cpu_user_pct, 1);
		strbuf_addstr(sb, " % / ");
		html_num(sb, h->cpu_system_pct, 1);
		strbuf_addstr(sb, " % / ");
		html_num(sb, h->cpu_iowait_pct, 1);
		strbuf_addf(sb, " %% (%zu intervals)", h->cpu_intervals);
	} else {
		strbuf_addstr(sb, "not measured");
	}
	strbuf_addstr(sb, "</td></tr>\n<tr><th>Memory available, min / mean</th><td>");
	if (h->mem_intervals) {
		html_num(sb, h->mem_available_min / (1024.0 * 1024.0), 1);
		strbuf_addstr(sb, " MiB / ");
		html_num(sb, h->mem_available_avg / (1024.0 * 1024.0), 1);
		strbuf_addstr(sb, " MiB");
	} else {
		strbuf_addstr(sb, "not measured");
	}
	strbuf_addstr(sb, "</td></tr>\n</table>\n");
	if (h->nr_devices)
		host_device_rows(sb, h);
	if (h->cpu_intervals)
		host_cpu_chart(sb, r);
	if (h->nr_devices)
		host_device_chart(sb, r);
	strbuf_addstr(sb, "<p class=\"note\">Counters of the host and of the block devices "
			  "under the volumes, sampled every interval (/proc/stat, /proc/meminfo, "
			  "/proc/diskstats), as iostat -x computes them; the table's figures are "
			  "over the measured intervals (warm-up excluded): rates over their "
			  "time, waits per I/O, util % and queue averaged over time. A device's "
			  "I/Os include any other I/O it served. A simulated run has no device "
			  "rows.</p>\n");
}

static void run_host(struct strbuf *sb, const struct results *r)
{
	size_t i;

	section_open(sb, "host", "Host performance", false);
	run_host_counters(sb, r);
	if (!r->nr_env) {
		strbuf_addstr(sb, "<p>No environment facts were recorded.</p>\n</section>\n");
		return;
	}
	if (r->host_perf.recorded)
		strbuf_addstr(sb, "<h3>Environment</h3>\n");
	strbuf_addstr(sb, "<table class=\"kv\">\n");
	for (i = 0; i < r->nr_env; i++) {
		strbuf_addstr(sb, "<tr><th>");
		html_esc(sb, r->env[i].key);
		strbuf_addstr(sb, "</th><td>");
		html_esc(sb, r->env[i].value);
		strbuf_addstr(sb, "</td></tr>\n");
	}
	strbuf_addstr(sb, "</table>\n<p class=\"note\">Device facts are keyed "
			  "<code>device.VOLUME.FACT</code> (model, firmware, scheduler, write "
			  "cache, queue depth); a simulated run has none.</p>\n</section>\n");
}

static void verdict_rows(struct strbuf *sb, const struct results *r, bool passed)
{
	const struct verdict *v;
	size_t i;

	for (i = 0; i < r->nr_verdicts; i++) {
		struct strbuf line = STRBUF_INIT;

		v = &r->verdicts[i];
		if (v->passed != passed)
			continue;
		report_verdict_line(&line, v);
		report_verdict_margin(&line, v);
		strbuf_addf(sb, "<tr%s><td class=\"%s\">%s</td><td>%s</td><td>",
			    passed ? "" : " class=\"fail\"", passed ? "PASS" : "FAIL",
			    passed ? "PASS" : "FAIL", scope_kind_name(v->scope));
		html_esc(sb, v->name);
		strbuf_addstr(sb, "</td><td>");
		html_esc(sb, v->criterion);
		strbuf_addf(sb, "</td><td>%s</td>", v->cmp == VERDICT_GE ? "&ge;" : "&le;");
		td_num(sb, v->threshold, 3);
		td_num(sb, v->measured, 3);
		strbuf_addstr(sb, "<td>");
		html_esc(sb, line.buf);
		strbuf_addstr(sb, "</td></tr>\n");
		strbuf_release(&line);
	}
}

static void run_verdicts(struct strbuf *sb, const struct results *r)
{
	section_open(sb, "verdicts", "Verdicts", false);
	strbuf_addstr(sb, "<p class=\"note\">Failing verdicts first.</p>\n<table>\n<tr><th>result"
			  "</th><th>scope</th><th>name</th><th>criterion</th><th></th>"
			  "<th class=\"num\">threshold</th><th class=\"num\">measured</th>"
			  "<th>in words</th></tr>\n");
	verdict_rows(sb, r, false);
	verdict_rows(sb, r, true);
	strbuf_addstr(sb, "</table>\n</section>\n");
}

static void run_log(struct strbuf *sb, const struct results *r)
{
	size_t i;

	section_open(sb, "log", "Test log", false);
	strbuf_addstr(sb, "<table>\n<tr><th class=\"num\">t (s)</th><th>event</th><th>message</th>"
			  "</tr>\n");
	for (i = 0; i < r->nr_events; i++) {
		strbuf_addf(sb, "<tr><td class=\"num\">%.3f</td><td>",
			    (double)r->events[i].t_ms / 1000.0);
		html_esc(sb, r->events[i].kind);
		strbuf_addstr(sb, "</td><td>");
		html_esc(sb, r->events[i].message);
		strbuf_addstr(sb, "</td></tr>\n");
	}
	strbuf_addstr(sb, "</table>\n</section>\n");
}

void report_html(struct strbuf *sb, const struct results *r)
{
	/* sections a run may not have */
	const char *const skip[] = {results_autotune_ran(r) ? NULL : "autotune",
				    r->warmup.duration_s > 0 ? NULL : "warmup"};

	page_head(sb, "diskproof run", r->id, r->label);
	strbuf_addf(sb, "<header class=\"page\"><h1>diskproof run %" PRId64 " ", r->id);
	verdict_badge(sb, r->verdict, false);
	if (r->label) {
		strbuf_addstr(sb, " <span class=\"label\">");
		html_esc(sb, r->label);
		strbuf_addstr(sb, "</span>");
	}
	strbuf_addstr(sb, "</h1>\n<div class=\"sub\">profile ");
	html_esc(sb, str_or(r->profile_name, "-"));
	strbuf_addstr(sb, " &middot; host ");
	html_esc(sb, str_or(r->host, "-"));
	strbuf_addstr(sb, " &middot; started ");
	html_esc(sb, str_or(r->started_at, "-"));
	strbuf_addstr(sb, " &middot; engine ");
	html_esc(sb, str_or(r->engine, "-"));
	strbuf_addstr(sb, "</div>\n");
	nav(sb, run_sections, DP_ARRAY_SIZE(run_sections), skip, DP_ARRAY_SIZE(skip));
	strbuf_addstr(sb, "</header>\n");
	run_summary(sb, r);
	run_sizing(sb, r);
	run_parameters(sb, r);
	run_autotune(sb, r);
	run_databases(sb, r);
	run_over_time(sb, r);
	run_warmup(sb, r);
	run_distribution(sb, r);
	run_maintenance(sb, r);
	run_total_io(sb, r);
	run_host(sb, r);
	run_verdicts(sb, r);
	run_log(sb, r);
	page_foot(sb);
}

/* ---- comparison ---- */

static const char *const cmp_sections[][2] = {
	{"summary", "Summary"},	      {"significant", "Significant changes"},
	{"charts", "Charts"},	      {"verdict-changes", "Verdict changes"},
	{"env-diffs", "Environment"}, {"host", "Host performance"},
	{"figures", "All figures"},
};

static const char *const metric_words[] = {
	[ANALYZE_IOPS] = "IOPS",     [ANALYZE_AVG_MS] = "avg ms", [ANALYZE_P50_MS] = "p50 ms",
	[ANALYZE_P99_MS] = "p99 ms", [ANALYZE_MAX_MS] = "max ms",
};

static void cmp_run_row(struct strbuf *sb, const char *side, const struct results *r)
{
	strbuf_addf(sb, "<tr><th>%s</th><td>%" PRId64 "</td><td>", side, r->id);
	html_esc(sb, str_or(r->label, "-"));
	strbuf_addstr(sb, "</td><td>");
	html_esc(sb, str_or(r->host, "-"));
	strbuf_addstr(sb, "</td><td>");
	html_esc(sb, str_or(r->started_at, "-"));
	strbuf_addstr(sb, "</td><td>");
	html_esc(sb, str_or(r->profile_name, "-"));
	strbuf_addstr(sb, "</td><td>");
	html_esc(sb, str_or(r->engine, "-"));
	strbuf_addstr(sb, "</td><td>");
	verdict_badge(sb, r->verdict, false);
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
	strbuf_addf(sb, "<td>%s</td><td>%s</td>", io_class_name(c), metric_words[m]);
	td_num(sb, f->a, dec);
	td_num(sb, f->b, dec);
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

	section_open(sb, "significant", "Significant changes", false);
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
	section_open(sb, "charts", "Charts", false);
	strbuf_addstr(sb, "<p class=\"note\">A and B on the same axes, whole run. Time charts "
			  "exclude the warm-up and start at the end of each run's warm-up.</p>\n");
	s[0] = (struct html_series){.r = c->a,
				    .src = HTML_SRC_IOPS,
				    .scope = SCOPE_RUN,
				    .name = "run",
				    .classes = TRANSACTIONAL,
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
		hl.y = class_avg_threshold(c->a, k);
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

	section_open(sb, "verdict-changes", "Verdict changes", false);
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
		strbuf_addstr(sb, "</td>");
		td_num(sb, v->threshold_a, 3);
		td_num(sb, v->measured_a, 3);
		strbuf_addf(sb, "<td class=\"%s\">%s</td>", v->passed_a ? "PASS" : "FAIL",
			    v->passed_a ? "PASS" : "FAIL");
		td_num(sb, v->threshold_b, 3);
		td_num(sb, v->measured_b, 3);
		strbuf_addf(sb, "<td class=\"%s\">%s</td></tr>\n", v->passed_b ? "PASS" : "FAIL",
			    v->passed_b ? "PASS" : "FAIL");
	}
	strbuf_addstr(sb, "</table>\n</section>\n");
}

static void cmp_env(struct strbuf *sb, const struct analyze_comparison *c)
{
	size_t i;

	section_open(sb, "env-diffs", "Environment", false);
	if (!c->nr_env_diffs)
		strbuf_addstr(sb, "<p>No environment fact differs.</p>\n");
	else
		strbuf_addstr(sb, "<table>\n<tr><th>fact</th><th>A</th><th>B</th></tr>\n");
	for (i = 0; i < c->nr_env_diffs; i++) {
		strbuf_addstr(sb, "<tr><td>");
		html_esc(sb, c->env_diffs[i].key);
		strbuf_addstr(sb, "</td><td>");
		html_esc(sb, str_or(c->env_diffs[i].a, "(absent)"));
		strbuf_addstr(sb, "</td><td>");
		html_esc(sb, str_or(c->env_diffs[i].b, "(absent)"));
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
	td_num(sb, p->a * w->scale, w->decimals);
	td_num(sb, p->b * w->scale, w->decimals);
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

	section_open(sb, "host", "Host performance", false);
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

	section_open(sb, "figures", "All figures", false);
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
			td_num(sb, k->sd_ms_a, 3);
			td_num(sb, k->sd_ms_b, 3);
			td_num(sb, k->cv_a, 3);
			td_num(sb, k->cv_b, 3);
			strbuf_addstr(sb, "</tr>\n");
		}
		strbuf_addstr(sb, "</table>\n");
	}
	strbuf_addstr(sb, "</section>\n");
}

void report_compare_html(struct strbuf *sb, const struct analyze_comparison *c)
{
	page_head(sb, "diskproof compare: run", c->a->id, NULL);
	strbuf_addf(sb,
		    "<header class=\"page\"><h1>diskproof compare: run %" PRId64 " (A) vs run "
		    "%" PRId64 " (B)</h1>\n<div class=\"sub\">test: ",
		    c->a->id, c->b->id);
	html_esc(sb, c->test);
	strbuf_addf(sb, " &middot; alpha %g, Holm-corrected per scope (%zu figures)</div>\n",
		    c->alpha, c->family);
	nav(sb, cmp_sections, DP_ARRAY_SIZE(cmp_sections), NULL, 0);
	strbuf_addstr(sb, "</header>\n");
	section_open(sb, "summary", "Summary", true);
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
	page_foot(sb);
}
