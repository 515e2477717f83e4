/* SPDX-License-Identifier: MIT */
/*
 * lock.c - one command at a time on a volume (lock.h): flock()ed lock files
 * in volume and log directories, and for a block device an O_EXCL
 * descriptor held for the whole command plus a flock()ed file under
 * PLAN_LOCK_DEVICE_DIR that names the holder, and for a loop device a
 * flock() on the file behind it as well (loop.c). A lock that cannot be
 * taken refuses the command, unless the caller asked to go on without it
 * (--no-lock); what check says of the locks, taking none, is here too.
 *
 * Why flock and not a pid file: the kernel drops a flock when its holder
 * dies, however it dies, so there is never a stale lock to clear. The lock
 * file itself stays (an empty directory but for it is removed by clean):
 * removing it on release would let a command that opened it just before
 * lock an unlinked inode while a third creates a new one. A command that
 * gets the lock checks that the file it locked is still the one at the
 * path, and tries again when it is not (clean removed it meanwhile).
 *
 * A directory where the lock file cannot be created (a read-only mount)
 * refuses too: the same filesystem may be written through another mount
 * (a read-write bind mount, another host) by a command that would never
 * see this one. Where the lock file is there already it is locked
 * read-only, as anywhere else.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "diskproof/fileopen.h"
#include "diskproof/lock.h"
#include "plan_internal.h"

#define LOCK_RETRIES 8
#define LOCK_HOLDER_MAX 511
#define LOCK_DEVICE_PARENT "/run/lock" /* where PLAN_LOCK_DEVICE_DIR is made */

struct lock_entry {
	bool device;
	dev_t dev;     /* directory: its st_dev; device: its st_rdev */
	ino_t ino;     /* directory: its inode; device: 0 */
	int dirfd;     /* where the lock file is; -1 when there is none */
	int fd;	       /* the lock file, flock()ed; -1 when none (--no-lock) */
	int devfd;     /* device: the O_EXCL descriptor */
	int bfd;       /* loop device: the file behind it, flock()ed; -1 when none */
	char name[64]; /* the lock file's name in dirfd */
};

struct plan_lock {
	struct lock_entry *e;
	size_t n;
	unsigned flags;	       /* enum plan_lock_flags */
	struct strbuf skipped; /* --no-lock: a line per lock not taken */
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
 * The pid /proc/locks names as holding a flock() on the file st: 0 when
 * none holds one, -1 when one is held by a process this namespace cannot
 * name.
 */
static long flock_holder(const struct stat *st)
{
	char line[256], type[16];
	unsigned maj, min;
	unsigned long long ino;
	long pid, found = 0;
	FILE *f = fopen("/proc/locks", "re");

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		/* "1: FLOCK  ADVISORY  WRITE 1234 fe:00:5318861 0 EOF"; a waiter
		 * reads "1: -> FLOCK ..." */
		if (sscanf(line, "%*d: %15s %*s %*s %ld %x:%x:%llu", type, &pid, &maj, &min,
			   &ino) == 5 &&
		    !strcmp(type, "FLOCK") && maj == major(st->st_dev) &&
		    min == minor(st->st_dev) && ino == (unsigned long long)st->st_ino)
			found = pid > 0 ? pid : -1;
	}
	fclose(f);
	return found;
}

/* s into out, control characters as '?': never raw to a terminal. */
static void add_printable(struct strbuf *out, const char *s)
{
	for (; *s; s++)
		strbuf_addch(out, (unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s);
}

/* "diskproof run" from /proc/PID/cmdline (the program's base name and its
 * first argument), into out; "?" when it cannot be read. */
static void proc_describe(long pid, struct strbuf *out)
{
	char path[48], text[256];
	const char *base, *arg1;
	ssize_t n = -1;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/cmdline", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, text, sizeof(text) - 1);
		close(fd);
	}
	if (n <= 0) {
		strbuf_addch(out, '?');
		return;
	}
	text[n] = '\0';
	arg1 = text + strlen(text) + 1;
	base = strrchr(text, '/') ? strrchr(text, '/') + 1 : text;
	add_printable(out, base);
	if (arg1 < text + n && *arg1) {
		strbuf_addch(out, ' ');
		add_printable(out, arg1);
	}
}

