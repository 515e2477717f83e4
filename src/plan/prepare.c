/* SPDX-License-Identifier: MIT */
/*
 * prepare.c - getting a plan's files ready before a run or init writes
 * them: safety first. A file at a database's path that does not start with
 * a diskproof page is somebody else's and is never written (unless
 * --destroy-data names it); a block device in use or carrying a filesystem
 * is refused; free space is checked before the first byte is written;
 * an interrupted creation resumes from its first page not written right;
 * missing parts are written by create.c, and the journals init leaves are
 * written last.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "diskproof/env.h"
#include "diskproof/fileopen.h"
#include "diskproof/journal.h"
#include "diskproof/lock.h"
#include "diskproof/page.h"
#include "diskproof/plan.h"
#include "plan_internal.h"

/* checked at the end of a file whose creation was interrupted */
#define PLAN_RESUME_CHECK (8ULL << 20)

/* mkdir -p */
int plan_make_dirs(const char *path, struct strbuf *err)
{
	char buf[PATH_MAX];
	size_t len = strlen(path);

	if (len >= sizeof(buf)) {
		strbuf_addf(err, "%s: path too long", path);
		return -ENAMETOOLONG;
	}
	memcpy(buf, path, len + 1);
	for (char *s = buf + 1;; s++) {
		if (*s == '/' || *s == '\0') {
			char c = *s;

			*s = '\0';
			if (mkdir(buf, 0755) != 0 && errno != EEXIST) {
				int e = errno;

				strbuf_addf(err, "%s: cannot create directory: %s", buf,
					    strerror(e));
				return -e;
			}
			*s = c;
			if (!c)
				break;
		}
	}
	return 0;
}

/* Whether --destroy-data named path (compared after resolving both). */
static bool destroy_allowed(const struct plan *pl, const char *path)
{
	for (size_t i = 0; i < pl->ndestroy; i++)
		if (path_same(path, pl->destroy[i]))
			return true;
	return false;
}

/* Whether a page header is all zeros. */
static bool header_zero(const struct page_header *h)
{
	const unsigned char *p = (const unsigned char *)h;

	for (size_t i = 0; i < sizeof(*h); i++)
		if (p[i])
			return false;
	return true;
}

/*
 * Does the journal at loc belong to database db_id of nr_pages pages? 1 or
 * 0 (none there, or one read whole that is not this database's); -errno
 * with "WHERE: cannot read the journal: why" in err when it cannot be read:
 * an I/O error is never taken for "not this database's".
 */
static int journal_matches(const struct journal_loc *loc, uint32_t db_id, uint32_t page_size,
			   uint64_t nr_pages, struct strbuf *err)
{
	struct strbuf jerr = STRBUF_INIT;
	struct journal_info ji;
	uint32_t *gens = NULL;
	int ret = journal_read(loc, &ji, &gens, &jerr);

	if (!ret)
		ret = journal_info_matches(&ji, db_id, page_size, nr_pages);
	else if (ret == -ENOENT || ret == -EINVAL)
		ret = 0;
	else
		strbuf_addstr(err, jerr.buf);
	free(gens);
	strbuf_release(&jerr);
	return ret;
}

/*
 * The header at the start of path: 1 when read whole, 0 when the file is
 * shorter; -errno with "PATH: cannot read: why" in err when it cannot be
 * read (an I/O error is never taken for somebody else's file).
 */
static int first_header(const char *path, struct page_header *h, struct strbuf *err)
{
	ssize_t n;
	int fd, ret;

	/* O_NONBLOCK: something swapped in since the lstat must not block */
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		strbuf_addf(err, "%s: cannot open: %s", path, strerror(-ret));
		return ret;
	}
	n = pread(fd, h, sizeof(*h), 0);
	ret = n < 0 ? -errno : n == (ssize_t)sizeof(*h);
	close(fd);
	if (ret < 0)
		strbuf_addf(err, "%s: cannot read: %s", path, strerror(-ret));
	return ret;
}

/*
 * What is at path: *size of a diskproof file there with the expected
 * geometry (page 0 checked), 0 when missing. A file that is someone else's,
 * or diskproof's with another geometry or a larger size, is -EEXIST with what
 * differs. A regular file that --destroy-data names is never looked into:
 * *destroy is set and *size is 0 (it is cut to nothing and written from its
 * first page). Links are never followed (diskproof's files are regular files
 * where the plan says), nor is a file with other names written.
 */
