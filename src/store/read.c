/* SPDX-License-Identifier: MIT */
/*
 * read.c - the store's reads: the list of runs, the latest run, and a
 * run's whole results model (run row, summaries, database sizes, verdicts,
 * samples, env facts, events, histograms, auto-tune steps, host counters,
 * the 15 s window histograms in bands, the effective parameters, and the
 * tail percentiles derived from the histograms) in one read transaction.
 *
 * Every kind of row is loaded by one loop, rows_load(), driven by a table:
 * each entry names its query, the array its rows go to and how one row is
 * read, so preparing, stepping, growing the array and the messages of a
 * failure are written once.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "diskproof/profile.h"

#include "store_internal.h"

/* A copy of column i (NULL stays NULL). */
static int column_dup(sqlite3_stmt *st, int i, char **out)
{
	const unsigned char *v = sqlite3_column_text(st, i);

	*out = NULL;
	if (!v)
		return 0;
	*out = strdup((const char *)v);
	return *out ? 0 : -ENOMEM;
}

static uint64_t column_u64(sqlite3_stmt *st, int i)
{
	int64_t v = sqlite3_column_int64(st, i);

	return v < 0 ? 0 : (uint64_t)v;
}

static void column_name(sqlite3_stmt *st, int i, char *out)
{
	const unsigned char *v = sqlite3_column_text(st, i);

	snprintf(out, RESULTS_NAME_MAX, "%s", v ? (const char *)v : "");
}

/*
 * Room for one more element in an array of cap elements holding nr, doubling:
 * the new array (the old one is kept by the caller on NULL, out of memory).
 */
static void *array_reserve(void *arr, size_t *cap, size_t nr, size_t size)
{
	size_t ncap;
	void *n;

	if (nr < *cap)
		return arr;
	ncap = *cap ? *cap * 2 : 64;
	n = realloc(arr, ncap * size);
	if (n)
		*cap = ncap;
	return n;
}

