/* SPDX-License-Identifier: MIT */
/*
 * test_units.c - unit parsing and formatting (durations, sizes, percentages,
 * numbers, booleans) and the edit distance behind did-you-mean: every accepted
 * spelling, and every way a value can be wrong (garbage, negative, empty,
 * overflow, NaN/inf), with the reason text.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "diskproof/util.h"

#define MS NSEC_PER_MSEC
#define SEC NSEC_PER_SEC

static void dur_ok(const char *s, uint64_t want)
{
	struct strbuf err = STRBUF_INIT;
	uint64_t v = 12345;

	if (unit_parse_duration(s, &v, &err))
		fail_msg("\"%s\": %s", s, err.buf);
	if (v != want)
		fail_msg("\"%s\": got %llu, want %llu", s, (unsigned long long)v,
			 (unsigned long long)want);
	strbuf_release(&err);
}

static void dur_bad(const char *s, int ret, const char *msg)
{
	struct strbuf err = STRBUF_INIT;
	uint64_t v = 12345;

	assert_int_equal(unit_parse_duration(s, &v, &err), ret);
	assert_int_equal(v, 12345); /* untouched on error */
	if (msg)
		assert_string_equal(err.buf, msg);
	else
		assert_true(err.len > 0);
	strbuf_release(&err);
}

static void test_duration_good(void **state)
{
	dur_ok("500ms", 500 * MS);
	dur_ok("30s", 30 * SEC);
	dur_ok("5m", 300 * SEC);
	dur_ok("2h", 7200 * SEC);
	dur_ok("1d", 86400 * SEC);
	dur_ok("10", 10 * SEC); /* a bare number is seconds */
	dur_ok("0", 0);
	dur_ok("  2h \t", 7200 * SEC);
	dur_ok("1.5s", 1500 * MS);
	dur_ok("0.25ms", 250 * NSEC_PER_USEC);
	dur_ok("250us", 250 * NSEC_PER_USEC);
	dur_ok("100ns", 100);
	dur_ok("1h30m", 5400 * SEC);
	dur_ok("1h 30m 15s", 5415 * SEC);
	dur_ok("5 s", 5 * SEC);
	dur_ok("213503d", 213503ULL * 86400 * SEC); /* just under 2^64 ns */
}

static void test_duration_bad(void **state)
{
	dur_bad("5x", -EINVAL,
		"bad duration \"5x\": expected a number followed by ms, s, m, h or d");
	dur_bad("", -EINVAL, "empty duration: expected a number followed by ms, s, m, h or d");
	dur_bad("   ", -EINVAL, NULL);
	dur_bad("-5s", -EINVAL, "bad duration \"-5s\": negative durations are not allowed");
	dur_bad("5s garbage", -EINVAL, NULL);
	dur_bad("s", -EINVAL, NULL);
	dur_bad("nan", -EINVAL, NULL);
	dur_bad("inf", -EINVAL, NULL);
	dur_bad("1e3s", -EINVAL, NULL);
	dur_bad("0x10s", -EINVAL, NULL);
	dur_bad("10 20", -EINVAL, NULL); /* only a lone number may skip the unit */
	dur_bad("5M", -EINVAL, NULL);	 /* units are lower case: M is not minutes */
	dur_bad("0.5ns", -EINVAL, "bad duration \"0.5ns\": finer than a nanosecond");
	dur_bad("99999999999999999999h", -ERANGE,
		"duration \"99999999999999999999h\" is too long (the most is about 584 years)");
	dur_bad("213504d", -ERANGE, NULL);
	dur_bad("213503d 213503d", -ERANGE, NULL); /* sum overflows */
}

static void size_ok(const char *s, uint64_t want)
{
	struct strbuf err = STRBUF_INIT;
	uint64_t v = 0;

	if (unit_parse_size(s, &v, &err))
		fail_msg("\"%s\": %s", s, err.buf);
	if (v != want)
		fail_msg("\"%s\": got %llu, want %llu", s, (unsigned long long)v,
			 (unsigned long long)want);
	strbuf_release(&err);
}

