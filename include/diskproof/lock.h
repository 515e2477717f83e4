/* SPDX-License-Identifier: MIT */
/*
 * lock.h - one command at a time on a volume. Every command that touches a
 * volume's files (run, init, verify, clean) holds an exclusive lock on each
 * of its volumes for its whole life; a second one is refused at once (-EBUSY)
 * with the holder named: command, pid, start time (and host, for a volume
 * shared over the network).
 *
 * Where the locks are:
 *   - a volume directory, and a separate log directory (log_path): flock() on
 *     PLAN_LOCK_FILE inside it, created O_CREAT|O_NOFOLLOW|O_CLOEXEC (a link
 *     or anything but a regular file there is refused); the holder writes who
 *     it is into the file;
 *   - a block device: one O_EXCL descriptor held for the whole command (it
 *     also keeps the device from being mounted meanwhile), and to name the
 *     holder a flock()ed file PLAN_LOCK_DEVICE_DIR/dev-MAJOR:MINOR.lock,
 *     taken first. Every check of the device reuses the held descriptor
 *     (plan_lock_device_fd): a second O_EXCL open fails even from the same
 *     process;
 *   - a loop device: as a block device, its lock file named by the file
 *     behind it ("loop-DEV-INO.lock", from LOOP_GET_STATUS64), and a flock()
 *     on that file itself, opened read-only: two loop devices over one
 *     image are one storage, and that file is seen from every mount
 *     namespace that can open it, where /run/lock may be private to each.
 * A lock that cannot be taken (PLAN_LOCK_DEVICE_DIR missing and not
 * makeable, read-only, a file or a link, not root's; a lock file that
 * cannot be created, as on a read-only mount, or is a link; a loop device's
 * file deleted or not visible here) refuses the command as surely as a
 * holder does, unless the caller says PLAN_LOCK_BEST_EFFORT (--no-lock).
 * flock() is dropped by the kernel when its holder dies, even by kill -9, so
 * a lock is never stale and never needs clearing by hand. Each directory and
 * device is locked once per command, keyed by device and inode (or device
 * number), so volumes sharing a log directory never refuse themselves.
 * Commands that write nothing (plan, check) take no lock; neither does the
 * sim engine, which touches no files.
 *
 * Ownership: plan_lock_take() gives the caller a struct plan_lock to
 * plan_lock_release() (safe on NULL). The plan it was taken for may be
 * released first: the lock keeps its own copies of what it needs.
 */
#ifndef DISKPROOF_LOCK_H
#define DISKPROOF_LOCK_H

#include <stdbool.h>

#include "diskproof/plan.h"
#include "diskproof/util.h"

#define PLAN_LOCK_FILE ".diskproof.lock"
#define PLAN_LOCK_DEVICE_DIR "/run/lock/diskproof"

struct plan_lock;

enum plan_lock_flags {
	/* make missing volume and log directories (run, init): the lock file
	 * lives in them */
	PLAN_LOCK_CREATE = 1u << 0,
	/* lock directories only (clean: it never touches a device) */
	PLAN_LOCK_NO_DEVICES = 1u << 1,
	/* --no-lock: a lock that cannot be taken is gone without, and said in
	 * plan_lock_skipped(); a lock another command holds still refuses */
	PLAN_LOCK_BEST_EFFORT = 1u << 2,
};

/*
 * Locks every volume directory, log directory and block device of the plan
 * (missing directories are skipped unless PLAN_LOCK_CREATE). command ("run",
 * "verify", ...) is written into the lock files for a later command's
 * message. 0, or -errno with err set and nothing held:
 *   -EBUSY: held by another command: "volume a (/data/a): in use by diskproof
 *     run (pid 1234, started 2026-12-01T21:00:00Z; lock file
 *     /data/a/.diskproof.lock): wait for it to end or stop it", or a block
 *     device in use by something else (mounted, swap, RAID/LVM member);
 *   -EMEDIUMTYPE: a lock file, or a volume path, that is not what it must be;
 *   others: the directory or lock file cannot be made or locked ("volume d
 *     (/dev/loop3): cannot make the device lock directory /run/lock/diskproof:
 *     Read-only file system; a command that cannot take its lock does not
 *     start (... or pass --no-lock ...)").
 * Never -EINVAL (a usage error to the callers).
 */
int plan_lock_take(struct plan_lock **out, const struct plan *pl, const char *command,
		   unsigned flags, struct strbuf *err) DP_MUST_CHECK;

/* With PLAN_LOCK_BEST_EFFORT: one line per lock that could not be taken,
 * "--no-lock: volume d (/dev/loop3) is not locked (why); a second command on
 * it would not be refused\n"; "" when none (or l is NULL). Owned by l. */
const char *plan_lock_skipped(const struct plan_lock *l);

/* The O_EXCL descriptor held for the block device at path (compared by
 * device number), or -1 when l holds none for it. Not the caller's to close. */
int plan_lock_device_fd(const struct plan_lock *l, const char *path);

/* clean, at its very end: removes the lock files of the directories l holds,
 * while still holding them (an unlink that lost a race to nobody). The
 * locks stay held until plan_lock_release(). */
void plan_lock_remove_files(struct plan_lock *l);

/*
 * For check: one line per lock of the plan that another command holds now
 * ("volume a (/data/a): in use by diskproof run (pid ..."), into out; takes
 * nothing (reads /proc/locks and the lock files). Returns how many.
 */
unsigned plan_lock_probe(const struct plan *pl, struct strbuf *out);

/*
 * For check: one line per lock of the plan that a command could not take
 * even were nobody holding it, with why, as plan_lock_take() would refuse
 * ("volume d (/dev/loop3): /run/lock/diskproof is a regular file, not a
 * directory (remove it)"), into out. Takes and makes nothing. Returns how
 * many.
 */
unsigned plan_lock_check(const struct plan *pl, struct strbuf *out);

void plan_lock_release(struct plan_lock *l);

#endif
