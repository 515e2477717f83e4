/* SPDX-License-Identifier: MIT */
/*
 * autotune.h - the auto-tune search, as a pure state machine: it is fed one
 * sample (one interval's latency) at a time while a level's transient lasts,
 * then one measurement window, and says whether to go on measuring, to move
 * to another stream count, or that it is done. The runner (tune.c) runs the
 * levels; a unit test drives this with a model.
 *
 * Levels. With step TUNE_STEP_DATABASE (the default) a level is a whole
 * number of streams per database: counts are multiples of the unit (the
 * number of databases) and the search never tries a count in between. With
 * TUNE_STEP_STREAM the unit is one stream.
 *
 * Transient (a latency-slope rule, as Jetstress's). Each sample gives the
 * level's database read and log write averages over one interval. The
 * transient is over when the least-squares slope of the last slope_window
 * samples is at most slope_max_ms per sample for both, in absolute value
 * (latency neither climbing nor falling). A level whose slope stays above
 * the bound for transient_max samples never settled: it fails, and its step
 * says so with the slope it had.
 *
 * Judgment. Once settled, one window (of the runner's length) is measured: it
 * passes when it meets every latency criterion with the margin (averages and
 * maxima at most (1 - margin) x their thresholds, in every database) and had
 * no I/O error.
 *
 * Search. Goal max: counts double from the first (one stream per database)
 * while they pass, then bisect between the highest passing and the lowest
 * failing count down to one unit apart. Goal target: the fewest counts that
 * pass and reach the target IOPS; counts double while they pass below the
 * target, then bisect. Goal iops: the search of goal max, then, of the
 * counts that passed, the one with the most transactional IOPS (the fewest
 * streams of those within TUNE_IOPS_TIE of the most).
 *
 * Plateau stop. When a passing level above the highest passing one so far
 * raises transactional IOPS by less than plateau (a share, 0.05), the search
 * stops and keeps the lower level: past its saturation a device gives no
 * more IOPS for more streams, only more latency. (Goal target: only while
 * the target is not reached, where it means the target is out of reach.)
 *
 * Fallback. When no level passes, the search still chooses a level: the
 * fewest streams it tried (fallback = true), so that the main test runs
 * there and is judged on the real thresholds.
 */
#ifndef DISKPROOF_RUN_AUTOTUNE_H
#define DISKPROOF_RUN_AUTOTUNE_H

#include <stdbool.h>
#include <stdint.h>

#include "diskproof/profile.h"

/* goal iops: IOPS this close to the most count as as many */
#define TUNE_IOPS_TIE 0.03
/* the longest slope window, in samples */
#define TUNE_SLOPE_WINDOW_MAX 600

enum tune_goal {
	TUNE_GOAL_MAX,
	TUNE_GOAL_TARGET,
	TUNE_GOAL_IOPS,
};

enum tune_step_unit {
	TUNE_STEP_DATABASE, /* whole streams per database */
	TUNE_STEP_STREAM,   /* single streams */
};

/* One window's figures: worst database for the latencies. */
struct tune_window {
	double iops; /* transactional: database reads + writes per second */
	double read_avg_ms, read_max_ms, log_avg_ms, log_max_ms;
	char read_db[64]; /* the database with the worst read average */
	char log_db[64];  /* ... and log write average */
	uint64_t errors;
	/* the maxima are the highest sample averages (max_basis = sample), not
	 * the slowest I/Os */
	bool max_sampled;
};

struct tune_step {
	unsigned streams;
	unsigned samples; /* the transient's length, in samples */
	struct tune_window w;
	bool passed;
	bool settled;	    /* the latency slope flattened within transient_max */
	double slope_ms[2]; /* read, log write: the last slope (ms per sample) */
	char reason[240];   /* why it passed or failed */
};

