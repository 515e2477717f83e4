/* SPDX-License-Identifier: MIT */
/*
 * memory.c - the memory a run of the plan takes, as an upper bound: what
 * plan shows and plan, init and run refuse by.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "diskproof/plan.h"
#include "diskproof/run.h"
#include "diskproof/stats.h"
#include "diskproof/workload.h"

/*
 * The memory a run takes, an upper bound from what run.c allocates (counted
 * whole, although calloc'ed tables are touched only as far as they are used):
 *
 *   per page of every database: the expected generation (4 B), the busy map
 *     (1 B) and, on an engine with files, the journal copy (4 B) and the
 *     periodic journal write's own copy (4 B, handed to the journal thread):
 *     13 B;
 *   per database: the coordinator's totals and window figures, two full
 *     histograms (class_stats, about 16.6 KiB) per I/O class (6); the
 *     workers' RUN_SLOTS (8) interval snapshots, per class a class_stats32
 *     (200 B) and its arena of 33 bucket groups of 256 B; in the fixed model
 *     every worker holds every database, so snapshots count once per worker;
 *     1 KiB of bookkeeping and store rows; open loop (arrival = rate),
 *     the page reads' response times: one histogram and RUN_SLOTS
 *     snapshot classes more; and the generators' state,
 *     counted by workload/db.c beside what allocates it (wl_db_memory: the
 *     struct wl_db, its waiting streams and in the jetstress model the log
 *     record ring, the dirty list and the checkpoint set, per log segment,
 *     for recovery the replay ring), once per worker in the fixed model;
 *   I/O buffers (written at set-up, so resident): a page per stream, and a
 *     spare one when reads are verified on an engine with files; per
 *     database of the jetstress model a log and a replication buffer (a
 *     segment, at most 1 MiB), the maintenance read (bdm_io_size) and the
 *     flusher's pages (flush_depth x page_size); backup: one backup_io_size
 *     read per database; 320 B of slot and ring state per I/O slot;
 *   once: 8 B per page of the largest database (its journal read and written),
 *     per volume three histograms per class, and 64 MiB for the program,
 *     SQLite and the threads.
 *
 * Streams: the profile's, 2 per database by default, and for auto-tune the
 * most it may try (autotune_max_streams, else 128 per database, at most
 * PROFILE_STREAMS_MAX).
 */
#define MEM_HIST ((uint64_t)sizeof(struct class_stats))
#define MEM_SNAP_CLASS                                                                             \
	((uint64_t)sizeof(struct class_stats32) +                                                  \
	 HIST_GROUPS * HIST_GROUP_BUCKETS * sizeof(uint32_t))
#define MEM_RUN_SLOTS 8ULL /* run.c's RUN_SLOTS */
/* the classes a run's figures are kept for: db_flush only where the profile
 * flushes its database files (its tables, a few hundred KiB, are there in
 * every run; an estimate that counted them always would move every plan's
 * figure for a class only the InnoDB-like profiles use) */
#define MEM_SLOT 320ULL

/* The classes a run's figures are kept for: db_flush only where the profile
 * flushes its database files. Its tables (a few hundred KiB) are there in
 * every run; counting them always would move every plan's estimate for a
 * class only the InnoDB-like profiles use. */
static uint64_t mem_classes(const struct profile *p)
{
	return (uint64_t)IO_CLASS_COUNT -
	       !(p->doublewrite || p->data_flush != PROFILE_DATA_FLUSH_NONE);
}

/*
 * The generators' state of every database (wl_db_memory) on workers of at
 * most ws streams each: a worker with d of the D databases carries
 * S x d / D streams, the fraction as one more (plan/workers.c), and d is at
 * most D / W + 1; in the fixed model every worker holds every database.
 */
static uint64_t generators_memory(const struct plan *pl, const struct profile *p, uint64_t streams,
				  uint64_t workers)
{
	uint64_t w = workers ? workers : 1, ndb = pl->nr_dbs ? pl->nr_dbs : 1;
	uint64_t ws = streams / w + streams / ndb + 2, m = 0;

	if (ws > streams)
		ws = streams;
	for (size_t i = 0; i < pl->nr_dbs; i++)
		m += wl_db_memory(p, pl->dbs[i].nr_pages, (unsigned)ws);
	return p->model == PROFILE_MODEL_FIXED ? m * w : m;
}

void run_memory_estimate(const struct plan *pl, const struct profile *p, unsigned cpus,
			 struct run_memory *m)
{
	bool sim = !pl->files, fixed = p->model == PROFILE_MODEL_FIXED;
	bool backup = p->type == PROFILE_TEST_BACKUP, recovery = p->type == PROFILE_TEST_RECOVERY;
	bool txn = !fixed && !backup;
	uint64_t ndb = pl->nr_dbs, streams, workers, slots, seg, largest = 0;
	uint64_t per_db;

	memset(m, 0, sizeof(*m));
	for (size_t i = 0; i < pl->nr_dbs; i++) {
		m->pages += pl->dbs[i].nr_pages * (sim ? 5 : 13);
		if (pl->dbs[i].nr_pages > largest)
			largest = pl->dbs[i].nr_pages;
	}
	streams = p->streams == PROFILE_STREAMS_AUTO
			  ? (p->tune_max_streams ? p->tune_max_streams : 128 * ndb)
		  : p->streams ? p->streams
			       : profile_streams_default((unsigned)ndb);
	if (p->streams == PROFILE_STREAMS_AUTO && streams > PROFILE_STREAMS_MAX)
		streams = PROFILE_STREAMS_MAX;
	if (backup)
		streams = 0;
	workers = plan_worker_count(p, pl, (unsigned)streams, cpus);
	/* open loop: the stream slots of the bound its streams may grow to */
	streams = profile_stream_bound(p, (unsigned)streams);

	per_db = 2 * mem_classes(p) * MEM_HIST + 1024;
	m->databases = ndb * per_db + ndb * (fixed ? workers : 1) * MEM_RUN_SLOTS * mem_classes(p) *
					      MEM_SNAP_CLASS;
	/* open loop: each database's page reads' response times too, one
	 * class (coord.resp_db, snap.resp) */
	if (p->arrival == PROFILE_ARRIVAL_RATE && txn)
		m->databases +=
			ndb * (MEM_HIST + (fixed ? workers : 1) * MEM_RUN_SLOTS * MEM_SNAP_CLASS);
	m->databases += generators_memory(pl, p, streams, workers);
	seg = p->log_segment_size < (1u << 20) ? p->log_segment_size : (1u << 20);
	slots = streams;
	m->buffers = streams * wl_stream_buf_len(p);
	if (p->verify && !sim && !recovery && !backup)
		m->buffers += streams * wl_stream_buf_len(p);
	if (txn) {
		m->buffers += ndb * (seg + (p->copies > 1 || recovery ? seg : 0) +
				     (p->bdm ? p->bdm_io_size : 0) +
				     (uint64_t)p->flush_depth * wl_flush_buf_len(p) +
				     wl_batch_buf_len(p));
		slots += ndb * (1 + (p->copies > 1 || recovery) + p->bdm + p->flush_depth +
				(wl_batch_buf_len(p) > 0));
	} else if (backup) {
		m->buffers += ndb * p->backup_io_size;
		slots += ndb;
	}
	m->buffers += slots * MEM_SLOT;
	m->other = largest * 8 + pl->nr_vols * 3 * mem_classes(p) * MEM_HIST + (64ULL << 20);
	m->total = m->pages + m->databases + m->buffers + m->other;
}
