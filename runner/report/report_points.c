/*
 * report_points.c - an experiment's per-point tables in the view
 * (report_points.h).
 */
#include "report/report_points.h"
#include "report/report_view.h"
#include "results/results.h"
#include "lib/jsonutil.h"
#include "lib/units.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

json_t *report_points_swept(json_t *spec)
{
	json_t *params = json_object_get(spec, "params"), *vals, *out = json_array();
	const char *key;

	json_object_foreach(params, key, vals)
		if (json_array_size(vals) > 1)
			jsonutil_append(out, jsonutil_text(key));
	return out;
}

char *report_points_label(json_t *pt, json_t *swept, const char *sep)
{
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&buf, &len);
	json_t *n;

	if (!f)
		return NULL;
	json_array_foreach(swept, i, n) {
		const char *t = jsonutil_str(json_object_get(pt, "params_text"), json_string_value(n));

		fprintf(f, "%s%s=%s", i ? sep : "", json_string_value(n), t ? t : "?");
	}
	fclose(f);
	return buf;
}

/* One table row's numbers (the time row, or the cycles row with f = ticks
   per probe unit). */
static json_t *vrow(json_t *pt, double f, const char *unit)
{
	json_t *r = json_object(), *st = json_object_get(pt, "stats");
	json_t *ci = json_object_get(pt, "ci"), *pred = json_object_get(pt, "prediction");

	report_view_put(r, "unit", report_view_str(unit));
	report_view_put(r, "predicted", report_view_num(jsonutil_num(pred, "value") * f));
	report_view_put(r, "estimate", report_view_num(jsonutil_num(pt, "estimate") * f));
	report_view_put(r, "mean", report_view_num(jsonutil_num(st, "mean") * f));
	report_view_put(r, "median", report_view_num(jsonutil_num(st, "median") * f));
	report_view_put(r, "std", report_view_num(jsonutil_num(st, "std") * f));
	if (json_array_size(ci) == 2 && json_is_number(json_array_get(ci, 0)) &&
	    json_is_number(json_array_get(ci, 1)))
		report_view_put(r, "ci", report_view_ci(json_number_value(json_array_get(ci, 0)) * f,
					  json_number_value(json_array_get(ci, 1)) * f));
	else
		report_view_put(r, "ci", report_view_str(REPORT_VIEW_DASH));
	return r;
}

/* A row's first cells: the point's swept values, as text. */
static json_t *swept_cells(json_t *pt, json_t *swept)
{
	json_t *cells = json_array(), *n;
	size_t i;

	json_array_foreach(swept, i, n) {
		json_t *c = json_object();
		const char *t = jsonutil_str(json_object_get(pt, "params_text"), json_string_value(n));

		report_view_put(c, "value", report_view_line(t ? t : "?"));
		report_view_put(c, "short", report_view_cell(t ? t : "?"));
		jsonutil_append(cells, c);
	}
	return cells;
}

/* A percentage to two figures, in whole percent from 100 up ("120",
   never "1.2e+02", which %.2g prints there). */
static const char *pct(double v, char *buf, size_t len)
{
	snprintf(buf, len, fabs(v) < 100 ? "%.2g" : "%.0f", v);
	return buf;
}

/* Where a rerun's estimate should land, as "±8.1 %" of the estimate (the
   wider side; the interval is symmetric on the log scale): the figure a
   reader compares with another run's, which the CI is not. */
static json_t *rerun_cell(json_t *pt)
{
	/* a run written before points had it: computed from its rounds */
	json_t *own = json_object_get(pt, "rerun") ? NULL : json_deep_copy(pt);
	if (own)
		results_point_rerun(own, NAN, 0);
	json_t *iv = json_object_get(json_object_get(own ? own : pt, "rerun"), "interval");
	double est = jsonutil_num(pt, "estimate"), lo = json_number_value(json_array_get(iv, 0)),
	       hi = json_number_value(json_array_get(iv, 1));
	int has = json_array_size(iv) == 2 && isfinite(est) && est != 0 && hi >= lo;

	char b[32];

	json_decref(own);
	if (!has)
		return report_view_str(REPORT_VIEW_DASH);
	return report_view_strf("±%s %%", pct(fmax(hi - est, est - lo) / fabs(est) * 100, b, sizeof b));
}

