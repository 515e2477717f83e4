/* SPDX-License-Identifier: MIT */
/*
 * run_internal.h - what the files of src/run/ share: the run, worker,
 * database, slot and snapshot structs, the interval grid, and the calls
 * between the files (each says where it lives). Private to src/run/.
 *
 * Workers own their databases, engine context, request slots and interval
 * snapshots. Each completion is accounted into the snapshot of the interval
 * its completion time falls in; when a worker's clock passes an interval's
 * end it publishes that snapshot (an atomic counter, release) and moves to
 * the next of RUN_SLOTS snapshots, waiting only if the coordinator is that
 * many intervals behind. The coordinator merges published snapshots per
 * volume and run, writes them to the store (one transaction per interval)
 * and hands the slot back (another atomic counter). Workers never touch
 * SQLite; the coordinator never issues data I/O.
 *
 * Streams (the profile's global count) are a pool: each worker carries its
 * share (plan/workers.c) and each stream takes a database per unit of work
 * (workload/txn.c); the stream time each database had in an interval goes
 * into the snapshot (snap.stream_ns) for its time-averaged streams.
 * What each stream, flusher, log writer, replication or scan slot asks for
 * is src/workload/'s (diskproof/workload.h): a worker reaches its generators
 * through its struct wl_ctx only, which sees the worker's databases and
 * slots, never the worker or the run.
 *
 * Every read page is checked against the generation this run last wrote to it
 * (pages of files that existed before the run are learnt on first read).
 */

#ifndef DISKPROOF_RUN_INTERNAL_H
#define DISKPROOF_RUN_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "diskproof/driver.h"
#include "diskproof/engine.h"
#include "diskproof/env.h"
#include "diskproof/eval.h"
#include "diskproof/journal.h"
#include "diskproof/metrics.h"
#include "diskproof/plan.h"
#include "diskproof/run.h"
#include "diskproof/stats.h"
#include "diskproof/store.h"
#include "diskproof/witness.h"
#include "diskproof/workload.h"

#include "reach.h"

struct tuner;
struct host_sampler;
struct metrics_server;
struct jchan;

#define RUN_INTERVAL_NS NSEC_PER_SEC
#define RUN_SLOTS 8
#define RUN_DB_SAMPLE_EVERY 15
#define RUN_REAP_WAIT_NS (100 * NSEC_PER_MSEC)
#define RUN_DRAIN_NS (5 * NSEC_PER_SEC)
/* sim: the virtual time a worker's turn of transactions from the cache model
 * (no I/O; WL_CACHED_TXNS = 16 per stream) takes, a CPU's cost: 16,000 per
 * second per stream, about a database's pace for a cached read-only one */
#define RUN_VIRT_BUSY_NS (1 * NSEC_PER_MSEC)
/* the drain once an I/O has hung: what is not done by then waits on the same
 * device, and the verdict is due within io_timeout plus a few seconds */
#define RUN_DRAIN_HUNG_NS (1 * NSEC_PER_SEC)
/* error messages (bad pages, failed and hung I/Os) stored per run, each as
 * an event; past that they are counted, exactly, and the count is stored */
#define RUN_EVENTS_MAX 10000u
#define RUN_MSG_LEN 200
/* journal the expected generations every this many intervals */
#define RUN_JOURNAL_EVERY 60

/* The interval grid: warm-up chunks from t0, then measurement chunks from
 * t0 + warmup, so no interval mixes the two. */
struct grid {
	uint64_t t0, warmup, duration, interval;
	unsigned nw;   /* warm-up intervals */
	unsigned last; /* index of the last interval */
};

static inline void grid_init(struct grid *g, uint64_t t0, uint64_t warmup, uint64_t duration)
{
	g->t0 = t0;
	g->warmup = warmup;
	g->duration = duration;
	g->interval = RUN_INTERVAL_NS;
	g->nw = (unsigned)((warmup + g->interval - 1) / g->interval);
	g->last = g->nw + (unsigned)((duration + g->interval - 1) / g->interval) - 1;
}

