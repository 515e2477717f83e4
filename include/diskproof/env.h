/* SPDX-License-Identifier: MIT */
/*
 * env.h - facts of the host and of the devices under the volumes, recorded
 * with every run so that a comparison explains itself ("vda firmware: 1.2 ->
 * 1.3"), read by "diskproof check" before a run, and the NUMA placement of
 * the workers. What the machine does not expose reads "unknown", never an
 * error. docs/environment.md lists every fact and where it comes from.
 *
 * Each fact is handed to a callback as (key, value); keys are stable:
 *   host: hostname, kernel, machine, cpu_model, cpus, memory_total,
 *     host.cpufreq_governor, host.cpufreq_driver, host.numa_nodes,
 *     host.node.N.cpus, host.io_uring, host.memlock_limit
 *   volume V: device.V.name, .model, .firmware, .serial, .rotational,
 *     .scheduler, .write_cache, .nr_requests, .logical_block_size,
 *     .physical_block_size, .size_bytes, .numa_node, .fua, .device_cache,
 *     .atomic_write_unit_min, .atomic_write_unit_max, .atomic_write_max
 *     (the volume's device: a partition's disk, a stacked device's first
 *     disk beneath);
 *     volume.V.disks, volume.V.fstype, volume.V.mount_point,
 *     volume.V.mount_options, volume.V.atomic_write (statx at the path)
 *   every whole disk D beneath a volume: dev.D.model, .firmware, .serial,
 *     .rotational, .scheduler, .nr_requests, .write_cache,
 *     .logical_block_size, .physical_block_size, .size_bytes, .numa_node,
 *     .fua, .device_cache, .atomic_write_unit_min, .atomic_write_unit_max,
 *     .atomic_write_max
 *   worker N (env_numa_worker_facts): worker.N.cpus, worker.N.volumes
 *   clock (env_clock_facts, with the host's): host.clock.synchronised,
 *     host.clock.max_error_us, host.clock.est_error_us, host.clock.state,
 *     host.clock.daemon
 *
 * Readers that take a sysfs root ("/sys" on a live system) read the same
 * layout under any directory: the unit tests build a fixture tree.
 */
#ifndef DISKPROOF_ENV_H
#define DISKPROOF_ENV_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diskproof/profile.h"
#include "diskproof/util.h"

typedef void (*env_fact_fn)(void *arg, const char *key, const char *value);

/* The host's facts; io_uring is what the io_uring engine's probe says of
 * this kernel (engine_drv_probe: "available: ..." or "unavailable: why"),
 * asked by the caller, since env is below the engines. */
void env_collect_host(const char *io_uring, env_fact_fn fn, void *arg);

/* The facts of the volume named volume whose files are at path (a
 * directory, a file or a block device; the nearest existing directory when
 * path does not exist yet), and of every whole disk beneath it. */
void env_collect_device(const char *volume, const char *path, env_fact_fn fn, void *arg);

/* ---- block devices ---- */

#define ENV_NAME_MAX 64
#define ENV_DISKS_MAX 32

/* Facts of one whole disk; each "unknown" when sysfs does not have it. */
struct env_disk {
	char name[ENV_NAME_MAX];
	char model[128];
	char firmware[64]; /* device/firmware_rev (NVMe), else device/rev (SCSI, ATA) */
	char serial[128];  /* device/serial (NVMe, SCSI), else serial (virtio) */
	char rotational[16];
	char scheduler[64]; /* the active one, without the brackets */
	char nr_requests[16];
	/* queue/write_cache: how the kernel treats the disk's cache. "write back"
	 * = a volatile cache: a write is durable only after a flush (fsync sends
	 * one) or with FUA; "write through" = no volatile cache (or one made so
	 * by writing "write through" there: the kernel then sends no flush) */
	char write_cache[32];
	char fua[16]; /* queue/fua: "1" when the disk takes FUA writes, "0" */
	/* what the device itself says of its cache, where the kernel shows it:
	 * cache_type (virtio-blk), device/scsi_disk/ADDR/cache_type (SCSI, ATA);
	 * "unknown" elsewhere (NVMe: write_cache is the controller's VWC bit) */
	char device_cache[32];
	/* queue/atomic_write_unit_min_bytes, _unit_max_bytes, atomic_write_max_bytes
	 * (kernels >= 6.11): "0" when the disk offers no atomic writes */
	char atomic_write_unit_min[24];
	char atomic_write_unit_max[24];
	char atomic_write_max[24];
	char logical_block_size[16];
	char physical_block_size[16];
	char size_bytes[32];
	int numa_node; /* -1: none (one node, or not exposed) */
};

/* Reads the facts of the whole disk name under sysfs/class/block. */
void env_disk_read(const char *sysfs, const char *name, struct env_disk *d);

