/* SPDX-License-Identifier: MIT */
/*
 * fleet_text.c - the fleet report for the terminal (report.h): a row per
 * run (host names escaped: report_text_escape), what differs, the start
 * skew, and the fleet totals per class from the merged histograms.
 */
#include <math.h>
#include <string.h>

#include "report_internal.h"

/* v in a column of width w with d decimals, "-" when not finite */
static void col_num(struct strbuf *sb, double v, int w, int d)
{
	if (isfinite(v))
		strbuf_addf(sb, " %*.*f", w, d, v);
	else
		strbuf_addf(sb, " %*s", w, "-");
}

/* The columns the host table shows beside the fixed ones: "sim" when a
 * run of the fleet is simulated, the db_read response time when a run has
 * one (open loop), and the host column's width, so that a line stays
 * within 120 columns (a longer host name pushes its own row right). */
struct hosts_layout {
	bool sim, resp;
	int host_w;
};

static struct hosts_layout hosts_layout(const struct report_fleet *f)
{
	struct hosts_layout l = {.host_w = 4};
	struct strbuf name = STRBUF_INIT;
	int room;

	for (size_t i = 0; i < f->nr_hosts; i++) {
		l.sim |= f->hosts[i].simulated;
		l.resp |= isfinite(f->hosts[i].db_read_resp_avg_ms);
		strbuf_reset(&name);
		report_text_escape(&name, f->hosts[i].r->host);
		if ((int)name.len > l.host_w)
			l.host_w = (int)name.len;
	}
	for (size_t i = 0; i < f->nr_missing; i++) {
		strbuf_reset(&name);
		report_text_escape(&name, f->missing[i]);
		if ((int)name.len > l.host_w)
			l.host_w = (int)name.len;
	}
	strbuf_release(&name);
	/* the fixed columns take 97, "sim" 4, the response 10 */
	room = 120 - 97 - (l.sim ? 4 : 0) - (l.resp ? 10 : 0);
	if (l.host_w > 20)
		l.host_w = 20;
	if (l.host_w > room)
		l.host_w = room;
	return l;
}

/* A row per run: its host, id, engine mark, verdict, the run scope's
 * transactional IOPS, db_read avg, p99 and slowest single I/O (named as
 * the run report names it: each run's verdict judges its max on its
 * max_basis), the response time (open loop), log_write avg, I/Os, start
 * offset and whether it differs. */
static void text_hosts(struct strbuf *sb, const struct report_fleet *f)
{
	struct hosts_layout l = hosts_layout(f);
	struct strbuf note = STRBUF_INIT;

	strbuf_addf(sb, "%-*s %6s%s %-7s %10s %s %9s\n", l.host_w, "", "", l.sim ? "    " : "", "",
		    "",
		    l.resp ? "------------- db_read ms --------------"
			   : "-------- db_read ms ---------",
		    "log_write");
	strbuf_addf(sb, "%-*s %6s%s %-7s %10s %9s %9s %9s%s %9s %11s %9s  %s\n", l.host_w, "host",
		    "run", l.sim ? " eng" : "", "verdict", "trans IOPS", "avg", "p99", "slowest",
		    l.resp ? "  response" : "", "avg ms", "I/Os", "start ms", "differs");
	for (size_t i = 0; i < f->nr_hosts; i++) {
		const struct report_fleet_host *h = &f->hosts[i];
		struct strbuf name = STRBUF_INIT;

		report_text_escape(&name, h->r->host);
		strbuf_addf(sb, "%-*s %6lld", l.host_w, name.buf, (long long)h->r->id);
		strbuf_release(&name);
		if (l.sim)
			strbuf_addstr(sb, h->simulated ? " sim" : "    ");
		strbuf_addf(sb, " %-7s", report_str_or(h->r->verdict, "-"));
		col_num(sb, h->trans_iops, 10, 1);
		col_num(sb, h->db_read_avg_ms, 9, 3);
		col_num(sb, h->db_read_p99_ms, 9, 3);
		col_num(sb, h->db_read_max_ms, 9, 3);
		if (l.resp)
			col_num(sb, h->db_read_resp_avg_ms, 9, 3);
		col_num(sb, h->log_write_avg_ms, 9, 3);
		strbuf_addf(sb, " %11llu", (unsigned long long)h->ios);
		col_num(sb, h->start_offset_ms, 9, 3);
		strbuf_addf(sb, "  %s\n", h->differs ? "DIFFERS" : "-");
	}
	for (size_t i = 0; i < f->nr_missing; i++) {
		struct strbuf name = STRBUF_INIT;

		report_text_escape(&name, f->missing[i]);
		strbuf_addf(sb, "%-*s %6s%s %-7s  (expected, no run)\n", l.host_w, name.buf, "-",
			    l.sim ? "    " : "", "MISSING");
		strbuf_release(&name);
	}
	strbuf_addstr(&note,
		      "(slowest: the slowest single I/O; each run's verdict judges its "
		      "maximum on its max_basis, the highest 15 s sample average by default");
	if (l.resp)
		strbuf_addstr(&note, "; response: the response time, from the transaction's "
				     "intended start (open loop); avg, p99 and slowest are service "
				     "times");
	if (l.sim)
		strbuf_addstr(&note, "; eng sim: a simulated run, its figures from a model, not "
				     "a device");
	strbuf_addch(&note, ')');
	report_text_wrap(sb, note.buf, 0, 120);
	strbuf_release(&note);
}

