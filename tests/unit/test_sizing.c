/* SPDX-License-Identifier: MIT */
/*
 * test_sizing.c - [sizing] from mailboxes and from free space: the mailbox
 * arithmetic (database size in whole pages rounded up, target IOPS with
 * headroom rounded up), the keys that conflict with it (each error naming
 * both keys), capacity sizing at plan time (whole pages, logs and journals
 * first, volumes sharing a filesystem sharing it), the space measure (nothing
 * created, files already there counted) and the built-in profiles and the
 * example that use them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include <cmocka.h>

#include "diskproof/plan.h"
#include "diskproof/profile.h"

#define GIB (1ULL << 30)
#define MIB (1ULL << 20)

static int parse(struct profile *p, const char *text, struct strbuf *err)
{
	return profile_parse(p, "t.ini", text, strlen(text), err);
}

static void expect_ok(struct profile *p, const char *text)
{
	struct strbuf err = STRBUF_INIT;

	if (parse(p, text, &err))
		fail_msg("unexpected errors:\n%s", err.buf);
	strbuf_release(&err);
}

static void expect_errors(const char *text, const char *want)
{
	struct strbuf err = STRBUF_INIT;
	struct profile p;

	assert_int_equal(parse(&p, text, &err), -EINVAL);
	assert_string_equal(err.buf, want);
	profile_release(&p);
	strbuf_release(&err);
}

static void test_defaults(void **state)
{
	struct profile p;

	expect_ok(&p, "[volume v]\npath = /d\n");
	assert_int_equal(p.mailboxes, 0);
	assert_int_equal(p.mailbox_size, 0);
	assert_true(p.iops_per_mailbox == 0);
	assert_true(p.headroom_pct == 0);
	assert_true(p.capacity_pct == 0);
	assert_int_equal(p.database_size, GIB);
	assert_int_equal(p.target_iops, 0);
	profile_release(&p);

	/* without mailboxes the mailbox keys size nothing */
	expect_ok(&p, "[sizing]\niops_per_mailbox = 0.1\nmailbox_size = 2GiB\nheadroom = 10\n"
		      "[volume v]\npath = /d\n");
	assert_int_equal(p.database_size, GIB);
	assert_int_equal(p.target_iops, 0);
	profile_release(&p);
}

/* 5000 mailboxes of 2 GiB at 0.06 IOPS in 15 databases, Jetstress's 20 %. */
static void test_mailboxes(void **state)
{
	struct profile p;
	uint64_t per = (5000 * 2 * GIB + 14) / 15;

	expect_ok(&p, "[sizing]\nmailboxes = 5000\nmailbox_size = 2GiB\n"
		      "iops_per_mailbox = 0.06\n"
		      "[volume a]\npath = /a\ndatabases = 7\n"
		      "[volume b]\npath = /b\ndatabases = 8\n");
	assert_int_equal(p.mailboxes, 5000);
	assert_int_equal(p.mailbox_size, 2 * GIB);
	/* no headroom by default: the calculator's figure already includes
	 * its overhead */
	assert_int_equal(p.target_iops, 300); /* 5000 x 0.06, exactly */
	assert_int_equal(p.database_size, (per + 32767) / 32768 * 32768);
	assert_int_equal(p.database_size % p.page_size, 0);
	assert_true(p.database_size * 15 >= 5000 * 2 * GIB);
	assert_true(p.database_size * 15 < 5000 * 2 * GIB + 15 * 32768);
	profile_release(&p);

	/* headroom 0: exactly the mailboxes' IOPS; 20 %: a fifth more; 50 %:
	 * half as much again */
	expect_ok(&p, "[sizing]\nmailboxes = 1000\nmailbox_size = 1GiB\n"
		      "iops_per_mailbox = 0.06\nheadroom = 0\n[volume a]\npath = /a\n");
	assert_int_equal(p.target_iops, 60);
	assert_int_equal(p.database_size, 1000 * GIB);
	profile_release(&p);
	expect_ok(&p, "[sizing]\nmailboxes = 5000\nmailbox_size = 1GiB\n"
		      "iops_per_mailbox = 0.06\nheadroom = 20\n[volume a]\npath = /a\n");
	assert_int_equal(p.target_iops, 360); /* 5000 x 0.06 x 1.2, exactly */
	profile_release(&p);
	expect_ok(&p, "[sizing]\nmailboxes = 1000\nmailbox_size = 1GiB\n"
		      "iops_per_mailbox = 0.1\nheadroom = 50%\n[volume a]\npath = /a\n");
	assert_int_equal(p.target_iops, 150);
	profile_release(&p);
}

