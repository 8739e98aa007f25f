/*
 * report_beside.h - the `beside:` view of an experiment (part of the
 * report, report.h): its points beside the points of another experiment of
 * the same run with the same parameter values, their ratio, and a
 * prediction from a measured round trip.
 */
#ifndef SYSMETER_REPORT_BESIDE_H
#define SYSMETER_REPORT_BESIDE_H

#include <jansson.h>

#include "report/report_unit.h"

/* The view for res (a result whose spec has `beside`), reading the other
   results from the run folder `run`; swept: report_points_swept's list
   (each row repeats those parameters).  NULL when the spec has no
   `beside`.  {experiment, rows: [{swept: [{value}], local, remote, ratio,
   predicted, vs_predicted}], note}. */
json_t *report_beside_view(const char *run, json_t *res, json_t *swept,
			   const struct report_unit *d);

#endif
