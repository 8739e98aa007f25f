/*
 * models_table.c - the figures of `runner models`: over a list of judged
 * points (ratio r = measured / predicted), the share with 1/1.25 <= r <=
 * 1.25 (within +/-25 %), the share with 1/2 <= r <= 2 (within a factor 2),
 * the median error, the median of max(r, 1/r), and per experiment the
 * median of r and the point with the largest max(r, 1/r).  A median of an
 * even count is the geometric mean of the two middle values, so the median
 * of 1/r is 1 over the median of r (a ratio's scale is logarithmic).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/models_table.h"
#include "results/results.h"
#include "lib/jsonutil.h"
#include "lib/strf.h"
#include "lib/text.h"

#define WITHIN_25 1.25
#define WITHIN_2X 2.0

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The median of x[0..n) (sorted in place); NaN for none. */
static double median(double *x, size_t n)
{
	if (!n)
		return NAN;
	qsort(x, n, sizeof *x, cmp_double);
	return n % 2 ? x[n / 2] : sqrt(x[n / 2 - 1] * x[n / 2]);
}

static double err_of(double r)
{
	return r >= 1 ? r : 1 / r;
}

/* The figures of the judged points in pts whose experiment is exp (NULL:
   all of them) into o: points, within_25, within_2x, median_error, and for
   an experiment median_ratio and worst. */
