/* SPDX-License-Identifier: MIT */
/*
 * parse.c - INI text -> validated struct profile.
 *
 * inih does the key = value splitting, fed by our own reader, because the
 * reader is where the facts inih does not give live:
 *   - the line number: the handler for a key is called right after the reader
 *     returned that key's line, so "the current line" is the reader's count;
 *   - long lines: Debian's inih (r55) cuts lines at 200 bytes without a word.
 *     The reader hands inih only lines that fit; a longer one (up to
 *     PROFILE_MAX_LINE) is split here the same way inih would and handed to the
 *     same handler, and inih gets a comment line in its place. Longer lines
 *     are an error;
 *   - section headers: inih reports keys only, and truncates section names at
 *     50 bytes, so an empty "[volume x]" or an unknown empty section would be
 *     invisible. The reader parses headers itself and gives inih a comment;
 *   - lines that are neither blank, comment, header nor key = value, binary
 *     data, a UTF-8 BOM and CRLF endings. Leading blanks are stripped, so
 *     inih's multi-line continuation never applies.
 * Every error is collected with its line; they are sorted by line at the end
 * and written to err one per line, "FILE:LINE: [section] key: message".
 */
#include <errno.h>
#include <ini.h>
#include <stdlib.h>
#include <string.h>

#include "parse_internal.h"

#define MAX_ERRORS 100 /* more than this is noise: the file is not a profile */

static void perr_vadd(struct parse_ctx *c, unsigned line, const char *label, const char *key,
		      const char *fmt, va_list ap) DP_PRINTF(5, 0);
static void perr_vadd(struct parse_ctx *c, unsigned line, const char *label, const char *key,
		      const char *fmt, va_list ap)
{
	struct strbuf sb = STRBUF_INIT;
	struct perr *n;

	if (c->nr_errs == c->alloc_errs) {
		c->alloc_errs = c->alloc_errs ? 2 * c->alloc_errs : 16;
		n = realloc(c->errs, c->alloc_errs * sizeof(*n));
		if (!n) {
			c->oom = true;
			c->alloc_errs = c->nr_errs;
			return;
		}
		c->errs = n;
	}
	strbuf_addf(&sb, "%s:%u: ", c->origin, line ? line : 1);
	if (label && key)
		strbuf_addf(&sb, "%s %s: ", label, key);
	else if (label || key)
		strbuf_addf(&sb, "%s: ", label ? label : key);
	strbuf_vaddf(&sb, fmt, ap);
	c->errs[c->nr_errs].line = line ? line : 1;
	c->errs[c->nr_errs].seq = c->nr_errs;
	c->errs[c->nr_errs].msg = strbuf_detach(&sb, NULL);
	c->nr_errs++;
}

static void perr_add(struct parse_ctx *c, unsigned line, const char *label, const char *key,
		     const char *fmt, ...) DP_PRINTF(5, 6);
static void perr_add(struct parse_ctx *c, unsigned line, const char *label, const char *key,
		     const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	perr_vadd(c, line, label, key, fmt, ap);
	va_end(ap);
}

void profile_parse_error(struct parse_ctx *c, unsigned line, const char *label, const char *key,
			 const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	perr_vadd(c, line, label, key, fmt, ap);
	va_end(ap);
}

