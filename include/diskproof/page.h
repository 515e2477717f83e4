/* SPDX-License-Identifier: MIT */
/*
 * page.h - the on-disk page and log-block format.
 *
 * Every database page and every log block starts with a 64-byte header (all
 * fields little-endian): magic, format version, kind, database id, page size,
 * page number, generation (how many times this page was written), run id,
 * seed, and a CRC32C over the whole page with the crc field taken as zero.
 * The payload after the header is derived from (seed, database, page,
 * generation): unique per page and per write, so deduplication and
 * compression gain nothing.
 *
 * Page n of a database is at byte n * page_size; page numbers are 0-based.
 */
#ifndef DISKPROOF_PAGE_H
#define DISKPROOF_PAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PAGE_MAGIC 0x47504f4f52504444ULL /* "DDPROOPG" little-endian */
#define PAGE_FORMAT_VERSION 1u
#define PAGE_HEADER_SIZE 64u

enum page_kind {
	PAGE_KIND_DB = 1,
	PAGE_KIND_LOG = 2,
};

struct page_header {
	uint64_t magic;
	uint32_t version;
	uint32_t kind;
	uint32_t db_id;
	uint32_t page_size;
	uint64_t page_no;
	uint64_t generation;
	uint64_t run_id;
	uint64_t seed;
	uint32_t crc;
	uint32_t reserved;
};

_Static_assert(sizeof(struct page_header) == PAGE_HEADER_SIZE, "page header is 64 bytes");

/* Writes the header and, when full, the derived payload and the CRC32C; when
 * not full only the header is written (engines that move no data). */
void page_stamp(void *buf, uint32_t size, enum page_kind kind, uint32_t db_id, uint64_t page_no,
		uint64_t generation, uint64_t run_id, uint64_t seed, bool full);

/*
 * Log blocks carry a record table at the start of their payload: the pages
 * the records in the block name (so recovery can replay them), as
 * struct log_records followed by count page numbers (uint64_t). The rest of
 * the payload is the derived stamp. page_reseal() recomputes the CRC32C
 * after such an edit.
 */
struct log_records {
	uint32_t magic; /* LOG_RECORDS_MAGIC */
	uint32_t count;
};
#define LOG_RECORDS_MAGIC 0x5243444cu /* "LDCR" */
/* Most page numbers a log block of size bytes can name. */
static inline uint32_t log_records_capacity(uint32_t size)
{
	return size > PAGE_HEADER_SIZE + 8 ? (size - PAGE_HEADER_SIZE - 8) / 8 : 0;
}
void page_reseal(void *buf, uint32_t size);

enum page_status {
	PAGE_OK,
	PAGE_BAD_MAGIC,	  /* not a diskproof page: never written, or overwritten */
	PAGE_BAD_CRC,	  /* corrupt or torn */
	PAGE_MISDIRECTED, /* another page's (or database's) content */
	PAGE_LOST_WRITE,  /* older generation than the last acknowledged write */
	PAGE_UNWRITTEN,	  /* generation 0 where a write was acknowledged */
	PAGE_NEWER,	  /* newer than expected (fine after an unclean stop) */
};

const char *page_status_name(enum page_status s);

/* Whether the CRC32C in the header of the size-byte page or log block at buf
 * matches its bytes (computed with the crc field as zero; buf is not
 * written). */
bool page_crc_matches(const void *buf, uint32_t size);

/* Checks a page read back: header fields, then (when check_crc) the CRC32C.
 * found_gen receives the generation found (0 when the header is unusable). */
enum page_status page_verify(const void *buf, uint32_t size, uint32_t db_id, uint64_t page_no,
			     uint64_t expected_gen, bool check_crc, uint64_t *found_gen);

/*
 * page_log_verify() - checks one log block read back (logblock.c); the one
 * check every reader of a log uses (verify, init, the run's replication and
 * recovery replay reads).
 *
 *   buf, size: the block as read, size = the log's block size (the volume's
 *     log_align, what page_stamp() was given); with check_crc false only its
 *     first PAGE_HEADER_SIZE bytes are read.
 *   db_id: the database whose log it is; block: the block's index in that
 *     log (byte offset from the start of the log file, or of the log's
 *     region on a device, divided by size), 0-based. A log is used
 *     circularly, so a block at index n always carries n, whatever segment
 *     or lap wrote it.
 *   check_crc: true checks the CRC32C over the whole block (its record table
 *     included, as page_stamp()/page_reseal() sealed it); false checks the
 *     header only (whether a block is diskproof's and in its place: resume
 *     and region probes).
 *
 * Checks, in this order, and returns the first that fails:
 *   PAGE_BAD_MAGIC    magic or format version wrong: not a diskproof block
 *                     (never written, or overwritten by something else);
 *   PAGE_BAD_CRC      the header's block size is not size, or (check_crc)
 *                     the CRC32C does not match: corrupt or torn;
 *   PAGE_MISDIRECTED  a database page, another database's block, or another
 *                     block (index) of the log: a misdirected write or read;
 *   PAGE_UNWRITTEN    generation (the log's sequence number) 0;
 *   PAGE_OK           otherwise. The generation is the writer's sequence
 *                     number; comparing it with an expected one is the
 *                     caller's (read it from the header).
 * Never writes buf, allocates nothing, takes no lock: safe on a worker's hot
 * path. Never PAGE_LOST_WRITE or PAGE_NEWER.
 */
enum page_status page_log_verify(const void *buf, uint32_t size, uint32_t db_id, uint64_t block,
				 bool check_crc);

/* CRC32C (Castagnoli), the hardware instruction where the CPU has it. */
uint32_t page_crc32c(uint32_t crc, const void *data, size_t len);
/* x^(8n) mod the CRC32C polynomial (reflected, bit 31 = x^0): the factor that
 * n zero bytes apply to a CRC register. For tests of the 3-stream CRC. */
uint32_t page_crc32c_xpow8(uint64_t n);

#endif
