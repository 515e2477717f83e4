/* SPDX-License-Identifier: MIT */
/*
 * log.c - the log writer: each committed transaction appends a record of
 * log_record_size bytes per page it changed; one writer per database writes
 * what is buffered (aligned to the volume's logical block size, at most a
 * slot's buffer) write-through, circularly over the preallocated log's
 * segments. Each log block carries a record table naming the pages of the
 * records it holds (recovery replays them). A segment is closed when its
 * last write completes; one still owing replication reads is not written
 * over: the log waits for it.
 *
 * log_sync = fdatasync: each write is a plain one, followed on the same
 * slot by an fdatasync of the log file, and only then durable (as
 * PostgreSQL's and InnoDB's log writers do). The worker counts the two as
 * one log write, from the write's submission to the flush's completion
 * (wl_slot.pair_first); a write that failed is counted at once and not
 * flushed.
 */
#include <string.h>

#include "workload_internal.h"

void wl_log_append(struct wl_ctx *c, struct wl_db *d, const uint64_t *pages, unsigned n,
		   unsigned fpi)
{
	if (d->log.lsn == d->log.issued)
		d->log.pending_since = c->now; /* commit_delay counts from here */
	d->log.lsn += (uint64_t)n * c->cfg.log_record_size + (uint64_t)fpi * c->cfg.page_size;
	d->log.commits_buffered += n > 0; /* one commit record: group commit's count */
	for (unsigned i = 0; i < n && d->log.rlen < d->log.rcap; i++)
		d->log.recs[(d->log.rhead + d->log.rlen++) % d->log.rcap] = pages[i];
}

/* Writes the record table of one log block: up to take pages, oldest first. */
static void log_block_records(struct wl_db *d, char *blk, uint32_t size, unsigned take)
{
	struct log_records lr = {LOG_RECORDS_MAGIC, 0};
	uint32_t cap = log_records_capacity(size);

	for (; lr.count < take && lr.count < cap && d->log.rlen; lr.count++, d->log.rlen--) {
		memcpy(blk + PAGE_HEADER_SIZE + sizeof(lr) + 8 * lr.count,
		       &d->log.recs[d->log.rhead], 8);
		d->log.rhead = (d->log.rhead + 1) % d->log.rcap;
	}
	memcpy(blk + PAGE_HEADER_SIZE, &lr, sizeof(lr));
	page_reseal(blk, size);
}

/* Moves the log to the next segment once the current one is full; false
 * when that segment still owes replication reads (the log waits). */
static bool log_next_segment(struct wl_ctx *c, struct wl_db *d)
{
	unsigned next;

	if (d->log.seg_off < wl_seg_size(c))
		return true;
	next = (d->log.seg + 1) % c->cfg.log_segments;
	if (d->repl.seg_owed[next]) {
		d->log.blocked = true;
		return false;
	}
	d->log.blocked = false;
	d->log.seg = next;
	d->log.seg_off = 0;
	return true;
}

/* The blocks of one write, each stamped, with its share of the records. */
static void log_stamp_blocks(struct wl_ctx *c, struct wl_db *d, struct wl_slot *s, uint64_t start,
			     unsigned blocks, unsigned rec_take)
{
	const struct wl_config *p = &c->cfg;

	for (unsigned b = 0; b < blocks; b++) {
		char *blk = (char *)s->buf + (uint64_t)b * d->log_align;
		uint64_t fileoff =
			(uint64_t)d->log.seg * wl_seg_size(c) + start + (uint64_t)b * d->log_align;
		unsigned take = (rec_take + blocks - 1 - b) / (blocks - b);

		page_stamp(blk, d->log_align, PAGE_KIND_LOG, d->pdb->id, fileoff / d->log_align,
			   ++d->log.seq, (uint64_t)c->run_id, p->seed, c->full);
		if (c->full) {
			log_block_records(d, blk, d->log_align, take);
		} else {
			take = take < d->log.rlen ? take : d->log.rlen;
			d->log.rlen -= take;
			d->log.rhead = (d->log.rhead + take) % d->log.rcap;
			if (d->replay.recs) /* recovery replays this many */
				d->replay.recs[d->log.seg] += take;
		}
		rec_take -= take < rec_take ? take : rec_take;
	}
}

/*
 * log_page_size: the log is written in whole pages, and the last one is
 * mostly partial; the next write starts at that page again, rewriting it
 * with the records that follow (so the device writes more than the log
 * holds: PostgreSQL's WAL rewrites its last 8 KiB page at every flush).
 * The bytes the write carries (take) from seg_off on; the write itself,
 * [start, start + len), in whole log pages, within the slot's buffer.
 */
static uint64_t log_page_write(const struct wl_ctx *c, const struct wl_db *d, uint64_t pending,
			       uint64_t room, uint32_t buf_len, uint64_t *start, uint64_t *len)
{
	uint64_t lp = c->cfg.log_page_size, max, take, end;

	if (lp < d->log_align)
		lp = d->log_align;
	max = buf_len / lp * lp;
	*start = d->log.seg_off / lp * lp;
	take = pending < room ? pending : room;
	end = (d->log.seg_off + take + lp - 1) / lp * lp;
	if (end - *start > max) {
		end = *start + max;
		take = end - d->log.seg_off;
	}
	*len = end - *start;
	return take;
}

