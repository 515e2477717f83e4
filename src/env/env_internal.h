/* SPDX-License-Identifier: MIT */
/*
 * env_internal.h - private to src/env: the small file readers the fact
 * collectors share.
 */
#ifndef DISKPROOF_ENV_INTERNAL_H
#define DISKPROOF_ENV_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* First line of a file, trailing blanks trimmed, into out. 0, or -errno
 * (out is then "unknown"); an empty line is -ENODATA. */
int env_read_line(const char *path, char *out, size_t len);

/* The same for dir/rel. */
int env_read_at(const char *dir, const char *rel, char *out, size_t len);

/* s into out[len], cut to fit (names from sysfs paths: without the format
 * truncation warnings snprintf draws from a PATH_MAX source). */
void env_copy(char *out, size_t len, const char *s);

/* The device of path's nearest existing ancestor (into where): its st_dev,
 * or its st_rdev when it is a block device. 0 or -errno. */
int env_path_dev(const char *path, char *where, size_t len, dev_t *dev);

/* mountinfo escapes blanks and backslashes as \ooo: undone in place. */
void env_mount_unescape(char *s);

#endif
