/* SPDX-License-Identifier: MIT */
/*
 * keys.c - the table of profile keys and the one function that turns a key's
 * text into its field. Parsing, range checks, defaults and the reference in
 * docs/profiles.md all follow this table (STYLE.md rule 7); profile_key_check()
 * validates an entry and a unit test runs it over all of them.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "profile_internal.h"

#define KIB 1024ULL
#define MIB (1024ULL * 1024)
#define MS NSEC_PER_MSEC
#define SEC NSEC_PER_SEC

#define PFIELD(m) offsetof(struct profile, m), sizeof(((struct profile *)0)->m)
#define VFIELD(m) offsetof(struct profile_volume, m), sizeof(((struct profile_volume *)0)->m)

static const char *const sections[] = {
	"test", "sizing", "workload", "thresholds", "engine", "sim", "volume",
};

static const char *const test_types[] = {"performance", "stress",     "backup",
					 "recovery",	"durability", NULL};
/* in enum profile_sim_cache order */
static const char *const sim_caches[] = {"none", "honest", "lying", "tearing", NULL};
static const char *const models[] = {"jetstress", "fixed", NULL};
static const char *const arrivals[] = {"closed", "rate", NULL};
static const char *const patterns[] = {"random", "sequential", NULL};
static const char *const data_flushes[] = {"none", "per_batch", "rate", NULL};
static const char *const log_syncs[] = {"write_through", "fdatasync", NULL};
static const char *const max_bases[] = {"sample", "io", NULL};
static const char *const latency_bases[] = {"service", "response", NULL};
static const char *const tune_goals[] = {"max", "target", "iops", NULL};
static const char *const tune_steps[] = {"database", "stream", NULL};
const char *const profile_engine_names[] = {"io_uring", "libaio", "psync", "sim", NULL};

