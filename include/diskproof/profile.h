/* SPDX-License-Identifier: MIT */
/*
 * profile.h - an INI profile (parsed with inih) turned into a validated
 * struct profile.
 *
 * Validation is complete: every error in the file is reported, in line order,
 * one per line of err, each as "FILE:LINE: [section] key: message". A profile
 * with any error is rejected whole (-EINVAL) and nothing is written anywhere.
 * That includes the rules over several keys (a backup or recovery test takes
 * no warm-up, streams = auto tunes the jetstress model only, ...) and paths
 * too long for the files derived from them: a profile that validates is one
 * that plan, check, init and run all accept. Command-line overrides are applied afterwards, to a
 * valid profile, with profile_apply_overrides().
 *
 * Ownership: a struct profile owns every string and array it points at;
 * profile_release() frees them and is safe on a zeroed or released profile.
 */
#ifndef DISKPROOF_PROFILE_H
#define DISKPROOF_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diskproof/util.h"

enum profile_test_type {
	PROFILE_TEST_PERFORMANCE,
	PROFILE_TEST_STRESS,
	PROFILE_TEST_BACKUP,
	PROFILE_TEST_RECOVERY,
	/* writes made durable (write-through), each acknowledgement sent to a
	 * witness, until a cut (docs/durability.md) */
	PROFILE_TEST_DURABILITY,
};

/* [workload] model: Jetstress-like transactions, or plain fixed-size I/O. */
enum profile_model {
	PROFILE_MODEL_JETSTRESS,
	PROFILE_MODEL_FIXED,
};

/* [workload] arrival: streams run back to back, or transactions arrive at a rate. */
enum profile_arrival {
	PROFILE_ARRIVAL_CLOSED,
	PROFILE_ARRIVAL_RATE,
};

/* [workload] pattern of the fixed model. */
enum profile_pattern {
	PROFILE_PATTERN_RANDOM,
	PROFILE_PATTERN_SEQUENTIAL,
};

/* [workload] data_flush: when a database file's written data is made
 * durable (fdatasync) */
enum profile_data_flush {
	PROFILE_DATA_FLUSH_NONE,      /* never (the default) */
	PROFILE_DATA_FLUSH_PER_BATCH, /* after every flush batch (InnoDB) */
	PROFILE_DATA_FLUSH_RATE,      /* data_flush_rate times a second, when written to */
};

/* [workload] log_sync: how a log write is made durable */
enum profile_log_sync {
	PROFILE_LOG_SYNC_WRITE_THROUGH, /* the write itself (RWF_DSYNC; the default) */
	PROFILE_LOG_SYNC_FDATASYNC,	/* a plain write, then fdatasync of the log file */
};

/* Most streams a profile or --streams may ask for. */
#define PROFILE_STREAMS_MAX 100000
/* [engine] streams = auto: the count is found by auto-tune. */
#define PROFILE_STREAMS_AUTO UINT32_MAX
/* [test] repeat: the most runs of one series (the store's STORE_SERIES_MAX) */
#define PROFILE_REPEAT_MAX 1000

/* [engine] autotune_goal */
enum profile_tune_goal {
	PROFILE_TUNE_MAX,    /* the most streams that pass */
	PROFILE_TUNE_TARGET, /* the fewest that reach the target IOPS and pass */
	PROFILE_TUNE_IOPS,   /* the most transactional IOPS among the counts that pass */
};

/* [engine] autotune_step */
enum profile_tune_step {
	PROFILE_TUNE_STEP_DATABASE, /* whole streams per database */
	PROFILE_TUNE_STEP_STREAM,   /* single streams */
};

/* [thresholds] max_basis: what the maximum criteria judge (eval.h) */
enum profile_max_basis {
	PROFILE_MAX_SAMPLE, /* the highest sample_interval average, as Jetstress */
	PROFILE_MAX_IO,	    /* the single slowest I/O */
};

/* [thresholds] latency_basis: which time the latency criteria judge (eval.h) */
enum profile_latency_basis {
	PROFILE_LATENCY_SERVICE,  /* submission to completion: the device's */
	PROFILE_LATENCY_RESPONSE, /* open loop: the transaction's intended start to completion */
};

