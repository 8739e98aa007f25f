/*
 * stats.c - outlier rules, estimators, spread, confidence intervals, the
 * two-sample comparison and knee finding (design §5.5).
 *
 * Every entry point works on a private, sorted copy of the finite values:
 * the caller's array is never touched, and NaN/Inf samples (a failed or
 * overflowed measurement) simply do not count.  Quantiles are GSL's linear
 * interpolation (R's type 7, numpy's default), so numbers can be checked
 * against either.
 *
 * GSL's default error handler aborts; every call below is guarded so that
 * GSL never sees an argument it would reject.  The one call left that can
 * raise a GSL error is gsl_rng_alloc running out of memory, which is why
 * main() should switch the handler off (gsl_set_error_handler_off): then
 * it is a NULL return, handled here like any failed malloc.
 */
#include "stats/stats.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#define BOOT_RESAMPLES	2000

/* The MAD of a normal sample is 0.6745 sigma; 1.4826 = 1/0.6745 makes
   "k MADs" mean "k standard deviations" for well-behaved data. */
#define MAD_NORMAL	1.4826

/*
 * Copy the finite values of x, sorted ascending.  Returns NULL with *m = 0
 * when there are none (or memory ran out: the callers then answer NaN,
 * which is what "no usable data" means to them anyway).
 */
static double *sorted_finite(const double *x, size_t n, size_t *m)
{
	double *s;
	size_t i, k = 0;

	*m = 0;
	if (!x || n == 0)
		return NULL;
	for (i = 0; i < n; i++)
		if (isfinite(x[i]))
			k++;
	if (k == 0 || !(s = malloc(k * sizeof *s)))
		return NULL;
	for (i = 0, k = 0; i < n; i++)
		if (isfinite(x[i]))
			s[k++] = x[i];
	gsl_sort(s, 1, k);
	*m = k;
	return s;
}

/* How many of m values a fraction p stands for, rounded down.  p is a
   decimal fraction with no exact binary form (0.29 * 100 computes as
   28.999...), so the product is nudged up by a few ulps before the floor. */
static size_t frac_count(double p, size_t m)
{
	double c;

	if (!(p > 0))		/* also NaN */
		return 0;
	c = floor(p * (double)m * (1.0 + 4 * DBL_EPSILON));
	return c >= (double)m ? m : (size_t)c;
}

static double quantile_sorted(const double *s, size_t m, double q)
{
	double r = gsl_stats_quantile_from_sorted_data(s, 1, m, q);
	size_t i = (size_t)(q * (double)(m - 1));

	/* GSL interpolates as (1-d)*lo + d*hi, which between two equal values
	   can land an ulp off them (p5 of 6 6 6 printed as 6.000000000000001):
	   clamp to the two order statistics it interpolates between. */
	if (i + 1 < m) {
		if (r < s[i])
			r = s[i];
		if (r > s[i + 1])
			r = s[i + 1];
	}
	return r;
}

/* Raw (unscaled) median absolute deviation around med. */
static double mad_sorted(const double *s, size_t m, double med)
{
	double *d, r;
	size_t i;

	if (!(d = malloc(m * sizeof *d)))
		return NAN;
	for (i = 0; i < m; i++)
		d[i] = fabs(s[i] - med);
	gsl_sort(d, 1, m);
	r = gsl_stats_median_from_sorted_data(d, 1, m);
	free(d);
	return r;
}

/* The estimator on sorted finite data, m >= 1.  p has been checked. */
static double estimate_sorted(const double *s, size_t m, enum spec_estimator e, double p)
{
	size_t c;

	switch (e) {
	case EST_MEAN:
		return gsl_stats_mean(s, 1, m);
	case EST_MEDIAN:
		return gsl_stats_median_from_sorted_data(s, 1, m);
	case EST_MIN:
		return s[0];
	case EST_MAX:
		return s[m - 1];
	case EST_TRIMMED_MEAN:
		c = frac_count(p, m);
		if (2 * c >= m)		/* p a hair under 0.5: keep the middle */
			c = (m - 1) / 2;
		return gsl_stats_mean(s + c, 1, m - 2 * c);
	}
	return NAN;
}

