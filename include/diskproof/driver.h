/* SPDX-License-Identifier: MIT */
/*
 * driver.h - the one driver of every engine (fio's td_io layer): the only code
 * that calls an engine's hooks. The run's workers, file creation, verify and
 * preconditioning are its clients; each gets the same policy for a full
 * engine, a retry and an error. Uses engine.h and util.h only.
 *
 * Policy:
 *   - BUSY (the engine is full): the request is kept and queued again first
 *     at the next engine_drv_resubmit() (a stack: the last refused goes first);
 *   - a completion with -EAGAIN or -EINTR, or a short transfer of a multiple
 *     of 512 bytes: the rest is queued again (resubmit), never reported;
 *   - every other completion goes to the client's done callback, the request
 *     as the client queued it (offset, buf, len restored) and req->result the
 *     bytes moved in all (== len: complete) or the -errno of the last part;
 *   - a failed commit or reap is returned as -errno with
 *     "ENGINE engine: submit failed: WHY" / "ENGINE engine: reap failed: WHY"
 *     in err; the caller decides what stops.
 * A request belongs to the driver from engine_drv_queue() until the done
 * callback gets it, whatever engine_drv_queue() returned; the callback may run
 * inside engine_drv_queue() (an engine that completes at once), inside
 * engine_drv_resubmit() and inside engine_drv_turn().
 *
 * Cost: no allocation, lock, system call or clock read per I/O of its own; one
 * clock read per commit that hands new requests over (their submit time) and
 * one per reap (the completion time of those the engine did not stamp).
 *
 * Contents: life cycle (init, open, release) · queue and resubmit · a turn
 * (commit, reap) · what is in flight · the engine's optional hooks.
 */
#ifndef DISKPROOF_DRIVER_H
#define DISKPROOF_DRIVER_H

#include <stdbool.h>
#include <stdint.h>

#include "diskproof/engine.h"
#include "diskproof/util.h"

/* Called with every request the driver is done with (see the policy above). */
typedef void (*engine_drv_done_fn)(void *arg, struct engine_req *req);

struct engine_drv {
	const struct engine_ops *ops;
	struct engine_ctx *ctx; /* the client's, filled before engine_drv_init */
	engine_drv_done_fn done;
	void *arg;
	unsigned cap;		    /* most requests the client has at once */
	struct engine_req **reaped; /* cap of them: one reap's completions */
	struct engine_req **retry;  /* cap: BUSY, EAGAIN, short remainders */
	struct engine_req **fresh;  /* cap: queued since the last commit */
	struct engine_req **held;   /* cap: waiting for a batch (batch) */
	unsigned nretry, nfresh, nheld;
	unsigned inflight; /* handed to the engine, not completed */
	/* submit batching ([engine] submit_batch; the run's workers): while at
	 * least batch requests are in the engine, queued ones are held back
	 * until batch of them are there, then handed over in one commit (fewer
	 * system calls and device wake-ups, at the cost of a shallower queue
	 * for a moment). 0 or 1: every turn commits what was queued. Set by
	 * the client after engine_drv_init; the client sets it to 0 to let
	 * everything held go at the next turn (a stopping run). */
	unsigned batch;
	uint64_t now; /* the clock as read after the last reap */
	/* a request completed with EAGAIN or EINTR this many times in a row
	 * (no byte moved in between) goes back to the client with that error;
	 * 0: queued again for ever. Set by the client after engine_drv_init:
	 * file creation, verify and preconditioning take ENGINE_DRV_AGAIN_MAX
	 * (their loops end only when every request ends), the run's workers 0
	 * (their drain is bounded by io_timeout) */
	unsigned max_again;
	bool init, open;
	/* ENGINE_F_REAP_SUBMITS: the turn's first reap also submits (its
	 * failure is said as a submit's) */
	bool submitting;
};

#define ENGINE_DRV_AGAIN_MAX 1000u

/* ---- life cycle ---- */

