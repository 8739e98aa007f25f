/*
 * report_discussion.c - the discussion generated from the data
 * (report_discussion.h).
 *
 * Nothing here is prose written on another machine: each sentence names
 * the numbers it rests on, and its verb is chosen by comparing them.  Two
 * values whose intervals overlap are "about the same" when within 5 % of
 * each other, else "N % apart, a difference R rounds did not resolve";
 * otherwise the ratio is given and the word (faster, slower, more, less)
 * follows its side.
 */
#include "report/report_discussion.h"
#include "report/report_confounder.h"
#include "report/report_points.h"
#include "report/report_view.h"
#include "lib/jsonutil.h"
#include "lib/strf.h"
#include "lib/units.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A prediction "held" when the measurement is within this factor of it. */
#define HELD 1.25

/* One value of a point, in ns (times) or in the probe's unit, with its CI. */
struct val {
	double v, lo, hi;
	int rounds;		/* the rounds the interval is between (0: unknown) */
	const char *label;	/* the point's label, owned by the caller's list */
};

/* Two values whose intervals overlap are "about the same" only when they
   are within this factor of each other; further apart, the rounds did not
   resolve the difference, and the sentence says that instead. */
#define SAME 1.05

static json_t *load(const char *run, const char *name)
{
	char path[PATH_MAX], msg[256];
	int missing = 0;

	strf(path, sizeof path, "%s/results/%s.json", run, name);
	return jsonutil_load(path, msg, sizeof msg, &missing);
}

static int ok_point(json_t *pt)
{
	return jsonutil_str(pt, "status") && strcmp(jsonutil_str(pt, "status"), "ok") == 0 &&
	       isfinite(jsonutil_num(pt, "estimate"));
}

/* The first measured point whose params_text has param = value for each
   pair given (NULL param: any); NULL when none. */
static json_t *find2(json_t *res, const char *p1, const char *v1, const char *p2, const char *v2)
{
	json_t *pt, *txt;
	size_t i;

	json_array_foreach(json_object_get(res, "points"), i, pt) {
		txt = json_object_get(pt, "params_text");
		if (!ok_point(pt))
			continue;
		if (p1 && (!jsonutil_str(txt, p1) || strcmp(jsonutil_str(txt, p1), v1) != 0))
			continue;
		if (p2 && (!jsonutil_str(txt, p2) || strcmp(jsonutil_str(txt, p2), v2) != 0))
			continue;
		return pt;
	}
	return NULL;
}

static json_t *find(json_t *res, const char *param, const char *value)
{
	return find2(res, param, value, NULL, NULL);
}

/* A point's estimate and CI in ns when the result's unit is a time, else in
   its own unit. */
static struct val value_of(json_t *res, json_t *pt)
{
	struct val v;
	double ns = 1;
	json_t *ci = json_object_get(pt, "ci");

	if (!units_is_time(jsonutil_str(json_object_get(res, "probe"), "unit"), &ns))
		ns = 1;
	v.v = jsonutil_num(pt, "estimate") * ns;
	v.lo = json_is_number(json_array_get(ci, 0)) ? json_number_value(json_array_get(ci, 0)) * ns : v.v;
	v.hi = json_is_number(json_array_get(ci, 1)) ? json_number_value(json_array_get(ci, 1)) * ns : v.v;
	v.rounds = (int)jsonutil_num(pt, "n_rounds");
	v.label = NULL;
	return v;
}

/* For a and b whose intervals overlap: "about the same" when close, else
   that N rounds did not resolve the difference. */
static void unresolved(FILE *f, struct val a, struct val b)
{
	int n = a.rounds < b.rounds ? a.rounds : b.rounds;
	double r = a.v > b.v ? a.v / b.v : b.v / a.v;

	if (r <= SAME)
		fprintf(f, "about the same: their intervals overlap");
	else if (n > 0)
		fprintf(f, "%.0f %% apart, a difference %d rounds did not resolve: their intervals overlap",
			(r - 1) * 100, n);
	else
		fprintf(f, "%.0f %% apart, a difference not resolved: their intervals overlap", (r - 1) * 100);
}

/* "1.61 ns", "2.95 µs": a time in ns, in the unit it reads best in. */
static void time_text(double ns, char *buf, size_t len)
{
	char unit[16], num[32];
	double f = units_display("ns", ns, unit, sizeof unit, NULL);

	units_format_number(ns * f, num, sizeof num);
	snprintf(buf, len, "%s %s", num, unit);
}

