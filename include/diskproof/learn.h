/* SPDX-License-Identifier: MIT */
/*
 * learn.h - a server's load measured and learnt (docs/learn.md): the block
 * devices under a path (observe.c), a device fingerprint over a window from
 * /proc/diskstats (fingerprint.c: the figures, their JSON, the comparison of
 * two) and a profile fitted on the sim engine to make the same fingerprint
 * (learn.c). Uses env (devices, counters), profile, run and store (the sim
 * runs of the fit), util; nothing here prints.
 *
 * Roles. A fingerprint has two roles, data and log: each the sum of the
 * devices under the paths given for it (--data, --log), each device once. A
 * source fills part of a fingerprint over a window: /proc/diskstats
 * (observe.c), BPF tracing of the block layer (trace.c, trace.h: a role's
 * struct learn_trace_role) and the database's own counters (dbstat.h:
 * --postgres, --mysql, the fingerprint's db).
 *
 * Ownership: everything here is plain data in the caller's structs, except
 * learn_profile_write's text (a strbuf of the caller's). Functions return 0
 * or -errno with err filled as "where: what: why".
 */
#ifndef DISKPROOF_LEARN_H
#define DISKPROOF_LEARN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diskproof/dbstat.h"
#include "diskproof/util.h"

struct learn_tracer;

enum learn_role_id {
	LEARN_DATA,
	LEARN_LOG,
	LEARN_ROLES,
};

#define LEARN_PATHS_MAX 8    /* paths a role may be given */
#define LEARN_DEVS_MAX 16    /* devices a role may watch */
#define LEARN_NAME_MAX 64    /* a kernel device name */
#define LEARN_EVENTS_MIN 200 /* rows with fewer events are left out of a comparison */

/* ---- one device's counters (fingerprint.c) ---- */

/* The /proc/diskstats fields a fingerprint uses, cumulative (or a window's
 * difference, after learn_counters_delta). has_flushes: the kernel prints
 * the flush fields (5.5 and later). */
struct learn_counters {
	uint64_t reads, read_sectors, read_ms;
	uint64_t writes, write_sectors, write_ms;
	uint64_t io_ms, queue_ms;
	uint64_t flushes, flush_ms;
	bool has_flushes;
};

/* The line of device name in diskstats text into *out. 0, or -ENOENT when
 * no line names it (lines of another shape are skipped). */
int learn_diskstats_find(const char *text, const char *name, struct learn_counters *out);

/* out = b - a field by field (counters_delta's wrap rule); out->has_flushes
 * when both have them. */
void learn_counters_delta(const struct learn_counters *a, const struct learn_counters *b,
			  struct learn_counters *out);

/* sum += c, field by field; has_flushes only while every part has them. */
void learn_counters_add(struct learn_counters *sum, const struct learn_counters *c, bool first);

/* ---- a fingerprint ---- */

/* Where a role's I/O was watched: the paths given, the devices under them
 * (each watched once), the block stack beneath (partition -> disk, md and
 * dm members) and the files behind loop devices, named and not watched. */
struct learn_where {
	char paths[LEARN_PATHS_MAX][256];
	size_t nr_paths;
	char devices[LEARN_DEVS_MAX][LEARN_NAME_MAX];
	size_t nr_devices;
	char beneath[LEARN_DEVS_MAX][LEARN_NAME_MAX];
	size_t nr_beneath;
	char backing[LEARN_DEVS_MAX][256];
	size_t nr_backing;
	/* every watched device lacks FUA (queue/fua 0): the kernel sends a
	 * write-through write as the write and then a flush of its own, which
	 * diskstats counts as a flush and as a write of no sectors */
	bool flush_counted_as_write;
	/* the largest logical block size of the watched devices (sysfs
	 * queue/logical_block_size), bytes: what a direct-I/O log write is
	 * padded to; 0 not known */
	uint32_t block;
};

/* ---- the BPF trace of a role (trace.c, include/diskproof/trace.h) ---- */

#define LEARN_TRACE_BUCKETS 32 /* log2: sizes in bytes, service times in us */

enum learn_trace_op {
	LEARN_TRACE_READ,
	LEARN_TRACE_WRITE,
	LEARN_TRACE_FLUSH,
	LEARN_TRACE_DISCARD,
	LEARN_TRACE_OTHER,
	LEARN_TRACE_OPS,
};

/* What the block layer's requests on a role's devices showed over the
 * window: the kernel's counts summed over CPUs (the fields of blockio.h's
 * struct blockio_role), then what trace.c derives from them. present:
 * the trace source watched this role (a fingerprint without it has none). */
