/* SPDX-License-Identifier: MIT */
/*
 * test_journal.c - the generation journal: a round trip with and without the
 * clean flag, a missing journal, each kind of damage reported with its
 * reason (a header bit flip included), version 1 files still read,
 * atomicity (a failed write leaves the previous journal as it was and no
 * temporary file behind), nothing that is not ours replaced or followed (a
 * foreign file at the journal's path, a link planted at the temporary
 * file's name), device regions (two slots, a torn write falls back to the
 * other), journal_mark_running(), failed-write marks (version 3: their
 * round trip, version 2 written without them, entries out of range), a
 * journal larger than one write, and what is taken for a spare.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "diskproof/journal.h"
#include "diskproof/page.h"

#define NPAGES 1000u

struct fixture {
	char dir[256];
	char path[300];
	struct journal_loc loc; /* a file at path */
	uint32_t gens[NPAGES];
	struct journal_info info;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	snprintf(f->dir, sizeof(f->dir), "%s/test_journal.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->path, sizeof(f->path), "%s/db1.gen", f->dir);
	f->loc = (struct journal_loc){.path = f->path};
	for (unsigned i = 0; i < NPAGES; i++)
		f->gens[i] = i % 7 ? i * 3 + 1 : 0;
	f->info = (struct journal_info){
		.db_id = 3,
		.page_size = 32768,
		.nr_pages = NPAGES,
		.run_id = 42,
		.seed = 0x1234567890abcdefULL,
		.flags = JOURNAL_CLEAN,
	};
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	DIR *d = opendir(f->dir);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		char p[600];

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(p, sizeof(p), "%s/%s", f->dir, e->d_name);
		if (unlink(p) != 0)
			rmdir(p);
	}
	if (d)
		closedir(d);
	rmdir(f->dir);
	free(f);
	return 0;
}

/* Entries of the directory other than . and .. */
static int dir_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static void write_ok(struct fixture *f)
{
	struct strbuf err = STRBUF_INIT;

	assert_int_equal(journal_write(&f->loc, &f->info, f->gens, &err), 0);
	assert_int_equal(err.len, 0);
	strbuf_release(&err);
}

/* Reads f->path expecting ret; on an error, expects msg in the message. */
static void read_expect(struct fixture *f, int want, const char *msg)
{
	struct strbuf err = STRBUF_INIT;
	struct journal_info info;
	uint32_t *gens = (uint32_t *)&info; /* must be reset */
	int ret = journal_read(&f->loc, &info, &gens, &err);

	assert_int_equal(ret, want);
	if (want) {
		assert_null(gens);
		assert_non_null(strstr(err.buf, msg));
		assert_non_null(strstr(err.buf, f->path));
	}
	free(gens);
	strbuf_release(&err);
}

/* Reads f->path expecting f->info and f->gens. */
static void round_trip_read(struct fixture *f)
{
	struct strbuf err = STRBUF_INIT;
	struct journal_info info;
	uint32_t *gens = NULL;

	assert_int_equal(journal_read(&f->loc, &info, &gens, &err), 0);
	assert_int_equal(info.db_id, f->info.db_id);
	assert_int_equal(info.page_size, f->info.page_size);
	assert_int_equal(info.nr_pages, f->info.nr_pages);
	assert_int_equal(info.run_id, f->info.run_id);
	assert_int_equal(info.seed, f->info.seed);
	assert_int_equal(info.flags, f->info.flags);
	assert_non_null(gens);
	if (info.nr_pages)
		assert_memory_equal(gens, f->gens, info.nr_pages * sizeof(*gens));
	free(gens);
	strbuf_release(&err);
}

static void round_trip(struct fixture *f)
{
	write_ok(f);
	round_trip_read(f);
}

static void test_round_trip(void **state)
{
	struct fixture *f = *state;
	struct stat st;

	round_trip(f);
	assert_int_equal(stat(f->path, &st), 0);
	assert_int_equal(st.st_size, JOURNAL_HEADER_SIZE + 4 * NPAGES);
	/* a periodic (not clean) write replaces it */
	f->info.flags = 0;
	f->gens[5] = 99;
	round_trip(f);
	/* nothing else in the directory: no temporary file left */
	assert_int_equal(dir_entries(f->dir), 1);
}

/* The one geometry check: database, page size and page count must all
 * match; the journal's own page count accepts any. */
static void test_info_matches(void **state)
{
	struct journal_info ji = {.db_id = 3, .page_size = 32768, .nr_pages = 100};

	(void)state;
	assert_true(journal_info_matches(&ji, 3, 32768, 100));
	assert_false(journal_info_matches(&ji, 4, 32768, 100));
	assert_false(journal_info_matches(&ji, 3, 8192, 100));
	assert_false(journal_info_matches(&ji, 3, 32768, 99));
	assert_false(journal_info_matches(&ji, 3, 32768, 101));
	assert_true(journal_info_matches(&ji, 3, 32768, ji.nr_pages));
}

