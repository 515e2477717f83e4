/*
 * report.h - results model to text and JSON. Renderers compute nothing: they
 * format what struct results holds.
 *
 * text: the terminal summary: overall verdict first, failing verdicts on top
 *       with their margin ("db3 on vol2: database read average 21.4 ms > 20 ms
 *       (+7 %)"), then a per-volume table (a row per class present,
 *       class_summary_present(): IOPS, MB/s, avg, p99, max, verdict),
 *       transactional IOPS and the background maintenance, replication and
 *       backup read rates when present, the warm-up (not judged), the
 *       auto-tune steps and the host counters (CPU, memory, a row per block
 *       device: results_host_perf) when the run had them, and the count of
 *       verdicts.
 * json: every class of every scope, present or not (zeros): stable keys.
 *       One valid document, keys documented in docs/reports.md:
 *   { "run": {id, status, verdict, label, host, started, ended, duration_s,
 *             warmup_s, engine, test_type, streams, profile},
 *     "summary": {classes: {...}, transactional_iops},
 *     "volumes": [ {name, classes: {db_read: {ios, iops, mbps, avg_ms, p50_ms,
 *                   p99_ms, max_ms, errors, bytes}, db_write: ..., log_write: ...,
 *                   bdm_read: ..., log_read: ..., backup_read: ...}} ],
 *     "databases": [ {name, volume, classes: {...}} ],
 *     "verdicts": [ {scope, name, criterion, threshold, measured, passed} ],
 *     "warmup": {duration_s, classes: {db_read: {ios, iops, avg_ms, errors},
 *                ...}} or null,
 *     "autotune": {goal, chosen, stopped_because, steps: [ {step, streams, iops,
 *                  db_read_avg_ms, log_write_avg_ms, passed, reason} ]} or null,
 *     "host": {cpu: {intervals, user_pct, system_pct, iowait_pct} or null,
 *              memory: {intervals, available_min_bytes, available_avg_bytes} or
 *              null, devices: [ {name, intervals, reads, writes, reads_per_s,
 *              writes_per_s, read_mbps, write_mbps, read_wait_ms, write_wait_ms,
 *              avg_wait_ms, util_pct, util_max_pct, queue} ]} or null }
 * csv:  the interval time series (csv.c): header
 *   run_id,t_ms,warmup,scope,name,class,ios,iops,mb_s,avg_ms,p50_ms,p99_ms,max_ms,errors
 *       then, for each interval of each scope in the order of r->samples, one
 *       line per class the scope has I/O or errors of in some interval, in
 *       class order: the stored sample, or zeros where none was stored
 *       (results.h). A class with neither in any interval of a scope has no
 *       lines there. iops and mb_s are the counts over the interval's length,
 *       the difference to the previous t_ms of the same scope and name (the
 *       first interval from 0); latencies are empty for an interval with no
 *       I/O. Names are quoted as RFC 4180 says.
 * html: one self-contained page (html_run.c) that loads nothing over the
 *       network, with Jetstress's sections and inline SVG charts; every
 *       string from the results is HTML-escaped. Layout in docs/reports.md.
 *
 * The formats are one const table (report.c): a name, the renderer of a run
 * and, for text, json and html, the renderer of a comparison
 * (report_compare_render, analyze.h).
 */
#ifndef DISKPROOF_REPORT_H
#define DISKPROOF_REPORT_H

#include <stdbool.h>

#include "diskproof/results.h"
#include "diskproof/util.h"

enum report_format { REPORT_TEXT, REPORT_JSON, REPORT_CSV, REPORT_HTML, REPORT_FORMAT_COUNT };

/* -1 when unknown */
int report_format_from_name(const char *name);
/* "text", "json", ...; NULL when fmt is not a format. */
const char *report_format_name(enum report_format fmt);
/* Whether a comparison can be rendered in fmt (text, json, html). */
bool report_format_compares(enum report_format fmt);

struct report_options {
	bool color; /* ANSI colours in text (only on a terminal, not with NO_COLOR) */
};

/* r in format fmt, appended to out; opt may be NULL. Nothing for an unknown fmt. */
void report_render(struct strbuf *out, const struct results *r, enum report_format fmt,
		   const struct report_options *opt);

/* Human text for a verdict: "db3 on vol2: database read average 21.4 ms > 20 ms". */
void report_verdict_line(struct strbuf *out, const struct verdict *v);

/* Appends s (NULL: "-") for a terminal: control characters (below 0x20, and
 * 0x7f) as \xNN, so a label or host name cannot move the cursor, clear the
 * screen or fake a verdict line. A backslash itself stays as it is. */
void report_text_escape(struct strbuf *out, const char *s);

/* A failed verdict's margin past its threshold, relative to it: " (+7 %)";
 * nothing for a pass, a threshold of 0, or a count or percentage criterion
 * (docs/verdicts.md). */
void report_verdict_margin(struct strbuf *out, const struct verdict *v);

#endif
