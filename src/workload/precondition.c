/* SPDX-License-Identifier: MIT */
/*
 * precondition.c - "init --precondition": random page writes over the
 * databases init made, through one io_uring, until write IOPS reach steady
 * state.
 *
 * Steady state (SNIA Solid State Storage Performance Test Specification, PTS
 * 2.0.1): write IOPS are measured per round; the device is steady when, over
 * the measurement window of the last `window` rounds (5 in the PTS), the range
 * of the rounds' IOPS (max - min, the "data excursion") is at most 20 % of
 * their average, and the least-squares line through them rises or falls by at
 * most 10 % of that average across the window (|slope| x (window - 1) rounds,
 * the "slope excursion"). Both bounds are options.
 *
 * Generations: every write is a whole page stamped with its page's next
 * generation. Generations come from the journals; a page's entry moves to the
 * new generation only when its write is acknowledged, so a journal written
 * while writes are in flight is a lower bound (written without JOURNAL_CLEAN,
 * every PC_JOURNAL_ROUNDS rounds) and the final one, written once nothing is
 * in flight, is exact (JOURNAL_CLEAN, unless a journal was not clean when read;
 * a failed write leaves the page a failed-write mark of run 0, journal.h, that
 * nothing checks until the page is written anew). Before
 * the first write every journal is marked in progress (journal_mark_running),
 * so that a kill at any instant leaves lower bounds behind.
 *
 * Rounds: a round's IOPS are the writes completed in it over its length.
 * Completions that arrive while the periodic journals are being written count
 * in no round, and the next round starts after them.
 *
 * The page stamping (payload and CRC32C) runs on the calling thread, as the
 * creator's does: on very fast devices with large pages one core can be the
 * limit, which shows as IOPS that are steady early. *
 * The writes go through the io_uring engine and the engine driver
 * (driver.h), as a run's do, with the run's policy for EAGAIN and short
 * writes; preconditioning needs io_uring whatever engine the profile names
 * (psync and libaio hosts included), and says so when the ring cannot be set
 * up (docs/engines.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diskproof/driver.h"
#include "diskproof/fileopen.h"
#include "diskproof/journal.h"
#include "diskproof/page.h"
#include "diskproof/precondition.h"

#include "../util/rng.h"

#define PC_DEF_DEPTH 32u
#define PC_DEF_ROUND_NS (10 * NSEC_PER_SEC)
#define PC_DEF_WINDOW 5u
#define PC_DEF_EXCURSION 0.20
#define PC_DEF_SLOPE 0.10
#define PC_DEF_MAX_NS (2 * 3600 * NSEC_PER_SEC)
/* journals written every this many rounds: each minute at the default round */
#define PC_JOURNAL_ROUNDS 6u
#define PC_SIGNAL_NS (20 * NSEC_PER_MSEC)
#define PC_WAIT_NS (50 * NSEC_PER_MSEC)
/* write buffers and ring entries over all volumes */
#define PC_MAX_BUFFER_BYTES (256ull << 20)
#define PC_MAX_SLOTS 16384u
/* a run keeps the top bit of an expected generation as a flag */
#define PC_MAX_GEN JOURNAL_GEN_MAX

struct pc_db {
	const struct plan_db *pdb;
	int fd;
	uint32_t *gens; /* last acknowledged generation of every page */
	uint64_t *busy; /* bitmap: a write in flight on the page */
	bool inexact;	/* a generation is only a lower bound or unknown */
};

struct pc_vol;

struct pc_slot {
	struct engine_req req; /* req.owner is this slot */
	void *buf;
	struct pc_vol *vol;
	struct pc_db *db;
	uint64_t page;
	uint32_t gen;
};

struct pc_vol {
	struct pc_db *dbs; /* this volume's databases */
	unsigned ndbs;
	uint64_t *cum; /* cum[i]: pages in dbs[0..i); ndbs + 1 entries */
	uint64_t pages;
	struct pc_slot *slots;
	unsigned *idle; /* indices of idle slots */
	unsigned nidle, nslots;
};

