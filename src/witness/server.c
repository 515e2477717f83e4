/* SPDX-License-Identifier: MIT */
/*
 * server.c - the listening witness (`diskproof witness --listen`): a poll
 * loop over several writers, each batch checked whole (CRC32C) before it is
 * appended to the witness file with the file sink's code and answered only
 * after fdatasync; a partial batch at a writer's end discarded, a client that
 * is not a writer dropped, a dump request answered with the file.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "diskproof/page.h"
#include "witness_internal.h"

#define SERVER_CLIENTS 64

struct client {
	int fd;
	uint64_t id;
	uint64_t seq; /* batches answered */
	char peer[96];
	unsigned char *buf;
	size_t len, cap;
};

struct server {
	int lfd, wfd; /* the listener, the witness file */
	const char *path;
	uint64_t end;
	struct client c[SERVER_CLIENTS];
	size_t n;
	uint64_t next_id;
	witness_say_fn say;
	void *arg;
	struct witness_server_stats *st;
	char name[96]; /* the address listened at */
};

static void say(struct server *s, const char *fmt, ...) DP_PRINTF(2, 3);
static void say(struct server *s, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (s->say)
		s->say(s->arg, line);
}

static void addr_name(const struct sockaddr *sa, socklen_t len, char *out, size_t outlen)
{
	char h[64], p[16];

	if (getnameinfo(sa, len, h, sizeof(h), p, sizeof(p), NI_NUMERICHOST | NI_NUMERICSERV))
		snprintf(out, outlen, "?");
	else if (sa->sa_family == AF_INET6)
		snprintf(out, outlen, "[%s]:%s", h, p);
	else
		snprintf(out, outlen, "%s:%s", h, p);
}

static int listen_on(struct server *s, const char *spec, char *err, size_t errlen)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE}, *res, *ai;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char host[256], port[16];
	int one = 1, rc, e = 0;

	if (!witness_spec_is_tcp(spec, host, sizeof(host), port, sizeof(port)))
		return witness_err(err, errlen, -EINVAL,
				   "--listen %s: not ADDR:PORT (0.0.0.0:7000, [::]:7000)", spec);
	rc = getaddrinfo(host, port, &hints, &res);
	if (rc)
		return witness_err(err, errlen, -EINVAL, "--listen %s: %s", spec, gai_strerror(rc));
	s->lfd = -1;
	for (ai = res; ai && s->lfd < 0; ai = ai->ai_next) {
		s->lfd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (s->lfd < 0) {
			e = errno;
			continue;
		}
		setsockopt(s->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(s->lfd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(s->lfd, 16) == 0)
			break;
		e = errno;
		close(s->lfd);
		s->lfd = -1;
	}
	freeaddrinfo(res);
	if (s->lfd < 0)
		return witness_err(err, errlen, -e, "--listen %s: %s", spec, strerror(e));
	if (getsockname(s->lfd, (struct sockaddr *)&ss, &sl) == 0) {
		addr_name((struct sockaddr *)&ss, sl, s->name, sizeof(s->name));
	}
	return 0;
}

static void client_close(struct server *s, size_t i)
{
	close(s->c[i].fd);
	free(s->c[i].buf);
	s->c[i] = s->c[--s->n];
}

static void accept_all(struct server *s)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	struct client *c;
	int fd;

	for (;;) {
		sl = sizeof(ss);
		fd = accept4(s->lfd, (struct sockaddr *)&ss, &sl, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0)
			return;
		s->st->connections++;
		if (s->n == SERVER_CLIENTS) {
			say(s, "witness: connection refused: %u writers at once already",
			    SERVER_CLIENTS);
			close(fd);
			continue;
		}
		c = &s->c[s->n++];
		*c = (struct client){.fd = fd, .id = ++s->next_id};
		addr_name((struct sockaddr *)&ss, sl, c->peer, sizeof(c->peer));
		say(s, "witness: connection %llu from %s", (unsigned long long)c->id, c->peer);
	}
}

/* Sends all of len bytes, waiting at most WITNESS_TIMEOUT_MS for room. */
static int send_all(int fd, const void *p, size_t len)
{
	const unsigned char *q = p;
	struct pollfd pf = {.fd = fd, .events = POLLOUT};
	ssize_t w;

	while (len) {
		w = send(fd, q, len, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN) {
			if (poll(&pf, 1, WITNESS_TIMEOUT_MS) <= 0)
				return -ETIMEDOUT;
			continue;
		}
		if (w < 0)
			return -errno;
		q += w;
		len -= (size_t)w;
	}
	return 0;
}

static int reply(struct client *c, uint32_t status, uint64_t seq)
{
	unsigned char a[WITNESS_ACK_SIZE];

	witness_put32(a, WITNESS_ACK_MAGIC);
	witness_put32(a + 4, status);
	witness_put64(a + 8, seq);
	witness_put32(a + 16, page_crc32c(0, a, 16));
	return send_all(c->fd, a, sizeof(a));
}

static int dump(struct server *s, struct client *c)
{
	unsigned char head[WITNESS_DUMPED_HEAD], *buf = NULL;
	size_t len;
	int rc = witness_file_slurp(s->wfd, &buf, &len);

	witness_put32(head, WITNESS_DUMPED_MAGIC);
	witness_put32(head + 4, rc ? (uint32_t)-rc : 0);
	witness_put64(head + 8, rc ? 0 : len);
	if (send_all(c->fd, head, sizeof(head)) == 0 && !rc)
		rc = send_all(c->fd, buf, len);
	if (!rc) {
		s->st->dumps++;
		say(s, "witness: connection %llu: sent the witness file (%zu bytes)",
		    (unsigned long long)c->id, len);
	}
	free(buf);
	return rc;
}

