/* SPDX-License-Identifier: MIT */
/*
 * stats.h - the log-linear latency histogram (in the style of fio's stat.h),
 * I/O classes and per-class counters.
 *
 * Bucket math. A latency v in nanoseconds falls in bucket:
 *   v < 2^B (B = HIST_BITS = 6, 64 buckets)   : index v           (exact)
 *   otherwise, with m = floor(log2 v) >= B     : index (m - B + 1) * 2^B
 *                                                 + ((v >> (m - B)) - 2^B)
 * i.e. each power-of-two group [2^m, 2^(m+1)) is split into 2^B = 64 equal
 * buckets of width 2^(m-B). Reporting a bucket by its midpoint is off by at most
 * half a width, 2^(m-B-1), and v >= 2^m, so the relative error is at most
 * 2^(m-B-1) / 2^m = 2^-(B+1) = 1/128. Values at or above 2^HIST_MAX_BITS
 * (about 275 s) go into the last bucket; the exact maximum is kept apart, so
 * max is never approximated. Adding is a count-leading-zeros, a shift and an
 * add: O(1), no division. Two histograms merge exactly by adding counts.
 */
#ifndef DISKPROOF_STATS_H
#define DISKPROOF_STATS_H

#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "diskproof/util.h"

enum io_class {
	IO_DB_READ,	/* a transaction's page read (fixed model: every read) */
	IO_DB_WRITE,	/* the flusher's page write (fixed model: every write) */
	IO_LOG_WRITE,	/* a write-through log append */
	IO_BDM_READ,	/* background database maintenance: sequential scan */
	IO_LOG_READ,	/* replication (or recovery) reading a closed log segment */
	IO_BACKUP_READ, /* the backup test's sequential read */
	IO_DB_FLUSH,	/* a database file's data made durable (fdatasync): data_flush,
			 * doublewrite; 0 bytes, reported only where there are some */
	IO_CLASS_COUNT,
};

/* "db_read", "db_write", "log_write", "bdm_read", "log_read", "backup_read",
 * "db_flush"
 * (the keys of reports and the store). */
const char *stats_io_class_name(enum io_class c);
/* -1 when unknown. */
int stats_io_class_from_name(const char *name);

#define HIST_BITS 6
#define HIST_GROUP_BUCKETS (1u << HIST_BITS)
#define HIST_MAX_BITS 38
/* groups: [0, 64) exact, then one group per power of two from 2^6 to 2^37 */
#define HIST_BUCKETS ((HIST_MAX_BITS - HIST_BITS + 1) * HIST_GROUP_BUCKETS)

struct hist {
	uint64_t count;
	uint64_t sum_ns; /* exact sum (wraps after 584 years of latency) */
	uint64_t min_ns; /* UINT64_MAX when empty */
	uint64_t max_ns;
	uint64_t buckets[HIST_BUCKETS];
};

void hist_init(struct hist *h);
unsigned hist_bucket_index(uint64_t ns);
/* Smallest value that lands in bucket idx, and its midpoint (reported value). */
uint64_t hist_bucket_lower(unsigned idx);
uint64_t hist_bucket_value(unsigned idx);

static inline void hist_add(struct hist *h, uint64_t ns)
{
	h->buckets[hist_bucket_index(ns)]++;
	h->count++;
	h->sum_ns += ns;
	if (ns < h->min_ns)
		h->min_ns = ns;
	if (ns > h->max_ns)
		h->max_ns = ns;
}

/* Empties a histogram that is either zeroed memory (calloc) or was valid:
 * only the buckets it used are cleared, so the pages of untouched buckets
 * stay untouched (a thousand databases' snapshots stay small in memory). */
void hist_reset(struct hist *h);

/* dst += src, exactly. */
void hist_merge(struct hist *dst, const struct hist *src);
/* Value at percentile p (0 < p <= 100): the midpoint of the bucket holding the
 * ceil(p/100 * count)-th smallest value, clamped to [min, max]. 0 when empty. */
uint64_t hist_percentile(const struct hist *h, double p);
/* Average in ns, 0 when empty. */
double hist_mean(const struct hist *h);

/*
 * Sparse text encoding for the store: "idx:count idx:count ..." over non-zero
 * buckets, ascending. hist_decode() adds the decoded counts into h (so several
 * encodings merge), and recomputes nothing else: count/sum/min/max travel in
 * their own columns. Returns 0 or -EINVAL.
 */
void hist_encode(const struct hist *h, struct strbuf *out);
int hist_decode(struct hist *h, const char *text) DP_MUST_CHECK;

