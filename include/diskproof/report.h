/* SPDX-License-Identifier: MIT */
/*
 * report.h - results model to text and JSON. Renderers compute nothing: they
 * format what struct results holds.
 *
 * text: the terminal summary: the verdict block first (the verdict, each
 *       failing criterion with its margin and where, "db3 on vol2 (sdc):
 *       database read average 21.4 ms > 20 ms (+7 %)", why, the count of
 *       verdicts), then a per-volume table (a row per class present,
 *       results_class_present(): IOPS, MB/s, avg, p99, max, verdict),
 *       transactional IOPS and the background maintenance, replication and
 *       backup read rates when present, the warm-up (not judged), the
 *       auto-tune steps and the host counters (CPU, memory, a row per block
 *       device: results_host_perf) when the run had them. Every line fits
 *       report_options' width: the tables drop their least needed columns
 *       (all with wide), other lines wrap at a space. The effective
 *       parameters are a text of their own (params).
 * json: every class of every scope, present or not (zeros): stable keys.
 *       One valid document, keys documented in docs/reports.md:
 *   { "run": {id, status, verdict, label, host, started, ended, duration_s,
 *             warmup_s, engine, test_type, streams, profile},
 *     "summary": {classes: {...}, transactional_iops},
 *     "volumes": [ {name, classes: {db_read: {ios, iops, mbps, avg_ms, p50_ms,
 *                   p99_ms, max_ms, errors, bytes}, db_write: ..., log_write: ...,
 *                   bdm_read: ..., log_read: ..., backup_read: ...}} ],
 *     "databases": [ {name, volume, classes: {...}} ],
 *     "verdicts": [ {scope, name, criterion, threshold, measured, passed} ],
 *     "warmup": {duration_s, classes: {db_read: {ios, iops, avg_ms, errors},
 *                ...}} or null,
 *     "autotune": {goal, chosen, stopped_because, steps: [ {step, streams, iops,
 *                  db_read_avg_ms, log_write_avg_ms, passed, reason} ]} or null,
 *     "host": {cpu: {intervals, user_pct, system_pct, iowait_pct} or null,
 *              memory: {intervals, available_min_bytes, available_avg_bytes} or
 *              null, devices: [ {name, intervals, reads, writes, reads_per_s,
 *              writes_per_s, read_mbps, write_mbps, read_wait_ms, write_wait_ms,
 *              avg_wait_ms, util_pct, util_max_pct, queue} ]} or null }
 * csv:  the interval time series (csv.c): header
 *   run_id,t_ms,warmup,scope,name,class,ios,iops,mb_s,avg_ms,p50_ms,p99_ms,max_ms,errors
 *       then, for each interval of each scope in the order of r->samples, one
 *       line per class the scope has I/O or errors of in some interval, in
 *       class order: the stored sample, or zeros where none was stored
 *       (results.h). A class with neither in any interval of a scope has no
 *       lines there. iops and mb_s are the counts over the interval's length,
 *       the difference to the previous t_ms of the same scope and name (the
 *       first interval from 0); latencies are empty for an interval with no
 *       I/O. Names are quoted as RFC 4180 says.
 * html: one self-contained page (html_run.c) that loads nothing over the
 *       network, with Jetstress's sections and inline SVG charts; every
 *       string from the results is HTML-escaped. Layout in docs/reports.md.
 *
 * The formats are one const table (report.c): a name, the renderer of a run
 * and, for text, json and html, the renderer of a comparison
 * (report_compare_render, below).
 */
#ifndef DISKPROOF_REPORT_H
#define DISKPROOF_REPORT_H

#include <stdbool.h>

#include "diskproof/analyze.h"
#include "diskproof/results.h"
#include "diskproof/util.h"

enum report_format { REPORT_TEXT, REPORT_JSON, REPORT_CSV, REPORT_HTML, REPORT_FORMAT_COUNT };

/* -1 when unknown */
int report_format_from_name(const char *name);
/* "text", "json", ...; NULL when fmt is not a format. */
const char *report_format_name(enum report_format fmt);
/* Whether a comparison can be rendered in fmt (text, json, html). */
bool report_format_compares(enum report_format fmt);

