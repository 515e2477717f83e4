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
