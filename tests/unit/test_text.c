/*
 * test_text.c - lib/text.c: which strings are printable UTF-8 (no control
 * character, no bidirectional control), and how the others are shown.
 */
#include <stdio.h>
#include <string.h>

#include "tap.h"
#include "lib/text.h"

static const struct {
	const char *in;
	int printable;
	const char *escaped;
} cases[] = {
	{"plain host-1.example", 1, "plain host-1.example"},
	{"", 1, ""},
	{"\xc2\xb5s \xe2\x89\xa5 5 \xf0\x9f\x98\x80", 1, "\xc2\xb5s \xe2\x89\xa5 5 \xf0\x9f\x98\x80"},
	{"red\x1b[31mhost", 0, "red\\x1b[31mhost"},
	{"two\nlines\r", 0, "two\\x0alines\\x0d"},
	{"tab\there", 0, "tab\\x09here"},
	{"del\x7f", 0, "del\\x7f"},
	{"cut \xc2", 0, "cut \\xc2"},
	{"overlong \xc0\xaf", 0, "overlong \\xc0\\xaf"},
	{"surrogate \xed\xa0\x80", 0, "surrogate \\xed\\xa0\\x80"},
	/* C1 controls: valid UTF-8, shown as their code point */
	{"csi \xc2\x9b" "31m", 0, "csi \\u009b31m"},
	/* the bidirectional controls: right-to-left override and friends */
	{"gnp\xe2\x80\xae" "exe", 0, "gnp\\u202eexe"},
	{"\xe2\x80\xaa\xe2\x80\xab\xe2\x80\xac\xe2\x80\xad", 0, "\\u202a\\u202b\\u202c\\u202d"},
	{"\xe2\x81\xa6x\xe2\x81\xa7y\xe2\x81\xa8z\xe2\x81\xa9", 0, "\\u2066x\\u2067y\\u2068z\\u2069"},
	{"lrm\xe2\x80\x8e rlm\xe2\x80\x8f", 0, "lrm\\u200e rlm\\u200f"},
	{"alm\xd8\x9c", 0, "alm\\u061c"},
	/* their neighbours are ordinary text */
	{"\xe2\x80\x94 \xe2\x80\xaf \xe2\x81\xa0 \xd8\x9b \xe2\x80\x8d", 1,
	 "\xe2\x80\x94 \xe2\x80\xaf \xe2\x81\xa0 \xd8\x9b \xe2\x80\x8d"},
};

int main(void)
{
	char buf[256];

	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		ok(text_printable_utf8(cases[i].in) == cases[i].printable,
		   "case %zu: printable is %d", i, cases[i].printable);
		text_escape(cases[i].in, buf, sizeof buf);
		is_str(buf, cases[i].escaped, "case: escaped");
		ok(text_printable_utf8(buf), "case %zu: the escaped text is printable", i);
	}
	/* lines kept: newline and tab stay, the rest as text_escape */
	text_escape_lines("a\tb\nc\x1b\xe2\x80\xae", buf, sizeof buf);
	is_str(buf, "a\tb\nc\\x1b\\u202e", "text_escape_lines keeps newline and tab only");
	/* the worst case fits 4 bytes a byte; a short buffer cuts whole escapes */
	{
		const char *worst = "\xe2\x80\xae\x1b\xc2\x9b";
		char exact[4 * 6 + 1], tiny[8];

		text_escape(worst, exact, sizeof exact);
		is_str(exact, "\\u202e\\x1b\\u009b", "4 x strlen + 1 holds the worst case");
		text_escape(worst, tiny, sizeof tiny);
		is_str(tiny, "\\u202e", "a short buffer ends before an escape that does not fit");
	}
	return done_testing();
}
