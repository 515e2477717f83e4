/*
 * compare.c - renderers of a run comparison (analyze.h): text for the
 * terminal and JSON for tools, both documented in docs/compare.md. They
 * compute nothing: every figure, change, p value, significance flag,
 * dispersion and host counter comes from struct analyze_comparison; they choose order,
 * wording and layout only ("n/a" in text and null in JSON where a number is
 * undefined, so neither ever shows inf or nan).
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "diskproof/analyze.h"
#include "diskproof/json.h"
#include "html.h"

/* ---- text ---- */

const char *const report_metric_words[] = {
	[ANALYZE_IOPS] = "IOPS",     [ANALYZE_AVG_MS] = "avg ms", [ANALYZE_P50_MS] = "p50 ms",
	[ANALYZE_P99_MS] = "p99 ms", [ANALYZE_MAX_MS] = "max ms",
};

static void text_run_line(struct strbuf *sb, const char *side, const struct results *r)
{
	strbuf_addf(sb, "  %s: run %" PRId64, side, r->id);
	if (r->label) {
		strbuf_addstr(sb, " [");
		report_text_escape(sb, r->label);
		strbuf_addch(sb, ']');
	}
	strbuf_addstr(sb, ", host ");
	report_text_escape(sb, r->host);
	strbuf_addf(sb, ", started %s, profile ", report_str_or(r->started_at, "-"));
	report_text_escape(sb, r->profile_name);
	strbuf_addf(sb, ", engine %s\n", report_str_or(r->engine, "-"));
}

/* a number in a column of width w, "n/a" when undefined */
static void text_col(struct strbuf *sb, int w, double v, int decimals)
{
	if (isfinite(v))
		strbuf_addf(sb, " %*.*f", w, decimals, v);
	else
		strbuf_addf(sb, " %*s", w, "n/a");
}

static void text_p(struct strbuf *sb, const struct analyze_mw *t)
{
	if (t->method == ANALYZE_NONE || !isfinite(t->p_value))
		strbuf_addf(sb, " %9s", "n/a");
	else if (t->p_value < 0.0001)
		strbuf_addf(sb, " %9s", "<0.0001");
	else
		strbuf_addf(sb, " %9.4f", t->p_value);
	if (t->method == ANALYZE_EXACT)
		strbuf_addstr(sb, " exact");
	else if (t->method == ANALYZE_NORMAL && t->n_a + t->n_b <= ANALYZE_EXACT_MAX)
		strbuf_addstr(sb, " approx."); /* small sample with ties */
}

/* One table per scope: the classes either run issued there (k->present). */
static void text_scope(struct strbuf *sb, const struct analyze_scope *s, bool color)
{
	bool any = false;

	if (s->scope == SCOPE_RUN)
		strbuf_addstr(sb, "\nrun (1 s intervals)\n");
	else if (s->scope == SCOPE_VOLUME)
		strbuf_addf(sb, "\nvolume %s (1 s intervals)\n", s->name);
	else if (s->volume[0])
		strbuf_addf(sb, "\ndatabase %s on %s (15 s intervals)\n", s->name, s->volume);
	else
		strbuf_addf(sb, "\ndatabase %s (15 s intervals)\n", s->name);
	strbuf_addf(sb, "  %-11s  %-7s %12s %12s %9s %3s %9s\n", "class", "metric", "A", "B",
		    "change %", "sig", "p");
	for (int c = 0; c < IO_CLASS_COUNT; c++) {
		const struct analyze_class *k = &s->classes[c];

		if (!k->present) /* neither run issued it here */
			continue;
		any = true;
		for (int m = 0; m < ANALYZE_METRIC_COUNT; m++) {
			const struct analyze_figure *f = &k->fig[m];
			int dec = m == ANALYZE_IOPS ? 1 : 3;

			strbuf_addf(sb, "  %-11s  %-7s", m ? "" : io_class_name(c),
				    report_metric_words[m]);
			text_col(sb, 12, f->a, dec);
			text_col(sb, 12, f->b, dec);
			if (isfinite(f->change_pct))
				strbuf_addf(sb, " %+8.1f%%", f->change_pct);
			else
				strbuf_addf(sb, " %9s", "n/a");
			if (f->significant)
				strbuf_addf(sb, " %s*%s ", color ? REPORT_ANSI_BOLD : "",
					    color ? REPORT_ANSI_RESET : "");
			else
				strbuf_addstr(sb, "    ");
			text_p(sb, &f->test);
			strbuf_addch(sb, '\n');
		}
		strbuf_addf(sb, "  %-11s  %-7s", "", "sd ms");
		text_col(sb, 12, k->sd_ms_a, 4);
		text_col(sb, 12, k->sd_ms_b, 4);
		strbuf_addf(sb, "  (of the per-interval averages)\n  %-11s  %-7s", "", "cv");
		text_col(sb, 12, k->cv_a, 4);
		text_col(sb, 12, k->cv_b, 4);
		strbuf_addch(sb, '\n');
	}
	if (!any)
		strbuf_addstr(sb, "  (no I/O in either run)\n");
}

