/* SPDX-License-Identifier: MIT */
/*
 * worker.c - the worker loop: issuing what the generators prepare,
 * submitting, reaping, accounting each completion into its interval's
 * snapshot, page checks (verify after re-issue), hung I/O, and publishing
 * the snapshots to the coordinator. Workers never touch SQLite.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diskproof/page.h"

#include "run_internal.h"

void worker_snap_reset(struct snap *s, unsigned ndb)
{
	stats_class32_reset_all(s->cs, (size_t)ndb * IO_CLASS_COUNT, &s->arena);
	memset(s->integrity, 0, ndb * sizeof(*s->integrity));
	memset(s->stream_ns, 0, ndb * sizeof(*s->stream_ns));
	memset(s->stalls, 0, ndb * sizeof(*s->stalls));
	memset(s->txn, 0, ndb * sizeof(*s->txn));
	if (s->resp)
		stats_class32_reset_all(s->resp, ndb, &s->resp_arena);
	s->backlog = (struct wl_backlog_iv){0};
	s->hung = 0;
	s->nmsgs = 0;
	s->dropped_msgs = 0;
}

/* The stream time each database had in interval k (up to its end, or now
 * when that is sooner): what its stream time grew by since the last publish
 * (never less than nothing: a unit begun after the end is counted in the
 * next interval). */
static void worker_stream_time(struct worker *w, unsigned k)
{
	struct snap *sn = &w->snaps[k % RUN_SLOTS];
	uint64_t t = grid_end(&w->run->grid, k), now = engine_clock_now(&w->run->clock);

	if (now < t)
		t = now;
	for (unsigned i = 0; i < w->ndb; i++) {
		uint64_t ns = wl_db_stream_ns(&w->wl, &w->dbs[i], t);

		if (ns <= w->stream_prev[i])
			continue;
		sn->stream_ns[i] = ns - w->stream_prev[i];
		w->stream_prev[i] = ns;
	}
}

/* Publishes the current interval and moves to the next slot. */
static void worker_publish(struct worker *w)
{
	unsigned k = w->cur;

	worker_stream_time(w, k);
	if (open_loop(w->run)) {
		/* the tool's own queue, counted up to the interval's end (or now) */
		uint64_t t = grid_end(&w->run->grid, k), now = engine_clock_now(&w->run->clock);

		wl_backlog_take(&w->wl, now < t ? now : t, &w->snaps[k % RUN_SLOTS].backlog);
	}

	if (w->jcopy && (k + 1) % RUN_JOURNAL_EVERY == 0) {
		/* for the coordinator's periodic journal: every page's generation
		 * as acknowledged so far (a lower bound by the time it is read) */
		uint64_t off = 0;

		for (unsigned i = 0; i < w->ndb; i++) {
			memcpy(w->jcopy + off, w->dbs[i].expect, w->dbs[i].n * sizeof(uint32_t));
			off += w->dbs[i].n;
		}
	}
	for (unsigned i = 0; i < w->ndb; i++) {
		/* the stalls the streams counted in this interval */
		w->snaps[k % RUN_SLOTS].stalls[i] = w->dbs[i].txn.stalls;
		w->dbs[i].txn.stalls = 0;
		/* and the transactions ended, commits made durable */
		w->snaps[k % RUN_SLOTS].txn[i] =
			(struct txn_count){w->dbs[i].txn.ended, w->dbs[i].log.commits};
		w->dbs[i].txn.ended = w->dbs[i].log.commits = 0;
	}
	atomic_store_explicit(&w->published, k + 1, memory_order_release);
	w->cur = k + 1;
	if (w->on_publish)
		w->on_publish(w->on_publish_arg, k);
	/* the next slot must have been merged already; waiting here (the
	 * results file is slow) delays reaping, so it is reported */
	uint64_t waited = 0;
	while (atomic_load_explicit(&w->consumed, memory_order_acquire) + RUN_SLOTS <= w->cur) {
		usleep(1000);
		waited++;
	}
	worker_snap_reset(&w->snaps[w->cur % RUN_SLOTS], w->ndb);
	if (waited)
		worker_snap_msg(
			&w->snaps[w->cur % RUN_SLOTS],
			"worker %u waited %llu ms for the coordinator (slow results file?); "
			"completions meanwhile were stamped late",
			w->index, (unsigned long long)waited);
}