static inline unsigned grid_index(const struct grid *g, uint64_t t, unsigned last)
{
	uint64_t k;

	if (t < g->t0)
		return 0;
	if (t < g->t0 + g->warmup)
		k = (t - g->t0) / g->interval;
	else
		k = g->nw + (t - g->t0 - g->warmup) / g->interval;
	return k > last ? last : (unsigned)k;
}

static inline uint64_t grid_start(const struct grid *g, unsigned k)
{
	if (k < g->nw)
		return g->t0 + (uint64_t)k * g->interval;
	return g->t0 + g->warmup + (uint64_t)(k - g->nw) * g->interval;
}

static inline uint64_t grid_end(const struct grid *g, unsigned k)
{
	uint64_t e;

	if (k < g->nw) {
		e = g->t0 + (uint64_t)(k + 1) * g->interval;
		return e > g->t0 + g->warmup ? g->t0 + g->warmup : e;
	}
	e = g->t0 + g->warmup + (uint64_t)(k - g->nw + 1) * g->interval;
	return e > g->t0 + g->warmup + g->duration ? g->t0 + g->warmup + g->duration : e;
}

/* A page read whose check waits until the stream that read it has been
 * issued again (see worker_verify_pending). */
struct pending_verify {
	void *buf;
	int32_t buf_index;
	unsigned db;
	uint64_t page, off, t_done;
};

/* One database's transactions and durable commits (wl_db.txn.ended,
 * wl_db.log.commits) over an interval, or measured in all. */
struct txn_count {
	uint64_t txns, log_commits;
};

struct snap {
	struct class_stats32 *cs; /* ndb * IO_CLASS_COUNT */
	struct stats_arena arena; /* cs's bucket groups */
	uint64_t *integrity;	  /* ndb */
	uint64_t *stream_ns;	  /* ndb: stream time in the interval (streams x ns) */
	uint64_t *stalls;	  /* ndb: page fault stalls (wl_db.txn.stalls) */
	struct txn_count *txn;	  /* ndb: transactions and durable commits */
	/* open loop only (NULL closed loop): ndb, each database's page reads'
	 * response times, from their transaction's intended start (the
	 * latencies in cs are service times, from the submission), on an
	 * arena of their own */
	struct class_stats32 *resp;
	struct stats_arena resp_arena;
	/* open loop only: the tool's own queue over the interval (its peak,
	 * backlog x ns, ns with a backlog) and the streams at work at its end */
	struct wl_backlog_iv backlog;
	uint64_t hung; /* I/Os found pending past io_timeout in this interval */
	/* this interval's error messages: grown on the error path (never on
	 * the I/O path), up to the run's RUN_EVENTS_MAX over every worker */
	char (*msgs)[RUN_MSG_LEN];
	unsigned nmsgs, msgs_cap;
	unsigned dropped_msgs;
	atomic_uint_fast64_t *kept; /* the run's messages kept so far */
};

struct run;

/*
 * The sample maxima of max_basis = sample and the page fault stalls
 * (samples.c): the measured intervals' latency sums, merged per sample of
 * `every` intervals for each scope and class, the highest sample average so
 * far, and the stalls counted. Scopes as run_totals.sums: [0] the run,
 * [1..nv] the volumes, then the databases.
 */
struct smp_acc {
	uint64_t n, sum_ns; /* the current sample's I/Os and their latency sum */
	double max_ms;	    /* the highest sample average so far; NAN: no sample had I/O */
};

struct run_samples {
	unsigned every; /* intervals per sample */
	unsigned len;	/* intervals in the current sample */
	size_t nscopes;
	struct smp_acc *acc; /* nscopes * IO_CLASS_COUNT */
	uint64_t *stalls;    /* nscopes: measured page fault stalls */
};

/* Running statistics of window averages. */
struct win_acc {
	unsigned n;
	double sum, sumsq, max;
};

/* A worker's acknowledgements not sent yet (durability.c). */
struct worker_acks {
	struct witness_ack *a;
	size_t n, cap;
};

