/*
 * levels.c - the speed each run found its machine at (store.h): the drift
 * check's canary, per link of its chain, and the core clock beside it.  A
 * run's own canary only sees a host that changes speed during the run; a
 * host that ran a whole run faster or slower (a boost budget, another
 * tenant, an episode of the VM's host) shows only against the runs before
 * it, which the store keeps (docs/methodology.md, "A run against the
 * machine's earlier runs").
 */
#include "store/store.h"
#include "store/store_db.h"
#include "store/store_key.h"
#include "lib/jsonutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The newest earlier runs a level is taken from (as for the rerun
   spread: store/rerun_history.c). */
#define LEVEL_MAX_RUNS 10

double store_canary_ns(json_t *drift)
{
	double ms = jsonutil_num(drift, "reference_ms");
	double it = jsonutil_num(json_object_get(drift, "canary"), "iterations");

	/* per link, so that runs whose canary was sized to a different
	   number of links still compare */
	return ms > 0 && it > 0 && isfinite(ms) && isfinite(it) ? ms * 1e6 / it : NAN;
}

double store_wake_us(json_t *drift)
{
	double us = jsonutil_num(json_object_get(drift, "wake"), "median_us");

	return us > 0 && isfinite(us) ? us : NAN;
}

static double dbl(const char *s)
{
	return s ? strtod(s, NULL) : NAN;
}

int store_run_levels(struct store *s, const json_t *machine, const char *run_id,
		     struct store_level *lv, size_t max, size_t *n, char *err, size_t errlen)
{
	struct store_result res;
	char fp[32];
	const char *p[] = {fp, run_id ? run_id : ""};

	*n = 0;
	store_fingerprint(machine, fp, sizeof fp);
	if (store_db_exec(s, "SELECT id, started, canary_ns, core_hz, wake_us FROM runs "
			  "WHERE fingerprint = $1 AND id <> $2 AND status = 'complete' "
			  "AND (canary_ns IS NOT NULL OR core_hz IS NOT NULL OR wake_us IS NOT NULL) "
			  "ORDER BY started DESC, recorded DESC, id", p, 2, &res, err, errlen) < 0)
		return -1;
	if (max > LEVEL_MAX_RUNS)
		max = LEVEL_MAX_RUNS;
	for (size_t i = 0; i < res.nrows && *n < max; i++) {
		char *const *c = res.cell + i * res.ncols;
		struct store_level *l = &lv[*n];

		snprintf(l->run_id, sizeof l->run_id, "%s", c[0] ? c[0] : "");
		l->started = dbl(c[1]);
		l->canary_ns = dbl(c[2]);
		l->core_hz = dbl(c[3]);
		l->wake_us = dbl(c[4]);
		(*n)++;
	}
	store_result_free(&res);
	return 0;
}
