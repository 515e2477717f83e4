/* SPDX-License-Identifier: MIT */
/*
 * test_metrics.c - the pieces of the Prometheus text (metrics.h): --metrics
 * [ADDR:]PORT parsing (loopback by default, IPv6 in brackets, every bad
 * form refused), label and HELP escaping, the histogram's cumulative buckets
 * against a brute-force count, the bounds being bucket edges at most 10 %
 * apart, the atomic textfile write, and the server's linger: the URL with
 * the port bound, the wait for a scrape of the final text.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <poll.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <cmocka.h>

#include "diskproof/metrics.h"

static void addr_ok(const char *spec, int family, const char *text)
{
	struct strbuf err = STRBUF_INIT;
	struct metrics_addr a;

	assert_int_equal(metrics_addr_parse(spec, &a, &err), 0);
	assert_int_equal(a.ss.ss_family, family);
	assert_string_equal(a.text, text);
	strbuf_release(&err);
}

static void addr_bad(const char *spec, const char *why)
{
	struct strbuf err = STRBUF_INIT;
	struct metrics_addr a;

	assert_int_equal(metrics_addr_parse(spec, &a, &err), -EINVAL);
	if (!strstr(err.buf, why))
		fail_msg("%s: \"%s\" does not say \"%s\"", spec, err.buf, why);
	strbuf_release(&err);
}

static void test_addr_parse(void **state)
{
	(void)state;
	addr_ok("9464", AF_INET, "127.0.0.1:9464");
	addr_ok(":9464", AF_INET, "127.0.0.1:9464");
	addr_ok("localhost:1", AF_INET, "127.0.0.1:1");
	addr_ok("0.0.0.0:65535", AF_INET, "0.0.0.0:65535");
	addr_ok("*:80", AF_INET, "0.0.0.0:80");
	addr_ok("10.1.2.3:9100", AF_INET, "10.1.2.3:9100");
	addr_ok("[::1]:9464", AF_INET6, "[::1]:9464");
	addr_ok("[::]:9464", AF_INET6, "[::]:9464");
	addr_bad("", "port");
	addr_ok("0", AF_INET, "127.0.0.1:0"); /* any free port */
	addr_bad("65536", "port");
	addr_bad("-1", "port");
	addr_bad("+80", "port");
	addr_bad("http", "port");
	addr_bad("127.0.0.1:", "port");
	addr_bad("127.0.0.1:80x", "port");
	addr_bad("host.example:80", "not a numeric IPv4");
	addr_bad("300.1.1.1:80", "not a numeric IPv4");
	addr_bad("::1:80", "brackets");
	addr_bad("[::1]", "[ADDR]:PORT");
	addr_bad("[::1]80", "[ADDR]:PORT");
	addr_bad("[nothex]:80", "not a numeric IPv6");
}

static void test_addr_bytes(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct metrics_addr a;
	const struct sockaddr_in *s4 = (const struct sockaddr_in *)&a.ss;

	(void)state;
	assert_int_equal(metrics_addr_parse("9464", &a, &err), 0);
	assert_int_equal(ntohs(s4->sin_port), 9464);
	assert_int_equal(ntohl(s4->sin_addr.s_addr), INADDR_LOOPBACK);
	assert_int_equal(a.len, sizeof(struct sockaddr_in));
	strbuf_release(&err);
}

static void test_escape(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	metrics_label(&sb, true, "label", "a\"b\\c\nd é");
	metrics_label(&sb, false, "x", NULL);
	assert_string_equal(sb.buf, "label=\"a\\\"b\\\\c\\nd é\",x=\"\"");
	strbuf_reset(&sb);
	metrics_family(&sb, "m_total", "counter", "say \"hi\"\\\nnow");
	/* HELP escapes backslash and newline only */
	assert_string_equal(sb.buf,
			    "# HELP m_total say \"hi\"\\\\\\nnow\n# TYPE m_total counter\n");
	strbuf_release(&sb);
}

/* Every bound is an edge of diskproof's buckets (so its count is exact),
 * ascending, at most 10 % above the one before (so histogram_quantile()
 * interpolates within narrow buckets), from under 10 us to over 10 s, and
 * printed as its exact value in seconds. */
