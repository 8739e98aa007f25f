/*
 * decide.c - the arithmetic of `runner compare` and of intervals built from
 * rounds (design §5.5): a ratio of two positive quantities with its interval
 * from round-level estimates, Holm's correction when many points are tested
 * at once, and the geometric mean that summarises ratios.
 *
 * Ratios are handled on the log scale: a 2x slowdown and a 2x speed-up are
 * then the same distance from "no change", and the interval of b/a is the
 * exponential of a Welch interval of mean(log b) - mean(log a).
 */
#include "stats/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>

/* Mean and sample variance of log(x) over the finite, positive x. */
static size_t log_moments(const double *x, size_t n, double *mean, double *var)
{
	size_t k = 0;
	double s = 0, ss = 0;

	for (size_t i = 0; i < n; i++)
		if (isfinite(x[i]) && x[i] > 0) {
			s += log(x[i]);
			k++;
		}
	*mean = k ? s / k : NAN;
	for (size_t i = 0; i < n; i++)
		if (isfinite(x[i]) && x[i] > 0)
			ss += (log(x[i]) - *mean) * (log(x[i]) - *mean);
	*var = k > 1 ? ss / (k - 1) : NAN;
	return k;
}

void stats_ratio(const double *a, size_t na, const double *b, size_t nb, double level,
		 struct stats_ratio *out)
{
	double ma, va, mb, vb, se2, df, t, q;
	size_t ka = log_moments(a, na, &ma, &va), kb = log_moments(b, nb, &mb, &vb);

	out->ratio = out->lo = out->hi = out->p = NAN;
	out->n_a = ka;
	out->n_b = kb;
	if (ka == 0 || kb == 0)
		return;
	out->ratio = exp(mb - ma);
	if (ka < 2 || kb < 2 || !(level > 0 && level < 1))
		return;
	se2 = va / ka + vb / kb;
	if (se2 == 0) {		/* both sides constant: the ratio is exact */
		out->lo = out->hi = out->ratio;
		out->p = mb == ma ? 1.0 : 0.0;
		return;
	}
	df = se2 * se2 / ((va / ka) * (va / ka) / (ka - 1) + (vb / kb) * (vb / kb) / (kb - 1));
	q = gsl_cdf_tdist_Qinv((1.0 - level) / 2.0, df);
	out->lo = exp(mb - ma - q * sqrt(se2));
	out->hi = exp(mb - ma + q * sqrt(se2));
	t = (mb - ma) / sqrt(se2);
	out->p = 2.0 * gsl_cdf_tdist_Q(fabs(t), df);
}

/*
 * Holm (1979): sort the p-values, multiply the i-th smallest by (m - i),
 * keep the sequence non-decreasing, cap at 1.  Controls the family-wise
 * error rate with no assumption on how the tests depend on each other
 * (points of one run share a machine, so they do depend).  NaN p-values are
 * left NaN and do not count in m.
 */
int stats_holm(const double *p, size_t n, double *adj)
{
	size_t *idx, m = 0;
	double *tmp, run = 0;

	if (n == 0)
		return 0;
	idx = malloc(n * sizeof *idx);
	tmp = malloc(n * sizeof *tmp);
	if (!idx || !tmp) {
		free(idx);
		free(tmp);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		tmp[i] = isnan(p[i]) ? INFINITY : p[i];
		m += !isnan(p[i]);
	}
	gsl_sort_index(idx, tmp, 1, n);
	for (size_t r = 0; r < n; r++) {
		size_t i = idx[r];
		if (isnan(p[i])) {
			adj[i] = NAN;
			continue;
		}
		double a = fmin(1.0, p[i] * (double)(m - r));
		run = fmax(run, a);
		adj[i] = run;
	}
	free(idx);
	free(tmp);
	return 0;
}

double stats_geomean(const double *x, size_t n)
{
	double s = 0;
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (isfinite(x[i]) && x[i] > 0) {
			s += log(x[i]);
			k++;
		}
	return k ? exp(s / k) : NAN;
}
