/*
 * report_knees.h - the knees finding in the view (part of the report,
 * report.h; docs/templates.md): per series, the cache levels found in a
 * latency sweep beside the size sysfs gives for the same level.
 */
#ifndef SYSMETER_REPORT_KNEES_H
#define SYSMETER_REPORT_KNEES_H

#include <jansson.h>

#include "report/report_unit.h"

/* [{series, rows: [{found, level, size, latency, cycles, sysfs}]}] from a
   result's findings.knees; a series where no knee was found gets one row
   with found false.  spec is the result's resolved spec (for the name of
   the series parameter). */
json_t *report_knees_view(json_t *knees, json_t *spec, const struct report_unit *d);

#endif
