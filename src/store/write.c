/* SPDX-License-Identifier: MIT */
/*
 * write.c - the coordinator's writes while a run runs: the run row, its
 * layout, per-interval samples, interval histograms and host counters,
 * events, auto-tune steps, env facts, and the free-space check before them.
 *
 * The per-interval inserts use statements prepared once at open, and write
 * no row for a class that had no I/O in the interval (of six classes a
 * workload issues two to five): readers count it as 0 (results.h).
 * Whole-run totals keep every class (finish.c).
 * SQLite has no unsigned 64-bit integers: counters are stored as INTEGER and
 * clamped to INT64_MAX, far beyond any real count.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <sqlite3.h>

#include "diskproof/counters.h"
#include "store_internal.h"

static const char store_sql_ins_sample[] =
	"INSERT INTO sample (run_id, t_ms, warmup, scope, scope_name, class, ios, bytes,"
	" errors, lat_sum_ns, lat_max_ns, p50_ns, p99_ns, time_utc)"
	" VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
static const char store_sql_ins_txn_sample[] =
	"INSERT INTO txn_sample (run_id, t_ms, warmup, scope, name, txns, log_commits)"
	" VALUES (?, ?, ?, ?, ?, ?, ?)";
static const char store_sql_ins_backlog_sample[] =
	"INSERT INTO backlog_sample (run_id, t_ms, warmup, peak, mean, busy_ms, streams)"
	" VALUES (?, ?, ?, ?, ?, ?, ?)";
static const char store_sql_ins_host[] =
	"INSERT INTO host_sample (run_id, t_ms, warmup, device, span_ms, cpu_user_pct,"
	" cpu_system_pct, cpu_iowait_pct, mem_available, reads, writes, read_sectors,"
	" write_sectors, reads_per_s, writes_per_s, read_kbps, write_kbps, read_wait_ms,"
	" write_wait_ms, avg_wait_ms, util_pct, queue, time_utc)"
	" VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
static const char store_sql_ins_event[] =
	"INSERT INTO event (run_id, t_ms, kind, message, time_utc) VALUES (?, ?, ?, ?, ?)";
static const char store_sql_ins_env[] =
	"INSERT INTO env (run_id, key, value) VALUES (?, ?, ?)"
	" ON CONFLICT (run_id, key) DO UPDATE SET value = excluded.value";

int store_prepare_cached(struct store *s, struct strbuf *err)
{
	int ret;

	ret = store_prepare(s, store_sql_ins_sample, &s->ins_sample, SQLITE_PREPARE_PERSISTENT,
			    err);
	if (ret)
		return ret;
	ret = store_prepare(s, store_sql_ins_txn_sample, &s->ins_txn_sample,
			    SQLITE_PREPARE_PERSISTENT, err);
	if (ret)
		return ret;
	ret = store_prepare(s, store_sql_ins_backlog_sample, &s->ins_backlog_sample,
			    SQLITE_PREPARE_PERSISTENT, err);
	if (ret)
		return ret;
	ret = store_prepare(s, store_sql_ins_event, &s->ins_event, SQLITE_PREPARE_PERSISTENT, err);
	if (ret)
		return ret;
	ret = store_prepare(s, store_sql_ins_host, &s->ins_host, SQLITE_PREPARE_PERSISTENT, err);
	if (ret)
		return ret;
	return store_prepare(s, store_sql_ins_env, &s->ins_env, SQLITE_PREPARE_PERSISTENT, err);
}

void store_utc_ms(struct strbuf *sb, uint64_t base_ms, uint64_t t_ms)
{
	time_format_utc_ms(sb, base_ms + t_ms);
}

/*
 * The time_utc of an offset on one of the run's two clocks (store.h,
 * store_run_clock): NULL for a run this store did not begin, which has no
 * clock here (no such write happens today).
 */
static void bind_utc(struct binder *b, const struct store *s, int64_t run_id, bool event,
		     uint64_t t_ms)
{
	struct strbuf utc = STRBUF_INIT;

	if (run_id != s->clock_run_id) {
		bind_null(b);
		return;
	}
	store_utc_ms(&utc, event ? s->clock_event_ms : s->clock_sample_ms, t_ms);
	bind_str(b, utc.buf, false);
	strbuf_release(&utc);
}

