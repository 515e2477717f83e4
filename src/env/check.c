/* SPDX-License-Identifier: MIT */
/*
 * check.c - the probes and rules of "diskproof check" (check.h): pure rules
 * that judge facts they are given, and the direct I/O probe, which writes a
 * temporary file that outlives nothing (a device is only read). Nothing here
 * prints: cli/cmd_check.c gathers the facts and prints the findings.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diskproof/check.h"

/* ---- rules ---- */

static bool opt_has(const char *opts, const char *opt)
{
	size_t n = strlen(opt);

	for (const char *p = opts; (p = strstr(p, opt)); p += n)
		if ((p == opts || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
			return true;
	return false;
}

enum env_check_level env_check_fs(const struct env_mount *m, const char **why)
{
	static const char *const not_disk[] = {"tmpfs", "ramfs", "proc", "sysfs", "devtmpfs"};
	static const char *const remote[] = {"nfs",	 "cifs", "smb3",      "9p",
					     "virtiofs", "ceph", "glusterfs", "fuse"};
	enum env_check_level lv = ENV_CHECK_OK;

	*why = "";
	for (size_t i = 0; i < DP_ARRAY_SIZE(not_disk); i++)
		if (!strcmp(m->fstype, not_disk[i])) {
			lv = ENV_CHECK_WARN;
			*why = ": not a disk (memory, or the kernel's): the figures say nothing "
			       "about storage";
		}
	for (size_t i = 0; i < DP_ARRAY_SIZE(remote); i++)
		if (!strncmp(m->fstype, remote[i], strlen(remote[i]))) {
			lv = ENV_CHECK_WARN;
			*why = ": a network or host-shared filesystem: its latencies include the "
			       "path to the server";
		}
	if (!strcmp(m->fstype, "overlay")) {
		lv = ENV_CHECK_WARN;
		*why = ": an overlay (a container's writable layer), not the volume a database "
		       "would use";
	}
	if (opt_has(m->super_opts, "nobarrier") || opt_has(m->super_opts, "barrier=0")) {
		lv = ENV_CHECK_WARN;
		*why = ": write barriers are off: log writes are acknowledged before they are "
		       "safe, and look faster than they are";
	}
	if (opt_has(m->options, "ro") || opt_has(m->super_opts, "ro")) {
		lv = ENV_CHECK_FAIL;
		*why = ": mounted read-only";
	}
	return lv;
}

enum env_check_level env_check_governor(bool powersave)
{
	return powersave ? ENV_CHECK_WARN : ENV_CHECK_OK;
}

enum env_check_level env_check_memory(uint64_t need, uint64_t avail, const char **why)
{
	*why = "";
	if (!avail)
		return ENV_CHECK_OK;
	if (need > avail) {
		*why = ": not enough";
		return ENV_CHECK_FAIL;
	}
	if (need > avail / 2) {
		*why = ": more than half of it (the page cache and the rest of the machine need "
		       "room too)";
		return ENV_CHECK_WARN;
	}
	return ENV_CHECK_OK;
}

uint64_t env_nofile_need(uint64_t databases)
{
	return 2 * databases + 64;
}

enum env_check_level env_check_nofile(uint64_t need, uint64_t hard_limit)
{
	return hard_limit != UINT64_MAX && hard_limit < need ? ENV_CHECK_FAIL : ENV_CHECK_OK;
}

enum env_check_level env_check_space(uint64_t need, uint64_t free, bool free_known)
{
	if (!free_known)
		return ENV_CHECK_WARN;
	return need <= free ? ENV_CHECK_OK : ENV_CHECK_FAIL;
}

enum env_check_level env_check_numa_volume(uint64_t node_mask)
{
	return node_mask & (node_mask - 1) ? ENV_CHECK_WARN : ENV_CHECK_OK;
}

enum env_check_level env_check_numa_worker(enum env_check_level lv, int place_ret, bool placed,
					   enum profile_affinity affinity, unsigned nr_nodes)
{
	if (place_ret)
		return ENV_CHECK_FAIL;
	if (affinity == PROFILE_AFFINITY_SOFT && nr_nodes > 1 && !placed && lv == ENV_CHECK_OK)
		return ENV_CHECK_WARN; /* a node to prefer, and the worker is not on it */
	return lv;
}

/* ---- the direct I/O probe ---- */

/*
 * An unnamed temporary file in dir (O_TMPFILE); where the filesystem has no
 * O_TMPFILE, a named one removed at once. -errno; *direct_refused when the
 * file could be made without O_DIRECT but not with it.
 */
static int temp_open(const char *dir, int flags, bool *direct_refused)
{
	char name[PATH_MAX];
	int fd;

	*direct_refused = false;
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC | flags, 0600);
	if (fd >= 0)
		return fd;
	if (errno == EOPNOTSUPP || errno == EISDIR || errno == ENOENT) {
		snprintf(name, sizeof(name), "%s/.diskproof-check.%ld", dir, (long)getpid());
		fd = open(name, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC | flags, 0600);
		if (fd >= 0) {
			unlink(name);
			return fd;
		}
	}
	if (errno == EINVAL && (flags & O_DIRECT)) {
		int e = errno, t = temp_open(dir, flags & ~O_DIRECT, direct_refused);

		if (t >= 0) {
			close(t);
			*direct_refused = true;
		}
		return -e;
	}
	return -errno;
}

/* Writes (unless read_only) and reads back one block of len bytes at 0. */
static int block_roundtrip(int fd, size_t len, bool read_only, const char **what)
{
	void *w = NULL, *r = NULL;
	ssize_t n;
	int ret = -ENOMEM;

	if (posix_memalign(&w, 4096, len) || posix_memalign(&r, 4096, len))
		goto out;
	for (size_t i = 0; i < len; i++)
		((unsigned char *)w)[i] = (unsigned char)(i * 131 + 7);
	if (!read_only) {
		*what = "write";
		n = pwrite(fd, w, len, 0);
		if (n != (ssize_t)len) {
			ret = n < 0 ? -errno : -EIO;
			goto out;
		}
	}
	*what = "read";
	n = pread(fd, r, len, 0);
	if (n != (ssize_t)len) {
		ret = n < 0 ? -errno : -EIO;
		goto out;
	}
	*what = "compare";
	ret = read_only || !memcmp(w, r, len) ? 0 : -EIO;
out:
	free(w);
	free(r);
	return ret;
}

int env_direct_probe(const char *path, uint32_t align, struct env_direct_result *r)
{
	struct stat st;
	int fd, ret;

	memset(r, 0, sizeof(*r));
	r->len = align > 4096 ? align : 4096;
	ret = path_nearest_existing(path, r->where, sizeof(r->where));
	if (ret) {
		r->where[0] = '\0';
		return ret;
	}
	if (stat(r->where, &st) != 0)
		return -errno;
	r->device = S_ISBLK(st.st_mode);
	if (!r->device && !S_ISDIR(st.st_mode)) { /* a file: its directory */
		char *slash = strrchr(r->where, '/');

		if (slash && slash != r->where)
			*slash = '\0';
		else
			snprintf(r->where, sizeof(r->where), "%s", slash ? "/" : ".");
	}
	if (r->device)
		fd = open(r->where, O_RDONLY | O_DIRECT | O_CLOEXEC);
	else
		fd = temp_open(r->where, O_DIRECT, &r->refused);
	r->step = r->device ? "open" : "create a file";
	if (fd < 0 && !r->device)
		ret = fd;
	else if (fd < 0)
		ret = -errno;
	else
		ret = block_roundtrip(fd, r->len, r->device, &r->step);
	if (fd >= 0)
		close(fd);
	return ret;
}
