/* SPDX-License-Identifier: MIT */
/*
 * server.c - the /metrics HTTP server of --metrics: one thread, HTTP/1.0
 * and 1.1 answered with "Connection: close". A scrape is a few requests a
 * minute, but a client that connects and sends nothing, or never reads its
 * answer, must not keep the scraper out: the thread polls up to MAX_CONNS
 * connections at once, each with deadlines on reading its request and
 * sending its answer, and takes every connection waiting as soon as it
 * polls (a burst of scrapes waits in a listen queue of the system's size,
 * never dropped by a short one). The thread serves a copy
 * of the latest published text, taken under the mutex, and sends it with
 * the mutex released: the coordinator's publish never waits on a client.
 *
 * The linger: once the run's final text is published, the first GET whose
 * client read it to its end writes a byte to a pipe, which
 * metrics_server_wait_scraped() polls (with the caller's signalfd), so the
 * command keeps serving after the run until Prometheus has the final state.
 * Handed to the kernel whole is not read: a Prometheus whose scrape timed
 * out (a loaded machine) closes with the answer unread, and its TSDB never
 * has the final text. So after the final text is sent the connection waits
 * for the client's close: a clean end (FIN) after the whole answer is a
 * client that read it; a reset is one that closed with it unread (Linux
 * resets a socket closed with data in its receive queue), and the linger
 * goes on to the next scrape. A clean close counts only once the client
 * has acknowledged the whole answer (nothing left in the send queue): over
 * a network, a scraper that timed out before the answer reached it closes
 * first, and its reset comes a round trip after its FIN, when the answer
 * arrives; until then the connection waits (eof), polled every EOF_POLL_MS.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/sockios.h>

#include "diskproof/metrics.h"

/* A request's head larger than this is refused (431): a scraper sends a few
 * hundred bytes. */
#define REQ_MAX 8192
#define READ_DEADLINE_NS (5 * NSEC_PER_SEC)
#define SEND_DEADLINE_NS (10 * NSEC_PER_SEC)
/* After the final text is sent: how long its client has to close. */
#define DRAIN_DEADLINE_NS (5 * NSEC_PER_SEC)
/* The client closed, the answer not yet acknowledged whole: how often the
 * connection is looked at again. */
#define EOF_POLL_MS 10
/* Connections served at once: scrapers, a curl or two, and room for
 * clients that hold a connection without using it. */
#define MAX_CONNS 32

struct metrics_server {
	int lfd;
	int wake[2]; /* a pipe: a byte on it stops the thread */
	pthread_t thread;
	pthread_mutex_t mu;
	struct strbuf text; /* the latest published; under mu */
	bool have;	    /* a text was published; under mu */
	bool final;	    /* that text is the run's final one; under mu */
	unsigned gen;	    /* final texts published (a series' runs); under mu */
	struct strbuf body; /* the thread's own: its copy, the answer */
	/* a pipe: the thread writes a byte each time a final text was sent
	 * whole; metrics_server_wait_scraped() polls the other end */
	int scraped[2];
	char url[112]; /* set before the thread starts, read-only after */
};

