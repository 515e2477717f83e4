/* SPDX-License-Identifier: MIT */
/*
 * page.c - stamping and verifying pages (format in page.h) and CRC32C.
 *
 * CRC32C folds the buffer with carry-less multiplies (VPCLMULQDQ on 512-bit
 * vectors, or PCLMULQDQ on 128 bits) where the CPU has them and the buffer
 * is 128 bytes or more, else uses SSE4.2's crc32 instruction in three
 * interleaved streams, else a bitwise loop (chosen once, at first use).
 * The payload generator is a splitmix64 stream seeded from (seed, database, page, generation):
 * cheap, and different for every write of every page. It is counter-based (word i is mix(x0 + (i +
 * 1) * gamma)), so it is computed 8 or 4 words at a time with AVX-512 or AVX2 where the CPU has
 * them (chosen once, at first use).
 */
#include <stddef.h>
#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "diskproof/page.h"
#include "../util/rng.h"

static uint32_t crc32c_soft(uint32_t crc, const unsigned char *p, size_t len)
{
	while (len--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0x82f63b78u & (0u - (crc & 1u)));
	}
	return crc;
}

/*
 * Three streams at once. The crc32 instruction has a latency of three cycles
 * and a throughput of one, so one dependent chain uses a third of it. A run
 * of 3 x CRC_BLOCK bytes A|B|C is summed as three independent chains (A from
 * the running register, B and C from zero) and combined with
 *   R(A|B|C) = ((R(A) * x^(8k)) ^ R0(B)) * x^(8k) ^ R0(C)   (mod P, k = CRC_BLOCK)
 * since the register is linear in the data and feeding k zero bytes
 * multiplies it by x^(8k). The product is a 32-step carry-less multiply
 * (crc_mulmod); CRC_SHIFT is x^(8 x 4096) mod P, which test_page recomputes
 * with page_crc32c_xpow8().
 */
#define CRC_POLY 0x82f63b78u
#define CRC_BLOCK 4096u
#define CRC_SHIFT 0x35d73a62u
/* the tail of a page in three streams too: blocks of 1 KiB, then 256 B */
#define CRC_SHIFT_1K 0xe4172b16u  /* x^(8 x 1024) mod P */
#define CRC_SHIFT_256 0x88e56f72u /* x^(8 x 256) mod P */

/* a * b mod P, reflected: bit 31 holds x^0. a must not be 0. */
static uint32_t crc_mulmod(uint32_t a, uint32_t b)
{
	uint32_t m = 1u << 31, p = 0;

	for (;;) {
		if (a & m) {
			p ^= b;
			if (!(a & (m - 1)))
				break;
		}
		m >>= 1;
		b = b & 1 ? (b >> 1) ^ CRC_POLY : b >> 1;
	}
	return p;
}

uint32_t page_crc32c_xpow8(uint64_t n)
{
	uint32_t r = 1u << 31, base = 1u << (31 - 8);

	for (; n; n >>= 1) {
		if (n & 1)
			r = crc_mulmod(r, base);
		base = crc_mulmod(base, base);
	}
	return r;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) static uint32_t crc32c_hw(uint32_t crc, const unsigned char *p,
							    size_t len)
{
	uint64_t c = crc;
	static const struct {
		unsigned block;
		uint32_t shift;
	} runs[] = {{CRC_BLOCK, CRC_SHIFT}, {1024, CRC_SHIFT_1K}, {256, CRC_SHIFT_256}};

	for (unsigned r = 0; r < 3; r++) {
		const unsigned k = runs[r].block;

		while (len >= 3 * (size_t)k) {
			uint64_t a = c, b = 0, d = 0, va, vb, vd;

			for (unsigned i = 0; i < k; i += 8) {
				memcpy(&va, p + i, 8);
				memcpy(&vb, p + k + i, 8);
				memcpy(&vd, p + 2 * k + i, 8);
				a = __builtin_ia32_crc32di(a, va);
				b = __builtin_ia32_crc32di(b, vb);
				d = __builtin_ia32_crc32di(d, vd);
			}
			c = crc_mulmod(runs[r].shift, (uint32_t)a) ^ (uint32_t)b;
			c = crc_mulmod(runs[r].shift, (uint32_t)c) ^ (uint32_t)d;
			p += 3 * (size_t)k;
			len -= 3 * (size_t)k;
		}
	}
	while (len >= 8) {
		uint64_t v;

		memcpy(&v, p, 8);
		c = __builtin_ia32_crc32di(c, v);
		p += 8;
		len -= 8;
	}
	crc = (uint32_t)c;
	while (len--)
		crc = __builtin_ia32_crc32qi(crc, *p++);
	return crc;
}
#endif