/* What a wrong client sent first, printable. */
static void first_bytes(const struct client *c, char *out, size_t outlen)
{
	size_t k = 0;

	for (size_t i = 0; i < c->len && i < 16 && k + 1 < outlen; i++)
		out[k++] = c->buf[i] >= 0x20 && c->buf[i] < 0x7f ? (char)c->buf[i] : '.';
	out[k] = '\0';
}

/* The whole frames in c's buffer: each batch appended and answered.
 * Returns 1 to keep the connection, 0 to close it, -errno when the witness
 * file failed (the witness stops). */
static int client_frames(struct server *s, struct client *c, char *err, size_t errlen)
{
	size_t fl;
	char what[20];
	int rc;

	while (c->len) {
		if (witness_frame_check(c->buf, c->len, WITNESS_DUMP_MAGIC, &fl) == 1) {
			(void)dump(s, c); /* the reader sees a failure as a short file */
			return 0;
		}
		rc = witness_frame_check(c->buf, c->len, WITNESS_FRAME_MAGIC, &fl);
		if (rc == 0 ||
		    (rc < 0 && witness_frame_check(c->buf, c->len, WITNESS_DUMP_MAGIC, &fl) == 0))
			return 1; /* a batch's or a dump request's beginning */
		if (rc < 0) {
			first_bytes(c, what, sizeof(what));
			s->st->dropped++;
			say(s,
			    "witness: connection %llu from %s dropped: not a witness writer "
			    "(it sent \"%s\")",
			    (unsigned long long)c->id, c->peer, what);
			return 0;
		}
		rc = witness_file_append(s->wfd, s->path, &s->end, c->buf, fl, err, errlen);
		if (rc) {
			(void)reply(c, (uint32_t)-rc, c->seq + 1);
			return rc;
		}
		c->seq++;
		s->st->batches++;
		s->st->records += witness_get32(c->buf + 4);
		if (reply(c, 0, c->seq) != 0)
			return 0;
		memmove(c->buf, c->buf + fl, c->len - fl);
		c->len -= fl;
	}
	return 1;
}

/* Reads what c sent. Returns as client_frames. */
static int client_read(struct server *s, struct client *c, char *err, size_t errlen)
{
	ssize_t r;
	unsigned char *nb;

	if (c->cap - c->len < 4096) {
		size_t cap = c->cap ? c->cap * 2 : 65536;

		if (cap > 2 * witness_frame_size(WITNESS_BATCH_MAX, WITNESS_TAG_MAX))
			return 0; /* frame_check bounds a frame: cannot happen */
		nb = realloc(c->buf, cap);
		if (!nb)
			return 0;
		c->buf = nb;
		c->cap = cap;
	}
	r = recv(c->fd, c->buf + c->len, c->cap - c->len, MSG_DONTWAIT);
	if (r < 0 && (errno == EAGAIN || errno == EINTR))
		return 1;
	if (r <= 0) {
		if (c->len) {
			s->st->partial++;
			say(s,
			    "witness: connection %llu closed mid-batch: %zu bytes of an "
			    "unacknowledged batch discarded",
			    (unsigned long long)c->id, c->len);
		}
		say(s, "witness: connection %llu from %s closed after %llu batches",
		    (unsigned long long)c->id, c->peer, (unsigned long long)c->seq);
		return 0;
	}
	c->len += (size_t)r;
	return client_frames(s, c, err, errlen);
}

static int serve_loop(struct server *s, int stop_fd, char *err, size_t errlen)
{
	struct pollfd pf[SERVER_CLIENTS + 2];
	size_t n, i;
	int rc;

	for (;;) {
		pf[0] = (struct pollfd){.fd = stop_fd, .events = POLLIN};
		pf[1] = (struct pollfd){.fd = s->lfd, .events = POLLIN};
		for (i = 0; i < s->n; i++)
			pf[2 + i] = (struct pollfd){.fd = s->c[i].fd, .events = POLLIN};
		n = s->n;
		if (poll(pf, n + 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return witness_err(err, errlen, -errno, "witness: poll: %s",
					   strerror(errno));
		}
		if (pf[0].revents)
			return 0;
		/* from the last: client_close moves the last client into i */
		for (i = n; i-- > 0;) {
			if (!pf[2 + i].revents)
				continue;
			rc = client_read(s, &s->c[i], err, errlen);
			if (rc < 0)
				return rc;
			if (rc == 0)
				client_close(s, i);
		}
		if (pf[1].revents)
			accept_all(s);
	}
}

int witness_serve(const char *listen, const char *path, int stop_fd, witness_say_fn say_fn,
		  void *arg, struct witness_server_stats *st, char *err, size_t errlen)
{
	struct server *s = calloc(1, sizeof(*s));
	int rc;

	if (!s)
		return witness_err(err, errlen, -ENOMEM, "witness: out of memory");
	memset(st, 0, sizeof(*st));
	*s = (struct server){.lfd = -1, .path = path, .say = say_fn, .arg = arg, .st = st};
	/* the address first: a wrong --listen creates no file */
	rc = listen_on(s, listen, err, errlen);
	if (rc)
		goto out_free;
	s->wfd = witness_file_open(path, &s->end, err, errlen);
	if (s->wfd < 0) {
		rc = s->wfd;
		goto out_close;
	}
	say(s, "witness: listening on %s, recording to %s (%llu bytes there)", s->name, path,
	    (unsigned long long)s->end);
	rc = serve_loop(s, stop_fd, err, errlen);
	while (s->n)
		client_close(s, s->n - 1);
	close(s->wfd);
out_close:
	close(s->lfd);
out_free:
	free(s);
	return rc;
}
