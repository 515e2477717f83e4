/* SPDX-License-Identifier: MIT */
/*
 * rules.c - the rules that tie several keys together, and the paths a
 * volume's files will have: the checks that make a profile runnable, done
 * where the profile is validated so that plan, check, init and run refuse it
 * alike, before anything is written.
 *
 * A rule is a const table entry: the keys it reads (each with the
 * command-line option that may set it) and one predicate that says whether a
 * profile breaks it, and why. parse.c reports a broken rule at the first of
 * its keys that the file sets ("FILE:LINE: [section] key: why");
 * profile_apply_overrides() runs the table again after the options and names
 * the option that broke it ("--warmup 10s: why ([test] type at FILE:LINE)").
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "profile_internal.h"

static bool transactional(const struct profile *p)
{
	return p->type != PROFILE_TEST_BACKUP && p->type != PROFILE_TEST_RECOVERY;
}

static bool no_warmup(const struct profile *p, struct strbuf *why)
{
	if (transactional(p) || !p->warmup_ns)
		return false;
	strbuf_addf(why, "a %s test has no warm-up: it measures the whole pass",
		    profile_test_type_name(p->type));
	return true;
}

static bool replay_fits_log(const struct profile *p, struct strbuf *why)
{
	if (p->type != PROFILE_TEST_RECOVERY || p->recovery_segments < p->log_segments)
		return false;
	strbuf_addf(why,
		    "recovery_segments = %llu must be fewer than log_segments = %u (the circular "
		    "log would overwrite segments before their replay)",
		    (unsigned long long)p->recovery_segments, p->log_segments);
	return true;
}

static bool auto_tunable(const struct profile *p, struct strbuf *why)
{
	if (p->streams != PROFILE_STREAMS_AUTO ||
	    (p->model == PROFILE_MODEL_JETSTRESS && transactional(p)))
		return false;
	strbuf_addstr(why, "streams = auto tunes the jetstress model's performance and stress "
			   "tests only, ");
	if (p->model == PROFILE_MODEL_FIXED)
		strbuf_addstr(why, "not the fixed model");
	else
		strbuf_addf(why, "not a %s test", profile_test_type_name(p->type));
	return true;
}

static bool fixed_transactional(const struct profile *p, struct strbuf *why)
{
	if (p->model != PROFILE_MODEL_FIXED || transactional(p))
		return false;
	strbuf_addf(why,
		    "model = fixed drives performance and stress tests only: a %s test %s (leave "
		    "model unset)",
		    profile_test_type_name(p->type),
		    p->type == PROFILE_TEST_BACKUP ? "reads every database sequentially"
						   : "replays the log the jetstress model writes");
	return true;
}

static bool goal_has_target(const struct profile *p, struct strbuf *why)
{
	if (p->streams != PROFILE_STREAMS_AUTO || p->tune_goal != PROFILE_TUNE_TARGET ||
	    p->target_iops)
		return false;
	strbuf_addstr(why, "autotune_goal = target needs a target: set [sizing] target_iops (or "
			   "size from mailboxes)");
	return true;
}

/* Levels of whole streams per database start at one per database: a cap
 * below that would be ignored (the first level is already over it). */
static bool tune_cap_fits_step(const struct profile *p, struct strbuf *why)
{
	unsigned ndb = 0;

	for (size_t i = 0; i < p->nr_volumes; i++)
		ndb += p->volumes[i].databases;
	if (p->streams != PROFILE_STREAMS_AUTO || p->tune_step != PROFILE_TUNE_STEP_DATABASE ||
	    !p->tune_max_streams || p->tune_max_streams >= ndb)
		return false;
	strbuf_addf(why,
		    "autotune_max_streams = %u is fewer than the %u databases: levels move in "
		    "whole streams per database (autotune_step = database), the first at one "
		    "each (raise it, or set autotune_step = stream)",
		    p->tune_max_streams, ndb);
	return true;
}

/* The shortest duration (with the default bound: a fifth of it) or
 * autotune_limit (by_limit) whose bound holds one level; 0 past a day. */
static uint64_t tune_least(const struct profile *p, bool by_limit)
{
	struct profile q = *p;

	for (uint64_t s = 1; s <= 86400; s++) {
		if (by_limit)
			q.tune_limit_ns = s * NSEC_PER_SEC;
		else
			q.duration_ns = 5 * s * NSEC_PER_SEC;
		if (profile_tune_level_min_ns(&q) <= profile_tune_limit_ns(&q))
			return by_limit ? q.tune_limit_ns : q.duration_ns;
	}
	return 0;
}

