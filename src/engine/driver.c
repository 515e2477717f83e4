/* SPDX-License-Identifier: MIT */
/*
 * driver.c - the one driver of every engine (driver.h): queue with BUSY kept
 * for later, resubmission of EAGAIN and of a short transfer's remainder, a
 * turn of commit and batched reaps with every error surfaced, completions
 * handed to the client's callback. The only caller of an engine's hooks.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "diskproof/driver.h"

int engine_drv_init(struct engine_drv *d, const struct engine_ops *ops, struct engine_ctx *ctx,
		    unsigned cap, engine_drv_done_fn done, void *arg, struct strbuf *err)
{
	int ret;

	*d = (struct engine_drv){.ops = ops, .ctx = ctx, .done = done, .arg = arg, .cap = cap};
	d->reaped = calloc(cap ? cap : 1, sizeof(*d->reaped));
	d->retry = calloc(cap ? cap : 1, sizeof(*d->retry));
	d->fresh = calloc(cap ? cap : 1, sizeof(*d->fresh));
	d->held = calloc(cap ? cap : 1, sizeof(*d->held));
	if (!d->reaped || !d->retry || !d->fresh || !d->held) {
		strbuf_addf(err, "%s: out of memory", ops->name);
		return -ENOMEM;
	}
	ret = ops->init(ctx, err);
	d->init = ret == 0;
	return ret;
}

int engine_drv_open(struct engine_drv *d, struct strbuf *err)
{
	int ret = d->ops->open(d->ctx, err);

	d->open = ret == 0;
	return ret;
}

void engine_drv_release(struct engine_drv *d)
{
	if (d->open)
		d->ops->close(d->ctx);
	if (d->init)
		d->ops->cleanup(d->ctx);
	d->open = d->init = false;
	free(d->reaped);
	free(d->retry);
	free(d->fresh);
	free(d->held);
	d->reaped = d->retry = d->fresh = d->held = NULL;
	d->nretry = d->nfresh = d->nheld = d->inflight = 0;
}

/* A completion where the rest is to be queued again: EAGAIN, EINTR, or a
 * short transfer that stopped on a sector boundary (O_DIRECT can go on). */
static bool drv_again(const struct engine_req *r)
{
	int64_t res = r->result;

	return res == -EAGAIN || res == -EINTR ||
	       (res > 0 && (uint64_t)res < r->len && res % 512 == 0);
}

/* The policy for one completion: kept to resubmit, or handed back restored
 * (an EAGAIN or EINTR past max_again in a row is handed back as it is). */
static void drv_finish(struct engine_drv *d, struct engine_req *r)
{
	d->inflight--;
	if (drv_again(r)) {
		if (r->result > 0) {
			uint32_t n = (uint32_t)r->result;

			r->offset += n;
			r->buf = (char *)r->buf + n;
			r->len -= n;
			r->done_bytes += n;
			r->again = 0;
			d->retry[d->nretry++] = r;
			return;
		}
		if (!d->max_again || ++r->again <= d->max_again) {
			d->retry[d->nretry++] = r;
			return;
		}
	}
	r->again = 0;
	if (r->done_bytes) {
		uint32_t n = r->done_bytes;

		r->offset -= n;
		r->buf = (char *)r->buf - n;
		r->len += n;
		if (r->result >= 0)
			r->result += n;
		r->done_bytes = 0;
	}
	d->done(d->arg, r);
}

static int drv_queue_now(struct engine_drv *d, struct engine_req *req)
{
	int ret;

	ret = d->ops->queue(d->ctx, req);
	if (ret == ENGINE_Q_BUSY) {
		d->retry[d->nretry++] = req;
		return ret;
	}
	d->inflight++;
	if (ret == ENGINE_Q_QUEUED) {
		d->fresh[d->nfresh++] = req;
		return ret;
	}
	/* handed back at once: treated as a reaped completion */
	if (!(d->ops->flags & ENGINE_STAMPS_DONE_FLAGS))
		req->t_done_ns = engine_clock_now(d->ctx->clock);
	drv_finish(d, req);
	return ENGINE_Q_COMPLETED;
}

int engine_drv_queue(struct engine_drv *d, struct engine_req *req)
{
	req->t_done_ns = 0; /* not completed yet (stamp_ready) */
	if (d->batch > 1 && (d->nheld || d->inflight >= d->batch)) {
		/* enough in the device to bring completions (or some already
		 * wait: they go first): wait for a batch */
		d->held[d->nheld++] = req;
		return ENGINE_Q_QUEUED;
	}
	return drv_queue_now(d, req);
}

