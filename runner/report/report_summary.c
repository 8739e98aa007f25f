/*
 * report_summary.c - the "Summary" table's rows (report_summary.h).
 */
#include "report/report_summary.h"
#include "report/report_points.h"
#include "report/report_view.h"
#include "lib/jsonutil.h"
#include "lib/units.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int point_has_value(json_t *pt)
{
	return jsonutil_str(pt, "status") && strcmp(jsonutil_str(pt, "status"), "ok") == 0 &&
	       isfinite(jsonutil_num(pt, "estimate"));
}

/* ci and ratio may be NULL: a dash. */
static void summary_row(json_t *summary, const char *operation, const char *anchor,
			json_t *predicted, json_t *measured, json_t *cycles, json_t *ci, json_t *ratio)
{
	json_t *r = json_object();

	report_view_put(r, "operation", report_view_line(operation));
	report_view_put(r, "anchor", report_view_str(anchor));
	report_view_put(r, "predicted", predicted);
	report_view_put(r, "measured", measured);
	report_view_put(r, "cycles", cycles);
	report_view_put(r, "ci", ci ? ci : report_view_str(REPORT_VIEW_DASH));
	report_view_put(r, "ratio", ratio ? ratio : report_view_str(REPORT_VIEW_DASH));
	jsonutil_append(summary, r);
}

/* The rows of the levels found as knees (from e's view of them): one per
   level, from the first series that found it; returns how many. */
static size_t knee_rows(json_t *summary, json_t *e, const char *title, const char *anchor)
{
	json_t *kv = json_object_get(e, "knees"), *k, *r, *seen = json_object();
	size_t i, j, rows = 0;

	json_array_foreach(kv, i, k)
		json_array_foreach(json_object_get(k, "rows"), j, r) {
			const char *level = jsonutil_str(r, "level");
			char *op = NULL;

			if (!json_is_true(json_object_get(r, "found")) || !level ||
			    json_object_get(seen, level))
				continue;
			jsonutil_set(seen, level, json_true());
			const char *size = jsonutil_str(r, "size");

			if ((size && strcmp(size, REPORT_VIEW_DASH) != 0 ?
			     asprintf(&op, "%s: %s, %s (%s)", title, level, size, jsonutil_str(k, "series")) :
			     asprintf(&op, "%s: %s (%s)", title, level, jsonutil_str(k, "series"))) < 0)
				op = NULL;
			summary_row(summary, op ? op : title, anchor, report_view_str(REPORT_VIEW_DASH),
				    json_incref(json_object_get(r, "latency")),
				    json_incref(json_object_get(r, "cycles")), NULL, NULL);
			free(op);
			rows++;
		}
	json_decref(seen);
	return rows;
}

/* The file cache found (findings.file_cache): one row with its size, not
   the per-size read times; returns how many. */
static size_t file_cache_row(json_t *summary, json_t *res, const char *title, const char *anchor)
{
	json_t *fc = json_object_get(json_object_get(res, "findings"), "file_cache");
	double knee = jsonutil_num(fc, "knee_bytes");
	char *op = NULL;

	if (!isfinite(knee))
		return 0;
	/* a cache found inside a memory cgroup is that cgroup's, never the
	   machine's: the row says so, as the finding does */
	if (asprintf(&op, isfinite(jsonutil_num(fc, "limit_bytes"))
			  ? "%s: the file cache found (a memory cgroup's, not the machine's)"
			  : "%s: the file cache found", title) < 0)
		op = NULL;
	summary_row(summary, op ? op : title, anchor, report_view_str(REPORT_VIEW_DASH),
		    report_view_size(knee), report_view_str(REPORT_VIEW_DASH), NULL, NULL);
	free(op);
	return 1;
}

/* The chart's x: the spec's chart x, else the first swept parameter. */
static const char *x_param(json_t *res, json_t *swept)
{
	const char *x = jsonutil_str(json_object_get(json_object_get(res, "spec"), "chart"), "x");
	json_t *n;
	size_t i;

	json_array_foreach(swept, i, n)
		if (x && strcmp(json_string_value(n), x) == 0)
			return x;
	return json_string_value(json_array_get(swept, 0));
}

#define SUMMARY_MAX_MODES 8

