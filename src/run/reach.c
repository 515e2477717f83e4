/* SPDX-License-Identifier: MIT */
/*
 * reach.c - whether the run's reads reached its devices (issue 30, item 7):
 * with [engine] direct = off a read can be served by the page cache, and a
 * database small enough to stay cached after it was written gives latencies
 * the device never had. The device's own counters say what reached it: per
 * block device under the volumes, the bytes /proc/diskstats counted as read
 * during the measured intervals (the host counters the coordinator samples,
 * counters.h) against the bytes the run's reads asked of it in the same
 * time. A run whose reads did not reach a device is inconclusive (exit 5),
 * whatever its figures; a device whose counters cannot be read is said, not
 * passed in silence. docs/verdicts.md, "Reads that reach the device".
 *
 * Why bytes and not counts: readahead and the block layer's merging make a
 * sequential buffered read of N pages one or a few device reads, so counts
 * could fall far below the run's with every byte read from the device;
 * bytes do not shrink (readahead only adds bytes, a merge keeps them). A page
 * cache hit moves no byte. So a device that read fewer bytes than
 * RUN_REACH_MIN_SHARE of what the run read from it was not where the reads
 * came from. Half, not nearly all, because the counters' intervals are the
 * coordinator's, sampled a few milliseconds off the workers' (an edge of at
 * most one interval's reads in a run of many), and because a buffered run
 * whose first reads missed the cache and later ones hit it is still mostly
 * the device's below half and mostly the cache's above. Another process
 * reading the same device adds bytes: it can hide a cached run, never flag
 * a run whose reads did reach the device. Speed is never judged: a RAM-backed
 * device (a loop device over tmpfs, zram) counts its reads like a disk, and
 * a device that keeps no counters at all (brd) is said to be unchecked.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diskproof/counters.h"
#include "diskproof/store.h"

#include "reach.h"
#include "run_internal.h"

#define MIB (1024.0 * 1024.0)

/* Adds one device's sentence to why, after "; " when it holds one already. */
static void reach_sep(struct strbuf *why)
{
	if (why->len)
		strbuf_addstr(why, "; ");
}

static void reach_name(struct strbuf *why, const struct run_reach_device *d)
{
	const char *v = d->volumes && d->volumes[0] ? d->volumes : "-";

	strbuf_addf(why, "%s (volume%s %s)", d->name, strchr(v, ',') ? "s" : "", v);
}

/* Why device d cannot be judged, or NULL when it can. */
static const char *reach_unknown(const struct run_reach_device *d)
{
	if (!d->name)
		return NULL; /* said by the caller: no device to name */
	if (!d->counted)
		return "its counters could not be read in every measured interval";
	if (d->issued_reads < RUN_REACH_MIN_READS)
		return "too few reads to judge";
	if (!d->dev_reads && !d->dev_writes)
		return d->issued_sync_writes
			       ? "its counters did not move, though the run's write-through "
				 "writes reached it: it keeps no I/O statistics (brd does not)"
			       : "its counters did not move at all: it keeps no I/O statistics "
				 "(brd does not), or nothing reached it";
	return NULL;
}

static bool reach_short(const struct run_reach_device *d)
{
	return (double)d->dev_bytes < RUN_REACH_MIN_SHARE * (double)d->issued_bytes;
}

static void reach_figures(struct strbuf *why, const struct run_reach_device *d)
{
	reach_name(why, d);
	strbuf_addf(why, " read %.1f MiB for the run's %.1f MiB (%.0f %%)",
		    (double)d->dev_bytes / MIB, (double)d->issued_bytes / MIB,
		    100.0 * (double)d->dev_bytes / (double)d->issued_bytes);
}

enum run_reach_state run_reach_judge(const struct run_reach_device *d, size_t n, bool direct,
				     struct strbuf *why)
{
	enum run_reach_state st = RUN_REACH_NONE;
	struct strbuf part = STRBUF_INIT;
	const char *unknown;
	size_t i;

