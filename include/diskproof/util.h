/* SPDX-License-Identifier: MIT */
/*
 * util.h - small shared pieces: a growable string buffer for error messages and
 * text output, unit parsing (durations, sizes, percentages) and time helpers.
 *
 * strbuf invariants (after git's strbuf.h):
 *   - after strbuf_init(), sb->buf is never NULL and is always NUL-terminated;
 *   - sb->len is the length of the text, sb->alloc the bytes allocated (0 when
 *     buf points at the shared empty string);
 *   - strbuf_release() frees the storage and re-initializes the buffer; it is
 *     safe to call on a released buffer.
 * Allocation failure inside a strbuf is fatal (abort): error text that cannot be
 * built cannot be reported either.
 */
#ifndef DISKPROOF_UTIL_H
#define DISKPROOF_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DP_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#define DP_MUST_CHECK __attribute__((warn_unused_result))
#define DP_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct strbuf {
	size_t alloc;
	size_t len;
	char *buf;
};

#define STRBUF_INIT                                                                                \
	{                                                                                          \
		0, 0, (char *)strbuf_empty                                                         \
	}
extern const char strbuf_empty[1];

void strbuf_init(struct strbuf *sb);
void strbuf_release(struct strbuf *sb);
void strbuf_reset(struct strbuf *sb);
void strbuf_grow(struct strbuf *sb, size_t extra);
void strbuf_add(struct strbuf *sb, const void *data, size_t len);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, char c);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) DP_PRINTF(2, 3);
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap) DP_PRINTF(2, 0);
/*
 * How strbuf_add_escaped() rewrites the bytes of a string: a byte below 0x80
 * with a `named` entry becomes that text; any other byte below 0x20 (and
 * 0x7f when `del`) becomes `hex_prefix` and two hex digits, unless
 * hex_prefix is NULL; every other byte is copied as it is. The JSON, HTML,
 * terminal and CSV escapers are such tables.
 */
struct strbuf_escapes {
	const char *const *named; /* 0x80 entries, NULL: none */
	const char *hex_prefix;
	bool del;
};
void strbuf_add_escaped(struct strbuf *sb, const char *s, const struct strbuf_escapes *e);
/* Hands the storage to the caller (free() it) and re-initializes sb. */
char *strbuf_detach(struct strbuf *sb, size_t *len);

/* The columns s[0..len) takes on a terminal: its bytes less the ANSI
 * escape sequences in it (ESC [ ... final letter), which take none. */
size_t strbuf_vis_width(const char *s, size_t len);
/*
 * Every line of sb from byte `from` on that takes more than width columns
 * (strbuf_vis_width) is broken at its last space within width, never inside
 * a word or a number; the lines it continues on are indented two columns
 * more than the line's own indent. A line with no space to break at within
 * width breaks at its first space after (a word longer than the width stays
 * whole). width 0: nothing changes.
 */
void strbuf_wrap_lines(struct strbuf *sb, size_t from, size_t width);

/*
 * Unit parsing. Each returns 0 on success or -EINVAL / -ERANGE, and on error
 * writes a short reason (no location) into err when err is not NULL.
 *   durations: "500ms", "30s", "5m", "2h", "1d"; a bare number is seconds.
 *              "us" and "ns" are accepted too. Result in nanoseconds.
 *   sizes:     "32KiB", "1MiB", "4GiB", "1TiB", "512B", plain bytes; also KB/MB/GB
 *              (powers of 1000) and K/M/G (powers of 1024, as fio reads them).
 *   percent:   "70" or "70%", 0..100, decimals allowed; result in [0, 100].
 *   u64:       plain non-negative decimal integer.
 *   double:    plain decimal number (no inf/nan).
 *   bool:      on/off, true/false, yes/no, 1/0.
 * Leading and trailing blanks are ignored; anything else is an error.
 */
int unit_parse_duration(const char *s, uint64_t *ns, struct strbuf *err);
int unit_parse_size(const char *s, uint64_t *bytes, struct strbuf *err);
int unit_parse_percent(const char *s, double *pct, struct strbuf *err);
int unit_parse_u64(const char *s, uint64_t *v, struct strbuf *err);
int unit_parse_double(const char *s, double *v, struct strbuf *err);
int unit_parse_bool(const char *s, bool *v, struct strbuf *err);

