/* SPDX-License-Identifier: MIT */
/*
 * learn_replay.c - "diskproof learn ... --replay-on DIR [--replay-log-on
 * DIR] [--replay-seconds N] [--keep]" (docs/learn.md): the learned profile
 * checked by a short real run on directories the user names, never on the
 * observed devices.
 *
 * Before the window, each replay directory is checked (learn_replay_where:
 * a directory, on no device learn watches nor a disk beneath one); a refusal
 * is a usage error, exit 2, before anything is written. After the fit, the
 * learned profile with its paths moved to the replay directories (the
 * database no bigger than half the free space there) runs as a child
 * "diskproof run" (/proc/self/exe), which keeps its I/O, its signals and its
 * results file apart from learn. Once the child's --ready-file says its
 * files are made, and 2 s of its load have gone by, the replay devices are
 * fingerprinted for N s with the code fingerprint uses (learn_observe_window);
 * the figures, observed beside replayed, go into the header. Then the
 * replay's files are removed ("diskproof clean") with its temporary
 * directory, unless --keep.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "diskproof/learn.h"
#include "diskproof/run.h"

#include "cli.h"

#define REPLAY_SECONDS_DEFAULT 20
#define REPLAY_WARM_S 2		   /* of the child's load before the window */
#define REPLAY_READY_TIMEOUT_S 900 /* for the child to make its files */

int cli_learn_replay_check(const struct cli_opts *o, const struct learn_fp *obs,
			   struct learn_where *w)
{
	struct strbuf err = STRBUF_INIT;
	int ret = 0;

	memset(w, 0, 2 * sizeof(*w));
	if (!o->replay_on && (o->replay_log_on || o->replay_seconds || o->keep))
		return cli_usage_error("--replay-log-on, --replay-seconds and --keep need "
				       "--replay-on DIR");
	if (!o->replay_on)
		return 0;
	if (o->replay_log_on && !o->nlog)
		return cli_usage_error("--replay-log-on needs --log PATH (no log was watched)");
	ret = learn_replay_where("/sys", o->replay_on, obs, &w[LEARN_DATA], &err);
	if (!ret && o->replay_log_on)
		ret = learn_replay_where("/sys", o->replay_log_on, obs, &w[LEARN_LOG], &err);
	if (ret)
		ret = cli_usage_error("--replay-on: %s", err.buf);
	strbuf_release(&err);
	return ret;
}

/* dir/name into out; "" when it does not fit. */
static void join(char *out, size_t len, const char *dir, const char *name)
{
	int n = snprintf(out, len, "%s/%s", dir, name);

	if (n < 0 || (size_t)n >= len)
		out[0] = '\0';
}

/* Runs argv (a diskproof command) as a child, its output into out_path:
 * the child's pid, or -1. */
