/*
 * test_stats.c - outlier rules, estimators, summaries, quantiles,
 * confidence intervals and the two-sample comparison (runner/stats.c).
 *
 * Known answers are worked by hand from the definitions in stats.h
 * (quantiles are R's type 7: rank q*(n-1), interpolated) and checked
 * against R: t.test(1:3, 4:6) gives t = -3.6742, df = 4, p = 0.02131;
 * wilcox.test(1:3, 4:6, exact = FALSE) gives W = 0, p = 0.08086.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "stats/stats.h"
#include "tap.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))
#define MAXN 128

/* 2 4 4 4 5 5 7 9: mean 5, sample sd sqrt(32/7), median 4.5 */
static const double D1[] = { 9, 4, 2, 5, 4, 7, 4, 5 };

/* ---- estimators ---------------------------------------------------------- */

struct est_case {
	const char *name;
	double x[MAXN]; size_t n;
	enum spec_estimator e; double p;
	double want;
};

static const struct est_case est_cases[] = {
	{ "mean D1", { 9, 4, 2, 5, 4, 7, 4, 5 }, 8, EST_MEAN, 0, 5 },
	{ "median D1 (even n: middle pair averaged)", { 9, 4, 2, 5, 4, 7, 4, 5 }, 8, EST_MEDIAN, 0, 4.5 },
	{ "min D1", { 9, 4, 2, 5, 4, 7, 4, 5 }, 8, EST_MIN, 0, 2 },
	{ "max D1", { 9, 4, 2, 5, 4, 7, 4, 5 }, 8, EST_MAX, 0, 9 },
	/* cut floor(0.125*8) = 1 each end: 4 4 4 5 5 7 -> 29/6 */
	{ "trimmed_mean 0.125 D1", { 9, 4, 2, 5, 4, 7, 4, 5 }, 8, EST_TRIMMED_MEAN, 0.125, 29.0 / 6 },
	/* cut 2 each end: 4 4 5 5 */
	{ "trimmed_mean 0.25 D1", { 9, 4, 2, 5, 4, 7, 4, 5 }, 8, EST_TRIMMED_MEAN, 0.25, 4.5 },
	/* floor(0.1*8) = 0: nothing cut */
	{ "trimmed_mean 0.1 of 8 cuts nothing", { 9, 4, 2, 5, 4, 7, 4, 5 }, 8, EST_TRIMMED_MEAN, 0.1, 5 },
	{ "trimmed_mean p=0 is the mean", { 9, 4, 2, 5, 4, 7, 4, 5 }, 8, EST_TRIMMED_MEAN, 0, 5 },
	{ "trimmed_mean p=0.49 of 8 keeps the middle pair", { 9, 4, 2, 5, 4, 7, 4, 5 }, 8, EST_TRIMMED_MEAN, 0.49, 4.5 },
	{ "trimmed_mean p=0.5 is invalid", { 1, 2, 3 }, 3, EST_TRIMMED_MEAN, 0.5, NAN },
	{ "trimmed_mean p<0 is invalid", { 1, 2, 3 }, 3, EST_TRIMMED_MEAN, -0.1, NAN },
	/* huge outlier: the mean moves, the median and trimmed mean do not */
	{ "mean with huge outlier", { 1, 2, 3, 4, 5, 6, 7, 8, 9, 1e9 }, 10, EST_MEAN, 0, (45 + 1e9) / 10 },
	{ "median with huge outlier", { 1, 2, 3, 4, 5, 6, 7, 8, 9, 1e9 }, 10, EST_MEDIAN, 0, 5.5 },
	{ "trimmed_mean 0.1 with huge outlier", { 1, 2, 3, 4, 5, 6, 7, 8, 9, 1e9 }, 10, EST_TRIMMED_MEAN, 0.1, 5.5 },
	{ "mean ignores NaN", { 1, NAN, 3 }, 3, EST_MEAN, 0, 2 },
	{ "median ignores NaN", { NAN, 1, NAN, 3, 10 }, 5, EST_MEDIAN, 0, 3 },
	{ "max ignores +Inf", { 1, INFINITY, 3 }, 3, EST_MAX, 0, 3 },
	{ "min ignores -Inf", { 1, -INFINITY, 3 }, 3, EST_MIN, 0, 1 },
	{ "mean of n=0", { 0 }, 0, EST_MEAN, 0, NAN },
	{ "median of all-NaN", { NAN, NAN }, 2, EST_MEDIAN, 0, NAN },
	{ "mean n=1", { 42 }, 1, EST_MEAN, 0, 42 },
	{ "median n=1", { 42 }, 1, EST_MEDIAN, 0, 42 },
	{ "trimmed_mean 0.4 n=1", { 42 }, 1, EST_TRIMMED_MEAN, 0.4, 42 },
	{ "median all equal", { 3.5, 3.5, 3.5, 3.5 }, 4, EST_MEDIAN, 0, 3.5 },
	{ "mean all equal", { 3.5, 3.5, 3.5, 3.5 }, 4, EST_MEAN, 0, 3.5 },
	{ "median odd n", { 5, 1, 3 }, 3, EST_MEDIAN, 0, 3 },
	{ "mean of negatives", { -1, -2, -3, -4 }, 4, EST_MEAN, 0, -2.5 },
};

