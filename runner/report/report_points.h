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

/* Put metrics, n_metrics, extras and has_extras in e: the medians of the
   metrics res's probe declares, per point. */
void report_points_extras(json_t *e, json_t *res, json_t *points, json_t *swept);

#endif
