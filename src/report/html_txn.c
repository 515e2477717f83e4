/* SPDX-License-Identifier: MIT */
/*
 * html_txn.c - the run page's transactions (docs/reports.md#transactions):
 * a table of the run, each volume and each database, with the
 * transactions that ended in the measured time, their rate, the I/Os and
 * log bytes per transaction and the commits per log write (group commit),
 * as results_scope_txn_figures() derives them. Left out for a run that did not
 * count transactions (the fixed model, backup, a file before schema 9).
 */
#include <inttypes.h>
#include <math.h>

#include "html.h"

static void txn_row(struct strbuf *sb, const char *name, const struct scope_summary *sc)
{
	struct results_scope_txn_figures t;

	if (!results_scope_txn_figures(sc, &t))
		return;
	strbuf_addstr(sb, "<tr><td>");
	html_esc(sb, name);
	strbuf_addf(sb, "</td><td class=\"num\">%" PRIu64 "</td>", t.count);
	html_td_num(sb, t.per_second, 1);
	html_td_num(sb, t.db_reads, 2);
	html_td_num(sb, t.db_writes, 2);
	html_td_num(sb, t.log_writes, 2);
	html_td_num(sb, t.log_bytes / 1e3, 1);
	html_td_num(sb, t.commits_per_log_write, 2);
	strbuf_addstr(sb, "</tr>\n");
}

void html_txn_table(struct strbuf *sb, const struct results *r)
{
	if (!r->run.txns_recorded)
		return;
	strbuf_addstr(sb, "<h3>Transactions</h3>\n<table class=\"txns\">\n"
			  "<tr><th rowspan=\"2\">scope</th><th rowspan=\"2\">transactions</th>"
			  "<th rowspan=\"2\">per second</th><th colspan=\"4\">per transaction</th>"
			  "<th rowspan=\"2\">commits per log write</th></tr>\n"
			  "<tr><th class=\"num\">db reads</th><th class=\"num\">db writes</th>"
			  "<th class=\"num\">log writes</th><th class=\"num\">log KB</th></tr>\n");
	txn_row(sb, "total", &r->run);
	for (size_t i = 0; i < r->nr_volumes; i++)
		txn_row(sb, r->volumes[i].name, &r->volumes[i]);
	for (size_t i = 0; i < r->nr_databases; i++)
		txn_row(sb, r->databases[i].name, &r->databases[i]);
	strbuf_addstr(sb, "</table>\n<p class=\"note\">Transactions: units of work of the "
			  "transaction streams that ended in the measured time, seeks included. "
			  "Commits per log write: commit records made durable per log write "
			  "(group commit). KB: 1000 bytes.</p>\n");
}
