/* SPDX-License-Identifier: MIT */
/*
 * verify.c - reading back and checking every page and log block of a plan
 * (verify.h).
 *
 * Shape: the calling thread opens and identifies every file and loads every
 * journal (cheap, and all environment problems are known before the first
 * big read), then starts one thread per volume. Each volume thread owns a
 * context of the profile's engine (the ops of engine.h: io_uring, libaio or
 * psync, so verify runs where the profile's engine does) and VERIFY_DEPTH
 * 1 MiB buffers and reads its files in order,
 * VERIFY_FILES_AT_ONCE files at a time with up to VERIFY_PER_FILE reads in
 * flight each: sequential per file, which is what disks read fastest, and
 * deep enough for flash. A database and its log belong to the same volume
 * thread, so a database's problem list has one writer and needs no lock.
 * The calling thread meanwhile waits on the signal fd and on an eventfd the
 * volume threads post when they finish, and reports progress from counters
 * the threads publish.
 *
 * A read that fails or comes back short is retried block by block with
 * pread(), so that a bad sector costs one page, not a megabyte.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "diskproof/driver.h"
#include "diskproof/fileopen.h"
#include "diskproof/journal.h"
#include "diskproof/page.h"
#include "diskproof/verify.h"

#define VERIFY_CHUNK (1u << 20)
#define VERIFY_PER_FILE 4u
#define VERIFY_FILES_AT_ONCE 2u
#define VERIFY_DEPTH (VERIFY_PER_FILE * VERIFY_FILES_AT_ONCE)
#define VERIFY_MAX_LISTED 100u
#define VERIFY_BUF_ALIGN 4096u
/* pages sampled to tell a damaged diskproof file from somebody else's */
#define VERIFY_SAMPLES 5

/* One file being read: a database or a log. */
struct vfile {
	struct verify_db *vdb;
	struct verify_file *vf;
	bool log;
	int fd;
	uint64_t base;	   /* where the file starts in fd (a block-device region) */
	uint64_t extent;   /* bytes to verify: a multiple of vf->block */
	uint64_t next_off; /* next read to issue */
	unsigned inflight;
	unsigned eidx; /* its index in its volume's engine files */
	bool skip;     /* could not be opened or is not ours */
	bool known;    /* a database whose journal matches it: ours, however damaged */
};

/* What a database's checks need besides its result. */
struct vdb_state {
	uint32_t *gens; /* journal, or NULL */
	bool exact;	/* the journal is clean */
	uint64_t max_key;
};

struct vslot {
	struct engine_req req; /* req.tag is the slot's index */
	void *buf;
	struct vfile *file;
	uint64_t off;
	uint32_t len;
};

struct vctx;

struct vvol {
	struct vctx *c;
	const struct plan_volume *pv;
	struct vfile **files;
	size_t nr_files;
	const struct engine_ops *ops;
	struct engine_ctx ctx;
	struct engine_clock clock;
	int *fds;	       /* of files[], the engine's ctx.fds */
	struct engine_drv drv; /* the one driver of ops over ctx (driver.h) */
	int engine_ret;	       /* the engine failed: -errno, why in engine_err */
	struct strbuf engine_err;
	struct vslot slots[VERIFY_DEPTH];
	unsigned free_slots[VERIFY_DEPTH];
	unsigned nr_free;
	void *scratch;
	uint64_t total; /* bytes to verify */
	double rate;	/* bytes/s, 0 = unlimited */
	uint64_t issued;
	size_t first; /* first file not yet done */
	pthread_t thread;
	bool started;
	_Atomic uint64_t done;
	_Atomic uint64_t bad;
	_Atomic bool finished;
};

struct vctx {
	const struct verify_options *o;
	struct verify_result *r;
	struct vdb_state *st;
	struct vfile *files; /* 2 per database: data, log */
	struct vvol *vols;
	size_t nr_vols;
	unsigned max_listed;
	uint64_t t0;
	int efd;
	_Atomic bool stop;
};

const char *verify_problem_name(enum verify_problem p)
{
	static const char *const names[] = {
		[VERIFY_NOT_OURS] = "not a diskproof page: never written, or overwritten",
		[VERIFY_CHECKSUM] = "checksum mismatch: corrupt or torn",
		[VERIFY_MISDIRECTED] = "misdirected write: another page's content",
		[VERIFY_LOST_WRITE] = "lost write: older than the last acknowledged write",
		[VERIFY_UNWRITTEN] = "unwritten page: generation 0",
		[VERIFY_NEWER] = "newer than the clean journal: a write diskproof did not make",
		[VERIFY_PAYLOAD] = "payload mismatch: checksum fine, bytes differ",
		[VERIFY_READ_ERROR] = "read failed",
		[VERIFY_WRITE_FAILED] = "write failed: what it holds is undefined; not checked",
	};
	return (unsigned)p < DP_ARRAY_SIZE(names) ? names[p] : "unknown";
}

