/*
 * rerun.c - where a rerun's estimate should land (stats.h,
 * docs/methodology.md "Intervals that survive a rerun").
 *
 * A point's confidence interval is about the true value under this run's
 * conditions.  Another run's estimate is itself a draw: even on a perfectly
 * repeatable host it falls inside a 95 % interval of the median of five
 * rounds only 83 % of the time (the two estimates' errors add).  The
 * question a reader asks of a rerun - will it agree? - needs a prediction
 * interval: the variance of the difference of two estimates, this run's
 * and a rerun's, plus, when the history of this host knows it, the
 * between-run variance that no run sees from the inside.
 */
#include "stats/stats.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>

/* Variance of the median of k normal draws over that of one draw, times k:
   pi/2 in the limit, 1.43 for k = 5; the limit is used (a few % wider for
   small k) so that rounds with heavier tails than a normal's are not
   under-covered. */
#define MEDIAN_VAR_FACTOR (M_PI / 2)

#define RERUN_MIN_ROUNDS 3

const char *stats_rerun_interval(const double *x, size_t n, double est, double tau,
				 double level, double *lo, double *hi)
{
	double sum = 0, sum2 = 0, s, half, q;
	size_t k = 0;
	int logscale = est > 0;

	*lo = *hi = NAN;
	if (!isfinite(est) || !(level > 0 && level < 1))
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (isfinite(x[i]))
			logscale &= x[i] > 0;
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(x[i]))
			continue;
		double v = logscale ? log(x[i]) : x[i];
		sum += v;
		sum2 += v * v;
		k++;
	}
	/* two rounds leave t one degree of freedom (12.7 at 95 %): the
	   interval came out 16-30 times the rounds' spread (+-3320 % for two
	   rounds 22 % apart), wider than any variation it could describe */
	if (k < RERUN_MIN_ROUNDS)
		return NULL;
	s = sqrt(fmax(0, (sum2 - sum * sum / (double)k) / (double)(k - 1)));
	q = gsl_cdf_tdist_Qinv((1 - level) / 2, (double)(k - 1));
	/* two independent estimates of one median, each from k rounds; and
	   each run's own offset from the host's long-run level (tau, as a
	   relative sd on the log scale) when a history measured one */
	half = q * q * 2 * MEDIAN_VAR_FACTOR * s * s / (double)k;
	/* t's wider quantile pays for s estimated from k rounds; tau comes
	   from the history, as a known spread: the normal quantile */
	if (isfinite(tau) && tau > 0) {
		double z = gsl_cdf_ugaussian_Qinv((1 - level) / 2);
		half += z * z * 2 * (logscale ? tau * tau : tau * tau * est * est);
	}
	half = sqrt(half);
	if (logscale) {
		*lo = est * exp(-half);
		*hi = est * exp(half);
	} else {
		*lo = est - half;
		*hi = est + half;
	}
	return isfinite(tau) && tau > 0 ? "rerun_rounds_history" : "rerun_rounds";
}

/* DerSimonian and Laird's moment estimator of the between-study variance
   (Controlled Clinical Trials 7, 1986), the runs of one point on one host
   being the studies: Q, the weighted scatter of the runs' estimates about
   their weighted mean, against what their own intervals explain (k - 1). */
double stats_between_run_tau(const double *est, const double *lo, const double *hi,
			     const double *level, size_t m)
{
	double sw = 0, sw2 = 0, swy = 0, q = 0, mean;
	double *y = malloc((m + 1) * sizeof *y), *w = malloc((m + 1) * sizeof *w);
	size_t k = 0;

	if (!y || !w) {
		free(y);
		free(w);
		return NAN;
	}
	for (size_t i = 0; i < m; i++) {
		if (!(est[i] > 0 && lo[i] > 0 && hi[i] > lo[i]) || !(level[i] > 0 && level[i] < 1))
			continue;
		/* a run's within-run sd on the log scale, from its interval */
		double z = gsl_cdf_ugaussian_Qinv((1 - level[i]) / 2);
		double sd = log(hi[i] / lo[i]) / 2 / z;
		y[k] = log(est[i]);
		w[k] = 1 / (sd * sd);
		k++;
	}
	if (k < 3) {
		free(y);
		free(w);
		return NAN;
	}
	for (size_t i = 0; i < k; i++) {
		sw += w[i];
		sw2 += w[i] * w[i];
		swy += w[i] * y[i];
	}
	mean = swy / sw;
	for (size_t i = 0; i < k; i++)
		q += w[i] * (y[i] - mean) * (y[i] - mean);
	free(y);
	free(w);
	return sqrt(fmax(0, (q - (double)(k - 1)) / (sw - sw2 / sw)));
}
