/* SPDX-License-Identifier: MIT */
/*
 * space.c - the one free-space model: what the plan's files take and still
 * need on each filesystem (or block device) they live on, the results
 * file's reserve included where it shares one, against what is free there,
 * and the one message when it is short; and where it is a copy-on-write
 * filesystem, what overwrites need kept free (plan and check warn). plan and check show it; init
 * and run check it before anything is made (plan_space_measure/_check), and plan_prepare_files()
 * checks it again, with what it found at the paths, just before the first byte is written
 * (plan_check_space).
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
#include "diskproof/plan.h"
#include "plan_internal.h"

/* The filesystem of the results file (its directory, or the nearest existing
 * ancestor): false when there is none or it cannot be read. */
static bool results_fs(const struct plan *pl, dev_t *dev)
{
	struct strbuf dir = STRBUF_INIT;
	char probe[PATH_MAX];
	struct stat st;
	bool ok;

	if (!pl->results || !pl->results_reserve)
		return false;
	path_dirname(pl->results, &dir);
	(void)path_nearest_existing(dir.buf, probe, sizeof(probe));
	ok = stat(probe, &st) == 0;
	*dev = ok ? st.st_dev : 0;
	strbuf_release(&dir);
	return ok;
}

/* The size of a regular file at path, at most want (0 when there is none). */
static uint64_t file_have(const char *path, uint64_t want)
{
	struct stat st;

	if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;
	return (uint64_t)st.st_size < want ? (uint64_t)st.st_size : want;
}

/* What need not be written of a file: known[i] when the caller knows it
 * (at most want), else what is at path. */
static uint64_t have(const uint64_t *known, size_t i, const char *path, uint64_t want)
{
	if (!known)
		return file_have(path, want);
	return known[i] < want ? known[i] : want;
}

/*
 * The entry of s->fs for path: its nearest existing ancestor's filesystem,
 * or the block device itself; added (with its free space) when new. Entries
 * whose device number could not be read are told apart by path.
 */
static int space_fs(struct plan_space *s, dev_t *devs, struct strbuf *vols,
		    const struct plan_volume *vol, bool device, const char *path, size_t *idx)
{
	char probe[PATH_MAX];
	struct plan_fs *f;
	struct statvfs vfs;
	struct stat st;
	bool known;
	dev_t dev;

	if (device)
		snprintf(probe, sizeof(probe), "%s", path);
	else
		(void)path_nearest_existing(path, probe, sizeof(probe));
	known = stat(probe, &st) == 0;
	dev = !known ? 0 : device ? st.st_rdev : st.st_dev;
	for (*idx = 0; *idx < s->nr_fs; (*idx)++) {
		f = &s->fs[*idx];
		if (f->device == device && (known ? devs[*idx] == dev : !strcmp(f->path, probe)))
			break;
	}
	if (*idx == s->nr_fs) {
		char real[PATH_MAX];

		f = &s->fs[s->nr_fs++];
		devs[*idx] = dev;
		f->device = device;
		/* "." says little in a message: the directory it is */
		f->path = strdup(!device && realpath(probe, real) ? real : probe);
		if (device) {
			f->free = vol->dev_size;
			f->free_known = vol->dev_size > 0;
		} else if (known && statvfs(f->path, &vfs) == 0) {
			f->free = (uint64_t)vfs.f_bavail * vfs.f_frsize;
			f->free_known = true;
		}
	}
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

/* A file of size bytes at path on s->fs[fs]: on a copy-on-write filesystem
 * (the file's own, or the one it will get in its directory), its size is
 * kept free for overwrites. */
static void space_cow(struct plan_space *s, size_t fs, const char *path, uint64_t size, bool device)
{
	struct strbuf what = STRBUF_INIT;

	if (!device && env_fs_cow(path, &what)) {
		snprintf(s->fs[fs].cow, sizeof(s->fs[fs].cow), "%s", what.buf);
		s->fs[fs].keep_free += size;
	}
	strbuf_release(&what);
}

/*
 * The one free-space model: per filesystem (or block device) of the plan's
 * files, what they take (total), what is still to write (need: the files'
 * missing parts, a device's regions whole, plus the results file's reserve
 * where it shares the filesystem) and what is free there. have_db/have_log
 * (may be NULL: then the sizes of the files at the plan's paths) are the
 * bytes of each database's file and log that need not be written.
 */
static int space_measure(const struct plan *pl, const uint64_t *have_db, const uint64_t *have_log,
			 struct plan_space *s, struct strbuf *err)
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
			vs->total += vol->device ? plan_round_region(db->size) +
							   plan_round_region(db->jloc.size)
						 : db->size;
			vs->need += vol->device ? plan_round_region(db->size) +
							  plan_round_region(db->jloc.size)
						: db->size - have(have_db, vol->first_db + k,
								  db->path, db->size);
			vs->log_total +=
				vol->log_device ? plan_round_region(db->log_size) : db->log_size;
			vs->log_need += vol->log_device
						? plan_round_region(db->log_size)
						: db->log_size - have(have_log, vol->first_db + k,
								      db->log_file, db->log_size);
			space_cow(s, vs->fs, db->path, db->size, vol->device);
			space_cow(s, vs->log_fs, db->log_file, db->log_size, vol->log_device);
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

int plan_space_measure(const struct plan *pl, struct plan_space *s, struct strbuf *err)
{
	return space_measure(pl, NULL, NULL, s, err);
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

void plan_fs_cow_warning(const struct plan_fs *f, struct strbuf *out)
{
	bool btrfs = !strcmp(f->cow, "btrfs"), xfs = !strncmp(f->cow, "XFS", 3);

	strbuf_addf(out, "copy-on-write (%s): overwrites %sneed free space; keep ", f->cow,
		    xfs ? "of shared blocks (after a reflink copy or a snapshot) " : "");
	unit_format_size(out, f->keep_free);
	strbuf_addstr(out, " free (the files' size again)");
	if (btrfs)
		strbuf_addstr(out, ", or make the directory NOCOW before init (chattr +C)");
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

int plan_check_space(const struct plan *pl, const uint64_t *have_db, const uint64_t *have_log,
		     struct strbuf *err)
{
	struct plan_space sp;
	int ret = space_measure(pl, have_db, have_log, &sp, err);

	if (ret)
		return ret;
	ret = plan_space_check(&sp, err);
	plan_space_release(&sp);
	return ret;
}
