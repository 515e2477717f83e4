/* SPDX-License-Identifier: MIT */
/*
 * time.c - clock reads and timestamp formatting. Everything time-dependent in
 * the run takes its clock by injection; these are the real clocks behind it.
 */
#include <ctype.h>
#include <errno.h>
#include <string.h>
#include <time.h>

#include "diskproof/util.h"

uint64_t time_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

uint64_t time_real_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

/* "2026-11-29T22:12:08" of secs, then ".FRAC" of digits digits (none
 * when 0) and "Z": the one UTC writer of every precision below. */
static void format_utc(struct strbuf *sb, uint64_t secs, unsigned frac, int digits)
{
	time_t t = (time_t)secs;
	struct tm tm;
	char buf[40];

	gmtime_r(&t, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
	if (digits)
		strbuf_addf(sb, "%s.%0*uZ", buf, digits, frac);
	else
		strbuf_addf(sb, "%sZ", buf);
}

void time_format_utc_ms(struct strbuf *sb, uint64_t unix_ms)
{
	format_utc(sb, unix_ms / 1000, (unsigned)(unix_ms % 1000), 3);
}

void time_format_utc_us(struct strbuf *sb, uint64_t real_ns)
{
	format_utc(sb, real_ns / NSEC_PER_SEC, (unsigned)(real_ns % NSEC_PER_SEC / 1000), 6);
}

void time_format_iso8601(struct strbuf *sb, uint64_t real_ns)
{
	format_utc(sb, real_ns / NSEC_PER_SEC, 0, 0);
}

/* n decimal digits at *p into *v, advancing *p; false when fewer. */
static bool digits(const char **p, unsigned n, int *v)
{
	*v = 0;
	for (unsigned i = 0; i < n; i++, (*p)++) {
		if (!isdigit((unsigned char)**p))
			return false;
		*v = *v * 10 + (**p - '0');
	}
	return true;
}

int time_parse_rfc3339(const char *s, uint64_t *abs_ns, struct strbuf *err)
{
	static const char form[] =
		"an RFC 3339 UTC time (2026-12-03T16:00:00Z) or +DURATION (+30s)";
	const char *p = s;
	uint64_t frac = 0, scale = NSEC_PER_SEC;
	struct tm tm = {0};
	int y, mo, d, h, mi, sec;
	time_t t;

	bool ok = digits(&p, 4, &y) && *p++ == '-' && digits(&p, 2, &mo) && *p++ == '-' &&
		  digits(&p, 2, &d) && (*p == 'T' || *p == 't');

	if (ok)
		p++;
	if (!ok || !digits(&p, 2, &h) || *p++ != ':' || !digits(&p, 2, &mi) || *p++ != ':' ||
	    !digits(&p, 2, &sec)) {
		strbuf_addf(err, "\"%s\" is not %s", s, form);
		return -EINVAL;
	}
	if (*p == '.') {
		if (!isdigit((unsigned char)p[1])) {
			strbuf_addf(err,
				    "\"%s\": a fraction of a second needs digits after the '.'", s);
			return -EINVAL;
		}
		for (p++; isdigit((unsigned char)*p); p++)
			if (scale > 1) {
				scale /= 10;
				frac += (uint64_t)(*p - '0') * scale;
			}
	}
	if (*p == 'Z' || *p == 'z') {
		p++;
	} else if (*p == '+' || *p == '-') {
		if (strcmp(p + 1, "00:00")) {
			strbuf_addf(err,
				    "\"%s\": the time must be in UTC (end it with Z or +00:00), so "
				    "that every host reads the same instant",
				    s);
			return -EINVAL;
		}
		p += 6;
	} else {
		strbuf_addf(err, "\"%s\": the time needs its zone: end it with Z (UTC)", s);
		return -EINVAL;
	}
	if (*p) {
		strbuf_addf(err, "\"%s\" is not %s", s, form);
		return -EINVAL;
	}
	/* 60 (a leap second) is refused: time_t has none, so no host could
	 * sleep until it */
	if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 59) {
		strbuf_addf(err, "\"%s\": a field is out of range", s);
		return -EINVAL;
	}
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	t = timegm(&tm);
	/* timegm normalises 2026-02-30 into March: such a date does not exist */
	if (t < 0 || tm.tm_mday != d || tm.tm_mon != mo - 1) {
		strbuf_addf(err, "\"%s\": no such date", s);
		return -EINVAL;
	}
	/* the instant is kept in uint64_t ns: past 2554 it would wrap round
	 * into some other, earlier time (3000 read as 2415) */
	if ((uint64_t)t >= UINT64_MAX / NSEC_PER_SEC) {
		strbuf_addf(err, "\"%s\": a field is out of range (the year is too far ahead)", s);
		return -EINVAL;
	}
	*abs_ns = (uint64_t)t * NSEC_PER_SEC + frac;
	return 0;
}

int time_parse_start_at(const char *s, uint64_t *abs_ns, uint64_t *rel_ns, struct strbuf *err)
{
	*abs_ns = *rel_ns = 0;
	if (s[0] == '+') {
		struct strbuf why = STRBUF_INIT;
		int ret = unit_parse_duration(s + 1, rel_ns, &why);

		if (!ret && !*rel_ns) {
			strbuf_addstr(&why, "must be more than 0");
			ret = -EINVAL;
		}
		if (ret)
			strbuf_addf(err, "\"%s\": +DURATION: %s", s, why.buf);
		strbuf_release(&why);
		return ret ? -EINVAL : 0;
	}
	return time_parse_rfc3339(s, abs_ns, err);
}
