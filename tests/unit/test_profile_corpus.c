/* SPDX-License-Identifier: MIT */
/*
 * test_profile_corpus.c - the bad-input corpus of the profile parser, driven by
 * the key table: for every key a minimal valid profile plus that key with a
 * bad unit, an out-of-range value, a negative value, an overflowing number, an
 * empty value and a duplicate, each checked for its exact message
 * "corpus.ini:LINE: [SECTION] KEY: why"; then an over-long line, binary
 * garbage (fixed seeds, several sizes) and a 100 MiB file, which must be
 * refused from its size alone.
 *
 * The expected reasons are spelled out here rather than taken from the
 * library, so that a change of wording is a visible change of this test.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "diskproof/profile.h"

#define ORIGIN "corpus.ini"
#define VOL_PATH "path = /d\n"
#define OVERFLOW "99999999999999999999999"

static const struct profile_key *keys;
static size_t nr_keys;

static int setup(void **state)
{
	keys = profile_keys(&nr_keys);
	return nr_keys ? 0 : -1;
}

static bool is_volume(const struct profile_key *k)
{
	return !strcmp(k->section, "volume");
}

static bool is_numeric(const struct profile_key *k)
{
	return k->type == PROFILE_KEY_DURATION || k->type == PROFILE_KEY_SIZE ||
	       k->type == PROFILE_KEY_PERCENT || k->type == PROFILE_KEY_U64;
}

/* "[test]", "[volume v1]": the section as messages show it. */
static void section_label(struct strbuf *sb, const struct profile_key *k)
{
	if (is_volume(k))
		strbuf_addstr(sb, "[volume v1]");
	else
		strbuf_addf(sb, "[%s]", k->section);
}

/*
 * A minimal valid profile with "KEY = value" (or "KEY =" for an empty
 * value) nr times, after pad filler lines (comments and blanks) that move
 * the key off line 2. Returns the line of the first KEY.
 */
static unsigned build(struct strbuf *text, const struct profile_key *k, const char *value,
		      unsigned pad, unsigned nr)
{
	static const char *const filler[] = {"; comment\n", "\n", "# comment\n", "  \t\n"};
	unsigned i;

	for (i = 0; i < pad; i++)
		strbuf_addstr(text, filler[i % DP_ARRAY_SIZE(filler)]);
	section_label(text, k);
	strbuf_addch(text, '\n');
	for (i = 0; i < nr; i++)
		strbuf_addf(text, "%s =%s%s\n", k->name, *value ? " " : "", value);
	/* keys that need another one: after the key, so its line stays */
	if (!strcmp(k->section, "workload") &&
	    (!strcmp(k->name, "block_size") || !strcmp(k->name, "read_pct") ||
	     !strcmp(k->name, "pattern")))
		strbuf_addstr(text, "model = fixed\n");
	if (!strcmp(k->section, "workload") && !strcmp(k->name, "rate"))
		strbuf_addstr(text, "arrival = rate\n");
	if (!is_volume(k))
		strbuf_addstr(text, "[volume v1]\n" VOL_PATH);
	else if (strcmp(k->name, "path"))
		strbuf_addstr(text, VOL_PATH);
	return pad + 2;
}

/* Line n (0-based) of err, or NULL. */
static const char *err_line(const char *err, size_t n, size_t *len)
{
	const char *s = err, *e;

	while (n--) {
		s = strchr(s, '\n');
		if (!s)
			return NULL;
		s++;
	}
	e = strchr(s, '\n');
	*len = e ? (size_t)(e - s) : strlen(s);
	return s;
}

static size_t err_lines(const char *err)
{
	size_t n = *err ? 1 : 0;

	for (; *err; err++)
		n += *err == '\n';
	return n;
}

/*
 * Parses text and expects -EINVAL with exactly the error lines want[0..n)
 * (in order), nothing kept in p. ctx names the case in failure messages.
 */
