/* SPDX-License-Identifier: MIT */
/*
 * html_run.c - the HTML page of one run (report --format html) with
 * Jetstress's sections: summary, sizing, parameters, auto-tune, databases,
 * performance over time, latency per volume (html_volume.c), warm-up,
 * latency distribution, maintenance and replication, total I/O, host
 * performance, verdicts and the test log. Like
 * the other renderers it computes nothing: it formats struct results
 * (docs/reports.md); the charts are html_chart.c's.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "html.h"

static const char *const class_colors[IO_CLASS_COUNT] = {
	[IO_DB_READ] = "#1d4ed8",  [IO_DB_WRITE] = "#c2410c", [IO_LOG_WRITE] = "#047857",
	[IO_BDM_READ] = "#7c3aed", [IO_LOG_READ] = "#0e7490", [IO_BACKUP_READ] = "#a16207",
};

static const char *const volume_colors[] = {
	"#1d4ed8", "#c2410c", "#047857", "#7c3aed", "#b91c1c", "#0e7490", "#a16207", "#be185d",
};

static void kv_row(struct strbuf *sb, const char *key, const char *value)
{
	strbuf_addf(sb, "<tr><th>%s</th><td>", key);
	html_esc(sb, report_str_or(value, "-"));
	strbuf_addstr(sb, "</td></tr>\n");
}

/* When the load began (asked for with run --start-at, and really) and the
 * clock both were read on; the warning when it was worse than allowed. */
static void run_clock_rows(struct strbuf *sb, const struct results *r)
{
	struct report_clock c;
	struct strbuf v = STRBUF_INIT;

	report_clock_get(r, &c);
	if (r->start_at)
		kv_row(sb, "Start at (UTC)", r->start_at);
	if (r->load_started_at)
		kv_row(sb, "Load started (UTC)", r->load_started_at);
	if (c.recorded) {
		strbuf_addstr(&v, !strcmp(c.synchronised, "yes")  ? "synchronised"
				  : !strcmp(c.synchronised, "no") ? "not synchronised"
								  : "synchronisation unknown");
		if (isfinite(c.max_error_ms))
			strbuf_addf(&v, ", max error %.3f ms", c.max_error_ms);
		if (isfinite(c.est_error_ms))
			strbuf_addf(&v, ", est. error %.3f ms", c.est_error_ms);
		strbuf_addf(&v, ", daemon %s", report_str_or(c.daemon, "unknown"));
		kv_row(sb, "Clock", v.buf);
	}
	if (c.warning) {
		strbuf_addstr(sb, "<tr class=\"clock-warning\"><th>Clock warning</th><td>");
		html_esc(sb, c.warning);
		strbuf_addstr(sb, "</td></tr>\n");
	}
	strbuf_release(&v);
}

/* The run's whole-run histogram of class c holds latencies. */
static bool run_hist_any(const struct results *r, enum io_class c)
{
	const struct hist *h = results_hist_get(r, SCOPE_RUN, "run", c);

	return h && h->count;
}