/* Formats for humans: "1.5 GiB", "2h 0m 0s" / "30s" / "500ms". */
void unit_format_size(struct strbuf *sb, uint64_t bytes);
void unit_format_duration(struct strbuf *sb, uint64_t ns);

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t time_mono_ns(void);
/* CLOCK_REALTIME in nanoseconds since the epoch. */
uint64_t time_real_ns(void);
/* "2026-11-29T22:12:08Z" (UTC, seconds precision) into sb. */
void time_format_iso8601(struct strbuf *sb, uint64_t real_ns);
/* "2026-11-29T22:12:08.123Z" (UTC, milliseconds) of unix_ms, ms since the
 * Unix epoch, into sb: the results file's time_utc columns and the CSV's. */
void time_format_utc_ms(struct strbuf *sb, uint64_t unix_ms);
/* "2026-11-29T22:12:08.123456Z" (UTC, microseconds) of real_ns, ns since
 * the Unix epoch, into sb: run.start_at and run.load_started_at. */
void time_format_utc_us(struct strbuf *sb, uint64_t real_ns);

/*
 * run --start-at TIME: an RFC 3339 instant in UTC ("2026-12-03T16:00:00Z",
 * fractional seconds to the nanosecond allowed, "+00:00" or "-00:00" for
 * "Z", 't'/'z' in lower case too) into *abs_ns (ns since the epoch, *rel_ns
 * 0), or "+DURATION" (unit_parse_duration's syntax, "+30s") into *rel_ns
 * (more than 0; *abs_ns 0), counted by the caller from the command's start.
 * 0, or -EINVAL with the reason in err (no "TIME:" prefix). Other offsets
 * are refused: every host of a fleet must read the same instant.
 */
/* An RFC 3339 UTC time (Z, z or +00:00; a fraction to the nanosecond) to
 * ns since the Unix epoch: 0, or -EINVAL with the reason in err. */
int time_parse_rfc3339(const char *s, uint64_t *abs_ns, struct strbuf *err);
int time_parse_start_at(const char *s, uint64_t *abs_ns, uint64_t *rel_ns, struct strbuf *err);

/*
 * Paths (path.c). Strings in, strings out; "looks" means the function stats
 * or resolves on the filesystem.
 *   path_join:     "DIR/NAMEEXT" (one '/' between, whatever DIR ends with;
 *                  "" joins as "NAMEEXT"; ext may be NULL), malloc'ed:
 *                  the caller frees it; NULL only when memory runs out.
 *   path_dirname:  the directory part into out (reset first): "a/b" -> "a",
 *                  "/b" -> "/", "b" -> ".".
 *   path_nearest_existing (looks): path itself when it exists, else its
 *                  nearest existing ancestor ("." for a relative name with
 *                  nothing above it), into out; 0, -ENAMETOOLONG, or -errno of
 *                  a stat that failed for another reason than ENOENT/ENOTDIR
 *                  (out then holds the path that could not be read).
 *   path_resolve (looks): realpath(path), or for a path not there yet its
 *                  directory's realpath and its name; malloc'ed, the caller
 *                  frees it; NULL (errno set) when even that cannot be had.
 *   path_same (looks): both resolve, to the same name.
 *   path_is_under: path is dir or inside it, by name ("/a" covers "/a/b" and
 *                  "/a", not "/ab"); "/" covers everything.
 */
char *path_join(const char *dir, const char *name, const char *ext);
void path_dirname(const char *path, struct strbuf *out);
int path_nearest_existing(const char *path, char *out, size_t len);
char *path_resolve(const char *path);
bool path_same(const char *a, const char *b);
bool path_is_under(const char *dir, const char *path);

/* Levenshtein distance, for did-you-mean suggestions (short strings only). */
unsigned util_edit_distance(const char *a, const char *b);

#define NSEC_PER_SEC 1000000000ULL
#define NSEC_PER_MSEC 1000000ULL
#define NSEC_PER_USEC 1000ULL

#endif