static void text_differs(struct strbuf *sb, const struct report_fleet *f)
{
	size_t n = 0;

	for (size_t i = 0; i < f->nr_hosts; i++) {
		const struct report_fleet_host *h = &f->hosts[i];

		for (int g = 0; g < REPORT_FLEET_FIG_COUNT; g++) {
			const struct report_fleet_diff *d = &h->diff[g];

			if (!d->differs)
				continue;
			if (!n++)
				strbuf_addstr(sb,
					      "\nruns that differ from the rest (" ANALYZE_TEST_NAME
					      ", Holm-corrected per run):\n");
			strbuf_addf(sb, "  run %lld (", (long long)h->r->id);
			report_text_escape(sb, h->r->host);
			strbuf_addf(sb, "): %s ", report_fleet_fig_words(g));
			report_number(sb, d->value, 3);
			strbuf_addstr(sb, d->change_pct > 0 ? " higher than the fleet's median "
							    : " lower than the fleet's median ");
			report_number(sb, d->median, 3);
			strbuf_addf(sb, " (%+.1f %%, p = %.2g)\n", d->change_pct, d->p_value);
		}
	}
	/* a separate finding from the verdict: while a host fails, never "no
	 * run differs" (report_fleet_finding) */
	if (report_fleet_finding(f))
		strbuf_addf(sb, "%s%s\n", n ? "" : "\n", report_fleet_finding(f));
}

/* Every run that fails the fleet: its host, its failed volumes (with their
 * devices where recorded) and their failed databases, and one sentence of
 * why (why.c), wrapped within 120 columns. */
static void text_failed(struct strbuf *sb, const struct report_fleet *f)
{
	struct strbuf w = STRBUF_INIT;
	size_t n = 0;

	for (size_t i = 0; i < f->nr_hosts; i++) {
		const struct report_fleet_host *h = &f->hosts[i];
		const struct results *r = h->r;
		bool first = true;

		if (!report_fleet_host_failed(h))
			continue;
		if (!n++)
			strbuf_addstr(sb, "failed hosts:\n");
		strbuf_reset(&w);
		strbuf_addf(&w, "%s (run %lld): %s", r->host ? r->host : "-", (long long)r->id,
			    r->verdict && strcmp(r->verdict, "NONE")
				    ? r->verdict
				    : report_str_or(r->status, "-"));
		for (size_t v = 0; v < r->nr_volumes; v++) {
			const char *vol = r->volumes[v].name;
			const char *dev = report_volume_device(r, vol);
			bool dfirst = true;

			if (strcmp(report_scope_verdict(r, SCOPE_VOLUME, vol, NULL), "FAIL"))
				continue;
			strbuf_addf(&w, "%s volume %s", first ? ":" : ";", vol);
			if (dev)
				strbuf_addf(&w, " (%s)", dev);
			for (size_t d = 0; d < r->nr_databases; d++) {
				const struct scope_summary *db = &r->databases[d];

				if (strcmp(db->volume, vol) ||
				    strcmp(report_scope_verdict(r, SCOPE_DATABASE, db->name, vol),
					   "FAIL"))
					continue;
				strbuf_addf(&w, "%s%s", dfirst ? ", databases " : ", ", db->name);
				dfirst = false;
			}
			first = false;
		}
		report_text_wrap(sb, w.buf, 2, 120);
		strbuf_reset(&w);
		if (report_why_run(&w, r))
			report_text_wrap(sb, w.buf, 4, 120);
	}
	strbuf_release(&w);
}

