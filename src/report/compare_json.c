/* SPDX-License-Identifier: MIT */
/*
 * compare_json.c - a run comparison as JSON for tools (analyze.h; the
 * format is documented in docs/compare.md and docs/schema). Like the text
 * renderer in compare.c it computes nothing: every figure, change, p value
 * and flag comes from struct analyze_comparison; null where a number is
 * undefined, so JSON never shows inf or nan.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "diskproof/analyze.h"
#include "diskproof/json.h"
#include "html.h"

/* The comparison's numbers: at most six significant digits (%.6g). */
static void json_num(struct json *j, const char *key, double v)
{
	json_sig(j, key, v, 6);
}

static void json_run(struct json *j, const char *key, const struct results *r)
{
	json_begin_object(j, key);
	json_i64(j, "id", r->id);
	json_str(j, "uuid", r->uuid);
	json_str(j, "label", r->label);
	json_str(j, "host", r->host);
	json_str(j, "started", r->started_at);
	json_str(j, "profile", r->profile_name);
	json_str(j, "engine", r->engine);
	json_str(j, "verdict", r->verdict);
	json_end(j);
}

/* One figure with its test; "f" (Brown-Forsythe's F) for the dispersion. */
static void json_figure(struct json *j, const char *key, const struct analyze_figure *f)
{
	json_begin_object(j, key);
	json_num(j, "a", f->a);
	json_num(j, "b", f->b);
	json_num(j, "change_pct", f->change_pct);
	json_bool(j, "significant", f->significant);
	json_bool(j, "material", f->material);
	json_bool(j, "listed", f->listed);
	json_num(j, "p_value", f->test.p_value);
	json_str(j, "method", analyze_method_name(f->test.method));
	if (f->test.method == ANALYZE_F)
		json_num(j, "f", f->test.f);
	json_u64(j, "n_a", f->test.n_a);
	json_u64(j, "n_b", f->test.n_b);
	json_end(j);
}

/* Every class, compared or not (stable keys, as in the report's JSON): one
 * neither run issued has zero figures and is untested (method "none"). */
static void json_scope(struct json *j, const struct analyze_scope *s)
{
	json_begin_object(j, NULL);
	json_str(j, "scope", results_scope_kind_name(s->scope));
	json_str(j, "name", s->name);
	if (s->scope == SCOPE_DATABASE)
		json_str(j, "volume", s->volume);
	json_begin_object(j, "classes");
	for (int c = 0; c < IO_CLASS_COUNT; c++) {
		const struct analyze_class *k = &s->classes[c];

		if (c == IO_DB_FLUSH && !k->present)
			continue; /* only where a run flushes its database files */
		json_begin_object(j, stats_io_class_name(c));
		json_bool(j, "present", k->present);
		for (int m = 0; m < ANALYZE_METRIC_COUNT; m++)
			json_figure(j, analyze_metric_name(m), &k->fig[m]);
		json_figure(j, "sd_ms", &k->sd);
		json_begin_object(j, "cv");
		json_num(j, "a", k->cv_a);
		json_num(j, "b", k->cv_b);
		json_num(j, "change_pct", k->cv_change_pct);
		json_end(j);
		json_end(j);
	}
	json_end(j);
	json_figure(j, "transactional_iops", &s->trans_iops);
	json_end(j);
}

static void json_verdict_side(struct json *j, const char *key, bool passed, double measured,
			      double threshold)
{
	json_begin_object(j, key);
	json_bool(j, "passed", passed);
	json_num(j, "measured", measured);
	json_num(j, "threshold", threshold);
	json_end(j);
}

static void json_change(struct json *j, const char *key, const struct analyze_pair *p)
{
	json_begin_object(j, key);
	json_num(j, "a", p->a);
	json_num(j, "b", p->b);
	json_num(j, "change_pct", p->change_pct);
	json_end(j);
}

