/* SPDX-License-Identifier: MIT */
/*
 * observe.c - the diskstats source of a fingerprint (learn.h): the block
 * devices under a path and the stack beneath them, then a window of
 * /proc/diskstats reads, one a second, until the window is over or a signal
 * ends it. Needs no privilege (sysfs and /proc/diskstats are world-readable)
 * and never opens a device: it cannot write to one.
 *
 * Which device is watched: the one holding the path's filesystem (st_dev,
 * or the path itself when it is a block device), as the filesystem's I/O
 * reaches it: a partition, a dm or md device, a loop device. Beneath it the
 * whole disks (env_block_disks: partition -> disk, dm and md members via
 * slaves/) are named, not watched: their counters hold other partitions' and
 * volumes' I/O. A loop device's backing file is named (loop/backing_file).
 *
 * Flushes as writes: a write-through write (O_DSYNC, RWF_DSYNC, fdatasync)
 * on a device with a write-back cache and no FUA (queue/fua 0) reaches it as
 * the write and a flush; diskstats counts that flush twice, as a flush and
 * as a write of no sectors (docs/fidelity.md). flush_counted_as_write says
 * so for the role, so that a model's writes can be held to the device's.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "diskproof/env.h"
#include "diskproof/learn.h"
#include "diskproof/trace.h"

static bool name_in(const char (*v)[LEARN_NAME_MAX], size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i], name))
			return true;
	return false;
}

/* The first line of dir/rel, trailing blanks cut, into out. 0 or -errno. */
static int read_at(const char *dir, const char *rel, char *out, size_t len)
{
	char path[PATH_MAX + 64];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (!fgets(out, (int)len, f)) {
		fclose(f);
		return -ENODATA;
	}
	fclose(f);
	n = strlen(out);
	while (n && (out[n - 1] == '\n' || out[n - 1] == ' '))
		out[--n] = '\0';
	return n ? 0 : -ENODATA;
}

/* The file behind loop device name, when it is one with a backing file. */
static void where_backing(const char *sysfs, const char *name, struct learn_where *w)
{
	char dir[PATH_MAX], file[256];

	snprintf(dir, sizeof(dir), "%s/class/block/%s", sysfs, name);
	if (read_at(dir, "loop/backing_file", file, sizeof(file)) != 0)
		return;
	for (size_t i = 0; i < w->nr_backing; i++)
		if (!strcmp(w->backing[i], file))
			return;
	if (w->nr_backing < LEARN_DEVS_MAX)
		snprintf(w->backing[w->nr_backing++], sizeof(w->backing[0]), "%s", file);
}

/* Whether disk's queue takes FUA and has a write-back cache: a flush of a
 * write-through write is then counted as a write too (above). */
static bool flush_as_write(const char *sysfs, const char *disk)
{
	char dir[PATH_MAX], fua[32], cache[32];

	snprintf(dir, sizeof(dir), "%s/class/block/%s/queue", sysfs, disk);
	if (read_at(dir, "fua", fua, sizeof(fua)) != 0 ||
	    read_at(dir, "write_cache", cache, sizeof(cache)) != 0)
		return false;
	return !strcmp(fua, "0") && !strcmp(cache, "write back");
}

/* disk's logical block size (queue/logical_block_size), 0 unknown. */
static uint32_t logical_block(const char *sysfs, const char *disk)
{
	char dir[PATH_MAX], text[32];
	unsigned long v;

	snprintf(dir, sizeof(dir), "%s/class/block/%s/queue", sysfs, disk);
	if (read_at(dir, "logical_block_size", text, sizeof(text)) != 0)
		return 0;
	v = strtoul(text, NULL, 10);
	return v >= 512 && v <= 65536 && !(v & (v - 1)) ? (uint32_t)v : 0;
}

int learn_where_add_device(const char *sysfs, const char *name, struct learn_where *w,
			   struct strbuf *err)
{
	char disks[LEARN_DEVS_MAX][ENV_NAME_MAX];
	size_t n = 0;
	bool first = w->nr_devices == 0, fw;
	uint32_t blk;
	int ret;

	if (name_in(w->devices, w->nr_devices, name))
		return 0;
	if (w->nr_devices == LEARN_DEVS_MAX) {
		strbuf_addf(err, "%s: more than %d devices", name, LEARN_DEVS_MAX);
		return -E2BIG;
	}
	ret = env_block_disks(sysfs, name, disks, LEARN_DEVS_MAX, &n);
	if (ret && ret != -E2BIG) {
		strbuf_addf(err, "%s: not a block device in %s/class/block: %s", name, sysfs,
			    strerror(-ret));
		return ret;
	}
	snprintf(w->devices[w->nr_devices++], LEARN_NAME_MAX, "%s", name);
	where_backing(sysfs, name, w);
	/* a partition has no queue/ of its own: its disk's says */
	fw = flush_as_write(sysfs, n == 1 ? disks[0] : name);
	blk = logical_block(sysfs, n == 1 ? disks[0] : name);
	if (blk > w->block)
		w->block = blk;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(disks[i], name) && !name_in(w->beneath, w->nr_beneath, disks[i]) &&
		    w->nr_beneath < LEARN_DEVS_MAX)
			snprintf(w->beneath[w->nr_beneath++], LEARN_NAME_MAX, "%s", disks[i]);
		where_backing(sysfs, disks[i], w);
	}
	w->flush_counted_as_write = fw && (first || w->flush_counted_as_write);
	return 0;
}

