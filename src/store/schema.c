/*
 * schema.c - the results file's schema: the versioned migrations, the
 * checks that a file is ours and of a version this build reads, migrating
 * it forward, and dp_run_uuid(), the identity of a run of schema 1.
 *
 * The schema is versioned by PRAGMA user_version and marked as ours by
 * PRAGMA application_id. store_migrations[] holds one SQL script per
 * version; opening a file at version v applies scripts v+1.. in one
 * transaction, so a file is never left half-migrated. A file from a newer
 * diskproof is refused rather than guessed at.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include <sqlite3.h>

#include "store_internal.h"

/*
 * Migration i takes a file from version i to version i + 1; the array index
 * is the version it starts from. Scripts use plain CREATE (no IF NOT EXISTS):
 * applying one twice fails loudly instead of silently drifting.
 */
static const char *const store_migrations[] = {
	/* 0 -> 1: the first schema; docs/results-schema.md describes it. */
	"CREATE TABLE run ("
	" id INTEGER PRIMARY KEY AUTOINCREMENT,"
	" status TEXT NOT NULL"
	"  CHECK (status IN ('running', 'passed', 'failed', 'aborted', 'error')),"
	" verdict TEXT CHECK (verdict IN ('PASS', 'FAIL', 'NONE')),"
	" label TEXT,"
	" host TEXT,"
	" started_at TEXT NOT NULL,"
	" ended_at TEXT,"
	" duration_s REAL,"
	" profile_name TEXT,"
	" profile_text TEXT,"
	" command_line TEXT,"
	" pid INTEGER,"
	" engine TEXT,"
	" test_type TEXT,"
	" streams INTEGER,"
	" warmup_s REAL,"
	" exit_code INTEGER"
	");"
	"CREATE TABLE sample ("
	" run_id INTEGER NOT NULL REFERENCES run (id) ON DELETE CASCADE,"
	" t_ms INTEGER NOT NULL,"
	" warmup INTEGER NOT NULL,"
	" scope TEXT NOT NULL CHECK (scope IN ('run', 'volume', 'database')),"
	" scope_name TEXT NOT NULL,"
	" class TEXT NOT NULL,"
	" ios INTEGER NOT NULL,"
	" bytes INTEGER NOT NULL,"
	" errors INTEGER NOT NULL,"
	" lat_sum_ns INTEGER NOT NULL,"
	" lat_max_ns INTEGER NOT NULL,"
	" p50_ns INTEGER NOT NULL,"
	" p99_ns INTEGER NOT NULL"
	");"
	"CREATE INDEX sample_run ON sample (run_id, t_ms);"
	"CREATE TABLE summary ("
	" run_id INTEGER NOT NULL REFERENCES run (id) ON DELETE CASCADE,"
	" scope TEXT NOT NULL CHECK (scope IN ('run', 'volume', 'database')),"
	" name TEXT NOT NULL,"
	" volume TEXT,"
	" class TEXT NOT NULL,"
	" ios INTEGER NOT NULL,"
	" bytes INTEGER NOT NULL,"
	" errors INTEGER NOT NULL,"
	" iops REAL NOT NULL,"
	" mbps REAL NOT NULL,"
	" avg_ms REAL NOT NULL,"
	" p50_ms REAL NOT NULL,"
	" p99_ms REAL NOT NULL,"
	" max_ms REAL NOT NULL,"
	" integrity_errors INTEGER NOT NULL,"
	" UNIQUE (run_id, scope, name, class)"
	");"
	"CREATE TABLE histogram ("
	" run_id INTEGER NOT NULL REFERENCES run (id) ON DELETE CASCADE,"
	" scope TEXT NOT NULL CHECK (scope IN ('run', 'volume', 'database')),"
	" name TEXT NOT NULL,"
	" class TEXT NOT NULL,"
	" bits INTEGER NOT NULL,"
	" max_bits INTEGER NOT NULL,"
	" count INTEGER NOT NULL,"
	" sum_ns INTEGER NOT NULL,"
	" min_ns INTEGER,"
	" max_ns INTEGER NOT NULL,"
	" buckets TEXT NOT NULL,"
	" UNIQUE (run_id, scope, name, class)"
	");"
	"CREATE TABLE verdict ("
	" run_id INTEGER NOT NULL REFERENCES run (id) ON DELETE CASCADE,"
	" scope TEXT NOT NULL CHECK (scope IN ('run', 'volume', 'database')),"
	" name TEXT NOT NULL,"
	" volume TEXT,"
	" criterion TEXT NOT NULL,"
	" cmp TEXT NOT NULL CHECK (cmp IN ('<=', '>=')),"
	" threshold REAL,"
	" measured REAL,"
	" passed INTEGER NOT NULL"
	");"
	"CREATE INDEX verdict_run ON verdict (run_id);"
	"CREATE TABLE env ("
	" run_id INTEGER NOT NULL REFERENCES run (id) ON DELETE CASCADE,"
	" key TEXT NOT NULL,"
	" value TEXT,"
	" UNIQUE (run_id, key)"
	");"
	"CREATE TABLE volume ("
	" run_id INTEGER NOT NULL REFERENCES run (id) ON DELETE CASCADE,"
	" name TEXT NOT NULL,"
	" path TEXT,"
	" log_path TEXT,"
	" databases INTEGER NOT NULL,"
	" UNIQUE (run_id, name)"
	");"
	"CREATE TABLE \"database\" ("
	" run_id INTEGER NOT NULL REFERENCES run (id) ON DELETE CASCADE,"
	" name TEXT NOT NULL,"
	" volume TEXT NOT NULL,"
	" path TEXT,"
	" log_path TEXT,"
	" size INTEGER NOT NULL,"
	" UNIQUE (run_id, name)"
	");"
	"CREATE TABLE event ("
	" run_id INTEGER NOT NULL REFERENCES run (id) ON DELETE CASCADE,"
	" t_ms INTEGER NOT NULL,"
	" kind TEXT NOT NULL,"
	" message TEXT"
	");"
	"CREATE INDEX event_run ON event (run_id, t_ms);"
	"CREATE TABLE autotune_step ("
	" run_id INTEGER NOT NULL REFERENCES run (id) ON DELETE CASCADE,"
	" step INTEGER NOT NULL,"
	" streams INTEGER NOT NULL,"
	" iops REAL,"
	" db_read_avg_ms REAL,"
	" log_write_avg_ms REAL,"
	" passed INTEGER NOT NULL,"
	" reason TEXT,"
	" UNIQUE (run_id, step)"
	");",
	/* 1 -> 2: run.uuid, a run's identity across files (store_import). Runs
	 * of a version-1 file get the identity store_uuid_legacy() derives from
	 * their row, the same one an import of that file computes. */
	"ALTER TABLE run ADD COLUMN uuid TEXT;"
	"UPDATE run SET uuid = dp_run_uuid(host, started_at, pid, profile_name, command_line);"
	"CREATE INDEX run_uuid ON run (uuid);",
	/* 2 -> 3: latency histograms of 15 s windows per volume x class, so a
	 * percentile over any stretch of a run can be merged exactly. */
	"CREATE TABLE interval_histogram ("
	" run_id INTEGER NOT NULL REFERENCES run (id) ON DELETE CASCADE,"
	" t_ms INTEGER NOT NULL,"
	" warmup INTEGER NOT NULL,"
	" scope TEXT NOT NULL CHECK (scope IN ('run', 'volume', 'database')),"
	" name TEXT NOT NULL,"
	" class TEXT NOT NULL,"
	" count INTEGER NOT NULL,"
	" sum_ns INTEGER NOT NULL,"
	" min_ns INTEGER,"
	" max_ns INTEGER NOT NULL,"
	" buckets TEXT NOT NULL"
	");"
	"CREATE INDEX interval_histogram_run ON interval_histogram (run_id, t_ms);",
	/* 3 -> 4: host counters per interval (counters.h): a row for the host
	 * (device NULL: CPU and memory) and one per block device under the
	 * volumes; a figure not measured in an interval is NULL. */
	"CREATE TABLE host_sample ("
	" run_id INTEGER NOT NULL REFERENCES run (id) ON DELETE CASCADE,"
	" t_ms INTEGER NOT NULL,"
	" warmup INTEGER NOT NULL,"
	" device TEXT,"
	" span_ms INTEGER NOT NULL,"
	" cpu_user_pct REAL,"
	" cpu_system_pct REAL,"
	" cpu_iowait_pct REAL,"
	" mem_available INTEGER,"
	" reads INTEGER,"
	" writes INTEGER,"
	" read_sectors INTEGER,"
	" write_sectors INTEGER,"
	" reads_per_s REAL,"
	" writes_per_s REAL,"
	" read_kbps REAL,"
	" write_kbps REAL,"
	" read_wait_ms REAL,"
	" write_wait_ms REAL,"
	" avg_wait_ms REAL,"
	" util_pct REAL,"
	" queue REAL"
	");"
	"CREATE INDEX host_sample_run ON host_sample (run_id, t_ms);",
	/* 4 -> 5, two tables: the streams each scope had (the stream pool): stream time
	 * over the measured span and the time-averaged streams it makes; runs
	 * of older files have no rows (reports show "-"). */
	"CREATE TABLE stream_share ("
	" run_id INTEGER NOT NULL REFERENCES run (id) ON DELETE CASCADE,"
	" scope TEXT NOT NULL CHECK (scope IN ('run', 'volume', 'database')),"
	" name TEXT NOT NULL,"
	" stream_ns INTEGER NOT NULL,"
	" streams REAL NOT NULL,"
	" UNIQUE (run_id, scope, name)"
	");"
	/* and what a summary row of schema 1 lacks, per scope x class (a
	 * row only where a figure is known): the highest average over one
	 * sample of sample_ms (max_basis = sample, NULL: no sample had I/O),
	 * and the scope's page fault stalls over the measured time (NULL
	 * where nothing counted them), repeated on each class row as
	 * summary.integrity_errors is. */
	"CREATE TABLE scope_extra ("
	" run_id INTEGER NOT NULL REFERENCES run (id) ON DELETE CASCADE,"
	" scope TEXT NOT NULL CHECK (scope IN ('run', 'volume', 'database')),"
	" name TEXT NOT NULL,"
	" class TEXT NOT NULL,"
	" sample_ms INTEGER NOT NULL,"
	" max_sample_avg_ms REAL,"
	" page_fault_stalls INTEGER,"
	" UNIQUE (run_id, scope, name, class)"
	");",
	/* 5 -> 6, two tables: the run's effective parameters, every profile key
	 * with the value the run used and where that value came from (so a
	 * report lists them and compare diffs them without re-reading the
	 * profile text, which holds neither defaults nor command-line
	 * options); and each database file's size when the run ended. */
	"CREATE TABLE param ("
	" run_id INTEGER NOT NULL REFERENCES run (id) ON DELETE CASCADE,"
	" section TEXT NOT NULL,"
	" name TEXT NOT NULL,"
	" key TEXT NOT NULL,"
	" value TEXT,"
	" source TEXT NOT NULL CHECK (source IN ('profile', 'default', 'option', 'derived')),"
	" UNIQUE (run_id, section, name, key)"
	");"
	"CREATE TABLE database_final ("
	" run_id INTEGER NOT NULL REFERENCES run (id) ON DELETE CASCADE,"
	" name TEXT NOT NULL,"
	" size INTEGER NOT NULL,"
	" UNIQUE (run_id, name)"
	");",
};

