/* SPDX-License-Identifier: MIT */
/*
 * import.c - runs in and out of a results file: deleting runs, and
 * importing every run of another results file that this one lacks (by its
 * uuid), or holds only as a copy taken before the run ended, in one
 * transaction; a run holding a value no run writes (limits.c) is refused.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <sqlite3.h>

#include "store_internal.h"

/*
 * Every id is looked up before anything is deleted, so an unknown one leaves
 * the file as it was; the rows of the other tables go with their run (ON
 * DELETE CASCADE, every table is indexed by run_id).
 */
int store_run_delete(struct store *s, const int64_t *ids, size_t nr, struct strbuf *err)
{
	sqlite3_stmt *sel = NULL, *del = NULL;
	int ret, rc = SQLITE_OK;
	size_t i;

	ret = store_begin(s, err);
	if (ret)
		return ret;
	ret = store_prepare(s, "SELECT 1 FROM run WHERE id = ?", &sel, 0, err);
	if (!ret)
		ret = store_prepare(s, "DELETE FROM run WHERE id = ?", &del, 0, err);
	for (i = 0; i < nr && !ret; i++) {
		sqlite3_bind_int64(sel, 1, ids[i]);
		rc = sqlite3_step(sel);
		sqlite3_reset(sel);
		if (rc == SQLITE_DONE) {
			strbuf_addf(err, "%s: delete: run %" PRId64 " not found", s->path, ids[i]);
			ret = -ENOENT;
		} else if (rc != SQLITE_ROW) {
			ret = store_fail(s, err, rc, "delete runs");
		}
	}
	for (i = 0; i < nr && !ret; i++) {
		sqlite3_bind_int64(del, 1, ids[i]);
		rc = sqlite3_step(del);
		sqlite3_reset(del);
		if (rc != SQLITE_DONE)
			ret = store_fail(s, err, rc, "delete runs");
	}
	if (!ret)
		ret = store_commit(s, err);
	sqlite3_finalize(sel);
	sqlite3_finalize(del);
	if (ret)
		store_rollback(s);
	return ret;
}

/*
 * The columns an import copies, table by table: those of schema 1, which every
 * readable file has. A migration that adds a column to one of these tables
 * adds it here too (and reads it only from files of that version on).
 */
struct import_table {
	const char *name;
	const char *columns;
	int64_t since; /* schema version that added the table (0: the first) */
	/* columns added to the table by schema 7, copied from files of 7 on;
	 * for older files import_fill() derives them as the migration does */
	const char *columns7;
};

static const char import_run_columns[] =
	"status, verdict, label, host, started_at, ended_at, duration_s, profile_name,"
	" profile_text, command_line, pid, engine, test_type, streams, warmup_s, exit_code";
static const char import_run_columns7[] = ", t0_utc";
static const char import_run_columns8[] = ", start_at, load_started_at";
static const char import_run_columns10[] = ", series_uuid, series_index, series_size";

static const struct import_table import_tables[] = {
	{"sample",
	 "t_ms, warmup, scope, scope_name, class, ios, bytes, errors, lat_sum_ns,"
	 " lat_max_ns, p50_ns, p99_ns",
	 0, ", time_utc"},
	{"summary",
	 "scope, name, volume, class, ios, bytes, errors, iops, mbps, avg_ms, p50_ms,"
	 " p99_ms, max_ms, integrity_errors",
	 0, ", p90_ms, p95_ms, p999_ms, p9999_ms"},
	{"histogram", "scope, name, class, bits, max_bits, count, sum_ns, min_ns, max_ns, buckets",
	 0, NULL},
	{"verdict", "scope, name, volume, criterion, cmp, threshold, measured, passed", 0, NULL},
	{"env", "key, value", 0, NULL},
	{"volume", "name, path, log_path, databases", 0, NULL},
	{"\"database\"", "name, volume, path, log_path, size", 0, NULL},
	{"event", "t_ms, kind, message", 0, ", time_utc"},
	{"autotune_step", "step, streams, iops, db_read_avg_ms, log_write_avg_ms, passed, reason",
	 0, NULL},
	{"interval_histogram",
	 "t_ms, warmup, scope, name, class, count, sum_ns, min_ns, max_ns, buckets", 3,
	 ", time_utc, p50_ms, p90_ms, p95_ms, p99_ms, p999_ms, p9999_ms"},
	{"host_sample",
	 "t_ms, warmup, device, span_ms, cpu_user_pct, cpu_system_pct, cpu_iowait_pct,"
	 " mem_available, reads, writes, read_sectors, write_sectors, reads_per_s, writes_per_s,"
	 " read_kbps, write_kbps, read_wait_ms, write_wait_ms, avg_wait_ms, util_pct, queue",
	 4, ", time_utc"},
	{"stream_share", "scope, name, stream_ns, streams", 5, NULL},
	{"scope_extra", "scope, name, class, sample_ms, max_sample_avg_ms, page_fault_stalls", 5,
	 NULL},
	{"param", "section, name, key, value, source", 6, NULL},
	{"database_final", "name, size", 6, NULL},
	{"txn_total", "scope, name, txns, log_commits", 9, NULL},
	{"txn_sample", "t_ms, warmup, scope, name, txns, log_commits", 9, NULL},
	{"response", "scope, name, class, ios, avg_ms, p50_ms, p99_ms, max_ms", 11, NULL},
	{"backlog_sample", "t_ms, warmup, peak, mean, busy_ms, streams", 12, NULL},
	{"run_fingerprint", "kept_name, kept, run", 13, NULL},
};

