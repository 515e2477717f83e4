/* SPDX-License-Identifier: MIT */
/*
 * cmd_check.c - "diskproof check [PROFILE] [--data-dir DIR] [--db-size SIZE]
 * [--engine NAME] [--streams N] [--results FILE]": a preflight of the machine
 * for a run of the profile, one line per finding:
 *
 *   OK    what: detail
 *   WARN  what: detail      (the run works, but its figures may mislead)
 *   FAIL  what: detail      (the run would not start, or not as asked)
 *
 * It checks the engine (io_uring and its features), direct I/O on every
 * volume (one aligned block written and read back in an unnamed temporary
 * file; a block device is only read), the filesystem and its mount options,
 * the free space the profile needs, every disk beneath the volumes (model,
 * firmware, rotational, scheduler, queue depth, NUMA node; its write cache,
 * FUA and atomic write unit), the atomic write unit statx reports on every
 * volume, the CPU frequency governor, the NUMA placement of the workers, the memory the
 * run needs (run_memory_estimate), the open-file limit, whether every
 * volume's lock can be taken (a FAIL when not: the commands would refuse)
 * and whether another diskproof command holds a volume now (a WARN: a run
 * would be refused until it ends; check itself takes no lock). It writes nothing that
 * outlives it. Exit 0 when nothing FAILed (WARNs allowed), 3 with any FAIL,
 * 2 for a usage or profile error. The rules are in docs/environment.md; the
 * probes and rules themselves in env/check.c (check.h): this file gathers the
 * facts and prints the findings.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diskproof/check.h"
#include "diskproof/driver.h"
#include "diskproof/engine.h"
#include "diskproof/env.h"
#include "diskproof/json.h"
#include "diskproof/lock.h"
#include "diskproof/plan.h"
#include "diskproof/run.h"
#include "diskproof/store.h"

#include "cli.h"

#define SYSFS "/sys"

struct check {
	const struct profile *p;
	const struct plan *pl;
	bool color;
	unsigned warns, fails;
	unsigned nworkers;
	bool *drives; /* nworkers x nr_vols, as the runner assigns databases */
	/* --format json: each line an item of the "checks" array instead */
	struct json *json;
	/* the facts of the next line (a disk's), consumed by report() */
	const struct env_disk *disk;
	const char *disk_volumes;
};

/* A disk line's facts as typed members (JSON only). */
static void report_disk_facts(struct json *j, const struct env_disk *d, const char *volumes)
{
	json_begin_object_flat(j, "facts");
	json_str(j, "disk", d->name);
	json_str(j, "model", d->model);
	json_str(j, "firmware", d->firmware);
	json_str(j, "serial", d->serial);
	json_str(j, "rotational", d->rotational);
	json_str(j, "scheduler", d->scheduler);
	json_str(j, "nr_requests", d->nr_requests);
	json_str(j, "write_cache", d->write_cache);
	json_str(j, "fua", d->fua);
	json_str(j, "device_cache", d->device_cache);
	json_str(j, "atomic_write_unit_min", d->atomic_write_unit_min);
	json_str(j, "atomic_write_unit_max", d->atomic_write_unit_max);
	json_str(j, "atomic_write_max", d->atomic_write_max);
	if (d->numa_node >= 0)
		json_i64(j, "numa_node", d->numa_node);
	else
		json_null(j, "numa_node");
	json_str(j, "volumes", volumes);
	json_end(j);
}

static void report(struct check *c, enum env_check_level lv, const char *what, const char *fmt, ...)
	DP_PRINTF(4, 5);