static json_t *vpoint(json_t *pt, json_t *swept, const struct report_unit *d)
{
	json_t *p;
	const char *status = jsonutil_str(pt, "status"), *reason = jsonutil_str(pt, "reason");
	json_t *n = json_object_get(pt, "n"), *n_out = json_object_get(pt, "n_outliers");
	int ok = status && (strcmp(status, "ok") == 0 || strcmp(status, "partial") == 0);
	char *label = report_points_label(pt, swept, ", ");
	json_t *nr = json_object_get(pt, "n_rounds");
	double bcv = jsonutil_num(pt, "between_round_cv");

	if (ok && isfinite(jsonutil_num(pt, "estimate")))
		p = vrow(pt, d->scale, d->label);
	else {
		p = json_object();
		report_view_put(p, "unit", report_view_str(d->label));
		report_view_put(p, "predicted",
			 report_view_num(jsonutil_num(json_object_get(pt, "prediction"), "value") * d->scale));
		report_view_put(p, "estimate", report_view_str(ok || !status ? "n/a" : status));
		report_view_put(p, "mean", report_view_str(REPORT_VIEW_DASH));
		report_view_put(p, "median", report_view_str(REPORT_VIEW_DASH));
		report_view_put(p, "std", report_view_str(REPORT_VIEW_DASH));
		report_view_put(p, "ci", report_view_str(REPORT_VIEW_DASH));
	}
	report_view_put(p, "swept", swept_cells(pt, swept));
	report_view_put(p, "label", report_view_line(label ? label : ""));
	report_view_put(p, "status", report_view_str(status ? status : "unknown"));
	report_view_put(p, "ok", json_boolean(ok));
	report_view_put(p, "reason", reason ? report_view_line(reason) : json_null());
	report_view_put(p, "n", json_is_integer(n) ?
		 report_view_strf("%lld", (long long)json_integer_value(n)) : report_view_str(REPORT_VIEW_DASH));
	/* rounds and their spread: "5 (1.2 %)" */
	if (json_is_integer(nr) && isfinite(bcv)) {
		char b[32];

		report_view_put(p, "rounds", report_view_strf("%lld (%s %%)", (long long)json_integer_value(nr),
							      pct(bcv * 100, b, sizeof b)));
	}
	else if (json_is_integer(nr))
		report_view_put(p, "rounds", report_view_strf("%lld", (long long)json_integer_value(nr)));
	else
		report_view_put(p, "rounds", report_view_str(REPORT_VIEW_DASH));
	report_view_put(p, "rerun", rerun_cell(pt));
	report_view_put(p, "outliers", json_is_integer(n_out) ?
		 report_view_strf("%lld", (long long)json_integer_value(n_out)) : report_view_str(REPORT_VIEW_DASH));
	/* the cycles row: time x TSC frequency (the result's `cycles` are the
	   same numbers for the estimate only; mean, std... need computing) */
	if (ok && d->is_time && isfinite(d->cyc) && isfinite(jsonutil_num(pt, "estimate")))
		report_view_put(p, "cycles", vrow(pt, d->cyc, d->cyc_word));
	else
		report_view_put(p, "cycles", json_null());
	free(label);
	return p;
}

/* The model's terms with their shares of the prediction (predict.c):
   "hardware syscall_cycles / core_hz 87 %; software 30cycles / core_hz
   13 %", or null when they have none. */
static json_t *terms_text(json_t *pred)
{
	char *buf = NULL;
	size_t len = 0, i, n = 0;
	FILE *f = open_memstream(&buf, &len);
	json_t *t, *v;

	if (!f)
		return json_null();
	json_array_foreach(json_object_get(pred, "terms"), i, t)
		if (isfinite(jsonutil_num(t, "share")))
			fprintf(f, "%s%s %s %.0f %%", n++ ? "; " : "", jsonutil_str(t, "part") ?: "",
				jsonutil_str(t, "text") ?: "", jsonutil_num(t, "share") * 100);
	fclose(f);
	v = n ? report_view_line(buf) : json_null();
	free(buf);
	return v;
}

