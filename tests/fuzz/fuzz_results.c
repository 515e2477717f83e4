/* SPDX-License-Identifier: MIT */
/*
 * fuzz_results.c - libFuzzer target for the results-file reader: the input is
 * written as a results file and opened with store_open(), then the newest run
 * (and run 1) loaded with store_results_load(), as "diskproof report" does,
 * and rendered in every format. Any return value is fine; crashes, leaks,
 * undefined behaviour and a render that runs away (libFuzzer's -timeout) are
 * not, and a failure must come with a message.
 *
 * An input that begins with "DPV1" is not a file but a list of values to
 * write into a sound one (values_apply): tests/fuzz/corpus/fuzz_results/
 * results-sim-v9.db, a sim run of the current schema with a row in every
 * table. Each 12-byte record after the magic (32 at most) picks a table, a
 * column and a row of the file and a value: a double from its 8 bytes (so +-Inf, huge
 * and subnormal ones; SQLite stores NaN as NULL), an integer, one of the
 * values a hostile file holds (1e400, -1, 2^63 - 1, ...), text, NULL or a
 * blob. So the loader's checks (store/limits.c) are fuzzed with the values
 * they are for, not only with damaged pages. Such a file is also imported
 * into a fresh results file: a run import accepts must load without a range
 * error (import and the loader check the same limits).
 *
 * One scratch directory per process (under $TMPDIR, else /tmp) holds the file;
 * each input first removes the file and SQLite's -wal, -shm and -journal
 * companions, so that nothing carries over from the previous input.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

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
static char import_path[4200];

/* The sound file values are written into, and its tables and columns. */
#ifndef DP_FUZZ_VALUES_BASE
#error "DP_FUZZ_VALUES_BASE: the path of the values mode's base file"
#endif
#define VALUES_MAGIC "DPV1"
#define VALUES_RECORD 12
#define VALUES_MAX_RECORDS 32 /* the rest of a longer input is ignored */
#define VALUES_MAX_TABLES 32
#define VALUES_MAX_COLUMNS 32
static uint8_t *base;
static size_t base_size;
static struct {
	char name[64];
	char cols[VALUES_MAX_COLUMNS][64];
	int ncols;
	int64_t rows;
} tables[VALUES_MAX_TABLES];
static int ntables;

static void remove_db(const char *path)
{
	char p[4300];
	size_t i;

	for (i = 0; i < DP_ARRAY_SIZE(companions); i++) {
		snprintf(p, sizeof(p), "%s%s", path, companions[i]);
		unlink(p);
	}
}

static void cleanup(void)
{
	remove_db(db_path);
	remove_db(import_path);
	rmdir(scratch_dir);
	free(base);
}

