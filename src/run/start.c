/* SPDX-License-Identifier: MIT */
/*
 * start.c - run --start-at (and --start-file, handshake.c): the hosts of a
 * fleet prepare (files, workers, rings) each at its own pace, then wait for
 * one instant of their clocks and begin their load together; every run
 * records when its load really began, to the microsecond, so that a merged
 * report can say how well the hosts were aligned.
 */
#include <errno.h>
#include <stdio.h>
#include <time.h>

#include "diskproof/counters.h"
#include "diskproof/env.h"
#include "diskproof/store.h"

#include "run_internal.h"

/* A run ready this little after the instant still starts: that is within
 * what the hosts' clocks agree, and load_started_at records the truth. */
#define START_LATE_SLACK_NS (1 * NSEC_PER_MSEC)

/* The longest sleep between two looks at the signals (and the countdown). */
#define START_WAIT_STEP_NS (200 * NSEC_PER_MSEC)

/* The clock as the wait begins: worse than --max-clock-error (or not
 * synchronised) is a "clock" event, and said on the terminal (run_event). */
static void start_clock_check(struct run *r)
{
	const struct run_options *o = r->opt;
	struct env_clock c;
	char msg[400];

	env_clock_read(&c);
	if (!c.known)
		snprintf(msg, sizeof(msg),
			 "clock: its synchronisation cannot be read (adjtimex failed): runs "
			 "started together with --start-at may not be aligned");
	else if (!c.synchronised)
		snprintf(msg, sizeof(msg),
			 "clock: not synchronised (adjtimex state %s, max error %.3f ms, time "
			 "daemon: %s): runs started together with --start-at may not be aligned",
			 c.state, (double)c.max_error_us / 1e3, c.daemon);
	else if ((uint64_t)c.max_error_us * NSEC_PER_USEC > o->max_clock_error_ns)
		snprintf(msg, sizeof(msg),
			 "clock: max error %.3f ms is over --max-clock-error %.3f ms (time "
			 "daemon: %s): runs started together with --start-at may be that far "
			 "apart",
			 (double)c.max_error_us / 1e3, (double)o->max_clock_error_ns / 1e6,
			 c.daemon);
	else
		return;
	run_event(r, "clock", msg);
}

/* Not ready by the instant: the run ends as an environment error. */
static void start_late(struct run *r, uint64_t now)
{
	struct strbuf at = STRBUF_INIT;
	char why[256];

	time_format_utc_us(&at, r->start.at_ns);
	snprintf(why, sizeof(why),
		 "not ready by --start-at %s: the files and workers were ready %.3f s late; "
		 "nothing was measured",
		 at.buf, (double)(now - r->start.at_ns) / 1e9);
	strbuf_release(&at);
	r->ctl.env_failed = true;
	coord_stop(r, 0, why);
}

/* The instant came from a start file already past: the run was ready in
 * time, whoever picked the instant was not; the load begins at once and
 * its start records how late (a fleet report names it). */
static void start_given_late(struct run *r, uint64_t now)
{
	struct strbuf msg = STRBUF_INIT;

	strbuf_addstr(&msg, "the start time ");
	time_format_utc_us(&msg, r->start.at_ns);
	strbuf_addf(&msg, " read from %s was %.3f s past: the load begins at once, late",
		    r->opt->start_file, (double)(now - r->start.at_ns) / 1e9);
	run_event(r, "late", msg.buf);
	strbuf_release(&msg);
}

/* Sleeps until r->start.at_ns on CLOCK_REALTIME, signals answered: true
 * when a signal stopped the wait. */
static bool start_sleep(struct run *r, uint64_t now)
{
	const struct run_options *o = r->opt;
	uint64_t at = r->start.at_ns;
	bool stopped = false;

	while (now < at) {
		uint64_t next = now + START_WAIT_STEP_NS < at ? now + START_WAIT_STEP_NS : at;
		struct timespec ts = {(time_t)(next / NSEC_PER_SEC), (long)(next % NSEC_PER_SEC)};

		if (o->cb.wait)
			o->cb.wait(o->cb.arg, at, now);
		/* absolute on CLOCK_REALTIME: the hosts' clocks are what align,
		 * and a step of the clock meanwhile moves the wake-up with it */
		while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		coord_check_signal(r, 0);
		if (r->ctl.signal || r->ctl.abandoned) {
			stopped = true;
			break;
		}
		now = time_real_ns();
	}
	if (o->cb.wait)
		o->cb.wait(o->cb.arg, at, 0);
	return stopped;
}

bool run_start_wait(struct run *r)
{
	const struct run_options *o = r->opt;
	uint64_t now;
	bool stopped;

	if (r->start.load_started || r->start.waited)
		return false;
	r->start.waited = true;
	r->start.at_ns = o->start_at_real_ns;
	if ((o->ready_file || o->start_file) && run_handshake_ready(r, time_real_ns()))
		return true;
	if (o->start_file && run_handshake_wait(r))
		return true;
	if (!r->start.at_ns)
		return false;
	/* the instant asked for, kept by a run that never gets to it */
	if (r->store.st && !r->store.failed &&
	    store_run_load_started(r->store.st, r->store.run_id, 0, r->start.at_ns, &r->store.err))
		coord_store_error(r, -EIO);
	start_clock_check(r);
	now = time_real_ns();
	if (now > r->start.at_ns + START_LATE_SLACK_NS && !o->start_file) {
		start_late(r, now);
		return true;
	}
	if (now > r->start.at_ns + START_LATE_SLACK_NS)
		start_given_late(r, now);
	stopped = start_sleep(r, now);
	if (r->store.host && !stopped) {
		struct host_sample hs;

		/* the counters' first interval starts now, not before the wait */
		(void)!counters_sampler_read(r->store.host, time_mono_ns(), &hs);
	}
	return stopped;
}

void run_load_begin(struct run *r)
{
	if (r->start.load_started)
		return;
	r->start.load_started = true;
	r->start.load_real_ns = time_real_ns();
}

void run_load_record(struct run *r)
{
	if (!r->start.load_started || r->start.load_recorded)
		return;
	r->start.load_recorded = true;
	if (r->store.st && !r->store.failed &&
	    store_run_load_started(r->store.st, r->store.run_id, r->start.load_real_ns,
				   r->start.at_ns, &r->store.err))
		coord_store_error(r, -EIO);
	if (r->start.at_ns) {
		struct strbuf msg = STRBUF_INIT;

		strbuf_addstr(&msg, "load started at ");
		time_format_utc_us(&msg, r->start.load_real_ns);
		strbuf_addf(&msg, ", %.3f ms after %s ",
			    (double)((int64_t)(r->start.load_real_ns - r->start.at_ns)) / 1e6,
			    r->opt->start_file ? "the start time" : "--start-at");
		time_format_utc_us(&msg, r->start.at_ns);
		if (r->store.st && !r->store.failed &&
		    store_event_add(r->store.st, r->store.run_id,
				    run_clock_ms(r, engine_clock_now(&r->clock)), "start_at",
				    msg.buf, &r->store.err))
			coord_store_error(r, -EIO);
		strbuf_release(&msg);
	}
}
