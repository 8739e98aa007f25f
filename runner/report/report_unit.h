/*
 * report_unit.h - the unit an experiment's tables show (part of the report,
 * report.h): the probe's time or rate unit rescaled so that the typical
 * value reads between 1 and 1000, and for times the TSC ticks beside it.
 */
#ifndef SYSMETER_REPORT_UNIT_H
#define SYSMETER_REPORT_UNIT_H

#include <jansson.h>

/* How a probe's values are shown: in `label` after multiplying by `scale`;
   for time units also as TSC ticks (cycles = probe value * cyc). */
struct report_unit {
	char label[32];
	double scale;
	int is_time;
	double cyc;			/* ticks per probe unit, NAN when not a time */
};

/* Choose the unit for a result whose probe reports in probe_unit (NULL:
   none), from the median |estimate| of its points (the result's "points"
   array); tsc_hz is NAN when unknown.  A unit that is neither a time nor
   a rate is kept as it is, with scale 1. */
void report_unit_pick(const char *probe_unit, json_t *points, double tsc_hz,
		      struct report_unit *d);

#endif
