/*
 * analyze.c - from raw samples to the numbers a reader trusts.  The order
 * matters: warmups and invalid samples out first, then the spec's outlier
 * rule on what is left, then the estimator and its CI on the kept samples,
 * then per-op subtraction of other experiments, then the checks that flag
 * an impossible result instead of printing it silently.
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exec/exec.h"
#include "exec/loader.h"
#include "machine/machine.h"
#include "plan/plan.h"
#include "results/file_cache.h"
#include "results/results.h"
#include "spec/spec.h"
#include "stats/stats.h"
#include "lib/units.h"
#include "lib/jsonutil.h"

static const char *est_name(enum spec_estimator e)
{
	static const char *n[] = {"mean", "median", "min", "max", "trimmed_mean"};
	return n[e];
}

json_t *results_params(const struct spec *s, const struct plan_point *pt, int as_text)
{
	json_t *o = json_object();
	const struct probe_param *pp = s->bound->params;
	for (size_t a = 0; a < s->n_axis; a++) {
		const struct spec_val *v = pt->vals[a];
		json_t *j;
		if (as_text || pp[a].type == PROBE_STRING)
			j = jsonutil_text(v->text);
		else if (pp[a].type == PROBE_BOOL)
			j = json_boolean(v->num != 0);
		else if (pp[a].type == PROBE_INT || pp[a].type == PROBE_SIZE)
			j = json_integer((json_int_t)llround(v->num));
		else
			j = results_num(v->num);
		jsonutil_set(o, pp[a].name, j);
	}
	return o;
}

static json_t *summary_json(const struct stats_summary *m)
{
	return json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}",
			 "mean", results_num(m->mean), "median", results_num(m->median),
			 "std", results_num(m->std), "cv", results_num(m->cv),
			 "mad", results_num(m->mad), "min", results_num(m->min),
			 "max", results_num(m->max), "p5", results_num(m->p5),
			 "p25", results_num(m->p25), "p75", results_num(m->p75),
			 "p95", results_num(m->p95));
}

static void flag(json_t *sanity, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void flag(json_t *sanity, const char *name, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	/* cut at 512 bytes, perhaps inside a character: kept escaped */
	jsonutil_append(sanity, json_pack("{s:s,s:o}", "flag", name, "message", jsonutil_text(msg)));
}

/* Does a `where:` clause select this point?  Numbers compare with a
   relative tolerance (ranges are computed by repeated multiplication). */
/* The point of a dependency matching this one: its single point, or the
   point agreeing on every parameter the two probes share, succeeded and
   with an estimate.  *k converts its unit to this probe's (both times).
   NULL with *why set otherwise. */
static const json_t *dep_point(const json_t *dep, const json_t *params, const char *unit,
			       double *k, const char **why)
{
	const json_t *pts = json_object_get(dep, "points"), *p, *match = NULL;
	size_t i, nmatch = 0;
	const char *dunit = json_string_value(json_object_get(json_object_get(dep, "probe"), "unit"));

	if (json_array_size(pts) == 1) {
		match = json_array_get(pts, 0);
		nmatch = 1;
	} else {
		json_array_foreach(pts, i, p) {
			const char *key;
			json_t *v;
			int shared = 0, same = 1;
			json_object_foreach(json_object_get(p, "params"), key, v) {
				json_t *mine = json_object_get(params, key);
				if (!mine)
					continue;
				shared++;
				if (!json_equal(mine, v))
					same = 0;
			}
			if (shared && same) {
				match = p;
				nmatch++;
			}
		}
	}
	if (nmatch != 1) {
		*why = nmatch ? "several of its points match this one" : "none of its points matches this one";
		return NULL;
	}
	const char *st = json_string_value(json_object_get(match, "status")) ?: "";
	if (strcmp(st, "ok") != 0 && strcmp(st, "partial") != 0) {
		*why = "its matching point did not succeed";
		return NULL;
	}
	if (!json_is_number(json_object_get(match, "estimate"))) {
		*why = "it has no estimate";
		return NULL;
	}
	double a, b;
	*k = 1;
	if (dunit && strcmp(dunit, unit) != 0) {
		if (units_is_time(dunit, &a) && units_is_time(unit, &b)) {
			*k = a / b;
			return match;
		}
		*why = "its unit differs";
		return NULL;
	}
	return match;
}

/* Thresholds of the validity rules (docs/methodology.md). */
#define OUTLIER_MAX_SHARE 0.10		/* an outlier rule dropping more is suspended */
#define INVALID_MAX_SHARE 0.50		/* a point with more invalid samples fails */
/* An invalid sample that other tasks spoiled (docs/probe-guide.md, "A CPU
   taken by other tasks"): the probe's note begins so and the sample
   carries this metric, the share of its run a thread was off its CPU. */
#define BUSY_NOTE "off the cpu"
#define BUSY_METRIC "off_cpu_share"
#define BUSY_BOUND 0.02			/* the share a valid sample allows */
#define SERIES_MIN_N 12			/* a round's series is checked from this many */
#define SERIES_ALPHA 0.001		/* level shift, trend */
#define SERIES_MIN_REL 0.05		/* ... and at least 5 % of the level */
#define MODES_MIN_N 10
#define MODES_MIN_SHARE 0.10
#define HIGH_CV 0.25
#define ROUND_FAR_MADS 4.0		/* a round this many robust SDs from the median ... */

/* One point being analysed: the inputs (its rounds), the samples sorted
   out, and the numbers each step leaves for the next. */
struct point_ctx {
	const struct spec *s;
	const struct loaded_probe *lp;
	const struct probe *p;
	const struct plan_point *pt;
	struct point_result *rd;	/* the rounds run so far */
	size_t nr;
	int planned;			/* rounds planned */
	double tsc_hz;
	double *vals; size_t *rnd;	/* valid samples' values and their round */
	struct sample_rec **map;	/* ... and where they are */
	unsigned char *out;		/* per valid sample: dropped as an outlier */
	double *kept;			/* pooled kept values */
	size_t n_valid, n_invalid, n_out, nk, n_samples;
	double *busy;			/* the off-CPU shares of the samples other
					   tasks spoiled (busy_share) ... */
	size_t n_busy;			/* ... and how many (of n_invalid) */
	int suspended;			/* the outlier rule would have dropped too many */
	double *e_raw, *e_sub;		/* per round: estimate before / after same-round subtraction */
	size_t *n_r, *inv_r, *out_r;	/* per round: kept, invalid, outliers */
	size_t k_est;			/* rounds with an estimate */
	double est, lo, hi;		/* of the point, before subtraction */
	const char *method;		/* of the CI; NULL when there is none */
	double level;			/* the CI's coverage */
	double total_sub, est_sub, lo_sub, hi_sub, between_cv;
	struct stats_summary sum;
	enum point_status status;
	char reason[512];
	json_t *o, *params, *sanity;
};

