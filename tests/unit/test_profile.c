/* SPDX-License-Identifier: MIT */
/*
 * test_profile.c - INI profile parsing and validation: the defaults of a
 * minimal profile, every kind of bad profile (each message checked for file,
 * line, section and key), long lines, binary data, BOM and CRLF, overrides,
 * the PROFILE argument rules and the key table itself.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dirent.h>
#include <cmocka.h>

#include "diskproof/profile.h"
#include "../../src/profile/profile_internal.h"

#define MS NSEC_PER_MSEC
#define SEC NSEC_PER_SEC
#define VOL "[volume v1]\npath = /d\n"

static int parse(struct profile *p, const char *text, struct strbuf *err)
{
	return profile_parse(p, "t.ini", text, strlen(text), err);
}

/* Parses text, expects -EINVAL and err exactly equal to want. */
static void expect_errors(const char *text, const char *want)
{
	struct strbuf err = STRBUF_INIT;
	struct profile p;

	assert_int_equal(parse(&p, text, &err), -EINVAL);
	assert_string_equal(err.buf, want);
	assert_null(p.volumes); /* nothing kept on error */
	assert_null(p.name);
	profile_release(&p);
	strbuf_release(&err);
}

static void expect_ok(struct profile *p, const char *text)
{
	struct strbuf err = STRBUF_INIT;

	if (parse(p, text, &err))
		fail_msg("unexpected errors:\n%s", err.buf);
	strbuf_release(&err);
}

static void test_defaults(void **state)
{
	const char *text = "[volume v1]\npath = /d\n";
	struct profile p;

	expect_ok(&p, text);
	assert_string_equal(p.name, "t");
	assert_null(p.description);
	assert_int_equal(p.type, PROFILE_TEST_PERFORMANCE);
	assert_int_equal(p.duration_ns, 2 * 3600 * SEC);
	assert_int_equal(p.warmup_ns, 0);
	assert_int_equal(p.repeat, 1);
	assert_int_equal(p.database_size, 1ULL << 30);
	assert_int_equal(p.log_size, 64ULL << 20);
	assert_int_equal(p.target_iops, 0);
	assert_int_equal(p.page_size, 32768);
	assert_true(p.read_pct == 100.0);
	assert_int_equal(p.model, PROFILE_MODEL_JETSTRESS);
	assert_int_equal(p.log_segments, 64);
	assert_true(p.insert_pct == 40.0 && p.seek_pct == 35.0 && p.lazy_commit_pct == 70.0);
	assert_int_equal(p.log_record_size, 2048);
	assert_int_equal(p.seed, 1);
	assert_true(p.verify);
	assert_int_equal(p.thresholds.db_read_avg_ns, 20 * MS);
	assert_int_equal(p.thresholds.db_read_max_ns, 100 * MS);
	assert_int_equal(p.thresholds.log_write_avg_ns, 10 * MS);
	assert_int_equal(p.thresholds.log_write_max_ns, 100 * MS);
	assert_int_equal(p.thresholds.io_errors, 0);
	assert_false(p.thresholds.lenient);
	assert_string_equal(p.engine, "io_uring");
	assert_int_equal(p.streams, 0);
	assert_int_equal(p.workers, 0);
	assert_true(p.direct);
	assert_int_equal(p.sim.read_latency_ns, 2 * MS);
	assert_int_equal(p.sim.write_latency_ns, 3 * MS);
	assert_int_equal(p.sim.log_write_latency_ns, 1 * MS);
	assert_true(p.sim.jitter_pct == 20.0);
	assert_int_equal(p.sim.saturation_iops, 0);
	assert_true(p.sim.error_rate_pct == 0.0);
	assert_true(p.sim.drop_write_rate_pct == 0.0);
	assert_int_equal(p.sim.seed, 1);
	assert_int_equal(p.nr_volumes, 1);
	assert_string_equal(p.volumes[0].name, "v1");
	assert_string_equal(p.volumes[0].path, "/d");
	assert_string_equal(p.volumes[0].log_path, "/d");
	assert_int_equal(p.volumes[0].databases, 1);
	assert_int_equal(p.volumes[0].line, 1);
	assert_string_equal(p.origin, "t.ini");
	assert_string_equal(p.text, text);
	assert_int_equal(profile_database_count(&p), 1);
	profile_release(&p);
	profile_release(&p); /* twice is fine */
}

/*
 * A recovery test replays 500 segments by default, as Jetstress replays 500
 * log files, and its log then defaults to one segment more, so the rule
 * "fewer segments replayed than the log holds" holds by default; a log given
 * explicitly is kept, and one too short is refused naming the keys.
 */
static void test_recovery_defaults(void **state)
{
	struct profile p;

	expect_ok(&p, "[test]\ntype = recovery\n[volume v1]\npath = /d\n");
	assert_int_equal(p.recovery_segments, 500);
	assert_int_equal(p.log_segments, 501);
	assert_int_equal(p.log_size, 501ULL << 20);
	profile_release(&p);
	/* a smaller replay: the log follows it */
	expect_ok(&p, "[test]\ntype = recovery\nrecovery_segments = 3\n"
		      "[workload]\nlog_segment_size = 256KiB\n[volume v1]\npath = /d\n");
	assert_int_equal(p.log_segments, 4);
	assert_int_equal(p.log_size, 1ULL << 20);
	profile_release(&p);
	/* other test types keep the 64 segments */
	expect_ok(&p, "[test]\nrecovery_segments = 3\n[volume v1]\npath = /d\n");
	assert_int_equal(p.log_segments, 64);
	profile_release(&p);
	/* a log given is the log used */
	expect_ok(&p, "[test]\ntype = recovery\nrecovery_segments = 10\n"
		      "[workload]\nlog_segments = 64\n[volume v1]\npath = /d\n");
	assert_int_equal(p.log_segments, 64);
	profile_release(&p);
	expect_errors(
		"[test]\ntype = recovery\n[sizing]\nlog_size = 8MiB\n[volume v1]\npath = /d\n",
		"t.ini:2: [test] type: recovery_segments = 500 must be fewer than "
		"log_segments = 8 (the circular log would overwrite segments before "
		"their replay)");
}

