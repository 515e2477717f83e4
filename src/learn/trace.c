/* SPDX-License-Identifier: MIT */
/*
 * trace.c - the BPF tracing source of a fingerprint (trace.h): loads
 * blockio.bpf.c's skeleton, fills its device filter, attaches it to the
 * block layer's tracepoints (tp_btf, raw_tp where tp_btf does not attach),
 * and at the window's end reads the kernel's counts back into each role's
 * struct learn_trace_role; then the arithmetic of the figures (pure) and
 * the role's "trace" JSON.
 *
 * Without DISKPROOF_HAVE_BPF (libbpf, clang or bpftool missing at build
 * time) the source says it is not built and the rest works the same.
 *
 * Derived figures (learn_trace_derive), each from the window's counts:
 *   sequential %   reads and writes starting at the sector where the
 *                  device's previous read or write ended, of all of them;
 *   working set    distinct 1 MiB regions read or written (a bounded hash
 *                  in the kernel: BLOCKIO_REGIONS_MAX regions; I/Os beyond
 *                  are counted as dropped and the figure is then a floor);
 *   hot 10 %       the I/Os of the ceil(10 %) most used regions touched,
 *                  over all I/Os kept;
 *   gap CV         sqrt(E[g^2] - E[g]^2) / E[g] of the gaps g (us) between
 *                  consecutive issues of the role: 1 for Poisson arrivals,
 *                  0 for a metronome, above 1 for bursts;
 *   dispersion     variance / mean of the issues per 100 ms slot over the
 *                  window's whole slots: 1 for Poisson, above for bursts
 *                  at the 100 ms scale;
 *   depth at write the role's requests in flight when a write was issued,
 *                  on average (a flusher's or the kernel's write-back
 *                  depth: the requests it keeps queued);
 *   write bursts   runs of 100 ms slots with at least 4 times the mean
 *                  writes a slot: their share of the writes, the time
 *                  from one's start to the next's (a page cleaner's or the
 *                  kernel's write-back pass), and in a burst's fullest
 *                  slot its writes and the writes in flight, time-averaged
 *                  (their service times over the slot: Little's law).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diskproof/json.h"
#include "diskproof/trace.h"

#include "blockio.h"

/* ---- the arithmetic ---- */

static int cmp_desc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? 1 : x > y ? -1 : 0;
}

void learn_trace_derive(struct learn_trace_role *t, uint64_t *region_ios, size_t nregions,
			const uint32_t *slot_issues, size_t nslots, double gap_us, double gap_us2)
{
	double sum = 0, hot = 0, mean, var = 0;
	size_t k = (nregions + 9) / 10;

	if (nregions)
		qsort(region_ios, nregions, sizeof(*region_ios), cmp_desc);
	for (size_t i = 0; i < nregions; i++) {
		sum += (double)region_ios[i];
		if (i < k)
			hot += (double)region_ios[i];
	}
	t->regions = nregions;
	t->hot_fraction = sum > 0 ? hot / sum : NAN;
	mean = t->gaps ? gap_us / (double)t->gaps : 0;
	if (t->gaps && mean > 0) {
		var = gap_us2 / (double)t->gaps - mean * mean;
		t->gap_cv = sqrt(var > 0 ? var : 0) / mean;
	} else {
		t->gap_cv = NAN;
	}
	t->slots = nslots;
	sum = var = 0;
	for (size_t i = 0; i < nslots; i++)
		sum += slot_issues[i];
	mean = nslots ? sum / (double)nslots : 0;
	for (size_t i = 0; i < nslots; i++)
		var += ((double)slot_issues[i] - mean) * ((double)slot_issues[i] - mean);
	t->dispersion = mean > 0 ? var / (double)nslots / mean : NAN;
}

void learn_trace_bursts(struct learn_trace_role *t, const uint32_t *w, const uint64_t *svc,
			size_t nslots)
{
	double sum = 0, in = 0, mean, cut, peaks = 0, peak = 0, depths = 0, depth = 0;
	size_t first = 0, last = 0;
	bool inside = false;

	t->bursts = 0;
	t->burst_share = t->burst_interval_s = t->burst_peak = t->burst_depth = NAN;
	for (size_t i = 0; i < nslots; i++)
		sum += w[i];
	if (!(sum > 0))
		return;
	mean = sum / (double)nslots;
	cut = fmax(LEARN_BURST_FACTOR * mean, LEARN_BURST_MIN);
	for (size_t i = 0; i < nslots; i++) {
		bool hot = (double)w[i] >= cut;

		if (hot) {
			in += w[i];
			if (!inside) {
				if (!t->bursts++)
					first = i;
				last = i;
				peaks += peak, peak = 0;
				depths += depth, depth = 0;
			}
			if (w[i] > peak) {
				peak = w[i];
				depth = svc ? (double)svc[i] / BLOCKIO_SLOT_NS : 0;
			}
		}
		inside = hot;
	}
	peaks += peak, depths += depth;
	t->burst_share = in / sum;
	if (t->bursts)
		t->burst_peak = peaks / (double)t->bursts;
	if (t->bursts && svc)
		t->burst_depth = depths / (double)t->bursts;
	if (t->bursts >= 2)
		t->burst_interval_s =
			(double)(last - first) * BLOCKIO_SLOT_NS / 1e9 / (double)(t->bursts - 1);
}

