/* SPDX-License-Identifier: MIT */
/*
 * text.c - a run as the terminal summary (report --format text): the
 * overall verdict, failing verdicts first with their margin, the error
 * events, the per-volume table (with bytes per I/O and the tail
 * percentiles), the target IOPS, the per-database table (latencies,
 * streams, sizes), the warm-up, auto-tune and host counters,
 * and the count of verdicts (report.h, docs/reports.md). Free text from the
 * results file is escaped so that nothing it holds reaches the terminal as
 * a control character.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report_internal.h"

#define ANSI_GREEN "\033[32m"
#define ANSI_RED "\033[31m"

/* PASS green, FAIL red, INCONCLUSIVE bold (when colour is on); anything
 * else plain. */
static void text_verdict_word(struct strbuf *sb, const char *word, bool color)
{
	const char *on = NULL;

	if (color && !strcmp(word, "PASS"))
		on = ANSI_GREEN;
	else if (color && !strcmp(word, "FAIL"))
		on = REPORT_ANSI_BOLD ANSI_RED;
	else if (color && !strcmp(word, "INCONCLUSIVE"))
		on = REPORT_ANSI_BOLD;
	if (on)
		strbuf_addf(sb, "%s%s%s", on, word, REPORT_ANSI_RESET);
	else
		strbuf_addstr(sb, word);
}

/*
 * A fleet run's start (run --start-at): the instant asked for, when the load
 * really began, and the clock that both were read on. Shown only for such
 * runs (or one whose clock was warned of): elsewhere they vary with the
 * machine and say nothing the run's figures do not (they are in the JSON).
 */
static void text_start_at(struct strbuf *sb, const struct results *r)
{
	struct report_clock c;

	report_clock_get(r, &c);
	if (!r->start_at && !c.warning)
		return;
	strbuf_addf(sb, "start at %s, load started %s\n", report_str_or(r->start_at, "-"),
		    report_str_or(r->load_started_at, "-"));
	if (!c.recorded)
		return;
	strbuf_addf(sb, "Clock: %s",
		    !strcmp(c.synchronised, "yes")  ? "synchronised"
		    : !strcmp(c.synchronised, "no") ? "not synchronised"
						    : "synchronisation unknown");
	if (isfinite(c.max_error_ms))
		strbuf_addf(sb, ", max error %.3f ms", c.max_error_ms);
	if (isfinite(c.est_error_ms))
		strbuf_addf(sb, ", est. error %.3f ms", c.est_error_ms);
	strbuf_addf(sb, ", daemon %s\n", report_str_or(c.daemon, "unknown"));
	if (c.warning)
		strbuf_addf(sb, "warning: %s\n", c.warning);
}

static void text_headline(struct strbuf *sb, const struct results *r, bool color)
{
	const char *verdict = report_str_or(r->verdict, "NONE");
	bool inconclusive = results_inconclusive(r) && !strcmp(verdict, "PASS");

	strbuf_addf(sb, "diskproof run %" PRId64 ": ", r->id);
	/* figures that pass but that the device did not give: not a PASS */
	text_verdict_word(sb, inconclusive ? "INCONCLUSIVE" : verdict, color);
	if (inconclusive)
		strbuf_addstr(sb, " (the figures pass, but the reads did not reach the device)");
	if (r->status && strcmp(r->status, "passed") && strcmp(r->status, "failed"))
		strbuf_addf(sb, " (%s)", r->status);
	if (r->label)
		strbuf_addf(sb, " [%s]", r->label);
	/* on the first line: a simulated run's figures are no device's */
	if (results_simulated(r))
		strbuf_addstr(sb, " (simulated: engine sim, no device measured)");
	strbuf_addch(sb, '\n');

	strbuf_addf(sb,
		    "profile %s, %s test, engine %s, %u streams; measured %.0f s after %.0f s of "
		    "warm-up\n",
		    report_str_or(r->profile_name, "-"), report_str_or(r->test_type, "-"),
		    report_str_or(r->engine, "-"), r->streams,
		    isfinite(r->duration_s) ? r->duration_s : 0, results_warmup_ran_s(r));
	strbuf_addf(sb, "host %s, started %s, ended %s\n", report_str_or(r->host, "-"),
		    report_str_or(r->started_at, "-"), report_str_or(r->ended_at, "-"));
	text_start_at(sb, r);
	if (r->series_uuid) {
		report_series_place(sb, r);
		strbuf_addch(sb, '\n');
	}
}

/* Whether the reads reached the devices (results_reads_reach), in the
 * verdict block when it changes what the verdict means: not reached (the
 * run is inconclusive) or not checked. A run whose reads reached them says
 * it in the JSON and the HTML only. */
static void text_reads_reach(struct strbuf *sb, const struct results *r, bool color)
{
	const char *msg, *st = results_reads_reach(r, &msg);

	if (!st || !strcmp(st, "reached"))
		return;
	strbuf_addstr(sb, "  ");
	if (!strcmp(st, "not_reached"))
		text_verdict_word(sb, "INCONCLUSIVE", color);
	else
		strbuf_addstr(sb, "note");
	strbuf_addch(sb, ' ');
	report_text_escape(sb, msg);
	strbuf_addch(sb, '\n');
}

/* The device under a verdict's volume (a database's, or the volume's own),
 * NULL when the run recorded none (sim) or the verdict is the run's. */
static const char *text_verdict_device(const struct results *r, const struct verdict *v)
{
	if (v->scope == SCOPE_DATABASE && v->volume[0])
		return report_volume_device(r, v->volume);
	if (v->scope == SCOPE_VOLUME)
		return report_volume_device(r, v->name);
	return NULL;
}

static void text_verdicts(struct strbuf *sb, const struct results *r, bool passed, bool color)
{
	size_t i;

	for (i = 0; i < r->nr_verdicts; i++) {
		if (r->verdicts[i].passed != passed)
			continue;
		strbuf_addstr(sb, "  ");
		text_verdict_word(sb, passed ? "PASS" : "FAIL", color);
		strbuf_addch(sb, ' ');
		report_verdict_line_at(sb, &r->verdicts[i],
				       text_verdict_device(r, &r->verdicts[i]));
		report_verdict_margin(sb, &r->verdicts[i]);
		report_verdict_context(sb, r, &r->verdicts[i]);
		strbuf_addch(sb, '\n');
	}
}

