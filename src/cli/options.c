/* SPDX-License-Identifier: MIT */
/*
 * options.c - what the commands share: the option table and its parser, the
 * command line for the run row, colour and signal set-up.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diskproof/analyze.h"
#include "diskproof/check.h"
#include "diskproof/counters.h"
#include "diskproof/engine.h"
#include "diskproof/metrics.h"
#include "diskproof/plan.h"
#include "diskproof/run.h"
#include "diskproof/store.h"

#include "cli.h"

int cli_usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "diskproof: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nrun \"diskproof --help\" for usage\n");
	return DP_EXIT_USAGE;
}

#define CMD_PROFILE_ANY (CMD_RUN | CMD_INIT | CMD_VERIFY | CMD_CLEAN | CMD_PLAN | CMD_CHECK)
#define CMD_RESULTS_ANY                                                                            \
	(CMD_RUN | CMD_REPORT | CMD_LIST | CMD_INIT | CMD_VERIFY | CMD_COMPARE | CMD_PLAN |        \
	 CMD_CHECK | CMD_DELETE | CMD_IMPORT | CMD_FLEET | CMD_FINGERPRINT)

/*
 * Every option, once: the parser builds each command's getopt_long table from
 * it, the usage texts print it, and the tests hold docs/diskproof.1 and the
 * bash completion to it. A new option is one line here and one branch in
 * one of the set_opt_*() functions.
 */