/* A REAL column, NAN when NULL (a figure not measured). */
static double column_fig(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

/*
 * One kind of row, loaded into an array in base (struct results, or the run
 * list's rows): read() fills one zeroed element, counted already, so that
 * what it allocated before failing is freed with the rest. An entry of size
 * 0 has no array: read() places the row itself (row is NULL).
 */
struct rows_spec {
	const char *what;      /* "load samples": the step, in messages */
	const char *bad;       /* what a row read() refuses (-EIO) is, or NULL: none */
	const char *count_sql; /* sizes the array before the rows come, or NULL */
	const char *sql;       /* the rows, in order; ? is the run's id */
	size_t arr, nr, size;  /* offsets in base of the array and its count; element size */
	int (*read)(sqlite3_stmt *st, void *row, void *base); /* 0, -ENOMEM or -EIO */
	int (*done)(struct results *r); /* after the last row (0 or -ENOMEM), or NULL */
	const char *table;		/* whose limits (limits.c) each row is checked against */
};

/* The array pointer at off in base, by memcpy: its type is not void *. */
static void *rows_array(const void *base, size_t off)
{
	void *arr;

	memcpy(&arr, (const char *)base + off, sizeof(arr));
	return arr;
}

static void rows_array_set(void *base, size_t off, void *arr)
{
	memcpy((char *)base + off, &arr, sizeof(arr));
}

/* The array of t sized from t->count_sql, so that a long time series (a 2 h
 * run has about 10^5 sample rows) is allocated once. */
static int rows_presize(struct store *s, const struct rows_spec *t, void *base, int64_t run_id,
			size_t *cap, struct strbuf *err)
{
	sqlite3_stmt *st;
	void *arr;
	int ret, rc;

	ret = store_prepare(s, t->count_sql, &st, 0, err);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, run_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*cap = (size_t)column_u64(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return store_fail(s, err, rc, t->what);
	if (!*cap)
		return 0;
	arr = malloc(*cap * t->size);
	if (!arr) {
		strbuf_addf(err, "%s: %s: out of memory", s->path, t->what);
		return -ENOMEM;
	}
	rows_array_set(base, t->arr, arr);
	return 0;
}

/* Room for one more element of t's array, zeroed and counted: NULL when out
 * of memory (the array as it was stays in base). */
static void *rows_next(const struct rows_spec *t, void *base, size_t *cap)
{
	size_t *nr = (size_t *)((char *)base + t->nr);
	void *arr = array_reserve(rows_array(base, t->arr), cap, *nr, t->size);
	char *row;

	if (!arr)
		return NULL;
	rows_array_set(base, t->arr, arr);
	row = (char *)arr + *nr * t->size;
	memset(row, 0, t->size);
	(*nr)++;
	return row;
}

/* A run with a value out of its range (limits.c): refused before anything
 * is derived from it, the value named. */
static void unusable_say(const struct store *s, int64_t run_id, const struct strbuf *why,
			 struct strbuf *err)
{
	strbuf_addf(err,
		    "%s: run %" PRId64
		    " is unusable: %s (no run writes that; diskproof delete %" PRId64
		    " removes the run)",
		    s->path, run_id, why->buf, run_id);
}

/* Every row of t (of run run_id, when its query takes one) into base, each
 * checked against its table's limits first. */
static int rows_load(struct store *s, const struct rows_spec *t, void *base, int64_t run_id,
		     struct strbuf *err)
{
	struct strbuf why = STRBUF_INIT;
	struct store_row_limits rl;
	sqlite3_stmt *st;
	size_t cap = 0;
	void *row = NULL;
	int ret = 0, rc = SQLITE_DONE;

	if (t->count_sql)
		ret = rows_presize(s, t, base, run_id, &cap, err);
	if (ret)
		return ret;
	ret = store_prepare(s, t->sql, &st, 0, err);
	if (ret)
		return ret;
	if (sqlite3_bind_parameter_count(st))
		sqlite3_bind_int64(st, 1, run_id);
	ret = store_row_limits_init(&rl, t->table ? t->table : "", st);
	while (!ret && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		if ((ret = store_row_check(&rl, st, &why)))
			break;
		/* rows may arrive after the count (a run still writing) */
		if (t->size && !(row = rows_next(t, base, &cap)))
			ret = -ENOMEM;
		else
			ret = t->read(st, row, base);
	}
	store_row_limits_release(&rl);
	if (ret == -ERANGE)
		unusable_say(s, run_id, &why, err);
	else if (ret == -ENOMEM)
		strbuf_addf(err, "%s: %s: out of memory", s->path, t->what);
	else if (ret)
		strbuf_addf(err, "%s: run %" PRId64 ": %s", s->path, run_id,
			    t->bad ? t->bad : "unreadable row");
	else if (rc != SQLITE_DONE)
		ret = store_fail(s, err, rc, t->what);
	else if (t->done && (ret = t->done(base)) == -ENOMEM)
		strbuf_addf(err, "%s: %s: out of memory", s->path, t->what);
	sqlite3_finalize(st);
	strbuf_release(&why);
	return ret;
}

/* The rows of store_run_list(). */
struct run_list {
	struct store_run_brief *v;
	size_t n;
};

static int brief_row_read(sqlite3_stmt *st, void *row, void *base)
{
	struct store_run_brief *r = row;

	r->id = sqlite3_column_int64(st, 0);
	snprintf(r->status, sizeof(r->status), "%s", sqlite3_column_text(st, 1));
	snprintf(r->verdict, sizeof(r->verdict), "%s", sqlite3_column_text(st, 2));
	snprintf(r->label, sizeof(r->label), "%s", sqlite3_column_text(st, 3));
	snprintf(r->host, sizeof(r->host), "%s", sqlite3_column_text(st, 4));
	snprintf(r->started_at, sizeof(r->started_at), "%s", sqlite3_column_text(st, 5));
	r->duration_s = sqlite3_column_double(st, 6);
	snprintf(r->profile, sizeof(r->profile), "%s", sqlite3_column_text(st, 7));
	snprintf(r->engine, sizeof(r->engine), "%s", sqlite3_column_text(st, 8));
	r->transactional_iops = sqlite3_column_double(st, 9);
	r->pid = sqlite3_column_int64(st, 10);
	snprintf(r->uuid, sizeof(r->uuid), "%s", sqlite3_column_text(st, 11));
	snprintf(r->ended_at, sizeof(r->ended_at), "%s", sqlite3_column_text(st, 12));
	snprintf(r->test_type, sizeof(r->test_type), "%s", sqlite3_column_text(st, 13));
	r->exit_code = sqlite3_column_int64(st, 14);
	r->has_exit_code = sqlite3_column_type(st, 14) != SQLITE_NULL;
	snprintf(r->machine, sizeof(r->machine), "%s", sqlite3_column_text(st, 15));
	r->series_id = sqlite3_column_int64(st, 16);
	r->series_index = (unsigned)sqlite3_column_int64(st, 17);
	r->series_size = (unsigned)sqlite3_column_int64(st, 18);
	return 0;
}

static const struct rows_spec run_list_rows = {
	.what = "list runs",
	.sql = "SELECT id, status, coalesce(verdict, ''), coalesce(label, ''),"
	       " coalesce(host, ''), started_at, coalesce(duration_s, 0),"
	       " coalesce(profile_name, ''), coalesce(engine, ''),"
	       " (SELECT coalesce(sum(iops), 0) FROM summary WHERE run_id = run.id"
	       "  AND scope = 'run' AND class IN ('db_read', 'db_write')),"
	       " coalesce(pid, 0), coalesce(uuid, ''), coalesce(ended_at, ''),"
	       " coalesce(test_type, ''), exit_code,"
	       " coalesce((SELECT value FROM env WHERE run_id = run.id AND key = 'hostname'),"
	       "  host, ''),"
	       /* a series is named by the lowest run id among its runs */
	       " CASE WHEN series_uuid IS NULL THEN 0 ELSE"
	       "  (SELECT min(s.id) FROM run s WHERE s.series_uuid = run.series_uuid) END,"
	       " coalesce(series_index, 0), coalesce(series_size, 0)"
	       " FROM run ORDER BY id",
	.arr = offsetof(struct run_list, v),
	.nr = offsetof(struct run_list, n),
	.size = sizeof(struct store_run_brief),
	.read = brief_row_read,
};

/* Marks b unusable when its run row or its summaries hold a value out of
 * its range (limits.c): the list shows such a run, so that it can be
 * deleted; its other rows are checked when it is loaded. */
static int brief_check(struct store *s, struct store_run_brief *b, struct strbuf *err)
{
	struct strbuf why = STRBUF_INIT;
	int ret = store_run_check(s, "main", b->id, false, &why, err);

	if (ret == -ERANGE)
		snprintf(b->unusable, sizeof(b->unusable), "%s", why.buf);
	strbuf_release(&why);
	return ret == -ERANGE ? 0 : ret;
}

int store_run_list(struct store *s, struct store_run_brief **out, size_t *count, struct strbuf *err)
{
	struct run_list l = {NULL, 0};
	int ret;

	*out = NULL;
	*count = 0;
	ret = rows_load(s, &run_list_rows, &l, 0, err);
	for (size_t i = 0; i < l.n && !ret; i++)
		ret = brief_check(s, &l.v[i], err);
	if (ret) {
		free(l.v);
		return ret;
	}
	*out = l.v;
	*count = l.n;
	return 0;
}

int store_run_latest(struct store *s, int64_t *run_id, struct strbuf *err)
{
	sqlite3_stmt *st;
	int ret, rc;

	ret = store_prepare(s, "SELECT max(id) FROM run", &st, 0, err);
	if (ret)
		return ret;
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		ret = store_fail(s, err, rc, "find the latest run");
	} else if (sqlite3_column_type(st, 0) == SQLITE_NULL) {
		strbuf_addf(err, "%s: no runs in this results file", s->path);
		ret = -ENOENT;
	} else {
		*run_id = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	return ret;
}

/* The run's clock (schema 7): run.t0_utc as Unix ms, which julianday()
 * gives to well under a millisecond, rounded. */
static int store_load_clock(struct store *s, int64_t run_id, struct results *r, struct strbuf *err)
{
	sqlite3_stmt *st;
	int ret, rc;

	ret = store_prepare(s,
			    "SELECT CAST(round((julianday(t0_utc) - 2440587.5) * 86400000.0)"
			    " AS INTEGER) FROM run WHERE id = ?",
			    &st, 0, err);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, run_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		r->t0_known = sqlite3_column_type(st, 0) != SQLITE_NULL;
		r->t0_unix_ms = r->t0_known ? sqlite3_column_int64(st, 0) : 0;
	} else if (rc != SQLITE_DONE) {
		ret = store_fail(s, err, rc, "load run clock");
	}
	sqlite3_finalize(st);
	return ret;
}

int store_run_text(struct store *s, int64_t run_id, const char *sql, const char *what, char *out,
		   size_t len, struct strbuf *err)
{
	sqlite3_stmt *st;
	int ret, rc;

	out[0] = '\0';
	ret = store_prepare(s, sql, &st, 0, err);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, run_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_TEXT)
		snprintf(out, len, "%s", (const char *)sqlite3_column_text(st, 0));
	else if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		ret = store_fail(s, err, rc, what);
	sqlite3_finalize(st);
	return ret;
}