/* One row of the predictions table: hardware, software, total, measured,
   error in %, and each formula with this machine's numbers, or what it
   could not be evaluated without. */
static json_t *prediction_row(json_t *pt, json_t *pred, json_t *label, const struct report_unit *d)
{
	json_t *r = json_object(), *filled = json_array(), *srcs = json_array(), *s;
	const char *why = jsonutil_str(pred, "why"), *missing = jsonutil_str(pred, "missing");
	double pv = jsonutil_num(pred, "value"), hw = jsonutil_num(pred, "hardware");
	double sw = jsonutil_num(pred, "software"), est = jsonutil_num(pt, "estimate");
	static const char *const parts[] = {"hardware", "software", "value"};
	size_t i;

	report_view_put(r, "point", json_incref(label));
	report_view_put(r, "value", isfinite(pv) ? report_view_num_unit(pv * d->scale, d->label)
					      : report_view_str(REPORT_VIEW_DASH));
	report_view_put(r, "cycles", isfinite(d->cyc) && isfinite(pv) ? report_view_num(pv * d->cyc) : json_null());
	report_view_put(r, "why", report_view_line(why && *why ? why : "no reason given"));
	report_view_put(r, "ratio", report_view_num(jsonutil_num(pred, "ratio")));
	report_view_put(r, "hardware", isfinite(hw) ? report_view_num_unit(hw * d->scale, d->label)
						      : report_view_str(REPORT_VIEW_DASH));
	report_view_put(r, "software", isfinite(sw) ? report_view_num_unit(sw * d->scale, d->label)
						      : report_view_str(REPORT_VIEW_DASH));
	report_view_put(r, "measured", report_view_num_unit(est * d->scale, d->label));
	report_view_put(r, "error", isfinite(pv) && pv != 0 && isfinite(est)
		? report_view_strf("%+.0f %%", (est - pv) / pv * 100) : report_view_str(REPORT_VIEW_DASH));
	for (i = 0; i < 3; i++) {
		const char *f = jsonutil_str(json_object_get(pred, "filled"), parts[i]);
		const char *text = jsonutil_str(json_object_get(pred, "formula"), parts[i]);
		json_t *c;

		if (!text)
			continue;
		c = json_object();
		report_view_put(c, "part", report_view_str(i == 2 ? "total" : parts[i]));
		report_view_put(c, "formula", report_view_line(text));
		report_view_put(c, "filled", f ? report_view_line(f) : json_null());
		jsonutil_append(filled, c);
	}
	json_array_foreach(json_object_get(pred, "sources"), i, s) {
		json_t *c = json_object();

		report_view_put(c, "name", report_view_line(jsonutil_str(s, "name")));
		report_view_put(c, "value", report_view_line(jsonutil_str(s, "value")));
		report_view_put(c, "source", report_view_line(jsonutil_str(s, "source")));
		report_view_put(c, "last", json_boolean(i + 1 == json_array_size(json_object_get(pred, "sources"))));
		jsonutil_append(srcs, c);
	}
	report_view_put(r, "terms", terms_text(pred));
	report_view_put(r, "has_formulas", json_boolean(json_array_size(filled) > 0));
	report_view_put(r, "formulas", filled);
	report_view_put(r, "has_sources", json_boolean(json_array_size(srcs) > 0));
	report_view_put(r, "sources", srcs);
	report_view_put(r, "missing", missing ? report_view_line(missing) : json_null());
	return r;
}

/* The models behind the predictions, each once: points that share the
   reason and the formulas share one entry, which names them (or says
   "every point"), gives the formulas, one point's numbers filled in as an
   example, and where the machine's numbers came from.  The table above
   has every point's own figures; a model per point would repeat the same
   three lines a hundred times for a swept experiment. */
