/*
 * store.c - the SQLite results file (store.h): opening and checking the file,
 * the schema and its forward migrations, the coordinator's writes (run row,
 * layout, per-interval samples, events, env facts, end-of-run totals) and the
 * queries that load a run's results model for the reports.
 *
 * Why it is built this way:
 *   - The schema is versioned by PRAGMA user_version and marked as ours by
 *     PRAGMA application_id. store_migrations[] holds one SQL script per
 *     version; opening a file at version v applies scripts v+1.. in one
 *     transaction, so a file is never left half-migrated. A file from a newer
 *     diskproof is refused rather than guessed at.
 *   - WAL mode and synchronous=NORMAL: readers (a report while a run writes)
 *     never block the writer, and a commit costs no fsync of the main file;
 *     WAL with NORMAL may lose the last transactions on power loss but never
 *     corrupts the file, which is what a results file needs.
 *   - Every write is one BEGIN IMMEDIATE transaction: the write lock is taken
 *     up front, so a busy file is waited for (bounded by the busy timeout)
 *     at BEGIN instead of failing mid-transaction on a lock upgrade, which in
 *     WAL mode the busy handler cannot retry.
 *   - The per-interval inserts use statements prepared once at open, and
 *     write no row for a class that had no I/O in the interval (of six
 *     classes a workload issues two to five): readers count it as 0
 *     (results.h). Whole-run totals keep every class.
 * SQLite has no unsigned 64-bit integers: counters are stored as INTEGER and
 * clamped to INT64_MAX, far beyond any real count.
 */
#include <errno.h>
#include <signal.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <sqlite3.h>

#include "diskproof/counters.h"
#include "diskproof/store.h"

/* "dskp": PRAGMA application_id of a diskproof results file. */
#define STORE_APPLICATION_ID 0x64736b70
#define STORE_BUSY_TIMEOUT_MS 5000

struct store {
	sqlite3 *db;
	char *path;
	bool readonly; /* opened mode=ro: nothing may be written */
	sqlite3_stmt *ins_sample;
	sqlite3_stmt *ins_event;
	sqlite3_stmt *ins_env;
	sqlite3_stmt *ins_host;
};

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
};

_Static_assert(DP_ARRAY_SIZE(store_migrations) == STORE_SCHEMA_VERSION,
	       "one migration per schema version");

static const char store_sql_ins_sample[] =
	"INSERT INTO sample (run_id, t_ms, warmup, scope, scope_name, class, ios, bytes,"
	" errors, lat_sum_ns, lat_max_ns, p50_ns, p99_ns)"
	" VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
static const char store_sql_ins_host[] =
	"INSERT INTO host_sample (run_id, t_ms, warmup, device, span_ms, cpu_user_pct,"
	" cpu_system_pct, cpu_iowait_pct, mem_available, reads, writes, read_sectors,"
	" write_sectors, reads_per_s, writes_per_s, read_kbps, write_kbps, read_wait_ms,"
	" write_wait_ms, avg_wait_ms, util_pct, queue)"
	" VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
static const char store_sql_ins_event[] =
	"INSERT INTO event (run_id, t_ms, kind, message) VALUES (?, ?, ?, ?)";
static const char store_sql_ins_env[] =
	"INSERT INTO env (run_id, key, value) VALUES (?, ?, ?)"
	" ON CONFLICT (run_id, key) DO UPDATE SET value = excluded.value";

/* SQLite result code to -errno (store.h: -EIO unless something better fits). */
static int store_errno_of(sqlite3 *db, int rc)
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
static int store_fail(const struct store *s, struct strbuf *err, int rc, const char *what)
{
	strbuf_addf(err, "%s: %s: %s", s->path, what,
		    s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc));
	return store_errno_of(s->db, rc);
}

static int store_exec(struct store *s, const char *sql, const char *what, struct strbuf *err)
{
	int rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL);

	if (rc != SQLITE_OK)
		return store_fail(s, err, rc, what);
	return 0;
}

static int store_begin(struct store *s, struct strbuf *err)
{
	return store_exec(s, "BEGIN IMMEDIATE", "begin transaction", err);
}

static int store_commit(struct store *s, struct strbuf *err)
{
	return store_exec(s, "COMMIT", "commit", err);
}

/* Undoes an open transaction, if SQLite has not already done so. */
static void store_rollback(struct store *s)
{
	if (!sqlite3_get_autocommit(s->db))
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
}

static int store_prepare(struct store *s, const char *sql, sqlite3_stmt **st, unsigned flags,
			 struct strbuf *err)
{
	int rc = sqlite3_prepare_v3(s->db, sql, -1, flags, st, NULL);

	if (rc != SQLITE_OK)
		return store_fail(s, err, rc, "prepare statement");
	return 0;
}

/*
 * Positional binding with a sticky error, so a row's binds read as a list and
 * the first failure is reported once (after strbuf's manner).
 */
struct binder {
	sqlite3_stmt *st;
	int idx;
	int rc;
};

static void binder_start(struct binder *b, sqlite3_stmt *st)
{
	b->st = st;
	b->idx = 0;
	b->rc = SQLITE_OK;
}

static void bind_i64(struct binder *b, int64_t v)
{
	b->idx++;
	if (b->rc == SQLITE_OK)
		b->rc = sqlite3_bind_int64(b->st, b->idx, v);
}

static void bind_u64(struct binder *b, uint64_t v)
{
	bind_i64(b, v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v);
}

static void bind_dbl(struct binder *b, double v)
{
	b->idx++;
	if (b->rc == SQLITE_OK)
		b->rc = sqlite3_bind_double(b->st, b->idx, v);
}

static void bind_null(struct binder *b)
{
	b->idx++;
	if (b->rc == SQLITE_OK)
		b->rc = sqlite3_bind_null(b->st, b->idx);
}

/* NULL (and, with empty_null, "") binds SQL NULL. */
static void bind_str(struct binder *b, const char *v, bool empty_null)
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
static void binder_reset(struct binder *b)
{
	sqlite3_reset(b->st);
	sqlite3_clear_bindings(b->st);
}

/* Steps a bound insert/update to completion and resets it for the next row. */
static int binder_run(struct binder *b)
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