static const struct cli_opt_def opt_defs[] = {
	{"--duration", 0, CLI_ARG_REQUIRED, "D",
	 CMD_RUN | CMD_PLAN | CMD_CHECK | CMD_FINGERPRINT | CMD_LEARN,
	 "measure for D (overrides [test] duration; fingerprint, learn: the window watched)"},
	{"--warmup", 0, CLI_ARG_REQUIRED, "D", CMD_RUN | CMD_PLAN | CMD_CHECK,
	 "warm up for D before measuring (overrides [test] warmup)"},
	{"--engine", 0, CLI_ARG_REQUIRED, "NAME", CMD_RUN | CMD_PLAN | CMD_CHECK,
	 "I/O engine: io_uring, libaio, psync or sim (overrides [engine] name)"},
	{"--streams", 0, CLI_ARG_REQUIRED, "N|auto", CMD_RUN | CMD_PLAN | CMD_CHECK,
	 "I/O streams, 1 to 100000, or auto to let autotune find them"},
	{"--label", 0, CLI_ARG_REQUIRED, "TEXT", CMD_RUN,
	 "store TEXT with the run (select it later as label:TEXT)"},
	{"--data-dir", 0, CLI_ARG_REQUIRED, "DIR", CMD_PROFILE_ANY,
	 "place every volume at DIR/VOLUME (separate logs at DIR/VOLUME-log)"},
	{"--db-size", 0, CLI_ARG_REQUIRED, "SIZE", CMD_PROFILE_ANY,
	 "every database's size (wins over [sizing], capacity included)"},
	{"--quiet", 'q', CLI_ARG_NONE, NULL,
	 CMD_RUN | CMD_INIT | CMD_VERIFY | CMD_FINGERPRINT | CMD_LEARN,
	 "no progress or notes on stderr, only errors"},
	{"--results", 0, CLI_ARG_REQUIRED, "FILE", CMD_RESULTS_ANY,
	 "the results file (default " DEFAULT_RESULTS ")"},
	{"--format", 'f', CLI_ARG_REQUIRED, "FORMAT",
	 CMD_RUN | CMD_LIST | CMD_CHECK | CMD_VERIFY | CMD_PLAN | CMD_REPORT | CMD_COMPARE |
		 CMD_FLEET,
	 "output format"},
	{"--destroy-data", 0, CLI_ARG_REQUIRED, "PATH", CMD_RUN | CMD_INIT,
	 "create the file or device at PATH anew, whatever it holds (repeat for each)"},
	{"--force", 0, CLI_ARG_NONE, NULL, CMD_RUN | CMD_INIT,
	 "with --destroy-data, overwrite a device despite a filesystem, RAID or partition table"},
	{"--no-lock", 0, CLI_ARG_NONE, NULL, CMD_RUN | CMD_INIT | CMD_VERIFY | CMD_CLEAN,
	 "go on when a volume's lock cannot be taken (its lock directory unusable), with a "
	 "warning; a volume another command holds is still refused"},
	{"--precondition", 0, CLI_ARG_NONE, NULL, CMD_INIT,
	 "then overwrite at random until write IOPS settle (SNIA steady state)"},
	{"--deep", 0, CLI_ARG_NONE, NULL, CMD_VERIFY,
	 "regenerate and compare every byte, not only headers and checksums"},
	{"--rate", 0, CLI_ARG_REQUIRED, "BYTES/s", CMD_VERIFY,
	 "read at most BYTES per second (200MiB, say); 0: unlimited"},
	{"--witness", 0, CLI_ARG_REQUIRED, "SPEC", CMD_RUN | CMD_VERIFY,
	 "durability: the witness, a FILE or HOST:PORT (run: where acknowledgements go, over "
	 "[test] witness; verify: classify every page it saw acknowledged)"},
	{"--yes", 0, CLI_ARG_NONE, NULL, CMD_CLEAN,
	 "remove without asking (needed without a terminal)"},
	{"--output", 'o', CLI_ARG_REQUIRED, "FILE",
	 CMD_REPORT | CMD_COMPARE | CMD_FLEET | CMD_FINGERPRINT | CMD_LEARN,
	 "write to FILE (atomically) instead of stdout"},
	{"--data", 0, CLI_ARG_REQUIRED, "PATH", CMD_FINGERPRINT | CMD_LEARN,
	 "watch the devices under PATH as the database's data (repeat for each)"},
	{"--log", 0, CLI_ARG_REQUIRED, "PATH", CMD_FINGERPRINT | CMD_LEARN,
	 "watch the devices under PATH as its log (repeat for each)"},
	{"--transactions", 0, CLI_ARG_REQUIRED, "N", CMD_FINGERPRINT | CMD_LEARN,
	 "the transactions the database made in the window: figures per transaction too"},
	{"--postgres", 0, CLI_ARG_REQUIRED, "CONNINFO", CMD_FINGERPRINT | CMD_LEARN,
	 "read PostgreSQL's counters and settings at the window's ends through libpq (loaded at "
	 "run time): \"host=/run/postgresql dbname=app\"; transactions, WAL bytes and syncs, "
	 "pages"},
	{"--mysql", 0, CLI_ARG_REQUIRED, "SPEC", CMD_FINGERPRINT | CMD_LEARN,
	 "read MariaDB's or MySQL's counters and settings (libmariadb, loaded at run time): "
	 "socket=PATH host= port= user= password= database= defaults-file= group= (~/.my.cnf's "
	 "[client] read too)"},
	{"--from", 0, CLI_ARG_REQUIRED, "FILE", CMD_LEARN,
	 "fit a fingerprint watched before (a learned profile's PROFILE.fingerprint.json, or "
	 "fingerprint -o's) instead of watching; --data and --log still name the volumes' paths"},
	{"--no-trace", 0, CLI_ARG_NONE, NULL, CMD_FINGERPRINT | CMD_LEARN,
	 "do not trace the block layer with BPF (used as root when built in): diskstats only"},
	{"--replay-on", 0, CLI_ARG_REQUIRED, "DIR", CMD_LEARN,
	 "check the learned profile by a short real run in DIR (data; the log too unless "
	 "--replay-log-on), on a device learn does not watch"},
	{"--replay-log-on", 0, CLI_ARG_REQUIRED, "DIR", CMD_LEARN,
	 "with --replay-on: the replay's log in DIR, on a device learn does not watch"},
	{"--replay-seconds", 0, CLI_ARG_REQUIRED, "N", CMD_LEARN,
	 "with --replay-on: the replay's window, 5 to 3600 s (default 20)"},
	{"--keep", 0, CLI_ARG_NONE, NULL, CMD_LEARN,
	 "with --replay-on: keep the replay's files, profile and results (their directory said)"},
	{"--tolerance", 0, CLI_ARG_REQUIRED, "PCT", CMD_FINGERPRINT,
	 "fingerprint compare: a row is off when it differs by more than PCT (default 10)"},
	{"--wide", 0, CLI_ARG_NONE, NULL, CMD_REPORT,
	 "text: every table with all its columns, whatever the width (COLUMNS, the terminal's)"},
	{"--params", 0, CLI_ARG_NONE, NULL, CMD_REPORT,
	 "text: the run's effective parameters (each key, where its value came from)"},
	{"--expect-hosts", 0, CLI_ARG_REQUIRED, "H1,H2,...", CMD_FLEET,
	 "the hosts that should have a run: each with none is listed missing and fails the fleet"},
	{"--min-change", 0, CLI_ARG_REQUIRED, "PCT", CMD_COMPARE,
	 "show changes of at least PCT percent (default 2)"},
	{"--all", 0, CLI_ARG_NONE, NULL, CMD_COMPARE,
	 "every figure, not only the significant and material changes"},
	{"--fail-on-regression", 0, CLI_ARG_OPTIONAL, "PCT", CMD_COMPARE,
	 "exit 1 when a judged figure got significantly worse by more than PCT (default 5)"},
	{"--allow-mixed", 0, CLI_ARG_NONE, NULL, CMD_COMPARE | CMD_FLEET,
	 "put simulated (engine sim) and real runs together; the output's first line says so"},
	{"--status-interval", 0, CLI_ARG_REQUIRED, "D", CMD_RUN,
	 "when stderr is not a terminal, print a status line every D (default 60s)"},
	{"--metrics", 0, CLI_ARG_REQUIRED, "[ADDR:]PORT", CMD_RUN,
	 "serve Prometheus metrics at http://ADDR:PORT/metrics during the run (ADDR defaults to "
	 "127.0.0.1; PORT 0: any free port, printed)"},
	{"--metrics-linger", 0, CLI_ARG_REQUIRED, "D", CMD_RUN,
	 "after the run, serve the final metrics until scraped once or for D (default 75s; 0: "
	 "close at once)"},
	{"--metrics-file", 0, CLI_ARG_REQUIRED, "PATH", CMD_RUN,
	 "write the same metrics to PATH (atomic rename) every interval, for node_exporter's "
	 "textfile collector"},
	{"--start-at", 0, CLI_ARG_REQUIRED, "TIME", CMD_RUN,
	 "prepare, then begin the load at TIME (RFC 3339 UTC, 2026-12-03T16:00:00Z) or +D after "
	 "the command started"},
	{"--ready-file", 0, CLI_ARG_REQUIRED, "PATH", CMD_RUN,
	 "once prepared, write a ready record (host, time, clock) to PATH, atomically"},
	{"--start-file", 0, CLI_ARG_REQUIRED, "PATH", CMD_RUN,
	 "once prepared, wait for a start TIME (as --start-at's) to be written to PATH, then begin "
	 "the load at it"},
	{"--start-timeout", 0, CLI_ARG_REQUIRED, "D", CMD_RUN,
	 "with --start-file, give up (exit 3) when no TIME came within D of being ready "
	 "(default 1h)"},
	{"--max-clock-error", 0, CLI_ARG_REQUIRED, "D", CMD_RUN,
	 "with --start-at or --start-file, warn when the clock is unsynchronised or its max error "
	 "exceeds D (default 50ms)"},
	{"--host", 0, CLI_ARG_REQUIRED, "NAME", CMD_RUN,
	 "record the run under host NAME instead of this machine's hostname"},
	{"--repeat", 0, CLI_ARG_REQUIRED, "N", CMD_RUN,
	 "run the profile N times as one series (1 to 1000; overrides [test] repeat): each run's "
	 "verdict, then the spread of each figure; exits 0 only when every run passed"},
	{"--fresh", 0, CLI_ARG_NONE, NULL, CMD_RUN,
	 "with --repeat, create the database and log files anew before each run after the first"},
	{"--listen", 0, CLI_ARG_REQUIRED, "ADDR:PORT", CMD_WITNESS,
	 "accept writers' batches at ADDR:PORT (0.0.0.0:7000, [::]:7000)"},
	{"--out", 0, CLI_ARG_REQUIRED, "FILE", CMD_WITNESS,
	 "the witness file: created, or appended to (never truncated)"},
	{"--help", 'h', CLI_ARG_NONE, NULL, CMD_ALL | CMD_GLOBAL, "print the usage and exit"},
	{"--version", 'V', CLI_ARG_NONE, NULL, CMD_GLOBAL, "print the version and exit"},
};