static int round_ok(const struct point_result *r)
{
	return r->status == PT_OK;
}

/* The share of its run a thread was off its CPU in a sample the probe
   flagged invalid because other tasks took the CPU (its note begins with
   BUSY_NOTE and it reports BUSY_METRIC); NAN for any other sample. */
static double busy_share(const struct point_ctx *c, const struct sample_rec *sr)
{
	if (sr->valid || strncmp(sr->note, BUSY_NOTE, strlen(BUSY_NOTE)) != 0)
		return NAN;
	for (size_t m = 0; m < c->lp->n_metrics && m < PROBE_MAX_EXTRA; m++)
		if (strcmp(c->p->metrics[m].name, BUSY_METRIC) == 0)
			return isfinite(sr->extra[m]) && sr->extra[m] > 0 ? sr->extra[m] : NAN;
	return NAN;
}

/* A share as a percentage: "3.2", "38". */
static void pct_text(double share, char *buf, size_t len)
{
	snprintf(buf, len, share < 0.1 ? "%.1f" : "%.0f", share * 100);
}

/* "in 4 of 6 samples a thread was off its CPU for 3.2-38 % of its run
   (median 12 %), beyond the 2 % a valid sample allows" */
static void busy_text(const struct point_ctx *c, char *buf, size_t len)
{
	double lo = INFINITY, hi = -INFINITY, med = stats_quantile(c->busy, c->n_busy, 0.5);
	char a[16], b[16], m[16];

	for (size_t i = 0; i < c->n_busy; i++) {
		lo = c->busy[i] < lo ? c->busy[i] : lo;
		hi = c->busy[i] > hi ? c->busy[i] : hi;
	}
	pct_text(lo, a, sizeof a);
	pct_text(hi, b, sizeof b);
	pct_text(med, m, sizeof m);
	if (strcmp(a, b) == 0)
		snprintf(buf, len, "in %zu of %zu samples a thread was off its CPU for %s %% of its "
			 "run, beyond the %.0f %% a valid sample allows", c->n_busy,
			 c->n_invalid + c->n_valid, a, BUSY_BOUND * 100);
	else
		snprintf(buf, len, "in %zu of %zu samples a thread was off its CPU for %s-%s %% of its "
			 "run (median %s %%), beyond the %.0f %% a valid sample allows", c->n_busy,
			 c->n_invalid + c->n_valid, a, b, m, BUSY_BOUND * 100);
}

/* 1. Warmups and invalid samples (the probe's flag, non-finite values, a
   negative duration) never enter the statistics. */
static void sort_samples(struct point_ctx *c)
{
	double ns;
	int is_time = units_is_time(c->p->unit, &ns);
	size_t total = 0;

	for (size_t r = 0; r < c->nr; r++)
		total += c->rd[r].n_samples;
	c->n_samples = total;
	c->vals = calloc(total + 1, sizeof *c->vals);
	c->rnd = calloc(total + 1, sizeof *c->rnd);
	c->map = calloc(total + 1, sizeof *c->map);
	c->out = calloc(total + 1, 1);
	c->kept = calloc(total + 1, sizeof *c->kept);
	c->busy = calloc(total + 1, sizeof *c->busy);
	for (size_t r = 0; r < c->nr; r++)
		for (size_t i = 0; i < c->rd[r].n_samples; i++) {
			struct sample_rec *sr = &c->rd[r].samples[i];
			sr->round = (int)r;
			if (sr->warmup)
				continue;
			if (sr->valid && is_time && sr->value < 0) {
				sr->valid = 0;
				if (!sr->note[0])
					snprintf(sr->note, sizeof sr->note,
						 "negative duration (%.4g %s): impossible", sr->value,
						 c->p->unit);
			}
			if (!sr->valid || !isfinite(sr->value)) {
				double b = busy_share(c, sr);

				if (isfinite(b))
					c->busy[c->n_busy++] = b;
				c->n_invalid++;
				c->inv_r[r]++;
				continue;
			}
			c->map[c->n_valid] = sr;
			c->rnd[c->n_valid] = r;
			c->vals[c->n_valid++] = sr->value;
		}
}

/* 2. The spec's outlier rule, on each sample's distance from its round's
   median (so a round at another level is between-round variation, not a
   round of outliers), pooled so the fences rest on every sample.  A rule
   that would drop more than OUTLIER_MAX_SHARE drops nothing. */
static void mark_outliers(struct point_ctx *c)
{
	const struct spec *s = c->s;
	double *centred = calloc(c->n_valid + 1, sizeof *centred), *tmp = calloc(c->n_valid + 1, sizeof *tmp);

	for (size_t r = 0; r < c->nr; r++) {
		size_t m = 0;
		for (size_t i = 0; i < c->n_valid; i++)
			if (c->rnd[i] == r)
				tmp[m++] = c->vals[i];
		double med = m ? stats_quantile(tmp, m, 0.5) : NAN;
		for (size_t i = 0; i < c->n_valid; i++) {
			if (c->rnd[i] != r)
				continue;
			if (s->outliers == OUT_MEDIAN_RATIO)
				centred[i] = med > 0 ? c->vals[i] / med : c->vals[i];
			else
				centred[i] = c->vals[i] - med;
		}
	}
	c->n_out = stats_outliers(centred, c->n_valid, s->outliers, s->out_k, s->out_lo, s->out_hi,
				  c->out);
	if (c->n_out > OUTLIER_MAX_SHARE * (double)c->n_valid) {
		flag(c->sanity, "outlier_rule_suspended",
		     "the outlier rule would drop %zu of %zu samples (more than %.0f %%): nothing dropped",
		     c->n_out, c->n_valid, OUTLIER_MAX_SHARE * 100);
		memset(c->out, 0, c->n_valid);
		c->n_out = 0;
		c->suspended = 1;
	}
	for (size_t i = 0; i < c->n_valid; i++) {
		if (c->out[i]) {
			c->map[i]->outlier = 1;
			c->out_r[c->rnd[i]]++;
		} else {
			c->kept[c->nk++] = c->vals[i];
		}
	}
	free(centred);
	free(tmp);
}

