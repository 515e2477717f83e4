/* SPDX-License-Identifier: MIT */
/*
 * test_driver.c - the one engine driver (driver.h) against a scripted test
 * engine registered here, in the style of the sim engine: a virtual clock, a
 * device of bytes that reads and writes really move, a depth past which
 * queue() is BUSY, and a script of what the next completions, commits and
 * reaps return (-EAGAIN, a short transfer, -EIO, a failed commit or reap).
 * It checks the policy every client gets: BUSY kept and queued again, EAGAIN
 * and a short transfer's remainder resubmitted (the data landing where it
 * belongs) and reported once as the whole request, EAGAIN handed back after
 * max_again in a row (never, with 0), every other error handed
 * to the callback or returned with "ENGINE engine: ...: WHY", a persistent
 * error never spinning, a turn reaping until its minimum, and the submit and
 * completion times it stamps.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "diskproof/driver.h"

#define DEV_SIZE (64u * 1024u)
#define MAX_REQS 16u
#define SCRIPT_LEN 16u

/* What the test engine does next: one entry per completion (0 = as asked). */
struct te_script {
	int64_t res[SCRIPT_LEN]; /* > 0: a short transfer of that many bytes */
	unsigned nres, next_res;
	int commit_ret;	     /* returned by every commit while set */
	int reap_ret;	     /* returned by every reap while set */
	bool sync;	     /* queue() completes at once */
	unsigned reap_batch; /* most completions one reap returns (0: max) */
};

struct te_priv {
	unsigned char dev[DEV_SIZE];
	struct engine_req *queued[MAX_REQS], *submitted[MAX_REQS];
	unsigned nqueued, nsubmitted;
	unsigned queue_calls, commit_calls, reap_calls;
	uint64_t last_wait;
	struct te_script s;
};

static struct te_priv *te_the; /* the one instance, for the test to script */

static int te_init(struct engine_ctx *ctx, struct strbuf *err)
{
	(void)err;
	ctx->priv = te_the;
	return 0;
}

static int te_open(struct engine_ctx *ctx, struct strbuf *err)
{
	(void)ctx;
	(void)err;
	return 0;
}

/* Moves the bytes of r (all of them, or the script's short count) and sets
 * its result. */
static void te_do(struct te_priv *p, struct engine_req *r)
{
	int64_t res = p->s.next_res < p->s.nres ? p->s.res[p->s.next_res++] : 0;
	uint32_t n = r->len;

	if (res < 0) {
		r->result = res;
		return;
	}
	if (res > 0 && (uint64_t)res < n)
		n = (uint32_t)res;
	if (r->op == ENGINE_OP_WRITE)
		memcpy(p->dev + r->offset, r->buf, n);
	else
		memcpy(r->buf, p->dev + r->offset, n);
	r->result = n;
}

static int te_queue(struct engine_ctx *ctx, struct engine_req *r)
{
	struct te_priv *p = ctx->priv;

	p->queue_calls++;
	assert_true(r->offset + r->len <= DEV_SIZE);
	if (p->s.sync) {
		te_do(p, r);
		return ENGINE_Q_COMPLETED;
	}
	if (p->nqueued + p->nsubmitted == ctx->depth)
		return ENGINE_Q_BUSY;
	p->queued[p->nqueued++] = r;
	return ENGINE_Q_QUEUED;
}

static int te_commit(struct engine_ctx *ctx)
{
	struct te_priv *p = ctx->priv;

	p->commit_calls++;
	if (p->s.commit_ret)
		return p->s.commit_ret;
	for (unsigned i = 0; i < p->nqueued; i++)
		p->submitted[p->nsubmitted++] = p->queued[i];
	p->nqueued = 0;
	return 0;
}

