/* SPDX-License-Identifier: MIT */
/*
 * cmd_learn.c - "diskproof fingerprint --data PATH [--log PATH] --duration D
 * [--transactions N] [-o FILE]", "diskproof fingerprint compare A.json
 * B.json [--tolerance PCT]" and "diskproof learn --data PATH [--log PATH]
 * --duration D -o PROFILE" (docs/learn.md). The work is src/learn/'s; this
 * file reads the options, watches the window with SIGINT and SIGTERM ending
 * it early (the fingerprint of what was seen is still written), prints and
 * picks the exit code: 0 done, 1 a compare with a row off, 2 usage, 3 a
 * device or file that cannot be read or written.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diskproof/learn.h"
#include "diskproof/trace.h"
#include "diskproof/run.h"
#include "diskproof/store.h"

#include "cli.h"

static void progress_line(void *arg, double seconds, double window_s)
{
	(void)arg;
	fprintf(stderr, "\rwatching: %.0f of %.0f s ", seconds, window_s);
	fflush(stderr);
}

/* The roles of fp from --data and --log; errors printed. */
static int roles_resolve(const struct cli_opts *o, struct learn_fp *fp)
{
	struct strbuf err = STRBUF_INIT;
	int ret = 0;

	memset(fp, 0, sizeof(*fp));
	fp->transactions = o->transactions;
	for (size_t i = 0; !ret && i < o->ndata; i++)
		ret = learn_where_add("/sys", o->data[i], &fp->role[LEARN_DATA].where, &err);
	for (size_t i = 0; !ret && i < o->nlog; i++)
		ret = learn_where_add("/sys", o->log[i], &fp->role[LEARN_LOG].where, &err);
	fp->role[LEARN_DATA].present = o->ndata > 0;
	fp->role[LEARN_LOG].present = o->nlog > 0;
	if (ret)
		fprintf(stderr, "diskproof: %s\n", err.buf);
	strbuf_release(&err);
	return ret ? DP_EXIT_ENV : 0;
}

/* The database's reading at one end of the window (--postgres, --mysql):
 * false, with db->why_not filled and said, when it cannot be had; learn and
 * fingerprint go on with the other sources. */
static bool db_reading(const struct cli_opts *o, struct learn_db *db, struct learn_db_reading *r,
		       const char *end)
{
	struct strbuf err = STRBUF_INIT;
	int ret;

	ret = learn_db_reading_take(db->kind, o->postgres ? o->postgres : o->mysql, r, &err);
	if (ret) {
		snprintf(db->why_not, sizeof(db->why_not), "at the window's %s: %s", end, err.buf);
		fprintf(stderr, "diskproof: cannot read the database's counters: %s\n", err.buf);
	}
	strbuf_release(&err);
	return !ret;
}

/* The database section of fp from the readings at the window's ends, and
 * fp's transactions from it when --transactions was not given. */
static void db_window(const struct cli_opts *o, const struct learn_db_reading *a,
		      const struct learn_db_reading *b, struct learn_fp *fp)
{
	learn_db_window(fp->db.kind, a, b, &fp->db);
	if (fp->transactions < 0 && fp->db.transactions >= 0) {
		fp->transactions = fp->db.transactions;
		fp->db.gave_txns = true;
	}
	if (!o->quiet)
		fprintf(stderr, "diskproof: database: %s %s, %s; transactions: %.0f from %s\n",
			learn_db_kind_name(fp->db.kind), fp->db.version, fp->db.scope,
			fp->db.transactions, fp->db.txn_from[0] ? fp->db.txn_from : "nothing");
}

/* The BPF source, unless --no-trace: *t started, or NULL with the reason
 * in fp's trace_status (said on stderr; the window goes on without it). */
static void trace_start(const struct cli_opts *o, struct learn_fp *fp, struct learn_tracer **t)
{
	*t = NULL;
	if (o->no_trace) {
		snprintf(fp->trace_status, sizeof(fp->trace_status), "off (--no-trace)");
		return;
	}
	if (learn_trace_start("/sys", fp, t, fp->trace_status, sizeof(fp->trace_status)) != 0)
		*t = NULL;
	if (!o->quiet)
		fprintf(stderr, "diskproof: BPF tracing: %s\n", fp->trace_status);
}

