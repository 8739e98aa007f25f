/*
 * models_table.h - the figures of `runner models` and how they are shown
 * (private to models/).
 */
#ifndef SYSMETER_MODELS_TABLE_H
#define SYSMETER_MODELS_TABLE_H

#include <jansson.h>

/* Add the figures to every host of hosts (models_run_judge's array) and
   build the sysmeter.models/1 object: per host and for all hosts, the
   points judged, the shares within +/-25 % and within a factor 2, the
   median error (the median of max(r, 1/r)), and per experiment the median
   ratio and the worst point.  NULL when memory runs out. */
json_t *models_table_build(json_t *hosts, const char *specs_dir);

/* That object as plain tables on standard output: one row per host and
   one for all hosts, then each host's experiments and the points not
   judged, every text from a run folder escaped for the terminal. */
void models_table_print(const json_t *figures);

#endif
