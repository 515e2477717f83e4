/* SPDX-License-Identifier: MIT */
/*
 * precondition.h - "init --precondition": after init has made the databases,
 * overwrite them with random page writes until the write IOPS of the device
 * settle, so that a test measures flash as it behaves in service and not a
 * fresh drive's best case (free blocks everywhere, no garbage collection).
 *
 * Steady state is the rule of the SNIA Solid State Storage Performance Test
 * Specification (PTS 2.0.1, "Steady State"): write IOPS are measured per
 * round; over a measurement window of the last `window` rounds (5 in the PTS)
 *   - the data excursion, max - min of the rounds' IOPS, is at most
 *     max_excursion (20 %) of their average, and
 *   - the excursion of the least-squares line fitted to them, |slope| times
 *     (window - 1) rounds, is at most max_slope (10 %) of their average.
 *
 * Every write is a whole page in the on-disk format (page.h) with the page's
 * next generation; the generation journals (journal.h) are read first and
 * written back periodically (as lower bounds) and at the end (exact, when
 * every write completed), so verify and later runs stay exact.
 */
#ifndef DISKPROOF_PRECONDITION_H
#define DISKPROOF_PRECONDITION_H

#include <stdbool.h>
#include <stdint.h>

#include "diskproof/plan.h"
#include "diskproof/profile.h"
#include "diskproof/util.h"

#define PRECONDITION_MAX_DEPTH 4096u
#define PRECONDITION_MAX_WINDOW 1000u

struct precondition_options {
	unsigned depth;	      /* writes in flight per volume, 1..4096; default 32 */
	uint64_t round_ns;    /* one measurement round, >= 1 ms; default 10 s */
	unsigned window;      /* rounds in the measurement window, 2..1000; default 5 */
	double max_excursion; /* max - min over the window <= this x average; 0.20 */
	double max_slope;     /* fitted line's excursion <= this x average; 0.10 */
	uint64_t min_bytes;   /* steady state is not declared before this many bytes
			       * were written (guards against a flat fresh-drive
			       * start); 0 = no minimum, the default */
	uint64_t max_ns;      /* give up after this long, checked at round ends
			       * (result.steady = false); default 2 h */
	int signal_fd;	      /* signalfd with SIGINT/SIGTERM, polled every 20 ms; -1 = none */
	/* called at the end of every round (n from 1), on the caller's thread;
	 * may be NULL */
	void (*round)(void *arg, unsigned n, double iops, bool steady);
	void *arg;
};

struct precondition_result {
	unsigned rounds;     /* complete rounds */
	double final_iops;   /* average write IOPS of the last `window` rounds (fewer
			      * when fewer ran; 0 when none did) */
	uint64_t elapsed_ns; /* from the first write to the journals written */
	uint64_t bytes;	     /* bytes written and acknowledged */
	bool steady;	     /* steady state reached */
	bool interrupted;    /* stopped by a signal */
	int signo;	     /* that signal (SIGINT, SIGTERM), else 0 */
};

/* The defaults above, signal_fd -1, no callback. */
void precondition_options_default(struct precondition_options *o);

/*
 * The steady-state test over iops[0..n): false while n < window; otherwise
 * applies the rule above to the last `window` values. False when their
 * average is not positive. Pure: no I/O, no clock.
 */
bool precondition_steady(const double *iops, unsigned n, unsigned window, double max_excursion,
			 double max_slope);

/*
 * Preconditions the databases of pl (files or block-device regions made by
 * plan_prepare_files(), each with its generation journal; pl built as for
 * init, plan_build() for devices): one io_uring for all, o->depth page writes in
 * flight per volume, pages uniform over each volume's databases (RNG seeded
 * from p->seed), never two writes in flight on one page, O_DIRECT when
 * p->direct.
 *
 * Returns 0 when steady (res->steady) or when max_ns passed first
 * (!res->steady); -EINTR when interrupted through signal_fd (in-flight writes
 * drained, journals written, res->interrupted and res->signo set); -EINVAL for
 * bad options, a plan without files, a file shorter than planned, or a journal
 * that is damaged or of another geometry; -ENOENT for a missing journal (err
 * says "PATH: no generation journal"); another -errno for a failed or short write (err names
 * the file, the offset and the reason), a write pending longer than
 * p->io_timeout_ns (-ETIMEDOUT), or a journal that could not be written. res
 * is filled in every case. Nothing is printed.
 */
int precondition_run(const struct plan *pl, const struct profile *p,
		     const struct precondition_options *o, struct precondition_result *res,
		     struct strbuf *err) DP_MUST_CHECK;

#endif