static void text_totals(struct strbuf *sb, const struct report_fleet *f)
{
	strbuf_addf(sb,
		    "\nfleet totals (%zu run(s), %zu host name(s); percentiles from the "
		    "merged histograms):\n",
		    f->nr_hosts, f->nr_host_names);
	strbuf_addf(sb, "  %-12s %12s %10s %9s %9s %9s %9s %9s %10s\n", "class", "I/Os", "IOPS",
		    "MB/s", "avg ms", "p50 ms", "p99 ms", "p99.9 ms", "slowest ms");
	for (int c = 0; c < IO_CLASS_COUNT; c++) {
		const struct class_summary *cs = &f->summary.classes[c];

		if (!results_class_present(cs))
			continue;
		strbuf_addf(sb, "  %-12s %12llu", stats_io_class_name(c),
			    (unsigned long long)cs->ios);
		col_num(sb, cs->iops, 10, 1);
		col_num(sb, cs->mbps, 9, 2);
		col_num(sb, cs->ios ? cs->avg_ms : NAN, 9, 3);
		col_num(sb, cs->ios ? cs->p50_ms : NAN, 9, 3);
		col_num(sb, cs->ios ? cs->p99_ms : NAN, 9, 3);
		col_num(sb, cs->ios ? cs->p999_ms : NAN, 9, 3);
		col_num(sb, cs->ios ? cs->max_ms : NAN, 10, 3);
		strbuf_addstr(sb, f->hist_complete[c] ? "\n" : "  (a run lacks its histogram)\n");
	}
	strbuf_addstr(sb, "  transactional IOPS ");
	report_number(sb, results_scope_transactional_iops(&f->summary), 1);
	strbuf_addf(sb, ", %llu I/Os in all\n", (unsigned long long)f->ios);
}

/* The skew is as each host's clock read it: what the clocks said of their
 * own error bounds it, and a clock that was not synchronised is named. */
static void text_clocks(struct strbuf *sb, const struct report_fleet *f)
{
	if (f->has_skew && isfinite(f->clock_max_error_ms))
		strbuf_addf(sb,
			    "note: as each host's clock read it; the largest max error a clock "
			    "reported was %.3f ms\n",
			    f->clock_max_error_ms);
	for (size_t i = 0; i < f->nr_hosts; i++) {
		const struct report_fleet_host *h = &f->hosts[i];

		if (!h->clock_warning &&
		    !(h->clock_synchronised && !strcmp(h->clock_synchronised, "no")))
			continue;
		strbuf_addf(sb, "clock: run %lld (", (long long)h->r->id);
		report_text_escape(sb, h->r->host);
		strbuf_addstr(sb, "): ");
		if (h->clock_warning)
			report_text_escape(sb, h->clock_warning);
		else
			strbuf_addstr(sb, "not synchronised");
		strbuf_addch(sb, '\n');
	}
}

/* The fleet's verdict and why; the expected hosts with no run; the runs
 * whose load began late, by how much. */