static void test_estimators(void)
{
	size_t i;

	for (i = 0; i < N_OF(est_cases); i++) {
		const struct est_case *c = &est_cases[i];
		is_num(stats_estimate(c->x, c->n, c->e, c->p), c->want, 1e-12 * fmax(1, fabs(c->want)), c->name);
	}
	is_num(stats_estimate(NULL, 0, EST_MEAN, 0), NAN, 0, "NULL array, n=0: NaN");
}

/* ---- outliers ------------------------------------------------------------ */

struct out_case {
	const char *name;
	double x[MAXN]; size_t n;
	enum spec_outlier rule; double k, lo, hi;
	size_t want_n;
	int want[MAXN];		/* is_out expected */
};

static const struct out_case out_cases[] = {
	{ "none marks nothing", { 1, 2, 1000 }, 3, OUT_NONE, 0, 0, 0, 0, { 0, 0, 0 } },
	{ "none still marks NaN", { 1, NAN, 2, 3 }, 4, OUT_NONE, 0, 0, 0, 1, { 0, 1, 0, 0 } },
	/* Q1 = 3.25, Q3 = 7.75, IQR 4.5: fences -3.5, 14.5 */
	{ "tukey 1.5 drops 100", { 1, 2, 3, 4, 5, 6, 7, 8, 9, 100 }, 10, OUT_TUKEY, 1.5, 0, 0, 1,
	  { 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 } },
	/* k = 0: outside [3.25, 7.75] */
	{ "tukey 0 drops outside the IQR", { 1, 2, 3, 4, 5, 6, 7, 8, 9, 100 }, 10, OUT_TUKEY, 0, 0, 0, 6,
	  { 1, 1, 1, 0, 0, 0, 0, 1, 1, 1 } },
	/* fences from the finite values 1..9,100 (NaN excluded), NaN marked */
	{ "tukey with NaN inside", { 1, 2, 3, 4, NAN, 5, 6, 7, 8, 9, 100 }, 11, OUT_TUKEY, 1.5, 0, 0, 2,
	  { 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1 } },
	{ "tukey all equal: nothing", { 2, 2, 2, 2 }, 4, OUT_TUKEY, 1.5, 0, 0, 0, { 0 } },
	/* tukey with IQR 0 drops everything off the common value */
	{ "tukey IQR 0 drops the odd one", { 2, 2, 2, 2, 2, 3 }, 6, OUT_TUKEY, 3, 0, 0, 1, { 0, 0, 0, 0, 0, 1 } },
	/* median 5.5, raw MAD 2.5: 3 * 1.4826 * 2.5 = 11.12 */
	{ "mad 3 drops 100", { 1, 2, 3, 4, 5, 6, 7, 8, 9, 100 }, 10, OUT_MAD, 3, 0, 0, 1,
	  { 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 } },
	/* 1 * 1.4826 * 2.5 = 3.7065: |1-5.5| = 4.5 out, |9-5.5| = 3.5 in */
	{ "mad 1 drops 1 and 100", { 1, 2, 3, 4, 5, 6, 7, 8, 9, 100 }, 10, OUT_MAD, 1, 0, 0, 2,
	  { 1, 0, 0, 0, 0, 0, 0, 0, 0, 1 } },
	{ "mad all equal: nothing", { 3, 3, 3, 3 }, 4, OUT_MAD, 3, 0, 0, 0, { 0 } },
	{ "mad 0 (majority equal): nothing", { 5, 5, 5, 5, 9 }, 5, OUT_MAD, 3, 0, 0, 0, { 0 } },
	{ "mad negative k: nothing", { 1, 2, 3, 100 }, 4, OUT_MAD, -1, 0, 0, 0, { 0 } },
	/* median 10: out above 20 and below 5 */
	{ "median_ratio 2", { 10, 11, 9, 25, 4, 10 }, 6, OUT_MEDIAN_RATIO, 2, 0, 0, 2, { 0, 0, 0, 1, 1, 0 } },
	{ "median_ratio boundary kept (x == k*median)", { 10, 20, 5, 10, 10 }, 5, OUT_MEDIAN_RATIO, 2, 0, 0, 0, { 0 } },
	{ "median_ratio k <= 1: nothing", { 10, 11, 9 }, 3, OUT_MEDIAN_RATIO, 1, 0, 0, 0, { 0 } },
	{ "median_ratio median <= 0: nothing", { -10, -11, 100 }, 3, OUT_MEDIAN_RATIO, 2, 0, 0, 0, { 0 } },
	/* floor(0.1*10) = 1 low, floor(0.2*10) = 2 high */
	{ "trim 0.1 0.2", { 5, 1, 9, 3, 7, 2, 8, 4, 6, 10 }, 10, OUT_TRIM, 0, 0.1, 0.2, 3,
	  { 0, 1, 1, 0, 0, 0, 0, 0, 0, 1 } },
	/* equal values: ranked by index; lowest = index 0, highest = 8, 9 */
	{ "trim ties broken by index", { 5, 5, 5, 5, 5, 5, 5, 5, 5, 5 }, 10, OUT_TRIM, 0, 0.1, 0.2, 3,
	  { 1, 0, 0, 0, 0, 0, 0, 0, 1, 1 } },
	/* floor(0.25*5) = 1, floor(0*5) = 0 */
	{ "trim lo only", { 3, 1, 2, 5, 4 }, 5, OUT_TRIM, 0, 0.25, 0, 1, { 0, 1, 0, 0, 0 } },
	/* NaN: marked and not ranked; 4 finite -> floor(0.25*4) = 1 each side */
	{ "trim counts finite values", { 3, NAN, 1, 2, 5 }, 5, OUT_TRIM, 0, 0.25, 0.25, 3, { 0, 1, 1, 0, 1 } },
	{ "trim too small a fraction: nothing", { 1, 2, 3 }, 3, OUT_TRIM, 0, 0.2, 0.2, 0, { 0 } },
	{ "n=1 tukey: nothing", { 7 }, 1, OUT_TUKEY, 1.5, 0, 0, 0, { 0 } },
	{ "all NaN: all marked", { NAN, NAN }, 2, OUT_TUKEY, 1.5, 0, 0, 2, { 1, 1 } },
	{ "Inf is marked like NaN", { 1, 2, INFINITY, 3 }, 4, OUT_MAD, 3, 0, 0, 1, { 0, 0, 1, 0 } },
};

