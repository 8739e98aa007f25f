/*
 * level.h - this run against the earlier runs on the same machine (private
 * to engine/): the drift check's canary and the core clock, taken over the
 * whole run, next to what the store recorded of the newest earlier runs.
 * The canary inside one run cannot see a host that was faster or slower
 * for the whole of it; the runs before it can.
 */
#ifndef SYSMETER_ENGINE_LEVEL_H
#define SYSMETER_ENGINE_LEVEL_H

#include <jansson.h>

struct store;

/* The verdict, for the manifest's drift.history:
   {runs, threshold, canary_ns, core_hz, reference{canary_ns, core_hz},
   canary_ratio, core_ratio, verdict "same level"|"shifted"|"too few runs",
   earlier_off[{run, canary_ratio, core_ratio}]}.  The reference is the
   median of this run's level and the earlier runs' (at least 2 of them):
   one odd run among three or more cannot move it.  drift: the run's
   verdict (canary_verdict).  NULL with err when the store cannot be read. */
json_t *level_verdict(struct store *s, json_t *drift, const json_t *machine, const char *run_id,
		      char *err, size_t errlen);

#endif
