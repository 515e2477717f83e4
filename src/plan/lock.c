/*
 * lock.c - one command at a time on a volume (lock.h): flock()ed lock files
 * in volume and log directories, and for a block device an O_EXCL
 * descriptor held for the whole command plus a flock()ed file under
 * PLAN_LOCK_DEVICE_DIR that names the holder.
 *
 * Why flock and not a pid file: the kernel drops a flock when its holder
 * dies, however it dies, so there is never a stale lock to clear. The lock
 * file itself stays (an empty directory but for it is removed by clean):
 * removing it on release would let a command that opened it just before
 * lock an unlinked inode while a third creates a new one. A command that
 * gets the lock checks that the file it locked is still the one at the
 * path, and tries again when it is not (clean removed it meanwhile).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "diskproof/fileopen.h"
#include "diskproof/lock.h"
#include "plan_internal.h"

#define LOCK_RETRIES 8
#define LOCK_HOLDER_MAX 511

struct lock_entry {
	bool device;
	dev_t dev;     /* directory: its st_dev; device: its st_rdev */
	ino_t ino;     /* directory: its inode; device: 0 */
	int dirfd;     /* where the lock file is; -1 when there is none */
	int fd;	       /* the lock file, flock()ed; -1 when none could be had */
	int devfd;     /* device: the O_EXCL descriptor */
	char name[64]; /* the lock file's name in dirfd */
};

struct plan_lock {
	struct lock_entry *e;
	size_t n;
};

/* One "key=value" line of a lock file into out ("" when absent). */
static void holder_field(const char *text, const char *key, char *out, size_t len)
{
	size_t kl = strlen(key);

	out[0] = '\0';
	for (const char *s = text; s && *s; s = strchr(s, '\n'), s = s ? s + 1 : NULL) {
		if (!strncmp(s, key, kl) && s[kl] == '=') {
			const char *v = s + kl + 1, *end = strchr(v, '\n');
			size_t n = end ? (size_t)(end - v) : strlen(v);

			if (n >= len)
				n = len - 1;
			memcpy(out, v, n);
			out[n] = '\0';
			for (char *c = out; *c; c++)
				if ((unsigned char)*c < 0x20 || *c == 0x7f)
					*c = '?'; /* never raw control characters to a terminal */
			return;
		}
	}
}

/*
 * "diskproof run (pid 1234, started 2026-12-01T21:00:00Z)" from the lock
 * file the holder wrote, into out. The holder writes it just after taking
 * the lock: an empty file is read again for a moment.
 */
static void holder_describe(int fd, struct strbuf *out)
{
	char text[LOCK_HOLDER_MAX + 1], pid[24], cmd[32], started[40], host[128], mine[128] = "";
	ssize_t n = 0;

	for (int i = 0; i < 20; i++) {
		n = pread(fd, text, LOCK_HOLDER_MAX, 0);
		if (n > 0)
			break;
		nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
	}
	text[n > 0 ? n : 0] = '\0';
	holder_field(text, "pid", pid, sizeof(pid));
	holder_field(text, "command", cmd, sizeof(cmd));
	holder_field(text, "started", started, sizeof(started));
	holder_field(text, "host", host, sizeof(host));
	if (!pid[0]) {
		strbuf_addstr(out, "another diskproof command (holder unknown)");
		return;
	}
	gethostname(mine, sizeof(mine) - 1);
	strbuf_addf(out, "diskproof %s (pid %s", cmd[0] ? cmd : "?", pid);
	if (host[0] && strcmp(host, mine))
		strbuf_addf(out, " on host %s", host);
	if (started[0])
		strbuf_addf(out, ", started %s", started);
	strbuf_addch(out, ')');
}

static void holder_write(int fd, const char *command)
{
	struct strbuf sb = STRBUF_INIT;
	char host[128] = "";

	gethostname(host, sizeof(host) - 1);
	strbuf_addf(&sb, "pid=%ld\ncommand=%s\nstarted=", (long)getpid(), command);
	time_format_iso8601(&sb, time_real_ns());
	strbuf_addf(&sb, "\nhost=%s\n", host);
	/* the lock is what counts: a full filesystem only leaves the holder
	 * unnamed */
	if (ftruncate(fd, 0) != 0 || pwrite(fd, sb.buf, sb.len, 0) != (ssize_t)sb.len) {
	}
	strbuf_release(&sb);
}

/*
 * Takes the flock on dirfd/name for what ("volume a (/data/a)"); dir is
 * dirfd's path, for messages. *fd receives the locked file, or -1 on a
 * read-only filesystem without one (nothing can write there: no lock needed).
 */
