/* SPDX-License-Identifier: MIT */
/*
 * select.c - run selectors (store.h): the one grammar of what a RUN argument
 * of report, compare, fleet and delete may be. "N" (a run id), "latest" (the
 * highest id), "latest~N" (the N-th id below it, counting the runs that are
 * there, so a deleted run is skipped), "N,M,..." (those runs), "N..M" (the
 * runs there between N and M), "series:N" (the runs of the series named by
 * its lowest run id N, run --repeat) and "label:TEXT" (the highest id whose
 * label is exactly TEXT; for fleet every run so labelled, for a side of
 * compare the whole series of that run when it belongs to one). Parsing and
 * the id rules are pure (unit-tested); the label and series lookups ask
 * SQLite, so a label is compared whole, not as the run list's truncated copy.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "store_internal.h"

#define SEL_LATEST "latest"
#define SEL_LABEL "label:"
#define SEL_SERIES "series:"
#define SEL_ID_MAX 1000000000000000000LL

/* A run id at *p ending at a character of stop (or the end): its value
 * and the end, or 0 when it is none (no digit, 0, a sign, too big). */
static int64_t id_at(const char *p, const char *stop, const char **endp)
{
	char *end;
	long long v;

	if (*p < '0' || *p > '9')
		return 0;
	errno = 0;
	v = strtoll(p, &end, 10);
	if (errno || v <= 0 || v > SEL_ID_MAX || (*end && !strchr(stop, *end)))
		return 0;
	*endp = end;
	return v;
}

/* "N,M,..." (two ids or more) or "N..M" (N <= M): 0, or -EINVAL */
static int parse_many(const char *arg, struct store_run_selector *sel)
{
	const char *e;
	int64_t a = id_at(arg, ",.", &e), b;

	if (!a)
		return -EINVAL;
	if (*e == '.') {
		if (e[1] != '.' || !(b = id_at(e + 2, "", &e)) || b < a)
			return -EINVAL;
		sel->kind = STORE_SEL_RANGE;
		sel->lo = a;
		sel->hi = b;
		return 0;
	}
	if (*e != ',')
		return -EINVAL;
	while (*e == ',')
		if (!id_at(e + 1, ",", &e))
			return -EINVAL;
	sel->kind = STORE_SEL_LIST;
	sel->list = arg;
	return 0;
}

/* A did-you-mean for an argument that is not a selector but near one: a
 * misspelt "label:" or "series:", a range written N-M or N...M. */
static void suggest_near(const char *arg, struct strbuf *err)
{
	const char *colon = strchr(arg, ':'), *e;
	int64_t a, b;

	if (colon && colon > arg) {
		static const char *const words[] = {"label", "series", "latest"};
		char word[16];
		size_t n = (size_t)(colon - arg);

		if (n >= sizeof(word))
			return;
		memcpy(word, arg, n);
		word[n] = '\0';
		for (size_t i = 0; i < 3; i++)
			if (strcmp(word, words[i]) && util_edit_distance(word, words[i]) <= 2) {
				strbuf_addf(err, "; did you mean \"%s%s\"?", words[i], colon);
				return;
			}
		return;
	}
	if ((a = id_at(arg, "-.", &e)) && (*e == '-' || !strncmp(e, "...", 3)) &&
	    (b = id_at(e + (*e == '-' ? 1 : 3), "", &e)))
		strbuf_addf(err, "; did you mean \"%lld..%lld\"?", (long long)a, (long long)b);
}

int store_run_selector_parse(const char *arg, struct store_run_selector *sel, struct strbuf *err)
{
	const char *p, *e;
	char *end;
	long long v;

	memset(sel, 0, sizeof(*sel));
	if (!strncmp(arg, SEL_SERIES, strlen(SEL_SERIES))) {
		sel->kind = STORE_SEL_SERIES;
		sel->id = id_at(arg + strlen(SEL_SERIES), "", &e);
		if (!sel->id)
			goto out_bad;
		return 0;
	}
	if (strpbrk(arg, ",.") && *arg >= '0' && *arg <= '9') {
		if (parse_many(arg, sel))
			goto out_bad;
		return 0;
	}
	if (!strncmp(arg, SEL_LABEL, strlen(SEL_LABEL))) {
		sel->kind = STORE_SEL_LABEL;
		sel->label = arg + strlen(SEL_LABEL);
		if (!*sel->label)
			goto out_bad;
		return 0;
	}
	if (!strncmp(arg, SEL_LATEST, strlen(SEL_LATEST))) {
		p = arg + strlen(SEL_LATEST);
		sel->kind = STORE_SEL_LATEST;
		if (!*p)
			return 0;
		if (*p != '~' || p[1] < '0' || p[1] > '9')
			goto out_bad;
		v = strtoll(p + 1, &end, 10);
		if (*end || v < 0 || v > 1000000000)
			goto out_bad;
		sel->back = v;
		return 0;
	}
	if (*arg < '0' || *arg > '9')
		goto out_bad;
	v = strtoll(arg, &end, 10);
	if (*end || v <= 0)
		goto out_bad;
	sel->kind = STORE_SEL_ID;
	sel->id = v;
	return 0;
out_bad:
	strbuf_addf(err,
		    "run \"%s\": a run is a number N, \"latest\", \"latest~N\" (N runs before the "
		    "latest), a list \"N,M,...\", a range \"N..M\", \"series:N\" or "
		    "\"label:TEXT\"",
		    arg);
	suggest_near(arg, err);
	return -EINVAL;
}

