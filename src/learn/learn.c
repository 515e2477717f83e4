/* SPDX-License-Identifier: MIT */
/*
 * learn.c - a profile fitted to an observed fingerprint (learn.h): the
 * sizes copied from the files under the paths, the rest fitted on the sim
 * engine, and the profile written with a header saying where every key came
 * from and how far the model's fingerprint is from the observed one.
 *
 * The model. The jetstress model, open loop (arrival = rate), every
 * transaction a replace that reads and changes update_pages pages and reads
 * read_pages more (cache_size 0: every page it touches is read), logs
 * log_record_size bytes per page changed and waits for its log write, a
 * write-through write. No checkpoints: the flusher writes each dirty page
 * once its log record is durable. On a device the model makes
 *   data reads/s   ~ rate x (update_pages + read_pages)
 *   data writes/s  ~ rate x update_pages, less the pages changed again
 *                    before their write (the sim counts those)
 *   log writes/s   ~ the commits' log writes (several commits share one
 *                    when they wait for the same write)
 *   log flushes/s  = log writes/s, each write-through (the device counts
 *                    its flush as a write too where it lacks FUA: observe.c)
 *
 * The fit, first step: the page size is the power of two nearest the mean
 * data read size (write size without reads); then up to LEARN_FIT_ROUNDS
 * rounds of a sim run of FIT_SECONDS of virtual time (about a second each)
 * and a proportional correction of each fitted key by observed / predicted:
 * the rate by the log writes/s (the transaction unit, without a transaction
 * count: one per observed log write), update_pages by the data writes/s,
 * read_pages by the data reads/s beyond the changed pages' reads, the log
 * record by the log bytes/s. It stops when every fitted figure is within
 * 1 %. Queue depth, latencies and data flushes are not made by the model:
 * they are named, with their residuals, never hidden.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "diskproof/learn.h"
#include "diskproof/trace.h"
#include "diskproof/profile.h"
#include "diskproof/results.h"
#include "diskproof/run.h"
#include "diskproof/store.h"

#define LEARN_FIT_ROUNDS 8
#define FIT_SECONDS 30.0
#define MIB (1024.0 * 1024.0)

void learn_fit_init(struct learn_fit *f)
{
	memset(f, 0, sizeof(*f));
	strbuf_init(&f->cannot);
	strbuf_init(&f->notes);
	strbuf_init(&f->checked);
	strbuf_init(&f->db_keys);
}

void learn_fit_release(struct learn_fit *f)
{
	if (!f)
		return;
	strbuf_release(&f->cannot);
	strbuf_release(&f->notes);
	strbuf_release(&f->db_keys);
	strbuf_release(&f->checked);
}

/* ---- sizes found under a path ---- */

static uint64_t walk_bytes(const char *path, dev_t dev, unsigned depth)
{
	struct stat st;
	struct dirent *e;
	uint64_t sum = 0;
	DIR *d;

	if (depth > 32 || lstat(path, &st) != 0 || st.st_dev != dev)
		return 0;
	if (S_ISREG(st.st_mode))
		return (uint64_t)st.st_size;
	if (!S_ISDIR(st.st_mode))
		return 0;
	d = opendir(path);
	while (d && (e = readdir(d))) {
		char sub[PATH_MAX];

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name) < (int)sizeof(sub))
			sum += walk_bytes(sub, dev, depth + 1);
	}
	if (d)
		closedir(d);
	return sum;
}

/* A block device's size from sysfs (512-byte sectors), without opening it:
 * learn never opens a device. 0 when unknown. */
static uint64_t blockdev_bytes(dev_t rdev)
{
	char path[64];
	unsigned long long sectors = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/size", major(rdev), minor(rdev));
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (fscanf(f, "%llu", &sectors) != 1)
		sectors = 0;
	fclose(f);
	return (uint64_t)sectors * 512;
}

uint64_t learn_bytes_under(const char *path)
{
	struct statvfs vfs;
	struct stat st;
	uint64_t sum, cap = 0;

	if (stat(path, &st) != 0)
		return 0;
	/* a database on the raw device (a device volume): the device is its size */
	if (S_ISBLK(st.st_mode))
		return blockdev_bytes(st.st_rdev);
	sum = walk_bytes(path, st.st_dev, 0);
	/* never more than the filesystem (so the device) holds */
	if (statvfs(path, &vfs) == 0)
		cap = (uint64_t)vfs.f_blocks * vfs.f_frsize;
	return cap && sum > cap ? cap : sum;
}

/* ---- the model's profile ---- */

/* A size as the profile spells it: whole MiB, KiB or bytes. */
static void size_text(struct strbuf *out, uint64_t v)
{
	if (v && v % (1024 * 1024) == 0)
		strbuf_addf(out, "%lluMiB", (unsigned long long)(v >> 20));
	else if (v && v % 1024 == 0)
		strbuf_addf(out, "%lluKiB", (unsigned long long)(v >> 10));
	else
		strbuf_addf(out, "%lluB", (unsigned long long)v);
}