struct report_options {
	bool color; /* ANSI colours in text (only on a terminal, not with NO_COLOR) */
	/* text: the columns a line may take (0: REPORT_TEXT_WIDTH); the
	 * tables drop their least needed columns to fit, and the other
	 * lines wrap at a space */
	unsigned width;
	bool wide;	   /* text: every table with all its columns (report --wide) */
	bool params;	   /* text: the run's effective parameters alone (report --params) */
	bool verdict_only; /* text: the verdict block alone (run -q) */
};

/* The text report's width when report_options gives none. */
#define REPORT_TEXT_WIDTH 120

/* r in format fmt, appended to out; opt may be NULL. Nothing for an unknown fmt. */
void report_render(struct strbuf *out, const struct results *r, enum report_format fmt,
		   const struct report_options *opt);

/*
 * What the renderers format: one comparison (two runs) or several, each
 * later run against the baseline (pairs[i] = runs[0] against runs[i + 1],
 * every pair's a the same run), and the regressions found when gated. All
 * borrowed.
 */
struct report_compare_view {
	const struct analyze_comparison *pairs;
	size_t nr_pairs;
	bool all;	 /* --all: every figure, not only the listed ones */
	bool gate;	 /* --fail-on-regression given */
	double gate_pct; /* its percentage */
	const struct analyze_regression *regressions;
	size_t nr_regressions;
	/* compare --allow-mixed with simulated and real runs: the sentence that
	 * says which (the first line of the text, "mixed_engines" in the JSON,
	 * a note at the top of the HTML); NULL otherwise (borrowed) */
	const char *mixed;
	/* the sides (A first, then each B: nr_pairs + 1) and, per pair, the test
	 * over their runs (analyze.h, "Runs as replicates"); NULL when the view
	 * was built from two runs alone (report_compare_render) */
	const struct report_compare_side *sides;
	const struct analyze_replicates *reps;
	enum analyze_gate_outcome outcome; /* with gate */
	unsigned runs_needed;		   /* INCONCLUSIVE: runs per side that would decide */
};

/* One side of a comparison: its runs by id, and the series they are. */
struct report_compare_side {
	const int64_t *ids;
	size_t n;
	int64_t series;	 /* the series' name (lowest id); 0: not a whole series */
	bool from_label; /* label:TEXT grew to the series of its newest run */
};

/*
 * Renderers of a comparison (src/report/compare.c): REPORT_JSON gives JSON,
 * any other format text (cli_cmd_compare accepts text and json only); keys and
 * layout in docs/compare.md. They format c and compute nothing.
 */
void report_compare_render(struct strbuf *out, const struct analyze_comparison *c,
			   enum report_format fmt, const struct report_options *opt);
/* The same for a view of one or more comparisons (docs/compare.md). */
void report_compare_view_render(struct strbuf *out, const struct report_compare_view *v,
				enum report_format fmt, const struct report_options *opt);

/*
 * A run's series (run --repeat N; report/series.c): the place of the run,
 * "run 2 of 3 in series 4" (nothing outside a series), and the series'
 * section as text: its verdict, runs and, per judged figure, mean, min, max
 * and coefficient of variation across the runs (nothing without r->series).
 * The text report shows both; run --repeat prints the section at its end.
 */
void report_series_place(struct strbuf *sb, const struct results *r);
void report_series_text(struct strbuf *sb, const struct results *r);

/* Human text for a verdict: "db3 on vol2: database read average 21.4 ms > 20 ms". */
void report_verdict_line(struct strbuf *out, const struct verdict *v);

/* Appends s (NULL: "-") for a terminal: control characters (below 0x20, and
 * 0x7f) as \xNN, so a label or host name cannot move the cursor, clear the
 * screen or fake a verdict line. A backslash itself stays as it is. */
void report_text_escape(struct strbuf *out, const char *s);

/* A failed verdict's margin past its threshold, relative to it: " (+7 %)";
 * nothing for a pass, a threshold of 0, or a count or percentage criterion
 * (docs/verdicts.md). */
void report_verdict_margin(struct strbuf *out, const struct verdict *v);

/* What a verdict's line leaves out and run r holds, after its margin: for
 * autotune_settled, "; the main test ran at 15 streams"; nothing else. */
void report_verdict_context(struct strbuf *out, const struct results *r, const struct verdict *v);

