/*
 * run.c - workers, coordinator and the end of a run (see run.h).
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
 * Streams (the profile's global count) are bound to databases round robin;
 * each runs closed loop: one page I/O at a time, random page, read or write by
 * the read share, at most one I/O in flight per page. Each acknowledged page
 * write adds log_record_size bytes to its database's log buffer; one log
 * writer per database writes what is buffered (aligned to the logical block
 * size, at most 1 MiB) write-through, circularly over the preallocated log.
 *
 * Every read page is checked against the generation this run last wrote to it
 * (pages of files that existed before the run are learnt on first read).
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "diskproof/counters.h"
#include "diskproof/engine.h"
#include "diskproof/env.h"
#include "diskproof/eval.h"
#include "diskproof/fileopen.h"
#include "diskproof/journal.h"
#include "diskproof/lock.h"
#include "diskproof/page.h"
#include "diskproof/plan.h"
#include "diskproof/results.h"
#include "diskproof/run.h"
#include "diskproof/store.h"

#include "autotune.h"

#define RUN_INTERVAL_NS NSEC_PER_SEC
#define RUN_SLOTS 8
#define RUN_DB_SAMPLE_EVERY 15
#define RUN_REAP_WAIT_NS (100 * NSEC_PER_MSEC)
#define RUN_DRAIN_NS (5 * NSEC_PER_SEC)
/* the drain once an I/O has hung: what is not done by then waits on the same
 * device, and the verdict is due within io_timeout plus a few seconds */
#define RUN_DRAIN_HUNG_NS (1 * NSEC_PER_SEC)
#define RUN_LOG_MAX (1024u * 1024u)
/* error messages (bad pages, failed and hung I/Os) stored per run, each as
 * an event; past that they are counted, exactly, and the count is stored */
#define RUN_EVENTS_MAX 10000u
#define RUN_MSG_LEN 200
/* journal the expected generations every this many intervals */
#define RUN_JOURNAL_EVERY 60
/* an expected generation known only as a lower bound (unclean journal) */
#define EXPECT_LOWER JOURNAL_GEN_LOWER
/* a page already reported bad: not reported again until rewritten */
#define EXPECT_BAD 0xffffffffu

/* The interval grid: warm-up chunks from t0, then measurement chunks from
 * t0 + warmup, so no interval mixes the two. */
struct grid {
	uint64_t t0, warmup, duration, interval;
	unsigned nw;   /* warm-up intervals */
	unsigned last; /* index of the last interval */
};

static void grid_init(struct grid *g, uint64_t t0, uint64_t warmup, uint64_t duration)
{
	g->t0 = t0;
	g->warmup = warmup;
	g->duration = duration;
	g->interval = RUN_INTERVAL_NS;
	g->nw = (unsigned)((warmup + g->interval - 1) / g->interval);
	g->last = g->nw + (unsigned)((duration + g->interval - 1) / g->interval) - 1;
}

static unsigned grid_index(const struct grid *g, uint64_t t, unsigned last)
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

static uint64_t grid_start(const struct grid *g, unsigned k)
{
	if (k < g->nw)
		return g->t0 + (uint64_t)k * g->interval;
	return g->t0 + g->warmup + (uint64_t)(k - g->nw) * g->interval;
}

static uint64_t grid_end(const struct grid *g, unsigned k)
{
	uint64_t e;

	if (k < g->nw) {
		e = g->t0 + (uint64_t)(k + 1) * g->interval;
		return e > g->t0 + g->warmup ? g->t0 + g->warmup : e;
	}
	e = g->t0 + g->warmup + (uint64_t)(k - g->nw + 1) * g->interval;
	return e > g->t0 + g->warmup + g->duration ? g->t0 + g->warmup + g->duration : e;
}

enum slot_kind {
	SLOT_STREAM, /* a transaction stream (fixed model: one I/O at a time) */
	SLOT_FLUSH,  /* one of a database's flusher writes */
	SLOT_LOG,    /* the database's log writer */
	SLOT_SCAN,   /* maintenance (BDM) or backup: sequential multi-page reads */
	SLOT_REPL,   /* replication (or recovery) reads of closed log segments */
};

/* transaction types, in the order of the mix keys */
enum txn_type {
	TXN_INSERT,
	TXN_DELETE,
	TXN_REPLACE,
	TXN_SEEK,
};

/* most pages one transaction touches */
#define TXN_MAX_PAGES 64
/* most replication read size (a segment is read in pieces of this) */
#define RUN_REPL_MAX (1024u * 1024u)

/* what a stream waits for before its next transaction */
enum slot_wait {
	WAIT_NONE,
	WAIT_DIRTY,   /* room in the database's dirty-page list to commit */
	WAIT_LOG,     /* its commit record durable (a non-lazy commit) */
	WAIT_ARRIVAL, /* open loop: the next transaction's arrival */
};

struct slot {
	struct engine_req req;
	enum slot_kind kind;
	unsigned db; /* local database index */
	uint64_t page;
	uint64_t gen;
	uint64_t t_issue;
	bool inflight;	    /* handed to the engine, not completed yet */
	bool hung_reported; /* reported as hung; counted once */
	bool keep_issue;    /* t_issue is an intended start: not restamped at commit */
	uint64_t off0;	    /* the request as first issued, for short I/O */
	uint32_t len0;
	void *buf;
	uint32_t buf_len;
	/* multi-page reads: the pages of [page, page + npages) this read holds */
	uint64_t held; /* bit i: page + i marked busy by this read */
	unsigned npages;
	/* a stream's transaction */
	uint8_t txn;
	uint8_t wait; /* enum slot_wait */
	uint16_t left, ntouched;
	uint64_t commit_lsn;
	uint64_t t_start; /* open loop: the transaction's intended start */
	uint64_t *touched;
	uint64_t cursor; /* fixed model, sequential: the next page */
};

/* A page read whose check waits until the stream that read it has been
 * issued again (see worker_verify_pending). */
struct pending_verify {
	void *buf;
	int32_t buf_index;
	unsigned db;
	uint64_t page, off, t_done;
};

struct dirty_page {
	uint64_t page;
	uint64_t lsn; /* log bytes that must be durable before it is written */
};

struct wdb {
	const struct plan_db *pdb;
	unsigned global;
	uint64_t lo, n;	  /* the pages this worker drives: [lo, lo + n) */
	uint32_t *expect; /* expected generation per page (index page - lo); 0 = unknown */
	uint8_t *busy;	  /* BUSY_IO, BUSY_DIRTY, BUSY_BAD per page (index page - lo) */
	/* the flusher */
	struct dirty_page *dirty; /* FIFO ring */
	unsigned dcap, dhead, dlen;
	unsigned *flush_free; /* flusher slots not in use */
	unsigned nfree;
	/* the log: byte counters since the run started (log sequence numbers) */
	uint64_t lsn, issued, durable, inflight_end;
	uint64_t seg_off; /* where the next write goes in the current segment */
	unsigned seg;
	uint64_t log_seq; /* generation stamped in log blocks */
	uint32_t log_align;
	bool log_busy, log_blocked;
	unsigned log_slot;
	uint64_t *recs; /* pages named by records not yet written: a ring */
	unsigned rcap, rhead, rlen;
	/* replication */
	uint8_t *seg_owed; /* replication reads each segment still owes */
	unsigned *repl_q;  /* closed segments waiting for their reads */
	unsigned qhead, qlen;
	unsigned repl_slot;
	bool repl_busy;
	uint64_t repl_off; /* progress through the segment at the queue's head */
	/* maintenance / backup */
	unsigned scan_slot;
	bool scan_busy, scan_done;
	uint64_t scan_next; /* next page */
	uint64_t scan_due;  /* maintenance: when the next read is due */
	uint64_t scan_gap;  /* maintenance: ns between reads */
	uint64_t scan_bytes, scan_t0,
		scan_t1; /* backup: bytes read, first issue, last completion */
	/* recovery: write segments, then replay them */
	uint8_t phase;	      /* enum db_phase */
	unsigned segs_closed; /* segments filled since the run started */
	unsigned rp_seg;      /* the segment being replayed */
	uint64_t rp_off;      /* how far it has been read */
	uint64_t *rp_pages;   /* pages its records name, still to apply: a ring */
	unsigned rp_cap, rp_head, rp_len, rp_active;
	uint64_t rp_t0;	    /* when the segment's replay started */
	uint64_t *rp_ns;    /* replay time per segment */
	uint64_t *rp_count; /* pages applied per segment */
	/* streams waiting for the log or the flusher */
	unsigned *waiters;
	unsigned nwait;
};

/* a database's phases in a recovery test */
enum db_phase {
	PHASE_RUN,    /* transactions (every other test type stays here) */
	PHASE_DRAIN,  /* enough segments written: let the flusher and log finish */
	PHASE_REPLAY, /* read each segment, apply the pages its records name */
	PHASE_DONE,
};

#define BUSY_IO 0x1u
#define BUSY_DIRTY 0x2u
/* found bad by this run: nothing of the run writes it again (nor reads it for
 * a transaction), so that what was found stays on disk for verify and the
 * next run, even when this process dies before its event is stored; its
 * expected generation stays what it was, for the journal */
#define BUSY_BAD 0x4u

struct snap {
	struct class_stats32 *cs; /* ndb * IO_CLASS_COUNT */
	struct stats_arena arena; /* cs's bucket groups */
	uint64_t *integrity;	  /* ndb */
	uint64_t hung;		  /* I/Os found pending past io_timeout in this interval */
	/* this interval's error messages: grown on the error path (never on
	 * the I/O path), up to the run's RUN_EVENTS_MAX over every worker */
	char (*msgs)[RUN_MSG_LEN];
	unsigned nmsgs, msgs_cap;
	unsigned dropped_msgs;
	atomic_uint_fast64_t *kept; /* the run's messages kept so far */
};

struct run;

/* Running statistics of window averages. */
struct win_acc {
	unsigned n;
	double sum, sumsq, max;
};

struct worker {
	struct run *run;
	unsigned index;
	struct wdb *dbs;
	unsigned ndb;
	struct slot *slots;
	unsigned nslots;
	unsigned *idle; /* stream slots ready to issue */
	unsigned nidle;
	unsigned *retry; /* slots to queue again (EAGAIN, short I/O, BUSY) */
	unsigned *fresh; /* slots first queued in this step: issue time at commit */
	unsigned nfresh;
	unsigned nretry;
	unsigned inflight;
	struct engine_req **reaped;
	const struct engine_ops *ops;
	struct engine_ctx ctx;
	bool ctx_init, ctx_open;
	int *fds;
	struct engine_file *files;
	struct iovec *iov;
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
	uint64_t rng;
	bool stopping;
	bool done; /* backup: every database read */
	uint64_t stop_at;
	uint64_t next_arrival; /* open loop: the next transaction's intended start */
	double arrival_gap_ns; /* open loop: mean ns between this worker's arrivals */
	uint64_t next_due;     /* earliest timed event (maintenance, arrival) */
	uint32_t *jcopy;       /* expected generations copied for the periodic journal */
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
};

struct run {
	const struct run_options *opt;
	const struct profile *prof;
	struct plan plan;
	const struct engine_ops *ops;
	bool virt;
	struct engine_clock clock;
	struct grid grid;
	atomic_uint last; /* last interval; lowered when stopping early */
	atomic_bool stop;
	atomic_bool hung;		  /* the coordinator saw a hung I/O: drain briefly */
	atomic_uint_fast64_t errors_seen; /* I/O errors so far, bumped by workers */
	atomic_uint_fast64_t msgs_kept;	  /* error messages kept (RUN_EVENTS_MAX) */
	uint64_t msgs_dropped;		  /* and those past it, counted by the coordinator */
	atomic_uint workers_done;	  /* backup: workers that read all they had */
	bool tune_failed;		  /* auto-tune found no passing level: no main test */
	bool completed;			  /* backup: ended when everything was read */
	int stop_signal;
	char stop_reason[256];	     /* why the run stopped early, when not a signal */
	struct strbuf journal_notes; /* per database, once each: a journal not used
				      * as it is (damaged, foreign, from an unclean end) */
	bool *journal_noted;	     /* nr_dbs: the database has its note */
	struct strbuf journal_err;   /* the first journal that could not be written */
	bool journal_failed;	     /* a journal write failed: exit 3 */
	bool hung_seen;		     /* an I/O hung: nothing more goes to the volumes */
	bool journals_marked;	     /* marked in progress: the final write is due */
	/* the periodic journal writes, on a thread of their own so that a
	 * volume that hangs under them never holds up the coordinator (and so
	 * the verdict); shared with that thread, which may outlive the run */
	struct jchan *jchan;
	bool env_failed; /* stopped by an environment fault (exit 3) */
	bool abandoned;	 /* a second signal: finish the row, leave at once */
	uint64_t stop_time;
	struct worker *workers;
	unsigned nworkers;
	uint64_t *fresh_from;
	double mix[4];	  /* cumulative transaction mix, 0..1 */
	unsigned streams; /* the stream count in use (auto-tune's level while tuning) */
	/* auto-tune: the search, and the level being measured */
	struct tuner *tune;
	unsigned tune_nint; /* intervals in the current window */
	unsigned tune_win;  /* intervals per window */
	int tune_state;	    /* enum tune_next of the last window */

	struct store *store;
	int64_t run_id;
	bool store_failed;
	struct strbuf store_err;
	struct host_sampler *host; /* host counters per interval; NULL: none */

	/* coordinator state */
	struct class_stats *tot_db;  /* measured totals, ndb * classes */
	uint64_t *integ_db;	     /* integrity errors per database */
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
	unsigned collected; /* intervals merged so far */
};

