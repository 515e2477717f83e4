/* SPDX-License-Identifier: MIT */
/*
 * scan.c - sequential multi-page reads over a database's pages: background
 * database maintenance (BDM: bdm_io_size reads at bdm_rate bytes per second,
 * round and round) and the backup test (backup_io_size reads as fast as the
 * device goes, once through). A scan read marks the pages it holds busy so
 * that nothing writes them meanwhile; pages already busy are read but not
 * held (nor checked).
 */

#include "workload_internal.h"

struct wl_slot *wl_scan_build(struct wl_ctx *c, struct wl_db *d, uint64_t now)
{
	struct wl_slot *s;
	const struct wl_config *p = &c->cfg;
	bool backup = wl_backup_test(c);
	uint64_t end = d->lo + d->n;
	unsigned np;

	/* wl_scan_prepare: not busy, not done, due */
	if (d->scan.next >= end) {
		if (backup) {
			d->scan.done = true;
			return NULL;
		}
		d->scan.next = d->lo; /* maintenance goes round again */
	}
	s = &c->slots[d->scan.slot];
	np = s->buf_len / p->page_size;
	if (d->scan.next + np > end)
		np = (unsigned)(end - d->scan.next);
	s->page = d->scan.next;
	s->npages = np;
	s->held = 0;
	for (unsigned i = 0; i < np; i++) {
		uint8_t *b = &d->busy[s->page + i - d->lo];

		if (!(*b & WL_BUSY_IO)) {
			*b |= WL_BUSY_IO;
			s->held |= 1ULL << i;
		}
	}
	if (!d->scan.t0)
		d->scan.t0 = now;
	wl_slot_request(s, ENGINE_OP_READ, backup ? IO_BACKUP_READ : IO_BDM_READ, 0,
			wl_file_db(s->db), d->pdb->base + s->page * p->page_size, np * p->page_size,
			now);
	d->scan.next += np;
	if (!backup) {
		d->scan.due += d->scan.gap;
		/* a slow device is not owed a burst afterwards: at most 1 s behind */
		if (d->scan.due + NSEC_PER_SEC < now)
			d->scan.due = now - NSEC_PER_SEC;
	}
	d->scan.busy = true;
	return s;
}

void wl_scan_done(struct wl_ctx *c, struct wl_db *d, struct wl_slot *s, bool ok)
{
	(void)c;
	for (unsigned i = 0; i < s->npages; i++)
		if (s->held & (1ULL << i))
			d->busy[s->page + i - d->lo] &= (uint8_t)~WL_BUSY_IO;
	d->scan.busy = false;
	if (ok)
		d->scan.bytes += s->len0;
	d->scan.t1 = s->req.t_done_ns;
}