static int estimator_ok(enum spec_estimator e, double p)
{
	switch (e) {
	case EST_MEAN: case EST_MEDIAN: case EST_MIN: case EST_MAX:
		return 1;
	case EST_TRIMMED_MEAN:
		return p >= 0 && p < 0.5;
	}
	return 0;
}

/* ---- outliers ---------------------------------------------------------- */

struct ranked { double v; size_t i; };

static int cmp_ranked(const void *a, const void *b)
{
	const struct ranked *p = a, *q = b;

	if (p->v != q->v)
		return p->v < q->v ? -1 : 1;
	return (p->i > q->i) - (p->i < q->i);
}

/* OUT_TRIM: by rank, ties broken by position, so the count dropped is
   exactly floor(lo*n) + floor(hi*n) even when many samples are equal. */
static size_t mark_trim(const double *x, size_t n, size_t m, double lo, double hi,
			unsigned char *is_out)
{
	struct ranked *r;
	size_t i, k = 0, clo, chi;

	clo = frac_count(lo, m);
	chi = frac_count(hi, m);
	if (chi > m - clo)
		chi = m - clo;
	if (clo + chi == 0)
		return 0;
	if (!(r = malloc(m * sizeof *r)))
		return 0;
	for (i = 0; i < n; i++)
		if (isfinite(x[i]))
			r[k++] = (struct ranked){ x[i], i };
	qsort(r, m, sizeof *r, cmp_ranked);
	for (i = 0; i < clo; i++)
		is_out[r[i].i] = 1;
	for (i = m - chi; i < m; i++)
		is_out[r[i].i] = 1;
	free(r);
	return clo + chi;
}

size_t stats_outliers(const double *x, size_t n, enum spec_outlier rule,
		      double k, double lo, double hi, unsigned char *is_out)
{
	double *s, med, q1, q3, iqr, dev, flo = 0, fhi = 0;
	size_t i, m, marked = 0;
	int bounded = 0;	/* mark x < flo or x > fhi */

	if (!x || !is_out || n == 0)
		return 0;
	for (i = 0; i < n; i++) {
		is_out[i] = isfinite(x[i]) ? 0 : 1;
		marked += is_out[i];
	}
	if (rule == OUT_NONE || !(s = sorted_finite(x, n, &m)))
		return marked;

	switch (rule) {
	case OUT_NONE:
		break;
	case OUT_TUKEY:
		if (!(k >= 0))
			break;
		q1 = quantile_sorted(s, m, 0.25);
		q3 = quantile_sorted(s, m, 0.75);
		iqr = q3 - q1;
		flo = q1 - k * iqr;
		fhi = q3 + k * iqr;
		bounded = 1;
		break;
	case OUT_MAD:
		if (!(k >= 0))
			break;
		med = gsl_stats_median_from_sorted_data(s, 1, m);
		dev = mad_sorted(s, m, med);
		/* MAD == 0 means more than half the samples are identical: the
		   spread is unknown, not zero, so nothing can be called far. */
		if (!(dev > 0))
			break;
		flo = med - k * MAD_NORMAL * dev;
		fhi = med + k * MAD_NORMAL * dev;
		bounded = 1;
		break;
	case OUT_MEDIAN_RATIO:
		med = gsl_stats_median_from_sorted_data(s, 1, m);
		/* A ratio rule only means something for positive data and
		   k > 1; anything else would mark half the samples. */
		if (!(k > 1) || !(med > 0))
			break;
		flo = med / k;
		fhi = med * k;
		bounded = 1;
		break;
	case OUT_TRIM:
		marked += mark_trim(x, n, m, lo, hi, is_out);
		break;
	}
	if (bounded)
		for (i = 0; i < n; i++)
			if (!is_out[i] && (x[i] < flo || x[i] > fhi)) {
				is_out[i] = 1;
				marked++;
			}
	free(s);
	return marked;
}

/* ---- estimators and intervals ------------------------------------------ */

