/*
 * report_markdown.h - Markdown text of a spec rendered for the reports
 * (part of the report, report.h).
 */
#ifndef SYSMETER_REPORT_MARKDOWN_H
#define SYSMETER_REPORT_MARKDOWN_H

/* md as LaTeX (paragraphs, lists, emphasis, code, links; every special
   character of the text escaped, raw HTML shown as text), as HTML (the
   same, every character of the text escaped; no script-running link
   target) or as normalised CommonMark (raw HTML shown as text); malloc'd,
   free() it.  NULL for NULL or out of memory. */
char *report_markdown_latex(const char *md);
char *report_markdown_html(const char *md);
char *report_markdown_markdown(const char *md);

#endif
