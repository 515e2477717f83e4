/* SPDX-License-Identifier: MIT */
/*
 * repl.c - replication: a database with copies > 1 has each closed log
 * segment read copies - 1 times (as a passive copy's log shipping would),
 * whole, in pieces of at most a slot's buffer, oldest segment first. Until
 * its reads are done a segment is owed and the log writer does not reuse it
 * (log.c). In a recovery test the same slot reads the segments to replay
 * (recovery.c).
 */
#include <string.h>

#include "workload_internal.h"

struct wl_slot *wl_repl_build(struct wl_ctx *c, struct wl_db *d, uint64_t now)
{
	struct wl_slot *s;
	unsigned seg;
	uint64_t len;

	if (d->repl.slot == WL_NO_SLOT)
		return NULL;
	s = &c->slots[d->repl.slot];
	if (d->replay.phase == WL_PHASE_REPLAY)
		return wl_replay_read_prepare(c, d, s, now) ? s : NULL;
	if (d->repl.busy || !d->repl.qlen || d->replay.phase > WL_PHASE_DRAIN)
		return NULL;
	seg = d->repl.q[d->repl.qhead];
	len = wl_seg_size(c) - d->repl.off;
	if (len > s->buf_len)
		len = s->buf_len;
	s->page = seg;
	wl_slot_request(s, ENGINE_OP_READ, IO_LOG_READ, 0, wl_file_log(s->db),
			d->pdb->log_base + (uint64_t)seg * wl_seg_size(c) + d->repl.off,
			(uint32_t)len, now);
	d->repl.busy = true;
	return s;
}

const char *wl_repl_check(const struct wl_ctx *c, const struct wl_db *d, struct wl_slot *s,
			  uint64_t *block, uint64_t *off)
{
	const uint32_t bs = d->log_align;

	if (!c->full || !c->cfg.verify)
		return NULL;
	for (uint64_t o = 0; o + bs <= s->len0; o += bs) {
		static const char *const what[] = {
			[PAGE_BAD_MAGIC] = "not a log block",
			[PAGE_BAD_CRC] = "bad checksum",
			[PAGE_MISDIRECTED] = "misdirected",
			[PAGE_UNWRITTEN] = "unwritten (sequence 0)",
		};
		enum page_status st;

		*block = (s->off0 - d->pdb->log_base + o) / bs;
		*off = s->off0 + o;
		st = page_log_verify((const char *)s->buf + o, bs, d->pdb->id, *block, true);
		if (st != PAGE_OK)
			return (size_t)st < DP_ARRAY_SIZE(what) && what[st] ? what[st] : "bad";
	}
	return NULL;
}

void wl_repl_done(struct wl_ctx *c, struct wl_db *d, struct wl_slot *s)
{
	const struct wl_config *p = &c->cfg;
	unsigned seg = (unsigned)s->page;

	d->repl.busy = false;
	if (d->replay.phase == WL_PHASE_REPLAY) {
		wl_replay_read_done(c, d, s);
		return;
	}
	d->repl.off += s->len0;
	if (d->repl.off < wl_seg_size(c))
		return;
	d->repl.off = 0;
	if (d->repl.seg_owed[seg])
		d->repl.seg_owed[seg]--;
	if (!d->repl.seg_owed[seg]) {
		d->repl.qhead = (d->repl.qhead + 1) % p->log_segments;
		d->repl.qlen--;
	}
}
