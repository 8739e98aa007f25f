/*
 * report_view.h - the values of the report's view model (docs/templates.md):
 * every value a template places is a string, with numbers already in a
 * readable form, so that one view fills both report.md and report.tex.
 * Private to the report module (report.h is its public header); the
 * prefix is report_view_.
 *
 * The report_view_* constructors never return NULL for a string: a key that a
 * template uses is never silently missing.
 */
#ifndef SYSMETER_REPORT_VIEW_H
#define SYSMETER_REPORT_VIEW_H

#include <stddef.h>
#include <stdio.h>
#include <jansson.h>

#define REPORT_VIEW_DASH "\xe2\x80\x93"	/* "–": a value that does not exist */

/* s as a view string ("" for NULL). */
json_t *report_view_str(const char *s);
json_t *report_view_strf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* o[key] = v, taking v's reference; a NULL v (out of memory) becomes null. */
void report_view_put(json_t *o, const char *key, json_t *v);

/* A user string on one line (table cells cannot hold newlines or tabs). */
json_t *report_view_line(const char *s);

/* The same, cut for a LaTeX table's column, which does not wrap: a value
   of more than REPORT_VIEW_CELL_CHARS characters keeps its first and last
   characters with "…" between them (a 5000-character value would make the
   table wider than TeX can measure and lose the PDF).  The full value
   stays in the view beside it, for Markdown and HTML. */
#define REPORT_VIEW_CELL_CHARS 64
json_t *report_view_cell(const char *s);

/* 3 significant digits (units_format_number), REPORT_VIEW_DASH when not finite;
   report_view_num_unit appends " unit"; report_view_ci is "[lo, hi]". */
json_t *report_view_num(double v);
json_t *report_view_num_unit(double v, const char *unit);
json_t *report_view_ci(double lo, double hi);

/* Bytes for prose: "32 KiB", "1.5 GiB" (report_view_size: REPORT_VIEW_DASH when not
   finite). */
void report_view_size_text(double bytes, char *buf, size_t len);
json_t *report_view_size(double bytes);

/* Any JSON value as one line of text, as the machine table shows it:
   null -> "n/a", bool -> yes/no, arrays and objects joined. */
void report_view_any_text(FILE *f, json_t *v);
json_t *report_view_any(json_t *v);

/* "2026-11-22T05:15:00Z" -> "2026-11-22 05:15:00 UTC" (other text as is,
   NULL -> "n/a"); the time between two such stamps, "1 min 5 s". */
json_t *report_view_date(const char *iso);
json_t *report_view_duration(const char *from, const char *to);

/* s with every character but [A-Za-z0-9_-] made '_' ("experiment" when
   empty): safe for a file name, a LaTeX label and a gnuplot string. */
void report_view_safe_name(const char *s, char *out, size_t len);

#endif
