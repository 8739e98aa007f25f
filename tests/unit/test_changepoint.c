/*
 * test_changepoint.c - change points over a history of runs
 * (stats/changepoint.c) on synthetic histories with a known answer: each
 * "run" is an estimate with its own 95 % interval.  Noisy cases run over
 * many seeds: a flat history must raise no alarm, a scripted step must be
 * found at its run.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "stats/stats.h"
#include "tap.h"

#define MAXN 64
#define SEEDS 100

static gsl_rng *rng;

struct hist {
	double x[MAXN], lo[MAXN], hi[MAXN];
	size_t n;
};

/* k runs at level + N(0, sd) between runs, each with interval +- half */
static void runs(struct hist *h, size_t k, double level, double sd, double half)
{
	for (size_t i = 0; i < k && h->n < MAXN; i++, h->n++) {
		double v = level + (sd > 0 ? gsl_ran_gaussian(rng, sd) : 0);

		h->x[h->n] = v;
		h->lo[h->n] = v - half;
		h->hi[h->n] = v + half;
	}
}

static int detect(const struct hist *h, const struct stats_cp_rule *r, struct stats_cp *cp)
{
	return stats_changepoints(h->x, h->lo, h->hi, NULL, h->n, r, cp);
}

/* A flat history raises no alarm: run-to-run noise within the intervals,
   and noise three times wider than the intervals (a within-run interval
   cannot see between-run variation; tau must absorb it). */
static void test_flat(void)
{
	int alarms = 0, alarms_wide = 0, failed = 0;

	for (int seed = 0; seed < SEEDS; seed++) {
		struct hist h = {0}, g = {0};
		struct stats_cp cp;

		gsl_rng_set(rng, 100 + seed);
		runs(&h, 30, 100, 1, 2);
		failed |= detect(&h, NULL, &cp);
		alarms += cp.nstep > 0;
		stats_cp_free(&cp);
		runs(&g, 30, 100, 3, 0.5);
		failed |= detect(&g, NULL, &cp);
		alarms_wide += cp.nstep > 0;
		stats_cp_free(&cp);
	}
	ok(!failed, "flat: no error");
	ok(alarms == 0, "flat, noise within the intervals: no step in %d histories (%d)", SEEDS, alarms);
	ok(alarms_wide == 0, "flat, noise 6x the intervals' half-width: no step (%d of %d)",
	   alarms_wide, SEEDS);
}

/* One step of 20 % after run 15: found there, in every seed, with its size. */
static void test_one_step(void)
{
	int found = 0, right = 0, one = 0;
	double delta = 0;

	for (int seed = 0; seed < SEEDS; seed++) {
		struct hist h = {0};
		struct stats_cp cp;

		gsl_rng_set(rng, 300 + seed);
		runs(&h, 15, 100, 1, 2);
		runs(&h, 15, 120, 1, 2);
		detect(&h, NULL, &cp);
		found += cp.nstep > 0;
		one += cp.nstep == 1;
		if (cp.nstep == 1 && cp.step[0].at == 15 && cp.step[0].prev == 14) {
			right++;
			delta += cp.step[0].delta;
		}
		stats_cp_free(&cp);
	}
	ok(found == SEEDS && one == SEEDS, "one step: found, and only it, in %d of %d", one, SEEDS);
	ok(right == SEEDS, "one step: at run 15 in %d of %d", right, SEEDS);
	is_num(delta / (right ? right : 1), 20, 0.5, "one step: its size is about 20");

	/* the details of one: segments, interval, threshold */
	struct hist h = {0};
	struct stats_cp cp;

	gsl_rng_set(rng, 42);
	runs(&h, 15, 100, 1, 2);
	runs(&h, 15, 120, 1, 2);
	detect(&h, NULL, &cp);
	ok(cp.nseg == 2 && cp.seg[0].first == 0 && cp.seg[0].last == 14 && cp.seg[1].first == 15 &&
	   cp.seg[1].last == 29 && cp.seg[0].n == 15, "one step: two segments, 0-14 and 15-29");
	ok(cp.nstep == 1 && cp.step[0].after_lo > cp.step[0].before_hi,
	   "one step: the after interval lies above the before interval");
	ok(cp.nstep == 1 && cp.step[0].threshold >= 2.0 && fabs(cp.step[0].delta) > cp.step[0].threshold,
	   "one step: larger than its threshold (>= 2 %% of 100)");
	is_num(cp.nstep ? cp.step[0].rel : NAN, 0.2, 0.02, "one step: +20 %");
	stats_cp_free(&cp);
}

/* A step smaller than the runs' intervals is not reported; proposed by a
   search with no penalty, it is dropped because the segments' intervals
   overlap. */