static json_t *prediction_models(json_t *preds, json_t *points_with_pred, size_t n_points)
{
	json_t *models = json_array(), *r, *pt;
	size_t i;

	json_array_foreach(preds, i, r) {
		json_t *pred = json_object_get(json_array_get(points_with_pred, i), "prediction");
		json_t *f = json_object_get(pred, "formula");
		const char *why = jsonutil_str(pred, "why"), *miss = jsonutil_str(pred, "missing");
		char *key = NULL;
		json_t *m = NULL, *x;
		size_t j;

		/* a plain value (no formula) is its own model: its number is the model */
		int plain = !json_is_true(json_object_get(r, "has_formulas"));
		const char *parts[5] = {why, jsonutil_str(f, "hardware"), jsonutil_str(f, "software"),
					plain ? json_string_value(json_object_get(r, "value"))
					      : jsonutil_str(f, "value"), miss};
		size_t len = 6;
		for (j = 0; j < 5; j++)
			len += parts[j] ? strlen(parts[j]) : 0;
		if (!(key = malloc(len)))
			continue;
		snprintf(key, len, "%s\x1f%s\x1f%s\x1f%s\x1f%s", parts[0] ? parts[0] : "",
			 parts[1] ? parts[1] : "", parts[2] ? parts[2] : "", parts[3] ? parts[3] : "",
			 parts[4] ? parts[4] : "");
		json_array_foreach(models, j, x)
			if (!strcmp(jsonutil_str(x, "key"), key)) {
				m = x;
				break;
			}
		if (!m) {
			json_t *srcs = json_array(), *s;
			size_t k;

			m = json_object();
			report_view_put(m, "key", json_string(key));
			report_view_put(m, "why", json_incref(json_object_get(r, "why")));
			report_view_put(m, "formulas", json_incref(json_object_get(r, "formulas")));
			report_view_put(m, "has_formulas", json_incref(json_object_get(r, "has_formulas")));
			report_view_put(m, "missing", json_incref(json_object_get(r, "missing")));
			report_view_put(m, "terms", json_incref(json_object_get(r, "terms")));
			report_view_put(m, "example", json_incref(json_object_get(r, "point")));
			report_view_put(m, "plain", json_boolean(plain));
			report_view_put(m, "value", json_incref(json_object_get(r, "value")));
			report_view_put(m, "cycles", json_incref(json_object_get(r, "cycles")));
			/* the machine's numbers only: a point's own parameter is in
			   its row of the table */
			json_array_foreach(json_object_get(r, "sources"), k, s)
				if (!strstr(jsonutil_str(s, "source") ? jsonutil_str(s, "source") : "",
					    "this point's parameter"))
					jsonutil_append(srcs, json_incref(s));
			json_array_foreach(srcs, k, s)
				report_view_put(s, "last", json_boolean(k + 1 == json_array_size(srcs)));
			report_view_put(m, "has_sources", json_boolean(json_array_size(srcs) > 0));
			report_view_put(m, "sources", srcs);
			report_view_put(m, "labels", json_array());
			jsonutil_append(models, m);
		}
		free(key);
		if (json_object_get(r, "point") && !json_is_null(json_object_get(r, "point")))
			jsonutil_append(json_object_get(m, "labels"), json_incref(json_object_get(r, "point")));
	}
	json_array_foreach(models, i, pt) {
		json_t *labels = json_object_get(pt, "labels");
		size_t n = json_array_size(labels);

		if (n_points <= 1)
			report_view_put(pt, "applies", json_null());
		else if (n == 0 || n == n_points)
			report_view_put(pt, "applies", report_view_str("every point"));
		else if (n <= 3) {
			char buf[600] = "";
			size_t off = 0, k;
			json_t *l;

			json_array_foreach(labels, k, l)
				off += (size_t)snprintf(buf + off, off < sizeof buf ? sizeof buf - off : 0,
							"%s%s", k ? "; " : "", json_string_value(l));
			report_view_put(pt, "applies", report_view_line(buf));
		} else
			report_view_put(pt, "applies", report_view_strf("%zu points, e.g. %s", n,
				json_string_value(json_array_get(labels, 0))));
		json_object_del(pt, "labels");
		json_object_del(pt, "key");
	}
	return models;
}

