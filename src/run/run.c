/* SPDX-License-Identifier: MIT */
/*
 * run.c - run_execute, the top-level flow of one run (see run.h): the
 * results file, the plan and its files, the workers, auto-tune, the
 * measurement (worker threads, or one worker on virtual time), the final
 * journals and the end. The parts live beside it (run_internal.h).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diskproof/counters.h"
#include "diskproof/lock.h"
#include "diskproof/store.h"

#include "autotune.h"
#include "run_internal.h"

/* Threaded: workers run on their own; the coordinator merges as they publish. */
int run_threads(struct run *r, struct strbuf *err)
{
	sigset_t all;
	int ret;

	if (r->plan.files && run_mark_journals(r)) {
		/* nothing written yet: the journals on disk still hold */
		r->ctl.env_failed = true;
		coord_stop(r, 0, r->jnl.err.buf);
		return 0;
	}
	r->jnl.marked = r->plan.files;
	ret = journals_thread_start(r);
	if (ret) {
		char why[128];

		snprintf(why, sizeof(why), "cannot start the journal thread: %s", strerror(-ret));
		r->ctl.env_failed = true;
		coord_stop(r, 0, why);
		return 0;
	}
	sigfillset(&all);
	for (unsigned i = 0; i < r->nworkers; i++) {
		sigset_t old;

		/* workers block every signal: the coordinator takes them */
		pthread_sigmask(SIG_BLOCK, &all, &old);
		ret = pthread_create(&r->workers[i].thread, NULL, worker_thread, &r->workers[i]);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (ret) {
			char why[128];

			snprintf(why, sizeof(why), "cannot start a worker thread: %s",
				 strerror(ret));
			r->ctl.env_failed = true;
			coord_stop(r, 0, why);
			break;
		}
		r->workers[i].thread_started = true;
	}
	run_load_record(r); /* the workers are under way: now the store */
	for (unsigned k = 0; k <= atomic_load(&r->ctl.last); k++) {
		for (;;) {
			bool ready = true;

			for (unsigned i = 0; i < r->nworkers; i++)
				if (r->workers[i].thread_started &&
				    atomic_load_explicit(&r->workers[i].published,
							 memory_order_acquire) <= k)
					ready = false;
			if (ready)
				break;
			coord_check_signal(r, 20);
			coord_check_errors(r);
			coord_check_fatal(r);
			if (r->ctl.abandoned)
				goto out_abandon;
		}
		coord_collect(r, k);
		coord_check_signal(r, 0);
		if (r->ctl.abandoned)
			goto out_abandon;
	}
	for (unsigned i = 0; i < r->nworkers; i++) {
		struct worker *w = &r->workers[i];
		int st;

		if (!w->thread_started)
			continue;
		while (!(st = atomic_load_explicit(&w->exit_state, memory_order_acquire)))
			usleep(1000);
		if (st == 1)
			pthread_join(w->thread, NULL);
		else
			pthread_detach(w->thread); /* parked on a hung device */
	}
	journals_thread_stop(r);
	return 0;
out_abandon:
	/* the workers are left to the process exit that follows: detached,
	 * nobody waits for them (they may be stuck on a hung device) */
	for (unsigned i = 0; i < r->nworkers; i++)
		if (r->workers[i].thread_started)
			pthread_detach(r->workers[i].thread);
	return 0;
}

/* Every worker ended with nothing in flight and no engine error: the
 * journals written now may be clean (exact). */
bool run_workers_drained(const struct run *r)
{
	for (unsigned i = 0; i < r->nworkers; i++)
		if (engine_drv_inflight(&r->workers[i].drv) || r->workers[i].fatal)
			return false;
	return true;
}

/* On virtual time, what a worker publishes is merged at once, on its
 * thread (worker.on_publish). */
static void virtual_publish(void *arg, unsigned k)
{
	coord_collect(arg, k);
}

/* Virtual time: one worker, the coordinator called as it publishes. */
int run_virtual(struct run *r)
{
	struct worker *w = &r->workers[0];
	unsigned n = 0;

	w->on_publish = virtual_publish;
	w->on_publish_arg = r;
	w->wl.run_id = r->store.run_id; /* the run is stored by now */
	run_load_record(r);
	while (worker_step(w)) {
		if (++n % 4096 == 0)
			coord_check_signal(r, 0);
		coord_check_errors(r);
		if (r->ctl.abandoned)
			return 0;
	}
	if (w->fatal) {
		r->ctl.env_failed = true;
		coord_stop(r, 0, w->fatal_msg);
	}
	worker_finish(w);
	return 0;
}

