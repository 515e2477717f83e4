/* SPDX-License-Identifier: MIT */
/*
 * fuzz_units.c - libFuzzer target for the unit parsers and formatters of
 * util.h. The input, cut at its first NUL, goes to every unit_parse_*();
 * whatever parses is formatted again and, where the format is exact, must
 * parse back to the same value:
 *   - unit_format_size() is exact when it prints a whole number of its unit
 *     (no '.'); otherwise it rounds to a tenth and only must not crash;
 *   - unit_format_duration() truncates to three decimals of its unit, so it
 *     parses back to the value truncated to that precision (exact below 1 ms);
 *   - profile_format_duration_exact() is always exact.
 * The first 8 bytes of the input, read as a number, also go through the
 * formatters, so that every magnitude is tried, not only what parsed.
 * The error contract is checked too: 0 with err untouched, or -EINVAL/-ERANGE
 * with a reason in err.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diskproof/util.h"
#include "profile_internal.h"

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);   \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

#define EIB (1ULL << 60)

static void check_result(int ret, const struct strbuf *err)
{
	CHECK(ret == 0 || ret == -EINVAL || ret == -ERANGE);
	CHECK(ret ? err->len > 0 : err->len == 0);
}

/*
 * Formats bytes and parses it back. The parser knows no EiB (the formatter
 * does): from 1 EiB up only the formatting is exercised.
 */
static void size_round_trip(uint64_t bytes)
{
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
	uint64_t back;
	int ret;

	unit_format_size(&sb, bytes);
	CHECK(sb.len > 0);
	if (!strchr(sb.buf, '.') && bytes < EIB) {
		ret = unit_parse_size(sb.buf, &back, &err);
		if (ret)
			fprintf(stderr, "size %llu formatted as \"%s\": %s\n",
				(unsigned long long)bytes, sb.buf, err.buf);
		CHECK(ret == 0 && back == bytes);
	}
	strbuf_release(&sb);
	strbuf_release(&err);
}

/* The precision unit_format_duration() keeps for ns (see add_scaled()). */
static uint64_t duration_precision(uint64_t ns)
{
	if (ns < NSEC_PER_MSEC)
		return 1;
	if (ns < NSEC_PER_SEC)
		return NSEC_PER_USEC;
	return NSEC_PER_MSEC;
}

static void duration_round_trip(uint64_t ns)
{
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
	uint64_t back, q = duration_precision(ns);
	int ret;

	unit_format_duration(&sb, ns);
	CHECK(sb.len > 0);
	ret = unit_parse_duration(sb.buf, &back, &err);
	if (ret || back != ns - ns % q)
		fprintf(stderr, "duration %llu formatted as \"%s\": ret %d, back %llu %s\n",
			(unsigned long long)ns, sb.buf, ret, (unsigned long long)back, err.buf);
	CHECK(ret == 0 && back == ns - ns % q);

	strbuf_reset(&sb);
	strbuf_reset(&err);
	profile_format_duration_exact(&sb, ns);
	ret = unit_parse_duration(sb.buf, &back, &err);
	CHECK(ret == 0 && back == ns);
	strbuf_release(&sb);
	strbuf_release(&err);
}

static void u64_round_trip(uint64_t v)
{
	struct strbuf err = STRBUF_INIT;
	char buf[32];
	uint64_t back;

	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	CHECK(unit_parse_u64(buf, &back, &err) == 0 && back == v);
	strbuf_release(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf err = STRBUF_INIT, sb = STRBUF_INIT;
	uint64_t u, raw;
	double d;
	bool b;
	char *s;
	int ret;

	s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';

	ret = unit_parse_duration(s, &u, &err);
	check_result(ret, &err);
	if (!ret)
		duration_round_trip(u);
	strbuf_reset(&err);

	ret = unit_parse_size(s, &u, &err);
	check_result(ret, &err);
	if (!ret)
		size_round_trip(u);
	strbuf_reset(&err);

	ret = unit_parse_percent(s, &d, &err);
	check_result(ret, &err);
	if (!ret)
		CHECK(d >= 0.0 && d <= 100.0);
	strbuf_reset(&err);

	ret = unit_parse_u64(s, &u, &err);
	check_result(ret, &err);
	if (!ret)
		u64_round_trip(u);
	strbuf_reset(&err);

	ret = unit_parse_double(s, &d, &err);
	check_result(ret, &err);
	if (!ret)
		CHECK(isfinite(d));
	strbuf_reset(&err);

	ret = unit_parse_bool(s, &b, &err);
	CHECK(ret == 0 || ret == -EINVAL);
	CHECK(ret ? err.len > 0 : err.len == 0);

	/* The same parsers must cope without an err buffer. */
	(void)unit_parse_duration(s, &u, NULL);
	(void)unit_parse_size(s, &u, NULL);
	(void)unit_parse_percent(s, &d, NULL);
	(void)unit_parse_u64(s, &u, NULL);
	(void)unit_parse_double(s, &d, NULL);
	(void)unit_parse_bool(s, &b, NULL);

	if (size >= sizeof(raw)) {
		memcpy(&raw, data, sizeof(raw));
		size_round_trip(raw);
		duration_round_trip(raw);
		time_format_iso8601(&sb, raw);
		CHECK(sb.len > 0);
	}
	strbuf_release(&sb);
	strbuf_release(&err);
	free(s);
	return 0;
}