int report_points_add(json_t *e, json_t *points, json_t *swept, const struct report_unit *d)
{
	json_t *pts = json_array(), *problems = json_array(), *preds = json_array();
	json_t *with_pred = json_array();
	json_t *sanity = json_array(), *pt;
	size_t i;
	int n_ok = 0, rounds = 0;

	json_array_foreach(points, i, pt) {
		json_t *p = vpoint(pt, swept, d), *pred = json_object_get(pt, "prediction");
		json_t *label = json_object_get(p, "label"), *flag;
		const char *status = jsonutil_str(pt, "status"), *reason = jsonutil_str(pt, "reason");
		double pv = jsonutil_num(pred, "value");
		size_t j;

		if (json_is_true(json_object_get(p, "ok")))
			n_ok++;
		/* a rounds column only where some point ran more than one */
		if (json_integer_value(json_object_get(pt, "n_rounds")) > 1)
			rounds = 1;
		if (!status || strcmp(status, "ok") != 0) {
			json_t *pr = json_object();

			report_view_put(pr, "point", json_incref(label));
			report_view_put(pr, "status", report_view_str(status ? status : "unknown"));
			report_view_put(pr, "reason", report_view_line(reason ? reason : "no reason recorded"));
			jsonutil_append(problems, pr);
		}
		if (json_is_object(pred) && (isfinite(pv) || jsonutil_str(pred, "missing")))
		{
			jsonutil_append(preds, prediction_row(pt, pred, label, d));
			jsonutil_append(with_pred, json_incref(pt));
		}
		json_array_foreach(json_object_get(pt, "sanity"), j, flag) {
			json_t *r = json_object();

			report_view_put(r, "point", json_incref(label));
			report_view_put(r, "flag", report_view_line(jsonutil_str(flag, "flag")));
			report_view_put(r, "message", report_view_line(jsonutil_str(flag, "message")));
			jsonutil_append(sanity, r);
		}
		jsonutil_append(pts, p);
	}
	report_view_put(e, "points", pts);
	report_view_put(e, "has_table", json_boolean(n_ok > 0));
	report_view_put(e, "has_rounds", json_boolean(rounds));
	report_view_put(e, "has_problems", json_boolean(json_array_size(problems) > 0));
	report_view_put(e, "problems", problems);
	report_view_put(e, "has_predictions", json_boolean(json_array_size(preds) > 0));
	report_view_put(e, "models", prediction_models(preds, with_pred, json_array_size(points)));
	json_decref(with_pred);
	report_view_put(e, "predictions", preds);
	report_view_put(e, "has_sanity", json_boolean(json_array_size(sanity) > 0));
	report_view_put(e, "sanity", sanity);
	return n_ok;
}

/* ------------------------------------------------------- secondary values */

/* A point's median of one secondary metric; NAN when the metric does not
   apply to it (null) or the point has no samples (failed: extra is {}). */
static double extra_median(json_t *pt, const char *metric)
{
	return jsonutil_num(json_object_get(json_object_get(pt, "extra"), metric), "median");
}

/* Whether every value a metric has is a whole number: CPU numbers, counts
   and flags then read "1", not the main table's "1.00". */
static int metric_is_whole(json_t *points, const char *metric)
{
	json_t *pt;
	size_t i;

	json_array_foreach(points, i, pt) {
		double v = extra_median(pt, metric);

		if (isfinite(v) && (v != floor(v) || fabs(v) >= 1e15))
			return 0;
	}
	return 1;
}

/* How one metric's column shows its values: byte counts as sizes
   ("23.5GiB", never a raw 25276063740), rates rescaled like the main
   table (units_display, from the metric's median value), times in the
   probe's unit, whole numbers without decimals. */
struct metric_fmt {
	int bytes, whole;
	double scale;
	char unit[32];
};

static void metric_format(json_t *points, const char *metric, const char *unit,
			  struct metric_fmt *mf)
{
	size_t n = json_array_size(points), m = 0, i;
	double *v = calloc(n + 1, sizeof *v), typical = NAN;
	json_t *pt;

	json_array_foreach(points, i, pt)
		if (v && isfinite(extra_median(pt, metric)))
			v[m++] = fabs(extra_median(pt, metric));
	for (i = 1; i < m; i++)		/* few points: insertion sort */
		for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
			double t = v[j]; v[j] = v[j - 1]; v[j - 1] = t;
		}
	if (m)
		typical = v[m / 2];
	free(v);
	char label[32];
	double ns;

	mf->bytes = unit && strcmp(unit, "bytes") == 0;
	mf->scale = 1;
	snprintf(mf->unit, sizeof mf->unit, "%s", unit && !mf->bytes ? unit : "");
	/* a rate in bytes/s reads as MB/s or GB/s; a time keeps its unit (the
	   metric's name often says it: round_trip_ns) */
	if (!mf->bytes && !units_is_time(unit, &ns)) {
		double f = units_display(unit, typical, label, sizeof label, NULL);

		if (strcmp(label, unit ? unit : "") != 0) {
			mf->scale = f;
			snprintf(mf->unit, sizeof mf->unit, "%s", label);
		}
	}
	mf->whole = mf->scale == 1 && metric_is_whole(points, metric);
}

