/* SPDX-License-Identifier: MIT */
/*
 * dbstat.c - the database's counters as a source of a fingerprint
 * (dbstat.h): what PostgreSQL and MariaDB share: a query's rows, a reading
 * through a new connection, the window's differences and the figures
 * derived from them, the database section's JSON both ways and the learned
 * profile's header lines.
 *
 * The figures over the window, d() its difference:
 *   PostgreSQL  transactions  d(xact_commit + xact_rollback) of
 *                             pg_stat_database, less the start reading's
 *                             own queries (each one a transaction)
 *               log bytes     d(wal_bytes), log flushes d(wal_sync):
 *                             pg_stat_wal (PostgreSQL 14 and later)
 *               pages read    d(blks_read)
 *               pages written d(buffers_checkpoint + buffers_clean +
 *                             buffers_backend) of pg_stat_bgwriter (17:
 *                             pg_stat_checkpointer's buffers_written)
 *   MariaDB     transactions  d(Com_commit + Com_rollback), or
 *                             d(Handler_commit) when no COMMIT was counted
 *                             (autocommit statements)
 *               log bytes     d(Innodb_os_log_written), log flushes
 *                             d(Innodb_os_log_fsyncs)
 *               pages read    d(Innodb_pages_read), written
 *                             d(Innodb_pages_written)
 */
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "diskproof/dbstat.h"
#include "diskproof/json.h"
#include "diskproof/profile.h"

void learn_db_rows_release(struct learn_db_rows *r)
{
	if (!r)
		return;
	for (size_t i = 0; r->names && i < r->ncols; i++)
		free(r->names[i]);
	for (size_t i = 0; r->cells && i < r->nrows * r->ncols; i++)
		free(r->cells[i]);
	free(r->names);
	free(r->cells);
	memset(r, 0, sizeof(*r));
}

const char *learn_db_rows_get(const struct learn_db_rows *r, size_t row, const char *col)
{
	if (row >= r->nrows)
		return NULL;
	for (size_t i = 0; i < r->ncols; i++)
		if (r->names[i] && !strcmp(r->names[i], col))
			return r->cells[row * r->ncols + i];
	return NULL;
}

const char *learn_db_kind_name(enum learn_db_kind kind)
{
	return kind == LEARN_DB_POSTGRES ? "postgresql" : kind == LEARN_DB_MYSQL ? "mysql" : "";
}

int learn_db_load(const char *env_var, const char *file, const char *install_hint,
		  const struct learn_db_sym *syms, size_t n, void *api, void **lib,
		  struct strbuf *err)
{
	const char *env = getenv(env_var);

	if (env && *env)
		file = env;
	*lib = dlopen(file, RTLD_NOW | RTLD_LOCAL);
	if (!*lib) {
		strbuf_addf(err, "%s not found (apt-get install %s)", file, install_hint);
		return -ENOENT;
	}
	for (size_t i = 0; i < n; i++) {
		void *f = dlsym(*lib, syms[i].name);

		if (!f && !syms[i].optional) {
			strbuf_addf(err, "%s has no %s", file, syms[i].name);
			dlclose(*lib);
			*lib = NULL;
			return -ENOENT;
		}
		/* POSIX: a function pointer converts to and from void * (dlsym) */
		memcpy((char *)api + syms[i].off, &f, sizeof(f));
	}
	return 0;
}

int learn_db_connect(enum learn_db_kind kind, const char *conninfo, struct learn_db_client *c,
		     struct strbuf *err)
{
	memset(c, 0, sizeof(*c));
	if (kind == LEARN_DB_POSTGRES)
		return learn_db_pg_connect(conninfo, c, err);
	if (kind == LEARN_DB_MYSQL)
		return learn_db_my_connect(conninfo, c, err);
	strbuf_addstr(err, "no database kind");
	return -EINVAL;
}

int learn_db_reading_take(enum learn_db_kind kind, const char *conninfo,
			  struct learn_db_reading *out, struct strbuf *err)
{
	struct learn_db_client c;
	int ret = learn_db_connect(kind, conninfo, &c, err);

