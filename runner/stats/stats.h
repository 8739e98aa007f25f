/*
 * stats.h - outlier rules, estimators, spread and confidence intervals
 * (design §5.5), on plain arrays of doubles.  GSL does the sorting, the
 * quantiles, the t and normal distributions and the RNG for the bootstrap.
 *
 * Conventions: non-finite inputs (NaN, ±Inf) are ignored by every function
 * (treated as absent); n counts the finite values.  With no finite value,
 * results are NaN.  The caller's arrays are never modified.  Quantiles are
 * linear interpolation between order statistics (GSL = R type 7 = numpy's
 * default): q-quantile at rank q*(n-1).
 */
#ifndef SYSMETER_STATS_H
#define SYSMETER_STATS_H

#include <stddef.h>
#include <stdint.h>
#include "spec/spec.h"

struct stats_summary {
	size_t n;
	double mean, median, std, cv, mad;	/* std: sample (n-1); cv = std/|mean|; mad: raw median abs deviation */
	/* n == 0: everything NaN.  n == 1: std and cv NaN (no spread can be
	   estimated from one value), mad 0, the rest the value.  cv is NaN
	   when mean == 0. */
	double min, max, p5, p25, p75, p95;
};

/* Mark outliers in is_out[i] (1 = dropped, 0 = kept; all n entries are
 * written) by rule, computed over the finite values:
 *   OUT_NONE          nothing
 *   OUT_TUKEY k       outside [Q1 - k*IQR, Q3 + k*IQR]  (k >= 0)
 *   OUT_MAD k         |x - median| > k * 1.4826 * MAD   (k >= 0; raw MAD;
 *                     MAD == 0, i.e. over half the values equal: nothing)
 *   OUT_MEDIAN_RATIO k  x > k*median or x < median/k  (k > 1, median > 0;
 *                     otherwise nothing)
 *   OUT_TRIM lo hi    the floor(lo*n) lowest and floor(hi*n) highest by
 *                     rank, equal values ranked by index
 * A k outside the range marks nothing.  Non-finite values are always
 * marked.  Returns the number marked (non-finite ones included). */
size_t stats_outliers(const double *x, size_t n, enum spec_outlier rule,
		      double k, double lo, double hi, unsigned char *is_out);

/* The estimator over x (NaNs ignored).  p is trimmed_mean's fraction cut
   from EACH end: floor(p*n) values low and floor(p*n) high (0.1 = 10 %
   low and 10 % high); p must be in [0, 0.5), else NaN.  p = 0 is the mean. */
double stats_estimate(const double *x, size_t n, enum spec_estimator e, double p);

/* CI of the estimator at `level` (a fraction: 0.95 for 95 %):
   *method = "t": mean +- t_{(1+level)/2, n-1} * s / sqrt(n);
   *method = "bootstrap" for the others: percentile bootstrap, 2000
   resamples of the sorted values, GSL mt19937 seeded with the low 32 bits
   of seed ^ (seed >> 32), interval = type-7 quantiles (1-level)/2 and
   (1+level)/2 of the 2000 estimates.  Deterministic for a given seed and
   independent of the order of x.  All values equal: lo = hi = the value.
   n < 2, level outside (0, 1) or a bad p: lo = hi = NaN, *method = NULL. */
void stats_ci(const double *x, size_t n, enum spec_estimator e, double p, double level,
	      uint64_t seed, double *lo, double *hi, const char **method);

void stats_summarise(const double *x, size_t n, struct stats_summary *out);

/* Quantile q in [0,1] with linear interpolation (GSL's definition, R type
   7).  q outside [0, 1]: NaN. */
double stats_quantile(const double *x, size_t n, double q);

