/*
 * flush.c - the flusher: a database's dirty pages (committed by streams) are
 * written back oldest first, at most flush_depth at a time (one slot each),
 * each only once the log records that dirtied it are durable (write-ahead)
 * and while no other I/O is in flight on it. A full dirty list holds
 * committing streams back (txn.c); each write that completes wakes them.
 */
#include "workload_internal.h"

struct wl_slot *wl_flush_build(struct wl_ctx *c, struct wl_db *d, uint64_t now)
{
	struct wl_dirty_page *dp;
	struct wl_slot *s;

	if (!d->nfree)
		return NULL;
	/* a page found bad since it was dirtied is not written: dropped */
	while (d->dlen && (d->busy[d->dirty[d->dhead].page - d->lo] & WL_BUSY_BAD)) {
		d->busy[d->dirty[d->dhead].page - d->lo] &= (uint8_t)~WL_BUSY_DIRTY;
		d->dhead = (d->dhead + 1) % d->dcap;
		d->dlen--;
	}
	if (!d->dlen)
		return NULL;
	dp = &d->dirty[d->dhead];
	/* write-ahead: the page's log record first; one I/O per page */
	if (dp->lsn > d->durable || (d->busy[dp->page - d->lo] & WL_BUSY_IO))
		return NULL;
	s = &c->slots[d->flush_free[--d->nfree]];
	s->page = dp->page;
	d->busy[dp->page - d->lo] &= (uint8_t)~WL_BUSY_DIRTY;
	d->dhead = (d->dhead + 1) % d->dcap;
	d->dlen--;
	wl_page_io_prepare(c, s, false, now);
	return s;
}

void wl_flush_done(struct wl_ctx *c, struct wl_slot *s)
{
	struct wl_db *d = &c->dbs[s->db];

	d->flush_free[d->nfree++] = (unsigned)(s - c->slots);
	wl_wake_waiters(c, d);
}
