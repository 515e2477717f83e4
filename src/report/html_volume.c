/* SPDX-License-Identifier: MIT */
/*
 * html_volume.c - the run page's charts per volume (section "Latency per
 * volume") and the per-second p99 and maximum charts: one <svg> per volume
 * and class, so that a five-volume run has five of each and one slow disk
 * does not hide under the run's line. The charts are html_chart.c's; what
 * they draw is stored (sample rows, window histograms), nothing computed.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "html.h"

bool html_class_hline(const struct results *r, enum io_class c, struct html_hline *hl, char *label,
		      size_t size)
{
	hl->y = html_class_avg_threshold(r, c);
	snprintf(label, size, "avg threshold %g ms", isfinite(hl->y) ? hl->y : 0);
	hl->label = label;
	hl->color = "#b91c1c";
	return isfinite(hl->y);
}

/*
 * The threshold line of a per-second maximum chart: the maximum criterion
 * when it judges the slowest single I/O (CLASS_max_ms, max_basis = io);
 * none when it judges the highest sample average (max_basis = sample: a
 * second's slowest I/O over it fails nothing) or when the class has no
 * maximum criterion. An average threshold is never drawn here.
 */
static bool class_max_hline(const struct results *r, enum io_class c, struct html_hline *hl,
			    char *label, size_t size)
{
	char crit[48];

	snprintf(crit, sizeof(crit), "%s_max_ms", stats_io_class_name(c));
	hl->y = html_verdict_threshold(r, crit);
	snprintf(label, size, "max threshold %g ms (slowest I/O)", isfinite(hl->y) ? hl->y : 0);
	hl->label = label;
	hl->color = "#b91c1c";
	return isfinite(hl->y);
}

/* The 1-based place of volume name in the run, for an element id (0: none). */
static size_t volume_place(const struct results *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->nr_volumes; i++)
		if (!strcmp(r->volumes[i].name, name))
			return i + 1;
	return 0;
}

void html_chart_tail(struct strbuf *sb, const struct results *r, enum scope_kind scope,
		     const char *name, enum io_class c, const char *color)
{
	char id[48], title[RESULTS_NAME_MAX + 64], hlabel[64];
	struct html_series s[2];
	struct html_hline hl;
	struct html_chart ch;
	bool has_hl = class_max_hline(r, c, &hl, hlabel, sizeof(hlabel));

	if (scope == SCOPE_RUN)
		snprintf(id, sizeof(id), "chart-tail-%s", stats_io_class_name(c));
	else
		snprintf(id, sizeof(id), "chart-tail-%s-%zu", stats_io_class_name(c),
			 volume_place(r, name));
	if (scope == SCOPE_RUN)
		snprintf(title, sizeof(title), "%s p99 and slowest I/O per second",
			 stats_io_class_name(c));
	else
		snprintf(title, sizeof(title), "%s: %s p99 and slowest I/O per second", name,
			 stats_io_class_name(c));
	s[0] = (struct html_series){.r = r,
				    .src = HTML_SRC_MAX_MS,
				    .scope = scope,
				    .name = name,
				    .cls = c,
				    .label = "slowest I/O",
				    .color = "#9aa5b1"};
	s[1] = s[0];
	s[1].src = HTML_SRC_P99_MS;
	s[1].label = "p99";
	s[1].color = color;
	ch = (struct html_chart){.id = id,
				 .title = title,
				 .x_label = "seconds since start",
				 .y_label = "ms",
				 .series = s,
				 .nr_series = 2,
				 .hlines = &hl,
				 .nr_hlines = has_hl ? 1 : 0,
				 .warmup_s = r->warmup_s,
				 .compact = true,
				 .svg_class = "tail",
				 .volume = scope == SCOPE_VOLUME ? name : NULL,
				 .cls_name = stats_io_class_name(c)};
	html_chart_line(sb, &ch);
}

/* The judged classes of the per-volume charts, those the run issued. */
static const enum io_class volume_classes[] = {IO_DB_READ, IO_LOG_WRITE};

/* Volume v's average latency of class c per second against its threshold:
 * <svg class="vol-latency" data-volume data-class data-max data-threshold>. */
