/*
 * test_template.c - the report placeholder engine: rendering, escaping per
 * output format, and the exact error messages (template:line: what).
 */
#include "tap.h"
#include "report/template.h"

#include <stdlib.h>
#include <unistd.h>

static const char *view_json =
	"{\"title\": \"RAM & cache\", \"n\": 3, \"r\": 1.5, \"yes\": true, \"no\": false,"
	" \"nil\": null, \"empty\": \"\", \"none\": [],"
	" \"m\": {\"cpu\": \"x86\", \"inner\": {\"deep\": \"d\"}},"
	" \"pts\": [{\"v\": \"a\"}, {\"v\": \"b\"}, {\"v\": \"c\"}],"
	" \"words\": [\"x\", \"y\"],"
	" \"tex\": \"\\\\ { } $ & # ^ _ % ~ < > |\","
	" \"md\": \"a|b *c* _d_ `e` [f] <g>\","
	" \"html\": \"<script>alert('x')</script> & \\\"q\\\"\","
	" \"gp\": \"it's `touch /tmp/x` \\nsystem(\\\"y\\\")\"}";

struct render_case {
	const char *name, *tmpl;
	enum template_format fmt;
	const char *want;	/* NULL: an error is expected */
	const char *want_err;
};

static const struct render_case cases[] = {
	{"text only", "hello\n", TEMPLATE_NONE, "hello\n", NULL},
	{"empty template", "", TEMPLATE_NONE, "", NULL},
	{"variable", "<{{title}}>", TEMPLATE_NONE, "<RAM & cache>", NULL},
	{"spaces inside tag", "{{ title }}", TEMPLATE_NONE, "RAM & cache", NULL},
	{"integer and real", "{{n}} {{r}}", TEMPLATE_NONE, "3 1.5", NULL},
	{"booleans and null", "{{yes}} {{no}} [{{nil}}]", TEMPLATE_NONE, "true false []", NULL},
	{"dotted name", "{{m.cpu}} {{m.inner.deep}}", TEMPLATE_NONE, "x86 d", NULL},
	{"escaped for tex", "{{title}}", TEMPLATE_TEX, "RAM \\& cache", NULL},
	{"triple is raw", "{{{title}}}", TEMPLATE_TEX, "RAM & cache", NULL},
	{"ampersand is raw", "{{& title}}", TEMPLATE_TEX, "RAM & cache", NULL},
	{"section over array", "{{#pts}}[{{v}}]{{/pts}}", TEMPLATE_NONE, "[a][b][c]", NULL},
	{"dot is the element", "{{#words}}{{.}};{{/words}}", TEMPLATE_NONE, "x;y;", NULL},
	{"@index @number", "{{#words}}{{@index}}{{@number}} {{/words}}", TEMPLATE_NONE, "01 12 ", NULL},
	{"@first @last as separators", "{{#pts}}{{^@first}}, {{/@first}}{{v}}{{#@last}}.{{/@last}}{{/pts}}",
	 TEMPLATE_NONE, "a, b, c.", NULL},
	{"section over object", "{{#m}}{{cpu}}/{{title}}{{/m}}", TEMPLATE_NONE, "x86/RAM & cache", NULL},
	{"section over truthy scalar", "{{#title}}<{{.}}>{{/title}}", TEMPLATE_NONE, "<RAM & cache>", NULL},
	{"falsy values skip a section", "{{#no}}1{{/no}}{{#nil}}2{{/nil}}{{#empty}}3{{/empty}}"
	 "{{#none}}4{{/none}}{{#missing}}5{{/missing}}.", TEMPLATE_NONE, ".", NULL},
	{"inverted section", "{{^no}}1{{/no}}{{^nil}}2{{/nil}}{{^empty}}3{{/empty}}"
	 "{{^none}}4{{/none}}{{^missing}}5{{/missing}}{{^yes}}6{{/yes}}", TEMPLATE_NONE, "12345", NULL},
	{"zero is truthy", "{{#n}}n{{/n}}", TEMPLATE_NONE, "n", NULL},
	{"outer names visible in a section", "{{#pts}}{{title}}{{/pts}}", TEMPLATE_NONE,
	 "RAM & cacheRAM & cacheRAM & cache", NULL},
	{"comment", "a{{! ignored }}b", TEMPLATE_NONE, "ab", NULL},
	{"standalone tags take their line", "x\n{{#words}}\n- {{.}}\n{{/words}}\n  {{! c }}\ny\n",
	 TEMPLATE_NONE, "x\n- x\n- y\ny\n", NULL},
	{"inline section keeps the line", "a {{#yes}}b{{/yes}}\n", TEMPLATE_NONE, "a b\n", NULL},
	{"standalone at end of file", "a\n{{#yes}}\nb\n{{/yes}}", TEMPLATE_NONE, "a\nb\n", NULL},
	{"crlf standalone", "a\r\n{{#yes}}\r\nb\r\n{{/yes}}\r\n", TEMPLATE_NONE, "a\r\nb\r\n", NULL},
	{"delimiter change", "{{=<< >>=}}\n\\section{<<title>>} {{x}}", TEMPLATE_TEX,
	 "\\section{RAM \\& cache} {{x}}", NULL},
	{"delimiter change and triple", "{{=<% %>=}}<%{title}%> <%& title%>", TEMPLATE_TEX,
	 "RAM & cache RAM & cache", NULL},
	{"tex escaping", "{{tex}}", TEMPLATE_TEX,
	 "\\textbackslash{} \\{ \\} \\$ \\& \\# \\textasciicircum{} \\_ \\% \\textasciitilde{} "
	 "\\textless{} \\textgreater{} \\textbar{}", NULL},
	{"md escaping", "{{md}}", TEMPLATE_MD, "a\\|b \\*c\\* \\_d\\_ \\`e\\` \\[f\\] \\<g\\>", NULL},
	/* a quote (or backquote) closes the string and comes back as "'" */
	{"gp escaping", "'{{gp}}'", TEMPLATE_GP,
	 "'it'.\"'\".'s '.\"'\".'touch /tmp/x'.\"'\".'  system(\"y\")'", NULL},
	{"none is verbatim", "{{md}}", TEMPLATE_NONE, "a|b *c* _d_ `e` [f] <g>", NULL},
	/* text and a quoted attribute alike: a title cannot open a tag */
	{"html escaping", "<p title=\"{{html}}\">{{html}}</p>", TEMPLATE_HTML,
	 "<p title=\"&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;\">"
	 "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;</p>", NULL},
	{"html triple is raw", "{{{html}}}", TEMPLATE_HTML, "<script>alert('x')</script> & \"q\"", NULL},

	/* errors: template:line: what */
	{"unclosed section", "a\n\n{{#pts}}\nx\n", TEMPLATE_NONE, NULL,
	 "template 't':3: unclosed section 'pts'"},
	{"unclosed inverted section", "{{^pts}}x", TEMPLATE_NONE, NULL,
	 "template 't':1: unclosed inverted section 'pts'"},
	{"mismatched close", "{{#a}}\n{{#b}}\n{{/a}}\n", TEMPLATE_NONE, NULL,
	 "template 't':3: 'a' closed but section 'b' (line 2) is open"},
	{"stray close", "x\n{{/a}}", TEMPLATE_NONE, NULL,
	 "template 't':2: 'a' closed but no section is open"},
	{"unclosed tag", "x\ny {{title\n", TEMPLATE_NONE, NULL, "template 't':2: unclosed tag '{{'"},
	{"unclosed triple", "{{{title}}", TEMPLATE_NONE, NULL, "template 't':1: unclosed tag '{{'"},
	{"empty tag", "{{ }}", TEMPLATE_NONE, NULL, "template 't':1: empty tag"},
	{"bad name", "\n{{a b}}", TEMPLATE_NONE, NULL, "template 't':2: bad name 'a b'"},
	{"unknown name", "\n\n{{tittle}}", TEMPLATE_NONE, NULL, "template 't':3: unknown name 'tittle'"},
	{"unknown dotted name", "{{m.gpu}}", TEMPLATE_NONE, NULL, "template 't':1: unknown name 'm.gpu'"},
	{"list as value", "{{pts}}", TEMPLATE_NONE, NULL,
	 "template 't':1: 'pts' is a list, not a value (use a section)"},
	{"object as value", "{{m}}", TEMPLATE_NONE, NULL,
	 "template 't':1: 'm' is an object, not a value (use a section)"},
	{"bad delimiters", "{{=<<=}}", TEMPLATE_NONE, NULL,
	 "template 't':1: bad delimiter change '<<' (want like {{=<< >>=}})"},
	{"partial with a path", "{{> ../etc/passwd}}", TEMPLATE_NONE, NULL,
	 "template 't':1: bad partial name '../etc/passwd' (a file name in the templates folder)"},
};

