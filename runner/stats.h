/*
 * stats.h - outlier rules, estimators, spread and confidence intervals
 * (design §5.5), on plain arrays of doubles.  GSL does sorting-free
 * quantiles, the t distribution and the RNG for the bootstrap.
 *
 * Conventions: NaN inputs are ignored by every function (treated as absent);
 * n counts the finite values.  With no finite value, results are NaN.
 */
#ifndef SYSMETER_STATS_H
#define SYSMETER_STATS_H

#include <stddef.h>
#include <stdint.h>
#include "spec.h"

struct stats_summary {
	size_t n;
	double mean, median, std, cv, mad;	/* std: sample (n-1); cv = std/|mean|; mad: raw median abs deviation */
	double min, max, p5, p25, p75, p95;
};

/* Mark outliers in is_out[i] (1 = dropped) by rule:
 *   OUT_NONE          nothing
 *   OUT_TUKEY k       outside [Q1 - k*IQR, Q3 + k*IQR]
 *   OUT_MAD k         |x - median| > k * 1.4826 * MAD   (MAD == 0: x != median dropped only if k*... no: nothing)
 *   OUT_MEDIAN_RATIO k  x > k*median or x < median/k
 *   OUT_TRIM lo hi    the lowest lo and highest hi fractions (by rank)
 * Returns the number marked.  NaNs are marked too. */
size_t stats_outliers(const double *x, size_t n, enum spec_outlier rule,
		      double k, double lo, double hi, unsigned char *is_out);

/* The estimator over x (NaNs ignored).  p is trimmed_mean's fraction cut
   from EACH end (0.1 = 10 % low and 10 % high). */
double stats_estimate(const double *x, size_t n, enum spec_estimator e, double p);

/* 95 % (level) CI of the estimator: Student t for the mean, seeded
   percentile bootstrap (2000 resamples, GSL mt19937 seeded with `seed`)
   for the others.  n < 2: lo = hi = NaN, *method = NULL.  Deterministic for
   a given seed. */
void stats_ci(const double *x, size_t n, enum spec_estimator e, double p, double level,
	      uint64_t seed, double *lo, double *hi, const char **method);

void stats_summarise(const double *x, size_t n, struct stats_summary *out);

/* Quantile q in [0,1] with linear interpolation (GSL's definition). */
double stats_quantile(const double *x, size_t n, double q);

/* Two-sample comparison for `runner compare`: Welch's t-test on the means
   and Mann-Whitney U (normal approximation with tie correction).  Two-sided
   p-values; NaN when either side has n < 2. */
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
   of levels written (at most max). */
struct stats_level {
	char name[16];
	double size;			/* largest x on the plateau (bytes) */
	double latency;			/* median y over the plateau */
	size_t first, last;		/* indices of the plateau in x[] */
};
size_t stats_knees(const double *x, const double *y, size_t n,
		   struct stats_level *levels, size_t max);

#endif
