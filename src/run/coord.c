/* SPDX-License-Identifier: MIT */
/*
 * coord.c - the coordinator: merging the workers' published snapshots per
 * database, volume and run, writing them to the store, the live view's
 * model, signals, stops and health checks, and the run's events and
 * environment facts.
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diskproof/counters.h"
#include "diskproof/store.h"

#include "run_internal.h"

int coord_init(struct run_coord *c, size_t ndb, size_t nv, bool open_loop)
{
	if (open_loop) {
		c->resp_db = calloc(ndb, sizeof(*c->resp_db));
		if (!c->resp_db)
			return -ENOMEM;
		for (size_t i = 0; i < ndb; i++)
			stats_class_reset(&c->resp_db[i]);
	}
	c->tot_db = calloc(ndb * IO_CLASS_COUNT, sizeof(*c->tot_db));
	c->win_db = calloc(ndb * IO_CLASS_COUNT, sizeof(*c->win_db));
	c->integ_db = calloc(ndb, sizeof(*c->integ_db));
	c->stream_db = calloc(ndb, sizeof(*c->stream_db));
	c->txn_db = calloc(ndb, sizeof(*c->txn_db));
	c->txn_win = calloc(ndb, sizeof(*c->txn_win));
	c->txn_iv = calloc(1 + nv, sizeof(*c->txn_iv));
	c->iv_vol = calloc(nv * IO_CLASS_COUNT, sizeof(*c->iv_vol));
	c->win_vol = calloc(nv * IO_CLASS_COUNT, sizeof(*c->win_vol));
	c->wacc_db = calloc(ndb * IO_CLASS_COUNT, sizeof(*c->wacc_db));
	c->wacc_vol = calloc(nv * IO_CLASS_COUNT, sizeof(*c->wacc_vol));
	c->wacc_run = calloc(IO_CLASS_COUNT, sizeof(*c->wacc_run));
	if (!c->tot_db || !c->win_db || !c->integ_db || !c->stream_db || !c->txn_db ||
	    !c->txn_win || !c->txn_iv || !c->iv_vol || !c->win_vol || !c->wacc_db || !c->wacc_vol ||
	    !c->wacc_run)
		return -ENOMEM;
	for (size_t i = 0; i < ndb * IO_CLASS_COUNT; i++) {
		stats_class_reset(&c->tot_db[i]);
		stats_class_reset(&c->win_db[i]);
	}
	for (size_t i = 0; i < nv * IO_CLASS_COUNT; i++)
		stats_class_reset(&c->win_vol[i]);
	return 0;
}

void coord_reset(struct run_coord *c, size_t ndb, size_t nv)
{
	for (size_t i = 0; i < ndb * IO_CLASS_COUNT; i++) {
		uint64_t errors = c->tot_db[i].errors;

		stats_class_reset(&c->tot_db[i]);
		stats_class_reset(&c->win_db[i]);
		c->tot_db[i].errors = errors;
	}
	for (size_t i = 0; c->resp_db && i < ndb; i++)
		stats_class_reset(&c->resp_db[i]);
	memset(c->stream_db, 0, ndb * sizeof(*c->stream_db));
	memset(c->txn_db, 0, ndb * sizeof(*c->txn_db));
	memset(c->txn_win, 0, ndb * sizeof(*c->txn_win));
	for (size_t i = 0; i < nv * IO_CLASS_COUNT; i++)
		stats_class_reset(&c->win_vol[i]);
	c->win_len = 0;
}

void coord_release(struct run_coord *c)
{
	free(c->resp_db);
	free(c->tot_db);
	free(c->integ_db);
	free(c->stream_db);
	free(c->txn_db);
	free(c->txn_win);
	free(c->txn_iv);
	free(c->win_db);
	free(c->win_vol);
	free(c->iv_vol);
	free(c->rows);
	free(c->wacc_db);
	free(c->wacc_vol);
	free(c->wacc_run);
	free(c->sofar_v);
	run_totals_release(&c->sofar);
	*c = (struct run_coord){0};
}

/* Room for one more interval row: the store's error when there is none
 * (the run ends as when the results file cannot be written: exit 3, the
 * message saying why). 0 or -ENOMEM. */
static int rows_grow(struct run *r)
{
	struct run_coord *c = &r->coord;
	size_t cap = c->rows_cap ? c->rows_cap * 2 : 64;
	struct store_sample *nr = realloc(c->rows, cap * sizeof(*nr));

	if (!nr) {
		if (!r->store.failed)
			strbuf_addf(&r->store.err, "interval rows: out of memory (%zu rows)", cap);
		coord_store_error(r, -ENOMEM);
		return -ENOMEM;
	}
	c->rows = nr;
	c->rows_cap = cap;
	return 0;
}

/* Row *n of the interval (n counts it); none once the store has failed,
 * whose rows are never written. */
