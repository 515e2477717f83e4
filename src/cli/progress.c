/* SPDX-License-Identifier: MIT */
/*
 * progress.c - what init and run show while they work.
 *
 * File creation (init, and run creating what is missing): on a terminal one
 * line redrawn in place with each volume's bytes, rate and time left;
 * elsewhere a plain line per volume at every tenth and at the end.
 *
 * The live view of a run: on a terminal a frame redrawn in place (at most
 * twice a second: a sim run's virtual intervals come faster) with the phase,
 * elapsed and remaining time, and per volume each class's IOPS, average and
 * p99 latency, database reads and log writes coloured against their average
 * thresholds (green under 80 %, yellow under 100 %, red at or over), the
 * maximum so far (the figure the max criterion judges, coloured against the
 * maximum thresholds), the errors so far and the running verdict ("so far":
 * "FAIL max" where a criterion of the class would fail if the run ended
 * now, "ok" where it would pass; run.h), in 80 columns. Elsewhere (CI, a
 * pipe, nohup) a status line every --status-interval of run time (default
 * 60 s), and at the first and last intervals and where the phase changes;
 * the same line on SIGUSR1, on a terminal too.
 * Everything is drawn from the interval callback on the coordinator; the
 * workers never wait for the terminal.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "diskproof/results.h"
#include "diskproof/run.h"

#include "cli.h"

/* ---- the terminal, which may go away during a run ---- */

/* stdout and stderr as the run started: a terminal, and gone since */
static struct {
	bool tty[2];
	bool gone[2];
} term;

static int term_slot(FILE *f)
{
	return f == stdout ? 0 : f == stderr ? 1 : -1;
}

void progress_term_init(void)
{
	term.tty[0] = isatty(STDOUT_FILENO);
	term.tty[1] = isatty(STDERR_FILENO);
	term.gone[0] = term.gone[1] = false;
}

/* f's output goes nowhere from now on: what is buffered is dropped (a
 * flush to a hung-up terminal fails, and a flush to a pipe nobody reads
 * fails again), and the descriptor becomes /dev/null, so that nothing that
 * writes to it later (a message, the summary, the exit's own flush) can
 * fail, block or raise SIGPIPE. */
static void term_drop(FILE *f)
{
	int slot = term_slot(f), null;

	if (slot < 0 || term.gone[slot])
		return;
	term.gone[slot] = true;
	__fpurge(f);
	null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (null >= 0) {
		dup2(null, fileno(f));
		close(null);
	}
	clearerr(f);
}

void progress_term_hangup(void)
{
	if (term.tty[0])
		term_drop(stdout);
	if (term.tty[1])
		term_drop(stderr);
}

bool progress_term_gone(FILE *f)
{
	int slot = term_slot(f);

	return slot >= 0 && term.gone[slot];
}

bool progress_term_check(FILE *f, bool failed)
{
	if (failed || ferror(f)) {
		if (errno == EIO || errno == EPIPE)
			term_drop(f);
		clearerr(f);
	}
	return progress_term_gone(f);
}

static struct create_volume *find_volume(struct create_view *v, const char *name)
{
	for (size_t i = 0; i < v->nvols; i++)
		if (!strcmp(v->vols[i].name, name))
			return &v->vols[i];
	if (v->nvols == DP_ARRAY_SIZE(v->vols))
		return NULL;
	snprintf(v->vols[v->nvols].name, sizeof(v->vols[0].name), "%s", name);
	v->vols[v->nvols].started = time_mono_ns();
	return &v->vols[v->nvols++];
}

static void format_volume(struct strbuf *sb, const struct create_volume *c, uint64_t now)
{
	/* a volume seen for the first time started after now was read */
	double secs = now > c->started ? (double)(now - c->started) / 1e9 : 0;
	double rate = secs > 0 ? (double)c->done / secs : 0;

	strbuf_addf(sb, "%s %llu/%llu MiB", c->name, (unsigned long long)(c->done >> 20),
		    (unsigned long long)(c->total >> 20));
	if (c->done >= c->total) {
		strbuf_addf(sb, " done in %.1f s", secs);
		return;
	}
	if (rate > 0)
		strbuf_addf(sb, " %.0f MB/s, %.0f s left", rate / 1e6,
			    (double)(c->total - c->done) / rate);
}

