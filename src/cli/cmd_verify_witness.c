/* SPDX-License-Identifier: MIT */
/*
 * cmd_verify_witness.c - "diskproof verify PROFILE --witness SPEC": the
 * durability test's classification (verify.h, verify_witness) printed as
 * text or JSON: the counts per class, the newest lost acknowledgement's age
 * before the cut, and the bad pages named (at most 20, then how many more).
 * Exit 4 on any page lost after acknowledgement, torn or corrupt; 0 when
 * every acknowledged page is intact; 3 when the witness or a page cannot be
 * read. And what plain verify says of a sim profile after a simulated cut.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "diskproof/cutstate.h"
#include "diskproof/engine.h"
#include "diskproof/json.h"
#include "diskproof/run.h"
#include "diskproof/verify.h"
#include "diskproof/witness.h"

#include "cli.h"

#define LISTED 20u

static const char *const class_keys[VERIFY_ACK_CLASSES] = {"intact", "lost", "torn", "corrupt"};

static double age_s(const struct verify_ack_result *r)
{
	return r->newest_lost_ns ? (double)(r->cut_ns - r->newest_lost_ns) / 1e9 : 0;
}

static bool any_bad(const struct verify_ack_result *r)
{
	return r->count[VERIFY_ACK_LOST] || r->count[VERIFY_ACK_TORN] ||
	       r->count[VERIFY_ACK_CORRUPT];
}

static void print_text(const struct verify_ack_result *r, const struct plan *pl, const char *spec)
{
	for (size_t i = 0; i < r->nr_bad; i++) {
		const struct verify_ack_bad *b = &r->bad[i];

		printf("%s page %llu: %s (acknowledged generation %llu, found %llu, %.3f s before "
		       "the cut)\n",
		       b->db < pl->nr_dbs ? pl->dbs[b->db].name : "db?",
		       (unsigned long long)b->page, verify_ack_class_name(b->cls),
		       (unsigned long long)b->acked_gen, (unsigned long long)b->found_gen,
		       (double)(r->cut_ns - b->acked_ns) / 1e9);
	}
	if (r->unlisted)
		printf("... and %llu more page(s) not listed\n", (unsigned long long)r->unlisted);
	if (r->torn_in_flight)
		printf("%llu page(s) torn by a write in flight at the cut, newer than their last "
		       "acknowledgement: no failure (the writes were not atomic)\n",
		       (unsigned long long)r->torn_in_flight);
	printf("witness %s: %llu acknowledgement(s) of %llu page(s): %llu intact (%llu written "
	       "again since), %llu lost after acknowledgement, %llu torn, %llu corrupt\n",
	       spec, (unsigned long long)r->acks, (unsigned long long)r->pages,
	       (unsigned long long)r->count[VERIFY_ACK_INTACT], (unsigned long long)r->newer,
	       (unsigned long long)r->count[VERIFY_ACK_LOST],
	       (unsigned long long)r->count[VERIFY_ACK_TORN],
	       (unsigned long long)r->count[VERIFY_ACK_CORRUPT]);
	if (r->newest_lost_ns)
		printf("the newest lost acknowledgement came %.3f s before the %s\n", age_s(r),
		       r->sim_cut ? "simulated cut" : "witness's last record");
}

static int print_json(const struct verify_ack_result *r, const struct profile *p,
		      const struct plan *pl, const char *spec)
{
	struct strbuf doc = STRBUF_INIT;
	struct json j = JSON_INIT(&doc);
	int ret;

	json_begin_object(&j, NULL);
	json_doc_versions(&j);
	json_str(&j, "profile", p->name);
	json_str(&j, "witness", spec);
	json_u64(&j, "acknowledgements", r->acks);
	json_u64(&j, "pages", r->pages);
	json_begin_object(&j, "count");
	for (unsigned c = 0; c < VERIFY_ACK_CLASSES; c++)
		json_u64(&j, class_keys[c], r->count[c]);
	json_end(&j);
	json_u64(&j, "written_since", r->newer);
	json_u64(&j, "torn_in_flight", r->torn_in_flight);
	json_str(&j, "cut", r->sim_cut ? "simulated" : "last_acknowledgement");
	if (r->newest_lost_ns)
		json_fixed(&j, "newest_lost_age_s", age_s(r), 3);
	else
		json_null(&j, "newest_lost_age_s");
	json_begin_array(&j, "bad");
	for (size_t i = 0; i < r->nr_bad; i++) {
		const struct verify_ack_bad *b = &r->bad[i];

		json_begin_object(&j, NULL);
		json_str(&j, "database", b->db < pl->nr_dbs ? pl->dbs[b->db].name : NULL);
		json_u64(&j, "page", b->page);
		json_str(&j, "class", class_keys[b->cls]);
		json_u64(&j, "acknowledged_generation", b->acked_gen);
		json_u64(&j, "found_generation", b->found_gen);
		json_fixed(&j, "before_cut_s", (double)(r->cut_ns - b->acked_ns) / 1e9, 3);
		json_end(&j);
	}
	json_end(&j);
	json_u64(&j, "unlisted", r->unlisted);
	json_str(&j, "result", any_bad(r) ? "integrity_error" : "clean");
	json_end(&j);
	strbuf_addch(&doc, '\n');
	ret = cli_emit(NULL, NULL, &doc, stdout);
	strbuf_release(&doc);
	return ret;
}

int cli_verify_witness(const struct profile *p, const struct plan *pl, const char *spec, bool json)
{
	struct witness_log log = {0};
	struct verify_ack_result r = {0};
	struct strbuf err = STRBUF_INIT;
	char why[512] = "";
	int ret;

	ret = witness_load(spec, &log, why, sizeof(why));
	if (ret) {
		fprintf(stderr, "diskproof: witness %s: %s\n", spec, why);
		ret = DP_EXIT_ENV;
		goto out;
	}
	ret = verify_witness(pl, engine_simulated(p->engine), &log, LISTED, &r, &err);
	if (ret) {
		cli_print_err(err.buf);
		ret = DP_EXIT_ENV;
		goto out;
	}
	if (json ? print_json(&r, p, pl, spec) : (print_text(&r, pl, spec), 0)) {
		ret = DP_EXIT_ENV;
		goto out;
	}
	if (any_bad(&r)) {
		fprintf(stderr,
			"diskproof: data integrity error: %llu acknowledged page(s) lost, torn or "
			"corrupt (see docs/durability.md)\n",
			(unsigned long long)(r.count[VERIFY_ACK_LOST] + r.count[VERIFY_ACK_TORN] +
					     r.count[VERIFY_ACK_CORRUPT]));
		ret = DP_EXIT_INTEGRITY;
	} else {
		ret = DP_EXIT_OK;
	}
out:
	verify_ack_release(&r);
	witness_log_free(&log);
	strbuf_release(&err);
	return ret;
}

bool cli_verify_sim_cut(const struct plan *pl)
{
	struct strbuf path = STRBUF_INIT;
	struct cutstate cs;
	bool found = false;

	for (size_t i = 0; !found && i < pl->nr_dbs; i++) {
		struct strbuf err = STRBUF_INIT;

		cutstate_path(pl->dbs[i].journal, &path);
		found = !cutstate_read(path.buf, &cs, &err);
		cutstate_release(&cs);
		strbuf_release(&err);
	}
	strbuf_release(&path);
	return found;
}
