/*
 * compare.c - `runner compare A B`: a decision, point by point and overall,
 * on whether run B is slower or faster than run A (docs/cli.md).
 *
 * Points are matched by experiment and by the values of the parameters the
 * experiment sweeps (in either run); a parameter fixed in both runs at
 * different values is a difference of configuration, shown as a note, so a
 * run with `--set EXP.params.scale=1.2` still compares point by point.
 *
 * Per point: B/A = the ratio of the geometric means of the per-round
 * estimates (point.rounds[].estimate), with a 95 % Welch interval on the
 * log scale (stats_ratio): rounds are independent processes spread over
 * the run, so the interval holds the run-to-run variation.  When either run
 * has fewer than 2 rounds for the point (runs from before rounds, or
 * `rounds: 1`), the kept samples are used instead and the row is marked:
 * that interval is within one run only and too narrow for a decision
 * between runs.  The p-values of all compared points are adjusted together
 * (Holm), and then:
 *
 *   slower / faster  adjusted p < 0.05 and B/A beyond the threshold, in
 *                    the probe's direction (bigger_is_better: a rate)
 *   within noise     adjusted p < 0.05, but B/A within the threshold
 *   no change        adjusted p >= 0.05 (the interval, shown, says how
 *                    large a change this does not rule out)
 *   inconclusive     no test: fewer than 2 values on a side
 *   host drift       slower or faster, but the host changed speed: the
 *                    point is flagged host_drift in either run (measured
 *                    while that run's canary moved), or the two runs'
 *                    canaries differ beyond their threshold in the
 *                    direction of the change and the change is at most
 *                    DRIFT_REACH times theirs (on the log scale)
 *
 * The threshold band is symmetric on the log scale: [1/(1+t), 1+t].
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/compare.h"
#include "lib/exitcode.h"
#include "lib/jsonutil.h"
#include "lib/strf.h"
#include "lib/units.h"
#include "results/results.h"
#include "stats/stats.h"

#define ALPHA 0.05			/* family-wise, after Holm */
#define LEVEL 0.95			/* of the per-point interval */
#define MAX_KEYS 16			/* swept parameters used as a point's key */
/* A change of up to this many times the canaries' own (log) ratio is put
   down to the host: the canary is pure CPU work, and a point's work slows
   at most about as much as the core does (memory and devices less). */
#define DRIFT_REACH 1.5

enum verdict {
	V_FASTER, V_SLOWER, V_WITHIN_NOISE, V_NO_CHANGE, V_DRIFT, V_INCONCLUSIVE,
	V_ONLY_A, V_ONLY_B, V_NO_DATA_A, V_NO_DATA_B, V_NO_DATA, V_COUNT
};

static const char *const verdict_name[V_COUNT] = {
	"faster", "slower", "within noise", "no change", "host drift", "inconclusive",
	"only in A", "only in B", "no data in A", "no data in B", "no data",
};

enum fail_on { FAIL_NEVER, FAIL_REGRESSION, FAIL_CHANGE };

struct cpoint {
	size_t exp;			/* index into cmp.x */
	char key[256];			/* the swept parameters: "work=500 mode=a" */
	json_t *pa, *pb;		/* borrowed from the experiment's results; NULL: absent */
	double ea, eb;			/* the points' estimates (probe units) */
	struct stats_ratio r;
	int from_rounds;		/* 0: interval from the samples of one run */
	double p_holm;
	enum verdict v;
};

struct cexp {
	const char *name;		/* borrowed from a manifest */
	json_t *ra, *rb;		/* the results; NULL when the run has none */
	int bigger_better;
	const char *unit;		/* the probe's unit */
	double scale;			/* display = probe value * scale */
	char label[32];			/* the display unit */
	char notes[512];		/* fixed parameters that differ */
};

struct cmp {
	double threshold;
	double host_ratio;		/* B's canary over A's (> 1: B's host slower); NaN */
	double host_band;		/* the canaries' threshold, log scale */
	enum fail_on fail_on;
	const char *dir_a, *dir_b;
	json_t *ma, *mb;		/* manifests */
	struct cexp *x;
	size_t nx;
	struct cpoint *p;
	size_t np, cap;
};

/* ---- input ------------------------------------------------------------ */

