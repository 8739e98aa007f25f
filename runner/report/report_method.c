/*
 * report_method.c - an experiment's parameters and method as text
 * (report_method.h).
 */
#include "report/report_method.h"
#include "report/report_view.h"
#include "lib/jsonutil.h"
#include "lib/units.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Does any string in j (a spec's `command:`) hold "{key}"? */
static int mentions(json_t *j, const char *key)
{
	char ph[256];
	const char *k;
	json_t *v;
	size_t i;

	if (json_is_string(j)) {
		snprintf(ph, sizeof ph, "{%s}", key);
		return strstr(json_string_value(j), ph) != NULL;
	}
	if (json_is_array(j))
		json_array_foreach(j, i, v)
			if (mentions(v, key))
				return 1;
	if (json_is_object(j))
		json_object_foreach(j, k, v)
			if (mentions(v, key))
				return 1;
	return 0;
}

json_t *report_method_params(json_t *spec)
{
	json_t *params = json_object_get(spec, "params"), *vals, *out = json_array(), *v;
	json_t *command = json_object_get(spec, "command");
	const char *key;
	size_t i, n;

	json_object_foreach(params, key, vals) {
		/* a program's parameters are what its command line names; the
		   others are placeholders it did not use */
		if (json_is_object(command) && !mentions(command, key))
			continue;
		json_t *p = json_object();
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		n = json_array_size(vals);
		json_array_foreach(vals, i, v) {
			/* long sweeps: the first three, "…", the last */
			if (n > 6 && i >= 3 && i < n - 1) {
				if (i == 3)
					fputs(", \xe2\x80\xa6", f);
				continue;
			}
			fprintf(f, "%s%s", i ? ", " : "", json_is_string(v) ? json_string_value(v) : "?");
		}
		if (!json_is_array(vals))
			report_view_any_text(f, vals);
		fclose(f);
		report_view_put(p, "name", report_view_str(key));
		report_view_put(p, "value", report_view_line(buf));
		report_view_put(p, "swept", json_boolean(n > 1));
		report_view_put(p, "count", report_view_strf("%zu", n));
		free(buf);
		jsonutil_append(out, p);
	}
	return out;
}

/* Every measured point took one operation per sample (a probe with fixed
   iterations of 1, such as a whole program's run). */
static int one_op_per_sample(json_t *points)
{
	json_t *p;
	size_t i, seen = 0;

	json_array_foreach(points, i, p) {
		json_t *it = json_object_get(p, "iterations");

		if (!json_is_number(it))
			continue;
		if (json_number_value(it) != 1)
			return 0;
		seen++;
	}
	return seen > 0;
}

/* " in 5 to 12 rounds (adaptive: ...; the points took 5-9 rounds: 3 met
   the target, 1 reached max)": what the rule was and what it decided,
   from the points' rounds_stopped. */
static void adaptive_rounds(FILE *f, json_t *ra, json_t *points)
{
	static const char *const why[] = {"target met", "max reached", "budget", "no estimate",
					  "interrupted"};
	static const char *const says[] = {"met the target", "reached max", "stopped at the budget",
					   "had no estimate", "were interrupted"};
	long long lo = -1, hi = -1, n;
	json_t *p;
	size_t i;
	int first = 1;

	fprintf(f, " in %.0f to %.0f rounds (each a fresh process, interleaved with the other "
		"points; the estimate is the median of the rounds' estimates, the CI its "
		"order-statistic interval; adaptive: after %.0f rounds a point took more while that "
		"CI reached further than %.3g %% of the estimate either side, or its rounds ran while the host changed "
		"speed", jsonutil_num(ra, "min"), jsonutil_num(ra, "max"), jsonutil_num(ra, "min"),
		100 * jsonutil_num(ra, "target"));
	if (isfinite(jsonutil_num(ra, "budget_s")))
		fprintf(f, ", within %.3g s of extra rounds", jsonutil_num(ra, "budget_s"));
	else
		fputs(", within as much time again as the first rounds took", f);
	json_array_foreach(points, i, p) {
		if (!json_is_integer(json_object_get(p, "n_rounds")))
			continue;
		n = (long long)json_integer_value(json_object_get(p, "n_rounds"));
		lo = lo < 0 || n < lo ? n : lo;
		hi = n > hi ? n : hi;
	}
	if (lo >= 0)
		fprintf(f, lo == hi ? "; the points took %lld" : "; the points took %lld to %lld",
			lo, hi);
	for (size_t w = 0; w < sizeof why / sizeof *why; w++) {
		n = 0;
		json_array_foreach(points, i, p)
			n += jsonutil_str(p, "rounds_stopped") &&
			     strcmp(jsonutil_str(p, "rounds_stopped"), why[w]) == 0;
		if (n)
			fprintf(f, "%s %lld %s", first ? ":" : ",", n, says[w]);
		first &= !n;
	}
	fputs(")", f);
}

/* How long the points' samples lasted, from the data: the median over the
   measured points of operations per sample x the time of one operation
   (before subtractions), in seconds; NAN when the unit is not a time or no
   point says.  The spec's min_sample_time_s is only the floor the
   calibration aimed over (--quick lowers it). */
static double sample_seconds(json_t *points, const char *unit)
{
	double ns, *v = calloc(json_array_size(points) + 1, sizeof *v), med = NAN;
	size_t i, m = 0;
	json_t *pt;

	if (!v || !units_is_time(unit, &ns)) {
		free(v);
		return NAN;
	}
	json_array_foreach(points, i, pt) {
		double it = jsonutil_num(pt, "iterations"), e = jsonutil_num(pt, "estimate_raw");

		if (!isfinite(e))
			e = jsonutil_num(pt, "estimate");
		if (isfinite(it) && it > 0 && isfinite(e) && e > 0)
			v[m++] = it * e * ns * 1e-9;
	}
	for (i = 1; i < m; i++)
		for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
			double t = v[j]; v[j] = v[j - 1]; v[j - 1] = t;
		}
	if (m)
		med = m % 2 ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) / 2;
	free(v);
	return med;
}

