/* SPDX-License-Identifier: MIT */
/*
 * cutstate.c - the simulated power cut's state file of one database
 * (cutstate.h): what the sim engine's write cache kept, written by the run
 * and read by verify.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diskproof/cutstate.h"
#include "diskproof/page.h"

#define CUTSTATE_MAGIC "DPSIMCUT"
#define CUTSTATE_VERSION 1u
#define CUTSTATE_HEADER 64u

/* Little-endian fields of the header (x86 and arm64 hosts: memcpy). */
struct cutstate_header {
	char magic[8];
	uint32_t version;
	uint32_t db_id;
	uint64_t nr_pages;
	uint64_t cut_ns;
	uint32_t crc;
	uint8_t zero[28];
};

_Static_assert(sizeof(struct cutstate_header) == CUTSTATE_HEADER, "64-byte header");

void cutstate_path(const char *journal_path, struct strbuf *out)
{
	size_t n = strlen(journal_path);

	strbuf_reset(out);
	if (n > 4 && !strcmp(journal_path + n - 4, ".gen"))
		n -= 4;
	strbuf_add(out, journal_path, n);
	strbuf_addstr(out, ".simcut");
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t w = write(fd, p, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

int cutstate_write(const char *path, const struct cutstate *s, struct strbuf *err)
{
	struct cutstate_header h = {0};
	struct strbuf tmp = STRBUF_INIT;
	int fd, ret;

	memcpy(h.magic, CUTSTATE_MAGIC, 8);
	h.version = CUTSTATE_VERSION;
	h.db_id = s->db_id;
	h.nr_pages = s->nr_pages;
	h.cut_ns = s->cut_ns;
	h.crc = page_crc32c(0, s->pages, s->nr_pages * sizeof(*s->pages));
	strbuf_addf(&tmp, "%s.tmp.%ld", path, (long)getpid());
	fd = open(tmp.buf, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		ret = -errno;
		strbuf_addf(err, "%s: cannot create it: %s", tmp.buf, strerror(errno));
		goto out;
	}
	ret = write_all(fd, &h, sizeof(h));
	if (!ret)
		ret = write_all(fd, s->pages, s->nr_pages * sizeof(*s->pages));
	if (!ret && fsync(fd))
		ret = -errno;
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && rename(tmp.buf, path))
		ret = -errno;
	if (ret) {
		strbuf_addf(err, "%s: cannot write the simulated cut's state: %s", path,
			    strerror(-ret));
		unlink(tmp.buf);
	}
out:
	strbuf_release(&tmp);
	return ret;
}

static int read_all(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t r = read(fd, p, len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (!r)
			return -EBADMSG; /* short */
		p += r;
		len -= (size_t)r;
	}
	return 0;
}

int cutstate_read(const char *path, struct cutstate *s, struct strbuf *err)
{
	struct cutstate_header h;
	int fd, ret;

	memset(s, 0, sizeof(*s));
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		strbuf_addf(err, "%s: %s", path, strerror(errno));
		return ret;
	}
	ret = read_all(fd, &h, sizeof(h));
	if (!ret && (memcmp(h.magic, CUTSTATE_MAGIC, 8) || h.version != CUTSTATE_VERSION ||
		     h.nr_pages > (1ULL << 32)))
		ret = -EBADMSG;
	if (!ret) {
		s->pages = malloc(h.nr_pages ? h.nr_pages * sizeof(*s->pages) : 1);
		ret = s->pages ? read_all(fd, s->pages, h.nr_pages * sizeof(*s->pages)) : -ENOMEM;
	}
	if (!ret && page_crc32c(0, s->pages, h.nr_pages * sizeof(*s->pages)) != h.crc)
		ret = -EBADMSG;
	close(fd);
	if (ret) {
		strbuf_addf(err, "%s: %s", path,
			    ret == -EBADMSG ? "not a simulated cut's state, or damaged"
					    : strerror(-ret));
		cutstate_release(s);
		return ret;
	}
	s->db_id = h.db_id;
	s->nr_pages = h.nr_pages;
	s->cut_ns = h.cut_ns;
	return 0;
}

void cutstate_release(struct cutstate *s)
{
	free(s->pages);
	s->pages = NULL;
}
