/* SPDX-License-Identifier: MIT */
/*
 * hist.c - log-linear latency histogram (bucket math and its 1/128 error bound
 * are derived in stats.h), class names and class_stats accumulation.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "diskproof/stats.h"

static const char *const class_names[IO_CLASS_COUNT] = {
	[IO_DB_READ] = "db_read",   [IO_DB_WRITE] = "db_write", [IO_LOG_WRITE] = "log_write",
	[IO_BDM_READ] = "bdm_read", [IO_LOG_READ] = "log_read", [IO_BACKUP_READ] = "backup_read",
	[IO_DB_FLUSH] = "db_flush",
};

const char *stats_io_class_name(enum io_class c)
{
	return (unsigned)c < IO_CLASS_COUNT ? class_names[c] : "unknown";
}

int stats_io_class_from_name(const char *name)
{
	for (unsigned i = 0; i < IO_CLASS_COUNT; i++)
		if (!strcmp(name, class_names[i]))
			return (int)i;
	return -1;
}

void hist_init(struct hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min_ns = UINT64_MAX;
}

/*
 * For v >= 2^B with msb m: group g = m - B + 1 (group 0 holds the exact values
 * below 2^B), offset within the group = the B bits after the leading one.
 */
unsigned hist_bucket_index(uint64_t ns)
{
	unsigned m, idx;

	if (ns < HIST_GROUP_BUCKETS)
		return (unsigned)ns;
	m = 63u - (unsigned)__builtin_clzll(ns);
	if (m >= HIST_MAX_BITS)
		return HIST_BUCKETS - 1;
	idx = (m - HIST_BITS + 1) * HIST_GROUP_BUCKETS +
	      (unsigned)((ns >> (m - HIST_BITS)) - HIST_GROUP_BUCKETS);
	return idx;
}

uint64_t hist_bucket_lower(unsigned idx)
{
	unsigned g = idx / HIST_GROUP_BUCKETS, off = idx % HIST_GROUP_BUCKETS;
	unsigned m;

	if (g == 0)
		return idx;
	m = g + HIST_BITS - 1;
	return ((uint64_t)HIST_GROUP_BUCKETS + off) << (m - HIST_BITS);
}

uint64_t hist_bucket_value(unsigned idx)
{
	unsigned g = idx / HIST_GROUP_BUCKETS;
	unsigned m;

	if (g == 0)
		return idx;
	m = g + HIST_BITS - 1;
	/* midpoint: lower + width / 2, width = 2^(m - B) */
	return hist_bucket_lower(idx) + (((uint64_t)1 << (m - HIST_BITS)) >> 1);
}

/*
 * The buckets a histogram can have counts in: from min's to max's, since every
 * value added lies between them (a decoded histogram gets its exact min and
 * max from the store). When they are not set yet, every bucket.
 */
static void hist_range(const struct hist *h, unsigned *lo, unsigned *hi)
{
	*lo = hist_bucket_index(h->min_ns);
	*hi = hist_bucket_index(h->max_ns);
	if (!h->count || *lo > *hi || h->min_ns == UINT64_MAX) {
		*lo = 0;
		*hi = HIST_BUCKETS - 1;
	}
}

void hist_reset(struct hist *h)
{
	unsigned lo, hi;

	if (h->count) {
		/* clear only the buckets that hold counts: a memset over min's to
		 * max's buckets would write, and so fault in, the pages between that
		 * no count ever reached (reading them costs no memory) */
		hist_range(h, &lo, &hi);
		for (unsigned i = lo; i <= hi; i++)
			if (h->buckets[i])
				h->buckets[i] = 0;
	}
	h->count = 0;
	h->sum_ns = 0;
	h->min_ns = UINT64_MAX;
	h->max_ns = 0;
}

void hist_merge(struct hist *dst, const struct hist *src)
{
	unsigned lo, hi;

	if (!src->count)
		return;
	/* only the buckets src can have counts in: a 1 s snapshot touches a
	 * few of the 2,112 */
	hist_range(src, &lo, &hi);
	/* and only those src holds counts in: writing a zero into dst would
	 * fault in its page */
	for (unsigned i = lo; i <= hi; i++)
		if (src->buckets[i])
			dst->buckets[i] += src->buckets[i];
	dst->count += src->count;
	dst->sum_ns += src->sum_ns;
	if (src->min_ns < dst->min_ns)
		dst->min_ns = src->min_ns;
	if (src->max_ns > dst->max_ns)
		dst->max_ns = src->max_ns;
}

uint64_t hist_percentile(const struct hist *h, double p)
{
	uint64_t rank, seen = 0, v;
	unsigned lo, hi;

	if (!h->count)
		return 0;
	if (p <= 0)
		return h->min_ns;
	if (p >= 100)
		return h->max_ns;
	/* rank = ceil(p/100 * count), at least 1 */
	rank = (uint64_t)((p / 100.0) * (double)h->count);
	if ((double)rank < (p / 100.0) * (double)h->count)
		rank++;
	if (rank == 0)
		rank = 1;
	hist_range(h, &lo, &hi);
	for (unsigned i = lo; i <= hi; i++) {
		seen += h->buckets[i];
		if (seen >= rank) {
			v = hist_bucket_value(i);
			if (v < h->min_ns)
				v = h->min_ns;
			if (v > h->max_ns)
				v = h->max_ns;
			return v;
		}
	}
	return h->max_ns;
}