static void figures(json_t *o, const json_t *pts, const char *exp)
{
	size_t n = 0, in25 = 0, in2 = 0, i;
	double *r = calloc(json_array_size(pts) + 1, sizeof *r);
	double *e = calloc(json_array_size(pts) + 1, sizeof *e);
	const json_t *p, *worst = NULL;

	if (!r || !e) {
		free(r);
		free(e);
		return;
	}
	json_array_foreach(pts, i, p) {
		double x = jsonutil_num((json_t *)p, "ratio");

		if (exp && strcmp(jsonutil_str((json_t *)p, "experiment") ?: "", exp) != 0)
			continue;
		if (!(x > 0) || !isfinite(x))
			continue;
		r[n] = x;
		e[n++] = err_of(x);
		in25 += err_of(x) <= WITHIN_25;
		in2 += err_of(x) <= WITHIN_2X;
		if (!worst || err_of(x) > err_of(jsonutil_num((json_t *)worst, "ratio")))
			worst = p;
	}
	jsonutil_set(o, "points", json_integer((json_int_t)n));
	jsonutil_set(o, "within_25", results_num(n ? (double)in25 / (double)n : NAN));
	jsonutil_set(o, "within_2x", results_num(n ? (double)in2 / (double)n : NAN));
	jsonutil_set(o, "median_error", results_num(median(e, n)));
	if (exp) {
		jsonutil_set(o, "median_ratio", results_num(median(r, n)));
		jsonutil_set(o, "worst", worst ? json_pack("{s:O,s:O,s:O}", "ratio",
				json_object_get(worst, "ratio"), "params", json_object_get(worst, "params"),
				"run_id", json_object_get(worst, "run_id")) : json_null());
	}
	free(r);
	free(e);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The experiments a host has points of (judged or not), by name. */
static json_t *experiments(const json_t *host)
{
	const char *lists[] = {"judged", "not_judged"};
	const char **names;
	size_t n = 0, cap = 0, i;
	json_t *out = json_array(), *p;

	for (int l = 0; l < 2; l++)
		cap += json_array_size(json_object_get(host, lists[l]));
	if (!(names = calloc(cap + 1, sizeof *names)))
		return out;
	for (int l = 0; l < 2; l++)
		json_array_foreach(json_object_get(host, lists[l]), i, p) {
			const char *x = jsonutil_str(p, "experiment");
			size_t k;

			for (k = 0; x && k < n && strcmp(names[k], x); k++)
				;
			if (x && k == n)
				names[n++] = x;
		}
	qsort(names, n, sizeof *names, cmp_str);
	for (i = 0; i < n; i++) {
		json_t *o = json_pack("{s:s}", "experiment", names[i]);
		const json_t *nj = json_object_get(host, "not_judged");
		size_t k, m = 0;

		figures(o, json_object_get(host, "judged"), names[i]);
		json_array_foreach(nj, k, p)
			m += !strcmp(jsonutil_str(p, "experiment") ?: "", names[i]);
		jsonutil_set(o, "not_judged", json_integer((json_int_t)m));
		jsonutil_append(out, o);
	}
	free(names);
	return out;
}

json_t *models_table_build(json_t *hosts, const char *specs_dir)
{
	json_t *all = json_array(), *h, *p, *total = json_object();
	size_t i, k, nj = 0, runs = 0;

	json_array_foreach(hosts, i, h) {
		figures(h, json_object_get(h, "judged"), NULL);
		jsonutil_set(h, "not_judged_count",
			     json_integer((json_int_t)json_array_size(json_object_get(h, "not_judged"))));
		jsonutil_set(h, "experiments", experiments(h));
		json_array_foreach(json_object_get(h, "judged"), k, p)
			json_array_append(all, p);
		nj += json_array_size(json_object_get(h, "not_judged"));
		runs += json_array_size(json_object_get(h, "runs"));
	}
	figures(total, all, NULL);
	jsonutil_set(total, "not_judged_count", json_integer((json_int_t)nj));
	jsonutil_set(total, "runs", json_integer((json_int_t)runs));
	json_decref(all);
	return json_pack("{s:s,s:o,s:O,s:o}", "schema", "sysmeter.models/1", "specs",
			 jsonutil_text(specs_dir), "hosts", hosts, "all", total);
}

/* --- plain tables --------------------------------------------------------- */

/* s escaped for the terminal into buf. */
static const char *esc(const char *s, char *buf, size_t len)
{
	text_escape(s ? s : "", buf, len);
	return buf;
}

/* The parameters whose values differ between the host's points of
   experiment exp (judged or not): {name: true}. */
static json_t *swept(const json_t *host, const char *exp)
{
	const char *lists[] = {"judged", "not_judged"}, *key;
	json_t *first = NULL, *out = json_object(), *p, *v;
	size_t i;

	for (int l = 0; l < 2; l++)
		json_array_foreach(json_object_get(host, lists[l]), i, p) {
			json_t *params = json_object_get(p, "params");

			if (strcmp(jsonutil_str(p, "experiment") ?: "", exp) != 0)
				continue;
			if (!first) {
				first = params;
				continue;
			}
			json_object_foreach(params, key, v)
				if (!json_equal(v, json_object_get(first, key)))
					json_object_set_new(out, key, json_true());
			json_object_foreach(first, key, v)
				if (!json_object_get(params, key))
					json_object_set_new(out, key, json_true());
		}
	return out;
}

/* "k=v, k=v" of a point's parameters that its experiment sweeps (sw),
   escaped; "(its only point)" when it sweeps none. */
static const char *params_text(const json_t *params, const json_t *sw, char *buf, size_t len)
{
	char raw[1024] = "";
	const char *key;
	json_t *v;
	size_t used = 0;

	json_object_foreach((json_t *)params, key, v)
		if (used < sizeof raw && json_object_get(sw, key))
			used += (size_t)snprintf(raw + used, sizeof raw - used, "%s%s=%s", used ? ", " : "",
						 key, json_string_value(v) ?: "?");
	return esc(used ? raw : "(its only point)", buf, len);
}

static void pct(const json_t *o, const char *key, char *buf, size_t len)
{
	double x = jsonutil_num((json_t *)o, key);

	if (isfinite(x))
		snprintf(buf, len, "%.0f %%", x * 100);
	else
		snprintf(buf, len, "-");
}

static void num(const json_t *o, const char *key, const char *suffix, char *buf, size_t len)
{
	double x = jsonutil_num((json_t *)o, key);

	if (isfinite(x))
		snprintf(buf, len, "%.2f%s", x, suffix);
	else
		snprintf(buf, len, "-");
}

static void summary_row(const json_t *o, const char *label, int width, size_t runs)
{
	char a[32], b[32], c[32], shown[2048];

	pct(o, "within_25", a, sizeof a);
	pct(o, "within_2x", b, sizeof b);
	num(o, "median_error", "x", c, sizeof c);
	printf("%-*s %5zu %7lld %9s %9s %13s %11lld\n", width, esc(label, shown, sizeof shown), runs,
	       (long long)json_integer_value(json_object_get(o, "points")), a, b, c,
	       (long long)json_integer_value(json_object_get(o, "not_judged_count")));
}

static void host_tables(const json_t *h)
{
	const json_t *x, *runs = json_object_get(h, "runs"), *ns = json_object_get(h, "no_spec");
	char shown[2048], ps[2048], cm[256];
	size_t i;
	int w = 10;

	printf("\n%s\n", esc(jsonutil_str((json_t *)h, "host"), shown, sizeof shown));
	json_array_foreach(runs, i, x)
		printf("  run %s (commit %.12s, %s)\n", esc(jsonutil_str((json_t *)x, "run"), shown, sizeof shown),
		       esc(jsonutil_str((json_t *)x, "commit") ?: "unknown", cm, sizeof cm),
		       esc(jsonutil_str((json_t *)x, "kernel") ?: "kernel unknown", ps, sizeof ps));
	json_array_foreach(json_object_get(h, "experiments"), i, x)
		if ((int)strlen(jsonutil_str((json_t *)x, "experiment") ?: "") > w)
			w = (int)strlen(jsonutil_str((json_t *)x, "experiment"));
	printf("  %-*s %6s %7s %7s %12s %11s  %s\n", w, "experiment", "points", "+/-25%", "x2",
	       "median ratio", "worst ratio", "worst point (swept parameters)");
	json_array_foreach(json_object_get(h, "experiments"), i, x) {
		const json_t *worst = json_object_get(x, "worst");
		char a[32], b[32], c[32], d[32];

		pct(x, "within_25", a, sizeof a);
		pct(x, "within_2x", b, sizeof b);
		num(x, "median_ratio", "", c, sizeof c);
		num(worst, "ratio", "", d, sizeof d);
		json_t *sw = swept(h, jsonutil_str((json_t *)x, "experiment") ?: "");

		printf("  %-*s %6lld %7s %7s %12s %11s  %s", w,
		       esc(jsonutil_str((json_t *)x, "experiment"), shown, sizeof shown),
		       (long long)json_integer_value(json_object_get(x, "points")), a, b, c, d,
		       json_is_object(worst) ? params_text(json_object_get(worst, "params"), sw, ps, sizeof ps)
					     : "");
		json_decref(sw);
		if (json_integer_value(json_object_get(x, "not_judged")))
			printf("%s(%lld not judged)", json_is_object(worst) ? " " : "",
			       (long long)json_integer_value(json_object_get(x, "not_judged")));
		printf("\n");
	}
	if (json_array_size(json_object_get(h, "not_judged")))
		printf("  not judged (%zu):\n", json_array_size(json_object_get(h, "not_judged")));
	json_array_foreach(json_object_get(h, "not_judged"), i, x) {
		json_t *sw = swept(h, jsonutil_str((json_t *)x, "experiment") ?: "");
		char why[2048];

		printf("    %s %s: %s\n", esc(jsonutil_str((json_t *)x, "experiment"), shown, sizeof shown),
		       params_text(json_object_get(x, "params"), sw, ps, sizeof ps),
		       esc(jsonutil_str((json_t *)x, "why"), why, sizeof why));
		json_decref(sw);
	}
	if (json_array_size(ns)) {
		printf("  experiments without a current spec:");
		json_array_foreach(ns, i, x)
			printf("%s %s", i ? "," : "", esc(json_string_value(x), shown, sizeof shown));
		printf("\n");
	}
}

void models_table_print(const json_t *figures)
{
	const json_t *hosts = json_object_get(figures, "hosts"), *h;
	const json_t *all = json_object_get(figures, "all");
	char shown[2048];
	size_t i;
	int w = 9;

	printf("models of %s, measured / predicted\n\n",
	       esc(jsonutil_str((json_t *)figures, "specs"), shown, sizeof shown));
	json_array_foreach(hosts, i, h) {
		esc(jsonutil_str((json_t *)h, "host"), shown, sizeof shown);
		if ((int)strlen(shown) > w)
			w = (int)strlen(shown);
	}
	printf("%-*s %5s %7s %9s %9s %13s %11s\n", w, "host", "runs", "points", "+/-25%", "x2",
	       "median error", "not judged");
	json_array_foreach(hosts, i, h)
		summary_row(h, jsonutil_str((json_t *)h, "host"), w,
			    json_array_size(json_object_get(h, "runs")));
	summary_row(all, "all hosts", w, (size_t)json_integer_value(json_object_get(all, "runs")));
	json_array_foreach(hosts, i, h)
		host_tables(h);
}