/* Rounding: database sizes up to whole pages, IOPS up to a whole IOPS. */
static void test_mailbox_rounding(void **state)
{
	struct profile p;

	/* 1 MiB over 3 databases = 349525.3 bytes: 11 pages of 32 KiB */
	expect_ok(&p, "[sizing]\nmailboxes = 1\nmailbox_size = 1MiB\niops_per_mailbox = 0.5\n"
		      "[volume a]\npath = /a\ndatabases = 3\n");
	assert_int_equal(p.database_size, 11 * 32768);
	assert_int_equal(p.target_iops, 1); /* 0.5 */
	profile_release(&p);
	/* 8 KiB pages (the fixed model's block_size sets them) */
	expect_ok(&p, "[sizing]\nmailboxes = 3\nmailbox_size = 1MiB\niops_per_mailbox = 1\n"
		      "headroom = 0\n[workload]\nmodel = fixed\nblock_size = 8KiB\n"
		      "[volume a]\npath = /a\ndatabases = 2\n");
	assert_int_equal(p.page_size, 8192);
	assert_int_equal(p.database_size, 3 * MIB / 2); /* 192 pages */
	assert_int_equal(p.target_iops, 3);
	profile_release(&p);
	/* 7 x 0.1 x 1.2 = 0.84 -> 1; 10 x 0.35 x 1.2 = 4.2 -> 5 */
	expect_ok(&p, "[sizing]\nmailboxes = 7\nmailbox_size = 1MiB\niops_per_mailbox = 0.1\n"
		      "headroom = 20\n[volume a]\npath = /a\n");
	assert_int_equal(p.target_iops, 1);
	profile_release(&p);
	expect_ok(&p, "[sizing]\nmailboxes = 10\nmailbox_size = 1MiB\niops_per_mailbox = 0.35\n"
		      "headroom = 20\n[volume a]\npath = /a\n");
	assert_int_equal(p.target_iops, 5);
	profile_release(&p);
	/* with capacity the databases keep database_size until plan time */
	expect_ok(&p, "[sizing]\nmailboxes = 100\niops_per_mailbox = 0.2\ncapacity = 80\n"
		      "[volume a]\npath = /a\n");
	assert_int_equal(p.target_iops, 20); /* no headroom by default */
	assert_int_equal(p.database_size, GIB);
	assert_true(p.capacity_pct == 80);
	profile_release(&p);
}