static void test_every_key(void **state)
{
	struct profile p;

	expect_ok(&p, "; comment\n# another\n"
		      "[test]\nname = mine\ndescription = what it is ; inline comment\n"
		      "type = stress\nduration = 90m\nwarmup = 1m\n"
		      "[sizing]\ndatabase_size = 64MiB\nlog_size = 8MiB\ntarget_iops = 500\n"
		      "[workload]\nmodel = fixed\npage_size = 8KiB\nread_pct = "
		      "70%\nlog_record_size = 512B\n"
		      "seed = 42\nverify = off\n"
		      "[thresholds]\ndb_read_avg = 15ms\ndb_read_max = 150ms\n"
		      "log_write_avg = 5ms\nlog_write_max = 50ms\nio_errors = 3\n"
		      "[engine]\nname = sim\nstreams = 16\nworkers = 4\ndirect = no\n"
		      "[sim]\nread_latency = 1ms\nwrite_latency = 2ms\nlog_write_latency = 500us\n"
		      "jitter = 5\nsaturation_iops = 20000\nerror_rate = 0.5\n"
		      "drop_write_rate = 0.25%\nseed = 7\n"
		      "[volume a]\npath = /x/a\ndatabases = 3\nlog_path = /y/a\n"
		      "[volume b.2-c_d]\npath: /x/b\n");
	assert_string_equal(p.name, "mine");
	assert_string_equal(p.description, "what it is");
	assert_int_equal(p.type, PROFILE_TEST_STRESS);
	assert_int_equal(p.duration_ns, 90 * 60 * SEC);
	assert_int_equal(p.warmup_ns, 60 * SEC);
	assert_int_equal(p.database_size, 64ULL << 20);
	assert_int_equal(p.log_size, 8ULL << 20);
	assert_int_equal(p.target_iops, 500);
	assert_int_equal(p.page_size, 8192);
	assert_true(p.read_pct == 70.0);
	assert_int_equal(p.log_record_size, 512);
	assert_int_equal(p.seed, 42);
	assert_false(p.verify);
	assert_int_equal(p.thresholds.db_read_avg_ns, 15 * MS);
	assert_int_equal(p.thresholds.db_read_max_ns, 150 * MS);
	assert_int_equal(p.thresholds.log_write_avg_ns, 5 * MS);
	assert_int_equal(p.thresholds.log_write_max_ns, 50 * MS); /* explicit wins */
	assert_int_equal(p.thresholds.io_errors, 3);
	assert_true(p.thresholds.lenient);
	assert_string_equal(p.engine, "sim");
	assert_int_equal(p.streams, 16);
	assert_int_equal(p.workers, 4);
	assert_false(p.direct);
	assert_int_equal(p.sim.read_latency_ns, 1 * MS);
	assert_int_equal(p.sim.write_latency_ns, 2 * MS);
	assert_int_equal(p.sim.log_write_latency_ns, 500 * NSEC_PER_USEC);
	assert_true(p.sim.jitter_pct == 5.0);
	assert_int_equal(p.sim.saturation_iops, 20000);
	assert_true(p.sim.error_rate_pct == 0.5);
	assert_true(p.sim.drop_write_rate_pct == 0.25);
	assert_int_equal(p.sim.seed, 7);
	assert_int_equal(p.nr_volumes, 2);
	assert_string_equal(p.volumes[0].log_path, "/y/a");
	assert_int_equal(p.volumes[0].databases, 3);
	assert_string_equal(p.volumes[1].name, "b.2-c_d");
	assert_string_equal(p.volumes[1].path, "/x/b");
	assert_int_equal(p.volumes[1].line, 44);
	assert_int_equal(profile_database_count(&p), 4);
	/* streams unset: 2 per database, the one rule */
	assert_int_equal(profile_streams_default(profile_database_count(&p)), 8);
	profile_release(&p);
}

static void test_lenient(void **state)
{
	struct profile p;

	/* stress: 24 h and 200 ms maxima by default */
	expect_ok(&p, "[test]\ntype = stress\n" VOL);
	assert_int_equal(p.duration_ns, 24 * 3600 * SEC);
	assert_true(p.thresholds.lenient);
	assert_int_equal(p.thresholds.db_read_max_ns, 200 * MS);
	assert_int_equal(p.thresholds.log_write_max_ns, 200 * MS);
	assert_int_equal(p.thresholds.db_read_avg_ns, 20 * MS); /* averages stay */
	profile_release(&p);

	/* explicit values win */
	expect_ok(&p, "[test]\ntype = stress\n[thresholds]\ndb_read_max = 120ms\n" VOL);
	assert_int_equal(p.thresholds.db_read_max_ns, 120 * MS);
	assert_int_equal(p.thresholds.log_write_max_ns, 200 * MS);
	profile_release(&p);

	/* a performance run over 6 h is lenient; 6 h exactly is not */
	expect_ok(&p, "[test]\nduration = 7h\n" VOL);
	assert_true(p.thresholds.lenient);
	assert_int_equal(p.thresholds.db_read_max_ns, 200 * MS);
	profile_release(&p);
	expect_ok(&p, "[test]\nduration = 6h\n" VOL);
	assert_false(p.thresholds.lenient);
	assert_int_equal(p.thresholds.db_read_max_ns, 100 * MS);
	profile_release(&p);
}

static void test_unknown_section(void **state)
{
	/* its keys are not reported one by one */
	expect_errors("[thresold]\ndb_read_avg = 5ms\n" VOL,
		      "t.ini:1: [thresold]: unknown section; did you mean [thresholds]?");
	expect_errors(VOL "[volumes v2]\npath = /e\n",
		      "t.ini:3: [volumes v2]: unknown section; did you mean [volume v2]?");
	expect_errors(VOL "\n[frobnicate]\n",
		      "t.ini:4: [frobnicate]: unknown section; the sections are [test], [sizing], "
		      "[workload], [thresholds], [engine], [sim], [sim NAME], [sim-log NAME] "
		      "and [volume NAME]");
	expect_errors(VOL "[test extra]\n",
		      "t.ini:3: [test extra]: [test] takes no name; only [volume NAME], [sim NAME] "
		      "and [sim-log NAME] do");
	expect_errors(VOL "[test\n",
		      "t.ini:3: expected ']' at the end of the section header \"[test\"");
	expect_errors(VOL "[]\n", "t.ini:3: empty section name \"[]\"");
	expect_errors(VOL "[test] x\n", "t.ini:3: [test]: unexpected text after ']': \"x\"");
}

/* [sim NAME] and [sim-log NAME]: what each device's model inherits, and
 * where the key lines are kept (profile.h) */
static void test_sim_sections(void **state)
{
	struct profile p;
	size_t n, rl, lw, ji;
	const struct profile_key *keys = profile_keys(&n);

	rl = (size_t)(profile_key_find("sim", "read_latency") - keys);
	lw = (size_t)(profile_key_find("sim", "log_write_latency") - keys);
	ji = (size_t)(profile_key_find("sim", "jitter") - keys);
	/* the named sections before the volumes and before [sim] */
	expect_ok(&p, "[sim-log a]\n"		    /* 1 */
		      "log_write_latency = 400us\n" /* 2 */
		      "[sim a]\n"		    /* 3 */
		      "read_latency = 9ms\n"	    /* 4 */
		      "[sim]\n"			    /* 5 */
		      "read_latency = 5ms\n"	    /* 6 */
		      "jitter = 10\n"		    /* 7 */
		      "stall_period = 10s\n"	    /* 8 */
		      "stall_length = 1s\n"	    /* 9 */
		      "stall_latency = 2ms\n"	    /* 10 */
		      "transfer_rate = 150MB\n"	    /* 11 */
		      "[volume a]\npath = /a\nlog_path = /l\n"
		      "[volume b]\npath = /b\nlog_path = /l\n"
		      "[volume c]\npath = /c\n");
	assert_int_equal(p.sim.transfer_rate, 150000000);
	assert_int_equal(p.sim.stall_period_ns, 10 * SEC);
	/* a: [sim a] over [sim]; its log device [sim-log a] over [sim], not [sim a] */
	assert_int_equal(p.volumes[0].sim.read_latency_ns, 9 * MS);
	assert_true(p.volumes[0].sim.jitter_pct == 10.0);
	assert_int_equal(p.volumes[0].sim.log_write_latency_ns, 1 * MS);
	assert_int_equal(p.volumes[0].sim.stall_latency_ns, 2 * MS);
	assert_true(p.volumes[0].sim_log_own);
	assert_int_equal(p.volumes[0].sim_log.read_latency_ns, 5 * MS);
	assert_int_equal(p.volumes[0].sim_log.log_write_latency_ns, 400 * NSEC_PER_USEC);
	assert_int_equal(p.volumes[0].sim_log.transfer_rate, 150000000);
	assert_int_equal(p.volumes[0].sim_line, 3);
	assert_int_equal(p.volumes[0].sim_key_lines[rl], 4);
	assert_int_equal(p.volumes[0].sim_key_lines[ji], 0);
	assert_int_equal(p.volumes[0].sim_log_line, 1);
	assert_int_equal(p.volumes[0].sim_log_key_lines[lw], 2);
	assert_string_equal(p.volumes[0].sim_log_from, "a");
	/* b shares a's log path, so its log device is [sim-log a]'s */
	assert_int_equal(p.volumes[1].sim.read_latency_ns, 5 * MS);
	assert_null(p.volumes[1].sim_key_lines);
	assert_int_equal(p.volumes[1].sim_line, 0);
	assert_int_equal(p.volumes[1].sim_log.log_write_latency_ns, 400 * NSEC_PER_USEC);
	assert_int_equal(p.volumes[1].sim_log_line, 1);
	assert_int_equal(p.volumes[1].sim_log_key_lines[lw], 2);
	assert_string_equal(p.volumes[1].sim_log_from, "a");
	/* c keeps its logs on its data device */
	assert_false(p.volumes[2].sim_log_own);
	assert_int_equal(p.volumes[2].sim_log_line, 0);
	assert_null(p.volumes[2].sim_log_key_lines);
	assert_string_equal(p.volumes[2].sim_log_from, "");
	profile_release(&p);

	/* two sharing volumes with the same [sim-log] keys agree */
	expect_ok(&p, "[volume a]\npath = /a\nlog_path = /l\n"
		      "[volume b]\npath = /b\nlog_path = /l\n"
		      "[sim-log a]\nlog_write_latency = 2ms\n"
		      "[sim-log b]\nlog_write_latency = 2ms\n");
	assert_int_equal(p.volumes[1].sim_log.log_write_latency_ns, 2 * MS);
	assert_string_equal(p.volumes[1].sim_log_from, "b");
	profile_release(&p);
	/* a named section switches [sim]'s stall off with all three at 0 */
	expect_ok(&p, "[sim]\nstall_period = 10s\nstall_length = 1s\nstall_latency = 2ms\n"
		      "[sim v1]\nstall_period = 0s\nstall_length = 0s\nstall_latency = 0s\n" VOL);
	assert_int_equal(p.volumes[0].sim.stall_period_ns, 0);
	profile_release(&p);
}

