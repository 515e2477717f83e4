/* SPDX-License-Identifier: MIT */
/*
 * params.c - a run's effective parameters (results.h, struct results_param)
 * in the text, JSON and HTML reports: every profile key with the value the
 * run used, and where a value did not come from the profile file, why
 * (default, command-line option, derived from other keys).
 *
 * A run from before schema 6 stored none: its parameters are read back from
 * its stored profile text, which cannot know the options given on the
 * command line; each format says so.
 */
#include <string.h>

#include "diskproof/json.h"

#include "html.h"
#include "report_internal.h"

/* "[volume v1] path", "[test] duration" */
static void param_label(struct strbuf *sb, const struct results_param *p)
{
	if (*p->name)
		strbuf_addf(sb, "[%s %s] %s", p->section, p->name, p->key);
	else
		strbuf_addf(sb, "[%s] %s", p->section, p->key);
}

static const char *params_note(const struct results *r)
{
	return r->params_from_text ? "read back from the stored profile text (a run from before "
				     "results schema 6): command-line options are not known"
				   : NULL;
}

/* The defaults of one section, wrapped: "  [workload] at their defaults:
 * model jetstress, page_size 32KiB, ..." (a hundred lines of defaults would
 * bury the keys the profile set). */
static void text_defaults(struct strbuf *sb, const struct results *r, const char *section,
			  const char *name)
{
	size_t line_start = sb->len, n = 0;

	for (size_t i = 0; i < r->nr_params; i++) {
		const struct results_param *p = &r->params[i];

		if (strcmp(p->source, "default") || strcmp(p->section, section) ||
		    strcmp(p->name, name))
			continue;
		if (!n++) {
			strbuf_addstr(sb, "  ");
			if (*name)
				strbuf_addf(sb, "[%s %s]", section, name);
			else
				strbuf_addf(sb, "[%s]", section);
			strbuf_addstr(sb, " at their defaults:");
		} else {
			strbuf_addch(sb, ',');
		}
		if (sb->len - line_start > 80) {
			strbuf_addstr(sb, "\n   ");
			line_start = sb->len - 3;
		}
		strbuf_addf(sb, " %s ", p->key);
		if (p->value)
			report_text_escape(sb, p->value);
		else
			strbuf_addstr(sb, "(not set)");
	}
	if (n)
		strbuf_addch(sb, '\n');
}

/* Whether an earlier entry has this section and name (each group once). */
static bool group_seen(const struct results *r, size_t upto, const struct results_param *p)
{
	for (size_t i = 0; i < upto; i++)
		if (!strcmp(r->params[i].section, p->section) &&
		    !strcmp(r->params[i].name, p->name))
			return true;
	return false;
}

void report_text_params(struct strbuf *sb, const struct results *r)
{
	struct strbuf label = STRBUF_INIT;
	size_t i, width = 0;

	if (!r->nr_params)
		return;
	for (i = 0; i < r->nr_params; i++) {
		if (!strcmp(r->params[i].source, "default"))
			continue;
		strbuf_reset(&label);
		param_label(&label, &r->params[i]);
		if (label.len > width)
			width = label.len;
	}
	strbuf_addstr(sb, "\nparameters (the values the run used; not from the profile file: "
			  "option = the command line, derived = from other keys; then the keys at "
			  "their defaults)\n");
	if (params_note(r))
		strbuf_addf(sb, "  %s\n", params_note(r));
	for (i = 0; i < r->nr_params; i++) {
		const struct results_param *p = &r->params[i];

		if (!strcmp(p->source, "default"))
			continue;
		strbuf_reset(&label);
		param_label(&label, p);
		strbuf_addf(sb, "  %-*s  ", (int)width, label.buf);
		if (p->value)
			report_text_escape(sb, p->value);
		else
			strbuf_addstr(sb, "(not set)");
		if (strcmp(p->source, "profile"))
			strbuf_addf(sb, "  (%s)", p->source);
		strbuf_addch(sb, '\n');
	}
	for (i = 0; i < r->nr_params; i++)
		if (!group_seen(r, i, &r->params[i]))
			text_defaults(sb, r, r->params[i].section, r->params[i].name);
	strbuf_release(&label);
}

void report_json_params(struct json *j, const struct results *r)
{
	json_str(j, "parameters_from", r->params_from_text ? "profile_text" : "stored");
	json_begin_array(j, "parameters");
	for (size_t i = 0; i < r->nr_params; i++) {
		const struct results_param *p = &r->params[i];

		json_begin_object_flat(j, NULL);
		json_str(j, "section", p->section);
		if (*p->name)
			json_str(j, "name", p->name);
		json_str(j, "key", p->key);
		json_str(j, "value", p->value);
		json_str(j, "source", p->source);
		json_end(j);
	}
	json_end(j);
}