/* Watches the window: the fingerprint into fp. 0 or the exit code. */
static int watch(const struct cli_opts *o, const char *cmd, struct learn_fp *fp)
{
	struct learn_observe ob = {.proc = "/proc",
				   .window_ns = o->ov.duration_ns,
				   .step_ns = NSEC_PER_SEC,
				   .transactions = o->transactions};
	struct strbuf err = STRBUF_INIT;
	struct learn_db_reading *dba = NULL, *dbb = NULL;
	bool db_ok = false;
	int ret;

	if (!o->ndata && !o->nlog)
		return cli_usage_error("%s needs --data PATH or --log PATH", cmd);
	if (!o->ov.has_duration || !o->ov.duration_ns)
		return cli_usage_error("%s needs --duration D (the window to watch)", cmd);
	ret = roles_resolve(o, fp);
	if (ret)
		return ret;
	for (int r = 0; r < LEARN_ROLES; r++) {
		const struct learn_where *w = &fp->role[r].where;

		for (size_t i = 0; i < w->nr_devices && !o->quiet; i++)
			fprintf(stderr, "diskproof: %s: watching %s\n", r ? "log" : "data",
				w->devices[i]);
	}
	fp->db.kind = o->postgres ? LEARN_DB_POSTGRES : o->mysql ? LEARN_DB_MYSQL : LEARN_DB_NONE;
	if (fp->db.kind != LEARN_DB_NONE) {
		dba = calloc(1, sizeof(*dba));
		dbb = calloc(1, sizeof(*dbb));
		db_ok = dba && dbb && db_reading(o, &fp->db, dba, "start");
	}
	trace_start(o, fp, &ob.tracer);
	ob.signal_fd = cli_signals_setup();
	if (isatty(STDERR_FILENO) && !o->quiet)
		ob.progress = progress_line;
	ret = learn_observe_window(&ob, fp, &err);
	if (ob.progress)
		fputc('\n', stderr);
	cli_signals_finish(ob.signal_fd);
	if (!ret && db_ok && db_reading(o, &fp->db, dbb, "end"))
		db_window(o, dba, dbb, fp);
	learn_trace_release(ob.tracer);
	if (ret)
		fprintf(stderr, "diskproof: %s\n", err.buf);
	free(dba);
	free(dbb);
	strbuf_release(&err);
	return ret ? DP_EXIT_ENV : 0;
}

/* The own fingerprint of the stored run sel selects in results (table
 * run_fingerprint) into fp. 0, or the exit code with the reason printed. */
static int read_run_fp(const char *results, const char *sel, struct learn_fp *fp)
{
	struct store *st = NULL;
	struct store_run_set set = {0};
	struct results r = {0};
	struct strbuf err = STRBUF_INIT;
	int ret = store_open_read(&st, results, true, &err);

	if (!ret)
		ret = store_runs_select(st, sel, STORE_LABEL_NEWEST, &set, &err);
	if (!ret && set.n != 1) {
		strbuf_addf(&err, "fingerprint compare: \"%s\" selects %zu runs: B is one run", sel,
			    set.n);
		ret = -ENOENT;
	}
	if (!ret)
		ret = store_results_load(st, set.ids[0], &r, &err);
	if (!ret && !r.fp_run) {
		strbuf_addf(&err,
			    "%s: run %lld has no fingerprint of its own stored (only a real run "
			    "of a profile with [test] fingerprint has one)",
			    results, (long long)set.ids[0]);
		ret = -ENOENT;
	}
	if (!ret)
		ret = learn_fp_parse(r.fp_run, sel, fp, &err);
	if (ret)
		fprintf(stderr, "diskproof: %s\n", err.buf);
	/* a run not there, or without a fingerprint: exit 2; a file that
	 * cannot be read: 3 */
	if (ret)
		ret = ret == -ENOENT || ret == -EINVAL ? DP_EXIT_USAGE : DP_EXIT_ENV;
	store_run_set_release(&set);
	results_release(&r);
	store_close(st);
	strbuf_release(&err);
	return ret;
}

static int read_fp(const char *path, struct learn_fp *fp)
{
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	char chunk[8192];
	size_t n;
	FILE *f = fopen(path, "re");
	int ret;

	if (!f) {
		fprintf(stderr, "diskproof: %s: cannot read: %s\n", path, strerror(errno));
		return DP_EXIT_USAGE;
	}
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		strbuf_add(&text, chunk, n);
	fclose(f);
	ret = learn_fp_parse(text.buf, path, fp, &err);
	if (ret)
		fprintf(stderr, "diskproof: %s\n", err.buf);
	strbuf_release(&text);
	strbuf_release(&err);
	return ret ? DP_EXIT_USAGE : 0;
}

