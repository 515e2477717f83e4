/* SPDX-License-Identifier: MIT */
/*
 * tcp.c - the witness's TCP client: a connection to `diskproof witness
 * --listen` (IPv4 or IPv6, getaddrinfo), a batch sent and its answer awaited
 * (at most WITNESS_TIMEOUT_MS: a run stops rather than go on without its
 * witness), the witness file fetched for witness_load.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "diskproof/page.h"
#include "witness_internal.h"

/* Connects to one address, waiting at most WITNESS_TIMEOUT_MS. */
static int connect_one(const struct addrinfo *ai)
{
	struct pollfd pf;
	socklen_t sl = sizeof(int);
	int fd, e = 0;

	fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
		if (errno != EINPROGRESS) {
			e = errno;
			goto out_close;
		}
		pf = (struct pollfd){.fd = fd, .events = POLLOUT};
		if (poll(&pf, 1, WITNESS_TIMEOUT_MS) <= 0) {
			e = ETIMEDOUT;
			goto out_close;
		}
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &sl) != 0)
			e = errno;
		if (e)
			goto out_close;
	}
	return fd;
out_close:
	close(fd);
	return -e;
}

int witness_tcp_connect(const char *host, const char *port, int *fd, char *err, size_t errlen)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res, *ai;
	int rc = getaddrinfo(host, port, &hints, &res);

	*fd = -1;
	if (rc)
		return witness_err(err, errlen, -EHOSTUNREACH, "witness %s:%s: %s", host, port,
				   gai_strerror(rc));
	rc = -EHOSTUNREACH;
	for (ai = res; ai && rc < 0; ai = ai->ai_next)
		rc = connect_one(ai);
	freeaddrinfo(res);
	if (rc < 0)
		return witness_err(err, errlen, rc, "witness %s:%s: cannot connect: %s", host, port,
				   strerror(-rc));
	*fd = rc;
	return 0;
}

/* Sends or receives exactly len bytes, each wait at most WITNESS_TIMEOUT_MS. */
static int xfer_all(int fd, void *p, size_t len, bool out)
{
	struct pollfd pf = {.fd = fd, .events = out ? POLLOUT : POLLIN};
	unsigned char *q = p;
	ssize_t r;

	while (len) {
		r = out ? send(fd, q, len, MSG_NOSIGNAL | MSG_DONTWAIT)
			: recv(fd, q, len, MSG_DONTWAIT);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EAGAIN) {
			int k = poll(&pf, 1, WITNESS_TIMEOUT_MS);

			if (k == 0)
				return -ETIMEDOUT;
			if (k < 0 && errno != EINTR)
				return -errno;
			continue;
		}
		if (r < 0)
			return -errno;
		if (r == 0)
			return -ECONNRESET;
		q += r;
		len -= (size_t)r;
	}
	return 0;
}

int witness_tcp_send(int fd, const char *spec, uint64_t seq, const unsigned char *frame, size_t len,
		     char *err, size_t errlen)
{
	unsigned char a[WITNESS_ACK_SIZE];
	int rc = xfer_all(fd, (void *)frame, len, true);

	if (rc)
		return witness_err(err, errlen, rc, "witness %s: sending batch %llu: %s", spec,
				   (unsigned long long)seq, strerror(-rc));
	rc = xfer_all(fd, a, sizeof(a), false);
	if (rc == -ETIMEDOUT)
		return witness_err(err, errlen, rc,
				   "witness %s: no answer to batch %llu within %d s; the run "
				   "cannot go on without its witness",
				   spec, (unsigned long long)seq, WITNESS_TIMEOUT_MS / 1000);
	if (rc)
		return witness_err(err, errlen, rc,
				   "witness %s: awaiting its answer to batch "
				   "%llu: %s",
				   spec, (unsigned long long)seq, strerror(-rc));
	if (witness_get32(a) != WITNESS_ACK_MAGIC ||
	    witness_get32(a + 16) != page_crc32c(0, a, 16) || witness_get64(a + 8) != seq)
		return witness_err(err, errlen, -EPROTO,
				   "witness %s: a wrong answer to batch %llu (not a diskproof "
				   "witness?)",
				   spec, (unsigned long long)seq);
	if (witness_get32(a + 4))
		return witness_err(err, errlen, -(int)witness_get32(a + 4),
				   "witness %s: could not make batch %llu durable: %s", spec,
				   (unsigned long long)seq, strerror((int)witness_get32(a + 4)));
	return 0;
}

static int dump_read(int fd, const char *spec, unsigned char **buf, size_t *len, char *err,
		     size_t errlen)
{
	unsigned char head[WITNESS_DUMPED_HEAD];
	uint64_t n;
	int rc = xfer_all(fd, head, sizeof(head), false);

	if (rc)
		return witness_err(err, errlen, rc, "witness %s: awaiting its records: %s", spec,
				   strerror(-rc));
	if (witness_get32(head) != WITNESS_DUMPED_MAGIC)
		return witness_err(err, errlen, -EPROTO,
				   "witness %s: a wrong answer (not a diskproof witness?)", spec);
	if (witness_get32(head + 4))
		return witness_err(err, errlen, -(int)witness_get32(head + 4),
				   "witness %s: cannot read its file: %s", spec,
				   strerror((int)witness_get32(head + 4)));
	n = witness_get64(head + 8);
	*buf = malloc(n ? n : 1);
	if (!*buf)
		return witness_err(err, errlen, -ENOMEM,
				   "witness %s: out of memory for %llu "
				   "bytes",
				   spec, (unsigned long long)n);
	rc = xfer_all(fd, *buf, n, false);
	if (rc) {
		free(*buf);
		*buf = NULL;
		return witness_err(err, errlen, rc, "witness %s: reading its records: %s", spec,
				   strerror(-rc));
	}
	*len = n;
	return 0;
}

int witness_tcp_dump(const char *spec, const char *host, const char *port, unsigned char **buf,
		     size_t *len, char *err, size_t errlen)
{
	unsigned char *req;
	size_t rl;
	int fd, rc = witness_tcp_connect(host, port, &fd, err, errlen);

	if (rc)
		return rc;
	rc = witness_frame_encode(WITNESS_DUMP_MAGIC, "", 0, NULL, 0, &req, &rl);
	if (rc) {
		close(fd);
		return witness_err(err, errlen, rc, "witness %s: out of memory", spec);
	}
	rc = xfer_all(fd, req, rl, true);
	free(req);
	if (rc)
		witness_err(err, errlen, rc, "witness %s: asking for its records: %s", spec,
			    strerror(-rc));
	else
		rc = dump_read(fd, spec, buf, len, err, errlen);
	close(fd);
	return rc;
}