static void expect_lines(const char *ctx, const char *text, const char *const *want, size_t n)
{
	struct strbuf err = STRBUF_INIT;
	struct profile p;
	const char *line;
	size_t i, len;
	int ret;

	ret = profile_parse(&p, ORIGIN, text, strlen(text), &err);
	if (ret != -EINVAL)
		fail_msg("%s: profile_parse returned %d, want -EINVAL; text:\n%s\nerr:\n%s", ctx,
			 ret, text, err.buf);
	if (err_lines(err.buf) != n)
		fail_msg("%s: %zu error lines, want %zu; text:\n%s\nerr:\n%s", ctx,
			 err_lines(err.buf), n, text, err.buf);
	for (i = 0; i < n; i++) {
		line = err_line(err.buf, i, &len);
		if (!line || len != strlen(want[i]) || memcmp(line, want[i], len))
			fail_msg("%s: error line %zu is\n  %.*s\nwant\n  %s", ctx, i + 1,
				 line ? (int)len : 0, line ? line : "", want[i]);
	}
	assert_null(p.volumes);
	assert_null(p.name);
	assert_null(p.text);
	profile_release(&p);
	strbuf_release(&err);
}

/*
 * One bad value of key k: the profile must fail with exactly one error,
 * "corpus.ini:LINE: [SECTION] KEY: why" (plus, for a required key whose value
 * was refused, the section's "missing" error, which comes first by line).
 */
static void expect_bad(const struct profile_key *k, const char *value, unsigned pad,
		       const char *why)
{
	struct strbuf text = STRBUF_INIT, msg = STRBUF_INIT, missing = STRBUF_INIT,
		      ctx = STRBUF_INIT, label = STRBUF_INIT;
	const char *want[2];
	unsigned line;

	line = build(&text, k, value, pad, 1);
	section_label(&label, k);
	strbuf_addf(&ctx, "%s %s = \"%s\"", label.buf, k->name, value);
	strbuf_addf(&msg, ORIGIN ":%u: %s %s: %s", line, label.buf, k->name, why);
	if (k->required) {
		strbuf_addf(&missing, ORIGIN ":%u: %s %s: missing (every volume needs a %s)",
			    line - 1, label.buf, k->name, k->name);
		want[0] = missing.buf;
		want[1] = msg.buf;
		expect_lines(ctx.buf, text.buf, want, 2);
	} else {
		want[0] = msg.buf;
		expect_lines(ctx.buf, text.buf, want, 1);
	}
	strbuf_release(&text);
	strbuf_release(&msg);
	strbuf_release(&missing);
	strbuf_release(&ctx);
	strbuf_release(&label);
}

/* "performance or stress", "a, b or c": how the parser lists choices. */
static void add_choices(struct strbuf *sb, const char *const *c)
{
	size_t i, n = 0;

	while (c[n])
		n++;
	for (i = 0; i < n; i++)
		strbuf_addf(sb, "%s%s", i == 0 ? "" : i + 1 == n ? " or " : ", ", c[i]);
}

#define DURATION_HINT "expected a number followed by ms, s, m, h or d"
#define SIZE_HINT "expected a number followed by B, KiB, MiB, GiB or TiB (or KB, MB, GB, TB)"
#define PERCENT_HINT "expected a number from 0 to 100, optionally followed by %"
#define U64_HINT "expected a whole number such as 42"
#define BOOL_HINT "expected on/off, true/false, yes/no or 1/0"

static void test_bad_unit(void **state)
{
	static const char *const bad[] = {
		[PROFILE_KEY_DURATION] = "5x",	      [PROFILE_KEY_SIZE] = "12 parsecs",
		[PROFILE_KEY_PERCENT] = "70 percent", [PROFILE_KEY_U64] = "ten",
		[PROFILE_KEY_BOOL] = "maybe",	      [PROFILE_KEY_CHOICE] = "nosuch",
		[PROFILE_KEY_NUMBER] = "1.5 tps",
	};
	struct strbuf why = STRBUF_INIT;
	size_t i, checked = 0;

	for (i = 0; i < nr_keys; i++) {
		const struct profile_key *k = &keys[i];
		const char *v = bad[k->type];

		if (k->type == PROFILE_KEY_STRING)
			continue; /* any text is a string */
		strbuf_reset(&why);
		switch (k->type) {
		case PROFILE_KEY_DURATION:
			strbuf_addf(&why, "bad duration \"%s\": " DURATION_HINT, v);
			break;
		case PROFILE_KEY_SIZE:
			strbuf_addf(&why, "bad size \"%s\": " SIZE_HINT, v);
			break;
		case PROFILE_KEY_PERCENT:
			strbuf_addf(&why, "bad percentage \"%s\": %s", v, PERCENT_HINT);
			break;
		case PROFILE_KEY_U64:
			strbuf_addf(&why, "bad number \"%s\": " U64_HINT, v);
			break;
		case PROFILE_KEY_BOOL:
			strbuf_addf(&why, "bad boolean \"%s\": " BOOL_HINT, v);
			break;
		case PROFILE_KEY_CHOICE:
			strbuf_addf(&why, "\"%s\" is not one of ", v);
			add_choices(&why, k->choices);
			break;
		case PROFILE_KEY_NUMBER:
			strbuf_addf(&why, "\"%s\" is not a number; expected a number such as 1.5",
				    v);
			break;
		default:
			fail();
		}
		expect_bad(k, v, (unsigned)(i % 5), why.buf);
		checked++;
	}
	assert_true(checked >= nr_keys / 2);
	strbuf_release(&why);
}

