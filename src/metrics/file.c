/*
 * file.c - the metrics textfile (--metrics-file): node_exporter's textfile
 * collector reads every *.prom file of its directory at each scrape, so the
 * file is replaced atomically, never rewritten in place: PATH.tmp (which the
 * collector ignores: it does not end in .prom) is written, synced and
 * renamed over PATH.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "diskproof/metrics.h"

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int metrics_file_write(const char *path, const struct strbuf *text, struct strbuf *err)
{
	struct strbuf tmp = STRBUF_INIT;
	int fd, ret = 0;

	strbuf_addf(&tmp, "%s.tmp", path);
	/* O_NOFOLLOW: a link planted at PATH.tmp is refused, not followed */
	fd = open(tmp.buf, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (fd < 0) {
		ret = -errno;
		goto out;
	}
	ret = write_all(fd, text->buf, text->len);
	if (!ret && fsync(fd))
		ret = -errno;
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && rename(tmp.buf, path))
		ret = -errno;
	if (ret)
		unlink(tmp.buf);
out:
	if (ret)
		strbuf_addf(err, "%s: cannot write the metrics file: %s", path, strerror(-ret));
	strbuf_release(&tmp);
	return ret;
}
