/* SPDX-License-Identifier: MIT */
/*
 * test_precondition.c - preconditioning: the SNIA PTS steady-state rule on
 * made-up series (flat, a fresh drive's decay, one outlier, a slope just
 * inside and just outside the bound), and real runs on files made by
 * plan_prepare_files() through io_uring: the run ends, the journals are
 * clean and every page on disk holds the journal's generation (also for a
 * database that is a region of a larger file, as on a block device); the
 * time limit ends a run that never settles; a signal drains and keeps that
 * true; a missing journal and bad options are refused.
 * The file tests skip where io_uring is unavailable.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>
#include <cmocka.h>

#include "diskproof/engine.h"
#include "diskproof/journal.h"
#include "diskproof/page.h"
#include "diskproof/plan.h"
#include "diskproof/precondition.h"
#include "diskproof/profile.h"

/* ---- the steady-state rule ---- */

static bool steady5(const double *y, unsigned n)
{
	return precondition_steady(y, n, 5, 0.20, 0.10);
}

static void test_steady_flat(void **state)
{
	const double y[] = {1000, 1000, 1000, 1000, 1000};
	const double noisy[] = {1000, 1040, 970, 1010, 990};

	assert_true(steady5(y, 5));
	assert_true(steady5(noisy, 5));
	/* fewer rounds than the window: never */
	assert_false(steady5(y, 4));
	assert_false(precondition_steady(y, 5, 1, 0.20, 0.10));
}

static void test_steady_zero_or_nan(void **state)
{
	const double zero[] = {0, 0, 0, 0, 0};
	const double nan_in[] = {1000, 1000, 0.0 / 0.0, 1000, 1000};

	assert_false(steady5(zero, 5));
	assert_false(steady5(nan_in, 5));
}

/* A fresh drive: fast, then a cliff, then a plateau. Steady only once the
 * whole window is on the plateau. */
static void test_steady_decay(void **state)
{
	const double y[] = {90000, 88000, 85000, 60000, 30000, 21000,
			    20000, 19800, 20100, 19900, 20050, 19950};
	unsigned first = 0;

	for (unsigned n = 1; n <= DP_ARRAY_SIZE(y); n++)
		if (steady5(y, n)) {
			first = n;
			break;
		}
	/* rounds 6..10 (21000 .. 19900): range 1100 (5.5 %), slope excursion
	 * about 4 % of the average: steady at the 10th round, not before */
	assert_int_equal(first, 10);
	for (unsigned n = 10; n <= DP_ARRAY_SIZE(y); n++)
		assert_true(steady5(y, n));
}

static void test_steady_outlier(void **state)
{
	/* one round 25 % under the others: range 250 of an average of 950 */
	const double low[] = {1000, 1000, 750, 1000, 1000};
	/* range just under 20 % of the average, no trend */
	const double ok[] = {1000, 1000, 820, 1000, 1000};
	/* the same dip just over 20 % */
	const double over[] = {1000, 1000, 805, 1000, 1000};
	/* an outlier that has left the window no longer counts */
	const double gone[] = {1000, 400, 1000, 1000, 1000, 1000, 1000};

	assert_false(steady5(low, 5));
	assert_true(steady5(ok, 5));
	assert_false(steady5(over, 5));
	assert_false(steady5(gone, 6));
	assert_true(steady5(gone, 7));
}

/* A straight ramp's range and fitted excursion are equal: 9.5 % passes both
 * rules, 10.5 % passes the range rule and fails the slope rule. */
static void test_steady_slope_bound(void **state)
{
	/* noise with a small trend: slope 2 a round, excursion 8 < 10.2 */
	const double trend[] = {100, 100, 100, 100, 110};
	double under[5], over[5], down[5];

	for (unsigned i = 0; i < 5; i++) {
		under[i] = 1000 + (i - 2.0) * 0.095 * 1000 / 4;
		over[i] = 1000 + (i - 2.0) * 0.105 * 1000 / 4;
		down[i] = 1000 - (i - 2.0) * 0.105 * 1000 / 4;
	}
	assert_true(steady5(under, 5));
	assert_false(steady5(over, 5));
	assert_false(steady5(down, 5));
	/* with a looser slope bound the 10.5 % ramp passes */
	assert_true(precondition_steady(over, 5, 5, 0.20, 0.11));
	assert_true(steady5(trend, 5));
}

