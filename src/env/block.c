/* SPDX-License-Identifier: MIT */
/*
 * block.c - block devices and mounts as sysfs and procfs describe them (see
 * env.h): which device holds a path, the whole disks beneath a partition or
 * a device-mapper / md device, a disk's model, firmware, queue settings and
 * NUMA node, its write cache, FUA and atomic write unit, and the mount of a
 * path from mountinfo; and the probes of a device that plan and verify need:
 * the direct-I/O alignment at a path (STATX_DIOALIGN, BLKSSZGET, sysfs), the
 * atomic write unit (STATX_WRITE_ATOMIC), whether a path is a block device and
 * its size (BLKGETSIZE64), and what a device carries (libblkid signatures).
 * Reads only; the sysfs readers take the sysfs root so that the unit tests
 * can use a fixture tree.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <linux/fs.h>

#include <blkid/blkid.h>

#include "diskproof/env.h"
#include "env_internal.h"

int env_read_line(const char *path, char *out, size_t len)
{
	FILE *f = fopen(path, "re");
	size_t n;
	int ret = 0;

	if (!f) {
		ret = -errno;
		goto out_unknown;
	}
	if (!fgets(out, (int)len, f)) {
		ret = ferror(f) ? -EIO : -ENODATA;
		fclose(f);
		goto out_unknown;
	}
	fclose(f);
	n = strlen(out);
	while (n && (out[n - 1] == '\n' || out[n - 1] == ' ' || out[n - 1] == '\t'))
		out[--n] = '\0';
	if (n)
		return 0;
	ret = -ENODATA;
out_unknown:
	snprintf(out, len, "unknown");
	return ret;
}

void env_copy(char *out, size_t len, const char *s)
{
	size_t n = strnlen(s, len - 1);

	memcpy(out, s, n);
	out[n] = '\0';
}

int env_read_at(const char *dir, const char *rel, char *out, size_t len)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/%s", dir, rel) >= (int)sizeof(path)) {
		snprintf(out, len, "unknown");
		return -ENAMETOOLONG;
	}
	return env_read_line(path, out, len);
}

const char *env_active_choice(char *val)
{
	char *open = strchr(val, '['), *close = open ? strchr(open, ']') : NULL;

	if (!open || !close)
		return val;
	*close = '\0';
	memmove(val, open + 1, (size_t)(close - open));
	return val;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

int env_dev_name(const char *sysfs, unsigned major, unsigned minor, char *name, size_t len)
{
	char link[PATH_MAX], real[PATH_MAX];

	snprintf(link, sizeof(link), "%s/dev/block/%u:%u", sysfs, major, minor);
	if (!realpath(link, real))
		return -ENODEV;
	env_copy(name, len, base_name(real));
	return 0;
}

int env_path_dev(const char *path, char *where, size_t len, dev_t *dev)
{
	struct stat st;
	int ret;

	ret = path_nearest_existing(path, where, len);
	if (ret)
		return ret;
	if (stat(where, &st) != 0)
		return -errno;
	*dev = S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev;
	return 0;
}

int env_path_device(const char *sysfs, const char *path, char *name, size_t len)
{
	char where[PATH_MAX];
	dev_t dev = 0; /* env_path_dev's -errno may be 0 (LTO sees it) */
	int ret;

	ret = env_path_dev(path, where, sizeof(where), &dev);
	if (ret)
		return ret;
	if (major(dev) == 0) /* anonymous: tmpfs, NFS, overlay, btrfs subvolumes */
		return -ENODEV;
	return env_dev_name(sysfs, major(dev), minor(dev), name, len);
}

/* Adds name to the sorted set disks[0..*n). */
static int disks_add(char (*disks)[ENV_NAME_MAX], size_t max, size_t *n, const char *name)
{
	size_t i = 0;
	int c = 1;

	while (i < *n && (c = strcmp(disks[i], name)) < 0)
		i++;
	if (i < *n && c == 0)
		return 0;
	if (*n == max)
		return -E2BIG;
	memmove(disks[i + 1], disks[i], (*n - i) * sizeof(disks[0]));
	snprintf(disks[i], ENV_NAME_MAX, "%s", name);
	(*n)++;
	return 0;
}

