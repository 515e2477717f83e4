/* SPDX-License-Identifier: MIT */
/*
 * plan_internal.h - private to src/plan: what its files share. The
 * file-creation jobs that plan_prepare_files() (prepare.c) hands to the
 * creator in create.c (which writes through the profile's engine), the directory maker that lock.c
 * shares with prepare.c, the [sizing] capacity steps (sizing.c) that plan_build() (layout.c) takes,
 * the free-space check before writing (space.c), the 1 MiB alignment of a block device's
 * regions, and the file behind a loop device (loop.c) that lock.c locks.
 */
#ifndef DISKPROOF_PLAN_INTERNAL_H
#define DISKPROOF_PLAN_INTERNAL_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "diskproof/page.h"
#include "diskproof/plan.h"

/* Write [from, to) of path with kind-blocks of block bytes at generation 1. */
struct create_job {
	const char *path;
	enum page_kind kind;
	uint32_t db_id;
	uint32_t block;
	uint64_t from, to;
	unsigned volume; /* jobs come grouped by volume, in volume order */
	uint64_t base;	 /* byte offset of the file's start in path (a device region) */
};

/* mkdir -p: every missing directory of path, mode 0755; 0 or -errno with
 * "DIR: cannot create directory: why" in err. */
int plan_make_dirs(const char *path, struct strbuf *err);

/* Writes the jobs through the profile's engine (p->engine: io_uring, libaio
 * or psync), *created counting the bytes written; 0, -EINTR when prog asked
 * to stop (what is written stays), or -errno with "where: what: why" in err
 * (an engine that cannot start: before any file is opened). */
int plan_create_files(const struct plan *pl, const struct profile *p, const struct create_job *jobs,
		      size_t njobs, const struct plan_progress *prog, uint64_t *created,
		      struct strbuf *err);

/* A block device's regions (databases, logs, journals) start on 1 MiB. */
#define PLAN_REGION_ALIGN (1ULL << 20)

static inline uint64_t plan_round_region(uint64_t v)
{
	return (v + PLAN_REGION_ALIGN - 1) / PLAN_REGION_ALIGN * PLAN_REGION_ALIGN;
}

/* [sizing] capacity on a block-device volume, and on the directories of
 * every other volume (sizing.c): sets the databases' size and nr_pages; 0,
 * or -ENOSPC / -ENOMEM / -errno with a message in err. */
int plan_capacity_device(struct plan *pl, struct plan_volume *vol, const struct profile *p,
			 struct strbuf *err);
int plan_capacity_files(struct plan *pl, const struct profile *p, struct strbuf *err);

/* The free-space model of space.c (plan_space_measure + plan_space_check)
 * with what the caller found at the paths: have_db/have_log, bytes of each
 * database's file and log that need not be written. 0, or -ENOSPC with
 * plan_space_check()'s message in err, or -ENOMEM. */
int plan_check_space(const struct plan *pl, const uint64_t *have_db, const uint64_t *have_log,
		     struct strbuf *err);

/* The file behind a loop device: its identity (LOOP_GET_STATUS64) and its
 * path as /sys gives it ("" when it gives none). */
struct plan_loop_backing {
	dev_t dev; /* the filesystem's device the file is on */
	ino_t ino;
	char path[PATH_MAX];
};

/* 1 with *b filled when rdev (the block device at path) is a loop device
 * with a file behind it; 0 when it is no loop device, or one with no file;
 * -errno with why ("cannot find the file behind ...: why"). */
int plan_loop_backing(const char *path, dev_t rdev, struct plan_loop_backing *b,
		      struct strbuf *why) DP_MUST_CHECK;

/* That file opened O_RDONLY|O_CLOEXEC by its path and checked to be it (the
 * path may name nothing, or another file, in this mount namespace). The
 * descriptor is the caller's to close; -errno with why ("cannot lock the
 * file behind the loop device: ...") when it cannot be had. */
int plan_loop_backing_open(const struct plan_loop_backing *b, struct strbuf *why) DP_MUST_CHECK;

#endif