int metrics_addr_parse(const char *spec, struct metrics_addr *a, struct strbuf *err)
{
	char host[64];
	const char *port, *colon;
	unsigned long p;
	char *end;

	memset(a, 0, sizeof(*a));
	host[0] = '\0';
	if (spec[0] == '[') {
		const char *close = strchr(spec, ']');

		if (!close || close[1] != ':' || (size_t)(close - spec - 1) >= sizeof(host)) {
			strbuf_addstr(err, "an IPv6 address is written [ADDR]:PORT, as [::1]:9464");
			return -EINVAL;
		}
		snprintf(host, sizeof(host), "%.*s", (int)(close - spec - 1), spec + 1);
		port = close + 2;
	} else if ((colon = strrchr(spec, ':'))) {
		if (memchr(spec, ':', (size_t)(colon - spec))) {
			strbuf_addstr(err, "an IPv6 address is written in brackets, as [::1]:9464");
			return -EINVAL;
		}
		if ((size_t)(colon - spec) >= sizeof(host)) {
			strbuf_addstr(err, "the address is too long");
			return -EINVAL;
		}
		snprintf(host, sizeof(host), "%.*s", (int)(colon - spec), spec);
		port = colon + 1;
	} else {
		port = spec;
	}
	errno = 0;
	p = strtoul(port, &end, 10);
	if (!*port || *end || port[0] == '-' || port[0] == '+' || errno || p > 65535) {
		strbuf_addstr(err, "the port must be a number from 0 to 65535 ([ADDR:]PORT; 0: "
				   "any free port)");
		return -EINVAL;
	}
	if (spec[0] == '[') {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&a->ss;

		if (inet_pton(AF_INET6, host, &s6->sin6_addr) != 1) {
			strbuf_addf(err, "\"%s\" is not a numeric IPv6 address", host);
			return -EINVAL;
		}
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)p);
		a->len = sizeof(*s6);
		snprintf(a->text, sizeof(a->text), "[%s]:%lu", host, p);
		return 0;
	}
	struct sockaddr_in *s4 = (struct sockaddr_in *)&a->ss;

	if (!host[0] || !strcmp(host, "localhost"))
		snprintf(host, sizeof(host), "127.0.0.1"); /* loopback unless told otherwise */
	else if (!strcmp(host, "*"))
		snprintf(host, sizeof(host), "0.0.0.0");
	if (inet_pton(AF_INET, host, &s4->sin_addr) != 1) {
		strbuf_addf(err,
			    "\"%s\" is not a numeric IPv4 address (names are not looked up; "
			    "localhost, * for every interface, or [ADDR6] for IPv6)",
			    host);
		return -EINVAL;
	}
	s4->sin_family = AF_INET;
	s4->sin_port = htons((uint16_t)p);
	a->len = sizeof(*s4);
	snprintf(a->text, sizeof(a->text), "%s:%lu", host, p);
	return 0;
}

/* One connection: its request read, then its answer sent, each by its
 * deadline. */
struct conn {
	int fd; /* -1: a free slot */
	bool sending;
	bool draining; /* the final text sent: waiting for the client's close */
	bool eof;      /* draining, the client closed: waiting for its ACK */
	bool final;    /* the answer carries the final text (the linger) */
	unsigned gen;  /* which one (struct metrics_server's gen) */
	size_t len, off;
	uint64_t deadline;
	char req[REQ_MAX];
	struct strbuf out;
};

/* The answer to one request, in *out: status line, headers, body; *final
 * when it is a GET answered with the final text. */
static void answer(struct metrics_server *s, const char *req, size_t len, struct strbuf *out,
		   bool *final, unsigned *gen)
{
	char method[16], target[256];
	const char *status = "200 OK", *type = METRICS_CONTENT_TYPE, *msg = NULL;
	bool head = false;
	struct strbuf hdr = STRBUF_INIT;

	strbuf_reset(&s->body);
	if (len >= REQ_MAX - 1) {
		status = "431 Request Header Fields Too Large";
		msg = "request too large\n";
	} else if (sscanf(req, "%15s %255s HTTP/", method, target) != 2) {
		status = "400 Bad Request";
		msg = "bad request\n";
	} else if (strcmp(method, "GET") && !(head = !strcmp(method, "HEAD"))) {
		status = "405 Method Not Allowed";
		msg = "only GET and HEAD\n";
	} else {
		char *q = strchr(target, '?');

		if (q)
			*q = '\0';
		if (strcmp(target, "/metrics")) {
			status = "404 Not Found";
			msg = "not found: diskproof serves its metrics at /metrics\n";
		}
	}
	if (!msg) {
		pthread_mutex_lock(&s->mu);
		if (s->have)
			strbuf_add(&s->body, s->text.buf, s->text.len);
		*final = s->have && s->final && !head;
		*gen = s->gen;
		pthread_mutex_unlock(&s->mu);
		if (!s->body.len) {
			status = "503 Service Unavailable";
			msg = "the run has not published its metrics yet\n";
		}
	}
	if (msg) {
		type = "text/plain; charset=utf-8";
		strbuf_reset(&s->body);
		strbuf_addstr(&s->body, msg);
	}
	strbuf_addf(&hdr,
		    "HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
		    "Cache-Control: no-store\r\nConnection: close\r\n%s\r\n",
		    status, type, s->body.len,
		    !strncmp(status, "405", 3) ? "Allow: GET, HEAD\r\n" : "");
	if (!head)
		strbuf_add(&hdr, s->body.buf, s->body.len);
	strbuf_release(out);
	*out = hdr;
}

