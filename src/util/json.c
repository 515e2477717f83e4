/* SPDX-License-Identifier: MIT */
/*
 * json.c - the one JSON writer (json.h): nesting, commas, the pretty and the
 * one-line layouts, numbers, null and string escaping, for every JSON
 * document diskproof prints. It tracks nesting and commas itself, so what it
 * writes is well formed whatever the values hold.
 */
#include <assert.h>
#include <inttypes.h>
#include <math.h>

#include "diskproof/json.h"

static bool json_flat(const struct json *j)
{
	return j->flat_depth && j->depth >= j->flat_depth;
}

static void json_indent(struct json *j)
{
	strbuf_addch(j->sb, '\n');
	strbuf_addf(j->sb, "%*s", (int)j->depth * 2, "");
}

/* The separator before an item, and its key. */
static void json_item(struct json *j, const char *key)
{
	if (j->need_comma)
		strbuf_addch(j->sb, ',');
	if (json_flat(j)) {
		if (j->need_comma)
			strbuf_addch(j->sb, ' ');
	} else if (j->depth) {
		json_indent(j);
	}
	if (key) {
		json_escape(j->sb, key);
		strbuf_addstr(j->sb, ": ");
	}
	j->need_comma = true;
}

static void json_begin(struct json *j, const char *key, bool array, bool flat)
{
	assert(j->depth < JSON_MAX_DEPTH);
	json_item(j, key);
	strbuf_addch(j->sb, array ? '[' : '{');
	if (array)
		j->arrays |= UINT64_C(1) << j->depth;
	else
		j->arrays &= ~(UINT64_C(1) << j->depth);
	j->depth++;
	j->need_comma = false;
	if (flat && !j->flat_depth)
		j->flat_depth = j->depth;
}

void json_begin_object(struct json *j, const char *key)
{
	json_begin(j, key, false, false);
}

void json_begin_array(struct json *j, const char *key)
{
	json_begin(j, key, true, false);
}

void json_begin_object_flat(struct json *j, const char *key)
{
	json_begin(j, key, false, true);
}

void json_begin_array_flat(struct json *j, const char *key)
{
	json_begin(j, key, true, true);
}

void json_end(struct json *j)
{
	bool empty = !j->need_comma, flat = json_flat(j);

	assert(j->depth > 0);
	j->depth--;
	if (flat && j->depth < j->flat_depth)
		j->flat_depth = 0;
	if (!empty && !flat)
		json_indent(j);
	strbuf_addch(j->sb, (j->arrays >> j->depth) & 1 ? ']' : '}');
	j->need_comma = true;
}

void json_str(struct json *j, const char *key, const char *v)
{
	json_item(j, key);
	if (v)
		json_escape(j->sb, v);
	else
		strbuf_addstr(j->sb, "null");
}

void json_null(struct json *j, const char *key)
{
	json_item(j, key);
	strbuf_addstr(j->sb, "null");
}

void json_bool(struct json *j, const char *key, bool v)
{
	json_item(j, key);
	strbuf_addstr(j->sb, v ? "true" : "false");
}

void json_u64(struct json *j, const char *key, uint64_t v)
{
	json_item(j, key);
	strbuf_addf(j->sb, "%" PRIu64, v);
}

void json_i64(struct json *j, const char *key, int64_t v)
{
	json_item(j, key);
	strbuf_addf(j->sb, "%" PRId64, v);
}

/* JSON has no nan or inf: a number that is not finite is null. */
static void json_double(struct json *j, const char *key, double v, bool sig, int precision)
{
	json_item(j, key);
	if (!isfinite(v))
		strbuf_addstr(j->sb, "null");
	else if (sig)
		strbuf_addf(j->sb, "%.*g", precision, v);
	else
		strbuf_addf(j->sb, "%.*f", precision, v);
}

void json_fixed(struct json *j, const char *key, double v, int decimals)
{
	json_double(j, key, v, false, decimals);
}

void json_sig(struct json *j, const char *key, double v, int digits)
{
	json_double(j, key, v, true, digits);
}

/* RFC 8259: '"', '\\' and the control characters are escaped; \n, \r and \t
 * by name, the others as \u00XX. */
static const char *const json_named[0x80] = {
	['"'] = "\\\"", ['\\'] = "\\\\", ['\n'] = "\\n", ['\r'] = "\\r", ['\t'] = "\\t",
};

static const struct strbuf_escapes json_escapes = {.named = json_named, .hex_prefix = "\\u00"};

/* The length of the well-formed UTF-8 sequence at p (RFC 3629: no
 * overlong forms, no surrogates, nothing past U+10FFFF), 0 when it is not
 * one. */
static size_t utf8_len(const unsigned char *p)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;

	if (*p < 0x80)
		return 1;
	if (*p >= 0xc2 && *p <= 0xdf)
		n = 2;
	else if (*p >= 0xe0 && *p <= 0xef)
		n = 3;
	else if (*p >= 0xf0 && *p <= 0xf4)
		n = 4;
	else
		return 0;
	if (*p == 0xe0)
		lo = 0xa0;
	else if (*p == 0xed)
		hi = 0x9f;
	else if (*p == 0xf0)
		lo = 0x90;
	else if (*p == 0xf4)
		hi = 0x8f;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return n;
}

void json_escape(struct strbuf *sb, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	char ascii[2] = {0};

	strbuf_addch(sb, '"');
	/* JSON text is UTF-8 (RFC 8259): a byte that is not part of a
	 * well-formed sequence (a label, --host or path typed in Latin-1, say)
	 * becomes U+FFFD, or no parser would read the document */
	while (*p) {
		size_t n = utf8_len(p);

		if (!n) {
			strbuf_addstr(sb, "\\ufffd");
			p++;
		} else if (n == 1) {
			ascii[0] = (char)*p++;
			strbuf_add_escaped(sb, ascii, &json_escapes);
		} else {
			strbuf_add(sb, (const char *)p, n);
			p += n;
		}
	}
	strbuf_addch(sb, '"');
}

void json_doc_versions(struct json *j)
{
	json_i64(j, "format_version", JSON_FORMAT_VERSION);
	json_str(j, "diskproof_version", DISKPROOF_VERSION);
}
