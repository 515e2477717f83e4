/* SPDX-License-Identifier: MIT */
/*
 * test_workload_recovery.c - recovery's replay driven alone (recovery.c):
 * after writing recovery_segments log segments a database drains, then its
 * streams apply exactly the pages the record tables of those segments name,
 * in record order, each read and then written back; the figures count them.
 * Without page content (the sim engine: ctx.full off) the log holds no
 * record tables: each segment's replay applies as many pages as records were
 * written into it (the same count as the record tables of a run with
 * content), drawn in the database's range, the same for a seed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "workload_harness.h"

#define MAX_PAGES 100000

struct watch {
	uint64_t *named, *replayed;
	size_t nnamed, nreplayed;
	unsigned writes_back;
};

static void on_done(struct harness *h, struct wl_slot *s)
{
	struct watch *w = h->arg;
	uint64_t segs = h->p.recovery_segments * (uint64_t)h->p.log_segment_size;

	if (s->kind == WL_SLOT_LOG && s->off0 < segs) {
		/* the records of the segments to be replayed, as written */
		for (uint32_t o = 0; o < s->len0; o += 512) {
			const char *blk = (const char *)s->buf + o;
			struct log_records lr;

			memcpy(&lr, blk + PAGE_HEADER_SIZE, sizeof(lr));
			if (lr.magic != LOG_RECORDS_MAGIC)
				continue; /* no record table: no page content */
			for (uint32_t i = 0; i < lr.count; i++)
				memcpy(&w->named[w->nnamed++], blk + PAGE_HEADER_SIZE + 8 + 8 * i,
				       8);
		}
	}
	if (s->kind == WL_SLOT_STREAM && wl_slot_replaying(s) && s->req.op == ENGINE_OP_WRITE)
		w->writes_back++;
}

/* a replayed page's read, as issued: in the order the records name them */
static void on_issue(struct harness *h, struct wl_slot *s)
{
	struct watch *w = h->arg;

	if (s->kind == WL_SLOT_STREAM && wl_slot_replaying(s) && s->req.op == ENGINE_OP_READ)
		w->replayed[w->nreplayed++] = s->page;
}

static void test_replay_applies_the_records(void **state)
{
	struct harness h;
	struct watch w = {0};
	uint64_t counted = 0;

	(void)state;
	w.named = calloc(MAX_PAGES, sizeof(uint64_t));
	w.replayed = calloc(MAX_PAGES, sizeof(uint64_t));
	h_profile(&h);
	h.p.type = PROFILE_TEST_RECOVERY;
	h.on_done = on_done;
	h.on_issue = on_issue;
	h.arg = &w;
	h_start(&h, 8192);
	while (!wl_db_finished(&h.c, &h.dbs[0]))
		assert_true(h_step(&h));
	assert_int_equal(h.dbs[0].replay.phase, WL_PHASE_DONE);
	assert_true(w.nnamed > 100);
	assert_int_equal(w.nreplayed, w.nnamed);
	assert_memory_equal(w.replayed, w.named, w.nnamed * sizeof(uint64_t));
	assert_int_equal(w.writes_back, w.nreplayed);
	for (unsigned k = 0; k < h.p.recovery_segments; k++) {
		counted += h.dbs[0].replay.count[k];
		assert_true(h.dbs[0].replay.ns[k] > 0);
	}
	assert_int_equal(counted, w.nreplayed);
	free(w.named);
	free(w.replayed);
	h_release(&h);
}

/* One recovery run to its end; full: pages carry their content. Returns
 * the pages the segments' records name (full) or replayed (not full). */
static size_t run_recovery(bool full, struct watch *w, uint64_t *counted, uint64_t *recs)
{
	struct harness h;

	memset(w, 0, sizeof(*w));
	w->named = calloc(MAX_PAGES, sizeof(uint64_t));
	w->replayed = calloc(MAX_PAGES, sizeof(uint64_t));
	h_profile(&h);
	h.p.type = PROFILE_TEST_RECOVERY;
	h.on_done = on_done;
	h.on_issue = on_issue;
	h.arg = w;
	h_start(&h, 8192);
	h.c.full = full;
	while (!wl_db_finished(&h.c, &h.dbs[0]))
		assert_true(h_step(&h));
	assert_int_equal(h.dbs[0].replay.phase, WL_PHASE_DONE);
	*counted = *recs = 0;
	for (unsigned k = 0; k < h.p.recovery_segments; k++) {
		*counted += h.dbs[0].replay.count[k];
		if (!full) /* every record counted is applied */
			assert_int_equal(h.dbs[0].replay.count[k], h.dbs[0].replay.recs[k]);
		*recs += h.dbs[0].replay.recs[k];
		assert_true(h.dbs[0].replay.ns[k] > 0);
	}
	for (size_t i = 0; i < w->nreplayed; i++)
		assert_true(w->replayed[i] < 8192);
	assert_int_equal(w->writes_back, w->nreplayed);
	h_release(&h);
	return full ? w->nnamed : w->nreplayed;
}

static void test_replay_without_content(void **state)
{
	struct watch real, sim, again;
	uint64_t counted, recs, sim_counted, sim_recs;
	size_t named, replayed;

	(void)state;
	named = run_recovery(true, &real, &counted, &recs);
	assert_int_equal(recs, 0); /* counted only without content */
	replayed = run_recovery(false, &sim, &sim_counted, &sim_recs);
	assert_int_equal(sim.nnamed, 0); /* no record tables in its log */
	/* as many pages as the record tables of the run with content name */
	assert_true(named > 100);
	assert_int_equal(sim_recs, named);
	assert_int_equal(sim_counted, named);
	assert_int_equal(replayed, named);
	/* the same for a seed */
	assert_int_equal(run_recovery(false, &again, &counted, &recs), replayed);
	assert_memory_equal(again.replayed, sim.replayed, replayed * sizeof(uint64_t));
	free(real.named), free(real.replayed);
	free(sim.named), free(sim.replayed);
	free(again.named), free(again.replayed);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_replay_applies_the_records),
		cmocka_unit_test(test_replay_without_content),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
