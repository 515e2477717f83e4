/* SPDX-License-Identifier: MIT */
/*
 * usage.c - the usage texts, generated from the command table below and the
 * option table (options.c): "diskproof --help", "diskproof help [COMMAND]",
 * "diskproof COMMAND --help", and the did-you-mean for a misspelt command.
 * docs/diskproof.1 and deploy/bash-completion/diskproof say the same by hand;
 * tests/integration/test_cli_help.sh keeps them in step with the tables.
 */
#include <stdio.h>
#include <string.h>

#include "diskproof/run.h"

#include "cli.h"

/* What a command's usage adds after its options. */
enum usage_note {
	NOTE_PROFILE = 1u << 0, /* how PROFILE is found */
	NOTE_RUN = 1u << 1,	/* what RUN may be */
	NOTE_UNITS = 1u << 2,	/* durations and sizes */
};

/* Every command, in the order the global usage lists them. */
static const struct usage_command {
	const char *name;
	unsigned bit;
	const char *args;    /* after the name in the synopsis */
	const char *formats; /* --format's values, NULL without --format */
	unsigned notes;	     /* enum usage_note */
	const char *text;    /* what it does: one paragraph, wrapped when printed */
} usage_commands[] = {
	{"run", CMD_RUN, "[PROFILE]", "text|json", NOTE_PROFILE | NOTE_UNITS,
	 "lay out the profile's databases and logs, drive them, judge the run against its "
	 "thresholds and store everything in the results file"},
	{"init", CMD_INIT, "[PROFILE]", NULL, NOTE_PROFILE | NOTE_UNITS,
	 "create (or finish creating) the profile's databases and logs"},
	{"verify", CMD_VERIFY, "[PROFILE]", "text|json", NOTE_PROFILE | NOTE_UNITS,
	 "read back every page and log block and check it (exit 4 on any bad; a page whose "
	 "last write failed is named, not judged)"},
	{"clean", CMD_CLEAN, "[PROFILE]", NULL, NOTE_PROFILE,
	 "remove the files diskproof created for the profile (only those)"},
	{"plan", CMD_PLAN, "[PROFILE]", "text|json", NOTE_PROFILE | NOTE_UNITS,
	 "print the layout (volumes, databases, files, sizes, space needed and free, target "
	 "IOPS, streams, engine, workers) without touching a disk; exit 3 when a volume lacks "
	 "the space"},
	{"check", CMD_CHECK, "[PROFILE]", "text|json", NOTE_PROFILE | NOTE_UNITS,
	 "preflight: io_uring, direct I/O on every volume, filesystem and mount options, free "
	 "space, each disk (model, firmware, scheduler, queue, write cache and whether it is "
	 "volatile, FUA, atomic write unit, NUMA node), the atomic write unit statx reports on "
	 "every volume, CPU governor, worker placement, memory; one OK/WARN/FAIL line each; "
	 "exit 3 when any FAILs"},
	{"profiles", CMD_PROFILES, "[show NAME]", NULL, 0,
	 "list the built-in profiles; \"show NAME\" prints a built-in profile's INI, to copy "
	 "and edit"},
	{"report", CMD_REPORT, "[RUN]", "text|json|csv|html", NOTE_RUN,
	 "print a stored run (-o FILE: write it to FILE instead)"},
	{"list", CMD_LIST, "", "text|json", 0, "one line per stored run, with its engine"},
	{"compare", CMD_COMPARE, "RUN_A RUN_B [RUN_C ...]", "text|json|html", NOTE_RUN,
	 "compare stored runs, each later side against A (a side: one run or several, the "
	 "replicates): the judged figures tested over the runs, the within-run changes both "
	 "significant and material (--all: every figure), auto-tune steps, verdict and "
	 "environment changes, a trend for three or more; with --fail-on-regression exit 1 "
	 "when a change worse than PCT (default 5) is established over the runs, 5 when one "
	 "run a side cannot decide it; simulated and real runs together: exit 2 unless "
	 "--allow-mixed"},
	{"fleet", CMD_FLEET, "SELECTOR...", "text|json|html", 0,
	 "one report over the runs of many hosts (SELECTOR: label:TEXT for every run so "
	 "labelled, N, N,M,..., N..M or series:N, several mixed): the fleet's verdict first, every "
	 "failing "
	 "host with its failing volumes and databases and why, a row per run with its verdict, "
	 "IOPS, "
	 "latencies and load start offset, fleet totals with percentiles from exactly merged "
	 "histograms, the start skew, the runs that began late, and the runs that differ "
	 "significantly from the rest; --expect-hosts lists each expected host without a run as "
	 "missing; exit 0 when every run passed and no host is missing, 1 otherwise (the "
	 "fleet's verdict); simulated and real runs together: exit 2 unless --allow-mixed"},
	{"witness", CMD_WITNESS, "--listen ADDR:PORT --out FILE", NULL, 0,
	 "the durability witness, run on a host outside the failure domain: record every batch of "
	 "acknowledgements a durability run sends, fsynced before answering, and hand the "
	 "records to verify (its witness: this ADDR:PORT); SIGINT or SIGTERM stop it (exit 0)"},
	{"fingerprint", CMD_FINGERPRINT,
	 "--data PATH [--log PATH] --duration D | compare A.json B.json|RUNID", NULL, NOTE_UNITS,
	 "watch the block devices under the paths for D (Ctrl-C ends it early; reads "
	 "/proc/diskstats "
	 "once a second, needs no privileges, writes nothing to the devices) and write their "
	 "fingerprint as JSON (-o FILE, else stdout): per role data and log the reads and writes a "
	 "second, reads:writes, mean read and write sizes, flushes a second, queue depth and "
	 "latencies, per transaction with --transactions N or the database's count (--postgres "
	 "CONNINFO, --mysql SPEC: its counters and settings, read-only); as root, where built in, "
	 "also a BPF trace of the block layer (size and service-time distributions, sequential "
	 "share, working set, burstiness, FUA and flushes; --no-trace: off); \"compare A.json "
	 "B.json\" prints "
	 "figure | A | B | diff %, rows of fewer than 200 events left out and said, and exits 1 "
	 "when an asserted row differs by more than --tolerance PCT (default 10); B may be a "
	 "stored run (RUNID, --results FILE): its own fingerprint, which a real run of a learned "
	 "profile stores"},
	{"learn", CMD_LEARN, "--data PATH [--log PATH] --duration D -o PROFILE", NULL, NOTE_UNITS,
	 "watch the devices under the paths as fingerprint does, then fit a profile to what was "
	 "seen on the sim engine and write it to PROFILE: one [volume] per --data path with "
	 "log_path at its --log (one per --data in order, or one for all), sizes from the files "
	 "found there, the observed fingerprint kept beside it (PROFILE.fingerprint.json, [test] "
	 "fingerprint: a real run of the profile prints how its devices compare), and a header "
	 "with the window, the sources used and not, the observed fingerprint, each key's origin, "
	 "the residual of every figure and what the model cannot make; --replay-on DIR then runs "
	 "the learned profile for --replay-seconds N (default 20) in DIR, never on a watched "
	 "device, and the header gets each figure observed, replayed and its residual; --from "
	 "FILE fits a fingerprint watched before instead of watching"},
	{"delete", CMD_DELETE, "RUN-ID...", NULL, 0,
	 "remove runs and everything stored about them"},
	{"import", CMD_IMPORT, "OTHER.db", NULL, 0,
	 "copy in the runs of another results file (runs already here are skipped, but a copy "
	 "taken before its run ended is replaced once it has); a run "
	 "holding a value no run writes (not finite, negative, beyond a year) is refused and "
	 "named, the others copied, exit 3"},
};

