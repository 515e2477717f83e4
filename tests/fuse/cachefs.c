/* SPDX-License-Identifier: MIT */
/*
 * cachefs.c - a test rig for issue 35: a passthrough FUSE filesystem over a
 * backing directory that behaves like a drive with a volatile write cache.
 *
 *   cachefs [--mode honest|lying] [--writeback-after MS] BACKING MOUNTPOINT [FUSE OPTIONS]
 *
 * Data writes land in an in-memory cache of 4 KiB pages, keyed by the
 * backing file's inode, and reach the backing file only when made durable:
 *   - honest: fsync/fdatasync writes the file's cached pages to the backing
 *     file, fdatasync's it, and only then answers;
 *   - lying: fsync answers at once; the pages are written back only
 *     --writeback-after MS later by a background thread (never, the default,
 *     or with -1): the drive acknowledged a flush it did not do.
 * A file opened O_SYNC/O_DSYNC is written through the same way at each write;
 * after a write with RWF_DSYNC the kernel sends an fsync (checked on 6.18).
 * Closing a file (FUSE flush/release) makes nothing durable: a drive's
 * cache survives a close. Unflushed pages are never written back on their
 * own, so that a test knows exactly what a cut loses.
 *
 * A cut (SIGUSR1, as a power cut) drops the whole cache: from the signal on
 * nothing more is written to the backing directory, the mount is detached and
 * the process ends (exit 0). The backing directory then holds exactly what
 * the "storage" kept. Metadata (create, rename, unlink, truncate, mkdir) goes
 * straight to the backing directory, as on a filesystem whose metadata is
 * synchronous: so a file written, fsynced and renamed over another through a
 * lying rig is there after the cut, but without the data the lie dropped
 * (a real lying drive would likely drop the rename with it).
 *
 * Every file is opened with direct I/O (FOPEN_DIRECT_IO): the kernel's page
 * cache is bypassed, so the rig's cache is the only one, and O_DIRECT opens
 * succeed. One mutex serialises the cache and the backing I/O: a test rig,
 * not a fast filesystem. Needs root (or fusermount3) and /dev/fuse.
 */
#define FUSE_USE_VERSION 31
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096u
#define BUCKETS 4096u

enum page_state { PAGE_DIRTY, PAGE_ACKED }; /* ACKED: fsync answered, not written back */

struct cpage {
	uint64_t index;
	enum page_state state;
	int64_t acked_ns;
	struct cpage *next;
	unsigned char data[PAGE];
};

/* The cache of one backing file (by inode: survives close, reopen, rename). */
struct cfile {
	dev_t dev;
	ino_t ino;
	int fd;	       /* a backing descriptor kept for write-back, -1 none */
	uint64_t size; /* the logical size: the backing size or past it */
	struct cpage *pages[BUCKETS];
	struct cfile *next;
};

struct rig {
	int backing; /* directory descriptor */
	bool lying;
	long writeback_ms; /* lying: after how long a flush is written back; -1 never */
	pthread_mutex_t lock;
	struct cfile *files;
};

/* The signal handler's view (a handler has no other way in). */
static volatile sig_atomic_t rig_cut;
static const char *rig_mountpoint;

static struct rig *rig_get(void)
{
	return fuse_get_context()->private_data;
}

