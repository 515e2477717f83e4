/* SPDX-License-Identifier: MIT */
/*
 * json.c - a run as one JSON document for tools (report --format json):
 * every class of every scope, present or not, under stable keys (report.h,
 * docs/reports.md), written with the one JSON writer (util/json.c).
 */
#include <math.h>
#include <string.h>

#include "diskproof/json.h"
#include "report_internal.h"

/* The report's numbers have three decimals (docs/reports.md). */
static void json_num(struct json *j, const char *key, double v)
{
	json_fixed(j, key, v, 3);
}

/* Thresholds and measured values: integral ones as integers (0, 1000). */
static void json_value(struct json *j, const char *key, double v)
{
	json_fixed(j, key, v, isfinite(v) && v == floor(v) && fabs(v) < 9e15 ? 0 : 3);
}

static void json_size(struct json *j, const char *key, bool known, uint64_t bytes)
{
	if (known)
		json_u64(j, key, bytes);
	else
		json_null(j, key);
}

/* A scope's transactions (results_scope_txn_figures); null where the run did not
 * count them (the fixed model, backup, a file before schema 9). */
static void json_txns(struct json *j, const struct scope_summary *sc)
{
	struct results_scope_txn_figures t;

	if (!results_scope_txn_figures(sc, &t)) {
		json_null(j, "transactions");
		return;
	}
	json_begin_object(j, "transactions");
	json_u64(j, "count", t.count);
	json_num(j, "per_second", t.per_second);
	json_begin_object(j, "per_transaction");
	json_num(j, "db_reads", t.db_reads);
	json_num(j, "db_writes", t.db_writes);
	json_num(j, "log_writes", t.log_writes);
	json_num(j, "log_bytes", t.log_bytes);
	json_end(j);
	json_num(j, "commits_per_log_write", t.commits_per_log_write);
	json_end(j);
}

/* Open loop: class c's response times (from the transaction's intended
 * start; the class's own figures are service times), where the run has
 * them (db_read); no key at all in a closed-loop run, where response is
 * service, nor for a run stored before schema 11. */
static void json_response(struct json *j, const struct scope_summary *sc, int c)
{
	const struct class_summary *rs = &sc->response[c];

	if (!sc->response_recorded || (c != IO_DB_READ && !rs->ios))
		return;
	json_begin_object(j, "response");
	json_u64(j, "ios", rs->ios);
	json_num(j, "avg_ms", rs->ios ? rs->avg_ms : NAN);
	json_num(j, "p50_ms", rs->ios ? rs->p50_ms : NAN);
	json_num(j, "p99_ms", rs->ios ? rs->p99_ms : NAN);
	json_num(j, "max_ms", rs->ios ? rs->max_ms : NAN);
	json_end(j);
}

static void json_classes(struct json *j, const struct scope_summary *sc)
{
	const struct class_summary *cs;
	int c;

	json_begin_object(j, "classes");
	for (c = 0; c < IO_CLASS_COUNT; c++) {
		cs = &sc->classes[c];
		/* db_flush only where the profile flushes its data files: a
		 * run without stays as it was */
		if (c == IO_DB_FLUSH && !cs->ios && !cs->errors)
			continue;
		json_begin_object_flat(j, stats_io_class_name(c));
		json_u64(j, "ios", cs->ios);
		json_num(j, "iops", cs->iops);
		json_num(j, "mbps", cs->mbps);
		json_num(j, "avg_ms", cs->avg_ms);
		json_num(j, "p50_ms", cs->p50_ms);
		json_num(j, "p99_ms", cs->p99_ms);
		json_num(j, "max_ms", cs->max_ms);
		if (cs->ios && isfinite(cs->max_sample_avg_ms))
			json_num(j, "max_sample_avg_ms", cs->max_sample_avg_ms);
		else
			json_null(j, "max_sample_avg_ms");
		json_u64(j, "errors", cs->errors);
		json_u64(j, "bytes", cs->bytes);
		/* added in issue 18: null where undefined (no I/O, no histogram) */
		json_num(j, "avg_bytes", results_class_avg_bytes(cs));
		json_num(j, "p999_ms", cs->ios ? cs->p999_ms : NAN);
		json_num(j, "p9999_ms", cs->ios ? cs->p9999_ms : NAN);
		json_response(j, sc, c);
		json_end(j);
	}
	json_end(j);
	json_num(j, "transactional_iops", results_scope_transactional_iops(sc));
	/* database file sizes (a volume's and the run's: the sum of theirs);
	 * null when not known (the run did not reach its end) */
	json_size(j, "size_bytes", sc->size_known, sc->size);
	json_size(j, "final_size_bytes", sc->final_size_known, sc->final_size);
	/* time-averaged streams on the scope; null when not stored */
	json_num(j, "streams", sc->streams);
	json_u64(j, "integrity_errors", sc->integrity_errors);
	/* null where the run did not count them (docs/reports.md) */
	if (sc->stalls_recorded) {
		json_u64(j, "page_fault_stalls", sc->page_fault_stalls);
		json_num(j, "page_fault_stalls_per_s", sc->page_fault_stalls_per_s);
	} else {
		json_null(j, "page_fault_stalls");
		json_null(j, "page_fault_stalls_per_s");
	}
	json_txns(j, sc);
}

