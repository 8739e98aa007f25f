/*
 * changepoint.c - where a figure's history changed level (stats.h,
 * docs/methodology.md "History and change points").
 *
 * Unlike the tools that look at a history of bare numbers, each run here
 * comes with its own interval, and the interval says how much that run's
 * number could move by itself.  It is not the whole story: a within-run
 * interval cannot see what changes between runs (boot, placement, the
 * host's neighbours), so the run-to-run variance the intervals leave
 * unexplained is estimated from the series and added to every run's.
 *
 * The search (binary segmentation of a step function, weighted least
 * squares, a BIC-like penalty) only proposes steps.  Each is then judged on
 * what a reader can check: the two segments' intervals do not overlap, and
 * the step is larger than the noise threshold.  A step that fails is merged
 * away and the segments around it judged again, so a step that looked
 * real only next to a spurious neighbour does not survive.
 */
#include "stats/stats.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#define CP_LEVEL 0.95		/* the segments' intervals; a run's when it gives none */

/* The finite runs: values, variances (own + tau^2), original indices. */
struct cp_work {
	size_t m;
	double *x, *v;
	size_t *idx;
	unsigned char *cut;	/* cut[k]: a segment starts at k (k in 1..m-1) */
	double penalty;
};

static double median_of(double *tmp, size_t k)
{
	if (k == 0)
		return NAN;
	gsl_sort(tmp, 1, k);
	return gsl_stats_median_from_sorted_data(tmp, 1, k);
}

/* A run's own standard error from its interval: half-width / z. */
static double own_se(double lo, double hi, double level)
{
	if (!isfinite(lo) || !isfinite(hi) || hi < lo)
		return NAN;
	if (!(level > 0 && level < 1))
		level = CP_LEVEL;
	return (hi - lo) / 2.0 / gsl_cdf_ugaussian_Pinv((1.0 + level) / 2.0);
}

/*
 * Each run's variance: its own se^2 (the median of the others' when it has
 * no interval) plus tau^2, the run-to-run variance the intervals do not
 * explain.  tau comes from successive differences: for a stationary series
 * x[i+1] - x[i] has variance 2 sigma^2, and their MAD (1.4826 * MAD / sqrt 2)
 * estimates sigma while a few steps, each moving one difference, barely
 * touch it.  tau^2 = that sigma^2 minus the median own se^2, at least 0.
 */
static double run_variances(struct cp_work *w, const double *se, double *tmp)
{
	size_t k = 0, m = w->m;
	double med_se, sd_diff = 0, tau2, floor2, scale;

	for (size_t i = 0; i < m; i++)
		if (isfinite(se[i]))
			tmp[k++] = se[i] * se[i];
	med_se = median_of(tmp, k);	/* a variance; NaN when no run has one */
	if (m >= 4) {
		double med;

		for (size_t i = 0; i + 1 < m; i++)
			tmp[i] = w->x[i + 1] - w->x[i];
		med = median_of(tmp, m - 1);
		for (size_t i = 0; i + 1 < m; i++)
			tmp[i] = fabs(w->x[i + 1] - w->x[i] - med);
		sd_diff = 1.4826 * median_of(tmp, m - 1) / sqrt(2.0);
	} else if (m == 3) {
		/* two differences: a step would be one of them, and their median
		   (the mean of both) half the step; the smaller one is the one
		   a step cannot have moved */
		sd_diff = fmin(fabs(w->x[1] - w->x[0]), fabs(w->x[2] - w->x[1])) / sqrt(2.0);
	}
	tau2 = sd_diff * sd_diff - (isfinite(med_se) ? med_se : 0);
	if (tau2 < 0)
		tau2 = 0;
	/* identical runs with zero-width intervals: a tiny variance, never 0,
	   so that the weights stay finite */
	for (size_t i = 0; i < m; i++)
		tmp[i] = fabs(w->x[i]);
	scale = median_of(tmp, m);
	floor2 = (1e-9 * (scale > 0 ? scale : 1)) * (1e-9 * (scale > 0 ? scale : 1));
	for (size_t i = 0; i < m; i++) {
		double s2 = isfinite(se[i]) ? se[i] * se[i] : isfinite(med_se) ? med_se : 0;

		w->v[i] = fmax(s2 + tau2, floor2);
	}
	return sqrt(tau2);
}