/* ---- runs on real files ---- */

struct fixture {
	char dir[512];
	struct profile p;
	struct plan pl;
	bool skip;
};

#define DB_SIZE (4u << 20)

static int setup_files(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT;
	uint64_t created = 0;
	int ret = -1;

	if (!f)
		return -1;
	*state = f;
	if (engine_io_uring_probe(&err)) {
		print_message("io_uring unavailable: %s\n", err.buf);
		f->skip = true;
		strbuf_release(&err);
		return 0;
	}
	snprintf(f->dir, sizeof(f->dir), "%s/test_precondition.XXXXXX", DP_BINARY_DIR);
	if (!mkdtemp(f->dir))
		goto out;
	strbuf_addf(&text,
		    "[test]\nduration = 3s\n"
		    "[sizing]\ndatabase_size = 4MiB\nlog_size = 1MiB\n"
		    "[workload]\npage_size = 8KiB\nseed = 7\nlog_segment_size = 256KiB\n"
		    "[engine]\nname = io_uring\n"
		    "[volume a]\npath = %s/a\ndatabases = 2\n"
		    "[volume b]\npath = %s/b\ndatabases = 1\n",
		    f->dir, f->dir);
	if (profile_parse(&f->p, "test", text.buf, text.len, &err) ||
	    plan_build(&f->pl, &f->p, true, &err) ||
	    plan_prepare_files(&f->pl, &f->p, NULL, NULL, &created, NULL, &err)) {
		print_message("setup: %s\n", err.buf);
		goto out;
	}
	/* what init will write: every page at generation 1, exact */
	for (size_t i = 0; i < f->pl.nr_dbs; i++) {
		const struct plan_db *db = &f->pl.dbs[i];
		struct journal_info ji = {db->id, f->p.page_size, db->nr_pages,
					  0,	  f->p.seed,	  JOURNAL_CLEAN};
		uint32_t *gens = malloc(db->nr_pages * sizeof(*gens));

		if (!gens)
			goto out;
		for (uint64_t pg = 0; pg < db->nr_pages; pg++)
			gens[pg] = 1;
		ret = journal_write(&db->jloc, &ji, gens, &err);
		free(gens);
		if (ret) {
			print_message("setup: %s\n", err.buf);
			goto out;
		}
	}
	ret = 0;
out:
	strbuf_release(&err);
	strbuf_release(&text);
	return ret;
}

static void rm_tree(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		char p[1024];

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(p, sizeof(p), "%s/%s", path, e->d_name);
		if (unlink(p) != 0)
			rm_tree(p);
	}
	if (d)
		closedir(d);
	rmdir(path);
}

static int teardown_files(void **state)
{
	struct fixture *f = *state;

	if (f->dir[0])
		rm_tree(f->dir);
	plan_release(&f->pl);
	profile_release(&f->p);
	free(f);
	return 0;
}

/* Every database: journal clean when asked, every page on disk verified
 * against it; returns the writes beyond generation 1 counted from it. */
static uint64_t check_pages(const struct fixture *f, bool want_clean)
{
	uint64_t writes = 0;
	void *buf = NULL;

	assert_int_equal(posix_memalign(&buf, 4096, f->p.page_size), 0);
	for (size_t i = 0; i < f->pl.nr_dbs; i++) {
		const struct plan_db *db = &f->pl.dbs[i];
		struct strbuf err = STRBUF_INIT;
		struct journal_info ji;
		uint32_t *gens;
		int fd;

		assert_int_equal(journal_read(&db->jloc, &ji, &gens, &err), 0);
		if (want_clean)
			assert_true(ji.flags & JOURNAL_CLEAN);
		assert_int_equal(ji.nr_pages, db->nr_pages);
		fd = open(db->path, O_RDONLY);
		assert_true(fd >= 0);
		for (uint64_t pg = 0; pg < db->nr_pages; pg++) {
			uint64_t found;
			enum page_status st;

			assert_int_equal(pread(fd, buf, f->p.page_size,
					       (off_t)(db->base + pg * f->p.page_size)),
					 (ssize_t)f->p.page_size);
			st = page_verify(buf, f->p.page_size, db->id, pg, gens[pg], true, &found);
			if (st != PAGE_OK)
				fail_msg("%s page %llu: %s (journal %u, found %llu)", db->path,
					 (unsigned long long)pg, page_status_name(st), gens[pg],
					 (unsigned long long)found);
			assert_true(gens[pg] >= 1);
			writes += gens[pg] - 1;
		}
		close(fd);
		free(gens);
		strbuf_release(&err);
	}
	free(buf);
	return writes;
}

