/*
 * test_html.c - lib/html.c: user text escaped for element text and quoted
 * attributes; a failed write is reported.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "lib/html.h"

static void check(const char *in, const char *want)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc = html_escape(f, in);
	fclose(f);
	ok(rc == 0 && strcmp(buf, want) == 0, "escape \"%s\" -> \"%s\" (got \"%s\")", in, want, buf);
	free(buf);
}

int main(void)
{
	check("plain text", "plain text");
	check("<script>alert('x')</script>", "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;");
	check("a & b \"q\"", "a &amp; b &quot;q&quot;");
	check("", "");
	check("µs ≥ 5", "µs ≥ 5");

	FILE *full = fopen("/dev/full", "w");
	if (full) {
		setvbuf(full, NULL, _IONBF, 0);
		ok(html_escape(full, "<x>") == -1, "a failed write is -1");
		fclose(full);
	}
	return done_testing();
}
