/* SPDX-License-Identifier: MIT */
/*
 * edit_distance.c - Levenshtein distance between two short strings, for the
 * "did you mean ...?" suggestions on unknown profile sections, keys, built-in
 * profile names and engines.
 *
 * The classic dynamic programme over one row: row[j] is the distance between
 * the first i characters of a and the first j of b. Past EDIT_MAX characters
 * the function stays allocation-free by splitting: d(a, b) <= d(a1, b1) +
 * d(a2, b2) for any split a = a1 a2, b = b1 b2, and d(a2, b2) <= max(|a2|, |b2|)
 * (0 when the tails are equal). Exact for the short names it is meant for, an
 * upper bound beyond.
 */
#include <string.h>

#include "diskproof/util.h"

#define EDIT_MAX 128

unsigned util_edit_distance(const char *a, const char *b)
{
	unsigned row[EDIT_MAX + 1];
	size_t la = strlen(a), lb = strlen(b), i, j, extra = 0;

	if (la > EDIT_MAX || lb > EDIT_MAX) {
		size_t ta = la > EDIT_MAX ? la - EDIT_MAX : 0,
		       tb = lb > EDIT_MAX ? lb - EDIT_MAX : 0;

		if (ta != tb || strcmp(a + la - ta, b + lb - tb))
			extra = ta > tb ? ta : tb;
		la -= ta;
		lb -= tb;
	}
	for (j = 0; j <= lb; j++)
		row[j] = (unsigned)j;
	for (i = 1; i <= la; i++) {
		unsigned diag = row[0]; /* distance(a[0..i-1), b[0..j-1)) */

		row[0] = (unsigned)i;
		for (j = 1; j <= lb; j++) {
			unsigned up = row[j], best;

			best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[lb] + (unsigned)extra;
}
