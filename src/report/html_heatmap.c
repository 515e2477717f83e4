/* SPDX-License-Identifier: MIT */
/*
 * html_heatmap.c - the latency heatmap of the HTML run page (html.h,
 * html_chart_heatmap): one volume and class over time, a column per group of
 * 15 s windows, a cell per latency band coloured by its share of the
 * column's I/Os in the stored window histograms (results.h), on a log10
 * latency axis. Only scaling and formatting happen here; the chart geometry
 * and tick steps are html_chart.c's (html.h).
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"

/* The heatmap's colour levels: the lowest share of each (level 0: any I/O)
 * and its colour, pale to dark. A share's scale is logarithmic so that the
 * tail (one I/O in ten thousand) shows beside the body of the distribution. */
static const struct {
	double min;
	const char *label; /* min in %, as the legend says it */
	const char *color;
} heat_levels[HTML_HEAT_LEVELS] = {
	{0, "&gt;0", "#fdf3c4"}, {1e-4, "0.01", "#fde29a"}, {1e-3, "0.1", "#fcc470"},
	{1e-2, "1", "#f9a050"},	 {2e-2, "2", "#f27b3f"},    {5e-2, "5", "#df5638"},
	{0.1, "10", "#c23740"},	 {0.2, "20", "#962049"},    {0.5, "50", "#5f0f48"},
};

unsigned html_heat_level(double share)
{
	unsigned k = HTML_HEAT_LEVELS - 1;

	while (k > 0 && !(share >= heat_levels[k].min))
		k--;
	return k;
}

size_t html_heat_group(size_t nr)
{
	return nr <= HTML_HEAT_MAX_COLS ? 1 : (nr + HTML_HEAT_MAX_COLS - 1) / HTML_HEAT_MAX_COLS;
}

/* A band's lowest latency in ms, band 0's (which starts at 0) put at 32 ns
 * so that a log axis can place it. */
static double band_ms(unsigned b)
{
	return b ? (double)results_band_lower_ns(b) / 1e6 : 32e-6;
}

/* A label over the cells keeps a white halo, so that it reads on dark ones. */
#define HEAT_HALO "stroke=\"#fff\" stroke-width=\"3\" paint-order=\"stroke\""

struct heat_plot {
	double w, x1;  /* the chart's width, its time range [0, x1] */
	double y0, y1; /* its latency range, ms, powers of ten */
	struct strbuf paths[HTML_HEAT_LEVELS];
	size_t cells;
};

static double heat_sx(const struct heat_plot *p, double t)
{
	return CH_LEFT + t / p->x1 * (p->w - CH_LEFT - CH_RIGHT);
}

static double heat_sy(const struct heat_plot *p, double ms)
{
	return CH_H - CH_BOTTOM -
	       log(ms / p->y0) / log(p->y1 / p->y0) * (CH_H - CH_TOP - CH_BOTTOM);
}

/* A window of the heatmap's volume and class. */
static bool heat_window(const struct html_heatmap *hm, const struct results_window *w)
{
	return w->scope == SCOPE_VOLUME && w->cls == hm->cls && w->count && w->nr &&
	       !strcmp(w->name, hm->volume);
}

/*
 * One column (windows from t0 to t1 s): each band's share of the column's
 * I/Os, bands next to each other of one level drawn as one rectangle of
 * that level's path.
 */
static void heat_column(struct heat_plot *p, const uint64_t *bands, uint64_t total, double t0,
			double t1)
{
	double x0 = heat_sx(p, t0), x1 = heat_sx(p, t1), ya, yb;
	unsigned b, start = 0, level = 0, lv;
	bool open = false;

	for (b = 0; b <= RESULTS_BANDS; b++) {
		lv = b < RESULTS_BANDS && bands[b]
			     ? html_heat_level((double)bands[b] / (double)total)
			     : HTML_HEAT_LEVELS;
		if (open && lv == level)
			continue;
		if (open) {
			ya = heat_sy(p, band_ms(start));
			yb = heat_sy(p, band_ms(b));
			strbuf_addf(&p->paths[level], "M%.1f %.1fh%.1fv%.1fh%.1fz", x0, yb, x1 - x0,
				    ya - yb, x0 - x1);
			p->cells++;
		}
		open = lv < HTML_HEAT_LEVELS;
		start = b;
		level = lv;
	}
}