static json_t *metric_value(double v, const struct metric_fmt *mf)
{
	char buf[64];

	if (!isfinite(v))
		return report_view_num(v);
	if (mf->bytes) {
		units_format_size_short(v, buf, sizeof buf);
		return report_view_str(buf);
	}
	if (mf->whole)
		return report_view_strf("%.0f", v == 0 ? 0.0 : v);
	return report_view_num(v * mf->scale);
}

/* The secondary values cut into tables of at most EXTRAS_PER_TABLE
   metrics, so that a probe with ten of them fits the page's width. */
#define EXTRAS_PER_TABLE 6

static json_t *extra_tables(json_t *metrics, json_t *rows)
{
	json_t *tables = json_array(), *r;
	size_t n = json_array_size(metrics), from, i, k;

	for (from = 0; from < n; from += EXTRAS_PER_TABLE) {
		size_t to = from + EXTRAS_PER_TABLE < n ? from + EXTRAS_PER_TABLE : n;
		json_t *t = json_object(), *ms = json_array(), *rs = json_array();

		for (k = from; k < to; k++)
			json_array_append(ms, json_array_get(metrics, k));
		json_array_foreach(rows, i, r) {
			json_t *r2 = json_object(), *vs = json_array();

			for (k = from; k < to; k++)
				json_array_append(vs, json_array_get(json_object_get(r, "values"), k));
			report_view_put(r2, "swept", json_incref(json_object_get(r, "swept")));
			report_view_put(r2, "values", vs);
			jsonutil_append(rs, r2);
		}
		report_view_put(t, "metrics", ms);
		report_view_put(t, "n_metrics", report_view_strf("%zu", to - from));
		report_view_put(t, "extras", rs);
		jsonutil_append(tables, t);
	}
	return tables;
}

/*
 * The "Secondary values" table: the probe's declared metrics (round_trip_ns
 * beside the derived switch cost, ns_per_byte beside the fault cost), one
 * row per point with the main table's swept columns, one column per metric
 * holding its median (struct metric_fmt says in which unit).  has_extras is
 * false when no metric has a value at any point.
 */
void report_points_extras(json_t *e, json_t *res, json_t *points, json_t *swept)
{
	json_t *decl = json_object_get(json_object_get(res, "probe"), "metrics");
	json_t *metrics = json_array(), *rows = json_array(), *m, *pt;
	size_t i, j, n_metrics = 0;
	int any = 0;
	struct metric_fmt *fmt = calloc(json_array_size(decl) + 1, sizeof *fmt);

	json_array_foreach(decl, i, m) {
		json_t *v = json_object();
		const char *name = jsonutil_str(m, "name"), *unit = jsonutil_str(m, "unit");
		const char *help = jsonutil_str(m, "help");

		if (!name || !fmt)
			continue;
		metric_format(points, name, unit, &fmt[i]);
		unit = fmt[i].bytes ? NULL : fmt[i].unit;
		report_view_put(v, "name", report_view_line(name));
		report_view_put(v, "unit", report_view_line(unit));
		report_view_put(v, "header", unit && *unit ? report_view_strf("%s (%s)", name, unit) : report_view_line(name));
		report_view_put(v, "help", report_view_line(help));
		jsonutil_append(metrics, v);
		n_metrics++;
	}
	json_array_foreach(points, i, pt) {
		json_t *r = json_object(), *values = json_array();
		char *label = report_points_label(pt, swept, ", ");

		json_array_foreach(decl, j, m) {
			json_t *c;
			double v;

			if (!jsonutil_str(m, "name") || !fmt)
				continue;
			v = extra_median(pt, jsonutil_str(m, "name"));
			any |= isfinite(v);
			c = json_object();
			report_view_put(c, "value", metric_value(v, &fmt[j]));
			jsonutil_append(values, c);
		}
		report_view_put(r, "label", report_view_line(label ? label : ""));
		report_view_put(r, "swept", swept_cells(pt, swept));
		report_view_put(r, "values", values);
		jsonutil_append(rows, r);
		free(label);
	}
	free(fmt);
	report_view_put(e, "extra_tables", extra_tables(metrics, rows));
	report_view_put(e, "metrics", metrics);
	report_view_put(e, "n_metrics", report_view_strf("%zu", n_metrics));
	report_view_put(e, "extras", rows);
	report_view_put(e, "has_extras", json_boolean(any && n_metrics > 0));
}

