/*
 * plan.c - from a validated profile to volumes, databases and files on disk.
 *
 * Safety first: a file at a database's path that does not start with a
 * diskproof page is somebody else's and is never written; free space is
 * checked before the first byte is written; new files are written in full
 * (fallocate alone would read back zeros without I/O) with pages in the
 * on-disk format at generation 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include <linux/fs.h>

#include <blkid/blkid.h>

#include "diskproof/fileopen.h"
#include "diskproof/journal.h"
#include "diskproof/lock.h"
#include "diskproof/page.h"
#include "diskproof/plan.h"
#include "diskproof/stats.h"
#include "plan_internal.h"

#define PLAN_CHUNK (1024 * 1024)
/* checked at the end of a file whose creation was interrupted */
#define PLAN_RESUME_CHECK (8ULL << 20)

static char *join_path(const char *dir, const char *name, const char *ext)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(&sb, dir);
	if (sb.len && sb.buf[sb.len - 1] != '/')
		strbuf_addch(&sb, '/');
	strbuf_addstr(&sb, name);
	strbuf_addstr(&sb, ext);
	return strbuf_detach(&sb, NULL);
}

/* The nearest existing ancestor of path (path itself when it exists). */
static void nearest_existing(const char *path, struct strbuf *out)
{
	struct stat st;

	strbuf_reset(out);
	strbuf_addstr(out, path);
	while (strcmp(out->buf, "/") && stat(out->buf, &st) != 0) {
		char *slash = strrchr(out->buf, '/');

		if (!slash) {
			strbuf_reset(out);
			strbuf_addch(out, '.');
			return;
		}
		if (slash == out->buf)
			slash++;
		*slash = '\0';
		out->len = (size_t)(slash - out->buf);
	}
}

/* The logical block size of the disk holding st, from sysfs (a partition's
 * queue settings live on its parent disk); 0 when unknown. */
static uint32_t sysfs_logical_block(const struct stat *st)
{
	dev_t dev = S_ISBLK(st->st_mode) ? st->st_rdev : st->st_dev;

	for (int parent = 0; parent < 2; parent++) {
		char path[128];
		unsigned v = 0;
		FILE *f;

		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/%squeue/logical_block_size",
			 major(dev), minor(dev), parent ? "../" : "");
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%u", &v) != 1)
			v = 0;
		fclose(f);
		if (v)
			return v;
	}
	return 0;
}

/*
 * Direct-I/O offset alignment at path (a directory, file or block device):
 * STATX_DIOALIGN of a file there (an unnamed O_TMPFILE for a directory, since
 * directories do not report it), else the device's logical block size
 * (BLKSSZGET, then sysfs), else 4 KiB.
 */
static uint32_t dio_alignment(const char *path)
{
	struct statx stx;
	struct stat st;
	uint32_t v;
	int fd, lbs = 0;

	if (stat(path, &st) != 0)
		return 4096;
	if (S_ISBLK(st.st_mode)) {
		fd = open(path, O_RDONLY);
		if (fd >= 0) {
			if (ioctl(fd, BLKSSZGET, &lbs) != 0)
				lbs = 0;
			close(fd);
		}
		if (lbs > 0)
			return (uint32_t)lbs;
	} else {
		/* O_NONBLOCK: a FIFO at a volume's path must not hang the plan */
		fd = S_ISDIR(st.st_mode) ? open(path, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600)
					 : open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd >= 0) {
			int ok = statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) == 0 &&
				 (stx.stx_mask & STATX_DIOALIGN) && stx.stx_dio_offset_align;

			close(fd);
			if (ok)
				return stx.stx_dio_offset_align;
		}
	}
	v = sysfs_logical_block(&st);
	return v ? v : 4096;
}

#define PLAN_REGION_ALIGN (1ULL << 20)

static uint64_t round_region(uint64_t v)
{
	return (v + PLAN_REGION_ALIGN - 1) / PLAN_REGION_ALIGN * PLAN_REGION_ALIGN;
}

/* Block-device facts of path: true when it is one, with its size. */
static bool block_device(const char *path, uint64_t *size)
{
	struct stat st;
	int fd;

	*size = 0;
	if (stat(path, &st) != 0 || !S_ISBLK(st.st_mode))
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (ioctl(fd, BLKGETSIZE64, size) != 0)
			*size = 0;
		close(fd);
	}
	return true;
}

/* Volume v is a block device an earlier volume is too (by device number,
 * whatever the names): each lays its regions out from 0, so they would
 * overlap; said in err. */
static bool plan_device_taken(const struct plan *pl, size_t v, struct strbuf *err)
{
	struct stat a, b;

	if (stat(pl->vols[v].path, &a) != 0)
		return false;
	for (size_t u = 0; u < v; u++) {
		if (!pl->vols[u].device || stat(pl->vols[u].path, &b) != 0 ||
		    a.st_rdev != b.st_rdev)
			continue;
		strbuf_addf(err,
			    "volumes %s and %s are the same block device (%s): their "
			    "databases would overwrite each other; give each volume a "
			    "device of its own",
			    pl->vols[u].name, pl->vols[v].name, pl->vols[v].path);
		return true;
	}
	return false;
}

/*
 * Regions of a block-device volume: databases, then (when on the same
 * device) logs, then the journal of each database, each 1 MiB-aligned;
 * checked against the device's size. The journals come last so that the
 * databases and logs of a device initialized before they moved there keep
 * their offsets.
 */