static const char *rel(const char *path)
{
	return path[1] ? path + 1 : ".";
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ---- the cache ---- */

static struct cfile *cfile_find(struct rig *r, int fd, bool create)
{
	struct stat st;
	struct cfile *f;

	if (fstat(fd, &st) != 0)
		return NULL;
	for (f = r->files; f; f = f->next)
		if (f->dev == st.st_dev && f->ino == st.st_ino)
			return f;
	if (!create || !(f = calloc(1, sizeof(*f))))
		return NULL;
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	f->size = (uint64_t)st.st_size;
	f->fd = dup(fd);
	f->next = r->files;
	r->files = f;
	return f;
}

static struct cpage **cpage_slot(struct cfile *f, uint64_t index)
{
	struct cpage **p = &f->pages[index % BUCKETS];

	while (*p && (*p)->index != index)
		p = &(*p)->next;
	return p;
}

/* Writes one cached page back (never after a cut); 0 or -errno. */
static int cpage_write_back(struct cfile *f, const struct cpage *p)
{
	uint64_t off = p->index * PAGE;
	size_t len = f->size > off ? (size_t)(f->size - off < PAGE ? f->size - off : PAGE) : 0;

	if (rig_cut)
		return -EIO;
	if (len && pwrite(f->fd, p->data, len, (off_t)off) != (ssize_t)len)
		return -EIO;
	return 0;
}

/* Writes back the pages of f that pick() chooses, frees them, fdatasync's. */
static int cfile_write_back(struct cfile *f, bool (*pick)(const struct cpage *, int64_t),
			    int64_t arg)
{
	int ret = 0;
	bool wrote = false;

	for (unsigned b = 0; b < BUCKETS; b++) {
		struct cpage **pp = &f->pages[b];

		while (*pp) {
			struct cpage *p = *pp;

			if (!pick(p, arg)) {
				pp = &p->next;
				continue;
			}
			ret = cpage_write_back(f, p);
			if (ret)
				return ret;
			wrote = true;
			*pp = p->next;
			free(p);
		}
	}
	if (wrote && (rig_cut || fdatasync(f->fd) != 0))
		return -EIO;
	return 0;
}

static bool pick_all(const struct cpage *p, int64_t arg)
{
	(void)p;
	(void)arg;
	return true;
}

static bool pick_acked_before(const struct cpage *p, int64_t before)
{
	return p->state == PAGE_ACKED && p->acked_ns <= before;
}

/* What a durability point does to f's cache, by mode. */
static int cfile_make_durable(struct rig *r, struct cfile *f)
{
	if (!r->lying)
		return cfile_write_back(f, pick_all, 0);
	for (unsigned b = 0; b < BUCKETS; b++)
		for (struct cpage *p = f->pages[b]; p; p = p->next)
			if (p->state == PAGE_DIRTY) {
				p->state = PAGE_ACKED;
				p->acked_ns = now_ns();
			}
	return 0;
}

static void cfile_drop_pages(struct cfile *f, uint64_t from_index)
{
	for (unsigned b = 0; b < BUCKETS; b++) {
		struct cpage **pp = &f->pages[b];

		while (*pp) {
			struct cpage *p = *pp;

			if (p->index < from_index) {
				pp = &p->next;
				continue;
			}
			*pp = p->next;
			free(p);
		}
	}
}

/* The lying drive's write-back, every 10 ms: pages acknowledged long enough ago. */
static void *writeback_thread(void *arg)
{
	struct rig *r = arg;
	struct timespec tick = {0, 10 * 1000 * 1000};

	while (!rig_cut) {
		nanosleep(&tick, NULL);
		pthread_mutex_lock(&r->lock);
		for (struct cfile *f = r->files; f; f = f->next)
			cfile_write_back(f, pick_acked_before,
					 now_ns() - r->writeback_ms * 1000000);
		pthread_mutex_unlock(&r->lock);
	}
	return NULL;
}

/* ---- data operations ---- */

static int rig_read(const char *path, char *buf, size_t len, off_t off, struct fuse_file_info *fi)
{
	struct rig *r = rig_get();
	struct cfile *f;
	ssize_t n;
	uint64_t end;

	(void)path;
	pthread_mutex_lock(&r->lock);
	n = pread((int)fi->fh, buf, len, off);
	if (n < 0) {
		n = -errno;
		goto out;
	}
	memset(buf + n, 0, len - (size_t)n);
	f = cfile_find(r, (int)fi->fh, false);
	end = (uint64_t)off + (uint64_t)n;
	if (f) {
		for (uint64_t i = (uint64_t)off / PAGE; i * PAGE < (uint64_t)off + len; i++) {
			struct cpage *p = *cpage_slot(f, i);
			uint64_t lo = i * PAGE > (uint64_t)off ? i * PAGE : (uint64_t)off;
			uint64_t hi = (i + 1) * PAGE < (uint64_t)off + len ? (i + 1) * PAGE
									   : (uint64_t)off + len;

			if (p)
				memcpy(buf + (lo - (uint64_t)off), p->data + (lo - i * PAGE),
				       hi - lo);
		}
		end = f->size > end ? f->size : end;
	}
	n = end > (uint64_t)off ? (ssize_t)(end - (uint64_t)off < len ? end - (uint64_t)off : len)
				: 0;
out:
	pthread_mutex_unlock(&r->lock);
	return (int)n;
}

/* A page about to be written: from the cache, else a new one holding what the
 * backing file has there (so that a partial write keeps the rest). */
static struct cpage *page_for_write(struct cfile *f, uint64_t index)
{
	struct cpage **slot = cpage_slot(f, index);
	ssize_t n;

	if (*slot)
		return *slot;
	*slot = calloc(1, sizeof(**slot));
	if (!*slot)
		return NULL;
	(*slot)->index = index;
	(*slot)->state = PAGE_DIRTY;
	n = pread(f->fd, (*slot)->data, PAGE, (off_t)(index * PAGE));
	(void)n; /* a short read (past the end) leaves zeros */
	return *slot;
}

static int rig_write(const char *path, const char *buf, size_t len, off_t off,
		     struct fuse_file_info *fi)
{
	struct rig *r = rig_get();
	struct cfile *f;
	int ret = (int)len;

	(void)path;
	pthread_mutex_lock(&r->lock);
	f = cfile_find(r, (int)fi->fh, true);
	if (!f) {
		ret = -ENOMEM;
		goto out;
	}
	for (uint64_t i = (uint64_t)off / PAGE; i * PAGE < (uint64_t)off + len; i++) {
		struct cpage *p = page_for_write(f, i);
		uint64_t lo = i * PAGE > (uint64_t)off ? i * PAGE : (uint64_t)off;
		uint64_t hi =
			(i + 1) * PAGE < (uint64_t)off + len ? (i + 1) * PAGE : (uint64_t)off + len;

		if (!p) {
			ret = -ENOMEM;
			goto out;
		}
		/* a page acknowledged and written again keeps its turn for the write-back,
		 * which writes what the page holds then (as a drive's cache would) */
		memcpy(p->data + (lo - i * PAGE), buf + (lo - (uint64_t)off), hi - lo);
	}
	if ((uint64_t)off + len > f->size)
		f->size = (uint64_t)off + len;
	if (fi->flags & (O_SYNC | O_DSYNC) && cfile_make_durable(r, f))
		ret = -EIO;
out:
	pthread_mutex_unlock(&r->lock);
	return ret;
}

static int rig_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
	struct rig *r = rig_get();
	struct cfile *f;
	int ret = 0;

	(void)path;
	(void)datasync;
	pthread_mutex_lock(&r->lock);
	f = cfile_find(r, (int)fi->fh, false);
	if (f)
		ret = cfile_make_durable(r, f);
	pthread_mutex_unlock(&r->lock);
	return ret;
}

