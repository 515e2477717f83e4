/*
 * page.c - stamping and verifying pages (format in page.h) and CRC32C.
 *
 * CRC32C uses SSE4.2's crc32 instruction in three interleaved streams when
 * the CPU has it (checked per call through __builtin_cpu_supports, which
 * reads a value cached by the compiler runtime), else a bitwise loop. The payload generator is a
 * splitmix64 stream seeded from (seed, database, page, generation): cheap,
 * and different for every write of every page. It is counter-based (word i
 * is mix(x0 + (i + 1) * gamma)), so it is computed 8 or 4 words at a time
 * with AVX-512 or AVX2 where the CPU has them (chosen once, at first use).
 */
#include <stddef.h>
#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "diskproof/page.h"

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

uint32_t page_crc32c(uint32_t crc, const void *data, size_t len)
{
	crc = ~crc;
#if defined(__x86_64__)
	if (__builtin_cpu_supports("sse4.2"))
		return ~crc32c_hw(crc, data, len);
#endif
	return ~crc32c_soft(crc, data, len);
}

#define SM_GAMMA 0x9e3779b97f4a7c15ULL
#define SM_MUL1 0xbf58476d1ce4e5b9ULL
#define SM_MUL2 0x94d049bb133111ebULL

static inline uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += SM_GAMMA);

	z = (z ^ (z >> 30)) * SM_MUL1;
	z = (z ^ (z >> 27)) * SM_MUL2;
	return z ^ (z >> 31);
}

/* Words from..n-1 of the stream (word i = mix(x0 + (i + 1) * gamma)) to
 * p + 8 * i, little-endian. */
static void payload_scalar(unsigned char *p, size_t from, size_t n, uint64_t x0)
{
	uint64_t x = x0 + from * SM_GAMMA;

	for (size_t i = from; i < n; i++) {
		uint64_t v = splitmix64(&x);

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

enum page_status page_verify(const void *buf, uint32_t size, uint32_t db_id, uint64_t page_no,
			     uint64_t expected_gen, bool check_crc, uint64_t *found_gen)
{
	struct page_header h;

	memcpy(&h, buf, sizeof(h));
	*found_gen = 0;
	if (h.magic != PAGE_MAGIC || h.version != PAGE_FORMAT_VERSION)
		return PAGE_BAD_MAGIC;
	if (check_crc) {
		struct page_header z = h;
		uint32_t crc;

		z.crc = 0;
		crc = page_crc32c(0, &z, sizeof(z));
		crc = page_crc32c(crc, (const unsigned char *)buf + PAGE_HEADER_SIZE,
				  size - PAGE_HEADER_SIZE);
		if (crc != h.crc || h.page_size != size)
			return PAGE_BAD_CRC;
	}
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
