/* SPDX-License-Identifier: MIT */
/*
 * store.h - the SQLite results file: schema (versioned by PRAGMA user_version
 * and migrated forward), writes from the coordinator and queries for reports.
 *
 * One writer: only the coordinator thread writes, one BEGIN IMMEDIATE
 * transaction per interval, with a bounded busy timeout (two runs may share a
 * file). WAL mode. Every function returns 0 or -errno (-EIO for SQLite errors,
 * -EBUSY when the busy timeout ran out, -ENOENT for an unknown run) and fills
 * err with "RESULTS-FILE: what: why" on failure.
 *
 * Ownership: store_open() gives the caller a struct store to store_close();
 * store_close() is safe on NULL.
 */
#ifndef DISKPROOF_STORE_H
#define DISKPROOF_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diskproof/results.h"
#include "diskproof/stats.h"
#include "diskproof/util.h"

#define STORE_SCHEMA_VERSION 13

/* The most runs one series holds (run --repeat N; run.series_size). */
#define STORE_SERIES_MAX 1000

struct store;

/*
 * The results file is only ever a regular file (or a symbolic link to one) or
 * a new path. store_path_check() is the one place that says so: a block or
 * character device, FIFO, socket, directory, a symbolic link to one of them
 * or to nothing, or a -wal/-shm/-journal beside it that is anything but a
 * regular file, gives -ENOTSUP and "PATH: is a block device; the results
 * file must be a regular file". A missing path is -ENOENT unless may_create.
 * real (may be NULL) gets the resolved path SQLite is to open, st what was
 * found (zeroed for a new path). Nothing is opened.
 */
struct stat;
int store_path_check(const char *path, bool may_create, struct strbuf *real, struct stat *st,
		     struct strbuf *err) DP_MUST_CHECK;

/* Opens (creating if missing) and migrates the results file, after
 * store_path_check(); the file is opened through its resolved path with
 * SQLITE_OPEN_NOFOLLOW and checked again before anything is read or written,
 * so a device swapped in meanwhile is never written. A file that is not
 * SQLite or is damaged gives -EIO with a clear message. Runs of this host
 * whose process is gone are marked aborted, best effort. */
int store_open(struct store **out, const char *path, struct strbuf *err) DP_MUST_CHECK;

/*
 * Opens an existing results file for reading only (list, report, compare):
 * with reap, and where the file looks writable, read-write as store_open()
 * without creating (killed runs are marked aborted, an older schema
 * migrated); on a file that cannot be written (read-only, full, locked)
 * read-only (SQLite mode=ro), and where even that fails because the -shm
 * cannot be made (a read-only filesystem), as immutable (exact when the -wal
 * is empty or absent). A missing file is -ENOENT, as from store_open().
 */
int store_open_read(struct store **out, const char *path, bool reap,
		    struct strbuf *err) DP_MUST_CHECK;
void store_close(struct store *s);

struct store_run_info {
	const char *label; /* NULL for none */
	const char *host;  /* run.host: gethostname(), or the name run --host gave */
	/* gethostname() of the machine the run's process lives on (NULL: not
	 * known): stored as the env fact "hostname" with the row, in its
	 * transaction, so that a killed run is found by the machine it ran on
	 * whatever run.host says (store_reap_own_host) */
	const char *machine;
	uint64_t started_real_ns;
	const char *profile_name;
	const char *profile_text;
	const char *command_line;
	const char *engine;
	const char *test_type;
	unsigned streams;
	uint64_t warmup_ns;
	int pid;
	/* run --repeat N (schema 10): series_size N and the run's place,
	 * 1..N; 0 outside a series. series_uuid: the series' (NULL or "":
	 * a new random one, as run.uuid is made: the series' first run) */
	const char *series_uuid;
	unsigned series_index, series_size;
};

/* Inserts the run row with status "running". */
int store_run_begin(struct store *s, const struct store_run_info *info, int64_t *run_id,
		    struct strbuf *err) DP_MUST_CHECK;

/*
 * When the run's clocks start, so that each row's time_utc (schema 7) is the
 * wall-clock time of its offset: t0_real_ns is the real time (time_real_ns)
 * of the samples' t_ms 0 (the grid's start), and the events' t_ms 0 is
 * event_base_ns before it (the run clock's time before this grid: auto-tune's
 * levels). Until it is called, both count from the run's start
 * (store_run_begin). t0_real_ns 0: virtual time, whose offsets mean nothing
 * on the wall clock; the clocks are then nominal, the events' from the run's
 * start and the samples' event_base_ns after it, so that the two read as one
 * timeline. Writes the run row's t0_utc.
 */
