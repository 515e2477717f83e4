/* SPDX-License-Identifier: MIT */
/*
 * finish.c - the end of a run: summaries, verdicts, the databases' final
 * sizes, the exit code and the finished run row, and the row of a run
 * interrupted before it started.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diskproof/eval.h"
#include "diskproof/store.h"

#include "run_internal.h"

static const char *run_stop_event(const struct run *r)
{
	if (r->ctl.signal == SIGINT)
		return "interrupted by SIGINT";
	if (r->ctl.signal)
		return "interrupted by SIGTERM";
	return r->ctl.reason[0] ? r->ctl.reason : NULL;
}

/* A results-file failure at the end, kept on a line of its own after any
 * earlier one (which said why the run stopped). */
static void run_store_note(struct run *r, struct strbuf *e)
{
	if (r->store.err.len && e->len)
		strbuf_addch(&r->store.err, '\n');
	strbuf_addstr(&r->store.err, e->buf);
	strbuf_reset(e);
	r->store.failed = true;
}

/* The descriptor a worker has open on database d's file, or -1. */
static int run_db_fd(const struct run *r, const struct plan_db *d)
{
	for (unsigned i = 0; r->workers && i < r->nworkers; i++) {
		const struct worker *w = &r->workers[i];

		for (unsigned k = 0; w->dbs && w->fds && k < w->ndb; k++)
			if (w->dbs[k].pdb == d && w->fds[wl_file_db(k)] >= 0)
				return w->fds[wl_file_db(k)];
	}
	return -1;
}

/*
 * Database d's size as the run ends, in *size; false when not known. The sim
 * engine has no files: the size it simulated, the plan's. A database on a
 * block device is a fixed region of it, the plan's too. A file's is what
 * fstat says of the descriptor the run wrote through (the same file, even
 * if its name was replaced meanwhile), or, when the workers are gone (an
 * auto-tune stopped between levels), of the path opened again without
 * following a link (the volume is still locked).
 */