int store_run_selector_pick(const struct store_run_selector *sel, const int64_t *ids, size_t n,
			    int64_t *id, struct strbuf *err)
{
	int64_t below = 0, top = 0;

	for (size_t i = 0; i < n; i++)
		if (ids[i] > top)
			top = ids[i];
	if (sel->kind == STORE_SEL_ID) {
		for (size_t i = 0; i < n; i++)
			if (ids[i] == sel->id) {
				*id = sel->id;
				return 0;
			}
		strbuf_addf(err, "no run %lld in this results file", (long long)sel->id);
		return -ENOENT;
	}
	if (!n) {
		strbuf_addstr(err, "no runs in this results file");
		return -ENOENT;
	}
	/* the back-th id below the top: walk down through the ids there */
	for (int64_t cur = top;;) {
		int64_t next = 0;

		if (below == sel->back) {
			*id = cur;
			return 0;
		}
		for (size_t i = 0; i < n; i++)
			if (ids[i] < cur && ids[i] > next)
				next = ids[i];
		if (!next)
			break;
		cur = next;
		below++;
	}
	strbuf_addf(err,
		    "latest~%lld: only %zu run(s) in this results file (latest~%zu is the "
		    "oldest)",
		    (long long)sel->back, n, n - 1);
	return -ENOENT;
}

/* a label "near" text: within a third of its length in edits (at least 2),
 * or holding it, or held by it, ignoring nothing else */
static bool label_near(const char *label, const char *text)
{
	size_t lt = strlen(text);
	unsigned lim = lt / 3 > 2 ? (unsigned)(lt / 3) : 2;

	if (!*label)
		return false;
	return util_edit_distance(label, text) <= lim || strstr(label, text) || strstr(text, label);
}

/* How near label is to text, for the order of suggestions: its edit
 * distance; one holding the other counts as the limit itself. */
static unsigned label_rank(const char *label, const char *text)
{
	size_t lt = strlen(text);
	unsigned lim = lt / 3 > 2 ? (unsigned)(lt / 3) : 2, d = util_edit_distance(label, text);

	return d <= lim ? d : lim;
}

void store_run_label_suggest(const struct store_run_brief *runs, size_t n, const char *text,
			     struct strbuf *err)
{
	size_t shown = 0, labelled = 0;

	strbuf_addf(err, "no run labelled \"%s\" in this results file", text);
	for (size_t i = 0; i < n; i++)
		labelled += runs[i].label[0] != '\0';
	/* nearest first, newest first among equals, each label once */
	for (unsigned rank = 0; rank <= 128 && shown < 5; rank++) {
		for (size_t i = n; i-- > 0 && shown < 5;) {
			bool again = false;

			if (!label_near(runs[i].label, text) ||
			    label_rank(runs[i].label, text) != rank)
				continue;
			for (size_t k = i + 1; k < n && !again; k++)
				again = !strcmp(runs[k].label, runs[i].label);
			if (again)
				continue;
			strbuf_addf(err, "%s\"%s\" (run %lld)", shown ? ", " : "; did you mean ",
				    runs[i].label, (long long)runs[i].id);
			shown++;
		}
	}
	if (shown)
		strbuf_addch(err, '?');
	else if (!labelled)
		strbuf_addstr(err, " (no run here has a label: run --label TEXT sets one)");
	else
		strbuf_addstr(err, " (\"diskproof list\" shows the labels)");
}

