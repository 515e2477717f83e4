/* SPDX-License-Identifier: MIT */
/*
 * env.c - host and device facts from /proc and /sys (see env.h and
 * docs/environment.md). Reads only; a missing file is "unknown".
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "diskproof/env.h"
#include "env_internal.h"

#define SYSFS "/sys"

/* "name : value" from a /proc file, for the first line starting with name. */
static void proc_field(const char *path, const char *name, char *out, size_t len)
{
	char line[512];
	FILE *f = fopen(path, "re");
	size_t nl = strlen(name);

	snprintf(out, len, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *v;

		if (strncmp(line, name, nl) || !(v = strchr(line + nl, ':')))
			continue;
		v++;
		v += strspn(v, " \t");
		v[strcspn(v, "\n")] = '\0';
		snprintf(out, len, "%s", v);
		break;
	}
	fclose(f);
}

void env_cpufreq_governor(const char *sysfs, char *out, size_t len, bool *powersave)
{
	struct {
		char name[64];
		unsigned n;
	} gov[8];
	unsigned ngov = 0, other = 0;
	char dir[PATH_MAX], val[64], rel[300];
	struct dirent *e;
	size_t o = 0;
	DIR *d;

	*powersave = false;
	snprintf(out, len, "unknown");
	snprintf(dir, sizeof(dir), "%s/devices/system/cpu", sysfs);
	d = opendir(dir);
	if (!d)
		return;
	while ((e = readdir(d))) {
		unsigned i;

		if (strncmp(e->d_name, "cpu", 3) || e->d_name[3] < '0' || e->d_name[3] > '9')
			continue;
		snprintf(rel, sizeof(rel), "%s/online", e->d_name);
		if (env_read_at(dir, rel, val, sizeof(val)) == 0 && !strcmp(val, "0"))
			continue; /* offline: its governor does not matter */
		snprintf(rel, sizeof(rel), "%s/cpufreq/scaling_governor", e->d_name);
		if (env_read_at(dir, rel, val, sizeof(val)))
			continue;
		if (!strcmp(val, "powersave"))
			*powersave = true;
		for (i = 0; i < ngov && strcmp(gov[i].name, val); i++)
			;
		if (i == ngov && ngov == DP_ARRAY_SIZE(gov)) {
			other++;
			continue;
		}
		if (i == ngov) {
			snprintf(gov[ngov].name, sizeof(gov[0].name), "%s", val);
			gov[ngov++].n = 0;
		}
		gov[i].n++;
	}
	closedir(d);
	if (ngov == 1 && !other) {
		snprintf(out, len, "%s", gov[0].name);
		return;
	}
	if (!ngov)
		return;
	/* several: sorted by name, so that the same machine reads the same */
	for (unsigned i = 1; i < ngov; i++)
		for (unsigned k = i; k > 0 && strcmp(gov[k - 1].name, gov[k].name) > 0; k--) {
			__typeof__(gov[0]) t = gov[k];

			gov[k] = gov[k - 1];
			gov[k - 1] = t;
		}
	o = (size_t)snprintf(out, len, "mixed:");
	for (unsigned i = 0; i < ngov && o < len; i++)
		o += (size_t)snprintf(out + o, len - o, "%s %s %u", i ? "," : "", gov[i].name,
				      gov[i].n);
	if (other && o < len)
		snprintf(out + o, len - o, ", other %u", other);
}

static void numa_facts(env_fact_fn fn, void *arg)
{
	struct env_numa_topology *t = malloc(sizeof(*t));
	struct strbuf v = STRBUF_INIT;
	char key[64];

	if (!t || env_numa_topology_read(SYSFS, t) || !t->nr_nodes) {
		fn(arg, "host.numa_nodes", "unknown");
		free(t);
		return;
	}
	strbuf_addf(&v, "%u", t->nr_nodes);
	fn(arg, "host.numa_nodes", v.buf);
	for (unsigned n = 0; n < ENV_NODES_MAX; n++) {
		if (!(t->present & (1ULL << n)))
			continue;
		strbuf_reset(&v);
		env_cpulist_format(&v, &t->cpus[n]);
		snprintf(key, sizeof(key), "host.node.%u.cpus", n);
		fn(arg, key, v.len ? v.buf : "none");
	}
	strbuf_release(&v);
	free(t);
}

