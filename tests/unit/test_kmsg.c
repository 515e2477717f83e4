/* SPDX-License-Identifier: MIT */
/*
 * test_kmsg.c - the kernel log reader's pure parts (kmsg.h): a /dev/kmsg
 * record's facility, level, sequence number and timestamp, its flags, its
 * dictionary (continuation lines) left out of the text, malformed records
 * refused, a message cut at its limit; and the device matcher: "loop8" and
 * "sdb" as words and their partitions ("sdb1", "loop8p1"), never "loop80",
 * "sdbc" or a device named inside another word. Then the reader on a pipe:
 * nothing yet is -EAGAIN, a record written is read and parsed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "diskproof/kmsg.h"

static int parse(const char *rec, struct env_kmsg_line *l)
{
	return env_kmsg_parse(rec, strlen(rec), l);
}

static void test_parse_fields(void **state)
{
	struct env_kmsg_line l;

	(void)state;
	/* facility 0 (kernel), level 3 (err) */
	assert_int_equal(parse("3,1234,56789012,-;blk_update_request: I/O error, dev loop8, "
			       "sector 0 op 0x0:(READ)\n",
			       &l),
			 0);
	assert_int_equal(l.facility, 0);
	assert_int_equal(l.level, 3);
	assert_string_equal(env_kmsg_level_name(l.level), "err");
	assert_int_equal(l.seq, 1234);
	assert_int_equal(l.ts_us, 56789012);
	assert_false(l.cont);
	assert_string_equal(l.text,
			    "blk_update_request: I/O error, dev loop8, sector 0 op 0x0:(READ)");
	/* a line echoed into /dev/kmsg by root: facility 1 (user), level 4;
	 * further fields after the flags (newer kernels add the caller) */
	assert_int_equal(parse("12,99,1,-,caller=T42;loop3: test I/O error\n", &l), 0);
	assert_int_equal(l.facility, 1);
	assert_int_equal(l.level, 4);
	assert_string_equal(l.text, "loop3: test I/O error");
	/* a fragment that the next record continues */
	assert_int_equal(parse("6,7,8,c;sd 0:0:0:0: [sdb] \n", &l), 0);
	assert_true(l.cont);
	assert_string_equal(l.text, "sd 0:0:0:0: [sdb] ");
	/* no newline at all: the text is the rest */
	assert_int_equal(parse("0,0,0,-;x", &l), 0);
	assert_string_equal(l.text, "x");
}

static void test_parse_dictionary(void **state)
{
	struct env_kmsg_line l;

	(void)state;
	/* continuation lines (the dictionary) are not the message */
	assert_int_equal(parse("3,5,100,-;sd 2:0:0:0: [sdb] tag#0 timing out command, waited 30s\n"
			       " SUBSYSTEM=scsi\n DEVICE=+scsi:2:0:0:0\n",
			       &l),
			 0);
	assert_string_equal(l.text, "sd 2:0:0:0: [sdb] tag#0 timing out command, waited 30s");
	assert_true(env_kmsg_names_device(l.text, "sdb"));
}

static void test_parse_bad(void **state)
{
	struct env_kmsg_line l;
	char big[KMSG_TEXT_MAX + 64];

	(void)state;
	assert_int_equal(parse("", &l), -EINVAL);
	assert_int_equal(parse("hello world\n", &l), -EINVAL);
	assert_int_equal(parse("3,1,2;no flags field\n", &l), -EINVAL);
	assert_int_equal(parse("3,1,2,-no semicolon\n", &l), -EINVAL);
	assert_int_equal(parse("x,1,2,-;text\n", &l), -EINVAL);
	assert_int_equal(parse("3,,2,-;text\n", &l), -EINVAL);
	assert_int_equal(parse("99999999999999999999999,1,2,-;overflow\n", &l), -EINVAL);
	assert_int_equal(parse("1024,1,2,-;PRI out of range\n", &l), -EINVAL);
	/* a message past the limit is cut, terminated */
	memcpy(big, "3,1,2,-;", 8);
	memset(big + 8, 'a', sizeof(big) - 9);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(parse(big, &l), 0);
	assert_int_equal(strlen(l.text), KMSG_TEXT_MAX - 1);
}

static void test_names_device(void **state)
{
	(void)state;
	assert_true(env_kmsg_names_device("loop8: detected capacity change", "loop8"));
	assert_true(env_kmsg_names_device("I/O error, dev loop8, sector 0", "loop8"));
	assert_true(
		env_kmsg_names_device("Buffer I/O error on dev loop8p1, logical block 0", "loop8"));
	assert_false(env_kmsg_names_device("I/O error, dev loop80, sector 0", "loop8"));
	assert_false(env_kmsg_names_device("loop8x", "loop8"));
	assert_false(env_kmsg_names_device("xloop8: foo", "loop8"));
	assert_false(env_kmsg_names_device("dev loop8p, foo", "loop8"));
	/* a name ending in a letter: its partitions are digits after it */
	assert_true(env_kmsg_names_device("sd 2:0:0:0: [sdb] Medium Error", "sdb"));
	assert_true(env_kmsg_names_device("EXT4-fs (sdb1): I/O error", "sdb"));
	assert_false(env_kmsg_names_device("sd 3:0:0:0: [sdbc] reset", "sdb"));
	assert_false(env_kmsg_names_device("[sda] reset", "sdb"));
	assert_false(env_kmsg_names_device("usdb: nothing", "sdb"));
	/* the name found later in the text after a false start */
	assert_true(env_kmsg_names_device("sdbc and sdb both", "sdb"));
	assert_true(env_kmsg_names_device("nvme0n1p2: timeout", "nvme0n1"));
	assert_false(env_kmsg_names_device("nvme0n10: timeout", "nvme0n1"));
	assert_false(env_kmsg_names_device("anything", ""));
	assert_false(env_kmsg_names_device("anything", NULL));
}

static void test_read_pipe(void **state)
{
	struct env_kmsg_line l;
	const char *rec = "3,42,7,-;loop8: test I/O error\n";
	int p[2];

	(void)state;
	assert_int_equal(pipe2(p, O_NONBLOCK), 0);
	assert_int_equal(env_kmsg_read(p[0], &l), -EAGAIN);
	assert_int_equal(write(p[1], rec, strlen(rec)), (ssize_t)strlen(rec));
	assert_int_equal(env_kmsg_read(p[0], &l), 0);
	assert_int_equal(l.seq, 42);
	assert_string_equal(l.text, "loop8: test I/O error");
	assert_int_equal(write(p[1], "junk\n", 5), 5);
	assert_int_equal(env_kmsg_read(p[0], &l), -EINVAL);
	close(p[1]);
	assert_int_equal(env_kmsg_read(p[0], &l), -EAGAIN);
	close(p[0]);
	assert_int_equal(env_kmsg_open("/nonexistent/kmsg", p), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_fields), cmocka_unit_test(test_parse_dictionary),
		cmocka_unit_test(test_parse_bad),    cmocka_unit_test(test_names_device),
		cmocka_unit_test(test_read_pipe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