struct rounds_seen {
	unsigned calls, last_n;
	bool last_steady;
};

static void on_round(void *arg, unsigned n, double iops, bool steady)
{
	struct rounds_seen *r = arg;

	assert_int_equal(n, r->last_n + 1);
	assert_true(iops >= 0);
	r->calls++;
	r->last_n = n;
	r->last_steady = steady;
}

static void test_run_files(void **state)
{
	struct fixture *f = *state;
	struct precondition_options o;
	struct precondition_result res;
	struct rounds_seen seen = {0};
	struct strbuf err = STRBUF_INIT;
	int ret;

	if (f->skip)
		skip();
	precondition_options_default(&o);
	o.round_ns = 200 * NSEC_PER_MSEC;
	o.window = 3;
	o.max_ns = 10 * NSEC_PER_SEC;
	o.depth = 16;
	o.round = on_round;
	o.arg = &seen;
	ret = precondition_run(&f->pl, &f->p, &o, &res, &err);
	if (ret)
		fail_msg("precondition_run: %d: %s", ret, err.buf);
	print_message("%u rounds, %s at %.0f IOPS, %.2f s\n", res.rounds,
		      res.steady ? "steady" : "not steady", res.final_iops,
		      (double)res.elapsed_ns / 1e9);
	assert_true(res.bytes > 0);
	assert_true(res.rounds >= 1);
	assert_int_equal(seen.calls, res.rounds);
	assert_int_equal(seen.last_steady, res.steady);
	if (res.steady)
		assert_true(res.rounds >= 3);
	else
		assert_true(res.elapsed_ns >= o.max_ns);
	assert_false(res.interrupted);
	assert_true(res.final_iops > 0);
	/* every acknowledged write is in the journal, and nothing else */
	assert_int_equal(check_pages(f, true) * f->p.page_size, res.bytes);

	/* a second run carries on from the first one's generations */
	o.round = NULL;
	o.max_ns = 600 * NSEC_PER_MSEC;
	ret = precondition_run(&f->pl, &f->p, &o, &res, &err);
	assert_int_equal(ret, 0);
	assert_true(res.bytes > 0);
	check_pages(f, true);
	strbuf_release(&err);
}

/* A database as a region of a larger file, as on a block device: db2's
 * pages moved 1 MiB into "dev.img" (base 1 MiB); writes land in the region
 * and nowhere else. */
