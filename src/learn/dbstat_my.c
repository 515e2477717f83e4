/* SPDX-License-Identifier: MIT */
/*
 * dbstat_my.c - MariaDB's (and MySQL's) counters and settings (dbstat.h)
 * through the MariaDB client library, loaded at run time:
 * dlopen("libmariadb.so.3") (or $DISKPROOF_LIBMARIADB) and the functions
 * declared here by hand, so that neither the build nor the binary needs it.
 * The statements are SHOW GLOBAL STATUS and SHOW GLOBAL VARIABLES: the user
 * needs no privilege beyond connecting (PROCESS for some InnoDB figures on
 * MySQL).
 *
 * --mysql takes what libpq's conninfo looks like: space-separated
 * key=value, a value quoted with '...' when it holds blanks:
 *   socket=PATH host=NAME port=N user=NAME password=SECRET database=NAME
 *   defaults-file=PATH group=NAME
 * The option files are read as the mariadb client reads them: the [client]
 * group (or group=NAME) of ~/.my.cnf and /etc/mysql/my.cnf, or
 * defaults-file=PATH; a key given on the command line wins.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diskproof/dbstat.h"

/* mysql.h's ABI: opaque handles; enum mysql_option's values */
#define MY_OPT_CONNECT_TIMEOUT 0
#define MY_READ_DEFAULT_FILE 4
#define MY_READ_DEFAULT_GROUP 5

struct my_api {
	void *lib;
	void *(*init)(void *mysql);
	int (*options)(void *mysql, int option, const void *arg);
	void *(*real_connect)(void *mysql, const char *host, const char *user, const char *passwd,
			      const char *db, unsigned int port, const char *unix_socket,
			      unsigned long flags);
	const char *(*error)(void *mysql);
	int (*query)(void *mysql, const char *q);
	void *(*store_result)(void *mysql);
	unsigned long long (*num_rows)(void *res);
	unsigned int (*num_fields)(void *res);
	char **(*fetch_row)(void *res);
	void (*free_result)(void *res);
	void (*close)(void *mysql);
	void (*library_end)(void); /* mysql_server_end: may be missing */
};

struct my_conn {
	struct my_api api;
	void *mysql;
};

/* The keys of --mysql. */
struct my_spec {
	char socket[256], host[256], user[128], password[256], database[128], file[256];
	char group[64];
	unsigned port;
};

static int my_query(void *impl, const char *sql, struct learn_db_rows *out, struct strbuf *err)
{
	struct my_conn *m = impl;
	unsigned long long nr;
	unsigned nc;
	char **row;
	void *res;

	memset(out, 0, sizeof(*out));
	if (m->api.query(m->mysql, sql) != 0 || !(res = m->api.store_result(m->mysql))) {
		strbuf_addf(err, "MariaDB: %s: %s", sql, m->api.error(m->mysql));
		return -EIO;
	}
	nr = m->api.num_rows(res);
	nc = m->api.num_fields(res);
	out->nrows = (size_t)nr;
	out->ncols = nc;
	out->names = calloc(nc ? nc : 1, sizeof(char *));
	out->cells = calloc(nr * nc > 0 ? nr * nc : 1, sizeof(char *));
	if (!out->names || !out->cells) {
		m->api.free_result(res);
		learn_db_rows_release(out);
		return -ENOMEM;
	}
	/* SHOW's columns, by position: Variable_name, Value */
	for (unsigned c = 0; c < nc; c++)
		out->names[c] = strdup(c == 0 ? "name" : c == 1 ? "value" : "more");
	for (size_t r = 0; r < out->nrows && (row = m->api.fetch_row(res)); r++)
		for (unsigned c = 0; c < nc; c++)
			if (row[c])
				out->cells[r * nc + c] = strdup(row[c]);
	m->api.free_result(res);
	return 0;
}

static void my_close(void *impl)
{
	struct my_conn *m = impl;

	if (!m)
		return;
	if (m->mysql)
		m->api.close(m->mysql);
	/* the library's own state (its once-only init), freed before dlclose */
	if (m->api.library_end)
		m->api.library_end();
	dlclose(m->api.lib);
	free(m);
}

#define MY_SYM(name, field, opt)                                                                   \
	{                                                                                          \
		name, offsetof(struct my_api, field), opt                                          \
	}
static const struct learn_db_sym my_syms[] = {
	MY_SYM("mysql_init", init, false),
	MY_SYM("mysql_options", options, false),
	MY_SYM("mysql_real_connect", real_connect, false),
	MY_SYM("mysql_error", error, false),
	MY_SYM("mysql_query", query, false),
	MY_SYM("mysql_store_result", store_result, false),
	MY_SYM("mysql_num_rows", num_rows, false),
	MY_SYM("mysql_num_fields", num_fields, false),
	MY_SYM("mysql_fetch_row", fetch_row, false),
	MY_SYM("mysql_free_result", free_result, false),
	MY_SYM("mysql_close", close, false),
	MY_SYM("mysql_server_end", library_end, true),
};

