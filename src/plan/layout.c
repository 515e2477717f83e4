/* SPDX-License-Identifier: MIT */
/*
 * layout.c - from a validated profile to the plan's volumes, databases and
 * their paths: a database's file, log and journal in a directory, or their
 * 1 MiB-aligned regions on a block device; each volume's direct-I/O
 * alignment. Sizing by [sizing] capacity is sizing.c's; free space,
 * space.c's; writing the files, prepare.c's and create.c's.
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
#include "diskproof/journal.h"
#include "diskproof/plan.h"
#include "plan_internal.h"

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
		off += plan_round_region(db->size);
	}
	if (vol->log_device) {
		for (unsigned k = 0; k < vol->nr_dbs; k++) {
			struct plan_db *db = &pl->dbs[vol->first_db + k];

			free(db->log_file);
			db->log_file = strdup(vol->path);
			if (!db->log_file)
				return -ENOMEM;
			db->log_base = off;
			off += plan_round_region(db->log_size);
		}
	}
	for (unsigned k = 0; k < vol->nr_dbs; k++) {
		struct plan_db *db = &pl->dbs[vol->first_db + k];
		struct strbuf name = STRBUF_INIT;

		db->journal_base = off;
		db->jloc = (struct journal_loc){db->path, off, journal_region_size(db->nr_pages)};
		off += plan_round_region(db->jloc.size);
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

int plan_build(struct plan *pl, const struct profile *p, bool files, struct strbuf *err)
{
	char probe[PATH_MAX];
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
		/* the sim's log block: [sim] (or [sim-log]) log_align, 4 KiB */
		vol->log_align = pv->sim_log.log_align ? pv->sim_log.log_align : 4096;
		if (files) {
			(void)path_nearest_existing(vol->log_path, probe, sizeof(probe));
			vol->log_align = env_dio_alignment(probe);
			(void)path_nearest_existing(vol->path, probe, sizeof(probe));
			vol->align = env_dio_alignment(probe);
			if (p->page_size % vol->align) {
				strbuf_addf(err,
					    "volume %s (%s): page size %u is not a multiple of "
					    "the direct-I/O alignment %u",
					    vol->name, vol->path, p->page_size, vol->align);
				plan_release(pl);
				return -EINVAL;
			}
		}
		for (unsigned i = 0; i < pv->databases; i++, d++) {
			struct plan_db *db = &pl->dbs[d];

			snprintf(db->name, sizeof(db->name), "db%u", d + 1);
			db->id = d + 1;
			db->volume = (unsigned)v;
			db->path = path_join(vol->path, db->name, ".edb");
			db->log_file = path_join(vol->log_path, db->name, ".log");
			db->journal = path_join(vol->path, db->name, ".gen");
			if (!db->path || !db->log_file || !db->journal)
				goto out_nomem;
			db->jloc = (struct journal_loc){.path = db->journal};
			db->size = p->database_size;
			db->nr_pages = p->database_size / p->page_size;
			db->log_size = p->log_size;
		}
		if (files && env_block_device(vol->path, &vol->dev_size)) {
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
				plan_release(pl);
				return -EINVAL;
			}
			if (env_block_device(vol->log_path, &(uint64_t){0}) && !vol->log_device) {
				strbuf_addf(err,
					    "volume %s: log_path %s is another block device; put "
					    "the logs on the volume's device or in a directory",
					    vol->name, vol->log_path);
				plan_release(pl);
				return -EINVAL;
			}
			ret = p->capacity_pct > 0 ? plan_capacity_device(pl, vol, p, err) : 0;
			if (!ret)
				ret = plan_device_regions(pl, vol, err);
			if (ret) {
				if (ret == -ENOMEM)
					goto out_nomem;
				plan_release(pl);
				return ret;
			}
		}
	}
	if (files && p->capacity_pct > 0) {
		int ret = plan_capacity_files(pl, p, err);

		if (ret) {
			plan_release(pl);
			return ret;
		}
	}
	return 0;
out_nomem:
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