/* 3. Each finished round's estimate from its kept samples. */
static void round_estimates(struct point_ctx *c)
{
	double *tmp = calloc(c->n_valid + 1, sizeof *tmp);

	for (size_t r = 0; r < c->nr; r++) {
		size_t m = 0;
		for (size_t i = 0; i < c->n_valid; i++)
			if (c->rnd[i] == r && !c->out[i])
				tmp[m++] = c->vals[i];
		c->n_r[r] = m;
		c->e_raw[r] = m && round_ok(&c->rd[r]) ? stats_estimate(tmp, m, c->s->estimate, c->s->est_p)
						      : NAN;
		c->e_sub[r] = c->e_raw[r];
		if (isfinite(c->e_raw[r]))
			c->k_est++;
	}
	free(tmp);
}

/* The rounds' combined estimate: the median of the finite round estimates,
   so one round that landed in a host episode (seen here: a loop at 0.49
   instead of 0.34 ns in one round of five) does not move the figure.  The
   interval, from the between-round variation: with five or more rounds the
   distribution-free order-statistic interval for that median (for five,
   the range of the rounds: 93.75 %), which is never wider than the rounds'
   own spread; with two to four, Student's t over the rounds (it always
   holds their median).  k: rounds with an estimate; *method NULL when
   there is no interval; *level its coverage. */
static double rounds_interval(const double *x, size_t n, double *lo, double *hi, size_t *k,
			      double *cv, const char **method, double *level)
{
	return stats_rounds_interval(x, n, lo, hi, k, cv, method, level);
}

/* 4. The point's estimate and CI: with rounds, rounds_interval over the
   rounds' estimates (between-round variation); with one round, the
   estimator and its CI over that round's samples.  Then other
   experiments' per-op costs are subtracted: from the same round when the
   dependency has a round for every one of ours ("same_round"), else its
   estimate, with its CI half-width added in quadrature ("propagated"). */
static void put_estimate(struct point_ctx *c, uint64_t seed, json_t *const *deps)
{
	const struct spec *s = c->s;
	json_t *o = c->o, *subs = json_array();
	double prop_var = 0, prop_sub = 0;
	size_t k;

	c->est = c->lo = c->hi = c->between_cv = NAN;
	c->method = NULL;
	c->level = 0.95;
	if (c->planned >= 2) {
		c->est = rounds_interval(c->e_raw, c->nr, &c->lo, &c->hi, &k, &c->between_cv,
					 &c->method, &c->level);
	} else if (c->nk > 0 && c->k_est > 0) {
		c->est = stats_estimate(c->kept, c->nk, s->estimate, s->est_p);
		stats_ci(c->kept, c->nk, s->estimate, s->est_p, 0.95, seed, &c->lo, &c->hi, &c->method);
	}
	stats_summarise(c->kept, c->nk, &c->sum);
	for (size_t d = 0; d < s->n_subtract; d++) {
		const char *why = "it did not run";
		double kf = 1;
		const json_t *dp = deps && deps[d] ? dep_point(deps[d], c->params, c->p->unit, &kf, &why) : NULL;
		if (!dp) {
			flag(c->sanity, "subtract_failed", "could not subtract '%s': %s", s->subtract[d], why);
			continue;
		}
		const json_t *drounds = json_object_get(dp, "rounds");
		int same = c->planned >= 2 && c->k_est > 0;
		for (size_t r = 0; same && r < c->nr; r++)
			if (isfinite(c->e_raw[r]) &&
			    !json_is_number(json_object_get(json_array_get(drounds, r), "estimate")))
				same = 0;
		double v = json_number_value(json_object_get(dp, "estimate")) * kf, half = NAN;
		if (same) {
			double sum = 0;
			size_t m = 0;
			for (size_t r = 0; r < c->nr; r++) {
				if (!isfinite(c->e_raw[r]))
					continue;
				double dv = json_number_value(json_object_get(json_array_get(drounds, r),
									      "estimate")) * kf;
				c->e_sub[r] -= dv;
				sum += dv;
				m++;
			}
			v = sum / (double)m;	/* what was taken off, on average */
		} else {
			const json_t *ci = json_object_get(dp, "ci");
			if (json_is_number(json_array_get(ci, 0)) && json_is_number(json_array_get(ci, 1)))
				half = (json_number_value(json_array_get(ci, 1)) -
					json_number_value(json_array_get(ci, 0))) / 2 * kf;
			prop_sub += v;
			if (isfinite(half))
				prop_var += half * half;
		}
		jsonutil_append(subs, json_pack("{s:s,s:o,s:s,s:o}", "experiment", s->subtract[d],
			"value", results_num(v), "method", same ? "same_round" : "propagated",
			"ci_half_width", results_num(same ? NAN : half)));
	}
	if (c->planned >= 2) {
		double cv, level;
		const char *method;
		c->est_sub = rounds_interval(c->e_sub, c->nr, &c->lo_sub, &c->hi_sub, &k, &cv,
					     &method, &level) - prop_sub;
		c->lo_sub -= prop_sub;
		c->hi_sub -= prop_sub;
	} else {
		c->est_sub = c->est - prop_sub;
		c->lo_sub = c->lo - prop_sub;
		c->hi_sub = c->hi - prop_sub;
	}
	if (prop_var > 0 && c->method) {
		double a = c->est_sub - c->lo_sub, b = c->hi_sub - c->est_sub;
		c->lo_sub = c->est_sub - sqrt(a * a + prop_var);
		c->hi_sub = c->est_sub + sqrt(b * b + prop_var);
	}
	c->total_sub = c->est - c->est_sub;
	jsonutil_set(o, "estimator", jsonutil_text(est_name(s->estimate)));
	jsonutil_set(o, "subtracted", subs);
	jsonutil_set(o, "ci_level", results_num(c->level));
	jsonutil_set(o, "stats", summary_json(&c->sum));
}

/* 5. ok, partial, failed (no number), skipped, timeout, interrupted.
   Samples other tasks spoiled (busy_share) are the machine's, not the
   probe's: a point left with too few valid samples by them alone is
   skipped, saying how much of the CPU was taken, and they do not count
   towards INVALID_MAX_SHARE (docs/methodology.md, "A CPU that is never
   quiet"). */