static void test_run_region(void **state)
{
	struct fixture *f = *state;
	struct plan_db *db = &f->pl.dbs[1];
	const uint64_t base = 1u << 20;
	struct precondition_options o;
	struct precondition_result res;
	struct strbuf err = STRBUF_INIT;
	char dev[600];
	unsigned char *buf = malloc(DB_SIZE), head[4096], tail[4096];
	int in, out;

	if (f->skip) {
		free(buf);
		skip();
	}
	assert_non_null(buf);
	snprintf(dev, sizeof(dev), "%s/dev.img", f->dir);
	in = open(db->path, O_RDONLY);
	out = open(dev, O_RDWR | O_CREAT | O_TRUNC, 0644);
	assert_true(in >= 0 && out >= 0);
	assert_int_equal(read(in, buf, DB_SIZE), (ssize_t)DB_SIZE);
	memset(head, 0xa5, sizeof(head));
	memset(tail, 0x5a, sizeof(tail));
	assert_int_equal(pwrite(out, head, sizeof(head), (off_t)(base - sizeof(head))),
			 (ssize_t)sizeof(head));
	assert_int_equal(pwrite(out, buf, DB_SIZE, (off_t)base), (ssize_t)DB_SIZE);
	assert_int_equal(pwrite(out, tail, sizeof(tail), (off_t)(base + DB_SIZE)),
			 (ssize_t)sizeof(tail));
	close(in);
	free(db->path);
	db->path = strdup(dev);
	db->base = base;
	precondition_options_default(&o);
	o.round_ns = 100 * NSEC_PER_MSEC;
	o.max_ns = 500 * NSEC_PER_MSEC;
	assert_int_equal(precondition_run(&f->pl, &f->p, &o, &res, &err), 0);
	assert_true(res.bytes > 0);
	/* the bytes around the region are untouched */
	assert_int_equal(pread(out, buf, sizeof(head), (off_t)(base - sizeof(head))),
			 (ssize_t)sizeof(head));
	assert_memory_equal(buf, head, sizeof(head));
	assert_int_equal(pread(out, buf, sizeof(tail), (off_t)(base + DB_SIZE)),
			 (ssize_t)sizeof(tail));
	assert_memory_equal(buf, tail, sizeof(tail));
	close(out);
	free(buf);
	assert_int_equal(check_pages(f, true) * f->p.page_size, res.bytes);
	strbuf_release(&err);
}

/* Reads db1's journal flags from the round callback: after the periodic
 * journal (round 6), written with writes in flight, it is a lower bound. */
struct periodic_seen {
	const struct fixture *f;
	unsigned rounds;
	int flags_at_7;
};

static void on_round_periodic(void *arg, unsigned n, double iops, bool steady)
{
	struct periodic_seen *s = arg;
	struct strbuf err = STRBUF_INIT;
	struct journal_info ji;
	uint32_t *gens;

	assert_false(steady);
	s->rounds = n;
	if (n != 7)
		return;
	assert_int_equal(journal_read(&s->f->pl.dbs[0].jloc, &ji, &gens, &err), 0);
	s->flags_at_7 = (int)ji.flags;
	free(gens);
	strbuf_release(&err);
}

/* Never steady (min_bytes out of reach): stops at the time limit with
 * steady false, having journaled on the way, and ends exact. */
static void test_run_time_limit(void **state)
{
	struct fixture *f = *state;
	struct precondition_options o;
	struct precondition_result res;
	struct periodic_seen seen = {f, 0, -1};
	struct strbuf err = STRBUF_INIT;
	int ret;

	if (f->skip)
		skip();
	precondition_options_default(&o);
	o.round_ns = 50 * NSEC_PER_MSEC;
	o.window = 3;
	o.min_bytes = UINT64_MAX;
	o.max_ns = NSEC_PER_SEC;
	o.round = on_round_periodic;
	o.arg = &seen;
	ret = precondition_run(&f->pl, &f->p, &o, &res, &err);
	if (ret)
		fail_msg("precondition_run: %d: %s", ret, err.buf);
	assert_false(res.steady);
	assert_true(res.elapsed_ns >= o.max_ns);
	assert_true(res.rounds >= 7);
	assert_int_equal(seen.rounds, res.rounds);
	assert_int_equal(seen.flags_at_7, 0);
	assert_int_equal(check_pages(f, true) * f->p.page_size, res.bytes);
	strbuf_release(&err);
}

/* SIGINT through the signal descriptor (a pipe carrying the same record a
 * signalfd gives): -EINTR, writes drained, journals clean and exact. */
