/* SPDX-License-Identifier: MIT */
/*
 * parse_internal.h - the parser's state, shared by parse.c (the INI reader,
 * keys and the checks over several keys) and sim_sections.c ([sim NAME] and
 * [sim-log NAME]); nothing outside src/profile/ sees it.
 */
#ifndef DISKPROOF_PARSE_INTERNAL_H
#define DISKPROOF_PARSE_INTERNAL_H

#include <stdarg.h>

#include "profile_internal.h"

enum sec_kind {
	SEC_NONE,   /* before the first header */
	SEC_IGNORE, /* after a bad header: its keys are not checked */
	SEC_GLOBAL, /* [test], [sizing], ...: one instance, keys merge */
	SEC_VOLUME, /* [volume NAME] */
	SEC_SIM,    /* [sim NAME] or [sim-log NAME]: [sim] keys for one device */
};

enum key_state { KEY_UNSET, KEY_OK, KEY_BAD };

struct key_marks {
	unsigned *line;	      /* per table entry: line where set, 0 = unset */
	unsigned char *state; /* enum key_state */
};

struct vol_state {
	struct key_marks marks;
	char *label; /* "[volume NAME]" as written */
};

/*
 * A [sim NAME] or [sim-log NAME] section. Its keys are parsed into val (the
 * [sim] key table's entries, at their offsets within struct profile_sim)
 * and applied over [sim] in profile_sim_sections_finish(), once the whole file
 * is read: the
 * volume and [sim] may come after it.
 */
struct sim_sec {
	char name[PROFILE_MAX_NAME];
	bool log; /* [sim-log NAME] */
	unsigned line;
	char *label; /* "[sim NAME]" as written */
	struct key_marks marks;
	struct profile_sim val;
};

struct perr {
	unsigned line;
	size_t seq;
	char *msg;
};

struct parse_ctx {
	struct profile *p;
	const char *origin;
	const char *text;
	size_t len, pos;
	unsigned lineno;
	const struct profile_key *keys;
	size_t nr_keys;

	enum sec_kind kind;
	const char *section;	/* table name of the current section */
	struct strbuf label;	/* current section as shown in messages */
	size_t vol;		/* current volume index (SEC_VOLUME) */
	struct key_marks marks; /* the global sections' keys */
	struct vol_state *vols; /* parallel to p->volumes */
	struct sim_sec *sims;	/* [sim NAME] and [sim-log NAME], in file order */
	size_t nr_sims, cur_sim;

	struct perr *errs;
	size_t nr_errs, alloc_errs;
	bool oom;
	struct strbuf why; /* scratch for reasons */
};

/* An error at line (0: line 1) of the file, as "FILE:LINE: LABEL KEY: ...";
 * label and key may be NULL. Collected, sorted and written out at the end. */
void profile_parse_error(struct parse_ctx *c, unsigned line, const char *label, const char *key,
			 const char *fmt, ...) DP_PRINTF(5, 6);
/* The key table index of section/name (which must exist). */
size_t profile_parse_key_index(struct parse_ctx *c, const char *section, const char *name);
/* Per-key marks for n table entries: 0 or -ENOMEM; release is safe twice. */
int profile_parse_marks_init(struct key_marks *m, size_t n);
void profile_parse_marks_release(struct key_marks *m);

/* sim_sections.c. Opens "[KIND NAME]" (KIND sim, log false; or sim-log):
 * the keys that follow go to its own model (c->kind = SEC_SIM). */
void profile_sim_section_begin(struct parse_ctx *c, const char *kind, const char *name, bool log);
/* Every volume's data and log models from [sim] and the sections, and the
 * errors the sections make; after finish() filled every log_path. */
void profile_sim_sections_finish(struct parse_ctx *c);
void profile_sim_sections_release(struct parse_ctx *c);

#endif