/*
 * The commits a write of len of the pending buffered bytes carries, for
 * commits per log write: all of them when it takes everything; else the
 * share of its bytes, rounded down. With records of equal size that is
 * the commits whose record ends within the write; one that straddles its
 * end counts with the write that completes it.
 */
static void log_commits_issue(struct wl_db *d, uint64_t len, uint64_t pending)
{
	uint64_t n =
		len >= pending ? d->log.commits_buffered : d->log.commits_buffered * len / pending;

	d->log.commits_buffered -= n;
	d->log.commits_inflight = n;
}

/* log_sync = fdatasync: the flush of the write just done, on its slot;
 * the slot keeps the write's offset and bytes, the pair's. */
static struct wl_slot *log_sync_issue(struct wl_ctx *c, struct wl_db *d, uint64_t now)
{
	struct wl_slot *s = &c->slots[d->log.slot];
	uint64_t off = s->off0;
	uint32_t len = s->len0;

	wl_slot_request(s, ENGINE_OP_FSYNC, IO_LOG_WRITE, 0, wl_file_log(s->db), 0, 0, now);
	s->off0 = off;
	s->len0 = len;
	s->pair_first = false;
	d->log.sync_due = false;
	d->log.busy = true;
	return s;
}

struct wl_slot *wl_log_build(struct wl_ctx *c, struct wl_db *d, uint64_t now)
{
	const struct wl_config *p = &c->cfg;
	struct wl_slot *s;
	uint64_t pending = d->log.lsn - d->log.issued, len, room, start, take;
	unsigned rec_take;

	if (d->log.slot == WL_NO_SLOT || d->log.busy)
		return NULL;
	if (d->log.sync_due)
		return log_sync_issue(c, d, now);
	if (!pending || !log_next_segment(c, d))
		return NULL;
	if (p->commit_delay_ns && now < d->log.pending_since + p->commit_delay_ns &&
	    (!p->commit_group || d->log.commits_buffered < p->commit_group)) {
		/* group commit: wait for more commits to share the write */
		if (d->log.pending_since + p->commit_delay_ns < c->next_due)
			c->next_due = d->log.pending_since + p->commit_delay_ns;
		return NULL;
	}
	s = &c->slots[d->log.slot];
	room = wl_seg_size(c) - d->log.seg_off;
	if (p->log_page_size) {
		take = log_page_write(c, d, pending, room, s->buf_len, &start, &len);
	} else {
		start = d->log.seg_off;
		len = (pending + d->log_align - 1) / d->log_align * d->log_align;
		if (len > room)
			len = room;
		if (len > s->buf_len)
			len = s->buf_len;
		take = len; /* the rest of the last block is left unused */
	}
	/* records this write carries: all buffered when it takes everything */
	rec_take = take >= pending
			   ? d->log.rlen
			   : (unsigned)(((uint64_t)d->log.rlen * take + pending - 1) / pending);
	log_stamp_blocks(c, d, s, start, (unsigned)(len / d->log_align), rec_take);
	log_commits_issue(d, take, pending);
	wl_slot_request(s, ENGINE_OP_WRITE, IO_LOG_WRITE,
			p->log_sync == PROFILE_LOG_SYNC_FDATASYNC ? 0 : ENGINE_RF_DSYNC,
			wl_file_log(s->db),
			d->pdb->log_base + (uint64_t)d->log.seg * wl_seg_size(c) + start,
			(uint32_t)len, now);
	s->pair_first = p->log_sync == PROFILE_LOG_SYNC_FDATASYNC;
	d->log.issued = take >= pending ? d->log.lsn : d->log.issued + take;
	d->log.inflight_end = d->log.issued;
	d->log.seg_off += take;
	d->log.closes = d->log.seg_off >= wl_seg_size(c);
	d->log.busy = true;
	return s;
}

void wl_log_done(struct wl_ctx *c, struct wl_db *d, bool ok)
{
	const struct wl_config *p = &c->cfg;
	const struct wl_slot *s = &c->slots[d->log.slot];

	d->log.busy = false;
	if (ok && s->pair_first) {
		/* log_sync = fdatasync: the write is done, its flush next */
		d->log.sync_due = true;
		return;
	}
	if (d->log.closes) {
		/* the segment is closed once its last write is done, not issued:
		 * a replication read of a block still being written would see
		 * it torn (through the page cache) or as the last lap left it.
		 * The log cannot move on before this (one write at a time), so
		 * the segment cannot be written over unread. */
		d->log.closes = false;
		d->replay.segs_closed++;
		if (p->copies > 1) {
			/* replication reads it copies - 1 times */
			d->repl.seg_owed[d->log.seg] = (uint8_t)(p->copies - 1);
			d->repl.q[(d->repl.qhead + d->repl.qlen++) % p->log_segments] = d->log.seg;
		}
	}
	/* a failed write is counted as an error; streams go on */
	d->log.durable = d->log.inflight_end;
	d->log.commits += d->log.commits_inflight; /* made durable by this write */
	d->log.commits_inflight = 0;
	wl_wake_waiters(c, d);
}