int store_run_uuid(struct store *s, int64_t run_id, char *out, size_t len, struct strbuf *err)
{
	return store_run_text(s, run_id, "SELECT uuid FROM run WHERE id = ?", "read the run's uuid",
			      out, len, err);
}

/* The run row st holds, against the limits of table run. */
static int run_row_check(const struct store *s, int64_t run_id, sqlite3_stmt *st,
			 struct strbuf *err)
{
	struct strbuf why = STRBUF_INIT;
	struct store_row_limits rl;
	int ret;

	ret = store_row_limits_init(&rl, "run", st);
	if (!ret)
		ret = store_row_check(&rl, st, &why);
	store_row_limits_release(&rl);
	if (ret == -ERANGE)
		unusable_say(s, run_id, &why, err);
	else if (ret)
		strbuf_addf(err, "%s: load run: out of memory", s->path);
	strbuf_release(&why);
	return ret;
}

static int store_load_run(struct store *s, int64_t run_id, struct results *r, struct strbuf *err)
{
	char **const strs[] = {&r->status,	 &r->verdict,	      &r->label,
			       &r->host,	 &r->started_at,      &r->ended_at,
			       &r->profile_name, &r->profile_text,    &r->command_line,
			       &r->engine,	 &r->test_type,	      &r->uuid,
			       &r->start_at,	 &r->load_started_at, &r->series_uuid};
	sqlite3_stmt *st;
	int ret, rc;
	size_t i;

	ret = store_prepare(
		s,
		"SELECT status, verdict, label, host, started_at, ended_at,"
		" profile_name, profile_text, command_line, engine, test_type, uuid,"
		" start_at, load_started_at, series_uuid, duration_s, warmup_s, streams,"
		" exit_code, series_index, series_size FROM run WHERE id = ?",
		&st, 0, err);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, run_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_DONE) {
		strbuf_addf(err, "%s: run %" PRId64 " not found", s->path, run_id);
		ret = -ENOENT;
		goto out_finalize;
	}
	if (rc != SQLITE_ROW) {
		ret = store_fail(s, err, rc, "load run");
		goto out_finalize;
	}
	ret = run_row_check(s, run_id, st, err);
	if (ret)
		goto out_finalize;
	r->id = run_id;
	for (i = 0; i < DP_ARRAY_SIZE(strs) && !ret; i++)
		ret = column_dup(st, (int)i, strs[i]);
	if (ret) {
		strbuf_addf(err, "%s: load run: out of memory", s->path);
		goto out_finalize;
	}
	r->duration_s = sqlite3_column_double(st, 15);
	r->warmup_s = sqlite3_column_double(st, 16);
	r->streams = (unsigned)sqlite3_column_int64(st, 17);
	r->exit_code = sqlite3_column_int(st, 18);
	/* 1..STORE_SERIES_MAX or NULL (0), run_row_check saw to it */
	r->series_index = (unsigned)sqlite3_column_int64(st, 19);
	r->series_size = (unsigned)sqlite3_column_int64(st, 20);
	snprintf(r->run.name, sizeof(r->run.name), "run");
out_finalize:
	sqlite3_finalize(st);
	return ret;
}

/*
 * The scope a summary row belongs to, appended on first sight. Rows of one
 * scope are written together, so the last entry is checked first.
 */
static struct scope_summary *results_scope_get(struct scope_summary **arr, size_t *nr,
					       const char *name)
{
	struct scope_summary *n;
	size_t i;

	if (*nr && !strcmp((*arr)[*nr - 1].name, name))
		return &(*arr)[*nr - 1];
	for (i = 0; i < *nr; i++)
		if (!strcmp((*arr)[i].name, name))
			return &(*arr)[i];
	n = realloc(*arr, (*nr + 1) * sizeof(**arr));
	if (!n)
		return NULL;
	*arr = n;
	memset(&n[*nr], 0, sizeof(n[*nr]));
	n[*nr].streams = NAN;
	for (i = 0; i < IO_CLASS_COUNT; i++)
		n[*nr].classes[i].max_sample_avg_ms = NAN;
	snprintf(n[*nr].name, sizeof(n[*nr].name), "%s", name);
	return &n[(*nr)++];
}

