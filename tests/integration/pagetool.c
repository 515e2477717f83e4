/* SPDX-License-Identifier: MIT */
/*
 * pagetool.c - test helper for test_verify.sh: damages diskproof files in
 * ways that a byte flip cannot, and reads journals.
 *
 *   pagetool stamp FILE PAGE GEN   rewrites page PAGE as a valid page of
 *                                  generation GEN (database id, seed and run
 *                                  id from the page's own header, page size
 *                                  from page 0's): a lost write when GEN is
 *                                  older than the journal's
 *   pagetool recrc FILE PAGE       recomputes the CRC32C of page PAGE in place,
 *                                  so that a changed payload byte passes the
 *                                  checksum and only "verify --deep" sees it
 *   pagetool gen FILE PAGE         prints the generation in page PAGE's header
 *   pagetool crc FILE PAGE         prints "ok" when page PAGE's CRC32C is
 *                                  right, "bad" when not (torn, corrupt)
 *   pagetool journal FILE.gen      prints "PAGE GEN" per page of a journal,
 *                                  "PAGE GEN lower" where it is a lower bound,
 *                                  "PAGE failed RUN" where the page's last
 *                                  write failed (the header on stderr)
 *   pagetool journal DEV OFF SIZE  the same for a device's journal region
 *                                  (offset and size from "plan --format json")
 *   pagetool mark FILE.gen RUN     marks a journal as run RUN's in progress
 *                                  (journal_mark_running), as a run does
 *                                  before its first write
 *   pagetool fail FILE.gen PAGE RUN  marks page PAGE in a journal as one whose
 *                                  last write failed in run RUN, as a run
 *                                  does when a write fails
 *
 * Exits 0, or 1 with a message on stderr.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diskproof/journal.h"
#include "diskproof/page.h"

static int fail(const char *what, const char *path)
{
	fprintf(stderr, "pagetool: %s: %s\n", path, what);
	return 1;
}

/* Reads page 0's header (for the page size) and page `page` whole. */
static int load_page(int fd, const char *path, uint64_t page, struct page_header *h0,
		     unsigned char **buf)
{
	if (pread(fd, h0, sizeof(*h0), 0) != (ssize_t)sizeof(*h0) || h0->magic != PAGE_MAGIC)
		return fail("page 0 is not a diskproof page", path);
	*buf = malloc(h0->page_size);
	if (!*buf)
		return fail("out of memory", path);
	if (pread(fd, *buf, h0->page_size, (off_t)(page * h0->page_size)) != (ssize_t)h0->page_size)
		return fail("cannot read the page", path);
	return 0;
}

static int cmd_page(const char *op, const char *path, uint64_t page, uint64_t gen)
{
	struct page_header h0, h;
	unsigned char *buf = NULL;
	bool ro = !strcmp(op, "gen") || !strcmp(op, "crc");
	int fd = open(path, ro ? O_RDONLY : O_RDWR);
	int ret;

	if (fd < 0)
		return fail("cannot open", path);
	ret = load_page(fd, path, page, &h0, &buf);
	if (ret)
		goto out;
	memcpy(&h, buf, sizeof(h));
	if (!strcmp(op, "gen")) {
		printf("%llu\n", (unsigned long long)h.generation);
		goto out;
	}
	if (!strcmp(op, "crc")) {
		uint32_t crc = 0, want = h.crc;

		memcpy(buf + offsetof(struct page_header, crc), &crc, sizeof(crc));
		printf("%s\n", page_crc32c(0, buf, h0.page_size) == want ? "ok" : "bad");
		goto out;
	}
	if (!strcmp(op, "stamp")) {
		page_stamp(buf, h0.page_size, (enum page_kind)h0.kind, h0.db_id, page, gen,
			   h.magic == PAGE_MAGIC ? h.run_id : 0, h0.seed, true);
	} else { /* recrc */
		uint32_t crc = 0;

		memcpy(buf + offsetof(struct page_header, crc), &crc, sizeof(crc));
		crc = page_crc32c(0, buf, h0.page_size);
		memcpy(buf + offsetof(struct page_header, crc), &crc, sizeof(crc));
	}
	if (pwrite(fd, buf, h0.page_size, (off_t)(page * h0.page_size)) != (ssize_t)h0.page_size)
		ret = fail("cannot write the page", path);
out:
	free(buf);
	close(fd);
	return ret;
}

