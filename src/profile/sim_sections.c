/* SPDX-License-Identifier: MIT */
/*
 * sim_sections.c - [sim NAME] and [sim-log NAME]: the device models of one
 * volume, read while the file is parsed (parse.c hands their keys here) and
 * checked against the volumes once the whole file is read, since a volume and
 * [sim] may come after them. What the models inherit and how to read them:
 * struct profile_volume in profile.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "parse_internal.h"

/* "[sim NAME]" (log false) or "[sim-log NAME]": a device model for one
 * volume, checked against the volumes in profile_sim_sections_finish(). */
void profile_sim_section_begin(struct parse_ctx *c, const char *kind, const char *name, bool log)
{
	struct sim_sec *n;
	size_t i;

	if (!*name) {
		profile_parse_error(
			c, c->lineno, c->label.buf, NULL,
			"missing the volume name; write [%s NAME] (NAME as in [volume NAME])",
			kind);
		return;
	}
	strbuf_reset(&c->label);
	strbuf_addf(&c->label, "[%s %s]", kind, name);
	if (strlen(name) >= PROFILE_MAX_NAME) {
		profile_parse_error(c, c->lineno, c->label.buf, NULL,
				    "no volume has this name (too long)");
		return;
	}
	for (i = 0; i < c->nr_sims; i++) {
		if (!strcmp(c->sims[i].label, c->label.buf)) {
			profile_parse_error(c, c->lineno, c->label.buf, NULL,
					    "duplicate section; first defined on line %u",
					    c->sims[i].line);
			return;
		}
	}
	n = realloc(c->sims, (c->nr_sims + 1) * sizeof(*n));
	if (!n)
		goto out_oom;
	c->sims = n;
	n = &c->sims[c->nr_sims];
	memset(n, 0, sizeof(*n));
	c->nr_sims++; /* from here on released with the rest */
	strncpy(n->name, name, sizeof(n->name) - 1);
	n->log = log;
	n->line = c->lineno;
	n->label = strdup(c->label.buf);
	if (!n->label || profile_parse_marks_init(&n->marks, c->nr_keys))
		goto out_oom;
	c->cur_sim = c->nr_sims - 1;
	c->kind = SEC_SIM;
	c->section = "sim";
	return;
out_oom:
	c->oom = true;
}

/*
 * The stall keys of one device model m go together: all three set (the stall
 * is on) or none, and a stall shorter than its period. lines are the key
 * lines of the section that gave the model (c->marks for [sim]); named is
 * true for [sim NAME] and [sim-log NAME], which are checked only when they set
 * one of the three (else the model is [sim]'s, checked there).
 */
static void check_stall(struct parse_ctx *c, const struct profile_sim *m, const unsigned *lines,
			const char *label, bool named)
{
	static const char *const names[] = {"stall_period", "stall_length", "stall_latency"};
	uint64_t v[3] = {m->stall_period_ns, m->stall_length_ns, m->stall_latency_ns};
	unsigned line = 0, set = 0;
	const char *at = names[0];

	for (size_t i = 0; i < 3; i++) {
		unsigned l = lines[profile_parse_key_index(c, "sim", names[i])];

		set += v[i] != 0;
		if (l && !line) {
			line = l;
			at = names[i];
		}
	}
	if (!line && named)
		return; /* a named section that sets no stall key: [sim]'s report */
	if (set && set < 3)
		profile_parse_error(
			c, line, label, at,
			"stall_period, stall_length and stall_latency go together: give all "
			"three (a stall) or none (here stall_period %s, stall_length %s, "
			"stall_latency %s)",
			v[0] ? "is set" : "is 0", v[1] ? "is set" : "is 0",
			v[2] ? "is set" : "is 0");
	else if (set && m->stall_length_ns >= m->stall_period_ns)
		profile_parse_error(
			c, line, label, at,
			"stall_length must be shorter than stall_period (a device that stalls "
			"all the time is a slower device: raise its latencies instead)");
}

/* The [sim] fields key entry k covers in m. */
static void *sim_field(const struct profile_key *k, struct profile_sim *m)
{
	return (char *)m + (k->offset - offsetof(struct profile, sim));
}

/* Model dst := [sim] with the keys section s set in it (its state KEY_OK). */
static void sim_apply(struct parse_ctx *c, struct profile_sim *dst, const struct sim_sec *s)
{
	*dst = c->p->sim;
	for (size_t i = 0; i < c->nr_keys; i++)
		if (!strcmp(c->keys[i].section, "sim") && s->marks.state[i] == KEY_OK)
			memcpy(sim_field(&c->keys[i], dst),
			       sim_field(&c->keys[i], (struct profile_sim *)&s->val),
			       c->keys[i].size);
}

static bool sim_same(struct parse_ctx *c, struct profile_sim *a, struct profile_sim *b)
{
	for (size_t i = 0; i < c->nr_keys; i++)
		if (!strcmp(c->keys[i].section, "sim") &&
		    memcmp(sim_field(&c->keys[i], a), sim_field(&c->keys[i], b), c->keys[i].size))
			return false;
	return true;
}