static void text_verdict_changes(struct strbuf *sb, const struct analyze_comparison *c)
{
	strbuf_addstr(sb, "\nverdict changes:\n");
	if (!c->nr_verdict_changes)
		strbuf_addstr(sb, "  none\n");
	for (size_t i = 0; i < c->nr_verdict_changes; i++) {
		const struct analyze_verdict_change *vc = &c->verdict_changes[i];
		struct verdict v = {.scope = vc->scope, .cmp = vc->cmp};

		memcpy(v.name, vc->name, sizeof(v.name));
		memcpy(v.volume, vc->volume, sizeof(v.volume));
		memcpy(v.criterion, vc->criterion, sizeof(v.criterion));
		strbuf_addf(sb, "  %s \u2192 %s  ", vc->passed_a ? "PASS" : "FAIL",
			    vc->passed_b ? "PASS" : "FAIL");
		memcpy(v.criterion, vc->criterion_b, sizeof(v.criterion));
		v.threshold = vc->threshold_b;
		v.measured = vc->measured_b;
		v.passed = vc->passed_b;
		report_verdict_line(sb, &v);
		strbuf_addstr(sb, " (A: ");
		memcpy(v.criterion, vc->criterion, sizeof(v.criterion));
		v.threshold = vc->threshold_a;
		v.measured = vc->measured_a;
		v.passed = vc->passed_a;
		report_verdict_line(sb, &v);
		strbuf_addstr(sb, ")\n");
	}
}

static void text_env(struct strbuf *sb, const struct analyze_comparison *c)
{
	strbuf_addstr(sb, "\nenvironment differences:\n");
	if (!c->nr_env_diffs)
		strbuf_addstr(sb, "  none\n");
	for (size_t i = 0; i < c->nr_env_diffs; i++) {
		const struct analyze_env_diff *e = &c->env_diffs[i];

		strbuf_addf(sb, "  %s: %s \u2192 %s\n", e->key, e->a ? e->a : "(absent)",
			    e->b ? e->b : "(absent)");
	}
}

const struct report_host_word report_host_words[] = {
	[ANALYZE_HOST_CPU_USER] = {"cpu user %", 1, 1},
	[ANALYZE_HOST_CPU_SYSTEM] = {"cpu system %", 1, 1},
	[ANALYZE_HOST_CPU_IOWAIT] = {"cpu iowait %", 1, 1},
	[ANALYZE_HOST_MEM_MIN] = {"memory available min MiB", 1, 1.0 / (1024 * 1024)},
	[ANALYZE_HOST_MEM_AVG] = {"memory available mean MiB", 1, 1.0 / (1024 * 1024)},
};

const struct report_host_word report_dev_words[] = {
	[ANALYZE_DEV_READS_PER_S] = {"reads/s", 1, 1},
	[ANALYZE_DEV_WRITES_PER_S] = {"writes/s", 1, 1},
	[ANALYZE_DEV_READ_MBPS] = {"read MB/s", 2, 1},
	[ANALYZE_DEV_WRITE_MBPS] = {"write MB/s", 2, 1},
	[ANALYZE_DEV_READ_WAIT_MS] = {"read wait ms", 3, 1},
	[ANALYZE_DEV_WRITE_WAIT_MS] = {"write wait ms", 3, 1},
	[ANALYZE_DEV_AVG_WAIT_MS] = {"avg wait ms", 3, 1},
	[ANALYZE_DEV_UTIL_PCT] = {"util %", 1, 1},
	[ANALYZE_DEV_QUEUE] = {"queue", 2, 1},
};

