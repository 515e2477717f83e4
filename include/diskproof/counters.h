/* SPDX-License-Identifier: MIT */
/*
 * counters.h - host performance counters sampled beside the run's intervals:
 * CPU shares (/proc/stat), memory available (/proc/meminfo) and, for each
 * block device under a volume, its /proc/diskstats deltas turned into
 * iostat's figures. The Linux face of the perfmon counters Jetstress logs
 * ("% Processor Time", "Available MBytes", "Disk Reads/sec", "Avg. Disk
 * sec/Read", "Avg. Disk Queue Length", ...). docs/environment.md, section
 * "Host counters", says where each figure comes from.
 *
 * Figures of one interval, from the difference d() of the cumulative kernel
 * counters between two reads elapsed seconds apart (iostat -x's arithmetic):
 *   cpu user %    d(user + nice) / d(total) x 100
 *   cpu system %  d(system + irq + softirq) / d(total) x 100
 *   cpu iowait %  d(iowait) / d(total) x 100
 *       total = user + nice + system + idle + iowait + irq + softirq + steal
 *       (guest time is already inside user), in USER_HZ ticks over all CPUs.
 *       A share over fewer than HOST_CPU_MIN_TICKS ticks would be coarser
 *       than 2 %: the read then reports no CPU figure and the next one covers
 *       both spans (this happens only when reads come faster than every
 *       0.5 s / CPUs: the sim engine's virtual intervals).
 *   mem available MemAvailable x 1024 bytes, as read (a level, not a delta)
 *   reads/s       d(reads completed) / elapsed; writes/s likewise
 *   read KiB/s    d(sectors read) x 512 / 1024 / elapsed (iostat's rkB/s);
 *                 write KiB/s likewise
 *   read wait ms  d(ms spent reading) / d(reads completed) (r_await); write
 *                 wait likewise; avg wait d(read ms + write ms) / d(reads +
 *                 writes) (await); undefined (NAN) without I/O
 *   util %        d(ms doing I/O) / elapsed ms x 100, at most 100 (%util)
 *   queue         d(weighted ms in queue) / elapsed ms (aqu-sz, the average
 *                 number of I/Os in flight)
 * Discards and flushes count in none of reads, writes and waits (they have
 * their own diskstats fields since Linux 4.18 and 5.5); they do keep the
 * device busy, so util % and queue include them. The time fields are printed
 * by the kernel as 32-bit millisecond counts and wrap (a device with 32 I/Os
 * always in flight wraps its weighted time in 1.5 days): a counter that went
 * backwards from a value that fits 32 bits is taken to have wrapped once;
 * one that went backwards from a larger value was reset (a device removed and
 * added again) and counts as 0.
 *
 * Devices. Each volume path (a file, a directory, or a block device; the
 * nearest existing directory when it does not exist) maps to one block
 * device: st_rdev of a block device, else st_dev of the path (the MAJ:MIN
 * that /sys/dev/block/MAJ:MIN names), found in /proc/diskstats by MAJ:MIN,
 * whose line gives the kernel's name for it. A partition stays itself
 * (diskstats has partitions), a device-mapper or md device likewise (dm-0,
 * md0): the device the filesystem sits on, not the disks beneath. A
 * filesystem whose st_dev is anonymous (btrfs, and tmpfs, overlay, NFS) is
 * looked up in mountinfo: its mount source when that is a block device
 * (btrfs), else the path is skipped (no block device beneath). Paths on one
 * device give one row.
 *
 * Ownership: counters_sampler_open() gives the caller a sampler to
 * counters_sampler_close() (safe on NULL). The device rows of a struct
 * host_sample belong to the sampler and stay valid until its next read or
 * its close. Functions return 0 or -errno and fill err with
 * "host counters: what: why"; the parsers only return.
 */
#ifndef DISKPROOF_COUNTERS_H
#define DISKPROOF_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diskproof/util.h"

#define HOST_DEV_NAME_MAX 32
/* Fewest ticks of CPU time a share is computed over (2 % resolution). */
#define HOST_CPU_MIN_TICKS 50

/* The first line of /proc/stat: cumulative USER_HZ ticks over all CPUs. */
struct host_cpu_counters {
	uint64_t user, nice, system, idle, iowait, irq, softirq, steal;
};

/* One line of /proc/diskstats (the fields iostat -x uses). */
struct host_disk_counters {
	unsigned major, minor;
	char name[HOST_DEV_NAME_MAX];
	uint64_t reads, read_merges, read_sectors, read_ms;
	uint64_t writes, write_merges, write_sectors, write_ms;
	uint64_t in_flight;
	uint64_t io_ms;	   /* time doing I/O (io_ticks) */
	uint64_t queue_ms; /* weighted time in queue (time_in_queue) */
};

