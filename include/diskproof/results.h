/* SPDX-License-Identifier: MIT */
/*
 * results.h - the results model: what a run measured and how it was judged,
 * as the run hands it to the store and as the store hands it back to the
 * report renderers (which compute nothing of their own) and to eval.
 *
 * Scopes: the run as a whole, each volume, each database. For each scope and
 * I/O class a class_summary holds counts and latencies with warm-up excluded.
 *
 * The host's counters (CPU, memory, the volumes' block devices) sit beside
 * them, per interval and summed over the measured ones (results_host_perf).
 *
 * Ownership: struct results owns its arrays and strings; results_release()
 * frees them and is safe on a zeroed or released struct.
 */
#ifndef DISKPROOF_RESULTS_H
#define DISKPROOF_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diskproof/stats.h"

#define RESULTS_NAME_MAX 64

enum scope_kind {
	SCOPE_RUN,
	SCOPE_VOLUME,
	SCOPE_DATABASE,
};

/* "run", "volume", "database"; results_scope_kind_from_name returns -1 if unknown */
const char *results_scope_kind_name(enum scope_kind k);
int results_scope_kind_from_name(const char *name);

struct class_summary {
	uint64_t ios;	 /* completed I/Os, warm-up excluded */
	uint64_t bytes;	 /* bytes moved by them */
	uint64_t errors; /* failed I/Os */
	double iops;	 /* ios / measured seconds */
	double mbps;	 /* bytes / 10^6 / measured seconds */
	double avg_ms;
	double p50_ms;
	double p99_ms;
	double max_ms;
	/* the highest average over one sample ([thresholds] sample_interval) of
	 * the measured time: what max_basis = sample judges; NAN when not
	 * recorded (a results file from before schema 5, a class without I/O) */
	double max_sample_avg_ms;
	/* the 99.9th and 99.99th percentiles of the scope's whole-run histogram
	 * (within 1/128, stats.h); NAN without I/O or without a stored
	 * histogram (results_tail_fill) */
	double p999_ms;
	double p9999_ms;
};

/* Fills out from accumulated stats over duration_ns of measurement
 * (max_sample_avg_ms NAN: the stats do not hold it). */
void results_class_from_stats(struct class_summary *out, const struct class_stats *s,
			      uint64_t duration_ns);

/*
 * Whether a class is present in a scope: it completed an I/O or had an
 * error. A run records every class (stats.h), but each workload issues only
 * some of them (a `fixed` model run no log or maintenance I/O, a backup test
 * only backup_read); the text, CSV, HTML and compare reports leave out what
 * is not present, the JSON report keeps every class (with zeros).
 */
bool results_class_present(const struct class_summary *cs);

/* Average bytes per I/O (bytes / ios); NAN without I/O. */
double results_class_avg_bytes(const struct class_summary *cs);