static uint64_t rng_next(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

static void snap_reset(struct snap *s, unsigned ndb)
{
	class_stats32_reset_all(s->cs, (size_t)ndb * IO_CLASS_COUNT, &s->arena);
	memset(s->integrity, 0, ndb * sizeof(*s->integrity));
	s->hung = 0;
	s->nmsgs = 0;
	s->dropped_msgs = 0;
}

static void coord_collect(struct run *r, unsigned k);
static void snap_msg(struct snap *s, const char *fmt, ...) DP_PRINTF(2, 3);
static void coord_checkpoint(struct run *r, unsigned k);
static int run_write_journals(struct run *r, bool from_copies, bool clean);
static void coord_stop(struct run *r, int signo, const char *reason);

/* Publishes the current interval and moves to the next slot. */
static void worker_publish(struct worker *w)
{
	unsigned k = w->cur;
	struct run *r = w->run;

	if (w->jcopy && (k + 1) % RUN_JOURNAL_EVERY == 0) {
		/* for the coordinator's periodic journal: every page's generation
		 * as acknowledged so far (a lower bound by the time it is read) */
		uint64_t off = 0;

		for (unsigned i = 0; i < w->ndb; i++) {
			memcpy(w->jcopy + off, w->dbs[i].expect, w->dbs[i].n * sizeof(uint32_t));
			off += w->dbs[i].n;
		}
	}
	atomic_store_explicit(&w->published, k + 1, memory_order_release);
	w->cur = k + 1;
	if (r->virt)
		coord_collect(r, k);
	/* the next slot must have been merged already; waiting here (the
	 * results file is slow) delays reaping, so it is reported */
	uint64_t waited = 0;
	while (atomic_load_explicit(&w->consumed, memory_order_acquire) + RUN_SLOTS <= w->cur) {
		usleep(1000);
		waited++;
	}
	snap_reset(&w->snaps[w->cur % RUN_SLOTS], w->ndb);
	if (waited)
		snap_msg(&w->snaps[w->cur % RUN_SLOTS],
			 "worker %u waited %llu ms for the coordinator (slow results file?); "
			 "completions meanwhile were stamped late",
			 w->index, (unsigned long long)waited);
}

static struct snap *worker_snap_at(struct worker *w, uint64_t t)
{
	unsigned last = atomic_load_explicit(&w->run->last, memory_order_acquire);
	unsigned k = grid_index(&w->run->grid, t, last);

	while (w->cur < k)
		worker_publish(w);
	return &w->snaps[w->cur % RUN_SLOTS];
}

static void snap_msg(struct snap *s, const char *fmt, ...)
{
	va_list ap;

	if (atomic_fetch_add_explicit(s->kept, 1, memory_order_relaxed) >= RUN_EVENTS_MAX) {
		s->dropped_msgs++;
		return;
	}
	if (s->nmsgs == s->msgs_cap) {
		unsigned cap = s->msgs_cap ? 2 * s->msgs_cap : 16;
		char(*m)[RUN_MSG_LEN] = realloc(s->msgs, cap * sizeof(*m));

		if (!m) {
			s->dropped_msgs++;
			return;
		}
		s->msgs = m;
		s->msgs_cap = cap;
	}
	va_start(ap, fmt);
	vsnprintf(s->msgs[s->nmsgs++], sizeof(s->msgs[0]), fmt, ap);
	va_end(ap);
}

static bool fixed_model(const struct run *r)
{
	return r->prof->model == PROFILE_MODEL_FIXED;
}

static bool backup_test(const struct run *r)
{
	return r->prof->type == PROFILE_TEST_BACKUP;
}

static bool recovery_test(const struct run *r)
{
	return r->prof->type == PROFILE_TEST_RECOVERY;
}

/* A uniform double in [0, 1). */
static double rng_unit(uint64_t *s)
{
	return (double)(rng_next(s) >> 11) * (1.0 / 9007199254740992.0);
}

/* floor(mean) pages, one more with probability frac(mean); 1..TXN_MAX_PAGES */
static unsigned draw_pages(uint64_t *rng, double mean)
{
	unsigned n = (unsigned)mean;

	if (rng_unit(rng) < mean - (double)n)
		n++;
	if (n < 1)
		n = 1;
	return n > TXN_MAX_PAGES ? TXN_MAX_PAGES : n;
}

/* Times the completions that landed while this worker was busy (verifying
 * or stamping a page), where the engine can see them without reaping. */
static inline unsigned worker_stamp_ready(struct worker *w)
{
	if (w->ops->stamp_ready)
		return w->ops->stamp_ready(&w->ctx, engine_clock_now(&w->run->clock));
	return 0;
}

static void slot_stamp_write(struct worker *w, struct slot *s, struct wdb *d)
{
	const struct profile *p = w->run->prof;
	bool full = !(w->ops->flags & ENGINE_F_NO_FILES);
	uint32_t e = d->expect[s->page - d->lo];

	s->gen = e == EXPECT_BAD ? 2 : (uint64_t)(e & ~EXPECT_LOWER) + 1;
	if (s->gen == 1)
		s->gen = 2; /* unknown before: anything newer than init's 1 */
	page_stamp(s->buf, p->page_size, PAGE_KIND_DB, d->pdb->id, s->page, s->gen,
		   (uint64_t)w->run->run_id, p->seed, full);
	worker_stamp_ready(w);
}

/* Picks a page of [lo, lo + n) with no I/O in flight: random tries, then a scan. */
static bool pick_page(struct worker *w, struct wdb *d, uint64_t *page)
{
	uint64_t n = d->n, p;

	for (int i = 0; i < 16; i++) {
		p = rng_next(&w->rng) % n;
		if (!(d->busy[p] & (BUSY_IO | BUSY_BAD))) {
			*page = d->lo + p;
			return true;
		}
	}
	p = rng_next(&w->rng) % n;
	for (uint64_t i = 0; i < n; i++, p = (p + 1) % n)
		if (!(d->busy[p] & (BUSY_IO | BUSY_BAD))) {
			*page = d->lo + p;
			return true;
		}
	return false;
}

static int worker_submit(struct worker *w, struct slot *s, uint64_t now)
{
	int ret;

	s->req.t_submit_ns = now;
	s->req.t_done_ns = 0; /* not completed yet (stamp_ready) */
	ret = w->ops->queue(&w->ctx, &s->req);
	if (ret == ENGINE_Q_BUSY)
		return ret;
	w->inflight++;
	s->inflight = true;
	if (ret == ENGINE_Q_COMPLETED) {
		/* handed back at once: treat like a reaped completion */
		if (!(w->ops->flags & ENGINE_STAMPS_DONE_FLAGS))
			s->req.t_done_ns = engine_clock_now(&w->run->clock);
		return ENGINE_Q_COMPLETED;
	}
	return ENGINE_Q_QUEUED;
}

static void worker_complete(struct worker *w, struct engine_req *req);

/* Queues a prepared slot: false when the engine is full (it goes to retry). */
static bool worker_queue_slot(struct worker *w, struct slot *s, uint64_t now)
{
	int ret = worker_submit(w, s, now);

	if (ret == ENGINE_Q_BUSY) {
		w->retry[w->nretry++] = (unsigned)(s - w->slots);
		return false;
	}
	if (ret == ENGINE_Q_QUEUED)
		w->fresh[w->nfresh++] = (unsigned)(s - w->slots);
	else
		worker_complete(w, &s->req);
	return true;
}

static void slot_request(struct slot *s, uint8_t op, uint8_t cls, uint16_t flags, uint32_t file,
			 uint64_t offset, uint32_t len, uint64_t now)
{
	s->req.op = op;
	s->req.cls = cls;
	s->req.flags = flags;
	s->req.file = file;
	s->req.offset = offset;
	s->req.len = len;
	s->req.buf = s->buf;
	s->off0 = offset;
	s->len0 = len;
	s->t_issue = now;
	s->keep_issue = false;
}

/* A page I/O of a stream or the flusher on page s->page. */
static void page_io_prepare(struct worker *w, struct slot *s, bool read, uint64_t now)
{
	struct wdb *d = &w->dbs[s->db];
	const struct profile *p = w->run->prof;

	d->busy[s->page - d->lo] |= BUSY_IO;
	slot_request(s, read ? ENGINE_OP_READ : ENGINE_OP_WRITE, read ? IO_DB_READ : IO_DB_WRITE, 0,
		     2 * s->db, d->pdb->base + s->page * p->page_size, p->page_size, now);
	if (!read)
		slot_stamp_write(w, s, d);
}

/* ---- the log ---- */

static uint64_t seg_size(const struct worker *w)
{
	return w->run->prof->log_segment_size;
}

/* Appends a commit record naming pages[0..n) to d's log buffer. */
static void log_append(struct worker *w, struct wdb *d, const uint64_t *pages, unsigned n)
{
	d->lsn += (uint64_t)n * w->run->prof->log_record_size;
	for (unsigned i = 0; i < n && d->rlen < d->rcap; i++)
		d->recs[(d->rhead + d->rlen++) % d->rcap] = pages[i];
}

/* Writes the record table of one log block. */
static void log_block_records(struct wdb *d, char *blk, uint32_t size, unsigned take)
{
	struct log_records lr = {LOG_RECORDS_MAGIC, 0};
	uint32_t cap = log_records_capacity(size);

	for (; lr.count < take && lr.count < cap && d->rlen; lr.count++, d->rlen--) {
		memcpy(blk + PAGE_HEADER_SIZE + sizeof(lr) + 8 * lr.count, &d->recs[d->rhead], 8);
		d->rhead = (d->rhead + 1) % d->rcap;
	}
	memcpy(blk + PAGE_HEADER_SIZE, &lr, sizeof(lr));
	page_reseal(blk, size);
}

/* Moves the log to the next segment once the current one is full; false
 * when that segment still owes replication reads (the log waits). */
static bool log_next_segment(struct worker *w, struct wdb *d)
{
	const struct profile *p = w->run->prof;
	unsigned next;

	if (d->seg_off < seg_size(w))
		return true;
	next = (d->seg + 1) % p->log_segments;
	if (d->seg_owed[next]) {
		d->log_blocked = true;
		return false;
	}
	d->log_blocked = false;
	d->seg = next;
	d->seg_off = 0;
	return true;
}

/* Prepares the log write of what is buffered; false when there is none or
 * the log must wait for replication. */
static bool log_prepare(struct worker *w, struct wdb *d, uint64_t now)
{
	struct slot *s = &w->slots[d->log_slot];
	const struct profile *p = w->run->prof;
	uint64_t pending = d->lsn - d->issued, len, room;
	bool full = !(w->ops->flags & ENGINE_F_NO_FILES);
	unsigned blocks, rec_take;

	if (d->log_busy || !pending || !log_next_segment(w, d))
		return false;
	room = seg_size(w) - d->seg_off;
	len = (pending + d->log_align - 1) / d->log_align * d->log_align;
	if (len > room)
		len = room;
	if (len > s->buf_len)
		len = s->buf_len;
	blocks = (unsigned)(len / d->log_align);
	/* records this write carries: all buffered when it takes everything */
	rec_take = len >= pending ? d->rlen
				  : (unsigned)(((uint64_t)d->rlen * len + pending - 1) / pending);
	for (unsigned b = 0; b < blocks; b++) {
		char *blk = (char *)s->buf + (uint64_t)b * d->log_align;
		uint64_t fileoff =
			(uint64_t)d->seg * seg_size(w) + d->seg_off + (uint64_t)b * d->log_align;
		unsigned take = (rec_take + blocks - 1 - b) / (blocks - b);

		page_stamp(blk, d->log_align, PAGE_KIND_LOG, d->pdb->id, fileoff / d->log_align,
			   ++d->log_seq, (uint64_t)w->run->run_id, p->seed, full);
		if (full) {
			log_block_records(d, blk, d->log_align, take);
		} else {
			take = take < d->rlen ? take : d->rlen;
			d->rlen -= take;
			d->rhead = (d->rhead + take) % d->rcap;
		}
		rec_take -= take < rec_take ? take : rec_take;
	}
	slot_request(s, ENGINE_OP_WRITE, IO_LOG_WRITE, ENGINE_RF_DSYNC, 2 * s->db + 1,
		     d->pdb->log_base + (uint64_t)d->seg * seg_size(w) + d->seg_off, (uint32_t)len,
		     now);
	d->issued = len >= pending ? d->lsn : d->issued + len;
	d->inflight_end = d->issued;
	d->seg_off += len;
	if (d->seg_off >= seg_size(w))
		d->segs_closed++;
	if (d->seg_off >= seg_size(w) && p->copies > 1) {
		/* the segment is closed: replication reads it copies - 1 times */
		d->seg_owed[d->seg] = (uint8_t)(p->copies - 1);
		d->repl_q[(d->qhead + d->qlen++) % p->log_segments] = d->seg;
	}
	d->log_busy = true;
	return true;
}

/* ---- replication ---- */

static bool repl_prepare(struct worker *w, struct wdb *d, uint64_t now)
{
	struct slot *s = &w->slots[d->repl_slot];
	unsigned seg;
	uint64_t len;

	if (d->phase == PHASE_REPLAY) {
		/* recovery: the next piece of the segment being replayed, once the
		 * pages of the last one are applied */
		if (d->repl_busy || d->rp_len || d->rp_active || d->rp_off >= seg_size(w))
			return false;
		seg = d->rp_seg;
		if (!d->rp_off)
			d->rp_t0 = now;
		len = seg_size(w) - d->rp_off;
		if (len > s->buf_len)
			len = s->buf_len;
		s->page = seg;
		slot_request(s, ENGINE_OP_READ, IO_LOG_READ, 0, 2 * s->db + 1,
			     d->pdb->log_base + (uint64_t)seg * seg_size(w) + d->rp_off,
			     (uint32_t)len, now);
		d->repl_busy = true;
		return true;
	}
	if (d->repl_busy || !d->qlen || d->phase > PHASE_DRAIN)
		return false;
	seg = d->repl_q[d->qhead];
	len = seg_size(w) - d->repl_off;
	if (len > s->buf_len)
		len = s->buf_len;
	s->page = seg;
	slot_request(s, ENGINE_OP_READ, IO_LOG_READ, 0, 2 * s->db + 1,
		     d->pdb->log_base + (uint64_t)seg * seg_size(w) + d->repl_off, (uint32_t)len,
		     now);
	d->repl_busy = true;
	return true;
}

/* Checks the log blocks a replication read returned: header and checksum. */
static void repl_verify(struct worker *w, struct slot *s, struct wdb *d, struct snap *sn)
{
	const uint32_t bs = d->log_align;

	if (w->ops->flags & ENGINE_F_NO_FILES || !w->run->prof->verify)
		return;
	for (uint64_t o = 0; o + bs <= s->len0; o += bs) {
		const char *blk = (const char *)s->buf + o;
		struct page_header h;
		uint64_t block = (s->off0 - d->pdb->log_base + o) / bs;
		uint32_t crc;
		const char *what = NULL;

		memcpy(&h, blk, sizeof(h));
		if (h.magic != PAGE_MAGIC || h.kind != PAGE_KIND_LOG)
			what = "not a log block";
		else if (h.db_id != d->pdb->id || h.page_no != block)
			what = "misdirected";
		else if (w->run->prof->verify) {
			crc = h.crc;
			page_reseal((char *)s->buf + o, bs);
			memcpy(&h, blk, sizeof(h));
			if (crc != h.crc)
				what = "bad checksum";
		}
		if (!what)
			continue;
		sn->integrity[s->db]++;
		snap_msg(sn, "%s log block %llu (%s offset %llu): %s", d->pdb->name,
			 (unsigned long long)block, d->pdb->log_file,
			 (unsigned long long)(s->off0 + o), what);
		return; /* one message per read */
	}
}

/* recovery: the pages the records of a replayed piece name, to apply */
static void replay_parse(struct worker *w, struct wdb *d, struct slot *s)
{
	const uint32_t bs = d->log_align;

	for (uint64_t o = 0; o + bs <= s->len0; o += bs) {
		const char *blk = (const char *)s->buf + o;
		struct log_records lr;

		memcpy(&lr, blk + PAGE_HEADER_SIZE, sizeof(lr));
		if (lr.magic != LOG_RECORDS_MAGIC || lr.count > log_records_capacity(bs))
			continue; /* no records (or reported by the check) */
		for (uint32_t i = 0; i < lr.count && d->rp_len < d->rp_cap; i++) {
			uint64_t pg;

			memcpy(&pg, blk + PAGE_HEADER_SIZE + sizeof(lr) + 8 * i, 8);
			if (pg < d->lo || pg >= d->lo + d->n)
				continue;
			d->rp_pages[(d->rp_head + d->rp_len++) % d->rp_cap] = pg;
		}
	}
	(void)w;
}

/* recovery: the segment's pieces read and its pages applied? */
static void replay_check_segment(struct worker *w, struct wdb *d, uint64_t now)
{
	if (d->phase != PHASE_REPLAY || d->repl_busy || d->rp_len || d->rp_active ||
	    d->rp_off < seg_size(w))
		return;
	d->rp_ns[d->rp_seg] = now - d->rp_t0;
	d->rp_seg++;
	d->rp_off = 0;
	if (d->rp_seg >= w->run->prof->recovery_segments)
		d->phase = PHASE_DONE;
}

static void repl_done(struct worker *w, struct wdb *d, struct slot *s)
{
	const struct profile *p = w->run->prof;
	unsigned seg = (unsigned)s->page;

	d->repl_busy = false;
	if (d->phase == PHASE_REPLAY) {
		replay_parse(w, d, s);
		d->rp_off += s->len0;
		replay_check_segment(w, d, s->req.t_done_ns);
		return;
	}
	d->repl_off += s->len0;
	if (d->repl_off < seg_size(w))
		return;
	d->repl_off = 0;
	if (d->seg_owed[seg])
		d->seg_owed[seg]--;
	if (!d->seg_owed[seg]) {
		d->qhead = (d->qhead + 1) % p->log_segments;
		d->qlen--;
	}
}

/* ---- maintenance and backup scans ---- */

static bool scan_prepare(struct worker *w, struct wdb *d, uint64_t now)
{
	struct slot *s = &w->slots[d->scan_slot];
	const struct profile *p = w->run->prof;
	uint64_t end = d->lo + d->n;
	unsigned np;

	if (d->scan_busy || d->scan_done)
		return false;
	if (!backup_test(w->run) && now < d->scan_due) {
		if (d->scan_due < w->next_due)
			w->next_due = d->scan_due;
		return false;
	}
	if (d->scan_next >= end) {
		if (backup_test(w->run)) {
			d->scan_done = true;
			return false;
		}
		d->scan_next = d->lo; /* maintenance goes round again */
	}
	np = s->buf_len / p->page_size;
	if (d->scan_next + np > end)
		np = (unsigned)(end - d->scan_next);
	s->page = d->scan_next;
	s->npages = np;
	s->held = 0;
	for (unsigned i = 0; i < np; i++) {
		uint8_t *b = &d->busy[s->page + i - d->lo];

		if (!(*b & BUSY_IO)) {
			*b |= BUSY_IO;
			s->held |= 1ULL << i;
		}
	}
	if (!d->scan_t0)
		d->scan_t0 = now;
	slot_request(s, ENGINE_OP_READ, backup_test(w->run) ? IO_BACKUP_READ : IO_BDM_READ, 0,
		     2 * s->db, d->pdb->base + s->page * p->page_size, np * p->page_size, now);
	d->scan_next += np;
	if (!backup_test(w->run)) {
		d->scan_due += d->scan_gap;
		/* a slow device is not owed a burst afterwards: at most 1 s behind */
		if (d->scan_due + NSEC_PER_SEC < now)
			d->scan_due = now - NSEC_PER_SEC;
	}
	d->scan_busy = true;
	return true;
}

/* ---- the flusher ---- */

static bool flush_prepare(struct worker *w, struct wdb *d, struct slot *s, uint64_t now)
{
	struct dirty_page *dp;

	/* a page found bad since it was dirtied is not written: dropped */
	while (d->dlen && (d->busy[d->dirty[d->dhead].page - d->lo] & BUSY_BAD)) {
		d->busy[d->dirty[d->dhead].page - d->lo] &= (uint8_t)~BUSY_DIRTY;
		d->dhead = (d->dhead + 1) % d->dcap;
		d->dlen--;
	}
	if (!d->dlen)
		return false;
	dp = &d->dirty[d->dhead];
	/* write-ahead: the page's log record first; one I/O per page */
	if (dp->lsn > d->durable || (d->busy[dp->page - d->lo] & BUSY_IO))
		return false;
	s->page = dp->page;
	d->busy[dp->page - d->lo] &= (uint8_t)~BUSY_DIRTY;
	d->dhead = (d->dhead + 1) % d->dcap;
	d->dlen--;
	page_io_prepare(w, s, false, now);
	return true;
}

/* ---- streams ---- */

/* Commits a stream's transaction: dirty its pages, append its record. false
 * when it must wait (no room in the dirty list, or a non-lazy commit). */
static bool stream_commit(struct worker *w, struct slot *s)
{
	struct wdb *d = &w->dbs[s->db];
	const struct profile *p = w->run->prof;
	unsigned fresh = 0;

	if (s->txn != TXN_SEEK && s->wait != WAIT_LOG) {
		for (unsigned i = 0; i < s->ntouched; i++)
			fresh += !(d->busy[s->touched[i] - d->lo] & BUSY_DIRTY);
		if (d->dlen + fresh > d->dcap) {
			s->wait = WAIT_DIRTY;
			return false;
		}
		log_append(w, d, s->touched, s->ntouched);
		for (unsigned i = 0; i < s->ntouched; i++) {
			uint8_t *b = &d->busy[s->touched[i] - d->lo];

			if (*b & (BUSY_DIRTY | BUSY_BAD))
				continue;
			*b |= BUSY_DIRTY;
			d->dirty[(d->dhead + d->dlen++) % d->dcap] =
				(struct dirty_page){s->touched[i], d->lsn};
		}
		s->commit_lsn = d->lsn;
		if (rng_unit(&w->rng) * 100.0 >= p->lazy_commit_pct && d->durable < d->lsn) {
			s->wait = WAIT_LOG;
			return false;
		}
	}
	if (s->wait == WAIT_LOG && d->durable < s->commit_lsn)
		return false;
	s->wait = WAIT_NONE;
	s->ntouched = 0;
	return true;
}

/* Starts a stream's next transaction; false when open loop has none due. */
static bool stream_begin(struct worker *w, struct slot *s, uint64_t now)
{
	struct run *r = w->run;
	const struct profile *p = r->prof;
	double u = rng_unit(&w->rng);

	if (w->dbs[s->db].phase != PHASE_RUN)
		return false;
	if (p->arrival == PROFILE_ARRIVAL_RATE) {
		if (w->next_arrival > now) {
			if (w->next_arrival < w->next_due)
				w->next_due = w->next_arrival;
			s->wait = WAIT_ARRIVAL;
			return false;
		}
		s->t_start = w->next_arrival;
		/* Poisson arrivals: exponential gaps */
		w->next_arrival +=
			(uint64_t)(-log(1.0 - rng_unit(&w->rng)) * w->arrival_gap_ns) + 1;
	}
	s->wait = WAIT_NONE;
	s->txn = u < r->mix[0]	 ? TXN_INSERT
		 : u < r->mix[1] ? TXN_DELETE
		 : u < r->mix[2] ? TXN_REPLACE
				 : TXN_SEEK;
	s->left =
		(uint16_t)draw_pages(&w->rng, s->txn == TXN_SEEK ? p->seek_pages : p->update_pages);
	s->ntouched = 0;
	return true;
}

/* The next I/O of a stream; false when it cannot issue now (stays idle). */
static bool stream_prepare(struct worker *w, struct slot *s, uint64_t now)
{
	struct wdb *d = &w->dbs[s->db];
	const struct profile *p = w->run->prof;
	bool first;

	if (fixed_model(w->run)) {
		bool read = rng_unit(&w->rng) * 100.0 < p->read_pct;

		if (p->pattern == PROFILE_PATTERN_SEQUENTIAL) {
			uint64_t i;

			for (i = 0; i < d->n; i++) {
				if (s->cursor >= d->lo + d->n)
					s->cursor = d->lo;
				if (!(d->busy[s->cursor - d->lo] & (BUSY_IO | BUSY_BAD)))
					break;
				s->cursor++;
			}
			if (i == d->n)
				return false;
			s->page = s->cursor++;
		} else if (!pick_page(w, d, &s->page)) {
			return false;
		}
		page_io_prepare(w, s, read, now);
		return true;
	}
	if (d->phase == PHASE_REPLAY) {
		/* recovery: read a page a record names, then write it */
		if (s->left) {
			page_io_prepare(w, s, false, now);
			s->left = 0;
			return true;
		}
		while (d->rp_len && (d->busy[d->rp_pages[d->rp_head] - d->lo] & BUSY_BAD)) {
			/* found bad: not replayed over */
			d->rp_head = (d->rp_head + 1) % d->rp_cap;
			d->rp_len--;
		}
		if (!d->rp_len || (d->busy[d->rp_pages[d->rp_head] - d->lo] & BUSY_IO))
			return false;
		s->page = d->rp_pages[d->rp_head];
		d->rp_head = (d->rp_head + 1) % d->rp_cap;
		d->rp_len--;
		d->rp_active++;
		s->txn = UINT8_MAX; /* replaying */
		page_io_prepare(w, s, true, now);
		return true;
	}
	if (!s->left && !stream_begin(w, s, now))
		return false;
	if (!pick_page(w, d, &s->page))
		return false;
	first = s->ntouched == 0;
	page_io_prepare(w, s, true, now);
	if (first && s->t_start && p->arrival == PROFILE_ARRIVAL_RATE) {
		/* open loop: the first I/O counts from the intended start */
		s->t_issue = s->t_start;
		s->keep_issue = true;
	}
	return true;
}

/* Streams of d waiting for the log or the flusher that may go on. */
static void wake_waiters(struct worker *w, struct wdb *d)
{
	for (unsigned i = 0; i < d->nwait;) {
		struct slot *s = &w->slots[d->waiters[i]];

		if (stream_commit(w, s)) {
			w->idle[w->nidle++] = d->waiters[i];
			d->waiters[i] = d->waiters[--d->nwait];
		} else {
			i++;
		}
	}
}

/* recovery: a database that has written its segments drains its flusher and
 * log, then replays. */
static void recovery_step(struct worker *w, struct wdb *d, unsigned db)
{
	const struct profile *p = w->run->prof;

	if (d->phase == PHASE_RUN && d->segs_closed >= p->recovery_segments)
		d->phase = PHASE_DRAIN;
	if (d->phase != PHASE_DRAIN || d->dlen || d->nfree < p->flush_depth || d->log_busy ||
	    d->lsn != d->issued || d->repl_busy || d->qlen || d->nwait)
		return;
	for (unsigned i = 0; i < w->nslots; i++) {
		const struct slot *s = &w->slots[i];

		if (s->kind == SLOT_STREAM && s->db == db && (s->left || s->inflight))
			return;
	}
	d->phase = PHASE_REPLAY;
	d->rp_seg = 0;
	d->rp_off = 0;
}

static void worker_issue(struct worker *w, uint64_t now)
{
	/* retries first: they are older */
	for (unsigned n = w->nretry; n--;) {
		struct slot *s = &w->slots[w->retry[--w->nretry]];

		if (!worker_queue_slot(w, s, now))
			return;
	}
	if (w->stopping)
		return;
	w->next_due = UINT64_MAX;
	for (unsigned i = 0; i < w->ndb; i++) {
		struct wdb *d = &w->dbs[i];

		if (recovery_test(w->run))
			recovery_step(w, d, i);

		if (log_prepare(w, d, now) && !worker_queue_slot(w, &w->slots[d->log_slot], now))
			return;
		while (d->nfree) {
			struct slot *s = &w->slots[d->flush_free[d->nfree - 1]];

			if (!flush_prepare(w, d, s, now))
				break;
			d->nfree--;
			if (!worker_queue_slot(w, s, now))
				return;
		}
		if (d->repl_slot != UINT_MAX && repl_prepare(w, d, now) &&
		    !worker_queue_slot(w, &w->slots[d->repl_slot], now))
			return;
		if (d->scan_slot != UINT_MAX && scan_prepare(w, d, now) &&
		    !worker_queue_slot(w, &w->slots[d->scan_slot], now))
			return;
	}
	for (unsigned k = w->nidle; k--;) {
		unsigned si = w->idle[k];
		struct slot *s = &w->slots[si];

		if (!stream_prepare(w, s, now))
			continue;
		w->idle[k] = w->idle[--w->nidle];
		if (!worker_queue_slot(w, s, now))
			return;
	}
}

/*
 * A request's latency runs from just before the commit that hands it to the
 * kernel, not from when it was prepared: stamping a 32 KiB page is the
 * tool's time, not the device's. (A request that completed inside queue()
 * is already accounted and is skipped; an open-loop transaction's first I/O
 * keeps its intended start.)
 */
static void worker_stamp_fresh(struct worker *w)
{
	uint64_t t;

	if (!w->nfresh)
		return;
	t = engine_clock_now(&w->run->clock);
	for (unsigned i = 0; i < w->nfresh; i++) {
		struct slot *s = &w->slots[w->fresh[i]];

		if (!s->inflight)
			continue;
		s->req.t_submit_ns = t;
		if (!s->keep_issue)
			s->t_issue = t;
	}
	w->nfresh = 0;
}

/* Checks one page read at buf against what this run expects of it. */
static void worker_verify(struct worker *w, struct wdb *d, unsigned db, uint64_t page,
			  const void *buf, uint64_t off, struct snap *sn)
{
	bool full = !(w->ops->flags & ENGINE_F_NO_FILES);
	uint32_t *e = &d->expect[page - d->lo];
	uint32_t expect = *e & ~EXPECT_LOWER;
	bool lower = *e & EXPECT_LOWER;
	uint64_t found;
	enum page_status st;

	if (d->busy[page - d->lo] & BUSY_BAD)
		return; /* reported once; left as it was found */
	if (*e == EXPECT_BAD) {
		/* reported already; learn the page again if it reads right */
		st = page_verify(buf, w->run->prof->page_size, d->pdb->id, page, 0, full, &found);
		if (st == PAGE_OK || st == PAGE_NEWER)
			*e = (uint32_t)found;
		return;
	}
	st = page_verify(buf, w->run->prof->page_size, d->pdb->id, page, expect, full, &found);
	if (st == PAGE_OK) {
		*e = expect;
		return;
	}
	if ((expect == 0 || lower) && st == PAGE_NEWER) {
		/* unknown, or known only as a lower bound (a journal written
		 * before an unclean stop): what is there is right; learn it */
		*e = (uint32_t)found;
		return;
	}
	if (expect == 0 && st == PAGE_LOST_WRITE) {
		*e = (uint32_t)found;
		return;
	}
	sn->integrity[db]++;
	snap_msg(sn, "%s page %llu (%s offset %llu): %s (expected generation %u, found %llu)",
		 d->pdb->name, (unsigned long long)page, d->pdb->path, (unsigned long long)off,
		 page_status_name(st), expect, (unsigned long long)found);
	/* report each bad page once, and keep it as found: this run neither
	 * writes it again nor reads it for a transaction, and its journal entry
	 * stays the generation expected, so verify and the next run find it too */
	d->busy[page - d->lo] |= BUSY_BAD;
}

static const char *slot_file(const struct slot *s, const struct wdb *d)
{
	return s->kind == SLOT_LOG || s->kind == SLOT_REPL ? d->pdb->log_file : d->pdb->path;
}

/*
 * Verify after re-issue. Checking a 32 KiB page read costs a few
 * microseconds (more when the page comes from memory, as after a DMA); done
 * as each completion is reaped, a batch of completions held back every
 * stream's next I/O by the sum of them, which the device saw as idle time
 * (fewer I/Os per second than fio at the same depth). Instead the page read
 * is set aside with its buffer, the stream gets a spare buffer and is issued
 * again, and the pages are checked after that commit, in the same step. The
 * page stays BUSY_IO until checked, so nothing reads or writes it meanwhile
 * and its expected generation cannot move.
 */
static void worker_defer_verify(struct worker *w, struct slot *s, uint64_t t_done)
{
	struct pending_verify *v = &w->pv[w->npv++];

	v->buf = s->buf;
	v->buf_index = s->req.buf_index;
	v->db = s->db;
	v->page = s->page;
	v->off = s->off0;
	v->t_done = t_done;
	w->nspare--;
	s->buf = w->spare[w->nspare];
	s->req.buf_index = w->spare_index[w->nspare];
	s->req.buf = s->buf;
}

/* Checks the pages set aside, oldest first; unless all, stops as soon as a
 * completion is waiting (the engine says so), to reap and re-issue it first:
 * the rest wait for the next step. */
static void worker_verify_pending(struct worker *w, bool all)
{
	unsigned i = 0;

	if (!w->npv)
		return;
	while (i < w->npv) {
		struct pending_verify *v = &w->pv[i++];
		struct wdb *d = &w->dbs[v->db];

		/* counted in the current interval (the one it completed in, or
		 * the next when that has been handed over meanwhile) */
		worker_verify(w, d, v->db, v->page, v->buf, v->off, worker_snap_at(w, v->t_done));
		d->busy[v->page - d->lo] &= (uint8_t)~BUSY_IO;
		w->spare[w->nspare] = v->buf;
		w->spare_index[w->nspare++] = v->buf_index;
		if (worker_stamp_ready(w) && !all)
			break;
	}
	memmove(w->pv, w->pv + i, (w->npv - i) * sizeof(*w->pv));
	w->npv -= i;
}

static void worker_complete(struct worker *w, struct engine_req *req)
{
	struct slot *s = req->owner;
	struct wdb *d = &w->dbs[s->db];
	const struct profile *p = w->run->prof;
	int64_t res = req->result;
	bool ok, verify = p->verify;
	struct snap *sn;
	struct class_stats32 *cs;

	w->inflight--;
	s->inflight = false;
	if (res == -EAGAIN || res == -EINTR ||
	    (res > 0 && (uint64_t)res < req->len && res % 512 == 0)) {
		/* again, or the remainder of a short transfer, same issue time */
		if (res > 0) {
			req->offset += (uint64_t)res;
			req->buf = (char *)req->buf + res;
			req->len -= (uint32_t)res;
		}
		w->retry[w->nretry++] = (unsigned)(s - w->slots);
		return;
	}
	sn = worker_snap_at(w, req->t_done_ns);
	cs = &sn->cs[s->db * IO_CLASS_COUNT + req->cls];
	ok = res >= 0 && (uint64_t)res == req->len;
	if (!ok) {
		cs->errors++;
		atomic_fetch_add_explicit(&w->run->errors_seen, 1, memory_order_relaxed);
		snap_msg(sn, "%s: %s of %u bytes at offset %llu failed: %s", slot_file(s, d),
			 req->op == ENGINE_OP_READ ? "read" : "write", s->len0,
			 (unsigned long long)s->off0,
			 res < 0 ? strerror((int)-res) : "short transfer");
	} else {
		if (class_stats32_add(cs,
				      req->t_done_ns > s->t_issue ? req->t_done_ns - s->t_issue : 0,
				      s->len0))
			snap_msg(sn, "out of memory: an I/O of %s was not counted",
				 slot_file(s, d));
	}
	/* restore the request as issued */
	req->buf = s->buf;
	s->hung_reported = false;
	s->keep_issue = false;
	switch (s->kind) {
	case SLOT_LOG:
		d->log_busy = false;
		if (ok)
			d->durable = d->inflight_end;
		else
			d->durable = d->inflight_end; /* counted as an error; streams go on */
		wake_waiters(w, d);
		return;
	case SLOT_REPL:
		if (ok)
			repl_verify(w, s, d, sn);
		repl_done(w, d, s);
		return;
	case SLOT_SCAN:
		for (unsigned i = 0; i < s->npages; i++) {
			if (!(s->held & (1ULL << i)))
				continue;
			d->busy[s->page + i - d->lo] &= (uint8_t)~BUSY_IO;
			if (ok && verify) {
				worker_verify(w, d, s->db, s->page + i,
					      (char *)s->buf + (uint64_t)i * p->page_size,
					      s->off0 + (uint64_t)i * p->page_size, sn);
				worker_stamp_ready(w);
			}
		}
		d->scan_busy = false;
		if (ok)
			d->scan_bytes += s->len0;
		d->scan_t1 = req->t_done_ns;
		return;
	case SLOT_FLUSH:
	case SLOT_STREAM:
		break;
	}
	if (ok && verify && req->op == ENGINE_OP_READ && s->kind == SLOT_STREAM && w->nspare &&
	    s->txn != UINT8_MAX) {
		/* checked once the stream is on its way again; the page stays
		 * busy until then */
		worker_defer_verify(w, s, req->t_done_ns);
	} else {
		d->busy[s->page - d->lo] &= (uint8_t)~BUSY_IO;
		if (req->op == ENGINE_OP_WRITE)
			/* a failed write may or may not have landed */
			d->expect[s->page - d->lo] = ok ? (uint32_t)s->gen : 0;
		else if (ok && verify) {
			worker_verify(w, d, s->db, s->page, s->buf, s->off0, sn);
			worker_stamp_ready(w);
		}
	}
	if (s->kind == SLOT_FLUSH) {
		d->flush_free[d->nfree++] = (unsigned)(s - w->slots);
		wake_waiters(w, d);
		return;
	}
	if (fixed_model(w->run)) {
		w->idle[w->nidle++] = (unsigned)(s - w->slots);
		return;
	}
	if (s->txn == UINT8_MAX) {
		/* recovery: the page read, its write next; or both done */
		if (req->op == ENGINE_OP_READ) {
			s->left = 1;
			d->busy[s->page - d->lo] |= BUSY_IO; /* held for its write */
		} else {
			s->txn = TXN_SEEK;
			d->rp_active--;
			d->rp_count[d->rp_seg]++;
			replay_check_segment(w, d, req->t_done_ns);
		}
		w->idle[w->nidle++] = (unsigned)(s - w->slots);
		return;
	}
	/* a transaction's page read */
	s->touched[s->ntouched++] = s->page;
	if (s->left)
		s->left--;
	if (s->left) {
		w->idle[w->nidle++] = (unsigned)(s - w->slots);
		return;
	}
	if (stream_commit(w, s))
		w->idle[w->nidle++] = (unsigned)(s - w->slots);
	else
		d->waiters[d->nwait++] = (unsigned)(s - w->slots);
}

/*
 * Reports requests pending for at least min_age as hung, once each: an
 * I/O error of its database and class, with a message naming file, offset
 * and age. A hung request that completes later is also counted normally.
 */
static void worker_report_hung(struct worker *w, uint64_t now, uint64_t min_age)
{
	struct snap *sn = &w->snaps[w->cur % RUN_SLOTS];

	for (unsigned i = 0; i < w->nslots; i++) {
		struct slot *s = &w->slots[i];
		struct wdb *d = &w->dbs[s->db];

		/* from when the device got it (an open-loop start may be older;
		 * one queued again after now was read has age 0) */
		uint64_t age = now > s->req.t_submit_ns ? now - s->req.t_submit_ns : 0;

		if (!s->inflight || s->hung_reported || age < min_age)
			continue;
		s->hung_reported = true;
		sn->hung++;
		atomic_fetch_add_explicit(&w->run->errors_seen, 1, memory_order_relaxed);
		sn->cs[s->db * IO_CLASS_COUNT + s->req.cls].errors++;
		snap_msg(sn,
			 "%s: %s of %u bytes at offset %llu: no completion after %.1f s "
			 "(hung I/O)",
			 slot_file(s, d), s->req.op == ENGINE_OP_READ ? "read" : "write", s->len0,
			 (unsigned long long)s->off0, (double)age / 1e9);
	}
}

/* backup: every database of this worker read to its end; recovery: every
 * database replayed */
static bool worker_all_done(const struct worker *w)
{
	for (unsigned i = 0; i < w->ndb; i++) {
		const struct wdb *d = &w->dbs[i];

		if (backup_test(w->run) && (!d->scan_done || d->scan_busy))
			return false;
		if (recovery_test(w->run) && d->phase != PHASE_DONE)
			return false;
	}
	return true;
}

/* The last worker to finish its backup ends the run at this interval. */
static void worker_mark_done(struct worker *w, uint64_t now)
{
	struct run *r = w->run;
	unsigned n;

	w->done = true;
	n = atomic_fetch_add(&r->workers_done, 1) + 1;
	if (n == r->nworkers && !atomic_load(&r->stop)) {
		unsigned last = atomic_load(&r->last);
		unsigned k = grid_index(&r->grid, now, last);

		r->completed = true;
		r->stop_time = now;
		atomic_store_explicit(&r->last, k, memory_order_release);
	}
}

/* Stops issuing at the end of the test (or a stop request, or, for backup
 * and recovery, when everything is done). */
static void worker_check_stop(struct worker *w, uint64_t now)
{
	struct run *r = w->run;

	if (!w->stopping && (atomic_load_explicit(&r->stop, memory_order_acquire) ||
			     now >= r->grid.t0 + r->grid.warmup + r->grid.duration)) {
		w->stopping = true;
		w->stop_at = now;
	}
	if (!w->stopping && (backup_test(r) || recovery_test(r)) && worker_all_done(w)) {
		w->stopping = true;
		w->stop_at = now;
		worker_mark_done(w, now);
	}
}

static void worker_commit_failed(struct worker *w, int ret)
{
	w->fatal = ret;
	snprintf(w->fatal_msg, sizeof(w->fatal_msg), "%s engine: submit failed: %s", w->ops->name,
		 strerror(-ret));
}

/* One turn of the worker loop: issue, commit, reap, account. false when the
 * worker is done. */
static bool worker_step(struct worker *w)
{
	struct run *r = w->run;
	uint64_t now = engine_clock_now(&r->clock), wait, next;
	unsigned last;
	int n, ret;

	worker_check_stop(w, now);
	worker_issue(w, now);
	worker_stamp_fresh(w);
	ret = w->ops->commit(&w->ctx);
	if (ret < 0) {
		worker_commit_failed(w, ret);
		return false;
	}
	if (w->stopping && !w->inflight && !w->nretry)
		return false;
	if (w->stopping && now - w->stop_at > (atomic_load_explicit(&r->hung, memory_order_relaxed)
						       ? RUN_DRAIN_HUNG_NS
						       : RUN_DRAIN_NS)) {
		/* bounded drain: what has not completed by now is hung */
		worker_snap_at(w, now);
		worker_report_hung(w, now, 0);
		return false;
	}
	last = atomic_load_explicit(&r->last, memory_order_acquire);
	next = grid_end(&r->grid, grid_index(&r->grid, now, last));
	if (!w->stopping && w->next_due < next)
		next = w->next_due; /* maintenance or an arrival is due first */
	wait = next > now ? next - now : 0;
	if (w->stopping && r->virt)
		wait = NSEC_PER_SEC;
	if (!r->virt && (wait > RUN_REAP_WAIT_NS || (wait == 0 && !w->inflight)))
		wait = RUN_REAP_WAIT_NS;
	if (r->virt && wait == 0 && !w->inflight)
		wait = 1; /* virtual time must move */
	if (w->npv)
		wait = 0; /* pages wait for their check: no sleeping */
	n = w->ops->reap(&w->ctx, w->reaped, w->nslots, wait);
	if (n < 0) {
		w->fatal = n;
		snprintf(w->fatal_msg, sizeof(w->fatal_msg), "%s engine: reap failed: %s",
			 w->ops->name, strerror(-n));
		return false;
	}
	now = engine_clock_now(&r->clock);
	/* stamp every completion before accounting any: accounting may wait
	 * for the coordinator (worker_publish) */
	for (int i = 0; i < n && !(w->ops->flags & ENGINE_STAMPS_DONE_FLAGS); i++)
		if (!w->reaped[i]->t_done_ns) /* else stamped when it was seen ready */
			w->reaped[i]->t_done_ns = now;
	for (int i = 0; i < n; i++)
		worker_complete(w, w->reaped[i]);
	if (w->npv) {
		/* the streams whose pages wait for their check go first */
		worker_check_stop(w, now);
		worker_issue(w, now);
		worker_stamp_fresh(w);
		ret = w->ops->commit(&w->ctx);
		worker_verify_pending(w, false);
		if (ret < 0) {
			worker_commit_failed(w, ret);
			return false;
		}
		now = engine_clock_now(&r->clock);
	}
	last = w->cur;
	worker_snap_at(w, now);
	if (w->cur != last)
		worker_report_hung(w, now, r->prof->io_timeout_ns);
	return true;
}

static void worker_finish(struct worker *w)
{
	struct run *r = w->run;
	unsigned last;

	worker_verify_pending(w, true); /* pages read and not checked yet */
	if (w->done && !r->virt)
		/* backup: the last worker to finish says where the run ends */
		while (atomic_load(&r->workers_done) < r->nworkers && !atomic_load(&r->stop))
			usleep(1000);
	last = atomic_load_explicit(&r->last, memory_order_acquire);
	while (w->cur <= last)
		worker_publish(w);
}

static void *worker_thread(void *arg)
{
	struct worker *w = arg;
	struct strbuf err = STRBUF_INIT;

	if (env_numa_bind_thread(&w->numa, &err)) {
		/* affinity = hard, and the nodes' CPUs refused */
		w->fatal = -EINVAL;
		snprintf(w->fatal_msg, sizeof(w->fatal_msg), "worker %u: %s", w->index, err.buf);
	}
	strbuf_release(&err);
	while (!w->fatal && worker_step(w))
		;
	if (w->fatal) {
		/* the coordinator stops the run (lowering the last interval);
		 * publish only up to that */
		atomic_store_explicit(&w->fatal_seen, true, memory_order_release);
		while (!atomic_load_explicit(&w->run->stop, memory_order_acquire))
			usleep(1000);
	}
	worker_finish(w);
	if (w->inflight) {
		atomic_store_explicit(&w->exit_state, 2, memory_order_release);
		for (;;)
			pause(); /* every signal is blocked: until the process exits */
	}
	atomic_store_explicit(&w->exit_state, 1, memory_order_release);
	return NULL;
}

static void worker_release(struct worker *w)
{
	if (w->inflight && !w->run->virt) {
		/* I/O the device never completed may still land in these buffers:
		 * leave ring, files and buffers to the process exit */
		return;
	}
	if (w->ctx_open)
		w->ops->close(&w->ctx);
	if (w->ctx_init)
		w->ops->cleanup(&w->ctx);
	if (w->fds)
		for (unsigned i = 0; i < 2 * w->ndb; i++)
			if (w->fds[i] >= 0)
				close(w->fds[i]);
	for (unsigned i = 0; w->slots && i < w->nslots; i++) {
		free(w->slots[i].buf);
		free(w->slots[i].touched);
	}
	for (unsigned i = 0; i < w->nspare; i++)
		free(w->spare[i]);
	free(w->spare);
	free(w->spare_index);
	free(w->pv);
	for (unsigned i = 0; i < w->ndb && w->dbs; i++) {
		struct wdb *d = &w->dbs[i];

		free(d->expect);
		free(d->busy);
		free(d->dirty);
		free(d->flush_free);
		free(d->recs);
		free(d->seg_owed);
		free(d->repl_q);
		free(d->waiters);
		free(d->rp_pages);
		free(d->rp_ns);
		free(d->rp_count);
	}
	for (unsigned i = 0; i < RUN_SLOTS; i++) {
		for (unsigned j = 0; w->snaps[i].cs && j < w->ndb * IO_CLASS_COUNT; j++)
			class_stats32_release(&w->snaps[i].cs[j]);
		free(w->snaps[i].cs);
		stats_arena_release(&w->snaps[i].arena);
		free(w->snaps[i].integrity);
		free(w->snaps[i].msgs);
	}
	free(w->jcopy);
	free(w->dbs);
	free(w->slots);
	free(w->idle);
	free(w->retry);
	free(w->fresh);
	free(w->reaped);
	free(w->fds);
	free(w->files);
	free(w->iov);
}

static int worker_open_files(struct worker *w, struct strbuf *err)
{
	const struct profile *p = w->run->prof;
	int flags = O_RDWR | O_NOFOLLOW | (p->direct ? O_DIRECT : 0);

	for (unsigned i = 0; i < w->ndb; i++) {
		const char *paths[2] = {w->dbs[i].pdb->path, w->dbs[i].pdb->log_file};

		for (unsigned j = 0; j < 2; j++) {
			int fd = file_open_checked(paths[j], flags, 0,
						   FILE_OPEN_REGULAR | FILE_OPEN_BLOCK, NULL, err);

			w->fds[2 * i + j] = fd >= 0 ? fd : -1;
			if (fd < 0 && fd != -EMEDIUMTYPE)
				strbuf_addf(err, "%s: cannot open: %s", paths[j], strerror(-fd));
			if (fd < 0)
				return fd;
		}
	}
	return 0;
}

/*
 * The expected generations of the pages [lo, lo + n) of a database:
 * generation 1 from fresh on (written by init just now), the journal's below
 * (exact when it was written clean, else lower bounds), 0 (unknown) where
 * there is none.
 */
static void worker_load_journal(struct run *r, struct wdb *d, uint64_t fresh)
{
	const struct plan_db *pdb = d->pdb;
	struct journal_info ji;
	struct strbuf err = STRBUF_INIT;
	uint32_t *gens = NULL;
	bool use = false, noted = r->journal_noted[d->global];
	int ret;

	if (r->plan.files && fresh > d->lo) {
		ret = journal_read(&pdb->jloc, &ji, &gens, &err);
		use = !ret && ji.db_id == pdb->id && ji.page_size == r->prof->page_size &&
		      ji.nr_pages == pdb->nr_pages;
		/* a database shared by several workers is noted once */
		r->journal_noted[d->global] = true;
		if (noted)
			;
		else if (!ret && !use)
			strbuf_addf(&r->journal_notes,
				    "%s: journal %s does not match the file (database %u, %llu "
				    "pages of %u bytes); generations are learnt on first read\n",
				    pdb->name, pdb->journal, ji.db_id,
				    (unsigned long long)ji.nr_pages, ji.page_size);
		else if (ret && ret != -ENOENT)
			strbuf_addf(&r->journal_notes, "%s; generations are learnt on first read\n",
				    err.buf);
		else if (use && !(ji.flags & JOURNAL_CLEAN))
			strbuf_addf(&r->journal_notes,
				    "%s: journal %s is from a run that did not end cleanly "
				    "(run %llu): its generations are lower bounds; pages found "
				    "newer are accepted and learnt\n",
				    pdb->name, pdb->journal, (unsigned long long)ji.run_id);
	}
	for (uint64_t i = 0; i < d->n; i++) {
		uint64_t pg = d->lo + i;

		if (pg >= fresh)
			d->expect[i] = 1;
		else if (use && (gens[pg] & ~JOURNAL_GEN_LOWER))
			d->expect[i] = gens[pg] | ((ji.flags & JOURNAL_CLEAN) ? 0 : EXPECT_LOWER);
		else
			d->expect[i] = 0;
	}
	free(gens);
	strbuf_release(&err);
}

/* One database's generations from every worker holding a part of it. */
static void journal_gather(const struct run *r, size_t g, bool from_copies, uint32_t *out,
			   uint32_t *flags)
{
	for (unsigned wi = 0; wi < r->nworkers; wi++) {
		const struct worker *w = &r->workers[wi];
		uint64_t off = 0;

		for (unsigned i = 0; i < w->ndb; off += w->dbs[i].n, i++) {
			const struct wdb *d = &w->dbs[i];
			const uint32_t *map = from_copies ? w->jcopy + off : d->expect;

			if (d->global != g || !map)
				continue;
			/* a page known only as a lower bound stays marked so
			 * (JOURNAL_GEN_LOWER), so that the rest of a clean
			 * journal is exact: one unclean end does not make every
			 * later journal a lower bound */
			for (uint64_t k = 0; k < d->n; k++)
				out[d->lo + k] = map[k] == EXPECT_BAD ? 0 : map[k];
		}
	}
}

/*
 * Writes every database's journal from maps (the live ones at the end, the
 * workers' copies during the run); clean only at the end of a drained run.
 * A database may be shared by several workers, each with a page range.
 * 0, or the first failure's -errno with its message kept in journal_err
 * (and every failure stored as an event): a journal that cannot be written
 * fails the run, since a later run or verify would judge by an older one.
 */
/*
 * Through the page cache (direct = off) an acknowledged page write is not yet
 * on the device: the database files are flushed (fdatasync) before a journal
 * says what they hold, or a crash would leave pages older than an exact
 * journal (false lost writes). 0 or the first failure's -errno, said in err.
 */
static int sync_data_files(char *const *paths, size_t n, struct strbuf *err)
{
	for (size_t i = 0; i < n; i++) {
		int fd, ret = 0;

		if (i && !strcmp(paths[i], paths[i - 1]))
			continue; /* regions of one device */
		fd = open(paths[i], O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0 || fdatasync(fd) != 0)
			ret = -errno;
		if (fd >= 0)
			close(fd);
		if (ret) {
			strbuf_addf(err, "%s: cannot flush it before its journal: %s", paths[i],
				    strerror(-ret));
			return ret;
		}
	}
	return 0;
}

/* The database files of the run, when its writes go through the page cache
 * (NULL, 0 otherwise); the caller frees the array, not the names. */
static char **run_data_files(const struct run *r, size_t *n)
{
	char **v;

	*n = 0;
	if (r->prof->direct || !r->plan.files || !(v = calloc(r->plan.nr_dbs, sizeof(*v))))
		return NULL;
	for (size_t g = 0; g < r->plan.nr_dbs; g++)
		v[(*n)++] = r->plan.dbs[g].path;
	return v;
}

/* The journal writes alone: 0, or the first failure's -errno with its
 * message in first_err (each failure's in all, one a line); touches neither
 * the store nor the run's error state, so the journal thread may run it. */
static int journals_write(struct run *r, bool from_copies, bool clean, struct strbuf *first_err,
			  struct strbuf *all)
{
	struct strbuf err = STRBUF_INIT;
	uint32_t *tmp;
	uint64_t cap = 1;
	int first = 0;

	if (!r->plan.files)
		return 0;
	if (!r->prof->direct) {
		size_t n;
		char **files = run_data_files(r, &n);

		first = sync_data_files(files, n, first_err);
		free(files);
		if (first) {
			strbuf_addf(all, "%s\n", first_err->buf);
			return first;
		}
	}
	for (size_t g = 0; g < r->plan.nr_dbs; g++)
		if (cap < r->plan.dbs[g].nr_pages)
			cap = r->plan.dbs[g].nr_pages;
	tmp = calloc(cap, sizeof(*tmp));
	for (size_t g = 0; g < r->plan.nr_dbs; g++) {
		const struct plan_db *pdb = &r->plan.dbs[g];
		struct journal_info ji = {pdb->id,	 r->prof->page_size,
					  pdb->nr_pages, (uint64_t)r->run_id,
					  r->prof->seed, clean ? JOURNAL_CLEAN : 0};
		int ret = -ENOMEM;

		strbuf_reset(&err);
		if (tmp) {
			journal_gather(r, g, from_copies, tmp, &ji.flags);
			ret = journal_write(&pdb->jloc, &ji, tmp, &err);
			if (!ret)
				continue;
		} else {
			strbuf_addf(&err, "%s: cannot write journal: out of memory", pdb->journal);
		}
		strbuf_addf(all, "%s\n", err.buf);
		if (!first) {
			first = ret;
			strbuf_addstr(first_err, err.buf);
		}
	}
	free(tmp);
	strbuf_release(&err);
	return first;
}

/* A journal failure the coordinator learnt of: every message stored as an
 * event, the first kept to fail the run with (exit 3). */
static void journals_failed(struct run *r, const char *first, const char *all)
{
	for (const char *line = all; *line;) {
		const char *nl = strchr(line, '\n');
		char *msg = strndup(line, nl ? (size_t)(nl - line) : strlen(line));

		if (msg && r->store && !r->store_failed)
			(void)!store_event_add(r->store, r->run_id, 0, "error", msg, &r->store_err);
		free(msg);
		line = nl ? nl + 1 : line + strlen(line);
	}
	if (!r->journal_failed)
		strbuf_addstr(&r->journal_err, first);
	r->journal_failed = true;
}

/*
 * Writes every database's journal from maps (the live ones at the end, the
 * workers' copies during the run); clean only at the end of a drained run.
 * A database may be shared by several workers, each with a page range.
 * 0, or the first failure's -errno with its message kept in journal_err
 * (and every failure stored as an event): a journal that cannot be written
 * fails the run, since a later run or verify would judge by an older one.
 * The coordinator's own; the periodic writes go through the journal thread.
 */
static int run_write_journals(struct run *r, bool from_copies, bool clean)
{
	struct strbuf first = STRBUF_INIT, all = STRBUF_INIT;
	int ret = journals_write(r, from_copies, clean, &first, &all);

	if (ret)
		journals_failed(r, first.buf, all.buf);
	strbuf_release(&first);
	strbuf_release(&all);
	return ret;
}

/*
 * The journal thread. It sees nothing of the run: each write is a job that
 * the coordinator fills (the journals' places, headers and generations,
 * copied from the workers' copies) and hands over, and what it learns goes
 * back through the channel. So a thread stuck on a hung volume may outlive
 * the run (and its memory) safely: the last of the two to let go of the
 * channel frees it.
 */
struct jjob_db {
	struct journal_loc loc; /* path owned */
	struct journal_info ji;
	uint32_t *gens; /* into the job's buffer */
};

struct jjob {
	size_t n;
	struct jjob_db *dbs;
	uint32_t *buf;
	char **data; /* through the page cache: the files flushed first (owned) */
	size_t ndata;
};

struct jchan {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct jjob *job; /* asked, not yet taken */
	bool busy;	  /* a job asked or being written */
	bool done;	  /* a result not yet polled */
	bool quit;
	int result;	     /* 0, or the first failure's -errno */
	struct strbuf first; /* its message */
	struct strbuf all;   /* every failure's, one a line */
	unsigned refs;	     /* the coordinator and the thread */
};

static void jjob_free(struct jjob *j)
{
	if (!j)
		return;
	for (size_t i = 0; i < j->n; i++)
		free((char *)j->dbs[i].loc.path);
	for (size_t i = 0; i < j->ndata; i++)
		free(j->data[i]);
	free(j->data);
	free(j->dbs);
	free(j->buf);
	free(j);
}

static void jchan_put(struct jchan *c)
{
	bool last;

	pthread_mutex_lock(&c->lock);
	last = --c->refs == 0;
	pthread_mutex_unlock(&c->lock);
	if (!last)
		return;
	jjob_free(c->job);
	strbuf_release(&c->first);
	strbuf_release(&c->all);
	pthread_cond_destroy(&c->cond);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

static void *journal_thread(void *arg)
{
	struct jchan *c = arg;
	struct strbuf err = STRBUF_INIT;

	pthread_mutex_lock(&c->lock);
	for (;;) {
		struct jjob *j;
		bool unsynced = false;
		int first = 0;

		while (!c->job && !c->quit)
			pthread_cond_wait(&c->cond, &c->lock);
		if (!c->job)
			break;
		j = c->job;
		c->job = NULL;
		strbuf_reset(&c->first);
		strbuf_reset(&c->all);
		pthread_mutex_unlock(&c->lock);
		strbuf_reset(&err);
		if (sync_data_files(j->data, j->ndata, &err)) {
			/* no journal says more than the device holds */
			pthread_mutex_lock(&c->lock);
			strbuf_addf(&c->all, "%s\n", err.buf);
			strbuf_addstr(&c->first, err.buf);
			pthread_mutex_unlock(&c->lock);
			first = -EIO;
			unsynced = true;
		}
		for (size_t i = 0; !unsynced && i < j->n; i++) {
			int ret;

			strbuf_reset(&err);
			ret = journal_write(&j->dbs[i].loc, &j->dbs[i].ji, j->dbs[i].gens, &err);
			if (!ret)
				continue;
			pthread_mutex_lock(&c->lock);
			strbuf_addf(&c->all, "%s\n", err.buf);
			if (!first)
				strbuf_addstr(&c->first, err.buf);
			pthread_mutex_unlock(&c->lock);
			first = first ? first : ret;
		}
		jjob_free(j);
		pthread_mutex_lock(&c->lock);
		c->result = first;
		c->done = true;
		c->busy = false;
	}
	pthread_mutex_unlock(&c->lock);
	strbuf_release(&err);
	jchan_put(c);
	return NULL;
}

/* The job of a periodic write: every database's journal from the workers'
 * copies (what they had acknowledged at the interval just merged). NULL when
 * out of memory (the write is skipped: the journals on disk stay lower
 * bounds). */
static struct jjob *jjob_build(const struct run *r)
{
	struct jjob *j = calloc(1, sizeof(*j));
	uint64_t total = 0, off = 0;

	for (size_t g = 0; g < r->plan.nr_dbs; g++)
		total += r->plan.dbs[g].nr_pages;
	if (!j || !(j->dbs = calloc(r->plan.nr_dbs, sizeof(*j->dbs))) ||
	    !(j->buf = malloc((total ? total : 1) * sizeof(*j->buf))))
		goto out_free;
	for (size_t g = 0; g < r->plan.nr_dbs; g++, j->n++) {
		const struct plan_db *pdb = &r->plan.dbs[g];
		struct jjob_db *d = &j->dbs[g];

		d->loc = pdb->jloc;
		d->loc.path = strdup(pdb->jloc.path);
		if (!d->loc.path)
			goto out_free;
		d->ji = (struct journal_info){pdb->id,	     r->prof->page_size,
					      pdb->nr_pages, (uint64_t)r->run_id,
					      r->prof->seed, 0};
		d->gens = j->buf + off;
		off += pdb->nr_pages;
		journal_gather(r, g, true, d->gens, &d->ji.flags);
	}
	if (!r->prof->direct) {
		j->data = calloc(r->plan.nr_dbs, sizeof(*j->data));
		if (!j->data)
			goto out_free;
		for (size_t g = 0; g < r->plan.nr_dbs; g++, j->ndata++)
			if (!(j->data[g] = strdup(r->plan.dbs[g].path)))
				goto out_free;
	}
	return j;
out_free:
	jjob_free(j);
	return NULL;
}

/* What the journal thread did last, once: a failure fails the run. */
static void journal_thread_poll(struct run *r)
{
	struct jchan *c = r->jchan;
	struct strbuf first = STRBUF_INIT, all = STRBUF_INIT;
	int result = 0;

	if (!c)
		return;
	pthread_mutex_lock(&c->lock);
	if (c->done) {
		c->done = false;
		result = c->result;
		strbuf_addstr(&first, c->first.buf);
		strbuf_addstr(&all, c->all.buf);
	}
	pthread_mutex_unlock(&c->lock);
	if (result) {
		journals_failed(r, first.buf, all.buf);
		r->env_failed = true;
		coord_stop(r, 0, r->journal_err.buf);
	}
	strbuf_release(&first);
	strbuf_release(&all);
}

/* Asks for a periodic journal write; skipped while the last is not done. */
static void journal_thread_ask(struct run *r)
{
	struct jchan *c = r->jchan;
	struct jjob *j;
	bool busy;

	if (!c)
		return;
	pthread_mutex_lock(&c->lock);
	busy = c->busy;
	pthread_mutex_unlock(&c->lock);
	if (busy || !(j = jjob_build(r)))
		return;
	pthread_mutex_lock(&c->lock);
	c->job = j;
	c->busy = true;
	pthread_cond_signal(&c->cond);
	pthread_mutex_unlock(&c->lock);
}

static int journal_thread_start(struct run *r)
{
	struct jchan *c;
	sigset_t all, old;
	pthread_t t;
	int ret;

	if (!r->plan.files || r->jchan)
		return 0;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->cond, NULL);
	strbuf_init(&c->first);
	strbuf_init(&c->all);
	c->refs = 2;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	ret = pthread_create(&t, NULL, journal_thread, c);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		c->refs = 1;
		jchan_put(c);
		return -ret;
	}
	pthread_detach(t);
	r->jchan = c;
	return 0;
}

