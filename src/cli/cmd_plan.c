/* SPDX-License-Identifier: MIT */
/*
 * cmd_plan.c - "diskproof plan [PROFILE] [--data-dir DIR] [--db-size SIZE]
 * [--engine NAME] [--streams N] [--format text|json]": what a run of the
 * profile would lay out, without touching a disk: per volume its paths, its
 * databases and logs with their files and sizes (and beside them what files
 * already there hold, when that differs), the space they need against
 * the space free (measured at the nearest existing directory; nothing is
 * created), and the run's target IOPS, streams, engine and workers. It takes
 * the same profile arguments as run, and the memory the run would take
 * against what the host has available. Exit 0; 3 when a volume lacks the
 * space or the host the memory (everything is still printed) or the layout
 * cannot be made; 2 for a usage or profile error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diskproof/engine.h"
#include "diskproof/json.h"
#include "diskproof/plan.h"
#include "diskproof/run.h"
#include "diskproof/store.h"

#include "cli.h"

/* What the plan prints besides the layout: the run's shape. */
struct plan_view {
	const struct profile *p;
	const struct plan *pl;
	const struct plan_space *sp;  /* NULL: no files (sim) */
	const struct plan_held *held; /* what the files there hold (pl->nr_dbs), or NULL */
	unsigned streams, workers;
	bool enough;
	struct run_memory mem; /* what the run would keep in memory, at most */
	uint64_t mem_avail;    /* MemAvailable; 0 = unknown */
};

static void view_init(struct plan_view *v, const struct profile *p, const struct plan *pl,
		      const struct plan_space *sp)
{
	unsigned ndb = (unsigned)pl->nr_dbs;

	v->p = p;
	v->pl = pl;
	v->sp = sp;
	v->held = NULL;
	/* 2 streams per database unless set; the workers as the run makes them */
	v->streams = p->streams && p->streams != PROFILE_STREAMS_AUTO
			     ? p->streams
			     : profile_streams_default(ndb);
	v->workers = plan_worker_count(p, pl, plan_streams(p, pl), plan_online_cpus());
	run_memory_estimate(pl, p, plan_online_cpus(), &v->mem);
	v->mem_avail = cli_mem_available();
	v->enough = true;
	for (size_t i = 0; sp && i < sp->nr_fs; i++)
		if (sp->fs[i].free_known && sp->fs[i].need > sp->fs[i].free)
			v->enough = false;
}

static void add_size(struct strbuf *sb, uint64_t bytes)
{
	unit_format_size(sb, bytes);
}

/* " (file holds 8 MiB)" when the file there holds another size than planned */
static void add_held(struct strbuf *sb, uint64_t held, uint64_t planned)
{
	if (!held || held == planned)
		return;
	strbuf_addstr(sb, " (file holds ");
	add_size(sb, held);
	strbuf_addch(sb, ')');
}

static void text_space(struct strbuf *sb, const struct plan_view *v, const char *what, size_t fs,
		       uint64_t total, uint64_t need)
{
	const struct plan_fs *f = &v->sp->fs[fs];

	strbuf_addf(sb, "  %-10s ", what);
	add_size(sb, total);
	if (need != total) {
		strbuf_addstr(sb, " (");
		add_size(sb, need);
		strbuf_addstr(sb, " still to write)");
	}
	strbuf_addf(sb, " on %s %s", f->device ? "device" : "the filesystem of", f->path);
	if (!f->free_known) {
		strbuf_addstr(sb, " (free space unknown)\n");
		return;
	}
	strbuf_addstr(sb, " (");
	add_size(sb, f->free);
	strbuf_addstr(sb, f->device ? " in all)\n" : " free)\n");
}

/* What sized the databases: the command line, capacity, mailboxes or
 * database_size. */
static void text_sizing(struct strbuf *sb, const struct plan_view *v, bool db_size_override)
{
	const struct profile *p = v->p;

	strbuf_addstr(sb, "sizing     ");
	if (db_size_override) {
		strbuf_addstr(sb, "--db-size ");
		add_size(sb, p->database_size);
		strbuf_addstr(sb, " for every database");
		if (p->mailboxes)
			strbuf_addstr(sb, " (instead of mailboxes x mailbox_size)");
	} else if (p->capacity_pct > 0 && v->pl->files) {
		strbuf_addf(sb, "capacity: the databases take %g %% of the free space",
			    p->capacity_pct);
	} else if (p->capacity_pct > 0) {
		strbuf_addstr(sb, "database_size ");
		add_size(sb, p->database_size);
		strbuf_addstr(sb, " (capacity needs a filesystem; the sim engine has none)");
	} else if (p->mailboxes && p->mailbox_size) {
		strbuf_addf(sb, "%llu mailboxes x ", (unsigned long long)p->mailboxes);
		add_size(sb, p->mailbox_size);
		strbuf_addf(sb, " over %zu databases, in whole pages", v->pl->nr_dbs);
	} else {
		strbuf_addstr(sb, "database_size ");
		add_size(sb, p->database_size);
	}
	strbuf_addch(sb, '\n');
}