static void acc_region(struct learn_trace_acc *acc, uint64_t sector)
{
	uint64_t region = sector >> BLOCKIO_REGION_SHIFT;

	for (size_t i = 0; i < acc->nregions; i++)
		if (acc->regions[i][0] == region) {
			acc->regions[i][1]++;
			return;
		}
	if (acc->nregions == acc->nregions_max) {
		acc->t->regions_dropped++;
		return;
	}
	acc->regions[acc->nregions][0] = region;
	acc->regions[acc->nregions++][1] = 1;
}

/* Mirrors blockio.bpf.c's on_issue and on_complete for one request. */
void learn_trace_account(struct learn_trace_acc *acc, const struct learn_trace_event *ev)
{
	struct learn_trace_role *t = acc->t;
	uint32_t op = blockio_op_of(ev->cmd_flags), f = ev->cmd_flags;
	unsigned d = ev->dev % 8;
	uint64_t slot = ev->issue_ns / BLOCKIO_SLOT_NS;

	t->present = true;
	t->ops[op]++;
	t->bytes[op] += ev->bytes;
	/* the requests still in flight at this one's issue */
	for (size_t i = 0; i < acc->npending;)
		if (acc->pending[i] <= ev->issue_ns)
			acc->pending[i] = acc->pending[--acc->npending];
		else
			i++;
	t->depth_known = true;
	if (op == BLOCKIO_READ || op == BLOCKIO_WRITE) {
		t->depth_sum[op] += acc->npending;
		t->sizes[op][blockio_log2(ev->bytes)]++;
		if (acc->last_op[d] && ev->sector == acc->last_end[d])
			t->sequential++;
		acc->last_end[d] = ev->sector + ev->bytes / 512;
		acc_region(acc, ev->sector);
	}
	if (op == BLOCKIO_WRITE) {
		t->fua_writes += !!(f & BLOCKIO_REQ_FUA);
		t->preflush_writes += !!(f & BLOCKIO_REQ_PREFLUSH);
		t->sync_writes += !!(f & BLOCKIO_REQ_SYNC);
	}
	t->meta_ios += !!(f & BLOCKIO_REQ_META);
	if (op == BLOCKIO_FLUSH && acc->last_op[d] == BLOCKIO_WRITE + 1)
		t->flush_after_write++;
	acc->last_op[d] = op + 1;
	/* last_issue: the previous issue's time + 1, 0 before the first */
	if (acc->last_issue && ev->issue_ns + 1 > acc->last_issue) {
		double g = (double)((ev->issue_ns + 1 - acc->last_issue) / 1000);

		t->gaps++;
		acc->gap_us += g;
		acc->gap_us2 += g * g;
	}
	acc->last_issue = ev->issue_ns + 1;
	if (slot < acc->nslots)
		acc->slots[slot]++;
	if (slot < acc->nslots && acc->wslots && op == BLOCKIO_WRITE)
		acc->wslots[slot]++;
	if (slot < acc->nslots && acc->wsvc && op == BLOCKIO_WRITE &&
	    ev->complete_ns > ev->issue_ns)
		acc->wsvc[slot] += ev->complete_ns - ev->issue_ns;
	if (ev->complete_ns > ev->issue_ns && acc->npending < DP_ARRAY_SIZE(acc->pending))
		acc->pending[acc->npending++] = ev->complete_ns;
	if (ev->complete_ns > ev->issue_ns) {
		uint64_t ns = ev->complete_ns - ev->issue_ns;

		t->completed[op]++;
		t->service_ns[op] += ns;
		t->service[op][blockio_log2(ns / 1000)]++;
	}
}

/* ---- figures ---- */

enum tfig {
	TF_READS_PS,
	TF_WRITES_PS,
	TF_FLUSHES_PS,
	TF_READ_MODE,
	TF_WRITE_MODE,
	TF_READ_SVC,
	TF_WRITE_SVC,
	TF_FLUSH_SVC,
	TF_SEQ,
	TF_WSET,
	TF_HOT,
	TF_GAP_CV,
	TF_DISP,
	TF_FUA,
	TF_FLUSH_PER_WRITE,
	TF_FLUSH_AFTER_WRITE,
	TF_WRITE_DEPTH,
	TF_BURST_SHARE,
	TF_BURST_INTERVAL,
};