static void test_empty(void **state)
{
	struct fixture *f = *state;

	f->info.nr_pages = 0;
	round_trip(f);
}

static void test_missing(void **state)
{
	struct fixture *f = *state;

	read_expect(f, -ENOENT, "No such file");
}

/* Overwrites len bytes at off of the journal. */
static void poke(struct fixture *f, off_t off, const void *data, size_t len)
{
	int fd = open(f->path, O_WRONLY);

	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, data, len, off), (ssize_t)len);
	close(fd);
}

static void test_bad_magic(void **state)
{
	struct fixture *f = *state;
	FILE *fp;

	write_ok(f);
	poke(f, 0, "X", 1);
	read_expect(f, -EINVAL, ": not a diskproof generation journal (bad magic)");
	/* a file shorter than the magic */
	fp = fopen(f->path, "w");
	assert_non_null(fp);
	fputs("DP", fp);
	fclose(fp);
	read_expect(f, -EINVAL, "bad magic");
	/* an empty file */
	assert_int_equal(truncate(f->path, 0), 0);
	read_expect(f, -EINVAL, "bad magic");
}

/* Recomputes the header CRC (bytes 52-55) after a poke, so that the field
 * checks behind it are reached. */
static void fix_header_crc(struct fixture *f)
{
	unsigned char h[JOURNAL_HEADER_SIZE];
	uint32_t crc;
	int fd = open(f->path, O_RDWR);

	assert_true(fd >= 0);
	assert_int_equal(pread(fd, h, sizeof(h), 0), (ssize_t)sizeof(h));
	memset(h + 52, 0, 4);
	crc = page_crc32c(0, h, sizeof(h));
	for (int i = 0; i < 4; i++)
		h[52 + i] = (unsigned char)(crc >> (8 * i));
	assert_int_equal(pwrite(fd, h, sizeof(h), 0), (ssize_t)sizeof(h));
	close(fd);
}

static void test_bad_version(void **state)
{
	struct fixture *f = *state;
	unsigned char v = JOURNAL_VERSION + 1;

	write_ok(f);
	poke(f, 8, &v, 1);
	fix_header_crc(f);
	read_expect(f, -EINVAL, "unsupported generation journal version 4");
}

static void test_bad_header(void **state)
{
	struct fixture *f = *state;
	unsigned char b = 0x80;

	write_ok(f);
	poke(f, 12, &b, 1); /* unknown flag */
	fix_header_crc(f);
	read_expect(f, -EINVAL, ": damaged (unknown flags 0x80)");
	write_ok(f);
	poke(f, 20, &b, 1); /* page size 32768 + 128: not a power of two */
	fix_header_crc(f);
	read_expect(f, -EINVAL, ": damaged (page size 32896)");
	write_ok(f);
	b = 0;
	poke(f, 16, &b, 1); /* database id 0 */
	fix_header_crc(f);
	read_expect(f, -EINVAL, ": damaged (database id 0)");
}

/* A bit flip anywhere in the header is found, in fields that no other check
 * looks at (run id, seed, the clean flag) too: the header has its own CRC. */
static void test_header_bit_flip(void **state)
{
	struct fixture *f = *state;
	static const off_t offs[] = {12, 32, 40, 47, 56, 63};

	for (size_t i = 0; i < sizeof(offs) / sizeof(offs[0]); i++) {
		unsigned char b;
		int fd;

		write_ok(f);
		fd = open(f->path, O_RDWR);
		assert_true(fd >= 0);
		assert_int_equal(pread(fd, &b, 1, offs[i]), 1);
		b ^= offs[i] == 12 ? 0x1 : 0x10; /* 12: JOURNAL_CLEAN itself */
		assert_int_equal(pwrite(fd, &b, 1, offs[i]), 1);
		close(fd);
		read_expect(f, -EINVAL, ": damaged (header checksum mismatch)");
	}
}

static void test_checksum(void **state)
{
	struct fixture *f = *state;
	unsigned char b = 0x55;

	write_ok(f);
	poke(f, JOURNAL_HEADER_SIZE + 4 * 500 + 2, &b, 1);
	read_expect(f, -EINVAL, ": damaged (checksum mismatch)");
	/* the generations' CRC field itself: the header's CRC sees it first */
	write_ok(f);
	poke(f, 48, &b, 1);
	read_expect(f, -EINVAL, ": damaged (header checksum mismatch)");
	/* ... and the generations' CRC behind a header made consistent again */
	fix_header_crc(f);
	read_expect(f, -EINVAL, ": damaged (checksum mismatch)");
}

/* Writes f->info and f->gens as a version 1 file (no header CRC), as the
 * diskproof before version 2 did. */
