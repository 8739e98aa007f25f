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

/* The rows of the levels found as knees (from e's view of them); returns
   how many. */
static size_t knee_rows(json_t *summary, json_t *e, const char *title, const char *anchor)
{
	json_t *kv = json_object_get(e, "knees"), *k, *r;
	size_t i, j, rows = 0;

	json_array_foreach(kv, i, k)
		json_array_foreach(json_object_get(k, "rows"), j, r) {
			char *op = NULL;

			if (!json_is_true(json_object_get(r, "found")))
				continue;
			if (asprintf(&op, "%s: %s (%s)", title, jsonutil_str(r, "level"),
				     jsonutil_str(k, "series")) < 0)
				op = NULL;
			summary_row(summary, op ? op : title, anchor, report_view_str(REPORT_VIEW_DASH),
				    json_incref(json_object_get(r, "latency")),
				    json_incref(json_object_get(r, "cycles")), NULL, NULL);
			free(op);
			rows++;
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

	json_array_foreach(points, i, pt)
		if (point_has_value(pt))
			n_ok++;
	if (n_ok == 0) {
		summary_row(summary, title, anchor, report_view_str(REPORT_VIEW_DASH),
			    report_view_strf("%s", jsonutil_str(e, "status")), report_view_str(REPORT_VIEW_DASH),
			    NULL, NULL);
		return;
	}
	json_array_foreach(points, i, pt) {
		json_t *pred = json_object_get(pt, "prediction");
		double est = jsonutil_num(pt, "estimate"), pv = jsonutil_num(pred, "value");
		int want = isfinite(pv) || (n_ok <= 6 && !knees);
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
}
