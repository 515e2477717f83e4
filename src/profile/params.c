/* SPDX-License-Identifier: MIT */
/*
 * params.c - a profile's effective parameters: every key of the key table
 * with the value the run uses, spelled as a profile would write it, and
 * where that value came from (the file, the key's default, a command-line
 * option, or a rule computing it from other keys).
 *
 * The value is read back from the validated struct profile through the key
 * table (the same offsets parsing writes), so what is listed is what the run
 * used, not what the text said: a duration given by --duration, a
 * database_size sized from mailboxes, maxima made lenient by a long run.
 *
 * A volume's [sim NAME] and [sim-log NAME] sections list the keys they set,
 * under sections "sim" and "sim-log" with the volume's name; every other key
 * of its devices is [sim]'s, listed once.
 *
 * Source: an option bit (profile.options_applied) wins; then a line of the
 * file (key_lines); then the default, when the value is what the key's
 * default text parses to; anything else was computed by a rule: derived.
 */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile_internal.h"

const char *profile_param_source_name(enum profile_param_source s)
{
	static const char *const names[] = {
		[PROFILE_PARAM_PROFILE] = "profile",
		[PROFILE_PARAM_DEFAULT] = "default",
		[PROFILE_PARAM_OPTION] = "option",
		[PROFILE_PARAM_DERIVED] = "derived",
	};

	return (unsigned)s < DP_ARRAY_SIZE(names) ? names[s] : "default";
}

/* A size as the largest binary unit that divides it exactly: "32KiB". */
static void format_size_exact(struct strbuf *sb, uint64_t v)
{
	static const char *const units[] = {"", "KiB", "MiB", "GiB", "TiB"};
	size_t i = 0;

	while (v && i + 1 < DP_ARRAY_SIZE(units) && v % 1024 == 0) {
		v /= 1024;
		i++;
	}
	strbuf_addf(sb, "%llu%s", (unsigned long long)v, units[i]);
}

static uint64_t field_uint(const struct profile_key *k, const void *field)
{
	switch (k->store) {
	case PROFILE_STORE_U64:
		return *(const uint64_t *)field;
	case PROFILE_STORE_U32:
		return *(const uint32_t *)field;
	case PROFILE_STORE_UINT:
		return *(const unsigned *)field;
	default:
		return 0;
	}
}

static uint64_t store_max_of(enum profile_key_store s)
{
	return s == PROFILE_STORE_U64 ? UINT64_MAX : s == PROFILE_STORE_U32 ? UINT32_MAX : UINT_MAX;
}

/*
 * The value of key k held at field as text; false when it has none (an unset
 * string, or an unset optional number: zero with no default).
 */
static bool format_field(const struct profile_key *k, const void *field, struct strbuf *sb)
{
	uint64_t u;
	double d;

	switch (k->type) {
	case PROFILE_KEY_STRING:
		if (k->store == PROFILE_STORE_CHARS) {
			if (!*(const char *)field)
				return false;
			strbuf_addstr(sb, field);
			return true;
		}
		if (!*(char *const *)field)
			return false;
		strbuf_addstr(sb, *(char *const *)field);
		return true;
	case PROFILE_KEY_CHOICE:
		if (k->store == PROFILE_STORE_CHARS) {
			strbuf_addstr(sb, field);
			return true;
		}
		/* an enum field: the index in choices[] */
		u = *(const int *)field;
		for (size_t i = 0; k->choices[i]; i++)
			if (i == u) {
				strbuf_addstr(sb, k->choices[i]);
				return true;
			}
		strbuf_addf(sb, "%llu", (unsigned long long)u);
		return true;
	case PROFILE_KEY_BOOL:
		strbuf_addstr(sb, *(const bool *)field ? "on" : "off");
		return true;
	case PROFILE_KEY_PERCENT:
	case PROFILE_KEY_NUMBER:
		d = *(const double *)field;
		if (d == 0 && !k->def)
			return false;
		strbuf_addf(sb, "%.10g%s", d, k->type == PROFILE_KEY_PERCENT ? "%" : "");
		return true;
	case PROFILE_KEY_DURATION:
	case PROFILE_KEY_SIZE:
	case PROFILE_KEY_U64:
		u = field_uint(k, field);
		if (k->allow_auto && u == store_max_of(k->store)) {
			strbuf_addstr(sb, "auto");
			return true;
		}
		if (u == 0 && !k->def)
			return false;
		if (k->type == PROFILE_KEY_DURATION && !u)
			strbuf_addstr(sb, "0s");
		else if (k->type == PROFILE_KEY_DURATION)
			profile_format_duration_exact(sb, u);
		else if (k->type == PROFILE_KEY_SIZE)
			format_size_exact(sb, u);
		else
			strbuf_addf(sb, "%llu", (unsigned long long)u);
		return true;
	}
	return false;
}