static void write_v1(struct fixture *f)
{
	unsigned char h[JOURNAL_HEADER_SIZE] = {0};
	uint32_t crc = page_crc32c(0, f->gens, sizeof(f->gens));
	FILE *fp = fopen(f->path, "w");

	assert_non_null(fp);
	memcpy(h, JOURNAL_MAGIC, 8);
	h[8] = 1;
	h[12] = (unsigned char)f->info.flags;
	memcpy(h + 16, &f->info.db_id, 4);
	memcpy(h + 20, &f->info.page_size, 4);
	memcpy(h + 24, &f->info.nr_pages, 8);
	memcpy(h + 32, &f->info.run_id, 8);
	memcpy(h + 40, &f->info.seed, 8);
	memcpy(h + 48, &crc, 4);
	assert_int_equal(fwrite(h, 1, sizeof(h), fp), sizeof(h));
	assert_int_equal(fwrite(f->gens, 1, sizeof(f->gens), fp), sizeof(f->gens));
	fclose(fp);
}

/* Existing data directories hold version 1 journals: still read. */
static void test_v1_read(void **state)
{
	struct fixture *f = *state;
	struct strbuf err = STRBUF_INIT;
	struct journal_info info;
	uint32_t *gens = NULL;
	unsigned char b = 0x55;

	write_v1(f);
	assert_int_equal(journal_read(&f->loc, &info, &gens, &err), 0);
	assert_int_equal(info.db_id, f->info.db_id);
	assert_int_equal(info.nr_pages, NPAGES);
	assert_int_equal(info.run_id, f->info.run_id);
	assert_int_equal(info.seed, f->info.seed);
	assert_int_equal(info.flags, JOURNAL_CLEAN);
	assert_memory_equal(gens, f->gens, sizeof(f->gens));
	free(gens);
	strbuf_release(&err);
	/* its generations are still checked */
	poke(f, JOURNAL_HEADER_SIZE + 8, &b, 1);
	read_expect(f, -EINVAL, ": damaged (checksum mismatch)");
}

static void test_truncated(void **state)
{
	struct fixture *f = *state;
	char msg[128];

	write_ok(f);
	assert_int_equal(truncate(f->path, JOURNAL_HEADER_SIZE + 4 * NPAGES - 3), 0);
	snprintf(msg, sizeof(msg), ": truncated (%u bytes, expected %u)",
		 JOURNAL_HEADER_SIZE + 4 * NPAGES - 3, JOURNAL_HEADER_SIZE + 4 * NPAGES);
	read_expect(f, -EINVAL, msg);
	/* only part of the header */
	assert_int_equal(truncate(f->path, 40), 0);
	read_expect(f, -EINVAL, ": truncated (40 bytes, expected at least 64)");
	/* longer than the header says */
	write_ok(f);
	assert_int_equal(truncate(f->path, JOURNAL_HEADER_SIZE + 4 * NPAGES + 4), 0);
	read_expect(f, -EINVAL, ": damaged: wrong size");
}

static void assert_unchanged(struct fixture *f, const struct journal_info *old_info,
			     const uint32_t *old_gens)
{
	struct strbuf err = STRBUF_INIT;
	struct journal_info info;
	uint32_t *gens = NULL;

	assert_int_equal(journal_read(&f->loc, &info, &gens, &err), 0);
	assert_int_equal(info.flags, old_info->flags);
	assert_int_equal(info.run_id, old_info->run_id);
	assert_memory_equal(gens, old_gens, sizeof(f->gens));
	free(gens);
	strbuf_release(&err);
}

/*
 * A write that fails before its rename leaves the old journal and no
 * temporary file. Two ways to fail that work even as root (where a read-only
 * directory does not stop anything): the temporary file's name is taken by a
 * directory (creation fails), and the target is a directory (rename fails
 * after the temporary file was written in full).
 */
