/*
 * options.c - what the commands share: the option table and its parser, the
 * command line for the run row, colour and signal set-up.
 */
#include <errno.h>
#include <fcntl.h>
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
#include "diskproof/counters.h"
#include "diskproof/metrics.h"
#include "diskproof/plan.h"
#include "diskproof/run.h"
#include "diskproof/store.h"

#include "cli.h"

int usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "diskproof: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nrun \"diskproof --help\" for usage\n");
	return DP_EXIT_USAGE;
}

struct opt_def {
	const char *name;
	bool has_arg;
	unsigned commands; /* CMD_* that take it */
};

/* Options without a value that may take one as --opt=VALUE. */
static const char *const opt_optional_value[] = {"--fail-on-regression"};

static bool opt_value_optional(const char *name)
{
	for (size_t k = 0; k < DP_ARRAY_SIZE(opt_optional_value); k++)
		if (!strcmp(opt_optional_value[k], name))
			return true;
	return false;
}

#define CMD_PROFILE_ANY (CMD_RUN | CMD_INIT | CMD_VERIFY | CMD_CLEAN | CMD_PLAN | CMD_CHECK)

static const struct opt_def opt_defs[] = {
	{"--duration", true, CMD_RUN | CMD_PLAN | CMD_CHECK},
	{"--warmup", true, CMD_RUN | CMD_PLAN | CMD_CHECK},
	{"--engine", true, CMD_RUN | CMD_PLAN | CMD_CHECK},
	{"--streams", true, CMD_RUN | CMD_PLAN | CMD_CHECK},
	{"--label", true, CMD_RUN},
	{"--data-dir", true, CMD_PROFILE_ANY},
	{"--db-size", true, CMD_PROFILE_ANY},
	{"--quiet", false, CMD_RUN | CMD_INIT | CMD_VERIFY},
	{"--results", true,
	 CMD_RUN | CMD_REPORT | CMD_LIST | CMD_INIT | CMD_VERIFY | CMD_COMPARE | CMD_PLAN |
		 CMD_CHECK},
	{"--format", true, CMD_REPORT | CMD_COMPARE | CMD_PLAN},
	{"--destroy-data", true, CMD_RUN | CMD_INIT},
	{"--force", false, CMD_RUN | CMD_INIT},
	{"--precondition", false, CMD_INIT},
	{"--deep", false, CMD_VERIFY},
	{"--rate", true, CMD_VERIFY},
	{"--yes", false, CMD_CLEAN},
	{"-o", true, CMD_REPORT | CMD_COMPARE},
	{"--output", true, CMD_REPORT | CMD_COMPARE},
	{"--min-change", true, CMD_COMPARE},
	{"--all", false, CMD_COMPARE},
	{"--fail-on-regression", false, CMD_COMPARE},
	{"--metrics", true, CMD_RUN},
	{"--metrics-file", true, CMD_RUN},
};

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