static const char note_profile[] =
	"PROFILE is a file when it contains '/', ends in .ini or names an existing file, "
	"otherwise a built-in profile (diskproof profiles); no PROFILE means \"quick\". "
	"Put \"--\" before a PROFILE that starts with '-'.";
static const char note_run[] =
	"RUN is a run number N, latest (the highest), latest~N (N runs before it), N,M,..., "
	"N..M, series:N (a series by its lowest run id) or label:TEXT (the newest run labelled "
	"TEXT; on a side of compare its whole series); no RUN means latest.";
static const char note_units[] = "Durations: 500ms, 30s, 5m, 2h; sizes: 32KiB, 1MiB, 4GiB.";

static const char exit_codes[] =
	"exit codes (when several apply, the first listed of 130/143, 4, 3, 1, 5 wins):\n"
	"  0    every verdict passed\n"
	"  1    a verdict failed (thresholds, I/O errors)\n"
	"  2    usage or profile error (nothing was written)\n"
	"  3    environment or resource error: cannot open, no space, no io_uring,\n"
	"       results file unusable, a volume's lock held or not to be had\n"
	"  4    data integrity error (a page read back wrong)\n"
	"  5    inconclusive, a result: the figures cannot be concluded on (reads that\n"
	"       did not reach the device), or a compare gate found no established change\n"
	"  130  interrupted by SIGINT (Ctrl-C); 143 interrupted by SIGTERM\n"
	"(SIGHUP does not stop a run: it goes on to its end; SIGUSR1 prints a status line)\n";

