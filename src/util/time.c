/*
 * time.c - clock reads and timestamp formatting. Everything time-dependent in
 * the run takes its clock by injection; these are the real clocks behind it.
 */
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

void time_format_utc_ms(struct strbuf *sb, uint64_t unix_ms)
{
	time_t t = (time_t)(unix_ms / 1000);
	struct tm tm;
	char buf[40];

	gmtime_r(&t, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
	strbuf_addf(sb, "%s.%03uZ", buf, (unsigned)(unix_ms % 1000));
}

void time_format_utc_us(struct strbuf *sb, uint64_t real_ns)
{
	time_t t = (time_t)(real_ns / NSEC_PER_SEC);
	struct tm tm;
	char buf[40];

	gmtime_r(&t, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
	strbuf_addf(sb, "%s.%06uZ", buf, (unsigned)(real_ns % NSEC_PER_SEC / 1000));
}

void time_format_iso8601(struct strbuf *sb, uint64_t real_ns)
{
	time_t t = (time_t)(real_ns / NSEC_PER_SEC);
	struct tm tm;
	char buf[32];

	gmtime_r(&t, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
	strbuf_addstr(sb, buf);
}
