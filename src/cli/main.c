/* SPDX-License-Identifier: MIT */
/*
 * main.c - the command line: argv to a command, and the only place that
 * prints final status and picks the exit code (see run.h for the codes).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diskproof/engine.h"
#include "diskproof/json.h"
#include "diskproof/lock.h"
#include "diskproof/metrics.h"
#include "diskproof/plan.h"
#include "diskproof/precondition.h"
#include "diskproof/profile.h"
#include "diskproof/report.h"
#include "diskproof/run.h"
#include "diskproof/store.h"

#include "cli.h"

struct progress {
	bool quiet;
	bool tty;
	struct create_view create;
	struct live_view live;
	const char *last_file;
	int64_t wait_shown; /* the countdown's last second shown; -1: none yet */
};

static void on_interval(void *arg, const struct run_interval_view *v)
{
	struct progress *pr = arg;

	progress_create_end(&pr->create);
	progress_live_interval(&pr->live, v);
}

static void on_message(void *arg, const char *text)
{
	struct progress *pr = arg;

	progress_create_end(&pr->create);
	progress_live_clear(&pr->live);
	if (!pr->quiet && !progress_term_gone(stderr))
		progress_term_check(stderr, fprintf(stderr, "diskproof: %s\n", text) < 0);
}

static void on_warning(void *arg, const char *text)
{
	struct progress *pr = arg;

	progress_create_end(&pr->create);
	progress_live_clear(&pr->live);
	if (!progress_term_gone(stderr))
		cli_print_warnings(text);
}

static void on_status(void *arg, const struct run_interval_view *v)
{
	struct progress *pr = arg;

	progress_create_end(&pr->create);
	progress_live_status(&pr->live, v);
}

/* SIGHUP: the run goes on, its terminal output goes nowhere (progress.c). */
static void on_hangup(void *arg)
{
	(void)arg;
	progress_term_hangup();
}

/*
 * run --start-at: on a terminal a countdown on one line, rewritten as each
 * second passes; elsewhere (a log, Ansible) one line saying until when the
 * run waits. --quiet: nothing.
 */
static void on_wait(void *arg, uint64_t at, uint64_t now)
{
	struct progress *pr = arg;
	struct strbuf t = STRBUF_INIT;
	int64_t left;

	if (pr->quiet || progress_term_gone(stderr))
		return;
	if (!now) { /* the wait ended */
		if (pr->tty && pr->wait_shown >= 0)
			progress_term_check(stderr, fprintf(stderr, "\r\033[K") < 0);
		pr->wait_shown = -1;
		return;
	}
	left = (int64_t)((at - now + NSEC_PER_SEC - 1) / NSEC_PER_SEC);
	if (left == pr->wait_shown || (!pr->tty && pr->wait_shown != -1))
		return;
	progress_create_end(&pr->create);
	progress_live_clear(&pr->live);
	time_format_utc_us(&t, at);
	if (pr->tty)
		progress_term_check(
			stderr,
			fprintf(stderr, "\rdiskproof: ready; the load starts in %llds, at %s\033[K",
				(long long)left, t.buf) < 0);
	else
		progress_term_check(
			stderr, fprintf(stderr,
					"diskproof: ready; waiting until %s (in %llds) to start "
					"the load\n",
					t.buf, (long long)left) < 0);
	pr->wait_shown = left;
	strbuf_release(&t);
}

static void on_create(void *arg, const char *volume, uint64_t done, uint64_t total)
{
	struct progress *pr = arg;

	progress_create_update(&pr->create, volume, done, total);
}

/*
 * A stored run's report to out (or to output, a file). Text fits the
 * width of where it goes (cli_width; a file: $COLUMNS or 120); base holds
 * the text's other choices (--wide, --params, the verdict block alone),
 * NULL: none.
 */
static int print_report(const char *results, const char *run, enum report_format fmt, FILE *out,
			const char *output, const struct report_options *base)
{
	struct store *st = NULL;
	struct results r = {0};
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT;
	struct report_options ro = {0};
	int ret;

	if (base)
		ro = *base;
	ro.color = fmt == REPORT_TEXT && !output && cli_use_color(out);
	ro.width = output ? cli_width_pick(0, getenv("COLUMNS")) : cli_width(out);

	struct store_run_set set = {0};

	ret = store_open_read(&st, results, true, &err);
	/* the one grammar; a report is of one run */
	if (!ret)
		ret = store_runs_select(st, run, STORE_LABEL_NEWEST, &set, &err);
	if (!ret && set.n > 1) {
		strbuf_addf(
			&err,
			"report: \"%s\" selects %zu runs (%lld to %lld): a report is of one run; "
			"report each, or compare them (diskproof compare)",
			run, set.n, (long long)set.ids[0], (long long)set.ids[set.n - 1]);
		ret = -ENOENT;
	}
	if (!ret)
		ret = store_results_load(st, set.ids[0], &r, &err);
	if (ret) {
		cli_print_err(err.buf);
		ret = ret == -ENOENT && st ? DP_EXIT_USAGE : DP_EXIT_ENV;
		goto out;
	}
	cli_results_fp_compare(&r); /* a run of a profile with a fingerprint */
	report_render(&text, &r, fmt, &ro);
	/* the results file closed first: none of its descriptors can be the
	 * output (-o /dev/fd/N) */
	store_close(st);
	st = NULL;
	ret = cli_emit(output, results, &text, out);
out:
	store_run_set_release(&set);
	results_release(&r);
	store_close(st);
	strbuf_release(&err);
	strbuf_release(&text);
	return ret;
}

