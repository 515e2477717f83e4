/* SPDX-License-Identifier: MIT */
/*
 * test_hist.c - the log-linear histogram: bucket math at group edges, the
 * 1/128 error bound over the whole range, exact merge, percentiles and the
 * sparse encoding round trip; the workers' interval stats (class_stats32:
 * 32-bit counts in groups taken from an arena, spilled to 64 bits) merge into
 * exactly what a plain histogram of the same values holds.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdlib.h>
#include <cmocka.h>

#include "diskproof/stats.h"

static void test_exact_below_64(void **state)
{
	for (uint64_t v = 0; v < 64; v++) {
		assert_int_equal(hist_bucket_index(v), v);
		assert_int_equal(hist_bucket_value((unsigned)v), v);
	}
}

/* At every power of two the index jumps to a new group's first bucket, and
 * the value just below sits in the previous group's last bucket. */
static void test_group_edges(void **state)
{
	assert_int_equal(hist_bucket_index(64), 64);
	assert_int_equal(hist_bucket_index(127), 127);
	assert_int_equal(hist_bucket_index(128), 128);
	assert_int_equal(hist_bucket_index(129), 128); /* width 2 from 128 on */
	assert_int_equal(hist_bucket_index(130), 129);
	for (unsigned m = HIST_BITS; m < HIST_MAX_BITS; m++) {
		uint64_t edge = (uint64_t)1 << m;
		unsigned g = m - HIST_BITS + 1;

		assert_int_equal(hist_bucket_index(edge), g * HIST_GROUP_BUCKETS);
		assert_int_equal(hist_bucket_index(edge - 1), g * HIST_GROUP_BUCKETS - 1);
		assert_int_equal(hist_bucket_lower(g * HIST_GROUP_BUCKETS), edge);
	}
	/* beyond the range: the last bucket */
	assert_int_equal(hist_bucket_index((uint64_t)1 << HIST_MAX_BITS), HIST_BUCKETS - 1);
	assert_int_equal(hist_bucket_index(UINT64_MAX), HIST_BUCKETS - 1);
}

static void check_bound(uint64_t v)
{
	uint64_t rep = hist_bucket_value(hist_bucket_index(v));
	uint64_t diff = rep > v ? rep - v : v - rep;

	/* |rep - v| <= v / 128, in integers: diff * 128 <= v */
	if (diff * 128 > v) {
		print_error("value %llu reported as %llu\n", (unsigned long long)v,
			    (unsigned long long)rep);
		fail();
	}
}

static void test_error_bound(void **state)
{
	for (unsigned m = 0; m < HIST_MAX_BITS; m++) {
		uint64_t edge = (uint64_t)1 << m;

		check_bound(edge);
		check_bound(edge + 1);
		if (edge > 1)
			check_bound(edge - 1);
		check_bound(edge + edge / 2);
		check_bound(2 * edge - 1);
	}
	/* pseudo-random values across the whole range */
	uint64_t x = 88172645463325252ULL;
	for (int i = 0; i < 200000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		check_bound(x >> (26 + (x & 31) % 27));
	}
	/* every bucket's lower edge maps to itself and the value to its bucket */
	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		assert_int_equal(hist_bucket_index(hist_bucket_lower(i)), i);
		assert_int_equal(hist_bucket_index(hist_bucket_value(i)), i);
	}
}

static void test_add_mean_minmax(void **state)
{
	struct hist *h = malloc(sizeof(*h));

	hist_init(h);
	assert_int_equal(hist_percentile(h, 99), 0);
	assert_true(hist_mean(h) == 0.0);
	hist_add(h, 1000);
	hist_add(h, 3000);
	hist_add(h, 5000000);
	assert_int_equal(h->count, 3);
	assert_int_equal(h->min_ns, 1000);
	assert_int_equal(h->max_ns, 5000000);
	assert_int_equal(h->sum_ns, 5004000);
	assert_true(hist_mean(h) == 5004000.0 / 3);
	free(h);
}

static void test_percentile(void **state)
{
	struct hist *h = malloc(sizeof(*h));

	hist_init(h);
	for (uint64_t v = 1; v <= 1000; v++)
		hist_add(h, v * 1000); /* 1 us .. 1 ms */
	uint64_t p50 = hist_percentile(h, 50), p99 = hist_percentile(h, 99);
	assert_true(p50 * 128 >= 500000 * 127 && p50 * 128 <= 500000 * 129);
	assert_true(p99 * 128 >= 990000 * 127 && p99 * 128 <= 990000 * 129);
	assert_int_equal(hist_percentile(h, 100), 1000000);
	/* one outlier: p99 of 100 values lands on the 99th, not the outlier */
	hist_init(h);
	for (int i = 0; i < 99; i++)
		hist_add(h, 2000000);
	hist_add(h, 900000000);
	p99 = hist_percentile(h, 99);
	assert_true(p99 < 2100000);
	assert_int_equal(hist_percentile(h, 99.5), 900000000);
	free(h);
}