static struct snap *worker_snap_at(struct worker *w, uint64_t t)
{
	unsigned last = atomic_load_explicit(&w->run->ctl.last, memory_order_acquire);
	unsigned k = grid_index(&w->run->grid, t, last);

	while (w->cur < k)
		worker_publish(w);
	return &w->snaps[w->cur % RUN_SLOTS];
}

void worker_snap_msg(struct snap *s, const char *fmt, ...)
{
	va_list ap;

	if (atomic_fetch_add_explicit(s->kept, 1, memory_order_relaxed) >= RUN_EVENTS_MAX) {
		s->dropped_msgs++;
		return;
	}
	if (s->nmsgs == s->msgs_cap) {
		unsigned cap = s->msgs_cap ? 2 * s->msgs_cap : 16;
		char(*m)[RUN_MSG_LEN] = realloc(s->msgs, cap * sizeof(*m));

		if (!m) {
			s->dropped_msgs++;
			return;
		}
		s->msgs = m;
		s->msgs_cap = cap;
	}
	va_start(ap, fmt);
	vsnprintf(s->msgs[s->nmsgs++], sizeof(s->msgs[0]), fmt, ap);
	va_end(ap);
}

/* wl_turn's queue: a prepared slot through the driver; false when the
 * engine is full (the driver keeps it and queues it again first). From here
 * until its completion reaches worker_complete the slot is in flight, kept
 * or not. */
static bool worker_queue_slot(void *arg, struct wl_slot *s, uint64_t now)
{
	struct worker *w = arg;

	s->req.t_submit_ns = now; /* the commit's time once the engine has it */
	return engine_drv_queue(&w->drv, &s->req) != ENGINE_Q_BUSY;
}

static void worker_issue(struct worker *w, uint64_t now)
{
	/* retries first: they are older */
	if (engine_drv_resubmit(&w->drv) == ENGINE_Q_BUSY)
		return;
	if (w->stopping)
		return;
	wl_turn(&w->wl, now, worker_queue_slot, w);
}

/* Checks one page read at buf against what this run expects of it. */
static void worker_verify(struct worker *w, struct wl_db *d, unsigned db, uint64_t page,
			  const void *buf, uint64_t off, struct snap *sn)
{
	bool full = !(w->ops->flags & ENGINE_F_NO_FILES);
	uint32_t *e = &d->expect[page - d->lo];
	uint32_t expect = *e & ~WL_EXPECT_LOWER;
	bool lower = *e & WL_EXPECT_LOWER;
	uint64_t found;
	enum page_status st;

	if (d->busy[page - d->lo] & WL_BUSY_BAD)
		return; /* reported once; left as it was found */
	if (wl_expect_failed(*e))
		return; /* its last write failed: anything may be there until the
			 * next write of it succeeds */
	if (*e == WL_EXPECT_BAD) {
		/* reported already; learn the page again if it reads right */
		st = page_verify(buf, w->run->prof->page_size, d->pdb->id, page, 0, full, &found);
		if (st == PAGE_OK || st == PAGE_NEWER)
			*e = (uint32_t)found;
		return;
	}
	st = page_verify(buf, w->run->prof->page_size, d->pdb->id, page, expect, full, &found);
	if (st == PAGE_OK) {
		*e = expect;
		return;
	}
	if ((expect == 0 || lower) && st == PAGE_NEWER) {
		/* unknown, or known only as a lower bound (a journal written
		 * before an unclean stop): what is there is right; learn it */
		*e = (uint32_t)found;
		return;
	}
	if (expect == 0 && st == PAGE_LOST_WRITE) {
		*e = (uint32_t)found;
		return;
	}
	sn->integrity[db]++;
	worker_snap_msg(
		sn, "%s page %llu (%s offset %llu): %s (expected generation %u, found %llu)",
		d->pdb->name, (unsigned long long)page, d->pdb->path, (unsigned long long)off,
		page_status_name(st), expect, (unsigned long long)found);
	/* report each bad page once, and keep it as found: this run neither
	 * writes it again nor reads it for a transaction, and its journal entry
	 * stays the generation expected, so verify and the next run find it too */
	d->busy[page - d->lo] |= WL_BUSY_BAD;
}

static const char *slot_file(const struct wl_slot *s, const struct wl_db *d)
{
	return wl_slot_on_log(s) ? d->pdb->log_file : d->pdb->path;
}

