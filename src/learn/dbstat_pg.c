/* SPDX-License-Identifier: MIT */
/*
 * dbstat_pg.c - PostgreSQL's counters and settings (dbstat.h) through libpq,
 * loaded at run time: dlopen("libpq.so.5") (or $DISKPROOF_LIBPQ) and the
 * dozen functions declared here by hand, so that neither the build nor the
 * binary needs libpq. The queries are SELECTs of the statistics views and
 * pg_settings: the role needs pg_monitor (or to be the superuser) to see
 * every database's figures.
 *
 * A reading's own transactions: each SELECT is one (autocommit), counted in
 * pg_stat_database when the connection's backend reports its statistics
 * (at the latest when it exits). pg_stat_database is read first, so every
 * query of the start reading lands in the window: learn_db_window takes
 * them off.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diskproof/dbstat.h"

/* libpq's ABI (libpq-fe.h): opaque handles, enums as int */
struct pq_api {
	void *lib;
	void *(*connectdb)(const char *conninfo);
	int (*status)(const void *conn);
	char *(*error_message)(const void *conn);
	void (*finish)(void *conn);
	void *(*exec)(void *conn, const char *query);
	int (*result_status)(const void *res);
	char *(*result_error)(const void *res);
	int (*ntuples)(const void *res);
	int (*nfields)(const void *res);
	char *(*fname)(const void *res, int col);
	char *(*getvalue)(const void *res, int row, int col);
	int (*getisnull)(const void *res, int row, int col);
	void (*clear)(void *res);
};

#define PQ_CONNECTION_OK 0
#define PQ_PGRES_TUPLES_OK 2

struct pq_conn {
	struct pq_api api;
	void *conn;
};

/* The last line of a libpq message, its newline cut. */
static void add_message(struct strbuf *err, const char *msg)
{
	size_t n = msg ? strlen(msg) : 0;

	while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
		n--;
	strbuf_add(err, msg ? msg : "", n);
}

static int pq_query(void *impl, const char *sql, struct learn_db_rows *out, struct strbuf *err)
{
	struct pq_conn *p = impl;
	void *res = p->api.exec(p->conn, sql);
	int nr, nc;

	memset(out, 0, sizeof(*out));
	if (!res || p->api.result_status(res) != PQ_PGRES_TUPLES_OK) {
		strbuf_addstr(err, "PostgreSQL: ");
		add_message(err, res ? p->api.result_error(res) : p->api.error_message(p->conn));
		if (res)
			p->api.clear(res);
		return -EIO;
	}
	nr = p->api.ntuples(res);
	nc = p->api.nfields(res);
	out->nrows = nr > 0 ? (size_t)nr : 0;
	out->ncols = nc > 0 ? (size_t)nc : 0;
	out->names = calloc(out->ncols ? out->ncols : 1, sizeof(char *));
	out->cells =
		calloc(out->nrows * out->ncols > 0 ? out->nrows * out->ncols : 1, sizeof(char *));
	if (!out->names || !out->cells) {
		p->api.clear(res);
		learn_db_rows_release(out);
		return -ENOMEM;
	}
	for (int c = 0; c < nc; c++)
		out->names[c] = strdup(p->api.fname(res, c));
	for (int r = 0; r < nr; r++)
		for (int c = 0; c < nc; c++)
			if (!p->api.getisnull(res, r, c))
				out->cells[(size_t)r * out->ncols + (size_t)c] =
					strdup(p->api.getvalue(res, r, c));
	p->api.clear(res);
	return 0;
}

static void pq_close(void *impl)
{
	struct pq_conn *p = impl;

	if (!p)
		return;
	if (p->conn)
		p->api.finish(p->conn);
	dlclose(p->api.lib);
	free(p);
}

#define PQ_SYM(name, field)                                                                        \
	{                                                                                          \
		name, offsetof(struct pq_api, field), false                                        \
	}
static const struct learn_db_sym pq_syms[] = {
	PQ_SYM("PQconnectdb", connectdb),
	PQ_SYM("PQstatus", status),
	PQ_SYM("PQerrorMessage", error_message),
	PQ_SYM("PQfinish", finish),
	PQ_SYM("PQexec", exec),
	PQ_SYM("PQresultStatus", result_status),
	PQ_SYM("PQresultErrorMessage", result_error),
	PQ_SYM("PQntuples", ntuples),
	PQ_SYM("PQnfields", nfields),
	PQ_SYM("PQfname", fname),
	PQ_SYM("PQgetvalue", getvalue),
	PQ_SYM("PQgetisnull", getisnull),
	PQ_SYM("PQclear", clear),
};