int store_run_begin(struct store *s, const struct store_run_info *info, int64_t *run_id,
		    struct strbuf *err)
{
	struct strbuf started = STRBUF_INIT;
	sqlite3_stmt *st;
	struct binder b;
	int ret, rc;

	time_format_iso8601(&started, info->started_real_ns);
	/* until the run says when its clocks start (store_run_clock), both
	 * count from its start */
	s->clock_start_ms = info->started_real_ns / NSEC_PER_MSEC;
	s->clock_sample_ms = s->clock_event_ms = s->clock_start_ms;
	ret = store_begin(s, err);
	if (ret)
		goto out_started;
	ret = store_prepare(s,
			    "INSERT INTO run (status, label, host, started_at, profile_name,"
			    " profile_text, command_line, pid, engine, test_type, streams,"
			    " warmup_s, t0_utc, uuid, series_uuid, series_index, series_size)"
			    " VALUES ('running', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
			    " lower(hex(randomblob(16))),"
			    /* a series' first run makes its uuid, as a run's is made */
			    " CASE WHEN ?14 IS NULL THEN NULL"
			    "  ELSE coalesce(?13, lower(hex(randomblob(16)))) END, ?14, ?15)",
			    &st, 0, err);
	if (ret)
		goto out_rollback;
	binder_start(&b, st);
	bind_str(&b, info->label, false);
	bind_str(&b, info->host, false);
	bind_str(&b, started.buf, false);
	bind_str(&b, info->profile_name, false);
	bind_str(&b, info->profile_text, false);
	bind_str(&b, info->command_line, false);
	bind_i64(&b, info->pid);
	bind_str(&b, info->engine, false);
	bind_str(&b, info->test_type, false);
	bind_i64(&b, info->streams);
	bind_dbl(&b, (double)info->warmup_ns / (double)NSEC_PER_SEC);
	strbuf_reset(&started);
	store_utc_ms(&started, s->clock_sample_ms, 0);
	bind_str(&b, started.buf, false);
	bind_str(&b, info->series_size ? info->series_uuid : NULL, true);
	if (info->series_size) {
		bind_i64(&b, info->series_index);
		bind_i64(&b, info->series_size);
	} else {
		bind_null(&b);
		bind_null(&b);
	}
	rc = binder_run(&b);
	if (rc != SQLITE_OK) {
		ret = store_fail(s, err, rc, "insert run");
		goto out_finalize;
	}
	*run_id = sqlite3_last_insert_rowid(s->db);
	s->clock_run_id = *run_id;
	sqlite3_finalize(st);
	if (info->machine) {
		binder_start(&b, s->ins_env);
		bind_i64(&b, *run_id);
		bind_str(&b, "hostname", false);
		bind_str(&b, info->machine, false);
		rc = binder_run(&b);
		if (rc != SQLITE_OK) {
			ret = store_fail(s, err, rc, "insert run");
			goto out_rollback;
		}
	}
	ret = store_commit(s, err);
	if (ret)
		goto out_rollback;
	strbuf_release(&started);
	return 0;

out_finalize:
	sqlite3_finalize(st);
out_rollback:
	store_rollback(s);
out_started:
	strbuf_release(&started);
	return ret;
}

static void volume_bind(struct binder *b, const void *row)
{
	const struct store_volume_row *v = row;

	bind_str(b, v->name, false);
	bind_str(b, v->path, false);
	bind_str(b, v->log_path, false);
	bind_i64(b, v->databases);
}

static void database_bind(struct binder *b, const void *row)
{
	const struct store_database_row *db = row;

	bind_str(b, db->name, false);
	bind_str(b, db->volume, false);
	bind_str(b, db->path, false);
	bind_str(b, db->log_path, false);
	bind_u64(b, db->size);
}

int store_run_layout(struct store *s, int64_t run_id, const struct store_volume_row *vols,
		     size_t nr_vols, const struct store_database_row *dbs, size_t nr_dbs,
		     struct strbuf *err)
{
	int ret;