static void add_row(struct run *r, size_t *n, uint64_t t_ms, bool warm, enum scope_kind scope,
		    const char *name, unsigned c, const struct class_stats *cs)
{
	struct store_sample *row;

	if (r->store.failed || (*n == r->coord.rows_cap && rows_grow(r)))
		return;
	row = &r->coord.rows[(*n)++];
	row->t_ms = t_ms;
	row->warmup = warm;
	row->scope = scope;
	row->scope_name = name;
	row->cls = (enum io_class)c;
	row->ios = cs->lat.count;
	row->bytes = cs->bytes;
	row->errors = cs->errors;
	row->lat_sum_ns = cs->lat.sum_ns;
	row->lat_max_ns = cs->lat.max_ns;
	row->p50_ns = hist_percentile(&cs->lat, 50);
	row->p99_ns = hist_percentile(&cs->lat, 99);
	row->has_txn = false;
	row->has_backlog = false;
}

/* Open loop: the tool's own queue in the interval, on the run's first row
 * (backlog_sample): its peak, time-weighted mean, time with a backlog and
 * the streams at work at its end. */
static void add_backlog(struct run *r, size_t first, size_t nrows, unsigned k)
{
	const struct wl_backlog_iv *b = &r->coord.backlog_iv;
	uint64_t len = grid_end(&r->grid, k) - grid_start(&r->grid, k);
	struct store_sample *row;

	if (!open_loop(r) || first >= nrows)
		return;
	row = &r->coord.rows[first];
	row->has_backlog = true;
	row->backlog_peak = b->peak;
	row->backlog_mean = len ? (double)b->area / (double)len : 0;
	row->backlog_busy_ms = b->busy_ns / NSEC_PER_MSEC;
	row->streams = b->streams;
}

/* The scope's transactions in the interval, on the first of its rows from
 * row `first` on (txn_sample); nothing where the run does not count them,
 * nor where the scope has no row (the store failed). */
static void add_txn(struct run *r, size_t first, size_t nrows, const struct txn_count *tc)
{
	if (!txns_counted(r) || first >= nrows)
		return;
	r->coord.rows[first].has_txn = true;
	r->coord.rows[first].txns = tc->txns;
	r->coord.rows[first].log_commits = tc->log_commits;
}

static void txn_add(struct txn_count *to, const struct txn_count *tc)
{
	to->txns += tc->txns;
	to->log_commits += tc->log_commits;
}

void coord_store_error(struct run *r, int ret)
{
	(void)ret;
	if (r->store.failed)
		return;
	r->store.failed = true;
	coord_stop(r, 0, "stopped: the results file cannot be written");
}

/* A worker that met an engine error ends the run: environment error. */
void coord_check_fatal(struct run *r)
{
	for (unsigned i = 0; i < r->nworkers; i++) {
		struct worker *w = &r->workers[i];

		if (!atomic_load_explicit(&w->fatal_seen, memory_order_acquire))
			continue;
		r->ctl.env_failed = true;
		coord_stop(r, 0, w->fatal_msg);
		return;
	}
}

/* Stops the run once the workers have seen max_errors I/O errors, or at
 * once when a write found no space (an environment error: a full volume,
 * on a copy-on-write filesystem even for files made whole beforehand);
 * checked between intervals too, so the stop comes soon after. */
bool coord_check_errors(struct run *r)
{
	uint64_t n = atomic_load_explicit(&r->ctl.errors_seen, memory_order_relaxed);
	char why[128];

	if (atomic_load(&r->ctl.stop))
		return false;
	/* pairs with the store in worker_complete() */
	if (atomic_load_explicit(&r->ctl.nospace, memory_order_acquire)) {
		r->ctl.env_failed = true;
		coord_stop(r, 0,
			   "stopped: a write failed: No space left on device (a copy-on-write "
			   "filesystem needs free space for every overwrite: diskproof plan "
			   "says how much); the pages whose writes failed are marked as such");
		return true;
	}
	if (!r->prof->max_errors || n < r->prof->max_errors)
		return false;
	snprintf(why, sizeof(why), "stopped after %llu I/O errors ([test] max_errors = %llu)",
		 (unsigned long long)n, (unsigned long long)r->prof->max_errors);
	coord_stop(r, 0, why);
	return true;
}

/* Stops the run when it can no longer say anything true: a hung I/O, too
 * many I/O errors, or a volume whose directory has gone. */
static void coord_check_health(struct run *r, uint64_t hung)
{
	char why[256];
	struct stat st;

	if (atomic_load(&r->ctl.stop))
		return;
	if (hung) {
		snprintf(
			why, sizeof(why),
			"stopped: %llu I/O(s) got no completion within %.1f s ([test] io_timeout); "
			"the device hangs",
			(unsigned long long)hung, (double)r->prof->io_timeout_ns / 1e9);
		coord_stop(r, 0, why);
		return;
	}
	if (coord_check_errors(r))
		return;
	for (size_t v = 0; r->plan.files && v < r->plan.nr_vols; v++) {
		const char *dirs[2] = {r->plan.vols[v].path, r->plan.vols[v].log_path};

		for (unsigned j = 0; j < 2; j++) {
			if (stat(dirs[j], &st) == 0 || errno != ENOENT)
				continue;
			snprintf(why, sizeof(why),
				 "volume %s: directory %s disappeared during the run",
				 r->plan.vols[v].name, dirs[j]);
			r->ctl.env_failed = true;
			coord_stop(r, 0, why);
			return;
		}
	}
}