/*
 * Sets d up for ops over ctx (filled by the caller, which keeps owning it)
 * for at most cap requests at once, calls done(arg, req) with each finished
 * one, and initialises the engine (ops->init). Returns 0, or -errno with the
 * engine's reason in err; engine_drv_release() then frees what was made.
 */
int engine_drv_init(struct engine_drv *d, const struct engine_ops *ops, struct engine_ctx *ctx,
		    unsigned cap, engine_drv_done_fn done, void *arg,
		    struct strbuf *err) DP_MUST_CHECK;
/* The engine takes its files and buffers (ops->open). 0, or -errno (err). */
int engine_drv_open(struct engine_drv *d, struct strbuf *err) DP_MUST_CHECK;
/* Closes the engine (what is in flight is waited for or cancelled by it) and
 * frees d's arrays. Safe on a zeroed d and twice. */
void engine_drv_release(struct engine_drv *d);

/* ---- queue and resubmit ---- */

/*
 * Hands req to the engine (req->t_done_ns zeroed first). Returns
 * ENGINE_Q_QUEUED (goes to the engine at the next commit), ENGINE_Q_COMPLETED
 * (done at once: the callback has run, or the rest is kept to resubmit) or
 * ENGINE_Q_BUSY (the engine is full: req is kept to resubmit; queue nothing
 * more before a turn).
 */
int engine_drv_queue(struct engine_drv *d, struct engine_req *req);
/* Queues the kept requests again, the last kept first, until the engine is
 * full. Returns ENGINE_Q_BUSY when some are still kept, else 0. */
int engine_drv_resubmit(struct engine_drv *d);

/* ---- a turn ---- */

/* Stamps the submit time of the requests queued since the last commit (and
 * of every one held back for a batch) and hands them to the device. 0, or
 * -errno with "ENGINE engine: submit failed: WHY" in err. */
int engine_drv_commit(struct engine_drv *d, struct strbuf *err) DP_MUST_CHECK;
/*
 * One turn: the kept requests resubmitted, a commit, then completions reaped
 * in batches of up to cap: until min have come (waiting up to wait_ns for
 * each batch; a batch that brings none ends the wait), or without waiting
 * when min is 0. Each one is stamped (unless its engine stamps) and handed to
 * the policy. Returns the completions reaped (retries included), or -errno
 * with the reason in err (nothing more is reaped).
 */
int engine_drv_turn(struct engine_drv *d, unsigned min, uint64_t wait_ns,
		    struct strbuf *err) DP_MUST_CHECK;

/* ---- what is in flight ---- */

/* Requests in the engine, not completed, and those held back for a batch
 * (kept ones excluded). */
static inline unsigned engine_drv_inflight(const struct engine_drv *d)
{
	return d->inflight + d->nheld;
}

/* The clock as read after the last reap (the completions' time). */
static inline uint64_t engine_drv_now(const struct engine_drv *d)
{
	return d->now;
}

/* Requests kept to resubmit (BUSY, EAGAIN, short remainders). */
static inline unsigned engine_drv_kept(const struct engine_drv *d)
{
	return d->nretry;
}

/* ---- the engine's optional hooks ---- */

/* ops->detach where the engine has it: called by the thread that drove d when
 * it is done with it, before engine_drv_release (engine.h). */
void engine_drv_detach(struct engine_drv *d);

/* ops->stamp_ready where the engine has it, else 0 (engine.h). */
unsigned engine_drv_stamp_ready(struct engine_drv *d, uint64_t now_ns);
/* ops->probe where the engine has it (desc and err may be NULL), else 0 with
 * nothing said: whether the engine can run on this kernel (engine.h). */
int engine_drv_probe(const struct engine_ops *ops, struct strbuf *desc, struct strbuf *err);
/* True when the engine can time completions before they are reaped. */
static inline bool engine_drv_can_stamp_ready(const struct engine_drv *d)
{
	return d->ops->stamp_ready != NULL;
}

#endif