static int perr_cmp(const void *a, const void *b)
{
	const struct perr *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int profile_parse_marks_init(struct key_marks *m, size_t n)
{
	m->line = calloc(n, sizeof(*m->line));
	m->state = calloc(n, sizeof(*m->state));
	return m->line && m->state ? 0 : -ENOMEM;
}

void profile_parse_marks_release(struct key_marks *m)
{
	free(m->line);
	free(m->state);
	m->line = NULL;
	m->state = NULL;
}

/* Writes s[0..n) plus "\n" into inih's buffer (n already known to fit). */
static char *emit(char *out, int num, const char *s, size_t n)
{
	if (num < 3) {
		if (num > 0)
			out[0] = '\0';
		return out;
	}
	if (n > (size_t)num - 2)
		n = (size_t)num - 2;
	memcpy(out, s, n);
	out[n] = '\n';
	out[n + 1] = '\0';
	return out;
}

static bool is_blank(char ch)
{
	return ch == ' ' || ch == '\t';
}

/*
 * Where inih would split "key = value": the first '=' or ':' not after an
 * inline comment (a ';' preceded by a blank). n when there is none.
 */
static size_t find_separator(const char *s, size_t n)
{
	bool was_space = false;
	size_t i;

	for (i = 0; i < n; i++) {
		if (s[i] == '=' || s[i] == ':')
			return i;
		if (was_space && s[i] == ';')
			return n;
		was_space = is_blank(s[i]);
	}
	return n;
}

/* Continuation bytes after a UTF-8 lead byte; 0 for a byte that cannot lead. */
static size_t utf8_continuations(unsigned char ch)
{
	if (ch >= 0xc2 && ch <= 0xdf)
		return 1;
	if (ch >= 0xe0 && ch <= 0xef)
		return 2;
	if (ch >= 0xf0 && ch <= 0xf4)
		return 3;
	return 0;
}

/*
 * Rejects bytes a text profile cannot hold: control characters other than
 * tab, DEL, and malformed UTF-8. Returns true (after recording the error)
 * when the line is bad.
 */
static bool line_is_binary(struct parse_ctx *c, const unsigned char *s, size_t n)
{
	size_t i = 0, need, j;

	while (i < n) {
		unsigned char ch = s[i];

		if ((ch < 0x20 && ch != '\t') || ch == 0x7f) {
			perr_add(c, c->lineno, NULL, NULL,
				 "line holds binary data (byte 0x%02x at column %zu): a profile is "
				 "a text file",
				 ch, i + 1);
			return true;
		}
		if (ch < 0x80) {
			i++;
			continue;
		}
		need = utf8_continuations(ch);
		for (j = 1; need && j <= need; j++)
			if (i + j >= n || (s[i + j] & 0xc0) != 0x80)
				need = 0;
		if (!need) {
			perr_add(c, c->lineno, NULL, NULL,
				 "line is not UTF-8 text (byte 0x%02x at column %zu): a profile is "
				 "a text file",
				 ch, i + 1);
			return true;
		}
		i += need + 1;
	}
	return false;
}

static const char *const *key_names(struct parse_ctx *c, const char *section, size_t *n,
				    const char **names, size_t max)
{
	size_t i;

	*n = 0;
	for (i = 0; i < c->nr_keys && *n < max; i++)
		if (!strcmp(c->keys[i].section, section))
			names[(*n)++] = c->keys[i].name;
	return names;
}

static void unknown_key(struct parse_ctx *c, const char *name)
{
	const char *names[64] = {NULL}, *s; /* zeroed: LTO cannot see [0, n) filled */
	struct strbuf other = STRBUF_INIT;
	size_t n, i;

	key_names(c, c->section, &n, names, DP_ARRAY_SIZE(names));
	s = profile_suggest(name, names, n);
	if (s) {
		perr_add(c, c->lineno, c->label.buf, name, "unknown key; did you mean %s?", s);
		return;
	}
	for (i = 0; i < c->nr_keys; i++) {
		if (strcmp(c->keys[i].name, name))
			continue;
		if (!strcmp(c->keys[i].section, "volume"))
			strbuf_addf(&other, "%s[volume NAME]", other.len ? " or " : "");
		else
			strbuf_addf(&other, "%s[%s]", other.len ? " or " : "", c->keys[i].section);
	}
	if (other.len) {
		perr_add(c, c->lineno, c->label.buf, name, "unknown key here; %s belongs in %s",
			 name, other.buf);
	} else {
		strbuf_reset(&other);
		for (i = 0; i < n; i++)
			strbuf_addf(&other, "%s%s", i ? ", " : "", names[i]);
		perr_add(c, c->lineno, c->label.buf, name, "unknown key; the keys of %s are %s",
			 c->kind == SEC_VOLUME ? "[volume NAME]" : c->label.buf, other.buf);
	}
	strbuf_release(&other);
}

/* One "key = value" of the current section. */
static void handle_key(struct parse_ctx *c, const char *name, const char *value)
{
	const struct profile_key *k;
	struct key_marks *m;
	size_t idx;
	void *base;
	int ret;

	if (c->kind == SEC_IGNORE)
		return;
	if (c->kind == SEC_NONE) {
		perr_add(c, c->lineno, NULL, *name ? name : NULL,
			 "key outside any section; put it under a header such as [test]");
		return;
	}
	if (!*name) {
		perr_add(c, c->lineno, c->label.buf, NULL, "no key name before the '='");
		return;
	}
	k = profile_key_find(c->section, name);
	if (!k) {
		unknown_key(c, name);
		return;
	}
	idx = (size_t)(k - c->keys);
	m = c->kind == SEC_VOLUME ? &c->vols[c->vol].marks
	    : c->kind == SEC_SIM  ? &c->sims[c->cur_sim].marks
				  : &c->marks;
	if (m->line[idx]) {
		perr_add(c, c->lineno, c->label.buf, name, "duplicate key; first set on line %u",
			 m->line[idx]);
		return;
	}
	m->line[idx] = c->lineno;
	if (c->kind == SEC_SIM && !strcmp(name, "seed")) {
		m->state[idx] = KEY_BAD;
		perr_add(c, c->lineno, c->label.buf, name,
			 "is set in [sim] only: every simulated device draws from one seed");
		return;
	}
	strbuf_reset(&c->why);
	if (c->kind == SEC_SIM) {
		/* the same entry, moved to a struct profile_sim of the section's
		 * own (profile_key_check holds [sim] keys to profile.sim) */
		struct profile_key kk = *k;

		kk.offset -= offsetof(struct profile, sim);
		ret = profile_key_set(&kk, &c->sims[c->cur_sim].val, value, &c->why);
	} else {
		base = c->kind == SEC_VOLUME ? (void *)&c->p->volumes[c->vol] : (void *)c->p;
		ret = profile_key_set(k, base, value, &c->why);
	}
	m->state[idx] = ret ? KEY_BAD : KEY_OK;
	if (ret == -ENOMEM)
		c->oom = true;
	else if (ret)
		perr_add(c, c->lineno, c->label.buf, name, "%s", c->why.buf);
}

static int on_key(void *user, const char *section, const char *name, const char *value)
{
	handle_key(user, name, value);
	return 1; /* errors are collected, never reported through inih */
}

/* inih's split of a line too long for its buffer: same rules, same handler. */
static void long_key_line(struct parse_ctx *c, const char *s, size_t n, size_t sep)
{
	size_t kend = sep, vstart = sep + 1, vend;
	bool was_space = false;
	char *key, *value;

	while (kend && is_blank(s[kend - 1]))
		kend--;
	for (vend = vstart; vend < n; vend++) {
		if (was_space && s[vend] == ';')
			break;
		was_space = is_blank(s[vend]);
	}
	while (vstart < vend && is_blank(s[vstart]))
		vstart++;
	while (vend > vstart && is_blank(s[vend - 1]))
		vend--;
	key = strndup(s, kend);
	value = strndup(s + vstart, vend - vstart);
	if (key && value)
		handle_key(c, key, value);
	else
		c->oom = true;
	free(key);
	free(value);
}

static bool volume_name_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n >= PROFILE_MAX_NAME || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	return strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") == n;
}

