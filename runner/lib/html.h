/*
 * html.h - user text into HTML.  Every string that came from a spec, a
 * result or the command line goes through here before it reaches a page:
 * a title with "<script>" must show as text, never run.
 */
#ifndef SYSMETER_HTML_H
#define SYSMETER_HTML_H

#include <stdio.h>

/* The Content-Security-Policy of every page sysmeter writes (report.html
   through the view's `html_csp`, the history page): a browser loads the
   page's own pictures (img-src 'self': the charts beside it) and its
   inline CSS, and nothing else: no script, no remote picture, no frame,
   no form, no <base>.  The escaping makes a spec's text harmless; this
   is the second lock, for a template or a description that slips. */
#define HTML_CSP "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; " \
	"base-uri 'none'; form-action 'none'"

/* s to f with & < > " ' as character references (safe in element text and
   in a quoted attribute value).  Returns 0, or -1 when the write failed. */
int html_escape(FILE *f, const char *s);

#endif
