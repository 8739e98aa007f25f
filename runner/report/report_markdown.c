/*
 * report_markdown.c - a spec's Markdown text (a description, a discussion)
 * as LaTeX, as HTML and as clean Markdown for the reports
 * (report_markdown.h), with libcmark (CommonMark), not by hand.
 *
 * Safety: the text is the user's, the run folder may be anyone's, and the
 * LaTeX is compiled.  Before any rendering the tree is made harmless
 * (defuse), the same way for every output:
 * - an image is never embedded nor loaded: `![alt](/etc/x.png)` would have
 *   put a local file into the PDF (or stopped pdflatex on a URL), and a
 *   remote one would have been fetched by whoever opens report.html.  It
 *   becomes its alt text followed by "(image: URL)", as text;
 * - a link keeps its target only when that is http:, https: or mailto:
 *   (report_markdown_link_ok); any other (javascript:, file:, a path) is
 *   dropped, its text kept;
 * - raw HTML becomes plain text, escaped like any text;
 * - for LaTeX, a code block goes into a verbatim environment: a line
 *   holding "\end{verbatim}" would close it early, so that string gets a
 *   space ("\end {verbatim}", which verbatim does not end on).
 * cmark's LaTeX renderer escapes every special character of ordinary text,
 * code spans and link targets, but passes any character through: one that
 * pdflatex cannot typeset (an emoji) would stop it, so its output goes
 * through template_tex_utf8, the templates' own mapping.  Its HTML
 * renderer escapes text, code and attribute values, so the HTML is put in
 * report.html raw.
 */
#include "report/report_markdown.h"
#include "report/template.h"

#include <cmark.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int report_markdown_link_ok(const char *url)
{
	static const char *const schemes[] = { "http://", "https://", "mailto:" };

	for (size_t i = 0; url && i < sizeof schemes / sizeof *schemes; i++)
		if (strncasecmp(url, schemes[i], strlen(schemes[i])) == 0)
			return 1;
	return 0;
}

/* A new text node holding s (NULL when out of memory). */
static cmark_node *text_node(const char *s)
{
	cmark_node *t = cmark_node_new(CMARK_NODE_TEXT);

	if (t && !cmark_node_set_literal(t, s)) {
		cmark_node_free(t);
		return NULL;
	}
	return t;
}

/* An image: its alt text (its children) in its place, then the URL as
   text; a link with a target not kept: its text in its place. */
static void unwrap(cmark_node *x)
{
	cmark_node *kid;

	while ((kid = cmark_node_first_child(x)) != NULL)
		cmark_node_insert_before(x, kid);
	if (cmark_node_get_type(x) == CMARK_NODE_IMAGE) {
		const char *url = cmark_node_get_url(x);
		size_t n = strlen(url ? url : "") + 16;
		char *note = malloc(n);
		cmark_node *t;

		if (note) {
			snprintf(note, n, " (image: %s)", url ? url : "");
			if ((t = text_node(note)) != NULL)
				cmark_node_insert_before(x, t);
			free(note);
		}
	}
	cmark_node_free(x);
}

/* x appended to the list *v of *n (room for *cap); -1 when out of memory. */
static int remember(cmark_node ***v, size_t *n, size_t *cap, cmark_node *x)
{
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 8;
		cmark_node **m = realloc(*v, c * sizeof *m);

		if (!m)
			return -1;
		*v = m;
		*cap = c;
	}
	(*v)[(*n)++] = x;
	return 0;
}

/* HTML nodes become text, images their alt text and URL, links to other
   than http:, https: and mailto: their text; for LaTeX, code blocks lose
   their way out of verbatim.  -1 when out of memory (the tree is then
   not safe to render). */
static int defuse(cmark_node *doc, int latex)
{
	cmark_iter *it = cmark_iter_new(doc);
	cmark_node **todo = NULL, **gone = NULL;
	size_t n = 0, cap = 0, ng = 0, capg = 0;
	cmark_event_type ev;
	int rc = 0;

	while (rc == 0 && (ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
		cmark_node *x = cmark_iter_get_node(it);
		cmark_node_type t = cmark_node_get_type(x);

		if (ev != CMARK_EVENT_ENTER)
			continue;
		if (t == CMARK_NODE_IMAGE ||
		    (t == CMARK_NODE_LINK && !report_markdown_link_ok(cmark_node_get_url(x)))) {
			rc = remember(&gone, &ng, &capg, x);
		} else if (t == CMARK_NODE_HTML_INLINE || t == CMARK_NODE_HTML_BLOCK) {
			rc = remember(&todo, &n, &cap, x);
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
				} else {
					rc = -1;
				}
			}
		}
	}
	cmark_iter_free(it);
	if (rc < 0) {
		free(todo);
		free(gone);
		return -1;
	}
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
	/* innermost first (an image inside a link): the walk met the outer
	   node first */
	while (ng)
		unwrap(gone[--ng]);
	free(gone);
	return 0;
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
	if (defuse(doc, to == TO_LATEX) < 0) {
		cmark_node_free(doc);
		return NULL;
	}
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
	char *tex = render(md, TO_LATEX), *fit;

	if (!tex)
		return NULL;
	/* cmark escapes LaTeX's specials but passes any character through */
	fit = template_tex_utf8(tex);
	free(tex);
	return fit;
}

char *report_markdown_html(const char *md)
{
	return render(md, TO_HTML);
}

char *report_markdown_markdown(const char *md)
{
	return render(md, TO_MARKDOWN);
}