/* The creation lines' width: the terminal's (or $COLUMNS), 80 at most. */
static unsigned create_width(void)
{
	unsigned w = cli_width(stderr);

	return w < 80 ? w : 80;
}

/*
 * The line redrawn on a terminal, within width: "creating: vol1 20/160 MiB
 * 97 MB/s, 2 s left | vol2 ...". Volumes that are done are counted, not
 * shown, when all would not fit; the rest as many as fit, then "+N more".
 */
static void create_line(struct strbuf *sb, const struct create_view *v, uint64_t now,
			unsigned width)
{
	struct strbuf one = STRBUF_INIT;
	size_t done = 0, more = 0, start;
	bool all = true, any = false;

	strbuf_addstr(sb, "\rcreating: ");
	start = sb->len;
	for (size_t i = 0; i < v->nvols; i++) {
		strbuf_reset(&one);
		format_volume(&one, &v->vols[i], now);
		done += v->vols[i].done >= v->vols[i].total;
		all = all && sb->len - 1 + 3 + one.len < width;
		strbuf_addf(sb, "%s%s", i ? " | " : "", one.buf);
	}
	if (!all) {
		sb->len = start;
		sb->buf[start] = '\0';
		if (done)
			strbuf_addf(sb, "%zu done", done);
		any = done > 0;
		for (size_t i = 0; i < v->nvols; i++) {
			if (v->vols[i].done >= v->vols[i].total)
				continue;
			strbuf_reset(&one);
			format_volume(&one, &v->vols[i], now);
			/* room kept for " | +NN more" */
			if (more || sb->len - 1 + 3 + one.len + 12 > width) {
				more++;
				continue;
			}
			strbuf_addf(sb, "%s%s", any ? " | " : "", one.buf);
			any = true;
		}
		if (more)
			strbuf_addf(sb, "%s+%zu more", any ? " | " : "", more);
	}
	strbuf_addstr(sb, "\033[K");
	strbuf_release(&one);
}

void progress_create_update(struct create_view *v, const char *volume, uint64_t done,
			    uint64_t total)
{
	struct create_volume *c;
	uint64_t now = time_mono_ns();
	struct strbuf sb = STRBUF_INIT;

	if (v->quiet || progress_term_gone(stderr) || !(c = find_volume(v, volume)))
		return;
	c->done = done;
	c->total = total;
	if (v->tty) {
		create_line(&sb, v, now, create_width());
		fputs(sb.buf, stderr);
		v->open_line = true;
	} else if (done >= total || done * 10 / (total ? total : 1) > c->tenth) {
		c->tenth = (unsigned)(done * 10 / (total ? total : 1));
		strbuf_addstr(&sb, "creating: ");
		format_volume(&sb, c, now);
		strbuf_addch(&sb, '\n');
		strbuf_wrap_lines(&sb, 0, create_width());
		fputs(sb.buf, stderr);
	}
	progress_term_check(stderr, fflush(stderr) == EOF);
	strbuf_release(&sb);
}

void progress_create_end(struct create_view *v)
{
	if (v->open_line && !progress_term_gone(stderr))
		fputc('\n', stderr);
	v->open_line = false;
}

/* ---- the live view of a run ---- */

/* A frame being composed: the text with its escapes, and how many terminal
 * rows its lines take (visible characters only, wrapped at cols), so that
 * the next frame can move back up over exactly this one. Frames hold ASCII
 * only: one byte is one column. */
struct frame {
	struct strbuf sb;
	unsigned cols;
	size_t vis;
	unsigned rows;
	bool color;
};

static void frame_addf(struct frame *f, const char *fmt, ...) DP_PRINTF(2, 3);
static void frame_addf(struct frame *f, const char *fmt, ...)
{
	size_t before = f->sb.len;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&f->sb, fmt, ap);
	va_end(ap);
	f->vis += f->sb.len - before;
}