/*
 * --metrics-file PATH, before anything is written: its directory exists, and
 * PATH is a new name or a metrics file diskproof wrote (it is replaced every
 * interval), PATH.tmp too; not the results file or one of SQLite's files
 * beside it, by any spelling, even before they exist. 0, or the message
 * printed and DP_EXIT_ENV.
 */
static int metrics_file_check(const char *path, const char *results)
{
	static const char *const side[] = {"", "-wal", "-shm", "-journal"};
	struct strbuf dir = STRBUF_INIT, why = STRBUF_INIT, tmp = STRBUF_INIT;
	char *mp = path_resolve(path);
	struct stat st;

	path_dirname(path, &dir);
	if (stat(dir.buf, &st) || !S_ISDIR(st.st_mode))
		strbuf_addstr(&why, "its directory does not exist");
	else if (access(dir.buf, W_OK | X_OK))
		strbuf_addstr(&why, "its directory is not writable");
	for (size_t i = 0; !why.len && mp && i < DP_ARRAY_SIZE(side); i++) {
		struct strbuf r = STRBUF_INIT;
		char *rp;

		strbuf_addf(&r, "%s%s", results, side[i]);
		rp = path_resolve(r.buf);
		if (rp && !strcmp(rp, mp))
			strbuf_addf(&why, "is the results file%s%s", *side[i] ? "'s " : "",
				    side[i] + (*side[i] != 0));
		free(rp);
		strbuf_release(&r);
	}
	strbuf_addf(&tmp, "%s.tmp", path);
	if (!why.len && metrics_file_replaceable(path, &why) && !why.len)
		strbuf_addstr(&why, "cannot be read");
	if (!why.len && metrics_file_replaceable(tmp.buf, &why) && !why.len)
		strbuf_addf(&why, "%s cannot be read", tmp.buf);
	free(mp);
	strbuf_release(&dir);
	strbuf_release(&tmp);
	if (!why.len) {
		strbuf_release(&why);
		return 0;
	}
	fprintf(stderr, "diskproof: --metrics-file %s: %s\n", path, why.buf);
	strbuf_release(&why);
	return DP_EXIT_ENV;
}

/*
 * --start-at resolved against the command's start (main_real_ns) into
 * *at: a TIME more than a second past is refused now, before anything is
 * created (the run checks again when it is ready: then it is late, exit 3).
 */
static int start_at_resolve(const struct cli_opts *o, uint64_t main_real_ns, uint64_t *at)
{
	uint64_t now = time_real_ns();
	struct strbuf t = STRBUF_INIT;
	int ret = 0;

	*at = 0;
	if (!o->has_start_at)
		return 0;
	/* the lead checked before it is added: a huge +D would wrap round */
	if (o->start_at_rel_ns > RUN_START_AT_MAX_AHEAD_NS ||
	    (!o->start_at_rel_ns && o->start_at_abs_ns > now + RUN_START_AT_MAX_AHEAD_NS)) {
		*at = 0;
		return cli_usage_error("--start-at: more than %llu days ahead: surely not the time "
				       "meant (a wrong year or month?)",
				       (unsigned long long)(RUN_START_AT_MAX_AHEAD_NS /
							    (24 * 3600 * NSEC_PER_SEC)));
	}
	*at = o->start_at_rel_ns ? main_real_ns + o->start_at_rel_ns : o->start_at_abs_ns;
	if (now > *at + NSEC_PER_SEC) {
		time_format_utc_us(&t, *at);
		ret = cli_usage_error("--start-at: %s is %.1f s in the past: give a time to come",
				      t.buf, (double)(now - *at) / 1e9);
	}
	strbuf_release(&t);
	return ret;
}

/* --ready-file, --start-file and --start-timeout together: one way to
 * learn the start instant, two files apart. 0 or the usage error printed. */
static int start_file_args_check(const struct cli_opts *o)
{
	char *a, *b;
	bool same;

	if (o->start_file && o->has_start_at)
		return cli_usage_error(
			"--start-at and --start-file: give one (a fixed TIME, or one "
			"written to the start file once ready)");
	if (o->has_start_timeout && !o->start_file)
		return cli_usage_error(
			"--start-timeout is for --start-file: how long to wait for a "
			"start time once ready");
	if (!o->start_file || !o->ready_file)
		return 0;
	a = path_resolve(o->start_file);
	b = path_resolve(o->ready_file);
	same = !strcmp(o->start_file, o->ready_file) || (a && b && !strcmp(a, b));
	free(a);
	free(b);
	return same ? cli_usage_error("--ready-file and --start-file name one file: give two") : 0;
}

/* run's arguments checked beyond the parser, before anything is written:
 * the start options, --format, the results path, --metrics-file and room
 * for the files. 0 or the exit code, the message printed. */
