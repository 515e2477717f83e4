/*
 * test_workload_recovery.c - recovery's replay driven alone (recovery.c):
 * after writing recovery_segments log segments a database drains, then its
 * streams apply exactly the pages the record tables of those segments name,
 * in record order, each read and then written back; the figures count them.
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
	assert_int_equal(h.dbs[0].phase, WL_PHASE_DONE);
	assert_true(w.nnamed > 100);
	assert_int_equal(w.nreplayed, w.nnamed);
	assert_memory_equal(w.replayed, w.named, w.nnamed * sizeof(uint64_t));
	assert_int_equal(w.writes_back, w.nreplayed);
	for (unsigned k = 0; k < h.p.recovery_segments; k++) {
		counted += h.dbs[0].rp_count[k];
		assert_true(h.dbs[0].rp_ns[k] > 0);
	}
	assert_int_equal(counted, w.nreplayed);
	free(w.named);
	free(w.replayed);
	h_release(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_replay_applies_the_records),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