/* clang-format off */
static const struct profile_key keys[] = {
	/* [test] */
	{ .section = "test", .name = "name", .type = PROFILE_KEY_STRING,
	  .store = PROFILE_STORE_STR, PFIELD(name),
	  .help = "Name of the profile in reports; default: the file name without .ini." },
	{ .section = "test", .name = "description", .type = PROFILE_KEY_STRING,
	  .store = PROFILE_STORE_STR, PFIELD(description),
	  .help = "One line saying what the profile is for." },
	{ .section = "test", .name = "type", .type = PROFILE_KEY_CHOICE,
	  .store = PROFILE_STORE_TYPE, PFIELD(type), .choices = test_types,
	  .def = "performance",
	  .help = "performance (strict thresholds), stress (long run, lenient maxima), backup "
		  "(sequential read of every database), recovery (write log segments, then "
		  "replay them) or durability (write-through page writes, each acknowledgement "
		  "sent to a witness, until a power cut: docs/durability.md)." },
	{ .section = "test", .name = "duration", .type = PROFILE_KEY_DURATION,
	  .store = PROFILE_STORE_U64, PFIELD(duration_ns),
	  .min = PROFILE_DURATION_MIN, .max = PROFILE_DURATION_MAX, .def = "2h",
	  .help = "Measured run time after the warm-up; default 2h, or 24h for stress." },
	{ .section = "test", .name = "warmup", .type = PROFILE_KEY_DURATION,
	  .store = PROFILE_STORE_U64, PFIELD(warmup_ns),
	  .min = 0, .max = PROFILE_DURATION_MAX, .def = "0s",
	  .help = "Time run before measuring starts; at most the duration." },

	{ .section = "test", .name = "max_errors", .type = PROFILE_KEY_U64,
	  .store = PROFILE_STORE_U64, PFIELD(max_errors),
	  .min = 0, .max = UINT64_MAX, .def = "10",
	  .help = "Stop the run after this many I/O errors (it fails with the first "
		  "anyway); 0 = never stop early." },
	{ .section = "test", .name = "io_timeout", .type = PROFILE_KEY_DURATION,
	  .store = PROFILE_STORE_U64, PFIELD(io_timeout_ns),
	  .min = 100 * MS, .max = 3600 * SEC, .def = "30s",
	  .help = "An I/O without a completion for this long is reported as hung and "
		  "fails the run." },
	{ .section = "test", .name = "recovery_segments", .type = PROFILE_KEY_U64,
	  .store = PROFILE_STORE_U64, PFIELD(recovery_segments),
	  .min = 1, .max = 1000000, .def = "500",
	  .help = "recovery: log segments each database writes and then replays (500, as "
		  "Jetstress replays 500 log files); the log then defaults to one segment "
		  "more." },
	{ .section = "test", .name = "repeat", .type = PROFILE_KEY_U64,
	  .store = PROFILE_STORE_U64, PFIELD(repeat),
	  .min = 1, .max = PROFILE_REPEAT_MAX, .def = "1",
	  .help = "run: run the profile this many times as one series, as run --repeat N "
		  "does (which overrides it); 1 = one run." },
	{ .section = "test", .name = "witness", .listed_when_set = true, .type = PROFILE_KEY_STRING,
	  .store = PROFILE_STORE_STR, PFIELD(witness),
	  .help = "durability: where each acknowledgement goes, a witness file (on another "
		  "device) or HOST:PORT (diskproof witness --listen); run --witness overrides." },
	{ .section = "test", .name = "fingerprint", .listed_when_set = true, .type = PROFILE_KEY_STRING,
	  .store = PROFILE_STORE_STR, PFIELD(fingerprint),
	  .help = "The device fingerprint this profile was learned from (diskproof learn writes "
		  "it beside the profile), a JSON file relative to the profile's directory: a real "
		  "run prints how its own devices' figures compare with it (docs/learn.md)." },
	{ .section = "test", .name = "cut_at", .listed_when_set = true, .type = PROFILE_KEY_DURATION,
	  .store = PROFILE_STORE_U64, PFIELD(cut_at_ns),
	  .min = 0, .max = PROFILE_DURATION_MAX, .def = "0s",
	  .help = "durability: when run --cut-command runs its command, this long into the "
		  "run; 0s = a random instant within the duration." },

	/* [sizing] */
	{ .section = "sizing", .name = "database_size", .type = PROFILE_KEY_SIZE,
	  .store = PROFILE_STORE_U64, PFIELD(database_size),
	  .min = 4 * KIB, .max = PROFILE_SIZE_MAX, .def = "1GiB",
	  .help = "Size of every database file; a multiple of page_size." },
	{ .section = "sizing", .name = "log_size", .type = PROFILE_KEY_SIZE,
	  .store = PROFILE_STORE_U64, PFIELD(log_size),
	  .min = 64 * KIB, .max = PROFILE_SIZE_MAX, .multiple = 4 * KIB,
	  .help = "Size of every database's circular log file; default log_segments x "
		  "log_segment_size (64 MiB; a recovery test: recovery_segments + 1 "
		  "segments). Give one or the other." },
	{ .section = "sizing", .name = "target_iops", .type = PROFILE_KEY_U64,
	  .store = PROFILE_STORE_U64, PFIELD(target_iops),
	  .min = 0, .max = UINT64_MAX, .def = "0",
	  .help = "Transactional IOPS the run must achieve; 0 = no IOPS criterion." },
	{ .section = "sizing", .name = "mailboxes", .type = PROFILE_KEY_U64,
	  .store = PROFILE_STORE_U64, PFIELD(mailboxes),
	  .min = 0, .max = 100000000, .def = "0",
	  .help = "Mailboxes the databases hold, as Jetstress sizes a test: database_size "
		  "and target_iops follow from them; 0 = not sized from mailboxes." },
	{ .section = "sizing", .name = "iops_per_mailbox", .type = PROFILE_KEY_NUMBER,
	  .store = PROFILE_STORE_DOUBLE, PFIELD(iops_per_mailbox), .min = 0, .max = 1000,
	  .help = "Transactional IOPS one mailbox needs (e.g. 0.06); needed by mailboxes." },
	{ .section = "sizing", .name = "mailbox_size", .type = PROFILE_KEY_SIZE,
	  .store = PROFILE_STORE_U64, PFIELD(mailbox_size), .min = 4 * KIB,
	  .max = PROFILE_SIZE_MAX,
	  .help = "Size of one mailbox (e.g. 2GiB); with mailboxes it sizes the databases." },
	{ .section = "sizing", .name = "headroom", .type = PROFILE_KEY_PERCENT,
	  .store = PROFILE_STORE_DOUBLE, PFIELD(headroom_pct), .min = 0, .max = 100,
	  .def = "0",
	  .help = "Added to the mailboxes' IOPS for the target; 0 by default: a sizing "
		  "calculator's IOPS per mailbox already include its overhead." },
	{ .section = "sizing", .name = "capacity", .type = PROFILE_KEY_PERCENT,
	  .store = PROFILE_STORE_DOUBLE, PFIELD(capacity_pct), .min = 0, .max = 100,
	  .def = "0",
	  .help = "Size the databases to this share of each volume's free space (its logs "
		  "and page journals first); 0 = off, database_size applies." },

	/* [workload] */
	{ .section = "workload", .name = "model", .type = PROFILE_KEY_CHOICE,
	  .store = PROFILE_STORE_TYPE, PFIELD(model), .choices = models, .def = "jetstress",
	  .help = "jetstress (transactions, flusher, log, maintenance, replication) or fixed "
		  "(plain block_size I/O at read_pct, streams = I/Os in flight)." },
	{ .section = "workload", .name = "page_size", .type = PROFILE_KEY_SIZE,
	  .store = PROFILE_STORE_U32, PFIELD(page_size),
	  .min = 4 * KIB, .max = MIB, .pow2 = true, .def = "32KiB",
	  .help = "Database page size: a power of two from 4 KiB to 1 MiB." },
	{ .section = "workload", .name = "log_record_size", .type = PROFILE_KEY_SIZE,
	  .store = PROFILE_STORE_U32, PFIELD(log_record_size),
	  .min = 16, .max = MIB, .def = "2KiB",
	  .help = "Log bytes a transaction appends per page it changes." },
	{ .section = "workload", .name = "insert_pct", .type = PROFILE_KEY_PERCENT,
	  .store = PROFILE_STORE_DOUBLE, PFIELD(insert_pct), .min = 0, .max = 100, .def = "40",
	  .help = "Share of transactions that insert; the four shares add up to 100." },
	{ .section = "workload", .name = "delete_pct", .type = PROFILE_KEY_PERCENT,
	  .store = PROFILE_STORE_DOUBLE, PFIELD(delete_pct), .min = 0, .max = 100, .def = "20",
	  .help = "Share of transactions that delete." },
	{ .section = "workload", .name = "replace_pct", .type = PROFILE_KEY_PERCENT,
	  .store = PROFILE_STORE_DOUBLE, PFIELD(replace_pct), .min = 0, .max = 100, .def = "5",
	  .help = "Share of transactions that replace." },
	{ .section = "workload", .name = "seek_pct", .type = PROFILE_KEY_PERCENT,
	  .store = PROFILE_STORE_DOUBLE, PFIELD(seek_pct), .min = 0, .max = 100, .def = "35",
	  .help = "Share of transactions that only read (seek)." },
	{ .section = "workload", .name = "lazy_commit_pct", .type = PROFILE_KEY_PERCENT,
	  .store = PROFILE_STORE_DOUBLE, PFIELD(lazy_commit_pct), .min = 0, .max = 100,
	  .def = "70",
	  .help = "Share of commits that do not wait for their log write." },
	{ .section = "workload", .name = "seek_pages", .type = PROFILE_KEY_NUMBER,
	  .store = PROFILE_STORE_DOUBLE, PFIELD(seek_pages), .min = 0, .max = 1000,
	  .def = "1.3",
	  .help = "Mean pages a seek reads (the fraction is drawn at random)." },
	{ .section = "workload", .name = "update_pages", .type = PROFILE_KEY_NUMBER,
	  .store = PROFILE_STORE_DOUBLE, PFIELD(update_pages), .min = 0, .max = 1000,
	  .def = "1.4",
	  .help = "Mean pages an insert, delete or replace reads and changes." },
	{ .section = "workload", .name = "flush_depth", .type = PROFILE_KEY_U64,
	  .store = PROFILE_STORE_UINT, PFIELD(flush_depth), .min = 1, .max = 1024, .def = "4",
	  .help = "Dirty-page writes in flight per database (its flusher)." },
	{ .section = "workload", .name = "dirty_pages", .type = PROFILE_KEY_U64,
	  .store = PROFILE_STORE_UINT, PFIELD(dirty_pages), .min = 64, .max = 1048576,
	  .def = "4096",
	  .help = "Dirty pages a database may hold (its cache) before a commit must wait for "
		  "the flusher: a page fault stall; at least 64 (the most pages one transaction "
		  "changes), at most the database's pages." },
	{ .section = "workload", .name = "log_segments", .type = PROFILE_KEY_U64,
	  .store = PROFILE_STORE_UINT, PFIELD(log_segments), .min = 2, .max = 1000000,
	  .def = "64",
	  .help = "Segments of each circular log; a segment is reused only after its "
		  "replication reads." },
	{ .section = "workload", .name = "log_segment_size", .type = PROFILE_KEY_SIZE,
	  .store = PROFILE_STORE_U32, PFIELD(log_segment_size), .min = 32 * KIB,
	  .max = 64 * MIB, .multiple = 4 * KIB, .def = "1MiB",
	  .help = "Size of one log segment." },
	{ .section = "workload", .name = "bdm", .type = PROFILE_KEY_BOOL,
	  .store = PROFILE_STORE_BOOL, PFIELD(bdm), .def = "on",
	  .help = "Background database maintenance: sequential reads across each database." },
	{ .section = "workload", .name = "bdm_rate", .type = PROFILE_KEY_SIZE,
	  .store = PROFILE_STORE_U64, PFIELD(bdm_rate), .min = 4 * KIB, .max = 16ULL << 30,
	  .def = "1MiB",
	  .help = "Maintenance read bytes per second per database (Exchange 2010: 5MiB)." },
	{ .section = "workload", .name = "bdm_io_size", .type = PROFILE_KEY_SIZE,
	  .store = PROFILE_STORE_U32, PFIELD(bdm_io_size), .min = 4 * KIB, .max = 4 * MIB,
	  .def = "256KiB",
	  .help = "Size of one maintenance read; a multiple of page_size." },
	{ .section = "workload", .name = "copies", .type = PROFILE_KEY_U64,
	  .store = PROFILE_STORE_UINT, PFIELD(copies), .min = 1, .max = 16, .def = "2",
	  .help = "Database copies: each closed log segment is read copies - 1 times "
		  "(replication)." },
	{ .section = "workload", .name = "backup_io_size", .type = PROFILE_KEY_SIZE,
	  .store = PROFILE_STORE_U32, PFIELD(backup_io_size), .min = 4 * KIB,
	  .max = 4 * MIB, .def = "256KiB",
	  .help = "backup: size of each sequential read; a multiple of page_size." },
	{ .section = "workload", .name = "arrival", .type = PROFILE_KEY_CHOICE,
	  .store = PROFILE_STORE_TYPE, PFIELD(arrival), .choices = arrivals, .def = "closed",
	  .help = "closed: each stream runs transactions back to back; rate: transactions "
		  "arrive at random (Poisson) times at `rate` per second." },
	{ .section = "workload", .name = "rate", .type = PROFILE_KEY_NUMBER,
	  .store = PROFILE_STORE_DOUBLE, PFIELD(rate), .min = 0, .max = 100000000,
	  .help = "Transactions per second over all databases; needed by arrival = rate." },
	{ .section = "workload", .name = "max_streams", .type = PROFILE_KEY_U64,
	  .store = PROFILE_STORE_UINT, PFIELD(max_streams), .min = 1,
	  .max = PROFILE_STREAMS_MAX,
	  .help = "arrival = rate: while transactions wait for a stream, streams grow up to "
		  "this many (at least streams); default 4 x streams." },
	/* the PostgreSQL-like model's features (docs/fidelity.md); all off by
	 * default, so the Exchange and SQL profiles are as they were */
	{ .section = "workload", .name = "read_pages", .type = PROFILE_KEY_NUMBER,
	  .store = PROFILE_STORE_DOUBLE, PFIELD(read_pages), .min = 0, .max = 63, .def = "0",
	  .help = "Mean pages an insert, delete or replace reads without changing them (an "
		  "index's pages on the way to its rows), after those it changes." },
	{ .section = "workload", .name = "hot_size", .type = PROFILE_KEY_SIZE,
	  .store = PROFILE_STORE_U64, PFIELD(hot_size), .min = 0, .max = PROFILE_SIZE_MAX,
	  .def = "0",
	  .help = "The first hot_size bytes of each database take hot_pct of the page picks "
		  "(a small, busy table or index); 0 = every page alike." },
	{ .section = "workload", .name = "hot_pct", .type = PROFILE_KEY_PERCENT,
	  .store = PROFILE_STORE_DOUBLE, PFIELD(hot_pct), .min = 0, .max = 100, .def = "0",
	  .help = "With hot_size: share of the page picks that go to the hot region." },
	{ .section = "workload", .name = "cache_size", .type = PROFILE_KEY_SIZE,
	  .store = PROFILE_STORE_U64, PFIELD(cache_size), .min = 0, .max = PROFILE_SIZE_MAX,
	  .def = "0",
	  .help = "A database cache (buffer pool and page cache) of this size per database, "
		  "empty at the start: a transaction's page already in it is not read; 0 = off "
		  "(every page a transaction touches is read)." },
	{ .section = "workload", .name = "readahead_size", .type = PROFILE_KEY_SIZE,
	  .store = PROFILE_STORE_U32, PFIELD(readahead_size), .min = 0, .max = 256 * KIB,
	  .def = "0",
	  .help = "A read that reads ahead takes this many bytes (the page and those after "
		  "it, into the cache with cache_size; without one they are read and dropped, "
		  "as the kernel's readahead for a database that reads through the page "
		  "cache); whole pages, at most 64." },
	{ .section = "workload", .name = "readahead_pct", .type = PROFILE_KEY_PERCENT,
	  .store = PROFILE_STORE_DOUBLE, PFIELD(readahead_pct), .min = 0, .max = 100,
	  .def = "0",
	  .help = "With readahead_size: share of page reads (cache misses) that read "
		  "ahead." },
	{ .section = "workload", .name = "checkpoint_interval", .type = PROFILE_KEY_DURATION,
	  .store = PROFILE_STORE_U64, PFIELD(checkpoint_interval_ns), .min = 0,
	  .max = 86400 * SEC, .def = "0s",
	  .help = "Checkpoints: dirty pages are written only by a checkpoint, one every "
		  "interval, sorted, spread over checkpoint_target of it; 0 = off (the flusher "
		  "writes each dirty page as soon as its log record is durable)." },
	{ .section = "workload", .name = "checkpoint_log_size", .type = PROFILE_KEY_SIZE,
	  .store = PROFILE_STORE_U64, PFIELD(checkpoint_log_size), .min = 0,
	  .max = PROFILE_SIZE_MAX, .def = "0",
	  .help = "With checkpoint_interval: a checkpoint also begins once this much log has "
		  "been written since the last one began (PostgreSQL: max_wal_size / (1 + "
		  "checkpoint_completion_target)); 0 = by time only." },
	{ .section = "workload", .name = "checkpoint_target", .type = PROFILE_KEY_PERCENT,
	  .store = PROFILE_STORE_DOUBLE, PFIELD(checkpoint_target_pct), .min = 1, .max = 100,
	  .def = "90",
	  .help = "Share of checkpoint_interval a checkpoint spreads its writes over "
		  "(PostgreSQL's checkpoint_completion_target)." },
	{ .section = "workload", .name = "writeback_interval", .type = PROFILE_KEY_DURATION,
	  .store = PROFILE_STORE_U64, PFIELD(writeback_interval_ns), .min = 0,
	  .max = 3600 * SEC, .def = "0s",
	  .help = "With checkpoint_interval: between checkpoints, a write-back pass every "
		  "interval writes the pages dirty for writeback_age or longer, sorted, as fast "
		  "as flush_depth allows (the operating system's write-back of pages the "
		  "database evicted); 0 = off." },
	{ .section = "workload", .name = "writeback_age", .type = PROFILE_KEY_DURATION,
	  .store = PROFILE_STORE_U64, PFIELD(writeback_age_ns), .min = 0, .max = 3600 * SEC,
	  .def = "0s",
	  .help = "With writeback_interval: how long a page stays dirty before a write-back "
		  "pass takes it (Linux: dirty_expire_centisecs, 30 s)." },
	{ .section = "workload", .name = "writeback_hot", .type = PROFILE_KEY_BOOL,
	  .store = PROFILE_STORE_BOOL, PFIELD(writeback_hot), .def = "on",
	  .help = "With writeback_interval and hot_size: off = the hot region's pages are not "
		  "written back between checkpoints (the buffer pool keeps its busiest pages, "
		  "so only a checkpoint writes them)." },
	{ .section = "workload", .name = "write_merge", .type = PROFILE_KEY_U64,
	  .store = PROFILE_STORE_UINT, PFIELD(write_merge), .min = 1, .max = 64, .def = "1",
	  .help = "Checkpoint writes: adjacent dirty pages written as one I/O, at most this "
		  "many pages (the block layer merges a sorted write-back)." },
	{ .section = "workload", .name = "full_page_writes", .type = PROFILE_KEY_BOOL,
	  .store = PROFILE_STORE_BOOL, PFIELD(full_page_writes), .def = "off",
	  .help = "A page's first change after a checkpoint begins (or the run starts) logs "
		  "the whole page (PostgreSQL's full-page images)." },
	{ .section = "workload", .name = "log_page_size", .type = PROFILE_KEY_SIZE,
	  .store = PROFILE_STORE_U32, PFIELD(log_page_size), .min = 0, .max = MIB, .def = "0",
	  .help = "The log is written in whole pages of this size and each write starts at "
		  "the page the last one ended in, rewriting it (PostgreSQL's 8 KiB WAL pages); "
		  "0 = off: each write starts a new block." },
	{ .section = "workload", .name = "log_sync", .listed_when_set = true, .type = PROFILE_KEY_CHOICE,
	  .store = PROFILE_STORE_TYPE, PFIELD(log_sync), .choices = log_syncs,
	  .def = "write_through",
	  .help = "write_through: each log write is durable by itself (RWF_DSYNC, as Exchange's "
		  "write-through writes); fdatasync: a plain write, then an fdatasync of the log "
		  "file (PostgreSQL's wal_sync_method = fdatasync, InnoDB's redo). Either way a "
		  "log_write's latency runs until it is durable." },
	{ .section = "workload", .name = "commit_group", .type = PROFILE_KEY_U64,
	  .store = PROFILE_STORE_UINT, PFIELD(commit_group), .min = 0, .max = 1024,
	  .def = "0",
	  .help = "With commit_delay: a log write goes as soon as this many commits wait for "
		  "it, at most commit_delay after the first; 0 = it always waits commit_delay." },
	{ .section = "workload", .name = "commit_delay", .type = PROFILE_KEY_DURATION,
	  .store = PROFILE_STORE_U64, PFIELD(commit_delay_ns), .min = 0, .max = SEC,
	  .def = "0s",
	  .help = "A log write waits this long after the first commit it carries arrived, so "
		  "that more commits share it (group commit; PostgreSQL's commit_delay)." },
	/* the InnoDB-like features; all off by default, so every other profile
	 * is as it was */
	{ .section = "workload", .name = "doublewrite", .listed_when_set = true, .type = PROFILE_KEY_BOOL,
	  .store = PROFILE_STORE_BOOL, PFIELD(doublewrite), .def = "off",
	  .help = "The flusher writes in batches, each first as one sequential write to a "
		  "doublewrite area at the end of the database, made durable (fdatasync), then "
		  "in place (InnoDB's doublewrite buffer)." },
	{ .section = "workload", .name = "doublewrite_size", .listed_when_set = true, .type = PROFILE_KEY_SIZE,
	  .store = PROFILE_STORE_U64, PFIELD(doublewrite_size), .min = 4 * KIB, .max = 64 * MIB,
	  .def = "1MiB",
	  .help = "With doublewrite: the area, and the largest batch; whole pages, at most 64 "
		  "(InnoDB: 64 pages of 16 KiB)." },
	{ .section = "workload", .name = "data_flush", .listed_when_set = true, .type = PROFILE_KEY_CHOICE,
	  .store = PROFILE_STORE_TYPE, PFIELD(data_flush), .choices = data_flushes,
	  .def = "none",
	  .help = "none, per_batch (an fdatasync of the database file after each flush "
		  "batch's writes, as InnoDB) or rate (data_flush_rate a second, when it was "
		  "written to since the last)." },
	{ .section = "workload", .name = "data_flush_rate", .listed_when_set = true, .type = PROFILE_KEY_NUMBER,
	  .store = PROFILE_STORE_DOUBLE, PFIELD(data_flush_rate), .min = 0, .max = 10000,
	  .def = "0",
	  .help = "With data_flush = rate: database file flushes per second, per worker's "
		  "share of a database." },
	{ .section = "workload", .name = "data_flush_count", .listed_when_set = true, .type = PROFILE_KEY_U64,
	  .store = PROFILE_STORE_UINT, PFIELD(data_flush_count), .min = 1, .max = 64,
	  .def = "1",
	  .help = "With data_flush = per_batch: the file's flushes after each batch (InnoDB "
		  "fsyncs every file a batch wrote: one flush each)." },
	{ .section = "workload", .name = "cleaner_interval", .listed_when_set = true, .type = PROFILE_KEY_DURATION,
	  .store = PROFILE_STORE_U64, PFIELD(cleaner_interval_ns), .min = 0, .max = 3600 * SEC,
	  .def = "0s",
	  .help = "A page cleaner: dirty pages are written only by a pass every interval "
		  "(InnoDB: 1 s; PostgreSQL's bgwriter: 200 ms), up to cleaner_pages each, or "
		  "by a commit that finds the dirty list full; 0 = off." },
	{ .section = "workload", .name = "cleaner_pages", .listed_when_set = true, .type = PROFILE_KEY_U64,
	  .store = PROFILE_STORE_UINT, PFIELD(cleaner_pages), .min = 1, .max = 1000000,
	  .def = "100",
	  .help = "With cleaner_interval: most dirty pages a pass writes, oldest first "
		  "(InnoDB: innodb_io_capacity; PostgreSQL: bgwriter_lru_maxpages)." },
	{ .section = "workload", .name = "cleaner_spread", .listed_when_set = true, .type = PROFILE_KEY_BOOL,
	  .store = PROFILE_STORE_BOOL, PFIELD(cleaner_spread), .def = "off",
	  .help = "With cleaner_interval: a pass's writes (whole batches with doublewrite or "
		  "data_flush = per_batch) spread evenly over the interval, not written back to "
		  "back at its start (InnoDB's adaptive and LRU flushing write steadily)." },
	{ .section = "workload", .name = "block_size", .type = PROFILE_KEY_SIZE,
	  .store = PROFILE_STORE_U32, PFIELD(block_size), .min = 4 * KIB, .max = MIB,
	  .pow2 = true,
	  .help = "fixed model: size of every I/O (it is the page size); default page_size." },
	{ .section = "workload", .name = "read_pct", .type = PROFILE_KEY_PERCENT,
	  .store = PROFILE_STORE_DOUBLE, PFIELD(read_pct), .min = 0, .max = 100, .def = "100",
	  .help = "fixed model: share of I/Os that are reads." },
	{ .section = "workload", .name = "pattern", .type = PROFILE_KEY_CHOICE,
	  .store = PROFILE_STORE_TYPE, PFIELD(pattern), .choices = patterns, .def = "random",
	  .help = "fixed model: random or sequential offsets." },
	{ .section = "workload", .name = "seed", .type = PROFILE_KEY_U64,
	  .store = PROFILE_STORE_U64, PFIELD(seed),
	  .min = 0, .max = UINT64_MAX, .def = "1",
	  .help = "Seed of the workload's random numbers; same seed, same I/O sequence." },
	{ .section = "workload", .name = "verify", .type = PROFILE_KEY_BOOL,
	  .store = PROFILE_STORE_BOOL, PFIELD(verify), .def = "on",
	  .help = "Check the header and checksum of every page read." },

	/* [thresholds] */
	{ .section = "thresholds", .name = "db_read_avg", .type = PROFILE_KEY_DURATION,
	  .store = PROFILE_STORE_U64, PFIELD(thresholds.db_read_avg_ns),
	  .min = 1, .max = 3600 * SEC, .def = "20ms",
	  .help = "Highest accepted average database read latency." },
	{ .section = "thresholds", .name = "db_read_max", .type = PROFILE_KEY_DURATION,
	  .store = PROFILE_STORE_U64, PFIELD(thresholds.db_read_max_ns),
	  .min = 1, .max = 3600 * SEC, .def = "100ms",
	  .help = "Highest accepted database read latency; default 100ms, 200ms when lenient." },
	{ .section = "thresholds", .name = "log_write_avg", .type = PROFILE_KEY_DURATION,
	  .store = PROFILE_STORE_U64, PFIELD(thresholds.log_write_avg_ns),
	  .min = 1, .max = 3600 * SEC, .def = "10ms",
	  .help = "Highest accepted average log write latency." },
	{ .section = "thresholds", .name = "log_write_max", .type = PROFILE_KEY_DURATION,
	  .store = PROFILE_STORE_U64, PFIELD(thresholds.log_write_max_ns),
	  .min = 1, .max = 3600 * SEC, .def = "100ms",
	  .help = "Highest accepted log write latency; default 100ms, 200ms when lenient." },
	{ .section = "thresholds", .name = "io_errors", .type = PROFILE_KEY_U64,
	  .store = PROFILE_STORE_U64, PFIELD(thresholds.io_errors),
	  .min = 0, .max = UINT64_MAX, .def = "0",
	  .help = "Most I/O errors a passing run may have." },
	{ .section = "thresholds", .name = "db_read_p99", .type = PROFILE_KEY_DURATION,
	  .store = PROFILE_STORE_U64, PFIELD(thresholds.db_read_p99_ns),
	  .min = 1, .max = 3600 * SEC,
	  .help = "Highest accepted 99th percentile of database read latency; not set: not "
		  "judged." },
	{ .section = "thresholds", .name = "log_write_p99", .type = PROFILE_KEY_DURATION,
	  .store = PROFILE_STORE_U64, PFIELD(thresholds.log_write_p99_ns),
	  .min = 1, .max = 3600 * SEC,
	  .help = "Highest accepted 99th percentile of log write latency; not set: not judged." },
	{ .section = "thresholds", .name = "interval_avg", .type = PROFILE_KEY_BOOL,
	  .store = PROFILE_STORE_BOOL, PFIELD(thresholds.interval_avg), .def = "off",
	  .help = "on: no 15 s window's average may exceed db_read_avg or log_write_avg." },
	{ .section = "thresholds", .name = "db_read_cv", .type = PROFILE_KEY_PERCENT,
	  .store = PROFILE_STORE_DOUBLE, PFIELD(thresholds.db_read_cv_pct), .min = 1,
	  .max = 100,
	  .help = "Highest accepted coefficient of variation of the 15 s database read "
		  "averages; not set: not judged." },
	{ .section = "thresholds", .name = "log_write_cv", .type = PROFILE_KEY_PERCENT,
	  .store = PROFILE_STORE_DOUBLE, PFIELD(thresholds.log_write_cv_pct), .min = 1,
	  .max = 100,
	  .help = "Highest accepted coefficient of variation of the 15 s log write averages; "
		  "not set: not judged." },
	{ .section = "thresholds", .name = "max_basis", .type = PROFILE_KEY_CHOICE,
	  .store = PROFILE_STORE_TYPE, PFIELD(thresholds.max_basis), .choices = max_bases,
	  .def = "sample",
	  .help = "What db_read_max and log_write_max judge: sample (the highest average over "
		  "one sample_interval, as Jetstress judges its counters) or io (the single "
		  "slowest I/O)." },
	{ .section = "thresholds", .name = "latency_basis", .type = PROFILE_KEY_CHOICE,
	  .store = PROFILE_STORE_TYPE, PFIELD(thresholds.latency_basis), .choices = latency_bases,
	  .def = "service",
	  .help = "Which time the db_read and log_write latency criteria judge: service (from "
		  "the I/O's submission to its completion, the device's) or response (arrival = "
		  "rate only: from the transaction's intended start, its wait for a free stream "
		  "included)." },
	{ .section = "thresholds", .name = "sample_interval", .type = PROFILE_KEY_DURATION,
	  .store = PROFILE_STORE_U64, PFIELD(thresholds.sample_interval_ns), .min = SEC,
	  .max = 3600 * SEC, .multiple = SEC, .def = "15s",
	  .help = "Length of one sample for max_basis = sample: whole seconds, at least the "
		  "run's 1 s interval (Jetstress: 15 s)." },
	{ .section = "thresholds", .name = "page_fault_stalls", .type = PROFILE_KEY_NUMBER,
	  .store = PROFILE_STORE_DOUBLE, PFIELD(thresholds.page_fault_stalls), .min = 0,
	  .max = 1000000,
	  .help = "Most database page fault stalls per second (transactions that waited for a "
		  "page); not set: not judged (the Exchange built-ins set 1)." },
	{ .section = "thresholds", .name = "autotune_settled", .type = PROFILE_KEY_BOOL,
	  .store = PROFILE_STORE_BOOL, PFIELD(thresholds.autotune_settled), .def = "on",
	  .help = "on: a run whose auto-tune chose a level that never settled (its latency "
		  "slope stayed above autotune_slope_max) fails; off: not judged." },

	/* [engine] */
	{ .section = "engine", .name = "name", .type = PROFILE_KEY_CHOICE,
	  .store = PROFILE_STORE_CHARS, PFIELD(engine), .choices = profile_engine_names,
	  .def = "io_uring",
	  .help = "I/O engine: io_uring, libaio, psync (real files and devices) or sim "
		  "(simulated device, virtual time)." },
	{ .section = "engine", .name = "streams", .type = PROFILE_KEY_U64,
	  .store = PROFILE_STORE_UINT, PFIELD(streams),
	  .min = 1, .max = PROFILE_STREAMS_MAX,
	  .allow_auto = true,
	  .help = "Concurrent transaction streams over all databases (fixed model: I/Os in "
		  "flight); default 2 per database; auto: found by auto-tune." },
	{ .section = "engine", .name = "autotune_goal", .type = PROFILE_KEY_CHOICE,
	  .store = PROFILE_STORE_TYPE, PFIELD(tune_goal), .choices = tune_goals, .def = "max",
	  .help = "With streams = auto: max (the most streams that pass), target (the "
		  "fewest that reach target_iops and pass) or iops (of the counts that "
		  "pass, the one with the most transactional IOPS; within 3 %, the "
		  "fewest streams)." },
	{ .section = "engine", .name = "autotune_margin", .type = PROFILE_KEY_PERCENT,
	  .store = PROFILE_STORE_DOUBLE, PFIELD(tune_margin_pct), .min = 0, .max = 90,
	  .def = "10",
	  .help = "Auto-tune's safety margin under every latency threshold, in percent." },
	{ .section = "engine", .name = "autotune_limit", .type = PROFILE_KEY_DURATION,
	  .store = PROFILE_STORE_U64, PFIELD(tune_limit_ns), .min = 0,
	  .max = PROFILE_DURATION_MAX,
	  .help = "Most time auto-tune may take; default 20 % of the duration, at most 30m." },
	{ .section = "engine", .name = "autotune_window", .type = PROFILE_KEY_DURATION,
	  .store = PROFILE_STORE_U64, PFIELD(tune_window_ns), .min = NSEC_PER_SEC,
	  .max = 3600 * SEC,
	  .help = "Length of one auto-tune measurement window; default the limit / 24, "
		  "2s to 30s." },
	{ .section = "engine", .name = "autotune_max_streams", .type = PROFILE_KEY_U64,
	  .store = PROFILE_STORE_UINT, PFIELD(tune_max_streams), .min = 1,
	  .max = PROFILE_STREAMS_MAX,
	  .help = "Most streams auto-tune tries; default 128 per database." },
	{ .section = "engine", .name = "autotune_step", .type = PROFILE_KEY_CHOICE,
	  .store = PROFILE_STORE_TYPE, PFIELD(tune_step), .choices = tune_steps,
	  .def = "database",
	  .help = "Auto-tune's levels: database (whole streams per database) or stream "
		  "(any count)." },
	{ .section = "engine", .name = "autotune_plateau", .type = PROFILE_KEY_PERCENT,
	  .store = PROFILE_STORE_DOUBLE, PFIELD(tune_plateau_pct), .min = 0, .max = 100,
	  .def = "5",
	  .help = "A step up that raises transactional IOPS by less than this stops "
		  "auto-tune at the lower level; 0: never." },
	{ .section = "engine", .name = "autotune_slope_window", .type = PROFILE_KEY_U64,
	  .store = PROFILE_STORE_UINT, PFIELD(tune_slope_window), .min = 2, .max = 600,
	  .help = "Samples (1 s intervals) whose latency slope ends a level's transient; "
		  "default the window's length, 5 to 30." },
	{ .section = "engine", .name = "autotune_slope_max", .type = PROFILE_KEY_DURATION,
	  .store = PROFILE_STORE_U64, PFIELD(tune_slope_max_ns), .min = 0, .max = SEC,
	  .def = "0.1ms",
	  .help = "Steepest latency slope per sample that ends a level's transient." },
	{ .section = "engine", .name = "autotune_transient_max", .type = PROFILE_KEY_DURATION,
	  .store = PROFILE_STORE_U64, PFIELD(tune_transient_max_ns), .min = 0,
	  .max = PROFILE_DURATION_MAX,
	  .help = "Longest transient of a level; one whose latency has not settled by "
		  "then fails; default 4 x the slope window." },
	{ .section = "engine", .name = "workers", .type = PROFILE_KEY_U64,
	  .store = PROFILE_STORE_UINT, PFIELD(workers),
	  .min = 0, .max = 1024, .def = "0",
	  .help = "Worker threads; 0 = one per CPU, at most one per database." },
	{ .section = "engine", .name = "direct", .type = PROFILE_KEY_BOOL,
	  .store = PROFILE_STORE_BOOL, PFIELD(direct), .def = "on",
	  .help = "Open files with O_DIRECT, bypassing the page cache." },
	{ .section = "engine", .name = "sqpoll", .type = PROFILE_KEY_BOOL,
	  .store = PROFILE_STORE_BOOL, PFIELD(sqpoll), .def = "off",
	  .help = "io_uring: a kernel thread submits (SQPOLL); for fast devices "
		  "with a CPU to spare; its thread's CPU counts as the process's." },
	{ .section = "engine", .name = "hipri", .type = PROFILE_KEY_BOOL,
	  .store = PROFILE_STORE_BOOL, PFIELD(hipri), .def = "off",
	  .help = "io_uring: polled completion (IOPOLL), direct = on; only for "
		  "devices with poll queues (queue/io_poll = 1, e.g. NVMe poll_queues)." },
	{ .section = "engine", .name = "submit_batch", .listed_when_set = true, .type = PROFILE_KEY_U64,
	  .store = PROFILE_STORE_UINT, PFIELD(submit_batch),
	  .min = 1, .max = 256, .def = "1",
	  .help = "Hand I/Os to the kernel this many at a time while at least as many are in "
		  "flight (fio's iodepth_batch_submit); 1 = each at once. For fast devices "
		  "where the submission's cost limits IOPS." },
	{ .section = "engine", .name = "affinity", .type = PROFILE_KEY_CHOICE,
	  .store = PROFILE_STORE_TYPE, PFIELD(affinity), .def = "soft",
	  /* in enum profile_affinity order */
	  .choices = (const char *const[]){"soft", "hard", "none", NULL},
	  .help = "Where workers run against the NUMA node of their disks: soft (prefer the "
		  "node's CPUs), hard (only the nodes' CPUs and memory) or none." },

	/* [sim] */
	{ .section = "sim", .name = "read_latency", .type = PROFILE_KEY_DURATION,
	  .store = PROFILE_STORE_U64, PFIELD(sim.read_latency_ns),
	  .min = NSEC_PER_USEC, .max = 60 * SEC, .def = "2ms",
	  .help = "Simulated database read latency." },
	{ .section = "sim", .name = "write_latency", .type = PROFILE_KEY_DURATION,
	  .store = PROFILE_STORE_U64, PFIELD(sim.write_latency_ns),
	  .min = NSEC_PER_USEC, .max = 60 * SEC, .def = "3ms",
	  .help = "Simulated database write latency." },
	{ .section = "sim", .name = "log_write_latency", .type = PROFILE_KEY_DURATION,
	  .store = PROFILE_STORE_U64, PFIELD(sim.log_write_latency_ns),
	  .min = NSEC_PER_USEC, .max = 60 * SEC, .def = "1ms",
	  .help = "Simulated log write latency." },
	{ .section = "sim", .name = "jitter", .type = PROFILE_KEY_PERCENT,
	  .store = PROFILE_STORE_DOUBLE, PFIELD(sim.jitter_pct),
	  .min = 0, .max = 100, .def = "20",
	  .help = "Spread of simulated latencies around their mean, in percent." },
	{ .section = "sim", .name = "saturation_iops", .type = PROFILE_KEY_U64,
	  .store = PROFILE_STORE_U64, PFIELD(sim.saturation_iops),
	  .min = 0, .max = UINT64_MAX, .def = "0",
	  .help = "IOPS per volume past which queueing grows latency; 0 = never saturates." },
	{ .section = "sim", .name = "latency_drift", .type = PROFILE_KEY_DURATION,
	  .store = PROFILE_STORE_U64, PFIELD(sim.drift_ns), .min = 0, .max = SEC, .def = "0s",
	  .help = "Latency added per second since the simulated device opened (a transient "
		  "or a device that degrades)." },
	{ .section = "sim", .name = "latency_drift_time", .type = PROFILE_KEY_DURATION,
	  .store = PROFILE_STORE_U64, PFIELD(sim.drift_time_ns), .min = 0,
	  .max = PROFILE_DURATION_MAX, .def = "0s",
	  .help = "How long latency_drift lasts, then latency stays flat; 0s = for ever." },
	{ .section = "sim", .name = "error_rate", .type = PROFILE_KEY_PERCENT,
	  .store = PROFILE_STORE_DOUBLE, PFIELD(sim.error_rate_pct),
	  .min = 0, .max = 100, .def = "0",
	  .help = "Share of simulated I/Os that fail with EIO, in percent." },
	{ .section = "sim", .name = "drop_write_rate", .type = PROFILE_KEY_PERCENT,
	  .store = PROFILE_STORE_DOUBLE, PFIELD(sim.drop_write_rate_pct),
	  .min = 0, .max = 100, .def = "0",
	  .help = "Share of simulated writes acknowledged but lost, in percent." },
	{ .section = "sim", .name = "hang_rate", .type = PROFILE_KEY_PERCENT,
	  .store = PROFILE_STORE_DOUBLE, PFIELD(sim.hang_rate_pct),
	  .min = 0, .max = 100, .def = "0",
	  .help = "Share of I/Os that never complete (a hung device), in percent." },
	{ .section = "sim", .name = "spike_every", .type = PROFILE_KEY_U64,
	  .store = PROFILE_STORE_U64, PFIELD(sim.spike_every),
	  .min = 0, .max = UINT64_MAX, .def = "0",
	  .help = "Every this many-th simulated I/O (of any class, in the order queued) "
		  "takes spike_latency longer: single slow I/Os; 0 = none." },
	{ .section = "sim", .name = "spike_latency", .type = PROFILE_KEY_DURATION,
	  .store = PROFILE_STORE_U64, PFIELD(sim.spike_latency_ns),
	  .min = 0, .max = 3600 * SEC, .def = "0s",
	  .help = "Latency added to each spike_every-th simulated I/O." },
	{ .section = "sim", .name = "transfer_rate", .type = PROFILE_KEY_SIZE,
	  .store = PROFILE_STORE_U64, PFIELD(sim.transfer_rate),
	  .min = 0, .max = UINT64_MAX, .def = "0",
	  .help = "Bytes per second the simulated device moves: an I/O of len bytes holds the "
		  "device, and takes, len / transfer_rate longer (a 1 MiB read costs 32 times "
		  "a 32 KiB page's transfer); 0 = size costs nothing." },
	{ .section = "sim", .name = "stall_period", .type = PROFILE_KEY_DURATION,
	  .store = PROFILE_STORE_U64, PFIELD(sim.stall_period_ns),
	  .min = 0, .max = 3600 * SEC, .def = "0s",
	  .help = "A stall (a write cache destaging) starts every this long of virtual time; "
		  "0s = none. Give stall_period, stall_length and stall_latency together." },
	{ .section = "sim", .name = "stall_length", .type = PROFILE_KEY_DURATION,
	  .store = PROFILE_STORE_U64, PFIELD(sim.stall_length_ns),
	  .min = 0, .max = 3600 * SEC, .def = "0s",
	  .help = "How long each stall lasts; shorter than stall_period." },
	{ .section = "sim", .name = "stall_latency", .type = PROFILE_KEY_DURATION,
	  .store = PROFILE_STORE_U64, PFIELD(sim.stall_latency_ns),
	  .min = 0, .max = 60 * SEC, .def = "0s",
	  .help = "Latency added to every I/O the simulated device starts during a stall." },
	{ .section = "sim", .name = "run_spread", .type = PROFILE_KEY_PERCENT,
	  .store = PROFILE_STORE_DOUBLE, PFIELD(sim.run_spread_pct),
	  .min = 0, .max = 50, .def = "0",
	  .help = "Run-to-run spread of the simulated latencies, in percent: every latency of a "
		  "run is scaled by one factor drawn from seed, uniform within +-this, so "
		  "identical runs with other seeds differ as real runs do." },
	{ .section = "sim", .name = "log_align", .listed_when_set = true, .type = PROFILE_KEY_SIZE,
	  .store = PROFILE_STORE_U32, PFIELD(sim.log_align), .min = 512, .max = 64 * KIB,
	  .pow2 = true, .def = "4KiB",
	  .help = "The simulated log device's block: log writes are whole blocks of this "
		  "size, as on a device whose direct-I/O alignment it is (learn sets it to "
		  "the observed log device's logical block size)." },
	{ .section = "sim", .name = "write_cache", .listed_when_set = true, .type = PROFILE_KEY_CHOICE,
	  .store = PROFILE_STORE_TYPE, PFIELD(sim.write_cache), .choices = sim_caches,
	  .def = "none",
	  .help = "The simulated device's write cache at a power cut (cut_at): none (no cut "
		  "model), honest (keeps every flushed write), lying (loses flushed writes "
		  "within lie_window of the cut) or tearing (honest; pages in flight torn)." },
	{ .section = "sim", .name = "lie_window", .listed_when_set = true, .type = PROFILE_KEY_DURATION,
	  .store = PROFILE_STORE_U64, PFIELD(sim.lie_window_ns),
	  .min = 0, .max = 3600 * SEC, .def = "1s",
	  .help = "write_cache = lying: writes acknowledged as flushed within this long "
		  "before the cut are lost too." },
	{ .section = "sim", .name = "cut_at", .listed_when_set = true, .type = PROFILE_KEY_DURATION,
	  .store = PROFILE_STORE_U64, PFIELD(sim.cut_at_ns),
	  .min = 0, .max = PROFILE_DURATION_MAX, .def = "0s",
	  .help = "A durability test's simulated power cut, this long of virtual time into "
		  "the run: the run ends there as a cut; 0s = at the duration's end." },
	{ .section = "sim", .name = "seed", .type = PROFILE_KEY_U64,
	  .store = PROFILE_STORE_U64, PFIELD(sim.seed),
	  .min = 0, .max = UINT64_MAX, .def = "1",
	  .help = "Seed of the simulated devices' random numbers; [sim] only (every device "
		  "draws from one sequence)." },

	/* [volume NAME] */
	{ .section = "volume", .name = "path", .type = PROFILE_KEY_STRING,
	  .store = PROFILE_STORE_STR, VFIELD(path), .required = true,
	  .help = "Directory (or block device) holding the volume's databases." },
	{ .section = "volume", .name = "databases", .type = PROFILE_KEY_U64,
	  .store = PROFILE_STORE_UINT, VFIELD(databases),
	  .min = 1, .max = 1000, .def = "1",
	  .help = "Number of databases on the volume." },
	{ .section = "volume", .name = "log_path", .type = PROFILE_KEY_STRING,
	  .store = PROFILE_STORE_STR, VFIELD(log_path),
	  .help = "Directory of the volume's logs; default: path." },
};
/* clang-format on */