static void test_outliers(void)
{
	unsigned char is_out[MAXN];
	double copy[MAXN];
	size_t i, j, got;
	char name[160];

	for (i = 0; i < N_OF(out_cases); i++) {
		const struct out_case *c = &out_cases[i];
		int same = 1;

		memset(is_out, 7, sizeof is_out);	/* every entry must be written */
		memcpy(copy, c->x, sizeof copy);
		got = stats_outliers(copy, c->n, c->rule, c->k, c->lo, c->hi, is_out);
		snprintf(name, sizeof name, "outliers: %s: count", c->name);
		is_num((double)got, (double)c->want_n, 0, name);
		for (j = 0; j < c->n; j++)
			same &= is_out[j] == c->want[j];
		snprintf(name, sizeof name, "outliers: %s: which", c->name);
		if (!ok(same, "%s", name))
			for (j = 0; j < c->n; j++)
				printf("#   [%zu] %g got %d want %d\n", j, c->x[j], is_out[j], c->want[j]);
		ok(is_out[c->n] == 7, "outliers: %s: nothing written past n", c->name);
		ok(memcmp(copy, c->x, sizeof copy) == 0, "outliers: %s: input untouched", c->name);
	}

	/* floor(0.29 * 100) must be 29 although 0.29 * 100 computes as 28.999... */
	{
		double x[100];
		unsigned char o[100];
		for (j = 0; j < 100; j++)
			x[j] = (double)((j * 37) % 100);
		is_num((double)stats_outliers(x, 100, OUT_TRIM, 0, 0.29, 0.07, o), 36, 0,
		       "trim 0.29/0.07 of 100 drops 29 + 7");
		for (got = 0, j = 0; j < 100; j++)
			got += o[j] && (x[j] < 29 || x[j] >= 93);
		is_num((double)got, 36, 0, "trim 0.29/0.07 drops values 0..28 and 93..99");
	}
	is_num((double)stats_outliers(NULL, 0, OUT_TUKEY, 1.5, 0, 0, NULL), 0, 0, "outliers: n=0");
}