static void text_verdict(struct strbuf *sb, const struct report_fleet *f)
{
	size_t other = f->nr_hosts - f->nr_passed - f->nr_failed - f->nr_unjudged;
	struct strbuf why = STRBUF_INIT;

	if (f->nr_failed)
		strbuf_addf(&why, "%zu run(s) failed", f->nr_failed);
	if (f->nr_unjudged)
		strbuf_addf(&why, "%s%zu ended in an error or aborted", why.len ? ", " : "",
			    f->nr_unjudged);
	if (other)
		strbuf_addf(&why, "%s%zu without a verdict", why.len ? ", " : "", other);
	if (f->nr_missing)
		strbuf_addf(&why, "%s%zu expected host(s) missing", why.len ? ", " : "",
			    f->nr_missing);
	if (f->passed)
		strbuf_addstr(&why, f->nr_expected ? "every run passed, every expected host has one"
						   : "every run passed");
	strbuf_addf(sb, "fleet verdict: %s (%s)\n", f->passed ? "PASS" : "FAIL", why.buf);
	strbuf_release(&why);
	if (f->nr_missing) {
		strbuf_addstr(sb, "missing (expected, no run):");
		for (size_t i = 0; i < f->nr_missing; i++) {
			strbuf_addstr(sb, i ? ", " : " ");
			report_text_escape(sb, f->missing[i]);
		}
		strbuf_addch(sb, '\n');
	}
	for (size_t i = 0; i < f->nr_hosts; i++) {
		const struct report_fleet_host *h = &f->hosts[i];

		if (!h->late)
			continue;
		strbuf_addf(sb, "late: run %lld (", (long long)h->r->id);
		report_text_escape(sb, h->r->host);
		strbuf_addf(sb, ") began its load %.3f ms after its start time %s\n", h->late_ms,
			    h->r->start_at);
	}
}

void report_fleet_text(struct strbuf *sb, const struct report_fleet *f,
		       const struct report_options *opt)
{
	(void)opt;
	if (f->mixed)
		strbuf_addf(sb, "%s\n", f->mixed);
	/* the verdict first: what a reader signs on */
	text_verdict(sb, f);
	text_failed(sb, f);
	strbuf_addf(sb, "fleet of %zu run(s) on %zu host name(s): %zu failed", f->nr_hosts,
		    f->nr_host_names, f->nr_failed);
	/* a run that errored or was aborted has no FAIL, yet did not pass:
	 * "0 failed" alone would read as a fleet that passed */
	if (f->nr_unjudged)
		strbuf_addf(sb, ", %zu ended in an error or aborted (no verdict)", f->nr_unjudged);
	strbuf_addch(sb, '\n');
	if (f->nr_hosts < 2)
		strbuf_addstr(sb, "note: fewer than 2 runs: nothing to compare them with\n");
	if (f->unlike.len)
		strbuf_addf(sb, "warning: %s\n", f->unlike.buf);
	for (size_t i = 0; i < f->nr_skipped; i++)
		strbuf_addf(sb, "note: run %lld skipped: %s\n", (long long)f->skipped[i].id,
			    f->skipped[i].why);
	strbuf_addstr(sb, "start skew: ");
	if (f->has_skew)
		strbuf_addf(sb, "%.3f ms (the loads' latest start after the earliest)\n",
			    f->start_skew_ms);
	else
		strbuf_addstr(sb, "n/a (fewer than 2 runs recorded when their load started)\n");
	if (f->has_skew && f->nr_no_start_at) {
		strbuf_addstr(sb, "note: not started with --start-at, so not aligned: run(s)");
		for (size_t i = 0; i < f->nr_hosts; i++)
			if (!f->hosts[i].r->start_at)
				strbuf_addf(sb, " %lld", (long long)f->hosts[i].r->id);
		strbuf_addstr(sb, " (the skew says when each happened to begin)\n");
	}
	text_clocks(sb, f);
	if (f->nr_no_load) {
		strbuf_addstr(sb, "note: no load start recorded for run(s)");
		for (size_t i = 0; i < f->nr_hosts; i++)
			if (!f->hosts[i].has_load)
				strbuf_addf(sb, " %lld", (long long)f->hosts[i].r->id);
		strbuf_addch(sb, '\n');
	}
	strbuf_addch(sb, '\n');
	text_hosts(sb, f);
	text_differs(sb, f);
	text_totals(sb, f);
}