static void text_header(struct strbuf *sb, const struct plan_view *v, bool db_size_override)
{
	const struct profile *p = v->p;

	strbuf_addf(sb, "profile    %s (%s)\n", p->name, p->origin);
	strbuf_addf(sb, "test       %s, ", profile_test_type_name(p->type));
	unit_format_duration(sb, p->duration_ns);
	if (p->warmup_ns) {
		strbuf_addstr(sb, " after ");
		unit_format_duration(sb, p->warmup_ns);
		strbuf_addstr(sb, " of warm-up");
	}
	strbuf_addf(sb, "\nengine     %s%s, ", p->engine,
		    !engine_simulated(p->engine) ? (p->direct ? " (direct I/O)" : " (buffered I/O)")
						 : " (simulated: no disk is touched)");
	if (p->streams == PROFILE_STREAMS_AUTO)
		strbuf_addf(sb, "streams found by auto-tune (goal %s), %u worker(s)\n",
			    p->tune_goal == PROFILE_TUNE_TARGET ? "target"
			    : p->tune_goal == PROFILE_TUNE_IOPS ? "iops"
								: "max",
			    v->workers);
	else
		strbuf_addf(sb, "%u streams%s, %u worker(s)\n", v->streams,
			    p->streams ? "" : " (2 per database)", v->workers);
	strbuf_addf(sb, "workload   %s model, ", profile_model_name(p->model));
	add_size(sb, p->page_size);
	strbuf_addstr(sb, " pages\n");
	if (p->target_iops)
		strbuf_addf(
			sb,
			"target     %llu transactional IOPS (database reads + writes a second)\n",
			(unsigned long long)p->target_iops);
	else
		strbuf_addstr(sb, "target     none (no IOPS criterion)\n");
	if (p->mailboxes && p->target_iops)
		strbuf_addf(sb, "           = %llu mailboxes x %g IOPS x (1 + %g %% headroom)\n",
			    (unsigned long long)p->mailboxes, p->iops_per_mailbox, p->headroom_pct);
	text_sizing(sb, v, db_size_override);
	strbuf_addstr(sb, "memory     about ");
	add_size(sb, v->mem.total);
	strbuf_addstr(sb, " at most (per-page maps ");
	add_size(sb, v->mem.pages);
	strbuf_addstr(sb, ", per-database state ");
	add_size(sb, v->mem.databases);
	strbuf_addstr(sb, ", I/O buffers ");
	add_size(sb, v->mem.buffers);
	if (v->mem_avail) {
		strbuf_addstr(sb, "), ");
		add_size(sb, v->mem_avail);
		strbuf_addf(sb, " available%s\n",
			    v->mem.total <= v->mem_avail ? ": ok" : ": NOT ENOUGH");
	} else {
		strbuf_addstr(sb, "), available memory unknown\n");
	}
}