struct worker {
	struct run *run;
	unsigned index;
	struct wl_db *dbs;
	unsigned ndb;
	struct wl_slot *slots;
	unsigned nslots;
	struct wl_ctx wl; /* its generators' narrow context (over dbs and slots) */
	const struct engine_ops *ops;
	struct engine_ctx ctx;
	struct engine_drv drv; /* the one driver of ops over ctx (driver.h) */
	int *fds;
	struct engine_file *files;
	/* sim engine: ctx.nr_devices models, then [sim]'s (ctx.sim); owned */
	struct engine_sim_model *sim_devs;
	struct iovec *iov;
	/* every slot's and spare's page buffer, carved from one mapping made
	 * resident at setup (MAP_POPULATE: no page faults while measuring) */
	void *bufmap;
	size_t bufmap_len;
	/* verify after re-issue: spare page buffers (registered after the
	 * slots' own) and the reads waiting for their check */
	void **spare;
	int32_t *spare_index;
	unsigned nspare;
	struct pending_verify *pv;
	unsigned npv;
	struct snap snaps[RUN_SLOTS];
	unsigned cur;
	atomic_uint published;
	atomic_uint consumed;
	/* called with each interval the worker publishes, on its own thread:
	 * on virtual time the coordinator merges it there and then (run.c sets
	 * it); NULL with threads, where the coordinator watches published */
	void (*on_publish)(void *arg, unsigned k);
	void *on_publish_arg;
	bool stopping;
	bool done; /* backup: every database read */
	uint64_t stop_at;
	uint32_t *jcopy;       /* expected generations copied for the periodic journal */
	uint64_t *stream_prev; /* ndb: each database's stream time at the last publish */
	int fatal;	       /* engine error that ended this worker */
	atomic_bool fatal_seen;
	char fatal_msg[256];
	pthread_t thread;
	bool thread_started;
	/* 0 running; 1 done, the thread exits; 2 done with I/O the device never
	 * completed: the thread stays parked, since a thread that submitted
	 * io_uring requests waits in its exit for them, and a join would hang
	 * the coordinator before the verdict */
	atomic_int exit_state;
	struct env_numa_worker numa; /* where it runs (the affinity setting) */
	struct worker_acks acks;     /* durability: acknowledgements to send */
};

/* Whole-run totals per scope, as the store and eval take them. */
struct run_totals {
	struct class_stats *vol_cs;  /* volumes, then the run: (nv + 1) * classes */
	struct class_stats *resp_cs; /* open loop: volumes' then the run's db_read response */
	struct scope_summary *sums;  /* [0] run, [1..nv] volumes, then databases */
	struct store_scope_total *totals;
	size_t nt;
};

/*
 * struct run is the run's shared core (what every file reads: options,
 * profile, plan, engine, clock, grid, workers) and one sub-struct per job,
 * each declared here, before struct run that holds it by value, with the
 * file that owns it: who writes it, who reads it. They are sections of this
 * header rather than a header each because struct run embeds them (no
 * allocation, no pointer between a worker and the stop flag it polls), so
 * every file of src/run/ sees them all anyway; what a section's comment
 * says is the contract.
 */

/*
 * The run's control (coord.c): the stop and why, the health the workers
 * report, and SIGHUP. The coordinator writes it but where a field says
 * otherwise; workers read stop and last; finish.c, tune.c, start.c,
 * handshake.c and run.c read the reasons (and set env_failed where their
 * own step fails).
 */