static void decide_status(struct point_ctx *c)
{
	const struct point_result *bad = NULL;
	size_t skipped = 0, need = c->planned >= 2 ? 2 : 1;
	int bad_i = -1;

	for (size_t r = 0; r < c->nr; r++) {
		if (c->rd[r].status == PT_SKIPPED)
			skipped++;
		else if (c->rd[r].status != PT_OK && !bad) {
			bad = &c->rd[r];
			bad_i = (int)r;
		}
	}
	c->status = PT_OK;
	c->reason[0] = 0;
	if (skipped && (skipped == c->nr || !c->k_est)) {
		const struct point_result *sk = &c->rd[0];
		for (size_t r = 0; r < c->nr && sk->status != PT_SKIPPED; r++)
			sk = &c->rd[r];
		c->status = PT_SKIPPED;
		snprintf(c->reason, sizeof c->reason, "%s", sk->reason);
		return;
	}
	if (!c->method || c->k_est < need) {
		if (bad) {
			c->status = bad->status;
			snprintf(c->reason, sizeof c->reason, "%s", bad->reason);
		} else if (c->n_busy > 0 && c->n_busy == c->n_invalid) {
			char busy[300];

			busy_text(c, busy, sizeof busy);
			c->status = PT_SKIPPED;
			snprintf(c->reason, sizeof c->reason, "the CPUs were never quiet: %s; close "
				 "other programs (or keep them off this point's CPUs) and rerun it",
				 busy);
		} else {
			c->status = PT_FAILED;
			snprintf(c->reason, sizeof c->reason,
				 "too few valid samples for an estimate and a CI: %zu kept in %zu of %d round%s",
				 c->nk, c->k_est, c->planned, c->planned == 1 ? "" : "s");
		}
		return;
	}
	size_t n_other = c->n_invalid - c->n_busy;
	if (n_other > INVALID_MAX_SHARE * (double)(n_other + c->n_valid)) {
		c->status = PT_FAILED;
		snprintf(c->reason, sizeof c->reason, "%zu of %zu samples invalid (more than %.0f %%)",
			 n_other, n_other + c->n_valid, INVALID_MAX_SHARE * 100);
		return;
	}
	if (bad) {
		c->status = PT_PARTIAL;
		snprintf(c->reason, sizeof c->reason, "round %d of %d: %s", bad_i + 1, c->planned,
			 bad->reason);
	}
}

static json_t *samples_json(const struct point_ctx *c)
{
	json_t *samples = json_array();

	for (size_t r = 0; r < c->nr; r++)
		for (size_t i = 0; i < c->rd[r].n_samples; i++) {
			const struct sample_rec *sr = &c->rd[r].samples[i];
			json_t *ex = json_object();
			for (size_t m = 0; m < c->lp->n_metrics && m < PROBE_MAX_EXTRA; m++)
				jsonutil_set(ex, c->p->metrics[m].name, results_num(sr->extra[m]));
			jsonutil_append(samples, json_pack("{s:o,s:i,s:b,s:b,s:b,s:o,s:o}",
				"value", results_num(sr->value), "round", (int)r, "warmup", sr->warmup,
				"valid", sr->valid, "outlier", sr->outlier, "extra", ex,
				"note", sr->note[0] ? jsonutil_text(sr->note) : json_null()));
		}
	return samples;
}

static json_t *rounds_json(const struct point_ctx *c)
{
	json_t *a = json_array();

	for (size_t r = 0; r < c->nr; r++) {
		const struct point_result *rd = &c->rd[r];
		jsonutil_append(a, json_pack("{s:i,s:o,s:o,s:I,s:I,s:I,s:o,s:o,s:s,s:o,s:i,s:o,s:o}",
			"round", (int)r, "estimate", results_num(c->e_sub[r]),
			"estimate_raw", results_num(c->e_raw[r]), "n", (json_int_t)c->n_r[r],
			"n_invalid", (json_int_t)c->inv_r[r], "n_outliers", (json_int_t)c->out_r[r],
			"started_s", results_num(rd->started_s),
			"cpu", rd->cpu >= 0 ? json_integer(rd->cpu) : json_null(),
			"status", exec_status_name(rd->status),
			"reason", rd->reason[0] ? jsonutil_text(rd->reason) : json_null(),
			"warmup_taken", rd->warmup_taken,
			"warmup_reason", rd->warmup_reason[0] ? jsonutil_text(rd->warmup_reason) : json_null(),
			"elapsed_s", results_num(rd->elapsed_s)));
	}
	return a;
}

/* What ran: the point, its status, placement (of round 0), rounds and samples. */
static void put_run(struct point_ctx *c)
{
	const struct point_result *r = &c->rd[0];
	json_t *o = c->o;
	double elapsed = 0;

	for (size_t i = 0; i < c->nr; i++)
		elapsed += c->rd[i].elapsed_s;
	jsonutil_set(o, "status", jsonutil_text(exec_status_name(c->status)));
	jsonutil_set(o, "reason", c->reason[0] ? jsonutil_text(c->reason) : json_null());
	jsonutil_set(o, "iterations", json_integer((json_int_t)r->iterations));
	jsonutil_set(o, "placement", json_pack("{s:o,s:o,s:b,s:o,s:o,s:b,s:o}",
		"cpu_requested", r->cpu_requested >= 0 ? json_integer(r->cpu_requested) : json_null(),
		"cpu", r->cpu >= 0 ? json_integer(r->cpu) : json_null(),
		"pinned", r->pinned,
		"priority_requested", r->has_prio_req ? json_integer(r->prio_requested) : json_null(),
		"priority", json_integer(r->priority),
		"priority_applied", r->prio_applied,
		"note", r->placement_note[0] ? jsonutil_text(r->placement_note) : json_null()));
	jsonutil_set(o, "rounds_planned", json_integer(c->planned));
	jsonutil_set(o, "n_rounds", json_integer((json_int_t)c->k_est));
	jsonutil_set(o, "between_round_cv", results_num(c->planned >= 2 ? c->between_cv : NAN));
	jsonutil_set(o, "rounds", rounds_json(c));
	jsonutil_set(o, "samples", samples_json(c));
	jsonutil_set(o, "n", json_integer((json_int_t)c->nk));
	jsonutil_set(o, "n_outliers", json_integer((json_int_t)c->n_out));
	jsonutil_set(o, "n_invalid", json_integer((json_int_t)c->n_invalid));
	jsonutil_set(o, "elapsed_s", results_num(elapsed));
}

/* The numbers, or none for a point that did not succeed. */
static void put_numbers(struct point_ctx *c)
{
	int has = c->status == PT_OK || c->status == PT_PARTIAL;
	json_t *o = c->o;

	if (!has)
		c->method = NULL;
	jsonutil_set(o, "estimate", results_num(has ? c->est_sub : NAN));
	jsonutil_set(o, "estimate_raw", results_num(has ? c->est : NAN));
	jsonutil_set(o, "ci", c->method ? json_pack("[o,o]", results_num(c->lo_sub),
							     results_num(c->hi_sub)) : json_null());
	jsonutil_set(o, "ci_method", c->method ? jsonutil_text(c->method) : json_null());
	if (!has)
		c->est_sub = c->est = NAN;
}