/* A loop device's file, flock()ed by pid (flock_holder), into out. */
static void backing_holder_describe(long pid, const char *path, struct strbuf *out)
{
	strbuf_addstr(out, "in use by ");
	if (pid > 0) {
		strbuf_addf(out, "pid %ld (", pid);
		proc_describe(pid, out);
		strbuf_addch(out, ')');
	} else {
		strbuf_addstr(out, "another command (its pid is not visible here)");
	}
	strbuf_addf(out,
		    " through another loop device over the same file (%s): wait for it to end, "
		    "or stop it",
		    path);
}

/*
 * Opens the lock file dirfd/name (dir is dirfd's path, for messages),
 * created when missing unless probe: then *fd stays -1 and only whether it
 * could be created is found. Read-only (*ro) where it exists but cannot be
 * written. Never a link, never anything but a regular file with one name.
 * 0, or -errno with why.
 */
static int lock_file_open(int dirfd, const char *dir, const char *name, bool probe, int *fd,
			  bool *ro, struct strbuf *why)
{
	const int common = O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;
	const char *verb = "open";
	struct stat st;
	int ret, e;

	*ro = false;
	*fd = openat(dirfd, name, O_RDWR | (probe ? 0 : O_CREAT) | common, 0644);
	if (*fd < 0 && (errno == EROFS || errno == EACCES)) {
		e = errno;
		*ro = true;
		*fd = openat(dirfd, name, O_RDONLY | common);
		if (*fd < 0 && errno == ENOENT) {
			errno = e; /* not there, and it cannot be made */
			verb = "create";
		}
	} else if (*fd < 0 && errno == ENOENT && probe) {
		if (faccessat(dirfd, ".", W_OK, 0) == 0)
			return 0; /* it would be made */
		verb = "create";
	}
	if (*fd < 0 && errno == ELOOP) {
		strbuf_addf(why,
			    "lock file %s/%s is a symbolic link; diskproof does not follow it "
			    "(remove it)",
			    dir, name);
		return -EMEDIUMTYPE;
	}
	if (*fd < 0) {
		ret = -errno;
		strbuf_addf(why, "cannot %s the lock file %s/%s: %s", verb, dir, name,
			    strerror(-ret));
		return ret;
	}
	ret = -EMEDIUMTYPE;
	if (fstat(*fd, &st) != 0 || !S_ISREG(st.st_mode))
		strbuf_addf(why, "lock file %s/%s is %s, not a regular file (remove it)", dir, name,
			    file_kind_name(st.st_mode));
	else if (st.st_nlink > 1) /* the holder's lines would go into the other names' file */
		strbuf_addf(why,
			    "lock file %s/%s has %lu hard links: it is also another file (remove "
			    "this name)",
			    dir, name, (unsigned long)st.st_nlink);
	else
		return 0;
	close(*fd);
	*fd = -1;
	return ret;
}

/*
 * Takes the flock on dirfd/name (lock_file_open) and names this command in
 * it: *fd receives the locked file. 0, or -errno with why: -EBUSY when
 * another command holds it ("in use by diskproof run (pid ...); lock file
 * ...").
 */
static int lock_file_take(int dirfd, const char *dir, const char *name, const char *command,
			  int *fd, struct strbuf *why)
{
	struct stat st, now;
	bool ro;
	int ret;

	for (int tries = 0; tries < LOCK_RETRIES; tries++) {
		ret = lock_file_open(dirfd, dir, name, false, fd, &ro, why);
		if (ret)
			return ret;
		if (flock(*fd, LOCK_EX | LOCK_NB) != 0) {
			ret = errno == EWOULDBLOCK ? -EBUSY : -errno;
			if (ret == -EBUSY) {
				strbuf_addstr(why, "in use by ");
				holder_describe(*fd, why);
				strbuf_addf(why,
					    "; lock file %s/%s: wait for it to end, or stop it",
					    dir, name);
			} else {
				strbuf_addf(why, "cannot lock %s/%s: %s", dir, name,
					    strerror(-ret));
			}
			goto out_close;
		}
		/* still the file at the path (clean may have removed it)? */
		if (fstat(*fd, &st) == 0 && fstatat(dirfd, name, &now, AT_SYMLINK_NOFOLLOW) == 0 &&
		    now.st_dev == st.st_dev && now.st_ino == st.st_ino) {
			if (!ro)
				holder_write(*fd, command);
			return 0;
		}
		close(*fd);
		*fd = -1;
	}
	strbuf_addf(why, "lock file %s/%s keeps being replaced; try again", dir, name);
	return -EAGAIN;
out_close:
	close(*fd);
	*fd = -1;
	return ret;
}