static int lock_file_take(int dirfd, const char *dir, const char *name, const char *what,
			  const char *command, int *fd, struct strbuf *err)
{
	const int common = O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;
	struct stat st, now;
	int ret = 0, e;

	*fd = -1;
	for (int tries = 0; tries < LOCK_RETRIES; tries++) {
		bool ro = false;

		*fd = openat(dirfd, name, O_RDWR | O_CREAT | common, 0644);
		if (*fd < 0 && (errno == EROFS || errno == EACCES)) {
			e = errno;
			ro = true;
			*fd = openat(dirfd, name, O_RDONLY | common);
			if (*fd < 0 && errno == ENOENT && e == EROFS)
				return 0;
			if (*fd < 0 && errno == ENOENT)
				errno = e;
		}
		if (*fd < 0 && errno == ELOOP) {
			strbuf_addf(err,
				    "%s: lock file %s/%s is a symbolic link; diskproof does not "
				    "follow it (remove it)",
				    what, dir, name);
			return -EMEDIUMTYPE;
		}
		if (*fd < 0) {
			ret = -errno;
			strbuf_addf(err, "%s: cannot open the lock file %s/%s: %s", what, dir, name,
				    strerror(-ret));
			return ret;
		}
		if (fstat(*fd, &st) != 0 || !S_ISREG(st.st_mode)) {
			strbuf_addf(err,
				    "%s: lock file %s/%s is %s, not a regular file (remove it)",
				    what, dir, name, file_kind_name(st.st_mode));
			ret = -EMEDIUMTYPE;
			goto out_close;
		}
		if (st.st_nlink > 1) {
			/* the holder's lines would go into the other names' file */
			strbuf_addf(err,
				    "%s: lock file %s/%s has %lu hard links: it is also another "
				    "file (remove this name)",
				    what, dir, name, (unsigned long)st.st_nlink);
			ret = -EMEDIUMTYPE;
			goto out_close;
		}
		if (flock(*fd, LOCK_EX | LOCK_NB) != 0) {
			ret = errno == EWOULDBLOCK ? -EBUSY : -errno;
			strbuf_addf(err, "%s: ", what);
			if (ret == -EBUSY) {
				strbuf_addstr(err, "in use by ");
				holder_describe(*fd, err);
				strbuf_addf(err,
					    "; lock file %s/%s: wait for it to end, or stop it",
					    dir, name);
			} else {
				strbuf_addf(err, "cannot lock %s/%s: %s", dir, name,
					    strerror(-ret));
			}
			goto out_close;
		}
		/* still the file at the path (clean may have removed it)? */
		if (fstatat(dirfd, name, &now, AT_SYMLINK_NOFOLLOW) == 0 &&
		    now.st_dev == st.st_dev && now.st_ino == st.st_ino) {
			if (!ro)
				holder_write(*fd, command);
			return 0;
		}
		close(*fd);
		*fd = -1;
	}
	strbuf_addf(err, "%s: lock file %s/%s keeps being replaced; try again", what, dir, name);
	return -EAGAIN;
out_close:
	close(*fd);
	*fd = -1;
	return ret;
}

static struct lock_entry *lock_find(const struct plan_lock *l, bool device, dev_t dev, ino_t ino)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->e[i].device == device && l->e[i].dev == dev && l->e[i].ino == ino)
			return &l->e[i];
	return NULL;
}

static int lock_dir(struct plan_lock *l, const char *what, const char *path, const char *command,
		    unsigned flags, struct strbuf *err)
{
	struct lock_entry *e = &l->e[l->n];
	struct stat st;
	int ret;

	if (stat(path, &st) != 0 && errno == ENOENT) {
		if (!(flags & PLAN_LOCK_CREATE))
			return 0; /* nothing there to protect */
		ret = plan_make_dirs(path, err);
		if (ret)
			return ret;
	}
	*e = (struct lock_entry){.dirfd = -1, .fd = -1, .devfd = -1};
	e->dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (e->dirfd < 0) {
		ret = -errno;
		if (ret == -ENOTDIR && stat(path, &st) == 0)
			strbuf_addf(err, "%s: is %s, not a directory or a block device", what,
				    file_kind_name(st.st_mode));
		else
			strbuf_addf(err, "%s: cannot open the directory: %s", what, strerror(-ret));
		return ret == -ENOTDIR ? -EMEDIUMTYPE : ret;
	}
	if (fstat(e->dirfd, &st) != 0) {
		ret = -errno;
		strbuf_addf(err, "%s: cannot stat the directory: %s", what, strerror(-ret));
		goto out_close;
	}
	if (lock_find(l, false, st.st_dev, st.st_ino)) {
		ret = 0; /* shared with a volume locked already */
		goto out_close;
	}
	e->dev = st.st_dev;
	e->ino = st.st_ino;
	snprintf(e->name, sizeof(e->name), "%s", PLAN_LOCK_FILE);
	ret = lock_file_take(e->dirfd, path, e->name, what, command, &e->fd, err);
	if (ret)
		goto out_close;
	l->n++;
	return 0;
out_close:
	close(e->dirfd);
	e->dirfd = -1;
	return ret;
}

