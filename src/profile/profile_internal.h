/* SPDX-License-Identifier: MIT */
/*
 * profile_internal.h - what the profile module's files share and nobody else
 * needs: setting one key from its text, key lookup, limit formatting.
 */
#ifndef DISKPROOF_PROFILE_INTERNAL_H
#define DISKPROOF_PROFILE_INTERNAL_H

#include "diskproof/profile.h"

#define PROFILE_SIZE_MAX (16ULL << 40) /* 16 TiB: database_size, log_size */
#define PROFILE_DURATION_MIN NSEC_PER_SEC
#define PROFILE_DURATION_MAX (30ULL * 86400 * NSEC_PER_SEC)
#define PROFILE_LENIENT_AFTER (6ULL * 3600 * NSEC_PER_SEC)
#define PROFILE_STRICT_MAX_NS (100 * NSEC_PER_MSEC)
#define PROFILE_LENIENT_MAX_NS (200 * NSEC_PER_MSEC)
#define PROFILE_STRESS_DURATION (24ULL * 3600 * NSEC_PER_SEC)

/* Engines a profile or --engine may name. NULL-terminated. */
extern const char *const profile_engine_names[];

/*
 * Parses value as key k and stores it in base (a struct profile, or a struct
 * profile_volume when k->section is "volume"). Returns 0, or -EINVAL/-ERANGE
 * with a reason (no location) in why. Nothing is stored on error.
 */
int profile_key_set(const struct profile_key *k, void *base, const char *value, struct strbuf *why);

/* The entry for section/name, or NULL. */
const struct profile_key *profile_key_find(const char *section, const char *name);

/* A limit as one exact unit: "30d", "6h", "1s", "100ms", "1us". */
void profile_format_duration_exact(struct strbuf *sb, uint64_t ns);

/* The entry of choices nearest to word (edit distance <= 2, or a prefix of
 * 3+ characters), or NULL. */
const char *profile_suggest(const char *word, const char *const *choices, size_t n);

/*
 * A rule over several keys (rules.c). keys[] are the keys it reads, the one
 * a message names first: a broken rule is reported at the first of them the
 * file sets. option is the command-line option that sets the key (NULL for
 * none): an option that breaks the rule is named. broken() says whether p
 * breaks the rule, with why (no location) in why.
 */
#define PROFILE_RULE_KEYS 5
struct profile_rule_key {
	const char *section, *name, *option;
};
struct profile_rule {
	const char *name;
	struct profile_rule_key keys[PROFILE_RULE_KEYS]; /* unused entries: NULL section */
	bool (*broken)(const struct profile *p, struct strbuf *why);
	/* checked once the options are applied (profile_apply_overrides), not
	 * at parse: an option often sets one of its keys (--duration), and a
	 * file it breaks may be mended by one */
	bool after_options;
};

const struct profile_rule *profile_rules(size_t *count);

/* The longest file name diskproof derives in a volume's directories when its
 * highest database number is last_db. */
size_t profile_derived_name_max(unsigned last_db);

/* 0 when every file diskproof derives in directory path (databases up to
 * db<last_db>) has a usable name: no component over NAME_MAX, no derived
 * path over PATH_MAX - 1 characters. Else -ENAMETOOLONG with why. */
int profile_path_check(const char *path, unsigned last_db, struct strbuf *why);

/* The line where the file set key section/name (a global section's key), 0
 * when it did not or the profile has no lines. */
unsigned profile_key_line(const struct profile *p, const char *section, const char *name);

#endif
