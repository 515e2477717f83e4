/* SPDX-License-Identifier: MIT */
/*
 * workload.h - the per-database generators and their narrow context: the
 * transaction streams (and the fixed model's), the flusher, the log writer,
 * replication, maintenance and backup scans, and recovery's replay.
 *
 * The contract. A worker owns one struct wl_ctx: the workload part of the
 * profile (struct wl_config: its [workload] keys and test type, copied from
 * the profile by wl_ctx_init), the databases it drives
 * (struct wl_db), its request slots (struct wl_slot), the streams ready to
 * issue, one RNG and the time it passes in. Generators see nothing else: not
 * the worker, not the run, not the store. Per database and turn the worker
 * asks each generator for its next request (wl_*_prepare: the slot filled,
 * or NULL when there is none now), queues it, and hands each completion back
 * to the generator that issued it (wl_*_done) once it has accounted it and
 * checked the pages it read. The page maps (expect, busy) are shared: the
 * worker checks and learns generations, the generators mark pages busy and
 * stamp writes.
 *
 * Determinism: every random draw comes from ctx->rng (open loop's arrival
 * times from ctx->arr_rng), in the order the generators are called; a
 * simulated run is the same bit for bit for a seed.
 *
 * Ownership: wl_ctx_init and wl_slots_place allocate the generators' state
 * (the databases' queues and rings, the streams' page lists), released by
 * wl_ctx_release; the slots' buffers, the page maps and the arrays of dbs,
 * slots and idle belong to the caller.
 */
#ifndef DISKPROOF_WORKLOAD_H
#define DISKPROOF_WORKLOAD_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "diskproof/engine.h"
#include "diskproof/journal.h"
#include "diskproof/profile.h"

struct plan_db;
struct profile;

enum wl_slot_kind {
	WL_SLOT_STREAM, /* a transaction stream (fixed model: one I/O at a time) */
	WL_SLOT_FLUSH,	/* one of a database's flusher writes */
	WL_SLOT_LOG,	/* the database's log writer */
	WL_SLOT_SCAN,	/* maintenance (BDM) or backup: sequential multi-page reads */
	WL_SLOT_REPL,	/* replication (or recovery) reads of closed log segments */
	WL_SLOT_BATCH,	/* the flusher's doublewrite writes and data-file flushes */
};

/* transaction types, in the order of the mix keys */
enum wl_txn {
	WL_TXN_INSERT,
	WL_TXN_DELETE,
	WL_TXN_REPLACE,
	WL_TXN_SEEK,
	WL_TXN_REPLAY = UINT8_MAX, /* recovery: a page a replayed record names */
};

/* a database's log_slot, repl_slot or scan_slot when it has none */
#define WL_NO_SLOT UINT_MAX
/* most pages one transaction touches */
#define WL_TXN_MAX_PAGES 64
/* most log write size */
#define WL_LOG_MAX (1024u * 1024u)
/* most replication read size (a segment is read in pieces of this) */
#define WL_REPL_MAX (1024u * 1024u)

/* what a stream waits for before its next transaction */
enum wl_wait {
	WL_WAIT_NONE,
	WL_WAIT_DIRTY,	 /* room in the database's dirty-page list to commit */
	WL_WAIT_LOG,	 /* its commit record durable (a non-lazy commit) */
	WL_WAIT_ARRIVAL, /* open loop: the next transaction's arrival */
};

/* a database's phases in a recovery test */
enum wl_phase {
	WL_PHASE_RUN,	 /* transactions (every other test type stays here) */
	WL_PHASE_DRAIN,	 /* enough segments written: let the flusher and log finish */
	WL_PHASE_REPLAY, /* read each segment, apply the pages its records name */
	WL_PHASE_DONE,
};

/* a page's busy bits (wl_db.busy) */
#define WL_BUSY_IO 0x1u
#define WL_BUSY_DIRTY 0x2u
/* found bad by this run: nothing of the run writes it again (nor reads it for
 * a transaction), so that what was found stays on disk for verify and the
 * next run, even when this process dies before its event is stored; its
 * expected generation stays what it was, for the journal */
#define WL_BUSY_BAD 0x4u
/* the cache model (cache_size): the page is in the cache; and CLOCK's
 * reference bit, set by each hit */
