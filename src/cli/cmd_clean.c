/* SPDX-License-Identifier: MIT */
/*
 * cmd_clean.c - "diskproof clean [PROFILE] [--data-dir DIR] [--db-size SIZE]
 * [--yes]" (no PROFILE means "quick", as for run and init): removes the databases, logs and
 * generation journals a profile lays out, and the volume and log directories left empty by that.
 *
 * Safety rules, in the order they are applied to each file of the plan:
 *   - links are never followed (lstat): a symbolic link or anything that is
 *     not a regular file is reported and left alone;
 *   - a file is removed only when it carries diskproof's own header for what
 *     it should be: a page header (PAGE_MAGIC, kind, this database's id) at
 *     offset 0 of a .edb or .log, a journal header ("DPGENJ01", this
 *     database's id) at offset 0 of a .gen; a journal's spare (.gen.spare.K,
 *     journal.h) only when it is an empty regular file with one link;
 *     anything else is "not diskproof's" and left alone;
 *   - everything is listed (with sizes) before anything is removed, and the
 *     user says yes on a terminal, or --yes was given; without a terminal and
 *     without --yes nothing is removed (exit 2);
 *   - just before its unlink a file is looked at again and must still be the
 *     same inode that was checked;
 *   - the whole clean holds the volumes' locks (lock.h): while another
 *     command (a run, a verify) holds one, nothing is removed (exit 3);
 *     the lock files go last, while still held;
 *   - directories are removed with rmdir only, so only when empty;
 *   - a volume that is a block device is left alone: its databases are
 *     regions of the device, not files (the logs are cleaned when they are
 *     files in a log directory of their own).
 * Exit codes: 0 done (or nothing to do, or the user said no), 2 usage or
 * profile error or no way to ask, 3 a removal failed or another command
 * holds a volume.
 */
#include <ctype.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diskproof/journal.h"
#include "diskproof/page.h"
#include "diskproof/lock.h"
#include "diskproof/plan.h"
#include "diskproof/run.h"

#include "cli.h"

enum clean_kind {
	CLEAN_KIND_DB,
	CLEAN_KIND_LOG,
	CLEAN_KIND_JOURNAL,
	CLEAN_KIND_SPARE,
};

enum clean_state {
	CLEAN_MISSING, /* nothing there */
	CLEAN_OURS,    /* diskproof's: to be removed */
	CLEAN_KEEP,    /* something else: left alone, why says what */
};

struct clean_file {
	const char *path; /* owned by the plan, or by owned */
	char *owned;
	enum clean_kind kind;
	uint32_t db_id;
	enum clean_state state;
	uint64_t size;
	dev_t dev;
	ino_t ino;
	char why[160];
};

static const char *const kind_names[] = {"database", "log", "journal", "journal spare"};

static void keep(struct clean_file *f, const char *why)
{
	f->state = CLEAN_KEEP;
	snprintf(f->why, sizeof(f->why), "%s", why);
}

/* Whether the first bytes of a file are diskproof's header for f: the reason
 * it is not into f->why otherwise. */
static bool header_is_ours(struct clean_file *f, const unsigned char *head, size_t n)
{
	struct page_header h;
	uint32_t id;

	if (f->kind == CLEAN_KIND_JOURNAL) {
		if (n < JOURNAL_HEADER_SIZE || memcmp(head, JOURNAL_MAGIC, 8) != 0) {
			keep(f, "not diskproof's: left alone");
			return false;
		}
		memcpy(&id, head + 16, sizeof(id)); /* after magic, version, flags */
		id = le32toh(id);
	} else {
		if (n < sizeof(h)) {
			keep(f, "not diskproof's: left alone");
			return false;
		}
		memcpy(&h, head, sizeof(h));
		if (le64toh(h.magic) != PAGE_MAGIC ||
		    le32toh(h.kind) != (f->kind == CLEAN_KIND_DB ? PAGE_KIND_DB : PAGE_KIND_LOG)) {
			keep(f, "not diskproof's: left alone");
			return false;
		}
		id = le32toh(h.db_id);
	}
	if (id != f->db_id) {
		snprintf(f->why, sizeof(f->why),
			 "diskproof's, but database %u's %s, not database %u's: left alone", id,
			 kind_names[f->kind], f->db_id);
		f->state = CLEAN_KEEP;
		return false;
	}
	return true;
}

/* A block-device volume holds its databases as regions of the device (and
 * their journals beside the results file): nothing there is a file to
 * remove. */
static bool is_blockdev(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISBLK(st.st_mode);
}