static void test_bounds_edges(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	assert_true(metrics_le_ns(0) <= 10000);
	assert_true(metrics_le_ns(METRICS_LE_COUNT - 1) >= 10 * NSEC_PER_SEC);
	for (unsigned i = 0; i < METRICS_LE_COUNT; i++) {
		uint64_t b = metrics_le_ns(i);

		assert_int_equal(hist_bucket_lower(hist_bucket_index(b)), b);
		if (i)
			assert_true(b > metrics_le_ns(i - 1) &&
				    (double)b <= 1.10 * (double)metrics_le_ns(i - 1));
		strbuf_reset(&sb);
		metrics_le_add(&sb, i);
		assert_true(fabs(strtod(sb.buf, NULL) * 1e9 - (double)b) < 1e-3);
		assert_true(sb.len < 16 && sb.buf[sb.len - 1] != '0');
	}
	strbuf_reset(&sb);
	metrics_le_add(&sb, METRICS_LE_COUNT);
	assert_string_equal(sb.buf, "+Inf");
	strbuf_reset(&sb);
	metrics_le_add(&sb, 0);
	assert_string_equal(sb.buf, "0.000008192");
	strbuf_release(&sb);
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Against a brute force over the values themselves: each value counts under
 * B exactly when it is less than B; the counts are cumulative and end in
 * count. */
static void test_cumulative(void **state)
{
	static struct hist h;
	enum { N = 200000 };
	uint64_t *vals = malloc(N * sizeof(*vals)), s = 88172645463325252ull;
	uint64_t cum[METRICS_LE_COUNT + 1], want[METRICS_LE_COUNT + 1] = {0};

	(void)state;
	assert_non_null(vals);
	hist_init(&h);
	for (unsigned i = 0; i < N; i++) {
		/* log-uniform from 1 us to 30 s, plus values right at each bound */
		double e = 3.0 + 7.5 * (double)(rnd(&s) % 1000000) / 1e6;

		vals[i] = (uint64_t)(0.5 + exp(e * M_LN10));
		if (i % 97 == 0)
			vals[i] = metrics_le_ns(i / 97 % METRICS_LE_COUNT) + (i % 3) - 1;
		hist_add(&h, vals[i]);
	}
	for (unsigned i = 0; i < N; i++)
		for (unsigned b = 0; b < METRICS_LE_COUNT; b++) {
			if (vals[i] < metrics_le_ns(b))
				want[b]++;
		}
	want[METRICS_LE_COUNT] = N;
	metrics_hist_cumulative(&h, cum);
	for (unsigned b = 0; b <= METRICS_LE_COUNT; b++) {
		assert_int_equal(cum[b], want[b]);
		assert_true(b == 0 || cum[b] >= cum[b - 1]);
	}
	assert_int_equal(cum[METRICS_LE_COUNT], h.count);
	free(vals);
}

static void test_cumulative_empty(void **state)
{
	static struct hist h;
	uint64_t cum[METRICS_LE_COUNT + 1];

	(void)state;
	hist_init(&h);
	metrics_hist_cumulative(&h, cum);
	for (unsigned b = 0; b <= METRICS_LE_COUNT; b++)
		assert_int_equal(cum[b], 0);
	hist_add(&h, 30ull * NSEC_PER_SEC); /* past every bound: +Inf only */
	metrics_hist_cumulative(&h, cum);
	assert_int_equal(cum[METRICS_LE_COUNT - 1], 0);
	assert_int_equal(cum[METRICS_LE_COUNT], 1);
}

static void test_file_write(void **state)
{
	char dir[] = "/tmp/dp_metrics_XXXXXX", path[64], tmp[80], buf[64] = {0};
	const char *b2 = "# HELP diskproof_b b\nb 2\n";
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/dp.prom", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	strbuf_addstr(&text, "# HELP diskproof_a a\na 1\n");
	assert_int_equal(metrics_file_write(path, &text, &err), 0);
	strbuf_reset(&text);
	strbuf_addstr(&text, b2);
	assert_int_equal(metrics_file_write(path, &text, &err), 0);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_int_equal(fread(buf, 1, sizeof(buf) - 1, f), strlen(b2));
	fclose(f);
	assert_string_equal(buf, b2);
	assert_int_not_equal(access(tmp, F_OK), 0); /* renamed away */
	/* a file diskproof did not write there is kept, and said */
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("SQLite format 3", f);
	fclose(f);
	assert_int_equal(metrics_file_write(path, &text, &err), -EEXIST);
	assert_non_null(strstr(err.buf, "not a diskproof metrics file"));
	f = fopen(path, "r");
	assert_non_null(f);
	memset(buf, 0, sizeof(buf));
	assert_int_equal(fread(buf, 1, sizeof(buf) - 1, f), 15);
	fclose(f);
	assert_int_not_equal(access(tmp, F_OK), 0);
	strbuf_reset(&err);
	unlink(path);
	rmdir(dir);
	/* a directory that is not there: said, with the path */
	assert_int_equal(metrics_file_write("/nonexistent-dir/x.prom", &text, &err), -ENOENT);
	assert_non_null(strstr(err.buf, "/nonexistent-dir/x.prom"));
	strbuf_release(&text);
	strbuf_release(&err);
}

/* GET /metrics on port, the answer read to its end: its length. */
static size_t scrape(unsigned port)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	const char req[] = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
	char buf[4096];
	size_t got = 0;
	ssize_t n;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(write(fd, req, sizeof(req) - 1), (ssize_t)sizeof(req) - 1);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		got += (size_t)n;
	close(fd);
	return got;
}

/* GET /metrics on port, closed as soon as the answer has arrived, unread
 * (a scraper whose timeout ran out): the connection is reset. */
