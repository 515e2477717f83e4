/* SPDX-License-Identifier: MIT */
/*
 * witness.c - the witness sink and reader (witness.h): the witness file
 * opened, repaired and appended to (one write, then fdatasync, per batch),
 * and the public open/send/close/load, which hand a HOST:PORT to tcp.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diskproof/fileopen.h"
#include "witness_internal.h"

struct witness {
	int fd;	      /* the witness file, or the TCP connection */
	bool tcp;     /* fd is a connection to a `diskproof witness` */
	bool dead;    /* a batch failed: every later one is refused */
	uint64_t end; /* the file's size (a file sink) */
	uint64_t seq; /* batches sent */
	size_t tag_len;
	char tag[WITNESS_TAG_MAX + 1];
	char spec[256];
};

bool witness_spec_is_tcp(const char *spec, char *host, size_t hostlen, char *port, size_t portlen)
{
	const char *colon = strrchr(spec, ':'), *h = spec;
	size_t hl;
	char *endp;
	long pn;

	if (!colon || strchr(spec, '/') || colon == spec || !colon[1])
		return false;
	pn = strtol(colon + 1, &endp, 10);
	if (*endp || pn < 1 || pn > 65535 || colon[1] == '+' || colon[1] == '-')
		return false;
	hl = (size_t)(colon - spec);
	if (spec[0] == '[') { /* [v6]:port */
		if (colon[-1] != ']' || hl < 3)
			return false;
		h++;
		hl -= 2;
	} else if (memchr(spec, ':', hl)) {
		return false; /* a bare IPv6 address needs its brackets */
	}
	if (hl + 1 > hostlen || strlen(colon + 1) + 1 > portlen)
		return false;
	memcpy(host, h, hl);
	host[hl] = '\0';
	snprintf(port, portlen, "%s", colon + 1);
	return true;
}