static int disks_collect(const char *sysfs, const char *name, char (*disks)[ENV_NAME_MAX],
			 size_t max, size_t *n, unsigned depth)
{
	char dir[PATH_MAX], sub[PATH_MAX + 16], real[PATH_MAX];
	struct dirent *e;
	struct stat st;
	bool any = false;
	DIR *d;
	int ret = 0;

	if (depth > 8) /* stacked deeper than any real system: a loop */
		return -ELOOP;
	snprintf(dir, sizeof(dir), "%s/class/block/%s", sysfs, name);
	if (stat(dir, &st) != 0)
		return -ENOENT;
	snprintf(sub, sizeof(sub), "%s/partition", dir);
	if (stat(sub, &st) == 0 && realpath(dir, real)) {
		/* sysfs nests a partition in its disk's directory */
		char *slash = strrchr(real, '/');

		if (slash) {
			*slash = '\0';
			return disks_collect(sysfs, base_name(real), disks, max, n, depth + 1);
		}
	}
	snprintf(sub, sizeof(sub), "%s/slaves", dir);
	d = opendir(sub);
	while (d && (e = readdir(d))) {
		int r;

		if (e->d_name[0] == '.')
			continue;
		any = true;
		r = disks_collect(sysfs, e->d_name, disks, max, n, depth + 1);
		if (r && !ret)
			ret = r;
	}
	if (d)
		closedir(d);
	if (!any)
		ret = disks_add(disks, max, n, name);
	return ret;
}

int env_block_disks(const char *sysfs, const char *name, char (*disks)[ENV_NAME_MAX], size_t max,
		    size_t *n)
{
	*n = 0;
	return disks_collect(sysfs, name, disks, max, n, 0);
}

/* The NUMA node of a disk: device/numa_node, else the first numa_node up
 * the device's path (a SCSI disk's is its host adapter's PCI function). */
static int disk_numa_node(const char *sysfs, const char *dir)
{
	char path[PATH_MAX + 16], real[PATH_MAX], root[PATH_MAX], val[32];
	char *slash;

	if (env_read_at(dir, "device/numa_node", val, sizeof(val)) == 0)
		return atoi(val) >= 0 ? atoi(val) : -1;
	snprintf(path, sizeof(path), "%s/device", dir);
	if (!realpath(path, real) || !realpath(sysfs, root))
		return -1;
	while ((slash = strrchr(real, '/')) && strlen(real) > strlen(root)) {
		*slash = '\0';
		if (env_read_at(real, "numa_node", val, sizeof(val)) == 0)
			return atoi(val) >= 0 ? atoi(val) : -1;
	}
	return -1;
}

/* What the device says of its own cache: virtio-blk's cache_type, else
 * the SCSI disk's device/scsi_disk/H:C:T:L/cache_type, else "unknown". */
static void disk_device_cache(const char *dir, char *out, size_t len)
{
	char sub[PATH_MAX + 32];
	struct dirent *e;
	DIR *d;

	if (env_read_at(dir, "cache_type", out, len) == 0)
		return;
	snprintf(sub, sizeof(sub), "%s/device/scsi_disk", dir);
	d = opendir(sub);
	if (!d)
		return;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.') {
			char rel[NAME_MAX + 32];

			snprintf(rel, sizeof(rel), "device/scsi_disk/%s/cache_type", e->d_name);
			env_read_at(dir, rel, out, len);
			break;
		}
	closedir(d);
}

/* The disk's write cache, FUA and atomic write facts. */
static void disk_durability(const char *dir, struct env_disk *d)
{
	env_read_at(dir, "queue/write_cache", d->write_cache, sizeof(d->write_cache));
	env_read_at(dir, "queue/fua", d->fua, sizeof(d->fua));
	disk_device_cache(dir, d->device_cache, sizeof(d->device_cache));
	env_read_at(dir, "queue/atomic_write_unit_min_bytes", d->atomic_write_unit_min,
		    sizeof(d->atomic_write_unit_min));
	env_read_at(dir, "queue/atomic_write_unit_max_bytes", d->atomic_write_unit_max,
		    sizeof(d->atomic_write_unit_max));
	env_read_at(dir, "queue/atomic_write_max_bytes", d->atomic_write_max,
		    sizeof(d->atomic_write_max));
}

