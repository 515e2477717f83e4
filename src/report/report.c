/*
 * report.c - the formats of a report and their renderers: a format's name,
 * and handing a run to its renderer (text.c, json.c, csv.c, html_run.c).
 * Renderers compute nothing: every number comes from struct results as the
 * store loaded it; they only choose order (failures first), wording and
 * layout. docs/reports.md documents the formats.
 */
#include <string.h>

#include "report_internal.h"

static const char *const report_format_names[] = {
	[REPORT_TEXT] = "text",
	[REPORT_JSON] = "json",
	[REPORT_CSV] = "csv",
	[REPORT_HTML] = "html",
};

int report_format_from_name(const char *name)
{
	size_t i;

	if (!name)
		return -1;
	for (i = 0; i < DP_ARRAY_SIZE(report_format_names); i++)
		if (!strcmp(name, report_format_names[i]))
			return (int)i;
	return -1;
}

void report_render(struct strbuf *out, const struct results *r, enum report_format fmt,
		   const struct report_options *opt)
{
	bool color = opt && opt->color;

	switch (fmt) {
	case REPORT_TEXT:
		report_text_escaped(out, r, color);
		break;
	case REPORT_JSON:
		report_json(out, r);
		break;
	case REPORT_CSV:
		report_csv(out, r);
		break;
	case REPORT_HTML:
		report_html(out, r);
		break;
	}
}