const struct profile_key *profile_keys(size_t *count)
{
	*count = DP_ARRAY_SIZE(keys);
	return keys;
}

const char *const *profile_sections(size_t *count)
{
	*count = DP_ARRAY_SIZE(sections);
	return sections;
}

const struct profile_key *profile_key_find(const char *section, const char *name)
{
	size_t i;

	for (i = 0; i < DP_ARRAY_SIZE(keys); i++)
		if (!strcmp(keys[i].section, section) && !strcmp(keys[i].name, name))
			return &keys[i];
	return NULL;
}

void profile_format_duration_exact(struct strbuf *sb, uint64_t ns)
{
	static const struct {
		const char *name;
		uint64_t ns;
	} units[] = {
		{"d", 86400 * SEC}, {"h", 3600 * SEC}, {"m", 60 * SEC},
		{"s", SEC},	    {"ms", MS},	       {"us", NSEC_PER_USEC},
	};
	size_t i;

	for (i = 0; i < DP_ARRAY_SIZE(units); i++) {
		if (ns && ns % units[i].ns == 0) {
			strbuf_addf(sb, "%llu%s", (unsigned long long)(ns / units[i].ns),
				    units[i].name);
			return;
		}
	}
	strbuf_addf(sb, "%lluns", (unsigned long long)ns);
}

