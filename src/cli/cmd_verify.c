/* SPDX-License-Identifier: MIT */
/*
 * cmd_verify.c - "diskproof verify [PROFILE]": reads back every page and log
 * block of the profile's databases and reports each bad one on stdout as
 *   dbN page P (PATH offset O): WHAT (expected generation E, found F)
 * (at most 100 per database), then a summary. Sizes are what the files and
 * journals hold (plan_held_read), a profile asking for others said once on
 * stderr. Progress per volume goes to
 * stderr. Exit codes: 0 clean, 4 any integrity error, 3 environment errors
 * (missing or foreign file, unusable journal, failed read), 2 usage or
 * profile errors, 130/143 interrupted; 3 at once when another command holds
 * a volume (lock.h). Nothing is written but the volumes' lock files.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diskproof/engine.h"
#include "diskproof/journal.h"
#include "diskproof/json.h"
#include "diskproof/lock.h"
#include "diskproof/plan.h"
#include "diskproof/run.h"
#include "diskproof/verify.h"

#include "cli.h"

/* progress period on a terminal, and in a log file */
#define PROGRESS_TTY_NS (500 * NSEC_PER_MSEC)
#define PROGRESS_PLAIN_NS (10 * NSEC_PER_SEC)

struct vprogress {
	bool tty;
	size_t drawn; /* lines drawn last time on a terminal */
};

static void on_progress(void *arg, const struct verify_progress *v, size_t n, uint64_t elapsed_ns,
			bool final)
{
	struct vprogress *pr = arg;
	double s = (double)elapsed_ns / 1e9;

	if (final && !pr->tty)
		return; /* the summary says it all */
	if (pr->tty && pr->drawn)
		fprintf(stderr, "\033[%zuA", pr->drawn);
	for (size_t i = 0; i < n; i++) {
		double pct = v[i].total ? 100.0 * (double)v[i].done / (double)v[i].total : 100.0;
		double rate = s > 0 ? (double)v[i].done / s : 0.0;
		char left[32] = "";

		if (!v[i].finished && rate > 0 && v[i].total > v[i].done)
			snprintf(left, sizeof(left), ", %.0f s left",
				 (double)(v[i].total - v[i].done) / rate);
		fprintf(stderr, "%sverify %s: %5.1f%% (%.0f of %.0f MB) %7.1f MB/s, %llu bad%s%s\n",
			pr->tty ? "\r\033[K" : "", v[i].volume, pct, (double)v[i].done / 1e6,
			(double)v[i].total / 1e6, rate / 1e6, (unsigned long long)v[i].bad,
			v[i].finished ? ", done" : "", left);
	}
	pr->drawn = n;
	fflush(stderr);
}

/* "run 12", or what run 0 and a run too large to keep (journal.h) mean */
static void failed_run_name(uint64_t run, struct strbuf *out)
{
	if (run == JOURNAL_FAILED_RUN_MASK)
		strbuf_addstr(out, "an earlier run");
	else if (!run)
		strbuf_addstr(out, "init --precondition");
	else
		strbuf_addf(out, "run %llu", (unsigned long long)run);
}

static void print_bad(const struct verify_db *vdb, const struct verify_bad *b)
{
	const char *path = b->log ? vdb->log.path : vdb->data.path;

	printf("%s %s %llu (%s offset %llu): ", vdb->pdb->name, b->log ? "log block" : "page",
	       (unsigned long long)b->index, path, (unsigned long long)b->offset);
	if (b->problem == VERIFY_READ_ERROR) {
		printf("read failed: %s\n", strerror(b->error));
		return;
	}
	if (b->problem == VERIFY_WRITE_FAILED) {
		struct strbuf run = STRBUF_INIT;

		failed_run_name(b->failed_run, &run);
		printf("write failed in %s: what it holds is undefined; not checked\n", run.buf);
		strbuf_release(&run);
		return;
	}
	if (b->problem == VERIFY_MISDIRECTED)
		printf("misdirected write: holds db%u %s %llu", b->found_db,
		       b->found_log ? "log block" : "page", (unsigned long long)b->found_page);
	else
		fputs(verify_problem_name(b->problem), stdout);
	if (!b->log) {
		printf(" (expected generation ");
		if (b->expected_gen)
			printf("%llu", (unsigned long long)b->expected_gen);
		else
			printf("any");
		if (b->problem == VERIFY_NOT_OURS)
			printf(", found none)");
		else
			printf(", found %llu)", (unsigned long long)b->found_gen);
	}
	putchar('\n');
}