static void begin_volume(struct parse_ctx *c, const char *name)
{
	struct profile *p = c->p;
	struct profile_volume *nv;
	struct vol_state *ns;
	size_t i;

	if (!*name) {
		perr_add(c, c->lineno, c->label.buf, NULL,
			 "missing the volume name; write [volume NAME]");
		return;
	}
	strbuf_reset(&c->label); /* one spelling, so that duplicates compare equal */
	strbuf_addf(&c->label, "[volume %s]", name);
	if (p->nr_volumes == PROFILE_MAX_VOLUMES) {
		perr_add(c, c->lineno, c->label.buf, NULL, "too many volumes; the most is %d",
			 PROFILE_MAX_VOLUMES);
		return;
	}
	if (!volume_name_ok(name))
		perr_add(c, c->lineno, c->label.buf, NULL,
			 "bad volume name \"%s\": use 1 to %d letters, digits, '_', '.' or '-' "
			 "(not \".\" or \"..\")",
			 name, PROFILE_MAX_NAME - 1);
	for (i = 0; i < p->nr_volumes; i++) {
		if (!strcmp(c->vols[i].label, c->label.buf)) {
			perr_add(c, c->lineno, c->label.buf, NULL,
				 "duplicate volume name; first defined on line %u",
				 p->volumes[i].line);
			break;
		}
	}
	nv = realloc(p->volumes, (p->nr_volumes + 1) * sizeof(*nv));
	if (nv)
		p->volumes = nv;
	ns = realloc(c->vols, (p->nr_volumes + 1) * sizeof(*ns));
	if (ns)
		c->vols = ns;
	if (!nv || !ns)
		goto out_oom;
	nv = &p->volumes[p->nr_volumes];
	ns = &c->vols[p->nr_volumes];
	memset(nv, 0, sizeof(*nv));
	memset(ns, 0, sizeof(*ns));
	p->nr_volumes++; /* from here on released with the rest */
	strncpy(nv->name, name, sizeof(nv->name) - 1);
	nv->line = c->lineno;
	ns->label = strdup(c->label.buf);
	if (!ns->label || profile_parse_marks_init(&ns->marks, c->nr_keys))
		goto out_oom;
	for (i = 0; i < c->nr_keys; i++)
		if (!strcmp(c->keys[i].section, "volume") && c->keys[i].def &&
		    profile_key_set(&c->keys[i], nv, c->keys[i].def, &c->why))
			goto out_oom; /* defaults are checked by a unit test */
	c->vol = p->nr_volumes - 1;
	c->kind = SEC_VOLUME;
	c->section = "volume";
	return;
out_oom:
	c->oom = true;
}

/* A line starting with '['. */
static void section_line(struct parse_ctx *c, const char *s, size_t n)
{
	const char *close = memchr(s, ']', n), *in, *in_end, *rest, *word_end, *sugg;
	const char *const *names;
	size_t nr_names, i;
	char *kind = NULL, *arg = NULL;

	c->kind = SEC_IGNORE;
	strbuf_reset(&c->label);
	if (!close) {
		perr_add(c, c->lineno, NULL, NULL,
			 "expected ']' at the end of the section header \"%.*s\"", (int)n, s);
		return;
	}
	in = s + 1;
	in_end = close;
	while (in < in_end && is_blank(*in))
		in++;
	while (in_end > in && is_blank(in_end[-1]))
		in_end--;
	strbuf_addf(&c->label, "[%.*s]", (int)(in_end - in), in);
	for (rest = close + 1; rest < s + n && is_blank(*rest); rest++)
		;
	if (rest < s + n && *rest != ';' && *rest != '#') {
		perr_add(c, c->lineno, c->label.buf, NULL, "unexpected text after ']': \"%.*s\"",
			 (int)(s + n - rest), rest);
		return;
	}
	if (in == in_end) {
		perr_add(c, c->lineno, NULL, NULL, "empty section name \"[]\"");
		return;
	}
	for (word_end = in; word_end < in_end && !is_blank(*word_end); word_end++)
		;
	kind = strndup(in, (size_t)(word_end - in));
	while (word_end < in_end && is_blank(*word_end))
		word_end++;
	arg = strndup(word_end, (size_t)(in_end - word_end));
	if (!kind || !arg) {
		c->oom = true;
		goto out;
	}
	if (!strcmp(kind, "sim-log") || (!strcmp(kind, "sim") && *arg)) {
		profile_sim_section_begin(c, kind, arg, kind[3] == '-');
		goto out;
	}
	names = profile_sections(&nr_names);
	for (i = 0; i < nr_names; i++)
		if (!strcmp(kind, names[i]))
			break;
	if (i == nr_names) {
		sugg = profile_suggest(kind, names, nr_names);
		if (sugg && !strcmp(sugg, "volume"))
			perr_add(c, c->lineno, c->label.buf, NULL,
				 "unknown section; did you mean [volume %s]?", *arg ? arg : "NAME");
		else if (sugg)
			perr_add(c, c->lineno, c->label.buf, NULL,
				 "unknown section; did you mean [%s]?", sugg);
		else
			perr_add(c, c->lineno, c->label.buf, NULL,
				 "unknown section; the sections are [test], [sizing], [workload], "
				 "[thresholds], [engine], [sim], [sim NAME], [sim-log NAME] and "
				 "[volume NAME]");
		goto out;
	}
	if (!strcmp(kind, "volume")) {
		begin_volume(c, arg);
		goto out;
	}
	if (*arg) {
		perr_add(c, c->lineno, c->label.buf, NULL,
			 "[%s] takes no name; only [volume NAME], [sim NAME] and "
			 "[sim-log NAME] do",
			 kind);
		goto out;
	}
	c->kind = SEC_GLOBAL;
	c->section = names[i];
out:
	free(kind);
	free(arg);
}

/*
 * inih's reader: one physical line per call, classified here. Returns the
 * line for inih to split (a key = value that fits), a comment or a blank line
 * in place of what was handled here, or NULL at the end of the text.
 */