/* ---- summaries and quantiles -------------------------------------------- */

static void test_summary(void)
{
	struct stats_summary s;
	double d1[8], nan_d1[10] = { 9, NAN, 4, 2, 5, 4, NAN, 7, 4, 5 };

	memcpy(d1, D1, sizeof d1);
	stats_summarise(d1, 8, &s);
	ok(memcmp(d1, D1, sizeof d1) == 0, "summary: input untouched");
	is_num((double)s.n, 8, 0, "summary D1: n");
	is_num(s.mean, 5, 1e-12, "summary D1: mean");
	is_num(s.median, 4.5, 1e-12, "summary D1: median");
	is_num(s.std, sqrt(32.0 / 7), 1e-12, "summary D1: std = sqrt(32/7)");
	is_num(s.cv, sqrt(32.0 / 7) / 5, 1e-12, "summary D1: cv");
	/* |x - 4.5| = 2.5 .5 .5 .5 .5 .5 2.5 4.5 -> median .5 */
	is_num(s.mad, 0.5, 1e-12, "summary D1: raw mad");
	is_num(s.min, 2, 0, "summary D1: min");
	is_num(s.max, 9, 0, "summary D1: max");
	/* ranks 0.35, 1.75, 5.25, 6.65 of 2 4 4 4 5 5 7 9 */
	is_num(s.p5, 2.7, 1e-12, "summary D1: p5");
	is_num(s.p25, 4, 1e-12, "summary D1: p25");
	is_num(s.p75, 5.5, 1e-12, "summary D1: p75");
	is_num(s.p95, 8.3, 1e-12, "summary D1: p95");

	stats_summarise(nan_d1, 10, &s);
	is_num((double)s.n, 8, 0, "summary D1 with NaNs: n counts finite values");
	is_num(s.std, sqrt(32.0 / 7), 1e-12, "summary D1 with NaNs: std");
	is_num(s.p95, 8.3, 1e-12, "summary D1 with NaNs: p95");

	stats_summarise(NULL, 0, &s);
	is_num((double)s.n, 0, 0, "summary n=0: n");
	is_num(s.mean, NAN, 0, "summary n=0: mean NaN");
	is_num(s.mad, NAN, 0, "summary n=0: mad NaN");
	is_num(s.p5, NAN, 0, "summary n=0: p5 NaN");

	stats_summarise((double[]){ 3.25 }, 1, &s);
	is_num((double)s.n, 1, 0, "summary n=1: n");
	is_num(s.mean, 3.25, 0, "summary n=1: mean");
	is_num(s.std, NAN, 0, "summary n=1: std NaN");
	is_num(s.cv, NAN, 0, "summary n=1: cv NaN");
	is_num(s.mad, 0, 0, "summary n=1: mad 0");
	is_num(s.p95, 3.25, 0, "summary n=1: p95");

	stats_summarise((double[]){ 6, 6, 6, 6, 6 }, 5, &s);
	is_num(s.std, 0, 0, "summary all equal: std 0");
	is_num(s.cv, 0, 0, "summary all equal: cv 0");
	is_num(s.mad, 0, 0, "summary all equal: mad 0");
	is_num(s.p5, 6, 0, "summary all equal: p5");

	stats_summarise((double[]){ -1, 1 }, 2, &s);
	is_num(s.cv, NAN, 0, "summary mean 0: cv NaN");
	is_num(s.std, sqrt(2), 1e-12, "summary -1 1: std sqrt 2");

	stats_summarise((double[]){ -2, -4, -6 }, 3, &s);
	is_num(s.cv, 0.5, 1e-12, "summary negative mean: cv uses |mean|");
}

