/*
 * series.c - one experiment's points across runs (store_series, for
 * `runner history`), and the baseline run of `runner compare
 * --baseline-store` (store_baseline).
 */
#include "store/store.h"
#include "store/store_db.h"
#include "store/store_key.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* one row per (point, round): the point's columns, then round and estimate */
static const char series_sql[] =
	"SELECT r.id, r.run_dir, r.hostname, r.fingerprint, r.kernel, r.git_commit, r.status, "
	"r.started, p.params_key, p.params_json, p.estimate, p.ci_lo, p.ci_hi, p.ci_level, "
	"p.unit, p.flags, p.n, p.rounds, p.idx, e.round, e.estimate, r.canary_ns, r.core_hz, "
	"r.finished, r.recorded "
	"FROM points p JOIN runs r ON r.id = p.run_id "
	"LEFT JOIN round_estimates e ON e.run_id = p.run_id AND e.experiment = p.experiment "
	"AND e.idx = p.idx "
	"WHERE p.experiment = $1 AND (CAST($2 AS DOUBLE PRECISION) <= 0 OR "
	"r.started >= CAST($2 AS DOUBLE PRECISION)) "
	"ORDER BY p.params_key, r.started, r.finished, r.recorded, r.id, p.idx, e.round";

enum { C_ID, C_DIR, C_HOST, C_FP, C_KERNEL, C_COMMIT, C_STATUS, C_STARTED, C_KEY, C_JSON,
       C_EST, C_LO, C_HI, C_LEVEL, C_UNIT, C_FLAGS, C_N, C_ROUNDS, C_IDX, C_ROUND, C_REST,
       C_CANARY, C_CORE, C_FINISHED, C_RECORDED };

static char *dup(const char *s)
{
	char *d = strdup(s ? s : "");

	if (!d)
		abort();
	return d;
}

static double dbl(const char *s)
{
	return s ? strtod(s, NULL) : NAN;
}

static int wanted(const struct store_query *q, char *const *c)
{
	if (q->host && *q->host && !(c[C_HOST] && strcmp(c[C_HOST], q->host) == 0) &&
	    !(c[C_FP] && strncmp(c[C_FP], q->host, strlen(q->host)) == 0))
		return 0;
	for (size_t i = 0; i < q->nwhere; i++)
		if (!store_key_has(c[C_KEY] ? c[C_KEY] : "", q->where[i]))
			return 0;
	return 1;
}

static void fill(struct store_row *w, char *const *c)
{
	*w = (struct store_row){
		.run_id = dup(c[C_ID]), .run_dir = dup(c[C_DIR]), .host = dup(c[C_HOST]),
		.fingerprint = dup(c[C_FP]), .kernel = dup(c[C_KERNEL]), .commit = dup(c[C_COMMIT]),
		.status = dup(c[C_STATUS]), .started = dbl(c[C_STARTED]),
		.params_key = dup(c[C_KEY]), .params_json = dup(c[C_JSON]),
		.estimate = dbl(c[C_EST]), .ci_lo = dbl(c[C_LO]), .ci_hi = dbl(c[C_HI]),
		.level = dbl(c[C_LEVEL]), .unit = dup(c[C_UNIT]), .flags = dup(c[C_FLAGS]),
		.n = c[C_N] ? atoi(c[C_N]) : 0, .rounds = c[C_ROUNDS] ? atoi(c[C_ROUNDS]) : 0,
		.canary_ns = dbl(c[C_CANARY]), .core_hz = dbl(c[C_CORE]),
		.finished = dbl(c[C_FINISHED]), .recorded = dbl(c[C_RECORDED]),
	};
}

int store_series(struct store *s, const struct store_query *q,
		 struct store_row **rows, size_t *nrows, char *err, size_t errlen)
{
	struct store_result res;
	struct store_row *out = NULL;
	size_t n = 0, cap = 0;
	char since[64];
	const char *p[2] = {q->experiment, since};