/* Sorts one file of the plan into missing, ours or keep. Reads 64 bytes. */
static void clean_inspect(struct clean_file *f)
{
	unsigned char head[PAGE_HEADER_SIZE];
	struct stat st, fst;
	ssize_t n;
	int fd;

	f->state = CLEAN_MISSING;
	if (lstat(f->path, &st) != 0) {
		if (errno != ENOENT) {
			snprintf(f->why, sizeof(f->why), "cannot look at it: %s: left alone",
				 strerror(errno));
			f->state = CLEAN_KEEP;
		}
		return;
	}
	if (S_ISLNK(st.st_mode) || !S_ISREG(st.st_mode)) {
		keep(f, S_ISLNK(st.st_mode) ? "a symbolic link, not followed: left alone"
					    : "not a regular file: left alone");
		return;
	}
	f->size = (uint64_t)st.st_size;
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	if (f->kind == CLEAN_KIND_SPARE) {
		/* empty: its room is preallocated past its end */
		f->size = (uint64_t)st.st_blocks * 512;
		if (journal_spare_ours(f->path))
			f->state = CLEAN_OURS;
		else
			keep(f, "not an empty file, as diskproof's spares are: left alone");
		return;
	}
	/* O_NONBLOCK: a FIFO swapped in since the lstat must not block */
	fd = open(f->path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		snprintf(f->why, sizeof(f->why), "cannot open it to check it: %s: left alone",
			 strerror(errno));
		f->state = CLEAN_KEEP;
		return;
	}
	if (fstat(fd, &fst) != 0 || fst.st_dev != st.st_dev || fst.st_ino != st.st_ino) {
		close(fd);
		keep(f, "changed while being checked: left alone");
		return;
	}
	n = pread(fd, head, sizeof(head), 0);
	close(fd);
	if (n < 0) {
		snprintf(f->why, sizeof(f->why), "cannot read it to check it: %s: left alone",
			 strerror(errno));
		f->state = CLEAN_KEEP;
		return;
	}
	if (header_is_ours(f, head, (size_t)n))
		f->state = CLEAN_OURS;
}

/* The spares of the journal at path (journal.h) after files[n]; the new n.
 * A name that cannot be made is left out. */
static size_t clean_add_spares(struct clean_file *files, size_t n, const char *journal)
{
	for (int k = 1; k <= JOURNAL_SPARES; k++) {
		struct strbuf name = STRBUF_INIT;

		journal_spare_name(journal, k, &name);
		files[n] = (struct clean_file){.kind = CLEAN_KIND_SPARE};
		files[n].owned = strbuf_detach(&name, NULL);
		files[n].path = files[n].owned;
		if (files[n].path)
			n++;
	}
	return n;
}

/* Removes f if it is still the file that was checked; 0 or -errno. */
static int clean_remove(const struct clean_file *f)
{
	struct stat st;

	if (lstat(f->path, &st) != 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || st.st_dev != f->dev || st.st_ino != f->ino)
		return -ESTALE; /* replaced since it was checked: not ours to remove */
	if (unlink(f->path) != 0)
		return -errno;
	return 0;
}

/* rmdir, which removes only an empty directory; says what happened (quiet:
 * only when it was removed). */
static void clean_rmdir(const char *dir, bool quiet)
{
	if (rmdir(dir) == 0)
		printf("removed directory %s\n", dir);
	else if (quiet)
		;
	else if (errno == ENOTEMPTY || errno == EEXIST)
		printf("kept directory %s: not empty\n", dir);
	else if (errno != ENOENT)
		printf("kept directory %s: %s\n", dir, strerror(errno));
}

/* Last: the lock files (removed while still held, lock.h), then the
 * directories left empty. */
static void clean_dirs(const struct plan *pl, struct plan_lock *lock, bool say_kept)
{
	plan_lock_remove_files(lock);
	/* logs first: a log directory may sit inside its volume's directory */
	for (size_t v = 0; v < pl->nr_vols; v++) {
		const struct plan_volume *vol = &pl->vols[v];

		if (strcmp(vol->log_path, vol->path) && !is_blockdev(vol->log_path))
			clean_rmdir(vol->log_path, !say_kept);
		if (!is_blockdev(vol->path))
			clean_rmdir(vol->path, !say_kept);
	}
}

/* Asks on the terminal; true only for "y" or "yes" (any case). */
static bool ask_yes(void)
{
	char line[64], *s, *e;

	fputs("remove them? [y/N] ", stderr);
	fflush(stderr);
	if (!fgets(line, sizeof(line), stdin))
		return false;
	for (s = line; isspace((unsigned char)*s); s++)
		;
	for (e = s + strlen(s); e > s && isspace((unsigned char)e[-1]); e--)
		;
	*e = '\0';
	return !strcasecmp(s, "y") || !strcasecmp(s, "yes");
}

static void print_total(const char *verb, size_t n, uint64_t bytes)
{
	struct strbuf sz = STRBUF_INIT;

	unit_format_size(&sz, bytes);
	printf("%s %zu file%s, %s\n", verb, n, n == 1 ? "" : "s", sz.buf);
	strbuf_release(&sz);
}

/* Lists every file of the plan that is there; returns how many are ours. */
static size_t clean_list(const struct clean_file *files, size_t n, uint64_t *bytes)
{
	size_t ours = 0;

	*bytes = 0;
	for (size_t i = 0; i < n; i++) {
		const struct clean_file *f = &files[i];
		struct strbuf sz = STRBUF_INIT;

		if (f->state == CLEAN_OURS) {
			unit_format_size(&sz, f->size);
			printf("  remove  %s  (%s, %s)\n", f->path, kind_names[f->kind], sz.buf);
			ours++;
			*bytes += f->size;
		} else if (f->state == CLEAN_KEEP) {
			printf("  keep    %s: %s\n", f->path, f->why);
		}
		strbuf_release(&sz);
	}
	return ours;
}

