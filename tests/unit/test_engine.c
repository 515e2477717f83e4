/* SPDX-License-Identifier: MIT */
/*
 * test_engine.c - the engine contract: every registered engine passes the
 * ops validator, in the registry's fixed order; the sim engine's latency,
 * saturation, error and dropped-write models and its virtual clock; and one
 * conformance test run on each real engine (io_uring, libaio, psync) against a
 * real file, O_DIRECT where the file system allows it: a timed wait with
 * nothing in flight, writes (one write-through) read back and verified, BUSY
 * at depth (libaio and psync: until reaped), completion times between submit
 * and reap, reap bounded by max, short reads at end of file, errors (a
 * misaligned O_DIRECT read, a bad descriptor) in req->result alone, and more
 * requests in flight than psync has helper threads. The io_uring engine's
 * registered-buffer notes, and psync's completion time taken on its helper
 * thread. A real engine's tests skip where it is not built in or the kernel
 * lacks it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "diskproof/engine.h"
#include "diskproof/page.h"
#include "diskproof/profile.h"
#include "diskproof/stats.h"

static void test_registry(void **state)
{
	size_t n;
	const struct engine_ops *const *r = engine_registry(&n);
	struct strbuf err = STRBUF_INIT;

	assert_true(n >= 2);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(engine_ops_validate(r[i], &err), 0);
		assert_ptr_equal(engine_find(r[i]->name), r[i]);
	}
	assert_null(engine_find("nosuch"));
	assert_ptr_equal(engine_find("sim"), &engine_sim);
	/* only sim is simulated: the commands that touch no file ask this */
	assert_true(engine_simulated("sim"));
	assert_false(engine_simulated("io_uring"));
	assert_false(engine_simulated("libaio"));
	assert_false(engine_simulated("psync"));
	assert_false(engine_simulated("nosuch"));
	/* a fixed order: the real engines, best first, then sim */
	assert_int_equal(n, 4);
	assert_ptr_equal(r[0], &engine_io_uring);
	assert_ptr_equal(r[1], &engine_libaio);
	assert_ptr_equal(r[2], &engine_psync);
	assert_ptr_equal(r[3], &engine_sim);
	/* only the engines that move data on their own thread stamp completions */
	assert_true(engine_psync.flags & ENGINE_F_STAMPS_DONE);
	assert_false(engine_libaio.flags & ENGINE_STAMPS_DONE_FLAGS);
	assert_false(engine_io_uring.flags & ENGINE_STAMPS_DONE_FLAGS);
#ifdef DISKPROOF_HAVE_LIBAIO
	assert_null(engine_libaio.unavailable);
#else
	assert_string_equal(engine_libaio.unavailable, "built without libaio (install libaio-dev)");
#endif
	struct engine_ops broken = {.name = "x", .init = engine_sim.init};
	assert_int_equal(engine_ops_validate(&broken, &err), -EINVAL);
	strbuf_release(&err);
}

struct simbox {
	struct engine_sim_model sim;
	struct engine_clock clock;
	struct engine_file file;
	struct engine_ctx ctx;
	struct engine_req req[64];
	struct engine_req *out[64];
	char bufs[64][4096];
};

static struct simbox *sim_setup(unsigned depth)
{
	struct simbox *b = calloc(1, sizeof(*b));

	b->sim = (struct engine_sim_model){.read_latency_ns = 2000000,
					   .write_latency_ns = 3000000,
					   .log_write_latency_ns = 1000000,
					   .jitter_pct = 0,
					   .seed = 1};
	engine_clock_init_virtual(&b->clock);
	b->file = (struct engine_file){.size = 64 * 4096, .device = 0, .block = 4096, .tag = 7};
	b->ctx = (struct engine_ctx){.depth = depth,
				     .files = &b->file,
				     .nr_files = 1,
				     .nr_devices = 1,
				     .clock = &b->clock,
				     .sim = &b->sim};
	return b;
}

static void sim_start(struct simbox *b)
{
	struct strbuf err = STRBUF_INIT;

	assert_int_equal(engine_sim.init(&b->ctx, &err), 0);
	assert_int_equal(engine_sim.open(&b->ctx, &err), 0);
	strbuf_release(&err);
}

static void sim_stop(struct simbox *b)
{
	engine_sim.close(&b->ctx);
	engine_sim.cleanup(&b->ctx);
	engine_sim.cleanup(&b->ctx); /* safe twice */
	free(b);
}

static struct engine_req *prep(struct simbox *b, unsigned i, int op, unsigned cls, uint64_t page)
{
	struct engine_req *r = &b->req[i];

	memset(r, 0, sizeof(*r));
	r->op = (uint8_t)op;
	r->cls = (uint8_t)cls;
	r->offset = page * 4096;
	r->len = 4096;
	r->buf = b->bufs[i];
	r->buf_index = -1;
	return r;
}