static int set_opt(struct cli_opts *o, const char *name, const char *val)
{
	struct strbuf err = STRBUF_INIT;
	uint64_t v;
	int ret = 0;

	if (!strcmp(name, "--duration")) {
		ret = unit_parse_duration(val, &o->ov.duration_ns, &err);
		o->ov.has_duration = true;
	} else if (!strcmp(name, "--warmup")) {
		ret = unit_parse_duration(val, &o->ov.warmup_ns, &err);
		o->ov.has_warmup = true;
	} else if (!strcmp(name, "--engine")) {
		o->ov.engine = val;
	} else if (!strcmp(name, "--streams") && !strcmp(val, "auto")) {
		o->ov.streams = PROFILE_STREAMS_AUTO;
	} else if (!strcmp(name, "--streams")) {
		ret = unit_parse_u64(val, &v, &err);
		if (!ret && (v < 1 || v > 100000)) {
			strbuf_addstr(&err, "must be between 1 and 100000");
			ret = -ERANGE;
		}
		o->ov.streams = (unsigned)v;
	} else if (!strcmp(name, "--data-dir")) {
		o->ov.data_dir = val;
	} else if (!strcmp(name, "--db-size")) {
		ret = unit_parse_size(val, &o->ov.db_size, &err);
		if (!ret && !o->ov.db_size) {
			strbuf_addstr(&err, "must be more than 0");
			ret = -ERANGE;
		}
	} else if (!strcmp(name, "--label")) {
		o->label = val;
	} else if (!strcmp(name, "--quiet")) {
		o->quiet = true;
	} else if (!strcmp(name, "--results")) {
		o->results = val;
	} else if (!strcmp(name, "--format")) {
		o->format = val;
	} else if (!strcmp(name, "--destroy-data")) {
		if (o->ndestroy == DP_ARRAY_SIZE(o->destroy)) {
			strbuf_addstr(&err, "given too many times");
			ret = -E2BIG;
		} else {
			o->destroy[o->ndestroy++] = val;
		}
	} else if (!strcmp(name, "--force")) {
		o->force = true;
	} else if (!strcmp(name, "--precondition")) {
		o->precondition = true;
	} else if (!strcmp(name, "--deep")) {
		o->deep = true;
	} else if (!strcmp(name, "--rate")) {
		ret = unit_parse_size(val, &o->rate, &err);
	} else if (!strcmp(name, "--yes")) {
		o->yes = true;
	} else if (!strcmp(name, "-o") || !strcmp(name, "--output")) {
		o->output = val;
	} else if (!strcmp(name, "--min-change")) {
		ret = pct_parse(val, &o->min_change_pct, &err);
		o->has_min_change = true;
	} else if (!strcmp(name, "--all")) {
		o->all = true;
	} else if (!strcmp(name, "--metrics")) {
		struct metrics_addr a;

		ret = metrics_addr_parse(val, &a, &err);
		o->metrics = val;
	} else if (!strcmp(name, "--metrics-file")) {
		o->metrics_file = val;
		if (!*val) {
			strbuf_addstr(&err, "needs a file name");
			ret = -EINVAL;
		}
	} else if (!strcmp(name, "--fail-on-regression")) {
		o->gate = true;
		o->gate_pct = ANALYZE_REGRESSION_DEFAULT;
		if (val)
			ret = pct_parse(val, &o->gate_pct, &err);
	}
	if (ret)
		fprintf(stderr, "diskproof: %s %s: %s\n", name, val ? val : "", err.buf);
	strbuf_release(&err);
	return ret ? DP_EXIT_USAGE : 0;
}

/* Is a (as given on the command line) one of the options? */
static bool opt_known(const char *a)
{
	const char *eq = strchr(a, '=');
	size_t n = eq ? (size_t)(eq - a) : strlen(a);

	for (size_t k = 0; k < DP_ARRAY_SIZE(opt_defs); k++)
		if (strlen(opt_defs[k].name) == n && !strncmp(opt_defs[k].name, a, n))
			return true;
	return false;
}

/* An unknown option (or one of another command): the usage error, with the
 * nearest option this command takes when one is within 2 edits. */
static int opt_unknown(const char *a, size_t nlen, unsigned command)
{
	char word[64];
	const char *best = NULL;
	unsigned bd = 3, d;

	snprintf(word, sizeof(word), "%.*s", (int)(nlen < 63 ? nlen : 63), a);
	for (size_t k = 0; k < DP_ARRAY_SIZE(opt_defs); k++) {
		if (!(opt_defs[k].commands & command) || strlen(opt_defs[k].name) < 3)
			continue;
		d = util_edit_distance(word, opt_defs[k].name);
		if (d < bd) {
			bd = d;
			best = opt_defs[k].name;
		}
	}
	if (best)
		return usage_error("unknown option \"%s\" for this command; did you mean %s?", a,
				   best);
	return usage_error("unknown option \"%s\" for this command", a);
}

