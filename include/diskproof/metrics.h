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
 * ("[::]" every interface). PORT is 0 to 65535 (0: a free port the system
 * chooses; metrics_server_url() says which). Resolves no names (so a typo
 * never waits on DNS). 0, or -EINVAL with the reason in err.
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

/* "http://ADDR:PORT/metrics" as bound (the system's port when 0 was asked
 * for; "[ADDR6]" in brackets). Owned by s, valid until it stops. */
const char *metrics_server_url(const struct metrics_server *s);

/* Makes text the one served from now on: swapped with the server's (no
 * copy), so *text holds the previous text afterwards, to reuse. */
void metrics_server_publish(struct metrics_server *s, struct strbuf *text);
/* The same for the run's final text: from now on the first GET /metrics
 * answered in full with it counts as "scraped" (the next plain publish, a
 * series' next run, makes the text live again). */
void metrics_server_publish_final(struct metrics_server *s, struct strbuf *text);
/* Whether the text served is a final one (metrics_server_publish_final). */
bool metrics_server_finished(struct metrics_server *s);

/*
 * The linger (run --metrics-linger): waits until the final text has been
 * scraped, timeout_ns has passed, or stop_fd (ignored when < 0) is
 * readable. 0 scraped, -ETIMEDOUT, -EINTR when stop_fd is readable (the
 * caller reads it), -ENOENT when no final text was published.
 */
int metrics_server_wait_scraped(struct metrics_server *s, uint64_t timeout_ns, int stop_fd);

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
 * The latency histogram's upper bounds (le), ascending, +Inf not included:
 * 8 an octave, log-spaced, from 2^13 ns (8.192 us) to 2^34 ns (17.18 s),
 * each an edge of diskproof's own buckets (stats.h), at most 9.6 % above
 * the one before (expo.c has the table). metrics_le_ns() gives bound i in
 * ns (UINT64_MAX for i = METRICS_LE_COUNT, +Inf); metrics_le_add() appends
 * it as the le label prints it, in exact seconds ("0.000008192", "+Inf").
 */
#define METRICS_LE_PER_OCTAVE 8
#define METRICS_LE_FIRST_BITS 13 /* the first bound, 2^13 ns */
#define METRICS_LE_OCTAVES 21	 /* to 2^34 ns */
#define METRICS_LE_COUNT (METRICS_LE_PER_OCTAVE * METRICS_LE_OCTAVES + 1)
uint64_t metrics_le_ns(unsigned i);
void metrics_le_add(struct strbuf *sb, unsigned i);

/*
 * Where each set of bounds is used (issue 32): all 169 in the per-volume
 * histogram (diskproof_volume_latency_seconds), the one p99 is read from;
 * every METRICS_LE_DB_STEP-th (one an octave, 2^13 to 2^34 ns: 22 bounds)
 * in the per-database one (diskproof_io_latency_seconds), so that a run of
 * 1,000 databases does not export 169 buckets for each. The coarse bounds
 * are fine bounds too: exact, and the same le labels in both metrics.
 */
#define METRICS_LE_DB_STEP METRICS_LE_PER_OCTAVE

/*
 * The cumulative counts of h per bound: cum[i] = the I/Os under bound i
 * (cum[METRICS_LE_COUNT] is +Inf: h->count). Every bound is the lower edge
 * of one of diskproof's buckets, so each count is exact: the I/Os that took
 * less than the bound (one of exactly the bound, a single nanosecond of a
 * bucket, counts from the next bound on), and histogram_quantile() over
 * these buckets interpolates within 9.6 % wide buckets whose counts are
 * the ones the run's own percentiles are read from.
 */
void metrics_hist_cumulative(const struct hist *h, uint64_t cum[METRICS_LE_COUNT + 1]);

#endif
