/*
 * fuzz_util.h - what the plain-main mode of the tests/fuzz harnesses
 * shares: a seeded xorshift generator, a corpus read from the source tree
 * (with a built-in fallback), byte and token mutations, regression inputs
 * replayed first, and the message checks.  Header-only (static), so each
 * harness stays one .c file that the Makefile's tests/fuzz/%.c rule builds
 * alone.
 *
 * Inputs that once broke something live in tests/fuzz/regress/<target>/;
 * the plain mode replays them before mutating (tests/run-all.sh runs from
 * the project root), and `make fuzz` seeds libFuzzer with them.
 */
#ifndef SYSMETER_FUZZ_UTIL_H
#define SYSMETER_FUZZ_UTIL_H

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* A message a caller will print: non-empty, NUL-terminated within its
   buffer, and free of raw control characters (a terminal would obey them;
   a newline would forge a second "runner:" line).  Tab is allowed. */
static inline int fz_bad_msg(const char *m, size_t cap)
{
	size_t n = strnlen(m, cap);

	if (n == 0 || n == cap)
		return 1;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)m[i];
		if ((c < 0x20 && c != '\t') || c == 0x7f)
			return 1;
	}
	return 0;
}

static inline double fz_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

#ifndef FUZZ_LIBFUZZER
static uint64_t fz_rng = 1;

static inline uint64_t fz_next(void)
{
	fz_rng ^= fz_rng << 13;
	fz_rng ^= fz_rng >> 7;
	fz_rng ^= fz_rng << 17;
	return fz_rng;
}

struct fz_corpus {
	char **text;
	size_t *len;
	size_t n, cap;
};

static inline void fz_add(struct fz_corpus *c, const char *t, size_t n)
{
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 64;
		c->text = realloc(c->text, c->cap * sizeof *c->text);
		c->len = realloc(c->len, c->cap * sizeof *c->len);
		if (!c->text || !c->len)
			abort();
	}
	c->text[c->n] = malloc(n + 1);
	if (!c->text[c->n])
		abort();
	memcpy(c->text[c->n], t, n);
	c->text[c->n][n] = '\0';
	c->len[c->n++] = n;
}

/* Add every regular file under dir whose name ends in suffix ("" = any),
   up to max_size bytes each; a missing dir adds nothing. */
static inline void fz_add_dir(struct fz_corpus *c, const char *dir, const char *suffix,
			      size_t max_size)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char path[4096];
		struct stat st;
		size_t nl = strlen(e->d_name), sl = strlen(suffix);

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		if (stat(path, &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			fz_add_dir(c, path, suffix, max_size);
			continue;
		}
		if (!S_ISREG(st.st_mode) || (size_t)st.st_size > max_size || nl < sl ||
		    strcmp(e->d_name + nl - sl, suffix) != 0)
			continue;
		FILE *f = fopen(path, "rb");
		if (!f)
			continue;
		char *buf = malloc((size_t)st.st_size + 1);
		size_t got = buf ? fread(buf, 1, (size_t)st.st_size, f) : 0;
		fclose(f);
		if (buf)
			fz_add(c, buf, got);
		free(buf);
	}
	closedir(d);
}

static inline void fz_free(struct fz_corpus *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->text[i]);
	free(c->text);
	free(c->len);
}

/*
 * One mutation of a corpus entry into buf (cap bytes, NUL-terminated, the
 * length returned): byte flips, inserts of tokens (the format's
 * punctuation and keywords), deletions, duplicated and spliced spans, and
 * now and then random bytes.  Structure-aware enough to get past the
 * parsers' first checks most of the time.
 */
static inline size_t fz_mutate(const struct fz_corpus *c, const char *const *tokens,
			       size_t ntokens, char *buf, size_t cap)
{
	size_t n;

	if (fz_next() % 16 == 0) {
		n = fz_next() % 64;
		for (size_t i = 0; i < n; i++)
			buf[i] = (char)fz_next();
		buf[n] = '\0';
		return n;
	}
	size_t k = fz_next() % c->n;
	n = c->len[k] < cap - 1 ? c->len[k] : cap - 1;
	memcpy(buf, c->text[k], n);
	for (int m = 1 + (int)(fz_next() % 4); m > 0; m--) {
		size_t at = n ? fz_next() % (n + 1) : 0;
		switch (fz_next() % 6) {
		case 0:					/* flip a byte */
			if (at < n)
				buf[at] = (char)fz_next();
			break;
		case 1: {				/* insert a token */
			const char *t = tokens[fz_next() % ntokens];
			size_t tl = strlen(t);
			if (n + tl < cap - 1) {
				memmove(buf + at + tl, buf + at, n - at);
				memcpy(buf + at, t, tl);
				n += tl;
			}
			break;
		}
		case 2: {				/* delete a span */
			size_t dl = fz_next() % 16;
			if (dl > n - at)
				dl = n - at;
			memmove(buf + at, buf + at + dl, n - at - dl);
			n -= dl;
			break;
		}
		case 3: {				/* duplicate a span */
			size_t dl = fz_next() % 64;
			if (dl > n - at)
				dl = n - at;
			if (n + dl < cap - 1) {
				memmove(buf + at + dl, buf + at, n - at);
				n += dl;
			}
			break;
		}
		case 4: {				/* splice in a piece of another entry */
			size_t o = fz_next() % c->n, ol = c->len[o];
			size_t from = ol ? fz_next() % ol : 0, sl = fz_next() % 80;
			if (sl > ol - from)
				sl = ol - from;
			if (n + sl < cap - 1) {
				memmove(buf + at + sl, buf + at, n - at);
				memcpy(buf + at, c->text[o] + from, sl);
				n += sl;
			}
			break;
		}
		default:				/* cut the tail */
			n = at;
		}
	}
	buf[n] = '\0';
	return n;
}
#endif /* !FUZZ_LIBFUZZER */

#endif
