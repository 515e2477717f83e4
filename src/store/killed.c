/* SPDX-License-Identifier: MIT */
/*
 * killed.c - finding killed runs: a run still "running" whose process is
 * gone (or is now another program) is marked aborted at its last sample,
 * with an event saying why, at every read-write open of the file.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "store_internal.h"

/* Runs of this host whose process is gone are marked aborted at every
 * read-write open: the next command after a kill leaves the file consistent. */
int store_reap_own_host(struct store *s, struct strbuf *err)
{
	struct strbuf why = STRBUF_INIT;
	char host[256] = "";
	unsigned n;
	int ret = 0;

	/* Best effort where the file cannot be written just now (full,
	 * read-only, locked): that must not keep it from being read, and the
	 * next open tries again. A damaged file is still an error. */
	if (gethostname(host, sizeof(host) - 1) == 0)
		ret = store_runs_reap_stale(s, host, &n, &why);
	if (ret == -ENOSPC || ret == -EROFS || ret == -EACCES || ret == -EBUSY)
		ret = 0;
	else if (ret)
		strbuf_addstr(err, why.buf);
	strbuf_release(&why);
	return ret;
}

/* The name the kernel shows for a process ("diskproof"), "" when unknown. */
static void process_comm(pid_t pid, char *out, size_t len)
{
	char path[64];
	FILE *f;

	out[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return;
	if (fgets(out, (int)len, f))
		out[strcspn(out, "\n")] = '\0';
	fclose(f);
}

/*
 * A run of this host whose process is gone (or is now another program) was
 * killed: it can never finish itself.
 */
bool store_run_process_alive(int64_t pid)
{
	char mine[32], theirs[32];

	if (pid <= 0 || pid > INT32_MAX)
		return false;
	if (kill((pid_t)pid, 0) != 0 && errno != EPERM)
		return false;
	process_comm(getpid(), mine, sizeof(mine));
	process_comm((pid_t)pid, theirs, sizeof(theirs));
	return !mine[0] || !theirs[0] || !strcmp(mine, theirs);
}

int store_runs_reap_stale(struct store *s, const char *host, unsigned *reaped, struct strbuf *err)
{
	sqlite3_stmt *sel, *upd = NULL, *ev = NULL;
	struct binder b;
	int ret, rc;

	*reaped = 0;
	/* this machine's runs: by the machine's name stored with the row (env
	 * "hostname", written in the run row's own transaction), which run
	 * --host does not change: a run named for a fleet's test host is
	 * still this machine's, and only a pid of this machine can say whether
	 * it lives. run.host only for a row without that name (older runs):
	 * a live run another machine recorded as --host NAME must not be
	 * reaped by the machine called NAME, where its pid means nothing */
	ret = store_prepare(s,
			    "SELECT id, pid FROM run WHERE status = 'running' AND"
			    " coalesce((SELECT value FROM env WHERE run_id = run.id AND"
			    " key = 'hostname'), host) = ?1",
			    &sel, 0, err);
	if (ret)
		return ret;
	sqlite3_bind_text(sel, 1, host, -1, SQLITE_TRANSIENT);
	ret = store_prepare(
		s,
		"UPDATE run SET status = 'aborted', verdict = 'NONE',"
		" ended_at = strftime('%Y-%m-%dT%H:%M:%SZ', started_at, '+' ||"
		"  (SELECT coalesce(max(t_ms), 0) / 1000.0 FROM sample WHERE run_id = run.id)"
		"  || ' seconds')"
		" WHERE id = ? AND status = 'running'",
		&upd, 0, err);
	if (!ret)
		ret = store_prepare(s,
				    "INSERT INTO event (run_id, t_ms, kind, message) VALUES (?,"
				    " (SELECT coalesce(max(t_ms), 0) FROM sample WHERE run_id = ?),"
				    " 'stop', ?)",
				    &ev, 0, err);
	if (ret)
		goto out;
	while ((rc = sqlite3_step(sel)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(sel, 0), pid = sqlite3_column_int64(sel, 1);
		char msg[160];

		if (store_run_process_alive(pid))
			continue;
		snprintf(msg, sizeof(msg),
			 "process %" PRId64 " ended without finishing the run (killed?); "
			 "marked aborted",
			 pid);
		binder_start(&b, upd);
		bind_i64(&b, id);
		rc = binder_run(&b);
		if (rc == SQLITE_OK) {
			binder_start(&b, ev);
			bind_i64(&b, id);
			bind_i64(&b, id);
			bind_str(&b, msg, false);
			rc = binder_run(&b);
		}
		if (rc != SQLITE_OK) {
			ret = store_fail(s, err, rc, "mark a killed run aborted");
			goto out;
		}
		(*reaped)++;
	}
	if (rc != SQLITE_DONE)
		ret = store_fail(s, err, rc, "look for killed runs");
out:
	sqlite3_finalize(ev);
	sqlite3_finalize(upd);
	sqlite3_finalize(sel);
	return ret;
}