/* The median of x (NaNs ignored) and a distribution-free interval for it
   from order statistics: [x(j+1), x(n-j)] with the largest j whose
   coverage 1 - 2 P(Bin(n, 1/2) <= j) is at least `level`; when even the
   range falls short (n <= 5 at 95 %), the range.  *achieved: that
   interval's coverage (0.9375 for n = 5).  Fewer than 2 values: lo, hi,
   achieved NaN.  No memory or no values: NaN. */
double stats_median_interval(const double *x, size_t n, double level, double *lo, double *hi,
			     double *achieved);

/* Two-sample comparison for `runner compare`: Welch's t-test on the means
   and Mann-Whitney U (normal approximation with tie correction).  Two-sided
   p-values; NaN when either side has n < 2.
     welch_t  = (mean(b) - mean(a)) / sqrt(s_a^2/n_a + s_b^2/n_b): positive
                when b is larger (note: R's t.test(a, b) has the other sign);
                df by Welch-Satterthwaite.  Both sides constant: t = 0, p = 1
                if the means are equal, else t = +-Inf, p = 0; df NaN.
     mw_u     = U of sample a = (rank sum of a) - n_a(n_a+1)/2, as R's
                wilcox.test(a, b) W; p as wilcox.test(a, b, exact = FALSE,
                correct = TRUE).  Every value tied: p = 1.
     ratio    = median(b) / median(a) when both have a value; NaN if
                median(a) == 0. */
struct stats_compare {
	double welch_t, welch_df, welch_p;
	double mw_u, mw_p;
	double ratio;			/* median(b) / median(a) */
};
void stats_compare(const double *a, size_t na, const double *b, size_t nb,
		   struct stats_compare *out);

/* Knee finding on a latency curve (x ascending: working-set sizes, y:
   latency).  Detects plateaus separated by rises; each plateau is one
   level: name "L1", "L2", ... and finally "Memory".  The size reported for
   a cache level is the largest x still on its plateau.  Returns the number
   of levels written (at most max; the lowest levels first).
   Rules (details in stats.c): points with non-finite x/y or y <= 0 are
   skipped; log(y) is smoothed by a median of 3; a plateau is >= 2
   consecutive points within 15 % of its running median (lone points
   between plateaus are transition points and belong to no level); a
   plateau less than 1.5x away from the previous level continues it (so a
   1.3x TLB rise inside the DRAM region is no new level); a plateau 1.5x or
   more below the last level ends an excursion, and the levels above it
   are dropped.  So each level is >= 1.5x above the one before; the last of
   two or more is "Memory", a single level (a flat curve) is "L1".  Fewer
   than 2 usable points: 0. */
struct stats_level {
	char name[16];
	double size;			/* largest x on the plateau (bytes) */
	double latency;			/* median y over the plateau */
	size_t first, last;		/* indices of the plateau in x[] */
	/* set by stats_levels_name: */
	double knee;			/* x where the curve has risen 1.5x above this
					   level's latency (log-log interpolated); NaN
					   for Memory and when it never rises */
	double sysfs;			/* the size the machine reports for this level, NaN */
	int within_step;		/* knee within one sweep step of sysfs */
	char note[400];			/* why a size differs, "" when nothing to say */
	/* set by stats_knees: the ratio of the next plateau to this level when
	   it lay within KNEE_CLOSE of the 1.5x rule that makes two plateaus
	   two levels (below 1.5: it was joined to this level; at or above: it
	   began the next), so a rerun may draw the two otherwise; 0 when not */
	double close_step;
};
size_t stats_knees(const double *x, const double *y, size_t n,
		   struct stats_level *levels, size_t max);

/* A data or unified cache the machine reports (sysfs). */
struct stats_cache {
	int level;
	double bytes;
};

