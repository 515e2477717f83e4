/* SPDX-License-Identifier: MIT */
/*
 * run.h - one run, from a validated profile to a finished row in the results
 * file: lays out the files, starts the workers (one per CPU by default, each
 * with its own engine context and databases), runs the coordinator (interval
 * merges, store writes, stop and signal handling), judges the run and stores
 * the verdicts.
 *
 * With an ENGINE_F_OWN_CLOCK engine (sim) the same worker and coordinator code
 * runs as one discrete-event loop on the engine's virtual clock: one worker,
 * intervals, warm-up and duration in virtual time.
 *
 * Nothing here prints: progress reaches the caller through callbacks.
 */
#ifndef DISKPROOF_RUN_H
#define DISKPROOF_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "diskproof/profile.h"
#include "diskproof/stats.h"
#include "diskproof/util.h"

/* Exit codes, ARCHITECTURE.md; precedence 130/143, then 4, then 3, then 1,
 * then 5. 5 is a result, not an error: the run (or a compare gate) could not
 * conclude, e.g. its reads did not reach the device. */
enum dp_exit {
	DP_EXIT_OK = 0,
	DP_EXIT_FAIL = 1,
	DP_EXIT_USAGE = 2,
	DP_EXIT_ENV = 3,
	DP_EXIT_INTEGRITY = 4,
	DP_EXIT_INCONCLUSIVE = 5,
	DP_EXIT_SIGINT = 130,
	DP_EXIT_SIGTERM = 143,
};

/* What a run's outcome says about its exit code (run_exit_code). */
struct run_exit_facts {
	int signal;	   /* the SIGINT or SIGTERM that stopped it (another: as SIGTERM); 0 */
	bool integrity;	   /* data integrity errors were found */
	bool env_error;	   /* an environment error: engine, journal, volume, results file */
	bool passed;	   /* every verdict passed */
	bool inconclusive; /* the results cannot be concluded on (not plausible) */
};

/*
 * The one rule for a run's exit code (enum dp_exit), pure: 130 for SIGINT or
 * 143 for SIGTERM, else 4 with integrity errors, else 3 with an environment
 * error, else 1 unless every verdict passed, else 5 when the results are
 * inconclusive, else 0.
 */
int run_exit_code(const struct run_exit_facts *f);

/*
 * Of two exit codes, the one the precedence above puts first (130 and 143,
 * the first given of them; then 4, 3, 2, 1, 5, 0): a series' code from its
 * runs' (run --repeat N), so that one failed run is not hidden by the
 * others' passes and an inconclusive one only counts where none failed.
 */
int run_exit_worst(int a, int b);

/* One volume's figures of the interval just merged (the live view). */
struct run_volume_view {
	const char *name; /* the volume's */
	double iops[IO_CLASS_COUNT];
	double avg_ms[IO_CLASS_COUNT];
	double p99_ms[IO_CLASS_COUNT];
	uint64_t errors;	   /* I/O errors so far, all classes */
	uint64_t integrity_errors; /* so far */
	/* so far (the running verdict, see run_interval_view), measured time
	 * only: per class the maximum the final verdict's max criterion judges
	 * (with max_basis = sample the highest sample average, else, or for a
	 * class without a sample figure, the slowest I/O), and the slowest
	 * single I/O; NAN for a class without measured I/O yet (or when
	 * v->judged is false) */
	double max_ms[IO_CLASS_COUNT];
	double max_io_ms[IO_CLASS_COUNT];
	/* a so-far verdict of the volume or of one of its databases failed:
	 * the volume would fail if the run ended now */
	bool would_fail;
};

struct verdict;

/*
 * The interval just merged, for the live view (and any other observer of
 * the coordinator). Figures are the interval's unless said "so far".
 *
 * The running verdict ("so far"): after every merged interval the
 * coordinator judges the run exactly as its final verdict will be judged
 * (the same eval_judge on inputs built the same way, run_judge in src/run),
 * on the totals of the measured time so far. The warm-up is treated as the
 * final verdict treats it: its latencies are never judged (during the
 * warm-up no class has measured I/O, so only io_errors and
 * integrity_errors, which count from the start, are judged), its I/O
 * errors and integrity errors count. A maximum judged on samples counts the
 * sample still open with what it has so far. One difference: a backup or
 * recovery pass still running is not judged (pass_done_pct) until the
 * run's end, since it is not failing, only unfinished. An interrupted run
 * is not judged at its end (no verdict is stored) whatever it said so far.
 * Auto-tune's levels are not judged: judged is false while tuning.
 */