	ret = store_begin(s, err);
	if (ret)
		return ret;
	ret = store_insert_rows(s,
				"INSERT INTO volume (run_id, name, path, log_path, databases)"
				" VALUES (?, ?, ?, ?, ?)",
				"insert volume", run_id, vols, nr_vols, sizeof(*vols), volume_bind,
				err);
	if (ret)
		goto out_rollback;
	ret = store_insert_rows(
		s,
		"INSERT INTO \"database\" (run_id, name, volume, path, log_path, size)"
		" VALUES (?, ?, ?, ?, ?, ?)",
		"insert database", run_id, dbs, nr_dbs, sizeof(*dbs), database_bind, err);
	if (ret)
		goto out_rollback;
	ret = store_commit(s, err);
	if (ret)
		goto out_rollback;
	return 0;

out_rollback:
	store_rollback(s);
	return ret;
}

static void param_bind(struct binder *b, const void *row)
{
	const struct store_param_row *pr = row;

	bind_str(b, pr->section, false);
	bind_str(b, pr->name, false);
	bind_str(b, pr->key, false);
	bind_str(b, pr->value, true);
	bind_str(b, pr->source, false);
}

int store_run_params(struct store *s, int64_t run_id, const struct store_param_row *rows,
		     size_t nr_rows, struct strbuf *err)
{
	int ret;

	ret = store_begin(s, err);
	if (ret)
		return ret;
	ret = store_insert_rows(s,
				"INSERT INTO param (run_id, section, name, key, value, source)"
				" VALUES (?, ?, ?, ?, ?, ?)",
				"insert parameters", run_id, rows, nr_rows, sizeof(*rows),
				param_bind, err);
	if (ret)
		goto out_rollback;
	ret = store_commit(s, err);
	if (ret)
		goto out_rollback;
	return 0;

out_rollback:
	store_rollback(s);
	return ret;
}

static bool store_sample_valid(const struct store_sample *row)
{
	return (unsigned)row->scope <= SCOPE_DATABASE && (unsigned)row->cls < IO_CLASS_COUNT &&
	       row->scope_name;
}

static bool store_sample_empty(const struct store_sample *row)
{
	return !row->ios && !row->errors;
}

static bool store_sample_same_scope(const struct store_sample *a, const struct store_sample *b)
{
	return a->t_ms == b->t_ms && a->warmup == b->warmup && a->scope == b->scope &&
	       !strcmp(a->scope_name, b->scope_name);
}

/*
 * Which rows of an interval are written. A class with no I/O and no error in
 * the interval gets no row: the run records six classes and a workload issues
 * only some (a backup test one), so rows of zeros would make up most of the
 * table. Readers take a class missing from an interval of its scope as 0
 * (results.h). One row of each interval and scope is kept even when all are
 * empty, so that the interval itself stays on record (a stall with no
 * completion is a finding, and the next interval's length is measured from
 * it). A group is a run of consecutive rows of one interval and scope, as the
 * coordinator writes them; rows given in another order are kept more often,
 * never dropped wrongly. keep[i] is set for every row to write.
 */
static void store_samples_select(const struct store_sample *rows, size_t nr_rows, bool *keep)
{
	size_t g, i, j;
	bool any;

	for (g = 0; g < nr_rows; g = j) {
		any = false;
		for (j = g; j < nr_rows && store_sample_same_scope(&rows[g], &rows[j]); j++)
			any |= !store_sample_empty(&rows[j]);
		for (i = g; i < j; i++)
			keep[i] = !store_sample_empty(&rows[i]) || (!any && i == g);
	}
}

/* Open loop: the interval's backlog row (backlog_sample, schema 12). */
static int store_backlog_row(struct store *s, int64_t run_id, const struct store_sample *row)
{
	struct binder b;

	binder_start(&b, s->ins_backlog_sample);
	bind_i64(&b, run_id);
	bind_u64(&b, row->t_ms);
	bind_i64(&b, row->warmup);
	bind_u64(&b, row->backlog_peak);
	bind_dbl(&b, row->backlog_mean);
	bind_u64(&b, row->backlog_busy_ms);
	bind_u64(&b, row->streams);
	return binder_run(&b);
}

