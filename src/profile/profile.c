/* SPDX-License-Identifier: MIT */
/*
 * profile.c - where a profile comes from and what the command line may change
 * in it: files, built-ins, the PROFILE argument rules, overrides, release.
 * The INI parsing itself is in parse.c, the key table in keys.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profile_internal.h"
#include "../util/rng.h"

#define PROFILE_FILE_MAX (16ULL << 20)

const struct profile_builtin *profile_builtin_find(const char *name)
{
	const struct profile_builtin *b;
	size_t n, i;

	if (!name)
		return NULL;
	b = profile_builtins(&n);
	for (i = 0; i < n; i++)
		if (!strcmp(b[i].name, name))
			return &b[i];
	return NULL;
}

static int read_all(int fd, const char *path, char **out, size_t *len, struct strbuf *err)
{
	struct strbuf sb = STRBUF_INIT;
	ssize_t r;

	for (;;) {
		strbuf_grow(&sb, 65536);
		r = read(fd, sb.buf + sb.len, sb.alloc - sb.len - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			r = -errno;
			strbuf_addf(err, "%s: cannot read profile: %s", path, strerror((int)-r));
			strbuf_release(&sb);
			return (int)r;
		}
		if (r == 0)
			break;
		sb.len += (size_t)r;
		sb.buf[sb.len] = '\0';
		if (sb.len > PROFILE_FILE_MAX) {
			strbuf_addf(err,
				    "%s: the file is over 16 MiB, too large for a profile (is it "
				    "the right file?)",
				    path);
			strbuf_release(&sb);
			return -EFBIG;
		}
	}
	*out = strbuf_detach(&sb, len);
	return 0;
}

int profile_load_file(struct profile *p, const char *path, struct strbuf *err)
{
	struct stat st;
	size_t len = 0;
	char *text = NULL;
	int fd, ret;

	memset(p, 0, sizeof(*p));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		strbuf_addf(err, "%s: cannot read profile: %s", path, strerror(-ret));
		return ret;
	}
	if (fstat(fd, &st)) {
		ret = -errno;
		strbuf_addf(err, "%s: cannot read profile: %s", path, strerror(-ret));
		goto out_close;
	}
	if (S_ISDIR(st.st_mode)) {
		ret = -EISDIR;
		strbuf_addf(err, "%s: cannot read profile: %s", path, strerror(EISDIR));
		goto out_close;
	}
	if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > PROFILE_FILE_MAX) {
		ret = -EFBIG;
		strbuf_addf(err,
			    "%s: the file is %llu bytes, too large for a profile (the most is 16 "
			    "MiB; is it the right file?)",
			    path, (unsigned long long)st.st_size);
		goto out_close;
	}
	ret = read_all(fd, path, &text, &len, err);
	if (ret)
		goto out_close;
	ret = profile_parse(p, path, text, len, err);
	free(text);
out_close:
	close(fd);
	return ret;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

int profile_resolve(struct profile *p, const char *arg, struct strbuf *err)
{
	const struct profile_builtin *b, *all;
	const char *names[64], *sugg;
	struct strbuf origin = STRBUF_INIT;
	size_t n, i;
	int ret;

	memset(p, 0, sizeof(*p));
	if (!arg)
		arg = "quick";
	if (strchr(arg, '/') || ends_with(arg, ".ini") || !access(arg, F_OK))
		return profile_load_file(p, arg, err);
	b = profile_builtin_find(arg);
	if (b) {
		strbuf_addf(&origin, "builtin:%s", b->name);
		ret = profile_parse(p, origin.buf, b->text, strlen(b->text), err);
		strbuf_release(&origin);
		return ret;
	}
	all = profile_builtins(&n);
	for (i = 0; i < n && i < DP_ARRAY_SIZE(names); i++)
		names[i] = all[i].name;
	strbuf_addf(err, "unknown profile \"%s\"", arg);
	sugg = profile_suggest(arg, names, i);
	if (sugg)
		strbuf_addf(err, ": did you mean %s?", sugg);
	strbuf_addstr(err, " (built-in profiles: ");
	for (i = 0; i < n; i++)
		strbuf_addf(err, "%s%s", i ? ", " : "", all[i].name);
	strbuf_addf(err, "; a profile file needs a '/' or the .ini suffix, e.g. ./%s.ini)", arg);
	return -ENOENT;
}

/* A size as the user most likely wrote it: "1000", "64MiB". */
static void size_exact(struct strbuf *sb, uint64_t v)
{
	static const char *const names[] = {"TiB", "GiB", "MiB", "KiB"};
	unsigned i;

	for (i = 0; i < DP_ARRAY_SIZE(names); i++) {
		uint64_t unit = 1ULL << (10 * (4 - i));

		if (v && v % unit == 0) {
			strbuf_addf(sb, "%llu%s", (unsigned long long)(v / unit), names[i]);
			return;
		}
	}
	strbuf_addf(sb, "%llu", (unsigned long long)v);
}