/*
 * Fleet reports (fleet.c, "diskproof fleet"): the runs of many hosts that
 * ran together (run --start-at, deploy/ansible) as one report.
 *
 * Per run (never per host name: two machines may share one), its whole-run
 * figures as its own report gives them, and where its load began against
 * the earliest load of the fleet. Fleet totals per class: counts, bytes,
 * errors and latency sums added, maxima the maximum, and every percentile
 * from the runs' whole-run histograms merged bucket by bucket (hist_merge:
 * exact, never an average of percentiles); IOPS and MB/s are the sums of the
 * runs' rates (what the fleet did together). A class whose histogram a run
 * with I/O of it lacks (a run killed before its first checkpoint) has its
 * percentiles NAN and hist_complete false.
 *
 * Hosts that differ: for each run and each figure of REPORT_FLEET_FIG, the
 * run's per-interval series of the run scope (analyze_series,
 * analyze_series_trans) is tested against the series of every other run
 * pooled (analyze_mann_whitney), Holm's correction within the run's figures
 * (analyze_holm) at alpha. A figure differs when it is significant and
 * material: |change_pct| >= ANALYZE_MIN_CHANGE_DEFAULT, change_pct being
 * the run's whole-run figure against the median of every run's own figure
 * (the run's included). The median, because the pool holds any outlier:
 * with three runs of which one is slow, the test of either fast one
 * against a pool half slow can be significant, but the fast one is the
 * fleet's median itself. With two runs, a material difference flags both:
 * nothing says which one is odd.
 *
 * The fleet's verdict: it passes when every run's verdict is PASS and
 * every host expected (report_fleet_expect) has a run among them; a run
 * that failed, ended in an error or was aborted, and a host with no run,
 * fail it: a host whose storage failed is never merely absent. A run whose
 * load began REPORT_FLEET_LATE_MS or more after its start instant is late
 * (named, with how late; the verdict is its own run's).
 */
enum report_fleet_fig {
	REPORT_FLEET_TRANS_IOPS,
	REPORT_FLEET_DB_READ_AVG,
	REPORT_FLEET_LOG_WRITE_AVG,
	REPORT_FLEET_FIG_COUNT,
};

/* "trans_iops", "db_read_avg_ms", "log_write_avg_ms" (JSON) and their
 * words ("transactional IOPS", ...). */
const char *report_fleet_fig_key(enum report_fleet_fig f);
const char *report_fleet_fig_words(enum report_fleet_fig f);

/* A tenth of the 1 s interval: a load begun this much after its instant
 * still overlaps the others' intervals; later is named as late. */
#define REPORT_FLEET_LATE_MS 100.0

struct report_fleet_diff {
	double value;	   /* the run's whole-run figure (NAN: none) */
	double median;	   /* of every run's own figure (NAN: none has one) */
	double change_pct; /* analyze_change_pct(median, value) */
	bool tested;	   /* a series of at least 2 intervals on both sides */
	double p_value;	   /* NAN when not tested */
	bool significant;  /* after Holm within the run */
	bool differs;	   /* significant, material and outside the others' range */
};

struct report_fleet_host {
	const struct results *r; /* borrowed */
	double trans_iops;	 /* NAN: the run measured nothing (duration 0) */
	double db_read_avg_ms, db_read_p99_ms, db_read_max_ms, log_write_avg_ms; /* NAN: no I/O */
	/* open loop (arrival = rate): the run's db_read response time, avg ms
	 * (docs/verdicts.md); NAN for a closed-loop run, which has none */
	double db_read_resp_avg_ms;
	bool simulated;		/* engine sim: figures from a model (results_simulated) */
	uint64_t ios;		/* every class of the run's summary */
	bool has_load;		/* load_started_at stored and readable */
	int64_t load_us;	/* it, Unix microseconds */
	double start_offset_ms; /* after the earliest load of the fleet; NAN without */
	/* load_started_at - start_at (the instant it was given), ms; NAN
	 * without both; late: at least REPORT_FLEET_LATE_MS */
	double late_ms;
	bool late;
	struct report_fleet_diff diff[REPORT_FLEET_FIG_COUNT];
	bool differs; /* any diff[].differs */
	/* the host's clock as the run recorded it (host.clock.* facts, its
	 * "clock" event): borrowed from r, NULL / NAN where not recorded */
	const char *clock_synchronised; /* "yes", "no", "unknown" */
	double clock_max_error_ms;
	const char *clock_warning;
};

struct report_fleet_skip {
	int64_t id;
	const char *why; /* static */
};

