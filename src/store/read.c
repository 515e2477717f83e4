/*
 * read.c - the store's reads: the list of runs, the latest run, and a
 * run's whole results model (run row, summaries, verdicts, samples, env
 * facts, events, histograms, auto-tune steps, host counters) in one read
 * transaction.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "store_internal.h"

int store_run_list(struct store *s, struct store_run_brief **out, size_t *count, struct strbuf *err)
{
	sqlite3_stmt *st;
	struct store_run_brief *v = NULL, *nv;
	size_t n = 0, cap = 0;
	int ret, rc;

	*out = NULL;
	*count = 0;
	ret = store_prepare(s,
			    "SELECT id, status, coalesce(verdict, ''), coalesce(label, ''),"
			    " coalesce(host, ''), started_at, coalesce(duration_s, 0),"
			    " coalesce(profile_name, ''), coalesce(engine, ''),"
			    " (SELECT coalesce(sum(iops), 0) FROM summary WHERE run_id = run.id"
			    "  AND scope = 'run' AND class IN ('db_read', 'db_write')),"
			    " coalesce(pid, 0)"
			    " FROM run ORDER BY id",
			    &st, 0, err);
	if (ret)
		return ret;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct store_run_brief *r;

		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				ret = -ENOMEM;
				strbuf_addf(err, "%s: list runs: out of memory", s->path);
				goto out;
			}
			v = nv;
		}
		r = &v[n++];
		memset(r, 0, sizeof(*r));
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
	}
	if (rc != SQLITE_DONE) {
		ret = store_fail(s, err, rc, "list runs");
		goto out;
	}
	*out = v;
	*count = n;
	v = NULL;
out:
	free(v);
	sqlite3_finalize(st);
	return ret;
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

static int store_load_run(struct store *s, int64_t run_id, struct results *r, struct strbuf *err)
{
	char **const strs[] = {&r->status,	 &r->verdict,  &r->label,	 &r->host,
			       &r->started_at,	 &r->ended_at, &r->profile_name, &r->profile_text,
			       &r->command_line, &r->engine,   &r->test_type};
	sqlite3_stmt *st;
	int ret, rc;
	size_t i;

	ret = store_prepare(s,
			    "SELECT status, verdict, label, host, started_at, ended_at,"
			    " profile_name, profile_text, command_line, engine, test_type,"
			    " duration_s, warmup_s, streams, exit_code FROM run WHERE id = ?",
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
	r->id = run_id;
	for (i = 0; i < DP_ARRAY_SIZE(strs) && !ret; i++)
		ret = column_dup(st, (int)i, strs[i]);
	if (ret) {
		strbuf_addf(err, "%s: load run: out of memory", s->path);
		goto out_finalize;
	}
	r->duration_s = sqlite3_column_double(st, 11);
	r->warmup_s = sqlite3_column_double(st, 12);
	r->streams = (unsigned)sqlite3_column_int64(st, 13);
	r->exit_code = sqlite3_column_int(st, 14);
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
	snprintf(n[*nr].name, sizeof(n[*nr].name), "%s", name);
	return &n[(*nr)++];
}

static void summary_row_read(sqlite3_stmt *st, struct scope_summary *sc, enum io_class c)
{
	struct class_summary *cs = &sc->classes[c];

	column_name(st, 2, sc->volume);
	cs->ios = column_u64(st, 4);
	cs->bytes = column_u64(st, 5);
	cs->errors = column_u64(st, 6);
	cs->iops = sqlite3_column_double(st, 7);
	cs->mbps = sqlite3_column_double(st, 8);
	cs->avg_ms = sqlite3_column_double(st, 9);
	cs->p50_ms = sqlite3_column_double(st, 10);
	cs->p99_ms = sqlite3_column_double(st, 11);
	cs->max_ms = sqlite3_column_double(st, 12);
	sc->integrity_errors = column_u64(st, 13);
}

static int store_load_summaries(struct store *s, struct results *r, struct strbuf *err)
{
	char name[RESULTS_NAME_MAX];
	struct scope_summary *sc;
	const char *scope, *cls;
	sqlite3_stmt *st;
	int ret, rc, kind, c;

	ret = store_prepare(s,
			    "SELECT scope, name, volume, class, ios, bytes, errors, iops, mbps,"
			    " avg_ms, p50_ms, p99_ms, max_ms, integrity_errors"
			    " FROM summary WHERE run_id = ? ORDER BY rowid",
			    &st, 0, err);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, r->id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		scope = (const char *)sqlite3_column_text(st, 0);
		cls = (const char *)sqlite3_column_text(st, 3);
		kind = scope_kind_from_name(scope);
		c = io_class_from_name(cls ? cls : "");
		if (kind < 0 || c < 0) {
			strbuf_addf(err,
				    "%s: run %" PRId64 ": summary row of unknown scope or class",
				    s->path, r->id);
			ret = -EIO;
			goto out_finalize;
		}
		column_name(st, 1, name);
		if (kind == SCOPE_RUN)
			sc = &r->run;
		else if (kind == SCOPE_VOLUME)
			sc = results_scope_get(&r->volumes, &r->nr_volumes, name);
		else
			sc = results_scope_get(&r->databases, &r->nr_databases, name);
		if (!sc) {
			strbuf_addf(err, "%s: load summaries: out of memory", s->path);
			ret = -ENOMEM;
			goto out_finalize;
		}
		summary_row_read(st, sc, c);
	}
	if (rc != SQLITE_DONE)
		ret = store_fail(s, err, rc, "load summaries");
out_finalize:
	sqlite3_finalize(st);
	return ret;
}

static int verdict_row_read(sqlite3_stmt *st, struct verdict *v)
{
	const char *scope = (const char *)sqlite3_column_text(st, 0);
	const char *cmp = (const char *)sqlite3_column_text(st, 4);
	int kind = scope_kind_from_name(scope);

	memset(v, 0, sizeof(*v));
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

static int store_load_verdicts(struct store *s, struct results *r, struct strbuf *err)
{
	struct verdict *n;
	sqlite3_stmt *st;
	int ret, rc;

	ret = store_prepare(s,
			    "SELECT scope, name, volume, criterion, cmp, threshold, measured,"
			    " passed FROM verdict WHERE run_id = ? ORDER BY rowid",
			    &st, 0, err);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, r->id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		n = realloc(r->verdicts, (r->nr_verdicts + 1) * sizeof(*n));
		if (!n) {
			strbuf_addf(err, "%s: load verdicts: out of memory", s->path);
			ret = -ENOMEM;
			goto out_finalize;
		}
		r->verdicts = n;
		if (verdict_row_read(st, &n[r->nr_verdicts])) {
			strbuf_addf(err, "%s: run %" PRId64 ": verdict row of unknown scope or cmp",
				    s->path, r->id);
			ret = -EIO;
			goto out_finalize;
		}
		r->nr_verdicts++;
	}
	if (rc != SQLITE_DONE)
		ret = store_fail(s, err, rc, "load verdicts");
out_finalize:
	sqlite3_finalize(st);
	return ret;
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

static int sample_row_read(sqlite3_stmt *st, struct results_sample *o)
{
	const char *scope = (const char *)sqlite3_column_text(st, 2);
	const char *cls = (const char *)sqlite3_column_text(st, 4);
	int kind = scope_kind_from_name(scope), c = io_class_from_name(cls ? cls : "");

	if (kind < 0 || c < 0)
		return -EIO;
	o->t_ms = column_u64(st, 0);
	o->warmup = sqlite3_column_int(st, 1) != 0;
	o->scope = kind;
	column_name(st, 3, o->name);
	o->cls = c;
	o->ios = column_u64(st, 5);
	o->bytes = column_u64(st, 6);
	o->errors = column_u64(st, 7);
	o->lat_sum_ns = column_u64(st, 8);
	o->lat_max_ns = column_u64(st, 9);
	o->p50_ns = column_u64(st, 10);
	o->p99_ns = column_u64(st, 11);
	return 0;
}

/*
 * The time series. Index sample_run (run_id, t_ms) hands the rows over already
 * in (t_ms, rowid) order, so the query sorts nothing; the array is sized once
 * from a count over the same index (a 2 h run has about 10^5 rows).
 */