static int te_reap(struct engine_ctx *ctx, struct engine_req **out, unsigned max, uint64_t wait_ns)
{
	struct te_priv *p = ctx->priv;
	unsigned n = 0;

	p->reap_calls++;
	p->last_wait = wait_ns;
	if (p->s.reap_ret)
		return p->s.reap_ret;
	if (p->s.reap_batch && max > p->s.reap_batch)
		max = p->s.reap_batch;
	ctx->clock->virtual_ns += 1000; /* every reap takes a microsecond */
	while (n < max && n < p->nsubmitted) {
		te_do(p, p->submitted[n]);
		out[n] = p->submitted[n];
		n++;
	}
	memmove(p->submitted, p->submitted + n, (p->nsubmitted - n) * sizeof(*p->submitted));
	p->nsubmitted -= n;
	return (int)n;
}

static void te_close(struct engine_ctx *ctx)
{
	(void)ctx;
}

static void te_cleanup(struct engine_ctx *ctx)
{
	ctx->priv = NULL;
}

static const struct engine_ops engine_test = {
	.name = "test",
	.init = te_init,
	.open = te_open,
	.queue = te_queue,
	.commit = te_commit,
	.reap = te_reap,
	.close = te_close,
	.cleanup = te_cleanup,
};

/* The same engine where reap submits (ENGINE_F_REAP_SUBMITS, as io_uring's
 * one io_uring_enter a turn): what is queued is submitted by the reap. */
static unsigned te_detach_calls;

static int te_reap_submits(struct engine_ctx *ctx, struct engine_req **out, unsigned max,
			   uint64_t wait_ns)
{
	struct te_priv *p = ctx->priv;

	if (!p->s.reap_ret) {
		for (unsigned i = 0; i < p->nqueued; i++)
			p->submitted[p->nsubmitted++] = p->queued[i];
		p->nqueued = 0;
	}
	return te_reap(ctx, out, max, wait_ns);
}

static void te_detach(struct engine_ctx *ctx)
{
	(void)ctx;
	te_detach_calls++;
}

static const struct engine_ops engine_test_reap_submits = {
	.name = "test",
	.flags = ENGINE_F_REAP_SUBMITS,
	.init = te_init,
	.open = te_open,
	.queue = te_queue,
	.commit = te_commit,
	.reap = te_reap_submits,
	.close = te_close,
	.detach = te_detach,
	.cleanup = te_cleanup,
};

/* A client: records what the callback got. */
struct client {
	struct engine_drv drv;
	struct engine_ctx ctx;
	struct engine_clock clock;
	struct engine_req reqs[MAX_REQS];
	unsigned char bufs[MAX_REQS][8192];
	struct engine_req *done[4 * MAX_REQS];
	int64_t done_res[4 * MAX_REQS];
	unsigned ndone;
};

static void client_done(void *arg, struct engine_req *req)
{
	struct client *c = arg;

	assert_true(c->ndone < 4 * MAX_REQS);
	assert_int_equal(req->done_bytes, 0);
	c->done_res[c->ndone] = req->result;
	c->done[c->ndone++] = req;
}

static int setup(void **state)
{
	struct client *c = calloc(1, sizeof(*c));
	struct strbuf err = STRBUF_INIT;

	te_the = calloc(1, sizeof(*te_the));
	assert_non_null(c);
	assert_non_null(te_the);
	engine_clock_init_virtual(&c->clock);
	c->clock.virtual_ns = 5000;
	c->ctx = (struct engine_ctx){.depth = 2, .clock = &c->clock};
	assert_int_equal(
		engine_drv_init(&c->drv, &engine_test, &c->ctx, MAX_REQS, client_done, c, &err), 0);
	assert_int_equal(engine_drv_open(&c->drv, &err), 0);
	strbuf_release(&err);
	*state = c;
	return 0;
}

static int teardown(void **state)
{
	struct client *c = *state;

	engine_drv_release(&c->drv);
	engine_drv_release(&c->drv); /* twice: safe */
	free(c);
	free(te_the);
	te_the = NULL;
	return 0;
}