/* "1 checksum mismatch, 2 lost write" or "no problems" */
static void add_counts(struct strbuf *sb, const uint64_t *bad)
{
	size_t start = sb->len;

	for (int k = 0; k < VERIFY_PROBLEM_COUNT; k++)
		if (bad[k])
			strbuf_addf(sb, "%s%llu %s", sb->len > start ? ", " : "",
				    (unsigned long long)bad[k],
				    verify_problem_short((enum verify_problem)k));
	if (sb->len == start)
		strbuf_addstr(sb, "no problems");
}

static const char *journal_text(const struct verify_db *vdb, struct strbuf *sb)
{
	switch (vdb->journal) {
	case VERIFY_JOURNAL_NONE:
		return "no journal: generations not checked";
	case VERIFY_JOURNAL_CLEAN:
		return "journal clean: exact generations checked";
	case VERIFY_JOURNAL_LOWER_BOUND:
		/* said once per database, never once per page */
		if (vdb->journal_run_id)
			strbuf_addf(sb, "journal from an unclean end (run %llu)",
				    (unsigned long long)vdb->journal_run_id);
		else
			strbuf_addstr(sb, "journal a lower bound (from init or precondition)");
		strbuf_addf(sb, ": newer pages accepted (%llu found), older ones are lost writes",
			    (unsigned long long)vdb->data.newer);
		return sb->buf;
	case VERIFY_JOURNAL_UNUSABLE:
		break;
	}
	return "journal unusable: generations not checked";
}

static void print_db(const struct verify_db *vdb)
{
	struct strbuf sb = STRBUF_INIT, jt = STRBUF_INIT;
	uint64_t bad[VERIFY_PROBLEM_COUNT];

	for (size_t i = 0; i < vdb->nr_bad; i++)
		print_bad(vdb, &vdb->bad[i]);
	if (vdb->unlisted)
		printf("%s: %llu more bad pages or log blocks not listed\n", vdb->pdb->name,
		       (unsigned long long)vdb->unlisted);
	for (int k = 0; k < VERIFY_PROBLEM_COUNT; k++)
		bad[k] = vdb->data.bad[k] + vdb->log.bad[k];
	add_counts(&sb, bad);
	printf("%s: %llu pages, %llu log blocks checked: %s; %s\n", vdb->pdb->name,
	       (unsigned long long)vdb->data.checked, (unsigned long long)vdb->log.checked, sb.buf,
	       journal_text(vdb, &jt));
	strbuf_release(&sb);
	strbuf_release(&jt);
}

/* Environment problems, to stderr: what could not be verified, and why. */
static void print_env(const struct verify_result *r)
{
	for (size_t i = 0; i < r->nr_dbs; i++) {
		const struct verify_db *vdb = &r->dbs[i];

		if (vdb->data.error.len)
			fprintf(stderr, "diskproof: %s\n", vdb->data.error.buf);
		if (vdb->log.error.len)
			fprintf(stderr, "diskproof: %s\n", vdb->log.error.buf);
		if (vdb->journal_note.len)
			fprintf(stderr, "diskproof: %s\n", vdb->journal_note.buf);
	}
	if (r->bad[VERIFY_READ_ERROR])
		fprintf(stderr, "diskproof: %llu page(s) or log block(s) could not be read\n",
			(unsigned long long)r->bad[VERIFY_READ_ERROR]);
	if (r->write_failed)
		fprintf(stderr,
			"diskproof: %llu page(s) not checked: their last write failed (the "
			"run said so), so what they hold is undefined; not an integrity error. "
			"The next run writes them anew (or init --destroy-data makes the "
			"database again)\n",
			(unsigned long long)r->write_failed);
}

/* "profile says 64 MiB, files hold 8 MiB" for database i (and its log when
 * that differs too), into out; nothing when its files hold the plan's sizes. */
static void held_differs(const struct plan *pl, const struct plan_held *h, size_t i,
			 struct strbuf *out)
{
	const struct plan_db *db = &pl->dbs[i];
	bool size = h->size && h->size != db->size;
	bool log = h->log_size && h->log_size != db->log_size;