static void frame_sgr(struct frame *f, const char *sgr)
{
	if (f->color)
		strbuf_addf(&f->sb, "\033[%sm", sgr);
}

static void frame_eol(struct frame *f)
{
	strbuf_addstr(&f->sb, "\033[K\n");
	f->rows += f->vis ? (unsigned)((f->vis + f->cols - 1) / f->cols) : 1;
	f->vis = 0;
}

/* "1:02:03" or "2:03" */
static void frame_time(struct frame *f, uint64_t ns)
{
	unsigned long long s = ns / NSEC_PER_SEC;

	if (s >= 3600)
		frame_addf(f, "%llu:%02llu:%02llu", s / 3600, s / 60 % 60, s % 60);
	else
		frame_addf(f, "%llu:%02llu", s / 60, s % 60);
}

/* A latency in width columns against its threshold: green under 80 %,
 * yellow under 100 %, red at or over; limit 0: not judged, no colour. "-"
 * when the class had no I/O in the interval. */
static void frame_latency(struct frame *f, int width, double ms, double limit, bool any)
{
	const char *sgr = NULL;

	if (!any) {
		frame_addf(f, "%*s", width, "-");
		return;
	}
	if (limit > 0)
		sgr = ms < 0.8 * limit ? "32" : ms < limit ? "33" : "31";
	if (sgr)
		frame_sgr(f, sgr);
	frame_addf(f, "%*.2f", width, ms);
	if (sgr)
		frame_sgr(f, "0");
}

static double class_limit(const struct run_interval_view *v, unsigned c)
{
	return c == IO_DB_READ ? v->db_read_avg_ms : c == IO_LOG_WRITE ? v->log_write_avg_ms : 0;
}

static void frame_errors(struct frame *f, uint64_t io, uint64_t integrity)
{
	if (io || integrity)
		frame_sgr(f, "1;31");
	frame_addf(f, "%llu", (unsigned long long)(io + integrity));
	if (integrity)
		frame_addf(f, " (%llu integrity)", (unsigned long long)integrity);
	if (io || integrity)
		frame_sgr(f, "0");
}

/*
 * The running verdict (run.h: the final verdict's criteria on the totals so
 * far) in a few words: a failed criterion's tag ("max" for
 * db_read_max_sample_avg_ms or db_read_max_ms, "errors" for io_errors) and
 * its class (-1: a criterion of no class).
 */
static const char *criterion_tag(const char *crit, int *cls)
{
	static const struct {
		const char *suffix, *tag;
	} lat[] = {{"_avg_ms", "avg"}, {"_max_ms", "max"}, {"_max_sample_avg_ms", "max"},
		   {"_p99_ms", "p99"}, {"_cv_pct", "cv"},  {"_interval_avg_ms", "window"}};
	static const struct {
		const char *crit, *tag;
	} other[] = {{"io_errors", "errors"},	      {"integrity_errors", "integrity"},
		     {"page_fault_stalls", "stalls"}, {"pass_done_pct", "pass"},
		     {"transactional_iops", "iops"},  {"autotune_settled", "unsettled"}};
	static const unsigned classes[] = {IO_DB_READ, IO_LOG_WRITE};

	*cls = -1;
	for (size_t i = 0; i < DP_ARRAY_SIZE(classes); i++) {
		const char *name = stats_io_class_name(classes[i]);
		size_t n = strlen(name);

		if (strncmp(crit, name, n))
			continue;
		for (size_t j = 0; j < DP_ARRAY_SIZE(lat); j++)
			if (!strcmp(crit + n, lat[j].suffix)) {
				*cls = (int)classes[i];
				return lat[j].tag;
			}
	}
	for (size_t j = 0; j < DP_ARRAY_SIZE(other); j++)
		if (!strcmp(crit, other[j].crit))
			return other[j].tag;
	return crit;
}

static bool verdict_on_volume(const struct verdict *x, const char *vol)
{
	return (x->scope == SCOPE_VOLUME && !strcmp(x->name, vol)) ||
	       (x->scope == SCOPE_DATABASE && !strcmp(x->volume, vol));
}

