/* SPDX-License-Identifier: MIT */
/*
 * model_db.c - the database model features of the fit (learn.h): what an
 * observed fingerprint shows of a database's flushing and caching, turned
 * into the profile keys that make it (docs/profiles.md, docs/learn.md).
 *
 * From /proc/diskstats the fingerprint has, per role, counts and bytes over
 * the window: no single I/O's size. So each feature is read from a ratio.
 * P is the page size (copied by learn.c from the mean read size).
 *
 * - Doublewrite (InnoDB). Every batch of b pages is one write of b x P to
 *   the doublewrite area, a flush, then b writes of P in place: data bytes
 *   2bP in b + 1 writes, a mean write size of 2P b / (b + 1), between P
 *   (b = 1) and 2P. A mean write at least DW_SIZE_MIN x P with data flushes
 *   is read as doublewrite: pages = bytes / 2P, batches = writes - pages,
 *   b = pages / batches (flush_depth: a batch is at most flush_depth pages).
 *   Two flushes a batch (the doublewrite's and the data file's, InnoDB's
 *   fsync after each batch) set data_flush = per_batch; one, none (the
 *   doublewrite's own). Where the BPF trace watched, its write sizes tell
 *   the batches apart: the writes of two pages or more are the doublewrite
 *   area's, b their mean pages, their count the batches, and the flushes
 *   beyond one a batch are the data files' (per_batch, data_flush_count
 *   of them a batch: MariaDB fsyncs each tablespace a batch wrote). A
 *   batch's pages are released at once, so b makes the write bursts, and
 *   the queue depth, of InnoDB's flushing. InnoDB writes its dirty pages
 *   from a page cleaner every second: cleaner_interval = 1s, cleaner_pages
 *   twice the observed page writes a second (a cap that does not bind; the
 *   pages written are the pages dirty).
 * - Data-file flushes without it (PostgreSQL's checkpointer fsyncs): when
 *   the data device has a log device of its own and flushes at least
 *   FLUSH_MIN_PER_S a second, data_flush = rate at the observed flushes/s;
 *   each round corrects it by observed / predicted (the engine flushes only
 *   a file written since its last flush, so it may flush less than asked).
 * - Reads below the pages changed: without a cache every changed page is
 *   read first, so reads can never fall below page writes. Where they are
 *   below, a cache of a share of the database (uniform picks: a hit ratio
 *   of that share, once warm) with read_pages 0; each round corrects the
 *   missed share by observed / predicted reads.
 *
 * - Write-back in bursts (traced, no doublewrite): a database that writes
 *   through the page cache (PostgreSQL) has its pages written by the
 *   kernel's write-back, in passes: most of the writes in bursts of 100 ms
 *   slots, seconds apart, each keeping many writes queued. Where the trace
 *   saw WB_BURSTS_MIN bursts or more holding WB_SHARE_MIN of the writes, a
 *   page cleaner makes them: cleaner_interval = the bursts' interval, a
 *   pass writing every page dirty (cleaner_pages and dirty_pages four
 *   times a pass's pages, caps that do not bind), flush_depth = the writes
 *   in flight in a burst by Little's law (a burst's fullest 100 ms slot's
 *   writes a second by the mean write service time) over WB_KEEP, the
 *   share of its depth a flusher keeps in flight there. The sim has no
 *   queue, so the depth is copied, not fitted: the queue depth row is the
 *   replay's.
 * - Reads larger than a page (traced): the kernel's readahead for a
 *   database reading through the page cache merges a share of its page
 *   reads with the pages after them. The reads above a page in the trace,
 *   k-bar pages on average: readahead_size = k-bar rounded (2 to 64 pages),
 *   readahead_pct their share scaled so that the mean read is the observed
 *   one; without the trace, from the mean read size at RA_PAGES_GUESS
 *   pages. Each round corrects the share by the observed pages a read
 *   beyond the first over the sim's.
 *
 * Checkpoints are not read from a fingerprint: a window's sums do not tell
 * a burst every five minutes from a steady stream (the 1 s samples are not
 * kept in it); they are named in fit->cannot by learn.c's limits.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "diskproof/learn.h"
#include "diskproof/profile.h"
#include "diskproof/results.h"

#define DW_SIZE_MIN 1.3	    /* the mean data write, in pages, read as doublewrite */
#define DW_PAGES_MAX 64	    /* InnoDB's doublewrite chunk, and doublewrite_size's cap */
#define FLUSH_MIN_PER_S 0.2 /* data flushes a second worth a key */
#define CACHE_MAX 0.95	    /* the largest cache share the fit sets */
#define GC_MARGIN 1.03	    /* observed commits per log write beyond the sim's: a delay */
#define GC_DELAY_MIN_US 20  /* the smallest commit_delay the fit sets */
#define GC_STEP_MIN 0.7	    /* the delay's correction a round, at most */
#define GC_STEP_MAX 1.4
#define WB_BURSTS_MIN 3	    /* write bursts a window must show for a cleaner */
#define WB_SHARE_MIN 0.5    /* ... holding at least this share of the writes */
#define WB_INTERVAL_MIN 0.1 /* s: the shortest pass interval (the slot) */
/* the share of flush_depth diskproof's flusher keeps in flight over a
 * pass's fullest 100 ms: measured 0.57 at 14 and 0.43 at 64 on loop devices
 * (docs/learn.md); the kernel's write-back keeps the same share of its own
 * (a write meets about half the burst's depth at its issue) */