/* One class of a summary row into its scope. */
static void class_summary_read(sqlite3_stmt *st, struct scope_summary *sc, enum io_class c)
{
	struct class_summary *cs = &sc->classes[c];
	uint64_t *counts[] = {&cs->ios, &cs->bytes, &cs->errors};
	double *figs[] = {&cs->iops, &cs->mbps, &cs->avg_ms, &cs->p50_ms, &cs->p99_ms, &cs->max_ms};
	size_t i;

	column_name(st, 2, sc->volume);
	for (i = 0; i < DP_ARRAY_SIZE(counts); i++)
		*counts[i] = column_u64(st, 4 + (int)i);
	for (i = 0; i < DP_ARRAY_SIZE(figs); i++)
		*figs[i] = sqlite3_column_double(st, 7 + (int)i);
	cs->max_sample_avg_ms = NAN; /* until its scope_extra row says (schema 5) */
	sc->integrity_errors = column_u64(st, 13);
}

/* The scope a row names in its columns 0 (kind) and 1 (name): the run's, or
 * a volume's or a database's, appended on first sight. */
static int row_scope(sqlite3_stmt *st, struct results *r, struct scope_summary **sc)
{
	int kind = results_scope_kind_from_name((const char *)sqlite3_column_text(st, 0));
	char name[RESULTS_NAME_MAX];

	if (kind < 0)
		return -EIO;
	column_name(st, 1, name);
	if (kind == SCOPE_RUN)
		*sc = &r->run;
	else if (kind == SCOPE_VOLUME)
		*sc = results_scope_get(&r->volumes, &r->nr_volumes, name);
	else
		*sc = results_scope_get(&r->databases, &r->nr_databases, name);
	return *sc ? 0 : -ENOMEM;
}

/* A scope_extra row (schema 5) into the scope its summary rows made: the
 * class's sample maximum, the scope's page fault stalls. */
static int extra_row_read(sqlite3_stmt *st, void *row, void *base)
{
	const char *cls = (const char *)sqlite3_column_text(st, 2);
	int c = stats_io_class_from_name(cls ? cls : "");
	struct results *r = base;
	struct scope_summary *sc;
	int ret;

	(void)row;
	if (c < 0)
		return -EIO;
	ret = row_scope(st, r, &sc);
	if (ret)
		return ret;
	r->sample_s = (double)column_u64(st, 3) / 1e3;
	if (sqlite3_column_type(st, 4) != SQLITE_NULL)
		sc->classes[c].max_sample_avg_ms = sqlite3_column_double(st, 4);
	if (sqlite3_column_type(st, 5) != SQLITE_NULL) {
		sc->stalls_recorded = true;
		sc->page_fault_stalls = column_u64(st, 5);
		sc->page_fault_stalls_per_s =
			r->duration_s > 0 ? (double)sc->page_fault_stalls / r->duration_s : 0;
	}
	return 0;
}

/* A txn_total row (schema 9) into the scope its summary rows made. */
static int txn_row_read(sqlite3_stmt *st, void *row, void *base)
{
	struct results *r = base;
	struct scope_summary *sc;
	int ret;

	(void)row;
	ret = row_scope(st, r, &sc);
	if (ret)
		return ret;
	sc->txns_recorded = true;
	sc->txns = column_u64(st, 2);
	sc->log_commits = column_u64(st, 3);
	sc->tps = r->duration_s > 0 ? (double)sc->txns / r->duration_s : 0;
	return 0;
}

/* A response row (schema 11) into the scope its summary rows made: an
 * open-loop run's response times of a class. */
static int response_row_read(sqlite3_stmt *st, void *row, void *base)
{
	const char *cls = (const char *)sqlite3_column_text(st, 2);
	int c = stats_io_class_from_name(cls ? cls : "");
	struct scope_summary *sc;
	struct class_summary *cs;
	int ret;

	(void)row;
	if (c < 0)
		return -EIO;
	ret = row_scope(st, base, &sc);
	if (ret)
		return ret;
	sc->response_recorded = true;
	cs = &sc->response[c];
	cs->ios = column_u64(st, 3);
	cs->avg_ms = sqlite3_column_double(st, 4);
	cs->p50_ms = sqlite3_column_double(st, 5);
	cs->p99_ms = sqlite3_column_double(st, 6);
	cs->max_ms = sqlite3_column_double(st, 7);
	cs->max_sample_avg_ms = cs->p999_ms = cs->p9999_ms = NAN;
	return 0;
}

/* A summary row into the scope it names: the run's, or a volume's or a
 * database's, appended on first sight. */
static int summary_row_read(sqlite3_stmt *st, void *row, void *base)
{
	const char *cls = (const char *)sqlite3_column_text(st, 3);
	int c = stats_io_class_from_name(cls ? cls : "");
	struct scope_summary *sc;
	int ret;

	if (c < 0)
		return -EIO;
	ret = row_scope(st, base, &sc);
	if (ret)
		return ret;
	class_summary_read(st, sc, c);
	return 0;
}

/* A stream_share row into the scope it names (loaded after the summaries,
 * so every scope with streams has its entry; one without is skipped). */
