/*
 * cmd_verify.c - "diskproof verify [PROFILE]": reads back every page and log
 * block of the profile's databases and reports each bad one on stdout as
 *   dbN page P (PATH offset O): WHAT (expected generation E, found F)
 * (at most 100 per database), then a summary. Progress per volume goes to
 * stderr. Exit codes: 0 clean, 4 any integrity error, 3 environment errors
 * (missing or foreign file, unusable journal, failed read), 2 usage or
 * profile errors, 130/143 interrupted; 3 at once when another command holds
 * a volume (lock.h). Nothing is written but the volumes' lock files.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

static void print_bad(const struct verify_db *vdb, const struct verify_bad *b)
{
	const char *path = b->log ? vdb->log.path : vdb->data.path;

	printf("%s %s %llu (%s offset %llu): ", vdb->pdb->name, b->log ? "log block" : "page",
	       (unsigned long long)b->index, path, (unsigned long long)b->offset);
	if (b->problem == VERIFY_READ_ERROR) {
		printf("read failed: %s\n", strerror(b->error));
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
}

static int print_result(const struct verify_result *r, bool deep)
{
	struct strbuf sb = STRBUF_INIT;
	double s = (double)r->elapsed_ns / 1e9;
	int code;

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
		code = DP_EXIT_OK;
	}
	return code;
}

int cmd_verify(int argc, char **argv)
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

	ret = cli_profile_load(argc, argv, CMD_VERIFY, "verify", &o, &p);
	if (ret)
		goto out;
	if (!strcmp(p.engine, "sim")) {
		fprintf(stderr,
			"diskproof: profile %s uses the sim engine, which keeps no files: "
			"nothing to verify\n",
			p.name);
		ret = DP_EXIT_USAGE;
		goto out;
	}
	ret = plan_build(&pl, &p, true, &err);
	if (ret) {
		cli_print_err(err.buf);
		ret = DP_EXIT_ENV;
		goto out;
	}
	/* nobody may write while pages are read back: a run's writes in flight
	 * would read as corruption */
	ret = plan_lock_take(&lock, &pl, "verify", 0, &err);
	if (ret) {
		cli_print_err(err.buf);
		ret = DP_EXIT_ENV;
		goto out;
	}
	pr.tty = isatty(STDERR_FILENO);
	sfd = signals_setup();
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
	ret = verify_run(&vo, &r, &err);
	if (ret) {
		cli_print_err(err.buf);
		ret = DP_EXIT_ENV;
		goto out;
	}
	ret = print_result(&r, o.deep);
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
