/* SPDX-License-Identifier: MIT */
/*
 * libaio.c - the Linux native AIO engine (libaio: io_setup, io_submit,
 * io_getevents): reads and writes through one AIO context per worker.
 *
 * Requests are prepared into a preallocated pool of iocbs, one per request in
 * flight, so queue() answers BUSY once depth requests are outstanding and
 * nothing is allocated per I/O. commit() hands every prepared iocb to one
 * io_submit(); a partial submission or -EAGAIN keeps the rest, in order, for
 * the next commit. An iocb the kernel refuses outright (io_submit() failing
 * on it with any other error) fails that request alone: its -errno comes back
 * from the next reap in req->result, and the ones after it are submitted.
 * reap() sleeps in io_getevents() up to wait_ns when nothing has completed.
 * Short transfers come back as they are; the runner resubmits the remainder.
 *
 * Write-through (ENGINE_RF_DSYNC) is RWF_DSYNC in the iocb's aio_rw_flags
 * (Linux 4.13 and newer). open() asks the kernel whether it takes the flag
 * with a zero-length read that carries it (it moves no data). Where the
 * kernel refuses it, write-through writes go to a second descriptor of each
 * file, reopened with O_DSYNC through /proc/self/fd; if that cannot be
 * opened either, open() fails: write-through is never dropped. ctx->notes
 * says which way the run writes through.
 *
 * Linux AIO is asynchronous for O_DIRECT only: on buffered files ([engine]
 * direct = off) io_submit() does the I/O before it returns, and the latency
 * measured is the same submit-to-reap interval.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "diskproof/engine.h"

#ifdef DISKPROOF_HAVE_LIBAIO

#include <libaio.h>

/* how long open() waits for its zero-length probe read */
#define AIO_PROBE_WAIT_S 10
/* longest reap wait while refused submissions (-EAGAIN) are waiting */
#define AIO_BACKLOG_WAIT_NS (1 * NSEC_PER_MSEC)

struct aio_priv {
	io_context_t ioctx;
	bool ioctx_ok;
	unsigned depth;	    /* iocbs in the pool; may be below ctx->depth */
	struct iocb *iocbs; /* depth; req->engine_seq is the index */
	unsigned *free;	    /* free iocb indexes, a stack */
	unsigned nfree;
	struct iocb **pending; /* prepared, not yet taken by io_submit, in order */
	unsigned npending;
	struct engine_req **failed; /* refused by io_submit, for the next reap */
	unsigned nfailed;
	struct io_event *events; /* depth */
	unsigned submitted;	 /* taken by the kernel, not yet reaped */
	bool rwf_dsync;		 /* the kernel takes RWF_DSYNC in aio_rw_flags */
	int *dsync_fds;		 /* otherwise: O_DSYNC twins of ctx->fds */
	unsigned nr_dsync_fds;
};

static void aio_close(struct engine_ctx *ctx)
{
	struct aio_priv *p = ctx->priv;

	if (!p || !p->dsync_fds)
		return;
	for (unsigned i = 0; i < p->nr_dsync_fds; i++)
		if (p->dsync_fds[i] >= 0)
			close(p->dsync_fds[i]);
	free(p->dsync_fds);
	p->dsync_fds = NULL;
	p->nr_dsync_fds = 0;
}

static void aio_cleanup(struct engine_ctx *ctx)
{
	struct aio_priv *p = ctx->priv;

	if (!p)
		return;
	aio_close(ctx);
	if (p->ioctx_ok)
		io_destroy(p->ioctx);
	free(p->iocbs);
	free(p->free);
	free(p->pending);
	free(p->failed);
	free(p->events);
	free(p);
	ctx->priv = NULL;
}

/*
 * One AIO context of ctx->depth events. A context counts against the
 * system-wide fs.aio-max-nr; where that is too small for the depth asked
 * for, the engine halves the depth until the kernel grants it, and says so
 * in ctx->notes (queue() answers BUSY at that depth; the runner retries).
 */