const struct cli_opt_def *cli_opt_table(size_t *n)
{
	*n = DP_ARRAY_SIZE(opt_defs);
	return opt_defs;
}

const struct cli_opt_def *cli_opt_find(const char *name, size_t len)
{
	for (size_t k = 0; k < DP_ARRAY_SIZE(opt_defs); k++) {
		const struct cli_opt_def *d = &opt_defs[k];

		if (strlen(d->name) == len && !strncmp(d->name, name, len))
			return d;
		if (d->short_name && len == 2 && name[0] == '-' && name[1] == d->short_name)
			return d;
	}
	return NULL;
}

/* A percentage option's value: a number from 0 to 1000, "%" allowed. */
static int pct_parse(const char *val, double *out, struct strbuf *err)
{
	char *end;
	double v = strtod(val, &end);

	if (end != val && *end == '%')
		end++;
	if (end == val || *end || !(v >= 0 && v <= 1000)) {
		strbuf_addstr(err, "must be a percentage from 0 to 1000 (say 5 or 5%)");
		return -ERANGE;
	}
	*out = v;
	return 0;
}

/* A duration option that must be more than 0. */
static int duration_pos_parse(const char *val, uint64_t *out, struct strbuf *err)
{
	int ret = unit_parse_duration(val, out, err);

	if (!ret && !*out) {
		strbuf_addstr(err, "must be more than 0");
		ret = -ERANGE;
	}
	return ret;
}

/* The options that override the profile (struct profile_overrides); 0 for
 * any other name. */
static int set_opt_override(struct cli_opts *o, const char *name, const char *val,
			    struct strbuf *err)
{
	uint64_t v = 0;
	int ret = 0;

	if (!strcmp(name, "--duration")) {
		ret = unit_parse_duration(val, &o->ov.duration_ns, err);
		o->ov.has_duration = true;
	} else if (!strcmp(name, "--warmup")) {
		ret = unit_parse_duration(val, &o->ov.warmup_ns, err);
		o->ov.has_warmup = true;
	} else if (!strcmp(name, "--engine")) {
		o->ov.engine = val;
	} else if (!strcmp(name, "--streams") && !strcmp(val, "auto")) {
		o->ov.streams = PROFILE_STREAMS_AUTO;
	} else if (!strcmp(name, "--streams")) {
		ret = unit_parse_u64(val, &v, err);
		if (!ret && (v < 1 || v > 100000)) {
			strbuf_addstr(err, "must be between 1 and 100000");
			ret = -ERANGE;
		}
		o->ov.streams = (unsigned)v;
	} else if (!strcmp(name, "--data-dir")) {
		o->ov.data_dir = val;
	} else if (!strcmp(name, "--db-size")) {
		ret = unit_parse_size(val, &o->ov.db_size, err);
		if (!ret && !o->ov.db_size) {
			strbuf_addstr(err, "must be more than 0");
			ret = -ERANGE;
		}
	}
	return ret;
}

/* The options the commands share, and those of init, verify, clean,
 * report, compare and fleet; 0 for any other name. */
