/*
 * test_rerun.c - stats/rerun.c: the rerun interval holds a rerun's
 * estimate about 95 % of the time on a repeatable host, where the
 * rounds' own interval holds it only 83 %; a between-run spread (tau)
 * that a history measured brings it back where runs move as a whole; the
 * DerSimonian-Laird tau against an independent computation.
 * Simulated with GSL's seeded generator: the same numbers every time.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "tap.h"
#include "stats/stats.h"

#define ROUNDS 5
#define TRIALS 20000

/* One run: ROUNDS rounds, log-normal about exp(run_offset) * 100. */
static double run(gsl_rng *g, double sd, double tau, double *x)
{
	double off = tau > 0 ? gsl_ran_gaussian(g, tau) : 0, lo, hi, cv, level;
	const char *m;
	size_t k;

	for (int i = 0; i < ROUNDS; i++)
		x[i] = 100 * exp(off + gsl_ran_gaussian(g, sd));
	return stats_rounds_interval(x, ROUNDS, &lo, &hi, &k, &cv, &m, &level);
}

/* Share of reruns whose estimate lands in the first run's interval:
   *ci the rounds' CI, *rr the rerun interval (told tau_told). */
static void coverage(gsl_rng *g, double sd, double tau, double tau_told, double *ci, double *rr)
{
	int in_ci = 0, in_rr = 0;
	double a[ROUNDS], b[ROUNDS];

	for (int t = 0; t < TRIALS; t++) {
		double ea = run(g, sd, tau, a), eb = run(g, sd, tau, b), lo, hi, clo, chi, cv, level;
		const char *m;
		size_t k;
		stats_rounds_interval(a, ROUNDS, &clo, &chi, &k, &cv, &m, &level);
		in_ci += eb >= clo && eb <= chi;
		if (stats_rerun_interval(a, ROUNDS, ea, tau_told, 0.95, &lo, &hi))
			in_rr += eb >= lo && eb <= hi;
	}
	*ci = (double)in_ci / TRIALS;
	*rr = (double)in_rr / TRIALS;
}

int main(void)
{
	gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
	double ci, rr, lo, hi;

	gsl_rng_set(g, 12345);
	coverage(g, 0.02, 0, NAN, &ci, &rr);
	ok(ci > 0.80 && ci < 0.87, "repeatable host: the rounds' CI holds a rerun's estimate %.3f of the time (83 %% in theory)", ci);
	ok(rr > 0.93 && rr < 0.985, "repeatable host: the rerun interval holds it %.3f of the time (95 %% wanted)", rr);

	coverage(g, 0.01, 0.04, NAN, &ci, &rr);
	ok(rr < 0.60, "runs that move as a whole (tau 4 %% over rounds at 1 %%): without tau %.3f", rr);
	coverage(g, 0.01, 0.04, 0.04, &ci, &rr);
	ok(rr > 0.93, "... with the history's tau: %.3f", rr);

	double x[4] = {10, 11, NAN, 10.5};
	ok(stats_rerun_interval(x, 1, 10, NAN, 0.95, &lo, &hi) == NULL && isnan(lo), "one round: no interval");
	ok(stats_rerun_interval(x, 3, 10.5, NAN, 0.95, &lo, &hi) == NULL && isnan(lo),
	   "two rounds: no interval (t with one degree of freedom)");
	ok(stats_rerun_interval(x, 4, 10.5, NAN, 0.95, &lo, &hi) != NULL && lo < 10.5 && hi > 10.5 &&
	   fabs(log(hi / 10.5) + log(lo / 10.5)) < 1e-12, "three rounds: an interval symmetric on the log scale");
	double y[3] = {-1, 1, 0.5};
	ok(stats_rerun_interval(y, 3, 0.5, NAN, 0.95, &lo, &hi) != NULL &&
	   fabs((hi - 0.5) - (0.5 - lo)) < 1e-12, "a negative round: linear, symmetric");

	/* DerSimonian-Laird against the same formula computed in Python */
	double est[5] = {100, 104, 98, 110, 101}, l[5] = {97, 101, 96, 105, 99},
	       h[5] = {103, 108, 100, 114, 103}, lev[5] = {0.9375, 0.9375, 0.9375, 0.9375, 0.9375};
	is_num(stats_between_run_tau(est, l, h, lev, 5), 0.0332842, 1e-6, "tau of five runs");
	double same[4] = {100, 100.5, 99.8, 100.2}, sl[4] = {95, 95, 95, 95}, sh[4] = {105, 105, 105, 105};
	ok(stats_between_run_tau(same, sl, sh, lev, 4) == 0, "runs within their intervals: tau 0");
	ok(isnan(stats_between_run_tau(est, l, h, lev, 2)), "two runs: no tau");
	gsl_rng_free(g);
	return done_testing();
}