static void test_atomic_failed_write(void **state)
{
	struct fixture *f = *state;
	struct strbuf err = STRBUF_INIT;
	struct journal_info old = f->info;
	uint32_t *old_gens = malloc(sizeof(f->gens));
	char tmp[400], sub[400];

	assert_non_null(old_gens);
	write_ok(f);
	memcpy(old_gens, f->gens, sizeof(f->gens));
	/* every name the temporary file may take is taken: nothing in the way
	 * is touched, the old journal stays */
	f->info.flags = 0;
	f->info.run_id = 43;
	f->gens[1] = 12345;
	for (int k = 0; k < 16; k++) {
		snprintf(tmp, sizeof(tmp), "%s.tmp.%ld%s%.0d", f->path, (long)getpid(),
			 k ? "." : "", k);
		assert_int_equal(mkdir(tmp, 0755), 0);
	}
	assert_int_equal(journal_write(&f->loc, &f->info, f->gens, &err), -EEXIST);
	assert_non_null(strstr(err.buf, f->path));
	assert_non_null(strstr(err.buf, "cannot create a temporary file (every name taken)"));
	assert_unchanged(f, &old, old_gens);
	assert_int_equal(dir_entries(f->dir), 17);
	for (int k = 0; k < 16; k++) {
		snprintf(tmp, sizeof(tmp), "%s.tmp.%ld%s%.0d", f->path, (long)getpid(),
			 k ? "." : "", k);
		assert_int_equal(rmdir(tmp), 0);
	}
	assert_int_equal(dir_entries(f->dir), 1);

	/* a directory at the journal's path is not a journal: not replaced */
	strbuf_reset(&err);
	snprintf(sub, sizeof(sub), "%s/x.gen", f->dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	snprintf(tmp, sizeof(tmp), "%s/x.gen/keep", f->dir);
	assert_int_equal(mkdir(tmp, 0755), 0);
	assert_int_equal(journal_write(&(struct journal_loc){.path = sub}, &f->info, f->gens, &err),
			 -EEXIST);
	assert_non_null(strstr(err.buf, "is not a diskproof generation journal"));
	assert_int_equal(dir_entries(f->dir), 2); /* db1.gen and x.gen only */
	assert_int_equal(rmdir(tmp), 0);
	assert_int_equal(rmdir(sub), 0);

	/* a directory that does not exist */
	strbuf_reset(&err);
	f->info.flags = 0;
	snprintf(sub, sizeof(sub), "%s/nowhere/db1.gen", f->dir);
	assert_int_equal(journal_write(&(struct journal_loc){.path = sub}, &f->info, f->gens, &err),
			 -ENOENT);
	assert_non_null(strstr(err.buf, sub));
	assert_unchanged(f, &old, old_gens);
	free(old_gens);
	strbuf_release(&err);
}

/* Not as root: a read-only directory refuses the temporary file. */
static void test_atomic_readonly_dir(void **state)
{
	struct fixture *f = *state;
	struct strbuf err = STRBUF_INIT;
	struct journal_info old = f->info;
	uint32_t old_gens[NPAGES];

	if (geteuid() == 0)
		skip();
	write_ok(f);
	memcpy(old_gens, f->gens, sizeof(f->gens));
	assert_int_equal(chmod(f->dir, 0555), 0);
	f->info.run_id = 44;
	f->gens[2] = 777;
	assert_int_equal(journal_write(&f->loc, &f->info, f->gens, &err), -EACCES);
	assert_int_equal(chmod(f->dir, 0755), 0);
	assert_unchanged(f, &old, old_gens);
	assert_int_equal(dir_entries(f->dir), 1);
	strbuf_release(&err);
}

static void write_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

static void assert_file_is(const char *path, const char *text)
{
	char buf[256] = {0};
	FILE *fp = fopen(path, "r");

	assert_non_null(fp);
	assert_int_equal(fread(buf, 1, sizeof(buf) - 1, fp), strlen(text));
	fclose(fp);
	assert_string_equal(buf, text);
}

/* A file that is not a journal (a user's db1.gen, a link) is never
 * replaced; a link planted at the temporary file's name is never followed,
 * nor removed. */
static void test_not_ours(void **state)
{
	struct fixture *f = *state;
	struct strbuf err = STRBUF_INIT;
	char victim[400], tmp[400], target[400];

	write_file(f->path, "my notes\n");
	assert_int_equal(journal_write(&f->loc, &f->info, f->gens, &err), -EEXIST);
	assert_non_null(strstr(err.buf, f->path));
	assert_non_null(strstr(err.buf, "is not a diskproof generation journal"));
	assert_file_is(f->path, "my notes\n");
	assert_int_equal(dir_entries(f->dir), 1);
	/* a link at the journal's path, to a journal even */
	snprintf(victim, sizeof(victim), "%s/victim", f->dir);
	write_file(victim, "precious\n");
	assert_int_equal(unlink(f->path), 0);
	assert_int_equal(symlink(victim, f->path), 0);
	strbuf_reset(&err);
	assert_int_equal(journal_write(&f->loc, &f->info, f->gens, &err), -EEXIST);
	assert_file_is(victim, "precious\n");
	assert_int_equal(unlink(f->path), 0);

	/* a link planted where the temporary file goes */
	snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", f->path, (long)getpid());
	assert_int_equal(symlink(victim, tmp), 0);
	strbuf_reset(&err);
	write_ok(f);
	assert_file_is(victim, "precious\n");
	assert_int_equal(readlink(tmp, target, sizeof(target) - 1), (ssize_t)strlen(victim));
	round_trip(f);
	assert_int_equal(dir_entries(f->dir), 3); /* db1.gen, victim, the link */
	strbuf_release(&err);
}

/* journal_file_check: only what was read whole and is not a journal is
 * -EEXIST ("not a journal"); what cannot be looked at is its errno, said as
 * "cannot read the journal" */
static void test_file_check(void **state)
{
	struct fixture *f = *state;
	struct strbuf err = STRBUF_INIT;
	char under[400];

	assert_int_equal(journal_file_check(f->path, &err), 0); /* missing */
	write_ok(f);
	assert_int_equal(journal_file_check(f->path, &err), 0);
	assert_int_equal(unlink(f->path), 0);
	write_file(f->path, "DPG"); /* shorter than the magic */
	assert_int_equal(journal_file_check(f->path, &err), -EEXIST);
	write_file(f->path, "my notes\n");
	assert_int_equal(journal_file_check(f->path, &err), -EEXIST);
	assert_int_equal(err.len, 0);
	/* a path under a regular file cannot be looked at: its errno */
	snprintf(under, sizeof(under), "%s/db2.gen", f->path);
	assert_int_equal(journal_file_check(under, &err), -ENOTDIR);
	assert_non_null(strstr(err.buf, "db2.gen: cannot read the journal: Not a directory"));
	assert_null(strstr(err.buf, "not a diskproof"));
	strbuf_reset(&err);
	assert_int_equal(unlink(f->path), 0);
	assert_int_equal(mkdir(f->path, 0755), 0);
	assert_int_equal(journal_file_check(f->path, &err), -EEXIST);
	assert_int_equal(rmdir(f->path), 0);
	strbuf_release(&err);
}

#define DEV_SIZE (1u << 20)
#define DEV_OFF (3u * 4096)

/* A regular file stands in for the block device: the region code only
 * preads and pwrites it. Filled with 0xee so that bytes outside the region
 * can be checked. */
static void dev_setup(struct fixture *f, char *dev, size_t len, struct journal_loc *loc)
{
	static unsigned char fill[DEV_SIZE];
	FILE *fp;

	snprintf(dev, len, "%s/dev.img", f->dir);
	memset(fill, 0xee, sizeof(fill));
	fp = fopen(dev, "w");
	assert_non_null(fp);
	assert_int_equal(fwrite(fill, 1, sizeof(fill), fp), sizeof(fill));
	fclose(fp);
	*loc = (struct journal_loc){dev, DEV_OFF, journal_region_size(NPAGES)};
	assert_true(DEV_OFF + loc->size < DEV_SIZE);
}

static void dev_read_expect(const struct journal_loc *loc, uint64_t run_id, uint32_t flags,
			    const uint32_t *want)
{
	struct strbuf err = STRBUF_INIT;
	struct journal_info info;
	uint32_t *gens = NULL;

	assert_int_equal(journal_read(loc, &info, &gens, &err), 0);
	assert_int_equal(info.run_id, run_id);
	assert_int_equal(info.flags, flags);
	assert_int_equal(info.nr_pages, NPAGES);
	assert_memory_equal(gens, want, NPAGES * sizeof(*gens));
	free(gens);
	strbuf_release(&err);
}

static void dev_poke(const struct journal_loc *loc, uint64_t off, unsigned char b)
{
	int fd = open(loc->path, O_WRONLY);

	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, &b, 1, (off_t)(loc->offset + off)), 1);
	close(fd);
}

