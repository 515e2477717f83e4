/* SPDX-License-Identifier: MIT */
/*
 * cli.h - private to src/cli: what the command files share. Every command is
 * int cmd_NAME(int argc, char **argv) returning the exit code; only src/cli
 * prints to the terminal or picks an exit code.
 */
#ifndef DISKPROOF_CLI_H
#define DISKPROOF_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "diskproof/profile.h"
#include "diskproof/stats.h"
#include "diskproof/util.h"

#define DEFAULT_RESULTS "./diskproof.db"

/* which command parses: an option is accepted only by the commands it names */
enum cli_command {
	CMD_RUN = 1u << 0,
	CMD_INIT = 1u << 1,
	CMD_VERIFY = 1u << 2,
	CMD_CLEAN = 1u << 3,
	CMD_REPORT = 1u << 4,
	CMD_LIST = 1u << 5,
	CMD_COMPARE = 1u << 6,
	CMD_PLAN = 1u << 7,
	CMD_CHECK = 1u << 8,
	CMD_PROFILES = 1u << 9,
	CMD_DELETE = 1u << 10,
	CMD_IMPORT = 1u << 11,
	CMD_FLEET = 1u << 12,
	CMD_WITNESS = 1u << 13,
	CMD_FINGERPRINT = 1u << 14,
	CMD_LEARN = 1u << 15,
	CMD_GLOBAL = 1u << 16, /* before the command: diskproof --help, --version */
};

#define CMD_ALL ((CMD_LEARN << 1) - 1) /* every command, not CMD_GLOBAL */

/* How an option takes its value. */
enum cli_opt_arg {
	CLI_ARG_NONE,
	CLI_ARG_REQUIRED, /* --opt VALUE or --opt=VALUE */
	CLI_ARG_OPTIONAL, /* --opt or --opt=VALUE only */
};

/*
 * One option of the table (options.c): what the parser, the usage texts
 * (usage.c), the man page and the bash completion are checked against.
 * name is the long form with its dashes ("--duration"); short_name 0 when
 * there is none; metavar NULL exactly when arg is CLI_ARG_NONE; help is one
 * line, no final period.
 */
struct cli_opt_def {
	const char *name;
	char short_name;
	enum cli_opt_arg arg;
	const char *metavar;
	unsigned commands; /* CMD_* that take it */
	const char *help;
};

/* The option table, n entries; static storage. */
const struct cli_opt_def *cli_opt_table(size_t *n);

/* The option named name exactly ("--duration", or "-o" for a short one),
 * whatever command takes it; NULL when none. */
const struct cli_opt_def *cli_opt_find(const char *name, size_t len);

/* What cli_opts_parse returns after printing a command's usage for --help/-h:
 * the command returns it at once and main exits 0. Never an exit code. */
#define CLI_EXIT_HELP (-1)

/* The command's usage on f: synopsis, what it does, each of its options with
 * its metavar and help line (usage.c). command is one CMD_* bit. */
void cli_usage_command(FILE *f, unsigned command);

/* The global usage on f: every command, the global options, selectors,
 * durations and sizes, exit codes (usage.c). */
void cli_usage_global(FILE *f);

/* The name of command (one CMD_* bit), "" for none. */
const char *cli_command_name(unsigned command);

/* The commands in mask, in the table's order, as "run, plan and check". */
void cli_commands_describe(struct strbuf *sb, unsigned mask);

/* The CMD_* bit of the command called name, 0 for none. */
unsigned cli_command_find(const char *name);

/* "unknown command" for name, with the nearest command within 2 edits:
 * printed, DP_EXIT_USAGE returned. */
int cli_command_unknown(const char *name);

/* "diskproof help [COMMAND]" (usage.c): the exit code. "help --options"
 * lists every option, one per line with the commands that take it, for
 * the tests that keep the man page and the completion in step. */
int cli_cmd_help(int argc, char **argv);