static void test_sim_section_errors(void **state)
{
	expect_errors(VOL "[sim v2]\njitter = 1\n",
		      "t.ini:3: [sim v2]: no [volume v2] in this profile (the volumes are v1)");
	expect_errors("[sim-log v3]\n" VOL,
		      "t.ini:1: [sim-log v3]: no [volume v3] in this profile (the volumes are v1)");
	expect_errors(VOL "[sim v1]\njitter = 1\n[sim v1]\njitter = 2\n",
		      "t.ini:5: [sim v1]: duplicate section; first defined on line 3");
	expect_errors(VOL "[sim v1]\nseed = 4\n",
		      "t.ini:4: [sim v1] seed: is set in [sim] only: every simulated device "
		      "draws from one seed");
	expect_errors(VOL "[sim-log]\n",
		      "t.ini:3: [sim-log]: missing the volume name; write [sim-log NAME] (NAME as "
		      "in [volume NAME])");
	expect_errors(VOL "[sim v1]\njiter = 1\n",
		      "t.ini:4: [sim v1] jiter: unknown key; did you mean jitter?");
	expect_errors(VOL "[sim v1]\njitter = 200\n",
		      "t.ini:4: [sim v1] jitter: percentage \"200\" is over 100");
	expect_errors(VOL "[sim-log v1]\nlog_write_latency = 2ms\n",
		      "t.ini:3: [sim-log v1]: volume v1 keeps its logs on its data device "
		      "(log_path is unset or equal to path), which [sim v1] sets; give log_path "
		      "a directory of its own or remove this section");
	expect_errors("[volume a]\npath = /a\nlog_path = /l\n"
		      "[volume b]\npath = /b\nlog_path = /l\n"
		      "[sim-log b]\nlog_write_latency = 2ms\n"
		      "[sim-log a]\nlog_write_latency = 3ms\n",
		      "t.ini:9: [sim-log a]: volumes a and b share log_path /l (one simulated log "
		      "device), but [sim-log b] (line 7) sets it differently; give one of the two "
		      "sections, or the same keys in both");
	/* the stall rule, in [sim] and in a named section's model */
	expect_errors("[sim]\nstall_period = 10s\nstall_latency = 2ms\n" VOL,
		      "t.ini:2: [sim] stall_period: stall_period, stall_length and stall_latency "
		      "go together: give all three (a stall) or none (here stall_period is set, "
		      "stall_length is 0, stall_latency is set)");
	expect_errors("[sim]\nstall_period = 1s\nstall_length = 1s\nstall_latency = 2ms\n" VOL,
		      "t.ini:2: [sim] stall_period: stall_length must be shorter than "
		      "stall_period (a device that stalls all the time is a slower device: raise "
		      "its latencies instead)");
	expect_errors("[sim]\nstall_period = 10s\nstall_length = 1s\nstall_latency = 2ms\n" VOL
		      "[sim v1]\nstall_length = 20s\n",
		      "t.ini:8: [sim v1] stall_length: stall_length must be shorter than "
		      "stall_period (a device that stalls all the time is a slower device: raise "
		      "its latencies instead)");
	expect_errors(VOL "[sim v1]\nstall_latency = 1ms\n",
		      "t.ini:4: [sim v1] stall_latency: stall_period, stall_length and "
		      "stall_latency go together: give all three (a stall) or none (here "
		      "stall_period is 0, stall_length is 0, stall_latency is set)");
}

static void test_unknown_key(void **state)
{
	expect_errors("[workload]\nread_pc = 50\n" VOL,
		      "t.ini:2: [workload] read_pc: unknown key; did you mean read_pct?");
	expect_errors(
		"[workload]\nfrobnicate = 1\n" VOL,
		"t.ini:2: [workload] frobnicate: unknown key; the keys of [workload] are "
		"model, page_size, log_record_size, insert_pct, delete_pct, replace_pct, "
		"seek_pct, lazy_commit_pct, seek_pages, update_pages, flush_depth, dirty_pages, "
		"log_segments, log_segment_size, bdm, bdm_rate, bdm_io_size, copies, "
		"backup_io_size, arrival, rate, max_streams, read_pages, hot_size, hot_pct, "
		"cache_size, "
		"readahead_size, readahead_pct, checkpoint_interval, checkpoint_log_size, "
		"checkpoint_target, writeback_interval, writeback_age, writeback_hot, write_merge, "
		"full_page_writes, log_page_size, log_sync, commit_group, commit_delay, "
		"doublewrite, "
		"doublewrite_size, data_flush, data_flush_rate, data_flush_count, "
		"cleaner_interval, "
		"cleaner_pages, cleaner_spread, "
		"block_size, "
		"read_pct, pattern, "
		"seed, verify");
	expect_errors("[sizing]\npage_size = 4KiB\n" VOL,
		      "t.ini:2: [sizing] page_size: unknown key here; page_size belongs in "
		      "[workload]");
	expect_errors(VOL "pat = /e\n",
		      "t.ini:3: [volume v1] pat: unknown key; did you mean path?");
	expect_errors("[engine]\nnam = sim\n" VOL,
		      "t.ini:2: [engine] nam: unknown key; did you mean name?");
	expect_errors("duration = 1h\n" VOL, "t.ini:1: duration: key outside any section; put "
					     "it under a header such as [test]");
}

