/* SPDX-License-Identifier: MIT */
/*
 * journal.h - the generation journal of one database: the expected
 * generation of every page. It lives in one of two places (a journal_loc):
 *
 *   a file DB.gen beside DB.edb, replaced atomically (a new temporary file
 *   created O_EXCL|O_NOFOLLOW, fsync, rename, fsync of the directory);
 *
 *   a region of the block device that holds the database (after every
 *   database and log region of the volume, so that their offsets never
 *   move), with two slots written alternately: a write goes to the slot
 *   that does not hold the newest valid journal, with the next sequence
 *   number, then fdatasync; a reader takes the valid slot with the higher
 *   sequence. A torn write leaves the other slot, which is never newer than
 *   the journal it replaced would have said (see journal_mark_running()).
 *
 * Format (little-endian), versions 2 and 3: a 64-byte header
 *   magic "DPGENJ01" (8 bytes), version u32 (2 or 3), flags u32 (JOURNAL_CLEAN),
 *   db_id u32, page_size u32, nr_pages u64, run_id u64, seed u64,
 *   crc32c u32 of the gens array, crc32c u32 of the header (these 64 bytes
 *   with this field zero), sequence u64 (device slots; 0 in a file)
 * then nr_pages u32 generations, page 0 first. A device slot is a header
 * and its generations, JOURNAL_SLOT_ALIGN-aligned; slot 1 follows slot 0.
 * Version 1 (no header CRC: bytes 52-63 reserved) is still read, and
 * rewritten as version 2 on the next write. Generation 0 means "unknown"
 * (never verified since the file was found).
 *
 * Version 3 is version 2 whose entries may also be failed-write marks: the
 * page's last write completed with an error (or short), so what it holds is
 * undefined; JOURNAL_GEN_FAILED with the id of the run that wrote it in the
 * low 30 bits (journal_failed_mark()). Nothing checks such a page until a
 * write of it succeeds. A journal is written as version 3 only when it holds
 * such a mark, else as version 2 (which diskproof before marks reads).
 * Generations stay at most JOURNAL_GEN_MAX; a version 1 or 2 entry with bit
 * 30 set, or any entry with bits 30 and 31 both set, is damage.
 *
 * A generation with JOURNAL_GEN_LOWER (bit 31) set is known only as a lower
 * bound for that page (the run that wrote the journal never touched it, and
 * it was a lower bound before); generations themselves stay below 2^31.
 *
 * JOURNAL_CLEAN is set only by the final write of a run that ended with every
 * I/O completed: then the generations are exact, but for those marked
 * JOURNAL_GEN_LOWER. Without it (a periodic
 * write, a run in progress, a run that was killed) each is a lower bound: a
 * page found newer is fine, a page found older is a lost write
 * (ARCHITECTURE.md).
 *
 * Safety: a journal write never replaces a file that is not a journal (no
 * magic, or not a regular file): -EEXIST; the caller removes it first when
 * the user named it with --destroy-data.
 *
 * Spares: on a filesystem where overwrites copy on write (env_fs_cow():
 * btrfs, XFS with reflink, ...), a data write can fail for lack of space,
 * and so can the journal write that must record it. So every file journal
 * written there keeps up to JOURNAL_SPARES spares beside it, "PATH.spare.K":
 * empty files with the journal's size preallocated past their end
 * (FALLOC_FL_KEEP_SIZE), which such a filesystem lets us fill once without
 * new space. A journal write that finds no space and records failed writes
 * of the run that writes it (journal_failed_mark(info->run_id)) goes into a
 * spare instead (written once, fsync, rename over PATH). Nothing else uses
 * them, so a full filesystem still fails a run's other journal writes, as
 * before. A spare is only ever a file of ours: a regular file with one link,
 * owned by us, empty, never followed; anything else at its name is left
 * alone.
 */
#ifndef DISKPROOF_JOURNAL_H
#define DISKPROOF_JOURNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "diskproof/util.h"

#define JOURNAL_MAGIC "DPGENJ01"
/* the newest version, written when an entry is a failed-write mark */
#define JOURNAL_VERSION 3u
/* written otherwise: the format without failed-write marks */
#define JOURNAL_VERSION_PLAIN 2u
#define JOURNAL_HEADER_SIZE 64u
#define JOURNAL_CLEAN 0x1u
/* a generation known only as a lower bound, in a clean journal too */
#define JOURNAL_GEN_LOWER 0x80000000u
/* version 3: the page's last write failed; the run's id in the low bits */
#define JOURNAL_GEN_FAILED 0x40000000u
#define JOURNAL_FAILED_RUN_MASK 0x3fffffffu
/* the largest generation a journal keeps */
#define JOURNAL_GEN_MAX 0x3fffffffu
#define JOURNAL_SLOT_ALIGN 4096u
/* spare files kept beside a journal on a copy-on-write filesystem */
#define JOURNAL_SPARES 2

/* Whether entry g is a failed-write mark (not a generation). */
static inline bool journal_gen_failed(uint32_t g)
{
	return (g & (JOURNAL_GEN_LOWER | JOURNAL_GEN_FAILED)) == JOURNAL_GEN_FAILED;
}

