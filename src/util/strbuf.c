/* SPDX-License-Identifier: MIT */
/*
 * strbuf.c - growable NUL-terminated string buffer (see util.h for the
 * invariants). Running out of memory while building text aborts: there is no
 * better way to report it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diskproof/util.h"

const char strbuf_empty[1];

void strbuf_init(struct strbuf *sb)
{
	sb->alloc = 0;
	sb->len = 0;
	sb->buf = (char *)strbuf_empty;
}

void strbuf_release(struct strbuf *sb)
{
	if (sb->alloc)
		free(sb->buf);
	strbuf_init(sb);
}

void strbuf_reset(struct strbuf *sb)
{
	sb->len = 0;
	if (sb->alloc)
		sb->buf[0] = '\0';
}

void strbuf_grow(struct strbuf *sb, size_t extra)
{
	size_t want = sb->len + extra + 1;
	char *nbuf;

	if (extra >= SIZE_MAX - sb->len)
		abort(); /* more than memory holds: as out of memory */
	if (want <= sb->alloc)
		return;
	if (want < 64)
		want = 64;
	if (want < sb->alloc * 2)
		want = sb->alloc * 2;
	nbuf = realloc(sb->alloc ? sb->buf : NULL, want);
	if (!nbuf)
		abort();
	if (!sb->alloc)
		nbuf[0] = '\0';
	sb->buf = nbuf;
	sb->alloc = want;
}

void strbuf_add(struct strbuf *sb, const void *data, size_t len)
{
	strbuf_grow(sb, len);
	memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

void strbuf_addstr(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void strbuf_addch(struct strbuf *sb, char c)
{
	strbuf_add(sb, &c, 1);
}

void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return;
	strbuf_grow(sb, (size_t)n);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	sb->len += (size_t)n;
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

void strbuf_add_escaped(struct strbuf *sb, const char *s, const struct strbuf_escapes *e)
{
	const unsigned char *p;

	for (p = (const unsigned char *)s; *p; p++) {
		if (*p < 0x80 && e->named && e->named[*p])
			strbuf_addstr(sb, e->named[*p]);
		else if (e->hex_prefix && (*p < 0x20 || (*p == 0x7f && e->del)))
			strbuf_addf(sb, "%s%02x", e->hex_prefix, *p);
		else
			strbuf_addch(sb, (char)*p);
	}
}

char *strbuf_detach(struct strbuf *sb, size_t *len)
{
	char *r;

	if (len)
		*len = sb->len;
	if (!sb->alloc) {
		r = strdup("");
		if (!r)
			abort();
	} else {
		r = sb->buf;
	}
	strbuf_init(sb);
	return r;
}

/* The length of the escape sequence at s (ESC [ parameters final byte), 0
 * when s does not start one. */
static size_t escape_len(const char *s, size_t len)
{
	size_t i = 2;

	if (len < 2 || s[0] != '\033' || s[1] != '[')
		return 0;
	while (i < len && !(s[i] >= 0x40 && s[i] <= 0x7e))
		i++;
	return i < len ? i + 1 : len;
}

size_t strbuf_vis_width(const char *s, size_t len)
{
	size_t w = 0, i = 0;

	while (i < len) {
		size_t e = escape_len(s + i, len - i);

		if (e) {
			i += e;
			continue;
		}
		/* UTF-8 continuation bytes take no column of their own */
		if (((unsigned char)s[i] & 0xc0) != 0x80)
			w++;
		i++;
	}
	return w;
}

/*
 * The byte at which line[0..len) breaks to stay within width columns: the
 * last space whose column is at most width, else the first space after; len
 * when it has none. Leading spaces (the indent) are never a break.
 */
static size_t wrap_break(const char *line, size_t len, size_t width, size_t indent)
{
	size_t col = 0, best = len, i = 0;

	while (i < len) {
		size_t e = escape_len(line + i, len - i);

		if (e) {
			i += e;
			continue;
		}
		if (line[i] == ' ' && i > indent && line[i - 1] != ' ') {
			if (col <= width)
				best = i;
			else
				return best < len ? best : i;
		}
		if (((unsigned char)line[i] & 0xc0) != 0x80)
			col++;
		i++;
	}
	return col > width ? best : len;
}

void strbuf_wrap_lines(struct strbuf *sb, size_t from, size_t width)
{
	struct strbuf out = STRBUF_INIT;
	size_t pos = from;

	if (!width || from >= sb->len)
		return;
	strbuf_add(&out, sb->buf, from);
	while (pos < sb->len) {
		const char *line = sb->buf + pos, *nl = memchr(line, '\n', sb->len - pos);
		size_t len = nl ? (size_t)(nl - line) : sb->len - pos;
		size_t indent = strspn(line, " "), lead = indent, avail = width, cut;

		if (indent > len)
			indent = lead = len;
		while (strbuf_vis_width(line, len) > avail &&
		       (cut = wrap_break(line, len, avail, lead)) < len) {
			strbuf_add(&out, line, cut);
			strbuf_addf(&out, "\n%*s", (int)(indent + 2), "");
			while (cut < len && line[cut] == ' ')
				cut++;
			line += cut;
			len -= cut;
			/* the next piece follows the continuation's indent */
			avail = width > indent + 2 ? width - indent - 2 : 1;
			lead = 0;
		}
		strbuf_add(&out, line, len);
		if (nl)
			strbuf_addch(&out, '\n');
		pos = nl ? (size_t)(nl - sb->buf) + 1 : sb->len;
	}
	strbuf_release(sb);
	*sb = out;
}