/*
 * Ends the journal thread: waits for a write in progress unless the run saw
 * a hung I/O (the write waits on the hung filesystem then: it is left to
 * finish, or to the process exit, on its own).
 */
static void journal_thread_stop(struct run *r)
{
	struct jchan *c = r->jchan;

	if (!c)
		return;
	pthread_mutex_lock(&c->lock);
	c->quit = true;
	pthread_cond_signal(&c->cond);
	while (c->busy && !r->hung_seen) {
		pthread_mutex_unlock(&c->lock);
		usleep(1000);
		pthread_mutex_lock(&c->lock);
	}
	pthread_mutex_unlock(&c->lock);
	journal_thread_poll(r);
	r->jchan = NULL;
	jchan_put(c);
}

/*
 * Before the first write of a run (and of each auto-tune level): every
 * journal is rewritten as belonging to a run in progress, so that a crash
 * at any later instant leaves lower bounds, never an exact-looking journal
 * older than the pages (which a later run or verify would call corrupt).
 * The maps are what the workers loaded; nothing has been written yet.
 */
static int run_mark_journals(struct run *r)
{
	return run_write_journals(r, false, false);
}

/* One database of a worker: its pages, the flusher, the log, replication,
 * maintenance. */
static int wdb_setup(struct run *r, struct wdb *d, unsigned global, uint64_t lo, uint64_t n)
{
	const struct profile *p = r->prof;
	const struct plan_db *pdb = &r->plan.dbs[global];

	d->pdb = pdb;
	d->global = global;
	d->lo = lo;
	d->n = n;
	d->log_align = r->plan.vols[pdb->volume].log_align;
	d->expect = malloc(n * sizeof(*d->expect));
	d->busy = calloc(n, 1);
	d->repl_slot = d->scan_slot = d->log_slot = UINT_MAX;
	if (!d->expect || !d->busy)
		return -ENOMEM;
	/* pages written by init in this very invocation hold generation 1;
	 * older ones come from the journal, else are learnt on first read */
	worker_load_journal(r, d, r->fresh_from ? r->fresh_from[global] : 0);
	if (fixed_model(r) || backup_test(r))
		return 0;
	if (recovery_test(r)) {
		d->rp_cap = 65536;
		d->rp_pages = calloc(d->rp_cap, sizeof(*d->rp_pages));
		d->rp_ns = calloc(p->recovery_segments, sizeof(*d->rp_ns));
		d->rp_count = calloc(p->recovery_segments, sizeof(*d->rp_count));
		if (!d->rp_pages || !d->rp_ns || !d->rp_count)
			return -ENOMEM;
	}
	/* dirty pages a database may hold: enough for its streams to run
	 * ahead of the flusher, as a database cache would */
	d->dcap = (unsigned)(n < 4096 ? n : 4096);
	d->dirty = calloc(d->dcap, sizeof(*d->dirty));
	d->flush_free = calloc(p->flush_depth, sizeof(*d->flush_free));
	d->rcap = 65536;
	d->recs = calloc(d->rcap, sizeof(*d->recs));
	d->seg_owed = calloc(p->log_segments, 1);
	d->repl_q = calloc(p->log_segments, sizeof(*d->repl_q));
	if (!d->dirty || !d->flush_free || !d->recs || !d->seg_owed || !d->repl_q)
		return -ENOMEM;
	return 0;
}