static int plan_device_regions(struct plan *pl, struct plan_volume *vol, struct strbuf *err)
{
	uint64_t off = 0;

	for (unsigned k = 0; k < vol->nr_dbs; k++) {
		struct plan_db *db = &pl->dbs[vol->first_db + k];

		free(db->path);
		db->path = strdup(vol->path);
		if (!db->path)
			return -ENOMEM;
		db->base = off;
		off += round_region(db->size);
	}
	if (vol->log_device) {
		for (unsigned k = 0; k < vol->nr_dbs; k++) {
			struct plan_db *db = &pl->dbs[vol->first_db + k];

			free(db->log_file);
			db->log_file = strdup(vol->path);
			if (!db->log_file)
				return -ENOMEM;
			db->log_base = off;
			off += round_region(db->log_size);
		}
	}
	for (unsigned k = 0; k < vol->nr_dbs; k++) {
		struct plan_db *db = &pl->dbs[vol->first_db + k];
		struct strbuf name = STRBUF_INIT;

		db->journal_base = off;
		db->jloc = (struct journal_loc){db->path, off, journal_region_size(db->nr_pages)};
		off += round_region(db->jloc.size);
		journal_loc_describe(&db->jloc, &name);
		free(db->journal);
		db->journal = strbuf_detach(&name, NULL);
		if (!db->journal)
			return -ENOMEM;
	}
	if (off > vol->dev_size) {
		struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;

		unit_format_size(&a, off);
		unit_format_size(&b, vol->dev_size);
		strbuf_addf(err,
			    "volume %s (%s): the databases%s and their journals need %s, the "
			    "device has %s",
			    vol->name, vol->path, vol->log_device ? ", logs" : "", a.buf, b.buf);
		strbuf_release(&a);
		strbuf_release(&b);
		return -ENOSPC;
	}
	return 0;
}

/*
 * [sizing] capacity on a block device: its databases share capacity % of the
 * device, less the regions of its logs when they live on it too and of
 * their journals; each
 * database a whole number of 1 MiB regions (so whole pages: a page is at most
 * 1 MiB and a power of two), rounded down.
 */
static int capacity_device(struct plan *pl, struct plan_volume *vol, const struct profile *p,
			   struct strbuf *err)
{
	uint64_t budget = (uint64_t)((double)vol->dev_size * p->capacity_pct / 100);
	uint64_t logs = vol->log_device ? vol->nr_dbs * round_region(p->log_size) : 0, per, jr;

	per = budget > logs ? (budget - logs) / vol->nr_dbs : 0;
	/* each database's journal region too (sized for the larger share) */
	jr = round_region(journal_region_size(per / p->page_size));
	per = per > jr ? per - jr : 0;
	per -= per % PLAN_REGION_ALIGN;
	if (!per) {
		struct strbuf a = STRBUF_INIT;

		unit_format_size(&a, vol->dev_size);
		strbuf_addf(err,
			    "volume %s (%s): capacity %g %% of the device's %s leaves no room "
			    "for %u database(s)%s",
			    vol->name, vol->path, p->capacity_pct, a.buf, vol->nr_dbs,
			    vol->log_device ? " after their logs" : "");
		strbuf_release(&a);
		return -ENOSPC;
	}
	for (unsigned k = 0; k < vol->nr_dbs; k++) {
		pl->dbs[vol->first_db + k].size = per;
		pl->dbs[vol->first_db + k].nr_pages = per / p->page_size;
	}
	return 0;
}

/* One filesystem that [sizing] capacity shares out. */
struct cap_fs {
	dev_t dev;
	uint64_t avail; /* free to us, plus what files at the plan's paths hold */
	uint64_t logs;	/* the plan's log files on it */
	unsigned ndb;	/* the plan's databases on it */
	uint64_t made;	/* pages of the largest database file already there */
	struct strbuf vols;
	struct strbuf where; /* the directory free space was read at */
};

/* The filesystem of path (its nearest existing ancestor); -errno with a
 * message when it cannot be read. */
static int cap_fs_find(struct cap_fs *fs, size_t *n, const struct plan_volume *vol,
		       const char *path, bool add, size_t *idx, struct strbuf *err)
{
	struct strbuf probe = STRBUF_INIT;
	char real[PATH_MAX];
	struct statvfs vfs;
	struct stat st;
	int ret = 0;

	nearest_existing(path, &probe);
	if (stat(probe.buf, &st) != 0)
		goto out_errno;
	for (*idx = 0; *idx < *n; (*idx)++)
		if (fs[*idx].dev == st.st_dev)
			goto out;
	if (!add) {
		*idx = SIZE_MAX;
		goto out;
	}
	if (statvfs(probe.buf, &vfs) != 0)
		goto out_errno;
	memset(&fs[*n], 0, sizeof(fs[*n]));
	fs[*n].dev = st.st_dev;
	fs[*n].avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	strbuf_init(&fs[*n].vols);
	strbuf_init(&fs[*n].where);
	strbuf_addstr(&fs[*n].where, realpath(probe.buf, real) ? real : probe.buf);
	*idx = (*n)++;
	goto out;
out_errno:
	ret = -errno;
	strbuf_addf(err, "volume %s: cannot read the free space at %s (for [sizing] capacity): %s",
		    vol->name, probe.buf, strerror(-ret));
out:
	strbuf_release(&probe);
	return ret;
}