static void win_acc_add(struct win_acc *a, const struct hist *h)
{
	double v;

	if (!h->count)
		return;
	v = hist_mean(h) / 1e6;
	a->n++;
	a->sum += v;
	a->sumsq += v * v;
	if (v > a->max)
		a->max = v;
}

/* A measured 15 s window ends: its averages per database, volume and run. */
static void coord_window_stats(struct run *r)
{
	size_t nv = r->plan.nr_vols;

	if (!r->coord.wacc_db)
		return;
	for (unsigned c = 0; c < IO_CLASS_COUNT; c++) {
		struct hist all;

		hist_init(&all);
		for (size_t d = 0; d < r->plan.nr_dbs; d++)
			win_acc_add(&r->coord.wacc_db[d * IO_CLASS_COUNT + c],
				    &r->coord.win_db[d * IO_CLASS_COUNT + c].lat);
		for (size_t v = 0; v < nv; v++) {
			win_acc_add(&r->coord.wacc_vol[v * IO_CLASS_COUNT + c],
				    &r->coord.win_vol[v * IO_CLASS_COUNT + c].lat);
			hist_merge(&all, &r->coord.win_vol[v * IO_CLASS_COUNT + c].lat);
		}
		win_acc_add(&r->coord.wacc_run[c], &all);
	}
}

/* The window's latency histograms per volume x class, then a new window. */
static void coord_window_hists(struct run *r, uint64_t t_ms, bool warm)
{
	size_t n = r->plan.nr_vols * IO_CLASS_COUNT;
	struct store_interval_hist *rows = calloc(n, sizeof(*rows));

	for (size_t v = 0; rows && v < r->plan.nr_vols; v++)
		for (unsigned c = 0; c < IO_CLASS_COUNT; c++)
			rows[v * IO_CLASS_COUNT + c] = (struct store_interval_hist){
				t_ms,
				warm,
				SCOPE_VOLUME,
				r->plan.vols[v].name,
				(enum io_class)c,
				&r->coord.win_vol[v * IO_CLASS_COUNT + c].lat};
	if (rows && r->store.st && !r->store.failed &&
	    store_interval_hists_write(r->store.st, r->store.run_id, rows, n, &r->store.err))
		coord_store_error(r, -EIO);
	free(rows);
	for (size_t i = 0; i < n; i++)
		stats_class_reset(&r->coord.win_vol[i]);
}

/*
 * The running verdict after interval k: the measured totals so far judged
 * as run_finish judges them (run_judge), kept in r->coord.sofar* until the next
 * interval's. The measured time ends with interval k, or with the drain
 * for a run stopped early (as the final verdict's). A failure to judge
 * leaves no running verdict (sofar_judged false), never a stale one.
 */
static void coord_judge(struct run *r, unsigned k)
{
	uint64_t end = grid_end(&r->grid, k);

	if (r->ctl.time &&
	    (end > r->ctl.time || k == atomic_load_explicit(&r->ctl.last, memory_order_acquire)))
		end = r->ctl.time;
	free(r->coord.sofar_v);
	r->coord.sofar_v = NULL;
	r->coord.nr_sofar_v = 0;
	run_totals_release(&r->coord.sofar);
	r->coord.sofar_judged = !run_judge(r, run_measured_ns(r, end), true, &r->coord.sofar,
					   &r->coord.sofar_v, &r->coord.nr_sofar_v);
}

/* The maximum the max criterion judges in a class summary (eval.c's
 * choice), and the slowest I/O; NAN without I/O. */
static void view_max(const struct profile_thresholds *t, const struct class_summary *cs,
		     double *judged, double *io)
{
	*judged = *io = NAN;
	if (!cs->ios)
		return;
	*io = cs->max_ms;
	/* one figure per column: a sample average, or "-" until the first
	 * sample is complete, never the slowest I/O under its name */
	*judged = t->max_basis == PROFILE_MAX_SAMPLE ? cs->max_sample_avg_ms : cs->max_ms;
}

/* A so-far verdict of volume vol: its own or one of its databases'. */
static bool verdict_of_volume(const struct verdict *v, const char *vol)
{
	return (v->scope == SCOPE_VOLUME && !strcmp(v->name, vol)) ||
	       (v->scope == SCOPE_DATABASE && !strcmp(v->volume, vol));
}

static bool verdict_rollup(const struct verdict *v)
{
	return !strcmp(v->criterion, "databases_failed") || !strcmp(v->criterion, "volumes_failed");
}

const struct verdict *run_view_failure(const struct run_interval_view *v, const char *volume)
{
	const struct verdict *rollup = NULL;

	for (size_t i = 0; v->judged && i < v->nr_verdicts; i++) {
		const struct verdict *x = &v->verdicts[i];

		if (x->passed || (volume && !verdict_of_volume(x, volume)))
			continue;
		if (!verdict_rollup(x))
			return x;
		if (!rollup)
			rollup = x;
	}
	return rollup;
}

/* Interval k's view (the last merged), for the live view: the run's
 * figures and each volume's (an array built here, on the coordinator, once
 * an interval: workers pay nothing for it; freed when fn returns). */