#define WL_BUSY_CACHED 0x8u
#define WL_BUSY_REF 0x10u
/* full_page_writes: the page was logged whole since the checkpoint began */
#define WL_BUSY_LOGGED 0x20u

/* an expected generation known only as a lower bound (unclean journal) */
#define WL_EXPECT_LOWER JOURNAL_GEN_LOWER
/* a page already reported bad: not reported again until rewritten */
#define WL_EXPECT_BAD 0xffffffffu

/* A page whose last write failed (a journal's failed-write mark, this run's
 * or an earlier one's: journal_failed_mark()): what it holds is undefined,
 * so no read of it is judged until a write of it succeeds. */
static inline bool wl_expect_failed(uint32_t e)
{
	return journal_gen_failed(e);
}

struct wl_slot {
	struct engine_req req;
	enum wl_slot_kind kind;
	unsigned db; /* local database index */
	uint64_t page;
	uint64_t gen;
	uint64_t t_issue;
	/* the first of a pair counted as one I/O (log_sync = fdatasync: the
	 * log write, then its flush): when it succeeds the worker keeps its
	 * submit time in t_pair (pair_open) and counts the pair at the
	 * second's completion, from t_pair, with len0 bytes */
	bool pair_first, pair_open;
	uint64_t t_pair;
	bool inflight;	    /* handed to the engine, not completed yet */
	bool hung_reported; /* reported as hung; counted once */
	uint64_t off0;	    /* the request as first issued, for short I/O */
	uint32_t len0;
	void *buf;
	uint32_t buf_len;
	/* multi-page reads: the pages of [page, page + npages) this read holds */
	uint64_t held; /* bit i: page + i marked busy by this read */
	unsigned npages;
	/* a stream's transaction */
	uint8_t txn;
	uint8_t wait;	    /* enum wl_wait */
	uint8_t stalled;    /* this transaction is counted as a page fault stall */
	uint8_t ckpt_write; /* a flusher's write of a checkpoint's (or write-back's) set */
	uint16_t left, ntouched;
	uint16_t nchange; /* of its pages, the first nchange are changed */
	uint64_t commit_lsn;
	uint64_t t_start; /* open loop: the transaction's intended start */
	/* open loop: the intended start of the transaction this I/O is part
	 * of, for its response time (the device's service time runs from
	 * t_issue); has_intended false for an I/O that is not a
	 * transaction's, and in closed loop */
	uint64_t t_intended;
	bool has_intended;
	uint64_t *touched;
	/* the stream pool: a stream is bound to no database; each unit of work
	 * (a transaction, a replayed page, a fixed-model I/O) goes to the
	 * worker's database with the least stream time so far (wl_db.pool) */
	bool working;	  /* a unit of work under way on db, counted in its st_act */
	double duty;	  /* share of the time it works: 1, or less for the worker's
			   * part-time stream (a fraction of a stream) */
	uint64_t t_begin; /* when the unit began (ns since wl_ctx.t0) */
	uint64_t busy_ns; /* its own units' time so far, for the duty */
};

struct wl_dirty_page {
	uint64_t page;
	uint64_t lsn; /* log bytes that must be durable before it is written */
	uint64_t t;   /* when it was dirtied (writeback_age) */
};

/*
 * A database's state, in parts owned by the file whose job each is. A
 * generator keeps its own part; it reads another's where its job depends on
 * it (the flusher's write-ahead reads the log's durable point) and feeds
 * another's inputs where its job produces them (a commit adds to the dirty
 * list, the log counts the segments recovery waits for); each part's comment
 * names them. The worker reads the counters it takes into its snapshots
 * (txn.stalls, txn.ended, log.commits) and a backup's or replay's figures.
 * The parts are declared here, not in workload_internal.h, because struct
 * wl_db is the caller's array and holds them by value (no pointer to follow
 * per I/O).
 */

/* flush.c: the dirty pages and the flusher's slots (txn.c adds the pages a
 * commit dirties) */
struct wl_db_flush {
	struct wl_dirty_page *dirty; /* FIFO ring */
	unsigned cap, head, len;
	unsigned *free_slots; /* flusher slots not in use */
	unsigned nfree;
};

/* flush.c: checkpoints (checkpoint_interval): the pages dirty when the
 * checkpoint began, sorted; the next to write; writes in flight; and the
 * write-back passes between them */
