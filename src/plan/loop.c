/* SPDX-License-Identifier: MIT */
/*
 * loop.c - the file behind a loop device, for its locks (lock.c). Two loop
 * devices over one image are one storage, so a loop device is locked
 * through that file too: flock() on the file itself is seen by every mount
 * namespace that can open it, where /run/lock may be private to each.
 *
 * Which file it is comes from LOOP_GET_STATUS64 (its filesystem's device
 * and its inode), the same in every namespace. Its path comes from
 * /sys/dev/block/M:m/loop/backing_file, which is the path as the namespace
 * that set the device up saw it: here it may be missing, "... (deleted)",
 * or another file, so what it opens is checked against the identity.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <linux/major.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "plan_internal.h"

#define DELETED_SUFFIX " (deleted)"

/* The kernel's huge_encode_dev() (lo_device) back to a dev_t. */
static dev_t loop_dev_decode(uint64_t x)
{
	return makedev((unsigned)((x & 0xfff00) >> 8),
		       (unsigned)((x & 0xff) | ((x >> 12) & 0xfff00)));
}

/* The backing file's path as /sys gives it, into b->path ("" when none). */
static void loop_sys_path(dev_t rdev, struct plan_loop_backing *b)
{
	char sys[96];
	ssize_t n = -1;
	int fd;

	snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u/loop/backing_file", major(rdev),
		 minor(rdev));
	fd = open(sys, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, b->path, sizeof(b->path) - 1);
		close(fd);
	}
	b->path[n > 0 ? n : 0] = '\0';
	b->path[strcspn(b->path, "\n")] = '\0';
}

int plan_loop_backing(const char *path, dev_t rdev, struct plan_loop_backing *b, struct strbuf *why)
{
	struct loop_info64 info;
	int fd, ret = 0;

	memset(b, 0, sizeof(*b));
	if (major(rdev) != LOOP_MAJOR)
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		ret = -errno;
		strbuf_addf(why, "cannot open %s to find the file behind it: %s", path,
			    strerror(-ret));
		return ret;
	}
	if (ioctl(fd, LOOP_GET_STATUS64, &info) != 0) {
		ret = -errno;
		if (ret != -ENXIO) /* ENXIO: no file bound; nothing behind it */
			strbuf_addf(why,
				    "cannot find the file behind the loop device "
				    "(LOOP_GET_STATUS64): %s",
				    strerror(-ret));
		goto out_close;
	}
	b->dev = loop_dev_decode(info.lo_device);
	b->ino = (ino_t)info.lo_inode;
	loop_sys_path(rdev, b);
	ret = 1;
out_close:
	close(fd);
	return ret == -ENXIO ? 0 : ret;
}

int plan_loop_backing_open(const struct plan_loop_backing *b, struct strbuf *why)
{
	const char *lead = "cannot lock the file behind the loop device";
	size_t n = strlen(b->path), dl = strlen(DELETED_SUFFIX);
	struct stat st;
	int fd, ret;

	if (!n) {
		strbuf_addf(why, "%s (device %u:%u, inode %llu): /sys does not name it", lead,
			    major(b->dev), minor(b->dev), (unsigned long long)b->ino);
		return -ENOENT;
	}
	if (n > dl && !strcmp(b->path + n - dl, DELETED_SUFFIX)) {
		strbuf_addf(why, "%s (%s): it was deleted, nothing can open it", lead, b->path);
		return -ENOENT;
	}
	fd = open(b->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		ret = -errno;
		strbuf_addf(why, "%s: %s: %s", lead, b->path, strerror(-ret));
		return ret;
	}
	if (fstat(fd, &st) != 0 || st.st_dev != b->dev || st.st_ino != b->ino) {
		strbuf_addf(why,
			    "%s: %s is another file in this mount namespace (the device's is on "
			    "device %u:%u, inode %llu)",
			    lead, b->path, major(b->dev), minor(b->dev),
			    (unsigned long long)b->ino);
		close(fd);
		return -ENOENT;
	}
	return fd;
}