/* The directory of the devices' lock files, made when missing; -1 when it
 * cannot be had (no /run/lock): the O_EXCL open still locks, unnamed. */
static int device_dir_open(struct strbuf *err)
{
	struct stat st;
	int fd;

	if (mkdir(PLAN_LOCK_DEVICE_DIR, 0755) != 0 && errno != EEXIST)
		return -1;
	fd = open(PLAN_LOCK_DEVICE_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	/* /run/lock is world-writable: a directory somebody else made there
	 * could hold links to anything */
	if (fstat(fd, &st) != 0 || (st.st_uid != 0 && st.st_uid != geteuid()) ||
	    (st.st_mode & 022)) {
		strbuf_addf(err,
			    "%s: not owned by root (or this user) or writable by others; "
			    "diskproof will not keep its device locks there (remove it)",
			    PLAN_LOCK_DEVICE_DIR);
		close(fd);
		return -2;
	}
	return fd;
}

/*
 * The name of a device's lock file under PLAN_LOCK_DEVICE_DIR. A loop device
 * is named by the file behind it (its filesystem and inode), since two loop
 * devices over one file are one storage: "loop-DEV-INO.lock"; any other by
 * its number, "dev-MAJOR:MINOR.lock".
 */
static void device_lock_name(dev_t rdev, char *out, size_t len)
{
	char sys[64], backing[PATH_MAX];
	struct stat b;
	ssize_t n = -1;
	int fd;

	snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u/loop/backing_file", major(rdev),
		 minor(rdev));
	fd = open(sys, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, backing, sizeof(backing) - 1);
		close(fd);
	}
	if (n > 0) {
		backing[n] = '\0';
		backing[strcspn(backing, "\n")] = '\0';
		if (stat(backing, &b) == 0) {
			snprintf(out, len, "loop-%llx-%llu.lock", (unsigned long long)b.st_dev,
				 (unsigned long long)b.st_ino);
			return;
		}
	}
	snprintf(out, len, "dev-%u:%u.lock", major(rdev), minor(rdev));
}

static int lock_device(struct plan_lock *l, const char *what, const char *path, const char *command,
		       struct strbuf *err)
{
	struct lock_entry *e = &l->e[l->n];
	struct stat st;
	int ret;

	if (stat(path, &st) != 0) {
		ret = -errno;
		strbuf_addf(err, "%s: %s", what, strerror(-ret));
		return ret;
	}
	if (lock_find(l, true, st.st_rdev, 0))
		return 0;
	*e = (struct lock_entry){
		.device = true, .dev = st.st_rdev, .dirfd = -1, .fd = -1, .devfd = -1};
	e->dirfd = device_dir_open(err);
	if (e->dirfd == -2)
		return -EPERM;
	if (e->dirfd >= 0) {
		char dir[] = PLAN_LOCK_DEVICE_DIR;

		device_lock_name(st.st_rdev, e->name, sizeof(e->name));
		ret = lock_file_take(e->dirfd, dir, e->name, what, command, &e->fd, err);
		if (ret)
			goto out_close;
	}
	e->devfd = open(path, O_RDONLY | O_EXCL | O_CLOEXEC);
	if (e->devfd < 0) {
		ret = -errno;
		if (ret == -EBUSY)
			strbuf_addf(err,
				    "%s: the block device is in use (mounted, swap, or part of "
				    "a RAID or LVM); diskproof will not touch it",
				    path);
		else
			strbuf_addf(err, "%s: cannot open: %s", path, strerror(-ret));
		goto out_close;
	}
	l->n++;
	return 0;
out_close:
	if (e->fd >= 0)
		close(e->fd);
	if (e->dirfd >= 0)
		close(e->dirfd);
	e->fd = e->dirfd = -1;
	return ret;
}

/* One path of a volume: its directory or its device. */
static int lock_path(struct plan_lock *l, const char *what, const char *path, const char *command,
		     unsigned flags, struct strbuf *err)
{
	struct stat st;

	if (stat(path, &st) == 0 && S_ISBLK(st.st_mode))
		return flags & PLAN_LOCK_NO_DEVICES ? 0 : lock_device(l, what, path, command, err);
	return lock_dir(l, what, path, command, flags, err);
}