static void report(struct check *c, enum env_check_level lv, const char *what, const char *fmt, ...)
{
	static const char *const names[] = {"OK  ", "WARN", "FAIL"};
	static const char *const sgr[] = {"32", "33", "1;31"};
	va_list ap;

	if (lv == ENV_CHECK_WARN)
		c->warns++;
	else if (lv == ENV_CHECK_FAIL)
		c->fails++;
	if (c->json) {
		struct strbuf msg = STRBUF_INIT;

		va_start(ap, fmt);
		strbuf_vaddf(&msg, fmt, ap);
		va_end(ap);
		json_begin_object_flat(c->json, NULL);
		json_str(c->json, "name", what);
		json_str(c->json, "state",
			 lv == ENV_CHECK_OK	? "OK"
			 : lv == ENV_CHECK_WARN ? "WARN"
						: "FAIL");
		json_str(c->json, "message", msg.buf);
		if (c->disk)
			report_disk_facts(c->json, c->disk, c->disk_volumes);
		else
			json_null(c->json, "facts");
		json_end(c->json);
		c->disk = NULL;
		strbuf_release(&msg);
		return;
	}
	c->disk = NULL;
	if (c->color)
		printf("\033[%sm%s\033[0m  %s: ", sgr[lv], names[lv], what);
	else
		printf("%s  %s: ", names[lv], what);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* ---- engine ---- */

static void check_engine(struct check *c)
{
	const struct engine_ops *ops = engine_find(c->p->engine);
	struct strbuf err = STRBUF_INIT, desc = STRBUF_INIT;
	bool uring = !strcmp(c->p->engine, "io_uring");

	if (!ops)
		report(c, ENV_CHECK_FAIL, "engine", "%s: no such engine", c->p->engine);
	else if (ops->unavailable)
		report(c, ENV_CHECK_FAIL, "engine", "%s: not built in: %s", ops->name,
		       ops->unavailable);
	else if (engine_simulated(ops->name))
		report(c, ENV_CHECK_OK, "engine",
		       "sim: simulated devices on a virtual clock; no file or device is touched, "
		       "so the volume checks are skipped");
	else
		report(c, ENV_CHECK_OK, "engine", "%s, %s I/O", ops->name,
		       c->p->direct ? "direct" : "buffered");
	/* one ring: what the kernel offers io_uring, and whether it can run */
	if (engine_drv_probe(&engine_io_uring, &desc, &err) == 0)
		report(c, ENV_CHECK_OK, "io_uring", "%s", desc.buf);
	else
		report(c, uring ? ENV_CHECK_FAIL : ENV_CHECK_OK, "io_uring", "%s%s", err.buf,
		       uring ? "" : " (this profile does not use it)");
	if (ops && !ops->unavailable && !engine_simulated(ops->name) && !c->p->direct)
		report(c, ENV_CHECK_WARN, "direct I/O",
		       "off ([engine] direct = off): reads may come from the page cache and "
		       "the latencies flatter the storage");
	strbuf_release(&err);
	strbuf_release(&desc);
}

/* ---- direct I/O ---- */

/* The atomic write unit statx reports where a volume's files go. */
static void check_atomic_at(struct check *c, const char *volume, const char *kind,
			    const char *where)
{
	char what[PROFILE_MAX_NAME + 48];
	uint32_t lo, hi;
	int ret = env_atomic_write(where, &lo, &hi);

	snprintf(what, sizeof(what), "atomic writes %s %s", kind, volume);
	if (ret == -EOPNOTSUPP)
		report(c, ENV_CHECK_OK, what,
		       "unknown (statx does not say: a kernel before 6.11, or the filesystem)");
	else if (ret)
		report(c, ENV_CHECK_OK, what, "unknown: statx: %s", strerror(-ret));
	else if (!hi)
		report(c, ENV_CHECK_OK, what, "none (statx: no atomic write unit there)");
	else
		report(c, ENV_CHECK_OK, what,
		       "%" PRIu32 " to %" PRIu32
		       " bytes (statx: an RWF_ATOMIC write that size is never torn)",
		       lo, hi);
}

static void check_direct_at(struct check *c, const char *volume, const char *kind, const char *path,
			    uint32_t align)
{
	char what[PROFILE_MAX_NAME + 48];
	struct env_direct_result r;
	int ret;

	snprintf(what, sizeof(what), "direct I/O %s %s", kind, volume);
	ret = env_direct_probe(path, align, &r);
	if (ret && !r.step) { /* the path itself: not found, or not stat'ed */
		report(c, ENV_CHECK_FAIL, what, "%s: %s", r.where[0] ? r.where : path,
		       strerror(-ret));
		return;
	}
	if (ret) {
		report(c, ENV_CHECK_FAIL, what, "%s: %s%s: %s", r.where,
		       r.refused ? "the filesystem refuses O_DIRECT" : r.step,
		       r.refused ? "" : " with O_DIRECT", strerror(-ret));
		return;
	}
	report(c, ENV_CHECK_OK, what, "%s: %zu-byte block %s with O_DIRECT%s", r.where, r.len,
	       r.device ? "read (a device is only written by init and run)"
			: "written and read back",
	       strcmp(r.where, path) ? " (nearest existing directory)" : "");
	check_atomic_at(c, volume, kind, r.where);
}

static void check_direct(struct check *c)
{
	if (!c->p->direct)
		return;
	for (size_t v = 0; v < c->pl->nr_vols; v++) {
		const struct plan_volume *vol = &c->pl->vols[v];

		check_direct_at(c, vol->name, "on volume", vol->path, vol->align);
		if (strcmp(vol->log_path, vol->path))
			check_direct_at(c, vol->name, "on the log path of", vol->log_path,
					vol->log_align);
	}
}

/* A lock a command could not take at all (FAIL: run, init, verify and
 * clean would refuse, --no-lock going on unlocked), and a volume another
 * command holds now (WARN: a run would be refused until it ends). Looked at
 * only (lock.h): check takes and makes nothing. */
static void check_locks(struct check *c)
{
	struct strbuf bad = STRBUF_INIT, held = STRBUF_INIT;
	char *line, *save = NULL;
	unsigned nbad = plan_lock_check(c->pl, &bad), nheld = plan_lock_probe(c->pl, &held);

	for (line = strtok_r(bad.buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		report(c, ENV_CHECK_FAIL, "locks",
		       "%s: run, init, verify and clean refuse to start without the lock "
		       "(--no-lock goes on unlocked)",
		       line);
	save = NULL;
	for (line = strtok_r(held.buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		report(c, ENV_CHECK_WARN, "locks", "%s: a run now would be refused", line);
	if (!nbad && !nheld)
		report(c, ENV_CHECK_OK, "locks",
		       "every lock can be taken, and no other diskproof command holds these "
		       "volumes");
	strbuf_release(&bad);
	strbuf_release(&held);
}

/* ---- filesystems and space ---- */

static void check_fs_at(struct check *c, const char *volume, const char *path)
{
	char what[PROFILE_MAX_NAME + 48];
	struct env_mount *m = malloc(sizeof(*m));
	struct stat st;
	enum env_check_level lv;
	const char *why;
	int ret;

	snprintf(what, sizeof(what), "filesystem of %s", volume);
	if (!m) {
		report(c, ENV_CHECK_WARN, what, "out of memory");
		return;
	}
	if (stat(path, &st) == 0 && S_ISBLK(st.st_mode)) {
		report(c, ENV_CHECK_OK, what, "none: %s is a block device (raw regions)", path);
		goto out;
	}
	ret = env_mount_find("/proc/self/mountinfo", path, m);
	if (ret) {
		report(c, ENV_CHECK_OK, what, "unknown (%s: not in /proc/self/mountinfo: %s)", path,
		       strerror(-ret));
		goto out;
	}
	lv = env_check_fs(m, &why);
	report(c, lv, what, "%s on %s, mounted at %s (%s; %s)%s", m->fstype, m->source, m->point,
	       m->options, m->super_opts, why);
out:
	free(m);
}

static void check_filesystems(struct check *c)
{
	for (size_t v = 0; v < c->pl->nr_vols; v++) {
		const struct plan_volume *vol = &c->pl->vols[v];
		char what[PROFILE_MAX_NAME + 24];

		snprintf(what, sizeof(what), "volume %s", vol->name);
		check_fs_at(c, what, vol->path);
		if (strcmp(vol->log_path, vol->path)) {
			snprintf(what, sizeof(what), "volume %s's logs", vol->name);
			check_fs_at(c, what, vol->log_path);
		}
	}
}

static void check_space(struct check *c)
{
	struct plan_space sp = {0};
	struct strbuf err = STRBUF_INIT, a = STRBUF_INIT, b = STRBUF_INIT, r = STRBUF_INIT;

	if (plan_space_measure(c->pl, &sp, &err)) {
		report(c, ENV_CHECK_FAIL, "free space", "%s", err.buf);
		goto out;
	}
	for (size_t i = 0; i < sp.nr_fs; i++) {
		const struct plan_fs *f = &sp.fs[i];
		const char *what = "free space";
		enum env_check_level lv;

		strbuf_reset(&a);
		strbuf_reset(&b);
		strbuf_reset(&r);
		unit_format_size(&a, f->need);
		unit_format_size(&b, f->free);
		if (f->reserve) {
			strbuf_addstr(&r, " (");
			unit_format_size(&r, f->reserve);
			strbuf_addstr(&r, " of it kept free for the results file)");
		}
		lv = env_check_space(f->need, f->free, f->free_known);
		if (!f->free_known)
			report(c, lv, what,
			       "%s (volume%s %s): %s still to write, free space unknown", f->path,
			       strchr(f->volumes, ',') ? "s" : "", f->volumes, a.buf);
		else
			report(c, lv, what, "%s (volume%s %s): %s still to write%s, %s %s%s",
			       f->path, strchr(f->volumes, ',') ? "s" : "", f->volumes, a.buf,
			       r.buf, b.buf, f->device ? "in the device" : "free",
			       lv == ENV_CHECK_OK ? "" : ": not enough");
		if (f->cow[0]) {
			strbuf_reset(&r);
			plan_fs_cow_warning(f, &r);
			report(c, ENV_CHECK_WARN, "copy-on-write", "%s (volume%s %s): %s", f->path,
			       strchr(f->volumes, ',') ? "s" : "", f->volumes, r.buf);
		}
	}
out:
	plan_space_release(&sp);
	strbuf_release(&err);
	strbuf_release(&a);
	strbuf_release(&b);
	strbuf_release(&r);
}

/* ---- disks ---- */

struct disk_use {
	char name[ENV_NAME_MAX];
	char volumes[256];
};

/* Adds the disks beneath path to the list, naming the volume. */
static void disks_of(struct disk_use *list, size_t *n, size_t max, const char *volume,
		     const char *path, bool *unknown)
{
	char top[ENV_NAME_MAX], disks[ENV_DISKS_MAX][ENV_NAME_MAX];
	size_t nd = 0;

	if (env_path_device(SYSFS, path, top, sizeof(top)) ||
	    env_block_disks(SYSFS, top, disks, ENV_DISKS_MAX, &nd) == -ENOENT || !nd) {
		*unknown = true;
		return;
	}
	for (size_t i = 0; i < nd; i++) {
		size_t k;

		for (k = 0; k < *n && strcmp(list[k].name, disks[i]); k++)
			;
		if (k == *n) {
			if (*n == max)
				return;
			memcpy(list[k].name, disks[i],
			       sizeof(list[k].name)); /* both ENV_NAME_MAX */
			list[k].volumes[0] = '\0';
			(*n)++;
		}
		if (!strstr(list[k].volumes, volume)) {
			size_t o = strlen(list[k].volumes);

			snprintf(list[k].volumes + o, sizeof(list[k].volumes) - o, "%s%s",
				 o ? ", " : "", volume);
		}
	}
}

/* What a disk says of durability: its write cache (what "write back"
 * means for a database), FUA, and its atomic write unit. */
static void check_disk_durability(struct check *c, const struct env_disk *d)
{
	char what[ENV_NAME_MAX + 24], dev[64] = "";
	const char *wc = !strcmp(d->write_cache, "write back")
				 ? " (volatile: durable only after a flush or FUA)"
			 : !strcmp(d->write_cache, "write through")
				 ? " (not volatile: no flushes sent)"
				 : "";
	const char *fua = !strcmp(d->fua, "1") ? "yes" : !strcmp(d->fua, "0") ? "no" : d->fua;

	if (!strcmp(d->device_cache, d->write_cache))
		snprintf(dev, sizeof(dev), ", as the device says");
	else if (strcmp(d->device_cache, "unknown"))
		snprintf(dev, sizeof(dev), "; device says %s", d->device_cache);
	snprintf(what, sizeof(what), "write cache of disk %s", d->name);
	report(c, ENV_CHECK_OK, what, "%s%s%s; FUA %s", d->write_cache, wc, dev, fua);
	snprintf(what, sizeof(what), "atomic writes of disk %s", d->name);
	if (!strcmp(d->atomic_write_unit_max, "unknown"))
		report(c, ENV_CHECK_OK, what,
		       "unknown (no queue/atomic_write_* in /sys: a kernel before 6.11)");
	else if (!strcmp(d->atomic_write_unit_max, "0"))
		report(c, ENV_CHECK_OK, what, "none (queue/atomic_write_unit_max_bytes 0)");
	else
		report(c, ENV_CHECK_OK, what,
		       "a unit of %s to %s bytes, at most %s bytes per write",
		       d->atomic_write_unit_min, d->atomic_write_unit_max, d->atomic_write_max);
}

static void check_disks(struct check *c)
{
	size_t max = 2 * c->pl->nr_vols * 4 + 8, n = 0;
	struct disk_use *list = calloc(max, sizeof(*list));
	struct env_disk d;

	if (!list) {
		report(c, ENV_CHECK_WARN, "disks", "out of memory");
		return;
	}
	for (size_t v = 0; v < c->pl->nr_vols; v++) {
		const struct plan_volume *vol = &c->pl->vols[v];
		bool unknown = false;

		disks_of(list, &n, max, vol->name, vol->path, &unknown);
		disks_of(list, &n, max, vol->name, vol->log_path, &unknown);
		if (unknown) {
			char what[PROFILE_MAX_NAME + 24];

			snprintf(what, sizeof(what), "disks of volume %s", vol->name);
			report(c, ENV_CHECK_OK, what,
			       "unknown: no block device beneath %s in /sys (tmpfs, NFS, a "
			       "container?)",
			       vol->path);
		}
	}
	for (size_t i = 0; i < n; i++) {
		char what[ENV_NAME_MAX + 8], node[16];

		env_disk_read(SYSFS, list[i].name, &d);
		snprintf(what, sizeof(what), "disk %s", d.name);
		if (d.numa_node >= 0)
			snprintf(node, sizeof(node), "%d", d.numa_node);
		else
			snprintf(node, sizeof(node), "unknown");
		c->disk = &d;
		c->disk_volumes = list[i].volumes;
		report(c, ENV_CHECK_OK, what,
		       "model %s, firmware %s, rotational %s, scheduler %s, nr_requests %s, "
		       "write cache %s, NUMA node %s (volume%s %s)",
		       d.model, d.firmware, d.rotational, d.scheduler, d.nr_requests, d.write_cache,
		       node, strchr(list[i].volumes, ',') ? "s" : "", list[i].volumes);
		check_disk_durability(c, &d);
	}
	free(list);
}

/* ---- CPUs, NUMA, memory, files ---- */

static void check_governor(struct check *c)
{
	char gov[256];
	bool powersave;

	env_cpufreq_governor(SYSFS, gov, sizeof(gov), &powersave);
	if (env_check_governor(powersave) != ENV_CHECK_OK)
		report(c, env_check_governor(powersave), "CPU frequency governor",
		       "%s: CPUs clock down between I/Os and every completion waits for them "
		       "(like Windows' \"Balanced\" power plan); set \"performance\" "
		       "(cpupower frequency-set -g performance)",
		       gov);
	else if (!strcmp(gov, "unknown"))
		report(c, ENV_CHECK_OK, "CPU frequency governor",
		       "unknown (no cpufreq in /sys: a VM, or fixed clocks)");
	else
		report(c, ENV_CHECK_OK, "CPU frequency governor", "%s", gov);
}

/* The workers as the run makes them (plan_workers_layout, the one rule):
 * which volumes each drives. */
static int workers_assign(struct check *c)
{
	unsigned nv = (unsigned)c->pl->nr_vols;
	struct plan_workers lw;
	int ret = plan_workers_layout(c->p, c->pl, plan_streams(c->p, c->pl), plan_online_cpus(),
				      &lw);

	if (ret)
		return ret;
	c->nworkers = lw.nworkers;
	c->drives = calloc((size_t)lw.nworkers * nv, sizeof(*c->drives));
	if (!c->drives) {
		plan_workers_release(&lw);
		return -ENOMEM;
	}
	for (unsigned w = 0; w < lw.nworkers; w++)
		for (unsigned k = lw.first[w]; k < lw.first[w + 1]; k++)
			c->drives[(size_t)w * nv + c->pl->dbs[lw.wdb[k].db].volume] = true;
	plan_workers_release(&lw);
	return 0;
}

static const char *const affinity_names[] = {"soft", "hard", "none"};

static void check_numa(struct check *c)
{
	struct env_numa_map m;
	struct env_numa_worker *w = NULL;
	struct strbuf sb = STRBUF_INIT;
	size_t nv = c->pl->nr_vols;
	int *res = NULL;

	if (plan_numa_map(&m, c->pl)) {
		report(c, ENV_CHECK_WARN, "NUMA", "out of memory");
		return;
	}
	w = calloc(c->nworkers, sizeof(*w));
	res = calloc(c->nworkers, sizeof(*res));
	if (!w || !res) {
		report(c, ENV_CHECK_WARN, "NUMA", "out of memory");
		goto out;
	}
	for (unsigned n = 0; n < ENV_NODES_MAX; n++) {
		if (!(m.topo.present & (1ULL << n)))
			continue;
		strbuf_addf(&sb, "%snode %u CPUs ", sb.len ? ", " : "", n);
		env_cpulist_format(&sb, &m.topo.cpus[n]);
	}
	if (!m.topo.nr_nodes)
		report(c, ENV_CHECK_OK, "NUMA",
		       "not exposed (no /sys/devices/system/node): no placement");
	else
		report(c, ENV_CHECK_OK, "NUMA", "%u node%s (%s); affinity = %s, %s",
		       m.topo.nr_nodes, m.topo.nr_nodes == 1 ? "" : "s", sb.buf,
		       affinity_names[c->p->affinity],
		       env_numa_have_libnuma() ? "memory policy with libnuma"
					       : "memory by first touch (built without libnuma)");
	for (unsigned i = 0; i < c->nworkers; i++)
		res[i] = env_numa_place(&m, c->drives + (size_t)i * nv, c->p->affinity, &w[i]);
	/* per volume: the nodes of its disks and the CPUs of the workers that
	 * drive it, workers with the same placement together */
	for (size_t v = 0; v < nv; v++) {
		char what[PROFILE_MAX_NAME + 24];
		enum env_check_level lv;
		bool done_any = false;

		strbuf_reset(&sb);
		if (m.topo.nr_nodes == 1) {
			strbuf_addf(&sb, "disks on node %d, the only one",
				    __builtin_ctzll(m.topo.present));
		} else if (m.vol_nodes[v]) {
			strbuf_addstr(&sb, "disks on node");
			for (unsigned n = 0, k = 0; n < ENV_NODES_MAX; n++)
				if (m.vol_nodes[v] & (1ULL << n))
					strbuf_addf(&sb, "%s %u",
						    k++					      ? ","
						    : (m.vol_nodes[v] & (m.vol_nodes[v] - 1)) ? "s"
											      : "",
						    n);
			if (m.vol_unknown[v])
				strbuf_addstr(&sb, " (some unknown)");
		} else {
			strbuf_addstr(&sb, "disks' node unknown");
		}
		lv = env_check_numa_volume(m.vol_nodes[v]); /* disks on several nodes */
		for (unsigned i = 0; i < c->nworkers; i++) {
			bool first = true;

			if (!c->drives[(size_t)i * nv + v])
				continue;
			for (unsigned k = 0; k < i; k++)
				if (c->drives[(size_t)k * nv + v] &&
				    !strcmp(w[k].note, w[i].note) &&
				    CPU_EQUAL(&w[k].cpus, &w[i].cpus))
					first = false;
			if (!first)
				continue;
			strbuf_addstr(&sb, done_any ? "; " : "; driven by worker");
			for (unsigned k = i, nk = 0; k < c->nworkers; k++)
				if (c->drives[(size_t)k * nv + v] &&
				    !strcmp(w[k].note, w[i].note) &&
				    CPU_EQUAL(&w[k].cpus, &w[i].cpus))
					strbuf_addf(&sb, "%s%u",
						    nk++ ? "," : (done_any ? "worker " : " "), k);
			if (w[i].placed) {
				strbuf_addstr(&sb, " on CPUs ");
				env_cpulist_format(&sb, &w[i].cpus);
				strbuf_addf(&sb, " (%s)", w[i].note);
			} else {
				strbuf_addf(&sb, " on any CPU (%s)", w[i].note);
			}
			lv = env_check_numa_worker(lv, res[i], w[i].placed, c->p->affinity,
						   m.topo.nr_nodes);
			done_any = true;
		}
		snprintf(what, sizeof(what), "NUMA volume %s", m.vol_names[v]);
		report(c, lv, what, "%s", sb.buf);
	}
out:
	free(w);
	free(res);
	env_numa_map_release(&m);
	strbuf_release(&sb);
}

static void check_memory(struct check *c)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT, d = STRBUF_INIT;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	uint64_t avail = cli_mem_available();
	struct run_memory m;
	enum env_check_level lv;
	const char *why;

	/* the estimate plan, init and run refuse by (run_memory_estimate) */
	run_memory_estimate(c->pl, c->p, cpus > 0 ? (unsigned)cpus : 1, &m);
	unit_format_size(&a, m.total);
	unit_format_size(&b, avail);
	unit_format_size(&d, m.pages);
	lv = env_check_memory(m.total, avail, &why);
	if (!avail)
		report(c, ENV_CHECK_OK, "memory",
		       "the run needs about %s (per-page maps %s); MemAvailable unknown", a.buf,
		       d.buf);
	else
		report(c, lv, "memory", "the run needs about %s (per-page maps %s), %s available%s",
		       a.buf, d.buf, b.buf, why);
	strbuf_release(&a);
	strbuf_release(&b);
	strbuf_release(&d);
}

/* As cli_nofile_raise() will need (env_nofile_need). */
static void check_open_files(struct check *c)
{
	rlim_t want = env_nofile_need(c->pl->nr_dbs);
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0) {
		report(c, ENV_CHECK_OK, "open files", "limit unknown");
		return;
	}
	if (env_check_nofile(want, rl.rlim_max == RLIM_INFINITY ? UINT64_MAX : rl.rlim_max) ==
	    ENV_CHECK_FAIL)
		report(c, ENV_CHECK_FAIL, "open files",
		       "%zu database(s) need about %llu, the hard limit is %llu (raise it: "
		       "ulimit -n, or LimitNOFILE= for a service)",
		       c->pl->nr_dbs, (unsigned long long)want, (unsigned long long)rl.rlim_max);
	else
		report(c, ENV_CHECK_OK, "open files",
		       "%zu database(s) need about %llu, limit %s%llu", c->pl->nr_dbs,
		       (unsigned long long)want,
		       rl.rlim_max == RLIM_INFINITY ? "unlimited, soft " : "",
		       (unsigned long long)(rl.rlim_max == RLIM_INFINITY ? rl.rlim_cur
									 : rl.rlim_max));
}

int cli_cmd_check(int argc, char **argv)
{
	struct cli_opts o;
	struct profile p = {0};
	struct plan pl = {0};
	struct strbuf err = STRBUF_INIT;
	struct check c = {0};
	struct strbuf doc = STRBUF_INIT;
	struct json j = JSON_INIT(&doc);
	bool files, json;
	int ret;

	ret = cli_profile_load(argc, argv, CMD_CHECK, "check", &o, &p);
	if (!ret)
		ret = cli_format_text_json(o.format, &json);
	if (ret)
		goto out;
	files = !engine_simulated(p.engine);
	ret = plan_build(&pl, &p, files, &err);
	pl.results = o.results; /* its 8 MiB reserve counts where it shares a volume's filesystem */
	pl.results_reserve = STORE_MIN_FREE;
	if (ret) {
		cli_print_err(err.buf);
		ret = ret == -EINVAL ? DP_EXIT_USAGE : DP_EXIT_ENV;
		goto out;
	}
	c.p = &p;
	c.pl = &pl;
	c.color = cli_use_color(stdout);
	if (json) {
		c.json = &j;
		json_begin_object(&j, NULL);
		json_doc_versions(&j);
		json_str(&j, "profile", p.name);
		json_str(&j, "origin", p.origin);
		json_str(&j, "engine", p.engine);
		json_u64(&j, "volumes", pl.nr_vols);
		json_u64(&j, "databases", pl.nr_dbs);
		json_begin_array(&j, "checks");
	} else {
		printf("diskproof check: profile %s (%s), engine %s, %zu volume(s), %zu "
		       "database(s)\n",
		       p.name, p.origin, p.engine, pl.nr_vols, pl.nr_dbs);
	}
	if (workers_assign(&c)) {
		fprintf(stderr, "diskproof: out of memory\n");
		ret = DP_EXIT_ENV;
		goto out;
	}
	check_engine(&c);
	if (files) {
		check_locks(&c);
		check_direct(&c);
		check_filesystems(&c);
		check_space(&c);
		check_disks(&c);
	}
	check_governor(&c);
	if (files)
		check_numa(&c);
	check_memory(&c);
	if (files)
		check_open_files(&c);
	ret = c.fails ? DP_EXIT_ENV : DP_EXIT_OK;
	if (json) {
		json_end(&j);
		json_u64(&j, "failed", c.fails);
		json_u64(&j, "warnings", c.warns);
		json_str(&j, "result", c.fails ? "FAIL" : c.warns ? "WARN" : "OK");
		json_end(&j);
		strbuf_addch(&doc, '\n');
		if (cli_emit(NULL, o.results, &doc, stdout))
			ret = DP_EXIT_ENV;
		goto out;
	}
	printf("%u failed, %u warning(s)\n", c.fails, c.warns);
	fflush(stdout);
out:
	free(c.drives);
	strbuf_release(&doc);
	plan_release(&pl);
	profile_release(&p);
	strbuf_release(&err);
	return ret;
}