static int set_opt_common(struct cli_opts *o, const char *name, const char *val, struct strbuf *err)
{
	int ret = 0;

	if (!strcmp(name, "--label")) {
		o->label = val;
	} else if (!strcmp(name, "--quiet")) {
		o->quiet = true;
	} else if (!strcmp(name, "--results")) {
		o->results = val;
	} else if (!strcmp(name, "--format")) {
		o->format = val;
	} else if (!strcmp(name, "--destroy-data")) {
		if (!*val) { /* --destroy-data="$DEV" with DEV unset */
			strbuf_addstr(err, "needs a PATH (the device or file it may overwrite)");
			ret = -EINVAL;
		} else if (o->ndestroy == DP_ARRAY_SIZE(o->destroy)) {
			strbuf_addstr(err, "given too many times");
			ret = -E2BIG;
		} else {
			o->destroy[o->ndestroy++] = val;
		}
	} else if (!strcmp(name, "--force")) {
		o->force = true;
	} else if (!strcmp(name, "--no-lock")) {
		o->no_lock = true;
	} else if (!strcmp(name, "--precondition")) {
		o->precondition = true;
	} else if (!strcmp(name, "--deep")) {
		o->deep = true;
	} else if (!strcmp(name, "--rate")) {
		ret = unit_parse_size(val, &o->rate, err);
	} else if (!strcmp(name, "--witness")) {
		o->ov.witness = val;
	} else if (!strcmp(name, "--yes")) {
		o->yes = true;
	} else if (!strcmp(name, "--output")) {
		o->output = val;
	} else if (!strcmp(name, "--expect-hosts")) {
		o->expect_hosts = val;
		if (!*val || strstr(val, ",,") || val[0] == ',' || val[strlen(val) - 1] == ',') {
			strbuf_addstr(err, "needs host names separated by commas (h1,h2,h3)");
			ret = -EINVAL;
		}
	} else if (!strcmp(name, "--min-change")) {
		ret = pct_parse(val, &o->min_change_pct, err);
		o->has_min_change = true;
	} else if (!strcmp(name, "--all")) {
		o->all = true;
	} else if (!strcmp(name, "--wide")) {
		o->wide = true;
	} else if (!strcmp(name, "--params")) {
		o->params = true;
	} else if (!strcmp(name, "--allow-mixed")) {
		o->allow_mixed = true;
	} else if (!strcmp(name, "--listen") || !strcmp(name, "--out")) {
		*(!strcmp(name, "--out") ? &o->out : &o->listen) = val;
		if (!*val) {
			strbuf_addstr(err,
				      name[2] == 'o' ? "needs a file name" : "needs ADDR:PORT");
			ret = -EINVAL;
		}
	} else if (!strcmp(name, "--data") || !strcmp(name, "--log")) {
		bool data = !strcmp(name, "--data");
		size_t *n = data ? &o->ndata : &o->nlog;

		if (!*val) {
			strbuf_addstr(err, "needs a PATH");
			ret = -EINVAL;
		} else if (*n == DP_ARRAY_SIZE(o->data)) {
			strbuf_addstr(err, "given too many times");
			ret = -E2BIG;
		} else {
			(data ? o->data : o->log)[(*n)++] = val;
		}
	} else if (!strcmp(name, "--postgres") || !strcmp(name, "--mysql")) {
		if (o->postgres || o->mysql) {
			strbuf_addstr(err, "one database at a time: --postgres or --mysql, once");
			ret = -EINVAL;
		}
		*(name[2] == 'p' ? &o->postgres : &o->mysql) = val;
	} else if (!strcmp(name, "--transactions")) {
		char *end;

		o->transactions = strtod(val, &end);
		if (end == val || *end || !(o->transactions >= 0 && o->transactions < 1e15)) {
			strbuf_addstr(err, "needs a number of transactions, 0 or more");
			ret = -EINVAL;
		}
	} else if (!strcmp(name, "--no-trace")) {
		o->no_trace = true;
	} else if (!strcmp(name, "--from")) {
		o->from = val;
	} else if (!strcmp(name, "--tolerance")) {
		ret = pct_parse(val, &o->tolerance_pct, err);
		o->has_tolerance = true;
	} else if (!strcmp(name, "--fail-on-regression")) {
		o->gate = true;
		o->gate_pct = ANALYZE_REGRESSION_DEFAULT;
		if (val)
			ret = pct_parse(val, &o->gate_pct, err);
	}
	return ret;
}

/* learn's --replay-on options (learn_replay.c); 0 for any other name. */
static int set_opt_replay(struct cli_opts *o, const char *name, const char *val, struct strbuf *err)
{
	int ret = 0;

	if (!strcmp(name, "--replay-on") || !strcmp(name, "--replay-log-on")) {
		*(name[9] == 'o' ? &o->replay_on : &o->replay_log_on) = val;
		if (!*val) {
			strbuf_addstr(err, "needs a directory");
			ret = -EINVAL;
		}
	} else if (!strcmp(name, "--replay-seconds")) {
		uint64_t n = 0;

		ret = val[strspn(val, "0123456789")] || !*val ? -EINVAL
							      : unit_parse_u64(val, &n, err);
		if (ret || n < 5 || n > 3600) {
			strbuf_reset(err);
			strbuf_addstr(err, "needs a whole number of seconds, 5 to 3600");
			ret = -EINVAL;
		}
		o->replay_seconds = (unsigned)n;
	} else if (!strcmp(name, "--keep")) {
		o->keep = true;
	}
	return ret;
}

/* run's own options: metrics, the fleet start, the host, the status
 * interval; 0 for any other name. */
static int set_opt_run(struct cli_opts *o, const char *name, const char *val, struct strbuf *err)
{
	int ret = 0;

	if (!strcmp(name, "--metrics")) {
		struct metrics_addr a;

		ret = metrics_addr_parse(val, &a, err);
		o->metrics = val;
	} else if (!strcmp(name, "--metrics-linger")) {
		ret = unit_parse_duration(val, &o->metrics_linger_ns, err);
		o->has_metrics_linger = true;
	} else if (!strcmp(name, "--metrics-file")) {
		o->metrics_file = val;
		if (!*val) {
			strbuf_addstr(err, "needs a file name");
			ret = -EINVAL;
		}
	} else if (!strcmp(name, "--start-at")) {
		ret = time_parse_start_at(val, &o->start_at_abs_ns, &o->start_at_rel_ns, err);
		o->has_start_at = !ret;
	} else if (!strcmp(name, "--ready-file") || !strcmp(name, "--start-file")) {
		if (!strcmp(name, "--ready-file"))
			o->ready_file = val;
		else
			o->start_file = val;
		if (!*val) {
			strbuf_addstr(err, "needs a file name");
			ret = -EINVAL;
		}
	} else if (!strcmp(name, "--start-timeout")) {
		ret = duration_pos_parse(val, &o->start_timeout_ns, err);
		o->has_start_timeout = true;
	} else if (!strcmp(name, "--max-clock-error")) {
		ret = unit_parse_duration(val, &o->max_clock_error_ns, err);
		o->has_max_clock_error = true;
	} else if (!strcmp(name, "--host")) {
		o->host = val;
		if (!*val || strlen(val) > 255) {
			strbuf_addstr(err, "needs a name of 1 to 255 characters");
			ret = -EINVAL;
		}
	} else if (!strcmp(name, "--repeat")) {
		uint64_t n = 0;

		/* digits only: "-1" and "3x" are not N */
		ret = val[strspn(val, "0123456789")] || !*val ? -EINVAL
							      : unit_parse_u64(val, &n, err);
		if (ret == -EINVAL && !err->len)
			strbuf_addstr(err, "needs a whole number of runs, 1 to 1000");
		else if (!ret && (n < 1 || n > STORE_SERIES_MAX)) {
			strbuf_addf(err, "must be between 1 and %d", STORE_SERIES_MAX);
			ret = -ERANGE;
		}
		o->repeat = (unsigned)n;
		o->ov.repeat = o->repeat; /* over [test] repeat */
	} else if (!strcmp(name, "--fresh")) {
		o->fresh = true;
	} else if (!strcmp(name, "--status-interval")) {
		ret = duration_pos_parse(val, &o->status_interval_ns, err);
		o->has_status_interval = true;
	}
	return ret;
}