/* The tags of volume vol's failed so-far verdicts of class cls (-1: those
 * of no class), its own and its databases', each once (the roll-up
 * databases_failed left out: its databases' own say why); the count, and
 * in *judged whether the volume has a verdict of the class at all. */
#define TAGS_MAX 12
static size_t failed_tags(const struct run_interval_view *v, const char *vol, int cls,
			  const char *tags[TAGS_MAX], bool *judged)
{
	size_t n = 0;

	*judged = false;
	for (size_t i = 0; i < v->nr_verdicts; i++) {
		const struct verdict *x = &v->verdicts[i];
		int c;
		const char *tag = criterion_tag(x->criterion, &c);
		bool dup = false;

		if (c != cls || !verdict_on_volume(x, vol) ||
		    !strcmp(x->criterion, "databases_failed"))
			continue;
		*judged = true;
		if (x->passed)
			continue;
		for (size_t k = 0; k < n; k++)
			dup = dup || tags[k] == tag;
		if (!dup && n < TAGS_MAX)
			tags[n++] = tag;
	}
	return n;
}

/* A row's "so far" cell: "FAIL max" (red) for the failed criteria of the
 * row's class (on the volume's first row also those of no class), "ok"
 * (green) where the row's class, or the first row, is judged and passes. */
static void frame_verdict(struct frame *f, const struct run_interval_view *v, const char *vol,
			  unsigned cls, bool first)
{
	const char *tags[TAGS_MAX];
	bool judged, judged_none = false;
	size_t n;

	if (!v->judged)
		return;
	n = failed_tags(v, vol, (int)cls, tags, &judged);
	if (first)
		n += failed_tags(v, vol, -1, tags + n, &judged_none);
	if (!n && !judged && !first)
		return;
	frame_sgr(f, n ? "1;31" : "32");
	frame_addf(f, "%s", n ? "FAIL" : "ok");
	for (size_t i = 0; i < n; i++)
		frame_addf(f, " %s", tags[i]);
	frame_sgr(f, "0");
}

static const char *phase_name(const struct run_interval_view *v)
{
	return v->draining	   ? "draining"
	       : v->tuning_streams ? "auto-tune"
	       : v->warmup	   ? "warm-up"
				   : "measuring";
}

static void frame_header(struct frame *f, const struct run_interval_view *v)
{
	uint64_t left = v->total_ns > v->elapsed_ns ? v->total_ns - v->elapsed_ns : 0;

	frame_sgr(f, "1");
	if (v->draining)
		frame_addf(f, "draining in-flight I/O");
	else if (v->tuning_streams)
		frame_addf(f, "auto-tune level %u streams", v->tuning_streams);
	else
		frame_addf(f, "%s", phase_name(v));
	frame_sgr(f, "0");
	frame_addf(f, "   ");
	frame_time(f, v->elapsed_ns);
	if (v->tuning_streams) {
		frame_addf(f, " into the level, auto-tune ends within ");
		frame_time(f, left);
	} else {
		frame_addf(f, " of ");
		frame_time(f, v->total_ns);
		frame_addf(f, ", ");
		frame_time(f, left);
		frame_addf(f, " left");
	}
	frame_eol(f);
}

static double class_max_limit(const struct run_interval_view *v, unsigned c)
{
	return c == IO_DB_READ ? v->db_read_max_ms : c == IO_LOG_WRITE ? v->log_write_max_ms : 0;
}

/* The errors in a cell of width columns, red when there are any. */
static void frame_errors_cell(struct frame *f, int width, uint64_t io, uint64_t integrity)
{
	char text[64];

	if (integrity)
		snprintf(text, sizeof(text), "%llu (%llu integrity)",
			 (unsigned long long)(io + integrity), (unsigned long long)integrity);
	else
		snprintf(text, sizeof(text), "%llu", (unsigned long long)io);
	if (io || integrity)
		frame_sgr(f, "1;31");
	frame_addf(f, "%*s", width, text);
	if (io || integrity)
		frame_sgr(f, "0");
}

