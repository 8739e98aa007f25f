/*
 * report_markdown.c - a spec's Markdown text (a description, a discussion)
 * as LaTeX, as HTML and as clean Markdown for the reports
 * (report_markdown.h), with libcmark (CommonMark), not by hand.
 *
 * Safety: the text is the user's, and the LaTeX is compiled.  cmark's
 * LaTeX renderer escapes every special character of ordinary text, code
 * spans and link targets; what it passes through unescaped is raw HTML
 * (made plain text here, so it is escaped like any text) and the inside of
 * a code block, which goes into a verbatim environment: a line holding
 * "\end{verbatim}" would close it early, so that string gets a space
 * ("\end {verbatim}", which verbatim does not end on).
 *
 * The HTML is put in report.html raw: cmark's HTML renderer escapes text,
 * code and attribute values, raw HTML is text by then, and CMARK_OPT_SAFE
 * drops javascript:, vbscript:, file: and data: link targets, so a
 * "<script>" in a description shows as text and runs nothing.
 */
#include "report/report_markdown.h"

#include <cmark.h>
#include <stdlib.h>
#include <string.h>

/* HTML nodes become text; for LaTeX, code blocks lose their way out of
   verbatim. */
static void defuse(cmark_node *doc, int latex)
{
	cmark_iter *it = cmark_iter_new(doc);
	cmark_node **todo = NULL;
	size_t n = 0, cap = 0;
	cmark_event_type ev;

	while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
		cmark_node *x = cmark_iter_get_node(it);
		cmark_node_type t = cmark_node_get_type(x);

		if (ev != CMARK_EVENT_ENTER)
			continue;
		if (t == CMARK_NODE_HTML_INLINE || t == CMARK_NODE_HTML_BLOCK) {
			if (n == cap) {
				cmark_node **m = realloc(todo, (cap = cap ? 2 * cap : 8) * sizeof *m);
				if (!m)
					break;
				todo = m;
			}
			todo[n++] = x;
		} else if (latex && t == CMARK_NODE_CODE_BLOCK) {
			const char *lit = cmark_node_get_literal(x);
			const char *bad = "\\end{verbatim}";

			if (lit && strstr(lit, bad)) {
				size_t len = strlen(lit), cnt = 0;
				for (const char *p = strstr(lit, bad); p; p = strstr(p + 1, bad))
					cnt++;
				char *fixed = malloc(len + cnt + 1), *o = fixed;
				if (fixed) {
					for (const char *p = lit; *p;) {
						if (strncmp(p, bad, strlen(bad)) == 0) {
							memcpy(o, "\\end {verbatim}", 15);
							o += 15;
							p += strlen(bad);
						} else {
							*o++ = *p++;
						}
					}
					*o = '\0';
					cmark_node_set_literal(x, fixed);
					free(fixed);
				}
			}
		}
	}
	cmark_iter_free(it);
	/* Replace after the walk: the iterator must not see a changed tree. */
	for (size_t i = 0; i < n; i++) {
		cmark_node *x = todo[i], *text = cmark_node_new(CMARK_NODE_TEXT);

		cmark_node_set_literal(text, cmark_node_get_literal(x));
		if (cmark_node_get_type(x) == CMARK_NODE_HTML_BLOCK) {
			cmark_node *para = cmark_node_new(CMARK_NODE_PARAGRAPH);
			cmark_node_append_child(para, text);
			text = para;
		}
		cmark_node_insert_before(x, text);
		cmark_node_free(x);
	}
	free(todo);
}

enum target { TO_MARKDOWN, TO_LATEX, TO_HTML };

static char *render(const char *md, enum target to)
{
	cmark_node *doc;
	char *out;

	if (!md)
		return NULL;
	doc = cmark_parse_document(md, strlen(md), CMARK_OPT_SAFE);
	if (!doc)
		return NULL;
	defuse(doc, to == TO_LATEX);
	out = to == TO_LATEX ? cmark_render_latex(doc, CMARK_OPT_SAFE, 0)
	    : to == TO_HTML ? cmark_render_html(doc, CMARK_OPT_SAFE)
			    : cmark_render_commonmark(doc, CMARK_OPT_SAFE, 0);
	cmark_node_free(doc);
	if (out) {
		size_t len = strlen(out);

		while (len && out[len - 1] == '\n')	/* the templates lay out the lines */
			out[--len] = '\0';
	}
	return out;
}

char *report_markdown_latex(const char *md)
{
	return render(md, TO_LATEX);
}

char *report_markdown_html(const char *md)
{
	return render(md, TO_HTML);
}

char *report_markdown_markdown(const char *md)
{
	return render(md, TO_MARKDOWN);
}