static int cmd_journal(const struct journal_loc *loc)
{
	struct strbuf err = STRBUF_INIT;
	struct journal_info ji;
	uint32_t *gens;

	if (journal_read(loc, &ji, &gens, &err)) {
		fprintf(stderr, "pagetool: %s\n", err.buf);
		strbuf_release(&err);
		return 1;
	}
	fprintf(stderr, "db_id %u page_size %u nr_pages %llu run_id %llu flags %u\n", ji.db_id,
		ji.page_size, (unsigned long long)ji.nr_pages, (unsigned long long)ji.run_id,
		ji.flags);
	for (uint64_t i = 0; i < ji.nr_pages; i++)
		if (journal_gen_failed(gens[i]))
			printf("%llu failed %llu\n", (unsigned long long)i,
			       (unsigned long long)journal_failed_run(gens[i]));
		else
			printf("%llu %u%s\n", (unsigned long long)i, gens[i] & ~JOURNAL_GEN_LOWER,
			       gens[i] & JOURNAL_GEN_LOWER ? " lower" : "");
	free(gens);
	return 0;
}

static int cmd_mark(const char *path, uint64_t run_id)
{
	struct strbuf err = STRBUF_INIT;
	int ret = journal_mark_running(&(struct journal_loc){.path = path}, run_id, &err);

	if (ret)
		fprintf(stderr, "pagetool: %s\n", err.len ? err.buf : strerror(-ret));
	strbuf_release(&err);
	return ret ? 1 : 0;
}

static int cmd_fail(const char *path, uint64_t page, uint64_t run_id)
{
	struct journal_loc loc = {.path = path};
	struct strbuf err = STRBUF_INIT;
	struct journal_info ji;
	uint32_t *gens = NULL;
	int ret = journal_read(&loc, &ji, &gens, &err);

	if (!ret && page >= ji.nr_pages)
		ret = fail("no such page", path);
	else if (!ret) {
		gens[page] = journal_failed_mark(run_id);
		ret = journal_write(&loc, &ji, gens, &err);
	}
	if (ret && err.len)
		fprintf(stderr, "pagetool: %s\n", err.buf);
	free(gens);
	strbuf_release(&err);
	return ret ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "stamp"))
		return cmd_page("stamp", argv[2], strtoull(argv[3], NULL, 10),
				strtoull(argv[4], NULL, 10));
	if (argc == 4 &&
	    (!strcmp(argv[1], "recrc") || !strcmp(argv[1], "gen") || !strcmp(argv[1], "crc")))
		return cmd_page(argv[1], argv[2], strtoull(argv[3], NULL, 10), 0);
	if (argc == 3 && !strcmp(argv[1], "journal"))
		return cmd_journal(&(struct journal_loc){.path = argv[2]});
	if (argc == 5 && !strcmp(argv[1], "journal"))
		return cmd_journal(&(struct journal_loc){argv[2], strtoull(argv[3], NULL, 10),
							 strtoull(argv[4], NULL, 10)});
	if (argc == 4 && !strcmp(argv[1], "mark"))
		return cmd_mark(argv[2], strtoull(argv[3], NULL, 10));
	if (argc == 5 && !strcmp(argv[1], "fail"))
		return cmd_fail(argv[2], strtoull(argv[3], NULL, 10), strtoull(argv[4], NULL, 10));
	fprintf(stderr, "usage: pagetool stamp FILE PAGE GEN | recrc FILE PAGE | gen FILE PAGE | "
			"crc FILE PAGE | "
			"journal FILE.gen | journal DEV OFFSET SIZE | mark FILE.gen RUN | "
			"fail FILE.gen PAGE RUN\n");
	return 2;
}