void report_json_classes(struct json *j, const struct scope_summary *sc)
{
	json_classes(j, sc);
}

/* The target IOPS (null when none or unknown) and its case: "pass",
 * "fail", "none" (no IOPS criterion), "unknown" (not judged). */
static void json_target(struct json *j, const struct results *r)
{
	double target;
	enum results_target t = results_target_iops(r, &target);

	json_value(j, "target_iops", target);
	json_str(j, "target_iops_result", results_target_name(t));
}

/* Whether the run's reads reached its devices (results_reads_reach):
 * "reached", "not_reached" (inconclusive: true) or "unchecked", with its
 * sentence; null for a run that has no such judgement (simulated, not
 * judged, without reads, or older). */
static void json_reads_reach(struct json *j, const struct results *r)
{
	const char *msg, *st = results_reads_reach(r, &msg);

	json_bool(j, "inconclusive", results_inconclusive(r));
	json_str(j, "reads_reach", st);
	json_str(j, "reads_reach_why", msg);
}

/* "why": one sentence of why the scope failed (why.c), null when it did not */
static void json_why(struct json *j, const struct results *r, enum scope_kind kind,
		     const char *name, const char *volume)
{
	struct strbuf w = STRBUF_INIT;

	if (kind == SCOPE_RUN ? report_why_run(&w, r) : report_why(&w, r, kind, name, volume))
		json_str(j, "why", w.buf);
	else
		json_null(j, "why");
	strbuf_release(&w);
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
	json_str(j, "start_at", r->start_at);
	json_str(j, "load_started_at", r->load_started_at);
	json_num(j, "duration_s", r->duration_s);
	json_num(j, "warmup_s", r->warmup_s);
	json_str(j, "engine", r->engine);
	json_bool(j, "simulated", results_simulated(r));
	json_str(j, "test_type", r->test_type);
	json_u64(j, "streams", r->streams);
	json_str(j, "profile", r->profile_name);
	json_i64(j, "exit_code", r->exit_code);
	if (r->sample_s > 0)
		json_num(j, "sample_s", r->sample_s);
	else
		json_null(j, "sample_s");
	json_target(j, r);
	json_reads_reach(j, r);
	json_why(j, r, SCOPE_RUN, "run", NULL);
	json_end(j);
}

static void json_scopes(struct json *j, const char *key, const struct results *r,
			const struct scope_summary *arr, size_t nr, bool databases)
{
	size_t i;

	json_begin_array(j, key);
	for (i = 0; i < nr; i++) {
		json_begin_object(j, NULL);
		json_str(j, "name", arr[i].name);
		if (databases)
			json_str(j, "volume", arr[i].volume);
		json_why(j, r, databases ? SCOPE_DATABASE : SCOPE_VOLUME, arr[i].name,
			 databases ? arr[i].volume : NULL);
		json_classes(j, &arr[i]);
		json_end(j);
	}
	json_end(j);
}

/* The run's test log as Jetstress keeps its event log: every stored event
 * (start, warm-up end, errors, kernel lines about its devices, end). */
