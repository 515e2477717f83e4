/* SPDX-License-Identifier: MIT */
/*
 * fingerprint.c - a device fingerprint's arithmetic (learn.h): the
 * /proc/diskstats fields of a device, a window's differences, the figures
 * (iostat's, per role data and log, and per transaction), the fingerprint's
 * JSON both ways and the comparison of two as a table.
 *
 * /proc/diskstats (Documentation/admin-guide/iostats.rst), after "MAJ MIN
 * NAME": 0 reads completed, 1 merged, 2 sectors read, 3 ms reading, 4 writes
 * completed, 5 merged, 6 sectors written, 7 ms writing, 8 in flight, 9 ms
 * doing I/O, 10 weighted ms, 11-14 discards (4.18), 15 flushes completed,
 * 16 ms flushing (5.5). Sectors are 512 bytes whatever the block size.
 * Figures over a window of T seconds, d() the window's difference:
 *   reads/s d(reads) / T; writes/s, flushes/s likewise
 *   reads:writes d(reads) / d(writes)
 *   read size d(sectors read) x 512 / d(reads), the mean: diskstats counts
 *       bytes and I/Os, never one I/O's size, so no distribution; write size
 *       likewise
 *   queue depth d(weighted ms) / (T x 1000): iostat's aqu-sz, the
 *       time-averaged I/Os in flight
 *   read await d(ms reading) / d(reads): iostat's r_await; write, flush alike
 *   per transaction: each count / the transactions in the window
 * Each figure carries the events it comes from (a ratio the fewer of its
 * two): a comparison leaves out rows with fewer than LEARN_EVENTS_MIN, whose
 * noise would pass for a difference.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diskproof/counters.h"
#include "diskproof/json.h"
#include "diskproof/learn.h"
#include "diskproof/trace.h"

static bool next_u64(const char **p, uint64_t *v)
{
	char *end;

	while (**p == ' ' || **p == '\t')
		(*p)++;
	if (!isdigit((unsigned char)**p))
		return false;
	*v = strtoull(*p, &end, 10);
	*p = end;
	return true;
}

/* One line: "MAJ MIN NAME" and 11 or more numbers; false for another shape
 * or another name. */
static bool line_parse(const char *p, const char *name, struct learn_counters *c)
{
	uint64_t f[17], skip;
	size_t len, n = 0;

	if (!next_u64(&p, &skip) || !next_u64(&p, &skip))
		return false;
	while (*p == ' ' || *p == '\t')
		p++;
	len = strcspn(p, " \t\n");
	if (len != strlen(name) || strncmp(p, name, len))
		return false;
	p += len;
	while (n < DP_ARRAY_SIZE(f) && next_u64(&p, &f[n]))
		n++;
	if (n < 11)
		return false;
	*c = (struct learn_counters){
		.reads = f[0],
		.read_sectors = f[2],
		.read_ms = f[3],
		.writes = f[4],
		.write_sectors = f[6],
		.write_ms = f[7],
		.io_ms = f[9],
		.queue_ms = f[10],
		.has_flushes = n >= 17,
	};
	if (c->has_flushes) {
		c->flushes = f[15];
		c->flush_ms = f[16];
	}
	return true;
}

