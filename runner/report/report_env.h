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

#endif
