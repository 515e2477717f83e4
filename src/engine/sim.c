/* SPDX-License-Identifier: MIT */
/*
 * sim.c - the simulated engine: one device model per simulated device (a
 * volume's data device, and a log device per distinct log path apart from
 * the data) on a virtual clock. It moves no data and touches no files.
 *
 * Device model (struct engine_sim_model, which a run fills from the [sim]
 * section with [sim NAME] and [sim-log NAME] over it:
 * ctx->dev_sims): each I/O class has a base latency spread uniformly by
 * +-jitter %. A device serves at most saturation_iops I/Os per second: every
 * I/O holds the device for 1/saturation_iops s, so when requests arrive
 * faster they queue and their latency grows by the wait (a closed loop of N
 * streams settles at N / saturation_iops s per I/O). With transfer_rate an
 * I/O of len bytes holds the device len / transfer_rate s more and its
 * latency grows by as much:
 *     start = max(queued, device free)        (= queued without a hold)
 *     hold  = 1 / saturation_iops + len / transfer_rate   (each term 0 when off)
 *     done  = start + latency x (1 +- jitter) + len / transfer_rate
 *             [+ stall_latency when start is in a stall] [+ spike_latency]
 * A stall is a window of stall_length every stall_period of virtual time
 * from 0 (a write cache destaging): an I/O the device starts inside it takes
 * stall_latency longer; it does not hold the device longer, so the stall
 * shows as latency, and as fewer I/Os from closed-loop streams. A share
 * latency_drift adds that much latency per second of virtual time since the
 * device opened, for latency_drift_time (0: for ever). A share
 * error_rate of I/Os fails with EIO; a share drop_write_rate of page writes is
 * acknowledged but not kept; a share hang_rate never completes. Every
 * spike_every-th I/O queued (counted over all devices) takes spike_latency
 * longer when its device's model has spikes. Size, stalls and spikes draw no
 * random number, so a run without them draws what it always did.
 *
 * Run to run: real runs with identical settings differ by several percent
 * (a disk's background work, its cache, the host), which is what compare
 * must tell a change from. run_spread gives a run that variation: every
 * class latency of a run (with drift and jitter) is multiplied by one factor
 * 1 + run_spread x z, z uniform in [-1, 1) (runs within +-run_spread of the
 * device's level, standard deviation run_spread / sqrt 3), drawn from the
 * seed alone by a splitmix64 sequence of its own (run_scale_z). One z serves every device of
 * the run, each scaled by its own run_spread; the I/O sequence draws nothing
 * more, so run_spread = 0 gives the run it always did, bit for bit.
 *
 * Integrity: for files with a block size (database files) the engine keeps
 * each block's last written generation, read from the header the runner
 * stamped into the write buffer; a dropped write keeps the old generation, and
 * a read stamps a header with the kept generation into the buffer, so the
 * run's page checks work here as on real pages. Never-written blocks read as
 * generation 1 (what init writes). A page write that fails (error_rate)
 * leaves its pages undefined, as a real one may (partly written, torn):
 * until written again they read back with no header at all (zeros).
 *
 * Write cache and power cut (write_cache, lie_window, cut_at; the model of
 * each write's device): with a cache model each block also keeps what it
 * would hold after a power cut at cut_at (0: never; then the end of the
 * run), decided when the write is queued, since its completion time is
 * known then. A write is flushed when it is write-through (ENGINE_RF_DSYNC:
 * its completion is the durability point) and completes by the cut:
 *     honest   a flushed write survives; any other (not flushed, or still
 *              in flight at the cut) leaves the block as it was
 *     lying    as honest, but a flushed write that completed within
 *              lie_window before the cut is lost too (acknowledged, not kept)
 *     tearing  as honest, and a block whose write was in flight at the cut
 *              (queued before it, completing after) survives torn: a mix of
 *              its old and new sectors (ENGINE_SIM_TORN)
 * A dropped write (drop_write_rate) changes nothing there either. The run
 * reads the survivors with engine_sim_survivors() and keeps them where
 * verify reads them; reads during the run still see the last write.
 *
 * Time: completions sit in a min-heap by completion time; reap pops the
 * earliest and moves the virtual clock to it. Same seed, same sequence.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diskproof/engine.h"
#include "diskproof/page.h"
#include "diskproof/stats.h"

#include "../util/rng.h"

struct sim_device {
	uint64_t free_at_ns;
	uint64_t service_ns;		  /* device time per I/O; 0 = unlimited */
	const struct engine_sim_model *m; /* NULL without a model (latency 0) */
	double run_scale;		  /* this run's latency factor (run_spread); 1 */
};

