/* SPDX-License-Identifier: MIT */
/*
 * html_chart.c - inline SVG charts of the HTML reports (html.h): line charts
 * of interval series and latency CDFs, and per-database bars (the latency
 * heatmap is html_heatmap.c's). Only scaling and formatting happen here: a
 * point is an interval's rate or average or a CDF point as the results model
 * derives them (results_scope_walk, results_cdf), an interval's stored p99 or
 * maximum, an auto-tune step's streams and IOPS or latency, or a stored host
 * counter at its interval's end. The axes are the data's
 * ranges rounded up to a "nice" step (1, 2 or 5 times a power of ten), or
 * powers of two on a log2 axis, or powers of ten on a log10 one; an axis has
 * at most CH_TICKS_MAX ticks, whatever its range (every loop is bounded by a
 * count, never by a value alone). A right-hand axis gets as many ticks as the left one, at the same
 * heights, so that one grid serves both. A series is drawn one point per pixel column
 * (html_decimate), so a page's size follows its charts, not the run's length.
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"

/* Walks the points of one series; no allocation. */
struct pt_iter {
	const struct html_series *s;
	struct results_scope_walk walk; /* samples */
	struct results_cdf cdf;		/* CDF */
	size_t i;			/* next host row; auto-tune: the last step given */
	bool started;			/* auto-tune: a step was given */
};

static bool src_tune(enum html_source src)
{
	return src == HTML_SRC_TUNE_IOPS || src == HTML_SRC_TUNE_DB_READ_MS;
}

static void pt_iter_init(struct pt_iter *it, const struct html_series *s)
{
	memset(it, 0, sizeof(*it));
	it->s = s;
	if (s->src == HTML_SRC_CDF)
		results_cdf_init(&it->cdf, results_hist_get(s->r, s->scope, s->name, s->cls));
	else if (s->src == HTML_SRC_IOPS || s->src == HTML_SRC_AVG_MS)
		results_scope_walk_init(&it->walk, s->r, s->scope, s->name, s->classes);
}

/* Step i comes after step k in the order (streams, step). */
static bool tune_after(const struct results_autotune *a, size_t i, size_t k)
{
	return a->steps[i].streams > a->steps[k].streams ||
	       (a->steps[i].streams == a->steps[k].streams && i > k);
}

/* The most auto-tune steps a chart draws: a search doubles, then halves the
 * gap, so even 100000 streams take under 40 steps; the bound keeps the scan
 * below quadratic in whatever a damaged file holds. */
#define TUNE_CHART_MAX_STEPS 1024

/*
 * Auto-tune's levels in the order of their streams (a search may go back
 * down between levels it tried), so the line runs left to right: each call
 * scans for the next step after the last one given (a search has a few
 * dozen steps). A step without the value, or with 0 streams, is skipped.
 */
static bool pt_next_tune(struct pt_iter *it, double *x, double *y)
{
	const struct results_autotune *a = &it->s->r->autotune;
	size_t i, best, n = a->nr_steps < TUNE_CHART_MAX_STEPS ? a->nr_steps : TUNE_CHART_MAX_STEPS;
	const struct results_autotune_step *st;
	double v;

	for (;;) {
		best = SIZE_MAX;
		for (i = 0; i < n; i++) {
			if (it->started && !tune_after(a, i, it->i))
				continue;
			if (best == SIZE_MAX || tune_after(a, best, i))
				best = i;
		}
		if (best == SIZE_MAX)
			return false;
		it->started = true;
		it->i = best;
		st = &a->steps[best];
		v = it->s->src == HTML_SRC_TUNE_IOPS ? st->iops : st->db_read_avg_ms;
		if (!isfinite(v) || !st->streams)
			continue;
		*x = (double)st->streams;
		*y = v;
		return true;
	}
}

static double host_field(const struct results_host_sample *x, enum html_host_field f)
{
	switch (f) {
	case HTML_HOST_CPU_USER:
		return x->cpu_user_pct;
	case HTML_HOST_CPU_SYSTEM:
		return x->cpu_system_pct;
	case HTML_HOST_CPU_IOWAIT:
		return x->cpu_iowait_pct;
	case HTML_HOST_UTIL:
		return x->util_pct;
	default:
		return x->avg_wait_ms;
	}
}

/* The series' device rows (or the host's) in time order, each stored figure
 * a point; a figure not measured in an interval (NAN) is none. */