static int parse_args(const struct compare_args *a, struct cmp *c)
{
	char err[256];

	c->threshold = 0.05;
	if (a->threshold) {
		if (units_parse(a->threshold, UNIT_PERCENT, &c->threshold, err, sizeof err) < 0 ||
		    !(c->threshold >= 0 && c->threshold < 1)) {
			fprintf(stderr, "runner: --threshold '%s': expected a percentage from 0%% "
				"to below 100%%, like 3%%\n", a->threshold);
			return -1;
		}
	}
	c->fail_on = FAIL_NEVER;
	if (a->fail_on) {
		if (strcmp(a->fail_on, "regression") == 0)
			c->fail_on = FAIL_REGRESSION;
		else if (strcmp(a->fail_on, "change") == 0)
			c->fail_on = FAIL_CHANGE;
		else if (strcmp(a->fail_on, "never") != 0) {
			fprintf(stderr, "runner: --fail-on '%s': expected regression, change or "
				"never\n", a->fail_on);
			return -1;
		}
	}
	return 0;
}

static json_t *load_json(const char *dir, const char *name)
{
	char path[4096], err[4400];

	strf(path, sizeof path, "%s/%s", dir, name);
	return results_load(path, err, sizeof err);
}

static json_t *load_manifest(const char *dir)
{
	char err[4400];
	json_t *m;

	m = results_manifest_read(dir, err, sizeof err);
	if (!m)
		fprintf(stderr, "runner: compare: %s\n", err);
	return m;
}

static int find_exp(const struct cmp *c, const char *name)
{
	for (size_t i = 0; i < c->nx; i++)
		if (strcmp(c->x[i].name, name) == 0)
			return (int)i;
	return -1;
}

/* The experiments of both runs, A's order first, each with its results. */
static int gather_experiments(struct cmp *c)
{
	json_t *lists[2] = { json_object_get(c->ma, "experiments"),
			     json_object_get(c->mb, "experiments") };
	size_t i;
	json_t *e;

	c->x = calloc(json_array_size(lists[0]) + json_array_size(lists[1]) + 1, sizeof *c->x);
	if (!c->x)
		return -1;
	for (int side = 0; side < 2; side++)
		json_array_foreach(lists[side], i, e) {
			const char *name = jsonutil_str(e, "name");
			char file[512];

			if (!name)
				continue;
			int k = find_exp(c, name);
			if (k < 0) {
				k = (int)c->nx++;
				c->x[k].name = name;
			}
			strf(file, sizeof file, "results/%s.json", name);
			json_t **slot = side ? &c->x[k].rb : &c->x[k].ra;
			if (!*slot)
				*slot = load_json(side ? c->dir_b : c->dir_a, file);
		}
	return 0;
}

/* ---- matching points ---------------------------------------------------- */

static json_t *spec_values(json_t *result, const char *param)
{
	return json_object_get(json_object_get(json_object_get(result, "spec"), "params"), param);
}

/* The parameters either run sweeps (more than one value): a point's key. */
static size_t swept_params(struct cexp *x, const char **keys)
{
	size_t n = 0;
	json_t *runs[2] = { x->ra, x->rb };

	for (int s = 0; s < 2; s++) {
		const char *k;
		json_t *v;

		json_object_foreach(json_object_get(json_object_get(runs[s], "spec"), "params"), k, v) {
			size_t j = 0;

			while (j < n && strcmp(keys[j], k) != 0)
				j++;
			if (j == n && n < MAX_KEYS && json_array_size(v) > 1)
				keys[n++] = k;
		}
	}
	return n;
}

static const char *text_of(json_t *v)
{
	return json_is_string(v) ? json_string_value(v) : "?";
}

/* "parameter scale: A 1, B 1.2" for each parameter fixed in both runs at
   different values, and a probe unit that changed. */
static void fixed_differences(struct cexp *x)
{
	const char *k, *ua = jsonutil_str(json_object_get(x->ra, "probe"), "unit");
	const char *ub = jsonutil_str(json_object_get(x->rb, "probe"), "unit");
	json_t *va;

	if (ua && ub && strcmp(ua, ub) != 0)
		strf(x->notes, sizeof x->notes, "the probe's unit: A %s, B %s (B/A is not a ratio of "
		     "like quantities)", ua, ub);
	json_object_foreach(json_object_get(json_object_get(x->ra, "spec"), "params"), k, va) {
		json_t *vb = spec_values(x->rb, k);
		size_t used = strlen(x->notes);

		if (json_array_size(va) != 1 || json_array_size(vb) != 1 || json_equal(va, vb))
			continue;
		strf(x->notes + used, sizeof x->notes - used, "%sparameter %s: A %s, B %s",
		     used ? "; " : "", k, text_of(json_array_get(va, 0)),
		     text_of(json_array_get(vb, 0)));
	}
}

