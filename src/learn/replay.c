/* SPDX-License-Identifier: MIT */
/*
 * replay.c - learn --replay-on (learn.h, docs/learn.md): the directory a
 * learned profile is checked in by a short real run, refused unless it is
 * safe to write in, and the learned header's "checked on" section, the
 * observed fingerprint beside the replay's.
 *
 * Safe to write in: an existing directory (never a FIFO, a device or a
 * file), its symbolic links resolved, on a block device whose stack shares
 * nothing with the observed devices. The stack is the device holding the
 * directory's filesystem, the disks beneath it (partition -> disk, dm and
 * md members) and, for a loop device, the device holding its backing file
 * with its own stack, followed down. learn never writes to the observed
 * devices, nor to a disk beneath them (a sibling partition would put the
 * replay's load on the server's disk).
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "diskproof/env.h"
#include "diskproof/learn.h"

static const char *file_kind(mode_t m)
{
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISSOCK(m))
		return "a socket";
	if (S_ISREG(m))
		return "a regular file";
	return "not a directory";
}

static bool in_names(const char (*v)[LEARN_NAME_MAX], size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i], name))
			return true;
	return false;
}

/* Whether name is a device of the observed roles, or a disk beneath one:
 * the role's name into *role. */
static bool watched_by(const struct learn_fp *obs, const char *name, const char **role)
{
	for (int r = 0; r < LEARN_ROLES; r++) {
		const struct learn_where *w = &obs->role[r].where;

		if (!obs->role[r].present)
			continue;
		*role = r == LEARN_DATA ? "data" : "log";
		if (in_names(w->devices, w->nr_devices, name) ||
		    in_names(w->beneath, w->nr_beneath, name))
			return true;
	}
	return false;
}

/* The whole stack under w into s: w's devices and disks, then each loop
 * backing file's device and its stack, until no new backing file comes
 * (learn_where_add_device adds each device and file once). */
static void stack_of(const char *sysfs, const struct learn_where *w, struct learn_where *s)
{
	struct strbuf ignored = STRBUF_INIT;

	*s = *w;
	for (size_t i = 0; i < s->nr_backing; i++) {
		char name[LEARN_NAME_MAX];

		if (env_path_device(sysfs, s->backing[i], name, sizeof(name)) == 0 &&
		    learn_where_add_device(sysfs, name, s, &ignored) != 0)
			break;
	}
	strbuf_release(&ignored);
}

int learn_replay_where(const char *sysfs, const char *path, const struct learn_fp *obs,
		       struct learn_where *w, struct strbuf *err)
{
	char real[PATH_MAX];
	struct learn_where s;
	struct stat st;
	const char *role = "";
	int ret;

	if (lstat(path, &st) != 0 || !realpath(path, real) || stat(real, &st) != 0) {
		strbuf_addf(err, "%s: %s", path, strerror(errno));
		return -errno;
	}
	if (!S_ISDIR(st.st_mode)) {
		strbuf_addf(err, "%s is %s: the replay makes its files in a directory", path,
			    file_kind(st.st_mode));
		return -ENOTDIR;
	}
	memset(w, 0, sizeof(*w));
	ret = learn_where_add(sysfs, real, w, err);
	if (ret)
		return ret;
	stack_of(sysfs, w, &s);
	for (size_t i = 0; i < s.nr_devices + s.nr_beneath; i++) {
		const char *name = i < s.nr_devices ? s.devices[i] : s.beneath[i - s.nr_devices];

		if (watched_by(obs, name, &role)) {
			strbuf_addf(err,
				    "%s%s%s is on %s, which learn watches (%s): learn never "
				    "writes to the observed devices",
				    path, strcmp(path, real) ? " -> " : "",
				    strcmp(path, real) ? real : "", name, role);
			return -EPERM;
		}
	}
	return 0;
}

/* The figures whose residual the sim cannot give: the devices' own. */
static bool device_own(const char *key)
{
	return strstr(key, "queue") || strstr(key, "await");
}

void learn_replay_header(const struct learn_fp *obs, const struct learn_fp *rep, const char *note,
			 struct strbuf *out)
{
	struct learn_figure fo[LEARN_FIGURES_MAX], fr[LEARN_FIGURES_MAX];
	size_t n = learn_fp_figures(obs, fo);

	learn_fp_figures(rep, fr);
	strbuf_addstr(out, ";\n; checked on");
	for (int r = 0; r < LEARN_ROLES; r++) {
		const struct learn_where *w = &rep->role[r].where;

		if (!rep->role[r].present)
			continue;
		strbuf_addf(out, " %s (%s on", w->nr_paths ? w->paths[0] : "?",
			    r == LEARN_DATA ? "data" : "log");
		for (size_t i = 0; i < w->nr_devices; i++)
			strbuf_addf(out, " %s", w->devices[i]);
		strbuf_addch(out, ')');
	}
	strbuf_addf(out, ": a real run of this profile (io_uring) watched for %.1f s from %s UTC\n",
		    rep->seconds, rep->start_utc[0] ? rep->start_utc : "?");
	if (note && *note) {
		const char *p = note;

		while (*p) {
			size_t len = strcspn(p, "\n");

			strbuf_addf(out, ";   %.*s\n", (int)len, p);
			p += len + (p[len] == '\n');
		}
	}
	strbuf_addf(out, "; %-22s %12s %12s %10s %8s\n", "figure", "observed", "replayed",
		    "residual %", "events");
	for (size_t i = 0; i < n; i++) {
		double d = (fr[i].value - fo[i].value) / fo[i].value * 100;

		if (isnan(fo[i].value) || !strncmp(fo[i].key, "database.", 9))
			continue;
		strbuf_addf(out, "; %-22s %12.*f", fo[i].label, fo[i].decimals, fo[i].value);
		if (isnan(fr[i].value))
			strbuf_addf(out, " %12s", "-");
		else
			strbuf_addf(out, " %12.*f", fr[i].decimals, fr[i].value);
		if (isfinite(d))
			strbuf_addf(out, " %+10.1f", d);
		else
			strbuf_addf(out, " %10s", "-");
		strbuf_addf(out, " %8llu%s\n", (unsigned long long)fr[i].events,
			    device_own(fo[i].key) ? "  (the device's own)" : "");
	}
}

double learn_replay_ratio(const struct learn_fp *obs, const struct learn_fp *rep, const char *key)
{
	struct learn_figure fo[LEARN_FIGURES_MAX], fr[LEARN_FIGURES_MAX];
	size_t n = learn_fp_figures(obs, fo);

	learn_fp_figures(rep, fr);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(fo[i].key, key))
			return fo[i].value > 0 ? fr[i].value / fo[i].value : NAN;
	return NAN;
}
