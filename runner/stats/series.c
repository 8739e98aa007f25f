/*
 * series.c - diagnostics of a sample sequence in time order (design §5.5):
 * a level shift (Pettitt's test), a monotonic trend (Mann-Kendall) and the
 * number of modes (a Gaussian kernel density).  They answer "is this point
 * one stationary distribution?", which the estimator and its interval
 * presume and which a drifting host often breaks.
 *
 * All three are rank- or density-based, so one wild sample moves none of
 * them much, and each carries an effect-size floor besides its p-value: on a
 * few hundred samples a 0.5 % step is "significant" and still no finding.
 */
#include "stats/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

/* The finite values of x in time order (the order matters here). */
static double *finite_in_order(const double *x, size_t n, size_t *m)
{
	double *v;
	size_t k = 0;

	*m = 0;
	if (!x || n == 0 || !(v = malloc(n * sizeof *v)))
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (isfinite(x[i]))
			v[k++] = x[i];
	*m = k;
	return v;
}

/* Mid-ranks (1-based, ties share their mean rank) of v[0..m). */
static double *midranks(const double *v, size_t m)
{
	size_t *idx = malloc(m * sizeof *idx);
	double *r = malloc(m * sizeof *r);

	if (!idx || !r) {
		free(idx);
		free(r);
		return NULL;
	}
	gsl_sort_index(idx, v, 1, m);
	for (size_t i = 0; i < m;) {
		size_t j = i;
		while (j + 1 < m && v[idx[j + 1]] == v[idx[i]])
			j++;
		for (size_t k = i; k <= j; k++)
			r[idx[k]] = (double)(i + j) / 2.0 + 1.0;
		i = j + 1;
	}
	free(idx);
	return r;
}

static double median_of(const double *v, size_t m)
{
	double *c = malloc(m * sizeof *c), med;

	if (!c || m == 0) {
		free(c);
		return NAN;
	}
	memcpy(c, v, m * sizeof *c);
	gsl_sort(c, 1, m);
	med = gsl_stats_median_from_sorted_data(c, 1, m);
	free(c);
	return med;
}

/* Sum of |v - median(v)| over v[0..m). */
static double l1_cost(const double *v, size_t m, double *scratch)
{
	double med, c = 0;

	memcpy(scratch, v, m * sizeof *v);
	gsl_sort(scratch, 1, m);
	med = gsl_stats_median_from_sorted_data(scratch, 1, m);
	for (size_t i = 0; i < m; i++)
		c += fabs(v[i] - med);
	return c;
}

/*
 * Pettitt's maximum says that there is a step, but drifts from where it is
 * (toward the longer side: each added sample moves U by a random amount).
 * The split that leaves the least absolute deviation from the two medians
 * places it: exact for a clean step, robust to stray samples.  O(m^2 log m),
 * so long series keep Pettitt's own split.
 */
static size_t refine_split(const double *v, size_t m, size_t min_seg, size_t at)
{
	double *tmp, best = INFINITY;
	size_t where = at;

	if (m > 2000 || !(tmp = malloc(m * sizeof *tmp)))
		return at;
	for (size_t k = min_seg; k + min_seg <= m; k++) {
		double c = l1_cost(v, k, tmp) + l1_cost(v + k, m - k, tmp);
		if (c < best) {
			best = c;
			where = k;
		}
	}
	free(tmp);
	return where;
}

/*
 * Pettitt (1979): U_k = 2 * (rank sum of the first k) - k (n + 1), K = max
 * |U_k| over the allowed splits, p ~= 2 exp(-6 K^2 / (n^3 + n^2)).  The
 * approximation is conservative for small p, which is the side that matters
 * for false alarms.  The medians either side are taken at the refined split.
 */