double hist_mean(const struct hist *h)
{
	return h->count ? (double)h->sum_ns / (double)h->count : 0.0;
}

void hist_encode(const struct hist *h, struct strbuf *out)
{
	bool first = true;
	unsigned lo, hi;

	hist_range(h, &lo, &hi);
	for (unsigned i = lo; i <= hi; i++) {
		if (!h->buckets[i])
			continue;
		strbuf_addf(out, "%s%u:%llu", first ? "" : " ", i,
			    (unsigned long long)h->buckets[i]);
		first = false;
	}
}

int hist_decode(struct hist *h, const char *text)
{
	const char *p = text;
	char *end;

	while (*p) {
		unsigned long idx;
		unsigned long long cnt;

		while (*p == ' ')
			p++;
		if (!*p)
			break;
		if (*p < '0' || *p > '9')
			return -EINVAL;
		errno = 0;
		idx = strtoul(p, &end, 10);
		if (errno || end == p || *end != ':' || idx >= HIST_BUCKETS)
			return -EINVAL;
		p = end + 1;
		if (*p < '0' || *p > '9')
			return -EINVAL;
		cnt = strtoull(p, &end, 10);
		if (errno || end == p || (*end && *end != ' '))
			return -EINVAL;
		h->buckets[idx] += cnt;
		p = end;
	}
	return 0;
}

void stats_class_init(struct class_stats *s)
{
	hist_init(&s->lat);
	s->bytes = 0;
	s->errors = 0;
}

void stats_class_reset(struct class_stats *s)
{
	hist_reset(&s->lat);
	s->bytes = 0;
	s->errors = 0;
}

void stats_class_merge(struct class_stats *dst, const struct class_stats *src)
{
	hist_merge(&dst->lat, &src->lat);
	dst->bytes += src->bytes;
	dst->errors += src->errors;
}

int stats_arena_init(struct stats_arena *a, size_t n)
{
	a->cap = n * HIST_GROUPS;
	a->used = 0;
	/* calloc: the pages no group ever reaches are never touched */
	a->counts = calloc(a->cap ? a->cap : 1, HIST_GROUP_BUCKETS * sizeof(uint32_t));
	return a->counts ? 0 : -ENOMEM;
}

void stats_arena_release(struct stats_arena *a)
{
	free(a->counts);
	a->counts = NULL;
	a->cap = a->used = 0;
}

void stats_class32_reset_all(struct class_stats32 *s, size_t n, struct stats_arena *a)
{
	for (size_t i = 0; i < n; i++) {
		memset(s[i].group, 0, sizeof(s[i].group));
		if (s[i].spill)
			hist_reset(s[i].spill);
		s[i].count = 0;
		s[i].sum_ns = 0;
		s[i].min_ns = UINT64_MAX;
		s[i].max_ns = 0;
		s[i].bytes = 0;
		s[i].errors = 0;
		s[i].arena = a;
	}
	/* groups are zeroed when taken again */
	a->used = 0;
}

void stats_class32_release(struct class_stats32 *s)
{
	free(s->spill);
	s->spill = NULL;
}

int stats_class32_spill(struct class_stats32 *s)
{
	struct hist *h = s->spill;

	if (!h) {
		h = malloc(sizeof(*h));
		if (!h)
			return -ENOMEM;
		hist_init(h);
		s->spill = h;
	}
	if (!s->count)
		return 0;
	for (unsigned g = 0; g < HIST_GROUPS; g++) {
		uint32_t *b;

		if (!s->group[g])
			continue;
		b = class_stats32_group(s, g);
		for (unsigned i = 0; i < HIST_GROUP_BUCKETS; i++) {
			h->buckets[g * HIST_GROUP_BUCKETS + i] += b[i];
			b[i] = 0;
		}
	}
	h->count += s->count;
	h->sum_ns += s->sum_ns;
	if (s->min_ns < h->min_ns)
		h->min_ns = s->min_ns;
	if (s->max_ns > h->max_ns)
		h->max_ns = s->max_ns;
	/* min and max stay those of everything added */
	s->count = 0;
	s->sum_ns = 0;
	return 0;
}

void stats_class_merge32(struct class_stats *dst, const struct class_stats32 *src)
{
	struct hist *h = &dst->lat;

	dst->bytes += src->bytes;
	dst->errors += src->errors;
	if (src->spill)
		hist_merge(h, src->spill);
	if (!src->count)
		return;
	for (unsigned g = 0; g < HIST_GROUPS; g++) {
		const uint32_t *b;

		if (!src->group[g])
			continue;
		b = &src->arena->counts[(size_t)(src->group[g] - 1) * HIST_GROUP_BUCKETS];
		for (unsigned i = 0; i < HIST_GROUP_BUCKETS; i++)
			if (b[i])
				h->buckets[g * HIST_GROUP_BUCKETS + i] += b[i];
	}
	h->count += src->count;
	h->sum_ns += src->sum_ns;
	if (src->min_ns < h->min_ns)
		h->min_ns = src->min_ns;
	if (src->max_ns > h->max_ns)
		h->max_ns = src->max_ns;
}