struct learn_trace_role {
	bool present;
	uint64_t ops[LEARN_TRACE_OPS], bytes[LEARN_TRACE_OPS];
	uint64_t sizes[2][LEARN_TRACE_BUCKETS];			/* reads, writes */
	uint64_t service[LEARN_TRACE_OPS][LEARN_TRACE_BUCKETS]; /* issue -> complete */
	uint64_t service_ns[LEARN_TRACE_OPS], completed[LEARN_TRACE_OPS];
	uint64_t fua_writes, preflush_writes, sync_writes, meta_ios, flush_after_write;
	uint64_t sequential;	  /* reads and writes starting where the device's previous ended */
	uint64_t gaps;		  /* issue gaps in the role */
	double gap_cv;		  /* their coefficient of variation */
	uint64_t slots;		  /* 100 ms slots of the window */
	double dispersion;	  /* index of dispersion (variance / mean) of issues per slot */
	uint64_t regions;	  /* distinct 1 MiB regions read or written */
	uint64_t regions_dropped; /* I/Os whose region the bounded sketch could not keep */
	double hot_fraction;	  /* share of reads and writes on the hottest 10 % of regions */
	/* reads, writes: the role's requests in flight at each one's issue,
	 * summed (over ops[] of them: the mean depth a read or write met) */
	uint64_t depth_sum[2];
	bool depth_known; /* depth_sum measured (a fingerprint from before has none) */
	/* write bursts (learn_trace_bursts): runs of 100 ms slots with at
	 * least LEARN_BURST_FACTOR times the mean writes a slot; their count,
	 * their share of the writes, the mean time from one's start to the
	 * next's (NAN: fewer than two), the mean writes of a burst's fullest
	 * slot (its peak rate a 100 ms), and the writes in flight in that
	 * slot, time-averaged (the service times of its writes over 100 ms) */
	uint64_t bursts;
	double burst_share, burst_interval_s, burst_peak, burst_depth;
};

/* One role of a fingerprint: the window's counters, summed over its devices. */
struct learn_role {
	bool present; /* a path was given for it */
	struct learn_where where;
	struct learn_counters c;       /* the window's differences */
	struct learn_trace_role trace; /* the BPF source's view, when it watched */
};

struct learn_fp {
	char source[64];     /* "diskstats", or "sim" for a fit's prediction */
	char start_utc[32];  /* the window's start, RFC 3339 UTC; "" unknown */
	double seconds;	     /* the window */
	double transactions; /* in the window; < 0: not known (figures per second) */
	struct learn_role role[LEARN_ROLES];
	struct learn_db db; /* the database's counters (dbstat.h); kind NONE: not asked */
	/* the BPF source: "used (tp_btf)", or why not ("needs root ..."); "" not said */
	char trace_status[160];
};

/* A figure of a fingerprint (fingerprint.c's table, the compare table's rows). */
struct learn_figure {
	const char *label; /* "data reads/s" */
	const char *key;   /* "data.reads_per_s", its JSON name */
	double value;	   /* NAN when it cannot be had (no such role, no transactions) */
	uint64_t events;   /* the events it is computed from */
	bool asserted;	   /* compared within the tolerance (else shown only) */
	int decimals;
};

#define LEARN_FIGURES_MAX 40

/* The figures of fp into out (at most LEARN_FIGURES_MAX), in table order;
 * returns how many. Pure. */
size_t learn_fp_figures(const struct learn_fp *fp, struct learn_figure *out);

/* The fingerprint as a JSON document (docs/schema/fingerprint.schema.json),
 * with a final newline, appended to out. */
void learn_fp_json(const struct learn_fp *fp, struct strbuf *out);

/* Parses a document learn_fp_json wrote. -EINVAL (err says where) for one
 * that is not a fingerprint. origin names it in messages. */
int learn_fp_parse(const char *text, const char *origin, struct learn_fp *fp,
		   struct strbuf *err) DP_MUST_CHECK;

/* The comparison of a and b: per figure (rows with fewer than
 * LEARN_EVENTS_MIN events on either side left out and said), the diff in
 * percent of b against a, asserted rows off by more than tol_pct named.
 * The table appended to out as text within width columns; *off the
 * asserted rows off, *asserted those compared, *left_out those left out. */
void learn_fp_compare(const struct learn_fp *a, const struct learn_fp *b, const char *name_a,
		      const char *name_b, double tol_pct, struct strbuf *out, unsigned *off,
		      unsigned *asserted, unsigned *left_out);

/* ---- devices and the window (observe.c) ---- */