static int streams_row_read(sqlite3_stmt *st, void *row, void *base)
{
	int kind = results_scope_kind_from_name((const char *)sqlite3_column_text(st, 0));
	char name[RESULTS_NAME_MAX];
	struct results *r = base;
	struct scope_summary *arr = kind == SCOPE_VOLUME ? r->volumes : r->databases;
	size_t n = kind == SCOPE_VOLUME ? r->nr_volumes : r->nr_databases;

	(void)row;
	if (kind < 0)
		return -EIO;
	column_name(st, 1, name);
	if (kind == SCOPE_RUN) {
		r->run.streams = sqlite3_column_double(st, 2);
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		if (!strcmp(arr[i].name, name))
			arr[i].streams = sqlite3_column_double(st, 2);
	return 0;
}

/* The database scope named in column 0, or NULL when the summaries have
 * none (a run killed before its first checkpoint shows no databases). */
static struct scope_summary *database_named(sqlite3_stmt *st, struct results *r)
{
	char name[RESULTS_NAME_MAX];

	column_name(st, 0, name);
	for (size_t i = 0; i < r->nr_databases; i++)
		if (!strcmp(r->databases[i].name, name))
			return &r->databases[i];
	return NULL;
}

/* A database row's size: the file's size when the run started. */
static int size_row_read(sqlite3_stmt *st, void *row, void *base)
{
	struct scope_summary *d = database_named(st, base);

	(void)row;
	if (d) {
		d->size_known = true;
		d->size = column_u64(st, 1);
	}
	return 0;
}

/* A database_final row (schema 6): the file's size when the run ended. */
static int final_size_row_read(sqlite3_stmt *st, void *row, void *base)
{
	struct scope_summary *d = database_named(st, base);

	(void)row;
	if (d) {
		d->final_size_known = true;
		d->final_size = column_u64(st, 1);
	}
	return 0;
}

static int verdict_row_read(sqlite3_stmt *st, void *row, void *base)
{
	const char *scope = (const char *)sqlite3_column_text(st, 0);
	const char *cmp = (const char *)sqlite3_column_text(st, 4);
	int kind = results_scope_kind_from_name(scope);
	struct verdict *v = row;

	if (kind < 0 || !cmp || (strcmp(cmp, "<=") && strcmp(cmp, ">=")))
		return -EIO;
	v->scope = kind;
	column_name(st, 1, v->name);
	column_name(st, 2, v->volume);
	snprintf(v->criterion, sizeof(v->criterion), "%s",
		 sqlite3_column_text(st, 3) ? (const char *)sqlite3_column_text(st, 3) : "");
	v->cmp = strcmp(cmp, ">=") ? VERDICT_LE : VERDICT_GE;
	v->threshold = sqlite3_column_double(st, 5);
	v->measured = sqlite3_column_double(st, 6);
	v->passed = sqlite3_column_int(st, 7) != 0;
	return 0;
}

static int sample_row_read(sqlite3_stmt *st, void *row, void *base)
{
	const char *scope = (const char *)sqlite3_column_text(st, 2);
	const char *cls = (const char *)sqlite3_column_text(st, 4);
	int kind = results_scope_kind_from_name(scope),
	    c = stats_io_class_from_name(cls ? cls : "");
	struct results_sample *o = row;
	uint64_t *counts[] = {&o->ios,	      &o->bytes,  &o->errors, &o->lat_sum_ns,
			      &o->lat_max_ns, &o->p50_ns, &o->p99_ns};
	size_t i;

	if (kind < 0 || c < 0)
		return -EIO;
	o->t_ms = column_u64(st, 0);
	o->warmup = sqlite3_column_int(st, 1) != 0;
	o->scope = kind;
	column_name(st, 3, o->name);
	o->cls = c;
	for (i = 0; i < DP_ARRAY_SIZE(counts); i++)
		*counts[i] = column_u64(st, 5 + (int)i);
	return 0;
}

static int txn_sample_row_read(sqlite3_stmt *st, void *row, void *base)
{
	int kind = results_scope_kind_from_name((const char *)sqlite3_column_text(st, 1));
	struct results_txn_sample *o = row;

	(void)base;
	if (kind < 0)
		return -EIO;
	o->t_ms = column_u64(st, 0);
	o->scope = kind;
	column_name(st, 2, o->name);
	o->txns = column_u64(st, 3);
	o->log_commits = column_u64(st, 4);
	return 0;
}

static int backlog_row_read(sqlite3_stmt *st, void *row, void *base)
{
	struct results_backlog_sample *o = row;

	(void)base;
	o->t_ms = column_u64(st, 0);
	o->warmup = sqlite3_column_int(st, 1) != 0;
	o->peak = column_u64(st, 2);
	o->mean = sqlite3_column_double(st, 3);
	o->busy_ms = column_u64(st, 4);
	o->streams = (unsigned)column_u64(st, 5);
	return 0;
}

static int env_row_read(sqlite3_stmt *st, void *row, void *base)
{
	struct results_env *n = row;

	if (column_dup(st, 0, &n->key) || column_dup(st, 1, &n->value))
		return -ENOMEM;
	return 0;
}

static int param_row_read(sqlite3_stmt *st, void *row, void *base)
{
	struct results_param *n = row;
	const unsigned char *src = sqlite3_column_text(st, 4);

	column_name(st, 0, n->section);
	column_name(st, 1, n->name);
	column_name(st, 2, n->key);
	snprintf(n->source, sizeof(n->source), "%s", src ? (const char *)src : "");
	return column_dup(st, 3, &n->value) ? -ENOMEM : 0;
}

/*
 * What the run row says the command line changed in a stored profile: the
 * engine, the warm-up, the stream count (a profile's auto excepted: the row
 * has the tuned count) and, for a run that ran its length (passed or
 * failed), its duration to the second. Applied as options, so they read
 * "option" as the run's own parameters would.
 */
static void params_row_overrides(const struct results *r, const struct profile *p,
				 struct profile_overrides *o)
{
	double dur = (double)p->duration_ns / 1e9, warm = (double)p->warmup_ns / 1e9;

	memset(o, 0, sizeof(*o));
	if (r->engine && strcmp(r->engine, p->engine))
		o->engine = r->engine;
	if (fabs(r->warmup_s - warm) > 0.5) {
		o->has_warmup = true;
		o->warmup_ns = (uint64_t)llround(r->warmup_s) * NSEC_PER_SEC;
	}
	if (r->streams && p->streams != PROFILE_STREAMS_AUTO && r->streams != p->streams &&
	    !(p->streams == 0 && r->streams == profile_streams_default(profile_database_count(p))))
		o->streams = r->streams;
	if (r->status && (!strcmp(r->status, "passed") || !strcmp(r->status, "failed")) &&
	    fabs(r->duration_s - dur) > 1.0 && r->duration_s >= 1.0) {
		o->has_duration = true;
		o->duration_ns = (uint64_t)llround(r->duration_s) * NSEC_PER_SEC;
	}
}

/*
 * A run from before schema 6 stored no parameters: they are read back from
 * its profile text, parsed under the run's profile name (the name a profile
 * without [test] name takes from its file), with what the run row says the
 * command line changed (params_row_overrides). Other options (--db-size,
 * --data-dir) are not known: params_from_text says so. A text this build no
 * longer accepts gives none.
 */
static int params_from_text(struct results *r)
{
	struct profile p;
	struct profile_overrides o;
	struct profile_param *pp = NULL;
	struct strbuf why = STRBUF_INIT, origin = STRBUF_INIT;
	size_t n = 0;
	int ret = 0;

	if (r->nr_params || !r->profile_text)
		return 0;
	strbuf_addf(&origin, "%s.ini", r->profile_name ? r->profile_name : "stored profile");
	if (profile_parse(&p, origin.buf, r->profile_text, strlen(r->profile_text), &why))
		goto out;
	params_row_overrides(r, &p, &o);
	if (profile_apply_overrides(&p, &o, &why)) {
		/* the row's figures break a rule: the text's own values then */
		profile_release(&p);
		if (profile_parse(&p, origin.buf, r->profile_text, strlen(r->profile_text), &why))
			goto out;
	}
	if (profile_params(&p, &pp, &n)) {
		ret = -ENOMEM;
		goto out;
	}
	r->params = calloc(n ? n : 1, sizeof(*r->params));
	if (!r->params) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		struct results_param *op = &r->params[i];

		snprintf(op->section, sizeof(op->section), "%s", pp[i].section);
		snprintf(op->name, sizeof(op->name), "%s", pp[i].name);
		snprintf(op->key, sizeof(op->key), "%s", pp[i].key);
		snprintf(op->source, sizeof(op->source), "%s",
			 profile_param_source_name(pp[i].source));
		op->value = pp[i].value; /* handed over */
		pp[i].value = NULL;
		r->nr_params++;
	}
	r->params_from_text = true;
out:
	profile_params_release(pp, n);
	profile_release(&p);
	strbuf_release(&why);
	strbuf_release(&origin);
	return ret;
}

