/*
 * machine.h - describe the machine once per run (design §5.3) and
 * calibrate the TSC against CLOCK_MONOTONIC_RAW.
 */
#ifndef SYSMETER_MACHINE_H
#define SYSMETER_MACHINE_H

#include <jansson.h>

/* Ticks of pt_start()/pt_stop() per second, measured over ~50 ms against
   CLOCK_MONOTONIC_RAW (median of 5).  1e9 when there is no counter. */
double machine_calibrate_tsc(void);

/* The manifest's `machine` object (docs/results-format.md). */
json_t *machine_describe(double tsc_hz);

/* Does a spec's machine pattern name this machine?  "*" always; else a
   glob (fnmatch, case-insensitive) over the CPU model ("*EPYC*",
   "*Xeon*"), or the host name exactly. */
int machine_matches(const char *pattern);

#endif