static int run_args_check(const struct cli_opts *o, const struct profile *p, uint64_t main_real_ns,
			  struct run_options *ro, bool *json)
{
	int ret = start_file_args_check(o);

	if (!ret)
		ret = start_at_resolve(o, main_real_ns, &ro->start_at_real_ns);
	if (!ret)
		ret = cli_format_text_json(o->format, json);
	if (!ret)
		ret = cli_stdio_check(o->results);
	if (!ret && o->metrics_file)
		ret = metrics_file_check(o->metrics_file, o->results);
	if (!ret) /* room for the files, before the results file or a directory is made */
		ret = cli_space_preflight(p, o->results);
	return ret;
}

/* What run shows while it works, as --quiet, stderr and
 * --status-interval ask. */
static void run_progress_init(struct progress *pr, const struct cli_opts *o)
{
	pr->quiet = o->quiet;
	pr->tty = isatty(STDERR_FILENO);
	pr->create.quiet = o->quiet;
	pr->create.tty = pr->tty;
	pr->live.quiet = o->quiet;
	pr->live.tty = pr->tty;
	pr->live.color = cli_use_color(stderr);
	pr->live.status_interval_ns =
		o->has_status_interval ? o->status_interval_ns : STATUS_INTERVAL_DEFAULT_NS;
}

/* The run's options from the command line's; the callbacks report to pr. */
static void run_options_fill(struct run_options *ro, const struct cli_opts *o,
			     const struct profile *p, struct progress *pr)
{
	ro->profile = p;
	ro->results_path = o->results;
	ro->label = o->label;
	ro->destroy = o->destroy;
	ro->ndestroy = o->ndestroy;
	ro->force = o->force;
	ro->no_lock = o->no_lock;
	ro->metrics = o->metrics;
	ro->metrics_file = o->metrics_file;
	ro->host = o->host;
	ro->ready_file = o->ready_file;
	ro->start_file = o->start_file;
	ro->start_timeout_ns = o->start_timeout_ns;
	ro->max_clock_error_ns =
		o->has_max_clock_error ? o->max_clock_error_ns : RUN_MAX_CLOCK_ERROR_DEFAULT_NS;
	pr->wait_shown = -1;
	ro->cb = (struct run_callbacks){.interval = on_interval,
					.wait = on_wait,
					.message = on_message,
					.warning = on_warning,
					.create = on_create,
					.hangup = on_hangup,
					.status = on_status,
					.arg = pr};
}

/* The line that opens a run: profile, engine, volumes, databases, duration. */
static void run_announce(const struct cli_opts *o, const struct profile *p)
{
	struct strbuf d = STRBUF_INIT, sb = STRBUF_INIT;

	if (o->quiet)
		return;
	unit_format_duration(&d, p->duration_ns);
	strbuf_addf(&sb,
		    "diskproof: profile %s (%s), engine %s, %zu volume(s), %u database(s), "
		    "%s\n",
		    p->name, p->origin, p->engine, p->nr_volumes, profile_database_count(p), d.buf);
	/* a long profile path: the line goes on under itself */
	strbuf_wrap_lines(&sb, 0, cli_width(stderr));
	fputs(sb.buf, stderr);
	strbuf_release(&d);
	strbuf_release(&sb);
}

/* The run's status as its verdict word: passed → PASS, failed → FAIL. */
static const char *run_status_word(const char *status)
{
	if (!strcmp(status, "passed"))
		return "PASS";
	if (!strcmp(status, "failed"))
		return "FAIL";
	return status; /* aborted */
}

/* A stored run's report: text (on stderr with --format json, whose one
 * document goes to stdout), or only the JSON when the run ended in error. */
static void run_print_reports(const struct cli_opts *o, const struct run_outcome *out, int ret,
			      bool json)
{
	char run_arg[24];

	snprintf(run_arg, sizeof(run_arg), "%lld", (long long)out->run_id);
	if (out->run_id && strcmp(out->status, "error") == 0 && ret) {
		/* the results file may be unusable: no text report from it; a
		 * pipeline asked for the document of the run row, so it is tried */
		if (json)
			(void)print_report(o->results, run_arg, REPORT_JSON, stdout, NULL, NULL);
	} else if (out->run_id) {
		/* --format json: the summary for the person on stderr, stdout
		 * holds the one document, of this run by its id */
		/* -q: the verdict block alone (scripts read the rest with report) */
		struct report_options ro = {.verdict_only = o->quiet};
		int tr = print_report(o->results, run_arg, REPORT_TEXT, json ? stderr : stdout,
				      NULL, &ro);
		int jr = json ? print_report(o->results, run_arg, REPORT_JSON, stdout, NULL, NULL)
			      : 0;

		if (!tr && !jr && !o->quiet) {
			struct strbuf sb = STRBUF_INIT;

			/* the last line a terminal shows: the verdict again, since
			 * the block that opens the report has scrolled away */
			strbuf_addf(&sb,
				    "diskproof: %s; results in %s (run %lld): diskproof report "
				    "%lld --format json\n",
				    run_status_word(out->status), o->results,
				    (long long)out->run_id, (long long)out->run_id);
			strbuf_wrap_lines(&sb, 0, cli_width(stderr));
			fputs(sb.buf, stderr);
			strbuf_release(&sb);
		}
	}
}

