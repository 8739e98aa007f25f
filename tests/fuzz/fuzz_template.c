/*
 * fuzz_template.c - the report's template engine (template_render) on
 * hostile template text, and its gnuplot escaping on hostile values.
 *
 * 1. A fuzzed template source is rendered against a fixed view (values
 *    with quotes, backquotes, newlines, ESC, a final backslash, lists,
 *    objects, false values) in the format the input picks (none, MD, TEX,
 *    GP, HTML), with partials from a scratch folder (one includes itself,
 *    so the nesting bound is exercised).  Checked: NULL comes with a message
 *    "template 'NAME':..." free of control characters; for GP, an output
 *    has a backquote only if the template source itself had one; for TEX,
 *    no control character but a newline comes out of a source without one;
 *    for HTML, no < or > comes out of a source without one.
 * 2. The input as a value, put in single quotes the way templates/chart.gp
 *    does ('{{v}}' in set title, a plot title): the gnuplot output is
 *    scanned with gnuplot's quoting rules.  Checked (the contract in
 *    template.c's escape_gp): no backquote anywhere, every line ends outside
 *    any string, and every string is closed.
 *
 * Plain mode ($(BUILD)/tests/test_fuzz_template, run by `make test`):
 *     test_fuzz_template [ITERATIONS [SEED]]     (default 30000, 1)
 * mutates the files of templates/, tests/fuzz/regress/template/ and a few
 * built-in templates, and prints one TAP line.  libFuzzer mode
 * (-DFUZZ_LIBFUZZER): the first byte picks the format, the rest is both the
 * template source and the value.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "report/template.h"
#include "fuzz_util.h"

static int fails;
static json_t *view;
static char partial_dir[64];
static const char *dirs[2];

#define FAIL(...) do { printf("# " __VA_ARGS__); printf("\n"); fails++; } while (0)

static const char view_json[] =
	"{\"title\": \"it's `date` \\\"q\\\" $x @m <i>&amp;</i>\\nline two\\\\\","
	" \"n\": 3, \"pi\": 3.25, \"t\": true, \"f\": false, \"z\": null, \"e\": \"\", \"zero\": \"0\","
	" \"esc\": \"\\u001b[31mred\\u0007\\r\", \"utf\": \"\\u00b5s \\u2264 \\u03b1 \\ud83d\\ude00\","
	" \"list\": [\"a'\", \"b`\", \"c\\\\\", \"''\"], \"none\": [],"
	" \"items\": [{\"k\": \"v'\", \"sub\": {\"deep\": \"`x`\"}}, {\"k\": \"w\\\\\", \"sub\": {}}],"
	" \"obj\": {\"a\": \"a|b*c_d #1 &~^{}\", \"list\": [1, 2.5, true, null]}}";

/* Partials a fuzzed {{> name}} may find. */
static void make_partials(void)
{
	static const char *const files[][2] = {
		{"p", "[{{title}}]{{> p}}"},
		{"q", "{{#list}}{{.}}{{^@last}}, {{/@last}}{{/list}}"},
		{"r", "{{=<< >>=}}<<#items>><<k>><</items>>"},
	};

	snprintf(partial_dir, sizeof partial_dir, "/tmp/fuzz_template.%ld", (long)getpid());
	if (mkdir(partial_dir, 0700) < 0)
		return;
	for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
		char path[128];
		snprintf(path, sizeof path, "%s/%s", partial_dir, files[i][0]);
		FILE *f = fopen(path, "w");
		if (f) {
			fputs(files[i][1], f);
			fclose(f);
		}
	}
	dirs[0] = partial_dir;
}

static void remove_partials(void)
{
	const char *names[] = {"p", "q", "r"};
	char path[128];

	for (size_t i = 0; i < 3; i++) {
		snprintf(path, sizeof path, "%s/%s", partial_dir, names[i]);
		unlink(path);
	}
	rmdir(partial_dir);
}

