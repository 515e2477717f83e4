/* SPDX-License-Identifier: MIT */
/*
 * test_counters.c - host counters (counters.h): the /proc parsers on fixture
 * text of /proc/stat, /proc/meminfo and /proc/diskstats (old and new
 * diskstats layouts, malformed lines skipped), the figures of two snapshots
 * worked out by hand (CPU shares, reads and writes per second, KiB/s, waits,
 * util %, queue), the 32-bit wrap of the time fields, too few CPU ticks; the
 * sampler on a fixture /proc tree (CPU and memory exact, a device found by
 * MAJ:MIN under a real path, a device that goes away and comes back, a path
 * with no block device skipped, a filesystem with an anonymous st_dev found
 * through mountinfo when root can make a device node), and on the live /proc.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "diskproof/counters.h"

static const char stat_1[] = "cpu  1000 50 300 8000 100 20 30 0 0 0\n"
			     "cpu0 500 25 150 4000 50 10 15 0 0 0\n"
			     "cpu1 500 25 150 4000 50 10 15 0 0 0\n"
			     "intr 123456 0 9 0 0\n"
			     "ctxt 98765\n";
/* +150 user, +0 nice, +60 system, +740 idle, +40 iowait, +5 irq, +5 softirq:
 * 1000 ticks; user 15 %, system (60 + 5 + 5) 7 %, iowait 4 % */
static const char stat_2[] = "cpu  1150 50 360 8740 140 25 35 0 0 0\n"
			     "cpu0 575 25 180 4370 70 12 17 0 0 0\n"
			     "cpu1 575 25 180 4370 70 13 18 0 0 0\n"
			     "intr 123999 0 9 0 0\n";

static const char meminfo[] = "MemTotal:       16384000 kB\n"
			      "MemFree:         1024000 kB\n"
			      "MemAvailable:    2048000 kB\n"
			      "Buffers:          100000 kB\n";

/* Linux 5.5+: 17 numbers after the name; the second sda line is another
 * device's; a 2.6-era partition line (4 numbers) and junk are skipped. */
static const char disk_1[] =
	"   7       0 loop0 5 0 40 1 0 0 0 0 0 4 1 0 0 0 0 0 0\n"
	"   8       0 sda 1000 10 80000 2000 500 20 40000 3000 0 4000 5000 0 0 0 0 7 9\n"
	"   8       1 sda1 900 10 72000 1800 400 20 32000 2500 0 3500 4300 0 0 0 0 0 0\n"
	"   8       2 sda2 4 8 12 16\n"
	"garbage line\n"
	" 259       0 nvme0n1 10 0 80 4294967000 0 0 0 0 0 10 4294967000\n";
/* 2 s later: sda +400 reads (+16000 sectors, +800 ms), +200 writes (+8000
 * sectors, +1000 ms), +1000 ms busy, +3000 ms in queue; nvme0n1's time
 * fields wrapped past 2^32 (+1000 ms each) */
static const char disk_2[] =
	"   7       0 loop0 5 0 40 1 0 0 0 0 0 4 1 0 0 0 0 0 0\n"
	"   8       0 sda 1400 12 96000 2800 700 25 48000 4000 2 5000 8000 3 0 24 1 9 11\n"
	"   8       1 sda1 1300 12 88000 2600 600 25 40000 3500 2 4500 7300 0 0 0 0 0 0\n"
	" 259       0 nvme0n1 110 0 880 704 0 0 0 0 0 10 704\n";

static void assert_near(double got, double want)
{
	if (!(fabs(got - want) <= 1e-9 * fmax(1.0, fabs(want))))
		fail_msg("%.12g != %.12g", got, want);
}