int main(void)
{
	json_error_t jerr;
	json_t *view = json_loads(view_json, 0, &jerr);
	char err[512], dir[] = "/tmp/test_template.XXXXXX", path[600];
	const char *dirs[2] = { NULL, NULL };
	size_t i;
	char *out;
	FILE *f;

	ok(view != NULL, "view model parses (%s)", view ? "" : jerr.text);
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct render_case *c = &cases[i];

		err[0] = '\0';
		out = template_render("t", c->tmpl, view, c->fmt, NULL, err, sizeof err);
		if (c->want) {
			if (!out)
				printf("# error: %s\n", err);
			is_str(out, c->want, c->name);
		} else {
			ok(out == NULL, "%s: fails", c->name);
			is_str(err, c->want_err, c->name);
		}
		free(out);
	}

	/* partials: looked up in the dirs, in order; errors name the partial */
	ok(mkdtemp(dir) != NULL, "temp dir");
	dirs[0] = dir;
	snprintf(path, sizeof path, "%s/row.md", dir);
	f = fopen(path, "w");
	fputs("| {{v}} |\n", f);
	fclose(f);
	snprintf(path, sizeof path, "%s/broken", dir);
	f = fopen(path, "w");
	fputs("ok\n{{#v}}\n", f);
	fclose(f);
	snprintf(path, sizeof path, "%s/self", dir);
	f = fopen(path, "w");
	fputs("{{> self}}", f);
	fclose(f);
	snprintf(path, sizeof path, "%s/main", dir);
	f = fopen(path, "w");
	fputs("# {{title}}\n{{#pts}}\n{{> row.md}}\n{{/pts}}\n", f);
	fclose(f);

	out = template_render("t", "{{#pts}}\n{{> row.md}}\n{{/pts}}\n", view, TEMPLATE_MD, dirs, err, sizeof err);
	is_str(out, "| a |\n| b |\n| c |\n", "partial inside a section");
	free(out);
	out = template_render_file("main", view, TEMPLATE_MD, dirs, err, sizeof err);
	is_str(out, "# RAM & cache\n| a |\n| b |\n| c |\n", "template_render_file with partial");
	free(out);
	out = template_render("t", "x\n{{> nothere}}", view, TEMPLATE_MD, dirs, err, sizeof err);
	ok(out == NULL, "missing partial fails");
	snprintf(path, sizeof path, "template 't':2: partial 'nothere': cannot read %s/nothere: No such file or directory", dir);
	is_str(err, path, "missing partial message");
	out = template_render("t", "{{> broken}}", view, TEMPLATE_MD, dirs, err, sizeof err);
	ok(out == NULL, "broken partial fails");
	is_str(err, "template 'broken':2: unclosed section 'v'", "broken partial names itself and its line");
	out = template_render("t", "{{> self}}", view, TEMPLATE_MD, dirs, err, sizeof err);
	ok(out == NULL, "recursive partial fails");
	is_str(err, "template 'self':1: partial 'self' nested too deep (recursive?)", "recursive partial message");
	out = template_render_file("absent", view, TEMPLATE_MD, dirs, err, sizeof err);
	ok(out == NULL, "missing template fails");
	snprintf(path, sizeof path, "template 'absent': cannot read %s/absent: No such file or directory", dir);
	is_str(err, path, "missing template message");

	/* template_escape directly, and UTF-8 in TeX */
	out = template_escape("5 µs × 2 → ≈ 10 µs; café; \xe2\x98\x83; \xff", TEMPLATE_TEX);
	is_str(out, "5 \\textmu{}s \\texttimes{} 2 \\ensuremath{\\rightarrow} \\ensuremath{\\approx} 10 \\textmu{}s; café; ?; ?",
	       "tex: known symbols mapped, Latin-1 kept, the rest '?'");
	free(out);
	out = template_escape("\xc4\xa6\xc3\xa9\xc5\x81", TEMPLATE_TEX);
	is_str(out, "?\xc3\xa9\xc5\x81", "tex: a Latin letter pdflatex lacks (U+0126) becomes '?'");
	free(out);
	out = template_escape("--set a--b -x", TEMPLATE_TEX);
	is_str(out, "-{}-set a-{}-b -x", "tex: -- stays two hyphens");
	free(out);
	out = template_escape("para one\nline\n\npara two", TEMPLATE_TEX);
	is_str(out, "para one\nline\n\npara two", "tex: blank lines stay paragraphs");
	free(out);
	out = template_escape("C:\\dir\\", TEMPLATE_GP);
	is_str(out, "C:\\dir\\ ", "gp: a final backslash cannot continue a comment line");
	free(out);
	out = template_escape(NULL, TEMPLATE_MD);
	is_str(out, "", "NULL escapes to empty");
	free(out);

	for (i = 0; i < 4; i++) {
		const char *names[] = { "row.md", "broken", "self", "main" };

		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		unlink(path);
	}
	rmdir(dir);
	json_decref(view);
	return done_testing();
}