const char *verify_problem_short(enum verify_problem p)
{
	static const char *const names[] = {
		[VERIFY_NOT_OURS] = "not a diskproof page",
		[VERIFY_CHECKSUM] = "checksum mismatch",
		[VERIFY_MISDIRECTED] = "misdirected write",
		[VERIFY_LOST_WRITE] = "lost write",
		[VERIFY_UNWRITTEN] = "unwritten page",
		[VERIFY_NEWER] = "newer than the journal",
		[VERIFY_PAYLOAD] = "payload mismatch",
		[VERIFY_READ_ERROR] = "read error",
		[VERIFY_WRITE_FAILED] = "write failed",
	};
	return (unsigned)p < DP_ARRAY_SIZE(names) ? names[p] : "unknown";
}

bool verify_problem_is_integrity(enum verify_problem p)
{
	return p != VERIFY_READ_ERROR && p != VERIFY_WRITE_FAILED;
}

/* deep: regenerate the page its header describes and compare every byte */
static bool payload_matches(const void *buf, uint32_t size, const struct page_header *h,
			    void *scratch)
{
	struct log_records lr;

	page_stamp(scratch, size, (enum page_kind)h->kind, h->db_id, h->page_no, h->generation,
		   h->run_id, h->seed, true);
	if (h->kind == PAGE_KIND_LOG && size >= PAGE_HEADER_SIZE + sizeof(lr)) {
		/* the record table is the log's own content, not derived */
		memcpy(&lr, (const char *)buf + PAGE_HEADER_SIZE, sizeof(lr));
		if (lr.magic == LOG_RECORDS_MAGIC && lr.count <= log_records_capacity(size)) {
			memcpy((char *)scratch + PAGE_HEADER_SIZE,
			       (const char *)buf + PAGE_HEADER_SIZE, sizeof(lr) + 8 * lr.count);
			page_reseal(scratch, size);
		}
	}
	return memcmp(scratch, buf, size) == 0;
}

bool verify_block(const void *buf, uint32_t size, bool log, uint32_t db_id, uint64_t index,
		  uint64_t expected, bool exact, void *scratch, struct verify_bad *bad)
{
	struct page_header h;
	enum page_status s;
	uint64_t found = 0;
	int problem = -1;

	memcpy(&h, buf, sizeof(h));
	if (log)
		s = page_log_verify(buf, size, db_id, index, true);
	else
		s = page_verify(buf, size, db_id, index, expected, true, &found);
	switch (s) {
	case PAGE_OK:
		/* page_verify() takes 0 for 0 when nothing is expected */
		if (h.generation == 0)
			problem = VERIFY_UNWRITTEN;
		break;
	case PAGE_NEWER:
		if (exact && expected)
			problem = VERIFY_NEWER;
		break;
	case PAGE_BAD_MAGIC:
		problem = VERIFY_NOT_OURS;
		break;
	case PAGE_BAD_CRC:
		problem = VERIFY_CHECKSUM;
		break;
	case PAGE_MISDIRECTED:
		problem = VERIFY_MISDIRECTED;
		break;
	case PAGE_LOST_WRITE:
		problem = VERIFY_LOST_WRITE;
		break;
	case PAGE_UNWRITTEN:
		problem = VERIFY_UNWRITTEN;
		break;
	}
	if (problem < 0 && scratch && !payload_matches(buf, size, &h, scratch))
		problem = VERIFY_PAYLOAD;
	if (problem < 0)
		return true;
	memset(bad, 0, sizeof(*bad));
	bad->problem = (uint8_t)problem;
	bad->log = log;
	bad->expected_gen = log ? 0 : expected;
	bad->found_gen = problem == VERIFY_NOT_OURS ? 0 : h.generation;
	if (problem == VERIFY_MISDIRECTED) {
		bad->found_db = h.db_id;
		bad->found_page = h.page_no;
		bad->found_log = h.kind == PAGE_KIND_LOG;
	}
	return false;
}

/* Sort key of a problem in its database's list: pages, then log blocks. */
static uint64_t bad_key(const struct verify_bad *b)
{
	return ((uint64_t)b->log << 63) | b->index;
}

static int bad_cmp(const void *a, const void *b)
{
	uint64_t x = bad_key(a), y = bad_key(b);

	return x < y ? -1 : x > y;
}

/*
 * Counts a problem and keeps it in the database's list when it is among the
 * max_listed lowest-numbered ones. Reads go mostly upwards, so once the list
 * is full a new problem usually sorts after its largest entry and costs one
 * comparison.
 */
static void record_bad(struct vctx *c, struct vfile *f, const struct verify_bad *b)
{
	struct verify_db *vdb = f->vdb;
	struct vdb_state *st = &c->st[vdb - c->r->dbs];
	uint64_t key = bad_key(b);
	size_t imax = 0;

	f->vf->bad[b->problem]++;
	if (vdb->nr_bad < c->max_listed) {
		vdb->bad[vdb->nr_bad++] = *b;
		if (vdb->nr_bad == 1 || key > st->max_key)
			st->max_key = key;
		return;
	}
	vdb->unlisted++;
	if (key >= st->max_key)
		return;
	for (size_t i = 0; i < vdb->nr_bad; i++)
		if (bad_key(&vdb->bad[i]) == st->max_key)
			imax = i;
	vdb->bad[imax] = *b;
	st->max_key = 0;
	for (size_t i = 0; i < vdb->nr_bad; i++)
		if (bad_key(&vdb->bad[i]) > st->max_key)
			st->max_key = bad_key(&vdb->bad[i]);
}