static void text_ms(struct strbuf *sb, double ms)
{
	strbuf_addf(sb, " %9.3f", isfinite(ms) ? ms : 0.0);
}

/* What every part of the text report is drawn with: colour, the width its
 * lines fit in, and whether the tables keep all their columns. */
struct text_ctx {
	bool color;
	size_t width;
	bool wide;
};

/* A table cell: v with decimals, "-" when undefined. */
static void text_cell_fig(struct strbuf *cell, double v, int decimals)
{
	if (isfinite(v))
		strbuf_addf(cell, "%.*f", decimals, v);
	else
		strbuf_addch(cell, '-');
}

/*
 * The per-volume table's columns, the least needed dropped first to fit the
 * width: p99.99, bytes per I/O, the count of I/Os, p99.9, MB/s, then the
 * slowest single I/O (the sample average, what max_basis = sample judges,
 * goes last). Volume, class, IOPS, average, p99 and verdict always stay.
 */
enum {
	VT_NAME,
	VT_CLASS,
	VT_IOS,
	VT_IOPS,
	VT_MBPS,
	VT_BIO,
	VT_AVG,
	VT_P99,
	VT_P999,
	VT_P9999,
	VT_SLOWEST,
	VT_SMP,
	VT_VERDICT,
	VT_COUNT
};

static const struct report_col volume_cols[VT_COUNT] = {
	[VT_NAME] = {NULL, "volume", 6, true, 0, 0},
	[VT_CLASS] = {NULL, "class", 11, true, 2, 0},
	[VT_IOS] = {NULL, "IOs", 12, false, 1, 5},
	[VT_IOPS] = {NULL, "IOPS", 10, false, 1, 0},
	[VT_MBPS] = {NULL, "MB/s", 9, false, 1, 3},
	[VT_BIO] = {NULL, "B/IO", 7, false, 1, 6},
	[VT_AVG] = {NULL, "avg ms", 9, false, 1, 0},
	[VT_P99] = {NULL, "p99 ms", 9, false, 1, 0},
	[VT_P999] = {NULL, "p99.9 ms", 9, false, 1, 4},
	[VT_P9999] = {NULL, "p99.99 ms", 9, false, 1, 7},
	[VT_SLOWEST] = {NULL, "slowest ms", 10, false, 1, 2},
	[VT_SMP] = {NULL, "max smp avg", 11, false, 1, 1},
	[VT_VERDICT] = {NULL, "verdict", 7, true, 2, 0},
};

/*
 * One row per class present in the scope (results_class_present); the first
 * carries the label and the verdict. A scope with no class present (it moved
 * nothing, or a run that has not measured yet) still gets its line.
 */
static void text_scope_rows(struct strbuf *sb, struct report_table *t,
			    const struct scope_summary *sc, const char *label, const char *verdict,
			    bool color)
{
	const struct class_summary *cs;
	bool first = true;
	int c;

	for (c = 0; c < IO_CLASS_COUNT; c++) {
		cs = &sc->classes[c];
		if (!results_class_present(cs))
			continue;
		strbuf_addstr(&t->cell[VT_NAME], first ? label : "");
		strbuf_addstr(&t->cell[VT_CLASS], stats_io_class_name(c));
		strbuf_addf(&t->cell[VT_IOS], "%" PRIu64, cs->ios);
		strbuf_addf(&t->cell[VT_IOPS], "%.1f", isfinite(cs->iops) ? cs->iops : 0.0);
		strbuf_addf(&t->cell[VT_MBPS], "%.2f", isfinite(cs->mbps) ? cs->mbps : 0.0);
		text_cell_fig(&t->cell[VT_BIO], results_class_avg_bytes(cs), 0);
		strbuf_addf(&t->cell[VT_AVG], "%.3f", isfinite(cs->avg_ms) ? cs->avg_ms : 0.0);
		strbuf_addf(&t->cell[VT_P99], "%.3f", isfinite(cs->p99_ms) ? cs->p99_ms : 0.0);
		text_cell_fig(&t->cell[VT_P999], cs->p999_ms, 3);
		text_cell_fig(&t->cell[VT_P9999], cs->p9999_ms, 3);
		strbuf_addf(&t->cell[VT_SLOWEST], "%.3f", isfinite(cs->max_ms) ? cs->max_ms : 0.0);
		text_cell_fig(&t->cell[VT_SMP], cs->max_sample_avg_ms, 3);
		if (first)
			text_verdict_word(&t->cell[VT_VERDICT], verdict, color);
		report_table_row(sb, t);
		first = false;
	}
	if (!first)
		return;
	strbuf_addstr(&t->cell[VT_NAME], label);
	strbuf_addstr(&t->cell[VT_CLASS], "(no I/O)");
	text_verdict_word(&t->cell[VT_VERDICT], verdict, color);
	report_table_row(sb, t);
}

static double finite_or_0(double v)
{
	return isfinite(v) ? v : 0.0;
}

/*
 * "words: 4.19 MB/s, 1.05 MB/s per database" for a class read at a rate per
 * database (background maintenance, backup), when present: the run's rate
 * and the range of the databases' own stored rates (results_db_mbps_range),
 * one figure when both ends read the same.
 */
static void text_rate_line(struct strbuf *sb, const struct results *r, enum io_class c,
			   const char *words)
{
	struct strbuf lo = STRBUF_INIT, hi = STRBUF_INIT;
	double min, max;

	if (!results_class_present(&r->run.classes[c]))
		return;
	strbuf_addf(sb, "%s: %.2f MB/s", words, finite_or_0(r->run.classes[c].mbps));
	if (results_db_mbps_range(r, c, &min, &max)) {
		strbuf_addf(&lo, "%.2f", min);
		strbuf_addf(&hi, "%.2f", max);
		if (strcmp(lo.buf, hi.buf))
			strbuf_addf(sb, ", %s to %s MB/s per database", lo.buf, hi.buf);
		else
			strbuf_addf(sb, ", %s MB/s per database", lo.buf);
	}
	strbuf_addch(sb, '\n');
	strbuf_release(&lo);
	strbuf_release(&hi);
}

