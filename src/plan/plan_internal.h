/*
 * plan_internal.h - private to src/plan: the file-creation jobs that
 * plan_prepare_files() hands to the io_uring creator in create.c, and the
 * directory maker that lock.c shares with plan.c.
 */
#ifndef DISKPROOF_PLAN_INTERNAL_H
#define DISKPROOF_PLAN_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

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

int plan_create_files(const struct plan *pl, const struct profile *p, const struct create_job *jobs,
		      size_t njobs, const struct plan_progress *prog, uint64_t *created,
		      struct strbuf *err);

#endif