	/* the devices whose reads did not reach them, first and alone */
	for (i = 0; i < n; i++) {
		if (!d[i].issued_reads || !d[i].name || reach_unknown(&d[i]) || !reach_short(&d[i]))
			continue;
		reach_sep(&part);
		reach_figures(&part, &d[i]);
		st = RUN_REACH_NOT_REACHED;
	}
	if (st == RUN_REACH_NOT_REACHED) {
		strbuf_addf(why, "reads did not reach the device: %s; %s", part.buf,
			    direct ? "something above the device served them"
				   : "the page cache served them (direct = off): the latencies "
				     "are the cache's, not the device's");
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (!d[i].issued_reads)
			continue;
		unknown = reach_unknown(&d[i]);
		if (!d[i].name) {
			reach_sep(&part);
			strbuf_addf(&part, "volume%s %s: no block device beneath to count reads on",
				    d[i].volumes && strchr(d[i].volumes, ',') ? "s" : "",
				    d[i].volumes ? d[i].volumes : "-");
		} else if (unknown) {
			reach_sep(&part);
			reach_name(&part, &d[i]);
			strbuf_addf(&part, ": %s", unknown);
		} else {
			continue;
		}
		st = RUN_REACH_UNKNOWN;
	}
	if (st == RUN_REACH_UNKNOWN) {
		strbuf_addf(why, "reads not checked against the device: %s", part.buf);
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (!d[i].issued_reads)
			continue;
		reach_sep(&part);
		reach_figures(&part, &d[i]);
		st = RUN_REACH_REACHED;
	}
	if (st == RUN_REACH_REACHED)
		strbuf_addf(why, "reads reached the device: %s", part.buf);
out:
	strbuf_release(&part);
	return st;
}

const char *run_reach_event_kind(enum run_reach_state st)
{
	switch (st) {
	case RUN_REACH_REACHED:
		return "reads_reached";
	case RUN_REACH_NOT_REACHED:
		return "reads_not_reached";
	case RUN_REACH_UNKNOWN:
		return "reads_unchecked";
	case RUN_REACH_NONE:
		break;
	}
	return NULL;
}

/* ---- the sums over the measured intervals (coord.c calls in) ---- */

void run_reach_add(struct run_reach *a, const struct host_sample *hs)
{
	size_t i;

	a->intervals++;
	if (!hs) {
		a->lost = true;
		return;
	}
	if (!a->dev && hs->nr_devs && !a->failed) {
		a->dev = calloc(hs->nr_devs, sizeof(*a->dev));
		a->failed = !a->dev; /* unchecked, said so: no reason to fail the run */
		a->n = a->dev ? hs->nr_devs : 0;
	}
	for (i = 0; i < a->n && i < hs->nr_devs; i++) {
		snprintf(a->dev[i].name, sizeof(a->dev[i].name), "%s", hs->devs[i].name);
		if (!hs->devs[i].valid)
			continue;
		a->dev[i].seen++;
		a->dev[i].reads += hs->devs[i].reads;
		a->dev[i].read_bytes += hs->devs[i].read_sectors * 512;
		a->dev[i].writes += hs->devs[i].writes;
	}
}

void run_reach_release(struct run_reach *a)
{
	free(a->dev);
	memset(a, 0, sizeof(*a));
}

/* ---- the judgement at the run's end ---- */

/* The volumes named per device, each once. */
struct reach_vols {
	struct strbuf *sb;
	size_t *last; /* the last volume added, + 1 */
};

/* Names volume v on device d once (its data and logs may share it). */
static void reach_volume_add(struct reach_vols *rv, size_t i, size_t v, const char *name)
{
	if (rv->last[i] == v + 1)
		return;
	if (rv->sb[i].len)
		strbuf_addstr(&rv->sb[i], ", ");
	strbuf_addstr(&rv->sb[i], name);
	rv->last[i] = v + 1;
}

static size_t reach_row(const struct run *r, size_t path, size_t none)
{
	int row = counters_sampler_path_row(r->store.host, path);

	return row >= 0 && (size_t)row < none ? (size_t)row : none;
}

/*
 * The devices of the run (the sampler's rows, then one for the volumes with
 * no block device beneath), the run's measured reads and write-through
 * writes of each volume put on the device its files are on: database reads
 * (db_read, bdm_read, backup_read) on path's, replication log reads and log
 * writes on log_path's. d and rv have r->reach.n + 1 entries.
 */