static void num_text(double v, char *buf, size_t len)
{
	units_format_number(v, buf, len);
}

/* Appends to f how time a (named an) compares with time b (named bn):
   "a getpid (140 ns) is slower than a procedure call (1.61 ns): it takes
   87.0 times as long", or, when the intervals overlap, "about the same" or
   not resolved (unresolved()). */
static void compare_times(FILE *f, const char *an, struct val a, const char *bn, struct val b)
{
	char at[48], bt[48], r[32];

	time_text(a.v, at, sizeof at);
	time_text(b.v, bt, sizeof bt);
	if (a.lo <= b.hi && b.lo <= a.hi) {
		fprintf(f, "%s (%s) and %s (%s) are ", an, at, bn, bt);
		unresolved(f, a, b);
		return;
	}
	num_text(a.v > b.v ? a.v / b.v : b.v / a.v, r, sizeof r);
	if (a.v > b.v)
		fprintf(f, "%s (%s) is slower than %s (%s): it takes %s times as long", an, at, bn, bt, r);
	else
		fprintf(f, "%s (%s) is faster than %s (%s), which takes %s times as long", an, at, bn, bt, r);
}

/* A paragraph built in a memstream, appended to out when not empty. */
struct para {
	FILE *f;
	char *buf;
	size_t len;
};

static void para_open(struct para *p)
{
	p->buf = NULL;
	p->len = 0;
	p->f = open_memstream(&p->buf, &p->len);
}

static void para_close(struct para *p, json_t *out)
{
	if (p->f)
		fclose(p->f);
	if (p->buf && p->buf[0]) {
		json_t *o = json_object();

		report_view_put(o, "text", report_view_line(p->buf));
		jsonutil_append(out, o);
	}
	free(p->buf);
}

/* --------------------------------------------------------- the prediction */

static void prediction(json_t *out, json_t *res, json_t *swept, const struct report_unit *d)
{
	json_t *pt;
	size_t i, n = 0, held = 0, above = 0, below = 0;
	double rmin = INFINITY, rmax = -INFINITY;
	char *lmin = NULL, *lmax = NULL;
	int time = d->is_time;
	struct para p;

	json_array_foreach(json_object_get(res, "points"), i, pt) {
		double r = jsonutil_num(json_object_get(pt, "prediction"), "ratio");

		if (!ok_point(pt) || !isfinite(r) || r <= 0)
			continue;
		n++;
		if (r <= HELD && r >= 1 / HELD)
			held++;
		else if (r > 1)
			above++;
		else
			below++;
		if (r < rmin) {
			free(lmin);
			lmin = report_points_label(pt, swept, ", ");
			rmin = r;
		}
		if (r > rmax) {
			free(lmax);
			lmax = report_points_label(pt, swept, ", ");
			rmax = r;
		}
	}
	if (n == 0)
		return;
	para_open(&p);
	if (n == 1) {
		char r[32];

		num_text(rmin, r, sizeof r);
		fprintf(p.f, "%s%s%seasured / predicted is %s, so ", lmin && *lmin ? "At " : "",
			lmin && *lmin ? lmin : "", lmin && *lmin ? ", m" : "M", r);
		if (held)
			fprintf(p.f, "the prediction held (within %.0f %%).", (HELD - 1) * 100);
		else
			fprintf(p.f, "the prediction did not hold: the measurement %s.",
				rmin > 1 ? (time ? "took longer than the model allows" : "is above the model's figure")
					 : (time ? "took less time than the model allows" : "is below the model's figure"));
	} else {
		char a[32], b[32];

		num_text(rmin, a, sizeof a);
		num_text(rmax, b, sizeof b);
		fprintf(p.f, "Of the %zu points with a prediction, %zu held within %.0f %%", n, held,
			(HELD - 1) * 100);
		if (above)
			fprintf(p.f, ", %zu %s", above, time ? "took longer than predicted" : "came out above it");
		if (below)
			fprintf(p.f, ", %zu %s", below, time ? "took less time than predicted" : "came out below it");
		fprintf(p.f, "; measured / predicted runs from %s (%s) to %s (%s).", a, lmin ? lmin : "",
			b, lmax ? lmax : "");
	}
	para_close(&p, out);
	free(lmin);
	free(lmax);
}

/* ------------------------------------------- the model's terms and misses */