const char *profile_suggest(const char *word, const char *const *choices, size_t n)
{
	const char *best = NULL;
	unsigned best_d = 3, d;
	size_t i, wl = strlen(word);

	for (i = 0; i < n; i++) {
		d = util_edit_distance(word, choices[i]);
		if (d < best_d) {
			best_d = d;
			best = choices[i];
		}
	}
	if (best || wl < 3)
		return best;
	for (i = 0; i < n; i++)
		if (!strncmp(choices[i], word, wl) ||
		    !strncmp(choices[i], word, strlen(choices[i])))
			return choices[i];
	return NULL;
}

static size_t choices_count(const char *const *c)
{
	size_t n = 0;

	while (c[n])
		n++;
	return n;
}

static void add_choices(struct strbuf *sb, const char *const *c)
{
	size_t i, n = choices_count(c);

	for (i = 0; i < n; i++)
		strbuf_addf(sb, "%s%s", i == 0 ? "" : i + 1 == n ? " or " : ", ", c[i]);
}

static int set_choice(const struct profile_key *k, void *field, const char *v, struct strbuf *why)
{
	size_t i, n = choices_count(k->choices);
	const char *s;

	for (i = 0; i < n; i++) {
		if (strcmp(k->choices[i], v))
			continue;
		if (k->store == PROFILE_STORE_TYPE) {
			*(enum profile_test_type *)field = (enum profile_test_type)i;
		} else {
			memset(field, 0, k->size);
			memcpy(field, v, strlen(v));
		}
		return 0;
	}
	strbuf_addf(why, "\"%s\" is not one of ", v);
	add_choices(why, k->choices);
	s = profile_suggest(v, k->choices, n);
	if (s)
		strbuf_addf(why, "; did you mean %s?", s);
	return -EINVAL;
}

