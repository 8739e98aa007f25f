/*
 * rerun_history.c - the between-run spread of a point on this machine,
 * from the store (store.h, docs/methodology.md "Intervals that survive a
 * rerun").  A run's rounds see the host over the minutes the run takes;
 * the host's slower weather (another tenant, a boost budget, the time of
 * day) moves whole runs, and only earlier runs show by how much.
 */
#include "store/store.h"
#include "store/store_key.h"
#include "results/results.h"
#include "stats/stats.h"
#include "lib/jsonutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The newest earlier runs a spread is taken from: enough for a stable
   estimate, few enough that a machine that changed long ago (a kernel,
   a BIOS setting) weighs little. */
#define HISTORY_MAX_RUNS 10

/* rows[0..n) are one point's history (ordered by time): the spread of
   the complete earlier runs on this machine, the newest HISTORY_MAX_RUNS,
   since the last change point among them; *used: how many. */
static double point_tau(const struct store_row *rows, size_t n, const char *fp, const char *run_id,
			const char *unit, size_t *used)
{
	double est[HISTORY_MAX_RUNS], lo[HISTORY_MAX_RUNS], hi[HISTORY_MAX_RUNS],
	       lev[HISTORY_MAX_RUNS];
	size_t k = 0;

	for (size_t i = n; i-- > 0 && k < HISTORY_MAX_RUNS;) {
		const struct store_row *w = &rows[i];
		if (strcmp(w->fingerprint, fp) != 0 || strcmp(w->run_id, run_id) == 0 ||
		    strcmp(w->status, "complete") != 0 || (unit && strcmp(w->unit, unit) != 0) ||
		    !isfinite(w->estimate) || !isfinite(w->ci_lo) || !isfinite(w->ci_hi))
			continue;
		est[k] = w->estimate;
		lo[k] = w->ci_lo;
		hi[k] = w->ci_hi;
		lev[k] = isfinite(w->level) ? w->level : 0.95;
		k++;
	}
	/* oldest first; only the runs since the last real change point (a
	   kernel or a setting that changed the level is a step, not spread) */
	for (size_t i = 0; i < k / 2; i++) {
		double t;
		t = est[i], est[i] = est[k - 1 - i], est[k - 1 - i] = t;
		t = lo[i], lo[i] = lo[k - 1 - i], lo[k - 1 - i] = t;
		t = hi[i], hi[i] = hi[k - 1 - i], hi[k - 1 - i] = t;
		t = lev[i], lev[i] = lev[k - 1 - i], lev[k - 1 - i] = t;
	}
	size_t from = 0;
	struct stats_cp cp;
	if (k >= 3 && stats_changepoints(est, lo, hi, lev, k, NULL, &cp) == 0) {
		/* fewer than 3 runs since the step cannot measure a spread:
		   then the spread across it, wider, is what is known */
		if (cp.nseg > 0 && k - cp.seg[cp.nseg - 1].first >= 3)
			from = cp.seg[cp.nseg - 1].first;
		stats_cp_free(&cp);
	}
	*used = k - from;
	return stats_between_run_tau(est + from, lo + from, hi + from, lev + from, k - from);
}

int store_rerun_history(struct store *s, json_t *result, const json_t *machine, const char *run_id,
			char *err, size_t errlen)
{
	const char *name = jsonutil_str(result, "experiment");
	const char *unit = jsonutil_str(json_object_get(result, "probe"), "unit");
	struct store_query q = {.experiment = name};
	struct store_row *rows = NULL;
	size_t nrows = 0, i;
	char fp[32];
	json_t *pt;
	int widened = 0;

	if (!s || !name)
		return 0;
	store_fingerprint(machine, fp, sizeof fp);
	q.host = fp;
	if (store_series(s, &q, &rows, &nrows, err, errlen) < 0)
		return -1;
	json_array_foreach(json_object_get(result, "points"), i, pt) {
		char *key = store_params_key(json_object_get(pt, "params"));
		size_t a = 0, b, used;
		if (!key)
			continue;
		while (a < nrows && strcmp(rows[a].params_key, key) != 0)
			a++;
		for (b = a; b < nrows && strcmp(rows[b].params_key, key) == 0; b++)
			;
		free(key);
		double tau = point_tau(rows + a, b - a, fp, run_id, unit, &used);
		if (isfinite(tau) && results_point_rerun(pt, tau, used) == 0)
			widened++;
	}
	store_rows_free(rows, nrows);
	return widened;
}