static void point_key(json_t *pt, const char **keys, size_t n, char *buf, size_t len)
{
	json_t *text = json_object_get(pt, "params_text");

	buf[0] = 0;
	for (size_t i = 0; i < n; i++) {
		const char *v = jsonutil_str(text, keys[i]);
		size_t used = strlen(buf);

		strf(buf + used, len - used, "%s%s=%s", used ? " " : "", keys[i], v ? v : "?");
	}
	if (!buf[0])
		strf(buf, len, "-");
}

static struct cpoint *add_point(struct cmp *c, size_t exp, const char *key, json_t *pa,
				json_t *pb)
{
	if (c->np == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 64;
		struct cpoint *p = realloc(c->p, cap * sizeof *p);

		if (!p)
			return NULL;
		c->p = p;
		c->cap = cap;
	}
	struct cpoint *p = &c->p[c->np++];

	memset(p, 0, sizeof *p);
	p->exp = exp;
	strf(p->key, sizeof p->key, "%s", key);
	p->pa = pa;
	p->pb = pb;
	p->ea = jsonutil_num(pa, "estimate");
	p->eb = jsonutil_num(pb, "estimate");
	p->r.ratio = p->r.lo = p->r.hi = p->r.p = p->p_holm = NAN;
	return p;
}

/* The points of experiment k present in both runs, then those of one.
   B's points are indexed by key first (a JSON object as the hash table:
   key -> the indices of B's points with it, in order), so matching is
   linear; a scan of B per point of A took minutes at 10,000 points. */
static int match_points(struct cmp *c, size_t k)
{
	struct cexp *x = &c->x[k];
	const char *keys[MAX_KEYS];
	size_t n = swept_params(x, keys), i, j, nb = json_array_size(json_object_get(x->rb, "points"));
	unsigned char *used = calloc(nb + 1, 1);
	json_t *byk = json_object(), *list;
	char ka[256], kb[256];
	json_t *pa, *pb;
	int rc = -1;

	if (!used || !byk)
		goto out;
	json_array_foreach(json_object_get(x->rb, "points"), j, pb) {
		point_key(pb, keys, n, kb, sizeof kb);
		if (!(list = json_object_get(byk, kb))) {
			if (jsonutil_set(byk, kb, list = json_array()) < 0)
				goto out;
		}
		if (jsonutil_append(list, json_integer((json_int_t)j)) < 0)
			goto out;
	}
	json_array_foreach(json_object_get(x->ra, "points"), i, pa) {
		json_t *match = NULL, *ix;
		size_t m;

		point_key(pa, keys, n, ka, sizeof ka);
		json_array_foreach(json_object_get(byk, ka), m, ix) {
			j = (size_t)json_integer_value(ix);
			if (j < nb && !used[j]) {
				used[j] = 1;
				match = json_array_get(json_object_get(x->rb, "points"), j);
				break;
			}
		}
		if (!add_point(c, k, ka, pa, match))
			goto out;
	}
	json_array_foreach(json_object_get(x->rb, "points"), j, pb) {
		point_key(pb, keys, n, kb, sizeof kb);
		if (!used[j] && !add_point(c, k, kb, NULL, pb))
			goto out;
	}
	rc = 0;
out:
	json_decref(byk);
	free(used);
	return rc;
}

/* ---- the numbers -------------------------------------------------------- */

/* The finite per-round estimates of a point (out may be NULL: count only). */
static size_t round_estimates(json_t *pt, double *out)
{
	size_t i, n = 0;
	json_t *r;

	json_array_foreach(json_object_get(pt, "rounds"), i, r) {
		double e = jsonutil_num(r, "estimate");

		if (isfinite(e)) {
			if (out)
				out[n] = e;
			n++;
		}
	}
	return n;
}

/* The kept samples, shifted by what was subtracted from the estimate so
   that they are on the estimate's scale. */