/*
 * What a lock step that failed with ret (why says why) comes to: a lock
 * another command holds (-EBUSY) refuses the command; so does any other
 * lock that cannot be taken, unless --no-lock (PLAN_LOCK_BEST_EFFORT): then
 * it goes into l->skipped and the command goes on without it. 0 when ret
 * is.
 */
static int lock_outcome(struct plan_lock *l, const char *what, int ret, const struct strbuf *why,
			struct strbuf *err)
{
	if (!ret)
		return 0;
	if (ret == -EBUSY) {
		strbuf_addf(err, "%s: %s", what, why->buf);
		return ret;
	}
	if (l->flags & PLAN_LOCK_BEST_EFFORT) {
		strbuf_addf(&l->skipped,
			    "--no-lock: %s is not locked (%s); a second command on it would not "
			    "be refused\n",
			    what, why->buf);
		return 0;
	}
	strbuf_addf(err,
		    "%s: %s; a command that cannot take its lock does not start (make the lock "
		    "usable, or pass --no-lock if no other command can use the volume meanwhile)",
		    what, why->buf);
	return ret == -EINVAL ? -EIO : ret; /* never read as a usage error */
}

static struct lock_entry *lock_find(const struct plan_lock *l, bool device, dev_t dev, ino_t ino)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->e[i].device == device && l->e[i].dev == dev && l->e[i].ino == ino)
			return &l->e[i];
	return NULL;
}

static int lock_dir(struct plan_lock *l, const char *what, const char *path, const char *command,
		    struct strbuf *err)
{
	struct lock_entry *e = &l->e[l->n];
	struct strbuf why = STRBUF_INIT;
	struct stat st;
	int ret;

	if (stat(path, &st) != 0 && errno == ENOENT) {
		if (!(l->flags & PLAN_LOCK_CREATE))
			return 0; /* nothing there to protect */
		ret = plan_make_dirs(path, err);
		if (ret)
			return ret;
	}
	*e = (struct lock_entry){.dirfd = -1, .fd = -1, .devfd = -1, .bfd = -1};
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
	ret = lock_file_take(e->dirfd, path, e->name, command, &e->fd, &why);
	ret = lock_outcome(l, what, ret, &why, err);
	if (ret)
		goto out_close;
	l->n++; /* kept without a lock file too (--no-lock): locked once */
	strbuf_release(&why);
	return 0;
out_close:
	close(e->dirfd);
	e->dirfd = -1;
	strbuf_release(&why);
	return ret;
}

/*
 * The directory of the devices' lock files into *dirfd, made when missing;
 * with probe nothing is made: *dirfd is -1 when it is missing but could be
 * made. /run/lock is world-writable: a directory somebody else made there
 * could hold links to anything, so it must be root's (or this user's) and
 * writable by nobody else. 0, or -errno with why.
 */
static int device_dir_open(bool probe, int *dirfd, struct strbuf *why)
{
	const char *dir = PLAN_LOCK_DEVICE_DIR;
	struct stat st;
	int ret;

	*dirfd = -1;
	if (!probe && mkdir(dir, 0755) != 0 && errno != EEXIST) {
		ret = -errno;
		strbuf_addf(why, "cannot make the device lock directory %s: %s", dir,
			    strerror(-ret));
		return ret;
	}
	*dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (*dirfd < 0) {
		ret = -errno;
		if (ret == -ENOENT && probe && access(LOCK_DEVICE_PARENT, W_OK) == 0)
			return 0; /* it would be made */
		if (ret == -ENOENT && probe)
			strbuf_addf(why, "cannot make the device lock directory %s: %s", dir,
				    strerror(errno));
		else if (lstat(dir, &st) == 0 && !S_ISDIR(st.st_mode))
			strbuf_addf(why, "%s is %s, not a directory (remove it)", dir,
				    file_kind_name(st.st_mode));
		else
			strbuf_addf(why, "cannot open the device lock directory %s: %s", dir,
				    strerror(-ret));
		return ret == -ENOTDIR || ret == -ELOOP ? -EMEDIUMTYPE : ret;
	}
	if (fstat(*dirfd, &st) != 0 || (st.st_uid != 0 && st.st_uid != geteuid()) ||
	    (st.st_mode & 022)) {
		strbuf_addf(why,
			    "%s: not owned by root (or this user) or writable by others; "
			    "diskproof will not keep its device locks there (remove it)",
			    dir);
		close(*dirfd);
		*dirfd = -1;
		return -EPERM;
	}
	return 0;
}

