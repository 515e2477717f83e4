/*
 * log.c - the log writer: each committed transaction appends a record of
 * log_record_size bytes per page it changed; one writer per database writes
 * what is buffered (aligned to the volume's logical block size, at most a
 * slot's buffer) write-through, circularly over the preallocated log's
 * segments. Each log block carries a record table naming the pages of the
 * records it holds (recovery replays them). A segment is closed when its
 * last write completes; one still owing replication reads is not written
 * over: the log waits for it.
 */
#include <string.h>

#include "workload_internal.h"

void wl_log_append(struct wl_ctx *c, struct wl_db *d, const uint64_t *pages, unsigned n,
		   unsigned fpi)
{
	if (d->lsn == d->issued)
		d->log_pending_since = c->now; /* commit_delay counts from here */
	d->lsn += (uint64_t)n * c->prof->log_record_size + (uint64_t)fpi * c->prof->page_size;
	d->commits_buffered += n > 0; /* one commit record: group commit's count */
	for (unsigned i = 0; i < n && d->rlen < d->rcap; i++)
		d->recs[(d->rhead + d->rlen++) % d->rcap] = pages[i];
}

/* Writes the record table of one log block: up to take pages, oldest first. */
static void log_block_records(struct wl_db *d, char *blk, uint32_t size, unsigned take)
{
	struct log_records lr = {LOG_RECORDS_MAGIC, 0};
	uint32_t cap = log_records_capacity(size);

	for (; lr.count < take && lr.count < cap && d->rlen; lr.count++, d->rlen--) {
		memcpy(blk + PAGE_HEADER_SIZE + sizeof(lr) + 8 * lr.count, &d->recs[d->rhead], 8);
		d->rhead = (d->rhead + 1) % d->rcap;
	}
	memcpy(blk + PAGE_HEADER_SIZE, &lr, sizeof(lr));
	page_reseal(blk, size);
}

/* Moves the log to the next segment once the current one is full; false
 * when that segment still owes replication reads (the log waits). */
static bool log_next_segment(struct wl_ctx *c, struct wl_db *d)
{
	unsigned next;

	if (d->seg_off < wl_seg_size(c))
		return true;
	next = (d->seg + 1) % c->prof->log_segments;
	if (d->seg_owed[next]) {
		d->log_blocked = true;
		return false;
	}
	d->log_blocked = false;
	d->seg = next;
	d->seg_off = 0;
	return true;
}

/* The blocks of one write, each stamped, with its share of the records. */
static void log_stamp_blocks(struct wl_ctx *c, struct wl_db *d, struct wl_slot *s, uint64_t start,
			     unsigned blocks, unsigned rec_take)
{
	const struct profile *p = c->prof;

	for (unsigned b = 0; b < blocks; b++) {
		char *blk = (char *)s->buf + (uint64_t)b * d->log_align;
		uint64_t fileoff =
			(uint64_t)d->seg * wl_seg_size(c) + start + (uint64_t)b * d->log_align;
		unsigned take = (rec_take + blocks - 1 - b) / (blocks - b);

		page_stamp(blk, d->log_align, PAGE_KIND_LOG, d->pdb->id, fileoff / d->log_align,
			   ++d->log_seq, (uint64_t)*c->run_id, p->seed, c->full);
		if (c->full) {
			log_block_records(d, blk, d->log_align, take);
		} else {
			take = take < d->rlen ? take : d->rlen;
			d->rlen -= take;
			d->rhead = (d->rhead + take) % d->rcap;
			if (d->rp_recs) /* recovery replays this many */
				d->rp_recs[d->seg] += take;
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
	uint64_t lp = c->prof->log_page_size, max, take, end;

	if (lp < d->log_align)
		lp = d->log_align;
	max = buf_len / lp * lp;
	*start = d->seg_off / lp * lp;
	take = pending < room ? pending : room;
	end = (d->seg_off + take + lp - 1) / lp * lp;
	if (end - *start > max) {
		end = *start + max;
		take = end - d->seg_off;
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
	uint64_t n = len >= pending ? d->commits_buffered : d->commits_buffered * len / pending;

	d->commits_buffered -= n;
	d->commits_inflight = n;
}

struct wl_slot *wl_log_build(struct wl_ctx *c, struct wl_db *d, uint64_t now)
{
	const struct profile *p = c->prof;
	struct wl_slot *s;
	uint64_t pending = d->lsn - d->issued, len, room, start, take;
	unsigned rec_take;

	if (d->log_slot == WL_NO_SLOT || d->log_busy || !pending || !log_next_segment(c, d))
		return NULL;
	if (p->commit_delay_ns && now < d->log_pending_since + p->commit_delay_ns &&
	    (!p->commit_group || d->commits_buffered < p->commit_group)) {
		/* group commit: wait for more commits to share the write */
		if (d->log_pending_since + p->commit_delay_ns < c->next_due)
			c->next_due = d->log_pending_since + p->commit_delay_ns;
		return NULL;
	}
	s = &c->slots[d->log_slot];
	room = wl_seg_size(c) - d->seg_off;
	if (p->log_page_size) {
		take = log_page_write(c, d, pending, room, s->buf_len, &start, &len);
	} else {
		start = d->seg_off;
		len = (pending + d->log_align - 1) / d->log_align * d->log_align;
		if (len > room)
			len = room;
		if (len > s->buf_len)
			len = s->buf_len;
		take = len; /* the rest of the last block is left unused */
	}
	/* records this write carries: all buffered when it takes everything */
	rec_take = take >= pending ? d->rlen
				   : (unsigned)(((uint64_t)d->rlen * take + pending - 1) / pending);
	log_stamp_blocks(c, d, s, start, (unsigned)(len / d->log_align), rec_take);
	log_commits_issue(d, take, pending);
	wl_slot_request(s, ENGINE_OP_WRITE, IO_LOG_WRITE, ENGINE_RF_DSYNC, wl_file_log(s->db),
			d->pdb->log_base + (uint64_t)d->seg * wl_seg_size(c) + start, (uint32_t)len,
			now);
	d->issued = take >= pending ? d->lsn : d->issued + take;
	d->inflight_end = d->issued;
	d->seg_off += take;
	d->log_closes = d->seg_off >= wl_seg_size(c);
	d->log_busy = true;
	return s;
}

void wl_log_done(struct wl_ctx *c, struct wl_db *d)
{
	const struct profile *p = c->prof;

	d->log_busy = false;
	if (d->log_closes) {
		/* the segment is closed once its last write is done, not issued:
		 * a replication read of a block still being written would see
		 * it torn (through the page cache) or as the last lap left it.
		 * The log cannot move on before this (one write at a time), so
		 * the segment cannot be written over unread. */
		d->log_closes = false;
		d->segs_closed++;
		if (p->copies > 1) {
			/* replication reads it copies - 1 times */
			d->seg_owed[d->seg] = (uint8_t)(p->copies - 1);
			d->repl_q[(d->qhead + d->qlen++) % p->log_segments] = d->seg;
		}
	}
	/* a failed write is counted as an error; streams go on */
	d->durable = d->inflight_end;
	d->log_commits += d->commits_inflight; /* made durable by this write */
	d->commits_inflight = 0;
	wl_wake_waiters(c, d);
}