/* Request i: a write (filled with i + 1) or a read of len bytes at off. */
static struct engine_req *req_at(struct client *c, unsigned i, uint8_t op, uint64_t off,
				 uint32_t len)
{
	struct engine_req *r = &c->reqs[i];

	if (op == ENGINE_OP_WRITE)
		memset(c->bufs[i], (int)(i + 1), len);
	*r = (struct engine_req){
		.op = op, .offset = off, .len = len, .buf_index = -1, .buf = c->bufs[i], .tag = i};
	return r;
}

static void assert_dev(const unsigned char *dev, uint64_t off, uint32_t len, unsigned char v)
{
	for (uint32_t i = 0; i < len; i++)
		if (dev[off + i] != v)
			fail_msg("device byte %llu is %u, not %u", (unsigned long long)(off + i),
				 dev[off + i], v);
}

static void test_busy_kept_and_resubmitted(void **state)
{
	struct client *c = *state;
	struct strbuf err = STRBUF_INIT;

	assert_int_equal(engine_drv_queue(&c->drv, req_at(c, 0, ENGINE_OP_WRITE, 0, 4096)),
			 ENGINE_Q_QUEUED);
	assert_int_equal(engine_drv_queue(&c->drv, req_at(c, 1, ENGINE_OP_WRITE, 4096, 4096)),
			 ENGINE_Q_QUEUED);
	assert_int_equal(engine_drv_queue(&c->drv, req_at(c, 2, ENGINE_OP_WRITE, 8192, 4096)),
			 ENGINE_Q_BUSY);
	assert_int_equal(engine_drv_kept(&c->drv), 1);
	assert_int_equal(engine_drv_inflight(&c->drv), 2);
	/* still full at the turn's start: the kept one waits */
	assert_int_equal(engine_drv_turn(&c->drv, 2, 1000, &err), 2);
	assert_int_equal(c->ndone, 2);
	assert_int_equal(engine_drv_kept(&c->drv), 1);
	assert_int_equal(engine_drv_turn(&c->drv, 1, 1000, &err), 1);
	assert_int_equal(c->ndone, 3);
	assert_ptr_equal(c->done[2], &c->reqs[2]);
	assert_int_equal(c->done_res[2], 4096);
	assert_int_equal(engine_drv_kept(&c->drv), 0);
	assert_int_equal(engine_drv_inflight(&c->drv), 0);
	for (unsigned i = 0; i < 3; i++)
		assert_dev(te_the->dev, 4096 * i, 4096, (unsigned char)(i + 1));
	assert_int_equal(err.len, 0);
	strbuf_release(&err);
}

static void test_eagain_resubmitted(void **state)
{
	struct client *c = *state;
	struct strbuf err = STRBUF_INIT;

	te_the->s = (struct te_script){.res = {-EAGAIN, -EINTR}, .nres = 2};
	assert_int_equal(engine_drv_queue(&c->drv, req_at(c, 0, ENGINE_OP_WRITE, 0, 4096)),
			 ENGINE_Q_QUEUED);
	assert_int_equal(engine_drv_turn(&c->drv, 1, 1000, &err), 1);
	assert_int_equal(c->ndone, 0); /* not reported: kept */
	assert_int_equal(engine_drv_kept(&c->drv), 1);
	assert_int_equal(engine_drv_turn(&c->drv, 1, 1000, &err), 1);
	assert_int_equal(c->ndone, 0); /* -EINTR: again */
	assert_int_equal(engine_drv_turn(&c->drv, 1, 1000, &err), 1);
	assert_int_equal(c->ndone, 1);
	assert_int_equal(c->done_res[0], 4096);
	assert_int_equal(te_the->queue_calls, 3);
	assert_dev(te_the->dev, 0, 4096, 1);
	strbuf_release(&err);
}

/* max_again: a request that keeps coming back EAGAIN or EINTR is handed back
 * with that error once it has done so max_again times in a row; a short
 * transfer between (bytes moved) starts the count again; 0 keeps it for ever */