/*
 * Verify after re-issue. Checking a 32 KiB page read costs a few
 * microseconds (more when the page comes from memory, as after a DMA); done
 * as each completion is reaped, a batch of completions held back every
 * stream's next I/O by the sum of them, which the device saw as idle time
 * (fewer I/Os per second than fio at the same depth). Instead the page read
 * is set aside with its buffer, the stream gets a spare buffer and is issued
 * again, and the pages are checked after that commit, in the same step. The
 * page stays WL_BUSY_IO until checked, so nothing reads or writes it meanwhile
 * and its expected generation cannot move.
 */
static void worker_defer_verify(struct worker *w, struct wl_slot *s, uint64_t t_done)
{
	struct pending_verify *v = &w->pv[w->npv++];

	v->buf = s->buf;
	v->buf_index = s->req.buf_index;
	v->db = s->db;
	v->page = s->page;
	v->off = s->off0;
	v->t_done = t_done;
	w->nspare--;
	s->buf = w->spare[w->nspare];
	s->req.buf_index = w->spare_index[w->nspare];
	s->req.buf = s->buf;
}

/* Checks the pages set aside, oldest first; unless all, stops as soon as a
 * completion is waiting (the engine says so), to reap and re-issue it first:
 * the rest wait for the next step. */
static void worker_verify_pending(struct worker *w, bool all)
{
	unsigned i = 0;

	if (!w->npv)
		return;
	while (i < w->npv) {
		struct pending_verify *v = &w->pv[i++];
		struct wl_db *d = &w->dbs[v->db];

		/* counted in the current interval (the one it completed in, or
		 * the next when that has been handed over meanwhile) */
		worker_verify(w, d, v->db, v->page, v->buf, v->off, worker_snap_at(w, v->t_done));
		d->busy[v->page - d->lo] &= (uint8_t)~WL_BUSY_IO;
		w->spare[w->nspare] = v->buf;
		w->spare_index[w->nspare++] = v->buf_index;
		if (worker_stamp_ready(w) && !all)
			break;
	}
	memmove(w->pv, w->pv + i, (w->npv - i) * sizeof(*w->pv));
	w->npv -= i;
}

/* Checks the log blocks a replication read returned: header and checksum;
 * one message per read. */
static void worker_repl_verify(struct worker *w, struct wl_slot *s, struct wl_db *d,
			       struct snap *sn)
{
	uint64_t block, off;
	const char *what = wl_repl_check(&w->wl, d, s, &block, &off);

	if (!what)
		return;
	sn->integrity[s->db]++;
	worker_snap_msg(sn, "%s log block %llu (%s offset %llu): %s", d->pdb->name,
			(unsigned long long)block, d->pdb->log_file, (unsigned long long)off, what);
}

/* wl_ctx.stamped: a page was stamped; time what completed meanwhile */
void worker_stamped(void *arg)
{
	worker_stamp_ready(arg);
}

/* A completion's checks (wl_check's arg): the worker, the snapshot the
 * completion is counted in, and when it completed. */
struct worker_check {
	struct worker *w;
	struct snap *sn;
	uint64_t t_done;
};

/* wl_check.page: one page a read returned, checked at once */
static void worker_check_page(void *arg, struct wl_db *d, unsigned db, uint64_t page,
			      const void *buf, uint64_t off)
{
	struct worker_check *k = arg;

	worker_verify(k->w, d, db, page, buf, off, k->sn);
	worker_stamp_ready(k->w);
}

/* wl_check.log: a replication read's log blocks */
static void worker_check_log(void *arg, struct wl_db *d, struct wl_slot *s)
{
	struct worker_check *k = arg;

	worker_repl_verify(k->w, s, d, k->sn);
}

/* wl_check.set_aside: a stream's page read checked after the next commit,
 * while a spare buffer is left */
static bool worker_check_later(void *arg, struct wl_slot *s)
{
	struct worker_check *k = arg;

	if (!k->w->nspare)
		return false;
	worker_defer_verify(k->w, s, k->t_done);
	return true;
}

/* What a request did, for a message: a log write's flush (log_sync =
 * fdatasync) named with the write whose offset and bytes it carries. */
