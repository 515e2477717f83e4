/* SPDX-License-Identifier: MIT */
/*
 * journal.c - the generation journal of one database (format in journal.h):
 * written atomically, read back with every field checked, in a file or in a
 * region of a block device.
 *
 * Files: the new journal goes to "PATH.tmp.PID" (or "PATH.tmp.PID.K" when
 * that name is taken) in the same directory, created O_EXCL|O_NOFOLLOW so
 * that nothing already there - a leftover, or a link planted to make us
 * write elsewhere - is ever opened, followed or truncated; it is fsync'ed,
 * renamed over PATH (atomic within one filesystem) and the directory is
 * fsync'ed so that the rename itself is durable. A reader therefore sees the
 * old journal or the new one, never a mix; a failure at any step removes
 * the temporary file (ours: we created it) and leaves the old journal.
 *
 * Devices: two slots; a write goes to the slot without the newest valid
 * journal, so a torn write leaves the previous journal readable.
 *
 * Every integer is stored little-endian; the generations are converted in
 * blocks on a big-endian host and copied as they are on a little-endian one.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diskproof/env.h"
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
#define JH_HCRC 52
#define JH_SEQ 56

/* bytes written at a time (a multiple of every filesystem block size) */
#define JOURNAL_IO_BYTES (64u * 1024u)

/* more pages than this cannot be a real database's (16 EiB of 4 KiB pages
 * would not fit in 64 bits of bytes anyway) */
#define JOURNAL_MAX_PAGES ((UINT64_MAX - 2 * JOURNAL_SLOT_ALIGN) / 8)

/* other names tried for the temporary file when "PATH.tmp.PID" is taken */
#define JOURNAL_TMP_TRIES 16

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

static uint64_t slot_size(uint64_t nr_pages)
{
	uint64_t b = JOURNAL_HEADER_SIZE + 4 * nr_pages;

	return (b + JOURNAL_SLOT_ALIGN - 1) / JOURNAL_SLOT_ALIGN * JOURNAL_SLOT_ALIGN;
}

bool journal_info_matches(const struct journal_info *info, uint32_t db_id, uint32_t page_size,
			  uint64_t nr_pages)
{
	return info->db_id == db_id && info->page_size == page_size && info->nr_pages == nr_pages;
}

uint64_t journal_region_size(uint64_t nr_pages)
{
	return 2 * slot_size(nr_pages);
}

void journal_loc_describe(const struct journal_loc *loc, struct strbuf *out)
{
	if (loc->size)
		strbuf_addf(out, "%s (journal region at byte %llu)", loc->path,
			    (unsigned long long)loc->offset);
	else
		strbuf_addstr(out, loc->path);
}

