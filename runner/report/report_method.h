/*
 * report_method.h - how an experiment was measured, in words, from its
 * resolved spec (part of the report, report.h; docs/templates.md): the
 * parameter list and the one-paragraph method.
 */
#ifndef SYSMETER_REPORT_METHOD_H
#define SYSMETER_REPORT_METHOD_H

#include <jansson.h>

/* [{name, value, swept, count}]: each parameter with its values as text
   (a long sweep shortened to the first three, "…", the last). */
json_t *report_method_params(json_t *spec);

/* "10 to 100 samples (adaptive, ...) after 3 warm-up samples; ...;
   estimator: ...; outliers: ...": repetitions, warm-up, operations per
   sample, estimator, outlier rule, subtracted baselines and CPU pinning.
   How long a sample took comes from the data (operations per sample x time
   per operation, in the probe's unit), not from the spec's floor. */
json_t *report_method_text(json_t *spec, json_t *points, const char *unit);

#endif
