/* SPDX-License-Identifier: MIT */
/*
 * journals.c - the run's journal writes: marking them in progress, the
 * periodic writes on a detached journal thread (so a hung volume never
 * holds up the coordinator) and the final write, with the data files
 * flushed first when writes go through the page cache.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "diskproof/store.h"
#include "diskproof/journal.h"

#include "run_internal.h"

/* One database's generations from every worker holding a part of it. */
static void journal_gather(const struct run *r, size_t g, bool from_copies, uint32_t *out,
			   uint32_t *flags)
{
	for (unsigned wi = 0; wi < r->nworkers; wi++) {
		const struct worker *w = &r->workers[wi];
		uint64_t off = 0;

		for (unsigned i = 0; i < w->ndb; off += w->dbs[i].n, i++) {
			const struct wl_db *d = &w->dbs[i];
			const uint32_t *map = from_copies ? w->jcopy + off : d->expect;

			if (d->global != g || !map)
				continue;
			/* a page known only as a lower bound stays marked so
			 * (JOURNAL_GEN_LOWER), so that the rest of a clean
			 * journal is exact: one unclean end does not make every
			 * later journal a lower bound */
			for (uint64_t k = 0; k < d->n; k++)
				out[d->lo + k] = map[k] == WL_EXPECT_BAD ? 0 : map[k];
		}
	}
}

/*
 * Through the page cache (direct = off) an acknowledged page write is not yet
 * on the device: the database files are flushed (fdatasync) before a journal
 * says what they hold, or a crash would leave pages older than an exact
 * journal (false lost writes). 0 or the first failure's -errno, said in err.
 */
static int sync_data_files(char *const *paths, size_t n, struct strbuf *err)
{
	for (size_t i = 0; i < n; i++) {
		int fd, ret = 0;

		if (i && !strcmp(paths[i], paths[i - 1]))
			continue; /* regions of one device */
		fd = open(paths[i], O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0 || fdatasync(fd) != 0)
			ret = -errno;
		if (fd >= 0)
			close(fd);
		if (ret) {
			strbuf_addf(err, "%s: cannot flush it before its journal: %s", paths[i],
				    strerror(-ret));
			return ret;
		}
	}
	return 0;
}

/* The database files of the run, when its writes go through the page cache
 * (NULL, 0 otherwise); the caller frees the array, not the names. */
static char **run_data_files(const struct run *r, size_t *n)
{
	char **v;

	*n = 0;
	if (r->prof->direct || !r->plan.files || !(v = calloc(r->plan.nr_dbs, sizeof(*v))))
		return NULL;
	for (size_t g = 0; g < r->plan.nr_dbs; g++)
		v[(*n)++] = r->plan.dbs[g].path;
	return v;
}

/* The journal writes alone: 0, or the first failure's -errno with its
 * message in first_err (each failure's in all, one a line); touches neither
 * the store nor the run's error state, so the journal thread may run it. */
static int journals_write(struct run *r, bool from_copies, bool clean, const bool *skip,
			  struct strbuf *first_err, struct strbuf *all)
{
	struct strbuf err = STRBUF_INIT;
	uint32_t *tmp;
	uint64_t cap = 1;
	int first = 0;

	if (!r->plan.files)
		return 0;
	if (!r->prof->direct) {
		size_t n;
		char **files = run_data_files(r, &n);

		first = sync_data_files(files, n, first_err);
		free(files);
		if (first) {
			strbuf_addf(all, "%s\n", first_err->buf);
			return first;
		}
	}
	for (size_t g = 0; g < r->plan.nr_dbs; g++)
		if (cap < r->plan.dbs[g].nr_pages)
			cap = r->plan.dbs[g].nr_pages;
	tmp = calloc(cap, sizeof(*tmp));
	for (size_t g = 0; g < r->plan.nr_dbs; g++) {
		const struct plan_db *pdb = &r->plan.dbs[g];
		struct journal_info ji = {pdb->id,	 r->prof->page_size,
					  pdb->nr_pages, (uint64_t)r->store.run_id,
					  r->prof->seed, clean ? JOURNAL_CLEAN : 0};
		int ret = -ENOMEM;

		if (skip && skip[g])
			continue;
		strbuf_reset(&err);
		if (tmp) {
			journal_gather(r, g, from_copies, tmp, &ji.flags);
			ret = journal_write(&pdb->jloc, &ji, tmp, &err);
			if (!ret)
				continue;
		} else {
			strbuf_addf(&err, "%s: cannot write journal: out of memory", pdb->journal);
		}
		strbuf_addf(all, "%s\n", err.buf);
		if (!first) {
			first = ret;
			strbuf_addstr(first_err, err.buf);
		}
	}
	free(tmp);
	strbuf_release(&err);
	return first;
}

