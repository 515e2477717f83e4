/* SPDX-License-Identifier: MIT */
/*
 * limits.c - what every number in a results file may be: one table of the
 * numeric columns of every table with the range a run can write there, and
 * the checks of a row against it. The loader (read.c) checks every row it
 * reads, import (import.c) every row it copies, the run list the run row and
 * its summaries. A value out of its range, not finite, not a whole number
 * where a count is due, or not a number at all makes its run unusable: the
 * message names the table, the column and the value, so that a results file
 * edited by hand, damaged or made to harm (warm-up 1e400, which SQLite keeps
 * as +Inf) is refused before any figure is derived or drawn from it.
 *
 * The ranges (docs/results-schema.md, "What a value may be"):
 *   time      0 .. a year (366 days), in the column's unit: longer than any
 *             run (a duration and a warm-up of at most 30 days each)
 *   count     0 .. 2^53 (I/Os, errors, transactions, rates per second):
 *             exact in a double, and a sum of 1024 of them fits 64 bits
 *   bytes     0 .. 2^62 (4 EiB)
 *   ns sum    0 .. 2^63 - 1 (a sum of latencies, any SQLite integer >= 0)
 *   percent   0 .. 100 (host CPU shares, device utilisation)
 *   streams   0 .. 100000 (the profile's most)
 *   series    1 .. 1000 (a run's place in its series, the series' size)
 *   flags     0 or 1
 * A column that may be NULL (a figure not measured or not yet written) may
 * be NULL; NaN cannot be stored (SQLite makes it NULL).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diskproof/profile.h"
#include "diskproof/stats.h"

#include "store_internal.h"

enum lim_kind {
	LIM_INT,     /* a whole number */
	LIM_REAL,    /* any finite number */
	LIM_BUCKETS, /* histogram buckets "idx:count ..." adding up to the row's count */
};

struct store_limit {
	const char *table;
	const char *column;
	enum lim_kind kind;
	bool null_ok;
	double lo, hi;
	const char *range; /* what hi is, in messages */
};

#define YEAR_S (366.0 * 86400.0)
#define COUNT_MAX 0x1p53
#define BYTES_MAX 0x1p62
#define SUM_NS_MAX 0x1p63

/* {kind, NULL allowed, lo, hi, what hi is} of each kind of value */
#define L_TIME_S(n) LIM_REAL, n, 0, YEAR_S, "a year, in s"
#define L_TIME_MS(n) LIM_INT, n, 0, YEAR_S * 1e3, "a year, in ms"
#define L_TIME_MS_REAL(n) LIM_REAL, n, 0, YEAR_S * 1e3, "a year, in ms"
#define L_TIME_NS(n) LIM_INT, n, 0, YEAR_S * 1e9, "a year, in ns"
#define L_COUNT(n) LIM_INT, n, 0, COUNT_MAX, "2^53"
#define L_RATE(n) LIM_REAL, n, 0, COUNT_MAX, "2^53"
#define L_BYTES(n) LIM_INT, n, 0, BYTES_MAX, "2^62 bytes"
#define L_SUM_NS LIM_INT, false, 0, SUM_NS_MAX, "2^63 - 1"
#define L_PCT LIM_REAL, true, 0, 100, "100 %"
#define L_FLAG LIM_INT, false, 0, 1, "1"
#define L_BUCKETS LIM_BUCKETS, false, 0, 0, ""