static void key_size(struct strbuf *out, const char *key, uint64_t v)
{
	strbuf_addf(out, "%s = ", key);
	size_text(out, v);
	strbuf_addch(out, '\n');
}

/* The sections before the volumes: [test] (fingerprint: its key, NULL
 * none), [sizing] with db_size per database, [workload], [engine], [sim]. */
static void model_sections(const struct learn_model *m, const char *engine, double duration_s,
			   const char *fingerprint, uint64_t db_size, struct strbuf *out)
{
	if (duration_s == floor(duration_s))
		strbuf_addf(out, "[test]\ntype = performance\nduration = %.0fs\nwarmup = 0s\n",
			    duration_s);
	else /* the fit's whole cleaner passes */
		strbuf_addf(out, "[test]\ntype = performance\nduration = %.0fms\nwarmup = 0s\n",
			    ceil(duration_s * 1000));
	if (fingerprint)
		strbuf_addf(out, "fingerprint = %s\n", fingerprint);
	strbuf_addstr(out, "\n[sizing]\n");
	key_size(out, "database_size", db_size);
	strbuf_addstr(out, "\n[workload]\n");
	key_size(out, "page_size", m->page_size);
	key_size(out, "log_record_size", m->log_record_size);
	key_size(out, "log_segment_size", m->log_segment_size);
	strbuf_addf(out, "log_segments = %u\n", m->log_segments);
	strbuf_addstr(out, "insert_pct = 0\ndelete_pct = 0\nreplace_pct = 100\nseek_pct = 0\n"
			   "lazy_commit_pct = 0\n");
	strbuf_addf(out, "update_pages = %.4f\nread_pages = %.4f\n", m->update_pages,
		    m->read_pages);
	strbuf_addstr(out, "bdm = off\ncopies = 1\narrival = rate\n");
	strbuf_addf(out, "rate = %.3f\n", m->rate);
	learn_db_profile_keys(m, out); /* the database model features (model_db.c) */
	strbuf_addf(out, "\n[engine]\nname = %s\ndirect = on\nstreams = %u\n", engine, m->streams);
	if (m->read_lat_us > 0 || m->log_align)
		strbuf_addstr(out, "\n[sim]\n");
	if (m->read_lat_us > 0)
		strbuf_addf(out,
			    "read_latency = %.0fus\nwrite_latency = %.0fus\n"
			    "log_write_latency = %.0fus\n",
			    m->read_lat_us, m->write_lat_us, m->log_lat_us);
	if (m->log_align)
		key_size(out, "log_align", m->log_align);
}

void learn_model_profile(const struct learn_model *m, const char *data_path, const char *log_path,
			 const char *engine, double duration_s, struct strbuf *out)
{
	model_sections(m, engine, duration_s, NULL, m->database_size, out);
	strbuf_addf(out, "\n[volume data]\npath = %s\n", data_path);
	if (log_path)
		strbuf_addf(out, "log_path = %s\n", log_path);
	strbuf_addstr(out, "databases = 1\n");
}

/* ---- the sim's prediction ---- */

/* The device figures the model's classes make (the rules at the top). */
static void predict_map(const struct results *r, const struct learn_fp *obs, struct learn_fp *pred)
{
	const struct class_summary *c = r->nr_volumes ? r->volumes[0].classes : r->run.classes;
	struct learn_counters *data = &pred->role[LEARN_DATA].c;
	bool has_log = obs->role[LEARN_LOG].present;
	struct learn_counters *log = &pred->role[has_log ? LEARN_LOG : LEARN_DATA].c;
	const struct learn_where *lw = &obs->role[has_log ? LEARN_LOG : LEARN_DATA].where;
	uint64_t logw = c[IO_LOG_WRITE].ios;

	memset(pred, 0, sizeof(*pred));
	snprintf(pred->source, sizeof(pred->source), "sim");
	pred->seconds = r->duration_s;
	pred->transactions =
		r->run.txns_recorded && obs->transactions >= 0 ? (double)r->run.txns : -1;
	for (int k = 0; k < LEARN_ROLES; k++) {
		pred->role[k].present = obs->role[k].present;
		pred->role[k].where = obs->role[k].where;
		pred->role[k].c.has_flushes = true;
	}
	data->reads = c[IO_DB_READ].ios + c[IO_BDM_READ].ios + c[IO_BACKUP_READ].ios;
	data->read_sectors =
		(c[IO_DB_READ].bytes + c[IO_BDM_READ].bytes + c[IO_BACKUP_READ].bytes) / 512;
	data->writes += c[IO_DB_WRITE].ios;
	data->write_sectors += c[IO_DB_WRITE].bytes / 512;
	log->reads += c[IO_LOG_READ].ios;
	log->read_sectors += c[IO_LOG_READ].bytes / 512;
	log->writes += logw;
	log->write_sectors += c[IO_LOG_WRITE].bytes / 512;
	log->flushes += logw; /* each log write flushed: written through, or with its fdatasync */
	if (lw->flush_counted_as_write)
		log->writes += logw;
	learn_db_predict(c, obs, pred); /* data-file flushes (model_db.c) */
}

