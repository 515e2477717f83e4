/* SPDX-License-Identifier: MIT */
/*
 * counters.c - host performance counters (counters.h): the /proc parsers,
 * the arithmetic that turns two readings into iostat's figures, and the
 * sampler the coordinator reads once per interval.
 *
 * Why it is built this way:
 *   - Parsers take the file's text and the figures take two readings, so the
 *     unit tests feed fixture text and check exact rates; only the sampler
 *     touches /proc.
 *   - A device is found by MAJ:MIN, never by name: stat gives MAJ:MIN, and
 *     /proc/diskstats prints MAJ:MIN beside the kernel's own name for the
 *     device, which is what the reports show (the name sysfs/dev/block/MAJ:MIN
 *     leads to), without a second lookup.
 *   - The sampler allocates at open only (its read buffer grows when a
 *     diskstats outgrows it, which a host adding devices mid-run may cause);
 *     a read is three small files read and parsed, tens of microseconds,
 *     once a second on the coordinator.
 *   - CPU ticks are taken as they come (saturating: the kernel's iowait
 *     count is known to step backwards on tickless CPUs), the diskstats
 *     fields by counters_delta's wrap rule (counters.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "diskproof/counters.h"
#include "env_internal.h"

/* ---- parsers ---- */

/* The line of text starting with key (at the start of a line), or NULL. */
static const char *line_find(const char *text, const char *key)
{
	size_t n = strlen(key);
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, key, n))
			return p;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return NULL;
}

/* The next unsigned number on this line after *p (blanks skipped), or
 * false at the end of the line or before something that is not a number. */
static bool next_u64(const char **p, uint64_t *v)
{
	const char *s = *p;
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	*v = strtoull(s, &end, 10);
	if (errno)
		return false;
	*p = end;
	return true;
}

int counters_parse_stat(const char *text, struct host_cpu_counters *out)
{
	uint64_t *f[] = {&out->user,   &out->nice, &out->system,  &out->idle,
			 &out->iowait, &out->irq,  &out->softirq, &out->steal};
	const char *p = line_find(text, "cpu ");
	size_t i;

	memset(out, 0, sizeof(*out));
	if (!p)
		return -EINVAL;
	p += 4;
	for (i = 0; i < DP_ARRAY_SIZE(f) && next_u64(&p, f[i]); i++)
		;
	return i >= 4 ? 0 : -EINVAL; /* user nice system idle: every kernel has them */
}

int counters_parse_meminfo(const char *text, uint64_t *available)
{
	const char *p = line_find(text, "MemAvailable:");
	uint64_t kb;

	*available = 0;
	if (!p)
		return -ENOENT;
	p += strlen("MemAvailable:");
	if (!next_u64(&p, &kb))
		return -ENOENT;
	*available = kb * 1024; /* the kernel's "kB" is KiB */
	return 0;
}

/*
 * One diskstats line: "MAJ MIN NAME" then 11 or more numbers (4.18 adds
 * four discard fields, 5.5 two flush fields). false for any other shape.
 */
static bool diskstats_line(const char *p, struct host_disk_counters *d)
{
	uint64_t *f[] = {&d->reads,	&d->read_merges,  &d->read_sectors,  &d->read_ms,
			 &d->writes,	&d->write_merges, &d->write_sectors, &d->write_ms,
			 &d->in_flight, &d->io_ms,	  &d->queue_ms};
	uint64_t maj, min;
	size_t i, len;

	if (!next_u64(&p, &maj) || !next_u64(&p, &min) || maj > UINT_MAX || min > UINT_MAX)
		return false;
	while (*p == ' ' || *p == '\t')
		p++;
	len = strcspn(p, " \t\n");
	if (!len)
		return false;
	d->major = (unsigned)maj;
	d->minor = (unsigned)min;
	snprintf(d->name, sizeof(d->name), "%.*s", (int)len, p);
	p += len;
	for (i = 0; i < DP_ARRAY_SIZE(f); i++)
		if (!next_u64(&p, f[i]))
			return false;
	return true;
}