static void test_again_capped(void **state)
{
	struct client *c = *state;
	struct strbuf err = STRBUF_INIT;
	struct engine_req *r;

	c->drv.max_again = 3;
	te_the->s = (struct te_script){.res = {-EAGAIN, -EINTR, -EAGAIN, -EAGAIN}, .nres = 4};
	r = req_at(c, 0, ENGINE_OP_WRITE, 0, 4096);
	assert_int_equal(engine_drv_queue(&c->drv, r), ENGINE_Q_QUEUED);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(engine_drv_turn(&c->drv, 1, 1000, &err), 1);
		assert_int_equal(c->ndone, 0);
	}
	assert_int_equal(engine_drv_turn(&c->drv, 1, 1000, &err), 1);
	assert_int_equal(c->ndone, 1);
	assert_int_equal(c->done_res[0], -EAGAIN);
	assert_int_equal(r->again, 0);
	assert_int_equal(engine_drv_kept(&c->drv), 0);
	assert_int_equal(engine_drv_inflight(&c->drv), 0);

	/* three in a row, 512 bytes moved, three more: still not given up */
	c->ndone = 0;
	te_the->s = (struct te_script){
		.res = {-EAGAIN, -EAGAIN, -EAGAIN, 512, -EAGAIN, -EAGAIN, -EAGAIN}, .nres = 7};
	r = req_at(c, 1, ENGINE_OP_WRITE, 8192, 8192);
	assert_int_equal(engine_drv_queue(&c->drv, r), ENGINE_Q_QUEUED);
	for (int i = 0; i < 8; i++)
		assert_int_equal(engine_drv_turn(&c->drv, 1, 1000, &err), 1);
	assert_int_equal(c->ndone, 1);
	assert_int_equal(c->done_res[0], 8192);
	assert_dev(te_the->dev, 8192, 8192, 2);

	/* 0: for ever (the run's workers) */
	c->ndone = 0;
	c->drv.max_again = 0;
	te_the->s = (struct te_script){.nres = SCRIPT_LEN};
	for (unsigned i = 0; i < SCRIPT_LEN; i++)
		te_the->s.res[i] = -EAGAIN;
	r = req_at(c, 2, ENGINE_OP_READ, 0, 4096);
	assert_int_equal(engine_drv_queue(&c->drv, r), ENGINE_Q_QUEUED);
	for (unsigned i = 0; i < SCRIPT_LEN; i++) {
		assert_int_equal(engine_drv_turn(&c->drv, 1, 1000, &err), 1);
		assert_int_equal(c->ndone, 0);
	}
	assert_int_equal(engine_drv_turn(&c->drv, 1, 1000, &err), 1);
	assert_int_equal(c->ndone, 1);
	assert_int_equal(c->done_res[0], 4096);
	assert_int_equal(err.len, 0);
	strbuf_release(&err);
}

static void test_short_transfer_remainder(void **state)
{
	struct client *c = *state;
	struct strbuf err = STRBUF_INIT;
	struct engine_req *r;

	/* 8 KiB written as 512 B, then 3,584 B, then the rest */
	te_the->s = (struct te_script){.res = {512, 3584}, .nres = 2};
	r = req_at(c, 0, ENGINE_OP_WRITE, 16384, 8192);
	assert_int_equal(engine_drv_queue(&c->drv, r), ENGINE_Q_QUEUED);
	for (int i = 0; i < 3; i++)
		assert_int_equal(engine_drv_turn(&c->drv, 1, 1000, &err), 1);
	assert_int_equal(c->ndone, 1);
	assert_int_equal(c->done_res[0], 8192);
	/* handed back as queued */
	assert_int_equal(r->offset, 16384);
	assert_int_equal(r->len, 8192);
	assert_ptr_equal(r->buf, c->bufs[0]);
	assert_dev(te_the->dev, 16384, 8192, 1);
	assert_int_equal(te_the->queue_calls, 3);

	/* read back the same way: every byte where it belongs */
	te_the->s = (struct te_script){.res = {4096}, .nres = 1};
	r = req_at(c, 1, ENGINE_OP_READ, 16384, 8192);
	memset(c->bufs[1], 0, 8192);
	assert_int_equal(engine_drv_queue(&c->drv, r), ENGINE_Q_QUEUED);
	assert_int_equal(engine_drv_turn(&c->drv, 1, 1000, &err), 1);
	assert_int_equal(engine_drv_turn(&c->drv, 1, 1000, &err), 1);
	assert_int_equal(c->ndone, 2);
	assert_int_equal(c->done_res[1], 8192);
	assert_dev(c->bufs[1], 0, 8192, 1);
	strbuf_release(&err);
}

