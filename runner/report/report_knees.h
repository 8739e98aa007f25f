/*
 * report_knees.h - the knees finding in the view (part of the report,
 * report.h; docs/templates.md): per series, the cache levels found in a
 * latency sweep beside the size sysfs gives for the same level.
 */
#ifndef SYSMETER_REPORT_KNEES_H
#define SYSMETER_REPORT_KNEES_H

#include <jansson.h>

#include "report/report_unit.h"

/* The DRAM floor (ns): a level at or above it is memory (results/analyze.c's
   KNEE_DRAM_NS). */
#define REPORT_KNEES_DRAM_NS 50

/* [{series, rows: [{found, level, size, latency, cycles, sysfs, note}]}]
   from a result's findings.knees; res is the result (its spec names the
   series parameter, its points are the measured sizes).  A knee between
   two measured sizes far apart reads "between 32 KiB and 1 MiB"; a curve
   without a DRAM plateau gets a Memory row "not reached" only when no
   point is at DRAM latency, else a found row (plateau false) with its
   largest point.  A series where no knee was found gets one row with found
   false. */
json_t *report_knees_view(json_t *knees, json_t *res, const struct report_unit *d);

#endif
