/* SPDX-License-Identifier: MIT */
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
#include <stdlib.h>

#include <sqlite3.h>

#include "store_internal.h"

/*
 * The views of schema 7, a stable interface (docs/results-schema.md#views):
 * their names and columns stay; a later schema may add columns at the end.
 * They read the stored figures as the reports read them (summary's columns,
 * transactional IOPS as results_scope_transactional_iops(): db_read's plus
 * db_write's iops of the run scope), and give NULL, not 0, for a latency of
 * a class without I/O (as the CSV's whole-run rows do).
 */
/* clang-format off: the SQL reads as SQL, one clause a line */
#define STORE_SQL_RUN_COLS                                                                         \
	" r.id AS run_id, r.uuid, r.started_at, r.ended_at, r.label,"                              \
	" r.profile_name AS profile, r.host, r.status, r.verdict,"
#define STORE_SQL_CLASS_COLS                                                                       \
	" s.class, s.ios, s.iops, s.mbps,"                                                         \
	" CASE WHEN s.ios > 0 THEN s.avg_ms END AS avg_ms,"                                        \
	" CASE WHEN s.ios > 0 THEN s.p50_ms END AS p50_ms, s.p90_ms, s.p95_ms,"                    \
	" CASE WHEN s.ios > 0 THEN s.p99_ms END AS p99_ms, s.p999_ms, s.p9999_ms,"                 \
	" CASE WHEN s.ios > 0 THEN s.max_ms END AS max_ms, s.errors, s.bytes"
/* a scope's transactional IOPS, as results_scope_transactional_iops() */
#define STORE_SQL_TIOPS                                                                            \
	" (SELECT rd.iops + wr.iops FROM summary rd, summary wr"                                   \
	"  WHERE rd.run_id = s.run_id AND rd.scope = s.scope AND rd.name = s.name"                 \
	"  AND rd.class = 'db_read' AND wr.run_id = rd.run_id AND wr.scope = rd.scope"             \
	"  AND wr.name = rd.name AND wr.class = 'db_write') AS transactional_iops"