struct q_case { double q, want; };

static void test_quantiles(void)
{
	static const double x[] = { 40, 10, 30, 20 };
	static const struct q_case c[] = {
		{ 0, 10 }, { 1, 40 }, { 0.5, 25 }, { 1.0 / 3, 20 }, { 0.9, 37 },
		{ 0.25, 17.5 }, { -0.1, NAN }, { 1.1, NAN }, { NAN, NAN },
	};
	char name[64];
	size_t i;

	for (i = 0; i < N_OF(c); i++) {
		snprintf(name, sizeof name, "quantile %g of 10 20 30 40", c[i].q);
		is_num(stats_quantile(x, 4, c[i].q), c[i].want, 1e-12, name);
	}
	is_num(stats_quantile((double[]){ NAN, 5, NAN }, 3, 0.7), 5, 0, "quantile of one finite value");
	is_num(stats_quantile(NULL, 0, 0.5), NAN, 0, "quantile n=0");
}

/* ---- confidence intervals ------------------------------------------------ */

struct ci_case {
	const char *name;
	double x[MAXN]; size_t n;
	enum spec_estimator e; double p, level;
	double lo, hi;		/* NaN: expect NaN */
	const char *method;
};

/* 1..5: mean 3, s = sqrt(2.5); t(0.975, 4) = 2.7764451051977987,
   t(0.95, 4) = 2.131846786326649 */
static const struct ci_case ci_cases[] = {
	{ "t 95% of 1..5", { 1, 2, 3, 4, 5 }, 5, EST_MEAN, 0, 0.95,
	  1.0367568385224393, 4.9632431614775605, "t" },
	{ "t 90% of 1..5", { 5, 3, 1, 4, 2 }, 5, EST_MEAN, 0, 0.90,
	  1.4925566809376778, 4.5074433190623222, "t" },
	{ "t ignores NaN", { 1, NAN, 2, 3, 4, 5 }, 6, EST_MEAN, 0, 0.95,
	  1.0367568385224393, 4.9632431614775605, "t" },
	/* n = 2: t(0.975, 1) = 12.706204736174698, s = sqrt(2)/... */
	{ "t n=2", { 1, 3 }, 2, EST_MEAN, 0, 0.95,
	  2 - 12.706204736174698, 2 + 12.706204736174698, "t" },
	{ "t all equal", { 7, 7, 7 }, 3, EST_MEAN, 0, 0.95, 7, 7, "t" },
	{ "bootstrap all equal", { 7, 7, 7 }, 3, EST_MEDIAN, 0, 0.95, 7, 7, "bootstrap" },
	{ "trimmed mean all equal", { 0.1, 0.1, 0.1, 0.1 }, 4, EST_TRIMMED_MEAN, 0.25, 0.95, 0.1, 0.1, "bootstrap" },
	{ "n=1", { 7 }, 1, EST_MEAN, 0, 0.95, NAN, NAN, NULL },
	{ "n=1 median", { 7 }, 1, EST_MEDIAN, 0, 0.95, NAN, NAN, NULL },
	{ "n=0", { 0 }, 0, EST_MEDIAN, 0, 0.95, NAN, NAN, NULL },
	{ "one finite value", { NAN, 7, NAN }, 3, EST_MEAN, 0, 0.95, NAN, NAN, NULL },
	{ "level 0 is invalid", { 1, 2, 3 }, 3, EST_MEAN, 0, 0, NAN, NAN, NULL },
	{ "level 95 (percent) is invalid", { 1, 2, 3 }, 3, EST_MEAN, 0, 95, NAN, NAN, NULL },
	{ "bad trimmed p", { 1, 2, 3 }, 3, EST_TRIMMED_MEAN, 0.7, 0.95, NAN, NAN, NULL },
};

