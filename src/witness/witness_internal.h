/* SPDX-License-Identifier: MIT */
/*
 * witness_internal.h - what the witness's files share: the byte layout of a
 * witness file and of a batch frame, the frame's encoder and checker, the
 * file's parser, the appending file and the error helper.
 *
 * A witness file: a 16-byte header ("DPWITNS1", u32 version, u32 header size)
 * then batch frames, each (all little-endian):
 *   u32 WITNESS_FRAME_MAGIC, u32 record count, u32 run_tag length,
 *   run_tag bytes (no NUL), count records of 32 bytes
 *   (u32 db, u32 flags, u64 page, u64 generation, i64 time_ns),
 *   u32 CRC32C of every byte of the frame before it.
 * The TCP protocol sends the same frames; the witness answers each with an
 * ack frame (u32 WITNESS_ACK_MAGIC, u32 status: 0 or an errno, u64 the
 * batch's sequence number on the connection, u32 CRC32C of the 16 bytes
 * before). A dump request is a frame with WITNESS_DUMP_MAGIC and count 0,
 * tag length 0; the answer is u32 WITNESS_DUMPED_MAGIC, u32 status, u64
 * length, then that many bytes: the witness file as it is.
 */
#ifndef DISKPROOF_WITNESS_INTERNAL_H
#define DISKPROOF_WITNESS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diskproof/util.h"
#include "diskproof/witness.h"

#define WITNESS_FILE_MAGIC "DPWITNS1"
#define WITNESS_FILE_VERSION 1u
#define WITNESS_FILE_HEADER 16u
#define WITNESS_FRAME_MAGIC 0x42575044u	 /* "DPWB" */
#define WITNESS_DUMP_MAGIC 0x44575044u	 /* "DPWD" */
#define WITNESS_ACK_MAGIC 0x41575044u	 /* "DPWA" */
#define WITNESS_DUMPED_MAGIC 0x52575044u /* "DPWR" */
#define WITNESS_REC_SIZE 32u
#define WITNESS_FRAME_HEAD 12u
#define WITNESS_ACK_SIZE 20u
#define WITNESS_DUMPED_HEAD 16u

/* Fills err (when errlen > 0) and returns rc. */
int witness_err(char *err, size_t errlen, int rc, const char *fmt, ...) DP_PRINTF(4, 5);

static inline void witness_put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}
static inline void witness_put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}
static inline uint32_t witness_get32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t witness_get64(const unsigned char *p)
{
	return (uint64_t)witness_get32(p) | (uint64_t)witness_get32(p + 4) << 32;
}

/* The bytes of a frame of count records and a tag of tag_len bytes. */
static inline size_t witness_frame_size(size_t count, size_t tag_len)
{
	return WITNESS_FRAME_HEAD + tag_len + count * WITNESS_REC_SIZE + 4;
}

/* A frame of n records into a new buffer (*buf, *len: the caller frees).
 * Returns 0 or -ENOMEM. */
int witness_frame_encode(uint32_t magic, const char *tag, size_t tag_len,
			 const struct witness_ack *a, size_t n, unsigned char **buf, size_t *len);

/* What the len bytes at p start with: 1 and *frame_len when a whole valid
 * frame of magic; 0 when they are a valid frame's beginning, short of its
 * end (read more); -EBADMSG when they cannot begin one (another magic, a
 * count or tag length over the limits, a CRC mismatch). */
int witness_frame_check(const unsigned char *p, size_t len, uint32_t magic, size_t *frame_len);

/* Parses a witness file's bytes into out (the last run's records). valid_end
 * receives the end of the last valid frame (the header's end when none): a
 * torn tail starts there. Returns 0, -EMEDIUMTYPE (not a witness file: err
 * says so, naming what), -ENOTSUP (another version), -EBADMSG (damage with a
 * valid frame after it), -ENOMEM. what names the source in messages. */
int witness_parse(const unsigned char *buf, size_t len, const char *what, struct witness_log *out,
		  size_t *valid_end, char *err, size_t errlen);

/* Opens (or creates) the witness file at path for appending: refused when
 * not a regular file, a link, not a witness file, damaged before valid
 * batches, or held by another sink; a torn tail is cut off (never
 * acknowledged). Returns the descriptor (O_RDWR | O_APPEND, flock held) and
 * *end (its size), or -errno with err filled. */
int witness_file_open(const char *path, uint64_t *end, char *err, size_t errlen);

/* Appends len bytes with one write and fdatasyncs; *end grows by len. On a
 * short write the file is cut back to *end. Returns 0 or -errno, err filled. */
int witness_file_append(int fd, const char *path, uint64_t *end, const void *frame, size_t len,
			char *err, size_t errlen);

/* Reads the whole file at fd into a new buffer (the caller frees). */
int witness_file_slurp(int fd, unsigned char **buf, size_t *len);

/* Whether spec names a TCP witness (HOST:PORT), and its parts. */
bool witness_spec_is_tcp(const char *spec, char *host, size_t hostlen, char *port, size_t portlen);

/* The TCP client (tcp.c). */
int witness_tcp_connect(const char *host, const char *port, int *fd, char *err, size_t errlen);
int witness_tcp_send(int fd, const char *spec, uint64_t seq, const unsigned char *frame, size_t len,
		     char *err, size_t errlen);
int witness_tcp_dump(const char *spec, const char *host, const char *port, unsigned char **buf,
		     size_t *len, char *err, size_t errlen);

#endif
