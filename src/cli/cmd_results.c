/* SPDX-License-Identifier: MIT */
/*
 * cmd_results.c - commands that manage the results file rather than make
 * runs: "diskproof delete RUN..." and "diskproof import OTHER.db", and the
 * atomic file output of "report -o FILE" (cli_write_output).
 *
 * delete and import take only --results; they parse with the option mask of
 * "list", the one command whose only option is --results.
 *
 * Exit codes: 0 done, 2 usage error or unknown run id (nothing deleted),
 * 3 the results file (or the other file of import) cannot be used, or
 * import refused a run holding a value no run writes (the others imported).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "diskproof/report.h"
#include "diskproof/run.h"
#include "diskproof/store.h"

#include "cli.h"

/* Is output (stat'ed as *st when there, resolved to name) the results file or
 * one of its siblings? */
static bool output_is_results(const struct stat *st, const char *name, const char *results)
{
	static const char *const sib[] = {"", "-wal", "-shm", "-journal"};
	struct strbuf f = STRBUF_INIT;
	char *real = realpath(results, NULL);
	struct stat rs;
	bool same = false;

	for (size_t i = 0; real && i < DP_ARRAY_SIZE(sib) && !same; i++) {
		strbuf_reset(&f);
		strbuf_addf(&f, "%s%s", real, sib[i]);
		if (name && !strcmp(name, f.buf))
			same = true;
		else if (st && stat(f.buf, &rs) == 0)
			same = rs.st_dev == st->st_dev && rs.st_ino == st->st_ino;
	}
	free(real);
	strbuf_release(&f);
	return same;
}

int cli_report_args_check(const struct cli_opts *o, const char *cmd, int *fmt)
{
	int ret;

	if (o->format) {
		*fmt = report_format_from_name(o->format);
		if (*fmt < 0 && !cmd)
			return cli_usage_error("unknown format \"%s\" (text, json, csv or html)",
					       o->format);
		if (*fmt < 0 || (cmd && !report_format_compares((enum report_format) * fmt)))
			return cli_usage_error("unknown format \"%s\" for %s (text, json or html)",
					       o->format, cmd);
	}
	ret = cli_results_must_exist(o->results);
	if (!ret)
		ret = cli_output_check(o->output, o->results);
	return ret;
}

int cli_output_check(const char *output, const char *results)
{
	struct stat st;
	bool there;
	char *name;
	int ret = 0;

	if (!output)
		return 0;
	there = stat(output, &st) == 0;
	name = path_resolve(output);
	if (output_is_results(there ? &st : NULL, name, results)) {
		fprintf(stderr,
			"diskproof: %s: is the results file %s (or beside it): the report would "
			"replace it; write the report elsewhere\n",
			output, results);
		ret = DP_EXIT_ENV;
	} else if (there && (S_ISBLK(st.st_mode) || S_ISDIR(st.st_mode) || S_ISSOCK(st.st_mode))) {
		fprintf(stderr,
			"diskproof: %s: is %s; a report goes to a regular file, a terminal, a "
			"pipe or a FIFO\n",
			output,
			S_ISBLK(st.st_mode)   ? "a block device"
			: S_ISDIR(st.st_mode) ? "a directory"
					      : "a socket");
		ret = DP_EXIT_ENV;
	}
	free(name);
	return ret;
}

/* Writes text, and a final newline when it lacks one, to fd. */
static int output_write_fd(int fd, const struct strbuf *text)
{
	bool nl = text->len && text->buf[text->len - 1] != '\n';
	size_t off = 0, len = text->len + nl;
	ssize_t n;

	while (off < len) {
		if (off < text->len)
			n = write(fd, text->buf + off, text->len - off);
		else
			n = write(fd, "\n", 1);
		if (n < 0 && errno != EINTR)
			return -errno;
		if (n > 0)
			off += (size_t)n;
	}
	return 0;
}

/* /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: the descriptor, else -1. */
static int output_fd_of(const char *path)
{
	const char *n = NULL;
	char *end;
	long v;

	if (!strcmp(path, "/dev/stdout"))
		return STDOUT_FILENO;
	if (!strcmp(path, "/dev/stderr"))
		return STDERR_FILENO;
	if (!strncmp(path, "/dev/fd/", 8))
		n = path + 8;
	else if (!strncmp(path, "/proc/self/fd/", 14))
		n = path + 14;
	if (!n || !*n)
		return -1;
	v = strtol(n, &end, 10);
	return *end || v < 0 || v > INT32_MAX ? -1 : (int)v;
}