static const struct store_limit limits[] = {
	{"run", "duration_s", L_TIME_S(true)},
	{"run", "warmup_s", L_TIME_S(true)},
	{"run", "streams", LIM_INT, true, 0, PROFILE_STREAMS_MAX,
	 "the most streams a profile sets"},
	{"run", "exit_code", LIM_INT, true, 0, 255, "255"},
	{"run", "pid", LIM_INT, true, 0, INT32_MAX, "2^31 - 1"},
	{"run", "series_index", LIM_INT, true, 1, STORE_SERIES_MAX, "the most runs a series holds"},
	{"run", "series_size", LIM_INT, true, 1, STORE_SERIES_MAX, "the most runs a series holds"},

	{"sample", "t_ms", L_TIME_MS(false)},
	{"sample", "warmup", L_FLAG},
	{"sample", "ios", L_COUNT(false)},
	{"sample", "bytes", L_BYTES(false)},
	{"sample", "errors", L_COUNT(false)},
	{"sample", "lat_sum_ns", L_SUM_NS},
	{"sample", "lat_max_ns", L_TIME_NS(false)},
	{"sample", "p50_ns", L_TIME_NS(false)},
	{"sample", "p99_ns", L_TIME_NS(false)},

	{"summary", "ios", L_COUNT(false)},
	{"summary", "bytes", L_BYTES(false)},
	{"summary", "errors", L_COUNT(false)},
	{"summary", "iops", L_RATE(false)},
	{"summary", "mbps", L_RATE(false)},
	{"summary", "avg_ms", L_TIME_MS_REAL(false)},
	{"summary", "p50_ms", L_TIME_MS_REAL(false)},
	{"summary", "p99_ms", L_TIME_MS_REAL(false)},
	{"summary", "max_ms", L_TIME_MS_REAL(false)},
	{"summary", "integrity_errors", L_COUNT(false)},
	{"summary", "p90_ms", L_TIME_MS_REAL(true)},
	{"summary", "p95_ms", L_TIME_MS_REAL(true)},
	{"summary", "p999_ms", L_TIME_MS_REAL(true)},
	{"summary", "p9999_ms", L_TIME_MS_REAL(true)},

	{"histogram", "bits", LIM_INT, false, HIST_BITS, HIST_BITS, "this build's geometry"},
	{"histogram", "max_bits", LIM_INT, false, HIST_MAX_BITS, HIST_MAX_BITS,
	 "this build's geometry"},
	{"histogram", "count", L_COUNT(false)},
	{"histogram", "sum_ns", L_SUM_NS},
	{"histogram", "min_ns", L_TIME_NS(true)},
	{"histogram", "max_ns", L_TIME_NS(false)},
	{"histogram", "buckets", L_BUCKETS},

	/* a threshold or a measured figure of any criterion: io_errors may
	 * be set up to 2^64 - 1 */
	{"verdict", "threshold", LIM_REAL, true, 0, 0x1p64, "2^64"},
	{"verdict", "measured", LIM_REAL, true, 0, 0x1p64, "2^64"},
	{"verdict", "passed", L_FLAG},

	{"volume", "databases", LIM_INT, false, 0, 1000, "the most databases a volume holds"},
	{"database", "size", L_BYTES(false)},
	{"database_final", "size", L_BYTES(false)},
	{"event", "t_ms", L_TIME_MS(false)},

	{"autotune_step", "step", LIM_INT, false, 0, INT32_MAX, "2^31 - 1"},
	{"autotune_step", "streams", LIM_INT, false, 0, PROFILE_STREAMS_MAX,
	 "the most streams a profile sets"},
	{"autotune_step", "iops", L_RATE(true)},
	{"autotune_step", "db_read_avg_ms", L_TIME_MS_REAL(true)},
	{"autotune_step", "log_write_avg_ms", L_TIME_MS_REAL(true)},
	{"autotune_step", "passed", L_FLAG},

	{"interval_histogram", "t_ms", L_TIME_MS(false)},
	{"interval_histogram", "warmup", L_FLAG},
	{"interval_histogram", "count", L_COUNT(false)},
	{"interval_histogram", "sum_ns", L_SUM_NS},
	{"interval_histogram", "min_ns", L_TIME_NS(true)},
	{"interval_histogram", "max_ns", L_TIME_NS(false)},
	{"interval_histogram", "buckets", L_BUCKETS},
	{"interval_histogram", "p50_ms", L_TIME_MS_REAL(true)},
	{"interval_histogram", "p90_ms", L_TIME_MS_REAL(true)},
	{"interval_histogram", "p95_ms", L_TIME_MS_REAL(true)},
	{"interval_histogram", "p99_ms", L_TIME_MS_REAL(true)},
	{"interval_histogram", "p999_ms", L_TIME_MS_REAL(true)},
	{"interval_histogram", "p9999_ms", L_TIME_MS_REAL(true)},

	{"host_sample", "t_ms", L_TIME_MS(false)},
	{"host_sample", "warmup", L_FLAG},
	{"host_sample", "span_ms", L_TIME_MS(false)},
	{"host_sample", "cpu_user_pct", L_PCT},
	{"host_sample", "cpu_system_pct", L_PCT},
	{"host_sample", "cpu_iowait_pct", L_PCT},
	{"host_sample", "mem_available", L_BYTES(true)},
	{"host_sample", "reads", L_COUNT(true)},
	{"host_sample", "writes", L_COUNT(true)},
	{"host_sample", "read_sectors", L_BYTES(true)},
	{"host_sample", "write_sectors", L_BYTES(true)},
	{"host_sample", "reads_per_s", L_RATE(true)},
	{"host_sample", "writes_per_s", L_RATE(true)},
	{"host_sample", "read_kbps", L_RATE(true)},
	{"host_sample", "write_kbps", L_RATE(true)},
	{"host_sample", "read_wait_ms", L_TIME_MS_REAL(true)},
	{"host_sample", "write_wait_ms", L_TIME_MS_REAL(true)},
	{"host_sample", "avg_wait_ms", L_TIME_MS_REAL(true)},
	{"host_sample", "util_pct", L_PCT},
	{"host_sample", "queue", L_RATE(true)},

	{"stream_share", "stream_ns", L_SUM_NS},
	{"stream_share", "streams", LIM_REAL, false, 0, PROFILE_STREAMS_MAX,
	 "the most streams a profile sets"},
	{"scope_extra", "sample_ms", L_TIME_MS(false)},
	{"scope_extra", "max_sample_avg_ms", L_TIME_MS_REAL(true)},
	{"scope_extra", "page_fault_stalls", L_COUNT(true)},
	{"txn_total", "txns", L_COUNT(false)},
	{"txn_total", "log_commits", L_COUNT(false)},
	{"txn_sample", "t_ms", L_TIME_MS(false)},
	{"txn_sample", "warmup", L_FLAG},
	{"txn_sample", "txns", L_COUNT(false)},
	{"txn_sample", "log_commits", L_COUNT(false)},
	{"response", "ios", L_COUNT(false)},
	{"response", "avg_ms", L_TIME_MS_REAL(false)},
	{"response", "p50_ms", L_TIME_MS_REAL(false)},
	{"response", "p99_ms", L_TIME_MS_REAL(false)},
	{"response", "max_ms", L_TIME_MS_REAL(false)},
	{"backlog_sample", "t_ms", L_TIME_MS(false)},
	{"backlog_sample", "warmup", L_FLAG},
	{"backlog_sample", "peak", L_COUNT(false)},
	{"backlog_sample", "mean", L_RATE(false)},
	{"backlog_sample", "busy_ms", L_TIME_MS(false)},
	{"backlog_sample", "streams", L_COUNT(false)},
};