static void err_line(struct strbuf *err)
{
	if (err->len && err->buf[err->len - 1] != '\n')
		strbuf_addch(err, '\n');
}

static int check_overrides(const struct profile *p, const struct profile_overrides *o,
			   struct strbuf *err)
{
	uint64_t duration = o->has_duration ? o->duration_ns : p->duration_ns;
	uint64_t warmup = o->has_warmup ? o->warmup_ns : p->warmup_ns;
	struct strbuf v = STRBUF_INIT, lim = STRBUF_INIT;
	size_t start = err->len;
	const char *s;

	if (o->data_dir && !*o->data_dir)
		strbuf_addstr(err, "--data-dir: empty directory name");
	if (o->db_size) {
		size_exact(&v, o->db_size);
		unit_format_size(&lim, p->page_size);
		if (o->db_size % p->page_size) { /* includes anything under one page */
			err_line(err);
			strbuf_addf(err, "--db-size %s: must be a multiple of the page size (%s)",
				    v.buf, lim.buf);
		} else if (o->db_size > PROFILE_SIZE_MAX) {
			err_line(err);
			strbuf_addf(err, "--db-size %s: too large; the most is 16 TiB", v.buf);
		}
	}
	strbuf_reset(&v);
	profile_format_duration_exact(&v, o->duration_ns);
	if (o->has_duration && o->duration_ns < PROFILE_DURATION_MIN) {
		err_line(err);
		strbuf_addf(err, "--duration %s: too short; the shortest is 1s", v.buf);
	} else if (o->has_duration && o->duration_ns > PROFILE_DURATION_MAX) {
		err_line(err);
		strbuf_addf(err, "--duration %s: too long; the longest is 30d", v.buf);
	}
	strbuf_reset(&v);
	strbuf_reset(&lim);
	profile_format_duration_exact(&v, warmup);
	profile_format_duration_exact(&lim, duration);
	if (warmup > duration) {
		err_line(err);
		if (o->has_warmup)
			strbuf_addf(err, "--warmup %s: longer than the duration (%s)", v.buf,
				    lim.buf);
		else
			strbuf_addf(err,
				    "--duration %s: shorter than the profile's warm-up (%s); give "
				    "--warmup too",
				    lim.buf, v.buf);
	}
	if (o->engine) {
		size_t i, n = 0;

		while (profile_engine_names[n])
			n++;
		for (i = 0; i < n; i++)
			if (!strcmp(o->engine, profile_engine_names[i]))
				break;
		if (i == n) {
			err_line(err);
			strbuf_addf(err, "--engine %s: unknown engine; expected ", o->engine);
			for (size_t k = 0; k < n; k++)
				strbuf_addf(err, "%s%s",
					    k == 0	 ? ""
					    : k + 1 == n ? " or "
							 : ", ",
					    profile_engine_names[k]);
			s = profile_suggest(o->engine, profile_engine_names, n);
			if (s)
				strbuf_addf(err, " (did you mean %s?)", s);
		}
	}
	if (o->streams > PROFILE_STREAMS_MAX && o->streams != PROFILE_STREAMS_AUTO) {
		err_line(err);
		strbuf_addf(err, "--streams %u: too many; the most is %d", o->streams,
			    PROFILE_STREAMS_MAX);
	}
	strbuf_release(&v);
	strbuf_release(&lim);
	return err->len > start ? -EINVAL : 0;
}

