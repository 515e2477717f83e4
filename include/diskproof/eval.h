/* SPDX-License-Identifier: MIT */
/*
 * eval.h - thresholds to verdicts: a pure function of the measured summaries
 * and the profile's thresholds. docs/verdicts.md explains every criterion.
 *
 * Criteria, judged for every database, every volume and the run (t is the
 * profile's struct profile_thresholds):
 *   db_read_avg_ms    database read average   <= t->db_read_avg
 *   db_read_max_sample_avg_ms  (max_basis = sample) the highest average
 *                     over one sample_interval <= t->db_read_max
 *   db_read_max_ms    (max_basis = io) the slowest database read <= t->db_read_max
 *   log_write_avg_ms  log write average       <= t->log_write_avg
 *   log_write_max_sample_avg_ms, log_write_max_ms  as db_read's, <= t->log_write_max
 *   io_errors         failed I/Os             <= t->io_errors
 *   integrity_errors  pages that failed verification   <= 0
 * A maximum judged on samples falls back to the slowest I/O (and its io
 * name) for a scope whose sample figure is unknown (NAN).
 * optional, each only when the profile switches it on:
 *   db_read_p99_ms, log_write_p99_ms      the class summary's p99
 *                                         <= t->db_read_p99 / t->log_write_p99
 *   db_read_interval_avg_ms, log_write_interval_avg_ms
 *                                         the highest 15 s window average
 *                                         <= the class's average threshold
 *                                         (t->interval_avg)
 *   db_read_cv_pct, log_write_cv_pct      the coefficient of variation of
 *                                         the 15 s window averages, in %,
 *                                         <= t->db_read_cv / t->log_write_cv
 *   page_fault_stalls                     page fault stalls per second per
 *                                         database (a volume's and the run's
 *                                         rate over their databases, as
 *                                         Jetstress judges each instance)
 *                                         <= t->page_fault_stalls, where the
 *                                         profile sets it and the scope
 *                                         counted them (stalls_recorded)
 * rolled up, so that a volume fails with any of its databases and the run
 * with any of its volumes:
 *   databases_failed  (volumes) databases of the volume with a failed verdict <= 0
 *   volumes_failed    (the run) volumes with a failed verdict                 <= 0
 * and for the run only, when the profile sizes a target:
 *   transactional_iops  database reads + writes per second >= target
 * and for the run only, when auto-tune chose the level (streams = auto) and
 * t->autotune_settled is on, first of all the verdicts (it says whether the
 * rest measured a level whose latency had settled):
 *   autotune_settled  the latency slope of the level the main test ran at,
 *                     in ms per sample, absolute (of a level that never
 *                     settled, the slope that kept it from settling; of a
 *                     settled one, the steeper of database reads and log
 *                     writes) <= the slope that ends a level's transient
 *                     (autotune_slope_max): above it, the level never
 *                     settled
 *
 * A class with no I/O at a scope has nothing to judge: its latency rows are
 * left out rather than passed on a zero. The window criteria are left out
 * when the window stats are unknown (NULL in eval_input) or no window had
 * I/O of the class; the dispersion criterion also needs two windows. The
 * lenient set (stress tests, runs over 6 h) is applied by the profile to the
 * maxima only: eval judges whatever thresholds it is given. Summaries and
 * windows exclude the warm-up (the runner measures them after it), so the
 * warm-up is never judged.
 */
#ifndef DISKPROOF_EVAL_H
#define DISKPROOF_EVAL_H

#include <stddef.h>

#include "diskproof/profile.h"
#include "diskproof/results.h"

/*
 * What the measured 15 s windows of one scope and class said (warm-up
 * windows excluded): the optional per-interval and dispersion criteria judge
 * these. A window without I/O of the class is not counted.
 */
struct eval_window_stats {
	unsigned n;	   /* windows with I/O of the class */
	double max_avg_ms; /* the highest window average */
	double mean_ms;	   /* the mean of the window averages */
	double cv;	   /* their coefficient of variation: sd / mean (0 when n < 2) */
};

/* What auto-tune measured of the level the main test ran at (autotune_settled):
 * the slope its transient was decided on. */
struct eval_autotune {
	double slope_ms;     /* |slope|, ms per sample (the list above) */
	double slope_max_ms; /* the slope that ends a transient (autotune_slope_max) */
};

struct eval_input {
	const struct scope_summary *run;
	const struct scope_summary *volumes;
	size_t nr_volumes;
	const struct scope_summary *databases;
	size_t nr_databases;
	uint64_t target_iops; /* 0: not judged */
	/* optional, NULL when unknown (the window criteria are then not judged):
	 * [IO_CLASS_COUNT] for the run, [nr_volumes * IO_CLASS_COUNT] and
	 * [nr_databases * IO_CLASS_COUNT] */
	const struct eval_window_stats *run_windows;
	const struct eval_window_stats *volume_windows;
	const struct eval_window_stats *database_windows;
	/* the run tuned and its level was measured; NULL otherwise (not judged) */
	const struct eval_autotune *autotune;
};

/* Allocates *out (free() it) with *count verdicts: autotune_settled when
 * judged, then databases, volumes and the run. 0 or -ENOMEM. */
int eval_judge(const struct eval_input *in, const struct profile_thresholds *t,
	       struct verdict **out, size_t *count) DP_MUST_CHECK;

/* true when every verdict passed */
bool eval_all_passed(const struct verdict *v, size_t count);

/* ---- the criteria table, for the judges that apply it elsewhere ---- */

/* The criteria of one judged latency class, by name (the list above). */
struct eval_class_criteria {
	enum io_class cls;
	const char *avg, *max, *max_sample, *p99, *interval_avg, *cv;
};

/* The judged latency classes in the order eval judges them (database
 * reads, then log writes), n entries, static storage. Auto-tune's window
 * judge (run/autotune.c) walks it too. */
const struct eval_class_criteria *eval_class_criteria(size_t *n);

/* A class's thresholds under t; 0 for an optional one that is off. */
struct eval_class_limits {
	uint64_t avg_ns, max_ns, p99_ns;
	double cv_pct;
};

struct eval_class_limits eval_class_limits(const struct profile_thresholds *t, enum io_class c);

/* Whether measured meets threshold under cmp: the one comparison of every
 * verdict (and of auto-tune's window judge). */
bool eval_passes(enum verdict_cmp cmp, double threshold, double measured);

#endif
