/* SPDX-License-Identifier: MIT */
/*
 * verdict.c - verdict wording: how each criterion of eval reads in a
 * sentence ("db3 on vol2: database read average 21.4 ms > 20 ms"), its unit
 * and precision, a failure's margin past its threshold (" (+7 %)"), and the
 * PASS / FAIL / "-" a volume's or database's row shows. The text, HTML and
 * comparison renderers all word verdicts here, nowhere else.
 */
#include <math.h>
#include <string.h>

#include "report_internal.h"

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
	{"db_read_max_sample_avg_ms", "highest sample average of database reads", " ms", 3, true},
	{"db_read_p99_ms", "database read 99th percentile", " ms", 3, true},
	{"db_read_interval_avg_ms", "highest 15 s database read average", " ms", 3, true},
	{"db_read_cv_pct", "CV of the 15 s database read averages", " %", 2, false},
	{"log_write_avg_ms", "log write average", " ms", 3, true},
	{"log_write_max_ms", "log write maximum", " ms", 3, true},
	{"log_write_max_sample_avg_ms", "highest sample average of log writes", " ms", 3, true},
	{"log_write_p99_ms", "log write 99th percentile", " ms", 3, true},
	{"log_write_interval_avg_ms", "highest 15 s log write average", " ms", 3, true},
	{"log_write_cv_pct", "CV of the 15 s log write averages", " %", 2, false},
	{"io_errors", "I/O errors", "", 0, false},
	{"integrity_errors", "integrity errors", "", 0, false},
	{"page_fault_stalls", "page fault stalls per second per database", "", 3, true},
	{"pass_done_pct", "share of the backup or replay done before the run ended", " %", 1,
	 false},
	{"databases_failed", "failed databases", "", 0, false},
	{"volumes_failed", "failed volumes", "", 0, false},
	{"transactional_iops", "achieved transactional IOPS", "", 1, true},
	{"autotune_streams", "streams that passed auto-tune", "", 0, false},
	{"autotune_settled", "auto-tune's level settled: latency slope", " ms per sample", 3, true},
};

/* The words of a failure, for the criteria whose failure reads otherwise. */
static const struct {
	const char *name, *words;
} failed_words[] = {
	{"autotune_settled", "auto-tune's level never settled: latency slope"},
};

static const char *criterion_words(const struct criterion_desc *d, const struct verdict *v)
{
	for (size_t i = 0; !v->passed && i < DP_ARRAY_SIZE(failed_words); i++)
		if (!strcmp(v->criterion, failed_words[i].name))
			return failed_words[i].words;
	return d->words;
}

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
void report_number(struct strbuf *sb, double v, int decimals)
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
	report_verdict_line_at(out, v, NULL);
}

void report_verdict_line_at(struct strbuf *out, const struct verdict *v, const char *device)
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
		report_number(&m, v->measured, decimals);
		report_number(&t, v->threshold, decimals);
		decimals += 3;
	} while (!v->passed && !strcmp(m.buf, t.buf) && decimals <= 9);

	if (v->scope == SCOPE_DATABASE && v->volume[0])
		strbuf_addf(out, "%s on %s", v->name, v->volume);
	else
		strbuf_addstr(out, v->name);
	if (device) {
		strbuf_addstr(out, " (");
		report_text_escape(out, device);
		strbuf_addch(out, ')');
	}
	strbuf_addstr(out, ": ");
	strbuf_addf(out, "%s %s%s %s %s%s", criterion_words(&d, v), m.buf, d.unit, sign, t.buf,
		    d.unit);
	strbuf_release(&m);
	strbuf_release(&t);
}

/* "its database read average was 21.2 ms against 20 ms": one decimal for a
 * latency (a sentence reads better than the verdict line's three), more
 * while rounding would print the failure as equal to its threshold. */
void report_verdict_fact(struct strbuf *out, const struct verdict *v)
{
	struct criterion_desc d = criterion_find(v->criterion);
	struct strbuf m = STRBUF_INIT, t = STRBUF_INIT;
	int decimals = d.decimals > 1 ? 1 : d.decimals;

	do {
		strbuf_reset(&m);
		strbuf_reset(&t);
		report_number(&m, v->measured, decimals);
		report_number(&t, v->threshold, decimals);
		decimals += 2;
	} while (!strcmp(m.buf, t.buf) && decimals <= 9);
	/* a name that is a statement ("level settled: latency slope") reads
	 * as its measure in a sentence */
	strbuf_addf(
		out, "its %s was %s%s against %s %s%s",
		strcmp(v->criterion, "autotune_settled") ? d.words : "auto-tune's latency slope",
		m.buf, d.unit, v->cmp == VERDICT_GE ? "a minimum of" : "a limit of", t.buf, d.unit);
	strbuf_release(&m);
	strbuf_release(&t);
}

/*
 * " (+7 %)": how far a failed verdict is past its threshold, relative to it
 * (results_verdict_margin_pct). One decimal at first, more while that would print 0
 * (a failure just over the line); nothing for a pass, a threshold of 0 or a
 * criterion without a margin (criterion_descs).
 */
void report_verdict_margin(struct strbuf *out, const struct verdict *v)
{
	struct criterion_desc d = criterion_find(v->criterion);
	struct strbuf m = STRBUF_INIT;
	double pct = results_verdict_margin_pct(v);
	int decimals = 1;

	if (!d.margin || !isfinite(pct))
		return;
	do {
		strbuf_reset(&m);
		report_number(&m, pct, decimals++);
	} while (!strcmp(m.buf, "0") && decimals <= 6);
	strbuf_addf(out, " (%s%s %%)", pct > 0 ? "+" : "", m.buf);
	strbuf_release(&m);
}

/*
 * "; the main test ran at 15 streams": what a verdict's line leaves out and
 * the run holds. Only autotune_settled has any: the level it judged is the
 * run's stream count.
 */
void report_verdict_context(struct strbuf *out, const struct results *r, const struct verdict *v)
{
	if (!strcmp(v->criterion, "autotune_settled") && r->streams)
		strbuf_addf(out, "; the main test ran at %u streams", r->streams);
}

/* A volume's verdicts are its own and its databases'; a database's, its own. */
static bool verdict_in_scope(const struct verdict *v, enum scope_kind scope, const char *name,
			     const char *volume)
{
	if (scope == SCOPE_VOLUME)
		return (v->scope == SCOPE_VOLUME && !strcmp(v->name, name)) ||
		       (v->scope == SCOPE_DATABASE && !strcmp(v->volume, name));
	return v->scope == scope && !strcmp(v->name, name) &&
	       (scope != SCOPE_DATABASE || !strcmp(v->volume, volume));
}

const char *report_scope_verdict(const struct results *r, enum scope_kind scope, const char *name,
				 const char *volume)
{
	bool judged = false;
	size_t i;

	for (i = 0; i < r->nr_verdicts; i++) {
		if (!verdict_in_scope(&r->verdicts[i], scope, name, volume))
			continue;
		if (!r->verdicts[i].passed)
			return "FAIL";
		judged = true;
	}
	return judged ? "PASS" : "-";
}