/* Options may come before or after positionals, as --opt VALUE or --opt=VALUE. */
int parse_opts(int argc, char **argv, unsigned command, struct cli_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->results = DEFAULT_RESULTS;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *eq, *val = NULL;
		const struct opt_def *d = NULL;
		size_t nlen;
		int ret;

		if (a[0] != '-' || !strcmp(a, "-")) {
			if (o->npos == (int)DP_ARRAY_SIZE(o->positional))
				return usage_error("unexpected argument \"%s\"", a);
			o->positional[o->npos++] = a;
			continue;
		}
		eq = strchr(a, '=');
		nlen = eq ? (size_t)(eq - a) : strlen(a);
		for (size_t k = 0; k < DP_ARRAY_SIZE(opt_defs); k++)
			if (strlen(opt_defs[k].name) == nlen && !strncmp(opt_defs[k].name, a, nlen))
				d = &opt_defs[k];
		if (!d || !(d->commands & command))
			return opt_unknown(a, nlen, command);
		if (d->has_arg) {
			if (eq)
				val = eq + 1;
			else if (i + 1 < argc && opt_known(argv[i + 1]))
				/* "--label --quiet": the value was forgotten */
				return usage_error("option %s needs a value (got the option %s; "
						   "write %s=%s to mean it as the value)",
						   d->name, argv[i + 1], d->name, argv[i + 1]);
			else if (i + 1 < argc)
				val = argv[++i];
			else
				return usage_error("option %s needs a value", d->name);
		} else if (eq && opt_value_optional(d->name)) {
			val = eq + 1;
		} else if (opt_value_optional(d->name) && i + 1 < argc &&
			   strspn(argv[i + 1], "0123456789.%") == strlen(argv[i + 1]) &&
			   *argv[i + 1]) {
			/* "--fail-on-regression 3": a percentage (the gate would
			 * silently stay at its default) or a run (taken as one)?
			 * Neither guess is safe for a CI gate. */
			return usage_error("%s %s: write the percentage as %s=%s, or put the run "
					   "before the option",
					   d->name, argv[i + 1], d->name, argv[i + 1]);
		} else if (eq) {
			return usage_error("option %s takes no value", d->name);
		}
		ret = set_opt(o, d->name, val);
		if (ret)
			return ret;
	}
	return 0;
}

/* The command line as typed, for the run row. */
char *join_argv(int argc, char **argv)
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

bool use_color(FILE *f)
{
	const char *nc = getenv("NO_COLOR");

	return isatty(fileno(f)) && !(nc && nc[0]);
}

/*
 * SIGINT and SIGTERM arrive through a signalfd read by the coordinator. The
 * default disposition is restored first: a signal ignored at exec (a
 * background job of a script) would otherwise never be queued.
 */
int signals_setup(void)
{
	sigset_t set;

	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	int fd;

	if (sigprocmask(SIG_BLOCK, &set, NULL))
		return -1;
	fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (fd < 0) /* nobody would read them: let them act as usual */
		sigprocmask(SIG_UNBLOCK, &set, NULL);
	return fd;
}

void cli_print_err(const char *msg)
{
	/* one "diskproof: " per line: several errors never read as one */
	do {
		const char *nl = strchr(msg, '\n');
		int len = nl ? (int)(nl - msg) : (int)strlen(msg);

		if (len)
			fprintf(stderr, "diskproof: %.*s\n", len, msg);
		msg += len + (nl != NULL);
	} while (*msg);
}

int signals_finish(int fd)
{
	struct signalfd_siginfo si;
	sigset_t set;
	int signo = 0;

	if (fd < 0)
		return 0;
	if (read(fd, &si, sizeof(si)) == (ssize_t)sizeof(si))
		signo = (int)si.ssi_signo;
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

	ret = parse_opts(argc, argv, command, o);
	if (ret)
		return ret;
	if (o->npos > 1)
		return usage_error("%s takes one PROFILE, got also \"%s\"", name, o->positional[1]);
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
	/* --results names a regular file or a new path, before anything else */
	if (!ret && (command & (CMD_RUN | CMD_INIT | CMD_VERIFY)))
		ret = cli_results_path_check(o->results, true);
	if (!ret && (command & (CMD_RUN | CMD_INIT | CMD_VERIFY)) && strcmp(p->engine, "sim"))
		ret = cli_nofile_raise(profile_database_count(p));
	return ret;
}

int cli_nofile_raise(unsigned databases)
{
	rlim_t want = 2 * (rlim_t)databases + 64;
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
	return host_parse_meminfo(buf, &avail) ? 0 : avail;
}

int cli_memory_check(const struct plan *pl, const struct profile *p)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT, c = STRBUF_INIT, d = STRBUF_INIT,
		      e = STRBUF_INIT;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct plan_memory m;
	uint64_t avail = cli_mem_available();

	plan_memory_estimate(pl, p, cpus > 0 ? (unsigned)cpus : 1, &m);
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
	bool files = strcmp(p->engine, "sim") != 0;
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
		usage_error("%s", err.buf);
	strbuf_release(&err);
	return ret ? DP_EXIT_USAGE : 0;
}
