/* SPDX-License-Identifier: MIT */
/*
 * store_internal.h - what the files of the store module share: struct store,
 * the SQL plumbing (errors, transactions, statements, the positional binder;
 * sql.c), the schema checks (schema.c), the path checks (path.c), the cached
 * write statements (write.c) and the reaping of killed runs (killed.c).
 * Nothing outside src/store/ includes it.
 */
#ifndef DISKPROOF_STORE_INTERNAL_H
#define DISKPROOF_STORE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include <sqlite3.h>

#include "diskproof/store.h"

/* "dskp": PRAGMA application_id of a diskproof results file. */
#define STORE_APPLICATION_ID 0x64736b70
#define STORE_BUSY_TIMEOUT_MS 5000

struct store {
	sqlite3 *db;
	char *path;
	bool readonly; /* opened mode=ro: nothing may be written */
	sqlite3_stmt *ins_sample;
	sqlite3_stmt *ins_txn_sample;
	sqlite3_stmt *ins_backlog_sample;
	sqlite3_stmt *ins_event;
	sqlite3_stmt *ins_env;
	sqlite3_stmt *ins_host;
	/* The clock of the run this process writes (store_run_begin,
	 * store_run_clock): the Unix time in ms of its samples' t_ms 0 and of
	 * its events' t_ms 0, from which each row's time_utc is written. */
	int64_t clock_run_id;
	uint64_t clock_start_ms; /* the run's start (started_at, in ms) */
	uint64_t clock_sample_ms;
	uint64_t clock_event_ms;
};

/*
 * Schema 7's derived columns, for rows written before they existed: the
 * migration runs them over the whole file (where = ""), an import over the
 * runs it copied from an older file (where = " AND run_id = ?"). Both only
 * fill what is NULL, so a row written with its figures keeps them.
 *
 * The percentiles of a summary row come from its whole-run histogram through
 * dp_hist_pct_ms() (store_hist_pct_ms: hist_percentile(), as the reports),
 * NULL for a class without I/O.
 */
#define STORE_SQL_FILL_PCT(where)                                                                  \
	"UPDATE summary SET"                                                                       \
	" p90_ms = dp_hist_pct_ms(h.bits, h.max_bits, h.count, h.min_ns, h.max_ns, h.buckets, "    \
	"90),"                                                                                     \
	" p95_ms = dp_hist_pct_ms(h.bits, h.max_bits, h.count, h.min_ns, h.max_ns, h.buckets, "    \
	"95),"                                                                                     \
	" p999_ms = dp_hist_pct_ms(h.bits, h.max_bits, h.count, h.min_ns, h.max_ns, h.buckets,"    \
	"  99.9),"                                                                                 \
	" p9999_ms = dp_hist_pct_ms(h.bits, h.max_bits, h.count, h.min_ns, h.max_ns, h.buckets,"   \
	"  99.99)"                                                                                 \
	" FROM histogram h WHERE h.run_id = summary.run_id AND h.scope = summary.scope"            \
	" AND h.name = summary.name AND h.class = summary.class AND summary.ios > 0"               \
	" AND summary.p999_ms IS NULL" where ";"

/* The same for the 15 s windows of interval_histogram (their geometry is
 * the build's: HIST_BITS 6, HIST_MAX_BITS 38, as the reader assumes). */
/* clang-format off */
#define STORE_SQL_WIN_PCT(p) "dp_hist_pct_ms(6, 38, count, min_ns, max_ns, buckets, " p ")"
#define STORE_SQL_FILL_WIN_PCT(where) \
	"UPDATE interval_histogram SET" \
	" p50_ms = " STORE_SQL_WIN_PCT("50") "," \
	" p90_ms = " STORE_SQL_WIN_PCT("90") "," \
	" p95_ms = " STORE_SQL_WIN_PCT("95") "," \
	" p99_ms = " STORE_SQL_WIN_PCT("99") "," \
	" p999_ms = " STORE_SQL_WIN_PCT("99.9") "," \
	" p9999_ms = " STORE_SQL_WIN_PCT("99.99") \
	" WHERE count > 0 AND p99_ms IS NULL" where ";"
/* clang-format on */

/*
 * The absolute time of an offset of a row written before schema 7: the run's
 * t0_utc (its started_at, to the second, for such a run) plus t_ms, as ISO
 * 8601 UTC with milliseconds, like the ones written at insert.
 */
#define STORE_SQL_FILL_TIME(table, where)                                                          \
	"UPDATE " table " SET time_utc = strftime('%Y-%m-%dT%H:%M:%fZ',"                           \
	" (SELECT t0_utc FROM run WHERE run.id = " table ".run_id),"                               \
	" '+' || (t_ms / 1000.0) || ' seconds') WHERE time_utc IS NULL" where ";"

/* sql.c */
int store_errno_of(sqlite3 *db, int rc);
int store_fail(const struct store *s, struct strbuf *err, int rc, const char *what);
int store_exec(struct store *s, const char *sql, const char *what, struct strbuf *err);
int store_begin(struct store *s, struct strbuf *err);
int store_commit(struct store *s, struct strbuf *err);
void store_rollback(struct store *s);
/* Ends the transaction the caller began: rc (its statements' SQLite code)
 * SQLITE_OK commits; else, or when the commit fails, it is rolled back and err
 * says "PATH: WHAT: why" (or why the commit failed). */
int store_txn_end(struct store *s, int rc, const char *what, struct strbuf *err);
int store_prepare(struct store *s, const char *sql, sqlite3_stmt **st, unsigned flags,
		  struct strbuf *err);
int store_read_int(struct store *s, const char *sql, int64_t *v, struct strbuf *err);