/* A long sweep without predictions: one row per mode (each choice of the
   swept parameters other than x: file_read's cache and order) with its
   value at the largest x, when there are at most SUMMARY_MAX_MODES modes
   and x is numeric; returns how many rows, 0 when it does not apply. */
static size_t mode_rows(json_t *summary, json_t *res, json_t *swept, const char *title,
			const char *anchor, const struct report_unit *d)
{
	json_t *points = json_object_get(res, "points"), *pt, *others = json_array(), *n;
	json_t *best = json_object();	/* mode label -> point at the largest x */
	const char *x = x_param(res, swept), *mode;
	size_t i, rows = 0;

	json_array_foreach(swept, i, n)
		if (!x || strcmp(json_string_value(n), x) != 0)
			json_array_append(others, n);
	json_array_foreach(points, i, pt) {
		char *label;
		json_t *b;

		if (!point_has_value(pt) || !x ||
		    !isfinite(jsonutil_num(json_object_get(pt, "params"), x)))
			continue;
		label = report_points_label(pt, others, ", ");
		if (!label)
			continue;
		b = json_object_get(best, label);
		if (!b || jsonutil_num(json_object_get(pt, "params"), x) >
			  jsonutil_num(json_object_get(b, "params"), x))
			json_object_set(best, label, pt);
		free(label);
	}
	if (json_object_size(best) == 0 || json_object_size(best) > SUMMARY_MAX_MODES ||
	    json_array_size(others) == 0) {
		json_decref(best);
		json_decref(others);
		return 0;
	}
	json_object_foreach(best, mode, pt) {
		json_t *ci = json_object_get(pt, "ci");
		double est = jsonutil_num(pt, "estimate"), clo, chi;
		const char *xt = jsonutil_str(json_object_get(pt, "params_text"), x);
		char *op = NULL;

		clo = json_is_number(json_array_get(ci, 0)) ? json_number_value(json_array_get(ci, 0)) : NAN;
		chi = json_is_number(json_array_get(ci, 1)) ? json_number_value(json_array_get(ci, 1)) : NAN;
		if (asprintf(&op, "%s (%s; %s=%s)", title, mode, x, xt ? xt : "?") < 0)
			op = NULL;
		summary_row(summary, op ? op : title, anchor, report_view_str(REPORT_VIEW_DASH),
			    report_view_num_unit(est * d->scale, d->label),
			    isfinite(d->cyc) ? report_view_num(est * d->cyc) : report_view_str(REPORT_VIEW_DASH),
			    isfinite(clo) && isfinite(chi) ? report_view_ci(clo * d->scale, chi * d->scale) : NULL,
			    NULL);
		free(op);
		rows++;
	}
	json_decref(best);
	json_decref(others);
	return rows;
}

/* The points other tasks spoiled (skipped with the flag cpu_taken:
   docs/methodology.md, "A CPU that is never quiet"): one row each saying
   so, by how much (the point's reason) and what to do. */
static int spoiled(json_t *pt)
{
	const char *st = jsonutil_str(pt, "status");
	json_t *fl;
	size_t j;

	if (!st || strcmp(st, "skipped") != 0)
		return 0;
	json_array_foreach(json_object_get(pt, "sanity"), j, fl)
		if (jsonutil_str(fl, "flag") && strcmp(jsonutil_str(fl, "flag"), "cpu_taken") == 0)
			return 1;
	return 0;
}

static size_t spoiled_rows(json_t *summary, json_t *res, json_t *swept, const char *title,
			   const char *anchor)
{
	const char *name = jsonutil_str(res, "experiment");
	json_t *pt;
	size_t i, rows = 0;

	json_array_foreach(json_object_get(res, "points"), i, pt) {
		const char *why = jsonutil_str(pt, "reason");
		char *label, *op = NULL;

		if (!spoiled(pt))
			continue;
		rows++;
		label = report_points_label(pt, swept, ", ");
		if (asprintf(&op, "%s%s%s%s: not measured, spoiled by other tasks: %s with --filter %s",
			     title, label && label[0] ? " (" : "", label && label[0] ? label : "",
			     label && label[0] ? ")" : "", why ? why : "", name ? name : title) < 0)
			op = NULL;
		summary_row(summary, op ? op : title, anchor, report_view_str(REPORT_VIEW_DASH),
			    report_view_str("skipped"), report_view_str(REPORT_VIEW_DASH), NULL, NULL);
		free(op);
		free(label);
	}
	return rows;
}

