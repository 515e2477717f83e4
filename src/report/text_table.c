/* SPDX-License-Identifier: MIT */
/*
 * text_table.c - the text report's tables fitted to a width: each column
 * says how much it is needed (struct report_col's drop); a table too wide
 * for the terminal loses its least needed columns first, whole, so that no
 * row wraps and no figure is cut (report --wide shows them all). Heads of
 * one or two lines (a group word over a run of columns, as "db_read ms"
 * over avg, p99 and slowest).
 */
#include <string.h>

#include "report_internal.h"

void report_table_init(struct report_table *t, const struct report_col *cols, size_t n)
{
	memset(t, 0, sizeof(*t));
	t->cols = cols;
	t->n = n < REPORT_COLS_MAX ? n : REPORT_COLS_MAX;
	for (size_t i = 0; i < t->n; i++) {
		t->width[i] = cols[i].width;
		t->show[i] = true;
		strbuf_init(&t->cell[i]);
	}
}

void report_table_release(struct report_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		strbuf_release(&t->cell[i]);
}

static size_t table_span(const struct report_table *t)
{
	size_t w = 0;

	for (size_t i = 0; i < t->n; i++)
		if (t->show[i])
			w += (size_t)t->cols[i].gap + (size_t)t->width[i];
	return w;
}

size_t report_table_fit(struct report_table *t, size_t width, bool wide)
{
	while (!wide && table_span(t) > width) {
		size_t worst = t->n;

		for (size_t i = 0; i < t->n; i++)
			if (t->show[i] && t->cols[i].drop &&
			    (worst == t->n || t->cols[i].drop > t->cols[worst].drop))
				worst = i;
		if (worst == t->n)
			break; /* what is left is needed: the rows are as narrow as they go */
		t->show[worst] = false;
		t->dropped++;
	}
	return t->dropped;
}

/* The last column shown: its cells are not padded (no trailing blanks). */
static size_t table_last(const struct report_table *t)
{
	size_t last = 0;

	for (size_t i = 0; i < t->n; i++)
		if (t->show[i])
			last = i;
	return last;
}

/* One line of cells: text[i] for each column shown, padded to its width. */
static void table_line(struct strbuf *sb, const struct report_table *t, const char *const *text)
{
	size_t last = table_last(t), start = sb->len;

	for (size_t i = 0; i < t->n; i++) {
		size_t vis;
		int pad;

		if (!t->show[i])
			continue;
		vis = strbuf_vis_width(text[i], strlen(text[i]));
		pad = vis < (size_t)t->width[i] ? t->width[i] - (int)vis : 0;
		strbuf_addf(sb, "%*s", t->cols[i].gap, "");
		if (!t->cols[i].left)
			strbuf_addf(sb, "%*s", pad, "");
		strbuf_addstr(sb, text[i]);
		if (t->cols[i].left && i != last)
			strbuf_addf(sb, "%*s", pad, "");
	}
	while (sb->len > start && sb->buf[sb->len - 1] == ' ')
		sb->len--;
	sb->buf[sb->len] = '\0';
	strbuf_addch(sb, '\n');
}

void report_table_head(struct strbuf *sb, const struct report_table *t)
{
	const char *text[REPORT_COLS_MAX] = {0};
	bool groups = false;

	for (size_t i = 0; i < t->n; i++)
		groups = groups || (t->show[i] && t->cols[i].group);
	if (groups) {
		/* the group's word left-aligned over its first column shown,
		 * running on over the others of the group */
		struct strbuf line = STRBUF_INIT;
		const char *prev = NULL;
		size_t col = 0;

		for (size_t i = 0; i < t->n; i++) {
			const char *g = t->cols[i].group;

			if (!t->show[i])
				continue;
			col += (size_t)t->cols[i].gap;
			if (g && (!prev || strcmp(g, prev))) {
				if (line.len < col)
					strbuf_addf(&line, "%*s", (int)(col - line.len), "");
				else if (line.len)
					strbuf_addch(&line, ' ');
				strbuf_addstr(&line, g);
			}
			prev = g;
			col += (size_t)t->width[i];
		}
		strbuf_addf(sb, "%s\n", line.buf);
		strbuf_release(&line);
	}
	for (size_t i = 0; i < t->n; i++)
		text[i] = t->cols[i].head;
	table_line(sb, t, text);
}

void report_table_row(struct strbuf *sb, struct report_table *t)
{
	const char *text[REPORT_COLS_MAX] = {0};

	for (size_t i = 0; i < t->n; i++)
		text[i] = t->cell[i].buf;
	table_line(sb, t, text);
	for (size_t i = 0; i < t->n; i++)
		strbuf_reset(&t->cell[i]);
}

bool report_table_dropped(struct strbuf *sb, const struct report_table *t)
{
	bool any = false;

	for (size_t i = 0; i < t->n; i++) {
		if (t->show[i])
			continue;
		strbuf_addf(sb, "%s%s%s", any ? ", " : "", t->cols[i].group ? t->cols[i].group : "",
			    t->cols[i].group ? " " : "");
		strbuf_addstr(sb, t->cols[i].head);
		any = true;
	}
	return any;
}
