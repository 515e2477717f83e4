/*
 * cmd_compare.c - "diskproof compare RUN_A RUN_B [--format text|json|html]
 * [--results FILE]": loads two stored runs, has analyze compare them (the
 * statistics live there, see analyze.h) and prints the comparison to stdout,
 * or writes it to FILE atomically (cli_write_output). A run is
 * a number or "latest". Exit 0 when the comparison was printed, 2 for a usage
 * error or an unknown run, 3 when the results file cannot be used.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diskproof/analyze.h"
#include "diskproof/report.h"
#include "diskproof/run.h"
#include "diskproof/store.h"

#include "cli.h"

static int compare_load(struct store *st, int64_t id, struct results *r, struct strbuf *err)
{
	int ret = 0;

	if (!id)
		ret = store_run_latest(st, &id, err);
	if (!ret)
		ret = store_results_load(st, id, r, err);
	return ret;
}

static int compare_print(const char *results, int64_t id_a, int64_t id_b, enum report_format fmt,
			 const char *output)
{
	struct store *st = NULL;
	struct results a = {0}, b = {0};
	struct analyze_comparison c = {0};
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT;
	struct report_options ro = {.color = fmt == REPORT_TEXT && !output && use_color(stdout)};
	int ret;

	ret = store_open_read(&st, results, true, &err);
	if (!ret)
		ret = compare_load(st, id_a, &a, &err);
	if (!ret)
		ret = compare_load(st, id_b, &b, &err);
	if (ret) {
		cli_print_err(err.buf);
		ret = ret == -ENOENT && st ? DP_EXIT_USAGE : DP_EXIT_ENV;
		goto out;
	}
	ret = analyze_compare(&c, &a, &b, ANALYZE_ALPHA_DEFAULT, &err);
	if (ret) {
		cli_print_err(err.buf);
		ret = DP_EXIT_ENV;
		goto out;
	}
	report_compare_render(&text, &c, fmt, &ro);
	/* the results file closed first: none of its descriptors can be the
	 * output (-o /dev/fd/N) */
	store_close(st);
	st = NULL;
	ret = cli_emit(output, results, &text, stdout);
out:
	analyze_comparison_release(&c);
	results_release(&a);
	results_release(&b);
	store_close(st);
	strbuf_release(&err);
	strbuf_release(&text);
	return ret;
}

int cmd_compare(int argc, char **argv)
{
	struct cli_opts o;
	int64_t id_a = 0, id_b = 0;
	int fmt = REPORT_TEXT, ret;

	ret = parse_opts(argc, argv, CMD_COMPARE, &o);
	if (ret)
		return ret;
	if (o.npos != 2)
		return usage_error("compare takes two runs, RUN_A and RUN_B (numbers or "
				   "\"latest\"), got %d",
				   o.npos);
	ret = cli_run_id_parse(o.positional[0], &id_a);
	if (!ret)
		ret = cli_run_id_parse(o.positional[1], &id_b);
	if (ret)
		return ret;
	if (o.format) {
		fmt = report_format_from_name(o.format);
		if (fmt < 0 || !report_format_compares((enum report_format)fmt))
			return usage_error("unknown format \"%s\" for compare (text, json or html)",
					   o.format);
	}
	ret = cli_results_must_exist(o.results);
	if (!ret)
		ret = cli_output_check(o.output, o.results);
	if (ret)
		return ret;
	return compare_print(o.results, id_a, id_b, (enum report_format)fmt, o.output);
}
