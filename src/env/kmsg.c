/* SPDX-License-Identifier: MIT */
/*
 * kmsg.c - the kernel log, read from /dev/kmsg (kmsg.h): one record
 * parsed, whether a message names a device, and the non-blocking reader a
 * run polls (run/kmsg.c) to keep what the kernel says about its devices
 * (resets, I/O errors, timeouts) in its test log, as Jetstress keeps the
 * event log.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diskproof/kmsg.h"

static const char *const level_names[8] = {"emerg",   "alert",	"crit", "err",
					   "warning", "notice", "info", "debug"};

const char *env_kmsg_level_name(unsigned level)
{
	return level < 8 ? level_names[level] : "unknown";
}

/* A decimal field of the prefix up to its separator: 0, or -EINVAL. */
static int field_u64(const char **p, const char *end, char sep, uint64_t *v)
{
	const char *s = *p;

	*v = 0;
	if (s >= end || *s < '0' || *s > '9')
		return -EINVAL;
	for (; s < end && *s >= '0' && *s <= '9'; s++) {
		if (*v > (UINT64_MAX - 9) / 10)
			return -EINVAL;
		*v = *v * 10 + (uint64_t)(*s - '0');
	}
	if (s >= end || *s != sep)
		return -EINVAL;
	*p = s + 1;
	return 0;
}

int env_kmsg_parse(const char *rec, size_t len, struct env_kmsg_line *out)
{
	const char *p = rec, *end = rec + len, *semi, *nl;
	uint64_t pri, seq, ts;
	size_t n;

	memset(out, 0, sizeof(*out));
	if (field_u64(&p, end, ',', &pri) || field_u64(&p, end, ',', &seq) ||
	    field_u64(&p, end, ',', &ts))
		return -EINVAL;
	semi = memchr(p, ';', (size_t)(end - p));
	if (!semi || pri > 1023)
		return -EINVAL;
	/* FLAGS: '-' a whole record, 'c' a fragment the next one continues,
	 * '+' the continuation itself (older kernels); then further fields */
	out->cont = semi > p && *p == 'c';
	out->facility = (unsigned)(pri >> 3);
	out->level = (unsigned)(pri & 7);
	out->seq = seq;
	out->ts_us = ts;
	p = semi + 1;
	/* the message ends at the first newline: the lines after it, each
	 * opened by a space, are the record's dictionary */
	nl = memchr(p, '\n', (size_t)(end - p));
	n = (size_t)((nl ? nl : end) - p);
	if (n > KMSG_TEXT_MAX - 1)
		n = KMSG_TEXT_MAX - 1;
	memcpy(out->text, p, n);
	out->text[n] = '\0';
	return 0;
}

static bool is_word(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

bool env_kmsg_names_device(const char *text, const char *dev)
{
	size_t len = dev ? strlen(dev) : 0;

	if (!len)
		return false;
	for (const char *p = strstr(text, dev); p; p = strstr(p + 1, dev)) {
		const char *a = p + len;

		if (p > text && is_word(p[-1]))
			continue;
		/* a partition: sdb1 of sdb; loop8p1 of loop8 (a name ending
		 * in a digit takes a 'p' before its partition number) */
		if (is_digit(dev[len - 1])) {
			if (*a == 'p' && is_digit(a[1]))
				for (a++; is_digit(*a); a++)
					;
		} else {
			while (is_digit(*a))
				a++;
		}
		if (!is_word(*a))
			return true;
	}
	return false;
}

int env_kmsg_open(const char *path, int *fd)
{
	int f = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (f < 0)
		return -errno;
	/* from now on: what was logged before the run is not about it */
	if (lseek(f, 0, SEEK_END) < 0) {
		int ret = -errno;

		close(f);
		return ret;
	}
	*fd = f;
	return 0;
}

int env_kmsg_read(int fd, struct env_kmsg_line *out)
{
	char *buf = malloc(KMSG_RECORD_MAX);
	ssize_t n;
	int ret;

	if (!buf)
		return -ENOMEM;
	do
		n = read(fd, buf, KMSG_RECORD_MAX);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		ret = -errno;
	else if (n == 0)
		ret = -EAGAIN;
	else
		ret = env_kmsg_parse(buf, (size_t)n, out);
	free(buf);
	return ret;
}
