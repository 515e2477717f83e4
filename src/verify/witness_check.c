/* SPDX-License-Identifier: MIT */
/*
 * witness_check.c - the durability test's classification (verify.h,
 * verify_witness): every page the witness saw acknowledged, at its newest
 * acknowledgement, read back and judged intact, lost after acknowledgement,
 * torn or corrupt.
 *
 * Torn against corrupt: a page carries one header and one CRC32C over the
 * whole page, and its payload is derived from (seed, database, page,
 * generation) (page.h). A page whose CRC fails is regenerated at the
 * generation its header names and at the ones either side, and compared
 * 512 bytes at a time (the smallest unit a device writes whole): when every
 * sector is one of two adjacent generations' (and both appear) the page is a
 * torn write, else it is corrupt. A page whose header is gone (its first
 * sector not ours) is corrupt: nothing tells what it was.
 *
 * Pages are read with pread through the page cache: verify takes the
 * volumes' locks first (cmd_verify.c), and after a real power cut the cache
 * holds nothing older than the device.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diskproof/cutstate.h"
#include "diskproof/page.h"
#include "diskproof/verify.h"
#include "diskproof/witness.h"

#define SECTOR 512u

const char *verify_ack_class_name(enum verify_ack_class c)
{
	static const char *const names[] = {"intact", "lost after acknowledgement", "torn",
					    "corrupt"};

	return c < VERIFY_ACK_CLASSES ? names[c] : "unknown";
}

static int ack_cmp(const void *a, const void *b)
{
	const struct witness_ack *x = a, *y = b;

	if (x->db != y->db)
		return x->db < y->db ? -1 : 1;
	if (x->page != y->page)
		return x->page < y->page ? -1 : 1;
	if (x->generation != y->generation)
		return x->generation < y->generation ? -1 : 1;
	return (x->time_ns > y->time_ns) - (x->time_ns < y->time_ns);
}

/* Where the pages of one database are read from: its file, or its state. */
struct source {
	int db; /* -1: none open */
	int fd;
	struct cutstate cs;
	void *buf, *gen[3]; /* a page, and the page regenerated at three generations */
};

static int source_open(struct source *s, const struct plan *pl, bool sim, uint32_t db,
		       struct strbuf *err)
{
	struct strbuf path = STRBUF_INIT;
	int ret = 0;

	if (s->db == (int)db)
		return 0;
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	cutstate_release(&s->cs);
	s->db = -1;
	if (db >= pl->nr_dbs) {
		strbuf_addf(err, "the witness names database %u; the profile has %zu", db + 1,
			    pl->nr_dbs);
		return -EINVAL;
	}
	if (sim) {
		cutstate_path(pl->dbs[db].journal, &path);
		ret = cutstate_read(path.buf, &s->cs, err);
		if (ret == -ENOENT)
			strbuf_addstr(err, " (no simulated cut: was the run a durability test with "
					   "[sim] write_cache and cut_at?)");
	} else {
		s->fd = open(pl->dbs[db].path, O_RDONLY | O_CLOEXEC);
		if (s->fd < 0) {
			ret = -errno;
			strbuf_addf(err, "%s: %s", pl->dbs[db].path, strerror(errno));
		}
	}
	strbuf_release(&path);
	if (!ret)
		s->db = (int)db;
	return ret;
}

/* A page whose CRC failed: torn (two adjacent generations' sectors) or
 * corrupt (see the head of the file); *found its header's generation,
 * *newest the newer of the torn page's two. */
static enum verify_ack_class torn_or_corrupt(struct source *s, const struct plan_db *pdb,
					     uint32_t size, uint64_t page, uint64_t *found,
					     uint64_t *newest)
{
	struct page_header h;
	unsigned used[3] = {0};

	memcpy(&h, s->buf, sizeof(h));
	if (h.magic != PAGE_MAGIC || h.page_no != page || h.generation < 1)
		return VERIFY_ACK_CORRUPT;
	*found = h.generation; /* its first sector's */
	for (unsigned k = 0; k < 3; k++)
		page_stamp(s->gen[k], size, PAGE_KIND_DB, pdb->id, page, h.generation + k - 1,
			   h.run_id, h.seed, true);
	for (uint32_t o = 0; o < size; o += SECTOR) {
		unsigned k;

		for (k = 0; k < 3; k++)
			if (!memcmp((char *)s->buf + o, (char *)s->gen[k] + o, SECTOR))
				break;
		if (k == 3)
			return VERIFY_ACK_CORRUPT;
		used[k]++;
	}
	/* the header's own generation and one neighbour, never both neighbours */
	if (used[1] && (!used[0] != !used[2]) && !(used[0] && used[2])) {
		*newest = h.generation + (used[2] ? 1 : 0);
		return VERIFY_ACK_TORN;
	}
	return VERIFY_ACK_CORRUPT;
}

/* Classifies one page at its newest acknowledgement a; *found its header's
 * generation. A torn page whose newer generation is past the acknowledged
 * one was torn by a write still in flight at the cut (not acknowledged):
 * *in_flight, and it is no failure (writes are not atomic: a device may
 * keep part of a write it never acknowledged); one whose newer generation
 * is the acknowledged one or older lost (part of) an acknowledged write. */
static int classify(struct source *s, const struct plan *pl, bool sim, const struct witness_ack *a,
		    uint64_t *found, enum verify_ack_class *cls, bool *in_flight,
		    struct strbuf *err)
{
	const struct plan_db *pdb = &pl->dbs[a->db];
	uint32_t size = pl->page_size;
	uint64_t newest = 0;
	enum page_status st;
	ssize_t n;

