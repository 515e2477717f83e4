/* SPDX-License-Identifier: MIT */
/*
 * open.c - opening and closing the results file: read-write (created,
 * migrated and reaped of killed runs) or read-only (falling back to
 * immutable on a read-only filesystem), and the connection's settings.
 *
 * WAL mode and synchronous=NORMAL: readers (a report while a run writes)
 * never block the writer, and a commit costs no fsync of the main file;
 * WAL with NORMAL may lose the last transactions on power loss but never
 * corrupts the file, which is what a results file needs.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <sqlite3.h>

#include "store_internal.h"

/* Connection settings; journal_mode cannot change inside a transaction. */
static int store_configure(struct store *s, struct strbuf *err)
{
	int ret;

	/* SQLite does not wait on a busy file to change the journal mode (the
	 * lock upgrade could deadlock), so a second process opening a new file
	 * at the same moment retries here, within the busy timeout. */
	for (int waited = 0;; waited += 10) {
		int rc = sqlite3_exec(s->db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL);

		if (rc == SQLITE_OK)
			break;
		if ((rc & 0xff) != SQLITE_BUSY || waited >= STORE_BUSY_TIMEOUT_MS)
			return store_fail(s, err, rc, "switch to WAL mode");
		usleep(10 * 1000);
	}
	ret = store_exec(s, "PRAGMA synchronous = NORMAL", "set synchronous", err);
	if (ret)
		return ret;
	return store_exec(s, "PRAGMA foreign_keys = ON", "enable foreign keys", err);
}

enum store_mode {
	STORE_MODE_CREATE,    /* read-write, created when missing, migrated, reaped */
	STORE_MODE_WRITE,     /* read-write, must exist; reaped when it can be */
	STORE_MODE_READ,      /* mode=ro: never written */
	STORE_MODE_IMMUTABLE, /* mode=ro&immutable=1: for read-only filesystems */
};

/* The open proper: path checked, opened through its real path with
 * SQLITE_OPEN_NOFOLLOW, checked again, then read. */