static const struct store_limit *limit_find(const char *table, const char *column)
{
	for (size_t i = 0; column && i < DP_ARRAY_SIZE(limits); i++)
		if (!strcmp(limits[i].table, table) && !strcmp(limits[i].column, column))
			return &limits[i];
	return NULL;
}

bool store_limit_known(const char *table, const char *column)
{
	return limit_find(table, column) != NULL;
}

int store_row_limits_init(struct store_row_limits *rl, const char *table, sqlite3_stmt *st)
{
	int n = sqlite3_column_count(st);

	memset(rl, 0, sizeof(*rl));
	rl->table = table;
	rl->count_col = -1;
	rl->ncols = n < STORE_ROW_COLS_MAX ? n : STORE_ROW_COLS_MAX;
	for (int i = 0; i < rl->ncols; i++) {
		const char *name = sqlite3_column_name(st, i);

		rl->lim[i] = limit_find(table, name);
		if (name && !strcmp(name, "count"))
			rl->count_col = i;
		if (rl->lim[i] && rl->lim[i]->kind == LIM_BUCKETS && !rl->scratch) {
			rl->scratch = malloc(sizeof(*rl->scratch));
			if (!rl->scratch)
				return -ENOMEM;
		}
	}
	return 0;
}

void store_row_limits_release(struct store_row_limits *rl)
{
	free(rl->scratch);
	rl->scratch = NULL;
}