enum tune_next {
	TUNE_MORE,	/* measure on at the same count */
	TUNE_NEXT,	/* level decided: go on with tuner.cur */
	TUNE_DONE,	/* finished: tuner.chosen */
	TUNE_SETTLED,	/* (autotune_sample) the transient is over: measure the window */
	TUNE_UNSETTLED, /* (autotune_sample) it never ended: feed the level's figures so
			 * far to autotune_window_feed, which fails it */
};

/* The least-squares slope of the last n samples of a series, per sample. */
struct tune_slope {
	double y[TUNE_SLOPE_WINDOW_MAX];
	unsigned n;    /* samples kept (at most the window) */
	unsigned next; /* ring position of the next sample */
};

void autotune_slope_reset(struct tune_slope *s);
void autotune_slope_push(struct tune_slope *s, unsigned window, double y);
/* The slope of the samples kept (oldest to newest), in y per sample; 0 with
 * fewer than 2. */
double autotune_slope_get(const struct tune_slope *s, unsigned window);

struct tune_settings {
	enum tune_goal goal;
	enum tune_step_unit step;
	unsigned databases; /* the unit of TUNE_STEP_DATABASE */
	double margin;	    /* 0.10 */
	double plateau;	    /* 0.05; 0: no plateau stop */
	double target_iops;
	unsigned min_streams, max_streams;
	/* the profile's thresholds: the averages and maxima of eval's latency
	 * criteria are judged with the margin */
	struct profile_thresholds thresholds;
	unsigned slope_window;	/* samples (2 .. TUNE_SLOPE_WINDOW_MAX) */
	double slope_max_ms;	/* per sample */
	unsigned transient_max; /* samples; at least slope_window */
};

struct tuner {
	struct tune_settings set;
	unsigned unit; /* streams per step: 1, or the databases */
	/* state */
	unsigned cur;	    /* the count being measured */
	unsigned lo, hi;    /* max: highest passing, lowest failing; target: highest
			     * count not reaching it, lowest reaching it */
	unsigned best_pass; /* the highest passing count so far */
	bool measuring;	    /* the transient of level cur is over */
	bool unsettled;	    /* ... or it never ended */
	unsigned nsamp;	    /* samples of level cur */
	struct tune_slope slope[2];
	struct tune_step *steps;
	unsigned nsteps, cap;
	unsigned chosen; /* 0 until done */
	bool fallback;	 /* no level passed: chosen is the fewest streams tried */
	bool plateau;	 /* the search stopped on the plateau rule */
	char stopped_because[320];
	bool done;
};

/* Copies the settings (min and max streams rounded to the unit). */
void autotune_init(struct tuner *t, const struct tune_settings *set);
/* Feeds one sample of level t->cur's transient (its database read and log
 * write averages over one interval; a sample without I/O is not fed).
 * TUNE_MORE, TUNE_SETTLED, or TUNE_UNSETTLED once transient_max samples
 * passed without a flat slope. */
int autotune_sample(struct tuner *t, double read_ms, double log_ms);
/* Feeds the measurement window of level t->cur, once settled (or after
 * TUNE_UNSETTLED, its figures since it started: the level fails). -ENOMEM,
 * or TUNE_NEXT / TUNE_DONE. */
int autotune_window_feed(struct tuner *t, const struct tune_window *w);
/* Ends the search early (time bound, interrupted): chooses the best level
 * decided so far (the fallback when none passed) and records why. */
void autotune_stop(struct tuner *t, const char *why);
/* The count after n going up (doubled, at most max) and the middle of two
 * counts, on the unit's grid. */
/* The decided level the main test runs at (t->chosen, once done): NULL when
 * no level of that count was decided (the search stopped before one was, or
 * chose a count it never measured). Points into t->steps. */
const struct tune_step *autotune_chosen_step(const struct tuner *t);
unsigned autotune_up(const struct tuner *t, unsigned n);
unsigned autotune_mid(const struct tuner *t, unsigned lo, unsigned hi);
void autotune_release(struct tuner *t);

#endif