struct wl_db_ckpt {
	struct wl_dirty_page *set;
	unsigned len, next, inflight;
	bool active, full;   /* a set being written; a checkpoint's */
	uint64_t wb_due;     /* the next write-back pass */
	uint64_t start, due; /* it began; the next one begins */
	uint64_t lsn, span;  /* the log when it began; its writes' span */
	uint64_t begun;	     /* when the last checkpoint began */
	uint64_t done;	     /* checkpoints completed */
	uint64_t evictions;  /* checkpoints on: dirty pages written to make room */
};

/* batch.c: the flusher's batches and the database file's flushes
 * (doublewrite, data_flush, cleaner_interval; wl_ctx.batch, one per
 * database, none when all are off and the flusher works alone). A batch: up to the area's pages (or
 * flush_depth) of the oldest dirty ones taken at once onto flusher slots, held while the
 * doublewrite write and its flush go on the batch's own slot, then released
 * to be written in place; once all are done, per_batch's flush. */
struct wl_db_batch {
	unsigned slot;			/* the doublewrite writes and the flushes */
	uint8_t phase;			/* enum wl_batch_phase (batch.c) */
	bool issued;			/* the phase's own write or flush went */
	bool rate_flush;		/* the slot's flush in flight is data_flush = rate's */
	unsigned *held;			/* flusher slots taken, not yet released: flush_depth */
	unsigned nheld, nrel, inflight; /* taken, released, in place in flight */
	bool written;			/* data written since the last flush */
	uint64_t flush_due;		/* data_flush = rate: the next flush */
	uint64_t clean_due;		/* cleaner_interval: the next pass */
	uint64_t clean_left;		/* pages the pass under way may still write */
	uint64_t clean_start;		/* cleaner_spread: when the pass began, */
	uint64_t clean_budget;		/* ... and the pages it could write then */
	unsigned nflushed;		/* per_batch: the batch's flushes done */
	uint64_t batches, flushes;	/* since the run started */
};

/* log.c: the log writer. Byte counters since the run started (log sequence
 * numbers), the segment written, the records not yet written, and group
 * commit's counts. Commits move buffered -> inflight when a log write is
 * issued carrying their records, then into commits when it is done (the
 * worker takes those into its snapshot; commits per log write = commits /
 * log writes). */
struct wl_db_log {
	uint64_t lsn, issued, durable, inflight_end;
	uint64_t seg_off; /* where the next write goes in the current segment */
	unsigned seg;
	uint64_t seq; /* generation stamped in log blocks */
	bool busy, blocked;
	bool closes;   /* the write in flight fills its segment */
	bool sync_due; /* log_sync = fdatasync: the write done, its flush to issue */
	unsigned slot;
	uint64_t *recs; /* pages named by records not yet written: a ring */
	unsigned rcap, rhead, rlen;
	uint64_t pending_since;	   /* commit_delay's start */
	uint64_t fpi;		   /* full-page images logged */
	uint64_t commits;	   /* made durable, since the worker last took them */
	uint64_t commits_buffered; /* records appended, no write issued for them yet */
	uint64_t commits_inflight; /* carried by the log write in flight */
};

/* repl.c: replication reads of closed segments (log.c waits for a segment
 * that still owes some) */
struct wl_db_repl {
	uint8_t *seg_owed; /* replication reads each segment still owes */
	unsigned *q;	   /* closed segments waiting for their reads */
	unsigned qhead, qlen;
	unsigned slot;
	bool busy;
	uint64_t off; /* progress through the segment at the queue's head */
};

/* scan.c: maintenance (BDM) or backup */
struct wl_db_scan {
	unsigned slot;
	bool busy, done;
	uint64_t next;		/* next page */
	uint64_t due;		/* maintenance: when the next read is due */
	uint64_t gap;		/* maintenance: ns between reads */
	uint64_t bytes, t0, t1; /* backup: bytes read, first issue, last completion */
};

/* recovery.c: the recovery test's phases: write segments (log.c counts
 * them, and without page content the records in each), then replay them */
struct wl_db_replay {
	uint8_t phase;	      /* enum wl_phase */
	unsigned segs_closed; /* segments the log filled since the run started */
	unsigned seg;	      /* the segment being replayed */
	uint64_t off;	      /* how far it has been read */
	uint64_t *pages;      /* pages its records name, still to apply: a ring */
	unsigned cap, head, len, active;
	uint64_t t0;	 /* when the segment's replay started */
	uint64_t *ns;	 /* replay time per segment */
	uint64_t *count; /* pages applied per segment */
	uint32_t *recs;	 /* no page content (sim): records written per segment */
};