static void test_parse_stat(void **state)
{
	struct host_cpu_counters c;

	assert_int_equal(counters_parse_stat(stat_1, &c), 0);
	assert_int_equal(c.user, 1000);
	assert_int_equal(c.nice, 50);
	assert_int_equal(c.system, 300);
	assert_int_equal(c.idle, 8000);
	assert_int_equal(c.iowait, 100);
	assert_int_equal(c.irq, 20);
	assert_int_equal(c.softirq, 30);
	assert_int_equal(c.steal, 0);
	/* an old kernel's four fields are enough; none, or no cpu line, are not */
	assert_int_equal(counters_parse_stat("cpu  1 2 3 4\n", &c), 0);
	assert_int_equal(c.idle, 4);
	assert_int_equal(c.iowait, 0);
	assert_int_equal(counters_parse_stat("cpu  1 2 3\n", &c), -EINVAL);
	assert_int_equal(counters_parse_stat("cpu0 1 2 3 4\nintr 5\n", &c), -EINVAL);
	assert_int_equal(counters_parse_stat("", &c), -EINVAL);
}

static void test_parse_meminfo(void **state)
{
	uint64_t avail;

	assert_int_equal(counters_parse_meminfo(meminfo, &avail), 0);
	assert_int_equal(avail, 2048000ULL * 1024);
	assert_int_equal(counters_parse_meminfo("MemTotal: 5 kB\nMemFree: 1 kB\n", &avail),
			 -ENOENT);
	assert_int_equal(avail, 0);
}

static void test_parse_diskstats(void **state)
{
	struct host_disk_counters d[4] = {{.major = 8, .minor = 0},
					  {.major = 259, .minor = 0},
					  {.major = 8, .minor = 2},
					  {.major = 9, .minor = 9}};
	bool found[4];

	assert_int_equal(counters_parse_diskstats(disk_1, d, 4, found), 2);
	assert_true(found[0]);
	assert_true(found[1]);
	assert_false(found[2]); /* too few fields */
	assert_false(found[3]); /* not there */
	assert_string_equal(d[0].name, "sda");
	assert_int_equal(d[0].reads, 1000);
	assert_int_equal(d[0].read_merges, 10);
	assert_int_equal(d[0].read_sectors, 80000);
	assert_int_equal(d[0].read_ms, 2000);
	assert_int_equal(d[0].writes, 500);
	assert_int_equal(d[0].write_merges, 20);
	assert_int_equal(d[0].write_sectors, 40000);
	assert_int_equal(d[0].write_ms, 3000);
	assert_int_equal(d[0].in_flight, 0);
	assert_int_equal(d[0].io_ms, 4000);
	assert_int_equal(d[0].queue_ms, 5000);
	/* the pre-4.18 layout: 11 numbers */
	assert_string_equal(d[1].name, "nvme0n1");
	assert_int_equal(d[1].queue_ms, 4294967000ULL);
}

static void test_figures(void **state)
{
	struct host_disk_counters a[2] = {{.major = 8, .minor = 0}, {.major = 259, .minor = 0}};
	struct host_disk_counters b[2] = {{.major = 8, .minor = 0}, {.major = 259, .minor = 0}};
	struct host_cpu_counters c1, c2;
	struct host_dev_sample s;
	double user, sys, iow;
	bool found[2];

	assert_int_equal(counters_parse_stat(stat_1, &c1), 0);
	assert_int_equal(counters_parse_stat(stat_2, &c2), 0);
	assert_true(counters_cpu_shares(&c1, &c2, &user, &sys, &iow));
	assert_near(user, 15.0);
	assert_near(sys, 7.0);
	assert_near(iow, 4.0);

	assert_int_equal(counters_parse_diskstats(disk_1, a, 2, found), 2);
	assert_int_equal(counters_parse_diskstats(disk_2, b, 2, found), 2);
	memset(&s, 0, sizeof(s));
	counters_disk_figures(&a[0], &b[0], 2 * NSEC_PER_SEC, &s);
	assert_int_equal(s.elapsed_ns, 2 * NSEC_PER_SEC);
	assert_int_equal(s.reads, 400);
	assert_int_equal(s.writes, 200);
	assert_int_equal(s.read_sectors, 16000);
	assert_int_equal(s.write_sectors, 8000);
	assert_near(s.reads_per_s, 200.0);
	assert_near(s.writes_per_s, 100.0);
	assert_near(s.read_kbps, 4000.0);  /* 16000 x 512 B / 1024 / 2 s */
	assert_near(s.write_kbps, 2000.0); /* 8000 x 512 B / 1024 / 2 s */
	assert_near(s.read_wait_ms, 2.0);  /* 800 ms / 400 */
	assert_near(s.write_wait_ms, 5.0); /* 1000 ms / 200 */
	assert_near(s.avg_wait_ms, 3.0);   /* 1800 ms / 600 */
	assert_near(s.util_pct, 50.0);	   /* 1000 ms of 2000 */
	assert_near(s.queue, 1.5);	   /* 3000 ms / 2000 ms */

	/* nvme0n1: the 32-bit time fields wrapped; no writes: no write wait */
	counters_disk_figures(&a[1], &b[1], NSEC_PER_SEC, &s);
	assert_int_equal(s.reads, 100);
	assert_near(s.read_wait_ms, 10.0); /* (704 + 2^32 - 4294967000) / 100 */
	assert_near(s.queue, 1.0);
	assert_true(isnan(s.write_wait_ms));
	assert_near(s.util_pct, 0.0);
}