static void test_mailbox_errors(void **state)
{
	/* an explicit database_size or target_iops with mailboxes names both */
	expect_errors("[sizing]\nmailboxes = 10\nmailbox_size = 1GiB\niops_per_mailbox = 0.1\n"
		      "database_size = 2GiB\ntarget_iops = 5\n[volume a]\npath = /a\n",
		      "t.ini:5: [sizing] database_size: conflicts with mailboxes (line 2): with "
		      "mailboxes each database holds mailboxes x mailbox_size / databases; give "
		      "one of them\n"
		      "t.ini:6: [sizing] target_iops: conflicts with mailboxes (line 2): with "
		      "mailboxes the target is mailboxes x iops_per_mailbox x (1 + headroom); "
		      "give one of them");
	/* what mailboxes needs */
	expect_errors("[sizing]\nmailboxes = 10\n[volume a]\npath = /a\n",
		      "t.ini:2: [sizing] mailboxes: needs iops_per_mailbox greater than 0 (the "
		      "transactional IOPS one mailbox needs, e.g. 0.06)\n"
		      "t.ini:2: [sizing] mailboxes: needs mailbox_size (e.g. 2GiB) to size the "
		      "databases, or capacity to size them from the free space");
	/* capacity sizes the databases: not with database_size or mailbox_size */
	expect_errors("[sizing]\ncapacity = 50\ndatabase_size = 1GiB\n[volume a]\npath = /a\n",
		      "t.ini:3: [sizing] database_size: conflicts with capacity (line 2): with "
		      "capacity the databases share the volume's free space; give one of them");
	expect_errors("[sizing]\ncapacity = 50\nmailboxes = 5\nmailbox_size = 1GiB\n"
		      "iops_per_mailbox = 1\n[volume a]\npath = /a\n",
		      "t.ini:4: [sizing] mailbox_size: conflicts with capacity (line 2): both "
		      "size the databases (by mailboxes, or by free space); give one of them");
	/* more than a database may hold */
	expect_errors("[sizing]\nmailboxes = 100000\nmailbox_size = 1TiB\niops_per_mailbox = 1\n"
		      "[volume a]\npath = /a\ndatabases = 2\n",
		      "t.ini:2: [sizing] mailboxes: 100000 mailboxes x mailbox_size over 2 "
		      "database(s) is more than the 16 TiB a database may hold; add databases");
	/* a bad value is reported once, not again as a missing one */
	expect_errors("[sizing]\nmailboxes = 10\nmailbox_size = 1GiB\niops_per_mailbox = "
		      "0,1\n[volume a]\npath = /a\n",
		      "t.ini:4: [sizing] iops_per_mailbox: \"0,1\" is not a number; expected a "
		      "number such as 1.5");
	expect_errors("[sizing]\nmailboxes = many\nmailbox_size = 1GiB\n[volume a]\npath = /a\n",
		      "t.ini:2: [sizing] mailboxes: bad number \"many\": expected a whole "
		      "number such as 42");
	expect_errors("[sizing]\ncapacity = 150\n[volume a]\npath = /a\n",
		      "t.ini:2: [sizing] capacity: percentage \"150\" is over 100");
}

/* A fresh directory under the build tree: a real filesystem. */
static char *scratch(const char *name)
{
	char *dir = NULL;

	mkdir(DP_BINARY_DIR "/scratch", 0755);
	if (asprintf(&dir, "%s/scratch/%s.%d", DP_BINARY_DIR, name, (int)getpid()) < 0)
		fail();
	mkdir(dir, 0755);
	return dir;
}

static uint64_t free_at(const char *dir)
{
	struct statvfs v;

	assert_int_equal(statvfs(dir, &v), 0);
	return (uint64_t)v.f_bavail * v.f_frsize;
}

static void load(struct profile *p, const char *fmt, ...) DP_PRINTF(2, 3);
static void load(struct profile *p, const char *fmt, ...)
{
	char text[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	expect_ok(p, text);
}

/*
 * capacity: the databases on a filesystem share capacity % of its free space
 * after the logs there, each keeping room for two copies of its journal
 * (64 + 4 bytes a page); whole pages, rounded down. Other tests may write to
 * the same filesystem meanwhile: the size is checked to 1 %.
 */
static void test_capacity(void **state)
{
	char *dir = scratch("capacity"), path[4096];
	struct strbuf err = STRBUF_INIT;
	struct profile p;
	struct plan pl;
	uint64_t avail, per, want, big;
	struct stat st;
	int fd;

	load(&p,
	     "[sizing]\ncapacity = 1\nlog_size = 1MiB\n[workload]\nlog_segment_size = 256KiB\n"
	     "[volume a]\npath = %s/a/deep\ndatabases = 2\n"
	     "[volume b]\npath = %s/b\nlog_path = %s/b-log\n",
	     dir, dir, dir);
	avail = free_at(dir);
	if (plan_build(&pl, &p, true, &err))
		fail_msg("%s", err.buf);
	per = ((uint64_t)((double)avail * 0.01) - 3 * MIB) / 3;
	want = (per - 128) / (32768 + 8) * 32768;
	for (size_t i = 0; i < pl.nr_dbs; i++) {
		assert_int_equal(pl.dbs[i].size % 32768, 0);
		assert_int_equal(pl.dbs[i].nr_pages * 32768, pl.dbs[i].size);
		assert_int_equal(pl.dbs[i].size, pl.dbs[0].size); /* one filesystem */
	}
	if (pl.dbs[0].size > want + want / 100 || pl.dbs[0].size + want / 100 < want)
		fail_msg("capacity size %llu, expected about %llu",
			 (unsigned long long)pl.dbs[0].size, (unsigned long long)want);
	assert_int_not_equal(stat(dir, &st), -1);
	assert_int_equal(stat(pl.vols[0].path, &st), -1); /* nothing created */

	/* a database made before, larger (the free space shrank since): kept */
	snprintf(path, sizeof(path), "%s/b", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	big = pl.dbs[0].size * 2 + 5000;
	fd = open(pl.dbs[2].path, O_WRONLY | O_CREAT, 0644);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)big), 0); /* sparse: takes no space */
	close(fd);
	plan_release(&pl);
	if (plan_build(&pl, &p, true, &err))
		fail_msg("%s", err.buf);
	for (size_t i = 0; i < pl.nr_dbs; i++)
		assert_int_equal(pl.dbs[i].size, big - big % 32768);
	unlink(pl.dbs[2].path);
	rmdir(path);
	plan_release(&pl);

	/* without files (the sim engine) capacity does not apply */
	assert_int_equal(plan_build(&pl, &p, false, &err), 0);
	assert_int_equal(pl.dbs[0].size, GIB);
	plan_release(&pl);
	profile_release(&p);

	/* no room left after the logs: refused, naming the volume */
	load(&p,
	     "[sizing]\ncapacity = 1\nlog_size = 16TiB\n[workload]\nlog_segment_size = "
	     "64MiB\n[volume a]\npath = %s/a\n",
	     dir);
	strbuf_reset(&err);
	assert_int_equal(plan_build(&pl, &p, true, &err), -ENOSPC);
	if (!strstr(err.buf, "volume a (") || !strstr(err.buf, "leaves no room for 1 database"))
		fail_msg("%s", err.buf);
	profile_release(&p);
	strbuf_release(&err);
	rmdir(dir);
	free(dir);
}

