/*
 * autotune.h - the auto-tune search, as a pure state machine: it is fed one
 * measurement window at a time and says whether to measure another window at
 * the same stream count, to move to another count, or that it is done. The
 * runner (run.c) runs the levels; a unit test drives this with a model.
 *
 * A level (a stream count) starts with one window that is never judged (the
 * transient: queues filling, the flusher catching up); then it is decided when
 * two consecutive windows agree (database read and log write averages within
 * 10 % or 0.2 ms, transactional IOPS within 10 %): the latency slope is
 * flat. It passes when both windows pass every latency criterion with the
 * margin (averages and maxima
 * at most (1 - margin) x their thresholds, in every database) and had no I/O
 * error. A level whose windows never agree is decided on its last two windows
 * after TUNE_MAX_WINDOWS, and says so.
 *
 * Goal max: the highest passing count. Counts double from the first (one
 * stream per database) while they pass, then bisect between the highest
 * passing and the lowest failing count down to a difference of one.
 * Goal target: the smallest count that passes and reaches the target IOPS;
 * counts double while they pass below the target, then bisect.
 * Goal iops: the search of goal max, then, of the counts that passed, the
 * one with the most transactional IOPS (the fewest streams of those within
 * TUNE_IOPS_TIE of the most). Past
 * its saturation a device gives no more IOPS for more streams, only more
 * latency (and often fewer IOPS): goal max climbs that slope as long as the
 * thresholds allow, goal iops stops at its top.
 */
#ifndef DISKPROOF_RUN_AUTOTUNE_H
#define DISKPROOF_RUN_AUTOTUNE_H

#include <stdbool.h>
#include <stdint.h>

#define TUNE_MAX_WINDOWS 8
/* two windows agree when their averages differ by at most this share (or
 * 0.2 ms) and their IOPS by at most this share */
#define TUNE_AGREE 0.10
/* goal iops: IOPS this close to the most count as as many */
#define TUNE_IOPS_TIE 0.03

enum tune_goal {
	TUNE_GOAL_MAX,
	TUNE_GOAL_TARGET,
	TUNE_GOAL_IOPS,
};

/* One window's figures: worst database for the latencies. */
struct tune_window {
	double iops; /* transactional: database reads + writes per second */
	double read_avg_ms, read_max_ms, log_avg_ms, log_max_ms;
	char read_db[64]; /* the database with the worst read average */
	char log_db[64];  /* ... and log write average */
	uint64_t errors;
};

struct tune_step {
	unsigned streams;
	unsigned windows; /* windows measured at this level */
	struct tune_window w;
	bool passed;
	bool settled;	  /* two windows agreed */
	char reason[200]; /* why it passed or failed */
};

enum tune_next {
	TUNE_MORE, /* measure another window at the same count */
	TUNE_NEXT, /* level decided: go on with tuner.cur */
	TUNE_DONE, /* finished: tuner.chosen (0: no level passes) */
};

struct tuner {
	/* settings */
	enum tune_goal goal;
	double margin; /* 0.10 */
	double target_iops;
	unsigned min_streams, max_streams;
	double read_avg_ms, read_max_ms, log_avg_ms, log_max_ms; /* thresholds */
	/* state */
	unsigned cur;	    /* the count being measured */
	unsigned lo, hi;    /* max: highest passing, lowest failing; target: highest
			     * count not reaching it, lowest reaching it */
	unsigned best_pass; /* the highest passing count so far */
	struct tune_window prev;
	unsigned nwin;
	struct tune_step *steps;
	unsigned nsteps, cap;
	unsigned chosen; /* 0 until done, or when no level passes */
	char stopped_because[240];
	bool done;
};

void tuner_init(struct tuner *t, enum tune_goal goal, double margin, double target_iops,
		unsigned min_streams, unsigned max_streams, double read_avg_ms, double read_max_ms,
		double log_avg_ms, double log_max_ms);
/* Feeds the next window of level t->cur. -ENOMEM, or an enum tune_next. */
int tuner_window(struct tuner *t, const struct tune_window *w);
/* Ends the search early (time bound, interrupted): chooses the best level
 * decided so far and records why. */
void tuner_stop(struct tuner *t, const char *why);
void tuner_release(struct tuner *t);

#endif