static int inspect_file(const struct plan *pl, const char *path, uint32_t block,
			enum page_kind kind, uint32_t db_id, uint64_t want, uint64_t *size,
			bool *destroy, const struct journal_loc *jloc, struct strbuf *err)
{
	const char *what = kind == PAGE_KIND_DB ? "database" : "log";
	struct strbuf why = STRBUF_INIT;
	struct page_header h;
	struct stat st;
	int whole, lost = 0, ret = 0;

	*size = 0;
	*destroy = false;
	if (lstat(path, &st) != 0) {
		if (errno == ENOENT)
			return 0;
		ret = -errno;
		strbuf_addf(err, "%s: %s", path, strerror(-ret));
		return ret;
	}
	if (S_ISLNK(st.st_mode)) {
		strbuf_addf(err,
			    "%s: is a symbolic link; diskproof does not follow links to "
			    "its files (it could write outside the volume)",
			    path);
		return -ELOOP;
	}
	if (!S_ISREG(st.st_mode)) {
		strbuf_addf(err,
			    "%s: exists and is %s, not a regular file; diskproof will not "
			    "touch it",
			    path, file_kind_name(st.st_mode));
		return -EEXIST;
	}
	if (st.st_nlink > 1) {
		/* writing it would write the other names' file too (even a
		 * truncate for --destroy-data) */
		strbuf_addf(err,
			    "%s: has %lu hard links: the same file is also elsewhere; "
			    "diskproof will not write it (remove this name)",
			    path, (unsigned long)st.st_nlink);
		return -EEXIST;
	}
	if (destroy_allowed(pl, path)) {
		/* named to be destroyed: created anew from its first page, whatever
		 * it holds (a complete diskproof file too), never resumed */
		*destroy = true;
		return 0;
	}
	if (st.st_size == 0)
		return 0;
	whole = first_header(path, &h, err);
	if (whole == 1 && jloc && header_zero(&h) && (uint64_t)st.st_size == want)
		lost = journal_matches(jloc, db_id, block, want / block, err);
	if (whole < 0 || lost < 0)
		return whole < 0 ? whole : lost;
	if (lost)
		/* its first page is zeroed, but its own journal says it is this
		 * database: data the device lost, which the run's reads report as
		 * integrity errors (never "not ours") */
		;
	else if (!whole || h.magic != PAGE_MAGIC || h.kind != (uint32_t)kind)
		strbuf_addf(&why,
			    "exists and is not a diskproof %s file; diskproof never "
			    "overwrites data it did not write (move it away, pick another "
			    "path, or name it with --destroy-data)",
			    what);
	else if (h.page_size != block)
		strbuf_addf(&why,
			    "was created with %u-byte %s, the profile asks for %u (delete "
			    "it, or name it with --destroy-data)",
			    h.page_size, kind == PAGE_KIND_DB ? "pages" : "log blocks", block);
	else if (h.db_id != db_id)
		strbuf_addf(&why,
			    "holds database %u's %s, not database %u's (delete it, or name "
			    "it with --destroy-data)",
			    h.db_id, kind == PAGE_KIND_DB ? "pages" : "log", db_id);
	else if ((uint64_t)st.st_size > want)
		strbuf_addf(&why,
			    "is %llu bytes, the profile asks for %llu (set the size it was "
			    "made with, delete it, or name it with --destroy-data)",
			    (unsigned long long)st.st_size, (unsigned long long)want);
	if (why.len) {
		strbuf_addf(err, "%s: %s", path, why.buf);
		ret = -EEXIST;
	} else {
		*size = (uint64_t)st.st_size;
	}
	strbuf_release(&why);
	return ret;
}

/*
 * A database file shorter than its journal knows was complete once and lost
 * its end (truncated by someone or something): regrowing it would hide lost
 * data behind fresh pages, so it is refused (-EUCLEAN: a data integrity
 * error). One that --destroy-data names never gets here (have is 0: it is
 * created anew). An interrupted creation has no journal for its file yet,
 * so resuming one is not refused.
 */
