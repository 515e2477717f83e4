/*
 * html.h - private to src/report: the pieces the HTML pages (html_run.c,
 * html_compare.c) share (html.c) and the inline SVG chart writer
 * (html_chart.c). Not a public header.
 *
 * A chart is described, not computed: each series names where its points
 * come from in a struct results (interval samples or a whole-run histogram),
 * and the chart writer walks them twice, once for the axes' ranges and once
 * to draw, so nothing is allocated. An interval's point is its rate or
 * average as the results model derives it for the CSV report too
 * (results_scope_walk); a CDF point is results_cdf's (a bucket's value and
 * the share of I/Os at or below it); a host counter's point is a stored
 * figure at its interval's end.
 */
#ifndef DISKPROOF_REPORT_HTML_H
#define DISKPROOF_REPORT_HTML_H

#include <stdbool.h>
#include <stddef.h>

#include "diskproof/results.h"
#include "diskproof/util.h"
#include "report_internal.h"

/* The classes of transactional IOPS, as a mask of (1 << class). */
#define HTML_TRANSACTIONAL ((1u << IO_DB_READ) | (1u << IO_DB_WRITE))

/* s with & < > " ' escaped; nothing for NULL. */
void html_esc(struct strbuf *sb, const char *s);
/* v with `decimals` decimals, "n/a" when not finite. */
void html_num(struct strbuf *sb, double v, int decimals);
/* <td class="num"> with html_num(v, decimals). */
void html_td_num(struct strbuf *sb, double v, int decimals);

/* The page's <head> (title "TITLE_A ID - LABEL", the inline stylesheet and
 * script) and the opening <body>; and the footer that closes them. */
void html_page_head(struct strbuf *sb, const char *title_a, int64_t id, const char *label);
void html_page_foot(struct strbuf *sb);
/* The table of contents: items {id, title}; an entry of `skip` (NULL: none)
 * names a section left out. */
void html_nav(struct strbuf *sb, const char *const (*items)[2], size_t n, const char *const *skip,
	      size_t nr_skip);
void html_section_open(struct strbuf *sb, const char *id, const char *title, bool first);
/* PASS / FAIL / NONE as a coloured badge. */
void html_verdict_badge(struct strbuf *sb, const char *verdict, bool big);

/* The threshold of the run-scope verdict on criterion, else of the first
 * verdict on it; NAN when none. */
double html_verdict_threshold(const struct results *r, const char *criterion);
/* The threshold line of class c's latency chart (db_read and log_write
 * only); NAN when none. */
double html_class_avg_threshold(const struct results *r, enum io_class c);

enum html_source {
	HTML_SRC_IOPS,		  /* interval IOPS of the classes in `classes`, summed */
	HTML_SRC_AVG_MS,	  /* interval average latency of those classes */
	HTML_SRC_CDF,		  /* cumulative share of I/Os by latency, class `cls` */
	HTML_SRC_TUNE_IOPS,	  /* auto-tune steps: x streams, y the level's IOPS */
	HTML_SRC_TUNE_DB_READ_MS, /* auto-tune steps: x streams, y its db read average */
	HTML_SRC_HOST,		  /* host counters: `host_field` of the rows of device
				   * `name` ("" for the host's own rows) */
};

/* The host counter a HTML_SRC_HOST series draws (results_host_sample). */
enum html_host_field {
	HTML_HOST_CPU_USER,
	HTML_HOST_CPU_SYSTEM,
	HTML_HOST_CPU_IOWAIT,
	HTML_HOST_UTIL,
	HTML_HOST_AVG_WAIT,
};

struct html_series {
	const struct results *r;
	enum html_source src;
	enum scope_kind scope;
	const char *name;  /* the scope's name ("run" for the run) */
	unsigned classes;  /* samples: bit (1 << class) per class summed */
	enum io_class cls; /* CDF: the histogram's class */
	enum html_host_field host_field;
	bool measured;	   /* samples: skip warm-up intervals and put x = 0 at
			    * the end of the warm-up */
	const char *label; /* legend text (escaped when written) */
	const char *color;
	bool dashed;
	bool right; /* against the right-hand axis (html_chart.y2_label) */
};

struct html_hline {
	double y;
	const char *label;
	const char *color;
};

struct html_chart {
	const char *id;
	const char *title;
	const char *x_label;
	const char *y_label;
	const struct html_series *series;
	size_t nr_series;
	const struct html_hline *hlines; /* thresholds, drawn dashed */
	size_t nr_hlines;
	double warmup_s;      /* > 0: the warm-up [0, warmup_s] is shaded */
	bool y_percent;	      /* y is a share in [0, 1], labelled in % */
	bool compact;	      /* narrower, for two charts side by side */
	bool x_log2;	      /* x > 0 on a log2 scale, ticks at powers of two */
	const char *y2_label; /* non-NULL: a right-hand y axis, for series marked right */
};

/* An SVG line chart in a <figure>: axes with ticks and labels, a legend,
 * one <polyline class="series" data-points="N"> per series with points.
 * Auto-tune series also mark each level: a <circle class="point"
 * data-streams="S" data-passed="0|1">, hollow when the level failed. */
void html_chart_line(struct strbuf *sb, const struct html_chart *c);

/* A horizontal bar chart in a <figure> of the transactional IOPS of each
 * database (scope_transactional_iops), one <g class="series"
 * data-points="nr"> holding the bars. */
void html_chart_db_bars(struct strbuf *sb, const char *id, const char *title,
			const struct scope_summary *dbs, size_t nr);

#endif
