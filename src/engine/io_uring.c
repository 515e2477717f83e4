/* SPDX-License-Identifier: MIT */
/*
 * io_uring.c - the io_uring engine: O_DIRECT reads and writes through one
 * ring per worker, with registered files and fixed buffers where the kernel
 * and the memlock limit allow them (as many buffers as they allow, plain
 * ones for the rest, noted in ctx->notes), batched submission and reaping,
 * and no busy spinning: reap sleeps in the kernel when nothing is ready.
 *
 * The ring is set up with the best flags the kernel takes, probed at set-up
 * with a fallback (single issuer + deferred task running, else cooperative
 * task running, else plain: uring_setup), and the worker's thread registers
 * the ring's descriptor; what it runs with is ctx->features (env fact
 * engine_features). One io_uring_enter a turn: reap submits what is queued
 * and waits in the same call (ENGINE_F_REAP_SUBMITS). Options for fast
 * devices: sqpoll (a kernel submission thread) and hipri (polled completion,
 * refused where a file's device has no poll queues).
 *
 * A full submission queue is BUSY (the runner commits, reaps, and retries);
 * -EAGAIN/-EBUSY from submit leaves the entries queued for the next commit.
 * Short transfers and -EAGAIN completions come back to the runner in
 * req->result, which resubmits the remainder.
 */
#include <errno.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "diskproof/engine.h"

struct uring_priv {
	struct io_uring ring;
	bool ring_ok;
	bool files_registered;
	bool bufs_registered;
	/* the first thread that submits or reaps has taken the ring: enabled
	 * it (set up disabled: single issuer) and registered its descriptor
	 * (uring_attach) */
	bool attached;
	unsigned setup;	   /* the IORING_SETUP_* flags the ring has */
	unsigned nr_fixed; /* buffers 0 .. nr_fixed - 1 are registered */
};

/* The ring set-ups tried, best first: the first the kernel takes is used
 * (with sqpoll = on, only a submission thread's; hipri adds polling to each).
 * Single issuer and deferred task running (6.1) post completions only when
 * the worker asks (io_uring_enter with GETEVENTS: no interrupting task work),
 * the task-run flag says when some are waiting to be posted; cooperative task
 * running (5.19) interrupts nobody either; plain rings take any 5.11. */
#define URING_SETUP_BEST                                                                           \
	(IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_TASKRUN_FLAG |     \
	 IORING_SETUP_SUBMIT_ALL | IORING_SETUP_R_DISABLED)
#define URING_SETUP_COOP (IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG)
/* a kernel submission thread takes none of the task-running flags (EINVAL:
 * it, not the worker, runs the completions' task work) */
#define URING_SQPOLL_IDLE_MS 50

/* "single_issuer,defer_taskrun,..." for the setup flags (engine_features) */
static void uring_setup_names(unsigned setup, struct strbuf *sb)
{
	static const struct {
		unsigned flag;
		const char *name;
	} names[] = {
		{IORING_SETUP_SQPOLL, "sqpoll"},
		{IORING_SETUP_IOPOLL, "hipri"},
		{IORING_SETUP_SINGLE_ISSUER, "single_issuer"},
		{IORING_SETUP_DEFER_TASKRUN, "defer_taskrun"},
		{IORING_SETUP_COOP_TASKRUN, "coop_taskrun"},
		{IORING_SETUP_TASKRUN_FLAG, "taskrun_flag"},
		{IORING_SETUP_SUBMIT_ALL, "submit_all"},
	};

	for (size_t i = 0; i < DP_ARRAY_SIZE(names); i++)
		if (setup & names[i].flag)
			strbuf_addf(sb, "%s%s", sb->len ? "," : "", names[i].name);
}

/* The ring's features and opcodes, as the host's facts say them
 * ("features single_mmap ...; opcodes read write ..."). */
static void uring_describe(const struct io_uring *ring, const struct io_uring_probe *probe,
			   struct strbuf *desc)
{
	static const struct {
		unsigned flag;
		const char *name;
	} feats[] = {
		{IORING_FEAT_SINGLE_MMAP, "single_mmap"},
		{IORING_FEAT_NODROP, "nodrop"},
		{IORING_FEAT_SUBMIT_STABLE, "submit_stable"},
		{IORING_FEAT_RW_CUR_POS, "rw_cur_pos"},
		{IORING_FEAT_FAST_POLL, "fast_poll"},
		{IORING_FEAT_EXT_ARG, "ext_arg"},
		{IORING_FEAT_NATIVE_WORKERS, "native_workers"},
		{IORING_FEAT_RSRC_TAGS, "rsrc_tags"},
	};
	static const struct {
		int op;
		const char *name;
	} ops[] = {
		{IORING_OP_READ, "read"},
		{IORING_OP_WRITE, "write"},
		{IORING_OP_READ_FIXED, "read_fixed"},
		{IORING_OP_WRITE_FIXED, "write_fixed"},
		{IORING_OP_FSYNC, "fsync"},
	};
	bool first = true;