static int check_shrunk(const struct plan *pl, const struct plan_db *db, uint64_t have,
			struct strbuf *err)
{
	struct strbuf jerr = STRBUF_INIT;
	struct journal_info ji;
	uint32_t *gens = NULL;
	uint64_t known;
	int ret;

	if (!have || have >= db->size)
		return 0;
	ret = journal_read(&db->jloc, &ji, &gens, &jerr);
	if (ret && ret != -ENOENT && ret != -EINVAL)
		/* what it knows cannot be told: never regrown blind */
		strbuf_addstr(err, jerr.buf);
	else if (ret)
		ret = 0; /* none, or not a usable journal: nothing known */
	else if (journal_info_matches(&ji, db->id, pl->page_size, ji.nr_pages)) {
		/* any page count (its own): it may know fewer pages than planned */
		known = ji.nr_pages < db->nr_pages ? ji.nr_pages : db->nr_pages;
		if (have / pl->page_size < known) {
			strbuf_addf(err,
				    "%s: is %llu bytes, but its journal %s knows %llu pages "
				    "(%llu bytes): the file lost pages diskproof wrote (data "
				    "loss); diskproof will not regrow it over them (name it "
				    "with --destroy-data to create it anew)",
				    db->path, (unsigned long long)have, db->journal,
				    (unsigned long long)known,
				    (unsigned long long)(known * pl->page_size));
			ret = -EUCLEAN;
		}
	}
	free(gens);
	strbuf_release(&jerr);
	return ret;
}

/*
 * Where to resume an interrupted creation: the first page (or log block) in
 * the last PLAN_RESUME_CHECK bytes before have that does not read back as
 * written by init, else have. Finished pages are never rewritten.
 */
static uint64_t resume_point(const char *path, enum page_kind kind, uint32_t block, uint32_t db_id,
			     uint64_t have)
{
	uint64_t start = have > PLAN_RESUME_CHECK ? have - PLAN_RESUME_CHECK : 0, found;
	unsigned char *buf = NULL;
	uint64_t at = start;
	ssize_t n;
	int fd;

	start -= start % block;
	at = start;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || posix_memalign((void **)&buf, 4096, block))
		goto out;
	for (; at + block <= have; at += block) {
		struct page_header h;

		n = pread(fd, buf, block, (off_t)at);
		if (n != (ssize_t)block)
			break;
		memcpy(&h, buf, sizeof(h));
		if (h.kind != (uint32_t)kind)
			break;
		if (page_verify(buf, block, db_id, at / block, h.generation, true, &found) !=
			    PAGE_OK &&
		    kind == PAGE_KIND_DB)
			break;
		if (kind == PAGE_KIND_LOG &&
		    page_log_verify(buf, block, db_id, at / block, false) != PAGE_OK)
			break;
	}
out:
	free(buf);
	if (fd >= 0)
		close(fd);
	return at < have ? at : have - have % block;
}

/* Whether loc holds a journal (usable or not). */
static bool journal_present(const struct journal_loc *loc)
{
	struct strbuf err = STRBUF_INIT;
	struct journal_info ji;
	uint32_t *gens = NULL;
	int ret = journal_read(loc, &ji, &gens, &err);

	free(gens);
	strbuf_release(&err);
	return ret != -ENOENT;
}

/*
 * The journals init leaves. A database this call created or finished holds
 * generation 1 on every page (an interrupted creation is only ever resumed
 * by another creation): its journal says so, exactly. A journal already
 * there for a resumed file is kept (it can only be this same state, or newer
 * knowledge). A database whose file was complete before this call but has
 * no journal (an earlier init finished it and was stopped, even by kill -9,
 * before writing the journals; or the journal was deleted) gets generation
 * 1 as a lower bound: every page holds at least that, and runs may have
 * written some since, so exact would be a guess.
 */