int learn_diskstats_find(const char *text, const char *name, struct learn_counters *out)
{
	const char *p = text;

	while (p && *p) {
		if (line_parse(p, name, out))
			return 0;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -ENOENT;
}

void learn_counters_delta(const struct learn_counters *a, const struct learn_counters *b,
			  struct learn_counters *out)
{
	*out = (struct learn_counters){
		.reads = counters_delta(a->reads, b->reads),
		.read_sectors = counters_delta(a->read_sectors, b->read_sectors),
		.read_ms = counters_delta(a->read_ms, b->read_ms),
		.writes = counters_delta(a->writes, b->writes),
		.write_sectors = counters_delta(a->write_sectors, b->write_sectors),
		.write_ms = counters_delta(a->write_ms, b->write_ms),
		.io_ms = counters_delta(a->io_ms, b->io_ms),
		.queue_ms = counters_delta(a->queue_ms, b->queue_ms),
		.has_flushes = a->has_flushes && b->has_flushes,
	};
	if (out->has_flushes) {
		out->flushes = counters_delta(a->flushes, b->flushes);
		out->flush_ms = counters_delta(a->flush_ms, b->flush_ms);
	}
}

void learn_counters_add(struct learn_counters *sum, const struct learn_counters *c, bool first)
{
	bool flushes = (first || sum->has_flushes) && c->has_flushes;

	sum->reads += c->reads;
	sum->read_sectors += c->read_sectors;
	sum->read_ms += c->read_ms;
	sum->writes += c->writes;
	sum->write_sectors += c->write_sectors;
	sum->write_ms += c->write_ms;
	sum->io_ms += c->io_ms;
	sum->queue_ms += c->queue_ms;
	sum->flushes += c->flushes;
	sum->flush_ms += c->flush_ms;
	sum->has_flushes = flushes;
}

/* ---- figures ---- */

enum fig_kind {
	FIG_READS_PS,
	FIG_WRITES_PS,
	FIG_RW,
	FIG_READ_SIZE,
	FIG_WRITE_SIZE,
	FIG_FLUSHES_PS,
	FIG_QUEUE,
	FIG_READ_AWAIT,
	FIG_WRITE_AWAIT,
	FIG_TPS,
	FIG_TXN_READS,
	FIG_TXN_WRITES,
	FIG_TXN_BYTES,
	FIG_TXN_FLUSHES,
	/* the database's own counters per transaction (dbstat.c) */
	FIG_DB_LOG_KIB,
	FIG_DB_LOG_FLUSHES,
	FIG_DB_PAGES_READ,
	FIG_DB_PAGES_WRITTEN,
};

static const struct fig_def {
	const char *label, *key;
	int role; /* enum learn_role_id */
	enum fig_kind kind;
	bool asserted;
	int decimals;
} fig_defs[] = {
	{"data reads/s", "data.reads_per_s", LEARN_DATA, FIG_READS_PS, true, 1},
	{"data writes/s", "data.writes_per_s", LEARN_DATA, FIG_WRITES_PS, true, 1},
	{"data reads:writes", "data.read_write_ratio", LEARN_DATA, FIG_RW, true, 3},
	{"data read size KiB", "data.read_size_kib", LEARN_DATA, FIG_READ_SIZE, true, 1},
	{"data write size KiB", "data.write_size_kib", LEARN_DATA, FIG_WRITE_SIZE, true, 1},
	{"data flushes/s", "data.flushes_per_s", LEARN_DATA, FIG_FLUSHES_PS, true, 2},
	{"data queue depth", "data.queue_depth", LEARN_DATA, FIG_QUEUE, true, 2},
	{"data read await ms", "data.read_await_ms", LEARN_DATA, FIG_READ_AWAIT, false, 2},
	{"data write await ms", "data.write_await_ms", LEARN_DATA, FIG_WRITE_AWAIT, false, 2},
	{"log reads/s", "log.reads_per_s", LEARN_LOG, FIG_READS_PS, true, 1},
	{"log writes/s", "log.writes_per_s", LEARN_LOG, FIG_WRITES_PS, true, 1},
	{"log write size KiB", "log.write_size_kib", LEARN_LOG, FIG_WRITE_SIZE, true, 1},
	{"log flushes/s", "log.flushes_per_s", LEARN_LOG, FIG_FLUSHES_PS, true, 1},
	{"log queue depth", "log.queue_depth", LEARN_LOG, FIG_QUEUE, true, 2},
	{"log write await ms", "log.write_await_ms", LEARN_LOG, FIG_WRITE_AWAIT, false, 2},
	{"transactions/s", "per_transaction.transactions_per_s", -1, FIG_TPS, false, 1},
	{"data reads/txn", "per_transaction.data_reads", LEARN_DATA, FIG_TXN_READS, true, 3},
	{"data writes/txn", "per_transaction.data_writes", LEARN_DATA, FIG_TXN_WRITES, true, 3},
	{"log writes/txn", "per_transaction.log_writes", LEARN_LOG, FIG_TXN_WRITES, true, 3},
	{"log KiB/txn", "per_transaction.log_kib", LEARN_LOG, FIG_TXN_BYTES, true, 2},
	{"log flushes/txn", "per_transaction.log_flushes", LEARN_LOG, FIG_TXN_FLUSHES, true, 3},
	{"db log KiB/txn", "database.log_kib_per_txn", -1, FIG_DB_LOG_KIB, false, 2},
	{"db log flushes/txn", "database.log_flushes_per_txn", -1, FIG_DB_LOG_FLUSHES, false, 3},
	{"db pages read/txn", "database.pages_read_per_txn", -1, FIG_DB_PAGES_READ, false, 3},
	{"db pages written/txn", "database.pages_written_per_txn", -1, FIG_DB_PAGES_WRITTEN, false,
	 3},
};

static double ratio(double a, double b)
{
	return b > 0 ? a / b : NAN;
}

static uint64_t fewer(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* The value and events of a per-device figure of role r. */
static void fig_device(const struct learn_fp *fp, const struct learn_counters *c, enum fig_kind k,
		       struct learn_figure *f)
{
	double t = fp->seconds;

	switch (k) {
	case FIG_READS_PS:
		*f = (struct learn_figure){.value = ratio((double)c->reads, t), .events = c->reads};
		break;
	case FIG_WRITES_PS:
		*f = (struct learn_figure){.value = ratio((double)c->writes, t),
					   .events = c->writes};
		break;
	case FIG_RW:
		f->value = ratio((double)c->reads, (double)c->writes);
		f->events = fewer(c->reads, c->writes);
		break;
	case FIG_READ_SIZE:
		f->value = ratio((double)c->read_sectors * 512 / 1024, (double)c->reads);
		f->events = c->reads;
		break;
	case FIG_WRITE_SIZE:
		f->value = ratio((double)c->write_sectors * 512 / 1024, (double)c->writes);
		f->events = c->writes;
		break;
	case FIG_FLUSHES_PS:
		f->value = c->has_flushes ? ratio((double)c->flushes, t) : NAN;
		f->events = c->flushes;
		break;
	case FIG_QUEUE:
		f->value = ratio((double)c->queue_ms, t * 1000);
		f->events = c->reads + c->writes;
		break;
	case FIG_READ_AWAIT:
		f->value = ratio((double)c->read_ms, (double)c->reads);
		f->events = c->reads;
		break;
	case FIG_WRITE_AWAIT:
		f->value = ratio((double)c->write_ms, (double)c->writes);
		f->events = c->writes;
		break;
	default:
		break;
	}
}

/* The value and events of a per-transaction figure. */
static void fig_txn(const struct learn_fp *fp, const struct learn_counters *c, enum fig_kind k,
		    struct learn_figure *f)
{
	double n = fp->transactions;
	uint64_t txns = n > 0 ? (uint64_t)n : 0;

	f->value = NAN;
	f->events = 0;
	if (!(n > 0))
		return;
	if (k == FIG_TPS) {
		f->value = ratio(n, fp->seconds);
		f->events = txns;
	} else if (k == FIG_TXN_READS) {
		f->value = (double)c->reads / n;
		f->events = fewer(c->reads, txns);
	} else if (k == FIG_TXN_WRITES) {
		f->value = (double)c->writes / n;
		f->events = fewer(c->writes, txns);
	} else if (k == FIG_TXN_BYTES) {
		f->value = (double)c->write_sectors * 512 / 1024 / n;
		f->events = fewer(c->writes, txns);
	} else if (k == FIG_TXN_FLUSHES && c->has_flushes) {
		f->value = (double)c->flushes / n;
		f->events = fewer(c->flushes, txns);
	}
}

/* A figure of the database's counters per transaction (the fingerprint's
 * transactions, else the database's own count); NAN without them. */
static void fig_db(const struct learn_fp *fp, enum fig_kind k, struct learn_figure *f)
{
	const struct learn_db *db = &fp->db;
	double n = fp->transactions > 0 ? fp->transactions : db->transactions;
	double v = k == FIG_DB_LOG_KIB	     ? db->log_bytes
		   : k == FIG_DB_LOG_FLUSHES ? db->log_flushes
		   : k == FIG_DB_PAGES_READ  ? db->pages_read
					     : db->pages_written;
	uint64_t txns = n > 0 ? (uint64_t)n : 0;

	f->value = NAN;
	f->events = 0;
	if (db->kind == LEARN_DB_NONE || !db->used || !(n > 0) || v < 0)
		return;
	f->value = (k == FIG_DB_LOG_KIB ? v / 1024 : v) / n;
	f->events = k == FIG_DB_LOG_KIB ? txns : fewer((uint64_t)v, txns);
}

size_t learn_fp_figures(const struct learn_fp *fp, struct learn_figure *out)
{
	size_t n = 0;

	for (size_t i = 0; i < DP_ARRAY_SIZE(fig_defs) && n < LEARN_FIGURES_MAX; i++) {
		const struct fig_def *d = &fig_defs[i];
		const struct learn_counters *c = d->role >= 0 ? &fp->role[d->role].c : NULL;
		struct learn_figure *f = &out[n++];

		*f = (struct learn_figure){.value = NAN};
		if (d->role >= 0 && !fp->role[d->role].present)
			;
		else if (d->kind >= FIG_DB_LOG_KIB)
			fig_db(fp, d->kind, f);
		else if (d->kind >= FIG_TPS)
			fig_txn(fp, c ? c : &fp->role[LEARN_DATA].c, d->kind, f);
		else
			fig_device(fp, c, d->kind, f);
		f->label = d->label;
		f->key = d->key;
		f->asserted = d->asserted;
		f->decimals = d->decimals;
	}
	return n;
}

/* ---- JSON out ---- */

static void json_names(struct json *j, const char *key, const char (*v)[LEARN_NAME_MAX], size_t n)
{
	json_begin_array_flat(j, key);
	for (size_t i = 0; i < n; i++)
		json_str(j, NULL, v[i]);
	json_end(j);
}

static void json_where(struct json *j, const struct learn_where *w)
{
	json_begin_array_flat(j, "paths");
	for (size_t i = 0; i < w->nr_paths; i++)
		json_str(j, NULL, w->paths[i]);
	json_end(j);
	json_names(j, "devices", w->devices, w->nr_devices);
	json_names(j, "beneath", w->beneath, w->nr_beneath);
	json_begin_array_flat(j, "backing_files");
	for (size_t i = 0; i < w->nr_backing; i++)
		json_str(j, NULL, w->backing[i]);
	json_end(j);
	json_bool(j, "flush_counted_as_write", w->flush_counted_as_write);
	json_u64(j, "logical_block", w->block);
}

static void json_counters(struct json *j, const struct learn_counters *c)
{
	json_begin_object_flat(j, "counters");
	json_u64(j, "reads", c->reads);
	json_u64(j, "read_sectors", c->read_sectors);
	json_u64(j, "read_ms", c->read_ms);
	json_u64(j, "writes", c->writes);
	json_u64(j, "write_sectors", c->write_sectors);
	json_u64(j, "write_ms", c->write_ms);
	json_u64(j, "io_ms", c->io_ms);
	json_u64(j, "queue_ms", c->queue_ms);
	if (c->has_flushes) {
		json_u64(j, "flushes", c->flushes);
		json_u64(j, "flush_ms", c->flush_ms);
	}
	json_end(j);
}

/* The figures of one group ("data", "log", "per_transaction"), by key prefix. */
static void json_figures(struct json *j, const struct learn_figure *f, size_t n, const char *group)
{
	size_t len = strlen(group);

	json_begin_object(j, "figures");
	for (size_t i = 0; i < n; i++) {
		if (strncmp(f[i].key, group, len) || f[i].key[len] != '.')
			continue;
		json_begin_object_flat(j, f[i].key + len + 1);
		json_sig(j, "value", f[i].value, 6);
		json_u64(j, "events", f[i].events);
		json_end(j);
	}
	json_end(j);
}

void learn_fp_json(const struct learn_fp *fp, struct strbuf *out)
{
	static const char *const names[LEARN_ROLES] = {"data", "log"};
	struct learn_figure f[LEARN_FIGURES_MAX];
	size_t n = learn_fp_figures(fp, f);
	struct json j = JSON_INIT(out);

	json_begin_object(&j, NULL);
	json_str(&j, "kind", "diskproof-fingerprint");
	json_doc_versions(&j);
	json_str(&j, "source", fp->source);
	json_str(&j, "start", fp->start_utc[0] ? fp->start_utc : NULL);
	json_sig(&j, "seconds", fp->seconds, 17); /* exact: learn --from refits it */
	if (fp->transactions >= 0)
		json_sig(&j, "transactions", fp->transactions, 12);
	else
		json_null(&j, "transactions");
	json_str(&j, "sizes", "means: /proc/diskstats counts I/Os and bytes, not each I/O's size");
	if (fp->trace_status[0])
		json_str(&j, "trace_source", fp->trace_status);
	for (int r = 0; r < LEARN_ROLES; r++) {
		if (!fp->role[r].present)
			continue;
		json_begin_object(&j, names[r]);
		json_where(&j, &fp->role[r].where);
		json_counters(&j, &fp->role[r].c);
		json_figures(&j, f, n, names[r]);
		learn_trace_json(fp, r, &j);
		json_end(&j);
	}
	if (fp->transactions >= 0) {
		json_begin_object(&j, "per_transaction");
		json_figures(&j, f, n, "per_transaction");
		json_end(&j);
	}
	if (fp->db.kind != LEARN_DB_NONE) {
		json_begin_object(&j, "database");
		learn_db_json_fields(&fp->db, &j);
		if (fp->db.used)
			json_figures(&j, f, n, "database");
		json_end(&j);
	}
	json_end(&j);
	strbuf_addch(out, '\n');
}

/* ---- JSON in: a small reader of the documents above ---- */

struct jr {
	const char *p, *origin;
	struct learn_fp *fp;
	struct strbuf *err;
	char path[128]; /* the dotted key of the value being read */
};

static void jr_ws(struct jr *r)
{
	while (*r->p == ' ' || *r->p == '\n' || *r->p == '\t' || *r->p == '\r')
		r->p++;
}

static int jr_fail(struct jr *r, const char *what)
{
	if (!r->err->len)
		strbuf_addf(r->err, "%s: not a diskproof fingerprint: %s at %s", r->origin, what,
			    r->path[0] ? r->path : "the top");
	return -EINVAL;
}

/* A JSON string into out (escapes kept as the character after the
 * backslash: the documents' strings are paths and names). */
static int jr_string(struct jr *r, char *out, size_t len)
{
	size_t n = 0;

	if (*r->p != '"')
		return jr_fail(r, "a string expected");
	r->p++;
	while (*r->p && *r->p != '"') {
		if (*r->p == '\\' && r->p[1])
			r->p++;
		if (n + 1 < len)
			out[n++] = *r->p;
		r->p++;
	}
	if (*r->p != '"')
		return jr_fail(r, "an unterminated string");
	r->p++;
	out[n] = '\0';
	return 0;
}

static int jr_value(struct jr *r);

/* A counter or figure the reader keeps: the counters of each role, the
 * window, the transactions; the rest (figures, versions) are derived. */
static void jr_number(struct jr *r, double v)
{
	static const char *const roles[LEARN_ROLES] = {"data.counters.", "log.counters."};
	struct learn_fp *fp = r->fp;

	if (!strncmp(r->path, "database.", 9))
		learn_db_json_number(&fp->db, r->path + 9, v);
	if (!strncmp(r->path, "data.trace.", 11) || !strncmp(r->path, "log.trace.", 10)) {
		bool log = r->path[0] == 'l';

		learn_trace_json_number(&fp->role[log].trace, r->path + (log ? 10 : 11), v);
		return;
	}
	if (!strcmp(r->path, "seconds"))
		fp->seconds = v;
	else if (!strcmp(r->path, "transactions"))
		fp->transactions = v;
	else if (!strcmp(r->path, "data.logical_block") || !strcmp(r->path, "log.logical_block"))
		fp->role[r->path[0] == 'l'].where.block = v > 0 && v <= 65536 ? (uint32_t)v : 0;
	for (int k = 0; k < LEARN_ROLES; k++) {
		struct learn_counters *c = &fp->role[k].c;
		size_t len = strlen(roles[k]);
		const char *f = r->path + len;
		uint64_t u = v > 0 ? (uint64_t)v : 0;

		if (strncmp(r->path, roles[k], len))
			continue;
		fp->role[k].present = true;
		if (!strcmp(f, "reads"))
			c->reads = u;
		else if (!strcmp(f, "read_sectors"))
			c->read_sectors = u;
		else if (!strcmp(f, "read_ms"))
			c->read_ms = u;
		else if (!strcmp(f, "writes"))
			c->writes = u;
		else if (!strcmp(f, "write_sectors"))
			c->write_sectors = u;
		else if (!strcmp(f, "write_ms"))
			c->write_ms = u;
		else if (!strcmp(f, "io_ms"))
			c->io_ms = u;
		else if (!strcmp(f, "queue_ms"))
			c->queue_ms = u;
		else if (!strcmp(f, "flushes"))
			c->flushes = u, c->has_flushes = true;
		else if (!strcmp(f, "flush_ms"))
			c->flush_ms = u;
	}
}

static void jr_text(struct jr *r, const char *s)
{
	if (!strncmp(r->path, "database.", 9))
		learn_db_json_text(&r->fp->db, r->path + 9, s);
	else if (!strcmp(r->path, "source"))
		snprintf(r->fp->source, sizeof(r->fp->source), "%.*s",
			 (int)sizeof(r->fp->source) - 1, s);
	else if (!strcmp(r->path, "start"))
		snprintf(r->fp->start_utc, sizeof(r->fp->start_utc), "%.*s",
			 (int)sizeof(r->fp->start_utc) - 1, s);
	else if (!strcmp(r->path, "trace_source"))
		snprintf(r->fp->trace_status, sizeof(r->fp->trace_status), "%.*s",
			 (int)sizeof(r->fp->trace_status) - 1, s);
	else if (!strcmp(r->path, "kind") && strcmp(s, "diskproof-fingerprint"))
		jr_fail(r, "kind is not diskproof-fingerprint");
	else if (!strcmp(r->path, "data.devices") || !strcmp(r->path, "log.devices")) {
		struct learn_where *w = &r->fp->role[r->path[0] == 'l'].where;

		if (w->nr_devices < LEARN_DEVS_MAX)
			snprintf(w->devices[w->nr_devices++], LEARN_NAME_MAX, "%.*s",
				 LEARN_NAME_MAX - 1, s);
	} else if (!strcmp(r->path, "data.paths") || !strcmp(r->path, "log.paths")) {
		struct learn_where *w = &r->fp->role[r->path[0] == 'l'].where;

		if (w->nr_paths < LEARN_PATHS_MAX)
			snprintf(w->paths[w->nr_paths++], sizeof(w->paths[0]), "%.*s",
				 (int)sizeof(w->paths[0]) - 1, s);
	} else if (!strcmp(r->path, "data.beneath") || !strcmp(r->path, "log.beneath")) {
		struct learn_where *w = &r->fp->role[r->path[0] == 'l'].where;

		if (w->nr_beneath < LEARN_DEVS_MAX)
			snprintf(w->beneath[w->nr_beneath++], LEARN_NAME_MAX, "%.*s",
				 LEARN_NAME_MAX - 1, s);
	} else if (!strcmp(r->path, "data.backing_files") ||
		   !strcmp(r->path, "log.backing_files")) {
		struct learn_where *w = &r->fp->role[r->path[0] == 'l'].where;

		if (w->nr_backing < LEARN_DEVS_MAX)
			snprintf(w->backing[w->nr_backing++], sizeof(w->backing[0]), "%.*s",
				 (int)sizeof(w->backing[0]) - 1, s);
	}
}

static int jr_object(struct jr *r)
{
	size_t base = strlen(r->path);
	char key[64];
	int ret;

	r->p++;
	jr_ws(r);
	while (*r->p && *r->p != '}') {
		ret = jr_string(r, key, sizeof(key));
		if (ret)
			return ret;
		jr_ws(r);
		if (*r->p != ':')
			return jr_fail(r, "':' expected");
		r->p++;
		snprintf(r->path + base, sizeof(r->path) - base, "%s%s", base ? "." : "", key);
		ret = jr_value(r);
		r->path[base] = '\0';
		if (ret)
			return ret;
		jr_ws(r);
		if (*r->p == ',')
			r->p++, jr_ws(r);
	}
	if (*r->p != '}')
		return jr_fail(r, "'}' expected");
	r->p++;
	return 0;
}

static int jr_value(struct jr *r)
{
	char s[256], *end;
	double v;
	int ret;

	jr_ws(r);
	if (*r->p == '{')
		return jr_object(r);
	if (*r->p == '[') {
		r->p++;
		for (jr_ws(r); *r->p && *r->p != ']'; jr_ws(r)) {
			ret = jr_value(r);
			if (ret)
				return ret;
			jr_ws(r);
			if (*r->p == ',')
				r->p++;
		}
		if (*r->p != ']')
			return jr_fail(r, "']' expected");
		r->p++;
		return 0;
	}
	if (*r->p == '"') {
		ret = jr_string(r, s, sizeof(s));
		if (!ret)
			jr_text(r, s);
		return ret ? ret : (r->err->len ? -EINVAL : 0);
	}
	for (const char *w = "true\0false\0null\0"; *w; w += strlen(w) + 1)
		if (!strncmp(r->p, w, strlen(w))) {
			r->p += strlen(w);
			/* the flags the fit and the header read back (learn --from) */
			if (!strcmp(r->path, "data.flush_counted_as_write") ||
			    !strcmp(r->path, "log.flush_counted_as_write"))
				r->fp->role[r->path[0] == 'l'].where.flush_counted_as_write =
					*w == 't';
			else if (!strcmp(r->path, "database.gave_transactions"))
				r->fp->db.gave_txns = *w == 't';
			return 0;
		}
	v = strtod(r->p, &end);
	if (end == r->p)
		return jr_fail(r, "a value expected");
	r->p = end;
	jr_number(r, v);
	return 0;
}

int learn_fp_parse(const char *text, const char *origin, struct learn_fp *fp, struct strbuf *err)
{
	struct jr r = {.p = text, .origin = origin, .fp = fp, .err = err};
	int ret;

	memset(fp, 0, sizeof(*fp));
	fp->transactions = -1;
	jr_ws(&r);
	if (*r.p != '{')
		return jr_fail(&r, "an object expected");
	ret = jr_value(&r);
	if (!ret && !(fp->seconds > 0))
		ret = jr_fail(&r, "no window (seconds)");
	if (!ret && !fp->role[LEARN_DATA].present && !fp->role[LEARN_LOG].present)
		ret = jr_fail(&r, "neither data nor log counters");
	return ret;
}

/* ---- the comparison ---- */

static void cell(struct strbuf *out, double v, int decimals)
{
	if (isnan(v))
		strbuf_addf(out, " %12s", "-");
	else
		strbuf_addf(out, " %12.*f", decimals, v);
}

/* One row of the comparison: left out (and named in few) when a side has
 * too few events, asserted within tol_pct when the figure is. */
static void compare_row(const struct learn_figure *fa, const struct learn_figure *fb,
			double tol_pct, struct strbuf *out, struct strbuf *few, unsigned *off,
			unsigned *asserted, unsigned *left_out)
{
	double d = (fb->value - fa->value) / fa->value * 100;

	if (isnan(fa->value) && isnan(fb->value))
		return;
	if (fa->events < LEARN_EVENTS_MIN || fb->events < LEARN_EVENTS_MIN) {
		strbuf_addf(few, "%s%s", few->len ? ", " : "", fa->label);
		(*left_out)++;
		return;
	}
	strbuf_addf(out, "%-22s", fa->label);
	cell(out, fa->value, fa->decimals);
	cell(out, fb->value, fb->decimals);
	if (!isfinite(d))
		strbuf_addf(out, " %9s", "-");
	else
		strbuf_addf(out, " %+9.1f", d);
	if (fa->asserted) {
		bool ok = isfinite(d) && fabs(d) <= tol_pct;

		(*asserted)++;
		*off += !ok;
		strbuf_addf(out, "  %s (+-%g %%)", ok ? "ok" : "OFF", tol_pct);
	}
	strbuf_addch(out, '\n');
}

void learn_fp_compare(const struct learn_fp *a, const struct learn_fp *b, const char *name_a,
		      const char *name_b, double tol_pct, struct strbuf *out, unsigned *off,
		      unsigned *asserted, unsigned *left_out)
{
	struct learn_figure fa[LEARN_FIGURES_MAX], fb[LEARN_FIGURES_MAX];
	size_t n = learn_fp_figures(a, fa);
	struct strbuf few = STRBUF_INIT;

	learn_fp_figures(b, fb);
	*off = *asserted = *left_out = 0;
	strbuf_addf(out, "%-22s %12.12s %12.12s %9s  %s\n", "figure", name_a, name_b, "diff %",
		    "check");
	for (size_t i = 0; i < n; i++)
		compare_row(&fa[i], &fb[i], tol_pct, out, &few, off, asserted, left_out);
	/* the BPF trace's rows, where both sides traced the role: shown, not
	 * asserted (docs/learn.md: their spread between runs is not known yet) */
	for (int r = 0; r < LEARN_ROLES; r++) {
		size_t na = learn_trace_figures(a, r, fa), nb = learn_trace_figures(b, r, fb);

		for (size_t i = 0; na == nb && i < na; i++)
			compare_row(&fa[i], &fb[i], tol_pct, out, &few, off, asserted, left_out);
	}
	if (few.len) {
		size_t at = out->len;

		strbuf_addf(out, "left out (fewer than %d events on a side): ", LEARN_EVENTS_MIN);
		strbuf_addstr(out, few.buf);
		strbuf_addch(out, '\n');
		strbuf_wrap_lines(out, at, 120);
	}
	strbuf_release(&few);
}