/* cache.c: the cache model (cache_size): the pages held, in CLOCK order
 * (page - lo; ring NULL when every page fits: nothing is ever evicted) */
struct wl_db_cache {
	uint32_t *ring;
	uint64_t cap, len, hand;
	uint64_t hits, misses;
};

/* pool.c: stream time: units of work finished (ns), those under way and the
 * sum of their starts (ns since wl_ctx.t0); wl_db_stream_ns() */
struct wl_db_pool {
	uint64_t done, starts;
	unsigned act;
};

/* txn.c: the transaction streams' part */
struct wl_db_txn {
	/* streams waiting for the log or the flusher (room for every stream
	 * of the worker: any may commit on any database) */
	unsigned *waiters;
	unsigned nwait;
	uint64_t seq_next; /* fixed model, sequential: the next page */
	/* since the worker last took them into its snapshot: page fault
	 * stalls (transactions that waited for a page), and units of work
	 * of a transaction stream that ended (its commit returned, a seek's
	 * included) */
	uint64_t stalls;
	uint64_t ended;
};

struct wl_db {
	const struct plan_db *pdb;
	unsigned global;
	uint64_t lo, n;	  /* the pages this worker drives: [lo, lo + n) */
	uint32_t *expect; /* expected generation per page (index page - lo); 0 = unknown;
			   * or a mark: WL_EXPECT_LOWER, WL_EXPECT_BAD, failed */
	uint8_t *busy;	  /* WL_BUSY_* per page (index page - lo) */
	uint32_t log_align;
	/* doublewrite: the area's pages, the last dw_n of [lo, lo + n): no
	 * transaction reads or changes them; each batch's doublewrite write
	 * stamps them (their own page numbers, their next generations), so
	 * verify and the journal see them as the pages they are */
	uint32_t dw_n;	/* (in the padding after log_align) */
	uint64_t hot_n; /* hot_size: the hot region's pages, [lo, lo + hot_n) */
	struct wl_db_txn txn;
	struct wl_db_pool pool;
	struct wl_db_cache cache;
	struct wl_db_flush flush;
	struct wl_db_ckpt ckpt;
	struct wl_db_log log;
	struct wl_db_repl repl;
	struct wl_db_scan scan;
	struct wl_db_replay replay;
};

/*
 * The workload part of the profile: what the generators read (the test type,
 * recovery's segments and the [workload] keys; profile.h says what each
 * means). wl_ctx_init copies it from the profile, as setup copies the sim
 * model (struct engine_sim_model): a generator never sees the rest of the
 * profile, and reads each key one load from its context.
 */
struct wl_config {
	enum profile_test_type type;
	uint64_t recovery_segments;
	enum profile_model model;
	uint32_t page_size, log_record_size;
	uint64_t seed;
	bool verify;
	/* the jetstress model */
	double insert_pct, delete_pct, replace_pct, seek_pct;
	double lazy_commit_pct, seek_pages, update_pages;
	unsigned flush_depth, dirty_pages, log_segments;
	uint32_t log_segment_size;
	bool bdm;
	uint64_t bdm_rate;
	uint32_t bdm_io_size;
	unsigned copies;
	uint32_t backup_io_size;
	enum profile_arrival arrival;
	/* PostgreSQL-like features */
	double read_pages;
	uint64_t hot_size;
	double hot_pct;
	uint64_t cache_size;
	uint32_t readahead_size;
	double readahead_pct;
	uint64_t checkpoint_interval_ns, checkpoint_log_size;
	double checkpoint_target_pct;
	unsigned write_merge;
	uint64_t writeback_interval_ns, writeback_age_ns;
	bool writeback_hot, full_page_writes;
	uint32_t log_page_size;
	uint64_t commit_delay_ns;
	unsigned commit_group;
	enum profile_log_sync log_sync;
	/* InnoDB-like features */
	bool doublewrite;
	uint64_t doublewrite_size;
	enum profile_data_flush data_flush;
	double data_flush_rate;
	unsigned data_flush_count;
	uint64_t cleaner_interval_ns;
	unsigned cleaner_pages;
	bool cleaner_spread;
	/* the fixed model */
	double read_pct;
	enum profile_pattern pattern;
};

