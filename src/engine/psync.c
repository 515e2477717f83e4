/* SPDX-License-Identifier: MIT */
/*
 * psync.c - the psync engine: plain pread()/pwrite() (pwritev2() with
 * RWF_DSYNC for write-through) on a fixed pool of helper threads, for
 * systems where neither io_uring nor libaio can be used, and as the
 * reference the asynchronous engines can be checked against.
 *
 * Each worker gets min(depth, PSYNC_MAX_THREADS) helper threads, at least
 * one, started by init() with every signal blocked (signals belong to the
 * main thread's signalfd). queue() only notes the request (BUSY once depth
 * requests are outstanding); commit() moves the noted ones to the submission
 * ring and wakes helpers; a helper takes one, does the system call, reads
 * ctx->clock as soon as the call returns and stores that in req->t_done_ns
 * (ENGINE_F_STAMPS_DONE: the runner keeps it rather than stamping the time it
 * reaped the request), then puts it on the completion ring. reap() takes
 * completions, waiting on a condition variable up to wait_ns for the first.
 * When more requests are committed than there are helpers, the rest wait in
 * the submission ring, and that wait is part of their latency, as a device
 * queue's would be.
 *
 * The rings are shared with the helpers under one mutex: a lock on the hot
 * path, which ARCHITECTURE.md allows here alone. Both rings hold depth
 * entries, enough for every outstanding request. Requests can leave reap()
 * in a slightly different order than their t_done_ns (two helpers finishing
 * together race for the mutex); each t_done_ns is exact.
 *
 * Short transfers come back as they are (the runner resubmits the rest). A
 * kernel without pwritev2() or RWF_DSYNC (before 4.7) gets pwrite() followed
 * by fdatasync() for write-through writes, both inside the timed interval.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "diskproof/engine.h"

#define PSYNC_MAX_THREADS 64
#define PSYNC_STACK_SIZE (256 * 1024)
#define PSYNC_MAX_WAIT_NS (3600 * NSEC_PER_SEC) /* keeps the deadline in range */

struct psync_ring {
	struct engine_req **slot; /* depth entries */
	unsigned head, len;
};

struct psync_priv {
	pthread_mutex_t lock;
	pthread_cond_t work; /* helpers wait here for submissions */
	pthread_cond_t done; /* reap waits here for completions */
	bool sync_ok;	     /* lock and both condition variables initialised */
	unsigned depth;
	/* under lock */
	struct psync_ring sq, cq;
	bool stop;	   /* helpers exit, leaving unstarted requests */
	bool reap_waiting; /* someone waits on done */
	/* set before the helpers see a request (the mutex orders it) */
	const int *fds;
	struct engine_clock *clock;
	/* the worker thread's alone */
	pthread_t *threads;
	unsigned nthreads;	   /* started, not yet joined */
	struct engine_req **noted; /* queued, not yet committed */
	unsigned nnoted;
	unsigned outstanding; /* queued and not yet reaped */
};

static void ring_push(struct psync_ring *q, unsigned depth, struct engine_req *r)
{
	q->slot[(q->head + q->len++) % depth] = r;
}

static struct engine_req *ring_pop(struct psync_ring *q, unsigned depth)
{
	struct engine_req *r = q->slot[q->head];

	q->head = (q->head + 1) % depth;
	q->len--;
	return r;
}

static ssize_t psync_write_dsync(int fd, struct engine_req *r)
{
	struct iovec iov = {.iov_base = r->buf, .iov_len = r->len};
	ssize_t ret = pwritev2(fd, &iov, 1, (off_t)r->offset, RWF_DSYNC);

	if (ret >= 0 || (errno != ENOSYS && errno != EOPNOTSUPP))
		return ret;
	/* a kernel before 4.7: write, then flush what was written */
	ret = pwrite(fd, r->buf, r->len, (off_t)r->offset);
	if (ret > 0 && fdatasync(fd))
		return -1;
	return ret;
}