static int write_fresh_journals(const struct plan *pl, const struct profile *p,
				const uint64_t *have_db, const bool *destroy, struct strbuf *err)
{
	uint32_t *gens = NULL;
	uint64_t cap = 0;
	int ret = 0;

	for (size_t i = 0; i < pl->nr_dbs && !ret; i++) {
		const struct plan_db *db = &pl->dbs[i];
		struct journal_info ji = {db->id, pl->page_size, db->nr_pages,
					  0,	  p->seed,	 JOURNAL_CLEAN};
		bool untouched = have_db[i] >= db->size;

		if ((untouched || (have_db[i] && !destroy[2 * i])) && journal_present(&db->jloc))
			continue;
		if (untouched)
			ji.flags = 0;
		if (cap < db->nr_pages) {
			free(gens);
			cap = db->nr_pages;
			gens = malloc(cap * sizeof(*gens));
			if (!gens) {
				strbuf_addstr(err, "out of memory");
				return -ENOMEM;
			}
		}
		for (uint64_t pg = 0; pg < db->nr_pages; pg++)
			gens[pg] = 1;
		ret = journal_write(&db->jloc, &ji, gens, err);
	}
	free(gens);
	return ret;
}

/*
 * A file at a database's journal path that is not a journal (a user's file
 * named db1.gen, a directory, a link) is never replaced: -EEXIST. Whatever
 * is there (a journal too) goes when --destroy-data names it: *remove is
 * set, and a journal written anew takes its place (write_fresh_journals).
 */
static int inspect_journal(const struct plan *pl, const struct plan_db *db, bool *remove,
			   struct strbuf *err)
{
	struct stat st;
	int ret;

	*remove = false;
	if (db->jloc.size)
		return 0;
	if (destroy_allowed(pl, db->journal)) {
		*remove = lstat(db->journal, &st) == 0;
		return 0;
	}
	ret = journal_file_check(db->journal, err);
	if (ret != -EEXIST)
		return ret; /* a journal, none, or one that cannot be read */
	strbuf_addf(err,
		    "%s: exists and is not a diskproof generation journal; diskproof never "
		    "overwrites data it did not write (move it away, or name it with "
		    "--destroy-data)",
		    db->journal);
	return -EEXIST;
}

/* A region (of a device) holds a complete diskproof file when its first and
 * last blocks are ours: the bytes present, else 0 (rewritten whole). */
static uint64_t region_have(int fd, uint64_t base, uint64_t size, uint32_t block,
			    enum page_kind kind, uint32_t db_id)
{
	uint64_t at[2] = {0, size - block};
	struct page_header h;

	for (int i = 0; i < 2; i++) {
		if (pread(fd, &h, sizeof(h), (off_t)(base + at[i])) != (ssize_t)sizeof(h))
			return 0;
		if (kind == PAGE_KIND_LOG
			    ? page_log_verify(&h, block, db_id, at[i] / block, false) != PAGE_OK
			    : h.magic != PAGE_MAGIC || h.kind != (uint32_t)kind ||
				      h.db_id != db_id || h.page_size != block ||
				      h.page_no != at[i] / block)
			return 0;
	}
	return size;
}

/*
 * Checks a block-device volume before anything is written to it: never one
 * in use (mounted, swap, RAID/LVM member: an exclusive open fails); one that
 * does not already hold this layout only when --destroy-data names it, and
 * one with a filesystem, RAID or partition-table signature only with --force
 * as well. A device that --destroy-data names is rewritten whole (every
 * region, its journals anew), even when it holds this layout already: have_db
 * and have_log stay 0 for its regions. Otherwise they are filled for the
 * regions it holds. The O_EXCL descriptor the caller's lock holds (lock.h) is
 * reused: a second O_EXCL open would fail.
 */