/* Range, multiple and power-of-two checks of a numeric value. */
static int check_range(const struct profile_key *k, uint64_t v, const char *text,
		       struct strbuf *why)
{
	const bool dur = k->type == PROFILE_KEY_DURATION, size = k->type == PROFILE_KEY_SIZE;

	if (v < k->min || v > k->max) {
		if (dur && v < k->min && k->min == 1) {
			strbuf_addf(why, "%s: must be greater than 0", text);
		} else if (dur) {
			strbuf_addf(why, "%s is too %s: the %s accepted is ", text,
				    v < k->min ? "short" : "long",
				    v < k->min ? "shortest" : "longest");
			profile_format_duration_exact(why, v < k->min ? k->min : k->max);
		} else if (size) {
			strbuf_addf(why, "%s is too %s: the %s accepted is ", text,
				    v < k->min ? "small" : "large",
				    v < k->min ? "smallest" : "largest");
			unit_format_size(why, v < k->min ? k->min : k->max);
		} else {
			strbuf_addf(why, "%s is out of range: expected %llu to %llu", text,
				    (unsigned long long)k->min, (unsigned long long)k->max);
		}
		return -ERANGE;
	}
	if (k->multiple && v % k->multiple) {
		if (dur && k->multiple == SEC) {
			strbuf_addf(why, "%s is not a whole number of seconds", text);
			return -EINVAL;
		}
		strbuf_addf(why, "%s is not a multiple of ", text);
		if (dur)
			profile_format_duration_exact(why, k->multiple);
		else
			unit_format_size(why, k->multiple);
		return -EINVAL;
	}
	if (k->pow2 && (v & (v - 1))) {
		strbuf_addf(why, "%s is not a power of two", text);
		return -EINVAL;
	}
	return 0;
}

