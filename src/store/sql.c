/* SPDX-License-Identifier: MIT */
/*
 * sql.c - the store's SQL plumbing: SQLite result codes to -errno and
 * messages, statements, transactions (every write is one BEGIN IMMEDIATE,
 * so a busy file is waited for at BEGIN, bounded by the busy timeout, rather
 * than failing mid-transaction on a lock upgrade that WAL mode cannot retry)
 * and one-value reads. The positional binder is in store_internal.h.
 */
#include <errno.h>
#include <stdint.h>

#include <sqlite3.h>

#include "store_internal.h"

/* SQLite result code to -errno (store.h: -EIO unless something better fits). */
int store_errno_of(sqlite3 *db, int rc)
{
	int sys;

	switch (rc & 0xff) {
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return -EBUSY;
	case SQLITE_NOMEM:
		return -ENOMEM;
	case SQLITE_FULL:
		return -ENOSPC;
	case SQLITE_PERM:
	case SQLITE_AUTH:
		return -EACCES;
	case SQLITE_READONLY:
		return -EROFS;
	case SQLITE_CANTOPEN:
		sys = db ? sqlite3_system_errno(db) : 0;
		return sys > 0 ? -sys : -EACCES;
	default:
		return -EIO;
	}
}

/* Fills err with "PATH: WHAT: sqlite's message" and returns the -errno. */
int store_fail(const struct store *s, struct strbuf *err, int rc, const char *what)
{
	strbuf_addf(err, "%s: %s: %s", s->path, what,
		    s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc));
	return store_errno_of(s->db, rc);
}

int store_exec(struct store *s, const char *sql, const char *what, struct strbuf *err)
{
	int rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL);

	if (rc != SQLITE_OK)
		return store_fail(s, err, rc, what);
	return 0;
}

int store_begin(struct store *s, struct strbuf *err)
{
	return store_exec(s, "BEGIN IMMEDIATE", "begin transaction", err);
}

int store_commit(struct store *s, struct strbuf *err)
{
	return store_exec(s, "COMMIT", "commit", err);
}

/* Undoes an open transaction, if SQLite has not already done so. */
void store_rollback(struct store *s)
{
	if (!sqlite3_get_autocommit(s->db))
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
}

int store_txn_end(struct store *s, int rc, const char *what, struct strbuf *err)
{
	int ret;

	if (rc != SQLITE_OK)
		ret = store_fail(s, err, rc, what);
	else
		ret = store_commit(s, err);
	if (ret)
		store_rollback(s);
	return ret;
}

int store_prepare(struct store *s, const char *sql, sqlite3_stmt **st, unsigned flags,
		  struct strbuf *err)
{
	int rc = sqlite3_prepare_v3(s->db, sql, -1, flags, st, NULL);

	if (rc != SQLITE_OK)
		return store_fail(s, err, rc, "prepare statement");
	return 0;
}

int store_read_int(struct store *s, const char *sql, int64_t *v, struct strbuf *err)
{
	sqlite3_stmt *st;
	int ret, rc;

	ret = store_prepare(s, sql, &st, 0, err);
	if (ret)
		return ret;
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		ret = store_fail(s, err, rc, "read the file's header");
		goto out_finalize;
	}
	*v = sqlite3_column_int64(st, 0);
out_finalize:
	sqlite3_finalize(st);
	return ret;
}

int store_insert_rows(struct store *s, const char *sql, const char *what, int64_t run_id,
		      const void *rows, size_t nr, size_t size,
		      void (*bind)(struct binder *b, const void *row), struct strbuf *err)
{
	sqlite3_stmt *st;
	struct binder b;
	int ret, rc = SQLITE_OK;
	size_t i;

	ret = store_prepare(s, sql, &st, 0, err);
	if (ret)
		return ret;
	for (i = 0; i < nr && rc == SQLITE_OK; i++) {
		binder_start(&b, st);
		bind_i64(&b, run_id);
		bind(&b, (const char *)rows + i * size);
		rc = binder_run(&b);
	}
	if (rc != SQLITE_OK)
		ret = store_fail(s, err, rc, what);
	sqlite3_finalize(st);
	return ret;
}