struct cli_opts {
	const char *positional[16];
	int npos;
	const char *results; /* DEFAULT_RESULTS unless --results */
	const char *label;
	const char *format;
	bool quiet;
	struct profile_overrides ov;
	const char *destroy[16]; /* --destroy-data PATH, each */
	size_t ndestroy;
	bool force;
	bool no_lock; /* --no-lock: go on without a lock that cannot be taken */
	bool precondition;
	bool deep;
	uint64_t rate; /* --rate bytes/s; 0 = unlimited */
	bool yes;
	const char *output;	    /* -o/--output FILE; NULL: stdout */
	bool wide;		    /* report --wide: the text tables with all their columns */
	bool params;		    /* report --params: the effective parameters alone */
	const char *expect_hosts;   /* fleet --expect-hosts H1,H2 (no empty name) */
	const char *metrics;	    /* run --metrics [ADDR:]PORT (checked as parsed) */
	const char *metrics_file;   /* run --metrics-file PATH */
	uint64_t metrics_linger_ns; /* run --metrics-linger D (0: none) */
	bool has_metrics_linger;
	/* compare */
	double min_change_pct; /* --min-change PCT */
	bool has_min_change;
	bool all;	  /* --all */
	bool gate;	  /* --fail-on-regression[=PCT] */
	bool allow_mixed; /* compare, fleet --allow-mixed: simulated and real runs together */
	double gate_pct;  /* its PCT (ANALYZE_REGRESSION_DEFAULT without one) */
	/* run: parsed here, used by the status and metrics code */
	uint64_t status_interval_ns; /* --status-interval D, > 0 */
	bool has_status_interval;
	/* run --start-at: an instant (ns since the epoch) or +D from the
	 * command's start, one of the two (time_parse_start_at) */
	uint64_t start_at_abs_ns, start_at_rel_ns;
	bool has_start_at;
	/* run --ready-file PATH, --start-file PATH, --start-timeout D (> 0) */
	const char *ready_file, *start_file;
	uint64_t start_timeout_ns;
	bool has_start_timeout;
	uint64_t max_clock_error_ns; /* --max-clock-error D */
	bool has_max_clock_error;
	const char *host; /* run --host NAME */
	unsigned repeat;  /* run --repeat N, 1..STORE_SERIES_MAX; 0: not given */
	bool fresh;	  /* run --fresh: files created anew between a series' runs */
	/* witness --listen ADDR:PORT --out FILE */
	const char *listen, *out;
	/* fingerprint, learn: --data PATH, --log PATH (each repeatable),
	 * --transactions N (< 0: not given), fingerprint compare --tolerance */
	const char *data[8], *log[8];
	size_t ndata, nlog;
	double transactions;
	/* fingerprint, learn: --postgres CONNINFO, --mysql SPEC (NULL: not given) */
	const char *postgres, *mysql;
	double tolerance_pct;
	bool has_tolerance;
	bool no_trace; /* --no-trace: no BPF tracing of the block layer */
	/* learn --from FILE: the fingerprint fitted, watched before (NULL: watch) */
	const char *from;
	/* learn --replay-on DIR, --replay-log-on DIR (NULL: not given),
	 * --replay-seconds N (0: not given, 20), --keep (learn_replay.c) */
	const char *replay_on, *replay_log_on;
	unsigned replay_seconds;
	bool keep;
};

struct plan;
/* cmd_verify_witness.c: verify --witness SPEC, the durability test's
 * classification printed; returns the exit code (0, 3 or 4). */
int cli_verify_witness(const struct profile *p, const struct plan *pl, const char *spec, bool json);
/* Whether a database of the plan has a simulated cut's state (cutstate.h). */
bool cli_verify_sim_cut(const struct plan *pl);

/* Prints "diskproof: MESSAGE" and a hint to stderr; returns DP_EXIT_USAGE. */
int cli_usage_error(const char *fmt, ...) DP_PRINTF(1, 2);

