/*
 * html.h - user text into HTML.  Every string that came from a spec, a
 * result or the command line goes through here before it reaches a page:
 * a title with "<script>" must show as text, never run.
 */
#ifndef SYSMETER_HTML_H
#define SYSMETER_HTML_H

#include <stdio.h>

/* s to f with & < > " ' as character references (safe in element text and
   in a quoted attribute value).  Returns 0, or -1 when the write failed. */
int html_escape(FILE *f, const char *s);

#endif
