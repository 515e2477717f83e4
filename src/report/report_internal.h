/*
 * report_internal.h - private to src/report: the renderers of a run that
 * report.c's table of formats dispatches to, and the number format the text
 * and the verdict sentences share. Not a public header.
 */
#ifndef DISKPROOF_REPORT_INTERNAL_H
#define DISKPROOF_REPORT_INTERNAL_H

#include <stdbool.h>

#include "diskproof/report.h"

/* The terminal summary (text.c), free text escaped (report_text_escape). */
void report_text_escaped(struct strbuf *out, const struct results *r, bool color);
/* The JSON document of a run (json.c). */
void report_json(struct strbuf *sb, const struct results *r);

/* v with at most `decimals` decimals and no trailing zeros: 21.4, 20, 812;
 * "n/a" when not finite (verdict.c). */
void report_number(struct strbuf *sb, double v, int decimals);

#endif