/*
 * Open loop: the tool's own backlog, the transactions that have arrived
 * (intended start at or before now) and not begun, for want of a stream.
 * The arrivals are drawn from an RNG of their own, twice: once where
 * transactions begin (wl_ctx.next_arrival) and once ahead, at the
 * frontier, counting every arrival up to the time last looked at; the
 * backlog is the difference. Time-weighted over each interval
 * (wl_backlog_take): no allocation, no lock.
 */
struct wl_backlog {
	uint64_t rng;	   /* the arrivals' RNG at the frontier */
	uint64_t frontier; /* the first arrival not counted yet */
	uint64_t arrived;  /* arrivals counted (intended start <= at) */
	uint64_t begun;	   /* transactions begun */
	uint64_t at;	   /* counted up to this time */
	uint64_t area;	   /* backlog x ns since the interval began */
	uint64_t busy_ns;  /* ns with a backlog since the interval began */
	uint64_t peak;	   /* the most since the interval began */
};

/* One interval's backlog, as wl_backlog_take hands it over. */
struct wl_backlog_iv {
	uint64_t peak, area, busy_ns;
	unsigned streams; /* streams at work at its end */
};

/* The narrow context of one worker's generators. */
struct wl_ctx {
	struct wl_config cfg;
	struct wl_db *dbs;
	unsigned ndb;
	/* batch.c's state per database (index in dbs), NULL when the flusher
	 * works alone: not in struct wl_db, whose size every profile's memory
	 * estimate counts */
	struct wl_db_batch *batch;
	struct wl_slot *slots;
	unsigned nslots;
	unsigned *idle; /* stream slots ready to issue (nslots entries) */
	unsigned nidle;
	uint64_t rng;
	double mix[4];	       /* cumulative transaction mix, 0..1 */
	uint64_t next_arrival; /* open loop: the next transaction's intended start */
	uint64_t arr_rng;      /* open loop: the arrivals' own RNG (as wl_backlog.rng) */
	double arrival_gap_ns; /* open loop: mean ns between this worker's arrivals */
	uint64_t next_due;     /* earliest timed event (maintenance, arrival) */
	int64_t run_id;	       /* stamped in pages: the caller sets it once the run is
				* stored, before the first turn */
	bool full;	       /* pages carry their payload (an engine with files) */
	/* called after each page stamped (a few microseconds of CPU): lets the
	 * caller time completions that landed meanwhile; may be NULL */
	void (*stamped)(void *arg);
	void *stamped_arg;
	/* the time a completion handed to wl_*_done happened: set by the caller
	 * before each call (a unit of work's end is stamped with it) */
	uint64_t now;
	uint64_t t0; /* the stream pool's origin (wl_slots_place's now) */
	unsigned rr; /* the pool's round robin among equal databases */
	/* streams at work; open loop grows it up to max_streams (the stream
	 * slots placed) while arrivals wait for a stream; else the two agree */
	unsigned nstreams;
	unsigned max_streams;
	struct wl_backlog bl; /* open loop: the tool's own queue */
};

/*
 * Sets up c for a worker's databases: the RNG (from the seed and the
 * worker's index), the mix, and each database's generator state (d->pdb,
 * lo, n, log_align set by the caller), for nstreams streams shared by all
 * of them. dbs, slots and idle are the caller's arrays (nslots from
 * wl_slot_count). 0 or -ENOMEM; wl_ctx_release frees what was allocated
 * either way. Open loop: nstreams is the bound (max_streams); the caller
 * may lower c->nstreams before wl_slots_place to the streams it starts
 * with, the others start while arrivals wait for a stream (wl_turn).
 */
int wl_ctx_init(struct wl_ctx *c, const struct profile *p, unsigned worker_index, struct wl_db *dbs,
		unsigned ndb, unsigned nstreams, struct wl_slot *slots, unsigned nslots,
		unsigned *idle);
/* Frees what wl_ctx_init and wl_slots_place allocated and forgets dbs and
 * slots (c->idle stays the caller's); safe twice, and on a zeroed context. */