/* One request, on a helper thread: the system call, then its completion
 * time, then its outcome. */
static void psync_do(struct psync_priv *p, struct engine_req *r)
{
	int fd = p->fds[r->file], e;
	ssize_t ret;

	if (r->op == ENGINE_OP_FSYNC)
		ret = fdatasync(fd);
	else if (r->op == ENGINE_OP_READ)
		ret = pread(fd, r->buf, r->len, (off_t)r->offset);
	else if (r->flags & ENGINE_RF_DSYNC)
		ret = psync_write_dsync(fd, r);
	else
		ret = pwrite(fd, r->buf, r->len, (off_t)r->offset);
	e = errno;
	r->t_done_ns = engine_clock_now(p->clock);
	r->result = ret < 0 ? -e : ret;
}

static void *psync_helper(void *arg)
{
	struct psync_priv *p = arg;
	struct engine_req *r;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		while (!p->sq.len && !p->stop)
			pthread_cond_wait(&p->work, &p->lock);
		if (p->stop)
			break;
		r = ring_pop(&p->sq, p->depth);
		pthread_mutex_unlock(&p->lock);
		psync_do(p, r);
		pthread_mutex_lock(&p->lock);
		ring_push(&p->cq, p->depth, r);
		if (p->reap_waiting)
			pthread_cond_signal(&p->done);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/* Stops and joins the helpers; requests not yet started stay unstarted.
 * Safe twice. */
static void psync_stop(struct psync_priv *p)
{
	if (!p->nthreads)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->lock);
	while (p->nthreads)
		pthread_join(p->threads[--p->nthreads], NULL);
}

static void psync_cleanup(struct engine_ctx *ctx)
{
	struct psync_priv *p = ctx->priv;

	if (!p)
		return;
	psync_stop(p);
	if (p->sync_ok) {
		pthread_cond_destroy(&p->done);
		pthread_cond_destroy(&p->work);
		pthread_mutex_destroy(&p->lock);
	}
	free(p->threads);
	free(p->sq.slot);
	free(p->cq.slot);
	free(p->noted);
	free(p);
	ctx->priv = NULL;
}

static int psync_sync_init(struct psync_priv *p)
{
	pthread_condattr_t ca;
	int ret;

	ret = pthread_condattr_init(&ca);
	if (ret)
		return -ret;
	ret = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	if (ret)
		goto out_attr;
	ret = pthread_mutex_init(&p->lock, NULL);
	if (ret)
		goto out_attr;
	ret = pthread_cond_init(&p->work, NULL);
	if (ret)
		goto out_mutex;
	ret = pthread_cond_init(&p->done, &ca);
	if (ret)
		goto out_work;
	pthread_condattr_destroy(&ca);
	p->sync_ok = true;
	return 0;
out_work:
	pthread_cond_destroy(&p->work);
out_mutex:
	pthread_mutex_destroy(&p->lock);
out_attr:
	pthread_condattr_destroy(&ca);
	return -ret;
}

