/* SPDX-License-Identifier: MIT */
/*
 * json.h - the one JSON writer: every JSON document diskproof prints (report,
 * compare and plan --format json) is written through it, so nesting, commas,
 * indentation, number formats, null and string escaping live in one place.
 *
 * Layout. Items of a pretty container stand one a line, indented two spaces a
 * level; a container opened _flat keeps itself and everything inside it on
 * one line, items separated by ", " (the leaves of a report, or a whole plan
 * document when the root is flat). An empty container is "{}" or "[]".
 * Keys and values are separated by ": ". The writer appends no newline after
 * the root: the caller does, if it wants one.
 *
 * Values. `key` is the member's name inside an object and NULL inside an
 * array (and for the root). A NULL string and a number that is not finite
 * are written null (JSON has no nan or inf). Numbers are written as the
 * caller says: json_fixed with a number of decimals (%.*f), json_sig with a
 * number of significant digits (%.*g), integers exactly.
 *
 * The writer does not own the strbuf; it holds no memory of its own, so there
 * is nothing to release. Nesting deeper than JSON_MAX_DEPTH is a bug of the
 * caller (assert).
 */
#ifndef DISKPROOF_JSON_H
#define DISKPROOF_JSON_H

#include <stdbool.h>
#include <stdint.h>

#include "diskproof/util.h"

#define JSON_MAX_DEPTH 63

/*
 * The version of the JSON documents' layout (docs/json.md): raised when a key
 * of any document changes its name, type, shape or meaning, or goes away;
 * never for a key added. Tools check it before they read a document.
 */
#define JSON_FORMAT_VERSION 1

struct json {
	struct strbuf *sb;
	unsigned depth;
	unsigned flat_depth; /* from this depth on, items stay on one line; 0: none */
	uint64_t arrays;     /* bit d: the container at depth d + 1 is an array */
	bool need_comma;
};

#define JSON_INIT(sbp)                                                                             \
	{                                                                                          \
		.sb = (sbp)                                                                        \
	}

void json_begin_object(struct json *j, const char *key);
void json_begin_array(struct json *j, const char *key);
/* A container written on one line with all it holds. */
void json_begin_object_flat(struct json *j, const char *key);
void json_begin_array_flat(struct json *j, const char *key);
/* Closes the innermost open container with its own bracket. */
void json_end(struct json *j);

void json_str(struct json *j, const char *key, const char *v); /* NULL: null */
void json_null(struct json *j, const char *key);
void json_bool(struct json *j, const char *key, bool v);
void json_u64(struct json *j, const char *key, uint64_t v);
void json_i64(struct json *j, const char *key, int64_t v);
/* v with `decimals` decimals (%.*f): 7200.000; null when not finite. */
void json_fixed(struct json *j, const char *key, double v, int decimals);
/* v with at most `digits` significant digits (%.*g): 0.05, 1e+07,
 * 0.059999999999999998 for 17; null when not finite. */
void json_sig(struct json *j, const char *key, double v, int digits);

/* Appends s (NULL: "") as a JSON string literal, quotes included: '"', '\\'
 * and the control characters below 0x20 escaped (\n, \r, \t by name, the
 * others as \u00XX); every other byte as it is. */
void json_escape(struct strbuf *sb, const char *s);

/* The members every document begins with: "format_version"
 * (JSON_FORMAT_VERSION) and "diskproof_version" (DISKPROOF_VERSION, as
 * --version prints it). */
void json_doc_versions(struct json *j);

#endif