/* null when neither run has host counters */
static void json_host(struct json *j, const struct analyze_comparison *c)
{
	const struct analyze_host *h = &c->host;

	if (!h->in_a && !h->in_b) {
		json_null(j, "host");
		return;
	}
	json_begin_object(j, "host");
	json_bool(j, "in_a", h->in_a);
	json_bool(j, "in_b", h->in_b);
	for (int m = 0; m < ANALYZE_HOST_METRIC_COUNT; m++)
		json_change(j, analyze_host_metric_name(m), &h->fig[m]);
	json_begin_array(j, "devices");
	for (size_t i = 0; i < h->nr_devices; i++) {
		const struct analyze_host_device *d = &h->devices[i];

		json_begin_object(j, NULL);
		json_str(j, "name", d->name);
		json_bool(j, "in_a", d->in_a);
		json_bool(j, "in_b", d->in_b);
		for (int m = 0; m < ANALYZE_DEV_METRIC_COUNT; m++)
			json_change(j, analyze_dev_metric_name(m), &d->fig[m]);
		json_end(j);
	}
	json_end(j);
	json_end(j);
}

static void json_autotune(struct json *j, const struct analyze_comparison *c);

/* The judged figures short of intervals (analyze_judged_short), every scope. */
static void json_short(struct json *j, const struct analyze_comparison *c)
{
	json_begin_array(j, "short_of_intervals");
	for (size_t i = 0; i < c->nr_scopes; i++) {
		const struct analyze_scope *s = &c->scopes[i];

		for (int k = 0; k < ANALYZE_JUDGED_COUNT; k++) {
			struct analyze_short sh;

			if (!analyze_judged_short(c, s, k, &sh))
				continue;
			json_begin_object(j, NULL);
			json_str(j, "scope", results_scope_kind_name(s->scope));
			json_str(j, "name", s->name);
			json_str(j, "figure", analyze_judged_def(k)->key);
			json_bool(j, "tested", sh.tested);
			json_u64(j, "intervals_a", sh.n_a);
			json_u64(j, "intervals_b", sh.n_b);
			json_u64(j, "needed", sh.needed);
			json_end(j);
		}
	}
	json_end(j);
}

/* The keys of one comparison (the whole document for two runs). */
static void json_pair_body(struct json *j, const struct analyze_comparison *c)
{
	json_run(j, "a", c->a);
	json_run(j, "b", c->b);
	json_str(j, "test", c->test);
	json_num(j, "alpha", c->alpha);
	json_str(j, "dispersion_test", ANALYZE_DISPERSION_TEST_NAME);
	json_str(j, "correction", "holm");
	json_num(j, "min_change_pct", c->min_change_pct);
	json_u64(j, "listed", c->nr_listed);
	json_num(j, "family", (double)c->family);
	json_begin_array(j, "scopes");
	for (size_t i = 0; i < c->nr_scopes; i++)
		json_scope(j, &c->scopes[i]);
	json_end(j);
	json_begin_array(j, "unmatched_scopes");
	for (size_t i = 0; i < c->nr_unmatched; i++) {
		json_begin_object(j, NULL);
		json_str(j, "scope", results_scope_kind_name(c->unmatched[i].scope));
		json_str(j, "name", c->unmatched[i].name);
		json_str(j, "only_in", c->unmatched[i].in_a ? "a" : "b");
		json_end(j);
	}
	json_end(j);
	json_short(j, c);
	json_begin_array(j, "verdict_changes");
	for (size_t i = 0; i < c->nr_verdict_changes; i++) {
		const struct analyze_verdict_change *vc = &c->verdict_changes[i];

		json_begin_object(j, NULL);
		json_str(j, "scope", results_scope_kind_name(vc->scope));
		json_str(j, "name", vc->name);
		if (vc->scope == SCOPE_DATABASE)
			json_str(j, "volume", vc->volume);
		json_str(j, "criterion", vc->criterion);
		if (strcmp(vc->criterion_b, vc->criterion))
			json_str(j, "criterion_b", vc->criterion_b); /* the other basis */
		json_str(j, "cmp", vc->cmp == VERDICT_GE ? ">=" : "<=");
		json_verdict_side(j, "a", vc->passed_a, vc->measured_a, vc->threshold_a);
		json_verdict_side(j, "b", vc->passed_b, vc->measured_b, vc->threshold_b);
		json_end(j);
	}
	json_end(j);
	json_begin_array(j, "env_differences");
	for (size_t i = 0; i < c->nr_env_diffs; i++) {
		json_begin_object(j, NULL);
		json_str(j, "key", c->env_diffs[i].key);
		json_str(j, "a", c->env_diffs[i].a);
		json_str(j, "b", c->env_diffs[i].b);
		json_end(j);
	}
	json_end(j);
	report_json_param_diffs(j, c->param_diffs, c->nr_param_diffs);
	json_host(j, c);
	json_autotune(j, c);
}