/* How long -o FIFO waits for a reader (one started just before diskproof,
 * as in `cat FIFO & diskproof report -o FIFO`, may open it a moment later). */
#define OUTPUT_FIFO_WAIT_S 10

/*
 * A terminal, a pipe or a FIFO opened for writing without blocking (a FIFO
 * nobody reads is ENXIO, not a hang). A FIFO without a reader yet is tried
 * again every 10 ms for OUTPUT_FIFO_WAIT_S: its reader may be starting.
 * The descriptor or -errno.
 */
static int output_open_special(const char *path, bool fifo)
{
	const struct timespec tick = {.tv_nsec = 10 * 1000 * 1000};
	uint64_t until = time_mono_ns() + (uint64_t)OUTPUT_FIFO_WAIT_S * 1000000000ULL;

	for (;;) {
		int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);

		if (fd >= 0)
			return fd;
		if (errno != ENXIO || !fifo || time_mono_ns() >= until)
			return -errno;
		nanosleep(&tick, NULL);
	}
}

/*
 * A regular file (or a new one) is replaced atomically: the temporary file
 * sits beside its resolved path (same filesystem, so rename is atomic; a
 * symbolic link is kept and its target replaced) and gets the mode a plain
 * create would give (0666 less the umask), not mkstemp's 0600. A terminal, a
 * pipe or a FIFO is written to as it is: replacing /dev/stdout or a FIFO with
 * a regular file would be wrong. A report that does not end in a newline
 * gets one, as on stdout.
 */
int cli_write_output(const char *path, const char *results, const struct strbuf *text)
{
	struct strbuf tmp = STRBUF_INIT;
	int fd = output_fd_of(path), ret = 0;
	char *name = NULL;
	struct stat st;
	mode_t mask;

	/* checked again as it is written: a descriptor (/dev/fd/N) or a name
	 * that only now leads to the results file is refused too */
	if (fd >= 0 && fstat(fd, &st) == 0 && output_is_results(&st, NULL, results))
		goto out_refuse;
	name = path_resolve(path);
	if (stat(path, &st) == 0 ? output_is_results(&st, name, results)
				 : output_is_results(NULL, name, results))
		goto out_refuse;
	free(name);
	name = NULL;
	if (fd >= 0) {
		ret = output_write_fd(fd, text);
		goto out_print;
	}
	if (stat(path, &st) == 0 && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
		fd = output_open_special(path, S_ISFIFO(st.st_mode));
		if (fd < 0) {
			ret = fd;
			if (ret == -ENXIO && S_ISFIFO(st.st_mode)) {
				fprintf(stderr,
					"diskproof: %s: cannot write the report: no process "
					"opened the FIFO for reading within %d s\n",
					path, OUTPUT_FIFO_WAIT_S);
				return DP_EXIT_ENV;
			}
			goto out_print;
		}
		if (fstat(fd, &st) == 0 && output_is_results(&st, NULL, results)) {
			close(fd);
			goto out_refuse;
		}
		/* opened without blocking (a FIFO nobody reads is ENXIO, not a
		 * hang); written blocking, or a report over the pipe's 64 KiB
		 * would fail with EAGAIN while the reader is still reading */
		if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) && !ret)
			ret = -errno;
		if (!ret)
			ret = output_write_fd(fd, text);
		if (close(fd) && !ret)
			ret = -errno;
		goto out_print;
	}
	name = path_resolve(path);
	if (!name) {
		ret = -errno;
		goto out_print;
	}
	strbuf_addf(&tmp, "%s.tmp.XXXXXX", name);
	fd = mkstemp(tmp.buf);
	if (fd < 0) {
		ret = -errno;
		goto out_print;
	}
	mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask))
		ret = -errno;
	if (!ret)
		ret = output_write_fd(fd, text);
	if (!ret && fsync(fd))
		ret = -errno;
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && rename(tmp.buf, name))
		ret = -errno;
	if (ret)
		unlink(tmp.buf);
out_print:
	if (ret)
		fprintf(stderr, "diskproof: %s: cannot write the report: %s\n", path,
			strerror(-ret));
	free(name);
	strbuf_release(&tmp);
	return ret ? DP_EXIT_ENV : 0;
out_refuse:
	fprintf(stderr,
		"diskproof: %s: is the results file %s (or beside it): the report would "
		"replace it; write the report elsewhere\n",
		path, results);
	free(name);
	return DP_EXIT_ENV;
}