/*
 * getopt_long over the option table, only the options command takes: before
 * or after positionals, "--opt VALUE" or "--opt=VALUE", short ones bundled
 * ("-qo FILE"), "--" ends the options. Long options are matched whole, never
 * abbreviated. A bad one is reported (with a did-you-mean) and DP_EXIT_USAGE
 * returned; --help/-h prints the command's usage and returns CLI_EXIT_HELP.
 */
int cli_opts_parse(int argc, char **argv, unsigned command, struct cli_opts *o);

/* Parses a profile command's options and loads its PROFILE (the positional,
 * or "quick") with the overrides applied; profile errors are printed.
 * --db-size wins over [sizing] capacity (it turns it off) as it does over
 * mailboxes. For run, init and verify with an engine that opens files, it
 * then raises the open-file limit (cli_nofile_raise). 0, or the exit code
 * (DP_EXIT_USAGE, DP_EXIT_ENV). p is the caller's to profile_release(). */
int cli_profile_load(int argc, char **argv, unsigned command, const char *name, struct cli_opts *o,
		     struct profile *p);

/*
 * Raises the soft RLIMIT_NOFILE to the hard limit: every database keeps its
 * file and its log open, so 1,000 databases need some 2,000 descriptors,
 * past the usual soft limit of 1,024. When the limit stays under 2 x
 * databases + 64 the message is printed and DP_EXIT_ENV returned, before
 * anything is written; else 0.
 */
int cli_nofile_raise(unsigned databases);

/*
 * Before a command writes anything (run, init): lays the profile out as the
 * command will and checks that every filesystem has room for what its files
 * still need (plan_space_check). 0, or the message printed and DP_EXIT_ENV.
 * Profiles whose engine touches no files pass.
 */
int cli_space_preflight(const struct profile *p, const char *results);

struct plan;
/* The same check on a plan the command built (init). */
int cli_plan_space_check(const struct plan *pl);

/* MemAvailable of /proc/meminfo in bytes; 0 when unknown. */
uint64_t cli_mem_available(void);

/* The memory a run of the plan needs (run_memory_estimate) against what the
 * host has available: 0 (also when that is unknown), or the message printed
 * ("the run needs about X of memory, this host has Y available") and
 * DP_EXIT_ENV. */
int cli_memory_check(const struct plan *pl, const struct profile *p);

/* --format of run, list, check and verify (format.c): NULL or "text" sets
 * *json false, "json" true, 0 returned; anything else is the usage error
 * printed and DP_EXIT_USAGE. */
int cli_format_text_json(const char *format, bool *json);

/* "diskproof plan [PROFILE]" (cmd_plan.c): the exit code. */
int cli_cmd_plan(int argc, char **argv);

/* "diskproof witness --listen ADDR:PORT --out FILE" (cmd_witness.c): the
 * exit code. */
int cli_cmd_witness(int argc, char **argv);

/* "diskproof check [PROFILE]" (cmd_check.c): the exit code. */
int cli_cmd_check(int argc, char **argv);

/* 0 when the results file exists and is a regular file (store_path_check),
 * else the message printed and DP_EXIT_ENV: reading commands never create
 * one by mistake. */
int cli_results_must_exist(const char *results);

/* store_path_check() on --results (a new path is fine with may_create): 0,
 * or the message printed and DP_EXIT_ENV. */
int cli_results_path_check(const char *results, bool may_create);

/*
 * report -o / compare -o: refuses (message printed, DP_EXIT_ENV) an output
 * that is the results file or one of its -wal/-shm/-journal (by device and
 * inode, and by resolved name for those not there yet), a block device, a
 * directory or a socket. 0 otherwise. (cmd_results.c)
 */
int cli_output_check(const char *output, const char *results);

/*
 * What report, compare and fleet check before they open the store: --format
 * (when given) into *fmt, one of every format (cmd NULL: report) or, for a
 * command that reports several runs (cmd its name), of text, json and html;
 * the results file there; -o not it (cli_output_check). 0, or the exit code
 * with the message printed. (cmd_results.c)
 */
int cli_report_args_check(const struct cli_opts *o, const char *cmd, int *fmt);