static void test_within_ci(void)
{
	struct hist h = {0};
	struct stats_cp cp;
	struct stats_cp_rule eager = STATS_CP_RULE_DEFAULT;

	gsl_rng_set(rng, 7);
	runs(&h, 15, 100, 0.05, 20);
	runs(&h, 15, 103, 0.05, 20);
	detect(&h, NULL, &cp);
	ok(cp.nstep == 0 && cp.nseg == 1, "3 %% step inside +-20 intervals: not reported");
	stats_cp_free(&cp);
	eager.penalty = 1e-12;
	detect(&h, &eager, &cp);
	ok(cp.nstep == 0, "... nor with no penalty");
	ok(cp.ndropped >= 1 && cp.dropped[cp.ndropped - 1].at == 15 &&
	   (cp.dropped[cp.ndropped - 1].why & STATS_STEP_OVERLAP),
	   "... where it is dropped for the overlap of the intervals");
	ok(cp.ndropped >= 1 && !(cp.dropped[cp.ndropped - 1].why & STATS_STEP_SMALL),
	   "... and not for its size (3 %% > 2 %%, tiny scatter)");
	stats_cp_free(&cp);
}

/* A step outside the intervals but under the 2 % floor is no change. */
static void test_below_floor(void)
{
	struct hist h = {0};
	struct stats_cp cp;

	gsl_rng_set(rng, 8);
	runs(&h, 15, 100, 0.01, 0.05);
	runs(&h, 15, 101.5, 0.01, 0.05);
	detect(&h, NULL, &cp);
	ok(cp.nstep == 0, "1.5 %% step with tight intervals: not reported (2 %% floor)");
	ok(cp.ndropped == 1 && cp.dropped[0].at == 15 && cp.dropped[0].why == STATS_STEP_SMALL,
	   "... proposed, dropped as small only (why %u)", cp.ndropped ? cp.dropped[0].why : 99);
	is_num(cp.ndropped ? cp.dropped[0].threshold : NAN, 2.0, 0.01, "... threshold 2 % of 100");
	stats_cp_free(&cp);
}

/* Two steps: up at run 10, back down at run 20, found in every seed.  A
   further step is allowed in a rare seed: the newest run of one history
   here lies 4.6 sd below its level, which no method should call noise. */
static void test_two_steps(void)
{
	int right = 0, extra = 0;

	for (int seed = 0; seed < SEEDS; seed++) {
		struct hist h = {0};
		struct stats_cp cp;
		int up = 0, down = 0;

		gsl_rng_set(rng, 500 + seed);
		runs(&h, 10, 100, 1, 2);
		runs(&h, 10, 130, 1, 2);
		runs(&h, 10, 100, 1, 2);
		detect(&h, NULL, &cp);
		for (size_t j = 0; j < cp.nstep; j++) {
			up |= cp.step[j].at == 10 && cp.step[j].delta > 25;
			down |= cp.step[j].at == 20 && cp.step[j].delta < -25;
		}
		right += up && down;
		extra += cp.nstep > 2;
		stats_cp_free(&cp);
	}
	ok(right == SEEDS, "two steps: at 10 (up) and 20 (down) in %d of %d", right, SEEDS);
	ok(extra <= 2, "two steps: a third step in %d of %d (at most 2)", extra, SEEDS);
}

/* One wild run between runs of one level is an outlier, not a step. */
static void test_outlier(void)
{
	int alarms = 0;

	for (int seed = 0; seed < SEEDS; seed++) {
		struct hist h = {0};
		struct stats_cp cp;

		gsl_rng_set(rng, 700 + seed);
		runs(&h, 10, 100, 1, 2);
		runs(&h, 1, 150, 0, 2);
		runs(&h, 10, 100, 1, 2);
		detect(&h, NULL, &cp);
		alarms += cp.nstep > 0;
		stats_cp_free(&cp);
	}
	ok(alarms == 0, "one outlier run at +50 %%: no step (%d of %d)", alarms, SEEDS);
}

/* The newest run alone at a new level is a step (the CI gate's case). */
static void test_newest(void)
{
	int right = 0;

	for (int seed = 0; seed < SEEDS; seed++) {
		struct hist h = {0};
		struct stats_cp cp;

		gsl_rng_set(rng, 900 + seed);
		runs(&h, 8, 100, 1, 2);
		runs(&h, 1, 120, 1, 2);
		detect(&h, NULL, &cp);
		right += cp.nstep == 1 && cp.step[0].at == 8 && cp.nseg == 2 && cp.seg[1].n == 1;
		stats_cp_free(&cp);
	}
	ok(right == SEEDS, "newest run 20 %% up: a step at it in %d of %d", right, SEEDS);
}

/* NaN estimates are skipped; indices stay those of the caller's array. */
static void test_nan(void)
{
	struct hist h = {0};
	struct stats_cp cp;

	gsl_rng_set(rng, 11);
	runs(&h, 12, 100, 1, 2);
	runs(&h, 12, 80, 1, 2);
	h.x[3] = NAN;
	h.x[12] = NAN;		/* the first run after the step has no estimate */
	h.lo[20] = h.hi[20] = NAN;	/* and one has no interval */
	detect(&h, NULL, &cp);
	ok(cp.nstep == 1 && cp.step[0].at == 13 && cp.step[0].prev == 11,
	   "NaN runs skipped: the step is between runs 11 and 13");
	ok(cp.nseg == 2 && cp.seg[0].n == 11 && cp.seg[1].n == 11, "... 11 runs either side");
	stats_cp_free(&cp);

	double all[3] = {NAN, NAN, NAN};
	ok(stats_changepoints(all, NULL, NULL, NULL, 3, NULL, &cp) == 0 && cp.nseg == 0 &&
	   cp.nstep == 0, "all NaN: no segment, no step");
	stats_cp_free(&cp);
}

