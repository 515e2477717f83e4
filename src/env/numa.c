/* SPDX-License-Identifier: MIT */
/*
 * numa.c - NUMA placement of the workers (env.h): the nodes and their CPUs
 * from sysfs, the node of each volume's disks, and per worker the CPUs it
 * runs on and the node its memory comes from.
 *
 * Why: on a machine with several sockets, a worker that submits to an NVMe
 * device attached to the other socket pays a cross-node hop on every
 * submission and completion, and its buffers may sit in the far memory the
 * device DMAs to: latency and IOPS then measure the placement, not the
 * storage. Workers are placed on the CPUs of their disks' node; memory
 * follows with libnuma (preferred or bound), else by first touch on those
 * CPUs.
 *
 * The placement (env_numa_place) is a pure function of the map, so the unit
 * tests check it on fixture trees; only bind and enter/leave touch the
 * calling thread.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef DISKPROOF_HAVE_NUMA
#include <numa.h>
#include <numaif.h>
#endif

#include "diskproof/env.h"
#include "env_internal.h"

int env_cpulist_parse(const char *s, cpu_set_t *set)
{
	char *end;

	CPU_ZERO(set);
	s += strspn(s, " \t\n");
	while (*s && *s != '\n') {
		unsigned long lo, hi;

		if (*s < '0' || *s > '9')
			return -EINVAL;
		lo = hi = strtoul(s, &end, 10);
		s = end;
		if (*s == '-') {
			if (s[1] < '0' || s[1] > '9')
				return -EINVAL;
			hi = strtoul(s + 1, &end, 10);
			s = end;
		}
		if (hi < lo || hi >= CPU_SETSIZE)
			return -EINVAL;
		for (unsigned long c = lo; c <= hi; c++)
			CPU_SET(c, set);
		if (*s == ',')
			s++;
		else if (*s && *s != '\n' && *s != ' ')
			return -EINVAL;
	}
	return 0;
}

void env_cpulist_format(struct strbuf *sb, const cpu_set_t *set)
{
	bool first = true;

	for (int c = 0; c < CPU_SETSIZE; c++) {
		int e = c;

		if (!CPU_ISSET(c, set))
			continue;
		while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, set))
			e++;
		strbuf_addf(sb, "%s%d", first ? "" : ",", c);
		if (e > c)
			strbuf_addf(sb, "-%d", e);
		first = false;
		c = e;
	}
}

int env_numa_topology_read(const char *sysfs, struct env_numa_topology *t)
{
	char dir[PATH_MAX], val[1024];
	struct dirent *e;
	DIR *d;

	memset(t, 0, sizeof(*t));
	snprintf(dir, sizeof(dir), "%s/devices/system/node", sysfs);
	d = opendir(dir);
	if (!d)
		return 0; /* not exposed: no placement */
	while ((e = readdir(d))) {
		char *end, rel[300];
		unsigned long n;

		if (strncmp(e->d_name, "node", 4) || e->d_name[4] < '0' || e->d_name[4] > '9')
			continue;
		n = strtoul(e->d_name + 4, &end, 10);
		if (*end || n >= ENV_NODES_MAX)
			continue;
		t->present |= 1ULL << n;
		t->nr_nodes++;
		snprintf(rel, sizeof(rel), "%s/cpulist", e->d_name);
		if (env_read_at(dir, rel, val, sizeof(val)) != 0 ||
		    env_cpulist_parse(val, &t->cpus[n]) != 0)
			CPU_ZERO(&t->cpus[n]); /* a memory-only node, or unreadable */
	}
	closedir(d);
	return 0;
}

void env_numa_map_release(struct env_numa_map *m)
{
	free(m->vol_nodes);
	free(m->vol_unknown);
	free(m->vol_names);
	m->vol_nodes = NULL;
	m->vol_unknown = NULL;
	m->vol_names = NULL;
	m->nr_vols = 0;
}

/* The nodes of the disks beneath dev; *unknown when any is not known. */
static uint64_t device_nodes(const char *sysfs, const char *dev, bool *unknown)
{
	char disks[ENV_DISKS_MAX][ENV_NAME_MAX];
	struct env_disk d;
	uint64_t nodes = 0;
	size_t n = 0;

	if (!dev || env_block_disks(sysfs, dev, disks, ENV_DISKS_MAX, &n) == -ENOENT || !n) {
		*unknown = true;
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		env_disk_read(sysfs, disks[i], &d);
		if (d.numa_node >= 0 && d.numa_node < ENV_NODES_MAX)
			nodes |= 1ULL << d.numa_node;
		else
			*unknown = true;
	}
	return nodes;
}