/* A RUN argument: a run selector (store_run_selector_parse: N, latest,
 * latest~N, label:TEXT), resolved once the store is open (store_run_select).
 * 0, or the usage error printed and DP_EXIT_USAGE. */
int cli_run_arg_check(const char *s);

/* The command line as typed (shell-quoted); free() it. */
char *cli_argv_join(int argc, char **argv);

/* Colour on f: a terminal, and NO_COLOR unset or empty. */
bool cli_use_color(FILE *f);

/*
 * The columns a line written to f may take (format.c): on a terminal its
 * width (TIOCGWINSZ); else $COLUMNS when it is a plain number of
 * CLI_WIDTH_MIN to CLI_WIDTH_MAX columns (anything else is ignored); else
 * CLI_WIDTH_DEFAULT. cli_width_pick is the choice itself: tty_cols 0 when
 * f is no terminal or its width is unknown, columns the $COLUMNS text or
 * NULL.
 */
#define CLI_WIDTH_DEFAULT 120
#define CLI_WIDTH_MIN 40
#define CLI_WIDTH_MAX 1000
unsigned cli_width_pick(unsigned tty_cols, const char *columns);
unsigned cli_width(FILE *f);

/* Blocks SIGINT/SIGTERM and returns a signalfd for them (-1 on failure, with
 * the signals left to act as usual). */
int cli_signals_setup(void);
/* The same for a run, with SIGHUP and SIGUSR1 in the set too (the run goes
 * on through a hangup; SIGUSR1 asks for a status line), and SIGPIPE
 * ignored from now on (a write to a pipe nobody reads fails with EPIPE,
 * progress_term_check). */
int cli_signals_setup_run(void);
/* Prints msg on stderr, each of its lines as "diskproof: LINE". */
void cli_print_err(const char *msg);
/* The same as "diskproof: warning: LINE", --quiet or not (the locks
 * --no-lock went without). */
void cli_print_warnings(const char *msg);
/* At a command's end: the SIGINT or SIGTERM that came and was not read yet
 * (0: none), after which fd is closed and SIGINT and SIGTERM act as usual
 * again, so a later one ends the process instead of being lost with it. A
 * SIGHUP read here drops the terminal (progress_term_hangup); a SIGUSR1 is let go.
 * SIGHUP and SIGUSR1 stay blocked: neither can end the process after its
 * run. */
int cli_signals_finish(int fd);
/* The same without closing fd or unblocking anything: the SIGINT or
 * SIGTERM read from fd now (0: none, or only SIGHUP/SIGUSR1). */
int cli_signals_read(int fd);

struct metrics_server;
/* --metrics-linger's default: Prometheus' default scrape interval (1 min)
 * and some, so that one scrape after the end is all but sure. */
#define METRICS_LINGER_DEFAULT_NS (75 * NSEC_PER_SEC)
/* run --metrics (run_metrics.c): the server started before the run, its URL
 * said on stderr; 0 and *out (NULL without --metrics), or the exit code
 * (2 or 3) with the reason printed. Nothing is written before it. */
int cli_metrics_start(const struct cli_opts *o, struct metrics_server **out);
/* The end of run after its report: the SIGINT or SIGTERM that came since
 * the workers stopped (returned, 0: none), read from sfd; then, unless one
 * came, the linger (--metrics-linger): s keeps serving its final text until
 * it has been scraped once, D has passed, or a SIGINT or SIGTERM is read
 * (which ends the linger, not counted). Not after a run ended by a signal
 * (exit_code 130 or 143). s is stopped and sfd closed (cli_signals_finish). */
int cli_run_finish(const struct cli_opts *o, struct metrics_server *s, int sfd, int exit_code);

/* "diskproof verify [PROFILE]" (cmd_verify.c): the exit code. */
int cli_cmd_verify(int argc, char **argv);

/* "diskproof fingerprint ..." and "diskproof learn ..." (cmd_learn.c): the
 * exit code. */
int cli_cmd_fingerprint(int argc, char **argv);
int cli_cmd_learn(int argc, char **argv);

