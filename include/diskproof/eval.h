/*
 * eval.h - thresholds to verdicts: a pure function of the measured summaries
 * and the profile's thresholds.
 *
 * Criteria, judged for every database, every volume and the run:
 *   db_read_avg_ms    database read average   <= thresholds.db_read_avg
 *   db_read_max_ms    database read maximum   <= thresholds.db_read_max
 *   log_write_avg_ms  log write average       <= thresholds.log_write_avg
 *   log_write_max_ms  log write maximum       <= thresholds.log_write_max
 *   io_errors         failed I/Os             <= thresholds.io_errors
 *   integrity_errors  pages that failed verification   <= 0
 * and for the run only, when the profile sizes a target:
 *   transactional_iops  database reads + writes per second >= target
 * A class with no I/O at a scope has nothing to judge: its latency rows are
 * left out rather than passed on a zero.
 */
#ifndef DISKPROOF_EVAL_H
#define DISKPROOF_EVAL_H

#include <stddef.h>

#include "diskproof/profile.h"
#include "diskproof/results.h"

struct eval_input {
	const struct scope_summary *run;
	const struct scope_summary *volumes;
	size_t nr_volumes;
	const struct scope_summary *databases;
	size_t nr_databases;
	uint64_t target_iops; /* 0: not judged */
};

/* Allocates *out (free() it) with *count verdicts: databases first, then
 * volumes, then the run. 0 or -ENOMEM. */
int eval_judge(const struct eval_input *in, const struct profile_thresholds *t,
	       struct verdict **out, size_t *count) DP_MUST_CHECK;

/* true when every verdict passed */
bool eval_all_passed(const struct verdict *v, size_t count);

#endif