int env_numa_map_build(struct env_numa_map *m, const char *sysfs,
		       const struct env_numa_volume *vols, size_t nvols)
{
	memset(m, 0, sizeof(*m));
	env_numa_topology_read(sysfs, &m->topo);
	m->vol_nodes = calloc(nvols ? nvols : 1, sizeof(*m->vol_nodes));
	m->vol_unknown = calloc(nvols ? nvols : 1, sizeof(*m->vol_unknown));
	m->vol_names = calloc(nvols ? nvols : 1, sizeof(*m->vol_names));
	if (!m->vol_nodes || !m->vol_unknown || !m->vol_names) {
		env_numa_map_release(m);
		return -ENOMEM;
	}
	m->nr_vols = nvols;
	for (size_t v = 0; v < nvols; v++) {
		const char *log = vols[v].log_device;

		snprintf(m->vol_names[v], ENV_NAME_MAX, "%s", vols[v].name ? vols[v].name : "?");
		m->vol_nodes[v] = device_nodes(sysfs, vols[v].device, &m->vol_unknown[v]);
		if (log && (!vols[v].device || strcmp(log, vols[v].device)))
			m->vol_nodes[v] |= device_nodes(sysfs, log, &m->vol_unknown[v]);
	}
	return 0;
}

static void nodes_format(char *out, size_t len, uint64_t nodes)
{
	size_t o = 0;

	out[0] = '\0';
	for (unsigned n = 0; n < ENV_NODES_MAX && o < len; n++)
		if (nodes & (1ULL << n))
			o += (size_t)snprintf(out + o, len - o, "%s%u", o ? "," : "", n);
}

/* A note too long is cut (a strbuf's text: no truncation warning). */
static void note_set(struct env_numa_worker *w, const char *text)
{
	snprintf(w->note, sizeof(w->note), "%s", text);
}

static void hard_note(struct env_numa_worker *w, uint64_t nodes, const char *list, bool unknown)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "node%s %s, hard%s", nodes & (nodes - 1) ? "s" : "", list,
		    unknown ? "; some disks' nodes unknown" : "");
	note_set(w, sb.buf);
	strbuf_release(&sb);
}

int env_numa_place(const struct env_numa_map *m, const bool *drives, enum profile_affinity policy,
		   struct env_numa_worker *w)
{
	uint64_t nodes = 0;
	bool unknown = false;
	size_t o = 0;
	char list[128];

	memset(w, 0, sizeof(*w));
	w->policy = policy;
	w->node = -1;
	for (size_t v = 0; v < m->nr_vols; v++) {
		if (!drives[v])
			continue;
		nodes |= m->vol_nodes[v];
		unknown |= m->vol_unknown[v];
		if (o < sizeof(w->volumes))
			o += (size_t)snprintf(w->volumes + o, sizeof(w->volumes) - o, "%s%s",
					      o ? ", " : "", m->vol_names[v]);
	}
	nodes &= m->topo.present;
	if (m->topo.nr_nodes == 1) /* every disk is on the only node there is */
		nodes = m->topo.present, unknown = false;
	nodes_format(list, sizeof(list), nodes);
	if (policy == PROFILE_AFFINITY_NONE) {
		snprintf(w->note, sizeof(w->note), "affinity = none");
		return 0;
	}
	if (!m->topo.nr_nodes) {
		snprintf(w->note, sizeof(w->note), "no NUMA nodes exposed");
		return 0;
	}
	if (policy == PROFILE_AFFINITY_SOFT && m->topo.nr_nodes == 1) {
		snprintf(w->note, sizeof(w->note), "one NUMA node");
		return 0;
	}
	if (!nodes) {
		snprintf(w->note, sizeof(w->note), "the NUMA node of its disks is not known");
		return 0;
	}
	if (policy == PROFILE_AFFINITY_SOFT) {
		if (nodes & (nodes - 1)) {
			snprintf(w->note, sizeof(w->note), "its disks are on nodes %s", list);
			return 0;
		}
		w->node = __builtin_ctzll(nodes);
		if (!CPU_COUNT(&m->topo.cpus[w->node])) {
			snprintf(w->note, sizeof(w->note), "node %d has no CPUs", w->node);
			w->node = -1;
			return 0;
		}
		w->cpus = m->topo.cpus[w->node];
		w->nodes = nodes;
		w->placed = true;
		snprintf(w->note, sizeof(w->note), "node %d, soft", w->node);
		return 0;
	}
	/* hard: exactly the CPUs of the nodes of its disks */
	CPU_ZERO(&w->cpus);
	for (unsigned n = 0; n < ENV_NODES_MAX; n++)
		if (nodes & (1ULL << n))
			CPU_OR(&w->cpus, &w->cpus, &m->topo.cpus[n]);
	if (!CPU_COUNT(&w->cpus)) {
		struct strbuf sb = STRBUF_INIT;

		strbuf_addf(&sb, "affinity = hard: NUMA node%s %s of volume%s %s ha%s no CPUs",
			    nodes & (nodes - 1) ? "s" : "", list,
			    strchr(w->volumes, ',') ? "s" : "", w->volumes,
			    nodes & (nodes - 1) ? "ve" : "s");
		note_set(w, sb.buf);
		strbuf_release(&sb);
		return -EINVAL;
	}
	w->nodes = nodes;
	w->node = nodes & (nodes - 1) ? -1 : __builtin_ctzll(nodes);
	w->placed = true;
	hard_note(w, nodes, list, unknown);
	return 0;
}