struct run_ctl {
	atomic_uint last; /* last interval; lowered when stopping early */
	atomic_bool stop;
	atomic_bool hung;		  /* the coordinator saw a hung I/O: drain briefly */
	atomic_uint_fast64_t errors_seen; /* I/O errors so far, bumped by workers */
	/* a write failed for lack of space: set by workers (release), read by
	 * coord_check_errors() (acquire), which ends the run */
	atomic_bool nospace;
	atomic_uint_fast64_t msgs_kept; /* error messages kept (RUN_EVENTS_MAX) */
	atomic_uint workers_done;	/* backup: workers that read all they had */
	bool completed;			/* backup: ended when everything was read */
	int signal;			/* the signal that stopped the run; 0: none */
	char reason[256];		/* why the run stopped early, when not a signal */
	bool hung_seen;			/* an I/O hung: nothing more goes to the volumes */
	bool env_failed;		/* stopped by an environment fault (exit 3) */
	bool abandoned;			/* a second signal: finish the row, leave at once */
	uint64_t time;			/* when the stop came (the run's clock); 0: none */
	/* SIGHUP: the first one's time (the events' run clock, and the wall
	 * clock); its event waits for the run row when it came before it */
	bool hangup, hangup_stored;
	uint64_t hangup_ms, hangup_real_ns;
};

/*
 * The coordinator's merge state (coord.c; coord_init, coord_reset and
 * coord_release own its allocations). Written by coord_collect on the
 * coordinator only; read by totals.c (the totals and windows), metrics.c
 * (totals per database), tune.c (the window per database, this
 * interval's run figures) and finish.c (the error counts).
 */
struct run_coord {
	struct class_stats *tot_db; /* measured totals, ndb * classes */
	/* open loop only (NULL closed loop): measured response times of each
	 * database's page reads, ndb (snap.resp merged) */
	struct class_stats *resp_db;
	uint64_t *integ_db;	   /* integrity errors per database */
	uint64_t *stream_db;	   /* measured stream time per database (streams x ns) */
	struct txn_count *txn_db;  /* measured transactions per database */
	struct txn_count *txn_win; /* per database, the current sample window */
	struct txn_count *txn_iv;  /* this interval: the run's, then each volume's */
	/* open loop, this interval: every worker's backlog (peaks, areas and
	 * streams summed; the longest time with a backlog) */
	struct wl_backlog_iv backlog_iv;
	struct class_stats *win_db;  /* the current database sample window */
	struct class_stats *win_vol; /* the same window per volume, for its histograms */
	unsigned win_len;
	struct class_stats *iv_vol; /* this interval, per volume */
	struct class_stats iv_run[IO_CLASS_COUNT];
	struct store_sample *rows;
	size_t rows_cap;
	/* the measured 15 s windows' averages, per database, volume and the run
	 * (x classes), for the per-interval and dispersion criteria */
	struct win_acc *wacc_db, *wacc_vol, *wacc_run;
	uint64_t io_errors, integrity_errors;
	uint64_t msgs_dropped; /* error messages past RUN_EVENTS_MAX, counted */
	unsigned collected;    /* intervals merged so far */
	/* the running verdict (coord_judge, each measured or warm-up interval
	 * but auto-tune's): the totals so far and their verdicts, judged as
	 * the final verdict judges them (run_judge); judged false when none */
	struct run_totals sofar;
	struct verdict *sofar_v;
	size_t nr_sofar_v;
	bool sofar_judged;
};

/* coord.c */
/* coord_init: the merge state for ndb databases on nv volumes, zeroed
 * (with the response times' when open_loop: arrival = rate);
 * -ENOMEM when an allocation failed (coord_release frees what was made).
 * coord_reset: the main test's figures start afresh after auto-tune's
 * levels; the I/O errors seen while tuning stay counted. coord_release:
 * frees it all; safe twice. */
int coord_init(struct run_coord *c, size_t ndb, size_t nv, bool open_loop) DP_MUST_CHECK;
void coord_reset(struct run_coord *c, size_t ndb, size_t nv);
void coord_release(struct run_coord *c);
void coord_store_error(struct run *r, int ret);
void coord_check_fatal(struct run *r);
bool coord_check_errors(struct run *r);
void coord_collect(struct run *r, unsigned k);
void coord_stop(struct run *r, int signo, const char *reason);
void coord_check_signal(struct run *r, int timeout_ms);
void coord_hangup_event(struct run *r);
void run_event(struct run *r, const char *kind, const char *msg);
uint64_t run_clock_ms(const struct run *r, uint64_t t);
/* Tells the store when the grid just started began on the wall clock (now;
 * on virtual time none: a nominal clock from the run's start) and the run
 * clock's time before it (ev_base_ns), so that the rows' time_utc are the
 * times of their offsets (store_run_clock). */
