/* SPDX-License-Identifier: MIT */
/*
 * html.h - private to src/report: the pieces the HTML pages (html_run.c,
 * html_compare.c) share (html.c), the inline SVG chart writer
 * (html_chart.c) and the run page's per-volume charts (html_volume.c). Not
 * a public header.
 *
 * A chart is described, not computed: each series names where its points
 * come from in a struct results (interval samples or a whole-run histogram),
 * and the chart writer walks them twice, once for the axes' ranges and once
 * to draw, so no copy of the data is made. An interval's point is its rate or
 * average as the results model derives it for the CSV report too
 * (results_scope_walk), or its stored p99 or maximum; a CDF point is
 * results_cdf's (a bucket's value and the share of I/Os at or below it); a
 * host counter's point is a stored figure at its interval's end. Drawn, a
 * series is thinned to one point per pixel column (html_decimate). A
 * heatmap's cells are the stored window histograms' bands (results.h),
 * windows summed into columns.
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
/* The same with the whole title given (plain text, escaped here). */
void html_page_head_title(struct strbuf *sb, const char *title);
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
	HTML_SRC_P99_MS,	  /* interval p99 of class `cls` as stored (sample.p99_ns) */
	HTML_SRC_MAX_MS,	  /* interval maximum of class `cls` (sample.lat_max_ns) */
	/* open loop, per interval (backlog_sample): the tool's own queue's
	 * peak and time-weighted mean, the streams at work */
	HTML_SRC_BACKLOG_PEAK,
	HTML_SRC_BACKLOG_MEAN,
	HTML_SRC_STREAMS,
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
	bool x_log10;	      /* x > 0 on a log10 scale, ticks at powers of ten */
	bool pctl_marks;      /* CDF series: mark p99, p99.9 and p99.99 */
	const char *y2_label; /* non-NULL: a right-hand y axis, for series marked right */
	/* non-NULL: the <svg>'s class, with a <title> of the chart's title and
	 * data-max (the highest y of the data) and data-threshold (the first
	 * threshold line's y), for tests and readers that look for one chart */
	const char *svg_class;
	const char *volume;   /* with svg_class: data-volume, or NULL */
	const char *cls_name; /* with svg_class: data-class, or NULL */
};

/* hl as the red dashed threshold line of class c's latency charts, its
 * label written into label[size]; false when the run judged no average of
 * c (hl->y NAN). */
bool html_class_hline(const struct results *r, enum io_class c, struct html_hline *hl, char *label,
		      size_t size);

/* Class c's per-second p99 and maximum in one scope (the run, or volume
 * `name`) with the class's average threshold: <svg class="tail"
 * data-class, data-volume for a volume>. `color` is the p99 line's. */
void html_chart_tail(struct strbuf *sb, const struct results *r, enum scope_kind scope,
		     const char *name, enum io_class c, const char *color);

/* The run page's table of transactions per scope (html_txn.c), in the
 * databases' section; nothing for a run that did not count them. */
void html_txn_table(struct strbuf *sb, const struct results *r);

/* The run page's section "Response time" (html_response.c): an open loop's
 * service time beside its response time, and its backlog over time (in the page's class colours);
 * nothing for a closed-loop run, where response is service. */
void html_run_response(struct strbuf *sb, const struct results *r,
		       const char *const colors[IO_CLASS_COUNT]);

/* The run page's section "Latency per volume" (html_volume.c), its lines in
 * the page's class colours. */
void html_volume_latency(struct strbuf *sb, const struct results *r,
			 const char *const colors[IO_CLASS_COUNT]);

/* An SVG line chart in a <figure>: axes with ticks and labels, a legend,
 * one <polyline class="series" data-points="N"> per series with points.
 * Auto-tune series also mark each level: a <circle class="point"
 * data-streams="S" data-passed="0|1">, hollow when the level failed. */
void html_chart_line(struct strbuf *sb, const struct html_chart *c);

/*
 * A latency heatmap of one volume and class over time from its 15 s window
 * histograms (struct results_window, in bands): x the run's time, y the
 * latency on a log10 axis, each cell a band of a column of windows coloured
 * by its share of the column's I/Os on a log scale (HTML_HEAT_LEVELS), the
 * threshold drawn across. Windows are merged into columns so that a chart
 * has at most HTML_HEAT_MAX_COLS; cells of one colour are one <path>.
 */