struct scope_summary {
	char name[RESULTS_NAME_MAX];   /* "run" for the run scope */
	char volume[RESULTS_NAME_MAX]; /* databases: their volume; else "" */
	uint64_t integrity_errors;
	/* database page fault stalls: transactions that waited for a page (a
	 * full dirty-page list, or no page free of I/O), measured time only;
	 * stalls_recorded is false where nothing counted them (a results file
	 * from before schema 5; backup, recovery and fixed-model runs) */
	bool stalls_recorded;
	uint64_t page_fault_stalls;
	double page_fault_stalls_per_s; /* over the measured time; 0 without it */
	/* transactions of the jetstress model's streams that ended in the
	 * measured time (a seek's included), and the commit records log writes
	 * made durable then (group commit: log_commits / log writes).
	 * txns_recorded is false where nothing counted them (a results file
	 * from before schema 9; fixed-model and backup runs): reports omit
	 * them rather than show 0. */
	bool txns_recorded;
	uint64_t txns;
	uint64_t log_commits;
	double tps; /* txns over the measured time; 0 without it */
	struct class_summary classes[IO_CLASS_COUNT];
	/* open loop (arrival = rate): the response time of the scope's page
	 * reads, each from its transaction's intended start (its wait for a
	 * stream included) to its completion; the classes' latencies above
	 * are service times (submission to completion). Only db_read has
	 * response times (a transaction's commit shares its log write). false
	 * for a closed-loop run, where response is service, and for a results
	 * file before schema 11. */
	bool response_recorded;
	struct class_summary response[IO_CLASS_COUNT];
	/* time-averaged streams working on the scope over the measured span
	 * (stream time / measured time); NAN when not stored (a run of a file
	 * before schema 5) */
	double streams;
	/* a backup or recovery test, databases only: how much of its pass the
	 * database did before the run ended (backup: of its bytes read;
	 * recovery: of recovery_segments replayed), percent; pass_judged is
	 * false elsewhere (not stored: its verdict row holds it) */
	bool pass_judged;
	double pass_done_pct;
	/* database file size in bytes when the run started (table database)
	 * and when it ended (table database_final, schema 6); a volume's and
	 * the run's are the sums over their databases (results_sizes_fill),
	 * known only when every one is. A run killed before its end, a file
	 * from before schema 6 or a run without a layout: not known. */
	bool size_known;
	uint64_t size;
	bool final_size_known;
	uint64_t final_size;
};

/* Transactional IOPS: database reads + database writes per second. */
double results_scope_transactional_iops(const struct scope_summary *s);

/*
 * A scope's transactions as the reports show them (docs/reports.md): per
 * second, the I/Os and log bytes per transaction (the scope's db_read,
 * db_write and log_write I/Os and log_write bytes over its transactions;
 * NAN without a transaction) and the commits per log write (log_commits
 * over log_write I/Os; NAN without a log write). false, out untouched,
 * where the run did not count transactions (txns_recorded).
 */
struct results_scope_txn_figures {
	uint64_t count;
	double per_second;
	double db_reads, db_writes, log_writes, log_bytes; /* per transaction */
	double commits_per_log_write;
};
bool results_scope_txn_figures(const struct scope_summary *s,
			       struct results_scope_txn_figures *out);

enum verdict_cmp {
	VERDICT_LE, /* passes when measured <= threshold */
	VERDICT_GE, /* passes when measured >= threshold */
};

struct verdict {
	enum scope_kind scope;
	char name[RESULTS_NAME_MAX];   /* "run", a volume or a database name */
	char volume[RESULTS_NAME_MAX]; /* for databases: their volume */
	char criterion[32];	       /* e.g. "db_read_avg_ms", see eval.h */
	enum verdict_cmp cmp;
	double threshold;
	double measured;
	bool passed;
};

/*
 * One row of table sample: one interval x scope x class (store.h). A class
 * with no I/O and no error in an interval may have no row (the store writes
 * none since the six-class workload; older files have every row): readers
 * take the intervals of a scope from the t_ms of its rows, any class, and a
 * class missing from one of them as 0 I/Os there. Every interval of a scope
 * keeps at least one row.
 */
struct results_sample {
	uint64_t t_ms; /* end of the interval, from the run's start */
	bool warmup;
	enum scope_kind scope;
	char name[RESULTS_NAME_MAX];
	enum io_class cls;
	uint64_t ios, bytes, errors;
	uint64_t lat_sum_ns, lat_max_ns, p50_ns, p99_ns;
};

/* One row of table txn_sample (schema 9): a scope's transactions and
 * durable commits over one interval (a database's: over its window). */
struct results_txn_sample {
	uint64_t t_ms;
	enum scope_kind scope;
	char name[RESULTS_NAME_MAX];
	uint64_t txns, log_commits;
};

/* Open loop: one interval's own queue (backlog_sample, schema 12): the
 * transactions that had arrived and not begun for want of a stream. */
struct results_backlog_sample {
	uint64_t t_ms;
	bool warmup;
	uint64_t peak;	  /* the most at once (summed over the workers) */
	double mean;	  /* time-weighted over the interval */
	uint64_t busy_ms; /* the time any waited */
	unsigned streams; /* streams at work at the interval's end */
};