/* The notes after the report: integrity errors, what was re-created. */
static void run_print_notes(const struct cli_opts *o, const struct run_outcome *out,
			    const struct strbuf *remade)
{
	if (out->integrity_errors)
		fprintf(stderr,
			"diskproof: %llu data integrity error(s): see the report's "
			"events\n",
			(unsigned long long)out->integrity_errors);
	if (remade->len && !o->quiet)
		fprintf(stderr, "diskproof: re-created as --destroy-data asked: %s\n", remade->buf);
}

/* The notes once the signals are read again: a signal after the measuring
 * (late; its exit code then), I/Os never completed. */
static void run_print_late(struct run_outcome *out, int late)
{
	if (late && out->exit_code != DP_EXIT_SIGINT && out->exit_code != DP_EXIT_SIGTERM) {
		fprintf(stderr,
			"diskproof: %s came after run %lld had finished measuring: the run is "
			"complete and stored with its verdict\n",
			late == SIGINT ? "SIGINT" : "SIGTERM", (long long)out->run_id);
		out->exit_code = run_exit_code(&(struct run_exit_facts){.signal = late});
	}
	if (out->pending_ios) {
		fflush(stdout);
		fprintf(stderr,
			"diskproof: %llu I/O(s) never completed (a hung device); the verdict "
			"is stored, but the kernel may keep diskproof from exiting until the "
			"device answers (docs/troubleshooting.md)\n",
			(unsigned long long)out->pending_ios);
	}
}

/*
 * The runs of the series a run command makes: [test] repeat, over which
 * profile_apply_overrides put --repeat N; 0 for one run outside a series
 * (a repeat of 1: --repeat 1 runs a profile that asks for a series once).
 */
static unsigned series_size(const struct profile *p)
{
	return p->repeat > 1 ? (unsigned)p->repeat : 0;
}

/*
 * A series (run --repeat N, or the profile's [test] repeat): what it cannot
 * go with, checked before anything is written. A series starts its runs one
 * after the other, so an instant or a start file (one fleet start) has no
 * meaning for runs 2..N; --fresh needs files to create anew. 0 or the usage
 * error printed; a series the profile asks for says how to run it once.
 */
static int series_args_check(const struct cli_opts *o, const struct profile *p)
{
	if (o->fresh && !series_size(p))
		return cli_usage_error("--fresh is for --repeat N: it creates the files anew "
				       "between the runs of a series");
	if (!series_size(p))
		return 0;
	if ((o->has_start_at || o->start_file || o->ready_file) && o->repeat)
		return cli_usage_error("--repeat runs its runs one after another: it does not go "
				       "with --start-at, --start-file or --ready-file");
	if (o->has_start_at || o->start_file || o->ready_file)
		return cli_usage_error(
			"profile %s runs a series ([test] repeat = %llu), one run after another:\n"
			"  not with --start-at, --start-file or --ready-file (--repeat 1 runs it "
			"once)",
			p->name, (unsigned long long)p->repeat);
	if (o->fresh && engine_simulated(p->engine))
		return cli_usage_error(
			"--fresh: profile %s uses the sim engine, which has no files "
			"to create anew",
			p->name);
	return 0;
}

/*
 * --fresh: every database, log and journal file of the plan, for
 * --destroy-data (created anew from their first page, the journals
 * removed: plan/prepare.c). A volume on a block device is refused: its
 * databases are regions of the device, and rewriting the whole device
 * between runs is not what --fresh says. 0 with *paths (the caller frees
 * each and the array) and *n, or the exit code with the message printed.
 */
static int fresh_paths(const struct profile *p, char ***paths, size_t *n)
{
	struct plan pl = {0};
	struct strbuf err = STRBUF_INIT;
	char **v = NULL;
	int ret = plan_build(&pl, p, true, &err);

	*paths = NULL;
	*n = 0;
	if (ret) {
		cli_print_err(err.buf);
		ret = ret == -EINVAL ? DP_EXIT_USAGE : DP_EXIT_ENV;
		goto out;
	}
	for (size_t i = 0; i < pl.nr_vols; i++)
		if (pl.vols[i].device || pl.vols[i].log_device) {
			ret = cli_usage_error("--fresh: volume %s is on a block device, whose "
					      "databases are regions of it, not files",
					      pl.vols[i].name);
			goto out;
		}
	v = calloc(3 * pl.nr_dbs + 1, sizeof(*v));
	for (size_t i = 0; v && i < pl.nr_dbs; i++) {
		v[3 * i] = strdup(pl.dbs[i].path);
		v[3 * i + 1] = strdup(pl.dbs[i].log_file);
		v[3 * i + 2] = strdup(pl.dbs[i].journal);
	}
	for (size_t i = 0; v && i < 3 * pl.nr_dbs; i++)
		if (!v[i]) {
			for (size_t k = 0; k < 3 * pl.nr_dbs; k++)
				free(v[k]);
			free(v);
			v = NULL;
		}
	if (!v) {
		cli_print_err("out of memory");
		ret = DP_EXIT_ENV;
		goto out;
	}
	*paths = v;
	*n = 3 * pl.nr_dbs;
out:
	plan_release(&pl);
	strbuf_release(&err);
	return ret;
}