struct sim_file {
	uint32_t *gens; /* per block; 0 = initial (generation 1) */
	/* with a write cache model: per block, what a cut leaves (gen |
	 * ENGINE_SIM_TORN); NULL without one */
	uint32_t *cut;
	uint64_t nr_blocks;
};

struct sim_priv {
	struct engine_req **heap;
	unsigned nr, cap;
	uint64_t seq;
	uint64_t counted; /* the I/Os spike_every counts: all but a log write's flushes */
	uint64_t rng;
	struct sim_device *devs;
	struct sim_file *files;
	unsigned nr_files;
};

static void sim_cleanup(struct engine_ctx *ctx)
{
	struct sim_priv *p = ctx->priv;

	if (!p)
		return;
	for (unsigned i = 0; i < p->nr_files; i++) {
		free(p->files[i].gens);
		free(p->files[i].cut);
	}
	free(p->files);
	free(p->devs);
	free(p->heap);
	free(p);
	ctx->priv = NULL;
}

/* The run's draw for run_spread, uniform in [-1, 1): the first draw of a
 * splitmix64 sequence seeded by [sim] seed alone (not the I/O's sequence,
 * which it leaves as it was; not the worker's seed, so every device and
 * auto-tune level of a run shares it). */
static double run_scale_z(uint64_t seed)
{
	uint64_t x = seed ^ 0x72756e5f73707264ULL; /* "run_sprd": apart from the I/O's */

	return 2.0 * rng_splitmix_unit(&x) - 1.0;
}

static int sim_init(struct engine_ctx *ctx, struct strbuf *err)
{
	double z;

	struct sim_priv *p = calloc(1, sizeof(*p));

	if (!p)
		goto out_nomem;
	ctx->priv = p;
	p->cap = ctx->depth ? ctx->depth : 1;
	p->heap = calloc(p->cap, sizeof(*p->heap));
	p->devs = calloc(ctx->nr_devices ? ctx->nr_devices : 1, sizeof(*p->devs));
	if (!p->heap || !p->devs)
		goto out_nomem;
	p->rng = ctx->sim ? ctx->sim->seed : 1;
	p->rng ^= ctx->seed * 0x2545f4914f6cdd1dULL;
	z = run_scale_z(ctx->sim ? ctx->sim->seed : 1);
	for (unsigned i = 0; i < (ctx->nr_devices ? ctx->nr_devices : 1); i++) {
		struct sim_device *d = &p->devs[i];

		d->m = ctx->dev_sims && i < ctx->nr_devices ? &ctx->dev_sims[i] : ctx->sim;
		if (d->m && d->m->saturation_iops)
			d->service_ns = NSEC_PER_SEC / d->m->saturation_iops;
		d->run_scale = d->m && d->m->run_spread_pct > 0
				       ? 1.0 + d->m->run_spread_pct / 100.0 * z
				       : 1.0;
	}
	if (ctx->clock)
		ctx->clock->virtual_ns = 0;
	return 0;
out_nomem:
	sim_cleanup(ctx);
	strbuf_addstr(err, "sim engine: out of memory");
	return -ENOMEM;
}

/* The model of file f's device. */
static const struct engine_sim_model *sim_file_model(const struct engine_ctx *ctx,
						     const struct engine_file *f)
{
	if (ctx->dev_sims && f->device < ctx->nr_devices)
		return &ctx->dev_sims[f->device];
	return ctx->sim;
}

/* Whether file f's device has a write cache model. */
static bool sim_cache_model(const struct engine_ctx *ctx, const struct engine_file *f)
{
	const struct engine_sim_model *m = sim_file_model(ctx, f);

	return m && m->write_cache != ENGINE_SIM_CACHE_NONE;
}