static const char *op_name(const struct engine_req *r)
{
	return r->op == ENGINE_OP_READ	  ? "read"
	       : r->op == ENGINE_OP_FSYNC ? "flush after a write"
					  : "write";
}

/* Counts a completion into snapshot sn: its latency, or its error with a
 * message. true when it moved every byte. */
static bool worker_account(struct worker *w, struct wl_slot *s, struct engine_req *req,
			   struct snap *sn)
{
	const struct wl_db *d = &w->dbs[s->db];
	struct class_stats32 *cs = &sn->cs[s->db * IO_CLASS_COUNT + req->cls];
	int64_t res = req->result;

	if (res >= 0 && (uint64_t)res == req->len) {
		if (class_stats32_add(cs,
				      req->t_done_ns > s->t_issue ? req->t_done_ns - s->t_issue : 0,
				      s->len0))
			worker_snap_msg(sn, "out of memory: an I/O of %s was not counted",
					slot_file(s, d));
		/* open loop: a transaction's page read's response time too, from
		 * its intended start (one more add, only when arrival = rate) */
		if (s->has_intended && sn->resp && req->cls == IO_DB_READ &&
		    class_stats32_add(
			    &sn->resp[s->db],
			    req->t_done_ns > s->t_intended ? req->t_done_ns - s->t_intended : 0,
			    s->len0))
			worker_snap_msg(sn, "out of memory: a response time of %s was not counted",
					slot_file(s, d));
		return true;
	}
	cs->errors++;
	atomic_fetch_add_explicit(&w->run->ctl.errors_seen, 1, memory_order_relaxed);
	if (req->op == ENGINE_OP_WRITE && (res == -ENOSPC || res == -EDQUOT))
		/* pairs with the load in coord_check_errors() */
		atomic_store_explicit(&w->run->ctl.nospace, true, memory_order_release);
	worker_snap_msg(sn, "%s: %s of %u bytes at offset %llu failed: %s", slot_file(s, d),
			op_name(req), s->len0, (unsigned long long)s->off0,
			res < 0 ? strerror((int)-res) : "short transfer");
	return false;
}

/* A write-through page write completed: its acknowledgement kept for the
 * witness (durability.c), sent after this turn. */
static void worker_check_durable(void *arg, const struct wl_db *d, unsigned db, uint64_t page,
				 uint64_t gen, uint64_t t_done)
{
	struct worker_check *k = arg;

	run_durability_ack(k->w, d, db, page, gen, t_done);
}

/* What the driver hands back: a request done (its remainders resubmitted,
 * EAGAIN retried), result the bytes moved in all or -errno. Accounted here,
 * then the generators' bookkeeping and the page checks (wl_complete). */
static void worker_complete(struct worker *w, struct engine_req *req)
{
	struct wl_slot *s = req->owner;
	struct worker_check k = {w, NULL, req->t_done_ns};
	bool ok;

	/* the driver stamped the commit that handed it to the kernel (or its
	 * last part, after EAGAIN or a short transfer), not when it was
	 * prepared: stamping a 32 KiB page is the tool's time, not the
	 * device's. This service time is what the class figures hold, open
	 * loop too; an open-loop transaction's wait for a stream is in its
	 * response time (t_intended) alone. */
	k.sn = worker_snap_at(w, req->t_done_ns);
	if (s->pair_first && req->result >= 0 && (uint64_t)req->result == req->len) {
		/* the first of a pair (a log write before its flush): counted
		 * with the second, from its own submission */
		s->t_pair = req->t_submit_ns;
		s->pair_open = true;
		ok = true;
	} else {
		s->t_issue = s->pair_open ? s->t_pair : req->t_submit_ns;
		s->pair_open = false;
		ok = worker_account(w, s, req, k.sn);
		s->hung_reported = false; /* a pair's: once for both */
	}
	/* restore the request as issued */
	req->buf = s->buf;
	wl_complete(&w->wl, s, ok,
		    &(const struct wl_check){worker_check_page, worker_check_log,
					     worker_check_later, &k,
					     w->run->dur.on ? worker_check_durable : NULL});
}

/* The driver's callback (driver.h): every completion it is done with. */
void worker_done(void *arg, struct engine_req *req)
{
	worker_complete(arg, req);
}

/*
 * Reports requests pending for at least min_age as hung, once each: an
 * I/O error of its database and class, with a message naming file, offset
 * and age. A hung request that completes later is also counted normally.
 */