/*
 * Positional binding with a sticky error, so a row's binds read as a list and
 * the first failure is reported once (after strbuf's manner).
 */
struct binder {
	sqlite3_stmt *st;
	int idx;
	int rc;
};

static inline void binder_start(struct binder *b, sqlite3_stmt *st)
{
	b->st = st;
	b->idx = 0;
	b->rc = SQLITE_OK;
}

static inline void bind_i64(struct binder *b, int64_t v)
{
	b->idx++;
	if (b->rc == SQLITE_OK)
		b->rc = sqlite3_bind_int64(b->st, b->idx, v);
}

static inline void bind_u64(struct binder *b, uint64_t v)
{
	bind_i64(b, v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v);
}

static inline void bind_dbl(struct binder *b, double v)
{
	b->idx++;
	if (b->rc == SQLITE_OK)
		b->rc = sqlite3_bind_double(b->st, b->idx, v);
}

static inline void bind_null(struct binder *b)
{
	b->idx++;
	if (b->rc == SQLITE_OK)
		b->rc = sqlite3_bind_null(b->st, b->idx);
}

/* NULL (and, with empty_null, "") binds SQL NULL. */
static inline void bind_str(struct binder *b, const char *v, bool empty_null)
{
	b->idx++;
	if (b->rc != SQLITE_OK)
		return;
	if (!v || (empty_null && !*v))
		b->rc = sqlite3_bind_null(b->st, b->idx);
	else
		b->rc = sqlite3_bind_text(b->st, b->idx, v, -1, SQLITE_TRANSIENT);
}

/* Leaves a cached statement ready for its next use. */
static inline void binder_reset(struct binder *b)
{
	sqlite3_reset(b->st);
	sqlite3_clear_bindings(b->st);
}

/* Steps a bound insert/update to completion and resets it for the next row. */
static inline int binder_run(struct binder *b)
{
	int rc = b->rc;

	if (rc == SQLITE_OK) {
		rc = sqlite3_step(b->st);
		if (rc == SQLITE_DONE)
			rc = SQLITE_OK;
	}
	binder_reset(b);
	return rc;
}

/*
 * Inserts nr rows (of size bytes each, from rows) with one statement of sql,
 * each binding the run's id and then what bind() binds of its row; "PATH:
 * WHAT: why" on failure. The caller holds the transaction. (sql.c)
 */
int store_insert_rows(struct store *s, const char *sql, const char *what, int64_t run_id,
		      const void *rows, size_t nr, size_t size,
		      void (*bind)(struct binder *b, const void *row), struct strbuf *err);

/* schema.c */
int store_check_file(struct store *s, int64_t *version, struct strbuf *err);
int store_migrate(struct store *s, struct strbuf *err);
void store_uuid_legacy(sqlite3_context *ctx, int argc, sqlite3_value **argv);
/* SQL function dp_hist_pct_ms(bits, max_bits, count, min_ns, max_ns, buckets,
 * p): hist_percentile(p) of a stored histogram in ms, NULL when it is empty
 * or of another geometry; an error when its buckets do not decode. */
void store_hist_pct_ms(sqlite3_context *ctx, int argc, sqlite3_value **argv);

/* path.c */
void store_uri(struct strbuf *uri, const char *path, const char *query);
int store_path_recheck(const struct store *s, const char *real, const struct stat *before,
		       struct strbuf *err);
bool store_wal_empty(const char *path);

/* write.c */
int store_prepare_cached(struct store *s, struct strbuf *err);
/* Appends the time t_ms after base_ms (Unix ms) as ISO 8601 UTC with
 * milliseconds, "2026-12-03T11:34:05.123Z": the time_utc columns. */
void store_utc_ms(struct strbuf *sb, uint64_t base_ms, uint64_t t_ms);

/*
 * limits.c: the range of every numeric column (docs/results-schema.md). A
 * row is checked against the limits of its columns, found by name once per
 * statement (store_row_limits_init; a column without one is not checked).
 */
#define STORE_ROW_COLS_MAX 48
struct store_limit;
struct store_row_limits {
	const char *table;
	int ncols;
	const struct store_limit *lim[STORE_ROW_COLS_MAX];
	int count_col;	      /* the column "count", which a "buckets" one adds up to */
	struct hist *scratch; /* decodes a buckets column */
};
/* 0 or -ENOMEM; store_row_limits_release() after either. */
int store_row_limits_init(struct store_row_limits *rl, const char *table, sqlite3_stmt *st);
void store_row_limits_release(struct store_row_limits *rl);
/* The current row of st: 0, or -ERANGE with why += "TABLE.COLUMN = VALUE:
 * what is wrong". */
int store_row_check(struct store_row_limits *rl, sqlite3_stmt *st, struct strbuf *why);
/* Does a limit cover table.column? (a test proves every number has one) */
bool store_limit_known(const char *table, const char *column);
/*
 * Run run_id of schema ("main", or "src" for import) against the limits:
 * its run row and its summaries, or (deep) every row of it in every table.
 * 0; -ERANGE with why saying the first value out of its range; or a store
 * error in err.
 */
int store_run_check(struct store *s, const char *schema, int64_t run_id, bool deep,
		    struct strbuf *why, struct strbuf *err);

/* read.c: one text column of run run_id ("SELECT col FROM run WHERE id =
 * ?") into out, "" when the run or the value is missing; 0 or the error
 * (what names the read in it). */
int store_run_text(struct store *s, int64_t run_id, const char *sql, const char *what, char *out,
		   size_t len, struct strbuf *err);

/* killed.c */
int store_reap_own_host(struct store *s, struct strbuf *err);

#endif
