/* SPDX-License-Identifier: MIT */
/*
 * finish.c - the end of a run and its checkpoints: the run row's end, and
 * the summary, histogram and verdict rows of every scope total and the
 * databases' final sizes, in one
 * transaction (with a best-effort run row alone when the whole does not fit).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>

#include <sqlite3.h>

#include "store_internal.h"

/* The run row's end: status, verdict, ended_at, duration and exit code. */
static int store_update_run_end(struct store *s, int64_t run_id, const struct store_run_end *end,
				struct strbuf *err)
{
	struct strbuf ended = STRBUF_INIT;
	sqlite3_stmt *st;
	struct binder b;
	int ret, rc;

	time_format_iso8601(&ended, end->ended_real_ns);
	ret = store_prepare(s,
			    "UPDATE run SET status = ?, verdict = ?, ended_at = ?, duration_s = ?,"
			    " exit_code = ? WHERE id = ?",
			    &st, 0, err);
	if (ret)
		goto out_ended;
	binder_start(&b, st);
	bind_str(&b, end->status, false);
	bind_str(&b, end->verdict, false);
	bind_str(&b, ended.buf, false);
	bind_dbl(&b, (double)end->duration_ns / (double)NSEC_PER_SEC);
	bind_i64(&b, end->exit_code);
	bind_i64(&b, run_id);
	rc = binder_run(&b);
	if (rc != SQLITE_OK) {
		ret = store_fail(s, err, rc, "finish run");
	} else if (sqlite3_changes(s->db) != 1) {
		strbuf_addf(err, "%s: finish run: run %" PRId64 " not found", s->path, run_id);
		ret = -ENOENT;
	}
	sqlite3_finalize(st);
out_ended:
	strbuf_release(&ended);
	return ret;
}

static int store_insert_summary(struct store *s, sqlite3_stmt *st, int64_t run_id,
				const struct store_scope_total *t, enum io_class c,
				uint64_t duration_ns)
{
	struct class_summary cs;
	struct binder b;

	results_class_from_stats(&cs, &t->classes[c], duration_ns);
	binder_start(&b, st);
	bind_i64(&b, run_id);
	bind_str(&b, results_scope_kind_name(t->scope), false);
	bind_str(&b, t->name, false);
	bind_str(&b, t->scope == SCOPE_DATABASE ? t->volume : NULL, true);
	bind_str(&b, stats_io_class_name(c), false);
	bind_u64(&b, cs.ios);
	bind_u64(&b, cs.bytes);
	bind_u64(&b, cs.errors);
	bind_dbl(&b, cs.iops);
	bind_dbl(&b, cs.mbps);
	bind_dbl(&b, cs.avg_ms);
	bind_dbl(&b, cs.p50_ms);
	bind_dbl(&b, cs.p99_ms);
	bind_dbl(&b, cs.max_ms);
	bind_u64(&b, t->integrity_errors);
	/* schema 7: the tails from the same histogram and hist_percentile()
	 * the reports use (results_tail_fill), so the stored figures and the
	 * reported ones are the same numbers; NULL for a class without I/O */
	if (t->classes[c].lat.count) {
		const struct hist *h = &t->classes[c].lat;

		bind_dbl(&b, (double)hist_percentile(h, 90.0) / (double)NSEC_PER_MSEC);
		bind_dbl(&b, (double)hist_percentile(h, 95.0) / (double)NSEC_PER_MSEC);
		bind_dbl(&b, cs.p999_ms);
		bind_dbl(&b, cs.p9999_ms);
	} else {
		bind_null(&b);
		bind_null(&b);
		bind_null(&b);
		bind_null(&b);
	}
	return binder_run(&b);
}

static int store_insert_histogram(struct store *s, sqlite3_stmt *st, int64_t run_id,
				  const struct store_scope_total *t, enum io_class c,
				  struct strbuf *enc)
{
	const struct hist *h = &t->classes[c].lat;
	struct binder b;