size_t counters_parse_diskstats(const char *text, struct host_disk_counters *devs, size_t n,
				bool *found)
{
	struct host_disk_counters d;
	const char *p = text;
	size_t i, hits = 0;

	for (i = 0; i < n; i++)
		found[i] = false;
	while (p && *p) {
		memset(&d, 0, sizeof(d));
		if (diskstats_line(p, &d)) {
			for (i = 0; i < n; i++) {
				if (found[i] || devs[i].major != d.major ||
				    devs[i].minor != d.minor)
					continue;
				devs[i] = d;
				found[i] = true;
				hits++;
			}
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return hits;
}

/* ---- figures ---- */

uint64_t counters_delta(uint64_t prev, uint64_t cur)
{
	if (cur >= prev)
		return cur - prev;
	if (prev <= UINT32_MAX)
		return cur + (UINT64_C(1) << 32) - prev; /* a 32-bit field wrapped */
	return 0;					 /* reset */
}

static uint64_t tick_delta(uint64_t prev, uint64_t cur)
{
	return cur > prev ? cur - prev : 0;
}

bool counters_cpu_shares(const struct host_cpu_counters *prev, const struct host_cpu_counters *cur,
			 double *user_pct, double *system_pct, double *iowait_pct)
{
	uint64_t user = tick_delta(prev->user, cur->user) + tick_delta(prev->nice, cur->nice);
	uint64_t sys = tick_delta(prev->system, cur->system) + tick_delta(prev->irq, cur->irq) +
		       tick_delta(prev->softirq, cur->softirq);
	uint64_t iowait = tick_delta(prev->iowait, cur->iowait);
	uint64_t total = user + sys + iowait + tick_delta(prev->idle, cur->idle) +
			 tick_delta(prev->steal, cur->steal);

	if (total < HOST_CPU_MIN_TICKS)
		return false;
	*user_pct = (double)user * 100.0 / (double)total;
	*system_pct = (double)sys * 100.0 / (double)total;
	*iowait_pct = (double)iowait * 100.0 / (double)total;
	return true;
}

void counters_disk_figures(const struct host_disk_counters *prev,
			   const struct host_disk_counters *cur, uint64_t elapsed_ns,
			   struct host_dev_sample *out)
{
	double secs = (double)elapsed_ns / 1e9, ms = (double)elapsed_ns / 1e6;
	uint64_t rd_ms = counters_delta(prev->read_ms, cur->read_ms);
	uint64_t wr_ms = counters_delta(prev->write_ms, cur->write_ms);
	uint64_t io_ms = counters_delta(prev->io_ms, cur->io_ms);
	uint64_t q_ms = counters_delta(prev->queue_ms, cur->queue_ms);

	out->elapsed_ns = elapsed_ns;
	out->reads = counters_delta(prev->reads, cur->reads);
	out->writes = counters_delta(prev->writes, cur->writes);
	out->read_sectors = counters_delta(prev->read_sectors, cur->read_sectors);
	out->write_sectors = counters_delta(prev->write_sectors, cur->write_sectors);
	out->reads_per_s = (double)out->reads / secs;
	out->writes_per_s = (double)out->writes / secs;
	out->read_kbps = (double)out->read_sectors / 2.0 / secs;
	out->write_kbps = (double)out->write_sectors / 2.0 / secs;
	out->read_wait_ms = out->reads ? (double)rd_ms / (double)out->reads : NAN;
	out->write_wait_ms = out->writes ? (double)wr_ms / (double)out->writes : NAN;
	out->avg_wait_ms = out->reads + out->writes
				   ? (double)(rd_ms + wr_ms) / (double)(out->reads + out->writes)
				   : NAN;
	out->util_pct = fmin(100.0, (double)io_ms / ms * 100.0);
	out->queue = (double)q_ms / ms;
}

/* ---- the sampler ---- */

#define READ_CHUNK 4096
#define READ_MAX (16u << 20) /* a diskstats this large is not a host's */

struct host_dev {
	struct host_disk_counters prev;
	bool have_prev;
	uint64_t prev_ns;
	struct strbuf paths; /* the volume paths on it, for counters_sampler_describe */
};

struct host_sampler {
	char stat_path[PATH_MAX];
	char meminfo_path[PATH_MAX];
	char diskstats_path[PATH_MAX];
	char *buf;
	size_t cap;
	struct host_cpu_counters cpu; /* the CPU baseline, read at cpu_ns */
	uint64_t cpu_ns;
	uint64_t last_ns;
	size_t nr_devs;
	struct host_dev *devs;
	struct host_disk_counters *cur; /* scratch: this read's lines */
	bool *found;
	struct host_dev_sample *rows;
	int *path_dev; /* per path given to open: its row, or -1 (none found) */
	size_t nr_paths;
	struct strbuf skipped; /* "no block device under P; ..." */
};

/*
 * The whole file at path into s->buf, NUL-terminated; first_chunk reads only
 * what one read() gives (the first line of /proc/stat is all it needs).
 */
static int sampler_slurp(struct host_sampler *s, const char *path, bool first_chunk)
{
	size_t len = 0;
	ssize_t n;
	char *nb;
	int fd, ret = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		if (s->cap - len < READ_CHUNK) {
			if (s->cap >= READ_MAX) {
				ret = -EFBIG;
				break;
			}
			nb = realloc(s->buf, s->cap * 2);
			if (!nb) {
				ret = -ENOMEM;
				break;
			}
			s->buf = nb;
			s->cap *= 2;
		}
		n = read(fd, s->buf + len, s->cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			break;
		}
		len += (size_t)n;
		if (!n || first_chunk)
			break;
	}
	close(fd);
	s->buf[len] = '\0';
	return ret;
}

/*
 * The block device a filesystem with an anonymous st_dev sits on: the source
 * of the mountinfo line whose mount point is the longest one above real,
 * when that source is a block device (btrfs); -ENODEV otherwise (tmpfs,
 * overlay, NFS). mountinfo: "ID PARENT MAJ:MIN ROOT POINT OPTIONS [OPTIONAL
 * ...] - FSTYPE SOURCE SUPER_OPTIONS".
 */
static int mount_source_dev(const char *mountinfo, const char *real, dev_t *dev)
{
	char line[4096], best_src[PATH_MAX] = "", *f[5], *save, *t;
	size_t best = 0;
	struct stat st;
	FILE *file = fopen(mountinfo, "re");
	bool found = false;
	int i;

	if (!file)
		return -ENODEV;
	while (fgets(line, sizeof(line), file)) {
		save = NULL;
		for (i = 0; i < 5; i++)
			if (!(f[i] = strtok_r(i ? NULL : line, " \n", &save)))
				break;
		if (i < 5)
			continue;
		while ((t = strtok_r(NULL, " \n", &save)) && strcmp(t, "-"))
			; /* options, then the optional fields */
		if (!t || !strtok_r(NULL, " \n", &save) || !(t = strtok_r(NULL, " \n", &save)))
			continue; /* no "- FSTYPE SOURCE" */
		env_mount_unescape(f[4]);
		if (!path_is_under(f[4], real) || (found && strlen(f[4]) < best))
			continue;
		env_mount_unescape(t);
		snprintf(best_src, sizeof(best_src), "%s", t);
		best = strlen(f[4]);
		found = true;
	}
	fclose(file);
	if (!found || best_src[0] != '/' || stat(best_src, &st) != 0 || !S_ISBLK(st.st_mode))
		return -ENODEV;
	*dev = st.st_rdev;
	return 0;
}

/* The block device beneath path (counters.h); -ENODEV when there is none. */
static int path_dev(const char *proc, const char *path, dev_t *dev)
{
	char where[PATH_MAX], real[PATH_MAX], mountinfo[PATH_MAX];
	int ret;

	ret = env_path_dev(path, where, sizeof(where), dev);
	if (ret)
		return ret;
	if (major(*dev) != 0)
		return 0;
	if (!realpath(where, real))
		return -errno;
	snprintf(mountinfo, sizeof(mountinfo), "%s/self/mountinfo", proc);
	return mount_source_dev(mountinfo, real, dev);
}

/* Adds path to *list ("a, b") unless it is there already. */
static void paths_add(struct strbuf *list, const char *path)
{
	const char *p = list->buf, *end;
	size_t n = strlen(path);

	while (*p) {
		end = strstr(p, ", ");
		if (!end)
			end = p + strlen(p);
		if ((size_t)(end - p) == n && !strncmp(p, path, n))
			return;
		p = *end ? end + 2 : end;
	}
	if (list->len)
		strbuf_addstr(list, ", ");
	strbuf_addstr(list, path);
}

static void skipped_add(struct host_sampler *s, const char *fmt, ...) DP_PRINTF(2, 3);

static void skipped_add(struct host_sampler *s, const char *fmt, ...)
{
	va_list ap;

	if (s->skipped.len)
		strbuf_addstr(&s->skipped, "; ");
	va_start(ap, fmt);
	strbuf_vaddf(&s->skipped, fmt, ap);
	va_end(ap);
}

/* The devices under paths, one per MAJ:MIN, in the order first met. */
static void sampler_find_devices(struct host_sampler *s, const char *proc, const char *const *paths,
				 size_t n)
{
	size_t i, k;
	dev_t dev = 0; /* path_dev's -errno may be 0 (LTO sees it) */
	int ret;

	for (i = 0; i < n; i++) {
		s->path_dev[i] = -1;
		if (!paths[i] || !paths[i][0])
			continue;
		ret = path_dev(proc, paths[i], &dev);
		if (ret) {
			skipped_add(s, "no block device under %s%s", paths[i],
				    ret == -ENODEV ? "" : " (cannot stat it)");
			continue;
		}
		for (k = 0; k < s->nr_devs; k++)
			if (s->cur[k].major == major(dev) && s->cur[k].minor == minor(dev))
				break;
		if (k == s->nr_devs) {
			memset(&s->cur[k], 0, sizeof(s->cur[k]));
			s->cur[k].major = major(dev);
			s->cur[k].minor = minor(dev);
			strbuf_init(&s->devs[k].paths);
			s->nr_devs++;
		}
		paths_add(&s->devs[k].paths, paths[i]);
		s->path_dev[i] = (int)k;
	}
}

/* The paths on row from now on row to (-1: none). */
static void paths_renumber(struct host_sampler *s, int from, int to)
{
	for (size_t i = 0; i < s->nr_paths; i++)
		if (s->path_dev[i] == from)
			s->path_dev[i] = to;
}

/* Drops the devices that diskstats does not list (names them in skipped). */
static void sampler_keep_listed(struct host_sampler *s)
{
	char mm[32];
	size_t i, k = 0;

	for (i = 0; i < s->nr_devs; i++) {
		if (!s->found[i]) {
			snprintf(mm, sizeof(mm), "%u:%u", s->cur[i].major, s->cur[i].minor);
			skipped_add(s, "%s: device %s is not in /proc/diskstats",
				    s->devs[i].paths.buf, mm);
			strbuf_release(&s->devs[i].paths);
			paths_renumber(s, (int)i, -1);
			continue;
		}
		s->devs[k] = s->devs[i];
		s->cur[k] = s->cur[i];
		paths_renumber(s, (int)i, (int)k);
		k++;
	}
	s->nr_devs = k;
}

static int sampler_fail(struct strbuf *err, int ret, const char *what, const char *path)
{
	strbuf_addf(err, "host counters: %s %s: %s", what, path, strerror(-ret));
	return ret;
}

/* Reads /proc/stat into *cpu. */
static int sampler_read_cpu(struct host_sampler *s, struct host_cpu_counters *cpu)
{
	int ret = sampler_slurp(s, s->stat_path, true);

	return ret ? ret : counters_parse_stat(s->buf, cpu);
}

int counters_sampler_open_at(struct host_sampler **out, const char *proc, const char *const *paths,
			     size_t n, uint64_t now_ns, struct strbuf *err)
{
	struct host_sampler *s;
	size_t i;
	int ret;

	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		goto out_nomem;
	strbuf_init(&s->skipped);
	snprintf(s->stat_path, sizeof(s->stat_path), "%s/stat", proc);
	snprintf(s->meminfo_path, sizeof(s->meminfo_path), "%s/meminfo", proc);
	snprintf(s->diskstats_path, sizeof(s->diskstats_path), "%s/diskstats", proc);
	s->cap = 4 * READ_CHUNK;
	s->buf = malloc(s->cap);
	s->devs = calloc(n ? n : 1, sizeof(*s->devs));
	s->cur = calloc(n ? n : 1, sizeof(*s->cur));
	s->found = calloc(n ? n : 1, sizeof(*s->found));
	s->rows = calloc(n ? n : 1, sizeof(*s->rows));
	s->path_dev = calloc(n ? n : 1, sizeof(*s->path_dev));
	s->nr_paths = n;
	if (!s->buf || !s->devs || !s->cur || !s->found || !s->rows || !s->path_dev)
		goto out_nomem;
	ret = sampler_read_cpu(s, &s->cpu);
	if (ret) {
		sampler_fail(err, ret, "read", s->stat_path);
		goto out_close;
	}
	s->cpu_ns = s->last_ns = now_ns;
	sampler_find_devices(s, proc, paths, n);
	if (s->nr_devs) {
		ret = sampler_slurp(s, s->diskstats_path, false);
		if (ret) {
			sampler_fail(err, ret, "read", s->diskstats_path);
			goto out_close;
		}
		counters_parse_diskstats(s->buf, s->cur, s->nr_devs, s->found);
		sampler_keep_listed(s);
	}
	for (i = 0; i < s->nr_devs; i++) {
		s->devs[i].prev = s->cur[i];
		s->devs[i].have_prev = true;
		s->devs[i].prev_ns = now_ns;
		snprintf(s->rows[i].name, sizeof(s->rows[i].name), "%s", s->cur[i].name);
	}
	*out = s;
	return 0;

out_nomem:
	strbuf_addstr(err, "host counters: out of memory");
	ret = -ENOMEM;
out_close:
	counters_sampler_close(s);
	return ret;
}

int counters_sampler_open(struct host_sampler **out, const char *const *paths, size_t n,
			  uint64_t now_ns, struct strbuf *err)
{
	return counters_sampler_open_at(out, "/proc", paths, n, now_ns, err);
}

/* CPU shares since the CPU baseline, when enough ticks have passed. */
static int sampler_cpu(struct host_sampler *s, uint64_t now_ns, struct host_sample *out)
{
	struct host_cpu_counters cpu;
	int ret = sampler_read_cpu(s, &cpu);

	if (ret)
		return ret;
	if (!counters_cpu_shares(&s->cpu, &cpu, &out->cpu_user_pct, &out->cpu_system_pct,
				 &out->cpu_iowait_pct))
		return 0;
	out->has_cpu = true;
	out->cpu_elapsed_ns = now_ns - s->cpu_ns;
	s->cpu = cpu;
	s->cpu_ns = now_ns;
	return 0;
}

/*
 * Each device against its own baseline: a device missing from this read
 * (removed) has no row and loses its baseline; back again, its next read
 * starts a new one (its counters started again from 0).
 */
static int sampler_devices(struct host_sampler *s, uint64_t now_ns)
{
	struct host_dev *d;
	size_t i;
	int ret;

	for (i = 0; i < s->nr_devs; i++) {
		s->rows[i].valid = false;
		s->cur[i].major = s->devs[i].prev.major;
		s->cur[i].minor = s->devs[i].prev.minor;
	}
	if (!s->nr_devs)
		return 0;
	ret = sampler_slurp(s, s->diskstats_path, false);
	if (ret)
		return ret;
	counters_parse_diskstats(s->buf, s->cur, s->nr_devs, s->found);
	for (i = 0; i < s->nr_devs; i++) {
		d = &s->devs[i];
		if (!s->found[i]) {
			d->have_prev = false;
			continue;
		}
		if (d->have_prev && now_ns <= d->prev_ns)
			continue; /* no time has passed: keep the baseline */
		if (d->have_prev) {
			counters_disk_figures(&d->prev, &s->cur[i], now_ns - d->prev_ns,
					      &s->rows[i]);
			s->rows[i].valid = true;
		}
		d->prev = s->cur[i];
		d->have_prev = true;
		d->prev_ns = now_ns;
	}
	return 0;
}

int counters_sampler_read(struct host_sampler *s, uint64_t now_ns, struct host_sample *out)
{
	int ret;

	memset(out, 0, sizeof(*out));
	ret = sampler_cpu(s, now_ns, out);
	if (ret)
		return ret;
	if (!sampler_slurp(s, s->meminfo_path, false) &&
	    !counters_parse_meminfo(s->buf, &out->mem_available))
		out->has_mem = true;
	ret = sampler_devices(s, now_ns);
	if (ret) {
		memset(out, 0, sizeof(*out));
		return ret;
	}
	out->elapsed_ns = now_ns > s->last_ns ? now_ns - s->last_ns : 0;
	if (now_ns > s->last_ns)
		s->last_ns = now_ns;
	out->devs = s->rows;
	out->nr_devs = s->nr_devs;
	return 0;
}

void counters_sampler_describe(const struct host_sampler *s, struct strbuf *out)
{
	size_t i;

	strbuf_addstr(out, "CPU, memory");
	for (i = 0; i < s->nr_devs; i++)
		strbuf_addf(out, "%s %s (%s)", i ? "," : "; devices", s->rows[i].name,
			    s->devs[i].paths.buf);
	if (s->skipped.len)
		strbuf_addf(out, "; %s", s->skipped.buf);
}

void counters_sampler_close(struct host_sampler *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; s->devs && i < s->nr_devs; i++)
		strbuf_release(&s->devs[i].paths);
	strbuf_release(&s->skipped);
	free(s->buf);
	free(s->devs);
	free(s->cur);
	free(s->found);
	free(s->rows);
	free(s->path_dev);
	free(s);
}

int counters_sampler_path_row(const struct host_sampler *s, size_t i)
{
	return s && i < s->nr_paths ? s->path_dev[i] : -1;
}
