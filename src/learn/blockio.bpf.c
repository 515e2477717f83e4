/* SPDX-License-Identifier: MIT */
/*
 * blockio.bpf.c - the BPF side of learn's tracing source (trace.c): the
 * block layer's requests on the watched devices, counted in the kernel.
 *
 * Attached to the tracepoints block_rq_issue and block_rq_complete as
 * tp_btf, or as raw_tp where tp_btf does not attach (trace.c picks); never
 * kprobes. Every read of a kernel struct goes through BPF_CORE_READ, so the
 * same object runs on any kernel with BTF whose struct request has part,
 * q->disk, cmd_flags, __sector and __data_len (5.15 and later).
 *
 * Filter: a request counts only when its partition's or its disk's dev_t is
 * in "devs" (filled by trace.c) and it is issued inside the window
 * [t0_ns, end_ns) of CLOCK_MONOTONIC. Aggregates (blockio.h): per-CPU
 * counts and histograms, no locks; the shared per-device and per-role state
 * (previous end sector, previous op, previous issue time) is updated without
 * a lock: two CPUs issuing on one device at once may each see the other's
 * old value, which moves a sequential count or a gap by one request.
 */
#include <vmlinux.h> /* generated in the build tree: cmake/BlockioBpf.cmake */

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "blockio.h"

/* The kernel lets only GPL-compatible programs call bpf_probe_read_kernel
 * (BPF_CORE_READ): MIT is, and "Dual MIT/GPL" is how the kernel is told. */
char LICENSE[] SEC("license") = "Dual MIT/GPL";

/* The window, set by trace.c: 0 (t0_ns) means not started yet. */
volatile __u64 t0_ns;
volatile __u64 end_ns;

/* Each role's requests issued in the window and not yet completed. */
__u64 role_inflight[BLOCKIO_ROLES];

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, BLOCKIO_ROLES);
	__type(key, __u32);
	__type(value, struct blockio_role);
} roles SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, BLOCKIO_DEVS_MAX);
	__type(key, __u32);
	__type(value, struct blockio_dev);
} devs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, BLOCKIO_INFLIGHT_MAX);
	__type(key, __u64);
	__type(value, struct blockio_start);
} inflight SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, BLOCKIO_REGIONS_MAX);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct blockio_region_key);
	__type(value, __u64);
} regions SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, BLOCKIO_ROLES);
	__type(key, __u32);
	__type(value, __u64);
} last_issue SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, BLOCKIO_ROLES *BLOCKIO_SLOTS);
	__type(key, __u32);
	__type(value, __u32);
} slots SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, BLOCKIO_ROLES *BLOCKIO_SLOTS);
	__type(key, __u32);
	__type(value, __u32);
} wslots SEC(".maps");

/* per role and 100 ms slot of their issue: the writes' service times, ns */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, BLOCKIO_ROLES *BLOCKIO_SLOTS);
	__type(key, __u32);
	__type(value, __u64);
} wsvc SEC(".maps");

/* The watched device of rq (its partition's dev_t, else its disk's). */
static __always_inline struct blockio_dev *dev_of(struct request *rq)
{
	struct block_device *part = BPF_CORE_READ(rq, part);
	struct gendisk *disk;
	struct blockio_dev *d;
	__u32 devt;

	if (part) {
		devt = BPF_CORE_READ(part, bd_dev);
		d = bpf_map_lookup_elem(&devs, &devt);
		if (d)
			return d;
	}
	disk = BPF_CORE_READ(rq, q, disk);
	if (!disk)
		return 0;
	devt = ((__u32)BPF_CORE_READ(disk, major) << 20) | (__u32)BPF_CORE_READ(disk, first_minor);
	return bpf_map_lookup_elem(&devs, &devt);
}

static __always_inline void count_region(struct blockio_role *r, __u32 role, __u64 sector)
{
	struct blockio_region_key k = {.role = role, .region = sector >> BLOCKIO_REGION_SHIFT};
	__u64 one = 1, *v = bpf_map_lookup_elem(&regions, &k);

	if (v)
		__sync_fetch_and_add(v, 1);
	else if (bpf_map_update_elem(&regions, &k, &one, BPF_NOEXIST))
		r->regions_dropped++;
}

static __always_inline void count_timing(struct blockio_role *r, __u32 role, __u32 op, __u64 now)
{
	__u64 *last = bpf_map_lookup_elem(&last_issue, &role);
	__u64 slot = (now - t0_ns) / BLOCKIO_SLOT_NS;
	__u32 key;
	__u32 *c;

	if (last) {
		__u64 prev = *last;

		if (prev && now > prev) {
			__u64 g = (now - prev) / 1000;

			r->gaps++;
			r->gap_us += g;
			r->gap_us2 += g * g;
		}
		*last = now;
	}
	if (slot >= BLOCKIO_SLOTS) {
		r->slots_beyond++;
		return;
	}
	key = role * BLOCKIO_SLOTS + (__u32)slot;
	c = bpf_map_lookup_elem(&slots, &key);
	if (c)
		__sync_fetch_and_add(c, 1);
	if (op != BLOCKIO_WRITE)
		return;
	c = bpf_map_lookup_elem(&wslots, &key);
	if (c)
		__sync_fetch_and_add(c, 1);
}

