/* SPDX-License-Identifier: MIT */
/*
 * html.c - what the two HTML pages (html_run.c, html_compare.c) share: the
 * page's head with the inline stylesheet and script (reports/, embedded at
 * build time) and its foot, the table of contents, sections, verdict
 * badges, number cells, HTML escaping, and the threshold a latency chart
 * draws. Each page is one self-contained file that loads nothing over the
 * network; every string that comes from the results file is HTML-escaped.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "html.h"

/* reports/report.css and reports/report.js (cmake/EmbedFile.cmake) */
extern const char report_css[];
extern const char report_js[];

/* & < > " ' as entities; the other control characters are not HTML (and
 * an ESC in a label is not meant for the reader): shown as \xNN, but for
 * tab, newline and carriage return, which stay. */
static const char *const html_named[0x80] = {
	['&'] = "&amp;",  ['<'] = "&lt;", ['>'] = "&gt;", ['"'] = "&quot;",
	['\''] = "&#39;", ['\t'] = "\t",  ['\n'] = "\n",  ['\r'] = "\r",
};

static const struct strbuf_escapes html_escapes = {
	.named = html_named, .hex_prefix = "\\x", .del = true};

void html_esc(struct strbuf *sb, const char *s)
{
	if (s)
		strbuf_add_escaped(sb, s, &html_escapes);
}

void html_num(struct strbuf *sb, double v, int decimals)
{
	if (isfinite(v))
		strbuf_addf(sb, "%.*f", decimals, v);
	else
		strbuf_addstr(sb, "n/a");
}

void html_page_head_title(struct strbuf *sb, const char *title)
{
	strbuf_addstr(sb,
		      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		      "<title>");
	html_esc(sb, title);
	strbuf_addf(sb, "</title>\n<style>\n%s</style>\n<script>\n%s</script>\n</head>\n<body>\n",
		    report_css, report_js);
}

void html_page_head(struct strbuf *sb, const char *title_a, int64_t id, const char *label)
{
	struct strbuf t = STRBUF_INIT;

	strbuf_addf(&t, "%s %" PRId64, title_a, id);
	if (label)
		strbuf_addf(&t, " - %s", label);
	html_page_head_title(sb, t.buf);
	strbuf_release(&t);
}

void html_page_foot(struct strbuf *sb)
{
	strbuf_addstr(sb, "<footer>Made by diskproof " DISKPROOF_VERSION
			  ". Renderers format the results file and compute nothing; the "
			  "figures are those of <code>diskproof report --format json</code>."
			  "</footer>\n</body>\n</html>\n");
}

void html_verdict_badge(struct strbuf *sb, const char *verdict, bool big)
{
	const char *v = report_str_or(verdict, "NONE");
	const char *cls = !strcmp(v, "PASS") ? "PASS" : !strcmp(v, "FAIL") ? "FAIL" : "NONE";

	strbuf_addf(sb, "<span class=\"badge%s %s\">", big ? " big" : "", cls);
	html_esc(sb, v);
	strbuf_addstr(sb, "</span>");
}

void html_section_open(struct strbuf *sb, const char *id, const char *title, bool first)
{
	strbuf_addf(sb, "<section id=\"%s\"%s>\n<h2>%s</h2>\n", id, first ? " class=\"first\"" : "",
		    title);
}

void html_td_num(struct strbuf *sb, double v, int decimals)
{
	strbuf_addstr(sb, "<td class=\"num\">");
	html_num(sb, v, decimals);
	strbuf_addstr(sb, "</td>");
}

/* The threshold of the run-scope verdict on criterion, else the first one; NAN when none. */
double html_verdict_threshold(const struct results *r, const char *criterion)
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
double html_class_avg_threshold(const struct results *r, enum io_class c)
{
	if (c == IO_DB_READ)
		return html_verdict_threshold(r, "db_read_avg_ms");
	if (c == IO_LOG_WRITE)
		return html_verdict_threshold(r, "log_write_avg_ms");
	return NAN;
}

/* The table of contents; a NULL `skip` entry leaves out nothing. */
void html_nav(struct strbuf *sb, const char *const (*items)[2], size_t n, const char *const *skip,
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