/* [engine] affinity: where workers run, against the NUMA node of the disks
 * they drive (env.h, env_numa_place). */
enum profile_affinity {
	PROFILE_AFFINITY_SOFT, /* the node's CPUs when there is one to prefer */
	PROFILE_AFFINITY_HARD, /* exactly the nodes' CPUs and memory */
	PROFILE_AFFINITY_NONE, /* wherever the scheduler puts them */
};

/* Longest accepted INI line, in characters, line ending excluded. */
#define PROFILE_MAX_LINE 4096
#define PROFILE_MAX_VOLUMES 256
#define PROFILE_MAX_NAME 64

/* [sim] write_cache: what a simulated power cut ([sim] cut_at) keeps
 * (engine.h, ENGINE_SIM_CACHE_*, in the same order). */
enum profile_sim_cache {
	PROFILE_SIM_CACHE_NONE,	   /* no cache model: every acknowledged write kept */
	PROFILE_SIM_CACHE_HONEST,  /* a cut loses only writes no completed flush covered */
	PROFILE_SIM_CACHE_LYING,   /* ... and flushed writes within lie_window of the cut */
	PROFILE_SIM_CACHE_TEARING, /* honest, and pages in flight at the cut torn */
};

struct profile_sim {
	uint64_t read_latency_ns;      /* default 2 ms */
	uint64_t write_latency_ns;     /* default 3 ms */
	uint64_t log_write_latency_ns; /* default 1 ms */
	double jitter_pct;	       /* spread of latencies, default 20 (%) */
	uint64_t saturation_iops;      /* per volume; 0 = never saturates; default 0 */
	uint64_t drift_ns;	       /* latency added per second the device is open; 0 */
	uint64_t drift_time_ns;	       /* ... for this long (then flat); 0 = forever */
	double error_rate_pct;	       /* share of I/Os failing with EIO; default 0 */
	double drop_write_rate_pct;    /* share of writes acknowledged but lost; 0 */
	double hang_rate_pct;	       /* share of I/Os that never complete; 0 */
	uint64_t spike_every;	       /* every this many-th I/O is slow; 0 = none */
	uint64_t spike_latency_ns;     /* added to it; default 0 */
	uint64_t transfer_rate;	       /* bytes per second; 0 = size costs nothing; default 0 */
	uint64_t stall_period_ns;      /* a stall starts every this long; 0 = none */
	uint64_t stall_length_ns;      /* ... lasts this long (< the period) */
	uint64_t stall_latency_ns;     /* ... and adds this to every I/O started in it */
	double run_spread_pct;	       /* run-to-run spread of latencies (%), from the seed; 0 */
	uint64_t lie_window_ns;	       /* lying cache: flushed writes this near the cut lost */
	uint64_t cut_at_ns;	       /* the simulated power cut; 0 = none */
	uint32_t write_cache;	       /* PROFILE_SIM_CACHE_*; default none */
	uint32_t log_align;	       /* the log's block (log writes whole blocks); 4 KiB */
	uint64_t seed;		       /* default 1 */
};