struct results_env {
	char *key;
	char *value;
};

/* One effective parameter (table param, schema 6; profile.h,
 * profile_params): section "test" ... "volume", name "" or the volume's,
 * value NULL when unset, source "profile", "default", "option" or
 * "derived". */
struct results_param {
	char section[RESULTS_NAME_MAX];
	char name[RESULTS_NAME_MAX];
	char key[RESULTS_NAME_MAX];
	char source[16];
	char *value;
};

struct results_event {
	uint64_t t_ms;
	char *kind;
	char *message;
};

/* A whole-run (warm-up excluded) latency histogram of one scope and class. */
struct results_hist {
	enum scope_kind scope;
	char name[RESULTS_NAME_MAX];
	enum io_class cls;
	struct hist *h; /* malloc'd */
};

/*
 * Latency bands of the 15 s window histograms (table interval_histogram),
 * as the HTML heatmap draws them. Band 0 holds [0, 64 ns) (the histogram's
 * exact buckets); then each power of two [2^m, 2^(m+1)), m = 6 .. 37, is
 * cut into RESULTS_BANDS_PER_OCTAVE bands along the histogram's own bucket
 * edges (16 of a group's 64 buckets each), so every bucket lies in one band
 * and the counts move into bands exactly. A band is a quarter of its
 * octave's width: on a log axis 0.32, 0.26, 0.22 and 0.19 of the octave.
 * Bands rather than buckets because a 2 h run of five volumes holds about
 * 12000 windows and 2112 buckets each would be 200 MB.
 */
#define RESULTS_BANDS_PER_OCTAVE 4
#define RESULTS_BANDS (1 + (HIST_MAX_BITS - HIST_BITS) * RESULTS_BANDS_PER_OCTAVE)

/* The band of histogram bucket idx (< HIST_BUCKETS). */
unsigned results_band_of_bucket(unsigned idx);
/* The lowest latency of band b in ns (b = RESULTS_BANDS: where the last one
 * ends, 2^38). */
uint64_t results_band_lower_ns(unsigned b);

/*
 * One row of table interval_histogram: a window's latency histogram of one
 * volume and class, in bands lo .. lo + nr - 1 (the first and the last that
 * hold an I/O; nr 0 and bands NULL for an empty one).
 */
struct results_window {
	uint64_t t_ms; /* the window's end, from the run's start */
	bool warmup;
	enum scope_kind scope;
	char name[RESULTS_NAME_MAX];
	enum io_class cls;
	uint64_t count;
	unsigned lo, nr;
	uint64_t *bands; /* malloc'd, nr counts */
};

/*
 * The warm-up, shown apart and never judged: per class, the run-scope
 * sample rows marked warm-up, summed (results_warmup_fill).
 */
struct results_warmup_class {
	uint64_t ios;
	uint64_t errors;
	double iops;   /* ios over the warm-up's length */
	double avg_ms; /* latency sum over ios; 0 without I/O */
};

struct results_warmup {
	double duration_s; /* end of the last warm-up interval; 0: no warm-up was stored */
	struct results_warmup_class classes[IO_CLASS_COUNT];
};

/* One level auto-tune decided on (table autotune_step). */
struct results_autotune_step {
	unsigned step; /* 1, 2, ... in the order decided */
	unsigned streams;
	double iops;		 /* transactional IOPS of the level; NAN when not stored */
	double db_read_avg_ms;	 /* NAN when not stored */
	double log_write_avg_ms; /* NAN when not stored */
	bool passed;
	char *reason; /* why it passed or failed; may be NULL */
	double t_s;   /* when the level ended, on the run clock (its autotune_step
		       * event); NAN when not recorded */
};

/*
 * What auto-tune did before the main test: the steps, and its outcome from
 * the env facts autotune_goal, autotune_chosen, autotune_stopped_because and
 * autotune_note.
 * A run that did not tune (or a file from before auto-tune) has no steps and
 * no facts: results_autotune_ran() is false.
 */
