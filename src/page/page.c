/*
 * page.c - stamping and verifying pages (format in page.h) and CRC32C.
 *
 * CRC32C uses SSE4.2's crc32 instruction in three interleaved streams when
 * the CPU has it (checked per call through __builtin_cpu_supports, which
 * reads a value cached by the compiler runtime), else a bitwise loop. The payload generator is a
 * splitmix64 stream seeded from (seed, database, page, generation): cheap,
 * and different for every write of every page.
 */
#include <stddef.h>
#include <string.h>

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

static inline uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
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
	uint64_t x =
		seed ^ ((uint64_t)db_id << 48) ^ (page_no * 0x100000001b3ULL) ^ (generation << 20);
	for (uint32_t off = PAGE_HEADER_SIZE; off + 8 <= size; off += 8) {
		uint64_t v = splitmix64(&x);

		memcpy(p + off, &v, 8);
	}
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