/* Bytes held by a regular file at path on filesystem dev (0 otherwise);
 * *size (may be NULL) receives its size. */
static uint64_t held_on(const char *path, dev_t dev, uint64_t *size)
{
	struct stat st;

	if (size)
		*size = 0;
	if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_dev != dev)
		return 0;
	if (size)
		*size = (uint64_t)st.st_size;
	return (uint64_t)st.st_blocks * 512;
}

/*
 * [sizing] capacity on directories, like Jetstress's capacity percentage:
 * the databases on a filesystem share capacity % of its free space (what an
 * unprivileged writer may use, f_bavail), after the logs of the plan that
 * live on the same filesystem. Volumes that share a filesystem share it (two
 * volumes at 60 % each would otherwise ask for 120 %). Files already at the
 * plan's paths count as free, so that a second run sizes the databases as
 * the first did. Each database also needs room for its page journal, twice
 * (it is rewritten beside itself, then renamed): 64 + 4 bytes a page. So a
 * filesystem's databases get pages = (budget - logs) / ndb - 128, divided by
 * (page_size + 8), rounded down: whole pages, journal included, never more
 * than the budget. Databases made before are never shrunk: when the largest
 * database file already there is bigger (the free space shrank since, say the
 * results file grew), its size is kept, as Jetstress reuses the databases it
 * made; a larger share extends them.
 */
static int capacity_files(struct plan *pl, const struct profile *p, struct strbuf *err)
{
	struct cap_fs *fs = calloc(2 * pl->nr_vols, sizeof(*fs));
	size_t *vfs = calloc(pl->nr_vols, sizeof(*vfs)), n = 0, i, k;
	int ret = 0;

	if (!fs || !vfs) {
		ret = -ENOMEM;
		strbuf_addstr(err, "plan: out of memory");
		goto out;
	}
	for (i = 0; i < pl->nr_vols && !ret; i++) {
		struct plan_volume *vol = &pl->vols[i];

		vfs[i] = SIZE_MAX;
		if (vol->device)
			continue;
		ret = cap_fs_find(fs, &n, vol, vol->path, true, &vfs[i], err);
		if (ret)
			break;
		fs[vfs[i]].ndb += vol->nr_dbs;
		strbuf_addf(&fs[vfs[i]].vols, "%s%s", fs[vfs[i]].vols.len ? ", " : "", vol->name);
	}
	/* the logs that take from a databases' filesystem, and files there */
	for (i = 0; i < pl->nr_vols && !ret; i++) {
		struct plan_volume *vol = &pl->vols[i];
		size_t lf = SIZE_MAX;

		if (!vol->log_device)
			ret = cap_fs_find(fs, &n, vol, vol->log_path, false, &lf, err);
		for (k = 0; !ret && k < vol->nr_dbs; k++) {
			const struct plan_db *db = &pl->dbs[vol->first_db + k];

			struct cap_fs *f = vfs[i] != SIZE_MAX ? &fs[vfs[i]] : NULL;
			uint64_t size;

			if (lf != SIZE_MAX) {
				fs[lf].logs += db->log_size;
				fs[lf].avail += held_on(db->log_file, fs[lf].dev, NULL);
			}
			if (!f)
				continue;
			f->avail += held_on(db->path, f->dev, &size) +
				    held_on(db->journal, f->dev, NULL);
			if (size / p->page_size > f->made)
				f->made = size / p->page_size;
		}
	}
	for (k = 0; k < n && !ret; k++) {
		uint64_t budget = (uint64_t)((double)fs[k].avail * p->capacity_pct / 100);
		uint64_t per = budget > fs[k].logs ? (budget - fs[k].logs) / fs[k].ndb : 0;
		uint64_t pages = per > 2 * JOURNAL_HEADER_SIZE
					 ? (per - 2 * JOURNAL_HEADER_SIZE) / (p->page_size + 8)
					 : 0;

		if (pages < fs[k].made)
			pages = fs[k].made; /* made before: never shrunk */
		if (!pages) {
			struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;

			unit_format_size(&a, fs[k].avail);
			unit_format_size(&b, fs[k].logs);
			strbuf_addf(err,
				    "%s %s (%s): capacity %g %% of the %s free leaves no room "
				    "for %u database(s) after their logs (%s)",
				    strchr(fs[k].vols.buf, ',') ? "volumes" : "volume",
				    fs[k].vols.buf, fs[k].where.buf, p->capacity_pct, a.buf,
				    fs[k].ndb, b.buf);
			strbuf_release(&a);
			strbuf_release(&b);
			ret = -ENOSPC;
			break;
		}
		for (i = 0; i < pl->nr_vols; i++) {
			if (vfs[i] != k)
				continue;
			for (unsigned d = 0; d < pl->vols[i].nr_dbs; d++) {
				pl->dbs[pl->vols[i].first_db + d].size = pages * p->page_size;
				pl->dbs[pl->vols[i].first_db + d].nr_pages = pages;
			}
		}
	}
out:
	for (k = 0; fs && k < n; k++) {
		strbuf_release(&fs[k].vols);
		strbuf_release(&fs[k].where);
	}
	free(fs);
	free(vfs);
	return ret;
}