/* The max column's title, named for the figure it shows (issue 30: "max
 * ms" was the highest sample average here and the slowest I/O in the
 * report): "max 15s avg" (max_basis = sample, the configured sample) or
 * "slowest I/O", in ms as the other columns, within 80 columns. */
static const char *max_title(const struct run_interval_view *v, char *buf, size_t len)
{
	if (!v->max_is_sample)
		return "slowest I/O";
	snprintf(buf, len, "max %gs avg", v->sample_s);
	return buf;
}

/* A volume in full: one row per class shown, with the interval's IOPS,
 * average and p99, the maximum so far (the figure the max criterion
 * judges) and the running verdict of the class. */
static void frame_volume(struct frame *f, const struct run_interval_view *v,
			 const struct run_volume_view *vol, unsigned shown)
{
	bool first = true;

	for (unsigned c = 0; c < IO_CLASS_COUNT; c++) {
		bool any = vol->iops[c] > 0;

		if (!(shown & (1u << c)))
			continue;
		frame_addf(f, "%-12.12s %-11s %7.0f ", first ? vol->name : "",
			   stats_io_class_name(c), vol->iops[c]);
		frame_latency(f, 8, vol->avg_ms[c], class_limit(v, c), any);
		frame_addf(f, " ");
		frame_latency(f, 8, vol->p99_ms[c], class_limit(v, c), any);
		frame_addf(f, " ");
		frame_latency(f, 11, vol->max_ms[c], class_max_limit(v, c),
			      isfinite(vol->max_ms[c]));
		frame_addf(f, " ");
		if (first)
			frame_errors_cell(f, 6, vol->errors, vol->integrity_errors);
		else
			frame_addf(f, "%6s", "");
		frame_addf(f, "  ");
		frame_verdict(f, v, vol->name, c, first);
		first = false;
		frame_eol(f);
	}
}

/* The volume's running verdict on one line: " ok", or " FAIL" and the
 * failed criteria, those of a class after its tag ("rd max log avg"). */
static void frame_verdict_short(struct frame *f, const struct run_interval_view *v, const char *vol)
{
	static const struct {
		int c;
		const char *tag;
	} cols[] = {{IO_DB_READ, "rd"}, {IO_LOG_WRITE, "log"}, {-1, NULL}};
	const char *tags[TAGS_MAX];
	bool judged, any = false;

	if (!v->judged)
		return;
	for (size_t i = 0; i < DP_ARRAY_SIZE(cols); i++) {
		size_t n = failed_tags(v, vol, cols[i].c, tags, &judged);

		if (n && !any)
			frame_sgr(f, "1;31");
		if (n && !any)
			frame_addf(f, " FAIL");
		any = any || n;
		if (n && cols[i].tag)
			frame_addf(f, " %s", cols[i].tag);
		for (size_t k = 0; k < n; k++)
			frame_addf(f, " %s", tags[k]);
	}
	if (!any) {
		frame_sgr(f, "32");
		frame_addf(f, " ok");
	}
	frame_sgr(f, "0");
}

/* A volume on one line, when the terminal is too short for the full frame:
 * database reads, writes and log writes as IOPS avg/p99. */
static void frame_volume_short(struct frame *f, const struct run_interval_view *v,
			       const struct run_volume_view *vol)
{
	static const struct {
		unsigned c;
		const char *tag;
	} cols[] = {{IO_DB_READ, "rd"}, {IO_DB_WRITE, "wr"}, {IO_LOG_WRITE, "log"}};

	frame_addf(f, "%-12.12s", vol->name);
	for (size_t i = 0; i < DP_ARRAY_SIZE(cols); i++) {
		unsigned c = cols[i].c;
		bool any = vol->iops[c] > 0;

		frame_addf(f, " %s %6.0f ", cols[i].tag, vol->iops[c]);
		frame_latency(f, 1, vol->avg_ms[c], class_limit(v, c), any);
		frame_addf(f, "/");
		frame_latency(f, 1, vol->p99_ms[c], class_limit(v, c), any);
	}
	frame_addf(f, " err ");
	frame_errors(f, vol->errors, vol->integrity_errors);
	frame_verdict_short(f, v, vol->name);
	frame_eol(f);
}