static int sim_open(struct engine_ctx *ctx, struct strbuf *err)
{
	struct sim_priv *p = ctx->priv;

	p->files = calloc(ctx->nr_files ? ctx->nr_files : 1, sizeof(*p->files));
	if (!p->files)
		goto out_nomem;
	p->nr_files = ctx->nr_files;
	for (unsigned i = 0; i < ctx->nr_files; i++) {
		const struct engine_file *f = &ctx->files[i];

		if (!f->block)
			continue;
		p->files[i].nr_blocks = f->size / f->block;
		p->files[i].gens = calloc(p->files[i].nr_blocks, sizeof(uint32_t));
		if (!p->files[i].gens)
			goto out_nomem;
		if (!sim_cache_model(ctx, f))
			continue;
		p->files[i].cut = calloc(p->files[i].nr_blocks, sizeof(uint32_t));
		if (!p->files[i].cut)
			goto out_nomem;
	}
	snprintf(ctx->notes, sizeof(ctx->notes), "virtual time, %u simulated device(s)",
		 ctx->nr_devices);
	return 0;
out_nomem:
	strbuf_addstr(err, "sim engine: out of memory for the generation maps");
	return -ENOMEM;
}

static bool heap_less(const struct engine_req *a, const struct engine_req *b)
{
	if (a->t_done_ns != b->t_done_ns)
		return a->t_done_ns < b->t_done_ns;
	return a->engine_seq < b->engine_seq;
}

static void heap_push(struct sim_priv *p, struct engine_req *r)
{
	unsigned i = p->nr++;

	while (i) {
		unsigned parent = (i - 1) / 2;

		if (!heap_less(r, p->heap[parent]))
			break;
		p->heap[i] = p->heap[parent];
		i = parent;
	}
	p->heap[i] = r;
}

static struct engine_req *heap_pop(struct sim_priv *p)
{
	struct engine_req *top = p->heap[0], *last = p->heap[--p->nr];
	unsigned i = 0;

	for (;;) {
		unsigned l = 2 * i + 1, r = l + 1, m = i;
		const struct engine_req *mv = last;

		if (l < p->nr && heap_less(p->heap[l], mv)) {
			m = l;
			mv = p->heap[l];
		}
		if (r < p->nr && heap_less(p->heap[r], mv))
			m = r;
		if (m == i)
			break;
		p->heap[i] = p->heap[m];
		i = m;
	}
	if (p->nr)
		p->heap[i] = last;
	return top;
}

static uint64_t sim_latency(struct engine_ctx *ctx, struct sim_priv *p, const struct sim_device *d,
			    unsigned cls)
{
	const struct engine_sim_model *s = d->m;
	uint64_t base;
	double j;

	if (!s)
		return 0;
	switch (cls) {
	case IO_DB_READ:
	case IO_BDM_READ:
	case IO_LOG_READ:
	case IO_BACKUP_READ:
		base = s->read_latency_ns;
		break;
	case IO_LOG_WRITE:
		base = s->log_write_latency_ns;
		break;
	default:
		base = s->write_latency_ns;
		break;
	}
	if (s->drift_ns) {
		/* latency_drift: a transient (for drift_time) or a device that
		 * degrades (for ever) from the time the device opened */
		uint64_t t = ctx->clock ? ctx->clock->virtual_ns : 0;

		if (s->drift_time_ns && t > s->drift_time_ns)
			t = s->drift_time_ns;
		base += (uint64_t)((double)s->drift_ns * ((double)t / 1e9));
	}
	j = s->jitter_pct / 100.0 * (2.0 * rng_splitmix_unit(&p->rng) - 1.0);
	if (d->run_scale != 1.0)
		return (uint64_t)((double)base * (1.0 + j) * d->run_scale);
	return (uint64_t)((double)base * (1.0 + j));
}

/* a block whose last write failed: what it holds is undefined (read back
 * as zeros); generations stay below it */
#define SIM_GEN_TORN 0x80000000u

