/*
 * analyze.h - turn one point's raw samples into the result JSON of
 * docs/results-format.md: outliers, estimate, spread, CI, subtraction,
 * cycles, prediction ratio, reference verdict, sanity flags; and the
 * experiment-level findings (knees, ratios).
 */
#ifndef SYSMETER_ANALYZE_H
#define SYSMETER_ANALYZE_H

#include <stdint.h>
#include <jansson.h>
#include "exec/exec.h"
#include "exec/loader.h"
#include "plan/plan.h"
#include "spec/spec.h"

/* deps[i] is the finished result JSON of experiment s->subtract[i] (or NULL
   when it is missing: recorded as a sanity flag). */
json_t *analyze_point(const struct spec *s, const struct loaded_probe *lp,
		      const struct plan_point *pt, struct point_result *r, double tsc_hz,
		      uint64_t seed, json_t *const *deps);

/* Add `findings` to a finished result (needs machine caches for knees). */
void analyze_findings(const struct spec *s, json_t *result, const json_t *machine);

/* Experiment status from its points: ok | partial | failed | skipped | interrupted. */
const char *analyze_status(const json_t *points, int interrupted);

/* The point's params as JSON objects (numbers / strings), and as text. */
json_t *analyze_params(const struct spec *s, const struct plan_point *pt, int as_text);

/* The kept samples' primary values of a point JSON (for compare). */
size_t analyze_kept(const json_t *point, double **out);

#endif