static void terminal_size(unsigned *rows, unsigned *cols)
{
	struct winsize ws;

	*rows = 24;
	*cols = 80;
	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row && ws.ws_col) {
		*rows = ws.ws_row;
		*cols = ws.ws_col;
	}
}

static void frame_build(struct frame *f, struct live_view *lv, const struct run_interval_view *v)
{
	unsigned rows, shown = lv->seen, nshown = 0, full, room;
	char title[32];
	size_t n = v->nr_vols;

	terminal_size(&rows, &f->cols);
	if (!shown) /* nothing issued yet: the three classes every run has */
		shown = 1u << IO_DB_READ | 1u << IO_DB_WRITE | 1u << IO_LOG_WRITE;
	for (unsigned c = 0; c < IO_CLASS_COUNT; c++)
		nshown += !!(shown & (1u << c));
	frame_header(f, v);
	/* header, column titles, volumes, total; one row spare for the cursor */
	full = 3 + (unsigned)n * nshown;
	room = rows > 4 ? rows - 4 : 1;
	if (full + 1 <= rows) {
		frame_sgr(f, "2");
		frame_addf(f, "%-12s %-11s %7s %8s %8s %11s %6s  %s", "volume", "class", "IOPS",
			   "avg ms", "p99 ms", max_title(v, title, sizeof(title)), "errors",
			   "so far");
		frame_sgr(f, "0");
		frame_eol(f);
		for (size_t i = 0; i < n; i++)
			frame_volume(f, v, &v->vols[i], shown);
	} else {
		size_t fit = n <= room ? n : room - 1;

		for (size_t i = 0; i < fit; i++)
			frame_volume_short(f, v, &v->vols[i]);
		if (fit < n) {
			frame_addf(f, "(%zu more volumes: a taller terminal shows them)", n - fit);
			frame_eol(f);
		}
	}
	frame_addf(f, "%-12s transactional %.0f IOPS, log writes %.0f IOPS, errors ", "all",
		   v->iops[IO_DB_READ] + v->iops[IO_DB_WRITE], v->iops[IO_LOG_WRITE]);
	frame_errors(f, v->errors, v->integrity_errors);
	if (v->judged) {
		frame_addf(f, "  ");
		frame_sgr(f, v->would_pass ? "32" : "1;31");
		frame_addf(f, "%s", v->would_pass ? "would PASS" : "would FAIL");
		frame_sgr(f, "0");
	}
	frame_eol(f);
}

/* ---- the status line: SIGUSR1, and every --status-interval off a terminal ---- */

/* "1:02:03" or "2:03" */
static void sb_time(struct strbuf *sb, uint64_t ns)
{
	unsigned long long s = ns / NSEC_PER_SEC;

	if (s >= 3600)
		strbuf_addf(sb, "%llu:%02llu:%02llu", s / 3600, s / 60 % 60, s % 60);
	else
		strbuf_addf(sb, "%llu:%02llu", s / 60, s % 60);
}

/* The running verdict in words: "would PASS", or "would FAIL: v1 db1
 * db_read max" naming the first failure (run_view_failure) and how many
 * other criteria fail. */
static void sb_verdict(struct strbuf *sb, const struct run_interval_view *v)
{
	const struct verdict *x = run_view_failure(v, NULL);
	size_t more = 0;
	const char *tag;
	int cls;

	if (!v->judged) {
		strbuf_addstr(sb,
			      v->tuning_streams ? "not judged while auto-tuning" : "not judged");
		return;
	}
	if (!x) {
		strbuf_addstr(sb, "would PASS");
		return;
	}
	tag = criterion_tag(x->criterion, &cls);
	strbuf_addstr(sb, "would FAIL: ");
	if (x->scope == SCOPE_DATABASE)
		strbuf_addf(sb, "%s %s ", x->volume, x->name);
	else
		strbuf_addf(sb, "%s ", x->name);
	if (cls >= 0)
		strbuf_addf(sb, "%s ", stats_io_class_name((unsigned)cls));
	strbuf_addstr(sb, tag);
	for (size_t i = 0; i < v->nr_verdicts; i++) {
		const struct verdict *y = &v->verdicts[i];

		more += y != x && !y->passed && strcmp(y->criterion, "databases_failed") &&
			strcmp(y->criterion, "volumes_failed");
	}
	if (more)
		strbuf_addf(sb, " (and %zu more)", more);
}