/* One key=value of spec into s; -EINVAL for an unknown key. */
static int spec_key(struct my_spec *s, const char *key, size_t klen, const char *v,
		    struct strbuf *err)
{
	static const struct {
		const char *key;
		size_t off, len;
	} keys[] = {
		{"socket", offsetof(struct my_spec, socket), sizeof(((struct my_spec *)0)->socket)},
		{"host", offsetof(struct my_spec, host), sizeof(((struct my_spec *)0)->host)},
		{"user", offsetof(struct my_spec, user), sizeof(((struct my_spec *)0)->user)},
		{"password", offsetof(struct my_spec, password),
		 sizeof(((struct my_spec *)0)->password)},
		{"database", offsetof(struct my_spec, database),
		 sizeof(((struct my_spec *)0)->database)},
		{"defaults-file", offsetof(struct my_spec, file),
		 sizeof(((struct my_spec *)0)->file)},
		{"group", offsetof(struct my_spec, group), sizeof(((struct my_spec *)0)->group)},
	};

	if (klen == 4 && !strncmp(key, "port", 4)) {
		char *end;
		unsigned long p = strtoul(v, &end, 10);

		if (end == v || *end || p > 65535) {
			strbuf_addf(err, "--mysql: port=%s is not a port", v);
			return -EINVAL;
		}
		s->port = (unsigned)p;
		return 0;
	}
	for (size_t i = 0; i < DP_ARRAY_SIZE(keys); i++)
		if (strlen(keys[i].key) == klen && !strncmp(keys[i].key, key, klen)) {
			snprintf((char *)s + keys[i].off, keys[i].len, "%s", v);
			return 0;
		}
	strbuf_addf(err,
		    "--mysql: unknown key %.*s (socket, host, port, user, password, database, "
		    "defaults-file, group)",
		    (int)klen, key);
	return -EINVAL;
}

/* "key=value key='v a l u e' ..." into s. */
static int spec_parse(const char *text, struct my_spec *s, struct strbuf *err)
{
	const char *p = text;

	memset(s, 0, sizeof(*s));
	snprintf(s->group, sizeof(s->group), "client");
	while (*p) {
		const char *key, *eq;
		char v[256];
		size_t n = 0;
		int ret;

		p += strspn(p, " \t");
		if (!*p)
			break;
		key = p;
		eq = p + strcspn(p, "= \t");
		if (*eq != '=') {
			strbuf_addf(err, "--mysql: %.*s: key=value expected", (int)(eq - key), key);
			return -EINVAL;
		}
		p = eq + 1;
		if (*p == '\'') {
			for (p++; *p && *p != '\''; p++)
				if (n + 1 < sizeof(v))
					v[n++] = *p;
			if (*p != '\'') {
				strbuf_addf(err, "--mysql: %.*s: an unterminated quote",
					    (int)(eq - key), key);
				return -EINVAL;
			}
			p++;
		} else {
			for (; *p && *p != ' ' && *p != '\t'; p++)
				if (n + 1 < sizeof(v))
					v[n++] = *p;
		}
		v[n] = '\0';
		ret = spec_key(s, key, (size_t)(eq - key), v, err);
		if (ret)
			return ret;
	}
	return 0;
}

static const char *or_null(const char *s)
{
	return *s ? s : NULL;
}

int learn_db_my_connect(const char *spec, struct learn_db_client *c, struct strbuf *err)
{
	unsigned timeout = 10;
	struct my_spec s;
	struct my_conn *m;
	int ret = spec_parse(spec, &s, err);

	if (ret)
		return ret;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	if (learn_db_load("DISKPROOF_LIBMARIADB", "libmariadb.so.3", "libmariadb3", my_syms,
			  DP_ARRAY_SIZE(my_syms), &m->api, &m->api.lib, err)) {
		free(m);
		return -ENOENT;
	}
	if (!(m->mysql = m->api.init(NULL))) {
		strbuf_addstr(err, "MariaDB: mysql_init: out of memory");
		my_close(m);
		return -ENOENT;
	}
	m->api.options(m->mysql, MY_OPT_CONNECT_TIMEOUT, &timeout);
	if (s.file[0])
		m->api.options(m->mysql, MY_READ_DEFAULT_FILE, s.file);
	m->api.options(m->mysql, MY_READ_DEFAULT_GROUP, s.group);
	if (!m->api.real_connect(m->mysql, or_null(s.host), or_null(s.user), or_null(s.password),
				 or_null(s.database), s.port, or_null(s.socket), 0)) {
		strbuf_addf(err, "MariaDB: cannot connect: %s", m->api.error(m->mysql));
		my_close(m);
		return -ECONNREFUSED;
	}
	c->impl = m;
	c->query = my_query;
	c->close = my_close;
	return 0;
}