static void test_bad_values(void **state)
{
	expect_errors("[test]\nduration = 5x\n" VOL,
		      "t.ini:2: [test] duration: bad duration \"5x\": expected a number followed "
		      "by ms, s, m, h or d");
	expect_errors("[engine]\nstreams = -3\n" VOL,
		      "t.ini:2: [engine] streams: bad number \"-3\": negative numbers are not "
		      "allowed");
	expect_errors(VOL "databases = 5000\n",
		      "t.ini:3: [volume v1] databases: 5000 is out of range: expected 1 to 1000");
	expect_errors("[sizing]\ndatabase_size = 99999999999999999999GiB\n" VOL,
		      "t.ini:2: [sizing] database_size: size \"99999999999999999999GiB\" is too "
		      "large (the most is 16 EiB - 1 byte)");
	expect_errors("[test]\nwarmup =\n" VOL,
		      "t.ini:2: [test] warmup: empty value; expected a duration such as 30s, "
		      "500ms or 2h");
	expect_errors("[test]\ntype = benchmark\n" VOL,
		      "t.ini:2: [test] type: \"benchmark\" is not one of performance, stress, "
		      "backup, recovery or durability");
	expect_errors("[engine]\nname = iouring\n" VOL,
		      "t.ini:2: [engine] name: \"iouring\" is not one of io_uring, libaio, psync "
		      "or sim; did you "
		      "mean io_uring?");
	expect_errors(
		"[engine]\nname =\n" VOL,
		"t.ini:2: [engine] name: empty value; expected io_uring, libaio, psync or sim");
	expect_errors("[engine]\nstreams = 0\n" VOL,
		      "t.ini:2: [engine] streams: 0 is out of range: expected 1 to 100000");
	expect_errors("[workload]\npage_size = 48KiB\n" VOL,
		      "t.ini:2: [workload] page_size: 48KiB is not a power of two");
	expect_errors("[workload]\npage_size = 2MiB\n" VOL,
		      "t.ini:2: [workload] page_size: 2MiB is too large: the largest accepted is "
		      "1 MiB");
	expect_errors("[sizing]\nlog_size = 1000\n" VOL,
		      "t.ini:2: [sizing] log_size: 1000 is too small: the smallest accepted is "
		      "64 KiB");
	expect_errors("[sizing]\nlog_size = 1025KiB\n" VOL,
		      "t.ini:2: [sizing] log_size: 1025KiB is not a multiple of 4 KiB");
	expect_errors("[sizing]\ndatabase_size = 17TiB\n" VOL,
		      "t.ini:2: [sizing] database_size: 17TiB is too large: the largest accepted "
		      "is 16 TiB");
	expect_errors("[test]\nduration = 500ms\n" VOL,
		      "t.ini:2: [test] duration: 500ms is too short: the shortest accepted is 1s");
	expect_errors("[test]\nduration = 31d\n" VOL,
		      "t.ini:2: [test] duration: 31d is too long: the longest accepted is 30d");
	expect_errors("[thresholds]\ndb_read_avg = 0\n" VOL,
		      "t.ini:2: [thresholds] db_read_avg: 0: must be greater than 0");
	expect_errors("[workload]\nmodel = fixed\nread_pct = 101\n" VOL,
		      "t.ini:3: [workload] read_pct: percentage \"101\" is over 100");
	expect_errors("[workload]\ndoublewrite = on\ndata_flush_count = 4\n" VOL,
		      "t.ini:3: [workload] data_flush_count: needs data_flush = per_batch");
	expect_errors("[workload]\ndata_flush = per_batch\ndata_flush_count = 65\n" VOL,
		      "t.ini:3: [workload] data_flush_count: 65 is out of range: expected 1 to 64");
	expect_errors("[workload]\ncleaner_spread = on\n" VOL,
		      "t.ini:2: [workload] cleaner_spread: needs cleaner_interval");
	expect_errors("[workload]\nlog_sync = fsync\n" VOL,
		      "t.ini:2: [workload] log_sync: \"fsync\" is not one of write_through or "
		      "fdatasync");
	expect_errors("[workload]\nmodel = fixed\nlog_sync = fdatasync\n" VOL,
		      "t.ini:3: [workload] log_sync: applies to the jetstress model only (model = "
		      "fixed has no transactions, cache, log or checkpoints)");
	expect_errors("[workload]\nread_pct = 50\n" VOL,
		      "t.ini:2: [workload] read_pct: applies to model = fixed only (the jetstress "
		      "model's reads and writes follow from its transaction mix); add model = "
		      "fixed or remove the key");
	expect_errors("[workload]\nseek_pct = 30\n" VOL,
		      "t.ini:2: [workload] insert_pct: insert_pct + delete_pct + replace_pct + "
		      "seek_pct = 95, not 100");
	expect_errors("[workload]\narrival = rate\n" VOL,
		      "t.ini:2: [workload] arrival: rate needs a rate (transactions per second) "
		      "greater than 0");
	expect_errors("[workload]\nrate = 1e3\n" VOL,
		      "t.ini:2: [workload] rate: \"1e3\" is not a number; expected a number such "
		      "as 1.5");
	expect_errors("[sizing]\nlog_size = 3MiB\n[workload]\nlog_segments = 4\n" VOL,
		      "t.ini:2: [sizing] log_size: 3145728 bytes is not log_segments x "
		      "log_segment_size (4 x 1048576); give one of log_size and log_segments");
	expect_errors("[workload]\nbdm_io_size = 48KiB\n" VOL,
		      "t.ini:2: [workload] bdm_io_size: 49152 bytes is not a whole number of pages "
		      "(page_size = 32768)");
	expect_errors("[workload]\nverify = maybe\n" VOL,
		      "t.ini:2: [workload] verify: bad boolean \"maybe\": expected on/off, "
		      "true/false, yes/no or 1/0");
	expect_errors("[test]\nname =\n" VOL,
		      "t.ini:2: [test] name: empty value; expected some text");
}

/*
 * [test] repeat: the runs of the series run makes of the profile (1..1000,
 * default 1); out of range is a FILE:LINE error; run --repeat N overrides it
 * and the effective parameters say so ("option").
 */
static void test_repeat(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct profile_param *v;
	struct profile p;
	size_t n, i;

	expect_errors("[test]\nrepeat = 0\n" VOL,
		      "t.ini:2: [test] repeat: 0 is out of range: expected 1 to 1000");
	expect_errors("[test]\nduration = 1m\nrepeat = 1001\n" VOL,
		      "t.ini:3: [test] repeat: 1001 is out of range: expected 1 to 1000");
	expect_errors(
		"[test]\nrepeat = three\n" VOL,
		"t.ini:2: [test] repeat: bad number \"three\": expected a whole number such as 42");
	expect_ok(&p, "[test]\nrepeat = 3\n" VOL);
	assert_int_equal(p.repeat, 3);
	assert_int_equal(profile_apply_overrides(&p, &(struct profile_overrides){0}, &err), 0);
	assert_int_equal(p.repeat, 3); /* no --repeat: the profile's */
	assert_int_equal(profile_params(&p, &v, &n), 0);
	for (i = 0; i < n && strcmp(v[i].key, "repeat"); i++)
		;
	assert_true(i < n);
	assert_string_equal(v[i].value, "3");
	assert_int_equal(v[i].source, PROFILE_PARAM_PROFILE);
	profile_params_release(v, n);
	assert_int_equal(
		profile_apply_overrides(&p, &(struct profile_overrides){.repeat = 1}, &err), 0);
	assert_int_equal(p.repeat, 1);
	assert_int_equal(profile_params(&p, &v, &n), 0);
	for (i = 0; i < n && strcmp(v[i].key, "repeat"); i++)
		;
	assert_true(i < n);
	assert_string_equal(v[i].value, "1");
	assert_int_equal(v[i].source, PROFILE_PARAM_OPTION);
	profile_params_release(v, n);
	profile_release(&p);
	strbuf_release(&err);
}

static void test_cross_checks(void **state)
{
	expect_errors("[test]\nduration = 5m\nwarmup = 10m\n" VOL,
		      "t.ini:3: [test] warmup: 10m is longer than the duration (5m)");
	expect_errors("[sizing]\ndatabase_size = 100000\n" VOL,
		      "t.ini:2: [sizing] database_size: 97.7 KiB is not a multiple of the page "
		      "size (32 KiB)");
	expect_errors("[sizing]\ndatabase_size = 16KiB\n" VOL,
		      "t.ini:2: [sizing] database_size: 16 KiB is smaller than one page "
		      "(page_size = 32 KiB)");
	/* a bad duration does not also make the warm-up look wrong */
	expect_errors("[test]\nduration = 5x\nwarmup = 3h\n" VOL,
		      "t.ini:2: [test] duration: bad duration \"5x\": expected a number followed "
		      "by ms, s, m, h or d");
}