static void conn_close(struct conn *c)
{
	close(c->fd);
	c->fd = -1;
	strbuf_release(&c->out);
}

/* Reads what the client sent; once the head is complete (or too long), the
 * answer is made and the connection turns to sending it. */
static void conn_read(struct metrics_server *s, struct conn *c)
{
	ssize_t n = recv(c->fd, c->req + c->len, sizeof(c->req) - 1 - c->len, 0);

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		conn_close(c);
		return;
	}
	c->len += (size_t)n;
	c->req[c->len] = '\0';
	if (!strstr(c->req, "\r\n\r\n") && !strstr(c->req, "\n\n") && c->len < sizeof(c->req) - 1)
		return;
	c->final = false;
	answer(s, c->req, c->len, &c->out, &c->final, &c->gen);
	c->sending = true;
	c->off = 0;
	c->deadline = time_mono_ns() + SEND_DEADLINE_NS;
}

/* The client closed cleanly (draining): the scrape is read once the whole
 * answer is acknowledged; a reset (the answer came after the client's
 * close) is no read; neither yet, the connection waits (eof). */
static void conn_settle(struct metrics_server *s, struct conn *c)
{
	int e = 0, queued = 1;
	socklen_t len = sizeof(e);
	char one = 1;

	if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &e, &len) || e)
		goto out;
	if (ioctl(c->fd, SIOCOUTQ, &queued) || queued) {
		c->eof = true;
		return;
	}
	/* the final text still published (not a series' earlier run's); a
	 * full pipe already says so */
	pthread_mutex_lock(&s->mu);
	if (s->final && s->gen == c->gen && write(s->scraped[1], &one, 1) < 0 && errno != EAGAIN)
		c->final = false;
	pthread_mutex_unlock(&s->mu);
out:
	conn_close(c);
}

/* The final text sent: what the client sends now is dropped; its clean
 * close is the scrape that ends the linger once its client has the whole
 * answer (conn_settle), a reset or an error is not. */
static void conn_drain(struct metrics_server *s, struct conn *c)
{
	char buf[512];
	ssize_t n = recv(c->fd, buf, sizeof(buf), 0);

	if (n > 0 || (n < 0 && (errno == EINTR || errno == EAGAIN)))
		return;
	/* an end after a reset is no read: a client that closed before the
	 * answer came had it refused by its kernel (a reset after its FIN,
	 * which recv reports first) */
	if (n == 0)
		conn_settle(s, c);
	else
		conn_close(c);
}