static void text_pair(struct strbuf *sb, const char *indent, const struct report_host_word *w,
		      const struct analyze_pair *p)
{
	strbuf_addf(sb, "%s%-*s", indent, 28 - (int)strlen(indent), w->words);
	text_col(sb, 12, p->a * w->scale, w->decimals);
	text_col(sb, 12, p->b * w->scale, w->decimals);
	if (isfinite(p->change_pct))
		strbuf_addf(sb, " %+8.1f%%\n", p->change_pct);
	else
		strbuf_addf(sb, " %9s\n", "n/a");
}

/* The host counters of both runs side by side, when either has them. */
static void text_host(struct strbuf *sb, const struct analyze_comparison *c)
{
	const struct analyze_host *h = &c->host;

	if (!h->in_a && !h->in_b)
		return;
	strbuf_addstr(sb, "\nhost performance (measured intervals; side by side, not tested):\n");
	strbuf_addf(sb, "  %-26s %12s %12s %9s\n", "figure", "A", "B", "change %");
	for (int m = 0; m < ANALYZE_HOST_METRIC_COUNT; m++)
		text_pair(sb, "  ", &report_host_words[m], &h->fig[m]);
	for (size_t i = 0; i < h->nr_devices; i++) {
		const struct analyze_host_device *d = &h->devices[i];

		strbuf_addf(sb, "  device %s%s\n", d->name,
			    d->in_a && d->in_b ? ""
			    : d->in_a	       ? " (only in A)"
					       : " (only in B)");
		for (int m = 0; m < ANALYZE_DEV_METRIC_COUNT; m++)
			text_pair(sb, "    ", &report_dev_words[m], &d->fig[m]);
	}
}

void report_compare_text(struct strbuf *sb, const struct analyze_comparison *c,
			 const struct report_options *opt)
{
	bool color = opt && opt->color;

	strbuf_addf(sb, "diskproof compare: run %" PRId64 " (A) against run %" PRId64 " (B)\n",
		    c->a->id, c->b->id);
	text_run_line(sb, "A", c->a);
	text_run_line(sb, "B", c->b);
	strbuf_addf(
		sb,
		"test: %s, alpha %g, two-sided, Holm-corrected per scope (%zu figures); * marks a "
		"significant change\n"
		"(successive intervals are correlated: p values are optimistic, see "
		"docs/compare.md)\n",
		c->test, c->alpha, c->family);
	for (size_t i = 0; i < c->nr_scopes; i++)
		text_scope(sb, &c->scopes[i], color);
	for (size_t i = 0; i < c->nr_unmatched; i++)
		strbuf_addf(sb, "%s%s %s only in %s: not compared\n", i ? "" : "\n",
			    scope_kind_name(c->unmatched[i].scope), c->unmatched[i].name,
			    c->unmatched[i].in_a ? "A" : "B");
	text_host(sb, c);
	text_verdict_changes(sb, c);
	text_env(sb, c);
}

/* ---- JSON ---- */

/* The comparison's numbers: at most six significant digits (%.6g). */
static void json_num(struct json *j, const char *key, double v)
{
	json_sig(j, key, v, 6);
}

static void json_run(struct json *j, const char *key, const struct results *r)
{
	json_begin_object(j, key);
	json_i64(j, "id", r->id);
	json_str(j, "label", r->label);
	json_str(j, "host", r->host);
	json_str(j, "started", r->started_at);
	json_str(j, "profile", r->profile_name);
	json_str(j, "engine", r->engine);
	json_str(j, "verdict", r->verdict);
	json_end(j);
}

static void json_pair(struct json *j, const char *key, double a, double b)
{
	json_begin_object(j, key);
	json_num(j, "a", a);
	json_num(j, "b", b);
	json_end(j);
}