static __always_inline int on_issue(struct request *rq)
{
	__u64 now = bpf_ktime_get_ns(), addr = (__u64)rq, sector;
	struct blockio_start st;
	struct blockio_role *r;
	struct blockio_dev *d;
	__u32 role, flags, op, bytes;

	if (!t0_ns || now < t0_ns || (end_ns && now >= end_ns))
		return 0;
	d = dev_of(rq);
	if (!d)
		return 0;
	role = d->role;
	r = bpf_map_lookup_elem(&roles, &role);
	if (!r || role >= BLOCKIO_ROLES)
		return 0;
	flags = BPF_CORE_READ(rq, cmd_flags);
	op = blockio_op_of(flags);
	bytes = BPF_CORE_READ(rq, __data_len);
	sector = BPF_CORE_READ(rq, __sector);
	if (op >= BLOCKIO_OPS)
		return 0;
	r->ops[op]++;
	r->bytes[op] += bytes;
	if (op == BLOCKIO_READ || op == BLOCKIO_WRITE) {
		r->depth_sum[op & 1] += role_inflight[role & (BLOCKIO_ROLES - 1)];
		r->sizes[op & 1][blockio_log2(bytes) & (BLOCKIO_BUCKETS - 1)]++;
		if (d->last_op && sector == d->last_end)
			r->sequential++;
		d->last_end = sector + bytes / 512;
		count_region(r, role, sector);
	}
	if (op == BLOCKIO_WRITE) {
		r->fua_writes += !!(flags & BLOCKIO_REQ_FUA);
		r->preflush_writes += !!(flags & BLOCKIO_REQ_PREFLUSH);
		r->sync_writes += !!(flags & BLOCKIO_REQ_SYNC);
	}
	r->meta_ios += !!(flags & BLOCKIO_REQ_META);
	if (op == BLOCKIO_FLUSH && d->last_op == BLOCKIO_WRITE + 1)
		r->flush_after_write++;
	d->last_op = op + 1;
	count_timing(r, role, op, now);
	st = (struct blockio_start){.ns = now, .role = role, .op = op};
	/* a request issued again (requeued) is counted in flight once */
	if (!bpf_map_update_elem(&inflight, &addr, &st, BPF_NOEXIST))
		__sync_fetch_and_add(&role_inflight[role & (BLOCKIO_ROLES - 1)], 1);
	else
		bpf_map_update_elem(&inflight, &addr, &st, BPF_EXIST);
	return 0;
}

static __always_inline int on_complete(struct request *rq)
{
	__u64 addr = (__u64)rq, ns, st_ns;
	struct blockio_start *st = bpf_map_lookup_elem(&inflight, &addr);
	struct blockio_role *r;
	__u32 role, op;

	if (!st)
		return 0;
	st_ns = st->ns;
	ns = bpf_ktime_get_ns() - st_ns;
	role = st->role;
	op = st->op;
	if (bpf_map_delete_elem(&inflight, &addr))
		return 0; /* the other program of the pair took it */
	__sync_fetch_and_add(&role_inflight[role & (BLOCKIO_ROLES - 1)], -1);
	r = bpf_map_lookup_elem(&roles, &role);
	if (!r || op >= BLOCKIO_OPS)
		return 0;
	r->completed[op]++;
	r->service_ns[op] += ns;
	if (op == BLOCKIO_WRITE && st_ns >= t0_ns &&
	    (st_ns - t0_ns) / BLOCKIO_SLOT_NS < BLOCKIO_SLOTS) {
		__u32 key = role * BLOCKIO_SLOTS + (__u32)((st_ns - t0_ns) / BLOCKIO_SLOT_NS);
		__u64 *c = bpf_map_lookup_elem(&wsvc, &key);

		if (c)
			__sync_fetch_and_add(c, ns);
	}
	r->service[op][blockio_log2(ns / 1000) & (BLOCKIO_BUCKETS - 1)]++;
	return 0;
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(issue_btf, struct request *rq)
{
	return on_issue(rq);
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(complete_btf, struct request *rq, int error, unsigned int nr_bytes)
{
	return on_complete(rq);
}

SEC("raw_tp/block_rq_issue")
int BPF_PROG(issue_raw, struct request *rq)
{
	return on_issue(rq);
}

SEC("raw_tp/block_rq_complete")
int BPF_PROG(complete_raw, struct request *rq, int error, unsigned int nr_bytes)
{
	return on_complete(rq);
}