	strbuf_reset(enc);
	hist_encode(h, enc);
	binder_start(&b, st);
	bind_i64(&b, run_id);
	bind_str(&b, results_scope_kind_name(t->scope), false);
	bind_str(&b, t->name, false);
	bind_str(&b, stats_io_class_name(c), false);
	bind_i64(&b, HIST_BITS);
	bind_i64(&b, HIST_MAX_BITS);
	bind_u64(&b, h->count);
	bind_u64(&b, h->sum_ns);
	if (h->count)
		bind_u64(&b, h->min_ns);
	else
		bind_null(&b); /* an empty histogram has no minimum */
	bind_u64(&b, h->max_ns);
	bind_str(&b, enc->buf, false);
	return binder_run(&b);
}

/* The stream_share row of a scope total: its time-averaged streams. */
static int store_insert_streams(sqlite3_stmt *st, int64_t run_id, const struct store_scope_total *t,
				uint64_t duration_ns)
{
	int rc;

	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_text(st, 2, results_scope_kind_name(t->scope), -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, t->name, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, (int64_t)t->stream_ns);
	sqlite3_bind_double(st, 5, duration_ns ? (double)t->stream_ns / (double)duration_ns : 0);
	rc = sqlite3_step(st);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* The scope_extra row of a total and class (schema 5), where it holds a
 * figure; SQLITE_OK and nothing written where it holds none. */
static int store_insert_extra(sqlite3_stmt *st, int64_t run_id, const struct store_scope_total *t,
			      enum io_class c)
{
	const struct scope_summary *sum = t->summary;
	struct binder b;
	double m;

	if (!sum)
		return SQLITE_OK;
	m = sum->classes[c].max_sample_avg_ms;
	if (!isfinite(m) && !sum->stalls_recorded)
		return SQLITE_OK;
	binder_start(&b, st);
	bind_i64(&b, run_id);
	bind_str(&b, results_scope_kind_name(t->scope), false);
	bind_str(&b, t->name, false);
	bind_str(&b, stats_io_class_name(c), false);
	bind_u64(&b, t->sample_ms);
	if (isfinite(m))
		bind_dbl(&b, m);
	else
		bind_null(&b);
	if (sum->stalls_recorded)
		bind_u64(&b, sum->page_fault_stalls);
	else
		bind_null(&b);
	return binder_run(&b);
}

/* The txn_total row of a scope total (schema 9), where its transactions
 * were counted; SQLITE_OK and nothing written where not. */
static int store_insert_txns(sqlite3_stmt *st, int64_t run_id, const struct store_scope_total *t)
{
	const struct scope_summary *sum = t->summary;
	struct binder b;

	if (!sum || !sum->txns_recorded)
		return SQLITE_OK;
	binder_start(&b, st);
	bind_i64(&b, run_id);
	bind_str(&b, results_scope_kind_name(t->scope), false);
	bind_str(&b, t->name, false);
	bind_u64(&b, sum->txns);
	bind_u64(&b, sum->log_commits);
	return binder_run(&b);
}

/* The response row of a total and class (schema 11): open loop's db_read,
 * and any other class with response times; SQLITE_OK and nothing written
 * where the run has none (closed loop: response is service). */
static int store_insert_response(sqlite3_stmt *st, int64_t run_id,
				 const struct store_scope_total *t, enum io_class c)
{
	const struct scope_summary *sum = t->summary;
	const struct class_summary *cs;
	struct binder b;

	if (!sum || !sum->response_recorded)
		return SQLITE_OK;
	cs = &sum->response[c];
	if (c != IO_DB_READ && !cs->ios)
		return SQLITE_OK;
	binder_start(&b, st);
	bind_i64(&b, run_id);
	bind_str(&b, results_scope_kind_name(t->scope), false);
	bind_str(&b, t->name, false);
	bind_str(&b, stats_io_class_name(c), false);
	bind_u64(&b, cs->ios);
	bind_dbl(&b, cs->avg_ms);
	bind_dbl(&b, cs->p50_ms);
	bind_dbl(&b, cs->p99_ms);
	bind_dbl(&b, cs->max_ms);
	return binder_run(&b);
}

/*
 * Summary and histogram rows of every scope total and class, present or not
 * (unlike the interval rows): a handful per scope and run, and so every scope
 * is on record even if it moved nothing, `class = 'bdm_read'` always finds a
 * row, and a diskproof that knows fewer classes refuses the run ("summary row
 * of unknown ... class") instead of misreading its interval rows.
 */
static int store_insert_totals(struct store *s, int64_t run_id, const struct store_run_end *end,
			       struct strbuf *err)
{
	struct strbuf enc = STRBUF_INIT;
	sqlite3_stmt *sum_st, *hist_st, *str_st = NULL, *extra_st = NULL, *txn_st = NULL;
	sqlite3_stmt *resp_st = NULL;
	const struct store_scope_total *t;
	int ret, rc = SQLITE_OK;
	size_t i;
	int c;

	ret = store_prepare(
		s,
		"INSERT OR REPLACE INTO summary (run_id, scope, name, volume, class, ios, bytes,"
		" errors, iops, mbps, avg_ms, p50_ms, p99_ms, max_ms, integrity_errors, p90_ms,"
		" p95_ms, p999_ms, p9999_ms)"
		" VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		&sum_st, 0, err);
	if (ret)
		return ret;
	ret = store_prepare(
		s,
		"INSERT OR REPLACE INTO histogram (run_id, scope, name, class, bits, max_bits,"
		" count, sum_ns, min_ns, max_ns, buckets)"
		" VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		&hist_st, 0, err);
	if (ret)
		goto out_sum;
	ret = store_prepare(s,
			    "INSERT OR REPLACE INTO stream_share (run_id, scope, name, stream_ns,"
			    " streams) VALUES (?, ?, ?, ?, ?)",
			    &str_st, 0, err);
	if (!ret)
		ret = store_prepare(
			s,
			"INSERT OR REPLACE INTO scope_extra (run_id, scope, name, class,"
			" sample_ms, max_sample_avg_ms, page_fault_stalls)"
			" VALUES (?, ?, ?, ?, ?, ?, ?)",
			&extra_st, 0, err);
	if (!ret)
		ret = store_prepare(s,
				    "INSERT OR REPLACE INTO txn_total (run_id, scope, name, txns,"
				    " log_commits) VALUES (?, ?, ?, ?, ?)",
				    &txn_st, 0, err);
	if (!ret)
		ret = store_prepare(
			s,
			"INSERT OR REPLACE INTO response (run_id, scope, name, class, ios,"
			" avg_ms, p50_ms, p99_ms, max_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
			&resp_st, 0, err);
	if (ret)
		goto out_hist;
	for (i = 0; i < end->nr_totals && rc == SQLITE_OK; i++) {
		t = &end->totals[i];
		if ((unsigned)t->scope > SCOPE_DATABASE || !t->name || !t->classes) {
			strbuf_addf(err, "%s: finish run: total %zu: bad scope, name or classes",
				    s->path, i);
			ret = -EINVAL;
			goto out_hist;
		}
		for (c = 0; c < IO_CLASS_COUNT && rc == SQLITE_OK; c++) {
			rc = store_insert_summary(s, sum_st, run_id, t, c, end->duration_ns);
			if (rc == SQLITE_OK)
				rc = store_insert_histogram(s, hist_st, run_id, t, c, &enc);
			if (rc == SQLITE_OK)
				rc = store_insert_extra(extra_st, run_id, t, c);
			if (rc == SQLITE_OK)
				rc = store_insert_response(resp_st, run_id, t, c);
		}
		if (rc == SQLITE_OK)
			rc = store_insert_streams(str_st, run_id, t, end->duration_ns);
		if (rc == SQLITE_OK)
			rc = store_insert_txns(txn_st, run_id, t);
	}
	if (rc != SQLITE_OK)
		ret = store_fail(s, err, rc, "write totals");
out_hist:
	sqlite3_finalize(str_st);
	sqlite3_finalize(extra_st);
	sqlite3_finalize(txn_st);
	sqlite3_finalize(resp_st);
	sqlite3_finalize(hist_st);
out_sum:
	sqlite3_finalize(sum_st);
	strbuf_release(&enc);
	return ret;
}

static void final_bind(struct binder *b, const void *row)
{
	const struct store_database_final *f = row;

	bind_str(b, f->name, false);
	bind_u64(b, f->size);
}

static void verdict_bind(struct binder *b, const void *row)
{
	const struct verdict *v = row;

	bind_str(b, results_scope_kind_name(v->scope), false);
	bind_str(b, v->name, false);
	bind_str(b, v->scope == SCOPE_DATABASE ? v->volume : NULL, true);
	bind_str(b, v->criterion, false);
	bind_str(b, v->cmp == VERDICT_GE ? ">=" : "<=", false);
	bind_dbl(b, v->threshold);
	bind_dbl(b, v->measured);
	bind_i64(b, v->passed);
}

/*
 * When the whole end of a run cannot be written (its results filesystem
 * filled behind its back), the run row alone may still say how the run
 * ended: a one-row update often fits in the WAL space the failed transaction
 * had already taken (SQLite rewrites the WAL from its last commit), where the
 * totals did not. Best effort: when the filesystem had no room left at all
 * before the end, the row stays "running" until the next open marks it
 * aborted.
 */
static void store_run_finish_row_only(struct store *s, int64_t run_id,
				      const struct store_run_end *end)
{
	struct strbuf why = STRBUF_INIT;

	if (store_begin(s, &why) == 0 && store_update_run_end(s, run_id, end, &why) == 0 &&
	    store_commit(s, &why) == 0) {
		strbuf_release(&why);
		return;
	}
	store_rollback(s);
	strbuf_release(&why);
}

int store_run_finish(struct store *s, int64_t run_id, const struct store_run_end *end,
		     struct strbuf *err)
{
	int ret;

	ret = store_begin(s, err);
	if (ret)
		goto out_row_only;
	/* The run row first: an unknown run is -ENOENT, not a foreign-key error. */
	ret = store_update_run_end(s, run_id, end, err);
	if (ret)
		goto out_rollback;
	ret = store_insert_totals(s, run_id, end, err);
	if (ret)
		goto out_rollback;
	ret = store_insert_rows(s,
				"INSERT INTO verdict (run_id, scope, name, volume, criterion, cmp,"
				" threshold, measured, passed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
				"write verdicts", run_id, end->verdicts, end->nr_verdicts,
				sizeof(*end->verdicts), verdict_bind, err);
	if (!ret && end->nr_finals)
		ret = store_insert_rows(s,
					"INSERT OR REPLACE INTO database_final (run_id, name, size)"
					" VALUES (?, ?, ?)",
					"write final database sizes", run_id, end->finals,
					end->nr_finals, sizeof(*end->finals), final_bind, err);
	if (ret)
		goto out_rollback;
	ret = store_commit(s, err);
	if (ret)
		goto out_rollback;
	return 0;

out_rollback:
	store_rollback(s);
out_row_only:
	if (ret != -ENOENT)
		store_run_finish_row_only(s, run_id, end);
	return ret;
}

int store_run_checkpoint(struct store *s, int64_t run_id, const struct store_scope_total *totals,
			 size_t nr_totals, uint64_t duration_ns, struct strbuf *err)
{
	struct store_run_end end = {
		.duration_ns = duration_ns,
		.totals = totals,
		.nr_totals = nr_totals,
	};
	sqlite3_stmt *st;
	struct binder b;
	int ret, rc;

	ret = store_begin(s, err);
	if (ret)
		return ret;
	ret = store_insert_totals(s, run_id, &end, err);
	if (!ret)
		ret = store_prepare(s, "UPDATE run SET duration_s = ? WHERE id = ?", &st, 0, err);
	if (ret) {
		store_rollback(s);
		return ret;
	}
	binder_start(&b, st);
	bind_dbl(&b, (double)duration_ns / (double)NSEC_PER_SEC);
	bind_i64(&b, run_id);
	rc = binder_run(&b);
	sqlite3_finalize(st);
	return store_txn_end(s, rc, "checkpoint run", err);
}
