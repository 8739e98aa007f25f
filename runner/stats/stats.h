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
};
size_t stats_knees(const double *x, const double *y, size_t n,
		   struct stats_level *levels, size_t max);

#endif