static int store_uint(const struct profile_key *k, void *field, uint64_t v)
{
	switch (k->store) {
	case PROFILE_STORE_U64:
		*(uint64_t *)field = v;
		return 0;
	case PROFILE_STORE_U32:
		*(uint32_t *)field = (uint32_t)v;
		return 0;
	case PROFILE_STORE_UINT:
		*(unsigned *)field = (unsigned)v;
		return 0;
	default:
		return -EINVAL;
	}
}

static const char *const type_example[] = {
	[PROFILE_KEY_STRING] = "some text",
	[PROFILE_KEY_CHOICE] = "one of the listed words",
	[PROFILE_KEY_DURATION] = "a duration such as 30s, 500ms or 2h",
	[PROFILE_KEY_SIZE] = "a size such as 32KiB, 64MiB or 1GiB",
	[PROFILE_KEY_PERCENT] = "a percentage from 0 to 100",
	[PROFILE_KEY_U64] = "a whole number",
	[PROFILE_KEY_BOOL] = "on or off",
	[PROFILE_KEY_NUMBER] = "a number such as 1.5",
};

/* A plain decimal: digits with at most one '.', nothing else (strtod would
 * take hex, exponents, "inf" and the locale's separator). */
static int parse_number(const struct profile_key *k, const char *value, double *out,
			struct strbuf *why)
{
	size_t n = strlen(value), digits = 0, dots = 0;
	double d;

