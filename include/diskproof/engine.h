/* SPDX-License-Identifier: MIT */
/*
 * engine.h - the I/O engine contract. An engine moves requests and knows
 * nothing about databases, thresholds or SQLite.
 *
 * Life cycle, all on one worker thread:
 *   init(ctx)    allocate the engine's private state (ctx->priv)
 *   open(ctx)    take the files (ctx->fds) and buffers: register them if the
 *                engine can
 *   queue(ctx, req)  -> ENGINE_Q_COMPLETED (done at once: req->result is set),
 *                       ENGINE_Q_QUEUED (will come back from reap after commit),
 *                       ENGINE_Q_BUSY (no room: commit and reap, then retry)
 *   commit(ctx)  hand queued requests to the kernel/device
 *   reap(ctx, out, max, wait_ns)  completed requests into out[], at most max;
 *                waits up to wait_ns for the first one when none is ready
 *                (0 = do not wait). Returns the count or -errno.
 *   close(ctx)   release files and buffers from the engine
 *   cleanup(ctx) free ctx->priv
 * Only the driver (driver.h) calls these hooks: clients go through it.
 * Every hook returns 0 (or a count) or -errno; a request's own outcome travels
 * in req->result (bytes moved or -errno). The runner stamps submit and
 * completion times, except with ENGINE_F_OWN_CLOCK engines (sim's virtual
 * time) and ENGINE_F_STAMPS_DONE engines (psync, whose helper thread reads
 * ctx->clock as its syscall returns), which fill req->t_done_ns themselves.
 *
 * The hot path (queue, commit, reap) allocates nothing and takes no lock;
 * psync alone hands requests to its helper threads under a mutex.
 */
#ifndef DISKPROOF_ENGINE_H
#define DISKPROOF_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "diskproof/util.h"

enum engine_op {
	ENGINE_OP_READ,
	ENGINE_OP_WRITE,
	/* the file's written data made durable, as fdatasync(2) does (len 0,
	 * no buffer; result 0 when done) */
	ENGINE_OP_FSYNC,
};

/* request flags */
#define ENGINE_RF_DSYNC 0x1u /* write through (RWF_DSYNC) */

struct engine_req {
	/* set by the runner */
	uint8_t op;	/* enum engine_op */
	uint8_t cls;	/* I/O class, opaque to engines except sim's latency model */
	uint16_t flags; /* ENGINE_RF_* */
	uint32_t file;	/* index into ctx->fds / ctx->files */
	uint64_t offset;
	uint32_t len;
	int32_t buf_index; /* registered buffer index, or -1 */
	void *buf;
	/* set by the engine */
	int64_t result; /* bytes moved, or -errno */
	uint64_t t_submit_ns;
	uint64_t t_done_ns;
	uint64_t engine_seq; /* engine-private */
	/* set by the driver (driver.h): bytes moved by the earlier parts of a
	 * short transfer being resubmitted; 0 whenever a client sees it */
	uint32_t done_bytes;
	/* set by the driver: EAGAIN or EINTR completions in a row without a byte
	 * moved (struct engine_drv.max_again); 0 whenever a client sees it */
	uint16_t again;
	/* owned by the runner: who issued it */
	void *owner;
	uint64_t tag;
};

enum engine_queue_status {
	ENGINE_Q_COMPLETED,
	ENGINE_Q_QUEUED,
	ENGINE_Q_BUSY,
};

/* engine flags */
#define ENGINE_F_OWN_CLOCK 0x1u /* the engine keeps time (virtual); use ctx->clock */
#define ENGINE_F_NO_FILES 0x2u	/* moves no data: no files are opened or created */
/* the engine fills req->t_done_ns of every request it completes, from the real
 * ctx->clock, nearer the I/O than the runner could (psync's helper threads) */
#define ENGINE_F_STAMPS_DONE 0x4u
/* the flags under which the engine, not the runner, fills req->t_done_ns */
#define ENGINE_STAMPS_DONE_FLAGS (ENGINE_F_OWN_CLOCK | ENGINE_F_STAMPS_DONE)
/* reap submits what is queued and not yet committed, in the same system call
 * as its wait: the driver's turn (commit then reap) stamps the submit time and
 * leaves the submission to reap (io_uring: one io_uring_enter a turn) */
#define ENGINE_F_REAP_SUBMITS 0x8u
/* the flags of a simulated engine (sim): virtual time, no file or device */
#define ENGINE_SIMULATED_FLAGS (ENGINE_F_OWN_CLOCK | ENGINE_F_NO_FILES)

/* A clock the runner reads; the sim engine drives a virtual one. */
struct engine_clock {
	uint64_t (*now)(const struct engine_clock *c);
	uint64_t virtual_ns; /* for virtual clocks */
};

/* Per-file description for engines without real files (sim). */
struct engine_file {
	uint64_t size;
	uint32_t device; /* which simulated device: a volume's data or log device */
	uint32_t block;	 /* generation tracking granularity (page size); 0 = none */
	uint32_t tag;	 /* stamped into headers the engine writes (database id) */
};

/* The sim engine's model of one device (docs/engines.md): latencies per
 * class, their spread, saturation, drift, faults, spikes, transfer rate and
 * stalls. The engine's own: a run fills it from the profile's [sim] keys
 * (struct profile_sim, field for field). */
struct engine_sim_model {
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
	uint64_t lie_window_ns;	       /* lying: writes flushed this near the cut are lost */
	uint64_t cut_at_ns;	       /* the simulated power cut (virtual time); 0 = none */
	uint32_t write_cache;	       /* ENGINE_SIM_CACHE_*; 0 = none */
	uint64_t seed;		       /* default 1 */
};

