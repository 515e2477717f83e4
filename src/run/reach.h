/* SPDX-License-Identifier: MIT */
/*
 * reach.h - whether the run's reads reached its devices, as a pure
 * judgement (reach.c has the why of every rule): per block device, the
 * bytes the run's reads asked of it against the bytes /proc/diskstats
 * counted as read in the same measured time. The runner (reach.c's
 * run_reach_finish) gathers the figures; a unit test feeds them.
 * Uses only util (strbuf).
 */
#ifndef DISKPROOF_RUN_REACH_H
#define DISKPROOF_RUN_REACH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diskproof/util.h"

/* A device that read fewer bytes than this share of the run's reads of it
 * did not serve them. */
#define RUN_REACH_MIN_SHARE 0.5
/* Fewer reads than this on a device are not judged (said as unchecked). */
#define RUN_REACH_MIN_READS 256

/* One block device under the volumes, over the measured intervals. */
struct run_reach_device {
	const char *name;		/* the kernel's name ("loop3"); NULL: the volumes
					 * with no block device beneath (tmpfs, NFS) */
	const char *volumes;		/* the volumes whose reads went to it: "a, b" */
	bool counted;			/* its counters were read in every measured interval */
	uint64_t issued_reads;		/* the run's reads of it */
	uint64_t issued_bytes;		/* and their bytes */
	uint64_t issued_sync_writes;	/* the run's write-through (log) writes to it */
	uint64_t dev_reads, dev_writes; /* what /proc/diskstats counted */
	uint64_t dev_bytes;		/* read, sectors x 512 */
};

enum run_reach_state {
	RUN_REACH_NONE,	       /* no reads to judge: nothing said */
	RUN_REACH_REACHED,     /* every device read at least the share */
	RUN_REACH_UNKNOWN,     /* some device could not be judged (and none failed) */
	RUN_REACH_NOT_REACHED, /* some device read less than the share */
};

/*
 * Judges d[0..n): NOT_REACHED when a device that can be judged read fewer
 * bytes than RUN_REACH_MIN_SHARE of the run's reads of it; else UNKNOWN when
 * one with reads cannot be judged (no block device, counters not read in
 * every interval, too few reads, counters that never moved); else REACHED
 * when any had reads; else NONE. Speed is never an input. direct: the run's
 * [engine] direct, for the sentence. why gets one sentence (nothing for
 * NONE). Pure.
 */
enum run_reach_state run_reach_judge(const struct run_reach_device *d, size_t n, bool direct,
				     struct strbuf *why);

/* The event kind a state is stored as: "reads_reached", "reads_not_reached",
 * "reads_unchecked"; NULL for NONE. */
const char *run_reach_event_kind(enum run_reach_state st);

#endif