struct pc {
	const struct plan *pl;
	const struct profile *p;
	const struct precondition_options *o;
	struct precondition_result *res;
	struct strbuf *err;
	struct engine_ctx ctx; /* the io_uring engine's, over every database */
	struct engine_clock clock;
	struct engine_drv drv; /* the one driver (driver.h) */
	int *fds;	       /* by database index: the engine's ctx.fds */
	struct pc_db *dbs;
	struct pc_vol *vols;
	uint64_t *cum;
	struct pc_slot *slots;
	unsigned *idle;
	void *bufs;
	double *win; /* IOPS of the last rounds, oldest first */
	unsigned nwin, inflight;
	uint64_t rng, round_ops, t0, last_done_ns;
	bool counting; /* completions count in the round (not while journaling) */
	bool stopping;
	int ret;
};

void precondition_options_default(struct precondition_options *o)
{
	*o = (struct precondition_options){
		.depth = PC_DEF_DEPTH,
		.round_ns = PC_DEF_ROUND_NS,
		.window = PC_DEF_WINDOW,
		.max_excursion = PC_DEF_EXCURSION,
		.max_slope = PC_DEF_SLOPE,
		.max_ns = PC_DEF_MAX_NS,
		.signal_fd = -1,
	};
}

/*
 * The PTS rule over the last `window` values. With x the round index 0..w-1
 * and y its IOPS, the least-squares slope is sum((x - x̄)(y - ȳ)) /
 * sum((x - x̄)²); the fitted line's excursion across the window is
 * |slope| x (w - 1).
 */
bool precondition_steady(const double *iops, unsigned n, unsigned window, double max_excursion,
			 double max_slope)
{
	double sum = 0, lo, hi, avg, xbar, sxy = 0, sxx = 0;
	const double *y;

	if (window < 2 || n < window)
		return false;
	y = iops + (n - window);
	lo = hi = y[0];
	for (unsigned i = 0; i < window; i++) {
		if (!isfinite(y[i]))
			return false;
		sum += y[i];
		lo = y[i] < lo ? y[i] : lo;
		hi = y[i] > hi ? y[i] : hi;
	}
	avg = sum / window;
	if (!(avg > 0) || hi - lo > max_excursion * avg)
		return false;
	xbar = (window - 1) / 2.0;
	for (unsigned i = 0; i < window; i++) {
		double dx = i - xbar;

		sxy += dx * (y[i] - avg);
		sxx += dx * dx;
	}
	return fabs(sxy / sxx) * (window - 1) <= max_slope * avg;
}

static int pc_check_options(const struct plan *pl, const struct precondition_options *o,
			    struct strbuf *err)
{
	const char *why = NULL;

	if (!pl->files || !pl->nr_dbs)
		why = "the plan has no database files (the sim engine writes none)";
	else if (!o->depth || o->depth > PRECONDITION_MAX_DEPTH)
		why = "depth must be 1..4096";
	else if (o->round_ns < NSEC_PER_MSEC)
		why = "a round must last at least 1 ms";
	else if (o->window < 2 || o->window > PRECONDITION_MAX_WINDOW)
		why = "the window must be 2..1000 rounds";
	else if (!isfinite(o->max_excursion) || o->max_excursion < 0 || !isfinite(o->max_slope) ||
		 o->max_slope < 0)
		why = "the excursion and slope bounds must be finite and not negative";
	else if (!o->max_ns)
		why = "the time limit must be positive";
	if (!why)
		return 0;
	strbuf_addf(err, "precondition: invalid options: %s", why);
	return -EINVAL;
}

/* Records the first error; every error stops the issuing of writes. */
static void pc_fail(struct pc *c, int ret)
{
	if (!c->ret)
		c->ret = ret;
	c->stopping = true;
}

static void pc_sep(struct strbuf *err)
{
	if (err->len)
		strbuf_addstr(err, "; ");
}

static bool pc_busy(const struct pc_db *d, uint64_t page)
{
	return d->busy[page / 64] >> (page % 64) & 1;
}

static void pc_busy_flip(struct pc_db *d, uint64_t page)
{
	d->busy[page / 64] ^= 1ull << (page % 64);
}