struct learn_fp;
struct learn_fit;
struct learn_where;
/* learn --replay-on (learn_replay.c). cli_learn_replay_check, before the
 * window: the replay directories' devices into w[LEARN_DATA], w[LEARN_LOG]
 * (zeroed when not given), or a usage error printed and DP_EXIT_USAGE (a
 * FIFO, a file, a directory on a watched device or a disk beneath one);
 * obs has the watched roles resolved. cli_learn_replay, after the fit: the
 * learned profile run for the replay window in the replay directories as
 * a child "diskproof run", its devices fingerprinted, the header's section
 * in fit->checked; its files removed unless --keep. 0 or the exit code. */
int cli_learn_replay_check(const struct cli_opts *o, const struct learn_fp *obs,
			   struct learn_where *w);
int cli_learn_replay(const struct cli_opts *o, const struct learn_fp *obs,
		     const struct learn_where *w, const char *tmp, struct learn_fit *fit);
/* A profile that keeps a fingerprint ([test] fingerprint) and its run
 * (run_fingerprint.c, docs/learn.md). cli_fingerprint_check: the kept
 * fingerprint read and parsed, its problem printed as "FILE:LINE: [test]
 * fingerprint: why" and DP_EXIT_USAGE; 0 without one. cli_run_fp_start: for
 * a real run of such a profile, the watch of its devices set in ro (NULL:
 * none, or said on stderr why not); cli_run_fp_finish: the run's own
 * fingerprint stored beside the kept one (run_id 0: nothing), said on
 * stderr when it cannot be. cli_results_fp_compare: r's stored fingerprints
 * compared into r->fp_compare for the report (a problem said on stderr). */
struct cli_run_fp;
struct run_options;
struct results;
int cli_fingerprint_check(const struct profile *p);
struct cli_run_fp *cli_run_fp_start(const struct profile *p, struct run_options *ro);
void cli_run_fp_finish(struct cli_run_fp *f, const char *results, int64_t run_id);
void cli_run_fp_free(struct cli_run_fp *f);
void cli_results_fp_compare(struct results *r);

/* "diskproof clean PROFILE" (cmd_clean.c): the exit code. */
int cli_cmd_clean(int argc, char **argv);
int cli_cmd_list(int argc, char **argv);

/* "diskproof compare RUN_A RUN_B" (cmd_compare.c): the exit code. */
int cli_cmd_compare(int argc, char **argv);

struct results;

/*
 * Whether runs r[0..n) mix simulated (engine_simulated) and real engines:
 * false, or true with the sentence that says which in *why ("mixed engines:
 * simulated run 1 (engine sim) with real run 2 (engine io_uring): ..."), for
 * compare and fleet, which refuse such a mix unless --allow-mixed.
 */
bool cli_engines_mixed(const struct results *r, size_t n, struct strbuf *why);
/* The refusal of a mix (exit 2, nothing written): why (cli_engines_mixed)
 * on stderr, with the way past it. Returns DP_EXIT_USAGE. */
int cli_engines_mixed_refuse(const char *cmd, const char *why);

/* Writes text to path atomically (a temporary file beside the resolved path,
 * then rename: a symbolic link stays one), so a reader never sees half a
 * report; /dev/stdout, /dev/stderr and /dev/fd/N are written to that
 * descriptor, a character device or FIFO is opened and written to, never
 * replaced. Errors are printed. 0 or the exit code (DP_EXIT_ENV).
 * (cmd_results.c) */
int cli_write_output(const char *path, const char *results, const struct strbuf *text);
/* stdout or stderr is the results file or one of SQLite's files beside it
 * (run --results r.db >r.db): said, DP_EXIT_ENV; else 0. Before anything is
 * written: the text would overwrite the file. */
int cli_stdio_check(const char *results);

/* text to output (atomically, as above) when given, else to out with a final
 * newline; 0 or the exit code, the failure printed. */
int cli_emit(const char *output, const char *results, const struct strbuf *text, FILE *out);

/* "diskproof fleet SELECTOR..." (cmd_fleet.c): the exit code. */
int cli_cmd_fleet(int argc, char **argv);

