/*
 * test_series.c - level shift, trend and mode diagnostics (stats/series.c)
 * and the compare arithmetic (stats/decide.c), on synthetic series with a
 * known answer, over many seeds: a scripted shift, drift or second mode must
 * be found, a stationary series must rarely raise an alarm.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "stats/stats.h"
#include "tap.h"

#define N 120
#define SEEDS 60

static gsl_rng *rng;

/* level * (1 + cv * N(0,1)), the shape of a quiet timing series */
static void noise(double *x, size_t n, double level, double cv)
{
	for (size_t i = 0; i < n; i++)
		x[i] = level * (1 + gsl_ran_gaussian(rng, cv));
}

static void test_shift(void)
{
	double x[N];
	struct stats_shift s;
	int found = 0, near = 0, alarms = 0;

	for (int seed = 0; seed < SEEDS; seed++) {
		gsl_rng_set(rng, 100 + seed);
		noise(x, 40, 1600, 0.03);		/* context_switch's 1.6 us regime */
		noise(x + 40, N - 40, 980, 0.03);	/* then 0.98 us */
		stats_level_shift(x, N, 5, 0.001, 0.05, &s);
		found += s.found;
		near += s.at >= 37 && s.at <= 43;
	}
	ok(found == SEEDS, "a 39 %% step after 40 of 120 samples is found (%d/%d)", found, SEEDS);
	ok(near == SEEDS, "and placed within 3 samples of where it happened (%d/%d)", near, SEEDS);

	for (int seed = 0; seed < SEEDS; seed++) {
		gsl_rng_set(rng, 900 + seed);
		noise(x, N, 1000, 0.05);
		stats_level_shift(x, N, 5, 0.001, 0.05, &s);
		alarms += s.found;
	}
	ok(alarms <= 1, "stationary series: %d false alarms in %d", alarms, SEEDS);

	/* a shift that is significant but below the effect floor is no finding */
	gsl_rng_set(rng, 7);
	noise(x, 60, 1000, 0.002);
	noise(x + 60, 60, 1010, 0.002);
	stats_level_shift(x, N, 5, 0.001, 0.05, &s);
	ok(s.p < 0.001 && !s.found, "a 1 %% step is significant (p %.2g) but under the 5 %% floor", s.p);
	is_num(s.before, 1000, 5, "median before the step");
	is_num(s.after, 1010, 5, "median after the step");

	stats_level_shift(x, 9, 5, 0.001, 0.05, &s);
	ok(!s.found && isnan(s.p), "fewer than 2 x min_seg values: no test");
}

static void test_trend(void)
{
	double x[N];
	struct stats_trend t;
	int found = 0, alarms = 0;

	for (int seed = 0; seed < SEEDS; seed++) {
		gsl_rng_set(rng, 300 + seed);
		noise(x, N, 1000, 0.03);
		for (size_t i = 0; i < N; i++)
			x[i] *= 1 + 0.15 * (double)i / (N - 1);	/* slow 15 % drift */
		stats_trend(x, N, 0.001, 0.05, &t);
		found += t.found && t.rel_change > 0.08 && t.rel_change < 0.25;
	}
	ok(found == SEEDS, "a 15 %% drift is found with its size (%d/%d)", found, SEEDS);

	for (int seed = 0; seed < SEEDS; seed++) {
		gsl_rng_set(rng, 500 + seed);
		noise(x, N, 1000, 0.05);
		stats_trend(x, N, 0.001, 0.05, &t);
		alarms += t.found;
	}
	ok(alarms <= 1, "stationary series: %d false trend alarms in %d", alarms, SEEDS);

	double up[] = { 1, 2, 3, 4, 5, 6 };
	stats_trend(up, 6, 0.05, 0, &t);
	is_num(t.s, 15, 0, "Mann-Kendall S of a strictly rising series is n(n-1)/2");
	is_num(t.slope, 1, 1e-12, "Sen's slope of 1, 2, ..., 6 is 1");
}