/* The intervals since the last status line, for its figures. */
static void status_add(struct live_view *lv, const struct run_interval_view *v)
{
	/* a new grid (auto-tune's next level, then the main test) starts at 0 */
	uint64_t len =
		v->elapsed_ns > lv->prev_elapsed ? v->elapsed_ns - lv->prev_elapsed : v->elapsed_ns;

	lv->prev_elapsed = v->elapsed_ns;
	lv->acc_ns += len;
	for (unsigned c = 0; c < IO_CLASS_COUNT; c++) {
		double ios = v->iops[c] * (double)len / 1e9;

		lv->acc_ios[c] += ios;
		lv->acc_lat[c] += ios * v->avg_ms[c];
	}
}

/* The classes a status line too long for its width leaves out, the first
 * first: the side reads, then the writes; db_read goes last. */
static const unsigned status_drop_order[IO_CLASS_COUNT] = {
	IO_LOG_READ, IO_BDM_READ, IO_DB_WRITE, IO_LOG_WRITE, IO_BACKUP_READ, IO_DB_READ,
};

/* The status line's figures of the classes in shown, each "| " apart. */
static void status_classes(struct strbuf *sb, const struct live_view *lv, unsigned shown)
{
	bool any = false;

	for (unsigned c = 0; c < IO_CLASS_COUNT; c++) {
		double ios = lv->acc_ios[c];

		if (!(shown & (1u << c)))
			continue;
		strbuf_addf(sb, "%s %s %.0f IOPS ", any ? " |" : "", stats_io_class_name(c),
			    lv->acc_ns ? ios * 1e9 / (double)lv->acc_ns : 0);
		if (ios > 0)
			strbuf_addf(sb, "%.2f ms", lv->acc_lat[c] / ios);
		else
			strbuf_addstr(sb, "- ms");
		any = true;
	}
}

/*
 * One status line on stderr: "[0:42/8:00 measuring] db_read 512 IOPS 4.20
 * ms | ... | errors 0 | would PASS". IOPS and average latency per class
 * seen so far, over the intervals since the previous status line (the
 * last interval when none came since); errors and the verdict so far.
 * Within the width (cli_width: $COLUMNS or 120 off a terminal): classes
 * are left out whole (status_drop_order) until it fits; what still does
 * not (a long name in the verdict) wraps at a space.
 * v NULL: nothing measured yet.
 */
static void status_line(struct live_view *lv, const struct run_interval_view *v)
{
	struct strbuf sb = STRBUF_INIT, head = STRBUF_INIT, tail = STRBUF_INIT;
	struct strbuf mid = STRBUF_INIT;
	unsigned shown = lv->seen, width = cli_width(stderr);

	if (!v) {
		strbuf_addstr(&sb, "[starting] no interval measured yet (files being checked or "
				   "created, or the run starting)\n");
		goto out;
	}
	if (!lv->acc_ns)
		status_add(lv, v);
	if (!shown)
		shown = 1u << IO_DB_READ | 1u << IO_DB_WRITE | 1u << IO_LOG_WRITE;
	strbuf_addch(&head, '[');
	sb_time(&head, v->elapsed_ns);
	strbuf_addch(&head, '/');
	sb_time(&head, v->total_ns);
	if (v->tuning_streams && !v->draining)
		strbuf_addf(&head, " auto-tune %u streams]", v->tuning_streams);
	else
		strbuf_addf(&head, " %s]", phase_name(v));
	strbuf_addf(&tail, " | errors %llu", (unsigned long long)(v->errors + v->integrity_errors));
	if (v->integrity_errors)
		strbuf_addf(&tail, " (%llu integrity)", (unsigned long long)v->integrity_errors);
	strbuf_addstr(&tail, " | ");
	sb_verdict(&tail, v);
	for (size_t k = 0;; k++) {
		strbuf_reset(&mid);
		status_classes(&mid, lv, shown);
		/* the last class left stays: the line wraps rather than say nothing */
		if (head.len + mid.len + tail.len <= width || k == IO_CLASS_COUNT ||
		    !(shown & (shown - 1)))
			break;
		shown &= ~(1u << status_drop_order[k]);
	}
	strbuf_addf(&sb, "%s%s%s\n", head.buf, mid.buf, tail.buf);
out:
	strbuf_wrap_lines(&sb, 0, width);
	fputs(sb.buf, stderr);
	progress_term_check(stderr, fflush(stderr) == EOF);
	strbuf_release(&sb);
	strbuf_release(&head);
	strbuf_release(&mid);
	strbuf_release(&tail);
	lv->acc_ns = 0;
	memset(lv->acc_ios, 0, sizeof(lv->acc_ios));
	memset(lv->acc_lat, 0, sizeof(lv->acc_lat));
}

