/* SPDX-License-Identifier: MIT */
/*
 * no_uring.c - test helper: runs a command with io_uring_setup(2) failing as
 * on a kernel without io_uring (ENOSYS), through a seccomp filter that only
 * this process tree sees. Used by test_no_uring.sh. With --enter it is
 * io_uring_enter(2) that fails (ENOSYS), every time: a ring can be set up and
 * registered, but nothing can be submitted or waited for, an engine error
 * that lasts (test_engine_errors.sh).
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <string.h>

#ifndef __NR_io_uring_setup
#define __NR_io_uring_setup 425
#endif
#ifndef __NR_io_uring_enter
#define __NR_io_uring_enter 426
#endif

int main(int argc, char **argv)
{
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {.len = sizeof(filter) / sizeof(filter[0]), .filter = filter};

	if (argc > 1 && !strcmp(argv[1], "--enter")) {
		filter[1].k = __NR_io_uring_enter;
		argv++;
		argc--;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: no_uring [--enter] COMMAND [ARGS...]\n");
		return 2;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		perror("no_uring: seccomp");
		return 77;
	}
	execvp(argv[1], argv + 1);
	perror("no_uring: exec");
	return 127;
}
