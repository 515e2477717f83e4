/* SPDX-License-Identifier: MIT */
/*
 * check.h - the probes and rules of "diskproof check" (env/check.c): each
 * rule is a pure function that judges facts it is given (a mount, the memory
 * a run needs and the memory there is, an open-file limit, ...) and says OK,
 * WARN or FAIL, with why; the probes (direct I/O at a path) only look or
 * write a temporary file that outlives nothing. The command (cli/cmd_check.c)
 * gathers the facts, calls these and prints the lines; docs/environment.md
 * explains the rules. Uses env.h, profile.h and util.h only.
 */
#ifndef DISKPROOF_CHECK_H
#define DISKPROOF_CHECK_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diskproof/env.h"
#include "diskproof/profile.h"

/* A finding: the run works (OK); works, but its figures may mislead
 * (WARN); would not start, or not as asked (FAIL). */
enum env_check_level {
	ENV_CHECK_OK,
	ENV_CHECK_WARN,
	ENV_CHECK_FAIL,
};

/* ---- rules ---- */

/* What a filesystem's type and mount options say about a run on it; the
 * worst finding wins (read-only over barriers over the type). *why is ""
 * or ": REASON", static storage. */
enum env_check_level env_check_fs(const struct env_mount *m, const char **why);

/* The CPU frequency governor: WARN when it clocks down between I/Os
 * (powersave, as env_cpufreq_governor says). */
enum env_check_level env_check_governor(bool powersave);

/* The memory a run needs (need bytes) against MemAvailable (avail bytes; 0:
 * unknown, then OK): FAIL over it, WARN over half of it. *why is "" or ":
 * REASON", static storage. */
enum env_check_level env_check_memory(uint64_t need, uint64_t avail, const char **why);

/* The open files a run of that many databases needs: 2 per database and 64
 * more (what cli_nofile_raise raises the limit to). */
uint64_t env_nofile_need(uint64_t databases);

/* need open files against the hard limit (UINT64_MAX: unlimited): FAIL
 * when the limit is lower. */
enum env_check_level env_check_nofile(uint64_t need, uint64_t hard_limit);

/* Free space: need bytes still to write against free bytes (free_known
 * false: unknown, a WARN); FAIL when they do not fit. */
enum env_check_level env_check_space(uint64_t need, uint64_t free, bool free_known);

/* A volume's NUMA finding: WARN when its disks are on several nodes
 * (node_mask, a bit per node). */
enum env_check_level env_check_numa_volume(uint64_t node_mask);

/* lv, the volume's finding so far, with one more worker that drives it:
 * FAIL when its placement failed (place_ret != 0, env_numa_place); WARN
 * when soft affinity on several nodes left it unplaced and lv was OK. */
enum env_check_level env_check_numa_worker(enum env_check_level lv, int place_ret, bool placed,
					   enum profile_affinity affinity, unsigned nr_nodes);

/* ---- probes ---- */

/* What the direct I/O probe did at a path. */
struct env_direct_result {
	/* what was probed: the device, or the directory the temporary file was
	 * made in; "" when path's nearest existing ancestor was not found */
	char where[PATH_MAX];
	size_t len;	  /* the block's bytes: the alignment, at least 4096 */
	bool device;	  /* a block device: only read, never written */
	bool refused;	  /* the filesystem refuses O_DIRECT (a file opens without) */
	const char *step; /* the step that failed: "open", "create a file", "write",
			   * "read", "compare"; NULL when where could not be
			   * found or stat'ed. Static storage. */
};

/*
 * One aligned block of len bytes written and read back with O_DIRECT in an
 * unnamed temporary file beside path (its nearest existing directory; a
 * file's directory), or read from the block device at path. Nothing
 * outlives it. 0, or -errno with r->step the step that failed.
 */
int env_direct_probe(const char *path, uint32_t align, struct env_direct_result *r);

#endif