/*
 * The devices under path into w (added to what w holds, each once): the
 * device holding its filesystem (or path itself when a block device), the
 * stack beneath, loop backing files, FUA. sysfs is "/sys" but in tests.
 * -ENODEV when no block device is under path (tmpfs, NFS), err says so.
 */
int learn_where_add(const char *sysfs, const char *path, struct learn_where *w,
		    struct strbuf *err) DP_MUST_CHECK;

/* The same from a kernel device name (what learn_where_add does once it
 * has found the device; the unit tests plant a sysfs tree). */
int learn_where_add_device(const char *sysfs, const char *name, struct learn_where *w,
			   struct strbuf *err) DP_MUST_CHECK;

struct learn_observe {
	const char *proc;    /* "/proc" but in tests */
	uint64_t window_ns;  /* the window asked for */
	uint64_t step_ns;    /* between reads: 1 s */
	int signal_fd;	     /* readable: the window ends now (SIGINT); -1 none */
	double transactions; /* < 0: not known */
	/* the BPF source, started (trace.h), or NULL: its window is the same */
	struct learn_tracer *tracer;
	/* called after each read with the seconds so far; may be NULL */
	void (*progress)(void *arg, double seconds, double window_s);
	void *arg;
};

/* Watches fp's roles (where filled, present set) over the window: reads
 * /proc/diskstats every step, fills the roles' counters and seconds. Never
 * writes to a device. 0, or -errno (a device gone, diskstats unreadable). */
int learn_observe_window(const struct learn_observe *o, struct learn_fp *fp,
			 struct strbuf *err) DP_MUST_CHECK;

/* ---- the fit and the profile (learn.c) ---- */

/* The keys a learned profile sets, each with its origin. */
struct learn_model {
	double rate;		  /* transactions/s */
	double update_pages;	  /* pages a transaction changes */
	double read_pages;	  /* more pages it reads */
	uint64_t page_size;	  /* bytes */
	const char *page_origin;  /* where page_size came from (static text) */
	uint64_t log_record_size; /* bytes per page changed */
	uint64_t database_size;	  /* bytes */
	uint64_t log_segment_size;
	unsigned log_segments;
	unsigned streams;
	/* the sim's device model ([sim]): the observed mean latencies, in us */
	double read_lat_us, write_lat_us, log_lat_us;
	/* [sim] log_align: the log device's block, so that the sim pads a
	 * log write as it does; 0: the sim's 4 KiB (the key not written) */
	uint32_t log_align;
	bool log_align_guessed; /* not read from the device (an old fingerprint) */
	/* the fit's bracket of a commit's record bytes: those whose sim run
	 * wrote fewer (lo) and more (hi) log bytes than observed, at rec_rate;
	 * 0 none yet */
	double rec_lo, rec_hi, rec_rate;
	/* the database model features (model_db.c); 0 or false: off, the key
	 * not written */
	bool doublewrite;	   /* InnoDB's doublewrite: every flushed page twice */
	int data_flush;		   /* enum profile_data_flush */
	double data_flush_rate;	   /* data_flush = rate: flushes/s */
	unsigned data_flush_count; /* data_flush = per_batch: flushes a batch (0: 1) */
	double cleaner_interval_s; /* a page cleaner's pass every this */
	unsigned cleaner_pages;	   /* ... writing up to this many pages */
	bool cleaner_spread;	   /* ... spread over the interval */
	unsigned flush_depth;	   /* the flusher's writes in flight (a batch's pages) */
	double dw_batch_rate;	   /* doublewrite batches a second the trace saw (0: none) */
	double cache_fraction;	   /* cache_size as a share of the database */
	unsigned dirty_pages;	   /* the dirty list's pages (0: the key's default) */
	unsigned readahead_pages;  /* readahead_size, in pages (0: off) */
	double readahead_pct;	   /* the share of page reads that read ahead */
	/* group commit (learn_db_group_commit): commit_delay in us (0: off),
	 * commit_group, and the sim's commits per log write without the delay
	 * (the fit's state) */
	double commit_delay_us;
	unsigned commit_group;
	double commit_base;
	double log_obs_us; /* the observed log latency per write, its flush's included */
	/* log_sync: an enum profile_log_sync copied from the database's
	 * settings, why (static text); -1: not read (the default) */
	int log_sync;
	const char *log_sync_why;
};

