/* SPDX-License-Identifier: MIT */
/*
 * cutstate.h - what a simulated device kept at a simulated power cut ([sim]
 * write_cache with cut_at, a durability test): one file per database beside
 * its journal, "DIR/dbN.simcut" (the journal's name with .simcut for .gen),
 * which `verify` reads for a sim profile, since the sim engine keeps no
 * database file. A low-level primitive of the page module: uses only util
 * and the CRC32C of page.h.
 *
 * Format (little-endian): a 64-byte header
 *   magic "DPSIMCUT" (8 bytes), version u32 (1), db_id u32, nr_pages u64,
 *   cut_ns u64 (the cut on CLOCK_REALTIME: the run's start + cut_at),
 *   crc32c u32 of the entries, 28 bytes zero
 * then nr_pages u32 entries, page 0 first: the generation the page holds
 * after the cut (0: never written, init's 1) | CUTSTATE_TORN (a mix of the
 * sectors of two generations). Written to a temporary file, fsynced, renamed
 * over the old one.
 */
#ifndef DISKPROOF_CUTSTATE_H
#define DISKPROOF_CUTSTATE_H

#include <stdint.h>

#include "diskproof/util.h"

#define CUTSTATE_TORN 0x40000000u /* = ENGINE_SIM_TORN */
#define CUTSTATE_GEN_MASK 0x3fffffffu

struct cutstate {
	uint32_t db_id;
	uint64_t nr_pages;
	uint64_t cut_ns; /* CLOCK_REALTIME */
	uint32_t *pages; /* nr_pages entries; the caller's (cutstate_release) */
};

/* The state file's path for a journal at journal_path (".gen" → ".simcut",
 * else ".simcut" appended), into out. */
void cutstate_path(const char *journal_path, struct strbuf *out);
/* Writes s to path (temporary file, fsync, rename). 0, or -errno with
 * "PATH: what: why" in err. */
int cutstate_write(const char *path, const struct cutstate *s, struct strbuf *err) DP_MUST_CHECK;
/* Reads path into s (s->pages allocated: cutstate_release). 0; -ENOENT when
 * there is none; -EBADMSG when it is damaged or not one; else -errno; err
 * says why. */
int cutstate_read(const char *path, struct cutstate *s, struct strbuf *err) DP_MUST_CHECK;
/* Frees s->pages; safe twice. */
void cutstate_release(struct cutstate *s);

#endif