static int pwrite_all(int fd, const void *buf, size_t len, uint64_t off)
{
	const unsigned char *p = buf;

	while (len) {
		ssize_t n = pwrite(fd, p, len, (off_t)off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -ENOSPC;
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

static int pread_all(int fd, void *buf, size_t len, uint64_t off, size_t *got)
{
	unsigned char *p = buf;

	*got = 0;
	while (len) {
		ssize_t n = pread(fd, p, len, (off_t)off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
		*got += (size_t)n;
	}
	return 0;
}

static uint32_t header_crc(const unsigned char *h)
{
	unsigned char z[JOURNAL_HEADER_SIZE];

	memcpy(z, h, sizeof(z));
	memset(z + JH_HCRC, 0, 4);
	return page_crc32c(0, z, sizeof(z));
}

static void header_encode(unsigned char *h, const struct journal_info *info, uint32_t crc,
			  uint64_t seq, uint32_t version)
{
	memset(h, 0, JOURNAL_HEADER_SIZE);
	memcpy(h + JH_MAGIC, JOURNAL_MAGIC, 8);
	put_le32(h + JH_VERSION, version);
	put_le32(h + JH_FLAGS, info->flags);
	put_le32(h + JH_DB_ID, info->db_id);
	put_le32(h + JH_PAGE_SIZE, info->page_size);
	put_le64(h + JH_NR_PAGES, info->nr_pages);
	put_le64(h + JH_RUN_ID, info->run_id);
	put_le64(h + JH_SEED, info->seed);
	put_le32(h + JH_CRC, crc);
	put_le64(h + JH_SEQ, seq);
	put_le32(h + JH_HCRC, header_crc(h));
}

/* What gens hold: a failed-write mark at all, one of run run_id's. */
struct gens_marks {
	bool failed, own;
};

static struct gens_marks gens_marks(const uint32_t *gens, uint64_t n, uint64_t run_id)
{
	uint32_t own = journal_failed_mark(run_id);
	struct gens_marks m = {false, false};

	for (uint64_t i = 0; i < n; i++)
		if (journal_gen_failed(gens[i])) {
			m.failed = true;
			if (gens[i] == own) {
				m.own = true;
				break;
			}
		}
	return m;
}

/* The version gens are written as: 3 only when they need it. */
static uint32_t gens_version(const uint32_t *gens, uint64_t n)
{
	return gens_marks(gens, n, 0).failed ? JOURNAL_VERSION : JOURNAL_VERSION_PLAIN;
}

/* A header as read: its fields, format version, sequence and gens CRC. */
struct hdr {
	struct journal_info info;
	uint32_t version;
	uint32_t crc;
	uint64_t seq;
};

/*
 * Decodes and checks a header of got bytes into d. 0, -ENODATA when there
 * is no magic (nothing there), or -EINVAL; both with the reason after
 * "WHERE: " in err.
 */
static int header_decode(const char *where, const unsigned char *h, size_t got, struct hdr *d,
			 struct strbuf *err)
{
	struct journal_info *info = &d->info;
	uint32_t version;

	memset(d, 0, sizeof(*d));
	if (got < 8 || memcmp(h + JH_MAGIC, JOURNAL_MAGIC, 8) != 0) {
		strbuf_addf(err, "%s: not a diskproof generation journal (bad magic)", where);
		return -ENODATA;
	}
	if (got < JOURNAL_HEADER_SIZE) {
		strbuf_addf(err, "%s: truncated (%zu bytes, expected at least %u)", where, got,
			    JOURNAL_HEADER_SIZE);
		return -EINVAL;
	}
	version = get_le32(h + JH_VERSION);
	if (version < 1 || version > JOURNAL_VERSION) {
		strbuf_addf(err,
			    "%s: unsupported generation journal version %u (this diskproof "
			    "reads versions 1 to %u)",
			    where, version, JOURNAL_VERSION);
		return -EINVAL;
	}
	if (version >= 2 && get_le32(h + JH_HCRC) != header_crc(h)) {
		strbuf_addf(err, "%s: damaged (header checksum mismatch)", where);
		return -EINVAL;
	}
	d->version = version;
	info->flags = get_le32(h + JH_FLAGS);
	info->db_id = get_le32(h + JH_DB_ID);
	info->page_size = get_le32(h + JH_PAGE_SIZE);
	info->nr_pages = get_le64(h + JH_NR_PAGES);
	info->run_id = get_le64(h + JH_RUN_ID);
	info->seed = get_le64(h + JH_SEED);
	d->seq = version >= 2 ? get_le64(h + JH_SEQ) : 0;
	d->crc = get_le32(h + JH_CRC);
	if (info->flags & ~JOURNAL_CLEAN) {
		strbuf_addf(err, "%s: damaged (unknown flags 0x%x)", where, info->flags);
		return -EINVAL;
	}
	if (!info->db_id) {
		strbuf_addf(err, "%s: damaged (database id 0)", where);
		return -EINVAL;
	}
	if (info->page_size < 512 || info->page_size & (info->page_size - 1)) {
		strbuf_addf(err, "%s: damaged (page size %u)", where, info->page_size);
		return -EINVAL;
	}
	if (info->nr_pages > JOURNAL_MAX_PAGES) {
		strbuf_addf(err, "%s: damaged (page count %llu)", where,
			    (unsigned long long)info->nr_pages);
		return -EINVAL;
	}
	return 0;
}

/*
 * The header at off, then the generations after it, in pieces of
 * JOURNAL_IO_BYTES from off, each written once and in order: a spare's
 * preallocated blocks can be filled once without new space on a
 * copy-on-write filesystem, but a block written twice before it reaches the
 * disk needs new space again (btrfs).
 */
static int write_contents(int fd, uint64_t off, const struct journal_info *info,
			  const uint32_t *gens, uint64_t seq)
{
	uint64_t n = info->nr_pages, i = 0, at = off;
	size_t fill = JOURNAL_HEADER_SIZE;
	unsigned char *buf;
	int ret = 0;

	buf = malloc(JOURNAL_IO_BYTES);
	if (!buf)
		return -ENOMEM;
	header_encode(buf, info, gens_crc(gens, n), seq, gens_version(gens, n));
	do {
		size_t k = (JOURNAL_IO_BYTES - fill) / 4;

		if (k > n - i)
			k = (size_t)(n - i);
		gens_to_le(buf + fill, gens + i, k);
		i += k;
		fill += 4 * k;
		ret = pwrite_all(fd, buf, fill, at);
		at += fill;
		fill = 0;
	} while (!ret && i < n);
	free(buf);
	return ret;
}

/* Every entry a generation, a lower bound or (version 3) a failed-write
 * mark: -EINVAL with the first one that is none of these. */
static int gens_check(const char *where, uint32_t version, const uint32_t *g, uint64_t nr,
		      struct strbuf *err)
{
	uint32_t bad = version >= 3 ? JOURNAL_GEN_LOWER | JOURNAL_GEN_FAILED : JOURNAL_GEN_FAILED;

	for (uint64_t i = 0; i < nr; i++)
		if ((g[i] & bad) == bad) {
			strbuf_addf(err,
				    "%s: damaged (entry 0x%08x of page %llu: not a generation)",
				    where, g[i], (unsigned long long)i);
			return -EINVAL;
		}
	return 0;
}

/* Reads and checks nr generations of a version's journal at off against
 * crc; *gens malloc'd. */
static int read_gens(int fd, const char *where, uint32_t version, uint64_t off, uint64_t nr,
		     uint32_t crc, uint32_t **gens, struct strbuf *err)
{
	uint32_t *g;
	size_t got;
	int ret;

	*gens = NULL;
	if (nr > SIZE_MAX / 4 - 1) {
		strbuf_addf(err, "%s: too many pages for this machine", where);
		return -ENOMEM;
	}
	g = malloc(nr ? (size_t)nr * 4 : 4);
	if (!g) {
		strbuf_addf(err, "%s: out of memory", where);
		return -ENOMEM;
	}
	ret = pread_all(fd, g, (size_t)nr * 4, off, &got);
	if (ret) {
		strbuf_addf(err, "%s: cannot read the journal: %s", where, strerror(-ret));
		goto out_free;
	}
	ret = -EINVAL;
	if (got != (size_t)nr * 4) {
		strbuf_addf(err, "%s: truncated (%llu bytes, expected %llu)", where,
			    (unsigned long long)(JOURNAL_HEADER_SIZE + got),
			    (unsigned long long)(JOURNAL_HEADER_SIZE + 4 * nr));
		goto out_free;
	}
	if (page_crc32c(0, g, got) != crc) {
		strbuf_addf(err, "%s: damaged (checksum mismatch)", where);
		goto out_free;
	}
	gens_from_le(g, (size_t)nr);
	if (gens_check(where, version, g, nr, err))
		goto out_free;
	*gens = g;
	return 0;
out_free:
	free(g);
	return ret;
}

/* fsync of the directory holding path, so that a rename in it is durable. */
static int sync_parent_dir(const char *path)
{
	struct strbuf dir = STRBUF_INIT;
	int fd, ret = 0;

	path_dirname(path, &dir);
	fd = open(dir.buf, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		ret = -errno;
	else if (fsync(fd) != 0)
		ret = -errno;
	if (fd >= 0)
		close(fd);
	strbuf_release(&dir);
	return ret;
}

/*
 * An I/O error (a failing disk, a filesystem shut down) is said as what it
 * is: a journal that cannot be read is never called "not a journal", which
 * would invite the user to destroy it.
 */
int journal_file_check(const char *path, struct strbuf *err)
{
	char magic[8];
	struct stat st;
	size_t got = 0;
	int fd, ret;

	if (lstat(path, &st) != 0) {
		if (errno == ENOENT)
			return 0;
		ret = -errno;
		goto out_err;
	}
	if (!S_ISREG(st.st_mode))
		return -EEXIST;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		ret = errno == ELOOP ? -EEXIST : -errno; /* a link swapped in */
		if (ret == -EEXIST)
			return ret;
		goto out_err;
	}
	ret = pread_all(fd, magic, sizeof(magic), 0, &got);
	close(fd);
	if (ret)
		goto out_err;
	return got == sizeof(magic) && !memcmp(magic, JOURNAL_MAGIC, sizeof(magic)) ? 0 : -EEXIST;
out_err:
	strbuf_addf(err, "%s: cannot read the journal: %s", path, strerror(-ret));
	return ret;
}

/* Creates a temporary file of our own beside path: never an existing one. */
static int create_tmp(const char *path, struct strbuf *tmp)
{
	for (int k = 0; k < JOURNAL_TMP_TRIES; k++) {
		int fd;

		strbuf_reset(tmp);
		strbuf_addf(tmp, "%s.tmp.%ld", path, (long)getpid());
		if (k)
			strbuf_addf(tmp, ".%d", k);
		fd = open(tmp->buf, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd >= 0 || errno != EEXIST)
			return fd >= 0 ? fd : -errno;
	}
	return -EEXIST;
}

/* The usual write: a new temporary file, renamed over path. */
static int file_write_new(const char *path, const struct journal_info *info, const uint32_t *gens,
			  struct strbuf *err)
{
	struct strbuf tmp = STRBUF_INIT;
	const char *what;
	int fd, ret;

	ret = journal_file_check(path, err);
	if (ret == -EEXIST)
		strbuf_addf(err,
			    "%s: exists and is not a diskproof generation journal; diskproof "
			    "will not replace it (move it away, or name it with --destroy-data)",
			    path);
	if (ret)
		return ret;
	fd = create_tmp(path, &tmp);
	if (fd < 0) {
		ret = fd;
		what = ret == -EEXIST ? "cannot create a temporary file (every name taken)"
				      : "cannot create";
		goto out_report;
	}
	what = "cannot write";
	ret = write_contents(fd, 0, info, gens, 0);
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
	unlink(tmp.buf); /* ours: created O_EXCL above */
out_report:
	strbuf_addf(err, "%s: %s %s: %s", path, what, tmp.buf, strerror(-ret));
	strbuf_release(&tmp);
	return ret;
}

/* ---- spares (journal.h): room kept for a journal on a full filesystem ---- */

void journal_spare_name(const char *path, int k, struct strbuf *out)
{
	strbuf_reset(out);
	strbuf_addf(out, "%s.spare.%d", path, k);
}

static bool spare_stat_ours(const struct stat *st)
{
	return S_ISREG(st->st_mode) && st->st_nlink == 1 && st->st_uid == geteuid() &&
	       st->st_size == 0;
}

bool journal_spare_ours(const char *name)
{
	struct stat st;

	return lstat(name, &st) == 0 && spare_stat_ours(&st);
}

/* The spare at name opened for writing, when it is ours and holds at least
 * bytes preallocated; else -1 (nothing there, or not one to use). */
static int spare_open(const char *name, uint64_t bytes)
{
	struct stat before, st;
	int fd;

	if (lstat(name, &before) != 0 || !spare_stat_ours(&before))
		return -1;
	fd = open(name, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || st.st_ino != before.st_ino || st.st_dev != before.st_dev ||
	    !spare_stat_ours(&st) || (uint64_t)st.st_blocks * 512 < bytes) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The journal written into a spare and renamed over path. 0; -ENOSPC when
 * no spare could take it; or the directory's fsync failure (the journal is
 * in place then), said in err. */
static int spare_write(const char *path, const struct journal_info *info, const uint32_t *gens,
		       struct strbuf *err)
{
	uint64_t bytes = JOURNAL_HEADER_SIZE + 4 * info->nr_pages;
	struct strbuf name = STRBUF_INIT;
	int ret = -ENOSPC;

	for (int k = 1; k <= JOURNAL_SPARES && ret; k++) {
		int fd;

		journal_spare_name(path, k, &name);
		fd = spare_open(name.buf, bytes);
		if (fd < 0)
			continue;
		ret = write_contents(fd, 0, info, gens, 0);
		if (!ret && fsync(fd) != 0)
			ret = -errno;
		if (close(fd) != 0 && !ret)
			ret = -errno;
		if (!ret && rename(name.buf, path) != 0)
			ret = -errno;
		if (ret) {
			unlink(name.buf); /* ours (spare_open), and no longer empty */
			ret = -ENOSPC;
		}
	}
	if (!ret) {
		ret = sync_parent_dir(path);
		if (ret)
			strbuf_addf(err,
				    "%s: journal written but its directory could not be synced: %s",
				    path, strerror(-ret));
	}
	strbuf_release(&name);
	return ret;
}

/*
 * On a copy-on-write filesystem, up to JOURNAL_SPARES spares beside path,
 * each with bytes preallocated past its end; one of ours too small is made
 * anew. Best effort: a full filesystem keeps fewer.
 */
static void spares_keep(const char *path, uint64_t bytes)
{
	struct strbuf dir = STRBUF_INIT, name = STRBUF_INIT;

	path_dirname(path, &dir);
	if (!env_fs_cow(dir.buf, NULL))
		goto out;
	for (int k = 1; k <= JOURNAL_SPARES; k++) {
		int fd;

		journal_spare_name(path, k, &name);
		fd = spare_open(name.buf, bytes);
		if (fd >= 0) {
			close(fd);
			continue;
		}
		if (journal_spare_ours(name.buf))
			unlink(name.buf);
		fd = open(name.buf, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd < 0)
			continue; /* something else is there, or no room */
		if (fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, (off_t)bytes) != 0)
			unlink(name.buf); /* ours: created O_EXCL above */
		close(fd);
	}
out:
	strbuf_release(&dir);
	strbuf_release(&name);
}

/*
 * A file journal: the usual way; when the filesystem is full and gens mark
 * failed writes of the run writing it, into a spare (journal.h); then the
 * spares kept for the next time.
 */
static int file_write(const struct journal_loc *loc, const struct journal_info *info,
		      const uint32_t *gens, struct strbuf *err)
{
	struct strbuf first = STRBUF_INIT;
	int ret = file_write_new(loc->path, info, gens, &first), sp = -ENOSPC;

	if ((ret == -ENOSPC || ret == -EDQUOT) &&
	    gens_marks(gens, info->nr_pages, info->run_id).own)
		sp = spare_write(loc->path, info, gens, err);
	if (sp != -ENOSPC)
		ret = sp; /* in a spare: 0, or its directory's fsync failure (said) */
	else
		strbuf_addstr(err, first.buf);
	if (ret != -EEXIST)
		spares_keep(loc->path, JOURNAL_HEADER_SIZE + 4 * info->nr_pages);
	strbuf_release(&first);
	return ret;
}

static int file_read(const struct journal_loc *loc, struct journal_info *info, uint32_t **gens,
		     struct strbuf *err)
{
	const char *path = loc->path;
	unsigned char h[JOURNAL_HEADER_SIZE];
	struct hdr d;
	uint64_t want;
	struct stat st;
	size_t got;
	int fd, ret;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		if (ret == -ENOENT)
			strbuf_addf(err, "%s: cannot open: %s", path, strerror(-ret));
		else
			strbuf_addf(err, "%s: cannot read the journal: %s", path, strerror(-ret));
		return ret;
	}
	if (fstat(fd, &st) != 0) {
		ret = -errno;
		strbuf_addf(err, "%s: cannot read the journal: %s", path, strerror(-ret));
		goto out_close;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = -EINVAL;
		strbuf_addf(err, "%s: is %s, not a regular file, so not a generation journal", path,
			    file_kind_name(st.st_mode));
		goto out_close;
	}
	ret = pread_all(fd, h, sizeof(h), 0, &got);
	if (ret) {
		strbuf_addf(err, "%s: cannot read the journal: %s", path, strerror(-ret));
		goto out_close;
	}
	ret = header_decode(path, h, got, &d, err);
	if (ret) {
		ret = -EINVAL;
		goto out_close;
	}
	*info = d.info;
	ret = -EINVAL;
	want = JOURNAL_HEADER_SIZE + 4 * info->nr_pages;
	if ((uint64_t)st.st_size != want) {
		strbuf_addf(err, "%s: %s (%llu bytes, expected %llu)", path,
			    (uint64_t)st.st_size < want ? "truncated" : "damaged: wrong size",
			    (unsigned long long)st.st_size, (unsigned long long)want);
		goto out_close;
	}
	ret = read_gens(fd, path, d.version, JOURNAL_HEADER_SIZE, info->nr_pages, d.crc, gens, err);
out_close:
	close(fd);
	return ret;
}

/* One slot of a device region as found: its header, whether valid. */
struct slot {
	struct hdr h;
	int state; /* 0 valid header, -ENODATA nothing there, -EINVAL damaged,
		    * another -errno: it could not be read */
};

static void slots_read(int fd, const struct journal_loc *loc, const char *where, struct slot s[2],
		       struct strbuf *why)
{
	uint64_t ss = loc->size / 2;

	for (int k = 0; k < 2; k++) {
		unsigned char h[JOURNAL_HEADER_SIZE];
		struct strbuf w = STRBUF_INIT;
		size_t got = 0;
		int ret;

		strbuf_addf(&w, "%s slot %d", where, k);
		ret = pread_all(fd, h, sizeof(h), loc->offset + k * ss, &got);
		if (ret) {
			strbuf_addf(why, "%s%s: cannot read the journal: %s", why->len ? "; " : "",
				    w.buf, strerror(-ret));
			s[k].state = ret;
		} else {
			struct strbuf e = STRBUF_INIT;

			s[k].state = header_decode(w.buf, h, got, &s[k].h, &e);
			if (!s[k].state && (s[k].h.version < JOURNAL_VERSION_PLAIN ||
					    slot_size(s[k].h.info.nr_pages) > ss)) {
				strbuf_addf(&e,
					    "%s: damaged (version %u, %llu pages: not a slot "
					    "of this region)",
					    w.buf, s[k].h.version,
					    (unsigned long long)s[k].h.info.nr_pages);
				s[k].state = -EINVAL;
			}
			if (s[k].state == -EINVAL)
				strbuf_addf(why, "%s%s", why->len ? "; " : "", e.buf);
			strbuf_release(&e);
		}
		strbuf_release(&w);
	}
}

static int device_read(const struct journal_loc *loc, struct journal_info *info, uint32_t **gens,
		       struct strbuf *err)
{
	struct strbuf where = STRBUF_INIT, why = STRBUF_INIT;
	struct slot s[2] = {0};
	int fd, order[2], n = 0, ret = -ENOENT, ioerr = 0;

	journal_loc_describe(loc, &where);
	fd = open(loc->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		strbuf_addf(err, "%s: cannot read the journal: %s", where.buf, strerror(-ret));
		goto out;
	}
	slots_read(fd, loc, where.buf, s, &why);
	for (int k = 0; k < 2; k++)
		if (s[k].state && s[k].state != -ENODATA && s[k].state != -EINVAL)
			ioerr = ioerr ? ioerr : s[k].state;
	/* the newest valid slot first, the other if its generations are bad */
	if (!s[0].state && !s[1].state)
		order[n++] = s[1].h.seq > s[0].h.seq;
	for (int k = 0; k < 2; k++)
		if (!s[k].state && (!n || order[0] != k))
			order[n++] = k;
	for (int i = 0; i < n; i++) {
		int k = order[i];

		ret = read_gens(fd, where.buf, s[k].h.version,
				loc->offset + k * (loc->size / 2) + JOURNAL_HEADER_SIZE,
				s[k].h.info.nr_pages, s[k].h.crc, gens, &why);
		if (!ret) {
			*info = s[k].h.info;
			goto out_close;
		}
		if (ret == -ENOMEM)
			break;
		if (ret != -EINVAL)
			ioerr = ioerr ? ioerr : ret;
	}
	if (ret == -ENOENT && s[0].state == -ENODATA && s[1].state == -ENODATA) {
		strbuf_addf(err, "%s: no generation journal: %s", where.buf, strerror(ENOENT));
	} else if (ret != -ENOMEM && ioerr) {
		/* a slot that could not be read may be the good one: never
		 * "unusable" for what an I/O error hid */
		ret = ioerr;
		strbuf_addf(err, "%s: cannot read the journal: %s (%s)", where.buf,
			    strerror(-ioerr), why.buf);
	} else {
		if (ret != -ENOMEM)
			ret = -EINVAL;
		strbuf_addf(err, "%s: no usable journal slot (%s)", where.buf, why.buf);
	}
out_close:
	close(fd);
out:
	strbuf_release(&where);
	strbuf_release(&why);
	return ret;
}

static int device_write(const struct journal_loc *loc, const struct journal_info *info,
			const uint32_t *gens, struct strbuf *err)
{
	struct strbuf where = STRBUF_INIT, why = STRBUF_INIT;
	struct slot s[2] = {0};
	uint64_t seq = 0;
	int fd, k, ret;

	journal_loc_describe(loc, &where);
	if (slot_size(info->nr_pages) > loc->size / 2) {
		ret = -ENOSPC;
		strbuf_addf(err, "%s: %llu pages do not fit the journal region of %llu bytes",
			    where.buf, (unsigned long long)info->nr_pages,
			    (unsigned long long)loc->size);
		goto out;
	}
	/* not O_EXCL: the command may hold the device's one exclusive open */
	fd = open(loc->path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		strbuf_addf(err, "%s: cannot open: %s", where.buf, strerror(-ret));
		goto out;
	}
	slots_read(fd, loc, where.buf, s, &why);
	/* over the slot that is not the newest valid one: when both headers are
	 * good, the newer one's generations are checked too (a torn write can
	 * leave a good header over bad generations: that slot is the one to
	 * replace, never the other) */
	k = s[0].state ? 0 : s[1].state ? 1 : s[1].h.seq < s[0].h.seq;
	if (!s[0].state && !s[1].state) {
		uint32_t *g = NULL;
		int newest = !k;

		if (read_gens(fd, where.buf, s[newest].h.version,
			      loc->offset + newest * (loc->size / 2) + JOURNAL_HEADER_SIZE,
			      s[newest].h.info.nr_pages, s[newest].h.crc, &g, &why) == -EINVAL)
			k = newest;
		free(g);
	}
	for (int i = 0; i < 2; i++)
		if (!s[i].state && s[i].h.seq >= seq)
			seq = s[i].h.seq + 1;
	ret = write_contents(fd, loc->offset + k * (loc->size / 2), info, gens, seq);
	if (ret)
		strbuf_addf(err, "%s: cannot write slot %d: %s", where.buf, k, strerror(-ret));
	else if (fdatasync(fd) != 0) {
		ret = -errno;
		strbuf_addf(err, "%s: fdatasync failed: %s", where.buf, strerror(-ret));
	}
	close(fd);
out:
	strbuf_release(&where);
	strbuf_release(&why);
	return ret;
}

int journal_write(const struct journal_loc *loc, const struct journal_info *info,
		  const uint32_t *gens, struct strbuf *err)
{
	if (info->nr_pages > JOURNAL_MAX_PAGES || (info->nr_pages && !gens)) {
		strbuf_addf(err, "%s: cannot write journal: invalid page count", loc->path);
		return -EINVAL;
	}
	return loc->size ? device_write(loc, info, gens, err) : file_write(loc, info, gens, err);
}

int journal_read(const struct journal_loc *loc, struct journal_info *info, uint32_t **gens,
		 struct strbuf *err)
{
	int ret;

	*gens = NULL;
	memset(info, 0, sizeof(*info));
	ret = loc->size ? device_read(loc, info, gens, err) : file_read(loc, info, gens, err);
	if (ret)
		memset(info, 0, sizeof(*info));
	return ret;
}

/*
 * A version 2 or 3 file: the header rewritten in place (one sector), not yet
 * synced, the file left open in *out. 0; 1 (nothing written, *out -1) when
 * the file is older and must be rewritten whole; or -errno with err filled.
 */
static int file_mark_header(const struct journal_loc *loc, uint64_t run_id, int *out,
			    struct strbuf *err)
{
	unsigned char h[JOURNAL_HEADER_SIZE];
	struct hdr d;
	size_t got;
	int fd, ret;

	*out = -1;
	fd = open(loc->path, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		strbuf_addf(err, "%s: cannot open: %s", loc->path, strerror(-ret));
		return ret;
	}
	ret = pread_all(fd, h, sizeof(h), 0, &got);
	if (ret) {
		strbuf_addf(err, "%s: cannot read the journal: %s", loc->path, strerror(-ret));
		goto out_close;
	}
	ret = header_decode(loc->path, h, got, &d, err);
	if (ret) {
		ret = -EINVAL;
		goto out_close;
	}
	if (d.version < JOURNAL_VERSION_PLAIN) {
		ret = 1; /* the caller rewrites it whole */
		goto out_close;
	}
	d.info.flags &= ~JOURNAL_CLEAN;
	d.info.run_id = run_id;
	header_encode(h, &d.info, d.crc, d.seq, d.version);
	ret = pwrite_all(fd, h, sizeof(h), 0);
	if (!ret) {
		*out = fd;
		return 0;
	}
	strbuf_addf(err, "%s: cannot write the header: %s", loc->path, strerror(-ret));
out_close:
	close(fd);
	return ret;
}

static int file_mark_running(const struct journal_loc *loc, uint64_t run_id, struct strbuf *err)
{
	int fd, ret = file_mark_header(loc, run_id, &fd, err);

	if (ret)
		return ret;
	if (fdatasync(fd) != 0) {
		ret = -errno;
		strbuf_addf(err, "%s: fdatasync failed: %s", loc->path, strerror(-ret));
	}
	close(fd);
	return ret;
}

/* The fdatasyncs of a batch mark, shared out among a few threads. */
struct mark_sync {
	const int *fds;
	int *res;
	size_t n;
	atomic_size_t next;
};

static void *mark_sync_thread(void *arg)
{
	struct mark_sync *m = arg;

	for (size_t i; (i = atomic_fetch_add(&m->next, 1)) < m->n;)
		m->res[i] = fdatasync(m->fds[i]) ? -errno : 0;
	return NULL;
}

/* fdatasync of every fd, up to JOURNAL_MARK_THREADS at a time (the calling
 * thread is one), so that a filesystem commits them together and a device's
 * cache flushes are shared; res[i] is fds[i]'s 0 or -errno. */
static void mark_sync_all(const int *fds, int *res, size_t n)
{
	struct mark_sync m = {.fds = fds, .res = res, .n = n};
	pthread_t t[JOURNAL_MARK_THREADS - 1];
	size_t started = 0;

	atomic_init(&m.next, 0);
	while (started < JOURNAL_MARK_THREADS - 1 && started + 1 < n &&
	       !pthread_create(&t[started], NULL, mark_sync_thread, &m))
		started++;
	mark_sync_thread(&m);
	for (size_t i = 0; i < started; i++)
		pthread_join(t[i], NULL);
}

int journal_mark_running_files(const struct journal_loc *const *locs, size_t n, uint64_t run_id,
			       bool *done, struct strbuf *err)
{
	int *fds = malloc((n ? n : 1) * sizeof(*fds)), *res = malloc((n ? n : 1) * sizeof(*res));
	size_t *idx = malloc((n ? n : 1) * sizeof(*idx)), k = 0;
	int first = 0;

	for (size_t i = 0; i < n; i++)
		done[i] = false;
	if (!fds || !res || !idx) {
		n = 0; /* each is left to journal_mark_running() */
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		struct strbuf e = STRBUF_INIT;
		int fd, ret;

		if (locs[i]->size) /* a device's slot: journal_mark_running() */
			continue;
		ret = file_mark_header(locs[i], run_id, &fd, &e);
		if (ret < 0 && !first) {
			first = ret;
			strbuf_addstr(err, e.buf);
		}
		strbuf_release(&e);
		if (!ret) {
			fds[k] = fd;
			idx[k++] = i;
		}
	}
	mark_sync_all(fds, res, k);
	for (size_t j = 0; j < k; j++) {
		close(fds[j]);
		done[idx[j]] = !res[j];
		if (res[j] && !first) {
			first = res[j];
			strbuf_addf(err, "%s: fdatasync failed: %s", locs[idx[j]]->path,
				    strerror(-first));
		}
	}
out:
	free(fds);
	free(res);
	free(idx);
	return first;
}

int journal_mark_running(const struct journal_loc *loc, uint64_t run_id, struct strbuf *err)
{
	struct journal_info info;
	uint32_t *gens = NULL;
	int ret;

	if (!loc->size) {
		struct stat st;

		if (lstat(loc->path, &st) != 0 && errno == ENOENT)
			return -ENOENT;
		ret = file_mark_running(loc, run_id, err);
		if (ret <= 0)
			return ret;
	}
	/* a device's next slot, or a version 1 file rewritten as version 2 */
	ret = journal_read(loc, &info, &gens, err);
	if (ret)
		return ret;
	info.flags &= ~JOURNAL_CLEAN;
	info.run_id = run_id;
	ret = journal_write(loc, &info, gens, err);
	free(gens);
	return ret;
}