static int store_read_int(struct store *s, const char *sql, int64_t *v, struct strbuf *err)
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
static int store_check_file(struct store *s, int64_t *version, struct strbuf *err)
{
	int ret;

	if (sqlite3_exec(s->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		return store_check_file_txn(s, version, err);
	ret = store_check_file_txn(s, version, err);
	store_rollback(s);
	return ret;
}

/* Applies the migrations from the file's version up, in one transaction. */
static int store_migrate(struct store *s, struct strbuf *err)
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

static int store_prepare_cached(struct store *s, struct strbuf *err)
{
	int ret;

	ret = store_prepare(s, store_sql_ins_sample, &s->ins_sample, SQLITE_PREPARE_PERSISTENT,
			    err);
	if (ret)
		return ret;
	ret = store_prepare(s, store_sql_ins_event, &s->ins_event, SQLITE_PREPARE_PERSISTENT, err);
	if (ret)
		return ret;
	ret = store_prepare(s, store_sql_ins_host, &s->ins_host, SQLITE_PREPARE_PERSISTENT, err);
	if (ret)
		return ret;
	return store_prepare(s, store_sql_ins_env, &s->ins_env, SQLITE_PREPARE_PERSISTENT, err);
}

/* Runs of this host whose process is gone are marked aborted at every
 * read-write open: the next command after a kill leaves the file consistent. */
static int store_reap_own_host(struct store *s, struct strbuf *err)
{
	struct strbuf why = STRBUF_INIT;
	char host[256] = "";
	unsigned n;
	int ret = 0;

	/* Best effort where the file cannot be written just now (full,
	 * read-only, locked): that must not keep it from being read, and the
	 * next open tries again. A damaged file is still an error. */
	if (gethostname(host, sizeof(host) - 1) == 0)
		ret = store_runs_reap_stale(s, host, &n, &why);
	if (ret == -ENOSPC || ret == -EROFS || ret == -EACCES || ret == -EBUSY)
		ret = 0;
	else if (ret)
		strbuf_addstr(err, why.buf);
	strbuf_release(&why);
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
static void store_uuid_legacy(sqlite3_context *ctx, int argc, sqlite3_value **argv)
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

/* What a file of mode m is, for a message. */
static const char *store_kind(mode_t m)
{
	if (S_ISREG(m))
		return "a regular file";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISSOCK(m))
		return "a socket";
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISLNK(m))
		return "a symbolic link";
	return "not a regular file";
}

/*
 * 0 when path is a regular file (or, with follow, a symbolic link to one);
 * -ENOENT when nothing is there (a dangling symbolic link is not nothing: it
 * would make SQLite create its target); else -ENOTSUP with "PATH: is a block
 * device; WHAT must be a regular file". *st gets what was found.
 */
static int store_path_kind(const char *path, bool follow, const char *what, struct stat *st,
			   struct strbuf *err)
{
	struct stat t;

	if (lstat(path, st) != 0) {
		if (errno == ENOENT)
			return -ENOENT;
		strbuf_addf(err, "%s: cannot look at it: %s", path, strerror(errno));
		return errno == ENOTDIR ? -ENOTSUP : -errno;
	}
	if (S_ISREG(st->st_mode))
		return 0;
	if (!S_ISLNK(st->st_mode)) {
		strbuf_addf(err, "%s: is %s; %s must be a regular file", path,
			    store_kind(st->st_mode), what);
		return -ENOTSUP;
	}
	if (stat(path, &t) != 0) {
		strbuf_addf(err,
			    "%s: is a symbolic link to nothing (%s); %s must be a regular file",
			    path, strerror(errno), what);
		return -ENOTSUP;
	}
	if (follow && S_ISREG(t.st_mode)) {
		*st = t;
		return 0;
	}
	strbuf_addf(err, "%s: is a symbolic link to %s; %s must be a regular file", path,
		    store_kind(t.st_mode), what);
	return -ENOTSUP;
}

/* The files SQLite keeps beside a results file. */
static const char *const store_siblings[] = {"-wal", "-shm", "-journal"};

/* Each sibling of real (a resolved path) is absent or a regular file (not
 * even a symbolic link to one: SQLite would write through it). */
static int store_siblings_check(const char *real, struct strbuf *err)
{
	struct strbuf name = STRBUF_INIT, what = STRBUF_INIT;
	struct stat st;
	int ret = 0;

	for (size_t i = 0; i < DP_ARRAY_SIZE(store_siblings) && !ret; i++) {
		strbuf_reset(&name);
		strbuf_reset(&what);
		strbuf_addf(&name, "%s%s", real, store_siblings[i]);
		strbuf_addf(&what, "the results file's %s", store_siblings[i]);
		ret = store_path_kind(name.buf, false, what.buf, &st, err);
		if (ret == -ENOENT) {
			ret = 0;
		} else if (!ret && st.st_nlink > 1) {
			/* SQLite would write the other names' file through it */
			strbuf_addf(err, "%s: has %lu hard links; %s must be a file of its own",
				    name.buf, (unsigned long)st.st_nlink, what.buf);
			ret = -ENOTSUP;
		}
	}
	strbuf_release(&name);
	strbuf_release(&what);
	return ret;
}

int store_path_check(const char *path, bool may_create, struct strbuf *real, struct stat *st,
		     struct strbuf *err)
{
	struct strbuf own = STRBUF_INIT, dir = STRBUF_INIT;
	struct strbuf *rp = real ? real : &own;
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	struct stat st0;
	char *r = NULL;
	int ret;

	st = st ? st : &st0;
	memset(st, 0, sizeof(*st));
	strbuf_reset(rp);
	if (!*base) {
		strbuf_addf(err, "%s: names a directory; the results file must be a regular file",
			    *path ? path : "\"\"");
		return -ENOTSUP;
	}
	ret = store_path_kind(path, true, "the results file", st, err);
	if (ret == -ENOENT && !may_create) {
		strbuf_addf(err, "%s: no such results file", path);
		goto out;
	}
	if (ret == -ENOENT) {
		/* a new file: its directory's real path and its name */
		memset(st, 0, sizeof(*st));
		if (slash)
			strbuf_add(&dir, path, slash == path ? 1 : (size_t)(slash - path));
		else
			strbuf_addch(&dir, '.');
		r = realpath(dir.buf, NULL);
		ret = r ? 0 : -errno;
		if (ret)
			strbuf_addf(err, "%s: cannot open: %s: %s", path, dir.buf, strerror(-ret));
		else
			strbuf_addf(rp, "%s/%s", strcmp(r, "/") ? r : "", base);
	} else if (!ret) {
		r = realpath(path, NULL);
		ret = r ? 0 : -errno;
		if (ret)
			strbuf_addf(err, "%s: cannot open: %s", path, strerror(-ret));
		else
			strbuf_addstr(rp, r);
	}
	if (!ret)
		ret = store_siblings_check(rp->buf, err);
out:
	free(r);
	strbuf_release(&dir);
	strbuf_release(&own);
	return ret;
}

/* "file:PATH?QUERY" with PATH percent-encoded where URIs need it. */
static void store_uri(struct strbuf *uri, const char *path, const char *query)
{
	const unsigned char *p;

	strbuf_addstr(uri, "file:");
	for (p = (const unsigned char *)path; *p; p++) {
		if (*p == '%' || *p == '?' || *p == '#' || *p <= ' ' || *p >= 0x7f)
			strbuf_addf(uri, "%%%02X", *p);
		else
			strbuf_addch(uri, (char)*p);
	}
	strbuf_addf(uri, "?%s", query);
}

/*
 * After SQLite has opened the file (it reads and writes nothing at open):
 * what is at the real path now is still the regular file looked at before (or,
 * for a new file, the one SQLite just made), and no sibling was planted. This
 * closes the race between the first look and the open: nothing is read or
 * written before it passes.
 */
static int store_path_recheck(const struct store *s, const char *real, const struct stat *before,
			      struct strbuf *err)
{
	struct stat st;
	int ret;

	ret = store_path_kind(real, false, "the results file", &st, err);
	if (ret == -ENOENT) {
		strbuf_addf(err, "%s: vanished while being opened", s->path);
		return -EIO;
	}
	if (ret)
		return ret;
	if (before->st_ino && (st.st_ino != before->st_ino || st.st_dev != before->st_dev)) {
		strbuf_addf(err, "%s: was replaced while being opened", s->path);
		return -EIO;
	}
	return store_siblings_check(real, err);
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

/* Is the -wal beside path absent or empty (nothing lost by immutable=1)? */
static bool store_wal_empty(const char *path)
{
	struct strbuf real = STRBUF_INIT;
	struct stat st;
	bool empty = true;
	char *r = realpath(path, NULL);

	if (r) {
		strbuf_addf(&real, "%s-wal", r);
		empty = stat(real.buf, &st) != 0 || st.st_size == 0;
	}
	free(r);
	strbuf_release(&real);
	return empty;
}

int store_open_read(struct store **out, const char *path, bool reap, struct strbuf *err)
{
	struct strbuf first = STRBUF_INIT;
	int ret = -EROFS;

	/* A writable file is opened read-write when the caller may reap
	 * (migrating an old file too); one that turns out not to be
	 * writable (read-only, full, locked) is read as it is. */
	if (reap && store_looks_writable(path))
		ret = store_open_mode(out, path, STORE_MODE_WRITE, &first);
	if (ret == -EROFS || ret == -EACCES || ret == -ENOSPC || ret == -EIO || ret == -EBUSY) {
		strbuf_reset(&first);
		ret = store_open_mode(out, path, STORE_MODE_READ, &first);
	}
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
	sqlite3_finalize(s->ins_event);
	sqlite3_finalize(s->ins_env);
	sqlite3_finalize(s->ins_host);
	/* sqlite3_close_v2 copes with a NULL handle and with statements left over. */
	sqlite3_close_v2(s->db);
	free(s->path);
	free(s);
}

int store_run_begin(struct store *s, const struct store_run_info *info, int64_t *run_id,
		    struct strbuf *err)
{
	struct strbuf started = STRBUF_INIT;
	sqlite3_stmt *st;
	struct binder b;
	int ret, rc;

	time_format_iso8601(&started, info->started_real_ns);
	ret = store_begin(s, err);
	if (ret)
		goto out_started;
	ret = store_prepare(s,
			    "INSERT INTO run (status, label, host, started_at, profile_name,"
			    " profile_text, command_line, pid, engine, test_type, streams,"
			    " warmup_s, uuid) VALUES ('running', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
			    " lower(hex(randomblob(16))))",
			    &st, 0, err);
	if (ret)
		goto out_rollback;
	binder_start(&b, st);
	bind_str(&b, info->label, false);
	bind_str(&b, info->host, false);
	bind_str(&b, started.buf, false);
	bind_str(&b, info->profile_name, false);
	bind_str(&b, info->profile_text, false);
	bind_str(&b, info->command_line, false);
	bind_i64(&b, info->pid);
	bind_str(&b, info->engine, false);
	bind_str(&b, info->test_type, false);
	bind_i64(&b, info->streams);
	bind_dbl(&b, (double)info->warmup_ns / (double)NSEC_PER_SEC);
	rc = binder_run(&b);
	if (rc != SQLITE_OK) {
		ret = store_fail(s, err, rc, "insert run");
		goto out_finalize;
	}
	*run_id = sqlite3_last_insert_rowid(s->db);
	sqlite3_finalize(st);
	ret = store_commit(s, err);
	if (ret)
		goto out_rollback;
	strbuf_release(&started);
	return 0;

out_finalize:
	sqlite3_finalize(st);
out_rollback:
	store_rollback(s);
out_started:
	strbuf_release(&started);
	return ret;
}

static int store_insert_volumes(struct store *s, int64_t run_id,
				const struct store_volume_row *vols, size_t nr_vols,
				struct strbuf *err)
{
	sqlite3_stmt *st;
	struct binder b;
	int ret, rc = SQLITE_OK;
	size_t i;

	ret = store_prepare(s,
			    "INSERT INTO volume (run_id, name, path, log_path, databases)"
			    " VALUES (?, ?, ?, ?, ?)",
			    &st, 0, err);
	if (ret)
		return ret;
	for (i = 0; i < nr_vols && rc == SQLITE_OK; i++) {
		binder_start(&b, st);
		bind_i64(&b, run_id);
		bind_str(&b, vols[i].name, false);
		bind_str(&b, vols[i].path, false);
		bind_str(&b, vols[i].log_path, false);
		bind_i64(&b, vols[i].databases);
		rc = binder_run(&b);
	}
	if (rc != SQLITE_OK)
		ret = store_fail(s, err, rc, "insert volume");
	sqlite3_finalize(st);
	return ret;
}

static int store_insert_databases(struct store *s, int64_t run_id,
				  const struct store_database_row *dbs, size_t nr_dbs,
				  struct strbuf *err)
{
	sqlite3_stmt *st;
	struct binder b;
	int ret, rc = SQLITE_OK;
	size_t i;

	ret = store_prepare(s,
			    "INSERT INTO \"database\" (run_id, name, volume, path, log_path, size)"
			    " VALUES (?, ?, ?, ?, ?, ?)",
			    &st, 0, err);
	if (ret)
		return ret;
	for (i = 0; i < nr_dbs && rc == SQLITE_OK; i++) {
		binder_start(&b, st);
		bind_i64(&b, run_id);
		bind_str(&b, dbs[i].name, false);
		bind_str(&b, dbs[i].volume, false);
		bind_str(&b, dbs[i].path, false);
		bind_str(&b, dbs[i].log_path, false);
		bind_u64(&b, dbs[i].size);
		rc = binder_run(&b);
	}
	if (rc != SQLITE_OK)
		ret = store_fail(s, err, rc, "insert database");
	sqlite3_finalize(st);
	return ret;
}

int store_run_layout(struct store *s, int64_t run_id, const struct store_volume_row *vols,
		     size_t nr_vols, const struct store_database_row *dbs, size_t nr_dbs,
		     struct strbuf *err)
{
	int ret;

	ret = store_begin(s, err);
	if (ret)
		return ret;
	ret = store_insert_volumes(s, run_id, vols, nr_vols, err);
	if (ret)
		goto out_rollback;
	ret = store_insert_databases(s, run_id, dbs, nr_dbs, err);
	if (ret)
		goto out_rollback;
	ret = store_commit(s, err);
	if (ret)
		goto out_rollback;
	return 0;

out_rollback:
	store_rollback(s);
	return ret;
}

static bool store_sample_valid(const struct store_sample *row)
{
	return (unsigned)row->scope <= SCOPE_DATABASE && (unsigned)row->cls < IO_CLASS_COUNT &&
	       row->scope_name;
}

static bool store_sample_empty(const struct store_sample *row)
{
	return !row->ios && !row->errors;
}

static bool store_sample_same_scope(const struct store_sample *a, const struct store_sample *b)
{
	return a->t_ms == b->t_ms && a->warmup == b->warmup && a->scope == b->scope &&
	       !strcmp(a->scope_name, b->scope_name);
}

/*
 * Which rows of an interval are written. A class with no I/O and no error in
 * the interval gets no row: the run records six classes and a workload issues
 * only some (a backup test one), so rows of zeros would make up most of the
 * table. Readers take a class missing from an interval of its scope as 0
 * (results.h). One row of each interval and scope is kept even when all are
 * empty, so that the interval itself stays on record (a stall with no
 * completion is a finding, and the next interval's length is measured from
 * it). A group is a run of consecutive rows of one interval and scope, as the
 * coordinator writes them; rows given in another order are kept more often,
 * never dropped wrongly. keep[i] is set for every row to write.
 */
static void store_samples_select(const struct store_sample *rows, size_t nr_rows, bool *keep)
{
	size_t g, i, j;
	bool any;

	for (g = 0; g < nr_rows; g = j) {
		any = false;
		for (j = g; j < nr_rows && store_sample_same_scope(&rows[g], &rows[j]); j++)
			any |= !store_sample_empty(&rows[j]);
		for (i = g; i < j; i++)
			keep[i] = !store_sample_empty(&rows[i]) || (!any && i == g);
	}
}

int store_interval_write(struct store *s, int64_t run_id, const struct store_sample *rows,
			 size_t nr_rows, struct strbuf *err)
{
	const struct store_sample *row;
	struct binder b;
	bool *keep;
	int ret, rc;
	size_t i;

	for (i = 0; i < nr_rows; i++) {
		if (!store_sample_valid(&rows[i])) {
			strbuf_addf(err, "%s: write interval: row %zu: bad scope, class or name",
				    s->path, i);
			return -EINVAL;
		}
	}
	keep = malloc(nr_rows ? nr_rows * sizeof(*keep) : 1);
	if (!keep) {
		strbuf_addf(err, "%s: write interval: out of memory", s->path);
		return -ENOMEM;
	}
	store_samples_select(rows, nr_rows, keep);
	ret = store_begin(s, err);
	if (ret)
		goto out_keep;
	for (i = 0; i < nr_rows; i++) {
		row = &rows[i];
		if (!keep[i])
			continue;
		binder_start(&b, s->ins_sample);
		bind_i64(&b, run_id);
		bind_u64(&b, row->t_ms);
		bind_i64(&b, row->warmup);
		bind_str(&b, scope_kind_name(row->scope), false);
		bind_str(&b, row->scope_name, false);
		bind_str(&b, io_class_name(row->cls), false);
		bind_u64(&b, row->ios);
		bind_u64(&b, row->bytes);
		bind_u64(&b, row->errors);
		bind_u64(&b, row->lat_sum_ns);
		bind_u64(&b, row->lat_max_ns);
		bind_u64(&b, row->p50_ns);
		bind_u64(&b, row->p99_ns);
		rc = binder_run(&b);
		if (rc != SQLITE_OK) {
			ret = store_fail(s, err, rc, "write interval");
			goto out_rollback;
		}
	}
	ret = store_commit(s, err);
	if (ret)
		goto out_rollback;
	free(keep);
	return 0;

out_rollback:
	store_rollback(s);
out_keep:
	free(keep);
	return ret;
}

/* One cached single-row insert in its own transaction. */
static int store_insert_one(struct store *s, struct binder *b, const char *what, struct strbuf *err)
{
	int ret, rc;

	ret = store_begin(s, err);
	if (ret) {
		binder_reset(b);
		return ret;
	}
	rc = binder_run(b);
	if (rc != SQLITE_OK) {
		ret = store_fail(s, err, rc, what);
		goto out_rollback;
	}
	ret = store_commit(s, err);
	if (ret)
		goto out_rollback;
	return 0;

out_rollback:
	store_rollback(s);
	return ret;
}

/*
 * An empty window histogram gets no row: merging it would add nothing, so a
 * missing (window, volume, class) row reads as an empty histogram, and the
 * classes a workload does not issue cost nothing.
 */
int store_interval_hists_write(struct store *s, int64_t run_id,
			       const struct store_interval_hist *rows, size_t nr_rows,
			       struct strbuf *err)
{
	struct strbuf enc = STRBUF_INIT;
	sqlite3_stmt *st = NULL;
	struct binder b;
	int ret, rc = SQLITE_OK;
	size_t i, nonempty = 0;

	for (i = 0; i < nr_rows; i++)
		nonempty += rows[i].h->count != 0;
	if (!nonempty)
		return 0;
	ret = store_begin(s, err);
	if (ret)
		return ret;
	ret = store_prepare(
		s,
		"INSERT INTO interval_histogram (run_id, t_ms, warmup, scope, name, class,"
		" count, sum_ns, min_ns, max_ns, buckets)"
		" VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		&st, 0, err);
	if (ret)
		goto out_rollback;
	for (i = 0; i < nr_rows && rc == SQLITE_OK; i++) {
		const struct store_interval_hist *r = &rows[i];

		if (!r->h->count)
			continue;
		strbuf_reset(&enc);
		hist_encode(r->h, &enc);
		binder_start(&b, st);
		bind_i64(&b, run_id);
		bind_u64(&b, r->t_ms);
		bind_i64(&b, r->warmup);
		bind_str(&b, scope_kind_name(r->scope), false);
		bind_str(&b, r->name, false);
		bind_str(&b, io_class_name(r->cls), false);
		bind_u64(&b, r->h->count);
		bind_u64(&b, r->h->sum_ns);
		bind_u64(&b, r->h->min_ns);
		bind_u64(&b, r->h->max_ns);
		bind_str(&b, enc.buf, false);
		rc = binder_run(&b);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_OK) {
		ret = store_fail(s, err, rc, "write interval histograms");
		goto out_rollback;
	}
	ret = store_commit(s, err);
	if (ret)
		goto out_rollback;
	strbuf_release(&enc);
	return 0;
out_rollback:
	store_rollback(s);
	strbuf_release(&enc);
	return ret;
}

/* A figure that was not measured (NAN, or inf from a bad span) is NULL. */
static void bind_fig(struct binder *b, double v)
{
	if (isfinite(v))
		bind_dbl(b, v);
	else
		bind_null(b);
}

static void bind_nulls(struct binder *b, unsigned n)
{
	while (n--)
		bind_null(b);
}

static uint64_t ns_to_ms(uint64_t ns)
{
	return (ns + NSEC_PER_MSEC / 2) / NSEC_PER_MSEC;
}

/* The host-wide row: CPU shares when measured, memory when read. */
static int store_host_row(struct store *s, int64_t run_id, uint64_t t_ms, bool warmup,
			  const struct host_sample *hs)
{
	struct binder b;

	binder_start(&b, s->ins_host);
	bind_i64(&b, run_id);
	bind_u64(&b, t_ms);
	bind_i64(&b, warmup);
	bind_null(&b);
	bind_u64(&b, ns_to_ms(hs->has_cpu ? hs->cpu_elapsed_ns : hs->elapsed_ns));
	if (hs->has_cpu) {
		bind_fig(&b, hs->cpu_user_pct);
		bind_fig(&b, hs->cpu_system_pct);
		bind_fig(&b, hs->cpu_iowait_pct);
	} else {
		bind_nulls(&b, 3);
	}
	if (hs->has_mem)
		bind_u64(&b, hs->mem_available);
	else
		bind_null(&b);
	bind_nulls(&b, 13);
	return binder_run(&b);
}

static int store_device_row(struct store *s, int64_t run_id, uint64_t t_ms, bool warmup,
			    const struct host_dev_sample *d)
{
	struct binder b;

	binder_start(&b, s->ins_host);
	bind_i64(&b, run_id);
	bind_u64(&b, t_ms);
	bind_i64(&b, warmup);
	bind_str(&b, d->name, false);
	bind_u64(&b, ns_to_ms(d->elapsed_ns));
	bind_nulls(&b, 4);
	bind_u64(&b, d->reads);
	bind_u64(&b, d->writes);
	bind_u64(&b, d->read_sectors);
	bind_u64(&b, d->write_sectors);
	bind_fig(&b, d->reads_per_s);
	bind_fig(&b, d->writes_per_s);
	bind_fig(&b, d->read_kbps);
	bind_fig(&b, d->write_kbps);
	bind_fig(&b, d->read_wait_ms);
	bind_fig(&b, d->write_wait_ms);
	bind_fig(&b, d->avg_wait_ms);
	bind_fig(&b, d->util_pct);
	bind_fig(&b, d->queue);
	return binder_run(&b);
}

/*
 * One interval's host counters in one transaction, with the statement
 * prepared at open: a handful of rows, written beside the interval's
 * samples. An interval with nothing measured (no CPU figure, no memory, no
 * device row) writes nothing.
 */
int store_host_samples_write(struct store *s, int64_t run_id, uint64_t t_ms, bool warmup,
			     const struct host_sample *hs, struct strbuf *err)
{
	bool host = hs->has_cpu || hs->has_mem, any = host;
	int ret, rc = SQLITE_OK;
	size_t i;

	for (i = 0; i < hs->nr_devs; i++)
		any |= hs->devs[i].valid;
	if (!any)
		return 0;
	for (i = 0; i < hs->nr_devs; i++) {
		if (hs->devs[i].valid && !hs->devs[i].name[0]) {
			strbuf_addf(err, "%s: write host counters: device %zu has no name", s->path,
				    i);
			return -EINVAL;
		}
	}
	ret = store_begin(s, err);
	if (ret)
		return ret;
	if (host)
		rc = store_host_row(s, run_id, t_ms, warmup, hs);
	for (i = 0; i < hs->nr_devs && rc == SQLITE_OK; i++)
		if (hs->devs[i].valid)
			rc = store_device_row(s, run_id, t_ms, warmup, &hs->devs[i]);
	if (rc != SQLITE_OK) {
		ret = store_fail(s, err, rc, "write host counters");
		goto out_rollback;
	}
	ret = store_commit(s, err);
	if (ret)
		goto out_rollback;
	return 0;

out_rollback:
	store_rollback(s);
	return ret;
}

int store_event_add(struct store *s, int64_t run_id, uint64_t t_ms, const char *kind,
		    const char *message, struct strbuf *err)
{
	struct binder b;

	binder_start(&b, s->ins_event);
	bind_i64(&b, run_id);
	bind_u64(&b, t_ms);
	bind_str(&b, kind, false);
	bind_str(&b, message, false);
	return store_insert_one(s, &b, "add event", err);
}

/* One decided auto-tune level. */
int store_autotune_step_add(struct store *s, int64_t run_id, unsigned step, unsigned streams,
			    double iops, double db_read_avg_ms, double log_write_avg_ms,
			    bool passed, const char *reason, struct strbuf *err)
{
	sqlite3_stmt *st;
	struct binder b;
	int ret;

	ret = store_prepare(
		s,
		"INSERT INTO autotune_step (run_id, step, streams, iops, db_read_avg_ms, "
		"log_write_avg_ms, passed, reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
		&st, 0, err);
	if (ret)
		return ret;
	binder_start(&b, st);
	bind_i64(&b, run_id);
	bind_u64(&b, step);
	bind_u64(&b, streams);
	bind_dbl(&b, iops);
	bind_dbl(&b, db_read_avg_ms);
	bind_dbl(&b, log_write_avg_ms);
	bind_u64(&b, passed ? 1 : 0);
	bind_str(&b, reason, false);
	ret = store_insert_one(s, &b, "add auto-tune step", err);
	sqlite3_finalize(st);
	return ret;
}

/* The stream count auto-tune chose, once known. */
int store_run_set_streams(struct store *s, int64_t run_id, unsigned streams, struct strbuf *err)
{
	sqlite3_stmt *st;
	struct binder b;
	int ret;

	ret = store_prepare(s, "UPDATE run SET streams = ? WHERE id = ?", &st, 0, err);
	if (ret)
		return ret;
	binder_start(&b, st);
	bind_u64(&b, streams);
	bind_i64(&b, run_id);
	ret = store_insert_one(s, &b, "set the run's streams", err);
	sqlite3_finalize(st);
	return ret;
}

int store_env_add(struct store *s, int64_t run_id, const char *key, const char *value,
		  struct strbuf *err)
{
	struct binder b;

	binder_start(&b, s->ins_env);
	bind_i64(&b, run_id);
	bind_str(&b, key, false);
	bind_str(&b, value, false);
	return store_insert_one(s, &b, "add env fact", err);
}

/* The run row's end: status, verdict, ended_at, duration and exit code. */
static int store_update_run_end(struct store *s, int64_t run_id, const struct store_run_end *end,
				struct strbuf *err)
{
	struct strbuf ended = STRBUF_INIT;
	sqlite3_stmt *st;
	struct binder b;
	int ret, rc;

	time_format_iso8601(&ended, end->ended_real_ns);
	ret = store_prepare(s,
			    "UPDATE run SET status = ?, verdict = ?, ended_at = ?, duration_s = ?,"
			    " exit_code = ? WHERE id = ?",
			    &st, 0, err);
	if (ret)
		goto out_ended;
	binder_start(&b, st);
	bind_str(&b, end->status, false);
	bind_str(&b, end->verdict, false);
	bind_str(&b, ended.buf, false);
	bind_dbl(&b, (double)end->duration_ns / (double)NSEC_PER_SEC);
	bind_i64(&b, end->exit_code);
	bind_i64(&b, run_id);
	rc = binder_run(&b);
	if (rc != SQLITE_OK) {
		ret = store_fail(s, err, rc, "finish run");
	} else if (sqlite3_changes(s->db) != 1) {
		strbuf_addf(err, "%s: finish run: run %" PRId64 " not found", s->path, run_id);
		ret = -ENOENT;
	}
	sqlite3_finalize(st);
out_ended:
	strbuf_release(&ended);
	return ret;
}

static int store_insert_summary(struct store *s, sqlite3_stmt *st, int64_t run_id,
				const struct store_scope_total *t, enum io_class c,
				uint64_t duration_ns)
{
	struct class_summary cs;
	struct binder b;

	class_summary_from_stats(&cs, &t->classes[c], duration_ns);
	binder_start(&b, st);
	bind_i64(&b, run_id);
	bind_str(&b, scope_kind_name(t->scope), false);
	bind_str(&b, t->name, false);
	bind_str(&b, t->scope == SCOPE_DATABASE ? t->volume : NULL, true);
	bind_str(&b, io_class_name(c), false);
	bind_u64(&b, cs.ios);
	bind_u64(&b, cs.bytes);
	bind_u64(&b, cs.errors);
	bind_dbl(&b, cs.iops);
	bind_dbl(&b, cs.mbps);
	bind_dbl(&b, cs.avg_ms);
	bind_dbl(&b, cs.p50_ms);
	bind_dbl(&b, cs.p99_ms);
	bind_dbl(&b, cs.max_ms);
	bind_u64(&b, t->integrity_errors);
	return binder_run(&b);
}

static int store_insert_histogram(struct store *s, sqlite3_stmt *st, int64_t run_id,
				  const struct store_scope_total *t, enum io_class c,
				  struct strbuf *enc)
{
	const struct hist *h = &t->classes[c].lat;
	struct binder b;

	strbuf_reset(enc);
	hist_encode(h, enc);
	binder_start(&b, st);
	bind_i64(&b, run_id);
	bind_str(&b, scope_kind_name(t->scope), false);
	bind_str(&b, t->name, false);
	bind_str(&b, io_class_name(c), false);
	bind_i64(&b, HIST_BITS);
	bind_i64(&b, HIST_MAX_BITS);
	bind_u64(&b, h->count);
	bind_u64(&b, h->sum_ns);
	if (h->count)
		bind_u64(&b, h->min_ns);
	else
		bind_null(&b); /* an empty histogram has no minimum */
	bind_u64(&b, h->max_ns);
	bind_str(&b, enc->buf, false);
	return binder_run(&b);
}

/*
 * Summary and histogram rows of every scope total and class, present or not
 * (unlike the interval rows): a handful per scope and run, and so every scope
 * is on record even if it moved nothing, `class = 'bdm_read'` always finds a
 * row, and a diskproof that knows fewer classes refuses the run ("summary row
 * of unknown ... class") instead of misreading its interval rows.
 */
static int store_insert_totals(struct store *s, int64_t run_id, const struct store_run_end *end,
			       struct strbuf *err)
{
	struct strbuf enc = STRBUF_INIT;
	sqlite3_stmt *sum_st, *hist_st;
	const struct store_scope_total *t;
	int ret, rc = SQLITE_OK;
	size_t i;
	int c;

	ret = store_prepare(
		s,
		"INSERT OR REPLACE INTO summary (run_id, scope, name, volume, class, ios, bytes,"
		" errors, iops, mbps, avg_ms, p50_ms, p99_ms, max_ms, integrity_errors)"
		" VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		&sum_st, 0, err);
	if (ret)
		return ret;
	ret = store_prepare(
		s,
		"INSERT OR REPLACE INTO histogram (run_id, scope, name, class, bits, max_bits,"
		" count, sum_ns, min_ns, max_ns, buckets)"
		" VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		&hist_st, 0, err);
	if (ret)
		goto out_sum;
	for (i = 0; i < end->nr_totals && rc == SQLITE_OK; i++) {
		t = &end->totals[i];
		if ((unsigned)t->scope > SCOPE_DATABASE || !t->name || !t->classes) {
			strbuf_addf(err, "%s: finish run: total %zu: bad scope, name or classes",
				    s->path, i);
			ret = -EINVAL;
			goto out_hist;
		}
		for (c = 0; c < IO_CLASS_COUNT && rc == SQLITE_OK; c++) {
			rc = store_insert_summary(s, sum_st, run_id, t, c, end->duration_ns);
			if (rc == SQLITE_OK)
				rc = store_insert_histogram(s, hist_st, run_id, t, c, &enc);
		}
	}
	if (rc != SQLITE_OK)
		ret = store_fail(s, err, rc, "write totals");
out_hist:
	sqlite3_finalize(hist_st);
out_sum:
	sqlite3_finalize(sum_st);
	strbuf_release(&enc);
	return ret;
}

static int store_insert_verdicts(struct store *s, int64_t run_id, const struct verdict *vs,
				 size_t nr, struct strbuf *err)
{
	const struct verdict *v;
	sqlite3_stmt *st;
	struct binder b;
	int ret, rc = SQLITE_OK;
	size_t i;

	ret = store_prepare(s,
			    "INSERT INTO verdict (run_id, scope, name, volume, criterion, cmp,"
			    " threshold, measured, passed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
			    &st, 0, err);
	if (ret)
		return ret;
	for (i = 0; i < nr && rc == SQLITE_OK; i++) {
		v = &vs[i];
		binder_start(&b, st);
		bind_i64(&b, run_id);
		bind_str(&b, scope_kind_name(v->scope), false);
		bind_str(&b, v->name, false);
		bind_str(&b, v->scope == SCOPE_DATABASE ? v->volume : NULL, true);
		bind_str(&b, v->criterion, false);
		bind_str(&b, v->cmp == VERDICT_GE ? ">=" : "<=", false);
		bind_dbl(&b, v->threshold);
		bind_dbl(&b, v->measured);
		bind_i64(&b, v->passed);
		rc = binder_run(&b);
	}
	if (rc != SQLITE_OK)
		ret = store_fail(s, err, rc, "write verdicts");
	sqlite3_finalize(st);
	return ret;
}

/*
 * When the whole end of a run cannot be written (its results filesystem
 * filled behind its back), the run row alone may still say how the run
 * ended: a one-row update often fits in the WAL space the failed transaction
 * had already taken (SQLite rewrites the WAL from its last commit), where the
 * totals did not. Best effort: when the filesystem had no room left at all
 * before the end, the row stays "running" until the next open marks it
 * aborted.
 */
static void store_run_finish_row_only(struct store *s, int64_t run_id,
				      const struct store_run_end *end)
{
	struct strbuf why = STRBUF_INIT;

	if (store_begin(s, &why) == 0 && store_update_run_end(s, run_id, end, &why) == 0 &&
	    store_commit(s, &why) == 0) {
		strbuf_release(&why);
		return;
	}
	store_rollback(s);
	strbuf_release(&why);
}

int store_run_finish(struct store *s, int64_t run_id, const struct store_run_end *end,
		     struct strbuf *err)
{
	int ret;

	ret = store_begin(s, err);
	if (ret)
		goto out_row_only;
	/* The run row first: an unknown run is -ENOENT, not a foreign-key error. */
	ret = store_update_run_end(s, run_id, end, err);
	if (ret)
		goto out_rollback;
	ret = store_insert_totals(s, run_id, end, err);
	if (ret)
		goto out_rollback;
	ret = store_insert_verdicts(s, run_id, end->verdicts, end->nr_verdicts, err);
	if (ret)
		goto out_rollback;
	ret = store_commit(s, err);
	if (ret)
		goto out_rollback;
	return 0;

out_rollback:
	store_rollback(s);
out_row_only:
	if (ret != -ENOENT)
		store_run_finish_row_only(s, run_id, end);
	return ret;
}

int store_space_check(struct store *s, uint64_t min_free, struct strbuf *err)
{
	struct strbuf dir = STRBUF_INIT, a = STRBUF_INIT, b = STRBUF_INIT;
	struct statvfs vfs;
	const char *slash = strrchr(s->path, '/');
	uint64_t avail;
	int ret = 0;

	if (slash)
		strbuf_add(&dir, s->path, slash == s->path ? 1 : (size_t)(slash - s->path));
	else
		strbuf_addch(&dir, '.');
	if (statvfs(dir.buf, &vfs) != 0)
		goto out; /* cannot tell: SQLite will report a real failure */
	avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	if (avail < min_free) {
		unit_format_size(&a, avail);
		unit_format_size(&b, min_free);
		strbuf_addf(err,
			    "%s: the results file's filesystem is nearly full (%s free, "
			    "diskproof keeps %s free so the file stays consistent)",
			    s->path, a.buf, b.buf);
		ret = -ENOSPC;
	}
out:
	strbuf_release(&dir);
	strbuf_release(&a);
	strbuf_release(&b);
	return ret;
}

int store_run_checkpoint(struct store *s, int64_t run_id, const struct store_scope_total *totals,
			 size_t nr_totals, uint64_t duration_ns, struct strbuf *err)
{
	struct store_run_end end = {
		.duration_ns = duration_ns,
		.totals = totals,
		.nr_totals = nr_totals,
	};
	sqlite3_stmt *st;
	struct binder b;
	int ret, rc;

	ret = store_begin(s, err);
	if (ret)
		return ret;
	ret = store_insert_totals(s, run_id, &end, err);
	if (ret)
		goto out_rollback;
	ret = store_prepare(s, "UPDATE run SET duration_s = ? WHERE id = ?", &st, 0, err);
	if (ret)
		goto out_rollback;
	binder_start(&b, st);
	bind_dbl(&b, (double)duration_ns / (double)NSEC_PER_SEC);
	bind_i64(&b, run_id);
	rc = binder_run(&b);
	sqlite3_finalize(st);
	if (rc != SQLITE_OK) {
		ret = store_fail(s, err, rc, "checkpoint run");
		goto out_rollback;
	}
	ret = store_commit(s, err);
	if (ret)
		goto out_rollback;
	return 0;

out_rollback:
	store_rollback(s);
	return ret;
}

/* The name the kernel shows for a process ("diskproof"), "" when unknown. */
static void process_comm(pid_t pid, char *out, size_t len)
{
	char path[64];
	FILE *f;

	out[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return;
	if (fgets(out, (int)len, f))
		out[strcspn(out, "\n")] = '\0';
	fclose(f);
}

/*
 * A run of this host whose process is gone (or is now another program) was
 * killed: it can never finish itself.
 */
bool store_run_process_alive(int64_t pid)
{
	char mine[32], theirs[32];

	if (pid <= 0 || pid > INT32_MAX)
		return false;
	if (kill((pid_t)pid, 0) != 0 && errno != EPERM)
		return false;
	process_comm(getpid(), mine, sizeof(mine));
	process_comm((pid_t)pid, theirs, sizeof(theirs));
	return !mine[0] || !theirs[0] || !strcmp(mine, theirs);
}

int store_runs_reap_stale(struct store *s, const char *host, unsigned *reaped, struct strbuf *err)
{
	sqlite3_stmt *sel, *upd = NULL, *ev = NULL;
	struct binder b;
	int ret, rc;

	*reaped = 0;
	ret = store_prepare(s, "SELECT id, pid FROM run WHERE status = 'running' AND host = ?",
			    &sel, 0, err);
	if (ret)
		return ret;
	sqlite3_bind_text(sel, 1, host, -1, SQLITE_TRANSIENT);
	ret = store_prepare(
		s,
		"UPDATE run SET status = 'aborted', verdict = 'NONE',"
		" ended_at = strftime('%Y-%m-%dT%H:%M:%SZ', started_at, '+' ||"
		"  (SELECT coalesce(max(t_ms), 0) / 1000.0 FROM sample WHERE run_id = run.id)"
		"  || ' seconds')"
		" WHERE id = ? AND status = 'running'",
		&upd, 0, err);
	if (!ret)
		ret = store_prepare(s,
				    "INSERT INTO event (run_id, t_ms, kind, message) VALUES (?,"
				    " (SELECT coalesce(max(t_ms), 0) FROM sample WHERE run_id = ?),"
				    " 'stop', ?)",
				    &ev, 0, err);
	if (ret)
		goto out;
	while ((rc = sqlite3_step(sel)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(sel, 0), pid = sqlite3_column_int64(sel, 1);
		char msg[160];

		if (store_run_process_alive(pid))
			continue;
		snprintf(msg, sizeof(msg),
			 "process %" PRId64 " ended without finishing the run (killed?); "
			 "marked aborted",
			 pid);
		binder_start(&b, upd);
		bind_i64(&b, id);
		rc = binder_run(&b);
		if (rc == SQLITE_OK) {
			binder_start(&b, ev);
			bind_i64(&b, id);
			bind_i64(&b, id);
			bind_str(&b, msg, false);
			rc = binder_run(&b);
		}
		if (rc != SQLITE_OK) {
			ret = store_fail(s, err, rc, "mark a killed run aborted");
			goto out;
		}
		(*reaped)++;
	}
	if (rc != SQLITE_DONE)
		ret = store_fail(s, err, rc, "look for killed runs");
out:
	sqlite3_finalize(ev);
	sqlite3_finalize(upd);
	sqlite3_finalize(sel);
	return ret;
}

int store_run_list(struct store *s, struct store_run_brief **out, size_t *count, struct strbuf *err)
{
	sqlite3_stmt *st;
	struct store_run_brief *v = NULL, *nv;
	size_t n = 0, cap = 0;
	int ret, rc;

	*out = NULL;
	*count = 0;
	ret = store_prepare(s,
			    "SELECT id, status, coalesce(verdict, ''), coalesce(label, ''),"
			    " coalesce(host, ''), started_at, coalesce(duration_s, 0),"
			    " coalesce(profile_name, ''), coalesce(engine, ''),"
			    " (SELECT coalesce(sum(iops), 0) FROM summary WHERE run_id = run.id"
			    "  AND scope = 'run' AND class IN ('db_read', 'db_write')),"
			    " coalesce(pid, 0)"
			    " FROM run ORDER BY id",
			    &st, 0, err);
	if (ret)
		return ret;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct store_run_brief *r;

		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				ret = -ENOMEM;
				strbuf_addf(err, "%s: list runs: out of memory", s->path);
				goto out;
			}
			v = nv;
		}
		r = &v[n++];
		memset(r, 0, sizeof(*r));
		r->id = sqlite3_column_int64(st, 0);
		snprintf(r->status, sizeof(r->status), "%s", sqlite3_column_text(st, 1));
		snprintf(r->verdict, sizeof(r->verdict), "%s", sqlite3_column_text(st, 2));
		snprintf(r->label, sizeof(r->label), "%s", sqlite3_column_text(st, 3));
		snprintf(r->host, sizeof(r->host), "%s", sqlite3_column_text(st, 4));
		snprintf(r->started_at, sizeof(r->started_at), "%s", sqlite3_column_text(st, 5));
		r->duration_s = sqlite3_column_double(st, 6);
		snprintf(r->profile, sizeof(r->profile), "%s", sqlite3_column_text(st, 7));
		snprintf(r->engine, sizeof(r->engine), "%s", sqlite3_column_text(st, 8));
		r->transactional_iops = sqlite3_column_double(st, 9);
		r->pid = sqlite3_column_int64(st, 10);
	}
	if (rc != SQLITE_DONE) {
		ret = store_fail(s, err, rc, "list runs");
		goto out;
	}
	*out = v;
	*count = n;
	v = NULL;
out:
	free(v);
	sqlite3_finalize(st);
	return ret;
}

int store_run_latest(struct store *s, int64_t *run_id, struct strbuf *err)
{
	sqlite3_stmt *st;
	int ret, rc;

	ret = store_prepare(s, "SELECT max(id) FROM run", &st, 0, err);
	if (ret)
		return ret;
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		ret = store_fail(s, err, rc, "find the latest run");
	} else if (sqlite3_column_type(st, 0) == SQLITE_NULL) {
		strbuf_addf(err, "%s: no runs in this results file", s->path);
		ret = -ENOENT;
	} else {
		*run_id = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	return ret;
}

/* A copy of column i (NULL stays NULL). */
static int column_dup(sqlite3_stmt *st, int i, char **out)
{
	const unsigned char *v = sqlite3_column_text(st, i);

	*out = NULL;
	if (!v)
		return 0;
	*out = strdup((const char *)v);
	return *out ? 0 : -ENOMEM;
}

static uint64_t column_u64(sqlite3_stmt *st, int i)
{
	int64_t v = sqlite3_column_int64(st, i);

	return v < 0 ? 0 : (uint64_t)v;
}

static void column_name(sqlite3_stmt *st, int i, char *out)
{
	const unsigned char *v = sqlite3_column_text(st, i);

	snprintf(out, RESULTS_NAME_MAX, "%s", v ? (const char *)v : "");
}

static int store_load_run(struct store *s, int64_t run_id, struct results *r, struct strbuf *err)
{
	char **const strs[] = {&r->status,	 &r->verdict,  &r->label,	 &r->host,
			       &r->started_at,	 &r->ended_at, &r->profile_name, &r->profile_text,
			       &r->command_line, &r->engine,   &r->test_type};
	sqlite3_stmt *st;
	int ret, rc;
	size_t i;

	ret = store_prepare(s,
			    "SELECT status, verdict, label, host, started_at, ended_at,"
			    " profile_name, profile_text, command_line, engine, test_type,"
			    " duration_s, warmup_s, streams, exit_code FROM run WHERE id = ?",
			    &st, 0, err);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, run_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_DONE) {
		strbuf_addf(err, "%s: run %" PRId64 " not found", s->path, run_id);
		ret = -ENOENT;
		goto out_finalize;
	}
	if (rc != SQLITE_ROW) {
		ret = store_fail(s, err, rc, "load run");
		goto out_finalize;
	}
	r->id = run_id;
	for (i = 0; i < DP_ARRAY_SIZE(strs) && !ret; i++)
		ret = column_dup(st, (int)i, strs[i]);
	if (ret) {
		strbuf_addf(err, "%s: load run: out of memory", s->path);
		goto out_finalize;
	}
	r->duration_s = sqlite3_column_double(st, 11);
	r->warmup_s = sqlite3_column_double(st, 12);
	r->streams = (unsigned)sqlite3_column_int64(st, 13);
	r->exit_code = sqlite3_column_int(st, 14);
	snprintf(r->run.name, sizeof(r->run.name), "run");
out_finalize:
	sqlite3_finalize(st);
	return ret;
}

/*
 * The scope a summary row belongs to, appended on first sight. Rows of one
 * scope are written together, so the last entry is checked first.
 */
static struct scope_summary *results_scope_get(struct scope_summary **arr, size_t *nr,
					       const char *name)
{
	struct scope_summary *n;
	size_t i;

	if (*nr && !strcmp((*arr)[*nr - 1].name, name))
		return &(*arr)[*nr - 1];
	for (i = 0; i < *nr; i++)
		if (!strcmp((*arr)[i].name, name))
			return &(*arr)[i];
	n = realloc(*arr, (*nr + 1) * sizeof(**arr));
	if (!n)
		return NULL;
	*arr = n;
	memset(&n[*nr], 0, sizeof(n[*nr]));
	snprintf(n[*nr].name, sizeof(n[*nr].name), "%s", name);
	return &n[(*nr)++];
}

static void summary_row_read(sqlite3_stmt *st, struct scope_summary *sc, enum io_class c)
{
	struct class_summary *cs = &sc->classes[c];

	column_name(st, 2, sc->volume);
	cs->ios = column_u64(st, 4);
	cs->bytes = column_u64(st, 5);
	cs->errors = column_u64(st, 6);
	cs->iops = sqlite3_column_double(st, 7);
	cs->mbps = sqlite3_column_double(st, 8);
	cs->avg_ms = sqlite3_column_double(st, 9);
	cs->p50_ms = sqlite3_column_double(st, 10);
	cs->p99_ms = sqlite3_column_double(st, 11);
	cs->max_ms = sqlite3_column_double(st, 12);
	sc->integrity_errors = column_u64(st, 13);
}

static int store_load_summaries(struct store *s, struct results *r, struct strbuf *err)
{
	char name[RESULTS_NAME_MAX];
	struct scope_summary *sc;
	const char *scope, *cls;
	sqlite3_stmt *st;
	int ret, rc, kind, c;

	ret = store_prepare(s,
			    "SELECT scope, name, volume, class, ios, bytes, errors, iops, mbps,"
			    " avg_ms, p50_ms, p99_ms, max_ms, integrity_errors"
			    " FROM summary WHERE run_id = ? ORDER BY rowid",
			    &st, 0, err);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, r->id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		scope = (const char *)sqlite3_column_text(st, 0);
		cls = (const char *)sqlite3_column_text(st, 3);
		kind = scope_kind_from_name(scope);
		c = io_class_from_name(cls ? cls : "");
		if (kind < 0 || c < 0) {
			strbuf_addf(err,
				    "%s: run %" PRId64 ": summary row of unknown scope or class",
				    s->path, r->id);
			ret = -EIO;
			goto out_finalize;
		}
		column_name(st, 1, name);
		if (kind == SCOPE_RUN)
			sc = &r->run;
		else if (kind == SCOPE_VOLUME)
			sc = results_scope_get(&r->volumes, &r->nr_volumes, name);
		else
			sc = results_scope_get(&r->databases, &r->nr_databases, name);
		if (!sc) {
			strbuf_addf(err, "%s: load summaries: out of memory", s->path);
			ret = -ENOMEM;
			goto out_finalize;
		}
		summary_row_read(st, sc, c);
	}
	if (rc != SQLITE_DONE)
		ret = store_fail(s, err, rc, "load summaries");
out_finalize:
	sqlite3_finalize(st);
	return ret;
}

static int verdict_row_read(sqlite3_stmt *st, struct verdict *v)
{
	const char *scope = (const char *)sqlite3_column_text(st, 0);
	const char *cmp = (const char *)sqlite3_column_text(st, 4);
	int kind = scope_kind_from_name(scope);

	memset(v, 0, sizeof(*v));
	if (kind < 0 || !cmp || (strcmp(cmp, "<=") && strcmp(cmp, ">=")))
		return -EIO;
	v->scope = kind;
	column_name(st, 1, v->name);
	column_name(st, 2, v->volume);
	snprintf(v->criterion, sizeof(v->criterion), "%s",
		 sqlite3_column_text(st, 3) ? (const char *)sqlite3_column_text(st, 3) : "");
	v->cmp = strcmp(cmp, ">=") ? VERDICT_LE : VERDICT_GE;
	v->threshold = sqlite3_column_double(st, 5);
	v->measured = sqlite3_column_double(st, 6);
	v->passed = sqlite3_column_int(st, 7) != 0;
	return 0;
}

static int store_load_verdicts(struct store *s, struct results *r, struct strbuf *err)
{
	struct verdict *n;
	sqlite3_stmt *st;
	int ret, rc;

	ret = store_prepare(s,
			    "SELECT scope, name, volume, criterion, cmp, threshold, measured,"
			    " passed FROM verdict WHERE run_id = ? ORDER BY rowid",
			    &st, 0, err);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, r->id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		n = realloc(r->verdicts, (r->nr_verdicts + 1) * sizeof(*n));
		if (!n) {
			strbuf_addf(err, "%s: load verdicts: out of memory", s->path);
			ret = -ENOMEM;
			goto out_finalize;
		}
		r->verdicts = n;
		if (verdict_row_read(st, &n[r->nr_verdicts])) {
			strbuf_addf(err, "%s: run %" PRId64 ": verdict row of unknown scope or cmp",
				    s->path, r->id);
			ret = -EIO;
			goto out_finalize;
		}
		r->nr_verdicts++;
	}
	if (rc != SQLITE_DONE)
		ret = store_fail(s, err, rc, "load verdicts");
out_finalize:
	sqlite3_finalize(st);
	return ret;
}

/*
 * Room for one more element in an array of cap elements holding nr, doubling:
 * the new array (the old one is kept by the caller on NULL, out of memory).
 */
static void *array_reserve(void *arr, size_t *cap, size_t nr, size_t size)
{
	size_t ncap;
	void *n;

	if (nr < *cap)
		return arr;
	ncap = *cap ? *cap * 2 : 64;
	n = realloc(arr, ncap * size);
	if (n)
		*cap = ncap;
	return n;
}

static int sample_row_read(sqlite3_stmt *st, struct results_sample *o)
{
	const char *scope = (const char *)sqlite3_column_text(st, 2);
	const char *cls = (const char *)sqlite3_column_text(st, 4);
	int kind = scope_kind_from_name(scope), c = io_class_from_name(cls ? cls : "");

	if (kind < 0 || c < 0)
		return -EIO;
	o->t_ms = column_u64(st, 0);
	o->warmup = sqlite3_column_int(st, 1) != 0;
	o->scope = kind;
	column_name(st, 3, o->name);
	o->cls = c;
	o->ios = column_u64(st, 5);
	o->bytes = column_u64(st, 6);
	o->errors = column_u64(st, 7);
	o->lat_sum_ns = column_u64(st, 8);
	o->lat_max_ns = column_u64(st, 9);
	o->p50_ns = column_u64(st, 10);
	o->p99_ns = column_u64(st, 11);
	return 0;
}

/*
 * The time series. Index sample_run (run_id, t_ms) hands the rows over already
 * in (t_ms, rowid) order, so the query sorts nothing; the array is sized once
 * from a count over the same index (a 2 h run has about 10^5 rows).
 */
static int store_load_samples(struct store *s, struct results *r, struct strbuf *err)
{
	struct results_sample *n;
	sqlite3_stmt *st;
	size_t cap = 0;
	int ret, rc;

	ret = store_prepare(s, "SELECT count(*) FROM sample WHERE run_id = ?", &st, 0, err);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, r->id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		cap = (size_t)column_u64(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return store_fail(s, err, rc, "load samples");
	if (cap) {
		r->samples = malloc(cap * sizeof(*r->samples));
		if (!r->samples) {
			strbuf_addf(err, "%s: load samples: out of memory", s->path);
			return -ENOMEM;
		}
	}
	ret = store_prepare(s,
			    "SELECT t_ms, warmup, scope, scope_name, class, ios, bytes, errors,"
			    " lat_sum_ns, lat_max_ns, p50_ns, p99_ns FROM sample WHERE run_id = ?"
			    " ORDER BY t_ms, rowid",
			    &st, 0, err);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, r->id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		/* rows may arrive between the count and here (a run still writing) */
		n = array_reserve(r->samples, &cap, r->nr_samples, sizeof(*n));
		if (!n) {
			strbuf_addf(err, "%s: load samples: out of memory", s->path);
			ret = -ENOMEM;
			goto out_finalize;
		}
		r->samples = n;
		if (sample_row_read(st, &n[r->nr_samples])) {
			strbuf_addf(err,
				    "%s: run %" PRId64 ": sample row of unknown scope or class",
				    s->path, r->id);
			ret = -EIO;
			goto out_finalize;
		}
		r->nr_samples++;
	}
	if (rc != SQLITE_DONE)
		ret = store_fail(s, err, rc, "load samples");
out_finalize:
	sqlite3_finalize(st);
	return ret;
}

static int store_load_env(struct store *s, struct results *r, struct strbuf *err)
{
	struct results_env *n;
	sqlite3_stmt *st;
	size_t cap = 0;
	int ret, rc;

	ret = store_prepare(s, "SELECT key, value FROM env WHERE run_id = ? ORDER BY key", &st, 0,
			    err);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, r->id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		n = array_reserve(r->env, &cap, r->nr_env, sizeof(*n));
		if (!n) {
			ret = -ENOMEM;
			break;
		}
		r->env = n;
		n = &n[r->nr_env++];
		n->value = NULL;
		if (column_dup(st, 0, &n->key) || column_dup(st, 1, &n->value)) {
			ret = -ENOMEM;
			break;
		}
	}
	if (ret)
		strbuf_addf(err, "%s: load env facts: out of memory", s->path);
	else if (rc != SQLITE_DONE)
		ret = store_fail(s, err, rc, "load env facts");
	sqlite3_finalize(st);
	return ret;
}