	if (size) {
		strbuf_addstr(out, "profile says ");
		unit_format_size(out, db->size);
		strbuf_addstr(out, ", files hold ");
		unit_format_size(out, h->size);
	}
	if (log) {
		strbuf_addstr(out, size ? " (logs: " : "logs: profile says ");
		if (size)
			strbuf_addstr(out, "profile says ");
		unit_format_size(out, db->log_size);
		strbuf_addstr(out, ", files hold ");
		unit_format_size(out, h->log_size);
		if (size)
			strbuf_addch(out, ')');
	}
}

/*
 * Verify reads what was written, not what the profile would make now: each
 * database's size (and its log's) is taken from its files and journal
 * (plan_held_read), and a size the profile gives otherwise is said once on
 * stderr, "diskproof: profile says 64 MiB, files hold 8 MiB: verifying the
 * 8 MiB written" (for every database when all differ alike, else one line
 * each). 0 or -ENOMEM.
 */
static int adopt_held(struct plan *pl)
{
	struct plan_held *held = calloc(pl->nr_dbs ? pl->nr_dbs : 1, sizeof(*held));
	struct strbuf first = STRBUF_INIT, one = STRBUF_INIT;
	size_t differ, alike = 0;
	bool once;

	if (!held)
		return -ENOMEM;
	differ = plan_held_read(pl, held);
	for (size_t i = 0; differ && i < pl->nr_dbs; i++) {
		strbuf_reset(&one);
		held_differs(pl, &held[i], i, &one);
		if (one.len && !first.len)
			strbuf_addstr(&first, one.buf);
		alike += one.len && !strcmp(one.buf, first.buf);
	}
	/* one line for every database when they all differ alike */
	once = differ > 1 && alike == differ && differ == pl->nr_dbs;
	for (size_t i = 0; differ && i < pl->nr_dbs; i++) {
		uint64_t written = held[i].size ? held[i].size : pl->dbs[i].size;

		strbuf_reset(&one);
		held_differs(pl, &held[i], i, &one);
		if (!one.len)
			continue;
		strbuf_reset(&first);
		unit_format_size(&first, written);
		fprintf(stderr, "diskproof: %s: %s: verifying the %s written\n",
			once ? "every database" : pl->dbs[i].name, one.buf, first.buf);
		if (once)
			break;
	}
	plan_held_adopt(pl, held);
	strbuf_release(&first);
	strbuf_release(&one);
	free(held);
	return 0;
}

/* ---- --format json (docs/json.md, verify.schema.json) ---- */

/* The JSON name of each enum verify_problem, in its order. */
static const char *const problem_keys[VERIFY_PROBLEM_COUNT] = {
	"not_ours", "checksum", "misdirected", "lost_write",   "unwritten",
	"newer",    "payload",	"read_error",  "write_failed",
};

static const char *const journal_keys[] = {
	[VERIFY_JOURNAL_NONE] = "none",
	[VERIFY_JOURNAL_CLEAN] = "clean",
	[VERIFY_JOURNAL_LOWER_BOUND] = "lower_bound",
	[VERIFY_JOURNAL_UNUSABLE] = "unusable",
};

/* Every problem's count, 0s included: stable keys. */
static void json_counts(struct json *j, const char *key, const uint64_t *bad)
{
	json_begin_object_flat(j, key);
	for (int k = 0; k < VERIFY_PROBLEM_COUNT; k++)
		json_u64(j, problem_keys[k], bad[k]);
	json_end(j);
}

static void json_file(struct json *j, const char *key, const struct verify_file *f)
{
	json_begin_object_flat(j, key);
	json_str(j, "path", f->path);
	json_u64(j, "block_size", f->block);
	json_u64(j, "size", f->size);
	json_u64(j, "checked", f->checked);
	json_u64(j, "newer_accepted", f->newer);
	json_counts(j, "bad", f->bad);
	json_str(j, "error", f->error.len ? f->error.buf : NULL);
	json_end(j);
}

