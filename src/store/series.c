/* SPDX-License-Identifier: MIT */
/*
 * series.c - a series of runs in the results file (run --repeat N, schema
 * 10): the runs that share a series_uuid with their run-scope figures, read
 * in one query, and the series_uuid the first run's row was given.
 *
 * Only the figures a series' spread is over are read (results.h, enum
 * results_series_fig), from the run scope's summary and scope_extra rows,
 * not each run's whole results model: a report of one run of a series of
 * ten 2 h runs would otherwise load ten runs' samples and histograms.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "store_internal.h"

/* id, series_index, status, verdict, then the figures in enum
 * results_series_fig's order (a class without a row: NULL, NAN), then
 * series_size. */
static const char series_sql[] =
	"SELECT r.id, coalesce(r.series_index, 0), r.status, coalesce(r.verdict, ''),"
	" (SELECT sum(iops) FROM summary WHERE run_id = r.id AND scope = 'run'"
	"  AND class IN ('db_read', 'db_write')),"
	" d.avg_ms, d.p99_ms, dx.max_sample_avg_ms,"
	" l.avg_ms, l.p99_ms, lx.max_sample_avg_ms,"
	" coalesce(r.series_size, 0)"
	" FROM run r"
	" LEFT JOIN summary d ON d.run_id = r.id AND d.scope = 'run' AND d.class = 'db_read'"
	" LEFT JOIN scope_extra dx ON dx.run_id = r.id AND dx.scope = 'run'"
	"  AND dx.class = 'db_read'"
	" LEFT JOIN summary l ON l.run_id = r.id AND l.scope = 'run' AND l.class = 'log_write'"
	" LEFT JOIN scope_extra lx ON lx.run_id = r.id AND lx.scope = 'run'"
	"  AND lx.class = 'log_write'"
	" WHERE r.series_uuid = ? ORDER BY r.series_index, r.id";

static double column_or_nan(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

/* One row of series_sql into s's next run (grown as needed). */
static int series_row(sqlite3_stmt *st, struct results_series *s, size_t *cap)
{
	struct results_series_run *sr;

	if (s->nr_runs == *cap) {
		size_t nc = *cap ? 2 * *cap : 8;
		void *p = realloc(s->runs, nc * sizeof(*s->runs));

		if (!p)
			return -ENOMEM;
		s->runs = p;
		*cap = nc;
	}
	sr = &s->runs[s->nr_runs++];
	memset(sr, 0, sizeof(*sr));
	sr->id = sqlite3_column_int64(st, 0);
	sr->index = (unsigned)sqlite3_column_int64(st, 1);
	snprintf(sr->status, sizeof(sr->status), "%s", (const char *)sqlite3_column_text(st, 2));
	snprintf(sr->verdict, sizeof(sr->verdict), "%s", (const char *)sqlite3_column_text(st, 3));
	for (int f = 0; f < RESULTS_SERIES_FIG_COUNT; f++)
		sr->fig[f] = column_or_nan(st, 4 + f);
	/* the N of the series: every run holds the same; the largest kept,
	 * should an import have mixed them */
	if ((unsigned)sqlite3_column_int64(st, 4 + RESULTS_SERIES_FIG_COUNT) > s->size)
		s->size = (unsigned)sqlite3_column_int64(st, 4 + RESULTS_SERIES_FIG_COUNT);
	if (!s->id || sr->id < s->id)
		s->id = sr->id;
	return 0;
}

int store_series_load(struct store *s, const char *uuid, struct results_series **out,
		      struct strbuf *err)
{
	struct results_series *ser = calloc(1, sizeof(*ser));
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int ret, rc = SQLITE_DONE;

	*out = NULL;
	if (!ser) {
		strbuf_addf(err, "%s: load series: out of memory", s->path);
		return -ENOMEM;
	}
	snprintf(ser->uuid, sizeof(ser->uuid), "%s", uuid);
	ret = store_prepare(s, series_sql, &st, 0, err);
	if (ret)
		goto out_free;
	sqlite3_bind_text(st, 1, uuid, -1, SQLITE_TRANSIENT);
	while (!ret && (rc = sqlite3_step(st)) == SQLITE_ROW)
		ret = series_row(st, ser, &cap);
	if (ret == -ENOMEM)
		strbuf_addf(err, "%s: load series: out of memory", s->path);
	else if (rc != SQLITE_DONE)
		ret = store_fail(s, err, rc, "load series");
	sqlite3_finalize(st);
	if (ret)
		goto out_free;
	results_series_fill(ser);
	*out = ser;
	return 0;
out_free:
	results_series_free(ser);
	return ret;
}

int store_run_series_uuid(struct store *s, int64_t run_id, char *out, size_t len,
			  struct strbuf *err)
{
	return store_run_text(s, run_id, "SELECT series_uuid FROM run WHERE id = ?",
			      "read the run's series", out, len, err);
}