static int store_load_samples(struct store *s, struct results *r, struct strbuf *err)
{
	struct results_sample *n;
	sqlite3_stmt *st;
	size_t cap = 0;
	int ret, rc;

	ret = store_prepare(s, "SELECT count(*) FROM sample WHERE run_id = ?", &st, 0, err);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, r->id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		cap = (size_t)column_u64(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return store_fail(s, err, rc, "load samples");
	if (cap) {
		r->samples = malloc(cap * sizeof(*r->samples));
		if (!r->samples) {
			strbuf_addf(err, "%s: load samples: out of memory", s->path);
			return -ENOMEM;
		}
	}
	ret = store_prepare(s,
			    "SELECT t_ms, warmup, scope, scope_name, class, ios, bytes, errors,"
			    " lat_sum_ns, lat_max_ns, p50_ns, p99_ns FROM sample WHERE run_id = ?"
			    " ORDER BY t_ms, rowid",
			    &st, 0, err);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, r->id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		/* rows may arrive between the count and here (a run still writing) */
		n = array_reserve(r->samples, &cap, r->nr_samples, sizeof(*n));
		if (!n) {
			strbuf_addf(err, "%s: load samples: out of memory", s->path);
			ret = -ENOMEM;
			goto out_finalize;
		}
		r->samples = n;
		if (sample_row_read(st, &n[r->nr_samples])) {
			strbuf_addf(err,
				    "%s: run %" PRId64 ": sample row of unknown scope or class",
				    s->path, r->id);
			ret = -EIO;
			goto out_finalize;
		}
		r->nr_samples++;
	}
	if (rc != SQLITE_DONE)
		ret = store_fail(s, err, rc, "load samples");
out_finalize:
	sqlite3_finalize(st);
	return ret;
}