/*
 * Folding with carry-less multiplies (the method of Intel's "Fast CRC
 * Computation for Generic Polynomials Using PCLMULQDQ"). A 16-byte block X,
 * read as a polynomial of degree < 128 (reflected like the CRC: bit 0 of the
 * first byte is x^127), adds X * x^(8m) mod P to the CRC register, m being
 * the number of bytes after it. So X folded d bytes forward,
 *   X * x^(8d) = H * x^(8d + 64) + L * x^(8d)   (H, L: first, last 8 bytes)
 *             == H * K1 + L * K2                 (mod P),
 * with K1 = x^(8d + 64) and K2 = x^(8d) mod P: a value of degree < 96 that
 * stands for X at the block d bytes later. XOR it into that block, go on.
 * Several accumulators fold over the buffer, are folded into one, and the
 * last 16-byte value is fed, with the bytes after it, to the crc32
 * instruction from a zero register (the starting register is XORed into the
 * first 4 bytes: that is what the register is).
 *
 * A 64 x 64 carry-less multiply of bit-reversed operands comes out shifted
 * by one: with H's bit i being x^(63 - i) and a constant's bit j being
 * x^(63 - j), product bit k is x^(126 - k), but the next block's bit k is
 * x^(127 - k). So the constants are x^(8d + 63) and x^(8d - 1) mod P (the
 * extra x is the shift), as 32-bit reflected values (crc_mulmod's, bit 31 =
 * x^0) in the top half of a 64-bit lane (bit 63 - j = x^j). test_page
 * recomputes them from the definition.
 */
#if defined(__x86_64__)
enum fold_dist { FOLD_16, FOLD_32, FOLD_48, FOLD_64, FOLD_128, FOLD_192, FOLD_256 };

static const uint32_t fold_k[][2] = {
	/* fold by d bytes: {x^(8d + 63), x^(8d - 1)} mod P */
	[FOLD_16] = {0x3743f7bdu, 0x3171d430u},	 [FOLD_32] = {0x33ccbbbcu, 0xa2158b34u},
	[FOLD_48] = {0xa46ef4aau, 0x6051243fu},	 [FOLD_64] = {0x1c19243bu, 0x75bba45bu},
	[FOLD_128] = {0x6577b245u, 0x7417153fu}, [FOLD_192] = {0x7ccbbbf2u, 0x31c94608u},
	[FOLD_256] = {0xe9a5d8beu, 0x1426a815u},
};
#endif

/* the shortest lengths each folding path takes (its loop needs 4 blocks) */
#define CLMUL_MIN 64u
#define VCLMUL_MIN 256u

/*
 * The folding loops ask for the cache lines this far ahead while they are
 * in the buffer: the hardware prefetcher alone keeps too few misses in
 * flight for one sequential stream (32 KiB pages not in cache, verified per
 * second: 4 x 128 bits 190 K without, 300 K with; 4 x 512 bits 300 K
 * without, 370 K with; 1 to 4 KiB ahead did about as well).
 */
#define FOLD_PREFETCH 2048u

#define FOLD_K_FIRST(d) ((long long)((uint64_t)fold_k[d][0] << 32))
#define FOLD_K_LAST(d) ((long long)((uint64_t)fold_k[d][1] << 32))

#if defined(__x86_64__)
/* the constants of a fold by d bytes: low lane multiplies the first 8 bytes */
__attribute__((target("pclmul,sse4.2"))) static inline __m128i fold_k128(enum fold_dist d)
{
	return _mm_set_epi64x(FOLD_K_LAST(d), FOLD_K_FIRST(d));
}