/* "2.1 ms", "350 µs", "1.5 s" */
static void seconds_text(double s, char *buf, size_t len)
{
	if (s >= 1)
		snprintf(buf, len, "%.2g s", s);
	else if (s >= 1e-3)
		snprintf(buf, len, "%.2g ms", s * 1e3);
	else
		snprintf(buf, len, "%.2g \xc2\xb5s", s * 1e6);
}

json_t *report_method_text(json_t *spec, json_t *points, const char *unit)
{
	json_t *reps = json_object_get(spec, "repetitions"), *out, *v;
	json_t *o = json_object_get(spec, "outliers"), *e = json_object_get(spec, "estimate");
	const char *rule = jsonutil_str(o, "rule"), *est = jsonutil_str(e, "name");
	double mst = jsonutil_num(spec, "min_sample_time_s");
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&buf, &len);

	if (json_is_true(json_object_get(reps, "adaptive"))) {
		fprintf(f, "%.0f to %.0f samples (adaptive", jsonutil_num(reps, "min"),
			jsonutil_num(reps, "max"));
		if (isfinite(jsonutil_num(reps, "target_ci")))
			fprintf(f, ", until the CI is within %.3g %%",
				100 * jsonutil_num(reps, "target_ci"));
		if (isfinite(jsonutil_num(reps, "max_time_s")))
			fprintf(f, ", at most %.3g s", jsonutil_num(reps, "max_time_s"));
		fputs(")", f);
	} else if (isfinite(jsonutil_num(reps, "min"))) {
		fprintf(f, "%.0f samples", jsonutil_num(reps, "min"));
	} else {
		fputs("samples", f);
	}
	/* as results/analyze.c's rounds_interval: the median of the rounds'
	   estimates and its order-statistic interval, below 5 rounds their
	   range at 1 - 2^(1-n) */
	if (json_is_object(json_object_get(spec, "rounds_adaptive")))
		adaptive_rounds(f, json_object_get(spec, "rounds_adaptive"), points);
	else if (jsonutil_num(spec, "rounds") >= 5)
		fprintf(f, " in %.0f rounds (each a fresh process, interleaved with the other points; "
			"the estimate is the median of the rounds' estimates, the CI its "
			"order-statistic interval)", jsonutil_num(spec, "rounds"));
	else if (jsonutil_num(spec, "rounds") > 1)
		fprintf(f, " in %.0f rounds (each a fresh process, interleaved with the other points; "
			"the estimate is the median of the rounds' estimates, the CI their range, which "
			"holds that median with probability %.4g %%)", jsonutil_num(spec, "rounds"),
			100 * (1 - pow(0.5, jsonutil_num(spec, "rounds") - 1)));
	if (isfinite(jsonutil_num(spec, "warmup")))
		fprintf(f, " after %.0f warm-up sample%s", jsonutil_num(spec, "warmup"),
			jsonutil_num(spec, "warmup") == 1 ? "" : "s");
	else if (jsonutil_str(spec, "warmup") && strcmp(jsonutil_str(spec, "warmup"), "auto") == 0)
		fputs(" after warming up until the samples showed no trend or level change", f);
	v = json_object_get(spec, "iterations");
	double took = sample_seconds(points, unit);
	char tt[32], mt[32];

	seconds_text(took, tt, sizeof tt);
	seconds_text(mst, mt, sizeof mt);
	if (one_op_per_sample(points))	/* a probe whose op is a whole pass (a program's run) */
		fputs("; each sample is one operation", f);
	else if (json_is_number(v))
		fprintf(f, "; %.0f operations per sample", json_number_value(v));
	else if (isfinite(mst))
		fprintf(f, "; each sample times enough operations to last at least %s", mt);
	if (!one_op_per_sample(points) && isfinite(took))
		fprintf(f, " (a sample took %s, the median over the points)", tt);
	fprintf(f, "; estimator: %s", !est ? "n/a" : strcmp(est, "trimmed_mean") == 0 ?
		"trimmed mean" : est);
	if (est && strcmp(est, "trimmed_mean") == 0 && isfinite(jsonutil_num(e, "p")))
		fprintf(f, " (%.3g %% cut from each end)", 100 * jsonutil_num(e, "p"));
	if (!rule || strcmp(rule, "none") == 0)
		fputs("; no outlier rule", f);
	else if (strcmp(rule, "trim") == 0)
		fprintf(f, "; outliers: lowest %.3g %% and highest %.3g %% trimmed",
			100 * jsonutil_num(o, "lo"), 100 * jsonutil_num(o, "hi"));
	else
		fprintf(f, "; outliers: %s, k = %.3g", strcmp(rule, "median_ratio") == 0 ?
			"median ratio" : rule, jsonutil_num(o, "k"));
	v = json_object_get(spec, "subtract");
	if (json_array_size(v)) {
		json_t *s;

		fputs("; subtracted per operation: ", f);
		json_array_foreach(v, i, s)
			fprintf(f, "%s%s", i ? ", " : "", json_is_string(s) ? json_string_value(s) : "?");
		/* the table's mean, median and std are of the raw samples */
		fputs(" (from the measured value; mean, median and std are before it)", f);
	}
	if (isfinite(jsonutil_num(spec, "cpu")))
		fprintf(f, "; pinned to CPU %.0f", jsonutil_num(spec, "cpu"));
	fclose(f);
	out = report_view_line(buf);
	free(buf);
	return out;
}