double stats_estimate(const double *x, size_t n, enum spec_estimator e, double p)
{
	double *s, r;
	size_t m;

	if (!estimator_ok(e, p) || !(s = sorted_finite(x, n, &m)))
		return NAN;
	r = estimate_sorted(s, m, e, p);
	free(s);
	return r;
}

/* Percentile bootstrap: resample the sorted data with replacement, take the
   estimator of each resample, and read the interval off the quantiles of
   those estimates.  Resampling the sorted copy (not x in caller order)
   makes the interval depend only on the multiset of values and the seed;
   it also means that counting how often each index is drawn and expanding
   the counts in index order gives the resample already sorted, in O(m)
   rather than a sort per resample. */
static int bootstrap(const double *s, size_t m, enum spec_estimator e, double p,
		     double level, uint64_t seed, double *lo, double *hi)
{
	double *est, *buf;
	size_t *cnt, b, i, j, k;
	gsl_rng *rng;

	/* gsl_rng_uniform_int draws below mt19937's range of 2^32 only */
	if (m > 0xffffffffu)
		return -1;
	est = malloc(BOOT_RESAMPLES * sizeof *est);
	buf = malloc(m * sizeof *buf);
	cnt = malloc(m * sizeof *cnt);
	rng = est && buf && cnt ? gsl_rng_alloc(gsl_rng_mt19937) : NULL;
	if (!rng) {
		free(est);
		free(buf);
		free(cnt);
		return -1;
	}
	/* mt19937 keeps only 32 bits of its seed: fold the high half in so
	   that seeds differing only above bit 31 still differ. */
	gsl_rng_set(rng, (unsigned long)((seed ^ (seed >> 32)) & 0xffffffffu));
	for (b = 0; b < BOOT_RESAMPLES; b++) {
		memset(cnt, 0, m * sizeof *cnt);
		for (i = 0; i < m; i++)
			cnt[gsl_rng_uniform_int(rng, m)]++;
		for (i = 0, k = 0; i < m; i++)
			for (j = 0; j < cnt[i]; j++)
				buf[k++] = s[i];
		est[b] = estimate_sorted(buf, m, e, p);
	}
	gsl_sort(est, 1, BOOT_RESAMPLES);
	*lo = quantile_sorted(est, BOOT_RESAMPLES, (1 - level) / 2);
	*hi = quantile_sorted(est, BOOT_RESAMPLES, 1 - (1 - level) / 2);
	gsl_rng_free(rng);
	free(cnt);
	free(buf);
	free(est);
	return 0;
}

void stats_ci(const double *x, size_t n, enum spec_estimator e, double p, double level,
	      uint64_t seed, double *lo, double *hi, const char **method)
{
	double *s, v, sd, t;
	size_t m;

	*lo = *hi = NAN;
	*method = NULL;
	if (!(level > 0 && level < 1) || !estimator_ok(e, p))
		return;
	if (!(s = sorted_finite(x, n, &m)))
		return;
	if (m < 2) {
		free(s);
		return;
	}
	*method = e == EST_MEAN ? "t" : "bootstrap";
	v = estimate_sorted(s, m, e, p);
	if (s[0] == s[m - 1]) {
		/* No spread: every resample and every t interval collapses
		   to the value; say so exactly rather than via rounding. */
		*lo = *hi = v;
	} else if (e == EST_MEAN) {
		sd = gsl_stats_sd_m(s, 1, m, v);
		t = gsl_cdf_tdist_Pinv(1 - (1 - level) / 2, (double)(m - 1));
		*lo = v - t * sd / sqrt((double)m);
		*hi = v + t * sd / sqrt((double)m);
	} else if (bootstrap(s, m, e, p, level, seed, lo, hi) < 0) {
		*method = NULL;
	}
	free(s);
}

