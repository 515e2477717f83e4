/* SPDX-License-Identifier: MIT */
/*
 * test_verify.c - verify_block(), the check verify applies to every page and
 * log block: each problem it must name, and the generation rules (a clean
 * journal is exact, an unclean one a lower bound, 0 accepts any generation
 * from 1 up). Reading files is covered by tests/integration/test_verify.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "diskproof/page.h"
#include "diskproof/verify.h"

#define PS 8192u
#define LBS 512u

/* -1 when fine, else the problem */
static int check(const void *buf, uint32_t size, bool log, uint64_t idx, uint64_t expected,
		 bool exact, void *scratch, struct verify_bad *b)
{
	return verify_block(buf, size, log, 3, idx, expected, exact, scratch, b) ? -1 : b->problem;
}

static void test_generations(void **state)
{
	unsigned char *p = malloc(PS);
	struct verify_bad b;

	page_stamp(p, PS, PAGE_KIND_DB, 3, 17, 5, 9, 42, true);
	/* clean journal: exact */
	assert_int_equal(check(p, PS, false, 17, 5, true, NULL, &b), -1);
	assert_int_equal(check(p, PS, false, 17, 6, true, NULL, &b), VERIFY_LOST_WRITE);
	assert_int_equal(b.expected_gen, 6);
	assert_int_equal(b.found_gen, 5);
	assert_int_equal(check(p, PS, false, 17, 4, true, NULL, &b), VERIFY_NEWER);
	/* lower bound: newer is fine, older is not */
	assert_int_equal(check(p, PS, false, 17, 4, false, NULL, &b), -1);
	assert_int_equal(check(p, PS, false, 17, 6, false, NULL, &b), VERIFY_LOST_WRITE);
	/* unknown: anything from 1 up */
	assert_int_equal(check(p, PS, false, 17, 0, true, NULL, &b), -1);
	page_stamp(p, PS, PAGE_KIND_DB, 3, 17, 0, 9, 42, true);
	assert_int_equal(check(p, PS, false, 17, 0, true, NULL, &b), VERIFY_UNWRITTEN);
	assert_int_equal(check(p, PS, false, 17, 4, false, NULL, &b), VERIFY_UNWRITTEN);
	free(p);
}

static void test_damage(void **state)
{
	unsigned char *p = malloc(PS), *scratch = malloc(PS);
	struct verify_bad b;
	uint32_t crc = 0;

	page_stamp(p, PS, PAGE_KIND_DB, 3, 17, 5, 9, 42, true);
	p[1000] ^= 1;
	assert_int_equal(check(p, PS, false, 17, 5, true, NULL, &b), VERIFY_CHECKSUM);
	/* re-checksummed: only the deep check sees it */
	memcpy(p + offsetof(struct page_header, crc), &crc, sizeof(crc));
	crc = page_crc32c(0, p, PS);
	memcpy(p + offsetof(struct page_header, crc), &crc, sizeof(crc));
	assert_int_equal(check(p, PS, false, 17, 5, true, NULL, &b), -1);
	assert_int_equal(check(p, PS, false, 17, 5, true, scratch, &b), VERIFY_PAYLOAD);
	/* a lost write stays a lost write under the deep check */
	page_stamp(p, PS, PAGE_KIND_DB, 3, 17, 5, 9, 42, true);
	assert_int_equal(check(p, PS, false, 17, 5, true, scratch, &b), -1);
	assert_int_equal(check(p, PS, false, 17, 6, true, scratch, &b), VERIFY_LOST_WRITE);
	/* another page's content names what it holds */
	assert_int_equal(check(p, PS, false, 18, 5, true, NULL, &b), VERIFY_MISDIRECTED);
	assert_int_equal(b.found_db, 3);
	assert_int_equal(b.found_page, 17);
	assert_false(b.found_log);
	memset(p, 0, PS);
	assert_int_equal(check(p, PS, false, 17, 5, true, NULL, &b), VERIFY_NOT_OURS);
	assert_int_equal(b.found_gen, 0);
	free(p);
	free(scratch);
}

static void test_log_blocks(void **state)
{
	unsigned char *l = malloc(LBS), *scratch = malloc(LBS);
	struct verify_bad b;

	page_stamp(l, LBS, PAGE_KIND_LOG, 3, 4, 1234, 9, 42, true);
	/* no expected generation for log blocks */
	assert_int_equal(check(l, LBS, true, 4, 0, true, scratch, &b), -1);
	assert_int_equal(check(l, LBS, true, 5, 0, true, NULL, &b), VERIFY_MISDIRECTED);
	assert_true(b.found_log);
	assert_true(b.log);
	/* a log block in a database, and a database page in a log */
	assert_int_equal(check(l, LBS, false, 4, 0, false, NULL, &b), VERIFY_MISDIRECTED);
	page_stamp(l, LBS, PAGE_KIND_DB, 3, 4, 7, 9, 42, true);
	assert_int_equal(check(l, LBS, true, 4, 0, false, NULL, &b), VERIFY_MISDIRECTED);
	page_stamp(l, LBS, PAGE_KIND_LOG, 3, 4, 1234, 9, 42, true);
	l[LBS - 1] ^= 0x80;
	assert_int_equal(check(l, LBS, true, 4, 0, false, NULL, &b), VERIFY_CHECKSUM);
	free(l);
	free(scratch);
}

static void test_names(void **state)
{
	for (int k = 0; k < VERIFY_PROBLEM_COUNT; k++) {
		assert_string_not_equal(verify_problem_name((enum verify_problem)k), "unknown");
		assert_string_not_equal(verify_problem_short((enum verify_problem)k), "unknown");
		assert_int_equal(verify_problem_is_integrity((enum verify_problem)k),
				 k != VERIFY_READ_ERROR && k != VERIFY_WRITE_FAILED);
	}
	assert_non_null(strstr(verify_problem_name(VERIFY_WRITE_FAILED), "write failed"));
	assert_non_null(strstr(verify_problem_name(VERIFY_CHECKSUM), "checksum mismatch"));
	assert_non_null(strstr(verify_problem_name(VERIFY_LOST_WRITE), "lost write"));
	assert_non_null(strstr(verify_problem_name(VERIFY_MISDIRECTED), "misdirected write"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_generations),
		cmocka_unit_test(test_damage),
		cmocka_unit_test(test_log_blocks),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