static size_t kept_samples(json_t *pt, double **out)
{
	size_t n = results_kept(pt, out);
	double shift = jsonutil_num(pt, "estimate_raw") - jsonutil_num(pt, "estimate");

	if (isfinite(shift) && shift != 0)
		for (size_t i = 0; i < n; i++)
			(*out)[i] -= shift;
	return n;
}

static int measure(struct cpoint *p)
{
	size_t na = round_estimates(p->pa, NULL), nb = round_estimates(p->pb, NULL);
	double *a, *b;

	if (!isfinite(p->ea) || !isfinite(p->eb))
		return 0;
	p->from_rounds = na >= 2 && nb >= 2;
	if (p->from_rounds) {
		a = calloc(na, sizeof *a);
		b = calloc(nb, sizeof *b);
		if (!a || !b) {
			free(a);
			free(b);
			return -1;
		}
		round_estimates(p->pa, a);
		round_estimates(p->pb, b);
	} else {
		na = kept_samples(p->pa, &a);
		nb = kept_samples(p->pb, &b);
	}
	stats_ratio(a, na, b, nb, LEVEL, &p->r);
	free(a);
	free(b);
	return 0;
}

static enum verdict decide(const struct cpoint *p, double threshold, int bigger_better)
{
	double band = log1p(threshold) + 1e-12;	/* 1e-12: a ratio of exactly 1+t is within */

	if (!p->pa)
		return V_ONLY_B;
	if (!p->pb)
		return V_ONLY_A;
	if (!isfinite(p->ea) && !isfinite(p->eb))
		return V_NO_DATA;
	if (!isfinite(p->ea))
		return V_NO_DATA_A;
	if (!isfinite(p->eb))
		return V_NO_DATA_B;
	if (!isfinite(p->r.lo) || !isfinite(p->r.hi) || !isfinite(p->p_holm))
		return V_INCONCLUSIVE;
	if (p->p_holm >= ALPHA)
		return V_NO_CHANGE;
	if (fabs(log(p->r.ratio)) <= band)
		return V_WITHIN_NOISE;
	return (p->r.ratio > 1) != (bigger_better != 0) ? V_SLOWER : V_FASTER;
}

static int flagged_drift(json_t *pt)
{
	json_t *f;
	size_t i;

	json_array_foreach(json_object_get(pt, "sanity"), i, f)
		if (jsonutil_str(f, "flag") && !strcmp(jsonutil_str(f, "flag"), "host_drift"))
			return 1;
	return 0;
}

/* Is a slower or faster point the host's doing (see the header)? */
static int drift_explains(const struct cmp *c, const struct cpoint *p)
{
	int bigger = c->x[p->exp].bigger_better;
	double hr = c->host_ratio, change;

	if (p->v != V_SLOWER && p->v != V_FASTER)
		return 0;
	if (flagged_drift(p->pa) || flagged_drift(p->pb))
		return 1;
	if (!isfinite(hr) || !(fabs(log(hr)) > c->host_band))
		return 0;
	/* as a time ratio: > 1 is slower, whichever way the probe counts */
	change = bigger ? 1 / p->r.ratio : p->r.ratio;
	return (change > 1) == (hr > 1) && fabs(log(change)) <= DRIFT_REACH * fabs(log(hr));
}

/* The drift check of both runs (the manifests' "drift"): B's canary over
   A's, and the band beyond which the hosts differed. */
static void host_drift(struct cmp *c)
{
	json_t *da = json_object_get(c->ma, "drift"), *db = json_object_get(c->mb, "drift");
	double ra = jsonutil_num(da, "reference_ms"), rb = jsonutil_num(db, "reference_ms");
	double ta = jsonutil_num(json_object_get(da, "canary"), "threshold");
	double ia = jsonutil_num(json_object_get(da, "canary"), "iterations");
	double ib = jsonutil_num(json_object_get(db, "canary"), "iterations");

	c->host_ratio = NAN;
	c->host_band = log1p(isfinite(ta) && ta > 0 && ta < 1 ? ta : 0.1);
	/* the same work on both sides, or the timings do not compare */
	if (ra > 0 && rb > 0 && isfinite(ra) && isfinite(rb) && ia > 0 && ia == ib)
		c->host_ratio = rb / ra;
}