static void test_ci_table(void)
{
	double lo, hi;
	const char *m;
	char name[160];
	size_t i;

	for (i = 0; i < N_OF(ci_cases); i++) {
		const struct ci_case *c = &ci_cases[i];
		stats_ci(c->x, c->n, c->e, c->p, c->level, 1, &lo, &hi, &m);
		snprintf(name, sizeof name, "ci %s: lo", c->name);
		is_num(lo, c->lo, 1e-9, name);
		snprintf(name, sizeof name, "ci %s: hi", c->name);
		is_num(hi, c->hi, 1e-9, name);
		snprintf(name, sizeof name, "ci %s: method", c->name);
		is_str(m, c->method, name);
	}
}

static void test_bootstrap(void)
{
	enum { N = 400 };
	static double x[N], shuffled[N], copy[N];
	double lo1, hi1, lo2, hi2, lo3, hi3, tlo, thi, med, half, want;
	const char *m;
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	size_t i;

	gsl_rng_set(r, 12345);
	for (i = 0; i < N; i++)
		x[i] = 100 + gsl_ran_gaussian(r, 10);
	memcpy(copy, x, sizeof x);
	memcpy(shuffled, x, sizeof x);
	gsl_ran_shuffle(r, shuffled, N, sizeof(double));
	gsl_rng_free(r);

	stats_ci(x, N, EST_MEDIAN, 0, 0.95, 42, &lo1, &hi1, &m);
	is_str(m, "bootstrap", "bootstrap: method");
	ok(memcmp(x, copy, sizeof x) == 0, "bootstrap: input untouched");
	stats_ci(x, N, EST_MEDIAN, 0, 0.95, 42, &lo2, &hi2, &m);
	ok(lo1 == lo2 && hi1 == hi2, "bootstrap: same seed, same interval");
	stats_ci(shuffled, N, EST_MEDIAN, 0, 0.95, 42, &lo2, &hi2, &m);
	ok(lo1 == lo2 && hi1 == hi2, "bootstrap: independent of sample order");
	stats_ci(x, N, EST_MEDIAN, 0, 0.95, 43, &lo3, &hi3, &m);
	ok(lo1 != lo3 || hi1 != hi3, "bootstrap: another seed, another interval");
	stats_ci(x, N, EST_MEDIAN, 0, 0.95, 42 + (UINT64_C(1) << 32), &lo3, &hi3, &m);
	ok(lo1 != lo3 || hi1 != hi3, "bootstrap: seed bits above 31 count");

	med = stats_estimate(x, N, EST_MEDIAN, 0);
	ok(lo1 < med && med < hi1, "bootstrap: median %g inside [%g, %g]", med, lo1, hi1);
	/* Asymptotic 95 % half-width of a normal median: 1.96 * 1.2533 *
	   sigma / sqrt(n) = 1.228 for sigma 10, n 400; the bootstrap of a
	   median is lumpy, so allow 35 %. */
	half = (hi1 - lo1) / 2;
	want = 1.96 * 1.2533 * 10 / sqrt(N);
	ok(fabs(half - want) < 0.35 * want, "bootstrap: median half-width %g near %g", half, want);

	/* The bootstrap of the mean (trimmed_mean p=0) should match the t
	   interval within a few per cent at n = 400. */
	stats_ci(x, N, EST_TRIMMED_MEAN, 0, 0.95, 7, &lo2, &hi2, &m);
	stats_ci(x, N, EST_MEAN, 0, 0.95, 7, &tlo, &thi, &m);
	is_str(m, "t", "mean: method t");
	ok(fabs((hi2 - lo2) - (thi - tlo)) < 0.1 * (thi - tlo),
	   "bootstrap of the mean %g wide, t interval %g wide", hi2 - lo2, thi - tlo);
	ok(fabs((hi2 + lo2) / 2 - (thi + tlo) / 2) < 0.1 * (thi - tlo), "bootstrap of the mean centred like t");

	/* min / max: the interval lies within the data */
	stats_ci(x, N, EST_MIN, 0, 0.95, 1, &lo2, &hi2, &m);
	ok(lo2 == stats_estimate(x, N, EST_MIN, 0) && hi2 >= lo2, "bootstrap min: lo is the sample min");
	stats_ci(x, N, EST_MAX, 0, 0.95, 1, &lo2, &hi2, &m);
	ok(hi2 == stats_estimate(x, N, EST_MAX, 0) && lo2 <= hi2, "bootstrap max: hi is the sample max");

	/* A narrower level gives a narrower interval */
	stats_ci(x, N, EST_MEDIAN, 0, 0.5, 42, &lo2, &hi2, &m);
	ok(lo2 >= lo1 && hi2 <= hi1 && hi2 - lo2 < hi1 - lo1, "bootstrap: 50 %% inside 95 %%");

	/* Pinned outputs (not independent answers): `runner rerun` relies on
	   the same seed giving the same interval, so any change to the
	   resampling (RNG, seed folding, draw order, quantile rule) shows
	   here.  Digits of pi: 1 1 2 3 3 4 5 5 5 6 7 8 9 9 9. */
	{
		static const double pi[] = { 3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9 };
		stats_ci(pi, 15, EST_MEDIAN, 0, 0.95, 1, &lo2, &hi2, &m);
		ok(lo2 == 3 && hi2 == 7, "bootstrap pinned: median, seed 1: [%g, %g]", lo2, hi2);
		stats_ci(pi, 15, EST_TRIMMED_MEAN, 0.2, 0.95, 2024, &lo2, &hi2, &m);
		is_num(lo2, 31.0 / 9, 1e-12, "bootstrap pinned: trimmed_mean 0.2, seed 2024: lo");
		is_num(hi2, 62.0 / 9, 1e-12, "bootstrap pinned: trimmed_mean 0.2, seed 2024: hi");
	}

	/* A huge outlier barely moves the median's interval */
	x[0] = 1e12;
	stats_ci(x, N, EST_MEDIAN, 0, 0.95, 42, &lo2, &hi2, &m);
	ok(fabs(lo2 - lo1) < 1 && fabs(hi2 - hi1) < 1, "bootstrap median: huge outlier shifts little");
}