/* x folded forward by the distance of k (an x * x^(8d) of degree < 128) */
__attribute__((target("pclmul,sse4.2"))) static inline __m128i fold128(__m128i x, __m128i k)
{
	return _mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11));
}

/* The CRC register after the 16 bytes of x then len bytes at p, from zero */
__attribute__((target("pclmul,sse4.2"))) static inline uint32_t
fold_finish(__m128i x, const unsigned char *p, size_t len)
{
	uint64_t c = __builtin_ia32_crc32di(0, (uint64_t)_mm_cvtsi128_si64(x));

	c = __builtin_ia32_crc32di(c, (uint64_t)_mm_extract_epi64(x, 1));
	return crc32c_hw((uint32_t)c, p, len);
}

/* len >= CLMUL_MIN: 4 x 16 bytes at a time, then 16, the rest through crc32 */
__attribute__((target("pclmul,sse4.2"))) static uint32_t
crc32c_clmul(uint32_t crc, const unsigned char *p, size_t len)
{
	const __m128i k64 = fold_k128(FOLD_64), k16 = fold_k128(FOLD_16);
	__m128i a0, a1, a2, a3;

	a0 = _mm_xor_si128(_mm_loadu_si128((const __m128i *)p), _mm_cvtsi32_si128((int)crc));
	a1 = _mm_loadu_si128((const __m128i *)(p + 16));
	a2 = _mm_loadu_si128((const __m128i *)(p + 32));
	a3 = _mm_loadu_si128((const __m128i *)(p + 48));
	p += 64;
	len -= 64;
	for (; len >= 64; p += 64, len -= 64) {
		if (len >= FOLD_PREFETCH + 64)
			_mm_prefetch((const char *)p + FOLD_PREFETCH, _MM_HINT_T0);
		a0 = _mm_xor_si128(fold128(a0, k64), _mm_loadu_si128((const __m128i *)p));
		a1 = _mm_xor_si128(fold128(a1, k64), _mm_loadu_si128((const __m128i *)(p + 16)));
		a2 = _mm_xor_si128(fold128(a2, k64), _mm_loadu_si128((const __m128i *)(p + 32)));
		a3 = _mm_xor_si128(fold128(a3, k64), _mm_loadu_si128((const __m128i *)(p + 48)));
	}
	a0 = _mm_xor_si128(fold128(a0, fold_k128(FOLD_48)), fold128(a1, fold_k128(FOLD_32)));
	a0 = _mm_xor_si128(_mm_xor_si128(a0, fold128(a2, k16)), a3);
	for (; len >= 16; p += 16, len -= 16)
		a0 = _mm_xor_si128(fold128(a0, k16), _mm_loadu_si128((const __m128i *)p));
	return fold_finish(a0, p, len);
}

#define VCLMUL_TARGET "vpclmulqdq,avx512f,avx512bw,avx512vl,pclmul,sse4.2"

/* a fold by d bytes in each 128-bit lane */
__attribute__((target(VCLMUL_TARGET))) static inline __m512i fold_k512(enum fold_dist d)
{
	return _mm512_broadcast_i32x4(fold_k128(d));
}

/* each lane of x folded forward by its lane's distance in k, XORed into y */
__attribute__((target(VCLMUL_TARGET))) static inline __m512i fold512(__m512i x, __m512i k,
								     __m512i y)
{
	return _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(x, k, 0x00),
					 _mm512_clmulepi64_epi128(x, k, 0x11), y, 0x96);
}