/* Auto-tune's time bound must hold one level (a slope window and a
 * window), or it would choose the first level untried, in 0 s. */
static bool tune_bound_holds_level(const struct profile *p, struct strbuf *why)
{
	uint64_t limit = profile_tune_limit_ns(p), need = profile_tune_level_min_ns(p);
	uint64_t least_d = tune_least(p, false), least_l = tune_least(p, true);

	if (p->streams != PROFILE_STREAMS_AUTO || need <= limit)
		return false;
	strbuf_addstr(why, "auto-tune's time bound, ");
	profile_format_duration_exact(why, limit);
	strbuf_addf(why, " (%s), cannot hold one level, which takes ",
		    p->tune_limit_ns ? "autotune_limit" : "a fifth of the duration");
	profile_format_duration_exact(why, need);
	strbuf_addf(why, " (a %u-sample latency slope window and a %u s window): ",
		    profile_tune_slope_window(p), profile_tune_window_samples(p));
	if (!p->tune_limit_ns && least_d) {
		strbuf_addstr(why, "a duration of ");
		profile_format_duration_exact(why, least_d);
		strbuf_addstr(why, " or more holds one, or set ");
	} else {
		strbuf_addstr(why, "set ");
	}
	strbuf_addstr(why, "autotune_limit = ");
	profile_format_duration_exact(why, least_l ? least_l : need);
	strbuf_addstr(why, " or more");
	if (p->tune_window_ns || p->tune_slope_window)
		strbuf_addstr(why, " (or shorten autotune_window or autotune_slope_window)");
	return true;
}

/* A response time is the open loop's: closed loop has none to judge (a
 * transaction starts when its stream is free: response is service). */
static bool response_open_loop(const struct profile *p, struct strbuf *why)
{
	if (p->thresholds.latency_basis != PROFILE_LATENCY_RESPONSE ||
	    p->arrival == PROFILE_ARRIVAL_RATE)
		return false;
	strbuf_addstr(why, "latency_basis = response judges an open loop's response time: it "
			   "needs arrival = rate (closed loop: response is service)");
	return true;
}

/* max_streams bounds an open loop's streams: arrival = rate, and no fewer
 * than the streams it starts with. */
static bool max_streams_open_loop(const struct profile *p, struct strbuf *why)
{
	unsigned streams =
		p->streams ? p->streams : profile_streams_default(profile_database_count(p));

	if (!p->max_streams)
		return false;
	if (p->arrival != PROFILE_ARRIVAL_RATE) {
		strbuf_addstr(why, "max_streams bounds the streams an open loop grows to: it "
				   "needs arrival = rate (closed loop keeps its streams)");
		return true;
	}
	if (p->streams == PROFILE_STREAMS_AUTO || p->max_streams >= streams)
		return false;
	strbuf_addf(why, "max_streams = %u is fewer than the %u streams the run starts with",
		    p->max_streams, streams);
	return true;
}

/* sqpoll and hipri are io_uring's set-up flags; polled completion also needs
 * O_DIRECT (the page cache is not polled). */
static bool uring_flags_engine(const struct profile *p, struct strbuf *why)
{
	const char *key = p->sqpoll ? "sqpoll" : "hipri";

	if ((!p->sqpoll && !p->hipri) || !strcmp(p->engine, "io_uring"))
		return false;
	strbuf_addf(why,
		    "%s = on is an io_uring set-up: it needs name = io_uring (the engine is %s)",
		    key, p->engine);
	return true;
}

static bool hipri_direct(const struct profile *p, struct strbuf *why)
{
	if (!p->hipri || p->direct)
		return false;
	strbuf_addstr(why, "hipri = on polls the device for completions: it needs direct = on "
			   "(reads and writes through the page cache are not polled)");
	return true;
}

/* A durability test sends every acknowledgement to a witness: without one
 * nothing could tell a lost acknowledged write from one never acknowledged. */
static bool durability_witness(const struct profile *p, struct strbuf *why)
{
	if (p->type != PROFILE_TEST_DURABILITY || (p->witness && *p->witness))
		return false;
	strbuf_addstr(why, "a durability test needs a witness: set [test] witness = FILE (on "
			   "another device) or HOST:PORT, or give --witness SPEC");
	return true;
}

