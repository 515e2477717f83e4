/* SPDX-License-Identifier: MIT */
/*
 * format.c - the witness file's bytes: a batch frame encoded and checked,
 * a whole file parsed into the last run's records (witness_internal.h has
 * the layout). Pure: no I/O.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diskproof/page.h"
#include "witness_internal.h"

int witness_err(char *err, size_t errlen, int rc, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return rc;
}

int witness_frame_encode(uint32_t magic, const char *tag, size_t tag_len,
			 const struct witness_ack *a, size_t n, unsigned char **buf, size_t *len)
{
	size_t sz = witness_frame_size(n, tag_len);
	unsigned char *p = malloc(sz), *q;

	if (!p)
		return -ENOMEM;
	witness_put32(p, magic);
	witness_put32(p + 4, (uint32_t)n);
	witness_put32(p + 8, (uint32_t)tag_len);
	if (tag_len)
		memcpy(p + WITNESS_FRAME_HEAD, tag, tag_len);
	q = p + WITNESS_FRAME_HEAD + tag_len;
	for (size_t i = 0; i < n; i++, q += WITNESS_REC_SIZE) {
		witness_put32(q, a[i].db);
		witness_put32(q + 4, a[i].flags);
		witness_put64(q + 8, a[i].page);
		witness_put64(q + 16, a[i].generation);
		witness_put64(q + 24, (uint64_t)a[i].time_ns);
	}
	witness_put32(q, page_crc32c(0, p, sz - 4));
	*buf = p;
	*len = sz;
	return 0;
}

int witness_frame_check(const unsigned char *p, size_t len, uint32_t magic, size_t *frame_len)
{
	uint32_t count, tag_len;
	size_t sz;

	/* the magic and the lengths are judged as soon as their bytes are
	 * there: a wrong client is told from a slow one at its first bytes */
	for (size_t i = 0; i < 4 && i < len; i++)
		if (p[i] != (unsigned char)(magic >> (8 * i)))
			return -EBADMSG;
	if (len >= 8) {
		count = witness_get32(p + 4);
		if (count > WITNESS_BATCH_MAX)
			return -EBADMSG;
	}
	if (len < WITNESS_FRAME_HEAD)
		return 0;
	tag_len = witness_get32(p + 8);
	if (tag_len > WITNESS_TAG_MAX)
		return -EBADMSG;
	sz = witness_frame_size(count, tag_len);
	if (len < sz)
		return 0;
	if (page_crc32c(0, p, sz - 4) != witness_get32(p + sz - 4))
		return -EBADMSG;
	*frame_len = sz;
	return 1;
}

static void frame_acks(const unsigned char *p, struct witness_ack *out)
{
	uint32_t count = witness_get32(p + 4);
	const unsigned char *q = p + WITNESS_FRAME_HEAD + witness_get32(p + 8);

	for (uint32_t i = 0; i < count; i++, q += WITNESS_REC_SIZE)
		out[i] = (struct witness_ack){
			.db = witness_get32(q),
			.flags = witness_get32(q + 4),
			.page = witness_get64(q + 8),
			.generation = witness_get64(q + 16),
			.time_ns = (int64_t)witness_get64(q + 24),
		};
}

/* Whether a whole valid frame starts anywhere in [from, len): damage
 * followed by valid batches is not a torn tail. */
static bool valid_frame_after(const unsigned char *buf, size_t from, size_t len)
{
	size_t fl;

	for (size_t off = from; off + WITNESS_FRAME_HEAD + 4 <= len; off++)
		if (witness_get32(buf + off) == WITNESS_FRAME_MAGIC &&
		    witness_frame_check(buf + off, len - off, WITNESS_FRAME_MAGIC, &fl) == 1)
			return true;
	return false;
}