static void conn_send(struct conn *c)
{
	ssize_t w = send(c->fd, c->out.buf + c->off, c->out.len - c->off, MSG_NOSIGNAL);

	if (w < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (w > 0)
		c->off += (size_t)w;
	if (w > 0 && c->off < c->out.len)
		return;
	shutdown(c->fd, SHUT_WR);
	if (w > 0 && c->final) {
		/* handed to the kernel whole: read only once the client closes */
		c->sending = false;
		c->draining = true;
		c->deadline = time_mono_ns() + DRAIN_DEADLINE_NS;
		return;
	}
	conn_close(c);
}

/*
 * Every connection waiting in the listen queue, into the free slots, until
 * accept says there is none (EAGAIN) or the slots are full: one accept per
 * poll would leave a burst of scrapes waiting a round each, and a queue that
 * overflows drops the newest, whose clients retry only a second later.
 */
static void accept_all(struct metrics_server *s, struct conn *c)
{
	size_t i = 0;

	for (;;) {
		while (i < MAX_CONNS && c[i].fd >= 0)
			i++;
		if (i == MAX_CONNS)
			return; /* the rest wait in the queue for a slot */
		int fd = accept4(s->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0 && (errno == EINTR || errno == ECONNABORTED))
			continue; /* a client gone before it was accepted */
		if (fd < 0)
			return; /* EAGAIN: none left; EMFILE...: the next poll may do */
		c[i] = (struct conn){.fd = fd, .deadline = time_mono_ns() + READ_DEADLINE_NS};
		strbuf_init(&c[i].out);
	}
}

/*
 * Up to MAX_CONNS connections at once, each read and answered as it is
 * ready (poll), so a client that sends nothing or reads nothing holds only
 * its own slot until its deadline, never the others; when every slot is
 * taken, new connections wait in the listen queue.
 */
static void *server_thread(void *arg)
{
	struct metrics_server *s = arg;
	struct conn *c = calloc(MAX_CONNS, sizeof(*c));
	struct pollfd pfd[MAX_CONNS + 2];

	for (size_t i = 0; c && i < MAX_CONNS; i++)
		c[i].fd = -1;
	while (c) {
		uint64_t now = time_mono_ns(), next = UINT64_MAX;
		size_t nfd = 2, slot[MAX_CONNS], nfree = 0;
		int n, timeout = -1;

		for (size_t i = 0; i < MAX_CONNS; i++) {
			if (c[i].fd >= 0 && now >= c[i].deadline)
				conn_close(&c[i]); /* too slow */
			/* closed by its client: not polled (always readable) */
			if (c[i].fd >= 0 && c[i].eof)
				conn_settle(s, &c[i]);
			if (c[i].fd < 0) {
				nfree++;
				continue;
			}
			if (c[i].deadline < next)
				next = c[i].deadline;
			if (c[i].eof) {
				if (now + EOF_POLL_MS * NSEC_PER_MSEC < next)
					next = now + EOF_POLL_MS * NSEC_PER_MSEC;
				continue;
			}
			/* reading a request or waiting for a close: POLLIN */
			pfd[nfd] = (struct pollfd){.fd = c[i].fd,
						   .events = c[i].sending ? POLLOUT : POLLIN};
			slot[nfd - 2] = i;
			nfd++;
		}
		pfd[0] = (struct pollfd){.fd = s->wake[0], .events = POLLIN};
		/* a full table leaves new connections in the listen queue */
		pfd[1] = (struct pollfd){.fd = nfree ? s->lfd : -1, .events = POLLIN};
		if (next != UINT64_MAX)
			timeout = (int)((next - now) / NSEC_PER_MSEC) + 1;
		n = poll(pfd, nfd, timeout);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || pfd[0].revents)
			break;
		for (size_t k = 2; k < nfd; k++) {
			struct conn *cc = &c[slot[k - 2]];

			if (!pfd[k].revents)
				continue;
			if (cc->sending)
				conn_send(cc);
			else if (cc->draining)
				conn_drain(s, cc);
			else
				conn_read(s, cc);
		}
		if (pfd[1].revents & POLLIN)
			accept_all(s, c);
	}
	for (size_t i = 0; c && i < MAX_CONNS; i++)
		if (c[i].fd >= 0)
			conn_close(&c[i]);
	free(c);
	return NULL;
}

/* s->url from the address bound: the port the system chose for port 0. */
static void server_url(struct metrics_server *s)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char host[INET6_ADDRSTRLEN] = "?";
	unsigned port = 0;

	if (getsockname(s->lfd, (struct sockaddr *)&ss, &len) == 0 && ss.ss_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)&ss;

		inet_ntop(AF_INET6, &s6->sin6_addr, host, sizeof(host));
		port = ntohs(s6->sin6_port);
		snprintf(s->url, sizeof(s->url), "http://[%s]:%u/metrics", host, port);
		return;
	}
	if (ss.ss_family == AF_INET) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)&ss;

		inet_ntop(AF_INET, &s4->sin_addr, host, sizeof(host));
		port = ntohs(s4->sin_port);
	}
	snprintf(s->url, sizeof(s->url), "http://%s:%u/metrics", host, port);
}

int metrics_server_start(struct metrics_server **out, const struct metrics_addr *a,
			 struct strbuf *err)
{
	struct metrics_server *s = calloc(1, sizeof(*s));
	int one = 1, ret;
	sigset_t all, old;