/* Name the levels stats_knees found over x[], y[] (n points, any order)
   and place them.  The first level whose latency is at least dram (in y's
   unit: 50 ns, the floor of any DRAM access and above any cache hit) is
   "Memory", later ones "Memory+TLB"; with no such level there is no
   "Memory" at all (the curve did not reach DRAM).  Below it, with the
   machine's caches (nc > 0), the plateaus take the reported levels in
   order, as many as can be named, skipping the levels whose sizes lie
   farthest from the knees (those are missing); more plateaus than levels
   leave some "unnamed"; without caches, L1, L2, ... by rank.  Each level's knee is computed, and for cache levels compared
   with the reported size: within_step when they differ by at most one
   sweep step, else a note.  missing[] (up to nmiss) receives the cache
   levels no plateau was named after; returns how many. */
size_t stats_levels_name(struct stats_level *lv, size_t n, const double *x, const double *y,
			 size_t m, double dram, const struct stats_cache *caches, size_t nc,
			 struct stats_cache *missing, size_t nmiss);

/* ---- the sequence of a point's samples (series.c) ------------------------
 * These look at samples in the order they were taken.  Each has an effect
 * floor besides its p-value: a finding must be both unlikely under "one
 * stationary distribution" and large enough to matter. */

/* A single step in level (Pettitt's rank test).  at: first index after the
   step (among the finite values); before/after: medians either side; p:
   Pettitt's approximate p-value; found: p < alpha and |after/before - 1| >=
   min_rel.  Splits closer than min_seg (>= 2) to either end are not
   considered; fewer than 2*min_seg values: found 0, p NaN.  -1: no memory. */
struct stats_shift {
	size_t at;
	double before, after, p;
	int found;
};
int stats_level_shift(const double *x, size_t n, size_t min_seg, double alpha,
		      double min_rel, struct stats_shift *out);

/* A monotonic trend (Mann-Kendall with tie correction).  slope: Sen's slope
   per sample; rel_change: slope * (n-1) / |median|, the drift from the
   first to the last sample relative to the level; found: p < alpha and
   |rel_change| >= min_rel.  Fewer than 4 values: found 0, p NaN. */
struct stats_trend {
	double s, p, slope, rel_change;
	int found;
};
int stats_trend(const double *x, size_t n, double alpha, double min_rel,
		struct stats_trend *out);

/* Number of modes of the samples' kernel density (Gaussian kernel,
   Silverman's bandwidth); a mode holds at least min_share of the samples
   (and 3) and is separated from its neighbour by a valley below 70 % of the
   lower peak.  Writes up to max mode locations to where[], lowest first.
   Fewer than 10 values: 1 (the median).  No values: 0. */
size_t stats_modes(const double *x, size_t n, double min_share, double *where, size_t max);

/* ---- decisions over estimates (decide.c) -------------------------------- */

/* b/a from positive per-round estimates: ratio = exp(mean log b - mean log
   a), [lo, hi] its Welch interval on the log scale at `level`, p the two-
   sided Welch p-value.  Non-positive and non-finite values are ignored;
   fewer than 2 on either side: lo, hi, p NaN. */
struct stats_ratio {
	double ratio, lo, hi, p;
	size_t n_a, n_b;
};
void stats_ratio(const double *a, size_t na, const double *b, size_t nb, double level,
		 struct stats_ratio *out);

/* Holm's step-down adjustment of n p-values into adj[] (NaN stays NaN and
   does not count).  -1: no memory. */
int stats_holm(const double *p, size_t n, double *adj);

/* Geometric mean of the finite positive values; none: NaN. */
double stats_geomean(const double *x, size_t n);

/*
 * Host drift (drift.c): c[0..n) are the timings of one fixed canary
 * workload taken through a run (before each pass of rounds and after the
 * last).  The reference is their median; off[i] = 1 where c[i] lies more
 * than `threshold` (a fraction, 0.1 = 10 %) from it on the log scale.
 * Returns the largest over the smallest timing (1 = perfectly steady; NaN
 * for n = 0).
 */
double stats_drift(const double *c, size_t n, double threshold, double *reference, int *off);

