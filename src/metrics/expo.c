/* SPDX-License-Identifier: MIT */
/*
 * expo.c - the pieces of the Prometheus text exposition format (0.0.4):
 * HELP and TYPE lines, escaped label values, and a diskproof histogram
 * turned into exact cumulative buckets whose bounds are edges of its own
 * buckets (metrics.h says which, and why).
 */
#include <stdio.h>
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

/*
 * The bounds within an octave [2^m, 2^(m+1)): the edges (64 + j) x 2^(m-6)
 * of diskproof's buckets nearest to 2^m x 2^(i/8), i = 0..7 (64 x 2^(i/8)
 * is 64, 69.8, 76.1, 83.0, 90.5, 98.7, 107.6, 117.4). Successive bounds are
 * 8.3 % (117 to 128) to 9.6 % (83 to 91) apart: under the 10 % that keeps
 * histogram_quantile() within a few % of diskproof's own percentiles.
 */
static const uint8_t le_octave_j[METRICS_LE_PER_OCTAVE] = {0, 6, 12, 19, 27, 35, 44, 53};

uint64_t metrics_le_ns(unsigned i)
{
	if (i >= METRICS_LE_COUNT)
		return UINT64_MAX;
	return (uint64_t)(HIST_GROUP_BUCKETS + le_octave_j[i % METRICS_LE_PER_OCTAVE])
	       << (METRICS_LE_FIRST_BITS - HIST_BITS + i / METRICS_LE_PER_OCTAVE);
}

void metrics_le_add(struct strbuf *sb, unsigned i)
{
	uint64_t ns = metrics_le_ns(i), frac = ns % NSEC_PER_SEC;
	char d[10];
	int n = 9;

	if (i >= METRICS_LE_COUNT) {
		strbuf_addstr(sb, "+Inf");
		return;
	}
	/* exact seconds, no trailing zeros: 0.000008192, 17.179869184 */
	strbuf_addf(sb, "%llu", (unsigned long long)(ns / NSEC_PER_SEC));
	if (!frac)
		return;
	snprintf(d, sizeof(d), "%09llu", (unsigned long long)frac);
	while (d[n - 1] == '0')
		n--;
	strbuf_addf(sb, ".%.*s", n, d);
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
		uint64_t lower = hist_bucket_lower(i);

		/* a bound is an edge: every bound up to this bucket's lower
		 * edge has every bucket under it counted */
		while (b < METRICS_LE_COUNT && lower >= metrics_le_ns(b))
			cum[b++] = run;
		run += h->buckets[i];
	}
	while (b < METRICS_LE_COUNT)
		cum[b++] = run;
}