void stats_summarise(const double *x, size_t n, struct stats_summary *out)
{
	double *s;
	size_t m;

	*out = (struct stats_summary){ 0, NAN, NAN, NAN, NAN, NAN,
				       NAN, NAN, NAN, NAN, NAN, NAN };
	if (!(s = sorted_finite(x, n, &m)))
		return;
	out->n = m;
	out->mean = gsl_stats_mean(s, 1, m);
	out->median = gsl_stats_median_from_sorted_data(s, 1, m);
	if (m >= 2) {
		out->std = gsl_stats_sd_m(s, 1, m, out->mean);
		out->cv = out->mean != 0 ? out->std / fabs(out->mean) : NAN;
	}
	out->mad = mad_sorted(s, m, out->median);
	out->min = s[0];
	out->max = s[m - 1];
	out->p5 = quantile_sorted(s, m, 0.05);
	out->p25 = quantile_sorted(s, m, 0.25);
	out->p75 = quantile_sorted(s, m, 0.75);
	out->p95 = quantile_sorted(s, m, 0.95);
	free(s);
}

double stats_quantile(const double *x, size_t n, double q)
{
	double *s, r;
	size_t m;

	if (!(q >= 0 && q <= 1) || !(s = sorted_finite(x, n, &m)))
		return NAN;
	r = quantile_sorted(s, m, q);
	free(s);
	return r;
}

/* The interval [x(j+1), x(n-j)] (1-based order statistics) covers the
   median with probability 1 - 2 P(Bin(n, 1/2) <= j), whatever the
   distribution: take the narrowest such pair that reaches `level`, or the
   whole range when none does (n = 5 gives at most 93.75 %). */
double stats_median_interval(const double *x, size_t n, double level, double *lo, double *hi,
			     double *achieved)
{
	double *s, med;
	size_t m, j = 0;

	*lo = *hi = *achieved = NAN;
	if (!(s = sorted_finite(x, n, &m)))
		return NAN;
	if (m == 0) {
		free(s);
		return NAN;
	}
	med = quantile_sorted(s, m, 0.5);
	if (m >= 2) {
		while (2 * (j + 1) < m &&
		       1 - 2 * gsl_cdf_binomial_P((unsigned)(j + 1), 0.5, (unsigned)m) >= level)
			j++;
		*lo = s[j];
		*hi = s[m - 1 - j];
		*achieved = 1 - 2 * (j ? gsl_cdf_binomial_P((unsigned)j, 0.5, (unsigned)m)
				       : pow(0.5, (double)m));
	}
	free(s);
	return med;
}

/* ---- two-sample comparison --------------------------------------------- */

static void welch(const double *a, size_t na, const double *b, size_t nb,
		  struct stats_compare *out)
{
	double ma = gsl_stats_mean(a, 1, na), mb = gsl_stats_mean(b, 1, nb);
	double va = gsl_stats_variance_m(a, 1, na, ma) / (double)na;
	double vb = gsl_stats_variance_m(b, 1, nb, mb) / (double)nb;
	double se2 = va + vb;

	if (se2 == 0) {
		/* Two constant samples: equal means are no evidence of a
		   difference, distinct ones are a certain difference. */
		out->welch_t = mb == ma ? 0 : copysign(INFINITY, mb - ma);
		out->welch_df = NAN;
		out->welch_p = mb == ma ? 1 : 0;
		return;
	}
	out->welch_t = (mb - ma) / sqrt(se2);
	/* Welch-Satterthwaite, with the variances as shares of se2 so that
	   tiny variances (1e-200) cannot underflow into 0/0 */
	va /= se2;
	vb /= se2;
	out->welch_df = 1 / (va * va / (double)(na - 1) + vb * vb / (double)(nb - 1));
	out->welch_p = 2 * gsl_cdf_tdist_Q(fabs(out->welch_t), out->welch_df);
	if (out->welch_p > 1)
		out->welch_p = 1;
}

struct tagged { double v; int from_b; };

static int cmp_tagged(const void *a, const void *b)
{
	const struct tagged *p = a, *q = b;

	return (p->v > q->v) - (p->v < q->v);
}

/* Mann-Whitney U of sample a (R's wilcox.test W), normal approximation with
   the tie-corrected variance and a continuity correction of 1/2 towards
   the mean: R's wilcox.test(a, b, exact = FALSE, correct = TRUE). */
