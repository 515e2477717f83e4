/* SPDX-License-Identifier: MIT */
/*
 * dbstat.h - the database's own counters and settings as a source of a
 * fingerprint (docs/learn.md, "The database's counters"): PostgreSQL through
 * libpq (dbstat_pg.c), MariaDB and MySQL through the MariaDB client library
 * (dbstat_my.c), each loaded at run time with dlopen, so that diskproof links
 * neither; dbstat.c holds what is common: the readings, the window's
 * differences, the figures derived from them, the JSON both ways.
 *
 * A reading: one connection, read-only queries only (SELECT, SHOW), closed
 * again. One at the window's start and one at its end; the window's
 * differences of the counters and the settings of the end's reading go into
 * the fingerprint's database section (struct learn_db).
 *
 * The client layer is a struct of function pointers (struct learn_db_client):
 * dbstat_pg.c and dbstat_my.c fill it from the dlopen'd library, the unit
 * tests with a planted table of results.
 *
 * Ownership: plain data, except the rows of a query (learn_db_rows_release)
 * and a client (its close). Functions return 0 or -errno with err filled.
 */
#ifndef DISKPROOF_DBSTAT_H
#define DISKPROOF_DBSTAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diskproof/util.h"

enum learn_db_kind {
	LEARN_DB_NONE,	   /* no database source asked for */
	LEARN_DB_POSTGRES, /* --postgres CONNINFO */
	LEARN_DB_MYSQL,	   /* --mysql 'key=value ...' */
};

#define LEARN_DB_COUNTERS_MAX 32
#define LEARN_DB_SETTINGS_MAX 16
#define LEARN_DB_NAME_MAX 40

struct learn_db_counter {
	char name[LEARN_DB_NAME_MAX]; /* the server's own name: "xact_commit" */
	double value;
};

struct learn_db_setting {
	char name[LEARN_DB_NAME_MAX]; /* "shared_buffers" */
	char value[64];		      /* as the server shows it: "128MB" */
};

/* One reading of a server's counters and settings. */
struct learn_db_reading {
	struct learn_db_counter c[LEARN_DB_COUNTERS_MAX];
	size_t nr_counters;
	struct learn_db_setting s[LEARN_DB_SETTINGS_MAX];
	size_t nr_settings;
	char version[64];
	char scope[160];   /* what the transaction counters cover */
	char notes[320];   /* what the server lacks ("pg_stat_wal: ..."), "; " apart */
	unsigned own_txns; /* transactions the reading itself made (its queries) */
	uint64_t page_size, buffer_pool; /* bytes; 0 not known */
};

/* The database section of a fingerprint. Figures < 0: not known. */
struct learn_db {
	enum learn_db_kind kind;
	bool used;	   /* read at both ends of the window */
	char why_not[320]; /* asked for and not used: why */
	char version[64];
	char scope[160];
	char notes[320];
	char txn_from[256]; /* where transactions came from */
	bool gave_txns;	    /* the fingerprint's transactions are these */
	struct learn_db_counter counters[LEARN_DB_COUNTERS_MAX]; /* the window's differences */
	size_t nr_counters;
	struct learn_db_setting settings[LEARN_DB_SETTINGS_MAX];
	size_t nr_settings;
	double transactions, log_bytes, log_flushes, pages_read, pages_written;
	uint64_t page_size, buffer_pool;
};

/* ---- the client layer ---- */

/* A query's result: nrows x ncols strings (NULL for SQL NULL), row-major,
 * with the columns' names (SHOW's two columns named "name" and "value"). */
struct learn_db_rows {
	size_t nrows, ncols;
	char **names; /* ncols */
	char **cells; /* nrows x ncols */
};

void learn_db_rows_release(struct learn_db_rows *r);

/* A value of a result: the cell of row at the column named col (NULL when
 * no such column or NULL). */
const char *learn_db_rows_get(const struct learn_db_rows *r, size_t row, const char *col);

struct learn_db_client {
	void *impl;
	/* runs one read-only statement: its rows into out (released by the
	 * caller); 0 or -errno with err filled */
	int (*query)(void *impl, const char *sql, struct learn_db_rows *out, struct strbuf *err);
	void (*close)(void *impl);
};