/* One option of the table into o: each name is handled by exactly one of
 * the three. 0, or the message printed and DP_EXIT_USAGE. */
static int set_opt(struct cli_opts *o, const char *name, const char *val)
{
	struct strbuf err = STRBUF_INIT;
	int ret;

	ret = set_opt_override(o, name, val, &err);
	if (!ret)
		ret = set_opt_common(o, name, val, &err);
	if (!ret)
		ret = set_opt_run(o, name, val, &err);
	if (!ret)
		ret = set_opt_replay(o, name, val, &err);
	if (ret && !strcmp(name, "--start-at")) /* its message quotes the value */
		fprintf(stderr, "diskproof: %s: %s\n", name, err.buf);
	else if (ret)
		fprintf(stderr, "diskproof: %s %s: %s\n", name, val ? val : "", err.buf);
	strbuf_release(&err);
	return ret ? DP_EXIT_USAGE : 0;
}

/* Is a (an argument as given) one of the options, of any command? "--opt",
 * "--opt=...", or a short one with anything after it ("-q", "-qo"). */
static bool opt_known(const char *a)
{
	const char *eq = strchr(a, '=');

	if (a[0] == '-' && a[1] == '-')
		return cli_opt_find(a, eq ? (size_t)(eq - a) : strlen(a)) != NULL;
	return a[0] == '-' && a[1] && cli_opt_find(a, 2) != NULL;
}

/* The only long option of command that word (as typed, with its dashes) is
 * a prefix of, or NULL: getopt_long would take it; we say the whole name. */
static const struct cli_opt_def *opt_prefix_of(const char *word, unsigned command)
{
	const struct cli_opt_def *found = NULL;
	size_t n = strlen(word);

	if (n < 3)
		return NULL;
	for (size_t k = 0; k < DP_ARRAY_SIZE(opt_defs); k++) {
		if (!(opt_defs[k].commands & command) || strncmp(opt_defs[k].name, word, n))
			continue;
		if (found)
			return NULL;
		found = &opt_defs[k];
	}
	return found;
}

/* The option nearest word within 2 edits among those of the commands in
 * mask, or NULL. */
static const struct cli_opt_def *opt_nearest(const char *word, unsigned mask)
{
	const struct cli_opt_def *best = NULL;
	unsigned bd = 3, d;

	for (size_t k = 0; k < DP_ARRAY_SIZE(opt_defs); k++) {
		if (!(opt_defs[k].commands & mask))
			continue;
		d = util_edit_distance(word, opt_defs[k].name);
		if (d < bd) {
			bd = d;
			best = &opt_defs[k];
		}
	}
	return best;
}

/*
 * An unknown option (a as typed, its name nlen long), or one of another
 * command: the usage error, saying which commands take it, or the whole
 * name of an abbreviation, or the nearest option within 2 edits (of this
 * command first, then of any other, naming it).
 */
static int opt_unknown(const char *a, size_t nlen, unsigned command)
{
	struct strbuf cmds = STRBUF_INIT, where = STRBUF_INIT;
	const struct cli_opt_def *d;
	char word[64];
	int ret;

	snprintf(word, sizeof(word), "%.*s", (int)(nlen < 63 ? nlen : 63), a);
	if (command != CMD_GLOBAL)
		strbuf_addf(&where, " for %s", cli_command_name(command));
	if ((d = cli_opt_find(word, strlen(word))) != NULL && (d->commands & CMD_ALL)) {
		cli_commands_describe(&cmds, d->commands);
		ret = cli_usage_error("unknown option \"%s\"%s: %s is an option of %s", a,
				      where.buf, word, cmds.buf);
	} else if (d && command != CMD_GLOBAL) { /* --version */
		ret = cli_usage_error("unknown option \"%s\"%s: it goes before the command "
				      "(diskproof %s)",
				      a, where.buf, word);
	} else if (word[1] == '-' && (d = opt_prefix_of(word, command)) != NULL) {
		ret = cli_usage_error("unknown option \"%s\"%s; options are never abbreviated: "
				      "did you mean %s?",
				      a, where.buf, d->name);
	} else if ((d = opt_nearest(word, command)) != NULL) {
		ret = cli_usage_error("unknown option \"%s\"%s; did you mean %s?", a, where.buf,
				      d->name);
	} else if ((d = opt_nearest(word, CMD_ALL)) != NULL) {
		cli_commands_describe(&cmds, d->commands);
		ret = cli_usage_error("unknown option \"%s\"%s; did you mean %s (an option of %s)?",
				      a, where.buf, d->name, cmds.buf);
	} else {
		ret = cli_usage_error("unknown option \"%s\"%s", a, where.buf);
	}
	strbuf_release(&cmds);
	strbuf_release(&where);
	return ret;
}