struct profile_volume {
	char name[PROFILE_MAX_NAME]; /* from "[volume NAME]": [A-Za-z0-9_.-]+ */
	char *path;		     /* required; directory holding the databases */
	char *log_path;		     /* directory of the logs; = path when unset */
	unsigned databases;	     /* 1..1000, default 1 */
	unsigned line;		     /* line of the section header */
	unsigned *key_lines;	     /* per key table entry: its line in the section, 0 = unset;
				      * NULL for a profile not parsed from text */
	/*
	 * The volume's simulated devices (sim engine; docs/engines.md). How to
	 * read them, e.g. to list the effective parameters per volume:
	 *   sim       the data device: [sim] with every key [sim NAME] set over it.
	 *   sim_log   the log device when sim_log_own, else unused (the logs
	 *             are on the data device, sim): [sim] with the keys of the
	 *             [sim-log] section over it. It inherits [sim], never
	 *             [sim NAME]: a log disk is another disk. Volumes whose
	 *             log_path is the same string share one log device, and one
	 *             model: the [sim-log] section of any of them sets it (two
	 *             that differ are a profile error), and each sharing volume
	 *             holds a copy of it.
	 *   sim_line, sim_key_lines: the line of [sim NAME] and, per key table
	 *             entry (the "sim" ones), the line in it that set the key;
	 *             0 / NULL when the volume has no [sim NAME] section. A key
	 *             whose line is 0 has [sim]'s value (profile.key_lines says
	 *             whether [sim] set it or it is the default).
	 *   sim_log_line, sim_log_key_lines: the same for the [sim-log] section
	 *             that set the log device, which is another sharing volume's
	 *             when this one has none (sim_log_from names that volume).
	 * seed is global ([sim] only): every device draws from one sequence.
	 */
	struct profile_sim sim;
	struct profile_sim sim_log;
	bool sim_log_own;		     /* log_path is set and differs from path */
	unsigned sim_line;		     /* [sim NAME] header line; 0 = none */
	unsigned *sim_key_lines;	     /* NULL without [sim NAME] */
	unsigned sim_log_line;		     /* [sim-log ...] header line; 0 = none */
	unsigned *sim_log_key_lines;	     /* NULL without one */
	char sim_log_from[PROFILE_MAX_NAME]; /* volume whose [sim-log] set it; "" = none */
};

struct profile_thresholds {
	uint64_t db_read_avg_ns;   /* default 20 ms */
	uint64_t db_read_max_ns;   /* default 100 ms strict, 200 ms lenient */
	uint64_t log_write_avg_ns; /* default 10 ms */
	uint64_t log_write_max_ns; /* default 100 ms strict, 200 ms lenient */
	uint64_t io_errors;	   /* most I/O errors allowed; default 0 */
	bool lenient;		   /* stress type or duration over 6 h */
	bool db_read_max_set;	   /* given in the profile: lenient defaults leave it */
	bool log_write_max_set;	   /* given in the profile: lenient defaults leave it */
	/* Optional criteria (eval.h), all off by default; lenient leaves them. */
	uint64_t db_read_p99_ns;   /* highest 99th percentile; 0 = not judged */
	uint64_t log_write_p99_ns; /* highest 99th percentile; 0 = not judged */
	bool interval_avg;	   /* no 15 s window's average over the average thresholds */
	double db_read_cv_pct;	   /* highest CV of the 15 s window averages, %; 0 = not judged */
	double log_write_cv_pct;   /* highest CV of the 15 s window averages, %; 0 = not judged */
	enum profile_max_basis max_basis;	  /* default sample */
	enum profile_latency_basis latency_basis; /* default service */
	uint64_t sample_interval_ns; /* the sample of max_basis = sample; default 15 s */
	double page_fault_stalls;    /* most stalls per second; judged when ..._set */
	bool page_fault_stalls_set;  /* given in the profile */
	/* auto-tune's level judged (criterion autotune_settled): the main test's
	 * level must have settled; default on, off only where the profile says */
	bool autotune_settled;
};

struct profile {
	/* [test] */
	char *name;	   /* default: the file's base name without .ini */
	char *description; /* one line, for "diskproof profiles"; may be NULL */
	enum profile_test_type type;
	uint64_t duration_ns;	    /* default 2 h (performance), 24 h (stress) */
	uint64_t warmup_ns;	    /* default 0 */
	uint64_t max_errors;	    /* stop after this many I/O errors; 0 = never; 10 */
	uint64_t io_timeout_ns;	    /* an I/O pending this long is hung; default 30 s */
	uint64_t recovery_segments; /* recovery: log segments per database; default 500 */
	uint64_t repeat;    /* run: runs of one series (run --repeat N), 1..PROFILE_REPEAT_MAX; 1 */
	char *witness;	    /* durability: FILE or HOST:PORT (run --witness overrides); NULL */
	uint64_t cut_at_ns; /* durability: when --cut-command runs; 0 = a random instant */
	/* a learned profile's fingerprint JSON (docs/learn.md), relative to the
	 * profile's directory; NULL: none (run compares nothing) */
	char *fingerprint;