/* Moves every volume under dir: v at DIR/v, a separate log at DIR/v-log. */
/*
 * --data-dir DIR: volume v at DIR/v, separate logs at DIR/v-log. Volumes
 * whose logs shared one directory keep sharing one, the first such volume's
 * DIR/v-log, so the layout (and the sim engine's log devices, one per
 * distinct log path) stays the profile's. On out of memory a path is left
 * NULL, which the path checks after the overrides refuse.
 */
static void relocate_volumes(struct profile *p, const char *dir)
{
	char **old = calloc(p->nr_volumes ? p->nr_volumes : 1, sizeof(*old));
	size_t i, j;

	for (i = 0; i < p->nr_volumes; i++) {
		struct profile_volume *v = &p->volumes[i];
		bool separate = v->log_path && v->path && strcmp(v->log_path, v->path);
		char *path = path_join(dir, v->name, "");
		char *log = NULL;

		for (j = 0; separate && old && j < i; j++)
			if (old[j] && !strcmp(old[j], v->log_path) && p->volumes[j].log_path) {
				log = strdup(p->volumes[j].log_path);
				break;
			}
		if (!log)
			log = path_join(dir, v->name, separate ? "-log" : "");
		free(v->path);
		if (old && separate)
			old[i] = v->log_path; /* kept to match later volumes */
		else
			free(v->log_path);
		v->path = path;
		v->log_path = log;
	}
	for (i = 0; old && i < p->nr_volumes; i++)
		free(old[i]);
	free(old);
}

unsigned profile_key_line(const struct profile *p, const char *section, const char *name)
{
	const struct profile_key *k = profile_key_find(section, name), *keys;
	size_t n;

	if (!k || !p->key_lines || !strcmp(section, "volume"))
		return 0;
	keys = profile_keys(&n);
	return p->key_lines[k - keys];
}

/* The value an option was given, as the user would write it; false when it
 * was not given. */
static bool option_value(const struct profile_overrides *o, const char *option, struct strbuf *v)
{
	strbuf_reset(v);
	if (!strcmp(option, "--warmup") && o->has_warmup)
		profile_format_duration_exact(v, o->warmup_ns);
	else if (!strcmp(option, "--duration") && o->has_duration)
		profile_format_duration_exact(v, o->duration_ns);
	else if (!strcmp(option, "--streams") && o->streams == PROFILE_STREAMS_AUTO)
		strbuf_addstr(v, "auto");
	else if (!strcmp(option, "--streams") && o->streams)
		strbuf_addf(v, "%u", o->streams);
	else if (!strcmp(option, "--engine") && o->engine)
		strbuf_addstr(v, o->engine);
	else if (!strcmp(option, "--data-dir") && o->data_dir)
		strbuf_addstr(v, o->data_dir);
	else if (!strcmp(option, "--witness") && o->witness)
		strbuf_addstr(v, o->witness);
	else
		return false;
	return true;
}

/*
 * The rules over several keys, after the options: the profile kept them all
 * (it validated), so a rule broken now was broken by an option, which the
 * message names, with the first of the rule's other keys that the file sets;
 * but for a rule checked only now (after_options), which the file alone may
 * break: that is said at the first of its keys the file sets, as parse does.
 */
static int check_rules_after(const struct profile *p, const struct profile_overrides *o,
			     struct strbuf *err)
{
	struct strbuf why = STRBUF_INIT, v = STRBUF_INIT;
	size_t n, start = err->len;
	const struct profile_rule *rules = profile_rules(&n);