static const char *const run_sections[][2] = {
	{"summary", "Test summary"},
	{"sizing", "Sizing and throughput"},
	{"parameters", "Test parameters"},
	{"autotune", "Auto-tune"},
	{"pass", "Backup or recovery"},
	{"databases", "Transactional I/O per database"},
	{"response", "Response time (open loop)"},
	{"over-time", "Performance over time"},
	{"volume-latency", "Latency per volume"},
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

/* A card whose value is a word ("none", "unknown"). */
static void card_text(struct strbuf *sb, const char *key, const char *word)
{
	strbuf_addf(sb, "<div class=\"card\"><div class=\"k\">%s</div><div class=\"v\">", key);
	html_esc(sb, word);
	strbuf_addstr(sb, "</div></div>\n");
}

/* Why: one sentence for the run, each failed volume and each failed
 * database (why.c), under the failing verdicts. */
static void run_why(struct strbuf *sb, const struct results *r)
{
	struct strbuf w = STRBUF_INIT;

	if (!report_why_run(&w, r))
		return;
	strbuf_addstr(sb, "<h3>Why</h3>\n<ul id=\"why\">\n<li class=\"why-run\">");
	html_esc(sb, w.buf);
	strbuf_addstr(sb, "</li>\n");
	for (size_t i = 0; i < r->nr_volumes + r->nr_databases; i++) {
		bool vol = i < r->nr_volumes;
		const struct scope_summary *s =
			vol ? &r->volumes[i] : &r->databases[i - r->nr_volumes];

		strbuf_reset(&w);
		if (!report_why(&w, r, vol ? SCOPE_VOLUME : SCOPE_DATABASE, s->name,
				vol ? NULL : s->volume))
			continue;
		strbuf_addstr(sb,
			      vol ? "<li class=\"why-volume\">" : "<li class=\"why-database\">");
		html_esc(sb, w.buf);
		strbuf_addstr(sb, "</li>\n");
	}
	strbuf_addstr(sb, "</ul>\n");
	strbuf_release(&w);
}

static void run_summary(struct strbuf *sb, const struct results *r)
{
	double target;
	enum results_target tcase = results_target_iops(r, &target);
	size_t i, failed = results_verdicts_failed(r);

	const char *reach_msg, *reach = results_reads_reach(r, &reach_msg);
	bool inconclusive = results_inconclusive(r) && r->verdict && !strcmp(r->verdict, "PASS");

	html_section_open(sb, "summary", "Test summary", true);
	strbuf_addstr(sb, "<p>Overall verdict: ");
	/* figures that pass but that the device did not give: not a PASS */
	html_verdict_badge(sb, inconclusive ? "INCONCLUSIVE" : r->verdict, true);
	if (inconclusive)
		strbuf_addstr(sb, " (the figures pass, but the reads did not reach the device)");
	if (r->status && strcmp(r->status, "passed") && strcmp(r->status, "failed")) {
		strbuf_addstr(sb, " (");
		html_esc(sb, r->status);
		strbuf_addch(sb, ')');
	}
	strbuf_addf(sb, " &nbsp; %zu of %zu verdicts passed</p>\n<div class=\"cards\">\n",
		    r->nr_verdicts - failed, r->nr_verdicts);
	card(sb, "achieved transactional IOPS", results_scope_transactional_iops(&r->run), 1, "");
	if (r->run.txns_recorded)
		card(sb, "transactions per second", r->run.tps, 1, "");
	if (isfinite(target))
		card(sb, "target transactional IOPS", target, 1, "");
	else
		card_text(sb, "target transactional IOPS", results_target_name(tcase));
	if (results_class_present(&r->run.classes[IO_DB_READ]))
		card(sb, "db read avg", r->run.classes[IO_DB_READ].avg_ms, 3, " ms");
	if (results_class_present(&r->run.classes[IO_LOG_WRITE]))
		card(sb, "log write avg", r->run.classes[IO_LOG_WRITE].avg_ms, 3, " ms");
	if (results_class_present(&r->run.classes[IO_BACKUP_READ]))
		card(sb, "backup read", r->run.classes[IO_BACKUP_READ].mbps, 2, " MB/s");
	strbuf_addstr(sb, "</div>\n");
	if (tcase == RESULTS_TARGET_NONE)
		strbuf_addstr(sb, "<p class=\"note\">No target transactional IOPS was set for this "
				  "run (no <code>transactional_iops</code> verdict).</p>\n");
	else if (tcase == RESULTS_TARGET_UNKNOWN && isfinite(target))
		strbuf_addstr(sb,
			      "<p class=\"note\">The run was not judged: the target is its "
			      "parameter <code>target_iops</code>, not reached or missed.</p>\n");
	else if (tcase == RESULTS_TARGET_UNKNOWN)
		strbuf_addstr(sb, "<p class=\"note\">The run was not judged: its target "
				  "transactional IOPS, if any, is not known.</p>\n");
	else
		strbuf_addf(sb, "<p class=\"note\">Target transactional IOPS: %s.</p>\n",
			    tcase == RESULTS_TARGET_PASSED ? "reached (PASS)" : "missed (FAIL)");
	if (reach) {
		/* whether the reads reached the devices (results_reads_reach) */
		strbuf_addf(sb, "<p class=\"%s reach\">",
			    !strcmp(reach, "not_reached") ? "FAIL" : "note");
		if (!strcmp(reach, "not_reached"))
			strbuf_addstr(sb, "<b>INCONCLUSIVE</b> ");
		html_esc(sb, report_str_or(reach_msg, "-"));
		strbuf_addstr(sb, "</p>\n");
	}
	if (failed) {
		strbuf_addstr(sb, "<h3>Failing verdicts</h3>\n<ul>\n");
		for (i = 0; i < r->nr_verdicts; i++) {
			struct strbuf line = STRBUF_INIT;

			if (r->verdicts[i].passed)
				continue;
			report_verdict_line(&line, &r->verdicts[i]);
			report_verdict_margin(&line, &r->verdicts[i]);
			report_verdict_context(&line, r, &r->verdicts[i]);
			strbuf_addstr(sb, "<li class=\"FAIL\">");
			html_esc(sb, line.buf);
			strbuf_addstr(sb, "</li>\n");
			strbuf_release(&line);
		}
		strbuf_addstr(sb, "</ul>\n");
	}
	run_why(sb, r);
	strbuf_addstr(sb, "<table class=\"kv\">\n");
	kv_row(sb, "Label", r->label);
	kv_row(sb, "Host", r->host);
	kv_row(sb, "Started (UTC)", r->started_at);
	kv_row(sb, "Ended (UTC)", r->ended_at);
	run_clock_rows(sb, r);
	kv_row(sb, "Status", r->status);
	strbuf_addf(sb, "<tr><th>Exit code</th><td>%d</td></tr>\n</table>\n</section>\n",
		    r->exit_code);
}

/* Bytes in MiB, n/a when not known. */
static void td_mib(struct strbuf *sb, bool known, uint64_t bytes)
{
	html_td_num(sb, known ? (double)bytes / (1024.0 * 1024.0) : NAN, 1);
}

/*
 * The two maxima's headings, each named for what it is (issue 30): the
 * slowest single I/O, and the highest average over one sample of the
 * run's configured length (max_basis = sample judges that one).
 */
static void th_max_pair(struct strbuf *sb, const struct results *r)
{
	strbuf_addstr(sb, "<th class=\"num\">slowest I/O ms</th>");
	if (r->sample_s > 0)
		strbuf_addf(sb, "<th class=\"num\">max %gs avg ms</th>", r->sample_s);
	else
		strbuf_addstr(sb, "<th class=\"num\">max sample avg ms</th>");
}

/* The databases' sizes at the start and at the end: each volume's and the total. */
static void run_db_sizes(struct strbuf *sb, const struct results *r)
{
	if (!r->nr_databases)
		return;
	strbuf_addstr(sb, "<table>\n<tr><th>volume</th><th class=\"num\">databases</th>"
			  "<th class=\"num\">size at start MiB</th>"
			  "<th class=\"num\">size at end MiB</th></tr>\n");
	for (size_t i = 0; i < r->nr_volumes; i++) {
		const struct scope_summary *v = &r->volumes[i];
		size_t n = 0;

		for (size_t k = 0; k < r->nr_databases; k++)
			n += !strcmp(r->databases[k].volume, v->name);
		strbuf_addstr(sb, "<tr><td>");
		html_esc(sb, v->name);
		strbuf_addf(sb, "</td><td class=\"num\">%zu</td>", n);
		td_mib(sb, v->size_known, v->size);
		td_mib(sb, v->final_size_known, v->final_size);
		strbuf_addstr(sb, "</tr>\n");
	}
	strbuf_addf(sb, "<tr><td>total</td><td class=\"num\">%zu</td>", r->nr_databases);
	td_mib(sb, r->run.size_known, r->run.size);
	td_mib(sb, r->run.final_size_known, r->run.final_size);
	strbuf_addstr(sb, "</tr>\n</table>\n<p class=\"note\">A database's size at the end is "
			  "n/a when the run did not reach its end (killed) or the results file "
			  "is older than schema 6.</p>\n");
}

static void run_sizing(struct strbuf *sb, const struct results *r)
{
	const struct class_summary *cs;
	int c;

	html_section_open(sb, "sizing", "Sizing and throughput", false);
	strbuf_addf(sb,
		    "<table class=\"kv\">\n<tr><th>Volumes</th><td>%zu</td></tr>\n"
		    "<tr><th>Databases</th><td>%zu</td></tr>\n"
		    "<tr><th>Streams</th><td>%u</td></tr>\n<tr><th>Measured</th><td>",
		    r->nr_volumes, r->nr_databases, r->streams);
	html_num(sb, r->duration_s, 0);
	strbuf_addstr(sb, " s</td></tr>\n<tr><th>Warm-up</th><td>");
	html_num(sb, r->warmup_s, 0);
	strbuf_addstr(sb, " s</td></tr>\n<tr><th>Achieved transactional IOPS</th><td>");
	html_num(sb, results_scope_transactional_iops(&r->run), 1);
	strbuf_addstr(sb, "</td></tr>\n</table>\n<table>\n<tr><th>class</th><th class=\"num\">IOs"
			  "</th><th class=\"num\">IOPS</th><th class=\"num\">MB/s</th>"
			  "<th class=\"num\">bytes</th><th class=\"num\">bytes/IO</th></tr>\n");
	for (c = 0; c < IO_CLASS_COUNT; c++) {
		cs = &r->run.classes[c];
		if (!results_class_present(cs))
			continue;
		strbuf_addf(sb, "<tr><td>%s</td><td class=\"num\">%" PRIu64 "</td>",
			    stats_io_class_name(c), cs->ios);
		html_td_num(sb, cs->iops, 1);
		html_td_num(sb, cs->mbps, 2);
		strbuf_addf(sb, "<td class=\"num\">%" PRIu64 "</td>", cs->bytes);
		html_td_num(sb, results_class_avg_bytes(cs), 0);
		strbuf_addstr(sb, "</tr>\n");
	}
	strbuf_addstr(sb, "</table>\n<p class=\"note\">Database sizes and file layout are those of "
			  "the profile under Test parameters. MB/s is 10<sup>6</sup> bytes per "
			  "second; warm-up excluded. Classes this run did not issue are not "
			  "listed. Bytes/IO is the average size of one I/O: for log writes it "
			  "shows how many commits a write carried (commit batching).</p>\n");
	run_db_sizes(sb, r);
	strbuf_addstr(sb, "</section>\n");
}

static void run_parameters(struct strbuf *sb, const struct results *r)
{
	html_section_open(sb, "parameters", "Test parameters", false);
	strbuf_addstr(sb, "<table class=\"kv\">\n");
	kv_row(sb, "Profile", r->profile_name);
	kv_row(sb, "Test type", r->test_type);
	kv_row(sb, "Engine", r->engine);
	strbuf_addf(sb, "<tr><th>Streams</th><td>%u</td></tr>\n", r->streams);
	kv_row(sb, "Label", r->label);
	strbuf_addstr(sb, "<tr><th>Command line</th><td><code>");
	html_esc(sb, report_str_or(r->command_line, "-"));
	strbuf_addstr(sb, "</code></td></tr>\n</table>\n");
	report_html_params(sb, r);
	strbuf_addstr(sb, "<h3>Profile</h3>\n<pre>");
	html_esc(sb, report_str_or(r->profile_text, "(not stored)"));
	strbuf_addstr(sb, "</pre>\n</section>\n");
}

static void class_cells(struct strbuf *sb, const struct class_summary *cs)
{
	html_td_num(sb, cs->iops, 1);
	html_td_num(sb, cs->avg_ms, 3);
	html_td_num(sb, cs->p99_ms, 3);
	html_td_num(sb, cs->max_ms, 3);
	html_td_num(sb, cs->max_sample_avg_ms, 3);
}

/* A scope's page fault stalls per second; n/a where the run did not count them. */
static void stalls_cell(struct strbuf *sb, const struct scope_summary *sc)
{
	html_td_num(sb, sc->stalls_recorded ? sc->page_fault_stalls_per_s : NAN, 3);
}

static void run_databases(struct strbuf *sb, const struct results *r)
{
	const struct scope_summary *db;
	const char *v;
	size_t i;

	html_section_open(sb, "databases", "Transactional I/O per database", false);
	strbuf_addstr(sb,
		      "<table>\n<tr><th rowspan=\"2\">database</th><th rowspan=\"2\">volume</th>"
		      "<th colspan=\"5\">db_read</th><th colspan=\"5\">db_write</th>"
		      "<th colspan=\"3\">log_write</th><th rowspan=\"2\">streams</th>"
		      "<th rowspan=\"2\">transactional IOPS</th>"
		      "<th rowspan=\"2\">page fault stalls/s</th>"
		      "<th colspan=\"2\">size MiB</th>"
		      "<th rowspan=\"2\">verdict</th></tr>\n<tr>");
	for (i = 0; i < 2; i++) {
		strbuf_addstr(sb, "<th class=\"num\">IOPS</th><th class=\"num\">avg ms</th>"
				  "<th class=\"num\">p99 ms</th>");
		th_max_pair(sb, r);
	}
	strbuf_addstr(sb, "<th class=\"num\">IOPS</th><th class=\"num\">avg ms</th>"
			  "<th class=\"num\">bytes/IO</th>"
			  "<th class=\"num\">start</th><th class=\"num\">end</th></tr>\n");
	for (i = 0; i < r->nr_databases; i++) {
		db = &r->databases[i];
		v = report_scope_verdict(r, SCOPE_DATABASE, db->name, db->volume);
		strbuf_addf(sb, "<tr%s><td>", !strcmp(v, "FAIL") ? " class=\"fail\"" : "");
		html_esc(sb, db->name);
		strbuf_addstr(sb, "</td><td>");
		html_esc(sb, db->volume);
		strbuf_addstr(sb, "</td>");
		class_cells(sb, &db->classes[IO_DB_READ]);
		class_cells(sb, &db->classes[IO_DB_WRITE]);
		html_td_num(sb, db->classes[IO_LOG_WRITE].iops, 1);
		html_td_num(sb, db->classes[IO_LOG_WRITE].avg_ms, 3);
		/* the log write size shows commit batching (docs/reports.md) */
		html_td_num(sb, results_class_avg_bytes(&db->classes[IO_LOG_WRITE]), 0);
		html_td_num(sb, db->streams, 2);
		html_td_num(sb, results_scope_transactional_iops(db), 1);
		stalls_cell(sb, db);
		td_mib(sb, db->size_known, db->size);
		td_mib(sb, db->final_size_known, db->final_size);
		strbuf_addf(sb, "<td class=\"%s\">%s</td></tr>\n", v, v);
	}
	strbuf_addstr(sb, "</table>\n");
	html_chart_db_bars(sb, "chart-db-iops", "Transactional IOPS per database", r->databases,
			   r->nr_databases);
	html_txn_table(sb, r);
	strbuf_addstr(sb, "</section>\n");
}

/* The classes of the IOPS-over-time chart: the transactional ones the run
 * issued (results_classes_issued), or, in a run without them (a backup
 * test), every class it issued. */
static unsigned over_time_classes(unsigned issued, bool *transactional)
{
	*transactional = (issued & HTML_TRANSACTIONAL) || !issued;
	return *transactional ? HTML_TRANSACTIONAL : issued;
}

static void run_over_time(struct strbuf *sb, const struct results *r)
{
	struct html_series vs[DP_ARRAY_SIZE(volume_colors)];
	struct html_series ls;
	struct html_hline hl;
	struct html_chart ch;
	size_t i, nv = r->nr_volumes < DP_ARRAY_SIZE(vs) ? r->nr_volumes : DP_ARRAY_SIZE(vs);
	unsigned issued = results_classes_issued(r), classes;
	bool transactional;
	int c;

	classes = over_time_classes(issued, &transactional);
	html_section_open(sb, "over-time", "Performance over time", false);
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

		if (!(issued & (1u << c)))
			continue;
		snprintf(id, sizeof(id), "chart-lat-%s", stats_io_class_name(c));
		snprintf(title, sizeof(title), "%s average latency over time",
			 stats_io_class_name(c));
		ls = (struct html_series){.r = r,
					  .src = HTML_SRC_AVG_MS,
					  .scope = SCOPE_RUN,
					  .name = "run",
					  .classes = 1u << c,
					  .label = stats_io_class_name(c),
					  .color = class_colors[c]};
		html_class_hline(r, c, &hl, hlabel, sizeof(hlabel));
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
	strbuf_addstr(sb, "</div>\n<div class=\"charts2\">\n");
	for (c = 0; c < IO_CLASS_COUNT; c++)
		if (issued & (1u << c))
			html_chart_tail(sb, r, SCOPE_RUN, "run", (enum io_class)c, class_colors[c]);
	strbuf_addstr(sb, "</div>\n<p class=\"note\">The p99 and slowest I/O charts draw each "
			  "second's stored p99 and slowest single I/O (not averages): a stall "
			  "shows there first. Each chart draws the threshold that judges its "
			  "figure: the average charts the average threshold, the slowest I/O "
			  "charts the maximum threshold when it judges the slowest I/O "
			  "(<code>max_basis = io</code>), none when it judges the highest "
			  "sample average. Long runs are thinned to one point per pixel, "
			  "keeping the highest value of each.</p>\n</section>\n");
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
	html_section_open(sb, "warmup", "Warm-up (not judged)", false);
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
			    stats_io_class_name(c), wc->ios);
		html_td_num(sb, wc->iops, 1);
		html_td_num(sb, wc->avg_ms, 3);
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
	hl.y = html_verdict_threshold(r, "db_read_avg_ms");
	snprintf(hlabel, sizeof(hlabel), "avg threshold %g ms", isfinite(hl.y) ? hl.y : 0);
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
	html_section_open(sb, "autotune", "Auto-tune", false);
	strbuf_addstr(sb, "<table class=\"kv\">\n");
	kv_row(sb, "Goal", a->goal);
	if (a->has_chosen && a->chosen)
		strbuf_addf(sb, "<tr><th>Chosen streams</th><td>%u</td></tr>\n", a->chosen);
	else
		kv_row(sb, "Chosen streams", a->has_chosen ? "none (no level passed)" : NULL);
	kv_row(sb, "Stopped because", a->stopped_because);
	if (a->note)
		kv_row(sb, "Note", a->note);
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
		html_td_num(sb, st->iops, 1);
		html_td_num(sb, st->db_read_avg_ms, 3);
		html_td_num(sb, st->log_write_avg_ms, 3);
		strbuf_addf(sb, "<td class=\"%s\">%s</td><td>", st->passed ? "PASS" : "FAIL",
			    st->passed ? "PASS" : "FAIL");
		html_esc(sb, report_str_or(st->reason, ""));
		strbuf_addstr(sb, "</td></tr>\n");
	}
	strbuf_addstr(sb, "</table>\n<p class=\"note\">Each step measured one stream count "
			  "before the main test; a level passes when it stays the profile's "
			  "margin under every latency threshold. Failed levels are hollow in the "
			  "chart. Auto-tune's I/O is in no other figure and no verdict.</p>\n"
			  "</section>\n");
}

