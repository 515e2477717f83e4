/*
 * test_page.c - the on-disk page format: CRC32C against the standard check
 * value, stamp then verify, and each kind of bad page the run must tell
 * apart (corrupt, misdirected, lost write, unwritten, not ours).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "diskproof/page.h"

#define PS 32768u

static void test_crc32c_check_value(void **state)
{
	/* the CRC-32C check value of "123456789" (RFC 3720 appendix B.4) */
	assert_int_equal(page_crc32c(0, "123456789", 9), 0xe3069283u);
	/* continuation equals one pass */
	assert_int_equal(page_crc32c(page_crc32c(0, "1234", 4), "56789", 5), 0xe3069283u);
	assert_int_equal(page_crc32c(0, "", 0), 0);
}

/* bit by bit, the definition */
static uint32_t crc_ref(const unsigned char *p, size_t len)
{
	uint32_t crc = ~0u;

	while (len--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0x82f63b78u & (0u - (crc & 1u)));
	}
	return ~crc;
}

/* The 3-stream CRC equals the definition for every length around its block
 * edges, with any start, and its shift constants are x^(8 x 4096), x^(8 x 1024)
 * and x^(8 x 256) mod P. */
static void test_crc32c_interleaved(void **state)
{
	size_t max = 3 * 3 * 4096 + 100;
	unsigned char *b = malloc(max);
	uint64_t x = 12345;

	assert_int_equal(page_crc32c_xpow8(4096), 0x35d73a62u);
	assert_int_equal(page_crc32c_xpow8(1024), 0xe4172b16u); /* page.c's CRC_SHIFT_1K */
	assert_int_equal(page_crc32c_xpow8(256), 0x88e56f72u);	/* CRC_SHIFT_256 */
	assert_int_equal(page_crc32c_xpow8(0), 1u << 31);
	for (size_t i = 0; i < max; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		b[i] = (unsigned char)(x >> 56);
	}
	for (size_t len = 0; len <= max; len += (len < 64 || len % 4096 > 4080) ? 1 : 509) {
		assert_int_equal(page_crc32c(0, b, len), crc_ref(b, len));
		assert_int_equal(page_crc32c(0, b + 3, len > 3 ? len - 3 : 0),
				 crc_ref(b + 3, len > 3 ? len - 3 : 0));
	}
	/* every length up to 4 KiB + a bit (the 256 B and 1 KiB streams' edges
	 * at 768 and 3072), and the page sizes with their tails */
	for (size_t len = 0; len <= 4200; len++)
		assert_int_equal(page_crc32c(0, b + 1, len), crc_ref(b + 1, len));
	for (size_t ps = 4096; ps <= 32768; ps *= 2)
		for (size_t len = ps - 8; len <= ps + 8; len++)
			assert_int_equal(page_crc32c(0, b, len), crc_ref(b, len));
	/* continuation across a block edge */
	assert_int_equal(page_crc32c(page_crc32c(0, b, 5000), b + 5000, 20000), crc_ref(b, 25000));
	free(b);
}

static void test_stamp_verify(void **state)
{
	unsigned char *a = malloc(PS), *b = malloc(PS);
	uint64_t found;

	page_stamp(a, PS, PAGE_KIND_DB, 3, 17, 5, 9, 42, true);
	assert_int_equal(page_verify(a, PS, 3, 17, 5, true, &found), PAGE_OK);
	assert_int_equal(found, 5);
	/* same page, next generation: different payload, still valid */
	page_stamp(b, PS, PAGE_KIND_DB, 3, 17, 6, 9, 42, true);
	assert_memory_not_equal(a + PAGE_HEADER_SIZE, b + PAGE_HEADER_SIZE, 1024);
	/* another page, same generation: different payload */
	page_stamp(b, PS, PAGE_KIND_DB, 3, 18, 5, 9, 42, true);
	assert_memory_not_equal(a + PAGE_HEADER_SIZE, b + PAGE_HEADER_SIZE, 1024);
	free(a);
	free(b);
}

static void test_bad_pages(void **state)
{
	unsigned char *a = malloc(PS);
	uint64_t found;

	page_stamp(a, PS, PAGE_KIND_DB, 3, 17, 5, 9, 42, true);
	a[PS - 1] ^= 1;
	assert_int_equal(page_verify(a, PS, 3, 17, 5, true, &found), PAGE_BAD_CRC);
	/* without the CRC check a flipped payload byte goes unseen */
	assert_int_equal(page_verify(a, PS, 3, 17, 5, false, &found), PAGE_OK);
	page_stamp(a, PS, PAGE_KIND_DB, 3, 17, 5, 9, 42, true);
	assert_int_equal(page_verify(a, PS, 3, 18, 5, true, &found), PAGE_MISDIRECTED);
	assert_int_equal(page_verify(a, PS, 4, 17, 5, true, &found), PAGE_MISDIRECTED);
	assert_int_equal(page_verify(a, PS, 3, 17, 6, true, &found), PAGE_LOST_WRITE);
	assert_int_equal(found, 5);
	assert_int_equal(page_verify(a, PS, 3, 17, 4, true, &found), PAGE_NEWER);
	page_stamp(a, PS, PAGE_KIND_DB, 3, 17, 0, 9, 42, true);
	assert_int_equal(page_verify(a, PS, 3, 17, 2, true, &found), PAGE_UNWRITTEN);
	memset(a, 0, PS);
	assert_int_equal(page_verify(a, PS, 3, 17, 1, true, &found), PAGE_BAD_MAGIC);
	assert_string_equal(page_status_name(PAGE_LOST_WRITE),
			    "lost write (older generation than acknowledged)");
	free(a);
}

static void test_header_only(void **state)
{
	unsigned char *a = calloc(1, PS);
	uint64_t found;

	/* engines that move no data stamp the header only; the header check
	 * still tells generations apart */
	page_stamp(a, PS, PAGE_KIND_DB, 1, 2, 3, 0, 0, false);
	assert_int_equal(page_verify(a, PS, 1, 2, 3, false, &found), PAGE_OK);
	assert_int_equal(page_verify(a, PS, 1, 2, 4, false, &found), PAGE_LOST_WRITE);
	for (unsigned i = PAGE_HEADER_SIZE; i < PS; i++)
		assert_int_equal(a[i], 0);
	free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc32c_check_value),
		cmocka_unit_test(test_crc32c_interleaved),
		cmocka_unit_test(test_stamp_verify),
		cmocka_unit_test(test_bad_pages),
		cmocka_unit_test(test_header_only),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