/* What one run of a series says as it ends: its place, id and verdict. */
static void series_run_line(const struct run_series *ser, const struct run_outcome *out)
{
	const char *v = !strcmp(out->status, "passed")	  ? "PASS"
			: !strcmp(out->status, "failed")  ? "FAIL"
			: !strcmp(out->status, "aborted") ? "ABORTED"
							  : "ERROR";

	fprintf(stderr, "diskproof: series run %u of %u (run %lld): %s\n", ser->index, ser->size,
		(long long)out->run_id, v);
}

/*
 * The end of a series: its spread (the series section of the last run's
 * report) on stdout, or with --format json the last run's JSON report,
 * which holds the series; then where it is.
 */
static void series_print_end(const struct cli_opts *o, int64_t last_id, bool json)
{
	struct store *st = NULL;
	struct results r = {0};
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT;
	char arg[24];

	snprintf(arg, sizeof(arg), "%lld", (long long)last_id);
	if (json) {
		(void)print_report(o->results, arg, REPORT_JSON, stdout, NULL, NULL);
	} else if (store_open_read(&st, o->results, true, &err) ||
		   store_results_load(st, last_id, &r, &err)) {
		cli_print_err(err.buf);
	} else {
		report_series_text(&text, &r);
		fputs(text.buf, stdout);
		fflush(stdout);
	}
	if (r.series)
		fprintf(stderr,
			"diskproof: series %lld in %s, its last run %lld: diskproof report %lld "
			"shows a run with the series\n",
			(long long)r.series->id, o->results, (long long)last_id,
			(long long)last_id);
	results_release(&r);
	store_close(st);
	strbuf_release(&err);
	strbuf_release(&text);
}

/* One run of a series; 0 to go on with the next, or 1 when the series
 * stops here (*code its exit code so far). Exits at once after a second
 * signal, as a single run does. */
static int series_one(const struct cli_opts *o, const struct profile *p, struct run_options *ro,
		      struct progress *pr, int64_t *last_id, int *code)
{
	struct strbuf err = STRBUF_INIT;
	struct run_outcome out;
	/* a profile that keeps a fingerprint: each run's own, as one run's */
	struct cli_run_fp *fpw = cli_run_fp_start(p, ro);
	int ret;

	ret = run_execute(ro, &out, &err);
	progress_live_end(&pr->live);
	if (!out.abandoned)
		cli_run_fp_finish(fpw, o->results, out.run_id);
	cli_run_fp_free(fpw);
	ro->window = NULL; /* the watch is gone with it */
	ro->window_arg = NULL;
	if (out.abandoned) {
		fprintf(stderr,
			"diskproof: interrupted twice: run %lld recorded as aborted in %s\n",
			(long long)out.run_id, o->results);
		_exit(out.exit_code);
	}
	if (err.len)
		cli_print_err(err.buf);
	strbuf_release(&err);
	if (out.run_id) {
		*last_id = out.run_id;
		series_run_line(ro->series, &out);
	}
	if (out.integrity_errors)
		fprintf(stderr,
			"diskproof: run %lld: %llu data integrity error(s): see its report\n",
			(long long)out.run_id, (unsigned long long)out.integrity_errors);
	*code = run_exit_worst(*code, out.exit_code);
	/* a failed or inconclusive run is a result, and the series goes on;
	 * a signal, an error or lost data stop it */
	(void)ret;
	return out.exit_code == DP_EXIT_OK || out.exit_code == DP_EXIT_FAIL ||
			       out.exit_code == DP_EXIT_INCONCLUSIVE
		       ? 0
		       : 1;
}

/*
 * run --repeat N: the profile N times as one series (run.series_*), each
 * run with its own seeds (profile_seeds_derive), the files prepared once or,
 * with --fresh, created anew before each run after the first. The exit code
 * is the worst of the runs' by the usual precedence (run_exit_worst).
 */
static int run_series(const struct cli_opts *o, struct profile *p, struct run_options *ro,
		      struct progress *pr, bool json)
{
	struct run_series ser = {.size = series_size(p)};
	const uint64_t seed = p->seed, sim_seed = p->sim.seed;
	const char **destroy = NULL;
	char **fresh = NULL;
	size_t nfresh = 0;
	int64_t last_id = 0;
	int code = DP_EXIT_OK, ret = 0;

	if (o->fresh && (ret = fresh_paths(p, &fresh, &nfresh)))
		return ret;
	destroy = calloc(o->ndestroy + nfresh + 1, sizeof(*destroy));
	if (!destroy) {
		cli_print_err("out of memory");
		ret = DP_EXIT_ENV;
		goto out;
	}
	for (size_t i = 0; i < o->ndestroy; i++)
		destroy[i] = o->destroy[i];
	for (size_t i = 0; i < nfresh; i++)
		destroy[o->ndestroy + i] = fresh[i];
	ro->series = &ser;
	for (ser.index = 1; ser.index <= ser.size; ser.index++) {
		profile_seeds_derive(p, seed, sim_seed, ser.index);
		if (ser.index == 2 && nfresh) { /* --fresh: the runs after the first */
			ro->destroy = destroy;
			ro->ndestroy = o->ndestroy + nfresh;
		}
		if (series_one(o, p, ro, pr, &last_id, &code))
			break;
	}
	if (ser.index <= ser.size && !o->quiet)
		fprintf(stderr, "diskproof: the series stopped after run %u of %u\n", ser.index,
			ser.size);
	if (last_id)
		series_print_end(o, last_id, json);
	ret = code;
out:
	for (size_t i = 0; i < nfresh; i++)
		free(fresh[i]);
	free(fresh);
	free(destroy);
	return ret;
}