static void mann_whitney(const double *a, size_t na, const double *b, size_t nb,
			 struct stats_compare *out)
{
	size_t N = na + nb, i, j, k;
	double ra = 0, ties = 0, mu, sigma2, z, d, t;
	struct tagged *all = malloc(N * sizeof *all);

	if (!all)
		return;
	for (i = 0; i < na; i++)
		all[i] = (struct tagged){ a[i], 0 };
	for (i = 0; i < nb; i++)
		all[na + i] = (struct tagged){ b[i], 1 };
	qsort(all, N, sizeof *all, cmp_tagged);
	for (i = 0; i < N; i = j) {
		for (j = i + 1; j < N && all[j].v == all[i].v; j++)
			;
		t = (double)(j - i);		/* a run of t ties shares */
		ties += t * t * t - t;		/* the mean rank of its span */
		for (k = i; k < j; k++)
			if (!all[k].from_b)
				ra += (double)(i + j + 1) / 2;
	}
	free(all);

	out->mw_u = ra - (double)na * (double)(na + 1) / 2;
	mu = (double)na * (double)nb / 2;
	sigma2 = (double)na * (double)nb / 12 *
		 ((double)(N + 1) - ties / ((double)N * (double)(N - 1)));
	d = out->mw_u - mu;
	if (!(sigma2 > 0)) {	/* every value tied: no evidence either way */
		out->mw_p = 1;
		return;
	}
	z = (d - (d > 0 ? 0.5 : d < 0 ? -0.5 : 0)) / sqrt(sigma2);
	out->mw_p = 2 * gsl_cdf_ugaussian_Q(fabs(z));
	if (out->mw_p > 1)
		out->mw_p = 1;
}

void stats_compare(const double *a, size_t na, const double *b, size_t nb,
		   struct stats_compare *out)
{
	double *sa, *sb, meda;
	size_t ma, mb;

	*out = (struct stats_compare){ NAN, NAN, NAN, NAN, NAN, NAN };
	sa = sorted_finite(a, na, &ma);
	sb = sorted_finite(b, nb, &mb);
	if (sa && sb) {
		meda = gsl_stats_median_from_sorted_data(sa, 1, ma);
		if (meda != 0)
			out->ratio = gsl_stats_median_from_sorted_data(sb, 1, mb) / meda;
		if (ma >= 2 && mb >= 2) {
			welch(sa, ma, sb, mb, out);
			mann_whitney(sa, ma, sb, mb, out);
		}
	}
	free(sa);
	free(sb);
}

/* ---- knees -------------------------------------------------------------
 *
 * A latency-vs-working-set curve (lmbench's lat_mem_rd) is a staircase:
 * one plateau per cache level, then memory.  The rules, all on log(y) so
 * that "within 15 %" means the same at 1 ns and at 100 ns:
 *
 *  1. Points with non-finite x or y, or y <= 0, are skipped.
 *  2. log(y) is smoothed by a median of 3 (end points kept): a one-point
 *     spike (a TLB or interrupt blip) vanishes, while a step edge, being
 *     monotone, stays exactly where it was.
 *  3. Runs: walking left to right, a point joins the current run when it
 *     is within KNEE_JOIN (15 %) of the run's running median; otherwise it
 *     starts a new run.  Runs of fewer than KNEE_MIN_POINTS (2) points are
 *     transition points (a gradual rise between levels) and belong to no
 *     level: one point cannot tell a plateau from a blip.  Except (3b):
 *     two transition points within sqrt(KNEE_LEVEL) of each other, entered
 *     and left by rises of KNEE_LEVEL or more, are a short plateau.
 *  4. A plateau within KNEE_LEVEL (1.5x) of the level before it continues
 *     that level (with the transition points between them).  Real cache
 *     steps are 2.5x or more (L1 4-5 cycles, L2 12-14, L3 40+, DRAM 200+);
 *     TLB-reach steps, L3 drift and prefetch effects are 1.1-1.4x.  So a
 *     1.3x TLB rise inside the DRAM region is not a level; a 1.6x rise is.
 *  5. A plateau that falls KNEE_LEVEL or more below the last level ends an
 *     excursion: every level it falls below is dropped, then rule 4
 *     applies to what is left.  Latency does not fall as the working set
 *     grows, so whatever rose and came back (an interrupted stretch of
 *     measurements) or started high (loop overhead at the smallest sizes)
 *     was not a cache level.
 *  6. By 4 and 5 each level is at least KNEE_LEVEL above the one before.
 *     Names: L1, L2, ... in order; the last of two or more is "Memory".
 *     A single level (a flat curve) is "L1".
 *  7. size = x of the level's last point; latency = median of the raw y
 *     over the level's points, first..last, transition points included when
 *     a level was continued across them.
 */