/* len >= VCLMUL_MIN: 4 x 64 bytes at a time, then 64, 16, the rest through crc32 */
__attribute__((target(VCLMUL_TARGET))) static uint32_t
crc32c_vclmul(uint32_t crc, const unsigned char *p, size_t len)
{
	const __m512i k256 = fold_k512(FOLD_256), k64 = fold_k512(FOLD_64);
	/* the 4 lanes of one vector into the last: by 48, 32, 16 and 0 bytes */
	const __m512i klanes = _mm512_set_epi64(0, 0, FOLD_K_LAST(FOLD_16), FOLD_K_FIRST(FOLD_16),
						FOLD_K_LAST(FOLD_32), FOLD_K_FIRST(FOLD_32),
						FOLD_K_LAST(FOLD_48), FOLD_K_FIRST(FOLD_48));
	__m512i a0, a1, a2, a3;
	__m256i y;
	__m128i x;

	a0 = _mm512_xor_si512(_mm512_loadu_si512(p),
			      _mm512_zextsi128_si512(_mm_cvtsi32_si128((int)crc)));
	a1 = _mm512_loadu_si512(p + 64);
	a2 = _mm512_loadu_si512(p + 128);
	a3 = _mm512_loadu_si512(p + 192);
	p += 256;
	len -= 256;
	for (; len >= 256; p += 256, len -= 256) {
		if (len >= FOLD_PREFETCH + 256) {
			_mm_prefetch((const char *)p + FOLD_PREFETCH, _MM_HINT_T0);
			_mm_prefetch((const char *)p + FOLD_PREFETCH + 64, _MM_HINT_T0);
			_mm_prefetch((const char *)p + FOLD_PREFETCH + 128, _MM_HINT_T0);
			_mm_prefetch((const char *)p + FOLD_PREFETCH + 192, _MM_HINT_T0);
		}
		a0 = fold512(a0, k256, _mm512_loadu_si512(p));
		a1 = fold512(a1, k256, _mm512_loadu_si512(p + 64));
		a2 = fold512(a2, k256, _mm512_loadu_si512(p + 128));
		a3 = fold512(a3, k256, _mm512_loadu_si512(p + 192));
	}
	a0 = fold512(a0, fold_k512(FOLD_192), fold512(a1, fold_k512(FOLD_128), a3));
	a0 = fold512(a2, k64, a0);
	for (; len >= 64; p += 64, len -= 64)
		a0 = fold512(a0, k64, _mm512_loadu_si512(p));
	/* lane 3 stays (its constants are 0), the others fold onto it */
	a0 = fold512(a0, klanes, _mm512_maskz_mov_epi64(0xc0, a0));
	y = _mm256_xor_si256(_mm512_castsi512_si256(a0), _mm512_extracti64x4_epi64(a0, 1));
	x = _mm_xor_si128(_mm256_castsi256_si128(y), _mm256_extracti128_si256(y, 1));
	/* GCC 12 put no vzeroupper on the way out (this function ends in a
	 * tail call); without one, SSE code run after it (the caller's) pays
	 * for the dirty upper register halves: crc32c_clmul ran 10 times slower */
	_mm256_zeroupper();
	for (; len >= 16; p += 16, len -= 16)
		x = _mm_xor_si128(fold128(x, fold_k128(FOLD_16)),
				  _mm_loadu_si128((const __m128i *)p));
	return fold_finish(x, p, len);
}
#endif

enum crc_impl {
	CRC_SOFT,
	CRC_SSE42,  /* crc32 instruction, 3 streams */
	CRC_CLMUL,  /* folding, 4 x 128 bits */
	CRC_VCLMUL, /* folding, 4 x 512 bits */
};

/*
 * Below this length page_crc32c() takes the crc32 instruction even where it
 * could fold: setting up and reducing the accumulators costs about as much
 * as folding saves (64 bytes: 13 ns folding, 15 ns crc32; 128 bytes: 13 ns,
 * 21 ns, on a Xeon Emerald Rapids). Where the CPU has both folding paths, the one
 * in 512-bit vectors takes 256 bytes and more, the 128-bit one the rest.
 */
#define FOLD_FROM 128u

static int crc_impl_supported(enum crc_impl impl)
{
	switch (impl) {
	case CRC_SOFT:
		return 1;
#if defined(__x86_64__)
	case CRC_SSE42:
		return __builtin_cpu_supports("sse4.2");
	case CRC_CLMUL:
		return __builtin_cpu_supports("sse4.2") && __builtin_cpu_supports("pclmul");
	case CRC_VCLMUL:
		return crc_impl_supported(CRC_CLMUL) && __builtin_cpu_supports("vpclmulqdq") &&
		       __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
		       __builtin_cpu_supports("avx512vl");
#endif
	default:
		return 0;
	}
}

