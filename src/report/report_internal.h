/* SPDX-License-Identifier: MIT */
/*
 * report_internal.h - private to src/report: the renderers of a run that
 * report.c's table of formats dispatches to, and the small pieces the
 * renderers share. Not a public header.
 */
#ifndef DISKPROOF_REPORT_INTERNAL_H
#define DISKPROOF_REPORT_INTERNAL_H

#include <stdbool.h>

#include "diskproof/analyze.h"
#include "diskproof/report.h"

/* s, or dflt when s is NULL or empty. */
static inline const char *report_str_or(const char *s, const char *dflt)
{
	return s && *s ? s : dflt;
}

#define REPORT_ANSI_BOLD "\033[1m"
#define REPORT_ANSI_RESET "\033[0m"

/*
 * The renderers report.c's table of formats dispatches to: a run (text.c,
 * json.c, csv.c, html_run.c) and a comparison (compare.c, html_compare.c).
 * Each appends the whole document to out; opt may be NULL (no colour).
 */
typedef void (*report_run_fn)(struct strbuf *out, const struct results *r,
			      const struct report_options *opt);
typedef void (*report_compare_fn)(struct strbuf *out, const struct report_compare_view *v,
				  const struct report_options *opt);

/* The terminal summary, free text escaped (report_text_escape). */
void report_text(struct strbuf *out, const struct results *r, const struct report_options *opt);
/* The JSON document (keys in report.h). */
void report_json(struct strbuf *out, const struct results *r, const struct report_options *opt);
/* The CSV time series (its columns in report.h). */
void report_csv(struct strbuf *out, const struct results *r, const struct report_options *opt);
/* The HTML page: one self-contained file that loads nothing over the
 * network, with Jetstress's sections and inline SVG charts; every string from
 * the results is HTML-escaped. Layout in docs/reports.md. */
void report_html(struct strbuf *out, const struct results *r, const struct report_options *opt);

struct json;
/* A run's series (series.c): the "series" object of its JSON report, and
 * its HTML section; nothing for a run outside a series. */
void report_series_json(struct json *j, const struct results *r);
void report_series_html(struct strbuf *sb, const struct results *r);

/* A comparison as text for the terminal and as JSON (compare.c, keys in
 * docs/compare.md), and as an HTML page of tables and A/B overlay charts
 * (html_compare.c). */
void report_compare_text(struct strbuf *out, const struct report_compare_view *v,
			 const struct report_options *opt);
void report_compare_json(struct strbuf *out, const struct report_compare_view *v,
			 const struct report_options *opt);
void report_compare_html(struct strbuf *out, const struct report_compare_view *v,
			 const struct report_options *opt);

/* Appends a name escaped for the output at hand (report_text_escape,
 * html_esc). */
typedef void (*report_escape_fn)(struct strbuf *sb, const char *s);

/* The pseudo-class of the transactional IOPS in a listing line. */
#define LIST_TRANS IO_CLASS_COUNT

/* One listing line of a comparison (compare.c): the listed figures of class
 * cls (or LIST_TRANS) at scope level `level` (the run: A -> B (change);
 * volumes or databases: the range of changes and where), names through esc.
 * false when nothing is listed there. Shared by text and HTML. */
bool report_compare_list_line(struct strbuf *sb, const struct analyze_comparison *c,
			      enum scope_kind level, int cls, report_escape_fn esc);
/* "run", "volumes", "databases" */
const char *report_compare_level_words(enum scope_kind level);

/* How a metric of a comparison reads in a table head, indexed by
 * ANALYZE_IOPS... (analyze.h); shared by the text and HTML comparisons. */
extern const char *const report_metric_words[];

/* How a host figure of a comparison reads, its decimals and its unit's scale
 * (bytes to MiB), indexed by ANALYZE_HOST_* / ANALYZE_DEV_* (analyze.h); shared
 * by the text and HTML comparisons (compare.c). */
struct report_host_word {
	const char *words;
	int decimals;
	double scale;
};
extern const struct report_host_word report_host_words[];
/* Whether a change is "unchanged": finite, and a and b both read 0 at
 * `decimals` decimals (0 -> 0 is never shown as -100 %; analyze.h
 * analyze_change_pct_res). */
bool report_unchanged_zero(double a, double b, double pct, int decimals);
extern const struct report_host_word report_dev_words[];

/* "FAIL" when a verdict of the scope failed, "PASS" when it has verdicts and
 * all passed, "-" when nothing judged it (verdict.c). A volume (name) counts
 * its databases' verdicts too; a database is name on volume. */
const char *report_scope_verdict(const struct results *r, enum scope_kind scope, const char *name,
				 const char *volume);

/* report_verdict_line with the device under the verdict's volume after its
 * place, "db7 on disk3 (loop8): ...", escaped for the terminal; device NULL:
 * as report_verdict_line (verdict.c). */
void report_verdict_line_at(struct strbuf *out, const struct verdict *v, const char *device);

/* v with at most `decimals` decimals and no trailing zeros: 21.4, 20, 812;
 * "n/a" when not finite (verdict.c). */
