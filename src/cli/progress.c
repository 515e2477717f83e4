/*
 * progress.c - the file-creation progress display shared by init and run:
 * on a terminal one line redrawn in place with each volume's bytes, rate and
 * time left; elsewhere a plain line per volume at every tenth and at the end.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static struct create_volume *find_volume(struct create_view *v, const char *name)
{
	for (size_t i = 0; i < v->nvols; i++)
		if (!strcmp(v->vols[i].name, name))
			return &v->vols[i];
	if (v->nvols == DP_ARRAY_SIZE(v->vols))
		return NULL;
	snprintf(v->vols[v->nvols].name, sizeof(v->vols[0].name), "%s", name);
	v->vols[v->nvols].started = time_mono_ns();
	return &v->vols[v->nvols++];
}

static void format_volume(struct strbuf *sb, const struct create_volume *c, uint64_t now)
{
	/* a volume seen for the first time started after now was read */
	double secs = now > c->started ? (double)(now - c->started) / 1e9 : 0;
	double rate = secs > 0 ? (double)c->done / secs : 0;

	strbuf_addf(sb, "%s %llu/%llu MiB", c->name, (unsigned long long)(c->done >> 20),
		    (unsigned long long)(c->total >> 20));
	if (c->done >= c->total) {
		strbuf_addf(sb, " done in %.1f s", secs);
		return;
	}
	if (rate > 0)
		strbuf_addf(sb, " %.0f MB/s, %.0f s left", rate / 1e6,
			    (double)(c->total - c->done) / rate);
}

void create_view_update(struct create_view *v, const char *volume, uint64_t done, uint64_t total)
{
	struct create_volume *c;
	uint64_t now = time_mono_ns();
	struct strbuf sb = STRBUF_INIT;

	if (v->quiet || !(c = find_volume(v, volume)))
		return;
	c->done = done;
	c->total = total;
	if (v->tty) {
		strbuf_addstr(&sb, "\rcreating: ");
		for (size_t i = 0; i < v->nvols; i++) {
			if (i)
				strbuf_addstr(&sb, " | ");
			format_volume(&sb, &v->vols[i], now);
		}
		strbuf_addstr(&sb, "\033[K");
		fputs(sb.buf, stderr);
		v->open_line = true;
	} else if (done >= total || done * 10 / (total ? total : 1) > c->tenth) {
		c->tenth = (unsigned)(done * 10 / (total ? total : 1));
		strbuf_addstr(&sb, "creating: ");
		format_volume(&sb, c, now);
		fprintf(stderr, "%s\n", sb.buf);
	}
	fflush(stderr);
	strbuf_release(&sb);
}

void create_view_end(struct create_view *v)
{
	if (v->open_line)
		fputc('\n', stderr);
	v->open_line = false;
}