/* Column i's value as the message shows it: a number, 'text' (shortened,
 * escaped), a blob's size or NULL. */
static void value_show(struct strbuf *sb, sqlite3_stmt *st, int i)
{
	static const struct strbuf_escapes esc = {.hex_prefix = "\\x", .del = true};
	const char *t;
	char cut[41];

	switch (sqlite3_column_type(st, i)) {
	case SQLITE_INTEGER:
		strbuf_addf(sb, "%lld", (long long)sqlite3_column_int64(st, i));
		break;
	case SQLITE_FLOAT:
		strbuf_addf(sb, "%.17g", sqlite3_column_double(st, i));
		break;
	case SQLITE_TEXT:
		t = (const char *)sqlite3_column_text(st, i);
		snprintf(cut, sizeof(cut), "%s", t ? t : "");
		strbuf_addch(sb, '\'');
		strbuf_add_escaped(sb, cut, &esc);
		strbuf_addstr(sb, strlen(t ? t : "") >= sizeof(cut) ? "...'" : "'");
		break;
	case SQLITE_BLOB:
		strbuf_addf(sb, "a blob of %d bytes", sqlite3_column_bytes(st, i));
		break;
	default:
		strbuf_addstr(sb, "NULL");
	}
}

/* What is wrong with column i's number (or its absence) for l. */
enum num_why { NUM_OK, NUM_NULL, NUM_NAN, NUM_INF, NUM_FRACTION, NUM_BELOW, NUM_OVER };

static enum num_why number_why(const struct store_limit *l, sqlite3_stmt *st, int i)
{
	int type = sqlite3_column_type(st, i);
	double v;

	if (type == SQLITE_NULL)
		return l->null_ok ? NUM_OK : NUM_NULL;
	if (type != SQLITE_INTEGER && type != SQLITE_FLOAT)
		return NUM_NAN;
	v = type == SQLITE_INTEGER ? (double)sqlite3_column_int64(st, i)
				   : sqlite3_column_double(st, i);
	if (!isfinite(v))
		return NUM_INF;
	if (l->kind == LIM_INT && v != floor(v))
		return NUM_FRACTION;
	return v < l->lo ? NUM_BELOW : v > l->hi ? NUM_OVER : NUM_OK;
}

/* "TABLE.COLUMN = VALUE: why" of a number_why() that is not NUM_OK. */
static void number_say(struct strbuf *why, const struct store_row_limits *rl,
		       const struct store_limit *l, sqlite3_stmt *st, int i, enum num_why w)
{
	static const char *const says[] = {
		[NUM_NULL] = "NULL where a number is due",
		[NUM_NAN] = "not a number",
		[NUM_INF] = "not a finite number",
		[NUM_FRACTION] = "not a whole number",
	};

	strbuf_addf(why, "%s.%s = ", rl->table, l->column);
	value_show(why, st, i);
	if (w == NUM_OVER)
		strbuf_addf(why, ": over %.17g (%s)", l->hi, l->range);
	else if (w == NUM_BELOW && l->lo == 0)
		strbuf_addstr(why, ": negative");
	else if (w == NUM_BELOW)
		strbuf_addf(why, ": below %.17g (%s)", l->lo, l->range);
	else
		strbuf_addf(why, ": %s", says[w]);
}

/*
 * A buckets column: it decodes, and its counts add up to the row's count
 * (checked before, so at most 2^53), none over it. Column i of the row; why
 * says what is wrong, else it stays empty.
 */