/* The point's largest term (by |share|; prediction.terms, predict.c), or
   NULL when its terms have no shares. */
static json_t *largest_term(json_t *pt)
{
	json_t *t, *best = NULL;
	size_t i;

	json_array_foreach(json_object_get(json_object_get(pt, "prediction"), "terms"), i, t)
		if (isfinite(jsonutil_num(t, "share")) &&
		    (!best || fabs(jsonutil_num(t, "share")) > fabs(jsonutil_num(best, "share"))))
			best = t;
	return best;
}

/* "The largest term of the model is the software's 2 * syscall_cycles /
   core_hz: 2 * 150 cycles / 2.99 GHz = 100 ns, 62 % of the prediction." */
static void say_term(FILE *f, json_t *pt, json_t *swept)
{
	json_t *t = largest_term(pt), *pred = json_object_get(pt, "prediction");
	char *label = report_points_label(pt, swept, ", ");
	size_t n = json_array_size(json_object_get(pred, "terms"));
	const char *part = jsonutil_str(t, "part");

	if (part && strcmp(part, "hardware") && strcmp(part, "software"))
		part = NULL;	/* a value formula's term: the model's own */
	if (t) {
		fprintf(f, "%s%s%s%s", ftell(f) ? " " : "", label && *label ? "At " : "",
			label && *label ? label : "", label && *label ? ", t" : "T");
		if (n == 1)
			fputs("he model's only term is ", f);
		else
			fprintf(f, "he largest of the model's %zu terms is ", n);
		fprintf(f, "%s%s%s%s: %s, %.0f %% of the %s.",
			part ? "the " : "", part ? part : "", part ? " term " : "", jsonutil_str(t, "text") ?: "",
			jsonutil_str(t, "filled") ?: "", jsonutil_num(t, "share") * 100,
			json_is_object(json_object_get(pred, "per_byte")) ? "time per byte" : "prediction");
	}
	free(label);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* "+21.3 ns" (a time, v in ns) or "-4.20 GB/s" (v in the probe's unit). */
static void signed_text(double v, int time, const char *unit, char *buf, size_t len)
{
	char t[48];

	if (time)
		time_text(fabs(v), t, sizeof t);
	else {
		num_text(fabs(v), t, sizeof t);
		snprintf(t + strlen(t), sizeof t - strlen(t), " %s", unit ? unit : "");
	}
	snprintf(buf, len, "%s%s", v < 0 ? "-" : "+", t);
}

/* The model's largest term, where the measurement leaves the model (the
   residue, measured - predicted, in ns or the unit and in % of the
   prediction, at the worst point and as a median), and what the run
   recorded that can account for it (report_confounder.c). */
static void model_terms(json_t *out, const char *run, json_t *res, json_t *swept,
			const struct report_unit *d)
{
	json_t *pt, *worst = NULL, *probe = json_object_get(res, "probe");
	const char *unit = jsonutil_str(probe, "unit");
	double ns = 1, wlog = 0, *rs, *ps;
	int time = units_is_time(unit, &ns);
	size_t i, n = 0, n_terms = 0, out_n = 0;
	struct para p;

	/* a time in ns (time_text picks its unit), else the report's unit */
	if (!time) {
		ns = d->scale;
		unit = d->label;
	}
	rs = calloc(json_array_size(json_object_get(res, "points")) + 1, sizeof *rs);
	ps = calloc(json_array_size(json_object_get(res, "points")) + 1, sizeof *ps);
	para_open(&p);
	if (!rs || !ps || !p.f)
		goto out;
	json_array_foreach(json_object_get(res, "points"), i, pt) {
		json_t *pred = json_object_get(pt, "prediction");
		double pv = jsonutil_num(pred, "value"), est = jsonutil_num(pt, "estimate");

		if (!ok_point(pt) || !isfinite(pv) || pv == 0)
			continue;
		n_terms += largest_term(pt) != NULL;
		rs[n] = (est - pv) * ns;
		ps[n++] = (est - pv) / pv * 100;
		if (est / pv > HELD || est / pv < 1 / HELD)
			out_n++;
		if (est / pv > 0 && fabs(log(est / pv)) > wlog) {
			wlog = fabs(log(est / pv));
			worst = pt;
		}
	}
	/* the largest term: per point when there are few, else at the first */
	if (n_terms > 0 && n_terms <= 3) {
		json_array_foreach(json_object_get(res, "points"), i, pt)
			if (ok_point(pt) && largest_term(pt) && isfinite(jsonutil_num(json_object_get(pt, "prediction"), "value")))
				say_term(p.f, pt, swept);
	} else if (n_terms > 3) {
		json_array_foreach(json_object_get(res, "points"), i, pt)
			if (ok_point(pt) && largest_term(pt) && isfinite(jsonutil_num(json_object_get(pt, "prediction"), "value"))) {
				say_term(p.f, pt, swept);
				break;
			}
	}
	if (out_n && worst) {
		json_t *pred = json_object_get(worst, "prediction"), *t, *names = json_array(), *v;
		double pv = jsonutil_num(pred, "value"), est = jsonutil_num(worst, "estimate");
		char *label = report_points_label(worst, swept, ", ");
		char r[64], pc[32], mr[64], mp[32];
		size_t j, k;

		signed_text((est - pv) * ns, time, unit, r, sizeof r);
		snprintf(pc, sizeof pc, "%+.0f", (est - pv) / pv * 100);
		fprintf(p.f, "%sThe measurement leaves the model (outside %.0f %%): the residue, measured - "
			"predicted, is %s (%s %% of the prediction)", ftell(p.f) ? " " : "", (HELD - 1) * 100,
			r, pc);
		if (n > 1) {
			double mres = median(rs, n), mpct = median(ps, n);

			signed_text(mres, time, unit, mr, sizeof mr);
			snprintf(mp, sizeof mp, "%+.0f", mpct);
			fprintf(p.f, " at %s, the worst point; its median over the %zu points with a prediction "
				"is %s (%s %%).", label && *label ? label : "one point", n, mr, mp);
		} else {
			fputc('.', p.f);
		}
		free(label);
		/* what the model's terms use, for the confounders */
		json_array_foreach(json_object_get(pred, "terms"), j, t)
			json_array_foreach(json_object_get(t, "names"), k, v)
				jsonutil_append(names, json_incref(v));
		struct report_confounder_in in = {
			run, names, pred,
			!strcmp(jsonutil_str(json_object_get(worst, "params_text"), "placement") ?: "", "cross"),
			time || !(json_is_true(json_object_get(probe, "bigger_is_better")) ||
				  (unit && strstr(unit, "/s"))) ? est > pv : est < pv,
		};
		report_confounder_say(p.f, &in);
		json_decref(names);
	}
out:
	para_close(&p, out);
	free(rs);
	free(ps);
}

/* ------------------------------------------------------------- the flags */

static const struct { const char *flag, *meaning; } flag_meaning[] = {
	{"high_variation", "their samples spread widely, so these are the least certain estimates "
	 "here; more samples or a quieter machine would narrow them"},
	{"outlier_rule_suspended", "the outlier rule would have dropped more than a tenth of the "
	 "samples, so none were dropped: the spread is the data's, not a few stray samples"},
	{"below_timer_resolution", "one operation is shorter than the clock's resolution, so its "
	 "time is known only through the many operations in each sample"},
	{"far_from_prediction", "the measurement is far from the model's figure: the model, or "
	 "this machine, is not what the prediction assumed"},
	{"level_shift", "the samples changed level part-way through (a frequency change, a "
	 "migration, another tenant)"},
	{"drift", "their samples trended up or down within a round (a slow change inside the "
	 "point's own samples; the run's drift check, which times a fixed workload between "
	 "rounds, is another test and the environment section gives its verdict)"},
	{"multimodal", "the samples form more than one cluster, which one number summarises poorly"},
	{"outlying_rounds", "one round's estimate lies far from the others'"},
	{"negative_after_subtraction", "subtracting the baseline left nothing: the operation is "
	 "within the baseline's own uncertainty"},
	{"invalid_samples", "the probe marked samples invalid (its note says why) and they were left out"},
	{"cpu_taken", "other tasks took the CPU during some samples, which were left out; a point "
	 "left without enough of them is skipped, not failed: close other programs and rerun it"},
	{"max_on_high_variation", "the estimator is a maximum over widely spread samples"},
	{"no_samples", "no valid sample was kept"},
	{"warmup_capped", "the warm-up reached its cap before the samples settled"},
	{"probe_sanity", "the probe's own check of its result failed"},
	{"not_pinned", "the point could not be pinned to its CPU"},
	{"subtract_failed", "a baseline could not be subtracted"},
	{"superlinear_scaling", "the throughput grew faster than the number of threads"},
};

static void flags(json_t *out, json_t *res)
{
	json_t *kinds = json_object(), *pt, *fl, *cnt;
	size_t i, j, n_points = 0;
	const char *k;
	struct para p;

	json_array_foreach(json_object_get(res, "points"), i, pt) {
		json_t *seen = json_object();

		n_points++;
		json_array_foreach(json_object_get(pt, "sanity"), j, fl) {
			const char *name = jsonutil_str(fl, "flag");

			if (!name || json_object_get(seen, name))
				continue;
			jsonutil_set(seen, name, json_true());
			cnt = json_object_get(kinds, name);
			jsonutil_set(kinds, name, json_integer(cnt ? json_integer_value(cnt) + 1 : 1));
		}
		json_decref(seen);
	}
	if (json_object_size(kinds) == 0) {
		json_decref(kinds);
		return;
	}
	para_open(&p);
	json_object_foreach(kinds, k, cnt) {
		const char *m = "see the flags below";

		for (i = 0; i < sizeof flag_meaning / sizeof flag_meaning[0]; i++)
			if (strcmp(flag_meaning[i].flag, k) == 0)
				m = flag_meaning[i].meaning;
		fprintf(p.f, "%s%s at %lld of %zu point%s: %s.", ftell(p.f) ? " " : "", k,
			(long long)json_integer_value(cnt), n_points, n_points == 1 ? "" : "s", m);
	}
	para_close(&p, out);
	json_decref(kinds);
}

/* ------------------------------------------------ across the experiments */

/* syscall: a system call against a procedure call. */
static void syscall_vs_call(FILE *f, const char *run, json_t *res)
{
	json_t *pc = load(run, "procedure_call"), *a, *b;
	const char *call;

	a = find(res, "call", "getpid");
	if (!a)
		a = find(res, NULL, NULL);
	b = pc ? find(pc, "args", "0") : NULL;
	if (!b && pc)
		b = find(pc, NULL, NULL);
	if (a && b) {
		struct val va = value_of(res, a), vb = value_of(pc, b);
		char at[48], bt[48], r[32];

		call = jsonutil_str(json_object_get(a, "params_text"), "call");
		time_text(va.v, at, sizeof at);
		time_text(vb.v, bt, sizeof bt);
		num_text(va.v / vb.v, r, sizeof r);
		fprintf(f, "A %s call costs %s procedure calls (%s against %s for a call with %s "
			"arguments, procedure_call).", call ? call : "system", r, at, bt,
			jsonutil_str(json_object_get(b, "params_text"), "args") ?
			jsonutil_str(json_object_get(b, "params_text"), "args") : "its");
	}
	json_decref(pc);
}

/* page_fault: a minor fault per byte of its page against RAM read bandwidth
   per byte. */
static void fault_vs_bandwidth(FILE *f, const char *run, json_t *res)
{
	json_t *bw = load(run, "ram_bandwidth"), *a = find(res, "kind", "minor"), *b;
	const char *unit;
	double page = 4096;

	b = bw ? find2(bw, "op", "read", "threads", "1") : NULL;
	if (!b && bw)
		b = find(bw, "op", "read");
	unit = bw ? jsonutil_str(json_object_get(bw, "probe"), "unit") : NULL;
	if (a && b && unit) {
		char u[16], at[32], bt[32], bws[32], r[32];
		double ns_per_byte = value_of(res, a).v / page;
		double bps = jsonutil_num(b, "estimate");
		double f1 = units_display(unit, bps, u, sizeof u, NULL), bps_b;

		/* the rate in bytes per second: its display factor to B/s */
		char u0[16];
		double to_b = units_display(unit, 1e-30, u0, sizeof u0, NULL);	/* B/s factor */

		bps_b = bps * to_b;
		double ram = 1e9 / bps_b;
		int more = ns_per_byte > ram;

		num_text(ns_per_byte, at, sizeof at);
		num_text(ram, bt, sizeof bt);
		num_text(bps * f1, bws, sizeof bws);
		num_text(more ? ns_per_byte / ram : ram / ns_per_byte, r, sizeof r);
		fprintf(f, "A minor fault costs %s ns per byte of its 4 KiB page, %s the %s ns per byte "
			"of reading RAM at %s %s (ram_bandwidth, op=read%s): %s %s.", at,
			more ? "more than" : "less than", bt, bws, u,
			jsonutil_str(json_object_get(b, "params_text"), "threads") ? ", threads=1" : "",
			more ? r : "a factor of", more ? "times as much" : r);
	}
	json_decref(bw);
}

/* Two values of one parameter in one result: "X (p=a) is faster than ...".
   p2/v2 optionally fix another parameter. */
static void within(FILE *f, json_t *res, const char *param, const char *a, const char *an,
		   const char *b, const char *bn, const char *p2, const char *v2)
{
	json_t *pa = find2(res, param, a, p2, v2), *pb = find2(res, param, b, p2, v2);

	if (!pa || !pb)
		return;
	if (ftell(f))
		fputc(' ', f);
	compare_times(f, an, value_of(res, pa), bn, value_of(res, pb));
	if (p2)
		fprintf(f, " (%s=%s)", p2, v2);
	fputc('.', f);
}

/* A param's text values in the order the points have them. */
static json_t *values_of(json_t *res, const char *param)
{
	json_t *vals = json_array(), *pt, *v;
	size_t i, j;

	json_array_foreach(json_object_get(res, "points"), i, pt) {
		const char *t = jsonutil_str(json_object_get(pt, "params_text"), param);
		int seen = 0;

		if (!t)
			continue;
		json_array_foreach(vals, j, v)
			seen |= strcmp(json_string_value(v), t) == 0;
		if (!seen)
			jsonutil_append(vals, jsonutil_text(t));
	}
	return vals;
}

/* The geometric mean of this result's estimates over the other's at the
   points where every parameter both have agrees; returns how many matched. */
static size_t matched_ratio(json_t *res, json_t *other, double *gm, double *lo, double *hi)
{
	json_t *p, *q;
	size_t i, j, n = 0;
	double ls = 0, ns_a = 1, ns_b = 1;

	*lo = INFINITY;
	*hi = -INFINITY;
	if (!units_is_time(jsonutil_str(json_object_get(res, "probe"), "unit"), &ns_a) ||
	    !units_is_time(jsonutil_str(json_object_get(other, "probe"), "unit"), &ns_b))
		return 0;
	json_array_foreach(json_object_get(res, "points"), i, p) {
		if (!ok_point(p))
			continue;
		json_array_foreach(json_object_get(other, "points"), j, q) {
			json_t *tp = json_object_get(p, "params_text"), *tq = json_object_get(q, "params_text"), *v;
			const char *k;
			int same = ok_point(q), common = 0;

			json_object_foreach(tp, k, v) {
				const char *w = jsonutil_str(tq, k);

				/* only the parameters this result sweeps: the fixed
				   ones (CPUs, files) differ by design */
				if (!w || !json_is_array(json_object_get(json_object_get(json_object_get(
					res, "spec"), "params"), k)) ||
				    json_array_size(json_object_get(json_object_get(json_object_get(
					res, "spec"), "params"), k)) < 2)
					continue;
				common++;
				if (strcmp(w, json_string_value(v)) != 0)
					same = 0;
			}
			if (same && common) {
				double r = jsonutil_num(p, "estimate") * ns_a / (jsonutil_num(q, "estimate") * ns_b);

				if (r > 0 && isfinite(r)) {
					ls += log(r);
					*lo = r < *lo ? r : *lo;
					*hi = r > *hi ? r : *hi;
					n++;
				}
				break;
			}
		}
	}
	*gm = n ? exp(ls / (double)n) : NAN;
	return n;
}

static void versus(FILE *f, const char *run, json_t *res, const char *oname, const char *what,
		   const char *than)
{
	json_t *o = load(run, oname);
	double gm, lo, hi;
	size_t n = o ? matched_ratio(res, o, &gm, &lo, &hi) : 0;
	char g[32], a[32], b[32];

	if (n) {
		num_text(gm > 1 ? gm : 1 / gm, g, sizeof g);
		num_text(lo, a, sizeof a);
		num_text(hi, b, sizeof b);
		fprintf(f, "%s%s %s %s (%s): %s times %s, the geometric mean over the %zu matching "
			"point%s (from %s to %s times).", ftell(f) ? " " : "", what,
			gm > 1 ? "is slower than" : "is faster than", than, oname, g,
			gm > 1 ? "as long" : "less time", n, n == 1 ? "" : "s", a, b);
	}
	json_decref(o);
}

/* read_apis: per chunk size, the cheapest API and the others against it. */
static void cheapest(FILE *f, json_t *res, const char *xparam, const char *choice)
{
	json_t *xs = values_of(res, xparam), *apis = values_of(res, choice), *x, *a;
	size_t i, j;

	json_array_foreach(xs, i, x) {
		json_t *best = NULL;
		const char *bn = NULL;

		json_array_foreach(apis, j, a) {
			json_t *pt = find2(res, xparam, json_string_value(x), choice, json_string_value(a));

			if (pt && (!best || jsonutil_num(pt, "estimate") < jsonutil_num(best, "estimate"))) {
				best = pt;
				bn = json_string_value(a);
			}
		}
		if (!best)
			continue;
		char bt[48];

		time_text(value_of(res, best).v, bt, sizeof bt);
		fprintf(f, "%sAt %s=%s, %s is the cheapest (%s)", ftell(f) ? " " : "", xparam,
			json_string_value(x), bn, bt);
		json_array_foreach(apis, j, a) {
			json_t *pt = find2(res, xparam, json_string_value(x), choice, json_string_value(a));
			struct val vb = value_of(res, best), vp;
			char r[32];

			if (!pt || pt == best)
				continue;
			vp = value_of(res, pt);
			num_text(vp.v / vb.v, r, sizeof r);
			if (vp.lo <= vb.hi && vb.lo <= vp.hi) {
				fprintf(f, "; %s and it are ", json_string_value(a));
				unresolved(f, vp, vb);
			}
			else
				fprintf(f, "; %s takes %s times as long", json_string_value(a), r);
		}
		fputc('.', f);
	}
	json_decref(xs);
	json_decref(apis);
}

/* How a value changes along x for each choice of `series`: "threads=1 to
   8: from 98 ms to 242 ms, 2.47 times" or "about the same". */
static void along(FILE *f, json_t *res, const char *xparam, const char *series)
{
	json_t *xs = values_of(res, xparam), *ss = values_of(res, series), *s;
	size_t i;

	if (json_array_size(xs) < 2)
		goto out;
	json_array_foreach(ss, i, s) {
		const char *x0 = json_string_value(json_array_get(xs, 0));
		const char *x1 = json_string_value(json_array_get(xs, json_array_size(xs) - 1));
		json_t *a = find2(res, xparam, x0, series, json_string_value(s));
		json_t *b = find2(res, xparam, x1, series, json_string_value(s));
		struct val va, vb;
		char at[48], bt[48], r[32];

		if (!a || !b)
			continue;
		va = value_of(res, a);
		vb = value_of(res, b);
		time_text(va.v, at, sizeof at);
		time_text(vb.v, bt, sizeof bt);
		num_text(vb.v / va.v, r, sizeof r);
		fprintf(f, "%s%s=%s: from %s=%s to %s=%s the time ", ftell(f) ? " " : "", series,
			json_string_value(s), xparam, x0, xparam, x1);
		if (va.lo <= vb.hi && vb.lo <= va.hi) {
			fprintf(f, "went from %s to %s, ", at, bt);
			unresolved(f, va, vb);
			fputc('.', f);
		} else {
			fprintf(f, "%s from %s to %s (%s times).", vb.v > va.v ? "rose" : "fell", at, bt, r);
		}
		/* a curve that is least (or most) between its ends says so: the
		   ends alone would hide a U */
		{
			json_t *x, *lo = NULL, *hi = NULL;
			size_t k;

			json_array_foreach(xs, k, x) {
				json_t *p = find2(res, xparam, json_string_value(x), series, json_string_value(s));
				if (!p)
					continue;
				if (!lo || jsonutil_num(p, "estimate") < jsonutil_num(lo, "estimate"))
					lo = p;
				if (!hi || jsonutil_num(p, "estimate") > jsonutil_num(hi, "estimate"))
					hi = p;
			}
			if (lo && lo != a && lo != b) {
				char lt[48];

				time_text(value_of(res, lo).v, lt, sizeof lt);
				fprintf(f, " It is least in between: %s at %s=%s.", lt, xparam,
					jsonutil_str(json_object_get(lo, "params_text"), xparam) ?: "?");
			} else if (hi && hi != a && hi != b) {
				char ht[48];

				time_text(value_of(res, hi).v, ht, sizeof ht);
				fprintf(f, " It is greatest in between: %s at %s=%s.", ht, xparam,
					jsonutil_str(json_object_get(hi, "params_text"), xparam) ?: "?");
			}
		}
	}
out:
	json_decref(xs);
	json_decref(ss);
}

static void across(json_t *out, const char *run, const char *name, json_t *res)
{
	struct para p;

	para_open(&p);
	if (!p.f)
		return;
	if (strcmp(name, "syscall") == 0) {
		syscall_vs_call(p.f, run, res);
	} else if (strcmp(name, "page_fault") == 0) {
		fault_vs_bandwidth(p.f, run, res);
	} else if (strcmp(name, "tcp_rtt") == 0) {
		json_t *ts = values_of(res, "target"), *t;
		size_t i;

		json_array_foreach(ts, i, t)
			if (strcmp(json_string_value(t), "loopback") != 0)
				within(p.f, res, "target", json_string_value(t), "The remote round trip",
				       "loopback", "the loopback one", NULL, NULL);
		json_decref(ts);
	} else if (strcmp(name, "file_read") == 0 || strcmp(name, "remote_file_read") == 0) {
		json_t *cs = values_of(res, "cache"), *c, *sz = values_of(res, "size");
		const char *big = json_string_value(json_array_get(sz, json_array_size(sz) - 1));
		size_t i;

		json_array_foreach(cs, i, c) {
			json_t *a = find2(res, "order", "random", "cache", json_string_value(c));
			json_t *b = find2(res, "order", "sequential", "cache", json_string_value(c));
			/* at the largest size */
			json_t *pts = json_object_get(res, "points"), *pt;
			size_t j;

			json_array_foreach(pts, j, pt) {
				json_t *tx = json_object_get(pt, "params_text");

				if (!ok_point(pt) || !big || strcmp(jsonutil_str(tx, "size") ? jsonutil_str(tx, "size") : "", big) ||
				    strcmp(jsonutil_str(tx, "cache") ? jsonutil_str(tx, "cache") : "", json_string_value(c)))
					continue;
				if (strcmp(jsonutil_str(tx, "order") ? jsonutil_str(tx, "order") : "", "random") == 0)
					a = pt;
				else if (strcmp(jsonutil_str(tx, "order") ? jsonutil_str(tx, "order") : "", "sequential") == 0)
					b = pt;
			}
			if (!a || !b)
				continue;
			fprintf(p.f, "%sWith cache=%s at size=%s, ", ftell(p.f) ? " " : "", json_string_value(c),
				big);
			compare_times(p.f, "a random block", value_of(res, a), "a sequential one", value_of(res, b));
			fputc('.', p.f);
		}
		json_decref(cs);
		json_decref(sz);
		if (strcmp(name, "remote_file_read") == 0)
			versus(p.f, run, res, "file_read", "A block over NFS", "a local one");
	} else if (strcmp(name, "task_create") == 0) {
		within(p.f, res, "method", "pthread", "Creating a thread with pthread", "fork",
		       "creating a process with fork", NULL, NULL);
		within(p.f, res, "method", "pthread_join", "Creating and joining a thread",
		       "fork_wait", "forking and waiting for a process", NULL, NULL);
	} else if (strcmp(name, "context_switch") == 0) {
		json_t *ms = values_of(res, "mechanism"), *m;
		size_t i;

		if (json_array_size(ms) == 0)
			within(p.f, res, "kind", "thread", "A switch between threads",
			       "process", "one between processes", NULL, NULL);
		json_array_foreach(ms, i, m)
			within(p.f, res, "kind", "thread", "A switch between threads", "process",
			       "one between processes", "mechanism", json_string_value(m));
		json_decref(ms);
	} else if (strcmp(name, "cross_cpu_handoff") == 0) {
		versus(p.f, run, res, "context_switch", "A hand-off to another CPU",
		       "a switch on one CPU");
	} else if (strcmp(name, "threads_vs_processes") == 0) {
		along(p.f, res, "threads", "variant");
	} else if (strcmp(name, "read_apis") == 0) {
		cheapest(p.f, res, "chunk", "api");
	}
	para_close(&p, out);
}

json_t *report_discussion_view(const char *run, const char *name, json_t *res,
			       const struct report_unit *d)
{
	json_t *out = json_array();
	json_t *swept = report_points_swept(json_object_get(res, "spec"));

	prediction(out, res, swept, d);
	model_terms(out, run, res, swept, d);
	if (name)
		across(out, run, name, res);
	flags(out, res);
	json_decref(swept);
	return out;
}