static void coord_view_to(struct run *r, unsigned k,
			  void (*fn)(void *arg, const struct run_interval_view *v))
{
	const struct grid *g = &r->grid;
	uint64_t len = grid_end(g, k) - grid_start(g, k);
	struct run_interval_view view = {0};
	struct run_volume_view *vols;
	size_t nv = r->plan.nr_vols;

	if (!fn)
		return;
	view.index = k;
	view.last = k == atomic_load_explicit(&r->ctl.last, memory_order_acquire);
	view.warmup = k < g->nw;
	view.draining = atomic_load_explicit(&r->ctl.stop, memory_order_acquire);
	view.elapsed_ns = grid_end(g, k) - g->t0;
	view.total_ns = g->warmup + g->duration;
	view.tuning_streams = r->tune.tuner ? r->streams : 0;
	for (unsigned c = 0; c < IO_CLASS_COUNT; c++) {
		view.iops[c] = len ? (double)r->coord.iv_run[c].lat.count * 1e9 / (double)len : 0;
		view.avg_ms[c] = hist_mean(&r->coord.iv_run[c].lat) / 1e6;
		view.p99_ms[c] = (double)hist_percentile(&r->coord.iv_run[c].lat, 99) / 1e6;
	}
	view.errors = r->coord.io_errors;
	view.integrity_errors = r->coord.integrity_errors;
	view.db_read_avg_ms = (double)r->prof->thresholds.db_read_avg_ns / 1e6;
	view.log_write_avg_ms = (double)r->prof->thresholds.log_write_avg_ns / 1e6;
	view.db_read_max_ms = (double)r->prof->thresholds.db_read_max_ns / 1e6;
	view.log_write_max_ms = (double)r->prof->thresholds.log_write_max_ns / 1e6;
	view.max_is_sample = r->prof->thresholds.max_basis == PROFILE_MAX_SAMPLE;
	view.sample_s = (double)r->prof->thresholds.sample_interval_ns / 1e9;
	view.judged = r->coord.sofar_judged && !r->tune.tuner;
	if (view.judged) {
		view.verdicts = r->coord.sofar_v;
		view.nr_verdicts = r->coord.nr_sofar_v;
		view.would_pass = eval_all_passed(r->coord.sofar_v, r->coord.nr_sofar_v);
	}
	for (unsigned c = 0; c < IO_CLASS_COUNT; c++) {
		view.max_ms[c] = view.max_io_ms[c] = NAN;
		if (view.judged)
			view_max(&r->prof->thresholds, &r->coord.sofar.sums[0].classes[c],
				 &view.max_ms[c], &view.max_io_ms[c]);
	}
	vols = calloc(nv ? nv : 1, sizeof(*vols));
	for (size_t v = 0; vols && v < nv; v++) {
		const struct plan_volume *pv = &r->plan.vols[v];

		vols[v].name = pv->name;
		for (unsigned c = 0; c < IO_CLASS_COUNT; c++) {
			const struct hist *h = &r->coord.iv_vol[v * IO_CLASS_COUNT + c].lat;

			vols[v].iops[c] = len ? (double)h->count * 1e9 / (double)len : 0;
			vols[v].avg_ms[c] = hist_mean(h) / 1e6;
			vols[v].p99_ms[c] = (double)hist_percentile(h, 99) / 1e6;
			vols[v].max_ms[c] = vols[v].max_io_ms[c] = NAN;
			if (view.judged)
				view_max(&r->prof->thresholds,
					 &r->coord.sofar.sums[1 + v].classes[c], &vols[v].max_ms[c],
					 &vols[v].max_io_ms[c]);
		}
		for (size_t i = 0; i < view.nr_verdicts; i++)
			if (!view.verdicts[i].passed &&
			    verdict_of_volume(&view.verdicts[i], pv->name))
				vols[v].would_fail = true;
		for (unsigned d = pv->first_db; d < pv->first_db + pv->nr_dbs; d++) {
			for (unsigned c = 0; c < IO_CLASS_COUNT; c++)
				vols[v].errors += r->coord.tot_db[d * IO_CLASS_COUNT + c].errors;
			vols[v].integrity_errors += r->coord.integ_db[d];
		}
	}
	view.vols = vols;
	view.nr_vols = vols ? nv : 0;
	fn(r->opt->cb.arg, &view);
	free(vols);
}

static void coord_view(struct run *r, unsigned k)
{
	coord_view_to(r, k, r->opt->cb.interval);
}

/* Totals so far into the store, so that a killed run keeps them. */
static void coord_checkpoint(struct run *r, unsigned k)
{
	struct run_totals t = {0};
	uint64_t measured = run_measured_ns(r, grid_end(&r->grid, k));

	if (!r->store.st || r->store.failed || run_totals_build(r, measured, &t))
		return;
	if (store_run_checkpoint(r->store.st, r->store.run_id, t.totals, t.nt, measured,
				 &r->store.err))
		coord_store_error(r, -EIO);
	run_totals_release(&t);
}

/* Interval k's end in ms from the grid's start; for a run stopped early,
 * the interval holding the stop (and the interval of slack after it,
 * coord_stop) end when the drain did, so that rates over the warm-up count
 * only time that ran. */