int store_interval_write(struct store *s, int64_t run_id, const struct store_sample *rows,
			 size_t nr_rows, struct strbuf *err)
{
	const struct store_sample *row;
	struct binder b;
	bool *keep;
	int ret, rc;
	size_t i;

	for (i = 0; i < nr_rows; i++) {
		if (!store_sample_valid(&rows[i])) {
			strbuf_addf(err, "%s: write interval: row %zu: bad scope, class or name",
				    s->path, i);
			return -EINVAL;
		}
	}
	keep = malloc(nr_rows ? nr_rows * sizeof(*keep) : 1);
	if (!keep) {
		strbuf_addf(err, "%s: write interval: out of memory", s->path);
		return -ENOMEM;
	}
	store_samples_select(rows, nr_rows, keep);
	ret = store_begin(s, err);
	if (ret)
		goto out_keep;
	for (i = 0; i < nr_rows; i++) {
		row = &rows[i];
		if (row->has_txn) {
			/* the scope's transactions, whether its row is kept or not */
			binder_start(&b, s->ins_txn_sample);
			bind_i64(&b, run_id);
			bind_u64(&b, row->t_ms);
			bind_i64(&b, row->warmup);
			bind_str(&b, results_scope_kind_name(row->scope), false);
			bind_str(&b, row->scope_name, false);
			bind_u64(&b, row->txns);
			bind_u64(&b, row->log_commits);
			rc = binder_run(&b);
			if (rc != SQLITE_OK) {
				ret = store_fail(s, err, rc, "write interval");
				goto out_rollback;
			}
		}
		if (row->has_backlog) {
			rc = store_backlog_row(s, run_id, row);
			if (rc != SQLITE_OK) {
				ret = store_fail(s, err, rc, "write interval");
				goto out_rollback;
			}
		}
		if (!keep[i])
			continue;
		binder_start(&b, s->ins_sample);
		bind_i64(&b, run_id);
		bind_u64(&b, row->t_ms);
		bind_i64(&b, row->warmup);
		bind_str(&b, results_scope_kind_name(row->scope), false);
		bind_str(&b, row->scope_name, false);
		bind_str(&b, stats_io_class_name(row->cls), false);
		bind_u64(&b, row->ios);
		bind_u64(&b, row->bytes);
		bind_u64(&b, row->errors);
		bind_u64(&b, row->lat_sum_ns);
		bind_u64(&b, row->lat_max_ns);
		bind_u64(&b, row->p50_ns);
		bind_u64(&b, row->p99_ns);
		bind_utc(&b, s, run_id, false, row->t_ms);
		rc = binder_run(&b);
		if (rc != SQLITE_OK) {
			ret = store_fail(s, err, rc, "write interval");
			goto out_rollback;
		}
	}
	ret = store_commit(s, err);
	if (ret)
		goto out_rollback;
	free(keep);
	return 0;

out_rollback:
	store_rollback(s);
out_keep:
	free(keep);
	return ret;
}

/* One cached single-row insert in its own transaction. */
static int store_insert_one(struct store *s, struct binder *b, const char *what, struct strbuf *err)
{
	int ret;

	ret = store_begin(s, err);
	if (ret) {
		binder_reset(b);
		return ret;
	}
	return store_txn_end(s, binder_run(b), what, err);
}

/* The percentile columns of interval_histogram (schema 7), in order. */
static const double store_pcts[] = {50.0, 90.0, 95.0, 99.0, 99.9, 99.99};

/*
 * An empty window histogram gets no row: merging it would add nothing, so a
 * missing (window, volume, class) row reads as an empty histogram, and the
 * classes a workload does not issue cost nothing.
 */
int store_interval_hists_write(struct store *s, int64_t run_id,
			       const struct store_interval_hist *rows, size_t nr_rows,
			       struct strbuf *err)
{
	struct strbuf enc = STRBUF_INIT;
	sqlite3_stmt *st = NULL;
	struct binder b;
	int ret, rc = SQLITE_OK;
	size_t i, nonempty = 0;