/* Attaches real (other, resolved) as "src" with the URI query given, and
 * checks it (import_check); on failure it is detached again. */
static int import_check(struct store *s, const char *other, int64_t *version, struct strbuf *err);
static int import_attach(struct store *s, const char *other, const char *real, const char *query,
			 int64_t *version, struct strbuf *err)
{
	struct strbuf uri = STRBUF_INIT;
	sqlite3_stmt *st;
	int ret, rc;

	store_uri(&uri, real, query);
	rc = sqlite3_prepare_v2(s->db, "ATTACH DATABASE ? AS src", -1, &st, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_text(st, 1, uri.buf, -1, SQLITE_TRANSIENT);
		rc = sqlite3_step(st);
	}
	sqlite3_finalize(st);
	strbuf_release(&uri);
	if (rc != SQLITE_DONE) {
		strbuf_addf(err, "%s: import: cannot open %s: %s", s->path, other,
			    sqlite3_errmsg(s->db));
		return store_errno_of(s->db, rc);
	}
	ret = import_check(s, other, version, err);
	if (ret)
		sqlite3_exec(s->db, "DETACH DATABASE src", NULL, NULL, NULL);
	return ret;
}

/* The other file, attached as "src": ours, and of a version this build reads. */
static int import_check(struct store *s, const char *other, int64_t *version, struct strbuf *err)
{
	static const char *const sql[] = {"PRAGMA src.user_version", "PRAGMA src.application_id"};
	int64_t v[2] = {0, 0};
	sqlite3_stmt *st;
	int rc = SQLITE_ROW;
	size_t i;

	for (i = 0; i < DP_ARRAY_SIZE(sql) && rc == SQLITE_ROW; i++) {
		rc = sqlite3_prepare_v2(s->db, sql[i], -1, &st, NULL);
		if (rc == SQLITE_OK) {
			rc = sqlite3_step(st);
			if (rc == SQLITE_ROW)
				v[i] = sqlite3_column_int64(st, 0);
			sqlite3_finalize(st);
		}
	}
	*version = v[0];
	if (rc != SQLITE_ROW) {
		strbuf_addf(err, "%s: import: cannot read %s: %s", s->path, other,
			    sqlite3_errmsg(s->db));
		return store_errno_of(s->db, rc);
	}
	if (v[0] < 1 || (v[1] != 0 && v[1] != STORE_APPLICATION_ID)) {
		strbuf_addf(err, "%s: import: %s is not a diskproof results file", s->path, other);
		return -EINVAL;
	}
	if (v[0] > STORE_SCHEMA_VERSION) {
		strbuf_addf(err,
			    "%s: import: %s was written by a newer diskproof (schema %" PRId64
			    ", this build knows %d)",
			    s->path, other, v[0], STORE_SCHEMA_VERSION);
		return -EPROTO;
	}
	return 0;
}

/* Runs each statement of sql in turn with ?1 bound to id, stopping at the
 * first that does not end with SQLITE_DONE: SQLITE_DONE when all did. */