int stats_level_shift(const double *x, size_t n, size_t min_seg, double alpha,
		      double min_rel, struct stats_shift *out)
{
	size_t m, best = 0;
	double *v = finite_in_order(x, n, &m), *r, cum = 0, bestu = -1;

	memset(out, 0, sizeof *out);
	out->p = out->before = out->after = NAN;
	if (min_seg < 2)
		min_seg = 2;
	if (!v || m < 2 * min_seg) {
		free(v);
		return 0;
	}
	if (!(r = midranks(v, m))) {
		free(v);
		return -1;
	}
	for (size_t k = 1; k < m; k++) {
		double u;

		cum += r[k - 1];
		u = fabs(2.0 * cum - (double)k * ((double)m + 1.0));
		if (k >= min_seg && m - k >= min_seg && u > bestu) {
			bestu = u;
			best = k;
		}
	}
	free(r);
	out->at = refine_split(v, m, min_seg, best);
	out->p = fmin(1.0, 2.0 * exp(-6.0 * bestu * bestu /
				     ((double)m * m * m + (double)m * m)));
	out->before = median_of(v, out->at);	/* at the refined split, as said above */
	out->after = median_of(v + out->at, m - out->at);
	out->found = out->p < alpha && out->before != 0 &&
		     fabs(out->after / out->before - 1.0) >= min_rel;
	free(v);
	return 0;
}

/*
 * Mann-Kendall: S = sum over i < j of sign(x_j - x_i), variance with the
 * tie correction, continuity-corrected z.  The size of the trend is Sen's
 * slope (median of pairwise slopes) times the length, relative to the
 * median: "the series moved this much from its start to its end".
 */
int stats_trend(const double *x, size_t n, double alpha, double min_rel,
		struct stats_trend *out)
{
	size_t m, np = 0;
	double *v = finite_in_order(x, n, &m), *slopes, s = 0, var, z, med;

	memset(out, 0, sizeof *out);
	out->p = out->rel_change = NAN;
	if (!v || m < 4) {
		free(v);
		return 0;
	}
	slopes = malloc((m * (m - 1) / 2) * sizeof *slopes);
	if (!slopes) {
		free(v);
		return -1;
	}
	for (size_t i = 0; i < m; i++)
		for (size_t j = i + 1; j < m; j++) {
			s += (v[j] > v[i]) - (v[j] < v[i]);
			slopes[np++] = (v[j] - v[i]) / (double)(j - i);
		}
	var = (double)m * (m - 1) * (2.0 * m + 5) / 18.0;
	{
		double *c = malloc(m * sizeof *c);
		if (!c) {
			free(v);
			free(slopes);
			return -1;
		}
		memcpy(c, v, m * sizeof *c);
		gsl_sort(c, 1, m);
		for (size_t i = 0; i < m;) {
			size_t j = i;
			while (j + 1 < m && c[j + 1] == c[i])
				j++;
			double t = (double)(j - i + 1);
			var -= t * (t - 1) * (2 * t + 5) / 18.0;
			i = j + 1;
		}
		med = gsl_stats_median_from_sorted_data(c, 1, m);
		free(c);
	}
	z = var > 0 ? (s - (s > 0) + (s < 0)) / sqrt(var) : 0;
	out->s = s;
	out->p = 2.0 * gsl_cdf_ugaussian_Q(fabs(z));
	gsl_sort(slopes, 1, np);
	out->slope = gsl_stats_median_from_sorted_data(slopes, 1, np);
	out->rel_change = med != 0 ? out->slope * (double)(m - 1) / fabs(med) : NAN;
	out->found = out->p < alpha && isfinite(out->rel_change) &&
		     fabs(out->rel_change) >= min_rel;
	free(slopes);
	free(v);
	return 0;
}

#define KDE_GRID 512

/*
 * Modes of a Gaussian kernel density with Silverman's bandwidth
 * 0.9 min(sd, IQR/1.34) n^-1/5.  That bandwidth oversmooths a mixture,
 * which is the safe side: a second mode it still shows is real.  A local
 * maximum counts as a mode when it holds at least `min_share` of the
 * samples (between the valleys either side of it) and the valley between
 * it and its neighbour mode falls below 70 % of the lower of the two peaks:
 * a heavy tail's ripples are neither.
 */
