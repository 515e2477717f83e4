/* SPDX-License-Identifier: MIT */
/*
 * test_json.c - the one JSON writer (util/json.c): the pretty layout (one item
 * a line, two spaces a level), the one-line layout of _flat containers and of
 * a flat root, empty containers, each closed with its own bracket, number
 * formats (%.*f, %.*g, integers), null for NULL strings and for numbers that
 * are not finite, and string escaping (and strbuf_add_escaped, the one
 * escaping loop under it and the HTML, terminal and CSV escapers).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <string.h>
#include <cmocka.h>

#include "diskproof/json.h"

static void test_pretty(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct json j = JSON_INIT(&sb);

	(void)state;
	json_begin_object(&j, NULL);
	json_i64(&j, "id", -3);
	json_str(&j, "label", NULL);
	json_begin_array(&j, "list");
	json_u64(&j, NULL, UINT64_MAX);
	json_begin_object(&j, NULL);
	json_bool(&j, "ok", true);
	json_end(&j);
	json_end(&j);
	json_begin_array(&j, "empty");
	json_end(&j);
	json_begin_object(&j, "none");
	json_end(&j);
	json_end(&j);
	assert_string_equal(sb.buf, "{\n"
				    "  \"id\": -3,\n"
				    "  \"label\": null,\n"
				    "  \"list\": [\n"
				    "    18446744073709551615,\n"
				    "    {\n"
				    "      \"ok\": true\n"
				    "    }\n"
				    "  ],\n"
				    "  \"empty\": [],\n"
				    "  \"none\": {}\n"
				    "}");
	assert_int_equal(j.depth, 0);
	strbuf_release(&sb);
}

/* Flat leaves inside a pretty document, as the report writes its classes. */
static void test_flat_leaves(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct json j = JSON_INIT(&sb);

	(void)state;
	json_begin_object(&j, NULL);
	json_begin_array(&j, "v");
	json_begin_object_flat(&j, NULL);
	json_str(&j, "name", "db1");
	json_begin_array_flat(&j, "xs");
	json_u64(&j, NULL, 1);
	json_u64(&j, NULL, 2);
	json_end(&j);
	json_fixed(&j, "ms", 2.5, 3);
	json_end(&j);
	json_begin_object_flat(&j, NULL);
	json_end(&j);
	json_end(&j);
	json_bool(&j, "after", false);
	json_end(&j);
	assert_string_equal(sb.buf, "{\n"
				    "  \"v\": [\n"
				    "    {\"name\": \"db1\", \"xs\": [1, 2], \"ms\": 2.500},\n"
				    "    {}\n"
				    "  ],\n"
				    "  \"after\": false\n"
				    "}");
	strbuf_release(&sb);
}

/* A flat root: the whole document on one line (plan --format json). */
static void test_flat_root(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct json j = JSON_INIT(&sb);

	(void)state;
	json_begin_object_flat(&j, NULL);
	json_fixed(&j, "duration_s", 7200, 3);
	json_sig(&j, "iops_per_mailbox", 0.06, 17);
	json_sig(&j, "headroom_pct", 20, 17);
	json_begin_array(&j, "volumes");
	json_begin_object(&j, NULL);
	json_begin_array(&j, "databases");
	json_end(&j);
	json_end(&j);
	json_begin_object(&j, NULL);
	json_null(&j, "free");
	json_end(&j);
	json_end(&j);
	json_end(&j);
	assert_string_equal(sb.buf, "{\"duration_s\": 7200.000, \"iops_per_mailbox\": "
				    "0.059999999999999998, \"headroom_pct\": 20, \"volumes\": "
				    "[{\"databases\": []}, {\"free\": null}]}");
	strbuf_release(&sb);
}

static void test_numbers(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct json j = JSON_INIT(&sb);

	(void)state;
	json_begin_array_flat(&j, NULL);
	json_fixed(&j, NULL, NAN, 3);
	json_fixed(&j, NULL, INFINITY, 0);
	json_sig(&j, NULL, -INFINITY, 6);
	json_fixed(&j, NULL, 1000, 0);
	json_fixed(&j, NULL, 0.0005, 3);
	json_sig(&j, NULL, 12345678, 6);
	json_sig(&j, NULL, 0.05, 6);
	json_i64(&j, NULL, INT64_MIN);
	json_end(&j);
	assert_string_equal(
		sb.buf, "[null, null, null, 1000, 0.001, 1.23457e+07, 0.05, -9223372036854775808]");
	strbuf_release(&sb);
}

static void test_escape(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct json j = JSON_INIT(&sb);

	(void)state;
	json_escape(&sb, "a\"b\\c\nd\re\tf\x01g\x1f\x7f/\xc3\xbc");
	assert_string_equal(sb.buf, "\"a\\\"b\\\\c\\nd\\re\\tf\\u0001g\\u001f\x7f/\xc3\xbc\"");
	strbuf_reset(&sb);
	json_escape(&sb, NULL);
	assert_string_equal(sb.buf, "\"\"");
	strbuf_reset(&sb);
	/* not UTF-8 (Latin-1, a cut sequence, overlong, a surrogate, past
	 * U+10FFFF): U+FFFD per bad byte, so that the document still parses;
	 * well-formed sequences of 2, 3 and 4 bytes are kept */
	json_escape(&sb, "h\xe9\xc3|\xc0\xaf|\xed\xa0\x80|\xf4\x90\x80\x80|"
			 "\xe2\x82\xac\xf0\x9f\x98\x80\xff");
	assert_string_equal(sb.buf,
			    "\"h\\ufffd\\ufffd|\\ufffd\\ufffd|\\ufffd\\ufffd\\ufffd|"
			    "\\ufffd\\ufffd\\ufffd\\ufffd|\xe2\x82\xac\xf0\x9f\x98\x80\\ufffd\"");
	strbuf_reset(&sb);
	/* keys are escaped too */
	json_begin_object_flat(&j, NULL);
	json_str(&j, "k\"", "v\n");
	json_end(&j);
	assert_string_equal(sb.buf, "{\"k\\\"\": \"v\\n\"}");
	strbuf_release(&sb);
}

/* The one escaping loop under every escaper: named bytes, hex for the
 * control characters (and DEL when asked), the rest as it is. */
static void test_escaped_table(void **state)
{
	static const char *const named[0x80] = {['a'] = "<A>", ['\n'] = "NL"};
	const struct strbuf_escapes hex = {.named = named, .hex_prefix = "%", .del = true};
	const struct strbuf_escapes plain = {.named = named};
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	strbuf_add_escaped(&sb, "ab\n\x01\x7f\xc3\xbc", &hex);
	assert_string_equal(sb.buf, "<A>bNL%01%7f\xc3\xbc");
	strbuf_reset(&sb);
	strbuf_add_escaped(&sb, "ab\n\x01\x7f", &plain);
	assert_string_equal(sb.buf, "<A>bNL\x01\x7f");
	strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pretty),	  cmocka_unit_test(test_flat_leaves),
		cmocka_unit_test(test_flat_root), cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_escape),	  cmocka_unit_test(test_escaped_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