/* 5. Cycles, when the unit is a time: TSC ticks, not core cycles (the
   report turns times into core cycles where the run's core clock held:
   report_env_cycle_clock); "clock" says so in the JSON itself. */
static void put_cycles(struct point_ctx *c)
{
	double ns_per_unit;

	if (!units_is_time(c->p->unit, &ns_per_unit) || !(c->tsc_hz > 0)) {
		jsonutil_set(c->o, "cycles", json_null());
		return;
	}
	double k = ns_per_unit * c->tsc_hz / 1e9;
	jsonutil_set(c->o, "cycles", json_pack("{s:s,s:o,s:o,s:o,s:o,s:o}", "clock", "tsc",
		"estimate", results_num(c->est_sub * k),
		"ci", c->method ? json_pack("[o,o]", results_num(c->lo_sub * k),
					    results_num(c->hi_sub * k)) : json_null(),
		"mean", results_num(c->sum.mean * k), "median", results_num(c->sum.median * k),
		"std", results_num(c->sum.std * k)));
}

/* 6. Secondary values over the same kept samples. */
static void put_extra(struct point_ctx *c)
{
	json_t *extra = json_object();

	for (size_t m = 0; m < c->lp->n_metrics && m < PROBE_MAX_EXTRA; m++) {
		double *ev = calloc(c->nk + 1, sizeof *ev);
		size_t ne = 0;
		for (size_t i = 0; i < c->n_valid; i++)
			if (!c->out[i])
				ev[ne++] = c->map[i]->extra[m];
		struct stats_summary es;
		stats_summarise(ev, ne, &es);
		jsonutil_set(extra, c->p->metrics[m].name, json_pack("{s:o,s:o,s:o,s:o,s:o}",
			"mean", results_num(es.mean), "median", results_num(es.median),
			"std", results_num(es.std), "min", results_num(es.min), "max", results_num(es.max)));
		free(ev);
	}
	jsonutil_set(c->o, "extra", extra);
}

/* 7. The spec's prediction for this point, and its ratio to the estimate. */
static int this_machine_is(const char *pattern, const void *ctx)
{
	(void)ctx;
	return machine_matches(pattern);
}

static void put_prediction(struct point_ctx *c)
{
	const struct spec_predict *pr = results_predict_pick(c->s, c->pt, this_machine_is, NULL);
	double est_sub = c->est_sub;
	json_t *pred = pr ? results_predict_entry(pr, est_sub) : json_null();

	if (pr && !(pr->fx[SPEC_FX_VALUE] || pr->fx[SPEC_FX_HW] || pr->fx[SPEC_FX_SW]) &&
	    isfinite(est_sub) && pr->value > 0 &&
	    (est_sub / pr->value > 10 || est_sub / pr->value < 0.1))
		flag(c->sanity, "far_from_prediction",
		     "measured %.4g %s is %.3gx the prediction %.4g %s", est_sub, c->p->unit,
		     est_sub / pr->value, pr->value, c->p->unit);
	jsonutil_set(c->o, "prediction", pred);
}

/* 7. The reference band for this machine (its host name or CPU model glob,
   machine_matches; a machine's own band wins over '*'). */
static void put_reference(struct point_ctx *c)
{
	const struct spec *s = c->s;
	double est_sub = c->est_sub;
	json_t *ref = json_null();
	for (size_t i = 0; i < s->n_reference; i++) {
		const struct spec_reference *rf = &s->reference[i];
		if (!machine_matches(rf->machine))
			continue;
		if (!plan_where_matches(s, rf->where, rf->n_where, c->pt))
			continue;
		double lo_ok = rf->value * (1 + rf->tol_lo), hi_ok = rf->value * (1 + rf->tol_hi);
		int pass = isfinite(est_sub) && est_sub >= lo_ok && est_sub <= hi_ok;
		json_decref(ref);
		ref = json_pack("{s:s,s:o,s:[o,o],s:s}", "machine", rf->machine,
				"value", results_num(rf->value), "tolerance",
				results_num(rf->tol_lo), results_num(rf->tol_hi),
				"verdict", pass ? "pass" : "warn");
		if (strcmp(rf->machine, "*") != 0)
			break;	/* a host-specific band wins over '*' */
	}
	jsonutil_set(c->o, "reference", ref);
}

/* A steady drift also looks like a step to Pettitt's test; a step leaves
   two flat segments, a drift two that still climb (or fall). */
static int segments_trend(const double *v, size_t m, size_t at)
{
	struct stats_trend a, b;

	if (stats_trend(v, at, SERIES_ALPHA * 10, SERIES_MIN_REL / 2, &a) == 0 && a.found)
		return 1;
	return stats_trend(v + at, m - at, SERIES_ALPHA * 10, SERIES_MIN_REL / 2, &b) == 0 && b.found;
}

/* Level shifts and drifts inside each round long enough to tell, and more
   than one mode among all the valid samples (saying whether a round holds
   both, or the rounds sit at different levels). */
