/* SPDX-License-Identifier: MIT */
/*
 * fs.c - whether overwrites of a file need new space: on a copy-on-write
 * filesystem every overwrite is written to a new place, so writing over
 * preallocated files fails when the filesystem is full (env.h,
 * env_fs_cow). Read from the filesystem type (statfs), btrfs's NOCOW
 * attribute (FS_IOC_GETFLAGS) and nodatacow mount option, and XFS's reflink
 * feature (XFS_IOC_FSGEOMETRY). Looks only.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <linux/fs.h>

#include "diskproof/env.h"

#define FS_MAGIC_BTRFS 0x9123683eu
#define FS_MAGIC_XFS 0x58465342u
#define FS_MAGIC_ZFS 0x2fc12fc1u
#define FS_MAGIC_BCACHEFS 0xca451a4eu

/* XFS's geometry, version 1 of the ioctl (every XFS answers it; the flags
 * are filled whatever the version asked). From xfs_fs.h, which is not
 * always installed. */
struct xfs_geom_v1 {
	uint32_t blocksize, rtextsize, agblocks, agcount, logblocks, sectsize, inodesize, imaxpct;
	uint64_t datablocks, rtblocks, rtextents, logstart;
	unsigned char uuid[16];
	uint32_t sunit, swidth;
	int32_t version;
	uint32_t flags;
	uint32_t logsectsize, rtsectsize, dirblocksize;
};
#define XFS_IOC_GEOMETRY_V1 _IOR('X', 100, struct xfs_geom_v1)
#define XFS_GEOM_FLAGS_REFLINK (1u << 20)

/* The inode flags of path (FS_IOC_GETFLAGS), or -errno. */
static long inode_flags(const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC), flags = 0;
	long ret;

	if (fd < 0)
		return -errno;
	ret = ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0 ? (long)(unsigned)flags : -errno;
	close(fd);
	return ret;
}

/* btrfs: files there copy on write unless NOCOW (the file's own flag; for
 * a directory, the flag its new files inherit, or the nodatacow mount
 * option). */
static bool btrfs_cow(const char *path, const struct stat *st)
{
	long flags = inode_flags(path);
	struct env_mount m;

	if (flags >= 0 && (flags & FS_NOCOW_FL))
		return false;
	if (!S_ISDIR(st->st_mode))
		return true;
	return !(env_mount_find("/proc/self/mountinfo", path, &m) == 0 &&
		 (strstr(m.super_opts, "nodatacow") || strstr(m.options, "nodatacow")));
}

/* XFS: with reflink, a file whose blocks are shared (a reflink copy, a
 * snapshot) copies them on write; without it, never. */
static bool xfs_reflink(const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	struct xfs_geom_v1 g;
	bool yes;

	if (fd < 0)
		return false;
	memset(&g, 0, sizeof(g));
	yes = ioctl(fd, XFS_IOC_GEOMETRY_V1, &g) == 0 && (g.flags & XFS_GEOM_FLAGS_REFLINK);
	close(fd);
	return yes;
}

bool env_fs_cow(const char *path, struct strbuf *what)
{
	char probe[PATH_MAX];
	struct statfs fs;
	struct stat st;
	const char *name = NULL;

	(void)path_nearest_existing(path, probe, sizeof(probe));
	if (statfs(probe, &fs) != 0 || lstat(probe, &st) != 0 || S_ISBLK(st.st_mode))
		return false;
	switch ((uint32_t)fs.f_type) {
	case FS_MAGIC_BTRFS:
		name = btrfs_cow(probe, &st) ? "btrfs" : NULL;
		break;
	case FS_MAGIC_XFS:
		name = xfs_reflink(probe) ? "XFS with reflink" : NULL;
		break;
	case FS_MAGIC_ZFS:
		name = "ZFS";
		break;
	case FS_MAGIC_BCACHEFS:
		name = "bcachefs";
		break;
	}
	if (name && what)
		strbuf_addstr(what, name);
	return name != NULL;
}