/* The windows' time range and bands: false when there is none. */
static bool heat_extent(const struct html_heatmap *hm, size_t *nr, double *t_end, unsigned *lo,
			unsigned *hi)
{
	const struct results *r = hm->r;
	const struct results_window *w;
	size_t i;

	*nr = 0;
	*t_end = 0;
	*lo = RESULTS_BANDS;
	*hi = 0;
	for (i = 0; i < r->nr_windows; i++) {
		w = &r->windows[i];
		if (!heat_window(hm, w))
			continue;
		(*nr)++;
		*t_end = fmax(*t_end, (double)w->t_ms / 1000.0);
		*lo = w->lo < *lo ? w->lo : *lo;
		*hi = w->lo + w->nr - 1 > *hi ? w->lo + w->nr - 1 : *hi;
	}
	return *nr > 0;
}

/* The columns: html_heat_group() windows each, summed exactly. */
static void heat_cells(struct heat_plot *p, const struct html_heatmap *hm, size_t group)
{
	const struct results *r = hm->r;
	const struct results_window *w;
	uint64_t bands[RESULTS_BANDS] = {0}, total = 0;
	double t0 = 0, t_prev = 0;
	size_t i, in = 0;
	unsigned b;

	for (i = 0; i < r->nr_windows; i++) {
		w = &r->windows[i];
		if (!heat_window(hm, w))
			continue;
		if (!in)
			t0 = t_prev;
		for (b = 0; b < w->nr && w->lo + b < RESULTS_BANDS; b++)
			bands[w->lo + b] += w->bands[b];
		total += w->count;
		t_prev = (double)w->t_ms / 1000.0;
		if (++in < group)
			continue;
		heat_column(p, bands, total, t0, t_prev);
		memset(bands, 0, sizeof(bands));
		total = 0;
		in = 0;
	}
	if (in)
		heat_column(p, bands, total, t0, t_prev);
}

/* The axes: time (linear, from 0) and latency (log10, a tick per decade). */
static void heat_axes(struct strbuf *sb, const struct heat_plot *p, double xstep)
{
	double v;
	int k;

	for (k = 0, v = p->y0; k < CH_TICKS_MAX && v <= p->y1 * (1 + 1e-9); k++, v *= 10)
		strbuf_addf(sb,
			    "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			    "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n",
			    CH_LEFT, heat_sy(p, v), p->w - CH_RIGHT, heat_sy(p, v), CH_LEFT - 6,
			    heat_sy(p, v) + 4, v);
	for (k = 0, v = 0; k < CH_TICKS_MAX && v <= p->x1 + xstep / 1e6; k++, v += xstep)
		strbuf_addf(sb,
			    "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			    "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.*f</text>\n",
			    heat_sx(p, v), CH_H - CH_BOTTOM, heat_sx(p, v), CH_H - CH_BOTTOM + 4,
			    heat_sx(p, v), CH_H - CH_BOTTOM + 16, html_step_decimals(xstep), v);
	strbuf_addf(sb,
		    "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
		    "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
		    CH_LEFT, CH_H - CH_BOTTOM, p->w - CH_RIGHT, CH_H - CH_BOTTOM, CH_LEFT, CH_TOP,
		    CH_LEFT, CH_H - CH_BOTTOM);
	strbuf_addf(
		sb,
		"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">seconds since start</text>\n"
		"<text transform=\"translate(14 %.1f) rotate(-90)\" text-anchor=\"middle\">"
		"latency (ms, log scale)</text>\n",
		(CH_LEFT + p->w) / 2, CH_H - 8, (CH_TOP + CH_H - CH_BOTTOM) / 2);
}

/* The colour scale, right-aligned above the plot: adjacent swatches, each
 * labelled under its left edge with the lowest share it stands for, its
 * title to their left. The labels (9 px, .legend in report.css) are
 * narrower than a swatch, and end above the "warm-up ends" label and the
 * top tick (CH_TOP), so nothing overlaps at any width (the SVG scales
 * whole). */
#define HEAT_SWATCH 30.0
static void heat_legend(struct strbuf *sb, const struct heat_plot *p)
{
	double x = p->w - CH_RIGHT - HTML_HEAT_LEVELS * HEAT_SWATCH;
	unsigned k;

	strbuf_addf(sb,
		    "<g class=\"legend\"><text class=\"legend-title\" x=\"%.1f\" y=\"15\" "
		    "text-anchor=\"end\">share of I/Os, %%:</text>\n",
		    x - 4);
	for (k = 0; k < HTML_HEAT_LEVELS; k++, x += HEAT_SWATCH)
		strbuf_addf(sb,
			    "<rect x=\"%.1f\" y=\"6\" width=\"%.0f\" height=\"11\" fill=\"%s\"/>"
			    "<text x=\"%.1f\" y=\"27\">%s</text>\n",
			    x, HEAT_SWATCH, heat_levels[k].color, x + 1, heat_levels[k].label);
	strbuf_addstr(sb, "</g>\n");
}

