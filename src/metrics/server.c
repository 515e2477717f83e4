/*
 * server.c - the /metrics HTTP server of --metrics: one thread, one
 * connection at a time, HTTP/1.0 and 1.1 answered with "Connection: close".
 * A scrape is a few requests a minute, so one connection at a time is
 * plenty, and deadlines on reading the request and sending the answer keep
 * a stuck client from holding the thread for long. The thread serves a copy
 * of the latest published text, taken under the mutex, and sends it with
 * the mutex released: the coordinator's publish never waits on a client.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "diskproof/metrics.h"

/* A request's head larger than this is refused (431): a scraper sends a few
 * hundred bytes. */
#define REQ_MAX 8192
#define READ_DEADLINE_NS (5 * NSEC_PER_SEC)
#define SEND_DEADLINE_NS (10 * NSEC_PER_SEC)

struct metrics_server {
	int lfd;
	int wake[2]; /* a pipe: a byte on it stops the thread */
	pthread_t thread;
	pthread_mutex_t mu;
	struct strbuf text; /* the latest published; under mu */
	bool have;	    /* a text was published; under mu */
	struct strbuf body; /* the thread's own: its copy, the answer */
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
	if (!*port || *end || port[0] == '-' || port[0] == '+' || errno || p < 1 || p > 65535) {
		strbuf_addstr(err, "the port must be a number from 1 to 65535 ([ADDR:]PORT)");
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

/* Waits for events on fd, or the stop byte, until deadline (time_mono_ns):
 * 1 ready, 0 timed out or stopping. */
static int wait_fd(struct metrics_server *s, int fd, short events, uint64_t deadline)
{
	struct pollfd pfd[2] = {{.fd = fd, .events = events}, {.fd = s->wake[0], .events = POLLIN}};

	for (;;) {
		uint64_t now = time_mono_ns();
		int n;

		if (now >= deadline)
			return 0;
		n = poll(pfd, 2, (int)((deadline - now) / NSEC_PER_MSEC) + 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || pfd[1].revents)
			return 0;
		return 1;
	}
}

/* Reads the request's head (up to the blank line) into req: its length, or
 * -1 when the client went away, was too slow or sent too much. */
static ssize_t read_request(struct metrics_server *s, int fd, char *req, size_t cap)
{
	uint64_t deadline = time_mono_ns() + READ_DEADLINE_NS;
	size_t len = 0;

	while (len < cap - 1) {
		ssize_t n;

		if (!wait_fd(s, fd, POLLIN, deadline))
			return -1;
		n = recv(fd, req + len, cap - 1 - len, 0);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return -1;
		len += (size_t)n;
		req[len] = '\0';
		if (strstr(req, "\r\n\r\n") || strstr(req, "\n\n"))
			return (ssize_t)len;
	}
	return (ssize_t)len; /* too long: answered 431 */
}

static void send_all(struct metrics_server *s, int fd, const char *p, size_t n)
{
	uint64_t deadline = time_mono_ns() + SEND_DEADLINE_NS;

	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN) {
			if (!wait_fd(s, fd, POLLOUT, deadline))
				return;
			continue;
		}
		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

/* The answer to one request, in s->body: status line, headers, body. */
static void answer(struct metrics_server *s, const char *req, size_t len)
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
	/* the answer goes out from body: swap the two */
	strbuf_release(&s->body);
	s->body = hdr;
}

static void serve(struct metrics_server *s, int fd)
{
	char req[REQ_MAX];
	ssize_t n = read_request(s, fd, req, sizeof(req));

	if (n < 0)
		return;
	answer(s, req, (size_t)n);
	send_all(s, fd, s->body.buf, s->body.len);
	shutdown(fd, SHUT_WR);
}

static void *server_thread(void *arg)
{
	struct metrics_server *s = arg;
	struct pollfd pfd[2] = {{.fd = s->lfd, .events = POLLIN},
				{.fd = s->wake[0], .events = POLLIN}};

	for (;;) {
		int n = poll(pfd, 2, -1), fd;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || pfd[1].revents)
			break;
		if (!(pfd[0].revents & POLLIN))
			continue;
		fd = accept4(s->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			continue; /* ECONNABORTED, EMFILE...: the next one may do */
		serve(s, fd);
		close(fd);
	}
	return NULL;
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
	strbuf_init(&s->text);
	strbuf_init(&s->body);
	s->lfd = socket(a->ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (s->lfd < 0)
		goto out_errno;
	setsockopt(s->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(s->lfd, (const struct sockaddr *)&a->ss, a->len) || listen(s->lfd, 16))
		goto out_errno;
	if (pipe2(s->wake, O_CLOEXEC | O_NONBLOCK))
		goto out_errno;
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
	if (s->wake[0] >= 0) {
		close(s->wake[0]);
		close(s->wake[1]);
	}
	strbuf_release(&s->text);
	strbuf_release(&s->body);
	free(s);
	return ret;
}

void metrics_server_publish(struct metrics_server *s, struct strbuf *text)
{
	struct strbuf t;

	if (!s)
		return;
	pthread_mutex_lock(&s->mu);
	t = s->text;
	s->text = *text;
	*text = t;
	s->have = true;
	pthread_mutex_unlock(&s->mu);
	strbuf_reset(text);
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
	close(s->wake[0]);
	close(s->wake[1]);
	strbuf_release(&s->text);
	strbuf_release(&s->body);
	free(s);
}