	if (ret)
		return ret;
	memset(out, 0, sizeof(*out));
	if (kind == LEARN_DB_POSTGRES)
		ret = learn_db_pg_read(&c, conninfo, out, err);
	else
		ret = learn_db_my_read(&c, out, err);
	c.close(c.impl);
	return ret;
}

double learn_db_counter(const struct learn_db_counter *c, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(c[i].name, name))
			return c[i].value;
	return NAN;
}

/* The sum of the named counters of the window; NAN when the first is
 * absent (the others count as 0 when absent: a newer server's columns). */
static double sum_of(const struct learn_db *db, const char *const *names)
{
	double sum = learn_db_counter(db->counters, db->nr_counters, names[0]);

	for (size_t i = 1; names[i] && !isnan(sum); i++) {
		double v = learn_db_counter(db->counters, db->nr_counters, names[i]);

		if (!isnan(v))
			sum += v;
	}
	return isnan(sum) ? -1 : sum;
}

static void pg_figures(const struct learn_db_reading *a, struct learn_db *db)
{
	static const char *const txn[] = {"xact_commit", "xact_rollback", NULL};
	static const char *const written[] = {"buffers_checkpoint", "buffers_clean",
					      "buffers_backend", NULL};
	static const char *const written17[] = {"buffers_written", "buffers_clean", NULL};
	static const char *const wal[] = {"wal_bytes", NULL}, *const sync[] = {"wal_sync", NULL};
	static const char *const rd[] = {"blks_read", NULL};

	db->transactions = sum_of(db, txn);
	if (db->transactions >= 0) {
		db->transactions -= a->own_txns;
		if (db->transactions < 0)
			db->transactions = 0;
		snprintf(db->txn_from, sizeof(db->txn_from),
			 "pg_stat_database xact_commit + xact_rollback (%s), less diskproof's "
			 "own %u",
			 db->scope, a->own_txns);
	}
	db->log_bytes = sum_of(db, wal);
	db->log_flushes = sum_of(db, sync);
	db->pages_read = sum_of(db, rd);
	db->pages_written = sum_of(db, written);
	if (db->pages_written < 0)
		db->pages_written = sum_of(db, written17);
}

static void my_figures(struct learn_db *db)
{
	static const char *const com[] = {"Com_commit", "Com_rollback", NULL};
	static const char *const handler[] = {"Handler_commit", NULL};
	static const char *const logw[] = {"Innodb_os_log_written", NULL};
	static const char *const logf[] = {"Innodb_os_log_fsyncs", NULL};
	static const char *const rd[] = {"Innodb_pages_read", NULL};
	static const char *const wr[] = {"Innodb_pages_written", NULL};

	db->transactions = sum_of(db, com);
	if (db->transactions > 0) {
		snprintf(db->txn_from, sizeof(db->txn_from),
			 "SHOW GLOBAL STATUS Com_commit + "
			 "Com_rollback");
	} else {
		db->transactions = sum_of(db, handler);
		if (db->transactions >= 0)
			snprintf(db->txn_from, sizeof(db->txn_from),
				 "SHOW GLOBAL STATUS Handler_commit (no COMMIT statement "
				 "counted: autocommit)");
	}
	db->log_bytes = sum_of(db, logw);
	db->log_flushes = sum_of(db, logf);
	db->pages_read = sum_of(db, rd);
	db->pages_written = sum_of(db, wr);
}

void learn_db_window(enum learn_db_kind kind, const struct learn_db_reading *a,
		     const struct learn_db_reading *b, struct learn_db *db)
{
	memset(db, 0, sizeof(*db));
	db->kind = kind;
	db->used = true;
	for (size_t i = 0; i < b->nr_counters; i++) {
		double va = learn_db_counter(a->c, a->nr_counters, b->c[i].name);
		struct learn_db_counter *d = &db->counters[db->nr_counters];

		if (isnan(va))
			continue; /* not read at the start: no difference */
		snprintf(d->name, sizeof(d->name), "%s", b->c[i].name);
		/* a reset in the window (pg_stat_reset): the end's value */
		d->value = b->c[i].value >= va ? b->c[i].value - va : b->c[i].value;
		db->nr_counters++;
	}
	memcpy(db->settings, b->s, sizeof(db->settings));
	db->nr_settings = b->nr_settings;
	snprintf(db->version, sizeof(db->version), "%s", b->version);
	snprintf(db->scope, sizeof(db->scope), "%s", b->scope);
	snprintf(db->notes, sizeof(db->notes), "%s", b->notes);
	db->page_size = b->page_size;
	db->buffer_pool = b->buffer_pool;
	if (kind == LEARN_DB_POSTGRES)
		pg_figures(a, db);
	else
		my_figures(db);
}