int plan_build(struct plan *pl, const struct profile *p, bool files, struct strbuf *err)
{
	struct strbuf probe = STRBUF_INIT;
	unsigned ndb = profile_database_count(p), d = 0;

	memset(pl, 0, sizeof(*pl));
	pl->page_size = p->page_size;
	pl->files = files;
	pl->vols = calloc(p->nr_volumes, sizeof(*pl->vols));
	pl->dbs = calloc(ndb ? ndb : 1, sizeof(*pl->dbs));
	if (!pl->vols || !pl->dbs)
		goto out_nomem;
	pl->nr_vols = p->nr_volumes;
	pl->nr_dbs = ndb;
	for (size_t v = 0; v < p->nr_volumes; v++) {
		const struct profile_volume *pv = &p->volumes[v];
		struct plan_volume *vol = &pl->vols[v];

		snprintf(vol->name, sizeof(vol->name), "%s", pv->name);
		vol->path = strdup(pv->path);
		vol->log_path = strdup(pv->log_path ? pv->log_path : pv->path);
		if (!vol->path || !vol->log_path)
			goto out_nomem;
		vol->first_db = d;
		vol->nr_dbs = pv->databases;
		vol->align = 4096;
		vol->log_align = 4096;
		if (files) {
			nearest_existing(vol->log_path, &probe);
			vol->log_align = dio_alignment(probe.buf);
			nearest_existing(vol->path, &probe);
			vol->align = dio_alignment(probe.buf);
			if (p->page_size % vol->align) {
				strbuf_addf(err,
					    "volume %s (%s): page size %u is not a multiple of "
					    "the direct-I/O alignment %u",
					    vol->name, vol->path, p->page_size, vol->align);
				strbuf_release(&probe);
				plan_release(pl);
				return -EINVAL;
			}
		}
		for (unsigned i = 0; i < pv->databases; i++, d++) {
			struct plan_db *db = &pl->dbs[d];

			snprintf(db->name, sizeof(db->name), "db%u", d + 1);
			db->id = d + 1;
			db->volume = (unsigned)v;
			db->path = join_path(vol->path, db->name, ".edb");
			db->log_file = join_path(vol->log_path, db->name, ".log");
			db->journal = join_path(vol->path, db->name, ".gen");
			if (!db->path || !db->log_file || !db->journal)
				goto out_nomem;
			db->jloc = (struct journal_loc){.path = db->journal};
			db->size = p->database_size;
			db->nr_pages = p->database_size / p->page_size;
			db->log_size = p->log_size;
		}
		if (files && block_device(vol->path, &vol->dev_size)) {
			char real[PATH_MAX];
			int ret;

			vol->device = true;
			/* /dev/disk/by-id/... names are links: use what they name */
			if (realpath(pv->path, real)) {
				free(vol->path);
				vol->path = strdup(real);
				if (!vol->path)
					goto out_nomem;
			}
			vol->log_device = !pv->log_path || !strcmp(pv->log_path, pv->path);
			if (plan_device_taken(pl, v, err)) {
				strbuf_release(&probe);
				plan_release(pl);
				return -EINVAL;
			}
			if (block_device(vol->log_path, &(uint64_t){0}) && !vol->log_device) {
				strbuf_addf(err,
					    "volume %s: log_path %s is another block device; put "
					    "the logs on the volume's device or in a directory",
					    vol->name, vol->log_path);
				strbuf_release(&probe);
				plan_release(pl);
				return -EINVAL;
			}
			ret = p->capacity_pct > 0 ? capacity_device(pl, vol, p, err) : 0;
			if (!ret)
				ret = plan_device_regions(pl, vol, err);
			if (ret) {
				if (ret == -ENOMEM)
					goto out_nomem;
				strbuf_release(&probe);
				plan_release(pl);
				return ret;
			}
		}
	}
	strbuf_release(&probe);
	if (files && p->capacity_pct > 0) {
		int ret = capacity_files(pl, p, err);

		if (ret) {
			plan_release(pl);
			return ret;
		}
	}
	return 0;
out_nomem:
	strbuf_release(&probe);
	plan_release(pl);
	strbuf_addstr(err, "plan: out of memory");
	return -ENOMEM;
}

void plan_release(struct plan *pl)
{
	if (pl->vols)
		for (size_t i = 0; i < pl->nr_vols; i++) {
			free(pl->vols[i].path);
			free(pl->vols[i].log_path);
		}
	if (pl->dbs)
		for (size_t i = 0; i < pl->nr_dbs; i++) {
			free(pl->dbs[i].path);
			free(pl->dbs[i].log_file);
			free(pl->dbs[i].journal);
		}
	free(pl->vols);
	free(pl->dbs);
	memset(pl, 0, sizeof(*pl));
}

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
	char a[PATH_MAX], b[PATH_MAX];

	if (!realpath(path, a))
		return false;
	for (size_t i = 0; i < pl->ndestroy; i++)
		if (realpath(pl->destroy[i], b) && !strcmp(a, b))
			return true;
	return false;
}

/*
 * What is at path: *size of a diskproof file there with the expected
 * geometry (page 0 checked), 0 when missing. A file that is someone else's,
 * or diskproof's with another geometry or a larger size, is -EEXIST with what
 * differs, unless --destroy-data named it: then *destroy is set and *size is
 * 0 (it is rewritten from the start and cut to size). Links are never
 * followed: diskproof's files are regular files where the plan says.
 */
static bool header_zero(const struct page_header *h)
{
	const unsigned char *p = (const unsigned char *)h;

	for (size_t i = 0; i < sizeof(*h); i++)
		if (p[i])
			return false;
	return true;
}