static pid_t spawn(char *const argv[], const char *out_path)
{
	pid_t pid = fork();

	if (pid == 0) {
		int fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int nul = open("/dev/null", O_RDONLY);

		if (fd >= 0) {
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
		}
		if (nul >= 0)
			dup2(nul, STDIN_FILENO);
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	return pid;
}

/* The child's exit code, or 128 + signal. */
static int reap(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* The child's output's last lines, said on stderr. */
static void say_output(const char *path)
{
	char line[512];
	FILE *f = fopen(path, "re");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		fprintf(stderr, "  run: %s", line);
	fclose(f);
}

/* The replay's profile: fit->m at the replay directories, its database no
 * bigger than half the free space of the data directory (said in note). */
static int replay_profile(const struct cli_opts *o, const struct learn_fp *obs,
			  const struct learn_model *m0, const char *file, unsigned seconds,
			  struct strbuf *note)
{
	struct learn_model m = *m0;
	struct strbuf text = STRBUF_INIT;
	struct statvfs sv;
	const char *log = o->replay_log_on		 ? o->replay_log_on
			  : obs->role[LEARN_LOG].present ? o->replay_on
							 : NULL;
	FILE *f;
	int ret = 0;

	if (statvfs(o->replay_on, &sv) == 0) {
		uint64_t half = (uint64_t)sv.f_bavail * sv.f_frsize / 2 & ~((1ull << 20) - 1);

		if (half && m.database_size > half) {
			strbuf_addf(note,
				    "database_size %llu MiB in the replay (half the free space "
				    "there), not the learned %llu MiB\n",
				    (unsigned long long)(half >> 20),
				    (unsigned long long)(m.database_size >> 20));
			m.database_size = half;
		}
	}
	learn_model_profile(&m, o->replay_on, log, "io_uring", seconds + REPLAY_WARM_S + 3, &text);
	f = fopen(file, "we");
	if (!f || fputs(text.buf, f) < 0)
		ret = -errno;
	if (f && fclose(f) != 0 && !ret)
		ret = -errno;
	strbuf_release(&text);
	return ret;
}

/* Waits for the child's ready file; false when it ended first or the
 * timeout passed (the child killed then). */
static bool wait_ready(pid_t pid, const char *ready, int *rc)
{
	for (unsigned t = 0; t < REPLAY_READY_TIMEOUT_S * 10; t++) {
		int st;

		if (access(ready, F_OK) == 0)
			return true;
		if (waitpid(pid, &st, WNOHANG) == pid) {
			*rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
			return false;
		}
		sleep_ms(100);
	}
	kill(pid, SIGTERM);
	*rc = reap(pid);
	return false;
}

/* The replay's fingerprint: its roles on the replay devices w. */
static void replay_roles(const struct learn_fp *obs, const struct learn_where *w,
			 struct learn_fp *rep)
{
	memset(rep, 0, sizeof(*rep));
	rep->role[LEARN_DATA].present = true;
	rep->role[LEARN_DATA].where = w[LEARN_DATA];
	if (obs->role[LEARN_LOG].present) {
		rep->role[LEARN_LOG].present = true;
		rep->role[LEARN_LOG].where = w[LEARN_LOG].nr_devices ? w[LEARN_LOG] : w[LEARN_DATA];
	}
}

/* One replay round in dir: the child run of the profile, watched. 0 or the
 * exit code (said). */
static int replay_round(const struct cli_opts *o, const char *dir, unsigned seconds,
			struct learn_fp *rep)
{
	char ini[PATH_MAX], db[PATH_MAX], ready[PATH_MAX], out[PATH_MAX];
	struct learn_observe ob = {.proc = "/proc",
				   .window_ns = (uint64_t)seconds * NSEC_PER_SEC,
				   .step_ns = NSEC_PER_SEC,
				   .signal_fd = -1,
				   .transactions = rep->transactions};
	struct strbuf err = STRBUF_INIT;
	int rc = 0, ret;
	pid_t pid;

	join(ini, sizeof(ini), dir, "replay.ini");
	join(db, sizeof(db), dir, "replay.db");
	join(ready, sizeof(ready), dir, "ready");
	join(out, sizeof(out), dir, "run.out");
	unlink(ready);
	pid = spawn((char *const[]){"diskproof", "run", ini, "--results", db, "--quiet",
				    "--ready-file", ready, NULL},
		    out);
	if (pid < 0 || !wait_ready(pid, ready, &rc)) {
		fprintf(stderr,
			"diskproof: learn --replay-on: the replay run ended before its "
			"load began (exit %d):\n",
			pid < 0 ? -1 : rc);
		say_output(out);
		return DP_EXIT_ENV;
	}
	sleep_ms(REPLAY_WARM_S * 1000);
	ret = learn_observe_window(&ob, rep, &err);
	rc = reap(pid);
	if (ret || (rc != 0 && rc != 1)) {
		fprintf(stderr, "diskproof: learn --replay-on: %s (the run's exit %d)\n",
			ret ? err.buf : "the replay run failed", rc);
		say_output(out);
	}
	strbuf_release(&err);
	return ret || (rc != 0 && rc != 1) ? DP_EXIT_ENV : 0;
}

/* The replay's files removed (diskproof clean), then its directory. */
static void replay_clean(const char *dir)
{
	char ini[PATH_MAX], out[PATH_MAX];
	const char *names[] = {"replay.ini", "replay.db", "replay.db-wal", "replay.db-shm",
			       "ready",	     "run.out",	  "clean.out"};
	pid_t pid;

	join(ini, sizeof(ini), dir, "replay.ini");
	join(out, sizeof(out), dir, "clean.out");
	pid = spawn((char *const[]){"diskproof", "clean", ini, "--yes", NULL}, out);
	if (pid < 0 || reap(pid) != 0) {
		fprintf(stderr, "diskproof: learn --replay-on: the replay's files were not all "
				"removed:\n");
		say_output(out);
	}
	for (size_t i = 0; i < DP_ARRAY_SIZE(names); i++) {
		char p[PATH_MAX];

		join(p, sizeof(p), dir, names[i]);
		unlink(p);
	}
	rmdir(dir);
}

int cli_learn_replay(const struct cli_opts *o, const struct learn_fp *obs,
		     const struct learn_where *w, const char *tmp, struct learn_fit *fit)
{
	unsigned seconds = o->replay_seconds ? o->replay_seconds : REPLAY_SECONDS_DEFAULT;
	struct strbuf note = STRBUF_INIT;
	char dir[PATH_MAX], ini[PATH_MAX];
	struct learn_fp rep;
	int ret;

	ret = snprintf(dir, sizeof(dir), "%s/diskproof-replay.XXXXXX", tmp);
	if (ret < 0 || (size_t)ret >= sizeof(dir))
		errno = ENAMETOOLONG;
	if (ret < 0 || (size_t)ret >= sizeof(dir) || !mkdtemp(dir)) {
		fprintf(stderr, "diskproof: learn --replay-on: %s: %s\n", dir, strerror(errno));
		return DP_EXIT_ENV;
	}
	join(ini, sizeof(ini), dir, "replay.ini");
	ret = replay_profile(o, obs, &fit->m, ini, seconds, &note);
	if (ret) {
		fprintf(stderr, "diskproof: learn --replay-on: %s: %s\n", ini, strerror(-ret));
		ret = DP_EXIT_ENV;
		goto out;
	}
	if (!o->quiet)
		fprintf(stderr, "diskproof: replaying the learned profile in %s for %u s ...\n",
			o->replay_on, seconds);
	replay_roles(obs, w, &rep);
	rep.transactions = obs->transactions > 0 ? fit->m.rate * seconds : -1;
	ret = replay_round(o, dir, seconds, &rep);
	if (ret)
		goto out;
	if (rep.transactions > 0)
		strbuf_addf(&note, "transactions: the rate x the window (%.0f; open loop)\n",
			    rep.transactions);
	learn_replay_header(obs, &rep, note.buf, &fit->checked);
out:
	if (o->keep)
		fprintf(stderr,
			"diskproof: learn --replay-on: kept the replay's profile, results "
			"and files: %s\n",
			dir);
	else
		replay_clean(dir);
	strbuf_release(&note);
	return ret;
}