/* A unit of durations or sizes, for writing a bound as a profile would. */
struct unit {
	const char *name;  /* as a profile writes it */
	const char *human; /* as unit_format_size() prints it ("" for durations) */
	uint64_t mult;
};

static const struct unit duration_units[] = {
	{"d", "", 86400 * NSEC_PER_SEC},
	{"h", "", 3600 * NSEC_PER_SEC},
	{"m", "", 60 * NSEC_PER_SEC},
	{"s", "", NSEC_PER_SEC},
	{"ms", "", NSEC_PER_MSEC},
	{"us", "", NSEC_PER_USEC},
	{"ns", "", 1},
};

static const struct unit size_units[] = {
	{"TiB", "TiB", 1ULL << 40},
	{"GiB", "GiB", 1ULL << 30},
	{"MiB", "MiB", 1ULL << 20},
	{"KiB", "KiB", 1ULL << 10},
	{"", "B", 1},
};

/* The largest unit that divides v: the unit a profile would write v in. */
static const struct unit *unit_of(const struct unit *u, size_t n, uint64_t v)
{
	size_t i;

	for (i = 0; i + 1 < n; i++)
		if (v && v % u[i].mult == 0)
			return &u[i];
	return &u[n - 1];
}

/*
 * The value one unit past a bound (below min, or above max) as the profile
 * text and the reason the parser gives for it; false when the key has no such
 * bound (min 0, or max the type's limit: that is the overflow case).
 */
static bool out_of_range(const struct profile_key *k, bool below, struct strbuf *value,
			 struct strbuf *why)
{
	uint64_t bound = below ? k->min : k->max;
	const struct unit *u;

	if (below && k->min == 0)
		return false;
	switch (k->type) {
	case PROFILE_KEY_DURATION:
		u = unit_of(duration_units, DP_ARRAY_SIZE(duration_units), bound);
		if (!below && bound / u->mult == UINT64_MAX / u->mult)
			return false;
		strbuf_addf(value, "%llu%s",
			    (unsigned long long)(below ? bound / u->mult - 1 : bound / u->mult + 1),
			    u->name);
		if (below && k->min == 1)
			strbuf_addf(why, "%s: must be greater than 0", value->buf);
		else
			strbuf_addf(why, "%s is too %s: the %s accepted is %llu%s", value->buf,
				    below ? "short" : "long", below ? "shortest" : "longest",
				    (unsigned long long)(bound / u->mult), u->name);
		return true;
	case PROFILE_KEY_SIZE:
		u = unit_of(size_units, DP_ARRAY_SIZE(size_units), bound);
		if (!below && bound / u->mult == UINT64_MAX / u->mult)
			return false;
		strbuf_addf(value, "%llu%s",
			    (unsigned long long)(below ? bound / u->mult - 1 : bound / u->mult + 1),
			    u->name);
		strbuf_addf(why, "%s is too %s: the %s accepted is %llu %s", value->buf,
			    below ? "small" : "large", below ? "smallest" : "largest",
			    (unsigned long long)(bound / u->mult), u->human);
		return true;
	case PROFILE_KEY_PERCENT:
		strbuf_addf(value, "%llu", (unsigned long long)(below ? bound - 1 : bound + 1));
		if (!below && bound >= 100)
			strbuf_addf(why, "percentage \"%s\" is over 100", value->buf);
		else
			strbuf_addf(why, "%s is out of range: expected %llu to %llu", value->buf,
				    (unsigned long long)k->min, (unsigned long long)k->max);
		return true;
	case PROFILE_KEY_U64:
		if (!below && k->max == UINT64_MAX)
			return false;
		strbuf_addf(value, "%llu", (unsigned long long)(below ? bound - 1 : bound + 1));
		strbuf_addf(why, "%s is out of range: expected %llu to %llu", value->buf,
			    (unsigned long long)k->min, (unsigned long long)k->max);
		return true;
	default:
		return false;
	}
}