/* A run id: digits only, and not the value of --results. */
/* A RUN argument of delete: a selector of the one grammar (N, N,M,...,
 * N..M, series:N, label:TEXT, latest, latest~N), not an option's value. */
static bool arg_is_run_sel(char **argv, int i)
{
	struct store_run_selector sel;
	struct strbuf err = STRBUF_INIT;
	const char *a = argv[i];
	bool ok;

	if (!*a || *a == '-' || (i && !strcmp(argv[i - 1], "--results")))
		return false;
	ok = !store_run_selector_parse(a, &sel, &err);
	strbuf_release(&err);
	return ok;
}

/* Every selector's runs (store_runs_select), each once, into ids (room for
 * n_max). 0, or -ENOENT / a store error with err filled. */
static int delete_resolve(struct store *st, char *const *sels, int nsel, int64_t **ids, int *nids,
			  struct strbuf *err)
{
	int ret = 0;

	for (int i = 0; i < nsel && !ret; i++) {
		struct store_run_set set;
		int64_t *v;

		ret = store_runs_select(st, sels[i], STORE_LABEL_NEWEST, &set, err);
		for (size_t k = 0; !ret && k < set.n; k++) {
			bool dup = false;

			for (int m = 0; m < *nids && !dup; m++)
				dup = (*ids)[m] == set.ids[k];
			if (dup)
				continue;
			v = realloc(*ids, ((size_t)*nids + 1) * sizeof(*v));
			if (!v) {
				strbuf_addstr(err, "delete: out of memory");
				ret = -ENOMEM;
				break;
			}
			*ids = v;
			v[(*nids)++] = set.ids[k];
		}
		store_run_set_release(&set);
	}
	return ret;
}

/*
 * A run still going on this host keeps writing its rows: deleting it would
 * leave a half run behind (or fail it). -EBUSY naming the first such run;
 * a run of another host cannot be told alive from here and may be deleted.
 */
static int delete_refuse_running(struct store *st, const char *results, const int64_t *ids,
				 size_t nids, struct strbuf *err)
{
	struct store_run_brief *runs = NULL;
	char host[256] = "";
	size_t n = 0;
	int ret;

	ret = store_run_list(st, &runs, &n, err);
	if (ret)
		return ret;
	gethostname(host, sizeof(host) - 1);
	for (size_t i = 0; i < n && !ret; i++) {
		const struct store_run_brief *b = &runs[i];
		bool named = false;

		for (size_t k = 0; k < nids; k++)
			named |= ids[k] == b->id;
		/* by the machine, not run.host: a live run --host NAME is this
		 * machine's all the same */
		if (!named || strcmp(b->status, "running") ||
		    strncmp(b->machine, host, sizeof(b->machine) - 1) ||
		    !store_run_process_alive(b->pid))
			continue;
		strbuf_addf(err,
			    "%s: delete: run %lld is still running (diskproof run, pid %lld, "
			    "started %s): let it end, or stop it, first; nothing deleted",
			    results, (long long)b->id, (long long)b->pid, b->started_at);
		ret = -EBUSY;
	}
	free(runs);
	return ret;
}

/*
 * Run ids are taken out of argv before the options are parsed, so that any
 * number of them can be given (cli_opts keeps only a few positionals).
 */
int cli_cmd_delete(int argc, char **argv)
{
	struct strbuf err = STRBUF_INIT;
	struct store *st = NULL;
	int64_t *ids = NULL;
	char **rest = NULL, **sels = NULL;
	struct cli_opts o;
	int ret, i, nids = 0, nrest = 0, nsel = 0;

	sels = calloc((size_t)argc + 1, sizeof(*sels));
	rest = calloc((size_t)argc + 1, sizeof(*rest));
	if (!sels || !rest) {
		fprintf(stderr, "diskproof: delete: out of memory\n");
		ret = DP_EXIT_ENV;
		goto out;
	}
	for (i = 0; i < argc; i++) {
		if (arg_is_run_sel(argv, i))
			sels[nsel++] = argv[i];
		else
			rest[nrest++] = argv[i];
	}
	ret = cli_opts_parse(nrest, rest, CMD_DELETE, &o);
	if (ret)
		goto out;
	if (o.npos) {
		ret = cli_run_arg_check(o.positional[0]);
		goto out;
	}
	if (!nsel) {
		ret = cli_usage_error("delete takes one or more runs (N, N,M,..., N..M, series:N, "
				      "label:TEXT)");
		goto out;
	}
	ret = cli_results_must_exist(o.results);
	if (ret)
		goto out;
	ret = store_open(&st, o.results, &err);
	if (!ret)
		ret = delete_resolve(st, sels, nsel, &ids, &nids, &err);
	if (!ret)
		ret = delete_refuse_running(st, o.results, ids, (size_t)nids, &err);
	if (!ret)
		ret = store_run_delete(st, ids, (size_t)nids, &err);
	if (ret) {
		cli_print_err(err.buf);
		ret = ret == -ENOENT && st ? DP_EXIT_USAGE : DP_EXIT_ENV;
	} else {
		fprintf(stderr, "diskproof: %s: deleted %d run(s)\n", o.results, nids);
	}
out:
	store_close(st);
	strbuf_release(&err);
	free(rest);
	free(sels);
	free(ids);
	return ret;
}

