/* SPDX-License-Identifier: MIT */
/*
 * eio_open.c - test helper, an LD_PRELOAD library: every read-only open of a
 * path ending in $EIO_OPEN_SUFFIX (e.g. ".gen") fails with EIO, as on a
 * disk that cannot read the file's blocks; everything else opens as usual.
 * Used by test_journal_eio.sh to give a journal read an I/O error that
 * nothing else in the run meets. Under AddressSanitizer set
 * ASAN_OPTIONS=verify_asan_link_order=0: this library then comes before
 * ASan's runtime and calls on to it.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef int (*open_fn)(const char *, int, ...);
typedef int (*openat_fn)(int, const char *, int, ...);

/* Whether an open of path with flags is one to fail. */
static int eio_wanted(const char *path, int flags)
{
	const char *suffix = getenv("EIO_OPEN_SUFFIX");
	size_t n, s;

	if (!suffix || !*suffix || !path || (flags & O_ACCMODE) != O_RDONLY)
		return 0;
	n = strlen(path);
	s = strlen(suffix);
	return n >= s && !strcmp(path + n - s, suffix);
}

static mode_t mode_arg(int flags, va_list ap)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? va_arg(ap, mode_t) : 0;
}

/* The next definition of name (libc's, or a sanitizer's before it). */
static void *next_fn(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

int open(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	if (eio_wanted(path, flags)) {
		errno = EIO;
		return -1;
	}
	return ((open_fn)next_fn("open"))(path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	if (eio_wanted(path, flags)) {
		errno = EIO;
		return -1;
	}
	return ((open_fn)next_fn("open64"))(path, flags, mode);
}

int openat(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	if (eio_wanted(path, flags)) {
		errno = EIO;
		return -1;
	}
	return ((openat_fn)next_fn("openat"))(dirfd, path, flags, mode);
}

int openat64(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	if (eio_wanted(path, flags)) {
		errno = EIO;
		return -1;
	}
	return ((openat_fn)next_fn("openat64"))(dirfd, path, flags, mode);
}

/* _FORTIFY_SOURCE's checked opens (two arguments: no mode) */
int __open_2(const char *path, int flags);
int __open_2(const char *path, int flags)
{
	return open(path, flags);
}

int __open64_2(const char *path, int flags);
int __open64_2(const char *path, int flags)
{
	return open64(path, flags);
}

int __openat_2(int dirfd, const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags)
{
	return openat(dirfd, path, flags);
}

int __openat64_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags)
{
	return openat64(dirfd, path, flags);
}
