/* SPDX-License-Identifier: MIT */
/*
 * test_page_log.c - page_log_verify(), the one check of a log block read
 * back: a block as the log writer seals it (record table included) passes;
 * a flipped byte anywhere, a torn block (new first sectors, old rest), a
 * block of another place in the log (another segment or lap), of another
 * database or a database page, a wrong block size, sequence 0 and foreign
 * bytes each fail with their status; the header-only check ignores the
 * payload; the buffer is never written.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "diskproof/page.h"

#define BS 4096u
#define DB 3u
#define SEED 0x5eedULL

/* A log block as the log writer makes it: stamped, then a record table
 * naming two pages, then resealed. */
static void make_block(unsigned char *b, uint64_t block, uint64_t seq)
{
	struct log_records lr = {LOG_RECORDS_MAGIC, 2};
	uint64_t pages[2] = {17, 4242};

	page_stamp(b, BS, PAGE_KIND_LOG, DB, block, seq, 9, SEED, true);
	memcpy(b + PAGE_HEADER_SIZE, &lr, sizeof(lr));
	memcpy(b + PAGE_HEADER_SIZE + sizeof(lr), pages, sizeof(pages));
	page_reseal(b, BS);
}

static void test_good_block(void **state)
{
	unsigned char *b = malloc(BS), *copy = malloc(BS);

	(void)state;
	make_block(b, 100, 7);
	memcpy(copy, b, BS);
	assert_int_equal(page_log_verify(b, BS, DB, 100, true), PAGE_OK);
	assert_int_equal(page_log_verify(b, BS, DB, 100, false), PAGE_OK);
	assert_memory_equal(b, copy, BS); /* never written */
	free(b);
	free(copy);
}

static void test_flipped_byte(void **state)
{
	static const size_t at[] = {PAGE_HEADER_SIZE + 2,  /* record table */
				    PAGE_HEADER_SIZE + 12, /* a page it names */
				    BS / 2, BS - 1, offsetof(struct page_header, run_id)};
	unsigned char *b = malloc(BS);

	(void)state;
	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		make_block(b, 100, 7);
		b[at[i]] ^= 0x10;
		assert_int_equal(page_log_verify(b, BS, DB, 100, true), PAGE_BAD_CRC);
		/* the header-only check does not read the payload */
		if (at[i] >= PAGE_HEADER_SIZE)
			assert_int_equal(page_log_verify(b, BS, DB, 100, false), PAGE_OK);
	}
	free(b);
}

static void test_torn_block(void **state)
{
	unsigned char *b = malloc(BS), *old = malloc(BS);

	(void)state;
	/* the same block of the next lap: the first 512-byte sector reached
	 * the disk, the rest still holds the lap before */
	make_block(old, 100, 7);
	make_block(b, 100, 7 + 64);
	memcpy(b + 512, old + 512, BS - 512);
	assert_int_equal(page_log_verify(b, BS, DB, 100, true), PAGE_BAD_CRC);
	free(b);
	free(old);
}

static void test_wrong_place(void **state)
{
	unsigned char *b = malloc(BS);

	(void)state;
	/* a block of another segment (or an earlier lap's block elsewhere) */
	make_block(b, 100 + 64, 7);
	assert_int_equal(page_log_verify(b, BS, DB, 100, true), PAGE_MISDIRECTED);
	assert_int_equal(page_log_verify(b, BS, DB, 100, false), PAGE_MISDIRECTED);
	/* another database's log */
	make_block(b, 100, 7);
	assert_int_equal(page_log_verify(b, BS, DB + 1, 100, true), PAGE_MISDIRECTED);
	/* a database page where a log block should be */
	page_stamp(b, BS, PAGE_KIND_DB, DB, 100, 7, 9, SEED, true);
	assert_int_equal(page_log_verify(b, BS, DB, 100, true), PAGE_MISDIRECTED);
	free(b);
}

static void test_size_sequence_magic(void **state)
{
	unsigned char *b = malloc(2 * BS);

	(void)state;
	/* read with another block size than it was written with */
	page_stamp(b, 2 * BS, PAGE_KIND_LOG, DB, 100, 7, 9, SEED, true);
	assert_int_equal(page_log_verify(b, BS, DB, 100, true), PAGE_BAD_CRC);
	assert_int_equal(page_log_verify(b, BS, DB, 100, false), PAGE_BAD_CRC);
	/* sequence 0: never written by a log writer */
	page_stamp(b, BS, PAGE_KIND_LOG, DB, 100, 0, 9, SEED, true);
	assert_int_equal(page_log_verify(b, BS, DB, 100, true), PAGE_UNWRITTEN);
	/* zeros, and a format version from elsewhere */
	memset(b, 0, BS);
	assert_int_equal(page_log_verify(b, BS, DB, 100, true), PAGE_BAD_MAGIC);
	make_block(b, 100, 7);
	b[offsetof(struct page_header, version)] = 2;
	assert_int_equal(page_log_verify(b, BS, DB, 100, false), PAGE_BAD_MAGIC);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_block),	    cmocka_unit_test(test_flipped_byte),
		cmocka_unit_test(test_torn_block),	    cmocka_unit_test(test_wrong_place),
		cmocka_unit_test(test_size_sequence_magic),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
