/* SPDX-License-Identifier: MIT */
/*
 * path.c - what a results file's path may be: a regular file (or a
 * symbolic link to one), with no planted -wal, -shm or -journal beside it,
 * checked before SQLite opens it and again after; the URI it is opened by;
 * and whether its -wal is empty (so a read-only filesystem can read it as
 * immutable).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <sqlite3.h>

#include "store_internal.h"

/* What a file of mode m is, for a message. */
static const char *store_kind(mode_t m)
{
	if (S_ISREG(m))
		return "a regular file";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISSOCK(m))
		return "a socket";
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISLNK(m))
		return "a symbolic link";
	return "not a regular file";
}

/*
 * 0 when path is a regular file (or, with follow, a symbolic link to one);
 * -ENOENT when nothing is there (a dangling symbolic link is not nothing: it
 * would make SQLite create its target); else -ENOTSUP with "PATH: is a block
 * device; WHAT must be a regular file". *st gets what was found.
 */
static int store_path_kind(const char *path, bool follow, const char *what, struct stat *st,
			   struct strbuf *err)
{
	struct stat t;

	if (lstat(path, st) != 0) {
		if (errno == ENOENT)
			return -ENOENT;
		strbuf_addf(err, "%s: cannot look at it: %s", path, strerror(errno));
		return errno == ENOTDIR ? -ENOTSUP : -errno;
	}
	if (S_ISREG(st->st_mode))
		return 0;
	if (!S_ISLNK(st->st_mode)) {
		strbuf_addf(err, "%s: is %s; %s must be a regular file", path,
			    store_kind(st->st_mode), what);
		return -ENOTSUP;
	}
	if (stat(path, &t) != 0) {
		strbuf_addf(err,
			    "%s: is a symbolic link to nothing (%s); %s must be a regular file",
			    path, strerror(errno), what);
		return -ENOTSUP;
	}
	if (follow && S_ISREG(t.st_mode)) {
		*st = t;
		return 0;
	}
	strbuf_addf(err, "%s: is a symbolic link to %s; %s must be a regular file", path,
		    store_kind(t.st_mode), what);
	return -ENOTSUP;
}

/* The files SQLite keeps beside a results file. */
static const char *const store_siblings[] = {"-wal", "-shm", "-journal"};

/* Each sibling of real (a resolved path) is absent or a regular file (not
 * even a symbolic link to one: SQLite would write through it). */
static int store_siblings_check(const char *real, struct strbuf *err)
{
	struct strbuf name = STRBUF_INIT, what = STRBUF_INIT;
	struct stat st;
	int ret = 0;

	for (size_t i = 0; i < DP_ARRAY_SIZE(store_siblings) && !ret; i++) {
		strbuf_reset(&name);
		strbuf_reset(&what);
		strbuf_addf(&name, "%s%s", real, store_siblings[i]);
		strbuf_addf(&what, "the results file's %s", store_siblings[i]);
		ret = store_path_kind(name.buf, false, what.buf, &st, err);
		if (ret == -ENOENT) {
			ret = 0;
		} else if (!ret && st.st_nlink > 1) {
			/* SQLite would write the other names' file through it */
			strbuf_addf(err, "%s: has %lu hard links; %s must be a file of its own",
				    name.buf, (unsigned long)st.st_nlink, what.buf);
			ret = -ENOTSUP;
		}
	}
	strbuf_release(&name);
	strbuf_release(&what);
	return ret;
}

int store_path_check(const char *path, bool may_create, struct strbuf *real, struct stat *st,
		     struct strbuf *err)
{
	struct strbuf own = STRBUF_INIT, dir = STRBUF_INIT;
	struct strbuf *rp = real ? real : &own;
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	struct stat st0;
	char *r = NULL;
	int ret;

	st = st ? st : &st0;
	memset(st, 0, sizeof(*st));
	strbuf_reset(rp);
	if (!*base) {
		strbuf_addf(err, "%s: names a directory; the results file must be a regular file",
			    *path ? path : "\"\"");
		return -ENOTSUP;
	}
	ret = store_path_kind(path, true, "the results file", st, err);
	if (ret == -ENOENT && !may_create) {
		strbuf_addf(err, "%s: no such results file", path);
		goto out;
	}
	if (ret == -ENOENT) {
		/* a new file: its directory's real path and its name */
		memset(st, 0, sizeof(*st));
		if (slash)
			strbuf_add(&dir, path, slash == path ? 1 : (size_t)(slash - path));
		else
			strbuf_addch(&dir, '.');
		r = realpath(dir.buf, NULL);
		ret = r ? 0 : -errno;
		if (ret)
			strbuf_addf(err, "%s: cannot open: %s: %s", path, dir.buf, strerror(-ret));
		else
			strbuf_addf(rp, "%s/%s", strcmp(r, "/") ? r : "", base);
	} else if (!ret) {
		r = realpath(path, NULL);
		ret = r ? 0 : -errno;
		if (ret)
			strbuf_addf(err, "%s: cannot open: %s", path, strerror(-ret));
		else
			strbuf_addstr(rp, r);
	}
	if (!ret)
		ret = store_siblings_check(rp->buf, err);
out:
	free(r);
	strbuf_release(&dir);
	strbuf_release(&own);
	return ret;
}

/* "file:PATH?QUERY" with PATH percent-encoded where URIs need it. */
void store_uri(struct strbuf *uri, const char *path, const char *query)
{
	const unsigned char *p;

	strbuf_addstr(uri, "file:");
	for (p = (const unsigned char *)path; *p; p++) {
		if (*p == '%' || *p == '?' || *p == '#' || *p <= ' ' || *p >= 0x7f)
			strbuf_addf(uri, "%%%02X", *p);
		else
			strbuf_addch(uri, (char)*p);
	}
	strbuf_addf(uri, "?%s", query);
}

/*
 * After SQLite has opened the file (it reads and writes nothing at open):
 * what is at the real path now is still the regular file looked at before (or,
 * for a new file, the one SQLite just made), and no sibling was planted. This
 * closes the race between the first look and the open: nothing is read or
 * written before it passes.
 */
int store_path_recheck(const struct store *s, const char *real, const struct stat *before,
		       struct strbuf *err)
{
	struct stat st;
	int ret;

	ret = store_path_kind(real, false, "the results file", &st, err);
	if (ret == -ENOENT) {
		strbuf_addf(err, "%s: vanished while being opened", s->path);
		return -EIO;
	}
	if (ret)
		return ret;
	if (before->st_ino && (st.st_ino != before->st_ino || st.st_dev != before->st_dev)) {
		strbuf_addf(err, "%s: was replaced while being opened", s->path);
		return -EIO;
	}
	return store_siblings_check(real, err);
}

/* Is the -wal beside path absent or empty (nothing lost by immutable=1)? */
bool store_wal_empty(const char *path)
{
	struct strbuf real = STRBUF_INIT;
	struct stat st;
	bool empty = true;
	char *r = realpath(path, NULL);

	if (r) {
		strbuf_addf(&real, "%s-wal", r);
		empty = stat(real.buf, &st) != 0 || st.st_size == 0;
	}
	free(r);
	strbuf_release(&real);
	return empty;
}