static int rig_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	struct rig *r = rig_get();
	struct cfile *f;
	int fd = fi ? (int)fi->fh : openat(r->backing, rel(path), O_RDWR | O_CLOEXEC);
	int ret = 0;

	if (fd < 0)
		return -errno;
	pthread_mutex_lock(&r->lock);
	if (ftruncate(fd, size) != 0)
		ret = -errno;
	f = ret ? NULL : cfile_find(r, fd, false);
	if (f) {
		cfile_drop_pages(f, ((uint64_t)size + PAGE - 1) / PAGE);
		f->size = (uint64_t)size;
	}
	pthread_mutex_unlock(&r->lock);
	if (!fi)
		close(fd);
	return ret;
}

static int rig_fallocate(const char *path, int mode, off_t off, off_t len,
			 struct fuse_file_info *fi)
{
	struct rig *r = rig_get();
	struct cfile *f;
	int ret = 0;

	(void)path;
	pthread_mutex_lock(&r->lock);
	if (fallocate((int)fi->fh, mode, off, len) != 0)
		ret = -errno;
	f = ret ? NULL : cfile_find(r, (int)fi->fh, false);
	if (f && !(mode & FALLOC_FL_KEEP_SIZE) && (uint64_t)(off + len) > f->size)
		f->size = (uint64_t)(off + len);
	pthread_mutex_unlock(&r->lock);
	return ret;
}

/* ---- opening, and the passthrough of metadata ---- */

static int rig_open_common(int fd, struct fuse_file_info *fi)
{
	if (fd < 0)
		return -errno;
	fi->fh = (uint64_t)fd;
	fi->direct_io = 1;
	return 0;
}

