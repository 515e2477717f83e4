/* SPDX-License-Identifier: MIT */
/*
 * handshake.c - run --ready-file and --start-file: the hosts of a fleet
 * prepare each at its own pace (files created and checked, workers and
 * rings up) and say so in a ready record written atomically to the ready
 * file; whoever drives the fleet (the playbook, or an operator with a shell
 * on each host) reads every host's record, picks one start instant after
 * the latest and writes it to every host's start file; each run polls its
 * start file, then waits for the instant as --start-at does (start.c).
 * Plain files on each host: no daemon, no port, and any way of writing a
 * file on a host (ssh, Ansible's copy) delivers the instant.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diskproof/env.h"
#include "diskproof/fileopen.h"
#include "diskproof/json.h"

#include "run_internal.h"

/* A start file holds one TIME and a newline; anything longer is not one. */
#define START_FILE_MAX 256

/* How often the start file is looked at: a start instant is picked seconds
 * ahead, so a tenth of a second costs nothing of the alignment. */
#define START_POLL_MS 100

int run_start_text_parse(const char *text, uint64_t now_real_ns, uint64_t *at, struct strbuf *why)
{
	size_t n;
	char buf[START_FILE_MAX + 1];
	uint64_t abs_ns, rel_ns;

	text += strspn(text, " \t\r\n");
	n = strlen(text);
	while (n && strchr(" \t\r\n", text[n - 1]))
		n--;
	if (!n)
		return -EAGAIN;
	if (n > START_FILE_MAX) {
		strbuf_addstr(why, "is too long for a start TIME");
		return -EINVAL;
	}
	memcpy(buf, text, n);
	buf[n] = '\0';
	if (!strcmp(buf, "cancel"))
		return 1;
	if (time_parse_start_at(buf, &abs_ns, &rel_ns, why))
		return -EINVAL;
	if (rel_ns > RUN_START_AT_MAX_AHEAD_NS ||
	    (!rel_ns && abs_ns > now_real_ns + RUN_START_AT_MAX_AHEAD_NS)) {
		strbuf_addf(why, "\"%s\" is more than 7 days ahead", buf);
		return -EINVAL;
	}
	*at = rel_ns ? now_real_ns + rel_ns : abs_ns;
	return 0;
}

/*
 * The start file's text into buf (NUL-terminated): 0, -ENOENT when there
 * is none yet, -EFBIG when it is longer than a start file, or -errno with
 * err filled (a FIFO or directory there is refused, never opened blocking).
 */
static int start_file_read(const char *path, char *buf, size_t len, struct strbuf *err)
{
	ssize_t n;
	int fd;

	fd = file_open_checked(path, O_RDONLY, 0, FILE_OPEN_REGULAR, NULL, err);
	if (fd == -ENOENT)
		return fd;
	if (fd < 0) {
		if (!err->len)
			strbuf_addf(err, "%s: %s", path, strerror(-fd));
		return fd;
	}
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0) {
		strbuf_addf(err, "%s: %s", path, strerror(errno));
		return -EIO;
	}
	buf[n] = '\0';
	return (size_t)n == len - 1 ? -EFBIG : 0;
}

/* A leftover at the ready file's path: none, empty, or a ready record is
 * removed; anything else is not ours to remove. */
static int ready_leftover_remove(const char *path, struct strbuf *err)
{
	char head[sizeof(RUN_READY_MAGIC)] = "";
	struct stat st;
	ssize_t n = 0;
	int fd;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -errno;
	fd = S_ISREG(st.st_mode) ? open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) : -1;
	if (fd >= 0) {
		n = read(fd, head, sizeof(head) - 1);
		close(fd);
	}
	if (fd < 0 || n < 0 || (n > 0 && strcmp(head, RUN_READY_MAGIC))) {
		strbuf_addf(err,
			    "--ready-file %s: exists and is not a diskproof ready record; "
			    "diskproof never replaces a file it did not write (move it away)",
			    path);
		return -EEXIST;
	}
	return unlink(path) && errno != ENOENT ? -errno : 0;
}

/* A leftover at the start file's path (an earlier run's TIME, or "cancel")
 * is removed: read now, it would start this run at once, unaligned.
 * Anything that is not a start file is refused. */