struct results_autotune {
	char *goal;	       /* "max" or "target"; NULL when not recorded */
	bool has_chosen;       /* autotune_chosen was recorded */
	unsigned chosen;       /* the stream count chosen; 0: no level passed */
	char *stopped_because; /* NULL when not recorded */
	char *note;	       /* "no level passed ...; the main test ran at N streams"
				* when none passed; NULL otherwise */
	struct results_autotune_step *steps;
	size_t nr_steps;
};

/*
 * One row of table host_sample (schema 4, counters.h): the host's CPU shares
 * and memory (device "") or one block device's figures over one interval.
 * A figure the row does not hold (the other kind's, or one not measured
 * then) is NAN; counts are 0 there.
 */
struct results_host_sample {
	uint64_t t_ms; /* the interval's end, as its samples' */
	bool warmup;
	char device[RESULTS_NAME_MAX]; /* "" for the host-wide row */
	uint64_t span_ms;	       /* the time the figures are over */
	double cpu_user_pct, cpu_system_pct, cpu_iowait_pct;
	double mem_available; /* bytes */
	uint64_t reads, writes, read_sectors, write_sectors;
	double reads_per_s, writes_per_s, read_kbps, write_kbps;
	double read_wait_ms, write_wait_ms, avg_wait_ms, util_pct, queue;
};

/*
 * A device's figures over the measured intervals (warm-up excluded), as
 * iostat would give them over the whole stretch: rates are totals over the
 * summed spans; waits are weighted by I/Os (total wait over total I/Os),
 * util % and queue by span. NAN where undefined (no span; no I/O for waits).
 */
struct results_host_device {
	char name[RESULTS_NAME_MAX];
	size_t intervals; /* measured rows */
	uint64_t reads, writes;
	double reads_per_s, writes_per_s;
	double read_mbps, write_mbps; /* 10^6 bytes/s, as diskproof's MB/s */
	double read_wait_ms, write_wait_ms, avg_wait_ms;
	double util_pct, util_max_pct, queue;
};

/*
 * The host while the run ran (results_host_perf_fill): CPU shares weighted by
 * span, memory available's lowest and mean over the measured intervals, and
 * each device in the order first recorded. recorded is false for a run
 * without host_sample rows (a results file from before schema 4, or a run
 * that did not sample): the reports then show nothing (JSON null).
 */
struct results_host_perf {
	bool recorded;
	size_t cpu_intervals; /* measured rows with CPU shares */
	double cpu_user_pct, cpu_system_pct, cpu_iowait_pct;
	size_t mem_intervals;			     /* measured rows with memory */
	double mem_available_min, mem_available_avg; /* bytes */
	struct results_host_device *devices;
	size_t nr_devices;
};

/*
 * A series (run --repeat N, schema 10): the runs that share a series_uuid,
 * and per judged figure its spread across them, so that a change can be
 * told from the variation of identical runs. The figures are the run
 * scope's: transactional IOPS, and for database reads and log writes the
 * average, the 99th percentile and the highest sample average (what
 * max_basis = sample judges).
 */
enum results_series_fig {
	RESULTS_SERIES_TRANS_IOPS,
	RESULTS_SERIES_DB_READ_AVG,
	RESULTS_SERIES_DB_READ_P99,
	RESULTS_SERIES_DB_READ_MAX,
	RESULTS_SERIES_LOG_WRITE_AVG,
	RESULTS_SERIES_LOG_WRITE_P99,
	RESULTS_SERIES_LOG_WRITE_MAX,
	RESULTS_SERIES_FIG_COUNT,
};

/* A figure's JSON and CSV name ("db_read_avg_ms") and its words in a
 * table ("db read avg ms"). */
const char *results_series_fig_name(enum results_series_fig f);
const char *results_series_fig_label(enum results_series_fig f);

/*
 * The spread of n values, NAN ones left out (a run without the figure):
 * n the values counted, their mean, min and max, and the coefficient of
 * variation, the sample standard deviation (n - 1) over the mean in
 * percent. cv_pct is NAN with fewer than two values (the variation is not
 * known from one) and with a zero mean; every figure is NAN with none.
 */