/* as payload_choice: 0 = not yet, else impl + 1 */
static int crc_choice;

static enum crc_impl crc_best(void)
{
	int c = __atomic_load_n(&crc_choice, __ATOMIC_RELAXED);

	if (!c) {
		enum crc_impl impl = CRC_VCLMUL;

		while (impl > CRC_SOFT && !crc_impl_supported(impl))
			impl--;
		c = (int)impl + 1;
		__atomic_store_n(&crc_choice, c, __ATOMIC_RELAXED);
	}
	return (enum crc_impl)(c - 1);
}

/* the register after len bytes at p with one path (no pre/post inversion) */
static uint32_t crc_run(enum crc_impl impl, uint32_t crc, const unsigned char *p, size_t len)
{
	switch (impl) {
#if defined(__x86_64__)
	case CRC_VCLMUL:
		if (len >= VCLMUL_MIN)
			return crc32c_vclmul(crc, p, len);
		/* fall through */
	case CRC_CLMUL:
		if (len >= CLMUL_MIN)
			return crc32c_clmul(crc, p, len);
		/* fall through */
	case CRC_SSE42:
		return crc32c_hw(crc, p, len);
#endif
	default:
		return crc32c_soft(crc, p, len);
	}
}

uint32_t page_crc32c(uint32_t crc, const void *data, size_t len)
{
	enum crc_impl impl = crc_best();

	if (impl >= CRC_CLMUL && len < FOLD_FROM)
		impl = CRC_SSE42;
	return ~crc_run(impl, ~crc, data, len);
}

/* the payload is rng.h's splitmix64 stream; the vector paths below compute
 * it with its constants */
#define SM_GAMMA RNG_GOLDEN
#define SM_MUL1 RNG_SPLITMIX_MUL1
#define SM_MUL2 RNG_SPLITMIX_MUL2

/* Words from..n-1 of the stream (word i = mix(x0 + (i + 1) * gamma)) to
 * p + 8 * i, little-endian. */
static void payload_scalar(unsigned char *p, size_t from, size_t n, uint64_t x0)
{
	uint64_t x = x0 + from * SM_GAMMA;

	for (size_t i = from; i < n; i++) {
		uint64_t v = rng_splitmix_next(&x);

		memcpy(p + 8 * i, &v, 8);
	}
}

#if defined(__x86_64__)
/* 8 words per vector, 4 vectors (256 B) per step for the multiplier's latency;
 * returns how many words it wrote (a multiple of 8), the rest is scalar. */
__attribute__((target("avx512f,avx512dq"))) static size_t payload_avx512(unsigned char *p, size_t n,
									 uint64_t x0)
{
	const __m512i m1 = _mm512_set1_epi64((long long)SM_MUL1);
	const __m512i m2 = _mm512_set1_epi64((long long)SM_MUL2);
	const __m512i step = _mm512_set1_epi64((long long)(8 * SM_GAMMA));
	__m512i x = _mm512_add_epi64(_mm512_set1_epi64((long long)x0),
				     _mm512_mullo_epi64(_mm512_set_epi64(8, 7, 6, 5, 4, 3, 2, 1),
							_mm512_set1_epi64((long long)SM_GAMMA)));
	size_t i = 0;

#define MIX512(z)                                                                                  \
	do {                                                                                       \
		z = _mm512_mullo_epi64(_mm512_xor_si512(z, _mm512_srli_epi64(z, 30)), m1);         \
		z = _mm512_mullo_epi64(_mm512_xor_si512(z, _mm512_srli_epi64(z, 27)), m2);         \
		z = _mm512_xor_si512(z, _mm512_srli_epi64(z, 31));                                 \
	} while (0)
	for (; i + 32 <= n; i += 32) {
		__m512i a = x, b = _mm512_add_epi64(a, step), c = _mm512_add_epi64(b, step),
			d = _mm512_add_epi64(c, step);

		x = _mm512_add_epi64(d, step);
		MIX512(a);
		MIX512(b);
		MIX512(c);
		MIX512(d);
		_mm512_storeu_si512(p + 8 * i, a);
		_mm512_storeu_si512(p + 8 * i + 64, b);
		_mm512_storeu_si512(p + 8 * i + 128, c);
		_mm512_storeu_si512(p + 8 * i + 192, d);
	}
	for (; i + 8 <= n; i += 8) {
		__m512i a = x;

		x = _mm512_add_epi64(x, step);
		MIX512(a);
		_mm512_storeu_si512(p + 8 * i, a);
	}
#undef MIX512
	return i;
}