#define TROW(role, kind, label, key, dec)                                                          \
	{                                                                                          \
		role " " label, role ".trace." key, kind, dec                                      \
	}

static const struct tfig_def {
	const char *label, *key;
	enum tfig kind;
	int decimals;
} tfig_defs[LEARN_ROLES][LEARN_TRACE_FIGURES] = {
#define TROWS(role)                                                                                \
	{                                                                                          \
		TROW(role, TF_READS_PS, "traced reads/s", "reads_per_s", 1),                       \
			TROW(role, TF_WRITES_PS, "traced writes/s", "writes_per_s", 1),            \
			TROW(role, TF_FLUSHES_PS, "traced flush/s", "flushes_per_s", 2),           \
			TROW(role, TF_READ_MODE, "read mode KiB", "read_size_mode_kib", 1),        \
			TROW(role, TF_WRITE_MODE, "write mode KiB", "write_size_mode_kib", 1),     \
			TROW(role, TF_READ_SVC, "read svc ms", "read_service_ms", 3),              \
			TROW(role, TF_WRITE_SVC, "write svc ms", "write_service_ms", 3),           \
			TROW(role, TF_FLUSH_SVC, "flush svc ms", "flush_service_ms", 3),           \
			TROW(role, TF_SEQ, "sequential %", "sequential_pct", 1),                   \
			TROW(role, TF_WSET, "working set MiB", "working_set_mib", 0),              \
			TROW(role, TF_HOT, "hot 10% I/O %", "hot_10pct_share_pct", 1),             \
			TROW(role, TF_GAP_CV, "issue gap CV", "gap_cv", 2),                        \
			TROW(role, TF_DISP, "disp. /100 ms", "dispersion_100ms", 2),               \
			TROW(role, TF_FUA, "FUA writes %", "fua_writes_pct", 1),                   \
			TROW(role, TF_FLUSH_PER_WRITE, "flushes/write", "flushes_per_write", 3),   \
			TROW(role, TF_FLUSH_AFTER_WRITE, "flush after wr %",                       \
			     "flush_after_write_pct", 1),                                          \
			TROW(role, TF_WRITE_DEPTH, "depth at write", "write_depth", 2),            \
			TROW(role, TF_BURST_SHARE, "writes in bursts %", "burst_share_pct", 1),    \
			TROW(role, TF_BURST_INTERVAL, "burst every s", "burst_interval_s", 2),     \
	}
	TROWS("data"),
	TROWS("log"),
#undef TROWS
};

static double div0(double a, double b)
{
	return b > 0 ? a / b : NAN;
}

/* The lower bound of the fullest bucket, in KiB. */
static double mode_kib(const uint64_t *h)
{
	size_t best = 0;

	for (size_t i = 1; i < LEARN_TRACE_BUCKETS; i++)
		if (h[i] > h[best])
			best = i;
	return h[best] ? (double)(1ull << best) / 1024 : NAN;
}

static void tfig_value(const struct learn_trace_role *t, double s, enum tfig k,
		       struct learn_figure *f)
{
	uint64_t r = t->ops[LEARN_TRACE_READ], w = t->ops[LEARN_TRACE_WRITE];
	uint64_t fl = t->ops[LEARN_TRACE_FLUSH];

	switch (k) {
	case TF_READS_PS:
		f->value = div0((double)r, s), f->events = r;
		break;
	case TF_WRITES_PS:
		f->value = div0((double)w, s), f->events = w;
		break;
	case TF_FLUSHES_PS:
		f->value = div0((double)fl, s), f->events = fl;
		break;
	case TF_READ_MODE:
		f->value = mode_kib(t->sizes[0]), f->events = r;
		break;
	case TF_WRITE_MODE:
		f->value = mode_kib(t->sizes[1]), f->events = w;
		break;
	case TF_READ_SVC:
	case TF_WRITE_SVC:
	case TF_FLUSH_SVC: {
		int op = k == TF_READ_SVC ? 0 : k == TF_WRITE_SVC ? 1 : 2;

		f->value = div0((double)t->service_ns[op] / 1e6, (double)t->completed[op]);
		f->events = t->completed[op];
		break;
	}
	case TF_SEQ:
		f->value = div0(100.0 * (double)t->sequential, (double)(r + w)), f->events = r + w;
		break;
	case TF_WSET:
		f->value = r + w ? (double)t->regions : NAN, f->events = r + w;
		break;
	case TF_HOT:
		f->value = 100 * t->hot_fraction, f->events = r + w;
		break;
	case TF_GAP_CV:
		f->value = t->gap_cv, f->events = t->gaps;
		break;
	case TF_DISP:
		f->value = t->dispersion, f->events = t->gaps + 1;
		break;
	case TF_FUA:
		f->value = div0(100.0 * (double)t->fua_writes, (double)w), f->events = w;
		break;
	case TF_FLUSH_PER_WRITE:
		f->value = div0((double)fl, (double)w), f->events = fl < w ? fl : w;
		break;
	case TF_FLUSH_AFTER_WRITE:
		f->value = div0(100.0 * (double)t->flush_after_write, (double)fl), f->events = fl;
		break;
	case TF_WRITE_DEPTH:
		f->value = t->depth_known ? div0((double)t->depth_sum[1], (double)w) : NAN;
		f->events = w;
		break;
	case TF_BURST_SHARE:
		f->value = 100 * t->burst_share, f->events = w;
		break;
	case TF_BURST_INTERVAL:
		f->value = t->burst_interval_s, f->events = t->bursts;
		break;
	}
}