static int add_positional(struct cli_opts *o, const char *a)
{
	if (o->npos == (int)DP_ARRAY_SIZE(o->positional))
		return cli_usage_error("unexpected argument \"%s\"", a);
	o->positional[o->npos++] = a;
	return 0;
}

/* getopt_long's val for opt_defs[k]: past every character. */
#define OPT_VAL_BASE 256

/* The table entry getopt_long returned c for. */
static const struct cli_opt_def *opt_of_val(int c)
{
	if (c >= OPT_VAL_BASE && c < OPT_VAL_BASE + (int)DP_ARRAY_SIZE(opt_defs))
		return &opt_defs[c - OPT_VAL_BASE];
	for (size_t k = 0; k < DP_ARRAY_SIZE(opt_defs); k++)
		if (c > 0 && opt_defs[k].short_name == c)
			return &opt_defs[k];
	return NULL;
}

/* getopt_long's '?' (opt is its optopt, a its argument): an unknown short
 * option, an unknown long one, or a value given to one that takes none. */
static int opt_refused(int opt, const char *a, unsigned command)
{
	const struct cli_opt_def *d = opt_of_val(opt);
	char s[3] = {'-', (char)opt, 0};

	if (opt >= OPT_VAL_BASE && d)
		return cli_usage_error("option %s takes no value", d->name);
	if (opt > 0 && opt < OPT_VAL_BASE)
		return opt_unknown(s, 2, command);
	return opt_unknown(a, strcspn(a, "="), command);
}

/*
 * The element av[cur] getopt_long is about to read, when a long option:
 * getopt_long would accept an unambiguous abbreviation, which a later
 * option could make ambiguous under a script's feet (and --destroy-data
 * must be typed in full), so a long option must name one of this
 * command's whole.
 */
static int opt_long_check(const char *a, unsigned command)
{
	size_t nlen = strcspn(a, "=");
	const struct cli_opt_def *d = cli_opt_find(a, nlen);

	if (d && (d->commands & command))
		return 0;
	return opt_unknown(a, nlen, command);
}

/* The value of option d is the next argument a: refused when a is an option
 * itself ("--label --quiet": the value was forgotten). */
static int opt_value_check(const struct cli_opt_def *d, const char *a)
{
	if (!opt_known(a))
		return 0;
	return cli_usage_error("option %s needs a value (got the option %s; write %s=%s to mean it "
			       "as the value)",
			       d->name, a, d->name, a);
}

/*
 * "--fail-on-regression 3": a percentage (the gate would silently stay at
 * its default) or a run (taken as one)? Neither guess is safe for a CI gate.
 * next is the argument after the option (NULL at the end).
 */
static int opt_optional_check(const struct cli_opt_def *d, const char *next)
{
	if (!next || !*next || strspn(next, "0123456789.%") != strlen(next))
		return 0;
	return cli_usage_error(
		"%s %s: write the percentage as %s=%s, or put the run before the option", d->name,
		next, d->name, next);
}

int cli_opts_parse(int argc, char **argv, unsigned command, struct cli_opts *o)
{
	struct option lo[DP_ARRAY_SIZE(opt_defs) + 1];
	char shorts[3 + 2 * DP_ARRAY_SIZE(opt_defs)];
	size_t nlo = 0, ns = 0;
	int ret = 0, ac = argc + 1, c;
	char **av;

	memset(o, 0, sizeof(*o));
	o->results = DEFAULT_RESULTS;
	o->transactions = -1;
	shorts[ns++] = '-'; /* positionals in order, whatever POSIXLY_CORRECT says */
	shorts[ns++] = ':'; /* a missing value is ':', not '?' */
	for (size_t k = 0; k < DP_ARRAY_SIZE(opt_defs); k++) {
		const struct cli_opt_def *d = &opt_defs[k];

		if (!(d->commands & command))
			continue;
		lo[nlo++] = (struct option){d->name + 2,
					    d->arg == CLI_ARG_NONE	 ? no_argument
					    : d->arg == CLI_ARG_REQUIRED ? required_argument
									 : optional_argument,
					    NULL, OPT_VAL_BASE + (int)k};
		if (d->short_name) {
			shorts[ns++] = d->short_name;
			if (d->arg == CLI_ARG_REQUIRED)
				shorts[ns++] = ':';
		}
	}
	lo[nlo] = (struct option){0};
	shorts[ns] = '\0';
	/* getopt_long reads from av[1]: the command's arguments after a name */
	av = malloc(sizeof(*av) * ((size_t)ac + 1));
	if (!av) {
		fprintf(stderr, "diskproof: out of memory\n");
		return DP_EXIT_ENV;
	}
	av[0] = (char *)"diskproof";
	memcpy(av + 1, argv, sizeof(*av) * (size_t)argc);
	av[ac] = NULL;
	optind = 0; /* glibc: start afresh, the previous parse forgotten */
	opterr = 0;
	while (!ret) {
		int cur = optind ? optind : 1; /* not inside "-qo": those start with one '-' */
		const struct cli_opt_def *d;

		if (cur < ac && av[cur][0] == '-' && av[cur][1] == '-' && av[cur][2]) {
			ret = opt_long_check(av[cur], command);
			if (ret)
				break;
		}
		c = getopt_long(ac, av, shorts, lo, NULL);
		if (c == -1)
			break;
		if (c == 1) {
			ret = add_positional(o, optarg);
			continue;
		}
		if (c == '?') {
			ret = opt_refused(optopt, av[optind - 1], command);
			break;
		}
		d = opt_of_val(c == ':' ? optopt : c);
		if (c == ':' || !d) {
			ret = cli_usage_error("option %s needs a value",
					      d ? d->name : av[optind - 1]);
			break;
		}
		if (d->arg == CLI_ARG_REQUIRED && optarg == av[optind - 1])
			ret = opt_value_check(d, optarg);
		else if (d->arg == CLI_ARG_OPTIONAL && !optarg)
			ret = opt_optional_check(d, optind < ac ? av[optind] : NULL);
		if (!ret && d->short_name == 'h') {
			cli_usage_command(stdout, command);
			ret = CLI_EXIT_HELP;
		}
		if (!ret)
			ret = set_opt(o, d->name, optarg);
	}
	/* after "--" every argument is a positional, "-x.ini" too */
	for (int i = optind; !ret && i < ac; i++)
		ret = add_positional(o, av[i]);
	free(av);
	return ret;
}