	for (size_t i = 0; i < n; i++) {
		const struct profile_rule *r = &rules[i];
		const struct profile_rule_key *by = NULL, *other = NULL;
		unsigned line = 0;

		strbuf_reset(&why);
		if (!r->broken(p, &why))
			continue;
		for (size_t k = 0; k < PROFILE_RULE_KEYS && r->keys[k].section; k++) {
			const struct profile_rule_key *key = &r->keys[k];

			if (!by && key->option && option_value(o, key->option, &v))
				by = key;
			else if (!other && (line = profile_key_line(p, key->section, key->name)))
				other = key;
		}
		err_line(err);
		if (by) {
			option_value(o, by->option, &v);
			strbuf_addf(err, "%s %s: %s", by->option, v.buf, why.buf);
		} else if (r->after_options && other) {
			/* the file broke it, as parse would say */
			strbuf_addf(err, "%s:%u: [%s] %s: %s",
				    p->origin ? p->origin : "the profile", line, other->section,
				    other->name, why.buf);
			continue;
		} else {
			strbuf_addf(err, "with the options given: %s", why.buf);
		}
		if (other)
			strbuf_addf(err, " ([%s] %s at %s:%u)", other->section, other->name,
				    p->origin ? p->origin : "the profile", line);
	}
	strbuf_release(&why);
	strbuf_release(&v);
	return err->len > start ? -EINVAL : 0;
}

/* --data-dir: every volume's new directories must hold its files. */
static int check_paths_after(const struct profile *p, const struct profile_overrides *o,
			     struct strbuf *err)
{
	struct strbuf why = STRBUF_INIT;
	size_t start = err->len;
	unsigned last = 0;

	for (size_t i = 0; o->data_dir && i < p->nr_volumes; i++) {
		const struct profile_volume *v = &p->volumes[i];

		last += v->databases;
		for (int log = 0; log < 2; log++) {
			const char *path = log ? v->log_path : v->path;

			strbuf_reset(&why);
			if (!path || (log && v->path && !strcmp(path, v->path)) ||
			    !profile_path_check(path, last, &why))
				continue;
			err_line(err);
			strbuf_addf(err, "--data-dir %s: volume %s%s would be at %s: %s",
				    o->data_dir, v->name, log ? "'s logs" : "", path, why.buf);
		}
	}
	strbuf_release(&why);
	return err->len > start ? -EINVAL : 0;
}

int profile_apply_overrides(struct profile *p, const struct profile_overrides *o,
			    struct strbuf *err)
{
	struct profile_thresholds *t = &p->thresholds;
	int ret;

	if (check_overrides(p, o, err))
		return -EINVAL;
	if (o->data_dir) {
		relocate_volumes(p, o->data_dir);
		p->options_applied |= PROFILE_OPT_DATA_DIR;
	}
	if (o->db_size) {
		p->database_size = o->db_size;
		p->options_applied |= PROFILE_OPT_DB_SIZE;
	}
	if (o->has_duration) {
		p->duration_ns = o->duration_ns;
		p->options_applied |= PROFILE_OPT_DURATION;
	}
	if (o->has_warmup) {
		p->warmup_ns = o->warmup_ns;
		p->options_applied |= PROFILE_OPT_WARMUP;
	}
	if (o->engine) {
		memset(p->engine, 0, sizeof(p->engine));
		strncpy(p->engine, o->engine, sizeof(p->engine) - 1);
		p->options_applied |= PROFILE_OPT_ENGINE;
	}
	if (o->streams) {
		p->streams = o->streams;
		p->options_applied |= PROFILE_OPT_STREAMS;
	}
	if (o->repeat) {
		p->repeat = o->repeat;
		p->options_applied |= PROFILE_OPT_REPEAT;
	}
	if (o->witness) {
		char *w = strdup(o->witness);

		if (!w) {
			strbuf_addstr(err, "--witness: out of memory");
			return -ENOMEM;
		}
		free(p->witness);
		p->witness = w;
	}
	/* A new duration may cross 6 h: maxima the profile left to default follow. */
	t->lenient = p->type == PROFILE_TEST_STRESS || p->duration_ns > PROFILE_LENIENT_AFTER;
	if (!t->db_read_max_set)
		t->db_read_max_ns = t->lenient ? PROFILE_LENIENT_MAX_NS : PROFILE_STRICT_MAX_NS;
	if (!t->log_write_max_set)
		t->log_write_max_ns = t->lenient ? PROFILE_LENIENT_MAX_NS : PROFILE_STRICT_MAX_NS;
	ret = check_rules_after(p, o, err);
	if (check_paths_after(p, o, err))
		ret = -EINVAL;
	return ret;
}