static int store_load_env(struct store *s, struct results *r, struct strbuf *err)
{
	struct results_env *n;
	sqlite3_stmt *st;
	size_t cap = 0;
	int ret, rc;

	ret = store_prepare(s, "SELECT key, value FROM env WHERE run_id = ? ORDER BY key", &st, 0,
			    err);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, r->id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		n = array_reserve(r->env, &cap, r->nr_env, sizeof(*n));
		if (!n) {
			ret = -ENOMEM;
			break;
		}
		r->env = n;
		n = &n[r->nr_env++];
		n->value = NULL;
		if (column_dup(st, 0, &n->key) || column_dup(st, 1, &n->value)) {
			ret = -ENOMEM;
			break;
		}
	}
	if (ret)
		strbuf_addf(err, "%s: load env facts: out of memory", s->path);
	else if (rc != SQLITE_DONE)
		ret = store_fail(s, err, rc, "load env facts");
	sqlite3_finalize(st);
	return ret;
}

static int store_load_events(struct store *s, struct results *r, struct strbuf *err)
{
	struct results_event *n;
	sqlite3_stmt *st;
	size_t cap = 0;
	int ret, rc;

	ret = store_prepare(s,
			    "SELECT t_ms, kind, message FROM event WHERE run_id = ?"
			    " ORDER BY t_ms, rowid",
			    &st, 0, err);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, r->id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		n = array_reserve(r->events, &cap, r->nr_events, sizeof(*n));
		if (!n) {
			ret = -ENOMEM;
			break;
		}
		r->events = n;
		n = &n[r->nr_events++];
		n->t_ms = column_u64(st, 0);
		n->message = NULL;
		if (column_dup(st, 1, &n->kind) || column_dup(st, 2, &n->message)) {
			ret = -ENOMEM;
			break;
		}
	}
	if (ret)
		strbuf_addf(err, "%s: load events: out of memory", s->path);
	else if (rc != SQLITE_DONE)
		ret = store_fail(s, err, rc, "load events");
	sqlite3_finalize(st);
	return ret;
}

/* One histogram row into o (o->h allocated here, freed by results_release). */
static int hist_row_read(sqlite3_stmt *st, struct results_hist *o)
{
	const char *scope = (const char *)sqlite3_column_text(st, 0);
	const char *cls = (const char *)sqlite3_column_text(st, 2);
	const char *buckets = (const char *)sqlite3_column_text(st, 9);
	int kind = scope_kind_from_name(scope), c = io_class_from_name(cls ? cls : "");

	o->h = NULL;
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

static int store_load_hists(struct store *s, struct results *r, struct strbuf *err)
{
	struct results_hist *n;
	sqlite3_stmt *st;
	size_t cap = 0;
	int ret, rc;

	ret = store_prepare(s,
			    "SELECT scope, name, class, bits, max_bits, count, sum_ns, min_ns,"
			    " max_ns, buckets FROM histogram WHERE run_id = ? ORDER BY rowid",
			    &st, 0, err);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, r->id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		n = array_reserve(r->hists, &cap, r->nr_hists, sizeof(*n));
		if (!n) {
			ret = -ENOMEM;
		} else {
			r->hists = n;
			ret = hist_row_read(st, &n[r->nr_hists++]);
		}
		if (ret == -ENOMEM) {
			strbuf_addf(err, "%s: load histograms: out of memory", s->path);
			goto out_finalize;
		}
		if (ret) {
			strbuf_addf(err,
				    "%s: run %" PRId64 ": histogram row of unknown scope, class or"
				    " geometry, or with bad buckets",
				    s->path, r->id);
			goto out_finalize;
		}
	}
	if (rc != SQLITE_DONE)
		ret = store_fail(s, err, rc, "load histograms");
out_finalize:
	sqlite3_finalize(st);
	return ret;
}

