/* SPDX-License-Identifier: MIT */
/*
 * sizing.c - [sizing] capacity: the databases' size from a share of the
 * free space of each filesystem, or of a block device's size (the
 * Jetstress capacity percentage). Sizing by mailboxes or database_size is
 * the profile's (profile/parse.c); plan_build() calls these when capacity
 * is set.
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

#include "diskproof/journal.h"
#include "diskproof/plan.h"
#include "plan_internal.h"

/*
 * [sizing] capacity on a block device: its databases share capacity % of the
 * device, less the regions of its logs when they live on it too and of
 * their journals; each
 * database a whole number of 1 MiB regions (so whole pages: a page is at most
 * 1 MiB and a power of two), rounded down.
 */
int plan_capacity_device(struct plan *pl, struct plan_volume *vol, const struct profile *p,
			 struct strbuf *err)
{
	uint64_t budget = (uint64_t)((double)vol->dev_size * p->capacity_pct / 100);
	uint64_t logs = vol->log_device ? vol->nr_dbs * plan_round_region(p->log_size) : 0, per, jr;

	per = budget > logs ? (budget - logs) / vol->nr_dbs : 0;
	/* each database's journal region too (sized for the larger share) */
	jr = plan_round_region(journal_region_size(per / p->page_size));
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
	char probe[PATH_MAX], real[PATH_MAX];
	struct statvfs vfs;
	struct stat st;
	int ret = 0;

	(void)path_nearest_existing(path, probe, sizeof(probe));
	if (stat(probe, &st) != 0)
		goto out_errno;
	for (*idx = 0; *idx < *n; (*idx)++)
		if (fs[*idx].dev == st.st_dev)
			goto out;
	if (!add) {
		*idx = SIZE_MAX;
		goto out;
	}
	if (statvfs(probe, &vfs) != 0)
		goto out_errno;
	memset(&fs[*n], 0, sizeof(fs[*n]));
	fs[*n].dev = st.st_dev;
	fs[*n].avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	strbuf_init(&fs[*n].vols);
	strbuf_init(&fs[*n].where);
	strbuf_addstr(&fs[*n].where, realpath(probe, real) ? real : probe);
	*idx = (*n)++;
	goto out;
out_errno:
	ret = -errno;
	strbuf_addf(err, "volume %s: cannot read the free space at %s (for [sizing] capacity): %s",
		    vol->name, probe, strerror(-ret));
out:
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
int plan_capacity_files(struct plan *pl, const struct profile *p, struct strbuf *err)
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