static bool pt_next_host(struct pt_iter *it, double *x, double *y)
{
	const struct html_series *s = it->s;
	const struct results *r = s->r;
	const struct results_host_sample *row;
	double v;

	while (it->i < r->nr_host_samples) {
		row = &r->host_samples[it->i++];
		if (strcmp(row->device, s->name) || (s->measured && row->warmup))
			continue;
		v = host_field(row, s->host_field);
		if (!isfinite(v))
			continue;
		*x = (double)row->t_ms / 1000.0 -
		     (s->measured && isfinite(r->warmup_s) ? r->warmup_s : 0);
		*y = v;
		return true;
	}
	return false;
}

/* The stored p99 or maximum of the series' class in each interval of its
 * scope with I/O of that class, in ms at the interval's end: one row each,
 * as written (a percentile of several classes is not theirs combined, so a
 * tail series has one class). */
static bool pt_next_tail(struct pt_iter *it, double *x, double *y)
{
	const struct html_series *s = it->s;
	const struct results *r = s->r;
	const struct results_sample *row;

	while (it->i < r->nr_samples) {
		row = &r->samples[it->i++];
		if (row->scope != s->scope || row->cls != s->cls || !row->ios ||
		    (s->measured && row->warmup) || strcmp(row->name, s->name))
			continue;
		*x = (double)row->t_ms / 1000.0 -
		     (s->measured && isfinite(r->warmup_s) ? r->warmup_s : 0);
		*y = (double)(s->src == HTML_SRC_P99_MS ? row->p99_ns : row->lat_max_ns) / 1e6;
		return true;
	}
	return false;
}

/*
 * The intervals of a series are those of its scope, the series' classes
 * summed (results_scope_walk): a point is the interval's IOPS or average at
 * its end; an interval without I/O of those classes is an IOPS point of 0
 * and no latency point. Warm-up intervals are left out of a measured series.
 */
static bool src_backlog(enum html_source src)
{
	return src == HTML_SRC_BACKLOG_PEAK || src == HTML_SRC_BACKLOG_MEAN ||
	       src == HTML_SRC_STREAMS;
}

/* Open loop's backlog rows, one point per interval at its end. */
static bool pt_next_backlog(struct pt_iter *it, double *x, double *y)
{
	const struct html_series *s = it->s;
	const struct results_backlog_sample *b;

	for (; it->i < s->r->nr_backlog_samples; it->i++) {
		b = &s->r->backlog_samples[it->i];
		if (b->warmup && s->measured)
			continue;
		*x = (double)b->t_ms / 1000.0 -
		     (s->measured && isfinite(s->r->warmup_s) ? s->r->warmup_s : 0);
		*y = s->src == HTML_SRC_BACKLOG_PEAK   ? (double)b->peak
		     : s->src == HTML_SRC_BACKLOG_MEAN ? b->mean
						       : (double)b->streams;
		it->i++;
		return true;
	}
	return false;
}

static bool pt_next(struct pt_iter *it, double *x, double *y)
{
	const struct html_series *s = it->s;
	const struct results *r = s->r;
	struct results_interval iv;

	if (s->src == HTML_SRC_CDF)
		return results_cdf_next(&it->cdf, x, y);
	if (src_tune(s->src))
		return pt_next_tune(it, x, y);
	if (s->src == HTML_SRC_HOST)
		return pt_next_host(it, x, y);
	if (src_backlog(s->src))
		return pt_next_backlog(it, x, y);
	if (s->src == HTML_SRC_P99_MS || s->src == HTML_SRC_MAX_MS)
		return pt_next_tail(it, x, y);
	while (results_scope_walk_next(&it->walk, &iv)) {
		if ((iv.warmup && s->measured) || !iv.len_ms)
			continue;
		*x = (double)iv.t_ms / 1000.0 -
		     (s->measured && isfinite(r->warmup_s) ? r->warmup_s : 0);
		if (s->src == HTML_SRC_IOPS) {
			*y = iv.iops;
			return true;
		}
		if (iv.ios) {
			*y = iv.avg_ms;
			return true;
		}
	}
	return false;
}

struct ranges {
	double x_min, x_max, y_max, y2_max;
	double data_y_max; /* the data's highest y on the left axis, thresholds aside */
	size_t points;
};

static bool x_log(const struct html_chart *c)
{
	return c->x_log2 || c->x_log10;
}

/* A point a chart can place: finite, and x > 0 on a log axis. */
static bool pt_drawable(const struct html_chart *c, double x, double y)
{
	return isfinite(x) && isfinite(y) && (!x_log(c) || x > 0);
}