static void volume_latency_chart(struct strbuf *sb, const struct results *r, size_t v,
				 enum io_class c, const char *color)
{
	const char *vol = r->volumes[v].name;
	char id[48], title[RESULTS_NAME_MAX + 64], hlabel[64];
	struct html_series ls;
	struct html_hline hl;
	struct html_chart ch;
	bool has_hl = html_class_hline(r, c, &hl, hlabel, sizeof(hlabel));

	snprintf(id, sizeof(id), "chart-vol-%s-%zu", stats_io_class_name(c), v + 1);
	snprintf(title, sizeof(title), "%s: %s average latency per second", vol,
		 stats_io_class_name(c));
	ls = (struct html_series){.r = r,
				  .src = HTML_SRC_AVG_MS,
				  .scope = SCOPE_VOLUME,
				  .name = vol,
				  .classes = 1u << c,
				  .label = stats_io_class_name(c),
				  .color = color};
	ch = (struct html_chart){.id = id,
				 .title = title,
				 .x_label = "seconds since start",
				 .y_label = "ms",
				 .series = &ls,
				 .nr_series = 1,
				 .hlines = &hl,
				 .nr_hlines = has_hl ? 1 : 0,
				 .warmup_s = r->warmup_s,
				 .compact = true,
				 .svg_class = "vol-latency",
				 .volume = vol,
				 .cls_name = stats_io_class_name(c)};
	html_chart_line(sb, &ch);
}

/*
 * The section "Latency per volume": each volume's judged classes (database
 * reads, log writes) apart, so that
 * one slow disk does not hide under the run's average: per volume and
 * class, the average per second against the threshold, the p99 and
 * maximum per second, and the heatmap of its 15 s window histograms.
 */
void html_volume_latency(struct strbuf *sb, const struct results *r,
			 const char *const colors[IO_CLASS_COUNT])
{
	unsigned issued = results_classes_issued(r);
	char id[48], title[RESULTS_NAME_MAX + 64], hlabel[64];
	struct html_heatmap hm;
	struct html_hline hl;
	size_t v, k;
	enum io_class c;

	html_section_open(sb, "volume-latency", "Latency per volume", false);
	strbuf_addstr(sb, "<p class=\"note\">Per volume, for database reads and log writes "
			  "(a database's log writes count under its volume wherever the log "
			  "lives): the average of each second against the threshold, the "
			  "p99 and slowest I/O of each second, and a heatmap of the stored 15 s "
			  "histograms, where each column is a stretch of time and each cell "
			  "the share of that stretch's I/Os in a latency band (log scale, "
			  "darker is more).</p>\n");
	if (!r->nr_volumes)
		strbuf_addstr(sb, "<p>This run has no volume figures.</p>\n");
	for (v = 0; v < r->nr_volumes; v++) {
		strbuf_addstr(sb, "<h3 class=\"volume\">");
		html_esc(sb, r->volumes[v].name);
		strbuf_addstr(sb, "</h3>\n<div class=\"charts2\">\n");
		for (k = 0; k < DP_ARRAY_SIZE(volume_classes); k++)
			if (issued & (1u << volume_classes[k]))
				volume_latency_chart(sb, r, v, volume_classes[k],
						     colors[volume_classes[k]]);
		for (k = 0; k < DP_ARRAY_SIZE(volume_classes); k++)
			if (issued & (1u << volume_classes[k]))
				html_chart_tail(sb, r, SCOPE_VOLUME, r->volumes[v].name,
						volume_classes[k], colors[volume_classes[k]]);
		for (k = 0; k < DP_ARRAY_SIZE(volume_classes); k++) {
			c = volume_classes[k];
			if (!(issued & (1u << c)))
				continue;
			snprintf(id, sizeof(id), "chart-heat-%s-%zu", stats_io_class_name(c),
				 v + 1);
			snprintf(title, sizeof(title), "%s: %s latency heatmap (15 s windows)",
				 r->volumes[v].name, stats_io_class_name(c));
			hm = (struct html_heatmap){.id = id,
						   .title = title,
						   .r = r,
						   .volume = r->volumes[v].name,
						   .cls = c,
						   .threshold_ms = NAN,
						   .warmup_s = r->warmup_s};
			if (html_class_hline(r, c, &hl, hlabel, sizeof(hlabel)))
				hm.threshold_ms = hl.y;
			html_chart_heatmap(sb, &hm);
		}
		strbuf_addstr(sb, "</div>\n");
	}
	strbuf_addstr(sb, "</section>\n");
}
