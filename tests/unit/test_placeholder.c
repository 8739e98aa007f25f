/*
 * test_placeholder.c - lib/placeholder.c: {name} replaced, {{ }} literal,
 * other braces kept, unknown names reported, shell quoting.  Table-driven.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "lib/placeholder.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const char *lookup(void *arg, const char *name, size_t len)
{
	static const char *const vals[][2] = {
		{"threads", "4"}, {"n", "1000"}, {"bin", "/opt/b"}, {"evil", "it's; rm -rf $(x)"},
		{"empty", ""},
	};

	(void)arg;
	for (size_t i = 0; i < N(vals); i++)
		if (strlen(vals[i][0]) == len && strncmp(vals[i][0], name, len) == 0)
			return vals[i][1];
	return NULL;
}

struct tcase {
	const char *tmpl;
	enum placeholder_quote q;
	const char *want;	/* NULL: fails */
	const char *bad;	/* the unknown name reported */
};

static const struct tcase cases[] = {
	{"-j{threads}", PLACEHOLDER_RAW, "-j4", ""},
	{"{bin}/work {n} {threads}", PLACEHOLDER_RAW, "/opt/b/work 1000 4", ""},
	{"plain", PLACEHOLDER_RAW, "plain", ""},
	{"", PLACEHOLDER_RAW, "", ""},
	{"{{threads}}", PLACEHOLDER_RAW, "{threads}", ""},
	{"awk '{{print $1}}'", PLACEHOLDER_RAW, "awk '{print $1}'", ""},
	{"{print $1}", PLACEHOLDER_RAW, "{print $1}", ""},	/* not a name: kept */
	{"{ threads}", PLACEHOLDER_RAW, "{ threads}", ""},
	{"{1x}", PLACEHOLDER_RAW, "{1x}", ""},
	{"a}b{", PLACEHOLDER_RAW, "a}b{", ""},
	{"{evil}", PLACEHOLDER_RAW, "it's; rm -rf $(x)", ""},
	{"{empty}", PLACEHOLDER_RAW, "", ""},
	{"-j{thread}", PLACEHOLDER_RAW, NULL, "thread"},
	{"{threads}{nope_2}", PLACEHOLDER_RAW, NULL, "nope_2"},
	{"echo {evil}", PLACEHOLDER_SHELL, "echo 'it'\\''s; rm -rf $(x)'", ""},
	{"echo {threads} {empty}", PLACEHOLDER_SHELL, "echo '4' ''", ""},
	{"echo ${{HOME}}", PLACEHOLDER_SHELL, "echo ${HOME}", ""},
};

int main(void)
{
	for (size_t i = 0; i < N(cases); i++) {
		const struct tcase *c = &cases[i];
		char bad[32] = "x", *out = NULL;
		int rc = placeholder_expand(c->tmpl, lookup, NULL, c->q, &out, bad, sizeof bad);

		if (c->want) {
			ok(rc == 0 && out && strcmp(out, c->want) == 0, "'%s' -> '%s' (got '%s')", c->tmpl,
			   c->want, out ? out : "(null)");
		} else {
			ok(rc == -1 && !out, "'%s' fails", c->tmpl);
		}
		char name[96];
		snprintf(name, sizeof name, "'%s': unknown name", c->tmpl);
		is_str(bad, c->bad, name);
		free(out);
	}
	return done_testing();
}