static void size_bad(const char *s, int ret, const char *msg)
{
	struct strbuf err = STRBUF_INIT;
	uint64_t v = 7;

	assert_int_equal(unit_parse_size(s, &v, &err), ret);
	assert_int_equal(v, 7);
	if (msg)
		assert_string_equal(err.buf, msg);
	else
		assert_true(err.len > 0);
	strbuf_release(&err);
}

static void test_size_good(void **state)
{
	size_ok("32KiB", 32768);
	size_ok("1MiB", 1 << 20);
	size_ok("4GiB", 4ULL << 30);
	size_ok("1TiB", 1ULL << 40);
	size_ok("1EiB", 1ULL << 60); /* what unit_format_size prints parses back */
	size_ok("2PiB", 2ULL << 50);
	size_ok("512B", 512);
	size_ok("4096", 4096);
	size_ok("1KB", 1000);
	size_ok("2MB", 2000000);
	size_ok("1GB", 1000000000);
	size_ok("4K", 4096);
	size_ok("4k", 4096);
	size_ok("1M", 1 << 20);
	size_ok("2G", 2ULL << 30);
	size_ok("32kib", 32768);
	size_ok("1 MiB", 1 << 20);
	size_ok(" 1.5GiB ", 3ULL << 29);
	size_ok("0.5KiB", 512);
	size_ok("18446744073709551615", UINT64_MAX);
	size_ok("16383PiB", 16383ULL << 50);
}

static void test_size_bad(void **state)
{
	size_bad("12XB", -EINVAL,
		 "bad size \"12XB\": expected a number followed by B, KiB, MiB, GiB or TiB (or KB, "
		 "MB, GB, TB)");
	size_bad("", -EINVAL, NULL);
	size_bad("-1MiB", -EINVAL, "bad size \"-1MiB\": negative sizes are not allowed");
	size_bad("0.3KiB", -EINVAL, "bad size \"0.3KiB\": not a whole number of bytes");
	size_bad("1MiBx", -EINVAL, NULL);
	size_bad("1 MiB 2", -EINVAL, NULL);
	size_bad("nan", -EINVAL, NULL);
	size_bad("inf", -EINVAL, NULL);
	size_bad("1e6", -EINVAL, NULL);
	size_bad("99999999999999999999GiB", -ERANGE,
		 "size \"99999999999999999999GiB\" is too large (the most is 16 EiB - 1 byte)");
	size_bad("17179869184GiB", -ERANGE, NULL); /* exactly 2^64 */
	size_bad("18446744073709551616", -ERANGE, NULL);
}

static void test_percent(void **state)
{
	struct strbuf err = STRBUF_INIT;
	double v;

	assert_int_equal(unit_parse_percent("70", &v, NULL), 0);
	assert_true(v == 70.0);
	assert_int_equal(unit_parse_percent("70%", &v, NULL), 0);
	assert_true(v == 70.0);
	assert_int_equal(unit_parse_percent(" 12.5 % ", &v, NULL), 0);
	assert_true(v == 12.5);
	assert_int_equal(unit_parse_percent("0", &v, NULL), 0);
	assert_true(v == 0.0);
	assert_int_equal(unit_parse_percent("100", &v, NULL), 0);
	assert_true(v == 100.0);

	assert_int_equal(unit_parse_percent("100.1", &v, &err), -ERANGE);
	assert_string_equal(err.buf, "percentage \"100.1\" is over 100");
	strbuf_reset(&err);
	assert_int_equal(unit_parse_percent("99999999999999999999999", &v, &err), -ERANGE);
	strbuf_reset(&err);
	assert_int_equal(unit_parse_percent("-1", &v, &err), -EINVAL);
	assert_string_equal(err.buf, "bad percentage \"-1\": negative percentages are not allowed");
	strbuf_reset(&err);
	assert_int_equal(unit_parse_percent("abc", &v, &err), -EINVAL);
	assert_string_equal(err.buf, "bad percentage \"abc\": expected a number from 0 to 100, "
				     "optionally followed by %");
	assert_int_equal(unit_parse_percent("", &v, NULL), -EINVAL);
	assert_int_equal(unit_parse_percent("nan", &v, NULL), -EINVAL);
	assert_int_equal(unit_parse_percent("inf", &v, NULL), -EINVAL);
	assert_int_equal(unit_parse_percent("50%%", &v, NULL), -EINVAL);
	assert_int_equal(unit_parse_percent("5 0", &v, NULL), -EINVAL);
	strbuf_release(&err);
}

