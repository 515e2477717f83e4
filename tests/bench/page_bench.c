/* SPDX-License-Identifier: MIT */
/*
 * page_bench.c - how fast one core stamps pages (header, derived payload,
 * CRC32C), computes CRC32C alone, and verifies pages read back (header
 * fields and CRC32C, what every page read costs), in GB/s and, for
 * verification, pages per second, for the page sizes diskproof uses. Time
 * is the thread's CPU time (CLOCK_THREAD_CPUTIME_ID), so the figures are per
 * core even on a busy machine. Prints one line per page size; nothing is
 * asserted (speed is measured, not tested); then crc32c and the
 * not-in-cache verification again with each hardware CRC32C path the CPU
 * has. Usage: page_bench [SECONDS_PER_FIGURE [NOT_IN_CACHE_SET_MIB]]; the
 * set (256 MiB by default) should be well above the last-level cache.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "diskproof/page.h"
#include "diskproof/util.h"

/* The payload path page_stamp() uses on this CPU ("scalar", "avx2" or
 * "avx512"): a hook in page.c, not in page.h. */
extern const char *page_payload_impl_name(void);
/* Hooks in page.c too: the CRC32C path page_crc32c() uses for long buffers,
 * and making it use path which (0 bitwise, 1 crc32 instruction, 2 folding
 * with PCLMULQDQ, 3 folding with VPCLMULQDQ on 512 bits; -1 the best),
 * returning 0 when this CPU lacks it. */
extern const char *page_crc32c_impl_name(void);
extern int page_crc32c_use_impl(int which);

/* CPU time of the calling thread, ns */
static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

enum what {
	BENCH_STAMP,
	BENCH_CRC,
	BENCH_VERIFY,
};

static double rate(uint32_t size, enum what what, double secs)
{
	void *buf;
	uint64_t t0, n = 0, bytes = 0;
	volatile uint32_t sink = 0;
	uint64_t found;

	if (posix_memalign(&buf, 4096, size))
		return 0;
	page_stamp(buf, size, PAGE_KIND_DB, 1, 0, 1, 0, 1, true);
	if (page_verify(buf, size, 1, 0, 1, true, &found) != PAGE_OK) {
		fprintf(stderr, "page_bench: a freshly stamped %u B page does not verify\n", size);
		free(buf);
		return 0;
	}
	t0 = cpu_ns();
	do {
		for (int i = 0; i < 64; i++, n++) {
			if (what == BENCH_CRC)
				sink += page_crc32c(0, buf, size);
			else if (what == BENCH_VERIFY)
				sink += (uint32_t)page_verify(buf, size, 1, 0, 1, true, &found);
			else
				page_stamp(buf, size, PAGE_KIND_DB, 1, n, 1, 0, 1, true);
			bytes += size;
		}
	} while (cpu_ns() - t0 < (uint64_t)(secs * 1e9));
	(void)sink;
	free(buf);
	return (double)bytes / ((double)(cpu_ns() - t0) / 1e9) / 1e9;
}

/*
 * Verified 32 KiB page reads per second when the page is not in the CPU's
 * caches, as after a device wrote it by DMA: verify a set of distinct pages
 * much larger than the last-level cache, in order, pass after pass.
 */
static double cold_verify_rate(uint32_t size, uint64_t set_bytes, double secs)
{
	uint64_t npages = set_bytes / size, t0, n = 0, found;
	unsigned char *set;
	volatile uint32_t sink = 0;

	if (posix_memalign((void **)&set, 4096, npages * size))
		return 0;
	for (uint64_t i = 0; i < npages; i++)
		page_stamp(set + i * size, size, PAGE_KIND_DB, 1, i, 1, 0, 1, true);
	t0 = cpu_ns();
	do {
		for (uint64_t i = 0; i < npages; i++, n++)
			sink += (uint32_t)page_verify(set + i * size, size, 1, i, 1, true, &found);
	} while (cpu_ns() - t0 < (uint64_t)(secs * 1e9));
	(void)sink;
	free(set);
	return (double)n / ((double)(cpu_ns() - t0) / 1e9);
}

int main(int argc, char **argv)
{
	static const uint32_t sizes[] = {512, 4096, 8192, 32768};
	double secs = argc > 1 ? atof(argv[1]) : 1.0;
	uint64_t cold_set = (argc > 2 ? strtoull(argv[2], NULL, 10) : 256) << 20;

	printf("payload path: %s, crc32c path: %s\n", page_payload_impl_name(),
	       page_crc32c_impl_name());
	for (size_t i = 0; i < DP_ARRAY_SIZE(sizes); i++) {
		double v = rate(sizes[i], BENCH_VERIFY, secs);

		printf("page %6u B: stamp %6.2f GB/s, crc32c %6.2f GB/s, verify %6.2f GB/s "
		       "= %7.0f K pages/s\n",
		       sizes[i], rate(sizes[i], BENCH_STAMP, secs), rate(sizes[i], BENCH_CRC, secs),
		       v, v * 1e9 / sizes[i] / 1e3);
	}
	printf("page  32768 B, not in cache (%llu MiB of pages): verify %7.0f K pages/s\n",
	       (unsigned long long)(cold_set >> 20), cold_verify_rate(32768, cold_set, secs) / 1e3);
	/* the same with each hardware CRC32C path this CPU has */
	for (int which = 1; which <= 3; which++) {
		if (!page_crc32c_use_impl(which))
			continue;
		printf("crc32c path %-14s: 4 KiB %6.2f GB/s, 32 KiB %6.2f GB/s, "
		       "32 KiB not in cache: verify %7.0f K pages/s\n",
		       page_crc32c_impl_name(), rate(4096, BENCH_CRC, secs),
		       rate(32768, BENCH_CRC, secs), cold_verify_rate(32768, cold_set, secs) / 1e3);
	}
	page_crc32c_use_impl(-1);
	return 0;
}
