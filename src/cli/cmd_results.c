/*
 * cmd_results.c - commands that manage the results file rather than make
 * runs: "diskproof delete RUN..." and "diskproof import OTHER.db", and the
 * atomic file output of "report -o FILE" (cli_write_output).
 *
 * delete and import take only --results; they parse with the option mask of
 * "list", the one command whose only option is --results.
 *
 * Exit codes: 0 done, 2 usage error or unknown run id (nothing deleted),
 * 3 the results file (or the other file of import) cannot be used.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diskproof/run.h"
#include "diskproof/store.h"

#include "cli.h"

/*
 * The temporary file sits beside path (same filesystem, so rename is atomic)
 * and gets the mode a plain create would give (0666 less the umask), not
 * mkstemp's 0600. A report that does not end in a newline gets one, as on
 * stdout.
 */
int cli_write_output(const char *path, const struct strbuf *text)
{
	struct strbuf tmp = STRBUF_INIT;
	bool nl = text->len && text->buf[text->len - 1] != '\n';
	size_t off = 0, len = text->len + nl;
	mode_t mask;
	ssize_t n;
	int fd, ret = 0;

	strbuf_addf(&tmp, "%s.tmp.XXXXXX", path);
	fd = mkstemp(tmp.buf);
	if (fd < 0) {
		ret = -errno;
		goto out_print;
	}
	mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask))
		ret = -errno;
	while (!ret && off < len) {
		if (off < text->len)
			n = write(fd, text->buf + off, text->len - off);
		else
			n = write(fd, "\n", 1);
		if (n < 0 && errno != EINTR)
			ret = -errno;
		else if (n > 0)
			off += (size_t)n;
	}
	if (!ret && fsync(fd))
		ret = -errno;
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && rename(tmp.buf, path))
		ret = -errno;
	if (ret)
		unlink(tmp.buf);
out_print:
	if (ret)
		fprintf(stderr, "diskproof: %s: cannot write the report: %s\n", path,
			strerror(-ret));
	strbuf_release(&tmp);
	return ret ? DP_EXIT_ENV : 0;
}

/* A run id: digits only, and not the value of --results. */
static bool arg_is_run_id(char **argv, int i)
{
	const char *a = argv[i];

	if (!*a || (i && !strcmp(argv[i - 1], "--results")))
		return false;
	return strspn(a, "0123456789") == strlen(a);
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
		if (!named || strcmp(b->status, "running") ||
		    strncmp(b->host, host, sizeof(b->host) - 1) || !store_run_process_alive(b->pid))
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
int cmd_delete(int argc, char **argv)
{
	struct strbuf err = STRBUF_INIT;
	struct store *st = NULL;
	int64_t *ids = NULL;
	char **rest = NULL;
	struct cli_opts o;
	int ret, i, nids = 0, nrest = 0;

	ids = calloc((size_t)argc + 1, sizeof(*ids));
	rest = calloc((size_t)argc + 1, sizeof(*rest));
	if (!ids || !rest) {
		fprintf(stderr, "diskproof: delete: out of memory\n");
		ret = DP_EXIT_ENV;
		goto out;
	}
	for (i = 0; i < argc; i++) {
		if (arg_is_run_id(argv, i))
			ids[nids++] = strtoll(argv[i], NULL, 10);
		else
			rest[nrest++] = argv[i];
	}
	ret = parse_opts(nrest, rest, CMD_LIST, &o);
	if (ret)
		goto out;
	if (o.npos) {
		ret = usage_error("RUN-ID must be a run number, not \"%s\"", o.positional[0]);
		goto out;
	}
	if (!nids) {
		ret = usage_error("delete takes one or more RUN-IDs");
		goto out;
	}
	ret = cli_results_must_exist(o.results);
	if (ret)
		goto out;
	ret = store_open(&st, o.results, &err);
	if (!ret)
		ret = delete_refuse_running(st, o.results, ids, (size_t)nids, &err);
	if (!ret)
		ret = store_run_delete(st, ids, (size_t)nids, &err);
	if (ret) {
		fprintf(stderr, "diskproof: %s\n", err.buf);
		ret = ret == -ENOENT ? DP_EXIT_USAGE : DP_EXIT_ENV;
	} else {
		fprintf(stderr, "diskproof: %s: deleted %d run(s)\n", o.results, nids);
	}
out:
	store_close(st);
	strbuf_release(&err);
	free(rest);
	free(ids);
	return ret;
}

int cmd_import(int argc, char **argv)
{
	struct strbuf err = STRBUF_INIT;
	struct store *st = NULL;
	unsigned imported, skipped;
	struct cli_opts o;
	int ret;

	ret = parse_opts(argc, argv, CMD_LIST, &o);
	if (ret)
		return ret;
	if (o.npos != 1)
		return usage_error("import takes one OTHER.db, the results file to copy runs from");
	if (access(o.positional[0], R_OK) != 0) {
		fprintf(stderr, "diskproof: %s: cannot read: %s\n", o.positional[0],
			strerror(errno));
		return DP_EXIT_ENV;
	}
	ret = store_open(&st, o.results, &err);
	if (!ret)
		ret = store_import(st, o.positional[0], &imported, &skipped, &err);
	if (ret) {
		fprintf(stderr, "diskproof: %s\n", err.buf);
		ret = DP_EXIT_ENV;
	} else {
		fprintf(stderr, "diskproof: %s: imported %u run(s) from %s, %u already here\n",
			o.results, imported, o.positional[0], skipped);
	}
	store_close(st);
	strbuf_release(&err);
	return ret;
}

int cli_emit(const char *output, const struct strbuf *text, FILE *out)
{
	if (output)
		return cli_write_output(output, text);
	fputs(text->buf, out);
	if (text->len && text->buf[text->len - 1] != '\n')
		fputc('\n', out);
	if (fflush(out) || ferror(out)) {
		fprintf(stderr, "diskproof: writing the output: %s\n", strerror(errno));
		return DP_EXIT_ENV;
	}
	return 0;
}