static void test_short_then_error(void **state)
{
	struct client *c = *state;
	struct strbuf err = STRBUF_INIT;
	struct engine_req *r;

	/* not on a sector boundary: reported as it is, nothing resubmitted */
	te_the->s = (struct te_script){.res = {100}, .nres = 1};
	assert_int_equal(engine_drv_queue(&c->drv, req_at(c, 0, ENGINE_OP_WRITE, 0, 4096)),
			 ENGINE_Q_QUEUED);
	assert_int_equal(engine_drv_turn(&c->drv, 1, 1000, &err), 1);
	assert_int_equal(c->ndone, 1);
	assert_int_equal(c->done_res[0], 100);
	/* a remainder that fails: the error, the request restored */
	te_the->s = (struct te_script){.res = {1024, -EIO}, .nres = 2};
	r = req_at(c, 1, ENGINE_OP_WRITE, 4096, 4096);
	assert_int_equal(engine_drv_queue(&c->drv, r), ENGINE_Q_QUEUED);
	assert_int_equal(engine_drv_turn(&c->drv, 1, 1000, &err), 1);
	assert_int_equal(engine_drv_turn(&c->drv, 1, 1000, &err), 1);
	assert_int_equal(c->ndone, 2);
	assert_int_equal(c->done_res[1], -EIO);
	assert_int_equal(r->offset, 4096);
	assert_int_equal(r->len, 4096);
	assert_ptr_equal(r->buf, c->bufs[1]);
	strbuf_release(&err);
}

static void test_persistent_errors(void **state)
{
	struct client *c = *state;
	struct strbuf err = STRBUF_INIT;

	/* every I/O fails: each reported once with its error */
	te_the->s = (struct te_script){.res = {-EIO, -EIO, -EIO}, .nres = 3};
	for (unsigned i = 0; i < 2; i++)
		assert_int_equal(
			engine_drv_queue(&c->drv, req_at(c, i, ENGINE_OP_READ, 4096 * i, 4096)),
			ENGINE_Q_QUEUED);
	assert_int_equal(engine_drv_turn(&c->drv, 2, 1000, &err), 2);
	assert_int_equal(c->ndone, 2);
	assert_int_equal(c->done_res[0], -EIO);
	assert_int_equal(c->done_res[1], -EIO);
	assert_int_equal(engine_drv_kept(&c->drv), 0);

	/* the engine refuses every commit: surfaced each turn, never hidden */
	te_the->s = (struct te_script){.commit_ret = -EIO};
	assert_int_equal(engine_drv_queue(&c->drv, req_at(c, 2, ENGINE_OP_READ, 0, 4096)),
			 ENGINE_Q_QUEUED);
	for (int i = 0; i < 3; i++) {
		strbuf_reset(&err);
		assert_int_equal(engine_drv_turn(&c->drv, 1, 1000, &err), -EIO);
		assert_string_equal(err.buf, "test engine: submit failed: Input/output error");
	}
	assert_int_equal(te_the->reap_calls, 1); /* none after a failed commit */

	/* the engine's reap fails: surfaced with its reason */
	te_the->s = (struct te_script){.reap_ret = -ENXIO};
	strbuf_reset(&err);
	assert_int_equal(engine_drv_turn(&c->drv, 1, 1000, &err), -ENXIO);
	assert_string_equal(err.buf, "test engine: reap failed: No such device or address");
	assert_int_equal(c->ndone, 2);
	assert_int_equal(engine_drv_inflight(&c->drv), 1);
	/* the engine comes back: the read completes */
	te_the->s = (struct te_script){0};
	strbuf_reset(&err);
	assert_int_equal(engine_drv_turn(&c->drv, 1, 1000, &err), 1);
	assert_int_equal(c->ndone, 3);
	assert_int_equal(c->done_res[2], 4096);
	strbuf_release(&err);
}