static int check_device(const struct plan *pl, const struct plan_volume *vol, uint64_t *have_db,
			uint64_t *have_log, struct strbuf *err)
{
	const struct plan_db *first = &pl->dbs[vol->first_db];
	struct strbuf sig = STRBUF_INIT;
	struct page_header h;
	bool ours, named = destroy_allowed(pl, vol->path);
	int held = plan_lock_device_fd(pl->lock, vol->path);
	int fd = held, ret = 0;

	if (held < 0)
		fd = open(vol->path, O_RDONLY | O_EXCL | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		if (ret == -EBUSY)
			strbuf_addf(err,
				    "%s: the block device is in use (mounted, swap, or part of "
				    "a RAID or LVM); diskproof will not touch it",
				    vol->path);
		else
			strbuf_addf(err, "%s: cannot open: %s", vol->path, strerror(-ret));
		return ret;
	}
	ours = pread(fd, &h, sizeof(h), (off_t)first->base) == (ssize_t)sizeof(h) &&
	       h.magic == PAGE_MAGIC && h.kind == PAGE_KIND_DB && h.db_id == first->id &&
	       h.page_size == pl->page_size;
	/* probed even when the first page is ours: a filesystem or partition
	 * table made since may have left those bytes alone */
	env_device_signature(vol->path, &sig);
	if (ours && sig.len) {
		if (!named || !pl->force) {
			strbuf_addf(err,
				    "%s: the block device holds diskproof's databases but also "
				    "carries %s (written there since?); name it with "
				    "--destroy-data %s and add --force to overwrite it",
				    vol->path, sig.buf, vol->path);
			ret = -EEXIST;
		}
	} else if (!ours) {
		if (!named) {
			strbuf_addf(
				err,
				"%s: the block device does not hold diskproof's databases%s%s%s; "
				"name it with --destroy-data %s to let diskproof overwrite it",
				vol->path, sig.len ? " (it carries " : "", sig.buf,
				sig.len ? ")" : "", vol->path);
			ret = -EEXIST;
		} else if (sig.len && !pl->force) {
			strbuf_addf(err,
				    "%s: the block device carries %s; add --force as well to "
				    "overwrite it",
				    vol->path, sig.buf);
			ret = -EEXIST;
		}
	}
	/* named: rewritten whole, every region from its start */
	for (unsigned k = 0; ours && !named && !ret && k < vol->nr_dbs; k++) {
		const struct plan_db *db = &pl->dbs[vol->first_db + k];
		size_t i = vol->first_db + k;

		have_db[i] =
			region_have(fd, db->base, db->size, pl->page_size, PAGE_KIND_DB, db->id);
		if (vol->log_device)
			have_log[i] = region_have(fd, db->log_base, db->log_size, vol->log_align,
						  PAGE_KIND_LOG, db->id);
	}
	if (held < 0)
		close(fd);
	strbuf_release(&sig);
	return ret;
}

/* The bytes path's blocks take, at most want: what cutting it to nothing
 * gives back to its filesystem (a sparse file gives little or nothing). */
static uint64_t held_bytes(const char *path, uint64_t want)
{
	struct stat st;
	uint64_t held;

	if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;
	held = (uint64_t)st.st_blocks * 512;
	return held < want ? held : want;
}

/*
 * The free-space check just before writing: what is at the paths need not
 * be written, and a file --destroy-data names gives its blocks back when it
 * is cut to nothing, before it is written whole.
 */
