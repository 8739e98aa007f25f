/*
 * placeholder.c - {name} placeholders (see placeholder.h).
 */
#include "lib/placeholder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int name_start(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_';
}

static int name_char(char ch)
{
	return name_start(ch) || (ch >= '0' && ch <= '9');
}

/* Length of the name of a placeholder starting at p ('{'), 0 if none. */
static size_t name_len(const char *p)
{
	size_t n = 1;

	if (!name_start(p[1]))
		return 0;
	while (name_char(p[n]))
		n++;
	return p[n] == '}' ? n - 1 : 0;
}

static int put(FILE *f, const char *v, enum placeholder_quote quote)
{
	if (quote == PLACEHOLDER_RAW)
		return fputs(v, f) < 0 ? -1 : 0;
	/* 'it'\''s': every character but ' is literal inside single quotes */
	if (fputc('\'', f) == EOF)
		return -1;
	for (; *v; v++)
		if ((*v == '\'' ? fputs("'\\''", f) : fputc(*v, f)) < 0)
			return -1;
	return fputc('\'', f) == EOF ? -1 : 0;
}

int placeholder_expand(const char *tmpl, placeholder_fn lookup, void *arg,
		       enum placeholder_quote quote, char **out, char *bad, size_t badlen)
{
	size_t size = 0;
	FILE *f = open_memstream(out, &size);
	int rc = 0;

	if (badlen)
		bad[0] = '\0';
	if (!f)
		return -1;
	for (const char *p = tmpl; *p && rc == 0; p++) {
		size_t n;
		const char *v;

		if ((p[0] == '{' && p[1] == '{') || (p[0] == '}' && p[1] == '}')) {
			rc = fputc(*p++, f) == EOF ? -1 : 0;
		} else if (p[0] == '{' && (n = name_len(p)) > 0) {
			if (!(v = lookup(arg, p + 1, n))) {
				if (badlen)
					snprintf(bad, badlen, "%.*s", (int)n, p + 1);
				rc = -1;
			} else {
				rc = put(f, v, quote);
			}
			p += n + 1;
		} else {
			rc = fputc(*p, f) == EOF ? -1 : 0;
		}
	}
	if (fclose(f) != 0)
		rc = -1;
	if (rc < 0) {
		free(*out);
		*out = NULL;
	}
	return rc;
}