/* Sets up worker w: databases dbs[] (global indices) with their page ranges
 * and stream counts. */
static int worker_setup(struct run *r, struct worker *w, const unsigned *dbs, const uint64_t *lo,
			const uint64_t *cnt, unsigned ndb, const unsigned *streams_per_db,
			struct strbuf *err)
{
	const struct profile *p = r->prof;
	bool txn = !fixed_model(r) && !backup_test(r);
	unsigned nstreams = 0, si = 0, per_db;
	int ret = -ENOMEM;

	w->run = r;
	w->ndb = ndb;
	w->rng = p->seed * 0x9e3779b97f4a7c15ULL + w->index + 1;
	w->next_due = UINT64_MAX;
	for (unsigned i = 0; i < ndb; i++)
		nstreams += streams_per_db[i];
	/* per database: log, replication and maintenance, and the flusher */
	per_db = txn ? 1 + (p->copies > 1 || recovery_test(r)) + p->bdm + p->flush_depth
		 : backup_test(r) ? 1
				  : 0;
	w->nslots = nstreams + ndb * per_db;
	w->dbs = calloc(ndb, sizeof(*w->dbs));
	w->slots = calloc(w->nslots, sizeof(*w->slots));
	w->idle = calloc(w->nslots, sizeof(*w->idle));
	w->retry = calloc(w->nslots, sizeof(*w->retry));
	w->fresh = calloc(w->nslots, sizeof(*w->fresh));
	w->reaped = calloc(w->nslots, sizeof(*w->reaped));
	w->fds = malloc(2 * ndb * sizeof(*w->fds));
	for (unsigned i = 0; w->fds && i < 2 * ndb; i++)
		w->fds[i] = -1;
	w->files = calloc(2 * ndb, sizeof(*w->files));
	/* verify after re-issue (worker_defer_verify): a spare page buffer per
	 * stream; not for sim (no page content) nor recovery (a page read is
	 * written back from its buffer) */
	if (p->verify && !(r->ops->flags & ENGINE_F_NO_FILES) && !recovery_test(r) &&
	    !backup_test(r) && nstreams) {
		w->spare = calloc(nstreams, sizeof(*w->spare));
		w->spare_index = calloc(nstreams, sizeof(*w->spare_index));
		w->pv = calloc(nstreams, sizeof(*w->pv));
		if (!w->spare || !w->spare_index || !w->pv)
			goto out_nomem;
	}
	w->iov = calloc(w->nslots + (w->spare ? nstreams : 0), sizeof(*w->iov));
	if (!w->dbs || !w->slots || !w->idle || !w->retry || !w->fresh || !w->reaped || !w->fds ||
	    !w->files || !w->iov)
		goto out_nomem;
	for (unsigned i = 0; i < RUN_SLOTS; i++) {
		w->snaps[i].cs = calloc(ndb * IO_CLASS_COUNT, sizeof(*w->snaps[i].cs));
		w->snaps[i].integrity = calloc(ndb, sizeof(uint64_t));
		if (!w->snaps[i].cs || !w->snaps[i].integrity ||
		    stats_arena_init(&w->snaps[i].arena, (size_t)ndb * IO_CLASS_COUNT))
			goto out_nomem;
		w->snaps[i].kept = &r->msgs_kept;
		snap_reset(&w->snaps[i], ndb);
	}
	for (unsigned i = 0; i < ndb; i++) {
		struct wdb *d = &w->dbs[i];
		const struct plan_db *pdb = &r->plan.dbs[dbs[i]];

		if (wdb_setup(r, d, dbs[i], lo[i], cnt[i]))
			goto out_nomem;
		if (streams_per_db[i]) {
			d->waiters = calloc(streams_per_db[i], sizeof(*d->waiters));
			if (!d->waiters)
				goto out_nomem;
		}
		w->files[2 * i] =
			(struct engine_file){pdb->size, pdb->volume, p->page_size, pdb->id};
		w->files[2 * i + 1] = (struct engine_file){pdb->log_size, pdb->volume, 0, pdb->id};
		for (unsigned k = 0; k < streams_per_db[i]; k++, si++) {
			struct slot *s = &w->slots[si];

			s->kind = SLOT_STREAM;
			s->db = i;
			s->buf_len = p->page_size;
			/* sequential streams start spread over the range */
			s->cursor = d->lo + d->n * k / streams_per_db[i];
			if (txn) {
				s->touched = calloc(TXN_MAX_PAGES, sizeof(*s->touched));
				if (!s->touched)
					goto out_nomem;
			}
			w->idle[w->nidle++] = si;
		}
	}
	for (unsigned i = 0; i < ndb && per_db; i++) {
		struct wdb *d = &w->dbs[i];
		uint64_t lmax = seg_size(w) < RUN_LOG_MAX ? seg_size(w) : RUN_LOG_MAX;
		uint64_t rmax = seg_size(w) < RUN_REPL_MAX ? seg_size(w) : RUN_REPL_MAX;

		if (backup_test(r)) {
			w->slots[si] = (struct slot){
				.kind = SLOT_SCAN, .db = i, .buf_len = p->backup_io_size};
			d->scan_slot = si++;
			d->scan_next = d->lo;
			continue;
		}
		w->slots[si] = (struct slot){.kind = SLOT_LOG,
					     .db = i,
					     .buf_len = (uint32_t)(lmax - lmax % d->log_align)};
		d->log_slot = si++;
		if (p->copies > 1 || recovery_test(r)) {
			w->slots[si] =
				(struct slot){.kind = SLOT_REPL,
					      .db = i,
					      .buf_len = (uint32_t)(rmax - rmax % d->log_align)};
			d->repl_slot = si++;
		}
		if (p->bdm) {
			w->slots[si] = (struct slot){
				.kind = SLOT_SCAN, .db = i, .buf_len = p->bdm_io_size};
			d->scan_slot = si++;
			d->scan_next = d->lo;
			d->scan_gap =
				(uint64_t)((double)p->bdm_io_size * 1e9 / (double)p->bdm_rate);
			/* databases start their scans staggered over one gap */
			d->scan_due = engine_clock_now(&r->clock) + d->scan_gap * i / ndb;
		}
		for (unsigned k = 0; k < p->flush_depth; k++) {
			w->slots[si] =
				(struct slot){.kind = SLOT_FLUSH, .db = i, .buf_len = p->page_size};
			d->flush_free[d->nfree++] = si++;
		}
	}
	for (unsigned i = 0; i < w->nslots; i++) {
		struct slot *s = &w->slots[i];

		if (posix_memalign(&s->buf, 4096, s->buf_len))
			goto out_nomem;
		memset(s->buf, 0, s->buf_len);
		s->req.owner = s;
		s->req.buf_index = (int32_t)i;
		s->req.buf = s->buf;
		w->iov[i].iov_base = s->buf;
		w->iov[i].iov_len = s->buf_len;
	}
	for (unsigned i = 0; w->spare && i < nstreams; i++) {
		void *b;

		if (posix_memalign(&b, 4096, p->page_size))
			goto out_nomem;
		memset(b, 0, p->page_size);
		w->spare[w->nspare] = b;
		w->spare_index[w->nspare++] = (int32_t)(w->nslots + i);
		w->iov[w->nslots + i].iov_base = b;
		w->iov[w->nslots + i].iov_len = p->page_size;
	}
	/* streams issue in slot order */
	for (unsigned i = 0; i < w->nidle / 2; i++) {
		unsigned t = w->idle[i];

		w->idle[i] = w->idle[w->nidle - 1 - i];
		w->idle[w->nidle - 1 - i] = t;
	}
	if (!(r->ops->flags & ENGINE_F_NO_FILES)) {
		uint64_t pages = 0;

		for (unsigned i = 0; i < ndb; i++)
			pages += w->dbs[i].n;
		w->jcopy = malloc(pages * sizeof(*w->jcopy));
		if (!w->jcopy)
			goto out_nomem;
		ret = worker_open_files(w, err);
		if (ret)
			return ret;
	}
	w->ops = r->ops;
	w->ctx.depth = w->nslots;
	w->ctx.fds = (r->ops->flags & ENGINE_F_NO_FILES) ? NULL : w->fds;
	w->ctx.files = w->files;
	w->ctx.nr_files = 2 * ndb;
	w->ctx.nr_devices = (unsigned)r->plan.nr_vols;
	w->ctx.bufs = w->iov;
	w->ctx.nr_bufs = w->nslots + w->nspare;
	w->ctx.clock = &r->clock;
	w->ctx.sim = &p->sim;
	w->ctx.seed = w->index;
	ret = w->ops->init(&w->ctx, err);
	if (ret)
		return ret;
	w->ctx_init = true;
	return 0; /* opened by setup_workers once every ring is set up */
out_nomem:
	strbuf_addstr(err, "out of memory setting up a worker");
	return -ENOMEM;
}