static void check_series(struct point_ctx *c)
{
	double *v = calloc(c->n_valid + 1, sizeof *v);
	size_t n_shift = 0, n_drift = 0, checked = 0;
	char shift_msg[300] = "", drift_msg[300] = "";

	for (size_t r = 0; r < c->nr; r++) {
		size_t m = 0;
		struct stats_shift sh;
		struct stats_trend tr;
		for (size_t i = 0; i < c->n_valid; i++)
			if (c->rnd[i] == r)
				v[m++] = c->vals[i];
		if (m < SERIES_MIN_N)
			continue;
		checked++;
		size_t seg = m / 10 > 4 ? m / 10 : 4;
		if (stats_level_shift(v, m, seg, SERIES_ALPHA, SERIES_MIN_REL, &sh) == 0 && sh.found &&
		    !segments_trend(v, m, sh.at)) {
			if (!n_shift++)
				snprintf(shift_msg, sizeof shift_msg,
					 "round %zu: the level moved from %.4g to %.4g %s at sample %zu of %zu (p = %.2g)",
					 r, sh.before, sh.after, c->p->unit, sh.at, m, sh.p);
			continue;
		}
		if (stats_trend(v, m, SERIES_ALPHA, SERIES_MIN_REL, &tr) == 0 && tr.found && !n_drift++)
			snprintf(drift_msg, sizeof drift_msg,
				 "round %zu: the samples drifted %+.1f %% from first to last (p = %.2g)", r,
				 tr.rel_change * 100, tr.p);
	}
	if (n_shift)
		flag(c->sanity, "level_shift", "%s; in %zu of %zu rounds checked", shift_msg, n_shift, checked);
	if (n_drift)
		flag(c->sanity, "drift", "%s; in %zu of %zu rounds checked", drift_msg, n_drift, checked);
	if (c->n_valid >= MODES_MIN_N) {
		double where[8];
		size_t nm = stats_modes(c->vals, c->n_valid, MODES_MIN_SHARE, where, 8), within = 0;
		if (nm > 1) {
			char list[256] = "";
			for (size_t i = 0, u = 0; i < nm && u < sizeof list; i++)
				u += (size_t)snprintf(list + u, sizeof list - u, "%s%.4g", i ? ", " : "",
						      where[i]);
			/* rounds whose own samples lie on both sides of a valley */
			for (size_t r = 0; r < c->nr; r++) {
				size_t lo = SIZE_MAX, hi = 0;
				for (size_t i = 0; i < c->n_valid; i++) {
					if (c->rnd[i] != r)
						continue;
					size_t m = 0;
					while (m + 1 < nm && c->vals[i] > (where[m] + where[m + 1]) / 2)
						m++;
					lo = m < lo ? m : lo;
					hi = m > hi ? m : hi;
				}
				within += lo != SIZE_MAX && hi > lo;
			}
			flag(c->sanity, "multimodal",
			     "%zu modes among the samples, near %s %s (both within one round in %zu of %zu rounds%s)",
			     nm, list, c->p->unit, within, c->nr,
			     within ? "" : ": the rounds sit at different levels");
		}
	}
	free(v);
}

/* Rounds far from the others (a round that ran during a host episode):
   beyond ROUND_FAR_MADS robust standard deviations (1.4826 MAD) of the
   rounds' estimates and SERIES_MIN_REL of their median.  The median
   already keeps them out of the estimate; this names them. */
static void check_rounds(struct point_ctx *c)
{
	double v[c->nr + 1], dev[c->nr + 1], med, mad, far[3];
	size_t m = 0, n_far = 0;

	for (size_t r = 0; r < c->nr; r++)
		if (isfinite(c->e_raw[r]))
			v[m++] = c->e_raw[r];
	if (m < 3)
		return;
	med = stats_quantile(v, m, 0.5);
	for (size_t i = 0; i < m; i++)
		dev[i] = fabs(v[i] - med);
	mad = 1.4826 * stats_quantile(dev, m, 0.5);
	for (size_t i = 0; i < m; i++)
		if (dev[i] > ROUND_FAR_MADS * mad && dev[i] > SERIES_MIN_REL * fabs(med) &&
		    n_far++ < 3)
			far[n_far - 1] = v[i];
	if (n_far == 0)
		return;
	char list[96];
	int off = 0;
	for (size_t i = 0; i < n_far && i < 3; i++)
		off += snprintf(list + off, sizeof list - (size_t)off, "%s%.4g", i ? ", " : "", far[i]);
	flag(c->sanity, "outlying_rounds",
	     "%zu of %zu rounds far from the others (%s%s %s against their median %.4g %s): the "
	     "estimate is the rounds' median, the interval spans them", n_far, m, list,
	     n_far > 3 ? ", ..." : "", c->p->unit, med, c->p->unit);
}

/* 8. Sanity of a point that ran: what must not be printed silently. */
static void check_ok_point(struct point_ctx *c)
{
	const struct point_result *r = &c->rd[0];
	const char *unit = c->p->unit;
	double tick_ns = c->tsc_hz > 0 ? 1e9 / c->tsc_hz : 1, ns_per_unit, est = c->est;

	if (units_is_time(unit, &ns_per_unit) && isfinite(est)) {
		double sample_ns = est * ns_per_unit * (double)r->iterations;
		if (sample_ns < 1000)
			flag(c->sanity, "below_timer_resolution",
			     "a sample lasted %.0f ns: the timer's resolution and overhead dominate",
			     sample_ns);
		else if (est * ns_per_unit > 0 && est * ns_per_unit < tick_ns / 2)
			flag(c->sanity, "below_timer_resolution",
			     "%.3g ns per op is below half a TSC tick (%.3g ns)", est * ns_per_unit,
			     tick_ns);
	}
	if (isfinite(c->est_sub) && c->est_sub < 0)
		flag(c->sanity, "negative_after_subtraction",
		     "%.4g %s minus %.4g %s subtracted is negative", est, unit, c->total_sub, unit);
	if (c->n_invalid > c->n_busy) {
		/* The first invalid sample's note explains the others (those
		   other tasks spoiled have their own flag: cpu_taken). */
		const char *why = "";
		for (size_t k = 0; k < c->nr && !why[0]; k++)
			for (size_t i = 0; i < c->rd[k].n_samples && !why[0]; i++)
				if (!c->rd[k].samples[i].warmup && !c->rd[k].samples[i].valid &&
				    !isfinite(busy_share(c, &c->rd[k].samples[i])))
					why = c->rd[k].samples[i].note;
		flag(c->sanity, "invalid_samples", "%zu of %zu samples flagged invalid by the probe%s%s%s",
		     c->n_invalid - c->n_busy, c->n_invalid + c->n_valid, why[0] ? " (first: " : "",
		     why, why[0] ? ")" : "");
	}
	if (c->nk >= 3 && isfinite(c->sum.cv) && c->sum.cv > 0.25)
		flag(c->sanity, "high_variation", "coefficient of variation %.0f %% over %zu samples",
		     c->sum.cv * 100, c->nk);
	if (c->s->estimate == EST_MAX && c->nk >= 3 && isfinite(c->sum.cv) && c->sum.cv > HIGH_CV)
		flag(c->sanity, "max_on_high_variation",
		     "the max of samples that vary this much (CV %.0f %%) is one lucky sample, not a level",
		     c->sum.cv * 100);
	if (c->nk == 0)
		flag(c->sanity, "no_samples", "no valid sample was kept");
	check_rounds(c);
	check_series(c);
}