static int store_load_events(struct store *s, struct results *r, struct strbuf *err)
{
	struct results_event *n;
	sqlite3_stmt *st;
	size_t cap = 0;
	int ret, rc;

	ret = store_prepare(s,
			    "SELECT t_ms, kind, message FROM event WHERE run_id = ?"
			    " ORDER BY t_ms, rowid",
			    &st, 0, err);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, r->id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		n = array_reserve(r->events, &cap, r->nr_events, sizeof(*n));
		if (!n) {
			ret = -ENOMEM;
			break;
		}
		r->events = n;
		n = &n[r->nr_events++];
		n->t_ms = column_u64(st, 0);
		n->message = NULL;
		if (column_dup(st, 1, &n->kind) || column_dup(st, 2, &n->message)) {
			ret = -ENOMEM;
			break;
		}
	}
	if (ret)
		strbuf_addf(err, "%s: load events: out of memory", s->path);
	else if (rc != SQLITE_DONE)
		ret = store_fail(s, err, rc, "load events");
	sqlite3_finalize(st);
	return ret;
}

/* One histogram row into o (o->h allocated here, freed by results_release). */
static int hist_row_read(sqlite3_stmt *st, struct results_hist *o)
{
	const char *scope = (const char *)sqlite3_column_text(st, 0);
	const char *cls = (const char *)sqlite3_column_text(st, 2);
	const char *buckets = (const char *)sqlite3_column_text(st, 9);
	int kind = scope_kind_from_name(scope), c = io_class_from_name(cls ? cls : "");

	o->h = NULL;
	if (kind < 0 || c < 0 || sqlite3_column_int(st, 3) != HIST_BITS ||
	    sqlite3_column_int(st, 4) != HIST_MAX_BITS)
		return -EIO;
	o->scope = kind;
	column_name(st, 1, o->name);
	o->cls = c;
	o->h = malloc(sizeof(*o->h));
	if (!o->h)
		return -ENOMEM;
	hist_init(o->h);
	if (hist_decode(o->h, buckets ? buckets : ""))
		return -EIO;
	o->h->count = column_u64(st, 5);
	o->h->sum_ns = column_u64(st, 6);
	if (sqlite3_column_type(st, 7) != SQLITE_NULL)
		o->h->min_ns = column_u64(st, 7);
	o->h->max_ns = column_u64(st, 8);
	return 0;
}

