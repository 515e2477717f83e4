/*
 * select.c - run selectors (store.h): what a RUN argument of report,
 * compare and delete may be. "N" (a run id), "latest" (the highest id),
 * "latest~N" (the N-th id below it, counting the runs that are there, so a
 * deleted run is skipped) and "label:TEXT" (the highest id whose label is
 * exactly TEXT). Parsing and the id rules are pure (unit-tested); the label
 * lookup asks SQLite, so a label is compared whole, not as the run list's
 * truncated copy.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "store_internal.h"

#define SEL_LATEST "latest"
#define SEL_LABEL "label:"

int store_run_selector_parse(const char *arg, struct store_run_selector *sel, struct strbuf *err)
{
	const char *p;
	char *end;
	long long v;

	memset(sel, 0, sizeof(*sel));
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
		    "run \"%s\": a run is a number, \"latest\", \"latest~N\" (N runs before the "
		    "latest) or \"label:TEXT\"",
		    arg);
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