/* a * b mod 2^64 per lane, b given as its halves: AVX2 has only 32 x 32 -> 64 */
__attribute__((target("avx2"))) static inline __m256i mul64_avx2(__m256i a, __m256i b_lo,
								 __m256i b_hi)
{
	__m256i lo = _mm256_mul_epu32(a, b_lo);
	__m256i cross = _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(a, 32), b_lo),
					 _mm256_mul_epu32(a, b_hi));

	return _mm256_add_epi64(lo, _mm256_slli_epi64(cross, 32));
}

/* 4 words per vector, 4 vectors (128 B) per step; as payload_avx512 */
__attribute__((target("avx2"))) static size_t payload_avx2(unsigned char *p, size_t n, uint64_t x0)
{
	const __m256i m1l = _mm256_set1_epi64x((long long)(SM_MUL1 & 0xffffffffu));
	const __m256i m1h = _mm256_set1_epi64x((long long)(SM_MUL1 >> 32));
	const __m256i m2l = _mm256_set1_epi64x((long long)(SM_MUL2 & 0xffffffffu));
	const __m256i m2h = _mm256_set1_epi64x((long long)(SM_MUL2 >> 32));
	const __m256i step = _mm256_set1_epi64x((long long)(4 * SM_GAMMA));
	__m256i x =
		_mm256_set_epi64x((long long)(x0 + 4 * SM_GAMMA), (long long)(x0 + 3 * SM_GAMMA),
				  (long long)(x0 + 2 * SM_GAMMA), (long long)(x0 + SM_GAMMA));
	size_t i = 0;

#define MIX256(z)                                                                                  \
	do {                                                                                       \
		z = mul64_avx2(_mm256_xor_si256(z, _mm256_srli_epi64(z, 30)), m1l, m1h);           \
		z = mul64_avx2(_mm256_xor_si256(z, _mm256_srli_epi64(z, 27)), m2l, m2h);           \
		z = _mm256_xor_si256(z, _mm256_srli_epi64(z, 31));                                 \
	} while (0)
	for (; i + 16 <= n; i += 16) {
		__m256i a = x, b = _mm256_add_epi64(a, step), c = _mm256_add_epi64(b, step),
			d = _mm256_add_epi64(c, step);

		x = _mm256_add_epi64(d, step);
		MIX256(a);
		MIX256(b);
		MIX256(c);
		MIX256(d);
		_mm256_storeu_si256((__m256i *)(p + 8 * i), a);
		_mm256_storeu_si256((__m256i *)(p + 8 * i + 32), b);
		_mm256_storeu_si256((__m256i *)(p + 8 * i + 64), c);
		_mm256_storeu_si256((__m256i *)(p + 8 * i + 96), d);
	}
	for (; i + 4 <= n; i += 4) {
		__m256i a = x;

		x = _mm256_add_epi64(x, step);
		MIX256(a);
		_mm256_storeu_si256((__m256i *)(p + 8 * i), a);
	}
#undef MIX256
	return i;
}
#endif

enum payload_impl {
	PAYLOAD_SCALAR,
	PAYLOAD_AVX2,
	PAYLOAD_AVX512,
};

static int payload_impl_supported(enum payload_impl impl)
{
	switch (impl) {
	case PAYLOAD_SCALAR:
		return 1;
#if defined(__x86_64__)
	case PAYLOAD_AVX2:
		return __builtin_cpu_supports("avx2");
	case PAYLOAD_AVX512:
		return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
#endif
	default:
		return 0;
	}
}