static int store_load_hists(struct store *s, struct results *r, struct strbuf *err)
{
	struct results_hist *n;
	sqlite3_stmt *st;
	size_t cap = 0;
	int ret, rc;

	ret = store_prepare(s,
			    "SELECT scope, name, class, bits, max_bits, count, sum_ns, min_ns,"
			    " max_ns, buckets FROM histogram WHERE run_id = ? ORDER BY rowid",
			    &st, 0, err);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, r->id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		n = array_reserve(r->hists, &cap, r->nr_hists, sizeof(*n));
		if (!n) {
			ret = -ENOMEM;
		} else {
			r->hists = n;
			ret = hist_row_read(st, &n[r->nr_hists++]);
		}
		if (ret == -ENOMEM) {
			strbuf_addf(err, "%s: load histograms: out of memory", s->path);
			goto out_finalize;
		}
		if (ret) {
			strbuf_addf(err,
				    "%s: run %" PRId64 ": histogram row of unknown scope, class or"
				    " geometry, or with bad buckets",
				    s->path, r->id);
			goto out_finalize;
		}
	}
	if (rc != SQLITE_DONE)
		ret = store_fail(s, err, rc, "load histograms");
out_finalize:
	sqlite3_finalize(st);
	return ret;
}

static void autotune_row_read(sqlite3_stmt *st, struct results_autotune_step *o)
{
	int col[] = {2, 3, 4};
	double *val[] = {&o->iops, &o->db_read_avg_ms, &o->log_write_avg_ms};
	size_t i;

	o->step = (unsigned)column_u64(st, 0);
	o->streams = (unsigned)column_u64(st, 1);
	for (i = 0; i < DP_ARRAY_SIZE(col); i++)
		*val[i] = sqlite3_column_type(st, col[i]) == SQLITE_NULL
				  ? NAN
				  : sqlite3_column_double(st, col[i]);
	o->passed = sqlite3_column_int(st, 5) != 0;
}

