/* SPDX-License-Identifier: MIT */
/*
 * format.c - the --format of the commands that print either text for a
 * person or one JSON document for a tool (run, list, check, verify).
 */
#include <string.h>

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