	*in_flight = false;
	if (a->page >= pdb->nr_pages) {
		strbuf_addf(err, "the witness names page %llu of %s, which has %llu",
			    (unsigned long long)a->page, pdb->name,
			    (unsigned long long)pdb->nr_pages);
		return -EINVAL;
	}
	if (sim) {
		uint32_t e = a->page < s->cs.nr_pages ? s->cs.pages[a->page] : 0;

		*found = (e & CUTSTATE_GEN_MASK) ? (e & CUTSTATE_GEN_MASK) : 1;
		/* torn: what survived of the block, mixed with a write in flight
		 * at the cut, newer than any acknowledgement */
		*cls = *found >= a->generation ? VERIFY_ACK_INTACT : VERIFY_ACK_LOST;
		if ((e & CUTSTATE_TORN) && *cls == VERIFY_ACK_INTACT) {
			*cls = VERIFY_ACK_TORN;
			*in_flight = true;
		}
		return 0;
	}
	n = pread(s->fd, s->buf, size, (off_t)(pdb->base + a->page * size));
	if (n != (ssize_t)size) {
		strbuf_addf(err, "%s: page %llu: %s", pdb->path, (unsigned long long)a->page,
			    n < 0 ? strerror(errno) : "short read");
		return n < 0 ? -errno : -EIO;
	}
	st = page_verify(s->buf, size, pdb->id, a->page, 0, true, found);
	if (st == PAGE_OK || st == PAGE_NEWER)
		*cls = *found >= a->generation ? VERIFY_ACK_INTACT : VERIFY_ACK_LOST;
	else if (st == PAGE_BAD_CRC) {
		*cls = torn_or_corrupt(s, pdb, size, a->page, found, &newest);
		*in_flight = *cls == VERIFY_ACK_TORN && newest > a->generation;
	} else
		*cls = VERIFY_ACK_CORRUPT;
	return 0;
}

static void note_bad(struct verify_ack_result *r, const struct witness_ack *a, uint64_t found,
		     enum verify_ack_class cls, unsigned max_listed)
{
	if (cls == VERIFY_ACK_LOST && a->time_ns > r->newest_lost_ns)
		r->newest_lost_ns = a->time_ns;
	if (r->nr_bad >= max_listed) {
		r->unlisted++;
		return;
	}
	r->bad[r->nr_bad++] = (struct verify_ack_bad){a->db, a->page,	 a->generation,
						      found, a->time_ns, (uint8_t)cls};
}

static int source_init(struct source *s, uint32_t size)
{
	memset(s, 0, sizeof(*s));
	s->db = -1;
	s->fd = -1;
	for (unsigned k = 0; k < 3; k++)
		s->gen[k] = malloc(size);
	s->buf = malloc(size);
	return s->buf && s->gen[0] && s->gen[1] && s->gen[2] ? 0 : -ENOMEM;
}

static void source_release(struct source *s)
{
	if (s->fd >= 0)
		close(s->fd);
	cutstate_release(&s->cs);
	free(s->buf);
	for (unsigned k = 0; k < 3; k++)
		free(s->gen[k]);
}

int verify_witness(const struct plan *pl, bool sim, const struct witness_log *log,
		   unsigned max_listed, struct verify_ack_result *r, struct strbuf *err)
{
	struct witness_ack *a = NULL;
	struct source s;
	int ret;

	memset(r, 0, sizeof(*r));
	max_listed = max_listed ? max_listed : 20;
	r->acks = log->n;
	r->cut_ns = log->last_ns;
	ret = source_init(&s, pl->page_size);
	r->bad = calloc(max_listed, sizeof(*r->bad));
	if (log->n)
		a = malloc(log->n * sizeof(*a));
	if (ret || !r->bad || (log->n && !a)) {
		strbuf_addstr(err, "verify: out of memory for the witness's pages");
		ret = -ENOMEM;
		goto out;
	}
	memcpy(a, log->acks, log->n * sizeof(*a));
	qsort(a, log->n, sizeof(*a), ack_cmp);
	for (size_t i = 0; i < log->n; i++) {
		uint64_t found = 0;
		enum verify_ack_class cls = VERIFY_ACK_CORRUPT;
		bool in_flight = false;

		if (i + 1 < log->n && a[i + 1].db == a[i].db && a[i + 1].page == a[i].page)
			continue; /* the newest acknowledgement of the page comes later */
		ret = source_open(&s, pl, sim, a[i].db, err);
		if (!ret)
			ret = classify(&s, pl, sim, &a[i], &found, &cls, &in_flight, err);
		if (ret)
			goto out;
		if (sim && s.cs.cut_ns) {
			r->cut_ns = (int64_t)s.cs.cut_ns;
			r->sim_cut = true;
		}
		r->pages++;
		if (in_flight) {
			r->torn_in_flight++;
			continue;
		}
		r->count[cls]++;
		if (cls == VERIFY_ACK_INTACT && found > a[i].generation)
			r->newer++;
		if (cls != VERIFY_ACK_INTACT)
			note_bad(r, &a[i], found, cls, max_listed);
	}
out:
	free(a);
	source_release(&s);
	return ret;
}

void verify_ack_release(struct verify_ack_result *r)
{
	free(r->bad);
	r->bad = NULL;
	r->nr_bad = 0;
}
