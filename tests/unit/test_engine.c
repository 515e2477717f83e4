/*
 * test_engine.c - the engine contract: every registered engine passes the
 * ops validator; the sim engine's latency, saturation, error and dropped-write
 * models and its virtual clock; the io_uring engine on a real O_DIRECT file
 * (write then read back, a full ring answered BUSY, errors in req->result,
 * a timed wait with nothing in flight). io_uring tests skip (77) where the
 * kernel lacks it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
	struct engine_ops broken = {.name = "x", .init = engine_sim.init};
	assert_int_equal(engine_ops_validate(&broken, &err), -EINVAL);
	strbuf_release(&err);
}

struct simbox {
	struct profile_sim sim;
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

	b->sim = (struct profile_sim){.read_latency_ns = 2000000,
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registry),
		cmocka_unit_test(test_sim_latency_and_clock),
		cmocka_unit_test(test_sim_saturation),
		cmocka_unit_test(test_sim_errors_and_drops),
		cmocka_unit_test(test_uring_real_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