static void render_text(struct strbuf *sb, const struct plan_view *v, bool db_size_override)
{
	const struct plan *pl = v->pl;

	text_header(sb, v, db_size_override);
	for (size_t i = 0; i < pl->nr_vols; i++) {
		const struct plan_volume *vol = &pl->vols[i];

		strbuf_addf(sb, "\nvolume %s  %s%s", vol->name, vol->path,
			    vol->device ? " (block device)" : "");
		if (strcmp(vol->log_path, vol->path))
			strbuf_addf(sb, ", logs in %s", vol->log_path);
		strbuf_addch(sb, '\n');
		for (unsigned k = 0; k < vol->nr_dbs; k++) {
			const struct plan_db *db = &pl->dbs[vol->first_db + k];

			strbuf_addf(sb, "  %-5s %s", db->name, db->path);
			if (vol->device)
				strbuf_addf(sb, " @%llu", (unsigned long long)db->base);
			strbuf_addstr(sb, "  ");
			add_size(sb, db->size);
			if (v->held)
				add_held(sb, v->held[vol->first_db + k].size, db->size);
			strbuf_addf(sb, "  log %s", db->log_file);
			if (vol->log_device)
				strbuf_addf(sb, " @%llu", (unsigned long long)db->log_base);
			strbuf_addstr(sb, "  ");
			add_size(sb, db->log_size);
			if (v->held)
				add_held(sb, v->held[vol->first_db + k].log_size, db->log_size);
			/* a file's journal is DB.gen beside it; a device's has a region */
			if (vol->device) {
				strbuf_addf(sb, "  journal @%llu  ",
					    (unsigned long long)db->journal_base);
				add_size(sb, db->jloc.size);
			}
			strbuf_addch(sb, '\n');
		}
		if (v->sp) {
			const struct plan_volume_space *vs = &v->sp->vols[i];

			text_space(sb, v, "databases", vs->fs, vs->total, vs->need);
			text_space(sb, v, "logs", vs->log_fs, vs->log_total, vs->log_need);
		}
	}
	if (!v->sp) {
		strbuf_addstr(sb, "\nspace      none: the sim engine writes no files\n");
		return;
	}
	strbuf_addstr(sb, "\nspace (per filesystem):\n");
	for (size_t i = 0; i < v->sp->nr_fs; i++) {
		const struct plan_fs *f = &v->sp->fs[i];

		strbuf_addf(sb, "  %s%s  needs ", f->device ? "device " : "", f->path);
		add_size(sb, f->need);
		if (f->reserve) {
			strbuf_addstr(sb, " (");
			add_size(sb, f->reserve);
			strbuf_addstr(sb, " of it kept free for the results file)");
		}
		if (!f->free_known) {
			strbuf_addstr(sb, ", free unknown");
		} else {
			strbuf_addstr(sb, f->device ? ", device size " : ", free ");
			add_size(sb, f->free);
		}
		strbuf_addf(sb, "%s  (%s %s)\n",
			    !f->free_known	 ? ""
			    : f->need <= f->free ? ": ok"
						 : ": NOT ENOUGH",
			    strchr(f->volumes, ',') ? "volumes" : "volume", f->volumes);
		if (f->cow[0]) {
			strbuf_addstr(sb, "    warning: ");
			plan_fs_cow_warning(f, sb);
			strbuf_addch(sb, '\n');
		}
	}
}

static void json_space(struct json *j, const char *key, size_t fs, uint64_t total, uint64_t need)
{
	json_begin_object(j, key);
	json_u64(j, "filesystem", fs);
	json_u64(j, "bytes", total);
	json_u64(j, "need", need);
	json_end(j);
}

/* what the files at the paths hold; null when nothing is there */
static void json_held(struct json *j, const char *key, uint64_t bytes)
{
	if (bytes)
		json_u64(j, key, bytes);
	else
		json_null(j, key);
}

static void json_volume(struct json *j, const struct plan_view *v, size_t i)
{
	const struct plan_volume *vol = &v->pl->vols[i];

	json_begin_object(j, NULL);
	json_str(j, "name", vol->name);
	json_str(j, "path", vol->path);
	json_str(j, "log_path", vol->log_path);
	json_bool(j, "device", vol->device);
	json_begin_array(j, "databases");
	for (unsigned k = 0; k < vol->nr_dbs; k++) {
		const struct plan_db *db = &v->pl->dbs[vol->first_db + k];

		json_begin_object(j, NULL);
		json_str(j, "name", db->name);
		json_str(j, "path", db->path);
		json_u64(j, "size", db->size);
		json_u64(j, "pages", db->nr_pages);
		json_str(j, "log_file", db->log_file);
		json_u64(j, "log_size", db->log_size);
		json_str(j, "journal", db->jloc.path);
		json_u64(j, "journal_offset", db->jloc.offset);
		json_u64(j, "journal_size", db->jloc.size);
		json_held(j, "held_size", v->held ? v->held[vol->first_db + k].size : 0);
		json_held(j, "held_log_size", v->held ? v->held[vol->first_db + k].log_size : 0);
		json_end(j);
	}
	json_end(j);
	if (v->sp) {
		const struct plan_volume_space *vs = &v->sp->vols[i];

		json_begin_object(j, "space");
		json_space(j, "databases", vs->fs, vs->total, vs->need);
		json_space(j, "logs", vs->log_fs, vs->log_total, vs->log_need);
		json_end(j);
	}
	json_end(j);
}

static void json_filesystem(struct json *j, const struct plan_fs *f)
{
	json_begin_object(j, NULL);
	json_str(j, "path", f->path);
	json_str(j, "volumes", f->volumes);
	json_bool(j, "device", f->device);
	json_u64(j, "bytes", f->total);
	json_u64(j, "need", f->need);
	if (f->free_known)
		json_u64(j, "free", f->free);
	else
		json_null(j, "free");
	json_bool(j, "enough", !f->free_known || f->need <= f->free);
	json_u64(j, "results_reserve", f->reserve);
	json_str(j, "copy_on_write", f->cow[0] ? f->cow : NULL);
	json_u64(j, "keep_free", f->keep_free);
	json_end(j);
}