/*
 * Auto-tune's steps (table autotune_step, in every schema version; a run
 * that did not tune has no rows) and, from the env facts loaded before, its
 * goal, choice and why it stopped.
 */
static int store_load_autotune(struct store *s, struct results *r, struct strbuf *err)
{
	struct results_autotune *a = &r->autotune;
	struct results_autotune_step *n;
	sqlite3_stmt *st;
	size_t cap = 0;
	int ret, rc;

	ret = store_prepare(s,
			    "SELECT step, streams, iops, db_read_avg_ms, log_write_avg_ms, passed,"
			    " reason FROM autotune_step WHERE run_id = ? ORDER BY step",
			    &st, 0, err);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, r->id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		n = array_reserve(a->steps, &cap, a->nr_steps, sizeof(*n));
		if (!n) {
			ret = -ENOMEM;
			break;
		}
		a->steps = n;
		n = &n[a->nr_steps++];
		autotune_row_read(st, n);
		if (column_dup(st, 6, &n->reason)) {
			ret = -ENOMEM;
			break;
		}
	}
	if (!ret && rc != SQLITE_DONE)
		ret = store_fail(s, err, rc, "load auto-tune steps");
	else if (!ret)
		ret = results_autotune_from_env(r);
	if (ret == -ENOMEM)
		strbuf_addf(err, "%s: load auto-tune steps: out of memory", s->path);
	sqlite3_finalize(st);
	return ret;
}

