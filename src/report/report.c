/*
 * report.c - results model to text (the terminal summary) and JSON (one
 * document for tools). Renderers compute nothing: every number comes from
 * struct results as the store loaded it; they only choose order (failures
 * first), wording and layout. docs/reports.md documents both formats (and
 * CSV, whose renderer is csv.c).
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "diskproof/json.h"
#include "diskproof/report.h"

static const char *const report_format_names[] = {
	[REPORT_TEXT] = "text",
	[REPORT_JSON] = "json",
	[REPORT_CSV] = "csv",
	[REPORT_HTML] = "html",
};

int report_format_from_name(const char *name)
{
	size_t i;

	if (!name)
		return -1;
	for (i = 0; i < DP_ARRAY_SIZE(report_format_names); i++)
		if (!strcmp(name, report_format_names[i]))
			return (int)i;
	return -1;
}

/*
 * How a criterion of eval reads in a sentence, its unit and its precision,
 * and whether a failure shows its margin (relative to the threshold: not for
 * counts judged against 0, nor for criteria that are percentages already).
 */
struct criterion_desc {
	const char *name;
	const char *words;
	const char *unit;
	int decimals;
	bool margin;
};

static const struct criterion_desc criterion_descs[] = {
	{"db_read_avg_ms", "database read average", " ms", 3, true},
	{"db_read_max_ms", "database read maximum", " ms", 3, true},
	{"db_read_p99_ms", "database read 99th percentile", " ms", 3, true},
	{"db_read_interval_avg_ms", "highest 15 s database read average", " ms", 3, true},
	{"db_read_cv_pct", "CV of the 15 s database read averages", " %", 2, false},
	{"log_write_avg_ms", "log write average", " ms", 3, true},
	{"log_write_max_ms", "log write maximum", " ms", 3, true},
	{"log_write_p99_ms", "log write 99th percentile", " ms", 3, true},
	{"log_write_interval_avg_ms", "highest 15 s log write average", " ms", 3, true},
	{"log_write_cv_pct", "CV of the 15 s log write averages", " %", 2, false},
	{"io_errors", "I/O errors", "", 0, false},
	{"integrity_errors", "integrity errors", "", 0, false},
	{"databases_failed", "failed databases", "", 0, false},
	{"volumes_failed", "failed volumes", "", 0, false},
	{"transactional_iops", "achieved transactional IOPS", "", 1, true},
	{"autotune_streams", "streams that passed auto-tune", "", 0, false},
};

static struct criterion_desc criterion_find(const char *name)
{
	struct criterion_desc unknown = {name, name, "", 3, false};
	size_t i;

	for (i = 0; i < DP_ARRAY_SIZE(criterion_descs); i++)
		if (!strcmp(name, criterion_descs[i].name))
			return criterion_descs[i];
	return unknown;
}

/* v with at most `decimals` decimals and no trailing zeros: 21.4, 20, 812. */
static void text_number(struct strbuf *sb, double v, int decimals)
{
	size_t start = sb->len;

	if (!isfinite(v)) {
		strbuf_addstr(sb, "n/a");
		return;
	}
	strbuf_addf(sb, "%.*f", decimals, v);
	if (!decimals)
		return;
	while (sb->len > start && sb->buf[sb->len - 1] == '0')
		sb->len--;
	if (sb->len > start && sb->buf[sb->len - 1] == '.')
		sb->len--;
	sb->buf[sb->len] = '\0';
	if (!strcmp(sb->buf + start, "-0")) {
		sb->len = start;
		strbuf_addch(sb, '0');
	}
}

/*
 * The comparison sign says what happened: a failed "<=" criterion is ">",
 * a failed ">=" one is "<". When rounding would print a failure as
 * "20 > 20", more decimals are shown until the two numbers differ.
 */