/* One device's figures over one interval (derivations above). */
struct host_dev_sample {
	char name[HOST_DEV_NAME_MAX];
	bool valid;		/* false: not in /proc/diskstats at this read (removed) */
	uint64_t elapsed_ns;	/* the span the rates are over */
	uint64_t reads, writes; /* completed in the span */
	uint64_t read_sectors, write_sectors; /* 512-byte sectors moved */
	double reads_per_s, writes_per_s;
	double read_kbps, write_kbps; /* KiB/s */
	double read_wait_ms, write_wait_ms, avg_wait_ms;
	double util_pct;
	double queue;
};

struct host_sample {
	bool has_cpu;		 /* false: too few ticks since the last CPU figure */
	uint64_t cpu_elapsed_ns; /* the span the CPU shares are over */
	double cpu_user_pct, cpu_system_pct, cpu_iowait_pct;
	bool has_mem;			    /* false: no MemAvailable (Linux < 3.14) */
	uint64_t mem_available;		    /* bytes */
	uint64_t elapsed_ns;		    /* since the previous read */
	const struct host_dev_sample *devs; /* owned by the sampler */
	size_t nr_devs;
};

/* ---- parsers (pure: the text of the /proc file in, counters out) ---- */

/* The "cpu " line of /proc/stat. 0, or -EINVAL when there is none. */
int counters_parse_stat(const char *text, struct host_cpu_counters *out) DP_MUST_CHECK;

/* MemAvailable of /proc/meminfo, in bytes. 0, or -ENOENT when absent. */
int counters_parse_meminfo(const char *text, uint64_t *available) DP_MUST_CHECK;

/*
 * For each of devs[0..n) (major and minor set by the caller), the line of
 * /proc/diskstats with that MAJ:MIN: counters (and name) filled in, found[i]
 * set. Lines that are not 3 + 11 or more fields are skipped. Returns the
 * number of devices found.
 */
size_t counters_parse_diskstats(const char *text, struct host_disk_counters *devs, size_t n,
				bool *found);

/* ---- figures (pure) ---- */

/* CPU shares between two readings; false (out untouched) when fewer than
 * HOST_CPU_MIN_TICKS ticks passed. */
bool counters_cpu_shares(const struct host_cpu_counters *prev, const struct host_cpu_counters *cur,
			 double *user_pct, double *system_pct, double *iowait_pct);

/* A device's figures between two readings elapsed_ns apart (> 0); out's name
 * and valid are left to the caller. */
void counters_disk_figures(const struct host_disk_counters *prev,
			   const struct host_disk_counters *cur, uint64_t elapsed_ns,
			   struct host_dev_sample *out);

/* cur - prev of a cumulative counter, with the wrap rule above. */
uint64_t counters_delta(uint64_t prev, uint64_t cur);

/* ---- the sampler ---- */

struct host_sampler;

/*
 * Finds the block devices under paths[0..n) (n may be 0: CPU and memory
 * only), and takes the first reading at now_ns (CLOCK_MONOTONIC; every read
 * must use the same clock). A path with no block device beneath is skipped,
 * not an error; -errno when /proc/stat or /proc/diskstats cannot be read.
 */
int counters_sampler_open(struct host_sampler **out, const char *const *paths, size_t n,
			  uint64_t now_ns, struct strbuf *err) DP_MUST_CHECK;

/* The same with another root than "/proc" (tests: a fixture tree holding
 * stat, meminfo, diskstats and self/mountinfo). */
int counters_sampler_open_at(struct host_sampler **out, const char *proc, const char *const *paths,
			     size_t n, uint64_t now_ns, struct strbuf *err) DP_MUST_CHECK;

/*
 * The figures since the previous read (or the open), as rates over the
 * elapsed time; that reading becomes the next baseline. A read at the same
 * now_ns as the last gives no device rows (valid false) and keeps the
 * baseline. -errno when the /proc files cannot be read (out then empty).
 */
int counters_sampler_read(struct host_sampler *s, uint64_t now_ns,
			  struct host_sample *out) DP_MUST_CHECK;

/* What is sampled, for the run's event log: "CPU, memory; devices vda (/srv/db,
 * /srv/log); no block device under /dev/shm/x". */
void counters_sampler_describe(const struct host_sampler *s, struct strbuf *out);

/* The device row (the index into a read's devs) of paths[i] as given to
 * open, or -1 when no block device was found under it (or s is NULL). */
int counters_sampler_path_row(const struct host_sampler *s, size_t i);

void counters_sampler_close(struct host_sampler *s);

#endif