static void test_sync_engine(void **state)
{
	struct client *c = *state;
	struct strbuf err = STRBUF_INIT;

	/* completed inside queue: the callback has run, the time is stamped */
	te_the->s = (struct te_script){.sync = true};
	c->clock.virtual_ns = 7000;
	assert_int_equal(engine_drv_queue(&c->drv, req_at(c, 0, ENGINE_OP_WRITE, 0, 4096)),
			 ENGINE_Q_COMPLETED);
	assert_int_equal(c->ndone, 1);
	assert_int_equal(c->reqs[0].t_done_ns, 7000);
	assert_int_equal(engine_drv_inflight(&c->drv), 0);
	/* an engine that says EAGAIN for ever: kept, and each resubmit tries
	 * once, never spinning inside one call */
	te_the->s = (struct te_script){.sync = true, .nres = SCRIPT_LEN};
	for (unsigned i = 0; i < SCRIPT_LEN; i++)
		te_the->s.res[i] = -EAGAIN;
	assert_int_equal(engine_drv_queue(&c->drv, req_at(c, 1, ENGINE_OP_WRITE, 0, 4096)),
			 ENGINE_Q_COMPLETED);
	assert_int_equal(c->ndone, 1);
	assert_int_equal(engine_drv_kept(&c->drv), 1);
	te_the->queue_calls = 0;
	assert_int_equal(engine_drv_resubmit(&c->drv), 0);
	assert_int_equal(te_the->queue_calls, 1);
	assert_int_equal(engine_drv_kept(&c->drv), 1);
	strbuf_release(&err);
}

static void test_turn_minimum_and_times(void **state)
{
	struct client *c = *state;
	struct strbuf err = STRBUF_INIT;

	c->ctx.depth = 4;
	te_the->s = (struct te_script){.reap_batch = 1};
	c->clock.virtual_ns = 10000;
	for (unsigned i = 0; i < 3; i++)
		assert_int_equal(
			engine_drv_queue(&c->drv, req_at(c, i, ENGINE_OP_READ, 4096 * i, 4096)),
			ENGINE_Q_QUEUED);
	c->clock.virtual_ns = 20000; /* preparing took the tool's time */
	/* min 0: one batch, no waiting */
	assert_int_equal(engine_drv_turn(&c->drv, 0, 5000, &err), 1);
	assert_int_equal(te_the->last_wait, 0);
	/* the submit time is the commit's, not the queue's */
	for (unsigned i = 0; i < 3; i++)
		assert_int_equal(c->reqs[i].t_submit_ns, 20000);
	assert_int_equal(c->reqs[0].t_done_ns, 21000);
	/* min 2: batches of one until two have come */
	te_the->reap_calls = 0;
	assert_int_equal(engine_drv_turn(&c->drv, 2, 5000, &err), 2);
	assert_int_equal(te_the->reap_calls, 2);
	assert_int_equal(te_the->last_wait, 5000);
	assert_int_equal(c->ndone, 3);
	assert_int_equal(c->reqs[2].t_done_ns, 23000);
	assert_int_equal(engine_drv_now(&c->drv), 23000);
	/* nothing in flight: one wait, then the turn ends */
	te_the->reap_calls = 0;
	assert_int_equal(engine_drv_turn(&c->drv, 2, 5000, &err), 0);
	assert_int_equal(te_the->reap_calls, 1);
	strbuf_release(&err);
}