static void chart_ranges(const struct html_chart *c, struct ranges *rg)
{
	struct pt_iter it;
	double x, y;
	size_t k;

	rg->x_min = HUGE_VAL;
	rg->x_max = -HUGE_VAL;
	rg->y_max = rg->y2_max = 0;
	rg->data_y_max = NAN;
	rg->points = 0;
	for (k = 0; k < c->nr_series; k++) {
		pt_iter_init(&it, &c->series[k]);
		while (pt_next(&it, &x, &y)) {
			if (!pt_drawable(c, x, y))
				continue;
			rg->x_min = fmin(rg->x_min, x);
			rg->x_max = fmax(rg->x_max, x);
			if (c->y2_label && c->series[k].right)
				rg->y2_max = fmax(rg->y2_max, y);
			else
				rg->y_max = fmax(rg->y_max, y);
			if (!(c->y2_label && c->series[k].right))
				rg->data_y_max =
					fmax(isnan(rg->data_y_max) ? y : rg->data_y_max, y);
			rg->points++;
		}
	}
	for (k = 0; k < c->nr_hlines; k++)
		if (isfinite(c->hlines[k].y))
			rg->y_max = fmax(rg->y_max, c->hlines[k].y);
	if (!rg->points) {
		rg->x_min = x_log(c) ? 1 : 0;
		rg->x_max = x_log(c) ? 2 : 1;
	}
	/* time and latency axes start at 0; a log axis at its smallest point */
	if (!x_log(c))
		rg->x_min = fmin(rg->x_min, 0);
	if (c->warmup_s > 0)
		rg->x_max = fmax(rg->x_max, c->warmup_s);
	if (c->y_percent)
		rg->y_max = 1;
}