static int label_lookup(struct store *s, const char *label, int64_t *id, struct strbuf *err)
{
	sqlite3_stmt *st;
	int ret, rc;

	ret = store_prepare(s, "SELECT max(id) FROM run WHERE label = ?1", &st, 0, err);
	if (ret)
		return ret;
	rc = sqlite3_bind_text(st, 1, label, -1, SQLITE_STATIC);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc != SQLITE_ROW)
		ret = store_fail(s, err, rc, "find a run by its label");
	else if (sqlite3_column_type(st, 0) == SQLITE_NULL)
		ret = -ENOENT;
	else
		*id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return ret;
}

int store_run_select(struct store *s, const char *arg, int64_t *id, struct strbuf *err)
{
	struct store_run_selector sel;
	struct store_run_brief *runs = NULL;
	struct strbuf why = STRBUF_INIT;
	int64_t *ids = NULL;
	size_t n = 0;
	int ret;

	ret = store_run_selector_parse(arg, &sel, err);
	if (ret)
		return ret;
	if (sel.kind == STORE_SEL_LABEL) {
		ret = label_lookup(s, sel.label, id, err);
		if (ret != -ENOENT)
			return ret;
	}
	ret = store_run_list(s, &runs, &n, err);
	if (ret)
		return ret;
	if (sel.kind == STORE_SEL_LABEL) {
		strbuf_addf(err, "%s: ", s->path);
		store_run_label_suggest(runs, n, sel.label, err);
		ret = -ENOENT;
		goto out;
	}
	ids = malloc((n ? n : 1) * sizeof(*ids));
	if (!ids) {
		strbuf_addstr(err, "store: selecting a run: out of memory");
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		ids[i] = runs[i].id;
	ret = store_run_selector_pick(&sel, ids, n, id, &why);
	if (ret)
		strbuf_addf(err, "%s: %s", s->path, why.buf);
out:
	strbuf_release(&why);
	free(ids);
	free(runs);
	return ret;
}

int store_runs_by_label(struct store *s, const char *label, int64_t **ids, size_t *n,
			struct strbuf *err)
{
	struct store_run_brief *runs = NULL;
	sqlite3_stmt *st;
	size_t cap = 0, nr = 0, nruns = 0;
	int64_t *v = NULL, *nv;
	int ret, rc;

	*ids = NULL;
	*n = 0;
	ret = store_prepare(s, "SELECT id FROM run WHERE label = ?1 ORDER BY id", &st, 0, err);
	if (ret)
		return ret;
	rc = sqlite3_bind_text(st, 1, label, -1, SQLITE_STATIC);
	while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (nr == cap) {
			cap = cap ? 2 * cap : 16;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				rc = SQLITE_NOMEM;
				break;
			}
			v = nv;
		}
		v[nr++] = sqlite3_column_int64(st, 0);
		rc = SQLITE_OK;
	}
	if (rc != SQLITE_DONE)
		ret = store_fail(s, err, rc, "find the runs by their label");
	sqlite3_finalize(st);
	if (!ret && !nr) {
		/* the same message, with its suggestions, as a label: of report */
		ret = store_run_list(s, &runs, &nruns, err);
		if (!ret) {
			strbuf_addf(err, "%s: ", s->path);
			store_run_label_suggest(runs, nruns, label, err);
			ret = -ENOENT;
		}
		free(runs);
	}
	if (ret) {
		free(v);
		return ret;
	}
	*ids = v;
	*n = nr;
	return 0;
}

/* ---- a selector's runs (store_runs_select) ---- */

void store_run_set_release(struct store_run_set *set)
{
	if (!set)
		return;
	free(set->ids);
	memset(set, 0, sizeof(*set));
}

static int set_add(struct store_run_set *set, int64_t id, size_t *cap)
{
	int64_t *v;

	for (size_t i = 0; i < set->n; i++)
		if (set->ids[i] == id)
			return 0;
	if (set->n == *cap) {
		*cap = *cap ? 2 * *cap : 8;
		v = realloc(set->ids, *cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		set->ids = v;
	}
	set->ids[set->n++] = id;
	return 0;
}

static int id_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* The ids one SQL query with one integer (or text) parameter returns. */
static int ids_query(struct store *s, const char *sql, int64_t n, const char *text,
		     struct store_run_set *set, size_t *cap, struct strbuf *err)
{
	sqlite3_stmt *st;
	int ret, rc;

	ret = store_prepare(s, sql, &st, 0, err);
	if (ret)
		return ret;
	rc = text ? sqlite3_bind_text(st, 1, text, -1, SQLITE_STATIC)
		  : sqlite3_bind_int64(st, 1, n);
	while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (set_add(set, sqlite3_column_int64(st, 0), cap)) {
			rc = SQLITE_NOMEM;
			break;
		}
		rc = SQLITE_OK;
	}
	if (rc != SQLITE_DONE)
		ret = store_fail(s, err, rc, "select runs");
	sqlite3_finalize(st);
	return ret;
}

