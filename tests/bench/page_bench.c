/*
 * page_bench.c - how fast one core stamps pages (header, derived payload,
 * CRC32C) and computes CRC32C alone, in GB/s, for the page sizes diskproof
 * uses. Prints one line per figure; nothing is asserted (speed is measured,
 * not tested). Usage: page_bench [SECONDS_PER_FIGURE]
 */
#include <stdio.h>
#include <stdlib.h>

#include "diskproof/page.h"
#include "diskproof/util.h"

static double rate(uint32_t size, int what, double secs)
{
	void *buf;
	uint64_t t0, n = 0, bytes = 0;
	volatile uint32_t sink = 0;

	if (posix_memalign(&buf, 4096, size))
		return 0;
	page_stamp(buf, size, PAGE_KIND_DB, 1, 0, 1, 0, 1, true);
	t0 = time_mono_ns();
	do {
		for (int i = 0; i < 64; i++, n++) {
			if (what)
				sink += page_crc32c(0, buf, size);
			else
				page_stamp(buf, size, PAGE_KIND_DB, 1, n, 1, 0, 1, true);
			bytes += size;
		}
	} while (time_mono_ns() - t0 < (uint64_t)(secs * 1e9));
	(void)sink;
	free(buf);
	return (double)bytes / ((double)(time_mono_ns() - t0) / 1e9) / 1e9;
}

int main(int argc, char **argv)
{
	static const uint32_t sizes[] = {512, 4096, 8192, 32768};
	double secs = argc > 1 ? atof(argv[1]) : 1.0;

	for (size_t i = 0; i < DP_ARRAY_SIZE(sizes); i++)
		printf("page %6u B: stamp %6.2f GB/s, crc32c %6.2f GB/s\n", sizes[i],
		       rate(sizes[i], 0, secs), rate(sizes[i], 1, secs));
	return 0;
}