static int cmd_run(int argc, char **argv, int full_argc, char **full_argv, uint64_t main_real_ns)
{
	struct cli_opts o;
	struct profile p = {0};
	struct strbuf err = STRBUF_INIT, remade = STRBUF_INIT;
	struct run_outcome out;
	struct progress pr = {0};
	struct run_options ro = {0};
	struct metrics_server *msrv = NULL;
	struct cli_run_fp *fpw = NULL;
	char *cmdline = NULL;
	int ret, sfd = -1, late;
	bool json;

	ret = cli_profile_load(argc, argv, CMD_RUN, "run", &o, &p);
	if (!ret)
		ret = series_args_check(&o, &p);
	if (!ret)
		ret = run_args_check(&o, &p, main_real_ns, &ro, &json);
	if (!ret) /* bound before anything is written; its URL said */
		ret = cli_metrics_start(&o, &msrv);
	if (ret)
		goto out;
	run_progress_init(&pr, &o);
	progress_term_init();
	sfd = cli_signals_setup_run();
	cmdline = cli_argv_join(full_argc, full_argv);
	run_options_fill(&ro, &o, &p, &pr);
	ro.metrics_server = msrv;
	ro.command_line = cmdline;
	ro.signal_fd = sfd;
	ro.remade = &remade;
	run_announce(&o, &p);
	if (series_size(&p)) {
		ret = run_series(&o, &p, &ro, &pr, json);
		/* the last run's final metrics served until scraped */
		late = cli_run_finish(&o, msrv, sfd, ret);
		msrv = NULL;
		sfd = -1;
		/* as for one run: a signal after the last run had measured is
		 * said, and its code kept */
		if (late && ret != DP_EXIT_SIGINT && ret != DP_EXIT_SIGTERM) {
			fprintf(stderr,
				"diskproof: %s came after the series' last run had finished "
				"measuring: the runs are stored with their verdicts\n",
				late == SIGINT ? "SIGINT" : "SIGTERM");
			ret = run_exit_worst(
				ret, run_exit_code(&(struct run_exit_facts){.signal = late}));
		}
		goto out;
	}
	fpw = cli_run_fp_start(&p, &ro);
	ret = run_execute(&ro, &out, &err);
	progress_live_end(&pr.live);
	if (!out.abandoned)
		cli_run_fp_finish(fpw, o.results, out.run_id);
	if (out.abandoned) {
		fprintf(stderr,
			"diskproof: interrupted twice: run %lld recorded as aborted in %s\n",
			(long long)out.run_id, o.results);
		_exit(out.exit_code);
	}
	if (ret && !out.run_id) {
		cli_print_err(err.buf);
		ret = out.exit_code;
		goto out;
	}
	if (err.len)
		cli_print_err(err.buf);
	run_print_reports(&o, &out, ret, json);
	run_print_notes(&o, &out, &remade);
	/* after the workers stopped, nobody was reading the signals: an
	 * interrupt in the end phase is said, and its exit code kept; one in
	 * the metrics linger only ends the linger */
	late = cli_run_finish(&o, msrv, sfd, out.exit_code);
	msrv = NULL;
	sfd = -1;
	run_print_late(&out, late);
	ret = out.exit_code;
out:
	metrics_server_stop(msrv); /* an error before the linger */
	if (sfd >= 0)
		close(sfd);
	cli_run_fp_free(fpw);
	free(cmdline);
	profile_release(&p);
	strbuf_release(&err);
	strbuf_release(&remade);
	return ret;
}

/* Ctrl-C during creation: the signalfd is polled from the progress callback. */
struct init_ctx {
	struct create_view view;
	int sfd;
	int signo;
};