static char *reader(char *out, int num, void *stream)
{
	struct parse_ctx *c = stream;
	const char *s, *nl;
	size_t n, sep;

	if (c->pos >= c->len)
		return NULL;
	s = c->text + c->pos;
	nl = memchr(s, '\n', c->len - c->pos);
	n = nl ? (size_t)(nl - s) : c->len - c->pos;
	c->pos += n + (nl ? 1 : 0);
	c->lineno++;
	if (n && s[n - 1] == '\r')
		n--;
	if (c->lineno == 1 && n >= 3 && !memcmp(s, "\xef\xbb\xbf", 3)) {
		s += 3;
		n -= 3;
	}
	if (n > PROFILE_MAX_LINE) {
		perr_add(c, c->lineno, NULL, NULL,
			 "line is %zu characters long; the longest accepted is %d", n,
			 PROFILE_MAX_LINE);
		return emit(out, num, ";", 1);
	}
	if (line_is_binary(c, (const unsigned char *)s, n))
		return emit(out, num, ";", 1);
	while (n && is_blank(*s)) {
		s++;
		n--;
	}
	while (n && is_blank(s[n - 1]))
		n--;
	if (!n)
		return emit(out, num, "", 0);
	if (*s == ';' || *s == '#')
		return emit(out, num, ";", 1);
	if (*s == '[') {
		section_line(c, s, n);
		return emit(out, num, ";", 1);
	}
	sep = find_separator(s, n);
	if (sep == n) {
		perr_add(c, c->lineno, c->kind == SEC_NONE ? NULL : c->label.buf, NULL,
			 "expected `key = value` or `[section]`, not \"%.*s\"", (int)n, s);
		return emit(out, num, ";", 1);
	}
	if (num >= 2 && n <= (size_t)num - 2)
		return emit(out, num, s, n);
	long_key_line(c, s, n, sep);
	return emit(out, num, ";", 1);
}

static void apply_defaults(struct parse_ctx *c)
{
	size_t i;

	for (i = 0; i < c->nr_keys; i++)
		if (strcmp(c->keys[i].section, "volume") && c->keys[i].def &&
		    profile_key_set(&c->keys[i], c->p, c->keys[i].def, &c->why))
			c->oom = true; /* defaults are valid: a unit test checks them */
}

size_t profile_parse_key_index(struct parse_ctx *c, const char *section, const char *name)
{
	return (size_t)(profile_key_find(section, name) - c->keys);
}

static const char *profile_name_from_origin(const char *origin, size_t *len)
{
	const char *base = strrchr(origin, '/');
	size_t n;

	if (!strncmp(origin, "builtin:", 8))
		base = origin + 8;
	else
		base = base ? base + 1 : origin;
	n = strlen(base);
	if (n > 4 && !strcmp(base + n - 4, ".ini"))
		n -= 4;
	*len = n;
	return base;
}

/* Given in the file with a valid value. */
static bool key_given(struct parse_ctx *c, const char *section, const char *name)
{
	size_t i = profile_parse_key_index(c, section, name);

	return c->marks.line[i] != 0 && c->marks.state[i] == KEY_OK;
}

static unsigned key_line(struct parse_ctx *c, const char *section, const char *name)
{
	return c->marks.line[profile_parse_key_index(c, section, name)];
}

/* A size key that must hold whole pages. */
static void check_pages(struct parse_ctx *c, const char *name, uint64_t v)
{
	struct profile *p = c->p;

	if (v >= p->page_size && v % p->page_size == 0)
		return;
	perr_add(c, key_line(c, "workload", name) ? key_line(c, "workload", name) : c->lineno,
		 "[workload]", name, "%llu bytes is not a whole number of pages (page_size = %u)",
		 (unsigned long long)v, p->page_size);
}

/* The InnoDB-like features' keys: which need which. */
static void finish_innodb_features(struct parse_ctx *c)
{
	struct profile *p = c->p;

	/* each key alone at its default is valid (the corpus test): one that
	 * needs another is refused from its value */
	if (p->doublewrite) {
		check_pages(c, "doublewrite_size", p->doublewrite_size);
		if (key_given(c, "workload", "doublewrite_size") &&
		    p->doublewrite_size / p->page_size > 64)
			perr_add(c, key_line(c, "workload", "doublewrite_size"), "[workload]",
				 "doublewrite_size", "is more than 64 pages (page_size = %u)",
				 p->page_size);
	} else if (p->doublewrite_size != 1024 * 1024 /* its default */) {
		perr_add(c, key_line(c, "workload", "doublewrite_size"), "[workload]",
			 "doublewrite_size", "needs doublewrite = on");
	}
	if (p->data_flush == PROFILE_DATA_FLUSH_RATE && !(p->data_flush_rate > 0))
		perr_add(c,
			 key_line(c, "workload", "data_flush")
				 ? key_line(c, "workload", "data_flush")
				 : c->lineno,
			 "[workload]", "data_flush", "rate needs data_flush_rate");
	if (p->data_flush_rate > 0 && p->data_flush != PROFILE_DATA_FLUSH_RATE)
		perr_add(c, key_line(c, "workload", "data_flush_rate"), "[workload]",
			 "data_flush_rate", "needs data_flush = rate");
	if (p->data_flush_count != 1 /* its default */ &&
	    p->data_flush != PROFILE_DATA_FLUSH_PER_BATCH)
		perr_add(c, key_line(c, "workload", "data_flush_count"), "[workload]",
			 "data_flush_count", "needs data_flush = per_batch");
	if (p->cleaner_pages != 100 /* its default */ && !p->cleaner_interval_ns)
		perr_add(c, key_line(c, "workload", "cleaner_pages"), "[workload]", "cleaner_pages",
			 "needs cleaner_interval");
	if (p->cleaner_interval_ns && p->checkpoint_interval_ns)
		perr_add(c, key_line(c, "workload", "cleaner_interval"), "[workload]",
			 "cleaner_interval",
			 "and checkpoint_interval exclude each other (a page cleaner is InnoDB's "
			 "flusher, checkpoints PostgreSQL's)");
	if (p->cleaner_spread && !p->cleaner_interval_ns)
		perr_add(c, key_line(c, "workload", "cleaner_spread"), "[workload]",
			 "cleaner_spread", "needs cleaner_interval");
	if (p->cleaner_interval_ns && p->cleaner_interval_ns < 10 * NSEC_PER_MSEC)
		perr_add(c, key_line(c, "workload", "cleaner_interval"), "[workload]",
			 "cleaner_interval", "is shorter than 10ms");
	if ((p->doublewrite || p->data_flush == PROFILE_DATA_FLUSH_PER_BATCH) &&
	    p->checkpoint_interval_ns)
		perr_add(c, key_line(c, "workload", p->doublewrite ? "doublewrite" : "data_flush"),
			 "[workload]", p->doublewrite ? "doublewrite" : "data_flush",
			 "%s needs the flusher's batches: checkpoint_interval is off",
			 p->doublewrite ? "doublewrite" : "per_batch");
}