static int import_exec_each(struct store *s, const char *const *sql, size_t n, int64_t id)
{
	sqlite3_stmt *st;
	int rc = SQLITE_DONE;

	for (size_t i = 0; i < n && rc == SQLITE_DONE; i++) {
		rc = sqlite3_prepare_v2(s->db, sql[i], -1, &st, NULL);
		if (rc == SQLITE_OK) {
			sqlite3_bind_int64(st, 1, id);
			rc = sqlite3_step(st);
		}
		sqlite3_finalize(st);
	}
	return rc;
}

/* The note of a copy taken while its run was still going: such a copy is
 * replaced by a later import of the run (import_decide). */
#define IMPORT_UNFINISHED "still running in the imported file when it was copied"

/*
 * A run still "running" in the other file when it was copied: no process
 * here will finish this copy, so it is marked aborted at its last sample, as
 * a killed run is, and an event says why; a later import of the run, once
 * finished (or gone further), replaces it. SQLITE_DONE when done.
 */
static int import_running_end(struct store *s, int64_t id)
{
	static const char *const sql[] = {
		"INSERT INTO main.event (run_id, t_ms, kind, message) SELECT id,"
		" (SELECT coalesce(max(t_ms), 0) FROM main.sample WHERE run_id = run.id), 'stop',"
		" '" IMPORT_UNFINISHED "; this copy ends at its last sample: marked aborted"
		" (importing the run again once it has ended replaces this copy)'"
		" FROM main.run WHERE id = ? AND status = 'running'",
		"UPDATE main.run SET status = 'aborted', verdict = 'NONE',"
		" ended_at = strftime('%Y-%m-%dT%H:%M:%SZ', started_at, '+' ||"
		"  (SELECT coalesce(max(t_ms), 0) / 1000.0 FROM main.sample WHERE run_id = run.id)"
		"  || ' seconds')"
		" WHERE id = ? AND status = 'running'",
	};

	return import_exec_each(s, sql, DP_ARRAY_SIZE(sql), id);
}

/*
 * What schema 7 derives, for a run copied from an older file: its clock
 * from its started_at, its rows' absolute times, its summary's percentiles
 * from its histograms (the migration's statements, for this run only).
 * SQLITE_DONE when done.
 */
static int import_fill(struct store *s, int64_t id)
{
	static const char *const sql[] = {
		"UPDATE main.run SET t0_utc = strftime('%Y-%m-%dT%H:%M:%fZ', started_at)"
		" WHERE id = ?1 AND t0_utc IS NULL;",
		STORE_SQL_FILL_PCT(" AND summary.run_id = ?1"),
		STORE_SQL_FILL_TIME("sample", " AND run_id = ?1"),
		STORE_SQL_FILL_TIME("event", " AND run_id = ?1"),
		STORE_SQL_FILL_TIME("interval_histogram", " AND run_id = ?1"),
		STORE_SQL_FILL_WIN_PCT(" AND run_id = ?1"),
		STORE_SQL_FILL_TIME("host_sample", " AND run_id = ?1"),
	};

	return import_exec_each(s, sql, DP_ARRAY_SIZE(sql), id);
}

/* Copies run src_id of "src" with all its rows, under uuid and id here (0:
 * a new id). */