static void reach_devices(const struct run *r, const struct run_totals *t,
			  struct run_reach_device *d, struct reach_vols *rv)
{
	static const enum io_class data_reads[] = {IO_DB_READ, IO_BDM_READ, IO_BACKUP_READ};
	const struct run_reach *a = &r->reach;
	size_t none = a->n;

	for (size_t v = 0; v < r->plan.nr_vols; v++) {
		size_t id = reach_row(r, 2 * v, none), il = reach_row(r, 2 * v + 1, none);
		const struct class_stats *cs = &t->vol_cs[v * IO_CLASS_COUNT];
		uint64_t n = 0;

		for (size_t k = 0; k < DP_ARRAY_SIZE(data_reads); k++) {
			n += cs[data_reads[k]].lat.count;
			d[id].issued_bytes += cs[data_reads[k]].bytes;
		}
		d[id].issued_reads += n;
		if (n)
			reach_volume_add(rv, id, v, r->plan.vols[v].name);
		d[il].issued_reads += cs[IO_LOG_READ].lat.count;
		d[il].issued_bytes += cs[IO_LOG_READ].bytes;
		d[il].issued_sync_writes += cs[IO_LOG_WRITE].lat.count;
		if (cs[IO_LOG_READ].lat.count)
			reach_volume_add(rv, il, v, r->plan.vols[v].name);
	}
	for (size_t i = 0; i <= none; i++)
		d[i].volumes = rv->sb[i].buf;
	for (size_t i = 0; i < none; i++) {
		d[i].name = a->dev[i].name;
		d[i].counted = !a->lost && a->dev[i].seen == a->intervals;
		d[i].dev_reads = a->dev[i].reads;
		d[i].dev_bytes = a->dev[i].read_bytes;
		d[i].dev_writes = a->dev[i].writes;
	}
}

/* The judgement of the gathered figures, into why. */
static enum run_reach_state reach_judge_run(struct run *r, const struct run_totals *t,
					    struct strbuf *why)
{
	const struct run_reach *a = &r->reach;
	struct run_reach_device *d = NULL;
	struct reach_vols rv = {0};
	enum run_reach_state st = RUN_REACH_UNKNOWN;
	size_t n = a->n + 1;

	if (!r->store.host) {
		strbuf_addstr(why, "reads not checked against the device: the host's counters "
				   "could not be opened (the host_counters event says why)");
		return st;
	}
	if (!a->intervals || a->failed) {
		strbuf_addstr(why, a->failed ? "reads not checked against the device: out of memory"
					     : "reads not checked against the device: no measured "
					       "interval's counters were read");
		return st;
	}
	d = calloc(n, sizeof(*d));
	rv.sb = calloc(n, sizeof(*rv.sb));
	rv.last = calloc(n, sizeof(*rv.last));
	if (!d || !rv.sb || !rv.last) {
		strbuf_addstr(why, "reads not checked against the device: out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		strbuf_init(&rv.sb[i]);
	reach_devices(r, t, d, &rv);
	st = run_reach_judge(d, n, r->prof->direct, why);
out:
	for (size_t i = 0; rv.sb && i < n; i++)
		strbuf_release(&rv.sb[i]);
	free(rv.sb);
	free(rv.last);
	free(d);
	return st;
}

enum run_reach_state run_reach_finish(struct run *r, const struct run_totals *t)
{
	struct strbuf why = STRBUF_INIT, serr = STRBUF_INIT;
	enum run_reach_state st;
	const char *kind;

	/* a virtual clock moves no data: no page cache to serve a read */
	if (r->virt || !r->plan.files)
		return RUN_REACH_NONE;
	st = reach_judge_run(r, t, &why);
	kind = run_reach_event_kind(st);
	if (kind && r->store.st && !r->store.failed &&
	    store_event_add(r->store.st, r->store.run_id,
			    run_clock_ms(r, engine_clock_now(&r->clock)), kind, why.buf, &serr)) {
		/* the judgement stands; the results file's failure is the run's */
		r->store.failed = true;
		strbuf_addf(&r->store.err, "%s%s", r->store.err.len ? "\n" : "", serr.buf);
	}
	strbuf_release(&why);
	strbuf_release(&serr);
	return st;
}