	strbuf_addstr(desc, "available: features");
	for (size_t i = 0; i < DP_ARRAY_SIZE(feats); i++)
		if (ring->features & feats[i].flag)
			strbuf_addf(desc, " %s", feats[i].name);
	strbuf_addstr(desc, "; opcodes");
	for (size_t i = 0; probe && i < DP_ARRAY_SIZE(ops); i++) {
		if (io_uring_opcode_supported(probe, ops[i].op)) {
			strbuf_addf(desc, " %s", ops[i].name);
			first = false;
		}
	}
	if (first)
		strbuf_addstr(desc, " unknown (no probe)");
}

/* Whether the engine can run with this ring: timed waits and the opcodes it
 * issues. 0 or -EOPNOTSUPP with the reason in err. */
static int uring_check(const struct io_uring *ring, const struct io_uring_probe *probe,
		       struct strbuf *err)
{
	static const struct {
		int op;
		const char *name;
	} needed[] = {
		{IORING_OP_READ, "IORING_OP_READ"},
		{IORING_OP_WRITE, "IORING_OP_WRITE"},
		{IORING_OP_READ_FIXED, "IORING_OP_READ_FIXED"},
		{IORING_OP_WRITE_FIXED, "IORING_OP_WRITE_FIXED"},
	};
	int ret = 0;

	if (!(ring->features & IORING_FEAT_EXT_ARG)) {
		/* without it a timed wait queues a timeout request of liburing's
		 * own, whose completion our reap loop would mistake for ours */
		strbuf_addstr(err, "io_uring: the kernel lacks IORING_FEAT_EXT_ARG (timed waits; "
				   "Linux 5.11 or newer is needed)");
		return -EOPNOTSUPP;
	}
	if (!probe) {
		strbuf_addstr(err, "io_uring: the kernel cannot be probed for opcodes (older "
				   "than 5.6?)");
		return -EOPNOTSUPP;
	}
	for (size_t i = 0; i < DP_ARRAY_SIZE(needed); i++) {
		if (!io_uring_opcode_supported(probe, needed[i].op)) {
			strbuf_addf(err, "%sio_uring: the kernel lacks %s", ret ? "; " : "",
				    needed[i].name);
			ret = -EOPNOTSUPP;
		}
	}
	return ret;
}

/* The ops' probe (engine.h): one small ring, described and checked. */
static int uring_probe(struct strbuf *desc, struct strbuf *err)
{
	struct strbuf scratch = STRBUF_INIT;
	struct io_uring ring;
	struct io_uring_probe *probe;
	int ret = io_uring_queue_init(2, &ring, 0);

	if (!err)
		err = &scratch;
	if (ret < 0) {
		if (desc)
			strbuf_addf(desc, "unavailable: %s", strerror(-ret));
		strbuf_addf(err, "io_uring: cannot set up a ring: %s%s", strerror(-ret),
			    ret == -ENOSYS   ? " (kernel built without io_uring)"
			    : ret == -EPERM  ? " (disabled: see sysctl kernel.io_uring_disabled, "
					       "or a seccomp filter)"
			    : ret == -ENOMEM ? " (is the memlock limit, ulimit -l, too small?)"
					     : "");
		goto out;
	}
	probe = io_uring_get_probe_ring(&ring);
	if (desc)
		uring_describe(&ring, probe, desc);
	ret = uring_check(&ring, probe, err);
	if (probe)
		io_uring_free_probe(probe);
	io_uring_queue_exit(&ring);
out:
	strbuf_release(&scratch);
	return ret;
}

int engine_io_uring_probe(struct strbuf *err)
{
	return uring_probe(NULL, err);
}

static void uring_cleanup(struct engine_ctx *ctx)
{
	struct uring_priv *p = ctx->priv;

	if (!p)
		return;
	if (p->ring_ok)
		io_uring_queue_exit(&p->ring);
	free(p);
	ctx->priv = NULL;
}