static uint64_t coord_interval_ms(struct run *r, unsigned k)
{
	const struct grid *g = &r->grid;
	uint64_t t_ms = (grid_end(g, k) - g->t0) / NSEC_PER_MSEC;

	if (r->ctl.time) {
		uint64_t now = engine_clock_now(&r->clock);

		if (now < grid_end(g, k) && now > g->t0)
			t_ms = (now - g->t0) / NSEC_PER_MSEC;
	}
	return t_ms;
}

/* Database i of worker w's snapshot sn, merged into its volume's interval,
 * its window and (measured) its totals. */
static void coord_merge_db(struct run *r, const struct worker *w, const struct snap *sn, unsigned i,
			   bool warm)
{
	struct run_coord *c = &r->coord;
	unsigned gdb = w->dbs[i].global, v = w->dbs[i].pdb->volume;

	for (unsigned cl = 0; cl < IO_CLASS_COUNT; cl++) {
		const struct class_stats32 *cs = &sn->cs[i * IO_CLASS_COUNT + cl];
		struct class_stats *tot = &c->tot_db[gdb * IO_CLASS_COUNT + cl];

		/* per database here; per volume window and per run
		 * from iv_vol below (the same sums, 20 times fewer
		 * merges with 20 databases a volume) */
		stats_class_merge32(&c->iv_vol[v * IO_CLASS_COUNT + cl], cs);
		stats_class_merge32(&c->win_db[gdb * IO_CLASS_COUNT + cl], cs);
		if (!warm)
			stats_class_merge32(tot, cs);
		else
			tot->errors += cs->errors; /* errors always count */
		if (!warm)			   /* auto-tune's levels too (tune.c) */
			run_samples_db(r, gdb, cl, cs);
		c->io_errors += cs->errors;
	}
	if (!warm && !r->tune.tuner)
		run_samples_stalls(r, gdb, sn->stalls[i]);
	c->integ_db[gdb] += sn->integrity[i];
	c->integrity_errors += sn->integrity[i];
	if (!warm && c->resp_db && sn->resp)
		stats_class_merge32(&c->resp_db[gdb], &sn->resp[i]);
	if (!warm) {
		c->stream_db[gdb] += sn->stream_ns[i];
		txn_add(&c->txn_db[gdb], &sn->txn[i]);
	}
	/* the interval rows' (warm-up's too) */
	txn_add(&c->txn_iv[0], &sn->txn[i]);
	txn_add(&c->txn_iv[1 + v], &sn->txn[i]);
	txn_add(&c->txn_win[gdb], &sn->txn[i]);
}

/* Every worker's snapshot of interval k merged (its error messages stored
 * as events at ev_ms) and handed back; the I/Os found hung, returned. */
static uint64_t coord_merge(struct run *r, unsigned k, bool warm, uint64_t ev_ms)
{
	struct run_coord *c = &r->coord;
	unsigned nv = (unsigned)r->plan.nr_vols;
	uint64_t hung = 0;
	int ret;

	for (unsigned i = 0; i < nv * IO_CLASS_COUNT; i++)
		stats_class_reset(&c->iv_vol[i]);
	for (unsigned cl = 0; cl < IO_CLASS_COUNT; cl++)
		stats_class_reset(&c->iv_run[cl]);
	memset(c->txn_iv, 0, (1 + nv) * sizeof(*c->txn_iv));
	c->backlog_iv = (struct wl_backlog_iv){0};
	for (unsigned wi = 0; wi < r->nworkers; wi++) {
		struct worker *w = &r->workers[wi];
		struct snap *sn = &w->snaps[k % RUN_SLOTS];

		for (unsigned i = 0; i < w->ndb; i++)
			coord_merge_db(r, w, sn, i, warm);
		c->backlog_iv.peak += sn->backlog.peak;
		c->backlog_iv.area += sn->backlog.area;
		c->backlog_iv.streams += sn->backlog.streams;
		if (sn->backlog.busy_ns > c->backlog_iv.busy_ns)
			c->backlog_iv.busy_ns = sn->backlog.busy_ns;
		hung += sn->hung;
		if (sn->hung) {
			r->ctl.hung_seen = true;
			atomic_store_explicit(&r->ctl.hung, true, memory_order_relaxed);
		}
		for (unsigned m = 0; m < sn->nmsgs && r->store.st && !r->store.failed; m++) {
			ret = store_event_add(r->store.st, r->store.run_id, ev_ms, "error",
					      sn->msgs[m], &r->store.err);
			if (ret)
				coord_store_error(r, ret);
		}
		c->msgs_dropped += sn->dropped_msgs;
		atomic_store_explicit(&w->consumed, k + 1, memory_order_release);
	}
	for (unsigned v = 0; v < nv; v++)
		for (unsigned cl = 0; cl < IO_CLASS_COUNT; cl++) {
			const struct class_stats *iv = &c->iv_vol[v * IO_CLASS_COUNT + cl];

			stats_class_merge(&c->win_vol[v * IO_CLASS_COUNT + cl], iv);
			stats_class_merge(&c->iv_run[cl], iv);
		}
	return hung;
}

/* Interval k's rows: each volume's and the run's; the databases' every
 * RUN_DB_SAMPLE_EVERY intervals, at the end of warm-up and at the last
 * interval, which also close the sample window. Returns the row count. */