int store_run_clock(struct store *s, int64_t run_id, uint64_t t0_real_ns, uint64_t event_base_ns,
		    struct strbuf *err) DP_MUST_CHECK;

/*
 * Fleet runs (schema 8): the instant the load really began, load_real_ns
 * (time_real_ns, read as the warm-up or auto-tune's first level began), and
 * the instant asked for with run --start-at (start_at_real_ns; 0: none).
 * Writes run.load_started_at and run.start_at to the microsecond.
 * load_real_ns 0: the load has not begun (NULL), as a run waiting for
 * start_at records it first, so that one stopped before it keeps it.
 */
int store_run_load_started(struct store *s, int64_t run_id, uint64_t load_real_ns,
			   uint64_t start_at_real_ns, struct strbuf *err) DP_MUST_CHECK;

struct store_volume_row {
	const char *name;
	const char *path;
	const char *log_path;
	unsigned databases;
};

struct store_database_row {
	const char *name;
	const char *volume;
	const char *path;     /* database file */
	const char *log_path; /* log file */
	uint64_t size;
};

int store_run_layout(struct store *s, int64_t run_id, const struct store_volume_row *vols,
		     size_t nr_vols, const struct store_database_row *dbs, size_t nr_dbs,
		     struct strbuf *err) DP_MUST_CHECK;

/* One row of table param (schema 6): a key's effective value and its source
 * ("profile", "default", "option", "derived"); name is "" for a global
 * section's key; value NULL for an optional key left unset. */
struct store_param_row {
	const char *section, *name, *key, *value, *source;
};

/* Writes the run's effective parameters in one transaction. */
int store_run_params(struct store *s, int64_t run_id, const struct store_param_row *rows,
		     size_t nr_rows, struct strbuf *err) DP_MUST_CHECK;

/* One row of table sample. */
struct store_sample {
	uint64_t t_ms; /* end of the interval, from the run's start */
	bool warmup;
	enum scope_kind scope;
	const char *scope_name;
	enum io_class cls;
	uint64_t ios;
	uint64_t bytes;
	uint64_t errors;
	uint64_t lat_sum_ns;
	uint64_t lat_max_ns;
	uint64_t p50_ns;
	uint64_t p99_ns;
	/* the scope's transactions and durable commits in the interval (table
	 * txn_sample, schema 9): given on one row of the scope's interval,
	 * has_txn false on the others and where nothing counted them */
	bool has_txn;
	uint64_t txns, log_commits;
	/* open loop: the tool's own queue in the interval (table
	 * backlog_sample, schema 12), on the run's first row: its peak, its
	 * time-weighted mean, the time it held any, the streams at work */
	bool has_backlog;
	uint64_t backlog_peak, backlog_busy_ms;
	double backlog_mean;
	unsigned streams;
};

/* Writes one interval's rows in one transaction. A row whose class had no
 * I/O and no error is left out, except that each interval of a scope keeps
 * one row (the first of its group when all are empty): readers count a
 * missing class as 0 (results.h). Rows of one interval and scope are given
 * together, one after the other. */
int store_interval_write(struct store *s, int64_t run_id, const struct store_sample *rows,
			 size_t nr_rows, struct strbuf *err) DP_MUST_CHECK;

/* A latency histogram of one window (15 s) of one scope and class. */
struct store_interval_hist {
	uint64_t t_ms; /* end of the window, from the run's start */
	bool warmup;
	enum scope_kind scope;
	const char *name;
	enum io_class cls;
	const struct hist *h;
};

/* Writes one window's histograms in one transaction; empty ones get no row
 * (a missing row reads as an empty histogram). */
int store_interval_hists_write(struct store *s, int64_t run_id,
			       const struct store_interval_hist *rows, size_t nr_rows,
			       struct strbuf *err) DP_MUST_CHECK;

/*
 * Writes one interval's host counters (counters.h) to table host_sample, in
 * one transaction with a statement prepared at open: a row for the host (CPU
 * shares when hs->has_cpu, memory when hs->has_mem; none when neither) and
 * one per device row marked valid. t_ms and warmup are those of the
 * interval's samples. Nothing measured: nothing written, 0.
 */
struct host_sample;
int store_host_samples_write(struct store *s, int64_t run_id, uint64_t t_ms, bool warmup,
			     const struct host_sample *hs, struct strbuf *err) DP_MUST_CHECK;