	/* [sizing] */
	uint64_t database_size; /* bytes; default 1 GiB; multiple of page_size */
	uint64_t log_size;	/* bytes per database log = log_segments x log_segment_size */
	uint64_t target_iops;	/* transactional IOPS for the run; 0 = none */
	/* Jetstress-style sizing (finish_sizing() in parse.c): with mailboxes,
	 * database_size = mailboxes x mailbox_size / databases (whole pages, up)
	 * and target_iops = mailboxes x iops_per_mailbox x (1 + headroom), both
	 * derived; with capacity, plan_build() sizes the databases from each
	 * filesystem's free space instead of database_size. */
	uint64_t mailboxes;	 /* 0 = not sized from mailboxes */
	double iops_per_mailbox; /* transactional IOPS one mailbox needs */
	uint64_t mailbox_size;	 /* bytes per mailbox */
	double headroom_pct;	 /* added to the mailboxes' IOPS; default 0 (%) */
	double capacity_pct;	 /* share of the free space the databases take; 0 = off */

	/* [workload] */
	enum profile_model model; /* default jetstress */
	uint32_t page_size;	  /* default 32 KiB; power of two, 4 KiB..1 MiB */
	uint32_t log_record_size; /* log bytes per page a transaction changes; 2 KiB */
	uint64_t seed;		  /* workload RNG seed; default 1 */
	bool verify;		  /* verify every page read; default on */
	/* the jetstress model */
	double insert_pct, delete_pct, replace_pct, seek_pct; /* 40/20/5/35, sum 100 */
	double lazy_commit_pct;	      /* commits that do not wait for the log; 70 */
	double seek_pages;	      /* mean pages a seek reads; 1.3 */
	double update_pages;	      /* mean pages an insert/delete/replace reads and dirties */
	unsigned flush_depth;	      /* page writes in flight per database's flusher; 4 */
	unsigned dirty_pages;	      /* dirty pages a database holds before commits stall; 4096 */
	unsigned log_segments;	      /* segments in each circular log; 64 */
	uint32_t log_segment_size;    /* 1 MiB */
	bool bdm;		      /* background database maintenance; on */
	uint64_t bdm_rate;	      /* bytes per second per database; 1 MiB */
	uint32_t bdm_io_size;	      /* 256 KiB */
	unsigned copies;	      /* database copies: each closed segment read copies-1 times */
	uint32_t backup_io_size;      /* backup test's sequential read size; 256 KiB */
	enum profile_arrival arrival; /* closed (default) or rate */
	double rate;		      /* transactions per second over all databases */
	unsigned max_streams;	      /* open loop: streams grow up to this; 0 = 4 x streams */
	/* PostgreSQL-like features, all off by default (docs/fidelity.md) */
	double read_pages;		 /* pages a change transaction only reads; 0 */
	uint64_t hot_size;		 /* a hot region at each database's start; 0 = off */
	double hot_pct;			 /* share of page picks that go to it */
	uint64_t cache_size;		 /* database cache per database; 0 = off */
	uint32_t readahead_size;	 /* a read-ahead miss reads this much; 0 = off */
	double readahead_pct;		 /* share of misses that read ahead */
	uint64_t checkpoint_interval_ns; /* 0 = no checkpoints: pages flushed at once */
	uint64_t checkpoint_log_size;	 /* or after this much log; 0 = by time only */
	double checkpoint_target_pct;	 /* share of the interval its writes take; 90 */
	unsigned write_merge;		 /* adjacent pages per checkpoint write, at most; 1 */
	uint64_t writeback_interval_ns;	 /* write-back passes between checkpoints; 0 = off */
	uint64_t writeback_age_ns;	 /* the age a page is written back at */
	bool writeback_hot;		 /* off: the hot region waits for checkpoints */
	bool full_page_writes;		 /* first change after a checkpoint logs the page */
	uint32_t log_page_size;		 /* whole log pages, the partial last rewritten; 0 = off */
	uint64_t commit_delay_ns;	 /* a log write waits this long for more commits */
	unsigned commit_group;		 /* or as soon as this many commits wait; 0 = off */
	enum profile_log_sync log_sync;	 /* write_through (default) or fdatasync */
	/* InnoDB-like features, all off by default (docs/profiles.md) */
	bool doublewrite;		    /* each flush batch first written to an area */
	uint64_t doublewrite_size;	    /* the area, per worker's share of a database */
	enum profile_data_flush data_flush; /* none (default), per_batch or rate */
	double data_flush_rate;		    /* data_flush = rate: flushes per second */
	unsigned data_flush_count;	    /* data_flush = per_batch: flushes a batch */
	uint64_t cleaner_interval_ns;	    /* a page cleaner's pass every this; 0 = off */
	unsigned cleaner_pages;		    /* ... writing up to this many dirty pages */
	bool cleaner_spread;		    /* ... spread over the interval, not at its start */
	/* the fixed model */
	uint32_t block_size;	      /* I/O size = page size; default page_size */
	double read_pct;	      /* share of I/Os that are reads; 100 */
	enum profile_pattern pattern; /* random (default) or sequential */