int witness_file_slurp(int fd, unsigned char **buf, size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	unsigned char *p = malloc(cap), *q;
	ssize_t r;

	if (!p)
		return -ENOMEM;
	for (;;) {
		if (n == cap) {
			q = realloc(p, cap * 2);
			if (!q) {
				free(p);
				return -ENOMEM;
			}
			p = q;
			cap *= 2;
		}
		r = pread(fd, p + n, cap - n, (off_t)n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;

			free(p);
			return -e;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	*buf = p;
	*len = n;
	return 0;
}

/* fsync of the directory holding path: a new file's name is durable too. */
static int sync_parent(const char *path)
{
	char copy[4096];
	int dfd, rc = 0;

	snprintf(copy, sizeof(copy), "%s", path);
	dfd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	if (fsync(dfd) != 0)
		rc = -errno;
	close(dfd);
	return rc;
}

static int open_checked(const char *path, bool *created, char *err, size_t errlen)
{
	struct strbuf sb;
	int fd;

	strbuf_init(&sb);
	*created = true;
	fd = file_open_checked(path, O_RDWR | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW, 0644,
			       FILE_OPEN_REGULAR, NULL, &sb);
	if (fd == -EEXIST) {
		*created = false;
		fd = file_open_checked(path, O_RDWR | O_APPEND | O_NOFOLLOW, 0, FILE_OPEN_REGULAR,
				       NULL, &sb);
	}
	if (fd < 0 && sb.len)
		witness_err(err, errlen, fd, "%s", sb.buf);
	else if (fd < 0)
		witness_err(err, errlen, fd, "%s: cannot open the witness file: %s", path,
			    strerror(-fd));
	strbuf_release(&sb);
	return fd;
}

/* The file's valid end: a torn tail after it is cut off, a header written
 * where there is none yet. */
static int repair(int fd, const char *path, uint64_t *end, char *err, size_t errlen)
{
	unsigned char *buf = NULL, head[WITNESS_FILE_HEADER] = WITNESS_FILE_MAGIC;
	struct witness_log log;
	size_t len = 0, valid_end = 0;
	int rc = witness_file_slurp(fd, &buf, &len);

	if (rc)
		return witness_err(err, errlen, rc, "%s: cannot read the witness file: %s", path,
				   strerror(-rc));
	rc = witness_parse(buf, len, path, &log, &valid_end, err, errlen);
	witness_log_free(&log);
	free(buf);
	if (rc)
		return rc;
	if (valid_end < len && ftruncate(fd, (off_t)valid_end) != 0)
		return witness_err(err, errlen, -errno, "%s: cannot cut its torn tail: %s", path,
				   strerror(errno));
	*end = valid_end;
	if (valid_end == 0) {
		witness_put32(head + 8, WITNESS_FILE_VERSION);
		witness_put32(head + 12, WITNESS_FILE_HEADER);
		return witness_file_append(fd, path, end, head, sizeof(head), err, errlen);
	}
	if (valid_end < len && fdatasync(fd) != 0)
		return witness_err(err, errlen, -errno, "%s: fdatasync: %s", path, strerror(errno));
	return 0;
}

int witness_file_open(const char *path, uint64_t *end, char *err, size_t errlen)
{
	bool created;
	int fd = open_checked(path, &created, err, errlen), rc;

	if (fd < 0)
		return fd;
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		rc = witness_err(err, errlen, -errno,
				 "%s: another diskproof holds this witness file (%s); one writer "
				 "at a time",
				 path, strerror(errno));
		goto out_close;
	}
	rc = repair(fd, path, end, err, errlen);
	if (!rc && created && (rc = sync_parent(path)) != 0)
		witness_err(err, errlen, rc, "%s: fsync of its directory: %s", path, strerror(-rc));
	if (!rc)
		return fd;
out_close:
	close(fd);
	return rc;
}

int witness_file_append(int fd, const char *path, uint64_t *end, const void *frame, size_t len,
			char *err, size_t errlen)
{
	ssize_t w;

	do
		w = write(fd, frame, len);
	while (w < 0 && errno == EINTR);
	if (w < 0 || (size_t)w != len) {
		int e = w < 0 ? errno : ENOSPC;

		/* a short write would hide every later batch behind a torn one */
		if (w > 0 && ftruncate(fd, (off_t)*end) != 0)
			e = errno;
		return witness_err(err, errlen, -e, "%s: writing a batch of %zu bytes: %s", path,
				   len, w < 0 ? strerror(e) : "short write");
	}
	/* fdatasync's failure is final: the pages it lost are not written
	 * again by a second call, so the batch is never acknowledged */
	if (fdatasync(fd) != 0)
		return witness_err(err, errlen, -errno, "%s: fdatasync: %s", path, strerror(errno));
	*end += len;
	return 0;
}

int witness_open(const char *spec, const char *run_tag, struct witness **out, char *err,
		 size_t errlen)
{
	char host[256], port[16];
	struct witness *w;
	size_t tl = run_tag ? strlen(run_tag) : 0;
	int rc;

	*out = NULL;
	if (tl == 0 || tl > WITNESS_TAG_MAX)
		return witness_err(err, errlen, -EINVAL,
				   "witness: the run's tag must be 1 to %u bytes, not %zu",
				   WITNESS_TAG_MAX, tl);
	w = calloc(1, sizeof(*w));
	if (!w)
		return witness_err(err, errlen, -ENOMEM, "witness: out of memory");
	memcpy(w->tag, run_tag, tl);
	w->tag_len = tl;
	snprintf(w->spec, sizeof(w->spec), "%s", spec);
	w->tcp = witness_spec_is_tcp(spec, host, sizeof(host), port, sizeof(port));
	if (w->tcp)
		rc = witness_tcp_connect(host, port, &w->fd, err, errlen);
	else
		rc = w->fd = witness_file_open(spec, &w->end, err, errlen);
	if (rc < 0) {
		free(w);
		return rc;
	}
	*out = w;
	return 0;
}

int witness_send(struct witness *w, const struct witness_ack *a, size_t n, char *err, size_t errlen)
{
	unsigned char *frame;
	size_t len;
	int rc;

	if (w->dead)
		return witness_err(err, errlen, -EPIPE,
				   "%s: an earlier batch failed; the witness takes no more",
				   w->spec);
	if (n > WITNESS_BATCH_MAX)
		return witness_err(err, errlen, -E2BIG,
				   "%s: a batch of %zu acknowledgements, over %u", w->spec, n,
				   WITNESS_BATCH_MAX);
	if (n == 0)
		return 0;
	rc = witness_frame_encode(WITNESS_FRAME_MAGIC, w->tag, w->tag_len, a, n, &frame, &len);
	if (rc)
		return witness_err(err, errlen, rc, "%s: out of memory for a batch", w->spec);
	if (w->tcp)
		rc = witness_tcp_send(w->fd, w->spec, w->seq + 1, frame, len, err, errlen);
	else
		rc = witness_file_append(w->fd, w->spec, &w->end, frame, len, err, errlen);
	free(frame);
	if (rc)
		w->dead = true;
	else
		w->seq++;
	return rc;
}

int witness_close(struct witness *w)
{
	int rc = 0;

	if (!w)
		return 0;
	if (close(w->fd) != 0)
		rc = -errno;
	free(w);
	return rc;
}

int witness_load(const char *spec, struct witness_log *out, char *err, size_t errlen)
{
	char host[256], port[16];
	unsigned char *buf = NULL;
	size_t len = 0, valid_end;
	struct strbuf sb;
	int fd, rc;

	memset(out, 0, sizeof(*out));
	if (witness_spec_is_tcp(spec, host, sizeof(host), port, sizeof(port))) {
		rc = witness_tcp_dump(spec, host, port, &buf, &len, err, errlen);
	} else {
		strbuf_init(&sb);
		fd = file_open_checked(spec, O_RDONLY | O_NOFOLLOW, 0, FILE_OPEN_REGULAR, NULL,
				       &sb);
		if (fd < 0) {
			rc = sb.len ? witness_err(err, errlen, fd, "%s", sb.buf)
				    : witness_err(err, errlen, fd,
						  "%s: cannot open the witness "
						  "file: %s",
						  spec, strerror(-fd));
			strbuf_release(&sb);
			return rc;
		}
		strbuf_release(&sb);
		rc = witness_file_slurp(fd, &buf, &len);
		close(fd);
		if (rc)
			witness_err(err, errlen, rc, "%s: cannot read the witness file: %s", spec,
				    strerror(-rc));
	}
	if (rc)
		return rc;
	rc = witness_parse(buf, len, spec, out, &valid_end, err, errlen);
	free(buf);
	if (rc == -ENOMEM)
		witness_err(err, errlen, rc, "%s: out of memory for its records", spec);
	if (rc)
		witness_log_free(out);
	return rc;
}