/*
 * Table run_fingerprint (schema 13, docs/learn.md): the fingerprint a run's
 * profile kept (kept_name as the profile names it, kept its JSON) and the
 * run's own (run), both fingerprint JSON, one row per run (written again:
 * replaced). store_run_fingerprint_read fills r->fp_kept_name, fp_kept and
 * fp_run (left NULL for a run without a row). 0 or -errno with err set.
 */
int store_run_fingerprint_write(struct store *s, int64_t run_id, const char *kept_name,
				const char *kept, const char *run,
				struct strbuf *err) DP_MUST_CHECK;
int store_run_fingerprint_read(struct store *s, int64_t run_id, struct results *r,
			       struct strbuf *err) DP_MUST_CHECK;

/* The run's uuid (run.uuid, 32 hex digits) into out (len bytes; "" when
 * the row has none). 0 or -errno with err set. */
int store_run_uuid(struct store *s, int64_t run_id, char *out, size_t len,
		   struct strbuf *err) DP_MUST_CHECK;
/* Appends an event ("start", "warmup_end", "io_error", "stop", ...). */
/* Auto-tune: one decided level (table autotune_step), and the stream count
 * the run's main test used once chosen. 0 or -errno with err set. */
int store_autotune_step_add(struct store *s, int64_t run_id, unsigned step, unsigned streams,
			    double iops, double db_read_avg_ms, double log_write_avg_ms,
			    bool passed, const char *reason, struct strbuf *err) DP_MUST_CHECK;
int store_run_set_streams(struct store *s, int64_t run_id, unsigned streams,
			  struct strbuf *err) DP_MUST_CHECK;

int store_event_add(struct store *s, int64_t run_id, uint64_t t_ms, const char *kind,
		    const char *message, struct strbuf *err) DP_MUST_CHECK;

/* A key/value fact of the host or a device. */
int store_env_add(struct store *s, int64_t run_id, const char *key, const char *value,
		  struct strbuf *err) DP_MUST_CHECK;

/* Whole-run (warm-up excluded) histograms and summaries of one scope. */
struct store_scope_total {
	enum scope_kind scope;
	const char *name;
	const char *volume; /* databases only, else NULL */
	uint64_t integrity_errors;
	const struct class_stats *classes; /* IO_CLASS_COUNT entries */
	uint64_t stream_ns;		   /* stream time over the measured span (streams x ns) */
	/* its sample maxima and page fault stalls (table scope_extra, schema 5):
	 * the classes' max_sample_avg_ms, stalls_recorded, page_fault_stalls;
	 * NULL: none */
	const struct scope_summary *summary;
	uint64_t sample_ms; /* the sample of max_sample_avg_ms */
};

/* A database file's size when the run ended (table database_final). */
struct store_database_final {
	const char *name;
	uint64_t size;
};

/* Finishes a run in one transaction: totals (summary and histogram rows, with
 * summaries computed over duration_ns), verdicts, the databases' final
 * sizes, and the run row's status, verdict, ended_at, duration_s and exit
 * code. */
struct store_run_end {
	const char *status;  /* passed|failed|aborted|error */
	const char *verdict; /* PASS|FAIL|NONE */
	uint64_t ended_real_ns;
	uint64_t duration_ns; /* measured, warm-up excluded */
	int exit_code;
	const struct store_scope_total *totals;
	size_t nr_totals;
	const struct verdict *verdicts;
	size_t nr_verdicts;
	const struct store_database_final *finals; /* may be NULL: none known */
	size_t nr_finals;
};

/* When that transaction fails (a full filesystem), the run row alone is
 * still finished where it can be, and the error returned. */
int store_run_finish(struct store *s, int64_t run_id, const struct store_run_end *end,
		     struct strbuf *err) DP_MUST_CHECK;

/* SQLite cannot keep a WAL-mode file consistent on a filesystem with no room
 * left (its shared-memory index may even fault): -ENOSPC with a message when
 * the results file's filesystem has less than min_free bytes available. A
 * store that writes also keeps STORE_LAST_WORD bytes allocated past the end
 * of its -wal, so that the end of a run fits even when the filesystem fills
 * between two checks: -ENOSPC too when that room cannot be kept. */
#define STORE_MIN_FREE (8ULL << 20)
#define STORE_LAST_WORD (1ULL << 20)
int store_space_check(struct store *s, uint64_t min_free, struct strbuf *err) DP_MUST_CHECK;

/* Writes the totals so far (summary and histogram rows, replacing earlier
 * ones) and the measured duration, without ending the run: a run killed later
 * keeps what it had measured up to here. */