/* Weighted residual sum of squares of x[a..b) about its weighted mean. */
static double seg_cost(const struct cp_work *w, size_t a, size_t b)
{
	double sw = 0, swx = 0, mean, c = 0;

	for (size_t i = a; i < b; i++) {
		sw += 1 / w->v[i];
		swx += w->x[i] / w->v[i];
	}
	mean = swx / sw;
	for (size_t i = a; i < b; i++)
		c += (w->x[i] - mean) * (w->x[i] - mean) / w->v[i];
	return c;
}

/* Binary segmentation of [a, b): the best single split, if it pays its
   penalty, then each side.  Inner segments need 2 runs, the first and the
   last 1 (see stats.h). */
static void segment(struct cp_work *w, size_t a, size_t b)
{
	size_t lo = a + (a == 0 ? 1 : 2), hi = b - (b == w->m ? 1 : 2), best = 0;
	double whole, gain = 0;

	if (b - a < 2 || lo > hi)
		return;
	whole = seg_cost(w, a, b);
	for (size_t k = lo; k <= hi; k++) {
		double g = whole - seg_cost(w, a, k) - seg_cost(w, k, b);

		if (g > gain) {
			gain = g;
			best = k;
		}
	}
	if (best == 0 || gain <= w->penalty)
		return;
	w->cut[best] = 1;
	segment(w, a, best);
	segment(w, best, b);
}

/* The segments the cuts make, with their means and intervals; the pooled
   scatter about them (NaN when no segment has 2 runs).  The interval of a
   segment's mean uses the larger of two standard errors: the one its runs'
   variances imply (1 / sum of weights) and the one their spread shows
   (sd / sqrt k), so that runs which disagree more than their intervals say
   do not make a narrow mean. */
static size_t fit(const struct cp_work *w, struct stats_cp_segment *seg, double *scatter)
{
	double z = gsl_cdf_ugaussian_Pinv((1.0 + CP_LEVEL) / 2.0), ss = 0;
	size_t ns = 0, df = 0;

	for (size_t a = 0; a < w->m;) {
		size_t b = a + 1;
		double sw = 0, swx = 0, mean, se, dev = 0;

		while (b < w->m && !w->cut[b])
			b++;
		for (size_t i = a; i < b; i++) {
			sw += 1 / w->v[i];
			swx += w->x[i] / w->v[i];
		}
		mean = swx / sw;
		for (size_t i = a; i < b; i++)
			dev += (w->x[i] - mean) * (w->x[i] - mean);
		se = sqrt(1 / sw);
		if (b - a >= 2)
			se = fmax(se, sqrt(dev / (double)(b - a - 1) / (double)(b - a)));
		ss += dev;
		df += b - a - 1;
		seg[ns++] = (struct stats_cp_segment){ .first = w->idx[a], .last = w->idx[b - 1],
						       .n = b - a, .mean = mean,
						       .lo = mean - z * se, .hi = mean + z * se };
		a = b;
	}
	*scatter = df ? sqrt(ss / (double)df) : NAN;
	return ns;
}

/* The step between segments s[0] and s[1], judged (why = 0: real). */
static struct stats_cp_step judge(const struct stats_cp_segment *s, double scatter,
				  const struct stats_cp_rule *r)
{
	struct stats_cp_step st = {
		.at = s[1].first, .prev = s[0].last,
		.before = s[0].mean, .before_lo = s[0].lo, .before_hi = s[0].hi,
		.after = s[1].mean, .after_lo = s[1].lo, .after_hi = s[1].hi,
		.delta = s[1].mean - s[0].mean, .scatter = scatter,
	};

	st.rel = s[0].mean != 0 ? st.delta / fabs(s[0].mean) : NAN;
	st.threshold = r->rel_floor * fabs(s[0].mean);
	if (isfinite(scatter))
		st.threshold = fmax(st.threshold, (s[0].n == 1 || s[1].n == 1 ? r->k_single
									 : r->k_scatter) * scatter);
	if (!(s[1].lo > s[0].hi || s[1].hi < s[0].lo))
		st.why |= STATS_STEP_OVERLAP;
	if (!(fabs(st.delta) > st.threshold))
		st.why |= STATS_STEP_SMALL;
	return st;
}

