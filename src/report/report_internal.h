/*
 * report_internal.h - private to src/report: the renderers of a run that
 * report.c's table of formats dispatches to, and the small pieces the
 * renderers share. Not a public header.
 */
#ifndef DISKPROOF_REPORT_INTERNAL_H
#define DISKPROOF_REPORT_INTERNAL_H

#include <stdbool.h>

#include "diskproof/report.h"

/* s, or dflt when s is NULL or empty. */
static inline const char *report_str_or(const char *s, const char *dflt)
{
	return s && *s ? s : dflt;
}

/* The terminal summary (text.c), free text escaped (report_text_escape). */
void report_text_escaped(struct strbuf *out, const struct results *r, bool color);
/* The JSON document of a run (json.c). */
void report_json(struct strbuf *sb, const struct results *r);

/* v with at most `decimals` decimals and no trailing zeros: 21.4, 20, 812;
 * "n/a" when not finite (verdict.c). */
void report_number(struct strbuf *sb, double v, int decimals);

#endif