	/* [thresholds] */
	struct profile_thresholds thresholds;

	/* [engine] */
	char engine[16];  /* "io_uring" (default), "libaio", "psync" or "sim" */
	unsigned streams; /* concurrent streams; 0 = 2 per database; PROFILE_STREAMS_AUTO */
	enum profile_tune_goal tune_goal; /* default max */
	double tune_margin_pct;		  /* under each threshold; default 10 */
	uint64_t tune_limit_ns;		  /* 0: 20 % of the duration, at most 30 min */
	uint64_t tune_window_ns;	  /* 0: derived from the limit */
	unsigned tune_max_streams;	  /* 0: 128 per database */
	enum profile_tune_step tune_step; /* default database */
	double tune_plateau_pct;	  /* the least IOPS gain of a step up; default 5 */
	unsigned tune_slope_window;	  /* samples; 0: the window's, 5 to 30 */
	uint64_t tune_slope_max_ns;	  /* per sample; default 0.1 ms */
	uint64_t tune_transient_max_ns;	  /* 0: 4 x the slope window */
	unsigned workers;      /* worker threads; 0 = one per CPU, at most one per database */
	bool direct;	       /* O_DIRECT; default on */
	bool sqpoll;	       /* io_uring: a kernel submission thread; default off */
	bool hipri;	       /* io_uring: polled completion (needs poll queues); default off */
	unsigned submit_batch; /* I/Os handed over at once while as many are in flight; 1 */
	enum profile_affinity affinity; /* default soft */

	/* [sim] */
	struct profile_sim sim;

	/* [volume NAME] sections, in file order */
	struct profile_volume *volumes;
	size_t nr_volumes;

	/* Where it came from and what it said, for the results file. */
	char *origin; /* file path as given, or "builtin:NAME" */
	char *text;   /* the INI text exactly as read */
	/* per key table entry (global sections): the line that set it, 0 =
	 * unset (messages about options point at the profile's keys); may be
	 * NULL */
	unsigned *key_lines;
	/* which command-line options profile_apply_overrides() applied
	 * (PROFILE_OPT_* bits), so the effective parameters say "option" */
	unsigned options_applied;
	/* run --repeat N: the workload and sim seeds are the series' for this
	 * run (profile_seeds_derive), listed with source "derived" */
	bool seeds_derived;
};

/* Bits of profile.options_applied. */
enum {
	PROFILE_OPT_DATA_DIR = 1u << 0, /* every volume's path and log_path */
	PROFILE_OPT_DB_SIZE = 1u << 1,
	PROFILE_OPT_DURATION = 1u << 2,
	PROFILE_OPT_WARMUP = 1u << 3,
	PROFILE_OPT_ENGINE = 1u << 4,
	PROFILE_OPT_STREAMS = 1u << 5,
	PROFILE_OPT_REPEAT = 1u << 6, /* run --repeat N over [test] repeat */
};

/* What the command line may change, applied after validation. A NULL pointer
 * or zero value means "not given". */
struct profile_overrides {
	const char *data_dir; /* volume v at DIR/v, separate logs at DIR/v-log */
	uint64_t db_size;
	uint64_t duration_ns;
	bool has_duration;
	uint64_t warmup_ns;
	bool has_warmup;
	const char *engine;
	unsigned streams;
	unsigned repeat;     /* run --repeat N; 0: not given */
	const char *witness; /* run or verify --witness SPEC; NULL: not given */
};

