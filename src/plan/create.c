/* SPDX-License-Identifier: MIT */
/*
 * create.c - writing new database and log files at the speed of the device:
 * large sequential O_DIRECT writes through the profile's engine (the ops of
 * engine.h: io_uring, libaio or psync, so a host without io_uring creates its
 * files with psync), several in flight per volume and every volume at once,
 * each buffer stamped with pages in the on-disk format (generation 1) just
 * before it is written. Every file is opened (and its blocks reserved)
 * before the first write, as the engine takes its descriptors when it opens;
 * a file is fdatasync'ed and closed when its last write completes.
 *
 * Progress is reported per volume, at most ten times a second; the callback
 * may ask to stop (Ctrl-C), after which in-flight writes are drained and
 * what is written stays: the next init resumes from it.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diskproof/driver.h"
#include "diskproof/fileopen.h"
#include "diskproof/page.h"
#include "plan_internal.h"

#define CREATE_BUF (1024u * 1024u)
#define CREATE_MAX_INFLIGHT 64u
#define CREATE_QD_PER_VOLUME 4u
#define CREATE_PROGRESS_NS (100 * NSEC_PER_MSEC)
#define CREATE_WAIT_NS (100 * NSEC_PER_MSEC)

struct cfile {
	const struct create_job *job;
	int fd;
	uint64_t next; /* next offset to issue */
	unsigned inflight;
	bool closed;
	bool made; /* created by this call: removed again if nothing reached it */
};

struct cvol {
	struct cfile *files; /* this volume's jobs, in order */
	size_t nfiles;
	size_t cur; /* first file with something left to issue */
	unsigned inflight;
	uint64_t done, total;
};

struct cbuf {
	struct engine_req req; /* req.owner is this buffer */
	void *mem;
	struct cfile *file;
	struct cvol *vol;
	uint32_t len;
	uint64_t off;
	bool busy;
};

struct creator {
	const struct engine_ops *ops;
	struct engine_ctx ctx;
	struct engine_clock clock;
	struct engine_drv drv; /* the one driver of ops over ctx (driver.h) */
	int *fds;	       /* of every job, by job index: the engine's ctx.fds */
	struct cbuf *bufs;
	unsigned nbufs, qd;
	struct cvol *vols;
	size_t nvols;
	const struct plan *pl;
	const struct profile *p;
	const struct plan_progress *prog;
	const struct create_job *jobs;
	uint64_t *created;
	uint64_t last_progress;
	struct strbuf *err; /* the caller's: what failed */
	bool stopping;
	int ret;
};

static void creator_fail(struct creator *c, int ret)
{
	if (!c->ret)
		c->ret = ret;
	c->stopping = true;
}

static bool is_blockdev(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISBLK(st.st_mode);
}

static int cfile_open(struct creator *c, struct cfile *f, struct strbuf *err)
{
	/* a block-device region: the device was checked unused just before
	 * (prepare.c) and its O_EXCL descriptor is held by the command's lock
	 * (lock.h); several regions are open at once, so no O_EXCL here */
	bool dev = is_blockdev(f->job->path);
	/* read-write: an engine may probe a descriptor with a read (libaio's
	 * RWF_DSYNC check) */
	int flags = O_RDWR | O_NOFOLLOW | (c->p->direct ? O_DIRECT : 0) | (dev ? 0 : O_CREAT);
	struct stat st;
	int ret;

	f->made = !dev && lstat(f->job->path, &st) != 0 && errno == ENOENT;

	/* never blocks on a FIFO put there since it was inspected */
	ret = file_open_checked(f->job->path, flags, 0644,
				dev ? FILE_OPEN_BLOCK : FILE_OPEN_REGULAR, NULL, err);
	f->fd = ret >= 0 ? ret : -1;
	if (ret == -EMEDIUMTYPE)
		return ret;
	if (ret == -EINVAL && c->p->direct) {
		strbuf_addf(err,
			    "%s: the filesystem refuses O_DIRECT (tmpfs?); set [engine] direct = "
			    "off to test through the page cache",
			    f->job->path);
		return -EINVAL;
	}
	if (ret < 0) {
		strbuf_addf(err, "%s: cannot create: %s", f->job->path, strerror(-ret));
		return ret;
	}
	/* reserve the blocks up front (the size still grows write by write,
	 * so an interrupted creation resumes where it stopped): extending
	 * direct writes then need no allocation in the kernel's write path */
	if (!dev && f->job->to > f->next)
		(void)!fallocate(f->fd, FALLOC_FL_KEEP_SIZE, (off_t)f->next,
				 (off_t)(f->job->to - f->next));
	return 0;
}