static void test_volumes(void **state)
{
	expect_errors("[test]\nduration = 1h\n",
		      "t.ini:2: no [volume NAME] section: a profile needs at least one volume");
	expect_errors("", "t.ini:1: no [volume NAME] section: a profile needs at least one volume");
	expect_errors("[volume a]\npath = /x\n[volume a]\npath = /y\n",
		      "t.ini:3: [volume a]: duplicate volume name; first defined on line 1");
	expect_errors("[volume vol1]\ndatabases = 2\n",
		      "t.ini:1: [volume vol1] path: missing (every volume needs a path)");
	expect_errors(VOL "[volume empty]\n",
		      "t.ini:3: [volume empty] path: missing (every volume needs a path)");
	expect_errors("[volume my vol]\npath = /x\n",
		      "t.ini:1: [volume my vol]: bad volume name \"my vol\": use 1 to 63 letters, "
		      "digits, '_', '.' or '-' (not \".\" or \"..\")");
	expect_errors("[volume ..]\npath = /x\n",
		      "t.ini:1: [volume ..]: bad volume name \"..\": use 1 to 63 letters, digits, "
		      "'_', '.' or '-' (not \".\" or \"..\")");
	expect_errors("[volume]\npath = /x\n",
		      "t.ini:1: [volume]: missing the volume name; write [volume NAME]\n"
		      "t.ini:2: no [volume NAME] section: a profile needs at least one volume");
}

static void test_volume_name_lengths(void **state)
{
	char text[256];
	struct profile p;

	/* 63 characters: the longest name (PROFILE_MAX_NAME - 1) */
	snprintf(text, sizeof(text), "[volume %063d]\npath = /x\n", 7);
	expect_ok(&p, text);
	assert_int_equal(strlen(p.volumes[0].name), 63);
	profile_release(&p);
	snprintf(text, sizeof(text), "[volume %064d]\npath = /x\n", 7);
	{
		struct strbuf err = STRBUF_INIT;

		assert_int_equal(parse(&p, text, &err), -EINVAL);
		assert_non_null(strstr(err.buf, "t.ini:1: [volume 0000"));
		assert_non_null(strstr(err.buf, "bad volume name"));
		strbuf_release(&err);
	}
}

static void test_duplicate_key(void **state)
{
	struct profile p;

	expect_errors("[test]\nduration = 1h\nduration = 2h\n" VOL,
		      "t.ini:3: [test] duration: duplicate key; first set on line 2");
	/* a repeated section header merges keys, duplicates still count */
	expect_ok(&p, "[test]\nduration = 1h\n" VOL "[test]\nwarmup = 1m\n");
	assert_int_equal(p.duration_ns, 3600 * SEC);
	assert_int_equal(p.warmup_ns, 60 * SEC);
	profile_release(&p);
	expect_errors("[test]\nduration = 1h\n" VOL "[test]\nduration = 2h\n",
		      "t.ini:6: [test] duration: duplicate key; first set on line 2");
	/* the same key in two volumes is not a duplicate */
	expect_ok(&p, "[volume a]\npath = /a\n[volume b]\npath = /b\n");
	profile_release(&p);
	expect_errors("[volume a]\npath = /a\npath = /b\n",
		      "t.ini:3: [volume a] path: duplicate key; first set on line 2");
}

static void test_garbage_lines(void **state)
{
	expect_errors(VOL "just some words\n",
		      "t.ini:3: [volume v1]: expected `key = value` or `[section]`, not \"just "
		      "some words\"");
	expect_errors("hello\n" VOL,
		      "t.ini:1: expected `key = value` or `[section]`, not \"hello\"");
	/* an inline comment before the '=' leaves no separator, as inih sees it */
	expect_errors(VOL "key ; = value\n",
		      "t.ini:3: [volume v1]: expected `key = value` or `[section]`, not \"key ; = "
		      "value\"");
	expect_errors(VOL "= value\n", "t.ini:3: [volume v1]: no key name before the '='");
}

/* A path longer than inih's 200-byte line is read whole, like a short one. */
static void test_long_line(void **state)
{
	struct strbuf text = STRBUF_INIT, path = STRBUF_INIT;
	struct profile p;

	strbuf_addstr(&path, "/data");
	while (path.len < 293)
		strbuf_addstr(&path, "/abcdefgh");
	strbuf_addf(&text, "[volume v1]\npath = %s\nlog_path = %s/log ; inline comment\n", path.buf,
		    path.buf);
	assert_true(strlen("path = ") + path.len >= 300);
	expect_ok(&p, text.buf);
	assert_string_equal(p.volumes[0].path, path.buf);
	strbuf_addstr(&path, "/log");
	assert_string_equal(p.volumes[0].log_path, path.buf);
	profile_release(&p);

	/* around inih's 200-byte buffer: every length reads whole */
	for (size_t want = 190; want <= 210; want++) {
		strbuf_reset(&text);
		strbuf_reset(&path);
		strbuf_addch(&path, '/');
		while (strlen("path = ") + path.len < want)
			strbuf_addch(&path, 'a' + (char)(path.len % 26));
		strbuf_addf(&text, "[volume v1]\npath = %s\n", path.buf);
		expect_ok(&p, text.buf);
		assert_string_equal(p.volumes[0].path, path.buf);
		profile_release(&p);
	}

	/* exactly PROFILE_MAX_LINE characters is accepted (a description: a
	 * path that long leaves no room for the files derived from it) */
	strbuf_reset(&text);
	strbuf_addstr(&text, VOL "[test]\ndescription = ");
	while (text.len - strlen(VOL "[test]\n") < PROFILE_MAX_LINE)
		strbuf_addch(&text, 'x');
	strbuf_addstr(&text, "\r\n");
	expect_ok(&p, text.buf);
	assert_int_equal(strlen(p.description), PROFILE_MAX_LINE - strlen("description = "));
	profile_release(&p);

	/* errors on a long line name it like any other */
	strbuf_reset(&text);
	strbuf_addstr(&text, VOL "[engine]\nstreams = ");
	while (text.len < 400)
		strbuf_addch(&text, '9');
	{
		struct strbuf err = STRBUF_INIT;

		assert_int_equal(parse(&p, text.buf, &err), -EINVAL);
		assert_non_null(strstr(err.buf, "t.ini:4: [engine] streams: number \"999"));
		strbuf_release(&err);
	}
	strbuf_release(&text);
	strbuf_release(&path);
}

static void test_too_long_line(void **state)
{
	struct strbuf text = STRBUF_INIT;

	strbuf_addstr(&text, VOL "path2 = ");
	while (text.len - strlen(VOL) < 5000)
		strbuf_addch(&text, 'y');
	strbuf_addstr(&text, "\n[test]\nduration = 5x\n");
	expect_errors(text.buf, "t.ini:3: line is 5000 characters long; the longest accepted is "
				"4096\n"
				"t.ini:5: [test] duration: bad duration \"5x\": expected a number "
				"followed by ms, s, m, h or d");
	strbuf_release(&text);
}

static void test_binary(void **state)
{
	static const char nul_text[] = "[volume v1]\npath = /a\n[test]\nname = a\0b\n";
	struct strbuf err = STRBUF_INIT;
	unsigned char junk[8192];
	uint32_t x = 2463534242u;
	struct profile p;
	size_t i;

	assert_int_equal(profile_parse(&p, "t.ini", nul_text, sizeof(nul_text) - 1, &err), -EINVAL);
	assert_string_equal(err.buf, "t.ini:4: line holds binary data (byte 0x00 at column 9): a "
				     "profile is a text file");
	strbuf_reset(&err);

	assert_int_equal(parse(&p, VOL "name = caf\xe9\n", &err), -EINVAL);
	assert_string_equal(err.buf, "t.ini:3: line is not UTF-8 text (byte 0xe9 at column 11): a "
				     "profile is a text file");
	strbuf_reset(&err);

	/* random bytes: errors, capped, and no crash (xorshift32, fixed seed) */
	for (i = 0; i < sizeof(junk); i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		junk[i] = (unsigned char)x;
	}
	assert_int_equal(profile_parse(&p, "junk.bin", (const char *)junk, sizeof(junk), &err),
			 -EINVAL);
	assert_true(!strncmp(err.buf, "junk.bin:1: ", 12));
	assert_null(p.volumes);
	strbuf_release(&err);

	/* valid UTF-8 is fine */
	expect_ok(&p, "[test]\ndescription = caf\xc3\xa9 \xe2\x82\xac\n" VOL);
	assert_string_equal(p.description, "caf\xc3\xa9 \xe2\x82\xac");
	profile_release(&p);
}