static int event_row_read(sqlite3_stmt *st, void *row, void *base)
{
	struct results_event *n = row;

	n->t_ms = column_u64(st, 0);
	if (column_dup(st, 1, &n->kind) || column_dup(st, 2, &n->message))
		return -ENOMEM;
	return 0;
}

/* One histogram row into o (o->h allocated here, freed by results_release). */
static int hist_row_read(sqlite3_stmt *st, void *row, void *base)
{
	const char *scope = (const char *)sqlite3_column_text(st, 0);
	const char *cls = (const char *)sqlite3_column_text(st, 2);
	const char *buckets = (const char *)sqlite3_column_text(st, 9);
	int kind = results_scope_kind_from_name(scope),
	    c = stats_io_class_from_name(cls ? cls : "");
	struct results_hist *o = row;

	if (kind < 0 || c < 0 || sqlite3_column_int(st, 3) != HIST_BITS ||
	    sqlite3_column_int(st, 4) != HIST_MAX_BITS)
		return -EIO;
	o->scope = kind;
	column_name(st, 1, o->name);
	o->cls = c;
	o->h = malloc(sizeof(*o->h));
	if (!o->h)
		return -ENOMEM;
	hist_init(o->h);
	if (hist_decode(o->h, buckets ? buckets : ""))
		return -EIO;
	o->h->count = column_u64(st, 5);
	o->h->sum_ns = column_u64(st, 6);
	if (sqlite3_column_type(st, 7) != SQLITE_NULL)
		o->h->min_ns = column_u64(st, 7);
	o->h->max_ns = column_u64(st, 8);
	return 0;
}

static int autotune_row_read(sqlite3_stmt *st, void *row, void *base)
{
	struct results_autotune_step *o = row;
	int col[] = {2, 3, 4};
	double *val[] = {&o->iops, &o->db_read_avg_ms, &o->log_write_avg_ms};
	size_t i;

	o->step = (unsigned)column_u64(st, 0);
	o->streams = (unsigned)column_u64(st, 1);
	for (i = 0; i < DP_ARRAY_SIZE(col); i++)
		*val[i] = sqlite3_column_type(st, col[i]) == SQLITE_NULL
				  ? NAN
				  : sqlite3_column_double(st, col[i]);
	o->passed = sqlite3_column_int(st, 5) != 0;
	return column_dup(st, 6, &o->reason);
}

static int host_row_read(sqlite3_stmt *st, void *row, void *base)
{
	struct results_host_sample *o = row;
	double *figs[] = {&o->cpu_user_pct,  &o->cpu_system_pct, &o->cpu_iowait_pct,
			  &o->mem_available, &o->reads_per_s,	 &o->writes_per_s,
			  &o->read_kbps,     &o->write_kbps,	 &o->read_wait_ms,
			  &o->write_wait_ms, &o->avg_wait_ms,	 &o->util_pct,
			  &o->queue};
	static const int cols[] = {4, 5, 6, 7, 12, 13, 14, 15, 16, 17, 18, 19, 20};
	size_t i;

	o->t_ms = column_u64(st, 0);
	o->warmup = sqlite3_column_int(st, 1) != 0;
	column_name(st, 2, o->device);
	o->span_ms = column_u64(st, 3);
	for (i = 0; i < DP_ARRAY_SIZE(cols); i++)
		*figs[i] = column_fig(st, cols[i]);
	o->reads = column_u64(st, 8);
	o->writes = column_u64(st, 9);
	o->read_sectors = column_u64(st, 10);
	o->write_sectors = column_u64(st, 11);
	return 0;
}