static int aio_init(struct engine_ctx *ctx, struct strbuf *err)
{
	struct aio_priv *p = calloc(1, sizeof(*p));
	unsigned want = ctx->depth ? ctx->depth : 1, depth = want;
	int ret;

	if (!p)
		goto out_nomem;
	ctx->priv = p;
	for (;;) {
		ret = io_setup((int)depth, &p->ioctx);
		if (!ret)
			break;
		if (ret != -EAGAIN || depth == 1) {
			strbuf_addf(err, "libaio: cannot set up an AIO context of %u events: %s%s",
				    depth, strerror(-ret),
				    ret == -EAGAIN   ? " (raise sysctl fs.aio-max-nr)"
				    : ret == -ENOSYS ? " (kernel built without AIO)"
						     : "");
			aio_cleanup(ctx);
			return ret;
		}
		depth /= 2;
	}
	p->ioctx_ok = true;
	p->depth = depth;
	p->iocbs = calloc(depth, sizeof(*p->iocbs));
	p->free = calloc(depth, sizeof(*p->free));
	p->pending = calloc(depth, sizeof(*p->pending));
	p->failed = calloc(depth, sizeof(*p->failed));
	p->events = calloc(depth, sizeof(*p->events));
	if (!p->iocbs || !p->free || !p->pending || !p->failed || !p->events)
		goto out_nomem;
	for (unsigned i = 0; i < depth; i++)
		p->free[i] = depth - 1 - i;
	p->nfree = depth;
	if (depth < want)
		snprintf(ctx->notes, sizeof(ctx->notes), "AIO depth %u of %u (fs.aio-max-nr)",
			 depth, want);
	return 0;
out_nomem:
	aio_cleanup(ctx);
	strbuf_addstr(err, "libaio: out of memory");
	return -ENOMEM;
}

/*
 * Does the kernel take RWF_DSYNC in aio_rw_flags? A zero-length read that
 * carries it touches no data; a kernel without aio_rw_flags (before 4.13)
 * refuses the iocb at io_submit() with -EINVAL, one without the flag with
 * -EOPNOTSUPP. 1 = yes, 0 = no, or -errno when the probe itself failed.
 */
static int aio_probe_rwf_dsync(struct aio_priv *p, int fd, struct strbuf *err)
{
	struct iocb io, *iop = &io;
	struct io_event ev;
	struct timespec ts = {.tv_sec = AIO_PROBE_WAIT_S};
	int ret;

	io_prep_pread(&io, fd, p->events, 0, 0);
	io.aio_rw_flags = RWF_DSYNC;
	ret = io_submit(p->ioctx, 1, &iop);
	if (ret == -EINVAL || ret == -EOPNOTSUPP)
		return 0;
	if (ret != 1) {
		ret = ret < 0 ? ret : -EIO;
		strbuf_addf(err, "libaio: cannot submit a probe read: %s", strerror(-ret));
		return ret;
	}
	ret = io_getevents(p->ioctx, 1, 1, &ev, &ts);
	if (ret != 1) {
		ret = ret < 0 ? ret : -ETIMEDOUT;
		strbuf_addf(err, "libaio: a zero-length probe read did not complete in %d s: %s",
			    AIO_PROBE_WAIT_S, strerror(-ret));
		return ret;
	}
	return 1;
}

/* Second descriptors of every file, opened with O_DSYNC, for kernels that
 * refuse RWF_DSYNC on AIO writes. */
static int aio_open_dsync_fds(struct engine_ctx *ctx, struct aio_priv *p, struct strbuf *err)
{
	char path[64];
	int fl, e;

	p->dsync_fds = malloc(ctx->nr_files * sizeof(*p->dsync_fds));
	if (!p->dsync_fds) {
		strbuf_addstr(err, "libaio: out of memory");
		return -ENOMEM;
	}
	for (unsigned i = 0; i < ctx->nr_files; i++)
		p->dsync_fds[i] = -1;
	p->nr_dsync_fds = ctx->nr_files;
	for (unsigned i = 0; i < ctx->nr_files; i++) {
		fl = fcntl(ctx->fds[i], F_GETFL);
		snprintf(path, sizeof(path), "/proc/self/fd/%d", ctx->fds[i]);
		if (fl >= 0)
			p->dsync_fds[i] =
				open(path, (fl & (O_ACCMODE | O_DIRECT)) | O_DSYNC | O_CLOEXEC);
		if (fl < 0 || p->dsync_fds[i] < 0) {
			e = errno;
			strbuf_addf(
				err,
				"libaio: the kernel refuses RWF_DSYNC on AIO writes (Linux 4.13 "
				"or newer takes it) and %s cannot be reopened with O_DSYNC: %s",
				path, strerror(e));
			aio_close(ctx);
			return -e;
		}
	}
	return 0;
}

static int aio_open(struct engine_ctx *ctx, struct strbuf *err)
{
	struct aio_priv *p = ctx->priv;
	size_t len = strlen(ctx->notes);
	int ret;

	p->rwf_dsync = true;
	if (ctx->fds && ctx->nr_files) {
		ret = aio_probe_rwf_dsync(p, ctx->fds[0], err);
		if (ret < 0)
			return ret;
		p->rwf_dsync = ret == 1;
		if (!p->rwf_dsync) {
			ret = aio_open_dsync_fds(ctx, p, err);
			if (ret)
				return ret;
		}
	}
	snprintf(ctx->notes + len, sizeof(ctx->notes) - len, "%swrite-through: %s", len ? ", " : "",
		 p->rwf_dsync ? "RWF_DSYNC" : "O_DSYNC descriptors (the kernel refuses RWF_DSYNC)");
	return 0;
}