static void test_out_of_range(void **state)
{
	struct strbuf value = STRBUF_INIT, why = STRBUF_INIT;
	size_t i, checked = 0;
	int below;

	for (i = 0; i < nr_keys; i++) {
		for (below = 0; below <= 1; below++) {
			strbuf_reset(&value);
			strbuf_reset(&why);
			if (!out_of_range(&keys[i], below, &value, &why))
				continue;
			expect_bad(&keys[i], value.buf, (unsigned)(i % 3), why.buf);
			checked++;
		}
	}
	/* Every duration and size key has a bound, and some numbers do. */
	assert_true(checked >= 20);
	strbuf_release(&value);
	strbuf_release(&why);
}

static void test_overflow(void **state)
{
	size_t i, checked = 0;

	for (i = 0; i < nr_keys; i++) {
		const struct profile_key *k = &keys[i];

		if (!is_numeric(k))
			continue;
		switch (k->type) {
		case PROFILE_KEY_DURATION:
			expect_bad(k, OVERFLOW, 0,
				   "duration \"" OVERFLOW "\" is too long (the most is about 584 "
				   "years)");
			/* Overflow in the multiplication by the unit, not in the digits. */
			expect_bad(
				k, "300000d", 1,
				"duration \"300000d\" is too long (the most is about 584 years)");
			expect_bad(
				k, "1h 18446744073709551615ns", 2,
				"duration \"1h 18446744073709551615ns\" is too long (the most is "
				"about 584 years)");
			break;
		case PROFILE_KEY_SIZE:
			expect_bad(k, OVERFLOW, 0,
				   "size \"" OVERFLOW
				   "\" is too large (the most is 16 EiB - 1 byte)");
			expect_bad(
				k, "17000000TiB", 1,
				"size \"17000000TiB\" is too large (the most is 16 EiB - 1 byte)");
			break;
		case PROFILE_KEY_PERCENT:
			expect_bad(k, OVERFLOW, 0, "percentage \"" OVERFLOW "\" is over 100");
			break;
		case PROFILE_KEY_U64:
			expect_bad(k, OVERFLOW, 0,
				   "number \"" OVERFLOW "\" is too large (the most is "
				   "18446744073709551615)");
			/* 2^64 exactly: one past the largest value. */
			expect_bad(k, "18446744073709551616", 1,
				   "number \"18446744073709551616\" is too large (the most is "
				   "18446744073709551615)");
			break;
		default:
			fail();
		}
		checked++;
	}
	assert_true(checked >= nr_keys / 2);
}

static void test_negative(void **state)
{
	static const char *const why[] = {
		[PROFILE_KEY_DURATION] = "bad duration \"-1\": negative durations are not allowed",
		[PROFILE_KEY_SIZE] = "bad size \"-1\": negative sizes are not allowed",
		[PROFILE_KEY_PERCENT] = "bad percentage \"-1\": negative percentages are not "
					"allowed",
		[PROFILE_KEY_U64] = "bad number \"-1\": negative numbers are not allowed",
	};
	size_t i;

	for (i = 0; i < nr_keys; i++)
		if (is_numeric(&keys[i]))
			expect_bad(&keys[i], "-1", (unsigned)(i % 4), why[keys[i].type]);
}

static void test_empty(void **state)
{
	static const char *const example[] = {
		[PROFILE_KEY_STRING] = "some text",
		[PROFILE_KEY_DURATION] = "a duration such as 30s, 500ms or 2h",
		[PROFILE_KEY_SIZE] = "a size such as 32KiB, 64MiB or 1GiB",
		[PROFILE_KEY_PERCENT] = "a percentage from 0 to 100",
		[PROFILE_KEY_U64] = "a whole number",
		[PROFILE_KEY_BOOL] = "on or off",
		[PROFILE_KEY_NUMBER] = "a number such as 1.5",
	};
	struct strbuf why = STRBUF_INIT;
	size_t i;

	for (i = 0; i < nr_keys; i++) {
		strbuf_reset(&why);
		strbuf_addstr(&why, "empty value; expected ");
		if (keys[i].type == PROFILE_KEY_CHOICE)
			add_choices(&why, keys[i].choices);
		else
			strbuf_addstr(&why, example[keys[i].type]);
		expect_bad(&keys[i], "", (unsigned)(i % 5), why.buf);
	}
	strbuf_release(&why);
}

