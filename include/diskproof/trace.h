/* SPDX-License-Identifier: MIT */
/*
 * trace.h - the BPF tracing source of a fingerprint (docs/learn.md, "The BPF
 * source"): the block layer's requests on a fingerprint's devices, counted
 * in the kernel by src/learn/blockio.bpf.c, read back into each role's
 * struct learn_trace_role (learn.h), and the figures derived from them. In
 * the learn layer; uses learn.h and util. Nothing here prints.
 *
 * Built only where CMake found libbpf, clang and bpftool
 * (DISKPROOF_HAVE_BPF); elsewhere learn_trace_start says so and the rest
 * (the arithmetic, the JSON) works the same.
 *
 * Ownership: a struct learn_tracer is the caller's from learn_trace_start
 * to learn_trace_release (safe on NULL). Functions return 0 or -errno with
 * the reason in a status string.
 */
#ifndef DISKPROOF_TRACE_H
#define DISKPROOF_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diskproof/learn.h"
#include "diskproof/util.h"

struct json;
struct learn_tracer;

/* ---- the source ---- */

/* Whether this diskproof was built with the BPF source. */
bool learn_trace_built(void);

/* Loads the BPF program, fills its device filter with the dev_t of fp's
 * watched devices (role by role, from sysfs: "/sys" but in tests) and
 * attaches it (tp_btf, else raw_tp). Counting starts at learn_trace_begin.
 * 0 with *out set, or -ENOTSUP (not built), -EPERM (not privileged),
 * -errno; status says which ("used (tp_btf)", "needs root ..."). */
int learn_trace_start(const char *sysfs, const struct learn_fp *fp, struct learn_tracer **out,
		      char *status, size_t len) DP_MUST_CHECK;

/* The window starts at t0_ns (CLOCK_MONOTONIC): requests issued before it
 * are not counted. */
void learn_trace_begin(struct learn_tracer *t, uint64_t t0_ns);

/* The window ended at end_ns after seconds: reads the kernel's counts into
 * each present role of fp (role.trace), derives the figures. 0 or -errno. */
int learn_trace_end(struct learn_tracer *t, uint64_t end_ns, double seconds, struct learn_fp *fp);

/* Detaches and frees. Safe on NULL. */
void learn_trace_release(struct learn_tracer *t);

/* ---- the arithmetic (pure; tests/unit/test_learn_trace.c) ---- */

/* Derives t's figures from its counts and the window's sketches: the
 * region sketch's I/O counts (region_ios[nregions], any order: sorted here),
 * the issues per 100 ms slot (slot_issues[nslots], the window's whole slots)
 * and the gap sums (gap_us, gap_us2 over t->gaps). */
void learn_trace_derive(struct learn_trace_role *t, uint64_t *region_ios, size_t nregions,
			const uint32_t *slot_issues, size_t nslots, double gap_us, double gap_us2);

/* One request as the BPF program sees it, for learn_trace_account. */
struct learn_trace_event {
	uint64_t issue_ns, complete_ns; /* window-relative; complete 0: not completed */
	uint32_t cmd_flags;		/* the kernel's REQ_OP and REQ_ flags */
	uint32_t bytes;
	uint64_t sector;
	unsigned dev; /* an index of the caller's: the device's previous request matters */
};

/* The user-space reference of the kernel program's rules (blockio.bpf.c):
 * events planted in order of issue are counted into t, their regions and
 * slots into the caller's arrays (regions: at most *nregions_max kept as
 * {region, ios} pairs; slots indexed by issue_ns / 100 ms). Used by the unit
 * test of the arithmetic, never on a traced path. */
struct learn_trace_acc {
	struct learn_trace_role *t;
	uint64_t (*regions)[2];
	size_t nregions, nregions_max;
	uint32_t *slots, *wslots; /* wslots: writes alone (may be NULL) */
	uint64_t *wsvc;		  /* their service times, ns (may be NULL) */
	size_t nslots;
	uint64_t last_end[8], last_op[8], last_issue;
	uint64_t pending[256]; /* completion times of the requests in flight */
	size_t npending;
	double gap_us, gap_us2;
};

void learn_trace_account(struct learn_trace_acc *acc, const struct learn_trace_event *ev);

/* ---- figures and JSON ---- */

#define LEARN_TRACE_FIGURES 19

/* The trace figures of role r of fp (none when it has no trace) into out,
 * keys "data.trace.sequential_pct" and so on; returns how many. None is
 * asserted in a comparison (docs/learn.md says why). Pure. */
size_t learn_trace_figures(const struct learn_fp *fp, int r, struct learn_figure *out);

/* The learned profile's header lines of the BPF source (learn.c): used or
 * why not, and per traced role its figures, as "; " comment lines. */
/* The write bursts of t from the writes per 100 ms slot (wslot_writes[nslots],
 * the window's whole slots) and their service times in ns (wslot_svc, by
 * the slot of their issue; NULL: not kept): a burst is a run of slots with
 * at least LEARN_BURST_FACTOR times the mean (and LEARN_BURST_MIN writes).
 * Sets t->bursts, t->burst_share, t->burst_interval_s, t->burst_peak and
 * t->burst_depth. */
#define LEARN_BURST_FACTOR 4.0
#define LEARN_BURST_MIN 20
void learn_trace_bursts(struct learn_trace_role *t, const uint32_t *wslot_writes,
			const uint64_t *wslot_svc, size_t nslots);

void learn_trace_header(const struct learn_fp *fp, struct strbuf *out);

/* The role's "trace" object (docs/schema/fingerprint.schema.json). */
void learn_trace_json(const struct learn_fp *fp, int r, struct json *j);

/* A number of the "trace" object at key (the dotted path below "trace.")
 * into t, when it is one the reader keeps. */
void learn_trace_json_number(struct learn_trace_role *t, const char *key, double v);

#endif