static unsigned online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (unsigned)n : 1;
}

/*
 * Workers and what each drives. The jetstress model and backup: databases
 * round robin over the workers (at most one worker per database), streams
 * spread evenly over databases. The fixed model: every worker drives every
 * database, each a page range of it, so one file still uses every worker.
 */
static int run_setup_workers(struct run *r, struct strbuf *err)
{
	const struct profile *p = r->prof;
	unsigned ndb = (unsigned)r->plan.nr_dbs, nw, streams = r->streams;
	unsigned *dbs = NULL, *spd = NULL, *spd_all = NULL;
	uint64_t *lo = NULL, *cnt = NULL;
	bool fixed = fixed_model(r), nm_built = false, *drv = NULL;
	struct env_numa_map nm;
	int ret = -ENOMEM;

	if (!streams)
		streams = 2 * ndb;
	/* warm-up, replay and stream-count rules: profile validation's */
	if (backup_test(r))
		streams = 0;
	nw = r->virt ? 1 : (p->workers ? p->workers : online_cpus());
	if (fixed && nw > streams)
		nw = streams;
	if (!fixed && nw > ndb)
		nw = ndb;
	{
		double acc = 0, tot = p->insert_pct + p->delete_pct + p->replace_pct + p->seek_pct;

		acc += p->insert_pct;
		r->mix[0] = acc / tot;
		acc += p->delete_pct;
		r->mix[1] = acc / tot;
		acc += p->replace_pct;
		r->mix[2] = acc / tot;
		r->mix[3] = 1.0;
	}
	ret = env_numa_map_build_plan(&nm, &r->plan);
	if (ret)
		goto out;
	nm_built = true;
	drv = calloc(r->plan.nr_vols, sizeof(*drv));
	r->workers = calloc(nw, sizeof(*r->workers));
	dbs = calloc(ndb, sizeof(*dbs));
	spd = calloc(ndb, sizeof(*spd));
	spd_all = calloc(ndb, sizeof(*spd_all));
	lo = calloc(ndb, sizeof(*lo));
	cnt = calloc(ndb, sizeof(*cnt));
	ret = -ENOMEM;
	if (!r->workers || !dbs || !spd || !spd_all || !lo || !cnt || !drv)
		goto out;
	r->nworkers = nw;
	for (unsigned i = 0; i < ndb; i++)
		spd_all[i] = streams / ndb + (i < streams % ndb ? 1 : 0);
	for (unsigned wi = 0; wi < nw; wi++) {
		struct worker *w = &r->workers[wi];
		unsigned n = 0, wstreams = 0;

		if (fixed) {
			/* worker wi: its share of every database's pages and streams */
			for (unsigned i = 0; i < ndb; i++) {
				uint64_t np = r->plan.dbs[i].nr_pages;

				dbs[n] = i;
				lo[n] = np * wi / nw;
				cnt[n] = np * (wi + 1) / nw - lo[n];
				spd[n] = spd_all[i] / nw + (wi < spd_all[i] % nw ? 1 : 0);
				if (cnt[n] && spd[n])
					wstreams += spd[n], n++;
			}
		} else {
			for (unsigned i = wi; i < ndb; i += nw) {
				dbs[n] = i;
				lo[n] = 0;
				cnt[n] = r->plan.dbs[i].nr_pages;
				spd[n] = spd_all[i];
				wstreams += spd[n];
				n++;
			}
		}
		w->index = wi;
		if (p->arrival == PROFILE_ARRIVAL_RATE && streams) {
			/* this worker's share of the arrivals, by its streams */
			double rate = p->rate * (double)wstreams / (double)streams;

			w->arrival_gap_ns = rate > 0 ? 1e9 / rate : 1e18;
			w->next_arrival = engine_clock_now(&r->clock);
		}
		/* the worker runs (and its memory lives) near the disks it drives */
		memset(drv, 0, r->plan.nr_vols * sizeof(*drv));
		for (unsigned k = 0; k < n; k++)
			drv[r->plan.dbs[dbs[k]].volume] = true;
		if (env_numa_place(&nm, drv, r->virt ? PROFILE_AFFINITY_NONE : p->affinity,
				   &w->numa)) {
			strbuf_addf(err, "affinity = hard: %s", w->numa.note);
			ret = -ENODEV;
			goto out;
		}
		{
			struct env_numa_saved sv;

			ret = env_numa_setup_enter(&w->numa, &sv, err);
			if (!ret)
				ret = worker_setup(r, w, dbs, lo, cnt, n, spd, err);
			env_numa_setup_leave(&sv);
		}
		if (ret)
			goto out;
	}
	/*
	 * Every worker's ring first, then each one's registrations: a kernel
	 * that charges ring memory to the memlock limit (6.13's regions) would
	 * otherwise refuse the second ring once the first worker's fixed
	 * buffers had taken what the limit leaves.
	 */
	for (unsigned i = 0; i < r->nworkers; i++) {
		struct worker *w = &r->workers[i];

		ret = w->ops->open(&w->ctx, err);
		if (ret)
			goto out;
		w->ctx_open = true;
	}
	ret = 0;
out:
	if (nm_built)
		env_numa_map_release(&nm);
	free(drv);
	if (ret == -ENOMEM && !err->len)
		strbuf_addstr(err, "out of memory");
	free(dbs);
	free(spd);
	free(spd_all);
	free(lo);
	free(cnt);
	return ret;
}

/* ---- coordinator ---- */

static void add_row(struct run *r, size_t *n, uint64_t t_ms, bool warm, enum scope_kind scope,
		    const char *name, unsigned c, const struct class_stats *cs)
{
	struct store_sample *row;

	if (*n == r->rows_cap) {
		size_t cap = r->rows_cap ? r->rows_cap * 2 : 64;
		struct store_sample *nr = realloc(r->rows, cap * sizeof(*nr));

		if (!nr)
			abort();
		r->rows = nr;
		r->rows_cap = cap;
	}
	row = &r->rows[(*n)++];
	row->t_ms = t_ms;
	row->warmup = warm;
	row->scope = scope;
	row->scope_name = name;
	row->cls = (enum io_class)c;
	row->ios = cs->lat.count;
	row->bytes = cs->bytes;
	row->errors = cs->errors;
	row->lat_sum_ns = cs->lat.sum_ns;
	row->lat_max_ns = cs->lat.max_ns;
	row->p50_ns = hist_percentile(&cs->lat, 50);
	row->p99_ns = hist_percentile(&cs->lat, 99);
}

static void coord_store_error(struct run *r, int ret)
{
	(void)ret;
	if (r->store_failed)
		return;
	r->store_failed = true;
	coord_stop(r, 0, "stopped: the results file cannot be written");
}

/* A worker that met an engine error ends the run: environment error. */
static void coord_check_fatal(struct run *r)
{
	for (unsigned i = 0; i < r->nworkers; i++) {
		struct worker *w = &r->workers[i];

		if (!atomic_load_explicit(&w->fatal_seen, memory_order_acquire))
			continue;
		r->env_failed = true;
		coord_stop(r, 0, w->fatal_msg);
		return;
	}
}

/* Stops the run once the workers have seen max_errors I/O errors; checked
 * between intervals too, so the stop comes soon after the last one allowed. */
static bool coord_check_errors(struct run *r)
{
	uint64_t n = atomic_load_explicit(&r->errors_seen, memory_order_relaxed);
	char why[128];

	if (!r->prof->max_errors || n < r->prof->max_errors || atomic_load(&r->stop))
		return false;
	snprintf(why, sizeof(why), "stopped after %llu I/O errors ([test] max_errors = %llu)",
		 (unsigned long long)n, (unsigned long long)r->prof->max_errors);
	coord_stop(r, 0, why);
	return true;
}

/* Stops the run when it can no longer say anything true: a hung I/O, too
 * many I/O errors, or a volume whose directory has gone. */