unsigned profile_database_count(const struct profile *p)
{
	unsigned n = 0;
	size_t i;

	for (i = 0; i < p->nr_volumes; i++)
		n += p->volumes[i].databases;
	return n;
}

unsigned profile_stream_bound(const struct profile *p, unsigned streams)
{
	uint64_t b;

	if (p->arrival != PROFILE_ARRIVAL_RATE || p->model == PROFILE_MODEL_FIXED ||
	    p->type == PROFILE_TEST_BACKUP || p->streams == PROFILE_STREAMS_AUTO)
		return streams;
	b = p->max_streams ? p->max_streams : 4ULL * streams;
	if (b < streams)
		b = streams;
	return b > PROFILE_STREAMS_MAX ? PROFILE_STREAMS_MAX : (unsigned)b;
}

unsigned profile_streams_default(unsigned databases)
{
	return 2 * databases;
}

uint64_t profile_tune_limit_ns(const struct profile *p)
{
	uint64_t l = p->tune_limit_ns ? p->tune_limit_ns : p->duration_ns / 5;

	if (!p->tune_limit_ns && l > 30ULL * 60 * NSEC_PER_SEC)
		l = 30ULL * 60 * NSEC_PER_SEC;
	return l;
}

unsigned profile_tune_window_samples(const struct profile *p)
{
	uint64_t w = p->tune_window_ns ? p->tune_window_ns : profile_tune_limit_ns(p) / 24;

	if (!p->tune_window_ns && w < 2 * NSEC_PER_SEC)
		w = 2 * NSEC_PER_SEC;
	if (!p->tune_window_ns && w > 30 * NSEC_PER_SEC)
		w = 30 * NSEC_PER_SEC;
	return (unsigned)((w + NSEC_PER_SEC - 1) / NSEC_PER_SEC);
}

unsigned profile_tune_slope_window(const struct profile *p)
{
	unsigned win = profile_tune_window_samples(p);

	if (p->tune_slope_window)
		return p->tune_slope_window;
	return win < 5 ? 5 : win > 30 ? 30 : win;
}

uint64_t profile_tune_level_min_ns(const struct profile *p)
{
	return (uint64_t)(profile_tune_slope_window(p) + profile_tune_window_samples(p)) *
	       NSEC_PER_SEC;
}

void profile_release(struct profile *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->nr_volumes && p->volumes; i++) {
		free(p->volumes[i].path);
		free(p->volumes[i].log_path);
		free(p->volumes[i].key_lines);
		free(p->volumes[i].sim_key_lines);
		free(p->volumes[i].sim_log_key_lines);
	}
	free(p->key_lines);
	free(p->volumes);
	free(p->name);
	free(p->description);
	free(p->witness);
	free(p->fingerprint);
	free(p->origin);
	free(p->text);
	memset(p, 0, sizeof(*p));
}

const char *profile_test_type_name(enum profile_test_type t)
{
	switch (t) {
	case PROFILE_TEST_PERFORMANCE:
		return "performance";
	case PROFILE_TEST_STRESS:
		return "stress";
	case PROFILE_TEST_BACKUP:
		return "backup";
	case PROFILE_TEST_RECOVERY:
		return "recovery";
	case PROFILE_TEST_DURABILITY:
		return "durability";
	}
	return "unknown";
}

const char *profile_model_name(enum profile_model m)
{
	return m == PROFILE_MODEL_FIXED ? "fixed" : "jetstress";
}

/* splitmix64 of base and the index: adjacent indices give unrelated seeds */
static uint64_t seed_of(uint64_t base, unsigned index)
{
	uint64_t x = base + (uint64_t)(index - 1) * RNG_GOLDEN;

	return rng_splitmix_next(&x);
}

void profile_seeds_derive(struct profile *p, uint64_t seed, uint64_t sim_seed, unsigned index)
{
	uint64_t ss = index > 1 ? seed_of(sim_seed, index) : sim_seed;

	p->seeds_derived = index > 1;
	p->seed = index > 1 ? seed_of(seed, index) : seed;
	p->sim.seed = ss;
	for (size_t v = 0; v < p->nr_volumes; v++) {
		p->volumes[v].sim.seed = ss;
		p->volumes[v].sim_log.seed = ss;
	}
}