static void test_sim_latency_and_clock(void **state)
{
	struct simbox *b = sim_setup(4);

	sim_start(b);
	assert_int_equal(engine_sim.queue(&b->ctx, prep(b, 0, ENGINE_OP_READ, IO_DB_READ, 1)),
			 ENGINE_Q_QUEUED);
	assert_int_equal(engine_sim.queue(&b->ctx, prep(b, 1, ENGINE_OP_WRITE, IO_LOG_WRITE, 2)),
			 ENGINE_Q_QUEUED);
	/* earliest first: the 1 ms log write, then the 2 ms read */
	assert_int_equal(engine_sim.reap(&b->ctx, b->out, 64, 10000000), 1);
	assert_ptr_equal(b->out[0], &b->req[1]);
	assert_int_equal(b->clock.virtual_ns, 1000000);
	assert_int_equal(engine_sim.reap(&b->ctx, b->out, 64, 10000000), 1);
	assert_ptr_equal(b->out[0], &b->req[0]);
	assert_int_equal(b->clock.virtual_ns, 2000000);
	assert_int_equal(b->req[0].result, 4096);
	/* nothing in flight: the clock moves by the wait */
	assert_int_equal(engine_sim.reap(&b->ctx, b->out, 64, 500), 0);
	assert_int_equal(b->clock.virtual_ns, 2000500);
	/* depth 4: the fifth is BUSY */
	for (unsigned i = 0; i < 4; i++)
		assert_int_equal(
			engine_sim.queue(&b->ctx, prep(b, i, ENGINE_OP_READ, IO_DB_READ, i)),
			ENGINE_Q_QUEUED);
	assert_int_equal(engine_sim.queue(&b->ctx, prep(b, 4, ENGINE_OP_READ, IO_DB_READ, 4)),
			 ENGINE_Q_BUSY);
	/* all four complete together, at one instant */
	assert_int_equal(engine_sim.reap(&b->ctx, b->out, 64, 10000000), 4);
	sim_stop(b);
}

static void test_sim_saturation(void **state)
{
	struct simbox *b = sim_setup(64);
	uint64_t last = 0;

	b->sim.saturation_iops = 1000; /* 1 ms of device time per I/O */
	sim_start(b);
	for (unsigned i = 0; i < 10; i++)
		engine_sim.queue(&b->ctx, prep(b, i, ENGINE_OP_READ, IO_DB_READ, i));
	/* the k-th waits k ms for the device before its 2 ms */
	for (unsigned i = 0; i < 10; i++) {
		assert_int_equal(engine_sim.reap(&b->ctx, b->out, 1, 100000000), 1);
		last = b->out[0]->t_done_ns;
		assert_int_equal(last, 2000000 + i * 1000000ULL);
	}
	sim_stop(b);
}

/* Two devices (data 0, log 1) of their own models, two files without
 * generation tracking (any size reads), for the size, stall and device
 * tests. */
struct simbox2 {
	struct engine_sim_model dev[2];
	struct engine_clock clock;
	struct engine_file file[2];
	struct engine_ctx ctx;
	struct engine_req req[64];
	struct engine_req *out[64];
};

static struct simbox2 *sim2_setup(void)
{
	struct simbox2 *b = calloc(1, sizeof(*b));

	for (unsigned i = 0; i < 2; i++)
		b->dev[i] = (struct engine_sim_model){.read_latency_ns = 2000000,
						      .write_latency_ns = 3000000,
						      .log_write_latency_ns = 1000000,
						      .seed = 1};
	engine_clock_init_virtual(&b->clock);
	b->file[0] = (struct engine_file){.size = 1ULL << 30, .device = 0};
	b->file[1] = (struct engine_file){.size = 1ULL << 30, .device = 1};
	b->ctx = (struct engine_ctx){.depth = 64,
				     .files = b->file,
				     .nr_files = 2,
				     .nr_devices = 2,
				     .clock = &b->clock,
				     .sim = &b->dev[0],
				     .dev_sims = b->dev};
	return b;
}

static struct engine_req *prep2(struct simbox2 *b, unsigned i, int op, unsigned cls, unsigned file,
				uint32_t len)
{
	struct engine_req *r = &b->req[i];

	memset(r, 0, sizeof(*r));
	r->op = (uint8_t)op;
	r->cls = (uint8_t)cls;
	r->file = file;
	r->offset = (uint64_t)i << 20;
	r->len = len;
	r->buf_index = -1;
	return r;
}

/* queues r now, reaps it, returns its latency */
static uint64_t sim2_one(struct simbox2 *b, struct engine_req *r)
{
	uint64_t t0 = b->clock.virtual_ns;

	assert_int_equal(engine_sim.queue(&b->ctx, r), ENGINE_Q_QUEUED);
	assert_int_equal(engine_sim.reap(&b->ctx, b->out, 1, 60 * NSEC_PER_SEC), 1);
	return b->out[0]->t_done_ns - t0;
}

