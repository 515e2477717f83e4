/*
 * test_hist.c - the log-linear histogram: bucket math at group edges, the
 * 1/128 error bound over the whole range, exact merge, percentiles and the
 * sparse encoding round trip.
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_below_64),	 cmocka_unit_test(test_group_edges),
		cmocka_unit_test(test_error_bound),	 cmocka_unit_test(test_add_mean_minmax),
		cmocka_unit_test(test_percentile),	 cmocka_unit_test(test_merge_exact),
		cmocka_unit_test(test_encode_roundtrip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
