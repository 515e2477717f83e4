/* SPDX-License-Identifier: MIT */
/*
 * logblock.c - checking a log block read back (page.h): the one check that
 * verify, init's resume and probes, and the run's replication and replay
 * reads share. Database pages are page_verify()'s (page.c).
 */
#include <string.h>

#include "diskproof/page.h"

enum page_status page_log_verify(const void *buf, uint32_t size, uint32_t db_id, uint64_t block,
				 bool check_crc)
{
	struct page_header h;

	memcpy(&h, buf, sizeof(h));
	if (h.magic != PAGE_MAGIC || h.version != PAGE_FORMAT_VERSION)
		return PAGE_BAD_MAGIC;
	if (h.page_size != size)
		return PAGE_BAD_CRC;
	if (check_crc && !page_crc_matches(buf, size))
		return PAGE_BAD_CRC;
	if (h.kind != PAGE_KIND_LOG || h.db_id != db_id || h.page_no != block)
		return PAGE_MISDIRECTED;
	return h.generation ? PAGE_OK : PAGE_UNWRITTEN;
}