static void setup(void)
{
	json_error_t je;

	view = json_loads(view_json, 0, &je);
	if (!view) {
		printf("# view: %s\n", je.text);
		abort();
	}
	make_partials();
}

static int has_ctl(const char *s, size_t n, int allow_nl)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if ((c < 0x20 || c == 0x7f) && !(allow_nl && c == '\n'))
			return 1;
	}
	return 0;
}

/* Part 1: a fuzzed template. */
static void check_source(const char *src, size_t len, enum template_format f)
{
	char err[512];

	err[0] = '\0';
	char *out = template_render("fuzz", src, view, f, dirs, err, sizeof err);
	if (!out) {
		if (fz_bad_msg(err, sizeof err) || strncmp(err, "template '", 10) != 0)
			FAIL("format %d: NULL with a bad message '%.80s'", (int)f, err);
		return;
	}
	/* only escaped values can be judged: no raw {{{x}}} / {{&x}}, and no
	   delimiter change that could hide one */
	int escaped_only = !memchr(src, '&', len) && !memchr(src, '=', len) && !strstr(src, "{{{");
	if (f == TEMPLATE_GP && escaped_only && !memchr(src, '`', len) && strchr(out, '`'))
		FAIL("gnuplot output has a backquote its template does not have");
	if (f == TEMPLATE_TEX && escaped_only && !has_ctl(src, strlen(src), 1) &&
	    has_ctl(out, strlen(out), 1))
		FAIL("LaTeX output has a control character its template does not have");
	/* an escaped value never opens or closes an HTML tag */
	if (f == TEMPLATE_HTML && escaped_only && !memchr(src, '<', len) && !memchr(src, '>', len) &&
	    (strchr(out, '<') || strchr(out, '>')))
		FAIL("HTML output has a < or > its template does not have");
	free(out);
}

/* Part 2: a fuzzed value inside gnuplot single quotes.  Scan the output as
   gnuplot reads it: '...' (a doubled '' is a quote), "..." (backslash
   escapes), and a backquote outside a string runs a command. */
static void check_gp_value(const char *val, size_t len)
{
	static const char tpl[] = "set title '{{v}}'\nplot x title '{{v}}', x title '{{v}}.'\n";
	json_t *v = json_object();
	char err[512];

	json_object_set_new(v, "v", json_stringn_nocheck(val, len));
	char *out = template_render("gp", tpl, v, TEMPLATE_GP, NULL, err, sizeof err);
	json_decref(v);
	if (!out) {
		FAIL("gnuplot value: render failed: %.80s", err);
		return;
	}
	enum { OUT, SQ, DQ } st = OUT;
	for (const char *p = out; *p; p++) {
		if (*p == '`') {
			FAIL("gnuplot value: a backquote in the output");
			break;
		}
		if (*p == '\n' && st != OUT) {
			FAIL("gnuplot value: a line ends inside a %s-quoted string",
			     st == SQ ? "single" : "double");
			break;
		}
		if (st == OUT && (*p == '\'' || *p == '"'))
			st = *p == '\'' ? SQ : DQ;
		else if (st == SQ && *p == '\'' && p[1] == '\'')
			p++;
		else if (st == SQ && *p == '\'')
			st = OUT;
		else if (st == DQ && *p == '\\' && p[1])
			p++;
		else if (st == DQ && *p == '"')
			st = OUT;
	}
	if (st != OUT)
		FAIL("gnuplot value: the script ends inside a string");
	free(out);
}

/* One input: byte 0 picks the format, the rest is the template and the value. */
static void check(const uint8_t *data, size_t size)
{
	static const enum template_format fmts[] = {TEMPLATE_NONE, TEMPLATE_MD, TEMPLATE_TEX,
						     TEMPLATE_GP, TEMPLATE_HTML};
	enum template_format f = size ? fmts[data[0] % 5] : TEMPLATE_GP;
	char *src = malloc(size + 1);

	if (!src)
		return;
	if (size)
		memcpy(src, data + 1, size - 1);
	src[size ? size - 1 : 0] = '\0';
	check_source(src, size ? size - 1 : 0, f);
	check_gp_value(src, size ? size - 1 : 0);
	free(src);
}

