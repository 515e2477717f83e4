/* SPDX-License-Identifier: MIT */
/*
 * test_start_at.c - run --start-at's TIME (time_parse_start_at): RFC 3339
 * instants in UTC, to the nanosecond, with Z, z, +00:00 or -00:00; +DURATION
 * relative leads; and every way a TIME can be wrong (no zone, another zone,
 * no such date, a leap second, garbage, an empty or zero lead), each with
 * its reason. Then the option as the parser takes it; what a start file
 * (run --start-file) may hold, and the options of the readiness start.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "diskproof/run.h"
#include "diskproof/util.h"

#include "../../src/cli/cli.h"

#define SEC NSEC_PER_SEC

/* 2026-12-03T16:00:00Z in seconds since the epoch (date -u -d ... +%s). */
#define T0 1796313600ULL

static void good_abs(const char *s, uint64_t want)
{
	struct strbuf err = STRBUF_INIT;
	uint64_t abs_ns = 1, rel_ns = 1;

	if (time_parse_start_at(s, &abs_ns, &rel_ns, &err))
		fail_msg("\"%s\" refused: %s", s, err.buf);
	if (abs_ns != want)
		fail_msg("\"%s\": %llu, want %llu", s, (unsigned long long)abs_ns,
			 (unsigned long long)want);
	assert_int_equal(rel_ns, 0);
	strbuf_release(&err);
}

static void bad(const char *s, const char *reason)
{
	struct strbuf err = STRBUF_INIT;
	uint64_t abs_ns, rel_ns;

	assert_int_equal(time_parse_start_at(s, &abs_ns, &rel_ns, &err), -EINVAL);
	if (!strstr(err.buf, reason))
		fail_msg("\"%s\": reason \"%s\", want it to say \"%s\"", s, err.buf, reason);
	strbuf_release(&err);
}

static void test_absolute(void **state)
{
	(void)state;
	good_abs("2026-12-03T16:00:00Z", T0 * SEC);
	good_abs("2026-12-03t16:00:00z", T0 * SEC);
	good_abs("2026-12-03T16:00:00+00:00", T0 * SEC);
	good_abs("2026-12-03T16:00:00-00:00", T0 * SEC);
	good_abs("2026-12-03T16:00:00.5Z", T0 * SEC + SEC / 2);
	good_abs("2026-12-03T16:00:00.000001Z", T0 * SEC + 1000);
	good_abs("2026-12-03T16:00:00.123456789Z", T0 * SEC + 123456789);
	/* past the nanosecond: the further digits are cut, not rounded */
	good_abs("2026-12-03T16:00:00.1234567899Z", T0 * SEC + 123456789);
	good_abs("2026-12-03T16:00:01.25+00:00", (T0 + 1) * SEC + SEC / 4);
	good_abs("1970-01-01T00:00:00Z", 0);
	good_abs("2028-02-29T00:00:00Z", 1835395200ULL * SEC);	/* a leap year's day */
	good_abs("2554-07-21T23:34:32Z", 18446744072ULL * SEC); /* the last whole second */
}

static void test_relative(void **state)
{
	struct strbuf err = STRBUF_INIT;
	uint64_t abs_ns = 1, rel_ns = 0;

	(void)state;
	assert_int_equal(time_parse_start_at("+30s", &abs_ns, &rel_ns, &err), 0);
	assert_int_equal(rel_ns, 30 * SEC);
	assert_int_equal(abs_ns, 0);
	assert_int_equal(time_parse_start_at("+1m30s", &abs_ns, &rel_ns, &err), 0);
	assert_int_equal(rel_ns, 90 * SEC);
	assert_int_equal(time_parse_start_at("+200ms", &abs_ns, &rel_ns, &err), 0);
	assert_int_equal(rel_ns, SEC / 5);
	strbuf_release(&err);
}

static void test_bad(void **state)
{
	(void)state;
	bad("", "is not an RFC 3339 UTC time");
	bad("now", "is not an RFC 3339 UTC time");
	bad("16:00:00Z", "is not an RFC 3339 UTC time");
	bad("2026-12-03 16:00:00Z", "is not an RFC 3339 UTC time");
	bad("2026-12-03T16:00Z", "is not an RFC 3339 UTC time");
	bad("2026-12-03T16:00:00", "needs its zone");
	bad("2026-12-03T16:00:00+01:00", "must be in UTC");
	bad("2026-12-03T16:00:00-05:00", "must be in UTC");
	bad("2026-12-03T16:00:00+0000", "must be in UTC");
	bad("2026-12-03T16:00:00.Z", "needs digits after the '.'");
	bad("2026-12-03T16:00:00Zjunk", "is not an RFC 3339 UTC time");
	bad("2026-12-03T16:00:00Z ", "is not an RFC 3339 UTC time");
	bad("2026-13-03T16:00:00Z", "out of range");
	bad("2026-12-03T24:00:00Z", "out of range");
	bad("2026-12-03T16:60:00Z", "out of range");
	bad("2016-12-31T23:59:60Z", "out of range"); /* a leap second */
	bad("2026-02-30T16:00:00Z", "no such date");
	bad("2027-02-29T16:00:00Z", "no such date");
	bad("1969-12-31T23:59:59Z", "out of range");
	/* past what uint64_t ns hold: refused, not wrapped round into 2415 */
	bad("3000-01-01T00:00:00Z", "out of range");
	bad("2554-07-21T23:34:33Z", "out of range");
	bad("+", "+DURATION");
	bad("+0s", "must be more than 0");
	bad("+-5s", "+DURATION");
	bad("+5 parsecs", "+DURATION");
	bad("-30s", "is not an RFC 3339 UTC time");
}