static int rig_open(const char *path, struct fuse_file_info *fi)
{
	int flags = (fi->flags & ~(O_DIRECT | O_WRONLY | O_APPEND | O_TRUNC)) | O_RDWR | O_CLOEXEC;
	int fd = openat(rig_get()->backing, rel(path), flags);

	if (fd < 0 && errno == EACCES) /* read-only backing file */
		fd = openat(rig_get()->backing, rel(path), O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && (fi->flags & O_TRUNC))
		rig_truncate(path, 0, &(struct fuse_file_info){.fh = (uint64_t)fd});
	return rig_open_common(fd, fi);
}

static int rig_create(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	int flags = (fi->flags & ~(O_DIRECT | O_WRONLY | O_APPEND)) | O_RDWR | O_CREAT | O_CLOEXEC;

	return rig_open_common(openat(rig_get()->backing, rel(path), flags, mode), fi);
}

static int rig_release(const char *path, struct fuse_file_info *fi)
{
	(void)path;
	close((int)fi->fh); /* the cache stays: a close makes nothing durable */
	return 0;
}

static int rig_flush(const char *path, struct fuse_file_info *fi)
{
	(void)path;
	(void)fi;
	return 0;
}

static int rig_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	struct rig *r = rig_get();
	struct cfile *f;
	int ret = fi ? fstat((int)fi->fh, st)
		     : fstatat(r->backing, rel(path), st, AT_SYMLINK_NOFOLLOW);

	if (ret != 0)
		return -errno;
	if (!S_ISREG(st->st_mode))
		return 0;
	pthread_mutex_lock(&r->lock);
	for (f = r->files; f; f = f->next)
		if (f->dev == st->st_dev && f->ino == st->st_ino && f->size > (uint64_t)st->st_size)
			st->st_size = (off_t)f->size;
	pthread_mutex_unlock(&r->lock);
	return 0;
}

static int rig_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
		       struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	int fd = openat(rig_get()->backing, rel(path), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;

	(void)off;
	(void)fi;
	(void)flags;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return -errno;
	}
	while ((e = readdir(d)))
		fill(buf, e->d_name, NULL, 0, 0);
	closedir(d);
	return 0;
}

/* A file's last name about to go (unlink, or replaced by a rename): its
 * cache is forgotten, as the inode number may be reused. */
static void cache_forget(struct rig *r, const char *path)
{
	int fd = openat(r->backing, rel(path), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	struct stat st;

	if (fd < 0)
		return;
	pthread_mutex_lock(&r->lock);
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 1) {
		for (struct cfile **fp = &r->files; *fp; fp = &(*fp)->next) {
			struct cfile *f = *fp;

			if (f->dev != st.st_dev || f->ino != st.st_ino)
				continue;
			cfile_drop_pages(f, 0);
			close(f->fd);
			*fp = f->next;
			free(f);
			break;
		}
	}
	pthread_mutex_unlock(&r->lock);
	close(fd);
}

static int rig_unlink(const char *path)
{
	struct rig *r = rig_get();

	cache_forget(r, path);
	return unlinkat(r->backing, rel(path), 0) ? -errno : 0;
}

static int rig_rename(const char *from, const char *to, unsigned int flags)
{
	struct rig *r = rig_get();

	if (flags)
		return -EINVAL;
	cache_forget(r, to);
	return renameat(r->backing, rel(from), r->backing, rel(to)) ? -errno : 0;
}

static int rig_mkdir(const char *path, mode_t mode)
{
	return mkdirat(rig_get()->backing, rel(path), mode) ? -errno : 0;
}

static int rig_rmdir(const char *path)
{
	return unlinkat(rig_get()->backing, rel(path), AT_REMOVEDIR) ? -errno : 0;
}

static int rig_chmod(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	(void)fi;
	return fchmodat(rig_get()->backing, rel(path), mode, 0) ? -errno : 0;
}

static int rig_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi)
{
	(void)fi;
	return utimensat(rig_get()->backing, rel(path), tv, AT_SYMLINK_NOFOLLOW) ? -errno : 0;
}

static int rig_statfs(const char *path, struct statvfs *st)
{
	(void)path;
	return fstatvfs(rig_get()->backing, st) ? -errno : 0;
}