static void test_merge_exact(void **state)
{
	struct hist *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b)), *all = malloc(sizeof(*all));

	hist_init(a);
	hist_init(b);
	hist_init(all);
	for (uint64_t v = 1; v < 100000; v += 7) {
		hist_add(v % 2 ? a : b, v * 13);
		hist_add(all, v * 13);
	}
	hist_merge(a, b);
	assert_memory_equal(a, all, sizeof(*a));
	free(a);
	free(b);
	free(all);
}

static void test_encode_roundtrip(void **state)
{
	struct hist *h = malloc(sizeof(*h)), *d = malloc(sizeof(*d));
	struct strbuf sb = STRBUF_INIT;

	hist_init(h);
	hist_init(d);
	hist_add(h, 5);
	hist_add(h, 5);
	hist_add(h, 123456789);
	hist_add(h, (uint64_t)1 << 40);
	hist_encode(h, &sb);
	assert_int_equal(hist_decode(d, sb.buf), 0);
	assert_memory_equal(d->buckets, h->buckets, sizeof(h->buckets));
	/* decoding adds: twice gives double counts */
	assert_int_equal(hist_decode(d, sb.buf), 0);
	assert_int_equal(d->buckets[5], 4);
	assert_int_equal(hist_decode(d, "1:2 x"), -EINVAL);
	assert_int_equal(hist_decode(d, "999999:1"), -EINVAL);
	assert_int_equal(hist_decode(d, "3:"), -EINVAL);
	assert_int_equal(hist_decode(d, ""), 0);
	strbuf_release(&sb);
	free(h);
	free(d);
}