/* One line: the whole document is flat (docs/plan.md). */
static void render_json(struct strbuf *sb, const struct plan_view *v)
{
	const struct profile *p = v->p;
	struct json j = JSON_INIT(sb);

	json_begin_object_flat(&j, NULL);
	json_doc_versions(&j);
	json_str(&j, "profile", p->name);
	json_str(&j, "origin", p->origin);
	json_str(&j, "type", profile_test_type_name(p->type));
	json_fixed(&j, "duration_s", (double)p->duration_ns / 1e9, 3);
	json_fixed(&j, "warmup_s", (double)p->warmup_ns / 1e9, 3);
	json_str(&j, "engine", p->engine);
	json_bool(&j, "direct", p->direct);
	if (p->streams == PROFILE_STREAMS_AUTO) {
		json_str(&j, "streams", "auto");
		json_u64(&j, "streams_default", v->streams);
	} else {
		json_u64(&j, "streams", v->streams);
	}
	json_u64(&j, "workers", v->workers);
	json_str(&j, "model", profile_model_name(p->model));
	json_u64(&j, "page_size", p->page_size);
	if (p->target_iops)
		json_u64(&j, "target_iops", p->target_iops);
	else
		json_null(&j, "target_iops");
	json_begin_object(&j, "sizing");
	json_u64(&j, "mailboxes", p->mailboxes);
	json_sig(&j, "iops_per_mailbox", p->iops_per_mailbox, 17);
	json_u64(&j, "mailbox_size", p->mailbox_size);
	json_sig(&j, "headroom_pct", p->headroom_pct, 17);
	json_sig(&j, "capacity_pct", v->pl->files ? p->capacity_pct : 0.0, 17);
	json_end(&j);
	json_u64(&j, "databases", v->pl->nr_dbs);
	json_begin_array(&j, "volumes");
	for (size_t i = 0; i < v->pl->nr_vols; i++)
		json_volume(&j, v, i);
	json_end(&j);
	json_begin_array(&j, "filesystems");
	for (size_t i = 0; v->sp && i < v->sp->nr_fs; i++)
		json_filesystem(&j, &v->sp->fs[i]);
	json_end(&j);
	json_bool(&j, "enough_space", v->enough);
	json_begin_object(&j, "memory");
	json_u64(&j, "estimate", v->mem.total);
	json_u64(&j, "pages", v->mem.pages);
	json_u64(&j, "databases", v->mem.databases);
	json_u64(&j, "buffers", v->mem.buffers);
	json_u64(&j, "other", v->mem.other);
	if (v->mem_avail)
		json_u64(&j, "available", v->mem_avail);
	else
		json_null(&j, "available");
	json_bool(&j, "enough", !v->mem_avail || v->mem.total <= v->mem_avail);
	json_end(&j);
	json_end(&j);
}

int cli_cmd_plan(int argc, char **argv)
{
	struct cli_opts o;
	struct profile p = {0};
	struct plan pl = {0};
	struct plan_space sp = {0};
	struct plan_view v;
	struct plan_held *held = NULL;
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT;
	bool json = false;
	int ret;

	ret = cli_profile_load(argc, argv, CMD_PLAN, "plan", &o, &p);
	if (ret)
		goto out;
	if (o.format && !strcmp(o.format, "json")) {
		json = true;
	} else if (o.format && strcmp(o.format, "text")) {
		ret = cli_usage_error("unknown format \"%s\" (text or json)", o.format);
		goto out;
	}
	ret = plan_build(&pl, &p, !engine_simulated(p.engine), &err);
	pl.results = o.results;
	pl.results_reserve = STORE_MIN_FREE;
	if (!ret && pl.files)
		ret = plan_space_measure(&pl, &sp, &err);
	if (ret) {
		cli_print_err(err.buf);
		ret = ret == -EINVAL ? DP_EXIT_USAGE : DP_EXIT_ENV; /* a layout that cannot be */
		goto out;
	}
	view_init(&v, &p, &pl, pl.files ? &sp : NULL);
	held = pl.files ? calloc(pl.nr_dbs ? pl.nr_dbs : 1, sizeof(*held)) : NULL;
	if (held) {
		plan_held_read(&pl, held);
		v.held = held;
	}
	if (json)
		render_json(&text, &v);
	else
		render_text(&text, &v, o.ov.db_size != 0);
	ret = cli_emit(NULL, NULL, &text, stdout);
	if (!ret && !v.enough) {
		strbuf_reset(&err);
		if (plan_space_check(&sp, &err))
			cli_print_err(err.buf);
		ret = DP_EXIT_ENV;
	}
	if ((!ret || ret == DP_EXIT_ENV) && cli_memory_check(&pl, &p))
		ret = DP_EXIT_ENV;
out:
	free(held);
	plan_space_release(&sp);
	plan_release(&pl);
	profile_release(&p);
	strbuf_release(&err);
	strbuf_release(&text);
	return ret;
}
