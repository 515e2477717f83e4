/* SPDX-License-Identifier: MIT */
/*
 * verify.h - reads back every page of every database and every block of every
 * log that a plan names, and checks each one (page.h format): header, CRC32C,
 * page or block number, database id, and each database page's generation
 * against its journal (journal.h). With deep, each page's payload is also
 * regenerated from its header and compared byte for byte.
 *
 * Generations: a clean journal gives each page's exact generation (older is
 * a lost write, newer is an error too); a journal without JOURNAL_CLEAN is a
 * lower bound (older is a lost write, newer is fine); a journal entry of 0,
 * or no journal at all, accepts any generation from 1 up. A page the journal
 * marks as one whose last write failed (journal.h) holds something undefined:
 * it is not checked, only reported (VERIFY_WRITE_FAILED, never an integrity
 * error). Log blocks carry no expected generation.
 *
 * All volumes are read at once, one thread and one context of the
 * profile's engine (verify_options.engine) per volume,
 * 1 MiB reads, a few in flight per file, O_DIRECT when asked. Nothing is
 * ever written: every file is opened read-only. Nothing here prints:
 * progress reaches the caller through a callback, problems through the
 * result.
 *
 * Ownership: verify_run() fills a struct verify_result that the caller
 * releases with verify_result_release() (safe on a zeroed or released one).
 * The result points into the plan (paths, databases): keep the plan alive
 * while using it.
 */
#ifndef DISKPROOF_VERIFY_H
#define DISKPROOF_VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diskproof/plan.h"
#include "diskproof/util.h"

/* What is wrong with a page or log block. */
enum verify_problem {
	VERIFY_NOT_OURS,     /* no diskproof header: never written by diskproof, or overwritten */
	VERIFY_CHECKSUM,     /* CRC32C mismatch: corrupt or torn */
	VERIFY_MISDIRECTED,  /* another page's (or database's, or the log's) content */
	VERIFY_LOST_WRITE,   /* older generation than the journal's */
	VERIFY_UNWRITTEN,    /* generation 0 */
	VERIFY_NEWER,	     /* newer than a clean journal */
	VERIFY_PAYLOAD,	     /* deep: CRC fine, bytes differ from the regenerated page */
	VERIFY_READ_ERROR,   /* the read failed: an environment error, not integrity */
	VERIFY_WRITE_FAILED, /* its last write failed (journal): not checked, not an error */
	VERIFY_PROBLEM_COUNT,
};

/* What it means, for a line about one page: "checksum mismatch: corrupt or
 * torn", ... */
const char *verify_problem_name(enum verify_problem p);
/* Two or three words, for counts: "checksum mismatch", "lost write", ... */
const char *verify_problem_short(enum verify_problem p);
/* Everything but VERIFY_READ_ERROR and VERIFY_WRITE_FAILED is a data
 * integrity error. */
bool verify_problem_is_integrity(enum verify_problem p);

enum verify_journal_state {
	VERIFY_JOURNAL_NONE,	    /* no journal: generations not checked */
	VERIFY_JOURNAL_CLEAN,	    /* exact generations */
	VERIFY_JOURNAL_LOWER_BOUND, /* after an unclean stop: only older is wrong */
	VERIFY_JOURNAL_UNUSABLE,    /* damaged, foreign or another geometry: see note */
};

/* One bad page or log block. */
struct verify_bad {
	uint64_t index;	       /* page number, or log block number (0-based) */
	uint64_t offset;       /* bytes into the file */
	uint64_t expected_gen; /* 0 = any generation from 1 up */
	uint64_t found_gen;    /* from the header read back (0 when there is none) */
	uint64_t found_page;   /* VERIFY_MISDIRECTED: the page the header names */
	uint64_t failed_run;   /* VERIFY_WRITE_FAILED: the run (journal_failed_run()) */
	uint32_t found_db;     /* VERIFY_MISDIRECTED: the database the header names */
	int error;	       /* VERIFY_READ_ERROR: the errno */
	uint8_t problem;       /* enum verify_problem */
	bool log;	       /* a log block, not a database page */
	bool found_log;	       /* VERIFY_MISDIRECTED: the header is a log block's */
};

struct verify_file {
	const char *path; /* the plan's */
	uint32_t block;	  /* page size, or the log's block size */
	uint64_t size;	  /* bytes in the file */
	uint64_t checked; /* pages or blocks read and checked */
	uint64_t newer;	  /* pages newer than a lower-bound journal: accepted */
	uint64_t bad[VERIFY_PROBLEM_COUNT];
	struct strbuf error; /* why it was not (fully) verified; empty when it was */
};

struct verify_db {
	const struct plan_db *pdb;
	struct verify_file data, log;
	enum verify_journal_state journal;
	struct strbuf journal_note; /* VERIFY_JOURNAL_UNUSABLE: why */
	uint64_t journal_run_id;    /* the run that wrote the journal (0: init, precondition) */
	/* the lowest-numbered problems (database pages first, then log
	 * blocks), sorted; at most verify_options.max_listed */
	struct verify_bad *bad;
	size_t nr_bad;
	uint64_t unlisted; /* problems beyond the list */
};

struct verify_result {
	struct verify_db *dbs; /* plan order */
	size_t nr_dbs;
	uint64_t pages, log_blocks; /* checked */
	uint64_t bytes;		    /* read */
	uint64_t elapsed_ns;
	uint64_t bad[VERIFY_PROBLEM_COUNT]; /* over every file */
	uint64_t integrity_errors;	    /* bad pages and blocks, read errors excluded */
	uint64_t write_failed;		    /* pages not checked: their last write failed */
	/* files that could not be verified (missing, not diskproof's, short),
	 * unusable journals, and read errors */
	uint64_t env_errors;
	int signal; /* SIGINT or SIGTERM that stopped it; 0 when it ran to the end */
};

