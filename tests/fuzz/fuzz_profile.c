/* SPDX-License-Identifier: MIT */
/*
 * fuzz_profile.c - libFuzzer target for the profile parser: any bytes go to
 * profile_parse() as the text of "fuzz.ini"; a profile that parses then gets
 * command-line overrides applied. Nothing may crash, leak or hit undefined
 * behaviour, and the error contract of profile.h must hold: 0 with no
 * message, or -EINVAL with every message starting "fuzz.ini:".
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diskproof/profile.h"

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);   \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

/* Override sets, one picked per input: each path of profile_apply_overrides(). */
static const struct profile_overrides override_sets[] = {
	{.data_dir = "/srv/fuzz"},
	{.data_dir = "/srv/fuzz///", .db_size = 64ULL << 20, .engine = "sim"},
	{.data_dir = "/", .has_duration = true, .duration_ns = 7ULL * 3600 * NSEC_PER_SEC},
	{.data_dir = "d", .has_warmup = true, .warmup_ns = 3ULL * 3600 * NSEC_PER_SEC},
	{.data_dir = "/srv/fuzz", .db_size = 12345, .engine = "io_urin", .streams = 1000000},
	{.data_dir = "", .has_duration = true, .duration_ns = 0},
};

static uint32_t fnv1a(const uint8_t *data, size_t size)
{
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < size; i++)
		h = (h ^ data[i]) * 16777619u;
	return h;
}

/* Every line of err starts with prefix (the summary line of a long list too). */
static void check_lines(const char *err, const char *prefix)
{
	size_t n = strlen(prefix);
	const char *line = err;

	for (;;) {
		CHECK(!strncmp(line, prefix, n));
		line = strchr(line, '\n');
		if (!line)
			break;
		line++;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct profile_overrides *o;
	struct strbuf err = STRBUF_INIT;
	struct profile p;
	int ret;

	ret = profile_parse(&p, "fuzz.ini", (const char *)data, size, &err);
	if (ret) {
		CHECK(ret == -EINVAL);
		CHECK(err.len > 0);
		check_lines(err.buf, "fuzz.ini:");
		CHECK(!p.volumes && !p.name && !p.text);
		goto out;
	}
	CHECK(err.len == 0);
	CHECK(p.nr_volumes >= 1 && p.nr_volumes <= PROFILE_MAX_VOLUMES);
	CHECK(p.name && p.origin && p.text && !strcmp(p.origin, "fuzz.ini"));
	CHECK(!memcmp(p.text, data, size) && p.text[size] == '\0');
	CHECK(p.warmup_ns <= p.duration_ns);
	CHECK(p.page_size && p.database_size % p.page_size == 0);

	o = &override_sets[fnv1a(data, size) % DP_ARRAY_SIZE(override_sets)];
	ret = profile_apply_overrides(&p, o, &err);
	CHECK(ret == 0 || ret == -EINVAL);
	CHECK(ret ? err.len > 0 : err.len == 0);
	if (!ret && o->data_dir)
		CHECK(p.volumes[0].path && p.volumes[0].log_path);
out:
	profile_release(&p);
	profile_release(&p); /* safe twice */
	strbuf_release(&err);
	return 0;
}
