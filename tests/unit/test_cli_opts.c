/* SPDX-License-Identifier: MIT */
/*
 * test_cli_opts.c - the option table (src/cli/options.c) and its parser:
 * every entry well formed (the one validator over the table), no two
 * options with one short name, every command's usage naming each of its
 * options; then cli_opts_parse on values as "--opt V" and "--opt=V", short
 * flags bundled, "--" ending the options, positionals in order,
 * abbreviations and other commands' options refused.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diskproof/run.h"

#include "../../src/cli/cli.h"

static void test_table_valid(void **state)
{
	size_t n;
	const struct cli_opt_def *t = cli_opt_table(&n);

	(void)state;
	assert_true(n > 20);
	for (size_t k = 0; k < n; k++) {
		size_t len = strlen(t[k].help);

		assert_true(!strncmp(t[k].name, "--", 2) && t[k].name[2] != '-');
		assert_true(strspn(t[k].name + 2, "abcdefghijklmnopqrstuvwxyz-") ==
			    strlen(t[k].name + 2));
		assert_true((t[k].metavar == NULL) == (t[k].arg == CLI_ARG_NONE));
		assert_true(t[k].commands != 0);
		assert_true(len > 0 && t[k].help[len - 1] != '.' && !strchr(t[k].help, '\n'));
		assert_ptr_equal(cli_opt_find(t[k].name, strlen(t[k].name)), &t[k]);
		for (size_t j = 0; j < k; j++) {
			assert_string_not_equal(t[j].name, t[k].name);
			assert_false(t[k].short_name && t[j].short_name == t[k].short_name);
		}
	}
}

/* Each command's usage lists each option it takes, and no other. */
static void test_usage_lists_options(void **state)
{
	size_t n;
	const struct cli_opt_def *t = cli_opt_table(&n);

	(void)state;
	for (unsigned bit = 1; bit & CMD_ALL; bit <<= 1) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		assert_non_null(f);
		assert_true(cli_command_name(bit)[0] != '\0');
		cli_usage_command(f, bit);
		fclose(f);
		for (size_t k = 0; k < n; k++) {
			char word[64];

			snprintf(word, sizeof(word), " %s%c", t[k].name,
				 t[k].arg == CLI_ARG_OPTIONAL ? '[' : ' ');
			if (t[k].arg == CLI_ARG_NONE) /* "--force" then spaces */
				word[strlen(word) - 1] = ' ';
			assert_int_equal(strstr(buf, word) != NULL, (t[k].commands & bit) != 0);
		}
		free(buf);
	}
}

static int parse(struct cli_opts *o, unsigned command, const char *line)
{
	static char copy[512];
	char *argv[32];
	int argc = 0;

	snprintf(copy, sizeof(copy), "%s", line);
	for (char *tok = strtok(copy, " "); tok; tok = strtok(NULL, " "))
		argv[argc++] = tok;
	argv[argc] = NULL;
	return cli_opts_parse(argc, argv, command, o);
}

static void test_parse(void **state)
{
	struct cli_opts o;

	(void)state;
	assert_int_equal(parse(&o, CMD_RUN, "--duration 5s a --warmup=1s -q b"), 0);
	assert_true(o.ov.has_duration && o.ov.duration_ns == 5 * NSEC_PER_SEC);
	assert_true(o.ov.has_warmup && o.ov.warmup_ns == NSEC_PER_SEC);
	assert_true(o.quiet);
	assert_int_equal(o.npos, 2);
	assert_string_equal(o.positional[0], "a");
	assert_string_equal(o.positional[1], "b");
	assert_string_equal(o.results, DEFAULT_RESULTS);

	/* bundled, attached value, and "--" */
	assert_int_equal(parse(&o, CMD_RUN, "-qfjson -- -x.ini --quiet"), 0);
	assert_true(o.quiet);
	assert_string_equal(o.format, "json");
	assert_int_equal(o.npos, 2);
	assert_string_equal(o.positional[0], "-x.ini");
	assert_string_equal(o.positional[1], "--quiet");

	assert_int_equal(parse(&o, CMD_REPORT, "3 -o out.html -f html"), 0);
	assert_string_equal(o.output, "out.html");
	assert_string_equal(o.positional[0], "3");

	/* the parse-only options of the run */
	assert_int_equal(
		parse(&o, CMD_RUN,
		      "--status-interval 10s --metrics 127.0.0.1:9100 --metrics-file m.prom"),
		0);
	assert_true(o.has_status_interval && o.status_interval_ns == 10 * NSEC_PER_SEC);
	assert_string_equal(o.metrics, "127.0.0.1:9100");
	assert_string_equal(o.metrics_file, "m.prom");
	assert_int_equal(parse(&o, CMD_RUN, "--status-interval 0s"), DP_EXIT_USAGE);

	assert_int_equal(parse(&o, CMD_COMPARE, "1 2 --fail-on-regression=3%"), 0);
	assert_true(o.gate && o.gate_pct == 3.0);
	assert_int_equal(parse(&o, CMD_COMPARE, "1 2 --fail-on-regression"), 0);
	assert_true(o.gate && o.gate_pct == 5.0);

	/* a second parse starts afresh (getopt's state reset) */
	assert_int_equal(parse(&o, CMD_LIST, "--results r.db"), 0);
	assert_string_equal(o.results, "r.db");
	assert_int_equal(o.npos, 0);
}

static void test_refused(void **state)
{
	struct cli_opts o;

	(void)state;
	assert_int_equal(parse(&o, CMD_RUN, "--dur 5s"), DP_EXIT_USAGE);     /* abbreviated */
	assert_int_equal(parse(&o, CMD_INIT, "--destroy x"), DP_EXIT_USAGE); /* abbreviated */
	assert_int_equal(parse(&o, CMD_LIST, "--label x"), DP_EXIT_USAGE);   /* run's */
	assert_int_equal(parse(&o, CMD_LIST, "-o x"), DP_EXIT_USAGE);	     /* report's */
	assert_int_equal(parse(&o, CMD_RUN, "--label --quiet"), DP_EXIT_USAGE);
	assert_int_equal(parse(&o, CMD_RUN, "--label -q"), DP_EXIT_USAGE);
	assert_int_equal(parse(&o, CMD_RUN, "--label"), DP_EXIT_USAGE);
	assert_int_equal(parse(&o, CMD_RUN, "--quiet=1"), DP_EXIT_USAGE);
	assert_int_equal(parse(&o, CMD_RUN, "-z"), DP_EXIT_USAGE);
	assert_int_equal(parse(&o, CMD_COMPARE, "1 --fail-on-regression 3"), DP_EXIT_USAGE);
	assert_int_equal(parse(&o, CMD_GLOBAL, "--quiet"), DP_EXIT_USAGE);
	/* still a value when attached */
	assert_int_equal(parse(&o, CMD_RUN, "--label=--quiet"), 0);
	assert_string_equal(o.label, "--quiet");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_valid),
		cmocka_unit_test(test_usage_lists_options),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