/* A journal failure the coordinator learnt of: every message stored as an
 * event, the first kept to fail the run with (exit 3). */
static void journals_failed(struct run *r, const char *first, const char *all)
{
	for (const char *line = all; *line;) {
		const char *nl = strchr(line, '\n');
		char *msg = strndup(line, nl ? (size_t)(nl - line) : strlen(line));

		if (msg && r->store.st && !r->store.failed)
			(void)!store_event_add(r->store.st, r->store.run_id, 0, "error", msg,
					       &r->store.err);
		free(msg);
		line = nl ? nl + 1 : line + strlen(line);
	}
	if (!r->jnl.failed)
		strbuf_addstr(&r->jnl.err, first);
	r->jnl.failed = true;
}

/*
 * Writes every database's journal from maps (the live ones at the end, the
 * workers' copies during the run); clean only at the end of a drained run.
 * A database may be shared by several workers, each with a page range.
 * 0, or the first failure's -errno with its message kept in journal_err
 * (and every failure stored as an event): a journal that cannot be written
 * fails the run, since a later run or verify would judge by an older one.
 * The coordinator's own; the periodic writes go through the journal thread.
 */
int run_write_journals(struct run *r, bool from_copies, bool clean)
{
	struct strbuf first = STRBUF_INIT, all = STRBUF_INIT;
	int ret = journals_write(r, from_copies, clean, NULL, &first, &all);

	if (ret)
		journals_failed(r, first.buf, all.buf);
	strbuf_release(&first);
	strbuf_release(&all);
	return ret;
}

/*
 * The journal thread. It sees nothing of the run: each write is a job that
 * the coordinator fills (the journals' places, headers and generations,
 * copied from the workers' copies) and hands over, and what it learns goes
 * back through the channel. So a thread stuck on a hung volume may outlive
 * the run (and its memory) safely: the last of the two to let go of the
 * channel frees it.
 */
struct jjob_db {
	struct journal_loc loc; /* path owned */
	struct journal_info ji;
	uint32_t *gens; /* into the job's buffer */
};

struct jjob {
	size_t n;
	struct jjob_db *dbs;
	uint32_t *buf;
	char **data; /* through the page cache: the files flushed first (owned) */
	size_t ndata;
};

struct jchan {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct jjob *job; /* asked, not yet taken */
	bool busy;	  /* a job asked or being written */
	bool done;	  /* a result not yet polled */
	bool quit;
	int result;	     /* 0, or the first failure's -errno */
	struct strbuf first; /* its message */
	struct strbuf all;   /* every failure's, one a line */
	unsigned refs;	     /* the coordinator and the thread */
};

static void jjob_free(struct jjob *j)
{
	if (!j)
		return;
	for (size_t i = 0; i < j->n; i++)
		free((char *)j->dbs[i].loc.path);
	for (size_t i = 0; i < j->ndata; i++)
		free(j->data[i]);
	free(j->data);
	free(j->dbs);
	free(j->buf);
	free(j);
}