/* Sets the ring up with the best flags the kernel takes (URING_SETUP_*),
 * each refusal (EINVAL: an unknown flag or combination) falling back to the
 * next; sqpoll and hipri are added to every attempt, never dropped. */
static int uring_setup(struct uring_priv *p, unsigned entries, const struct engine_ctx *ctx)
{
	const unsigned best[] = {URING_SETUP_BEST, URING_SETUP_COOP, 0};
	const unsigned sqpoll[] = {IORING_SETUP_SQPOLL}; /* asked for: never dropped */
	const unsigned *tries = ctx->sqpoll ? sqpoll : best;
	size_t n = ctx->sqpoll ? DP_ARRAY_SIZE(sqpoll) : DP_ARRAY_SIZE(best);
	unsigned extra = IORING_SETUP_CLAMP | (ctx->hipri ? IORING_SETUP_IOPOLL : 0);
	int ret = -EINVAL;

	for (size_t i = 0; i < n && ret == -EINVAL; i++) {
		struct io_uring_params params = {.flags = tries[i] | extra};

		if (tries[i] & IORING_SETUP_SQPOLL)
			params.sq_thread_idle = URING_SQPOLL_IDLE_MS;
		ret = io_uring_queue_init_params(entries, &p->ring, &params);
		if (ret == 0)
			p->setup = params.flags;
	}
	return ret;
}

static int uring_init(struct engine_ctx *ctx, struct strbuf *err)
{
	struct uring_priv *p = calloc(1, sizeof(*p));
	unsigned entries = 1;
	int ret;

	if (!p) {
		strbuf_addstr(err, "io_uring: out of memory");
		return -ENOMEM;
	}
	ctx->priv = p;
	while (entries < ctx->depth)
		entries <<= 1;
	ret = uring_setup(p, entries, ctx);
	if (ret < 0) {
		struct rlimit rl;

		strbuf_addf(err, "io_uring: cannot set up a ring of %u entries%s: %s", entries,
			    ctx->sqpoll	 ? " with a submission thread (sqpoll = on)"
			    : ctx->hipri ? " with polled completion (hipri = on)"
					 : "",
			    strerror(-ret));
		/* since 6.13 a ring's memory counts against the memlock limit */
		if (ret == -ENOMEM && !getrlimit(RLIMIT_MEMLOCK, &rl) &&
		    rl.rlim_cur != RLIM_INFINITY)
			strbuf_addf(err, " (the memlock limit, ulimit -l, is %llu KiB; raise it)",
				    (unsigned long long)rl.rlim_cur / 1024);
		uring_cleanup(ctx);
		return ret;
	}
	p->ring_ok = true;
	return 0;
}

/* The calling thread becomes the ring's one issuer: a single-issuer ring is
 * set up disabled by the thread that opens it (the run's main thread) and
 * enabled by the first to submit or reap (its worker), which registers the
 * ring's descriptor for itself too (io_uring_enter without an fd look-up; the
 * registration is the thread's, gone when it ends). */
static int uring_attach(struct uring_priv *p)
{
	int ret;

	if (p->attached)
		return 0;
	if (p->setup & IORING_SETUP_R_DISABLED) {
		/* liburing 2.3 declares io_uring_enable_rings but does not export it */
		ret = (int)syscall(__NR_io_uring_register, p->ring.ring_fd,
				   IORING_REGISTER_ENABLE_RINGS, NULL, 0);
		if (ret < 0)
			return -errno;
	}
	p->attached = true;
	(void)io_uring_register_ring_fd(&p->ring); /* else the plain fd */
	return 0;
}

/* A refusal that fewer buffers may not meet: the memlock limit (ENOMEM,
 * EPERM), or more buffers than the kernel takes at once (EINVAL: 1,024 before
 * 5.13). */
static bool fewer_may_fit(int ret)
{
	return ret == -ENOMEM || ret == -EPERM || ret == -EINVAL;
}

/*
 * Registers as many of the buffers as the kernel and the memlock limit allow,
 * the first ones first (the runner puts its slots' own buffers before the
 * spares, so a partial registration keeps the busiest ones fixed); the rest
 * are used as plain buffers. Halving until a count fits, then a binary search
 * between it and the smallest count refused: the largest count that fits, in
 * about 2 x log2(nr_bufs) attempts (at set-up only). Returns the count
 * registered (0: none) and the last refusal in *why (0 if none).
 */