void env_collect_host(const char *io_uring, env_fact_fn fn, void *arg)
{
	struct utsname u;
	struct rlimit rl;
	char buf[256];
	bool ps;
	long n;

	if (gethostname(buf, sizeof(buf) - 1) == 0)
		fn(arg, "hostname", buf);
	if (uname(&u) == 0) {
		fn(arg, "kernel", u.release);
		fn(arg, "machine", u.machine);
	}
	proc_field("/proc/cpuinfo", "model name", buf, sizeof(buf));
	fn(arg, "cpu_model", buf);
	n = sysconf(_SC_NPROCESSORS_ONLN);
	snprintf(buf, sizeof(buf), "%ld", n > 0 ? n : 0);
	fn(arg, "cpus", buf);
	proc_field("/proc/meminfo", "MemTotal", buf, sizeof(buf));
	fn(arg, "memory_total", buf);
	env_cpufreq_governor(SYSFS, buf, sizeof(buf), &ps);
	fn(arg, "host.cpufreq_governor", buf);
	env_read_line(SYSFS "/devices/system/cpu/cpu0/cpufreq/scaling_driver", buf, sizeof(buf));
	fn(arg, "host.cpufreq_driver", buf);
	numa_facts(fn, arg);
	fn(arg, "host.io_uring", io_uring);
	if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)rl.rlim_cur);
	else
		snprintf(buf, sizeof(buf), "%s",
			 getrlimit(RLIMIT_MEMLOCK, &rl) ? "unknown" : "unlimited");
	fn(arg, "host.memlock_limit", buf);
	{
		struct env_clock c;

		env_clock_read(&c);
		env_clock_facts(&c, fn, arg);
	}
}

/* One fact under "PREFIX.NAME.FACT". */
static void fact3(env_fact_fn fn, void *arg, const char *prefix, const char *name, const char *fact,
		  const char *value)
{
	char key[PROFILE_MAX_NAME + ENV_NAME_MAX + 48];

	snprintf(key, sizeof(key), "%s.%s.%s", prefix, name, fact);
	fn(arg, key, value);
}

/* The facts of a disk under PREFIX.NAME (device.VOLUME or dev.DISK). */
static void disk_facts(env_fact_fn fn, void *arg, const char *prefix, const char *name,
		       const struct env_disk *d)
{
	char node[16];

	fact3(fn, arg, prefix, name, "model", d->model);
	fact3(fn, arg, prefix, name, "firmware", d->firmware);
	fact3(fn, arg, prefix, name, "serial", d->serial);
	fact3(fn, arg, prefix, name, "rotational", d->rotational);
	fact3(fn, arg, prefix, name, "scheduler", d->scheduler);
	fact3(fn, arg, prefix, name, "write_cache", d->write_cache);
	fact3(fn, arg, prefix, name, "nr_requests", d->nr_requests);
	fact3(fn, arg, prefix, name, "logical_block_size", d->logical_block_size);
	fact3(fn, arg, prefix, name, "physical_block_size", d->physical_block_size);
	fact3(fn, arg, prefix, name, "size_bytes", d->size_bytes);
	if (d->numa_node >= 0)
		snprintf(node, sizeof(node), "%d", d->numa_node);
	else
		snprintf(node, sizeof(node), "unknown");
	fact3(fn, arg, prefix, name, "numa_node", node);
	fact3(fn, arg, prefix, name, "fua", d->fua);
	fact3(fn, arg, prefix, name, "device_cache", d->device_cache);
	fact3(fn, arg, prefix, name, "atomic_write_unit_min", d->atomic_write_unit_min);
	fact3(fn, arg, prefix, name, "atomic_write_unit_max", d->atomic_write_unit_max);
	fact3(fn, arg, prefix, name, "atomic_write_max", d->atomic_write_max);
}

/* A partition's disk, else the device itself. */
static void unpartitioned(const char *name, char *out, size_t len)
{
	char dir[PATH_MAX], real[PATH_MAX];
	struct stat st;
	char *slash;

	snprintf(out, len, "%s", name);
	snprintf(dir, sizeof(dir), SYSFS "/class/block/%s/partition", name);
	if (stat(dir, &st) != 0)
		return;
	snprintf(dir, sizeof(dir), SYSFS "/class/block/%s", name);
	if (realpath(dir, real) && (slash = strrchr(real, '/'))) {
		*slash = '\0';
		slash = strrchr(real, '/');
		env_copy(out, len, slash ? slash + 1 : real);
	}
}