static void worker_report_hung(struct worker *w, uint64_t now, uint64_t min_age)
{
	struct snap *sn = &w->snaps[w->cur % RUN_SLOTS];

	for (unsigned i = 0; i < w->nslots; i++) {
		struct wl_slot *s = &w->slots[i];
		struct wl_db *d = &w->dbs[s->db];

		/* from when the device got it (an open-loop start may be older;
		 * one queued again after now was read has age 0) */
		uint64_t age = now > s->req.t_submit_ns ? now - s->req.t_submit_ns : 0;

		if (!s->inflight || s->hung_reported || age < min_age)
			continue;
		s->hung_reported = true;
		sn->hung++;
		atomic_fetch_add_explicit(&w->run->ctl.errors_seen, 1, memory_order_relaxed);
		sn->cs[s->db * IO_CLASS_COUNT + s->req.cls].errors++;
		worker_snap_msg(sn,
				"%s: %s of %u bytes at offset %llu: no completion after %.1f s "
				"(hung I/O)",
				slot_file(s, d), op_name(&s->req), s->len0,
				(unsigned long long)s->off0, (double)age / 1e9);
	}
}

/* backup: every database of this worker read to its end; recovery: every
 * database replayed */
static bool worker_all_done(const struct worker *w)
{
	for (unsigned i = 0; i < w->ndb; i++) {
		const struct wl_db *d = &w->dbs[i];

		if (!wl_db_finished(&w->wl, d))
			return false;
	}
	return true;
}

/* The last worker to finish its backup ends the run at this interval. */
static void worker_mark_done(struct worker *w, uint64_t now)
{
	struct run *r = w->run;
	unsigned n;

	w->done = true;
	n = atomic_fetch_add(&r->ctl.workers_done, 1) + 1;
	if (n == r->nworkers && !atomic_load(&r->ctl.stop)) {
		unsigned last = atomic_load(&r->ctl.last);
		unsigned k = grid_index(&r->grid, now, last);

		r->ctl.completed = true;
		r->ctl.time = now;
		atomic_store_explicit(&r->ctl.last, k, memory_order_release);
	}
}

/* Stops issuing at the end of the test (or a stop request, or, for backup
 * and recovery, when everything is done). */
static void worker_check_stop(struct worker *w, uint64_t now)
{
	struct run *r = w->run;

	if (!w->stopping && (atomic_load_explicit(&r->ctl.stop, memory_order_acquire) ||
			     now >= r->grid.t0 + r->grid.warmup + r->grid.duration ||
			     (r->dur.cut_ns && now >= r->dur.cut_ns))) {
		w->stopping = true;
		w->stop_at = now;
		w->drv.batch = 0; /* what is held back goes now */
	}
	if (!w->stopping && (backup_test(r) || recovery_test(r)) && worker_all_done(w)) {
		w->stopping = true;
		w->stop_at = now;
		worker_mark_done(w, now);
	}
}

/* An engine error ends this worker: the driver's "ENGINE engine: submit
 * failed: WHY" or "... reap failed: WHY". */
static void worker_engine_failed(struct worker *w, int ret, struct strbuf *err)
{
	w->fatal = ret;
	snprintf(w->fatal_msg, sizeof(w->fatal_msg), "%s", err->buf);
	strbuf_release(err);
}

/* How long this turn's reap may wait for the first completion. */
static uint64_t worker_wait(struct worker *w, uint64_t now)
{
	struct run *r = w->run;
	unsigned last = atomic_load_explicit(&r->ctl.last, memory_order_acquire);
	uint64_t next = grid_end(&r->grid, grid_index(&r->grid, now, last)), wait;
	unsigned inflight = engine_drv_inflight(&w->drv);
	bool busy;

	if (!w->stopping && w->wl.next_due < next)
		next = w->wl.next_due; /* maintenance or an arrival is due first */
	/* work left to do at once: streams that finished their turn's share of
	 * transactions from the cache model, with no I/O (txn.c) */
	busy = !w->stopping && w->wl.next_due <= now;
	wait = next > now ? next - now : 0;
	if (w->stopping && r->virt)
		wait = NSEC_PER_SEC;
	if (!r->virt && (wait > RUN_REAP_WAIT_NS || (wait == 0 && !inflight && !busy)))
		wait = RUN_REAP_WAIT_NS;
	if (r->virt && wait == 0 && (!inflight || busy))
		/* virtual time must move; and a turn of transactions that
		 * needed no I/O takes a CPU's time, else a cache that holds
		 * every page runs them all at one instant, for ever */
		wait = busy ? RUN_VIRT_BUSY_NS : 1;
	if (w->npv)
		wait = 0; /* pages wait for their check: no sleeping */
	return wait;
}