struct run_interval_view {
	unsigned index;
	bool last; /* the run's last interval (or the last before its stop) */
	bool warmup;
	bool draining;		 /* stopping: in-flight I/O drains, nothing new is issued */
	uint64_t elapsed_ns;	 /* since the run started (virtual with sim) */
	uint64_t total_ns;	 /* warm-up + duration */
	unsigned tuning_streams; /* auto-tune: the level being measured; 0 otherwise */
	double iops[IO_CLASS_COUNT];
	double avg_ms[IO_CLASS_COUNT];
	double p99_ms[IO_CLASS_COUNT];
	uint64_t errors;	   /* I/O errors so far */
	uint64_t integrity_errors; /* so far */
	/* per volume, in profile order; valid during the callback only (NULL
	 * and 0 when it could not be built) */
	const struct run_volume_view *vols;
	size_t nr_vols;
	/* the average thresholds the live view colours against, and the
	 * maxima its max column is coloured against */
	double db_read_avg_ms, log_write_avg_ms;
	double db_read_max_ms, log_write_max_ms;
	/* what max_ms is: the highest average over one sample of sample_s
	 * seconds (max_basis = sample; NAN until a sample is complete), else
	 * the slowest single I/O; the live view names its column so */
	bool max_is_sample;
	double sample_s;
	/* the running verdict (above): judged false when there is none this
	 * interval (auto-tune, out of memory; verdicts NULL, nr_verdicts 0);
	 * verdicts in eval_judge's order (databases, volumes, the run), the
	 * same struct verdict the final judgement stores, valid during the
	 * callback only; would_pass: every one passed */
	bool judged;
	bool would_pass;
	const struct verdict *verdicts;
	size_t nr_verdicts;
	double max_ms[IO_CLASS_COUNT];	  /* the run's, as run_volume_view's */
	double max_io_ms[IO_CLASS_COUNT]; /* the run's slowest I/O so far */
};

/*
 * The first failed so-far verdict of volume `volume` (its own, or one of
 * its databases', before the databases_failed roll-up), or of the whole run
 * when volume is NULL (before the volumes_failed roll-up); NULL when none
 * failed or v->judged is false. For a line that says which criterion would
 * fail ("vol1 db1 db_read_max_sample_avg_ms").
 */
const struct verdict *run_view_failure(const struct run_interval_view *v, const char *volume);

struct run_callbacks {
	/* once per interval, from the coordinator */
	void (*interval)(void *arg, const struct run_interval_view *v);
	/* a line of progress ("creating db1.edb ...", "stopping ...") */
	void (*message)(void *arg, const char *text);
	/* what must be said even with no progress shown, one or more lines
	 * (the locks --no-lock went without) */
	void (*warning)(void *arg, const char *text);
	/* file creation progress */
	void (*create)(void *arg, const char *file, uint64_t done, uint64_t total);
	/* SIGHUP came through signal_fd (a terminal or SSH session hung up):
	 * the run goes on to its normal end; called once, at the first one,
	 * before its "hangup" event is stored (a later one does nothing) */
	void (*hangup)(void *arg);
	/* SIGUSR1 came through signal_fd: a status line is asked for. v is the
	 * view of the last interval merged, as interval() had it (so far
	 * figures included), valid during the call only; NULL before the
	 * first interval (files being created, the run starting) */
	void (*status)(void *arg, const struct run_interval_view *v);
	/* run --start-at: everything is ready and the run waits for
	 * start_at_real_ns (CLOCK_REALTIME ns); called as the wait begins and
	 * then about 5 times a second with the time now, and once more with
	 * now_real_ns 0 when the wait ends (the load begins or it was
	 * interrupted), for a countdown */
	void (*wait)(void *arg, uint64_t start_at_real_ns, uint64_t now_real_ns);
	void *arg;
};

/* --max-clock-error's default: a fleet's runs aligned within some 50 ms are
 * aligned well against 1 s intervals and 15 s samples */
#define RUN_MAX_CLOCK_ERROR_DEFAULT_NS (50 * NSEC_PER_MSEC)
/* --start-at further ahead than this is refused: a fleet's lead is minutes,
 * and a week or more is a wrong year or month typed, which would leave the
 * run waiting, files created, for months */
#define RUN_START_AT_MAX_AHEAD_NS (7ULL * 24 * 3600 * NSEC_PER_SEC)

/* --start-timeout's default: long enough for the slowest host of a fleet
 * to lay out its files the first time, short enough that a run whose
 * start instant never comes does not hold its volumes for a day */
#define RUN_START_TIMEOUT_DEFAULT_NS (3600ULL * NSEC_PER_SEC)

/*
 * What a start file (--start-file) holds, text as read: surrounding white
 * space ignored; empty: not written yet (-EAGAIN); "cancel": 1, the run is
 * to stop; a TIME as --start-at takes it (time_parse_start_at: RFC 3339
 * UTC, or +D counted from now_real_ns): 0 and *at the instant, refused
 * (-EINVAL, why filled) when more than RUN_START_AT_MAX_AHEAD_NS ahead;
 * anything else -EINVAL with why filled.
 */
int run_start_text_parse(const char *text, uint64_t now_real_ns, uint64_t *at, struct strbuf *why);

/* The first bytes of every ready record (--ready-file): a file that starts
 * otherwise is not one, and is never replaced or removed. */
#define RUN_READY_MAGIC "{\"diskproof_ready\": 1"

/*
 * run --repeat N: a run's place in its series (run.series_*, schema 10).
 * uuid "" for the series' first run: the store makes one as the run row is
 * written and run_execute fills it in here, for the next runs to pass on.
 */
struct run_series {
	char uuid[40];
	unsigned index; /* 1..size */
	unsigned size;	/* N */
};