static void print_drift(FILE *f, const struct cmp *c)
{
	json_t *d[2] = { json_object_get(c->ma, "drift"), json_object_get(c->mb, "drift") };

	for (int k = 0; k < 2; k++) {
		const char *v = jsonutil_str(d[k], "verdict");
		if (v && !strcmp(v, "drifted"))
			fprintf(f, "note: %s: the host changed speed during the run (a fixed canary "
				"workload varied %.2fx): its points measured then are flagged host_drift, "
				"and their changes are not called\n", k ? "B" : "A",
				jsonutil_num(d[k], "spread"));
	}
	if (isfinite(c->host_ratio) && fabs(log(c->host_ratio)) > c->host_band)
		fprintf(f, "note: the host ran %.2fx %s during B than during A (a fixed canary "
			"workload): a change in that direction up to %.2fx is put down to the host, "
			"not called\n", c->host_ratio > 1 ? c->host_ratio : 1 / c->host_ratio,
			c->host_ratio > 1 ? "slower" : "faster",
			exp(DRIFT_REACH * fabs(log(c->host_ratio))));
}

/* Ratios, Holm over every compared point, verdicts. */
static int decide_all(struct cmp *c)
{
	double *pv = calloc(c->np + 1, sizeof *pv), *adj = calloc(c->np + 1, sizeof *adj);
	int rc = -1;

	if (!pv || !adj)
		goto out;
	for (size_t i = 0; i < c->np; i++) {
		if (measure(&c->p[i]) < 0)
			goto out;
		pv[i] = c->p[i].r.p;
	}
	if (stats_holm(pv, c->np, adj) < 0)
		goto out;
	for (size_t i = 0; i < c->np; i++) {
		c->p[i].p_holm = adj[i];
		c->p[i].v = decide(&c->p[i], c->threshold, c->x[c->p[i].exp].bigger_better);
		if (drift_explains(c, &c->p[i]))
			c->p[i].v = V_DRIFT;
	}
	rc = 0;
out:
	free(pv);
	free(adj);
	return rc;
}

/* Each experiment's direction and display unit (as the report picks it,
   from A's points, else B's). */
static void experiment_units(struct cexp *x)
{
	json_t *r = x->ra ? x->ra : x->rb, *probe = json_object_get(r, "probe");
	json_t *pts = json_object_get(r, "points");
	size_t i, n = 0;
	double *v = calloc(json_array_size(pts) + 1, sizeof *v), typical = NAN;
	json_t *pt;

	x->bigger_better = json_is_true(json_object_get(probe, "bigger_is_better"));
	x->unit = jsonutil_str(probe, "unit");
	json_array_foreach(pts, i, pt)
		if (v && isfinite(jsonutil_num(pt, "estimate")))
			v[n++] = fabs(jsonutil_num(pt, "estimate"));
	if (n)
		typical = stats_quantile(v, n, 0.5);
	free(v);
	x->scale = units_display(x->unit, typical, x->label, sizeof x->label, NULL);
}

/* ---- output ------------------------------------------------------------- */

struct tally {
	size_t n[V_COUNT];
	double *ratios;			/* B/A of the compared points */
	size_t nr;
};

static void fmt_value(const struct cexp *x, double v, char *buf, size_t len)
{
	char num[32];

	if (!isfinite(v)) {
		strf(buf, len, "-");
		return;
	}
	units_format_number(v * x->scale, num, sizeof num);
	strf(buf, len, "%s%s%s", num, x->label[0] ? " " : "", x->label);
}

static void fmt_p(double p, char *buf, size_t len)
{
	if (!isfinite(p))
		strf(buf, len, "-");
	else if (p < 0.001)
		strf(buf, len, "<0.001");
	else
		strf(buf, len, "%.3f", p);
}

