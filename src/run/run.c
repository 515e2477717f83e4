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
		r->env_failed = true;
		coord_stop(r, 0, r->journal_err.buf);
		return 0;
	}
	r->journals_marked = r->plan.files;
	ret = journal_thread_start(r);
	if (ret) {
		char why[128];

		snprintf(why, sizeof(why), "cannot start the journal thread: %s", strerror(-ret));
		r->env_failed = true;
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
			r->env_failed = true;
			coord_stop(r, 0, why);
			break;
		}
		r->workers[i].thread_started = true;
	}
	run_load_record(r); /* the workers are under way: now the store */
	for (unsigned k = 0; k <= atomic_load(&r->last); k++) {
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
			if (r->abandoned)
				goto out_abandon;
		}
		coord_collect(r, k);
		coord_check_signal(r, 0);
		if (r->abandoned)
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
	journal_thread_stop(r);
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
	run_load_record(r);
	while (worker_step(w)) {
		if (++n % 4096 == 0)
			coord_check_signal(r, 0);
		coord_check_errors(r);
		if (r->abandoned)
			return 0;
	}
	if (w->fatal) {
		r->env_failed = true;
		coord_stop(r, 0, w->fatal_msg);
	}
	worker_finish(w);
	return 0;
}

static void run_release(struct run *r)
{
	run_metrics_close(r);
	for (unsigned i = 0; r->workers && i < r->nworkers; i++)
		worker_release(&r->workers[i]);
	free(r->workers);
	free(r->tot_db);
	free(r->integ_db);
	free(r->stream_db);
	free(r->txn_db);
	free(r->txn_win);
	free(r->txn_iv);
	free(r->win_db);
	free(r->win_vol);
	free(r->iv_vol);
	free(r->rows);
	free(r->fresh_from);
	free(r->wacc_db);
	free(r->wacc_vol);
	free(r->wacc_run);
	run_samples_release(r);
	free(r->sofar_v);
	run_totals_release(&r->sofar);
	free(r->journal_noted);
	strbuf_release(&r->journal_notes);
	strbuf_release(&r->journal_err);
	strbuf_release(&r->remade);
	plan_release(&r->plan);
	host_sampler_close(r->host);
	store_close(r->store);
	strbuf_release(&r->store_err);
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
	return r->stop_signal ? -EINTR : 0;
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

	for (const char *s = text, *nl; *s && !r->store_failed; s = nl + 1) {
		nl = strchrnul(s, '\n');
		strbuf_reset(&line);
		strbuf_add(&line, s, (size_t)(nl - s));
		if (store_event_add(r->store, r->run_id, 0, kind, line.buf, &r->store_err))
			coord_store_error(r, -EIO);
		if (!*nl)
			break;
	}
	strbuf_release(&line);
}