struct learn_fit {
	struct learn_model m;
	struct learn_fp predicted; /* the sim's fingerprint of m */
	unsigned iterations;
	/* what the model cannot make, one line each ("data flushes/s: ...") */
	struct strbuf cannot;
	/* what the fit did not use, one line each */
	struct strbuf notes;
	/* the database model features set (model_db.c), one line each: "key =
	 * value: why", for the header's key origins */
	struct strbuf db_keys;
	/* learn --replay-on: the header's "checked on" section (replay.c),
	 * whole comment lines; empty: no replay */
	struct strbuf checked;
	/* the learned profile's volumes (learn_profile_write), set by the
	 * caller: one per --data path (vol_path, not owned), the --log path
	 * paired with it (vol_log, NULL: none) and the bytes found under the
	 * data path (vol_bytes). nr_vols 0: one volume at obs's first paths.
	 * The fit stays on the summed figures; the volumes share the load
	 * evenly (one database each, the pool's even share) */
	const char *vol_path[LEARN_PATHS_MAX], *vol_log[LEARN_PATHS_MAX];
	uint64_t vol_bytes[LEARN_PATHS_MAX];
	size_t nr_vols;
	/* [test] fingerprint: the observed fingerprint's file, relative to the
	 * profile's directory (not owned); NULL: none kept */
	const char *fingerprint;
};

void learn_fit_init(struct learn_fit *f);
void learn_fit_release(struct learn_fit *f);

/*
 * Fits a profile to obs on the sim engine: copies what can be copied
 * (sizes from files under the paths, page size from the read size), then
 * a few rounds of proportional correction of the rate, the pages changed
 * and read and the log record so that the sim's predicted fingerprint
 * matches obs (per second when obs has no transactions). db_size and
 * log_size: the bytes found under the paths (0: none found). tmpdir holds
 * the fit's results file while it runs. 0, or -errno with err filled.
 */
int learn_fit_run(const struct learn_fp *obs, uint64_t db_size, uint64_t log_size,
		  const char *tmpdir, struct learn_fit *fit, struct strbuf *err) DP_MUST_CHECK;

/* A sim run of m over 30 s of virtual time: the device figures its I/O
 * classes make into pred, on the roles (and their flush rule) of shape.
 * Its results file sits in tmpdir while it runs. 0 or -errno. */
int learn_sim_predict(const struct learn_model *m, const struct learn_fp *shape, const char *tmpdir,
		      struct learn_fp *pred, struct strbuf *err) DP_MUST_CHECK;

/* The profile text of a model: [test], [sizing], [workload], [engine] and
 * one [volume] with path and log_path; engine "io_uring" or "sim",
 * duration in seconds. */
void learn_model_profile(const struct learn_model *m, const char *data_path, const char *log_path,
			 const char *engine, double duration_s, struct strbuf *out);

/* The learned profile: a header (window, sources used and not, observed
 * fingerprint, each key's origin, residuals, what the model cannot make),
 * then the profile of fit->m, [test] fingerprint = fit->fingerprint when
 * set, one [volume] per fit->vol_path (else one at obs's first paths): the
 * database size the mean of the volumes' bytes, at most the smallest. */
void learn_profile_write(const struct learn_fp *obs, const struct learn_fit *fit,
			 struct strbuf *out);

/* ---- a run's own fingerprint (runfp.c) ---- */

struct profile;
struct results;
struct results_fp_compare;

/*
 * The fingerprint p keeps ([test] fingerprint, a path relative to the
 * profile's directory) into fp, its text into json. 1 when p keeps none; 0;
 * or -errno with err "ORIGIN:LINE: [test] fingerprint: why" (a file that
 * cannot be read, or is not a fingerprint).
 */
int learn_profile_fingerprint(const struct profile *p, struct learn_fp *fp, struct strbuf *json,
			      struct strbuf *err) DP_MUST_CHECK;

/* A run's devices watched over its measured window: the roles of a
 * profile's volumes (every volume's path as data, its log_path as log,
 * resolved as learn resolves --data and --log) and /proc/diskstats at the
 * window's two ends. Plain data: no release. */
struct learn_run_watch {
	char proc[64]; /* "/proc" but in tests */
	struct learn_fp fp;
	struct learn_counters a[LEARN_ROLES][LEARN_DEVS_MAX], b[LEARN_ROLES][LEARN_DEVS_MAX];
	uint64_t t0_ns, t1_ns; /* monotonic */
	bool started, ended;
	char error[320]; /* a snapshot that failed: the fingerprint cannot be had */
};

/* The roles of p's volumes into w. 0, or -errno (learn_where_add's). */
int learn_run_watch_init(struct learn_run_watch *w, const struct profile *p, const char *sysfs,
			 struct strbuf *err) DP_MUST_CHECK;

/* The measured window begins (end false) or ends at mono_ns: the devices'
 * counters read. A struct run_callbacks' window callback (arg: the watch);
 * a second start or end is ignored. */