/*
 * "page fault stalls: 0.125/s (15 in all); v1 0.125/s, v2 0/s; per database
 * 0 to 0.1/s", for a run that counted them.
 */
static void text_stalls_line(struct strbuf *sb, const struct results *r)
{
	double min, max;

	if (!r->run.stalls_recorded)
		return;
	strbuf_addstr(sb, "page fault stalls: ");
	report_number(sb, r->run.page_fault_stalls_per_s, 3);
	strbuf_addf(sb, "/s (%" PRIu64 " in all)", r->run.page_fault_stalls);
	for (size_t i = 0; i < r->nr_volumes; i++) {
		if (!r->volumes[i].stalls_recorded)
			continue;
		strbuf_addf(sb, "%s%s ", i ? ", " : "; ", r->volumes[i].name);
		report_number(sb, r->volumes[i].page_fault_stalls_per_s, 3);
		strbuf_addstr(sb, "/s");
	}
	if (results_db_stalls_range(r, &min, &max)) {
		strbuf_addstr(sb, "; per database ");
		report_number(sb, min, 3);
		if (max != min) {
			strbuf_addstr(sb, " to ");
			report_number(sb, max, 3);
		}
		strbuf_addstr(sb, "/s");
	}
	strbuf_addch(sb, '\n');
}

/* "a to b" (or "a" when they print alike) with decimals. */
static void text_range(struct strbuf *sb, double lo, double hi, int decimals)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;

	strbuf_addf(&a, "%.*f", decimals, lo);
	strbuf_addf(&b, "%.*f", decimals, hi);
	strbuf_addstr(sb, a.buf);
	if (strcmp(a.buf, b.buf))
		strbuf_addf(sb, " to %s", b.buf);
	strbuf_release(&a);
	strbuf_release(&b);
}

/*
 * "transactions: 123456 (1028.8/s); 2.2 commits per log write", then "per
 * transaction: 1.24 db reads, 1.31 db writes, 0.61 log writes, 14.0 KB log"
 * (two lines: one is over 120 columns), for a
 * run that counted them (never "0 transactions" for one that did not: the
 * fixed model, backup, a file before schema 9), KB of 1000 bytes; then the
 * databases' ranges, "transactions per database: 676.3 to 679.3/s; 1.0 to
 * 1.1 commits per log write" (the per-database table has no room left in
 * its 100 columns; JSON and HTML have each database's figures).
 */
static void text_txn_lines(struct strbuf *sb, const struct results *r)
{
	double lo = INFINITY, hi = -INFINITY, clo = INFINITY, chi = -INFINITY;
	struct results_scope_txn_figures t;

	if (!results_scope_txn_figures(&r->run, &t))
		return;
	strbuf_addf(sb, "transactions: %" PRIu64 " (%.1f/s)", t.count, t.per_second);
	if (isfinite(t.commits_per_log_write))
		strbuf_addf(sb, "; %.1f commits per log write", t.commits_per_log_write);
	strbuf_addch(sb, '\n');
	if (t.count)
		strbuf_addf(sb,
			    "per transaction: %.2f db reads, %.2f db writes, %.2f log writes, "
			    "%.1f KB log\n",
			    t.db_reads, t.db_writes, t.log_writes, t.log_bytes / 1e3);
	for (size_t i = 0; i < r->nr_databases; i++) {
		if (!results_scope_txn_figures(&r->databases[i], &t))
			continue;
		lo = fmin(lo, t.per_second);
		hi = fmax(hi, t.per_second);
		if (isfinite(t.commits_per_log_write)) {
			clo = fmin(clo, t.commits_per_log_write);
			chi = fmax(chi, t.commits_per_log_write);
		}
	}
	if (r->nr_databases < 2 || lo > hi)
		return;
	strbuf_addstr(sb, "transactions per database: ");
	text_range(sb, lo, hi, 1);
	strbuf_addstr(sb, "/s");
	if (clo <= chi) {
		strbuf_addstr(sb, "; ");
		text_range(sb, clo, chi, 1);
		strbuf_addstr(sb, " commits per log write");
	}
	strbuf_addch(sb, '\n');
}

/*
 * "target transactional IOPS: 1450: PASS", always: "none" for a run judged
 * without an IOPS criterion, "unknown" for one nothing judged.
 */
static void text_target_line(struct strbuf *sb, const struct results *r, bool color)
{
	double target;
	enum results_target t = results_target_iops(r, &target);

	strbuf_addstr(sb, "target transactional IOPS: ");
	switch (t) {
	case RESULTS_TARGET_PASSED:
	case RESULTS_TARGET_FAILED:
		report_number(sb, target, 1);
		strbuf_addstr(sb, ": ");
		text_verdict_word(sb, t == RESULTS_TARGET_PASSED ? "PASS" : "FAIL", color);
		break;
	case RESULTS_TARGET_NONE:
		strbuf_addstr(sb, "none (no IOPS criterion: the profile sets no target)");
		break;
	default:
		if (isfinite(target)) {
			report_number(sb, target, 1);
			strbuf_addstr(sb, " (the run was not judged)");
			break;
		}
		strbuf_addstr(sb, "unknown (the run was not judged)");
		break;
	}
	strbuf_addch(sb, '\n');
}

/* "(not shown within 120 columns: IOs, B/IO: report --wide)" when the
 * table dropped columns to fit. */
static void text_dropped_note(struct strbuf *sb, const struct report_table *t,
			      const struct text_ctx *x)
{
	struct strbuf d = STRBUF_INIT;

	if (report_table_dropped(&d, t))
		strbuf_addf(sb, "(not shown within %zu columns: %s; report --wide shows them)\n",
			    x->width, d.buf);
	strbuf_release(&d);
}

