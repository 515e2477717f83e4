/* SPDX-License-Identifier: MIT */
/*
 * report.c - the formats of a report and their renderers: a format's name,
 * and handing a run or a comparison to its renderer (text.c, json.c, csv.c,
 * html_run.c; compare.c, html_compare.c), by one const table.
 * Renderers compute nothing: every number comes from struct results as the
 * store loaded it; they only choose order (failures first), wording and
 * layout. docs/reports.md documents the formats.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"

/*
 * A format: its name (--format NAME), the renderer of a run and that of a
 * comparison (NULL: compare does not offer it). Indexed by enum
 * report_format; test_report checks every entry.
 */
struct report_format_desc {
	const char *name;
	report_run_fn run;
	report_compare_fn compare;
};

static const struct report_format_desc report_formats[] = {
	[REPORT_TEXT] = {"text", report_text, report_compare_text},
	[REPORT_JSON] = {"json", report_json, report_compare_json},
	[REPORT_CSV] = {"csv", report_csv, NULL},
	[REPORT_HTML] = {"html", report_html, report_compare_html},
};

_Static_assert(DP_ARRAY_SIZE(report_formats) == REPORT_FORMAT_COUNT,
	       "a format without its table entry");

static const struct report_format_desc *format_get(enum report_format fmt)
{
	return (unsigned)fmt < DP_ARRAY_SIZE(report_formats) ? &report_formats[fmt] : NULL;
}

int report_format_from_name(const char *name)
{
	size_t i;

	if (!name)
		return -1;
	for (i = 0; i < DP_ARRAY_SIZE(report_formats); i++)
		if (!strcmp(name, report_formats[i].name))
			return (int)i;
	return -1;
}

const char *report_format_name(enum report_format fmt)
{
	const struct report_format_desc *f = format_get(fmt);

	return f ? f->name : NULL;
}

bool report_format_compares(enum report_format fmt)
{
	const struct report_format_desc *f = format_get(fmt);

	return f && f->compare;
}

void report_render(struct strbuf *out, const struct results *r, enum report_format fmt,
		   const struct report_options *opt)
{
	const struct report_format_desc *f = format_get(fmt);

	if (f)
		f->run(out, r, opt);
}

/* A format compare does not offer (csv) gives text, as it always has. */
void report_compare_view_render(struct strbuf *out, const struct report_compare_view *v,
				enum report_format fmt, const struct report_options *opt)
{
	const struct report_format_desc *f = format_get(fmt);

	if (!v->nr_pairs)
		return;
	if (f && f->compare)
		f->compare(out, v, opt);
	else
		report_compare_text(out, v, opt);
}

/* Two runs, their listed changes, no gate. */
void report_compare_render(struct strbuf *out, const struct analyze_comparison *c,
			   enum report_format fmt, const struct report_options *opt)
{
	const struct report_compare_view v = {.pairs = c, .nr_pairs = 1};

	report_compare_view_render(out, &v, fmt, opt);
}

/* An env fact in µs as ms, NaN when absent or not a number. */
static double clock_us_fact(const struct results *r, const char *key)
{
	const char *v = results_env_get(r, key);
	char *end;
	double d;

	if (!v)
		return NAN;
	d = strtod(v, &end);
	return end != v && !*end ? d / 1e3 : NAN;
}

void report_clock_get(const struct results *r, struct report_clock *c)
{
	c->synchronised = results_env_get(r, "host.clock.synchronised");
	c->recorded = c->synchronised != NULL;
	c->max_error_ms = clock_us_fact(r, "host.clock.max_error_us");
	c->est_error_ms = clock_us_fact(r, "host.clock.est_error_us");
	c->daemon = results_env_get(r, "host.clock.daemon");
	c->warning = NULL;
	for (size_t i = 0; r->events && i < r->nr_events; i++)
		if (r->events[i].kind && !strcmp(r->events[i].kind, "clock")) {
			c->warning = r->events[i].message;
			break;
		}
}