static unsigned register_buffers(struct uring_priv *p, const struct engine_ctx *ctx, int *why)
{
	unsigned n = ctx->nr_bufs, refused = 0;
	bool held = false;
	int r;

	*why = 0;
	while (n) {
		r = io_uring_register_buffers(&p->ring, ctx->bufs, n);
		if (r == 0) {
			held = true;
			break;
		}
		*why = r;
		if (!fewer_may_fit(r))
			return 0;
		refused = n;
		n = r == -EINVAL && n > 1024 ? 1024 : n / 2;
	}
	if (!n)
		return 0;
	while (refused && refused - n > 1) {
		unsigned mid = n + (refused - n) / 2;

		if (held)
			io_uring_unregister_buffers(&p->ring);
		held = false;
		r = io_uring_register_buffers(&p->ring, ctx->bufs, mid);
		if (r == 0) {
			n = mid;
			held = true;
		} else {
			*why = r;
			refused = mid;
			if (!fewer_may_fit(r))
				break;
		}
	}
	if (!held && io_uring_register_buffers(&p->ring, ctx->bufs, n))
		return 0;
	return n;
}

/* The first line of a sysfs file, or "" */
static void sysfs_line(const char *path, char *out, size_t size)
{
	FILE *f = fopen(path, "r");

	out[0] = 0;
	if (f) {
		if (fgets(out, (int)size, f))
			out[strcspn(out, "\n")] = 0;
		fclose(f);
	}
}

/* hipri = on: polled completion needs the device of every file to have poll
 * queues (its queue/io_poll is 1); -EOPNOTSUPP naming the first that has
 * none. A partition's queue is its disk's. */
static int uring_check_poll(const struct engine_ctx *ctx, struct strbuf *err)
{
	for (unsigned i = 0; i < ctx->nr_files; i++) {
		struct stat st;
		char dir[64], path[96], v[64], name[64] = "";
		unsigned maj, min;

		if (fstat(ctx->fds[i], &st))
			continue;
		maj = S_ISBLK(st.st_mode) ? major(st.st_rdev) : major(st.st_dev);
		min = S_ISBLK(st.st_mode) ? minor(st.st_rdev) : minor(st.st_dev);
		snprintf(dir, sizeof(dir), "/sys/dev/block/%u:%u", maj, min);
		snprintf(path, sizeof(path), "%s/uevent", dir);
		{
			FILE *f = fopen(path, "r");

			while (f && fgets(v, sizeof(v), f))
				if (!strncmp(v, "DEVNAME=", 8))
					snprintf(name, sizeof(name), "/dev/%.*s",
						 (int)strcspn(v + 8, "\n"), v + 8);
			if (f)
				fclose(f);
		}
		snprintf(path, sizeof(path), "%s/queue/io_poll", dir);
		sysfs_line(path, v, sizeof(v));
		if (!v[0]) {
			snprintf(path, sizeof(path), "%s/../queue/io_poll", dir);
			sysfs_line(path, v, sizeof(v));
		}
		if (strcmp(v, "1")) {
			strbuf_addf(err,
				    "io_uring: hipri = on needs polled completion, and %s (%u:%u) "
				    "has no poll queues (%s/queue/io_poll is %s); set hipri = off",
				    name[0] ? name : "the files' device", maj, min, dir,
				    v[0] ? v : "missing");
			return -EOPNOTSUPP;
		}
	}
	return 0;
}

/* Whether this thread can register the ring's descriptor (Linux 5.18): tried
 * and undone; each worker registers it for itself when it attaches. */
static bool uring_ring_fd_ok(struct uring_priv *p)
{
	if (io_uring_register_ring_fd(&p->ring) != 1)
		return false;
	(void)io_uring_unregister_ring_fd(&p->ring);
	return true;
}

/* engine_features: "io_uring: single_issuer,...,fixed_files,fixed_buffers" */
static void uring_features(struct engine_ctx *ctx, struct uring_priv *p)
{
	struct strbuf sb = STRBUF_INIT;

	uring_setup_names(p->setup, &sb);
	if (uring_ring_fd_ok(p))
		strbuf_addf(&sb, "%sregistered_ring", sb.len ? "," : "");
	if (p->files_registered)
		strbuf_addf(&sb, "%sfixed_files", sb.len ? "," : "");
	if (p->bufs_registered)
		strbuf_addf(&sb, "%sfixed_buffers", sb.len ? "," : "");
	snprintf(ctx->features, sizeof(ctx->features), "io_uring: %s", sb.len ? sb.buf : "plain");
	strbuf_release(&sb);
}