/* A failed write of a database file: every page it spans undefined. */
static void sim_torn(struct engine_ctx *ctx, struct sim_priv *p, const struct engine_req *r)
{
	struct sim_file *f = &p->files[r->file];
	uint32_t bs = ctx->files[r->file].block;

	if (r->op != ENGINE_OP_WRITE || !f->gens || r->len < PAGE_HEADER_SIZE)
		return;
	for (uint64_t blk = r->offset / bs, o = 0; o + bs <= r->len && blk < f->nr_blocks;
	     o += bs, blk++)
		f->gens[blk] |= SIM_GEN_TORN;
}

/*
 * What block *cut holds after the power cut once this write (generation gen,
 * its completion at r->t_done_ns) is queued now: see "Write cache and power
 * cut" above.
 */
static void sim_cut_write(const struct engine_ctx *ctx, const struct engine_sim_model *m,
			  const struct engine_req *r, uint32_t *cut, uint32_t gen)
{
	uint64_t at = m->cut_at_ns ? m->cut_at_ns : UINT64_MAX, now = ctx->clock->virtual_ns;
	bool flushed = (r->flags & ENGINE_RF_DSYNC) && r->t_done_ns <= at;

	if (now >= at)
		return; /* after the cut: never reached the device */
	if (r->t_done_ns > at) {
		/* in flight at the cut */
		if (m->write_cache == ENGINE_SIM_CACHE_TEARING)
			*cut = (*cut & ENGINE_SIM_GEN_MASK) | ENGINE_SIM_TORN;
		return;
	}
	if (!flushed)
		return; /* held in the volatile cache: lost */
	if (m->write_cache == ENGINE_SIM_CACHE_LYING && at - r->t_done_ns < m->lie_window_ns)
		return; /* acknowledged as flushed, not kept */
	*cut = gen & ENGINE_SIM_GEN_MASK;
}

int engine_sim_survivors(const struct engine_ctx *ctx, unsigned f, uint32_t *out, uint64_t n)
{
	const struct sim_priv *p = ctx->priv;

	if (!p || f >= p->nr_files || !p->files[f].cut || n > p->files[f].nr_blocks)
		return -EINVAL;
	memcpy(out, p->files[f].cut, n * sizeof(*out));
	return 0;
}

static void sim_data(struct engine_ctx *ctx, struct sim_priv *p, const struct engine_sim_model *s,
		     struct engine_req *r)
{
	struct sim_file *f = &p->files[r->file];
	const struct engine_file *ef = &ctx->files[r->file];
	uint64_t blk;
	struct page_header h;

	if (!f->gens || r->len < PAGE_HEADER_SIZE)
		return;
	blk = r->offset / ef->block;
	if (blk >= f->nr_blocks)
		return;
	if (r->op == ENGINE_OP_WRITE) {
		if (s && rng_splitmix_unit(&p->rng) * 100.0 < s->drop_write_rate_pct)
			return; /* acknowledged, not kept */
		/* every page it spans (a merged write holds several) */
		for (uint64_t o = 0; o + ef->block <= r->len && blk < f->nr_blocks;
		     o += ef->block, blk++) {
			memcpy(&h, (const char *)r->buf + o, sizeof(h));
			f->gens[blk] = (uint32_t)h.generation;
			if (f->cut && s)
				sim_cut_write(ctx, s, r, &f->cut[blk], (uint32_t)h.generation);
		}
		return;
	}
	/* every page a read spans gets its header (none where a write failed) */
	for (uint64_t o = 0; o + ef->block <= r->len && blk < f->nr_blocks; o += ef->block, blk++)
		if (f->gens[blk] & SIM_GEN_TORN)
			memset((char *)r->buf + o, 0, PAGE_HEADER_SIZE);
		else
			page_stamp((char *)r->buf + o, ef->block, PAGE_KIND_DB, ef->tag, blk,
				   f->gens[blk] ? f->gens[blk] : 1, 0, 0, false);
}

/* len / transfer_rate in ns; 0 without a rate. */
static uint64_t sim_transfer_ns(const struct engine_sim_model *m, uint32_t len)
{
	if (!m || !m->transfer_rate)
		return 0;
	return (uint64_t)((double)len * 1e9 / (double)m->transfer_rate);
}

/* stall_latency when start falls in a stall window, else 0. */
static uint64_t sim_stall_ns(const struct engine_sim_model *m, uint64_t start)
{
	if (!m || !m->stall_period_ns || !m->stall_latency_ns)
		return 0;
	return start % m->stall_period_ns < m->stall_length_ns ? m->stall_latency_ns : 0;
}

