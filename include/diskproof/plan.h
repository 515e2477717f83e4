/* SPDX-License-Identifier: MIT */
/*
 * plan.h - a validated profile laid out on the filesystem: volumes, their
 * databases (numbered db1..dbN across the run, in profile order), every file
 * path and size, and the direct-I/O alignment of each volume.
 *
 * Files: volume v holds DB.edb for each of its databases in v.path, beside it
 * the journal DB.gen, and the log DB.log in v.log_path (ARCHITECTURE.md
 * "Files and pages"). A block-device volume holds, in this order and each
 * 1 MiB-aligned: its databases, its logs (unless log_path is a directory),
 * then one journal region per database (journal.h).
 *
 * Ownership: struct plan owns its arrays and strings; plan_release() frees
 * them and is safe on a zeroed or released plan.
 */
#ifndef DISKPROOF_PLAN_H
#define DISKPROOF_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diskproof/journal.h"
#include "diskproof/profile.h"
#include "diskproof/util.h"

struct plan_lock;

struct plan_volume {
	char name[PROFILE_MAX_NAME];
	char *path;
	char *log_path;
	unsigned first_db; /* index into plan.dbs */
	unsigned nr_dbs;
	uint32_t align;	    /* direct-I/O offset alignment of path (logical block) */
	uint32_t log_align; /* the same at log_path: log writes and log blocks */
	bool device;	    /* path is a block device: databases are regions of it */
	bool log_device;    /* the logs are regions of a block device (path's) */
	uint64_t dev_size;  /* the device's size in bytes */
};

struct plan_db {
	char name[PROFILE_MAX_NAME]; /* "db1", "db2", ... */
	uint32_t id;		     /* 1-based, stamped in every page header */
	unsigned volume;	     /* index into plan.vols */
	char *path;		     /* .../dbN.edb */
	char *log_file;		     /* .../dbN.log */
	char *journal;		     /* .../dbN.gen, or a device's journal region, for messages */
	struct journal_loc jloc;     /* where the journal is (path: journal's or path's) */
	uint64_t size;
	uint64_t nr_pages;
	uint64_t log_size;
	uint64_t base;	       /* byte offset of page 0 in path (0 for a file) */
	uint64_t log_base;     /* byte offset of the log in log_file (0 for a file) */
	uint64_t journal_base; /* a device: byte offset of the journal region (jloc) */
};

struct plan {
	struct plan_volume *vols;
	size_t nr_vols;
	struct plan_db *dbs;
	size_t nr_dbs;
	uint32_t page_size;
	bool files; /* false for engines that touch no files (sim) */
	/* set by the caller before plan_prepare_files(): the files and block
	 * devices --destroy-data names, to be created anew whatever they hold
	 * (somebody else's data, or diskproof's own); not owned */
	const char *const *destroy;
	size_t ndestroy;
	bool force; /* --force: a device with a filesystem, RAID or partition
		     * table signature may be overwritten if also named */
	/* set by the caller: the results file (not owned; NULL = none), whose
	 * filesystem keeps results_reserve bytes free (STORE_MIN_FREE). When a
	 * volume's files share that filesystem, plan_space_measure() and
	 * plan_prepare_files() count the reserve in its need. */
	const char *results;
	uint64_t results_reserve;
	/* set by the caller before plan_prepare_files(): the locks it holds on
	 * the volumes (lock.h), whose device descriptors the checks reuse; not
	 * owned, may be NULL */
	const struct plan_lock *lock;
};

/*
 * Lays the profile out. Every database has the profile's database_size,
 * unless [sizing] capacity is set and files is true: then the databases of
 * each filesystem (or block device) share capacity % of its free space (of
 * its size) after the logs there (-ENOSPC when nothing is left, -errno when
 * the free space cannot be read). With files, reads each volume's direct-I/O alignment
 * (STATX_DIOALIGN, else the block device's logical block size, else 4 KiB) at
 * the nearest existing directory. A volume whose path is a block device holds
 * its databases as regions of it (each 1 MiB-aligned, in order), then its
 * logs unless log_path names a directory, then a journal region per
 * database: the device is refused (-ENOSPC) when they do not all fit. 0 or
 * -errno.
 */