static int check_space_now(const struct plan *pl, const uint64_t *have_db, const uint64_t *have_log,
			   const bool *destroy, struct strbuf *err)
{
	uint64_t *room = calloc(2 * pl->nr_dbs + 1, sizeof(*room));
	int ret;

	if (!room) {
		strbuf_addstr(err, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < pl->nr_dbs; i++) {
		const struct plan_db *db = &pl->dbs[i];

		room[i] = destroy[2 * i] ? held_bytes(db->path, db->size) : have_db[i];
		room[pl->nr_dbs + i] =
			destroy[2 * i + 1] ? held_bytes(db->log_file, db->log_size) : have_log[i];
	}
	ret = plan_check_space(pl, room, room + pl->nr_dbs, err);
	free(room);
	return ret;
}

/*
 * What --destroy-data named goes before anything is written: a database or
 * log is cut to nothing (then written from its first page), a file or link
 * at a journal's path is removed (a link itself, never what it points to).
 */
static int destroy_named(const struct plan *pl, const bool *destroy, const bool *jremove,
			 struct strbuf *err)
{
	for (size_t i = 0; i < 2 * pl->nr_dbs; i++) {
		const char *path = i % 2 ? pl->dbs[i / 2].log_file : pl->dbs[i / 2].path;

		if (destroy[i] && truncate(path, 0) != 0) {
			int ret = -errno;

			strbuf_addf(err, "%s: cannot truncate: %s", path, strerror(-ret));
			return ret;
		}
	}
	for (size_t i = 0; i < pl->nr_dbs; i++) {
		const char *path = pl->dbs[i].journal;

		if (jremove[i] && unlink(path) != 0 && (errno != EISDIR || rmdir(path) != 0)) {
			int ret = -errno;

			strbuf_addf(err, "%s: cannot remove: %s", path, strerror(-ret));
			return ret;
		}
	}
	return 0;
}

/* "PATH, PATH, DEV (the whole device)": what --destroy-data re-created, in
 * plan order. */
static void note_remade(const struct plan *pl, const bool *destroy, const bool *jremove,
			struct strbuf *remade)
{
	for (size_t v = 0; remade && v < pl->nr_vols; v++) {
		const struct plan_volume *vol = &pl->vols[v];

		if (vol->device && destroy_allowed(pl, vol->path))
			strbuf_addf(remade, "%s%s (the whole device)", remade->len ? ", " : "",
				    vol->path);
		for (size_t i = vol->first_db; i < vol->first_db + vol->nr_dbs; i++) {
			if (destroy[2 * i])
				strbuf_addf(remade, "%s%s", remade->len ? ", " : "",
					    pl->dbs[i].path);
			if (destroy[2 * i + 1])
				strbuf_addf(remade, "%s%s", remade->len ? ", " : "",
					    pl->dbs[i].log_file);
			if (jremove[i])
				strbuf_addf(remade, "%s%s (a new journal)", remade->len ? ", " : "",
					    pl->dbs[i].journal);
		}
	}
}

int plan_prepare_files(const struct plan *pl, const struct profile *p,
		       const struct plan_progress *prog, uint64_t *fresh_from, uint64_t *created,
		       struct strbuf *remade, struct strbuf *err)
{
	uint64_t *have_db = NULL, *have_log = NULL;
	bool *destroy = NULL, *jremove = NULL;
	struct create_job *jobs = NULL;
	size_t njobs = 0;
	int ret = 0;

	*created = 0;
	if (!pl->files)
		return 0;
	have_db = calloc(pl->nr_dbs, sizeof(*have_db));
	have_log = calloc(pl->nr_dbs, sizeof(*have_log));
	destroy = calloc(2 * pl->nr_dbs, sizeof(*destroy));
	jremove = calloc(pl->nr_dbs ? pl->nr_dbs : 1, sizeof(*jremove));
	if (!have_db || !have_log || !destroy || !jremove) {
		ret = -ENOMEM;
		strbuf_addstr(err, "out of memory");
		goto out_free;
	}
	for (size_t v = 0; v < pl->nr_vols; v++) {
		const struct plan_volume *vol = &pl->vols[v];

		ret = vol->device ? check_device(pl, vol, have_db, have_log, err)
				  : plan_make_dirs(vol->path, err);
		if (!ret && !vol->log_device)
			ret = plan_make_dirs(vol->log_path, err);
		if (ret)
			goto out_free;
	}
	/* Look at everything before writing anything. */
	for (size_t i = 0; i < pl->nr_dbs; i++) {
		const struct plan_db *db = &pl->dbs[i];
		const struct plan_volume *vol = &pl->vols[db->volume];

		if (!vol->device)
			ret = inspect_file(pl, db->path, pl->page_size, PAGE_KIND_DB, db->id,
					   db->size, &have_db[i], &destroy[2 * i], &db->jloc, err);
		if (!ret && !vol->log_device)
			ret = inspect_file(pl, db->log_file, vol->log_align, PAGE_KIND_LOG, db->id,
					   db->log_size, &have_log[i], &destroy[2 * i + 1], NULL,
					   err);
		if (!ret && !vol->device)
			ret = check_shrunk(pl, db, have_db[i], err);
		if (!ret)
			ret = inspect_journal(pl, db, &jremove[i], err);
		if (ret)
			goto out_free;
		have_db[i] -= have_db[i] % pl->page_size;
	}
	/* Free space, per filesystem: volumes and log paths may share one, or
	 * the logs may live on a disk of their own. */
	ret = check_space_now(pl, have_db, have_log, destroy, err);
	if (!ret)
		ret = destroy_named(pl, destroy, jremove, err);
	if (ret)
		goto out_free;
	/* A resumed file's last pages may not have reached the disk before the
	 * stop: check them and rewrite from the first that is not right. */
	for (size_t i = 0; i < pl->nr_dbs; i++) {
		const struct plan_db *db = &pl->dbs[i];

		if (have_db[i] && have_db[i] < db->size && !pl->vols[db->volume].device)
			have_db[i] = resume_point(db->path, PAGE_KIND_DB, pl->page_size, db->id,
						  have_db[i]);
		if (have_log[i] && have_log[i] < db->log_size && !pl->vols[db->volume].log_device)
			have_log[i] =
				resume_point(db->log_file, PAGE_KIND_LOG,
					     pl->vols[db->volume].log_align, db->id, have_log[i]);
		if (fresh_from)
			fresh_from[i] =
				have_db[i] < db->size ? have_db[i] / pl->page_size : db->nr_pages;
	}
	jobs = calloc(2 * pl->nr_dbs, sizeof(*jobs));
	if (!jobs) {
		ret = -ENOMEM;
		strbuf_addstr(err, "out of memory");
		goto out_free;
	}
	for (size_t v = 0; v < pl->nr_vols; v++) {
		const struct plan_volume *vol = &pl->vols[v];

		for (unsigned k = 0; k < vol->nr_dbs; k++) {
			size_t i = vol->first_db + k;
			const struct plan_db *db = &pl->dbs[i];

			if (have_db[i] < db->size)
				jobs[njobs++] = (struct create_job){
					db->path,   PAGE_KIND_DB, db->id,      pl->page_size,
					have_db[i], db->size,	  (unsigned)v, db->base};
			if (have_log[i] < db->log_size)
				jobs[njobs++] = (struct create_job){
					db->log_file,
					PAGE_KIND_LOG,
					db->id,
					vol->log_align,
					have_log[i] - have_log[i] % vol->log_align,
					db->log_size,
					(unsigned)v,
					db->log_base};
		}
	}
	ret = plan_create_files(pl, p, jobs, njobs, prog, created, err);
	if (!ret)
		ret = write_fresh_journals(pl, p, have_db, destroy, err);
	if (!ret)
		note_remade(pl, destroy, jremove, remade);
out_free:
	free(destroy);
	free(jremove);
	free(jobs);
	free(have_db);
	free(have_log);
	return ret;
}

/* The size of the regular file at path (links not followed), 0 when there is
 * none. */
static uint64_t regular_size(const char *path)
{
	struct stat st;

	if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;
	return (uint64_t)st.st_size;
}

/* Database db's pages as its own journal knows them, in bytes; 0 when there
 * is no usable journal of this database and page size. */
static uint64_t journal_held(const struct plan *pl, const struct plan_db *db)
{
	struct strbuf jerr = STRBUF_INIT;
	struct journal_info ji;
	uint32_t *gens = NULL;
	uint64_t bytes = 0;

	if (!journal_read(&db->jloc, &ji, &gens, &jerr) &&
	    journal_info_matches(&ji, db->id, pl->page_size, ji.nr_pages))
		bytes = ji.nr_pages * pl->page_size;
	free(gens);
	strbuf_release(&jerr);
	return bytes;
}

size_t plan_held_read(const struct plan *pl, struct plan_held *held)
{
	size_t differ = 0;

	for (size_t i = 0; i < pl->nr_dbs; i++) {
		const struct plan_db *db = &pl->dbs[i];
		const struct plan_volume *vol = &pl->vols[db->volume];
		struct plan_held *h = &held[i];

		*h = (struct plan_held){0};
		if (!pl->files || vol->device)
			continue;
		/* the journal first: a database file gone or cut short is still
		 * the size its journal knows (verify then reports what is lost) */
		h->size = journal_held(pl, db);
		if (!h->size) {
			h->size = regular_size(db->path);
			h->size -= h->size % pl->page_size;
		}
		if (!vol->log_device)
			h->log_size = regular_size(db->log_file);
		differ += (h->size && h->size != db->size) ||
			  (h->log_size && h->log_size != db->log_size);
	}
	return differ;
}

void plan_held_adopt(struct plan *pl, const struct plan_held *held)
{
	for (size_t i = 0; i < pl->nr_dbs; i++) {
		struct plan_db *db = &pl->dbs[i];

		if (held[i].size) {
			db->size = held[i].size;
			db->nr_pages = held[i].size / pl->page_size;
		}
		if (held[i].log_size)
			db->log_size = held[i].log_size;
	}
}