/*
 * The effective parameters: every key of the key table with the value a run
 * uses, as a profile would spell it ("20ms", "32KiB", "on"), and where that
 * value came from. Global sections first, in table order, then each volume's
 * keys. value is NULL for an optional key left unset (db_read_p99: not
 * judged). The results file keeps them (table param), reports list them and
 * compare diffs them.
 */
enum profile_param_source {
	PROFILE_PARAM_PROFILE, /* the file set it */
	PROFILE_PARAM_DEFAULT, /* the key table's default (or unset) */
	PROFILE_PARAM_OPTION,  /* a command-line option set it */
	PROFILE_PARAM_DERIVED, /* computed from other keys (database_size from mailboxes) */
};

struct profile_param {
	const char *section; /* the key table's section: "test", ..., "volume" */
	const char *name;    /* the volume of a "volume" key, else "" (not owned) */
	const char *key;     /* not owned: the key table's name */
	char *value;	     /* owned; NULL: not set */
	enum profile_param_source source;
};

/* "profile", "default", "option", "derived" */
const char *profile_param_source_name(enum profile_param_source s);

/* Fills *out (malloc'd, n entries; names and keys point into p and the key
 * table, so p outlives them) with p's effective parameters. 0 or -ENOMEM. */
int profile_params(const struct profile *p, struct profile_param **out, size_t *n) DP_MUST_CHECK;
void profile_params_release(struct profile_param *v, size_t n);

struct profile_builtin {
	const char *name;
	const char *text; /* NUL-terminated INI text embedded at build time */
};

/* The built-in profiles (from profiles/ *.ini, embedded at build time),
 * sorted by name. */
const struct profile_builtin *profile_builtins(size_t *count);
const struct profile_builtin *profile_builtin_find(const char *name);

/* Parses and validates text. origin names the source in messages (a path, or
 * "builtin:NAME"). Returns 0, or -EINVAL with every error in err (one per
 * line, no trailing newline). p is zeroed first; on error it holds nothing
 * to free but profile_release() is still safe. */
int profile_parse(struct profile *p, const char *origin, const char *text, size_t len,
		  struct strbuf *err) DP_MUST_CHECK;

/* Reads and parses a file. -ENOENT/-EACCES/... when it cannot be read (err
 * says which file and why), -EINVAL for profile errors, -EFBIG over 16 MiB. */
int profile_load_file(struct profile *p, const char *path, struct strbuf *err) DP_MUST_CHECK;

/* PROFILE argument rules: NULL means "quick"; a file when arg contains '/',
 * ends in ".ini" or names an existing file; otherwise a built-in name (an
 * unknown name is -ENOENT with the list of built-ins and a did-you-mean). */
int profile_resolve(struct profile *p, const char *arg, struct strbuf *err) DP_MUST_CHECK;

/*
 * run --repeat N: run `index` (1..N) of a series gets its own workload seed
 * and sim seed, derived from the profile's (seed, sim_seed: [workload] seed
 * and [sim] seed as parsed) and index by a splitmix64 step, so that the
 * runs of a simulated series differ as real runs do and each is still
 * reproducible. Run 1 keeps the profile's seeds exactly (seeds_derived
 * false); the others set every volume's sim devices too.
 */
void profile_seeds_derive(struct profile *p, uint64_t seed, uint64_t sim_seed, unsigned index);

/* Applies command-line overrides to a validated profile; re-checks what they
 * could break (db size a multiple of the page size, the rules over several
 * keys, the length of paths under --data-dir, ...), each error naming the
 * option: "--warmup 10s: why". 0 or -EINVAL. */
int profile_apply_overrides(struct profile *p, const struct profile_overrides *o,
			    struct strbuf *err) DP_MUST_CHECK;

/* Total databases over all volumes. */
unsigned profile_database_count(const struct profile *p);
/* The streams a run of `streams` streams may grow to: open loop's bound
 * ([workload] max_streams, default 4 x streams, at most PROFILE_STREAMS_MAX)
 * for arrival = rate with transactions; else streams itself. */