static void jchan_put(struct jchan *c)
{
	bool last;

	pthread_mutex_lock(&c->lock);
	last = --c->refs == 0;
	pthread_mutex_unlock(&c->lock);
	if (!last)
		return;
	jjob_free(c->job);
	strbuf_release(&c->first);
	strbuf_release(&c->all);
	pthread_cond_destroy(&c->cond);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

static void *journal_thread(void *arg)
{
	struct jchan *c = arg;
	struct strbuf err = STRBUF_INIT;

	pthread_mutex_lock(&c->lock);
	for (;;) {
		struct jjob *j;
		bool unsynced = false;
		int first = 0;

		while (!c->job && !c->quit)
			pthread_cond_wait(&c->cond, &c->lock);
		if (!c->job)
			break;
		j = c->job;
		c->job = NULL;
		strbuf_reset(&c->first);
		strbuf_reset(&c->all);
		pthread_mutex_unlock(&c->lock);
		strbuf_reset(&err);
		if (sync_data_files(j->data, j->ndata, &err)) {
			/* no journal says more than the device holds */
			pthread_mutex_lock(&c->lock);
			strbuf_addf(&c->all, "%s\n", err.buf);
			strbuf_addstr(&c->first, err.buf);
			pthread_mutex_unlock(&c->lock);
			first = -EIO;
			unsynced = true;
		}
		for (size_t i = 0; !unsynced && i < j->n; i++) {
			int ret;

			strbuf_reset(&err);
			ret = journal_write(&j->dbs[i].loc, &j->dbs[i].ji, j->dbs[i].gens, &err);
			if (!ret)
				continue;
			pthread_mutex_lock(&c->lock);
			strbuf_addf(&c->all, "%s\n", err.buf);
			if (!first)
				strbuf_addstr(&c->first, err.buf);
			pthread_mutex_unlock(&c->lock);
			first = first ? first : ret;
		}
		jjob_free(j);
		pthread_mutex_lock(&c->lock);
		c->result = first;
		c->done = true;
		c->busy = false;
	}
	pthread_mutex_unlock(&c->lock);
	strbuf_release(&err);
	jchan_put(c);
	return NULL;
}

/* The job of a periodic write: every database's journal from the workers'
 * copies (what they had acknowledged at the interval just merged). NULL when
 * out of memory (the write is skipped: the journals on disk stay lower
 * bounds). */
static struct jjob *jjob_build(const struct run *r)
{
	struct jjob *j = calloc(1, sizeof(*j));
	uint64_t total = 0, off = 0;

	for (size_t g = 0; g < r->plan.nr_dbs; g++)
		total += r->plan.dbs[g].nr_pages;
	if (!j || !(j->dbs = calloc(r->plan.nr_dbs, sizeof(*j->dbs))) ||
	    !(j->buf = malloc((total ? total : 1) * sizeof(*j->buf))))
		goto out_free;
	for (size_t g = 0; g < r->plan.nr_dbs; g++, j->n++) {
		const struct plan_db *pdb = &r->plan.dbs[g];
		struct jjob_db *d = &j->dbs[g];

		d->loc = pdb->jloc;
		d->loc.path = strdup(pdb->jloc.path);
		if (!d->loc.path)
			goto out_free;
		d->ji = (struct journal_info){pdb->id,	     r->prof->page_size,
					      pdb->nr_pages, (uint64_t)r->store.run_id,
					      r->prof->seed, 0};
		d->gens = j->buf + off;
		off += pdb->nr_pages;
		journal_gather(r, g, true, d->gens, &d->ji.flags);
	}
	if (!r->prof->direct) {
		j->data = calloc(r->plan.nr_dbs, sizeof(*j->data));
		if (!j->data)
			goto out_free;
		for (size_t g = 0; g < r->plan.nr_dbs; g++, j->ndata++)
			if (!(j->data[g] = strdup(r->plan.dbs[g].path)))
				goto out_free;
	}
	return j;
out_free:
	jjob_free(j);
	return NULL;
}

/* What the journal thread did last, once: a failure fails the run. */
void journals_thread_poll(struct run *r)
{
	struct jchan *c = r->jnl.chan;
	struct strbuf first = STRBUF_INIT, all = STRBUF_INIT;
	int result = 0;

	if (!c)
		return;
	pthread_mutex_lock(&c->lock);
	if (c->done) {
		c->done = false;
		result = c->result;
		strbuf_addstr(&first, c->first.buf);
		strbuf_addstr(&all, c->all.buf);
	}
	pthread_mutex_unlock(&c->lock);
	if (result) {
		journals_failed(r, first.buf, all.buf);
		r->ctl.env_failed = true;
		coord_stop(r, 0, r->jnl.err.buf);
	}
	strbuf_release(&first);
	strbuf_release(&all);
}

/* Asks for a periodic journal write; skipped while the last is not done. */
void journals_thread_ask(struct run *r)
{
	struct jchan *c = r->jnl.chan;
	struct jjob *j;
	bool busy;

	if (!c)
		return;
	pthread_mutex_lock(&c->lock);
	busy = c->busy;
	pthread_mutex_unlock(&c->lock);
	if (busy || !(j = jjob_build(r)))
		return;
	pthread_mutex_lock(&c->lock);
	c->job = j;
	c->busy = true;
	pthread_cond_signal(&c->cond);
	pthread_mutex_unlock(&c->lock);
}

int journals_thread_start(struct run *r)
{
	struct jchan *c;
	sigset_t all, old;
	pthread_t t;
	int ret;

	if (!r->plan.files || r->jnl.chan)
		return 0;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->cond, NULL);
	strbuf_init(&c->first);
	strbuf_init(&c->all);
	c->refs = 2;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	ret = pthread_create(&t, NULL, journal_thread, c);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		c->refs = 1;
		jchan_put(c);
		return -ret;
	}
	pthread_detach(t);
	r->jnl.chan = c;
	return 0;
}