/* 8. Sanity flags, for any point. */
static void put_sanity(struct point_ctx *c)
{
	const struct point_result *r = &c->rd[0];
	size_t capped = 0;

	if (c->k_est > 0)
		check_ok_point(c);
	for (size_t k = 0; k < c->nr; k++)
		capped += strncmp(c->rd[k].warmup_reason, "cap_", 4) == 0;
	if (capped)
		flag(c->sanity, "warmup_capped",
		     "warm-up stopped at its cap, not at a steady state, in %zu of %zu round%s", capped,
		     c->nr, c->nr == 1 ? "" : "s");
	if (c->n_busy > 0) {
		/* the flag word of a point other tasks spoiled, measured or not:
		   the report and the run's last lines name it */
		char busy[300];

		busy_text(c, busy, sizeof busy);
		flag(c->sanity, "cpu_taken", "%s: %s", busy, c->status == PT_SKIPPED ?
		     "no sample left for an estimate" : "those samples were left out");
	}
	if (r->sanity_failed)
		flag(c->sanity, "probe_sanity", "%s", r->sanity_msg);
	if (r->cpu_requested >= 0 && !r->pinned && r->status != PT_SKIPPED)
		flag(c->sanity, "not_pinned", "could not pin to CPU %d%s%s", r->cpu_requested,
		     r->placement_note[0] ? ": " : "", r->placement_note);
	jsonutil_set(c->o, "sanity", c->sanity);
}

json_t *results_point(const struct spec *s, const struct loaded_probe *lp,
		      const struct plan_point *pt, struct point_result *rounds, size_t n_rounds,
		      int planned, double tsc_hz, uint64_t seed, json_t *const *deps)
{
	struct point_ctx c = {.s = s, .lp = lp, .p = lp->p, .pt = pt, .rd = rounds, .nr = n_rounds,
			      .planned = planned, .tsc_hz = tsc_hz, .o = json_object(),
			      .sanity = json_array()};
	size_t nr = n_rounds + 1;

	c.e_raw = calloc(nr, sizeof *c.e_raw);
	c.e_sub = calloc(nr, sizeof *c.e_sub);
	c.n_r = calloc(nr, sizeof *c.n_r);
	c.inv_r = calloc(nr, sizeof *c.inv_r);
	c.out_r = calloc(nr, sizeof *c.out_r);
	jsonutil_set(c.o, "index", json_integer((json_int_t)pt->index));
	c.params = results_params(s, pt, 0);
	jsonutil_set(c.o, "params", c.params);
	jsonutil_set(c.o, "params_text", results_params(s, pt, 1));
	/* A directory parameter (the file-system probes' `dir`): say what it
	   is on, so a figure read from it names its file system. */
	jsonutil_set(c.o, "filesystem", results_filesystem(json_string_value(
		json_object_get(json_object_get(c.o, "params_text"), "dir"))));
	sort_samples(&c);
	mark_outliers(&c);
	round_estimates(&c);
	put_estimate(&c, seed, deps);
	decide_status(&c);
	put_run(&c);
	put_numbers(&c);
	results_point_rerun(c.o, NAN, 0);
	put_cycles(&c);
	put_extra(&c);
	put_prediction(&c);
	put_reference(&c);
	put_sanity(&c);
	free(c.vals);
	free(c.rnd);
	free(c.map);
	free(c.out);
	free(c.kept);
	free(c.busy);
	free(c.e_raw);
	free(c.e_sub);
	free(c.n_r);
	free(c.inv_r);
	free(c.out_r);
	return c.o;
}

const char *results_status(const json_t *points, int interrupted)
{
	size_t i, ok = 0, skipped = 0, n = json_array_size(points);
	const json_t *p;
	if (interrupted)
		return "interrupted";
	json_array_foreach(points, i, p) {
		const char *st = json_string_value(json_object_get(p, "status"));
		if (st && strcmp(st, "ok") == 0)
			ok++;
		else if (st && strcmp(st, "skipped") == 0)
			skipped++;
	}
	/* A skipped point (no peer, no root, ...) is said, not failed: an
	   experiment whose other points are ok is ok.  A "partial" point makes
	   its experiment partial. */
	if (n > 0 && skipped == n)
		return "skipped";
	if (n > 0 && ok + skipped == n)
		return "ok";
	return ok ? "partial" : "failed";
}

size_t results_kept(const json_t *point, double **out)
{
	const json_t *samples = json_object_get(point, "samples"), *sm;
	size_t i, n = 0;
	double *v = calloc(json_array_size(samples) + 1, sizeof *v);
	json_array_foreach(samples, i, sm) {
		if (json_is_true(json_object_get(sm, "warmup")) ||
		    !json_is_true(json_object_get(sm, "valid")) ||
		    json_is_true(json_object_get(sm, "outlier")) ||
		    !json_is_number(json_object_get(sm, "value")))
			continue;
		v[n++] = json_number_value(json_object_get(sm, "value"));
	}
	*out = v;
	return n;
}

/* --- findings --------------------------------------------------------- */

/* The x parameter of the knees analysis: chart.x, else the first swept
   size parameter. */
static int knee_axis(const struct spec *s)
{
	for (size_t a = 0; a < s->n_axis; a++)
		if (s->chart.x && strcmp(s->bound->params[a].name, s->chart.x) == 0)
			return (int)a;
	for (size_t a = 0; a < s->n_axis; a++)
		if (s->axis_swept[a] && s->bound->params[a].type == PROBE_SIZE)
			return (int)a;
	return -1;
}

static json_t *sysfs_caches(const json_t *machine)
{
	json_t *arr = json_array(), *c;
	size_t i;
	json_array_foreach(json_object_get(machine, "caches"), i, c) {
		const char *t = json_string_value(json_object_get(c, "type"));
		if (t && strcmp(t, "Instruction") == 0)
			continue;
		jsonutil_append(arr, json_pack("{s:O,s:O,s:O}", "level", json_object_get(c, "level"),
						     "type", json_object_get(c, "type"),
						     "size_bytes", json_object_get(c, "size_bytes")));
	}
	return arr;
}

/* The floor of a DRAM access and above any cache hit on current CPUs: the
   first plateau at or above it is memory (stats_levels_name). */
#define KNEE_DRAM_NS 50.0

/* The machine's data and unified caches, for naming the levels. */
static size_t machine_caches(const json_t *machine, struct stats_cache *out, size_t max)
{
	const json_t *c;
	size_t i, n = 0;

	json_array_foreach(json_object_get(machine, "caches"), i, c) {
		const char *t = json_string_value(json_object_get(c, "type"));
		const json_t *lvl = json_object_get(c, "level"), *sz = json_object_get(c, "size_bytes");

		if ((t && strcmp(t, "Instruction") == 0) || !json_is_number(lvl) || !json_is_number(sz) ||
		    n == max)
			continue;
		out[n++] = (struct stats_cache){ (int)json_number_value(lvl), json_number_value(sz) };
	}
	return n;
}