/*
 * A page of the volume chosen uniformly among its databases' pages, drawn
 * again while busy. A volume keeps at most half its pages in flight, so fewer
 * than two draws are expected.
 */
static void pc_pick(struct pc *c, const struct pc_vol *v, struct pc_db **db, uint64_t *page)
{
	for (;;) {
		uint64_t x = rng_splitmix_below(&c->rng, v->pages);
		unsigned lo = 0, hi = v->ndbs - 1;

		while (lo < hi) {
			unsigned mid = lo + (hi - lo + 1) / 2;

			if (v->cum[mid] <= x)
				lo = mid;
			else
				hi = mid - 1;
		}
		if (!pc_busy(&v->dbs[lo], x - v->cum[lo])) {
			*db = &v->dbs[lo];
			*page = x - v->cum[lo];
			return;
		}
	}
}

/* Fills the volume's idle slots with stamped page writes; a write the engine
 * has no room for is kept by the driver, and the volume waits for the next
 * turn. */
static void pc_issue_volume(struct pc *c, struct pc_vol *v)
{
	uint32_t size = c->p->page_size;

	while (!c->stopping && v->nidle) {
		struct pc_slot *s;
		struct pc_db *d;
		uint64_t page;

		pc_pick(c, v, &d, &page);
		if (!journal_gen_failed(d->gens[page]) && d->gens[page] >= PC_MAX_GEN) {
			pc_sep(c->err);
			strbuf_addf(c->err,
				    "%s: page %llu: generation %u is the largest a journal keeps",
				    d->pdb->path, (unsigned long long)page, d->gens[page]);
			pc_fail(c, -EOVERFLOW);
			return;
		}
		s = &v->slots[v->idle[--v->nidle]];
		s->db = d;
		s->page = page;
		/* after a failed write: newer than init's 1, as a run does */
		s->gen = journal_gen_failed(d->gens[page]) ? 2 : d->gens[page] + 1;
		page_stamp(s->buf, size, PAGE_KIND_DB, d->pdb->id, page, s->gen, 0, c->p->seed,
			   true);
		s->req = (struct engine_req){.op = ENGINE_OP_WRITE,
					     .file = (uint32_t)(d - c->dbs),
					     .offset = d->pdb->base + page * size,
					     .len = size,
					     .buf_index = -1,
					     .buf = s->buf,
					     .owner = s};
		/* counted first: the driver may hand it back at once */
		pc_busy_flip(d, page);
		c->inflight++;
		if (engine_drv_queue(&c->drv, &s->req) == ENGINE_Q_BUSY)
			return;
	}
}

static void pc_complete(struct pc *c, struct pc_slot *s, int res, bool count)
{
	struct pc_db *d = s->db;
	uint32_t size = c->p->page_size;
	uint64_t off = d->pdb->base + s->page * size;

	pc_busy_flip(d, s->page);
	s->vol->idle[s->vol->nidle++] = (unsigned)(s - s->vol->slots);
	c->inflight--;
	if (res >= 0 && (uint32_t)res == size) {
		d->gens[s->page] = s->gen;
		c->res->bytes += size;
		c->round_ops += count;
		return;
	}
	/* the page may hold the old generation, the new one or a torn mix */
	d->gens[s->page] = journal_failed_mark(0);
	if (c->ret)
		return; /* the first error is the one reported */
	pc_sep(c->err);
	if (res < 0)
		strbuf_addf(c->err, "%s: write of %s page %llu at offset %llu failed: %s",
			    d->pdb->path, d->pdb->name, (unsigned long long)s->page,
			    (unsigned long long)off, strerror(-res));
	else
		strbuf_addf(c->err,
			    "%s: short write of %s page %llu at offset %llu: %d of %u bytes",
			    d->pdb->path, d->pdb->name, (unsigned long long)s->page,
			    (unsigned long long)off, res, size);
	pc_fail(c, res < 0 ? res : -EIO);
}

/* The driver's callback (driver.h): a write it is done with, its remainders
 * written and EAGAIN retried. */
static void pc_write_done(void *arg, struct engine_req *req)
{
	struct pc *c = arg;

	pc_complete(c, req->owner, (int)req->result, c->counting);
}