unsigned profile_stream_bound(const struct profile *p, unsigned streams);

/* The stream count of a profile that sets none ([engine] streams unset,
 * streams 0) over that many databases: 2 per database. */
unsigned profile_streams_default(unsigned databases);

/*
 * Auto-tune's time, from the keys or their defaults (docs/autotune.md), in
 * samples of 1 s (the run's interval): its bound (autotune_limit, else 20 %
 * of the duration, at most 30 min), one window (autotune_window rounded up,
 * else the bound / 24 within 2 s to 30 s) and the slope window
 * (autotune_slope_window, else the window's, 5 to 30). A level takes at
 * least a slope window and a window (profile_tune_level_min_ns): a bound
 * shorter than that holds none, a rule refuses it (rules.c).
 */
uint64_t profile_tune_limit_ns(const struct profile *p);
unsigned profile_tune_window_samples(const struct profile *p);
unsigned profile_tune_slope_window(const struct profile *p);
uint64_t profile_tune_level_min_ns(const struct profile *p);

void profile_release(struct profile *p);

const char *profile_test_type_name(enum profile_test_type t);
const char *profile_model_name(enum profile_model m);

/*
 * The key table: one const entry per profile key drives parsing, validation,
 * defaults and the reference in docs/profiles.md (a unit test checks that the
 * document names every key and runs profile_key_check() over every entry).
 */
enum profile_key_type {
	PROFILE_KEY_STRING,   /* any non-empty text */
	PROFILE_KEY_CHOICE,   /* one of choices[] */
	PROFILE_KEY_DURATION, /* unit_parse_duration(); min/max in ns */
	PROFILE_KEY_SIZE,     /* unit_parse_size(); min/max in bytes */
	PROFILE_KEY_PERCENT,  /* unit_parse_percent(); min/max in whole percent */
	PROFILE_KEY_U64,      /* unit_parse_u64() */
	PROFILE_KEY_BOOL,     /* unit_parse_bool() */
	PROFILE_KEY_NUMBER,   /* a decimal number (0.06, 1.5); min/max whole numbers */
};

/* Where a key's value is stored (the field's C type). */
enum profile_key_store {
	PROFILE_STORE_STR,    /* char *, owned */
	PROFILE_STORE_CHARS,  /* char[size], NUL-terminated */
	PROFILE_STORE_TYPE,   /* an enum field: the index in choices[] */
	PROFILE_STORE_U64,    /* uint64_t */
	PROFILE_STORE_U32,    /* uint32_t */
	PROFILE_STORE_UINT,   /* unsigned int */
	PROFILE_STORE_DOUBLE, /* double */
	PROFILE_STORE_BOOL,   /* bool */
};

struct profile_key {
	const char *section; /* "test", ..., "volume" (fields of struct profile_volume) */
	const char *name;
	enum profile_key_type type;
	enum profile_key_store store;
	size_t offset;	   /* in struct profile, or struct profile_volume for "volume" */
	size_t size;	   /* sizeof the field */
	uint64_t min, max; /* inclusive bounds of numeric types */
	uint64_t multiple; /* value must be a multiple of it; 0 = any */
	bool pow2;	   /* value must be a power of two */
	/* listed in a run's parameters only when not at its default (keys
	 * added after the reports' golden files: a run that does not use them
	 * lists what it listed before) */
	bool listed_when_set;
	bool required;		    /* the section is invalid without it */
	bool allow_auto;	    /* "auto" is a value too (stored as the type's maximum) */
	const char *const *choices; /* PROFILE_KEY_CHOICE: NULL-terminated */
	const char *def;	    /* default as a profile would spell it; NULL = none/derived */
	const char *help;	    /* one sentence, for docs and error hints */
};

/* The key table, in section order, and the section names ("volume" last). */
const struct profile_key *profile_keys(size_t *count);
const char *const *profile_sections(size_t *count);

/* Checks one table entry: known section, bounds consistent with the store,
 * default parses and is in range, choices present. 0 or -EINVAL with why. */
int profile_key_check(const struct profile_key *k, struct strbuf *err);

#endif