	for (i = 0; i < nr_rows; i++)
		nonempty += rows[i].h->count != 0;
	if (!nonempty)
		return 0;
	ret = store_begin(s, err);
	if (ret)
		return ret;
	ret = store_prepare(
		s,
		"INSERT INTO interval_histogram (run_id, t_ms, warmup, scope, name, class,"
		" count, sum_ns, min_ns, max_ns, buckets, time_utc, p50_ms, p90_ms, p95_ms,"
		" p99_ms, p999_ms, p9999_ms)"
		" VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		&st, 0, err);
	if (ret)
		goto out_rollback;
	for (i = 0; i < nr_rows && rc == SQLITE_OK; i++) {
		const struct store_interval_hist *r = &rows[i];

		if (!r->h->count)
			continue;
		strbuf_reset(&enc);
		hist_encode(r->h, &enc);
		binder_start(&b, st);
		bind_i64(&b, run_id);
		bind_u64(&b, r->t_ms);
		bind_i64(&b, r->warmup);
		bind_str(&b, results_scope_kind_name(r->scope), false);
		bind_str(&b, r->name, false);
		bind_str(&b, stats_io_class_name(r->cls), false);
		bind_u64(&b, r->h->count);
		bind_u64(&b, r->h->sum_ns);
		bind_u64(&b, r->h->min_ns);
		bind_u64(&b, r->h->max_ns);
		bind_str(&b, enc.buf, false);
		bind_utc(&b, s, run_id, false, r->t_ms);
		/* the window's percentiles, as dp_hist_pct_ms() gives them */
		for (size_t q = 0; q < DP_ARRAY_SIZE(store_pcts); q++)
			bind_dbl(&b, (double)hist_percentile(r->h, store_pcts[q]) /
					     (double)NSEC_PER_MSEC);
		rc = binder_run(&b);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_OK) {
		ret = store_fail(s, err, rc, "write interval histograms");
		goto out_rollback;
	}
	ret = store_commit(s, err);
	if (ret)
		goto out_rollback;
	strbuf_release(&enc);
	return 0;
out_rollback:
	store_rollback(s);
	strbuf_release(&enc);
	return ret;
}

/* A figure that was not measured (NAN, or inf from a bad span) is NULL. */
static void bind_fig(struct binder *b, double v)
{
	if (isfinite(v))
		bind_dbl(b, v);
	else
		bind_null(b);
}

static void bind_nulls(struct binder *b, unsigned n)
{
	while (n--)
		bind_null(b);
}

static uint64_t ns_to_ms(uint64_t ns)
{
	return (ns + NSEC_PER_MSEC / 2) / NSEC_PER_MSEC;
}

/* The host-wide row: CPU shares when measured, memory when read. */
static int store_host_row(struct store *s, int64_t run_id, uint64_t t_ms, bool warmup,
			  const struct host_sample *hs)
{
	struct binder b;

	binder_start(&b, s->ins_host);
	bind_i64(&b, run_id);
	bind_u64(&b, t_ms);
	bind_i64(&b, warmup);
	bind_null(&b);
	bind_u64(&b, ns_to_ms(hs->has_cpu ? hs->cpu_elapsed_ns : hs->elapsed_ns));
	if (hs->has_cpu) {
		bind_fig(&b, hs->cpu_user_pct);
		bind_fig(&b, hs->cpu_system_pct);
		bind_fig(&b, hs->cpu_iowait_pct);
	} else {
		bind_nulls(&b, 3);
	}
	if (hs->has_mem)
		bind_u64(&b, hs->mem_available);
	else
		bind_null(&b);
	bind_nulls(&b, 13);
	bind_utc(&b, s, run_id, false, t_ms);
	return binder_run(&b);
}

static int store_device_row(struct store *s, int64_t run_id, uint64_t t_ms, bool warmup,
			    const struct host_dev_sample *d)
{
	struct binder b;

	binder_start(&b, s->ins_host);
	bind_i64(&b, run_id);
	bind_u64(&b, t_ms);
	bind_i64(&b, warmup);
	bind_str(&b, d->name, false);
	bind_u64(&b, ns_to_ms(d->elapsed_ns));
	bind_nulls(&b, 4);
	bind_u64(&b, d->reads);
	bind_u64(&b, d->writes);
	bind_u64(&b, d->read_sectors);
	bind_u64(&b, d->write_sectors);
	bind_fig(&b, d->reads_per_s);
	bind_fig(&b, d->writes_per_s);
	bind_fig(&b, d->read_kbps);
	bind_fig(&b, d->write_kbps);
	bind_fig(&b, d->read_wait_ms);
	bind_fig(&b, d->write_wait_ms);
	bind_fig(&b, d->avg_wait_ms);
	bind_fig(&b, d->util_pct);
	bind_fig(&b, d->queue);
	bind_utc(&b, s, run_id, false, t_ms);
	return binder_run(&b);
}

/*
 * One interval's host counters in one transaction, with the statement
 * prepared at open: a handful of rows, written beside the interval's
 * samples. An interval with nothing measured (no CPU figure, no memory, no
 * device row) writes nothing.
 */
int store_host_samples_write(struct store *s, int64_t run_id, uint64_t t_ms, bool warmup,
			     const struct host_sample *hs, struct strbuf *err)
{
	bool host = hs->has_cpu || hs->has_mem, any = host;
	int ret, rc = SQLITE_OK;
	size_t i;

	for (i = 0; i < hs->nr_devs; i++)
		any |= hs->devs[i].valid;
	if (!any)
		return 0;
	for (i = 0; i < hs->nr_devs; i++) {
		if (hs->devs[i].valid && !hs->devs[i].name[0]) {
			strbuf_addf(err, "%s: write host counters: device %zu has no name", s->path,
				    i);
			return -EINVAL;
		}
	}
	ret = store_begin(s, err);
	if (ret)
		return ret;
	if (host)
		rc = store_host_row(s, run_id, t_ms, warmup, hs);
	for (i = 0; i < hs->nr_devs && rc == SQLITE_OK; i++)
		if (hs->devs[i].valid)
			rc = store_device_row(s, run_id, t_ms, warmup, &hs->devs[i]);
	return store_txn_end(s, rc, "write host counters", err);
}

int store_event_add(struct store *s, int64_t run_id, uint64_t t_ms, const char *kind,
		    const char *message, struct strbuf *err)
{
	struct binder b;

	binder_start(&b, s->ins_event);
	bind_i64(&b, run_id);
	bind_u64(&b, t_ms);
	bind_str(&b, kind, false);
	bind_str(&b, message, false);
	bind_utc(&b, s, run_id, true, t_ms);
	return store_insert_one(s, &b, "add event", err);
}

int store_run_clock(struct store *s, int64_t run_id, uint64_t t0_real_ns, uint64_t event_base_ns,
		    struct strbuf *err)
{
	struct strbuf utc = STRBUF_INIT;
	sqlite3_stmt *st;
	struct binder b;
	int ret;