void run_clock_record(struct run *r);
void run_env_fact(void *arg, const char *key, const char *value);
void run_env_record(struct run *r);
void run_open_host_sampler(struct run *r);

/*
 * The journals (journals.c): written by journals.c, but notes and noted,
 * which the journals' load in setup.c fills; run.c records the notes as
 * events, finish.c reads failed and err.
 */
struct run_journals {
	struct strbuf notes; /* per database, once each: a journal not used
			      * as it is (damaged, foreign, from an unclean end) */
	bool *noted;	     /* nr_dbs: the database has its note */
	bool *rewrite;	     /* nr_dbs: its journal was not loaded as it is on
			      * disk, so the mark rewrites it whole */
	struct strbuf err;   /* the first journal that could not be written */
	bool failed;	     /* a journal write failed: exit 3 */
	bool marked;	     /* marked in progress: the final write is due */
	/* the periodic journal writes, on a thread of their own so that a
	 * volume that hangs under them never holds up the coordinator (and so
	 * the verdict); shared with that thread, which may outlive the run */
	struct jchan *chan;
};

/* journals.c */
int run_write_journals(struct run *r, bool from_copies, bool clean);
void journals_thread_poll(struct run *r);
void journals_thread_ask(struct run *r);
int journals_thread_start(struct run *r);
void journals_thread_stop(struct run *r);
int run_mark_journals(struct run *r);

/*
 * Auto-tune (tune.c): the search, and the level being measured. Written by
 * tune.c; coord.c and metrics.c read tuner (non-NULL while tuning) and
 * coord.c ev_base_ns.
 */
struct run_tune {
	struct tuner *tuner;
	unsigned nint; /* intervals in the current window */
	unsigned win;  /* intervals per window */
	int state;     /* enum tune_next of the last window */
	/* the events' run clock at grid.t0: the time auto-tune's levels took
	 * before the one measured (or before the main test), so that tuning and
	 * main test read in one order; 0 for a run that does not tune */
	uint64_t ev_base_ns;
	/* the level the main test runs at, as auto-tune measured it: judged by
	 * the run's verdicts (run_judge) when settle_known; set by run_autotune */
	struct eval_autotune settle;
	bool settle_known;
};

/* tune.c */
void tune_interval(struct run *r, unsigned k);
int run_autotune(struct run *r, struct tuner *t, struct strbuf *err);

/*
 * The fleet start (start.c, handshake.c): written by them, timeout_ns by
 * run.c from the options.
 */
struct run_start {
	/* the load began (start.c): when, on CLOCK_REALTIME */
	bool load_started, load_recorded;
	uint64_t load_real_ns;
	/* the instant the load was to begin (--start-at, or the TIME read
	 * from --start-file: handshake.c), CLOCK_REALTIME; 0: at once */
	uint64_t at_ns;
	uint64_t timeout_ns; /* --start-timeout, its default applied */
	bool waited;	     /* run_start_wait's first call was made */
};

/*
 * run --start-at (start.c). run_start_wait, called once everything but the
 * load is ready (the first call only counts: auto-tune's later levels go
 * on at once): with --start-at, the clock's state is checked against
 * --max-clock-error (a "clock" event when it is worse), then the run sleeps
 * until the instant, signals answered. false to go on; true when the run
 * stopped instead (a signal: r->ctl.signal; not ready in time: env_failed
 * and the stop reason saying how late): nothing is measured, run_finish
 * next. run_load_begin, right before the load's grid starts, takes the
 * instant, for every run; run_load_record stores it (store_run_load_started,
 * and a "start_at" event with --start-at) once the load is under way, so
 * that no SQLite write delays the start (the first call only counts; a
 * no-op before run_load_begin).
 */