static int parse_header(const unsigned char *buf, size_t len, const char *what, char *err,
			size_t errlen)
{
	size_t m = len < 8 ? len : 8;

	/* a file shorter than its header whose bytes begin the magic: a
	 * creator stopped before its header was whole, no batch in it */
	if (memcmp(buf, WITNESS_FILE_MAGIC, m) != 0)
		return witness_err(err, errlen, -EMEDIUMTYPE,
				   "%s: not a diskproof witness file (its first bytes are not "
				   "\"%s\"); diskproof will not use it",
				   what, WITNESS_FILE_MAGIC);
	if (len < WITNESS_FILE_HEADER)
		return 0;
	if (witness_get32(buf + 8) != WITNESS_FILE_VERSION ||
	    witness_get32(buf + 12) != WITNESS_FILE_HEADER)
		return witness_err(err, errlen, -ENOTSUP,
				   "%s: witness file version %u, this diskproof reads version %u",
				   what, witness_get32(buf + 8), WITNESS_FILE_VERSION);
	return 0;
}

/* Walks the frames: the end of the valid ones, the last one's offset. */
static int walk_frames(const unsigned char *buf, size_t len, const char *what, size_t *valid_end,
		       size_t *last, char *err, size_t errlen)
{
	size_t off = WITNESS_FILE_HEADER, fl;

	*last = SIZE_MAX;
	while (off < len &&
	       witness_frame_check(buf + off, len - off, WITNESS_FRAME_MAGIC, &fl) == 1) {
		*last = off;
		off += fl;
	}
	*valid_end = off;
	if (off < len && valid_frame_after(buf, off + 1, len))
		return witness_err(err, errlen, -EBADMSG,
				   "%s: damaged at byte %zu with valid batches after it: not a "
				   "torn tail; diskproof will not read past it nor append to it",
				   what, off);
	return 0;
}

int witness_parse(const unsigned char *buf, size_t len, const char *what, struct witness_log *out,
		  size_t *valid_end, char *err, size_t errlen)
{
	size_t off, fl, last, n = 0, tag_len;
	const char *tag;
	int rc;

	memset(out, 0, sizeof(*out));
	*valid_end = WITNESS_FILE_HEADER;
	rc = parse_header(buf, len, what, err, errlen);
	if (rc || len <= WITNESS_FILE_HEADER) {
		*valid_end = len < WITNESS_FILE_HEADER ? 0 : len;
		return rc;
	}
	rc = walk_frames(buf, len, what, valid_end, &last, err, errlen);
	if (rc || last == SIZE_MAX)
		return rc;
	tag_len = witness_get32(buf + last + 8);
	tag = (const char *)buf + last + WITNESS_FRAME_HEAD;
	memcpy(out->run_tag, tag, tag_len);
	for (off = WITNESS_FILE_HEADER; off < *valid_end; off += fl) {
		(void)witness_frame_check(buf + off, len - off, WITNESS_FRAME_MAGIC, &fl);
		if (witness_get32(buf + off + 8) == tag_len &&
		    !memcmp(buf + off + WITNESS_FRAME_HEAD, tag, tag_len))
			n += witness_get32(buf + off + 4);
	}
	out->acks = calloc(n ? n : 1, sizeof(*out->acks));
	if (!out->acks)
		return -ENOMEM;
	for (off = WITNESS_FILE_HEADER; off < *valid_end; off += fl) {
		(void)witness_frame_check(buf + off, len - off, WITNESS_FRAME_MAGIC, &fl);
		if (witness_get32(buf + off + 8) != tag_len ||
		    memcmp(buf + off + WITNESS_FRAME_HEAD, tag, tag_len))
			continue;
		frame_acks(buf + off, out->acks + out->n);
		out->n += witness_get32(buf + off + 4);
		out->batches++;
	}
	for (size_t i = 0; i < out->n; i++) {
		if (i == 0 || out->acks[i].time_ns < out->first_ns)
			out->first_ns = out->acks[i].time_ns;
		if (i == 0 || out->acks[i].time_ns > out->last_ns)
			out->last_ns = out->acks[i].time_ns;
	}
	return 0;
}

void witness_log_free(struct witness_log *log)
{
	if (!log)
		return;
	free(log->acks);
	log->acks = NULL;
	log->n = 0;
}