void report_verdict_line(struct strbuf *out, const struct verdict *v)
{
	struct criterion_desc d = criterion_find(v->criterion);
	struct strbuf m = STRBUF_INIT, t = STRBUF_INIT;
	const char *sign;
	int decimals = d.decimals;

	if (v->cmp == VERDICT_GE)
		sign = v->passed ? ">=" : "<";
	else
		sign = v->passed ? "<=" : ">";
	do {
		strbuf_reset(&m);
		strbuf_reset(&t);
		text_number(&m, v->measured, decimals);
		text_number(&t, v->threshold, decimals);
		decimals += 3;
	} while (!v->passed && !strcmp(m.buf, t.buf) && decimals <= 9);

	if (v->scope == SCOPE_DATABASE && v->volume[0])
		strbuf_addf(out, "%s on %s: ", v->name, v->volume);
	else
		strbuf_addf(out, "%s: ", v->name);
	strbuf_addf(out, "%s %s%s %s %s%s", d.words, m.buf, d.unit, sign, t.buf, d.unit);
	strbuf_release(&m);
	strbuf_release(&t);
}

/*
 * " (+7 %)": how far a failed verdict is past its threshold, relative to it.
 * One decimal at first, more while that would print 0 (a failure just over
 * the line); nothing for a pass, a threshold of 0 or a criterion without a
 * margin (criterion_descs).
 */
void report_verdict_margin(struct strbuf *out, const struct verdict *v)
{
	struct criterion_desc d = criterion_find(v->criterion);
	struct strbuf m = STRBUF_INIT;
	double pct;
	int decimals = 1;

	if (v->passed || !d.margin || !isfinite(v->threshold) || !isfinite(v->measured) ||
	    v->threshold == 0)
		return;
	pct = (v->measured - v->threshold) / fabs(v->threshold) * 100.0;
	if (!isfinite(pct))
		return;
	do {
		strbuf_reset(&m);
		text_number(&m, pct, decimals++);
	} while (!strcmp(m.buf, "0") && decimals <= 6);
	strbuf_addf(out, " (%s%s %%)", pct > 0 ? "+" : "", m.buf);
	strbuf_release(&m);
}

/* ---- text ---- */

#define ANSI_GREEN "\033[32m"
#define ANSI_RED "\033[31m"
#define ANSI_BOLD "\033[1m"
#define ANSI_RESET "\033[0m"

/* PASS green, FAIL red (when colour is on); anything else plain. */
static void text_verdict_word(struct strbuf *sb, const char *word, bool color)
{
	const char *on = NULL;

	if (color && !strcmp(word, "PASS"))
		on = ANSI_GREEN;
	else if (color && !strcmp(word, "FAIL"))
		on = ANSI_BOLD ANSI_RED;
	if (on)
		strbuf_addf(sb, "%s%s%s", on, word, ANSI_RESET);
	else
		strbuf_addstr(sb, word);
}

static const char *str_or(const char *s, const char *dflt)
{
	return s && *s ? s : dflt;
}

static void text_headline(struct strbuf *sb, const struct results *r, bool color)
{
	const char *verdict = str_or(r->verdict, "NONE");
	double warmup = isfinite(r->warmup_s) ? r->warmup_s : 0;

	/* stopped in its warm-up: the warm-up that ran */
	if (r->status && (!strcmp(r->status, "aborted") || !strcmp(r->status, "error")) &&
	    r->warmup.duration_s < warmup)
		warmup = r->warmup.duration_s;
	strbuf_addf(sb, "diskproof run %" PRId64 ": ", r->id);
	text_verdict_word(sb, verdict, color);
	if (r->status && strcmp(r->status, "passed") && strcmp(r->status, "failed"))
		strbuf_addf(sb, " (%s)", r->status);
	if (r->label)
		strbuf_addf(sb, " [%s]", r->label);
	strbuf_addch(sb, '\n');

	strbuf_addf(sb,
		    "profile %s, %s test, engine %s, %u streams; measured %.0f s after %.0f s of "
		    "warm-up\n",
		    str_or(r->profile_name, "-"), str_or(r->test_type, "-"), str_or(r->engine, "-"),
		    r->streams, isfinite(r->duration_s) ? r->duration_s : 0, warmup);
	strbuf_addf(sb, "host %s, started %s, ended %s\n", str_or(r->host, "-"),
		    str_or(r->started_at, "-"), str_or(r->ended_at, "-"));
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
		report_verdict_line(sb, &r->verdicts[i]);
		report_verdict_margin(sb, &r->verdicts[i]);
		strbuf_addch(sb, '\n');
	}
}