static void text_table(struct strbuf *sb, const struct results *r, const struct text_ctx *x)
{
	const struct class_summary *lr = &r->run.classes[IO_LOG_READ];
	const struct class_summary *lw = &r->run.classes[IO_LOG_WRITE];
	double tiops = results_scope_transactional_iops(&r->run);
	struct report_col cols[VT_COUNT];
	struct report_table t;
	char smp[32] = "max smp avg";
	bool color = x->color;
	size_t i;

	/* "max" alone would be two figures (issue 30): the slowest single I/O,
	 * and the highest average over one sample, named with its length */
	if (r->sample_s > 0)
		snprintf(smp, sizeof(smp), "max %.0fs avg", r->sample_s);
	memcpy(cols, volume_cols, sizeof(cols));
	cols[VT_SMP].head = smp;
	report_table_init(&t, cols, VT_COUNT);
	for (i = 0; i < r->nr_volumes; i++)
		if ((int)strlen(r->volumes[i].name) > t.width[VT_NAME])
			t.width[VT_NAME] = (int)strlen(r->volumes[i].name);
	report_table_fit(&t, x->width, x->wide);
	report_table_head(sb, &t);
	for (i = 0; i < r->nr_volumes; i++)
		text_scope_rows(sb, &t, &r->volumes[i], r->volumes[i].name,
				report_scope_verdict(r, SCOPE_VOLUME, r->volumes[i].name, NULL),
				color);
	text_scope_rows(sb, &t, &r->run, "total", report_str_or(r->verdict, "-"), color);
	if (r->sample_s > 0 && t.show[VT_SLOWEST] && t.show[VT_SMP])
		strbuf_addf(sb,
			    "(slowest ms: the slowest single I/O; %s: the highest average over "
			    "one %.0f s sample, in ms)\n",
			    smp, r->sample_s);
	else if (r->sample_s > 0 && t.show[VT_SMP])
		strbuf_addf(sb, "(%s: the highest average over one %.0f s sample, in ms)\n", smp,
			    r->sample_s);
	if (t.show[VT_BIO] && t.show[VT_P999])
		strbuf_addstr(sb, "(B/IO: average bytes per I/O; p99.9 and p99.99 from the "
				  "whole-run histograms)\n");
	else if (t.show[VT_P999])
		strbuf_addstr(sb, "(p99.9 from the whole-run histograms)\n");
	text_dropped_note(sb, &t, x);
	report_table_release(&t);
	strbuf_addch(sb, '\n');
	/* a run with no database I/O (a backup test) has no transactional IOPS */
	bool transactional = results_class_present(&r->run.classes[IO_DB_READ]) ||
			     results_class_present(&r->run.classes[IO_DB_WRITE]) ||
			     !results_class_present(&r->run.classes[IO_BACKUP_READ]);

	if (transactional)
		strbuf_addf(sb, "achieved transactional IOPS: %.1f%s", finite_or_0(tiops),
			    r->run.integrity_errors ? "; " : "\n");
	if (r->run.integrity_errors)
		strbuf_addf(sb, "integrity errors: %" PRIu64 "\n", r->run.integrity_errors);
	if (transactional)
		text_target_line(sb, r, color);
	text_txn_lines(sb, r);
	text_stalls_line(sb, r);
	text_rate_line(sb, r, IO_BDM_READ, "background maintenance reads");
	if (results_class_present(lr))
		strbuf_addf(sb, "replication log reads: %.2f MB/s (log writes %.2f MB/s)\n",
			    finite_or_0(lr->mbps), finite_or_0(lw->mbps));
	text_rate_line(sb, r, IO_BACKUP_READ, "backup reads");
}

/*
 * A database size in the table's unit (MiB, or GiB for large databases),
 * "-" when not known; into a buffer so that the cell is right-aligned.
 */
static void text_size(struct strbuf *sb, bool known, uint64_t bytes, double unit)
{
	if (known)
		report_number(sb, (double)bytes / unit, 1);
	else
		strbuf_addch(sb, '-');
}

/* "256 -> 256": a database's (or the total's) sizes in the table's unit. */
static void text_size_pair(struct strbuf *cell, const struct scope_summary *d, double unit)
{
	text_size(cell, d->size_known, d->size, unit);
	strbuf_addstr(cell, " -> ");
	text_size(cell, d->final_size_known, d->final_size, unit);
}

/* The width of the size column: its head, or its widest cell. */
static int text_size_width(const struct results *r, double unit)
{
	struct strbuf cell = STRBUF_INIT;
	int w = (int)strlen("start -> end");

	for (size_t i = 0; i <= r->nr_databases; i++) {
		strbuf_reset(&cell);
		text_size_pair(&cell, i < r->nr_databases ? &r->databases[i] : &r->run, unit);
		if ((int)cell.len > w)
			w = (int)cell.len;
	}
	strbuf_release(&cell);
	return w;
}

/*
 * The per-database table's columns: the size goes first when the width is
 * short, then the db_read p99, the streams, the log_write slowest, the
 * db_read slowest; name, volume, IOPS, both averages and the verdict stay.
 */
enum {
	DT_NAME,
	DT_VOLUME,
	DT_STREAMS,
	DT_IOPS,
	DT_RD_AVG,
	DT_RD_P99,
	DT_RD_MAX,
	DT_LW_AVG,
	DT_LW_MAX,
	DT_SIZE,
	DT_VERDICT,
	DT_COUNT
};

static const struct report_col database_cols[DT_COUNT] = {
	[DT_NAME] = {NULL, "database", 8, true, 0, 0},
	[DT_VOLUME] = {NULL, "volume", 6, true, 2, 0},
	[DT_STREAMS] = {NULL, "streams", 7, false, 2, 3},
	[DT_IOPS] = {"transact", "IOPS", 8, false, 1, 0},
	[DT_RD_AVG] = {"db_read ms", "avg", 7, false, 1, 0},
	[DT_RD_P99] = {"db_read ms", "p99", 7, false, 1, 4},
	[DT_RD_MAX] = {"db_read ms", "slowest", 7, false, 1, 1},
	[DT_LW_AVG] = {"log_write ms", "avg", 7, false, 1, 0},
	[DT_LW_MAX] = {"log_write ms", "slowest", 7, false, 1, 2},
	[DT_SIZE] = {"size MiB", "start -> end", 12, false, 2, 5},
	[DT_VERDICT] = {NULL, "verdict", 7, true, 2, 0},
};