/* The mark of a page whose write failed in run run_id (0: init
 * --precondition); an id too large to keep is kept as
 * JOURNAL_FAILED_RUN_MASK, "unknown". */
static inline uint32_t journal_failed_mark(uint64_t run_id)
{
	return JOURNAL_GEN_FAILED |
	       (run_id < JOURNAL_FAILED_RUN_MASK ? (uint32_t)run_id : JOURNAL_FAILED_RUN_MASK);
}

/* The run a failed-write mark names. */
static inline uint64_t journal_failed_run(uint32_t g)
{
	return g & JOURNAL_FAILED_RUN_MASK;
}

/*
 * Where a journal is. size 0: a file at path. size > 0: the region
 * [offset, offset + size) of the block device at path, two slots of size / 2
 * each (size from journal_region_size()). path is not owned.
 */
struct journal_loc {
	const char *path;
	uint64_t offset;
	uint64_t size;
};

struct journal_info {
	uint32_t db_id;
	uint32_t page_size;
	uint64_t nr_pages;
	uint64_t run_id;
	uint64_t seed;
	uint32_t flags;
};

/* Bytes of the device region that holds the journal of nr_pages pages. */
uint64_t journal_region_size(uint64_t nr_pages);

/* "PATH" for a file, "PATH (journal region at byte N)" for a device. */
void journal_loc_describe(const struct journal_loc *loc, struct strbuf *out);

/* Writes gens (info->nr_pages entries) atomically, into a spare when the
 * filesystem is full and gens mark failed writes of run info->run_id (see
 * Spares above). 0 or -errno with "WHERE: what: why" in err; -EEXIST when a
 * file that is not a journal is in the way; -ENOSPC when gens do not fit a
 * device slot. */
int journal_write(const struct journal_loc *loc, const struct journal_info *info,
		  const uint32_t *gens, struct strbuf *err) DP_MUST_CHECK;

/*
 * Reads a journal. -ENOENT when there is none (not an error for callers that
 * can do without); -EINVAL for a damaged or foreign file (bad magic, version,
 * size, CRC or an entry out of range: read whole, and not a usable journal)
 * with the reason in err; another -errno (-EIO, ...) when it could not be
 * read, with "WHERE: cannot read the journal: why" in err: never to be called
 * damaged or foreign. On success *gens is malloc'd (info->nr_pages entries)
 * and the caller frees it.
 */
int journal_read(const struct journal_loc *loc, struct journal_info *info, uint32_t **gens,
		 struct strbuf *err) DP_MUST_CHECK;

/* Whether the journal info describes database db_id of nr_pages pages of
 * page_size bytes: the one geometry check before its generations are used.
 * (Pass info->nr_pages as nr_pages to accept any page count.) */
bool journal_info_matches(const struct journal_info *info, uint32_t db_id, uint32_t page_size,
			  uint64_t nr_pages);

/*
 * Marks a journal as belonging to run run_id in progress: JOURNAL_CLEAN
 * cleared (its generations become lower bounds), run_id set, generations
 * unchanged, durably before it returns. A version 2 or 3 file has its
 * header rewritten in place (pwrite of 64 bytes in the first sector,
 * fdatasync); a version 1 file is rewritten whole as version 2 (or 3); a
 * device gets the next slot. 0, -ENOENT when there is no journal, else -errno with err filled.
 */
int journal_mark_running(const struct journal_loc *loc, uint64_t run_id,
			 struct strbuf *err) DP_MUST_CHECK;

/*
 * journal_mark_running() of many file journals at once, for a run's start:
 * every header rewritten in place first, then their fdatasyncs side by side
 * on up to JOURNAL_MARK_THREADS threads, so that the filesystem commits them
 * together and the device's cache flushes are shared (a thousand databases
 * are marked in the time of a few flushes, not a thousand). done[i] is set
 * for each journal marked durably; one that needs more (a device's slot, a
 * version 1 file, none there, a failure) is left unset for the caller to
 * mark (or rewrite) on its own, which says its error then. 0, or the first
 * failure's -errno with its message in err.
 */
#define JOURNAL_MARK_THREADS 16
int journal_mark_running_files(const struct journal_loc *const *locs, size_t n, uint64_t run_id,
			       bool *done, struct strbuf *err);

/*
 * Whether journal_write() may replace the file at path: 0 when it is missing
 * or a regular file starting with the journal magic; -EEXIST when something
 * else is there (not a regular file, or a file read whole that does not start
 * with the magic: only then is it "not a journal"; err untouched); another
 * -errno when it cannot be looked at (an I/O error, permissions), with
 * "PATH: cannot read the journal: why" in err.
 */
int journal_file_check(const char *path, struct strbuf *err) DP_MUST_CHECK;

/* "PATH.spare.K" (k from 1 to JOURNAL_SPARES), into out. */
void journal_spare_name(const char *path, int k, struct strbuf *out);

/* Whether the file at name may be used or removed as a journal's spare:
 * a regular file with one link, owned by us, empty (never followed). */
bool journal_spare_ours(const char *name);

#endif