#define STORE_SQL_VIEWS                                                                            \
	"CREATE VIEW v_run AS SELECT" STORE_SQL_RUN_COLS                                           \
	" r.duration_s, r.engine, r.test_type, r.streams,"                                         \
	" rd.iops + wr.iops AS transactional_iops,"                                                \
	" CASE WHEN rd.ios > 0 THEN rd.avg_ms END AS db_read_avg_ms,"                              \
	" CASE WHEN rd.ios > 0 THEN rd.p99_ms END AS db_read_p99_ms,"                              \
	" rd.p999_ms AS db_read_p999_ms,"                                                          \
	" CASE WHEN lw.ios > 0 THEN lw.avg_ms END AS log_write_avg_ms,"                            \
	" CASE WHEN lw.ios > 0 THEN lw.p99_ms END AS log_write_p99_ms,"                            \
	" lw.p999_ms AS log_write_p999_ms,"                                                        \
	" (SELECT sum(s.errors) FROM summary s WHERE s.run_id = r.id AND s.scope = 'run')"         \
	"  AS errors,"                                                                             \
	" (SELECT count(*) FROM verdict v WHERE v.run_id = r.id AND v.passed = 0)"                 \
	"  AS failed_verdicts"                                                                     \
	" FROM run r"                                                                              \
	" LEFT JOIN summary rd ON rd.run_id = r.id AND rd.scope = 'run' AND rd.class = 'db_read'"  \
	" LEFT JOIN summary wr ON wr.run_id = r.id AND wr.scope = 'run' AND wr.class = 'db_write'" \
	" LEFT JOIN summary lw ON lw.run_id = r.id AND lw.scope = 'run'"                           \
	"  AND lw.class = 'log_write';"                                                            \
	"CREATE VIEW v_run_class AS SELECT" STORE_SQL_RUN_COLS STORE_SQL_CLASS_COLS                \
	"," STORE_SQL_TIOPS " FROM run r JOIN summary s ON s.run_id = r.id AND s.scope = 'run';"   \
	"CREATE VIEW v_volume_trend AS SELECT" STORE_SQL_RUN_COLS                                  \
	" s.name AS volume," STORE_SQL_CLASS_COLS "," STORE_SQL_TIOPS                              \
	" FROM run r JOIN summary s ON s.run_id = r.id AND s.scope = 'volume';"                    \
	"CREATE VIEW v_database_class AS SELECT" STORE_SQL_RUN_COLS                                \
	" s.name AS database, s.volume," STORE_SQL_CLASS_COLS "," STORE_SQL_TIOPS                  \
	" FROM run r JOIN summary s ON s.run_id = r.id AND s.scope = 'database';"                  \
	"CREATE VIEW v_failed_verdicts AS SELECT" STORE_SQL_RUN_COLS                               \
	" v.scope, v.name, v.volume, v.criterion, v.cmp, v.measured, v.threshold"                  \
	" FROM verdict v JOIN run r ON r.id = v.run_id WHERE v.passed = 0;"                        \
	"CREATE VIEW v_volume_window AS SELECT run_id, t_ms, time_utc, warmup,"                    \
	" name AS volume, class, count AS ios, sum_ns / 1e6 / count AS avg_ms,"                    \
	" p50_ms, p90_ms, p95_ms, p99_ms, p999_ms, p9999_ms, max_ns / 1e6 AS max_ms"               \
	" FROM interval_histogram WHERE scope = 'volume';"                                         \
	"CREATE VIEW v_sample AS SELECT run_id, t_ms, time_utc, warmup, scope, name, class,"       \
	" len_ms, ios, CASE WHEN len_ms > 0 THEN ios / (len_ms / 1000.0) END AS iops,"             \
	" CASE WHEN len_ms > 0 THEN bytes / 1e6 / (len_ms / 1000.0) END AS mbps,"                  \
	" bytes, errors,"                                                                          \
	" CASE WHEN ios > 0 THEN lat_sum_ns / 1e6 / ios END AS avg_ms,"                            \
	" CASE WHEN ios > 0 THEN p50_ns / 1e6 END AS p50_ms,"                                      \
	" CASE WHEN ios > 0 THEN p99_ns / 1e6 END AS p99_ms,"                                      \
	" CASE WHEN ios > 0 THEN lat_max_ns / 1e6 END AS max_ms"                                   \
	" FROM (SELECT s.*, s.scope_name AS name, s.t_ms - coalesce((SELECT p.t_ms"                \
	"  FROM sample p WHERE p.run_id = s.run_id AND p.t_ms < s.t_ms"                            \
	"  AND p.scope = s.scope AND p.scope_name = s.scope_name"                                  \
	"  ORDER BY p.t_ms DESC LIMIT 1), 0) AS len_ms FROM sample s);"