static void buckets_check(struct store_row_limits *rl, sqlite3_stmt *st, int i, struct strbuf *why)
{
	const char *text = (const char *)sqlite3_column_text(st, i);
	uint64_t sum = 0, count;
	bool big = false;

	hist_init(rl->scratch);
	if (sqlite3_column_type(st, i) != SQLITE_TEXT || hist_decode(rl->scratch, text)) {
		strbuf_addf(why, "%s.%s: not a list of histogram buckets", rl->table,
			    sqlite3_column_name(st, i));
		return;
	}
	/* each at most 2^53, and so their sum until it passes 2^53: no wrap */
	for (unsigned b = 0; b < HIST_BUCKETS && !big; b++) {
		big = rl->scratch->buckets[b] > (uint64_t)COUNT_MAX;
		sum += big ? 0 : rl->scratch->buckets[b];
		big |= sum > (uint64_t)COUNT_MAX;
	}
	count = rl->count_col < 0 ? sum : (uint64_t)sqlite3_column_int64(st, rl->count_col);
	if (big)
		strbuf_addf(why, "%s.count = %" PRIu64 ": its buckets hold more than 2^53 I/Os",
			    rl->table, count);
	else if (sum != count)
		strbuf_addf(why, "%s.count = %" PRIu64 ": its buckets hold %" PRIu64 " I/Os",
			    rl->table, count, sum);
}

int store_row_check(struct store_row_limits *rl, sqlite3_stmt *st, struct strbuf *why)
{
	size_t before = why->len;
	enum num_why w;

	for (int i = 0; i < rl->ncols && why->len == before; i++) {
		const struct store_limit *l = rl->lim[i];

		if (!l)
			continue;
		if (l->kind == LIM_BUCKETS) {
			buckets_check(rl, st, i, why);
			continue;
		}
		w = number_why(l, st, i);
		if (w != NUM_OK)
			number_say(why, rl, l, st, i, w);
	}
	return why->len == before ? 0 : -ERANGE;
}

/* Does table exist in schema ("main" or "src")? */
static int table_exists(struct store *s, const char *schema, const char *table, bool *yes,
			struct strbuf *err)
{
	struct strbuf sql = STRBUF_INIT;
	sqlite3_stmt *st;
	int ret, rc;

	strbuf_addf(&sql, "SELECT 1 FROM %s.sqlite_master WHERE type = 'table' AND name = ?",
		    schema);
	ret = store_prepare(s, sql.buf, &st, 0, err);
	strbuf_release(&sql);
	if (ret)
		return ret;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	*yes = rc == SQLITE_ROW;
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : store_fail(s, err, rc, "check a run");
}

/* Every row of run_id in schema.table against the limits: 0, -ERANGE with
 * why, or a store error in err. */
static int table_check(struct store *s, const char *schema, const char *table, int64_t run_id,
		       struct strbuf *why, struct strbuf *err)
{
	struct store_row_limits rl;
	struct strbuf sql = STRBUF_INIT;
	sqlite3_stmt *st = NULL;
	bool yes = false;
	int ret, rc = SQLITE_DONE;

	ret = table_exists(s, schema, table, &yes, err);
	if (ret || !yes)
		return ret;
	strbuf_addf(&sql, "SELECT * FROM %s.\"%s\" WHERE %s = ?", schema, table,
		    strcmp(table, "run") ? "run_id" : "id");
	ret = store_prepare(s, sql.buf, &st, 0, err);
	strbuf_release(&sql);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, run_id);
	ret = store_row_limits_init(&rl, table, st);
	while (!ret && (rc = sqlite3_step(st)) == SQLITE_ROW)
		ret = store_row_check(&rl, st, why);
	if (ret == -ENOMEM)
		strbuf_addf(err, "%s: check run %" PRId64 ": out of memory", s->path, run_id);
	else if (!ret && rc != SQLITE_DONE)
		ret = store_fail(s, err, rc, "check a run");
	store_row_limits_release(&rl);
	sqlite3_finalize(st);
	return ret;
}

int store_run_check(struct store *s, const char *schema, int64_t run_id, bool deep,
		    struct strbuf *why, struct strbuf *err)
{
	const char *last = "";
	int ret = 0;

	for (size_t i = 0; i < DP_ARRAY_SIZE(limits) && !ret; i++) {
		if (!strcmp(limits[i].table, last))
			continue;
		last = limits[i].table;
		if (deep || !strcmp(last, "run") || !strcmp(last, "summary"))
			ret = table_check(s, schema, last, run_id, why, err);
	}
	return ret;
}