static void json_tune_steps(struct json *j, const char *key, const struct results *r)
{
	if (!results_autotune_ran(r)) {
		json_null(j, key);
		return;
	}
	json_begin_object(j, key);
	if (r->autotune.has_chosen)
		json_u64(j, "chosen", r->autotune.chosen);
	else
		json_null(j, "chosen");
	json_str(j, "stopped_because", r->autotune.stopped_because);
	json_begin_array(j, "steps");
	for (size_t i = 0; i < r->autotune.nr_steps; i++) {
		const struct results_autotune_step *st = &r->autotune.steps[i];

		json_begin_object(j, NULL);
		json_u64(j, "step", st->step);
		json_u64(j, "streams", st->streams);
		json_num(j, "iops", st->iops);
		json_num(j, "db_read_avg_ms", st->db_read_avg_ms);
		json_num(j, "log_write_avg_ms", st->log_write_avg_ms);
		json_bool(j, "passed", st->passed);
		json_str(j, "reason", st->reason);
		json_end(j);
	}
	json_end(j);
	json_end(j);
}

/* null when neither run was auto-tuned; else each side's steps (null for a
 * run that was not) */
static void json_autotune(struct json *j, const struct analyze_comparison *c)
{
	if (!results_autotune_ran(c->a) && !results_autotune_ran(c->b)) {
		json_null(j, "autotune");
		return;
	}
	json_begin_object(j, "autotune");
	json_tune_steps(j, "a", c->a);
	json_tune_steps(j, "b", c->b);
	json_end(j);
}

/* The sides: each one's runs, how many (the replicates) and its series. */
static void json_sides(struct json *j, const struct report_compare_view *v)
{
	if (!v->sides)
		return;
	json_begin_array(j, "sides");
	for (size_t i = 0; i <= v->nr_pairs; i++) {
		const struct report_compare_side *s = &v->sides[i];

		json_begin_object(j, NULL);
		json_str(j, "side", i ? "b" : "a");
		json_u64(j, "replicates", s->n);
		json_begin_array(j, "runs");
		for (size_t k = 0; k < s->n; k++)
			json_i64(j, NULL, s->ids[k]);
		json_end(j);
		if (s->series)
			json_i64(j, "series", s->series);
		else
			json_null(j, "series");
		json_bool(j, "series_from_label", s->from_label);
		json_end(j);
	}
	json_end(j);
}

/* The test over the runs of pair i: per judged figure, established or not. */
static void json_replicates(struct json *j, const struct report_compare_view *v, size_t i)
{
	const struct analyze_replicates *r;

	if (!v->reps)
		return;
	r = &v->reps[i];
	json_begin_object(j, "replicate_test");
	json_str(j, "test", ANALYZE_REPLICATE_TEST_NAME);
	json_num(j, "alpha", r->alpha);
	json_num(j, "margin_pct", r->margin_pct);
	json_str(j, "correction", "holm");
	json_u64(j, "family", r->family);
	json_u64(j, "replicates_a", r->n_a);
	json_u64(j, "replicates_b", r->n_b);
	json_begin_array(j, "changes");
	for (int k = 0; k < ANALYZE_JUDGED_COUNT; k++) {
		const struct analyze_rep_figure *f = &r->fig[k];

		json_begin_object(j, NULL);
		json_str(j, "figure", analyze_judged_def(k)->key);
		json_num(j, "a", f->a);
		json_num(j, "b", f->b);
		json_num(j, "change_pct", f->change_pct);
		json_bool(j, "worse", f->worse);
		json_bool(j, "established", f->established);
		json_str(j, "state", analyze_rep_state_words(f->state));
		json_num(j, "t", f->t);
		json_num(j, "df", f->df);
		json_num(j, "p_value", f->p_value);
		json_num(j, "spread_pct", f->spread_pct);
		json_num(j, "worse_at_least_pct", f->least_pct);
		if (f->runs_needed)
			json_u64(j, "runs_needed", f->runs_needed);
		else
			json_null(j, "runs_needed");
		json_end(j);
	}
	json_end(j);
	json_end(j);
}