/*
 * The name of a device's lock file under PLAN_LOCK_DEVICE_DIR. A loop device
 * (b: the file behind it) is named by that file (its filesystem and inode),
 * since two loop devices over one file are one storage:
 * "loop-DEV-INO.lock"; any other by its number, "dev-MAJOR:MINOR.lock".
 */
static void device_lock_name(dev_t rdev, const struct plan_loop_backing *b, char *out, size_t len)
{
	if (b)
		snprintf(out, len, "loop-%llx-%llu.lock", (unsigned long long)b->dev,
			 (unsigned long long)b->ino);
	else
		snprintf(out, len, "dev-%u:%u.lock", major(rdev), minor(rdev));
}

/* A device's named lock file (e->dirfd, e->fd), b its loop file or NULL. */
static int device_name_take(struct plan_lock *l, struct lock_entry *e,
			    const struct plan_loop_backing *b, const char *what,
			    const char *command, struct strbuf *err)
{
	struct strbuf why = STRBUF_INIT;
	int ret = device_dir_open(false, &e->dirfd, &why);

	if (!ret) {
		device_lock_name(e->dev, b, e->name, sizeof(e->name));
		ret = lock_file_take(e->dirfd, PLAN_LOCK_DEVICE_DIR, e->name, command, &e->fd,
				     &why);
	}
	ret = lock_outcome(l, what, ret, &why, err);
	strbuf_release(&why);
	return ret;
}

/* A loop device's own file, flock()ed (e->bfd): seen from every mount
 * namespace that can open it, where /run/lock may be each one's own. */
static int device_backing_take(struct plan_lock *l, struct lock_entry *e,
			       const struct plan_loop_backing *b, const char *what,
			       struct strbuf *err)
{
	struct strbuf why = STRBUF_INIT;
	struct stat st;
	int ret = plan_loop_backing_open(b, &why);

	if (ret >= 0) {
		e->bfd = ret;
		ret = 0;
		if (flock(e->bfd, LOCK_EX | LOCK_NB) != 0) {
			ret = errno == EWOULDBLOCK ? -EBUSY : -errno;
			if (ret == -EBUSY)
				backing_holder_describe(fstat(e->bfd, &st) == 0 ? flock_holder(&st)
										: 0,
							b->path, &why);
			else
				strbuf_addf(&why,
					    "cannot lock the file behind the loop device, %s: %s",
					    b->path, strerror(-ret));
			close(e->bfd);
			e->bfd = -1;
		}
	}
	ret = lock_outcome(l, what, ret, &why, err);
	strbuf_release(&why);
	return ret;
}

static int lock_device(struct plan_lock *l, const char *what, const char *path, const char *command,
		       struct strbuf *err)
{
	struct lock_entry *e = &l->e[l->n];
	struct strbuf why = STRBUF_INIT;
	struct plan_loop_backing b;
	struct stat st;
	int ret, loop;

	if (stat(path, &st) != 0) {
		ret = -errno;
		strbuf_addf(err, "%s: %s", what, strerror(-ret));
		return ret;
	}
	if (lock_find(l, true, st.st_rdev, 0))
		return 0;
	*e = (struct lock_entry){
		.device = true, .dev = st.st_rdev, .dirfd = -1, .fd = -1, .devfd = -1, .bfd = -1};
	loop = plan_loop_backing(path, st.st_rdev, &b, &why);
	ret = lock_outcome(l, what, loop < 0 ? loop : 0, &why, err);
	strbuf_release(&why);
	if (!ret)
		ret = device_name_take(l, e, loop > 0 ? &b : NULL, what, command, err);
	if (!ret && loop > 0)
		ret = device_backing_take(l, e, &b, what, err);
	if (ret)
		goto out_close;
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
	if (e->bfd >= 0)
		close(e->bfd);
	if (e->fd >= 0)
		close(e->fd);
	if (e->dirfd >= 0)
		close(e->dirfd);
	e->bfd = e->fd = e->dirfd = -1;
	return ret;
}

