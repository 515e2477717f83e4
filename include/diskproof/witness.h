/* SPDX-License-Identifier: MIT */
/*
 * witness.h - the durability witness: a record, outside the failure domain,
 * of every page write the storage acknowledged as durable. A low-level
 * module: uses only page (CRC32C) and util; run, verify and cli use it.
 *
 * A witness is a file (fsynced after every batch; for a single-host
 * rehearsal, on another device) or a TCP witness on another host
 * (`diskproof witness --listen ADDR:PORT --out FILE`), which appends each
 * batch to its FILE with the same code and answers only after its
 * fdatasync. docs/durability.md, "The witness", has the format and the
 * protocol.
 *
 * Contents: the acknowledgement record; the sink (open, send, close); the
 * reader (load, free); limits; the listening witness (serve).
 *
 * Functions return 0 or -errno; err (errlen bytes, may be NULL when errlen
 * is 0) receives a message complete enough to print as it is.
 */
#ifndef DISKPROOF_WITNESS_H
#define DISKPROOF_WITNESS_H

#include <stddef.h>
#include <stdint.h>

/* One acknowledgement: the storage said this page's write is durable. */
struct witness_ack {
	uint32_t db;	     /* database index, profile order (0-based) */
	uint32_t flags;	     /* WITNESS_ACK_* ; 0 today */
	uint64_t page;	     /* page number within the database file */
	uint64_t generation; /* the generation stamped into the page */
	int64_t time_ns;     /* CLOCK_REALTIME when the durability point returned */
};

/* Limits of one batch: a longer run_tag is refused by witness_open, a
 * longer batch by witness_send (send it as several). */
#define WITNESS_TAG_MAX 127u
#define WITNESS_BATCH_MAX 65536u

/* ---- the sink ---- */

struct witness; /* a sink: a witness file (FILE) or a TCP witness (HOST:PORT) */

/* spec: "HOST:PORT" (a TCP witness: `diskproof witness --listen`) or a file path.
 * run_tag identifies the run (profile name + run start time) in the records.
 * A spec is HOST:PORT when it has no '/', and ends in ':' and a port number
 * (an IPv6 address in brackets: "[::1]:7000"); "./x:1" names a file.
 * A file is created (its directory fsynced) or appended to; one that is not a
 * witness file, a FIFO, a device or a symbolic link is refused, as is one
 * another sink holds (flock). A torn last batch (a writer or witness killed
 * mid-write: never acknowledged) is cut off before appending; damage with
 * valid batches after it is refused. On success *out is the caller's, for
 * witness_close. */
int witness_open(const char *spec, const char *run_tag, struct witness **out, char *err,
		 size_t errlen);
/* Records n acknowledgements as ONE batch; returns 0 only once the witness has made the
 * whole batch durable (file: written + fdatasync; TCP: the witness answered after its
 * fsync). Nonzero with err filled on failure. After a failure the sink refuses every
 * further batch (a run must stop rather than go on without its witness). */
int witness_send(struct witness *w, const struct witness_ack *a, size_t n, char *err,
		 size_t errlen);
/* Closes the sink and frees w (NULL is fine). Returns 0 or -errno of close. */
int witness_close(struct witness *w);

/* ---- the reader ---- */

/* Everything the witness recorded for the LAST run in it (records carry run_tag; earlier
 * runs of a series are skipped), in order; a short or damaged trailing batch (writer killed
 * mid-batch) is never returned: it was never acknowledged. spec as for witness_open (a
 * HOST:PORT fetches the records from the listening witness).
 * A witness with no batch yet gives n = 0 and an empty run_tag (returns 0); a
 * missing file -ENOENT, a file that is not a witness file -EMEDIUMTYPE, damage
 * with valid batches after it -EBADMSG. out is the caller's: witness_log_free. */
struct witness_log {
	char run_tag[128]; /* of the last run recorded */
	struct witness_ack *acks;
	size_t n;
	int64_t first_ns, last_ns; /* the earliest and latest time_ns of acks */
	uint64_t batches;	   /* of the last run */
};
int witness_load(const char *spec, struct witness_log *out, char *err, size_t errlen);
/* Frees log's records; safe on a freed or zeroed log, and twice. */
void witness_log_free(struct witness_log *log);

/* ---- the listening witness (`diskproof witness --listen`) ---- */

/* How long a writer waits for the witness's answer, and the witness for the
 * rest of a dump's reader: past it the batch failed (the run stops). */
#define WITNESS_TIMEOUT_MS 10000

struct witness_server_stats {
	uint64_t connections; /* accepted */
	uint64_t batches;     /* made durable and answered */
	uint64_t records;     /* in those batches */
	uint64_t partial;     /* connections closed mid-batch: the part discarded */
	uint64_t dropped;     /* connections dropped: not a witness client */
	uint64_t dumps;	      /* the file sent to a reader (witness_load) */
};

/* One line the witness has to say (a connection, a drop); the caller prints. */
typedef void (*witness_say_fn)(void *arg, const char *line);

/*
 * Listens at listen ("ADDR:PORT", "[ADDR6]:PORT"), appends
 * every whole valid batch a writer sends to the witness file at path
 * (witness_open's rules: created or appended to, never truncated) and answers
 * it once fdatasync returned; a partial batch at a writer's end is discarded,
 * a client that is not a witness writer dropped; a dump request gets the
 * file. Several writers at once (poll). Returns 0 once stop_fd is readable
 * (a signalfd), -errno with err filled when it cannot listen or cannot make
 * a batch durable (that writer is told first). st counts what it did.
 */
int witness_serve(const char *listen, const char *path, int stop_fd, witness_say_fn say, void *arg,
		  struct witness_server_stats *st, char *err, size_t errlen);

#endif
