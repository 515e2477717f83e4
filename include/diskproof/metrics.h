/* SPDX-License-Identifier: MIT */
/*
 * metrics.h - live metrics of a run in the Prometheus text exposition format
 * (version 0.0.4): the pieces of the text (families, escaped label values,
 * exact histogram buckets), an HTTP server thread that serves the latest
 * text at /metrics, and the atomic textfile write for node_exporter.
 *
 * Who does what. The coordinator builds the whole text once an interval from
 * its cumulative totals (src/run/metrics.c) and hands it over with
 * metrics_server_publish(); the server thread only copies the latest text
 * out under a mutex and sends it. Nothing here is on the I/O path, and the
 * server never reads the run's state. docs/metrics.md lists every metric.
 */
#ifndef DISKPROOF_METRICS_H
#define DISKPROOF_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "diskproof/stats.h"
#include "diskproof/util.h"

/* The Content-Type of what /metrics serves. */
#define METRICS_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

/* Where --metrics listens: a parsed [ADDR:]PORT. */
struct metrics_addr {
	struct sockaddr_storage ss;
	socklen_t len;
	char text[80]; /* "127.0.0.1:9464", "[::1]:9464": for messages */
};

/*
 * Parses "PORT", ":PORT" (both on 127.0.0.1: loopback unless told
 * otherwise), "ADDR:PORT" with a numeric IPv4 ADDR, "localhost" or "*"
 * (0.0.0.0, every interface), and "[ADDR6]:PORT" with a numeric IPv6 one
 * ("[::]" every interface). PORT is 1 to 65535. Resolves no names (so a
 * typo never waits on DNS). 0, or -EINVAL with the reason in err.
 */
int metrics_addr_parse(const char *spec, struct metrics_addr *a, struct strbuf *err) DP_MUST_CHECK;

/*
 * The server: one thread that accepts a connection at a time, answers
 * "GET /metrics" (and HEAD) with the latest published text, 404 for any
 * other path, 405 for another method, and closes the connection. A client
 * that is slow to send its request or read the answer is dropped after a
 * few seconds, so one client cannot hold the thread for long. Before the
 * first publish /metrics answers 503.
 */
struct metrics_server;

/*
 * Binds and listens on a (SO_REUSEADDR, so a restart can bind again while an
 * earlier connection is in TIME_WAIT; a port another socket listens on is
 * still refused) and starts the thread, with every signal blocked in it. 0
 * and *out (metrics_server_stop() it), or -errno with "ADDR: why" in err
 * (-EADDRINUSE: the port is taken).
 */
int metrics_server_start(struct metrics_server **out, const struct metrics_addr *a,
			 struct strbuf *err) DP_MUST_CHECK;

/* Makes text the one served from now on: swapped with the server's (no
 * copy), so *text holds the previous text afterwards, to reuse. */
void metrics_server_publish(struct metrics_server *s, struct strbuf *text);

/* Stops the thread, closes the socket and frees s; safe on NULL. */
void metrics_server_stop(struct metrics_server *s);

/*
 * Whether path may be replaced by a metrics file: 0 when it is not there, or
 * is a regular file that is empty or starts as every metrics text does (a
 * metrics file diskproof wrote); -EEXIST with why in err when it is anything
 * else (the results file, a data file, a profile, a FIFO, a link), which
 * diskproof must not overwrite; another -errno when it cannot be read.
 */
int metrics_file_replaceable(const char *path, struct strbuf *why) DP_MUST_CHECK;

/*
 * Writes text to path as node_exporter's textfile collector needs it: into
 * PATH.tmp in the same directory (made anew, O_EXCL), fsync, then rename
 * over path, so a reader sees the previous file or the new one, never half
 * of one. Only over what metrics_file_replaceable() accepts, path and
 * PATH.tmp alike. 0 or -errno with "PATH: why" in err (the temporary file
 * removed).
 */
int metrics_file_write(const char *path, const struct strbuf *text,
		       struct strbuf *err) DP_MUST_CHECK;

/*
 * Text pieces. metrics_family() starts a metric family: its "# HELP" (help
 * escaped as the format wants: backslash and newline) and "# TYPE" lines.
 * metrics_label() adds name="value" with value escaped (backslash, double
 * quote, newline), preceded by a comma when first is false.
 */
void metrics_family(struct strbuf *sb, const char *name, const char *type, const char *help);
void metrics_label(struct strbuf *sb, bool first, const char *name, const char *value);

/*
 * The latency histogram's upper bounds in seconds (le), ascending, +Inf not
 * included: 50 us, 100, 200, 500 us, 1, 2, 5, 10, 20, 50, 100, 200, 500 ms,
 * 1, 2, 5 s. metrics_le_text() gives bound i as the le label prints it
 * ("0.0001").
 */
#define METRICS_LE_COUNT 16
const char *metrics_le_text(unsigned i);
uint64_t metrics_le_ns(unsigned i);

/*
 * The cumulative counts of h per bound: cum[i] = the I/Os counted under
 * bound i (cum[METRICS_LE_COUNT] is +Inf: h->count). No bound falls on an
 * edge of diskproof's histogram buckets (stats.h), so a bucket straddling
 * bound B is counted under B when its midpoint, the value every diskproof
 * percentile reports for it, is at most B: every I/O counted under B took
 * less than B x (1 + 1/128), every one not counted more than B / (1 + 1/128),
 * and histogram_quantile() over these buckets agrees with the run's own
 * percentiles at the bounds. Buckets below 64 ns are exact.
 */
void metrics_hist_cumulative(const struct hist *h, uint64_t cum[METRICS_LE_COUNT + 1]);

#endif