static void json_events(struct json *j, const struct results *r)
{
	json_begin_array(j, "events");
	for (size_t i = 0; i < r->nr_events; i++) {
		json_begin_object_flat(j, NULL);
		json_fixed(j, "t_s", (double)r->events[i].t_ms / 1000.0, 3);
		json_str(j, "kind", r->events[i].kind);
		json_str(j, "message", r->events[i].message);
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
		json_str(j, "scope", results_scope_kind_name(v->scope));
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
	json_num(j, "duration_s", r->warmup.duration_s);
	json_begin_object(j, "classes");
	for (c = 0; c < IO_CLASS_COUNT; c++) {
		wc = &r->warmup.classes[c];
		if (c == IO_DB_FLUSH && !wc->ios && !wc->errors)
			continue;
		json_begin_object_flat(j, stats_io_class_name(c));
		json_u64(j, "ios", wc->ios);
		json_num(j, "iops", wc->iops);
		json_num(j, "avg_ms", wc->avg_ms);
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
	json_str(j, "note", a->note);
	json_begin_array(j, "steps");
	for (i = 0; i < a->nr_steps; i++) {
		st = &a->steps[i];
		json_begin_object_flat(j, NULL);
		json_u64(j, "step", st->step);
		json_num(j, "t_s", st->t_s);
		json_u64(j, "streams", st->streams);
		json_num(j, "iops", st->iops);
		json_num(j, "db_read_avg_ms", st->db_read_avg_ms);
		json_num(j, "log_write_avg_ms", st->log_write_avg_ms);
		json_bool(j, "passed", st->passed);
		json_str(j, "reason", st->reason);
		json_end(j);
	}
	json_end(j);
	json_end(j);
}

/* null when the run has no host counters; cpu and memory null when not
 * measured in any measured interval */
/* The clock's state (report_clock): null for a run that has none recorded. */
static void json_clock(struct json *j, const struct results *r)
{
	struct report_clock c;

	report_clock_get(r, &c);
	if (!c.recorded) {
		json_null(j, "clock");
		return;
	}
	json_begin_object(j, "clock");
	if (!strcmp(c.synchronised, "yes") || !strcmp(c.synchronised, "no"))
		json_bool(j, "synchronised", !strcmp(c.synchronised, "yes"));
	else
		json_null(j, "synchronised");
	json_num(j, "max_error_ms", c.max_error_ms);
	json_num(j, "est_error_ms", c.est_error_ms);
	json_str(j, "daemon", c.daemon);
	json_str(j, "warning", c.warning);
	json_end(j);
}

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
		json_num(j, "user_pct", h->cpu_user_pct);
		json_num(j, "system_pct", h->cpu_system_pct);
		json_num(j, "iowait_pct", h->cpu_iowait_pct);
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
		json_num(j, "reads_per_s", d->reads_per_s);
		json_num(j, "writes_per_s", d->writes_per_s);
		json_num(j, "read_mbps", d->read_mbps);
		json_num(j, "write_mbps", d->write_mbps);
		json_num(j, "read_wait_ms", d->read_wait_ms);
		json_num(j, "write_wait_ms", d->write_wait_ms);
		json_num(j, "avg_wait_ms", d->avg_wait_ms);
		json_num(j, "util_pct", d->util_pct);
		json_num(j, "util_max_pct", d->util_max_pct);
		json_num(j, "queue", d->queue);
		json_end(j);
	}
	json_end(j);
	json_end(j);
}

/* A recovery test's replay figures as the run recorded them (its "recovery"
 * events: each database's, then the run's); other test types have no key. */
/* Open loop: the tool's own queue (transactions arrived, not begun for
 * want of a stream) over the measured time, the streams it grew, and per
 * interval (warm-up's too); zeros where none waited; no key for a
 * closed-loop run nor a run stored before schema 12. */
static void json_backlog(struct json *j, const struct results *r)
{
	struct results_backlog b;

	results_backlog_summary(r, &b);
	if (!b.recorded)
		return;
	json_begin_object(j, "backlog");
	json_u64(j, "peak", b.peak);
	json_fixed(j, "mean", b.mean, 3);
	json_fixed(j, "seconds", b.seconds, 3);
	json_fixed(j, "measured_s", b.measured_s, 3);
	json_u64(j, "streams_start", b.streams_start);
	json_u64(j, "streams_max", b.streams_max);
	json_u64(j, "streams_bound", b.bound);
	json_begin_array(j, "intervals");
	for (size_t i = 0; i < r->nr_backlog_samples; i++) {
		const struct results_backlog_sample *s = &r->backlog_samples[i];

		json_begin_object_flat(j, NULL);
		json_fixed(j, "t_s", (double)s->t_ms / 1000.0, 3);
		json_bool(j, "warmup", s->warmup);
		json_u64(j, "peak", s->peak);
		json_fixed(j, "mean", s->mean, 3);
		json_fixed(j, "busy_s", (double)s->busy_ms / 1000.0, 3);
		json_u64(j, "streams", s->streams);
		json_end(j);
	}
	json_end(j);
	json_end(j);
}

static void json_recovery(struct json *j, const struct results *r)
{
	if (!r->test_type || strcmp(r->test_type, "recovery"))
		return;
	json_begin_array(j, "recovery");
	for (size_t i = 0; i < r->nr_events; i++)
		if (!strcmp(r->events[i].kind, "recovery"))
			json_str(j, NULL, r->events[i].message);
	json_end(j);
}

/* The facts of the host named in docs/json.md, as recorded (null when not). */
static const char *const env_host_keys[] = {
	"hostname", "kernel",	    "machine",	       "cpu_model",
	"cpus",	    "memory_total", "host.numa_nodes", "host.cpufreq_governor"};

/* The facts of a volume's device (device.V.*) and filesystem (volume.V.*). */
static const char *const env_volume_keys[][2] = {
	{"device", "name"},
	{"device", "devno"},
	{"device", "model"},
	{"device", "firmware"},
	{"device", "serial"},
	{"device", "rotational"},
	{"device", "scheduler"},
	{"device", "write_cache"},
	{"device", "nr_requests"},
	{"device", "logical_block_size"},
	{"device", "physical_block_size"},
	{"device", "size_bytes"},
	{"device", "numa_node"},
	{"volume", "disks"},
	{"volume", "fstype"},
	{"volume", "mount_point"},
	{"volume", "mount_options"},
};