static void coord_check_health(struct run *r, uint64_t hung)
{
	char why[256];
	struct stat st;

	if (atomic_load(&r->stop))
		return;
	if (hung) {
		snprintf(
			why, sizeof(why),
			"stopped: %llu I/O(s) got no completion within %.1f s ([test] io_timeout); "
			"the device hangs",
			(unsigned long long)hung, (double)r->prof->io_timeout_ns / 1e9);
		coord_stop(r, 0, why);
		return;
	}
	if (coord_check_errors(r))
		return;
	for (size_t v = 0; r->plan.files && v < r->plan.nr_vols; v++) {
		const char *dirs[2] = {r->plan.vols[v].path, r->plan.vols[v].log_path};

		for (unsigned j = 0; j < 2; j++) {
			if (stat(dirs[j], &st) == 0 || errno != ENOENT)
				continue;
			snprintf(why, sizeof(why),
				 "volume %s: directory %s disappeared during the run",
				 r->plan.vols[v].name, dirs[j]);
			r->env_failed = true;
			coord_stop(r, 0, why);
			return;
		}
	}
}

static void win_acc_add(struct win_acc *a, const struct hist *h)
{
	double v;

	if (!h->count)
		return;
	v = hist_mean(h) / 1e6;
	a->n++;
	a->sum += v;
	a->sumsq += v * v;
	if (v > a->max)
		a->max = v;
}

/* A measured 15 s window ends: its averages per database, volume and run. */
static void coord_window_stats(struct run *r)
{
	size_t nv = r->plan.nr_vols;

	if (!r->wacc_db)
		return;
	for (unsigned c = 0; c < IO_CLASS_COUNT; c++) {
		struct hist all;

		hist_init(&all);
		for (size_t d = 0; d < r->plan.nr_dbs; d++)
			win_acc_add(&r->wacc_db[d * IO_CLASS_COUNT + c],
				    &r->win_db[d * IO_CLASS_COUNT + c].lat);
		for (size_t v = 0; v < nv; v++) {
			win_acc_add(&r->wacc_vol[v * IO_CLASS_COUNT + c],
				    &r->win_vol[v * IO_CLASS_COUNT + c].lat);
			hist_merge(&all, &r->win_vol[v * IO_CLASS_COUNT + c].lat);
		}
		win_acc_add(&r->wacc_run[c], &all);
	}
}

static void win_stats(struct eval_window_stats *out, const struct win_acc *a, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		double mean = a[i].n ? a[i].sum / a[i].n : 0, var;

		out[i] = (struct eval_window_stats){a[i].n, a[i].max, mean, 0};
		if (a[i].n >= 2 && mean > 0) {
			var = (a[i].sumsq - a[i].n * mean * mean) / (a[i].n - 1);
			out[i].cv = var > 0 ? sqrt(var) / mean : 0;
		}
	}
}

/* The window's latency histograms per volume x class, then a new window. */
static void coord_window_hists(struct run *r, uint64_t t_ms, bool warm)
{
	size_t n = r->plan.nr_vols * IO_CLASS_COUNT;
	struct store_interval_hist *rows = calloc(n, sizeof(*rows));

	for (size_t v = 0; rows && v < r->plan.nr_vols; v++)
		for (unsigned c = 0; c < IO_CLASS_COUNT; c++)
			rows[v * IO_CLASS_COUNT + c] = (struct store_interval_hist){
				t_ms,
				warm,
				SCOPE_VOLUME,
				r->plan.vols[v].name,
				(enum io_class)c,
				&r->win_vol[v * IO_CLASS_COUNT + c].lat};
	if (rows && r->store && !r->store_failed &&
	    store_interval_hists_write(r->store, r->run_id, rows, n, &r->store_err))
		coord_store_error(r, -EIO);
	free(rows);
	for (size_t i = 0; i < n; i++)
		class_stats_reset(&r->win_vol[i]);
}

/* Ends the level being measured: the workers drain and stop at interval k. */
static void tune_end_level(struct run *r, unsigned k)
{
	r->stop_time = engine_clock_now(&r->clock);
	atomic_store_explicit(&r->last, k, memory_order_release);
	atomic_store_explicit(&r->stop, true, memory_order_release);
}

/* Auto-tune: one interval of the level being measured. When a window is
 * complete, its worst database figures go to the search. */
static void tune_interval(struct run *r, unsigned k)
{
	struct tune_window w = {0};
	double secs = (double)r->tune_win * (double)RUN_INTERVAL_NS / 1e9;
	uint64_t rd = 0, wr = 0;
	int ret;

	if (++r->tune_nint < r->tune_win)
		return;
	for (size_t d = 0; d < r->plan.nr_dbs; d++) {
		const struct class_stats *cs = &r->win_db[d * IO_CLASS_COUNT];
		double ra = hist_mean(&cs[IO_DB_READ].lat) / 1e6;
		double la = hist_mean(&cs[IO_LOG_WRITE].lat) / 1e6;

		rd += cs[IO_DB_READ].lat.count;
		wr += cs[IO_DB_WRITE].lat.count;
		if (ra >= w.read_avg_ms) {
			w.read_avg_ms = ra;
			snprintf(w.read_db, sizeof(w.read_db), "%s", r->plan.dbs[d].name);
		}
		if (la >= w.log_avg_ms) {
			w.log_avg_ms = la;
			snprintf(w.log_db, sizeof(w.log_db), "%s", r->plan.dbs[d].name);
		}
		if ((double)cs[IO_DB_READ].lat.max_ns / 1e6 > w.read_max_ms)
			w.read_max_ms = (double)cs[IO_DB_READ].lat.max_ns / 1e6;
		if ((double)cs[IO_LOG_WRITE].lat.max_ns / 1e6 > w.log_max_ms)
			w.log_max_ms = (double)cs[IO_LOG_WRITE].lat.max_ns / 1e6;
		for (unsigned c = 0; c < IO_CLASS_COUNT; c++)
			w.errors += cs[c].errors;
	}
	for (size_t i = 0; i < r->plan.nr_dbs * IO_CLASS_COUNT; i++)
		class_stats_reset(&r->win_db[i]);
	r->tune_nint = 0;
	w.iops = (double)(rd + wr) / secs;
	ret = tuner_window(r->tune, &w);
	r->tune_state = ret < 0 ? TUNE_DONE : ret;
	if (ret < 0)
		tuner_stop(r->tune, "out of memory");
	if (r->tune_state != TUNE_MORE)
		tune_end_level(r, k);
}

/* The interval just merged, for the live view: the run's figures and each
 * volume's (an array built here, on the coordinator, once an interval:
 * workers pay nothing for it; freed when the callback returns). */
static void coord_view(struct run *r, unsigned k)
{
	const struct grid *g = &r->grid;
	uint64_t len = grid_end(g, k) - grid_start(g, k);
	struct run_interval_view view = {0};
	struct run_volume_view *vols;
	size_t nv = r->plan.nr_vols;

	if (!r->opt->cb.interval)
		return;
	view.index = k;
	view.warmup = k < g->nw;
	view.draining = atomic_load_explicit(&r->stop, memory_order_acquire);
	view.elapsed_ns = grid_end(g, k) - g->t0;
	view.total_ns = g->warmup + g->duration;
	view.tuning_streams = r->tune ? r->streams : 0;
	for (unsigned c = 0; c < IO_CLASS_COUNT; c++) {
		view.iops[c] = len ? (double)r->iv_run[c].lat.count * 1e9 / (double)len : 0;
		view.avg_ms[c] = hist_mean(&r->iv_run[c].lat) / 1e6;
		view.p99_ms[c] = (double)hist_percentile(&r->iv_run[c].lat, 99) / 1e6;
	}
	view.errors = r->io_errors;
	view.integrity_errors = r->integrity_errors;
	view.db_read_avg_ms = (double)r->prof->thresholds.db_read_avg_ns / 1e6;
	view.log_write_avg_ms = (double)r->prof->thresholds.log_write_avg_ns / 1e6;
	vols = calloc(nv ? nv : 1, sizeof(*vols));
	for (size_t v = 0; vols && v < nv; v++) {
		const struct plan_volume *pv = &r->plan.vols[v];

		vols[v].name = pv->name;
		for (unsigned c = 0; c < IO_CLASS_COUNT; c++) {
			const struct hist *h = &r->iv_vol[v * IO_CLASS_COUNT + c].lat;

			vols[v].iops[c] = len ? (double)h->count * 1e9 / (double)len : 0;
			vols[v].avg_ms[c] = hist_mean(h) / 1e6;
			vols[v].p99_ms[c] = (double)hist_percentile(h, 99) / 1e6;
		}
		for (unsigned d = pv->first_db; d < pv->first_db + pv->nr_dbs; d++) {
			for (unsigned c = 0; c < IO_CLASS_COUNT; c++)
				vols[v].errors += r->tot_db[d * IO_CLASS_COUNT + c].errors;
			vols[v].integrity_errors += r->integ_db[d];
		}
	}
	view.vols = vols;
	view.nr_vols = vols ? nv : 0;
	r->opt->cb.interval(r->opt->cb.arg, &view);
	free(vols);
}

static void coord_collect(struct run *r, unsigned k)
{
	const struct grid *g = &r->grid;
	unsigned nv = (unsigned)r->plan.nr_vols, last;
	bool warm = k < g->nw;
	uint64_t t_ms = (grid_end(g, k) - g->t0) / NSEC_PER_MSEC;
	size_t nrows = 0;
	uint64_t hung = 0;
	int ret;

	if (r->stop_time && k == atomic_load_explicit(&r->last, memory_order_acquire)) {
		/* a run stopped early: its last interval ends when the drain did,
		 * so that rates over the warm-up count only time that ran */
		uint64_t now = engine_clock_now(&r->clock);

		if (now < grid_end(g, k) && now > g->t0)
			t_ms = (now - g->t0) / NSEC_PER_MSEC;
	}

	for (unsigned i = 0; i < nv * IO_CLASS_COUNT; i++)
		class_stats_reset(&r->iv_vol[i]);
	for (unsigned c = 0; c < IO_CLASS_COUNT; c++)
		class_stats_reset(&r->iv_run[c]);
	for (unsigned wi = 0; wi < r->nworkers; wi++) {
		struct worker *w = &r->workers[wi];
		struct snap *sn = &w->snaps[k % RUN_SLOTS];

		for (unsigned i = 0; i < w->ndb; i++) {
			unsigned gdb = w->dbs[i].global, v = w->dbs[i].pdb->volume;

			for (unsigned c = 0; c < IO_CLASS_COUNT; c++) {
				const struct class_stats32 *cs = &sn->cs[i * IO_CLASS_COUNT + c];
				struct class_stats *tot = &r->tot_db[gdb * IO_CLASS_COUNT + c];

				/* per database here; per volume window and per run
				 * from iv_vol below (the same sums, 20 times fewer
				 * merges with 20 databases a volume) */
				class_stats_merge32(&r->iv_vol[v * IO_CLASS_COUNT + c], cs);
				class_stats_merge32(&r->win_db[gdb * IO_CLASS_COUNT + c], cs);
				if (!warm)
					class_stats_merge32(tot, cs);
				else
					tot->errors += cs->errors; /* errors always count */
				r->io_errors += cs->errors;
			}
			r->integ_db[gdb] += sn->integrity[i];
			r->integrity_errors += sn->integrity[i];
		}
		hung += sn->hung;
		if (sn->hung) {
			r->hung_seen = true;
			atomic_store_explicit(&r->hung, true, memory_order_relaxed);
		}
		for (unsigned m = 0; m < sn->nmsgs && r->store && !r->store_failed; m++) {
			ret = store_event_add(r->store, r->run_id, t_ms, "error", sn->msgs[m],
					      &r->store_err);
			if (ret)
				coord_store_error(r, ret);
		}
		r->msgs_dropped += sn->dropped_msgs;
		atomic_store_explicit(&w->consumed, k + 1, memory_order_release);
	}
	for (unsigned v = 0; v < nv; v++)
		for (unsigned c = 0; c < IO_CLASS_COUNT; c++) {
			const struct class_stats *iv = &r->iv_vol[v * IO_CLASS_COUNT + c];

			class_stats_merge(&r->win_vol[v * IO_CLASS_COUNT + c], iv);
			class_stats_merge(&r->iv_run[c], iv);
		}
	if (r->tune) {
		/* auto-tune: nothing is stored per interval; the search decides */
		r->collected = k + 1;
		tune_interval(r, k);
		coord_check_health(r, hung);
		coord_view(r, k);
		return;
	}
	for (unsigned v = 0; v < nv; v++)
		for (unsigned c = 0; c < IO_CLASS_COUNT; c++)
			add_row(r, &nrows, t_ms, warm, SCOPE_VOLUME, r->plan.vols[v].name, c,
				&r->iv_vol[v * IO_CLASS_COUNT + c]);
	for (unsigned c = 0; c < IO_CLASS_COUNT; c++)
		add_row(r, &nrows, t_ms, warm, SCOPE_RUN, "run", c, &r->iv_run[c]);
	/* database rows: every RUN_DB_SAMPLE_EVERY intervals, at the end of
	 * warm-up and at the last interval */
	last = atomic_load_explicit(&r->last, memory_order_acquire);
	r->win_len++;
	if (r->win_len == RUN_DB_SAMPLE_EVERY || k == last || k + 1 == g->nw) {
		for (size_t d = 0; d < r->plan.nr_dbs; d++)
			for (unsigned c = 0; c < IO_CLASS_COUNT; c++) {
				add_row(r, &nrows, t_ms, warm, SCOPE_DATABASE, r->plan.dbs[d].name,
					c, &r->win_db[d * IO_CLASS_COUNT + c]);
			}
		if (!warm)
			coord_window_stats(r);
		for (size_t i = 0; i < r->plan.nr_dbs * IO_CLASS_COUNT; i++)
			class_stats_reset(&r->win_db[i]);
		coord_window_hists(r, t_ms, warm);
		r->win_len = 0;
	}
	if (r->store && !r->store_failed) {
		ret = store_space_check(r->store, STORE_MIN_FREE, &r->store_err);
		if (!ret)
			ret = store_interval_write(r->store, r->run_id, r->rows, nrows,
						   &r->store_err);
		if (!ret && r->host && !r->tune) {
			struct host_sample hs;

			/* counters that cannot be read this once cost their rows,
			 * not the run */
			if (!host_sampler_read(r->host, time_mono_ns(), &hs))
				ret = store_host_samples_write(r->store, r->run_id, t_ms, warm, &hs,
							       &r->store_err);
		}
		if (!ret && k + 1 == g->nw && g->nw)
			ret = store_event_add(r->store, r->run_id, t_ms, "warmup_end",
					      "warm-up ended; measurement starts", &r->store_err);
		if (ret)
			coord_store_error(r, ret);
	}
	r->collected = k + 1;
	if (!warm && (k - g->nw + 1) % RUN_DB_SAMPLE_EVERY == 0 && k != last)
		coord_checkpoint(r, k);
	journal_thread_poll(r);
	if ((k + 1) % RUN_JOURNAL_EVERY == 0 && k != last && !r->hung_seen)
		journal_thread_ask(r);
	coord_check_health(r, hung);
	coord_view(r, k);
}

/*
 * Stops issuing: the workers drain what is in flight (bounded) and publish up
 * to the interval holding the stop. signo is the signal that asked (0 for
 * none), reason what to record when it is not a signal. A second signal after
 * a first abandons the drain: the run row is finished at once.
 */
static void coord_stop(struct run *r, int signo, const char *reason)
{
	uint64_t now = engine_clock_now(&r->clock);
	unsigned last = atomic_load(&r->last);
	unsigned k;

	if (atomic_load(&r->stop)) {
		if (signo && r->stop_signal)
			r->abandoned = true;
		else if (signo)
			r->stop_signal = signo;
		return;
	}
	if (reason)
		snprintf(r->stop_reason, sizeof(r->stop_reason), "%s", reason);
	r->stop_signal = signo;
	if (!r->grid.interval) {
		/* before the run started (creating files): nothing to cut short */
		atomic_store(&r->stop, true);
		return;
	}
	k = grid_index(&r->grid, now, last);
	/* one interval of slack: a worker's clock may already be past ours */
	if (k < last)
		k++;
	r->stop_time = now;
	atomic_store_explicit(&r->last, k, memory_order_release);
	atomic_store_explicit(&r->stop, true, memory_order_release);
	if (r->opt->cb.message)
		r->opt->cb.message(r->opt->cb.arg,
				   signo ? "interrupted: stopping and draining in-flight I/O "
					   "(interrupt again to quit at once)"
					 : r->stop_reason);
}

static void coord_check_signal(struct run *r, int timeout_ms)
{
	struct pollfd pfd = {.fd = r->opt->signal_fd, .events = POLLIN};
	struct signalfd_siginfo si;

	if (r->opt->signal_fd < 0) {
		if (timeout_ms)
			usleep((useconds_t)timeout_ms * 1000);
		return;
	}
	if (poll(&pfd, 1, timeout_ms) <= 0)
		return;
	if (read(r->opt->signal_fd, &si, sizeof(si)) == (ssize_t)sizeof(si))
		coord_stop(r, (int)si.ssi_signo, NULL);
}

/* Threaded: workers run on their own; the coordinator merges as they publish. */
static int run_threads(struct run *r, struct strbuf *err)
{
	sigset_t all;
	int ret;

	if (r->plan.files && run_mark_journals(r)) {
		/* nothing written yet: the journals on disk still hold */
		r->env_failed = true;
		coord_stop(r, 0, r->journal_err.buf);
		return 0;
	}
	r->journals_marked = r->plan.files;
	ret = journal_thread_start(r);
	if (ret) {
		char why[128];

		snprintf(why, sizeof(why), "cannot start the journal thread: %s", strerror(-ret));
		r->env_failed = true;
		coord_stop(r, 0, why);
		return 0;
	}
	sigfillset(&all);
	for (unsigned i = 0; i < r->nworkers; i++) {
		sigset_t old;

		/* workers block every signal: the coordinator takes them */
		pthread_sigmask(SIG_BLOCK, &all, &old);
		ret = pthread_create(&r->workers[i].thread, NULL, worker_thread, &r->workers[i]);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (ret) {
			char why[128];

			snprintf(why, sizeof(why), "cannot start a worker thread: %s",
				 strerror(ret));
			r->env_failed = true;
			coord_stop(r, 0, why);
			break;
		}
		r->workers[i].thread_started = true;
	}
	for (unsigned k = 0; k <= atomic_load(&r->last); k++) {
		for (;;) {
			bool ready = true;

			for (unsigned i = 0; i < r->nworkers; i++)
				if (r->workers[i].thread_started &&
				    atomic_load_explicit(&r->workers[i].published,
							 memory_order_acquire) <= k)
					ready = false;
			if (ready)
				break;
			coord_check_signal(r, 20);
			coord_check_errors(r);
			coord_check_fatal(r);
			if (r->abandoned)
				goto out_abandon;
		}
		coord_collect(r, k);
		coord_check_signal(r, 0);
		if (r->abandoned)
			goto out_abandon;
	}
	for (unsigned i = 0; i < r->nworkers; i++) {
		struct worker *w = &r->workers[i];
		int st;

		if (!w->thread_started)
			continue;
		while (!(st = atomic_load_explicit(&w->exit_state, memory_order_acquire)))
			usleep(1000);
		if (st == 1)
			pthread_join(w->thread, NULL);
		else
			pthread_detach(w->thread); /* parked on a hung device */
	}
	journal_thread_stop(r);
	return 0;
out_abandon:
	/* the workers are left to the process exit that follows: detached,
	 * nobody waits for them (they may be stuck on a hung device) */
	for (unsigned i = 0; i < r->nworkers; i++)
		if (r->workers[i].thread_started)
			pthread_detach(r->workers[i].thread);
	return 0;
}

