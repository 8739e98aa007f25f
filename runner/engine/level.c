/*
 * level.c - this run against the earlier runs on the same machine
 * (level.h, docs/methodology.md "A run against the machine's earlier
 * runs").
 */
#include "engine/level.h"
#include "engine/canary.h"
#include "lib/jsonutil.h"
#include "store/store.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LEVEL_RUNS 10		/* the newest earlier runs compared with */
#define LEVEL_MIN_EARLIER 2	/* with this run: a median of three or more */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of the finite values among x[0..n) (sorted in place after
   the finite ones are gathered); NAN when fewer than min are finite. */
static double median_of(double *x, size_t n, size_t min)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (isfinite(x[i]) && x[i] > 0)
			x[k++] = x[i];
	if (k < min || k == 0)
		return NAN;
	qsort(x, k, sizeof *x, cmp_double);
	return k % 2 ? x[k / 2] : (x[k / 2 - 1] + x[k / 2]) / 2;
}

static json_t *num_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* Off the reference by more than the canary's threshold, on the log
   scale (the same rule as inside a run: canary.h). */
static int off(double v, double ref)
{
	return isfinite(v) && isfinite(ref) && v > 0 && ref > 0 &&
	       fabs(log(v / ref)) > CANARY_THRESHOLD;
}

json_t *level_verdict(struct store *s, json_t *drift, const json_t *machine, const char *run_id,
		      char *err, size_t errlen)
{
	struct store_level lv[LEVEL_RUNS];
	double canary[LEVEL_RUNS + 1], core[LEVEL_RUNS + 1];
	double my_canary = store_canary_ns(drift);
	double my_core = jsonutil_num(json_object_get(drift, "core_clock"), "median_hz");
	size_t n, ncan = 0, ncore = 0;
	json_t *v, *earlier;

	if (store_run_levels(s, machine, run_id, lv, LEVEL_RUNS, &n, err, errlen) < 0)
		return NULL;
	/* each measure over the runs that have it, this one among them */
	if (isfinite(my_canary))
		for (size_t i = 0; i < n; i++)
			ncan += isfinite(lv[i].canary_ns);
	if (isfinite(my_core))
		for (size_t i = 0; i < n; i++)
			ncore += isfinite(lv[i].core_hz);
	for (size_t i = 0; i < n; i++) {
		canary[i] = lv[i].canary_ns;
		core[i] = lv[i].core_hz;
	}
	canary[n] = my_canary;
	core[n] = my_core;
	double ref_canary = ncan >= LEVEL_MIN_EARLIER ? median_of(canary, n + 1, 3) : NAN;
	double ref_core = ncore >= LEVEL_MIN_EARLIER ? median_of(core, n + 1, 3) : NAN;
	int compared = isfinite(ref_canary) || isfinite(ref_core);
	int shifted = off(my_canary, ref_canary) || off(my_core, ref_core);

	earlier = json_array();
	for (size_t i = 0; i < n; i++)
		if (off(lv[i].canary_ns, ref_canary) || off(lv[i].core_hz, ref_core))
			jsonutil_append(earlier, json_pack(
				"{s:o,s:o,s:o}", "run", jsonutil_text(lv[i].run_id),
				"canary_ratio", num_or_null(isfinite(ref_canary)
							    ? lv[i].canary_ns / ref_canary : NAN),
				"core_ratio", num_or_null(isfinite(ref_core)
							  ? lv[i].core_hz / ref_core : NAN)));
	v = json_pack("{s:I,s:f,s:o,s:o,s:{s:o,s:o},s:o,s:o,s:s,s:o}",
		      "runs", (json_int_t)(ncan > ncore ? ncan : ncore),
		      "threshold", CANARY_THRESHOLD,
		      "canary_ns", num_or_null(my_canary), "core_hz", num_or_null(my_core),
		      "reference", "canary_ns", num_or_null(ref_canary),
		      "core_hz", num_or_null(ref_core),
		      "canary_ratio", num_or_null(my_canary / ref_canary),
		      "core_ratio", num_or_null(my_core / ref_core),
		      "verdict", !compared ? "too few runs" : shifted ? "shifted" : "same level",
		      "earlier_off", earlier);
	if (!v)
		abort();
	return v;
}