/*
 * One turn of the driver: submit, then reap, waiting up to wait_ns for the
 * first completion (0: only what is there). false when the engine failed
 * (said in c->err, the first error kept): what is in flight cannot be waited
 * for.
 */
static bool pc_turn(struct pc *c, uint64_t wait_ns, bool count)
{
	struct strbuf why = STRBUF_INIT;
	int n;

	c->counting = count;
	n = engine_drv_turn(&c->drv, wait_ns ? 1 : 0, wait_ns, &why);
	c->counting = true;
	if (n < 0) {
		pc_sep(c->err);
		strbuf_addf(c->err, "precondition: %s", why.buf);
		strbuf_release(&why);
		pc_fail(c, n);
		return false;
	}
	if (n)
		c->last_done_ns = time_mono_ns();
	return true;
}

static void pc_check_signal(struct pc *c)
{
	struct pollfd pfd = {.fd = c->o->signal_fd, .events = POLLIN};
	struct signalfd_siginfo si;

	if (c->o->signal_fd < 0 || poll(&pfd, 1, 0) <= 0)
		return;
	if (read(c->o->signal_fd, &si, sizeof(si)) != (ssize_t)sizeof(si) || c->stopping)
		return;
	c->res->interrupted = true;
	c->res->signo = (int)si.ssi_signo;
	c->stopping = true;
}

/*
 * Every database's journal from the acknowledged generations: exact (clean)
 * only at the end with nothing in flight. Every failure is reported.
 */
static int pc_write_journals(struct pc *c, bool final)
{
	struct strbuf jerr = STRBUF_INIT;
	int ret = 0;

	for (size_t i = 0; i < c->pl->nr_dbs; i++) {
		const struct pc_db *d = &c->dbs[i];
		struct journal_info ji = {
			.db_id = d->pdb->id,
			.page_size = c->p->page_size,
			.nr_pages = d->pdb->nr_pages,
			.run_id = 0,
			.seed = c->p->seed,
			.flags = final && !c->inflight && !d->inexact ? JOURNAL_CLEAN : 0,
		};
		int r;

		strbuf_reset(&jerr);
		r = journal_write(&d->pdb->jloc, &ji, d->gens, &jerr);
		if (!r)
			continue;
		pc_sep(c->err);
		strbuf_addstr(c->err, jerr.buf);
		ret = ret ? ret : r;
	}
	strbuf_release(&jerr);
	return ret;
}

static void pc_round_end(struct pc *c, uint64_t span_ns)
{
	const struct precondition_options *o = c->o;
	double iops = (double)c->round_ops * 1e9 / (double)span_ns;
	bool steady;
	int ret;

	c->round_ops = 0;
	if (c->nwin == o->window)
		memmove(c->win, c->win + 1, (o->window - 1) * sizeof(*c->win));
	else
		c->nwin++;
	c->win[c->nwin - 1] = iops;
	c->res->rounds++;
	steady = c->res->bytes >= o->min_bytes &&
		 precondition_steady(c->win, c->nwin, o->window, o->max_excursion, o->max_slope);
	if (o->round)
		o->round(o->arg, c->res->rounds, iops, steady);
	if (steady) {
		c->res->steady = true;
		c->stopping = true;
	} else if (time_mono_ns() - c->t0 >= o->max_ns) {
		c->stopping = true;
	} else if (c->res->rounds % PC_JOURNAL_ROUNDS == 0) {
		ret = pc_write_journals(c, false);
		if (ret)
			pc_fail(c, ret);
		(void)pc_turn(c, 0, false); /* a failure is kept in c->ret */
		c->last_done_ns = time_mono_ns();
	}
}

/*
 * Issues, waits, reaps and ends rounds until a stop (steady, time limit,
 * signal, error) has drained every write. Returns early, with writes in
 * flight, only when they cannot be waited for (ring failure, hung device).
 */