static void test_u64(void **state)
{
	struct strbuf err = STRBUF_INIT;
	uint64_t v;

	assert_int_equal(unit_parse_u64("0", &v, NULL), 0);
	assert_int_equal(v, 0);
	assert_int_equal(unit_parse_u64(" 42 ", &v, NULL), 0);
	assert_int_equal(v, 42);
	assert_int_equal(unit_parse_u64("18446744073709551615", &v, NULL), 0);
	assert_true(v == UINT64_MAX);

	assert_int_equal(unit_parse_u64("18446744073709551616", &v, &err), -ERANGE);
	assert_string_equal(err.buf, "number \"18446744073709551616\" is too large (the most is "
				     "18446744073709551615)");
	strbuf_reset(&err);
	assert_int_equal(unit_parse_u64("-3", &v, &err), -EINVAL);
	assert_string_equal(err.buf, "bad number \"-3\": negative numbers are not allowed");
	strbuf_reset(&err);
	assert_int_equal(unit_parse_u64("1.5", &v, &err), -EINVAL);
	assert_string_equal(err.buf, "bad number \"1.5\": expected a whole number such as 42");
	assert_int_equal(unit_parse_u64("0x10", &v, NULL), -EINVAL);
	assert_int_equal(unit_parse_u64("", &v, NULL), -EINVAL);
	assert_int_equal(unit_parse_u64("+5", &v, NULL), -EINVAL);
	assert_int_equal(unit_parse_u64("5k", &v, NULL), -EINVAL);
	assert_int_equal(unit_parse_u64("1e3", &v, NULL), -EINVAL);
	strbuf_release(&err);
}

static void test_double(void **state)
{
	double v;

	assert_int_equal(unit_parse_double("1.5", &v, NULL), 0);
	assert_true(v == 1.5);
	assert_int_equal(unit_parse_double("-2.25", &v, NULL), 0);
	assert_true(v == -2.25);
	assert_int_equal(unit_parse_double("3", &v, NULL), 0);
	assert_true(v == 3.0);
	assert_int_equal(unit_parse_double(".5", &v, NULL), 0);
	assert_true(v == 0.5);
	assert_int_equal(unit_parse_double("inf", &v, NULL), -EINVAL);
	assert_int_equal(unit_parse_double("nan", &v, NULL), -EINVAL);
	assert_int_equal(unit_parse_double("-inf", &v, NULL), -EINVAL);
	assert_int_equal(unit_parse_double("1e5", &v, NULL), -EINVAL);
	assert_int_equal(unit_parse_double("", &v, NULL), -EINVAL);
	assert_int_equal(unit_parse_double(".", &v, NULL), -EINVAL);
	assert_int_equal(unit_parse_double("-", &v, NULL), -EINVAL);
	assert_int_equal(unit_parse_double("99999999999999999999.5", &v, NULL), -ERANGE);
}

static void test_bool(void **state)
{
	static const char *const yes[] = {"on", "true", "yes", "1", "ON", " True "};
	static const char *const no[] = {"off", "false", "no", "0", "Off", "NO"};
	struct strbuf err = STRBUF_INIT;
	bool v;

	for (size_t i = 0; i < DP_ARRAY_SIZE(yes); i++) {
		v = false;
		assert_int_equal(unit_parse_bool(yes[i], &v, NULL), 0);
		assert_true(v);
		assert_int_equal(unit_parse_bool(no[i], &v, NULL), 0);
		assert_false(v);
	}
	assert_int_equal(unit_parse_bool("maybe", &v, &err), -EINVAL);
	assert_string_equal(err.buf,
			    "bad boolean \"maybe\": expected on/off, true/false, yes/no or 1/0");
	assert_int_equal(unit_parse_bool("", &v, NULL), -EINVAL);
	assert_int_equal(unit_parse_bool("2", &v, NULL), -EINVAL);
	assert_int_equal(unit_parse_bool("onn", &v, NULL), -EINVAL);
	strbuf_release(&err);
}