static json_t *knees(const struct spec *s, const json_t *points, const json_t *machine)
{
	int xa = knee_axis(s);
	if (xa < 0)
		return json_pack("{s:s}", "error", "no swept size parameter to find knees over");
	const char *xname = s->bound->params[xa].name;
	json_t *series = json_object();
	size_t i;
	const json_t *p;

	/* Group points by every other parameter's text: one curve each. */
	json_array_foreach(points, i, p) {
		char key[1024] = "";
		const char *k;
		json_t *v;
		json_object_foreach(json_object_get(p, "params_text"), k, v) {
			if (strcmp(k, xname) == 0)
				continue;
			size_t n = 0;
			for (size_t a = 0; a < s->n_axis; a++)
				if (strcmp(s->bound->params[a].name, k) == 0)
					n = s->axis_n[a];
			if (n <= 1)
				continue;
			size_t used = strlen(key);
			snprintf(key + used, sizeof key - used, "%s%s=%s", used ? "," : "", k,
				 json_string_value(v));
		}
		if (!key[0])
			snprintf(key, sizeof key, "all");
		json_t *arr = json_object_get(series, key);
		if (!arr) {
			arr = json_array();
			jsonutil_set(series, key, arr);
		}
		json_array_append(arr, (json_t *)p);
	}
	json_t *outs = json_object();
	const char *key;
	json_t *arr;
	double ns_unit;
	json_object_foreach(series, key, arr) {
		size_t n = json_array_size(arr), m = 0;
		double *x = calloc(n + 1, sizeof *x), *y = calloc(n + 1, sizeof *y);
		json_array_foreach(arr, i, p) {
			json_t *e = json_object_get(p, "estimate");
			if (!json_is_number(e))
				continue;
			x[m] = json_number_value(json_object_get(json_object_get(p, "params"), xname));
			y[m++] = json_number_value(e);
		}
		/* The plan may not be sorted by x when x is not the last axis. */
		for (size_t a = 1; a < m; a++)
			for (size_t b = a; b > 0 && x[b - 1] > x[b]; b--) {
				double t = x[b]; x[b] = x[b - 1]; x[b - 1] = t;
				t = y[b]; y[b] = y[b - 1]; y[b - 1] = t;
			}
		struct stats_level lv[16];
		struct stats_cache caches[16], miss[16];
		size_t nl = stats_knees(x, y, m, lv, 16), nmiss = 0, nc = 0;
		int is_time = units_is_time(s->bound->unit, &ns_unit), mem = 0;
		/* a stride of a page or more touches one line per page: its steps
		   are the TLBs' reach, not the caches' sizes, and are named so */
		json_t *st = json_object_get(json_object_get(json_array_get(arr, 0), "params"), "stride");
		double page = json_is_number(json_object_get(machine, "page_size"))
				      ? json_number_value(json_object_get(machine, "page_size")) : 4096;
		int tlb = json_is_number(st) && json_number_value(st) >= page;
		if (is_time && !tlb)
			nc = machine_caches(machine, caches, 16);
		nmiss = stats_levels_name(lv, nl, x, y, m, is_time ? KNEE_DRAM_NS / ns_unit : INFINITY,
					  caches, nc, miss, 16);
		for (size_t l = 0; tlb && l < nl; l++)
			if (lv[l].name[0] == 'L') {
				snprintf(lv[l].name, sizeof lv[l].name, "TLB step %zu", l + 1);
				snprintf(lv[l].note, sizeof lv[l].note,
					 "one line per page: a step of the TLBs' reach, not a cache size");
			}
		json_t *levels = json_array(), *missing = json_array();
		for (size_t l = 0; l < nl; l++) {
			mem |= strcmp(lv[l].name, "Memory") == 0;
			jsonutil_append(levels, json_pack("{s:s,s:o,s:o,s:o,s:o,s:b,s:o}",
				"name", lv[l].name, "size_bytes", results_num(lv[l].size),
				"knee_bytes", results_num(lv[l].knee), "latency", results_num(lv[l].latency),
				"sysfs_bytes", results_num(lv[l].sysfs), "within_step", lv[l].within_step,
				"note", lv[l].note[0] ? jsonutil_text(lv[l].note) : json_null()));
		}
		for (size_t k2 = 0; k2 < nmiss; k2++)
			jsonutil_append(missing, json_pack("{s:i,s:o}", "level", miss[k2].level,
				"size_bytes", results_num(miss[k2].bytes)));
		jsonutil_set(outs, key, json_pack("{s:o,s:o,s:o,s:b}", "levels", levels,
							 "sysfs", sysfs_caches(machine),
							 "missing", missing,
							 "memory_reached", is_time ? mem : 1));
		free(x);
		free(y);
	}
	json_decref(series);
	return json_pack("{s:s,s:o}", "param", xname, "series", outs);
}

/* ratios: each point's estimate over the smallest estimate (e.g. read vs
   fread vs mmap, 7 args vs 0). */
static json_t *ratios(const json_t *points)
{
	double best = INFINITY;
	size_t i;
	const json_t *p;
	json_array_foreach(points, i, p) {
		json_t *e = json_object_get(p, "estimate");
		if (json_is_number(e) && json_number_value(e) > 0 && json_number_value(e) < best)
			best = json_number_value(e);
	}
	json_t *arr = json_array();
	json_array_foreach(points, i, p) {
		json_t *e = json_object_get(p, "estimate");
		jsonutil_append(arr, json_pack("{s:I,s:o}", "index", (json_int_t)i, "ratio",
			results_num(json_is_number(e) && isfinite(best) ? json_number_value(e) / best : NAN)));
	}
	return arr;
}

void results_findings(const struct spec *s, json_t *result, const json_t *machine)
{
	json_t *f = json_object(), *points = json_object_get(result, "points");
	for (size_t i = 0; i < s->n_findings; i++) {
		if (strcmp(s->findings[i], "knees") == 0)
			jsonutil_set(f, "knees", knees(s, points, machine));
		else if (strcmp(s->findings[i], "ratios") == 0)
			jsonutil_set(f, "ratios", ratios(points));
		else if (strcmp(s->findings[i], "file_cache") == 0) {
			int xa = knee_axis(s);
			jsonutil_set(f, "file_cache",
				xa < 0 ? json_pack("{s:s}", "error", "no swept size parameter")
				       : results_file_cache(points, s->bound->params[xa].name,
							    s->bound->unit));
		}
	}
	jsonutil_set(result, "findings", f);
}
