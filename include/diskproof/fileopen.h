/* SPDX-License-Identifier: MIT */
/*
 * fileopen.h - opening a database, log or journal path without ever blocking
 * on something that is not a file: a FIFO named db1.edb would otherwise hang
 * the open with SIGINT and SIGTERM blocked (they are read from a signalfd),
 * so that only kill -9 ends the command.
 *
 * The open is non-blocking and the descriptor's type is checked with fstat
 * (race-free: it is the object opened that is checked, not a name looked at
 * earlier); O_NONBLOCK is then cleared again, since io_uring honours it on
 * regular files too and would return -EAGAIN instead of reading.
 */
#ifndef DISKPROOF_FILEOPEN_H
#define DISKPROOF_FILEOPEN_H

#include <sys/stat.h>
#include <sys/types.h>

#include "diskproof/util.h"

/* The kinds of object a caller accepts at a path. */
#define FILE_OPEN_REGULAR 0x1u
#define FILE_OPEN_BLOCK 0x2u

/*
 * open(path, flags | O_CLOEXEC | O_NOCTTY, mode) that never blocks on a FIFO
 * or a device and accepts only the kinds in accept. Returns the descriptor
 * (>= 0; st, when not NULL, receives its fstat), or:
 *   -EMEDIUMTYPE: path holds another kind (a FIFO, socket, character device,
 *     directory, block device, or with O_NOFOLLOW a symbolic link); err
 *     receives "PATH: is a FIFO (named pipe), not a regular file; diskproof
 *     will not open it";
 *   -errno of open() otherwise, with nothing in err (the caller says it in
 *     its own words: "missing", "refuses O_DIRECT", ...).
 */
int file_open_checked(const char *path, int flags, mode_t mode, unsigned accept, struct stat *st,
		      struct strbuf *err) DP_MUST_CHECK;

/* "a FIFO (named pipe)", "a socket", "a directory", ... for st_mode. */
const char *file_kind_name(mode_t mode);

#endif