/* One line of the per-database table: a database, or the total. */
static void text_db_row(struct strbuf *sb, struct report_table *t, const struct scope_summary *d,
			const char *volume, double unit, const char *verdict, bool color)
{
	const struct class_summary *rd = &d->classes[IO_DB_READ], *lw = &d->classes[IO_LOG_WRITE];
	bool has_rd = results_class_present(rd), has_lw = results_class_present(lw);

	strbuf_addstr(&t->cell[DT_NAME], d->name);
	strbuf_addstr(&t->cell[DT_VOLUME], volume);
	text_cell_fig(&t->cell[DT_STREAMS], d->streams, 2);
	text_cell_fig(&t->cell[DT_IOPS], results_scope_transactional_iops(d), 1);
	text_cell_fig(&t->cell[DT_RD_AVG], has_rd ? rd->avg_ms : NAN, 3);
	text_cell_fig(&t->cell[DT_RD_P99], has_rd ? rd->p99_ms : NAN, 3);
	text_cell_fig(&t->cell[DT_RD_MAX], has_rd ? rd->max_ms : NAN, 3);
	text_cell_fig(&t->cell[DT_LW_AVG], has_lw ? lw->avg_ms : NAN, 3);
	text_cell_fig(&t->cell[DT_LW_MAX], has_lw ? lw->max_ms : NAN, 3);
	text_size_pair(&t->cell[DT_SIZE], d, unit);
	text_verdict_word(&t->cell[DT_VERDICT], verdict, color);
	report_table_row(sb, t);
}

/*
 * Per database: its volume, time-averaged streams (the stream pool's share,
 * "-" for a run of a file before they were stored), transactional IOPS,
 * database read average, p99 and slowest I/O ("slowest", never "max": a
 * max threshold may judge a sample average), log write average and slowest,
 * size at the start and at the end, verdict; then the total. About 100
 * columns with short names, one line per database; fewer columns when the
 * width is less (text_ctx).
 */
static void text_databases(struct strbuf *sb, const struct results *r, const struct text_ctx *x)
{
	struct report_col cols[DT_COUNT];
	double unit = 1024.0 * 1024.0;
	struct report_table t;
	bool unknown = false;
	size_t i;

	/* a backup test's databases did no transactional I/O: its JSON and
	 * HTML have their sizes */
	if (!r->nr_databases || (!results_class_present(&r->run.classes[IO_DB_READ]) &&
				 !results_class_present(&r->run.classes[IO_DB_WRITE])))
		return;
	memcpy(cols, database_cols, sizeof(cols));
	report_table_init(&t, cols, DT_COUNT);
	for (i = 0; i < r->nr_databases; i++) {
		const struct scope_summary *d = &r->databases[i];

		if ((int)strlen(d->name) > t.width[DT_NAME])
			t.width[DT_NAME] = (int)strlen(d->name);
		if ((int)strlen(d->volume) > t.width[DT_VOLUME])
			t.width[DT_VOLUME] = (int)strlen(d->volume);
		unknown = unknown || !d->size_known || !d->final_size_known;
		if (d->size >= (100ULL << 30) || d->final_size >= (100ULL << 30))
			unit = 1024.0 * 1024.0 * 1024.0;
	}
	if (unit > 1024.0 * 1024.0)
		cols[DT_SIZE].group = "size GiB";
	t.width[DT_SIZE] = text_size_width(r, unit);
	report_table_fit(&t, x->width, x->wide);
	strbuf_addch(sb, '\n');
	report_table_head(sb, &t);
	for (i = 0; i < r->nr_databases; i++) {
		const struct scope_summary *d = &r->databases[i];

		text_db_row(sb, &t, d, d->volume, unit,
			    report_scope_verdict(r, SCOPE_DATABASE, d->name, d->volume), x->color);
	}
	{
		struct scope_summary total = r->run;

		snprintf(total.name, sizeof(total.name), "total");
		text_db_row(sb, &t, &total, "", unit, report_str_or(r->verdict, "-"), x->color);
	}
	if (unknown && t.show[DT_SIZE])
		strbuf_addstr(sb, "(size -: not known; a run killed before its end stored no final "
				  "size)\n");
	text_dropped_note(sb, &t, x);
	report_table_release(&t);
}

/* The warm-up's classes, apart from the table: measured, never judged. */
static void text_warmup(struct strbuf *sb, const struct results *r)
{
	const struct results_warmup_class *wc;
	int c;

	if (!(r->warmup.duration_s > 0))
		return;
	strbuf_addstr(sb, "\nwarm-up (not judged): ");
	report_number(sb, r->warmup.duration_s, 3);
	strbuf_addf(sb, " s\n  %-11s %12s %10s %9s\n", "class", "IOs", "IOPS", "avg ms");
	for (c = 0; c < IO_CLASS_COUNT; c++) {
		wc = &r->warmup.classes[c];
		if (!wc->ios && !wc->errors)
			continue;
		strbuf_addf(sb, "  %-11s %12" PRIu64 " %10.1f", stats_io_class_name(c), wc->ios,
			    finite_or_0(wc->iops));
		text_ms(sb, wc->avg_ms);
		if (wc->errors)
			strbuf_addf(sb, "  %" PRIu64 " errors", wc->errors);
		strbuf_addch(sb, '\n');
	}
}

/* A number of the auto-tune table, "-" when not stored. */
static void text_cell(struct strbuf *sb, int width, double v, int decimals)
{
	if (isfinite(v))
		strbuf_addf(sb, "  %*.*f", width, decimals, v);
	else
		strbuf_addf(sb, "  %*s", width, "-");
}

/* What auto-tune tried, what it chose and why it stopped. */
static void text_autotune(struct strbuf *sb, const struct results *r)
{
	const struct results_autotune *a = &r->autotune;
	const struct results_autotune_step *st;
	size_t i;

	if (!results_autotune_ran(r))
		return;
	strbuf_addf(sb, "\nauto-tune (goal %s): ", report_str_or(a->goal, "-"));
	if (!a->has_chosen)
		strbuf_addstr(sb, "no choice recorded");
	else if (a->chosen)
		strbuf_addf(sb, "chose %u streams", a->chosen);
	else
		strbuf_addstr(sb, "no level passed");
	if (a->stopped_because)
		strbuf_addf(sb, "; stopped: %s", a->stopped_because);
	strbuf_addch(sb, '\n');
	if (a->note)
		strbuf_addf(sb, "  %s\n", a->note);
	if (!a->nr_steps)
		return;
	strbuf_addf(sb, "  %4s  %8s  %7s  %10s  %14s  %16s  %-6s  %s\n", "step", "t (s)", "streams",
		    "IOPS", "db read avg ms", "log write avg ms", "result", "reason");
	for (i = 0; i < a->nr_steps; i++) {
		st = &a->steps[i];
		strbuf_addf(sb, "  %4u", st->step);
		text_cell(sb, 8, st->t_s, 1);
		strbuf_addf(sb, "  %7u", st->streams);
		text_cell(sb, 10, st->iops, 1);
		text_cell(sb, 14, st->db_read_avg_ms, 3);
		text_cell(sb, 16, st->log_write_avg_ms, 3);
		strbuf_addf(sb, "  %-6s  %s\n", st->passed ? "pass" : "fail",
			    report_str_or(st->reason, ""));
	}
}