/* The PostgreSQL-like features' keys: whole pages, the jetstress model only,
 * and the keys each needs. */
static void finish_pg_features(struct parse_ctx *c)
{
	struct profile *p = c->p;
	static const char *const jet_only[] = {"read_pages",
					       "hot_size",
					       "hot_pct",
					       "cache_size",
					       "readahead_size",
					       "readahead_pct",
					       "checkpoint_interval",
					       "checkpoint_target",
					       "checkpoint_log_size",
					       "write_merge",
					       "writeback_interval",
					       "writeback_age",
					       "writeback_hot",
					       "full_page_writes",
					       "log_page_size",
					       "commit_delay",
					       "commit_group",
					       "doublewrite",
					       "doublewrite_size",
					       "data_flush",
					       "data_flush_rate",
					       "data_flush_count",
					       "cleaner_interval",
					       "cleaner_pages",
					       "log_sync",
					       "cleaner_spread"};

	if (p->model == PROFILE_MODEL_FIXED) {
		for (size_t i = 0; i < DP_ARRAY_SIZE(jet_only); i++)
			if (key_given(c, "workload", jet_only[i]))
				perr_add(
					c, key_line(c, "workload", jet_only[i]), "[workload]",
					jet_only[i],
					"applies to the jetstress model only (model = fixed has no "
					"transactions, cache, log or checkpoints)");
		return;
	}
	if (p->type == PROFILE_TEST_BACKUP || p->type == PROFILE_TEST_RECOVERY) {
		for (size_t i = 0; i < DP_ARRAY_SIZE(jet_only); i++)
			if (key_given(c, "workload", jet_only[i]))
				perr_add(c, key_line(c, "workload", jet_only[i]), "[workload]",
					 jet_only[i],
					 "applies to performance and stress tests only (a %s test "
					 "does not use it)",
					 p->type == PROFILE_TEST_BACKUP ? "backup" : "recovery");
		return;
	}
	if (p->cache_size)
		check_pages(c, "cache_size", p->cache_size);
	if (p->hot_size)
		check_pages(c, "hot_size", p->hot_size);
	/* each key alone at its default is valid (the corpus test holds the
	 * table to that): a key that needs another is refused from its value */
	if (p->hot_pct > 0 && !p->hot_size)
		perr_add(c, key_line(c, "workload", "hot_pct"), "[workload]", "hot_pct",
			 "needs hot_size");
	if (p->readahead_size) {
		check_pages(c, "readahead_size", p->readahead_size);
		if (p->readahead_size / p->page_size > 64)
			perr_add(c, key_line(c, "workload", "readahead_size"), "[workload]",
				 "readahead_size", "is more than 64 pages (page_size = %u)",
				 p->page_size);
	}
	if (p->readahead_pct > 0 && !p->readahead_size)
		perr_add(c, key_line(c, "workload", "readahead_pct"), "[workload]", "readahead_pct",
			 "needs readahead_size");
	if (p->writeback_interval_ns && !p->checkpoint_interval_ns)
		perr_add(c, key_line(c, "workload", "writeback_interval"), "[workload]",
			 "writeback_interval",
			 "needs checkpoint_interval (without checkpoints every page is written "
			 "back at once)");
	if (!p->writeback_hot && (!p->writeback_interval_ns || !p->hot_size))
		perr_add(c, key_line(c, "workload", "writeback_hot"), "[workload]", "writeback_hot",
			 "needs writeback_interval and hot_size");
	if (p->writeback_age_ns && !p->writeback_interval_ns)
		perr_add(c, key_line(c, "workload", "writeback_age"), "[workload]", "writeback_age",
			 "needs writeback_interval");
	if (p->commit_group && !p->commit_delay_ns)
		perr_add(c, key_line(c, "workload", "commit_group"), "[workload]", "commit_group",
			 "needs commit_delay (the longest a log write waits for its commits)");
	if (p->checkpoint_log_size && !p->checkpoint_interval_ns)
		perr_add(c, key_line(c, "workload", "checkpoint_log_size"), "[workload]",
			 "checkpoint_log_size", "needs checkpoint_interval");
	if (key_given(c, "workload", "checkpoint_target") &&
	    p->checkpoint_target_pct != 90 /* its default */ && !p->checkpoint_interval_ns)
		perr_add(c, key_line(c, "workload", "checkpoint_target"), "[workload]",
			 "checkpoint_target", "needs checkpoint_interval");
	if (p->write_merge > 1 && !p->checkpoint_interval_ns)
		perr_add(c, key_line(c, "workload", "write_merge"), "[workload]", "write_merge",
			 "needs checkpoint_interval (only a checkpoint's sorted writes merge)");
	if (p->checkpoint_interval_ns && p->checkpoint_interval_ns < 100 * NSEC_PER_MSEC)
		perr_add(c, key_line(c, "workload", "checkpoint_interval"), "[workload]",
			 "checkpoint_interval", "is shorter than 100ms");
	finish_innodb_features(c);
	if (p->log_page_size && (p->log_page_size % 4096 || p->log_segment_size % p->log_page_size))
		perr_add(c, key_line(c, "workload", "log_page_size"), "[workload]", "log_page_size",
			 "%u bytes is not a multiple of 4 KiB that divides log_segment_size (%u)",
			 p->log_page_size, p->log_segment_size);
}