static void test_many_errors_in_order(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct profile p;
	char *line, *save;
	unsigned last = 0, n = 0, ln;

	assert_int_equal(parse(&p,
			       "[volume a]\n"		  /* 1: missing path (reported at 1) */
			       "databases = 0\n"	  /* 2 */
			       "[test]\n"		  /* 3 */
			       "warmup = 2q\n"		  /* 4 */
			       "colour = blue\n"	  /* 5 */
			       "[thresold]\n"		  /* 6 */
			       "[workload]\n"		  /* 7 */
			       "flush_depth = 0\n"	  /* 8 */
			       "flush_depth = 2\n"	  /* 9 */
			       "[volume a]\npath = /x\n", /* 10: duplicate */
			       &err),
			 -EINVAL);
	for (line = strtok_r(err.buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		assert_true(!strncmp(line, "t.ini:", 6));
		ln = (unsigned)strtoul(line + 6, NULL, 10);
		assert_true(ln >= last);
		last = ln;
		n++;
	}
	assert_int_equal(n, 8);
	strbuf_release(&err);
}

static void test_many_errors_capped(void **state)
{
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	struct profile p;
	unsigned i, lines = 0;

	strbuf_addstr(&text, VOL);
	for (i = 0; i < 150; i++)
		strbuf_addf(&text, "bad line %u\n", i);
	assert_int_equal(parse(&p, text.buf, &err), -EINVAL);
	for (i = 0; i < err.len; i++)
		lines += err.buf[i] == '\n';
	assert_int_equal(lines + 1, 101);
	assert_non_null(strstr(err.buf, "\nt.ini: 50 more errors not shown"));
	strbuf_release(&text);
	strbuf_release(&err);
}

static void test_bom_crlf(void **state)
{
	struct profile p;

	expect_ok(&p, "\xef\xbb\xbf[test]\r\nduration = 1h\r\n\r\n; c\r\n"
		      "[volume v1]\r\npath = /d\r\n  databases = 2  \r\n");
	assert_int_equal(p.duration_ns, 3600 * SEC);
	assert_string_equal(p.volumes[0].path, "/d");
	assert_int_equal(p.volumes[0].databases, 2);
	assert_int_equal(p.volumes[0].line, 5);
	profile_release(&p);
	/* no newline at the end, and tabs around */
	expect_ok(&p, "[volume v1]\n\tpath\t=\t/d\t");
	assert_string_equal(p.volumes[0].path, "/d");
	profile_release(&p);
}

static void test_overrides_data_dir(void **state)
{
	struct profile_overrides o = {.data_dir = "/data/"};
	struct strbuf err = STRBUF_INIT;
	struct profile p;

	expect_ok(&p, "[volume vol1]\npath = /a\n"
		      "[volume vol2]\npath = /b\nlog_path = /c\n"
		      "[volume vol3]\npath = /e\nlog_path = /e\n");
	assert_int_equal(profile_apply_overrides(&p, &o, &err), 0);
	assert_string_equal(p.volumes[0].path, "/data/vol1");
	assert_string_equal(p.volumes[0].log_path, "/data/vol1");
	assert_string_equal(p.volumes[1].path, "/data/vol2");
	assert_string_equal(p.volumes[1].log_path, "/data/vol2-log");
	assert_string_equal(p.volumes[2].path, "/data/vol3");
	assert_string_equal(p.volumes[2].log_path, "/data/vol3");
	profile_release(&p);
	strbuf_release(&err);
}

static void test_overrides_checks(void **state)
{
	struct profile_overrides o = {.db_size = 1000};
	struct strbuf err = STRBUF_INIT;
	struct profile p;

	expect_ok(&p, "[test]\nwarmup = 2s\n[sizing]\ndatabase_size = 64MiB\n" VOL);
	assert_int_equal(profile_apply_overrides(&p, &o, &err), -EINVAL);
	assert_string_equal(err.buf,
			    "--db-size 1000: must be a multiple of the page size (32 KiB)");
	assert_int_equal(p.database_size, 64ULL << 20); /* unchanged */

	/* all errors at once, one per line, nothing applied */
	strbuf_reset(&err);
	o = (struct profile_overrides){.db_size = 16384,
				       .duration_ns = SEC,
				       .has_duration = true,
				       .engine = "simm",
				       .streams = 200000};
	assert_int_equal(profile_apply_overrides(&p, &o, &err), -EINVAL);
	assert_string_equal(
		err.buf, "--db-size 16KiB: must be a multiple of the page size (32 KiB)\n"
			 "--duration 1s: shorter than the profile's warm-up (2s); give --warmup "
			 "too\n"
			 "--engine simm: unknown engine; expected io_uring, libaio, psync or sim "
			 "(did you mean sim?)\n"
			 "--streams 200000: too many; the most is 100000");
	assert_string_equal(p.engine, "io_uring");

	strbuf_reset(&err);
	o = (struct profile_overrides){.warmup_ns = 3 * 3600 * SEC, .has_warmup = true};
	assert_int_equal(profile_apply_overrides(&p, &o, &err), -EINVAL);
	assert_string_equal(err.buf, "--warmup 3h: longer than the duration (2h)");

	strbuf_reset(&err);
	o = (struct profile_overrides){.duration_ns = 31ULL * 86400 * SEC, .has_duration = true};
	assert_int_equal(profile_apply_overrides(&p, &o, &err), -EINVAL);
	assert_string_equal(err.buf, "--duration 31d: too long; the longest is 30d");

	/* good ones apply */
	strbuf_reset(&err);
	o = (struct profile_overrides){.db_size = 128ULL << 20,
				       .duration_ns = 60 * SEC,
				       .has_duration = true,
				       .warmup_ns = 0,
				       .has_warmup = true,
				       .engine = "sim",
				       .streams = 3};
	assert_int_equal(profile_apply_overrides(&p, &o, &err), 0);
	assert_int_equal(p.database_size, 128ULL << 20);
	assert_int_equal(p.duration_ns, 60 * SEC);
	assert_int_equal(p.warmup_ns, 0);
	assert_string_equal(p.engine, "sim");
	assert_int_equal(p.streams, 3);
	profile_release(&p);
	strbuf_release(&err);
}

static void test_overrides_lenient(void **state)
{
	struct profile_overrides o = {.duration_ns = 8 * 3600 * SEC, .has_duration = true};
	struct strbuf err = STRBUF_INIT;
	struct profile p;

	expect_ok(&p, "[thresholds]\nlog_write_max = 100ms\n" VOL);
	assert_false(p.thresholds.lenient);
	assert_int_equal(profile_apply_overrides(&p, &o, &err), 0);
	assert_true(p.thresholds.lenient);
	assert_int_equal(p.thresholds.db_read_max_ns, 200 * MS);   /* default follows */
	assert_int_equal(p.thresholds.log_write_max_ns, 100 * MS); /* explicit stays */
	o.duration_ns = 30 * SEC;
	assert_int_equal(profile_apply_overrides(&p, &o, &err), 0);
	assert_false(p.thresholds.lenient);
	assert_int_equal(p.thresholds.db_read_max_ns, 100 * MS);
	profile_release(&p);
	strbuf_release(&err);
}

static void test_resolve(void **state)
{
	char dir[] = "/tmp/dp-test-profile-XXXXXX", cwd[PATH_MAX];
	struct strbuf err = STRBUF_INIT;
	struct profile p;
	FILE *f;

	assert_int_equal(profile_resolve(&p, NULL, &err), 0);
	assert_string_equal(p.name, "quick");
	assert_string_equal(p.origin, "builtin:quick");
	profile_release(&p);

	assert_int_equal(profile_resolve(&p, "sim-quick", &err), 0);
	assert_string_equal(p.engine, "sim");
	assert_string_equal(p.origin, "builtin:sim-quick");
	profile_release(&p);

	assert_int_equal(profile_resolve(&p, "quik", &err), -ENOENT);
	assert_true(!strncmp(err.buf,
			     "unknown profile \"quik\": did you mean quick? (built-in "
			     "profiles: ",
			     strlen("unknown profile \"quik\": did you mean quick? (built-in "
				    "profiles: ")));
	assert_non_null(strstr(err.buf, "quick"));
	assert_non_null(strstr(err.buf, "a profile file needs a '/' or the .ini suffix"));
	strbuf_reset(&err);

	assert_int_equal(profile_resolve(&p, "no-such-file.ini", &err), -ENOENT);
	assert_string_equal(err.buf,
			    "no-such-file.ini: cannot read profile: No such file or directory");
	strbuf_reset(&err);
	assert_int_equal(profile_resolve(&p, "./quick", &err), -ENOENT); /* '/' means a file */
	strbuf_reset(&err);

	/* an existing file is a file even without '/' or .ini, and wins over a built-in */
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_non_null(mkdtemp(dir));
	assert_int_equal(chdir(dir), 0);
	f = fopen("quick", "w");
	assert_non_null(f);
	fputs("[test]\ndescription = local\n[volume x]\npath = /x\n", f);
	fclose(f);
	assert_int_equal(profile_resolve(&p, "quick", &err), 0);
	assert_string_equal(p.origin, "quick");
	assert_string_equal(p.description, "local");
	assert_string_equal(p.name, "quick");
	profile_release(&p);
	f = fopen("mine.ini", "w");
	assert_non_null(f);
	fputs("[volume x]\npath = /x\n[test]\nduration = 5x\n", f);
	fclose(f);
	assert_int_equal(profile_resolve(&p, "mine.ini", &err), -EINVAL);
	assert_string_equal(err.buf, "mine.ini:4: [test] duration: bad duration \"5x\": expected "
				     "a number followed by ms, s, m, h or d");
	strbuf_reset(&err);
	assert_int_equal(profile_resolve(&p, dir, &err), -EISDIR);
	strbuf_reset(&err);
	unlink("quick");
	unlink("mine.ini");
	assert_int_equal(chdir(cwd), 0);
	assert_int_equal(rmdir(dir), 0);
	strbuf_release(&err);
}

static void test_load_file_limits(void **state)
{
	char path[] = "/tmp/dp-test-big-XXXXXX";
	struct strbuf err = STRBUF_INIT;
	struct profile p;
	int fd;

	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (16 << 20) + 1), 0); /* sparse */
	close(fd);
	assert_int_equal(profile_load_file(&p, path, &err), -EFBIG);
	assert_non_null(strstr(err.buf, "too large for a profile"));
	assert_true(!strncmp(err.buf, path, strlen(path)));
	unlink(path);
	strbuf_reset(&err);

	/* a good file: origin is the path, name its base name */
	memcpy(path + strlen(path) - 6, "XXXXXX", 6);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, VOL, strlen(VOL)), (ssize_t)strlen(VOL));
	close(fd);
	assert_int_equal(profile_load_file(&p, path, &err), 0);
	assert_string_equal(p.origin, path);
	assert_string_equal(p.text, VOL);
	assert_string_equal(p.name, strrchr(path, '/') + 1);
	profile_release(&p);
	unlink(path);
	strbuf_release(&err);
}