/* The sim engine's write cache at a power cut (sim.c): none keeps every
 * acknowledged write (no cut model); honest keeps what a completed flush
 * (a write-through write, ENGINE_RF_DSYNC) covered; lying also loses those
 * that completed within lie_window of the cut; tearing is honest but leaves
 * every page whose write was in flight at the cut torn. */
enum engine_sim_cache {
	ENGINE_SIM_CACHE_NONE,
	ENGINE_SIM_CACHE_HONEST,
	ENGINE_SIM_CACHE_LYING,
	ENGINE_SIM_CACHE_TEARING,
};

/* What a block holds after the cut (engine_sim_survivors): its generation
 * (0 = never written: init's 1) with ENGINE_SIM_TORN when a mix of two. */
#define ENGINE_SIM_TORN 0x40000000u
#define ENGINE_SIM_GEN_MASK 0x3fffffffu

struct engine_ctx {
	unsigned depth; /* most requests in flight at once */
	const int *fds; /* nr_files descriptors, NULL for ENGINE_F_NO_FILES */
	const struct engine_file *files;
	unsigned nr_files;
	unsigned nr_devices;
	const struct iovec *bufs; /* buffers to register; req->buf_index indexes them */
	unsigned nr_bufs;
	struct engine_clock *clock;
	const struct engine_sim_model *sim; /* sim engine's device model; its seed is the run's */
	/* sim: one model per device (nr_devices of them); NULL = *sim for every
	 * device */
	const struct engine_sim_model *dev_sims;
	uint64_t seed;
	void *priv;
	/* engine's report of what it could use, e.g. "fixed buffers: off (memlock)" */
	char notes[160];
	/* what the engine runs with, e.g. "io_uring: single_issuer,defer_taskrun,
	 * registered_ring,fixed_files,fixed_buffers"; empty when it has nothing
	 * to say (env fact engine_features) */
	char features[160];
	bool sqpoll; /* [engine] sqpoll: a kernel thread submits (io_uring) */
	bool hipri;  /* [engine] hipri: polled completion (io_uring; needs poll queues) */
};

struct engine_ops {
	const char *name;
	const char *unavailable; /* NULL when built in, else why not */
	unsigned flags;
	int (*init)(struct engine_ctx *ctx, struct strbuf *err);
	int (*open)(struct engine_ctx *ctx, struct strbuf *err);
	int (*queue)(struct engine_ctx *ctx, struct engine_req *req);
	int (*commit)(struct engine_ctx *ctx);
	int (*reap)(struct engine_ctx *ctx, struct engine_req **out, unsigned max,
		    uint64_t wait_ns);
	void (*close)(struct engine_ctx *ctx);
	void (*cleanup)(struct engine_ctx *ctx);
	/* Optional. The thread that submitted and reaped is done with the
	 * engine (before close and cleanup, which may run on another thread):
	 * what the engine holds for that thread goes (io_uring: the ring's
	 * registered descriptor). */
	void (*detach)(struct engine_ctx *ctx);
	/* Optional. Stamps t_done_ns (where still 0) of requests that have
	 * completed but are not reaped yet, without reaping them: the runner
	 * calls it between the pages it verifies or stamps, so that completions
	 * landing meanwhile are timed when they land, not at the next reap. The
	 * runner zeroes t_done_ns when it queues a request. Returns how many
	 * completions are waiting to be reaped (the runner stops checking
	 * pages to reap and re-issue them first). */
	unsigned (*stamp_ready)(struct engine_ctx *ctx, uint64_t now_ns);
	/* Optional. What the kernel offers this engine, outside any context:
	 * a description for the host's facts into desc ("available: ..." or
	 * "unavailable: WHY"; may be NULL), and 0 when the engine can run here,
	 * else -ENOSYS / -EPERM / -EOPNOTSUPP with the reason in err (may be
	 * NULL). */
	int (*probe)(struct strbuf *desc, struct strbuf *err);
};

extern const struct engine_ops engine_io_uring;
extern const struct engine_ops engine_libaio; /* .unavailable without libaio */
extern const struct engine_ops engine_psync;
extern const struct engine_ops engine_sim;

/* The registry: every engine, built in or not, in a fixed order. */
const struct engine_ops *const *engine_registry(size_t *count);
/* NULL when no engine has that name. */
const struct engine_ops *engine_find(const char *name);
/* Whether the engine called name is simulated (its flags hold
 * ENGINE_SIMULATED_FLAGS): it touches no file or device. false for a name
 * the registry does not hold. */
bool engine_simulated(const char *name);
/* Checks an ops table: name set, and every hook set when available. 0/-EINVAL */
int engine_ops_validate(const struct engine_ops *ops, struct strbuf *err);

/* sim engine, a model with a write_cache: what block i of file f holds after
 * the power cut (cut_at), for n = the file's blocks into out[0, n): the
 * generation (0: init's) | ENGINE_SIM_TORN. 0, or -EINVAL when the engine
 * keeps no such state (another engine, no cache model, no block size). */
int engine_sim_survivors(const struct engine_ctx *ctx, unsigned f, uint32_t *out, uint64_t n);

/* Probes the kernel for what the io_uring engine needs; 0, or -ENOSYS /
 * -EPERM / -EOPNOTSUPP with the reason in err. */
int engine_io_uring_probe(struct strbuf *err);

/* The real monotonic clock. */
void engine_clock_init_mono(struct engine_clock *c);
void engine_clock_init_virtual(struct engine_clock *c);
static inline uint64_t engine_clock_now(const struct engine_clock *c)
{
	return c->now(c);
}

#endif