	if (!t0_real_ns && run_id == s->clock_run_id) {
		/* virtual time: one nominal timeline from the run's start */
		s->clock_event_ms = s->clock_start_ms;
		s->clock_sample_ms = s->clock_start_ms + event_base_ns / NSEC_PER_MSEC;
	} else {
		s->clock_sample_ms = t0_real_ns / NSEC_PER_MSEC;
		s->clock_event_ms = (t0_real_ns > event_base_ns ? t0_real_ns - event_base_ns : 0) /
				    NSEC_PER_MSEC;
	}
	s->clock_run_id = run_id;
	ret = store_prepare(s, "UPDATE run SET t0_utc = ? WHERE id = ?", &st, 0, err);
	if (ret)
		return ret;
	store_utc_ms(&utc, s->clock_sample_ms, 0);
	binder_start(&b, st);
	bind_str(&b, utc.buf, false);
	bind_i64(&b, run_id);
	ret = store_insert_one(s, &b, "set the run's clock", err);
	sqlite3_finalize(st);
	strbuf_release(&utc);
	return ret;
}

int store_run_load_started(struct store *s, int64_t run_id, uint64_t load_real_ns,
			   uint64_t start_at_real_ns, struct strbuf *err)
{
	struct strbuf load = STRBUF_INIT, at = STRBUF_INIT;
	sqlite3_stmt *st;
	struct binder b;
	int ret;

	ret = store_prepare(s, "UPDATE run SET load_started_at = ?, start_at = ? WHERE id = ?", &st,
			    0, err);
	if (ret)
		return ret;
	if (load_real_ns)
		time_format_utc_us(&load, load_real_ns);
	if (start_at_real_ns)
		time_format_utc_us(&at, start_at_real_ns);
	binder_start(&b, st);
	bind_str(&b, load_real_ns ? load.buf : NULL, false);
	bind_str(&b, start_at_real_ns ? at.buf : NULL, false);
	bind_i64(&b, run_id);
	ret = store_insert_one(s, &b, "record when the load began", err);
	sqlite3_finalize(st);
	strbuf_release(&load);
	strbuf_release(&at);
	return ret;
}

/* One decided auto-tune level. */
int store_autotune_step_add(struct store *s, int64_t run_id, unsigned step, unsigned streams,
			    double iops, double db_read_avg_ms, double log_write_avg_ms,
			    bool passed, const char *reason, struct strbuf *err)
{
	sqlite3_stmt *st;
	struct binder b;
	int ret;

	ret = store_prepare(
		s,
		"INSERT INTO autotune_step (run_id, step, streams, iops, db_read_avg_ms, "
		"log_write_avg_ms, passed, reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
		&st, 0, err);
	if (ret)
		return ret;
	binder_start(&b, st);
	bind_i64(&b, run_id);
	bind_u64(&b, step);
	bind_u64(&b, streams);
	bind_dbl(&b, iops);
	bind_dbl(&b, db_read_avg_ms);
	bind_dbl(&b, log_write_avg_ms);
	bind_u64(&b, passed ? 1 : 0);
	bind_str(&b, reason, false);
	ret = store_insert_one(s, &b, "add auto-tune step", err);
	sqlite3_finalize(st);
	return ret;
}

/* The stream count auto-tune chose, once known. */
int store_run_set_streams(struct store *s, int64_t run_id, unsigned streams, struct strbuf *err)
{
	sqlite3_stmt *st;
	struct binder b;
	int ret;

	ret = store_prepare(s, "UPDATE run SET streams = ? WHERE id = ?", &st, 0, err);
	if (ret)
		return ret;
	binder_start(&b, st);
	bind_u64(&b, streams);
	bind_i64(&b, run_id);
	ret = store_insert_one(s, &b, "set the run's streams", err);
	sqlite3_finalize(st);
	return ret;
}

int store_env_add(struct store *s, int64_t run_id, const char *key, const char *value,
		  struct strbuf *err)
{
	struct binder b;

