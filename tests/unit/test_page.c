/* SPDX-License-Identifier: MIT */
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

/* page_crc32c (whichever path it takes here; test_crc32c_paths tries each)
 * equals the definition for every length around the 3-stream block edges,
 * and the 3-stream path's shift constants are x^(8 x 4096), x^(8 x 1024)
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

/*
 * CRC paths. page.c computes CRC32C bitwise, with the crc32 instruction, or
 * by folding with carry-less multiplies (PCLMULQDQ on 128 bits, VPCLMULQDQ
 * on 512), each tried here through a test-only entry point (not in page.h):
 * page_crc32c(crc, data, len) with path which (0 bitwise, 1 crc32
 * instruction, 2 folding 4 x 128 bits, 3 folding 4 x 512 bits; folding
 * takes every length from 64 or 256 bytes on, below page_crc32c's own
 * thresholds too) into *out. Returns 0 when this CPU lacks the path.
 */
extern int page_crc32c_impl_for_test(int which, uint32_t crc, const void *data, size_t len,
				     uint32_t *out);

#define CRC_PATHS 4
#define CRC_ENTRY CRC_PATHS /* page_crc32c() itself */

static int crc_path(int which, uint32_t crc, const void *p, size_t len, uint32_t *out)
{
	if (which == CRC_ENTRY) {
		*out = page_crc32c(crc, p, len);
		return 1;
	}
	return page_crc32c_impl_for_test(which, crc, p, len, out);
}

/* the register, bit by bit, from reg: the definition */
static uint32_t crc_step(uint32_t reg, unsigned char byte)
{
	reg ^= byte;
	for (int k = 0; k < 8; k++)
		reg = (reg >> 1) ^ (0x82f63b78u & (0u - (reg & 1u)));
	return reg;
}

/* x^n mod P, reflected (bit 31 = x^0), by n multiplications by x */
static uint32_t xpow_slow(unsigned n)
{
	uint32_t v = 1u << 31;

	while (n--)
		v = (v >> 1) ^ (0x82f63b78u & (0u - (v & 1u)));
	return v;
}

/* The folding constants of page.c, {x^(8d + 63), x^(8d - 1)} mod P for a
 * fold by d bytes, from the definition. */
static void test_crc32c_fold_constants(void **state)
{
	static const struct {
		unsigned d;
		uint32_t k1, k2;
	} k[] = {
		{16, 0x3743f7bdu, 0x3171d430u},	 {32, 0x33ccbbbcu, 0xa2158b34u},
		{48, 0xa46ef4aau, 0x6051243fu},	 {64, 0x1c19243bu, 0x75bba45bu},
		{128, 0x6577b245u, 0x7417153fu}, {192, 0x7ccbbbf2u, 0x31c94608u},
		{256, 0xe9a5d8beu, 0x1426a815u},
	};

	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		assert_int_equal(xpow_slow(8 * k[i].d + 63), k[i].k1);
		assert_int_equal(xpow_slow(8 * k[i].d - 1), k[i].k2);
		/* and page.c's own x^(8n) agrees with the definition */
		assert_int_equal(page_crc32c_xpow8(k[i].d), xpow_slow(8 * k[i].d));
	}
}

/*
 * Every path (and page_crc32c itself) against the definition: the check
 * values, then every length 0..4200 (all the folding paths' edges: 64, 256,
 * each count of 64- and 16-byte blocks and of tail bytes after the 4-block
 * loops) at each offset 0..15 into the buffer with a random starting
 * register, then the page sizes 512..65536 and 17 bytes either side. A
 * wrong folding constant fails here.
 */