/* A figure of the host table: "-" when undefined (no I/O, no span). */
static void text_fig(struct strbuf *sb, int width, double v, int decimals)
{
	if (isfinite(v))
		strbuf_addf(sb, " %*.*f", width, decimals, v);
	else
		strbuf_addf(sb, " %*s", width, "-");
}

/*
 * The host while the run was measured (results_host_perf): CPU shares,
 * memory available's lowest, and a row per block device under the volumes.
 * Nothing for a run without host counters.
 */
enum {
	HT_NAME,
	HT_READS,
	HT_WRITES,
	HT_RD_MBPS,
	HT_WR_MBPS,
	HT_RD_MS,
	HT_WR_MS,
	HT_AVG_MS,
	HT_UTIL,
	HT_QUEUE,
	HT_COUNT
};

/* The host's devices: the queue depth goes first, then the read and write
 * waits apart and the MB/s (their average wait and the utilisation stay). */
static const struct report_col host_cols[HT_COUNT] = {
	[HT_NAME] = {NULL, "device", 8, true, 2, 0},
	[HT_READS] = {NULL, "reads/s", 9, false, 1, 0},
	[HT_WRITES] = {NULL, "writes/s", 9, false, 1, 0},
	[HT_RD_MBPS] = {NULL, "rd MB/s", 9, false, 1, 2},
	[HT_WR_MBPS] = {NULL, "wr MB/s", 9, false, 1, 1},
	[HT_RD_MS] = {NULL, "rd ms", 8, false, 1, 4},
	[HT_WR_MS] = {NULL, "wr ms", 8, false, 1, 3},
	[HT_AVG_MS] = {NULL, "avg ms", 8, false, 1, 0},
	[HT_UTIL] = {NULL, "util %", 6, false, 1, 0},
	[HT_QUEUE] = {NULL, "queue", 6, false, 1, 5},
};

static void text_host(struct strbuf *sb, const struct results *r, const struct text_ctx *x)
{
	const struct results_host_perf *h = &r->host_perf;
	const struct results_host_device *d;
	struct report_table t;
	size_t i;

	if (!h->recorded)
		return;
	strbuf_addstr(sb, "\nhost performance (measured intervals):\n  cpu");
	if (h->cpu_intervals) {
		strbuf_addstr(sb, " user ");
		report_number(sb, h->cpu_user_pct, 1);
		strbuf_addstr(sb, " %, system ");
		report_number(sb, h->cpu_system_pct, 1);
		strbuf_addstr(sb, " %, iowait ");
		report_number(sb, h->cpu_iowait_pct, 1);
		strbuf_addstr(sb, " %");
	} else {
		strbuf_addstr(sb, " not measured");
	}
	strbuf_addstr(sb, "; memory available");
	if (h->mem_intervals) {
		strbuf_addstr(sb, " min");
		text_fig(sb, 0, h->mem_available_min / (1024.0 * 1024.0), 1);
		strbuf_addstr(sb, " MiB, mean");
		text_fig(sb, 0, h->mem_available_avg / (1024.0 * 1024.0), 1);
		strbuf_addstr(sb, " MiB\n");
	} else
		strbuf_addstr(sb, " not measured\n");
	if (!h->nr_devices)
		return;
	report_table_init(&t, host_cols, HT_COUNT);
	for (i = 0; i < h->nr_devices; i++)
		if ((int)strlen(h->devices[i].name) > t.width[HT_NAME])
			t.width[HT_NAME] = (int)strlen(h->devices[i].name);
	report_table_fit(&t, x->width, x->wide);
	report_table_head(sb, &t);
	for (i = 0; i < h->nr_devices; i++) {
		d = &h->devices[i];
		report_text_escape(&t.cell[HT_NAME], d->name);
		text_cell_fig(&t.cell[HT_READS], d->reads_per_s, 1);
		text_cell_fig(&t.cell[HT_WRITES], d->writes_per_s, 1);
		text_cell_fig(&t.cell[HT_RD_MBPS], d->read_mbps, 2);
		text_cell_fig(&t.cell[HT_WR_MBPS], d->write_mbps, 2);
		text_cell_fig(&t.cell[HT_RD_MS], d->read_wait_ms, 3);
		text_cell_fig(&t.cell[HT_WR_MS], d->write_wait_ms, 3);
		text_cell_fig(&t.cell[HT_AVG_MS], d->avg_wait_ms, 3);
		text_cell_fig(&t.cell[HT_UTIL], d->util_pct, 1);
		text_cell_fig(&t.cell[HT_QUEUE], d->queue, 2);
		report_table_row(sb, &t);
	}
	text_dropped_note(sb, &t, x);
	report_table_release(&t);
}

/* A volume's environment fact (PREFIX.VOLUME.FACT); NULL when not recorded
 * or "unknown". */
static const char *volume_fact(const struct results *r, const char *prefix, const char *vol,
			       const char *fact)
{
	struct strbuf key = STRBUF_INIT;
	const char *v;

	strbuf_addf(&key, "%s.%s.%s", prefix, vol, fact);
	v = results_env_get(r, key.buf);
	strbuf_release(&key);
	return v && *v && strcmp(v, "unknown") ? v : NULL;
}

/*
 * Each volume with the block device under it, as the run recorded them
 * (env/env.c): "disk3  /mnt/d3  loop8 (7:8)", the mount point (or the
 * device itself) cut to stay within the width (60 columns of 120, fewer
 * on a narrower one). Nothing for a run that
 * recorded no device (sim).
 */