int run_execute(const struct run_options *o, struct run_outcome *out, struct strbuf *err)
{
	struct run r = {0};
	const struct profile *p = o->profile;
	struct plan_progress prog = {create_progress, &r};
	struct store_run_info info = {0};
	struct plan_lock *lock = NULL;
	char host[256] = "unknown";
	uint64_t created = 0;
	int ret;

	memset(out, 0, sizeof(*out));
	out->exit_code = DP_EXIT_ENV;
	out->status = "error";
	strbuf_init(&r.store_err);
	strbuf_init(&r.journal_notes);
	strbuf_init(&r.journal_err);
	strbuf_init(&r.remade);
	strbuf_init(&r.mtext);
	r.opt = o;
	r.prof = p;
	r.ops = engine_find(p->engine);
	if (!r.ops) {
		strbuf_addf(err, "unknown engine \"%s\"", p->engine);
		out->exit_code = DP_EXIT_USAGE;
		return -EINVAL;
	}
	if (r.ops->unavailable) {
		strbuf_addf(err, "engine %s is not available: %s", r.ops->name, r.ops->unavailable);
		return -ENOTSUP;
	}
	/* what the kernel lacks for the engine (io_uring's probe) */
	ret = engine_drv_probe(r.ops, NULL, err);
	if (ret)
		return ret;
	r.virt = (r.ops->flags & ENGINE_F_OWN_CLOCK) != 0;
	if (r.virt)
		engine_clock_init_virtual(&r.clock);
	else
		engine_clock_init_mono(&r.clock);

	/* --metrics binds first: a port in use stops the run before anything
	 * is written */
	ret = run_metrics_open(&r, err);
	if (ret) {
		out->exit_code = ret == -EINVAL ? DP_EXIT_USAGE : DP_EXIT_ENV;
		goto out;
	}
	/* --ready-file, --start-file: an earlier run's leftovers go, a
	 * foreign file there stops the run before anything is written */
	r.start_timeout_ns =
		o->start_timeout_ns ? o->start_timeout_ns : RUN_START_TIMEOUT_DEFAULT_NS;
	ret = run_handshake_open(o, err);
	if (ret)
		goto out;
	/* the results file first: if it is unusable, nothing is written */
	ret = store_open(&r.store, o->results_path, err);
	if (!ret)
		ret = store_space_check(r.store, STORE_MIN_FREE, err);
	if (ret)
		goto out;
	ret = plan_build(&r.plan, p, !(r.ops->flags & ENGINE_F_NO_FILES), err);
	if (ret)
		goto out;
	r.plan.destroy = o->destroy;
	r.plan.ndestroy = o->ndestroy;
	r.plan.force = o->force;
	/* the results file's reserve counts where it shares a volume's filesystem */
	r.plan.results = o->results_path;
	r.plan.results_reserve = STORE_MIN_FREE;
	/* one command at a time on a volume (lock.h); sim touches no files */
	if (r.plan.files) {
		ret = plan_lock_take(&lock, &r.plan, "run",
				     PLAN_LOCK_CREATE | (o->no_lock ? PLAN_LOCK_BEST_EFFORT : 0),
				     err);
		if (ret)
			goto out;
		r.plan.lock = lock;
		if (*plan_lock_skipped(lock) && o->cb.warning)
			o->cb.warning(o->cb.arg, plan_lock_skipped(lock));
	}
	r.fresh_from = calloc(r.plan.nr_dbs, sizeof(*r.fresh_from));
	r.tot_db = calloc(r.plan.nr_dbs * IO_CLASS_COUNT, sizeof(*r.tot_db));
	r.win_db = calloc(r.plan.nr_dbs * IO_CLASS_COUNT, sizeof(*r.win_db));
	r.integ_db = calloc(r.plan.nr_dbs, sizeof(*r.integ_db));
	r.stream_db = calloc(r.plan.nr_dbs, sizeof(*r.stream_db));
	r.txn_db = calloc(r.plan.nr_dbs, sizeof(*r.txn_db));
	r.txn_win = calloc(r.plan.nr_dbs, sizeof(*r.txn_win));
	r.txn_iv = calloc(1 + r.plan.nr_vols, sizeof(*r.txn_iv));
	r.journal_noted = calloc(r.plan.nr_dbs, sizeof(*r.journal_noted));
	r.iv_vol = calloc(r.plan.nr_vols * IO_CLASS_COUNT, sizeof(*r.iv_vol));
	r.win_vol = calloc(r.plan.nr_vols * IO_CLASS_COUNT, sizeof(*r.win_vol));
	r.wacc_db = calloc(r.plan.nr_dbs * IO_CLASS_COUNT, sizeof(*r.wacc_db));
	r.wacc_vol = calloc(r.plan.nr_vols * IO_CLASS_COUNT, sizeof(*r.wacc_vol));
	r.wacc_run = calloc(IO_CLASS_COUNT, sizeof(*r.wacc_run));
	if (!r.fresh_from || !r.tot_db || !r.win_db || !r.integ_db || !r.stream_db || !r.txn_db ||
	    !r.txn_win || !r.txn_iv || !r.journal_noted || !r.iv_vol || !r.win_vol || !r.wacc_db ||
	    !r.wacc_vol || !r.wacc_run || run_samples_init(&r)) {
		strbuf_addstr(err, "out of memory");
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < r.plan.nr_dbs * IO_CLASS_COUNT; i++) {
		class_stats_reset(&r.tot_db[i]);
		class_stats_reset(&r.win_db[i]);
	}
	for (size_t i = 0; i < r.plan.nr_vols * IO_CLASS_COUNT; i++)
		class_stats_reset(&r.win_vol[i]);
	r.streams = p->streams ? p->streams : profile_streams_default((unsigned)r.plan.nr_dbs);
	run_metrics_prepare(&r);
	if (r.plan.files) {
		if (o->cb.message)
			o->cb.message(o->cb.arg, "checking and creating database and log files");
		ret = plan_prepare_files(&r.plan, p, &prog, r.fresh_from, &created, &r.remade, err);
		if (!ret && r.remade.len && o->remade)
			strbuf_addstr(o->remade, r.remade.buf);
		if (ret == -EINTR) {
			out->exit_code = run_exit_code(&(struct run_exit_facts){
				.signal = r.stop_signal == SIGINT ? SIGINT : SIGTERM});
			run_record_interrupted(&r, out, err);
		} else if (ret == -EUCLEAN) {
			/* a database lost pages */
			out->exit_code = run_exit_code(&(struct run_exit_facts){.integrity = true});
		}
		if (ret)
			goto out;
	}
	if (p->streams == PROFILE_STREAMS_AUTO)	     /* what auto may tune: validation's */
		r.streams = (unsigned)r.plan.nr_dbs; /* checks the layout; tuned below */
	ret = run_setup_workers(&r, err);
	if (ret) {
		if (ret == -EINVAL)
			out->exit_code = DP_EXIT_USAGE;
		goto out;
	}

	run_info_fill(&r, &info, host, sizeof(host));
	ret = store_run_begin(r.store, &info, &r.run_id, err);
	if (ret)
		goto out;
	out->run_id = r.run_id;
	snprintf(r.hostname, sizeof(r.hostname), "%s", info.host);
	r.started_real_ns = info.started_real_ns;
	{
		struct store_volume_row *vr = calloc(r.plan.nr_vols, sizeof(*vr));
		struct store_database_row *dr = calloc(r.plan.nr_dbs, sizeof(*dr));

		if (!vr || !dr) {
			free(vr);
			free(dr);
			strbuf_addstr(err, "out of memory");
			ret = -ENOMEM;
			goto out;
		}
		for (size_t v = 0; v < r.plan.nr_vols; v++)
			vr[v] = (struct store_volume_row){r.plan.vols[v].name, r.plan.vols[v].path,
							  r.plan.vols[v].log_path,
							  r.plan.vols[v].nr_dbs};
		for (size_t d = 0; d < r.plan.nr_dbs; d++)
			dr[d] = (struct store_database_row){
				r.plan.dbs[d].name, r.plan.vols[r.plan.dbs[d].volume].name,
				r.plan.dbs[d].path, r.plan.dbs[d].log_file, r.plan.dbs[d].size};
		ret = store_run_layout(r.store, r.run_id, vr, r.plan.nr_vols, dr, r.plan.nr_dbs,
				       err);
		free(vr);
		free(dr);
		if (ret)
			goto out;
	}
	ret = run_record_params(r.store, r.run_id, p, err);
	if (ret)
		goto out;
	record_env(&r);
	run_metrics_begin(&r);
	if (!r.store_failed &&
	    store_event_add(r.store, r.run_id, 0, "start", "run started", &r.store_err))
		coord_store_error(&r, -EIO);
	coord_hangup_event(&r); /* a SIGHUP while the files were created */
	record_lines(&r, "lock", plan_lock_skipped(lock)); /* --no-lock */
	if (r.remade.len && !r.store_failed) {
		struct strbuf m = STRBUF_INIT;

		strbuf_addf(&m, "re-created as --destroy-data asked: %s", r.remade.buf);
		record_lines(&r, "destroy_data", m.buf);
		strbuf_release(&m);
	}
	record_lines(&r, "journal", r.journal_notes.buf);

	if (p->streams == PROFILE_STREAMS_AUTO) {
		struct tuner t;
		uint64_t *errs = calloc(r.plan.nr_dbs * IO_CLASS_COUNT, sizeof(*errs));

		run_release_workers(&r);
		ret = errs ? run_autotune(&r, &t, err) : -ENOMEM;
		tuner_release(&t);
		if (r.abandoned) {
			free(errs);
			ret = run_finish(&r, out, err);
			out->abandoned = true;
			return ret;
		}
		/* the main test's figures start afresh; errors seen while tuning
		 * stay counted */
		for (size_t i = 0; errs && i < r.plan.nr_dbs * IO_CLASS_COUNT; i++) {
			errs[i] = r.tot_db[i].errors;
			class_stats_reset(&r.tot_db[i]);
			class_stats_reset(&r.win_db[i]);
			r.tot_db[i].errors = errs[i];
		}
		free(errs);
		memset(r.stream_db, 0, r.plan.nr_dbs * sizeof(*r.stream_db));
		memset(r.txn_db, 0, r.plan.nr_dbs * sizeof(*r.txn_db));
		memset(r.txn_win, 0, r.plan.nr_dbs * sizeof(*r.txn_win));
		for (size_t i = 0; i < r.plan.nr_vols * IO_CLASS_COUNT; i++)
			class_stats_reset(&r.win_vol[i]);
		r.win_len = 0;
		run_samples_reset(&r);
		if (ret || !r.streams || r.stop_signal || r.stop_reason[0] || r.env_failed) {
			/* no main test: the run was stopped (auto-tune always chooses a
			 * level, the fewest streams tried when none passed) */
			ret = run_finish(&r, out, err);
			goto out;
		}
		if (!r.store_failed &&
		    store_run_set_streams(r.store, r.run_id, r.streams, &r.store_err))
			coord_store_error(&r, -EIO);
		run_release_workers(&r); /* the last level's */
		ret = run_setup_workers(&r, err);
		if (ret)
			goto out;
		atomic_store(&r.stop, false);
		r.stop_time = 0;
		r.collected = 0;
	}
	/* --start-at: ready (the host counters too, whose event is a write
	 * that must not delay the start); the load begins at the instant */
	run_open_host_sampler(&r);
	if (run_start_wait(&r)) {
		ret = run_finish(&r, out, err);
		goto out;
	}
	run_load_begin(&r);
	grid_init(&r.grid, engine_clock_now(&r.clock), p->warmup_ns, p->duration_ns);
	run_clock_record(&r);
	atomic_store(&r.last, r.grid.last);
	if (r.virt)
		ret = run_virtual(&r);
	else
		ret = run_threads(&r, err);
	if (r.abandoned) {
		/* a second signal: record what was measured and leave the workers
		 * (and their memory) to the process exit that follows */
		ret = run_finish(&r, out, err);
		out->abandoned = true;
		return ret;
	}
	record_pass_figures(&r);
	/* after a hang the journals stay as marked (lower bounds): a write
	 * would block on the hung filesystem before the verdict */
	if (r.journals_marked && !r.hung_seen &&
	    run_write_journals(&r, false, run_workers_drained(&r)))
		r.env_failed = true;
	ret = run_finish(&r, out, err);
out:
	run_release(&r);
	plan_lock_release(lock);
	return ret;
}