	*rows = NULL;
	*nrows = 0;
	if (!q->experiment || !*q->experiment) {
		snprintf(err, errlen, "no experiment given");
		return -1;
	}
	snprintf(since, sizeof since, "%.17g", q->since > 0 ? q->since : 0.0);
	if (store_db_exec(s, series_sql, p, 2, &res, err, errlen) < 0)
		return -1;
	for (size_t i = 0; i < res.nrows; i++) {
		char *const *c = res.cell + i * res.ncols;
		char *const *prev = i ? res.cell + (i - 1) * res.ncols : NULL;
		struct store_row *w;

		if (!wanted(q, c))
			continue;
		/* the same point as the row before: one more round */
		if (!prev || strcmp(prev[C_ID], c[C_ID]) || strcmp(prev[C_IDX], c[C_IDX]) ||
		    !n || strcmp(out[n - 1].run_id, c[C_ID])) {
			if (n == cap) {
				struct store_row *more = realloc(out, (cap = cap ? 2 * cap : 16) *
								 sizeof *out);
				if (!more)
					abort();
				out = more;
			}
			fill(&out[n++], c);
		}
		w = &out[n - 1];
		if (c[C_ROUND]) {
			double *re = realloc(w->round_est, (w->nround + 1) * sizeof *re);

			if (!re)
				abort();
			w->round_est = re;
			re[w->nround++] = dbl(c[C_REST]);
		}
	}
	store_result_free(&res);
	*rows = out;
	*nrows = n;
	return 0;
}

/* a before b: -1, 0, 1; NaN (a NULL column) first, as SQLite sorts it */
static int cmp_time(double a, double b)
{
	if (isnan(a) || isnan(b))
		return !!isnan(b) - !!isnan(a);
	return (a > b) - (a < b);
}

int store_row_order(const struct store_row *a, const struct store_row *b)
{
	int c;

	if ((c = cmp_time(a->started, b->started)) || (c = cmp_time(a->finished, b->finished)) ||
	    (c = cmp_time(a->recorded, b->recorded)))
		return c;
	return strcmp(a->run_id, b->run_id);
}

void store_rows_free(struct store_row *rows, size_t nrows)
{
	for (size_t i = 0; i < nrows; i++) {
		struct store_row *w = &rows[i];

		free(w->run_id), free(w->run_dir), free(w->host), free(w->fingerprint);
		free(w->kernel), free(w->commit), free(w->status), free(w->params_key);
		free(w->params_json), free(w->unit), free(w->flags), free(w->round_est);
	}
	free(rows);
}

int store_baseline(struct store *s, const char *run_id, char **run_dir, char **base_id,
		   char *err, size_t errlen)
{
	struct store_result res;
	const char *p[] = {run_id};

	*run_dir = *base_id = NULL;
	/* the newest run before this one on the same machine that measured
	   one of its experiments.  Runs started in the same second (the
	   manifest's resolution) are told apart by when they finished, then
	   by when they were recorded (to the microsecond) */
	if (store_db_exec(s,
			  "SELECT b.id, b.run_dir FROM runs a JOIN runs b ON b.fingerprint = "
			  "a.fingerprint AND b.id <> a.id AND (COALESCE(b.started, 0), "
			  "COALESCE(b.finished, 0), COALESCE(b.recorded, 0)) < (COALESCE(a.started, "
			  "0), COALESCE(a.finished, 0), COALESCE(a.recorded, 0)) "
			  "WHERE a.id = $1 AND EXISTS (SELECT 1 FROM points pb JOIN points pa ON "
			  "pa.experiment = pb.experiment WHERE pb.run_id = b.id AND pa.run_id = a.id) "
			  "ORDER BY b.started DESC, b.finished DESC, b.recorded DESC, b.id DESC "
			  "LIMIT 1",
			  p, 1, &res, err, errlen) < 0)
		return -1;
	int found = res.nrows == 1;

	if (found) {
		*base_id = dup(res.cell[0]);
		*run_dir = dup(res.cell[1]);
	}
	store_result_free(&res);
	return found;
}

int store_experiments(struct store *s, char ***names, size_t *n, char *err, size_t errlen)
{
	struct store_result res;
	char **out;

	*names = NULL;
	*n = 0;
	if (store_db_exec(s, "SELECT DISTINCT experiment FROM points ORDER BY experiment", NULL, 0,
			  &res, err, errlen) < 0)
		return -1;
	if (!(out = calloc(res.nrows + 1, sizeof *out)))
		abort();
	for (size_t i = 0; i < res.nrows; i++)
		out[i] = dup(res.cell[i * res.ncols]);
	*names = out;
	*n = res.nrows;
	store_result_free(&res);
	return 0;
}