static bool run_db_final_size(const struct run *r, const struct plan_db *d, uint64_t *size)
{
	struct stat st;
	int fd;
	bool ok;

	if (!r->plan.files || r->plan.vols[d->volume].device) {
		*size = d->size;
		return true;
	}
	fd = run_db_fd(r, d);
	if (fd >= 0) {
		ok = fstat(fd, &st) == 0;
	} else {
		fd = open(d->path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
		if (fd < 0)
			return false;
		ok = fstat(fd, &st) == 0;
		close(fd);
	}
	if (!ok || !S_ISREG(st.st_mode) || st.st_size < 0)
		return false;
	*size = (uint64_t)st.st_size;
	return true;
}

/* The final sizes known, in a malloc'd array (*out, NULL when none); the
 * count. A run left at once (a second signal) or after a hung I/O asks
 * nothing of the filesystem. */
static size_t run_db_finals(const struct run *r, struct store_database_final **out)
{
	struct store_database_final *f;
	size_t n = 0;
	uint64_t size;

	*out = NULL;
	if (r->ctl.abandoned || r->ctl.hung_seen || !r->plan.nr_dbs)
		return 0;
	f = calloc(r->plan.nr_dbs, sizeof(*f));
	if (!f)
		return 0; /* the sizes stay unknown: no reason to fail the run */
	for (size_t i = 0; i < r->plan.nr_dbs; i++)
		if (run_db_final_size(r, &r->plan.dbs[i], &size))
			f[n++] = (struct store_database_final){r->plan.dbs[i].name, size};
	*out = f;
	return n;
}

/* The test log's last line: how the run ended (Jetstress's test log ends
 * with its result too). */
static void end_event(struct run *r, const struct store_run_end *end, struct strbuf *serr)
{
	char msg[160];

	snprintf(msg, sizeof(msg), "run ended: %s, verdict %s, exit code %d", end->status,
		 end->verdict, end->exit_code);
	if (store_event_add(r->store.st, r->store.run_id,
			    run_clock_ms(r, engine_clock_now(&r->clock)), "end", msg, serr))
		run_store_note(r, serr);
}

/* The error messages not stored (past RUN_EVENTS_MAX), as one event. */
static void dropped_event(struct run *r, struct strbuf *serr)
{
	char msg[200];

	if (!r->coord.msgs_dropped)
		return;
	snprintf(msg, sizeof(msg),
		 "%llu more error message(s) not stored: at most %u are kept per run "
		 "(the error counts are exact)",
		 (unsigned long long)r->coord.msgs_dropped, RUN_EVENTS_MAX);
	if (store_event_add(r->store.st, r->store.run_id,
			    run_clock_ms(r, engine_clock_now(&r->clock)), "events_dropped", msg,
			    serr))
		run_store_note(r, serr);
}

/* Summaries, verdicts, the finished run row. */
int run_finish(struct run *r, struct run_outcome *out, struct strbuf *err)
{
	struct strbuf serr = STRBUF_INIT;
	struct run_totals t = {0};
	struct verdict *verdicts = NULL;
	struct store_run_end end = {0};
	struct store_database_final *finals = NULL;
	struct run_exit_facts ef;
	size_t nverd = 0;
	enum run_reach_state reach = RUN_REACH_NONE;
	uint64_t measured;
	bool aborted = r->ctl.signal != 0, fatal = r->ctl.env_failed, passed;
	const char *stop_msg;
	int ret;

	run_load_record(r); /* a run stopped before its first publish */
	for (unsigned i = 0; !r->ctl.abandoned && i < r->nworkers; i++)
		if (r->workers[i].fatal && strcmp(r->workers[i].fatal_msg, r->ctl.reason)) {
			fatal = true;
			strbuf_addf(err, "%s%s", err->len ? "\n" : "", r->workers[i].fatal_msg);
		}
	if (r->ctl.env_failed && r->ctl.reason[0])
		strbuf_addf(err, "%s%s", err->len ? "\n" : "", r->ctl.reason);
	if (r->jnl.failed && strcmp(r->jnl.err.buf, r->ctl.reason))
		strbuf_addf(err, "%s%s", err->len ? "\n" : "", r->jnl.err.buf);
	measured = run_measured_ns(r, r->ctl.time ? r->ctl.time
						  : r->grid.t0 + r->grid.warmup + r->grid.duration);
	if (r->prof->streams == PROFILE_STREAMS_AUTO && !r->streams)
		measured = 0; /* no main test ran */
	ret = run_judge(r, measured, false, &t, &verdicts, &nverd);
	if (ret)
		goto out;
	passed = eval_all_passed(verdicts, nverd);
	if (aborted || fatal || r->store.failed) {
		/* an interrupted run, or one ended by an environment error, is
		 * not judged: no verdict row, so no PASS shows anywhere for a
		 * test that did not run its course */
		free(verdicts);
		verdicts = NULL;
		nverd = 0;
	}

	/* judged runs only: whether their reads reached the devices (reach.c);
	 * a run that did not is inconclusive whatever its figures */
	if (nverd && measured)
		reach = run_reach_finish(r, &t);

	out->integrity_errors = r->coord.integrity_errors;
	out->io_errors = r->coord.io_errors;
	for (unsigned i = 0; !r->ctl.abandoned && i < r->nworkers; i++)
		out->pending_ios += engine_drv_inflight(&r->workers[i].drv);
	ef = (struct run_exit_facts){.signal = r->ctl.signal,
				     .integrity = r->coord.integrity_errors != 0,
				     .env_error = fatal || r->store.failed,
				     .passed = passed,
				     .inconclusive = reach == RUN_REACH_NOT_REACHED};
	out->exit_code = run_exit_code(&ef);
	out->status = aborted			   ? "aborted"
		      : (fatal || r->store.failed) ? "error"
		      : passed			   ? "passed"
						   : "failed";
	end.status = out->status;
	end.verdict = aborted || fatal || r->store.failed ? "NONE" : passed ? "PASS" : "FAIL";
	end.ended_real_ns = time_real_ns();
	end.duration_ns = measured;
	end.exit_code = out->exit_code;
	end.totals = t.totals;
	end.nr_totals = t.nt;
	end.verdicts = verdicts;
	end.nr_verdicts = nverd;
	end.nr_finals = run_db_finals(r, &finals);
	end.finals = finals;
	/* even after a store error, try to leave a finished row: the error may
	 * have been passing (a full disk that has room again) */
	dropped_event(r, &serr);
	run_kmsg_end(r, run_clock_ms(r, engine_clock_now(&r->clock)));
	stop_msg = run_stop_event(r);
	/* the row before the stop event, which could take the last room it needs */
	ret = store_run_finish(r->store.st, r->store.run_id, &end, &serr);
	if (ret)
		run_store_note(r, &serr);
	if (stop_msg &&
	    store_event_add(r->store.st, r->store.run_id,
			    run_clock_ms(r, engine_clock_now(&r->clock)), "stop", stop_msg, &serr))
		run_store_note(r, &serr);
	end_event(r, &end, &serr);
	strbuf_release(&serr);
	if (r->store.failed) {
		/* one line per failure, each named, never glued together */
		for (const char *line = r->store.err.buf; *line;) {
			const char *nl = strchr(line, '\n');
			int len = nl ? (int)(nl - line) : (int)strlen(line);

			strbuf_addf(err, "%sresults file: %.*s", err->len ? "\n" : "", len, line);
			line += len + (nl != NULL);
		}
		ret = ret ? ret : -EIO;
	}
	/* 130/143 and 4 outrank an unusable results file; 1 and 0 do not */
	ef.env_error = ef.env_error || r->store.failed || ret;
	out->exit_code = run_exit_code(&ef);
	/* the last text: the totals just stored, the verdicts as stored */
	run_metrics_final(r, measured, verdicts, nverd, out->exit_code);
out:
	if (ret == -ENOMEM && !err->len)
		strbuf_addstr(err, "out of memory");
	free(verdicts);
	free(finals);
	run_totals_release(&t);
	return ret;
}

/* The run row's facts as the run starts. */
void run_info_fill(const struct run *r, struct store_run_info *info, char *host, size_t host_len)
{
	const struct profile *p = r->prof;

	gethostname(host, host_len - 1);
	info->machine = host[0] ? host : NULL;
	if (r->opt->host) /* --host: the name the fleet knows it by */
		info->host = r->opt->host;
	else
		info->host = host;
	info->label = r->opt->label;
	info->started_real_ns = time_real_ns();
	info->profile_name = p->name;
	info->profile_text = p->text;
	info->command_line = r->opt->command_line;
	info->engine = r->ops->name;
	info->test_type = profile_test_type_name(p->type);
	info->streams = p->streams == PROFILE_STREAMS_AUTO ? 0 : r->streams;
	info->warmup_ns = p->warmup_ns;
	info->pid = (int)getpid();
	if (r->opt->series) {
		info->series_uuid = r->opt->series->uuid;
		info->series_index = r->opt->series->index;
		info->series_size = r->opt->series->size;
	}
}

/*
 * Interrupted while creating the files, before the run row: the run is
 * stored all the same, aborted, with what stopped it, as any interrupted run
 * is. A results file that refuses it is said in err; the exit code stays the
 * signal's.
 */
void run_record_interrupted(struct run *r, struct run_outcome *out, struct strbuf *err)
{
	struct store_run_info info = {0};
	struct store_run_end end = {0};
	char host[256] = "unknown", msg[384];
	struct strbuf serr = STRBUF_INIT;

	run_info_fill(r, &info, host, sizeof(host));
	snprintf(msg, sizeof(msg), "%s while creating the database and log files",
		 run_stop_event(r));
	end.status = "aborted";
	end.verdict = "NONE";
	end.ended_real_ns = time_real_ns();
	end.exit_code = out->exit_code;
	if (store_run_begin(r->store.st, &info, &r->store.run_id, &serr) ||
	    store_event_add(r->store.st, r->store.run_id, 0, "stop", msg, &serr) ||
	    store_run_finish(r->store.st, r->store.run_id, &end, &serr)) {
		strbuf_addf(err, "%sresults file: %s", err->len ? "\n" : "", serr.buf);
	} else {
		out->run_id = r->store.run_id;
		out->status = "aborted";
	}
	strbuf_release(&serr);
}