/* Histories of 0, 1 and 2 runs; runs with no interval at all. */
static void test_short(void)
{
	struct stats_cp cp;
	double x1[1] = {100}, lo1[1] = {99}, hi1[1] = {101};
	double x2[2] = {100, 120}, lo2[2] = {99, 119}, hi2[2] = {101, 121};
	double lo2w[2] = {88, 108}, hi2w[2] = {112, 132};

	ok(stats_changepoints(NULL, NULL, NULL, NULL, 0, NULL, &cp) == 0 && cp.nseg == 0,
	   "no run: nothing");
	stats_cp_free(&cp);
	stats_changepoints(x1, lo1, hi1, NULL, 1, NULL, &cp);
	ok(cp.nseg == 1 && cp.nstep == 0 && cp.seg[0].mean == 100, "one run: one segment");
	stats_cp_free(&cp);
	stats_changepoints(x2, lo2, hi2, NULL, 2, NULL, &cp);
	ok(cp.nstep == 1 && cp.step[0].at == 1, "two runs 20 %% apart, +-1: a step at the second");
	stats_cp_free(&cp);
	stats_changepoints(x2, lo2w, hi2w, NULL, 2, NULL, &cp);
	ok(cp.nstep == 0, "two runs 20 %% apart, +-12 (intervals overlap): no step");
	stats_cp_free(&cp);

	/* three runs: the newest 20 % up is a step; the middle one 20 % up is
	   an outlier (an inner segment needs two runs) */
	double x3[3] = {100, 99.98, 120}, lo3[3] = {99.9, 99.95, 119.9}, hi3[3] = {100.1, 100.01, 120.1};
	stats_changepoints(x3, lo3, hi3, NULL, 3, NULL, &cp);
	ok(cp.nstep == 1 && cp.step[0].at == 2, "three runs, the newest 20 %% up: a step at it");
	stats_cp_free(&cp);
	x3[1] = 120, lo3[1] = 119.9, hi3[1] = 120.1;
	x3[2] = 100, lo3[2] = 99.9, hi3[2] = 100.1;
	stats_changepoints(x3, lo3, hi3, NULL, 3, NULL, &cp);
	ok(cp.nstep == 0, "three runs, the middle one 20 %% up: no step");
	stats_cp_free(&cp);

	/* no intervals: the scatter alone decides */
	struct hist h = {0};
	gsl_rng_set(rng, 13);
	runs(&h, 10, 100, 1, 0);
	runs(&h, 10, 110, 1, 0);
	stats_changepoints(h.x, NULL, NULL, NULL, h.n, NULL, &cp);
	ok(cp.nstep == 1 && cp.step[0].at == 10, "no intervals, 10 %% step over sd 1: found at 10");
	stats_cp_free(&cp);
}

/* The interval's level is honoured: the same half-width at 50 % is a
   wider standard error than at 99 %. */
static void test_level(void)
{
	double x[2] = {100, 104}, lo[2] = {98, 102}, hi[2] = {102, 106};
	double l99[2] = {0.99, 0.99}, l50[2] = {0.5, 0.5};
	struct stats_cp cp;

	stats_changepoints(x, lo, hi, l99, 2, NULL, &cp);
	ok(cp.nstep == 1, "+-2 at 99 %%, 4 apart: a step");
	stats_cp_free(&cp);
	stats_changepoints(x, lo, hi, l50, 2, NULL, &cp);
	ok(cp.nstep == 0, "+-2 at 50 %%, 4 apart: no step");
	stats_cp_free(&cp);
}

/* Runs that scatter more than their intervals say: the run-to-run variance
   (tau) is added to every run's, so one run with an overconfident interval
   does not set its level alone. */
static void test_tau(void)
{
	struct hist h = {0};
	struct stats_cp cp;
	double plain = 0;

	gsl_rng_set(rng, 17);
	runs(&h, 20, 100, 3, 0.5);
	h.x[5] = 106;
	h.lo[5] = 105.995;
	h.hi[5] = 106.005;
	for (size_t i = 0; i < h.n; i++)
		plain += h.x[i] / (double)h.n;
	detect(&h, NULL, &cp);
	ok(cp.tau > 2 && cp.tau < 4.5, "tau estimates the run-to-run sd 3 (%.2f)", cp.tau);
	ok(cp.nseg == 1 && fabs(cp.seg[0].mean - plain) < 1,
	   "one overconfident run does not set the level (%.2f, plain mean %.2f)",
	   cp.nseg ? cp.seg[0].mean : NAN, plain);
	stats_cp_free(&cp);
}

int main(void)
{
	rng = gsl_rng_alloc(gsl_rng_mt19937);
	test_flat();
	test_one_step();
	test_within_ci();
	test_below_floor();
	test_two_steps();
	test_outlier();
	test_newest();
	test_nan();
	test_short();
	test_level();
	test_tau();
	gsl_rng_free(rng);
	return done_testing();
}