/*
 * The whole disks beneath the block device name (under sysfs/class/block):
 * the device itself when it is a whole disk with no slaves; a partition's
 * disk; every slave of a device-mapper or md device, recursively, a
 * partition among them resolved to its disk. Sorted, without repeats, at
 * most max. 0, -ENOENT when sysfs has no such block device, -E2BIG past max
 * (the first max are kept).
 */
int env_block_disks(const char *sysfs, const char *name, char (*disks)[ENV_NAME_MAX], size_t max,
		    size_t *n);

/* The name of the block device MAJ:MIN (sysfs/dev/block/MAJ:MIN). 0, or
 * -ENODEV when there is none (tmpfs, NFS, a btrfs anonymous device). */
int env_dev_name(const char *sysfs, unsigned major, unsigned minor, char *name, size_t len);

/* The block device holding path (its nearest existing ancestor when it does
 * not exist yet), or the device path names, under sysfs. 0, -ENODEV (no
 * block device beneath: tmpfs, NFS), or -errno from stat. */
int env_path_device(const char *sysfs, const char *path, char *name, size_t len);

/*
 * Device probes (block.c), for plan and verify. env_dio_alignment: the
 * direct-I/O offset alignment at path (a directory, file or block device):
 * STATX_DIOALIGN of a file there (an unnamed O_TMPFILE for a directory), else
 * the device's logical block size (BLKSSZGET, then sysfs), else 4096; never
 * 0. env_block_device: whether path is a block device, with its size in
 * *size (0 when it cannot be read). env_device_signature: what a block
 * device carries, from libblkid, appended to out: nothing when nothing is
 * recognised, else e.g. "an ext4 filesystem (LABEL=data)" or "a dos
 * partition table".
 */
uint32_t env_dio_alignment(const char *path);
/* The atomic write unit at path (statx STATX_WRITE_ATOMIC, kernels >= 6.11;
 * a file there, an unnamed O_TMPFILE for a directory): 0 with *unit_min and
 * *unit_max (both 0: no atomic writes there), -EOPNOTSUPP when the kernel or
 * filesystem does not answer, or -errno. */
int env_atomic_write(const char *path, uint32_t *unit_min, uint32_t *unit_max);
bool env_block_device(const char *path, uint64_t *size);
void env_device_signature(const char *path, struct strbuf *out);

/* The mount holding a path, from a mountinfo file (/proc/self/mountinfo). */
struct env_mount {
	char point[512];
	char fstype[64];
	char source[256];
	char options[512];    /* the mount's own: "rw,relatime" */
	char super_opts[512]; /* the filesystem's: "rw,errors=remount-ro" */
};

/* The mount of path (or its nearest existing ancestor): the entry of its
 * device whose mount point is the longest prefix of its real path. 0,
 * -ENOENT when none matches, or -errno. */
int env_mount_find(const char *mountinfo, const char *path, struct env_mount *m);

/*
 * Whether overwrites of the file at path (a directory: of the files made in
 * it; a path not there yet: at its nearest existing ancestor) copy on write,
 * so that writing over a preallocated file needs free space (fs.c): btrfs
 * unless NOCOW (chattr +C, or mounted nodatacow), XFS with reflink (shared
 * blocks only), ZFS, bcachefs. When true, what (may be NULL) gets the
 * filesystem: "btrfs", "XFS with reflink", ... False when it cannot tell.
 */
bool env_fs_cow(const char *path, struct strbuf *what);

/* "none [mq-deadline] kyber" -> "mq-deadline", in place. */
const char *env_active_choice(char *val);

/* ---- CPUs ---- */

/* The scaling governor of every online CPU with cpufreq under sysfs:
 * "performance", "mixed: powersave 4, performance 4", or "unknown" (no
 * cpufreq: a VM, fixed clocks). *powersave is set when any CPU uses it. */
void env_cpufreq_governor(const char *sysfs, char *out, size_t len, bool *powersave);

/* "0-3,8-11" into set; -EINVAL on anything else. */
int env_cpulist_parse(const char *s, cpu_set_t *set);
/* set as "0-3,8-11" ("" when empty). */
void env_cpulist_format(struct strbuf *sb, const cpu_set_t *set);

/* ---- NUMA placement ---- */

#define ENV_NODES_MAX 64

/* The NUMA nodes under sysfs/devices/system/node; none found: nr_nodes 0
 * (not exposed: placement is off). */
struct env_numa_topology {
	unsigned nr_nodes;
	uint64_t present;	       /* bit n: node n exists */
	cpu_set_t cpus[ENV_NODES_MAX]; /* node n's CPUs (may be empty) */
};

int env_numa_topology_read(const char *sysfs, struct env_numa_topology *t);

/* One volume's devices, for the placement: block device names under sysfs
 * (NULL: not known); log_device may equal device. */
struct env_numa_volume {
	const char *name;
	const char *device;
	const char *log_device;
};

/* The topology and, per volume, the nodes of the disks beneath its database
 * and log devices. Owns its arrays: env_numa_map_release(), safe twice. */
