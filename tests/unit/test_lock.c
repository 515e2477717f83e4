/* SPDX-License-Identifier: MIT */
/*
 * test_lock.c - the volume locks (lock.h) and the non-blocking opens
 * (fileopen.h) on real directories under the build tree: a second lock of
 * the same volume is refused naming the holder, even from the same process
 * (flock is per open file); directories shared between volumes are locked
 * once; missing directories are made only when asked; a lock file that is a
 * link or a FIFO is refused; probe sees a held lock; a FIFO is refused by
 * file_open_checked at once. With PLAN_LOCK_BEST_EFFORT (--no-lock) a lock
 * file that cannot be had is gone without and said, one another command
 * holds still refuses; plan_lock_check names a lock that cannot be taken.
 * Devices are covered by tests/integration/test_locks_blockdev.sh, and
 * unusable lock directories by test_locks_namespaces.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diskproof/fileopen.h"
#include "diskproof/lock.h"

struct fixture {
	char dir[256];
	struct plan_volume vols[3];
	struct plan pl;
	char paths[6][300];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	snprintf(f->dir, sizeof(f->dir), "%s/test_lock.XXXXXX", DP_BINARY_DIR);
	if (!f || !mkdtemp(f->dir))
		return -1;
	/* a and b share one log directory; c keeps its logs in a */
	snprintf(f->paths[0], sizeof(f->paths[0]), "%s/a", f->dir);
	snprintf(f->paths[1], sizeof(f->paths[1]), "%s/logs", f->dir);
	snprintf(f->paths[2], sizeof(f->paths[2]), "%s/b", f->dir);
	snprintf(f->paths[3], sizeof(f->paths[3]), "%s/logs", f->dir);
	snprintf(f->paths[4], sizeof(f->paths[4]), "%s/c", f->dir);
	snprintf(f->paths[5], sizeof(f->paths[5]), "%s/a", f->dir);
	for (int v = 0; v < 3; v++) {
		snprintf(f->vols[v].name, sizeof(f->vols[v].name), "%c", 'a' + v);
		f->vols[v].path = f->paths[2 * v];
		f->vols[v].log_path = f->paths[2 * v + 1];
	}
	f->pl.vols = f->vols;
	f->pl.nr_vols = 3;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	if (system(cmd) != 0)
		return -1;
	free(f);
	return 0;
}

static bool exists(const char *dir, const char *name)
{
	char p[400];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return lstat(p, &st) == 0;
}

static void test_second_refused(void **state)
{
	struct fixture *f = *state;
	struct plan_lock *l1 = NULL, *l2 = NULL;
	struct strbuf err = STRBUF_INIT, want = STRBUF_INIT, probe = STRBUF_INIT;

	/* missing directories: skipped without PLAN_LOCK_CREATE */
	assert_int_equal(plan_lock_take(&l1, &f->pl, "unit", 0, &err), 0);
	assert_false(exists(f->dir, "a"));
	plan_lock_release(l1);
	/* made with it; the shared ones locked once (no self-refusal) */
	assert_int_equal(plan_lock_take(&l1, &f->pl, "unit", PLAN_LOCK_CREATE, &err), 0);
	assert_true(exists(f->paths[0], PLAN_LOCK_FILE));
	assert_true(exists(f->paths[1], PLAN_LOCK_FILE));
	assert_true(exists(f->paths[4], PLAN_LOCK_FILE));
	/* a second taker, even this process, is refused naming the holder */
	assert_int_equal(plan_lock_take(&l2, &f->pl, "verify", 0, &err), -EBUSY);
	assert_null(l2);
	strbuf_addf(&want, "volume a (%s): in use by diskproof unit (pid %ld, started ",
		    f->paths[0], (long)getpid());
	assert_non_null(strstr(err.buf, want.buf));
	assert_int_equal(plan_lock_probe(&f->pl, &probe), 4); /* a, logs, b, c */
	assert_non_null(strstr(probe.buf, want.buf));
	plan_lock_release(l1);
	strbuf_reset(&probe);
	assert_int_equal(plan_lock_probe(&f->pl, &probe), 0);
	/* released: free again; clean's removal takes the files away */
	strbuf_reset(&err);
	assert_int_equal(plan_lock_take(&l2, &f->pl, "clean", 0, &err), 0);
	plan_lock_remove_files(l2);
	assert_false(exists(f->paths[0], PLAN_LOCK_FILE));
	assert_false(exists(f->paths[1], PLAN_LOCK_FILE));
	plan_lock_release(l2);
	plan_lock_release(NULL);
	strbuf_release(&err);
	strbuf_release(&want);
	strbuf_release(&probe);
}