/* Called when a file has nothing in flight and nothing left to issue. */
static int cfile_close(struct cfile *f, bool sync, struct strbuf *err)
{
	int ret = 0;

	if (f->closed || f->fd < 0)
		return 0;
	if (sync && fdatasync(f->fd) != 0) {
		ret = -errno;
		strbuf_addf(err, "%s: fdatasync failed: %s", f->job->path, strerror(-ret));
	}
	if (close(f->fd) != 0 && !ret) {
		ret = -errno;
		strbuf_addf(err, "%s: close failed: %s", f->job->path, strerror(-ret));
	}
	f->fd = -1;
	f->closed = true;
	return ret;
}

/*
 * The end of a creation, for a file whatever its state: closed, and removed
 * when this call made it and stopped (interrupted, failed) before any byte
 * reached it, so a stopped creation leaves the files it never began absent,
 * as they were (every file is opened before the first write).
 */
static void cfile_forget(struct cfile *f, struct strbuf *err)
{
	struct stat st;
	bool empty =
		f->made && f->fd >= 0 && !f->closed && fstat(f->fd, &st) == 0 && st.st_size == 0;

	cfile_close(f, false, err);
	if (empty)
		(void)unlink(f->job->path);
}

static void fill(const struct creator *c, const struct cfile *f, void *mem, uint64_t off,
		 uint32_t len)
{
	const struct create_job *j = f->job;

	for (uint32_t o = 0; o < len; o += j->block)
		page_stamp((char *)mem + o, j->block, j->kind, j->db_id, (off + o) / j->block, 1, 0,
			   c->p->seed, true);
}

static void creator_complete(struct creator *c, struct cbuf *b, int64_t res, struct strbuf *err)
{
	struct cfile *f = b->file;
	struct cvol *v = b->vol;

	b->busy = false;
	f->inflight--;
	v->inflight--;
	if (res < 0) {
		strbuf_addf(err, "%s: write at offset %llu failed: %s", f->job->path,
			    (unsigned long long)b->off, strerror((int)-res));
		creator_fail(c, (int)res);
	} else if ((uint64_t)res < b->len) {
		strbuf_addf(err, "%s: short write at offset %llu: No space left on device?",
			    f->job->path, (unsigned long long)(b->off + (uint64_t)res));
		creator_fail(c, -ENOSPC);
	} else {
		v->done += b->len;
		*c->created += b->len;
	}
	if (!f->inflight && (f->next >= f->job->to || c->stopping)) {
		int ret = cfile_close(f, true, err);

		if (ret)
			creator_fail(c, ret);
	}
}

/* The driver's callback (driver.h): a write it is done with, its remainders
 * written and EAGAIN retried; result the bytes written in all or -errno. */
static void creator_write_done(void *arg, struct engine_req *req)
{
	struct creator *c = arg;

	creator_complete(c, req->owner, req->result, c->err);
}

/* Issues what the volume's queue depth allows; a write the engine has no
 * room for is kept by the driver, and the volume waits for the next turn. */