void report_number(struct strbuf *sb, double v, int decimals);

/* "its database read average was 21.2 ms against a limit of 20 ms": a
 * failed verdict's figure and limit for a sentence (verdict.c). */
void report_verdict_fact(struct strbuf *out, const struct verdict *v);

/*
 * Why a scope failed, one sentence from the measured facts (why.c): its
 * IOPS against its siblings', each of its own failed criteria, its I/O
 * errors, its failed databases (a volume), what the kernel logged about
 * its device. Appends nothing and returns false for a scope that did not
 * fail; a run (SCOPE_RUN, name "run") is report_why_run's. The text is raw:
 * each renderer escapes it.
 */
bool report_why(struct strbuf *out, const struct results *r, enum scope_kind kind, const char *name,
		const char *volume);
/* Why the run failed (its failed volumes, its own criteria), ended in an
 * error or was aborted (the last error or stop event); false for a run
 * that passed or is still running. */
bool report_why_run(struct strbuf *out, const struct results *r);
/* The kernel name of volume's device as the run recorded it ("loop8",
 * "sdb"; env fact device.VOLUME.name), NULL where not recorded (sim). */
const char *report_volume_device(const struct results *r, const char *volume);
/* text word-wrapped at width columns, every line indented by indent, each
 * word escaped for the terminal (report_text_escape). */
void report_text_wrap(struct strbuf *out, const char *text, size_t indent, size_t width);

/*
 * A text table fitted to a width (text_table.c). Each column has a head
 * (and an optional group word over a run of columns), a width its cells are
 * padded to, the blanks before it, and how much it may go: drop 0 stays,
 * otherwise the column with the highest drop goes first while the table is
 * wider than the width (never with wide). A caller fills cell[i] (escaped
 * text; colour escapes take no column) and calls report_table_row, which
 * writes the shown cells and empties them.
 */
#define REPORT_COLS_MAX 16

struct report_col {
	const char *group; /* NULL: none */
	const char *head;
	int width;
	bool left; /* left-aligned (names, the verdict); else right */
	int gap;   /* blanks before the column (the first's: the table's indent) */
	int drop;
};

struct report_table {
	const struct report_col *cols;
	size_t n;
	int width[REPORT_COLS_MAX]; /* cols' widths; a caller may widen one */
	bool show[REPORT_COLS_MAX];
	size_t dropped;
	struct strbuf cell[REPORT_COLS_MAX];
};

void report_table_init(struct report_table *t, const struct report_col *cols, size_t n);
void report_table_release(struct report_table *t);
/* Drops columns until the table fits width (none with wide); returns how
 * many it dropped. */
size_t report_table_fit(struct report_table *t, size_t width, bool wide);
void report_table_head(struct strbuf *sb, const struct report_table *t);
void report_table_row(struct strbuf *sb, struct report_table *t);
/* The dropped columns' heads, "p99.99 ms, B/IO"; false when none was. */
bool report_table_dropped(struct strbuf *sb, const struct report_table *t);

/* A run's effective parameters (params.c), in each format's own section. */
struct json;
void report_text_params(struct strbuf *sb, const struct results *r);
void report_json_params(struct json *j, const struct results *r);
void report_html_params(struct strbuf *sb, const struct results *r);
/* Two runs' parameter differences (analyze_param_diffs), in compare's formats. */
void report_text_param_diffs(struct strbuf *sb, const struct analyze_param_diff *d, size_t n);
void report_json_param_diffs(struct json *j, const struct analyze_param_diff *d, size_t n);
void report_html_param_diffs(struct strbuf *sb, const struct analyze_param_diff *d, size_t n);

/* A scope's "classes" object and the figures after it, as the run JSON's
 * "summary" holds them (json.c): the fleet totals reuse it, so their shape
 * is the same. */
void report_json_classes(struct json *j, const struct scope_summary *sc);

/* The fleet report (report.h) as text (fleet_text.c), JSON (fleet_json.c,
 * docs/schema/fleet.schema.json) and HTML (fleet_html.c). */
void report_fleet_text(struct strbuf *out, const struct report_fleet *f,
		       const struct report_options *opt);
void report_fleet_json(struct strbuf *out, const struct report_fleet *f,
		       const struct report_options *opt);
void report_fleet_html(struct strbuf *out, const struct report_fleet *f,
		       const struct report_options *opt);

/*
 * The run's clock as its env facts (host.clock.*, env.h) and its "clock"
 * event (run --start-at with a clock worse than --max-clock-error) give
 * it, for the renderers; every pointer into r. recorded false for a run
 * from before the facts existed (every field then NULL or NaN).
 */
struct report_clock {
	bool recorded;
	const char *synchronised; /* "yes", "no" or "unknown" */
	double max_error_ms;	  /* NaN: unknown */
	double est_error_ms;
	const char *daemon;
	const char *warning; /* the "clock" event's message; NULL: none */
};

void report_clock_get(const struct results *r, struct report_clock *c);

#endif