/* A value the key accepts: its default, or one per type. */
static const char *valid_value(const struct profile_key *k)
{
	if (k->def)
		return k->def;
	switch (k->type) {
	case PROFILE_KEY_STRING:
		return "/d";
	case PROFILE_KEY_U64:
		return "8"; /* [engine] streams: 1..100000 */
	case PROFILE_KEY_NUMBER:
		return "1.5";
	case PROFILE_KEY_DURATION:
		return "30s"; /* autotune_limit, autotune_window, the p99 thresholds */
	case PROFILE_KEY_PERCENT:
		return "50"; /* [thresholds] db_read_cv, log_write_cv */
	case PROFILE_KEY_SIZE:
		/* log_size: 4 segments; block_size: a power of two */
		return strcmp(k->name, "log_size") ? "64KiB" : "4MiB";
	default:
		fail_msg("[%s] %s: no default and no sample value", k->section, k->name);
		return NULL;
	}
}

static void test_duplicate(void **state)
{
	struct strbuf text = STRBUF_INIT, msg = STRBUF_INIT, label = STRBUF_INIT;
	const char *want[1];
	unsigned line;
	size_t i;

	for (i = 0; i < nr_keys; i++) {
		const struct profile_key *k = &keys[i];

		strbuf_reset(&text);
		strbuf_reset(&msg);
		strbuf_reset(&label);
		line = build(&text, k, valid_value(k), (unsigned)(i % 3), 2);
		section_label(&label, k);
		strbuf_addf(&msg, ORIGIN ":%u: %s %s: duplicate key; first set on line %u",
			    line + 1, label.buf, k->name, line);
		want[0] = msg.buf;
		expect_lines(k->name, text.buf, want, 1);
	}
	strbuf_release(&text);
	strbuf_release(&msg);
	strbuf_release(&label);
}

/* "[test]\ndescription = xxx...\n" with the second line exactly n characters. */
static void long_line_profile(struct strbuf *text, size_t n)
{
	static const char head[] = "description = ";
	size_t i;

	strbuf_addstr(text, "[test]\n");
	strbuf_addstr(text, head);
	for (i = sizeof(head) - 1; i < n; i++)
		strbuf_addch(text, (char)('a' + i % 26));
	strbuf_addstr(text, "\n[volume v1]\n" VOL_PATH);
}

static void test_long_line(void **state)
{
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	const char *want[1];
	struct profile p;

	long_line_profile(&text, 5000);
	want[0] = ORIGIN ":2: line is 5000 characters long; the longest accepted is 4096";
	expect_lines("5000-character line", text.buf, want, 1);

	strbuf_reset(&text);
	long_line_profile(&text, PROFILE_MAX_LINE + 1);
	want[0] = ORIGIN ":2: line is 4097 characters long; the longest accepted is 4096";
	expect_lines("4097-character line", text.buf, want, 1);

	/* The longest accepted line is accepted, whole. */
	strbuf_reset(&text);
	long_line_profile(&text, PROFILE_MAX_LINE);
	if (profile_parse(&p, ORIGIN, text.buf, text.len, &err))
		fail_msg("4096-character line refused: %s", err.buf);
	assert_int_equal(strlen(p.description), PROFILE_MAX_LINE - strlen("description = "));
	profile_release(&p);
	strbuf_release(&text);
	strbuf_release(&err);
}

/* xorshift64*: a fixed, portable byte stream for the garbage inputs. */
static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

/* Every line of err names the file; at most 100 errors and a summary. */
static void check_err_shape(const char *ctx, const char *err)
{
	size_t i, n = err_lines(err), len;
	const char *line;

	if (n == 0 || n > 101)
		fail_msg("%s: %zu error lines", ctx, n);
	for (i = 0; i < n; i++) {
		line = err_line(err, i, &len);
		if (strncmp(line, ORIGIN ":", strlen(ORIGIN ":")))
			fail_msg("%s: error line %zu does not name the file: %.*s", ctx, i + 1,
				 (int)len, line);
	}
}