/* What import did: the runs refused (each on its line), then the counts. */
static void import_say(const char *results, const char *other, const struct store_import_counts *n,
		       const struct strbuf *refusals)
{
	const char *line = refusals->buf, *nl;

	for (; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		if (!nl)
			nl = line + strlen(line) - 1;
		fprintf(stderr, "diskproof: %.*s\n", (int)(nl - line), line);
	}
	fprintf(stderr, "diskproof: %s: imported %u run(s) from %s, %u already here", results,
		n->imported, other, n->skipped);
	if (n->replaced)
		fprintf(stderr, ", %u replaced (copied before the run ended)", n->replaced);
	if (n->refused)
		fprintf(stderr, ", %u refused (a value no run writes)", n->refused);
	fputc('\n', stderr);
}

int cli_cmd_import(int argc, char **argv)
{
	struct strbuf err = STRBUF_INIT, refusals = STRBUF_INIT;
	struct store_import_counts n;
	struct store *st = NULL;
	struct cli_opts o;
	struct stat sb;
	int ret;

	ret = cli_opts_parse(argc, argv, CMD_IMPORT, &o);
	if (ret)
		return ret;
	if (o.npos != 1)
		return cli_usage_error(
			"import takes one OTHER.db, the results file to copy runs from");
	/* both files: a regular file (or a new results path), before any open */
	ret = lstat(o.positional[0], &sb) == 0 ? cli_results_path_check(o.positional[0], false) : 0;
	if (!ret)
		ret = cli_results_path_check(o.results, true);
	if (ret)
		return ret;
	if (access(o.positional[0], R_OK) != 0) {
		fprintf(stderr, "diskproof: %s: cannot read: %s\n", o.positional[0],
			strerror(errno));
		return DP_EXIT_ENV;
	}
	ret = store_open(&st, o.results, &err);
	if (!ret)
		ret = store_import(st, o.positional[0], &n, &refusals, &err);
	if (ret) {
		cli_print_err(err.buf);
		ret = DP_EXIT_ENV;
	} else {
		/* the sound runs are imported all the same; a refused one is a
		 * results file unusable in part: exit 3 */
		import_say(o.results, o.positional[0], &n, &refusals);
		ret = n.refused ? DP_EXIT_ENV : 0;
	}
	store_close(st);
	strbuf_release(&err);
	strbuf_release(&refusals);
	return ret;
}

/* fd is a regular file that is the results file or one beside it: said
 * (as "what"), true. */
static bool stdio_is_results(int fd, const char *what, const char *results)
{
	struct stat st;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || !output_is_results(&st, NULL, results))
		return false;
	fprintf(stderr,
		"diskproof: %s is the results file %s (or beside it): its text would "
		"overwrite it; send %s elsewhere\n",
		what, results, what);
	return true;
}

int cli_stdio_check(const char *results)
{
	return stdio_is_results(STDOUT_FILENO, "stdout", results) ||
			       stdio_is_results(STDERR_FILENO, "stderr", results)
		       ? DP_EXIT_ENV
		       : 0;
}

int cli_emit(const char *output, const char *results, const struct strbuf *text, FILE *out)
{
	if (output)
		return cli_write_output(output, results, text);
	if (stdio_is_results(fileno(out), out == stderr ? "stderr" : "stdout", results))
		return DP_EXIT_ENV;
	fputs(text->buf, out);
	if (text->len && text->buf[text->len - 1] != '\n')
		fputc('\n', out);
	if (fflush(out) || ferror(out)) {
		fprintf(stderr, "diskproof: writing the output: %s\n", strerror(errno));
		return DP_EXIT_ENV;
	}
	return 0;
}
