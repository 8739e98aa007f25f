/*
 * report_summary.h - the rows of the report's closing "Summary" table
 * (part of the report, report.h; docs/templates.md).
 */
#ifndef SYSMETER_REPORT_SUMMARY_H
#define SYSMETER_REPORT_SUMMARY_H

#include <jansson.h>

#include "report/report_unit.h"

/* Append to summary the rows {operation, anchor, predicted, measured,
   cycles} of one experiment: its points with a prediction, the levels
   found as knees, or else its points (a range when there are many); a
   skipped or failed experiment gets one row saying so.  e is the
   experiment's view (title, anchor, status, knees), res its result file. */
void report_summary_add(json_t *summary, json_t *e, json_t *res, json_t *swept,
			const struct report_unit *d);

#endif