#define WB_KEEP 0.5
#define RA_SHARE_MIN 0.01  /* reads above a page worth a readahead key */
#define RA_MEAN_MIN 1.03   /* untraced: mean read pages worth one */
#define RA_PAGES_GUESS 4   /* untraced: readahead_size in pages */
#define DIRTY_DEFAULT 4096 /* dirty_pages' default */
/* readahead_size's limits: 64 pages, 256 KiB */
#define RA_PAGES_MAX(P) fmin(64, floor(262144 / (P)))

/* learn.c's target order */
enum { T_LOGW, T_DATAW, T_READS, T_LOGB };

static double clamp(double v, double lo, double hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* The data role's writes of data, its flush writes taken off. */
static double data_writes(const struct learn_role *r)
{
	double w = (double)r->c.writes;

	if (r->where.flush_counted_as_write)
		w -= (double)r->c.flushes;
	return w > 0 ? w : 0;
}

/*
 * The doublewrite batches as the trace saw them, where it watched: writes
 * of two pages or more are the doublewrite area's (InnoDB writes a batch
 * there in one write of up to 64 pages); the rest of the written bytes is
 * theirs (the log2 buckets below 2P taken at their floor: a little more is
 * theirs). *b the pages of a large write, *n their count; false when the
 * trace did not watch or saw none.
 */
static bool dw_traced(const struct learn_role *d, double P, double *b, double *n)
{
	const struct learn_trace_role *t = &d->trace;
	double small = 0, nl = 0, big;

	if (!t->present || !t->ops[LEARN_TRACE_WRITE])
		return false;
	for (int i = 0; i < LEARN_TRACE_BUCKETS; i++) {
		double sz = ldexp(1, i);

		if (sz < 2 * P)
			small += (double)t->sizes[1][i] * sz;
		else
			nl += (double)t->sizes[1][i];
	}
	big = (double)t->bytes[LEARN_TRACE_WRITE] - small;
	if (nl < 1 || big < 2 * P * nl)
		return false;
	*b = big / P / nl;
	*n = nl;
	return true;
}

/* The data flushes beyond the doublewrite's one a batch (traced): the
 * data files' after each batch, per_batch, data_flush_count of them
 * (InnoDB fsyncs every file a batch wrote: several a batch). */
static void dw_flushes(const struct learn_role *d, double s, double batches, struct learn_fit *fit)
{
	struct learn_model *m = &fit->m;
	double extra = (double)d->c.flushes - batches;

	m->data_flush = PROFILE_DATA_FLUSH_NONE;
	m->data_flush_count = 0;
	if (extra / s < FLUSH_MIN_PER_S || extra < 0.5 * batches)
		return;
	m->data_flush = PROFILE_DATA_FLUSH_PER_BATCH;
	m->data_flush_count = (unsigned)clamp(round(extra / batches), 1, 64);
	strbuf_addf(&fit->db_keys,
		    "data_flush = per_batch, data_flush_count = %u: %.2f data flushes a batch "
		    "beyond the doublewrite's (InnoDB fsyncs each file a batch wrote)\n",
		    m->data_flush_count, extra / batches);
}

/* Doublewrite: true (and m set) when the data writes show it. */
static bool doublewrite_fit(const struct learn_fp *obs, struct learn_fit *fit)
{
	const struct learn_role *d = &obs->role[LEARN_DATA];
	struct learn_model *m = &fit->m;
	double s = obs->seconds > 0 ? obs->seconds : 1;
	double P = (double)m->page_size, w = data_writes(d);
	double bytes = (double)d->c.write_sectors * 512;
	double pages, batches, b, fpb, tb = 0, tn = 0;
	bool traced;

	if (w < 2 || !d->c.flushes || bytes / w < DW_SIZE_MIN * P)
		return false;
	pages = bytes / (2 * P);
	batches = w - pages;
	if (batches < 1)
		return false;
	/* a batch has one flush (the doublewrite's), two with the data file's
	 * own; the writes beyond the pages overcount batches where the
	 * filesystem's journal writes on the same device (ext4's commits) */
	fpb = (double)d->c.flushes / batches;
	if (fpb >= 1.5)
		batches = (double)d->c.flushes / 2;
	else if ((double)d->c.flushes < batches)
		batches = (double)d->c.flushes;
	/* the trace's sizes tell the batches apart from the flushes */
	traced = dw_traced(d, P, &tb, &tn);
	if (traced) {
		batches = tn;
		m->dw_batch_rate = tn / s;
	}
	b = clamp(traced ? tb : pages / batches, 1, DW_PAGES_MAX);
	m->doublewrite = true;
	m->update_pages = pages / s / (m->rate > 0 ? m->rate : 1);
	m->flush_depth = (unsigned)lround(b);
	m->data_flush = fpb >= 1.5 ? PROFILE_DATA_FLUSH_PER_BATCH : PROFILE_DATA_FLUSH_NONE;
	m->cleaner_interval_s = 1;
	m->cleaner_pages = (unsigned)clamp(ceil(2 * pages / s), 1, 1000000);
	strbuf_addf(&fit->db_keys,
		    "doublewrite = on: data writes of %.2f pages on average with data flushes "
		    "(InnoDB's doublewrite: %.0f pages written twice in %.0f batches)\n",
		    bytes / w / P, pages, batches);
	if (traced)
		strbuf_addf(
			&fit->db_keys,
			"flush_depth: %.1f pages a batch (the trace's %.0f doublewrite writes of "
			"two pages or more), corrected on the sim to as many batches a second\n",
			b, tn);
	else
		strbuf_addf(&fit->db_keys, "flush_depth = %u: %.1f pages a batch\n", m->flush_depth,
			    b);
	if (traced)
		dw_flushes(d, s, batches, fit);
	else if (m->data_flush == PROFILE_DATA_FLUSH_PER_BATCH)
		strbuf_addf(&fit->db_keys,
			    "data_flush = per_batch: %.2f data flushes a batch (the doublewrite's "
			    "and the data file's)\n",
			    fpb);
	strbuf_addf(&fit->db_keys,
		    "cleaner_interval = 1s, cleaner_pages: InnoDB's page cleaner, a pass a "
		    "second (first %u, twice the %.1f pages written a second; raised on the sim "
		    "if its data writes fell short)\n",
		    m->cleaner_pages, pages / s);
	/* InnoDB's adaptive and LRU flushing write steadily: a trace that saw
	 * the writes come so spreads the pass over its second */
	if (d->trace.present && d->trace.ops[LEARN_TRACE_WRITE] >= LEARN_EVENTS_MIN &&
	    !(d->trace.burst_share >= WB_SHARE_MIN)) {
		m->cleaner_spread = true;
		strbuf_addf(&fit->db_keys,
			    "cleaner_spread = on: the trace's data writes came steadily (%.1f %% "
			    "of them in bursts), a batch at a time over the second, not a pass "
			    "at its start\n",
			    100 * d->trace.burst_share);
	}
	return true;
}

/* Data-file flushes at a rate (no doublewrite). */
static void flush_rate_fit(const struct learn_fp *obs, struct learn_fit *fit)
{
	const struct learn_role *d = &obs->role[LEARN_DATA];
	double s = obs->seconds > 0 ? obs->seconds : 1, f = (double)d->c.flushes / s;

	/* without a log role the data device's flushes are the log's */
	if (!obs->role[LEARN_LOG].present || f < FLUSH_MIN_PER_S)
		return;
	fit->m.data_flush = PROFILE_DATA_FLUSH_RATE;
	fit->m.data_flush_rate = clamp(f, 0.01, 10000);
	strbuf_addf(&fit->db_keys,
		    "data_flush = rate, data_flush_rate = %.2f: data-file flushes observed "
		    "(a checkpointer's fsyncs); corrected on the sim\n",
		    f);
}

/* A cache where the reads are below the pages changed. */
static void cache_fit(const struct learn_fp *obs, const double *to, struct learn_fit *fit)
{
	const struct learn_counters *d = &obs->role[LEARN_DATA].c;
	struct learn_model *m = &fit->m;
	double changed = m->update_pages * m->rate;

	if (m->doublewrite) /* the pages written in place */
		changed = (double)d->write_sectors * 512 / (2.0 * (double)m->page_size) /
			  (obs->seconds > 0 ? obs->seconds : 1);
	if (changed <= 0 || to[T_READS] >= 0.95 * changed)
		return;
	m->cache_fraction = clamp(1 - to[T_READS] / changed, 0.01, CACHE_MAX);
	m->read_pages = 0;
	strbuf_addf(&fit->db_keys,
		    "cache_size: data reads %.1f/s below the %.1f pages changed a second: a cache "
		    "(the buffer pool and page cache) of %.0f %% of the database to start from, "
		    "corrected on the sim\n",
		    to[T_READS], changed, m->cache_fraction * 100);
}

/* Write-back in bursts (traced): a cleaner pass at their interval. */
static void writeback_fit(const struct learn_fp *obs, struct learn_fit *fit)
{
	const struct learn_role *d = &obs->role[LEARN_DATA];
	const struct learn_trace_role *t = &d->trace;
	struct learn_model *m = &fit->m;
	double s = obs->seconds > 0 ? obs->seconds : 1, w = data_writes(d) / s;
	double iv, per, svc, depth, inflight, pages;

	if (!t->present || t->bursts < WB_BURSTS_MIN || !(t->burst_share >= WB_SHARE_MIN) ||
	    !(t->burst_interval_s >= WB_INTERVAL_MIN) || !t->ops[LEARN_TRACE_WRITE] || w <= 0)
		return;
	iv = round(t->burst_interval_s * 100) / 100;
	per = w * iv;
	svc = t->completed[LEARN_TRACE_WRITE] ? (double)t->service_ns[LEARN_TRACE_WRITE] / 1e9 /
							(double)t->completed[LEARN_TRACE_WRITE]
					      : 0;
	depth = (double)t->depth_sum[1] / (double)t->ops[LEARN_TRACE_WRITE];
	/* in flight during a burst (Little's law): its fullest slot's writes a
	 * second by the mean write service time, every write's (the writes
	 * between the bursts go in batches too, and wait as long); without
	 * the service times, that slot's writes in flight, time-averaged */
	inflight = isfinite(t->burst_peak) && svc > 0 ? t->burst_peak * 10 * svc
		   : isfinite(t->burst_depth)	      ? t->burst_depth
						      : depth + 1;
	/* a flusher that refills as its completions are reaped keeps about
	 * half its depth in flight over a pass's fullest 100 ms (WB_KEEP) */
	pages = m->page_size ? (double)m->database_size / (double)m->page_size : 1e6;
	m->cleaner_interval_s = iv;
	m->cleaner_pages = (unsigned)clamp(ceil(4 * per), 1, 1000000);
	m->flush_depth = (unsigned)clamp(round(inflight / WB_KEEP), 1, 1024);
	if (4 * per > DIRTY_DEFAULT && pages > DIRTY_DEFAULT)
		m->dirty_pages =
			(unsigned)clamp(ceil(4 * per), DIRTY_DEFAULT, fmin(pages, 1048576));
	strbuf_addf(&fit->db_keys,
		    "cleaner_interval = %.0fms, cleaner_pages (first %u, raised on the sim if "
		    "its data writes fell short), flush_depth = %u: write-back "
		    "in bursts (the kernel's, for a database writing through the page cache): "
		    "%llu bursts held %.0f %% of the data writes, one every %.2f s; %.1f writes "
		    "in flight in a burst (its fullest 100 ms, %.0f writes, by the %.3f ms a write "
		    "took; a write met %.1f at its issue), about half of what a flusher keeps "
		    "queued; a pass writes every page dirty (about %.0f)\n",
		    iv * 1000, m->cleaner_pages, m->flush_depth, (unsigned long long)t->bursts,
		    100 * t->burst_share, t->burst_interval_s, inflight,
		    isfinite(t->burst_peak) ? t->burst_peak : 0, svc * 1e3, depth, per);
	if (m->dirty_pages)
		strbuf_addf(&fit->db_keys,
			    "dirty_pages = %u: room for four passes' pages, so that no commit "
			    "waits for the cleaner\n",
			    m->dirty_pages);
}

/* The mean pages a read of role d takes (0: no reads). */
static double read_pages_mean(const struct learn_role *d, double P)
{
	return d->c.reads && P > 0 ? (double)d->c.read_sectors * 512 / (double)d->c.reads / P : 0;
}

/* Reads larger than a page: readahead_size and readahead_pct. */
static void readahead_fit(const struct learn_fp *obs, struct learn_fit *fit)
{
	const struct learn_role *d = &obs->role[LEARN_DATA];
	const struct learn_trace_role *t = &d->trace;
	struct learn_model *m = &fit->m;
	double P = (double)m->page_size, n = 0, big = 0, small = 0, kbar, k, share;

	if (P <= 0 || RA_PAGES_MAX(P) < 2) /* pages above 128 KiB: no key holds two */
		return;
	if (t->present && t->ops[LEARN_TRACE_READ]) {
		for (int i = 0; i < LEARN_TRACE_BUCKETS; i++) {
			double sz = ldexp(1, i), c = (double)t->sizes[0][i];

			if (sz < 2 * P)
				small += c * fmin(sz, P);
			else
				n += c;
		}
		big = (double)t->bytes[LEARN_TRACE_READ] - small;
		share = n / (double)t->ops[LEARN_TRACE_READ];
		if (share < RA_SHARE_MIN || big < 2 * P * n)
			return;
		kbar = big / P / n;
		k = clamp(round(kbar), 2, RA_PAGES_MAX(P));
		m->readahead_pages = (unsigned)k;
		m->readahead_pct = clamp(100 * share * (kbar - 1) / (k - 1), 0.1, 100);
		strbuf_addf(&fit->db_keys,
			    "readahead_size = %u pages, readahead_pct = %.1f: %.1f %% of the "
			    "traced reads took more than a page, %.2f pages on average (the "
			    "kernel's readahead); corrected on the sim to the mean read\n",
			    m->readahead_pages, m->readahead_pct, 100 * share, kbar);
		return;
	}
	kbar = read_pages_mean(d, P);
	if (kbar < RA_MEAN_MIN)
		return;
	k = clamp(ceil(kbar * 2), fmin(RA_PAGES_GUESS, RA_PAGES_MAX(P)), RA_PAGES_MAX(P));
	m->readahead_pages = (unsigned)k;
	m->readahead_pct = clamp(100 * (kbar - 1) / (k - 1), 0.1, 100);
	strbuf_addf(&fit->db_keys,
		    "readahead_size = %u pages, readahead_pct = %.1f: reads of %.2f pages on "
		    "average (no trace: their sizes not seen, %u pages guessed); corrected on "
		    "the sim to the mean read\n",
		    m->readahead_pages, m->readahead_pct, kbar, m->readahead_pages);
}

void learn_db_features(const struct learn_fp *obs, const double *to, struct learn_fit *fit)
{
	if (!obs->role[LEARN_DATA].present)
		return;
	if (!doublewrite_fit(obs, fit)) {
		flush_rate_fit(obs, fit);
		writeback_fit(obs, fit);
	}
	cache_fit(obs, to, fit);
	readahead_fit(obs, fit);
}

/* With doublewrite the pages changed follow the data bytes written, not the
 * write count (the count has the filesystem's journal writes in it, and its
 * batches): learn.c's correction by the count undone, and one by the bytes
 * made, at most a halving or doubling a round. */
static void dw_correct(const struct learn_fp *obs, const struct learn_fp *pred, const double *to,
		       const double *tp, struct learn_model *m)
{
	double bo = (double)obs->role[LEARN_DATA].c.write_sectors / obs->seconds;
	double bp = (double)pred->role[LEARN_DATA].c.write_sectors / pred->seconds;

	double k = bo > 0 && bp > 0 ? clamp(bo / bp, 0.5, 2) : 1;

	/* a sim run short of the rate is saturated (its flusher cannot keep
	 * up, commits wait): more pages would only make it worse */
	if (k > 1 && pred->transactions > 0 && pred->transactions / pred->seconds < 0.9 * m->rate)
		k = 1;
	if (to[T_DATAW] > 0 && tp[T_DATAW] > 0)
		m->update_pages = m->update_pages * tp[T_DATAW] / to[T_DATAW];
	m->update_pages = clamp(m->update_pages * k, 0, 1000);
}

/* Traced doublewrite: a pass's last batch is short, so batches of at most
 * the observed mean are more batches than observed; flush_depth corrected
 * by the sim's batches (its writes beyond the pages: each page is written
 * twice, each batch once more) over the trace's. */
static void dw_batch_correct(const struct learn_fp *pred, struct learn_model *m)
{
	const struct learn_role *d = &pred->role[LEARN_DATA];
	double pages = (double)d->c.write_sectors * 512 / (2.0 * (double)m->page_size);
	double bp = (data_writes(d) - pages) / pred->seconds;

	if (bp > 0 && m->page_size)
		m->flush_depth = (unsigned)clamp(
			round((double)m->flush_depth * clamp(bp / m->dw_batch_rate, 0.7, 1.4)), 1,
			DW_PAGES_MAX);
}

void learn_db_correct(const struct learn_fp *obs, const struct learn_fp *pred, const double *to,
		      const double *tp, struct learn_model *m)
{
	double fo = (double)obs->role[LEARN_DATA].c.flushes;
	double fp = (double)pred->role[LEARN_DATA].c.flushes;

	if (m->data_flush == PROFILE_DATA_FLUSH_RATE && fo > 0 && fp > 0) {
		double want = fo / obs->seconds;

		m->data_flush_rate =
			clamp(m->data_flush_rate * (fo / obs->seconds) / (fp / pred->seconds), 0.01,
			      fmin(10000, 4 * want));
	}
	if (m->cache_fraction > 0 && to[T_READS] > 0 && tp[T_READS] > 0) {
		double miss = (1 - m->cache_fraction) * to[T_READS] / tp[T_READS];

		m->cache_fraction = clamp(1 - miss, 0, CACHE_MAX);
		m->read_pages = 0;
	}
	if (m->doublewrite)
		dw_correct(obs, pred, to, tp, m);
	if (m->doublewrite && m->dw_batch_rate > 0)
		dw_batch_correct(pred, m);
	if (m->cleaner_interval_s > 0 && tp[T_DATAW] > 0 && to[T_DATAW] > tp[T_DATAW])
		m->cleaner_pages = (unsigned)clamp(
			ceil((double)m->cleaner_pages * to[T_DATAW] / tp[T_DATAW]), 1, 1000000);
	if (m->readahead_pages) {
		double P = (double)m->page_size;
		double ko = read_pages_mean(&obs->role[LEARN_DATA], P) - 1;
		double kp = read_pages_mean(&pred->role[LEARN_DATA], P) - 1;

		if (ko > 0 && kp > 0)
			m->readahead_pct =
				clamp(m->readahead_pct * clamp(ko / kp, 0.5, 2), 0.1, 100);
	}
}

/* Group commit (learn.h). s0: the sim's commits per log write without the
 * delay (the first round's, at the observed latency). The sharing grows
 * with the delay from s0 toward commit_group, so the delay's excess is
 * scaled by (observed - s0) / (predicted - s0), at most halved or doubled
 * a round. */
bool learn_db_group_commit(struct learn_model *m, const double *to, const double *tp)
{
	double so, sp, k;

	if (!(to[T_LOGW] > 0 && tp[T_LOGW] > 0 && m->rate > 0))
		return false;
	so = m->rate / to[T_LOGW]; /* commits per log write, observed */
	sp = m->rate / tp[T_LOGW]; /* the sim's */
	if (m->commit_delay_us <= 0) {
		if (so <= GC_MARGIN * sp)
			return false; /* the latency alone shares enough (or more) */
		/* the sim's log latency from now on: the observed one, a
		 * write's and its flush's per write (what a replay's
		 * write-through write waits for where the device flushes
		 * apart), whatever earlier rounds fitted */
		if (m->log_obs_us > 0)
			m->log_lat_us = m->log_obs_us;
		m->commit_base = -1; /* the next round's, at that latency */
		m->commit_group = (unsigned)clamp(ceil(so), 2, 1024);
		m->commit_delay_us = GC_DELAY_MIN_US;
		return true;
	}
	if (m->commit_base < 0) {
		m->commit_base = sp;
		/* half the time the missing commits take to arrive: the
		 * commits that come while the write is in flight add to it */
		if (so > sp)
			m->commit_delay_us =
				clamp(0.5 * (so - sp) / m->rate * 1e6, GC_DELAY_MIN_US, 1e6);
		return true;
	}
	/* damped: the data figures move with the delay too (pages changed
	 * again while their commit waits), and update_pages is corrected in
	 * the same round */
	k = sp > m->commit_base + 0.01
		    ? clamp((so - m->commit_base) / (sp - m->commit_base), GC_STEP_MIN, GC_STEP_MAX)
		    : GC_STEP_MAX;
	m->commit_delay_us = clamp(m->commit_delay_us * k, GC_DELAY_MIN_US, 1e6);
	return true;
}

void learn_db_group_commit_origin(struct learn_fit *fit, const double *to)
{
	const struct learn_model *m = &fit->m;

	if (m->commit_delay_us <= 0 || to[T_LOGW] <= 0)
		return;
	strbuf_addf(&fit->db_keys,
		    "commit_group = %u, commit_delay = %.0fus: the database shared a log write "
		    "between %.2f commits, the sim at the observed log latency %.2f; the delay "
		    "fitted on the sim at the observed log latency per write, its flush's "
		    "included ([sim] log_write_latency)\n",
		    m->commit_group, m->commit_delay_us, m->rate / to[T_LOGW], m->commit_base);
}

void learn_db_predict(const struct class_summary *c, const struct learn_fp *obs,
		      struct learn_fp *pred)
{
	struct learn_counters *data = &pred->role[LEARN_DATA].c;
	uint64_t f = c[IO_DB_FLUSH].ios;

	data->flushes += f;
	if (obs->role[LEARN_DATA].where.flush_counted_as_write)
		data->writes += f;
}

void learn_db_profile_keys(const struct learn_model *m, struct strbuf *out)
{
	static const char *const flush[] = {"none", "per_batch", "rate"};

	if (m->flush_depth)
		strbuf_addf(out, "flush_depth = %u\n", m->flush_depth);
	if (m->dirty_pages)
		strbuf_addf(out, "dirty_pages = %u\n", m->dirty_pages);
	if (m->readahead_pages && m->page_size) {
		strbuf_addf(out, "readahead_size = %lluKiB\n",
			    (unsigned long long)(m->readahead_pages * m->page_size / 1024));
		strbuf_addf(out, "readahead_pct = %.1f\n", m->readahead_pct);
	}
	if (m->doublewrite)
		strbuf_addstr(out, "doublewrite = on\n");
	if (m->data_flush > 0 && m->data_flush < 3)
		strbuf_addf(out, "data_flush = %s\n", flush[m->data_flush]);
	if (m->data_flush == PROFILE_DATA_FLUSH_RATE)
		strbuf_addf(out, "data_flush_rate = %.2f\n", m->data_flush_rate);
	if (m->data_flush == PROFILE_DATA_FLUSH_PER_BATCH && m->data_flush_count > 1)
		strbuf_addf(out, "data_flush_count = %u\n", m->data_flush_count);
	if (m->cleaner_interval_s > 0) {
		strbuf_addf(out, "cleaner_interval = %.0fms\n", m->cleaner_interval_s * 1000);
		strbuf_addf(out, "cleaner_pages = %u\n", m->cleaner_pages);
		if (m->cleaner_spread)
			strbuf_addstr(out, "cleaner_spread = on\n");
	}
	if (m->log_sync == PROFILE_LOG_SYNC_FDATASYNC)
		strbuf_addstr(out, "log_sync = fdatasync\n");
	if (m->commit_delay_us > 0) {
		strbuf_addf(out, "commit_delay = %.0fus\n", m->commit_delay_us);
		if (m->commit_group)
			strbuf_addf(out, "commit_group = %u\n", m->commit_group);
	}
	if (m->cache_fraction > 0 && m->page_size) {
		uint64_t pages = (uint64_t)(m->cache_fraction * (double)m->database_size /
					    (double)m->page_size);

		if (pages)
			strbuf_addf(out, "cache_size = %lluKiB\n",
				    (unsigned long long)(pages * m->page_size / 1024));
	}
}