static void pc_loop(struct pc *c)
{
	uint64_t now = time_mono_ns(), round_start = now, last_signal = now;
	uint64_t wait;

	c->t0 = c->last_done_ns = now;
	for (;;) {
		for (size_t i = 0; i < c->pl->nr_vols; i++)
			pc_issue_volume(c, &c->vols[i]);
		if (!c->inflight && c->stopping)
			return;
		wait = PC_WAIT_NS;
		if (!c->stopping && round_start + c->o->round_ns - now < wait)
			wait = round_start + c->o->round_ns - now;
		if (!pc_turn(c, wait, true))
			return;
		now = time_mono_ns();
		if (c->inflight && c->p->io_timeout_ns &&
		    now - c->last_done_ns > c->p->io_timeout_ns) {
			struct strbuf d = STRBUF_INIT;

			unit_format_duration(&d, now - c->last_done_ns);
			pc_sep(c->err);
			strbuf_addf(c->err,
				    "precondition: %u write(s) pending and none completed for %s: "
				    "the device does not answer",
				    c->inflight, d.buf);
			strbuf_release(&d);
			pc_fail(c, -ETIMEDOUT);
			return;
		}
		if (now - last_signal >= PC_SIGNAL_NS) {
			last_signal = now;
			pc_check_signal(c);
		}
		if (!c->stopping && now - round_start >= c->o->round_ns) {
			pc_round_end(c, now - round_start);
			now = round_start = time_mono_ns();
		}
	}
}

/* Reads the database's journal and opens its file. 0 or -errno. */
static int pc_open_db(struct pc *c, struct pc_db *d, struct strbuf *err)
{
	const struct plan_db *pdb = d->pdb;
	uint64_t size = pdb->base + pdb->nr_pages * c->p->page_size;
	struct strbuf jerr = STRBUF_INIT;
	struct journal_info ji;
	struct stat st;
	int ret;

	ret = journal_read(&pdb->jloc, &ji, &d->gens, &jerr);
	if (ret == -ENOENT) {
		strbuf_addf(err,
			    "%s: no generation journal: preconditioning must know every page's "
			    "generation; run init without --precondition first",
			    pdb->journal);
		goto out;
	}
	if (ret) {
		strbuf_addf(err, "%s; preconditioning must know every page's generation", jerr.buf);
		goto out;
	}
	if (!journal_info_matches(&ji, pdb->id, c->p->page_size, pdb->nr_pages)) {
		strbuf_addf(err,
			    "%s: journal of database %u with %llu pages of %u bytes, but %s is "
			    "database %u with %llu pages of %u bytes",
			    pdb->journal, ji.db_id, (unsigned long long)ji.nr_pages, ji.page_size,
			    pdb->path, pdb->id, (unsigned long long)pdb->nr_pages, c->p->page_size);
		ret = -EINVAL;
		goto out;
	}
	d->inexact = !(ji.flags & JOURNAL_CLEAN);
	for (uint64_t i = 0; i < pdb->nr_pages; i++)
		if (d->gens[i] & JOURNAL_GEN_LOWER) {
			/* this page's generation is only a lower bound */
			d->gens[i] &= ~JOURNAL_GEN_LOWER;
			d->inexact = true;
		}
	d->busy = calloc((size_t)(pdb->nr_pages + 63) / 64, sizeof(*d->busy));
	if (!d->busy) {
		strbuf_addf(err, "%s: out of memory", pdb->path);
		ret = -ENOMEM;
		goto out;
	}
	/* a block-device region (pdb->base) shares its device with others: no
	 * O_EXCL, as in create.c */
	ret = file_open_checked(pdb->path, O_RDWR | O_NOFOLLOW | (c->p->direct ? O_DIRECT : 0), 0,
				FILE_OPEN_REGULAR | FILE_OPEN_BLOCK, &st, err);
	d->fd = ret >= 0 ? ret : -1;
	if (ret == -EMEDIUMTYPE)
		goto out;
	if (ret == -EINVAL && c->p->direct) {
		strbuf_addf(err,
			    "%s: the filesystem refuses O_DIRECT (tmpfs?); set [engine] direct = "
			    "off to test through the page cache",
			    pdb->path);
		goto out;
	}
	if (ret < 0) {
		strbuf_addf(err, "%s: cannot open: %s", pdb->path, strerror(-ret));
		goto out;
	}
	ret = 0;
	if (S_ISREG(st.st_mode) && (uint64_t)st.st_size < size) {
		strbuf_addf(err, "%s: %llu bytes where the plan has %llu: run init first",
			    pdb->path, (unsigned long long)st.st_size, (unsigned long long)size);
		ret = -EINVAL;
	}
out:
	strbuf_release(&jerr);
	return ret;
}

