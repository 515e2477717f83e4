/* SPDX-License-Identifier: MIT */
/*
 * series.c - a run's series (run --repeat N) in every report format: the
 * line that places the run ("run 2 of 3 in series 4") and the series'
 * section: its verdict, its runs and, per judged figure, the spread across
 * them (mean, min-max, coefficient of variation) as results/series.c
 * derived it. Text, JSON, HTML and CSV format the same struct
 * results_series; a run outside a series shows none of it (the JSON has no
 * "series" key), so the reports of single runs are unchanged.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "diskproof/json.h"
#include "html.h"
#include "report_internal.h"

void report_series_place(struct strbuf *sb, const struct results *r)
{
	if (!r->series_uuid)
		return;
	strbuf_addf(sb, "run %u of %u in series %" PRId64, r->series_index, r->series_size,
		    r->series ? r->series->id : r->id);
}

/* "2 of 3 runs passed (runs 4 to 6)"; the runs' ids when not one range */
static void series_counts(struct strbuf *sb, const struct results_series *s)
{
	strbuf_addf(sb, "%u of %u runs passed", s->passed, s->size);
	if (s->failed)
		strbuf_addf(sb, ", %u failed", s->failed);
	if (s->nr_runs < s->size)
		strbuf_addf(sb, ", %zu stored", s->nr_runs);
}

/* What a run of the series came to: its verdict, or, without one (NONE:
 * aborted, an error, still running), its status. */
static const char *series_run_word(const struct results_series_run *sr)
{
	if (!strcmp(sr->verdict, "PASS") || !strcmp(sr->verdict, "FAIL"))
		return sr->verdict;
	return report_str_or(sr->status, "-");
}

/* A number of the table, or "-" where there is none. */
static void text_num(struct strbuf *sb, int width, double v, int decimals)
{
	if (isfinite(v))
		strbuf_addf(sb, " %*.*f", width, decimals, v);
	else
		strbuf_addf(sb, " %*s", width, "-");
}

/* Decimals of a figure: IOPS to one, milliseconds to three. */
static int fig_decimals(enum results_series_fig f)
{
	return f == RESULTS_SERIES_TRANS_IOPS ? 1 : 3;
}

/*
 * The text section, 81 columns wide at most:
 *   series 4: PASS, 3 of 3 runs passed
 *   runs: 4 PASS, 5 PASS, 6 PASS
 *   figure                     mean          min          max    CV %  runs
 *   transactional IOPS       6173.6       6100.1       6200.2    0.81     3
 */
void report_series_text(struct strbuf *sb, const struct results *r)
{
	const struct results_series *s = r->series;
	size_t line;

	if (!s)
		return;
	strbuf_addf(sb, "series %" PRId64 ": %s, ", s->id, results_series_verdict(s));
	series_counts(sb, s);
	strbuf_addstr(sb, "\nruns:");
	line = sb->len - 5;
	for (size_t i = 0; i < s->nr_runs; i++) {
		char one[64];
		int n = snprintf(one, sizeof(one), " %" PRId64 " %s%s", s->runs[i].id,
				 series_run_word(&s->runs[i]), i + 1 < s->nr_runs ? "," : "");

		/* a series of 1000 runs wraps, within 120 columns */
		if (sb->len - line + (size_t)n > 100) {
			strbuf_addstr(sb, "\n     ");
			line = sb->len - 5;
		}
		strbuf_addstr(sb, one);
	}
	strbuf_addf(sb, "\n%-22s %12s %12s %12s %7s %5s\n", "figure", "mean", "min", "max", "CV %",
		    "runs");
	for (unsigned f = 0; f < RESULTS_SERIES_FIG_COUNT; f++) {
		const struct results_spread *sp = &s->spread[f];

		if (!sp->n)
			continue;
		strbuf_addf(sb, "%-22s", results_series_fig_label(f));
		text_num(sb, 12, sp->mean, fig_decimals(f));
		text_num(sb, 12, sp->min, fig_decimals(f));
		text_num(sb, 12, sp->max, fig_decimals(f));
		text_num(sb, 7, sp->cv_pct, 2);
		strbuf_addf(sb, " %5zu\n", sp->n);
	}
	strbuf_addstr(sb,
		      "(CV %: the runs' standard deviation over their mean; - with one run, where "
		      "the variation is not known)\n");
}