static int uring_open(struct engine_ctx *ctx, struct strbuf *err)
{
	struct uring_priv *p = ctx->priv;
	int ret;
	const char *files_note = "off", *bufs_note = "off";
	char partial[96];

	if (ctx->hipri) {
		ret = uring_check_poll(ctx, err);
		if (ret)
			return ret;
	}

	if (ctx->nr_files) {
		ret = io_uring_register_files(&p->ring, ctx->fds, ctx->nr_files);
		p->files_registered = ret == 0;
		files_note = ret == 0 ? "on" : strerror(-ret);
	}
	if (ctx->nr_bufs) {
		p->nr_fixed = register_buffers(p, ctx, &ret);
		p->bufs_registered = p->nr_fixed > 0;
		if (p->nr_fixed == ctx->nr_bufs) {
			bufs_note = "on";
		} else if (p->nr_fixed) {
			snprintf(partial, sizeof(partial), "on for %u of %u (%s)", p->nr_fixed,
				 ctx->nr_bufs,
				 ret == -EINVAL ? "the kernel's limit" : "memlock limit");
			bufs_note = partial;
		} else {
			bufs_note = (ret == -ENOMEM || ret == -EPERM) ? "off (memlock limit)"
								      : strerror(-ret);
		}
	}
	snprintf(ctx->notes, sizeof(ctx->notes), "registered files: %s, fixed buffers: %s",
		 files_note, bufs_note);
	uring_features(ctx, p);
	return 0;
}

static int uring_queue(struct engine_ctx *ctx, struct engine_req *r)
{
	struct uring_priv *p = ctx->priv;
	struct io_uring_sqe *sqe = io_uring_get_sqe(&p->ring);
	int fd = p->files_registered ? (int)r->file : ctx->fds[r->file];
	bool fixed =
		p->bufs_registered && r->buf_index >= 0 && (unsigned)r->buf_index < p->nr_fixed;

	if (!sqe)
		return ENGINE_Q_BUSY;
	if (r->op == ENGINE_OP_FSYNC) {
		io_uring_prep_fsync(sqe, fd, IORING_FSYNC_DATASYNC);
	} else if (r->op == ENGINE_OP_READ) {
		if (fixed)
			io_uring_prep_read_fixed(sqe, fd, r->buf, r->len, r->offset, r->buf_index);
		else
			io_uring_prep_read(sqe, fd, r->buf, r->len, r->offset);
	} else {
		if (fixed)
			io_uring_prep_write_fixed(sqe, fd, r->buf, r->len, r->offset, r->buf_index);
		else
			io_uring_prep_write(sqe, fd, r->buf, r->len, r->offset);
		if (r->flags & ENGINE_RF_DSYNC)
			sqe->rw_flags = RWF_DSYNC;
	}
	if (p->files_registered)
		sqe->flags |= IOSQE_FIXED_FILE;
	io_uring_sqe_set_data(sqe, r);
	return ENGINE_Q_QUEUED;
}

/* Completions the kernel holds back until asked (deferred or cooperative task
 * running): it raises IORING_SQ_TASKRUN in the ring's flags when there are. */
static bool uring_held_back(const struct uring_priv *p)
{
	return (p->setup & IORING_SETUP_TASKRUN_FLAG) &&
	       (IO_URING_READ_ONCE(*p->ring.sq.kflags) & IORING_SQ_TASKRUN);
}

/* A submit error the next commit may retry: the entries stay in the SQ. */
static int uring_soft(int ret)
{
	return ret == -EAGAIN || ret == -EBUSY || ret == -EINTR || ret == -ETIME ? 0 : ret;
}

static int uring_commit(struct engine_ctx *ctx)
{
	struct uring_priv *p = ctx->priv;
	int ret = uring_attach(p);

	if (ret < 0)
		return ret;
	if (!io_uring_sq_ready(&p->ring))
		return 0;
	ret = io_uring_submit(&p->ring);
	return ret < 0 ? uring_soft(ret) : 0;
}

/* Polled completion (hipri): the kernel polls the device queue for what is
 * in flight, once per io_uring_enter, until something is there or wait_ns
 * has passed (a busy wait, as polling is: the worker's CPU is the price). */