struct results_spread {
	size_t n;
	double mean, min, max, cv_pct;
};
void results_spread_compute(const double *x, size_t n, struct results_spread *out);

/* One run of a series, as its row and run-scope summary hold it. */
struct results_series_run {
	int64_t id;
	unsigned index; /* series_index */
	char status[16];
	char verdict[8];		      /* "" without one (aborted, running) */
	double fig[RESULTS_SERIES_FIG_COUNT]; /* NAN: not measured */
};

struct results_series {
	char uuid[40]; /* series_uuid */
	int64_t id;    /* the lowest run id among its runs: its name in the file */
	unsigned size; /* series_size: the N run --repeat was given */
	struct results_series_run *runs; /* stored, in series_index order */
	size_t nr_runs;
	/* runs whose verdict is PASS / FAIL; the spread is over the runs
	 * that ended with a verdict (an aborted run's figures are partial) */
	unsigned passed, failed;
	struct results_spread spread[RESULTS_SERIES_FIG_COUNT];
};

/* Fills s->passed, s->failed and s->spread from s->runs. */
void results_series_fill(struct results_series *s);

/*
 * The series' verdict: "FAIL" when a run failed, "PASS" when all size runs
 * are stored and passed, else "NONE" (a run aborted, or not all stored).
 */
const char *results_series_verdict(const struct results_series *s);

void results_series_free(struct results_series *s);

struct results {
	int64_t id;
	char *status;  /* running|passed|failed|aborted|error */
	char *verdict; /* PASS|FAIL|NONE */
	char *label;   /* may be NULL */
	char *host;
	char *started_at;  /* ISO 8601 UTC */
	char *ended_at;	   /* NULL while running */
	double duration_s; /* measured, warm-up excluded */
	double warmup_s;
	char *profile_name;
	char *profile_text;
	char *command_line;
	char *engine;
	char *test_type;
	char *uuid; /* run.uuid: the run's identity across results files (store_import) */
	/* schema 8 (fleet runs): the instant run --start-at asked for, and the
	 * instant the load really began, RFC 3339 UTC to the microsecond
	 * ("2026-12-03T15:20:00.000123Z"); NULL where not stored */
	char *start_at;
	char *load_started_at;
	/* schema 10 (run --repeat N): the run's series, its place in it and
	 * the N asked for; series_uuid NULL outside a series. series: the
	 * series' runs and spread (store_results_load fills it for a run in
	 * a series), NULL otherwise; freed by results_release */
	char *series_uuid;
	unsigned series_index, series_size;
	struct results_series *series;
	unsigned streams;
	int exit_code;
	double sample_s; /* the sample of the max_sample_avg_ms figures; 0: none stored */
	/* the wall-clock time of the samples' t_ms 0, Unix ms (run.t0_utc,
	 * schema 7), so an interval's absolute time is t0_unix_ms + t_ms;
	 * t0_known false where not stored */
	bool t0_known;
	int64_t t0_unix_ms;

	struct scope_summary run;
	struct scope_summary *volumes;
	size_t nr_volumes;
	struct scope_summary *databases;
	size_t nr_databases;
	struct verdict *verdicts;
	size_t nr_verdicts;

	/* the run's time series and facts, in t_ms then insertion order; filled
	 * by store_results_load() (empty arrays for a run that has none) */
	struct results_sample *samples;
	size_t nr_samples;
	struct results_txn_sample *txn_samples; /* none where not counted */
	size_t nr_txn_samples;
	/* open loop: per interval (none for a closed-loop run, or a file
	 * before schema 12: no backlog recorded) */
	struct results_backlog_sample *backlog_samples;
	size_t nr_backlog_samples;
	struct results_env *env;
	size_t nr_env;
	struct results_event *events;
	size_t nr_events;
	struct results_hist *hists;
	size_t nr_hists;
	struct results_host_sample *host_samples;
	size_t nr_host_samples;
	/* the effective parameters, in the order the run wrote them; a run
	 * from before schema 6 has none stored, and the reader may fill them
	 * from profile_text instead (params_from_text: options unknown) */
	struct results_param *params;
	size_t nr_params;
	bool params_from_text;
	struct results_window *windows; /* in t_ms then stored order */
	size_t nr_windows;