bool run_start_wait(struct run *r);
/*
 * run --ready-file and --start-file (handshake.c). run_handshake_open, before
 * anything is written: the paths' directories exist, and what an earlier
 * run left there is removed (a ready record; a start file's TIME or cancel);
 * anything else at either path is refused (-EEXIST, err filled), as is a
 * directory missing (-ENOENT) or not writable (-EACCES).
 * run_handshake_ready, once ready (now, CLOCK_REALTIME): the ready record
 * replaces the ready file, a "ready" event and message say so; false to go
 * on, true when it could not be written (the run stopped, env_failed).
 * run_handshake_wait: polls the start file until it holds a TIME
 * (r->start.at_ns), signals answered; true when the run stopped instead
 * (a signal, "cancel", a bad TIME, no TIME within r->start.timeout_ns).
 */
int run_handshake_open(const struct run_options *o, struct strbuf *err);
bool run_handshake_ready(struct run *r, uint64_t now);
bool run_handshake_wait(struct run *r);
void run_load_begin(struct run *r);
void run_load_record(struct run *r);

/*
 * The results file (run.c opens it and makes the run row; every writer on
 * the coordinator's thread writes through it). failed and err: the first
 * write that failed (coord_store_error sets failed and stops the run);
 * nothing more is written once failed.
 */
struct run_store {
	struct store *st;
	int64_t run_id;
	bool failed;
	struct strbuf err;
	struct host_sampler *host; /* host counters per interval (coord.c); NULL: none */
};

/*
 * What the host counters saw of each device over the measured intervals
 * (reach.c): coord.c adds each measured interval's sample (run_reach_add),
 * finish.c judges it (run_reach_finish). dev[i] is the sampler's row i.
 */
struct run_reach_dev {
	char name[32]; /* HOST_DEV_NAME_MAX */
	uint64_t reads, read_bytes, writes;
	unsigned seen; /* measured intervals it was in */
};

struct run_reach {
	size_t n;
	struct run_reach_dev *dev;
	unsigned intervals; /* measured intervals sampled */
	bool lost;	    /* a measured interval's counters could not be read */
	bool failed;	    /* out of memory: not judged */
};

/*
 * --metrics and --metrics-file (metrics.c): the text the coordinator
 * builds, the server that serves it, and the run's identity in it. Written
 * by metrics.c (hostname and started_real_ns by run.c once the run row is
 * made); handshake.c reads hostname for the ready record.
 */
/*
 * The kernel log capture (kmsg.c): /dev/kmsg opened non-blocking at the
 * run's start, polled by the coordinator each interval and at the end; the
 * lines naming one of the run's devices become "kernel" events. Owned by
 * kmsg.c; open is false where nothing is read (a sim run, no device, the
 * log not readable: an event says so).
 */
#define RUN_KMSG_DEVS 16
#define RUN_KMSG_EVENTS_MAX 200

struct run_kmsg {
	bool open;
	int fd;
	char devs[RUN_KMSG_DEVS][ENV_NAME_MAX];
	size_t ndev;
	unsigned stored;   /* kernel events stored */
	uint64_t dropped;  /* lines about the devices past RUN_KMSG_EVENTS_MAX */
	uint64_t overruns; /* times the log overwrote records before they were read */
};

/* Opens the capture once the run's row exists (its devices from the plan's
 * volumes); never fails the run. */
void run_kmsg_begin(struct run *r);
/* Stores the lines logged since the last poll that name a device, at t_ms. */
void run_kmsg_poll(struct run *r, uint64_t t_ms);
/* The last poll, the counts of what was not stored, the log closed. */
void run_kmsg_end(struct run *r, uint64_t t_ms);