static int uring_poll(struct uring_priv *p, uint64_t wait_ns)
{
	struct timespec t0, t;
	int ret;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		ret = io_uring_submit_and_get_events(&p->ring);
		if (ret < 0 && uring_soft(ret))
			return ret;
		if (io_uring_cq_ready(&p->ring) || !wait_ns)
			return 0;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((uint64_t)((t.tv_sec - t0.tv_sec) * NSEC_PER_SEC + (t.tv_nsec - t0.tv_nsec)) >=
		    wait_ns)
			return 0;
	}
}

/*
 * Submits what is queued (ENGINE_F_REAP_SUBMITS: the turn's commit is this
 * call) and, with nothing to reap, waits up to wait_ns for a completion: one
 * io_uring_enter for both (io_uring_submit_and_wait_timeout); none at all when
 * nothing is queued and completions are there to take.
 */
static int uring_reap(struct engine_ctx *ctx, struct engine_req **out, unsigned max,
		      uint64_t wait_ns)
{
	struct uring_priv *p = ctx->priv;
	struct io_uring_cqe *cqe;
	unsigned head, n = 0;
	bool ready;
	int ret = uring_attach(p);

	if (ret < 0)
		return ret;
	ready = io_uring_cq_ready(&p->ring) > 0;
	if (p->setup & IORING_SETUP_IOPOLL) {
		ret = uring_poll(p, ready ? 0 : wait_ns);
	} else if (!ready && wait_ns) {
		struct __kernel_timespec ts = {
			.tv_sec = (long long)(wait_ns / NSEC_PER_SEC),
			.tv_nsec = (long long)(wait_ns % NSEC_PER_SEC),
		};

		ret = io_uring_submit_and_wait_timeout(&p->ring, &cqe, 1, &ts, NULL);
	} else if (io_uring_sq_ready(&p->ring)) {
		ret = io_uring_submit(&p->ring); /* posts the held-back ones too */
	} else if (!ready && uring_held_back(p)) {
		ret = io_uring_get_events(&p->ring);
	}
	if (ret < 0 && uring_soft(ret))
		return ret;
	io_uring_for_each_cqe(&p->ring, head, cqe)
	{
		struct engine_req *r = io_uring_cqe_get_data(cqe);

		if (n == max)
			break;
		r->result = cqe->res;
		out[n++] = r;
	}
	io_uring_cq_advance(&p->ring, n);
	return (int)n;
}

/* A look at the completion queue, a memory read, nothing reaped; a system
 * call only when completions are held back by the kernel (they are posted,
 * then stamped: the time they are seen, as without deferred task running). */
static unsigned uring_stamp_ready(struct engine_ctx *ctx, uint64_t now_ns)
{
	struct uring_priv *p = ctx->priv;
	struct io_uring_cqe *cqe;
	unsigned head, n = 0;

	if (!io_uring_cq_ready(&p->ring) && p->attached && uring_held_back(p))
		(void)io_uring_get_events(&p->ring);
	io_uring_for_each_cqe(&p->ring, head, cqe)
	{
		struct engine_req *r = io_uring_cqe_get_data(cqe);

		if (!r->t_done_ns)
			r->t_done_ns = now_ns;
		n++;
	}
	return n;
}

/* The worker's thread is done with the ring: its registered descriptor goes
 * (a registration is the thread's own). */
static void uring_detach(struct engine_ctx *ctx)
{
	struct uring_priv *p = ctx->priv;

	if (p && p->ring_ok && p->attached)
		(void)io_uring_unregister_ring_fd(&p->ring);
}

static void uring_close(struct engine_ctx *ctx)
{
	struct uring_priv *p = ctx->priv;

	if (!p || !p->ring_ok)
		return;
	if (p->bufs_registered)
		io_uring_unregister_buffers(&p->ring);
	if (p->files_registered)
		io_uring_unregister_files(&p->ring);
	p->bufs_registered = p->files_registered = false;
	p->nr_fixed = 0;
}

const struct engine_ops engine_io_uring = {
	.name = "io_uring",
	.flags = ENGINE_F_REAP_SUBMITS,
	.init = uring_init,
	.open = uring_open,
	.queue = uring_queue,
	.commit = uring_commit,
	.reap = uring_reap,
	.stamp_ready = uring_stamp_ready,
	.probe = uring_probe,
	.close = uring_close,
	.detach = uring_detach,
	.cleanup = uring_cleanup,
};