/* Progress of one volume, for the caller to show. */
struct verify_progress {
	const char *volume;
	uint64_t done, total; /* bytes */
	uint64_t bad;	      /* problems so far */
	bool finished;
};

struct verify_callbacks {
	/* From the calling thread: every progress_ns, and once more at the end
	 * with final set. v has one entry per volume. */
	void (*progress)(void *arg, const struct verify_progress *v, size_t nr_vols,
			 uint64_t elapsed_ns, bool final);
	void *arg;
};

struct verify_options {
	const struct plan *plan; /* built with files */
	const char *engine;	 /* engine that reads (engine.h): the profile's; NULL: io_uring */
	bool direct;		 /* O_DIRECT */
	bool deep;		 /* regenerate and compare every payload byte */
	uint64_t rate;		 /* most bytes/s over all volumes; 0 = unlimited */
	int signal_fd;		 /* signalfd for SIGINT/SIGTERM, or -1 */
	unsigned max_listed;	 /* problems listed per database; 0 = 100 */
	uint64_t progress_ns;	 /* progress callback period; 0 = only the final one */
	struct verify_callbacks cb;
};

/*
 * Verifies every file of the plan. Returns 0 when verification ran (to the
 * end, or until a signal: r->signal), whatever it found: see r. Returns
 * -errno when it could not run at all (the engine cannot start, out of memory), with
 * "where: what: why" in err. A missing file, a file that is not diskproof's,
 * an unusable journal or a failed read is not a failure of verify_run(): it
 * is counted in r->env_errors and explained in the file's error or the
 * database's journal_note.
 */
int verify_run(const struct verify_options *o, struct verify_result *r,
	       struct strbuf *err) DP_MUST_CHECK;

void verify_result_release(struct verify_result *r);

/*
 * Checks one database page (log false) or log block (log true) read back at
 * index: header, CRC32C, number, database id, then for pages the generation
 * against expected (0 = any from 1 up; exact: a clean journal's, so newer is
 * wrong too). With scratch (a size-byte buffer) the payload is regenerated
 * from the header and compared. Returns true when it is fine; otherwise
 * fills *bad (index, offset and error left to the caller) and returns false.
 */
bool verify_block(const void *buf, uint32_t size, bool log, uint32_t db_id, uint64_t index,
		  uint64_t expected, bool exact, void *scratch, struct verify_bad *bad);

/*
 * The durability test's classification (witness_check.c, docs/durability.md):
 * every page the witness saw acknowledged, at its newest acknowledgement,
 * read back (a sim profile: the simulated cut's state beside its journal,
 * cutstate.h) and classified. A page holding the acknowledged generation or
 * a newer one (written after its last acknowledgement: in flight) is intact;
 * an older one with a sound page is lost after acknowledgement; a page whose
 * checksum fails but whose every 512-byte sector is the page as written at
 * one of two adjacent generations is torn (a failure when the newer of the
 * two is at most the acknowledged one; torn in flight, no failure, when it
 * is newer: a write not acknowledged yet); anything else is corrupt.
 */
enum verify_ack_class {
	VERIFY_ACK_INTACT,
	VERIFY_ACK_LOST,
	VERIFY_ACK_TORN,
	VERIFY_ACK_CORRUPT,
	VERIFY_ACK_CLASSES,
};

/* "intact", "lost after acknowledgement", "torn", "corrupt" */
const char *verify_ack_class_name(enum verify_ack_class c);

struct verify_ack_bad {
	uint32_t db; /* plan order, 0-based (the witness's) */
	uint64_t page;
	uint64_t acked_gen; /* the newest acknowledgement's */
	uint64_t found_gen; /* in the page's header (0: none) */
	int64_t acked_ns;   /* its time, CLOCK_REALTIME */
	uint8_t cls;	    /* enum verify_ack_class */
};

struct verify_ack_result {
	uint64_t acks;			    /* records the witness holds for the run */
	uint64_t pages;			    /* distinct pages acknowledged: classified */
	uint64_t count[VERIFY_ACK_CLASSES]; /* per class */
	uint64_t newer;			    /* intact pages written after their last ack */
	/* pages torn by a write in flight at the cut (newer than their last
	 * acknowledgement): not in count[], no failure (writes not atomic) */
	uint64_t torn_in_flight;
	int64_t cut_ns;		    /* the cut: sim's, else the last ack's time */
	bool sim_cut;		    /* cut_ns is the simulated cut's */
	int64_t newest_lost_ns;	    /* 0: none lost */
	struct verify_ack_bad *bad; /* the first max_listed, db and page order */
	size_t nr_bad;
	uint64_t unlisted;
};

/*
 * Classifies every page log acknowledged (newest acknowledgement per page)
 * against the plan's files, or, with sim, against each database's cut state.
 * max_listed: bad pages listed (0 = 20). 0, or -errno with err said (a file
 * or state that cannot be read, an acknowledgement naming a database or page
 * the plan does not have). The caller releases r (verify_ack_release).
 */
struct witness_log;
int verify_witness(const struct plan *pl, bool sim, const struct witness_log *log,
		   unsigned max_listed, struct verify_ack_result *r,
		   struct strbuf *err) DP_MUST_CHECK;
void verify_ack_release(struct verify_ack_result *r);

#endif