/* Virtual time: one worker, the coordinator called as it publishes. */
static int run_virtual(struct run *r)
{
	struct worker *w = &r->workers[0];
	unsigned n = 0;

	while (worker_step(w)) {
		if (++n % 4096 == 0)
			coord_check_signal(r, 0);
		coord_check_errors(r);
		if (r->abandoned)
			return 0;
	}
	if (w->fatal) {
		r->env_failed = true;
		coord_stop(r, 0, w->fatal_msg);
	}
	worker_finish(w);
	return 0;
}

static void run_event(struct run *r, const char *kind, const char *msg)
{
	uint64_t t = engine_clock_now(&r->clock) - r->grid.t0;

	if (r->store && !r->store_failed &&
	    store_event_add(r->store, r->run_id, t / NSEC_PER_MSEC, kind, msg, &r->store_err))
		coord_store_error(r, -EIO);
	if (r->opt->cb.message)
		r->opt->cb.message(r->opt->cb.arg, msg);
}

/* The figures of a backup or recovery test, per database and in all, as
 * events of the run (kind "backup" or "recovery"). */
static void record_pass_figures(struct run *r)
{
	char msg[300];
	uint64_t bytes = 0, t0 = UINT64_MAX, t1 = 0, segs = 0, ns = 0, slow = 0, pages = 0;
	const char *slow_db = NULL;
	bool backup = backup_test(r);

	if (!backup && !recovery_test(r))
		return;
	for (unsigned wi = 0; wi < r->nworkers; wi++) {
		struct worker *w = &r->workers[wi];

		for (unsigned i = 0; i < w->ndb; i++) {
			struct wdb *d = &w->dbs[i];

			if (backup) {
				double secs = d->scan_t1 > d->scan_t0
						      ? (double)(d->scan_t1 - d->scan_t0) / 1e9
						      : 0;

				snprintf(msg, sizeof(msg),
					 "%s: %s%.1f MB read in %.2f s: %.1f MB/s", d->pdb->name,
					 d->scan_done ? "" : "(not finished) ",
					 (double)d->scan_bytes / 1e6, secs,
					 secs > 0 ? (double)d->scan_bytes / 1e6 / secs : 0);
				run_event(r, "backup", msg);
				bytes += d->scan_bytes;
				if (d->scan_t0 && d->scan_t0 < t0)
					t0 = d->scan_t0;
				if (d->scan_t1 > t1)
					t1 = d->scan_t1;
				continue;
			}
			uint64_t dns = 0, dpages = 0;
			unsigned n = d->rp_seg;

			for (unsigned k = 0; k < n; k++) {
				dns += d->rp_ns[k];
				dpages += d->rp_count[k];
			}
			snprintf(msg, sizeof(msg),
				 "%s: %u of %llu log segments replayed (%llu pages read and "
				 "written) in %.2f s: %.3f s per segment",
				 d->pdb->name, n, (unsigned long long)r->prof->recovery_segments,
				 (unsigned long long)dpages, (double)dns / 1e9,
				 n ? (double)dns / 1e9 / n : 0);
			run_event(r, "recovery", msg);
			segs += n;
			ns += dns;
			pages += dpages;
			if (n && dns / n >= slow) {
				slow = dns / n;
				slow_db = d->pdb->name;
			}
		}
	}
	if (backup) {
		double secs = t1 > t0 ? (double)(t1 - t0) / 1e9 : 0;

		snprintf(msg, sizeof(msg), "backup: %.1f MB read in %.2f s: %.1f MB/s in all",
			 (double)bytes / 1e6, secs, secs > 0 ? (double)bytes / 1e6 / secs : 0);
	} else {
		snprintf(msg, sizeof(msg),
			 "recovery: %llu log segments replayed (%llu pages): %.3f s per segment on "
			 "average, slowest %s at %.3f s",
			 (unsigned long long)segs, (unsigned long long)pages,
			 segs ? (double)ns / 1e9 / (double)segs : 0, slow_db ? slow_db : "-",
			 (double)slow / 1e9);
	}
	run_event(r, backup ? "backup" : "recovery", msg);
}

/* Frees the workers of a finished level (auto-tune). */
static void run_release_workers(struct run *r)
{
	for (unsigned i = 0; r->workers && i < r->nworkers; i++)
		worker_release(&r->workers[i]);
	free(r->workers);
	r->workers = NULL;
	r->nworkers = 0;
	atomic_store(&r->workers_done, 0);
}

/* Auto-tune's time bound and window length (in intervals). */
static uint64_t tune_limit_ns(const struct profile *p)
{
	uint64_t l = p->tune_limit_ns ? p->tune_limit_ns : p->duration_ns / 5;

	if (!p->tune_limit_ns && l > 30ULL * 60 * NSEC_PER_SEC)
		l = 30ULL * 60 * NSEC_PER_SEC;
	return l;
}

static unsigned tune_window_intervals(const struct profile *p)
{
	uint64_t w = p->tune_window_ns ? p->tune_window_ns : tune_limit_ns(p) / 24;

	if (!p->tune_window_ns && w < 2 * NSEC_PER_SEC)
		w = 2 * NSEC_PER_SEC;
	if (!p->tune_window_ns && w > 30 * NSEC_PER_SEC)
		w = 30 * NSEC_PER_SEC;
	return (unsigned)((w + RUN_INTERVAL_NS - 1) / RUN_INTERVAL_NS);
}

static const char *tune_goal_name(enum tune_goal g)
{
	return g == TUNE_GOAL_TARGET ? "target" : g == TUNE_GOAL_IOPS ? "iops" : "max";
}

static void run_event(struct run *r, const char *kind, const char *msg);
static void env_fact(void *arg, const char *key, const char *value);

/*
 * streams = auto: measures levels (stream counts) as the search asks, each on
 * freshly set-up workers over the same files, until it is done, the time
 * bound is spent, or the run is stopped. Every decided level is stored (table
 * autotune_step and an event); r->streams is left at the chosen count (0: no
 * level passes).
 */
static int run_autotune(struct run *r, struct tuner *t, struct strbuf *err)
{
	const struct profile *p = r->prof;
	const struct profile_thresholds *th = &p->thresholds;
	unsigned ndb = (unsigned)r->plan.nr_dbs, maxs;
	uint64_t limit = tune_limit_ns(p), used = 0;
	unsigned reported = 0;
	char msg[400];
	int ret = 0;

	maxs = p->tune_max_streams ? p->tune_max_streams : 128 * ndb;
	if (maxs > PROFILE_STREAMS_MAX)
		maxs = PROFILE_STREAMS_MAX;
	tuner_init(t,
		   p->tune_goal == PROFILE_TUNE_TARGET ? TUNE_GOAL_TARGET
		   : p->tune_goal == PROFILE_TUNE_IOPS ? TUNE_GOAL_IOPS
						       : TUNE_GOAL_MAX,
		   p->tune_margin_pct / 100.0, (double)p->target_iops, ndb, maxs,
		   (double)th->db_read_avg_ns / 1e6, (double)th->db_read_max_ns / 1e6,
		   (double)th->log_write_avg_ns / 1e6, (double)th->log_write_max_ns / 1e6);
	r->tune = t;
	r->tune_win = tune_window_intervals(p);
	snprintf(msg, sizeof(msg),
		 "auto-tune (goal %s): windows of %u s, at most %.0f s, %.0f %% under every "
		 "threshold",
		 tune_goal_name(t->goal), r->tune_win, (double)limit / 1e9, p->tune_margin_pct);
	run_event(r, "autotune", msg);
	while (!t->done) {
		bool drained = true;

		if (used + r->tune_win * RUN_INTERVAL_NS > limit) {
			tuner_stop(t, "the time bound is spent");
			break;
		}
		r->streams = t->cur;
		ret = run_setup_workers(r, err);
		if (ret)
			break;
		grid_init(&r->grid, engine_clock_now(&r->clock), 0, limit - used);
		atomic_store(&r->last, r->grid.last);
		atomic_store(&r->stop, false);
		r->stop_time = 0;
		r->collected = 0;
		r->tune_nint = 0;
		r->tune_state = TUNE_MORE;
		for (size_t i = 0; i < r->plan.nr_dbs * IO_CLASS_COUNT; i++)
			class_stats_reset(&r->win_db[i]);
		if (r->opt->cb.message) {
			snprintf(msg, sizeof(msg), "auto-tune: measuring %u streams", t->cur);
			r->opt->cb.message(r->opt->cb.arg, msg);
		}
		ret = r->virt ? run_virtual(r) : run_threads(r, err);
		used += (r->stop_time ? r->stop_time : r->grid.t0 + r->grid.duration) - r->grid.t0;
		if (r->abandoned)
			return ret;
		for (unsigned i = 0; i < r->nworkers; i++)
			if (r->workers[i].inflight || r->workers[i].fatal)
				drained = false;
		/* the next level's workers learn the generations from the journals */
		if (!r->hung_seen && run_write_journals(r, false, drained)) {
			r->env_failed = true;
			coord_stop(r, 0, r->journal_err.buf);
		}
		for (size_t g = 0; r->fresh_from && g < r->plan.nr_dbs; g++)
			r->fresh_from[g] = r->plan.dbs[g].nr_pages;
		for (; reported < t->nsteps; reported++) {
			const struct tune_step *st = &t->steps[reported];

			snprintf(msg, sizeof(msg),
				 "auto-tune: %u stream%s: %.0f IOPS, database read average %.2f ms "
				 "(%s), log write average %.2f ms: %s: %s",
				 st->streams, st->streams == 1 ? "" : "s", st->w.iops,
				 st->w.read_avg_ms, st->w.read_db, st->w.log_avg_ms,
				 st->passed ? "pass" : "fail", st->reason);
			run_event(r, "autotune", msg);
			if (r->store && !r->store_failed &&
			    store_autotune_step_add(r->store, r->run_id, reported + 1, st->streams,
						    st->w.iops, st->w.read_avg_ms, st->w.log_avg_ms,
						    st->passed, st->reason, &r->store_err))
				coord_store_error(r, -EIO);
		}
		if (r->stop_signal || r->stop_reason[0] || r->env_failed || !drained) {
			tuner_stop(t, r->stop_signal ? "interrupted" : "the run stopped");
			break;
		}
		if (!t->done && r->tune_state == TUNE_MORE)
			tuner_stop(t, "the time bound is spent");
		if (!t->done)
			run_release_workers(r);
	}
	r->tune = NULL;
	r->streams = t->chosen;
	snprintf(msg, sizeof(msg), "auto-tune chose %u streams in %.0f s (goal %s): %s", t->chosen,
		 (double)used / 1e9, tune_goal_name(t->goal), t->stopped_because);
	if (!t->chosen)
		snprintf(msg, sizeof(msg), "auto-tune found no passing level in %.0f s: %s",
			 (double)used / 1e9, t->stopped_because);
	run_event(r, "autotune", msg);
	{
		char n[16];

		snprintf(n, sizeof(n), "%u", t->chosen);
		/* the search's outcome travels with the run's facts (and shows in
		 * a comparison when it differs) */
		env_fact(r, "autotune_goal", tune_goal_name(t->goal));
		env_fact(r, "autotune_chosen", n);
		env_fact(r, "autotune_stopped_because", t->stopped_because);
	}
	return ret;
}

static void env_fact(void *arg, const char *key, const char *value)
{
	struct run *r = arg;

	if (!r->store_failed && store_env_add(r->store, r->run_id, key, value, &r->store_err))
		coord_store_error(r, -EIO);
}

/* Host and device facts, and what the engine could use (env.h). */
static void record_env(struct run *r)
{
	env_collect_host(env_fact, r);
	env_fact(r, "diskproof_version", DISKPROOF_VERSION);
	env_fact(r, "engine", r->ops->name);
	env_fact(r, "engine_notes", r->workers[0].ctx.notes);
	for (unsigned i = 0; i < r->nworkers; i++) {
		env_numa_worker_facts(i, &r->workers[i].numa, env_fact, r);
		/* workers share the memlock limit, so a later one may have got
		 * fewer fixed buffers than worker 0, whose notes are above */
		if (strcmp(r->workers[i].ctx.notes, r->workers[0].ctx.notes)) {
			char key[48];

			snprintf(key, sizeof(key), "worker.%u.engine_notes", i);
			env_fact(r, key, r->workers[i].ctx.notes);
		}
	}
	{
		char v[160];

		snprintf(v, sizeof(v), "%u (%s)", r->nworkers,
			 fixed_model(r) ? "fixed model: each drives a page range of every database"
					: "databases round robin, one worker per database at most");
		env_fact(r, "workers", v);
		env_fact(r, "workload_model", profile_model_name(r->prof->model));
	}
	for (size_t v = 0; r->plan.files && v < r->plan.nr_vols; v++)
		env_collect_device(r->plan.vols[v].name, r->plan.vols[v].path, env_fact, r);
}

/*
 * Host counters beside the samples (counters.h): CPU and memory, and the
 * block devices under the volumes' paths (none with the sim engine, which
 * touches no device). Opened just before the measurement starts, after the
 * files are laid out and auto-tune has run, so that the first interval's
 * deltas are its own. A host whose counters cannot be read runs without
 * them; an event says what is sampled, or why nothing is.
 */
static void run_open_host_sampler(struct run *r)
{
	size_t nv = r->plan.files ? r->plan.nr_vols : 0;
	const char **paths = calloc(2 * nv + 1, sizeof(*paths));
	struct strbuf msg = STRBUF_INIT;
	int ret = -ENOMEM;

	for (size_t v = 0; paths && v < nv; v++) {
		paths[2 * v] = r->plan.vols[v].path;
		paths[2 * v + 1] = r->plan.vols[v].log_path;
	}
	if (paths)
		ret = host_sampler_open(&r->host, paths, 2 * nv, time_mono_ns(), &msg);
	if (!ret)
		host_sampler_describe(r->host, &msg); /* "CPU, memory; devices ..." */
	else if (!msg.len)
		strbuf_addstr(&msg, "host counters: out of memory");
	if (r->store && !r->store_failed &&
	    store_event_add(r->store, r->run_id, 0, "host_counters", msg.buf, &r->store_err))
		coord_store_error(r, -EIO);
	free(paths);
	strbuf_release(&msg);
}

static void run_release(struct run *r)
{
	for (unsigned i = 0; r->workers && i < r->nworkers; i++)
		worker_release(&r->workers[i]);
	free(r->workers);
	free(r->tot_db);
	free(r->integ_db);
	free(r->win_db);
	free(r->win_vol);
	free(r->iv_vol);
	free(r->rows);
	free(r->fresh_from);
	free(r->wacc_db);
	free(r->wacc_vol);
	free(r->wacc_run);
	free(r->journal_noted);
	strbuf_release(&r->journal_notes);
	strbuf_release(&r->journal_err);
	plan_release(&r->plan);
	host_sampler_close(r->host);
	store_close(r->store);
	strbuf_release(&r->store_err);
}

/* File creation progress; a SIGINT/SIGTERM stops it (the files resume on
 * the next run). */
static int create_progress(void *arg, const char *file, uint64_t done, uint64_t total)
{
	struct run *r = arg;
	const struct run_options *o = r->opt;

	if (o->cb.create)
		o->cb.create(o->cb.arg, file, done, total);
	coord_check_signal(r, 0);
	return r->stop_signal ? -EINTR : 0;
}

/* Whole-run totals per scope, as the store and eval take them. */
struct run_totals {
	struct class_stats *vol_cs; /* volumes, then the run: (nv + 1) * classes */
	struct scope_summary *sums; /* [0] run, [1..nv] volumes, then databases */
	struct store_scope_total *totals;
	size_t nt;
};

static void run_totals_release(struct run_totals *t)
{
	free(t->vol_cs);
	free(t->sums);
	free(t->totals);
	memset(t, 0, sizeof(*t));
}

/* Merges the databases' measured totals into volumes and the run. */
static int run_totals_build(struct run *r, uint64_t measured, struct run_totals *t)
{
	size_t nv = r->plan.nr_vols, nd = r->plan.nr_dbs;
	struct class_stats *run_cs;

	t->nt = 1 + nv + nd;
	t->vol_cs = calloc((nv + 1) * IO_CLASS_COUNT, sizeof(*t->vol_cs));
	t->sums = calloc(t->nt, sizeof(*t->sums));
	t->totals = calloc(t->nt, sizeof(*t->totals));
	if (!t->vol_cs || !t->sums || !t->totals) {
		run_totals_release(t);
		return -ENOMEM;
	}
	run_cs = &t->vol_cs[nv * IO_CLASS_COUNT];
	for (size_t i = 0; i < (nv + 1) * IO_CLASS_COUNT; i++)
		class_stats_reset(&t->vol_cs[i]);
	for (size_t d = 0; d < nd; d++) {
		const struct plan_db *db = &r->plan.dbs[d];
		struct scope_summary *s = &t->sums[1 + nv + d];

		for (unsigned c = 0; c < IO_CLASS_COUNT; c++) {
			const struct class_stats *cs = &r->tot_db[d * IO_CLASS_COUNT + c];

			class_stats_merge(&t->vol_cs[db->volume * IO_CLASS_COUNT + c], cs);
			class_stats_merge(&run_cs[c], cs);
			class_summary_from_stats(&s->classes[c], cs, measured);
		}
		snprintf(s->name, sizeof(s->name), "%s", db->name);
		snprintf(s->volume, sizeof(s->volume), "%s", r->plan.vols[db->volume].name);
		s->integrity_errors = r->integ_db[d];
		t->sums[1 + db->volume].integrity_errors += r->integ_db[d];
		t->sums[0].integrity_errors += r->integ_db[d];
		t->totals[1 + nv + d] = (struct store_scope_total){
			SCOPE_DATABASE, db->name, r->plan.vols[db->volume].name, r->integ_db[d],
			&r->tot_db[d * IO_CLASS_COUNT]};
	}
	for (size_t v = 0; v < nv; v++) {
		struct scope_summary *s = &t->sums[1 + v];

		snprintf(s->name, sizeof(s->name), "%s", r->plan.vols[v].name);
		for (unsigned c = 0; c < IO_CLASS_COUNT; c++)
			class_summary_from_stats(&s->classes[c], &t->vol_cs[v * IO_CLASS_COUNT + c],
						 measured);
		t->totals[1 + v] = (struct store_scope_total){SCOPE_VOLUME, r->plan.vols[v].name,
							      NULL, s->integrity_errors,
							      &t->vol_cs[v * IO_CLASS_COUNT]};
	}
	snprintf(t->sums[0].name, sizeof(t->sums[0].name), "run");
	for (unsigned c = 0; c < IO_CLASS_COUNT; c++)
		class_summary_from_stats(&t->sums[0].classes[c], &run_cs[c], measured);
	t->totals[0] = (struct store_scope_total){SCOPE_RUN, "run", NULL,
						  t->sums[0].integrity_errors, run_cs};
	return 0;
}

/* Measured time (warm-up excluded) up to the stop, or up to instant t. */
static uint64_t run_measured_ns(const struct run *r, uint64_t t)
{
	uint64_t mstart = r->grid.t0 + r->grid.warmup;
	uint64_t m = t > mstart ? t - mstart : 0;

	return m > r->grid.duration ? r->grid.duration : m;
}