/* Removes what is ours, then the directories left empty; the exit code. */
static int clean_apply(const struct plan *pl, struct plan_lock *lock,
		       const struct clean_file *files, size_t n)
{
	size_t removed = 0;
	uint64_t bytes = 0;
	int ret = 0;

	for (size_t i = 0; i < n; i++) {
		const struct clean_file *f = &files[i];
		int err;

		if (f->state != CLEAN_OURS)
			continue;
		err = clean_remove(f);
		if (err == -ESTALE) {
			fprintf(stderr,
				"diskproof: clean: %s: replaced since it was checked: left "
				"alone\n",
				f->path);
			ret = DP_EXIT_ENV;
		} else if (err) {
			fprintf(stderr, "diskproof: clean: %s: cannot remove: %s\n", f->path,
				strerror(-err));
			ret = DP_EXIT_ENV;
		} else {
			printf("removed %s\n", f->path);
			removed++;
			bytes += f->size;
		}
	}
	clean_dirs(pl, lock, true);
	print_total("removed", removed, bytes);
	return ret;
}

int cli_cmd_clean(int argc, char **argv)
{
	struct cli_opts o;
	struct profile p = {0};
	struct plan pl = {0};
	struct strbuf err = STRBUF_INIT;
	struct clean_file *files = NULL;
	struct plan_lock *lock = NULL;
	size_t n = 0, ours;
	uint64_t bytes;
	int ret;

	ret = cli_profile_load(argc, argv, CMD_CLEAN, "clean", &o, &p);
	if (ret)
		goto out;
	/* Only the paths are needed: no direct-I/O probing of the volumes. */
	ret = plan_build(&pl, &p, false, &err);
	if (ret) {
		fprintf(stderr, "diskproof: clean: %s\n", err.buf);
		ret = DP_EXIT_ENV;
		goto out;
	}
	/* a running command's files are not clean's to remove: one command at
	 * a time (clean never touches a device: directories only) */
	ret = plan_lock_take(&lock, &pl, "clean",
			     PLAN_LOCK_NO_DEVICES | (o.no_lock ? PLAN_LOCK_BEST_EFFORT : 0), &err);
	if (ret) {
		fprintf(stderr, "diskproof: clean: %s; nothing removed\n", err.buf);
		ret = DP_EXIT_ENV;
		goto out;
	}
	cli_print_warnings(plan_lock_skipped(lock));
	files = calloc((3 + JOURNAL_SPARES) * pl.nr_dbs + 1, sizeof(*files));
	if (!files) {
		fprintf(stderr, "diskproof: clean: out of memory\n");
		ret = DP_EXIT_ENV;
		goto out;
	}
	printf("diskproof: clean %s: %zu database(s) on %zu volume(s)\n", p.name, pl.nr_dbs,
	       pl.nr_vols);
	for (size_t i = 0; i < pl.nr_dbs; i++) {
		const struct plan_db *db = &pl.dbs[i];
		const struct plan_volume *vol = &pl.vols[db->volume];
		size_t first = n;

		if (!is_blockdev(vol->path)) {
			files[n++] = (struct clean_file){.path = db->path, .kind = CLEAN_KIND_DB};
			files[n++] = (struct clean_file){.path = db->journal,
							 .kind = CLEAN_KIND_JOURNAL};
			n = clean_add_spares(files, n, db->journal);
		} else if (vol->first_db == i) {
			printf("  keep    %s: volume %s is a block device: clean removes files "
			       "only\n",
			       vol->path, vol->name);
		}
		if (!is_blockdev(vol->log_path))
			files[n++] =
				(struct clean_file){.path = db->log_file, .kind = CLEAN_KIND_LOG};
		for (size_t k = first; k < n; k++) {
			files[k].db_id = db->id;
			clean_inspect(&files[k]);
		}
	}
	ours = clean_list(files, n, &bytes);
	if (!ours) {
		/* none of diskproof's files: no sign it made the directories
		 * either (an empty mount point, say), so they stay; only the lock
		 * files go, this command's own among them */
		printf("nothing to remove\n");
		plan_lock_remove_files(lock);
		ret = 0;
		goto out;
	}
	print_total("will remove", ours, bytes);
	fflush(stdout);
	if (!o.yes && !isatty(STDIN_FILENO)) {
		fprintf(stderr,
			"diskproof: clean: cannot ask for confirmation: standard input is not a "
			"terminal; nothing removed (pass --yes to remove these files)\n");
		ret = DP_EXIT_USAGE;
		goto out;
	}
	if (!o.yes && !ask_yes()) {
		printf("nothing removed\n");
		ret = 0;
		goto out;
	}
	ret = clean_apply(&pl, lock, files, n);
out:
	for (size_t i = 0; i < n; i++)
		free(files[i].owned);
	free(files);
	plan_lock_release(lock);
	plan_release(&pl);
	profile_release(&p);
	strbuf_release(&err);
	return ret;
}