static void write_file(const char *path, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)size), 0);
	close(fd);
}

/* What the plan needs against what is free, measured without creating. */
static void test_space(void **state)
{
	char *dir = scratch("space"), path[4096];
	struct strbuf err = STRBUF_INIT;
	struct plan_space sp;
	struct profile p;
	struct plan pl;
	struct stat st;

	load(&p,
	     "[sizing]\ndatabase_size = 4MiB\nlog_size = 1MiB\n[workload]\nlog_segment_size = "
	     "256KiB\n[volume a]\npath = %s/a/x\ndatabases = 2\n"
	     "[volume b]\npath = %s/b\nlog_path = %s/b-log\n",
	     dir, dir, dir);
	assert_int_equal(plan_build(&pl, &p, true, &err), 0);
	assert_int_equal(plan_space_measure(&pl, &sp, &err), 0);
	assert_int_equal(sp.nr_fs, 1); /* one filesystem for all */
	assert_true(sp.fs[0].free_known);
	assert_false(sp.fs[0].device);
	assert_string_equal(sp.fs[0].volumes, "a, b");
	assert_int_equal(sp.fs[0].total, 3 * 4 * MIB + 3 * MIB);
	assert_int_equal(sp.fs[0].need, sp.fs[0].total);
	assert_int_equal(sp.vols[0].total, 8 * MIB);
	assert_int_equal(sp.vols[0].log_total, 2 * MIB);
	assert_int_equal(sp.vols[1].total, 4 * MIB);
	assert_int_equal(sp.vols[1].log_need, 1 * MIB);
	assert_int_equal(plan_space_check(&sp, &err), 0);
	plan_space_release(&sp);
	plan_space_release(&sp);			  /* twice is fine */
	assert_int_equal(stat(pl.vols[0].path, &st), -1); /* nothing created */
	assert_int_equal(stat(pl.vols[1].path, &st), -1);

	/* a file already there (half written) counts for what it holds */
	snprintf(path, sizeof(path), "%s/b", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	write_file(pl.dbs[2].path, 3 * MIB);
	assert_int_equal(plan_space_measure(&pl, &sp, &err), 0);
	assert_int_equal(sp.vols[1].need, 1 * MIB);
	assert_int_equal(sp.fs[0].need, sp.fs[0].total - 3 * MIB);
	plan_space_release(&sp);
	unlink(pl.dbs[2].path);
	rmdir(path);
	plan_release(&pl);
	profile_release(&p);

	/* more than the filesystem has: refused, naming volume, need and free */
	load(&p, "[sizing]\ndatabase_size = 16TiB\n[volume big]\npath = %s/big\ndatabases = 1000\n",
	     dir);
	assert_int_equal(plan_build(&pl, &p, true, &err), 0);
	assert_int_equal(plan_space_measure(&pl, &sp, &err), 0);
	assert_int_equal(plan_space_check(&sp, &err), -ENOSPC);
	if (!strstr(err.buf, "volume big (") ||
	    !strstr(err.buf, "): not enough free space: the databases and logs need ") ||
	    !strstr(err.buf, " more, ") || !strstr(err.buf, " is free"))
		fail_msg("%s", err.buf);
	plan_space_release(&sp);
	plan_release(&pl);
	profile_release(&p);
	strbuf_release(&err);
	rmdir(dir);
	free(dir);
}

/* The built-in profiles of other databases, and where their numbers are. */
static void test_builtins(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct profile p;

	assert_int_equal(profile_resolve(&p, "exchange-2010", &err), 0);
	assert_int_equal(p.page_size, 32768);
	assert_int_equal(p.bdm_rate, 5 * MIB);
	assert_true(p.bdm);
	profile_release(&p);

	/* learned from MariaDB (tests/fidelity/mariadb.sh): InnoDB's 16 KiB
	 * pages, its doublewrite and page cleaner, open loop at its rate */
	assert_int_equal(profile_resolve(&p, "mariadb-oltp", &err), 0);
	assert_int_equal(p.page_size, 16384);
	assert_true(p.doublewrite);
	assert_true(p.cleaner_interval_ns > 0);
	assert_int_equal(p.model, PROFILE_MODEL_JETSTRESS);
	profile_release(&p);
	assert_int_not_equal(profile_resolve(&p, "sql-oltp", &err), 0); /* replaced */
	profile_release(&p);
	strbuf_reset(&err);

	assert_int_equal(profile_resolve(&p, "postgres-oltp", &err), 0);
	assert_int_equal(p.page_size, 8192);
	assert_int_equal(p.log_record_size, 8192);
	assert_int_equal(p.log_segment_size, 16 * MIB);
	profile_release(&p);

	assert_int_equal(profile_resolve(&p, "random-32k", &err), 0);
	assert_int_equal(p.model, PROFILE_MODEL_FIXED);
	assert_int_equal(p.block_size, 32768);
	assert_int_equal(p.page_size, 32768);
	assert_true(p.read_pct == 70);
	assert_int_equal(p.pattern, PROFILE_PATTERN_RANDOM);
	profile_release(&p);
	strbuf_release(&err);
}

/* examples/five-disks.ini: 15 databases, 3 on each of 5 disks, sized from
 * mailboxes, logs on a sixth disk. Not built in. */
static void test_example(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct profile p;
	uint64_t total;

	if (profile_load_file(&p, DP_SOURCE_DIR "/examples/five-disks.ini", &err))
		fail_msg("%s", err.buf);
	assert_null(profile_builtin_find("five-disks"));
	assert_int_equal(p.nr_volumes, 5);
	assert_int_equal(profile_database_count(&p), 15);
	for (size_t i = 0; i < p.nr_volumes; i++) {
		char want[64];

		assert_int_equal(p.volumes[i].databases, 3);
		snprintf(want, sizeof(want), "/mnt/disk%zu", i + 1);
		assert_string_equal(p.volumes[i].path, want);
		snprintf(want, sizeof(want), "/mnt/logs/disk%zu", i + 1);
		assert_string_equal(p.volumes[i].log_path, want);
	}
	total = p.mailboxes * p.mailbox_size;
	assert_true(p.database_size * 15 >= total);
	assert_true(p.database_size * 15 < total + 15 * (uint64_t)p.page_size);
	assert_int_equal(p.target_iops, (uint64_t)((double)p.mailboxes * p.iops_per_mailbox *
							   (1 + p.headroom_pct / 100) +
						   0.999999));
	profile_release(&p);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),	 cmocka_unit_test(test_mailboxes),
		cmocka_unit_test(test_mailbox_rounding), cmocka_unit_test(test_mailbox_errors),
		cmocka_unit_test(test_capacity),	 cmocka_unit_test(test_space),
		cmocka_unit_test(test_builtins),	 cmocka_unit_test(test_example),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