/* the best path for this CPU, found at first use: 0 = not yet, else impl + 1.
 * Threads racing on the first use store the same value. */
static int payload_choice;

static enum payload_impl payload_best(void)
{
	int c = __atomic_load_n(&payload_choice, __ATOMIC_RELAXED);

	if (!c) {
		enum payload_impl impl = PAYLOAD_SCALAR;

		if (payload_impl_supported(PAYLOAD_AVX512))
			impl = PAYLOAD_AVX512;
		else if (payload_impl_supported(PAYLOAD_AVX2))
			impl = PAYLOAD_AVX2;
		c = (int)impl + 1;
		__atomic_store_n(&payload_choice, c, __ATOMIC_RELAXED);
	}
	return (enum payload_impl)(c - 1);
}

/* The payload of a page of size bytes: the words at 64, 72, ... while a whole
 * word fits (a tail shorter than 8 bytes is left as it is). */
static void payload_fill(enum payload_impl impl, unsigned char *page, uint32_t size, uint64_t x0)
{
	unsigned char *p = page + PAGE_HEADER_SIZE;
	size_t n = size > PAGE_HEADER_SIZE ? (size - PAGE_HEADER_SIZE) / 8 : 0, done = 0;

#if defined(__x86_64__)
	if (impl == PAYLOAD_AVX512)
		done = payload_avx512(p, n, x0);
	else if (impl == PAYLOAD_AVX2)
		done = payload_avx2(p, n, x0);
#else
	(void)impl;
#endif
	payload_scalar(p, done, n, x0);
}

/*
 * Test and benchmark hooks, not in page.h: test_page.c and page_bench.c
 * declare them. page_payload_impl_for_test() writes the payload of a page of
 * size bytes (from byte 64 on, no header nor CRC) from x0 with one path
 * (0 scalar, 1 AVX2, 2 AVX-512) and returns 1, or returns 0 without writing
 * when this CPU or build lacks that path. page_payload_impl_name() names the
 * path page_stamp() uses.
 */
int page_payload_impl_for_test(int which, void *buf, uint32_t size, uint64_t x0);
const char *page_payload_impl_name(void);

int page_payload_impl_for_test(int which, void *buf, uint32_t size, uint64_t x0)
{
	if (which < PAYLOAD_SCALAR || which > PAYLOAD_AVX512 ||
	    !payload_impl_supported((enum payload_impl)which))
		return 0;
	payload_fill((enum payload_impl)which, buf, size, x0);
	return 1;
}

const char *page_payload_impl_name(void)
{
	static const char *const names[] = {
		[PAYLOAD_SCALAR] = "scalar",
		[PAYLOAD_AVX2] = "avx2",
		[PAYLOAD_AVX512] = "avx512",
	};
	return names[payload_best()];
}

/*
 * CRC hooks, not in page.h either. page_crc32c_impl_for_test() computes
 * page_crc32c(crc, data, len) with one path (0 bitwise, 1 crc32 instruction,
 * 2 folding 4 x 128 bits, 3 folding 4 x 512 bits; a folding path takes all
 * lengths from 64 or 256 bytes on, whatever page_crc32c's thresholds) into
 * *out and returns 1, or returns 0 when this CPU or build lacks it.
 * page_crc32c_impl_name() names the path page_crc32c() uses for long
 * buffers; page_crc32c_use_impl() makes it use path which (-1: the best
 * again), returning 0 when it cannot: for page_bench, not thread-safe.
 */
int page_crc32c_impl_for_test(int which, uint32_t crc, const void *data, size_t len, uint32_t *out);
const char *page_crc32c_impl_name(void);
int page_crc32c_use_impl(int which);

int page_crc32c_impl_for_test(int which, uint32_t crc, const void *data, size_t len, uint32_t *out)
{
	if (which < CRC_SOFT || which > CRC_VCLMUL || !crc_impl_supported((enum crc_impl)which))
		return 0;
	*out = ~crc_run((enum crc_impl)which, ~crc, data, len);
	return 1;
}

