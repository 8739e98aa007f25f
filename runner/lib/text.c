/*
 * text.c - printable UTF-8 checks and escaping (text.h).
 */
#include "lib/text.h"

#include <stdio.h>
#include <string.h>

/* Length of the valid, printable UTF-8 character at s, or 0. */
static size_t char_len(const unsigned char *s)
{
	unsigned c = s[0];
	size_t n;
	unsigned cp;

	if (c < 0x20 || c == 0x7f)
		return 0;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, cp = c & 0x07;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0x80 && cp <= 0x9f))
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
		char esc[5];
		const char *src = (const char *)p;

		if (!n) {
			snprintf(esc, sizeof esc, "\\x%02x", *p);
			src = esc;
			n = 4;
			p++;
		} else {
			p += n;
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