/* A backup or recovery test's figures as the run recorded them (its
 * "backup" or "recovery" events). */
static void run_pass_figures(struct strbuf *sb, const struct results *r)
{
	const char *kind = r->test_type;

	if (!kind || (strcmp(kind, "backup") && strcmp(kind, "recovery")))
		return;
	html_section_open(sb, "pass", !strcmp(kind, "backup") ? "Backup" : "Recovery", false);
	strbuf_addstr(sb, "<ul>\n");
	for (size_t i = 0; i < r->nr_events; i++) {
		if (strcmp(r->events[i].kind, kind))
			continue;
		strbuf_addstr(sb, "<li>");
		html_esc(sb, r->events[i].message);
		strbuf_addstr(sb, "</li>\n");
	}
	strbuf_addstr(sb, "</ul>\n</section>\n");
}

static void run_distribution(struct strbuf *sb, const struct results *r)
{
	struct html_series s[IO_CLASS_COUNT];
	struct html_chart ch;
	size_t n = 0;
	int c;

	html_section_open(sb, "distribution", "Latency distribution", false);
	for (c = 0; c < IO_CLASS_COUNT; c++)
		if (run_hist_any(r, c))
			s[n++] = (struct html_series){.r = r,
						      .src = HTML_SRC_CDF,
						      .scope = SCOPE_RUN,
						      .name = "run",
						      .cls = (enum io_class)c,
						      .label = stats_io_class_name(c),
						      .color = class_colors[c]};
	ch = (struct html_chart){.id = "chart-cdf",
				 .title = "Latency CDF per class (whole run, warm-up excluded)",
				 .x_label = "latency (ms, log scale)",
				 .y_label = "share of I/Os at or below",
				 .series = s,
				 .nr_series = n,
				 .y_percent = true,
				 .x_log10 = true,
				 .pctl_marks = true,
				 .svg_class = "cdf"};
	html_chart_line(sb, &ch);
	strbuf_addstr(sb, "<p class=\"note\">From the run's latency histogram: each point is a "
			  "bucket's value (within 1/128) and the share of I/Os up to it, on a "
			  "logarithmic latency axis so that the tail is as wide as the body. One "
			  "curve per class the run issued; the marks are each class's p99 "
			  "(circle), p99.9 (square) and p99.99 (triangle).</p>\n</section>\n");
}