/* Starts n helpers with every signal blocked and a small stack. */
static int psync_start(struct psync_priv *p, unsigned n)
{
	pthread_attr_t attr;
	sigset_t all, old;
	int ret;

	ret = pthread_attr_init(&attr);
	if (ret)
		return -ret;
	pthread_attr_setstacksize(&attr, PSYNC_STACK_SIZE);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (ret = 0; p->nthreads < n; p->nthreads++) {
		ret = pthread_create(&p->threads[p->nthreads], &attr, psync_helper, p);
		if (ret)
			break;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	return -ret;
}

static int psync_init(struct engine_ctx *ctx, struct strbuf *err)
{
	struct psync_priv *p = calloc(1, sizeof(*p));
	unsigned depth = ctx->depth ? ctx->depth : 1;
	unsigned n = depth < PSYNC_MAX_THREADS ? depth : PSYNC_MAX_THREADS;
	int ret;

	if (!p)
		goto out_nomem;
	ctx->priv = p;
	p->depth = depth;
	p->clock = ctx->clock;
	p->threads = calloc(n, sizeof(*p->threads));
	p->sq.slot = calloc(depth, sizeof(*p->sq.slot));
	p->cq.slot = calloc(depth, sizeof(*p->cq.slot));
	p->noted = calloc(depth, sizeof(*p->noted));
	if (!p->threads || !p->sq.slot || !p->cq.slot || !p->noted)
		goto out_nomem;
	ret = psync_sync_init(p);
	if (ret) {
		strbuf_addf(err, "psync: cannot set up its locks: %s", strerror(-ret));
		goto out_cleanup;
	}
	ret = psync_start(p, n);
	if (ret) {
		strbuf_addf(err, "psync: cannot start helper thread %u of %u: %s", p->nthreads + 1,
			    n, strerror(-ret));
		goto out_cleanup;
	}
	return 0;
out_nomem:
	ret = -ENOMEM;
	strbuf_addstr(err, "psync: out of memory");
out_cleanup:
	psync_cleanup(ctx);
	return ret;
}

static int psync_open(struct engine_ctx *ctx, struct strbuf *err)
{
	struct psync_priv *p = ctx->priv;

	p->fds = ctx->fds;
	snprintf(ctx->notes, sizeof(ctx->notes),
		 "%u helper threads; completion time taken on the helper thread", p->nthreads);
	return 0;
}

static int psync_queue(struct engine_ctx *ctx, struct engine_req *r)
{
	struct psync_priv *p = ctx->priv;

	if (p->outstanding == p->depth)
		return ENGINE_Q_BUSY;
	p->noted[p->nnoted++] = r;
	p->outstanding++;
	return ENGINE_Q_QUEUED;
}

static int psync_commit(struct engine_ctx *ctx)
{
	struct psync_priv *p = ctx->priv;

	if (!p->nnoted)
		return 0;
	pthread_mutex_lock(&p->lock);
	for (unsigned i = 0; i < p->nnoted; i++)
		ring_push(&p->sq, p->depth, p->noted[i]);
	if (p->nnoted == 1)
		pthread_cond_signal(&p->work);
	else
		pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->lock);
	p->nnoted = 0;
	return 0;
}

static int psync_reap(struct engine_ctx *ctx, struct engine_req **out, unsigned max,
		      uint64_t wait_ns)
{
	struct psync_priv *p = ctx->priv;
	struct timespec ts;
	unsigned n = 0;

	if (wait_ns > PSYNC_MAX_WAIT_NS)
		wait_ns = PSYNC_MAX_WAIT_NS;
	pthread_mutex_lock(&p->lock);
	if (!p->cq.len && wait_ns) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		wait_ns += (uint64_t)ts.tv_nsec;
		ts.tv_sec += (time_t)(wait_ns / NSEC_PER_SEC);
		ts.tv_nsec = (long)(wait_ns % NSEC_PER_SEC);
		p->reap_waiting = true;
		while (!p->cq.len)
			if (pthread_cond_timedwait(&p->done, &p->lock, &ts) == ETIMEDOUT)
				break;
		p->reap_waiting = false;
	}
	while (n < max && p->cq.len)
		out[n++] = ring_pop(&p->cq, p->depth);
	pthread_mutex_unlock(&p->lock);
	p->outstanding -= n;
	return (int)n;
}

/* Once close() returns no helper touches a descriptor again. */
static void psync_close(struct engine_ctx *ctx)
{
	struct psync_priv *p = ctx->priv;

	if (p)
		psync_stop(p);
}

const struct engine_ops engine_psync = {
	.name = "psync",
	.flags = ENGINE_F_STAMPS_DONE,
	.init = psync_init,
	.open = psync_open,
	.queue = psync_queue,
	.commit = psync_commit,
	.reap = psync_reap,
	.close = psync_close,
	.cleanup = psync_cleanup,
};
