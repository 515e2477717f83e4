/*
 * journal.c - the generation journal of one database (format in journal.h):
 * written atomically, read back with every field checked.
 *
 * Atomicity: the new journal goes to "PATH.tmp.PID" in the same directory,
 * is fsync'ed, renamed over PATH (atomic within one filesystem) and the
 * directory is fsync'ed so that the rename itself is durable. A reader
 * therefore sees the old journal or the new one, never a mix; a failure at
 * any step removes the temporary file and leaves the old journal as it was.
 *
 * Every integer is stored little-endian; the generations are converted in
 * blocks on a big-endian host and copied as they are on a little-endian one.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diskproof/fileopen.h"
#include "diskproof/journal.h"
#include "diskproof/page.h"

/* header field offsets (journal.h) */
#define JH_MAGIC 0
#define JH_VERSION 8
#define JH_FLAGS 12
#define JH_DB_ID 16
#define JH_PAGE_SIZE 20
#define JH_NR_PAGES 24
#define JH_RUN_ID 32
#define JH_SEED 40
#define JH_CRC 48

/* generations converted per block on the way to and from the file */
#define JOURNAL_IO_GENS 16384u

/* more pages than this cannot be a real database's (16 EiB of 4 KiB pages
 * would not fit in 64 bits of bytes anyway) */
#define JOURNAL_MAX_PAGES ((UINT64_MAX - JOURNAL_HEADER_SIZE) / 4)

static void put_le32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void put_le64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get_le32(const unsigned char *p)
{
	uint32_t v = 0;

	for (int i = 0; i < 4; i++)
		v |= (uint32_t)p[i] << (8 * i);
	return v;
}

static uint64_t get_le64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* Host generations to little-endian bytes (a copy on little-endian hosts). */
static void gens_to_le(unsigned char *out, const uint32_t *gens, size_t n)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(out, gens, n * 4);
#else
	for (size_t i = 0; i < n; i++)
		put_le32(out + 4 * i, gens[i]);
#endif
}

/* In place: little-endian generations to host order. */
static void gens_from_le(uint32_t *gens, size_t n)
{
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
	for (size_t i = 0; i < n; i++)
		gens[i] = get_le32((const unsigned char *)&gens[i]);
#else
	(void)gens;
	(void)n;
#endif
}

/* The CRC32C of the generations as stored (little-endian). */
static uint32_t gens_crc(const uint32_t *gens, uint64_t n)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return page_crc32c(0, gens, (size_t)n * 4);
#else
	unsigned char buf[4 * 1024];
	uint32_t crc = 0;

	for (uint64_t i = 0; i < n; i += sizeof(buf) / 4) {
		size_t k = n - i < sizeof(buf) / 4 ? (size_t)(n - i) : sizeof(buf) / 4;

		gens_to_le(buf, gens + i, k);
		crc = page_crc32c(crc, buf, k * 4);
	}
	return crc;
#endif
}