int plan_build(struct plan *pl, const struct profile *p, bool files,
	       struct strbuf *err) DP_MUST_CHECK;

/* Progress of file creation per volume (bytes written of those to write),
 * at most ten times a second; a non-zero return stops the creation, which
 * then returns -EINTR. */
struct plan_progress {
	int (*fn)(void *arg, const char *volume, uint64_t done, uint64_t total);
	void *arg;
};

/*
 * Makes every directory and file the plan needs. Existing diskproof files of
 * the right page size are kept; a shorter one is extended; a file that is not
 * a diskproof file is never touched (-EEXIST). A file (database, log or
 * journal) or block device that pl->destroy names is created anew whatever
 * it holds: a file cut to nothing and written from its first page, a device
 * rewritten whole, and the database's journal written anew (generation 1 on
 * every page). Free space is checked before
 * anything is written (-ENOSPC). New pages are written with generation 1 and
 * new logs in full (the run never extends a file). fresh_from (nr_dbs
 * entries, may be NULL) receives for each database the first page this call
 * wrote: pages from there on are known to hold generation 1; pages before it
 * were there already. *created receives the bytes written; remade (may be
 * NULL) what --destroy-data re-created, "PATH, PATH, DEV (the whole
 * device)", appended. 0 or -errno with "PATH: what: why" in err; -EUCLEAN
 * for a database file shorter than its journal knows (it lost pages: a data
 * integrity error) that --destroy-data does not name.
 */
int plan_prepare_files(const struct plan *pl, const struct profile *p,
		       const struct plan_progress *prog, uint64_t *fresh_from, uint64_t *created,
		       struct strbuf *remade, struct strbuf *err) DP_MUST_CHECK;

/* What the files at one database's paths hold (plan_held_read()): 0 where
 * nothing of diskproof's is there, or the volume is a block device. */
struct plan_held {
	uint64_t size;	   /* its pages as its journal knows them, else its file's whole pages */
	uint64_t log_size; /* its log file's size */
};

/*
 * Reads, without writing anything, what the files of each database of a
 * file volume hold: held[i] (pl->nr_dbs entries) gets the bytes of database
 * i as its own journal knows them (pages x page size, when a journal of this
 * database with the plan's page size is there: a file shorter than that, or
 * missing, lost pages, which verify reports), else as its regular file holds them in
 * whole pages, and its log file's size. A block device's regions are as
 * the plan lays them out: 0. Returns the number of databases whose files
 * hold another size than the plan's (database or log).
 */
size_t plan_held_read(const struct plan *pl, struct plan_held *held);

/* Sets each database's size, page count and log size to what held says its
 * files hold, where they hold something (non-zero): so that verify reads the
 * pages that were written, whatever size the profile now asks for. */
void plan_held_adopt(struct plan *pl, const struct plan_held *held);

/* One filesystem (or block device) that the plan's files go to. */
struct plan_fs {
	char *path;	  /* where it was measured: the nearest existing directory, or the device */
	char *volumes;	  /* the volumes with files there: "disk1, disk2" */
	uint64_t total;	  /* bytes of the plan's files there */
	uint64_t need;	  /* what they still need: total less what files at their paths hold */
	uint64_t free;	  /* bytes free to diskproof (f_bavail); a device: its size */
	bool free_known;  /* false when the free space could not be read */
	bool device;	  /* a block device: its regions are laid out already */
	uint64_t reserve; /* of need: what the results file keeps free here (0: not here) */
	/* a copy-on-write filesystem for some of the plan's files here
	 * (env_fs_cow(): "btrfs", ...; "" when none): every overwrite needs
	 * free space, up to keep_free, the size of those files, again */
	char cow[32];
	uint64_t keep_free;
};