	binder_start(&b, s->ins_env);
	bind_i64(&b, run_id);
	bind_str(&b, key, false);
	bind_str(&b, value, false);
	return store_insert_one(s, &b, "add env fact", err);
}

/*
 * The room for the run's last word: STORE_LAST_WORD bytes allocated past the
 * end of the -wal, without growing it (FALLOC_FL_KEEP_SIZE). SQLite writes a
 * transaction's frames at the end of the last commit, so the row that ends a
 * run always lands in blocks it already owns, even when the filesystem filled
 * behind the run's back between two checks; a failed transaction gives them
 * back (the next one writes over it). The file is the -wal of the file this
 * store has open, opened without following a link and never created. 0 also
 * when the filesystem cannot preallocate (the end is then best effort, as
 * before); -ENOSPC when the room could not be kept.
 */
static int store_keep_last_word(struct store *s, struct strbuf *err)
{
	struct strbuf wal = STRBUF_INIT;
	struct stat st;
	int fd, ret = 0;

	strbuf_addf(&wal, "%s-wal", s->path);
	fd = open(wal.buf, O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		goto out; /* no -wal yet (or not ours to touch): nothing to keep */
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    fallocate(fd, FALLOC_FL_KEEP_SIZE, st.st_size, (off_t)STORE_LAST_WORD) != 0 &&
	    (errno == ENOSPC || errno == EDQUOT)) {
		strbuf_addf(err,
			    "%s: the results file's filesystem is full: no room left for the "
			    "end of the run",
			    s->path);
		ret = -ENOSPC;
	}
	close(fd);
out:
	strbuf_release(&wal);
	return ret;
}

int store_space_check(struct store *s, uint64_t min_free, struct strbuf *err)
{
	struct strbuf dir = STRBUF_INIT, a = STRBUF_INIT, b = STRBUF_INIT;
	struct statvfs vfs;
	const char *slash = strrchr(s->path, '/');
	uint64_t avail;
	int ret = 0;

	if (slash)
		strbuf_add(&dir, s->path, slash == s->path ? 1 : (size_t)(slash - s->path));
	else
		strbuf_addch(&dir, '.');
	if (statvfs(dir.buf, &vfs) != 0)
		goto out; /* cannot tell: SQLite will report a real failure */
	avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	if (avail < min_free) {
		unit_format_size(&a, avail);
		unit_format_size(&b, min_free);
		strbuf_addf(err,
			    "%s: the results file's filesystem is nearly full (%s free, "
			    "diskproof keeps %s free so the file stays consistent)",
			    s->path, a.buf, b.buf);
		ret = -ENOSPC;
	}
out:
	if (!ret && !s->readonly)
		ret = store_keep_last_word(s, err);
	strbuf_release(&dir);
	strbuf_release(&a);
	strbuf_release(&b);
	return ret;
}