/* ---- JSON ---- */

static void json_figure(struct json *j, const char *key, double v)
{
	if (v >= 0)
		json_sig(j, key, v, 15);
	else
		json_null(j, key);
}

void learn_db_json_fields(const struct learn_db *db, struct json *j)
{
	json_str(j, "kind", learn_db_kind_name(db->kind));
	json_bool(j, "used", db->used);
	if (!db->used) {
		json_str(j, "why_not", db->why_not);
		return;
	}
	json_str(j, "version", db->version);
	json_str(j, "scope", db->scope);
	json_str(j, "notes", db->notes[0] ? db->notes : NULL);
	json_str(j, "transactions_from", db->txn_from[0] ? db->txn_from : NULL);
	json_bool(j, "gave_transactions", db->gave_txns);
	json_figure(j, "transactions", db->transactions);
	json_figure(j, "log_bytes", db->log_bytes);
	json_figure(j, "log_flushes", db->log_flushes);
	json_figure(j, "pages_read", db->pages_read);
	json_figure(j, "pages_written", db->pages_written);
	json_u64(j, "page_size", db->page_size);
	json_u64(j, "buffer_pool_bytes", db->buffer_pool);
	json_begin_object(j, "counters");
	for (size_t i = 0; i < db->nr_counters; i++)
		json_sig(j, db->counters[i].name, db->counters[i].value, 15);
	json_end(j);
	json_begin_object(j, "settings");
	for (size_t i = 0; i < db->nr_settings; i++)
		json_str(j, db->settings[i].name, db->settings[i].value);
	json_end(j);
}

void learn_db_json_number(struct learn_db *db, const char *key, double v)
{
	if (!strncmp(key, "counters.", 9) && db->nr_counters < LEARN_DB_COUNTERS_MAX) {
		struct learn_db_counter *c = &db->counters[db->nr_counters++];

		snprintf(c->name, sizeof(c->name), "%s", key + 9);
		c->value = v;
	} else if (!strcmp(key, "transactions")) {
		db->transactions = v;
	} else if (!strcmp(key, "log_bytes")) {
		db->log_bytes = v;
	} else if (!strcmp(key, "log_flushes")) {
		db->log_flushes = v;
	} else if (!strcmp(key, "pages_read")) {
		db->pages_read = v;
	} else if (!strcmp(key, "pages_written")) {
		db->pages_written = v;
	} else if (!strcmp(key, "page_size")) {
		db->page_size = v > 0 ? (uint64_t)v : 0;
	} else if (!strcmp(key, "buffer_pool_bytes")) {
		db->buffer_pool = v > 0 ? (uint64_t)v : 0;
	}
}

void learn_db_json_text(struct learn_db *db, const char *key, const char *s)
{
	if (!strcmp(key, "kind")) {
		db->kind = !strcmp(s, "postgresql") ? LEARN_DB_POSTGRES
			   : !strcmp(s, "mysql")    ? LEARN_DB_MYSQL
						    : LEARN_DB_NONE;
		/* figures absent from the document stay unknown */
		db->transactions = db->log_bytes = db->log_flushes = -1;
		db->pages_read = db->pages_written = -1;
		db->used = true;
	} else if (!strcmp(key, "version")) {
		snprintf(db->version, sizeof(db->version), "%s", s);
	} else if (!strcmp(key, "scope")) {
		snprintf(db->scope, sizeof(db->scope), "%s", s);
	} else if (!strcmp(key, "transactions_from")) {
		snprintf(db->txn_from, sizeof(db->txn_from), "%s", s);
	} else if (!strcmp(key, "why_not")) {
		snprintf(db->why_not, sizeof(db->why_not), "%s", s);
		db->used = false;
	} else if (!strncmp(key, "settings.", 9) && db->nr_settings < LEARN_DB_SETTINGS_MAX) {
		struct learn_db_setting *st = &db->settings[db->nr_settings++];

		snprintf(st->name, sizeof(st->name), "%s", key + 9);
		snprintf(st->value, sizeof(st->value), "%s", s);
	}
}