static int import_run(struct store *s, int64_t version, int64_t src_id, int64_t id,
		      const char *uuid, struct strbuf *err)
{
	struct strbuf sql = STRBUF_INIT;
	sqlite3_stmt *st = NULL;
	int64_t new_id;
	int ret = 0, rc;
	size_t i;

	strbuf_addf(
		&sql,
		"INSERT INTO main.run (id, %s%s%s%s, uuid) SELECT ?, %s%s%s%s, ? FROM src.run"
		" WHERE id = ?",
		import_run_columns, version >= 7 ? import_run_columns7 : "",
		version >= 8 ? import_run_columns8 : "", version >= 10 ? import_run_columns10 : "",
		import_run_columns, version >= 7 ? import_run_columns7 : "",
		version >= 8 ? import_run_columns8 : "", version >= 10 ? import_run_columns10 : "");
	rc = sqlite3_prepare_v2(s->db, sql.buf, -1, &st, NULL);
	if (rc == SQLITE_OK) {
		if (id)
			sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_text(st, 2, uuid, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(st, 3, src_id);
		rc = sqlite3_step(st);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		goto out_fail;
	new_id = sqlite3_last_insert_rowid(s->db);
	for (i = 0; i < DP_ARRAY_SIZE(import_tables); i++) {
		if (import_tables[i].since > version)
			continue; /* the other file predates the table */
		const char *c7 =
			version >= 7 && import_tables[i].columns7 ? import_tables[i].columns7 : "";

		strbuf_reset(&sql);
		strbuf_addf(&sql,
			    "INSERT INTO main.%s (run_id, %s%s) SELECT ?, %s%s FROM src.%s"
			    " WHERE run_id = ? ORDER BY rowid",
			    import_tables[i].name, import_tables[i].columns, c7,
			    import_tables[i].columns, c7, import_tables[i].name);
		rc = sqlite3_prepare_v2(s->db, sql.buf, -1, &st, NULL);
		if (rc == SQLITE_OK) {
			sqlite3_bind_int64(st, 1, new_id);
			sqlite3_bind_int64(st, 2, src_id);
			rc = sqlite3_step(st);
		}
		sqlite3_finalize(st);
		if (rc != SQLITE_DONE)
			goto out_fail;
	}
	rc = import_fill(s, new_id);
	if (rc == SQLITE_DONE)
		rc = import_running_end(s, new_id);
	if (rc != SQLITE_DONE)
		goto out_fail;
	strbuf_release(&sql);
	return 0;

out_fail:
	strbuf_reset(&sql);
	strbuf_addf(&sql, "import run %" PRId64, src_id);
	ret = store_fail(s, err, rc, sql.buf);
	strbuf_release(&sql);
	return ret;
}

/* One integer from sql with ?1 bound to a and ?2 to text b (NULL: unbound);
 * def when it yields no row or NULL. SQLite's code: SQLITE_ROW or DONE. */
static int import_int(struct store *s, const char *sql, int64_t a, const char *b, int64_t def,
		      int64_t *v)
{
	sqlite3_stmt *st;
	int rc;

	*v = def;
	rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return rc;
	sqlite3_bind_int64(st, 1, a);
	if (b)
		sqlite3_bind_text(st, 2, b, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		*v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return rc;
}

/*
 * What to do with run src_id of "src", known here by uuid: a new run is
 * copied (*here 0); a copy here taken while the run was still going (its
 * IMPORT_UNFINISHED event) is replaced (*here its id) when the other file
 * has the run ended, or gone further (a later last sample); any other copy
 * stays (*skip). SQLite's code: SQLITE_DONE when decided.
 */
static int import_decide(struct store *s, int64_t src_id, const char *uuid, int64_t *here,
			 bool *skip)
{
	int64_t unfinished = 0, running = 0, t_src = -1, t_here = -1;
	int rc;

	*skip = false;
	rc = import_int(s, "SELECT id FROM main.run WHERE uuid = ?2", 0, uuid, 0, here);
	if ((rc != SQLITE_ROW && rc != SQLITE_DONE) || !*here)
		return rc == SQLITE_ROW || rc == SQLITE_DONE ? SQLITE_DONE : rc;
	rc = import_int(s,
			"SELECT 1 FROM main.run r JOIN main.event e ON e.run_id = r.id"
			" WHERE r.id = ?1 AND r.status = 'aborted' AND e.kind = 'stop'"
			" AND substr(e.message, 1, length(?2)) = ?2",
			*here, IMPORT_UNFINISHED, 0, &unfinished);
	if (rc == SQLITE_ROW || rc == SQLITE_DONE)
		rc = import_int(s, "SELECT status = 'running' FROM src.run WHERE id = ?1", src_id,
				NULL, 0, &running);
	if (rc == SQLITE_ROW || rc == SQLITE_DONE)
		rc = import_int(s, "SELECT max(t_ms) FROM src.sample WHERE run_id = ?1", src_id,
				NULL, -1, &t_src);
	if (rc == SQLITE_ROW || rc == SQLITE_DONE)
		rc = import_int(s, "SELECT max(t_ms) FROM main.sample WHERE run_id = ?1", *here,
				NULL, -1, &t_here);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return rc;
	*skip = !unfinished || (running && t_src <= t_here);
	return SQLITE_DONE;
}

/*
 * Run src_id of "src" (uuid), as import_decide says: skipped, or checked
 * (store_run_check) and copied, in place of the copy here it replaces. A
 * run with a value no run writes is not copied (the copy here, if any,
 * stays): refusals says why, one line each.
 */
static int import_one(struct store *s, const char *other, int64_t version, int64_t src_id,
		      const char *uuid, struct store_import_counts *n, struct strbuf *refusals,
		      struct strbuf *err)
{
	struct strbuf why = STRBUF_INIT;
	int64_t here = 0;
	bool skip;
	int ret, rc;

	rc = import_decide(s, src_id, uuid, &here, &skip);
	if (rc != SQLITE_DONE)
		return store_fail(s, err, rc, "import runs");
	if (skip) {
		n->skipped++;
		return 0;
	}
	ret = store_run_check(s, "src", src_id, true, &why, err);
	if (ret == -ERANGE) {
		strbuf_addf(refusals, "%s: run %" PRId64 " not imported: %s (no run writes that)\n",
			    other, src_id, why.buf);
		n->refused++;
		ret = 0;
	} else if (!ret) {
		static const char *const del[] = {"DELETE FROM main.run WHERE id = ?"};

		/* the old copy's rows go with it (ON DELETE CASCADE) */
		rc = here ? import_exec_each(s, del, 1, here) : SQLITE_DONE;
		if (rc != SQLITE_DONE)
			ret = store_fail(s, err, rc, "replace an unfinished copy");
		if (!ret)
			ret = import_run(s, version, src_id, here, uuid, err);
		if (!ret)
			(*(here ? &n->replaced : &n->imported))++;
	}
	strbuf_release(&why);
	return ret;
}

/* Every run of "src", in src's id order (import_one). */
static int import_runs(struct store *s, const char *other, int64_t version,
		       struct store_import_counts *n, struct strbuf *refusals, struct strbuf *err)
{
	sqlite3_stmt *sel = NULL;
	const char *uuid_sql = version >= 2 ? "coalesce(uuid, dp_run_uuid(host, started_at, pid,"
					      " profile_name, command_line))"
					    : "dp_run_uuid(host, started_at, pid, profile_name,"
					      " command_line)";
	struct strbuf sql = STRBUF_INIT;
	int ret, rc = SQLITE_DONE;

	strbuf_addf(&sql, "SELECT id, %s FROM src.run ORDER BY id", uuid_sql);
	ret = store_prepare(s, sql.buf, &sel, 0, err);
	while (!ret && (rc = sqlite3_step(sel)) == SQLITE_ROW)
		ret = import_one(s, other, version, sqlite3_column_int64(sel, 0),
				 (const char *)sqlite3_column_text(sel, 1), n, refusals, err);
	if (!ret && rc != SQLITE_DONE)
		ret = store_fail(s, err, rc, "import runs");
	sqlite3_finalize(sel);
	strbuf_release(&sql);
	return ret;
}

/*
 * The other file is attached read-only and never changed; one of an older
 * schema is read as it is (runs of schema 1 are identified as the migration
 * would identify them). All runs are copied in one transaction, so an import
 * that fails adds nothing.
 */
int store_import(struct store *s, const char *other, struct store_import_counts *n,
		 struct strbuf *refusals, struct strbuf *err)
{
	struct strbuf real = STRBUF_INIT, why = STRBUF_INIT;
	int64_t version;
	int ret;

	memset(n, 0, sizeof(*n));
	/* the same rules as for the results file itself: a device or FIFO
	 * named as the other file is never opened */
	ret = store_path_check(other, false, &real, NULL, err);
	if (ret)
		goto out_real;
	ret = import_attach(s, other, real.buf, "mode=ro", &version, &why);
	/* a read-only filesystem: see store_open_read() */
	if (ret && ret != -EINVAL && ret != -EPROTO && ret != -ENOMEM &&
	    store_wal_empty(real.buf)) {
		strbuf_reset(&why);
		ret = import_attach(s, other, real.buf, "mode=ro&immutable=1", &version, &why);
	}
	if (ret) {
		strbuf_addstr(err, why.buf);
		goto out_real;
	}
	ret = store_begin(s, err);
	if (ret)
		goto out_detach;
	ret = import_runs(s, other, version, n, refusals, err);
	if (!ret)
		ret = store_commit(s, err);
	if (ret) {
		store_rollback(s);
		memset(n, 0, sizeof(*n));
	}
out_detach:
	sqlite3_exec(s->db, "DETACH DATABASE src", NULL, NULL, NULL);
out_real:
	strbuf_release(&real);
	strbuf_release(&why);
	return ret;
}