void env_disk_read(const char *sysfs, const char *name, struct env_disk *d)
{
	char dir[PATH_MAX], val[64];

	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "%s", name);
	snprintf(dir, sizeof(dir), "%s/class/block/%s", sysfs, name);
	env_read_at(dir, "device/model", d->model, sizeof(d->model));
	if (env_read_at(dir, "device/firmware_rev", d->firmware, sizeof(d->firmware)))
		env_read_at(dir, "device/rev", d->firmware, sizeof(d->firmware));
	if (env_read_at(dir, "device/serial", d->serial, sizeof(d->serial)))
		env_read_at(dir, "serial", d->serial, sizeof(d->serial));
	env_read_at(dir, "queue/rotational", d->rotational, sizeof(d->rotational));
	env_read_at(dir, "queue/scheduler", d->scheduler, sizeof(d->scheduler));
	env_active_choice(d->scheduler);
	env_read_at(dir, "queue/nr_requests", d->nr_requests, sizeof(d->nr_requests));
	disk_durability(dir, d);
	env_read_at(dir, "queue/logical_block_size", d->logical_block_size,
		    sizeof(d->logical_block_size));
	env_read_at(dir, "queue/physical_block_size", d->physical_block_size,
		    sizeof(d->physical_block_size));
	if (env_read_at(dir, "size", val, sizeof(val)) == 0)
		snprintf(d->size_bytes, sizeof(d->size_bytes), "%llu",
			 strtoull(val, NULL, 10) * 512ULL);
	else
		snprintf(d->size_bytes, sizeof(d->size_bytes), "unknown");
	d->numa_node = disk_numa_node(sysfs, dir);
}

void env_mount_unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

/*
 * One mountinfo line: "ID PARENT MAJ:MIN ROOT POINT OPTIONS [OPTIONAL...] -
 * FSTYPE SOURCE SUPER_OPTIONS". 0, or -EINVAL for a line of another shape.
 */
static int mount_parse(char *line, struct env_mount *m)
{
	char *f[6], *save = NULL, *t;
	int i;

	for (i = 0; i < 6; i++) {
		f[i] = strtok_r(i ? NULL : line, " \n", &save);
		if (!f[i])
			return -EINVAL;
	}
	while ((t = strtok_r(NULL, " \n", &save)) && strcmp(t, "-"))
		; /* optional fields */
	if (!t)
		return -EINVAL;
	env_mount_unescape(f[4]);
	snprintf(m->point, sizeof(m->point), "%s", f[4]);
	snprintf(m->options, sizeof(m->options), "%s", f[5]);
	t = strtok_r(NULL, " \n", &save);
	snprintf(m->fstype, sizeof(m->fstype), "%s", t ? t : "unknown");
	t = t ? strtok_r(NULL, " \n", &save) : NULL;
	if (t)
		env_mount_unescape(t);
	snprintf(m->source, sizeof(m->source), "%s", t ? t : "unknown");
	t = t ? strtok_r(NULL, " \n", &save) : NULL;
	snprintf(m->super_opts, sizeof(m->super_opts), "%s", t ? t : "unknown");
	return 0;
}

int env_mount_find(const char *mountinfo, const char *path, struct env_mount *m)
{
	char where[PATH_MAX], real[PATH_MAX], line[4096];
	struct env_mount cur;
	size_t best = 0;
	bool found = false;
	FILE *f;
	int ret;

	ret = path_nearest_existing(path, where, sizeof(where));
	if (ret)
		return ret;
	if (!realpath(where, real))
		return -errno;
	f = fopen(mountinfo, "re");
	if (!f)
		return -errno;
	/* the longest mount point above the path; of equal ones the last
	 * mounted, which hides the others */
	while (fgets(line, sizeof(line), f)) {
		if (mount_parse(line, &cur) || !path_is_under(cur.point, real))
			continue;
		if (!found || strlen(cur.point) >= best) {
			*m = cur;
			best = strlen(cur.point);
			found = true;
		}
	}
	fclose(f);
	return found ? 0 : -ENOENT;
}

/* The logical block size of the disk holding st, from sysfs (a partition's
 * queue settings live on its parent disk); 0 when unknown. */
static uint32_t sysfs_logical_block(const struct stat *st)
{
	dev_t dev = S_ISBLK(st->st_mode) ? st->st_rdev : st->st_dev;

	for (int parent = 0; parent < 2; parent++) {
		char path[128];
		unsigned v = 0;
		FILE *f;

		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/%squeue/logical_block_size",
			 major(dev), minor(dev), parent ? "../" : "");
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%u", &v) != 1)
			v = 0;
		fclose(f);
		if (v)
			return v;
	}
	return 0;
}

/*
 * Direct-I/O offset alignment at path (a directory, file or block device):
 * STATX_DIOALIGN of a file there (an unnamed O_TMPFILE for a directory, since
 * directories do not report it), else the device's logical block size
 * (BLKSSZGET, then sysfs), else 4 KiB.
 */