struct report_fleet {
	const char *const *selectors; /* borrowed, as given */
	size_t nr_selectors;
	/* fleet --allow-mixed with simulated and real runs: the sentence that
	 * says which, shown first in every format; NULL otherwise (borrowed) */
	const char *mixed;
	struct report_fleet_host *hosts; /* in run id order */
	size_t nr_hosts;
	size_t nr_host_names; /* distinct host names among them */
	/* runs whose verdict is FAIL; runs that ended in an error or were
	 * aborted (nothing judged: no FAIL, yet no pass either) */
	size_t nr_failed, nr_unjudged;
	size_t nr_passed; /* runs whose verdict is PASS */
	size_t nr_late;	  /* hosts[].late */
	/* the hosts expected (report_fleet_expect; borrowed) and those of them
	 * with no run among hosts[] (pointers into expected) */
	const char *const *expected;
	size_t nr_expected;
	const char **missing;
	size_t nr_missing;
	bool passed; /* the fleet's verdict (above) */
	struct report_fleet_skip *skipped;
	size_t nr_skipped;
	double alpha;
	bool has_skew;	      /* at least 2 runs with load_started_at */
	double start_skew_ms; /* max - min load_started_at, ms (us resolution) */
	/* the largest max error the runs' clocks reported (NAN: none did): the
	 * skew is as each host's clock read it, so the true one may be off by
	 * up to about twice this */
	double clock_max_error_ms;
	size_t nr_no_load;	      /* runs without load_started_at */
	size_t nr_no_start_at;	      /* runs not started with --start-at */
	struct scope_summary summary; /* fleet totals, name "fleet" */
	bool hist_complete[IO_CLASS_COUNT];
	uint64_t ios; /* summary's ios over every class */
	/* "" or why the runs are not one load: of several profiles, or
	 * measured for different durations (their totals then add unlike
	 * loads, and the differs test compares them) */
	struct strbuf unlike;
};

/*
 * "2026-12-03T15:20:00.000123Z" (RFC 3339 UTC, fraction of up to 9 digits,
 * or none) to Unix microseconds: 0, or -EINVAL.
 */
int report_fleet_parse_time(const char *s, int64_t *us) DP_MUST_CHECK;

/* Merges class c of the run summaries and whole-run histograms of runs[0..n)
 * into out as the fleet totals do (above); *complete false when a run with
 * I/O of c has no histogram of it (percentiles NAN then). */
void report_fleet_merge_class(const struct results *runs, size_t n, enum io_class c,
			      struct class_summary *out, bool *complete);

/*
 * Builds the fleet report of runs[0..n) (borrowed: they must outlive it;
 * skipped[0..nr_skipped) copied) at alpha. 0, or -ENOMEM with err filled.
 * report_fleet_release() frees it, safe on a zeroed or released one.
 */
int report_fleet_build(struct report_fleet *f, const struct results *runs, size_t n,
		       const struct report_fleet_skip *skipped, size_t nr_skipped, double alpha,
		       struct strbuf *err) DP_MUST_CHECK;
void report_fleet_release(struct report_fleet *f);

/*
 * The hosts a fleet run was given (names as run.host holds them,
 * hosts[0..n) borrowed: they must outlive f), after report_fleet_build:
 * each with no run among f's rows is missing (f->missing, in the order
 * given, a name given twice once) and fails the fleet. 0, or -ENOMEM with
 * err filled.
 */
int report_fleet_expect(struct report_fleet *f, const char *const *hosts, size_t n,
			struct strbuf *err) DP_MUST_CHECK;

/*
 * Whether run h of a fleet fails the fleet's verdict: its verdict is not
 * PASS (FAIL, or an error or abort that judged nothing).
 */
bool report_fleet_host_failed(const struct report_fleet_host *h);

/*
 * The "differs from its peers" finding, apart from the verdict: NULL with
 * fewer than 2 runs or when a passing run differs (the runs that differ are
 * listed); "apart from the failing hosts, no host differs from its peers"
 * while any run fails (a failing host is never "no different"); else "no
 * run differs significantly from the rest". Static storage.
 */
const char *report_fleet_finding(const struct report_fleet *f);

/* Renders f as text, JSON (docs/schema/fleet.schema.json) or HTML; any
 * other format as text. */
void report_fleet_render(struct strbuf *out, const struct report_fleet *f, enum report_format fmt,
			 const struct report_options *opt);

#endif