	/* derived from samples (results_warmup_fill) and read from table
	 * autotune_step and the env facts, by store_results_load() */
	struct results_warmup warmup;
	struct results_autotune autotune;
	struct results_host_perf host_perf; /* from host_samples (results_host_perf_fill) */

	/* table run_fingerprint (schema 13): the fingerprint the profile kept
	 * (its file name as the profile gave it, its JSON) and the run's own,
	 * as JSON; NULL for a run without one. fp_compare: their comparison,
	 * filled by learn_results_compare (NULL until then). */
	char *fp_kept_name, *fp_kept, *fp_run;
	struct results_fp_compare *fp_compare;
};

/*
 * A run's own device fingerprint against the one its profile keeps (table
 * run_fingerprint, schema 13; docs/learn.md): the rows and the text table
 * that src/learn/ computes from the stored JSON (learn_results_compare), for
 * the reports to show. Shown, not a verdict.
 */
#define RESULTS_FP_ROWS_MAX 120 /* learn's figures and each role's traced ones (runfp.c) */

struct results_fp_row {
	char label[32];	  /* "data reads/s" */
	char key[40];	  /* "data.reads_per_s" */
	double kept, run; /* NAN where a side has none */
	double diff_pct;  /* run against kept; NAN when it cannot be had */
	uint64_t events_kept, events_run;
	bool asserted; /* compared within the tolerance (else shown only) */
	bool left_out; /* fewer than 200 events on a side */
	bool off;      /* asserted and off by more than the tolerance */
	int decimals;
};

struct results_fp_compare {
	double tolerance_pct;
	unsigned asserted, off, left_out;
	struct results_fp_row rows[RESULTS_FP_ROWS_MAX];
	size_t nr_rows;
	char *table; /* the fingerprint compare table, text lines */
};

void results_release(struct results *r);

/* The value of env fact key, or NULL when the run has none. */
const char *results_env_get(const struct results *r, const char *key);

/* Fills r->warmup from r->samples: the run-scope rows marked warm-up, per
 * class; the warm-up's length is the t_ms of its last interval (a run starts
 * at 0). No such rows: r->warmup is zeroed. */
void results_warmup_fill(struct results *r);

/* Fills r->autotune's goal, chosen and stopped_because from r->env (the steps
 * come from the store). 0, or -ENOMEM with r->autotune's strings unset. */
int results_autotune_from_env(struct results *r) DP_MUST_CHECK;

/* Fills r->host_perf from r->host_samples (struct results_host_perf). 0, or -ENOMEM
 * with r->host_perf zeroed. */
int results_host_perf_fill(struct results *r) DP_MUST_CHECK;

/* The run tuned its stream count: it has auto-tune steps or facts. */
bool results_autotune_ran(const struct results *r);

/* The run was simulated (engine sim): its figures come from a model, not a
 * device. A stored run holds its engine's name only; engine_simulated (the
 * rule at run time, from the engine's flags) holds for the same one name,
 * which tests/unit/test_results_simulated.c checks. */
bool results_simulated(const struct results *r);

/*
 * What the reports show is derived here, once (derive.c), and the renderers
 * only format it: an interval's rates and average, the walk that gives each
 * interval of a scope its length, a histogram's CDF, the range of the
 * databases' MB/s, a failed verdict's margin, the warm-up a run went
 * through and the classes it issued.
 */

/*
 * One interval of one scope: the sample rows of some classes summed
 * (results_interval_add), then turned into rates over the interval's length
 * and an average per I/O (results_interval_finish). A class without a row
 * had no I/O there (struct results_sample).
 */