uint32_t env_dio_alignment(const char *path)
{
	struct statx stx;
	struct stat st;
	uint32_t v;
	int fd, lbs = 0;

	if (stat(path, &st) != 0)
		return 4096;
	if (S_ISBLK(st.st_mode)) {
		fd = open(path, O_RDONLY);
		if (fd >= 0) {
			if (ioctl(fd, BLKSSZGET, &lbs) != 0)
				lbs = 0;
			close(fd);
		}
		if (lbs > 0)
			return (uint32_t)lbs;
	} else {
		/* O_NONBLOCK: a FIFO at a volume's path must not hang the plan */
		fd = S_ISDIR(st.st_mode) ? open(path, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600)
					 : open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd >= 0) {
			int ok = statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) == 0 &&
				 (stx.stx_mask & STATX_DIOALIGN) && stx.stx_dio_offset_align;

			close(fd);
			if (ok)
				return stx.stx_dio_offset_align;
		}
	}
	v = sysfs_logical_block(&st);
	return v ? v : 4096;
}

/*
 * STATX_WRITE_ATOMIC (Linux 6.11, include/uapi/linux/stat.h) is newer than
 * glibc 2.36's and the kernel headers' struct statx here: the mask bit and
 * the offsets of stx_atomic_write_unit_min and _max (0xa8, 0xac, in what
 * those headers still call spare space; the struct is 0x100 bytes in both)
 * are the kernel's ABI, taken from that header.
 */
#ifndef STATX_WRITE_ATOMIC
#define STATX_WRITE_ATOMIC 0x00010000U
#endif
#define STX_ATOMIC_UNIT_MIN_OFFSET 0xa8
#define STX_ATOMIC_UNIT_MAX_OFFSET 0xac
_Static_assert(sizeof(struct statx) == 0x100, "struct statx is the kernel's 256 bytes");

int env_atomic_write(const char *path, uint32_t *unit_min, uint32_t *unit_max)
{
	struct statx stx;
	struct stat st;
	int fd, ret = 0;

	*unit_min = *unit_max = 0;
	if (stat(path, &st) != 0)
		return -errno;
	/* O_NONBLOCK: a FIFO at a volume's path must not hang */
	fd = S_ISDIR(st.st_mode) ? open(path, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600)
				 : open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	memset(&stx, 0, sizeof(stx));
	if (statx(fd, "", AT_EMPTY_PATH, STATX_WRITE_ATOMIC, &stx) != 0)
		ret = -errno;
	else if (!(stx.stx_mask & STATX_WRITE_ATOMIC))
		ret = -EOPNOTSUPP;
	else {
		memcpy(unit_min, (const char *)&stx + STX_ATOMIC_UNIT_MIN_OFFSET,
		       sizeof(*unit_min));
		memcpy(unit_max, (const char *)&stx + STX_ATOMIC_UNIT_MAX_OFFSET,
		       sizeof(*unit_max));
	}
	close(fd);
	return ret;
}

/* Block-device facts of path: true when it is one, with its size. */
bool env_block_device(const char *path, uint64_t *size)
{
	struct stat st;
	int fd;

	*size = 0;
	if (stat(path, &st) != 0 || !S_ISBLK(st.st_mode))
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (ioctl(fd, BLKGETSIZE64, size) != 0)
			*size = 0;
		close(fd);
	}
	return true;
}

/*
 * What a block device carries, from libblkid: "" when nothing is recognised,
 * else e.g. "an ext4 filesystem (LABEL=data)" or "a dos partition table".
 */
void env_device_signature(const char *path, struct strbuf *out)
{
	blkid_probe pr = blkid_new_probe_from_filename(path);
	const char *type = NULL, *usage = NULL, *label = NULL, *pttype = NULL;

	if (!pr)
		return;
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_USAGE |
						      BLKID_SUBLKS_LABEL);
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_MAGIC);
	if (blkid_do_safeprobe(pr) == 0) {
		blkid_probe_lookup_value(pr, "TYPE", &type, NULL);
		blkid_probe_lookup_value(pr, "USAGE", &usage, NULL);
		blkid_probe_lookup_value(pr, "LABEL", &label, NULL);
		blkid_probe_lookup_value(pr, "PTTYPE", &pttype, NULL);
		if (type)
			strbuf_addf(out, "a%s %s %s%s%s%s", type[0] == 'e' ? "n" : "", type,
				    usage && !strcmp(usage, "raid") ? "RAID member" : "filesystem",
				    label ? " (LABEL=" : "", label ? label : "", label ? ")" : "");
		else if (pttype)
			strbuf_addf(out, "a %s partition table", pttype);
	}
	blkid_free_probe(pr);
}