/*
 * One interval_histogram row into o, in bands (results_band_of_bucket): the
 * buckets are decoded into a scratch histogram, then summed band by band
 * from the first band holding an I/O to the last.
 */
static int window_row_read(sqlite3_stmt *st, void *row, void *base)
{
	const char *scope = (const char *)sqlite3_column_text(st, 2);
	const char *cls = (const char *)sqlite3_column_text(st, 4);
	const char *buckets = (const char *)sqlite3_column_text(st, 6);
	int kind = results_scope_kind_from_name(scope),
	    c = stats_io_class_from_name(cls ? cls : "");
	struct results_window *o = row;
	unsigned i, first = HIST_BUCKETS, last = 0;
	struct hist *h;
	int ret = 0;

	(void)base;
	if (kind < 0 || c < 0)
		return -EIO;
	o->t_ms = column_u64(st, 0);
	o->warmup = sqlite3_column_int(st, 1) != 0;
	o->scope = kind;
	column_name(st, 3, o->name);
	o->cls = c;
	o->count = column_u64(st, 5);
	h = malloc(sizeof(*h));
	if (!h)
		return -ENOMEM;
	hist_init(h);
	if (hist_decode(h, buckets ? buckets : "")) {
		ret = -EIO;
		goto out_free;
	}
	for (i = 0; i < HIST_BUCKETS; i++) {
		if (!h->buckets[i])
			continue;
		first = i < first ? i : first;
		last = i;
	}
	if (first == HIST_BUCKETS)
		goto out_free;
	o->lo = results_band_of_bucket(first);
	o->nr = results_band_of_bucket(last) - o->lo + 1;
	o->bands = calloc(o->nr, sizeof(*o->bands));
	if (!o->bands) {
		o->nr = 0;
		ret = -ENOMEM;
		goto out_free;
	}
	for (i = first; i <= last; i++)
		o->bands[results_band_of_bucket(i) - o->lo] += h->buckets[i];
out_free:
	free(h);
	return ret;
}

#define RESULTS_ARRAY(arr_, nr_)                                                                   \
	.arr = offsetof(struct results, arr_), .nr = offsetof(struct results, nr_),                \
	.size = sizeof(*((struct results *)0)->arr_)

/* A run's rows after its run row, in this order (auto-tune reads env facts):
 * {what, bad, count_sql, sql, array, read, done, table}, as in struct rows_spec. */