static void creator_issue_volume(struct creator *c, struct cvol *v)
{
	while (!c->stopping && v->inflight < c->qd && v->cur < v->nfiles) {
		struct cfile *f = &v->files[v->cur];
		const struct create_job *j = f->job;
		struct cbuf *b = NULL;
		uint64_t len;

		if (f->next >= j->to) {
			v->cur++;
			continue;
		}
		for (unsigned i = 0; i < c->nbufs; i++)
			if (!c->bufs[i].busy) {
				b = &c->bufs[i];
				break;
			}
		if (!b)
			return;
		len = j->to - f->next < CREATE_BUF ? j->to - f->next : CREATE_BUF;
		len -= len % j->block;
		fill(c, f, b->mem, f->next, (uint32_t)len);
		*b = (struct cbuf){.mem = b->mem,
				   .file = f,
				   .vol = v,
				   .len = (uint32_t)len,
				   .off = f->next,
				   .busy = true};
		b->req = (struct engine_req){.op = ENGINE_OP_WRITE,
					     .file = (uint32_t)(j - c->jobs),
					     .offset = j->base + f->next,
					     .len = (uint32_t)len,
					     .buf_index = -1,
					     .buf = b->mem,
					     .owner = b};
		/* counted first: the driver may hand it back at once */
		f->next += len;
		f->inflight++;
		v->inflight++;
		if (engine_drv_queue(&c->drv, &b->req) == ENGINE_Q_BUSY)
			return;
	}
}

static void creator_progress(struct creator *c, bool force)
{
	uint64_t now = time_mono_ns();

	if (!c->prog || !c->prog->fn || (!force && now - c->last_progress < CREATE_PROGRESS_NS))
		return;
	c->last_progress = now;
	for (size_t i = 0; i < c->nvols; i++) {
		struct cvol *v = &c->vols[i];

		if (!v->total)
			continue;
		if (c->prog->fn(c->prog->arg, c->pl->vols[i].name, v->done, v->total) &&
		    !c->stopping) {
			c->ret = c->ret ? c->ret : -EINTR;
			c->stopping = true;
		}
	}
}

static unsigned creator_inflight(const struct creator *c)
{
	unsigned n = 0;

	for (size_t i = 0; i < c->nvols; i++)
		n += c->vols[i].inflight;
	return n;
}

static bool creator_done(const struct creator *c)
{
	for (size_t i = 0; i < c->nvols; i++)
		if (c->vols[i].cur < c->vols[i].nfiles)
			return false;
	return true;
}

static int creator_loop(struct creator *c, struct strbuf *err)
{
	int n;

	for (;;) {
		for (size_t i = 0; i < c->nvols; i++)
			creator_issue_volume(c, &c->vols[i]);
		if (!creator_inflight(c) && (c->stopping || creator_done(c)))
			break;
		n = engine_drv_turn(&c->drv, 1, CREATE_WAIT_NS, err);
		if (n < 0) {
			/* the driver said which: "ENGINE engine: submit failed:
			 * WHY" or "... reap failed: WHY"; what is in flight
			 * cannot be waited for: give up on it */
			creator_fail(c, n);
			return c->ret;
		}
		creator_progress(c, false);
	}
	creator_progress(c, true);
	return c->ret;
}

/*
 * The profile's engine, set up for the jobs' files: init first (a host
 * without the engine is told so before any file is made), then every file
 * opened (the engine takes the descriptors when it opens), then open.
 * 0, or -errno with the reason in err.
 */