static void test_key_table(void **state)
{
	const struct profile_key *keys;
	struct strbuf err = STRBUF_INIT;
	size_t n, i;

	keys = profile_keys(&n);
	assert_true(n > 30);
	for (i = 0; i < n; i++) {
		if (profile_key_check(&keys[i], &err))
			fail_msg("%s", err.buf);
	}
	strbuf_release(&err);
}

/* docs/profiles.md documents every key of the table, in its section. */
static void test_key_table_docs(void **state)
{
	struct strbuf doc = STRBUF_INIT, want = STRBUF_INIT;
	const struct profile_key *keys;
	const char *sec, *next;
	char buf[4096];
	size_t n, i, r;
	FILE *f;

	f = fopen(DP_SOURCE_DIR "/docs/profiles.md", "r");
	assert_non_null(f);
	while ((r = fread(buf, 1, sizeof(buf), f)) > 0)
		strbuf_add(&doc, buf, r);
	fclose(f);
	keys = profile_keys(&n);
	for (i = 0; i < n; i++) {
		strbuf_reset(&want);
		if (!strcmp(keys[i].section, "volume"))
			strbuf_addstr(&want, "## [volume NAME]");
		else
			strbuf_addf(&want, "## [%s]", keys[i].section);
		sec = strstr(doc.buf, want.buf);
		if (!sec)
			fail_msg("docs/profiles.md has no \"%s\" heading", want.buf);
		next = strstr(sec + 1, "\n## ");
		strbuf_reset(&want);
		strbuf_addf(&want, "| `%s` |", keys[i].name);
		sec = strstr(sec, want.buf);
		if (!sec || (next && sec > next))
			fail_msg("docs/profiles.md: [%s] does not document %s", keys[i].section,
				 keys[i].name);
	}
	strbuf_release(&doc);
	strbuf_release(&want);
}

static void slurp(const char *path, struct strbuf *sb)
{
	char buf[4096];
	size_t r;
	FILE *f;

	f = fopen(path, "rb");
	if (!f)
		fail_msg("cannot open %s", path);
	while ((r = fread(buf, 1, sizeof(buf), f)) > 0)
		strbuf_add(sb, buf, r);
	fclose(f);
}

/*
 * tests/golden/bad-profiles: each X.ini is a bad profile, X.expected its
 * messages exactly (the origin is the file's base name). DP_UPDATE_GOLDEN=1
 * rewrites the .expected files: review the diff before keeping it.
 */
static void test_golden_bad_profiles(void **state)
{
	const char *dir = DP_SOURCE_DIR "/tests/golden/bad-profiles";
	struct strbuf path = STRBUF_INIT, text = STRBUF_INIT, want = STRBUF_INIT;
	struct strbuf err = STRBUF_INIT;
	bool update = getenv("DP_UPDATE_GOLDEN") != NULL;
	struct dirent *de;
	struct profile p;
	unsigned n = 0;
	DIR *d;

	d = opendir(dir);
	assert_non_null(d);
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (len < 5 || strcmp(de->d_name + len - 4, ".ini"))
			continue;
		strbuf_reset(&path);
		strbuf_reset(&text);
		strbuf_reset(&want);
		strbuf_reset(&err);
		strbuf_addf(&path, "%s/%s", dir, de->d_name);
		slurp(path.buf, &text);
		if (profile_parse(&p, de->d_name, text.buf, text.len, &err) != -EINVAL)
			fail_msg("%s: parsed without an error", de->d_name);
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%.*s.expected", dir, (int)(len - 4), de->d_name);
		if (update) {
			FILE *f = fopen(path.buf, "w");

			assert_non_null(f);
			fprintf(f, "%s\n", err.buf);
			fclose(f);
		}
		slurp(path.buf, &want);
		if (want.len && want.buf[want.len - 1] == '\n')
			want.buf[--want.len] = '\0';
		if (strcmp(err.buf, want.buf))
			fail_msg("%s: got\n%s\nwant\n%s", de->d_name, err.buf, want.buf);
		n++;
	}
	closedir(d);
	assert_true(n >= 5);
	strbuf_release(&path);
	strbuf_release(&text);
	strbuf_release(&want);
	strbuf_release(&err);
}

/*
 * The rules over several keys: every key a rule names is in the key table, a
 * minimal profile breaks none, and each rule broken by an option names the
 * option and the profile's key (the profile's own breaks are in
 * tests/golden/bad-profiles/rule-*.ini).
 */
/*
 * Auto-tune's time: the bound, window and slope window from the keys or
 * their defaults, and the rule that the bound holds one level, checked once
 * the options are applied (a file's short duration may be mended by
 * --duration), said at the file's key, or at the option that broke it.
 */
