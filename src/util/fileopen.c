/* SPDX-License-Identifier: MIT */
/*
 * fileopen.c - non-blocking, type-checked opens of database, log and journal
 * paths (fileopen.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diskproof/fileopen.h"

const char *file_kind_name(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG:
		return "a regular file";
	case S_IFDIR:
		return "a directory";
	case S_IFBLK:
		return "a block device";
	case S_IFCHR:
		return "a character device";
	case S_IFIFO:
		return "a FIFO (named pipe)";
	case S_IFSOCK:
		return "a socket";
	case S_IFLNK:
		return "a symbolic link";
	}
	return "not a file";
}

static bool kind_accepted(mode_t mode, unsigned accept)
{
	return ((accept & FILE_OPEN_REGULAR) && S_ISREG(mode)) ||
	       ((accept & FILE_OPEN_BLOCK) && S_ISBLK(mode));
}

static int refuse(const char *path, mode_t mode, unsigned accept, struct strbuf *err)
{
	strbuf_addf(
		err, "%s: is %s, not %s; diskproof will not open it", path, file_kind_name(mode),
		accept & FILE_OPEN_BLOCK ? "a regular file or a block device" : "a regular file");
	return -EMEDIUMTYPE;
}

int file_open_checked(const char *path, int flags, mode_t mode, unsigned accept, struct stat *st,
		      struct strbuf *err)
{
	struct stat sb;
	int fd, e;

	fd = open(path, flags | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, mode);
	if (fd < 0) {
		e = errno;
		/* a FIFO without a reader (ENXIO), O_DIRECT on a FIFO (EINVAL), a
		 * directory for writing (EISDIR), a link with O_NOFOLLOW (ELOOP):
		 * say what is there rather than what open() thought of it */
		if ((flags & O_NOFOLLOW ? lstat(path, &sb) : stat(path, &sb)) == 0 &&
		    !kind_accepted(sb.st_mode, accept))
			return refuse(path, sb.st_mode, accept, err);
		return -e;
	}
	if (fstat(fd, &sb) != 0) {
		e = errno;
		close(fd);
		return -e;
	}
	if (!kind_accepted(sb.st_mode, accept)) {
		close(fd);
		return refuse(path, sb.st_mode, accept, err);
	}
	if (!(flags & O_NONBLOCK) && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0) {
		e = errno;
		close(fd);
		return -e;
	}
	if (st)
		*st = sb;
	return fd;
}