/* Does the journal at loc belong to database db_id of nr_pages pages? */
static bool journal_matches(const struct journal_loc *loc, uint32_t db_id, uint32_t page_size,
			    uint64_t nr_pages)
{
	struct strbuf jerr = STRBUF_INIT;
	struct journal_info ji;
	uint32_t *gens = NULL;
	bool yes = journal_read(loc, &ji, &gens, &jerr) == 0 && ji.db_id == db_id &&
		   ji.page_size == page_size && ji.nr_pages == nr_pages;

	free(gens);
	strbuf_release(&jerr);
	return yes;
}

static int inspect_file(const struct plan *pl, const char *path, uint32_t block,
			enum page_kind kind, uint32_t db_id, uint64_t want, uint64_t *size,
			bool *destroy, const struct journal_loc *jloc, struct strbuf *err)
{
	const char *what = kind == PAGE_KIND_DB ? "database" : "log";
	struct strbuf why = STRBUF_INIT;
	struct page_header h;
	struct stat st;
	ssize_t n;
	int fd, ret = 0;

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
	if (st.st_size == 0)
		return 0;
	/* O_NONBLOCK: something swapped in since the lstat must not block */
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		strbuf_addf(err, "%s: cannot open: %s", path, strerror(-ret));
		return ret;
	}
	n = pread(fd, &h, sizeof(h), 0);
	close(fd);
	if (n == (ssize_t)sizeof(h) && jloc && header_zero(&h) && (uint64_t)st.st_size == want &&
	    journal_matches(jloc, db_id, block, want / block))
		/* its first page is zeroed, but its own journal says it is this
		 * database: data the device lost, which the run's reads report as
		 * integrity errors (never "not ours") */
		;
	else if (n != (ssize_t)sizeof(h) || h.magic != PAGE_MAGIC || h.kind != (uint32_t)kind)
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
	if (why.len && destroy_allowed(pl, path)) {
		*destroy = true;
	} else if (why.len) {
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
 * error) unless --destroy-data names it. An interrupted creation has no
 * journal for its file yet, so resuming one is not refused.
 */
static int check_shrunk(const struct plan *pl, const struct plan_db *db, uint64_t have,
			bool *destroy, struct strbuf *err)
{
	struct strbuf jerr = STRBUF_INIT;
	struct journal_info ji;
	uint32_t *gens = NULL;
	uint64_t known;
	int ret = 0;

	if (!have || have >= db->size || *destroy)
		return 0;
	if (journal_read(&db->jloc, &ji, &gens, &jerr) == 0 && ji.db_id == db->id &&
	    ji.page_size == pl->page_size) {
		known = ji.nr_pages < db->nr_pages ? ji.nr_pages : db->nr_pages;
		if (have / pl->page_size < known && destroy_allowed(pl, db->path)) {
			*destroy = true; /* created anew, as --destroy-data asks */
		} else if (have / pl->page_size < known) {
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
		    (h.magic != PAGE_MAGIC || h.db_id != db_id || h.page_no != at / block))
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
 * named db1.gen, a directory, a link) is never replaced: -EEXIST, unless
 * --destroy-data names it; then *remove is set.
 */
static int inspect_journal(const struct plan *pl, const struct plan_db *db, bool *remove,
			   struct strbuf *err)
{
	*remove = false;
	if (db->jloc.size || journal_file_replaceable(db->journal))
		return 0;
	if (destroy_allowed(pl, db->journal)) {
		*remove = true;
		return 0;
	}
	strbuf_addf(err,
		    "%s: exists and is not a diskproof generation journal; diskproof never "
		    "overwrites data it did not write (move it away, or name it with "
		    "--destroy-data)",
		    db->journal);
	return -EEXIST;
}

/*
 * What a block device carries, from libblkid: "" when nothing is recognised,
 * else e.g. "an ext4 filesystem (LABEL=data)" or "a dos partition table".
 */
static void device_signature(const char *path, struct strbuf *out)
{
	blkid_probe pr = blkid_new_probe_from_filename(path);
	const char *type = NULL, *usage = NULL, *label = NULL, *pttype = NULL;

	if (!pr)
		return;
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_USAGE |
						      BLKID_SUBLKS_LABEL);
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_MAGIC);
	if (blkid_do_safeprobe(pr) == 0) {
		blkid_probe_lookup_value(pr, "TYPE", &type, NULL);
		blkid_probe_lookup_value(pr, "USAGE", &usage, NULL);
		blkid_probe_lookup_value(pr, "LABEL", &label, NULL);
		blkid_probe_lookup_value(pr, "PTTYPE", &pttype, NULL);
		if (type)
			strbuf_addf(out, "a%s %s %s%s%s%s", type[0] == 'e' ? "n" : "", type,
				    usage && !strcmp(usage, "raid") ? "RAID member" : "filesystem",
				    label ? " (LABEL=" : "", label ? label : "", label ? ")" : "");
		else if (pttype)
			strbuf_addf(out, "a %s partition table", pttype);
	}
	blkid_free_probe(pr);
}

/* A region (of a device) holds a complete diskproof file when its first and
 * last blocks are ours: the bytes present, else 0 (rewritten whole). */
static uint64_t region_have(int fd, uint64_t base, uint64_t size, uint32_t block,
			    enum page_kind kind, uint32_t db_id)
{
	uint64_t at[2] = {0, size - block};
	struct page_header h;