static unsigned *lines_dup(struct parse_ctx *c, const unsigned *l)
{
	unsigned *n = malloc(c->nr_keys * sizeof(*n));

	if (n)
		memcpy(n, l, c->nr_keys * sizeof(*n));
	else
		c->oom = true;
	return n;
}

/*
 * The simulated devices of every volume (profile.h says how to read them):
 * each volume's data model is [sim] with its [sim NAME] over it; its log
 * model, when its logs have a path of their own, is [sim] with the [sim-log]
 * section over it (a log disk is another disk: [sim NAME] does not carry
 * over). Volumes whose log_path is the same string share one log device: the
 * [sim-log] section of any of them sets it, and two that give different
 * models are an error. Runs after finish() filled log_path.
 */
void profile_sim_sections_finish(struct parse_ctx *c)
{
	struct profile *p = c->p;
	struct strbuf names = STRBUF_INIT;
	size_t i, j;

	check_stall(c, &p->sim, c->marks.line, "[sim]", false);
	for (i = 0; i < p->nr_volumes; i++) {
		struct profile_volume *v = &p->volumes[i];

		v->sim = p->sim;
		v->sim_log = p->sim;
		v->sim_log_own = v->path && v->log_path && strcmp(v->path, v->log_path);
	}
	for (i = 0; i < p->nr_volumes; i++)
		strbuf_addf(&names, "%s%s", i ? ", " : "", p->volumes[i].name);
	for (i = 0; i < c->nr_sims; i++) {
		struct sim_sec *s = &c->sims[i];
		struct profile_volume *v = NULL;

		for (j = 0; j < p->nr_volumes && !v; j++)
			if (!strcmp(p->volumes[j].name, s->name))
				v = &p->volumes[j];
		if (!v) {
			profile_parse_error(c, s->line, s->label, NULL,
					    "no [volume %s] in this profile (the volumes are %s)",
					    s->name, names.len ? names.buf : "none");
			continue;
		}
		if (!s->log) {
			sim_apply(c, &v->sim, s);
			v->sim_line = s->line;
			v->sim_key_lines = lines_dup(c, s->marks.line);
			check_stall(c, &v->sim, s->marks.line, s->label, true);
			continue;
		}
		if (!v->sim_log_own) {
			profile_parse_error(
				c, s->line, s->label, NULL,
				"volume %s keeps its logs on its data device (log_path is unset "
				"or equal to path), which [sim %s] sets; give log_path a "
				"directory of its own or remove this section",
				s->name, s->name);
			continue;
		}
		sim_apply(c, &v->sim_log, s);
		v->sim_log_line = s->line;
		v->sim_log_key_lines = lines_dup(c, s->marks.line);
		memcpy(v->sim_log_from, v->name, sizeof(v->sim_log_from));
		check_stall(c, &v->sim_log, s->marks.line, s->label, true);
	}
	/* one model per shared log device: the first volume whose own section
	 * set it gives it to the others without one, and every other own
	 * section must agree with it */
	for (i = 0; i < p->nr_volumes; i++) {
		struct profile_volume *a = &p->volumes[i];

		if (!a->sim_log_own || !a->sim_log_line || strcmp(a->sim_log_from, a->name))
			continue;
		for (j = 0; j < p->nr_volumes; j++) {
			struct profile_volume *b = &p->volumes[j], *late;

			if (j == i || !b->sim_log_own || strcmp(a->log_path, b->log_path))
				continue;
			if (!b->sim_log_line) {
				b->sim_log = a->sim_log;
				b->sim_log_line = a->sim_log_line;
				b->sim_log_key_lines = lines_dup(c, a->sim_log_key_lines);
				memcpy(b->sim_log_from, a->name, sizeof(b->sim_log_from));
				continue;
			}
			if (j < i || strcmp(b->sim_log_from, b->name) ||
			    sim_same(c, &a->sim_log, &b->sim_log))
				continue; /* compared already, a copy, or the same model */
			late = b->sim_log_line > a->sim_log_line ? b : a;
			strbuf_reset(&c->why);
			strbuf_addf(&c->why, "[sim-log %s]", late->name);
			profile_parse_error(
				c, late->sim_log_line, c->why.buf, NULL,
				"volumes %s and %s share log_path %s (one simulated log device), "
				"but [sim-log %s] (line %u) sets it differently; give one of the "
				"two sections, or the same keys in both",
				a->name, b->name, a->log_path, late == b ? a->name : b->name,
				late == b ? a->sim_log_line : b->sim_log_line);
		}
	}
	strbuf_release(&names);
}

void profile_sim_sections_release(struct parse_ctx *c)
{
	for (size_t i = 0; i < c->nr_sims; i++) {
		profile_parse_marks_release(&c->sims[i].marks);
		free(c->sims[i].label);
	}
	free(c->sims);
	c->sims = NULL;
	c->nr_sims = 0;
}
