/*
 * text.c - printable UTF-8 checks and escaping (text.h).
 */
#include "lib/text.h"

#include <stdio.h>
#include <string.h>

/* The invisible characters that reorder the text around them (Unicode's
   bidirectional controls): a U+202E in a host name shows "gnp.exe" as
   "exe.png" on a terminal or page.  They are valid UTF-8, but not text a
   name or a message may hold. */
static int is_bidi_control(unsigned cp)
{
	return (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) ||
	       cp == 0x200e || cp == 0x200f || cp == 0x061c;
}

/* Length of the valid UTF-8 character at s (0 when invalid), its code
   point in *cp. */
static size_t decode(const unsigned char *s, unsigned *cp)
{
	unsigned c = s[0];
	size_t n;

	*cp = c;
	if (c < 0x80)
		return c ? 1 : 0;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, *cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, *cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, *cp = c & 0x07;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		*cp = *cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && *cp < 0x800) || (n == 4 && (*cp < 0x10000 || *cp > 0x10ffff)) ||
	    (*cp >= 0xd800 && *cp <= 0xdfff))
		return 0;
	return n;
}

/* Length of the valid, printable UTF-8 character at s, or 0. */
static size_t char_len(const unsigned char *s)
{
	unsigned cp;
	size_t n = decode(s, &cp);

	if (!n || cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f) || is_bidi_control(cp))
		return 0;
	return n;
}

int text_printable_utf8(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t n = char_len(p);
		if (!n)
			return 0;
		p += n;
	}
	return 1;
}

static void escape(const char *s, char *buf, size_t len, int keep_lines)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0;

	if (!len)
		return;
	while (*p) {
		size_t n = keep_lines && (*p == '\n' || *p == '\t') ? 1 : char_len(p);
		char esc[8];
		const char *src = (const char *)p;
		unsigned cp;
		size_t whole;

		if (n) {
			p += n;
		} else if ((whole = decode(p, &cp)) > 1) {
			/* a valid character that is not printable (a C1 control,
			   a bidi control): its code point, as C and JSON write it */
			snprintf(esc, sizeof esc, "\\u%04x", cp);
			src = esc;
			n = strlen(esc);
			p += whole;
		} else {
			snprintf(esc, sizeof esc, "\\x%02x", *p);
			src = esc;
			n = 4;
			p++;
		}
		if (o + n >= len)
			break;
		memcpy(buf + o, src, n);
		o += n;
	}
	buf[o] = '\0';
}

void text_escape(const char *s, char *buf, size_t len)
{
	escape(s, buf, len, 0);
}

void text_escape_lines(const char *s, char *buf, size_t len)
{
	escape(s, buf, len, 1);
}

int text_host_name_ok(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (n == 0 || n > 64 || s[0] == '.' || s[0] == '-')
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '.' || s[i] == '_' || s[i] == '-'))
			return 0;
	return 1;
}
