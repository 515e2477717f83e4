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

/* Checks a page read back: header fields, then (when check_crc) the CRC32C.
 * found_gen receives the generation found (0 when the header is unusable). */
enum page_status page_verify(const void *buf, uint32_t size, uint32_t db_id, uint64_t page_no,
			     uint64_t expected_gen, bool check_crc, uint64_t *found_gen);

/* CRC32C (Castagnoli), the hardware instruction where the CPU has it. */
uint32_t page_crc32c(uint32_t crc, const void *data, size_t len);
/* x^(8n) mod the CRC32C polynomial (reflected, bit 31 = x^0): the factor that
 * n zero bytes apply to a CRC register. For tests of the 3-stream CRC. */
uint32_t page_crc32c_xpow8(uint64_t n);

#endif