static void test_tune_bound(void **state)
{
	struct profile_overrides o = {0};
	struct strbuf err = STRBUF_INIT;
	struct profile p;

	(void)state;
	expect_ok(&p, "[test]\nduration = 2h\n[engine]\nstreams = auto\n" VOL);
	assert_int_equal(profile_tune_limit_ns(&p), 24 * 60 * SEC); /* a fifth */
	assert_int_equal(profile_tune_window_samples(&p), 30);	    /* 24 min / 24 = 60 s: 30 */
	assert_int_equal(profile_tune_slope_window(&p), 30);
	assert_int_equal(profile_tune_level_min_ns(&p), 60 * SEC);
	assert_int_equal(profile_apply_overrides(&p, &o, &err), 0);
	profile_release(&p);

	/* 30 s: a 6 s bound, a 2 s window and 5 samples: 7 s; the file is
	 * taken at parse, refused once the options are known */
	expect_ok(&p, "[test]\nduration = 30s\n[engine]\nstreams = auto\n" VOL);
	assert_int_equal(profile_tune_limit_ns(&p), 6 * SEC);
	assert_int_equal(profile_tune_level_min_ns(&p), 7 * SEC);
	assert_int_equal(profile_apply_overrides(&p, &o, &err), -EINVAL);
	assert_string_equal(err.buf,
			    "t.ini:2: [test] duration: auto-tune's time bound, 6s (a fifth of the "
			    "duration), cannot hold one level, which takes 7s (a 5-sample latency "
			    "slope window and a 2 s window): a duration of 35s or more holds one, "
			    "or set autotune_limit = 7s or more");
	/* mended by --duration 35s */
	strbuf_reset(&err);
	o = (struct profile_overrides){.duration_ns = 35 * SEC, .has_duration = true};
	assert_int_equal(profile_apply_overrides(&p, &o, &err), 0);
	/* broken by --duration 20s: the option is named */
	o.duration_ns = 20 * SEC;
	assert_int_equal(profile_apply_overrides(&p, &o, &err), -EINVAL);
	assert_non_null(strstr(err.buf, "--duration 20s: auto-tune's time bound, 4s"));
	assert_non_null(strstr(err.buf, "([engine] streams at t.ini:4)"));
	profile_release(&p);

	/* a fixed stream count tunes nothing */
	strbuf_reset(&err);
	expect_ok(&p, "[test]\nduration = 5s\n[engine]\nstreams = 4\n" VOL);
	o = (struct profile_overrides){0};
	assert_int_equal(profile_apply_overrides(&p, &o, &err), 0);
	profile_release(&p);

	/* autotune_limit and a long window set: named, and how to shorten it */
	expect_ok(&p,
		  "[engine]\nstreams = auto\nautotune_limit = 15s\nautotune_window = 10s\n" VOL);
	assert_int_equal(profile_tune_level_min_ns(&p), 20 * SEC);
	assert_int_equal(profile_apply_overrides(&p, &o, &err), -EINVAL);
	assert_string_equal(err.buf,
			    "t.ini:3: [engine] autotune_limit: auto-tune's time bound, 15s "
			    "(autotune_limit), cannot hold one level, which takes 20s (a 10-sample "
			    "latency slope window and a 10 s window): set autotune_limit = 20s or "
			    "more (or shorten autotune_window or autotune_slope_window)");
	profile_release(&p);
	strbuf_release(&err);
}

static void test_rules_table(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct profile p;
	size_t n;
	const struct profile_rule *r = profile_rules(&n);
	struct profile_overrides o;

	assert_true(n >= 5);
	expect_ok(&p, VOL);
	for (size_t i = 0; i < n; i++) {
		assert_non_null(r[i].keys[0].section);
		for (size_t k = 0; k < PROFILE_RULE_KEYS && r[i].keys[k].section; k++)
			if (!profile_key_find(r[i].keys[k].section, r[i].keys[k].name))
				fail_msg("rule \"%s\": no key [%s] %s", r[i].name,
					 r[i].keys[k].section, r[i].keys[k].name);
		strbuf_reset(&err);
		if (r[i].broken(&p, &err))
			fail_msg("rule \"%s\" broken by the defaults: %s", r[i].name, err.buf);
	}
	profile_release(&p);

	/* an option that breaks a rule is named, with the key it meets */
	expect_ok(&p, "[test]\ntype = recovery\n[engine]\nstreams = 3\n"
		      "[volume v1]\npath = /d\ndatabases = 2\n");
	o = (struct profile_overrides){.warmup_ns = 5 * NSEC_PER_SEC, .has_warmup = true};
	strbuf_reset(&err);
	assert_int_equal(profile_apply_overrides(&p, &o, &err), -EINVAL);
	assert_string_equal(err.buf, "--warmup 5s: a recovery test has no warm-up: it measures the "
				     "whole pass ([test] type at t.ini:2)");
	profile_release(&p);

	/* fewer streams than databases: the streams are a pool shared by all */
	expect_ok(&p, "[engine]\nstreams = 1\n[volume v1]\npath = /d\ndatabases = 4\n");
	o = (struct profile_overrides){.engine = "sim", .streams = 2};
	strbuf_reset(&err);
	assert_int_equal(profile_apply_overrides(&p, &o, &err), 0);
	assert_int_equal(p.streams, 2);
	profile_release(&p);

	/* recovery runs on the sim engine too (it replays record counts) */
	expect_ok(&p, "[test]\ntype = recovery\n[volume v1]\npath = /d\n");
	o = (struct profile_overrides){.engine = "sim"};
	strbuf_reset(&err);
	assert_int_equal(profile_apply_overrides(&p, &o, &err), 0);
	assert_string_equal(p.engine, "sim");
	profile_release(&p);

	/* --data-dir: the relocated paths are checked */
	expect_ok(&p, VOL);
	strbuf_reset(&err);
	strbuf_addch(&err, '/');
	while (err.len < PATH_MAX - 20)
		strbuf_addstr(&err, "abcdefgh/");
	{
		char *dir = strbuf_detach(&err, NULL);

		o = (struct profile_overrides){.data_dir = dir};
		assert_int_equal(profile_apply_overrides(&p, &o, &err), -EINVAL);
		assert_non_null(strstr(err.buf, "longer than PATH_MAX"));
		assert_true(!strncmp(err.buf, "--data-dir /abcdefgh/", 21));
		free(dir);
	}
	profile_release(&p);
	strbuf_release(&err);
}

static void test_misc(void **state)
{
	struct profile zero;

	memset(&zero, 0, sizeof(zero));
	profile_release(&zero);
	profile_release(&zero);
	profile_release(NULL);
	assert_string_equal(profile_test_type_name(PROFILE_TEST_PERFORMANCE), "performance");
	assert_string_equal(profile_test_type_name(PROFILE_TEST_STRESS), "stress");
	assert_non_null(profile_builtin_find("quick"));
	assert_null(profile_builtin_find("nope"));
	assert_null(profile_builtin_find(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_recovery_defaults),
		cmocka_unit_test(test_every_key),
		cmocka_unit_test(test_lenient),
		cmocka_unit_test(test_unknown_section),
		cmocka_unit_test(test_unknown_key),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_repeat),
		cmocka_unit_test(test_cross_checks),
		cmocka_unit_test(test_volumes),
		cmocka_unit_test(test_volume_name_lengths),
		cmocka_unit_test(test_duplicate_key),
		cmocka_unit_test(test_garbage_lines),
		cmocka_unit_test(test_long_line),
		cmocka_unit_test(test_too_long_line),
		cmocka_unit_test(test_binary),
		cmocka_unit_test(test_many_errors_in_order),
		cmocka_unit_test(test_many_errors_capped),
		cmocka_unit_test(test_bom_crlf),
		cmocka_unit_test(test_overrides_data_dir),
		cmocka_unit_test(test_overrides_checks),
		cmocka_unit_test(test_overrides_lenient),
		cmocka_unit_test(test_resolve),
		cmocka_unit_test(test_load_file_limits),
		cmocka_unit_test(test_key_table),
		cmocka_unit_test(test_key_table_docs),
		cmocka_unit_test(test_sim_sections),
		cmocka_unit_test(test_sim_section_errors),
		cmocka_unit_test(test_golden_bad_profiles),
		cmocka_unit_test(test_rules_table),
		cmocka_unit_test(test_tune_bound),
		cmocka_unit_test(test_misc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
