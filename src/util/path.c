/* SPDX-License-Identifier: MIT */
/*
 * path.c - the path helpers every module shares (util.h): joining a
 * directory and a name, the directory part of a path, the nearest existing
 * ancestor, resolving a path that may not exist yet, and whether one path is
 * at or under another. Pure string work, except where a name says it looks
 * at the filesystem (nearest existing, resolve).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "diskproof/util.h"

char *path_join(const char *dir, const char *name, const char *ext)
{
	struct strbuf sb = STRBUF_INIT;
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	strbuf_add(&sb, dir, n);
	if (sb.len && sb.buf[sb.len - 1] != '/')
		strbuf_addch(&sb, '/');
	strbuf_addstr(&sb, name);
	strbuf_addstr(&sb, ext ? ext : "");
	return strbuf_detach(&sb, NULL);
}

void path_dirname(const char *path, struct strbuf *out)
{
	const char *slash = strrchr(path, '/');

	strbuf_reset(out);
	if (slash)
		strbuf_add(out, path, slash == path ? 1 : (size_t)(slash - path));
	else
		strbuf_addch(out, '.');
}

int path_nearest_existing(const char *path, char *out, size_t len)
{
	struct stat st;
	char *slash;

	if (snprintf(out, len, "%s", path[0] ? path : ".") >= (int)len)
		return -ENAMETOOLONG;
	while (stat(out, &st) != 0) {
		if (errno != ENOENT && errno != ENOTDIR)
			return -errno;
		slash = strrchr(out, '/');
		if (!slash) /* a relative name with nothing above it that exists */
			snprintf(out, len, ".");
		else if (slash == out)
			out[1] = '\0';
		else
			*slash = '\0';
	}
	return 0;
}

char *path_resolve(const char *path)
{
	struct strbuf sb = STRBUF_INIT, dir = STRBUF_INIT;
	const char *slash = strrchr(path, '/');
	char *r = realpath(path, NULL);

	if (r || errno != ENOENT)
		goto out;
	path_dirname(path, &dir);
	r = realpath(dir.buf, NULL);
	if (r) {
		strbuf_addf(&sb, "%s/%s", strcmp(r, "/") ? r : "", slash ? slash + 1 : path);
		free(r);
		r = strbuf_detach(&sb, NULL);
	}
out:
	strbuf_release(&sb);
	strbuf_release(&dir);
	return r;
}

bool path_same(const char *a, const char *b)
{
	char ra[PATH_MAX], rb[PATH_MAX];

	return realpath(a, ra) && realpath(b, rb) && !strcmp(ra, rb);
}

bool path_is_under(const char *dir, const char *path)
{
	size_t n = strlen(dir);

	if (!strcmp(dir, "/"))
		return true;
	return !strncmp(dir, path, n) && (path[n] == '/' || path[n] == '\0');
}