/* Per volume: where its databases and its logs go, and what they need. */
struct plan_volume_space {
	size_t fs, log_fs;	   /* indexes into plan_space.fs */
	uint64_t total, log_total; /* bytes of its database files, of its log files */
	uint64_t need, log_need;   /* of which still to be written (missing or short files) */
};

struct plan_space {
	struct plan_fs *fs;
	size_t nr_fs;
	struct plan_volume_space *vols; /* pl->nr_vols entries */
};

/*
 * Measures, without writing or creating anything, what the plan needs on
 * each filesystem against what it has free there: paths that do not exist yet
 * are measured at their nearest existing ancestor; files already at the
 * plan's paths count for what they hold (their size). A free space that
 * cannot be read is left unknown, not an error. 0 or -ENOMEM. s is the
 * caller's to plan_space_release().
 */
int plan_space_measure(const struct plan *pl, struct plan_space *s,
		       struct strbuf *err) DP_MUST_CHECK;

/* 0 when every filesystem has room for what the plan still needs there (or
 * its free space is unknown); else -ENOSPC with one line in err per short
 * one: "volume NAME (PATH): not enough free space: the databases and logs
 * need X more, Y is free", and when the results file's reserve is counted
 * "(the need includes the 8 MiB the results file keeps free)". */
int plan_space_check(const struct plan_space *s, struct strbuf *err) DP_MUST_CHECK;

/* f's warning when it is copy-on-write (f->cow set), appended to out:
 * "copy-on-write (btrfs): overwrites need free space; keep 3 MiB free (the
 * files' size again), or make the directory NOCOW before init (chattr +C)". */
void plan_fs_cow_warning(const struct plan_fs *f, struct strbuf *out);

void plan_space_release(struct plan_space *s);

void plan_release(struct plan *pl);

/*
 * The worker layout (plan/workers.c), the one rule the run, `plan` and
 * `check` share: worker w drives wdb[first[w] .. first[w + 1]), each entry a
 * database (index into plan.dbs) and its page range [lo, lo + n), with
 * nstreams[w] streams shared by those databases (the stream pool,
 * workload/txn.c), the last of them working only duty[w] of the time when
 * that is below 1, so that the worker carries share[w] streams on average.
 * plan_workers_release() frees it (safe on a zeroed or released layout).
 */
struct plan_wdb {
	unsigned db;
	uint64_t lo, n;
};

struct plan_workers {
	unsigned nworkers;
	unsigned streams;   /* in all */
	unsigned *first;    /* nworkers + 1 */
	unsigned *nstreams; /* nworkers: stream slots, the part-time one included */
	double *duty;	    /* nworkers: the last stream's duty (1: full time) */
	double *share;	    /* nworkers: streams on average (they add up to streams) */
	struct plan_wdb *wdb;
};

/* online CPUs (at least 1) */
unsigned plan_online_cpus(void);
/* the profile's engine keeps its own (virtual) clock: one worker in all */
bool plan_engine_virtual(const struct profile *p);
/* the streams a run of the profile starts with: [engine] streams, 2 per
 * database when unset or auto (auto-tune's first level is its own), 0 for
 * a backup test */
unsigned plan_streams(const struct profile *p, const struct plan *pl);
/* how many workers drive `streams` streams of the plan on `cpus` CPUs */
unsigned plan_worker_count(const struct profile *p, const struct plan *pl, unsigned streams,
			   unsigned cpus);
/* the whole layout: 0, or -ENOMEM */
int plan_workers_layout(const struct profile *p, const struct plan *pl, unsigned streams,
			unsigned cpus, struct plan_workers *lw);
void plan_workers_release(struct plan_workers *lw);

struct env_numa_map;
/* env_numa_map_build() for the plan's volumes on this machine (/sys): each
 * volume's path and log path resolved to their block devices. 0 (release
 * m with env_numa_map_release()) or -ENOMEM (nothing to release). */
int plan_numa_map(struct env_numa_map *m, const struct plan *pl) DP_MUST_CHECK;

#endif