static void sim2_start(struct simbox2 *b)
{
	struct strbuf err = STRBUF_INIT;

	assert_int_equal(engine_sim.init(&b->ctx, &err), 0);
	assert_int_equal(engine_sim.open(&b->ctx, &err), 0);
	strbuf_release(&err);
}

static void sim2_stop(struct simbox2 *b)
{
	engine_sim.close(&b->ctx);
	engine_sim.cleanup(&b->ctx);
	free(b);
}

/* transfer_rate: an I/O of len bytes holds the device len / rate longer and
 * takes as much longer; at saturation a 1 MiB read costs more than a 32 KiB
 * page, and the I/O queued behind it waits for its transfer too */
static void test_sim_transfer_rate(void **state)
{
	struct simbox2 *b = sim2_setup();
	uint64_t small, big;

	b->dev[0].saturation_iops = 290;
	b->dev[0].transfer_rate = 100000000; /* 100 MB/s */
	sim2_start(b);
	small = sim2_one(b, prep2(b, 0, ENGINE_OP_READ, IO_DB_READ, 0, 32768));
	assert_int_equal(small, 2000000 + 327680); /* 2 ms + 32768 B / 100 MB/s */
	b->clock.virtual_ns += NSEC_PER_SEC;	   /* the device is idle again */
	big = sim2_one(b, prep2(b, 1, ENGINE_OP_READ, IO_LOG_READ, 0, 1048576));
	assert_int_equal(big, 2000000 + 10485760);
	b->clock.virtual_ns += NSEC_PER_SEC;
	/* at saturation: a 32 KiB read queued behind a 1 MiB one waits its
	 * 1/290 s of service plus 10.49 ms of transfer; behind a 32 KiB one,
	 * the service plus 0.33 ms */
	for (unsigned i = 2; i < 4; i++)
		engine_sim.queue(&b->ctx,
				 prep2(b, i, ENGINE_OP_READ, i == 2 ? IO_LOG_READ : IO_DB_READ, 0,
				       i == 2 ? 1048576 : 32768));
	assert_int_equal(engine_sim.reap(&b->ctx, b->out, 1, 60 * NSEC_PER_SEC), 1);
	assert_int_equal(engine_sim.reap(&b->ctx, b->out, 1, 60 * NSEC_PER_SEC), 1);
	big = b->req[3].t_done_ns - b->req[3].t_submit_ns;
	b->clock.virtual_ns += NSEC_PER_SEC;
	for (unsigned i = 4; i < 6; i++)
		engine_sim.queue(&b->ctx, prep2(b, i, ENGINE_OP_READ, IO_DB_READ, 0, 32768));
	assert_int_equal(engine_sim.reap(&b->ctx, b->out, 1, 60 * NSEC_PER_SEC), 1);
	assert_int_equal(engine_sim.reap(&b->ctx, b->out, 1, 60 * NSEC_PER_SEC), 1);
	small = b->req[5].t_done_ns - b->req[5].t_submit_ns;
	assert_int_equal(big, NSEC_PER_SEC / 290 + 10485760 + 2000000 + 327680);
	assert_int_equal(small, NSEC_PER_SEC / 290 + 327680 + 2000000 + 327680);
	sim2_stop(b);
}

/* a stall adds stall_latency to the I/Os started inside its window only */
static void test_sim_stall(void **state)
{
	struct simbox2 *b = sim2_setup();

	b->dev[0].stall_period_ns = 10 * NSEC_PER_SEC;
	b->dev[0].stall_length_ns = 2 * NSEC_PER_SEC;
	b->dev[0].stall_latency_ns = 5000000;
	sim2_start(b);
	for (unsigned s = 0; s < 30; s++) {
		bool in = s % 10 < 2;
		uint64_t lat;

		b->clock.virtual_ns = (uint64_t)s * NSEC_PER_SEC + 500000000;
		lat = sim2_one(b, prep2(b, 0, ENGINE_OP_READ, IO_DB_READ, 0, 4096));
		assert_int_equal(lat, in ? 7000000 : 2000000);
		/* the other device has no stall */
		b->clock.virtual_ns = (uint64_t)s * NSEC_PER_SEC + 500000000;
		lat = sim2_one(b, prep2(b, 1, ENGINE_OP_WRITE, IO_LOG_WRITE, 1, 4096));
		assert_int_equal(lat, 1000000);
	}
	sim2_stop(b);
}

/* one read latency of a fresh run with this seed and the devices' run_spread
 * (jitter 0: the latency is read_latency times the run's factor) */
static uint64_t run_spread_read(uint64_t seed, double spread_pct)
{
	struct simbox2 *b = sim2_setup();
	uint64_t lat;

	for (unsigned i = 0; i < 2; i++) {
		b->dev[i].seed = seed;
		b->dev[i].run_spread_pct = spread_pct;
	}
	sim2_start(b);
	lat = sim2_one(b, prep2(b, 0, ENGINE_OP_READ, IO_DB_READ, 0, 4096));
	sim2_stop(b);
	return lat;
}

