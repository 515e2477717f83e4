/* SPDX-License-Identifier: MIT */
/*
 * fleet_json.c - the fleet report as one JSON document (report.h, keys in
 * docs/schema/fleet.schema.json): the selectors, the start skew, a row per
 * run, the fleet totals in the shape of a run's "summary" (the same writer,
 * report_json_classes) and the counts.
 */
#include <math.h>
#include <string.h>

#include "diskproof/json.h"
#include "report_internal.h"

static void json_num(struct json *j, const char *key, double v)
{
	json_fixed(j, key, v, 3);
}

static void json_host_row(struct json *j, const struct report_fleet_host *h)
{
	const struct results *r = h->r;

	json_begin_object(j, NULL);
	json_i64(j, "run_id", r->id);
	json_str(j, "uuid", r->uuid);
	json_str(j, "host", r->host);
	json_str(j, "label", r->label);
	json_str(j, "status", r->status);
	json_str(j, "verdict", r->verdict);
	/* issue 30: a simulated run is marked on its own row too */
	json_str(j, "engine", r->engine);
	json_bool(j, "simulated", h->simulated);
	json_str(j, "started_at", r->started_at);
	json_str(j, "start_at", r->start_at);
	json_str(j, "load_started_at", r->load_started_at);
	json_num(j, "start_offset_ms", h->start_offset_ms);
	json_num(j, "late_ms", h->late_ms);
	json_bool(j, "late", h->late);
	json_num(j, "duration_s", r->duration_s);
	json_num(j, "trans_iops", h->trans_iops);
	json_num(j, "db_read_avg_ms", h->db_read_avg_ms);
	json_num(j, "db_read_p99_ms", h->db_read_p99_ms);
	json_num(j, "db_read_max_ms", h->db_read_max_ms);
	json_num(j, "log_write_avg_ms", h->log_write_avg_ms);
	/* open loop only: no key for a closed-loop run (response is service) */
	if (isfinite(h->db_read_resp_avg_ms))
		json_num(j, "db_read_response_avg_ms", h->db_read_resp_avg_ms);
	json_u64(j, "ios", h->ios);
	json_begin_object_flat(j, "clock");
	json_str(j, "synchronised", h->clock_synchronised);
	json_num(j, "max_error_ms", h->clock_max_error_ms);
	json_str(j, "warning", h->clock_warning);
	json_end(j);
	json_bool(j, "differs", h->differs);
	json_begin_array(j, "differs_on");
	for (int g = 0; g < REPORT_FLEET_FIG_COUNT; g++) {
		const struct report_fleet_diff *d = &h->diff[g];

		if (!d->differs)
			continue;
		json_begin_object_flat(j, NULL);
		json_str(j, "figure", report_fleet_fig_key(g));
		json_str(j, "direction", d->change_pct > 0 ? "higher" : "lower");
		json_num(j, "value", d->value);
		json_num(j, "median", d->median);
		json_num(j, "change_pct", d->change_pct);
		json_sig(j, "p_value", d->p_value, 3);
		json_end(j);
	}
	json_end(j);
	json_begin_object(j, "tests");
	for (int g = 0; g < REPORT_FLEET_FIG_COUNT; g++) {
		const struct report_fleet_diff *d = &h->diff[g];

		json_begin_object_flat(j, report_fleet_fig_key(g));
		json_num(j, "median", d->median);
		json_num(j, "change_pct", d->change_pct);
		json_sig(j, "p_value", d->p_value, 3);
		json_bool(j, "significant", d->significant);
		json_end(j);
	}
	json_end(j);
	json_end(j);
}

/* One failed volume of a failing run: its device where recorded, its
 * failed databases, why (why.c). */
static void json_failed_volume(struct json *j, const struct results *r, const char *vol)
{
	struct strbuf w = STRBUF_INIT;

	json_begin_object(j, NULL);
	json_str(j, "name", vol);
	json_str(j, "device", report_volume_device(r, vol));
	json_begin_array_flat(j, "databases");
	for (size_t d = 0; d < r->nr_databases; d++)
		if (!strcmp(r->databases[d].volume, vol) &&
		    !strcmp(report_scope_verdict(r, SCOPE_DATABASE, r->databases[d].name, vol),
			    "FAIL"))
			json_str(j, NULL, r->databases[d].name);
	json_end(j);
	if (report_why(&w, r, SCOPE_VOLUME, vol, NULL))
		json_str(j, "why", w.buf);
	else
		json_null(j, "why");
	json_end(j);
	strbuf_release(&w);
}

/* Every run that fails the fleet (report_fleet_host_failed), with its
 * failed volumes and databases and why. */