/* A REAL column, NAN when NULL (a figure not measured). */
static double column_fig(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

static void host_row_read(sqlite3_stmt *st, struct results_host_sample *o)
{
	double *figs[] = {&o->cpu_user_pct,  &o->cpu_system_pct, &o->cpu_iowait_pct,
			  &o->mem_available, &o->reads_per_s,	 &o->writes_per_s,
			  &o->read_kbps,     &o->write_kbps,	 &o->read_wait_ms,
			  &o->write_wait_ms, &o->avg_wait_ms,	 &o->util_pct,
			  &o->queue};
	static const int cols[] = {4, 5, 6, 7, 12, 13, 14, 15, 16, 17, 18, 19, 20};
	size_t i;

	o->t_ms = column_u64(st, 0);
	o->warmup = sqlite3_column_int(st, 1) != 0;
	column_name(st, 2, o->device);
	o->span_ms = column_u64(st, 3);
	for (i = 0; i < DP_ARRAY_SIZE(cols); i++)
		*figs[i] = column_fig(st, cols[i]);
	o->reads = column_u64(st, 8);
	o->writes = column_u64(st, 9);
	o->read_sectors = column_u64(st, 10);
	o->write_sectors = column_u64(st, 11);
}

/*
 * The host counters (schema 4; a migrated older file has the table, empty),
 * in time order, the host row of an interval before its devices', and their
 * figures over the measured intervals (results_host_perf_fill).
 */
static int store_load_host(struct store *s, struct results *r, struct strbuf *err)
{
	struct results_host_sample *n;
	sqlite3_stmt *st;
	size_t cap = 0;
	int ret, rc;

	ret = store_prepare(s,
			    "SELECT t_ms, warmup, device, span_ms, cpu_user_pct, cpu_system_pct,"
			    " cpu_iowait_pct, mem_available, reads, writes, read_sectors,"
			    " write_sectors, reads_per_s, writes_per_s, read_kbps, write_kbps,"
			    " read_wait_ms, write_wait_ms, avg_wait_ms, util_pct, queue"
			    " FROM host_sample WHERE run_id = ? ORDER BY t_ms, rowid",
			    &st, 0, err);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, r->id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		n = array_reserve(r->host_samples, &cap, r->nr_host_samples, sizeof(*n));
		if (!n) {
			ret = -ENOMEM;
			break;
		}
		r->host_samples = n;
		host_row_read(st, &n[r->nr_host_samples++]);
	}
	if (!ret && rc != SQLITE_DONE)
		ret = store_fail(s, err, rc, "load host counters");
	else if (!ret)
		ret = results_host_perf_fill(r);
	if (ret == -ENOMEM)
		strbuf_addf(err, "%s: load host counters: out of memory", s->path);
	sqlite3_finalize(st);
	return ret;
}

