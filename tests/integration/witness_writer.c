/* SPDX-License-Identifier: MIT */
/*
 * witness_writer.c - a durability run's side of the witness, for
 * test_witness_tcp.sh (not installed):
 *   witness_writer send SPEC TAG FROM TO [--partial]
 *     sends batches FROM..TO-1 through the witness API (batch b: b % 5 + 1
 *     acknowledgements, db b % 3, pages 100 b + i, generation b + 1),
 *     printing "acked B" once each was answered; with --partial it then
 *     sends the first half of batch TO on the same connection, prints
 *     "partial B" and waits to be killed (a writer killed mid-batch);
 *   witness_writer load SPEC
 *     prints what witness_load returns: "tag TAG", "batches N", "acks N",
 *     then "DB PAGE GENERATION" for each acknowledgement.
 * Exit 0, or 1 with the API's message on stderr.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "diskproof/witness.h"
#include "../../src/witness/witness_internal.h"

static size_t batch_of(uint32_t b, struct witness_ack *a)
{
	struct timespec ts;
	size_t n = b % 5 + 1;

	clock_gettime(CLOCK_REALTIME, &ts);
	for (size_t i = 0; i < n; i++)
		a[i] = (struct witness_ack){
			.db = b % 3,
			.page = 100ull * b + i,
			.generation = b + 1,
			.time_ns = ts.tv_sec * 1000000000LL + ts.tv_nsec,
		};
	return n;
}

/* Half of batch b on the connection fd, then a wait for the kill. */
static int send_partial(int fd, const char *tag, uint32_t b)
{
	struct witness_ack a[8];
	unsigned char *frame;
	size_t n = batch_of(b, a), len;

	if (witness_frame_encode(WITNESS_FRAME_MAGIC, tag, strlen(tag), a, n, &frame, &len))
		return 1;
	if (send(fd, frame, len / 2, MSG_NOSIGNAL) != (ssize_t)(len / 2))
		return 1;
	printf("partial %u\n", b);
	fflush(stdout);
	for (;;)
		pause();
}

static int cmd_send(const char *spec, const char *tag, uint32_t from, uint32_t to, bool partial)
{
	char host[256], port[16], err[512];
	struct witness_ack a[8];
	struct witness *w = NULL;
	int fd = -1;

	/* the partial batch goes on the writer's own connection: the API's
	 * is private, so the test's writer keeps one of its own */
	if (partial && witness_spec_is_tcp(spec, host, sizeof(host), port, sizeof(port))) {
		if (witness_tcp_connect(host, port, &fd, err, sizeof(err)))
			goto out_err;
	} else if (witness_open(spec, tag, &w, err, sizeof(err))) {
		goto out_err;
	}
	for (uint32_t b = from; b < to; b++) {
		size_t n = batch_of(b, a);
		unsigned char *frame;
		size_t len;
		int rc;

		if (w) {
			rc = witness_send(w, a, n, err, sizeof(err));
		} else {
			rc = witness_frame_encode(WITNESS_FRAME_MAGIC, tag, strlen(tag), a, n,
						  &frame, &len);
			if (!rc)
				rc = witness_tcp_send(fd, spec, b - from + 1, frame, len, err,
						      sizeof(err));
			free(frame);
		}
		if (rc)
			goto out_err;
		printf("acked %u\n", b);
		fflush(stdout);
	}
	if (partial)
		return send_partial(fd, tag, to);
	return witness_close(w) ? 1 : 0;
out_err:
	fprintf(stderr, "witness_writer: %s\n", err);
	return 1;
}

static int cmd_load(const char *spec)
{
	struct witness_log log;
	char err[512];

	if (witness_load(spec, &log, err, sizeof(err))) {
		fprintf(stderr, "witness_writer: %s\n", err);
		return 1;
	}
	printf("tag %s\nbatches %llu\nacks %zu\n", log.run_tag, (unsigned long long)log.batches,
	       log.n);
	for (size_t i = 0; i < log.n; i++)
		printf("%u %llu %llu\n", log.acks[i].db, (unsigned long long)log.acks[i].page,
		       (unsigned long long)log.acks[i].generation);
	witness_log_free(&log);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 6 && !strcmp(argv[1], "send"))
		return cmd_send(argv[2], argv[3], (uint32_t)atoi(argv[4]), (uint32_t)atoi(argv[5]),
				argc > 6 && !strcmp(argv[6], "--partial"));
	if (argc == 3 && !strcmp(argv[1], "load"))
		return cmd_load(argv[2]);
	fprintf(stderr, "usage: witness_writer send SPEC TAG FROM TO [--partial] | load SPEC\n");
	return 2;
}
