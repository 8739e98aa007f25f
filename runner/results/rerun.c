/*
 * rerun.c - a point's `rerun` interval: where a rerun's estimate should
 * land (stats_rerun_interval, docs/methodology.md "Intervals that survive
 * a rerun").  Read from the point's own JSON - its rounds' estimates and
 * what was subtracted - so that the run computes it as each point ends and
 * the engine computes it again once the results history of this host has
 * measured the between-run spread.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "results/results.h"
#include "lib/jsonutil.h"
#include "stats/stats.h"

#define RERUN_LEVEL 0.95

int results_point_rerun(json_t *point, double tau, size_t history_runs)
{
	json_t *rounds = json_object_get(point, "rounds"), *r, *sub;
	double est = jsonutil_num(point, "estimate"), prop = 0, prop_var = 0, lo, hi;
	size_t i, n = json_array_size(rounds), k = 0;
	double *x = malloc((n + 1) * sizeof *x);
	const char *method = NULL;

	if (!x)
		return -1;
	/* a propagated subtraction (another experiment's estimate, not its
	   rounds) is not in the rounds' estimates: take it off them, and let
	   its own interval widen this one, as it does the CI */
	json_array_foreach(json_object_get(point, "subtracted"), i, sub) {
		const char *m = jsonutil_str(sub, "method");
		double v = jsonutil_num(sub, "value"), h = jsonutil_num(sub, "ci_half_width");
		if (!m || strcmp(m, "propagated") != 0 || !isfinite(v))
			continue;
		prop += v;
		if (isfinite(h))
			prop_var += h * h;
	}
	json_array_foreach(rounds, i, r) {
		const char *st = jsonutil_str(r, "status");
		double v = jsonutil_num(r, "estimate");
		if (st && strcmp(st, "ok") == 0 && isfinite(v))
			x[k++] = v - prop;
	}
	if (json_array_size(json_object_get(point, "ci")) == 2)
		method = stats_rerun_interval(x, k, est, tau, RERUN_LEVEL, &lo, &hi);
	free(x);
	if (method && prop_var > 0) {
		/* a rerun measures the subtracted experiment again too */
		double a = est - lo, b = hi - est;
		lo = est - sqrt(a * a + 2 * prop_var);
		hi = est + sqrt(b * b + 2 * prop_var);
	}
	jsonutil_set(point, "rerun", json_pack("{s:o,s:f,s:o,s:o}",
		"interval", method ? json_pack("[o,o]", results_num(lo), results_num(hi)) : json_null(),
		"level", RERUN_LEVEL,
		"method", method ? json_string(method) : json_null(),
		"between_run", method && isfinite(tau) ? json_pack("{s:f,s:I}", "tau", tau, "runs",
			(json_int_t)history_runs) : json_null()));
	return 0;
}