const char *page_crc32c_impl_name(void)
{
	static const char *const names[] = {
		[CRC_SOFT] = "bitwise",
		[CRC_SSE42] = "sse4.2",
		[CRC_CLMUL] = "pclmul",
		[CRC_VCLMUL] = "vpclmul-avx512",
	};
	return names[crc_best()];
}

int page_crc32c_use_impl(int which)
{
	if (which == -1) {
		__atomic_store_n(&crc_choice, 0, __ATOMIC_RELAXED);
		return 1;
	}
	if (which < CRC_SOFT || which > CRC_VCLMUL || !crc_impl_supported((enum crc_impl)which))
		return 0;
	__atomic_store_n(&crc_choice, which + 1, __ATOMIC_RELAXED);
	return 1;
}

void page_reseal(void *buf, uint32_t size)
{
	unsigned char *p = buf;
	uint32_t crc = 0;

	memcpy(p + offsetof(struct page_header, crc), &crc, sizeof(crc));
	crc = page_crc32c(0, p, size);
	memcpy(p + offsetof(struct page_header, crc), &crc, sizeof(crc));
}

void page_stamp(void *buf, uint32_t size, enum page_kind kind, uint32_t db_id, uint64_t page_no,
		uint64_t generation, uint64_t run_id, uint64_t seed, bool full)
{
	struct page_header h = {
		.magic = PAGE_MAGIC,
		.version = PAGE_FORMAT_VERSION,
		.kind = kind,
		.db_id = db_id,
		.page_size = size,
		.page_no = page_no,
		.generation = generation,
		.run_id = run_id,
		.seed = seed,
		.crc = 0,
	};
	unsigned char *p = buf;

	memcpy(p, &h, sizeof(h));
	if (!full)
		return;
	payload_fill(payload_best(), p, size,
		     seed ^ ((uint64_t)db_id << 48) ^ (page_no * 0x100000001b3ULL) ^
			     (generation << 20));
	h.crc = page_crc32c(0, p, size);
	memcpy(p + offsetof(struct page_header, crc), &h.crc, sizeof(h.crc));
}

bool page_crc_matches(const void *buf, uint32_t size)
{
	struct page_header z;
	uint32_t crc;

	memcpy(&z, buf, sizeof(z));
	crc = z.crc;
	z.crc = 0;
	return crc == page_crc32c(page_crc32c(0, &z, sizeof(z)),
				  (const unsigned char *)buf + PAGE_HEADER_SIZE,
				  size - PAGE_HEADER_SIZE);
}

enum page_status page_verify(const void *buf, uint32_t size, uint32_t db_id, uint64_t page_no,
			     uint64_t expected_gen, bool check_crc, uint64_t *found_gen)
{
	struct page_header h;

	memcpy(&h, buf, sizeof(h));
	*found_gen = 0;
	if (h.magic != PAGE_MAGIC || h.version != PAGE_FORMAT_VERSION)
		return PAGE_BAD_MAGIC;
	if (check_crc && (h.page_size != size || !page_crc_matches(buf, size)))
		return PAGE_BAD_CRC;
	*found_gen = h.generation;
	if (h.db_id != db_id || h.page_no != page_no || h.kind != PAGE_KIND_DB)
		return PAGE_MISDIRECTED;
	if (h.generation == expected_gen)
		return PAGE_OK;
	if (h.generation == 0)
		return PAGE_UNWRITTEN;
	return h.generation < expected_gen ? PAGE_LOST_WRITE : PAGE_NEWER;
}

const char *page_status_name(enum page_status s)
{
	static const char *const names[] = {
		[PAGE_OK] = "ok",
		[PAGE_BAD_MAGIC] = "not a diskproof page",
		[PAGE_BAD_CRC] = "checksum mismatch (corrupt or torn page)",
		[PAGE_MISDIRECTED] = "misdirected write (another page's content)",
		[PAGE_LOST_WRITE] = "lost write (older generation than acknowledged)",
		[PAGE_UNWRITTEN] = "unwritten page (generation 0 after an acknowledged write)",
		[PAGE_NEWER] = "newer generation than expected",
	};
	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "unknown";
}