static void test_binary_garbage(void **state)
{
	static const size_t sizes[] = {1, 2, 7, 64, 333, 4096, 5000, 65536, 1 << 20};
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT, ctx = STRBUF_INIT;
	struct profile p;
	uint64_t seed, r;
	size_t i, j, n;
	int prefixed, ret;

	for (i = 0; i < DP_ARRAY_SIZE(sizes); i++) {
		for (prefixed = 0; prefixed <= 1; prefixed++) {
			seed = 0x9e3779b97f4a7c15ULL + i;
			strbuf_reset(&text);
			strbuf_reset(&err);
			strbuf_reset(&ctx);
			/* Also after a valid profile: the garbage alone must make it bad. */
			if (prefixed)
				strbuf_addstr(&text,
					      "[test]\nduration = 1h\n[volume v1]\n" VOL_PATH);
			for (j = 0; j < sizes[i]; j += 8) {
				r = rng_next(&seed);
				n = sizes[i] - j < 8 ? sizes[i] - j : 8;
				strbuf_add(&text, &r, n);
			}
			strbuf_addf(&ctx, "%zu random bytes%s", sizes[i],
				    prefixed ? " after a profile" : "");
			ret = profile_parse(&p, ORIGIN, text.buf, text.len, &err);
			if (ret != -EINVAL)
				fail_msg("%s: returned %d, want -EINVAL", ctx.buf, ret);
			check_err_shape(ctx.buf, err.buf);
			assert_null(p.volumes);
			profile_release(&p);
		}
	}
	/* A NUL in the middle of a line is binary too, not an end of text. */
	strbuf_reset(&text);
	strbuf_reset(&err);
	strbuf_addstr(&text, "[test]\nname = a");
	strbuf_addch(&text, '\0');
	strbuf_addstr(&text, "b\n[volume v1]\n" VOL_PATH);
	assert_int_equal(profile_parse(&p, ORIGIN, text.buf, text.len, &err), -EINVAL);
	assert_string_equal(err.buf, ORIGIN ":2: line holds binary data (byte 0x00 at column 9): "
					    "a profile is a text file");
	strbuf_release(&text);
	strbuf_release(&err);
	strbuf_release(&ctx);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A sparse file of size bytes in dir; returns its path (free it). */
static char *sparse_file(const char *dir, const char *name, off_t size)
{
	char *path;
	int fd;

	assert_true(asprintf(&path, "%s/%s", dir, name) > 0);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, size), 0);
	close(fd);
	return path;
}

static void test_huge_file(void **state)
{
	char dir[] = DP_BINARY_DIR "/test_profile_corpus.XXXXXX";
	struct strbuf err = STRBUF_INIT, want = STRBUF_INIT;
	struct profile p;
	double t0;
	char *path;

	assert_non_null(mkdtemp(dir));

	/* 100 MiB: refused from fstat() alone, without reading it. */
	path = sparse_file(dir, "huge.ini", 100LL << 20);
	t0 = now_s();
	assert_int_equal(profile_load_file(&p, path, &err), -EFBIG);
	assert_true(now_s() - t0 < 0.5);
	strbuf_addf(&want,
		    "%s: the file is 104857600 bytes, too large for a profile (the most is 16 MiB; "
		    "is it the right file?)",
		    path);
	assert_string_equal(err.buf, want.buf);
	assert_null(p.volumes);
	profile_release(&p);
	assert_int_equal(unlink(path), 0);
	free(path);

	/* One byte over the limit is over it. */
	strbuf_reset(&err);
	strbuf_reset(&want);
	path = sparse_file(dir, "over.ini", (16LL << 20) + 1);
	assert_int_equal(profile_load_file(&p, path, &err), -EFBIG);
	strbuf_addf(&want,
		    "%s: the file is 16777217 bytes, too large for a profile (the most is 16 MiB; "
		    "is it the right file?)",
		    path);
	assert_string_equal(err.buf, want.buf);
	assert_int_equal(unlink(path), 0);
	free(path);

	assert_int_equal(rmdir(dir), 0);
	strbuf_release(&err);
	strbuf_release(&want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_unit),  cmocka_unit_test(test_out_of_range),
		cmocka_unit_test(test_overflow),  cmocka_unit_test(test_negative),
		cmocka_unit_test(test_empty),	  cmocka_unit_test(test_duplicate),
		cmocka_unit_test(test_long_line), cmocka_unit_test(test_binary_garbage),
		cmocka_unit_test(test_huge_file),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
