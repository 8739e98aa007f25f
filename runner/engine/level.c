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

/* Off the reference by more than a measure's threshold, on the log
   scale (for the canary and the core clock, the rule inside a run:
   canary.h). */
/* The wake-up round trip moves more between calm runs than pure CPU work
   does (a halted vCPU's wake is the hypervisor's), so its band is wider:
   docs/methodology.md, "A run against the machine's earlier runs". */
#define LEVEL_WAKE_THRESHOLD 0.15

static int off_by(double v, double ref, double band)
{
	return isfinite(v) && isfinite(ref) && v > 0 && ref > 0 && fabs(log(v / ref)) > band;
}

/* The measures a level has, each with its threshold on the log scale. */
enum { M_CANARY, M_CORE, M_WAKE, M_N };
static const char *const m_name[M_N] = { "canary_ns", "core_hz", "wake_us" };
static const char *const m_ratio[M_N] = { "canary_ratio", "core_ratio", "wake_ratio" };
static const double m_band[M_N] = { CANARY_THRESHOLD, CANARY_THRESHOLD, LEVEL_WAKE_THRESHOLD };

static double level_of(const struct store_level *l, int m)
{
	return m == M_CANARY ? l->canary_ns : m == M_CORE ? l->core_hz : l->wake_us;
}

json_t *level_verdict(struct store *s, json_t *drift, const json_t *machine, const char *run_id,
		      char *err, size_t errlen)
{
	struct store_level lv[LEVEL_RUNS];
	double x[LEVEL_RUNS + 1], mine[M_N], ref[M_N];
	size_t n, most = 0;
	int compared = 0, shifted = 0;
	json_t *v, *earlier, *reference;

	mine[M_CANARY] = store_canary_ns(drift);
	mine[M_CORE] = jsonutil_num(json_object_get(drift, "core_clock"), "median_hz");
	mine[M_WAKE] = store_wake_us(drift);
	if (store_run_levels(s, machine, run_id, lv, LEVEL_RUNS, &n, err, errlen) < 0)
		return NULL;
	/* each measure over the runs that have it, this one among them */
	for (int m = 0; m < M_N; m++) {
		size_t have = 0;

		for (size_t i = 0; i < n; i++) {
			x[i] = level_of(&lv[i], m);
			have += isfinite(mine[m]) && isfinite(x[i]);
		}
		x[n] = mine[m];
		ref[m] = have >= LEVEL_MIN_EARLIER ? median_of(x, n + 1, 3) : NAN;
		most = have > most ? have : most;
		compared |= isfinite(ref[m]);
		shifted |= off_by(mine[m], ref[m], m_band[m]);
	}

	earlier = json_array();
	for (size_t i = 0; i < n; i++) {
		int any = 0;

		for (int m = 0; m < M_N; m++)
			any |= off_by(level_of(&lv[i], m), ref[m], m_band[m]);
		if (!any)
			continue;
		json_t *e = json_pack("{s:o}", "run", jsonutil_text(lv[i].run_id));
		for (int m = 0; m < M_N; m++)
			jsonutil_set(e, m_ratio[m], num_or_null(isfinite(ref[m])
					? level_of(&lv[i], m) / ref[m] : NAN));
		jsonutil_append(earlier, e);
	}
	reference = json_object();
	v = json_pack("{s:I,s:f,s:f}", "runs", (json_int_t)most, "threshold", CANARY_THRESHOLD,
		      "wake_threshold", LEVEL_WAKE_THRESHOLD);
	if (!v || !reference)
		abort();
	for (int m = 0; m < M_N; m++) {
		jsonutil_set(v, m_name[m], num_or_null(mine[m]));
		jsonutil_set(reference, m_name[m], num_or_null(ref[m]));
		jsonutil_set(v, m_ratio[m], num_or_null(mine[m] / ref[m]));
	}
	jsonutil_set(v, "reference", reference);
	jsonutil_set(v, "verdict", jsonutil_text(!compared ? "too few runs"
						 : shifted ? "shifted" : "same level"));
	jsonutil_set(v, "earlier_off", earlier);
	return v;
}
