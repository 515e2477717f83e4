/*
 * journal.h - the generation journal of one database (DB.gen beside DB.edb,
 * or in the results directory for a block device): the expected generation
 * of every page, written atomically (write a temporary file, fsync, rename,
 * fsync the directory), periodically during a run and at its end.
 *
 * Format (little-endian): a 64-byte header
 *   magic "DPGENJ01" (8 bytes), version u32 (1), flags u32 (JOURNAL_CLEAN),
 *   db_id u32, page_size u32, nr_pages u64, run_id u64, seed u64,
 *   crc32c u32 of the gens array, reserved u32, reserved u64
 * then nr_pages u32 generations, page 0 first. Generation 0 means "unknown"
 * (never verified since the file was found, or a write that failed).
 *
 * JOURNAL_CLEAN is set only by the final write of a run that ended with every
 * I/O completed: then the generations are exact. Without it (a periodic
 * write, or a run that was killed) each is a lower bound: a page found newer
 * is fine, a page found older is a lost write (ARCHITECTURE.md).
 */
#ifndef DISKPROOF_JOURNAL_H
#define DISKPROOF_JOURNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "diskproof/util.h"

#define JOURNAL_MAGIC "DPGENJ01"
#define JOURNAL_VERSION 1u
#define JOURNAL_HEADER_SIZE 64u
#define JOURNAL_CLEAN 0x1u

struct journal_info {
	uint32_t db_id;
	uint32_t page_size;
	uint64_t nr_pages;
	uint64_t run_id;
	uint64_t seed;
	uint32_t flags;
};

/* Writes gens (info->nr_pages entries) to path atomically. 0 or -errno with
 * "PATH: what: why" in err. */
int journal_write(const char *path, const struct journal_info *info, const uint32_t *gens,
		  struct strbuf *err) DP_MUST_CHECK;

/*
 * Reads a journal. -ENOENT when there is none (not an error for callers that
 * can do without); -EINVAL for a damaged or foreign file (bad magic, version,
 * size or CRC) with the reason in err. On success *gens is malloc'd
 * (info->nr_pages entries) and the caller frees it.
 */
int journal_read(const char *path, struct journal_info *info, uint32_t **gens,
		 struct strbuf *err) DP_MUST_CHECK;

#endif
