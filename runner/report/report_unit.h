/*
 * report_unit.h - the unit an experiment's tables show (part of the report,
 * report.h): the probe's time or rate unit rescaled so that the typical
 * value reads between 1 and 1000, and for times the TSC ticks beside it.
 */
#ifndef SYSMETER_REPORT_UNIT_H
#define SYSMETER_REPORT_UNIT_H

#include <jansson.h>

/* How a probe's values are shown: in `label` after multiplying by `scale`;
   for time units also as cycles (cycles = probe value * cyc): core cycles
   or TSC ticks, as cyc_word says. */
struct report_unit {
	char label[32];
	double scale;
	int is_time;
	double cyc;			/* cycles per probe unit, NAN when not a time */
	const char *cyc_word;		/* "cycles" (core) or "ticks" (TSC) */
};

/* Choose the unit for a result whose probe reports in probe_unit (NULL:
   none), from the median |estimate| of its points (the result's "points"
   array); hz is the clock cycles count (report_env_cycle_clock), NAN when
   unknown, and core says whether it is the core's (else the TSC's).  A unit that is neither a time nor
   a rate is kept as it is, with scale 1. */
void report_unit_pick(const char *probe_unit, json_t *points, double hz, int core,
		      struct report_unit *d);

#endif