/* {name, keys, broken, after_options}, as in struct profile_rule */
static const struct profile_rule rules[] = {
	{"backup and recovery take no warm-up",
	 {{"test", "warmup", "--warmup"}, {"test", "type", NULL}},
	 no_warmup,
	 false},
	{"recovery replays fewer segments than the log holds",
	 {{"test", "recovery_segments", NULL},
	  {"test", "type", NULL},
	  {"workload", "log_segments", NULL},
	  {"sizing", "log_size", NULL},
	  {"workload", "log_segment_size", NULL}},
	 replay_fits_log,
	 false},
	{"auto-tune tunes the jetstress model's performance and stress tests",
	 {{"engine", "streams", "--streams"}, {"workload", "model", NULL}, {"test", "type", NULL}},
	 auto_tunable,
	 false},
	{"the fixed model is for performance and stress tests",
	 {{"workload", "model", NULL}, {"test", "type", NULL}},
	 fixed_transactional,
	 false},
	{"autotune_goal = target needs a target",
	 {{"engine", "autotune_goal", NULL},
	  {"engine", "streams", "--streams"},
	  {"sizing", "target_iops", NULL},
	  {"sizing", "mailboxes", NULL}},
	 goal_has_target,
	 false},
	{"auto-tune's cap holds one stream per database",
	 {{"engine", "autotune_max_streams", NULL},
	  {"engine", "autotune_step", NULL},
	  {"engine", "streams", "--streams"}},
	 tune_cap_fits_step,
	 false},
	{"auto-tune's time bound holds one level",
	 {{"engine", "autotune_limit", NULL},
	  {"test", "duration", "--duration"},
	  {"engine", "streams", "--streams"},
	  {"engine", "autotune_window", NULL},
	  {"engine", "autotune_slope_window", NULL}},
	 tune_bound_holds_level,
	 true},
	{"latency_basis = response needs an open loop",
	 {{"thresholds", "latency_basis", NULL}, {"workload", "arrival", NULL}},
	 response_open_loop,
	 false},
	{"max_streams bounds an open loop's streams",
	 {{"workload", "max_streams", NULL},
	  {"workload", "arrival", NULL},
	  {"engine", "streams", "--streams"}},
	 max_streams_open_loop,
	 true},
	{"sqpoll and hipri are io_uring's",
	 {{"engine", "sqpoll", NULL}, {"engine", "hipri", NULL}, {"engine", "name", "--engine"}},
	 uring_flags_engine,
	 true},
	{"a durability test needs a witness",
	 {{"test", "witness", "--witness"}, {"test", "type", NULL}},
	 durability_witness,
	 true},
	{"hipri needs direct I/O",
	 {{"engine", "hipri", NULL}, {"engine", "direct", NULL}},
	 hipri_direct,
	 false},
};

const struct profile_rule *profile_rules(size_t *count)
{
	*count = DP_ARRAY_SIZE(rules);
	return rules;
}

static unsigned digits(unsigned long long v)
{
	unsigned n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

/*
 * The longest name diskproof gives a file in a volume's directory or log
 * directory: the journal's temporary "dbN.gen.tmp.PID" (journal.c), with N
 * the volume's highest database number and PID as long as a pid may print
 * (10 digits: pid_max is at most 2^22, counted with room to spare). The
 * database, log, journal and lock files are all shorter.
 */
size_t profile_derived_name_max(unsigned last_db)
{
	return strlen("db") + digits(last_db) + strlen(".gen.tmp.") + 10;
}

int profile_path_check(const char *path, unsigned last_db, struct strbuf *why)
{
	size_t len = strlen(path), name = profile_derived_name_max(last_db), total;
	const char *s = path, *slash;

	while (*s) {
		slash = strchr(s, '/');
		len = slash ? (size_t)(slash - s) : strlen(s);
		if (len > NAME_MAX) {
			strbuf_addf(why,
				    "a component of the path is %zu characters, longer than "
				    "NAME_MAX (%d)",
				    len, NAME_MAX);
			return -ENAMETOOLONG;
		}
		if (!slash)
			break;
		s = slash + 1;
	}
	len = strlen(path);
	total = len + (len && path[len - 1] == '/' ? 0 : 1) + name;
	if (total > PATH_MAX - 1) {
		strbuf_addf(why,
			    "%zu characters: the files diskproof makes in it (such as "
			    "db%u.gen.tmp.PID) would be up to %zu characters, longer than PATH_MAX "
			    "allows (%d)",
			    len, last_db, total, PATH_MAX - 1);
		return -ENAMETOOLONG;
	}
	return 0;
}