int learn_db_pg_connect(const char *conninfo, struct learn_db_client *c, struct strbuf *err)
{
	struct pq_conn *p = calloc(1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	if (learn_db_load("DISKPROOF_LIBPQ", "libpq.so.5", "libpq5", pq_syms,
			  DP_ARRAY_SIZE(pq_syms), &p->api, &p->api.lib, err)) {
		free(p);
		return -ENOENT;
	}
	p->conn = p->api.connectdb(conninfo);
	if (!p->conn || p->api.status(p->conn) != PQ_CONNECTION_OK) {
		strbuf_addstr(err, "PostgreSQL: cannot connect: ");
		add_message(err, p->conn ? p->api.error_message(p->conn) : "out of memory");
		pq_close(p);
		return -ECONNREFUSED;
	}
	c->impl = p;
	c->query = pq_query;
	c->close = pq_close;
	return 0;
}

/* ---- the reading ---- */

/* The database conninfo names: dbname=NAME (key=value form) or a URI's
 * path (postgresql://host/NAME), into out; false when it names none. */
static bool conninfo_dbname(const char *ci, char *out, size_t len)
{
	const char *p = strstr(ci, "dbname");
	size_t n;

	if (!strncmp(ci, "postgres://", 11) || !strncmp(ci, "postgresql://", 13)) {
		p = strchr(strstr(ci, "://") + 3, '/');
		if (!p || !p[1] || p[1] == '?')
			return false;
		n = strcspn(p + 1, "?");
		snprintf(out, len, "%.*s", (int)n, p + 1);
		return true;
	}
	for (; p; p = strstr(p + 1, "dbname")) {
		const char *v = p + 6;

		if (p != ci && p[-1] != ' ' && p[-1] != '\t')
			continue;
		while (*v == ' ')
			v++;
		if (*v++ != '=')
			continue;
		while (*v == ' ')
			v++;
		if (*v == '\'')
			v++;
		n = strcspn(v, " \t'");
		snprintf(out, len, "%.*s", (int)n, v);
		return n > 0;
	}
	return false;
}

/* Copies the numeric columns of row 0 named in want into out's counters. */
static void take_columns(const struct learn_db_rows *r, const char *const *want,
			 struct learn_db_reading *out)
{
	for (size_t i = 0; want[i]; i++) {
		const char *v = learn_db_rows_get(r, 0, want[i]);
		struct learn_db_counter *c;

		if (!v || out->nr_counters == LEARN_DB_COUNTERS_MAX)
			continue;
		c = &out->c[out->nr_counters++];
		snprintf(c->name, sizeof(c->name), "%s", want[i]);
		c->value = strtod(v, NULL);
	}
}

static void add_note(struct learn_db_reading *out, const char *note)
{
	size_t n = strlen(out->notes);

	snprintf(out->notes + n, sizeof(out->notes) - n, "%s%s", n ? "; " : "", note);
}

/* One SELECT of a view's columns into the counters; the query counted as
 * the reading's own transaction (a failed one too: a rollback). */
static int read_view(struct learn_db_client *c, const char *sql, const char *const *want,
		     struct learn_db_reading *out, struct strbuf *err)
{
	struct learn_db_rows r;
	int ret = c->query(c->impl, sql, &r, err);

	out->own_txns++;
	if (ret)
		return ret;
	take_columns(&r, want, out);
	learn_db_rows_release(&r);
	return 0;
}

static int read_settings(struct learn_db_client *c, struct learn_db_reading *out,
			 struct strbuf *err)
{
	struct learn_db_rows r;
	uint64_t block = 0, buffers = 0;
	int ret = c->query(c->impl,
			   "SELECT name, current_setting(name) AS value, setting FROM pg_settings "
			   "WHERE name IN ('block_size', 'wal_block_size', 'shared_buffers', "
			   "'checkpoint_timeout', 'max_wal_size', 'synchronous_commit', "
			   "'wal_sync_method', 'full_page_writes', 'server_version') ORDER BY name",
			   &r, err);

	out->own_txns++;
	if (ret)
		return ret;
	for (size_t i = 0; i < r.nrows && out->nr_settings < LEARN_DB_SETTINGS_MAX; i++) {
		const char *name = learn_db_rows_get(&r, i, "name");
		const char *value = learn_db_rows_get(&r, i, "value");
		const char *raw = learn_db_rows_get(&r, i, "setting");
		struct learn_db_setting *s = &out->s[out->nr_settings++];

		if (!name || !value)
			continue;
		snprintf(s->name, sizeof(s->name), "%s", name);
		snprintf(s->value, sizeof(s->value), "%s", value);
		if (!strcmp(name, "block_size") && raw)
			block = strtoull(raw, NULL, 10);
		else if (!strcmp(name, "shared_buffers") && raw)
			buffers = strtoull(raw, NULL, 10); /* in blocks */
		else if (!strcmp(name, "server_version"))
			snprintf(out->version, sizeof(out->version), "%s", value);
	}
	out->page_size = block;
	out->buffer_pool = buffers * block;
	learn_db_rows_release(&r);
	return 0;
}

/* pg_stat_database first (see the top), with the server's version number. */
static int read_database(struct learn_db_client *c, const char *conninfo, long *version,
			 struct learn_db_reading *out, struct strbuf *err)
{
	static const char *const cols[] = {"xact_commit", "xact_rollback", "blks_read", "blks_hit",
					   NULL};
	char sql[512], db[128];
	bool one = conninfo_dbname(conninfo, db, sizeof(db));
	struct learn_db_rows r;
	const char *v;
	int ret;

	snprintf(sql, sizeof(sql),
		 "SELECT sum(xact_commit) AS xact_commit, sum(xact_rollback) AS xact_rollback, "
		 "sum(blks_read) AS blks_read, sum(blks_hit) AS blks_hit, "
		 "current_setting('server_version_num') AS version_num, current_database() AS db "
		 "FROM pg_stat_database%s",
		 one ? " WHERE datname = current_database()" : "");
	ret = c->query(c->impl, sql, &r, err);
	out->own_txns++;
	if (ret)
		return ret;
	take_columns(&r, cols, out);
	v = learn_db_rows_get(&r, 0, "version_num");
	*version = v ? strtol(v, NULL, 10) : 0;
	v = learn_db_rows_get(&r, 0, "db");
	if (one)
		snprintf(out->scope, sizeof(out->scope), "database %.100s (named in the conninfo)",
			 v ? v : db);
	else
		snprintf(out->scope, sizeof(out->scope),
			 "all databases summed (the conninfo names none)");
	learn_db_rows_release(&r);
	return 0;
}

int learn_db_pg_read(struct learn_db_client *c, const char *conninfo, struct learn_db_reading *out,
		     struct strbuf *err)
{
	static const char *const wal[] = {
		"wal_records", "wal_fpi",  "wal_bytes", "wal_buffers_full",
		"wal_write",   "wal_sync", NULL};
	static const char *const bgw[] = {
		"checkpoints_timed",	 "checkpoints_req",  "buffers_checkpoint",
		"buffers_clean",	 "maxwritten_clean", "buffers_backend",
		"buffers_backend_fsync", "buffers_alloc",    NULL};
	static const char *const ckp[] = {"num_timed", "num_requested", "buffers_written", NULL};
	long version = 0;
	int ret = read_database(c, conninfo, &version, out, err);

	if (!ret && version >= 140000)
		ret = read_view(c, "SELECT * FROM pg_stat_wal", wal, out, err);
	else if (!ret)
		add_note(out, "pg_stat_wal (PostgreSQL 14 and later): no WAL bytes or syncs");
	if (!ret && version >= 180000)
		add_note(out, "pg_stat_wal's wal_write and wal_sync (moved to pg_stat_io in 18)");
	if (!ret)
		ret = read_view(c, "SELECT * FROM pg_stat_bgwriter", bgw, out, err);
	if (!ret && version >= 170000)
		ret = read_view(c, "SELECT * FROM pg_stat_checkpointer", ckp, out, err);
	if (!ret)
		ret = read_settings(c, out, err);
	return ret;
}
