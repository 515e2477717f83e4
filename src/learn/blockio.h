/* SPDX-License-Identifier: MIT */
/*
 * blockio.h - what the BPF program blockio.bpf.c and its reader trace.c
 * share: the layout of the kernel-side aggregates and the small pure rules
 * both sides apply (bucket of a size or a time, the op of a request's
 * flags, the 1 MiB region of a sector). A private header of src/learn/;
 * uses only the kernel's fixed-width types (linux/types.h in user space,
 * vmlinux.h in the BPF program).
 *
 * Aggregation in the kernel (docs/learn.md, "The BPF source"): per role a
 * per-CPU struct blockio_role (counts and log2 histograms, no locks), a
 * hash of 1 MiB regions touched with their I/O counts (bounded: when full,
 * an I/O's region is dropped and counted), an array of issues per
 * 100 ms slot of the window and one of writes alone, and the role's
 * requests in flight (a counter of the program's). User space sums the
 * CPUs and derives the figures (trace.c).
 */
#ifndef DISKPROOF_LEARN_BLOCKIO_H
#define DISKPROOF_LEARN_BLOCKIO_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define BLOCKIO_ROLES 2
#define BLOCKIO_BUCKETS 32	     /* log2 buckets: sizes in bytes, times in us */
#define BLOCKIO_REGION_SHIFT 11	     /* 512-byte sectors: 2^11 sectors = 1 MiB */
#define BLOCKIO_REGIONS_MAX 131072   /* regions kept (128 GiB touched) */
#define BLOCKIO_SLOT_NS 100000000ull /* 100 ms */
#define BLOCKIO_SLOTS 36000	     /* an hour of 100 ms slots per role */
#define BLOCKIO_INFLIGHT_MAX 16384
#define BLOCKIO_DEVS_MAX 64

enum blockio_op {
	BLOCKIO_READ,
	BLOCKIO_WRITE,
	BLOCKIO_FLUSH,
	BLOCKIO_DISCARD,
	BLOCKIO_OTHER,
	BLOCKIO_OPS,
};

/* The kernel's request flag bits (include/linux/blk_types.h: REQ_OP_BITS 8,
 * then enum req_flag_bits), stable since 4.10. */
#define BLOCKIO_REQ_OP_MASK 0xffu
#define BLOCKIO_REQ_SYNC (1u << 11)
#define BLOCKIO_REQ_META (1u << 12)
#define BLOCKIO_REQ_FUA (1u << 17)
#define BLOCKIO_REQ_PREFLUSH (1u << 18)

/* One role's counts on one CPU (the value of the per-CPU array "roles"). */
struct blockio_role {
	__u64 ops[BLOCKIO_OPS];
	__u64 bytes[BLOCKIO_OPS];
	__u64 sizes[2][BLOCKIO_BUCKETS];	     /* reads, writes: log2 of the bytes */
	__u64 service[BLOCKIO_OPS][BLOCKIO_BUCKETS]; /* log2 of issue->complete us */
	__u64 service_ns[BLOCKIO_OPS];		     /* their sum */
	__u64 completed[BLOCKIO_OPS];
	__u64 fua_writes, preflush_writes, sync_writes, meta_ios;
	__u64 flush_after_write; /* a flush whose device's previous request was a write */
	__u64 sequential;	 /* a read or write starting where the device's previous ended */
	__u64 gaps, gap_us, gap_us2; /* issue gaps within the role: n, sum, sum of squares */
	__u64 depth_sum[2];	     /* reads, writes: the role's requests in flight at each
				      * one's issue (itself not counted), summed */
	__u64 regions_dropped;	     /* I/Os whose region did not fit the hash */
	__u64 slots_beyond;	     /* issues past the last slot */
};

/* The state of one watched device (hash "devs", key its dev_t). */
struct blockio_dev {
	__u32 role;
	__u32 last_op;	/* enum blockio_op + 1; 0: none yet */
	__u64 last_end; /* sector after the previous read or write */
};

struct blockio_region_key {
	__u32 role;
	__u32 pad;
	__u64 region; /* sector >> BLOCKIO_REGION_SHIFT */
};

/* An issued request awaiting its completion (hash "inflight", key its address). */
struct blockio_start {
	__u64 ns;
	__u32 role, op;
};

static inline __u32 blockio_log2(__u64 v)
{
	__u32 r = 0;

	while (v > 1 && r < BLOCKIO_BUCKETS - 1) {
		v >>= 1;
		r++;
	}
	return r;
}

static inline __u32 blockio_op_of(__u32 cmd_flags)
{
	switch (cmd_flags & BLOCKIO_REQ_OP_MASK) {
	case 0:
		return BLOCKIO_READ;
	case 1:
		return BLOCKIO_WRITE;
	case 2:
		return BLOCKIO_FLUSH;
	case 3:
		return BLOCKIO_DISCARD;
	default:
		return BLOCKIO_OTHER;
	}
}

#endif