/* ENGINE_F_REAP_SUBMITS: the turn hands the submission to the reap (one
 * system call), still stamping the submit time before it; an explicit commit
 * still commits; a failing reap that submitted is said as a submit's. */
static void test_reap_submits(void **state)
{
	struct client *c = *state;
	struct strbuf err = STRBUF_INIT;

	engine_drv_release(&c->drv);
	assert_int_equal(engine_drv_init(&c->drv, &engine_test_reap_submits, &c->ctx, MAX_REQS,
					 client_done, c, &err),
			 0);
	assert_int_equal(engine_drv_open(&c->drv, &err), 0);
	c->ctx.depth = 4;
	c->clock.virtual_ns = 10000;
	for (unsigned i = 0; i < 2; i++)
		assert_int_equal(
			engine_drv_queue(&c->drv, req_at(c, i, ENGINE_OP_READ, 4096 * i, 4096)),
			ENGINE_Q_QUEUED);
	c->clock.virtual_ns = 20000;
	assert_int_equal(engine_drv_turn(&c->drv, 2, 5000, &err), 2);
	assert_int_equal(te_the->commit_calls, 0); /* the reap submitted */
	assert_int_equal(te_the->reap_calls, 1);
	assert_int_equal(c->reqs[0].t_submit_ns, 20000);
	assert_int_equal(c->reqs[1].t_done_ns, 21000);
	/* an explicit commit (before a client's own work) still submits */
	assert_int_equal(engine_drv_queue(&c->drv, req_at(c, 2, ENGINE_OP_READ, 0, 4096)),
			 ENGINE_Q_QUEUED);
	assert_int_equal(engine_drv_commit(&c->drv, &err), 0);
	assert_int_equal(te_the->commit_calls, 1);
	assert_int_equal(engine_drv_turn(&c->drv, 1, 5000, &err), 1);
	/* the reap that would have submitted fails: a submit error */
	te_the->s = (struct te_script){.reap_ret = -ENOSYS};
	assert_int_equal(engine_drv_queue(&c->drv, req_at(c, 3, ENGINE_OP_READ, 0, 4096)),
			 ENGINE_Q_QUEUED);
	assert_int_equal(engine_drv_turn(&c->drv, 1, 5000, &err), -ENOSYS);
	assert_string_equal(err.buf, "test engine: submit failed: Function not implemented");
	/* ... and with nothing new to submit, a reap error */
	strbuf_reset(&err);
	assert_int_equal(engine_drv_turn(&c->drv, 1, 5000, &err), -ENOSYS);
	assert_string_equal(err.buf, "test engine: reap failed: Function not implemented");
	te_the->s = (struct te_script){0};
	assert_int_equal(engine_drv_turn(&c->drv, 1, 5000, &err), 1);
	te_detach_calls = 0;
	engine_drv_detach(&c->drv);
	assert_int_equal(te_detach_calls, 1);
	strbuf_release(&err);
}

/* Submit batching (batch = 4, the reap-submits engine as io_uring): with
 * four in the engine, fresh requests are held back (counted in flight,
 * never handed over) until four of them are there, then go in one turn,
 * stamped then; when fewer than four are in the engine a turn hands over
 * what is held; a commit, and batch = 0 (a stopping run), hand over all. */