/* Checks the blocks of buf (read from f at off), len bytes. */
static void check_range(struct vvol *v, struct vfile *f, const unsigned char *buf, uint64_t off,
			uint64_t len)
{
	struct vctx *c = v->c;
	struct vdb_state *st = &c->st[f->vdb - c->r->dbs];
	uint32_t bs = f->vf->block;
	uint32_t id = f->vdb->pdb->id;

	for (uint64_t o = 0; o + bs <= len; o += bs) {
		uint64_t idx = (off + o) / bs, expected = 0;
		bool exact = st->exact;
		struct verify_bad b;

		if (!f->log && st->gens && idx < f->vdb->pdb->nr_pages &&
		    journal_gen_failed(st->gens[idx])) {
			/* its last write failed: anything may be there */
			f->vf->checked++;
			b = (struct verify_bad){.index = idx,
						.offset = f->base + off + o,
						.failed_run = journal_failed_run(st->gens[idx]),
						.problem = VERIFY_WRITE_FAILED};
			record_bad(c, f, &b);
			continue;
		}
		if (!f->log && st->gens && idx < f->vdb->pdb->nr_pages) {
			expected = st->gens[idx] & ~JOURNAL_GEN_LOWER;
			/* a page the journal knows only as a lower bound */
			exact = exact && !(st->gens[idx] & JOURNAL_GEN_LOWER);
		}
		f->vf->checked++;
		if (verify_block(buf + o, bs, f->log, id, idx, expected, exact,
				 c->o->deep ? v->scratch : NULL, &b)) {
			/* after an unclean end: newer is fine, and counted */
			if (expected && !exact) {
				struct page_header h;

				memcpy(&h, buf + o, sizeof(h));
				f->vf->newer += h.generation > expected;
			}
			continue;
		}
		b.index = idx;
		b.offset = f->base + off + o;
		record_bad(c, f, &b);
		atomic_fetch_add_explicit(&v->bad, 1, memory_order_relaxed);
	}
}

/* A failed or short read: block by block, so that only the bad blocks count. */
static void reread_blocks(struct vvol *v, struct vfile *f, unsigned char *buf, uint64_t off,
			  uint64_t len)
{
	uint32_t bs = f->vf->block;

	for (uint64_t o = 0; o < len; o += bs) {
		ssize_t n;

		do
			n = pread(f->fd, buf + o, bs, (off_t)(f->base + off + o));
		while (n < 0 && errno == EINTR);
		if (n == (ssize_t)bs) {
			check_range(v, f, buf + o, off + o, bs);
			continue;
		}
		struct verify_bad b = {
			.index = (off + o) / bs,
			.offset = f->base + off + o,
			.error = n < 0 ? errno : ENODATA, /* short: the file shrank */
			.problem = VERIFY_READ_ERROR,
			.log = f->log,
		};
		f->vf->checked++;
		record_bad(v->c, f, &b);
		atomic_fetch_add_explicit(&v->bad, 1, memory_order_relaxed);
	}
}

/* The next file with a read to issue, among the first files not yet done. */
static struct vfile *next_file(struct vvol *v)
{
	while (v->first < v->nr_files) {
		struct vfile *f = v->files[v->first];

		if (f->next_off < f->extent || f->inflight)
			break;
		v->first++;
	}
	for (size_t i = v->first; i < v->nr_files && i < v->first + VERIFY_FILES_AT_ONCE; i++) {
		struct vfile *f = v->files[i];

		if (f->next_off < f->extent && f->inflight < VERIFY_PER_FILE)
			return f;
	}
	return NULL;
}

/* Nanoseconds to wait before the rate allows len more bytes; 0 = go. */
static uint64_t rate_wait(struct vvol *v, uint64_t len)
{
	double allowed, t;

	if (v->rate <= 0)
		return 0;
	t = (double)(time_mono_ns() - v->c->t0) / 1e9;
	allowed = v->rate * t + VERIFY_CHUNK;
	if ((double)(v->issued + len) <= allowed)
		return 0;
	return (uint64_t)(((double)(v->issued + len) - allowed) / v->rate * 1e9) + 1;
}

/* A read done: checked whole, or block by block when it failed or came back
 * short (the driver resubmitted a short read's remainder first). */
static void complete(struct vvol *v, unsigned k, int64_t res)
{
	struct vslot *s = &v->slots[k];
	struct vfile *f = s->file;

	if (res == (int64_t)s->len)
		check_range(v, f, s->buf, s->off, s->len);
	else /* failed or short: find which blocks */
		reread_blocks(v, f, s->buf, s->off, s->len);
	f->inflight--;
	atomic_fetch_add_explicit(&v->done, s->len, memory_order_relaxed);
	v->free_slots[v->nr_free++] = k;
}

/* Queues reads while slots, files and the rate allow. Returns how long the
 * rate asks to wait (0 when it did not stop the queueing). */