/* The runs of the series run id belongs to, by id; none when it is in no
 * series (or is not there). */
#define SQL_SERIES_OF                                                                              \
	"SELECT id FROM run WHERE series_uuid = (SELECT series_uuid FROM run WHERE id = ?1) "      \
	"ORDER BY id"

/* series:N: N must be the lowest run id of a series (its name) */
static int select_series(struct store *s, int64_t n, struct store_run_set *set, size_t *cap,
			 struct strbuf *err)
{
	int ret = ids_query(s, SQL_SERIES_OF, n, NULL, set, cap, err);

	if (ret)
		return ret;
	if (!set->n) {
		strbuf_addf(err,
			    "%s: series:%lld: run %lld is not part of a series (run --repeat N "
			    "makes one; \"diskproof list\" shows them)",
			    s->path, (long long)n, (long long)n);
		return -ENOENT;
	}
	if (set->ids[0] != n) {
		strbuf_addf(err,
			    "%s: series:%lld: a series is named by its lowest run id; run %lld is "
			    "in series:%lld: did you mean \"series:%lld\"?",
			    s->path, (long long)n, (long long)n, (long long)set->ids[0],
			    (long long)set->ids[0]);
		return -ENOENT;
	}
	set->series = n;
	return 0;
}

/* N,M,... and N..M against the ids there */
static int select_ids(struct store *s, const struct store_run_selector *sel,
		      struct store_run_set *set, size_t *cap, struct strbuf *err)
{
	struct store_run_brief *runs = NULL;
	size_t n = 0;
	int ret = store_run_list(s, &runs, &n, err);

	if (ret)
		return ret;
	if (sel->kind == STORE_SEL_RANGE) {
		for (size_t i = 0; i < n && !ret; i++)
			if (runs[i].id >= sel->lo && runs[i].id <= sel->hi)
				ret = set_add(set, runs[i].id, cap);
		if (!ret && !set->n) {
			strbuf_addf(err, "%s: no run from %lld to %lld in this results file",
				    s->path, (long long)sel->lo, (long long)sel->hi);
			ret = -ENOENT;
		}
	} else {
		for (const char *p = sel->list; *p && !ret;) {
			char *e;
			int64_t id = strtoll(p, &e, 10);
			bool there = false;

			for (size_t i = 0; i < n && !there; i++)
				there = runs[i].id == id;
			if (!there) {
				strbuf_addf(err, "%s: no run %lld in this results file", s->path,
					    (long long)id);
				ret = -ENOENT;
				break;
			}
			ret = set_add(set, id, cap);
			p = *e ? e + 1 : e;
		}
	}
	free(runs);
	return ret;
}

int store_runs_select(struct store *s, const char *arg, enum store_label_pick how,
		      struct store_run_set *set, struct strbuf *err)
{
	struct store_run_selector sel;
	size_t cap = 0;
	int64_t id;
	int ret;

	memset(set, 0, sizeof(*set));
	ret = store_run_selector_parse(arg, &sel, err);
	if (ret)
		return ret;
	switch (sel.kind) {
	case STORE_SEL_SERIES:
		ret = select_series(s, sel.id, set, &cap, err);
		break;
	case STORE_SEL_LIST:
	case STORE_SEL_RANGE:
		ret = select_ids(s, &sel, set, &cap, err);
		break;
	case STORE_SEL_LABEL:
		if (how == STORE_LABEL_ALL) {
			ret = store_runs_by_label(s, sel.label, &set->ids, &set->n, err);
			break;
		}
		ret = store_run_select(s, arg, &id, err);
		if (!ret && how == STORE_LABEL_SERIES)
			ret = ids_query(s, SQL_SERIES_OF, id, NULL, set, &cap, err);
		if (!ret && set->n > 1) {
			set->series = set->ids[0];
			set->from_label = true;
		} else if (!ret) {
			set->n = 0;
			ret = set_add(set, id, &cap);
		}
		break;
	default:
		ret = store_run_select(s, arg, &id, err);
		if (!ret)
			ret = set_add(set, id, &cap);
		break;
	}
	if (ret == -ENOMEM)
		strbuf_addstr(err, "store: selecting runs: out of memory");
	if (ret)
		store_run_set_release(set);
	else
		qsort(set->ids, set->n, sizeof(*set->ids), id_cmp);
	return ret;
}