static void json_bad(struct json *j, const struct verify_bad *b)
{
	bool mis = b->problem == VERIFY_MISDIRECTED;

	json_begin_object_flat(j, NULL);
	json_str(j, "kind", b->log ? "log_block" : "page");
	json_u64(j, "index", b->index);
	json_u64(j, "offset", b->offset);
	json_str(j, "problem", problem_keys[b->problem]);
	json_str(j, "message",
		 b->problem == VERIFY_READ_ERROR ? strerror(b->error)
						 : verify_problem_name(b->problem));
	if (b->log || !b->expected_gen)
		json_null(j, "expected_generation"); /* any (or a log block: none) */
	else
		json_u64(j, "expected_generation", b->expected_gen);
	if (b->log || b->problem == VERIFY_NOT_OURS || b->problem == VERIFY_READ_ERROR ||
	    b->problem == VERIFY_WRITE_FAILED)
		json_null(j, "found_generation");
	else
		json_u64(j, "found_generation", b->found_gen);
	if (mis) {
		json_u64(j, "found_db", b->found_db);
		json_str(j, "found_kind", b->found_log ? "log_block" : "page");
		json_u64(j, "found_index", b->found_page);
	} else {
		json_null(j, "found_db");
		json_null(j, "found_kind");
		json_null(j, "found_index");
	}
	if (b->problem == VERIFY_WRITE_FAILED)
		json_u64(j, "failed_in_run", b->failed_run);
	else
		json_null(j, "failed_in_run");
	json_end(j);
}

static void json_db(struct json *j, const struct plan *pl, const struct verify_db *vdb)
{
	json_begin_object(j, NULL);
	json_str(j, "name", vdb->pdb->name);
	json_str(j, "volume", pl->vols[vdb->pdb->volume].name);
	json_str(j, "journal", journal_keys[vdb->journal]);
	if (vdb->journal == VERIFY_JOURNAL_LOWER_BOUND && vdb->journal_run_id)
		json_u64(j, "journal_run_id", vdb->journal_run_id);
	else
		json_null(j, "journal_run_id");
	json_str(j, "journal_note", vdb->journal_note.len ? vdb->journal_note.buf : NULL);
	json_file(j, "data", &vdb->data);
	json_file(j, "log", &vdb->log);
	json_begin_array(j, "bad_listed");
	for (size_t i = 0; i < vdb->nr_bad; i++)
		json_bad(j, &vdb->bad[i]);
	json_end(j);
	json_u64(j, "unlisted", vdb->unlisted);
	json_end(j);
}

/* The whole result as one document on stdout; 0 or DP_EXIT_ENV. */
static int print_json(const struct verify_result *r, const struct profile *p, const struct plan *pl,
		      bool deep)
{
	struct strbuf doc = STRBUF_INIT;
	struct json j = JSON_INIT(&doc);
	int ret;

	json_begin_object(&j, NULL);
	json_doc_versions(&j);
	json_str(&j, "profile", p->name);
	json_str(&j, "origin", p->origin);
	json_bool(&j, "deep", deep);
	json_begin_array(&j, "databases");
	for (size_t i = 0; i < r->nr_dbs; i++)
		json_db(&j, pl, &r->dbs[i]);
	json_end(&j);
	json_u64(&j, "pages", r->pages);
	json_u64(&j, "log_blocks", r->log_blocks);
	json_u64(&j, "bytes", r->bytes);
	json_fixed(&j, "elapsed_s", (double)r->elapsed_ns / 1e9, 3);
	json_counts(&j, "bad", r->bad);
	json_u64(&j, "integrity_errors", r->integrity_errors);
	json_u64(&j, "env_errors", r->env_errors);
	json_u64(&j, "write_failed", r->write_failed);
	json_str(&j, "interrupted_by",
		 r->signal == SIGINT	? "SIGINT"
		 : r->signal == SIGTERM ? "SIGTERM"
					: NULL);
	/* as the exit code decides it (print_result) */
	json_str(&j, "result",
		 r->signal	       ? "interrupted"
		 : r->integrity_errors ? "integrity_error"
		 : r->env_errors       ? "incomplete"
				       : "clean");
	json_end(&j);
	strbuf_addch(&doc, '\n');
	ret = cli_emit(NULL, NULL, &doc, stdout);
	strbuf_release(&doc);
	return ret;
}