/* Every class, compared or not (stable keys, as in the report's JSON): one
 * neither run issued has zero figures and is untested (method "none"). */
static void json_scope(struct json *j, const struct analyze_scope *s)
{
	json_begin_object(j, NULL);
	json_str(j, "scope", scope_kind_name(s->scope));
	json_str(j, "name", s->name);
	if (s->scope == SCOPE_DATABASE)
		json_str(j, "volume", s->volume);
	json_begin_object(j, "classes");
	for (int c = 0; c < IO_CLASS_COUNT; c++) {
		const struct analyze_class *k = &s->classes[c];

		json_begin_object(j, io_class_name(c));
		json_bool(j, "present", k->present);
		for (int m = 0; m < ANALYZE_METRIC_COUNT; m++) {
			const struct analyze_figure *f = &k->fig[m];

			json_begin_object(j, analyze_metric_name(m));
			json_num(j, "a", f->a);
			json_num(j, "b", f->b);
			json_num(j, "change_pct", f->change_pct);
			json_bool(j, "significant", f->significant);
			json_num(j, "p_value", f->test.p_value);
			json_str(j, "method", analyze_method_name(f->test.method));
			json_u64(j, "n_a", f->test.n_a);
			json_u64(j, "n_b", f->test.n_b);
			json_end(j);
		}
		json_pair(j, "sd_ms", k->sd_ms_a, k->sd_ms_b);
		json_pair(j, "cv", k->cv_a, k->cv_b);
		json_end(j);
	}
	json_end(j);
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

void report_compare_json(struct strbuf *sb, const struct analyze_comparison *c,
			 const struct report_options *opt)
{
	struct json j = JSON_INIT(sb);

	json_begin_object(&j, NULL);
	json_run(&j, "a", c->a);
	json_run(&j, "b", c->b);
	json_str(&j, "test", c->test);
	json_num(&j, "alpha", c->alpha);
	json_str(&j, "correction", "holm");
	json_num(&j, "family", (double)c->family);
	json_begin_array(&j, "scopes");
	for (size_t i = 0; i < c->nr_scopes; i++)
		json_scope(&j, &c->scopes[i]);
	json_end(&j);
	json_begin_array(&j, "unmatched_scopes");
	for (size_t i = 0; i < c->nr_unmatched; i++) {
		json_begin_object(&j, NULL);
		json_str(&j, "scope", scope_kind_name(c->unmatched[i].scope));
		json_str(&j, "name", c->unmatched[i].name);
		json_str(&j, "only_in", c->unmatched[i].in_a ? "a" : "b");
		json_end(&j);
	}
	json_end(&j);
	json_begin_array(&j, "verdict_changes");
	for (size_t i = 0; i < c->nr_verdict_changes; i++) {
		const struct analyze_verdict_change *vc = &c->verdict_changes[i];

		json_begin_object(&j, NULL);
		json_str(&j, "scope", scope_kind_name(vc->scope));
		json_str(&j, "name", vc->name);
		if (vc->scope == SCOPE_DATABASE)
			json_str(&j, "volume", vc->volume);
		json_str(&j, "criterion", vc->criterion);
		if (strcmp(vc->criterion_b, vc->criterion))
			json_str(&j, "criterion_b", vc->criterion_b); /* the other basis */
		json_str(&j, "cmp", vc->cmp == VERDICT_GE ? ">=" : "<=");
		json_verdict_side(&j, "a", vc->passed_a, vc->measured_a, vc->threshold_a);
		json_verdict_side(&j, "b", vc->passed_b, vc->measured_b, vc->threshold_b);
		json_end(&j);
	}
	json_end(&j);
	json_begin_array(&j, "env_differences");
	for (size_t i = 0; i < c->nr_env_diffs; i++) {
		json_begin_object(&j, NULL);
		json_str(&j, "key", c->env_diffs[i].key);
		json_str(&j, "a", c->env_diffs[i].a);
		json_str(&j, "b", c->env_diffs[i].b);
		json_end(&j);
	}
	json_end(&j);
	json_host(&j, c);
	json_end(&j);
	strbuf_addch(sb, '\n');
}
