/* SPDX-License-Identifier: MIT */
/*
 * html_response.c - the run page's section for an open loop (arrival =
 * rate): the page reads' service time beside their response time per scope,
 * and the tool's own backlog and streams over time (docs/reports.md). Like
 * the rest of the page it computes nothing: it formats struct results.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "html.h"

/* One scope's db_read: service time (the class's figures) beside response
 * time (from the transaction's intended start). */
static void response_row(struct strbuf *sb, const struct scope_summary *sc, const char *label)
{
	const struct class_summary *cs = &sc->classes[IO_DB_READ], *rs = &sc->response[IO_DB_READ];

	strbuf_addstr(sb, "<tr><td>");
	html_esc(sb, label);
	strbuf_addf(sb, "</td><td class=\"num\">%" PRIu64 "</td>", cs->ios);
	html_td_num(sb, cs->ios ? cs->avg_ms : NAN, 3);
	html_td_num(sb, cs->ios ? cs->p99_ms : NAN, 3);
	html_td_num(sb, cs->ios ? cs->max_ms : NAN, 3);
	html_td_num(sb, rs->ios ? rs->avg_ms : NAN, 3);
	html_td_num(sb, rs->ios ? rs->p50_ms : NAN, 3);
	html_td_num(sb, rs->ios ? rs->p99_ms : NAN, 3);
	html_td_num(sb, rs->ios ? rs->max_ms : NAN, 3);
	strbuf_addstr(sb, "</tr>\n");
}

/* Open loop: the tool's own queue over time (peak and mean per interval,
 * left) and the streams at work (right), in the response section. */
static void backlog_chart(struct strbuf *sb, const struct results *r,
			  const char *const class_colors[IO_CLASS_COUNT])
{
	struct html_series s[3];
	struct html_chart ch;
	struct results_backlog b;

	results_backlog_summary(r, &b);
	if (!b.recorded)
		return;
	strbuf_addf(sb,
		    "<p class=\"note\">The tool's own queue (transactions arrived and not begun "
		    "for want of a stream): peak %llu, mean %.1f, %.0f s of %.0f s; streams %u "
		    "&rarr; %u (bound %u, [workload] max_streams).</p>\n",
		    (unsigned long long)b.peak, b.mean, b.seconds, b.measured_s, b.streams_start,
		    b.streams_max, b.bound);
	s[0] = (struct html_series){.r = r,
				    .src = HTML_SRC_BACKLOG_PEAK,
				    .label = "backlog peak (left)",
				    .color = class_colors[IO_DB_READ]};
	s[1] = (struct html_series){.r = r,
				    .src = HTML_SRC_BACKLOG_MEAN,
				    .label = "backlog mean (left)",
				    .color = class_colors[IO_DB_READ],
				    .dashed = true};
	s[2] = (struct html_series){.r = r,
				    .src = HTML_SRC_STREAMS,
				    .label = "streams at work (right)",
				    .color = class_colors[IO_DB_WRITE],
				    .right = true};
	ch = (struct html_chart){.id = "chart-backlog",
				 .title = "The tool's own queue and its streams over time",
				 .x_label = "time (s)",
				 .y_label = "transactions waiting",
				 .series = s,
				 .nr_series = 3,
				 .warmup_s = isfinite(r->warmup_s) ? r->warmup_s : 0,
				 .y2_label = "streams",
				 .svg_class = "backlog"};
	html_chart_line(sb, &ch);
}

/* Open loop (arrival = rate): the device's service time and the response
 * time of the same page reads, per scope; no section in a closed-loop run,
 * where response is service. */
void html_run_response(struct strbuf *sb, const struct results *r,
		       const char *const class_colors[IO_CLASS_COUNT])
{
	if (!r->run.response_recorded)
		return;
	html_section_open(sb, "response", "Response time (open loop)", false);
	strbuf_addstr(sb,
		      "<table>\n<tr><th>scope</th><th class=\"num\">db_read IOs</th>"
		      "<th class=\"num\">service avg ms</th><th class=\"num\">service p99 ms</th>"
		      "<th class=\"num\">service max ms</th>"
		      "<th class=\"num\">response avg ms</th><th class=\"num\">response p50 ms</th>"
		      "<th class=\"num\">response p99 ms</th>"
		      "<th class=\"num\">response max ms</th></tr>\n");
	response_row(sb, &r->run, "total");
	for (size_t i = 0; i < r->nr_volumes; i++)
		response_row(sb, &r->volumes[i], r->volumes[i].name);
	for (size_t i = 0; i < r->nr_databases; i++)
		response_row(sb, &r->databases[i], r->databases[i].name);
	strbuf_addf(sb,
		    "</table>\n<p class=\"note\">Service time: a page read's submission to its "
		    "completion (the device). Response time: its transaction's intended start to "
		    "its completion, every page read of the transaction, the wait for a free "
		    "stream included (open loop without coordinated omission). The latency "
		    "thresholds judged the %s time ([thresholds] latency_basis).</p>\n",
		    results_response_judged(r) ? "response" : "service");
	backlog_chart(sb, r, class_colors);
	strbuf_addstr(sb, "</section>\n");
}