/* Hands the held requests to the engine, oldest first, when a batch of them
 * is there, when too few are in the device to be sure of a completion soon,
 * or when all is true (a commit, or batching turned off); the ones the
 * engine cannot take yet are kept to resubmit. */
static void drv_release_held(struct engine_drv *d, bool all)
{
	unsigned i;

	if (!d->nheld || (!all && d->batch > 1 && d->nheld < d->batch && d->inflight >= d->batch))
		return;
	for (i = 0; i < d->nheld; i++)
		if (drv_queue_now(d, d->held[i]) == ENGINE_Q_BUSY)
			break;
	/* BUSY: that one is kept; the rest wait in the kept list too */
	for (unsigned j = i + (i < d->nheld); j < d->nheld; j++)
		d->retry[d->nretry++] = d->held[j];
	d->nheld = 0;
}

int engine_drv_resubmit(struct engine_drv *d)
{
	/* those kept before this call only: one kept again at once waits */
	for (unsigned n = d->nretry; n--;)
		if (engine_drv_queue(d, d->retry[--d->nretry]) == ENGINE_Q_BUSY)
			return ENGINE_Q_BUSY;
	return 0;
}

/*
 * A request's latency runs from just before the commit that hands it to the
 * kernel, not from when it was prepared: preparing it (stamping a 32 KiB
 * page) is the tool's time, not the device's.
 */
static void drv_stamp_submit(struct engine_drv *d)
{
	if (d->nfresh) {
		uint64_t t = engine_clock_now(d->ctx->clock);

		for (unsigned i = 0; i < d->nfresh; i++)
			d->fresh[i]->t_submit_ns = t;
		d->nfresh = 0;
	}
}

static int drv_commit(struct engine_drv *d, struct strbuf *err)
{
	int ret;

	drv_stamp_submit(d);
	ret = d->ops->commit(d->ctx);
	if (ret < 0)
		strbuf_addf(err, "%s engine: submit failed: %s", d->ops->name, strerror(-ret));
	return ret < 0 ? ret : 0;
}

int engine_drv_commit(struct engine_drv *d, struct strbuf *err)
{
	drv_release_held(d, true);
	return drv_commit(d, err);
}

/* One reap of up to cap completions: stamped, then each through the policy
 * (every one is stamped before any is handed back: a client may take time). */
static int drv_reap(struct engine_drv *d, uint64_t wait_ns, struct strbuf *err)
{
	int n = d->ops->reap(d->ctx, d->reaped, d->cap, wait_ns);

	if (n == -EINTR)
		n = 0;
	if (n < 0) {
		strbuf_addf(err, "%s engine: %s failed: %s", d->ops->name,
			    d->submitting ? "submit" : "reap", strerror(-n));
		d->submitting = false;
		return n;
	}
	d->submitting = false;
	d->now = engine_clock_now(d->ctx->clock);
	for (int i = 0; i < n && !(d->ops->flags & ENGINE_STAMPS_DONE_FLAGS); i++)
		if (!d->reaped[i]->t_done_ns) /* else stamped when it was seen ready */
			d->reaped[i]->t_done_ns = d->now;
	for (int i = 0; i < n; i++)
		drv_finish(d, d->reaped[i]);
	return n;
}

int engine_drv_turn(struct engine_drv *d, unsigned min, uint64_t wait_ns, struct strbuf *err)
{
	int n, got = 0;
	int ret;

	(void)engine_drv_resubmit(d); /* BUSY: the rest waits for room */
	drv_release_held(d, d->batch <= 1);
	if (d->ops->flags & ENGINE_F_REAP_SUBMITS) {
		/* the first reap submits in the system call it waits in */
		d->submitting = d->nfresh > 0;
		drv_stamp_submit(d);
	} else {
		ret = drv_commit(d, err);
		if (ret)
			return ret;
	}
	do {
		n = drv_reap(d, min ? wait_ns : 0, err);
		if (n < 0)
			return n;
		got += n;
	} while (n > 0 && (unsigned)got < min && d->inflight);
	return got;
}

void engine_drv_detach(struct engine_drv *d)
{
	if (d->init && d->ops->detach)
		d->ops->detach(d->ctx);
}

unsigned engine_drv_stamp_ready(struct engine_drv *d, uint64_t now_ns)
{
	return d->ops->stamp_ready ? d->ops->stamp_ready(d->ctx, now_ns) : 0;
}

int engine_drv_probe(const struct engine_ops *ops, struct strbuf *desc, struct strbuf *err)
{
	return ops->probe ? ops->probe(desc, err) : 0;
}