/* How far apart the two segments' means are in their standard errors:
   the weakest failing step is merged first. */
static double strength(const struct stats_cp_step *st)
{
	double a = (st->before_hi - st->before_lo) / 2, b = (st->after_hi - st->after_lo) / 2;
	double se = sqrt(a * a + b * b);

	return se > 0 ? fabs(st->delta) / se : INFINITY;
}

/* Judge every step; merge away the weakest failing one and judge again,
   until every step left is real. */
static int prune(struct cp_work *w, const struct stats_cp_rule *r, struct stats_cp *out)
{
	for (;;) {
		size_t worst = 0, nseg;
		double ws = INFINITY;
		struct stats_cp_step bad = {0};

		nseg = fit(w, out->seg, &out->scatter);
		out->nseg = nseg;
		out->nstep = 0;
		for (size_t j = 0; j + 1 < nseg; j++) {
			struct stats_cp_step st = judge(&out->seg[j], out->scatter, r);

			if (!st.why) {
				out->step[out->nstep++] = st;
			} else if (strength(&st) < ws) {
				ws = strength(&st);
				worst = j + 1;
				bad = st;
			}
		}
		if (!worst)
			return 0;
		out->dropped[out->ndropped++] = bad;
		/* the cut at the first run of segment `worst` */
		for (size_t k = 1; k < w->m; k++)
			if (w->cut[k] && w->idx[k] == out->seg[worst].first)
				w->cut[k] = 0;
	}
}

void stats_cp_free(struct stats_cp *cp)
{
	free(cp->seg);
	free(cp->step);
	free(cp->dropped);
	memset(cp, 0, sizeof *cp);
}

int stats_changepoints(const double *x, const double *lo, const double *hi,
		       const double *level, size_t n, const struct stats_cp_rule *rule,
		       struct stats_cp *out)
{
	static const struct stats_cp_rule defaults = STATS_CP_RULE_DEFAULT;
	struct cp_work w = {0};
	double *se = NULL, *tmp = NULL;
	size_t cap = n ? n : 1;
	int rc = -1;

	memset(out, 0, sizeof *out);
	out->tau = out->scatter = NAN;
	if (!rule)
		rule = &defaults;
	w.x = malloc(cap * sizeof *w.x);
	w.v = malloc(cap * sizeof *w.v);
	w.idx = malloc(cap * sizeof *w.idx);
	w.cut = calloc(cap, 1);
	se = malloc(cap * sizeof *se);
	tmp = malloc(cap * sizeof *tmp);
	out->seg = malloc(cap * sizeof *out->seg);
	out->step = malloc(cap * sizeof *out->step);
	out->dropped = malloc(cap * sizeof *out->dropped);
	if (!w.x || !w.v || !w.idx || !w.cut || !se || !tmp || !out->seg || !out->step ||
	    !out->dropped)
		goto done;
	for (size_t i = 0; i < n; i++)
		if (isfinite(x[i])) {
			w.idx[w.m] = i;
			w.x[w.m] = x[i];
			se[w.m++] = own_se(lo ? lo[i] : NAN, hi ? hi[i] : NAN, level ? level[i] : NAN);
		}
	rc = 0;
	if (w.m == 0)
		goto done;
	out->tau = run_variances(&w, se, tmp);
	w.penalty = rule->penalty > 0 ? rule->penalty : 2 * log((double)w.m);
	segment(&w, 0, w.m);
	prune(&w, rule, out);
done:
	free(w.x);
	free(w.v);
	free(w.idx);
	free(w.cut);
	free(se);
	free(tmp);
	if (rc < 0)
		stats_cp_free(out);
	return rc;
}