_Static_assert(DP_ARRAY_SIZE(store_migrations) == STORE_SCHEMA_VERSION,
	       "one migration per schema version");

/* A version this build can open (by migrating it forward if older)? */
static int store_version_check(const struct store *s, int64_t version, struct strbuf *err)
{
	if (version > STORE_SCHEMA_VERSION) {
		strbuf_addf(err,
			    "%s: results file was written by a newer diskproof (schema %" PRId64
			    ", this build knows %d)",
			    s->path, version, STORE_SCHEMA_VERSION);
		return -EPROTO;
	}
	if (version < 0) {
		strbuf_addf(err, "%s: not a diskproof results file (schema version %" PRId64 ")",
			    s->path, version);
		return -EIO;
	}
	return 0;
}

/*
 * Reads the schema version, and checks the file is ours. The first read is
 * where SQLite looks at the file at all, so a text file or a damaged one is
 * found here rather than at the first write.
 */
static int store_check_file_txn(struct store *s, int64_t *version, struct strbuf *err)
{
	sqlite3_stmt *st;
	int64_t app_id = 0, tables = 0;
	int ret, rc;

	*version = 0;
	rc = sqlite3_prepare_v2(s->db, "PRAGMA user_version", -1, &st, NULL);
	if (rc == SQLITE_OK) {
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW)
			*version = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	if ((rc & 0xff) == SQLITE_NOTADB || (rc & 0xff) == SQLITE_CORRUPT) {
		strbuf_addf(err, "%s: not a diskproof results file (%s)", s->path,
			    sqlite3_errmsg(s->db));
		return -EIO;
	}
	if (rc != SQLITE_ROW)
		return store_fail(s, err, rc, "read the file's header");

	ret = store_version_check(s, *version, err);
	if (ret)
		return ret;
	ret = store_read_int(s, "PRAGMA application_id", &app_id, err);
	if (ret)
		return ret;
	if (app_id != 0 && app_id != STORE_APPLICATION_ID) {
		strbuf_addf(err,
			    "%s: not a diskproof results file (SQLite application_id 0x%08" PRIx64
			    ")",
			    s->path, (uint64_t)app_id);
		return -EIO;
	}
	if (*version == 0) {
		ret = store_read_int(s, "SELECT count(*) FROM sqlite_master", &tables, err);
		if (ret)
			return ret;
		if (tables) {
			strbuf_addf(err,
				    "%s: not a diskproof results file (an SQLite database with "
				    "other tables)",
				    s->path);
			return -EIO;
		}
	}
	if (!s->readonly && sqlite3_db_readonly(s->db, "main") == 1) {
		strbuf_addf(err, "%s: cannot open for writing: file is read-only", s->path);
		return -EACCES;
	}
	return 0;
}