#define USAGE_WIDTH 79
#define USAGE_COLUMN 30 /* where an option's help starts */

/*
 * text on f, words wrapped at USAGE_WIDTH: the first line continues at
 * column col (already reached by the caller), the others start there.
 */
static void usage_wrap(FILE *f, const char *text, int col)
{
	int at = col;

	while (*text) {
		size_t n = strcspn(text, " ");

		if (at > col && at + 1 + (int)n > USAGE_WIDTH) {
			fprintf(f, "\n%*s", col, "");
			at = col;
		} else if (at > col) {
			fputc(' ', f);
			at++;
		}
		fprintf(f, "%.*s", (int)n, text);
		at += (int)n;
		text += n;
		text += strspn(text, " ");
	}
	fputc('\n', f);
}

static const struct usage_command *usage_command_of(unsigned bit)
{
	for (size_t i = 0; i < DP_ARRAY_SIZE(usage_commands); i++)
		if (usage_commands[i].bit == bit)
			return &usage_commands[i];
	return NULL;
}

const char *cli_command_name(unsigned command)
{
	const struct usage_command *c = usage_command_of(command);

	return c ? c->name : "";
}

unsigned cli_command_find(const char *name)
{
	for (size_t i = 0; i < DP_ARRAY_SIZE(usage_commands); i++)
		if (!strcmp(usage_commands[i].name, name))
			return usage_commands[i].bit;
	return 0;
}

void cli_commands_describe(struct strbuf *sb, unsigned mask)
{
	size_t n = 0, k = 0;

	for (size_t i = 0; i < DP_ARRAY_SIZE(usage_commands); i++)
		n += (mask & usage_commands[i].bit) != 0;
	for (size_t i = 0; i < DP_ARRAY_SIZE(usage_commands); i++) {
		if (!(mask & usage_commands[i].bit))
			continue;
		if (k)
			strbuf_addstr(sb, ++k == n ? " and " : ", ");
		else
			k++;
		strbuf_addstr(sb, usage_commands[i].name);
	}
}

int cli_command_unknown(const char *name)
{
	const char *best = NULL;
	unsigned bd = 3, d;

	for (size_t i = 0; i < DP_ARRAY_SIZE(usage_commands); i++) {
		d = util_edit_distance(name, usage_commands[i].name);
		if (d < bd) {
			bd = d;
			best = usage_commands[i].name;
		}
	}
	if (best)
		return cli_usage_error("unknown command \"%s\"; did you mean \"%s\"?", name, best);
	return cli_usage_error("unknown command \"%s\"", name);
}

/* One option line: "  -f, --format FORMAT" and its help. */
static void usage_option(FILE *f, const struct cli_opt_def *d, const char *metavar)
{
	int col;

	if (d->short_name)
		col = fprintf(f, "  -%c, %s", d->short_name, d->name);
	else
		col = fprintf(f, "      %s", d->name);
	if (d->arg == CLI_ARG_REQUIRED)
		col += fprintf(f, " %s", metavar);
	else if (d->arg == CLI_ARG_OPTIONAL)
		col += fprintf(f, "[=%s]", metavar);
	if (col + 2 > USAGE_COLUMN)
		fprintf(f, "\n%*s", USAGE_COLUMN, "");
	else
		fprintf(f, "%*s", USAGE_COLUMN - col, "");
	usage_wrap(f, d->help, USAGE_COLUMN);
}