size_t learn_trace_figures(const struct learn_fp *fp, int r, struct learn_figure *out)
{
	const struct learn_trace_role *t = &fp->role[r].trace;

	if (r < 0 || r >= LEARN_ROLES || !fp->role[r].present || !t->present)
		return 0;
	for (size_t i = 0; i < LEARN_TRACE_FIGURES; i++) {
		const struct tfig_def *d = &tfig_defs[r][i];

		out[i] = (struct learn_figure){.label = d->label,
					       .key = d->key,
					       .value = NAN,
					       .asserted = false,
					       .decimals = d->decimals};
		tfig_value(t, fp->seconds, d->kind, &out[i]);
	}
	return LEARN_TRACE_FIGURES;
}

/* ---- JSON ---- */

static const char *const op_names[LEARN_TRACE_OPS] = {"read", "write", "flush", "discard", "other"};

/* The non-empty buckets of h as {"lower bound": count}. */
static void json_hist(struct json *j, const char *key, const uint64_t *h)
{
	char k[32];

	json_begin_object_flat(j, key);
	for (size_t i = 0; i < LEARN_TRACE_BUCKETS; i++) {
		if (!h[i])
			continue;
		snprintf(k, sizeof(k), "%llu", i ? 1ull << i : 0ull);
		json_u64(j, k, h[i]);
	}
	json_end(j);
}

static void json_per_op(struct json *j, const char *key, const uint64_t *v)
{
	json_begin_object_flat(j, key);
	for (size_t i = 0; i < LEARN_TRACE_OPS; i++)
		json_u64(j, op_names[i], v[i]);
	json_end(j);
}

static void json_num(struct json *j, const char *key, double v, int digits)
{
	if (isfinite(v))
		json_sig(j, key, v, digits);
	else
		json_null(j, key);
}

void learn_trace_json(const struct learn_fp *fp, int r, struct json *j)
{
	const struct learn_trace_role *t = &fp->role[r].trace;
	struct learn_figure f[LEARN_TRACE_FIGURES];
	size_t n = learn_trace_figures(fp, r, f);

	if (!n)
		return;
	json_begin_object(j, "trace");
	json_per_op(j, "ops", t->ops);
	json_per_op(j, "bytes", t->bytes);
	json_per_op(j, "completed", t->completed);
	json_per_op(j, "service_ns", t->service_ns);
	json_hist(j, "read_sizes", t->sizes[0]);
	json_hist(j, "write_sizes", t->sizes[1]);
	json_begin_object(j, "service_us");
	for (size_t i = 0; i < LEARN_TRACE_OPS; i++)
		json_hist(j, op_names[i], t->service[i]);
	json_end(j);
	json_u64(j, "fua_writes", t->fua_writes);
	json_u64(j, "preflush_writes", t->preflush_writes);
	json_u64(j, "sync_writes", t->sync_writes);
	json_u64(j, "meta_ios", t->meta_ios);
	json_u64(j, "flush_after_write", t->flush_after_write);
	json_u64(j, "sequential", t->sequential);
	json_u64(j, "gaps", t->gaps);
	json_num(j, "gap_cv", t->gap_cv, 6);
	json_u64(j, "slots", t->slots);
	json_num(j, "dispersion", t->dispersion, 6);
	json_u64(j, "regions", t->regions);
	json_u64(j, "regions_dropped", t->regions_dropped);
	json_num(j, "hot_fraction", t->hot_fraction, 6);
	if (t->depth_known) { /* not known: left out, not a measured 0 */
		json_u64(j, "read_depth_sum", t->depth_sum[0]);
		json_u64(j, "write_depth_sum", t->depth_sum[1]);
	}
	if (t->bursts || isfinite(t->burst_share))
		json_u64(j, "bursts", t->bursts);
	json_num(j, "burst_share", t->burst_share, 6);
	json_num(j, "burst_interval_s", t->burst_interval_s, 6);
	json_num(j, "burst_peak", t->burst_peak, 6);
	json_num(j, "burst_depth", t->burst_depth, 6);
	json_begin_object(j, "figures");
	for (size_t i = 0; i < n; i++) {
		json_begin_object_flat(j, strrchr(f[i].key, '.') + 1);
		json_num(j, "value", f[i].value, 6);
		json_u64(j, "events", f[i].events);
		json_end(j);
	}
	json_end(j);
	json_end(j);
}