/* clang-format on */

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
	/* 6 -> 7: for people with sqlite3 and Grafana (docs/results-schema.md):
	 * the percentiles as real columns, absolute times beside the offsets,
	 * and views for the common questions. Percentiles of runs already in
	 * the file come from their stored whole-run histograms, through the
	 * same hist_percentile() the reports use (dp_hist_pct_ms); their
	 * absolute times are the run's started_at (whole seconds) plus the
	 * offset, which is all an older file knows of its clock. */
	/* clang-format off */
	"ALTER TABLE run ADD COLUMN t0_utc TEXT;"
	"UPDATE run SET t0_utc = strftime('%Y-%m-%dT%H:%M:%fZ', started_at);"
	"ALTER TABLE summary ADD COLUMN p90_ms REAL;"
	"ALTER TABLE summary ADD COLUMN p95_ms REAL;"
	"ALTER TABLE summary ADD COLUMN p999_ms REAL;"
	"ALTER TABLE summary ADD COLUMN p9999_ms REAL;"
	STORE_SQL_FILL_PCT("")
	"ALTER TABLE interval_histogram ADD COLUMN p50_ms REAL;"
	"ALTER TABLE interval_histogram ADD COLUMN p90_ms REAL;"
	"ALTER TABLE interval_histogram ADD COLUMN p95_ms REAL;"
	"ALTER TABLE interval_histogram ADD COLUMN p99_ms REAL;"
	"ALTER TABLE interval_histogram ADD COLUMN p999_ms REAL;"
	"ALTER TABLE interval_histogram ADD COLUMN p9999_ms REAL;"
	STORE_SQL_FILL_WIN_PCT("")
	"ALTER TABLE sample ADD COLUMN time_utc TEXT;"
	"ALTER TABLE event ADD COLUMN time_utc TEXT;"
	"ALTER TABLE interval_histogram ADD COLUMN time_utc TEXT;"
	"ALTER TABLE host_sample ADD COLUMN time_utc TEXT;"
	STORE_SQL_FILL_TIME("sample", "")
	STORE_SQL_FILL_TIME("event", "")
	STORE_SQL_FILL_TIME("interval_histogram", "")
	STORE_SQL_FILL_TIME("host_sample", "")
	STORE_SQL_VIEWS,
	/* clang-format on */
	/* 7 -> 8: fleet runs (docs/fleet.md). start_at is the instant asked
	 * for with run --start-at (NULL without it); load_started_at the
	 * instant the load really began (warm-up, or auto-tune's first
	 * level), RFC 3339 UTC to the microsecond, read from CLOCK_REALTIME
	 * as it began: what fleet's start_skew_ms compares across hosts.
	 * Older runs have neither. */
	"ALTER TABLE run ADD COLUMN start_at TEXT;"
	"ALTER TABLE run ADD COLUMN load_started_at TEXT;",
	/* 8 -> 9, two tables: transactions (docs/results-schema.md). Per
	 * scope, those the jetstress model's streams ended in the measured
	 * time and the commit records log writes made durable then (group
	 * commit: log_commits / the log_write ios of its summary); per
	 * interval and scope, the same, at the t_ms of its sample rows
	 * (databases every few intervals, as their sample rows). A run with no
	 * rows did not count them: older runs, the fixed model, backup. */
	"CREATE TABLE txn_total ("
	" run_id INTEGER NOT NULL REFERENCES run (id) ON DELETE CASCADE,"
	" scope TEXT NOT NULL CHECK (scope IN ('run', 'volume', 'database')),"
	" name TEXT NOT NULL,"
	" txns INTEGER NOT NULL,"
	" log_commits INTEGER NOT NULL,"
	" UNIQUE (run_id, scope, name)"
	");"
	"CREATE TABLE txn_sample ("
	" run_id INTEGER NOT NULL REFERENCES run (id) ON DELETE CASCADE,"
	" t_ms INTEGER NOT NULL,"
	" warmup INTEGER NOT NULL,"
	" scope TEXT NOT NULL CHECK (scope IN ('run', 'volume', 'database')),"
	" name TEXT NOT NULL,"
	" txns INTEGER NOT NULL,"
	" log_commits INTEGER NOT NULL"
	");"
	"CREATE INDEX txn_sample_run ON txn_sample (run_id, t_ms);",
	/* 9 -> 10: series (run --repeat N, docs/results-schema.md). The runs
	 * of one series share series_uuid (their identity across results
	 * files, as run.uuid is a run's: an import copies it); series_index
	 * is the run's place in it (1..series_size), series_size the N asked
	 * for. A series is named in this file by the lowest run id among its
	 * runs. NULL in all three for a run that is not part of a series. */
	"ALTER TABLE run ADD COLUMN series_uuid TEXT;"
	"ALTER TABLE run ADD COLUMN series_index INTEGER;"
	"ALTER TABLE run ADD COLUMN series_size INTEGER;"
	"CREATE INDEX run_series ON run (series_uuid);",
	/* 10 -> 11: open loop's response times (arrival = rate,
	 * docs/results-schema.md). The summary rows' latencies are service
	 * times (submission to completion); a response row holds, per scope
	 * and class, the same I/Os timed from their transaction's intended
	 * start (its wait for a stream included). Rows only for an open-loop
	 * run (db_read, the page reads a transaction waits for); a closed-loop
	 * run, where response is service, and older runs have none. */
	"CREATE TABLE response ("
	" run_id INTEGER NOT NULL REFERENCES run (id) ON DELETE CASCADE,"
	" scope TEXT NOT NULL CHECK (scope IN ('run', 'volume', 'database')),"
	" name TEXT NOT NULL,"
	" class TEXT NOT NULL,"
	" ios INTEGER NOT NULL,"
	" avg_ms REAL NOT NULL,"
	" p50_ms REAL NOT NULL,"
	" p99_ms REAL NOT NULL,"
	" max_ms REAL NOT NULL,"
	" UNIQUE (run_id, scope, name, class)"
	");",
	/* 11 -> 12: open loop's own queue (arrival = rate,
	 * docs/results-schema.md): per interval, the transactions that had
	 * arrived and not begun for want of a stream, summed over the workers
	 * (peak: the most at once; mean: time-weighted; busy_ms: the time any
	 * waited) and the streams at work at the interval's end (they grow up
	 * to [workload] max_streams). Rows only for an open-loop run; a
	 * closed-loop run and older runs have none (no backlog recorded). */
	"CREATE TABLE backlog_sample ("
	" run_id INTEGER NOT NULL REFERENCES run (id) ON DELETE CASCADE,"
	" t_ms INTEGER NOT NULL,"
	" warmup INTEGER NOT NULL,"
	" peak INTEGER NOT NULL,"
	" mean REAL NOT NULL,"
	" busy_ms INTEGER NOT NULL,"
	" streams INTEGER NOT NULL"
	");"
	"CREATE INDEX backlog_sample_run ON backlog_sample (run_id, t_ms);",
	/* 12 -> 13: a run's own device fingerprint (docs/learn.md): the one
	 * its profile kept ([test] fingerprint: the name as the profile gave
	 * it, the JSON read then) and the run's own over its measured window,
	 * both as fingerprint JSON (docs/schema/fingerprint.schema.json), for
	 * the report's comparison and "fingerprint compare A.json RUNID". A row
	 * only for a real run of a profile with a fingerprint. */
	"CREATE TABLE run_fingerprint ("
	" run_id INTEGER PRIMARY KEY REFERENCES run (id) ON DELETE CASCADE,"
	" kept_name TEXT NOT NULL,"
	" kept TEXT NOT NULL,"
	" run TEXT NOT NULL"
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

void store_hist_pct_ms(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const char *buckets = (const char *)sqlite3_value_text(argv[5]);
	struct hist *h;

	(void)argc;
	if (sqlite3_value_int64(argv[0]) != HIST_BITS ||
	    sqlite3_value_int64(argv[1]) != HIST_MAX_BITS || sqlite3_value_int64(argv[2]) <= 0) {
		sqlite3_result_null(ctx);
		return;
	}
	h = malloc(sizeof(*h));
	if (!h) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	/* as the reader builds it (read.c): buckets decoded, then the exact
	 * count and extremes from their columns */
	hist_init(h);
	if (hist_decode(h, buckets ? buckets : "")) {
		free(h);
		sqlite3_result_error(ctx, "histogram buckets do not decode", -1);
		return;
	}
	h->count = (uint64_t)sqlite3_value_int64(argv[2]);
	if (sqlite3_value_type(argv[3]) != SQLITE_NULL)
		h->min_ns = (uint64_t)sqlite3_value_int64(argv[3]);
	h->max_ns = (uint64_t)sqlite3_value_int64(argv[4]);
	sqlite3_result_double(ctx, (double)hist_percentile(h, sqlite3_value_double(argv[6])) /
					   (double)NSEC_PER_MSEC);
	free(h);
}