struct run_metrics {
	struct metrics_server *srv; /* NULL without --metrics */
	bool borrowed;		    /* srv is the caller's (opt->metrics_server) */
	struct strbuf text;
	uint64_t last_ns;     /* time_mono_ns() of the last text */
	char **lab;	      /* nr_dbs x (classes + 1): escaped label sets */
	uint8_t *seen;	      /* nr_dbs: bit per class whose series is shown */
	struct hist *vol_lat; /* scratch: one volume's class, its databases merged */
	/* each latency bound as its le label prints it, made once */
	char le[METRICS_LE_COUNT + 1][16];
	bool file_failed; /* the textfile could not be written (said once) */
	char run_uuid[48];
	char hostname[256];
	uint64_t started_real_ns;
};

/* metrics.c */
/* Parses --metrics and binds its server (before anything is written):
 * 0, -EINVAL for a bad [ADDR:]PORT, else -errno; err says why. */
int run_metrics_open(struct run *r, struct strbuf *err);
/* The plan is built: the first text (phase "preparing", no run_uuid yet),
 * served while the files are created. */
void run_metrics_prepare(struct run *r);
/* The run row exists: the text again, with its run_uuid. */
void run_metrics_begin(struct run *r);
/* Interval k merged: the text from the totals so far and the verdicts
 * judged so far (v NULL: none to show). */
void run_metrics_interval(struct run *r, unsigned k, const struct verdict *v, size_t nverd);
/* The run is stored: the last text, with the final verdicts (v NULL: not
 * judged) and the exit code. */
void run_metrics_final(struct run *r, uint64_t measured, const struct verdict *v, size_t nverd,
		       int exit_code);
/* Stops the server (not a borrowed one) and frees what metrics.c holds;
 * safe twice. */
void run_metrics_close(struct run *r);

/*
 * A durability test (durability.c): the witness every acknowledgement goes
 * to, and the simulated cut. Opened by run_durability_open (run.c, before
 * the load), written by the workers under lock (each a batch of its own
 * acknowledgements), closed by run_durability_close (run.c, after the load),
 * which also keeps a simulated cut's survivors (cutstate.h).
 */
struct run_durability {
	bool on;	      /* a durability test */
	struct witness *w;    /* NULL until open, and after a failure's close */
	pthread_mutex_t lock; /* one worker's batch at a time */
	bool lock_made;
	uint64_t epoch_ns;	/* CLOCK_REALTIME at the run clock's 0 */
	uint64_t cut_ns;	/* sim: the cut on the run clock ([sim] cut_at); 0: none */
	uint64_t acks, batches; /* sent */
};

struct run {
	const struct run_options *opt;
	const struct profile *prof;
	struct plan plan;
	const struct engine_ops *ops;
	bool virt;
	struct engine_clock clock;
	struct grid grid;
	struct worker *workers;
	unsigned nworkers;
	uint64_t *fresh_from;
	unsigned streams;     /* the stream count in use (auto-tune's level while tuning) */
	struct strbuf remade; /* what --destroy-data re-created (plan/prepare.c) */
	struct run_ctl ctl;
	struct run_coord coord;
	struct run_samples smp; /* sample maxima and page fault stalls (samples.c) */
	struct run_journals jnl;
	struct run_tune tune;
	struct run_start start;
	struct run_store store;
	struct run_reach reach; /* the devices' reads over the measured time (reach.c) */
	struct run_metrics metrics;
	struct run_kmsg kmsg;
	struct run_durability dur;
};

/* durability.c */
/* The witness opened (the run's tag: profile name and start time), the
 * workers' buffers made; nothing for another test. 0 or -errno, err said. */
int run_durability_open(struct run *r, struct strbuf *err);
/* The worker's acknowledgements sent as one batch (nothing when none): 0, or
 * -errno with the worker's fatal message set (the run stops: an error). */
int run_durability_flush(struct worker *w);
/* wl_check.durable: an acknowledgement kept for the next flush. */
void run_durability_ack(void *arg, const struct wl_db *d, unsigned db, uint64_t page, uint64_t gen,
			uint64_t t_done);
/* After the load: a simulated cut's survivors kept beside each journal, the
 * witness closed, an event saying what was sent. 0, or -errno (err said). */