static int print_result(const struct verify_result *r, bool deep, bool json,
			const struct profile *p, const struct plan *pl)
{
	struct strbuf sb = STRBUF_INIT;
	double s = (double)r->elapsed_ns / 1e9;
	int code, emit = 0;

	if (json) {
		/* a failed write of the document only matters when nothing else does */
		emit = print_json(r, p, pl, deep);
		goto tail;
	}
	for (size_t i = 0; i < r->nr_dbs; i++)
		print_db(&r->dbs[i]);
	add_counts(&sb, r->bad);
	printf("verified %zu database(s)%s: %llu pages and %llu log blocks, %.1f MB in %.2f s "
	       "(%.1f MB/s): %s\n",
	       r->nr_dbs, deep ? " deep" : "", (unsigned long long)r->pages,
	       (unsigned long long)r->log_blocks, (double)r->bytes / 1e6, s,
	       s > 0 ? (double)r->bytes / 1e6 / s : 0.0, sb.buf);
	fflush(stdout);
	strbuf_release(&sb);
tail:
	print_env(r);
	if (r->signal) {
		fprintf(stderr, "diskproof: interrupted: not every page was checked\n");
		return r->signal == SIGTERM ? DP_EXIT_SIGTERM : DP_EXIT_SIGINT;
	}
	if (r->integrity_errors) {
		fprintf(stderr,
			"diskproof: data integrity error: %llu bad page(s) or log block(s) (see "
			"docs/integrity.md)\n",
			(unsigned long long)r->integrity_errors);
		code = DP_EXIT_INTEGRITY;
	} else if (r->env_errors) {
		fprintf(stderr, "diskproof: verification incomplete: see the messages above\n");
		code = DP_EXIT_ENV;
	} else {
		code = emit ? DP_EXIT_ENV : DP_EXIT_OK;
	}
	return code;
}

int cli_cmd_verify(int argc, char **argv)
{
	struct cli_opts o;
	struct profile p = {0};
	struct plan pl = {0};
	struct strbuf err = STRBUF_INIT;
	struct verify_result r = {0};
	struct vprogress pr = {0};
	struct verify_options vo = {0};
	struct plan_lock *lock = NULL;
	int ret, sfd = -1;
	bool json;

	ret = cli_profile_load(argc, argv, CMD_VERIFY, "verify", &o, &p);
	if (!ret)
		ret = cli_format_text_json(o.format, &json);
	if (ret)
		goto out;
	ret = plan_build(&pl, &p, true, &err);
	if (ret) {
		cli_print_err(err.buf);
		ret = DP_EXIT_ENV;
		goto out;
	}
	if (engine_simulated(p.engine) && !o.ov.witness) {
		if (cli_verify_sim_cut(&pl))
			fprintf(stderr,
				"diskproof: profile %s: its durability run ended by a simulated "
				"power cut; pages in flight then are no integrity error: name its "
				"witness (verify %s --witness SPEC) to classify the acknowledged "
				"pages\n",
				p.name, p.name);
		else
			fprintf(stderr,
				"diskproof: profile %s uses the sim engine, which keeps no files: "
				"nothing to verify\n",
				p.name);
		ret = DP_EXIT_USAGE;
		goto out;
	}
	if (engine_simulated(p.engine)) {
		ret = cli_verify_witness(&p, &pl, o.ov.witness, json);
		goto out;
	}
	/* nobody may write while pages are read back: a run's writes in flight
	 * would read as corruption */
	ret = plan_lock_take(&lock, &pl, "verify", o.no_lock ? PLAN_LOCK_BEST_EFFORT : 0, &err);
	if (ret) {
		cli_print_err(err.buf);
		ret = DP_EXIT_ENV;
		goto out;
	}
	cli_print_warnings(plan_lock_skipped(lock));
	pr.tty = isatty(STDERR_FILENO);
	sfd = cli_signals_setup();
	vo.plan = &pl;
	vo.engine = p.engine;
	vo.direct = p.direct;
	vo.deep = o.deep;
	vo.rate = o.rate;
	vo.signal_fd = sfd;
	if (!o.quiet) {
		vo.progress_ns = pr.tty ? PROGRESS_TTY_NS : PROGRESS_PLAIN_NS;
		vo.cb = (struct verify_callbacks){on_progress, &pr};
		fprintf(stderr,
			"diskproof: verifying profile %s (%s): %zu volume(s), %zu database(s)%s\n",
			p.name, p.origin, pl.nr_vols, pl.nr_dbs, o.deep ? ", deep" : "");
	}
	if (o.ov.witness) {
		ret = cli_verify_witness(&p, &pl, o.ov.witness, json);
		goto out;
	}
	if (adopt_held(&pl)) {
		cli_print_err("verify: out of memory");
		ret = DP_EXIT_ENV;
		goto out;
	}
	ret = verify_run(&vo, &r, &err);
	if (ret) {
		cli_print_err(err.buf);
		ret = DP_EXIT_ENV;
		goto out;
	}
	ret = print_result(&r, o.deep, json, &p, &pl);
out:
	if (sfd >= 0)
		close(sfd);
	verify_result_release(&r);
	plan_lock_release(lock);
	plan_release(&pl);
	profile_release(&p);
	strbuf_release(&err);
	return ret;
}