static void print_points(FILE *f, const struct cmp *c, int we, int wp)
{
	fprintf(f, "%-*s  %-*s  %11s  %11s  %7s  %-17s %7s  %s\n", we, "experiment", wp, "point",
	       "A", "B", "B/A", "95% CI", "p(Holm)", "verdict");
	for (size_t i = 0; i < c->np; i++) {
		const struct cpoint *p = &c->p[i];
		const struct cexp *x = &c->x[p->exp];
		char a[48], b[48], ratio[16] = "-", ci[40] = "-", pp[16];

		fmt_value(x, p->ea, a, sizeof a);
		fmt_value(x, p->eb, b, sizeof b);
		if (isfinite(p->r.ratio) && p->v <= V_INCONCLUSIVE)
			strf(ratio, sizeof ratio, "%.3f", p->r.ratio);
		if (isfinite(p->r.lo) && p->v <= V_INCONCLUSIVE)
			strf(ci, sizeof ci, "[%.3f, %.3f]%s", p->r.lo, p->r.hi,
			     p->from_rounds ? "" : "*");
		fmt_p(p->p_holm, pp, sizeof pp);
		fprintf(f, "%-*s  %-*s  %11s  %11s  %7s  %-17s %7s  %s\n", we, x->name, wp, p->key, a, b,
		       ratio, ci, pp, verdict_name[p->v]);
	}
}

static void print_notes(FILE *f, const struct cmp *c)
{
	size_t within = 0, i;

	for (i = 0; i < c->nx; i++) {
		const struct cexp *x = &c->x[i];

		if (!x->ra && !x->rb)
			fprintf(f, "note: experiment '%s' has no results in either run\n", x->name);
		else if (!x->ra || !x->rb)
			fprintf(f, "note: experiment '%s' is only in %s\n", x->name, x->ra ? "A" : "B");
		else if (x->notes[0])
			fprintf(f, "note: %s: %s\n", x->name, x->notes);
	}
	for (i = 0; i < c->np; i++)
		within += c->p[i].v <= V_INCONCLUSIVE && isfinite(c->p[i].r.ratio) &&
			  !c->p[i].from_rounds;
	if (within)
		fprintf(f, "note: * %zu point%s without rounds in A or B: the interval is from the "
		       "samples of each run, within-run only (it leaves out run-to-run variation)\n",
		       within, within == 1 ? "" : "s");
}

static void tally_add(struct tally *t, const struct cpoint *p, int invert)
{
	t->n[p->v]++;
	if (p->v <= V_INCONCLUSIVE && isfinite(p->r.ratio))
		t->ratios[t->nr++] = invert ? 1 / p->r.ratio : p->r.ratio;
}

static void print_tally(FILE *f, const char *name, int we, const struct tally *t, const char *what)
{
	char g[32] = "-";
	double gm = stats_geomean(t->ratios, t->nr);

	if (isfinite(gm))
		strf(g, sizeof g, "%.3f", gm);
	fprintf(f, "%-*s  %6zu  %6zu  %6zu  %9zu  %12zu  %9zu  %s%s\n", we, name, t->nr, t->n[V_FASTER],
	       t->n[V_SLOWER], t->n[V_NO_CHANGE] + t->n[V_WITHIN_NOISE],
	       t->n[V_INCONCLUSIVE] + t->n[V_DRIFT],
	       t->n[V_ONLY_A] + t->n[V_ONLY_B] + t->n[V_NO_DATA_A] + t->n[V_NO_DATA_B] +
	       t->n[V_NO_DATA], g, what);
}

/* Per experiment and for the whole run: counts and the geometric mean of
   B/A (for the run, rates inverted, so that > 1 is slower throughout). */
static int print_summary(FILE *f, const struct cmp *c, int we, struct tally *all)
{
	int inverted = 0;

	fprintf(f, "\n%-*s  %6s  %6s  %6s  %9s  %12s  %9s  %s\n", we, "experiment", "points", "faster",
	       "slower", "unchanged", "inconclusive", "missing", "geomean");
	for (size_t i = 0; i < c->nx; i++) {
		struct tally t = { .ratios = calloc(c->np + 1, sizeof(double)) };

		if (!c->x[i].ra && !c->x[i].rb) {
			free(t.ratios);
			continue;
		}
		if (!t.ratios)
			return -1;
		for (size_t k = 0; k < c->np; k++)
			if (c->p[k].exp == i) {
				tally_add(&t, &c->p[k], 0);
				tally_add(all, &c->p[k], c->x[i].bigger_better);
			}
		inverted |= c->x[i].bigger_better && t.nr;
		print_tally(f, c->x[i].name, we, &t, !c->x[i].ra ? " (only in B)" : !c->x[i].rb ?
			    " (only in A)" : c->x[i].bigger_better ? " (B/A of a rate)" : "");
		free(t.ratios);
	}
	print_tally(f, "all", we, all, inverted ? " (time ratio: rates as A/B)" : "");
	return 0;
}

