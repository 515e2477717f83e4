/* SPDX-License-Identifier: MIT */
/*
 * test_env_numa.c - host and device facts read from a fixture sysfs tree, and
 * the NUMA placement of workers computed from them.
 *
 * The fixture, built in a temporary directory as the kernel lays sysfs out:
 * two NUMA nodes (CPUs 0-3 and 4-7); an NVMe namespace nvme0n1 on node 1
 * (firmware_rev, model, serial on its controller, numa_node on the
 * controller) with a partition nvme0n1p1; a SAS disk sda on node 0 (model and
 * rev on the SCSI device, numa_node only on its host adapter's PCI function,
 * found by walking up); dm-0 over nvme0n1p1 and sda; /sys/dev/block links for
 * each. Variants add a memory-only node 2 with a disk on it, or leave one
 * node only.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "diskproof/env.h"

#define NVME "devices/pci0000:00/0000:00:01.0/nvme/nvme0"
#define SAS "devices/pci0000:00/0000:00:1f.2/host0/target0:0:0/0:0:0:0"
#define MEMDISK "devices/pci0000:40/0000:40:01.0/nvme/nvme1"

struct fixture {
	char root[PATH_MAX];
};

/* root/rel with its parents, holding text (a directory when text is NULL). */
static void put(const char *root, const char *rel, const char *text)
{
	char path[PATH_MAX * 2];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	if (!text) {
		mkdir(path, 0755);
		return;
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* root/rel as a symbolic link to target (relative to the link's directory). */
static void link_to(const char *root, const char *rel, const char *target)
{
	char path[PATH_MAX * 2];
	char *slash;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	slash = strrchr(path, '/');
	*slash = '\0';
	put(root, rel, NULL); /* the parents, and rel as a directory ... */
	*slash = '/';
	rmdir(path); /* ... which the link replaces */
	assert_int_equal(symlink(target, path), 0);
}

static void queue(const char *root, const char *disk, const char *rot, const char *sched,
		  const char *nr, const char *cache)
{
	char rel[PATH_MAX];

	snprintf(rel, sizeof(rel), "%s/queue/rotational", disk);
	put(root, rel, rot);
	snprintf(rel, sizeof(rel), "%s/queue/scheduler", disk);
	put(root, rel, sched);
	snprintf(rel, sizeof(rel), "%s/queue/nr_requests", disk);
	put(root, rel, nr);
	snprintf(rel, sizeof(rel), "%s/queue/write_cache", disk);
	put(root, rel, cache);
	snprintf(rel, sizeof(rel), "%s/queue/logical_block_size", disk);
	put(root, rel, "512\n");
	snprintf(rel, sizeof(rel), "%s/queue/physical_block_size", disk);
	put(root, rel, "4096\n");
}

static void build(const char *r, bool one_node, bool memory_node)
{
	put(r, "devices/system/node/node0/cpulist", "0-3\n");
	if (!one_node)
		put(r, "devices/system/node/node1/cpulist", "4-7\n");
	put(r, "devices/system/node/online", one_node ? "0\n" : "0-1\n"); /* not a node dir */

	/* NVMe on node 1: facts on the controller, namespace and partition below */
	put(r, NVME "/firmware_rev", "1.2     \n");
	put(r, NVME "/model", "FAST NVME 1TB\n");
	put(r, NVME "/serial", "S123\n");
	put(r, NVME "/numa_node", one_node ? "-1\n" : "1\n");
	queue(r, NVME "/nvme0n1", "0\n", "[none] mq-deadline\n", "1023\n", "write back\n");
	put(r, NVME "/nvme0n1/size", "2000000\n");
	/* durability facts: FUA and an atomic write unit (kernels >= 6.11) */
	put(r, NVME "/nvme0n1/queue/fua", "1\n");
	put(r, NVME "/nvme0n1/queue/atomic_write_unit_min_bytes", "4096\n");
	put(r, NVME "/nvme0n1/queue/atomic_write_unit_max_bytes", "65536\n");
	put(r, NVME "/nvme0n1/queue/atomic_write_max_bytes", "131072\n");
	link_to(r, NVME "/nvme0n1/device", "../../nvme0");
	put(r, NVME "/nvme0n1/nvme0n1p1/partition", "1\n");
	put(r, NVME "/nvme0n1/nvme0n1p1/size", "1000000\n");

	/* SAS disk on node 0: model and rev on the SCSI device, the node on the HBA */
	put(r, "devices/pci0000:00/0000:00:1f.2/numa_node", one_node ? "-1\n" : "0\n");
	put(r, SAS "/model", "SAS DISK 8TB    \n");
	put(r, SAS "/rev", "A1B2\n");
	queue(r, SAS "/block/sda", "1\n", "mq-deadline [bfq] none\n", "256\n", "write through\n");
	put(r, SAS "/block/sda/size", "16000000\n");
	/* the device's own cache (MODE SENSE WCE): write back, where the queue
	 * was set to write through (no flushes sent: a volatile cache unflushed) */
	put(r, SAS "/scsi_disk/0:0:0:0/cache_type", "write back\n");
	put(r, SAS "/block/sda/queue/fua", "0\n");
	link_to(r, SAS "/block/sda/device", "../../../0:0:0:0");

	/* dm-0 over the partition and the SAS disk */
	queue(r, "devices/virtual/block/dm-0", "0\n", "none\n", "128\n", "write back\n");
	put(r, "devices/virtual/block/dm-0/size", "17000000\n");
	link_to(r, "devices/virtual/block/dm-0/slaves/nvme0n1p1",
		"../../../../pci0000:00/0000:00:01.0/nvme/nvme0/nvme0n1/nvme0n1p1");
	link_to(r, "devices/virtual/block/dm-0/slaves/sda",
		"../../../../pci0000:00/0000:00:1f.2/host0/target0:0:0/0:0:0:0/block/sda");

	link_to(r, "class/block/nvme0n1", "../../" NVME "/nvme0n1");
	link_to(r, "class/block/nvme0n1p1", "../../" NVME "/nvme0n1/nvme0n1p1");
	link_to(r, "class/block/sda", "../../" SAS "/block/sda");
	link_to(r, "class/block/dm-0", "../../devices/virtual/block/dm-0");
	link_to(r, "dev/block/259:0", "../../" NVME "/nvme0n1");
	link_to(r, "dev/block/259:1", "../../" NVME "/nvme0n1/nvme0n1p1");
	link_to(r, "dev/block/8:0", "../../" SAS "/block/sda");
	link_to(r, "dev/block/253:0", "../../devices/virtual/block/dm-0");

	if (memory_node) { /* node 2: memory, no CPUs, and an NVMe disk on it */
		put(r, "devices/system/node/node2/cpulist", "\n");
		put(r, MEMDISK "/numa_node", "2\n");
		put(r, MEMDISK "/firmware_rev", "9.9\n");
		queue(r, MEMDISK "/nvme1n1", "0\n", "[none]\n", "1023\n", "write back\n");
		link_to(r, MEMDISK "/nvme1n1/device", "../../nvme1");
		link_to(r, "class/block/nvme1n1", "../../" MEMDISK "/nvme1n1");
	}

	/* CPUs: cpu0 performance, cpu1 powersave, cpu2 offline (powersave) */
	put(r, "devices/system/cpu/cpu0/cpufreq/scaling_governor", "performance\n");
	put(r, "devices/system/cpu/cpu1/cpufreq/scaling_governor", "powersave\n");
	put(r, "devices/system/cpu/cpu1/online", "1\n");
	put(r, "devices/system/cpu/cpu2/cpufreq/scaling_governor", "powersave\n");
	put(r, "devices/system/cpu/cpu2/online", "0\n");
	put(r, "devices/system/cpu/cpufreq/boost", "1\n"); /* not a CPU */
}

static int setup_variant(void **state, bool one_node, bool memory_node)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	snprintf(f->root, sizeof(f->root), "%s/test_env_numa.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(f->root))
		return -1;
	build(f->root, one_node, memory_node);
	*state = f;
	return 0;
}

static int setup(void **state)
{
	return setup_variant(state, false, false);
}

static int setup_one_node(void **state)
{
	return setup_variant(state, true, false);
}

static int setup_memory_node(void **state)
{
	return setup_variant(state, false, true);
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->root);
	if (system(cmd) != 0)
		return -1;
	free(f);
	return 0;
}

static void test_disk_facts(void **state)
{
	struct fixture *f = *state;
	struct env_disk d;

	env_disk_read(f->root, "nvme0n1", &d);
	assert_string_equal(d.name, "nvme0n1");
	assert_string_equal(d.model, "FAST NVME 1TB");
	assert_string_equal(d.firmware, "1.2"); /* trailing blanks trimmed */
	assert_string_equal(d.serial, "S123");
	assert_string_equal(d.rotational, "0");
	assert_string_equal(d.scheduler, "none");
	assert_string_equal(d.nr_requests, "1023");
	assert_string_equal(d.write_cache, "write back");
	assert_string_equal(d.logical_block_size, "512");
	assert_string_equal(d.physical_block_size, "4096");
	assert_string_equal(d.size_bytes, "1024000000");
	assert_int_equal(d.numa_node, 1);
	assert_string_equal(d.fua, "1");
	assert_string_equal(d.device_cache, "unknown"); /* NVMe: write_cache is the VWC bit */
	assert_string_equal(d.atomic_write_unit_min, "4096");
	assert_string_equal(d.atomic_write_unit_max, "65536");
	assert_string_equal(d.atomic_write_max, "131072");

	env_disk_read(f->root, "sda", &d);
	assert_string_equal(d.model, "SAS DISK 8TB");
	assert_string_equal(d.firmware, "A1B2"); /* device/rev: no firmware_rev */
	assert_string_equal(d.serial, "unknown");
	assert_string_equal(d.rotational, "1");
	assert_string_equal(d.scheduler, "bfq");
	assert_string_equal(d.write_cache, "write through");
	assert_int_equal(d.numa_node, 0); /* from the host adapter, up the path */
	assert_string_equal(d.fua, "0");
	assert_string_equal(d.device_cache, "write back"); /* device/scsi_disk/ADDR/cache_type */
	assert_string_equal(d.atomic_write_unit_max, "unknown"); /* an older kernel's queue */

	env_disk_read(f->root, "nosuch", &d); /* everything unknown, nothing fails */
	assert_string_equal(d.model, "unknown");
	assert_string_equal(d.size_bytes, "unknown");
	assert_int_equal(d.numa_node, -1);
	assert_string_equal(d.fua, "unknown");
	assert_string_equal(d.device_cache, "unknown");
}

static void test_block_disks(void **state)
{
	struct fixture *f = *state;
	char disks[ENV_DISKS_MAX][ENV_NAME_MAX], name[ENV_NAME_MAX];
	size_t n = 99;

	assert_int_equal(env_block_disks(f->root, "nvme0n1p1", disks, ENV_DISKS_MAX, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(disks[0], "nvme0n1"); /* a partition: its disk */
	assert_int_equal(env_block_disks(f->root, "sda", disks, ENV_DISKS_MAX, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(disks[0], "sda");
	assert_int_equal(env_block_disks(f->root, "dm-0", disks, ENV_DISKS_MAX, &n), 0);
	assert_int_equal(n, 2); /* the slaves, the partition resolved, sorted */
	assert_string_equal(disks[0], "nvme0n1");
	assert_string_equal(disks[1], "sda");
	assert_int_equal(env_block_disks(f->root, "dm-0", disks, 1, &n), -E2BIG);
	assert_int_equal(n, 1);
	assert_int_equal(env_block_disks(f->root, "nosuch", disks, ENV_DISKS_MAX, &n), -ENOENT);
	assert_int_equal(n, 0);

	assert_int_equal(env_dev_name(f->root, 259, 1, name, sizeof(name)), 0);
	assert_string_equal(name, "nvme0n1p1");
	assert_int_equal(env_dev_name(f->root, 253, 0, name, sizeof(name)), 0);
	assert_string_equal(name, "dm-0");
	assert_int_equal(env_dev_name(f->root, 0, 42, name, sizeof(name)), -ENODEV);
}

static void test_topology_and_cpulists(void **state)
{
	struct fixture *f = *state;
	struct env_numa_topology t;
	struct strbuf sb = STRBUF_INIT;
	cpu_set_t s;

	assert_int_equal(env_numa_topology_read(f->root, &t), 0);
	assert_int_equal(t.nr_nodes, 2);
	assert_int_equal(t.present, 3);
	env_cpulist_format(&sb, &t.cpus[0]);
	assert_string_equal(sb.buf, "0-3");
	strbuf_reset(&sb);
	env_cpulist_format(&sb, &t.cpus[1]);
	assert_string_equal(sb.buf, "4-7");

	assert_int_equal(env_cpulist_parse("0-3,8,10-11\n", &s), 0);
	assert_int_equal(CPU_COUNT(&s), 7);
	strbuf_reset(&sb);
	env_cpulist_format(&sb, &s);
	assert_string_equal(sb.buf, "0-3,8,10-11");
	assert_int_equal(env_cpulist_parse("", &s), 0);
	assert_int_equal(CPU_COUNT(&s), 0);
	assert_int_equal(env_cpulist_parse("3-1", &s), -EINVAL);
	assert_int_equal(env_cpulist_parse("a", &s), -EINVAL);
	assert_int_equal(env_cpulist_parse("1-", &s), -EINVAL);
	assert_int_equal(env_cpulist_parse("99999", &s), -EINVAL);
	strbuf_release(&sb);

	/* no node directory: nothing known, not an error */
	assert_int_equal(env_numa_topology_read("/nonexistent-sysfs", &t), 0);
	assert_int_equal(t.nr_nodes, 0);
}

static void test_governor(void **state)
{
	struct fixture *f = *state;
	char gov[128];
	bool ps;

	env_cpufreq_governor(f->root, gov, sizeof(gov), &ps);
	assert_string_equal(gov, "mixed: performance 1, powersave 1"); /* cpu2 is offline */
	assert_true(ps);
	env_cpufreq_governor("/nonexistent-sysfs", gov, sizeof(gov), &ps);
	assert_string_equal(gov, "unknown");
	assert_false(ps);
}

/* Volumes: a on the NVMe partition (node 1), b on the SAS disk (node 0), c on
 * dm-0 (both), d unknown. Workers: 0 drives a, 1 b, 2 a and b, 3 c, 4 d. */
static const struct env_numa_volume vols[] = {
	{"a", "nvme0n1p1", "nvme0n1p1"},
	{"b", "sda", NULL},
	{"c", "dm-0", "dm-0"},
	{"d", NULL, NULL},
};
static const bool drives[5][4] = {
	{1, 0, 0, 0}, {0, 1, 0, 0}, {1, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1},
};

static void cpus_are(const struct env_numa_worker *w, const char *want)
{
	struct strbuf sb = STRBUF_INIT;

	env_cpulist_format(&sb, &w->cpus);
	assert_string_equal(sb.buf, want);
	strbuf_release(&sb);
}

static void test_place_soft(void **state)
{
	struct fixture *f = *state;
	struct env_numa_worker w[5];
	struct strbuf err = STRBUF_INIT;

	assert_int_equal(
		env_numa_plan(f->root, vols, 4, &drives[0][0], 5, PROFILE_AFFINITY_SOFT, w, &err),
		0);
	assert_true(w[0].placed);
	assert_int_equal(w[0].node, 1);
	cpus_are(&w[0], "4-7");
	assert_string_equal(w[0].volumes, "a");
	assert_true(w[1].placed);
	assert_int_equal(w[1].node, 0);
	cpus_are(&w[1], "0-3");
	assert_false(w[2].placed); /* its disks on two nodes: nothing to prefer */
	assert_string_equal(w[2].note, "its disks are on nodes 0,1");
	assert_string_equal(w[2].volumes, "a, b");
	assert_false(w[3].placed); /* dm-0 spans both nodes */
	assert_false(w[4].placed);
	assert_string_equal(w[4].note, "the NUMA node of its disks is not known");
	strbuf_release(&err);
}

static void test_place_hard_and_none(void **state)
{
	struct fixture *f = *state;
	struct env_numa_worker w[5];
	struct strbuf err = STRBUF_INIT;

	assert_int_equal(
		env_numa_plan(f->root, vols, 4, &drives[0][0], 5, PROFILE_AFFINITY_HARD, w, &err),
		0);
	cpus_are(&w[0], "4-7");
	assert_int_equal(w[0].nodes, 2);
	cpus_are(&w[2], "0-7"); /* exactly the CPUs of both its disks' nodes */
	assert_int_equal(w[2].nodes, 3);
	assert_int_equal(w[2].node, -1);
	cpus_are(&w[3], "0-7");
	assert_false(w[4].placed); /* unknown: nothing to pin to, not an error */

	assert_int_equal(
		env_numa_plan(f->root, vols, 4, &drives[0][0], 5, PROFILE_AFFINITY_NONE, w, &err),
		0);
	for (int i = 0; i < 5; i++) {
		assert_false(w[i].placed);
		assert_string_equal(w[i].note, "affinity = none");
	}
	strbuf_release(&err);
}

struct facts {
	char keys[4][32];
	char vals[4][128];
	int n;
};

static void fact(void *arg, const char *key, const char *value)
{
	struct facts *x = arg;

	assert_true(x->n < 4);
	snprintf(x->keys[x->n], sizeof(x->keys[0]), "%s", key);
	snprintf(x->vals[x->n], sizeof(x->vals[0]), "%s", value);
	x->n++;
}

static void test_worker_facts(void **state)
{
	struct fixture *f = *state;
	struct env_numa_worker w[5];
	struct strbuf err = STRBUF_INIT;
	struct facts x = {0};

	assert_int_equal(
		env_numa_plan(f->root, vols, 4, &drives[0][0], 5, PROFILE_AFFINITY_SOFT, w, &err),
		0);
	env_numa_worker_facts(0, &w[0], fact, &x);
	env_numa_worker_facts(2, &w[2], fact, &x);
	assert_int_equal(x.n, 4);
	assert_string_equal(x.keys[0], "worker.0.cpus");
	assert_string_equal(x.vals[0], "4-7 (node 1, soft)");
	assert_string_equal(x.keys[1], "worker.0.volumes");
	assert_string_equal(x.vals[1], "a");
	assert_string_equal(x.keys[2], "worker.2.cpus");
	assert_string_equal(x.vals[2], "any (not placed: its disks are on nodes 0,1)");
	assert_string_equal(x.vals[3], "a, b");
	strbuf_release(&err);
}

static void test_place_one_node(void **state)
{
	struct fixture *f = *state;
	struct env_numa_worker w[5];
	struct strbuf err = STRBUF_INIT;

	assert_int_equal(
		env_numa_plan(f->root, vols, 4, &drives[0][0], 5, PROFILE_AFFINITY_SOFT, w, &err),
		0);
	for (int i = 0; i < 5; i++) {
		assert_false(w[i].placed); /* nothing to prefer on one node */
		assert_string_equal(w[i].note, "one NUMA node");
	}
	assert_int_equal(
		env_numa_plan(f->root, vols, 4, &drives[0][0], 5, PROFILE_AFFINITY_HARD, w, &err),
		0);
	for (int i = 0; i < 5; i++) { /* the only node: every disk is on it */
		assert_true(w[i].placed);
		cpus_are(&w[i], "0-3");
	}
	strbuf_release(&err);
}

static void test_place_memory_only_node(void **state)
{
	struct fixture *f = *state;
	static const struct env_numa_volume mv[] = {{"m", "nvme1n1", NULL},
						    {"a", "nvme0n1p1", NULL}};
	static const bool md[2][2] = {{1, 0}, {0, 1}};
	struct env_numa_worker w[2];
	struct strbuf err = STRBUF_INIT;
	struct env_disk d;

	env_disk_read(f->root, "nvme1n1", &d);
	assert_int_equal(d.numa_node, 2);
	assert_string_equal(d.firmware, "9.9");
	/* soft: the node has no CPUs, so the worker runs anywhere */
	assert_int_equal(
		env_numa_plan(f->root, mv, 2, &md[0][0], 2, PROFILE_AFFINITY_SOFT, w, &err), 0);
	assert_false(w[0].placed);
	assert_string_equal(w[0].note, "node 2 has no CPUs");
	assert_true(w[1].placed);
	/* hard: that is an error, named */
	assert_int_equal(
		env_numa_plan(f->root, mv, 2, &md[0][0], 2, PROFILE_AFFINITY_HARD, w, &err),
		-EINVAL);
	assert_non_null(strstr(err.buf, "worker 0: affinity = hard: NUMA node 2 of volume m has no "
					"CPUs"));
	assert_true(w[1].placed); /* the others are still placed */
	strbuf_release(&err);
}

static void test_mountinfo(void **state)
{
	struct fixture *f = *state;
	char mi[PATH_MAX + 16], line[3 * PATH_MAX], path[PATH_MAX + 32], dir[PATH_MAX + 16];
	char real[PATH_MAX];
	struct env_mount m;
	FILE *fp;

	snprintf(dir, sizeof(dir), "%s/mnt x", f->root);
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_non_null(realpath(dir, real));
	snprintf(mi, sizeof(mi), "%s/mountinfo", f->root);
	fp = fopen(mi, "w");
	assert_non_null(fp);
	fputs("27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard\n", fp);
	fputs("bad line\n", fp);
	/* the mount point's blank escaped as \040, optional fields before "-" */
	snprintf(line, sizeof(line),
		 "40 27 259:1 / %.*s\\040x rw,noatime shared:5 master:1 - xfs /dev/nvme0n1p1 "
		 "rw,nobarrier,logbsize=256k\n",
		 (int)(strlen(real) - 2), real);
	fputs(line, fp);
	fclose(fp);

	snprintf(path, sizeof(path), "%s/sub/not-yet", dir); /* does not exist yet */
	assert_int_equal(env_mount_find(mi, path, &m), 0);
	assert_string_equal(m.point, real);
	assert_string_equal(m.fstype, "xfs");
	assert_string_equal(m.source, "/dev/nvme0n1p1");
	assert_string_equal(m.options, "rw,noatime");
	assert_string_equal(m.super_opts, "rw,nobarrier,logbsize=256k");

	assert_int_equal(env_mount_find(mi, "/", &m), 0);
	assert_string_equal(m.point, "/");
	assert_string_equal(m.fstype, "ext4");
	assert_int_equal(path_nearest_existing(path, line, sizeof(line)), 0);
	assert_string_equal(line, dir);
}

static void test_active_choice(void **state)
{
	char v[64];

	(void)state;
	snprintf(v, sizeof(v), "none [mq-deadline] kyber");
	assert_string_equal(env_active_choice(v), "mq-deadline");
	assert_string_equal(v, "mq-deadline");
	snprintf(v, sizeof(v), "none");
	assert_string_equal(env_active_choice(v), "none");
}

/* On this machine, in a thread of its own: bind pins, a CPU that does not
 * exist is ignored by soft and refused by hard, and enter/leave restores the
 * thread's affinity. */
static void *bind_thread(void *arg)
{
	struct env_numa_worker w = {.placed = true, .node = 0, .nodes = 1};
	struct env_numa_saved saved;
	struct strbuf err = STRBUF_INIT;
	cpu_set_t before, now;
	int *failures = arg;

	if (pthread_getaffinity_np(pthread_self(), sizeof(before), &before))
		goto fail;
	CPU_ZERO(&w.cpus);
	for (int c = 0; c < CPU_SETSIZE && !CPU_COUNT(&w.cpus); c++)
		if (CPU_ISSET(c, &before))
			CPU_SET(c, &w.cpus); /* the first CPU this thread may use */
	w.policy = PROFILE_AFFINITY_SOFT;
	if (env_numa_setup_enter(&w, &saved, &err))
		goto fail;
	pthread_getaffinity_np(pthread_self(), sizeof(now), &now);
	if (!CPU_EQUAL(&now, &w.cpus))
		goto fail;
	env_numa_setup_leave(&saved);
	pthread_getaffinity_np(pthread_self(), sizeof(now), &now);
	if (!CPU_EQUAL(&now, &before))
		goto fail;
	w.policy = PROFILE_AFFINITY_HARD;
	if (env_numa_bind_thread(&w, &err))
		goto fail;
	pthread_getaffinity_np(pthread_self(), sizeof(now), &now);
	if (!CPU_EQUAL(&now, &w.cpus))
		goto fail;
	CPU_ZERO(&w.cpus);
	CPU_SET(CPU_SETSIZE - 1, &w.cpus); /* no such CPU */
	if (env_numa_bind_thread(&w, &err) != -EINVAL || !strstr(err.buf, "cannot pin"))
		goto fail;
	w.policy = PROFILE_AFFINITY_SOFT;
	if (env_numa_bind_thread(&w, &err))
		goto fail;
	w.placed = false; /* not placed: nothing happens */
	if (env_numa_bind_thread(&w, &err))
		goto fail;
	strbuf_release(&err);
	return NULL;
fail:
	(*failures)++;
	strbuf_release(&err);
	return NULL;
}

static void test_bind_thread(void **state)
{
	pthread_t t;
	int failures = 0;

	(void)state;
	assert_int_equal(pthread_create(&t, NULL, bind_thread, &failures), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(failures, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_disk_facts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_block_disks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_topology_and_cpulists, setup, teardown),
		cmocka_unit_test_setup_teardown(test_governor, setup, teardown),
		cmocka_unit_test_setup_teardown(test_place_soft, setup, teardown),
		cmocka_unit_test_setup_teardown(test_place_hard_and_none, setup, teardown),
		cmocka_unit_test_setup_teardown(test_worker_facts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_place_one_node, setup_one_node, teardown),
		cmocka_unit_test_setup_teardown(test_place_memory_only_node, setup_memory_node,
						teardown),
		cmocka_unit_test_setup_teardown(test_mountinfo, setup, teardown),
		cmocka_unit_test(test_active_choice),
		cmocka_unit_test(test_bind_thread),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