	while (n && (value[n - 1] == ' ' || value[n - 1] == '\t'))
		n--;
	for (size_t i = 0; i < n; i++) {
		if (value[i] >= '0' && value[i] <= '9')
			digits++;
		else if (value[i] == '.')
			dots++;
		else
			digits = dots = n + 1; /* anything else: not a number */
	}
	if (!digits || dots > 1 || digits > n) {
		strbuf_addf(why, "\"%s\" is not a number; expected %s", value,
			    type_example[k->type]);
		return -EINVAL;
	}
	d = strtod(value, NULL);
	if (d < (double)k->min || d > (double)k->max) {
		strbuf_addf(why, "%s is out of range: expected %llu to %llu", value,
			    (unsigned long long)k->min, (unsigned long long)k->max);
		return -ERANGE;
	}
	*out = d;
	return 0;
}

int profile_key_set(const struct profile_key *k, void *base, const char *value, struct strbuf *why)
{
	void *field = (char *)base + k->offset;
	uint64_t u;
	double d;
	bool b;
	char *s;
	int ret;

	if (!*value) {
		strbuf_addf(why, "empty value; expected %s", type_example[k->type]);
		if (k->type == PROFILE_KEY_CHOICE) {
			strbuf_reset(why);
			strbuf_addstr(why, "empty value; expected ");
			add_choices(why, k->choices);
		}
		return -EINVAL;
	}
	switch (k->type) {
	case PROFILE_KEY_STRING:
		s = strdup(value);
		if (!s)
			return -ENOMEM;
		free(*(char **)field);
		*(char **)field = s;
		return 0;
	case PROFILE_KEY_CHOICE:
		return set_choice(k, field, value, why);
	case PROFILE_KEY_DURATION:
		ret = unit_parse_duration(value, &u, why);
		break;
	case PROFILE_KEY_SIZE:
		ret = unit_parse_size(value, &u, why);
		break;
	case PROFILE_KEY_U64:
		if (k->allow_auto && !strcmp(value, "auto"))
			return store_uint(k, field,
					  k->store == PROFILE_STORE_UINT ? UINT_MAX : UINT64_MAX);
		ret = unit_parse_u64(value, &u, why);
		break;
	case PROFILE_KEY_PERCENT:
		ret = unit_parse_percent(value, &d, why);
		if (ret)
			return ret;
		if (d < (double)k->min || d > (double)k->max) {
			strbuf_addf(why, "%s is out of range: expected %llu to %llu", value,
				    (unsigned long long)k->min, (unsigned long long)k->max);
			return -ERANGE;
		}
		*(double *)field = d;
		return 0;
	case PROFILE_KEY_BOOL:
		ret = unit_parse_bool(value, &b, why);
		if (!ret)
			*(bool *)field = b;
		return ret;
	case PROFILE_KEY_NUMBER:
		ret = parse_number(k, value, &d, why);
		if (!ret)
			*(double *)field = d;
		return ret;
	default:
		return -EINVAL;
	}
	if (ret)
		return ret;
	ret = check_range(k, u, value, why);
	if (ret)
		return ret;
	return store_uint(k, field, u);
}