static void *rig_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	(void)conn;
	cfg->direct_io = 1;
	cfg->attr_timeout = 0;
	cfg->entry_timeout = 0;
	cfg->negative_timeout = 0;
	return fuse_get_context()->private_data;
}

/* A clean unmount: what was not made durable is dropped all the same (the
 * rig never writes back on its own), and the cache is freed. */
static void rig_destroy(void *private_data)
{
	struct rig *r = private_data;

	pthread_mutex_lock(&r->lock);
	rig_cut = 1; /* the write-back thread stops */
	while (r->files) {
		struct cfile *f = r->files;

		r->files = f->next;
		cfile_drop_pages(f, 0);
		close(f->fd);
		free(f);
	}
	pthread_mutex_unlock(&r->lock);
}

static const struct fuse_operations rig_ops = {
	.init = rig_init,
	.destroy = rig_destroy,
	.getattr = rig_getattr,
	.readdir = rig_readdir,
	.mkdir = rig_mkdir,
	.rmdir = rig_rmdir,
	.unlink = rig_unlink,
	.rename = rig_rename,
	.chmod = rig_chmod,
	.utimens = rig_utimens,
	.truncate = rig_truncate,
	.open = rig_open,
	.create = rig_create,
	.read = rig_read,
	.write = rig_write,
	.flush = rig_flush,
	.release = rig_release,
	.fsync = rig_fsync,
	.fallocate = rig_fallocate,
	.statfs = rig_statfs,
};

/* ---- the cut, and main ---- */

/* SIGUSR1: a power cut. Nothing more reaches the backing directory (the
 * write-back paths test rig_cut before each write), the mount goes, the
 * process ends without writing anything back. Async-signal-safe calls only. */
static void on_cut(int sig)
{
	(void)sig;
	rig_cut = 1;
	umount2(rig_mountpoint, MNT_DETACH);
	_exit(0);
}

static int usage(const char *argv0)
{
	fprintf(stderr,
		"usage: %s [--mode honest|lying] [--writeback-after MS] BACKING MOUNTPOINT [FUSE "
		"OPTIONS]\n"
		"  honest: fsync writes the cache back before it answers; lying: fsync answers at "
		"once\n"
		"  and the pages are written back MS later (default: never). SIGUSR1 cuts the "
		"power.\n",
		argv0);
	return 2;
}

int main(int argc, char **argv)
{
	struct rig r = {.backing = -1, .writeback_ms = -1, .lock = PTHREAD_MUTEX_INITIALIZER};
	struct sigaction sa = {.sa_handler = on_cut};
	char *fargv[16];
	int i = 1, fargc = 0;
	pthread_t wb;

	for (; i + 1 < argc && !strncmp(argv[i], "--", 2); i += 2) {
		if (!strcmp(argv[i], "--mode") &&
		    (!strcmp(argv[i + 1], "honest") || !strcmp(argv[i + 1], "lying")))
			r.lying = !strcmp(argv[i + 1], "lying");
		else if (!strcmp(argv[i], "--writeback-after"))
			r.writeback_ms = atol(argv[i + 1]);
		else
			return usage(argv[0]);
	}
	if (argc - i < 2 || argc - i > 12)
		return usage(argv[0]);
	r.backing = open(argv[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (r.backing < 0) {
		fprintf(stderr, "%s: %s: %s\n", argv[0], argv[i], strerror(errno));
		return 1;
	}
	rig_mountpoint = realpath(argv[i + 1], NULL); /* the handler's umount2 needs it whole */
	if (!rig_mountpoint) {
		fprintf(stderr, "%s: %s: %s\n", argv[0], argv[i + 1], strerror(errno));
		return 1;
	}
	fargv[fargc++] = argv[0];
	fargv[fargc++] = "-f"; /* foreground: the caller holds the pid for the cut */
	for (int k = i + 1; k < argc; k++)
		fargv[fargc++] = argv[k];
	fargv[fargc] = NULL;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	if (r.lying && r.writeback_ms >= 0 && pthread_create(&wb, NULL, writeback_thread, &r) == 0)
		pthread_detach(wb);
	return fuse_main(fargc, fargv, &rig_ops, &r);
}