static void run_release(struct run *r)
{
	run_metrics_close(r);
	run_durability_release(r);
	for (unsigned i = 0; r->workers && i < r->nworkers; i++)
		run_worker_release(&r->workers[i]);
	free(r->workers);
	coord_release(&r->coord);
	free(r->fresh_from);
	run_samples_release(r);
	free(r->jnl.noted);
	free(r->jnl.rewrite);
	strbuf_release(&r->jnl.notes);
	strbuf_release(&r->jnl.err);
	strbuf_release(&r->remade);
	plan_release(&r->plan);
	counters_sampler_close(r->store.host);
	run_reach_release(&r->reach);
	store_close(r->store.st);
	strbuf_release(&r->store.err);
}

/* File creation progress; a SIGINT/SIGTERM stops it (the files resume on
 * the next run). */
static int create_progress(void *arg, const char *file, uint64_t done, uint64_t total)
{
	struct run *r = arg;
	const struct run_options *o = r->opt;

	if (o->cb.create)
		o->cb.create(o->cb.arg, file, done, total);
	coord_check_signal(r, 0);
	return r->ctl.signal ? -EINTR : 0;
}

/* The run's effective parameters (table param): what a report lists and
 * compare diffs, options and defaults included. */
static int run_record_params(struct store *st, int64_t run_id, const struct profile *p,
			     struct strbuf *err)
{
	struct profile_param *pp;
	struct store_param_row *rows;
	size_t n;
	int ret;

