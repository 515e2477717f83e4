/* SPDX-License-Identifier: MIT */
/*
 * test_witness.c - the witness file (src/witness): a round trip of batches;
 * a torn last batch, cut at every byte or with any one byte flipped, never
 * returned and the earlier batches kept, and cut off before the next append;
 * damage with valid batches after it refused; a foreign file, a FIFO and a
 * symbolic link refused, the foreign file left as it was; one sink per file;
 * two runs in one file give the last run's records; which specs are TCP.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "diskproof/witness.h"
#include "../../src/witness/witness_internal.h"

struct fixture {
	char dir[256];
	char path[300];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	snprintf(f->dir, sizeof(f->dir), "%s/test_witness.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->path, sizeof(f->path), "%s/witness", f->dir);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[400];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	if (system(cmd) != 0)
		return -1;
	free(f);
	return 0;
}

static struct witness_ack ack_of(uint32_t batch, uint32_t i)
{
	return (struct witness_ack){
		.db = batch % 3,
		.flags = 0,
		.page = 1000u * batch + i,
		.generation = 7u * batch + i + 1,
		.time_ns = 1700000000000000000LL + 1000000LL * batch + i,
	};
}

/* Sends batches [from, to) of (batch + 1) records each under tag. */
static void send_batches(const char *path, const char *tag, uint32_t from, uint32_t to)
{
	struct witness *w;
	struct witness_ack a[16];
	char err[256] = "";

	assert_int_equal(witness_open(path, tag, &w, err, sizeof(err)), 0);
	for (uint32_t b = from; b < to; b++) {
		for (uint32_t i = 0; i <= b % 16; i++)
			a[i] = ack_of(b, i);
		assert_int_equal(witness_send(w, a, b % 16 + 1, err, sizeof(err)), 0);
	}
	assert_int_equal(witness_close(w), 0);
}

/* The records of batches [from, to) in log, from its first record on. */
static void assert_batches(const struct witness_log *log, uint32_t from, uint32_t to)
{
	size_t k = 0;

	for (uint32_t b = from; b < to; b++)
		for (uint32_t i = 0; i <= b % 16; i++, k++) {
			struct witness_ack want = ack_of(b, i);

			assert_true(k < log->n);
			assert_int_equal(log->acks[k].db, want.db);
			assert_int_equal(log->acks[k].page, want.page);
			assert_int_equal(log->acks[k].generation, want.generation);
			assert_int_equal(log->acks[k].time_ns, want.time_ns);
		}
	assert_int_equal(log->n, k);
	assert_int_equal(log->batches, to - from);
}

static off_t file_size(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return st.st_size;
}

static void copy_prefix(const char *from, const char *to, off_t len, off_t flip)
{
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	int c;

	assert_non_null(in);
	assert_non_null(out);
	for (off_t i = 0; i < len && (c = fgetc(in)) != EOF; i++)
		fputc(i == flip ? c ^ 0x10 : c, out);
	fclose(in);
	assert_int_equal(fclose(out), 0);
}

static void test_round_trip(void **state)
{
	struct fixture *f = *state;
	struct witness_log log;
	char err[256] = "";

	send_batches(f->path, "oltp 2026-12-06T14:00:00Z", 0, 5);
	assert_int_equal(witness_load(f->path, &log, err, sizeof(err)), 0);
	assert_string_equal(log.run_tag, "oltp 2026-12-06T14:00:00Z");
	assert_batches(&log, 0, 5);
	assert_int_equal(log.first_ns, ack_of(0, 0).time_ns);
	assert_int_equal(log.last_ns, ack_of(4, 4).time_ns);
	witness_log_free(&log);
	witness_log_free(&log); /* twice is fine */
	/* a restart appends: the same run goes on */
	send_batches(f->path, "oltp 2026-12-06T14:00:00Z", 5, 7);
	assert_int_equal(witness_load(f->path, &log, err, sizeof(err)), 0);
	assert_batches(&log, 0, 7);
	witness_log_free(&log);
}

/* The last batch cut at every byte, or any one of its bytes flipped: never
 * returned, the earlier ones are; the next sink cuts it off and appends. */
static void test_torn_tail(void **state)
{
	struct fixture *f = *state;
	char torn[320], err[256] = "";
	struct witness_log log;
	off_t s2, s3;

	snprintf(torn, sizeof(torn), "%s/torn", f->dir);
	send_batches(f->path, "run", 0, 2);
	s2 = file_size(f->path);
	send_batches(f->path, "run", 2, 3);
	s3 = file_size(f->path);
	assert_true(s3 > s2);
	for (off_t k = s2; k < 2 * s3 - s2; k++) {
		bool cut = k < s3;

		copy_prefix(f->path, torn, cut ? k : s3, cut ? -1 : k - s3 + s2);
		assert_int_equal(witness_load(torn, &log, err, sizeof(err)), 0);
		assert_batches(&log, 0, 2);
		witness_log_free(&log);
		if ((k - s2) % 8 && k != s2 + 1)
			continue; /* the append after a cut: every 8th byte */
		send_batches(torn, "run", 2, 3);
		assert_int_equal(file_size(torn), s3);
		assert_int_equal(witness_load(torn, &log, err, sizeof(err)), 0);
		assert_batches(&log, 0, 3);
		witness_log_free(&log);
	}
}