static int op_index(const char *name)
{
	for (int i = 0; i < LEARN_TRACE_OPS; i++)
		if (!strcmp(name, op_names[i]))
			return i;
	return -1;
}

/* "read_sizes.4096" and the like: the bucket of a lower bound. */
static int bucket_of(const char *bound)
{
	unsigned long long b = strtoull(bound, NULL, 10);

	return b ? (int)blockio_log2(b) : 0;
}

void learn_trace_json_number(struct learn_trace_role *t, const char *key, double v)
{
	static const struct {
		const char *name;
		size_t off;
	} scalars[] = {
		{"fua_writes", offsetof(struct learn_trace_role, fua_writes)},
		{"preflush_writes", offsetof(struct learn_trace_role, preflush_writes)},
		{"sync_writes", offsetof(struct learn_trace_role, sync_writes)},
		{"meta_ios", offsetof(struct learn_trace_role, meta_ios)},
		{"flush_after_write", offsetof(struct learn_trace_role, flush_after_write)},
		{"sequential", offsetof(struct learn_trace_role, sequential)},
		{"gaps", offsetof(struct learn_trace_role, gaps)},
		{"slots", offsetof(struct learn_trace_role, slots)},
		{"regions", offsetof(struct learn_trace_role, regions)},
		{"regions_dropped", offsetof(struct learn_trace_role, regions_dropped)},
		{"read_depth_sum", offsetof(struct learn_trace_role, depth_sum[0])},
		{"write_depth_sum", offsetof(struct learn_trace_role, depth_sum[1])},
		{"bursts", offsetof(struct learn_trace_role, bursts)},
	};
	uint64_t u = v > 0 ? (uint64_t)v : 0;
	const char *dot = strchr(key, '.');
	int op = dot ? op_index(dot + 1) : -1;

	if (!t->present) /* a fingerprint from before the bursts were kept */
		t->burst_share = t->burst_interval_s = t->burst_peak = t->burst_depth = NAN;
	t->present = true;
	if (!strcmp(key, "read_depth_sum") || !strcmp(key, "write_depth_sum"))
		t->depth_known = true;
	for (size_t i = 0; i < DP_ARRAY_SIZE(scalars); i++)
		if (!strcmp(key, scalars[i].name))
			*(uint64_t *)((char *)t + scalars[i].off) = u;
	if (!strcmp(key, "gap_cv"))
		t->gap_cv = v;
	else if (!strcmp(key, "dispersion"))
		t->dispersion = v;
	else if (!strcmp(key, "hot_fraction"))
		t->hot_fraction = v;
	else if (!strcmp(key, "burst_share"))
		t->burst_share = v;
	else if (!strcmp(key, "burst_interval_s"))
		t->burst_interval_s = v;
	else if (!strcmp(key, "burst_peak"))
		t->burst_peak = v;
	else if (!strcmp(key, "burst_depth"))
		t->burst_depth = v;
	else if (!strncmp(key, "read_sizes.", 11))
		t->sizes[0][bucket_of(key + 11)] = u;
	else if (!strncmp(key, "write_sizes.", 12))
		t->sizes[1][bucket_of(key + 12)] = u;
	else if (!strncmp(key, "service_us.", 11) && (dot = strchr(key + 11, '.')) &&
		 (op = op_index(key + 11)) < 0) {
		char name[16];

		snprintf(name, sizeof(name), "%.*s", (int)(dot - key - 11), key + 11);
		op = op_index(name);
		if (op >= 0)
			t->service[op][bucket_of(dot + 1)] = u;
	} else if (op >= 0 && !strncmp(key, "ops.", 4))
		t->ops[op] = u;
	else if (op >= 0 && !strncmp(key, "bytes.", 6))
		t->bytes[op] = u;
	else if (op >= 0 && !strncmp(key, "completed.", 10))
		t->completed[op] = u;
	else if (op >= 0 && !strncmp(key, "service_ns.", 11))
		t->service_ns[op] = u;
}

/* The share of the fullest buckets of h, "4 KiB 98 %, 64 KiB 2 %" (at most
 * three, of 1 % or more). */
static void header_sizes(struct strbuf *out, const uint64_t *h)
{
	uint64_t sum = 0, done = 0;
	unsigned said = 0;

	for (size_t i = 0; i < LEARN_TRACE_BUCKETS; i++)
		sum += h[i];
	while (sum && said < 3) {
		size_t best = 0;

		for (size_t i = 1; i < LEARN_TRACE_BUCKETS; i++)
			if (h[i] > h[best] && !(done & (1ull << i)))
				best = i;
		if (done & (1ull << best) || h[best] * 100 < sum)
			break;
		done |= 1ull << best;
		if (best >= 10)
			strbuf_addf(out, "%s%llu KiB %.0f %%", said ? ", " : "",
				    1ull << (best - 10), 100.0 * (double)h[best] / (double)sum);
		else
			strbuf_addf(out, "%s%llu B %.0f %%", said ? ", " : "", 1ull << best,
				    100.0 * (double)h[best] / (double)sum);
		said++;
	}
	if (!said)
		strbuf_addstr(out, "none");
}