static void test_modes(void)
{
	double x[400], where[4];
	int two = 0, one = 0, heavy = 0;

	for (int seed = 0; seed < SEEDS; seed++) {
		gsl_rng_set(rng, 700 + seed);
		noise(x, 200, 100, 0.02);
		noise(x + 200, 200, 130, 0.02);
		size_t k = stats_modes(x, 400, 0.05, where, 4);
		two += k == 2 && fabs(where[0] - 100) < 4 && fabs(where[1] - 130) < 4;
	}
	ok(two == SEEDS, "two modes at 100 and 130 are found (%d/%d)", two, SEEDS);

	for (int seed = 0; seed < SEEDS; seed++) {
		gsl_rng_set(rng, 1100 + seed);
		noise(x, 200, 100, 0.05);
		one += stats_modes(x, 200, 0.05, where, 4) == 1;
		for (size_t i = 0; i < 200; i++)	/* a timing tail: lognormal */
			x[i] = 100 * gsl_ran_lognormal(rng, 0, 0.4);
		heavy += stats_modes(x, 200, 0.05, where, 4) == 1;
	}
	ok(one >= SEEDS - 1, "a normal sample has one mode (%d/%d)", one, SEEDS);
	ok(heavy >= SEEDS - 2, "a lognormal tail is no second mode (%d/%d)", heavy, SEEDS);

	double few[] = { 1, 2, 100, 101 };
	ok(stats_modes(few, 4, 0.05, where, 4) == 1, "under 10 values: one mode, never a guess");
	ok(stats_modes(few, 0, 0.05, where, 4) == 0, "no values: no mode");
}

static void test_decide(void)
{
	double a[] = { 1, exp(0.1), exp(-0.1) }, b[3], p[] = { 0.01, 0.04, 0.03, NAN }, adj[4];
	struct stats_ratio r;

	for (int i = 0; i < 3; i++)
		b[i] = 2 * a[i];
	stats_ratio(a, 3, b, 3, 0.95, &r);
	is_num(r.ratio, 2, 1e-12, "ratio of geometric means");
	is_num(log(r.hi) - log(2), log(2) - log(r.lo), 1e-12, "interval symmetric on the log scale");
	/* sd of logs 0.1, se sqrt(2 * 0.01 / 3), df 4, t_0.975,4 = 2.776445 */
	is_num(log(r.hi / r.ratio), 2.776445 * sqrt(0.02 / 3), 1e-5, "Welch half-width on logs");
	ok(r.p < 0.01 && r.p > 0.0005, "a 2x change over a 10 %% spread, 3 rounds each: p %.2g (t 8.49, df 4)", r.p);

	stats_ratio(a, 3, a, 3, 0.95, &r);
	is_num(r.ratio, 1, 1e-12, "a run against itself: ratio 1");
	is_num(r.p, 1, 1e-12, "and p 1");
	stats_ratio(a, 1, b, 3, 0.95, &r);
	ok(isnan(r.lo) && isnan(r.p) && r.ratio > 0, "one round on a side: a ratio, no interval");

	stats_holm(p, 4, adj);
	is_num(adj[0], 0.03, 1e-12, "holm: smallest times m");
	is_num(adj[2], 0.06, 1e-12, "holm: second times m-1");
	is_num(adj[1], 0.06, 1e-12, "holm: kept monotone");
	ok(isnan(adj[3]), "holm: NaN stays NaN");

	double g[] = { 1, 4, NAN, -1 };
	is_num(stats_geomean(g, 4), 2, 1e-12, "geometric mean ignores non-positive and NaN");
}

int main(void)
{
	rng = gsl_rng_alloc(gsl_rng_mt19937);
	test_shift();
	test_trend();
	test_modes();
	test_decide();
	gsl_rng_free(rng);
	return done_testing();
}