int store_run_checkpoint(struct store *s, int64_t run_id, const struct store_scope_total *totals,
			 size_t nr_totals, uint64_t duration_ns, struct strbuf *err) DP_MUST_CHECK;

/* Marks "running" runs of host whose process is gone (killed) as aborted,
 * ended at their last sample. A run is host's when the machine name stored
 * with its row (store_run_info.machine) is host, or, for a row without one,
 * run.host is: run --host renames a run, not the machine whose pids say
 * whether it lives.
 * store_open() does this for its own host (gethostname()). */
int store_runs_reap_stale(struct store *s, const char *host, unsigned *reaped,
			  struct strbuf *err) DP_MUST_CHECK;

/* Whether process pid of this host is alive and still a diskproof (a pid
 * reused by another program is not). */
bool store_run_process_alive(int64_t pid);

/* One line of "diskproof list". */
struct store_run_brief {
	int64_t id;
	char status[16];
	char verdict[8];
	char label[128];
	char host[64];
	char started_at[32];
	double duration_s;
	char profile[64];
	char engine[16];
	double transactional_iops;
	int64_t pid;	    /* of the process that ran it (0 when unknown) */
	char uuid[40];	    /* run.uuid, 32 hex digits */
	char ended_at[32];  /* "" while running or killed */
	char test_type[16]; /* "performance", "backup", ... ("" when not stored) */
	bool has_exit_code; /* the run stored its exit code */
	int64_t exit_code;
	/* the machine whose process ran it: the name stored with its row (env
	 * "hostname"; run --host does not change it), else run.host */
	char machine[72];
	/* "" or, for a run whose run row or summaries hold a value no run
	 * writes, the first such ("run.warmup_s = inf: not a finite number"):
	 * report, compare and fleet refuse it (docs/results-schema.md) */
	char unusable[200];
	/* its series (run --repeat N): the lowest run id among the series'
	 * runs, its place in it and the N; 0 outside a series */
	int64_t series_id;
	unsigned series_index, series_size;
};

/* Every run, oldest first; *out is the caller's to free(). */
int store_run_list(struct store *s, struct store_run_brief **out, size_t *count,
		   struct strbuf *err) DP_MUST_CHECK;

/*
 * Run selectors, what a RUN argument may be (select.c): a run id "N",
 * "latest" (the highest id), "latest~N" (the N-th run below the latest by
 * id, among the runs there: latest~0 is latest) or "label:TEXT" (the run with
 * the highest id whose label is exactly TEXT).
 */
enum store_sel_kind {
	STORE_SEL_ID,
	STORE_SEL_LATEST,
	STORE_SEL_LABEL,
	STORE_SEL_LIST,	  /* "N,M,...": those runs */
	STORE_SEL_RANGE,  /* "N..M": the runs there with N <= id <= M */
	STORE_SEL_SERIES, /* "series:N": every run of the series named N */
};

struct store_run_selector {
	enum store_sel_kind kind;
	int64_t id;	   /* STORE_SEL_ID; STORE_SEL_SERIES: N */
	int64_t back;	   /* STORE_SEL_LATEST: the N of latest~N (0: latest) */
	const char *label; /* STORE_SEL_LABEL: borrowed from the argument */
	int64_t lo, hi;	   /* STORE_SEL_RANGE: N and M (N <= M) */
	const char *list;  /* STORE_SEL_LIST: the argument (checked numbers) */
};

/* Parses arg (pure): 0, or -EINVAL with err saying what a run may be. */
int store_run_selector_parse(const char *arg, struct store_run_selector *sel,
			     struct strbuf *err) DP_MUST_CHECK;
/* Picks an id or latest~N selector among the ids present (any order; pure):
 * 0 with *id, or -ENOENT with err saying why (unknown id, too few runs).
 * Labels are not picked here. */
int store_run_selector_pick(const struct store_run_selector *sel, const int64_t *ids, size_t n,
			    int64_t *id, struct strbuf *err) DP_MUST_CHECK;
/* The message for an unknown label (pure): "no run labelled "TEXT" ...; did
 * you mean "a" (run 3), ...?" over the labels of runs[0..n) near TEXT
 * (within a third of its length in edits, at least 2, or one holding the
 * other), nearest first (edit distance), newest first among equals, at
 * most five. */
void store_run_label_suggest(const struct store_run_brief *runs, size_t n, const char *text,
			     struct strbuf *err);
/* Resolves arg to a run id in s: 0, -EINVAL (not a selector), -ENOENT (no
 * such run, err says why and, for a label, suggests near ones) or a store
 * error. */
