/* SPDX-License-Identifier: MIT */
/*
 * test_env_check.c - the rules of "diskproof check" (env/check.c), each
 * judged on facts given here: a filesystem's type and mount options (the
 * option match is whole words of the comma list), the memory a run needs
 * against MemAvailable, the open-file limit, free space, NUMA placement and
 * the CPU governor; and the direct I/O probe on a real temporary directory
 * (mkdtemp): it probes the nearest existing directory, leaves nothing behind,
 * and names the step that failed where no file can be made (/proc).
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "diskproof/check.h"

static enum env_check_level fs(const char *type, const char *opts, const char *super,
			       const char **why)
{
	struct env_mount m = {0};

	snprintf(m.fstype, sizeof(m.fstype), "%s", type);
	snprintf(m.options, sizeof(m.options), "%s", opts);
	snprintf(m.super_opts, sizeof(m.super_opts), "%s", super);
	return env_check_fs(&m, why);
}

static void test_fs(void **state)
{
	const char *why;

	(void)state;
	assert_int_equal(fs("ext4", "rw,relatime", "rw", &why), ENV_CHECK_OK);
	assert_string_equal(why, "");
	/* "ro" inside another option is not read-only */
	assert_int_equal(fs("ext4", "rw,relatime", "rw,errors=remount-ro", &why), ENV_CHECK_OK);
	assert_int_equal(fs("xfs", "rw", "rw,nobarrierx", &why), ENV_CHECK_OK);
	assert_int_equal(fs("tmpfs", "rw", "rw", &why), ENV_CHECK_WARN);
	assert_non_null(strstr(why, "not a disk"));
	assert_int_equal(fs("nfs4", "rw", "rw", &why), ENV_CHECK_WARN);
	assert_non_null(strstr(why, "network"));
	assert_int_equal(fs("fuse.sshfs", "rw", "rw", &why), ENV_CHECK_WARN);
	assert_int_equal(fs("overlay", "rw", "rw", &why), ENV_CHECK_WARN);
	assert_non_null(strstr(why, "overlay"));
	assert_int_equal(fs("ext4", "rw", "rw,barrier=0", &why), ENV_CHECK_WARN);
	assert_non_null(strstr(why, "barriers"));
	assert_int_equal(fs("ext4", "rw", "nobarrier", &why), ENV_CHECK_WARN);
	/* read-only wins over everything else */
	assert_int_equal(fs("tmpfs", "ro,relatime", "rw,nobarrier", &why), ENV_CHECK_FAIL);
	assert_string_equal(why, ": mounted read-only");
	assert_int_equal(fs("ext4", "rw", "ro", &why), ENV_CHECK_FAIL);
}

static void test_memory(void **state)
{
	const char *why;

	(void)state;
	assert_int_equal(env_check_memory(1000, 0, &why), ENV_CHECK_OK); /* unknown */
	assert_int_equal(env_check_memory(500, 1000, &why), ENV_CHECK_OK);
	assert_string_equal(why, "");
	assert_int_equal(env_check_memory(501, 1000, &why), ENV_CHECK_WARN);
	assert_non_null(strstr(why, "more than half"));
	assert_int_equal(env_check_memory(1000, 1000, &why), ENV_CHECK_WARN);
	assert_int_equal(env_check_memory(1001, 1000, &why), ENV_CHECK_FAIL);
	assert_string_equal(why, ": not enough");
}

static void test_nofile_space_governor(void **state)
{
	(void)state;
	assert_int_equal(env_nofile_need(0), 64);
	assert_int_equal(env_nofile_need(10), 84);
	assert_int_equal(env_check_nofile(84, 84), ENV_CHECK_OK);
	assert_int_equal(env_check_nofile(84, 83), ENV_CHECK_FAIL);
	assert_int_equal(env_check_nofile(84, UINT64_MAX), ENV_CHECK_OK);
	assert_int_equal(env_check_space(10, 10, true), ENV_CHECK_OK);
	assert_int_equal(env_check_space(11, 10, true), ENV_CHECK_FAIL);
	assert_int_equal(env_check_space(0, 0, false), ENV_CHECK_WARN);
	assert_int_equal(env_check_governor(true), ENV_CHECK_WARN);
	assert_int_equal(env_check_governor(false), ENV_CHECK_OK);
}

