/* SPDX-License-Identifier: MIT */
/*
 * cmd_list.c - "diskproof list [--format text|json]": every run in the
 * results file, one line each (text) or typed (list.schema.json).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diskproof/engine.h"
#include "diskproof/json.h"
#include "diskproof/report.h"
#include "diskproof/run.h"
#include "diskproof/store.h"
#include "cli.h"

/* list --format json: every run, typed (docs/json.md, list.schema.json). */
static void list_json(struct strbuf *sb, const struct store_run_brief *runs, size_t n)
{
	struct json j = JSON_INIT(sb);

	json_begin_object(&j, NULL);
	json_doc_versions(&j);
	json_begin_array(&j, "runs");
	for (size_t i = 0; i < n; i++) {
		const struct store_run_brief *b = &runs[i];

		json_begin_object_flat(&j, NULL);
		json_i64(&j, "id", b->id);
		json_str(&j, "uuid", b->uuid);
		json_str(&j, "status", b->status);
		json_str(&j, "verdict", b->verdict[0] ? b->verdict : NULL);
		json_str(&j, "started", b->started_at);
		json_str(&j, "ended", b->ended_at[0] ? b->ended_at : NULL);
		json_str(&j, "host", b->host);
		json_str(&j, "profile", b->profile);
		json_str(&j, "engine", b->engine);
		json_bool(&j, "simulated", engine_simulated(b->engine));
		json_str(&j, "test_type", b->test_type[0] ? b->test_type : NULL);
		/* an unusable run's figures are none (null) */
		json_fixed(&j, "duration_s", b->unusable[0] ? NAN : b->duration_s, 3);
		json_fixed(&j, "transactional_iops", b->unusable[0] ? NAN : b->transactional_iops,
			   3);
		json_str(&j, "label", b->label[0] ? b->label : NULL);
		if (b->has_exit_code)
			json_i64(&j, "exit_code", b->exit_code);
		else
			json_null(&j, "exit_code");
		json_str(&j, "unusable", b->unusable[0] ? b->unusable : NULL);
		/* run --repeat N: the series' id (its lowest run id), place, N */
		if (b->series_id) {
			json_i64(&j, "series", b->series_id);
			json_u64(&j, "series_index", b->series_index);
			json_u64(&j, "series_size", b->series_size);
		} else {
			json_null(&j, "series");
			json_null(&j, "series_index");
			json_null(&j, "series_size");
		}
		json_end(&j);
	}
	json_end(&j);
	json_end(&j);
	strbuf_addch(sb, '\n');
}

/* One run of list's table; an unusable run without figures, marked. */
static void list_text_row(const struct store_run_brief *b)
{
	struct strbuf host = STRBUF_INIT, prof = STRBUF_INIT, label = STRBUF_INIT;
	struct strbuf figs = STRBUF_INIT;
	char ser[48] = "-";

	/* control characters shown escaped, never sent to the terminal */
	report_text_escape(&host, b->host);
	report_text_escape(&prof, b->profile);
	if (b->label[0])
		report_text_escape(&label, b->label);
	if (b->unusable[0]) {
		strbuf_addf(&figs, "%9s %12s", "-", "-");
		strbuf_addstr(&label, label.len ? "  " : "");
		strbuf_addstr(&label, "[unusable: ");
		report_text_escape(&label, b->unusable);
		strbuf_addch(&label, ']');
	} else {
		strbuf_addf(&figs, "%8.0fs %12.1f", b->duration_s, b->transactional_iops);
	}
	/* the stored verdict is the criteria's; exit 5 says the results could
	 * not be concluded on (reads that did not reach the device) */
	if (b->has_exit_code && b->exit_code == DP_EXIT_INCONCLUSIVE)
		strbuf_addstr(&label,
			      label.len ? "  [inconclusive: exit 5]" : "[inconclusive: exit 5]");
	if (b->series_id) /* the series' id, and the run's place in it */
		snprintf(ser, sizeof(ser), "%lld:%u/%u", (long long)b->series_id, b->series_index,
			 b->series_size);
	printf("%5lld  %-8s %-7s %-20s %-16s %-14s %-8s %s  %-13s %s\n", (long long)b->id,
	       b->status, b->verdict[0] ? b->verdict : "-", b->started_at, host.buf, prof.buf,
	       b->engine[0] ? b->engine : "-", figs.buf, ser, label.buf);
	strbuf_release(&host);
	strbuf_release(&prof);
	strbuf_release(&label);
	strbuf_release(&figs);
}

int cli_cmd_list(int argc, char **argv)
{
	struct cli_opts o;
	struct store *st = NULL;
	struct store_run_brief *runs = NULL;
	struct strbuf err = STRBUF_INIT;
	size_t n = 0;
	bool json;
	int ret;

	ret = cli_opts_parse(argc, argv, CMD_LIST, &o);
	if (ret)
		return ret;
	if (o.npos)
		return cli_usage_error("list takes no arguments, got \"%s\"", o.positional[0]);
	ret = cli_format_text_json(o.format, &json);
	if (ret)
		return ret;
	ret = cli_results_must_exist(o.results);
	if (ret)
		return ret;
	/* killed runs are marked aborted where the file can be written;
	 * a read-only or full one is listed as it is */
	ret = store_open_read(&st, o.results, true, &err);
	if (!ret)
		ret = store_run_list(st, &runs, &n, &err);
	if (ret) {
		cli_print_err(err.buf);
		ret = DP_EXIT_ENV;
		goto out;
	}
	if (json) {
		struct strbuf doc = STRBUF_INIT;

		list_json(&doc, runs, n);
		ret = cli_emit(NULL, o.results, &doc, stdout);
		strbuf_release(&doc);
		goto out;
	}
	printf("%5s  %-8s %-7s %-20s %-16s %-14s %-8s %9s %12s  %-13s %s\n", "run", "status",
	       "verdict", "started", "host", "profile", "engine", "measured", "trans. IOPS",
	       "series", "label");
	for (size_t i = 0; i < n; i++)
		list_text_row(&runs[i]);
out:
	free(runs);
	store_close(st);
	strbuf_release(&err);
	return ret;
}