/* The field size each store kind needs (0: any size, checked elsewhere). */
static size_t store_size(enum profile_key_store s)
{
	switch (s) {
	case PROFILE_STORE_STR:
		return sizeof(char *);
	case PROFILE_STORE_TYPE:
		return sizeof(enum profile_test_type);
	case PROFILE_STORE_U64:
		return sizeof(uint64_t);
	case PROFILE_STORE_U32:
		return sizeof(uint32_t);
	case PROFILE_STORE_UINT:
		return sizeof(unsigned);
	case PROFILE_STORE_DOUBLE:
		return sizeof(double);
	case PROFILE_STORE_BOOL:
		return sizeof(bool);
	default:
		return 0;
	}
}

static uint64_t store_max(enum profile_key_store s)
{
	return s == PROFILE_STORE_U32	 ? UINT32_MAX
	       : s == PROFILE_STORE_UINT ? UINT_MAX
					 : UINT64_MAX;
}

static bool type_store_ok(enum profile_key_type t, enum profile_key_store s)
{
	switch (t) {
	case PROFILE_KEY_STRING:
		return s == PROFILE_STORE_STR;
	case PROFILE_KEY_CHOICE:
		return s == PROFILE_STORE_CHARS || s == PROFILE_STORE_TYPE;
	case PROFILE_KEY_DURATION:
	case PROFILE_KEY_SIZE:
	case PROFILE_KEY_U64:
		return s == PROFILE_STORE_U64 || s == PROFILE_STORE_U32 || s == PROFILE_STORE_UINT;
	case PROFILE_KEY_PERCENT:
	case PROFILE_KEY_NUMBER:
		return s == PROFILE_STORE_DOUBLE;
	case PROFILE_KEY_BOOL:
		return s == PROFILE_STORE_BOOL;
	}
	return false;
}

static int check_default(const struct profile_key *k, struct strbuf *err)
{
	union {
		struct profile p;
		struct profile_volume v;
	} scratch;
	struct strbuf why = STRBUF_INIT;
	int ret;

	memset(&scratch, 0, sizeof(scratch));
	ret = profile_key_set(k, &scratch, k->def, &why);
	if (!ret && k->store == PROFILE_STORE_STR)
		free(*(char **)((char *)&scratch + k->offset));
	if (ret)
		strbuf_addf(err, "[%s] %s: default \"%s\" is invalid: %s", k->section, k->name,
			    k->def, why.buf);
	strbuf_release(&why);
	return ret ? -EINVAL : 0;
}

int profile_key_check(const struct profile_key *k, struct strbuf *err)
{
	size_t i, n, limit;
	bool known = false;

	for (i = 0; i < DP_ARRAY_SIZE(sections); i++)
		known |= !strcmp(k->section, sections[i]);
	limit = !strcmp(k->section, "volume") ? sizeof(struct profile_volume)
					      : sizeof(struct profile);
	if (!known || !k->name || !*k->name || !k->help || !*k->help) {
		strbuf_addf(err, "[%s] %s: unknown section, or no name or help", k->section,
			    k->name ? k->name : "(null)");
		return -EINVAL;
	}
	/* [sim NAME] and [sim-log NAME] set these keys in a struct profile_sim
	 * of their own: every [sim] key is a field of profile.sim */
	if (!strcmp(k->section, "sim") &&
	    (k->offset < offsetof(struct profile, sim) ||
	     k->offset + k->size > offsetof(struct profile, sim) + sizeof(struct profile_sim))) {
		strbuf_addf(err, "[sim] %s: not a field of struct profile_sim", k->name);
		return -EINVAL;
	}
	if (!type_store_ok(k->type, k->store) || k->offset + k->size > limit ||
	    (store_size(k->store) && store_size(k->store) != k->size)) {
		strbuf_addf(err, "[%s] %s: type, store and field do not agree", k->section,
			    k->name);
		return -EINVAL;
	}
	if (k->min > k->max || k->max > store_max(k->store) || (k->pow2 && k->multiple) ||
	    (k->type == PROFILE_KEY_PERCENT && k->max > 100)) {
		strbuf_addf(err, "[%s] %s: bad bounds", k->section, k->name);
		return -EINVAL;
	}
	if ((k->type == PROFILE_KEY_CHOICE) != (k->choices != NULL)) {
		strbuf_addf(err, "[%s] %s: choices go with (only) the choice type", k->section,
			    k->name);
		return -EINVAL;
	}
	if (k->choices) {
		n = choices_count(k->choices);
		for (i = 0; i < n; i++) {
			if (k->store == PROFILE_STORE_CHARS && strlen(k->choices[i]) >= k->size) {
				strbuf_addf(err, "[%s] %s: choice %s does not fit its field",
					    k->section, k->name, k->choices[i]);
				return -EINVAL;
			}
		}
		if (!n) {
			strbuf_addf(err, "[%s] %s: no choices", k->section, k->name);
			return -EINVAL;
		}
	}
	if (k->required && k->def) {
		strbuf_addf(err, "[%s] %s: a required key has no default", k->section, k->name);
		return -EINVAL;
	}
	if (k->def && check_default(k, err))
		return -EINVAL;
	/* Names are unique within their section. */
	for (i = 0; i < DP_ARRAY_SIZE(keys); i++) {
		if (&keys[i] != k && !strcmp(keys[i].section, k->section) &&
		    !strcmp(keys[i].name, k->name)) {
			strbuf_addf(err, "[%s] %s: defined twice", k->section, k->name);
			return -EINVAL;
		}
	}
	return 0;
}
