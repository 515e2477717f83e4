/* SPDX-License-Identifier: MIT */
/*
 * eval.c - verdicts from summaries and thresholds (see eval.h). Pure: no I/O,
 * no clock, no globals; the same input gives the same verdicts.
 *
 * Order of the verdicts: every database, then every volume, then the run.
 * Within a scope: for database reads, then log writes, the average, the
 * maximum (on the profile's max_basis) and the optional p99, highest window
 * and dispersion; then I/O and integrity errors and, where the profile sets
 * its threshold, page fault stalls; a volume then rolls up its databases (databases_failed),
 * the run its volumes (volumes_failed) and last the target IOPS. The roll-ups
 * read the verdicts already made, so a scope is judged after what it holds.
 * Before them all, auto-tune's level (autotune_settled, a run-scope verdict):
 * first, so that every report shows it in its first lines, as the fact that
 * qualifies every figure after it.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diskproof/eval.h"

struct judge {
	struct verdict *v;
	size_t n, cap;
};

static const struct eval_class_criteria latency_criteria[] = {
	{IO_DB_READ, "db_read_avg_ms", "db_read_max_ms", "db_read_max_sample_avg_ms",
	 "db_read_p99_ms", "db_read_interval_avg_ms", "db_read_cv_pct"},
	{IO_LOG_WRITE, "log_write_avg_ms", "log_write_max_ms", "log_write_max_sample_avg_ms",
	 "log_write_p99_ms", "log_write_interval_avg_ms", "log_write_cv_pct"},
};

const struct eval_class_criteria *eval_class_criteria(size_t *n)
{
	*n = DP_ARRAY_SIZE(latency_criteria);
	return latency_criteria;
}

struct eval_class_limits eval_class_limits(const struct profile_thresholds *t, enum io_class c)
{
	if (c == IO_DB_READ)
		return (struct eval_class_limits){t->db_read_avg_ns, t->db_read_max_ns,
						  t->db_read_p99_ns, t->db_read_cv_pct};
	return (struct eval_class_limits){t->log_write_avg_ns, t->log_write_max_ns,
					  t->log_write_p99_ns, t->log_write_cv_pct};
}

bool eval_passes(enum verdict_cmp cmp, double threshold, double measured)
{
	return cmp == VERDICT_LE ? measured <= threshold : measured >= threshold;
}

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
	v->passed = eval_passes(cmp, threshold, measured);
	return 0;
}

static double ns_to_ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

/*
 * One latency class of a scope. w is the class's window stats, NULL when
 * unknown. The highest window needs one window with I/O, the dispersion two
 * (a single window has no spread to judge).
 */
static int judge_class(struct judge *j, const struct scope_summary *s, enum scope_kind k,
		       const struct eval_class_criteria *lc, const struct profile_thresholds *t,
		       const struct eval_window_stats *w)
{
	const struct class_summary *cs = &s->classes[lc->cls];
	struct eval_class_limits l = eval_class_limits(t, lc->cls);
	bool resp;
	int ret = 0;

	if (!cs->ios)
		return 0;
	/* latency_basis = response: the open loop's response times of page
	 * reads where the scope has them (a log write is a commit's, shared:
	 * service time); they have no sample maxima, so the maximum is the
	 * slowest response. The windows stay service times. */
	resp = t->latency_basis == PROFILE_LATENCY_RESPONSE && lc->cls == IO_DB_READ &&
	       s->response_recorded && s->response[lc->cls].ios;
	if (resp)
		cs = &s->response[lc->cls];
	ret |= add(j, s, k, lc->avg, VERDICT_LE, ns_to_ms(l.avg_ns), cs->avg_ms);
	/* the maximum on its basis: the highest sample average (when the scope
	 * has one), or the single slowest I/O, each under its own name */
	if (t->max_basis == PROFILE_MAX_SAMPLE && !resp && isfinite(cs->max_sample_avg_ms))
		ret |= add(j, s, k, lc->max_sample, VERDICT_LE, ns_to_ms(l.max_ns),
			   cs->max_sample_avg_ms);
	else
		ret |= add(j, s, k, lc->max, VERDICT_LE, ns_to_ms(l.max_ns), cs->max_ms);
	if (l.p99_ns)
		ret |= add(j, s, k, lc->p99, VERDICT_LE, ns_to_ms(l.p99_ns), cs->p99_ms);
	if (t->interval_avg && w && w->n)
		ret |= add(j, s, k, lc->interval_avg, VERDICT_LE, ns_to_ms(l.avg_ns),
			   w->max_avg_ms);
	if (l.cv_pct > 0 && w && w->n >= 2)
		ret |= add(j, s, k, lc->cv, VERDICT_LE, l.cv_pct, w->cv * 100.0);
	return ret;
}

/* windows: the scope's IO_CLASS_COUNT window stats, or NULL; ndb: the
 * databases the scope holds (1 for a database), over which its page fault
 * stalls are judged per database, as Jetstress judges each instance. */