/* The base file's bytes, and its tables (with rows) and their columns. */
static void values_init(void)
{
	sqlite3_stmt *st, *ct;
	sqlite3 *db;
	char sql[256];
	FILE *f = fopen(DP_FUZZ_VALUES_BASE, "rb");

	CHECK(f);
	CHECK(fseek(f, 0, SEEK_END) == 0 && ftell(f) > 0);
	base_size = (size_t)ftell(f);
	base = malloc(base_size);
	CHECK(base && fseek(f, 0, SEEK_SET) == 0 && fread(base, 1, base_size, f) == base_size);
	fclose(f);
	CHECK(sqlite3_open_v2(DP_FUZZ_VALUES_BASE, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
	CHECK(sqlite3_prepare_v2(db,
				 "SELECT name FROM sqlite_master WHERE type = 'table'"
				 " AND name NOT LIKE 'sqlite_%' ORDER BY name",
				 -1, &st, NULL) == SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW && ntables < VALUES_MAX_TABLES) {
		snprintf(tables[ntables].name, sizeof(tables[ntables].name), "%s",
			 (const char *)sqlite3_column_text(st, 0));
		snprintf(sql, sizeof(sql), "SELECT count(*) FROM \"%s\"", tables[ntables].name);
		CHECK(sqlite3_prepare_v2(db, sql, -1, &ct, NULL) == SQLITE_OK);
		CHECK(sqlite3_step(ct) == SQLITE_ROW);
		tables[ntables].rows = sqlite3_column_int64(ct, 0);
		sqlite3_finalize(ct);
		snprintf(sql, sizeof(sql), "PRAGMA table_info(\"%s\")", tables[ntables].name);
		CHECK(sqlite3_prepare_v2(db, sql, -1, &ct, NULL) == SQLITE_OK);
		while (sqlite3_step(ct) == SQLITE_ROW && tables[ntables].ncols < VALUES_MAX_COLUMNS)
			snprintf(tables[ntables].cols[tables[ntables].ncols++], 64, "%s",
				 (const char *)sqlite3_column_text(ct, 1));
		sqlite3_finalize(ct);
		if (tables[ntables].rows > 0)
			ntables++;
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	CHECK(ntables > 0);
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
	snprintf(import_path, sizeof(import_path), "%s/import.db", scratch_dir);
	atexit(cleanup);
	values_init();
	return 0;
}

static void write_input(const uint8_t *data, size_t size)
{
	size_t off = 0;
	ssize_t w;
	int fd;

	remove_db(db_path);
	fd = open(db_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	CHECK(fd >= 0);
	while (off < size) {
		w = write(fd, data + off, size - off);
		CHECK(w > 0);
		off += (size_t)w;
	}
	close(fd);
}

/* One of the values a hostile results file holds. */
static void bind_special(sqlite3_stmt *st, uint64_t pick)
{
	static const double reals[] = {INFINITY, -INFINITY, 1e300,  -1e300,	   -1,
				       0.5,	 0x1p53,    0x1p64, 31622400001.0, 4.9e-324};
	static const int64_t ints[] = {-1,
				       0,
				       1,
				       INT64_MAX,
				       INT64_MIN,
				       9000000000000000,
				       (int64_t)1 << 53,
				       ((int64_t)1 << 53) + 1,
				       100001,
				       256};

	if (pick % 2)
		sqlite3_bind_double(st, 1, reals[pick / 2 % DP_ARRAY_SIZE(reals)]);
	else
		sqlite3_bind_int64(st, 1, ints[pick / 2 % DP_ARRAY_SIZE(ints)]);
}

/* Record rec's value into column c of one row of table t (module doc). */
static void value_write(sqlite3 *db, const uint8_t *rec)
{
	int t = rec[0] % ntables, c = rec[1] % tables[t].ncols;
	int64_t row = rec[2] % tables[t].rows;
	char sql[300];
	uint64_t u;
	double d;
	sqlite3_stmt *st;

	snprintf(sql, sizeof(sql),
		 "UPDATE \"%s\" SET \"%s\" = ?1 WHERE rowid ="
		 " (SELECT rowid FROM \"%s\" ORDER BY rowid LIMIT 1 OFFSET ?2)",
		 tables[t].name, tables[t].cols[c], tables[t].name);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return;
	memcpy(&u, rec + 4, sizeof(u));
	memcpy(&d, rec + 4, sizeof(d));
	switch (rec[3] % 6) {
	case 0:
		sqlite3_bind_double(st, 1, d);
		break;
	case 1:
		sqlite3_bind_int64(st, 1, (int64_t)u);
		break;
	case 2:
		bind_special(st, u);
		break;
	case 3:
		sqlite3_bind_text(st, 1, (const char *)rec + 4, 8, SQLITE_TRANSIENT);
		break;
	case 4:
		sqlite3_bind_null(st, 1);
		break;
	default:
		sqlite3_bind_blob(st, 1, rec + 4, 8, SQLITE_TRANSIENT);
	}
	sqlite3_bind_int64(st, 2, row);
	sqlite3_step(st); /* a NOT NULL or UNIQUE refusal is fine: no change */
	sqlite3_finalize(st);
}

/* A "DPV1" input: the base file, with each record's value written in. */
static void values_apply(const uint8_t *data, size_t size)
{
	sqlite3 *db;

	write_input(base, base_size);
	CHECK(sqlite3_open(db_path, &db) == SQLITE_OK);
	/* one transaction, no fsync: a scratch file */
	sqlite3_exec(db,
		     "PRAGMA ignore_check_constraints = ON; PRAGMA synchronous = OFF;"
		     " PRAGMA journal_mode = MEMORY; BEGIN",
		     NULL, NULL, NULL);
	for (size_t off = 4, k = 0; off + VALUES_RECORD <= size && k < VALUES_MAX_RECORDS;
	     off += VALUES_RECORD, k++)
		value_write(db, data + off);
	sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	CHECK(sqlite3_close(db) == SQLITE_OK);
}

static void load(struct store *s, int64_t id)
{
	static const enum report_format fmts[] = {REPORT_TEXT, REPORT_JSON, REPORT_CSV,
						  REPORT_HTML};
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
		for (size_t i = 0; i < DP_ARRAY_SIZE(fmts); i++) {
			strbuf_reset(&out);
			report_render(&out, &r, fmts[i], &opt);
			CHECK(out.len > 0);
		}
	}
	strbuf_release(&out);
	results_release(&r);
	results_release(&r); /* safe twice */
	strbuf_release(&err);
}

/*
 * The values file imported into a fresh one: what import copies, the loader
 * accepts as far as ranges go (the same limits), and the refused are named.
 */
static void import_check(void)
{
	struct strbuf err = STRBUF_INIT, refusals = STRBUF_INIT;
	struct store_import_counts n;
	struct store *s = NULL;
	struct results r;
	int ret;

	remove_db(import_path);
	CHECK(store_open(&s, import_path, &err) == 0);
	ret = store_import(s, db_path, &n, &refusals, &err);
	CHECK(ret <= 0);
	CHECK(!ret || err.len > 0);
	CHECK(!n.refused || refusals.len > 0);
	for (int64_t id = 1; !ret && id <= (int64_t)n.imported; id++) {
		memset(&r, 0, sizeof(r));
		strbuf_reset(&err);
		ret = store_results_load(s, id, &r, &err);
		if (ret == -ERANGE)
			fprintf(stderr, "imported, then refused: %s\n", err.buf);
		CHECK(ret != -ERANGE);
		results_release(&r);
		ret = 0;
	}
	store_close(s);
	strbuf_release(&err);
	strbuf_release(&refusals);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf err = STRBUF_INIT;
	struct store *s = NULL;
	bool values = size >= 4 && !memcmp(data, VALUES_MAGIC, 4);
	int64_t id = 0;
	int ret;

	if (values)
		values_apply(data, size);
	else
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
	if (values && !ret)
		import_check();
	return 0;
}