static int fingerprint_compare(const struct cli_opts *o)
{
	struct learn_fp a, b;
	struct strbuf out = STRBUF_INIT;
	unsigned off, asserted, left;
	double tol = o->has_tolerance ? o->tolerance_pct : 10;
	int ret;

	if (o->npos != 3)
		return cli_usage_error("fingerprint compare needs two fingerprints: A.json B.json, "
				       "or A.json RUNID (a stored run's own)");
	ret = read_fp(o->positional[1], &a);
	/* B: a file, or else a stored run (a run id, label, "last") */
	if (!ret && access(o->positional[2], F_OK) == 0)
		ret = read_fp(o->positional[2], &b);
	else if (!ret)
		ret = read_run_fp(o->results, o->positional[2], &b);
	if (ret)
		return ret;
	learn_fp_compare(&a, &b, "A", "B", tol, &out, &off, &asserted, &left);
	strbuf_addf(&out, "%u of %u asserted rows within %g %%", asserted - off, asserted, tol);
	if (left)
		strbuf_addf(&out, "; %u left out", left);
	strbuf_addstr(&out, "\n");
	if (o->output)
		ret = cli_write_output(o->output, o->results, &out);
	else
		fputs(out.buf, stdout);
	strbuf_release(&out);
	return ret ? ret : off ? DP_EXIT_FAIL : 0;
}

int cli_cmd_fingerprint(int argc, char **argv)
{
	struct cli_opts o;
	struct learn_fp fp;
	struct strbuf out = STRBUF_INIT;
	int ret = cli_opts_parse(argc, argv, CMD_FINGERPRINT, &o);

	if (ret)
		return ret;
	if (o.npos && !strcmp(o.positional[0], "compare"))
		return fingerprint_compare(&o);
	if (o.npos)
		return cli_usage_error("fingerprint takes no %s (compare A.json B.json?)",
				       o.positional[0]);
	ret = watch(&o, "fingerprint", &fp);
	if (ret)
		return ret;
	learn_fp_json(&fp, &out);
	if (o.output)
		ret = cli_write_output(o.output, o.results, &out);
	else
		fputs(out.buf, stdout);
	strbuf_release(&out);
	return ret;
}

/* Bytes under paths (summed), and a note for each path this user cannot
 * read through. */
static uint64_t sizes_under(const char *const *paths, size_t n, struct strbuf *notes)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < n; i++) {
		struct stat st;

		/* a block device is sized from sysfs (learn_bytes_under), not read */
		if (!(stat(paths[i], &st) == 0 && S_ISBLK(st.st_mode)) &&
		    access(paths[i], R_OK | X_OK) != 0)
			strbuf_addf(notes,
				    "sizes: %s cannot be read by this user (%s): its files "
				    "not counted\n",
				    paths[i], strerror(errno));
		sum += learn_bytes_under(paths[i]);
	}
	return sum;
}

/* --log paired with --data: one each in order, or one for all. 0, or the
 * usage error. */
static int volumes_pair(const struct cli_opts *o, struct learn_fit *fit)
{
	if (o->ndata > 1 && o->nlog > 1 && o->nlog != o->ndata)
		return cli_usage_error("learn: %zu --log for %zu --data: give one --log (every "
				       "volume's) or one per --data, in the same order",
				       o->nlog, o->ndata);
	fit->nr_vols = o->ndata;
	for (size_t i = 0; i < o->ndata; i++) {
		fit->vol_path[i] = o->data[i];
		fit->vol_log[i] = !o->nlog ? NULL : o->nlog == 1 ? o->log[0] : o->log[i];
		fit->vol_bytes[i] = learn_bytes_under(o->data[i]);
	}
	return 0;
}

/* The fingerprint kept beside the profile: PROFILE without .ini, then
 * ".fingerprint.json", into path; its base name (the profile's key, which
 * is relative to the profile's directory) returned, within path. */
static const char *fp_path(const char *profile, struct strbuf *path)
{
	size_t n = strlen(profile);
	const char *base;

	if (n > 4 && !strcmp(profile + n - 4, ".ini"))
		n -= 4;
	strbuf_add(path, profile, n);
	strbuf_addstr(path, ".fingerprint.json");
	base = strrchr(path->buf, '/');
	return base ? base + 1 : path->buf;
}

/* The observed fingerprint beside the profile, then the profile naming it. */
static int learn_write(const struct cli_opts *o, const struct learn_fp *fp, struct learn_fit *fit)
{
	struct strbuf out = STRBUF_INIT, path = STRBUF_INIT;
	int ret;

	fit->fingerprint = fp_path(o->output, &path);
	learn_fp_json(fp, &out);
	ret = cli_write_output(path.buf, o->results, &out);
	if (!ret) {
		strbuf_reset(&out);
		learn_profile_write(fp, fit, &out);
		ret = cli_write_output(o->output, o->results, &out);
	}
	if (!ret && !o->quiet)
		fprintf(stderr, "diskproof: the observed fingerprint kept in %s\n", path.buf);
	fit->fingerprint = NULL;
	strbuf_release(&out);
	strbuf_release(&path);
	return ret;
}