void report_html_params(struct strbuf *sb, const struct results *r)
{
	size_t from_file = 0;

	if (!r->nr_params)
		return;
	for (size_t i = 0; i < r->nr_params; i++)
		from_file += !strcmp(r->params[i].source, "profile");
	/* folded: about a hundred rows would push the figures off the page */
	strbuf_addf(sb,
		    "<details class=\"params\" id=\"effective-parameters\">\n<summary><b>"
		    "Effective parameters</b>: %zu keys, %zu set by the profile file, %zu "
		    "not</summary>\n<p class=\"note\">Every profile key with the value the run "
		    "used. Values not set by the profile file are marked: <i>default</i>, "
		    "<i>option</i> (the command line) or <i>derived</i> (computed from other "
		    "keys).",
		    r->nr_params, from_file, r->nr_params - from_file);
	if (params_note(r)) {
		strbuf_addstr(sb, " They were ");
		html_esc(sb, params_note(r));
		strbuf_addch(sb, '.');
	}
	strbuf_addstr(sb, "</p>\n<table class=\"params\">\n<tr><th>key</th><th>value</th>"
			  "<th>source</th></tr>\n");
	for (size_t i = 0; i < r->nr_params; i++) {
		const struct results_param *p = &r->params[i];
		struct strbuf label = STRBUF_INIT;
		bool file = !strcmp(p->source, "profile");

		param_label(&label, p);
		strbuf_addf(sb, "<tr class=\"param-%s\"><td><code>", p->source);
		html_esc(sb, label.buf);
		strbuf_addstr(sb, "</code></td><td>");
		if (p->value)
			html_esc(sb, p->value);
		else
			strbuf_addstr(sb, "<i>not set</i>");
		strbuf_addf(sb, "</td><td>%s%s%s</td></tr>\n", file ? "" : "<i>", p->source,
			    file ? "" : "</i>");
		strbuf_release(&label);
	}
	strbuf_addstr(sb, "</table>\n</details>\n");
}

/* "default" after a value that did not come from the profile file */
static void diff_side_text(struct strbuf *sb, const char *v, const char *src)
{
	if (!v) {
		strbuf_addstr(sb, "(absent)");
		return;
	}
	report_text_escape(sb, v);
	if (*src && strcmp(src, "profile"))
		strbuf_addf(sb, " (%s)", src);
}

void report_text_param_diffs(struct strbuf *sb, const struct analyze_param_diff *d, size_t n)
{
	if (!n) {
		strbuf_addstr(sb, "parameter differences: none\n");
		return;
	}
	strbuf_addf(sb, "parameter differences (%zu):\n", n);
	for (size_t i = 0; i < n; i++) {
		strbuf_addstr(sb, "  ");
		report_text_escape(sb, d[i].what);
		strbuf_addstr(sb, ": ");
		diff_side_text(sb, d[i].a, d[i].source_a);
		strbuf_addstr(sb, " -> ");
		diff_side_text(sb, d[i].b, d[i].source_b);
		strbuf_addch(sb, '\n');
	}
}

void report_json_param_diffs(struct json *j, const struct analyze_param_diff *d, size_t n)
{
	json_begin_array(j, "parameter_differences");
	for (size_t i = 0; i < n; i++) {
		json_begin_object_flat(j, NULL);
		json_str(j, "what", d[i].what);
		json_str(j, "a", d[i].a);
		json_str(j, "b", d[i].b);
		json_str(j, "source_a", *d[i].source_a ? d[i].source_a : NULL);
		json_str(j, "source_b", *d[i].source_b ? d[i].source_b : NULL);
		json_end(j);
	}
	json_end(j);
}

static void diff_side_html(struct strbuf *sb, const char *v, const char *src)
{
	strbuf_addstr(sb, "<td>");
	if (!v) {
		strbuf_addstr(sb, "<i>(absent)</i>");
	} else {
		html_esc(sb, v);
		if (*src && strcmp(src, "profile"))
			strbuf_addf(sb, " <i>(%s)</i>", src);
	}
	strbuf_addstr(sb, "</td>");
}

void report_html_param_diffs(struct strbuf *sb, const struct analyze_param_diff *d, size_t n)
{
	strbuf_addstr(sb, "<h3>Parameter differences</h3>\n");
	if (!n) {
		strbuf_addstr(sb, "<p>None: both runs used the same parameters.</p>\n");
		return;
	}
	strbuf_addstr(sb, "<table class=\"param-diffs\">\n<tr><th>parameter</th><th>A</th>"
			  "<th>B</th></tr>\n");
	for (size_t i = 0; i < n; i++) {
		strbuf_addstr(sb, "<tr><td><code>");
		html_esc(sb, d[i].what);
		strbuf_addstr(sb, "</code></td>");
		diff_side_html(sb, d[i].a, d[i].source_a);
		diff_side_html(sb, d[i].b, d[i].source_b);
		strbuf_addstr(sb, "</tr>\n");
	}
	strbuf_addstr(sb, "</table>\n");
}