static int judge_scope(struct judge *j, const struct scope_summary *s, enum scope_kind k,
		       const struct profile_thresholds *t, const struct eval_window_stats *windows,
		       size_t ndb)
{
	uint64_t errors = 0;
	int ret = 0;

	for (size_t i = 0; i < DP_ARRAY_SIZE(latency_criteria); i++)
		ret |= judge_class(j, s, k, &latency_criteria[i], t,
				   windows ? &windows[latency_criteria[i].cls] : NULL);
	for (unsigned c = 0; c < IO_CLASS_COUNT; c++)
		errors += s->classes[c].errors;
	ret |= add(j, s, k, "io_errors", VERDICT_LE, (double)t->io_errors, (double)errors);
	ret |= add(j, s, k, "integrity_errors", VERDICT_LE, 0, (double)s->integrity_errors);
	if (t->page_fault_stalls_set && s->stalls_recorded)
		ret |= add(j, s, k, "page_fault_stalls", VERDICT_LE, t->page_fault_stalls,
			   s->page_fault_stalls_per_s / (ndb ? (double)ndb : 1.0));
	if (k == SCOPE_DATABASE && s->pass_judged)
		ret |= add(j, s, k, "pass_done_pct", VERDICT_GE, 100, s->pass_done_pct);
	return ret ? -ENOMEM : 0;
}

/*
 * Scopes of kind k (on volume `volume`, when not NULL) with a failed verdict
 * among those made so far. A scope's verdicts are contiguous, so a failure
 * of a name other than the last one counted is a new scope.
 */
static size_t failed_scopes(const struct judge *j, enum scope_kind k, const char *volume)
{
	const char *last = NULL;
	size_t n = 0;

	for (size_t i = 0; i < j->n; i++) {
		const struct verdict *v = &j->v[i];

		if (v->scope != k || v->passed || (volume && strcmp(v->volume, volume)))
			continue;
		if (last && !strcmp(last, v->name))
			continue;
		last = v->name;
		n++;
	}
	return n;
}

static size_t volume_databases(const struct eval_input *in, const char *volume)
{
	size_t n = 0;

	for (size_t i = 0; i < in->nr_databases; i++)
		n += !strcmp(in->databases[i].volume, volume);
	return n;
}

static const struct eval_window_stats *windows_at(const struct eval_window_stats *w, size_t i)
{
	return w ? w + i * IO_CLASS_COUNT : NULL;
}

static int judge_volumes(struct judge *j, const struct eval_input *in,
			 const struct profile_thresholds *t)
{
	const struct scope_summary *vol;
	int ret = 0;

	for (size_t i = 0; i < in->nr_volumes && !ret; i++) {
		vol = &in->volumes[i];
		ret = judge_scope(j, vol, SCOPE_VOLUME, t, windows_at(in->volume_windows, i),
				  volume_databases(in, vol->name));
		if (!ret && volume_databases(in, vol->name))
			ret = add(j, vol, SCOPE_VOLUME, "databases_failed", VERDICT_LE, 0,
				  (double)failed_scopes(j, SCOPE_DATABASE, vol->name));
	}
	return ret;
}

static int judge_run(struct judge *j, const struct eval_input *in,
		     const struct profile_thresholds *t)
{
	int ret;

	ret = judge_scope(j, in->run, SCOPE_RUN, t, in->run_windows, in->nr_databases);
	if (!ret && in->nr_volumes)
		ret = add(j, in->run, SCOPE_RUN, "volumes_failed", VERDICT_LE, 0,
			  (double)failed_scopes(j, SCOPE_VOLUME, NULL));
	if (!ret && in->target_iops)
		ret = add(j, in->run, SCOPE_RUN, "transactional_iops", VERDICT_GE,
			  (double)in->target_iops, results_scope_transactional_iops(in->run));
	return ret;
}

/*
 * The level the main test ran at settled: measured the steeper of its two
 * latency slopes (absolute), against the slope that ends a transient. A
 * level settles when both are at most that slope (autotune.c), and the
 * slope is the one it was decided on, so the verdict passes exactly when it
 * settled.
 */
static int judge_autotune(struct judge *j, const struct eval_input *in,
			  const struct profile_thresholds *t)
{
	const struct eval_autotune *a = in->autotune;

	if (!a || !t->autotune_settled || !in->run)
		return 0;
	return add(j, in->run, SCOPE_RUN, "autotune_settled", VERDICT_LE, a->slope_max_ms,
		   fabs(a->slope_ms));
}

int eval_judge(const struct eval_input *in, const struct profile_thresholds *t,
	       struct verdict **out, size_t *count)
{
	struct judge j = {0};
	int ret;

	ret = judge_autotune(&j, in, t);
	for (size_t i = 0; i < in->nr_databases && !ret; i++)
		ret = judge_scope(&j, &in->databases[i], SCOPE_DATABASE, t,
				  windows_at(in->database_windows, i), 1);
	if (!ret)
		ret = judge_volumes(&j, in, t);
	if (!ret && in->run)
		ret = judge_run(&j, in, t);
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