/* One turn of the worker loop: issue, then the driver's turn (commit, reap,
 * each completion stamped before any is accounted: accounting may wait for
 * the coordinator in worker_publish), then the pages set aside. false when
 * the worker is done. */
bool worker_step(struct worker *w)
{
	struct run *r = w->run;
	uint64_t now = engine_clock_now(&r->clock), wait;
	struct strbuf err = STRBUF_INIT;
	unsigned last;
	int ret;

	worker_check_stop(w, now);
	worker_issue(w, now);
	if (w->stopping && !engine_drv_inflight(&w->drv) && !engine_drv_kept(&w->drv))
		return false; /* nothing was queued: nothing to commit */
	if (w->stopping &&
	    now - w->stop_at > (atomic_load_explicit(&r->ctl.hung, memory_order_relaxed)
					? RUN_DRAIN_HUNG_NS
					: RUN_DRAIN_NS)) {
		/* bounded drain: what has not completed by now is hung */
		worker_snap_at(w, now);
		worker_report_hung(w, now, 0);
		return false;
	}
	wait = worker_wait(w, now);
	ret = engine_drv_turn(&w->drv, wait ? 1 : 0, wait, &err);
	if (ret < 0) {
		worker_engine_failed(w, ret, &err);
		return false;
	}
	now = engine_drv_now(&w->drv);
	/* durability: what this turn acknowledged, to the witness before more */
	if (run_durability_flush(w))
		return false;
	if (w->npv) {
		/* the streams whose pages wait for their check go first */
		worker_check_stop(w, now);
		worker_issue(w, now);
		ret = engine_drv_commit(&w->drv, &err);
		worker_verify_pending(w, false);
		if (ret < 0) {
			worker_engine_failed(w, ret, &err);
			return false;
		}
		now = engine_clock_now(&r->clock);
	}
	last = w->cur;
	worker_snap_at(w, now);
	if (w->cur != last)
		worker_report_hung(w, now, r->prof->io_timeout_ns);
	return true;
}

void worker_finish(struct worker *w)
{
	struct run *r = w->run;
	unsigned last;

	worker_verify_pending(w, true); /* pages read and not checked yet */
	if (!w->fatal)
		run_durability_flush(w); /* the last turn's acknowledgements */
	if (w->done && !r->virt)
		/* backup: the last worker to finish says where the run ends */
		while (atomic_load(&r->ctl.workers_done) < r->nworkers &&
		       !atomic_load(&r->ctl.stop))
			usleep(1000);
	last = atomic_load_explicit(&r->ctl.last, memory_order_acquire);
	while (w->cur <= last)
		worker_publish(w);
}

void *worker_thread(void *arg)
{
	struct worker *w = arg;
	struct strbuf err = STRBUF_INIT;

	w->wl.run_id = w->run->store.run_id; /* the run is stored by now */
	if (env_numa_bind_thread(&w->numa, &err)) {
		/* affinity = hard, and the nodes' CPUs refused */
		w->fatal = -EINVAL;
		snprintf(w->fatal_msg, sizeof(w->fatal_msg), "worker %u: %s", w->index, err.buf);
	}
	strbuf_release(&err);
	while (!w->fatal && worker_step(w))
		;
	if (w->fatal) {
		/* the coordinator stops the run (lowering the last interval);
		 * publish only up to that */
		atomic_store_explicit(&w->fatal_seen, true, memory_order_release);
		while (!atomic_load_explicit(&w->run->ctl.stop, memory_order_acquire))
			usleep(1000);
	}
	worker_finish(w);
	if (engine_drv_inflight(&w->drv)) {
		atomic_store_explicit(&w->exit_state, 2, memory_order_release);
		for (;;)
			pause(); /* every signal is blocked: until the process exits */
	}
	engine_drv_detach(&w->drv);
	atomic_store_explicit(&w->exit_state, 1, memory_order_release);
	return NULL;
}
