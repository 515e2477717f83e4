/*
 * gen.c - the workload generators as they were in run.c: transaction
 * streams, the flusher, the log writer, replication and recovery replay,
 * maintenance and backup scans (a temporary home: they move to
 * src/workload/).
 */
#include <math.h>
#include <string.h>

#include "diskproof/page.h"

#include "run_internal.h"

static uint64_t rng_next(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

/* A uniform double in [0, 1). */
static double rng_unit(uint64_t *s)
{
	return (double)(rng_next(s) >> 11) * (1.0 / 9007199254740992.0);
}

/* floor(mean) pages, one more with probability frac(mean); 1..TXN_MAX_PAGES */
static unsigned draw_pages(uint64_t *rng, double mean)
{
	unsigned n = (unsigned)mean;

	if (rng_unit(rng) < mean - (double)n)
		n++;
	if (n < 1)
		n = 1;
	return n > TXN_MAX_PAGES ? TXN_MAX_PAGES : n;
}

static void slot_stamp_write(struct worker *w, struct slot *s, struct wdb *d)
{
	const struct profile *p = w->run->prof;
	bool full = !(w->ops->flags & ENGINE_F_NO_FILES);
	uint32_t e = d->expect[s->page - d->lo];

	s->gen = e == EXPECT_BAD ? 2 : (uint64_t)(e & ~EXPECT_LOWER) + 1;
	if (s->gen == 1)
		s->gen = 2; /* unknown before: anything newer than init's 1 */
	page_stamp(s->buf, p->page_size, PAGE_KIND_DB, d->pdb->id, s->page, s->gen,
		   (uint64_t)w->run->run_id, p->seed, full);
	worker_stamp_ready(w);
}

/* Picks a page of [lo, lo + n) with no I/O in flight: random tries, then a scan. */
static bool pick_page(struct worker *w, struct wdb *d, uint64_t *page)
{
	uint64_t n = d->n, p;

	for (int i = 0; i < 16; i++) {
		p = rng_next(&w->rng) % n;
		if (!(d->busy[p] & (BUSY_IO | BUSY_BAD))) {
			*page = d->lo + p;
			return true;
		}
	}
	p = rng_next(&w->rng) % n;
	for (uint64_t i = 0; i < n; i++, p = (p + 1) % n)
		if (!(d->busy[p] & (BUSY_IO | BUSY_BAD))) {
			*page = d->lo + p;
			return true;
		}
	return false;
}

static void slot_request(struct slot *s, uint8_t op, uint8_t cls, uint16_t flags, uint32_t file,
			 uint64_t offset, uint32_t len, uint64_t now)
{
	s->req.op = op;
	s->req.cls = cls;
	s->req.flags = flags;
	s->req.file = file;
	s->req.offset = offset;
	s->req.len = len;
	s->req.buf = s->buf;
	s->off0 = offset;
	s->len0 = len;
	s->t_issue = now;
	s->keep_issue = false;
}

/* A page I/O of a stream or the flusher on page s->page. */
static void page_io_prepare(struct worker *w, struct slot *s, bool read, uint64_t now)
{
	struct wdb *d = &w->dbs[s->db];
	const struct profile *p = w->run->prof;

	d->busy[s->page - d->lo] |= BUSY_IO;
	slot_request(s, read ? ENGINE_OP_READ : ENGINE_OP_WRITE, read ? IO_DB_READ : IO_DB_WRITE, 0,
		     2 * s->db, d->pdb->base + s->page * p->page_size, p->page_size, now);
	if (!read)
		slot_stamp_write(w, s, d);
}

/* ---- the log ---- */

/* Appends a commit record naming pages[0..n) to d's log buffer. */
static void log_append(struct worker *w, struct wdb *d, const uint64_t *pages, unsigned n)
{
	d->lsn += (uint64_t)n * w->run->prof->log_record_size;
	for (unsigned i = 0; i < n && d->rlen < d->rcap; i++)
		d->recs[(d->rhead + d->rlen++) % d->rcap] = pages[i];
}

/* Writes the record table of one log block. */
static void log_block_records(struct wdb *d, char *blk, uint32_t size, unsigned take)
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
static bool log_next_segment(struct worker *w, struct wdb *d)
{
	const struct profile *p = w->run->prof;
	unsigned next;

	if (d->seg_off < seg_size(w))
		return true;
	next = (d->seg + 1) % p->log_segments;
	if (d->seg_owed[next]) {
		d->log_blocked = true;
		return false;
	}
	d->log_blocked = false;
	d->seg = next;
	d->seg_off = 0;
	return true;
}

/* Prepares the log write of what is buffered; false when there is none or
 * the log must wait for replication. */
bool log_prepare(struct worker *w, struct wdb *d, uint64_t now)
{
	struct slot *s = &w->slots[d->log_slot];
	const struct profile *p = w->run->prof;
	uint64_t pending = d->lsn - d->issued, len, room;
	bool full = !(w->ops->flags & ENGINE_F_NO_FILES);
	unsigned blocks, rec_take;

	if (d->log_busy || !pending || !log_next_segment(w, d))
		return false;
	room = seg_size(w) - d->seg_off;
	len = (pending + d->log_align - 1) / d->log_align * d->log_align;
	if (len > room)
		len = room;
	if (len > s->buf_len)
		len = s->buf_len;
	blocks = (unsigned)(len / d->log_align);
	/* records this write carries: all buffered when it takes everything */
	rec_take = len >= pending ? d->rlen
				  : (unsigned)(((uint64_t)d->rlen * len + pending - 1) / pending);
	for (unsigned b = 0; b < blocks; b++) {
		char *blk = (char *)s->buf + (uint64_t)b * d->log_align;
		uint64_t fileoff =
			(uint64_t)d->seg * seg_size(w) + d->seg_off + (uint64_t)b * d->log_align;
		unsigned take = (rec_take + blocks - 1 - b) / (blocks - b);

		page_stamp(blk, d->log_align, PAGE_KIND_LOG, d->pdb->id, fileoff / d->log_align,
			   ++d->log_seq, (uint64_t)w->run->run_id, p->seed, full);
		if (full) {
			log_block_records(d, blk, d->log_align, take);
		} else {
			take = take < d->rlen ? take : d->rlen;
			d->rlen -= take;
			d->rhead = (d->rhead + take) % d->rcap;
		}
		rec_take -= take < rec_take ? take : rec_take;
	}
	slot_request(s, ENGINE_OP_WRITE, IO_LOG_WRITE, ENGINE_RF_DSYNC, 2 * s->db + 1,
		     d->pdb->log_base + (uint64_t)d->seg * seg_size(w) + d->seg_off, (uint32_t)len,
		     now);
	d->issued = len >= pending ? d->lsn : d->issued + len;
	d->inflight_end = d->issued;
	d->seg_off += len;
	if (d->seg_off >= seg_size(w))
		d->segs_closed++;
	if (d->seg_off >= seg_size(w) && p->copies > 1) {
		/* the segment is closed: replication reads it copies - 1 times */
		d->seg_owed[d->seg] = (uint8_t)(p->copies - 1);
		d->repl_q[(d->qhead + d->qlen++) % p->log_segments] = d->seg;
	}
	d->log_busy = true;
	return true;
}

/* ---- replication ---- */

bool repl_prepare(struct worker *w, struct wdb *d, uint64_t now)
{
	struct slot *s = &w->slots[d->repl_slot];
	unsigned seg;
	uint64_t len;

	if (d->phase == PHASE_REPLAY) {
		/* recovery: the next piece of the segment being replayed, once the
		 * pages of the last one are applied */
		if (d->repl_busy || d->rp_len || d->rp_active || d->rp_off >= seg_size(w))
			return false;
		seg = d->rp_seg;
		if (!d->rp_off)
			d->rp_t0 = now;
		len = seg_size(w) - d->rp_off;
		if (len > s->buf_len)
			len = s->buf_len;
		s->page = seg;
		slot_request(s, ENGINE_OP_READ, IO_LOG_READ, 0, 2 * s->db + 1,
			     d->pdb->log_base + (uint64_t)seg * seg_size(w) + d->rp_off,
			     (uint32_t)len, now);
		d->repl_busy = true;
		return true;
	}
	if (d->repl_busy || !d->qlen || d->phase > PHASE_DRAIN)
		return false;
	seg = d->repl_q[d->qhead];
	len = seg_size(w) - d->repl_off;
	if (len > s->buf_len)
		len = s->buf_len;
	s->page = seg;
	slot_request(s, ENGINE_OP_READ, IO_LOG_READ, 0, 2 * s->db + 1,
		     d->pdb->log_base + (uint64_t)seg * seg_size(w) + d->repl_off, (uint32_t)len,
		     now);
	d->repl_busy = true;
	return true;
}

/* Checks the log blocks a replication read returned: header and checksum. */
void repl_verify(struct worker *w, struct slot *s, struct wdb *d, struct snap *sn)
{
	const uint32_t bs = d->log_align;

	if (w->ops->flags & ENGINE_F_NO_FILES || !w->run->prof->verify)
		return;
	for (uint64_t o = 0; o + bs <= s->len0; o += bs) {
		const char *blk = (const char *)s->buf + o;
		struct page_header h;
		uint64_t block = (s->off0 - d->pdb->log_base + o) / bs;
		uint32_t crc;
		const char *what = NULL;

		memcpy(&h, blk, sizeof(h));
		if (h.magic != PAGE_MAGIC || h.kind != PAGE_KIND_LOG)
			what = "not a log block";
		else if (h.db_id != d->pdb->id || h.page_no != block)
			what = "misdirected";
		else if (w->run->prof->verify) {
			crc = h.crc;
			page_reseal((char *)s->buf + o, bs);
			memcpy(&h, blk, sizeof(h));
			if (crc != h.crc)
				what = "bad checksum";
		}
		if (!what)
			continue;
		sn->integrity[s->db]++;
		snap_msg(sn, "%s log block %llu (%s offset %llu): %s", d->pdb->name,
			 (unsigned long long)block, d->pdb->log_file,
			 (unsigned long long)(s->off0 + o), what);
		return; /* one message per read */
	}
}

/* recovery: the pages the records of a replayed piece name, to apply */
static void replay_parse(struct worker *w, struct wdb *d, struct slot *s)
{
	const uint32_t bs = d->log_align;

	for (uint64_t o = 0; o + bs <= s->len0; o += bs) {
		const char *blk = (const char *)s->buf + o;
		struct log_records lr;

		memcpy(&lr, blk + PAGE_HEADER_SIZE, sizeof(lr));
		if (lr.magic != LOG_RECORDS_MAGIC || lr.count > log_records_capacity(bs))
			continue; /* no records (or reported by the check) */
		for (uint32_t i = 0; i < lr.count && d->rp_len < d->rp_cap; i++) {
			uint64_t pg;

			memcpy(&pg, blk + PAGE_HEADER_SIZE + sizeof(lr) + 8 * i, 8);
			if (pg < d->lo || pg >= d->lo + d->n)
				continue;
			d->rp_pages[(d->rp_head + d->rp_len++) % d->rp_cap] = pg;
		}
	}
	(void)w;
}

/* recovery: the segment's pieces read and its pages applied? */
void replay_check_segment(struct worker *w, struct wdb *d, uint64_t now)
{
	if (d->phase != PHASE_REPLAY || d->repl_busy || d->rp_len || d->rp_active ||
	    d->rp_off < seg_size(w))
		return;
	d->rp_ns[d->rp_seg] = now - d->rp_t0;
	d->rp_seg++;
	d->rp_off = 0;
	if (d->rp_seg >= w->run->prof->recovery_segments)
		d->phase = PHASE_DONE;
}

void repl_done(struct worker *w, struct wdb *d, struct slot *s)
{
	const struct profile *p = w->run->prof;
	unsigned seg = (unsigned)s->page;

	d->repl_busy = false;
	if (d->phase == PHASE_REPLAY) {
		replay_parse(w, d, s);
		d->rp_off += s->len0;
		replay_check_segment(w, d, s->req.t_done_ns);
		return;
	}
	d->repl_off += s->len0;
	if (d->repl_off < seg_size(w))
		return;
	d->repl_off = 0;
	if (d->seg_owed[seg])
		d->seg_owed[seg]--;
	if (!d->seg_owed[seg]) {
		d->qhead = (d->qhead + 1) % p->log_segments;
		d->qlen--;
	}
}

/* ---- maintenance and backup scans ---- */

bool scan_prepare(struct worker *w, struct wdb *d, uint64_t now)
{
	struct slot *s = &w->slots[d->scan_slot];
	const struct profile *p = w->run->prof;
	uint64_t end = d->lo + d->n;
	unsigned np;

	if (d->scan_busy || d->scan_done)
		return false;
	if (!backup_test(w->run) && now < d->scan_due) {
		if (d->scan_due < w->next_due)
			w->next_due = d->scan_due;
		return false;
	}
	if (d->scan_next >= end) {
		if (backup_test(w->run)) {
			d->scan_done = true;
			return false;
		}
		d->scan_next = d->lo; /* maintenance goes round again */
	}
	np = s->buf_len / p->page_size;
	if (d->scan_next + np > end)
		np = (unsigned)(end - d->scan_next);
	s->page = d->scan_next;
	s->npages = np;
	s->held = 0;
	for (unsigned i = 0; i < np; i++) {
		uint8_t *b = &d->busy[s->page + i - d->lo];

		if (!(*b & BUSY_IO)) {
			*b |= BUSY_IO;
			s->held |= 1ULL << i;
		}
	}
	if (!d->scan_t0)
		d->scan_t0 = now;
	slot_request(s, ENGINE_OP_READ, backup_test(w->run) ? IO_BACKUP_READ : IO_BDM_READ, 0,
		     2 * s->db, d->pdb->base + s->page * p->page_size, np * p->page_size, now);
	d->scan_next += np;
	if (!backup_test(w->run)) {
		d->scan_due += d->scan_gap;
		/* a slow device is not owed a burst afterwards: at most 1 s behind */
		if (d->scan_due + NSEC_PER_SEC < now)
			d->scan_due = now - NSEC_PER_SEC;
	}
	d->scan_busy = true;
	return true;
}

/* ---- the flusher ---- */

bool flush_prepare(struct worker *w, struct wdb *d, struct slot *s, uint64_t now)
{
	struct dirty_page *dp;

	/* a page found bad since it was dirtied is not written: dropped */
	while (d->dlen && (d->busy[d->dirty[d->dhead].page - d->lo] & BUSY_BAD)) {
		d->busy[d->dirty[d->dhead].page - d->lo] &= (uint8_t)~BUSY_DIRTY;
		d->dhead = (d->dhead + 1) % d->dcap;
		d->dlen--;
	}
	if (!d->dlen)
		return false;
	dp = &d->dirty[d->dhead];
	/* write-ahead: the page's log record first; one I/O per page */
	if (dp->lsn > d->durable || (d->busy[dp->page - d->lo] & BUSY_IO))
		return false;
	s->page = dp->page;
	d->busy[dp->page - d->lo] &= (uint8_t)~BUSY_DIRTY;
	d->dhead = (d->dhead + 1) % d->dcap;
	d->dlen--;
	page_io_prepare(w, s, false, now);
	return true;
}

/* ---- streams ---- */

/* Commits a stream's transaction: dirty its pages, append its record. false
 * when it must wait (no room in the dirty list, or a non-lazy commit). */
bool stream_commit(struct worker *w, struct slot *s)
{
	struct wdb *d = &w->dbs[s->db];
	const struct profile *p = w->run->prof;
	unsigned fresh = 0;

	if (s->txn != TXN_SEEK && s->wait != WAIT_LOG) {
		for (unsigned i = 0; i < s->ntouched; i++)
			fresh += !(d->busy[s->touched[i] - d->lo] & BUSY_DIRTY);
		if (d->dlen + fresh > d->dcap) {
			s->wait = WAIT_DIRTY;
			return false;
		}
		log_append(w, d, s->touched, s->ntouched);
		for (unsigned i = 0; i < s->ntouched; i++) {
			uint8_t *b = &d->busy[s->touched[i] - d->lo];

			if (*b & (BUSY_DIRTY | BUSY_BAD))
				continue;
			*b |= BUSY_DIRTY;
			d->dirty[(d->dhead + d->dlen++) % d->dcap] =
				(struct dirty_page){s->touched[i], d->lsn};
		}
		s->commit_lsn = d->lsn;
		if (rng_unit(&w->rng) * 100.0 >= p->lazy_commit_pct && d->durable < d->lsn) {
			s->wait = WAIT_LOG;
			return false;
		}
	}
	if (s->wait == WAIT_LOG && d->durable < s->commit_lsn)
		return false;
	s->wait = WAIT_NONE;
	s->ntouched = 0;
	return true;
}

/* Starts a stream's next transaction; false when open loop has none due. */
static bool stream_begin(struct worker *w, struct slot *s, uint64_t now)
{
	struct run *r = w->run;
	const struct profile *p = r->prof;
	double u = rng_unit(&w->rng);

	if (w->dbs[s->db].phase != PHASE_RUN)
		return false;
	if (p->arrival == PROFILE_ARRIVAL_RATE) {
		if (w->next_arrival > now) {
			if (w->next_arrival < w->next_due)
				w->next_due = w->next_arrival;
			s->wait = WAIT_ARRIVAL;
			return false;
		}
		s->t_start = w->next_arrival;
		/* Poisson arrivals: exponential gaps */
		w->next_arrival +=
			(uint64_t)(-log(1.0 - rng_unit(&w->rng)) * w->arrival_gap_ns) + 1;
	}
	s->wait = WAIT_NONE;
	s->txn = u < r->mix[0]	 ? TXN_INSERT
		 : u < r->mix[1] ? TXN_DELETE
		 : u < r->mix[2] ? TXN_REPLACE
				 : TXN_SEEK;
	s->left =
		(uint16_t)draw_pages(&w->rng, s->txn == TXN_SEEK ? p->seek_pages : p->update_pages);
	s->ntouched = 0;
	return true;
}

/* The next I/O of a stream; false when it cannot issue now (stays idle). */
bool stream_prepare(struct worker *w, struct slot *s, uint64_t now)
{
	struct wdb *d = &w->dbs[s->db];
	const struct profile *p = w->run->prof;
	bool first;

	if (fixed_model(w->run)) {
		bool read = rng_unit(&w->rng) * 100.0 < p->read_pct;

		if (p->pattern == PROFILE_PATTERN_SEQUENTIAL) {
			uint64_t i;

			for (i = 0; i < d->n; i++) {
				if (s->cursor >= d->lo + d->n)
					s->cursor = d->lo;
				if (!(d->busy[s->cursor - d->lo] & (BUSY_IO | BUSY_BAD)))
					break;
				s->cursor++;
			}
			if (i == d->n)
				return false;
			s->page = s->cursor++;
		} else if (!pick_page(w, d, &s->page)) {
			return false;
		}
		page_io_prepare(w, s, read, now);
		return true;
	}
	if (d->phase == PHASE_REPLAY) {
		/* recovery: read a page a record names, then write it */
		if (s->left) {
			page_io_prepare(w, s, false, now);
			s->left = 0;
			return true;
		}
		while (d->rp_len && (d->busy[d->rp_pages[d->rp_head] - d->lo] & BUSY_BAD)) {
			/* found bad: not replayed over */
			d->rp_head = (d->rp_head + 1) % d->rp_cap;
			d->rp_len--;
		}
		if (!d->rp_len || (d->busy[d->rp_pages[d->rp_head] - d->lo] & BUSY_IO))
			return false;
		s->page = d->rp_pages[d->rp_head];
		d->rp_head = (d->rp_head + 1) % d->rp_cap;
		d->rp_len--;
		d->rp_active++;
		s->txn = UINT8_MAX; /* replaying */
		page_io_prepare(w, s, true, now);
		return true;
	}
	if (!s->left && !stream_begin(w, s, now))
		return false;
	if (!pick_page(w, d, &s->page))
		return false;
	first = s->ntouched == 0;
	page_io_prepare(w, s, true, now);
	if (first && s->t_start && p->arrival == PROFILE_ARRIVAL_RATE) {
		/* open loop: the first I/O counts from the intended start */
		s->t_issue = s->t_start;
		s->keep_issue = true;
	}
	return true;
}

/* Streams of d waiting for the log or the flusher that may go on. */
void wake_waiters(struct worker *w, struct wdb *d)
{
	for (unsigned i = 0; i < d->nwait;) {
		struct slot *s = &w->slots[d->waiters[i]];

		if (stream_commit(w, s)) {
			w->idle[w->nidle++] = d->waiters[i];
			d->waiters[i] = d->waiters[--d->nwait];
		} else {
			i++;
		}
	}
}

/* recovery: a database that has written its segments drains its flusher and
 * log, then replays. */
void recovery_step(struct worker *w, struct wdb *d, unsigned db)
{
	const struct profile *p = w->run->prof;

	if (d->phase == PHASE_RUN && d->segs_closed >= p->recovery_segments)
		d->phase = PHASE_DRAIN;
	if (d->phase != PHASE_DRAIN || d->dlen || d->nfree < p->flush_depth || d->log_busy ||
	    d->lsn != d->issued || d->repl_busy || d->qlen || d->nwait)
		return;
	for (unsigned i = 0; i < w->nslots; i++) {
		const struct slot *s = &w->slots[i];

		if (s->kind == SLOT_STREAM && s->db == db && (s->left || s->inflight))
			return;
	}
	d->phase = PHASE_REPLAY;
	d->rp_seg = 0;
	d->rp_off = 0;
}