static uint64_t issue_reads(struct vvol *v)
{
	while (v->nr_free && !atomic_load_explicit(&v->c->stop, memory_order_relaxed)) {
		struct vfile *f = next_file(v);
		struct vslot *s;
		uint64_t len, wait;
		unsigned k;

		if (!f)
			return 0;
		len = f->extent - f->next_off < VERIFY_CHUNK ? f->extent - f->next_off
							     : VERIFY_CHUNK;
		wait = rate_wait(v, len);
		if (wait)
			return wait;
		k = v->free_slots[v->nr_free - 1];
		s = &v->slots[k];
		s->file = f;
		s->off = f->next_off;
		s->len = (uint32_t)len;
		s->req = (struct engine_req){.op = ENGINE_OP_READ,
					     .file = f->eidx,
					     .offset = f->base + s->off,
					     .len = s->len,
					     .buf_index = -1,
					     .buf = s->buf,
					     .tag = k};
		/* counted first: the driver may hand it back at once */
		v->nr_free--;
		f->next_off += len;
		f->inflight++;
		v->issued += len;
		if (engine_drv_queue(&v->drv, &s->req) == ENGINE_Q_BUSY)
			return 0; /* full: kept by the driver, submit and come back */
	}
	return 0;
}

/* The driver's callback (driver.h): a read it is done with. */
static void read_done(void *arg, struct engine_req *req)
{
	complete(arg, (unsigned)req->tag, req->result);
}

/* Submits and reaps what has completed, waiting up to wait_ns for the first.
 * false when the engine failed (v->engine_ret, v->engine_err): the volume
 * stops, its reads in flight cannot be waited for. */
static bool reap(struct vvol *v, uint64_t wait_ns)
{
	int n = engine_drv_turn(&v->drv, 1, wait_ns, &v->engine_err);

	if (n >= 0)
		return true;
	v->engine_ret = n;
	return false;
}

static void *volume_thread(void *arg)
{
	struct vvol *v = arg;
	uint64_t one = 1;

	for (;;) {
		uint64_t wait = issue_reads(v);
		bool idle = v->nr_free == VERIFY_DEPTH;

		if (idle && (atomic_load_explicit(&v->c->stop, memory_order_relaxed) ||
			     (!wait && !next_file(v))))
			break;
		if (idle && wait) {
			struct timespec ts = {(time_t)(wait / NSEC_PER_SEC),
					      (long)(wait % NSEC_PER_SEC)};

			if (wait > 100 * NSEC_PER_MSEC)
				ts = (struct timespec){0, 100 * NSEC_PER_MSEC};
			nanosleep(&ts, NULL);
			continue;
		}
		/* wake now and then to see a stop even on a slow device */
		if (!reap(v, 100 * NSEC_PER_MSEC))
			break;
	}
	atomic_store_explicit(&v->finished, true, memory_order_release);
	if (write(v->c->efd, &one, sizeof(one)) < 0) {
		/* the main thread polls with a timeout too: it will notice */
	}
	return NULL;
}