/* One path of a volume: its directory or its device. */
static int lock_path(struct plan_lock *l, const char *what, const char *path, const char *command,
		     struct strbuf *err)
{
	struct stat st;

	if (stat(path, &st) == 0 && S_ISBLK(st.st_mode))
		return l->flags & PLAN_LOCK_NO_DEVICES ? 0
						       : lock_device(l, what, path, command, err);
	return lock_dir(l, what, path, command, err);
}

/* "volume a (PATH)" or "volume a's log directory (PATH)" into what. */
static void lock_what(const struct plan_volume *vol, bool log, struct strbuf *what)
{
	strbuf_reset(what);
	if (log)
		strbuf_addf(what, "volume %s's log directory (%s)", vol->name, vol->log_path);
	else
		strbuf_addf(what, "volume %s (%s)", vol->name, vol->path);
}

int plan_lock_take(struct plan_lock **out, const struct plan *pl, const char *command,
		   unsigned flags, struct strbuf *err)
{
	struct plan_lock *l = calloc(1, sizeof(*l));
	struct strbuf what = STRBUF_INIT;
	int ret = 0;

	*out = NULL;
	if (l)
		l->e = calloc(2 * pl->nr_vols + 1, sizeof(*l->e));
	if (!l || !l->e) {
		free(l);
		strbuf_addstr(err, "lock: out of memory");
		return -ENOMEM;
	}
	l->flags = flags;
	strbuf_init(&l->skipped);
	for (size_t v = 0; v < pl->nr_vols && !ret; v++) {
		const struct plan_volume *vol = &pl->vols[v];

		lock_what(vol, false, &what);
		ret = lock_path(l, what.buf, vol->path, command, err);
		if (!ret && strcmp(vol->log_path, vol->path)) {
			lock_what(vol, true, &what);
			ret = lock_path(l, what.buf, vol->log_path, command, err);
		}
	}
	strbuf_release(&what);
	if (ret) {
		plan_lock_release(l);
		return ret;
	}
	*out = l;
	return 0;
}