static void json_failed(struct json *j, const struct report_fleet *f)
{
	struct strbuf w = STRBUF_INIT;

	json_begin_array(j, "failed");
	for (size_t i = 0; i < f->nr_hosts; i++) {
		const struct results *r = f->hosts[i].r;

		if (!report_fleet_host_failed(&f->hosts[i]))
			continue;
		json_begin_object(j, NULL);
		json_i64(j, "run_id", r->id);
		json_str(j, "host", r->host);
		json_str(j, "status", r->status);
		json_str(j, "verdict", r->verdict);
		json_begin_array(j, "volumes");
		for (size_t v = 0; v < r->nr_volumes; v++)
			if (!strcmp(report_scope_verdict(r, SCOPE_VOLUME, r->volumes[v].name, NULL),
				    "FAIL"))
				json_failed_volume(j, r, r->volumes[v].name);
		json_end(j);
		strbuf_reset(&w);
		if (report_why_run(&w, r))
			json_str(j, "why", w.buf);
		else
			json_null(j, "why");
		json_end(j);
	}
	json_end(j);
	strbuf_release(&w);
}

void report_fleet_json(struct strbuf *sb, const struct report_fleet *f,
		       const struct report_options *opt)
{
	struct json j = JSON_INIT(sb);

	(void)opt;
	json_begin_object(&j, NULL);
	json_doc_versions(&j);
	/* the verdict first: what a reader signs on */
	json_str(&j, "verdict", f->passed ? "PASS" : "FAIL");
	json_failed(&j, f);
	json_str(&j, "finding", report_fleet_finding(f));
	json_str(&j, "mixed_engines", f->mixed);
	json_begin_array_flat(&j, "selector");
	for (size_t i = 0; i < f->nr_selectors; i++)
		json_str(&j, NULL, f->selectors[i]);
	json_end(&j);
	json_begin_array_flat(&j, "expected_hosts");
	for (size_t i = 0; i < f->nr_expected; i++)
		json_str(&j, NULL, f->expected[i]);
	json_end(&j);
	json_begin_array_flat(&j, "missing");
	for (size_t i = 0; i < f->nr_missing; i++)
		json_str(&j, NULL, f->missing[i]);
	json_end(&j);
	json_begin_array_flat(&j, "late");
	for (size_t i = 0; i < f->nr_hosts; i++)
		if (f->hosts[i].late)
			json_i64(&j, NULL, f->hosts[i].r->id);
	json_end(&j);
	json_num(&j, "start_skew_ms", f->has_skew ? f->start_skew_ms : NAN);
	json_num(&j, "clock_max_error_ms", f->clock_max_error_ms);
	json_begin_array_flat(&j, "without_load_started_at");
	for (size_t i = 0; i < f->nr_hosts; i++)
		if (!f->hosts[i].has_load)
			json_i64(&j, NULL, f->hosts[i].r->id);
	json_end(&j);
	if (f->unlike.len)
		json_str(&j, "unlike", f->unlike.buf);
	else
		json_null(&j, "unlike");
	/* their loads began when each happened to: the skew aligns nothing */
	json_begin_array_flat(&j, "without_start_at");
	for (size_t i = 0; i < f->nr_hosts; i++)
		if (!f->hosts[i].r->start_at)
			json_i64(&j, NULL, f->hosts[i].r->id);
	json_end(&j);
	json_str(&j, "test", ANALYZE_TEST_NAME);
	json_sig(&j, "alpha", f->alpha, 3);
	json_begin_array(&j, "hosts");
	for (size_t i = 0; i < f->nr_hosts; i++)
		json_host_row(&j, &f->hosts[i]);
	json_end(&j);
	json_begin_array(&j, "skipped");
	for (size_t i = 0; i < f->nr_skipped; i++) {
		json_begin_object_flat(&j, NULL);
		json_i64(&j, "run_id", f->skipped[i].id);
		json_str(&j, "why", f->skipped[i].why);
		json_end(&j);
	}
	json_end(&j);
	json_begin_object(&j, "summary");
	report_json_classes(&j, &f->summary);
	json_end(&j);
	json_begin_object_flat(&j, "percentiles_exact");
	for (int c = 0; c < IO_CLASS_COUNT; c++)
		if (c != IO_DB_FLUSH || f->summary.classes[c].ios)
			json_bool(&j, stats_io_class_name(c), f->hist_complete[c]);
	json_end(&j);
	json_begin_object_flat(&j, "totals");
	json_u64(&j, "ios", f->ios);
	json_u64(&j, "runs", f->nr_hosts);
	json_u64(&j, "hosts", f->nr_host_names);
	json_end(&j);
	json_end(&j);
	strbuf_addch(sb, '\n');
}
