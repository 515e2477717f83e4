/* SPDX-License-Identifier: MIT */
/*
 * fingerprint.c - table run_fingerprint (schema 13): the device fingerprint
 * a run's profile kept and the run's own, as JSON text, written by the cli
 * after a real run (src/learn/runfp.c makes them) and read back with the run
 * for the reports and "fingerprint compare A.json RUNID".
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "store_internal.h"

int store_run_fingerprint_write(struct store *s, int64_t run_id, const char *kept_name,
				const char *kept, const char *run, struct strbuf *err)
{
	sqlite3_stmt *st;
	int ret, rc;

	ret = store_prepare(s,
			    "INSERT OR REPLACE INTO run_fingerprint (run_id, kept_name, kept, run)"
			    " VALUES (?, ?, ?, ?)",
			    &st, 0, err);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_text(st, 2, kept_name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, kept, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, run, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc != SQLITE_DONE)
		ret = store_fail(s, err, rc, "write run fingerprint");
	sqlite3_finalize(st);
	return ret;
}

static int column_dup(sqlite3_stmt *st, int i, char **out)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	*out = strdup(t ? (const char *)t : "");
	return *out ? 0 : -ENOMEM;
}

int store_run_fingerprint_read(struct store *s, int64_t run_id, struct results *r,
			       struct strbuf *err)
{
	sqlite3_stmt *st;
	int ret, rc;

	ret = store_prepare(s, "SELECT kept_name, kept, run FROM run_fingerprint WHERE run_id = ?",
			    &st, 0, err);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, run_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		ret = column_dup(st, 0, &r->fp_kept_name);
		if (!ret)
			ret = column_dup(st, 1, &r->fp_kept);
		if (!ret)
			ret = column_dup(st, 2, &r->fp_run);
		if (ret)
			strbuf_addstr(err, "load run fingerprint: out of memory");
	} else if (rc != SQLITE_DONE) {
		ret = store_fail(s, err, rc, "load run fingerprint");
	}
	sqlite3_finalize(st);
	return ret;
}