static int sim_queue(struct engine_ctx *ctx, struct engine_req *r)
{
	struct sim_priv *p = ctx->priv;
	uint64_t now = ctx->clock->virtual_ns, start = now, xfer;
	const struct engine_sim_model *m;
	struct sim_device *d;

	if (p->nr == p->cap)
		return ENGINE_Q_BUSY;
	if (r->file >= ctx->nr_files || r->offset + r->len > ctx->files[r->file].size) {
		r->result = -EINVAL;
		r->t_done_ns = now;
		return ENGINE_Q_COMPLETED;
	}
	if (r->op == ENGINE_OP_FSYNC && r->cls == IO_LOG_WRITE) {
		/* a log write's flush (log_sync = fdatasync): the pair is one log
		 * write, its time until durable log_write_latency, and its device
		 * time, stall, spike, error and hang the write's: the flush takes
		 * none of its own, done as it is queued */
		r->t_submit_ns = r->t_done_ns = now;
		r->result = 0;
		r->engine_seq = p->seq++;
		heap_push(p, r);
		return ENGINE_Q_QUEUED;
	}
	d = &p->devs[ctx->files[r->file].device % (ctx->nr_devices ? ctx->nr_devices : 1)];
	m = d->m;
	xfer = sim_transfer_ns(m, r->len);
	if (d->service_ns || xfer) {
		if (d->free_at_ns > start)
			start = d->free_at_ns;
		d->free_at_ns = start + d->service_ns + xfer;
	}
	r->t_submit_ns = now;
	r->t_done_ns = start + sim_latency(ctx, p, d, r->cls) + xfer + sim_stall_ns(m, start);
	p->counted++;
	if (m && m->spike_every && p->counted % m->spike_every == 0)
		r->t_done_ns += m->spike_latency_ns; /* a single slow I/O */
	if (m && m->error_rate_pct > 0 && rng_splitmix_unit(&p->rng) * 100.0 < m->error_rate_pct) {
		r->result = -EIO;
		sim_torn(ctx, p, r);
	} else {
		r->result = r->len;
		sim_data(ctx, p, m, r);
	}
	r->engine_seq = p->seq++;
	if (m && m->hang_rate_pct > 0 && rng_splitmix_unit(&p->rng) * 100.0 < m->hang_rate_pct)
		return ENGINE_Q_QUEUED; /* hung: it never completes */
	heap_push(p, r);
	return ENGINE_Q_QUEUED;
}

static int sim_commit(struct engine_ctx *ctx)
{
	return 0;
}

static int sim_reap(struct engine_ctx *ctx, struct engine_req **out, unsigned max, uint64_t wait_ns)
{
	struct sim_priv *p = ctx->priv;
	unsigned n = 0;
	uint64_t t;

	if (!p->nr) {
		ctx->clock->virtual_ns += wait_ns;
		return 0;
	}
	t = p->heap[0]->t_done_ns;
	if (t > ctx->clock->virtual_ns) {
		if (!wait_ns)
			return 0;
		if (t > ctx->clock->virtual_ns + wait_ns) {
			ctx->clock->virtual_ns += wait_ns;
			return 0;
		}
		ctx->clock->virtual_ns = t;
	}
	while (n < max && p->nr && p->heap[0]->t_done_ns <= ctx->clock->virtual_ns)
		out[n++] = heap_pop(p);
	return (int)n;
}

static void sim_close(struct engine_ctx *ctx)
{
	struct sim_priv *p = ctx->priv;

	if (!p)
		return;
	for (unsigned i = 0; i < p->nr_files; i++) {
		free(p->files[i].gens);
		p->files[i].gens = NULL;
	}
}

const struct engine_ops engine_sim = {
	.name = "sim",
	.flags = ENGINE_F_OWN_CLOCK | ENGINE_F_NO_FILES,
	.init = sim_init,
	.open = sim_open,
	.queue = sim_queue,
	.commit = sim_commit,
	.reap = sim_reap,
	.close = sim_close,
	.cleanup = sim_cleanup,
};