/* ---- comparison ---------------------------------------------------------- */

struct cmp_case {
	const char *name;
	double a[MAXN]; size_t na;
	double b[MAXN]; size_t nb;
	double t, df, tp, u, up, ratio;
};

/* References: welch via the definitions, the t tail integrated numerically;
   U and p via R's wilcox.test formula (tie-corrected, continuity). */
static const struct cmp_case cmp_cases[] = {
	{ "1:3 vs 4:6 (R: t.test p 0.02131, wilcox p 0.08086)",
	  { 1, 2, 3 }, 3, { 4, 5, 6 }, 3,
	  3.6742346141747673, 4, 0.02131164112876638, 0, 0.0808555983700523, 2.5 },
	{ "with ties",
	  { 1.1, 2.3, 2.3, 3.5, 4.0, 5.2 }, 6, { 2.3, 4.0, 4.8, 6.1, 7.7 }, 5,
	  1.7491710051039315, 7.079986180970837, 0.1232593678032502, 6.5, 0.13954714372531596,
	  1.6551724137931034 },
	{ "with ties, swapped",
	  { 2.3, 4.0, 4.8, 6.1, 7.7 }, 5, { 1.1, 2.3, 2.3, 3.5, 4.0, 5.2 }, 6,
	  -1.7491710051039315, 7.079986180970837, 0.1232593678032502, 23.5, 0.13954714372531596,
	  2.9 / 4.8 },
	/* NaNs are dropped before anything is computed */
	{ "NaN ignored",
	  { 1, NAN, 2, 3 }, 4, { 4, 5, NAN, 6 }, 4,
	  3.6742346141747673, 4, 0.02131164112876638, 0, 0.0808555983700523, 2.5 },
	/* identical samples: t 0, p 1; U = mu = 4.5 -> z 0, p 1 */
	{ "identical samples",
	  { 1, 2, 3 }, 3, { 3, 2, 1 }, 3, 0, 4, 1, 4.5, 1, 1 },
	{ "both constant, equal", { 2, 2 }, 2, { 2, 2, 2 }, 3, 0, NAN, 1, 3, 1, 1 },
	/* U_a = 0; tie-corrected sigma^2 = 6/12 * (6 - (8-2+27-3)/20) = 2.25 */
	{ "both constant, different", { 2, 2 }, 2, { 3, 3, 3 }, 3, INFINITY, NAN, 0, 0,
	  0.09558070454562939, 1.5 },
	{ "n=1 side", { 1 }, 1, { 1, 2, 3 }, 3, NAN, NAN, NAN, NAN, NAN, 2 },
	{ "empty side", { 0 }, 0, { 1, 2, 3 }, 3, NAN, NAN, NAN, NAN, NAN, NAN },
	{ "median(a) == 0: ratio NaN", { -1, 0, 1 }, 3, { 1, 2, 3 }, 3,
	  2.4494897427831779, 4, 0.07048399691022222, 0.5, 0.12118327283746322, NAN },
};