static void print_decision(FILE *f, const struct cmp *c, const struct tally *all, int fail)
{
	fprintf(f, "\ndecision: %zu slower, %zu faster beyond %g%% (Holm-adjusted p < %g)",
	       all->n[V_SLOWER], all->n[V_FASTER], 100 * c->threshold, ALPHA);
	if (c->fail_on != FAIL_NEVER)
		fprintf(f, ": %s", fail ? "FAIL" : "pass");
	fprintf(f, "\n");
}

/* ---- JSON --------------------------------------------------------------- */

static json_t *run_json(const char *dir, json_t *m)
{
	return json_pack("{s:s, s:O?}", "dir", dir, "run_id", json_object_get(m, "run_id"));
}

static json_t *point_json(const struct cmp *c, const struct cpoint *p)
{
	const struct cexp *x = &c->x[p->exp];
	const char *change = p->v == V_SLOWER ? "regression" : p->v == V_FASTER ? "improvement"
			   : p->v == V_DRIFT ? "host_drift" : p->v <= V_INCONCLUSIVE ? "none" : NULL;
	int compared = p->v <= V_INCONCLUSIVE;

	return json_pack("{s:s, s:s, s:O?, s:o, s:o, s:s?, s:o, s:[oo], s:s?, s:o, s:o, s:s, s:s?}",
			 "experiment", x->name, "point", p->key,
			 "params", json_object_get(p->pa ? p->pa : p->pb, "params_text"),
			 "a", results_num(p->ea), "b", results_num(p->eb), "unit", x->unit,
			 "ratio", results_num(compared ? p->r.ratio : NAN),
			 "ci", results_num(compared ? p->r.lo : NAN),
			 results_num(compared ? p->r.hi : NAN),
			 "ci_source", !compared || !isfinite(p->r.ratio) ? NULL
				      : p->from_rounds ? "rounds" : "samples",
			 "p", results_num(p->r.p), "p_holm", results_num(p->p_holm),
			 "verdict", verdict_name[p->v], "change", change);
}

static int write_json(const struct cmp *c, const struct tally *all, int rc, const char *path)
{
	static const char *const fail_names[] = { "never", "regression", "change" };
	json_t *pts = json_array(), *exps = json_array(), *j;
	char err[4400];
	int ok;

	for (size_t i = 0; i < c->np; i++)
		jsonutil_append(pts, point_json(c, &c->p[i]));
	for (size_t i = 0; i < c->nx; i++)
		jsonutil_append(exps, json_pack("{s:s, s:b, s:b, s:s?, s:b}", "name",
			c->x[i].name, "in_a", c->x[i].ra != NULL, "in_b", c->x[i].rb != NULL,
			"notes", c->x[i].notes[0] ? c->x[i].notes : NULL,
			"bigger_is_better", c->x[i].bigger_better));
	j = json_pack("{s:s, s:o, s:o, s:f, s:f, s:f, s:s, s:s, s:o, s:o, s:{s:I, s:I, s:I, s:I, s:I, "
		      "s:I, s:o}, s:o, s:i}",
		      "schema", "sysmeter.compare/1", "a", run_json(c->dir_a, c->ma),
		      "b", run_json(c->dir_b, c->mb), "threshold", c->threshold, "alpha", ALPHA,
		      "ci_level", LEVEL, "correction", "holm", "fail_on", fail_names[c->fail_on],
		      "points", pts, "experiments", exps, "summary",
		      "compared", (json_int_t)all->nr, "slower", (json_int_t)all->n[V_SLOWER],
		      "faster", (json_int_t)all->n[V_FASTER],
		      "unchanged", (json_int_t)(all->n[V_NO_CHANGE] + all->n[V_WITHIN_NOISE]),
		      "inconclusive", (json_int_t)all->n[V_INCONCLUSIVE],
		      "host_drift", (json_int_t)all->n[V_DRIFT],
		      "geomean_time_ratio", results_num(stats_geomean(all->ratios, all->nr)),
		      "host_ratio", results_num(c->host_ratio), "exit_code", rc);
	if (!j)
		return -1;
	if (strcmp(path, "-") == 0 && jsonutil_build_failure()) {
		fprintf(stderr, "runner: compare: JSON not written: a value could not be built (%s)\n",
			jsonutil_build_failure());
		ok = 0;
	} else if (strcmp(path, "-") == 0) {
		ok = json_dumpf(j, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
				  JSON_REAL_PRECISION(10)) == 0;
		fputc('\n', stdout);
	} else {
		ok = results_write_json(path, j, err, sizeof err) == 0;
		if (!ok)
			fprintf(stderr, "runner: compare: %s\n", err);
	}
	json_decref(j);
	return ok ? 0 : -1;
}