/* run_spread: one factor per run from the seed alone (the same seed, the
 * same factor; other seeds, other factors within +-the spread); 0
 * leaves every latency as it was */
static void test_sim_run_spread(void **state)
{
	double sum = 0, lo = 1, hi = 1;
	unsigned n = 200, differ = 0;

	assert_int_equal(run_spread_read(7, 0), 2000000);
	assert_int_equal(run_spread_read(7, 8), run_spread_read(7, 8));
	for (uint64_t seed = 1; seed <= n; seed++) {
		double x = (double)run_spread_read(seed, 8) / 2000000.0;

		differ += x != 1.0;
		sum += x;
		lo = fmin(lo, x);
		hi = fmax(hi, x);
	}
	assert_int_equal(differ, n);
	/* uniform within +-8 %: the factors' mean near 1, their range near it */
	assert_true(fabs(sum / n - 1) < 0.01);
	assert_true(lo >= 0.92 && lo < 0.93 && hi <= 1.08 && hi > 1.07);
}

/* a log device of its own: log writes on a fast device no longer queue
 * behind the data device's reads */
static void test_sim_log_device(void **state)
{
	struct simbox2 *b = sim2_setup();
	uint64_t lat;

	b->dev[0].saturation_iops = 100; /* 10 ms per I/O */
	b->dev[1].saturation_iops = 5000;
	sim2_start(b);
	for (unsigned i = 0; i < 10; i++)
		engine_sim.queue(&b->ctx, prep2(b, i, ENGINE_OP_READ, IO_DB_READ, 0, 32768));
	lat = sim2_one(b, prep2(b, 10, ENGINE_OP_WRITE, IO_LOG_WRITE, 1, 4096));
	assert_int_equal(lat, 1000000); /* not 100 ms behind the reads */
	sim2_stop(b);

	/* the same log file on the data device waits for the ten reads */
	b = sim2_setup();
	b->dev[0].saturation_iops = 100;
	b->file[1].device = 0;
	sim2_start(b);
	for (unsigned i = 0; i < 10; i++)
		engine_sim.queue(&b->ctx, prep2(b, i, ENGINE_OP_READ, IO_DB_READ, 0, 32768));
	assert_int_equal(
		engine_sim.queue(&b->ctx, prep2(b, 10, ENGINE_OP_WRITE, IO_LOG_WRITE, 1, 4096)),
		ENGINE_Q_QUEUED);
	for (unsigned i = 0; i < 11; i++)
		assert_int_equal(engine_sim.reap(&b->ctx, b->out, 1, 60 * NSEC_PER_SEC), 1);
	assert_ptr_equal(b->out[0], &b->req[10]);
	assert_int_equal(b->out[0]->t_done_ns, 100000000 + 1000000);
	sim2_stop(b);
}

static void test_sim_errors_and_drops(void **state)
{
	struct simbox *b = sim_setup(8);
	unsigned eio = 0, lost = 0;
	uint64_t found;

	b->sim.error_rate_pct = 10;
	sim_start(b);
	for (unsigned i = 0; i < 2000; i++) {
		engine_sim.queue(&b->ctx, prep(b, 0, ENGINE_OP_READ, IO_DB_READ, i % 64));
		assert_int_equal(engine_sim.reap(&b->ctx, b->out, 8, 100000000), 1);
		eio += b->out[0]->result == -EIO;
	}
	assert_true(eio > 120 && eio < 280); /* 10 % of 2000, loosely */
	sim_stop(b);

	b = sim_setup(8);
	b->sim.drop_write_rate_pct = 50;
	sim_start(b);
	for (unsigned g = 2; g < 200; g++) {
		struct engine_req *w = prep(b, 0, ENGINE_OP_WRITE, IO_DB_WRITE, 5);

		page_stamp(w->buf, 4096, PAGE_KIND_DB, 7, 5, g, 0, 0, false);
		engine_sim.queue(&b->ctx, w);
		engine_sim.reap(&b->ctx, b->out, 8, 100000000);
		engine_sim.queue(&b->ctx, prep(b, 1, ENGINE_OP_READ, IO_DB_READ, 5));
		engine_sim.reap(&b->ctx, b->out, 8, 100000000);
		enum page_status st = page_verify(b->bufs[1], 4096, 7, 5, g, false, &found);
		assert_true(st == PAGE_OK || st == PAGE_LOST_WRITE);
		lost += st == PAGE_LOST_WRITE;
	}
	assert_true(lost > 50 && lost < 150);
	/* a never-written page reads as generation 1 */
	engine_sim.queue(&b->ctx, prep(b, 1, ENGINE_OP_READ, IO_DB_READ, 9));
	engine_sim.reap(&b->ctx, b->out, 8, 100000000);
	assert_int_equal(page_verify(b->bufs[1], 4096, 7, 9, 1, false, &found), PAGE_OK);
	sim_stop(b);
}

/*
 * Conformance of the real engines. The harness plays the runner's part: it
 * stamps t_submit_ns before queue() and t_done_ns after reap() unless the
 * engine stamps completions itself.
 */