int store_run_select(struct store *s, const char *arg, int64_t *id,
		     struct strbuf *err) DP_MUST_CHECK;

/*
 * A selector's runs (the one grammar of compare, fleet, report and delete;
 * docs/reports.md): "N", "latest", "latest~N", "N,M,..." (each must be
 * there), "N..M" (the runs there between them, at least one), "series:N"
 * (the runs of the series whose lowest run id is N, by id) and "label:TEXT",
 * which picks by how:
 *   STORE_LABEL_NEWEST  the newest run so labelled (report, delete);
 *   STORE_LABEL_ALL     every run so labelled (fleet);
 *   STORE_LABEL_SERIES  the newest run so labelled, or its whole series when
 *                       it belongs to one (a side of compare).
 * Fills *set (ids by id, each once; series the series' name when the runs
 * are a whole series, else 0; from_label when label:TEXT grew to it).
 * Returns 0, -EINVAL (not a selector), -ENOENT (err says why, with a
 * did-you-mean where one is near) or a store error. Release the set with
 * store_run_set_release (safe twice and on a zeroed set).
 */
enum store_label_pick {
	STORE_LABEL_NEWEST,
	STORE_LABEL_ALL,
	STORE_LABEL_SERIES,
};

struct store_run_set {
	int64_t *ids; /* malloc'd, n >= 1 after success */
	size_t n;
	int64_t series;	 /* the series' name (its lowest run id); 0: not a series */
	bool from_label; /* label:TEXT selected the whole series of its newest run */
};

int store_runs_select(struct store *s, const char *arg, enum store_label_pick how,
		      struct store_run_set *set, struct strbuf *err) DP_MUST_CHECK;
void store_run_set_release(struct store_run_set *set);

/* Every run whose label is exactly label (fleet's label:TEXT, where report's
 * takes the newest alone), by id: *ids (the caller's to free()) and *n >= 1;
 * -ENOENT with err saying so, near labels suggested, when none has it; or a
 * store error. */
int store_runs_by_label(struct store *s, const char *label, int64_t **ids, size_t *n,
			struct strbuf *err) DP_MUST_CHECK;

/* The id of the newest run; -ENOENT when the file holds none. */
int store_run_latest(struct store *s, int64_t *run_id, struct strbuf *err) DP_MUST_CHECK;

/*
 * A series (series.c): the runs whose series_uuid is uuid, in series_index
 * order, with their run-scope figures and the spread (results_series_fill);
 * *out is the caller's (results_series_free). 0, -ENOMEM or a store error.
 */
int store_series_load(struct store *s, const char *uuid, struct results_series **out,
		      struct strbuf *err) DP_MUST_CHECK;

/* The series_uuid of run run_id into out ("" outside a series). 0 or a
 * store error. */
int store_run_series_uuid(struct store *s, int64_t run_id, char *out, size_t len,
			  struct strbuf *err) DP_MUST_CHECK;

/* Loads a run's results model. -ENOENT for an unknown id. */
int store_results_load(struct store *s, int64_t run_id, struct results *r,
		       struct strbuf *err) DP_MUST_CHECK;

/*
 * Deletes runs ids[0..nr) with every row of theirs, in one transaction: an
 * unknown id is -ENOENT (err names it) and nothing is deleted.
 */
int store_run_delete(struct store *s, const int64_t *ids, size_t nr,
		     struct strbuf *err) DP_MUST_CHECK;

/*
 * Copies every run of the results file at other (opened read-only, never
 * changed; any schema version up to this one) with all its rows into s, under
 * new ids, keeping host, label and times. A run is known by run.uuid: one
 * already in s is skipped, so importing a file twice adds nothing, unless
 * the copy in s was taken while the run was still going (marked aborted,
 * with an event saying so) and other has the run ended, or gone further:
 * that copy is replaced, under its id. A run holding a value no run writes
 * (docs/results-schema.md) is not copied: refusals gets a line "OTHER: run
 * N not imported: why", and the other runs are copied all the same. One
 * transaction: on failure (an error, not a refusal) nothing is added.
 */
struct store_import_counts {
	unsigned imported; /* new here */
	unsigned skipped;  /* here already */
	unsigned replaced; /* here as a copy taken before it ended: replaced */
	unsigned refused;  /* holding a value no run writes: not copied */
};
int store_import(struct store *s, const char *other, struct store_import_counts *n,
		 struct strbuf *refusals, struct strbuf *err) DP_MUST_CHECK;

#endif