/* All the reads in one read transaction: one consistent snapshot. */
int store_results_load(struct store *s, int64_t run_id, struct results *r, struct strbuf *err)
{
	int ret;

	memset(r, 0, sizeof(*r));
	ret = store_exec(s, "BEGIN", "begin read", err);
	if (ret)
		return ret;
	ret = store_load_run(s, run_id, r, err);
	if (ret)
		goto out_release;
	ret = store_load_summaries(s, r, err);
	if (ret)
		goto out_release;
	ret = store_load_verdicts(s, r, err);
	if (ret)
		goto out_release;
	ret = store_load_samples(s, r, err);
	if (ret)
		goto out_release;
	ret = store_load_env(s, r, err);
	if (ret)
		goto out_release;
	ret = store_load_events(s, r, err);
	if (ret)
		goto out_release;
	ret = store_load_hists(s, r, err);
	if (ret)
		goto out_release;
	ret = store_load_autotune(s, r, err);
	if (ret)
		goto out_release;
	ret = store_load_host(s, r, err);
	if (ret)
		goto out_release;
	results_warmup_fill(r);
	store_rollback(s); /* read only: nothing to commit */
	return 0;

out_release:
	results_release(r);
	store_rollback(s);
	return ret;
}

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
};

static const char import_run_columns[] =
	"status, verdict, label, host, started_at, ended_at, duration_s, profile_name,"
	" profile_text, command_line, pid, engine, test_type, streams, warmup_s, exit_code";