static int store_open_mode(struct store **out, const char *path, enum store_mode mode,
			   struct strbuf *err)
{
	static const char *const query[] = {"mode=rwc", "mode=rw", "mode=ro",
					    "mode=ro&immutable=1"};
	bool rw = mode == STORE_MODE_CREATE || mode == STORE_MODE_WRITE;
	struct strbuf real = STRBUF_INIT, uri = STRBUF_INIT;
	struct stat before;
	struct store *s;
	int64_t version;
	int ret, rc;

	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s) {
		strbuf_addf(err, "%s: open: out of memory", path);
		return -ENOMEM;
	}
	s->readonly = !rw;
	s->path = strdup(path);
	if (!s->path) {
		strbuf_addf(err, "%s: open: out of memory", path);
		ret = -ENOMEM;
		goto out_close;
	}
	ret = store_path_check(path, mode == STORE_MODE_CREATE, &real, &before, err);
	if (ret)
		goto out_close;
	store_uri(&uri, real.buf, query[mode]);
	rc = sqlite3_open_v2(uri.buf, &s->db,
			     (rw ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY) |
				     (mode == STORE_MODE_CREATE ? SQLITE_OPEN_CREATE : 0) |
				     SQLITE_OPEN_URI | SQLITE_OPEN_NOFOLLOW,
			     NULL);
	if (rc != SQLITE_OK) {
		ret = store_errno_of(s->db, rc);
		strbuf_addf(err, "%s: cannot open: %s (%s)", path,
			    s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc), strerror(-ret));
		goto out_close;
	}
	ret = store_path_recheck(s, real.buf, &before, err);
	if (ret)
		goto out_close;
	sqlite3_busy_timeout(s->db, STORE_BUSY_TIMEOUT_MS);
	rc = sqlite3_create_function(s->db, "dp_run_uuid", 5, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
				     NULL, store_uuid_legacy, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_function(s->db, "dp_hist_pct_ms", 7,
					     SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
					     store_hist_pct_ms, NULL, NULL);
	if (rc != SQLITE_OK) {
		ret = store_fail(s, err, rc, "register functions");
		goto out_close;
	}
	ret = store_check_file(s, &version, err);
	if (ret) {
		/* not ours: leave it as it was, its -wal not folded in on close */
		(void)sqlite3_db_config(s->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
		goto out_close;
	}
	if (!rw && version < STORE_SCHEMA_VERSION) {
		strbuf_addf(err,
			    "%s: written by an older diskproof (schema %" PRId64
			    ") and opened read-only: it needs to be migrated by a command that "
			    "may write it",
			    path, version);
		ret = -EPROTO;
		goto out_close;
	}
	if (!rw) {
		ret = store_exec(s, "PRAGMA query_only = ON", "set query_only", err);
		if (ret)
			goto out_close;
		goto out_done;
	}
	ret = store_configure(s, err);
	if (ret)
		goto out_close;
	if (version < STORE_SCHEMA_VERSION) {
		ret = store_migrate(s, err);
		if (ret)
			goto out_close;
	}
	ret = store_prepare_cached(s, err);
	if (ret)
		goto out_close;
	ret = store_reap_own_host(s, err);
	if (ret)
		goto out_close;
out_done:
	*out = s;
	strbuf_release(&real);
	strbuf_release(&uri);
	return 0;

out_close:
	store_close(s);
	strbuf_release(&real);
	strbuf_release(&uri);
	return ret;
}

int store_open(struct store **out, const char *path, struct strbuf *err)
{
	return store_open_mode(out, path, STORE_MODE_CREATE, err);
}

/* Could SQLite write here at all? (A read-write open of a file it cannot
 * write fails late and with less clear messages.) */
static bool store_looks_writable(const char *path)
{
	struct statvfs vfs;
	struct stat st;

	if (access(path, W_OK) != 0)
		return false;
	/* an empty file is nobody's results yet: a reading command leaves it
	 * empty rather than write a schema into it */
	if (stat(path, &st) == 0 && st.st_size == 0)
		return false;
	return statvfs(path, &vfs) != 0 || !(vfs.f_flag & ST_RDONLY);
}

int store_open_read(struct store **out, const char *path, bool reap, struct strbuf *err)
{
	struct strbuf first = STRBUF_INIT, wrote = STRBUF_INIT;
	int ret = -EROFS;

	/* A writable file is opened read-write when the caller may reap
	 * (migrating an old file too); one that turns out not to be
	 * writable (read-only, full, locked) is read as it is. */
	if (reap && store_looks_writable(path))
		ret = store_open_mode(out, path, STORE_MODE_WRITE, &wrote);
	if (ret == -EROFS || ret == -EACCES || ret == -ENOSPC || ret == -EIO || ret == -EBUSY) {
		ret = store_open_mode(out, path, STORE_MODE_READ, &first);
		/* an older file this command tried to migrate: why it could
		 * not, not "needs a command that may write it" */
		if (ret == -EPROTO && wrote.len) {
			size_t n = strlen(path);
			const char *why = wrote.buf;

			if (!strncmp(why, path, n) && !strncmp(why + n, ": ", 2))
				why += n + 2; /* its path said once */
			strbuf_reset(&first);
			strbuf_addf(&first,
				    "%s: written by an older diskproof, and migrating it failed "
				    "(%s); it can be read once it is migrated",
				    path, why);
		}
	} else {
		strbuf_add(&first, wrote.buf, wrote.len);
	}
	strbuf_release(&wrote);
	/* On a read-only filesystem (or a full one) SQLite cannot make the
	 * -shm that even a clean WAL-mode file needs: read the file as
	 * immutable, which is exact when its -wal is empty or absent. */
	if (ret && ret != -ENOTSUP && ret != -EPROTO && ret != -ENOMEM && store_wal_empty(path)) {
		strbuf_reset(&first);
		ret = store_open_mode(out, path, STORE_MODE_IMMUTABLE, &first);
	}
	strbuf_addstr(err, first.buf);
	strbuf_release(&first);
	return ret;
}

void store_close(struct store *s)
{
	if (!s)
		return;
	sqlite3_finalize(s->ins_sample);
	sqlite3_finalize(s->ins_txn_sample);
	sqlite3_finalize(s->ins_backlog_sample);
	sqlite3_finalize(s->ins_event);
	sqlite3_finalize(s->ins_env);
	sqlite3_finalize(s->ins_host);
	/* sqlite3_close_v2 copes with a NULL handle and with statements left over. */
	sqlite3_close_v2(s->db);
	free(s->path);
	free(s);
}