static void mount_facts(const char *volume, const char *path, env_fact_fn fn, void *arg)
{
	struct env_mount *m = malloc(sizeof(*m));
	struct strbuf o = STRBUF_INIT;

	if (!m || env_mount_find("/proc/self/mountinfo", path, m)) {
		fact3(fn, arg, "volume", volume, "fstype", "unknown");
		fact3(fn, arg, "volume", volume, "mount_point", "unknown");
		fact3(fn, arg, "volume", volume, "mount_options", "unknown");
		free(m);
		return;
	}
	fact3(fn, arg, "volume", volume, "fstype", m->fstype);
	fact3(fn, arg, "volume", volume, "mount_point", m->point);
	strbuf_addf(&o, "%s; %s", m->options, m->super_opts);
	fact3(fn, arg, "volume", volume, "mount_options", o.buf);
	strbuf_release(&o);
	free(m);
}

/* volume.V.atomic_write: statx's atomic write unit at path (its nearest
 * existing directory): "MIN-MAX" bytes, "none", or "unknown" (no answer:
 * a kernel before 6.11, or a filesystem that does not say). */
static void atomic_fact(const char *volume, const char *path, env_fact_fn fn, void *arg)
{
	char at[PATH_MAX], val[48], *slash;
	uint32_t lo, hi;
	struct stat st;

	snprintf(at, sizeof(at), "%s", path);
	while (stat(at, &st) != 0 && (slash = strrchr(at, '/')) && slash != at)
		*slash = '\0';
	if (env_atomic_write(at, &lo, &hi) != 0)
		snprintf(val, sizeof(val), "unknown");
	else if (!hi)
		snprintf(val, sizeof(val), "none");
	else
		snprintf(val, sizeof(val), "%" PRIu32 "-%" PRIu32, lo, hi);
	fact3(fn, arg, "volume", volume, "atomic_write", val);
}

void env_collect_device(const char *volume, const char *path, env_fact_fn fn, void *arg)
{
	char disks[ENV_DISKS_MAX][ENV_NAME_MAX], top[ENV_NAME_MAX], name[ENV_NAME_MAX];
	struct env_disk d, named;
	struct strbuf list = STRBUF_INIT;
	struct stat st;
	size_t n = 0;
	bool blk;

	blk = stat(path, &st) == 0 && S_ISBLK(st.st_mode);
	if (env_path_device(SYSFS, path, top, sizeof(top)) == 0) {
		unpartitioned(top, name, sizeof(name));
		(void)env_block_disks(SYSFS, top, disks, ENV_DISKS_MAX, &n);
	} else {
		snprintf(name, sizeof(name), "unknown");
	}
	fact3(fn, arg, "device", volume, "name", name);
	{
		/* its major:minor ("7:8"), as lsblk and /proc/diskstats name it */
		char dev[PATH_MAX], devno[32];

		snprintf(dev, sizeof(dev), SYSFS "/class/block/%s/dev", name);
		if (strcmp(name, "unknown") == 0 || env_read_line(dev, devno, sizeof(devno)) != 0)
			snprintf(devno, sizeof(devno), "unknown");
		fact3(fn, arg, "device", volume, "devno", devno);
	}
	/* a stacked device (dm, md) has no model or queue of its own worth
	 * recording: its first disk's facts, the name and size its own */
	env_disk_read(SYSFS, n ? disks[0] : name, &d);
	env_disk_read(SYSFS, name, &named);
	memcpy(d.size_bytes, named.size_bytes, sizeof(d.size_bytes));
	disk_facts(fn, arg, "device", volume, &d);
	for (size_t i = 0; i < n; i++)
		strbuf_addf(&list, "%s%s", i ? ", " : "", disks[i]);
	fact3(fn, arg, "volume", volume, "disks", n ? list.buf : "unknown");
	if (blk) {
		fact3(fn, arg, "volume", volume, "fstype", "none (block device)");
	} else {
		mount_facts(volume, path, fn, arg);
	}
	atomic_fact(volume, path, fn, arg);
	for (size_t i = 0; i < n; i++) {
		env_disk_read(SYSFS, disks[i], &d);
		disk_facts(fn, arg, "dev", disks[i], &d);
	}
	strbuf_release(&list);
}
