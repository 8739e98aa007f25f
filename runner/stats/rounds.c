/*
 * rounds.c - a point's estimate and interval from its rounds, and the
 * adaptive-rounds rule (docs/methodology.md, "Rounds" and "Adaptive
 * rounds"): after `min` rounds, does a point need another one?
 *
 * Pure functions over arrays: the engine feeds them the rounds measured so
 * far (their estimates, which passes the drift check flagged, what a round
 * cost), so the rule is tested without running anything.
 */
#include "stats/stats.h"

#include <math.h>
#include <stdlib.h>

double stats_rounds_interval(const double *x, size_t n, double *lo, double *hi, size_t *k,
			     double *cv, const char **method, double *level)
{
	double *v = malloc((n + 1) * sizeof *v), dummy, med;
	struct stats_summary sm;
	size_t m = 0;

	*lo = *hi = *cv = *level = NAN;
	*method = NULL;
	*k = 0;
	if (!v)
		return NAN;
	for (size_t i = 0; i < n; i++)
		if (isfinite(x[i]))
			v[m++] = x[i];
	*k = m;
	if (m == 0) {
		free(v);
		return NAN;
	}
	stats_summarise(v, m, &sm);
	*cv = sm.cv;
	/* with fewer than 5 rounds too: their range, at the coverage it has
	   (50 % for 2, 75 % for 3, 87.5 % for 4), never a t-interval, which
	   is 3 (3 rounds) to 16 (2 rounds) times wider than the rounds spread
	   and for a time can reach below zero */
	med = stats_median_interval(v, m, 0.95, lo, hi, &dummy);
	if (m >= 2) {
		*level = dummy;
		*method = "median_rounds";
	}
	free(v);
	return med;
}

/* One point still taking rounds: what it wants. */
static enum stats_rounds_stop point_wants(struct stats_rounds_point *p,
					  const struct stats_rounds_rule *rule)
{
	double lo, hi, cv, level, med;
	const char *method;
	size_t k;
	int wide, drift;

	p->rel_half = NAN;
	p->clean = 0;
	p->drift = 0;
	for (size_t i = 0; i < p->n; i++)
		p->clean += !(p->drifted && p->drifted[i]);
	if (p->n < (size_t)rule->min)
		return STATS_ROUNDS_MORE;	/* the first min rounds are never cut */
	med = stats_rounds_interval(p->est, p->n, &lo, &hi, &k, &cv, &method, &level);
	if (k < 2 || !method)
		return STATS_ROUNDS_NO_ESTIMATE;	/* rounds that fail: more would fail too */
	p->rel_half = med != 0 ? (hi - lo) / 2 / fabs(med) : INFINITY;
	wide = !(p->rel_half <= rule->target);
	drift = p->clean < (size_t)rule->min;
	if (!wide && !drift)
		return STATS_ROUNDS_TARGET;
	p->drift = drift;
	if (p->n >= (size_t)rule->max)
		return STATS_ROUNDS_MAX;
	return STATS_ROUNDS_MORE;
}

size_t stats_rounds_decide(struct stats_rounds_point *pts, size_t n,
			   const struct stats_rounds_rule *rule, double spent_s)
{
	size_t more = 0;
	double cost = 0;

	for (size_t i = 0; i < n; i++) {
		pts[i].stop = point_wants(&pts[i], rule);
		if (pts[i].stop == STATS_ROUNDS_MORE) {
			more++;
			if (isfinite(pts[i].cost_s) && pts[i].cost_s > 0)
				cost += pts[i].cost_s;
		}
	}
	/* the first min rounds are never cut; past them, a pass whose expected
	   cost would take the extra rounds past the budget is not begun */
	if (more && rule->budget_s > 0 && spent_s + cost > rule->budget_s) {
		int past_min = 0;
		for (size_t i = 0; i < n; i++)
			past_min |= pts[i].stop == STATS_ROUNDS_MORE && pts[i].n >= (size_t)rule->min;
		if (past_min) {
			for (size_t i = 0; i < n; i++)
				if (pts[i].stop == STATS_ROUNDS_MORE && pts[i].n >= (size_t)rule->min) {
					pts[i].stop = STATS_ROUNDS_BUDGET;
					more--;
				}
		}
	}
	return more;
}

enum stats_rounds_stop stats_rounds_overall(const enum stats_rounds_stop *stops, size_t n)
{
	static const enum stats_rounds_stop rank[] = {
		STATS_ROUNDS_INTERRUPTED, STATS_ROUNDS_BUDGET, STATS_ROUNDS_MAX, STATS_ROUNDS_TARGET,
		STATS_ROUNDS_NO_ESTIMATE,
	};

	for (size_t r = 0; r < sizeof rank / sizeof *rank; r++)
		for (size_t i = 0; i < n; i++)
			if (stops[i] == rank[r])
				return rank[r];
	return n ? STATS_ROUNDS_MORE : STATS_ROUNDS_NO_ESTIMATE;
}

const char *stats_rounds_stop_name(enum stats_rounds_stop s)
{
	switch (s) {
	case STATS_ROUNDS_MORE: return "running";
	case STATS_ROUNDS_TARGET: return "target met";
	case STATS_ROUNDS_MAX: return "max reached";
	case STATS_ROUNDS_BUDGET: return "budget";
	case STATS_ROUNDS_NO_ESTIMATE: return "no estimate";
	case STATS_ROUNDS_INTERRUPTED: return "interrupted";
	case STATS_ROUNDS_FIXED: return "fixed";
	}
	return "unknown";
}
