/* html.c - see html.h. */
#include "lib/html.h"

int html_escape(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		const char *rep = NULL;
		switch (*s) {
		case '&': rep = "&amp;"; break;
		case '<': rep = "&lt;"; break;
		case '>': rep = "&gt;"; break;
		case '"': rep = "&quot;"; break;
		case '\'': rep = "&#39;"; break;
		}
		if (rep ? fputs(rep, f) < 0 : fputc(*s, f) == EOF)
			return -1;
	}
	return ferror(f) ? -1 : 0;
}