/* The smallest 1, 2 or 5 x 10^k at or over v (> 0). */
static double nice_ceil(double v)
{
	double mag, f;

	if (!(v > 0) || !isfinite(v))
		return 1;
	mag = pow(10, floor(log10(v)));
	f = v / mag;
	return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

double html_nice_step(double max)
{
	if (!(max > 0) || !isfinite(max))
		return 1;
	return nice_ceil(max / CH_TICKS);
}

int html_step_decimals(double step)
{
	int d = 0;

	while (d < 6 && fabs(step * pow(10, d) - round(step * pow(10, d))) > 1e-9)
		d++;
	return d;
}

struct scale {
	double w;		     /* the chart's width: CH_W, or CH_W_COMPACT */
	double right;		     /* its right margin: CH_RIGHT, or CH_RIGHT_AXIS */
	double x0, x1, y1;	     /* axis ranges; y from 0 */
	double y2;		     /* the right-hand axis's range from 0; 0: none */
	double xstep, ystep, y2step; /* a log axis: xstep is the factor between ticks */
	bool xlog;		     /* log2 or log10: sx() is the same for both */
	bool xlog10;
};

static double sx(const struct scale *s, double x)
{
	double f = s->xlog ? log(x / s->x0) / log(s->x1 / s->x0) : (x - s->x0) / (s->x1 - s->x0);

	return CH_LEFT + f * (s->w - CH_LEFT - s->right);
}

static double sy(const struct scale *s, double y)
{
	return CH_H - CH_BOTTOM - y / s->y1 * (CH_H - CH_TOP - CH_BOTTOM);
}

/* A y of the right-hand axis, placed on the left one's scale. */
static double sy_right(const struct scale *s, double y)
{
	return sy(s, y / s->y2 * s->y1);
}

static double series_sy(const struct scale *s, const struct html_series *se, double y)
{
	return s->y2 > 0 && se->right ? sy_right(s, y) : sy(s, y);
}

/*
 * A log2 x axis from the power of two at or under the smallest x to the one
 * at or over the largest, ticks at every power (every second or fourth one
 * when there would be more than 2 x CH_TICKS).
 */
static void scale_log2(struct scale *s, const struct ranges *rg)
{
	double lo = floor(log2(rg->x_min)), hi = ceil(log2(rg->x_max));

	if (hi <= lo)
		hi = lo + 1;
	s->x0 = exp2(lo);
	s->x1 = exp2(hi);
	s->xstep = hi - lo > 4 * CH_TICKS ? 4 : hi - lo > 2 * CH_TICKS ? 2 : 1;
	s->xstep = exp2(s->xstep);
}

void html_log10_decades(double lo, double hi, int *d0, int *d1)
{
	/* a hair of slack so that 10^k computed as 0.001 stays in decade -3 */
	*d0 = (int)floor(log10(lo) + 1e-9);
	*d1 = (int)ceil(log10(hi) - 1e-9);
	if (*d1 <= *d0)
		*d1 = *d0 + 1;
}

/* A log10 x axis over the decades around the data, a tick at every decade
 * (every second one past 2 x CH_TICKS decades). */
static void scale_log10(struct scale *s, const struct ranges *rg)
{
	int d0, d1;

	html_log10_decades(rg->x_min, rg->x_max, &d0, &d1);
	s->x0 = pow(10, d0);
	s->x1 = pow(10, d1);
	s->xstep = d1 - d0 > 2 * CH_TICKS ? 100 : 10;
}

/* The x ticks of a log axis: powers of two labelled as whole numbers, or
 * powers of ten as %g (0.01, 1, 100) with a grid line each. */
static void chart_x_log(struct strbuf *sb, const struct scale *s)
{
	double v;
	int k;

	for (k = 0, v = s->x0; k < CH_TICKS_MAX && v <= s->x1 * (1 + 1e-9); k++, v *= s->xstep) {
		if (s->xlog10)
			strbuf_addf(sb,
				    "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
				    "y2=\"%.1f\"/>",
				    sx(s, v), CH_TOP, sx(s, v), CH_H - CH_BOTTOM);
		strbuf_addf(
			sb,
			"<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>",
			sx(s, v), CH_H - CH_BOTTOM, sx(s, v), CH_H - CH_BOTTOM + 4);
		strbuf_addf(sb, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", sx(s, v),
			    CH_H - CH_BOTTOM + 16);
		strbuf_addf(sb, s->xlog10 ? "%g</text>\n" : "%.0f</text>\n", v);
	}
}

/* The right-hand axis: its labels at the left axis's grid lines, its title. */
static void chart_y_right(struct strbuf *sb, const struct html_chart *c, const struct scale *s)
{
	int d = html_step_decimals(s->y2step), k;
	double v;

	for (k = 0, v = 0; k < CH_TICKS_MAX && v <= s->y2 + s->y2step / 1e6; k++, v += s->y2step)
		strbuf_addf(sb, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"start\">%.*f</text>\n",
			    s->w - s->right + 6, sy_right(s, v) + 4, d, v);
	strbuf_addf(sb, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
		    s->w - s->right, CH_TOP, s->w - s->right, CH_H - CH_BOTTOM);
	strbuf_addf(sb,
		    "<text transform=\"translate(%.1f %.1f) rotate(90)\" text-anchor=\"middle\">",
		    s->w - 12, (CH_TOP + CH_H - CH_BOTTOM) / 2);
	html_esc(sb, c->y2_label);
	strbuf_addstr(sb, "</text>\n");
}

static void chart_axes(struct strbuf *sb, const struct html_chart *c, const struct scale *s)
{
	int dx = s->xlog ? 0 : html_step_decimals(s->xstep), dy = html_step_decimals(s->ystep), k;
	double v;

	for (k = 0, v = 0; k < CH_TICKS_MAX && v <= s->y1 + s->ystep / 1e6; k++, v += s->ystep) {
		strbuf_addf(
			sb,
			"<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>",
			CH_LEFT, sy(s, v), s->w - s->right, sy(s, v));
		if (c->y_percent)
			strbuf_addf(
				sb,
				"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.0f%%</text>\n",
				CH_LEFT - 6, sy(s, v) + 4, v * 100);
		else
			strbuf_addf(sb,
				    "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.*f</text>\n",
				    CH_LEFT - 6, sy(s, v) + 4, dy, v);
	}
	if (s->xlog)
		chart_x_log(sb, s);
	for (k = 0, v = ceil(s->x0 / s->xstep) * s->xstep;
	     !s->xlog && k < CH_TICKS_MAX && v <= s->x1 + s->xstep / 1e6; k++, v += s->xstep) {
		strbuf_addf(
			sb,
			"<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>",
			sx(s, v), CH_H - CH_BOTTOM, sx(s, v), CH_H - CH_BOTTOM + 4);
		strbuf_addf(sb, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.*f</text>\n",
			    sx(s, v), CH_H - CH_BOTTOM + 16, dx, fabs(v) < 1e-12 ? 0.0 : v);
	}
	strbuf_addf(sb, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>",
		    CH_LEFT, CH_H - CH_BOTTOM, s->w - s->right, CH_H - CH_BOTTOM);
	strbuf_addf(sb, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
		    CH_LEFT, CH_TOP, CH_LEFT, CH_H - CH_BOTTOM);
	strbuf_addf(sb, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", (CH_LEFT + s->w) / 2,
		    CH_H - 8);
	html_esc(sb, c->x_label);
	strbuf_addf(sb,
		    "</text>\n<text transform=\"translate(14 %.1f) rotate(-90)\" "
		    "text-anchor=\"middle\">",
		    (CH_TOP + CH_H - CH_BOTTOM) / 2);
	html_esc(sb, c->y_label);
	strbuf_addstr(sb, "</text>\n");
	if (s->y2 > 0)
		chart_y_right(sb, c, s);
}

/* One legend entry at *x on the legend row; returns nothing, advances *x. */
static void legend_entry(struct strbuf *sb, double *x, const char *label, const char *color,
			 bool dashed)
{
	strbuf_addf(sb,
		    "<line x1=\"%.1f\" y1=\"16\" x2=\"%.1f\" y2=\"16\" stroke=\"%s\" "
		    "stroke-width=\"2.5\"%s/>",
		    *x, *x + 22, color, dashed ? " stroke-dasharray=\"6 4\"" : "");
	strbuf_addf(sb, "<text x=\"%.1f\" y=\"20\">", *x + 28);
	html_esc(sb, label);
	strbuf_addstr(sb, "</text>\n");
	*x += 28 + 6.3 * (double)strlen(label) + 22;
}

/* An auto-tune level's marker: filled when it passed, hollow when it failed. */
static void tune_marker(struct strbuf *sb, const struct html_series *se, size_t step, double px,
			double py, double y)
{
	const struct results_autotune_step *st = &se->r->autotune.steps[step];

	strbuf_addf(sb,
		    "<circle class=\"point\" data-streams=\"%u\" data-passed=\"%d\" cx=\"%.1f\" "
		    "cy=\"%.1f\" r=\"3.5\" stroke=\"%s\" stroke-width=\"1.5\" fill=\"%s\"><title>"
		    "%u streams (%s): ",
		    st->streams, st->passed ? 1 : 0, px, py, se->color,
		    st->passed ? se->color : "#fff", st->streams, st->passed ? "pass" : "fail");
	html_esc(sb, se->label);
	strbuf_addstr(sb, " ");
	html_num(sb, y, se->src == HTML_SRC_TUNE_IOPS ? 1 : 3);
	strbuf_addstr(sb, "</title></circle>\n");
}

void html_decimate_init(struct html_decimate *d, enum html_reduce mode)
{
	memset(d, 0, sizeof(*d));
	d->mode = mode;
}

/* The held column's point, and the column emptied. */
static bool decimate_take(struct html_decimate *d, double *ox, double *oy)
{
	if (!(d->n > 0))
		return false;
	if (d->mode == HTML_REDUCE_MAX) {
		*ox = d->mx;
		*oy = d->my;
	} else {
		*ox = d->sx / d->n;
		*oy = d->sy / d->n;
	}
	d->sx = d->sy = d->n = 0;
	return true;
}

bool html_decimate_add(struct html_decimate *d, double px, double y, double *ox, double *oy)
{
	double col = floor(px / HTML_COL_W);
	bool out = false;

	if (d->mode == HTML_REDUCE_NONE) {
		*ox = px;
		*oy = y;
		return true;
	}
	if (d->n > 0 && col != d->col)
		out = decimate_take(d, ox, oy);
	if (!(d->n > 0) || y > d->my) {
		d->mx = px;
		d->my = y;
	}
	d->col = col;
	d->sx += px;
	d->sy += y;
	d->n++;
	return out;
}

bool html_decimate_flush(struct html_decimate *d, double *ox, double *oy)
{
	return decimate_take(d, ox, oy);
}

/* How a series thins (html_decimate): maxima, percentiles and a CDF (which
 * only rises) keep a column's highest point, rates and averages its mean;
 * auto-tune levels each keep theirs, for their markers. */
static enum html_reduce series_reduce(const struct html_series *se)
{
	switch (se->src) {
	case HTML_SRC_TUNE_IOPS:
	case HTML_SRC_TUNE_DB_READ_MS:
		return HTML_REDUCE_NONE;
	case HTML_SRC_CDF:
	case HTML_SRC_P99_MS:
	case HTML_SRC_MAX_MS:
	case HTML_SRC_BACKLOG_PEAK:
	case HTML_SRC_STREAMS:
		return HTML_REDUCE_MAX;
	default:
		return HTML_REDUCE_MEAN;
	}
}

static void series_point(struct strbuf *pts, size_t *n, const struct scale *s,
			 const struct html_series *se, double px, double y)
{
	strbuf_addf(pts, "%s%.1f,%.1f", *n ? " " : "", px, series_sy(s, se, y));
	(*n)++;
}

static void chart_series(struct strbuf *sb, const struct html_chart *c,
			 const struct html_series *se, const struct scale *s)
{
	struct strbuf pts = STRBUF_INIT, marks = STRBUF_INIT;
	struct html_decimate dec;
	struct pt_iter it;
	size_t n = 0;
	double x, y, px, py;

	html_decimate_init(&dec, series_reduce(se));
	pt_iter_init(&it, se);
	while (pt_next(&it, &x, &y)) {
		if (!pt_drawable(c, x, y))
			continue;
		if (html_decimate_add(&dec, sx(s, x), y, &px, &py))
			series_point(&pts, &n, s, se, px, py);
		if (src_tune(se->src))
			tune_marker(&marks, se, it.i, sx(s, x), series_sy(s, se, y), y);
	}
	if (html_decimate_flush(&dec, &px, &py))
		series_point(&pts, &n, s, se, px, py);
	strbuf_addf(sb, "<polyline class=\"series\" data-points=\"%zu\" data-name=\"", n);
	html_esc(sb, se->label);
	strbuf_addf(sb, "\" stroke=\"%s\"%s points=\"%s\"><title>", se->color,
		    se->dashed ? " stroke-dasharray=\"5 3\"" : "", pts.buf);
	html_esc(sb, se->label);
	strbuf_addstr(sb, "</title></polyline>\n");
	strbuf_addstr(sb, marks.buf);
	strbuf_release(&pts);
	strbuf_release(&marks);
}

/*
 * The axes' ranges: x linear from its range (rounded out to the tick step)
 * or log2; y from 0 with about CH_TICKS ticks; a right-hand y axis with the
 * same number of ticks, each a nice step, so its labels sit on the grid.
 */
static void chart_scale(struct scale *s, const struct html_chart *c, const struct ranges *rg)
{
	double nticks;

	s->w = c->compact ? CH_W_COMPACT : CH_W;
	s->right = c->y2_label ? CH_RIGHT_AXIS : CH_RIGHT;
	s->xlog = x_log(c);
	s->xlog10 = c->x_log10;
	if (s->xlog10) {
		scale_log10(s, rg);
	} else if (s->xlog) {
		scale_log2(s, rg);
	} else {
		s->xstep = html_nice_step(rg->x_max - rg->x_min);
		s->x0 = floor(rg->x_min / s->xstep) * s->xstep;
		s->x1 = fmax(ceil(rg->x_max / s->xstep) * s->xstep, s->x0 + s->xstep);
		s->xstep = html_nice_step(s->x1 - s->x0);
	}
	s->ystep = c->y_percent ? 0.2 : html_nice_step(rg->y_max * 1.05);
	s->y1 = c->y_percent ? 1 : fmax(ceil(rg->y_max * 1.05 / s->ystep) * s->ystep, s->ystep);
	s->y2 = s->y2step = 0;
	if (c->y2_label) {
		nticks = round(s->y1 / s->ystep);
		s->y2step = nice_ceil(rg->y2_max * 1.05 / nticks);
		s->y2 = s->y2step * nticks;
	}
}

/* The <svg>'s class and data attributes of a chart that has them. */
static void chart_svg_attrs(struct strbuf *sb, const struct html_chart *c, const struct ranges *rg)
{
	strbuf_addstr(sb, " class=\"");
	html_esc(sb, c->svg_class);
	strbuf_addch(sb, '"');
	if (c->volume) {
		strbuf_addstr(sb, " data-volume=\"");
		html_esc(sb, c->volume);
		strbuf_addch(sb, '"');
	}
	if (c->cls_name)
		strbuf_addf(sb, " data-class=\"%s\"", c->cls_name);
	if (isfinite(rg->data_y_max))
		strbuf_addf(sb, " data-max=\"%.3f\"", rg->data_y_max);
	if (c->nr_hlines && isfinite(c->hlines[0].y))
		strbuf_addf(sb, " data-threshold=\"%.3f\"", c->hlines[0].y);
}

/* The percentiles a CDF marks, and their marker: a circle, a square, a
 * triangle. */
static const struct {
	double p;
	const char *name;
	const char *shape; /* a path around (0, 0) */
} pctl_marks[] = {
	{99, "p99", "M-3.5 0a3.5 3.5 0 1 0 7 0a3.5 3.5 0 1 0 -7 0z"},
	{99.9, "p99.9", "M-3.2 -3.2h6.4v6.4h-6.4z"},
	{99.99, "p99.99", "M0 -4.2l4 7h-8z"},
};

/* A CDF series' p99, p99.9 and p99.99 (hist_percentile of the histogram
 * it draws) on its curve: <path class="pctl" data-p="99.9" data-ms="..">
 * with a title saying the figure. */
static void chart_pctl_marks(struct strbuf *sb, const struct html_series *se, const struct scale *s)
{
	const struct hist *h;
	double ms;
	size_t i;

	if (se->src != HTML_SRC_CDF)
		return;
	h = results_hist_get(se->r, se->scope, se->name, se->cls);
	if (!h || !h->count)
		return;
	for (i = 0; i < DP_ARRAY_SIZE(pctl_marks); i++) {
		ms = (double)hist_percentile(h, pctl_marks[i].p) / 1e6;
		if (!(ms > 0) || ms < s->x0 || ms > s->x1)
			continue;
		strbuf_addf(sb,
			    "<path class=\"pctl\" data-class=\"%s\" data-p=\"%g\" "
			    "data-ms=\"%.3f\" transform=\"translate(%.1f %.1f)\" d=\"%s\" "
			    "fill=\"%s\" stroke=\"#fff\" stroke-width=\"0.8\"><title>",
			    stats_io_class_name(se->cls), pctl_marks[i].p, ms, sx(s, ms),
			    sy(s, pctl_marks[i].p / 100), pctl_marks[i].shape, se->color);
		html_esc(sb, se->label);
		strbuf_addf(sb, " %s: %.3f ms</title></path>\n", pctl_marks[i].name, ms);
	}
}

/* The markers' legend, on a second row under the series'. */
static void pctl_legend(struct strbuf *sb)
{
	double x = CH_LEFT;
	size_t i;

	for (i = 0; i < DP_ARRAY_SIZE(pctl_marks); i++) {
		strbuf_addf(sb,
			    "<path transform=\"translate(%.1f 30)\" d=\"%s\" fill=\"#3e4c59\"/>"
			    "<text x=\"%.1f\" y=\"34\">%s</text>\n",
			    x + 4, pctl_marks[i].shape, x + 12, pctl_marks[i].name);
		x += 70;
	}
}

void html_chart_line(struct strbuf *sb, const struct html_chart *c)
{
	struct ranges rg;
	struct scale s;
	double lx = CH_LEFT;
	size_t k;

	chart_ranges(c, &rg);
	chart_scale(&s, c, &rg);

	strbuf_addf(sb, "<figure class=\"chart\" id=\"%s\"><figcaption>", c->id);
	html_esc(sb, c->title);
	strbuf_addf(sb, "</figcaption>\n<svg viewBox=\"0 0 %.0f %.0f\"", s.w, CH_H);
	if (c->svg_class)
		chart_svg_attrs(sb, c, &rg);
	strbuf_addstr(sb, " role=\"img\" aria-label=\"");
	html_esc(sb, c->title);
	strbuf_addstr(sb, "\">\n");
	if (c->svg_class) {
		strbuf_addstr(sb, "<title>");
		html_esc(sb, c->title);
		strbuf_addstr(sb, "</title>\n");
	}
	if (c->warmup_s > 0 && !s.xlog && s.x0 <= 0) {
		strbuf_addf(sb,
			    "<rect class=\"warmup\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			    "height=\"%.1f\"/><text x=\"%.1f\" y=\"%.1f\">warm-up</text>\n",
			    sx(&s, 0), CH_TOP, sx(&s, c->warmup_s) - sx(&s, 0),
			    CH_H - CH_TOP - CH_BOTTOM, sx(&s, 0) + 4, CH_TOP + 12);
	}
	chart_axes(sb, c, &s);
	for (k = 0; k < c->nr_hlines; k++) {
		if (!isfinite(c->hlines[k].y))
			continue;
		strbuf_addf(sb,
			    "<line class=\"threshold\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			    "y2=\"%.1f\" stroke=\"%s\"/><text x=\"%.1f\" y=\"%.1f\" "
			    "text-anchor=\"end\">",
			    CH_LEFT, sy(&s, c->hlines[k].y), s.w - s.right, sy(&s, c->hlines[k].y),
			    c->hlines[k].color, s.w - s.right - 4, sy(&s, c->hlines[k].y) - 4);
		html_esc(sb, c->hlines[k].label);
		strbuf_addstr(sb, "</text>\n");
	}
	for (k = 0; k < c->nr_series; k++)
		chart_series(sb, c, &c->series[k], &s);
	if (!rg.points)
		strbuf_addf(sb,
			    "<text class=\"nodata\" x=\"%.1f\" y=\"%.1f\" "
			    "text-anchor=\"middle\">no data in this run</text>\n",
			    (CH_LEFT + s.w) / 2, CH_H / 2);
	if (c->pctl_marks)
		for (k = 0; k < c->nr_series; k++)
			chart_pctl_marks(sb, &c->series[k], &s);
	for (k = 0; k < c->nr_series; k++)
		legend_entry(sb, &lx, c->series[k].label, c->series[k].color, c->series[k].dashed);
	for (k = 0; k < c->nr_hlines; k++)
		if (isfinite(c->hlines[k].y))
			legend_entry(sb, &lx, c->hlines[k].label, c->hlines[k].color, true);
	if (c->pctl_marks)
		pctl_legend(sb);
	strbuf_addstr(sb, "</svg></figure>\n");
}

#define BAR_ROW 24.0
#define BAR_LEFT 150.0

void html_chart_bars(struct strbuf *sb, const struct html_bars *b)
{
	double max = 0, v, w, h = CH_TOP + BAR_ROW * (double)b->nr + CH_BOTTOM, x;
	struct scale s;
	size_t i;
	int k;

	for (i = 0; i < b->nr; i++) {
		v = b->values[i];
		if (isfinite(v))
			max = fmax(max, v);
	}
	s.xstep = html_nice_step(max * 1.12);
	s.x1 = fmax(ceil(max * 1.12 / s.xstep) * s.xstep, s.xstep);
	w = CH_W - BAR_LEFT - CH_RIGHT;

	strbuf_addf(sb, "<figure class=\"chart\" id=\"%s\"><figcaption>", b->id);
	html_esc(sb, b->title);
	strbuf_addf(sb,
		    "</figcaption>\n<svg viewBox=\"0 0 %.0f "
		    "%.0f\" role=\"img\" aria-label=\"",
		    CH_W, h);
	html_esc(sb, b->title);
	strbuf_addstr(sb, "\">\n");
	for (k = 0, x = 0; k < CH_TICKS_MAX && x <= s.x1 + s.xstep / 1e6; k++, x += s.xstep) {
		strbuf_addf(sb,
			    "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			    "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.*f</text>\n",
			    BAR_LEFT + x / s.x1 * w, CH_TOP - 6, BAR_LEFT + x / s.x1 * w,
			    h - CH_BOTTOM, BAR_LEFT + x / s.x1 * w, h - CH_BOTTOM + 16,
			    html_step_decimals(s.xstep), x);
	}
	strbuf_addf(sb, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", BAR_LEFT + w / 2,
		    h - 8);
	html_esc(sb, b->x_label);
	strbuf_addstr(sb, "</text>\n");
	strbuf_addf(sb, "<g class=\"series\" data-points=\"%zu\" data-name=\"", b->nr);
	html_esc(sb, b->series_name);
	strbuf_addstr(sb, "\">\n");
	for (i = 0; i < b->nr; i++) {
		v = b->values[i];
		if (!isfinite(v))
			v = 0;
		strbuf_addf(sb, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", BAR_LEFT - 8,
			    CH_TOP + BAR_ROW * (double)i + 16);
		html_esc(sb, b->names[i]);
		if (b->notes && b->notes[i] && b->notes[i][0]) {
			strbuf_addstr(sb, " (");
			html_esc(sb, b->notes[i]);
			strbuf_addch(sb, ')');
		}
		strbuf_addf(sb,
			    "</text><rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			    "height=\"%.1f\" fill=\"%s\"",
			    BAR_LEFT, CH_TOP + BAR_ROW * (double)i + 4, v / s.x1 * w, BAR_ROW - 8,
			    b->colors && b->colors[i] ? b->colors[i] : "#3b82c4");
		if (b->marks)
			strbuf_addf(sb, " data-marked=\"%d\"", b->marks[i] ? 1 : 0);
		strbuf_addf(
			sb,
			"><title>%.*f %s</title></rect><text x=\"%.1f\" y=\"%.1f\">%.*f</text>\n",
			b->decimals, v, b->unit, BAR_LEFT + v / s.x1 * w + 4,
			CH_TOP + BAR_ROW * (double)i + 16, b->decimals, v);
	}
	strbuf_addstr(sb, "</g></svg></figure>\n");
}

void html_chart_db_bars(struct strbuf *sb, const char *id, const char *title,
			const struct scope_summary *dbs, size_t nr)
{
	const char **names = calloc(nr ? nr : 1, sizeof(*names));
	const char **notes = calloc(nr ? nr : 1, sizeof(*notes));
	double *values = calloc(nr ? nr : 1, sizeof(*values));
	struct html_bars b = {.id = id,
			      .title = title,
			      .x_label = "transactional IOPS (database reads + writes per second)",
			      .series_name = "databases",
			      .unit = "IOPS",
			      .decimals = 1,
			      .names = names,
			      .notes = notes,
			      .values = values,
			      .nr = nr};

	if (names && notes && values) {
		for (size_t i = 0; i < nr; i++) {
			names[i] = dbs[i].name;
			notes[i] = dbs[i].volume;
			values[i] = results_scope_transactional_iops(&dbs[i]);
		}
		html_chart_bars(sb, &b);
	}
	free(names);
	free(notes);
	free(values);
}