/* v with its unit, or "-" when it cannot be had. */
static void header_num(struct strbuf *out, double v, int decimals, const char *unit)
{
	if (isfinite(v))
		strbuf_addf(out, "%.*f%s", decimals, v, unit);
	else
		strbuf_addch(out, '-');
}

void learn_trace_header(const struct learn_fp *fp, struct strbuf *out)
{
	static const char *const names[LEARN_ROLES] = {"data", "log"};

	strbuf_addf(out, "; BPF tracing of the block layer: %s\n",
		    fp->trace_status[0] ? fp->trace_status : "not used");
	for (int r = 0; r < LEARN_ROLES; r++) {
		const struct learn_trace_role *t = &fp->role[r].trace;
		struct learn_figure f[LEARN_TRACE_FIGURES];

		if (!learn_trace_figures(fp, r, f))
			continue;
		strbuf_addf(out,
			    ";   %s: %llu reads, %llu writes, %llu flushes traced; read sizes ",
			    names[r], (unsigned long long)t->ops[0], (unsigned long long)t->ops[1],
			    (unsigned long long)t->ops[2]);
		header_sizes(out, t->sizes[0]);
		strbuf_addstr(out, "; write sizes ");
		header_sizes(out, t->sizes[1]);
		strbuf_addf(out, "\n;   %s: sequential ", names[r]);
		header_num(out, f[TF_SEQ].value, 1, " %");
		strbuf_addstr(out, ", working set ");
		header_num(out, f[TF_WSET].value, 0, " MiB");
		strbuf_addstr(out, ", hot 10 % of it ");
		header_num(out, f[TF_HOT].value, 1, " % of I/O");
		strbuf_addf(out, "\n;   %s: issue gap CV ", names[r]);
		header_num(out, f[TF_GAP_CV].value, 2, "");
		strbuf_addstr(out, ", dispersion of issues per 100 ms ");
		header_num(out, f[TF_DISP].value, 2, "");
		strbuf_addf(out, "\n;   %s: in flight at a write's issue ", names[r]);
		header_num(out, f[TF_WRITE_DEPTH].value, 2, "");
		strbuf_addf(out, ", write bursts %llu (", (unsigned long long)t->bursts);
		header_num(out, f[TF_BURST_SHARE].value, 1, " %");
		strbuf_addstr(out, " of the writes), one every ");
		header_num(out, f[TF_BURST_INTERVAL].value, 2, " s");
		strbuf_addstr(out, ", their fullest 100 ms ");
		header_num(out, t->burst_peak, 0, " writes");
		strbuf_addstr(out, " with ");
		header_num(out, t->burst_depth, 1, " in flight");
		strbuf_addf(out, "\n;   %s: FUA writes ", names[r]);
		header_num(out, f[TF_FUA].value, 1, " %");
		strbuf_addf(out, ", preflush writes %llu, flushes per write ",
			    (unsigned long long)t->preflush_writes);
		header_num(out, f[TF_FLUSH_PER_WRITE].value, 3, "");
		strbuf_addstr(out, ", flushes right after a write ");
		header_num(out, f[TF_FLUSH_AFTER_WRITE].value, 1, " %");
		strbuf_addch(out, '\n');
	}
}

/* ---- the source ---- */

#ifdef DISKPROOF_HAVE_BPF
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <blockio.skel.h> /* generated in the build tree: cmake/BlockioBpf.cmake */

struct learn_tracer {
	struct blockio *skel;
};

bool learn_trace_built(void)
{
	return true;
}

/* libbpf's messages are not ours to print: the status says what failed. */
static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level, (void)fmt, (void)ap;
	return 0;
}

/* The kernel's dev_t of a device name (sysfs's "MAJOR:MINOR"). */
static int devt_of(const char *sysfs, const char *name, uint32_t *devt)
{
	char path[512];
	unsigned ma, mi;
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "%s/class/block/%s/dev", sysfs, name);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	n = fscanf(f, "%u:%u", &ma, &mi);
	fclose(f);
	if (n != 2)
		return -EINVAL;
	*devt = ma << 20 | mi;
	return 0;
}

/* Whether the effective capabilities hold CAP_BPF and CAP_PERFMON, or
 * CAP_SYS_ADMIN (kernels before 5.8). */