static void scrape_unread(unsigned port)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	const char req[] = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct pollfd p;

	assert_true(fd >= 0);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(write(fd, req, sizeof(req) - 1), (ssize_t)sizeof(req) - 1);
	p = (struct pollfd){.fd = fd, .events = POLLIN};
	assert_int_equal(poll(&p, 1, 10000), 1);
	usleep(100 * 1000); /* the whole answer and the server's FIN in */
	close(fd);
}

/* The linger's wait: nothing final yet is -ENOENT; a final text not
 * scraped times out; the stop fd ends it; a client that closed with the
 * final text unread does not end it; a GET of the final text read to its
 * end ends it with 0; a plain publish makes the text live again. */
static void test_server_linger(void **state)
{
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT;
	struct metrics_server *s;
	struct metrics_addr a;
	unsigned port = 0;
	int stop[2];
	uint64_t t0;

	(void)state;
	assert_int_equal(metrics_addr_parse("0", &a, &err), 0);
	assert_int_equal(metrics_server_start(&s, &a, &err), 0);
	assert_int_equal(sscanf(metrics_server_url(s), "http://127.0.0.1:%u/metrics", &port), 1);
	assert_true(port > 0);
	assert_int_equal(pipe(stop), 0);
	strbuf_addstr(&text, "# HELP diskproof_x x\ndiskproof_x 1\n");
	metrics_server_publish(s, &text);
	assert_false(metrics_server_finished(s));
	assert_int_equal(metrics_server_wait_scraped(s, NSEC_PER_SEC, -1), -ENOENT);
	assert_true(scrape(port) > 0); /* a scrape of a live text does not count */
	strbuf_addstr(&text, "# HELP diskproof_x x\ndiskproof_x 2\n");
	metrics_server_publish_final(s, &text);
	assert_true(metrics_server_finished(s));
	t0 = time_mono_ns();
	assert_int_equal(metrics_server_wait_scraped(s, 50 * NSEC_PER_MSEC, stop[0]), -ETIMEDOUT);
	assert_true(time_mono_ns() - t0 >= 50 * NSEC_PER_MSEC);
	assert_int_equal(write(stop[1], "x", 1), 1);
	assert_int_equal(metrics_server_wait_scraped(s, 10 * NSEC_PER_SEC, stop[0]), -EINTR);
	scrape_unread(port);
	assert_int_equal(metrics_server_wait_scraped(s, 300 * NSEC_PER_MSEC, -1), -ETIMEDOUT);
	assert_true(scrape(port) > 0);
	assert_int_equal(metrics_server_wait_scraped(s, 10 * NSEC_PER_SEC, -1), 0);
	strbuf_addstr(&text, "# HELP diskproof_x x\ndiskproof_x 3\n");
	metrics_server_publish(s, &text);
	assert_false(metrics_server_finished(s));
	metrics_server_stop(s);
	close(stop[0]);
	close(stop[1]);
	strbuf_release(&text);
	strbuf_release(&err);
}

/* A series: a scrape that read one run's final text but closes only once
 * the next run has published its own final text does not end the linger
 * on the next one (it never had that text); a scrape of it does. */
static void test_server_linger_stale(void **state)
{
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT;
	struct sockaddr_in sa = {.sin_family = AF_INET};
	const char req[] = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
	struct metrics_server *s;
	struct metrics_addr a;
	unsigned port = 0;
	char buf[4096];
	size_t got = 0;
	ssize_t n;
	int fd;

	(void)state;
	assert_int_equal(metrics_addr_parse("0", &a, &err), 0);
	assert_int_equal(metrics_server_start(&s, &a, &err), 0);
	assert_int_equal(sscanf(metrics_server_url(s), "http://127.0.0.1:%u/metrics", &port), 1);
	strbuf_addstr(&text, "# HELP diskproof_x x\ndiskproof_x 1\n");
	metrics_server_publish_final(s, &text); /* the first run's */
	fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(fd >= 0);
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(write(fd, req, sizeof(req) - 1), (ssize_t)sizeof(req) - 1);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		got += (size_t)n;
	assert_true(got > 0); /* read to its end, not closed yet */
	strbuf_addstr(&text, "# HELP diskproof_x x\ndiskproof_x 2\n");
	metrics_server_publish(s, &text); /* the second run */
	strbuf_addstr(&text, "# HELP diskproof_x x\ndiskproof_x 3\n");
	metrics_server_publish_final(s, &text);
	close(fd);
	assert_int_equal(metrics_server_wait_scraped(s, 300 * NSEC_PER_MSEC, -1), -ETIMEDOUT);
	assert_true(scrape(port) > 0);
	assert_int_equal(metrics_server_wait_scraped(s, 10 * NSEC_PER_SEC, -1), 0);
	metrics_server_stop(s);
	strbuf_release(&text);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_addr_parse),
		cmocka_unit_test(test_addr_bytes),
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_bounds_edges),
		cmocka_unit_test(test_cumulative),
		cmocka_unit_test(test_cumulative_empty),
		cmocka_unit_test(test_file_write),
		cmocka_unit_test(test_server_linger),
		cmocka_unit_test(test_server_linger_stale),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