/* ---- the reading ---- */

static const char *const my_status[] = {"Com_commit",
					"Com_rollback",
					"Handler_commit",
					"Innodb_os_log_written",
					"Innodb_os_log_fsyncs",
					"Innodb_log_writes",
					"Innodb_pages_read",
					"Innodb_pages_written",
					"Innodb_data_fsyncs",
					"Innodb_data_reads",
					"Innodb_data_writes",
					"Innodb_data_read",
					"Innodb_data_written",
					"Innodb_dblwr_pages_written",
					"Innodb_dblwr_writes",
					"Innodb_buffer_pool_reads",
					NULL};

static const char *const my_vars[] = {"innodb_page_size",
				      "innodb_buffer_pool_size",
				      "innodb_flush_log_at_trx_commit",
				      "innodb_doublewrite",
				      "innodb_flush_method",
				      "innodb_log_file_size",
				      "innodb_io_capacity",
				      "innodb_log_file_write_through",
				      "version",
				      NULL};

/* "SHOW GLOBAL what WHERE Variable_name IN ('a', 'b', ...)". */
static void show_sql(char *sql, size_t len, const char *what, const char *const *names)
{
	size_t n = (size_t)snprintf(sql, len, "SHOW GLOBAL %s WHERE Variable_name IN (", what);

	for (size_t i = 0; names[i] && n < len; i++)
		n += (size_t)snprintf(sql + n, len - n, "%s'%s'", i ? ", " : "", names[i]);
	if (n < len)
		snprintf(sql + n, len - n, ")");
}

static bool listed(const char *const *names, const char *name)
{
	for (size_t i = 0; names[i]; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

static void take_status(const struct learn_db_rows *r, struct learn_db_reading *out)
{
	for (size_t i = 0; i < r->nrows && out->nr_counters < LEARN_DB_COUNTERS_MAX; i++) {
		const char *name = learn_db_rows_get(r, i, "name");
		const char *value = learn_db_rows_get(r, i, "value");
		struct learn_db_counter *c;

		if (!name || !value || !listed(my_status, name))
			continue;
		c = &out->c[out->nr_counters++];
		snprintf(c->name, sizeof(c->name), "%s", name);
		c->value = strtod(value, NULL);
	}
	for (size_t i = 0; my_status[i]; i++) {
		size_t n = strlen(out->notes);
		double v = learn_db_counter(out->c, out->nr_counters, my_status[i]);

		if (v != v) /* NAN: this server does not show it */
			snprintf(out->notes + n, sizeof(out->notes) - n, "%s%s", n ? ", " : "",
				 my_status[i]);
	}
}

static void take_vars(const struct learn_db_rows *r, struct learn_db_reading *out)
{
	for (size_t i = 0; i < r->nrows && out->nr_settings < LEARN_DB_SETTINGS_MAX; i++) {
		const char *name = learn_db_rows_get(r, i, "name");
		const char *value = learn_db_rows_get(r, i, "value");
		struct learn_db_setting *s;

		if (!name || !value || !listed(my_vars, name))
			continue;
		s = &out->s[out->nr_settings++];
		snprintf(s->name, sizeof(s->name), "%s", name);
		snprintf(s->value, sizeof(s->value), "%s", value);
		if (!strcmp(name, "innodb_page_size"))
			out->page_size = strtoull(value, NULL, 10);
		else if (!strcmp(name, "innodb_buffer_pool_size"))
			out->buffer_pool = strtoull(value, NULL, 10);
		else if (!strcmp(name, "version"))
			snprintf(out->version, sizeof(out->version), "%s", value);
	}
}

int learn_db_my_read(struct learn_db_client *c, struct learn_db_reading *out, struct strbuf *err)
{
	struct learn_db_rows r;
	char sql[1024];
	int ret;

	show_sql(sql, sizeof(sql), "STATUS", my_status);
	ret = c->query(c->impl, sql, &r, err);
	if (ret)
		return ret;
	take_status(&r, out);
	learn_db_rows_release(&r);
	show_sql(sql, sizeof(sql), "VARIABLES", my_vars);
	ret = c->query(c->impl, sql, &r, err);
	if (ret)
		return ret;
	take_vars(&r, out);
	learn_db_rows_release(&r);
	snprintf(out->scope, sizeof(out->scope), "the whole server (SHOW GLOBAL STATUS)");
	return 0;
}
