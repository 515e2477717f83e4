/* SPDX-License-Identifier: MIT */
/*
 * expo.c - the pieces of the Prometheus text exposition format (0.0.4):
 * HELP and TYPE lines, escaped label values, and a diskproof histogram
 * turned into exact-as-can-be cumulative buckets (metrics.h says how a
 * bucket that straddles a bound is counted, and why).
 */
#include <string.h>

#include "diskproof/metrics.h"

/* The format's escapes: in HELP, backslash and newline; in a label value,
 * the double quote too. Every other byte is copied as it is (UTF-8). */
static const char *const help_named[0x80] = {['\\'] = "\\\\", ['\n'] = "\\n"};
static const char *const label_named[0x80] = {
	['\\'] = "\\\\",
	['\n'] = "\\n",
	['"'] = "\\\"",
};
static const struct strbuf_escapes help_esc = {help_named, NULL, false};
static const struct strbuf_escapes label_esc = {label_named, NULL, false};

void metrics_family(struct strbuf *sb, const char *name, const char *type, const char *help)
{
	strbuf_addf(sb, "# HELP %s ", name);
	strbuf_add_escaped(sb, help, &help_esc);
	strbuf_addf(sb, "\n# TYPE %s %s\n", name, type);
}

void metrics_label(struct strbuf *sb, bool first, const char *name, const char *value)
{
	if (!first)
		strbuf_addch(sb, ',');
	strbuf_addf(sb, "%s=\"", name);
	strbuf_add_escaped(sb, value ? value : "", &label_esc);
	strbuf_addch(sb, '"');
}

/* The bounds, as printed and in ns. Being decimal, none is an edge of the
 * log-linear buckets (an edge is (64 + j) x 2^k ns with j < 64; the unit
 * test test_metrics checks every bound), hence the midpoint rule below. */
static const struct {
	const char *text;
	uint64_t ns;
} le_bounds[METRICS_LE_COUNT] = {
	{"0.00005", 50000}, {"0.0001", 100000}, {"0.0002", 200000}, {"0.0005", 500000},
	{"0.001", 1000000}, {"0.002", 2000000}, {"0.005", 5000000}, {"0.01", 10000000},
	{"0.02", 20000000}, {"0.05", 50000000}, {"0.1", 100000000}, {"0.2", 200000000},
	{"0.5", 500000000}, {"1", 1000000000},	{"2", 2000000000},  {"5", 5000000000},
};

const char *metrics_le_text(unsigned i)
{
	return i < METRICS_LE_COUNT ? le_bounds[i].text : "+Inf";
}

uint64_t metrics_le_ns(unsigned i)
{
	return i < METRICS_LE_COUNT ? le_bounds[i].ns : UINT64_MAX;
}

void metrics_hist_cumulative(const struct hist *h, uint64_t cum[METRICS_LE_COUNT + 1])
{
	unsigned lo, hi, b = 0;
	uint64_t run = 0;

	memset(cum, 0, (METRICS_LE_COUNT + 1) * sizeof(*cum));
	cum[METRICS_LE_COUNT] = h->count;
	if (!h->count)
		return;
	/* only the buckets between min's and max's can hold counts */
	lo = hist_bucket_index(h->min_ns);
	hi = hist_bucket_index(h->max_ns);
	if (h->min_ns == UINT64_MAX || lo > hi) {
		lo = 0;
		hi = HIST_BUCKETS - 1;
	}
	for (unsigned i = lo; i <= hi; i++) {
		uint64_t mid = hist_bucket_value(i);

		/* bounds below this bucket's midpoint are complete */
		while (b < METRICS_LE_COUNT && mid > le_bounds[b].ns)
			cum[b++] = run;
		run += h->buckets[i];
	}
	while (b < METRICS_LE_COUNT)
		cum[b++] = run;
}