	for (int i = 0; i < 2; i++) {
		if (pread(fd, &h, sizeof(h), (off_t)(base + at[i])) != (ssize_t)sizeof(h) ||
		    h.magic != PAGE_MAGIC || h.kind != (uint32_t)kind || h.db_id != db_id ||
		    h.page_size != block || h.page_no != at[i] / block)
			return 0;
	}
	return size;
}

/*
 * Checks a block-device volume before anything is written to it: never one
 * in use (mounted, swap, RAID/LVM member: an exclusive open fails); one that
 * does not already hold this layout only when --destroy-data names it, and
 * one with a filesystem, RAID or partition-table signature only with --force
 * as well. Fills have_db/have_log for its regions. The O_EXCL descriptor
 * the caller's lock holds (lock.h) is reused: a second O_EXCL open would fail.
 */
static int check_device(const struct plan *pl, const struct plan_volume *vol, uint64_t *have_db,
			uint64_t *have_log, struct strbuf *err)
{
	const struct plan_db *first = &pl->dbs[vol->first_db];
	struct strbuf sig = STRBUF_INIT;
	struct page_header h;
	bool ours;
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
	device_signature(vol->path, &sig);
	if (ours && sig.len) {
		if (!destroy_allowed(pl, vol->path) || !pl->force) {
			strbuf_addf(err,
				    "%s: the block device holds diskproof's databases but also "
				    "carries %s (written there since?); name it with "
				    "--destroy-data %s and add --force to overwrite it",
				    vol->path, sig.buf, vol->path);
			ret = -EEXIST;
		}
		ours = false; /* with both, rewritten whole */
	} else if (!ours) {
		if (!destroy_allowed(pl, vol->path)) {
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
	for (unsigned k = 0; ours && !ret && k < vol->nr_dbs; k++) {
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

/* One filesystem's need: what the missing parts of the files on it take. */
struct fs_need {
	dev_t dev;
	const char *path;
	uint64_t need;
};

static void add_need(struct fs_need *v, size_t *n, const char *path, uint64_t bytes)
{
	struct stat st;
	size_t i;

	if (stat(path, &st) != 0)
		return;
	for (i = 0; i < *n; i++)
		if (v[i].dev == st.st_dev)
			break;
	if (i == *n)
		v[(*n)++] = (struct fs_need){st.st_dev, path, 0};
	v[i].need += bytes;
}

/* The filesystem of the results file (its directory, or the nearest existing
 * ancestor): false when there is none or it cannot be read. */
static bool results_fs(const struct plan *pl, dev_t *dev)
{
	struct strbuf dir = STRBUF_INIT, probe = STRBUF_INIT;
	const char *slash;
	struct stat st;
	bool ok;

	if (!pl->results || !pl->results_reserve)
		return false;
	slash = strrchr(pl->results, '/');
	if (slash)
		strbuf_add(&dir, pl->results,
			   slash == pl->results ? 1 : (size_t)(slash - pl->results));
	else
		strbuf_addch(&dir, '.');
	nearest_existing(dir.buf, &probe);
	ok = stat(probe.buf, &st) == 0;
	*dev = ok ? st.st_dev : 0;
	strbuf_release(&dir);
	strbuf_release(&probe);
	return ok;
}

static int check_space(const struct plan *pl, const uint64_t *have_db, const uint64_t *have_log,
		       struct strbuf *err)
{
	struct fs_need *v = calloc(2 * pl->nr_dbs + 1, sizeof(*v));
	struct statvfs vfs;
	uint64_t reserve;
	dev_t rdev = 0;
	size_t n = 0;
	int ret = 0;

	if (!v) {
		strbuf_addstr(err, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < pl->nr_dbs; i++) {
		const struct plan_db *db = &pl->dbs[i];
		const struct plan_volume *vol = &pl->vols[db->volume];

		if (!vol->device)
			add_need(v, &n, vol->path,
				 have_db[i] < db->size ? db->size - have_db[i] : 0);
		if (!vol->log_device)
			add_need(v, &n, vol->log_path,
				 have_log[i] < db->log_size ? db->log_size - have_log[i] : 0);
	}
	reserve = results_fs(pl, &rdev) ? pl->results_reserve : 0;
	for (size_t i = 0; i < n && !ret; i++) {
		uint64_t avail, need = v[i].need + (v[i].dev == rdev ? reserve : 0);

		if (!v[i].need || statvfs(v[i].path, &vfs) != 0)
			continue;
		avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
		if (avail < need) {
			struct strbuf a = STRBUF_INIT, b = STRBUF_INIT, c = STRBUF_INIT;

			unit_format_size(&a, v[i].need);
			unit_format_size(&b, avail);
			unit_format_size(&c, reserve);
			strbuf_addf(err,
				    "%s: not enough free space: the databases and logs need "
				    "%s more, %s is free",
				    v[i].path, a.buf, b.buf);
			if (v[i].dev == rdev && reserve)
				strbuf_addf(err, ", and the results file keeps %s free here",
					    c.buf);
			strbuf_release(&a);
			strbuf_release(&b);
			strbuf_release(&c);
			ret = -ENOSPC;
		}
	}
	free(v);
	return ret;
}

/* The size of a regular file at path, at most want (0 when there is none). */
static uint64_t file_have(const char *path, uint64_t want)
{
	struct stat st;

	if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;
	return (uint64_t)st.st_size < want ? (uint64_t)st.st_size : want;
}

/*
 * The entry of s->fs for path: its nearest existing ancestor's filesystem,
 * or the block device itself; added (with its free space) when new. Entries
 * whose device number could not be read are told apart by path.
 */
static int space_fs(struct plan_space *s, dev_t *devs, struct strbuf *vols,
		    const struct plan_volume *vol, bool device, const char *path, size_t *idx)
{
	struct strbuf probe = STRBUF_INIT;
	struct plan_fs *f;
	struct statvfs vfs;
	struct stat st;
	bool known;
	dev_t dev;

	if (device)
		strbuf_addstr(&probe, path);
	else
		nearest_existing(path, &probe);
	known = stat(probe.buf, &st) == 0;
	dev = !known ? 0 : device ? st.st_rdev : st.st_dev;
	for (*idx = 0; *idx < s->nr_fs; (*idx)++) {
		f = &s->fs[*idx];
		if (f->device == device &&
		    (known ? devs[*idx] == dev : !strcmp(f->path, probe.buf)))
			break;
	}
	if (*idx == s->nr_fs) {
		char real[PATH_MAX];

		f = &s->fs[s->nr_fs++];
		devs[*idx] = dev;
		f->device = device;
		/* "." says little in a message: the directory it is */
		f->path = !device && realpath(probe.buf, real) ? strdup(real)
							       : strbuf_detach(&probe, NULL);
		if (device) {
			f->free = vol->dev_size;
			f->free_known = vol->dev_size > 0;
		} else if (known && statvfs(f->path, &vfs) == 0) {
			f->free = (uint64_t)vfs.f_bavail * vfs.f_frsize;
			f->free_known = true;
		}
	}
	strbuf_release(&probe);
	/* each volume named once: the last one added is the only candidate */
	{
		struct strbuf *v = &vols[*idx];
		size_t nl = strlen(vol->name);

		if (!(v->len >= nl && !strcmp(v->buf + v->len - nl, vol->name) &&
		      (v->len == nl || v->buf[v->len - nl - 1] == ' ')))
			strbuf_addf(v, "%s%s", v->len ? ", " : "", vol->name);
	}
	return s->fs[*idx].path ? 0 : -ENOMEM;
}

int plan_space_measure(const struct plan *pl, struct plan_space *s, struct strbuf *err)
{
	size_t cap = 2 * pl->nr_vols + 1;
	struct strbuf *vols = calloc(cap, sizeof(*vols));
	dev_t *devs = calloc(cap, sizeof(*devs)), rdev = 0;
	int ret = 0;

	memset(s, 0, sizeof(*s));
	s->fs = calloc(cap, sizeof(*s->fs));
	s->vols = calloc(pl->nr_vols ? pl->nr_vols : 1, sizeof(*s->vols));
	if (!vols || !devs || !s->fs || !s->vols) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < cap; i++)
		strbuf_init(&vols[i]);
	for (size_t v = 0; v < pl->nr_vols && !ret; v++) {
		const struct plan_volume *vol = &pl->vols[v];
		struct plan_volume_space *vs = &s->vols[v];

		ret = space_fs(s, devs, vols, vol, vol->device, vol->path, &vs->fs);
		if (!ret && vol->log_device)
			vs->log_fs = vs->fs;
		else if (!ret)
			ret = space_fs(s, devs, vols, vol, false, vol->log_path, &vs->log_fs);
		for (unsigned k = 0; !ret && k < vol->nr_dbs; k++) {
			const struct plan_db *db = &pl->dbs[vol->first_db + k];

			/* a device's regions are laid out whole: all of them count,
			 * its journal regions with its databases */
			vs->total += vol->device
					     ? round_region(db->size) + round_region(db->jloc.size)
					     : db->size;
			vs->need += vol->device
					    ? round_region(db->size) + round_region(db->jloc.size)
					    : db->size - file_have(db->path, db->size);
			vs->log_total +=
				vol->log_device ? round_region(db->log_size) : db->log_size;
			vs->log_need += vol->log_device ? round_region(db->log_size)
							: db->log_size - file_have(db->log_file,
										   db->log_size);
		}
		if (ret)
			break;
		s->fs[vs->fs].total += vs->total;
		s->fs[vs->fs].need += vs->need;
		s->fs[vs->log_fs].total += vs->log_total;
		s->fs[vs->log_fs].need += vs->log_need;
	}
	for (size_t i = 0; !ret && i < s->nr_fs; i++) {
		s->fs[i].volumes = strbuf_detach(&vols[i], NULL);
		if (!s->fs[i].volumes)
			ret = -ENOMEM;
	}
	/* the results file's reserve, where a volume's files share its
	 * filesystem (elsewhere the store checks it alone) */
	for (size_t i = 0; !ret && results_fs(pl, &rdev) && i < s->nr_fs; i++) {
		if (s->fs[i].device || devs[i] != rdev)
			continue;
		s->fs[i].reserve = pl->results_reserve;
		s->fs[i].need += pl->results_reserve;
		break;
	}
out:
	if (vols)
		for (size_t i = 0; i < cap; i++)
			strbuf_release(&vols[i]);
	free(vols);
	free(devs);
	if (ret) {
		plan_space_release(s);
		strbuf_addstr(err, "plan: out of memory");
	}
	return ret;
}

int plan_space_check(const struct plan_space *s, struct strbuf *err)
{
	int ret = 0;

	for (size_t i = 0; i < s->nr_fs; i++) {
		const struct plan_fs *f = &s->fs[i];
		struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;

		if (!f->free_known || f->need <= f->free)
			continue;
		unit_format_size(&a, f->need);
		unit_format_size(&b, f->free);
		strbuf_addf(err,
			    "%s%s %s (%s): not enough %s: the databases and logs need %s%s, %s",
			    ret ? "\n" : "", strchr(f->volumes, ',') ? "volumes" : "volume",
			    f->volumes, f->path, f->device ? "room" : "free space", a.buf,
			    f->device ? "" : " more", b.buf);
		strbuf_addstr(err, f->device ? " is the device's size" : " is free");
		if (f->reserve) {
			strbuf_reset(&a);
			unit_format_size(&a, f->reserve);
			strbuf_addf(err, " (the need includes the %s the results file keeps free)",
				    a.buf);
		}
		strbuf_release(&a);
		strbuf_release(&b);
		ret = -ENOSPC;
	}
	return ret;
}

void plan_space_release(struct plan_space *s)
{
	if (s->fs)
		for (size_t i = 0; i < s->nr_fs; i++) {
			free(s->fs[i].path);
			free(s->fs[i].volumes);
		}
	free(s->fs);
	free(s->vols);
	memset(s, 0, sizeof(*s));
}

int plan_prepare_files(const struct plan *pl, const struct profile *p,
		       const struct plan_progress *prog, uint64_t *fresh_from, uint64_t *created,
		       struct strbuf *err)
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
			ret = check_shrunk(pl, db, have_db[i], &destroy[2 * i], err);
		if (!ret)
			ret = inspect_journal(pl, db, &jremove[i], err);
		if (ret)
			goto out_free;
		have_db[i] -= have_db[i] % pl->page_size;
	}
	/* Free space, per filesystem: volumes and log paths may share one, or
	 * the logs may live on a disk of their own. */
	ret = check_space(pl, have_db, have_log, err);
	if (ret)
		goto out_free;
	/* what --destroy-data allowed is cut to nothing before it is rewritten */
	for (size_t i = 0; i < 2 * pl->nr_dbs; i++) {
		const char *path = i % 2 ? pl->dbs[i / 2].log_file : pl->dbs[i / 2].path;

		if (destroy[i] && truncate(path, 0) != 0) {
			ret = -errno;
			strbuf_addf(err, "%s: cannot truncate: %s", path, strerror(-ret));
			goto out_free;
		}
	}
	/* a link or file at a journal's path that --destroy-data named goes
	 * (a link itself, never what it points to) */
	for (size_t i = 0; i < pl->nr_dbs; i++) {
		const char *path = pl->dbs[i].journal;

		if (jremove[i] && unlink(path) != 0 && (errno != EISDIR || rmdir(path) != 0)) {
			ret = -errno;
			strbuf_addf(err, "%s: cannot remove: %s", path, strerror(-ret));
			goto out_free;
		}
	}
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
out_free:
	free(destroy);
	free(jremove);
	free(jobs);
	free(have_db);
	free(have_log);
	return ret;
}

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
 *     1 KiB of bookkeeping and store rows; and in the jetstress model the log
 *     record ring (65536 x 8 B), the dirty list (up to 4096 x 16 B), 5 B per
 *     log segment, and for recovery the replay ring (65536 x 8 B);
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
#define MEM_CLASSES ((uint64_t)IO_CLASS_COUNT)
#define MEM_RING 65536ULL
#define MEM_SLOT 320ULL

void plan_memory_estimate(const struct plan *pl, const struct profile *p, unsigned cpus,
			  struct plan_memory *m)
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
			       : 2 * ndb;
	if (p->streams == PROFILE_STREAMS_AUTO && streams > PROFILE_STREAMS_MAX)
		streams = PROFILE_STREAMS_MAX;
	if (backup)
		streams = 0;
	workers = plan_worker_count(p, pl, (unsigned)streams, cpus);

	per_db = 2 * MEM_CLASSES * MEM_HIST + 1024;
	m->databases = ndb * per_db +
		       ndb * (fixed ? workers : 1) * MEM_RUN_SLOTS * MEM_CLASSES * MEM_SNAP_CLASS;
	seg = p->log_segment_size < (1u << 20) ? p->log_segment_size : (1u << 20);
	slots = streams;
	m->buffers = streams * p->page_size;
	if (p->verify && !sim && !recovery && !backup)
		m->buffers += streams * p->page_size;
	if (txn) {
		for (size_t i = 0; i < pl->nr_dbs; i++) {
			uint64_t n = pl->dbs[i].nr_pages;

			m->databases += MEM_RING * 8 + (n < 4096 ? n : 4096) * 16 +
					5ULL * p->log_segments + (recovery ? MEM_RING * 8 : 0);
		}
		m->buffers += ndb * (seg + (p->copies > 1 || recovery ? seg : 0) +
				     (p->bdm ? p->bdm_io_size : 0) +
				     (uint64_t)p->flush_depth * p->page_size);
		slots += ndb * (1 + (p->copies > 1 || recovery) + p->bdm + p->flush_depth);
	} else if (backup) {
		m->buffers += ndb * p->backup_io_size;
		slots += ndb;
	}
	m->buffers += slots * MEM_SLOT;
	m->other = largest * 8 + pl->nr_vols * 3 * MEM_CLASSES * MEM_HIST + (64ULL << 20);
	m->total = m->pages + m->databases + m->buffers + m->other;
}
