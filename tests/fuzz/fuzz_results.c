/*
 * fuzz_results.c - libFuzzer target for the results-file reader: the input is
 * written as a results file and opened with store_open(), then the newest run
 * (and run 1) loaded with store_results_load(), as "diskproof report" does.
 * Any return value is fine; crashes, leaks and undefined behaviour are not,
 * and a failure must come with a message.
 *
 * One scratch directory per process (under $TMPDIR, else /tmp) holds the file;
 * each input first removes the file and SQLite's -wal, -shm and -journal
 * companions, so that nothing carries over from the previous input.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diskproof/report.h"
#include "diskproof/results.h"
#include "diskproof/store.h"

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);   \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

static const char *const companions[] = {"", "-wal", "-shm", "-journal"};

static char scratch_dir[4096];
static char db_path[4200];

static void cleanup(void)
{
	char p[4300];
	size_t i;

	for (i = 0; i < DP_ARRAY_SIZE(companions); i++) {
		snprintf(p, sizeof(p), "%s%s", db_path, companions[i]);
		unlink(p);
	}
	rmdir(scratch_dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *tmp = getenv("TMPDIR");

	if (!tmp || !*tmp)
		tmp = "/tmp";
	snprintf(scratch_dir, sizeof(scratch_dir), "%s/fuzz_results.XXXXXX", tmp);
	if (!mkdtemp(scratch_dir)) {
		perror(scratch_dir);
		exit(1);
	}
	snprintf(db_path, sizeof(db_path), "%s/results.db", scratch_dir);
	atexit(cleanup);
	return 0;
}

static void write_input(const uint8_t *data, size_t size)
{
	char p[4300];
	size_t i, off = 0;
	ssize_t w;
	int fd;

	for (i = 0; i < DP_ARRAY_SIZE(companions); i++) {
		snprintf(p, sizeof(p), "%s%s", db_path, companions[i]);
		unlink(p);
	}
	fd = open(db_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	CHECK(fd >= 0);
	while (off < size) {
		w = write(fd, data + off, size - off);
		CHECK(w > 0);
		off += (size_t)w;
	}
	close(fd);
}

static void load(struct store *s, int64_t id)
{
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	struct report_options opt = {.color = id & 1};
	struct results r;
	int ret;

	memset(&r, 0, sizeof(r));
	ret = store_results_load(s, id, &r, &err);
	CHECK(ret <= 0);
	if (ret) {
		CHECK(err.len > 0);
	} else {
		report_render(&out, &r, REPORT_TEXT, &opt);
		CHECK(out.len > 0);
		strbuf_reset(&out);
		report_render(&out, &r, REPORT_JSON, &opt);
		CHECK(out.len > 0);
	}
	strbuf_release(&out);
	results_release(&r);
	results_release(&r); /* safe twice */
	strbuf_release(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf err = STRBUF_INIT;
	struct store *s = NULL;
	int64_t id = 0;
	int ret;

	write_input(data, size);
	ret = store_open(&s, db_path, &err);
	CHECK(ret <= 0);
	if (ret) {
		CHECK(!s && err.len > 0);
		goto out;
	}
	ret = store_run_latest(s, &id, &err);
	CHECK(ret <= 0);
	if (ret) {
		CHECK(err.len > 0 || ret == -ENOENT);
	} else {
		load(s, id);
		if (id != 1)
			load(s, 1);
	}
out:
	store_close(s);
	strbuf_release(&err);
	return 0;
}