/*
 * The file's header and tables are read in one read transaction, so that a
 * second process creating the schema at the same moment is seen either not at
 * all or completely (never "tables but no version").
 */
int store_check_file(struct store *s, int64_t *version, struct strbuf *err)
{
	int ret;

	if (sqlite3_exec(s->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		return store_check_file_txn(s, version, err);
	ret = store_check_file_txn(s, version, err);
	store_rollback(s);
	return ret;
}

/* Applies the migrations from the file's version up, in one transaction. */
int store_migrate(struct store *s, struct strbuf *err)
{
	struct strbuf sql = STRBUF_INIT;
	int64_t version;
	int ret;
	size_t v;

	ret = store_begin(s, err);
	if (ret)
		return ret;
	/* Another process may have migrated the file since we looked. */
	ret = store_read_int(s, "PRAGMA user_version", &version, err);
	if (ret)
		goto out_rollback;
	ret = store_version_check(s, version, err);
	if (ret)
		goto out_rollback;
	for (v = (size_t)version; v < DP_ARRAY_SIZE(store_migrations); v++) {
		strbuf_reset(&sql);
		strbuf_addf(&sql, "migrate schema %zu to %zu", v, v + 1);
		ret = store_exec(s, store_migrations[v], sql.buf, err);
		if (ret)
			goto out_rollback;
	}
	strbuf_reset(&sql);
	strbuf_addf(&sql, "PRAGMA application_id = %d; PRAGMA user_version = %d",
		    STORE_APPLICATION_ID, STORE_SCHEMA_VERSION);
	ret = store_exec(s, sql.buf, "set schema version", err);
	if (ret)
		goto out_rollback;
	ret = store_commit(s, err);
	if (ret)
		goto out_rollback;
	strbuf_release(&sql);
	return 0;

out_rollback:
	store_rollback(s);
	strbuf_release(&sql);
	return ret;
}

/* 64-bit FNV-1a over len bytes, continuing from h. */
static uint64_t store_fnv1a(uint64_t h, const void *data, size_t len)
{
	const unsigned char *p = data;

	while (len--) {
		h ^= *p++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

/*
 * SQL function dp_run_uuid(host, started_at, pid, profile_name, command_line):
 * the identity of a run written before run.uuid existed (schema 1), as 32 hex
 * digits: two FNV-1a hashes, from two offset bases, over the fields tagged
 * NULL or text. A process runs one run at a time, so the five fields never
 * coincide for two runs; the migration and an import of a version-1 file
 * derive the same identity, so importing a file before and after it was
 * migrated adds nothing the second time.
 */
void store_uuid_legacy(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	uint64_t a = 0xcbf29ce484222325ULL, b = 0x84222325cbf29ce4ULL;
	char out[33];
	int i;

	for (i = 0; i < argc; i++) {
		const unsigned char *v = sqlite3_value_text(argv[i]);
		size_t len = v ? (size_t)sqlite3_value_bytes(argv[i]) : 0;
		unsigned char tag = v ? 'T' : 'N';

		a = store_fnv1a(store_fnv1a(a, &tag, 1), v ? v : (const unsigned char *)"", len);
		b = store_fnv1a(store_fnv1a(b, &tag, 1), v ? v : (const unsigned char *)"", len);
		tag = 0x1f; /* field separator */
		a = store_fnv1a(a, &tag, 1);
		b = store_fnv1a(b, &tag, 1);
	}
	snprintf(out, sizeof(out), "%016" PRIx64 "%016" PRIx64, a, b);
	sqlite3_result_text(ctx, out, -1, SQLITE_TRANSIENT);
}