/* Totals so far into the store, so that a killed run keeps them. */
static void coord_checkpoint(struct run *r, unsigned k)
{
	struct run_totals t = {0};
	uint64_t measured = run_measured_ns(r, grid_end(&r->grid, k));

	if (!r->store || r->store_failed || run_totals_build(r, measured, &t))
		return;
	if (store_run_checkpoint(r->store, r->run_id, t.totals, t.nt, measured, &r->store_err))
		coord_store_error(r, -EIO);
	run_totals_release(&t);
}

static const char *run_stop_event(const struct run *r)
{
	if (r->stop_signal == SIGINT)
		return "interrupted by SIGINT";
	if (r->stop_signal)
		return "interrupted by SIGTERM";
	return r->stop_reason[0] ? r->stop_reason : NULL;
}

/* A results-file failure at the end, kept on a line of its own after any
 * earlier one (which said why the run stopped). */
static void run_store_note(struct run *r, struct strbuf *e)
{
	if (r->store_err.len && e->len)
		strbuf_addch(&r->store_err, '\n');
	strbuf_addstr(&r->store_err, e->buf);
	strbuf_reset(e);
	r->store_failed = true;
}

/* Summaries, verdicts, the finished run row. */
static int run_finish(struct run *r, struct run_outcome *out, struct strbuf *err)
{
	struct strbuf serr = STRBUF_INIT;
	struct run_totals t = {0};
	struct verdict *verdicts = NULL;
	struct store_run_end end = {0};
	size_t nverd = 0, nv = r->plan.nr_vols;
	uint64_t measured;
	bool aborted = r->stop_signal != 0, fatal = r->env_failed, passed;
	const char *stop_msg;
	int ret;

	for (unsigned i = 0; !r->abandoned && i < r->nworkers; i++)
		if (r->workers[i].fatal && strcmp(r->workers[i].fatal_msg, r->stop_reason)) {
			fatal = true;
			strbuf_addf(err, "%s%s", err->len ? "\n" : "", r->workers[i].fatal_msg);
		}
	if (r->env_failed && r->stop_reason[0])
		strbuf_addf(err, "%s%s", err->len ? "\n" : "", r->stop_reason);
	if (r->journal_failed && strcmp(r->journal_err.buf, r->stop_reason))
		strbuf_addf(err, "%s%s", err->len ? "\n" : "", r->journal_err.buf);
	measured = run_measured_ns(
		r, r->stop_time ? r->stop_time : r->grid.t0 + r->grid.warmup + r->grid.duration);
	if (r->tune_failed || (r->prof->streams == PROFILE_STREAMS_AUTO && !r->streams))
		measured = 0; /* no main test ran */
	ret = run_totals_build(r, measured, &t);
	if (ret)
		goto out;
	struct eval_input in = {
		.run = &t.sums[0],
		.volumes = &t.sums[1],
		.nr_volumes = nv,
		.databases = &t.sums[1 + nv],
		.nr_databases = r->plan.nr_dbs,
		.target_iops = r->prof->target_iops,
	};
	struct eval_window_stats *ws = NULL;

	if (r->wacc_db) {
		size_t n = (1 + nv + r->plan.nr_dbs) * IO_CLASS_COUNT;

		ws = calloc(n, sizeof(*ws));
		if (ws) {
			win_stats(ws, r->wacc_run, IO_CLASS_COUNT);
			win_stats(ws + IO_CLASS_COUNT, r->wacc_vol, nv * IO_CLASS_COUNT);
			win_stats(ws + (1 + nv) * IO_CLASS_COUNT, r->wacc_db,
				  r->plan.nr_dbs * IO_CLASS_COUNT);
			in.run_windows = ws;
			in.volume_windows = ws + IO_CLASS_COUNT;
			in.database_windows = ws + (1 + nv) * IO_CLASS_COUNT;
		}
	}
	ret = eval_judge(&in, &r->prof->thresholds, &verdicts, &nverd);
	free(ws);
	if (ret)
		goto out;
	if (r->tune_failed) {
		/* auto-tune found no passing level: the run fails on that */
		struct verdict *nv2 = realloc(verdicts, (nverd + 1) * sizeof(*nv2));

		if (!nv2) {
			ret = -ENOMEM;
			goto out;
		}
		verdicts = nv2;
		verdicts[nverd++] = (struct verdict){.scope = SCOPE_RUN,
						     .name = "run",
						     .criterion = "autotune_streams",
						     .cmp = VERDICT_GE,
						     .threshold = (double)r->plan.nr_dbs,
						     .measured = 0,
						     .passed = false};
	}
	passed = eval_all_passed(verdicts, nverd);
	if (aborted || fatal || r->store_failed) {
		/* an interrupted run, or one ended by an environment error, is
		 * not judged: no verdict row, so no PASS shows anywhere for a
		 * test that did not run its course */
		free(verdicts);
		verdicts = NULL;
		nverd = 0;
	}

	out->integrity_errors = r->integrity_errors;
	out->io_errors = r->io_errors;
	for (unsigned i = 0; !r->abandoned && i < r->nworkers; i++)
		out->pending_ios += r->workers[i].inflight;
	if (r->stop_signal == SIGINT)
		out->exit_code = DP_EXIT_SIGINT;
	else if (r->stop_signal)
		out->exit_code = DP_EXIT_SIGTERM;
	else if (r->integrity_errors)
		out->exit_code = DP_EXIT_INTEGRITY;
	else if (fatal || r->store_failed)
		out->exit_code = DP_EXIT_ENV;
	else
		out->exit_code = passed ? DP_EXIT_OK : DP_EXIT_FAIL;
	out->status = aborted			   ? "aborted"
		      : (fatal || r->store_failed) ? "error"
		      : passed			   ? "passed"
						   : "failed";
	end.status = out->status;
	end.verdict = aborted || fatal ? "NONE" : passed ? "PASS" : "FAIL";
	end.ended_real_ns = time_real_ns();
	end.duration_ns = measured;
	end.exit_code = out->exit_code;
	end.totals = t.totals;
	end.nr_totals = t.nt;
	end.verdicts = verdicts;
	end.nr_verdicts = nverd;
	/* even after a store error, try to leave a finished row: the error may
	 * have been passing (a full disk that has room again) */
	if (r->msgs_dropped) {
		char msg[200];

		snprintf(msg, sizeof(msg),
			 "%llu more error message(s) not stored: at most %u are kept per run "
			 "(the error counts are exact)",
			 (unsigned long long)r->msgs_dropped, RUN_EVENTS_MAX);
		if (store_event_add(r->store, r->run_id,
				    (engine_clock_now(&r->clock) - r->grid.t0) / NSEC_PER_MSEC,
				    "events_dropped", msg, &serr))
			run_store_note(r, &serr);
	}
	stop_msg = run_stop_event(r);
	/* the row before the stop event, which could take the last room it needs */
	ret = store_run_finish(r->store, r->run_id, &end, &serr);
	if (ret)
		run_store_note(r, &serr);
	if (stop_msg && store_event_add(r->store, r->run_id,
					(engine_clock_now(&r->clock) - r->grid.t0) / NSEC_PER_MSEC,
					"stop", stop_msg, &serr))
		run_store_note(r, &serr);
	strbuf_release(&serr);
	if (r->store_failed) {
		/* one line per failure, each named, never glued together */
		for (const char *line = r->store_err.buf; *line;) {
			const char *nl = strchr(line, '\n');
			int len = nl ? (int)(nl - line) : (int)strlen(line);

			strbuf_addf(err, "%sresults file: %.*s", err->len ? "\n" : "", len, line);
			line += len + (nl != NULL);
		}
		ret = ret ? ret : -EIO;
	}
	/* 130/143 and 4 outrank an unusable results file; 1 and 0 do not */
	if ((r->store_failed || ret) && out->exit_code <= DP_EXIT_FAIL)
		out->exit_code = DP_EXIT_ENV;
out:
	if (ret == -ENOMEM && !err->len)
		strbuf_addstr(err, "out of memory");
	free(verdicts);
	run_totals_release(&t);
	return ret;
}

/* The run row's facts as the run starts. */
static void run_info_fill(const struct run *r, struct store_run_info *info, char *host,
			  size_t host_len)
{
	const struct profile *p = r->prof;

	gethostname(host, host_len - 1);
	info->label = r->opt->label;
	info->host = host;
	info->started_real_ns = time_real_ns();
	info->profile_name = p->name;
	info->profile_text = p->text;
	info->command_line = r->opt->command_line;
	info->engine = r->ops->name;
	info->test_type = profile_test_type_name(p->type);
	info->streams = p->streams == PROFILE_STREAMS_AUTO ? 0 : r->streams;
	info->warmup_ns = p->warmup_ns;
	info->pid = (int)getpid();
}

/*
 * Interrupted while creating the files, before the run row: the run is
 * stored all the same, aborted, with what stopped it, as any interrupted run
 * is. A results file that refuses it is said in err; the exit code stays the
 * signal's.
 */
static void run_record_interrupted(struct run *r, struct run_outcome *out, struct strbuf *err)
{
	struct store_run_info info = {0};
	struct store_run_end end = {0};
	char host[256] = "unknown", msg[384];
	struct strbuf serr = STRBUF_INIT;

	run_info_fill(r, &info, host, sizeof(host));
	snprintf(msg, sizeof(msg), "%s while creating the database and log files",
		 run_stop_event(r));
	end.status = "aborted";
	end.verdict = "NONE";
	end.ended_real_ns = time_real_ns();
	end.exit_code = out->exit_code;
	if (store_run_begin(r->store, &info, &r->run_id, &serr) ||
	    store_event_add(r->store, r->run_id, 0, "stop", msg, &serr) ||
	    store_run_finish(r->store, r->run_id, &end, &serr)) {
		strbuf_addf(err, "%sresults file: %s", err->len ? "\n" : "", serr.buf);
	} else {
		out->run_id = r->run_id;
		out->status = "aborted";
	}
	strbuf_release(&serr);
}

int run_execute(const struct run_options *o, struct run_outcome *out, struct strbuf *err)
{
	struct run r = {0};
	const struct profile *p = o->profile;
	struct plan_progress prog = {create_progress, &r};
	struct store_run_info info = {0};
	struct plan_lock *lock = NULL;
	char host[256] = "unknown";
	uint64_t created = 0;
	int ret;

	memset(out, 0, sizeof(*out));
	out->exit_code = DP_EXIT_ENV;
	out->status = "error";
	strbuf_init(&r.store_err);
	strbuf_init(&r.journal_notes);
	strbuf_init(&r.journal_err);
	r.opt = o;
	r.prof = p;
	r.ops = engine_find(p->engine);
	if (!r.ops) {
		strbuf_addf(err, "unknown engine \"%s\"", p->engine);
		out->exit_code = DP_EXIT_USAGE;
		return -EINVAL;
	}
	if (r.ops->unavailable) {
		strbuf_addf(err, "engine %s is not available: %s", r.ops->name, r.ops->unavailable);
		return -ENOTSUP;
	}
	if (r.ops == &engine_io_uring) {
		ret = engine_io_uring_probe(err);
		if (ret)
			return ret;
	}
	r.virt = (r.ops->flags & ENGINE_F_OWN_CLOCK) != 0;
	if (r.virt)
		engine_clock_init_virtual(&r.clock);
	else
		engine_clock_init_mono(&r.clock);

	/* the results file first: if it is unusable, nothing is written */
	ret = store_open(&r.store, o->results_path, err);
	if (!ret)
		ret = store_space_check(r.store, STORE_MIN_FREE, err);
	if (ret)
		goto out;
	ret = plan_build(&r.plan, p, !(r.ops->flags & ENGINE_F_NO_FILES), err);
	if (ret)
		goto out;
	r.plan.destroy = o->destroy;
	r.plan.ndestroy = o->ndestroy;
	r.plan.force = o->force;
	/* the results file's reserve counts where it shares a volume's filesystem */
	r.plan.results = o->results_path;
	r.plan.results_reserve = STORE_MIN_FREE;
	/* one command at a time on a volume (lock.h); sim touches no files */
	if (r.plan.files) {
		ret = plan_lock_take(&lock, &r.plan, "run", PLAN_LOCK_CREATE, err);
		if (ret)
			goto out;
		r.plan.lock = lock;
	}
	r.fresh_from = calloc(r.plan.nr_dbs, sizeof(*r.fresh_from));
	r.tot_db = calloc(r.plan.nr_dbs * IO_CLASS_COUNT, sizeof(*r.tot_db));
	r.win_db = calloc(r.plan.nr_dbs * IO_CLASS_COUNT, sizeof(*r.win_db));
	r.integ_db = calloc(r.plan.nr_dbs, sizeof(*r.integ_db));
	r.journal_noted = calloc(r.plan.nr_dbs, sizeof(*r.journal_noted));
	r.iv_vol = calloc(r.plan.nr_vols * IO_CLASS_COUNT, sizeof(*r.iv_vol));
	r.win_vol = calloc(r.plan.nr_vols * IO_CLASS_COUNT, sizeof(*r.win_vol));
	r.wacc_db = calloc(r.plan.nr_dbs * IO_CLASS_COUNT, sizeof(*r.wacc_db));
	r.wacc_vol = calloc(r.plan.nr_vols * IO_CLASS_COUNT, sizeof(*r.wacc_vol));
	r.wacc_run = calloc(IO_CLASS_COUNT, sizeof(*r.wacc_run));
	if (!r.fresh_from || !r.tot_db || !r.win_db || !r.integ_db || !r.journal_noted ||
	    !r.iv_vol || !r.win_vol || !r.wacc_db || !r.wacc_vol || !r.wacc_run) {
		strbuf_addstr(err, "out of memory");
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < r.plan.nr_dbs * IO_CLASS_COUNT; i++) {
		class_stats_reset(&r.tot_db[i]);
		class_stats_reset(&r.win_db[i]);
	}
	for (size_t i = 0; i < r.plan.nr_vols * IO_CLASS_COUNT; i++)
		class_stats_reset(&r.win_vol[i]);
	r.streams = p->streams ? p->streams : 2 * (unsigned)r.plan.nr_dbs;
	if (r.plan.files) {
		if (o->cb.message)
			o->cb.message(o->cb.arg, "checking and creating database and log files");
		ret = plan_prepare_files(&r.plan, p, &prog, r.fresh_from, &created, err);
		if (ret == -EINTR) {
			out->exit_code = r.stop_signal == SIGINT ? DP_EXIT_SIGINT : DP_EXIT_SIGTERM;
			run_record_interrupted(&r, out, err);
		} else if (ret == -EUCLEAN) {
			out->exit_code = DP_EXIT_INTEGRITY; /* a database lost pages */
		}
		if (ret)
			goto out;
	}
	if (p->streams == PROFILE_STREAMS_AUTO)	     /* what auto may tune: validation's */
		r.streams = (unsigned)r.plan.nr_dbs; /* checks the layout; tuned below */
	ret = run_setup_workers(&r, err);
	if (ret) {
		if (ret == -EINVAL)
			out->exit_code = DP_EXIT_USAGE;
		goto out;
	}

	run_info_fill(&r, &info, host, sizeof(host));
	ret = store_run_begin(r.store, &info, &r.run_id, err);
	if (ret)
		goto out;
	out->run_id = r.run_id;
	{
		struct store_volume_row *vr = calloc(r.plan.nr_vols, sizeof(*vr));
		struct store_database_row *dr = calloc(r.plan.nr_dbs, sizeof(*dr));

		if (!vr || !dr) {
			free(vr);
			free(dr);
			strbuf_addstr(err, "out of memory");
			ret = -ENOMEM;
			goto out;
		}
		for (size_t v = 0; v < r.plan.nr_vols; v++)
			vr[v] = (struct store_volume_row){r.plan.vols[v].name, r.plan.vols[v].path,
							  r.plan.vols[v].log_path,
							  r.plan.vols[v].nr_dbs};
		for (size_t d = 0; d < r.plan.nr_dbs; d++)
			dr[d] = (struct store_database_row){
				r.plan.dbs[d].name, r.plan.vols[r.plan.dbs[d].volume].name,
				r.plan.dbs[d].path, r.plan.dbs[d].log_file, r.plan.dbs[d].size};
		ret = store_run_layout(r.store, r.run_id, vr, r.plan.nr_vols, dr, r.plan.nr_dbs,
				       err);
		free(vr);
		free(dr);
		if (ret)
			goto out;
	}
	record_env(&r);
	if (!r.store_failed &&
	    store_event_add(r.store, r.run_id, 0, "start", "run started", &r.store_err))
		coord_store_error(&r, -EIO);
	for (char *line = r.journal_notes.buf, *nl; *line && !r.store_failed; line = nl + 1) {
		nl = strchr(line, '\n');
		*nl = '\0';
		if (store_event_add(r.store, r.run_id, 0, "journal", line, &r.store_err))
			coord_store_error(&r, -EIO);
		*nl = '\n';
	}

	if (p->streams == PROFILE_STREAMS_AUTO) {
		struct tuner t;
		uint64_t *errs = calloc(r.plan.nr_dbs * IO_CLASS_COUNT, sizeof(*errs));

		run_release_workers(&r);
		ret = errs ? run_autotune(&r, &t, err) : -ENOMEM;
		tuner_release(&t);
		if (r.abandoned) {
			free(errs);
			ret = run_finish(&r, out, err);
			out->abandoned = true;
			return ret;
		}
		/* the main test's figures start afresh; errors seen while tuning
		 * stay counted */
		for (size_t i = 0; errs && i < r.plan.nr_dbs * IO_CLASS_COUNT; i++) {
			errs[i] = r.tot_db[i].errors;
			class_stats_reset(&r.tot_db[i]);
			class_stats_reset(&r.win_db[i]);
			r.tot_db[i].errors = errs[i];
		}
		free(errs);
		for (size_t i = 0; i < r.plan.nr_vols * IO_CLASS_COUNT; i++)
			class_stats_reset(&r.win_vol[i]);
		r.win_len = 0;
		if (ret || !r.streams || r.stop_signal || r.stop_reason[0] || r.env_failed) {
			/* no main test: nothing passed, or the run was stopped */
			r.tune_failed = !ret && !r.streams;
			ret = run_finish(&r, out, err);
			goto out;
		}
		if (!r.store_failed &&
		    store_run_set_streams(r.store, r.run_id, r.streams, &r.store_err))
			coord_store_error(&r, -EIO);
		run_release_workers(&r); /* the last level's */
		ret = run_setup_workers(&r, err);
		if (ret)
			goto out;
		atomic_store(&r.stop, false);
		r.stop_time = 0;
		r.collected = 0;
	}
	run_open_host_sampler(&r);
	grid_init(&r.grid, engine_clock_now(&r.clock), p->warmup_ns, p->duration_ns);
	atomic_store(&r.last, r.grid.last);
	if (r.virt)
		ret = run_virtual(&r);
	else
		ret = run_threads(&r, err);
	if (r.abandoned) {
		/* a second signal: record what was measured and leave the workers
		 * (and their memory) to the process exit that follows */
		ret = run_finish(&r, out, err);
		out->abandoned = true;
		return ret;
	}
	record_pass_figures(&r);
	{
		bool drained = true;

		for (unsigned i = 0; i < r.nworkers; i++)
			if (r.workers[i].inflight || r.workers[i].fatal)
				drained = false;
		/* after a hang the journals stay as marked (lower bounds): a
		 * write would block on the hung filesystem before the verdict */
		if (r.journals_marked && !r.hung_seen && run_write_journals(&r, false, drained))
			r.env_failed = true;
	}
	ret = run_finish(&r, out, err);
out:
	run_release(&r);
	plan_lock_release(lock);
	return ret;
}