static size_t coord_rows(struct run *r, unsigned k, unsigned last, uint64_t t_ms, bool warm)
{
	struct run_coord *c = &r->coord;
	const struct grid *g = &r->grid;
	size_t nrows = 0, first;

	for (unsigned v = 0; v < r->plan.nr_vols; v++) {
		first = nrows;
		for (unsigned cl = 0; cl < IO_CLASS_COUNT; cl++)
			add_row(r, &nrows, t_ms, warm, SCOPE_VOLUME, r->plan.vols[v].name, cl,
				&c->iv_vol[v * IO_CLASS_COUNT + cl]);
		add_txn(r, first, nrows, &c->txn_iv[1 + v]);
	}
	first = nrows;
	for (unsigned cl = 0; cl < IO_CLASS_COUNT; cl++)
		add_row(r, &nrows, t_ms, warm, SCOPE_RUN, "run", cl, &c->iv_run[cl]);
	add_txn(r, first, nrows, &c->txn_iv[0]);
	add_backlog(r, first, nrows, k);
	if (!warm)
		run_samples_interval(r, k == last);
	c->win_len++;
	if (c->win_len != RUN_DB_SAMPLE_EVERY && k != last && k + 1 != g->nw)
		return nrows;
	for (size_t d = 0; d < r->plan.nr_dbs; d++) {
		first = nrows;
		for (unsigned cl = 0; cl < IO_CLASS_COUNT; cl++)
			add_row(r, &nrows, t_ms, warm, SCOPE_DATABASE, r->plan.dbs[d].name, cl,
				&c->win_db[d * IO_CLASS_COUNT + cl]);
		add_txn(r, first, nrows, &c->txn_win[d]);
	}
	memset(c->txn_win, 0, r->plan.nr_dbs * sizeof(*c->txn_win));
	if (!warm)
		coord_window_stats(r);
	for (size_t i = 0; i < r->plan.nr_dbs * IO_CLASS_COUNT; i++)
		stats_class_reset(&c->win_db[i]);
	coord_window_hists(r, t_ms, warm);
	c->win_len = 0;
	return nrows;
}

/* Interval k's nrows rows into the store, with the host's counters and the
 * end of warm-up; a failure is the store's error (coord_store_error). */
static void coord_store_interval(struct run *r, unsigned k, size_t nrows, uint64_t t_ms, bool warm,
				 uint64_t ev_ms)
{
	const struct grid *g = &r->grid;
	int ret;

	if (!r->store.st || r->store.failed)
		return;
	ret = store_space_check(r->store.st, STORE_MIN_FREE, &r->store.err);
	if (!ret)
		ret = store_interval_write(r->store.st, r->store.run_id, r->coord.rows, nrows,
					   &r->store.err);
	if (!ret && r->store.host && !r->tune.tuner) {
		struct host_sample hs;

		/* counters that cannot be read this once cost their rows,
		 * not the run */
		bool read = !counters_sampler_read(r->store.host, time_mono_ns(), &hs);

		if (!warm)
			run_reach_add(&r->reach, read ? &hs : NULL);
		if (read)
			ret = store_host_samples_write(r->store.st, r->store.run_id, t_ms, warm,
						       &hs, &r->store.err);
	}
	if (!ret && k + 1 == g->nw && g->nw)
		ret = store_event_add(r->store.st, r->store.run_id, ev_ms, "warmup_end",
				      "warm-up ended; measurement starts", &r->store.err);
	if (ret)
		coord_store_error(r, ret);
}

/*
 * Interval k, published by every worker: merged, stored (one transaction),
 * judged so far, checkpointed, journalled, checked, shown and served. While
 * auto-tune measures a level nothing is stored: the search decides.
 */
void coord_collect(struct run *r, unsigned k)
{
	const struct grid *g = &r->grid;
	bool warm = k < g->nw;
	uint64_t t_ms = coord_interval_ms(r, k);
	uint64_t ev_ms = run_clock_ms(r, g->t0 + t_ms * NSEC_PER_MSEC); /* t_ms but when tuned */
	uint64_t hung = coord_merge(r, k, warm, ev_ms);
	unsigned last;
	size_t nrows;

	run_kmsg_poll(r, ev_ms);

	if (r->tune.tuner) {
		/* auto-tune: nothing is stored per interval; the search decides */
		r->coord.collected = k + 1;
		tune_interval(r, k);
		coord_check_health(r, hung);
		coord_view(r, k);
		run_metrics_interval(r, k, NULL, 0);
		return;
	}
	last = atomic_load_explicit(&r->ctl.last, memory_order_acquire);
	nrows = coord_rows(r, k, last, t_ms, warm);
	coord_store_interval(r, k, nrows, t_ms, warm, ev_ms);
	/* the measured window's ends, as the host counters' rows have them */
	if (r->opt->window && !r->virt && (k + 1 == g->nw || (!warm && k == last)))
		r->opt->window(r->opt->window_arg, !warm, time_mono_ns());
	r->coord.collected = k + 1;
	coord_judge(r, k);
	if (!warm && (k - g->nw + 1) % RUN_DB_SAMPLE_EVERY == 0 && k != last)
		coord_checkpoint(r, k);
	journals_thread_poll(r);
	if ((k + 1) % RUN_JOURNAL_EVERY == 0 && k != last && !r->ctl.hung_seen)
		journals_thread_ask(r);
	coord_check_health(r, hung);
	coord_view(r, k);
	/* the running verdict as the live view shows it (none while tuning) */
	run_metrics_interval(r, k, r->coord.sofar_judged ? r->coord.sofar_v : NULL,
			     r->coord.sofar_judged ? r->coord.nr_sofar_v : 0);
}