static void test_submit_batch(void **state)
{
	struct client *c = *state;
	struct strbuf err = STRBUF_INIT;

	engine_drv_release(&c->drv);
	assert_int_equal(engine_drv_init(&c->drv, &engine_test_reap_submits, &c->ctx, MAX_REQS,
					 client_done, c, &err),
			 0);
	assert_int_equal(engine_drv_open(&c->drv, &err), 0);
	c->ctx.depth = MAX_REQS;
	c->drv.batch = 4;
	c->clock.virtual_ns = 10000;
	for (unsigned i = 0; i < 7; i++)
		assert_int_equal(
			engine_drv_queue(&c->drv, req_at(c, i, ENGINE_OP_READ, 4096 * i, 4096)),
			ENGINE_Q_QUEUED);
	/* the first four went to the engine; three are held */
	assert_int_equal(te_the->queue_calls, 4);
	assert_int_equal(c->drv.nheld, 3);
	assert_int_equal(engine_drv_inflight(&c->drv), 7);
	te_the->s = (struct te_script){.reap_batch = 1};
	c->clock.virtual_ns = 20000;
	/* a turn reaps one: three left in the engine, below the batch, so
	 * the three held go in the next turn, stamped then */
	assert_int_equal(engine_drv_turn(&c->drv, 1, 5000, &err), 1);
	assert_int_equal(te_the->queue_calls, 4);
	assert_int_equal(c->drv.nheld, 3);
	c->clock.virtual_ns = 30000;
	assert_int_equal(engine_drv_turn(&c->drv, 1, 5000, &err), 1);
	assert_int_equal(te_the->queue_calls, 7);
	assert_int_equal(c->drv.nheld, 0);
	for (unsigned i = 4; i < 7; i++)
		assert_int_equal(c->reqs[i].t_submit_ns, 30000);
	/* five in the engine: one, two, three more are held, the fourth makes
	 * a batch and all four go at the next turn */
	for (unsigned i = 7; i < 10; i++) {
		assert_int_equal(
			engine_drv_queue(&c->drv, req_at(c, i, ENGINE_OP_READ, 4096 * i, 4096)),
			ENGINE_Q_QUEUED);
		te_the->s = (struct te_script){.reap_batch = 1};
		assert_int_equal(engine_drv_turn(&c->drv, 0, 0, &err), 1);
	}
	/* five reaped in all from seven: two in the engine, three held: below
	 * the batch in the engine, they went */
	assert_int_equal(c->drv.nheld, 0);
	/* a commit hands over what is held at once */
	for (unsigned i = 10; i < 16; i++)
		(void)engine_drv_queue(&c->drv, req_at(c, i, ENGINE_OP_READ, 4096 * (i % 8), 4096));
	assert_true(c->drv.nheld > 0);
	assert_int_equal(engine_drv_commit(&c->drv, &err), 0);
	assert_int_equal(c->drv.nheld, 0);
	/* batch = 0: the next turn hands over everything held */
	while (engine_drv_inflight(&c->drv))
		assert_true(engine_drv_turn(&c->drv, 1, 5000, &err) > 0);
	for (unsigned i = 0; i < 6; i++)
		(void)engine_drv_queue(&c->drv, req_at(c, i, ENGINE_OP_READ, 4096 * i, 4096));
	assert_int_equal(c->drv.nheld, 2);
	c->drv.batch = 0;
	te_the->s = (struct te_script){.reap_batch = 1};
	assert_int_equal(engine_drv_turn(&c->drv, 1, 5000, &err), 1);
	assert_int_equal(c->drv.nheld, 0);
	while (engine_drv_inflight(&c->drv))
		assert_true(engine_drv_turn(&c->drv, 1, 5000, &err) > 0);
	assert_int_equal(c->ndone, 22);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_busy_kept_and_resubmitted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_eagain_resubmitted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_again_capped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_short_transfer_remainder, setup, teardown),
		cmocka_unit_test_setup_teardown(test_short_then_error, setup, teardown),
		cmocka_unit_test_setup_teardown(test_persistent_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sync_engine, setup, teardown),
		cmocka_unit_test_setup_teardown(test_turn_minimum_and_times, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reap_submits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_submit_batch, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