struct html_heatmap {
	const char *id;
	const char *title;
	const struct results *r;
	const char *volume;
	enum io_class cls;
	double threshold_ms; /* NAN: none */
	double warmup_s;     /* > 0: a line where the warm-up ends */
};

void html_chart_heatmap(struct strbuf *sb, const struct html_heatmap *hm);

/* chart geometry in SVG user units (the SVG scales to the page's width),
 * shared by the line charts and bars (html_chart.c) and the heatmap */
#define CH_W 760.0
#define CH_W_COMPACT 500.0
#define CH_H 300.0
#define CH_LEFT 64.0
#define CH_RIGHT 18.0
#define CH_RIGHT_AXIS 64.0 /* the right margin of a chart with a right-hand axis */
#define CH_TOP 40.0
#define CH_BOTTOM 46.0
#define CH_TICKS 6
/* The most ticks (or grid lines) an axis draws. Every loop over an axis is
 * bounded by this count as well as by its range: a range that is not finite
 * or so wide that a step adds nothing to it (a value no run writes, which
 * the store refuses anyway) ends the loop at the count, never runs away. A
 * sane axis has about CH_TICKS, and at most 2 x CH_TICKS + 2. */
#define CH_TICKS_MAX 64

/* The tick step for [0, max]: 1, 2 or 5 x 10^k, about CH_TICKS ticks. */
double html_nice_step(double max);

/* Decimals that show a tick step exactly (0.25 -> 2, 5 -> 0). */
int html_step_decimals(double step);

/* What the charts compute to draw, pure, apart so that a unit test checks
 * them (tests/unit/test_html_chart.c). */

/* The decades d0 < d1 of a log10 axis over [lo, hi] (0 < lo <= hi):
 * 10^d0 <= lo and hi <= 10^d1. */
void html_log10_decades(double lo, double hi, int *d0, int *d1);

/*
 * Thinning a series to one point per pixel column (HTML_COL_W user units),
 * so that a 2 h run's 7200 intervals draw as about 700 points: a column's
 * points become their mean (rates, averages) or the one with the highest y
 * (maxima, percentiles, a CDF), so that a spike stays as high as it was.
 * html_decimate_add() takes points in x order; it returns true with *ox, *oy
 * the finished column's point when px starts a new column;
 * html_decimate_flush() gives the last one.
 */
#define HTML_COL_W 1.0

enum html_reduce {
	HTML_REDUCE_NONE, /* every point */
	HTML_REDUCE_MEAN,
	HTML_REDUCE_MAX,
};

struct html_decimate {
	enum html_reduce mode;
	double col;	  /* the column of the points held */
	double sx, sy, n; /* mean: sums and count */
	double mx, my;	  /* max: the highest point */
};

void html_decimate_init(struct html_decimate *d, enum html_reduce mode);
bool html_decimate_add(struct html_decimate *d, double px, double y, double *ox, double *oy);
bool html_decimate_flush(struct html_decimate *d, double *ox, double *oy);

/* The heatmap's colour levels: a cell's share of its column's I/Os is at
 * or over HTML_HEAT_LEVEL_MIN[level] (level 0: any I/O). */
#define HTML_HEAT_LEVELS 9
#define HTML_HEAT_MAX_COLS 120
unsigned html_heat_level(double share);
/* How many windows go into one column of a heatmap of nr windows. */
size_t html_heat_group(size_t nr);

/* A horizontal bar chart in a <figure>: a bar per entry, names[i] (with
 * " (notes[i])" when notes and it are non-empty) at its left, values[i]
 * (NAN: 0) drawn and written with `decimals`, in colors[i] (NULL: blue),
 * marks[i] as data-marked="0|1" when marks is given; one <g class="series"
 * data-points="nr" data-name="series_name"> holding the bars. */
struct html_bars {
	const char *id, *title, *x_label, *series_name, *unit;
	int decimals;
	const char *const *names;
	const char *const *notes;
	const char *const *colors;
	const bool *marks;
	const double *values;
	size_t nr;
};

void html_chart_bars(struct strbuf *sb, const struct html_bars *b);

/* A horizontal bar chart in a <figure> of the transactional IOPS of each
 * database (results_scope_transactional_iops), one <g class="series"
 * data-points="nr"> holding the bars. */
void html_chart_db_bars(struct strbuf *sb, const char *id, const char *title,
			const struct scope_summary *dbs, size_t nr);

#endif
