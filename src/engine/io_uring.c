/* SPDX-License-Identifier: MIT */
/*
 * io_uring.c - the io_uring engine: O_DIRECT reads and writes through one
 * ring per worker, with registered files and fixed buffers where the kernel
 * and the memlock limit allow them (as many buffers as they allow, plain
 * ones for the rest, noted in ctx->notes), batched submission and reaping,
 * and no busy spinning: reap sleeps in the kernel (io_uring_wait_cqe_timeout)
 * when nothing is ready.
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
#include <sys/uio.h>

#include "diskproof/engine.h"

struct uring_priv {
	struct io_uring ring;
	bool ring_ok;
	bool files_registered;
	bool bufs_registered;
	unsigned nr_fixed; /* buffers 0 .. nr_fixed - 1 are registered */
	unsigned queued;   /* prepared, not yet submitted */
};

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
	ret = io_uring_queue_init(entries, &p->ring, IORING_SETUP_CLAMP);
	if (ret < 0) {
		struct rlimit rl;

		strbuf_addf(err, "io_uring: cannot set up a ring of %u entries: %s", entries,
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

static int uring_open(struct engine_ctx *ctx, struct strbuf *err)
{
	struct uring_priv *p = ctx->priv;
	int ret;
	const char *files_note = "off", *bufs_note = "off";
	char partial[96];

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
	if (r->op == ENGINE_OP_READ) {
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
	p->queued++;
	return ENGINE_Q_QUEUED;
}

static int uring_commit(struct engine_ctx *ctx)
{
	struct uring_priv *p = ctx->priv;
	int ret;

	if (!p->queued)
		return 0;
	ret = io_uring_submit(&p->ring);
	if (ret == -EAGAIN || ret == -EBUSY || ret == -EINTR)
		return 0; /* kept in the SQ; the next commit retries */
	if (ret < 0)
		return ret;
	p->queued = (unsigned)ret >= p->queued ? 0 : p->queued - (unsigned)ret;
	return 0;
}

static int uring_reap(struct engine_ctx *ctx, struct engine_req **out, unsigned max,
		      uint64_t wait_ns)
{
	struct uring_priv *p = ctx->priv;
	struct io_uring_cqe *cqe;
	unsigned head, n = 0;
	int ret;

	if (!io_uring_cq_ready(&p->ring) && wait_ns) {
		struct __kernel_timespec ts = {
			.tv_sec = (long long)(wait_ns / NSEC_PER_SEC),
			.tv_nsec = (long long)(wait_ns % NSEC_PER_SEC),
		};

		ret = io_uring_wait_cqe_timeout(&p->ring, &cqe, &ts);
		if (ret < 0 && ret != -ETIME && ret != -EINTR && ret != -EAGAIN)
			return ret;
	}
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

/* A look at the completion queue, a memory read: no system call, nothing
 * reaped. */
static unsigned uring_stamp_ready(struct engine_ctx *ctx, uint64_t now_ns)
{
	struct uring_priv *p = ctx->priv;
	struct io_uring_cqe *cqe;
	unsigned head, n = 0;

	io_uring_for_each_cqe(&p->ring, head, cqe)
	{
		struct engine_req *r = io_uring_cqe_get_data(cqe);

		if (!r->t_done_ns)
			r->t_done_ns = now_ns;
		n++;
	}
	return n;
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
	.flags = 0,
	.init = uring_init,
	.open = uring_open,
	.queue = uring_queue,
	.commit = uring_commit,
	.reap = uring_reap,
	.stamp_ready = uring_stamp_ready,
	.probe = uring_probe,
	.close = uring_close,
	.cleanup = uring_cleanup,
};