void html_chart_heatmap(struct strbuf *sb, const struct html_heatmap *hm)
{
	struct heat_plot p = {.w = CH_W_COMPACT};
	double t_end, xstep, y;
	unsigned lo, hi, k;
	int d0, d1;
	size_t nr;
	bool any = heat_extent(hm, &nr, &t_end, &lo, &hi);

	if (!any) {
		lo = hi = 1;
		t_end = 1;
	}
	/* the threshold inside the axis, with room for its label */
	y = hm->threshold_ms;
	html_log10_decades(isfinite(y) && y > 0 ? fmin(band_ms(lo), y) : band_ms(lo),
			   isfinite(y) && y > 0 ? fmax(band_ms(hi + 1), 1.5 * y) : band_ms(hi + 1),
			   &d0, &d1);
	p.y0 = pow(10, d0);
	p.y1 = pow(10, d1);
	xstep = html_nice_step(t_end);
	p.x1 = fmax(ceil(t_end / xstep) * xstep, xstep);
	for (k = 0; k < HTML_HEAT_LEVELS; k++)
		strbuf_init(&p.paths[k]);
	if (any)
		heat_cells(&p, hm, html_heat_group(nr));

	strbuf_addf(sb, "<figure class=\"chart\" id=\"%s\"><figcaption>", hm->id);
	html_esc(sb, hm->title);
	strbuf_addf(sb,
		    "</figcaption>\n<svg viewBox=\"0 0 %.0f %.0f\" class=\"heatmap\" "
		    "data-volume=\"",
		    p.w, CH_H);
	html_esc(sb, hm->volume);
	strbuf_addf(sb,
		    "\" data-class=\"%s\" data-windows=\"%zu\" data-columns=\"%zu\" "
		    "data-cells=\"%zu\" role=\"img\" aria-label=\"",
		    stats_io_class_name(hm->cls), nr,
		    any ? (nr + html_heat_group(nr) - 1) / html_heat_group(nr) : 0, p.cells);
	html_esc(sb, hm->title);
	strbuf_addstr(sb, "\">\n<title>");
	html_esc(sb, hm->title);
	strbuf_addstr(sb, "</title>\n");
	heat_axes(sb, &p, xstep);
	for (k = 0; k < HTML_HEAT_LEVELS; k++) {
		if (!p.paths[k].len)
			continue;
		strbuf_addf(sb,
			    "<path class=\"heat\" data-level=\"%u\" fill=\"%s\" d=\"%s\">"
			    "<title>share of the column's I/Os: %s %% or more</title></path>\n",
			    k, heat_levels[k].color, p.paths[k].buf, heat_levels[k].label);
	}
	if (hm->warmup_s > 0 && hm->warmup_s < p.x1)
		strbuf_addf(sb,
			    "<line class=\"warmup-end\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			    "y2=\"%.1f\" stroke=\"#52606d\" stroke-dasharray=\"2 3\"/>"
			    "<text x=\"%.1f\" y=\"%.1f\" %s>warm-up ends</text>\n",
			    heat_sx(&p, hm->warmup_s), CH_TOP, heat_sx(&p, hm->warmup_s),
			    CH_H - CH_BOTTOM, heat_sx(&p, hm->warmup_s) + 3, CH_TOP - 3, HEAT_HALO);
	if (isfinite(y) && y > p.y0 && y < p.y1)
		strbuf_addf(sb,
			    "<line class=\"threshold\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			    "y2=\"%.1f\" stroke=\"#1f2933\"/><text x=\"%.1f\" y=\"%.1f\" "
			    "text-anchor=\"end\" %s>threshold %g ms</text>\n",
			    CH_LEFT, heat_sy(&p, y), p.w - CH_RIGHT, heat_sy(&p, y),
			    p.w - CH_RIGHT - 4, heat_sy(&p, y) - 4, HEAT_HALO, y);
	if (!any)
		strbuf_addf(sb,
			    "<text class=\"nodata\" x=\"%.1f\" y=\"%.1f\" "
			    "text-anchor=\"middle\">no window histograms in this run</text>\n",
			    (CH_LEFT + p.w) / 2, CH_H / 2);
	heat_legend(sb, &p);
	strbuf_addstr(sb, "</svg></figure>\n");
	for (k = 0; k < HTML_HEAT_LEVELS; k++)
		strbuf_release(&p.paths[k]);
}