#ifdef FUZZ_LIBFUZZER
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	setup();
	atexit(remove_partials);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check(data, size);
	if (fails)
		abort();
	return 0;
}
#else
static const char *const builtin[] = {
	"{{title}} {{n}} {{pi}} {{{title}}} {{& esc}} {{utf}} {{obj.a}} {{items.0.k}}\n",
	"{{#list}}{{@index}}:{{.}}{{^@last}}, {{/@last}}{{/list}}\n{{^none}}empty{{/none}}\n",
	"{{#items}}{{k}} {{sub.deep}} {{#sub}}{{deep}}{{/sub}}\n{{/items}}{{! c }}\n",
	"{{=<< >>=}}\\section{<<title>>} <<#t>>yes<</t>> <<={{ }}=>>{{n}}\n",
	"{{> q}} {{> r}} {{> p}}\n",
	"set title '{{title}}'\nset xtics ({{#list}}'{{.}}' {{@index}}{{^@last}}, {{/@last}}{{/list}})\n",
	"{{#obj}}{{#list}}{{.}}{{@number}}{{@first}}{{/list}}{{/obj}}{{zero}}{{e}}{{f}}{{z}}\n",
};

static const char *const tokens[] = {
	"{{", "}}", "{{{", "}}}", "{{#", "{{/", "{{^", "{{!", "{{>", "{{&", "{{=", "=}}", "<<", ">>",
	"title", "list", "items", "obj", "sub", "deep", "k", ".", "@index", "@last", "@first",
	"@number", "none", "esc", "n", "p", "q", "r", "../x", "\n", " ", "'", "`", "\"", "\\",
	"\x1b", "\r", "\xff", "\xc3\xa9", "{{#list}}", "{{/list}}", "{{.}}", "{{title}}",
};

int main(int argc, char **argv)
{
	unsigned long iters = argc > 1 ? strtoul(argv[1], NULL, 10) : 30000, done = 0;
	struct fz_corpus corpus = {0}, regress = {0};
	static char buf[16384];
	double t0 = fz_now();

	fz_rng = argc > 2 ? strtoull(argv[2], NULL, 10) | 1 : 1;
	printf("1..1\n");
	setup();
	fz_add_dir(&corpus, "templates", "", sizeof buf - 2);
	fz_add_dir(&regress, "tests/fuzz/regress/template", "", 1 << 20);
	size_t from_tree = corpus.n;
	for (size_t i = 0; i < sizeof builtin / sizeof *builtin; i++)
		fz_add(&corpus, builtin[i], strlen(builtin[i]));
	for (size_t i = 0; i < regress.n; i++)
		check((const uint8_t *)regress.text[i], regress.len[i]);
	for (size_t i = 0; i < corpus.n; i++)
		for (int f = 0; f < 4; f++) {
			buf[0] = (char)f;
			memcpy(buf + 1, corpus.text[i], corpus.len[i]);
			check((const uint8_t *)buf, corpus.len[i] + 1);
		}
	for (; done < iters && fails < 10; done++) {
		buf[0] = (char)fz_next();
		size_t n = fz_mutate(&corpus, tokens, sizeof tokens / sizeof *tokens, buf + 1,
				     sizeof buf - 1);
		check((const uint8_t *)buf, n + 1);
	}
	printf("%s 1 - fuzz_template: %zu seeds (%zu from the tree), %zu regression inputs, "
	       "%lu mutated templates rendered and values escaped (%.1f s)\n",
	       fails ? "not ok" : "ok", corpus.n, from_tree, regress.n, done, fz_now() - t0);
	fz_free(&corpus);
	fz_free(&regress);
	remove_partials();
	json_decref(view);
	return fails ? 1 : 0;
}
#endif