/*
 * Ends the journal thread: waits for a write in progress unless the run saw
 * a hung I/O (the write waits on the hung filesystem then: it is left to
 * finish, or to the process exit, on its own).
 */
void journals_thread_stop(struct run *r)
{
	struct jchan *c = r->jnl.chan;

	if (!c)
		return;
	pthread_mutex_lock(&c->lock);
	c->quit = true;
	pthread_cond_signal(&c->cond);
	while (c->busy && !r->ctl.hung_seen) {
		pthread_mutex_unlock(&c->lock);
		usleep(1000);
		pthread_mutex_lock(&c->lock);
	}
	pthread_mutex_unlock(&c->lock);
	journals_thread_poll(r);
	r->jnl.chan = NULL;
	jchan_put(c);
}

/*
 * Whether the filesystem of db's journal file has room for the journal
 * written anew (its periodic and final writes are a new file renamed over
 * it). Where it has not, the mark rewrites it whole too, and so fails the
 * run before its first write, as it always has, rather than at its end.
 */
static bool journal_room(const struct plan_db *db)
{
	struct statvfs v;

	if (statvfs(db->jloc.path, &v) != 0)
		return false;
	return (uint64_t)v.f_bavail * v.f_frsize >= journal_region_size(db->nr_pages) + 65536;
}

/*
 * Before the first write of a run (and of each auto-tune level): every
 * journal is rewritten as belonging to a run in progress, so that a crash
 * at any later instant leaves lower bounds, never an exact-looking journal
 * older than the pages (which a later run or verify would call corrupt).
 * The maps are what the workers loaded; nothing has been written yet.
 */
int run_mark_journals(struct run *r)
{
	struct strbuf first = STRBUF_INIT, all = STRBUF_INIT, e = STRBUF_INIT;
	size_t n = r->plan.nr_dbs, k = 0;
	const struct journal_loc **locs = calloc(n + 1, sizeof(*locs));
	size_t *of = calloc(n + 1, sizeof(*of));
	bool *done = calloc(n + 1, sizeof(*done)), *skip = calloc(n + 1, sizeof(*skip));
	int ret;

	if (!r->plan.files || !locs || !of || !done || !skip) {
		ret = run_write_journals(r, false, false);
		goto out;
	}
	/*
	 * A journal file loaded as it is on disk needs only its header marked
	 * (in place, as precondition marks them), all of them side by side; one
	 * that was not (none, damaged, another geometry) and a device's slot
	 * are written whole from the maps the workers loaded. A failed in-place
	 * mark is left to that write, which says its error.
	 */
	for (size_t g = 0; g < n; g++)
		if (!r->jnl.rewrite[g] && !r->plan.dbs[g].jloc.size &&
		    journal_room(&r->plan.dbs[g])) {
			of[k] = g;
			locs[k++] = &r->plan.dbs[g].jloc;
		}
	(void)journal_mark_running_files(locs, k, (uint64_t)r->store.run_id, done, &e);
	for (size_t i = 0; i < k; i++)
		skip[of[i]] = done[i];
	ret = journals_write(r, false, false, skip, &first, &all);
	if (ret)
		journals_failed(r, first.buf, all.buf);
out:
	strbuf_release(&first);
	strbuf_release(&all);
	strbuf_release(&e);
	free(locs);
	free(of);
	free(done);
	free(skip);
	return ret;
}