/* The command line as typed, for the run row. */
char *cli_argv_join(int argc, char **argv)
{
	struct strbuf sb = STRBUF_INIT;

	for (int i = 0; i < argc; i++) {
		if (i)
			strbuf_addch(&sb, ' ');
		if (strpbrk(argv[i], " \t'\"$") || !argv[i][0]) {
			strbuf_addch(&sb, '\'');
			for (const char *p = argv[i]; *p; p++) {
				if (*p == '\'')
					strbuf_addstr(&sb, "'\\''");
				else
					strbuf_addch(&sb, *p);
			}
			strbuf_addch(&sb, '\'');
		} else {
			strbuf_addstr(&sb, argv[i]);
		}
	}
	return strbuf_detach(&sb, NULL);
}

bool cli_use_color(FILE *f)
{
	const char *nc = getenv("NO_COLOR");

	return isatty(fileno(f)) && !(nc && nc[0]);
}

/*
 * SIGINT and SIGTERM arrive through a signalfd read by the coordinator. The
 * default disposition is restored first: a signal ignored at exec (a
 * background job of a script) would otherwise never be queued.
 */
static int signals_block(bool run)
{
	sigset_t set;

	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	if (run) {
		/* blocked before their default comes back: one that arrives now
		 * waits for the signalfd instead of ending the process. Default,
		 * not ignored (nohup ignores SIGHUP): only then are they queued */
		sigaddset(&set, SIGHUP);
		sigaddset(&set, SIGUSR1);
		sigprocmask(SIG_BLOCK, &set, NULL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGUSR1, SIG_DFL);
		signal(SIGPIPE, SIG_IGN);
	}
	int fd;

	if (sigprocmask(SIG_BLOCK, &set, NULL))
		return -1;
	fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (fd < 0) /* nobody would read them: let them act as usual */
		sigprocmask(SIG_UNBLOCK, &set, NULL);
	if (fd < 0 && run) { /* but a hangup must not end the run */
		signal(SIGHUP, SIG_IGN);
		signal(SIGUSR1, SIG_IGN);
	}
	return fd;
}

int cli_signals_setup(void)
{
	return signals_block(false);
}

int cli_signals_setup_run(void)
{
	return signals_block(true);
}

/* msg on stderr, each of its lines after "diskproof: " and prefix */
/* Each line of msg as "diskproof: PREFIX LINE"; with wrap, a line longer
 * than the width (cli_width) goes on under itself, broken at a space. */
static void print_lines(const char *prefix, const char *msg, bool wrap)
{
	struct strbuf sb = STRBUF_INIT;

	/* one "diskproof: " per line: several errors never read as one */
	do {
		const char *nl = strchr(msg, '\n');
		int len = nl ? (int)(nl - msg) : (int)strlen(msg);

		if (len)
			strbuf_addf(&sb, "diskproof: %s%.*s\n", prefix, len, msg);
		msg += len + (nl != NULL);
	} while (*msg);
	if (wrap)
		strbuf_wrap_lines(&sb, 0, cli_width(stderr));
	fputs(sb.buf, stderr);
	strbuf_release(&sb);
}

/* An error stays one line whatever its length: "FILE:LINE: [section] key:
 * message" is read by tools as it is. */
void cli_print_err(const char *msg)
{
	print_lines("", msg, false);
}

void cli_print_warnings(const char *msg)
{
	print_lines("warning: ", msg, true);
}

int cli_signals_read(int fd)
{
	struct signalfd_siginfo si;
	int signo = 0;

	if (fd < 0)
		return 0;
	while (read(fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGHUP)
			progress_term_hangup();
		else if (si.ssi_signo != SIGUSR1 && !signo)
			signo = (int)si.ssi_signo;
	}
	return signo;
}

int cli_signals_finish(int fd)
{
	sigset_t set;
	int signo;

	if (fd < 0)
		return 0;
	signo = cli_signals_read(fd);
	close(fd);
	/* from now on a signal acts as usual: nothing can swallow it */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	return signo;
}

int cli_profile_load(int argc, char **argv, unsigned command, const char *name, struct cli_opts *o,
		     struct profile *p)
{
	struct strbuf err = STRBUF_INIT;
	int ret;

	ret = cli_opts_parse(argc, argv, command, o);
	if (ret)
		return ret;
	if (o->npos > 1)
		return cli_usage_error("%s takes one PROFILE, got also \"%s\"", name,
				       o->positional[1]);
	ret = profile_resolve(p, o->npos ? o->positional[0] : NULL, &err);
	if (!ret)
		ret = profile_apply_overrides(p, &o->ov, &err);
	if (ret) {
		fprintf(stderr, "%s\n", err.buf);
		ret = DP_EXIT_USAGE;
	}
	strbuf_release(&err);
	if (!ret && o->ov.db_size)
		p->capacity_pct = 0; /* the command line wins, as over mailboxes */
	/* a learned profile's fingerprint: there and one (docs/learn.md) */
	if (!ret && (command & (CMD_RUN | CMD_CHECK | CMD_PLAN)))
		ret = cli_fingerprint_check(p);
	/* --results names a regular file or a new path, before anything else */
	if (!ret && (command & (CMD_RUN | CMD_INIT | CMD_VERIFY)))
		ret = cli_results_path_check(o->results, true);
	if (!ret && (command & (CMD_RUN | CMD_INIT | CMD_VERIFY)) && !engine_simulated(p->engine))
		ret = cli_nofile_raise(profile_database_count(p));
	return ret;
}