static const struct rows_spec results_rows[] = {
	{"load summaries", "summary row of unknown scope or class", NULL,
	 "SELECT scope, name, volume, class, ios, bytes, errors, iops, mbps,"
	 " avg_ms, p50_ms, p99_ms, max_ms, integrity_errors"
	 " FROM summary WHERE run_id = ? ORDER BY rowid",
	 0, 0, 0, summary_row_read, NULL, "summary"},
	/* time-averaged streams per scope (schema 5; older runs have none) */
	{"load stream shares", "stream_share row of unknown scope", NULL,
	 "SELECT scope, name, streams FROM stream_share WHERE run_id = ? ORDER BY rowid", 0, 0, 0,
	 streams_row_read, NULL, "stream_share"},
	/* what schema 5 adds to the summaries (a migrated older file has the
	 * table, empty: its figures stay unknown) */
	{"load sample maxima and stalls", "scope_extra row of unknown scope or class", NULL,
	 "SELECT scope, name, class, sample_ms, max_sample_avg_ms, page_fault_stalls"
	 " FROM scope_extra WHERE run_id = ? ORDER BY rowid",
	 0, 0, 0, extra_row_read, NULL, "scope_extra"},
	/* transactions per scope (schema 9; a migrated older file has the
	 * table, empty: not counted) */
	{"load transactions", "txn_total row of unknown scope", NULL,
	 "SELECT scope, name, txns, log_commits FROM txn_total WHERE run_id = ? ORDER BY rowid", 0,
	 0, 0, txn_row_read, NULL, "txn_total"},
	/* open loop's response times per scope (schema 11; closed-loop runs
	 * and a migrated older file have none) */
	{"load response times", "response row of unknown scope or class", NULL,
	 "SELECT scope, name, class, ios, avg_ms, p50_ms, p99_ms, max_ms FROM response"
	 " WHERE run_id = ? ORDER BY rowid",
	 0, 0, 0, response_row_read, NULL, "response"},
	/* each database's size at the start (table database) and at the end
	 * (database_final, schema 6: a killed run has no rows there) */
	{"load database sizes", NULL, NULL,
	 "SELECT name, size FROM \"database\" WHERE run_id = ? ORDER BY rowid", 0, 0, 0,
	 size_row_read, NULL, "database"},
	{"load final database sizes", NULL, NULL,
	 "SELECT name, size FROM database_final WHERE run_id = ? ORDER BY rowid", 0, 0, 0,
	 final_size_row_read, NULL, "database_final"},
	{"load verdicts", "verdict row of unknown scope or cmp", NULL,
	 "SELECT scope, name, volume, criterion, cmp, threshold, measured,"
	 " passed FROM verdict WHERE run_id = ? ORDER BY rowid",
	 RESULTS_ARRAY(verdicts, nr_verdicts), verdict_row_read, NULL, "verdict"},
	/* The time series. Index sample_run (run_id, t_ms) hands the rows over
	 * already in (t_ms, rowid) order, so the query sorts nothing; the array
	 * is sized once from a count over the same index. */
	{"load samples", "sample row of unknown scope or class",
	 "SELECT count(*) FROM sample WHERE run_id = ?",
	 "SELECT t_ms, warmup, scope, scope_name, class, ios, bytes, errors,"
	 " lat_sum_ns, lat_max_ns, p50_ns, p99_ns FROM sample WHERE run_id = ?"
	 " ORDER BY t_ms, rowid",
	 RESULTS_ARRAY(samples, nr_samples), sample_row_read, NULL, "sample"},
	/* transactions per interval (schema 9), in the samples' order */
	{"load transaction samples", "txn_sample row of unknown scope",
	 "SELECT count(*) FROM txn_sample WHERE run_id = ?",
	 "SELECT t_ms, scope, name, txns, log_commits FROM txn_sample WHERE run_id = ?"
	 " ORDER BY t_ms, rowid",
	 RESULTS_ARRAY(txn_samples, nr_txn_samples), txn_sample_row_read, NULL, "txn_sample"},
	/* open loop's own queue per interval (schema 12; none closed loop) */
	{"load backlog samples", NULL, "SELECT count(*) FROM backlog_sample WHERE run_id = ?",
	 "SELECT t_ms, warmup, peak, mean, busy_ms, streams FROM backlog_sample WHERE run_id = ?"
	 " ORDER BY t_ms, rowid",
	 RESULTS_ARRAY(backlog_samples, nr_backlog_samples), backlog_row_read, NULL,
	 "backlog_sample"},
	{"load env facts", NULL, NULL, "SELECT key, value FROM env WHERE run_id = ? ORDER BY key",
	 RESULTS_ARRAY(env, nr_env), env_row_read, NULL, "env"},
	/* the effective parameters (schema 6; a migrated older file has the
	 * table, empty) */
	{"load parameters", NULL, NULL,
	 "SELECT section, name, key, value, source FROM param WHERE run_id = ? ORDER BY rowid",
	 RESULTS_ARRAY(params, nr_params), param_row_read, params_from_text, "param"},
	{"load events", NULL, NULL,
	 "SELECT t_ms, kind, message FROM event WHERE run_id = ?"
	 " ORDER BY t_ms, rowid",
	 RESULTS_ARRAY(events, nr_events), event_row_read, NULL, "event"},
	{"load histograms",
	 "histogram row of unknown scope, class or geometry, or with bad buckets", NULL,
	 "SELECT scope, name, class, bits, max_bits, count, sum_ns, min_ns,"
	 " max_ns, buckets FROM histogram WHERE run_id = ? ORDER BY rowid",
	 RESULTS_ARRAY(hists, nr_hists), hist_row_read, NULL, "histogram"},
	/* Auto-tune's steps (table autotune_step, in every schema version; a run
	 * that did not tune has no rows) and, from the env facts loaded before,
	 * its goal, choice and why it stopped. */
	{"load auto-tune steps", NULL, NULL,
	 "SELECT step, streams, iops, db_read_avg_ms, log_write_avg_ms, passed,"
	 " reason FROM autotune_step WHERE run_id = ? ORDER BY step",
	 RESULTS_ARRAY(autotune.steps, autotune.nr_steps), autotune_row_read,
	 results_autotune_from_env, "autotune_step"},
	/* The host counters (schema 4; a migrated older file has the table,
	 * empty), in time order, the host row of an interval before its
	 * devices', and their figures over the measured intervals. */
	{"load host counters", NULL, NULL,
	 "SELECT t_ms, warmup, device, span_ms, cpu_user_pct, cpu_system_pct,"
	 " cpu_iowait_pct, mem_available, reads, writes, read_sectors,"
	 " write_sectors, reads_per_s, writes_per_s, read_kbps, write_kbps,"
	 " read_wait_ms, write_wait_ms, avg_wait_ms, util_pct, queue"
	 " FROM host_sample WHERE run_id = ? ORDER BY t_ms, rowid",
	 RESULTS_ARRAY(host_samples, nr_host_samples), host_row_read, results_host_perf_fill,
	 "host_sample"},
	/* The 15 s window histograms per volume and class (schema 3; a
	 * migrated older file has the table, empty), in bands: the HTML
	 * report's heatmaps. */
	{"load window histograms",
	 "interval_histogram row of unknown scope or class, or with bad"
	 " buckets",
	 "SELECT count(*) FROM interval_histogram WHERE run_id = ?",
	 "SELECT t_ms, warmup, scope, name, class, count, buckets FROM interval_histogram"
	 " WHERE run_id = ? ORDER BY t_ms, rowid",
	 RESULTS_ARRAY(windows, nr_windows), window_row_read, NULL, "interval_histogram"},
};

/* All the reads in one read transaction: one consistent snapshot. */
int store_results_load(struct store *s, int64_t run_id, struct results *r, struct strbuf *err)
{
	int ret;
	size_t i;

	memset(r, 0, sizeof(*r));
	for (i = 0; i < IO_CLASS_COUNT; i++)
		r->run.classes[i].max_sample_avg_ms = NAN;
	ret = store_exec(s, "BEGIN", "begin read", err);
	if (ret)
		return ret;
	r->run.streams = NAN;
	ret = store_load_run(s, run_id, r, err);
	if (!ret)
		ret = store_load_clock(s, run_id, r, err);
	if (!ret && r->series_uuid) /* its series' runs and spread (series.c) */
		ret = store_series_load(s, r->series_uuid, &r->series, err);
	for (i = 0; i < DP_ARRAY_SIZE(results_rows) && !ret; i++)
		ret = rows_load(s, &results_rows[i], r, r->id, err);
	if (!ret)
		ret = store_run_fingerprint_read(s, r->id, r, err);
	if (ret) {
		results_release(r);
		store_rollback(s);
		return ret;
	}
	results_warmup_fill(r);
	results_tail_fill(r);
	results_sizes_fill(r);
	store_rollback(s); /* read only: nothing to commit */
	return 0;
}