/* Writes in flight per volume: the depth asked for, at most half the
 * volume's pages, and within the buffer and ring limits shared by all. */
static unsigned pc_volume_slots(const struct pc *c, const struct pc_vol *v)
{
	uint64_t n = c->o->depth;
	uint64_t share = PC_MAX_BUFFER_BYTES / c->p->page_size / c->pl->nr_vols;

	if (share > PC_MAX_SLOTS / c->pl->nr_vols)
		share = PC_MAX_SLOTS / c->pl->nr_vols;
	if (n > share)
		n = share;
	if (n > v->pages / 2)
		n = v->pages / 2;
	return n ? (unsigned)n : 1;
}

/*
 * The io_uring engine over every database file, through the driver, for
 * nslots writes in flight. 0, or -errno with "precondition: needs io_uring,
 * whatever the profile's engine: " and the engine's reason in err.
 */
static int pc_engine(struct pc *c, unsigned nslots, struct strbuf *err)
{
	struct strbuf why = STRBUF_INIT;
	int ret;

	c->fds = calloc(c->pl->nr_dbs, sizeof(*c->fds));
	if (!c->fds) {
		strbuf_addstr(err, "precondition: out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < c->pl->nr_dbs; i++)
		c->fds[i] = c->dbs[i].fd;
	engine_clock_init_mono(&c->clock);
	c->ctx = (struct engine_ctx){.depth = nslots,
				     .fds = c->fds,
				     .nr_files = (unsigned)c->pl->nr_dbs,
				     .nr_devices = (unsigned)c->pl->nr_vols,
				     .clock = &c->clock};
	ret = engine_drv_init(&c->drv, &engine_io_uring, &c->ctx, nslots, pc_write_done, c, &why);
	c->drv.max_again = ENGINE_DRV_AGAIN_MAX; /* then the write fails, naming EAGAIN */
	if (!ret)
		ret = engine_drv_open(&c->drv, &why);
	if (ret)
		strbuf_addf(err, "precondition: needs io_uring, whatever the profile's engine: %s",
			    why.buf);
	strbuf_release(&why);
	return ret;
}

/* Journals, files, the page-picking tables and the write slots. */
static int pc_setup(struct pc *c, struct strbuf *err)
{
	const struct plan *pl = c->pl;
	uint32_t align = 4096;
	unsigned s = 0;
	size_t ci = 0;
	int ret;

	c->dbs = calloc(pl->nr_dbs, sizeof(*c->dbs));
	c->vols = calloc(pl->nr_vols, sizeof(*c->vols));
	c->cum = calloc(pl->nr_dbs + pl->nr_vols, sizeof(*c->cum));
	c->win = calloc(c->o->window, sizeof(*c->win));
	if (!c->dbs || !c->vols || !c->cum || !c->win)
		goto out_nomem;
	for (size_t i = 0; i < pl->nr_dbs; i++)
		c->dbs[i] = (struct pc_db){.pdb = &pl->dbs[i], .fd = -1};
	for (size_t i = 0; i < pl->nr_dbs; i++) {
		ret = pc_open_db(c, &c->dbs[i], err);
		if (ret)
			return ret;
	}
	for (size_t i = 0; i < pl->nr_vols; i++) {
		const struct plan_volume *pv = &pl->vols[i];
		struct pc_vol *v = &c->vols[i];

		v->dbs = &c->dbs[pv->first_db];
		v->ndbs = pv->nr_dbs;
		v->cum = &c->cum[ci];
		ci += pv->nr_dbs + 1;
		for (unsigned k = 0; k < v->ndbs; k++)
			v->cum[k + 1] = v->cum[k] + v->dbs[k].pdb->nr_pages;
		v->pages = v->cum[v->ndbs];
		v->nslots = v->pages ? pc_volume_slots(c, v) : 0;
		s += v->nslots;
		if (pv->align > align)
			align = pv->align;
	}
	c->slots = calloc(s, sizeof(*c->slots));
	c->idle = calloc(s, sizeof(*c->idle));
	if (!c->slots || !c->idle || posix_memalign(&c->bufs, align, (size_t)s * c->p->page_size))
		goto out_nomem;
	s = 0;
	for (size_t i = 0; i < pl->nr_vols; i++) {
		struct pc_vol *v = &c->vols[i];

		v->slots = &c->slots[s];
		v->idle = &c->idle[s];
		for (unsigned k = 0; k < v->nslots; k++) {
			v->slots[k].buf = (char *)c->bufs + (size_t)(s + k) * c->p->page_size;
			v->slots[k].vol = v;
			v->idle[v->nidle++] = k;
		}
		s += v->nslots;
	}
	return pc_engine(c, s, err);

out_nomem:
	strbuf_addstr(err, "precondition: out of memory");
	return -ENOMEM;
}

/*
 * Before the first write: every journal marked in progress, so that a crash
 * at any instant (even kill -9) leaves lower bounds, never a clean journal
 * older than the pages.
 */
static int pc_mark_running(struct pc *c, struct strbuf *err)
{
	for (size_t i = 0; i < c->pl->nr_dbs; i++) {
		int ret = journal_mark_running(&c->pl->dbs[i].jloc, 0, err);

		if (ret) {
			strbuf_addstr(err, "; preconditioning needs a journal it can update");
			return ret;
		}
	}
	return 0;
}

/* Frees what pc_setup() made; safe on a partial setup. */
static void pc_release(struct pc *c)
{
	if (engine_drv_inflight(&c->drv)) {
		/* writes the device never completed (io_timeout): closing the
		 * ring may wait for them, and they may still land in the
		 * buffers: leave engine, files and buffers to the process exit,
		 * as a run's worker does, so that the error is said now */
		return;
	}
	engine_drv_release(&c->drv);
	free(c->fds);
	for (size_t i = 0; c->dbs && i < c->pl->nr_dbs; i++) {
		if (c->dbs[i].fd >= 0)
			close(c->dbs[i].fd);
		free(c->dbs[i].gens);
		free(c->dbs[i].busy);
	}
	free(c->bufs);
	free(c->idle);
	free(c->slots);
	free(c->win);
	free(c->cum);
	free(c->vols);
	free(c->dbs);
}

int precondition_run(const struct plan *pl, const struct profile *p,
		     const struct precondition_options *o, struct precondition_result *res,
		     struct strbuf *err)
{
	struct pc c = {.pl = pl, .p = p, .o = o, .res = res, .err = err};
	double sum = 0;
	int ret;

	memset(res, 0, sizeof(*res));
	ret = pc_check_options(pl, o, err);
	if (ret)
		return ret;
	c.rng = p->seed ^ 0x707265636f6e64ULL; /* "precond": not the workload's stream */
	ret = pc_setup(&c, err);
	if (!ret)
		ret = pc_mark_running(&c, err);
	if (ret)
		goto out_release;
	pc_loop(&c);
	/* writes still in flight (ring failure) leave it unclean; after a hung
	 * device (io_timeout) nothing more is written: the journals stay marked
	 * running, as a run's after a hang, and the error is said now rather
	 * than after a journal write that may hang on the same device */
	if (c.ret != -ETIMEDOUT) {
		ret = pc_write_journals(&c, true);
		if (!c.ret)
			c.ret = ret;
	}
	res->elapsed_ns = time_mono_ns() - c.t0;
	for (unsigned i = 0; i < c.nwin; i++)
		sum += c.win[i];
	res->final_iops = c.nwin ? sum / c.nwin : 0;
	ret = c.ret;
	if (!ret && res->interrupted) {
		ret = -EINTR;
		strbuf_addf(err,
			    "precondition: interrupted by %s after %u round(s); written pages are "
			    "in the journals",
			    res->signo == SIGINT    ? "SIGINT"
			    : res->signo == SIGTERM ? "SIGTERM"
						    : "a signal",
			    res->rounds);
	}
out_release:
	pc_release(&c);
	return ret;
}