/* PASS / FAIL / "-" (nothing judged) for one volume and its databases. */
static const char *text_volume_verdict(const struct results *r, const char *volume)
{
	const struct verdict *v;
	bool judged = false;
	size_t i;

	for (i = 0; i < r->nr_verdicts; i++) {
		v = &r->verdicts[i];
		if (!(v->scope == SCOPE_VOLUME && !strcmp(v->name, volume)) &&
		    !(v->scope == SCOPE_DATABASE && !strcmp(v->volume, volume)))
			continue;
		if (!v->passed)
			return "FAIL";
		judged = true;
	}
	return judged ? "PASS" : "-";
}

static void text_ms(struct strbuf *sb, double ms)
{
	strbuf_addf(sb, " %9.3f", isfinite(ms) ? ms : 0.0);
}

/*
 * One row per class present in the scope (class_summary_present); the first
 * carries the label and the verdict. A scope with no class present (it moved
 * nothing, or a run that has not measured yet) still gets its line.
 */
static void text_scope_rows(struct strbuf *sb, const struct scope_summary *sc, const char *label,
			    int width, const char *verdict, bool color)
{
	const struct class_summary *cs;
	bool first = true;
	int c;

	for (c = 0; c < IO_CLASS_COUNT; c++) {
		cs = &sc->classes[c];
		if (!class_summary_present(cs))
			continue;
		strbuf_addf(sb, "%-*s  %-11s %12" PRIu64 " %10.1f %9.2f", width, first ? label : "",
			    io_class_name(c), cs->ios, isfinite(cs->iops) ? cs->iops : 0.0,
			    isfinite(cs->mbps) ? cs->mbps : 0.0);
		text_ms(sb, cs->avg_ms);
		text_ms(sb, cs->p99_ms);
		text_ms(sb, cs->max_ms);
		if (first) {
			strbuf_addstr(sb, "  ");
			text_verdict_word(sb, verdict, color);
		}
		strbuf_addch(sb, '\n');
		first = false;
	}
	if (!first)
		return;
	strbuf_addf(sb, "%-*s  %-11s %12s %10s %9s %9s %9s %9s  ", width, label, "(no I/O)", "", "",
		    "", "", "", "");
	text_verdict_word(sb, verdict, color);
	strbuf_addch(sb, '\n');
}

static double finite_or_0(double v)
{
	return isfinite(v) ? v : 0.0;
}

/*
 * "words: 4.19 MB/s, 1.05 MB/s per database" for a class read at a rate per
 * database (background maintenance, backup), when present: the run's rate
 * and the databases' own stored rates, as a range when they differ.
 */