void wl_ctx_release(struct wl_ctx *c);
/* Slots a worker needs for nstreams streams over ndb databases. */
unsigned wl_slot_count(const struct profile *p, unsigned ndb, unsigned nstreams);
/* What one database of nr_pages pages takes on a worker of streams streams,
 * an upper bound in bytes: its struct wl_db and what wl_ctx_init allocates
 * for it, with the allocator's overhead (run_memory_estimate's part for the
 * generators, measured by test_workload_memory). */
uint64_t wl_db_memory(const struct profile *p, uint64_t nr_pages, unsigned streams);
/* Lays out the slots (kinds, databases, buffer sizes; max_streams stream
 * slots, the first nstreams streams ready to issue in slot order, the last working only last_duty
 * of the time when that is below 1), starting maintenance at now staggered over the databases. The
 * caller allocates each slot's buffer of buf_len bytes afterwards. */
int wl_slots_place(struct wl_ctx *c, double last_duty, uint64_t now);
/* The stream time database d has had up to t (ns, units of work finished
 * and under way): its time-averaged streams over a span are the growth of
 * this over the span's length. */
uint64_t wl_db_stream_ns(const struct wl_ctx *c, const struct wl_db *d, uint64_t t);
/* Open loop: this worker's share of the arrivals, from now on. */
void wl_arrivals_init(struct wl_ctx *c, double rate, uint64_t now);
/* Open loop: the backlog counted up to t (not before the last time). */
void wl_backlog_advance(struct wl_ctx *c, uint64_t t);
/* Open loop: the backlog now (after wl_backlog_advance). */
static inline uint64_t wl_backlog_now(const struct wl_ctx *c)
{
	return c->bl.arrived > c->bl.begun ? c->bl.arrived - c->bl.begun : 0;
}
/* Open loop: the interval that ends at t (its peak, backlog x ns, ns with a
 * backlog, the streams at work); the next one starts there. */
void wl_backlog_take(struct wl_ctx *c, uint64_t t, struct wl_backlog_iv *iv);
/* backup: the database read to its end; recovery: replayed; else true */
bool wl_db_finished(const struct wl_ctx *c, const struct wl_db *d);

/* ---- the generators: next request (NULL: none now) and completion ---- */

/* recovery: moves a database on through its phases (call before the rest) */
void wl_recovery_step(struct wl_ctx *c, unsigned db);

/*
 * Each generator's next request is asked for once per database and turn of
 * the worker loop, and most turns there is none: the wl_*_prepare below
 * answer those turns inline from the database's state; wl_*_build (out of
 * line) fill the slot otherwise. Call the wl_*_prepare.
 */
struct wl_slot *wl_log_build(struct wl_ctx *c, struct wl_db *d, uint64_t now);
struct wl_slot *wl_flush_build(struct wl_ctx *c, struct wl_db *d, uint64_t now);
/* batch.c: the flusher's next write (or the batch slot's doublewrite write
 * or flush) when c->batch is set */
struct wl_slot *wl_batch_build(struct wl_ctx *c, struct wl_db *d, uint64_t now);
struct wl_slot *wl_repl_build(struct wl_ctx *c, struct wl_db *d, uint64_t now);
struct wl_slot *wl_scan_build(struct wl_ctx *c, struct wl_db *d, uint64_t now);

/* The log write of what is buffered; NULL when nothing is, a write is in
 * flight, or the next segment still owes replication reads. */
static inline struct wl_slot *wl_log_prepare(struct wl_ctx *c, struct wl_db *d, uint64_t now)
{
	if (d->log.busy || (d->log.lsn == d->log.issued && !d->log.sync_due))
		return NULL;
	return wl_log_build(c, d, now);
}

/* The oldest dirty page's write-back, on a free flusher slot; NULL when none
 * may go now (write-ahead, or an I/O in flight on the page). */
static inline struct wl_slot *wl_flush_prepare(struct wl_ctx *c, struct wl_db *d, uint64_t now)
{
	if (c->batch)
		return wl_batch_build(c, d, now);
	if (!d->flush.nfree || (!d->flush.len && !d->ckpt.set))
		return NULL;
	return wl_flush_build(c, d, now);
}

/* The next replication read of the oldest closed segment (recovery: the
 * next piece of the segment to replay). */
