/*
 * report_env.h - the report's "Can these numbers be trusted here?" section
 * (private to report/): each row a fact of the run's machine and what it
 * does to this run's numbers.
 */
#ifndef SYSMETER_REPORT_ENV_H
#define SYSMETER_REPORT_ENV_H

#include <jansson.h>

/* [{fact, consequence}] from the manifest (its machine and drift check);
   only facts that were recorded give a row. */
json_t *report_env_rows(json_t *manifest);

/* The options of a kernel command line that change measurements
   (mitigations, pti, clocksource, tsc, isolcpus, nohz, idle states, ...),
   space-separated into out; init's arguments after "--" are not the
   kernel's and are left out.  Returns how many; *nwords gets the number of
   the kernel's options in all. */
size_t report_env_cmdline_options(const char *cmdline, char *out, size_t len, size_t *nwords);

/* The clock the report's cycle columns count in: the measured core clock
   where it holds (machine.core_clock.holds) and held still over the run
   (drift.core_clock.steady, where the run measured it again between
   passes); else the TSC.  Returns 1 for core cycles, 0 for TSC ticks, -1
   for neither (no TSC); *hz gets the frequency (NAN for -1). */
int report_env_cycle_clock(json_t *manifest, double *hz);

/* The sentence under the machine table that says what the cycle columns
   count, from the same decision. */
json_t *report_env_cycle_note(json_t *manifest);

#endif
