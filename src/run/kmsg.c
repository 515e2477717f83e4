/* SPDX-License-Identifier: MIT */
/*
 * kmsg.c - the kernel log beside a run (run_internal.h, struct run_kmsg):
 * what the kernel says about the run's devices while it runs (resets, I/O
 * errors, timeouts) kept as "kernel" events of its test log, as Jetstress
 * keeps the Windows event log. The log is read non-blocking from the run's
 * start (env/kmsg.c), polled each interval and at the end; a line is kept
 * when it names one of the devices under the volumes (the device a volume
 * is on and the disks beneath it, and their partitions: kmsg.h).
 *
 * Reading it needs CAP_SYSLOG where kernel.dmesg_restrict is 1: without it,
 * an event says the log was not read, and the run goes on. A sim run has no
 * device and reads nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diskproof/kmsg.h"
#include "run_internal.h"

#define KMSG_PATH "/dev/kmsg"
/* The most records one poll reads: a flood of kernel lines cannot hold the
 * coordinator (the rest are read at the next poll). */
#define KMSG_POLL_MAX 4096

static void kmsg_event(struct run *r, uint64_t t_ms, const char *kind, const char *msg)
{
	if (!r->store.failed &&
	    store_event_add(r->store.st, r->store.run_id, t_ms, kind, msg, &r->store.err))
		coord_store_error(r, -EIO);
}

static void kmsg_add_dev(struct run_kmsg *k, const char *name)
{
	if (!*name || !strcmp(name, "unknown") || k->ndev == RUN_KMSG_DEVS)
		return;
	for (size_t i = 0; i < k->ndev; i++)
		if (!strcmp(k->devs[i], name))
			return;
	snprintf(k->devs[k->ndev++], ENV_NAME_MAX, "%s", name);
}

void run_kmsg_begin(struct run *r)
{
	struct run_kmsg *k = &r->kmsg;
	char top[ENV_NAME_MAX], disks[ENV_DISKS_MAX][ENV_NAME_MAX];
	char msg[256];
	int ret;

	memset(k, 0, sizeof(*k));
	k->fd = -1;
	if (r->virt || !r->plan.files)
		return;
	for (size_t v = 0; v < r->plan.nr_vols; v++) {
		size_t n = 0;

		if (env_path_device("/sys", r->plan.vols[v].path, top, sizeof(top)))
			continue;
		kmsg_add_dev(k, top);
		(void)env_block_disks("/sys", top, disks, ENV_DISKS_MAX, &n);
		for (size_t i = 0; i < n; i++)
			kmsg_add_dev(k, disks[i]);
	}
	if (!k->ndev)
		return;
	ret = env_kmsg_open(KMSG_PATH, &k->fd);
	if (ret) {
		snprintf(msg, sizeof(msg),
			 "kernel log not read: " KMSG_PATH ": %s%s; the run goes on without it",
			 strerror(-ret),
			 ret == -EPERM || ret == -EACCES
				 ? " (reading it needs CAP_SYSLOG while kernel.dmesg_restrict is 1)"
				 : "");
		kmsg_event(r, 0, "kernel_log", msg);
		k->fd = -1;
		return;
	}
	k->open = true;
}

void run_kmsg_poll(struct run *r, uint64_t t_ms)
{
	struct run_kmsg *k = &r->kmsg;
	struct env_kmsg_line *l;

	if (!k->open)
		return;
	l = malloc(sizeof(*l));
	if (!l)
		return;
	for (unsigned n = 0; n < KMSG_POLL_MAX; n++) {
		int ret = env_kmsg_read(k->fd, l);
		bool about = false;

		if (ret == -EPIPE) {
			k->overruns++;
			continue;
		}
		if (ret == -EINVAL)
			continue;
		if (ret)
			break;
		for (size_t i = 0; i < k->ndev && !about; i++)
			about = env_kmsg_names_device(l->text, k->devs[i]);
		if (!about)
			continue;
		if (k->stored == RUN_KMSG_EVENTS_MAX) {
			k->dropped++;
			continue;
		}
		{
			char msg[KMSG_TEXT_MAX + 32];

			snprintf(msg, sizeof(msg), "%s: %s", env_kmsg_level_name(l->level),
				 l->text);
			kmsg_event(r, t_ms, "kernel", msg);
			k->stored++;
		}
	}
	free(l);
}

void run_kmsg_end(struct run *r, uint64_t t_ms)
{
	struct run_kmsg *k = &r->kmsg;
	char msg[256];

	if (!k->open)
		return;
	run_kmsg_poll(r, t_ms);
	if (k->dropped) {
		snprintf(msg, sizeof(msg),
			 "%llu more kernel log line(s) about the run's devices not stored: at most "
			 "%u are kept per run",
			 (unsigned long long)k->dropped, RUN_KMSG_EVENTS_MAX);
		kmsg_event(r, t_ms, "kernel_log", msg);
	}
	if (k->overruns) {
		snprintf(msg, sizeof(msg),
			 "the kernel log overwrote lines before they were read (%llu time(s)): "
			 "some may be missing",
			 (unsigned long long)k->overruns);
		kmsg_event(r, t_ms, "kernel_log", msg);
	}
	close(k->fd);
	k->fd = -1;
	k->open = false;
}