/* IOs, MB/s, avg ms, slowest I/O ms of one class */
static void maintenance_cells(struct strbuf *sb, const struct class_summary *cs)
{
	strbuf_addf(sb, "<td class=\"num\">%" PRIu64 "</td>", cs->ios);
	html_td_num(sb, cs->mbps, 2);
	html_td_num(sb, cs->avg_ms, 3);
	html_td_num(sb, cs->max_ms, 3);
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
		html_td_num(sb, sc->classes[IO_LOG_WRITE].mbps, 2);
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
	bool bdm = results_class_present(&r->run.classes[IO_BDM_READ]);
	bool repl = results_class_present(&r->run.classes[IO_LOG_READ]);
	size_t i;

	html_section_open(sb, "maintenance", "Background maintenance and replication", false);
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
		strbuf_addstr(sb,
			      "<th class=\"num\">IOs</th><th class=\"num\">MB/s</th>"
			      "<th class=\"num\">avg ms</th><th class=\"num\">slowest I/O ms</th>");
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
	bool first = true, first_row = true;
	int c;

	for (c = 0; c < IO_CLASS_COUNT; c++) {
		cs = &sc->classes[c];
		if (!results_class_present(cs))
			continue;
		strbuf_addstr(sb, "<tr><td>");
		if (first)
			html_esc(sb, label);
		first = false;
		strbuf_addf(sb, "</td><td>%s</td><td class=\"num\">%" PRIu64 "</td>",
			    stats_io_class_name(c), cs->ios);
		html_td_num(sb, cs->iops, 1);
		html_td_num(sb, cs->mbps, 2);
		html_td_num(sb, cs->avg_ms, 3);
		html_td_num(sb, cs->p50_ms, 3);
		html_td_num(sb, cs->p99_ms, 3);
		html_td_num(sb, cs->p999_ms, 3);
		html_td_num(sb, cs->p9999_ms, 3);
		html_td_num(sb, cs->max_ms, 3);
		html_td_num(sb, cs->max_sample_avg_ms, 3);
		html_td_num(sb, results_class_avg_bytes(cs), 0);
		strbuf_addf(sb, "<td class=\"num\">%" PRIu64 "</td>", cs->errors);
		if (first_row)
			stalls_cell(sb, sc);
		else
			strbuf_addstr(sb, "<td></td>");
		strbuf_addstr(sb, "</tr>\n");
		first_row = false;
	}
	if (!first)
		return;
	strbuf_addstr(sb, "<tr><td>");
	html_esc(sb, label);
	strbuf_addstr(sb, "</td><td colspan=\"14\">no I/O</td></tr>\n");
}

