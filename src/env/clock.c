/* SPDX-License-Identifier: MIT */
/*
 * clock.c - the system clock's synchronisation state (adjtimex, read-only)
 * and the time daemon keeping it, recorded with every run: a fleet's runs
 * start together only as well as their hosts' clocks agree (env.h).
 */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/timex.h>

#include "diskproof/env.h"
#include "env_internal.h"

/* The daemons that discipline a clock, by /proc/PID/comm (15 characters at
 * most: systemd-timesyncd reads "systemd-timesyn"); shown by full name. */
static const struct {
	const char *comm;
	const char *name;
} clock_daemons[] = {
	{"chronyd", "chronyd"},	  {"systemd-timesyn", "systemd-timesyncd"},
	{"ntpd", "ntpd"},	  {"ptp4l", "ptp4l"},
	{"openntpd", "openntpd"},
};

static void clock_daemon_find(char *out, size_t len)
{
	bool found[DP_ARRAY_SIZE(clock_daemons)] = {0};
	char path[300], comm[32]; /* path: d_name's 256, unchecked by the compiler */
	struct dirent *e;
	size_t o = 0;
	DIR *d;

	d = opendir("/proc");
	while (d && (e = readdir(d))) {
		if (!isdigit((unsigned char)e->d_name[0]) || strlen(e->d_name) > 20)
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", e->d_name);
		if (env_read_line(path, comm, sizeof(comm)))
			continue;
		for (size_t k = 0; k < DP_ARRAY_SIZE(clock_daemons); k++)
			if (!strcmp(comm, clock_daemons[k].comm))
				found[k] = true;
	}
	if (d)
		closedir(d);
	out[0] = '\0';
	for (size_t k = 0; k < DP_ARRAY_SIZE(clock_daemons); k++) {
		int n;

		if (!found[k])
			continue;
		n = snprintf(out + o, len - o, "%s%s", o ? ", " : "", clock_daemons[k].name);
		if (n < 0 || (size_t)n >= len - o)
			break;
		o += (size_t)n;
	}
	if (!o)
		snprintf(out, len, "none found");
}

static const char *clock_state_word(int st)
{
	switch (st) {
	case TIME_OK:
		return "ok";
	case TIME_INS:
		return "ins";
	case TIME_DEL:
		return "del";
	case TIME_OOP:
		return "oop";
	case TIME_WAIT:
		return "wait";
	case TIME_ERROR:
		return "error";
	default:
		return "unknown";
	}
}

void env_clock_read(struct env_clock *c)
{
	struct timex tx = {.modes = 0}; /* 0: read only, no privilege needed */
	int st;

	memset(c, 0, sizeof(*c));
	st = adjtimex(&tx);
	if (st < 0) {
		snprintf(c->state, sizeof(c->state), "unknown");
	} else {
		c->known = true;
		c->synchronised = !(tx.status & STA_UNSYNC) && st != TIME_ERROR;
		c->max_error_us = tx.maxerror;
		c->est_error_us = tx.esterror;
		snprintf(c->state, sizeof(c->state), "%s", clock_state_word(st));
	}
	clock_daemon_find(c->daemon, sizeof(c->daemon));
}

void env_clock_facts(const struct env_clock *c, env_fact_fn fn, void *arg)
{
	char v[32];

	fn(arg, "host.clock.synchronised", !c->known ? "unknown" : c->synchronised ? "yes" : "no");
	snprintf(v, sizeof(v), "%ld", c->max_error_us);
	fn(arg, "host.clock.max_error_us", c->known ? v : "unknown");
	snprintf(v, sizeof(v), "%ld", c->est_error_us);
	fn(arg, "host.clock.est_error_us", c->known ? v : "unknown");
	fn(arg, "host.clock.state", c->state);
	fn(arg, "host.clock.daemon", c->daemon);
}