static void size_fmt(uint64_t v, const char *want)
{
	struct strbuf sb = STRBUF_INIT;

	unit_format_size(&sb, v);
	assert_string_equal(sb.buf, want);
	strbuf_release(&sb);
}

static void dur_fmt(uint64_t v, const char *want)
{
	struct strbuf sb = STRBUF_INIT;

	unit_format_duration(&sb, v);
	assert_string_equal(sb.buf, want);
	strbuf_release(&sb);
}

static void test_format(void **state)
{
	size_fmt(0, "0 B");
	size_fmt(512, "512 B");
	size_fmt(1023, "1023 B");
	size_fmt(32768, "32 KiB");
	size_fmt(3ULL << 29, "1.5 GiB");
	size_fmt(1ULL << 40, "1 TiB");
	size_fmt(100000, "97.7 KiB");
	size_fmt(UINT64_MAX, "16.0 EiB");

	dur_fmt(7200 * SEC, "2h 0m 0s");
	dur_fmt(30 * SEC, "30s");
	dur_fmt(500 * MS, "500ms");
	dur_fmt(1500 * MS, "1.5s");
	dur_fmt(90 * SEC, "1m 30s");
	dur_fmt(24 * 3600 * SEC, "24h 0m 0s");
	dur_fmt(750, "750ns");
	dur_fmt(12500, "12.5us");
	dur_fmt(0, "0ns");
}

/* What the parsers print is what they read back. */
static void test_format_round_trip(void **state)
{
	static const uint64_t durs[] = {1, 999, 1500, 2 * MS, 250 * MS, 45 * SEC, 3601 * SEC};
	struct strbuf sb = STRBUF_INIT;
	uint64_t v;

	for (size_t i = 0; i < DP_ARRAY_SIZE(durs); i++) {
		strbuf_reset(&sb);
		unit_format_duration(&sb, durs[i]);
		assert_int_equal(unit_parse_duration(sb.buf, &v, NULL), 0);
		assert_int_equal(v, durs[i]);
	}
	strbuf_release(&sb);
}

static void test_edit_distance(void **state)
{
	assert_int_equal(util_edit_distance("", ""), 0);
	assert_int_equal(util_edit_distance("abc", ""), 3);
	assert_int_equal(util_edit_distance("", "abc"), 3);
	assert_int_equal(util_edit_distance("kitten", "sitting"), 3);
	assert_int_equal(util_edit_distance("sitting", "kitten"), 3);
	assert_int_equal(util_edit_distance("read_shar", "read_share"), 1);
	assert_int_equal(util_edit_distance("thresold", "thresholds"), 2);
	assert_int_equal(util_edit_distance("quik", "quick"), 1);
	assert_int_equal(util_edit_distance("same", "same"), 0);
	/* long strings stay bounded and sane */
	char a[200], b[200];
	memset(a, 'x', sizeof(a) - 1);
	a[sizeof(a) - 1] = '\0';
	memcpy(b, a, sizeof(b));
	assert_int_equal(util_edit_distance(a, b), 0);
	b[10] = 'y';
	assert_int_equal(util_edit_distance(a, b), 1);
	b[150] = '\0';
	assert_true(util_edit_distance(a, b) >= 49);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_duration_good), cmocka_unit_test(test_duration_bad),
		cmocka_unit_test(test_size_good),     cmocka_unit_test(test_size_bad),
		cmocka_unit_test(test_percent),	      cmocka_unit_test(test_u64),
		cmocka_unit_test(test_double),	      cmocka_unit_test(test_bool),
		cmocka_unit_test(test_format),	      cmocka_unit_test(test_format_round_trip),
		cmocka_unit_test(test_edit_distance),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
