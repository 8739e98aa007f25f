/*
 * template.h - the report placeholder engine (design §9): a small
 * mustache-like language filled from a jansson view model.  The syntax is
 * documented for users in docs/templates.md:
 *
 *   {{name}}  {{a.b.c}}  {{.}}     a value, escaped for the output format
 *   {{{name}}}  {{&name}}          a value, raw
 *   {{#name}}...{{/name}}          array: once per element; object: once with it
 *                                  pushed; other truthy value: once
 *   {{^name}}...{{/name}}          once when the value is missing or falsy
 *   {{! comment}}  {{> partial}}  {{=<< >>=}} (new delimiters)
 *   @index @number @first @last    about the innermost array being iterated
 *
 * Falsy: missing, null, false, "" and [].  A variable naming nothing is an
 * error (it is a typo in a template); a section naming nothing is just false.
 */
#ifndef SYSMETER_TEMPLATE_H
#define SYSMETER_TEMPLATE_H

#include <stddef.h>
#include <jansson.h>

/* What {{name}} escapes for. */
enum template_format {
	TEMPLATE_NONE,	/* verbatim */
	TEMPLATE_MD,	/* Markdown text and table cells */
	TEMPLATE_TEX,	/* LaTeX text (pdflatex, T1) */
	TEMPLATE_GP,	/* the inside of a gnuplot single-quoted string */
	TEMPLATE_HTML,	/* HTML element text and quoted attribute values */
};

/* Escape s for format f.  Returns a malloc'd string (NULL only when out of
   memory). */
char *template_escape(const char *s, enum template_format f);

/* LaTeX made elsewhere (libcmark's rendering of a description) made fit
   for pdflatex: every character beyond ASCII as {{name}} writes it in
   LaTeX (a known symbol's command, Latin-1 as is, anything else '?': an
   emoji would stop pdflatex and lose the PDF), control characters
   dropped; inside a verbatim environment, where a command would print as
   its name, what cannot print as is becomes '?'.  malloc'd; NULL when out
   of memory. */
char *template_tex_utf8(const char *tex);

/* Render template text `src`, called `name` in messages, with `view` as the
   root context.  Partials {{> p}} are read from the first of `dirs` (a
   NULL-terminated list, may be NULL) that has a file named p.  Returns a
   malloc'd string, or NULL with "template 'NAME':LINE: what" in err. */
char *template_render(const char *name, const char *src, json_t *view,
		      enum template_format f, const char *const *dirs,
		      char *err, size_t errlen);

/* Read template `name` from the first of `dirs` that has it and render it. */
char *template_render_file(const char *name, json_t *view, enum template_format f,
			   const char *const *dirs, char *err, size_t errlen);

#endif
