/*
 * suggest.h - "did you mean": the closest known word to a misspelt one, for
 * every message that names an unknown key, parameter or probe.
 */
#ifndef SYSMETER_SUGGEST_H
#define SYSMETER_SUGGEST_H

#include <stddef.h>

/* The candidate closest to `word` (case-insensitive edit distance <= 2, <= 1
   for words shorter than 4), else one that `word` is a prefix of (or that is
   a prefix of `word`; 3 letters at least), or NULL. */
const char *suggest_word(const char *word, const char *const *candidates, size_t n);

/* Edit distance (insert, delete, substitute, swap two adjacent letters),
   case-insensitive; anything above cap is reported as cap + 1. */
size_t suggest_distance(const char *a, const char *b, size_t cap);

#endif