void learn_run_watch_mark(void *arg, bool end, uint64_t mono_ns);

/*
 * The run's own fingerprint ("fingerprint a run"): the watched window's
 * differences per role, its seconds and the run's transactions in it (< 0:
 * not known) into out, source "run". The same figures as "diskproof
 * fingerprint" makes of a window. 0, or -errno with err (the window not
 * watched, diskstats unreadable).
 */
int learn_run_fingerprint(const struct learn_run_watch *w, double transactions,
			  struct learn_fp *out, struct strbuf *err) DP_MUST_CHECK;

/* learn_fp_compare's rows as data (b against a) into c. */
void learn_fp_compare_rows(const struct learn_fp *a, const struct learn_fp *b, double tol_pct,
			   struct results_fp_compare *c);

/* r's stored fingerprints (fp_kept, fp_run) compared: r->fp_compare filled
 * (rows and the text table); nothing for a run without them. 0 or -errno
 * with err (a stored fingerprint that does not parse). */
int learn_results_compare(struct results *r, double tol_pct, struct strbuf *err) DP_MUST_CHECK;

/* ---- the database model features (model_db.c) ---- */

struct class_summary;

/* The features an observed fingerprint shows, set in fit->m and named in
 * fit->db_keys (each "key = value: why"): InnoDB's doublewrite (data writes
 * of about twice the page with data flushes: doublewrite, flush_depth, the
 * page cleaner's pass every second, data_flush = per_batch where there are
 * two flushes a batch), data-file flushes without it (data_flush = rate),
 * reads below the changed pages (a cache: cache_size). to: the fit's
 * per-second targets (learn.c's T_ order: log writes, data writes, data
 * reads, log KiB). Called once, after the model's first guess. */
void learn_db_features(const struct learn_fp *obs, const double *to, struct learn_fit *fit);

/* After a round's correction: the features' own keys corrected from the
 * sim's prediction tp against to (the cache by the reads, the flush rate by
 * the flushes, the cleaner's pages by the page writes). */
void learn_db_correct(const struct learn_fp *obs, const struct learn_fp *pred, const double *to,
		      const double *tp, struct learn_model *m);

/* The sim's data-file flushes (I/O class db_flush) into pred's data role:
 * flushes, and writes where the device counts a flush as a write. */
void learn_db_predict(const struct class_summary *c, const struct learn_fp *obs,
		      struct learn_fp *pred);

/* Group commit, with the transactions known: where the sim at the
 * observed log latency shares a log write between fewer commits than the
 * database did, commit_group (the observed commits per log write, rounded
 * up) and commit_delay, fitted on the sim to the observed log writes per
 * transaction; the sim's log latency stays the observed one. True when it
 * corrected m this round (learn.c's latency fit is then not run); false
 * when the sim already shares as many commits or more. to, tp: the targets
 * observed and predicted (learn.c's T_ order). */
bool learn_db_group_commit(struct learn_model *m, const double *to, const double *tp);

/* After the fit: the group commit's keys, when set, named in fit->db_keys. */
void learn_db_group_commit_origin(struct learn_fit *fit, const double *to);

/* The features' keys for the profile's [workload] (those set only). */
void learn_db_profile_keys(const struct learn_model *m, struct strbuf *out);

/* Bytes of the regular files under path (a file, or a directory walked, not
 * across filesystems), at most the size of the device holding it; for a
 * block device (a database on the raw device), its size from sysfs. */
uint64_t learn_bytes_under(const char *path);

/* ---- learn --replay-on (replay.c) ---- */

/* The replay directory path into w (its devices, as learn_where_add), or
 * refused: -ENOTDIR when it is not a directory (a FIFO, a file, a device),
 * -EPERM when its device, a disk beneath it or the device holding a loop
 * backing file beneath it (followed down) is a device obs's roles watch or
 * a disk beneath one, -errno when it cannot be had; err says which. */
int learn_replay_where(const char *sysfs, const char *path, const struct learn_fp *obs,
		       struct learn_where *w, struct strbuf *err) DP_MUST_CHECK;

/* The learned header's "checked on" section, appended to out: where the
 * replay ran, note's lines (what was corrected, what was capped), then
 * every figure of obs observed, replayed (rep) and the residual (%). */
void learn_replay_header(const struct learn_fp *obs, const struct learn_fp *rep, const char *note,
			 struct strbuf *out);

/* The replay's figure key (learn_figure's "data.queue_depth") over the
 * observed one; NAN when either is missing or the observed is 0. */
double learn_replay_ratio(const struct learn_fp *obs, const struct learn_fp *rep, const char *key);

#endif
