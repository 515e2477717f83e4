/*
 * eval.c - verdicts from summaries and thresholds (see eval.h). Pure: no I/O,
 * no clock, no globals; the same input gives the same verdicts.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diskproof/eval.h"

struct judge {
	struct verdict *v;
	size_t n, cap;
};

static int add(struct judge *j, const struct scope_summary *s, enum scope_kind k,
	       const char *criterion, enum verdict_cmp cmp, double threshold, double measured)
{
	struct verdict *v;

	if (j->n == j->cap) {
		size_t cap = j->cap ? j->cap * 2 : 32;
		struct verdict *nv = realloc(j->v, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		j->v = nv;
		j->cap = cap;
	}
	v = &j->v[j->n++];
	memset(v, 0, sizeof(*v));
	v->scope = k;
	snprintf(v->name, sizeof(v->name), "%s", s->name);
	snprintf(v->volume, sizeof(v->volume), "%s", s->volume);
	snprintf(v->criterion, sizeof(v->criterion), "%s", criterion);
	v->cmp = cmp;
	v->threshold = threshold;
	v->measured = measured;
	v->passed = cmp == VERDICT_LE ? measured <= threshold : measured >= threshold;
	return 0;
}

static double ns_to_ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

static int judge_scope(struct judge *j, const struct scope_summary *s, enum scope_kind k,
		       const struct profile_thresholds *t)
{
	const struct class_summary *rd = &s->classes[IO_DB_READ];
	const struct class_summary *lw = &s->classes[IO_LOG_WRITE];
	uint64_t errors = 0;
	int ret = 0;

	if (rd->ios) {
		ret |= add(j, s, k, "db_read_avg_ms", VERDICT_LE, ns_to_ms(t->db_read_avg_ns),
			   rd->avg_ms);
		ret |= add(j, s, k, "db_read_max_ms", VERDICT_LE, ns_to_ms(t->db_read_max_ns),
			   rd->max_ms);
	}
	if (lw->ios) {
		ret |= add(j, s, k, "log_write_avg_ms", VERDICT_LE, ns_to_ms(t->log_write_avg_ns),
			   lw->avg_ms);
		ret |= add(j, s, k, "log_write_max_ms", VERDICT_LE, ns_to_ms(t->log_write_max_ns),
			   lw->max_ms);
	}
	for (unsigned c = 0; c < IO_CLASS_COUNT; c++)
		errors += s->classes[c].errors;
	ret |= add(j, s, k, "io_errors", VERDICT_LE, (double)t->io_errors, (double)errors);
	ret |= add(j, s, k, "integrity_errors", VERDICT_LE, 0, (double)s->integrity_errors);
	return ret ? -ENOMEM : 0;
}

int eval_judge(const struct eval_input *in, const struct profile_thresholds *t,
	       struct verdict **out, size_t *count)
{
	struct judge j = {0};
	int ret = 0;

	for (size_t i = 0; i < in->nr_databases && !ret; i++)
		ret = judge_scope(&j, &in->databases[i], SCOPE_DATABASE, t);
	for (size_t i = 0; i < in->nr_volumes && !ret; i++)
		ret = judge_scope(&j, &in->volumes[i], SCOPE_VOLUME, t);
	if (!ret && in->run)
		ret = judge_scope(&j, in->run, SCOPE_RUN, t);
	if (!ret && in->run && in->target_iops)
		ret = add(&j, in->run, SCOPE_RUN, "transactional_iops", VERDICT_GE,
			  (double)in->target_iops, scope_transactional_iops(in->run));
	if (ret) {
		free(j.v);
		return -ENOMEM;
	}
	*out = j.v;
	*count = j.n;
	return 0;
}

bool eval_all_passed(const struct verdict *v, size_t count)
{
	for (size_t i = 0; i < count; i++)
		if (!v[i].passed)
			return false;
	return true;
}