static int write_all(int fd, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -ENOSPC;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int read_all(int fd, void *buf, size_t len, size_t *got)
{
	unsigned char *p = buf;

	*got = 0;
	while (len) {
		ssize_t n = read(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		p += n;
		len -= (size_t)n;
		*got += (size_t)n;
	}
	return 0;
}

static void header_encode(unsigned char *h, const struct journal_info *info, uint32_t crc)
{
	memset(h, 0, JOURNAL_HEADER_SIZE);
	memcpy(h + JH_MAGIC, JOURNAL_MAGIC, 8);
	put_le32(h + JH_VERSION, JOURNAL_VERSION);
	put_le32(h + JH_FLAGS, info->flags);
	put_le32(h + JH_DB_ID, info->db_id);
	put_le32(h + JH_PAGE_SIZE, info->page_size);
	put_le64(h + JH_NR_PAGES, info->nr_pages);
	put_le64(h + JH_RUN_ID, info->run_id);
	put_le64(h + JH_SEED, info->seed);
	put_le32(h + JH_CRC, crc);
}

/* Header, then the generations in blocks. */
static int write_contents(int fd, const struct journal_info *info, const uint32_t *gens)
{
	unsigned char h[JOURNAL_HEADER_SIZE];
	unsigned char *buf;
	int ret;

	header_encode(h, info, gens_crc(gens, info->nr_pages));
	ret = write_all(fd, h, sizeof(h));
	if (ret)
		return ret;
	buf = malloc(4 * JOURNAL_IO_GENS);
	if (!buf)
		return -ENOMEM;
	for (uint64_t i = 0; i < info->nr_pages && !ret; i += JOURNAL_IO_GENS) {
		size_t k = info->nr_pages - i < JOURNAL_IO_GENS ? (size_t)(info->nr_pages - i)
								: JOURNAL_IO_GENS;

		gens_to_le(buf, gens + i, k);
		ret = write_all(fd, buf, k * 4);
	}
	free(buf);
	return ret;
}

/* fsync of the directory holding path, so that a rename in it is durable. */
static int sync_parent_dir(const char *path)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	int fd, ret = 0;

	if (!slash) {
		strcpy(dir, ".");
	} else if (slash == path) {
		strcpy(dir, "/");
	} else {
		if ((size_t)(slash - path) >= sizeof(dir))
			return -ENAMETOOLONG;
		memcpy(dir, path, (size_t)(slash - path));
		dir[slash - path] = '\0';
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fsync(fd) != 0)
		ret = -errno;
	close(fd);
	return ret;
}

int journal_write(const char *path, const struct journal_info *info, const uint32_t *gens,
		  struct strbuf *err)
{
	struct strbuf tmp = STRBUF_INIT;
	const char *what;
	int fd, ret;

	if (info->nr_pages > JOURNAL_MAX_PAGES || (info->nr_pages && !gens)) {
		strbuf_addf(err, "%s: cannot write journal: invalid page count", path);
		return -EINVAL;
	}
	strbuf_addf(&tmp, "%s.tmp.%ld", path, (long)getpid());
	fd = open(tmp.buf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		ret = -errno;
		what = "cannot create";
		goto out_report;
	}
	what = "cannot write";
	ret = write_contents(fd, info, gens);
	if (!ret && fsync(fd) != 0) {
		ret = -errno;
		what = "fsync failed";
	}
	if (close(fd) != 0 && !ret) {
		ret = -errno;
		what = "close failed";
	}
	if (ret)
		goto out_unlink;
	if (rename(tmp.buf, path) != 0) {
		ret = -errno;
		what = "cannot rename the new journal into place";
		goto out_unlink;
	}
	ret = sync_parent_dir(path);
	if (ret) {
		/* the new journal is in place; only its durability is in doubt */
		strbuf_addf(err, "%s: journal written but its directory could not be synced: %s",
			    path, strerror(-ret));
	}
	strbuf_release(&tmp);
	return ret;

out_unlink:
	unlink(tmp.buf);
out_report:
	strbuf_addf(err, "%s: %s %s: %s", path, what, tmp.buf, strerror(-ret));
	strbuf_release(&tmp);
	return ret;
}

/* Header checks after the magic; 0 or -EINVAL with the reason. */
static int header_check(const char *path, const struct journal_info *info, uint32_t version,
			struct strbuf *err)
{
	if (version != JOURNAL_VERSION) {
		strbuf_addf(err,
			    "%s: unsupported generation journal version %u (this diskproof "
			    "reads version %u)",
			    path, version, JOURNAL_VERSION);
		return -EINVAL;
	}
	if (info->flags & ~JOURNAL_CLEAN) {
		strbuf_addf(err, "%s: damaged (unknown flags 0x%x)", path, info->flags);
		return -EINVAL;
	}
	if (!info->db_id) {
		strbuf_addf(err, "%s: damaged (database id 0)", path);
		return -EINVAL;
	}
	if (info->page_size < 512 || info->page_size & (info->page_size - 1)) {
		strbuf_addf(err, "%s: damaged (page size %u)", path, info->page_size);
		return -EINVAL;
	}
	if (info->nr_pages > JOURNAL_MAX_PAGES) {
		strbuf_addf(err, "%s: damaged (page count %llu)", path,
			    (unsigned long long)info->nr_pages);
		return -EINVAL;
	}
	return 0;
}

int journal_read(const char *path, struct journal_info *info, uint32_t **gens, struct strbuf *err)
{
	unsigned char h[JOURNAL_HEADER_SIZE];
	uint32_t *g = NULL, crc;
	uint64_t want;
	struct stat st;
	size_t got;
	int fd, ret;

	*gens = NULL;
	memset(info, 0, sizeof(*info));
	/* a FIFO there must not block the command (signals are blocked) */
	fd = file_open_checked(path, O_RDONLY, 0, FILE_OPEN_REGULAR, &st, err);
	if (fd < 0) {
		if (fd != -EMEDIUMTYPE)
			strbuf_addf(err, "%s: cannot open: %s", path, strerror(-fd));
		return fd;
	}
	ret = read_all(fd, h, sizeof(h), &got);
	if (ret) {
		strbuf_addf(err, "%s: cannot read: %s", path, strerror(-ret));
		goto out_close;
	}
	ret = -EINVAL;
	if (got < 8 || memcmp(h + JH_MAGIC, JOURNAL_MAGIC, 8) != 0) {
		strbuf_addf(err, "%s: not a diskproof generation journal (bad magic)", path);
		goto out_close;
	}
	if (got < sizeof(h)) {
		strbuf_addf(err, "%s: truncated (%zu bytes, expected at least %u)", path, got,
			    JOURNAL_HEADER_SIZE);
		goto out_close;
	}
	info->flags = get_le32(h + JH_FLAGS);
	info->db_id = get_le32(h + JH_DB_ID);
	info->page_size = get_le32(h + JH_PAGE_SIZE);
	info->nr_pages = get_le64(h + JH_NR_PAGES);
	info->run_id = get_le64(h + JH_RUN_ID);
	info->seed = get_le64(h + JH_SEED);
	crc = get_le32(h + JH_CRC);
	ret = header_check(path, info, get_le32(h + JH_VERSION), err);
	if (ret)
		goto out_close;
	ret = -EINVAL;
	want = JOURNAL_HEADER_SIZE + 4 * info->nr_pages;
	if ((uint64_t)st.st_size != want) {
		strbuf_addf(err, "%s: %s (%llu bytes, expected %llu)", path,
			    (uint64_t)st.st_size < want ? "truncated" : "damaged: wrong size",
			    (unsigned long long)st.st_size, (unsigned long long)want);
		goto out_close;
	}
	if (info->nr_pages > SIZE_MAX / 4 - 1) {
		ret = -ENOMEM;
		strbuf_addf(err, "%s: too many pages for this machine", path);
		goto out_close;
	}
	g = malloc(info->nr_pages ? (size_t)info->nr_pages * 4 : 4);
	if (!g) {
		ret = -ENOMEM;
		strbuf_addf(err, "%s: out of memory", path);
		goto out_close;
	}
	ret = read_all(fd, g, (size_t)info->nr_pages * 4, &got);
	if (ret) {
		strbuf_addf(err, "%s: cannot read: %s", path, strerror(-ret));
		goto out_free;
	}
	ret = -EINVAL;
	if (got != (size_t)info->nr_pages * 4) {
		/* it shrank since fstat */
		strbuf_addf(err, "%s: truncated (%llu bytes, expected %llu)", path,
			    (unsigned long long)(JOURNAL_HEADER_SIZE + got),
			    (unsigned long long)want);
		goto out_free;
	}
	if (page_crc32c(0, g, got) != crc) {
		strbuf_addf(err, "%s: damaged (checksum mismatch)", path);
		goto out_free;
	}
	gens_from_le(g, (size_t)info->nr_pages);
	*gens = g;
	close(fd);
	return 0;

out_free:
	free(g);
out_close:
	close(fd);
	memset(info, 0, sizeof(*info));
	return ret;
}