/* The option: a bad TIME is a usage error naming the option, the time
 * kept exactly as typed for the run. */
static void test_option(void **state)
{
	struct cli_opts o;
	char *ok[] = {"--start-at", "2026-12-03T16:00:00.25Z", "--max-clock-error", "1us", "--host",
		      "node-7"};
	char *rel[] = {"--start-at=+3s"};
	char *badv[] = {"--start-at", "tomorrow"};
	char *badhost[] = {"--host="};
	char *badce[] = {"--max-clock-error", "fast"};

	(void)state;
	assert_int_equal(cli_opts_parse(6, ok, CMD_RUN, &o), 0);
	assert_true(o.has_start_at);
	assert_int_equal(o.start_at_abs_ns, T0 * SEC + SEC / 4);
	assert_int_equal(o.start_at_rel_ns, 0);
	assert_true(o.has_max_clock_error);
	assert_int_equal(o.max_clock_error_ns, 1000);
	assert_string_equal(o.host, "node-7");
	assert_int_equal(cli_opts_parse(1, rel, CMD_RUN, &o), 0);
	assert_int_equal(o.start_at_rel_ns, 3 * SEC);
	assert_int_equal(o.start_at_abs_ns, 0);
	assert_int_equal(cli_opts_parse(2, badv, CMD_RUN, &o), DP_EXIT_USAGE);
	assert_false(o.has_start_at);
	assert_int_equal(cli_opts_parse(1, badhost, CMD_RUN, &o), DP_EXIT_USAGE);
	assert_int_equal(cli_opts_parse(2, badce, CMD_RUN, &o), DP_EXIT_USAGE);
	/* run only: another command refuses it */
	assert_int_equal(cli_opts_parse(2, ok, CMD_REPORT, &o), DP_EXIT_USAGE);
}

/* What a start file (--start-file) may hold: a TIME as --start-at takes
 * it (+D from the time the file was read), "cancel", nothing yet; white
 * space around it ignored; anything else refused with its reason. */
static void test_start_text(void **state)
{
	struct strbuf why = STRBUF_INIT;
	uint64_t now = T0 * SEC, at = 1;

	(void)state;
	assert_int_equal(run_start_text_parse("2026-12-03T16:00:05Z\n", now, &at, &why), 0);
	assert_int_equal(at, (T0 + 5) * SEC);
	assert_int_equal(run_start_text_parse("  2026-12-03T16:00:05.25Z \r\n", now, &at, &why), 0);
	assert_int_equal(at, (T0 + 5) * SEC + SEC / 4);
	assert_int_equal(run_start_text_parse("+5s", now, &at, &why), 0);
	assert_int_equal(at, now + 5 * SEC);
	assert_int_equal(run_start_text_parse("cancel\n", now, &at, &why), 1);
	at = 7;
	assert_int_equal(run_start_text_parse("", now, &at, &why), -EAGAIN);
	assert_int_equal(run_start_text_parse(" \n\t", now, &at, &why), -EAGAIN);
	assert_int_equal(at, 7);
	/* a write caught halfway, or garbage: refused, with the reason */
	assert_int_equal(run_start_text_parse("2026-12-0", now, &at, &why), -EINVAL);
	assert_non_null(strstr(why.buf, "is not an RFC 3339 UTC time"));
	strbuf_reset(&why);
	assert_int_equal(
		run_start_text_parse("2026-12-03T16:00:05Z\n2026-12-03T16:00:06Z", now, &at, &why),
		-EINVAL);
	strbuf_reset(&why);
	assert_int_equal(run_start_text_parse("Cancel", now, &at, &why), -EINVAL);
	strbuf_reset(&why);
	/* a wrong year is refused, not waited for */
	assert_int_equal(run_start_text_parse("2027-12-03T16:00:05Z", now, &at, &why), -EINVAL);
	assert_non_null(strstr(why.buf, "more than 7 days ahead"));
	strbuf_reset(&why);
	assert_int_equal(run_start_text_parse("+8d", now, &at, &why), -EINVAL);
	strbuf_release(&why);
}

/* --ready-file, --start-file and --start-timeout as the parser takes them. */
static void test_start_file_options(void **state)
{
	struct cli_opts o;
	char *ok[] = {"--ready-file", "/tmp/r", "--start-file=/tmp/s", "--start-timeout", "90s"};
	char *empty[] = {"--start-file="};
	char *zero[] = {"--start-timeout", "0s"};
	char *bad[] = {"--start-timeout", "soon"};

	(void)state;
	assert_int_equal(cli_opts_parse(5, ok, CMD_RUN, &o), 0);
	assert_string_equal(o.ready_file, "/tmp/r");
	assert_string_equal(o.start_file, "/tmp/s");
	assert_true(o.has_start_timeout);
	assert_int_equal(o.start_timeout_ns, 90 * SEC);
	assert_int_equal(cli_opts_parse(1, empty, CMD_RUN, &o), DP_EXIT_USAGE);
	assert_int_equal(cli_opts_parse(2, zero, CMD_RUN, &o), DP_EXIT_USAGE);
	assert_int_equal(cli_opts_parse(2, bad, CMD_RUN, &o), DP_EXIT_USAGE);
	/* run only */
	assert_int_equal(cli_opts_parse(2, ok, CMD_INIT, &o), DP_EXIT_USAGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_absolute),   cmocka_unit_test(test_relative),
		cmocka_unit_test(test_bad),	   cmocka_unit_test(test_option),
		cmocka_unit_test(test_start_text), cmocka_unit_test(test_start_file_options),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