#define RB_PAGES 8
#define RB_BUFS 8

struct realbox {
	const struct engine_ops *e;
	char path[512];
	int fds[2]; /* the scratch file, and a bad descriptor */
	bool direct;
	struct engine_clock clock;
	struct engine_ctx ctx;
	struct iovec iov[RB_BUFS];
	struct engine_req req[RB_BUFS];
	struct engine_req *out[RB_BUFS];
};

/* Skips (77) when e is not built in or this kernel cannot run it. */
static void real_engine_require(const struct engine_ops *e)
{
	struct strbuf err = STRBUF_INIT;

	if (e->unavailable) {
		print_message("skipped: %s: %s\n", e->name, e->unavailable);
		skip();
	}
	if (e == &engine_io_uring && engine_io_uring_probe(&err)) {
		print_message("skipped: %s\n", err.buf);
		strbuf_release(&err);
		skip();
	}
	strbuf_release(&err);
}

/* A scratch file of RB_PAGES pages, O_DIRECT where the file system takes it. */
static int real_file(char *path, size_t len, bool *direct)
{
	int fd0, fd;

	snprintf(path, len, "%s/engine-test.XXXXXX", DP_BINARY_DIR);
	fd0 = mkstemp(path);
	if (fd0 < 0)
		return -1;
	close(fd0);
	fd = open(path, O_RDWR | O_DIRECT);
	*direct = fd >= 0;
	if (fd < 0)
		fd = open(path, O_RDWR);
	if (fd >= 0 && ftruncate(fd, RB_PAGES * 4096)) {
		close(fd);
		return -1;
	}
	return fd;
}

static struct realbox *rb_start(const struct engine_ops *e, unsigned depth)
{
	struct realbox *b = calloc(1, sizeof(*b));
	struct strbuf err = STRBUF_INIT;

	assert_non_null(b);
	b->e = e;
	b->fds[0] = real_file(b->path, sizeof(b->path), &b->direct);
	b->fds[1] = -1;
	assert_true(b->fds[0] >= 0);
	for (unsigned i = 0; i < RB_BUFS; i++) {
		assert_int_equal(posix_memalign(&b->iov[i].iov_base, 4096, 4096), 0);
		memset(b->iov[i].iov_base, 0, 4096);
		b->iov[i].iov_len = 4096;
	}
	engine_clock_init_mono(&b->clock);
	b->ctx = (struct engine_ctx){.depth = depth,
				     .fds = b->fds,
				     .nr_files = 2,
				     .bufs = b->iov,
				     .nr_bufs = RB_BUFS,
				     .clock = &b->clock};
	if (e->init(&b->ctx, &err) || e->open(&b->ctx, &err))
		fail_msg("%s: %s", e->name, err.buf);
	print_message("%s: %s%s\n", e->name, b->ctx.notes, b->direct ? "" : " (no O_DIRECT here)");
	strbuf_release(&err);
	return b;
}

static void rb_stop(struct realbox *b)
{
	b->e->close(&b->ctx);
	b->e->cleanup(&b->ctx);
	b->e->cleanup(&b->ctx); /* safe twice */
	assert_null(b->ctx.priv);
	for (unsigned i = 0; i < RB_BUFS; i++)
		free(b->iov[i].iov_base);
	close(b->fds[0]);
	unlink(b->path);
	free(b);
}

static struct engine_req *rb_req(struct realbox *b, unsigned i, int op, uint64_t off, void *buf,
				 uint32_t len)
{
	struct engine_req *r = &b->req[i];

	*r = (struct engine_req){.op = (uint8_t)op,
				 .offset = off,
				 .len = len,
				 .buf = buf,
				 .buf_index = buf == b->iov[i].iov_base ? (int32_t)i : -1};
	return r;
}

/* queue() as the runner calls it */
static int rb_queue(struct realbox *b, struct engine_req *r)
{
	int ret;

	r->t_submit_ns = engine_clock_now(&b->clock);
	ret = b->e->queue(&b->ctx, r);
	if (ret == ENGINE_Q_COMPLETED && !(b->e->flags & ENGINE_STAMPS_DONE_FLAGS))
		r->t_done_ns = engine_clock_now(&b->clock);
	return ret;
}

/* Reaps want completions, at most max per call, checking each one's
 * completion time: after its submission, not after reap returned. */
static void rb_reap(struct realbox *b, unsigned want, unsigned max)
{
	unsigned got = 0;

	for (int tries = 0; got < want; tries++) {
		int n = b->e->reap(&b->ctx, b->out, max, NSEC_PER_SEC);
		uint64_t now = engine_clock_now(&b->clock);

		assert_true(tries < 30);
		assert_true(n >= 0 && (unsigned)n <= max);
		for (int i = 0; i < n; i++) {
			struct engine_req *r = b->out[i];

			if (!(b->e->flags & ENGINE_STAMPS_DONE_FLAGS))
				r->t_done_ns = now;
			assert_true(r->t_done_ns >= r->t_submit_ns);
			assert_true(r->t_done_ns <= now);
		}
		got += (unsigned)n;
	}
	assert_int_equal(got, want);
}