static void text_rate_line(struct strbuf *sb, const struct results *r, enum io_class c,
			   const char *words)
{
	struct strbuf lo = STRBUF_INIT, hi = STRBUF_INIT;
	double min = HUGE_VAL, max = -HUGE_VAL, v;
	size_t i;

	if (!class_summary_present(&r->run.classes[c]))
		return;
	strbuf_addf(sb, "%s: %.2f MB/s", words, finite_or_0(r->run.classes[c].mbps));
	for (i = 0; i < r->nr_databases; i++) {
		v = finite_or_0(r->databases[i].classes[c].mbps);
		min = fmin(min, v);
		max = fmax(max, v);
	}
	if (r->nr_databases) {
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

static void text_table(struct strbuf *sb, const struct results *r, bool color)
{
	const struct class_summary *lr = &r->run.classes[IO_LOG_READ];
	const struct class_summary *lw = &r->run.classes[IO_LOG_WRITE];
	double tiops = scope_transactional_iops(&r->run);
	int width = 6;
	size_t i;

	for (i = 0; i < r->nr_volumes; i++)
		if ((int)strlen(r->volumes[i].name) > width)
			width = (int)strlen(r->volumes[i].name);

	strbuf_addf(sb, "%-*s  %-11s %12s %10s %9s %9s %9s %9s  %s\n", width, "volume", "class",
		    "IOs", "IOPS", "MB/s", "avg ms", "p99 ms", "max ms", "verdict");
	for (i = 0; i < r->nr_volumes; i++)
		text_scope_rows(sb, &r->volumes[i], r->volumes[i].name, width,
				text_volume_verdict(r, r->volumes[i].name), color);
	text_scope_rows(sb, &r->run, "total", width, str_or(r->verdict, "-"), color);
	strbuf_addch(sb, '\n');
	/* a run with no database I/O (a backup test) has no transactional IOPS */
	if (class_summary_present(&r->run.classes[IO_DB_READ]) ||
	    class_summary_present(&r->run.classes[IO_DB_WRITE]) ||
	    !class_summary_present(&r->run.classes[IO_BACKUP_READ]))
		strbuf_addf(sb, "achieved transactional IOPS: %.1f%s", finite_or_0(tiops),
			    r->run.integrity_errors ? "; " : "\n");
	if (r->run.integrity_errors)
		strbuf_addf(sb, "integrity errors: %" PRIu64 "\n", r->run.integrity_errors);
	text_rate_line(sb, r, IO_BDM_READ, "background maintenance reads");
	if (class_summary_present(lr))
		strbuf_addf(sb, "replication log reads: %.2f MB/s (log writes %.2f MB/s)\n",
			    finite_or_0(lr->mbps), finite_or_0(lw->mbps));
	text_rate_line(sb, r, IO_BACKUP_READ, "backup reads");
}

/* The warm-up's classes, apart from the table: measured, never judged. */
static void text_warmup(struct strbuf *sb, const struct results *r)
{
	const struct results_warmup_class *wc;
	int c;

	if (!(r->warmup.duration_s > 0))
		return;
	strbuf_addstr(sb, "\nwarm-up (not judged): ");
	text_number(sb, r->warmup.duration_s, 3);
	strbuf_addf(sb, " s\n  %-11s %12s %10s %9s\n", "class", "IOs", "IOPS", "avg ms");
	for (c = 0; c < IO_CLASS_COUNT; c++) {
		wc = &r->warmup.classes[c];
		if (!wc->ios && !wc->errors)
			continue;
		strbuf_addf(sb, "  %-11s %12" PRIu64 " %10.1f", io_class_name(c), wc->ios,
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
	strbuf_addf(sb, "\nauto-tune (goal %s): ", str_or(a->goal, "-"));
	if (!a->has_chosen)
		strbuf_addstr(sb, "no choice recorded");
	else if (a->chosen)
		strbuf_addf(sb, "chose %u streams", a->chosen);
	else
		strbuf_addstr(sb, "no level passed");
	if (a->stopped_because)
		strbuf_addf(sb, "; stopped: %s", a->stopped_because);
	strbuf_addch(sb, '\n');
	if (!a->nr_steps)
		return;
	strbuf_addf(sb, "  %4s  %7s  %10s  %14s  %16s  %-6s  %s\n", "step", "streams", "IOPS",
		    "db read avg ms", "log write avg ms", "result", "reason");
	for (i = 0; i < a->nr_steps; i++) {
		st = &a->steps[i];
		strbuf_addf(sb, "  %4u  %7u", st->step, st->streams);
		text_cell(sb, 10, st->iops, 1);
		text_cell(sb, 14, st->db_read_avg_ms, 3);
		text_cell(sb, 16, st->log_write_avg_ms, 3);
		strbuf_addf(sb, "  %-6s  %s\n", st->passed ? "pass" : "fail",
			    str_or(st->reason, ""));
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
static void text_host(struct strbuf *sb, const struct results *r)
{
	const struct results_host_perf *h = &r->host_perf;
	const struct results_host_device *d;
	int width = 8;
	size_t i;

	if (!h->recorded)
		return;
	strbuf_addstr(sb, "\nhost performance (measured intervals):\n  cpu");
	if (h->cpu_intervals) {
		strbuf_addstr(sb, " user ");
		text_number(sb, h->cpu_user_pct, 1);
		strbuf_addstr(sb, " %, system ");
		text_number(sb, h->cpu_system_pct, 1);
		strbuf_addstr(sb, " %, iowait ");
		text_number(sb, h->cpu_iowait_pct, 1);
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
	for (i = 0; i < h->nr_devices; i++)
		if ((int)strlen(h->devices[i].name) > width)
			width = (int)strlen(h->devices[i].name);
	strbuf_addf(sb, "  %-*s %9s %9s %9s %9s %8s %8s %8s %6s %6s\n", width, "device", "reads/s",
		    "writes/s", "rd MB/s", "wr MB/s", "rd ms", "wr ms", "avg ms", "util %",
		    "queue");
	for (i = 0; i < h->nr_devices; i++) {
		d = &h->devices[i];
		strbuf_addf(sb, "  %-*s", width, d->name);
		text_fig(sb, 9, d->reads_per_s, 1);
		text_fig(sb, 9, d->writes_per_s, 1);
		text_fig(sb, 9, d->read_mbps, 2);
		text_fig(sb, 9, d->write_mbps, 2);
		text_fig(sb, 8, d->read_wait_ms, 3);
		text_fig(sb, 8, d->write_wait_ms, 3);
		text_fig(sb, 8, d->avg_wait_ms, 3);
		text_fig(sb, 6, d->util_pct, 1);
		text_fig(sb, 6, d->queue, 2);
		strbuf_addch(sb, '\n');
	}
}

/* The run's error events (bad pages, failed and hung I/Os): the first few,
 * how many more are stored, and how many were past the store's cap. */
#define TEXT_ERRORS_SHOWN 10

static void text_errors(struct strbuf *sb, const struct results *r)
{
	size_t n = 0, shown = 0;

	for (size_t i = 0; i < r->nr_events; i++)
		n += !strcmp(r->events[i].kind, "error");
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

static void report_text(struct strbuf *sb, const struct results *r, bool color)
{
	size_t i, failed = 0;

	for (i = 0; i < r->nr_verdicts; i++)
		failed += !r->verdicts[i].passed;

	text_headline(sb, r, color);
	if (failed) {
		strbuf_addch(sb, '\n');
		text_verdicts(sb, r, false, color);
	}
	text_errors(sb, r);
	strbuf_addch(sb, '\n');
	text_table(sb, r, color);
	text_warmup(sb, r);
	text_autotune(sb, r);
	text_host(sb, r);
	if (r->warmup.duration_s > 0 || results_autotune_ran(r) || r->host_perf.recorded)
		strbuf_addch(sb, '\n');
	if (!r->nr_verdicts && r->status && !strcmp(r->status, "aborted"))
		strbuf_addstr(sb, "verdicts: none: the run was aborted, nothing is judged\n");
	else if (!r->nr_verdicts && r->status && !strcmp(r->status, "error"))
		strbuf_addstr(sb, "verdicts: none: the run ended in an error, nothing is judged\n");
	else
		strbuf_addf(sb, "verdicts: %zu passed, %zu failed\n", r->nr_verdicts - failed,
			    failed);
}

/* ---- JSON ---- */

/* Thresholds and measured values: integral ones as integers (0, 1000). */
static void json_value(struct json *j, const char *key, double v)
{
	json_fixed(j, key, v, isfinite(v) && v == floor(v) && fabs(v) < 9e15 ? 0 : 3);
}

static void json_classes(struct json *j, const struct scope_summary *sc)
{
	const struct class_summary *cs;
	int c;

	json_begin_object(j, "classes");
	for (c = 0; c < IO_CLASS_COUNT; c++) {
		cs = &sc->classes[c];
		json_begin_object_flat(j, io_class_name(c));
		json_u64(j, "ios", cs->ios);
		json_fixed(j, "iops", cs->iops, 3);
		json_fixed(j, "mbps", cs->mbps, 3);
		json_fixed(j, "avg_ms", cs->avg_ms, 3);
		json_fixed(j, "p50_ms", cs->p50_ms, 3);
		json_fixed(j, "p99_ms", cs->p99_ms, 3);
		json_fixed(j, "max_ms", cs->max_ms, 3);
		json_u64(j, "errors", cs->errors);
		json_u64(j, "bytes", cs->bytes);
		json_end(j);
	}
	json_end(j);
	json_fixed(j, "transactional_iops", scope_transactional_iops(sc), 3);
	json_u64(j, "integrity_errors", sc->integrity_errors);
}

static void json_run(struct json *j, const struct results *r)
{
	json_begin_object(j, "run");
	json_i64(j, "id", r->id);
	json_str(j, "status", r->status);
	json_str(j, "verdict", r->verdict);
	json_str(j, "label", r->label);
	json_str(j, "host", r->host);
	json_str(j, "started", r->started_at);
	json_str(j, "ended", r->ended_at);
	json_fixed(j, "duration_s", r->duration_s, 3);
	json_fixed(j, "warmup_s", r->warmup_s, 3);
	json_str(j, "engine", r->engine);
	json_str(j, "test_type", r->test_type);
	json_u64(j, "streams", r->streams);
	json_str(j, "profile", r->profile_name);
	json_i64(j, "exit_code", r->exit_code);
	json_end(j);
}

static void json_scopes(struct json *j, const char *key, const struct scope_summary *arr, size_t nr,
			bool databases)
{
	size_t i;

	json_begin_array(j, key);
	for (i = 0; i < nr; i++) {
		json_begin_object(j, NULL);
		json_str(j, "name", arr[i].name);
		if (databases)
			json_str(j, "volume", arr[i].volume);
		json_classes(j, &arr[i]);
		json_end(j);
	}
	json_end(j);
}

static void json_verdicts(struct json *j, const struct results *r)
{
	const struct verdict *v;
	size_t i;

	json_begin_array(j, "verdicts");
	for (i = 0; i < r->nr_verdicts; i++) {
		v = &r->verdicts[i];
		json_begin_object_flat(j, NULL);
		json_str(j, "scope", scope_kind_name(v->scope));
		json_str(j, "name", v->name);
		if (v->scope == SCOPE_DATABASE)
			json_str(j, "volume", v->volume);
		json_str(j, "criterion", v->criterion);
		json_str(j, "cmp", v->cmp == VERDICT_GE ? ">=" : "<=");
		json_value(j, "threshold", v->threshold);
		json_value(j, "measured", v->measured);
		json_bool(j, "passed", v->passed);
		json_end(j);
	}
	json_end(j);
}

/* null when no warm-up was stored; every class, like the summaries */
static void json_warmup(struct json *j, const struct results *r)
{
	const struct results_warmup_class *wc;
	int c;

	if (!(r->warmup.duration_s > 0)) {
		json_null(j, "warmup");
		return;
	}
	json_begin_object(j, "warmup");
	json_fixed(j, "duration_s", r->warmup.duration_s, 3);
	json_begin_object(j, "classes");
	for (c = 0; c < IO_CLASS_COUNT; c++) {
		wc = &r->warmup.classes[c];
		json_begin_object_flat(j, io_class_name(c));
		json_u64(j, "ios", wc->ios);
		json_fixed(j, "iops", wc->iops, 3);
		json_fixed(j, "avg_ms", wc->avg_ms, 3);
		json_u64(j, "errors", wc->errors);
		json_end(j);
	}
	json_end(j);
	json_end(j);
}

/* null when the run did not tune */
static void json_autotune(struct json *j, const struct results *r)
{
	const struct results_autotune *a = &r->autotune;
	const struct results_autotune_step *st;
	size_t i;

	if (!results_autotune_ran(r)) {
		json_null(j, "autotune");
		return;
	}
	json_begin_object(j, "autotune");
	json_str(j, "goal", a->goal);
	if (a->has_chosen)
		json_u64(j, "chosen", a->chosen);
	else
		json_null(j, "chosen");
	json_str(j, "stopped_because", a->stopped_because);
	json_begin_array(j, "steps");
	for (i = 0; i < a->nr_steps; i++) {
		st = &a->steps[i];
		json_begin_object_flat(j, NULL);
		json_u64(j, "step", st->step);
		json_u64(j, "streams", st->streams);
		json_fixed(j, "iops", st->iops, 3);
		json_fixed(j, "db_read_avg_ms", st->db_read_avg_ms, 3);
		json_fixed(j, "log_write_avg_ms", st->log_write_avg_ms, 3);
		json_bool(j, "passed", st->passed);
		json_str(j, "reason", st->reason);
		json_end(j);
	}
	json_end(j);
	json_end(j);
}

/* null when the run has no host counters; cpu and memory null when not
 * measured in any measured interval */
static void json_host(struct json *j, const struct results *r)
{
	const struct results_host_perf *h = &r->host_perf;
	const struct results_host_device *d;
	size_t i;

	if (!h->recorded) {
		json_null(j, "host");
		return;
	}
	json_begin_object(j, "host");
	if (h->cpu_intervals) {
		json_begin_object_flat(j, "cpu");
		json_u64(j, "intervals", h->cpu_intervals);
		json_fixed(j, "user_pct", h->cpu_user_pct, 3);
		json_fixed(j, "system_pct", h->cpu_system_pct, 3);
		json_fixed(j, "iowait_pct", h->cpu_iowait_pct, 3);
		json_end(j);
	} else {
		json_null(j, "cpu");
	}
	if (h->mem_intervals) {
		json_begin_object_flat(j, "memory");
		json_u64(j, "intervals", h->mem_intervals);
		json_value(j, "available_min_bytes", h->mem_available_min);
		json_value(j, "available_avg_bytes", round(h->mem_available_avg));
		json_end(j);
	} else {
		json_null(j, "memory");
	}
	json_begin_array(j, "devices");
	for (i = 0; i < h->nr_devices; i++) {
		d = &h->devices[i];
		json_begin_object_flat(j, NULL);
		json_str(j, "name", d->name);
		json_u64(j, "intervals", d->intervals);
		json_u64(j, "reads", d->reads);
		json_u64(j, "writes", d->writes);
		json_fixed(j, "reads_per_s", d->reads_per_s, 3);
		json_fixed(j, "writes_per_s", d->writes_per_s, 3);
		json_fixed(j, "read_mbps", d->read_mbps, 3);
		json_fixed(j, "write_mbps", d->write_mbps, 3);
		json_fixed(j, "read_wait_ms", d->read_wait_ms, 3);
		json_fixed(j, "write_wait_ms", d->write_wait_ms, 3);
		json_fixed(j, "avg_wait_ms", d->avg_wait_ms, 3);
		json_fixed(j, "util_pct", d->util_pct, 3);
		json_fixed(j, "util_max_pct", d->util_max_pct, 3);
		json_fixed(j, "queue", d->queue, 3);
		json_end(j);
	}
	json_end(j);
	json_end(j);
}

static void report_json(struct strbuf *sb, const struct results *r)
{
	struct json j = JSON_INIT(sb);

	json_begin_object(&j, NULL);
	json_run(&j, r);
	json_begin_object(&j, "summary");
	json_classes(&j, &r->run);
	json_end(&j);
	json_scopes(&j, "volumes", r->volumes, r->nr_volumes, false);
	json_scopes(&j, "databases", r->databases, r->nr_databases, true);
	json_verdicts(&j, r);
	json_warmup(&j, r);
	json_autotune(&j, r);
	json_host(&j, r);
	json_end(&j);
	strbuf_addch(sb, '\n');
}

void report_text_escape(struct strbuf *out, const char *s)
{
	const unsigned char *p;

	for (p = (const unsigned char *)(s ? s : "-"); *p; p++) {
		if (*p < 0x20 || *p == 0x7f)
			strbuf_addf(out, "\\x%02x", *p);
		else
			strbuf_addch(out, (char)*p);
	}
}

/*
 * Text goes to a terminal: the free text a results file holds (label, host,
 * profile name; imported files come from elsewhere) is rendered escaped, on
 * a shallow copy of the model, so that no part of the text report sends a
 * control character of its own.
 */
static void report_text_escaped(struct strbuf *out, const struct results *r, bool color)
{
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
	report_text(out, &e, color);
	strbuf_release(&label);
	strbuf_release(&host);
	strbuf_release(&prof);
}

void report_render(struct strbuf *out, const struct results *r, enum report_format fmt,
		   const struct report_options *opt)
{
	bool color = opt && opt->color;

	switch (fmt) {
	case REPORT_TEXT:
		report_text_escaped(out, r, color);
		break;
	case REPORT_JSON:
		report_json(out, r);
		break;
	case REPORT_CSV:
		report_csv(out, r);
		break;
	case REPORT_HTML:
		report_html(out, r);
		break;
	}
}