static void test_numa(void **state)
{
	(void)state;
	assert_int_equal(env_check_numa_volume(0), ENV_CHECK_OK);
	assert_int_equal(env_check_numa_volume(1ULL << 3), ENV_CHECK_OK);
	assert_int_equal(env_check_numa_volume(0x5), ENV_CHECK_WARN);
	/* a placement that failed (hard affinity) fails the volume */
	assert_int_equal(
		env_check_numa_worker(ENV_CHECK_OK, -EINVAL, false, PROFILE_AFFINITY_HARD, 2),
		ENV_CHECK_FAIL);
	/* soft: unplaced with a node to prefer warns, on one node it cannot */
	assert_int_equal(env_check_numa_worker(ENV_CHECK_OK, 0, false, PROFILE_AFFINITY_SOFT, 2),
			 ENV_CHECK_WARN);
	assert_int_equal(env_check_numa_worker(ENV_CHECK_OK, 0, false, PROFILE_AFFINITY_SOFT, 1),
			 ENV_CHECK_OK);
	assert_int_equal(env_check_numa_worker(ENV_CHECK_OK, 0, true, PROFILE_AFFINITY_SOFT, 2),
			 ENV_CHECK_OK);
	assert_int_equal(env_check_numa_worker(ENV_CHECK_OK, 0, false, PROFILE_AFFINITY_NONE, 2),
			 ENV_CHECK_OK);
	/* a worse finding so far is kept */
	assert_int_equal(env_check_numa_worker(ENV_CHECK_FAIL, 0, false, PROFILE_AFFINITY_SOFT, 2),
			 ENV_CHECK_FAIL);
	assert_int_equal(env_check_numa_worker(ENV_CHECK_WARN, 0, true, PROFILE_AFFINITY_SOFT, 2),
			 ENV_CHECK_WARN);
}

static unsigned entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static void test_direct_probe(void **state)
{
	char dir[PATH_MAX], path[PATH_MAX + 16];
	const char *tmp = getenv("TMPDIR");
	struct env_direct_result r;
	FILE *f;
	int ret;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/dp-envcheck.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(dir));
	/* a path not there yet: its nearest existing directory, an 8 KiB block */
	snprintf(path, sizeof(path), "%s/new/sub", dir);
	ret = env_direct_probe(path, 8192, &r);
	assert_string_equal(r.where, dir);
	assert_int_equal(r.len, 8192);
	assert_false(r.device);
	assert_non_null(r.step);
	/* written and read back, or a filesystem that refuses O_DIRECT (tmpfs) */
	assert_true(ret == 0 || (ret == -EINVAL && r.refused));
	assert_int_equal(entries(dir), 0); /* nothing outlives it */
	/* a file: its directory; the block at least 4 KiB */
	snprintf(path, sizeof(path), "%s/file", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
	ret = env_direct_probe(path, 512, &r);
	assert_string_equal(r.where, dir);
	assert_int_equal(r.len, 4096);
	assert_true(ret == 0 || (ret == -EINVAL && r.refused));
	assert_int_equal(entries(dir), 1);
	unlink(path);
	rmdir(dir);
	/* no file can be made in /proc: the step that failed is named */
	ret = env_direct_probe("/proc/diskproof-no-such", 4096, &r);
	assert_true(ret < 0);
	assert_string_equal(r.where, "/proc");
	assert_string_equal(r.step, "create a file");
	assert_false(r.refused);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fs),
		cmocka_unit_test(test_memory),
		cmocka_unit_test(test_nofile_space_governor),
		cmocka_unit_test(test_numa),
		cmocka_unit_test(test_direct_probe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