/* ---- the command -------------------------------------------------------- */

static int table_widths(const struct cmp *c, int *we, int *wp)
{
	size_t compared = 0;

	*we = (int)strlen("experiment");
	*wp = (int)strlen("point");
	for (size_t i = 0; i < c->nx; i++)
		if ((int)strlen(c->x[i].name) > *we)
			*we = (int)strlen(c->x[i].name);
	for (size_t i = 0; i < c->np; i++) {
		if ((int)strlen(c->p[i].key) > *wp)
			*wp = (int)strlen(c->p[i].key);
		compared += c->p[i].pa && c->p[i].pb;
	}
	return compared > 0;
}

static int report(struct cmp *c, const struct compare_args *args)
{
	struct tally all = { .ratios = calloc(c->np + 1, sizeof(double)) };
	int we, wp, rc = EXIT_OK, fail;
	FILE *f = args->json && strcmp(args->json, "-") == 0 ? stderr : stdout;
	const char *ca = jsonutil_str(json_object_get(c->ma, "machine"), "cpu_model");
	const char *cb = jsonutil_str(json_object_get(c->mb, "machine"), "cpu_model");

	if (!all.ratios)
		return EXIT_INTERNAL;
	if (!table_widths(c, &we, &wp)) {
		fprintf(stderr, "runner: compare: the two runs have no point in common\n");
		free(all.ratios);
		return EXIT_USAGE;
	}
	fprintf(f, "A: %s\nB: %s\n", c->dir_a, c->dir_b);
	if (ca && cb && strcmp(ca, cb) != 0)
		fprintf(f, "note: different CPUs: A %s, B %s\n", ca, cb);
	print_drift(f, c);
	fprintf(f, "threshold %g%%: a change counts when its Holm-adjusted p < %g and B/A is beyond "
	       "it\n\n", 100 * c->threshold, ALPHA);
	print_points(f, c, we, wp);
	print_notes(f, c);
	if (print_summary(f, c, we, &all) < 0) {
		free(all.ratios);
		return EXIT_INTERNAL;
	}
	fail = (c->fail_on == FAIL_REGRESSION && all.n[V_SLOWER]) ||
	       (c->fail_on == FAIL_CHANGE && all.n[V_SLOWER] + all.n[V_FASTER]);
	rc = fail ? EXIT_FAILED : EXIT_OK;
	print_decision(f, c, &all, fail);
	if (args->json && write_json(c, &all, rc, args->json) < 0)
		rc = EXIT_INTERNAL;
	free(all.ratios);
	return rc;
}

int compare_main(const char *run_a, const char *run_b, const struct compare_args *args)
{
	struct cmp c = { .dir_a = run_a, .dir_b = run_b };
	int rc = EXIT_INTERNAL;

	if (parse_args(args, &c) < 0)
		return EXIT_USAGE;
	c.ma = load_manifest(run_a);
	c.mb = c.ma ? load_manifest(run_b) : NULL;
	if (!c.ma || !c.mb) {
		json_decref(c.ma);
		return EXIT_USAGE;
	}
	if (gather_experiments(&c) < 0)
		goto out;
	for (size_t k = 0; k < c.nx; k++) {
		if (!c.x[k].ra && !c.x[k].rb)
			continue;
		experiment_units(&c.x[k]);
		if (c.x[k].ra && c.x[k].rb) {
			fixed_differences(&c.x[k]);
			if (match_points(&c, k) < 0)
				goto out;
		}
	}
	host_drift(&c);
	if (decide_all(&c) < 0)
		goto out;
	rc = report(&c, args);
out:
	for (size_t k = 0; k < c.nx; k++) {
		json_decref(c.x[k].ra);
		json_decref(c.x[k].rb);
	}
	free(c.x);
	free(c.p);
	json_decref(c.ma);
	json_decref(c.mb);
	return rc;
}
