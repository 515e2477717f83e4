/* SPDX-License-Identifier: MIT */
/*
 * test_text_width.c - the width text output fits (issue 32): cli_width_pick
 * (a terminal's width first, then $COLUMNS when it is a plain number within
 * bounds, junk ignored, then 120), strbuf_wrap_lines (a long line broken at
 * a space, never inside a number, colour escapes taking no column), and the
 * text report's tables (report_table_fit: the least needed columns go
 * first, none with wide).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "diskproof/util.h"

#include "../../src/cli/cli.h"
#include "../../src/report/report_internal.h"

static void test_width_pick(void **state)
{
	(void)state;
	assert_int_equal(cli_width_pick(0, NULL), 120);
	assert_int_equal(cli_width_pick(0, "80"), 80);
	assert_int_equal(cli_width_pick(0, "1000"), 1000);
	assert_int_equal(cli_width_pick(0, "40"), 40);
	/* junk: not a width */
	assert_int_equal(cli_width_pick(0, ""), 120);
	assert_int_equal(cli_width_pick(0, "80x"), 120);
	assert_int_equal(cli_width_pick(0, " 80"), 120);
	assert_int_equal(cli_width_pick(0, "-80"), 120);
	assert_int_equal(cli_width_pick(0, "39"), 120);
	assert_int_equal(cli_width_pick(0, "1001"), 120);
	assert_int_equal(cli_width_pick(0, "99999999999999999999999"), 120);
	/* a terminal's own width wins */
	assert_int_equal(cli_width_pick(100, "80"), 100);
	assert_int_equal(cli_width_pick(60, NULL), 60);
}

static void wrap_is(const char *in, size_t width, const char *want)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(&sb, in);
	strbuf_wrap_lines(&sb, 0, width);
	if (strcmp(sb.buf, want))
		fail_msg("wrap at %zu:\n[%s]\nwanted\n[%s]", width, sb.buf, want);
	strbuf_release(&sb);
}

static void test_wrap_lines(void **state)
{
	(void)state;
	wrap_is("short\n", 20, "short\n");
	wrap_is("aaa bbb ccc ddd\n", 8, "aaa bbb\n  ccc\n  ddd\n");
	wrap_is("aaa bbb ccc ddd\n", 9, "aaa bbb\n  ccc ddd\n");
	/* the indent is kept, the continuation two further in */
	wrap_is("  aaa bbb ccc\n", 9, "  aaa bbb\n    ccc\n");
	/* a number is never cut: a word longer than the width stays whole */
	wrap_is("x 123456789012 y\n", 6, "x\n  123456789012\n  y\n");
	/* colour escapes take no column */
	wrap_is("\033[31mFAIL\033[0m ab\n", 7, "\033[31mFAIL\033[0m ab\n");
	/* every line on its own; the last without a newline too */
	wrap_is("aa bb\ncc dd", 3, "aa\n  bb\ncc\n  dd");
	/* width 0: as it was */
	wrap_is("aaa bbb ccc\n", 0, "aaa bbb ccc\n");
	assert_int_equal(strbuf_vis_width("\033[1m\033[31mFAIL\033[0m", 17), 4);
}

static const struct report_col cols[] = {
	{NULL, "name", 6, true, 0, 0}, {NULL, "a", 9, false, 1, 2},	 {"g", "b", 9, false, 1, 0},
	{"g", "c", 9, false, 1, 3},    {NULL, "verdict", 7, true, 2, 0},
};

static void test_table_fit(void **state)
{
	struct report_table t;
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	report_table_init(&t, cols, DP_ARRAY_SIZE(cols));
	/* 6 + 10 + 10 + 10 + 9 = 45 */
	assert_int_equal(report_table_fit(&t, 45, false), 0);
	report_table_release(&t);
	report_table_init(&t, cols, DP_ARRAY_SIZE(cols));
	/* c (drop 3) goes first, then a (drop 2); name, b, verdict stay */
	assert_int_equal(report_table_fit(&t, 44, false), 1);
	assert_false(t.show[3]);
	assert_true(t.show[1]);
	assert_int_equal(report_table_fit(&t, 20, false), 2);
	assert_false(t.show[1]);
	assert_true(t.show[0] && t.show[2] && t.show[4]);
	report_table_head(&sb, &t);
	strbuf_addstr(&t.cell[0], "v1");
	strbuf_addstr(&t.cell[1], "1.0");
	strbuf_addstr(&t.cell[2], "2.0");
	strbuf_addstr(&t.cell[3], "3.0");
	strbuf_addstr(&t.cell[4], "PASS");
	report_table_row(&sb, &t);
	assert_string_equal(sb.buf, "       g\n"
				    "name           b  verdict\n"
				    "v1           2.0  PASS\n");
	strbuf_reset(&sb);
	assert_true(report_table_dropped(&sb, &t));
	assert_string_equal(sb.buf, "a, g c");
	report_table_release(&t);
	/* wide: every column, whatever the width */
	report_table_init(&t, cols, DP_ARRAY_SIZE(cols));
	assert_int_equal(report_table_fit(&t, 20, true), 0);
	report_table_release(&t);
	strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_width_pick),
		cmocka_unit_test(test_wrap_lines),
		cmocka_unit_test(test_table_fit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