/* The workload model's keys: which go together, and the derived defaults. */
static void finish_workload(struct parse_ctx *c)
{
	struct profile *p = c->p;
	double mix = p->insert_pct + p->delete_pct + p->replace_pct + p->seek_pct;
	static const char *const fixed_only[] = {"block_size", "read_pct", "pattern"};

	if (p->model == PROFILE_MODEL_FIXED) {
		if (key_given(c, "workload", "block_size")) {
			if (key_given(c, "workload", "page_size") && p->page_size != p->block_size)
				perr_add(c, key_line(c, "workload", "block_size"), "[workload]",
					 "block_size",
					 "%u differs from page_size (%u): in the fixed model every "
					 "I/O is one page; give one of them",
					 p->block_size, p->page_size);
			else
				p->page_size = p->block_size;
		}
		p->block_size = p->page_size;
	} else {
		for (size_t i = 0; i < DP_ARRAY_SIZE(fixed_only); i++)
			if (key_given(c, "workload", fixed_only[i]))
				perr_add(c, key_line(c, "workload", fixed_only[i]), "[workload]",
					 fixed_only[i],
					 "applies to model = fixed only (the jetstress model's "
					 "reads "
					 "and writes follow from its transaction mix); add model = "
					 "fixed or remove the key");
		p->block_size = p->page_size;
		if (mix < 99.999 || mix > 100.001)
			perr_add(c,
				 key_line(c, "workload", "seek_pct")
					 ? key_line(c, "workload", "seek_pct")
				 : key_line(c, "workload", "insert_pct")
					 ? key_line(c, "workload", "insert_pct")
					 : c->lineno,
				 "[workload]", "insert_pct",
				 "insert_pct + delete_pct + replace_pct + seek_pct = %g, not 100",
				 mix);
	}
	if (p->arrival == PROFILE_ARRIVAL_RATE && !(p->rate > 0) &&
	    c->marks.state[profile_parse_key_index(c, "workload", "rate")] != KEY_BAD)
		perr_add(c, key_line(c, "workload", "arrival"), "[workload]", "arrival",
			 "rate needs a rate (transactions per second) greater than 0");
	if (p->arrival != PROFILE_ARRIVAL_RATE && key_given(c, "workload", "rate"))
		perr_add(c, key_line(c, "workload", "rate"), "[workload]", "rate",
			 "applies with arrival = rate only");
	check_pages(c, "bdm_io_size", p->bdm_io_size);
	check_pages(c, "backup_io_size", p->backup_io_size);
	finish_pg_features(c);
	if (key_given(c, "sizing", "log_size")) {
		uint64_t seg = p->log_segment_size;

		if (key_given(c, "workload", "log_segments") &&
		    p->log_size != (uint64_t)p->log_segments * seg)
			perr_add(c, key_line(c, "sizing", "log_size"), "[sizing]", "log_size",
				 "%llu bytes is not log_segments x log_segment_size (%u x %llu); "
				 "give one of log_size and log_segments",
				 (unsigned long long)p->log_size, p->log_segments,
				 (unsigned long long)seg);
		else if (p->log_size % seg || p->log_size / seg < 2)
			perr_add(c, key_line(c, "sizing", "log_size"), "[sizing]", "log_size",
				 "must be at least two log segments and a whole number of them "
				 "(log_segment_size = %llu bytes)",
				 (unsigned long long)seg);
		else
			p->log_segments = (unsigned)(p->log_size / seg);
	} else {
		/* a recovery test's log holds the segments it replays and the one
		 * the log writes on into while the test drains */
		if (p->type == PROFILE_TEST_RECOVERY && !key_given(c, "workload", "log_segments"))
			p->log_segments = (unsigned)p->recovery_segments + 1;
		p->log_size = (uint64_t)p->log_segments * p->log_segment_size;
	}
	if (p->log_record_size > p->log_segment_size)
		perr_add(c, key_line(c, "workload", "log_record_size"), "[workload]",
			 "log_record_size", "is larger than a log segment (%u bytes)",
			 p->log_segment_size);
}

/* A [sizing] key given in the file, with another that it rules out. */
static void sizing_conflict(struct parse_ctx *c, const char *key, const char *other,
			    const char *why)
{
	perr_add(c, key_line(c, "sizing", key), "[sizing]", key,
		 "conflicts with %s (line %u): %s; give one of them", other,
		 key_line(c, "sizing", other), why);
}

/*
 * Jetstress-style sizing. With mailboxes, the databases hold mailboxes x
 * mailbox_size bytes between them (each rounded up to whole pages) and the
 * run's target is mailboxes x iops_per_mailbox x (1 + headroom) transactional
 * IOPS, rounded up to a whole IOPS (a difference under 1e-6 is floating-point
 * noise, not a fraction to round up). The keys these derive are not given
 * alongside: an explicit database_size or target_iops with mailboxes is an
 * error naming both, as is database_size or mailbox_size with capacity
 * (plan_build() sizes the databases from the free space then). Without
 * mailboxes, iops_per_mailbox, mailbox_size and headroom are unused (every
 * key is valid alone: the corpus test holds the table to that). Runs after
 * finish_workload(): the fixed model may have changed page_size.
 */