/* A (scope, class) accumulation: latencies plus bytes and errors. */
struct class_stats {
	struct hist lat;
	uint64_t bytes;
	uint64_t errors; /* I/O errors (failed I/Os are not in lat) */
};

void stats_class_init(struct class_stats *s);
/* stats_class_init() for zeroed memory or a valid class_stats: hist_reset(). */
void stats_class_reset(struct class_stats *s);
void stats_class_merge(struct class_stats *dst, const struct class_stats *src);

/*
 * One interval of one (database, class), as a worker accumulates it. The
 * workers hold RUN_SLOTS intervals of every database, which for a thousand
 * databases would be most of diskproof's memory as full histograms, although
 * one database's second touches a few of the 33 bucket groups. So the buckets
 * live in groups of 64 32-bit counts (256 B) taken from a stats_arena the
 * first time a value lands in the group: the arena is filled from its start,
 * so the memory touched is the groups used, packed, and emptying a snapshot
 * is emptying its arena. The arena holds every group of every class_stats32
 * on it (virtual memory, calloc'ed, never touched beyond what is used), so
 * taking a group cannot fail.
 *
 * No real device completes 2^32 I/Os of one database in an interval, but the
 * sim engine's virtual clock could: when count reaches HIST32_COUNT_MAX,
 * class_stats32_add() first moves the counts into a 64-bit histogram
 * allocated then (spill), so the merge stays exact.
 */
#define HIST_GROUPS (HIST_BUCKETS / HIST_GROUP_BUCKETS)
#define HIST32_COUNT_MAX UINT32_MAX

struct stats_arena {
	uint32_t *counts; /* cap groups of HIST_GROUP_BUCKETS */
	size_t cap;
	size_t used;
};

struct class_stats32 {
	uint64_t count; /* I/Os in the groups (not in spill) */
	uint64_t sum_ns;
	uint64_t min_ns; /* of everything added since the reset, spill included */
	uint64_t max_ns;
	uint64_t bytes;
	uint64_t errors;
	struct stats_arena *arena;
	struct hist *spill;	     /* NULL until needed; its counts are not in count */
	uint32_t group[HIST_GROUPS]; /* 1 + the group's index in the arena; 0 = none */
};

/* An arena for n class_stats32 (every group of each). -ENOMEM. */
int stats_arena_init(struct stats_arena *a, size_t n) DP_MUST_CHECK;
void stats_arena_release(struct stats_arena *a);

/* Empties the n class_stats32 on arena a (zeroed memory or valid ones) and
 * the arena: every class_stats32 on an arena is reset at once. A spill is
 * kept, emptied. */
void stats_class32_reset_all(struct class_stats32 *s, size_t n, struct stats_arena *a);
/* Frees the spill (the struct itself is the caller's). */
void stats_class32_release(struct class_stats32 *s);
/* Moves every count into s->spill (allocating it); -ENOMEM leaves s as it was. */
int stats_class32_spill(struct class_stats32 *s) DP_MUST_CHECK;

static inline uint32_t *class_stats32_group(struct class_stats32 *s, unsigned g)
{
	struct stats_arena *a = s->arena;
	uint32_t *b;

	if (!s->group[g]) {
		/* cannot fail: the arena has every group of every stats on it, and
		 * a stats takes a group once between resets of them all */
		assert(a->used < a->cap);
		b = &a->counts[a->used * HIST_GROUP_BUCKETS];
		for (unsigned i = 0; i < HIST_GROUP_BUCKETS; i++)
			b[i] = 0;
		s->group[g] = (uint32_t)++a->used;
		return b;
	}
	return &a->counts[(size_t)(s->group[g] - 1) * HIST_GROUP_BUCKETS];
}

/* Adds one completed I/O of len bytes that took ns. -ENOMEM only when a spill
 * was needed and could not be allocated: the I/O is then not counted. */
static inline int class_stats32_add(struct class_stats32 *s, uint64_t ns, uint64_t len)
{
	unsigned idx;

	if (__builtin_expect(s->count == HIST32_COUNT_MAX, 0) && stats_class32_spill(s))
		return -ENOMEM;
	idx = hist_bucket_index(ns);
	class_stats32_group(s, idx / HIST_GROUP_BUCKETS)[idx % HIST_GROUP_BUCKETS]++;
	s->count++;
	s->sum_ns += ns;
	if (ns < s->min_ns)
		s->min_ns = ns;
	if (ns > s->max_ns)
		s->max_ns = ns;
	s->bytes += len;
	return 0;
}

/* dst += src, exactly (spill included). */
void stats_class_merge32(struct class_stats *dst, const struct class_stats32 *src);

#endif