const char *plan_lock_skipped(const struct plan_lock *l)
{
	return l ? l->skipped.buf : "";
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

/* ---- check: what a command would meet, taking nothing ---- */

/* Whether st is among seen (*nseen of cap), adding it when not. */
static bool seen_before(struct stat *seen, unsigned *nseen, unsigned cap, const struct stat *st)
{
	for (unsigned i = 0; i < *nseen; i++)
		if (seen[i].st_dev == st->st_dev && seen[i].st_ino == st->st_ino)
			return true;
	if (*nseen < cap)
		seen[(*nseen)++] = *st;
	return false;
}

/*
 * The lock of one path (vol's directory or device) held by another command
 * now: said into out after "volume NAME (PATH): " and true. Looks at the
 * lock file (and a loop device's own file) and /proc/locks; seen holds the
 * files said already.
 */
static bool probe_held(const char *vol, const char *path, struct stat *seen, unsigned *nseen,
		       unsigned cap, struct strbuf *out)
{
	struct strbuf lf = STRBUF_INIT, why = STRBUF_INIT;
	struct plan_loop_backing b;
	struct stat st, bs = {0};
	bool held = false;
	int loop = 0, fd;
	long pid;

	if (stat(path, &st) == 0 && S_ISBLK(st.st_mode)) {
		char name[96];

		loop = plan_loop_backing(path, st.st_rdev, &b, &why);
		device_lock_name(st.st_rdev, loop > 0 ? &b : NULL, name, sizeof(name));
		strbuf_addf(&lf, "%s/%s", PLAN_LOCK_DEVICE_DIR, name);
	} else {
		strbuf_addf(&lf, "%s/%s", path, PLAN_LOCK_FILE);
	}
	fd = open(lf.buf, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    !seen_before(seen, nseen, cap, &st) && flock_holder(&st)) {
		strbuf_addf(out, "volume %s (%s): in use by ", vol, path);
		holder_describe(fd, out);
		strbuf_addf(out, "; lock file %s", lf.buf);
		held = true;
	}
	if (!held && loop > 0) {
		bs.st_dev = b.dev;
		bs.st_ino = b.ino;
	}
	if (!held && loop > 0 && !seen_before(seen, nseen, cap, &bs) &&
	    (pid = flock_holder(&bs)) != 0) {
		strbuf_addf(out, "volume %s (%s): ", vol, path);
		backing_holder_describe(pid, b.path, out);
		held = true;
	}
	if (fd >= 0)
		close(fd);
	strbuf_release(&lf);
	strbuf_release(&why);
	return held;
}

unsigned plan_lock_probe(const struct plan *pl, struct strbuf *out)
{
	struct strbuf one = STRBUF_INIT;
	struct stat seen[4 * 64];
	unsigned n = 0, nseen = 0;

	for (size_t v = 0; v < pl->nr_vols; v++) {
		const struct plan_volume *vol = &pl->vols[v];

		for (int k = 0; k < 2; k++) {
			if (k && !strcmp(vol->log_path, vol->path))
				continue;
			strbuf_reset(&one);
			if (probe_held(vol->name, k ? vol->log_path : vol->path, seen, &nseen,
				       DP_ARRAY_SIZE(seen), &one))
				strbuf_addf(out, "%s%s", n++ ? "\n" : "", one.buf);
		}
	}
	strbuf_release(&one);
	return n;
}

/* Could the lock of one path (a directory or a device) be taken, were
 * nobody holding it? 0, or -errno with why, as plan_lock_take would say. */
static int probe_usable(const char *path, struct strbuf *why)
{
	struct plan_loop_backing b;
	char name[96];
	struct stat st;
	int dirfd = -1, fd = -1, ret = 0, loop = 0;
	bool ro;

	if (stat(path, &st) != 0)
		return 0; /* missing: made by run and init, nothing to lock for the others */
	if (S_ISBLK(st.st_mode)) {
		loop = plan_loop_backing(path, st.st_rdev, &b, why);
		if (loop < 0)
			return loop;
		ret = device_dir_open(true, &dirfd, why);
		device_lock_name(st.st_rdev, loop > 0 ? &b : NULL, name, sizeof(name));
	} else {
		dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
		snprintf(name, sizeof(name), "%s", PLAN_LOCK_FILE);
		if (dirfd < 0)
			return 0; /* not a directory: the checks of the volume say so */
	}
	if (!ret && dirfd >= 0)
		ret = lock_file_open(dirfd, S_ISBLK(st.st_mode) ? PLAN_LOCK_DEVICE_DIR : path, name,
				     true, &fd, &ro, why);
	if (fd >= 0)
		close(fd);
	if (dirfd >= 0)
		close(dirfd);
	if (!ret && loop > 0) {
		fd = plan_loop_backing_open(&b, why);
		ret = fd < 0 ? fd : 0;
		if (fd >= 0)
			close(fd);
	}
	return ret;
}

unsigned plan_lock_check(const struct plan *pl, struct strbuf *out)
{
	struct strbuf what = STRBUF_INIT, why = STRBUF_INIT;
	struct stat seen[2 * 64], st;
	unsigned n = 0, nseen = 0;

	for (size_t v = 0; v < pl->nr_vols; v++) {
		const struct plan_volume *vol = &pl->vols[v];

		for (int k = 0; k < 2; k++) {
			const char *path = k ? vol->log_path : vol->path;

			if (k && !strcmp(vol->log_path, vol->path))
				continue;
			/* a directory shared by volumes is said once */
			if (stat(path, &st) == 0 &&
			    seen_before(seen, &nseen, DP_ARRAY_SIZE(seen), &st))
				continue;
			strbuf_reset(&why);
			if (!probe_usable(path, &why))
				continue;
			lock_what(vol, k, &what);
			strbuf_addf(out, "%s%s: %s", n++ ? "\n" : "", what.buf, why.buf);
		}
	}
	strbuf_release(&what);
	strbuf_release(&why);
	return n;
}

void plan_lock_release(struct plan_lock *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++) {
		if (l->e[i].devfd >= 0)
			close(l->e[i].devfd);
		if (l->e[i].bfd >= 0)
			close(l->e[i].bfd);
		if (l->e[i].fd >= 0)
			close(l->e[i].fd);
		if (l->e[i].dirfd >= 0)
			close(l->e[i].dirfd);
	}
	free(l->e);
	strbuf_release(&l->skipped);
	free(l);
}