/*
 * Does queue() answer BUSY once depth requests are outstanding? libaio and
 * psync do; io_uring's limit is its submission ring (depth rounded up to a
 * power of two, free again once submitted), so it may take more. All must
 * take depth.
 */
static bool depth_strict(const struct engine_ops *e)
{
	return e != &engine_io_uring;
}

static void test_real_conformance(void **state)
{
	const struct engine_ops *e = *state;
	struct realbox *b;
	struct engine_req extra;
	uint64_t t0, found;
	void *two = NULL;

	real_engine_require(e);
	b = rb_start(e, 4);

	/* nothing in flight: a timed wait returns 0, and not after long */
	t0 = engine_clock_now(&b->clock);
	assert_int_equal(e->reap(&b->ctx, b->out, RB_BUFS, 2 * NSEC_PER_MSEC), 0);
	assert_true(engine_clock_now(&b->clock) - t0 < NSEC_PER_SEC);
	assert_int_equal(e->commit(&b->ctx), 0); /* nothing to commit */

	/* depth 4: four writes (the last written through), then BUSY, before
	 * and after commit, until something is reaped */
	for (unsigned i = 0; i < 4; i++) {
		struct engine_req *w =
			rb_req(b, i, ENGINE_OP_WRITE, i * 4096ULL, b->iov[i].iov_base, 4096);

		page_stamp(w->buf, 4096, PAGE_KIND_DB, 1, i, 2, 0, 0, true);
		w->flags = i == 3 ? ENGINE_RF_DSYNC : 0;
		assert_int_equal(rb_queue(b, w), ENGINE_Q_QUEUED);
	}
	extra = b->req[0];
	assert_int_equal(rb_queue(b, &extra), ENGINE_Q_BUSY);
	assert_int_equal(e->commit(&b->ctx), 0);
	if (depth_strict(e))
		assert_int_equal(rb_queue(b, &extra), ENGINE_Q_BUSY);
	rb_reap(b, 4, RB_BUFS);
	for (unsigned i = 0; i < 4; i++)
		assert_int_equal(b->req[i].result, 4096);

	/* read them back into other buffers, one completion per reap */
	for (unsigned i = 4; i < 8; i++)
		assert_int_equal(rb_queue(b, rb_req(b, i, ENGINE_OP_READ, (i - 4) * 4096ULL,
						    b->iov[i].iov_base, 4096)),
				 ENGINE_Q_QUEUED);
	assert_int_equal(e->commit(&b->ctx), 0);
	rb_reap(b, 4, 1);
	for (unsigned i = 4; i < 8; i++) {
		assert_int_equal(b->req[i].result, 4096);
		assert_int_equal(page_verify(b->iov[i].iov_base, 4096, 1, i - 4, 2, true, &found),
				 PAGE_OK);
	}

	/* short transfers come back as they are: 8 KiB from the last page,
	 * and nothing past the end */
	assert_int_equal(posix_memalign(&two, 4096, 8192), 0);
	assert_int_equal(
		rb_queue(b, rb_req(b, 0, ENGINE_OP_READ, (RB_PAGES - 1) * 4096ULL, two, 8192)),
		ENGINE_Q_QUEUED);
	assert_int_equal(rb_queue(b, rb_req(b, 1, ENGINE_OP_READ, RB_PAGES * 4096ULL,
					    b->iov[1].iov_base, 4096)),
			 ENGINE_Q_QUEUED);
	assert_int_equal(e->commit(&b->ctx), 0);
	rb_reap(b, 2, RB_BUFS);
	assert_int_equal(b->req[0].result, 4096);
	assert_int_equal(b->req[1].result, 0);
	free(two);

	/* a misaligned O_DIRECT read fails in its own result, not in the engine */
	if (b->direct) {
		assert_int_equal(
			rb_queue(b, rb_req(b, 0, ENGINE_OP_READ, 100, b->iov[0].iov_base, 4096)),
			ENGINE_Q_QUEUED);
		assert_int_equal(e->commit(&b->ctx), 0);
		rb_reap(b, 1, RB_BUFS);
		assert_int_equal(b->req[0].result, -EINVAL);
	}

	/* I/O on a bad descriptor fails alone, in its own result, whether the
	 * kernel refuses it at submission or at completion; the read queued
	 * behind it still completes */
	rb_req(b, 0, ENGINE_OP_WRITE, 0, b->iov[0].iov_base, 4096)->file = 1;
	rb_req(b, 1, ENGINE_OP_READ, 0, b->iov[1].iov_base, 4096)->file = 1;
	rb_req(b, 2, ENGINE_OP_READ, 0, b->iov[2].iov_base, 4096);
	for (unsigned i = 0; i < 3; i++)
		assert_int_equal(rb_queue(b, &b->req[i]), ENGINE_Q_QUEUED);
	assert_int_equal(e->commit(&b->ctx), 0);
	rb_reap(b, 3, RB_BUFS);
	assert_int_equal(b->req[0].result, -EBADF);
	assert_int_equal(b->req[1].result, -EBADF);
	assert_int_equal(b->req[2].result, 4096);
	rb_stop(b);
}