static uint64_t xs64(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* A value spread over every group, nanoseconds to minutes: one in eight
 * below 128 ns (groups 0 and 1, which the shifts seldom reach). */
static uint64_t spread_value(uint64_t *x)
{
	uint64_t r = xs64(x);

	if (r % 8 == 0)
		return (r >> 3) % 128;
	return (r >> 8) >> (r % 40);
}

/* The (stats, group) pairs holding counts in h: the groups one stats took. */
static size_t groups_used(const struct hist *h)
{
	size_t n = 0;

	for (unsigned g = 0; g < HIST_GROUPS; g++)
		for (unsigned i = 0; i < HIST_GROUP_BUCKETS; i++)
			if (h->buckets[g * HIST_GROUP_BUCKETS + i]) {
				n++;
				break;
			}
	return n;
}

static void test_stats32_merge_exact(void **state)
{
	enum { N = 5 };
	struct stats_arena a;
	struct class_stats32 *s = calloc(N, sizeof(*s));
	struct class_stats *got = calloc(N, sizeof(*got)), *want = calloc(N, sizeof(*want));
	/* totals over the rounds, merged into without a reset, as tot_db */
	struct class_stats *tot_got = calloc(N, sizeof(*tot_got));
	struct class_stats *tot_want = calloc(N, sizeof(*tot_want));
	uint64_t x = 88172645463325252ull;

	assert_int_equal(stats_arena_init(&a, N), 0);
	for (unsigned i = 0; i < N; i++) {
		stats_class_init(&tot_got[i]);
		stats_class_init(&tot_want[i]);
	}
	for (unsigned round = 0; round < 3; round++) {
		size_t groups = 0;

		/* round 0 on calloc'ed memory, then on used ones: a reset
		 * must leave nothing behind */
		stats_class32_reset_all(s, N, &a);
		for (unsigned i = 0; i < N; i++) {
			stats_class_reset(&got[i]);
			stats_class_reset(&want[i]);
		}
		for (unsigned k = 0; k < 20000; k++) {
			unsigned i = (unsigned)(xs64(&x) % N);
			uint64_t v = spread_value(&x);

			if (i == 4)
				continue; /* one stays empty */
			assert_int_equal(class_stats32_add(&s[i], v, 4096), 0);
			hist_add(&want[i].lat, v);
			want[i].bytes += 4096;
			hist_add(&tot_want[i].lat, v);
			tot_want[i].bytes += 4096;
		}
		s[1].errors = 3;
		want[1].errors = 3;
		tot_want[1].errors += 3;
		for (unsigned i = 0; i < N; i++) {
			stats_class_merge32(&got[i], &s[i]);
			assert_memory_equal(&got[i], &want[i], sizeof(got[i]));
			stats_class_merge32(&tot_got[i], &s[i]);
			groups += groups_used(&want[i].lat);
		}
		/* the arena holds exactly the groups the values landed in */
		assert_int_equal(a.used, groups);
		assert_true(groups > 3 * HIST_GROUPS); /* the values reach most groups */
	}
	for (unsigned i = 0; i < N; i++)
		assert_memory_equal(&tot_got[i], &tot_want[i], sizeof(tot_got[i]));
	/* every group of every stats fits: the arena cannot run out */
	stats_class32_reset_all(s, N, &a);
	for (unsigned i = 0; i < N; i++)
		for (unsigned g = 0; g < HIST_GROUPS; g++)
			assert_int_equal(
				class_stats32_add(&s[i], hist_bucket_lower(g * HIST_GROUP_BUCKETS),
						  1),
				0);
	assert_int_equal(a.used, (size_t)N * HIST_GROUPS);
	for (unsigned i = 0; i < N; i++)
		stats_class32_release(&s[i]);
	stats_arena_release(&a);
	free(s);
	free(got);
	free(want);
	free(tot_got);
	free(tot_want);
}

static void test_stats32_spill(void **state)
{
	struct stats_arena a;
	struct class_stats32 s = {0};
	struct class_stats got, want;
	uint64_t x = 1234567;

	assert_int_equal(stats_arena_init(&a, 1), 0);
	stats_class32_reset_all(&s, 1, &a);
	stats_class_init(&got);
	stats_class_init(&want);
	for (unsigned k = 0; k < 3000; k++) {
		uint64_t v = spread_value(&x);

		if (k == 1000)
			assert_int_equal(stats_class32_spill(&s), 0);
		assert_int_equal(class_stats32_add(&s, v, 1), 0);
		hist_add(&want.lat, v);
		want.bytes++;
	}
	assert_non_null(s.spill);
	assert_int_equal(s.count, 2000);
	stats_class_merge32(&got, &s);
	assert_memory_equal(&got, &want, sizeof(got));

	/* a spill with nothing added after it: everything is in the spill */
	assert_int_equal(stats_class32_spill(&s), 0);
	assert_int_equal(s.count, 0);
	stats_class_reset(&got);
	stats_class_merge32(&got, &s);
	assert_memory_equal(&got, &want, sizeof(got));

	/* reset after a spill, then new values: nothing of before is left */
	stats_class32_reset_all(&s, 1, &a);
	stats_class_reset(&got);
	stats_class_reset(&want);
	for (unsigned k = 0; k < 500; k++) {
		uint64_t v = spread_value(&x);

		assert_int_equal(class_stats32_add(&s, v, 7), 0);
		hist_add(&want.lat, v);
		want.bytes += 7;
	}
	stats_class_merge32(&got, &s);
	assert_memory_equal(&got, &want, sizeof(got));

	/* the count limit triggers the spill by itself: pretend the groups
	 * hold HIST32_COUNT_MAX I/Os (one bucket's worth each is enough) */
	stats_class32_reset_all(&s, 1, &a);
	assert_int_equal(s.spill->count, 0);
	stats_class_reset(&got);
	assert_int_equal(class_stats32_add(&s, 1000, 1), 0);
	class_stats32_group(
		&s, hist_bucket_index(1000) /
			    HIST_GROUP_BUCKETS)[hist_bucket_index(1000) % HIST_GROUP_BUCKETS] =
		HIST32_COUNT_MAX;
	s.count = HIST32_COUNT_MAX;
	s.sum_ns = (uint64_t)HIST32_COUNT_MAX * 1000;
	assert_int_equal(class_stats32_add(&s, 1000, 1), 0);
	assert_int_equal(s.count, 1);
	assert_int_equal(s.spill->count, HIST32_COUNT_MAX);
	stats_class_merge32(&got, &s);
	assert_int_equal(got.lat.count, (uint64_t)HIST32_COUNT_MAX + 1);
	assert_int_equal(got.lat.buckets[hist_bucket_index(1000)], (uint64_t)HIST32_COUNT_MAX + 1);
	assert_int_equal(got.lat.sum_ns, ((uint64_t)HIST32_COUNT_MAX + 1) * 1000);
	assert_int_equal(got.lat.min_ns, 1000);
	assert_int_equal(got.lat.max_ns, 1000);
	stats_class32_release(&s);
	assert_null(s.spill);
	stats_arena_release(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_below_64),	 cmocka_unit_test(test_group_edges),
		cmocka_unit_test(test_error_bound),	 cmocka_unit_test(test_add_mean_minmax),
		cmocka_unit_test(test_percentile),	 cmocka_unit_test(test_merge_exact),
		cmocka_unit_test(test_encode_roundtrip), cmocka_unit_test(test_stats32_merge_exact),
		cmocka_unit_test(test_stats32_spill),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