/* Characters of a view string (UTF-8 code points: "±" is one). */
static size_t text_chars(json_t *v)
{
	const char *s = json_string_value(v);
	size_t n = 0;

	for (; s && *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* The widest of column `key` of the points' rows (and of its header). */
static size_t column_chars(json_t *pts, const char *key, const char *head, int cycles)
{
	size_t w = strlen(head), i;
	json_t *p;

	json_array_foreach(pts, i, p) {
		json_t *row = cycles ? json_object_get(p, "cycles") : p;
		size_t c = text_chars(json_object_get(row, key));

		w = c > w ? c : w;
	}
	return w;
}

/* The LaTeX main table's sizes, largest first: font size and the space on
   each side of a column (pt).  The text width is A4's 595 pt less two
   2.2 cm margins (templates/report.tex); a character of these tables
   averages 0.55 em (measured: a 15-column table of 110 characters at the
   widest cells set 1.5 pt too wide in \scriptsize with 1.8 pt).  A 3 %
   margin keeps a close estimate off the edge. */
#define TABLE_TEXT_PT 472.4
#define TABLE_EM_PER_CHAR 0.55
static const struct {
	double font_pt, sep_pt;
} table_sizes[] = { { 8, 3.5 }, { 7, 1.8 }, { 7, 1.0 }, { 5, 1.5 } };

void report_points_table_size(json_t *e)
{
	static const char *const keys[] = { "predicted", "estimate", "mean", "median", "std", "ci" };
	static const char *const heads[] = { "predicted", "measured", "mean", "median", "std", "CI" };
	json_t *pts = json_object_get(e, "points"), *sw;
	size_t chars = 0, cols = 0, i, k, fit;

	json_array_foreach(json_object_get(e, "swept"), i, sw) {
		size_t w = text_chars(json_object_get(sw, "name")), j;
		json_t *p;

		json_array_foreach(pts, j, p) {
			size_t c = text_chars(json_object_get(json_array_get(json_object_get(p, "swept"), i),
							      "short"));
			w = c > w ? c : w;
		}
		chars += w;
		cols++;
	}
	for (k = 0; k < sizeof keys / sizeof *keys; k++, cols++)
		chars += column_chars(pts, keys[k], heads[k], 0);
	chars += column_chars(pts, "n", "n", 0) + column_chars(pts, "outliers", "outliers", 0);
	cols += 2;
	if (json_is_true(json_object_get(e, "has_rounds"))) {
		chars += column_chars(pts, "rerun", "rerun", 0) +
			 column_chars(pts, "rounds", "rounds (CV)", 0);
		cols += 2;
	}
	if (json_is_true(json_object_get(e, "has_cycles"))) {
		const char *word = json_string_value(json_object_get(e, "cycle_word"));

		chars += column_chars(pts, "estimate", word ? word : "cycles", 1);
		cols++;
	}
	for (fit = 0; fit + 1 < sizeof table_sizes / sizeof *table_sizes; fit++)
		if ((double)chars * TABLE_EM_PER_CHAR * table_sizes[fit].font_pt +
		    (double)(cols - 1) * 2 * table_sizes[fit].sep_pt <= 0.97 * TABLE_TEXT_PT)
			break;
	report_view_put(e, "wide_table", json_boolean(fit >= 1));
	report_view_put(e, "wider_table", json_boolean(fit >= 2));
	report_view_put(e, "widest_table", json_boolean(fit >= 3));
}