static void test_unsafe_lock_file(void **state)
{
	struct fixture *f = *state;
	struct plan_lock *l = NULL;
	struct strbuf err = STRBUF_INIT;
	char lf[400], target[400], buf[16] = "";
	FILE *t;

	assert_int_equal(plan_lock_take(&l, &f->pl, "unit", PLAN_LOCK_CREATE, &err), 0);
	plan_lock_remove_files(l);
	plan_lock_release(l);
	snprintf(lf, sizeof(lf), "%s/%s", f->paths[0], PLAN_LOCK_FILE);
	snprintf(target, sizeof(target), "%s/target", f->dir);
	t = fopen(target, "w");
	assert_non_null(t);
	fputs("precious", t);
	fclose(t);
	assert_int_equal(symlink(target, lf), 0);
	assert_int_equal(plan_lock_take(&l, &f->pl, "unit", 0, &err), -EMEDIUMTYPE);
	assert_non_null(strstr(err.buf, "is a symbolic link"));
	t = fopen(target, "r");
	assert_non_null(fgets(buf, sizeof(buf), t));
	fclose(t);
	assert_string_equal(buf, "precious");
	unlink(lf);
	assert_int_equal(mkfifo(lf, 0644), 0);
	strbuf_reset(&err);
	assert_int_equal(plan_lock_take(&l, &f->pl, "unit", 0, &err), -EMEDIUMTYPE);
	assert_non_null(strstr(err.buf, "is a FIFO (named pipe), not a regular file"));
	unlink(lf);
	strbuf_release(&err);
}

static void test_no_lock(void **state)
{
	struct fixture *f = *state;
	struct plan_lock *l1 = NULL, *l2 = NULL;
	struct strbuf err = STRBUF_INIT, bad = STRBUF_INIT, want = STRBUF_INIT;
	char lf[400], target[400];
	struct stat st;

	assert_int_equal(plan_lock_take(&l1, &f->pl, "unit", PLAN_LOCK_CREATE, &err), 0);
	assert_string_equal(plan_lock_skipped(l1), "");
	assert_int_equal(plan_lock_check(&f->pl, &bad), 0); /* held is not unusable */
	/* a held lock refuses even with --no-lock */
	assert_int_equal(plan_lock_take(&l2, &f->pl, "verify", PLAN_LOCK_BEST_EFFORT, &err),
			 -EBUSY);
	assert_non_null(strstr(err.buf, "in use by diskproof unit"));
	plan_lock_remove_files(l1);
	plan_lock_release(l1);

	/* a lock file that is a link: refused, naming --no-lock ... */
	snprintf(lf, sizeof(lf), "%s/%s", f->paths[0], PLAN_LOCK_FILE);
	snprintf(target, sizeof(target), "%s/nowhere", f->dir);
	assert_int_equal(symlink(target, lf), 0);
	strbuf_reset(&err);
	assert_int_equal(plan_lock_take(&l2, &f->pl, "unit", 0, &err), -EMEDIUMTYPE);
	assert_non_null(strstr(err.buf, "pass --no-lock"));
	assert_int_equal(plan_lock_check(&f->pl, &bad), 1);
	strbuf_addf(&want, "volume a (%s): lock file %s is a symbolic link", f->paths[0], lf);
	assert_non_null(strstr(bad.buf, want.buf));
	/* ... gone without, and said, with it; the other volumes locked */
	strbuf_reset(&err);
	assert_int_equal(plan_lock_take(&l2, &f->pl, "unit", PLAN_LOCK_BEST_EFFORT, &err), 0);
	strbuf_reset(&want);
	strbuf_addf(&want,
		    "--no-lock: volume a (%s) is not locked (lock file %s is a symbolic link",
		    f->paths[0], lf);
	assert_non_null(strstr(plan_lock_skipped(l2), want.buf));
	assert_non_null(
		strstr(plan_lock_skipped(l2), "a second command on it would not be refused\n"));
	assert_int_equal(lstat(target, &st), -1); /* nothing made through the link */
	strbuf_reset(&err);
	assert_int_equal(plan_lock_take(&l1, &f->pl, "verify", 0, &err), -EMEDIUMTYPE);
	plan_lock_release(l2);
	assert_string_equal(plan_lock_skipped(NULL), "");
	unlink(lf);
	strbuf_release(&err);
	strbuf_release(&bad);
	strbuf_release(&want);
}

static void test_open_checked(void **state)
{
	struct fixture *f = *state;
	struct strbuf err = STRBUF_INIT;
	char p[400];
	int fd;

	snprintf(p, sizeof(p), "%s/fifo", f->dir);
	assert_int_equal(mkfifo(p, 0644), 0);
	assert_int_equal(file_open_checked(p, O_RDONLY, 0, FILE_OPEN_REGULAR, NULL, &err),
			 -EMEDIUMTYPE);
	assert_non_null(strstr(err.buf, "is a FIFO (named pipe), not a regular file"));
	strbuf_reset(&err);
	/* for writing, with no reader: open() says ENXIO; still named */
	assert_int_equal(file_open_checked(p, O_WRONLY, 0, FILE_OPEN_REGULAR, NULL, &err),
			 -EMEDIUMTYPE);
	strbuf_reset(&err);
	assert_int_equal(file_open_checked(f->dir, O_RDONLY, 0, FILE_OPEN_REGULAR, NULL, &err),
			 -EMEDIUMTYPE);
	assert_non_null(strstr(err.buf, "is a directory"));
	snprintf(p, sizeof(p), "%s/missing", f->dir);
	strbuf_reset(&err);
	assert_int_equal(file_open_checked(p, O_RDONLY, 0, FILE_OPEN_REGULAR, NULL, &err), -ENOENT);
	assert_int_equal(err.len, 0);
	/* a regular file: opened, O_NONBLOCK gone again (io_uring honours it) */
	fd = file_open_checked(p, O_RDWR | O_CREAT, 0644, FILE_OPEN_REGULAR, NULL, &err);
	assert_true(fd >= 0);
	assert_false(fcntl(fd, F_GETFL) & O_NONBLOCK);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	close(fd);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_second_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unsafe_lock_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_lock, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_checked, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