static void text_volume_devices(struct strbuf *sb, const struct results *r, size_t width)
{
	/* the mount point takes what the width leaves: 60 at 120 columns */
	int mw = width > 60 + 60 ? 60 : width > 20 + 60 ? (int)width - 60 : 20;
	bool any = false;

	for (size_t i = 0; i < r->nr_volumes; i++) {
		const char *vol = r->volumes[i].name, *dev = report_volume_device(r, vol);
		const char *mnt = volume_fact(r, "volume", vol, "mount_point");
		const char *devno = volume_fact(r, "device", vol, "devno");
		struct strbuf m = STRBUF_INIT;

		if (!dev)
			continue;
		if (!any)
			strbuf_addf(sb, "\nvolumes and their devices:\n  %-16s %-*s %s\n", "volume",
				    mw, "mounted on", "device");
		any = true;
		report_text_escape(&m, mnt ? mnt : "-");
		if ((int)m.len > mw) /* the path's end says most */
			strbuf_addf(sb, "  %-16.16s ...%-*s ", vol, mw - 3,
				    m.buf + m.len - (size_t)(mw - 3));
		else
			strbuf_addf(sb, "  %-16.16s %-*s ", vol, mw, m.buf);
		strbuf_reset(&m);
		report_text_escape(&m, dev);
		strbuf_addf(sb, "%.24s", m.buf);
		if (devno)
			strbuf_addf(sb, " (%.12s)", devno);
		strbuf_addch(sb, '\n');
		strbuf_release(&m);
	}
}

/* The run's error events (bad pages, failed and hung I/Os): the first few,
 * how many more are stored, and how many were past the store's cap. */
#define TEXT_ERRORS_SHOWN 10

static void text_errors(struct strbuf *sb, const struct results *r)
{
	size_t n = results_events_count(r, "error"), shown = 0;

	if (!n)
		return;
	strbuf_addf(sb, "\nerrors (%zu stored):\n", n);
	for (size_t i = 0; i < r->nr_events && shown < TEXT_ERRORS_SHOWN; i++) {
		if (strcmp(r->events[i].kind, "error"))
			continue;
		strbuf_addf(sb, "  %8.1f s  %s\n", (double)r->events[i].t_ms / 1000.0,
			    r->events[i].message);
		shown++;
	}
	if (n > shown)
		strbuf_addf(sb, "  ... %zu more stored: the HTML report lists every one\n",
			    n - shown);
	for (size_t i = 0; i < r->nr_events; i++)
		if (!strcmp(r->events[i].kind, "events_dropped"))
			strbuf_addf(sb, "  %s\n", r->events[i].message);
}

/* A backup or recovery test's figures as the run recorded them (its
 * "backup" or "recovery" events: each database's, then the run's). */
static void text_pass_figures(struct strbuf *sb, const struct results *r)
{
	const char *kind = r->test_type;
	bool any = false;

	if (!kind || (strcmp(kind, "backup") && strcmp(kind, "recovery")))
		return;
	for (size_t i = 0; i < r->nr_events; i++) {
		if (strcmp(r->events[i].kind, kind))
			continue;
		if (!any)
			strbuf_addf(sb, "\n%s figures:\n", kind);
		strbuf_addstr(sb, "  ");
		report_text_escape(sb, r->events[i].message);
		strbuf_addch(sb, '\n');
		any = true;
	}
}

/*
 * Open loop: the response time shown where it changes the conclusion, a
 * db_read criterion the service time met and the response time (the
 * tool's own wait for a stream included) would not; and which figure the
 * thresholds judged when the profile asked for the response time. The
 * figures themselves are in JSON and HTML.
 */
static void text_response(struct strbuf *sb, const struct results *r)
{
	const struct verdict *v;
	double fig;
	size_t i = 0;
	bool any = false;

	if (r->run.response_recorded && r->run.response[IO_DB_READ].ios &&
	    results_response_judged(r))
		strbuf_addf(sb,
			    "\nlatency thresholds judged the response time (latency_basis = "
			    "response): db_read avg %.3f ms, service time %.3f ms\n",
			    r->run.response[IO_DB_READ].avg_ms, r->run.classes[IO_DB_READ].avg_ms);
	while (results_response_next(r, &i, &v, &fig)) {
		const char *what = strstr(v->criterion, "_max_")   ? "max"
				   : strstr(v->criterion, "_p99_") ? "p99"
								   : "avg";

		if (!any)
			strbuf_addch(sb, '\n');
		any = true;
		strbuf_addf(
			sb,
			"db_read response time (incl. the tool's own queue): %s %.3f ms > %g ms, "
			"which the service time met (%.3f ms)\n",
			what, fig, v->threshold, v->measured);
	}
	if (any)
		strbuf_addstr(sb, "  open loop: transactions waited for a free stream; "
				  "[thresholds] latency_basis = response judges that time\n");
}

/*
 * Open loop: when transactions ever waited for a stream (the tool's own
 * queue), one line says how many and for how long, and that the response
 * time holds that wait; a second how the streams grew toward their bound.
 * Nothing when none waited, nor for a closed-loop run.
 */
static void text_backlog(struct strbuf *sb, const struct results *r)
{
	struct results_backlog b;

	results_backlog_summary(r, &b);
	if (!b.recorded || !b.peak)
		return;
	strbuf_addf(sb,
		    "\nthe tool's own queue held up to %llu transactions (mean %.1f, %.0f s of "
		    "%.0f s): response time includes that wait\n",
		    (unsigned long long)b.peak, b.mean, b.seconds, b.measured_s);
	if (b.streams_max > b.streams_start)
		strbuf_addf(sb, "  open loop: streams grew %u -> %u (bound %u)\n", b.streams_start,
			    b.streams_max, b.bound);
	else
		strbuf_addf(sb, "  open loop: streams stayed at %u (bound %u)\n", b.streams_start,
			    b.bound);
}

/*
 * Why: one sentence (why.c) for the run, each failed volume and each failed
 * database, wrapped within the width. A run that errored or was aborted
 * gets its sentence too: it has no failed verdict to say so.
 */