int cli_nofile_raise(unsigned databases)
{
	rlim_t want = env_nofile_need(databases);
	struct rlimit rl, up;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return 0; /* cannot tell: the opens will say */
	if (rl.rlim_cur < rl.rlim_max) {
		/* an unlimited hard limit is still capped by fs.nr_open: ask for
		 * what is needed when the hard limit itself is refused */
		up = (struct rlimit){rl.rlim_max, rl.rlim_max};
		if (setrlimit(RLIMIT_NOFILE, &up) == 0) {
			rl.rlim_cur = rl.rlim_max;
		} else if (want > rl.rlim_cur && want <= rl.rlim_max) {
			up.rlim_cur = want;
			if (setrlimit(RLIMIT_NOFILE, &up) == 0)
				rl.rlim_cur = want;
		}
	}
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= want)
		return 0;
	fprintf(stderr,
		"diskproof: %u database(s) need about %llu open files (2 per database, and 64 "
		"more), but the limit is %llu (hard limit %llu): raise it (ulimit -n, or "
		"LimitNOFILE= for a service) or test fewer databases\n",
		databases, (unsigned long long)want, (unsigned long long)rl.rlim_cur,
		rl.rlim_max == RLIM_INFINITY ? (unsigned long long)rl.rlim_cur
					     : (unsigned long long)rl.rlim_max);
	return DP_EXIT_ENV;
}

int cli_plan_space_check(const struct plan *pl)
{
	struct strbuf err = STRBUF_INIT;
	struct plan_space sp = {0};
	int ret;

	if (!pl->files)
		return 0;
	ret = plan_space_measure(pl, &sp, &err);
	if (!ret)
		ret = plan_space_check(&sp, &err);
	if (ret) {
		cli_print_err(err.buf);
		ret = DP_EXIT_ENV;
	}
	plan_space_release(&sp);
	strbuf_release(&err);
	return ret;
}

uint64_t cli_mem_available(void)
{
	char buf[8192];
	uint64_t avail = 0;
	ssize_t n;
	int fd = open("/proc/meminfo", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return counters_parse_meminfo(buf, &avail) ? 0 : avail;
}

int cli_memory_check(const struct plan *pl, const struct profile *p)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT, c = STRBUF_INIT, d = STRBUF_INIT,
		      e = STRBUF_INIT;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct run_memory m;
	uint64_t avail = cli_mem_available();

	run_memory_estimate(pl, p, cpus > 0 ? (unsigned)cpus : 1, &m);
	if (!avail || m.total <= avail)
		return 0;
	unit_format_size(&a, m.total);
	unit_format_size(&b, avail);
	unit_format_size(&c, m.pages);
	unit_format_size(&d, m.databases);
	unit_format_size(&e, m.buffers);
	fprintf(stderr,
		"diskproof: the run needs about %s of memory, this host has %s available "
		"(MemAvailable): %zu database(s) take %s of per-database state and %s of "
		"per-page maps, the I/O buffers %s; test fewer or smaller databases (or fewer "
		"streams), or on a host with more memory\n",
		a.buf, b.buf, pl->nr_dbs, d.buf, c.buf, e.buf);
	strbuf_release(&a);
	strbuf_release(&b);
	strbuf_release(&c);
	strbuf_release(&d);
	strbuf_release(&e);
	return DP_EXIT_ENV;
}

int cli_space_preflight(const struct profile *p, const char *results)
{
	struct strbuf err = STRBUF_INIT;
	struct plan pl = {0};
	bool files = !engine_simulated(p->engine);
	int ret;

	ret = plan_build(&pl, p, files, &err);
	pl.results = results;
	pl.results_reserve = STORE_MIN_FREE;
	if (ret) {
		cli_print_err(err.buf);
		ret = ret == -EINVAL ? DP_EXIT_USAGE : DP_EXIT_ENV; /* a layout that cannot be */
	} else {
		ret = cli_plan_space_check(&pl);
		if (!ret)
			ret = cli_memory_check(&pl, p);
	}
	plan_release(&pl);
	strbuf_release(&err);
	return ret;
}

int cli_results_path_check(const char *results, bool may_create)
{
	struct strbuf err = STRBUF_INIT, real = STRBUF_INIT;
	int ret;

	ret = store_path_check(results, may_create, &real, NULL, &err);
	if (ret)
		cli_print_err(err.buf);
	strbuf_release(&err);
	strbuf_release(&real);
	return ret ? DP_EXIT_ENV : 0;
}

int cli_results_must_exist(const char *results)
{
	struct stat st;

	if (lstat(results, &st) == 0)
		return cli_results_path_check(results, false);
	fprintf(stderr,
		"diskproof: %s: no results file here (run \"diskproof run\" first, or pass "
		"--results FILE)\n",
		results);
	return DP_EXIT_ENV;
}

int cli_run_arg_check(const char *s)
{
	struct store_run_selector sel;
	struct strbuf err = STRBUF_INIT;
	int ret;

	ret = store_run_selector_parse(s, &sel, &err);
	if (ret)
		cli_usage_error("%s", err.buf);
	strbuf_release(&err);
	return ret ? DP_EXIT_USAGE : 0;
}