static const struct import_table import_tables[] = {
	{"sample",
	 "t_ms, warmup, scope, scope_name, class, ios, bytes, errors, lat_sum_ns,"
	 " lat_max_ns, p50_ns, p99_ns",
	 0},
	{"summary",
	 "scope, name, volume, class, ios, bytes, errors, iops, mbps, avg_ms, p50_ms,"
	 " p99_ms, max_ms, integrity_errors",
	 0},
	{"histogram", "scope, name, class, bits, max_bits, count, sum_ns, min_ns, max_ns, buckets",
	 0},
	{"verdict", "scope, name, volume, criterion, cmp, threshold, measured, passed", 0},
	{"env", "key, value", 0},
	{"volume", "name, path, log_path, databases", 0},
	{"\"database\"", "name, volume, path, log_path, size", 0},
	{"event", "t_ms, kind, message", 0},
	{"autotune_step", "step, streams, iops, db_read_avg_ms, log_write_avg_ms, passed, reason",
	 0},
	{"interval_histogram",
	 "t_ms, warmup, scope, name, class, count, sum_ns, min_ns, max_ns, buckets", 3},
	{"host_sample",
	 "t_ms, warmup, device, span_ms, cpu_user_pct, cpu_system_pct, cpu_iowait_pct,"
	 " mem_available, reads, writes, read_sectors, write_sectors, reads_per_s, writes_per_s,"
	 " read_kbps, write_kbps, read_wait_ms, write_wait_ms, avg_wait_ms, util_pct, queue",
	 4},
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

/*
 * A run still "running" in the other file when it was copied: no process
 * here will ever finish this copy (a later import of the same run is
 * skipped by its uuid), so it is marked aborted at its last sample, as a
 * killed run is, and an event says why. SQLITE_DONE when done.
 */
static int import_running_end(struct store *s, int64_t id)
{
	static const char *const sql[] = {
		"INSERT INTO main.event (run_id, t_ms, kind, message) SELECT id,"
		" (SELECT coalesce(max(t_ms), 0) FROM main.sample WHERE run_id = run.id), 'stop',"
		" 'still running in the imported file when it was copied; this copy ends at its"
		" last sample: marked aborted' FROM main.run WHERE id = ? AND status = 'running'",
		"UPDATE main.run SET status = 'aborted', verdict = 'NONE',"
		" ended_at = strftime('%Y-%m-%dT%H:%M:%SZ', started_at, '+' ||"
		"  (SELECT coalesce(max(t_ms), 0) / 1000.0 FROM main.sample WHERE run_id = run.id)"
		"  || ' seconds')"
		" WHERE id = ? AND status = 'running'",
	};
	sqlite3_stmt *st;
	int rc = SQLITE_DONE;

	for (size_t i = 0; i < DP_ARRAY_SIZE(sql) && rc == SQLITE_DONE; i++) {
		rc = sqlite3_prepare_v2(s->db, sql[i], -1, &st, NULL);
		if (rc == SQLITE_OK) {
			sqlite3_bind_int64(st, 1, id);
			rc = sqlite3_step(st);
		}
		sqlite3_finalize(st);
	}
	return rc;
}

/* Copies run src_id of "src" with all its rows, under uuid and a new id. */
static int import_run(struct store *s, int64_t version, int64_t src_id, const char *uuid,
		      struct strbuf *err)
{
	struct strbuf sql = STRBUF_INIT;
	sqlite3_stmt *st = NULL;
	int64_t new_id;
	int ret = 0, rc;
	size_t i;

	strbuf_addf(&sql, "INSERT INTO main.run (%s, uuid) SELECT %s, ? FROM src.run WHERE id = ?",
		    import_run_columns, import_run_columns);
	rc = sqlite3_prepare_v2(s->db, sql.buf, -1, &st, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_text(st, 1, uuid, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(st, 2, src_id);
		rc = sqlite3_step(st);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		goto out_fail;
	new_id = sqlite3_last_insert_rowid(s->db);
	for (i = 0; i < DP_ARRAY_SIZE(import_tables); i++) {
		if (import_tables[i].since > version)
			continue; /* the other file predates the table */
		strbuf_reset(&sql);
		strbuf_addf(&sql,
			    "INSERT INTO main.%s (run_id, %s) SELECT ?, %s FROM src.%s"
			    " WHERE run_id = ? ORDER BY rowid",
			    import_tables[i].name, import_tables[i].columns,
			    import_tables[i].columns, import_tables[i].name);
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

/* Every run of "src" whose uuid this file lacks, in src's id order. */
static int import_runs(struct store *s, int64_t version, unsigned *imported, unsigned *skipped,
		       struct strbuf *err)
{
	sqlite3_stmt *sel = NULL, *seen = NULL;
	const char *uuid_sql = version >= 2 ? "coalesce(uuid, dp_run_uuid(host, started_at, pid,"
					      " profile_name, command_line))"
					    : "dp_run_uuid(host, started_at, pid, profile_name,"
					      " command_line)";
	struct strbuf sql = STRBUF_INIT;
	int ret, rc;

	strbuf_addf(&sql, "SELECT id, %s FROM src.run ORDER BY id", uuid_sql);
	ret = store_prepare(s, sql.buf, &sel, 0, err);
	if (!ret)
		ret = store_prepare(s, "SELECT 1 FROM main.run WHERE uuid = ?", &seen, 0, err);
	if (ret)
		goto out;
	while ((rc = sqlite3_step(sel)) == SQLITE_ROW) {
		const char *uuid = (const char *)sqlite3_column_text(sel, 1);

		sqlite3_bind_text(seen, 1, uuid, -1, SQLITE_TRANSIENT);
		rc = sqlite3_step(seen);
		sqlite3_reset(seen);
		if (rc == SQLITE_ROW) {
			(*skipped)++;
			continue;
		}
		if (rc != SQLITE_DONE)
			break;
		ret = import_run(s, version, sqlite3_column_int64(sel, 0), uuid, err);
		if (ret)
			goto out;
		(*imported)++;
	}
	if (rc != SQLITE_DONE)
		ret = store_fail(s, err, rc, "import runs");
out:
	sqlite3_finalize(seen);
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
int store_import(struct store *s, const char *other, unsigned *imported, unsigned *skipped,
		 struct strbuf *err)
{
	struct strbuf real = STRBUF_INIT, why = STRBUF_INIT;
	int64_t version;
	int ret;

	*imported = 0;
	*skipped = 0;
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
	ret = import_runs(s, version, imported, skipped, err);
	if (!ret)
		ret = store_commit(s, err);
	if (ret) {
		store_rollback(s);
		*imported = 0;
	}
out_detach:
	sqlite3_exec(s->db, "DETACH DATABASE src", NULL, NULL, NULL);
out_real:
	strbuf_release(&real);
	strbuf_release(&why);
	return ret;
}