/* Damage followed by a valid batch is not a torn tail: refused. */
static void test_damage_before_valid(void **state)
{
	struct fixture *f = *state;
	char bad[320], err[256] = "";
	struct witness_log log;
	struct witness *w;
	off_t s1;

	snprintf(bad, sizeof(bad), "%s/bad", f->dir);
	send_batches(f->path, "run", 0, 1);
	s1 = file_size(f->path);
	send_batches(f->path, "run", 1, 3);
	copy_prefix(f->path, bad, file_size(f->path), s1 + 20);
	assert_int_equal(witness_load(bad, &log, err, sizeof(err)), -EBADMSG);
	assert_non_null(strstr(err, "valid batches after it"));
	assert_int_equal(witness_open(bad, "run", &w, err, sizeof(err)), -EBADMSG);
	assert_null(w);
	assert_int_equal(file_size(bad), file_size(f->path));
}

static void test_foreign_refused(void **state)
{
	struct fixture *f = *state;
	static const char text[] = "id,name\n1,a row of someone's data\n";
	char other[320], err[256] = "";
	struct witness_log log;
	struct witness *w;
	FILE *fp = fopen(f->path, "w");

	assert_non_null(fp);
	fputs(text, fp);
	assert_int_equal(fclose(fp), 0);
	assert_int_equal(witness_open(f->path, "run", &w, err, sizeof(err)), -EMEDIUMTYPE);
	assert_non_null(strstr(err, "not a diskproof witness file"));
	assert_int_equal(file_size(f->path), (off_t)strlen(text));
	assert_int_equal(witness_load(f->path, &log, err, sizeof(err)), -EMEDIUMTYPE);
	/* a FIFO, a symbolic link (even to a witness file), a directory */
	snprintf(other, sizeof(other), "%s/fifo", f->dir);
	assert_int_equal(mkfifo(other, 0600), 0);
	assert_int_equal(witness_open(other, "run", &w, err, sizeof(err)), -EMEDIUMTYPE);
	assert_non_null(strstr(err, "FIFO"));
	assert_int_equal(witness_load(other, &log, err, sizeof(err)), -EMEDIUMTYPE);
	unlink(f->path);
	send_batches(f->path, "run", 0, 1);
	snprintf(other, sizeof(other), "%s/link", f->dir);
	assert_int_equal(symlink(f->path, other), 0);
	assert_int_equal(witness_open(other, "run", &w, err, sizeof(err)), -EMEDIUMTYPE);
	assert_non_null(strstr(err, "symbolic link"));
	assert_int_equal(witness_open(f->dir, "run", &w, err, sizeof(err)), -EMEDIUMTYPE);
}

/* One sink per witness file; a second is told why. */
static void test_one_sink(void **state)
{
	struct fixture *f = *state;
	struct witness *w1, *w2;
	char err[256] = "";

	assert_int_equal(witness_open(f->path, "run", &w1, err, sizeof(err)), 0);
	assert_int_equal(witness_open(f->path, "run", &w2, err, sizeof(err)), -EWOULDBLOCK);
	assert_non_null(strstr(err, "another diskproof holds"));
	assert_int_equal(witness_close(w1), 0);
	assert_int_equal(witness_open(f->path, "run", &w2, err, sizeof(err)), 0);
	assert_int_equal(witness_close(w2), 0);
	/* a tag is 1 to WITNESS_TAG_MAX bytes */
	assert_int_equal(witness_open(f->path, "", &w1, err, sizeof(err)), -EINVAL);
}

static void test_spec(void **state)
{
	static const struct {
		const char *spec, *host, *port;
	} cases[] = {
		{"witness.example:7000", "witness.example", "7000"},
		{"10.0.0.2:1", "10.0.0.2", "1"},
		{"[::1]:65535", "::1", "65535"},
		{"[fe80::1%veth0]:7000", "fe80::1%veth0", "7000"},
		{"./host:7000", NULL, NULL},
		{"/mnt/other/witness:7000", NULL, NULL},
		{"witness", NULL, NULL},
		{"host:port", NULL, NULL},
		{"host:0", NULL, NULL},
		{"host:65536", NULL, NULL},
		{"host:-1", NULL, NULL},
		{"::1:7000", NULL, NULL},
		{":7000", NULL, NULL},
		{"host:", NULL, NULL},
	};
	char host[64], port[16];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bool tcp =
			witness_spec_is_tcp(cases[i].spec, host, sizeof(host), port, sizeof(port));

		print_message("%s\n", cases[i].spec);
		assert_int_equal(tcp, cases[i].host != NULL);
		if (tcp) {
			assert_string_equal(host, cases[i].host);
			assert_string_equal(port, cases[i].port);
		}
	}
}

static void test_two_runs(void **state)
{
	struct fixture *f = *state;
	struct witness_log log;
	char err[256] = "";

	send_batches(f->path, "series run 1", 0, 4);
	send_batches(f->path, "series run 2", 4, 6);
	assert_int_equal(witness_load(f->path, &log, err, sizeof(err)), 0);
	assert_string_equal(log.run_tag, "series run 2");
	assert_batches(&log, 4, 6);
	witness_log_free(&log);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_torn_tail, setup, teardown),
		cmocka_unit_test_setup_teardown(test_damage_before_valid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_foreign_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_two_runs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_one_sink, setup, teardown),
		cmocka_unit_test(test_spec),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