static int creator_engine(struct creator *c, struct cfile *files, size_t njobs, struct strbuf *err)
{
	const struct engine_ops *ops = engine_find(c->p->engine);
	struct strbuf why = STRBUF_INIT;
	int ret;

	if (!ops || ops->unavailable || (ops->flags & ENGINE_F_NO_FILES)) {
		strbuf_addf(err, "creating files: engine %s cannot write files%s%s", c->p->engine,
			    ops && ops->unavailable ? ": " : "",
			    ops && ops->unavailable ? ops->unavailable : "");
		return -EINVAL;
	}
	c->ops = ops;
	engine_clock_init_mono(&c->clock);
	c->ctx = (struct engine_ctx){
		.depth = c->nbufs, .nr_devices = (unsigned)c->nvols, .clock = &c->clock};
	ret = engine_drv_init(&c->drv, ops, &c->ctx, c->nbufs, creator_write_done, c, &why);
	c->drv.max_again = ENGINE_DRV_AGAIN_MAX; /* then the write fails, naming EAGAIN */
	if (ret)
		strbuf_addf(err, "creating files: %s", why.buf);
	strbuf_release(&why);
	if (ret)
		return ret;
	for (size_t i = 0; i < njobs; i++) {
		ret = cfile_open(c, &files[i], err);
		if (ret)
			return ret;
		c->fds[i] = files[i].fd;
	}
	c->ctx.fds = c->fds;
	c->ctx.nr_files = (unsigned)njobs;
	return engine_drv_open(&c->drv, err);
}

int plan_create_files(const struct plan *pl, const struct profile *p, const struct create_job *jobs,
		      size_t njobs, const struct plan_progress *prog, uint64_t *created,
		      struct strbuf *err)
{
	struct creator c = {
		.pl = pl, .p = p, .prog = prog, .created = created, .jobs = jobs, .err = err};
	struct cfile *files = NULL;
	int ret;

	if (!njobs)
		return 0;
	c.nvols = pl->nr_vols;
	c.vols = calloc(c.nvols, sizeof(*c.vols));
	files = calloc(njobs, sizeof(*files));
	if (!c.vols || !files) {
		ret = -ENOMEM;
		goto out_free;
	}
	/* jobs are grouped by volume, in order */
	for (size_t i = 0; i < njobs; i++) {
		struct cvol *v = &c.vols[jobs[i].volume];

		if (!v->files)
			v->files = &files[i];
		v->nfiles++;
		v->total += jobs[i].to - jobs[i].from;
		files[i] = (struct cfile){.job = &jobs[i], .fd = -1, .next = jobs[i].from};
	}
	c.qd = CREATE_QD_PER_VOLUME;
	if (c.qd * c.nvols > CREATE_MAX_INFLIGHT)
		c.qd = CREATE_MAX_INFLIGHT / (unsigned)c.nvols
			       ? CREATE_MAX_INFLIGHT / (unsigned)c.nvols
			       : 1;
	c.nbufs = c.qd * (unsigned)c.nvols;
	if (c.nbufs > CREATE_MAX_INFLIGHT)
		c.nbufs = CREATE_MAX_INFLIGHT;
	c.bufs = calloc(c.nbufs, sizeof(*c.bufs));
	c.fds = calloc(njobs, sizeof(*c.fds));
	if (!c.bufs || !c.fds) {
		ret = -ENOMEM;
		goto out_free;
	}
	for (unsigned i = 0; i < c.nbufs; i++)
		if (posix_memalign(&c.bufs[i].mem, 4096, CREATE_BUF)) {
			ret = -ENOMEM;
			goto out_bufs;
		}
	ret = creator_engine(&c, files, njobs, err);
	if (!ret)
		ret = creator_loop(&c, err);
	if (ret == -EINTR && !err->len)
		strbuf_addstr(err, "creating files: interrupted; run again to resume");
	/* the engine first: it waits for (or cancels) what is in flight */
	engine_drv_release(&c.drv);
	for (size_t i = 0; i < njobs; i++)
		cfile_forget(&files[i], err);
out_bufs:
	for (unsigned i = 0; i < c.nbufs; i++)
		free(c.bufs[i].mem);
	free(c.bufs);
	free(c.fds);
out_free:
	if (ret == -ENOMEM)
		strbuf_addstr(err, "creating files: out of memory");
	free(files);
	free(c.vols);
	return ret;
}