static void text_why(struct strbuf *sb, const struct results *r, size_t width)
{
	struct strbuf w = STRBUF_INIT;

	if (!report_why_run(&w, r))
		return;
	strbuf_addstr(sb, "\nwhy:\n");
	report_text_wrap(sb, w.buf, 2, width);
	for (size_t i = 0; i < r->nr_volumes; i++) {
		strbuf_reset(&w);
		if (report_why(&w, r, SCOPE_VOLUME, r->volumes[i].name, NULL))
			report_text_wrap(sb, w.buf, 2, width);
	}
	for (size_t i = 0; i < r->nr_databases; i++) {
		strbuf_reset(&w);
		if (report_why(&w, r, SCOPE_DATABASE, r->databases[i].name, r->databases[i].volume))
			report_text_wrap(sb, w.buf, 2, width);
	}
	strbuf_release(&w);
}

/* What the kernel logged about the run's devices (its "kernel" events,
 * run/kmsg.c), as Jetstress shows the event log: the first few. */
static void text_kernel(struct strbuf *sb, const struct results *r)
{
	size_t n = results_events_count(r, "kernel"), shown = 0;

	if (!n)
		return;
	strbuf_addf(sb, "\nkernel log (%zu line(s) about the run's devices):\n", n);
	for (size_t i = 0; i < r->nr_events && shown < TEXT_ERRORS_SHOWN; i++) {
		if (strcmp(r->events[i].kind, "kernel"))
			continue;
		strbuf_addf(sb, "  %8.1f s  ", (double)r->events[i].t_ms / 1000.0);
		report_text_escape(sb, r->events[i].message);
		strbuf_addch(sb, '\n');
		shown++;
	}
	if (n > shown)
		strbuf_addf(sb, "  ... %zu more stored: the HTML report lists every one\n",
			    n - shown);
}

/* "verdicts: 45 passed, 0 failed", or why there are none. */
static void text_count(struct strbuf *sb, const struct results *r, size_t failed)
{
	if (!r->nr_verdicts && r->status && !strcmp(r->status, "aborted"))
		strbuf_addstr(sb, "verdicts: none: the run was aborted, nothing is judged\n");
	else if (!r->nr_verdicts && r->status && !strcmp(r->status, "error"))
		strbuf_addstr(sb, "verdicts: none: the run ended in an error, nothing is judged\n");
	else
		strbuf_addf(sb, "verdicts: %zu passed, %zu failed\n", r->nr_verdicts - failed,
			    failed);
}

/*
 * The verdict block, what a person reads first (and all that run -q
 * prints on stdout): the verdict and the run in three lines, whether the
 * reads reached the device when that changes the verdict, each failing
 * criterion with where (database, volume, device) and its margin, why, and
 * the count of verdicts.
 */
static void text_verdict_block(struct strbuf *sb, const struct results *r, const struct text_ctx *x)
{
	size_t failed = results_verdicts_failed(r);

	text_headline(sb, r, x->color);
	text_reads_reach(sb, r, x->color);
	if (failed) {
		strbuf_addch(sb, '\n');
		text_verdicts(sb, r, false, x->color);
	}
	text_why(sb, r, x->width);
	text_count(sb, r, failed);
}

/* A run of a profile that keeps a fingerprint: the run's own device
 * figures against it (docs/learn.md), the fingerprint compare table. */
static void text_fp_compare(struct strbuf *sb, const struct results *r)
{
	const struct results_fp_compare *c = r->fp_compare;

	if (!c || !c->table)
		return;
	strbuf_addstr(sb, "\nthis run's devices against the profile's fingerprint ");
	report_text_escape(sb, r->fp_kept_name);
	strbuf_addstr(sb, " (shown, not judged):\n");
	strbuf_addstr(sb, c->table);
	strbuf_addf(sb, "%u of %u asserted rows within %g %%", c->asserted - c->off, c->asserted,
		    c->tolerance_pct);
	if (c->left_out)
		strbuf_addf(sb, "; %u left out", c->left_out);
	strbuf_addch(sb, '\n');
}

/* Then the figures: events, the tables, the host. */
static void text_report(struct strbuf *sb, const struct results *r, const struct text_ctx *x)
{
	text_verdict_block(sb, r, x);
	text_errors(sb, r);
	text_response(sb, r);
	text_backlog(sb, r);
	text_kernel(sb, r);
	strbuf_addch(sb, '\n');
	text_table(sb, r, x);
	text_pass_figures(sb, r);
	text_databases(sb, r, x);
	text_warmup(sb, r);
	text_autotune(sb, r);
	text_host(sb, r, x);
	text_volume_devices(sb, r, x->width);
	text_fp_compare(sb, r);
	if (r->series) {
		strbuf_addch(sb, '\n');
		report_series_text(sb, r);
	}
}

static const struct strbuf_escapes text_escapes = {.hex_prefix = "\\x", .del = true};

void report_text_escape(struct strbuf *out, const char *s)
{
	strbuf_add_escaped(out, s ? s : "-", &text_escapes);
}

/*
 * Text goes to a terminal: the free text a results file holds (label, host,
 * profile name; imported files come from elsewhere) is rendered escaped, on
 * a shallow copy of the model, so that no part of the text report sends a
 * control character of its own.
 */
void report_text(struct strbuf *out, const struct results *r, const struct report_options *opt)
{
	struct text_ctx x = {.color = opt && opt->color,
			     .width = opt && opt->width ? opt->width : REPORT_TEXT_WIDTH,
			     .wide = opt && opt->wide};
	size_t start = out->len;
	struct strbuf label = STRBUF_INIT, host = STRBUF_INIT, prof = STRBUF_INIT;
	struct results e = *r;

	if (r->label) {
		report_text_escape(&label, r->label);
		e.label = label.buf;
	}
	if (r->host) {
		report_text_escape(&host, r->host);
		e.host = host.buf;
	}
	if (r->profile_name) {
		report_text_escape(&prof, r->profile_name);
		e.profile_name = prof.buf;
	}
	if (opt && opt->params)
		report_text_params(out, &e);
	else if (opt && opt->verdict_only)
		text_verdict_block(out, &e, &x);
	else
		text_report(out, &e, &x);
	/* what is still too long (a sentence, a long name) wraps at a space;
	 * --wide keeps every line whole */
	if (!x.wide)
		strbuf_wrap_lines(out, start, x.width);
	strbuf_release(&label);
	strbuf_release(&host);
	strbuf_release(&prof);
}