static void finish_sizing(struct parse_ctx *c)
{
	struct profile *p = c->p;
	unsigned ndb = profile_database_count(p);
	bool capacity = p->capacity_pct > 0;
	unsigned mline = key_line(c, "sizing", "mailboxes");
	uint64_t total, per;
	double iops;

	if (c->marks.state[profile_parse_key_index(c, "sizing", "mailboxes")] == KEY_BAD)
		return; /* reported; what follows would only repeat it */
	if (capacity && key_given(c, "sizing", "database_size"))
		sizing_conflict(c, "database_size", "capacity",
				"with capacity the databases share the volume's free space");
	if (!p->mailboxes)
		return; /* iops_per_mailbox, mailbox_size, headroom: unused */
	if (key_given(c, "sizing", "database_size"))
		sizing_conflict(c, "database_size", "mailboxes",
				"with mailboxes each database holds mailboxes x mailbox_size "
				"/ databases");
	if (key_given(c, "sizing", "target_iops"))
		sizing_conflict(c, "target_iops", "mailboxes",
				"with mailboxes the target is mailboxes x iops_per_mailbox x "
				"(1 + headroom)");
	if (capacity && key_given(c, "sizing", "mailbox_size"))
		sizing_conflict(c, "mailbox_size", "capacity",
				"both size the databases (by mailboxes, or by free space)");

	if (p->iops_per_mailbox > 0) {
		iops = (double)p->mailboxes * p->iops_per_mailbox * (1 + p->headroom_pct / 100);
		p->target_iops = (uint64_t)iops;
		if (iops - (double)p->target_iops > 1e-6)
			p->target_iops++;
	} else if (c->marks.state[profile_parse_key_index(c, "sizing", "iops_per_mailbox")] !=
		   KEY_BAD) {
		perr_add(c, mline, "[sizing]", "mailboxes",
			 "needs iops_per_mailbox greater than 0 (the transactional IOPS one "
			 "mailbox needs, e.g. 0.06)");
	}

	if (capacity || !ndb)
		return;
	if (!p->mailbox_size) {
		if (c->marks.state[profile_parse_key_index(c, "sizing", "mailbox_size")] != KEY_BAD)
			perr_add(c, mline, "[sizing]", "mailboxes",
				 "needs mailbox_size (e.g. 2GiB) to size the databases, or "
				 "capacity to size them from the free space");
		return;
	}
	total = p->mailboxes <= UINT64_MAX / p->mailbox_size ? p->mailboxes * p->mailbox_size : 0;
	per = total / ndb + (total % ndb != 0);
	if (!total || per > PROFILE_SIZE_MAX) {
		perr_add(c, mline, "[sizing]", "mailboxes",
			 "%llu mailboxes x mailbox_size over %u database(s) is more than the "
			 "16 TiB a database may hold; add databases",
			 (unsigned long long)p->mailboxes, ndb);
		return;
	}
	p->database_size = (per + p->page_size - 1) / p->page_size * p->page_size;
}

/* An error already reported at line (0: none). */
static bool line_has_error(struct parse_ctx *c, unsigned line)
{
	for (size_t i = 0; line && i < c->nr_errs; i++)
		if (c->errs[i].line == line)
			return true;
	return false;
}

/*
 * The rules over several keys (rules.c), each reported at the first of its
 * keys that the file sets (a rule checked after the options,
 * profile_apply_overrides, waits for them). A rule one of whose keys is bad, or already has an
 * error (log_size that is not whole segments leaves log_segments unknown), is
 * not checked: it would only repeat that error.
 */
static void finish_rules(struct parse_ctx *c)
{
	struct strbuf label = STRBUF_INIT;
	size_t n, i, k;
	const struct profile_rule *rules = profile_rules(&n);

	for (i = 0; i < n; i++) {
		const struct profile_rule *r = &rules[i];
		const struct profile_rule_key *at = NULL;
		bool skip = false;

		for (k = 0; k < PROFILE_RULE_KEYS && r->keys[k].section; k++) {
			size_t idx =
				profile_parse_key_index(c, r->keys[k].section, r->keys[k].name);

			if (c->marks.state[idx] == KEY_BAD || line_has_error(c, c->marks.line[idx]))
				skip = true;
			if (!at && c->marks.line[idx])
				at = &r->keys[k];
		}
		strbuf_reset(&c->why);
		if (skip || r->after_options || !r->broken(c->p, &c->why))
			continue;
		if (!at)
			at = &r->keys[0];
		strbuf_reset(&label);
		strbuf_addf(&label, "[%s]", at->section);
		perr_add(c, key_line(c, at->section, at->name), label.buf, at->name, "%s",
			 c->why.buf);
	}
	strbuf_release(&label);
}

/* Every volume's directories must hold the files derived in them. */
static void finish_paths(struct parse_ctx *c)
{
	struct profile *p = c->p;
	size_t path = profile_parse_key_index(c, "volume", "path"),
	       log = profile_parse_key_index(c, "volume", "log_path");
	unsigned last = 0;

	for (size_t i = 0; i < p->nr_volumes; i++) {
		struct profile_volume *v = &p->volumes[i];
		struct key_marks *m = &c->vols[i].marks;

		last += v->databases;
		strbuf_reset(&c->why);
		if (v->path && m->state[path] == KEY_OK &&
		    profile_path_check(v->path, last, &c->why))
			perr_add(c, m->line[path], c->vols[i].label, "path", "%s", c->why.buf);
		strbuf_reset(&c->why);
		if (v->log_path && m->state[log] == KEY_OK &&
		    profile_path_check(v->log_path, last, &c->why))
			perr_add(c, m->line[log], c->vols[i].label, "log_path", "%s", c->why.buf);
	}
}

