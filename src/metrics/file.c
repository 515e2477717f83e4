/* SPDX-License-Identifier: MIT */
/*
 * file.c - the metrics textfile (--metrics-file): node_exporter's textfile
 * collector reads every *.prom file of its directory at each scrape, so the
 * file is replaced atomically, never rewritten in place: PATH.tmp (which the
 * collector ignores: it does not end in .prom) is written, synced and
 * renamed over PATH.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diskproof/metrics.h"

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* What every text metrics_build makes starts with (the run_info family). */
#define METRICS_FILE_MAGIC "# HELP diskproof_"

int metrics_file_replaceable(const char *path, struct strbuf *why)
{
	char head[sizeof(METRICS_FILE_MAGIC) - 1];
	struct stat st;
	ssize_t n;
	int fd;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISREG(st.st_mode))
		goto foreign;
	if (st.st_size == 0)
		return 0; /* nothing to lose */
	/* O_NONBLOCK: what was checked a regular file may be a FIFO by now */
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, head, sizeof(head));
	close(fd);
	if (n == (ssize_t)sizeof(head) && !memcmp(head, METRICS_FILE_MAGIC, sizeof(head)))
		return 0;
foreign:
	strbuf_addf(why,
		    "%s exists and is not a diskproof metrics file; diskproof never "
		    "overwrites a file it did not write (move it away)",
		    path);
	return -EEXIST;
}

/* PATH.tmp, new: O_EXCL neither follows a link nor opens a FIFO or a file
 * someone else has there; a stale one of ours (a run killed mid-write) is
 * removed first. */
static int open_tmp(const char *tmp, struct strbuf *err)
{
	for (int tries = 0;; tries++) {
		int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
		int ret;

		if (fd >= 0)
			return fd;
		if (errno != EEXIST)
			return -errno;
		if (tries)
			return -EBUSY; /* made again meanwhile: someone else's */
		ret = metrics_file_replaceable(tmp, err);
		if (ret)
			return ret;
		if (unlink(tmp) && errno != ENOENT)
			return -errno;
	}
}

int metrics_file_write(const char *path, const struct strbuf *text, struct strbuf *err)
{
	struct strbuf tmp = STRBUF_INIT;
	int fd, ret = 0;

	strbuf_addf(&tmp, "%s.tmp", path);
	/* each time: PATH may have become another file since the last write
	 * (the results file made at this name, say) */
	ret = metrics_file_replaceable(path, err);
	if (ret)
		goto out;
	fd = open_tmp(tmp.buf, err);
	if (fd < 0) {
		ret = fd;
		goto out;
	}
	ret = write_all(fd, text->buf, text->len);
	if (!ret && fsync(fd))
		ret = -errno;
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && rename(tmp.buf, path))
		ret = -errno;
	if (ret)
		unlink(tmp.buf);
out:
	if (ret && ret != -EEXIST)
		strbuf_addf(err, "%s: cannot write the metrics file: %s", path, strerror(-ret));
	strbuf_release(&tmp);
	return ret;
}