int run_durability_close(struct run *r, struct strbuf *err);
/* Frees what open made; safe twice. */
void run_durability_release(struct run *r);

static inline bool fixed_model(const struct run *r)
{
	return r->prof->model == PROFILE_MODEL_FIXED;
}

static inline bool backup_test(const struct run *r)
{
	return r->prof->type == PROFILE_TEST_BACKUP;
}

/* Transactions are ended by the jetstress model's transaction streams only:
 * the fixed model has none, nor the backup test (recovery's first phase
 * runs transactions; its replay does not count). */
static inline bool txns_counted(const struct run *r)
{
	return !fixed_model(r) && !backup_test(r);
}

static inline bool recovery_test(const struct run *r)
{
	return r->prof->type == PROFILE_TEST_RECOVERY;
}

/* Open loop: transactions arrive at a rate (arrival = rate) and their page
 * reads have response times; only where transactions run (the fixed model
 * and the backup test ignore arrival). */
static inline bool open_loop(const struct run *r)
{
	return r->prof->arrival == PROFILE_ARRIVAL_RATE && txns_counted(r);
}

/* Times the completions that landed while this worker was busy (verifying
 * or stamping a page), where the engine can see them without reaping. */
static inline unsigned worker_stamp_ready(struct worker *w)
{
	if (engine_drv_can_stamp_ready(&w->drv))
		return engine_drv_stamp_ready(&w->drv, engine_clock_now(&w->run->clock));
	return 0;
}

/* worker.c */
void worker_snap_reset(struct snap *s, unsigned ndb);
void worker_snap_msg(struct snap *s, const char *fmt, ...) DP_PRINTF(2, 3);
bool worker_step(struct worker *w);
void worker_finish(struct worker *w);
void *worker_thread(void *arg);
void worker_stamped(void *arg);
void worker_done(void *arg, struct engine_req *req);

/* setup.c */
void run_worker_release(struct worker *w);
int run_setup_workers(struct run *r, struct strbuf *err);
void run_release_workers(struct run *r);

/* totals.c */
void totals_window_stats(struct eval_window_stats *out, const struct win_acc *a, size_t n);
void totals_pass_figures_record(struct run *r);
void run_totals_release(struct run_totals *t);
int run_totals_build(struct run *r, uint64_t measured, struct run_totals *t);
int run_judge(struct run *r, uint64_t measured, bool live, struct run_totals *t,
	      struct verdict **verdicts, size_t *nverd);
uint64_t run_measured_ns(const struct run *r, uint64_t t);

/* samples.c */
int run_samples_init(struct run *r) DP_MUST_CHECK;
void run_samples_release(struct run *r);
void run_samples_reset(struct run *r);
void run_samples_db(struct run *r, unsigned gdb, unsigned c, const struct class_stats32 *cs);
void run_samples_stalls(struct run *r, unsigned gdb, uint64_t n);
void run_samples_interval(struct run *r, bool last);
void run_samples_fill(const struct run *r, struct scope_summary *sums, uint64_t measured);

/* reach.c: run_reach_add: one measured interval's sample (NULL: it could
 * not be read); run_reach_finish: the judgement (reach.h), stored as an
 * event; RUN_REACH_NONE for a virtual clock; run_reach_release: safe twice. */
struct host_sample;
void run_reach_add(struct run_reach *a, const struct host_sample *hs);
enum run_reach_state run_reach_finish(struct run *r, const struct run_totals *t);
void run_reach_release(struct run_reach *a);

/* finish.c */
int run_finish(struct run *r, struct run_outcome *out, struct strbuf *err);
void run_info_fill(const struct run *r, struct store_run_info *info, char *host, size_t host_len);
void run_record_interrupted(struct run *r, struct run_outcome *out, struct strbuf *err);

/* run.c */
int run_threads(struct run *r, struct strbuf *err);
int run_virtual(struct run *r);
bool run_workers_drained(const struct run *r);

#endif /* DISKPROOF_RUN_INTERNAL_H */