/*
 * Stops issuing: the workers drain what is in flight (bounded) and publish up
 * to the interval holding the stop. signo is the signal that asked (0 for
 * none), reason what to record when it is not a signal. A second signal after
 * a first abandons the drain: the run row is finished at once.
 */
void coord_stop(struct run *r, int signo, const char *reason)
{
	uint64_t now = engine_clock_now(&r->clock);
	unsigned last = atomic_load(&r->ctl.last);
	unsigned k;

	if (atomic_load(&r->ctl.stop)) {
		if (signo && r->ctl.signal)
			r->ctl.abandoned = true;
		else if (signo)
			r->ctl.signal = signo;
		return;
	}
	if (reason)
		snprintf(r->ctl.reason, sizeof(r->ctl.reason), "%s", reason);
	r->ctl.signal = signo;
	if (!r->grid.interval) {
		/* before the run started (creating files): nothing to cut short */
		atomic_store(&r->ctl.stop, true);
		return;
	}
	k = grid_index(&r->grid, now, last);
	/* one interval of slack: a worker's clock may already be past ours */
	if (k < last)
		k++;
	r->ctl.time = now;
	atomic_store_explicit(&r->ctl.last, k, memory_order_release);
	atomic_store_explicit(&r->ctl.stop, true, memory_order_release);
	if (r->opt->cb.message)
		r->opt->cb.message(r->opt->cb.arg,
				   signo ? "interrupted: stopping and draining in-flight I/O "
					   "(interrupt again to quit at once)"
					 : r->ctl.reason);
}

/* The "hangup" event, once there is a run row to hold it (run_execute
 * calls it again after the row is made, for a SIGHUP that came before). */
void coord_hangup_event(struct run *r)
{
	struct strbuf msg = STRBUF_INIT;

	if (!r->ctl.hangup || r->ctl.hangup_stored || !r->store.run_id || !r->store.st ||
	    r->store.failed)
		return;
	r->ctl.hangup_stored = true;
	strbuf_addstr(&msg, "SIGHUP at ");
	time_format_iso8601(&msg, r->ctl.hangup_real_ns);
	strbuf_addstr(&msg, r->grid.interval ? ": the session hung up; the run goes on to its end"
					     : ": the session hung up while the database and log "
					       "files were created; the run goes on to its end");
	if (store_event_add(r->store.st, r->store.run_id, r->ctl.hangup_ms, "hangup", msg.buf,
			    &r->store.err))
		coord_store_error(r, -EIO);
	strbuf_release(&msg);
}

/*
 * SIGHUP: a dropped SSH session or a closed terminal must not cost a 24 h
 * run its verdict, so the run goes on; the caller stops writing to the
 * terminal (cb.hangup) and the event says when it came. Told once: a
 * second SIGHUP changes nothing.
 */
static void coord_hangup(struct run *r)
{
	if (r->ctl.hangup)
		return;
	r->ctl.hangup = true;
	r->ctl.hangup_ms = run_clock_ms(r, engine_clock_now(&r->clock));
	r->ctl.hangup_real_ns = time_real_ns();
	if (r->opt->cb.hangup)
		r->opt->cb.hangup(r->opt->cb.arg);
	coord_hangup_event(r);
}

/* SIGUSR1: the last merged interval's view to cb.status (NULL before the
 * first: the files being created, auto-tune or the run starting). */
static void coord_status(struct run *r)
{
	if (!r->opt->cb.status)
		return;
	if (!r->coord.collected || !r->grid.interval)
		r->opt->cb.status(r->opt->cb.arg, NULL);
	else
		coord_view_to(r, r->coord.collected - 1, r->opt->cb.status);
}

void coord_check_signal(struct run *r, int timeout_ms)
{
	struct pollfd pfd = {.fd = r->opt->signal_fd, .events = POLLIN};
	struct signalfd_siginfo si;

	if (r->opt->signal_fd < 0) {
		if (timeout_ms)
			usleep((useconds_t)timeout_ms * 1000);
		return;
	}
	if (poll(&pfd, 1, timeout_ms) <= 0)
		return;
	/* everything queued (the fd does not block): a SIGUSR1 may come with
	 * a SIGINT behind it */
	while (read(r->opt->signal_fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGHUP)
			coord_hangup(r);
		else if (si.ssi_signo == SIGUSR1)
			coord_status(r);
		else
			coord_stop(r, (int)si.ssi_signo, NULL);
		if (r->ctl.abandoned)
			return;
	}
}

/* Instant t on the events' run clock, in ms (see ev_base_ns): the time
 * since the grid started, after what came before it; a clock read before
 * the grid (or one a sim engine set back to 0) counts as its start. */