static void test_crc32c_paths(void **state)
{
	static const unsigned char rfc_zeros[32],
		rfc_ones[32] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
				0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
				0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	const size_t maxlen = 65536 + 17, shortmax = 4200;
	unsigned char *b = malloc(maxlen + 16), up[32];
	uint32_t *ref = malloc((maxlen + 1) * sizeof(*ref)), r, c;
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	int paths = 0;

	for (size_t i = 0; i < maxlen + 16; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		b[i] = (unsigned char)(x >> 56);
	}
	for (int i = 0; i < 32; i++)
		up[i] = (unsigned char)i;
	for (int which = 0; which <= CRC_ENTRY; which++) {
		if (!crc_path(which, 0, "", 0, &r)) {
			print_message("crc32c path %d: not on this CPU\n", which);
			continue;
		}
		paths++;
		/* RFC 3720 B.4 */
		crc_path(which, 0, "123456789", 9, &r);
		assert_int_equal(r, 0xe3069283u);
		crc_path(which, 0, rfc_zeros, 32, &r);
		assert_int_equal(r, 0x8a9136aau);
		crc_path(which, 0, rfc_ones, 32, &r);
		assert_int_equal(r, 0x62a8ab43u);
		crc_path(which, 0, up, 32, &r);
		assert_int_equal(r, 0x46dd794eu);
		crc_path(which, 0, "", 0, &r);
		assert_int_equal(r, 0);
		/* the bitwise path is the definition's twin: the long sweeps are
		 * for the others */
		for (unsigned off = 0; off < 16; off += which == 0 ? 5 : 1) {
			const unsigned char *p = b + off;
			uint32_t reg;

			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			c = off == 0 ? 0 : off == 1 ? ~0u : (uint32_t)(x >> 32);
			reg = ~c;
			for (size_t len = 0; len <= shortmax; len++) {
				ref[len] = ~reg;
				reg = crc_step(reg, p[len]);
			}
			for (size_t len = 0; len <= shortmax; len += which == 0 ? 7 : 1) {
				crc_path(which, c, p, len, &r);
				if (r != ref[len])
					fail_msg(
						"path %d, offset %u, start %08x, length %zu: %08x, "
						"not %08x",
						which, off, c, len, r, ref[len]);
			}
		}
		for (size_t ps = 512; ps <= 65536 && which != 0; ps *= 2) {
			for (unsigned off = 0; off < 16; off += 3) {
				const unsigned char *p = b + off;
				uint32_t reg;

				x = x * 6364136223846793005ULL + 1442695040888963407ULL;
				c = (uint32_t)(x >> 32);
				reg = ~c;
				for (size_t len = 0; len < ps + 17; len++) {
					if (len >= ps - 17)
						ref[len] = ~reg;
					reg = crc_step(reg, p[len]);
				}
				ref[ps + 17] = ~reg;
				for (size_t len = ps - 17; len <= ps + 17; len++) {
					crc_path(which, c, p, len, &r);
					if (r != ref[len])
						fail_msg("path %d, offset %u, start %08x, length "
							 "%zu: "
							 "%08x, not %08x",
							 which, off, c, len, r, ref[len]);
				}
			}
		}
	}
	print_message("%d of %d crc32c paths checked, and page_crc32c\n", paths - 1, CRC_PATHS);
	free(ref);
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

/*
 * Payload paths. page.c computes the payload with AVX-512 or AVX2 when the
 * CPU has them; this test-only entry point (not in page.h) runs one path:
 * writes the payload words of a size-byte page from x0 at bytes 64, 72, ...
 * (header and any tail shorter than a word untouched), which: 0 scalar,
 * 1 AVX2, 2 AVX-512. Returns 0, writing nothing, when this CPU lacks it.
 */
extern int page_payload_impl_for_test(int which, void *buf, uint32_t size, uint64_t x0);

/* the seed of the payload stream, as docs/integrity.md gives it */
static uint64_t payload_x0(uint64_t seed, uint32_t db_id, uint64_t page_no, uint64_t gen)
{
	return seed ^ ((uint64_t)db_id << 48) ^ (page_no * 0x100000001b3ULL) ^ (gen << 20);
}

/* word i (0-based, at byte 64 + 8 i) of the payload, from docs/integrity.md */
static uint64_t payload_word(uint64_t x0, uint64_t i)
{
	uint64_t z = x0 + (i + 1) * 0x9e3779b97f4a7c15ULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t le64_at(const unsigned char *p)
{
	uint64_t v = 0;

	for (int k = 7; k >= 0; k--)
		v = v << 8 | p[k];
	return v;
}

/* Known answers, from the documented formula, for every path: a bug common
 * to all of them (and to page_stamp) fails here. */
static void test_payload_known_answer(void **state)
{
	unsigned char *a = malloc(PS);
	const uint64_t x0 = payload_x0(42, 3, 17, 5);
	const uint32_t last = PS - 8;

	/* splitmix64's published first output for state 0 */
	assert_true(payload_word(0, 0) == 0xe220a8397b1dcdafULL);
	assert_true(payload_word(0, 1) == 0x6e789e6aa1b965f4ULL);
	page_stamp(a, PS, PAGE_KIND_DB, 3, 17, 5, 9, 42, true);
	assert_true(le64_at(a + 64) == 0x631d5f3e430c0658ULL);
	assert_true(le64_at(a + 72) == 0x017c23c1a091ba8bULL);
	assert_true(le64_at(a + last) == 0xf04e5f3ef7f26d59ULL);
	for (uint32_t off = PAGE_HEADER_SIZE; off < PS; off += 8)
		assert_true(le64_at(a + off) == payload_word(x0, (off - PAGE_HEADER_SIZE) / 8));
	for (int which = 0; which <= 2; which++) {
		memset(a, 0, PS);
		if (!page_payload_impl_for_test(which, a, PS, x0)) {
			print_message("payload path %d: not on this CPU\n", which);
			continue;
		}
		assert_true(le64_at(a + 64) == 0x631d5f3e430c0658ULL);
		assert_true(le64_at(a + 72) == 0x017c23c1a091ba8bULL);
		assert_true(le64_at(a + last) == 0xf04e5f3ef7f26d59ULL);
		for (uint32_t off = PAGE_HEADER_SIZE; off < PS; off += 8)
			assert_true(le64_at(a + off) ==
				    payload_word(x0, (off - PAGE_HEADER_SIZE) / 8));
	}
	free(a);
}

/* Each vector path equals the scalar one byte for byte, for many stream
 * seeds and for every size from 64 to 64 + 8 x 40 + 7 (every count of words
 * left over after the vector steps, and tails shorter than a word, which stay
 * untouched) and the page sizes with odd ones around them. page_stamp, with
 * whatever path it chose, writes the same payload and a page that verifies. */
static void test_payload_paths(void **state)
{
	static const uint32_t sizes[] = {512, 520, 4096, 4100, 8192, 8200, 32768, 32772, 65536};
	const uint32_t max = 65536 + 8;
	unsigned char *a = malloc(max), *b = malloc(max);
	uint64_t r = 0x243f6a8885a308d3ULL, found;
	int paths = 0;

	for (int which = 1; which <= 2; which++) {
		if (!page_payload_impl_for_test(which, a, 128, 0)) {
			print_message("payload path %d: not on this CPU\n", which);
			continue;
		}
		paths++;
		for (int t = 0; t < 64; t++) {
			/* edges of the 64-bit range, then random seeds */
			uint64_t x0 = t == 0   ? 0
				      : t == 1 ? ~0ULL
				      : t == 2 ? -5 * 0x9e3779b97f4a7c15ULL
					       : r;

			r = r * 6364136223846793005ULL + 1442695040888963407ULL;
			for (uint32_t size = 64; size <= 64 + 8 * 40 + 7; size++) {
				memset(a, 0xa5, max);
				memset(b, 0xa5, max);
				assert_int_equal(page_payload_impl_for_test(0, a, size, x0), 1);
				assert_int_equal(page_payload_impl_for_test(which, b, size, x0), 1);
				assert_memory_equal(a, b, max);
			}
			for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
				memset(a, 0x5a, max);
				memset(b, 0x5a, max);
				page_payload_impl_for_test(0, a, sizes[k], x0);
				page_payload_impl_for_test(which, b, sizes[k], x0);
				assert_memory_equal(a, b, max);
				/* the scalar path is the documented formula */
				assert_true(le64_at(a + 64) == payload_word(x0, 0));
				assert_true(le64_at(a + (sizes[k] & ~7u) - 8) ==
					    payload_word(x0, (sizes[k] - 64) / 8 - 1));
			}
		}
	}
	print_message("%d vector payload path(s) checked\n", paths);
	/* page_stamp's own choice, through the real entry point */
	for (int t = 0; t < 32; t++) {
		uint64_t seed = r, page = r >> 20, gen = (r >> 40) + 1;
		uint32_t db = (uint32_t)(r >> 7) & 0xffff;

		r = r * 6364136223846793005ULL + 1442695040888963407ULL;
		for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
			uint32_t size = sizes[k];

			page_stamp(a, size, PAGE_KIND_DB, db, page, gen, 7, seed, true);
			assert_int_equal(page_verify(a, size, db, page, gen, true, &found),
					 PAGE_OK);
			memcpy(b, a, size);
			page_payload_impl_for_test(0, b, size, payload_x0(seed, db, page, gen));
			assert_memory_equal(a, b, size);
		}
	}
	free(a);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc32c_check_value),
		cmocka_unit_test(test_crc32c_interleaved),
		cmocka_unit_test(test_crc32c_fold_constants),
		cmocka_unit_test(test_crc32c_paths),
		cmocka_unit_test(test_stamp_verify),
		cmocka_unit_test(test_bad_pages),
		cmocka_unit_test(test_header_only),
		cmocka_unit_test(test_payload_known_answer),
		cmocka_unit_test(test_payload_paths),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
