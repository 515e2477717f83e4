/* SPDX-License-Identifier: MIT */
/*
 * kmsg.h - the kernel log as /dev/kmsg gives it (env/kmsg.c): a low-level
 * reader; uses only libc. One record per read(2):
 *
 *   PRI,SEQ,TS_USEC,FLAGS[,...];MESSAGE\n
 *    KEY=VALUE\n          (continuation lines: the record's dictionary)
 *
 * PRI is facility * 8 + level (syslog's), TS_USEC the monotonic time of the
 * message in microseconds, MESSAGE the text with non-printable bytes as
 * \xNN. The parser and the device matcher are pure (the unit tests feed
 * them records); the reader opens the log non-blocking at its end, so a run
 * sees only what the kernel logs after it began.
 *
 * Device matching (env_kmsg_names_device): a message is about device DEV
 * ("sdb", "loop8", "nvme0n1") when it names DEV or one of its partitions as
 * a word: "sdb" matches "sdb", "sdb1" ("dev sdb1, sector 8"), not "sdbc";
 * "loop8" and "nvme0n1", whose names end in a digit, match themselves and
 * "loop8p1", "nvme0n1p2", never "loop80" or "nvme0n10". A word ends at a
 * byte that is not a letter, a digit or '_'.
 */
#ifndef DISKPROOF_KMSG_H
#define DISKPROOF_KMSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diskproof/util.h"

/* The longest message kept: the kernel's own record limit is 1024 bytes
 * of text (CONSOLE_EXT_LOG_MAX 8192 with its dictionary). */
#define KMSG_TEXT_MAX 1024
/* What one read(2) of /dev/kmsg may return, dictionary included. */
#define KMSG_RECORD_MAX 8192

struct env_kmsg_line {
	unsigned facility; /* PRI / 8: 0 kernel, 1 user, ... */
	unsigned level;	   /* PRI % 8: 0 emerg ... 3 err, 4 warning ... 7 debug */
	uint64_t seq;
	uint64_t ts_us;		  /* the monotonic clock's time of the message */
	bool cont;		  /* FLAGS 'c': a fragment continued in the next record */
	char text[KMSG_TEXT_MAX]; /* the message, no newline; cut at the limit */
};

/*
 * Parses one record rec[0..len) (its continuation lines ignored, the text
 * cut at KMSG_TEXT_MAX - 1). 0, or -EINVAL for a record that is not one.
 */
int env_kmsg_parse(const char *rec, size_t len, struct env_kmsg_line *out) DP_MUST_CHECK;

/* Whether text names device dev or a partition of it as a word (above). */
bool env_kmsg_names_device(const char *text, const char *dev);

/* "emerg", "alert", "crit", "err", "warning", "notice", "info", "debug". */
const char *env_kmsg_level_name(unsigned level);

/*
 * Opens /dev/kmsg (path, for the tests) read-only and non-blocking,
 * positioned after the last record: *fd is the caller's to close. 0, or
 * -errno (-EPERM or -EACCES without CAP_SYSLOG under dmesg_restrict).
 */
int env_kmsg_open(const char *path, int *fd) DP_MUST_CHECK;

/*
 * Reads the next record into out. 0; -EAGAIN when there is none yet;
 * -EPIPE when records were overwritten before they were read (the next
 * call reads on from the oldest left); -EINVAL for a record that does not
 * parse (skipped); other -errno.
 */
int env_kmsg_read(int fd, struct env_kmsg_line *out) DP_MUST_CHECK;

#endif
