/* SPDX-License-Identifier: MIT */
/*
 * format.c - the --format of the commands that print either text for a
 * person or one JSON document for a tool (run, list, check, verify); the
 * width text may take (cli_width).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli.h"

int cli_format_text_json(const char *format, bool *json)
{
	*json = false;
	if (!format || !strcmp(format, "text"))
		return 0;
	if (!strcmp(format, "json")) {
		*json = true;
		return 0;
	}
	return cli_usage_error("unknown format \"%s\" (text or json)", format);
}

unsigned cli_width_pick(unsigned tty_cols, const char *columns)
{
	unsigned long v;
	char *end;

	if (tty_cols)
		return tty_cols;
	/* digits only: "80x", "-1", " 80" and "" are junk, not a width */
	if (columns && *columns >= '0' && *columns <= '9') {
		v = strtoul(columns, &end, 10);
		if (!*end && v >= CLI_WIDTH_MIN && v <= CLI_WIDTH_MAX)
			return (unsigned)v;
	}
	return CLI_WIDTH_DEFAULT;
}

unsigned cli_width(FILE *f)
{
	struct winsize ws;
	int fd = fileno(f);
	unsigned cols = 0;

	if (fd >= 0 && isatty(fd) && ioctl(fd, TIOCGWINSZ, &ws) == 0)
		cols = ws.ws_col;
	return cli_width_pick(cols, getenv("COLUMNS"));
}