/* ---- the learned profile's header ---- */

static const char *setting(const struct learn_db *db, const char *name)
{
	for (size_t i = 0; i < db->nr_settings; i++)
		if (!strcmp(db->settings[i].name, name))
			return db->settings[i].value;
	return NULL;
}

int learn_db_log_sync(const struct learn_db *db, const char **why)
{
	const char *v;

	if (!db->used)
		return -1;
	if (db->kind == LEARN_DB_POSTGRES) {
		if (!(v = setting(db, "wal_sync_method")))
			return -1;
		if (!strcmp(v, "open_datasync") || !strcmp(v, "open_sync")) {
			*why = "wal_sync_method opens the WAL write-through";
			return PROFILE_LOG_SYNC_WRITE_THROUGH;
		}
		if (!strcmp(v, "fdatasync") || !strcmp(v, "fsync") ||
		    !strcmp(v, "fsync_writethrough")) {
			*why = "wal_sync_method: a write, then a flush of the WAL file";
			return PROFILE_LOG_SYNC_FDATASYNC;
		}
		return -1;
	}
	if (db->kind != LEARN_DB_MYSQL)
		return -1;
	if ((v = setting(db, "innodb_log_file_write_through")) && !strcasecmp(v, "ON")) {
		*why = "innodb_log_file_write_through = ON";
		return PROFILE_LOG_SYNC_WRITE_THROUGH;
	}
	if (!(v = setting(db, "innodb_flush_method")))
		return -1;
	if (!strcasecmp(v, "nosync") || !strcasecmp(v, "littlesync"))
		return -1; /* the redo log not flushed at all: neither */
	if (strstr(v, "O_DSYNC")) {
		*why = "innodb_flush_method = O_DSYNC: the redo log written through";
		return PROFILE_LOG_SYNC_WRITE_THROUGH;
	}
	*why = "InnoDB writes its redo log, then flushes it: innodb_flush_method not O_DSYNC, "
	       "innodb_log_file_write_through not on";
	return PROFILE_LOG_SYNC_FDATASYNC;
}

/* "; name = value" for each of names the server showed. */
static void header_settings(const struct learn_db *db, const char *const *names, struct strbuf *out)
{
	for (size_t i = 0; names[i]; i++) {
		const char *v = setting(db, names[i]);

		if (v)
			strbuf_addf(out, ";   copied fact: %s = %s\n", names[i], v);
	}
}

void learn_db_header(const struct learn_db *db, struct strbuf *out)
{
	static const char *const pg[] = {
		"shared_buffers",     "synchronous_commit", "wal_sync_method", "full_page_writes",
		"checkpoint_timeout", "max_wal_size",	    "wal_block_size",  NULL};
	static const char *const my[] = {"innodb_buffer_pool_size",
					 "innodb_flush_log_at_trx_commit",
					 "innodb_doublewrite",
					 "innodb_flush_method",
					 "innodb_log_file_size",
					 "innodb_io_capacity",
					 "innodb_log_file_write_through",
					 NULL};

	if (db->kind == LEARN_DB_NONE)
		return; /* said on the sources-not-used line */
	if (!db->used) {
		strbuf_addf(out, "; database counters: not used: %s\n", db->why_not);
		return;
	}
	strbuf_addf(out,
		    "; database counters: used: %s %s, %s (read-only queries at the "
		    "window's start and end)\n",
		    learn_db_kind_name(db->kind), db->version, db->scope);
	if (db->notes[0])
		strbuf_addf(out, ";   the server lacks: %s\n", db->notes);
	if (db->page_size)
		strbuf_addf(out, ";   copied fact: page size %llu bytes (%s)\n",
			    (unsigned long long)db->page_size,
			    db->kind == LEARN_DB_POSTGRES ? "block_size" : "innodb_page_size");
	header_settings(db, db->kind == LEARN_DB_POSTGRES ? pg : my, out);
}