size_t stats_modes(const double *x, size_t n, double min_share, double *where, size_t max)
{
	size_t m, nmax = 0, kept = 0;
	double *v = finite_in_order(x, n, &m), sd, iqr, h, lo, step;
	double dens[KDE_GRID];
	size_t peaks[KDE_GRID], valley[KDE_GRID + 1];

	if (!v || m == 0 || max == 0) {
		free(v);
		return 0;
	}
	if (m < 10) {		/* too few to tell a mode from a ripple */
		where[0] = median_of(v, m);
		free(v);
		return 1;
	}
	gsl_sort(v, 1, m);
	sd = gsl_stats_sd(v, 1, m);
	iqr = (gsl_stats_quantile_from_sorted_data(v, 1, m, 0.75) -
	       gsl_stats_quantile_from_sorted_data(v, 1, m, 0.25)) / 1.34;
	h = 0.9 * (iqr > 0 && iqr < sd ? iqr : sd) * pow((double)m, -0.2);
	if (!(h > 0)) {
		where[0] = v[0];
		free(v);
		return 1;
	}
	lo = v[0] - 3 * h;
	step = (v[m - 1] + 3 * h - lo) / (KDE_GRID - 1);
	for (size_t g = 0; g < KDE_GRID; g++) {
		double t = lo + step * g, d = 0;
		for (size_t i = 0; i < m; i++) {
			double u = (t - v[i]) / h;
			if (fabs(u) < 8)
				d += exp(-0.5 * u * u);
		}
		dens[g] = d;
	}
	for (size_t g = 1; g + 1 < KDE_GRID; g++)
		if (dens[g] > dens[g - 1] && dens[g] >= dens[g + 1])
			peaks[nmax++] = g;
	/* Merge neighbours whose valley is not deep enough, keeping the higher
	   peak, until every valley is below 70 % of its lower neighbour. */
	for (int merged = 1; merged && nmax > 1;) {
		merged = 0;
		for (size_t i = 0; i + 1 < nmax; i++) {
			size_t a = peaks[i], b = peaks[i + 1], vmin = a;
			for (size_t g = a; g <= b; g++)
				if (dens[g] < dens[vmin])
					vmin = g;
			if (dens[vmin] > 0.7 * fmin(dens[a], dens[b])) {
				size_t keep = dens[a] >= dens[b] ? a : b;
				peaks[i] = keep;
				memmove(peaks + i + 1, peaks + i + 2, (nmax - i - 2) * sizeof *peaks);
				nmax--;
				merged = 1;
				break;
			}
		}
	}
	/* Valleys between consecutive peaks split the samples into the peaks'
	   shares; a peak with too small a share is a ripple, not a mode. */
	valley[0] = 0;
	for (size_t i = 0; i + 1 < nmax; i++) {
		size_t vmin = peaks[i];
		for (size_t g = peaks[i]; g <= peaks[i + 1]; g++)
			if (dens[g] < dens[vmin])
				vmin = g;
		valley[i + 1] = vmin;
	}
	valley[nmax] = KDE_GRID - 1;
	for (size_t i = 0; i < nmax; i++) {
		double a = i == 0 ? -INFINITY : lo + step * valley[i];
		double b = i + 1 == nmax ? INFINITY : lo + step * valley[i + 1];
		size_t c = 0;
		for (size_t k = 0; k < m; k++)
			c += v[k] > a && v[k] <= b;
		if ((double)c >= min_share * (double)m && c >= 3 && kept < max)
			where[kept++] = lo + step * peaks[i];
	}
	if (kept == 0) {
		where[0] = median_of(v, m);
		kept = 1;
	}
	free(v);
	return kept;
}