int plan_lock_take(struct plan_lock **out, const struct plan *pl, const char *command,
		   unsigned flags, struct strbuf *err)
{
	struct plan_lock *l = calloc(1, sizeof(*l));
	int ret = 0;

	*out = NULL;
	if (l)
		l->e = calloc(2 * pl->nr_vols + 1, sizeof(*l->e));
	if (!l || !l->e) {
		free(l);
		strbuf_addstr(err, "lock: out of memory");
		return -ENOMEM;
	}
	for (size_t v = 0; v < pl->nr_vols && !ret; v++) {
		const struct plan_volume *vol = &pl->vols[v];
		struct strbuf what = STRBUF_INIT;

		strbuf_addf(&what, "volume %s (%s)", vol->name, vol->path);
		ret = lock_path(l, what.buf, vol->path, command, flags, err);
		if (!ret && strcmp(vol->log_path, vol->path)) {
			strbuf_reset(&what);
			strbuf_addf(&what, "volume %s's log directory (%s)", vol->name,
				    vol->log_path);
			ret = lock_path(l, what.buf, vol->log_path, command, flags, err);
		}
		strbuf_release(&what);
	}
	if (ret) {
		plan_lock_release(l);
		return ret;
	}
	*out = l;
	return 0;
}

int plan_lock_device_fd(const struct plan_lock *l, const char *path)
{
	struct lock_entry *e;
	struct stat st;

	if (!l || stat(path, &st) != 0 || !S_ISBLK(st.st_mode))
		return -1;
	e = lock_find(l, true, st.st_rdev, 0);
	return e ? e->devfd : -1;
}

void plan_lock_remove_files(struct plan_lock *l)
{
	struct stat st, now;

	for (size_t i = 0; l && i < l->n; i++) {
		struct lock_entry *e = &l->e[i];

		if (e->device || e->fd < 0 || fstat(e->fd, &st) != 0)
			continue;
		if (fstatat(e->dirfd, e->name, &now, AT_SYMLINK_NOFOLLOW) == 0 &&
		    now.st_dev == st.st_dev && now.st_ino == st.st_ino)
			(void)!unlinkat(e->dirfd, e->name, 0);
	}
}

/* Whether /proc/locks lists a flock() on the file st (a held lock). */
static bool flock_held(const struct stat *st)
{
	char line[256], want[64];
	bool held = false;
	FILE *f = fopen("/proc/locks", "re");

	if (!f)
		return false;
	snprintf(want, sizeof(want), " %02x:%02x:%lu ", major(st->st_dev), minor(st->st_dev),
		 (unsigned long)st->st_ino);
	while (!held && fgets(line, sizeof(line), f))
		held = strstr(line, " FLOCK ") && strstr(line, want);
	fclose(f);
	return held;
}

unsigned plan_lock_probe(const struct plan *pl, struct strbuf *out)
{
	struct stat seen[2 * 64];
	unsigned n = 0, nseen = 0;

	for (size_t v = 0; v < pl->nr_vols; v++) {
		const struct plan_volume *vol = &pl->vols[v];

		for (int k = 0; k < 2; k++) {
			const char *path = k ? vol->log_path : vol->path;
			struct strbuf lf = STRBUF_INIT;
			struct stat st;
			bool dup = false;
			int fd;

			if (k && !strcmp(vol->log_path, vol->path))
				continue;
			if (stat(path, &st) == 0 && S_ISBLK(st.st_mode)) {
				char name[96];

				device_lock_name(st.st_rdev, name, sizeof(name));
				strbuf_addf(&lf, "%s/%s", PLAN_LOCK_DEVICE_DIR, name);
			} else
				strbuf_addf(&lf, "%s/%s", path, PLAN_LOCK_FILE);
			fd = open(lf.buf,
				  O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
			if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
				for (unsigned i = 0; i < nseen; i++)
					dup |= seen[i].st_dev == st.st_dev &&
					       seen[i].st_ino == st.st_ino;
				if (!dup && nseen < DP_ARRAY_SIZE(seen))
					seen[nseen++] = st;
				if (!dup && flock_held(&st)) {
					strbuf_addf(out, "%svolume %s (%s): in use by ",
						    n ? "\n" : "", vol->name, path);
					holder_describe(fd, out);
					strbuf_addf(out, "; lock file %s", lf.buf);
					n++;
				}
			}
			if (fd >= 0)
				close(fd);
			strbuf_release(&lf);
		}
	}
	return n;
}

void plan_lock_release(struct plan_lock *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++) {
		if (l->e[i].devfd >= 0)
			close(l->e[i].devfd);
		if (l->e[i].fd >= 0)
			close(l->e[i].fd);
		if (l->e[i].dirfd >= 0)
			close(l->e[i].dirfd);
	}
	free(l->e);
	free(l);
}
