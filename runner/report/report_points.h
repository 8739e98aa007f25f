/*
 * report_points.h - an experiment's tables in the view (part of the
 * report, report.h; docs/templates.md): one row per point with its
 * estimate, statistics and CI in the chosen unit (and in cycles), the
 * points that failed, the predictions, the sanity flags and the
 * "Secondary values" table of the probe's extra metrics.
 */
#ifndef SYSMETER_REPORT_POINTS_H
#define SYSMETER_REPORT_POINTS_H

#include <jansson.h>

#include "report/report_unit.h"

/* The swept parameters (more than one value in the resolved spec), in the
   spec's order, as an array of names. */
json_t *report_points_swept(json_t *spec);

/* "size=16KiB<sep>stride=64": a point by its swept values ("" when none);
   NULL when out of memory.  The caller frees it. */
char *report_points_label(json_t *pt, json_t *swept, const char *sep);

/* Put points, has_table, problems, predictions and sanity (with their
   has_* flags) in the experiment view e; returns how many points have a
   value. */
int report_points_add(json_t *e, json_t *points, json_t *swept, const struct report_unit *d);

/* Put wide_table, wider_table and widest_table in e, set by report_points_add
   (its points, has_rounds) and the heading (swept, has_cycles, cycle_word):
   how much smaller than \footnotesize with 3.5 pt between columns the
   LaTeX table must be set to stay within an A4 page with 2.2 cm margins,
   estimated from its longest cell per column. */
void report_points_table_size(json_t *e);

/* Put metrics, n_metrics, extras and has_extras in e: the medians of the
   metrics res's probe declares, per point. */
void report_points_extras(json_t *e, json_t *res, json_t *points, json_t *swept);

#endif