struct run_options {
	const struct profile *profile; /* validated, overrides applied */
	const char *results_path;
	const char *label;	  /* may be NULL */
	const char *command_line; /* as typed, for the run row */
	/* signalfd, or -1: SIGINT and SIGTERM stop the run (any signal but
	 * those below stops it as SIGTERM); SIGHUP and SIGUSR1, when the set
	 * has them, reach cb.hangup and cb.status and the run goes on */
	int signal_fd;
	const char *const *destroy; /* --destroy-data: files that may be overwritten */
	size_t ndestroy;
	bool force; /* --force: a named device may be overwritten despite a signature */
	/* --no-lock: a volume lock that cannot be taken is gone without
	 * (PLAN_LOCK_BEST_EFFORT): said through cb.warning and stored as a
	 * "lock" event of the run */
	bool no_lock;
	/* may be NULL: receives what --destroy-data re-created ("PATH, PATH,
	 * DEV (the whole device)"), appended; owned by the caller */
	struct strbuf *remade;
	/* --metrics [ADDR:]PORT: serve Prometheus text at /metrics (bound before
	 * anything is written); --metrics-file PATH: the same text as a
	 * node_exporter textfile, replaced every interval. NULL: none. */
	const char *metrics;
	const char *metrics_file;
	/* or a server the caller started (and stops: run --metrics-linger
	 * keeps it serving the final text after the run, and a series' runs
	 * share one): the run publishes to it, metrics is not bound. NULL:
	 * none. */
	struct metrics_server *metrics_server;
	/* --host NAME: run.host instead of gethostname() (NULL: that) */
	const char *host;
	/* --start-at: the load (warm-up, or auto-tune's first level) begins at
	 * this CLOCK_REALTIME instant, ns since the epoch, once everything
	 * else is ready; 0: at once. A run not ready by then ends as an
	 * environment error (exit 3) with nothing measured. */
	uint64_t start_at_real_ns;
	/* --ready-file PATH: once everything but the load is ready, a ready
	 * record (run_ready_record) replaces PATH atomically. NULL: none. */
	const char *ready_file;
	/* --start-file PATH: once ready, the run polls PATH until it holds a
	 * start TIME (run_start_text_parse), then waits for it as for
	 * start_at_real_ns (0 then); an instant already past starts the load
	 * at once, recorded late. No TIME within start_timeout_ns of being
	 * ready, or "cancel" in PATH: an environment error (exit 3), nothing
	 * measured. Leftovers at both paths are removed as the run begins
	 * (a file that is not one is refused, exit 3). NULL: none. */
	const char *start_file;
	uint64_t start_timeout_ns; /* 0: RUN_START_TIMEOUT_DEFAULT_NS */
	/* --max-clock-error: with start_at, a clock not synchronised or with
	 * a larger maximum error (adjtimex) is warned of and recorded as a
	 * "clock" event */
	uint64_t max_clock_error_ns;
	/* run --repeat N: the series this run is part of; NULL outside one */
	struct run_series *series;
	struct run_callbacks cb;
	/* the measured window begins (end false: the load starts, or the
	 * warm-up's last interval is collected) and ends (its last interval is
	 * collected), with the monotonic time; from the coordinator, on a real
	 * run and never while auto-tune measures a level. A run's own
	 * fingerprint (learn_run_watch_mark, docs/learn.md). NULL: none. */
	void (*window)(void *arg, bool end, uint64_t mono_ns);
	void *window_arg;
};

struct run_outcome {
	int64_t run_id;	    /* 0 when no run row was written */
	int exit_code;	    /* enum dp_exit */
	const char *status; /* passed|failed|aborted|error */
	uint64_t integrity_errors;
	uint64_t io_errors;
	/* a second signal cut the drain short: worker threads may still be
	 * running, so the caller must exit the process at once (_exit) */
	bool abandoned;
	/* I/Os the device never completed (a hung device): the kernel may keep
	 * the process from exiting until the device answers */
	uint64_t pending_ios;
};

/*
 * Executes the run. Returns 0 when a run row was finished (whatever its
 * verdict: see out->exit_code), or -errno when the run could not start or
 * could not be recorded, with the reason in err and out->exit_code set
 * (2 for profile problems found only now, 3 for environment or resources).
 */
int run_execute(const struct run_options *o, struct run_outcome *out, struct strbuf *err);

struct plan;
/*
 * What a run of the plan keeps in memory, as an upper bound (the formula is
 * at run_memory_estimate() in run/memory.c): per page of every database, per
 * database, the I/O buffers, and the rest. cpus is the number of online
 * CPUs (the default worker count).
 */
struct run_memory {
	uint64_t pages;	    /* per-page maps */
	uint64_t databases; /* per-database state: statistics, log and dirty rings */
	uint64_t buffers;   /* I/O buffers of every stream, flusher, log and scan */
	uint64_t other;	    /* once per run: program, SQLite, journal copies */
	uint64_t total;
};

void run_memory_estimate(const struct plan *pl, const struct profile *p, unsigned cpus,
			 struct run_memory *m);

#endif