/*
 * Loads the client library of kind (libpq.so.5; libmariadb.so.3, or the
 * file named by DISKPROOF_LIBPQ / DISKPROOF_LIBMARIADB) and connects with
 * conninfo. -ENOENT when the library is missing (err says which and how to
 * install it), -ECONNREFUSED when the server refused or was not found.
 */
int learn_db_connect(enum learn_db_kind kind, const char *conninfo, struct learn_db_client *c,
		     struct strbuf *err) DP_MUST_CHECK;

/* A client library loaded at run time: dlopen(getenv(env_var) or file),
 * then each of syms' names dlsym'd into the function pointer at its offset
 * in api (optional ones may be missing: left NULL). 0 with *lib set, or
 * -ENOENT with err naming the missing library (and install_hint, the
 * package to install) or function; nothing left open. */
struct learn_db_sym {
	const char *name;
	size_t off; /* offsetof the function pointer in the api struct */
	bool optional;
};
int learn_db_load(const char *env_var, const char *file, const char *install_hint,
		  const struct learn_db_sym *syms, size_t n, void *api, void **lib,
		  struct strbuf *err) DP_MUST_CHECK;

/* dbstat_pg.c and dbstat_my.c: the connection of each kind. */
int learn_db_pg_connect(const char *conninfo, struct learn_db_client *c,
			struct strbuf *err) DP_MUST_CHECK;
int learn_db_my_connect(const char *spec, struct learn_db_client *c,
			struct strbuf *err) DP_MUST_CHECK;

/* The reading of each kind through c. conninfo tells the PostgreSQL scope:
 * the database it names (dbname=, or a URI's path), else all databases. */
int learn_db_pg_read(struct learn_db_client *c, const char *conninfo, struct learn_db_reading *out,
		     struct strbuf *err) DP_MUST_CHECK;
int learn_db_my_read(struct learn_db_client *c, struct learn_db_reading *out,
		     struct strbuf *err) DP_MUST_CHECK;

/* ---- readings and the window ---- */

/* A reading through a new connection, closed again. */
int learn_db_reading_take(enum learn_db_kind kind, const char *conninfo,
			  struct learn_db_reading *out, struct strbuf *err) DP_MUST_CHECK;

/* The counter named name of a reading (or a window), NAN when absent. */
double learn_db_counter(const struct learn_db_counter *c, size_t n, const char *name);

/* The window's differences b - a into db, with the figures derived from them
 * (transactions, log bytes and flushes, pages read and written) per kind;
 * the settings, version, scope of b. */
void learn_db_window(enum learn_db_kind kind, const struct learn_db_reading *a,
		     const struct learn_db_reading *b, struct learn_db *db);

/* The kind's name: "postgresql", "mysql" ("" for none). */
const char *learn_db_kind_name(enum learn_db_kind kind);

/* ---- the fingerprint's database section ---- */

struct json;

/* The members of the fingerprint's "database" object (its figures are
 * fingerprint.c's). */
void learn_db_json_fields(const struct learn_db *db, struct json *j);

/* A number or string at key (dotted, below "database.") of a fingerprint
 * being read back. */
void learn_db_json_number(struct learn_db *db, const char *key, double v);
void learn_db_json_text(struct learn_db *db, const char *key, const char *s);

/* The learned profile's header lines of this source: the source used or
 * why not, and the settings copied as facts. */
void learn_db_header(const struct learn_db *db, struct strbuf *out);

/* How the database makes its log durable, from its settings: an enum
 * profile_log_sync, with *why (the setting that says so, static text);
 * -1 when its counters were not read or the setting is not known.
 * PostgreSQL: wal_sync_method (open_datasync, open_sync: write-through;
 * fdatasync, fsync, fsync_writethrough: a write, then a flush). MariaDB:
 * innodb_log_file_write_through = ON or innodb_flush_method = O_DSYNC:
 * write-through; otherwise a write, then a flush. */
int learn_db_log_sync(const struct learn_db *db, const char **why);

#endif