static inline struct wl_slot *wl_repl_prepare(struct wl_ctx *c, struct wl_db *d, uint64_t now)
{
	if (d->repl.slot == WL_NO_SLOT || d->repl.busy ||
	    (!d->repl.qlen && d->replay.phase != WL_PHASE_REPLAY))
		return NULL;
	return wl_repl_build(c, d, now);
}

/* The next maintenance read once it is due, or backup read. */
static inline struct wl_slot *wl_scan_prepare(struct wl_ctx *c, struct wl_db *d, uint64_t now)
{
	if (d->scan.slot == WL_NO_SLOT || d->scan.busy || d->scan.done)
		return NULL;
	if (now < d->scan.due) {
		/* maintenance, not due yet (a backup's scan_due stays 0) */
		if (d->scan.due < c->next_due)
			c->next_due = d->scan.due;
		return NULL;
	}
	return wl_scan_build(c, d, now);
}

/* the log write completed (ok or not: streams go on either way) */
void wl_log_done(struct wl_ctx *c, struct wl_db *d, bool ok);
void wl_flush_done(struct wl_ctx *c, struct wl_slot *s);
/* batch.c: the batch slot's doublewrite write or flush completed (the
 * caller has learnt the area pages' generations) */
void wl_batch_done(struct wl_ctx *c, struct wl_db *d);
/*
 * Checks the log blocks a replication read returned (header, place and
 * checksum; only with verify on and real pages): NULL when every block is
 * right, else why the first bad one is not, with its block number and file
 * offset. Reseals the blocks in the buffer to compare checksums.
 */
const char *wl_repl_check(const struct wl_ctx *c, const struct wl_db *d, struct wl_slot *s,
			  uint64_t *block, uint64_t *off);
void wl_repl_done(struct wl_ctx *c, struct wl_db *d, struct wl_slot *s);
/* the scan read completed; the caller has checked the pages it held */
void wl_scan_done(struct wl_ctx *c, struct wl_db *d, struct wl_slot *s, bool ok);
/* what wl_stream_prepare did with an idle stream */
enum wl_stream_next {
	WL_STREAM_NONE, /* nothing now: it stays idle */
	WL_STREAM_IO,	/* its next I/O is in the slot: queue it */
	WL_STREAM_WAIT, /* its transaction (all from the cache) waits to commit:
			 * no longer idle, the log or the flusher wakes it */
};
/* A stream's next I/O (enum wl_stream_next). */
int wl_stream_prepare(struct wl_ctx *c, struct wl_slot *s, uint64_t now);
/*
 * A stream's I/O completed, and the caller has released or checked its page
 * (for a write: learnt its generation). The stream goes back to c->idle, or
 * waits in its database for the log or the flusher.
 */
void wl_stream_done(struct wl_ctx *c, struct wl_slot *s);

/* ---- the turn and the completion: the order, for every caller ---- */

/*
 * The caller's part of a turn: queue a slot the generators prepared (it is
 * in flight, s->inflight, until wl_complete). false when the caller takes
 * no more this turn (an engine full: it keeps the slot all the same), which
 * ends the turn.
 */
typedef bool (*wl_queue_fn)(void *arg, struct wl_slot *s, uint64_t now);

/*
 * One turn of the generators at now, in their order: per database the
 * recovery step, the log writer, the flusher (every write it has), the
 * replication read and the scan read; then each idle stream; then, with the
 * cache model, each log writer again (transactions finished from the cache
 * just now committed after the log's turn: their write goes in this turn).
 * Each prepared slot goes to queue, until it refuses one. Resets and then
 * lowers c->next_due (the earliest timed event).
 */
void wl_turn(struct wl_ctx *c, uint64_t now, wl_queue_fn queue, void *arg);

/* The caller's checks of what a completed read returned (wl_complete);
 * each may be NULL (nothing checked). Pages are handed over only with
 * verify on and the read whole. */
struct wl_check {
	/* a database page read at buf, from file offset off */
	void (*page)(void *arg, struct wl_db *d, unsigned db, uint64_t page, const void *buf,
		     uint64_t off);
	/* the log blocks a replication read returned (wl_repl_check) */
	void (*log)(void *arg, struct wl_db *d, struct wl_slot *s);
	/* a stream's page read, set aside to check later: true when the caller
	 * took it (the page stays WL_BUSY_IO; the caller clears that once it
	 * has checked it) */
	bool (*set_aside)(void *arg, struct wl_slot *s);
	void *arg;
	/* a write-through page write (ENGINE_RF_DSYNC) completed whole: page
	 * of d (its database index db) holds generation gen durably, the
	 * storage says, at t_done (durability test: the witness's record);
	 * NULL: not wanted */
	void (*durable)(void *arg, const struct wl_db *d, unsigned db, uint64_t page, uint64_t gen,
			uint64_t t_done);
};

