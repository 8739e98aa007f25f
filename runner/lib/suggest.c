/*
 * suggest.c - "did you mean": the closest known word to a misspelt one
 * (suggest.h).  Used for spec keys, parameter names and probe names.
 */
#include "lib/suggest.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

size_t suggest_distance(const char *a, const char *b, size_t cap)
{
	/* optimal string alignment: Levenshtein plus adjacent transpositions
	   ("medain" is 1 from "median", not 2) */
	size_t la = strlen(a), lb = strlen(b), *m, r;

	if ((la > lb ? la - lb : lb - la) > cap)
		return cap + 1;
	m = malloc((la + 1) * (lb + 1) * sizeof(*m));
	if (!m)
		return cap + 1;
#define M(i, j) m[(i) * (lb + 1) + (j)]
	for (size_t i = 0; i <= la; i++)
		M(i, 0) = i;
	for (size_t j = 0; j <= lb; j++)
		M(0, j) = j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			int ai = tolower((unsigned char)a[i - 1]), bj = tolower((unsigned char)b[j - 1]);
			size_t v = M(i - 1, j - 1) + (ai != bj);
			if (M(i - 1, j) + 1 < v)
				v = M(i - 1, j) + 1;
			if (M(i, j - 1) + 1 < v)
				v = M(i, j - 1) + 1;
			if (i > 1 && j > 1 && ai == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == bj && M(i - 2, j - 2) + 1 < v)
				v = M(i - 2, j - 2) + 1;
			M(i, j) = v;
		}
	r = M(la, lb);
#undef M
	free(m);
	return r;
}

const char *suggest_word(const char *word, const char *const *cand, size_t n)
{
	size_t lw = strlen(word), cap = lw < 4 ? 1 : 2, best = cap + 1;
	const char *bs = NULL;

	if (!lw)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		size_t d = suggest_distance(word, cand[i], cap);
		if (d < best) {
			best = d;
			bs = cand[i];
		}
	}
	if (bs)
		return bs;
	for (size_t i = 0; lw >= 3 && i < n; i++)	/* "rep" -> "repetitions" */
		if (strncasecmp(cand[i], word, lw) == 0)
			return cand[i];
	for (size_t i = 0; i < n; i++) {	/* "iterations_x" -> "iterations" */
		size_t lc = strlen(cand[i]);
		if (lc >= 3 && lc < lw && strncasecmp(word, cand[i], lc) == 0)
			return cand[i];
	}
	return NULL;
}