#define KNEE_JOIN	1.15
#define KNEE_LEVEL	1.5
#define KNEE_MIN_POINTS	2
/* A plateau this close to KNEE_LEVEL above a level (a factor either way)
   is a close call: on a Zen 5 guest the step from the L2 (3.3 ns) to the
   L2 with TLB misses (4.9-5.0 ns) came out 1.49x in one run and 1.50x in
   three, and the L2 ended at 2.9 MiB or 512 KiB accordingly. */
#define KNEE_CLOSE	1.05

/* indices into the valid points; close: stats_level.close_step */
struct span { size_t a, b; double med, close; };

static double median3(double p, double q, double r)
{
	if (p > q) { double t = p; p = q; q = t; }
	if (q > r) q = r;
	return p > q ? p : q;
}

/* Median of v[a..b] (copied, v untouched); buf has room for b-a+1. */
static double span_median(const double *v, size_t a, size_t b, double *buf)
{
	memcpy(buf, v + a, (b - a + 1) * sizeof *buf);
	gsl_sort(buf, 1, b - a + 1);
	return gsl_stats_median_from_sorted_data(buf, 1, b - a + 1);
}

/* Steps 3: split the smoothed log curve s[0..m) into runs. */
static size_t find_runs(const double *s, size_t m, struct span *run, double *buf)
{
	size_t nrun = 0, len = 1, i, j;
	double tol = log(KNEE_JOIN), med;

	buf[0] = s[0];
	run[0].a = 0;
	for (i = 1; i <= m; i++) {
		med = len % 2 ? buf[len / 2] : (buf[len / 2 - 1] + buf[len / 2]) / 2;
		if (i < m && fabs(s[i] - med) <= tol) {
			/* insertion into the sorted run keeps the running
			   median O(run length) per point */
			for (j = len; j > 0 && buf[j - 1] > s[i]; j--)
				buf[j] = buf[j - 1];
			buf[j] = s[i];
			len++;
			continue;
		}
		run[nrun].b = i - 1;
		run[nrun].med = med;
		nrun++;
		if (i < m) {
			run[nrun].a = i;
			buf[0] = s[i];
			len = 1;
		}
	}
	return nrun;
}

/* Step 3b: a stretch of two or more transition points, each step in it
   under sqrt(KNEE_LEVEL) and the whole under KNEE_LEVEL, entered and left
   by rises of a whole level (KNEE_LEVEL or more), is a short plateau: a
   level whose share of the cache ends soon after it starts, or whose page
   walks grow with the span (an AMD guest: an L3 at 14.0 and 16.5 ns over
   2-4 MiB between 9 and 127 ns; with stride 4096, 27-39 ns over 16-64 MiB
   between 10 and 167 ns).  A ramp (a gradual transition, every step below
   KNEE_LEVEL) never qualifies: nothing enters it by a whole level. */