/* ---- rounds (rounds.c) ---------------------------------------------------
 * A point measured in rounds: x[0..n) its rounds' estimates (NaN: a round
 * with none).  The estimate is their median; the interval, with 2 or more
 * finite values, the order-statistic interval of stats_median_interval at
 * 95 % (*method "median_rounds", *level its coverage: the whole range below
 * 6 rounds, at 1 - 2^(1-n), 50 % for 2 rounds), with fewer none (*method
 * NULL).  *k: the finite values; *cv: their coefficient of variation. */
double stats_rounds_interval(const double *x, size_t n, double *lo, double *hi, size_t *k,
			     double *cv, const char **method, double *level);

/* Where a rerun's estimate should land, at `level` (rerun.c): centred on
   est, from the rounds x[0..n) (NaN skipped; at least 3 needed:
   two leave t one degree of freedom) - the
   variance of the difference of two medians of as many rounds - plus
   twice tau squared, tau the between-run standard deviation a history of
   this host measured (relative, on the log scale; NaN or 0: none).  On
   the log scale when est and every round are positive, else linear.
   Returns the method ("rerun_rounds", "rerun_rounds_history") or NULL
   with *lo = *hi = NaN. */
const char *stats_rerun_interval(const double *x, size_t n, double est, double tau,
				 double level, double *lo, double *hi);

/* The between-run standard deviation of one point on one host, relative
   (log scale), from m earlier runs: their estimates and intervals (lo, hi
   at `level`; the within-run sd is taken from the interval as if normal
   on the log scale).  DerSimonian-Laird; 0 when the runs scatter no more
   than their intervals explain; NaN with fewer than 3 usable runs. */
double stats_between_run_tau(const double *est, const double *lo, const double *hi,
			     const double *level, size_t m);

/* Adaptive rounds (`rounds: {min, max, target, budget}`). */
enum stats_rounds_stop {
	STATS_ROUNDS_MORE,		/* take another round */
	STATS_ROUNDS_TARGET,		/* "target met" */
	STATS_ROUNDS_MAX,		/* "max reached": still wide or drifted at max */
	STATS_ROUNDS_BUDGET,		/* "budget": another pass would exceed it */
	STATS_ROUNDS_NO_ESTIMATE,	/* "no estimate": fewer than 2 rounds gave one */
	STATS_ROUNDS_INTERRUPTED,	/* "interrupted" (the engine's) */
	STATS_ROUNDS_FIXED,		/* "fixed": `rounds: N` (the engine's) */
};
struct stats_rounds_rule {
	int min, max;			/* rounds per point */
	double target;			/* enough: CI half-width / |median| */
	double budget_s;		/* the extra rounds' time; <= 0: no limit */
};
struct stats_rounds_point {
	const double *est;		/* per round: its estimate, NaN for none */
	const unsigned char *drifted;	/* per round: 1 = in a pass the drift check
					   flagged; NULL: none */
	size_t n;			/* rounds so far */
	double cost_s;			/* what one more round is expected to take */
	/* out: */
	enum stats_rounds_stop stop;
	double rel_half;		/* the interval's half-width / |median|; NaN */
	size_t clean;			/* rounds in passes not flagged */
	int drift;			/* it wants more (or hit max) for want of clean rounds */
};
/* The rule, for the points of one experiment that took every pass so far.
   A point wants another round (stop = MORE) when it has fewer than min
   rounds, or when its interval (stats_rounds_interval) is wider than
   target (rel_half > target, or the median is 0) or fewer than min of its
   rounds are clean; at max it stops (MAX); with fewer than 2 estimates it
   stops (NO_ESTIMATE: failing rounds would fail again); else TARGET.  Then
   the budget: when spent_s (what the extra rounds, those past min, took so
   far) plus the cost of the rounds wanted past min exceeds budget_s > 0,
   those points stop (BUDGET).  Returns how many points want a round. */
size_t stats_rounds_decide(struct stats_rounds_point *pts, size_t n,
			   const struct stats_rounds_rule *rule, double spent_s);