struct results_interval {
	uint64_t t_ms;	 /* the interval's end */
	uint64_t len_ms; /* from the end of the scope's previous interval (the first
			  * from 0); 0 when it does not end after it */
	bool warmup;	 /* a row of the scope at t_ms is marked warm-up */
	uint64_t ios, bytes, errors, lat_sum_ns;
	double iops;	 /* ios over len_ms; NAN when len_ms is 0 */
	double mbps;	 /* 10^6 bytes/s over len_ms; NAN when len_ms is 0 */
	uint64_t avg_ns; /* lat_sum_ns / ios in whole ns, as the stored percentiles;
			  * 0 without I/O */
	double avg_ms;	 /* lat_sum_ns / ios in ms, unrounded; NAN without I/O */
};

/* Adds a row's counts to iv (when its class is in classes, bit 1 << class)
 * and its warm-up mark (any class). */
void results_interval_add(struct results_interval *iv, const struct results_sample *row,
			  unsigned classes);
/* Fills iv's rates and averages from its counts and len_ms. */
void results_interval_finish(struct results_interval *iv);

/*
 * The intervals of one scope (kind and name) in time order, the rows of the
 * classes in `classes` summed into each: results_scope_walk_next() fills the
 * next one, warm-up and zero-length ones included (the caller skips what it
 * does not show), and returns false after the last. Allocates nothing.
 */
struct results_scope_walk {
	const struct results *r;
	enum scope_kind scope;
	const char *name;
	unsigned classes;
	size_t i;	    /* the next sample row */
	uint64_t prev_t_ms; /* the end of the scope's previous interval */
};

void results_scope_walk_init(struct results_scope_walk *w, const struct results *r,
			     enum scope_kind scope, const char *name, unsigned classes);
bool results_scope_walk_next(struct results_scope_walk *w, struct results_interval *out);

/*
 * Every scope's intervals in stored order (time, then the order the run
 * wrote its scopes): each group is the consecutive rows of one interval of
 * one scope, with that interval's length and the scope's series, the classes
 * with I/O or errors in any interval of it. Out of memory for the table of
 * scopes (a few hundred entries at most), a scope's series is every class and
 * its intervals are measured from 0 rather than failing.
 */
struct results_walk_scope; /* private to derive.c */

struct results_walk {
	const struct results *r;
	size_t i; /* the next sample row */
	struct results_walk_scope *v;
	size_t nr, next;
};

struct results_group {
	const struct results_sample *rows; /* rows[0..n): same t_ms, scope and name */
	size_t n;
	uint64_t len_ms; /* as results_interval.len_ms */
	unsigned series; /* bit (1 << class) per class of the scope's series */
};

void results_walk_init(struct results_walk *w, const struct results *r);
bool results_walk_next(struct results_walk *w, struct results_group *g);
void results_walk_release(struct results_walk *w);

/* The run's whole-run histogram of a scope and class; NULL when not stored. */
const struct hist *results_hist_get(const struct results *r, enum scope_kind scope,
				    const char *name, enum io_class cls);

/*
 * A histogram's CDF, one point per non-empty bucket in latency order: the
 * bucket's value (hist_bucket_value, in ms) and the share of I/Os at or below
 * it. Nothing for a NULL or empty histogram. Allocates nothing.
 */
struct results_cdf {
	const struct hist *h;
	size_t i;     /* the next bucket */
	uint64_t cum; /* I/Os counted so far */
};

void results_cdf_init(struct results_cdf *it, const struct hist *h);
bool results_cdf_next(struct results_cdf *it, double *ms, double *share);

/* The lowest and highest stored MB/s of class c over the databases (a rate
 * not finite counts as 0); false, with both left alone, for a run without
 * databases. */
bool results_db_mbps_range(const struct results *r, enum io_class c, double *min, double *max);

/* The lowest and highest page fault stalls per second over the databases
 * that counted them; false, with both left alone, when none did. */
bool results_db_stalls_range(const struct results *r, double *min, double *max);