/* "diskproof delete RUN..." (cmd_results.c): the exit code. */
int cli_cmd_delete(int argc, char **argv);

/* "diskproof import OTHER.db" (cmd_results.c): the exit code. */
int cli_cmd_import(int argc, char **argv);

/*
 * The terminal a run writes to (progress.c), which may go away: a hung-up
 * terminal fails writes with EIO, a pipe whose reader left with EPIPE
 * (SIGPIPE is ignored during a run). progress_term_init records which of stdout and
 * stderr are terminals; progress_term_hangup (SIGHUP) drops both where they are one,
 * and progress_term_check drops f after a write to it failed with EIO or EPIPE
 * (failed: the caller saw the failure, else f's error flag says). Dropped:
 * its buffer discarded and its descriptor /dev/null from then on, so every
 * later write succeeds and goes nowhere. progress_term_gone: f was dropped.
 */
void progress_term_init(void);
void progress_term_hangup(void);
bool progress_term_check(FILE *f, bool failed);
bool progress_term_gone(FILE *f);

/* File-creation progress (init, and run creating what is missing). */
struct create_volume {
	char name[64];
	uint64_t done, total;
	uint64_t started;
	unsigned tenth;
};

struct create_view {
	bool quiet;
	bool tty;
	bool open_line;
	struct create_volume vols[64];
	size_t nvols;
};

void progress_create_update(struct create_view *v, const char *volume, uint64_t done,
			    uint64_t total);
/* Ends the redrawn line, if any. */
void progress_create_end(struct create_view *v);

/*
 * The live view of a run (progress.c), fed by the interval callback: on a
 * terminal a frame redrawn in place at most every LIVE_VIEW_REDRAW_NS (phase,
 * time, per volume and class IOPS, average and p99 latency coloured against
 * the average thresholds, the maximum so far, errors, the running verdict);
 * elsewhere a status line every status_interval_ns of run time;
 * nothing when quiet. Colour only with color set (cli_use_color: NO_COLOR).
 */
#define LIVE_VIEW_REDRAW_NS (NSEC_PER_SEC / 2)

struct live_view {
	bool quiet;
	bool tty;
	bool color;
	bool drawn;	    /* a frame was drawn since the last clear */
	bool draining;	    /* the last frame's */
	unsigned rows;	    /* terminal rows the frame on screen takes */
	unsigned seen;	    /* bit per io_class that had I/O so far */
	uint64_t last_draw; /* time_mono_ns() of the last frame */
	/* status lines (off a terminal, and SIGUSR1) */
	uint64_t status_interval_ns; /* off a terminal: one every this much run time */
	unsigned lines;		     /* periodic lines printed */
	uint64_t line_elapsed;	     /* the last one's run time */
	char phase[16];		     /* and phase */
	/* the intervals since the last line: their time, I/Os and latency
	 * sums (ms x I/Os) per class */
	uint64_t prev_elapsed, acc_ns;
	double acc_ios[IO_CLASS_COUNT], acc_lat[IO_CLASS_COUNT];
};

/* --status-interval's default: a line a minute keeps a 24 h run's log at
 * 1,440 lines (one per interval would be 86,400); every interval is in the
 * results file anyway */
#define STATUS_INTERVAL_DEFAULT_NS (60 * NSEC_PER_SEC)

struct run_interval_view;
void progress_live_interval(struct live_view *lv, const struct run_interval_view *v);
/* SIGUSR1: one status line on stderr (elapsed/total, phase, per class IOPS
 * and average latency since the last line, errors, the running verdict),
 * even with quiet; nothing once the terminal is gone. v NULL: nothing
 * measured yet. */
void progress_live_status(struct live_view *lv, const struct run_interval_view *v);
/* Erases the frame before other output (a message); the next interval draws
 * a new one below it. */
void progress_live_clear(struct live_view *lv);
/* The run is over: the last frame stays where it is. */
void progress_live_end(struct live_view *lv);

#endif