static void test_delta_rules(void **state)
{
	struct host_cpu_counters c1 = {.user = 100, .idle = 100, .iowait = 50};
	struct host_cpu_counters c2 = c1;
	struct host_disk_counters a = {.io_ms = 0}, b = {.io_ms = 5000};
	struct host_dev_sample s;
	double u = -1, y = -1, w = -1;

	assert_int_equal(counters_delta(10, 25), 15);
	assert_int_equal(counters_delta(UINT32_MAX, 9), 10);	   /* wrapped */
	assert_int_equal(counters_delta(UINT64_C(1) << 33, 5), 0); /* reset */
	/* 49 ticks: too few; 50: enough; iowait stepping back counts as 0 */
	c2.idle += 49;
	assert_false(counters_cpu_shares(&c1, &c2, &u, &y, &w));
	assert_true(u == -1);
	c2.idle++;
	c2.iowait = 40;
	assert_true(counters_cpu_shares(&c1, &c2, &u, &y, &w));
	assert_near(u, 0);
	assert_near(w, 0);
	/* util never over 100 % (io_ticks can run ahead of the clock a little) */
	counters_disk_figures(&a, &b, NSEC_PER_SEC, &s);
	assert_near(s.util_pct, 100.0);
	assert_true(isnan(s.avg_wait_ms));
}

/* ---- the sampler on a fixture /proc ---- */

struct fixture {
	char dir[64];
	char proc[96];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	char self[160];

	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "/tmp/dp-test-counters-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->proc, sizeof(f->proc), "%s/proc", f->dir);
	assert_int_equal(mkdir(f->proc, 0755), 0);
	snprintf(self, sizeof(self), "%s/self", f->proc);
	assert_int_equal(mkdir(self, 0755), 0);
	*state = f;
	return 0;
}