static int aio_queue(struct engine_ctx *ctx, struct engine_req *r)
{
	struct aio_priv *p = ctx->priv;
	bool dsync = r->flags & ENGINE_RF_DSYNC;
	unsigned idx;
	struct iocb *io;

	if (!p->nfree)
		return ENGINE_Q_BUSY;
	idx = p->free[--p->nfree];
	io = &p->iocbs[idx];
	if (r->op == ENGINE_OP_FSYNC) {
		io_prep_fdsync(io, ctx->fds[r->file]);
	} else if (r->op == ENGINE_OP_READ) {
		io_prep_pread(io, ctx->fds[r->file], r->buf, r->len, (long long)r->offset);
	} else if (dsync && !p->rwf_dsync) {
		io_prep_pwrite(io, p->dsync_fds[r->file], r->buf, r->len, (long long)r->offset);
	} else {
		io_prep_pwrite(io, ctx->fds[r->file], r->buf, r->len, (long long)r->offset);
		if (dsync)
			io->aio_rw_flags = RWF_DSYNC;
	}
	io->data = r;
	r->engine_seq = idx;
	p->pending[p->npending++] = io;
	return ENGINE_Q_QUEUED;
}

static int aio_commit(struct engine_ctx *ctx)
{
	struct aio_priv *p = ctx->priv;
	int ret;

	while (p->npending) {
		ret = io_submit(p->ioctx, p->npending, p->pending);
		if (ret == -EAGAIN || ret == -EINTR || ret == 0)
			break; /* kept, in order; the next commit retries */
		if (ret < 0) {
			/* the kernel refused the first one: fail it alone */
			struct engine_req *r = p->pending[0]->data;

			r->result = ret;
			p->failed[p->nfailed++] = r;
			ret = 1;
		} else {
			p->submitted += (unsigned)ret;
		}
		p->npending -= (unsigned)ret;
		memmove(p->pending, p->pending + ret, p->npending * sizeof(*p->pending));
	}
	return 0;
}

static void aio_release(struct aio_priv *p, struct engine_req *r)
{
	p->free[p->nfree++] = (unsigned)r->engine_seq;
}

static int aio_reap(struct engine_ctx *ctx, struct engine_req **out, unsigned max, uint64_t wait_ns)
{
	struct aio_priv *p = ctx->priv;
	struct timespec ts = {0, 0};
	unsigned n = 0, i;
	long nr;
	int ret;

	for (i = 0; i < p->nfailed && n < max; i++) {
		out[n++] = p->failed[i];
		aio_release(p, p->failed[i]);
	}
	p->nfailed -= i;
	memmove(p->failed, p->failed + i, p->nfailed * sizeof(*p->failed));
	if (n == max || (!p->submitted && (n || !wait_ns)))
		return (int)n;
	if (!n) {
		if (p->npending && wait_ns > AIO_BACKLOG_WAIT_NS)
			wait_ns = AIO_BACKLOG_WAIT_NS;
		ts.tv_sec = (time_t)(wait_ns / NSEC_PER_SEC);
		ts.tv_nsec = (long)(wait_ns % NSEC_PER_SEC);
	}
	nr = max - n < p->depth ? max - n : p->depth;
	/* with nothing in flight this sleeps out the wait, as io_uring's does */
	ret = io_getevents(p->ioctx, n || !wait_ns ? 0 : 1, nr, p->events, &ts);
	if (ret == -EINTR)
		ret = 0;
	if (ret < 0)
		return n ? (int)n : ret;
	for (int k = 0; k < ret; k++) {
		struct engine_req *r = p->events[k].data;

		/* res is the byte count, or -errno in an unsigned long */
		r->result = (int64_t)(long)p->events[k].res;
		aio_release(p, r);
		p->submitted--;
		out[n++] = r;
	}
	return (int)n;
}

const struct engine_ops engine_libaio = {
	.name = "libaio",
	.flags = 0,
	.init = aio_init,
	.open = aio_open,
	.queue = aio_queue,
	.commit = aio_commit,
	.reap = aio_reap,
	.close = aio_close,
	.cleanup = aio_cleanup,
};

#else /* !DISKPROOF_HAVE_LIBAIO */

const struct engine_ops engine_libaio = {
	.name = "libaio",
	.unavailable = "built without libaio (install libaio-dev)",
};

#endif