static bool privileged(void)
{
	char line[256];
	unsigned long long cap = 0;
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return geteuid() == 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &cap) == 1)
			break;
	fclose(f);
	return (cap & (1ull << 21)) || ((cap & (1ull << 38)) && (cap & (1ull << 39)));
}

/* Opens, loads and attaches with the tp_btf or the raw_tp programs. */
static int open_attach(bool btf, struct blockio **out)
{
	struct blockio *s = blockio__open();
	int ret;

	if (!s)
		return errno ? -errno : -ENOMEM;
	bpf_program__set_autoload(s->progs.issue_btf, btf);
	bpf_program__set_autoload(s->progs.complete_btf, btf);
	bpf_program__set_autoload(s->progs.issue_raw, !btf);
	bpf_program__set_autoload(s->progs.complete_raw, !btf);
	ret = blockio__load(s);
	if (!ret)
		ret = blockio__attach(s);
	if (ret) {
		blockio__destroy(s);
		return ret < 0 ? ret : -EINVAL;
	}
	*out = s;
	return 0;
}

static int fill_filter(const char *sysfs, const struct learn_fp *fp, struct blockio *s,
		       char *status, size_t len)
{
	for (int r = 0; r < LEARN_ROLES; r++) {
		const struct learn_where *w = &fp->role[r].where;

		for (size_t i = 0; fp->role[r].present && i < w->nr_devices; i++) {
			struct blockio_dev d = {.role = (uint32_t)r};
			uint32_t devt;
			int ret = devt_of(sysfs, w->devices[i], &devt);

			if (!ret)
				ret = bpf_map__update_elem(s->maps.devs, &devt, sizeof(devt), &d,
							   sizeof(d), BPF_ANY);
			if (ret) {
				snprintf(status, len, "failed: %s: its dev_t: %s", w->devices[i],
					 strerror(-ret));
				return ret;
			}
		}
	}
	return 0;
}

int learn_trace_start(const char *sysfs, const struct learn_fp *fp, struct learn_tracer **out,
		      char *status, size_t len)
{
	struct blockio *s = NULL;
	bool btf = true;
	int ret;

	*out = NULL;
	if (!privileged()) {
		snprintf(status, len, "needs root (CAP_BPF, CAP_PERFMON); diskstats only");
		return -EPERM;
	}
	libbpf_set_print(quiet);
	ret = open_attach(true, &s);
	if (ret) {
		btf = false;
		ret = open_attach(false, &s);
	}
	if (ret) {
		snprintf(status, len, "failed: the BPF program would not load or attach: %s%s",
			 strerror(-ret),
			 access("/sys/kernel/btf/vmlinux", R_OK) ? " (no kernel BTF)" : "");
		return ret;
	}
	ret = fill_filter(sysfs, fp, s, status, len);
	if (ret) {
		blockio__destroy(s);
		return ret;
	}
	*out = calloc(1, sizeof(**out));
	if (!*out) {
		blockio__destroy(s);
		return -ENOMEM;
	}
	(*out)->skel = s;
	snprintf(status, len, "used (%s on block_rq_issue and block_rq_complete)",
		 btf ? "tp_btf" : "raw_tp");
	return 0;
}

void learn_trace_begin(struct learn_tracer *t, uint64_t t0_ns)
{
	t->skel->bss->end_ns = 0;
	t->skel->bss->t0_ns = t0_ns;
}

/* The per-CPU counts of role r summed into t. */
static int read_role(struct blockio *s, uint32_t r, struct learn_trace_role *t, double *gap_us,
		     double *gap_us2)
{
	int ncpu = libbpf_num_possible_cpus();
	struct blockio_role *v;
	int ret;

	if (ncpu <= 0)
		return ncpu ? ncpu : -EINVAL;
	v = calloc((size_t)ncpu, sizeof(*v));
	if (!v)
		return -ENOMEM;
	ret = bpf_map__lookup_elem(s->maps.roles, &r, sizeof(r), v, sizeof(*v) * (size_t)ncpu, 0);
	for (int c = 0; !ret && c < ncpu; c++) {
		const struct blockio_role *x = &v[c];

		for (int o = 0; o < LEARN_TRACE_OPS; o++) {
			t->ops[o] += x->ops[o], t->bytes[o] += x->bytes[o];
			t->service_ns[o] += x->service_ns[o], t->completed[o] += x->completed[o];
			for (int b = 0; b < LEARN_TRACE_BUCKETS; b++)
				t->service[o][b] += x->service[o][b];
		}
		for (int b = 0; b < LEARN_TRACE_BUCKETS; b++)
			t->sizes[0][b] += x->sizes[0][b], t->sizes[1][b] += x->sizes[1][b];
		t->depth_sum[0] += x->depth_sum[0], t->depth_sum[1] += x->depth_sum[1];
		t->fua_writes += x->fua_writes, t->preflush_writes += x->preflush_writes;
		t->sync_writes += x->sync_writes, t->meta_ios += x->meta_ios;
		t->flush_after_write += x->flush_after_write, t->sequential += x->sequential;
		t->gaps += x->gaps, t->regions_dropped += x->regions_dropped;
		*gap_us += (double)x->gap_us, *gap_us2 += (double)x->gap_us2;
	}
	free(v);
	return ret;
}