/* pread of one block at off, with an aligned buffer; bytes read or -errno */
static ssize_t read_block(int fd, void *buf, uint32_t len, uint64_t off)
{
	ssize_t n;

	do
		n = pread(fd, buf, len, (off_t)off);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

/*
 * Is this a diskproof file of the expected kind and block size? Page 0 is
 * looked at first, then a few pages spread over the file, so that a damaged
 * page 0 does not hide a diskproof file and a foreign file is not read whole.
 * 0 when it is (*hdr_size: the block size its headers give), -EEXIST with
 * the reason in vf->error when it is not, or -errno when it cannot be read.
 */
static bool all_zero(const unsigned char *p, size_t n)
{
	return n && p[0] == 0 && !memcmp(p, p + 1, n - 1);
}

static int identify(struct vfile *f, enum page_kind kind, uint32_t block, uint64_t size,
		    uint32_t *hdr_size, bool *zeroed)
{
	uint64_t nblocks = size / block, where[VERIFY_SAMPLES];
	const char *what = kind == PAGE_KIND_DB ? "database" : "log";
	void *buf = NULL;
	int ret = -EEXIST;

	*hdr_size = 0;
	*zeroed = nblocks > 0; /* every page looked at holds only zeros */
	if (!nblocks)
		goto out_report;
	if (posix_memalign(&buf, VERIFY_BUF_ALIGN, block))
		return -ENOMEM;
	where[0] = 0;
	for (int i = 1; i < VERIFY_SAMPLES; i++)
		where[i] = nblocks * (uint64_t)i / (VERIFY_SAMPLES - 1);
	where[VERIFY_SAMPLES - 1] = nblocks - 1;
	for (int i = 0; i < VERIFY_SAMPLES; i++) {
		struct page_header h;
		ssize_t n = read_block(f->fd, buf, block, f->base + where[i] * block);

		if (n < 0) {
			ret = (int)n;
			strbuf_addf(&f->vf->error, "%s: cannot read at offset %llu: %s",
				    f->vf->path, (unsigned long long)(where[i] * block),
				    strerror((int)-n));
			goto out_free;
		}
		if (!all_zero(buf, (size_t)n))
			*zeroed = false;
		if (n < (ssize_t)sizeof(h))
			continue;
		memcpy(&h, buf, sizeof(h));
		if (h.magic != PAGE_MAGIC || h.version != PAGE_FORMAT_VERSION ||
		    h.kind != (uint32_t)kind)
			continue;
		if (h.page_size == block || !*hdr_size)
			*hdr_size = h.page_size;
		if (h.page_size == block)
			break;
	}
	free(buf);
	if (*hdr_size)
		return 0;
out_report:
	strbuf_addf(&f->vf->error,
		    "%s: not a diskproof %s file (no diskproof header at any of %d pages "
		    "looked at); not verified",
		    f->vf->path, what, nblocks ? VERIFY_SAMPLES : 0);
	return ret;
out_free:
	free(buf);
	return ret;
}

/*
 * A database file shorter than the plan whose own journal knows every
 * page: the pages past its end were written and are gone (data loss, as
 * run and init say of it), each a lost write; those still there are
 * verified.
 */
static void lost_end(struct vctx *c, struct vfile *f, uint64_t planned)
{
	const uint32_t *gens = c->st[f->vdb - c->r->dbs].gens;
	struct verify_file *vf = f->vf;
	uint64_t n = 0;

	for (uint64_t pg = f->extent / vf->block; pg < planned / vf->block; pg++)
		n += (gens[pg] & ~JOURNAL_GEN_LOWER) != 0;
	vf->bad[VERIFY_LOST_WRITE] += n;
	strbuf_addf(&vf->error,
		    "%s: is %llu bytes, but its journal %s knows %llu pages (%llu bytes): the "
		    "file lost %llu pages diskproof wrote (data loss, each a lost write); "
		    "those there verified",
		    vf->path, (unsigned long long)vf->size, f->vdb->pdb->journal,
		    (unsigned long long)(planned / vf->block), (unsigned long long)planned,
		    (unsigned long long)n);
}

/* Opens a database or log file and works out what to read. Problems go to
 * vf->error (counted in env_errors); -ENOMEM only stops the run. */
static int file_open(struct vctx *c, struct vfile *f, uint64_t planned, uint32_t block)
{
	const struct verify_options *o = c->o;
	enum page_kind kind = f->log ? PAGE_KIND_LOG : PAGE_KIND_DB;
	struct verify_file *vf = f->vf;
	uint32_t hdr_size;
	bool zeroed;
	struct stat st;
	int ret;

	f->skip = true;
	vf->block = block;
	/* never blocks on a FIFO or the like (fileopen.h): it is refused */
	ret = file_open_checked(vf->path, O_RDONLY | (o->direct ? O_DIRECT : 0), 0,
				FILE_OPEN_REGULAR | FILE_OPEN_BLOCK, &st, &vf->error);
	f->fd = ret >= 0 ? ret : -1;
	if (ret == -EMEDIUMTYPE) {
		strbuf_addstr(&vf->error, "; not verified");
		goto out_env;
	}
	if (ret == -ENOENT) {
		strbuf_addf(&vf->error, "%s: missing: no %s file here (another --data-dir?)",
			    vf->path, f->log ? "log" : "database");
		goto out_env;
	}
	if (ret == -EINVAL && o->direct) {
		strbuf_addf(&vf->error,
			    "%s: the filesystem refuses O_DIRECT (tmpfs?); set [engine] "
			    "direct = off to read through the page cache",
			    vf->path);
		goto out_env;
	}
	if (ret < 0) {
		strbuf_addf(&vf->error, "%s: cannot open: %s", vf->path, strerror(-ret));
		goto out_env;
	}
	/* a region of a block device is as large as the plan says */
	vf->size = S_ISBLK(st.st_mode) ? planned : (uint64_t)st.st_size;
	ret = identify(f, kind, block, vf->size, &hdr_size, &zeroed);
	if (ret == -EEXIST && f->known && zeroed) {
		/* zeros where it looked, and its own journal says it is this
		 * database: data the device lost (zeroed), so every page is
		 * checked; anything else there is somebody else's file */
		strbuf_reset(&vf->error);
		hdr_size = block;
		ret = 0;
	}
	if (ret == -ENOMEM)
		return ret;
	if (ret)
		goto out_env;
	if (hdr_size != block) {
		if (!f->log || hdr_size < block || hdr_size % block || hdr_size > VERIFY_CHUNK) {
			strbuf_addf(&vf->error,
				    "%s: was created with %u-byte %s, the profile asks for %u; "
				    "not verified",
				    vf->path, hdr_size, f->log ? "log blocks" : "pages", block);
			goto out_env;
		}
		vf->block = block = hdr_size; /* a log written with larger blocks */
	}
	f->extent = vf->size < planned ? vf->size : planned;
	f->extent -= f->extent % block;
	if (vf->size < planned && f->known && !f->log) {
		lost_end(c, f, planned);
	} else if (vf->size < planned) {
		strbuf_addf(&vf->error,
			    "%s: %llu bytes, the profile expects %llu (truncated, or "
			    "created with another --db-size); only those verified",
			    vf->path, (unsigned long long)vf->size, (unsigned long long)planned);
		c->r->env_errors++;
	}
	f->skip = false;
	return 0;
out_env:
	c->r->env_errors++;
	return 0;
}

/* Loads a database's journal and checks that it describes this database. */
static int journal_load(struct vctx *c, struct verify_db *vdb, struct vdb_state *st)
{
	const struct plan_db *pdb = vdb->pdb;
	struct journal_info ji;
	struct strbuf err = STRBUF_INIT;
	int ret;

	ret = journal_read(&pdb->jloc, &ji, &st->gens, &err);
	if (ret == -ENOENT) {
		vdb->journal = VERIFY_JOURNAL_NONE;
		ret = 0;
		goto out;
	}
	if (ret == -ENOMEM)
		goto out;
	if (ret) {
		strbuf_addf(&vdb->journal_note, "%s; generations not checked", err.buf);
		goto out_unusable;
	}
	if (!journal_info_matches(&ji, pdb->id, c->o->plan->page_size, pdb->nr_pages)) {
		strbuf_addf(&vdb->journal_note,
			    "%s: journal of database %u with %llu pages of %u bytes, the "
			    "database is %u with %llu pages of %u bytes; generations not "
			    "checked",
			    pdb->journal, ji.db_id, (unsigned long long)ji.nr_pages, ji.page_size,
			    pdb->id, (unsigned long long)pdb->nr_pages, c->o->plan->page_size);
		free(st->gens);
		st->gens = NULL;
		goto out_unusable;
	}
	st->exact = ji.flags & JOURNAL_CLEAN;
	vdb->journal_run_id = ji.run_id;
	vdb->journal = st->exact ? VERIFY_JOURNAL_CLEAN : VERIFY_JOURNAL_LOWER_BOUND;
	goto out;
out_unusable:
	vdb->journal = VERIFY_JOURNAL_UNUSABLE;
	c->r->env_errors++;
	ret = 0;
out:
	strbuf_release(&err);
	return ret;
}

static int vol_setup(struct vctx *c, struct vvol *v, struct strbuf *err)
{
	struct strbuf why = STRBUF_INIT;
	int ret;

	v->c = c;
	strbuf_init(&v->engine_err);
	v->scratch = NULL;
	if (posix_memalign(&v->scratch, VERIFY_BUF_ALIGN, VERIFY_CHUNK))
		goto out_nomem;
	for (unsigned k = 0; k < VERIFY_DEPTH; k++) {
		if (posix_memalign(&v->slots[k].buf, VERIFY_BUF_ALIGN, VERIFY_CHUNK))
			goto out_nomem;
		v->free_slots[k] = k;
	}
	v->nr_free = VERIFY_DEPTH;
	v->fds = calloc(v->nr_files ? v->nr_files : 1, sizeof(*v->fds));
	if (!v->fds)
		goto out_nomem;
	for (size_t i = 0; i < v->nr_files; i++) {
		v->files[i]->eidx = (unsigned)i;
		v->fds[i] = v->files[i]->fd;
	}
	v->ops = engine_find(c->o->engine ? c->o->engine : "io_uring");
	if (!v->ops || v->ops->unavailable || (v->ops->flags & ENGINE_F_NO_FILES)) {
		strbuf_addf(err, "verify: engine %s cannot read files%s%s",
			    c->o->engine ? c->o->engine : "io_uring",
			    v->ops && v->ops->unavailable ? ": " : "",
			    v->ops && v->ops->unavailable ? v->ops->unavailable : "");
		return -EINVAL;
	}
	engine_clock_init_mono(&v->clock);
	v->ctx = (struct engine_ctx){.depth = VERIFY_DEPTH,
				     .fds = v->fds,
				     .nr_files = (unsigned)v->nr_files,
				     .nr_devices = 1,
				     .clock = &v->clock};
	ret = engine_drv_init(&v->drv, v->ops, &v->ctx, VERIFY_DEPTH, read_done, v, &why);
	/* a read that keeps coming back EAGAIN is read block by block
	 * (complete: reread_blocks) rather than queued again for ever */
	v->drv.max_again = ENGINE_DRV_AGAIN_MAX;
	if (!ret)
		ret = engine_drv_open(&v->drv, &why);
	if (ret) /* "volume NAME: io_uring: cannot set up a ring ...": the engine's why */
		strbuf_addf(err, "volume %s: %s", v->pv->name, why.buf);
	strbuf_release(&why);
	return ret;
out_nomem:
	strbuf_addf(err, "volume %s: out of memory for read buffers", v->pv->name);
	return -ENOMEM;
}

static void vol_release(struct vvol *v)
{
	if (engine_drv_inflight(&v->drv)) {
		/* reads the device never completed may still land in these
		 * buffers, and closing the engine may wait for them (a hung
		 * device): leave engine, files and buffers to the process exit,
		 * as a run's worker does */
		return;
	}
	engine_drv_release(&v->drv);
	strbuf_release(&v->engine_err);
	free(v->fds);
	v->fds = NULL;
	for (unsigned k = 0; k < VERIFY_DEPTH; k++)
		free(v->slots[k].buf);
	free(v->scratch);
	free(v->files);
}

/* Everything before the first big read: result, files, journals, volumes. */
static int prepare(struct vctx *c, struct strbuf *err)
{
	const struct plan *pl = c->o->plan;
	struct verify_result *r = c->r;
	int ret;

	r->dbs = calloc(pl->nr_dbs ? pl->nr_dbs : 1, sizeof(*r->dbs));
	c->st = calloc(pl->nr_dbs ? pl->nr_dbs : 1, sizeof(*c->st));
	c->files = calloc(2 * pl->nr_dbs + 1, sizeof(*c->files));
	c->vols = calloc(pl->nr_vols ? pl->nr_vols : 1, sizeof(*c->vols));
	if (!r->dbs || !c->st || !c->files || !c->vols)
		goto out_nomem;
	r->nr_dbs = pl->nr_dbs;
	c->nr_vols = pl->nr_vols;
	for (size_t i = 0; i < pl->nr_dbs; i++) {
		strbuf_init(&r->dbs[i].data.error);
		strbuf_init(&r->dbs[i].log.error);
		strbuf_init(&r->dbs[i].journal_note);
		c->files[2 * i].fd = c->files[2 * i + 1].fd = -1;
	}
	for (size_t i = 0; i < pl->nr_dbs; i++) {
		const struct plan_db *pdb = &pl->dbs[i];
		struct verify_db *vdb = &r->dbs[i];
		struct vfile *df = &c->files[2 * i], *lf = &c->files[2 * i + 1];

		vdb->pdb = pdb;
		vdb->data.path = pdb->path;
		vdb->log.path = pdb->log_file;
		vdb->bad = calloc(c->max_listed, sizeof(*vdb->bad));
		if (!vdb->bad)
			goto out_nomem;
		*df = (struct vfile){.vdb = vdb, .vf = &vdb->data, .fd = -1, .base = pdb->base};
		*lf = (struct vfile){
			.vdb = vdb, .vf = &vdb->log, .log = true, .fd = -1, .base = pdb->log_base};
		ret = journal_load(c, vdb, &c->st[i]);
		df->known = c->st[i].gens != NULL;
		if (!ret)
			ret = file_open(c, df, pdb->size, pl->page_size);
		if (!ret)
			ret = file_open(c, lf, pdb->log_size, pl->vols[pdb->volume].log_align);
		if (ret)
			goto out_nomem;
	}
	for (size_t vi = 0; vi < pl->nr_vols; vi++) {
		struct vvol *v = &c->vols[vi];

		v->pv = &pl->vols[vi];
		v->files = calloc(2 * v->pv->nr_dbs + 1, sizeof(*v->files));
		if (!v->files)
			goto out_nomem;
		for (unsigned d = v->pv->first_db; d < v->pv->first_db + v->pv->nr_dbs; d++)
			for (unsigned k = 0; k < 2; k++) {
				struct vfile *f = &c->files[2 * d + k];

				if (f->skip)
					continue;
				v->files[v->nr_files++] = f;
				v->total += f->extent;
			}
		ret = vol_setup(c, v, err);
		if (ret)
			return ret;
	}
	return 0;
out_nomem:
	strbuf_addstr(err, "verify: out of memory");
	return -ENOMEM;
}

/* The rate is shared by size, so that every volume finishes together. */
static void share_rate(struct vctx *c)
{
	uint64_t total = 0;

	for (size_t i = 0; i < c->nr_vols; i++)
		total += c->vols[i].total;
	for (size_t i = 0; i < c->nr_vols && c->o->rate && total; i++)
		c->vols[i].rate = (double)c->o->rate * (double)c->vols[i].total / (double)total;
}

static void report_progress(struct vctx *c, struct verify_progress *pv, bool final)
{
	if (!c->o->cb.progress)
		return;
	for (size_t i = 0; i < c->nr_vols; i++) {
		struct vvol *v = &c->vols[i];

		pv[i] = (struct verify_progress){
			.volume = v->pv->name,
			.done = atomic_load_explicit(&v->done, memory_order_relaxed),
			.total = v->total,
			.bad = atomic_load_explicit(&v->bad, memory_order_relaxed),
			.finished = atomic_load_explicit(&v->finished, memory_order_acquire),
		};
	}
	c->o->cb.progress(c->o->cb.arg, pv, c->nr_vols, time_mono_ns() - c->t0, final);
}

static bool all_finished(struct vctx *c)
{
	for (size_t i = 0; i < c->nr_vols; i++)
		if (!atomic_load_explicit(&c->vols[i].finished, memory_order_acquire))
			return false;
	return true;
}

/* The calling thread: signals, progress, until every volume is done. */
static void supervise(struct vctx *c, struct verify_progress *pv)
{
	uint64_t next = c->o->progress_ns ? time_mono_ns() + c->o->progress_ns : UINT64_MAX;

	while (!all_finished(c)) {
		struct pollfd fds[2] = {{.fd = c->efd, .events = POLLIN},
					{.fd = c->o->signal_fd, .events = POLLIN}};
		uint64_t now = time_mono_ns();
		int timeout = 1000;

		if (next != UINT64_MAX)
			timeout = next > now ? (int)((next - now) / NSEC_PER_MSEC) + 1 : 0;
		if (poll(fds, c->o->signal_fd >= 0 ? 2 : 1, timeout) > 0) {
			if (fds[0].revents & POLLIN) {
				uint64_t x;

				if (read(c->efd, &x, sizeof(x)) < 0) {
					/* drained by an earlier read: fine */
				}
			}
			if (c->o->signal_fd >= 0 && (fds[1].revents & POLLIN)) {
				struct signalfd_siginfo si;

				if (read(c->o->signal_fd, &si, sizeof(si)) == sizeof(si) &&
				    !c->r->signal)
					c->r->signal = (int)si.ssi_signo;
				atomic_store(&c->stop, true);
			}
		}
		now = time_mono_ns();
		if (now >= next) {
			report_progress(c, pv, false);
			next = now + c->o->progress_ns;
		}
	}
}

/*
 * A volume whose engine failed (a submit or reap refused: the driver's
 * "ENGINE engine: submit failed: WHY") did not read its files to the end:
 * each such file says so and counts as an environment error, so that verify
 * ends "incomplete" (exit 3), or exit 4 for what it found before. Called once
 * the volume threads have ended.
 */
static void engine_failures(struct vctx *c)
{
	for (size_t i = 0; i < c->nr_vols; i++) {
		struct vvol *v = &c->vols[i];

		for (size_t k = 0; v->engine_ret && k < v->nr_files; k++) {
			struct vfile *f = v->files[k];

			if (f->next_off >= f->extent && !f->inflight)
				continue; /* read and checked in full */
			if (f->vf->error.len)
				strbuf_addstr(&f->vf->error, "; ");
			strbuf_addf(&f->vf->error, "%s: not verified in full: volume %s: %s",
				    f->vf->path, v->pv->name, v->engine_err.buf);
			c->r->env_errors++;
		}
	}
}

static void totals(struct vctx *c)
{
	struct verify_result *r = c->r;

	for (size_t i = 0; i < r->nr_dbs; i++) {
		struct verify_db *vdb = &r->dbs[i];

		qsort(vdb->bad, vdb->nr_bad, sizeof(*vdb->bad), bad_cmp);
		r->pages += vdb->data.checked;
		r->log_blocks += vdb->log.checked;
		r->bytes += vdb->data.checked * vdb->data.block + vdb->log.checked * vdb->log.block;
		for (int k = 0; k < VERIFY_PROBLEM_COUNT; k++) {
			uint64_t n = vdb->data.bad[k] + vdb->log.bad[k];

			r->bad[k] += n;
			if (verify_problem_is_integrity((enum verify_problem)k))
				r->integrity_errors += n;
			else if (k == VERIFY_WRITE_FAILED)
				r->write_failed += n;
			else
				r->env_errors += n;
		}
	}
}

static void ctx_release(struct vctx *c)
{
	if (c->vols)
		for (size_t i = 0; i < c->nr_vols; i++)
			vol_release(&c->vols[i]);
	if (c->files)
		for (size_t i = 0; i < 2 * c->r->nr_dbs; i++)
			if (c->files[i].fd >= 0)
				close(c->files[i].fd);
	if (c->st)
		for (size_t i = 0; i < c->r->nr_dbs; i++)
			free(c->st[i].gens);
	free(c->vols);
	free(c->files);
	free(c->st);
	if (c->efd >= 0)
		close(c->efd);
}

int verify_run(const struct verify_options *o, struct verify_result *r, struct strbuf *err)
{
	struct vctx c = {.o = o, .r = r, .efd = -1};
	struct verify_progress *pv = NULL;
	int ret;

	memset(r, 0, sizeof(*r));
	c.max_listed = o->max_listed ? o->max_listed : VERIFY_MAX_LISTED;
	c.efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (c.efd < 0) {
		ret = -errno;
		strbuf_addf(err, "verify: eventfd: %s", strerror(-ret));
		goto out_release;
	}
	ret = prepare(&c, err);
	if (ret)
		goto out_release;
	pv = calloc(c.nr_vols ? c.nr_vols : 1, sizeof(*pv));
	if (!pv) {
		ret = -ENOMEM;
		strbuf_addstr(err, "verify: out of memory");
		goto out_release;
	}
	share_rate(&c);
	c.t0 = time_mono_ns();
	for (size_t i = 0; i < c.nr_vols; i++) {
		ret = -pthread_create(&c.vols[i].thread, NULL, volume_thread, &c.vols[i]);
		if (ret) {
			strbuf_addf(err, "verify: cannot start a thread: %s", strerror(-ret));
			atomic_store(&c.stop, true);
			/* mark the rest finished so that supervise() returns */
			for (size_t k = i; k < c.nr_vols; k++)
				atomic_store(&c.vols[k].finished, true);
			break;
		}
		c.vols[i].started = true;
	}
	supervise(&c, pv);
	for (size_t i = 0; i < c.nr_vols; i++)
		if (c.vols[i].started)
			pthread_join(c.vols[i].thread, NULL);
	r->elapsed_ns = time_mono_ns() - c.t0;
	engine_failures(&c);
	totals(&c);
	report_progress(&c, pv, true);
out_release:
	free(pv);
	ctx_release(&c);
	return ret;
}

void verify_result_release(struct verify_result *r)
{
	if (r->dbs)
		for (size_t i = 0; i < r->nr_dbs; i++) {
			strbuf_release(&r->dbs[i].data.error);
			strbuf_release(&r->dbs[i].log.error);
			strbuf_release(&r->dbs[i].journal_note);
			free(r->dbs[i].bad);
		}
	free(r->dbs);
	memset(r, 0, sizeof(*r));
}