static void test_compare(void)
{
	struct stats_compare c;
	char name[200];
	size_t i;

	for (i = 0; i < N_OF(cmp_cases); i++) {
		const struct cmp_case *k = &cmp_cases[i];
		stats_compare(k->a, k->na, k->b, k->nb, &c);
		snprintf(name, sizeof name, "compare %s: welch t", k->name);
		is_num(c.welch_t, k->t, 1e-9, name);
		snprintf(name, sizeof name, "compare %s: welch df", k->name);
		is_num(c.welch_df, k->df, 1e-9, name);
		snprintf(name, sizeof name, "compare %s: welch p", k->name);
		is_num(c.welch_p, k->tp, 1e-8, name);
		snprintf(name, sizeof name, "compare %s: U", k->name);
		is_num(c.mw_u, k->u, 1e-12, name);
		snprintf(name, sizeof name, "compare %s: U p", k->name);
		is_num(c.mw_p, k->up, 1e-9, name);
		snprintf(name, sizeof name, "compare %s: ratio", k->name);
		is_num(c.ratio, k->ratio, 1e-12, name);
	}
}

/* The order-statistic interval for the median: the narrowest
   [x(j+1), x(n-j)] reaching the level, its exact binomial coverage. */
static void test_median_interval(void)
{
	static const double five[] = { 3, 1, 200, 2, 4 }, nine[] = { 9, 1, 8, 2, 7, 3, 6, 4, 5 };
	static const double two[] = { 4, 2 }, gaps[] = { NAN, 5, 1, NAN, 3, 2, 4 };
	double lo, hi, lvl, m;

	m = stats_median_interval(five, 5, 0.95, &lo, &hi, &lvl);
	is_num(m, 3, 0, "median of 5 with one far value");
	is_num(lo, 1, 0, "5 values: the range (low)");
	is_num(hi, 200, 0, "5 values: the range (high)");
	is_num(lvl, 0.9375, 1e-12, "5 values: coverage 1 - 2/32");
	/* n = 9: j = 1 covers 1 - 2 * 10/512 = 0.9609; j = 2 only 0.8203 */
	m = stats_median_interval(nine, 9, 0.95, &lo, &hi, &lvl);
	is_num(m, 5, 0, "median of 9");
	is_num(lo, 2, 0, "9 values: the 2nd smallest");
	is_num(hi, 8, 0, "9 values: the 2nd largest");
	is_num(lvl, 1 - 20.0 / 512, 1e-12, "9 values: coverage");
	/* a lower level narrows it: n = 9 at 80 %: j = 2 (0.8203) */
	stats_median_interval(nine, 9, 0.80, &lo, &hi, &lvl);
	ok(lo == 3 && hi == 7, "9 values at 80 %%: [x(3), x(7)]");
	is_num(lvl, 1 - 2 * 46.0 / 512, 1e-12, "9 values at 80 %%: coverage");
	m = stats_median_interval(two, 2, 0.95, &lo, &hi, &lvl);
	ok(m == 3 && lo == 2 && hi == 4 && lvl == 0.5, "2 values: the range, 50 %%");
	m = stats_median_interval(gaps, 7, 0.95, &lo, &hi, &lvl);
	ok(m == 3 && lo == 1 && hi == 5, "NaNs are ignored (5 values left)");
	m = stats_median_interval(five, 1, 0.95, &lo, &hi, &lvl);
	ok(m == 3 && isnan(lo) && isnan(hi) && isnan(lvl), "1 value: a median, no interval");
}

int main(void)
{
	test_estimators();
	test_outliers();
	test_summary();
	test_quantiles();
	test_ci_table();
	test_bootstrap();
	test_median_interval();
	test_compare();
	return done_testing();
}