/* The experiment's reason from its points' (interrupted, else budget, else
   max reached, else target met, else no estimate). */
enum stats_rounds_stop stats_rounds_overall(const enum stats_rounds_stop *stops, size_t n);
/* "target met", "max reached", "budget", "no estimate", "interrupted",
   "fixed" ("running" for MORE). */
const char *stats_rounds_stop_name(enum stats_rounds_stop s);

/* ---- change points over a history of runs (changepoint.c) ---------------
 * x[0..n): one figure's estimate from successive runs, oldest first, with
 * each run's own interval [lo, hi] at level (a fraction; NULL or not in
 * (0, 1): 0.95).  NaN estimates are skipped; a missing interval is taken as
 * the median of the others'.  The method (docs/methodology.md, "History and
 * change points"): each run's variance is its own interval's (half-width /
 * z) squared plus the run-to-run variance its interval does not explain
 * (from the successive differences, robustly: their MAD; with three runs
 * the smaller of the two differences); binary segmentation of a
 * step function on the inverse-variance weighted estimates proposes steps
 * (penalty per step: 2 ln m over m runs); a step is kept only when the 95 %
 * intervals of the two segments' means do not overlap AND |after - before|
 * exceeds the noise threshold max(rel_floor * |before|, k * the pooled
 * run-to-run scatter within segments), k = k_scatter, or k_single when
 * either side is a single run (one run of a few dozen lands 3 scatters
 * from its level by chance).  A failing step is merged
 * away (the weakest first) and the rest judged again.  Segments inside the
 * series hold at least 2 runs (one odd run between two of a level is an
 * outlier, not a step); the first and the last may hold one: nothing
 * after the newest run can yet confirm or refute it. */
struct stats_cp_rule {
	double rel_floor;		/* 0.02: a step is at least 2 % of the level */
	double k_scatter;		/* 3: ... and 3 x the run-to-run scatter */
	double k_single;		/* 4: ... 4 x when a side is a single run */
	double penalty;			/* <= 0 or NaN: 2 ln m */
};
#define STATS_CP_RULE_DEFAULT { 0.02, 3.0, 4.0, 0.0 }

struct stats_cp_segment {
	size_t first, last;		/* indices into x[] (finite estimates only) */
	size_t n;			/* runs in it */
	double mean, lo, hi;		/* weighted mean, its 95 % interval */
};

enum { STATS_STEP_OVERLAP = 1, STATS_STEP_SMALL = 2 };	/* why a step was dropped */

struct stats_cp_step {
	size_t at;			/* index of the first run after the step */
	size_t prev;			/* index of the last run before it */
	double before, before_lo, before_hi;	/* the segment before: mean, interval */
	double after, after_lo, after_hi;	/* the segment after */
	double delta, rel;		/* after - before; delta / |before| */
	double threshold;		/* the noise threshold |delta| had to exceed */
	double scatter;			/* the run-to-run scatter it used; NaN: unknown */
	unsigned why;			/* kept: 0; dropped: STATS_STEP_* bits */
};

struct stats_cp {
	struct stats_cp_segment *seg;	/* the fitted step function, oldest first */
	size_t nseg;
	struct stats_cp_step *step;	/* the real steps (nseg - 1 of them) */
	size_t nstep;
	struct stats_cp_step *dropped;	/* steps proposed and dropped, with why */
	size_t ndropped;
	double tau;			/* run-to-run SD beyond the runs' own intervals */
	double scatter;			/* pooled SD of the runs about their segments' means */
};

/* 0, or -1 (no memory; out is then empty).  rule NULL: the defaults.
   Free with stats_cp_free. */
int stats_changepoints(const double *x, const double *lo, const double *hi,
		       const double *level, size_t n, const struct stats_cp_rule *rule,
		       struct stats_cp *out);
void stats_cp_free(struct stats_cp *cp);

#endif