/* The options command takes, each on its line. */
static void usage_options(FILE *f, unsigned command, const char *formats)
{
	size_t n;
	const struct cli_opt_def *t = cli_opt_table(&n);

	for (size_t k = 0; k < n; k++) {
		bool format = !strcmp(t[k].name, "--format");

		if (t[k].commands & command)
			usage_option(f, &t[k], format && formats ? formats : t[k].metavar);
	}
}

void cli_usage_command(FILE *f, unsigned command)
{
	const struct usage_command *c = usage_command_of(command);

	if (!c) {
		cli_usage_global(f);
		return;
	}
	fprintf(f, "usage: diskproof %s%s%s [OPTIONS]\n\n", c->name, *c->args ? " " : "", c->args);
	usage_wrap(f, c->text, 0);
	fprintf(f, "\noptions:\n");
	usage_options(f, command, c->formats);
	if (c->notes)
		fputc('\n', f);
	if (c->notes & NOTE_PROFILE)
		usage_wrap(f, note_profile, 0);
	if (c->notes & NOTE_RUN)
		usage_wrap(f, note_run, 0);
	if (c->notes & NOTE_UNITS)
		usage_wrap(f, note_units, 0);
	fprintf(f, "\nexit codes: diskproof --help; more in man diskproof\n");
}

void cli_usage_global(FILE *f)
{
	fprintf(f, "usage: diskproof COMMAND [OPTIONS] [--] [ARGUMENTS]\n"
		   "       diskproof help [COMMAND]   (or diskproof COMMAND --help)\n\n"
		   "commands:\n");
	for (size_t i = 0; i < DP_ARRAY_SIZE(usage_commands); i++) {
		const struct usage_command *c = &usage_commands[i];
		int col = fprintf(f, "  %s%s%s", c->name, *c->args ? " " : "", c->args);

		if (col + 2 > USAGE_COLUMN)
			fprintf(f, "\n%*s", USAGE_COLUMN, "");
		else
			fprintf(f, "%*s", USAGE_COLUMN - col, "");
		usage_wrap(f, c->text, USAGE_COLUMN);
	}
	fprintf(f, "\noptions before the command:\n");
	usage_options(f, CMD_GLOBAL, NULL);
	fputc('\n', f);
	usage_wrap(f, note_run, 0);
	usage_wrap(f, note_profile, 0);
	usage_wrap(f,
		   "--data-dir DIR places every volume at DIR/<volume> (separate logs at "
		   "DIR/<volume>-log); --db-size overrides every database's size. Results go to "
		   "./diskproof.db unless --results says otherwise.",
		   0);
	usage_wrap(f, note_units, 0);
	fprintf(f, "\n%s\nmore: man diskproof\n", exit_codes);
}

/* "help --options": every option and the commands that take it. */
static void usage_list_options(FILE *f)
{
	size_t n;
	const struct cli_opt_def *t = cli_opt_table(&n);

	for (size_t k = 0; k < n; k++) {
		fprintf(f, "%s", t[k].name);
		if (t[k].short_name)
			fprintf(f, " -%c", t[k].short_name);
		if (t[k].commands & CMD_GLOBAL)
			fprintf(f, " (global)");
		for (size_t i = 0; i < DP_ARRAY_SIZE(usage_commands); i++)
			if (t[k].commands & usage_commands[i].bit)
				fprintf(f, " %s", usage_commands[i].name);
		fputc('\n', f);
	}
}

int cli_cmd_help(int argc, char **argv)
{
	unsigned bit;

	if (argc == 0) {
		cli_usage_global(stdout);
		return 0;
	}
	if (argc == 1 && !strcmp(argv[0], "--options")) {
		usage_list_options(stdout);
		return 0;
	}
	if (argc > 1)
		return cli_usage_error("help takes one COMMAND, got also \"%s\"", argv[1]);
	if (!strcmp(argv[0], "help")) {
		cli_usage_global(stdout);
		return 0;
	}
	bit = cli_command_find(argv[0]);
	if (!bit)
		return cli_command_unknown(argv[0]);
	cli_usage_command(stdout, bit);
	return 0;
}