/* The member name of a volume fact: device.V.name is "device", the rest
 * keep their own. */
static const char *env_volume_member(const char *prefix, const char *fact)
{
	return !strcmp(prefix, "device") && !strcmp(fact, "name") ? "device" : fact;
}

/*
 * The machine the run measured (the env facts, docs/environment.md): the
 * host's main facts, each volume's device and filesystem (a volume is one
 * with a device.V.name fact; a sim run has none), and every fact as stored.
 */
static void json_environment(struct json *j, const struct results *r)
{
	struct strbuf key = STRBUF_INIT;
	size_t i, k, plen = strlen("device."), slen = strlen(".name");

	json_begin_object(j, "environment");
	for (k = 0; k < DP_ARRAY_SIZE(env_host_keys); k++)
		json_str(j, env_host_keys[k], results_env_get(r, env_host_keys[k]));
	json_begin_array(j, "volumes");
	for (i = 0; i < r->nr_env; i++) {
		const char *e = r->env[i].key;
		size_t n = strlen(e);
		int vlen;

		if (n <= plen + slen || strncmp(e, "device.", plen) ||
		    strcmp(e + n - slen, ".name"))
			continue;
		vlen = (int)(n - plen - slen);
		json_begin_object_flat(j, NULL);
		strbuf_reset(&key);
		strbuf_addf(&key, "%.*s", vlen, e + plen);
		json_str(j, "name", key.buf);
		for (k = 0; k < DP_ARRAY_SIZE(env_volume_keys); k++) {
			strbuf_reset(&key);
			strbuf_addf(&key, "%s.%.*s.%s", env_volume_keys[k][0], vlen, e + plen,
				    env_volume_keys[k][1]);
			json_str(j, env_volume_member(env_volume_keys[k][0], env_volume_keys[k][1]),
				 results_env_get(r, key.buf));
		}
		json_end(j);
	}
	json_end(j);
	json_begin_object(j, "facts");
	for (i = 0; i < r->nr_env; i++)
		json_str(j, r->env[i].key, r->env[i].value);
	json_end(j);
	json_end(j);
	strbuf_release(&key);
}

/* The run's own device figures against its profile's fingerprint
 * (docs/learn.md): only for a run that has them. */
static void json_fp_compare(struct json *j, const struct results *r)
{
	const struct results_fp_compare *c = r->fp_compare;

	if (!c)
		return;
	json_begin_object(j, "fingerprint_compare");
	json_str(j, "kept", r->fp_kept_name);
	json_num(j, "tolerance_pct", c->tolerance_pct);
	json_u64(j, "asserted", c->asserted);
	json_u64(j, "off", c->off);
	json_u64(j, "left_out", c->left_out);
	json_begin_array(j, "rows");
	for (size_t i = 0; i < c->nr_rows; i++) {
		const struct results_fp_row *w = &c->rows[i];

		json_begin_object_flat(j, NULL);
		json_str(j, "key", w->key);
		json_str(j, "label", w->label);
		json_fixed(j, "kept", w->kept, w->decimals);
		json_fixed(j, "run", w->run, w->decimals);
		json_fixed(j, "diff_pct", w->diff_pct, 1);
		json_u64(j, "events_kept", w->events_kept);
		json_u64(j, "events_run", w->events_run);
		json_bool(j, "asserted", w->asserted);
		json_bool(j, "left_out", w->left_out);
		json_bool(j, "off", w->off);
		json_end(j);
	}
	json_end(j);
	json_end(j);
}

void report_json(struct strbuf *sb, const struct results *r, const struct report_options *opt)
{
	struct json j = JSON_INIT(sb);

	json_begin_object(&j, NULL);
	json_doc_versions(&j);
	json_str(&j, "uuid", r->uuid);
	json_run(&j, r);
	json_begin_object(&j, "summary");
	json_classes(&j, &r->run);
	json_end(&j);
	json_scopes(&j, "volumes", r, r->volumes, r->nr_volumes, false);
	json_scopes(&j, "databases", r, r->databases, r->nr_databases, true);
	json_verdicts(&j, r);
	json_events(&j, r);
	json_warmup(&j, r);
	json_autotune(&j, r);
	json_backlog(&j, r);
	json_recovery(&j, r);
	report_series_json(&j, r); /* a run of a series only */
	report_json_params(&j, r);
	json_host(&j, r);
	json_clock(&j, r);
	json_environment(&j, r);
	json_fp_compare(&j, r);
	json_end(&j);
	strbuf_addch(sb, '\n');
}