int env_numa_plan(const char *sysfs, const struct env_numa_volume *vols, size_t nvols,
		  const bool *drives, unsigned nworkers, enum profile_affinity policy,
		  struct env_numa_worker *out, struct strbuf *err)
{
	struct env_numa_map m;
	int ret, r;

	ret = env_numa_map_build(&m, sysfs, vols, nvols);
	if (ret) {
		strbuf_addstr(err, "NUMA placement: out of memory");
		return ret;
	}
	for (unsigned w = 0; w < nworkers; w++) {
		r = env_numa_place(&m, drives + (size_t)w * nvols, policy, &out[w]);
		if (r && !ret) {
			strbuf_addf(err, "worker %u: %s", w, out[w].note);
			ret = r;
		}
	}
	env_numa_map_release(&m);
	return ret;
}

bool env_numa_have_libnuma(void)
{
#ifdef DISKPROOF_HAVE_NUMA
	return numa_available() >= 0;
#else
	return false;
#endif
}

/* With libnuma: the calling thread's memory policy for the placement. */
static int memory_policy_set(const struct env_numa_worker *w, struct strbuf *err)
{
#ifdef DISKPROOF_HAVE_NUMA
	unsigned long mask[ENV_NODES_MAX / (8 * sizeof(unsigned long))] = {0};
	int mode;

	if (numa_available() < 0)
		return 0;
	for (unsigned n = 0; n < ENV_NODES_MAX; n++)
		if (w->nodes & (1ULL << n))
			mask[n / (8 * sizeof(unsigned long))] |= 1UL << (n % (8 * sizeof(long)));
	mode = w->policy == PROFILE_AFFINITY_HARD ? MPOL_BIND : MPOL_PREFERRED;
	if (set_mempolicy(mode, mask, ENV_NODES_MAX + 1) != 0) {
		int e = errno;

		if (w->policy != PROFILE_AFFINITY_HARD)
			return 0;
		strbuf_addf(err, "NUMA: cannot bind memory to %s: %s", w->note, strerror(e));
		return -e;
	}
	return 0;
#else
	(void)w;
	(void)err;
	return 0; /* first touch: allocations follow the CPUs they run on */
#endif
}

int env_numa_bind_thread(const struct env_numa_worker *w, struct strbuf *err)
{
	int ret;

	if (!w->placed || w->policy == PROFILE_AFFINITY_NONE)
		return 0;
	ret = pthread_setaffinity_np(pthread_self(), sizeof(w->cpus), &w->cpus);
	if (ret) {
		if (w->policy != PROFILE_AFFINITY_HARD)
			return 0; /* soft: stay where the scheduler put it */
		strbuf_addf(err, "NUMA: cannot pin a worker to the CPUs of %s: %s", w->note,
			    strerror(ret));
		return -ret;
	}
	return memory_policy_set(w, err);
}

int env_numa_setup_enter(const struct env_numa_worker *w, struct env_numa_saved *s,
			 struct strbuf *err)
{
	memset(s, 0, sizeof(*s));
	if (!w->placed || w->policy == PROFILE_AFFINITY_NONE)
		return 0;
	s->active = true;
	s->cpus_saved = pthread_getaffinity_np(pthread_self(), sizeof(s->cpus), &s->cpus) == 0;
#ifdef DISKPROOF_HAVE_NUMA
	s->policy_saved = numa_available() >= 0 &&
			  get_mempolicy(&s->mode, s->nodemask, ENV_NODES_MAX + 1, NULL, 0) == 0;
#endif
	return env_numa_bind_thread(w, err);
}

void env_numa_setup_leave(struct env_numa_saved *s)
{
	if (!s->active)
		return;
	if (s->cpus_saved)
		(void)pthread_setaffinity_np(pthread_self(), sizeof(s->cpus), &s->cpus);
#ifdef DISKPROOF_HAVE_NUMA
	if (s->policy_saved)
		(void)set_mempolicy(s->mode, s->nodemask, ENV_NODES_MAX + 1);
#endif
	s->active = false;
}

void env_numa_worker_facts(unsigned index, const struct env_numa_worker *w, env_fact_fn fn,
			   void *arg)
{
	struct strbuf v = STRBUF_INIT;
	char key[64];

	if (w->placed) {
		env_cpulist_format(&v, &w->cpus);
		strbuf_addf(&v, " (%s)", w->note);
	} else {
		strbuf_addf(&v, "any (not placed: %s)", w->note);
	}
	snprintf(key, sizeof(key), "worker.%u.cpus", index);
	fn(arg, key, v.buf);
	snprintf(key, sizeof(key), "worker.%u.volumes", index);
	fn(arg, key, w->volumes);
	strbuf_release(&v);
}