	if (profile_params(p, &pp, &n)) {
		strbuf_addstr(err, "out of memory");
		return -ENOMEM;
	}
	rows = calloc(n ? n : 1, sizeof(*rows));
	if (!rows) {
		profile_params_release(pp, n);
		strbuf_addstr(err, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		rows[i] =
			(struct store_param_row){pp[i].section, pp[i].name, pp[i].key, pp[i].value,
						 profile_param_source_name(pp[i].source)};
	ret = store_run_params(st, run_id, rows, n, err);
	free(rows);
	profile_params_release(pp, n);
	return ret;
}

/* Each line of text ("a\nb\n") as an event of kind at the run's start. */
static void record_lines(struct run *r, const char *kind, const char *text)
{
	struct strbuf line = STRBUF_INIT;

	for (const char *s = text, *nl; *s && !r->store.failed; s = nl + 1) {
		nl = strchrnul(s, '\n');
		strbuf_reset(&line);
		strbuf_add(&line, s, (size_t)(nl - s));
		if (store_event_add(r->store.st, r->store.run_id, 0, kind, line.buf, &r->store.err))
			coord_store_error(r, -EIO);
		if (!*nl)
			break;
	}
	strbuf_release(&line);
}

/* The profile's engine, and the clock it runs on: 0, or -errno with the
 * exit code in out (a usage error for an unknown engine). */
static int run_engine(struct run *r, struct run_outcome *out, struct strbuf *err)
{
	const struct profile *p = r->prof;
	int ret;

	r->ops = engine_find(p->engine);
	if (!r->ops) {
		strbuf_addf(err, "unknown engine \"%s\"", p->engine);
		out->exit_code = DP_EXIT_USAGE;
		return -EINVAL;
	}
	if (r->ops->unavailable) {
		strbuf_addf(err, "engine %s is not available: %s", r->ops->name,
			    r->ops->unavailable);
		return -ENOTSUP;
	}
	/* what the kernel lacks for the engine (io_uring's probe) */
	ret = engine_drv_probe(r->ops, NULL, err);
	if (ret)
		return ret;
	r->virt = (r->ops->flags & ENGINE_F_OWN_CLOCK) != 0;
	if (r->virt)
		engine_clock_init_virtual(&r->clock);
	else
		engine_clock_init_mono(&r->clock);
	return 0;
}

/* What is refused before anything is written: --metrics' port, the
 * handshake's files, the results file. 0, or -errno (exit code in out). */
static int run_open(struct run *r, struct run_outcome *out, struct strbuf *err)
{
	const struct run_options *o = r->opt;
	int ret;

	/* --metrics binds first: a port in use stops the run before anything
	 * is written */
	ret = run_metrics_open(r, err);
	if (ret) {
		out->exit_code = ret == -EINVAL ? DP_EXIT_USAGE : DP_EXIT_ENV;
		return ret;
	}
	/* --ready-file, --start-file: an earlier run's leftovers go, a
	 * foreign file there stops the run before anything is written */
	r->start.timeout_ns =
		o->start_timeout_ns ? o->start_timeout_ns : RUN_START_TIMEOUT_DEFAULT_NS;
	ret = run_handshake_open(o, err);
	if (ret)
		return ret;
	/* the results file first: if it is unusable, nothing is written */
	ret = store_open(&r->store.st, o->results_path, err);
	if (!ret)
		ret = store_space_check(r->store.st, STORE_MIN_FREE, err);
	return ret;
}

/* The plan, the volumes' lock (*lock, the caller releases it) and what is
 * sized by the plan: 0 or -errno. */
static int run_plan(struct run *r, struct plan_lock **lock, struct strbuf *err)
{
	const struct run_options *o = r->opt;
	const struct profile *p = r->prof;
	int ret;

	ret = plan_build(&r->plan, p, !(r->ops->flags & ENGINE_F_NO_FILES), err);
	if (ret)
		return ret;
	r->plan.destroy = o->destroy;
	r->plan.ndestroy = o->ndestroy;
	r->plan.force = o->force;
	/* the results file's reserve counts where it shares a volume's filesystem */
	r->plan.results = o->results_path;
	r->plan.results_reserve = STORE_MIN_FREE;
	/* one command at a time on a volume (lock.h); sim touches no files */
	if (r->plan.files) {
		ret = plan_lock_take(lock, &r->plan, "run",
				     PLAN_LOCK_CREATE | (o->no_lock ? PLAN_LOCK_BEST_EFFORT : 0),
				     err);
		if (ret)
			return ret;
		r->plan.lock = *lock;
		if (*plan_lock_skipped(*lock) && o->cb.warning)
			o->cb.warning(o->cb.arg, plan_lock_skipped(*lock));
	}
	r->fresh_from = calloc(r->plan.nr_dbs, sizeof(*r->fresh_from));
	r->jnl.noted = calloc(r->plan.nr_dbs, sizeof(*r->jnl.noted));
	r->jnl.rewrite = calloc(r->plan.nr_dbs, sizeof(*r->jnl.rewrite));
	if (!r->fresh_from || !r->jnl.noted || !r->jnl.rewrite ||
	    coord_init(&r->coord, r->plan.nr_dbs, r->plan.nr_vols, open_loop(r)) ||
	    run_samples_init(r)) {
		strbuf_addstr(err, "out of memory");
		return -ENOMEM;
	}
	r->streams = p->streams ? p->streams : profile_streams_default((unsigned)r->plan.nr_dbs);
	run_metrics_prepare(r);
	return 0;
}

/* The database and log files checked and created (plan_prepare_files):
 * 0, or -errno with the exit code in out (an interrupt, lost pages). */
static int run_files(struct run *r, struct run_outcome *out, struct strbuf *err)
{
	const struct run_options *o = r->opt;
	struct plan_progress prog = {create_progress, r};
	uint64_t created = 0;
	int ret;

	if (!r->plan.files)
		return 0;
	if (o->cb.message)
		o->cb.message(o->cb.arg, "checking and creating database and log files");
	ret = plan_prepare_files(&r->plan, r->prof, &prog, r->fresh_from, &created, &r->remade,
				 err);
	if (!ret && r->remade.len && o->remade)
		strbuf_addstr(o->remade, r->remade.buf);
	if (ret == -EINTR) {
		out->exit_code = run_exit_code(&(struct run_exit_facts){
			.signal = r->ctl.signal == SIGINT ? SIGINT : SIGTERM});
		run_record_interrupted(r, out, err);
	} else if (ret == -EUCLEAN) {
		/* a database lost pages */
		out->exit_code = run_exit_code(&(struct run_exit_facts){.integrity = true});
	}
	return ret;
}

/* The run's volumes and databases (tables volume, database). */
static int run_record_layout(struct run *r, struct strbuf *err)
{
	const struct plan *pl = &r->plan;
	struct store_volume_row *vr = calloc(pl->nr_vols, sizeof(*vr));
	struct store_database_row *dr = calloc(pl->nr_dbs, sizeof(*dr));
	int ret = -ENOMEM;

	if (!vr || !dr) {
		strbuf_addstr(err, "out of memory");
		goto out_free;
	}
	for (size_t v = 0; v < pl->nr_vols; v++)
		vr[v] = (struct store_volume_row){pl->vols[v].name, pl->vols[v].path,
						  pl->vols[v].log_path, pl->vols[v].nr_dbs};
	for (size_t d = 0; d < pl->nr_dbs; d++)
		dr[d] = (struct store_database_row){
			pl->dbs[d].name, pl->vols[pl->dbs[d].volume].name, pl->dbs[d].path,
			pl->dbs[d].log_file, pl->dbs[d].size};
	ret = store_run_layout(r->store.st, r->store.run_id, vr, pl->nr_vols, dr, pl->nr_dbs, err);
out_free:
	free(vr);
	free(dr);
	return ret;
}

/* The run row, its layout, parameters and environment, and the events of
 * what came before it: 0 or -errno (err says why). */
static int run_row(struct run *r, struct run_outcome *out, const struct plan_lock *lock,
		   struct strbuf *err)
{
	struct store_run_info info = {0};
	char host[256] = "unknown";
	int ret;

	run_info_fill(r, &info, host, sizeof(host));
	ret = store_run_begin(r->store.st, &info, &r->store.run_id, err);
	if (ret)
		return ret;
	out->run_id = r->store.run_id;
	/* a series' first run: the uuid the store made, for the next runs */
	if (r->opt->series && !r->opt->series->uuid[0]) {
		ret = store_run_series_uuid(r->store.st, r->store.run_id, r->opt->series->uuid,
					    sizeof(r->opt->series->uuid), err);
		if (ret)
			return ret;
	}
	snprintf(r->metrics.hostname, sizeof(r->metrics.hostname), "%s", info.host);
	r->metrics.started_real_ns = info.started_real_ns;
	ret = run_record_layout(r, err);
	if (!ret)
		ret = run_record_params(r->store.st, r->store.run_id, r->prof, err);
	if (ret)
		return ret;
	run_env_record(r);
	run_metrics_begin(r);
	if (!r->store.failed &&
	    store_event_add(r->store.st, r->store.run_id, 0, "start", "run started", &r->store.err))
		coord_store_error(r, -EIO);
	run_kmsg_begin(r);     /* from here, what the kernel logs about the devices */
	coord_hangup_event(r); /* a SIGHUP while the files were created */
	record_lines(r, "lock", plan_lock_skipped(lock)); /* --no-lock */
	if (r->remade.len && !r->store.failed) {
		struct strbuf m = STRBUF_INIT;

		strbuf_addf(&m, "re-created as --destroy-data asked: %s", r->remade.buf);
		record_lines(r, "destroy_data", m.buf);
		strbuf_release(&m);
	}
	record_lines(r, "journal", r->jnl.notes.buf);
	return 0;
}

/*
 * Auto-tune's levels (streams = auto), then the main test's workers at the
 * level chosen. 0 with *done false: the main test follows. Otherwise the
 * run is over: *done true when run_finish has ended it (ret is its), with
 * out->abandoned set when a second signal abandoned it (the caller leaves
 * at once); else an error before the main test.
 */
static int run_tune_levels(struct run *r, struct run_outcome *out, struct strbuf *err, bool *done)
{
	struct tuner t;
	int ret;

	*done = false;
	run_release_workers(r);
	ret = run_autotune(r, &t, err);
	autotune_release(&t);
	if (r->ctl.abandoned) {
		*done = true;
		ret = run_finish(r, out, err);
		out->abandoned = true;
		return ret;
	}
	coord_reset(&r->coord, r->plan.nr_dbs, r->plan.nr_vols);
	run_samples_reset(r);
	if (ret || !r->streams || r->ctl.signal || r->ctl.reason[0] || r->ctl.env_failed) {
		/* no main test: the run was stopped (auto-tune always chooses a
		 * level, the fewest streams tried when none passed) */
		*done = true;
		return run_finish(r, out, err);
	}
	if (!r->store.failed &&
	    store_run_set_streams(r->store.st, r->store.run_id, r->streams, &r->store.err))
		coord_store_error(r, -EIO);
	run_release_workers(r); /* the last level's */
	ret = run_setup_workers(r, err);
	if (ret)
		return ret;
	atomic_store(&r->ctl.stop, false);
	r->ctl.time = 0;
	r->coord.collected = 0;
	return 0;
}

/* The main test: the start, the load on its grid, the final journals and
 * run_finish, whose return it returns (out->abandoned set after a second
 * signal: the caller leaves at once). */
static int run_measure(struct run *r, struct run_outcome *out, struct strbuf *err)
{
	struct strbuf derr = STRBUF_INIT;
	uint64_t now, dur;
	int ret;

	/* --start-at: ready (the host counters too, whose event is a write
	 * that must not delay the start); the load begins at the instant */
	run_open_host_sampler(r);
	if (run_start_wait(r))
		return run_finish(r, out, err);
	run_load_begin(r);
	now = engine_clock_now(&r->clock);
	dur = r->prof->duration_ns;
	/* a simulated cut ends the run there: nothing is measured after it */
	if (r->dur.cut_ns > now + r->prof->warmup_ns &&
	    r->dur.cut_ns - now - r->prof->warmup_ns < dur)
		dur = r->dur.cut_ns - now - r->prof->warmup_ns;
	grid_init(&r->grid, now, r->prof->warmup_ns, dur);
	run_clock_record(r);
	atomic_store(&r->ctl.last, r->grid.last);
	if (r->opt->window && !r->virt && !r->grid.nw)
		r->opt->window(r->opt->window_arg, false, time_mono_ns());
	if (r->virt)
		run_virtual(r);
	else
		run_threads(r, err);
	if (r->ctl.abandoned) {
		/* a second signal: record what was measured and leave the workers
		 * (and their memory) to the process exit that follows */
		ret = run_finish(r, out, err);
		out->abandoned = true;
		return ret;
	}
	if (run_durability_close(r, &derr)) {
		run_event(r, "error", derr.buf);
		coord_stop(r, 0, derr.buf);
		r->ctl.env_failed = true;
	}
	strbuf_release(&derr);
	totals_pass_figures_record(r);
	/* after a hang the journals stay as marked (lower bounds): a write
	 * would block on the hung filesystem before the verdict */
	if (r->jnl.marked && !r->ctl.hung_seen &&
	    run_write_journals(r, false, run_workers_drained(r)))
		r->ctl.env_failed = true;
	return run_finish(r, out, err);
}

int run_execute(const struct run_options *o, struct run_outcome *out, struct strbuf *err)
{
	struct run r = {0};
	const struct profile *p = o->profile;
	struct plan_lock *lock = NULL;
	bool done = false;
	int ret;

	memset(out, 0, sizeof(*out));
	out->exit_code = DP_EXIT_ENV;
	out->status = "error";
	strbuf_init(&r.store.err);
	strbuf_init(&r.jnl.notes);
	strbuf_init(&r.jnl.err);
	strbuf_init(&r.remade);
	strbuf_init(&r.metrics.text);
	r.opt = o;
	r.prof = p;
	ret = run_engine(&r, out, err);
	if (ret)
		return ret;
	ret = run_open(&r, out, err);
	if (!ret)
		ret = run_plan(&r, &lock, err);
	if (!ret)
		ret = run_files(&r, out, err);
	if (ret)
		goto out;
	if (p->streams == PROFILE_STREAMS_AUTO)	     /* what auto may tune: validation's */
		r.streams = (unsigned)r.plan.nr_dbs; /* checks the layout; tuned below */
	ret = run_setup_workers(&r, err);
	if (ret) {
		if (ret == -EINVAL)
			out->exit_code = DP_EXIT_USAGE;
		goto out;
	}
	/* the witness before the run row: a durability run that cannot reach
	 * its witness writes nothing */
	ret = run_durability_open(&r, err);
	if (ret)
		goto out;
	ret = run_row(&r, out, lock, err);
	if (!ret && p->streams == PROFILE_STREAMS_AUTO)
		ret = run_tune_levels(&r, out, err, &done);
	if (out->abandoned)
		return ret;
	if (ret || done)
		goto out;
	ret = run_measure(&r, out, err);
	if (out->abandoned)
		return ret;
out:
	run_release(&r);
	plan_lock_release(lock);
	return ret;
}