/* Only the region is written. */
static void dev_outside_unchanged(const struct journal_loc *loc)
{
	static unsigned char buf[DEV_SIZE];
	int fd = open(loc->path, O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(pread(fd, buf, sizeof(buf), 0), (ssize_t)sizeof(buf));
	close(fd);
	for (size_t i = 0; i < sizeof(buf); i++)
		if (i < loc->offset || i >= loc->offset + loc->size)
			assert_int_equal(buf[i], 0xee);
}

static void test_device_slots(void **state)
{
	struct fixture *f = *state;
	struct strbuf err = STRBUF_INIT;
	struct journal_loc loc;
	struct journal_info info;
	uint32_t *gens = NULL, *big, first[NPAGES];
	uint64_t slot;
	char dev[300];

	dev_setup(f, dev, sizeof(dev), &loc);
	slot = loc.size / 2;
	assert_int_equal(slot % JOURNAL_SLOT_ALIGN, 0);
	assert_true(slot >= JOURNAL_HEADER_SIZE + 4 * NPAGES);
	/* nothing there yet */
	assert_int_equal(journal_read(&loc, &info, &gens, &err), -ENOENT);
	assert_null(gens);
	assert_non_null(strstr(err.buf, "journal region at byte 12288"));
	/* two writes, one per slot; the newer is read */
	f->info.run_id = 1;
	strbuf_reset(&err);
	assert_int_equal(journal_write(&loc, &f->info, f->gens, &err), 0);
	dev_read_expect(&loc, 1, JOURNAL_CLEAN, f->gens);
	memcpy(first, f->gens, sizeof(first));
	f->gens[7] = 700;
	f->info.run_id = 2;
	f->info.flags = 0;
	assert_int_equal(journal_write(&loc, &f->info, f->gens, &err), 0);
	dev_read_expect(&loc, 2, 0, f->gens);
	dev_outside_unchanged(&loc);
	/* the newer slot (1) torn: its generations do not match its CRC, the
	 * older one is read */
	dev_poke(&loc, slot + JOURNAL_HEADER_SIZE + 4 * 7, 0x01);
	dev_read_expect(&loc, 1, JOURNAL_CLEAN, first);
	/* the next write goes over the torn slot, never the good one */
	f->info.run_id = 3;
	assert_int_equal(journal_write(&loc, &f->info, f->gens, &err), 0);
	dev_read_expect(&loc, 3, 0, f->gens);
	dev_poke(&loc, slot + 33, 0x40); /* its header now */
	dev_read_expect(&loc, 1, JOURNAL_CLEAN, first);
	/* both damaged: unusable, with both reasons */
	dev_poke(&loc, 33, 0x40);
	strbuf_reset(&err);
	assert_int_equal(journal_read(&loc, &info, &gens, &err), -EINVAL);
	assert_non_null(strstr(err.buf, "no usable journal slot"));
	assert_non_null(strstr(err.buf, "slot 0: damaged (header checksum mismatch)"));
	assert_non_null(strstr(err.buf, "slot 1: damaged (header checksum mismatch)"));
	/* too many pages for the region */
	f->info.nr_pages = NPAGES * 3;
	strbuf_reset(&err);
	big = calloc(NPAGES * 3, 4);
	assert_non_null(big);
	assert_int_equal(journal_write(&loc, &f->info, big, &err), -ENOSPC);
	free(big);
	dev_outside_unchanged(&loc);
	strbuf_release(&err);
}

/* Reads the raw header of a journal file. */
static void raw_header(const char *path, unsigned char *h)
{
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(pread(fd, h, JOURNAL_HEADER_SIZE, 0), JOURNAL_HEADER_SIZE);
	close(fd);
}

static void test_mark_running(void **state)
{
	struct fixture *f = *state;
	struct strbuf err = STRBUF_INIT;
	unsigned char h[JOURNAL_HEADER_SIZE];
	struct stat a, b;

	/* no journal */
	assert_int_equal(journal_mark_running(&f->loc, 7, &err), -ENOENT);
	/* version 2: the header rewritten in place, generations untouched */
	write_ok(f);
	assert_int_equal(stat(f->path, &a), 0);
	assert_int_equal(journal_mark_running(&f->loc, 7, &err), 0);
	assert_int_equal(err.len, 0);
	assert_int_equal(stat(f->path, &b), 0);
	assert_int_equal(a.st_ino, b.st_ino);
	assert_int_equal(a.st_size, b.st_size);
	f->info.flags = 0;
	f->info.run_id = 7;
	round_trip_read(f); /* flags cleared, run id set, gens and header CRC good */
	/* again (a second run on an unclean journal): still fine */
	assert_int_equal(journal_mark_running(&f->loc, 8, &err), 0);
	f->info.run_id = 8;
	round_trip_read(f);
	/* version 1: rewritten whole as version 2 */
	f->info.flags = JOURNAL_CLEAN;
	f->info.run_id = 42;
	write_v1(f);
	assert_int_equal(journal_mark_running(&f->loc, 9, &err), 0);
	raw_header(f->path, h);
	assert_int_equal(h[8], JOURNAL_VERSION_PLAIN);
	f->info.flags = 0;
	f->info.run_id = 9;
	round_trip_read(f);
	assert_int_equal(dir_entries(f->dir), 1);
	/* a damaged journal is not marked (nor made valid) */
	poke(f, 33, "x", 1);
	strbuf_reset(&err);
	assert_int_equal(journal_mark_running(&f->loc, 10, &err), -EINVAL);
	assert_non_null(strstr(err.buf, "header checksum mismatch"));
	strbuf_release(&err);
}

/* journal_mark_running_files(): many journals marked at once, in place and
 * durably, each as journal_mark_running() would; the ones it cannot mark in
 * place (version 1, a device's slot, none there, damaged) are left unset,
 * and the first failure is said. */
static void test_mark_running_files(void **state)
{
	enum { N = 40 };
	struct fixture *f = *state;
	struct strbuf err = STRBUF_INIT;
	char paths[N + 4][320];
	struct journal_loc locs[N + 4];
	const struct journal_loc *lp[N + 4];
	bool done[N + 4];
	struct stat a, b;

	for (int i = 0; i < N + 4; i++) {
		snprintf(paths[i], sizeof(paths[i]), "%s/many%d.gen", f->dir, i);
		locs[i] = (struct journal_loc){.path = paths[i]};
		lp[i] = &locs[i];
	}
	for (int i = 0; i < N; i++) {
		f->info.db_id = (uint32_t)i + 1;
		f->info.flags = JOURNAL_CLEAN;
		f->info.run_id = 3;
		assert_int_equal(journal_write(&locs[i], &f->info, f->gens, &err), 0);
	}
	assert_int_equal(stat(paths[0], &a), 0);
	/* N: version 1 (at f->path), N + 1: a device's slot, N + 2: none */
	f->info.db_id = 99;
	write_v1(f);
	lp[N] = &f->loc;
	locs[N + 1] = (struct journal_loc){.path = f->path, .offset = 4096, .size = 8192};
	/* N + 3: damaged */
	assert_int_equal(journal_write(&locs[N + 3], &f->info, f->gens, &err), 0);
	{
		int fd = open(paths[N + 3], O_WRONLY);

		assert_true(fd >= 0);
		assert_int_equal(pwrite(fd, "x", 1, 33), 1);
		close(fd);
	}
	assert_int_equal(journal_mark_running_files(lp, N + 4, 12, done, &err), -ENOENT);
	assert_non_null(strstr(err.buf, paths[N + 2]));
	for (int i = 0; i < N; i++) {
		struct journal_info info;
		uint32_t *gens = NULL;

		assert_true(done[i]);
		assert_int_equal(journal_read(&locs[i], &info, &gens, &err), 0);
		assert_int_equal(info.db_id, (uint32_t)i + 1);
		assert_int_equal(info.run_id, 12);
		assert_int_equal(info.flags & JOURNAL_CLEAN, 0);
		assert_memory_equal(gens, f->gens, sizeof(f->gens));
		free(gens);
	}
	/* in place: the same file, not a new one renamed over it */
	assert_int_equal(stat(paths[0], &b), 0);
	assert_int_equal(a.st_ino, b.st_ino);
	for (int i = N; i < N + 4; i++)
		assert_false(done[i]);
	/* the version 1 file is untouched: journal_mark_running() rewrites it */
	{
		unsigned char h[JOURNAL_HEADER_SIZE];

		raw_header(f->path, h);
		assert_int_equal(h[8], 1);
	}
	/* nothing to do */
	strbuf_reset(&err);
	assert_int_equal(journal_mark_running_files(lp, 0, 12, done, &err), 0);
	assert_int_equal(err.len, 0);
	strbuf_release(&err);
}

/* Failed-write marks (version 3): they round-trip with the run they name,
 * in a file and in a device slot; a journal without one is written as
 * version 2, one with one as version 3; marking a version 3 file in
 * progress keeps it version 3 and its marks. */
static void test_failed_marks(void **state)
{
	struct fixture *f = *state;
	struct strbuf err = STRBUF_INIT;
	unsigned char h[JOURNAL_HEADER_SIZE];
	struct journal_loc loc;
	char dev[300];

	write_ok(f);
	raw_header(f->path, h);
	assert_int_equal(h[8], JOURNAL_VERSION_PLAIN);
	f->gens[3] = journal_failed_mark(42);
	f->gens[999] = journal_failed_mark(7);
	f->gens[500] = journal_failed_mark(0);		/* init --precondition */
	f->gens[501] = journal_failed_mark(1ULL << 40); /* too large to keep */
	f->gens[502] = 12345 | JOURNAL_GEN_LOWER;	/* a lower bound still */
	round_trip(f);
	raw_header(f->path, h);
	assert_int_equal(h[8], JOURNAL_VERSION);
	assert_true(journal_gen_failed(f->gens[3]));
	assert_false(journal_gen_failed(f->gens[502]));
	assert_false(journal_gen_failed(0xffffffffu));
	assert_int_equal(journal_failed_run(f->gens[3]), 42);
	assert_int_equal(journal_failed_run(f->gens[500]), 0);
	assert_int_equal(journal_failed_run(f->gens[501]), JOURNAL_FAILED_RUN_MASK);
	/* in progress: header in place, still version 3, marks kept */
	assert_int_equal(journal_mark_running(&f->loc, 43, &err), 0);
	raw_header(f->path, h);
	assert_int_equal(h[8], JOURNAL_VERSION);
	f->info.flags = 0;
	f->info.run_id = 43;
	round_trip_read(f);
	/* a device slot */
	dev_setup(f, dev, sizeof(dev), &loc);
	assert_int_equal(journal_write(&loc, &f->info, f->gens, &err), 0);
	dev_read_expect(&loc, 43, 0, f->gens);
	assert_int_equal(err.len, 0);
	strbuf_release(&err);
}

/* An entry that is none of generation, lower bound or (version 3) mark is
 * damage: bit 30 in a version 2 journal, bits 30 and 31 together in any. */
static void test_failed_marks_damage(void **state)
{
	struct fixture *f = *state;
	unsigned char v = JOURNAL_VERSION_PLAIN;

	f->gens[10] = JOURNAL_GEN_LOWER | JOURNAL_GEN_FAILED | 5;
	write_ok(f); /* no mark: written as version 2 */
	read_expect(f, -EINVAL, ": damaged (entry 0xc0000005 of page 10: not a generation)");
	f->gens[10] = journal_failed_mark(5);
	write_ok(f); /* version 3 */
	poke(f, 8, &v, 1);
	fix_header_crc(f);
	read_expect(f, -EINVAL, ": damaged (entry 0x40000005 of page 10: not a generation)");
}

/* A journal larger than one write's buffer: every piece lands in place. */
static void test_large(void **state)
{
	struct fixture *f = *state;
	struct strbuf err = STRBUF_INIT;
	struct journal_info info = f->info;
	uint32_t *gens, *back = NULL;
	struct stat st;

	info.nr_pages = 100003;
	gens = malloc(info.nr_pages * 4);
	assert_non_null(gens);
	for (uint64_t i = 0; i < info.nr_pages; i++)
		gens[i] = i % 1001 ? (uint32_t)(i * 7 + 1) : journal_failed_mark(i);
	assert_int_equal(journal_write(&f->loc, &info, gens, &err), 0);
	assert_int_equal(stat(f->path, &st), 0);
	assert_int_equal(st.st_size, JOURNAL_HEADER_SIZE + 4 * info.nr_pages);
	assert_int_equal(journal_read(&f->loc, &info, &back, &err), 0);
	assert_int_equal(info.nr_pages, 100003);
	assert_memory_equal(back, gens, info.nr_pages * 4);
	free(back);
	free(gens);
	strbuf_release(&err);
}

/* What journal_spare_ours() takes for a spare of ours: an empty regular
 * file with one link; never a link to one, a file with data, a file with
 * another name for it. */
static void test_spare_ours(void **state)
{
	struct fixture *f = *state;
	struct strbuf name = STRBUF_INIT;
	char other[400], link2[400];
	int fd;

	journal_spare_name(f->path, 1, &name);
	assert_non_null(strstr(name.buf, "db1.gen.spare.1"));
	assert_false(journal_spare_ours(name.buf)); /* nothing there */
	fd = open(name.buf, O_WRONLY | O_CREAT | O_EXCL, 0644);
	assert_true(fd >= 0);
	close(fd);
	assert_true(journal_spare_ours(name.buf));
	snprintf(link2, sizeof(link2), "%s/hard", f->dir);
	assert_int_equal(link(name.buf, link2), 0);
	assert_false(journal_spare_ours(name.buf)); /* two names */
	unlink(link2);
	assert_true(journal_spare_ours(name.buf));
	write_file(name.buf, "data");
	assert_false(journal_spare_ours(name.buf)); /* not empty */
	unlink(name.buf);
	snprintf(other, sizeof(other), "%s/empty", f->dir);
	write_file(other, "");
	assert_int_equal(symlink(other, name.buf), 0);
	assert_false(journal_spare_ours(name.buf)); /* a link, never followed */
	unlink(name.buf);
	assert_int_equal(mkdir(name.buf, 0755), 0);
	assert_false(journal_spare_ours(name.buf));
	rmdir(name.buf);
	strbuf_release(&name);
}

static void test_mark_running_device(void **state)
{
	struct fixture *f = *state;
	struct strbuf err = STRBUF_INIT;
	struct journal_loc loc;
	char dev[300];

	dev_setup(f, dev, sizeof(dev), &loc);
	assert_int_equal(journal_mark_running(&loc, 5, &err), -ENOENT);
	strbuf_reset(&err);
	assert_int_equal(journal_write(&loc, &f->info, f->gens, &err), 0);
	assert_int_equal(journal_mark_running(&loc, 5, &err), 0);
	dev_read_expect(&loc, 5, 0, f->gens);
	/* the next write (the run's end) goes over the old clean slot */
	f->info.run_id = 5;
	f->gens[3] = 33;
	assert_int_equal(journal_write(&loc, &f->info, f->gens, &err), 0);
	dev_read_expect(&loc, 5, JOURNAL_CLEAN, f->gens);
	dev_outside_unchanged(&loc);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_empty, setup, teardown),
		cmocka_unit_test(test_info_matches),
		cmocka_unit_test_setup_teardown(test_missing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_magic, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_version, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_header, setup, teardown),
		cmocka_unit_test_setup_teardown(test_header_bit_flip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_checksum, setup, teardown),
		cmocka_unit_test_setup_teardown(test_v1_read, setup, teardown),
		cmocka_unit_test_setup_teardown(test_truncated, setup, teardown),
		cmocka_unit_test_setup_teardown(test_atomic_failed_write, setup, teardown),
		cmocka_unit_test_setup_teardown(test_atomic_readonly_dir, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_ours, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file_check, setup, teardown),
		cmocka_unit_test_setup_teardown(test_device_slots, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mark_running, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mark_running_device, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mark_running_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failed_marks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failed_marks_damage, setup, teardown),
		cmocka_unit_test_setup_teardown(test_large, setup, teardown),
		cmocka_unit_test_setup_teardown(test_spare_ours, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