/* The sim's window: FIT_SECONDS, or with a page cleaner whole passes and
 * a fifth of an interval for the last one to be written (a window cut
 * between passes would miss up to a pass's pages: a writes/s off by up to
 * an interval over the window). */
static double fit_seconds(const struct learn_model *m)
{
	double iv = m->cleaner_interval_s;

	if (!(iv > 0) || iv > FIT_SECONDS / 4)
		return FIT_SECONDS;
	return ceil(FIT_SECONDS / iv) * iv + 0.2 * iv;
}

int learn_sim_predict(const struct learn_model *m, const struct learn_fp *obs, const char *tmpdir,
		      struct learn_fp *pred, struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT, path = STRBUF_INIT;
	struct profile p;
	struct run_outcome out = {0};
	struct results r = {0};
	struct store *s = NULL;
	int ret;

	learn_model_profile(m, "/nonexistent/learn-fit/data",
			    obs->role[LEARN_LOG].present ? "/nonexistent/learn-fit/log" : NULL,
			    "sim", fit_seconds(m), &text);
	ret = profile_parse(&p, "learn fit", text.buf, text.len, err);
	if (ret)
		goto out_text;
	strbuf_addf(&path, "%s/learn-fit-%ld.db", tmpdir, (long)getpid());
	unlink(path.buf);
	struct run_options o = {.profile = &p,
				.results_path = path.buf,
				.command_line = "learn fit",
				.signal_fd = -1};
	ret = run_execute(&o, &out, err);
	if (!ret)
		ret = store_open(&s, path.buf, err);
	if (!ret)
		ret = store_results_load(s, out.run_id, &r, err);
	if (!ret)
		predict_map(&r, obs, pred);
	results_release(&r);
	store_close(s);
	unlink(path.buf);
	profile_release(&p);
out_text:
	strbuf_release(&text);
	strbuf_release(&path);
	return ret;
}

/* ---- the fit ---- */

/* The figures the fit holds the model to: [0] log writes (the
 * write-through writes, their flush writes taken off), [1] data writes,
 * [2] data reads, [3] log KiB written. Without a log role the log is the
 * data device's: its flushes are the log writes. Per second; with rate > 0
 * and the transactions known, per transaction times rate (the fit's
 * per-transaction figures, in the per-second units of the copied rate: the
 * sim's own count of transactions divides its figures, so its Poisson
 * arrivals' noise does not move them). */
enum { T_LOGW, T_DATAW, T_READS, T_LOGB, T_N };

static void targets(const struct learn_fp *fp, double rate, double *t)
{
	const struct learn_counters *d = &fp->role[LEARN_DATA].c, *l = &fp->role[LEARN_LOG].c;
	bool has_log = fp->role[LEARN_LOG].present;
	double s = fp->seconds > 0 ? fp->seconds : 1;
	double dw = (double)d->writes, lw = (double)l->writes;

	if (rate > 0 && fp->transactions > 0)
		s = fp->transactions / rate;
	if (fp->role[LEARN_DATA].where.flush_counted_as_write)
		dw -= (double)d->flushes;
	if (has_log && fp->role[LEARN_LOG].where.flush_counted_as_write)
		lw -= (double)l->flushes;
	if (!has_log) {
		lw = (double)d->flushes;
		dw -= lw;
	}
	t[T_LOGW] = lw > 0 ? lw / s : 0;
	t[T_DATAW] = dw > 0 ? dw / s : 0;
	t[T_READS] = (double)d->reads / s;
	t[T_LOGB] = has_log ? (double)l->write_sectors * 512 / 1024 / s : 0;
}