/* More in flight than psync has helper threads (64): the rest wait their
 * turn and all complete. */
static void test_real_deep(void **state)
{
	const struct engine_ops *e = *state;
	enum { DEEP = 96 };
	struct engine_req *reqs = calloc(DEEP + 1, sizeof(*reqs));
	struct engine_req **out = calloc(DEEP, sizeof(*out));
	struct realbox *b;
	char *area = NULL;
	unsigned got = 0;

	real_engine_require(e);
	assert_non_null(reqs);
	assert_non_null(out);
	b = rb_start(e, DEEP);
	assert_int_equal(posix_memalign((void **)&area, 4096, DEEP * 4096), 0);
	for (unsigned i = 0; i < DEEP; i++) {
		reqs[i] = (struct engine_req){.op = ENGINE_OP_READ,
					      .offset = (i % RB_PAGES) * 4096ULL,
					      .len = 4096,
					      .buf = area + i * 4096,
					      .buf_index = -1};
		reqs[i].t_submit_ns = engine_clock_now(&b->clock);
		assert_int_equal(e->queue(&b->ctx, &reqs[i]), ENGINE_Q_QUEUED);
	}
	reqs[DEEP] = reqs[0];
	if (depth_strict(e))
		assert_int_equal(e->queue(&b->ctx, &reqs[DEEP]), ENGINE_Q_BUSY);
	assert_int_equal(e->commit(&b->ctx), 0);
	/* a deadline, not a count of reaps: a reap may return early with
	 * nothing (psync's helpers wake it per completion batch) */
	uint64_t deadline = engine_clock_now(&b->clock) + 60 * NSEC_PER_SEC;

	while (got < DEEP) {
		int n = e->reap(&b->ctx, out, DEEP, NSEC_PER_SEC);

		assert_true(engine_clock_now(&b->clock) < deadline);
		assert_true(n >= 0);
		for (int i = 0; i < n; i++)
			assert_int_equal(out[i]->result, 4096);
		got += (unsigned)n;
	}
	assert_int_equal(got, DEEP);
	/* room again */
	assert_int_equal(e->queue(&b->ctx, &reqs[DEEP]), ENGINE_Q_QUEUED);
	assert_int_equal(e->commit(&b->ctx), 0);
	while (e->reap(&b->ctx, out, DEEP, NSEC_PER_SEC) == 0)
		;
	rb_stop(b);
	free(area);
	free(out);
	free(reqs);
}

/* psync's completion time is taken on its helper thread as the system call
 * returns, not when reap() hands the request back. */
static void test_psync_stamps_on_helper(void **state)
{
	struct realbox *b;
	struct engine_req *r;
	struct timespec pause = {.tv_nsec = 50 * 1000000L};
	uint64_t before_reap;

	real_engine_require(&engine_psync);
	b = rb_start(&engine_psync, 2);
	r = rb_req(b, 0, ENGINE_OP_READ, 0, b->iov[0].iov_base, 4096);
	assert_int_equal(rb_queue(b, r), ENGINE_Q_QUEUED);
	assert_int_equal(engine_psync.commit(&b->ctx), 0);
	nanosleep(&pause, NULL); /* the read is long done by now */
	before_reap = engine_clock_now(&b->clock);
	while (engine_psync.reap(&b->ctx, b->out, 1, NSEC_PER_SEC) == 0)
		;
	assert_ptr_equal(b->out[0], r);
	assert_int_equal(r->result, 4096);
	assert_true(r->t_done_ns >= r->t_submit_ns);
	assert_true(r->t_done_ns < before_reap);
	rb_stop(b);
}

static int uring_file(char *path, size_t len)
{
	snprintf(path, len, "%s/engine-test.XXXXXX", DP_BINARY_DIR);
	return mkstemp(path);
}