void report_series_json(struct json *j, const struct results *r)
{
	const struct results_series *s = r->series;

	if (!r->series_uuid)
		return;
	json_begin_object(j, "series");
	json_i64(j, "id", s ? s->id : r->id);
	json_str(j, "uuid", r->series_uuid);
	json_u64(j, "index", r->series_index);
	json_u64(j, "size", r->series_size);
	json_str(j, "verdict", s ? results_series_verdict(s) : NULL);
	json_u64(j, "passed", s ? s->passed : 0);
	json_u64(j, "failed", s ? s->failed : 0);
	json_begin_array(j, "runs");
	for (size_t i = 0; s && i < s->nr_runs; i++) {
		json_begin_object_flat(j, NULL);
		json_i64(j, "id", s->runs[i].id);
		json_u64(j, "index", s->runs[i].index);
		json_str(j, "status", s->runs[i].status);
		json_str(j, "verdict", s->runs[i].verdict[0] ? s->runs[i].verdict : NULL);
		json_end(j);
	}
	json_end(j);
	json_begin_object(j, "figures");
	for (unsigned f = 0; s && f < RESULTS_SERIES_FIG_COUNT; f++) {
		const struct results_spread *sp = &s->spread[f];

		json_begin_object_flat(j, results_series_fig_name(f));
		json_u64(j, "runs", sp->n);
		json_fixed(j, "mean", sp->mean, 3);
		json_fixed(j, "min", sp->min, 3);
		json_fixed(j, "max", sp->max, 3);
		json_fixed(j, "cv_pct", sp->cv_pct, 3);
		json_end(j);
	}
	json_end(j);
	json_end(j);
}

void report_series_html(struct strbuf *sb, const struct results *r)
{
	const struct results_series *s = r->series;

	if (!s)
		return;
	html_section_open(sb, "series", "Series", false);
	strbuf_addstr(sb, "<p>");
	report_series_place(sb, r);
	strbuf_addstr(sb, ": ");
	html_verdict_badge(sb, results_series_verdict(s), false);
	strbuf_addch(sb, ' ');
	series_counts(sb, s);
	strbuf_addstr(sb, "</p>\n<table class=\"series\">\n<tr><th>run</th><th>place</th>"
			  "<th>verdict</th></tr>\n");
	for (size_t i = 0; i < s->nr_runs; i++) {
		strbuf_addf(sb, "<tr><td>%" PRId64 "</td><td>%u of %u</td><td>", s->runs[i].id,
			    s->runs[i].index, s->size);
		if (!strcmp(series_run_word(&s->runs[i]), s->runs[i].verdict))
			html_verdict_badge(sb, s->runs[i].verdict, false);
		else
			html_esc(sb, series_run_word(&s->runs[i]));
		strbuf_addstr(sb, "</td></tr>\n");
	}
	strbuf_addstr(sb, "</table>\n<table class=\"spread\">\n<tr><th>figure</th><th>mean</th>"
			  "<th>min</th><th>max</th><th>CV %</th><th>runs</th></tr>\n");
	for (unsigned f = 0; f < RESULTS_SERIES_FIG_COUNT; f++) {
		const struct results_spread *sp = &s->spread[f];

		if (!sp->n)
			continue;
		strbuf_addf(sb, "<tr data-figure=\"%s\"><th>%s</th>", results_series_fig_name(f),
			    results_series_fig_label(f));
		html_td_num(sb, sp->mean, fig_decimals(f));
		html_td_num(sb, sp->min, fig_decimals(f));
		html_td_num(sb, sp->max, fig_decimals(f));
		html_td_num(sb, sp->cv_pct, 2);
		strbuf_addf(sb, "<td class=\"num\">%zu</td></tr>\n", sp->n);
	}
	strbuf_addstr(sb,
		      "</table>\n<p class=\"note\">CV %: the runs' standard deviation over "
		      "their mean (n/a with one run, where the variation is not known). "
		      "The spread is over the runs that ended with a verdict.</p>\n</section>\n");
}