static int init_progress(void *arg, const char *volume, uint64_t done, uint64_t total)
{
	struct init_ctx *c = arg;
	struct signalfd_siginfo si;

	progress_create_update(&c->view, volume, done, total);
	if (c->sfd >= 0 && read(c->sfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
		c->signo = (int)si.ssi_signo;
	return c->signo ? -EINTR : 0;
}

static void precondition_print_round(void *arg, unsigned n, double iops, bool steady)
{
	(void)arg;
	printf("precondition round %u: IOPS %.0f (steady: %s)\n", n, iops, steady ? "yes" : "no");
	fflush(stdout);
}

/* init --precondition: overwrite at random until write IOPS settle (SNIA). */
static int init_precondition(const struct plan *pl, const struct profile *p,
			     const struct cli_opts *o, int sfd)
{
	struct precondition_options po;
	struct precondition_result pr = {0};
	struct strbuf err = STRBUF_INIT;
	int ret;

	precondition_options_default(&po);
	po.signal_fd = sfd;
	po.round = o->quiet ? NULL : precondition_print_round;
	ret = precondition_run(pl, p, &po, &pr, &err);
	if (ret) {
		if (!strncmp(err.buf, "precondition: ", 14))
			cli_print_err(err.buf);
		else
			fprintf(stderr, "diskproof: precondition: %s\n", err.buf);
		ret = pr.signo == SIGINT    ? DP_EXIT_SIGINT
		      : pr.signo == SIGTERM ? DP_EXIT_SIGTERM
		      : ret == -EINVAL	    ? DP_EXIT_USAGE
					    : DP_EXIT_ENV;
	} else if (!o->quiet && pr.steady) {
		printf("diskproof: preconditioned in %.0f s, %u rounds, steady at %.0f IOPS\n",
		       (double)pr.elapsed_ns / 1e9, pr.rounds, pr.final_iops);
	} else if (!o->quiet) {
		/* two lines: one would be over 80 columns */
		printf("diskproof: not steady after %.0f s (%u rounds; the last %u averaged %.0f "
		       "IOPS):\n  results may show a drive still settling\n",
		       (double)pr.elapsed_ns / 1e9, pr.rounds, po.window, pr.final_iops);
	}
	strbuf_release(&err);
	return ret;
}

/*
 * What init did, on stdout within 80 columns (or a narrower width): "ready:
 * 4 database(s) on 2 volume(s); wrote 320 MiB in 1.0 s, 324 MB/s", then
 * what --destroy-data re-created (its paths whole, however long).
 */
static void init_print_done(const struct plan *pl, uint64_t created, const char *size, double secs,
			    const struct strbuf *remade)
{
	struct strbuf sb = STRBUF_INIT;
	unsigned width = cli_width(stdout);

	strbuf_addf(&sb, "diskproof: ready: %zu database(s) on %zu volume(s); ", pl->nr_dbs,
		    pl->nr_vols);
	if (created)
		strbuf_addf(&sb, "wrote %s (%llu bytes) in %.1f s, %.0f MB/s\n", size,
			    (unsigned long long)created, secs,
			    secs > 0 ? (double)created / secs / 1e6 : 0);
	else
		strbuf_addstr(&sb, "every file was there already\n");
	strbuf_wrap_lines(&sb, 0, width < 80 ? width : 80);
	/* the paths whole, on the line that names them (a path is one word:
	 * it is as long as it is) */
	if (remade->len)
		strbuf_addf(&sb, "diskproof: re-created as --destroy-data asked: %s\n",
			    remade->buf);
	fputs(sb.buf, stdout);
	strbuf_release(&sb);
}

static int cmd_init(int argc, char **argv)
{
	struct cli_opts o;
	struct profile p = {0};
	struct plan pl = {0};
	struct strbuf err = STRBUF_INIT, sz = STRBUF_INIT, remade = STRBUF_INIT;
	struct init_ctx c = {.sfd = -1};
	struct plan_progress prog = {init_progress, &c};
	struct plan_lock *lock = NULL;
	uint64_t created = 0, t0;
	double secs;
	int ret;

	ret = cli_profile_load(argc, argv, CMD_INIT, "init", &o, &p);
	if (ret)
		goto out;
	if (engine_simulated(p.engine)) {
		fprintf(stderr,
			"diskproof: profile %s uses the sim engine, which has no files "
			"to create\n",
			p.name);
		ret = DP_EXIT_USAGE;
		goto out;
	}
	c.view.quiet = o.quiet;
	c.view.tty = isatty(STDERR_FILENO);
	c.sfd = cli_signals_setup();
	ret = plan_build(&pl, &p, true, &err);
	pl.destroy = o.destroy;
	pl.ndestroy = o.ndestroy;
	pl.force = o.force;
	if (!ret && (cli_plan_space_check(&pl) || cli_memory_check(&pl, &p))) {
		ret = DP_EXIT_ENV; /* printed; no directory made yet */
		goto out;
	}
	/* one command at a time on a volume: from here to the end */
	if (!ret)
		ret = plan_lock_take(&lock, &pl, "init",
				     PLAN_LOCK_CREATE | (o.no_lock ? PLAN_LOCK_BEST_EFFORT : 0),
				     &err);
	pl.lock = lock;
	cli_print_warnings(plan_lock_skipped(lock));
	if (!ret) {
		t0 = time_mono_ns();
		ret = plan_prepare_files(&pl, &p, &prog, NULL, &created, &remade, &err);
		secs = (double)(time_mono_ns() - t0) / 1e9;
	}
	progress_create_end(&c.view);
	if (ret) {
		cli_print_err(err.buf);
		ret = c.signo == SIGINT	   ? DP_EXIT_SIGINT
		      : c.signo == SIGTERM ? DP_EXIT_SIGTERM
		      : ret == -EUCLEAN	   ? DP_EXIT_INTEGRITY
		      : ret == -EINVAL	   ? DP_EXIT_USAGE
					   : DP_EXIT_ENV;
		goto out;
	}
	unit_format_size(&sz, created);
	if (!o.quiet)
		init_print_done(&pl, created, sz.buf, secs, &remade);
	ret = o.precondition ? init_precondition(&pl, &p, &o, c.sfd) : 0;
out:
	if (c.sfd >= 0)
		close(c.sfd);
	plan_lock_release(lock);
	plan_release(&pl);
	profile_release(&p);
	strbuf_release(&err);
	strbuf_release(&sz);
	strbuf_release(&remade);
	return ret;
}

static int cmd_profiles(int argc, char **argv)
{
	size_t n;
	const struct profile_builtin *b = profile_builtins(&n);
	struct cli_opts o;
	int ret;

	ret = cli_opts_parse(argc, argv, CMD_PROFILES, &o);
	if (ret)
		return ret;
	if (o.npos == 0) {
		for (size_t i = 0; i < n; i++) {
			struct profile p = {0};
			struct strbuf err = STRBUF_INIT;
			char origin[96];

			snprintf(origin, sizeof(origin), "builtin:%s", b[i].name);
			if (profile_parse(&p, origin, b[i].text, strlen(b[i].text), &err) == 0)
				printf("%-16s %s\n", b[i].name, p.description ? p.description : "");
			else
				printf("%-16s (does not parse: %s)\n", b[i].name, err.buf);
			profile_release(&p);
			strbuf_release(&err);
		}
		return 0;
	}
	if (!strcmp(o.positional[0], "show") && o.npos == 2) {
		const struct profile_builtin *f = profile_builtin_find(o.positional[1]);

		if (!f)
			return cli_usage_error(
				"no built-in profile \"%s\" (see \"diskproof profiles\")",
				o.positional[1]);
		fputs(f->text, stdout);
		return 0;
	}
	return cli_usage_error("usage: diskproof profiles [show NAME]");
}

static int cmd_report(int argc, char **argv)
{
	struct cli_opts o;
	const char *run = "latest";
	int fmt = REPORT_TEXT, ret;

	ret = cli_opts_parse(argc, argv, CMD_REPORT, &o);
	if (ret)
		return ret;
	if (o.npos > 1)
		return cli_usage_error("report takes one RUN-ID, got also \"%s\"", o.positional[1]);
	if (o.npos) {
		run = o.positional[0];
		ret = cli_run_arg_check(run);
		if (ret)
			return ret;
	}
	ret = cli_report_args_check(&o, NULL, &fmt);
	if (ret)
		return ret;
	if ((o.wide || o.params) && fmt != REPORT_TEXT)
		return cli_usage_error("%s is for the text report (JSON and HTML hold every "
				       "figure and the parameters)",
				       o.wide ? "--wide" : "--params");
	{
		struct report_options ro = {.wide = o.wide, .params = o.params};

		return print_report(o.results, run, (enum report_format)fmt, stdout, o.output, &ro);
	}
}

/* The commands after "diskproof" ("run" also takes the whole command line). */
static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} commands[] = {
	{"init", cmd_init},	      {"verify", cli_cmd_verify},
	{"clean", cli_cmd_clean},     {"profiles", cmd_profiles},
	{"report", cmd_report},	      {"list", cli_cmd_list},
	{"compare", cli_cmd_compare}, {"delete", cli_cmd_delete},
	{"import", cli_cmd_import},   {"plan", cli_cmd_plan},
	{"check", cli_cmd_check},     {"fleet", cli_cmd_fleet},
	{"witness", cli_cmd_witness}, {"fingerprint", cli_cmd_fingerprint},
	{"learn", cli_cmd_learn},
};

/*
 * Before the command only --help/-h and --version/-V; any other option is
 * refused by the parser, with a did-you-mean over those two.
 */
static int main_global(int argc, char **argv)
{
	struct cli_opts o;
	int ret;

	if (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h")) {
		cli_usage_global(stdout);
		return 0;
	}
	if (!strcmp(argv[0], "--version") || !strcmp(argv[0], "-V")) {
		printf("diskproof %s\n", DISKPROOF_VERSION);
		return 0;
	}
	ret = cli_opts_parse(1, argv, CMD_GLOBAL, &o);
	return ret ? ret : cli_usage_error("\"%s\" comes before the command", argv[0]);
}

int main(int argc, char **argv)
{
	/* run --start-at +D counts from here: the command's own start */
	uint64_t main_real_ns = time_real_ns();
	int ret = DP_EXIT_USAGE;

	if (argc < 2) {
		cli_usage_global(stderr);
		return DP_EXIT_USAGE;
	}
	if (argv[1][0] == '-')
		return main_global(argc - 1, argv + 1);
	if (!strcmp(argv[1], "help"))
		return cli_cmd_help(argc - 2, argv + 2);
	if (!strcmp(argv[1], "run")) {
		ret = cmd_run(argc - 2, argv + 2, argc, argv, main_real_ns);
	} else {
		size_t i;

		for (i = 0; i < DP_ARRAY_SIZE(commands); i++)
			if (!strcmp(argv[1], commands[i].name))
				break;
		if (i == DP_ARRAY_SIZE(commands))
			return cli_command_unknown(argv[1]);
		ret = commands[i].fn(argc - 2, argv + 2);
	}
	return ret == CLI_EXIT_HELP ? 0 : ret; /* the usage was printed */
}
