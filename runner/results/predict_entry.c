/*
 * predict_entry.c - which `predict:` entry a point takes and the
 * `prediction` object it starts with (results.h).  A run's analysis
 * (analyze.c) and `runner models` (models/) both pick and record it here,
 * so that a model is judged over old runs exactly as a run records it.
 */
#include <math.h>
#include <string.h>

#include "plan/plan.h"
#include "results/results.h"
#include "spec/spec.h"
#include "lib/jsonutil.h"

const struct spec_predict *results_predict_pick(const struct spec *s, const struct plan_point *pt,
						int (*machine_is)(const char *pattern, const void *ctx),
						const void *ctx)
{
	const struct spec_predict *any = NULL, *pr;

	/* the first prediction for this machine wins, else the first for '*' */
	for (size_t i = 0; i < s->n_predict; i++) {
		pr = &s->predict[i];
		if (!plan_where_matches(s, pr->where, pr->n_where, pt))
			continue;
		if (pr->machine && strcmp(pr->machine, "*") != 0) {
			if (machine_is(pr->machine, ctx))
				return pr;
		} else if (!any) {
			any = pr;
		}
	}
	return any;
}

json_t *results_predict_entry(const struct spec_predict *pr, double est)
{
	/* a formula: evaluated by results_predict once the run's other
	   results are known; until then it says so */
	if (pr->fx[SPEC_FX_VALUE] || pr->fx[SPEC_FX_HW] || pr->fx[SPEC_FX_SW])
		return json_pack("{s:o,s:s,s:s,s:o,s:o,s:s,s:o,s:{s:o,s:o,s:o},s:s}",
				 "value", results_num(pr->value),
				 "value_text", pr->value_text ? pr->value_text : "",
				 "machine", pr->machine ? pr->machine : "*",
				 "hardware", results_num(pr->hw), "software", results_num(pr->sw),
				 "why", pr->why ? pr->why : "", "ratio", results_num(NAN),
				 "formula",
				 "value", pr->fx[SPEC_FX_VALUE] ? jsonutil_text(pr->value_text) : json_null(),
				 "hardware", pr->fx[SPEC_FX_HW] ? jsonutil_text(pr->hw_text) : json_null(),
				 "software", pr->fx[SPEC_FX_SW] ? jsonutil_text(pr->sw_text) : json_null(),
				 "missing", "not evaluated yet (the run's analysis evaluates it)");
	return json_pack("{s:o,s:s,s:s,s:o,s:o,s:s,s:o}", "value", results_num(pr->value),
			 "value_text", pr->value_text ? pr->value_text : "",
			 "machine", pr->machine ? pr->machine : "*",
			 "hardware", results_num(pr->hw), "software", results_num(pr->sw),
			 "why", pr->why ? pr->why : "",
			 "ratio", results_num(pr->value != 0 ? est / pr->value : NAN));
}