/* learn --from FILE: the window watched before, read instead of watching;
 * what would shape a new window is refused. */
static int from_read(const struct cli_opts *o, struct learn_fp *fp, struct learn_fit *fit)
{
	const char *which = o->ov.has_duration	   ? "--duration"
			    : o->transactions >= 0 ? "--transactions"
			    : o->postgres	   ? "--postgres"
			    : o->mysql		   ? "--mysql"
			    : o->no_trace	   ? "--no-trace"
						   : NULL;
	int ret;

	if (which)
		return cli_usage_error("learn --from %s fits a window watched before: %s would "
				       "shape a new one (the file has its own)",
				       o->from, which);
	ret = read_fp(o->from, fp);
	if (ret)
		return ret;
	/* the profile's volumes must be the fingerprint's roles: a log fitted
	 * apart is a log_path, and no log_path without one */
	if (fp->role[LEARN_LOG].present && !o->nlog)
		return cli_usage_error("learn --from %s: the fingerprint watched a log apart: give "
				       "--log PATH (the profile's log_path)",
				       o->from);
	if (!fp->role[LEARN_LOG].present && o->nlog)
		return cli_usage_error("learn --from %s: the fingerprint watched no log apart: "
				       "--log %s has no role in it",
				       o->from, o->log[0]);
	if (!fp->role[LEARN_DATA].present)
		return cli_usage_error("learn --from %s: the fingerprint has no data role",
				       o->from);
	strbuf_addf(&fit->notes, "fitted from %s: a window watched before, not now\n", o->from);
	return 0;
}

int cli_cmd_learn(int argc, char **argv)
{
	struct cli_opts o;
	struct learn_fp fp;
	struct learn_fit fit;
	struct learn_where replay[LEARN_ROLES];
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	const char *tmp = getenv("TMPDIR");
	uint64_t db, log;
	int replay_ret = 0, ret = cli_opts_parse(argc, argv, CMD_LEARN, &o);

	if (ret)
		return ret;
	if (o.npos)
		return cli_usage_error("learn takes no %s", o.positional[0]);
	if (!o.output)
		return cli_usage_error("learn needs -o PROFILE (the profile it writes)");
	learn_fit_init(&fit);
	ret = volumes_pair(&o, &fit);
	if (!ret && o.from)
		ret = from_read(&o, &fp, &fit);
	/* the replay directories refused before anything is watched or written */
	else if (!ret && (o.replay_on || o.replay_log_on || o.replay_seconds || o.keep))
		ret = roles_resolve(&o, &fp);
	if (!ret)
		ret = cli_learn_replay_check(&o, &fp, replay);
	if (!ret && !o.from)
		ret = watch(&o, "learn", &fp);
	if (ret) {
		learn_fit_release(&fit);
		return ret;
	}
	db = sizes_under(o.data, o.ndata, &fit.notes);
	log = sizes_under(o.log, o.nlog, &fit.notes);
	if (geteuid() != 0 && !o.from)
		strbuf_addstr(&fit.notes, "not root: /proc/diskstats only (BPF tracing would need "
					  "root)\n");
	if (!o.quiet)
		fprintf(stderr, "diskproof: fitting on the sim engine ...\n");
	ret = learn_fit_run(&fp, db, log, tmp && *tmp ? tmp : "/tmp", &fit, &err);
	if (ret) {
		fprintf(stderr, "diskproof: learn: the fit: %s\n", err.buf);
		ret = DP_EXIT_ENV;
		goto out;
	}
	/* a replay that fails leaves the profile unchecked, said: written all
	 * the same (the window is not lost), exit 3 */
	if (o.replay_on)
		replay_ret = cli_learn_replay(&o, &fp, replay, tmp && *tmp ? tmp : "/tmp", &fit);
	if (replay_ret)
		strbuf_addf(&fit.checked, ";\n; not checked on %s: the replay run failed\n",
			    o.replay_on);
	ret = learn_write(&o, &fp, &fit);
	if (!ret && !o.quiet) {
		fprintf(stderr, "diskproof: learned %s from %.1f s; BPF tracing: %s%s\n", o.output,
			fp.seconds, fp.trace_status,
			fp.db.used ? ""
			: fp.db.kind
				? "; not seen: the database's counters (could not be read)"
				: "; not seen: the database's counters (no --postgres or --mysql)");
		if (fit.notes.len)
			cli_print_err(fit.notes.buf);
	}
out:
	learn_fit_release(&fit);
	strbuf_release(&out);
	strbuf_release(&err);
	return ret ? ret : replay_ret;
}