static double clampd(double v, double lo, double hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* The page size guessed from a mean I/O size: the nearest power of two from
 * 4 KiB to 64 KiB (InnoDB's largest page). A device busy with other I/O
 * (large sequential reads, a backup) must not make a page the profile's
 * other sizes are not whole numbers of (bdm_io_size, backup_io_size: 256 KiB). */
#define PAGE_GUESS_MAX (64u << 10)
static uint64_t pow2_near(double bytes)
{
	uint64_t p = 4096;

	while (p < PAGE_GUESS_MAX &&
	       fabs(log2((double)p * 2) - log2(bytes)) < fabs(log2((double)p) - log2(bytes)))
		p *= 2;
	return p;
}

/*
 * The log's block. A log write is whole blocks, the rest of its last block
 * left unused, so the bytes a write puts on the device are its commits'
 * records rounded up to the block: the sim must round to the device's
 * block ([sim] log_align) to make the same bytes. The observed log role's
 * logical block size (sysfs); from a fingerprint that does not carry it,
 * a guess: 512 B (the smallest) where the mean log write is under 4 KiB,
 * else the sim's 4 KiB (0, the key not written). Only with a log role:
 * without one the log's bytes are not told from the data's.
 */
static void log_block(const struct learn_fp *obs, const double *t, struct learn_model *m)
{
	const struct learn_role *lr = &obs->role[LEARN_LOG];
	double per_write = t[T_LOGW] > 0 ? t[T_LOGB] * 1024 / t[T_LOGW] : 0;

	m->log_align = lr->where.block;
	m->log_align_guessed = !m->log_align;
	if (!m->log_align && per_write > 0 && per_write < 4096)
		m->log_align = 512; /* the sim's 4 KiB cannot make writes this small */
}

/*
 * The log record, solved rather than corrected. The observed log bytes are
 * the records (rate x update_pages x record per second) and each write's
 * unused rest of its last block; so a first solve
 *   record = (observed log bytes - unused per write x observed log writes)
 *            / (rate x update_pages)
 * with the unused bytes per write none before the first sim run (the
 * largest record the bytes allow) and then the sim's (its log bytes less
 * its records, per log write: its writes carry as many commits as the
 * observed ones, log_latency_fit, and round to the same block). Where the
 * records of a write do not fill its blocks the bytes are a step function of
 * the record (they move only when a write's records cross a block), so
 * neither that solve nor a proportional correction settles; the bytes only
 * grow with the record, so once one sim run wrote more than the observed
 * bytes and one less, the record is bisected between the two (m->rec_lo,
 * m->rec_hi, a commit's record bytes, at the rate m->rec_rate: a bracket
 * taken at another rate, per second, is dropped): it ends at the step the
 * observed bytes are on, the largest record whose padded writes are no
 * more than the observed. run_pages and run_rate are the update_pages and
 * rate the sim run (tp) was made with: the unused bytes and the bracket
 * are that run's; the next record is for m's update_pages and rate, which
 * this round's other corrections have set (with doublewrite the pages
 * follow the data bytes, not the writes). A run that wrote the observed
 * bytes keeps its commit's record bytes, for the pages the next run
 * changes.
 */
static void log_record_solve(struct learn_model *m, const double *to, const double *tp,
			     double run_pages, double run_rate)
{
	double pages = fmax(m->update_pages, 1); /* a transaction changes one at least */
	double rpages = fmax(run_pages, 1);
	double recs = m->rate * pages; /* records per second */
	double r = (double)m->log_record_size, unused = 0, next;

	if (!(to[T_LOGB] > 0 && to[T_LOGW] > 0 && m->rate > 0 && run_rate > 0))
		return;
	if (fabs(run_rate / fmax(m->rec_rate, 1e-9) - 1) > 0.005)
		m->rec_lo = m->rec_hi = 0; /* taken at another rate */
	m->rec_rate = run_rate;
	if (tp && tp[T_LOGW] > 0 && tp[T_LOGB] > 0) {
		if (fabs(tp[T_LOGB] / to[T_LOGB] - 1) <= 0.01) {
			/* the sim writes the observed bytes */
			m->log_record_size =
				(uint64_t)clampd(round(r * rpages / pages), 16, 1 << 20);
			return;
		}
		if (tp[T_LOGB] > to[T_LOGB])
			m->rec_hi = m->rec_hi > 0 ? fmin(m->rec_hi, r * rpages) : r * rpages;
		else
			m->rec_lo = fmax(m->rec_lo, r * rpages);
		unused = fmax(tp[T_LOGB] * 1024 - run_rate * rpages * r, 0) / tp[T_LOGW];
	}
	next = (to[T_LOGB] * 1024 - unused * to[T_LOGW]) / recs;
	if (m->rec_lo > 0 && m->rec_hi > m->rec_lo && fabs(m->rate / run_rate - 1) <= 0.005)
		next = (m->rec_lo + m->rec_hi) / 2 / pages;
	m->log_record_size = (uint64_t)clampd(round(next), 16, 1 << 20);
}

/* The sim's latencies from the observed mean ones (iostat's awaits; a log
 * write's is its write's and its flush's): group commit depends on them. */
static void model_latencies(const struct learn_fp *obs, struct learn_model *m)
{
	const struct learn_counters *d = &obs->role[LEARN_DATA].c;
	const struct learn_role *lr =
		&obs->role[obs->role[LEARN_LOG].present ? LEARN_LOG : LEARN_DATA];
	const struct learn_counters *l = &lr->c;
	uint64_t lw = l->writes;

	if (lr->where.flush_counted_as_write && l->flushes < lw)
		lw -= l->flushes;
	/* none measured (a sim's fingerprint): the sim's defaults */
	m->read_lat_us = d->read_ms ? 1000.0 * (double)d->read_ms / (double)d->reads : 2000;
	m->write_lat_us = d->write_ms ? 1000.0 * (double)d->write_ms / (double)d->writes : 3000;
	m->log_lat_us = l->write_ms + l->flush_ms
				? 1000.0 * (double)(l->write_ms + l->flush_ms) / (double)lw
				: 1000;
	m->read_lat_us = clampd(m->read_lat_us, 1, 1e6);
	m->write_lat_us = clampd(m->write_lat_us, 1, 1e6);
	m->log_lat_us = clampd(m->log_lat_us, 1, 1e6);
	m->log_obs_us = m->log_lat_us;
}

/* What is copied, and the first guess of what is fitted. */
static void model_start(const struct learn_fp *obs, const double *t, uint64_t db_size,
			uint64_t log_size, struct learn_fit *fit)
{
	const struct learn_counters *d = &obs->role[LEARN_DATA].c;
	const struct learn_trace_role *tr = &obs->role[LEARN_DATA].trace;
	struct learn_model *m = &fit->m;
	double rsz = d->reads ? (double)d->read_sectors * 512 / (double)d->reads : 0;
	double wsz = d->writes ? (double)d->write_sectors * 512 / (double)d->writes : 0;
	double txn_rate = obs->transactions > 0 ? obs->transactions / obs->seconds : 0;

	m->page_size = pow2_near(rsz > 0 ? rsz : wsz > 0 ? wsz : 8192);
	m->page_origin = "the power of two nearest the mean data I/O size, 4 KiB to 64 KiB";
	/* the trace's most common read size, where it watched: a mean is
	 * moved by the reads ahead and merged (PostgreSQL's 8 KiB pages read
	 * at 9.6 KiB on average) */
	if (tr->present && tr->ops[LEARN_TRACE_READ] >= LEARN_EVENTS_MIN) {
		int best = 0;

		for (int i = 1; i < LEARN_TRACE_BUCKETS; i++)
			if (tr->sizes[0][i] > tr->sizes[0][best])
				best = i;
		if (best >= 12 && (1u << best) <= PAGE_GUESS_MAX) {
			m->page_size = 1u << best;
			m->page_origin = "the trace's most common read size";
		}
	}
	/* 34-db: the database's own page size (block_size, innodb_page_size)
	 * when its counters were read, rather than the guess from I/O sizes */
	if (obs->db.used && obs->db.page_size >= 512 && obs->db.page_size <= (1u << 20)) {
		m->page_size = obs->db.page_size;
		m->page_origin = "the database's own page size";
	}
	m->database_size =
		db_size >= 16 * MIB ? db_size / (1 << 20) * (1 << 20) : 1024 * 1024 * 1024;
	m->log_segment_size = log_size >= 256 * MIB ? 16 << 20 : 1 << 20;
	m->log_segments = log_size >= 4 * m->log_segment_size
				  ? (unsigned)(log_size / m->log_segment_size)
				  : 64;
	m->streams = 16;
	model_latencies(obs, m);
	m->rate = txn_rate > 0	   ? txn_rate
		  : t[T_LOGW] > 0  ? t[T_LOGW]
		  : t[T_READS] > 0 ? t[T_READS]
				   : 1;
	m->update_pages = t[T_DATAW] / m->rate;
	m->read_pages = t[T_READS] / m->rate - m->update_pages;
	if (m->read_pages < 0)
		m->read_pages = 0;
	m->log_record_size = 2048;
	/* how the log is made durable: the database's own setting, when read
	 * (the device sees a write and a flush either way). PostgreSQL's write
	 * and flush stay a write-through write: at its thousand flushes a
	 * second the replay's flush, an io_uring request of its own, made its
	 * commits share a WAL write 10.8 and 12.2 % more than PostgreSQL's and
	 * both harness runs failed, against 8.6-10.1 % written through (two
	 * runs against several: docs/fidelity.md, "The log's flush") */
	m->log_sync = learn_db_log_sync(&obs->db, &m->log_sync_why);
	if (m->log_sync == PROFILE_LOG_SYNC_FDATASYNC && obs->db.kind == LEARN_DB_POSTGRES) {
		m->log_sync = -1;
		m->log_sync_why =
			"PostgreSQL writes its WAL, then flushes it (wal_sync_method), but "
			"the write-through write shares commits closer to it "
			"(docs/fidelity.md, \"The log's flush\")";
	}
	if (obs->role[LEARN_LOG].present)
		log_block(obs, t, m);
	/* the record is solved once the database model's features have set
	 * the pages (learn_fit_run) */
}

/* Group commit. Commits that arrive while a log write is in flight share
 * the next one, so the commits per log write grow with the log write's
 * latency: about 1 + rate x latency for Poisson arrivals. The real run's
 * sharing came from the latency its commits saw (the device's, and the
 * machine's scheduling of the writer: more than the device's await on a
 * loaded machine), so with the transactions known the sim's log latency is
 * fitted to the observed commits per log write: its excess over one scaled
 * by observed / predicted, at most x4 a round. [sim] log_write_latency only
 * shapes the sim's prediction; a real run shares as its device lets it. */
static void log_latency_fit(struct learn_model *m, const double *to, const double *tp)
{
	double so, sp, k;

	if (!(to[T_LOGW] > 0 && tp[T_LOGW] > 0))
		return;
	so = m->rate / to[T_LOGW]; /* commits per log write, observed */
	sp = m->rate / tp[T_LOGW]; /* the sim's */
	k = clampd((fmax(so - 1, 0) + 0.01) / (fmax(sp - 1, 0) + 0.01), 0.25, 4);
	m->log_lat_us = clampd(m->log_lat_us * k, 1, 1e6);
}

/* One proportional correction of m toward obs from pred; true when every
 * fitted figure is within 1 %. rate_fixed: the transactions are known, so
 * the rate is copied and the log writes fit the sim's group commit. */
static bool model_correct(struct learn_model *m, const double *to, const double *tp,
			  bool rate_fixed)
{
	bool close = true;

	for (int k = 0; k < T_N; k++)
		if (to[k] > 0 && fabs(tp[k] / to[k] - 1) > 0.01)
			close = false;
	if (close)
		return true;
	if (rate_fixed) {
		if (!learn_db_group_commit(m, to, tp)) /* model_db.c */
			log_latency_fit(m, to, tp);
	} else if (to[T_LOGW] > 0 && tp[T_LOGW] > 0)
		m->rate = clampd(m->rate * to[T_LOGW] / tp[T_LOGW], 0.01, 1e7);
	if (to[T_DATAW] > 0 && tp[T_DATAW] > 0)
		m->update_pages = clampd(m->update_pages * to[T_DATAW] / tp[T_DATAW], 0, 1000);
	m->read_pages = clampd(m->read_pages + (to[T_READS] - tp[T_READS]) / m->rate, 0, 63);
	return false;
}

/* What the model cannot make, with the observed figure, into fit->cannot. */
static void model_limits(const struct learn_fp *obs, const double *to, struct learn_fit *fit)
{
	const struct learn_counters *d = &obs->role[LEARN_DATA].c;
	double s = obs->seconds;

	strbuf_addstr(&fit->cannot, "queue depth and latencies: the devices' own, not the sim's "
				    "(checked by a short real run with --replay-on DIR)\n");
	if (obs->role[LEARN_LOG].present && d->flushes > 0 && !fit->m.data_flush &&
	    !fit->m.doublewrite)
		strbuf_addf(&fit->cannot,
			    "data flushes/s (%.2f observed): the model flushes no data file "
			    "(data-file flushes: issue 34 item 3)\n",
			    (double)d->flushes / s);
	if (to[T_READS] < to[T_DATAW] && fit->m.cache_fraction <= 0)
		strbuf_addf(&fit->cannot,
			    "data reads below writes (%.1f < %.1f /s): without a cache model every "
			    "changed page is read first (cache_size is not fitted yet)\n",
			    to[T_READS], to[T_DATAW]);
	if (obs->role[LEARN_LOG].present && obs->role[LEARN_LOG].c.reads >= LEARN_EVENTS_MIN)
		strbuf_addf(&fit->cannot, "log reads/s (%.1f observed): no log reader is fitted\n",
			    (double)obs->role[LEARN_LOG].c.reads / s);
	if (obs->role[LEARN_LOG].present && fit->m.log_align_guessed)
		strbuf_addf(&fit->cannot,
			    "the log device's block: not in the fingerprint; [sim] log_align = "
			    "%u guessed from the mean log write\n",
			    fit->m.log_align);
	if (!obs->role[LEARN_LOG].present)
		strbuf_addstr(&fit->cannot,
			      "log record size: no --log, so the log's bytes are not "
			      "told from the data's (log_record_size kept at 2KiB)\n");
}

/* The sim rounds: predict, correct, until every fitted figure is within
 * 1 % or LEARN_FIT_ROUNDS; fit->predicted is then m's. */
static int fit_rounds(const struct learn_fp *obs, const double *to, const char *tmpdir,
		      struct learn_fit *fit, struct strbuf *err)
{
	bool rate_fixed = obs->transactions > 0;
	double tp[T_N];
	int ret;

	for (fit->iterations = 0; fit->iterations < LEARN_FIT_ROUNDS; fit->iterations++) {
		ret = learn_sim_predict(&fit->m, obs, tmpdir, &fit->predicted, err);
		if (ret)
			return ret;
		double run_pages = fit->m.update_pages, run_rate = fit->m.rate;

		targets(&fit->predicted, rate_fixed ? fit->m.rate : 0, tp);
		if (model_correct(&fit->m, to, tp, rate_fixed))
			return 0;
		learn_db_correct(obs, &fit->predicted, to, tp, &fit->m); /* model_db.c */
		/* last: the record for the pages the next run changes */
		log_record_solve(&fit->m, to, tp, run_pages, run_rate);
	}
	/* the last correction was not run: run it, so the residuals are m's */
	fit->iterations--;
	return learn_sim_predict(&fit->m, obs, tmpdir, &fit->predicted, err);
}

int learn_fit_run(const struct learn_fp *obs, uint64_t db_size, uint64_t log_size,
		  const char *tmpdir, struct learn_fit *fit, struct strbuf *err)
{
	double to[T_N];
	int ret;

	/* 1. copied, and the first guess of what is fitted */
	targets(obs, 0, to);
	model_start(obs, to, db_size, log_size, fit);
	if (obs->transactions > 0)
		targets(obs, fit->m.rate, to); /* per transaction */
	/* 2. the database model's features (model_db.c) and what the model
	 * cannot make */
	learn_db_features(obs, to, fit);
	/* the first record, for the pages the features set (with
	 * doublewrite, from the data bytes) */
	log_record_solve(&fit->m, to, NULL, fit->m.update_pages, fit->m.rate);
	model_limits(obs, to, fit);
	/* 3. the sim rounds */
	ret = fit_rounds(obs, to, tmpdir, fit, err);
	learn_db_group_commit_origin(fit, to);
	return ret;
}

/* ---- the profile's header ---- */

static void header_where(struct strbuf *out, const char *role, const struct learn_role *r)
{
	const struct learn_where *w = &r->where;

	if (!r->present)
		return;
	strbuf_addf(out, ";   %s:", role);
	for (size_t i = 0; i < w->nr_paths; i++)
		strbuf_addf(out, " %s", w->paths[i]);
	strbuf_addstr(out, " on");
	for (size_t i = 0; i < w->nr_devices; i++)
		strbuf_addf(out, " %s", w->devices[i]);
	if (w->nr_beneath) {
		strbuf_addstr(out, " (beneath:");
		for (size_t i = 0; i < w->nr_beneath; i++)
			strbuf_addf(out, " %s", w->beneath[i]);
		strbuf_addch(out, ')');
	}
	for (size_t i = 0; i < w->nr_backing; i++)
		strbuf_addf(out, "; loop backing file %s (named, not watched)", w->backing[i]);
	strbuf_addch(out, '\n');
}

/* The observed fingerprint and the sim's, figure by figure, with the
 * residual (sim against observed, %). */
static void header_figures(struct strbuf *out, const struct learn_fp *obs,
			   const struct learn_fit *fit)
{
	struct learn_figure fo[LEARN_FIGURES_MAX], fp[LEARN_FIGURES_MAX];
	size_t n = learn_fp_figures(obs, fo);

	learn_fp_figures(&fit->predicted, fp);
	strbuf_addf(out, "; %-22s %12s %12s %10s %8s\n", "figure", "observed", "model (sim)",
		    "residual %", "events");
	for (size_t i = 0; i < n; i++) {
		double d = (fp[i].value - fo[i].value) / fo[i].value * 100;

		if (isnan(fo[i].value))
			continue;
		strbuf_addf(out, "; %-22s %12.*f", fo[i].label, fo[i].decimals, fo[i].value);
		if (isnan(fp[i].value))
			strbuf_addf(out, " %12s", "-");
		else
			strbuf_addf(out, " %12.*f", fp[i].decimals, fp[i].value);
		if (!isfinite(d) || strstr(fo[i].key, "queue") || strstr(fo[i].key, "await"))
			strbuf_addf(out, " %10s", "-");
		else
			strbuf_addf(out, " %+10.1f", d);
		strbuf_addf(out, " %8llu\n", (unsigned long long)fo[i].events);
	}
}

/* Each line of text as a comment line. */
static void comment_lines(struct strbuf *out, const char *text, const char *lead)
{
	while (*text) {
		size_t n = strcspn(text, "\n");

		strbuf_addf(out, ";%s%.*s\n", lead, (int)n, text);
		text += n + (text[n] == '\n');
	}
}

/* A database's size over n volumes: the mean of their bytes (total: the
 * model's, the sum), whole pages, at most the smallest volume's bytes when
 * that is known, at least a page. */
static uint64_t volume_db_size(const struct learn_fit *fit)
{
	const struct learn_model *m = &fit->m;
	uint64_t page = m->page_size ? m->page_size : 4096, v = m->database_size / fit->nr_vols;

	for (size_t i = 0; i < fit->nr_vols; i++)
		if (fit->vol_bytes[i] && fit->vol_bytes[i] < v)
			v = fit->vol_bytes[i];
	v -= v % page;
	return v ? v : page;
}

/* The model's sections with the fingerprint key, then one [volume] per
 * --data path (learn.h: struct learn_fit's volumes). */
static void profile_volumes(const struct learn_fp *obs, const struct learn_fit *fit,
			    const char *data, const char *log, struct strbuf *out)
{
	const struct learn_model *m = &fit->m;
	double dur = obs->seconds < 60 ? 60 : ceil(obs->seconds);

	if (!fit->nr_vols) {
		model_sections(m, "io_uring", dur, fit->fingerprint, m->database_size, out);
		strbuf_addf(out, "\n[volume data]\npath = %s\n", data);
		if (log)
			strbuf_addf(out, "log_path = %s\n", log);
		strbuf_addstr(out, "databases = 1\n");
		return;
	}
	if (fit->nr_vols > 1)
		strbuf_addf(out,
			    "; %zu volumes, one per --data path: the fit is on the summed figures, "
			    "the load shared evenly (one database each); database_size the mean of "
			    "the bytes under the paths, at most the least\n\n",
			    fit->nr_vols);
	model_sections(m, "io_uring", dur, fit->fingerprint,
		       fit->nr_vols > 1 ? volume_db_size(fit) : m->database_size, out);
	for (size_t i = 0; i < fit->nr_vols; i++) {
		if (fit->nr_vols == 1)
			strbuf_addstr(out, "\n[volume data]\n");
		else
			strbuf_addf(out, "\n[volume data%zu]\n", i + 1);
		strbuf_addf(out, "path = %s\n", fit->vol_path[i]);
		if (fit->vol_log[i])
			strbuf_addf(out, "log_path = %s\n", fit->vol_log[i]);
		strbuf_addstr(out, "databases = 1\n");
	}
}

void learn_profile_write(const struct learn_fp *obs, const struct learn_fit *fit,
			 struct strbuf *out)
{
	const struct learn_model *m = &fit->m;
	const char *data = obs->role[LEARN_DATA].where.nr_paths
				   ? obs->role[LEARN_DATA].where.paths[0]
				   : "./data";
	const char *log = obs->role[LEARN_LOG].present && obs->role[LEARN_LOG].where.nr_paths
				  ? obs->role[LEARN_LOG].where.paths[0]
				  : NULL;

	strbuf_addf(out, "; learned by diskproof learn: a window of %.1f s from %s UTC\n",
		    obs->seconds, obs->start_utc[0] ? obs->start_utc : "?");
	header_where(out, "data", &obs->role[LEARN_DATA]);
	header_where(out, "log", &obs->role[LEARN_LOG]);
	strbuf_addstr(out, "; sources used: /proc/diskstats every second (rates, mean sizes, "
			   "flushes, queue depth, latencies)\n");
	learn_trace_header(obs, out);
	/* 34-db: the database's counters, used or why not (learn_db_header) */
	if (obs->db.kind == LEARN_DB_NONE)
		strbuf_addstr(out, "; sources not used: no database counters: give --postgres "
				   "CONNINFO or --mysql SPEC\n");
	learn_db_header(&obs->db, out);
	if (obs->transactions > 0 && obs->db.gave_txns)
		strbuf_addf(out,
			    "; transactions: %.0f from %s: figures per transaction "
			    "fitted\n",
			    obs->transactions, obs->db.txn_from);
	else if (obs->transactions > 0)
		strbuf_addf(out,
			    "; transactions in the window: %.0f (--transactions): figures "
			    "per transaction fitted\n",
			    obs->transactions);
	else
		strbuf_addstr(out, "; no transaction count: figures per second fitted, one "
				   "transaction per observed log write\n");
	strbuf_addf(out, ";\n; fitted on the sim engine, %u rounds of proportional correction\n",
		    fit->iterations + 1);
	header_figures(out, obs, fit);
	if (fit->checked.len) /* --replay-on (replay.c) */
		strbuf_addstr(out, fit->checked.buf);
	strbuf_addstr(out, ";\n; what the model cannot make:\n");
	comment_lines(out, fit->cannot.buf, "   ");
	if (fit->notes.len)
		comment_lines(out, fit->notes.buf, " ");
	strbuf_addstr(out, ";\n; origin of each key:\n");
	strbuf_addstr(out, ";   copied: database_size, log_segment_size, log_segments (the files "
			   "under the paths; default when none found), path, log_path\n");
	if (m->log_align && !m->log_align_guessed)
		strbuf_addf(out,
			    ";   copied: [sim] log_align = %u (the log device's logical block "
			    "size: the sim pads a log write to it as the device does)\n",
			    m->log_align);
	strbuf_addf(out,
		    ";   copied: page_size (%s)\n;   fitted: rate%s, update_pages, read_pages, "
		    "log_record_size%s\n",
		    m->page_origin ? m->page_origin : "the default",
		    obs->transactions > 0 ? " (copied: transactions / window)" : "",
		    obs->transactions > 0
			    ? ", [sim] log_write_latency (to the commits per log write)"
			    : "");
	if (m->log_sync >= 0 && m->log_sync_why)
		strbuf_addf(out, ";   copied: log_sync = %s (%s)\n",
			    m->log_sync == PROFILE_LOG_SYNC_FDATASYNC ? "fdatasync"
								      : "write_through",
			    m->log_sync_why);
	else
		strbuf_addf(out, ";   default: log_sync = write_through (%s)\n",
			    m->log_sync_why ? m->log_sync_why : "the database's setting not read");
	if (fit->db_keys.len) {
		strbuf_addstr(out, ";   fitted, the database model (model_db.c):\n");
		comment_lines(out, fit->db_keys.buf, "     ");
	}
	/* the defaults the model features above did not replace */
	strbuf_addf(out,
		    ";   default: streams = 16, every other key (replace-only transactions%s%s, "
		    "no maintenance)\n\n",
		    m->cache_fraction > 0 ? "" : ", no cache", ", no checkpoints");
	if (!fit->nr_vols && !fit->fingerprint) {
		learn_model_profile(m, data, log, "io_uring",
				    obs->seconds < 60 ? 60 : ceil(obs->seconds), out);
		return;
	}
	profile_volumes(obs, fit, data, log, out);
}