uint64_t run_clock_ms(const struct run *r, uint64_t t)
{
	uint64_t in = r->grid.interval && t > r->grid.t0 ? t - r->grid.t0 : 0;

	return (r->tune.ev_base_ns + in) / NSEC_PER_MSEC;
}

void run_clock_record(struct run *r)
{
	if (r->store.st && !r->store.failed &&
	    store_run_clock(r->store.st, r->store.run_id, r->virt ? 0 : time_real_ns(),
			    r->tune.ev_base_ns, &r->store.err))
		coord_store_error(r, -EIO);
}

void run_event(struct run *r, const char *kind, const char *msg)
{
	uint64_t t = run_clock_ms(r, engine_clock_now(&r->clock));

	if (r->store.st && !r->store.failed &&
	    store_event_add(r->store.st, r->store.run_id, t, kind, msg, &r->store.err))
		coord_store_error(r, -EIO);
	if (r->opt->cb.message)
		r->opt->cb.message(r->opt->cb.arg, msg);
}

void run_env_fact(void *arg, const char *key, const char *value)
{
	struct run *r = arg;

	if (!r->store.failed &&
	    store_env_add(r->store.st, r->store.run_id, key, value, &r->store.err))
		coord_store_error(r, -EIO);
}

/* Host and device facts, and what the engine could use (env.h). */
void run_env_record(struct run *r)
{
	struct strbuf uring = STRBUF_INIT;

	(void)engine_drv_probe(&engine_io_uring, &uring, NULL);
	env_collect_host(uring.buf, run_env_fact, r);
	strbuf_release(&uring);
	run_env_fact(r, "diskproof_version", DISKPROOF_VERSION);
	run_env_fact(r, "engine", r->ops->name);
	run_env_fact(r, "engine_notes", r->workers[0].ctx.notes);
	if (r->workers[0].ctx.features[0])
		run_env_fact(r, "engine_features", r->workers[0].ctx.features);
	for (unsigned i = 0; i < r->nworkers; i++) {
		env_numa_worker_facts(i, &r->workers[i].numa, run_env_fact, r);
		/* workers share the memlock limit, so a later one may have got
		 * fewer fixed buffers than worker 0, whose notes are above */
		if (strcmp(r->workers[i].ctx.notes, r->workers[0].ctx.notes)) {
			char key[48];

			snprintf(key, sizeof(key), "worker.%u.engine_notes", i);
			run_env_fact(r, key, r->workers[i].ctx.notes);
		}
	}
	{
		char v[160];

		snprintf(v, sizeof(v), "%u (%s)", r->nworkers,
			 fixed_model(r) ? "fixed model: each drives a page range of every database"
					: "databases round robin, one worker per database at most");
		run_env_fact(r, "workers", v);
		run_env_fact(r, "workload_model", profile_model_name(r->prof->model));
	}
	for (size_t v = 0; r->plan.files && v < r->plan.nr_vols; v++)
		env_collect_device(r->plan.vols[v].name, r->plan.vols[v].path, run_env_fact, r);
}

/*
 * Host counters beside the samples (counters.h): CPU and memory, and the
 * block devices under the volumes' paths. Opened just before the measurement
 * starts, after the files are laid out and auto-tune has run, so that the
 * first interval's deltas are its own. A host whose counters cannot be read
 * runs without them; an event says what is sampled, or why nothing is.
 *
 * An engine on a virtual clock (sim) gets none: its intervals are virtual
 * seconds that pass in microseconds of wall time, so the host's CPU, iowait
 * and memory over them would describe the simulator's own loop (near 100 %
 * user CPU), nothing the run measured, and a report would show them as if
 * they did. Left out, not labelled: no report or comparison can misread
 * them.
 */
void run_open_host_sampler(struct run *r)
{
	size_t nv = r->plan.files ? r->plan.nr_vols : 0;
	const char **paths = NULL;
	struct strbuf msg = STRBUF_INIT;
	int ret = -ENOMEM;

	if (r->virt) {
		strbuf_addf(&msg,
			    "host counters: not sampled: the %s engine runs on a virtual "
			    "clock, so the host's CPU, iowait and memory would describe "
			    "nothing the run measured",
			    r->ops->name);
		goto out_event;
	}
	paths = calloc(2 * nv + 1, sizeof(*paths));
	for (size_t v = 0; paths && v < nv; v++) {
		paths[2 * v] = r->plan.vols[v].path;
		paths[2 * v + 1] = r->plan.vols[v].log_path;
	}
	if (paths)
		ret = counters_sampler_open(&r->store.host, paths, 2 * nv, time_mono_ns(), &msg);
	if (!ret)
		counters_sampler_describe(r->store.host, &msg); /* "CPU, memory; devices ..." */
	else if (!msg.len)
		strbuf_addstr(&msg, "host counters: out of memory");
out_event:
	if (r->store.st && !r->store.failed &&
	    store_event_add(r->store.st, r->store.run_id,
			    run_clock_ms(r, engine_clock_now(&r->clock)), "host_counters", msg.buf,
			    &r->store.err))
		coord_store_error(r, -EIO);
	free(paths);
	strbuf_release(&msg);
}