static void test_run_interrupted(void **state)
{
	struct fixture *f = *state;
	struct precondition_options o;
	struct precondition_result res;
	struct signalfd_siginfo si = {.ssi_signo = SIGINT};
	struct strbuf err = STRBUF_INIT;
	int fds[2], ret;

	if (f->skip)
		skip();
	assert_int_equal(pipe(fds), 0);
	assert_int_equal(write(fds[1], &si, sizeof(si)), (ssize_t)sizeof(si));
	precondition_options_default(&o);
	o.round_ns = 5 * NSEC_PER_SEC;
	o.max_ns = 60 * NSEC_PER_SEC;
	o.signal_fd = fds[0];
	ret = precondition_run(&f->pl, &f->p, &o, &res, &err);
	assert_int_equal(ret, -EINTR);
	assert_true(res.interrupted);
	assert_int_equal(res.signo, SIGINT);
	assert_false(res.steady);
	assert_int_equal(res.rounds, 0);
	assert_true(res.elapsed_ns < 5 * NSEC_PER_SEC);
	assert_non_null(strstr(err.buf, "interrupted by SIGINT"));
	assert_int_equal(check_pages(f, true) * f->p.page_size, res.bytes);
	close(fds[0]);
	close(fds[1]);
	strbuf_release(&err);
}

static void test_run_no_journal(void **state)
{
	struct fixture *f = *state;
	struct precondition_options o;
	struct precondition_result res;
	struct strbuf err = STRBUF_INIT;

	if (f->skip)
		skip();
	assert_int_equal(unlink(f->pl.dbs[1].journal), 0);
	precondition_options_default(&o);
	assert_int_equal(precondition_run(&f->pl, &f->p, &o, &res, &err), -ENOENT);
	assert_non_null(strstr(err.buf, f->pl.dbs[1].journal));
	assert_non_null(strstr(err.buf, "no generation journal"));
	assert_int_equal(res.bytes, 0);
	strbuf_release(&err);
}

static void test_run_bad_journal(void **state)
{
	struct fixture *f = *state;
	struct precondition_options o;
	struct precondition_result res;
	struct strbuf err = STRBUF_INIT;
	const struct plan_db *db = &f->pl.dbs[0];
	struct journal_info ji = {db->id, f->p.page_size, db->nr_pages / 2,
				  0,	  f->p.seed,	  JOURNAL_CLEAN};
	uint32_t *gens = calloc(db->nr_pages, sizeof(*gens));

	if (f->skip) {
		free(gens);
		skip();
	}
	assert_non_null(gens);
	assert_int_equal(journal_write(&db->jloc, &ji, gens, &err), 0);
	precondition_options_default(&o);
	assert_int_equal(precondition_run(&f->pl, &f->p, &o, &res, &err), -EINVAL);
	assert_non_null(strstr(err.buf, "journal of database"));
	free(gens);
	strbuf_release(&err);
}

static void test_bad_options(void **state)
{
	struct fixture *f = *state;
	struct precondition_options o;
	struct precondition_result res;
	struct strbuf err = STRBUF_INIT;

	if (f->skip)
		skip();
	precondition_options_default(&o);
	o.depth = 0;
	assert_int_equal(precondition_run(&f->pl, &f->p, &o, &res, &err), -EINVAL);
	assert_non_null(strstr(err.buf, "depth"));
	strbuf_reset(&err);
	precondition_options_default(&o);
	o.window = 1;
	assert_int_equal(precondition_run(&f->pl, &f->p, &o, &res, &err), -EINVAL);
	assert_non_null(strstr(err.buf, "window"));
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_steady_flat),
		cmocka_unit_test(test_steady_zero_or_nan),
		cmocka_unit_test(test_steady_decay),
		cmocka_unit_test(test_steady_outlier),
		cmocka_unit_test(test_steady_slope_bound),
		cmocka_unit_test_setup_teardown(test_run_files, setup_files, teardown_files),
		cmocka_unit_test_setup_teardown(test_run_region, setup_files, teardown_files),
		cmocka_unit_test_setup_teardown(test_run_time_limit, setup_files, teardown_files),
		cmocka_unit_test_setup_teardown(test_run_interrupted, setup_files, teardown_files),
		cmocka_unit_test_setup_teardown(test_run_no_journal, setup_files, teardown_files),
		cmocka_unit_test_setup_teardown(test_run_bad_journal, setup_files, teardown_files),
		cmocka_unit_test_setup_teardown(test_bad_options, setup_files, teardown_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