static void test_uring_real_file(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct engine_clock clock;
	struct engine_ctx ctx = {0};
	struct engine_req req[8] = {{0}}, *out[8];
	struct iovec iov[8];
	char path[512];
	int fd0, fd, n, got = 0;

	if (engine_io_uring_probe(&err)) {
		print_message("skipped: %s\n", err.buf);
		strbuf_release(&err);
		skip();
	}
	fd0 = uring_file(path, sizeof(path));
	assert_true(fd0 >= 0);
	close(fd0);
	fd = open(path, O_RDWR | O_DIRECT);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 8 * 4096), 0);
	for (unsigned i = 0; i < 8; i++) {
		assert_int_equal(posix_memalign(&iov[i].iov_base, 4096, 4096), 0);
		iov[i].iov_len = 4096;
	}
	engine_clock_init_mono(&clock);
	ctx = (struct engine_ctx){
		.depth = 4, .fds = &fd, .nr_files = 1, .bufs = iov, .nr_bufs = 8, .clock = &clock};
	assert_int_equal(engine_io_uring.init(&ctx, &err), 0);
	assert_int_equal(engine_io_uring.open(&ctx, &err), 0);
	assert_non_null(strstr(ctx.notes, "fixed buffers"));

	/* nothing in flight: a timed wait returns 0 */
	assert_int_equal(engine_io_uring.reap(&ctx, out, 8, 1000000), 0);

	/* write 4 pages (one write-through), a 5th finds the ring full */
	for (unsigned i = 0; i < 4; i++) {
		page_stamp(iov[i].iov_base, 4096, PAGE_KIND_DB, 1, i, 2, 0, 0, true);
		req[i] = (struct engine_req){.op = ENGINE_OP_WRITE,
					     .offset = i * 4096ULL,
					     .len = 4096,
					     .buf = iov[i].iov_base,
					     .buf_index = (int32_t)i,
					     .flags = i == 3 ? ENGINE_RF_DSYNC : 0};
		assert_int_equal(engine_io_uring.queue(&ctx, &req[i]), ENGINE_Q_QUEUED);
	}
	req[4] = req[0];
	assert_int_equal(engine_io_uring.queue(&ctx, &req[4]), ENGINE_Q_BUSY);
	assert_int_equal(engine_io_uring.commit(&ctx), 0);
	while (got < 4) {
		n = engine_io_uring.reap(&ctx, out, 8, 1000000000);
		assert_true(n >= 0);
		for (int i = 0; i < n; i++)
			assert_int_equal(out[i]->result, 4096);
		got += n;
	}
	/* read them back into other buffers and verify */
	for (unsigned i = 0; i < 4; i++) {
		req[i] = (struct engine_req){.op = ENGINE_OP_READ,
					     .offset = i * 4096ULL,
					     .len = 4096,
					     .buf = iov[4 + i].iov_base,
					     .buf_index = (int32_t)(4 + i)};
		assert_int_equal(engine_io_uring.queue(&ctx, &req[i]), ENGINE_Q_QUEUED);
	}
	assert_int_equal(engine_io_uring.commit(&ctx), 0);
	for (got = 0; got < 4;) {
		n = engine_io_uring.reap(&ctx, out, 8, 1000000000);
		assert_true(n >= 0);
		got += n;
	}
	for (unsigned i = 0; i < 4; i++) {
		uint64_t found;

		assert_int_equal(req[i].result, 4096);
		assert_int_equal(page_verify(iov[4 + i].iov_base, 4096, 1, i, 2, true, &found),
				 PAGE_OK);
	}
	/* a misaligned O_DIRECT read fails in its own result, not in the engine */
	req[0] = (struct engine_req){.op = ENGINE_OP_READ,
				     .offset = 100,
				     .len = 4096,
				     .buf = iov[0].iov_base,
				     .buf_index = -1};
	assert_int_equal(engine_io_uring.queue(&ctx, &req[0]), ENGINE_Q_QUEUED);
	assert_int_equal(engine_io_uring.commit(&ctx), 0);
	while ((n = engine_io_uring.reap(&ctx, out, 8, 1000000000)) == 0)
		;
	assert_int_equal(n, 1);
	assert_int_equal(req[0].result, -EINVAL);

	engine_io_uring.close(&ctx);
	engine_io_uring.cleanup(&ctx);
	engine_io_uring.cleanup(&ctx);
	for (unsigned i = 0; i < 8; i++)
		free(iov[i].iov_base);
	close(fd);
	unlink(path);
	strbuf_release(&err);
}

/* one test per real engine, named after both */
#define REAL_ENGINE_TEST(f, e)                                                                     \
	{                                                                                          \
		.name = #f "(" #e ")", .test_func = f, .initial_state = (void *)&e                 \
	}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registry),
		cmocka_unit_test(test_sim_latency_and_clock),
		cmocka_unit_test(test_sim_saturation),
		cmocka_unit_test(test_sim_transfer_rate),
		cmocka_unit_test(test_sim_stall),
		cmocka_unit_test(test_sim_run_spread),
		cmocka_unit_test(test_sim_log_device),
		cmocka_unit_test(test_sim_errors_and_drops),
		cmocka_unit_test(test_uring_real_file),
		REAL_ENGINE_TEST(test_real_conformance, engine_io_uring),
		REAL_ENGINE_TEST(test_real_conformance, engine_libaio),
		REAL_ENGINE_TEST(test_real_conformance, engine_psync),
		REAL_ENGINE_TEST(test_real_deep, engine_io_uring),
		REAL_ENGINE_TEST(test_real_deep, engine_libaio),
		REAL_ENGINE_TEST(test_real_deep, engine_psync),
		cmocka_unit_test(test_psync_stamps_on_helper),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