static void autotune_row_read(sqlite3_stmt *st, struct results_autotune_step *o)
{
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
}

/*
 * Auto-tune's steps (table autotune_step, in every schema version; a run
 * that did not tune has no rows) and, from the env facts loaded before, its
 * goal, choice and why it stopped.
 */
static int store_load_autotune(struct store *s, struct results *r, struct strbuf *err)
{
	struct results_autotune *a = &r->autotune;
	struct results_autotune_step *n;
	sqlite3_stmt *st;
	size_t cap = 0;
	int ret, rc;

	ret = store_prepare(s,
			    "SELECT step, streams, iops, db_read_avg_ms, log_write_avg_ms, passed,"
			    " reason FROM autotune_step WHERE run_id = ? ORDER BY step",
			    &st, 0, err);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, r->id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		n = array_reserve(a->steps, &cap, a->nr_steps, sizeof(*n));
		if (!n) {
			ret = -ENOMEM;
			break;
		}
		a->steps = n;
		n = &n[a->nr_steps++];
		autotune_row_read(st, n);
		if (column_dup(st, 6, &n->reason)) {
			ret = -ENOMEM;
			break;
		}
	}
	if (!ret && rc != SQLITE_DONE)
		ret = store_fail(s, err, rc, "load auto-tune steps");
	else if (!ret)
		ret = results_autotune_from_env(r);
	if (ret == -ENOMEM)
		strbuf_addf(err, "%s: load auto-tune steps: out of memory", s->path);
	sqlite3_finalize(st);
	return ret;
}

/* A REAL column, NAN when NULL (a figure not measured). */
static double column_fig(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

static void host_row_read(sqlite3_stmt *st, struct results_host_sample *o)
{
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
}

/*
 * The host counters (schema 4; a migrated older file has the table, empty),
 * in time order, the host row of an interval before its devices', and their
 * figures over the measured intervals (results_host_perf_fill).
 */
static int store_load_host(struct store *s, struct results *r, struct strbuf *err)
{
	struct results_host_sample *n;
	sqlite3_stmt *st;
	size_t cap = 0;
	int ret, rc;

	ret = store_prepare(s,
			    "SELECT t_ms, warmup, device, span_ms, cpu_user_pct, cpu_system_pct,"
			    " cpu_iowait_pct, mem_available, reads, writes, read_sectors,"
			    " write_sectors, reads_per_s, writes_per_s, read_kbps, write_kbps,"
			    " read_wait_ms, write_wait_ms, avg_wait_ms, util_pct, queue"
			    " FROM host_sample WHERE run_id = ? ORDER BY t_ms, rowid",
			    &st, 0, err);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, r->id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		n = array_reserve(r->host_samples, &cap, r->nr_host_samples, sizeof(*n));
		if (!n) {
			ret = -ENOMEM;
			break;
		}
		r->host_samples = n;
		host_row_read(st, &n[r->nr_host_samples++]);
	}
	if (!ret && rc != SQLITE_DONE)
		ret = store_fail(s, err, rc, "load host counters");
	else if (!ret)
		ret = results_host_perf_fill(r);
	if (ret == -ENOMEM)
		strbuf_addf(err, "%s: load host counters: out of memory", s->path);
	sqlite3_finalize(st);
	return ret;
}

/* All the reads in one read transaction: one consistent snapshot. */
int store_results_load(struct store *s, int64_t run_id, struct results *r, struct strbuf *err)
{
	int ret;

	memset(r, 0, sizeof(*r));
	ret = store_exec(s, "BEGIN", "begin read", err);
	if (ret)
		return ret;
	ret = store_load_run(s, run_id, r, err);
	if (ret)
		goto out_release;
	ret = store_load_summaries(s, r, err);
	if (ret)
		goto out_release;
	ret = store_load_verdicts(s, r, err);
	if (ret)
		goto out_release;
	ret = store_load_samples(s, r, err);
	if (ret)
		goto out_release;
	ret = store_load_env(s, r, err);
	if (ret)
		goto out_release;
	ret = store_load_events(s, r, err);
	if (ret)
		goto out_release;
	ret = store_load_hists(s, r, err);
	if (ret)
		goto out_release;
	ret = store_load_autotune(s, r, err);
	if (ret)
		goto out_release;
	ret = store_load_host(s, r, err);
	if (ret)
		goto out_release;
	results_warmup_fill(r);
	store_rollback(s); /* read only: nothing to commit */
	return 0;

out_release:
	results_release(r);
	store_rollback(s);
	return ret;
}