/* The region sketch's I/O counts of role r into *out (malloc'd). */
static int read_regions(struct blockio *s, uint32_t r, uint64_t **out, size_t *n)
{
	struct blockio_region_key k, next, *prev = NULL;
	size_t cap = 1024;
	uint64_t v;

	*n = 0;
	*out = malloc(cap * sizeof(**out));
	if (!*out)
		return -ENOMEM;
	while (!bpf_map__get_next_key(s->maps.regions, prev, &next, sizeof(next))) {
		k = next;
		prev = &k;
		if (k.role != r ||
		    bpf_map__lookup_elem(s->maps.regions, &k, sizeof(k), &v, sizeof(v), 0))
			continue;
		if (*n == cap) {
			uint64_t *g = realloc(*out, 2 * cap * sizeof(**out));

			if (!g)
				return -ENOMEM;
			*out = g, cap *= 2;
		}
		(*out)[(*n)++] = v;
	}
	return 0;
}

int learn_trace_end(struct learn_tracer *t, uint64_t end_ns, double seconds, struct learn_fp *fp)
{
	size_t nslots = (size_t)(seconds * 10);
	uint32_t *slots, *wslots;
	uint64_t *wsvc;
	int ret = 0;

	t->skel->bss->end_ns = end_ns;
	if (nslots > BLOCKIO_SLOTS)
		nslots = BLOCKIO_SLOTS;
	slots = calloc(nslots + 1, sizeof(*slots));
	wslots = calloc(nslots + 1, sizeof(*wslots));
	wsvc = calloc(nslots + 1, sizeof(*wsvc));
	if (!slots || !wslots || !wsvc) {
		free(slots);
		free(wslots);
		free(wsvc);
		return -ENOMEM;
	}
	/* completions of requests issued in the window still come: a moment */
	usleep(20000);
	for (uint32_t r = 0; !ret && r < LEARN_ROLES; r++) {
		struct learn_trace_role *tr = &fp->role[r].trace;
		double gap_us = 0, gap_us2 = 0;
		uint64_t *regions = NULL;
		size_t nregions = 0;

		if (!fp->role[r].present)
			continue;
		memset(tr, 0, sizeof(*tr));
		tr->present = true;
		tr->depth_known = true;
		ret = read_role(t->skel, r, tr, &gap_us, &gap_us2);
		for (uint32_t i = 0; !ret && i < nslots; i++) {
			uint32_t key = r * BLOCKIO_SLOTS + i;

			ret = bpf_map__lookup_elem(t->skel->maps.slots, &key, sizeof(key),
						   &slots[i], sizeof(slots[i]), 0);
			if (!ret)
				ret = bpf_map__lookup_elem(t->skel->maps.wslots, &key, sizeof(key),
							   &wslots[i], sizeof(wslots[i]), 0);
			if (!ret)
				ret = bpf_map__lookup_elem(t->skel->maps.wsvc, &key, sizeof(key),
							   &wsvc[i], sizeof(wsvc[i]), 0);
		}
		if (!ret)
			ret = read_regions(t->skel, r, &regions, &nregions);
		if (!ret) {
			learn_trace_derive(tr, regions, nregions, slots, nslots, gap_us, gap_us2);
			learn_trace_bursts(tr, wslots, wsvc, nslots);
		}
		free(regions);
	}
	free(slots);
	free(wslots);
	free(wsvc);
	return ret;
}

void learn_trace_release(struct learn_tracer *t)
{
	if (!t)
		return;
	blockio__destroy(t->skel);
	free(t);
}

#else /* !DISKPROOF_HAVE_BPF */

struct learn_tracer {
	int unused;
};

bool learn_trace_built(void)
{
	return false;
}

int learn_trace_start(const char *sysfs, const struct learn_fp *fp, struct learn_tracer **out,
		      char *status, size_t len)
{
	(void)sysfs, (void)fp;
	*out = NULL;
	snprintf(status, len,
		 "not built into this diskproof (libbpf, clang or bpftool missing "
		 "at build time)");
	return -ENOTSUP;
}

void learn_trace_begin(struct learn_tracer *t, uint64_t t0_ns)
{
	(void)t, (void)t0_ns;
}

int learn_trace_end(struct learn_tracer *t, uint64_t end_ns, double seconds, struct learn_fp *fp)
{
	(void)t, (void)end_ns, (void)seconds, (void)fp;
	return -ENOTSUP;
}

void learn_trace_release(struct learn_tracer *t)
{
	free(t);
}
#endif