struct env_numa_map {
	struct env_numa_topology topo;
	size_t nr_vols;
	uint64_t *vol_nodes; /* bit n: a disk of the volume is on node n */
	bool *vol_unknown;   /* a device or its node is not known */
	char (*vol_names)[ENV_NAME_MAX];
};

int env_numa_map_build(struct env_numa_map *m, const char *sysfs,
		       const struct env_numa_volume *vols, size_t nvols) DP_MUST_CHECK;
void env_numa_map_release(struct env_numa_map *m);

/* Where one worker runs and allocates. */
struct env_numa_worker {
	bool placed;
	enum profile_affinity policy;
	int node;	   /* placed on one node: it; several: -1 */
	uint64_t nodes;	   /* placed: the nodes whose CPUs and memory it uses */
	cpu_set_t cpus;	   /* placed: the CPUs it may run on */
	char volumes[256]; /* the volumes it drives: "a, b" */
	char note[160];	   /* why it is placed so, or why not */
};

/*
 * Places one worker that drives the volumes with drives[v] set (m->nr_vols
 * entries). none: not placed. soft: on the CPUs of the one node all its
 * volumes' disks are on; not placed when the machine has one node, when the
 * disks' nodes are unknown or several, or when the node has no CPUs. hard:
 * on the CPUs of every node its disks are on (one node included), memory
 * bound there; -EINVAL when those nodes have no CPUs (w->note says so).
 * Otherwise 0. Pure: reads only m.
 */
int env_numa_place(const struct env_numa_map *m, const bool *drives, enum profile_affinity policy,
		   struct env_numa_worker *w);

/*
 * The whole placement: drives is nworkers x nvols (drives[w * nvols + v]:
 * worker w drives volume v); out has nworkers entries. The first hard
 * failure's note goes to err and -EINVAL is returned (every worker is still
 * filled in); else 0, or -ENOMEM.
 */
int env_numa_plan(const char *sysfs, const struct env_numa_volume *vols, size_t nvols,
		  const bool *drives, unsigned nworkers, enum profile_affinity policy,
		  struct env_numa_worker *out, struct strbuf *err) DP_MUST_CHECK;

/*
 * Applies a placement to the calling thread (call it first thing in the
 * worker's thread): CPU affinity, and with libnuma the memory policy
 * (soft: preferred node; hard: bound to the nodes). Not placed: nothing.
 * soft never fails (a refused affinity leaves the thread where it was);
 * hard returns -errno with the reason in err.
 */
int env_numa_bind_thread(const struct env_numa_worker *w, struct strbuf *err);

/*
 * For memory a worker's set-up allocates on the coordinator's thread (its
 * buffers, its engine's ring): enter pins the calling thread as the worker
 * will be (and sets the memory policy with libnuma), so that what it
 * allocates and first touches lands on the worker's node; leave restores
 * the thread's affinity and memory policy. Not placed: nothing. enter
 * returns like env_numa_bind_thread; leave is safe after a failed enter.
 */
struct env_numa_saved {
	bool active;
	bool cpus_saved;
	cpu_set_t cpus;
	bool policy_saved;
	int mode;
	unsigned long nodemask[ENV_NODES_MAX / (8 * sizeof(unsigned long))];
};

int env_numa_setup_enter(const struct env_numa_worker *w, struct env_numa_saved *s,
			 struct strbuf *err);
void env_numa_setup_leave(struct env_numa_saved *s);

/* Records a worker's placement: worker.N.cpus ("8-15 (node 1, soft)", or
 * "any (not placed: WHY)") and worker.N.volumes ("a, b"). */
void env_numa_worker_facts(unsigned index, const struct env_numa_worker *w, env_fact_fn fn,
			   void *arg);

/* Whether this build applies memory policies (libnuma): else placement is
 * CPU affinity and first touch. */
bool env_numa_have_libnuma(void);

/* ---- the clock (clock.c) ---- */

/*
 * The system clock's synchronisation as the kernel sees it: adjtimex(2)
 * with modes 0, which only reads and needs no privilege. A fleet's runs
 * start at one instant of their hosts' clocks (run --start-at), so how far
 * each clock may be off is what bounds their alignment.
 */
struct env_clock {
	bool known;	   /* adjtimex answered; else every figure is unknown */
	bool synchronised; /* STA_UNSYNC clear and the state not TIME_ERROR */
	long max_error_us; /* timex.maxerror: the bound the kernel keeps */
	long est_error_us; /* timex.esterror */
	char state[16];	   /* the return as a word: ok, ins, del, oop, wait, error */
	char daemon[96];   /* "chronyd", "chronyd, ptp4l", or "none found" */
};

/* Reads the clock's state and looks for a time daemon in /proc/<pid>/comm
 * (chronyd, systemd-timesyncd, ntpd, ptp4l, openntpd). Never fails. */
void env_clock_read(struct env_clock *c);

/* The facts host.clock.* of c (see the list at the top). */
void env_clock_facts(const struct env_clock *c, env_fact_fn fn, void *arg);

#endif