static int start_leftover_remove(const char *path, struct strbuf *err)
{
	struct strbuf why = STRBUF_INIT;
	char buf[START_FILE_MAX + 2];
	uint64_t at;
	int ret;

	ret = start_file_read(path, buf, sizeof(buf), &why);
	if (ret == -ENOENT) {
		ret = 0;
		goto out;
	}
	if (!ret && run_start_text_parse(buf, time_real_ns(), &at, &why) == -EINVAL)
		ret = -EINVAL;
	if (ret) {
		strbuf_addf(err,
			    "--start-file %s: exists and is not a start file (%s); diskproof "
			    "removes only a start file left by an earlier run (move it away)",
			    path, why.len ? why.buf : "too long");
		ret = -EEXIST;
		goto out;
	}
	if (unlink(path) && errno != ENOENT) {
		ret = -errno;
		strbuf_addf(err, "--start-file %s: cannot remove the earlier run's: %s", path,
			    strerror(-ret));
	}
out:
	strbuf_release(&why);
	return ret;
}

/* The directory of an option's path exists and may be written in. */
static int dir_check(const char *opt, const char *path, struct strbuf *err)
{
	struct strbuf dir = STRBUF_INIT;
	struct stat st;
	int ret = 0;

	path_dirname(path, &dir);
	if (stat(dir.buf, &st) || !S_ISDIR(st.st_mode))
		ret = -ENOENT;
	else if (access(dir.buf, W_OK | X_OK))
		ret = -EACCES;
	if (ret)
		strbuf_addf(err, "%s %s: its directory %s", opt, path,
			    ret == -ENOENT ? "does not exist" : "is not writable");
	strbuf_release(&dir);
	return ret;
}

int run_handshake_open(const struct run_options *o, struct strbuf *err)
{
	int ret = 0;

	if (o->ready_file) {
		ret = dir_check("--ready-file", o->ready_file, err);
		if (!ret)
			ret = ready_leftover_remove(o->ready_file, err);
	}
	if (!ret && o->start_file) {
		ret = dir_check("--start-file", o->start_file, err);
		if (!ret)
			ret = start_leftover_remove(o->start_file, err);
	}
	return ret;
}

/* The ready record (one JSON line, RUN_READY_MAGIC first): who is ready,
 * since when (ready_unix for arithmetic, ready_at to read), its clock. */
static void ready_record(struct strbuf *sb, const struct run *r, uint64_t now)
{
	const struct run_options *o = r->opt;
	struct strbuf t = STRBUF_INIT;
	struct json j = JSON_INIT(sb);
	struct env_clock c;

	env_clock_read(&c);
	json_begin_object_flat(&j, NULL);
	json_u64(&j, "diskproof_ready", 1);
	json_str(&j, "host", r->metrics.hostname);
	time_format_utc_us(&t, now);
	json_str(&j, "ready_at", t.buf);
	json_fixed(&j, "ready_unix", (double)now / 1e9, 6);
	json_i64(&j, "pid", (int64_t)getpid());
	json_i64(&j, "run_id", r->store.run_id);
	json_str(&j, "results", o->results_path);
	json_str(&j, "start_file", o->start_file);
	strbuf_reset(&t);
	if (o->start_at_real_ns)
		time_format_utc_us(&t, o->start_at_real_ns);
	json_str(&j, "start_at", o->start_at_real_ns ? t.buf : NULL);
	json_begin_object_flat(&j, "clock");
	json_str(&j, "synchronised", !c.known ? "unknown" : c.synchronised ? "yes" : "no");
	json_fixed(&j, "max_error_ms", c.known ? (double)c.max_error_us / 1e3 : NAN, 3);
	json_end(&j);
	json_end(&j);
	strbuf_addch(sb, '\n');
	strbuf_release(&t);
}