void report_summary_add(json_t *summary, json_t *e, json_t *res, json_t *swept,
			const struct report_unit *d)
{
	json_t *points = json_object_get(res, "points"), *pt;
	json_t *knees = json_object_get(json_object_get(res, "findings"), "knees");
	const char *title = jsonutil_str(e, "title"), *anchor = jsonutil_str(e, "anchor");
	size_t i, n_ok = 0, rows = 0;
	double lo = INFINITY, hi = -INFINITY;

	int file_cache = isfinite(jsonutil_num(json_object_get(json_object_get(res, "findings"),
							       "file_cache"), "knee_bytes"));

	json_array_foreach(points, i, pt)
		if (point_has_value(pt))
			n_ok++;
	if (n_ok == 0) {
		size_t n_spoiled = 0;

		json_array_foreach(points, i, pt)
			n_spoiled += (size_t)spoiled(pt);
		if (n_spoiled < json_array_size(points))	/* else each has its row */
			summary_row(summary, title, anchor, report_view_str(REPORT_VIEW_DASH),
				    report_view_strf("%s", jsonutil_str(e, "status")),
				    report_view_str(REPORT_VIEW_DASH), NULL, NULL);
		spoiled_rows(summary, res, swept, title, anchor);
		return;
	}
	json_array_foreach(points, i, pt) {
		json_t *pred = json_object_get(pt, "prediction");
		double est = jsonutil_num(pt, "estimate"), pv = jsonutil_num(pred, "value");
		int want = isfinite(pv) || (n_ok <= 6 && !knees && !file_cache);
		char *label, *op;

		if (!point_has_value(pt))
			continue;
		if (est < lo)
			lo = est;
		if (est > hi)
			hi = est;
		if (!want)
			continue;
		label = report_points_label(pt, swept, ", ");
		if (label && label[0]) {
			if (asprintf(&op, "%s (%s)", title, label) < 0)
				op = NULL;
		} else {
			op = strdup(title);
		}
		json_t *ci = json_object_get(pt, "ci");
		double clo, chi;
		clo = json_is_number(json_array_get(ci, 0)) ? json_number_value(json_array_get(ci, 0)) : NAN;
		chi = json_is_number(json_array_get(ci, 1)) ? json_number_value(json_array_get(ci, 1)) : NAN;
		summary_row(summary, op ? op : title, anchor,
			    isfinite(pv) ? report_view_num_unit(pv * d->scale, d->label) : report_view_str(REPORT_VIEW_DASH),
			    report_view_num_unit(est * d->scale, d->label),
			    isfinite(d->cyc) ? report_view_num(est * d->cyc) : report_view_str(REPORT_VIEW_DASH),
			    isfinite(clo) && isfinite(chi) ? report_view_ci(clo * d->scale, chi * d->scale)
							   : NULL,
			    isfinite(pv) && pv != 0 ? report_view_num(est / pv) : NULL);
		free(op);
		free(label);
		rows++;
	}
	if (knees)
		rows += knee_rows(summary, e, title, anchor);
	if (file_cache)
		rows += file_cache_row(summary, res, title, anchor);
	if (rows == 0)
		rows = mode_rows(summary, res, swept, title, anchor, d);
	if (rows == 0) {
		/* a long sweep without predictions or findings: its range */
		char a[64], b[64], ca[64], cb[64];

		units_format_number(lo * d->scale, a, sizeof a);
		units_format_number(hi * d->scale, b, sizeof b);
		units_format_number(lo * d->cyc, ca, sizeof ca);
		units_format_number(hi * d->cyc, cb, sizeof cb);
		summary_row(summary, title, anchor, report_view_str(REPORT_VIEW_DASH),
			    report_view_strf("%s" REPORT_VIEW_DASH "%s %s", a, b, d->label),
			    isfinite(d->cyc) ? report_view_strf("%s" REPORT_VIEW_DASH "%s", ca, cb) : report_view_str(REPORT_VIEW_DASH),
			    NULL, NULL);
	}
	spoiled_rows(summary, res, swept, title, anchor);
}