/* The key's default as format_field() spells it (its text parsed and formatted
 * again, so "1GiB" and "1024MiB" compare equal); false when it has none. */
static bool format_default(const struct profile_key *k, struct strbuf *sb)
{
	union {
		struct profile p;
		struct profile_volume v;
	} tmp;
	struct strbuf why = STRBUF_INIT;
	bool ok;

	if (!k->def)
		return false;
	memset(&tmp, 0, sizeof(tmp));
	ok = profile_key_set(k, &tmp, k->def, &why) == 0;
	strbuf_release(&why);
	if (ok)
		ok = format_field(k, (const char *)&tmp + k->offset, sb);
	/* a default string was strdup'ed into the scratch copy */
	if (k->store == PROFILE_STORE_STR)
		free(*(char **)((char *)&tmp + k->offset));
	return ok;
}

/* The option bit that sets key k, 0 for none. */
static unsigned option_bit(const struct profile_key *k)
{
	static const struct {
		const char *section, *name;
		unsigned bit;
	} map[] = {
		{"test", "duration", PROFILE_OPT_DURATION},
		{"test", "warmup", PROFILE_OPT_WARMUP},
		{"sizing", "database_size", PROFILE_OPT_DB_SIZE},
		{"engine", "name", PROFILE_OPT_ENGINE},
		{"engine", "streams", PROFILE_OPT_STREAMS},
		{"test", "repeat", PROFILE_OPT_REPEAT},
		{"volume", "path", PROFILE_OPT_DATA_DIR},
		{"volume", "log_path", PROFILE_OPT_DATA_DIR},
	};

	for (size_t i = 0; i < DP_ARRAY_SIZE(map); i++)
		if (!strcmp(map[i].section, k->section) && !strcmp(map[i].name, k->name))
			return map[i].bit;
	return 0;
}

/* One entry: key k of section (k's own, or a per-volume sim section), its
 * value at field; line: where the file set it (0: not set; UINT_MAX: another
 * section set it, derived). */
static int param_add(struct profile_param *out, const struct profile *p,
		     const struct profile_key *k, const char *section, const void *field,
		     const char *name, unsigned line)
{
	struct strbuf v = STRBUF_INIT, def = STRBUF_INIT;
	bool has = format_field(k, field, &v);

	out->section = section;
	out->name = name;
	out->key = k->name;
	if (p->seeds_derived && !strcmp(k->name, "seed"))
		out->source = PROFILE_PARAM_DERIVED; /* the series' (run --repeat) */
	else if (p->options_applied & option_bit(k))
		out->source = PROFILE_PARAM_OPTION;
	else if (line == UINT_MAX)
		out->source = PROFILE_PARAM_DERIVED;
	else if (line)
		out->source = PROFILE_PARAM_PROFILE;
	else if (!has || (format_default(k, &def) && !strcmp(def.buf, v.buf)))
		out->source = PROFILE_PARAM_DEFAULT;
	else
		out->source = PROFILE_PARAM_DERIVED;
	strbuf_release(&def);
	out->value = has ? strdup(v.buf) : NULL;
	strbuf_release(&v);
	return has && !out->value ? -ENOMEM : 0;
}

/* A [sim] key's field in a volume's model m (k->offset is within struct
 * profile, at its member sim). */
static const void *sim_field(const struct profile_key *k, const struct profile_sim *m)
{
	return (const char *)m + (k->offset - offsetof(struct profile, sim));
}

/*
 * A volume's [sim NAME] and [sim-log NAME] keys: those its sections set (the
 * others are [sim]'s, listed once). A volume sharing a log device whose
 * [sim-log] another volume gave lists that model too, as derived. seed is
 * global only.
 */