static size_t join_shoulders(const double *s, size_t m, struct span *run, size_t nrun)
{
	double level = log(KNEE_LEVEL);
	size_t r, e, out = 0;

	for (r = 0; r < nrun; r = e) {
		size_t a = run[r].a;

		/* e: one past the longest chain of single points from r that
		   drifts less than half a level per step and a level in all */
		for (e = r; e < nrun && run[e].a == run[e].b; e++)
			if (e > r && (s[run[e].a] - s[run[e - 1].a] >= level / 2 ||
				      fabs(s[run[e].a] - s[a]) >= level))
				break;
		size_t b = e > r ? run[e - 1].b : a;
		if (e - r >= 2 && a > 0 && b + 1 < m && s[a] - s[a - 1] >= level &&
		    s[b + 1] - s[b] >= level) {
			run[out++] = (struct span){ a, b, (s[a] + s[b]) / 2, 0 };
			continue;
		}
		run[out++] = run[r];
		e = r + 1;
	}
	return out;
}

/* Steps 4-5: merge plateau runs into levels; lev[].med is the median of
   s over the level's whole span. */
static size_t find_levels(const double *s, const struct span *run, size_t nrun,
			  struct span *lev, double *buf)
{
	double tol = log(KNEE_LEVEL);
	size_t nl = 0, r;

	for (r = 0; r < nrun; r++) {
		double c = run[r].med;

		if (run[r].b - run[r].a + 1 < KNEE_MIN_POINTS)
			continue;
		while (nl > 0 && lev[nl - 1].med - c >= tol)
			nl--;
		/* a rise near the rule, joined or not, is said on the level below */
		if (nl > 0 && fabs(c - lev[nl - 1].med - tol) < log(KNEE_CLOSE))
			lev[nl - 1].close = exp(c - lev[nl - 1].med);
		if (nl > 0 && fabs(c - lev[nl - 1].med) < tol) {
			lev[nl - 1].b = run[r].b;
			lev[nl - 1].med = span_median(s, lev[nl - 1].a, lev[nl - 1].b, buf);
		} else {
			lev[nl] = run[r];
			lev[nl++].close = 0;
		}
	}
	return nl;
}

size_t stats_knees(const double *x, const double *y, size_t n,
		   struct stats_level *levels, size_t max)
{
	size_t *idx = NULL, m = 0, i, nrun, nl, out = 0;
	double *ly = NULL, *s = NULL, *buf = NULL;
	struct span *run = NULL, *lev = NULL;

	if (!x || !y || !levels || n == 0 || max == 0)
		return 0;
	idx = malloc(n * sizeof *idx);
	ly = malloc(n * sizeof *ly);
	s = malloc(n * sizeof *s);
	buf = malloc(n * sizeof *buf);
	run = malloc(n * sizeof *run);
	lev = malloc(n * sizeof *lev);
	if (!idx || !ly || !s || !buf || !run || !lev)
		goto done;

	for (i = 0; i < n; i++)
		if (isfinite(x[i]) && isfinite(y[i]) && y[i] > 0) {
			idx[m] = i;
			ly[m++] = log(y[i]);
		}
	if (m < KNEE_MIN_POINTS)
		goto done;
	s[0] = ly[0];
	s[m - 1] = ly[m - 1];
	for (i = 1; i + 1 < m; i++)
		s[i] = median3(ly[i - 1], ly[i], ly[i + 1]);

	nrun = find_runs(s, m, run, buf);
	nrun = join_shoulders(s, m, run, nrun);
	nl = find_levels(s, run, nrun, lev, buf);

	for (i = 0; i < nl && out < max; i++, out++) {
		struct stats_level *L = &levels[out];
		size_t j, k = 0;

		for (j = lev[i].a; j <= lev[i].b; j++)
			buf[k++] = y[idx[j]];
		gsl_sort(buf, 1, k);
		memset(L, 0, sizeof *L);
		if (i == nl - 1 && nl >= 2)
			snprintf(L->name, sizeof L->name, "Memory");
		else
			snprintf(L->name, sizeof L->name, "L%u", (unsigned)(i + 1));
		L->size = x[idx[lev[i].b]];
		L->latency = gsl_stats_median_from_sorted_data(buf, 1, k);
		L->first = idx[lev[i].a];
		L->last = idx[lev[i].b];
		L->close_step = lev[i].close;
	}
done:
	free(idx);
	free(ly);
	free(s);
	free(buf);
	free(run);
	free(lev);
	return out;
}