static void rm_tree(const char *dir)
{
	char p[512];
	struct dirent *de;
	struct stat st;
	DIR *d = opendir(dir);

	while (d && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
		if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
			rm_tree(p);
		else
			unlink(p);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	rm_tree(f->dir);
	free(f);
	return 0;
}

static void put(const struct fixture *f, const char *name, const char *text)
{
	char path[256];
	FILE *o;

	snprintf(path, sizeof(path), "%s/%s", f->proc, name);
	o = fopen(path, "w");
	assert_non_null(o);
	fputs(text, o);
	assert_int_equal(fclose(o), 0);
}

static void proc_snapshot(const struct fixture *f, const char *stat, const char *disk)
{
	put(f, "stat", stat);
	put(f, "meminfo", meminfo);
	put(f, "diskstats", disk);
	put(f, "self/mountinfo", "");
}

static struct host_sampler *open_ok(const struct fixture *f, const char *const *paths, size_t n,
				    uint64_t now)
{
	struct strbuf err = STRBUF_INIT;
	struct host_sampler *s = NULL;
	int ret = counters_sampler_open_at(&s, f->proc, paths, n, now, &err);

	if (ret)
		fail_msg("counters_sampler_open_at: %d: %s", ret, err.buf);
	strbuf_release(&err);
	return s;
}

/* CPU and memory only (a sim run): exact shares and bytes, no device rows. */
static void test_sampler_cpu_mem(void **state)
{
	struct fixture *f = *state;
	struct host_sampler *s;
	struct host_sample hs;

	proc_snapshot(f, stat_1, disk_1);
	s = open_ok(f, NULL, 0, 5 * NSEC_PER_SEC);
	proc_snapshot(f, stat_2, disk_2);
	assert_int_equal(counters_sampler_read(s, 6 * NSEC_PER_SEC, &hs), 0);
	assert_true(hs.has_cpu);
	assert_int_equal(hs.cpu_elapsed_ns, NSEC_PER_SEC);
	assert_int_equal(hs.elapsed_ns, NSEC_PER_SEC);
	assert_near(hs.cpu_user_pct, 15.0);
	assert_near(hs.cpu_system_pct, 7.0);
	assert_near(hs.cpu_iowait_pct, 4.0);
	assert_true(hs.has_mem);
	assert_int_equal(hs.mem_available, 2048000ULL * 1024);
	assert_int_equal(hs.nr_devs, 0);
	/* no tick since: no CPU figure, the baseline kept, memory still read */
	assert_int_equal(counters_sampler_read(s, 7 * NSEC_PER_SEC, &hs), 0);
	assert_false(hs.has_cpu);
	assert_true(hs.has_mem);
	put(f, "stat", "cpu  1150 50 360 8840 140 25 35 0 0 0\n");
	assert_int_equal(counters_sampler_read(s, 8 * NSEC_PER_SEC, &hs), 0);
	assert_true(hs.has_cpu);
	assert_int_equal(hs.cpu_elapsed_ns, 2 * NSEC_PER_SEC);
	assert_near(hs.cpu_user_pct, 0.0);
	/* no MemAvailable: no memory figure */
	put(f, "meminfo", "MemTotal: 5 kB\n");
	assert_int_equal(counters_sampler_read(s, 9 * NSEC_PER_SEC, &hs), 0);
	assert_false(hs.has_mem);
	counters_sampler_close(s);
	counters_sampler_close(NULL);
}

static void test_sampler_unreadable(void **state)
{
	struct fixture *f = *state;
	struct strbuf err = STRBUF_INIT;
	struct host_sampler *s = (struct host_sampler *)&err;
	struct host_sample hs;

	/* no stat file */
	assert_int_equal(counters_sampler_open_at(&s, f->proc, NULL, 0, 1, &err), -ENOENT);
	assert_null(s);
	assert_non_null(strstr(err.buf, "host counters: read "));
	assert_non_null(strstr(err.buf, "/stat: No such file or directory"));
	/* gone after the open: the read fails and says nothing */
	proc_snapshot(f, stat_1, disk_1);
	s = open_ok(f, NULL, 0, 1);
	put(f, "stat", "no cpu line\n");
	assert_int_equal(counters_sampler_read(s, 2, &hs), -EINVAL);
	assert_false(hs.has_cpu);
	assert_false(hs.has_mem);
	counters_sampler_close(s);
	strbuf_release(&err);
}

/* "   MAJ MIN NAME" + the rest of a diskstats line */
static void disk_line(char *out, size_t len, dev_t dev, const char *name, const char *rest)
{
	snprintf(out, len, "%4u %7u %s %s\n", major(dev), minor(dev), name, rest);
}

/*
 * The device under a real path (this test's directory), with fixture
 * diskstats lines for its MAJ:MIN: found, named as diskstats names it, the
 * path's other spellings on it give one device; exact figures; gone from
 * diskstats for a read (no row, baseline lost), back (a new baseline, no
 * row), then figures again. Skipped where the directory has no block device
 * beneath (a tmpfs /tmp).
 */
static void test_sampler_device(void **state)
{
	struct fixture *f = *state;
	char d1[256], d2[256], d3[256], sub[128], missing[160];
	const char *paths[4];
	struct host_sampler *s;
	struct host_sample hs;
	struct strbuf desc = STRBUF_INIT;
	struct stat st;

	assert_int_equal(stat(f->dir, &st), 0);
	if (major(st.st_dev) == 0) {
		print_message("skipped: %s has no block device beneath\n", f->dir);
		return;
	}
	disk_line(d1, sizeof(d1), st.st_dev, "fakedisk",
		  "1000 10 80000 2000 500 20 40000 3000 0 4000 5000 0 0 0 0 0 0");
	disk_line(d2, sizeof(d2), st.st_dev, "fakedisk",
		  "1400 12 96000 2800 700 25 48000 4000 2 5000 8000 0 0 0 0 0 0");
	disk_line(d3, sizeof(d3), st.st_dev, "fakedisk",
		  "10 0 80 20 5 0 40 10 0 20 30 0 0 0 0 0 0");
	snprintf(sub, sizeof(sub), "%s/proc", f->dir);
	snprintf(missing, sizeof(missing), "%s/not/yet/there", f->dir);
	paths[0] = f->dir;
	paths[1] = sub;	    /* the same device */
	paths[2] = missing; /* its nearest existing directory: the same device */
	paths[3] = f->dir;  /* a log path equal to the volume's */
	proc_snapshot(f, stat_1, d1);
	s = open_ok(f, paths, 4, 10 * NSEC_PER_SEC);
	counters_sampler_describe(s, &desc);
	assert_non_null(strstr(desc.buf, "CPU, memory; devices fakedisk ("));
	assert_non_null(strstr(desc.buf, missing));
	assert_null(strstr(desc.buf, "no block device"));
	strbuf_release(&desc);

	proc_snapshot(f, stat_2, d2);
	assert_int_equal(counters_sampler_read(s, 12 * NSEC_PER_SEC, &hs), 0);
	assert_int_equal(hs.nr_devs, 1);
	assert_true(hs.devs[0].valid);
	assert_string_equal(hs.devs[0].name, "fakedisk");
	assert_int_equal(hs.devs[0].elapsed_ns, 2 * NSEC_PER_SEC);
	assert_int_equal(hs.devs[0].reads + hs.devs[0].writes, 600);
	assert_near(hs.devs[0].reads_per_s, 200.0);
	assert_near(hs.devs[0].write_kbps, 2000.0);
	assert_near(hs.devs[0].avg_wait_ms, 3.0);
	assert_near(hs.devs[0].util_pct, 50.0);
	assert_near(hs.devs[0].queue, 1.5);

	/* the same instant again: no row, baseline kept */
	assert_int_equal(counters_sampler_read(s, 12 * NSEC_PER_SEC, &hs), 0);
	assert_false(hs.devs[0].valid);
	/* removed, then back with counters from 0 */
	put(f, "diskstats", "");
	assert_int_equal(counters_sampler_read(s, 13 * NSEC_PER_SEC, &hs), 0);
	assert_int_equal(hs.nr_devs, 1);
	assert_false(hs.devs[0].valid);
	put(f, "diskstats", d3);
	assert_int_equal(counters_sampler_read(s, 14 * NSEC_PER_SEC, &hs), 0);
	assert_false(hs.devs[0].valid);
	put(f, "diskstats", d1);
	assert_int_equal(counters_sampler_read(s, 15 * NSEC_PER_SEC, &hs), 0);
	assert_true(hs.devs[0].valid);
	assert_int_equal(hs.devs[0].reads, 990);
	assert_int_equal(hs.devs[0].elapsed_ns, NSEC_PER_SEC);
	counters_sampler_close(s);

	/* a device diskstats does not list is dropped at open, and said so */
	proc_snapshot(f, stat_1, "");
	s = open_ok(f, paths, 1, 1);
	counters_sampler_describe(s, &desc);
	assert_non_null(strstr(desc.buf, "is not in /proc/diskstats"));
	assert_int_equal(counters_sampler_read(s, 2, &hs), 0);
	assert_int_equal(hs.nr_devs, 0);
	counters_sampler_close(s);
	strbuf_release(&desc);
}

/*
 * A path whose filesystem has an anonymous st_dev (/proc here, as btrfs,
 * tmpfs or overlay): skipped when the mount source is no block device;
 * found through mountinfo when it is one (a device node made in the fixture:
 * root only).
 */
static void test_sampler_anonymous_dev(void **state)
{
	struct fixture *f = *state;
	const char *paths[] = {"/proc/self"};
	char node[128], mi[512], ds[256];
	struct strbuf desc = STRBUF_INIT;
	struct host_sampler *s;
	struct host_sample hs;
	dev_t dev = makedev(7, 250);

	proc_snapshot(f, stat_1, disk_1);
	put(f, "self/mountinfo", "22 27 0:21 / /proc rw,relatime shared:12 - proc proc rw\n");
	s = open_ok(f, paths, 1, 1);
	counters_sampler_describe(s, &desc);
	assert_string_equal(desc.buf, "CPU, memory; no block device under /proc/self");
	assert_int_equal(counters_sampler_read(s, 2, &hs), 0);
	assert_int_equal(hs.nr_devs, 0);
	counters_sampler_close(s);
	strbuf_release(&desc);

	snprintf(node, sizeof(node), "%s/blk", f->dir);
	if (mknod(node, S_IFBLK | 0600, dev) != 0) {
		print_message("skipped the btrfs case: mknod: %s\n", strerror(errno));
		return;
	}
	snprintf(mi, sizeof(mi),
		 "1 0 254:0 / / rw - ext4 /dev/vda rw\n"
		 "22 1 0:21 / /proc rw,relatime shared:12 - btrfs %s rw,space_cache\n",
		 node);
	put(f, "self/mountinfo", mi);
	disk_line(ds, sizeof(ds), dev, "fakebtrfs", "1 0 8 1 1 0 8 1 0 2 2");
	put(f, "diskstats", ds);
	s = open_ok(f, paths, 1, 1);
	counters_sampler_describe(s, &desc);
	assert_string_equal(desc.buf, "CPU, memory; devices fakebtrfs (/proc/self)");
	counters_sampler_close(s);
	strbuf_release(&desc);
}

/* The live /proc: figures in range, the device under this directory found. */
static void test_sampler_live(void **state)
{
	struct fixture *f = *state;
	const char *paths[] = {f->dir, "/proc"};
	struct strbuf err = STRBUF_INIT;
	struct host_sampler *s = NULL;
	struct host_sample hs;
	uint64_t t0 = time_mono_ns();

	assert_int_equal(counters_sampler_open(&s, paths, 2, t0, &err), 0);
	usleep(600 * 1000);
	assert_int_equal(counters_sampler_read(s, time_mono_ns(), &hs), 0);
	assert_true(hs.elapsed_ns >= 600 * NSEC_PER_MSEC);
	assert_true(hs.has_mem);
	assert_true(hs.mem_available > 0);
	if (hs.has_cpu) {
		assert_true(hs.cpu_user_pct >= 0 && hs.cpu_user_pct <= 100);
		assert_true(hs.cpu_system_pct >= 0 && hs.cpu_system_pct <= 100);
		assert_true(hs.cpu_iowait_pct >= 0 && hs.cpu_iowait_pct <= 100);
		assert_true(hs.cpu_user_pct + hs.cpu_system_pct + hs.cpu_iowait_pct <= 100.0001);
	}
	assert_true(hs.nr_devs <= 1);
	for (size_t i = 0; i < hs.nr_devs; i++) {
		assert_true(hs.devs[i].valid);
		assert_true(hs.devs[i].reads_per_s >= 0);
		assert_true(hs.devs[i].util_pct >= 0 && hs.devs[i].util_pct <= 100);
		assert_true(hs.devs[i].queue >= 0);
	}
	counters_sampler_close(s);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_stat),
		cmocka_unit_test(test_parse_meminfo),
		cmocka_unit_test(test_parse_diskstats),
		cmocka_unit_test(test_figures),
		cmocka_unit_test(test_delta_rules),
		cmocka_unit_test_setup_teardown(test_sampler_cpu_mem, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sampler_unreadable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sampler_device, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sampler_anonymous_dev, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sampler_live, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
