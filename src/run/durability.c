/* SPDX-License-Identifier: MIT */
/*
 * durability.c - a durability test's witness (docs/durability.md): every page
 * write is write-through (workload: ENGINE_RF_DSYNC), so its completion is
 * the durability point; once it has returned, the worker keeps the page's
 * acknowledgement (database, page, generation, time) and, after the turn
 * that reaped it, sends what it kept as one batch (witness_send returns only
 * once the witness made the batch durable). A witness that fails stops the
 * run as an error: nothing may go on unwitnessed. With the sim engine and
 * [sim] cut_at the run stops at the cut, no write completing after it is
 * acknowledged, and what the simulated devices kept is written beside each
 * journal (cutstate.h), where verify reads it.
 *
 * Times: an acknowledgement's time_ns is CLOCK_REALTIME of its completion:
 * the run clock's completion stamp plus the real time at the run clock's 0
 * (on virtual time, the run's start: so a simulated run's witness reads as
 * a run that started then).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diskproof/cutstate.h"

#include "run_internal.h"

/* acknowledgements one worker keeps between sends: a turn reaps at most its
 * slots, each of at most 64 pages (a merged write) */
static size_t acks_cap(const struct worker *w)
{
	size_t n = (size_t)w->nslots * 64;

	return n < WITNESS_BATCH_MAX ? n : WITNESS_BATCH_MAX;
}

int run_durability_open(struct run *r, struct strbuf *err)
{
	struct run_durability *d = &r->dur;
	const struct profile *p = r->prof;
	char tag[WITNESS_TAG_MAX + 1], why[512] = "";
	uint64_t now = time_real_ns();
	int ret;

	if (p->type != PROFILE_TEST_DURABILITY)
		return 0;
	d->on = true;
	d->epoch_ns = now - engine_clock_now(&r->clock);
	if (r->virt && p->sim.write_cache && p->sim.cut_at_ns)
		d->cut_ns = p->sim.cut_at_ns;
	for (unsigned i = 0; i < r->nworkers; i++) {
		struct worker *w = &r->workers[i];

		w->acks.cap = acks_cap(w);
		w->acks.a = calloc(w->acks.cap ? w->acks.cap : 1, sizeof(*w->acks.a));
		if (!w->acks.a) {
			strbuf_addstr(err, "durability: out of memory for the acknowledgements");
			return -ENOMEM;
		}
	}
	if (pthread_mutex_init(&d->lock, NULL)) {
		strbuf_addstr(err, "durability: cannot make the witness's lock");
		return -ENOMEM;
	}
	d->lock_made = true;
	snprintf(tag, sizeof(tag), "%.64s@%llu", p->name ? p->name : "profile",
		 (unsigned long long)now);
	ret = witness_open(p->witness, tag, &d->w, why, sizeof(why));
	if (ret) {
		strbuf_addf(err, "witness %s: %s", p->witness, why);
		return ret < 0 ? ret : -EIO;
	}
	return 0;
}

void run_durability_ack(void *arg, const struct wl_db *d, unsigned db, uint64_t page, uint64_t gen,
			uint64_t t_done)
{
	struct worker *w = arg;
	struct run_durability *du = &w->run->dur;
	struct worker_acks *a = &w->acks;

	if (!du->on || (du->cut_ns && t_done > du->cut_ns))
		return; /* completed after the simulated cut: never acknowledged */
	if (a->n == a->cap && run_durability_flush(w))
		return;
	a->a[a->n++] = (struct witness_ack){.db = d->pdb->id - 1,
					    .page = page,
					    .generation = gen,
					    .time_ns = (int64_t)(du->epoch_ns + t_done)};
}

int run_durability_flush(struct worker *w)
{
	struct run_durability *d = &w->run->dur;
	char why[512] = "";
	int ret;

	if (!w->acks.n || !d->on)
		return 0;
	if (w->fatal)
		return w->fatal;
	pthread_mutex_lock(&d->lock);
	ret = d->w ? witness_send(d->w, w->acks.a, w->acks.n, why, sizeof(why)) : -EBADF;
	if (!ret) {
		d->acks += w->acks.n;
		d->batches++;
	}
	pthread_mutex_unlock(&d->lock);
	if (ret) {
		w->fatal = ret < 0 ? ret : -EIO;
		snprintf(w->fatal_msg, sizeof(w->fatal_msg), "witness %.80s: %.160s",
			 w->run->prof->witness, why[0] ? why : "it failed");
		return w->fatal;
	}
	w->acks.n = 0;
	return 0;
}

/* A simulated cut's survivors of every database, beside its journal. */
static int keep_cut(struct run *r, struct strbuf *err)
{
	struct strbuf path = STRBUF_INIT;
	int ret = 0;

	for (unsigned i = 0; !ret && i < r->nworkers; i++) {
		struct worker *w = &r->workers[i];

		for (unsigned k = 0; !ret && k < w->ndb; k++) {
			const struct plan_db *pdb = w->dbs[k].pdb;
			unsigned f = wl_file_db(k);
			struct cutstate cs = {
				.db_id = pdb->id,
				.nr_pages = w->files[f].block ? w->files[f].size / w->files[f].block
							      : 0,
				.cut_ns = r->dur.epoch_ns + r->dur.cut_ns};

			cs.pages = calloc(cs.nr_pages ? cs.nr_pages : 1, sizeof(*cs.pages));
			if (!cs.pages)
				ret = -ENOMEM;
			if (!ret && engine_sim_survivors(&w->ctx, f, cs.pages, cs.nr_pages))
				ret = -EINVAL;
			cutstate_path(pdb->journal, &path);
			if (!ret)
				ret = cutstate_write(path.buf, &cs, err);
			else
				strbuf_addf(err, "%s: cannot keep the simulated cut's state",
					    path.buf);
			cutstate_release(&cs);
		}
	}
	strbuf_release(&path);
	return ret;
}

int run_durability_close(struct run *r, struct strbuf *err)
{
	struct run_durability *d = &r->dur;
	char msg[256];
	int ret = 0;

	if (!d->on)
		return 0;
	if (d->cut_ns)
		ret = keep_cut(r, err);
	if (d->w && witness_close(d->w) && !ret) {
		strbuf_addf(err, "witness %s: cannot close it", r->prof->witness);
		ret = -EIO;
	}
	d->w = NULL;
	snprintf(msg, sizeof(msg),
		 "%llu acknowledgement(s) in %llu batch(es) sent to witness %.150s",
		 (unsigned long long)d->acks, (unsigned long long)d->batches, r->prof->witness);
	run_event(r, "durability", msg);
	return ret;
}

void run_durability_release(struct run *r)
{
	struct run_durability *d = &r->dur;

	if (d->w)
		witness_close(d->w);
	d->w = NULL;
	if (d->lock_made)
		pthread_mutex_destroy(&d->lock);
	d->lock_made = false;
	for (unsigned i = 0; r->workers && i < r->nworkers; i++) {
		free(r->workers[i].acks.a);
		r->workers[i].acks.a = NULL;
	}
}
