/* SPDX-License-Identifier: MIT */
/*
 * units.c - parsing and formatting of the units a profile and the command line
 * speak: durations ("500ms", "2h"), sizes ("32KiB", "4G"), percentages, plain
 * numbers and booleans.
 *
 * Numbers are scanned by hand rather than with strtod()/strtoull(): those accept
 * signs, hex, exponents, "inf" and "nan" and depend on the locale, and every one
 * of those would be a surprise in a profile. A number is digits with an optional
 * '.' and fraction; the value is computed exactly in 128-bit arithmetic, so
 * "1.5GiB" is exactly 1610612736 bytes and anything past 2^64 - 1 is -ERANGE,
 * never a silent wrap.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "diskproof/util.h"

/* More fraction digits than this are read but only checked for being zero. */
#define FRAC_DIGITS_MAX 18

struct decimal {
	uint64_t ip;		/* integer part */
	uint64_t frac;		/* first fdigits digits of the fraction */
	unsigned fdigits;	/* how many of them */
	bool frac_tail_nonzero; /* a nonzero digit past FRAC_DIGITS_MAX */
	bool has_point;
};

static const char *skip_blanks(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* Length of s without trailing blanks. */
static size_t trimmed_len(const char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
		n--;
	return n;
}

/*
 * Scans digits [ '.' digits ] from *sp (at least one digit overall). Returns 0
 * and advances *sp, -EINVAL when there is no number, -ERANGE when the integer
 * part does not fit in 64 bits.
 */
static int decimal_scan(const char **sp, const char *end, struct decimal *d)
{
	const char *s = *sp;
	bool any = false;

	memset(d, 0, sizeof(*d));
	for (; s < end && isdigit((unsigned char)*s); s++) {
		if (__builtin_mul_overflow(d->ip, 10, &d->ip) ||
		    __builtin_add_overflow(d->ip, (uint64_t)(*s - '0'), &d->ip))
			return -ERANGE;
		any = true;
	}
	if (s < end && *s == '.') {
		d->has_point = true;
		for (s++; s < end && isdigit((unsigned char)*s); s++) {
			any = true;
			if (d->fdigits < FRAC_DIGITS_MAX) {
				d->frac = d->frac * 10 + (uint64_t)(*s - '0');
				d->fdigits++;
			} else if (*s != '0') {
				d->frac_tail_nonzero = true;
			}
		}
	}
	if (!any)
		return -EINVAL;
	*sp = s;
	return 0;
}

/*
 * value = d * mult, exactly. Returns 0, -ERANGE on overflow. *exact is false
 * when the product has a fractional part (which is dropped).
 */
static int decimal_scale(const struct decimal *d, uint64_t mult, uint64_t *out, bool *exact)
{
	unsigned __int128 pow10 = 1, v, f;
	unsigned i;

	for (i = 0; i < d->fdigits; i++)
		pow10 *= 10;
	v = (unsigned __int128)d->ip * mult;
	f = (unsigned __int128)d->frac * mult;
	v += f / pow10;
	*exact = (f % pow10) == 0 && !d->frac_tail_nonzero;
	if (v > UINT64_MAX)
		return -ERANGE;
	*out = (uint64_t)v;
	return 0;
}

static double decimal_to_double(const struct decimal *d)
{
	double f = (double)d->frac;
	unsigned i;

	for (i = 0; i < d->fdigits; i++)
		f /= 10.0;
	return (double)d->ip + f;
}

static void err_set(struct strbuf *err, const char *fmt, ...) DP_PRINTF(2, 3);
static void err_set(struct strbuf *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return;
	va_start(ap, fmt);
	strbuf_vaddf(err, fmt, ap);
	va_end(ap);
}

struct unit {
	const char *name;
	uint64_t mult;
};

static const struct unit duration_units[] = {
	{"ns", 1},
	{"us", NSEC_PER_USEC},
	{"ms", NSEC_PER_MSEC},
	{"s", NSEC_PER_SEC},
	{"m", 60 * NSEC_PER_SEC},
	{"h", 3600 * NSEC_PER_SEC},
	{"d", 86400 * NSEC_PER_SEC},
};

#define KIB 1024ULL
static const struct unit size_units[] = {
	{"b", 1},
	{"k", KIB},
	{"kib", KIB},
	{"kb", 1000ULL},
	{"m", KIB *KIB},
	{"mib", KIB *KIB},
	{"mb", 1000ULL * 1000},
	{"g", KIB *KIB *KIB},
	{"gib", KIB *KIB *KIB},
	{"gb", 1000ULL * 1000 * 1000},
	{"t", KIB *KIB *KIB *KIB},
	{"tib", KIB *KIB *KIB *KIB},
	{"tb", 1000ULL * 1000 * 1000 * 1000},
	{"p", KIB *KIB *KIB *KIB *KIB},
	{"pib", KIB *KIB *KIB *KIB *KIB},
	{"pb", 1000ULL * 1000 * 1000 * 1000 * 1000},
	{"e", KIB *KIB *KIB *KIB *KIB *KIB},
	{"eib", KIB *KIB *KIB *KIB *KIB *KIB},
	{"eb", 1000ULL * 1000 * 1000 * 1000 * 1000 * 1000},
};

/* Finds the unit spelled by the letters at s (up to end); sizes ignore case. */
static const struct unit *unit_find(const struct unit *units, size_t n, const char *s,
				    const char *end, bool icase, const char **after)
{
	const char *e = s;
	size_t i, len;

	while (e < end && isalpha((unsigned char)*e))
		e++;
	len = (size_t)(e - s);
	if (!len)
		return NULL;
	for (i = 0; i < n; i++) {
		if (strlen(units[i].name) != len)
			continue;
		if (icase ? !strncasecmp(units[i].name, s, len) : !strncmp(units[i].name, s, len)) {
			*after = e;
			return &units[i];
		}
	}
	return NULL;
}

#define DURATION_HINT "expected a number followed by ms, s, m, h or d"

int unit_parse_duration(const char *s, uint64_t *ns, struct strbuf *err)
{
	const char *p = skip_blanks(s), *end = p + trimmed_len(p);
	const struct unit *u;
	uint64_t total = 0, v;
	struct decimal d;
	bool exact, first = true;
	int ret;

	if (p == end) {
		err_set(err, "empty duration: " DURATION_HINT);
		return -EINVAL;
	}
	if (*p == '-') {
		err_set(err, "bad duration \"%.*s\": negative durations are not allowed",
			(int)(end - p), p);
		return -EINVAL;
	}
	s = p;
	/* One or more "<number><unit>" components ("1h30m"); a lone number is seconds. */
	while (p < end) {
		ret = decimal_scan(&p, end, &d);
		if (ret == -ERANGE)
			goto out_range;
		if (ret)
			goto out_bad;
		p = skip_blanks(p);
		u = unit_find(duration_units, DP_ARRAY_SIZE(duration_units), p, end, false, &p);
		if (!u) {
			if (!first || p != end)
				goto out_bad;
			u = &duration_units[3]; /* seconds */
		}
		if (decimal_scale(&d, u->mult, &v, &exact) ||
		    __builtin_add_overflow(total, v, &total))
			goto out_range;
		if (!exact) {
			err_set(err, "bad duration \"%.*s\": finer than a nanosecond",
				(int)(end - s), s);
			return -EINVAL;
		}
		p = skip_blanks(p);
		first = false;
	}
	*ns = total;
	return 0;

out_bad:
	err_set(err, "bad duration \"%.*s\": " DURATION_HINT, (int)(end - s), s);
	return -EINVAL;
out_range:
	err_set(err, "duration \"%.*s\" is too long (the most is about 584 years)", (int)(end - s),
		s);
	return -ERANGE;
}

#define SIZE_HINT "expected a number followed by B, KiB, MiB, GiB or TiB (or KB, MB, GB, TB)"

int unit_parse_size(const char *s, uint64_t *bytes, struct strbuf *err)
{
	const char *p = skip_blanks(s), *end = p + trimmed_len(p);
	const struct unit *u;
	struct decimal d;
	uint64_t v;
	bool exact;
	int ret;

	if (p == end) {
		err_set(err, "empty size: " SIZE_HINT);
		return -EINVAL;
	}
	if (*p == '-') {
		err_set(err, "bad size \"%.*s\": negative sizes are not allowed", (int)(end - p),
			p);
		return -EINVAL;
	}
	s = p;
	ret = decimal_scan(&p, end, &d);
	if (ret == -ERANGE)
		goto out_range;
	if (ret)
		goto out_bad;
	p = skip_blanks(p);
	if (p == end) {
		static const struct unit bytes_unit = {"b", 1};
		u = &bytes_unit;
	} else {
		u = unit_find(size_units, DP_ARRAY_SIZE(size_units), p, end, true, &p);
		if (!u || p != end)
			goto out_bad;
	}
	if (decimal_scale(&d, u->mult, &v, &exact))
		goto out_range;
	if (!exact) {
		err_set(err, "bad size \"%.*s\": not a whole number of bytes", (int)(end - s), s);
		return -EINVAL;
	}
	*bytes = v;
	return 0;

out_bad:
	err_set(err, "bad size \"%.*s\": " SIZE_HINT, (int)(end - s), s);
	return -EINVAL;
out_range:
	err_set(err, "size \"%.*s\" is too large (the most is 16 EiB - 1 byte)", (int)(end - s), s);
	return -ERANGE;
}

int unit_parse_percent(const char *s, double *pct, struct strbuf *err)
{
	const char *p = skip_blanks(s), *end = p + trimmed_len(p);
	struct decimal d;
	double v;
	int ret;

	s = p;
	if (p == end) {
		err_set(err, "empty percentage: expected a number from 0 to 100");
		return -EINVAL;
	}
	if (*p == '-') {
		err_set(err, "bad percentage \"%.*s\": negative percentages are not allowed",
			(int)(end - s), s);
		return -EINVAL;
	}
	ret = decimal_scan(&p, end, &d);
	if (ret == -EINVAL)
		goto out_bad;
	if (!ret) {
		p = skip_blanks(p);
		if (p < end && *p == '%')
			p++;
		if (p != end)
			goto out_bad;
	}
	v = ret ? 101.0 : decimal_to_double(&d);
	if (v > 100.0) {
		err_set(err, "percentage \"%.*s\" is over 100", (int)(end - s), s);
		return -ERANGE;
	}
	*pct = v;
	return 0;

out_bad:
	err_set(err,
		"bad percentage \"%.*s\": expected a number from 0 to 100, optionally "
		"followed by %%",
		(int)(end - s), s);
	return -EINVAL;
}

int unit_parse_u64(const char *s, uint64_t *v, struct strbuf *err)
{
	const char *p = skip_blanks(s), *end = p + trimmed_len(p);
	struct decimal d;
	int ret;

	s = p;
	if (p == end) {
		err_set(err, "empty number: expected a whole number such as 42");
		return -EINVAL;
	}
	if (*p == '-') {
		err_set(err, "bad number \"%.*s\": negative numbers are not allowed",
			(int)(end - s), s);
		return -EINVAL;
	}
	ret = decimal_scan(&p, end, &d);
	if (ret == -ERANGE) {
		err_set(err, "number \"%.*s\" is too large (the most is %llu)", (int)(end - s), s,
			(unsigned long long)UINT64_MAX);
		return -ERANGE;
	}
	if (ret || p != end || d.has_point) {
		err_set(err, "bad number \"%.*s\": expected a whole number such as 42",
			(int)(end - s), s);
		return -EINVAL;
	}
	*v = d.ip;
	return 0;
}

int unit_parse_double(const char *s, double *v, struct strbuf *err)
{
	const char *p = skip_blanks(s), *end = p + trimmed_len(p);
	struct decimal d;
	bool neg = false;
	int ret;

	s = p;
	if (p == end) {
		err_set(err, "empty number: expected a decimal number such as 1.5");
		return -EINVAL;
	}
	if (*p == '-' || *p == '+')
		neg = *p++ == '-';
	ret = decimal_scan(&p, end, &d);
	if (ret == -ERANGE) {
		err_set(err, "number \"%.*s\" is too large", (int)(end - s), s);
		return -ERANGE;
	}
	if (ret || p != end) {
		err_set(err, "bad number \"%.*s\": expected a decimal number such as 1.5",
			(int)(end - s), s);
		return -EINVAL;
	}
	*v = neg ? -decimal_to_double(&d) : decimal_to_double(&d);
	return 0;
}

int unit_parse_bool(const char *s, bool *v, struct strbuf *err)
{
	static const char *const yes[] = {"on", "true", "yes", "1"};
	static const char *const no[] = {"off", "false", "no", "0"};
	const char *p = skip_blanks(s);
	size_t n = trimmed_len(p), i;

	for (i = 0; i < DP_ARRAY_SIZE(yes); i++) {
		if (strlen(yes[i]) == n && !strncasecmp(p, yes[i], n)) {
			*v = true;
			return 0;
		}
		if (strlen(no[i]) == n && !strncasecmp(p, no[i], n)) {
			*v = false;
			return 0;
		}
	}
	if (!n)
		err_set(err, "empty boolean: expected on/off, true/false, yes/no or 1/0");
	else
		err_set(err, "bad boolean \"%.*s\": expected on/off, true/false, yes/no or 1/0",
			(int)n, p);
	return -EINVAL;
}

/*
 * "512 B", "32 KiB", "1.5 GiB": the largest binary unit the value reaches, one
 * decimal when it is not whole (rounded to nearest).
 */
void unit_format_size(struct strbuf *sb, uint64_t bytes)
{
	static const char *const names[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
	unsigned i = 0;
	uint64_t div = 1, tenths;

	while (i + 1 < DP_ARRAY_SIZE(names) && bytes / div >= 1024) {
		div *= 1024;
		i++;
	}
	if (bytes % div == 0) {
		strbuf_addf(sb, "%llu %s", (unsigned long long)(bytes / div), names[i]);
		return;
	}
	tenths = (uint64_t)(((unsigned __int128)bytes * 10 + div / 2) / div);
	strbuf_addf(sb, "%llu.%llu %s", (unsigned long long)(tenths / 10),
		    (unsigned long long)(tenths % 10), names[i]);
}

/* Appends v / unit with up to three decimals, trailing zeros dropped. */
static void add_scaled(struct strbuf *sb, uint64_t v, uint64_t unit, const char *suffix)
{
	uint64_t whole = v / unit, milli = (v % unit) * 1000 / unit;

	if (!milli) {
		strbuf_addf(sb, "%llu%s", (unsigned long long)whole, suffix);
		return;
	}
	if (milli % 100 == 0)
		strbuf_addf(sb, "%llu.%llu%s", (unsigned long long)whole,
			    (unsigned long long)(milli / 100), suffix);
	else if (milli % 10 == 0)
		strbuf_addf(sb, "%llu.%02llu%s", (unsigned long long)whole,
			    (unsigned long long)(milli / 10), suffix);
	else
		strbuf_addf(sb, "%llu.%03llu%s", (unsigned long long)whole,
			    (unsigned long long)milli, suffix);
}

/*
 * "750ns", "12.5us", "500ms", "30s", "5m 0s", "2h 0m 0s". From one minute up,
 * hours, minutes and (possibly fractional) seconds.
 */
void unit_format_duration(struct strbuf *sb, uint64_t ns)
{
	uint64_t sec = ns / NSEC_PER_SEC;

	if (ns < NSEC_PER_USEC) {
		strbuf_addf(sb, "%lluns", (unsigned long long)ns);
	} else if (ns < NSEC_PER_MSEC) {
		add_scaled(sb, ns, NSEC_PER_USEC, "us");
	} else if (ns < NSEC_PER_SEC) {
		add_scaled(sb, ns, NSEC_PER_MSEC, "ms");
	} else if (ns < 60 * NSEC_PER_SEC) {
		add_scaled(sb, ns, NSEC_PER_SEC, "s");
	} else {
		if (sec >= 3600)
			strbuf_addf(sb, "%lluh ", (unsigned long long)(sec / 3600));
		strbuf_addf(sb, "%llum ", (unsigned long long)(sec / 60 % 60));
		add_scaled(sb, ns % (60 * NSEC_PER_SEC), NSEC_PER_SEC, "s");
	}
}