int learn_where_add(const char *sysfs, const char *path, struct learn_where *w, struct strbuf *err)
{
	char name[LEARN_NAME_MAX];
	int ret;

	ret = env_path_device(sysfs, path, name, sizeof(name));
	if (ret) {
		strbuf_addf(err, "%s: no block device under it (%s)", path,
			    ret == -ENODEV ? "tmpfs, NFS, overlay or btrfs" : strerror(-ret));
		return ret;
	}
	if (w->nr_paths < LEARN_PATHS_MAX)
		snprintf(w->paths[w->nr_paths++], sizeof(w->paths[0]), "%s", path);
	return learn_where_add_device(sysfs, name, w, err);
}

/* ---- the window ---- */

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* /proc/diskstats whole into buf. */
static int slurp(const char *path, struct strbuf *buf, struct strbuf *err)
{
	char chunk[8192];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	strbuf_reset(buf);
	if (fd < 0) {
		strbuf_addf(err, "%s: cannot read: %s", path, strerror(errno));
		return -errno;
	}
	while ((n = read(fd, chunk, sizeof(chunk))) > 0)
		strbuf_add(buf, chunk, (size_t)n);
	close(fd);
	return 0;
}

/* Every watched device's counters now: snap[role][device]. */
static int snapshot(const char *path, const struct learn_fp *fp, struct strbuf *buf,
		    struct learn_counters (*snap)[LEARN_DEVS_MAX], struct strbuf *err)
{
	int ret = slurp(path, buf, err);

	for (int r = 0; !ret && r < LEARN_ROLES; r++) {
		const struct learn_where *w = &fp->role[r].where;

		for (size_t i = 0; !ret && fp->role[r].present && i < w->nr_devices; i++) {
			ret = learn_diskstats_find(buf->buf, w->devices[i], &snap[r][i]);
			if (ret)
				strbuf_addf(err, "%s: device %s is not in it (removed?)", path,
					    w->devices[i]);
		}
	}
	return ret;
}

/* Waits until deadline (monotonic ns) or the signal fd is readable: true
 * when the signal came (it is read, so that it is taken once). */
static bool wait_until(int fd, uint64_t deadline)
{
	uint64_t now = mono_ns();
	struct pollfd p = {.fd = fd, .events = POLLIN};
	int ms = now >= deadline ? 0 : (int)((deadline - now + 999999) / 1000000);

	if (fd < 0) {
		struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};

		nanosleep(&ts, NULL);
		return false;
	}
	if (poll(&p, 1, ms) == 1 && (p.revents & POLLIN)) {
		char drain[256];

		if (read(fd, drain, sizeof(drain)) < 0)
			return true;
		return true;
	}
	return false;
}

int learn_observe_window(const struct learn_observe *o, struct learn_fp *fp, struct strbuf *err)
{
	struct learn_counters a[LEARN_ROLES][LEARN_DEVS_MAX], b[LEARN_ROLES][LEARN_DEVS_MAX];
	struct strbuf buf = STRBUF_INIT;
	char path[PATH_MAX];
	uint64_t t0, t;
	time_t now = time(NULL);
	struct tm tm;
	int ret;

	snprintf(path, sizeof(path), "%s/diskstats", o->proc);
	snprintf(fp->source, sizeof(fp->source), "diskstats");
	fp->transactions = o->transactions;
	ret = snapshot(path, fp, &buf, a, err);
	t0 = t = mono_ns();
	if (o->tracer)
		learn_trace_begin(o->tracer, t0);
	if (gmtime_r(&now, &tm))
		strftime(fp->start_utc, sizeof(fp->start_utc), "%Y-%m-%dT%H:%M:%SZ", &tm);
	while (!ret) {
		uint64_t next = t + o->step_ns, end = t0 + o->window_ns;
		bool stop = wait_until(o->signal_fd, next < end ? next : end);

		ret = snapshot(path, fp, &buf, b, err);
		t = mono_ns();
		if (o->progress)
			o->progress(o->arg, (double)(t - t0) / 1e9, (double)o->window_ns / 1e9);
		if (stop || t >= end)
			break;
	}
	fp->seconds = (double)(t - t0) / 1e9;
	if (!ret && o->tracer) {
		ret = learn_trace_end(o->tracer, t, fp->seconds, fp);
		if (ret)
			strbuf_addf(err, "BPF trace: reading the kernel's counts: %s",
				    strerror(-ret));
	}
	for (int r = 0; !ret && r < LEARN_ROLES; r++) {
		struct learn_role *role = &fp->role[r];

		memset(&role->c, 0, sizeof(role->c));
		for (size_t i = 0; role->present && i < role->where.nr_devices; i++) {
			struct learn_counters d;

			learn_counters_delta(&a[r][i], &b[r][i], &d);
			learn_counters_add(&role->c, &d, i == 0);
		}
	}
	strbuf_release(&buf);
	return ret;
}