static int sim_params(struct profile_param *arr, size_t *at, const struct profile *p,
		      const struct profile_volume *vol, const struct profile_key *keys, size_t nk)
{
	bool log_other = vol->sim_log_from[0] && strcmp(vol->sim_log_from, vol->name);

	for (size_t i = 0; i < nk; i++) {
		const struct profile_key *k = &keys[i];

		if (strcmp(k->section, "sim") || !strcmp(k->name, "seed"))
			continue;
		if (vol->sim_key_lines && vol->sim_key_lines[i] &&
		    param_add(&arr[(*at)++], p, k, "sim", sim_field(k, &vol->sim), vol->name,
			      vol->sim_key_lines[i]))
			return -ENOMEM;
	}
	for (size_t i = 0; vol->sim_log_own && i < nk; i++) {
		const struct profile_key *k = &keys[i];

		if (strcmp(k->section, "sim") || !strcmp(k->name, "seed"))
			continue;
		if (vol->sim_log_key_lines && vol->sim_log_key_lines[i] &&
		    param_add(&arr[(*at)++], p, k, "sim-log", sim_field(k, &vol->sim_log),
			      vol->name, log_other ? UINT_MAX : vol->sim_log_key_lines[i]))
			return -ENOMEM;
	}
	return 0;
}

/* streams left unset mean 2 per database: the count the run uses, derived
 * (listed as "not set", two runs at the same count would differ) */
static int streams_default(const struct profile *p, struct profile_param *arr, size_t n)
{
	char v[32];

	for (size_t i = 0; i < n; i++) {
		if (strcmp(arr[i].section, "engine") || strcmp(arr[i].key, "streams") ||
		    arr[i].value)
			continue;
		snprintf(v, sizeof(v), "%u", profile_streams_default(profile_database_count(p)));
		arr[i].value = strdup(v);
		arr[i].source = PROFILE_PARAM_DERIVED;
		return arr[i].value ? 0 : -ENOMEM;
	}
	return 0;
}

int profile_params(const struct profile *p, struct profile_param **out, size_t *n)
{
	size_t nk, i, v, at = 0, nvol = 0, nsim = 0;
	const struct profile_key *keys = profile_keys(&nk);
	struct profile_param *arr;

	for (i = 0; i < nk; i++) {
		nvol += !strcmp(keys[i].section, "volume");
		nsim += !strcmp(keys[i].section, "sim");
	}
	*out = NULL;
	*n = 0;
	/* a volume lists its own keys, and at most every [sim] key twice */
	arr = calloc((nk - nvol) + (nvol + 2 * nsim) * p->nr_volumes + 1, sizeof(*arr));
	if (!arr)
		return -ENOMEM;
	for (i = 0; i < nk; i++) {
		if (!strcmp(keys[i].section, "volume"))
			continue;
		if (param_add(&arr[at++], p, &keys[i], keys[i].section,
			      (const char *)p + keys[i].offset, "",
			      p->key_lines ? p->key_lines[i] : 0))
			goto out_nomem;
		if (keys[i].listed_when_set && arr[at - 1].source == PROFILE_PARAM_DEFAULT) {
			free(arr[at - 1].value);
			arr[--at] = (struct profile_param){0};
		}
	}
	for (v = 0; v < p->nr_volumes; v++) {
		const struct profile_volume *vol = &p->volumes[v];

		for (i = 0; i < nk; i++) {
			if (strcmp(keys[i].section, "volume"))
				continue;
			if (param_add(&arr[at++], p, &keys[i], "volume",
				      (const char *)vol + keys[i].offset, vol->name,
				      vol->key_lines ? vol->key_lines[i] : 0))
				goto out_nomem;
		}
	}
	for (v = 0; v < p->nr_volumes; v++)
		if (sim_params(arr, &at, p, &p->volumes[v], keys, nk))
			goto out_nomem;
	if (streams_default(p, arr, at))
		goto out_nomem;
	*out = arr;
	*n = at;
	return 0;
out_nomem:
	profile_params_release(arr, at);
	return -ENOMEM;
}

void profile_params_release(struct profile_param *v, size_t n)
{
	if (!v)
		return;
	for (size_t i = 0; i < n; i++)
		free(v[i].value);
	free(v);
}
