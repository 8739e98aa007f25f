/*
 * report_markdown.h - Markdown text of a spec rendered for the reports
 * (part of the report, report.h).
 */
#ifndef SYSMETER_REPORT_MARKDOWN_H
#define SYSMETER_REPORT_MARKDOWN_H

/* md as LaTeX (paragraphs, lists, emphasis, code, links; every special
   character of the text escaped, raw HTML shown as text), as HTML (the
   same, every character of the text escaped) or as normalised CommonMark
   (raw HTML shown as text); malloc'd, free() it.  NULL for NULL or out of
   memory.  In all three an image is never embedded: it is its alt text
   and "(image: URL)"; a link keeps its target only when
   report_markdown_link_ok says so, else it is its text. */
char *report_markdown_latex(const char *md);
char *report_markdown_html(const char *md);
char *report_markdown_markdown(const char *md);

/* 1 when a description's link may keep url as its target: http:, https:
   or mailto: (any case); never a file, a path or a script. */
int report_markdown_link_ok(const char *url);

#endif