/* text replaces path atomically: path.PID.tmp written, synced, renamed. */
static int file_replace(const char *path, const struct strbuf *text, struct strbuf *err)
{
	struct strbuf tmp = STRBUF_INIT;
	const char *p = text->buf;
	size_t left = text->len;
	int fd, ret = 0;

	strbuf_addf(&tmp, "%s.%ld.tmp", path, (long)getpid());
	fd = open(tmp.buf, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		ret = -errno;
	while (!ret && left) {
		ssize_t w = write(fd, p, left);

		if (w < 0 && errno != EINTR)
			ret = -errno;
		p += w > 0 ? w : 0;
		left -= w > 0 ? (size_t)w : 0;
	}
	if (fd >= 0 && !ret && fsync(fd))
		ret = -errno;
	if (fd >= 0 && close(fd) && !ret)
		ret = -errno;
	if (!ret && rename(tmp.buf, path))
		ret = -errno;
	if (ret) {
		if (fd >= 0)
			unlink(tmp.buf);
		strbuf_addf(err, "%s: %s", path, strerror(-ret));
	}
	strbuf_release(&tmp);
	return ret;
}

/* Stops the run before its load as an environment error (exit 3). */
static void handshake_stop(struct run *r, const char *why)
{
	r->ctl.env_failed = true;
	coord_stop(r, 0, why);
}

bool run_handshake_ready(struct run *r, uint64_t now)
{
	struct strbuf rec = STRBUF_INIT, err = STRBUF_INIT, msg = STRBUF_INIT;
	bool stopped = false;

	strbuf_addstr(&msg, "ready at ");
	time_format_utc_us(&msg, now);
	strbuf_addstr(&msg, " (files checked, workers and rings up)");
	if (r->opt->ready_file) {
		ready_record(&rec, r, now);
		if (file_replace(r->opt->ready_file, &rec, &err)) {
			strbuf_reset(&msg);
			strbuf_addf(&msg, "cannot write the ready file: %s; nothing was measured",
				    err.buf);
			handshake_stop(r, msg.buf);
			stopped = true;
			goto out;
		}
		strbuf_addf(&msg, "; ready record in %s", r->opt->ready_file);
	}
	if (r->opt->start_file) {
		strbuf_addf(&msg, "; waiting for a start time in %s (at most ", r->opt->start_file);
		unit_format_duration(&msg, r->start.timeout_ns);
		strbuf_addch(&msg, ')');
	}
	run_event(r, "ready", msg.buf);
out:
	strbuf_release(&rec);
	strbuf_release(&err);
	strbuf_release(&msg);
	return stopped;
}

/*
 * One look at the start file: 1 when the wait is over (r->start.at_ns set,
 * or the run stopped: cancelled, unreadable, a TIME that is not one), 0 to
 * look again. A text that does not parse may be a write caught halfway: it
 * is refused only when the same text is read twice in a row (*prev).
 */
static int start_file_look(struct run *r, struct strbuf *prev)
{
	const char *path = r->opt->start_file;
	struct strbuf err = STRBUF_INIT, msg = STRBUF_INIT;
	char buf[START_FILE_MAX + 2];
	uint64_t at = 0;
	int ret, done = 1;

	ret = start_file_read(path, buf, sizeof(buf), &err);
	if (ret == -ENOENT) {
		done = 0;
		goto out;
	}
	if (!ret)
		ret = run_start_text_parse(buf, time_real_ns(), &at, &err);
	if (ret == -EAGAIN || (ret == -EINVAL && strcmp(prev->buf, buf))) {
		strbuf_reset(prev);
		strbuf_addstr(prev, buf);
		done = 0;
		goto out;
	}
	if (ret == 0) {
		r->start.at_ns = at;
		goto out;
	}
	if (ret == 1)
		strbuf_addf(&msg, "cancelled: the start file %s says cancel", path);
	else
		strbuf_addf(&msg, "--start-file %s: %s", path,
			    ret == -EFBIG ? "too long for a start TIME" : err.buf);
	strbuf_addstr(&msg, "; nothing was measured");
	handshake_stop(r, msg.buf);
out:
	strbuf_release(&err);
	strbuf_release(&msg);
	return done;
}

bool run_handshake_wait(struct run *r)
{
	uint64_t deadline = time_mono_ns() + r->start.timeout_ns;
	struct strbuf prev = STRBUF_INIT, msg = STRBUF_INIT;
	bool stopped = false;

	while (!start_file_look(r, &prev)) {
		if (time_mono_ns() >= deadline) {
			strbuf_addf(&msg, "no start time in %s within --start-timeout ",
				    r->opt->start_file);
			unit_format_duration(&msg, r->start.timeout_ns);
			strbuf_addstr(&msg, " of being ready; nothing was measured");
			handshake_stop(r, msg.buf);
			break;
		}
		coord_check_signal(r, START_POLL_MS);
		if (r->ctl.signal || r->ctl.abandoned)
			break;
	}
	stopped = !r->start.at_ns || r->ctl.signal || r->ctl.abandoned;
	strbuf_release(&prev);
	strbuf_release(&msg);
	return stopped;
}