/*
 * Slot s's request completed at s->req.t_done_ns (ok: every byte moved; the
 * caller has accounted it): the pages it held released, a write's
 * generations learnt (a failed write's pages marked failed: anything may be
 * there until the next write of them succeeds), the pages a read returned
 * handed to k, then the generator that issued it told (wl_*_done).
 */
void wl_complete(struct wl_ctx *c, struct wl_slot *s, bool ok, const struct wl_check *k);

/* A replayed page's read: written back from its buffer, so checked at once
 * (never set aside for a later check). */
static inline bool wl_slot_replaying(const struct wl_slot *s)
{
	return s->txn == WL_TXN_REPLAY;
}

/* The generation a write of a page expected at e stamps: the next one
 * (anything newer than init's 1 when it was unknown, found bad or its last
 * write failed). */
static inline uint64_t wl_next_gen(uint32_t e)
{
	uint64_t g = e == WL_EXPECT_BAD || wl_expect_failed(e)
			     ? 2
			     : (uint64_t)(e & ~WL_EXPECT_LOWER) + 1;

	return g == 1 ? 2 : g;
}

/* The pages of d that transactions use: all of [lo, lo + n) but the
 * doublewrite area at its end. */
static inline uint64_t wl_db_pages(const struct wl_db *d)
{
	return d->n - d->dw_n;
}

/* doublewrite's area pages in a database of page_size pages: the size's
 * whole pages, at most 64 */
static inline unsigned wl_dw_pages(bool doublewrite, uint64_t size, uint32_t page_size)
{
	uint64_t n = doublewrite ? size / page_size : 0;

	return n > 64 ? 64 : (unsigned)n;
}

/* Does the flusher go through batch.c (doublewrite, data_flush or
 * cleaner_interval on)? */
static inline bool wl_batch_on(const struct wl_config *p)
{
	return p->doublewrite || p->data_flush != PROFILE_DATA_FLUSH_NONE || p->cleaner_interval_ns;
}

/* The batch slot's buffer: the doublewrite area's pages, or a page. */
static inline uint32_t wl_buf_len_batch(uint32_t page_size, bool doublewrite, uint64_t dw_size)
{
	unsigned n = wl_dw_pages(doublewrite, dw_size, page_size);

	return page_size * (n > 1 ? n : 1);
}

static inline uint32_t wl_batch_buf_len(const struct profile *p)
{
	return p->doublewrite || p->data_flush != PROFILE_DATA_FLUSH_NONE || p->cleaner_interval_ns
		       ? wl_buf_len_batch(p->page_size, p->doublewrite, p->doublewrite_size)
		       : 0;
}

/* A stream slot's buffer: a page, or a read ahead's pages. */
static inline uint32_t wl_buf_len_stream(uint32_t page_size, uint32_t readahead_size)
{
	return readahead_size > page_size ? readahead_size : page_size;
}

static inline uint32_t wl_stream_buf_len(const struct profile *p)
{
	return wl_buf_len_stream(p->page_size, p->readahead_size);
}

/* A flusher slot's buffer: a page, or a merged checkpoint write's pages. */
static inline uint32_t wl_buf_len_flush(uint32_t page_size, unsigned write_merge)
{
	return page_size * (write_merge > 1 ? write_merge : 1);
}

static inline uint32_t wl_flush_buf_len(const struct profile *p)
{
	return wl_buf_len_flush(p->page_size, p->write_merge);
}

/* The worker's engine files, two per database: local database db's
 * database file and its log (what a slot's request names in req.file). */
static inline uint32_t wl_file_db(unsigned db)
{
	return 2 * db;
}

static inline uint32_t wl_file_log(unsigned db)
{
	return 2 * db + 1;
}

/* The slot's requests go to the database's log file (else to its database
 * file). */
static inline bool wl_slot_on_log(const struct wl_slot *s)
{
	return s->kind == WL_SLOT_LOG || s->kind == WL_SLOT_REPL;
}

#endif