/* How far a failed verdict is past its threshold, in % of the threshold
 * (+ over a "<=" one, - under a ">=" one); NAN for a pass, a threshold of 0
 * or a figure not finite. */
double results_verdict_margin_pct(const struct verdict *v);

/* Whether the run's latency thresholds judged its response times
 * ([thresholds] latency_basis = response, an open-loop run) rather than
 * its service times (the default, and every run stored before). */
bool results_response_judged(const struct results *r);

/*
 * Open loop, a figure of the whole run's db_read where the response time
 * changes the conclusion: the run-scope verdict criterion (db_read_avg_ms,
 * _p99_ms, _max_ms) that passed on the service time while the response
 * time of the same I/Os is over its threshold. Fills *v (the verdict) and
 * *response (the response figure, ms) and returns true for the first such
 * criterion from *i on, *i left past it; false when none is left, or the
 * run has no response times or judged them.
 */
bool results_response_next(const struct results *r, size_t *i, const struct verdict **v,
			   double *response);

/* Open loop's own queue over the measured intervals (backlog_sample). */
struct results_backlog {
	bool recorded;	   /* an open-loop run that stored it (schema 12 on) */
	uint64_t peak;	   /* the most transactions waiting at once */
	double mean;	   /* time-weighted over the measured time */
	double seconds;	   /* measured time with any waiting */
	double measured_s; /* the measured time the rows span */
	unsigned streams_start, streams_end, streams_max;
	unsigned bound; /* [workload] max_streams as the run had it (default 4 x streams) */
};

/* The run's backlog summary; recorded false (all zero) where none is. */
void results_backlog_summary(const struct results *r, struct results_backlog *b);

/* The warm-up the run went through, in s: the configured one, or, for a run
 * stopped in it (aborted, error), the part it stored. */
double results_warmup_ran_s(const struct results *r);

/* The classes the run issued, bit (1 << class): present in its summary or,
 * for a run whose summary is not written (still running, killed early), in a
 * run-scope interval. */
unsigned results_classes_issued(const struct results *r);

/* Fills every scope's and class's p999_ms and p9999_ms from r->hists
 * (hist_percentile of the whole-run histogram); NAN where the class has
 * no I/O or no histogram is stored. */
void results_tail_fill(struct results *r);

/* Fills each volume's and the run's size and final size from its
 * databases': the sum, known when every database's is (a volume or run
 * without databases: not known). */
void results_sizes_fill(struct results *r);

/*
 * The target transactional IOPS and how it was judged: from the run's
 * transactional_iops verdict (its threshold) when there is one; none when
 * the run was judged without one (the profile sets no target); unknown when
 * nothing judged the run (aborted, error, still running): no verdicts are
 * stored then, and the target is the run's parameter sizing.target_iops when
 * it has parameters (none when that is 0), else not known (NAN).
 */
enum results_target {
	RESULTS_TARGET_PASSED,
	RESULTS_TARGET_FAILED,
	RESULTS_TARGET_NONE,
	RESULTS_TARGET_UNKNOWN,
};

/* Which case applies; *iops gets the target (NAN for none and unknown). */
enum results_target results_target_iops(const struct results *r, double *iops);

/* "pass", "fail", "none", "unknown" */
const char *results_target_name(enum results_target t);

/* How many of the run's verdicts failed. */
size_t results_verdicts_failed(const struct results *r);

/* How many of the run's events are of kind (e.g. "error"). */
size_t results_events_count(const struct results *r, const char *kind);

/*
 * Whether the run's reads reached its devices (run/reach.c, stored as one
 * event): "reached", "not_reached" (the run is inconclusive) or "unchecked"
 * (the counters could not say), with the event's sentence in *message; NULL
 * (and *message NULL) when the run has no such event (simulated, unjudged,
 * no reads, or older).
 */
const char *results_reads_reach(const struct results *r, const char **message);

/* The run's reads did not reach its devices: its figures cannot be
 * concluded on, whatever its verdict (exit 5 when it passed). */
bool results_inconclusive(const struct results *r);

#endif
