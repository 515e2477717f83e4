/* SPDX-License-Identifier: MIT */
/*
 * test_reach.c - whether a run's reads reached its devices
 * (run_reach_judge, src/run/reach.h): counts in, the state and its sentence
 * out. A buffered run whose reads the page cache served is flagged; a
 * sequential read merged into few device reads is not (bytes, not counts);
 * a RAM-backed device that counts its reads is never flagged for being
 * fast; counters that cannot be read, a volume with no block device, too
 * few reads and a device that keeps no statistics are said as unchecked,
 * never passed in silence; a failing device wins over an unchecked one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "../../src/run/reach.h"

#define MiB (1024ull * 1024)

/* A device that was read: n reads of 32 KiB by the run, the device's own
 * counts given. */
static struct run_reach_device dev(const char *name, uint64_t n, uint64_t dev_reads,
				   uint64_t dev_bytes)
{
	return (struct run_reach_device){.name = name,
					 .volumes = "a",
					 .counted = true,
					 .issued_reads = n,
					 .issued_bytes = n * 32768,
					 .issued_sync_writes = 100,
					 .dev_reads = dev_reads,
					 .dev_writes = 100,
					 .dev_bytes = dev_bytes};
}

static enum run_reach_state judge(const struct run_reach_device *d, size_t n, bool direct,
				  char *why, size_t len)
{
	struct strbuf sb = STRBUF_INIT;
	enum run_reach_state st = run_reach_judge(d, n, direct, &sb);

	snprintf(why, len, "%s", sb.len ? sb.buf : "");
	strbuf_release(&sb);
	return st;
}

/* 10,000 page reads, 2 reached the device: the page cache served them. */
static void test_cached_flagged(void **state)
{
	struct run_reach_device d = dev("loop3", 10000, 2, 2 * 32768);
	char why[512];

	(void)state;
	assert_int_equal(judge(&d, 1, false, why, sizeof(why)), RUN_REACH_NOT_REACHED);
	assert_non_null(strstr(why, "reads did not reach the device: loop3 (volume a)"));
	assert_non_null(strstr(why, "page cache"));
	assert_string_equal(run_reach_event_kind(RUN_REACH_NOT_REACHED), "reads_not_reached");
}

/* Just under half the bytes: flagged; half: reached (the tolerance). */
static void test_share_edge(void **state)
{
	struct run_reach_device d = dev("sdb", 10000, 4000, 10000 * 32768 / 2 - 1);
	char why[512];

	(void)state;
	assert_int_equal(judge(&d, 1, false, why, sizeof(why)), RUN_REACH_NOT_REACHED);
	d.dev_bytes++;
	assert_int_equal(judge(&d, 1, false, why, sizeof(why)), RUN_REACH_REACHED);
	assert_non_null(strstr(why, "reads reached the device: sdb (volume a) read"));
}

/* Sequential buffered reads: readahead makes 10,000 page reads 40 device
 * reads of 1 MiB (and more bytes): reached, though the count is 0.4 %. */
static void test_readahead_merged(void **state)
{
	struct run_reach_device d = dev("sdb", 10000, 40, 400 * MiB);
	char why[512];

	(void)state;
	assert_int_equal(judge(&d, 1, false, why, sizeof(why)), RUN_REACH_REACHED);
}

/* A RAM-backed device (zram, a loop device over tmpfs) that counts its
 * reads: speed is no input, so it is reached. */
static void test_ram_device_not_flagged(void **state)
{
	struct run_reach_device d = dev("zram0", 1000000, 1000000, 1000000ull * 32768);
	char why[512];

	(void)state;
	assert_int_equal(judge(&d, 1, true, why, sizeof(why)), RUN_REACH_REACHED);
}

/* brd keeps no I/O statistics: its counters never move, though the run's
 * write-through writes reached it. Unchecked, never flagged, said. */
static void test_no_statistics(void **state)
{
	struct run_reach_device d = dev("ram0", 10000, 0, 0);
	char why[512];

	(void)state;
	d.dev_writes = 0;
	assert_int_equal(judge(&d, 1, false, why, sizeof(why)), RUN_REACH_UNKNOWN);
	assert_non_null(strstr(why, "reads not checked against the device: ram0 (volume a): "
				    "its counters did not move"));
	assert_string_equal(run_reach_event_kind(RUN_REACH_UNKNOWN), "reads_unchecked");
}

/* Counters not read in every measured interval, a volume on tmpfs, too few
 * reads: each unchecked, with its reason. */
static void test_unavailable(void **state)
{
	struct run_reach_device d = dev("sdb", 10000, 0, 0);
	struct run_reach_device none = {.volumes = "a, b", .issued_reads = 5000};
	char why[512];

	(void)state;
	d.counted = false;
	assert_int_equal(judge(&d, 1, false, why, sizeof(why)), RUN_REACH_UNKNOWN);
	assert_non_null(strstr(why, "could not be read in every measured interval"));
	assert_int_equal(judge(&none, 1, false, why, sizeof(why)), RUN_REACH_UNKNOWN);
	assert_non_null(strstr(why, "volumes a, b: no block device beneath"));
	d = dev("sdb", RUN_REACH_MIN_READS - 1, 0, 0);
	assert_int_equal(judge(&d, 1, false, why, sizeof(why)), RUN_REACH_UNKNOWN);
	assert_non_null(strstr(why, "too few reads"));
}

/* One device flagged and one unchecked: flagged, and only it is named. */
static void test_flag_wins(void **state)
{
	struct run_reach_device d[2] = {dev("sdb", 10000, 10000, 10000ull * 32768),
					dev("sdc", 10000, 0, 0)};
	struct run_reach_device three[3] = {d[0], d[1], {.volumes = "c", .issued_reads = 9}};
	char why[512];

	(void)state;
	d[0].counted = false;
	assert_int_equal(judge(d, 2, false, why, sizeof(why)), RUN_REACH_NOT_REACHED);
	assert_null(strstr(why, "sdb"));
	assert_non_null(strstr(why, "sdc"));
	assert_int_equal(judge(three, 3, false, why, sizeof(why)), RUN_REACH_NOT_REACHED);
}

/* No reads at all (a write-only run): nothing to say. */
static void test_no_reads(void **state)
{
	struct run_reach_device d = dev("sdb", 0, 0, 0);
	char why[512];

	(void)state;
	assert_int_equal(judge(&d, 1, false, why, sizeof(why)), RUN_REACH_NONE);
	assert_string_equal(why, "");
	assert_null(run_reach_event_kind(RUN_REACH_NONE));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cached_flagged),
		cmocka_unit_test(test_share_edge),
		cmocka_unit_test(test_readahead_merged),
		cmocka_unit_test(test_ram_device_not_flagged),
		cmocka_unit_test(test_no_statistics),
		cmocka_unit_test(test_unavailable),
		cmocka_unit_test(test_flag_wins),
		cmocka_unit_test(test_no_reads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