/* Checks that involve several keys, and the defaults that depend on others. */
static void finish(struct parse_ctx *c)
{
	struct profile *p = c->p;
	struct profile_thresholds *t = &p->thresholds;
	size_t dur = profile_parse_key_index(c, "test", "duration"),
	       warm = profile_parse_key_index(c, "test", "warmup");
	size_t dbs = profile_parse_key_index(c, "sizing", "database_size"),
	       pg = profile_parse_key_index(c, "workload", "page_size");
	size_t rmax = profile_parse_key_index(c, "thresholds", "db_read_max");
	size_t lmax = profile_parse_key_index(c, "thresholds", "log_write_max");
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	const char *base;
	size_t i, n;

	if (!p->nr_volumes)
		perr_add(c, c->lineno, NULL, NULL,
			 "no [volume NAME] section: a profile needs at least one volume");
	for (i = 0; i < p->nr_volumes; i++) {
		struct profile_volume *v = &p->volumes[i];

		if (!v->path) {
			perr_add(c, v->line, c->vols[i].label, "path",
				 "missing (every volume needs a path)");
			continue;
		}
		if (!v->log_path) {
			v->log_path = strdup(v->path);
			if (!v->log_path)
				c->oom = true;
		}
	}

	if (!c->marks.line[dur] && p->type == PROFILE_TEST_STRESS)
		p->duration_ns = PROFILE_STRESS_DURATION;
	/* The lenient set relaxes the two maxima only: averages, errors and the
	 * optional p99, window and dispersion criteria stay (docs/verdicts.md). */
	t->lenient = p->type == PROFILE_TEST_STRESS || p->duration_ns > PROFILE_LENIENT_AFTER;
	t->db_read_max_set = c->marks.line[rmax] != 0;
	t->log_write_max_set = c->marks.line[lmax] != 0;
	t->page_fault_stalls_set = key_given(c, "thresholds", "page_fault_stalls");
	if (t->lenient && !t->db_read_max_set)
		t->db_read_max_ns = PROFILE_LENIENT_MAX_NS;
	if (t->lenient && !t->log_write_max_set)
		t->log_write_max_ns = PROFILE_LENIENT_MAX_NS;

	if (c->marks.state[dur] != KEY_BAD && c->marks.state[warm] == KEY_OK &&
	    p->warmup_ns > p->duration_ns) {
		profile_format_duration_exact(&a, p->warmup_ns);
		profile_format_duration_exact(&b, p->duration_ns);
		perr_add(c, c->marks.line[warm], "[test]", "warmup",
			 "%s is longer than the duration (%s)", a.buf, b.buf);
	}
	if (c->marks.state[dbs] != KEY_BAD && c->marks.state[pg] != KEY_BAD &&
	    (p->database_size < p->page_size || p->database_size % p->page_size)) {
		strbuf_reset(&a);
		strbuf_reset(&b);
		unit_format_size(&a, p->database_size);
		unit_format_size(&b, p->page_size);
		perr_add(c, c->marks.line[dbs] ? c->marks.line[dbs] : c->marks.line[pg],
			 c->marks.line[dbs] ? "[sizing]" : "[workload]",
			 c->marks.line[dbs] ? "database_size" : "page_size",
			 p->database_size < p->page_size
				 ? "%s is smaller than one page (page_size = %s)"
				 : "%s is not a multiple of the page size (%s)",
			 a.buf, b.buf);
	}
	strbuf_release(&a);
	strbuf_release(&b);
	finish_workload(c);
	finish_sizing(c);
	finish_rules(c);
	finish_paths(c);
	profile_sim_sections_finish(c);

	if (!p->name) {
		base = profile_name_from_origin(c->origin, &n);
		p->name = strndup(base, n);
		if (!p->name)
			c->oom = true;
	}
}

/* Sorted errors into err, one per line; the tail beyond MAX_ERRORS summarized. */
static void flush_errors(struct parse_ctx *c, struct strbuf *err)
{
	size_t i;

	qsort(c->errs, c->nr_errs, sizeof(*c->errs), perr_cmp);
	for (i = 0; i < c->nr_errs && i < MAX_ERRORS; i++)
		strbuf_addf(err, "%s%s", i ? "\n" : "", c->errs[i].msg);
	if (c->nr_errs > MAX_ERRORS)
		strbuf_addf(err, "\n%s: %zu more errors not shown", c->origin,
			    c->nr_errs - MAX_ERRORS);
}

static void ctx_release(struct parse_ctx *c)
{
	size_t i;

	for (i = 0; i < c->nr_errs; i++)
		free(c->errs[i].msg);
	free(c->errs);
	if (c->vols) {
		for (i = 0; i < c->p->nr_volumes; i++) {
			profile_parse_marks_release(&c->vols[i].marks);
			free(c->vols[i].label);
		}
		free(c->vols);
	}
	profile_sim_sections_release(c);
	profile_parse_marks_release(&c->marks);
	strbuf_release(&c->label);
	strbuf_release(&c->why);
}

int profile_parse(struct profile *p, const char *origin, const char *text, size_t len,
		  struct strbuf *err)
{
	struct parse_ctx c;
	int ret = 0;

	memset(p, 0, sizeof(*p));
	memset(&c, 0, sizeof(c));
	c.p = p;
	c.origin = origin ? origin : "(profile)";
	c.text = text;
	c.len = len;
	c.kind = SEC_NONE;
	strbuf_init(&c.label);
	strbuf_init(&c.why);
	c.keys = profile_keys(&c.nr_keys);
	if (profile_parse_marks_init(&c.marks, c.nr_keys)) {
		ret = -ENOMEM;
		goto out;
	}
	apply_defaults(&c);
	if (ini_parse_stream(reader, &c, on_key, &c) < 0)
		c.oom = true;
	finish(&c);
	if (c.oom) {
		strbuf_addf(err, "%s: out of memory while reading the profile", c.origin);
		ret = -ENOMEM;
	} else if (c.nr_errs) {
		flush_errors(&c, err);
		ret = -EINVAL;
	} else {
		p->origin = strdup(c.origin);
		p->text = malloc(len + 1);
		/* the lines stay, for messages about the options */
		p->key_lines = c.marks.line;
		c.marks.line = NULL;
		for (size_t i = 0; i < p->nr_volumes; i++) {
			p->volumes[i].key_lines = c.vols[i].marks.line;
			c.vols[i].marks.line = NULL;
		}
		if (!p->origin || !p->text) {
			ret = -ENOMEM;
		} else {
			memcpy(p->text, text, len);
			p->text[len] = '\0';
		}
	}
out:
	ctx_release(&c);
	if (ret)
		profile_release(p);
	return ret;
}
