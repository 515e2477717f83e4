/*
 * env.c - host and device facts from /proc and /sys (see env.h). Reads only;
 * a missing file is "unknown".
 */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "diskproof/env.h"
#include "diskproof/util.h"

/* First line of a file, trimmed; "unknown" when it cannot be read. */
static void read_line(const char *path, char *out, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	snprintf(out, len, "unknown");
	if (!f)
		return;
	if (fgets(out, (int)len, f)) {
		n = strlen(out);
		while (n && (out[n - 1] == '\n' || out[n - 1] == ' ' || out[n - 1] == '\t'))
			out[--n] = '\0';
		if (!n)
			snprintf(out, len, "unknown");
	} else {
		snprintf(out, len, "unknown");
	}
	fclose(f);
}

/* "name : value" from a /proc file, for the first line starting with name. */
static void proc_field(const char *path, const char *name, char *out, size_t len)
{
	char line[512];
	FILE *f = fopen(path, "r");
	size_t nl = strlen(name);

	snprintf(out, len, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *v;

		if (strncmp(line, name, nl) || !(v = strchr(line + nl, ':')))
			continue;
		v++;
		v += strspn(v, " \t");
		v[strcspn(v, "\n")] = '\0';
		snprintf(out, len, "%s", v);
		break;
	}
	fclose(f);
}

void env_collect_host(env_fact_fn fn, void *arg)
{
	struct utsname u;
	char buf[256];
	long n;

	if (gethostname(buf, sizeof(buf) - 1) == 0)
		fn(arg, "hostname", buf);
	if (uname(&u) == 0) {
		fn(arg, "kernel", u.release);
		fn(arg, "machine", u.machine);
	}
	proc_field("/proc/cpuinfo", "model name", buf, sizeof(buf));
	fn(arg, "cpu_model", buf);
	n = sysconf(_SC_NPROCESSORS_ONLN);
	snprintf(buf, sizeof(buf), "%ld", n > 0 ? n : 0);
	fn(arg, "cpus", buf);
	proc_field("/proc/meminfo", "MemTotal", buf, sizeof(buf));
	fn(arg, "memory_total", buf);
}

/* The sysfs directory of the whole disk behind dev ("" when unknown). */
static void disk_dir(dev_t dev, char *out, size_t len)
{
	char link[PATH_MAX], real[PATH_MAX], part[PATH_MAX + 16];
	struct stat st;

	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(dev), minor(dev));
	out[0] = '\0';
	if (!realpath(link, real))
		return;
	/* a partition has a "partition" file; its disk is the parent */
	snprintf(part, sizeof(part), "%s/partition", real);
	if (stat(part, &st) == 0) {
		char *slash = strrchr(real, '/');

		if (slash)
			*slash = '\0';
	}
	snprintf(out, len, "%s", real);
}

/* "none [mq-deadline] kyber" -> "mq-deadline" (sysfs marks the active one) */
static const char *active_choice(char *val)
{
	char *open = strchr(val, '['), *close = open ? strchr(open, ']') : NULL;

	if (!open || !close)
		return val;
	*close = '\0';
	return open + 1;
}

void env_collect_device(const char *volume, const char *path, env_fact_fn fn, void *arg)
{
	static const struct {
		const char *key;
		const char *file;
	} facts[] = {
		{"model", "device/model"},
		{"firmware", "device/rev"},
		{"serial", "serial"},
		{"rotational", "queue/rotational"},
		{"scheduler", "queue/scheduler"},
		{"write_cache", "queue/write_cache"},
		{"nr_requests", "queue/nr_requests"},
		{"logical_block_size", "queue/logical_block_size"},
		{"physical_block_size", "queue/physical_block_size"},
	};
	char dir[PATH_MAX], file[PATH_MAX + 64], key[160], val[256];
	struct stat st;
	const char *name;

	if (stat(path, &st) != 0)
		return;
	disk_dir(S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev, dir, sizeof(dir));
	name = dir[0] ? strrchr(dir, '/') + 1 : "unknown";
	snprintf(key, sizeof(key), "device.%s.name", volume);
	fn(arg, key, name);
	for (size_t i = 0; i < DP_ARRAY_SIZE(facts); i++) {
		snprintf(file, sizeof(file), "%s/%s", dir, facts[i].file);
		if (dir[0])
			read_line(file, val, sizeof(val));
		else
			snprintf(val, sizeof(val), "unknown");
		snprintf(key, sizeof(key), "device.%s.%s", volume, facts[i].key);
		fn(arg, key, !strcmp(facts[i].key, "scheduler") ? active_choice(val) : val);
	}
	snprintf(file, sizeof(file), "%s/size", dir);
	if (dir[0])
		read_line(file, val, sizeof(val));
	else
		snprintf(val, sizeof(val), "unknown");
	if (strcmp(val, "unknown")) {
		unsigned long long sectors = strtoull(val, NULL, 10);

		snprintf(val, sizeof(val), "%llu", sectors * 512ULL);
	}
	snprintf(key, sizeof(key), "device.%s.size_bytes", volume);
	fn(arg, key, val);
}