/* Off a terminal: a status line at the first interval, every
 * status_interval of run time, where the phase changes and at the last. */
static void status_periodic(struct live_view *lv, const struct run_interval_view *v)
{
	const char *phase = phase_name(v);
	bool due = !lv->lines || v->last || strcmp(phase, lv->phase) ||
		   v->elapsed_ns < lv->line_elapsed ||
		   v->elapsed_ns - lv->line_elapsed >= lv->status_interval_ns;

	if (!due)
		return;
	lv->lines++;
	lv->line_elapsed = v->elapsed_ns;
	snprintf(lv->phase, sizeof(lv->phase), "%s", phase);
	status_line(lv, v);
}

void progress_live_status(struct live_view *lv, const struct run_interval_view *v)
{
	if (progress_term_gone(stderr))
		return;
	progress_live_clear(lv); /* the line above the next frame */
	status_line(lv, v);
}

/* Moves back over the last frame and clears from there down. */
static void frame_erase(struct live_view *lv, struct strbuf *sb)
{
	if (!lv->rows)
		return;
	strbuf_addf(sb, "\r\033[%uA\033[J", lv->rows);
	lv->rows = 0;
}

void progress_live_interval(struct live_view *lv, const struct run_interval_view *v)
{
	struct frame f = {.sb = STRBUF_INIT, .color = lv->color};
	struct strbuf out = STRBUF_INIT;
	uint64_t now = time_mono_ns();

	if (progress_term_gone(stderr))
		return;
	if (lv->quiet) { /* SIGUSR1's figures all the same */
		status_add(lv, v);
		return;
	}
	for (unsigned c = 0; c < IO_CLASS_COUNT; c++)
		if (v->iops[c] > 0)
			lv->seen |= 1u << c;
	status_add(lv, v);
	if (!lv->tty) {
		status_periodic(lv, v);
		return;
	}
	if (lv->drawn && now - lv->last_draw < LIVE_VIEW_REDRAW_NS && v->draining == lv->draining)
		return;
	lv->drawn = true;
	lv->last_draw = now;
	lv->draining = v->draining;
	frame_build(&f, lv, v);
	frame_erase(lv, &out);
	strbuf_add(&out, f.sb.buf, f.sb.len);
	fputs(out.buf, stderr);
	progress_term_check(stderr, fflush(stderr) == EOF);
	lv->rows = f.rows;
	strbuf_release(&f.sb);
	strbuf_release(&out);
}

void progress_live_clear(struct live_view *lv)
{
	struct strbuf out = STRBUF_INIT;

	frame_erase(lv, &out);
	if (out.len && !progress_term_gone(stderr)) {
		fputs(out.buf, stderr);
		progress_term_check(stderr, fflush(stderr) == EOF);
	}
	strbuf_release(&out);
	lv->drawn = false; /* the next interval draws at once */
}

void progress_live_end(struct live_view *lv)
{
	lv->rows = 0; /* the last frame stays on the screen, above the summary */
}
