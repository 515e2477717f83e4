/*
 * test_journal.c - the generation journal: a round trip with and without the
 * clean flag, a missing journal, each kind of damage reported with its
 * reason, and atomicity (a failed write leaves the previous journal as it was
 * and no temporary file behind).
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

#define NPAGES 1000u

struct fixture {
	char dir[256];
	char path[300];
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

	assert_int_equal(journal_write(f->path, &f->info, f->gens, &err), 0);
	assert_int_equal(err.len, 0);
	strbuf_release(&err);
}

/* Reads f->path expecting ret; on an error, expects msg in the message. */
static void read_expect(struct fixture *f, int want, const char *msg)
{
	struct strbuf err = STRBUF_INIT;
	struct journal_info info;
	uint32_t *gens = (uint32_t *)&info; /* must be reset */
	int ret = journal_read(f->path, &info, &gens, &err);

	assert_int_equal(ret, want);
	if (want) {
		assert_null(gens);
		assert_non_null(strstr(err.buf, msg));
		assert_non_null(strstr(err.buf, f->path));
	}
	free(gens);
	strbuf_release(&err);
}

static void round_trip(struct fixture *f)
{
	struct strbuf err = STRBUF_INIT;
	struct journal_info info;
	uint32_t *gens = NULL;

	write_ok(f);
	assert_int_equal(journal_read(f->path, &info, &gens, &err), 0);
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

static void test_bad_version(void **state)
{
	struct fixture *f = *state;
	unsigned char v = 2;

	write_ok(f);
	poke(f, 8, &v, 1);
	read_expect(f, -EINVAL, "unsupported generation journal version 2");
}

static void test_bad_header(void **state)
{
	struct fixture *f = *state;
	unsigned char b = 0x80;

	write_ok(f);
	poke(f, 12, &b, 1); /* unknown flag */
	read_expect(f, -EINVAL, ": damaged (unknown flags 0x80)");
	write_ok(f);
	poke(f, 20, &b, 1); /* page size 32768 + 128: not a power of two */
	read_expect(f, -EINVAL, ": damaged (page size 32896)");
	write_ok(f);
	b = 0;
	poke(f, 16, &b, 1); /* database id 0 */
	read_expect(f, -EINVAL, ": damaged (database id 0)");
}

static void test_checksum(void **state)
{
	struct fixture *f = *state;
	unsigned char b = 0x55;

	write_ok(f);
	poke(f, JOURNAL_HEADER_SIZE + 4 * 500 + 2, &b, 1);
	read_expect(f, -EINVAL, ": damaged (checksum mismatch)");
	/* the CRC field itself */
	write_ok(f);
	poke(f, 48, &b, 1);
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

	assert_int_equal(journal_read(f->path, &info, &gens, &err), 0);
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
	/* creation of the temporary file fails */
	snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", f->path, (long)getpid());
	assert_int_equal(mkdir(tmp, 0755), 0);
	f->info.flags = 0;
	f->info.run_id = 43;
	f->gens[1] = 12345;
	assert_int_equal(journal_write(f->path, &f->info, f->gens, &err), -EISDIR);
	assert_non_null(strstr(err.buf, f->path));
	assert_non_null(strstr(err.buf, "cannot create"));
	assert_int_equal(rmdir(tmp), 0);
	assert_unchanged(f, &old, old_gens);
	assert_int_equal(dir_entries(f->dir), 1);

	/* the rename fails: the target is a non-empty directory */
	strbuf_reset(&err);
	snprintf(sub, sizeof(sub), "%s/x.gen", f->dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	snprintf(tmp, sizeof(tmp), "%s/x.gen/keep", f->dir);
	assert_int_equal(mkdir(tmp, 0755), 0);
	assert_true(journal_write(sub, &f->info, f->gens, &err) < 0);
	assert_non_null(strstr(err.buf, "cannot rename"));
	assert_int_equal(dir_entries(f->dir), 2); /* db1.gen and x.gen only */
	assert_int_equal(rmdir(tmp), 0);
	assert_int_equal(rmdir(sub), 0);

	/* a directory that does not exist */
	strbuf_reset(&err);
	snprintf(sub, sizeof(sub), "%s/nowhere/db1.gen", f->dir);
	assert_int_equal(journal_write(sub, &f->info, f->gens, &err), -ENOENT);
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
	assert_int_equal(journal_write(f->path, &f->info, f->gens, &err), -EACCES);
	assert_int_equal(chmod(f->dir, 0755), 0);
	assert_unchanged(f, &old, old_gens);
	assert_int_equal(dir_entries(f->dir), 1);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_empty, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_magic, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_version, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_header, setup, teardown),
		cmocka_unit_test_setup_teardown(test_checksum, setup, teardown),
		cmocka_unit_test_setup_teardown(test_truncated, setup, teardown),
		cmocka_unit_test_setup_teardown(test_atomic_failed_write, setup, teardown),
		cmocka_unit_test_setup_teardown(test_atomic_readonly_dir, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