static const char *gate_outcome_name(enum analyze_gate_outcome o)
{
	return o == ANALYZE_GATE_FAIL		? "fail"
	       : o == ANALYZE_GATE_INCONCLUSIVE ? "inconclusive"
						: "pass";
}

/* null without --fail-on-regression */
static void json_gate(struct json *j, const struct report_compare_view *v)
{
	if (!v->gate) {
		json_null(j, "regression_gate");
		return;
	}
	json_begin_object(j, "regression_gate");
	json_num(j, "pct", v->gate_pct);
	json_bool(j, "passed", !v->nr_regressions);
	if (v->reps) {
		json_str(j, "outcome", gate_outcome_name(v->outcome));
		if (v->runs_needed)
			json_u64(j, "runs_needed", v->runs_needed);
		else
			json_null(j, "runs_needed");
	}
	json_begin_array(j, "regressions");
	for (size_t i = 0; i < v->nr_regressions; i++) {
		const struct analyze_regression *g = &v->regressions[i];
		const struct analyze_comparison *c = &v->pairs[g->pair];
		const struct analyze_scope *s = &c->scopes[g->scope];
		const struct analyze_figure *f = analyze_judged_figure(s, g->fig);

		json_begin_object(j, NULL);
		json_i64(j, "run", c->b->id);
		json_i64(j, "baseline", c->a->id);
		json_str(j, "scope", results_scope_kind_name(s->scope));
		json_str(j, "name", s->name);
		json_str(j, "figure", analyze_judged_def(g->fig)->key);
		json_num(j, "a", f->a);
		json_num(j, "b", f->b);
		json_num(j, "change_pct", g->change_pct);
		json_num(j, "p_value",
			 v->reps ? v->reps[g->pair].fig[g->fig].p_value : f->test.p_value);
		json_bool(j, "established", v->reps != NULL);
		json_end(j);
	}
	json_end(j);
	json_end(j);
}

/* The judged figures of the whole run across the runs: the baseline's, then
 * each later run's with its change against the baseline. */
static void json_trend(struct json *j, const struct report_compare_view *v)
{
	json_begin_array(j, "trend");
	for (int k = 0; k < ANALYZE_JUDGED_COUNT; k++) {
		json_begin_object(j, NULL);
		json_str(j, "figure", analyze_judged_def(k)->key);
		json_begin_array(j, "runs");
		json_begin_object(j, NULL);
		json_i64(j, "id", v->pairs[0].a->id);
		json_num(j, "value", analyze_judged_figure(&v->pairs[0].scopes[0], k)->a);
		json_end(j);
		for (size_t i = 0; i < v->nr_pairs; i++) {
			const struct analyze_figure *f =
				analyze_judged_figure(&v->pairs[i].scopes[0], k);

			json_begin_object(j, NULL);
			json_i64(j, "id", v->pairs[i].b->id);
			json_num(j, "value", f->b);
			json_num(j, "change_pct", f->change_pct);
			json_bool(j, "significant", f->significant);
			json_num(j, "p_value", f->test.p_value);
			json_end(j);
		}
		json_end(j);
		json_end(j);
	}
	json_end(j);
}

void report_compare_json(struct strbuf *sb, const struct report_compare_view *v,
			 const struct report_options *opt)
{
	struct json j = JSON_INIT(sb);

	(void)opt;
	json_begin_object(&j, NULL);
	json_doc_versions(&j);
	json_str(&j, "mixed_engines", v->mixed);
	json_sides(&j, v);
	if (v->nr_pairs == 1) {
		json_pair_body(&j, &v->pairs[0]);
		json_replicates(&j, v, 0);
	} else {
		json_run(&j, "baseline", v->pairs[0].a);
		json_str(&j, "against", "baseline");
		json_begin_array(&j, "runs");
		json_run(&j, NULL, v->pairs[0].a);
		for (size_t i = 0; i < v->nr_pairs; i++)
			json_run(&j, NULL, v->pairs[i].b);
		json_end(&j);
		json_trend(&j, v);
		json_begin_array(&j, "comparisons");
		for (size_t i = 0; i < v->nr_pairs; i++) {
			json_begin_object(&j, NULL);
			json_pair_body(&j, &v->pairs[i]);
			json_replicates(&j, v, i);
			json_end(&j);
		}
		json_end(&j);
	}
	json_gate(&j, v);
	json_end(&j);
	strbuf_addch(sb, '\n');
}
