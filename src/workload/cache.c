/* SPDX-License-Identifier: MIT */
/*
 * cache.c - the cache model (cache_size): the pages a database cache holds,
 * and CLOCK choosing the page it drops.
 */
#include "workload_internal.h"

/*
 * The cache model (cache_size). A database cache of cache_cap pages (this
 * worker's share), empty at the start as after a restart with the page
 * cache dropped. A page a transaction touches that is in it costs no I/O;
 * one that is not is read, and goes in (with the pages a read ahead took).
 * When it is full, CLOCK picks the page to drop: the hand passes over pages
 * hit since it last came by (clearing their bit), and over pages dirty or
 * with I/O in flight, which a cache cannot drop; the first other page goes.
 * With the cache as large as the database nothing is ever dropped: no ring.
 */
static bool cache_evict(struct wl_db *d)
{
	for (uint64_t k = 0; k < 2 * d->cache.cap; k++) {
		uint64_t h = d->cache.hand;
		uint8_t *b = &d->busy[d->cache.ring[h]];

		d->cache.hand = h + 1 < d->cache.cap ? h + 1 : 0;
		if (*b & WL_BUSY_REF) {
			*b &= (uint8_t)~WL_BUSY_REF;
			continue;
		}
		if (*b & (WL_BUSY_IO | WL_BUSY_DIRTY))
			continue;
		*b &= (uint8_t)~WL_BUSY_CACHED;
		d->cache.hand = h; /* the new page takes its place */
		return true;
	}
	return false; /* every page pinned: the new one is not kept */
}

void wl_cache_insert(struct wl_ctx *c, struct wl_db *d, uint64_t i)
{
	(void)c;
	if (d->busy[i] & WL_BUSY_CACHED)
		return;
	if (d->cache.ring) {
		if (d->cache.len < d->cache.cap) {
			d->cache.ring[d->cache.len++] = (uint32_t)i;
		} else {
			if (!cache_evict(d))
				return;
			d->cache.ring[d->cache.hand] = (uint32_t)i;
			d->cache.hand = d->cache.hand + 1 < d->cache.cap ? d->cache.hand + 1 : 0;
		}
	} else if (d->cache.len < d->cache.cap) {
		d->cache.len++;
	} else {
		return; /* no cache (a share of no pages) */
	}
	d->busy[i] |= WL_BUSY_CACHED;
}