static void run_total_io(struct strbuf *sb, const struct results *r)
{
	size_t i;

	html_section_open(sb, "total-io", "Total I/O", false);
	strbuf_addstr(sb, "<table>\n<tr><th>volume</th><th>class</th><th class=\"num\">IOs</th>"
			  "<th class=\"num\">IOPS</th><th class=\"num\">MB/s</th>"
			  "<th class=\"num\">avg ms</th><th class=\"num\">p50 ms</th>"
			  "<th class=\"num\">p99 ms</th><th class=\"num\">p99.9 ms</th>"
			  "<th class=\"num\">p99.99 ms</th>");
	th_max_pair(sb, r);
	strbuf_addstr(sb, "<th class=\"num\">bytes/IO</th>"
			  "<th class=\"num\">errors</th><th class=\"num\">page fault stalls/s</th>"
			  "</tr>\n");
	for (i = 0; i < r->nr_volumes; i++)
		scope_class_rows(sb, &r->volumes[i], r->volumes[i].name);
	scope_class_rows(sb, &r->run, "total");
	strbuf_addf(sb,
		    "</table>\n<p class=\"note\">p99.9 and p99.99 come from the whole-run "
		    "latency histograms (within 1/128); n/a without I/O. Bytes/IO is the "
		    "average size of one I/O. Integrity errors (pages that failed "
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
		html_td_num(sb, d->reads_per_s, 1);
		html_td_num(sb, d->writes_per_s, 1);
		html_td_num(sb, d->read_mbps, 2);
		html_td_num(sb, d->write_mbps, 2);
		html_td_num(sb, d->read_wait_ms, 3);
		html_td_num(sb, d->write_wait_ms, 3);
		html_td_num(sb, d->avg_wait_ms, 3);
		html_td_num(sb, d->util_pct, 1);
		html_td_num(sb, d->util_max_pct, 1);
		html_td_num(sb, d->queue, 2);
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

/* Each volume with its mount point and the block device under it
 * ("loop8 (7:8)"), as the run recorded them; nothing for a sim run. */
static void run_volume_devices(struct strbuf *sb, const struct results *r)
{
	bool any = false;

	for (size_t i = 0; i < r->nr_volumes; i++) {
		const char *vol = r->volumes[i].name, *dev = report_volume_device(r, vol);
		struct strbuf key = STRBUF_INIT;
		const char *mnt, *devno;

		if (!dev)
			continue;
		if (!any)
			strbuf_addstr(sb, "<table class=\"volume-devices\">\n<tr><th>volume</th>"
					  "<th>mounted on</th><th>device</th></tr>\n");
		any = true;
		strbuf_addf(&key, "volume.%s.mount_point", vol);
		mnt = results_env_get(r, key.buf);
		strbuf_reset(&key);
		strbuf_addf(&key, "device.%s.devno", vol);
		devno = results_env_get(r, key.buf);
		strbuf_addstr(sb, "<tr><td>");
		html_esc(sb, vol);
		strbuf_addstr(sb, "</td><td>");
		html_esc(sb, mnt ? mnt : "-");
		strbuf_addstr(sb, "</td><td class=\"device\">");
		html_esc(sb, dev);
		if (devno && strcmp(devno, "unknown")) {
			strbuf_addstr(sb, " (");
			html_esc(sb, devno);
			strbuf_addch(sb, ')');
		}
		strbuf_addstr(sb, "</td></tr>\n");
		strbuf_release(&key);
	}
	if (any)
		strbuf_addstr(sb, "</table>\n");
}

static void run_host(struct strbuf *sb, const struct results *r)
{
	size_t i;

	html_section_open(sb, "host", "Host performance", false);
	run_host_counters(sb, r);
	if (!r->nr_env) {
		strbuf_addstr(sb, "<p>No environment facts were recorded.</p>\n</section>\n");
		return;
	}
	if (r->host_perf.recorded)
		strbuf_addstr(sb, "<h3>Environment</h3>\n");
	run_volume_devices(sb, r);
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
		report_verdict_context(&line, r, v);
		strbuf_addf(sb, "<tr%s><td class=\"%s\">%s</td><td>%s</td><td>",
			    passed ? "" : " class=\"fail\"", passed ? "PASS" : "FAIL",
			    passed ? "PASS" : "FAIL", results_scope_kind_name(v->scope));
		html_esc(sb, v->name);
		strbuf_addstr(sb, "</td><td>");
		html_esc(sb, v->criterion);
		strbuf_addf(sb, "</td><td>%s</td>", v->cmp == VERDICT_GE ? "&ge;" : "&le;");
		html_td_num(sb, v->threshold, 3);
		html_td_num(sb, v->measured, 3);
		strbuf_addstr(sb, "<td>");
		html_esc(sb, line.buf);
		strbuf_addstr(sb, "</td></tr>\n");
		strbuf_release(&line);
	}
}

static void run_verdicts(struct strbuf *sb, const struct results *r)
{
	html_section_open(sb, "verdicts", "Verdicts", false);
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

	html_section_open(sb, "log", "Test log", false);
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

void report_html(struct strbuf *sb, const struct results *r, const struct report_options *opt)
{
	/* sections a run may not have */
	bool pass = r->test_type &&
		    (!strcmp(r->test_type, "backup") || !strcmp(r->test_type, "recovery"));
	const char *const skip[] = {results_autotune_ran(r) ? NULL : "autotune",
				    r->warmup.duration_s > 0 ? NULL : "warmup",
				    pass ? NULL : "pass",
				    r->run.response_recorded ? NULL : "response"};

	html_page_head(sb, "diskproof run", r->id, r->label);
	strbuf_addf(sb, "<header class=\"page\"><h1>diskproof run %" PRId64 " ", r->id);
	html_verdict_badge(sb, r->verdict, false);
	if (r->label) {
		strbuf_addstr(sb, " <span class=\"label\">");
		html_esc(sb, r->label);
		strbuf_addstr(sb, "</span>");
	}
	strbuf_addstr(sb, "</h1>\n<div class=\"sub\">profile ");
	html_esc(sb, report_str_or(r->profile_name, "-"));
	strbuf_addstr(sb, " &middot; host ");
	html_esc(sb, report_str_or(r->host, "-"));
	strbuf_addstr(sb, " &middot; started ");
	html_esc(sb, report_str_or(r->started_at, "-"));
	strbuf_addstr(sb, " &middot; engine ");
	html_esc(sb, report_str_or(r->engine, "-"));
	if (r->series_uuid) {
		strbuf_addstr(sb, " &middot; ");
		report_series_place(sb, r);
	}
	if (results_simulated(r))
		strbuf_addstr(sb, " <b class=\"FAIL\">(simulated: no device measured)</b>");
	strbuf_addstr(sb, "</div>\n");
	html_nav(sb, run_sections, DP_ARRAY_SIZE(run_sections), skip, DP_ARRAY_SIZE(skip));
	strbuf_addstr(sb, "</header>\n");
	run_summary(sb, r);
	report_series_html(sb, r); /* a run of a series only */
	run_sizing(sb, r);
	run_parameters(sb, r);
	run_autotune(sb, r);
	run_pass_figures(sb, r);
	run_databases(sb, r);
	html_run_response(sb, r, class_colors);
	run_over_time(sb, r);
	html_volume_latency(sb, r, class_colors);
	run_warmup(sb, r);
	run_distribution(sb, r);
	run_maintenance(sb, r);
	run_total_io(sb, r);
	run_host(sb, r);
	run_verdicts(sb, r);
	run_log(sb, r);
	html_page_foot(sb);
}