	*out = NULL;
	if (!s) {
		strbuf_addstr(err, "out of memory");
		return -ENOMEM;
	}
	s->wake[0] = s->wake[1] = -1;
	s->scraped[0] = s->scraped[1] = -1;
	strbuf_init(&s->text);
	strbuf_init(&s->body);
	s->lfd = socket(a->ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (s->lfd < 0)
		goto out_errno;
	setsockopt(s->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* the system's backlog (net.core.somaxconn caps it): a burst of scrapes
	 * waits in the queue rather than being dropped */
	if (bind(s->lfd, (const struct sockaddr *)&a->ss, a->len) || listen(s->lfd, SOMAXCONN))
		goto out_errno;
	if (pipe2(s->wake, O_CLOEXEC | O_NONBLOCK) || pipe2(s->scraped, O_CLOEXEC | O_NONBLOCK))
		goto out_errno;
	server_url(s);
	pthread_mutex_init(&s->mu, NULL);
	/* the coordinator reads SIGINT and SIGTERM through its signalfd: none
	 * may land on this thread */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	ret = pthread_create(&s->thread, NULL, server_thread, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		pthread_mutex_destroy(&s->mu);
		errno = ret;
		goto out_errno;
	}
	*out = s;
	return 0;

out_errno:
	ret = -errno;
	if (ret == -EADDRINUSE)
		strbuf_addf(err, "--metrics %s: the port is in use (another program listens on it)",
			    a->text);
	else
		strbuf_addf(err, "--metrics %s: cannot listen: %s", a->text, strerror(-ret));
	if (s->lfd >= 0)
		close(s->lfd);
	for (int i = 0; i < 2; i++) {
		if (s->wake[i] >= 0)
			close(s->wake[i]);
		if (s->scraped[i] >= 0)
			close(s->scraped[i]);
	}
	strbuf_release(&s->text);
	strbuf_release(&s->body);
	free(s);
	return ret;
}

const char *metrics_server_url(const struct metrics_server *s)
{
	return s->url;
}

/* Publishes text, the final one or not: a final publish first empties the
 * scraped pipe and counts a new generation, so that only a scrape of this
 * text ends the linger (a series' earlier run's final scrape, even one
 * whose client closes only now, does not). */
static void publish(struct metrics_server *s, struct strbuf *text, bool final)
{
	struct strbuf t;
	char buf[64];

	if (!s)
		return;
	pthread_mutex_lock(&s->mu);
	if (final) {
		while (read(s->scraped[0], buf, sizeof(buf)) > 0)
			;
		s->gen++;
	}
	t = s->text;
	s->text = *text;
	*text = t;
	s->have = true;
	s->final = final;
	pthread_mutex_unlock(&s->mu);
	strbuf_reset(text);
}

void metrics_server_publish(struct metrics_server *s, struct strbuf *text)
{
	publish(s, text, false);
}

void metrics_server_publish_final(struct metrics_server *s, struct strbuf *text)
{
	publish(s, text, true);
}

bool metrics_server_finished(struct metrics_server *s)
{
	bool f;

	if (!s)
		return false;
	pthread_mutex_lock(&s->mu);
	f = s->have && s->final;
	pthread_mutex_unlock(&s->mu);
	return f;
}

int metrics_server_wait_scraped(struct metrics_server *s, uint64_t timeout_ns, int stop_fd)
{
	uint64_t end = time_mono_ns() + timeout_ns;

	if (!metrics_server_finished(s))
		return -ENOENT;
	for (;;) {
		struct pollfd p[2] = {{.fd = s->scraped[0], .events = POLLIN},
				      {.fd = stop_fd, .events = POLLIN}};
		uint64_t now = time_mono_ns(), ms;
		int n;

		if (now >= end)
			return -ETIMEDOUT;
		ms = (end - now + NSEC_PER_MSEC - 1) / NSEC_PER_MSEC;
		n = poll(p, 2, ms > INT_MAX ? INT_MAX : (int)ms);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (p[0].revents)
			return 0;
		if (p[1].revents)
			return -EINTR;
	}
}

void metrics_server_stop(struct metrics_server *s)
{
	char c = 1;

	if (!s)
		return;
	while (write(s->wake[1], &c, 1) < 0 && errno == EINTR)
		;
	pthread_join(s->thread, NULL);
	pthread_mutex_destroy(&s->mu);
	close(s->lfd);
	for (int i = 0; i < 2; i++) {
		close(s->wake[i]);
		close(s->scraped[i]);
	}
	strbuf_release(&s->text);
	strbuf_release(&s->body);
	free(s);
}
