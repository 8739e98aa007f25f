/*
 * report_beside.c - an experiment's points beside another experiment's
 * (report_beside.h): remote reads beside local ones, with the ratio and a
 * prediction from the measured network round trip.
 *
 * Computed when the report is built, from the run's own result files, so
 * `runner report RUN` draws it again and it holds whatever ran: the other
 * experiment may have been left out of the run (then the report says so).
 */
#include "report/report_beside.h"
#include "report/report_view.h"
#include "lib/jsonutil.h"
#include "lib/strf.h"
#include "lib/units.h"

#include <limits.h>
#include <math.h>
#include <string.h>

/* results/NAME.json of the run, or NULL. */
static json_t *load_result(const char *run, const char *name)
{
	char path[PATH_MAX], msg[256];
	int missing = 0;

	strf(path, sizeof path, "%s/results/%s.json", run, name);
	return jsonutil_load(path, msg, sizeof msg, &missing);
}

/* The point of `theirs` whose every parameter that `ours` also has holds
   the same text; NULL when none (or none with a number). */
static json_t *match(json_t *ours, json_t *theirs)
{
	json_t *q, *mine = json_object_get(ours, "params_text");
	size_t i;

	json_array_foreach(json_object_get(theirs, "points"), i, q) {
		json_t *tp = json_object_get(q, "params_text"), *v;
		const char *k;
		int same = 1, shared = 0;

		json_object_foreach(mine, k, v) {
			json_t *w = json_object_get(tp, k);

			if (!w)
				continue;
			shared++;
			if (!json_equal(v, w))
				same = 0;
		}
		if (same && shared && json_is_number(json_object_get(q, "estimate")))
			return q;
	}
	return NULL;
}

/* The smallest estimate among rtt's points with a number whose
   parameters hold the texts of `only` (a {param: text} object, may be
   NULL), in ns (NAN when none, or its unit is not a time); *where names
   that point. */
static double rtt_ns(json_t *rtt, json_t *only, char *where, size_t wlen)
{
	double best = NAN, ns_per_unit;
	json_t *p;
	size_t i;

	if (!units_is_time(jsonutil_str(json_object_get(rtt, "probe"), "unit"), &ns_per_unit))
		return NAN;
	json_array_foreach(json_object_get(rtt, "points"), i, p) {
		double e = jsonutil_num(p, "estimate");
		json_t *v;
		const char *k;
		size_t off = 0;

		int fits = 1;

		json_object_foreach(only, k, v)
			if (!json_equal(v, json_object_get(json_object_get(p, "params_text"), k)))
				fits = 0;
		if (!fits || !(e > 0) || !(isnan(best) || e * ns_per_unit < best))
			continue;
		best = e * ns_per_unit;
		where[0] = '\0';
		json_object_foreach(json_object_get(p, "params_text"), k, v)
			if (json_is_string(v) && off < wlen)
				off += (size_t)snprintf(where + off, wlen - off, "%s%s=%s", off ? ", " : "",
							k, json_string_value(v));
	}
	return best;
}

json_t *report_beside_view(const char *run, json_t *res, json_t *swept,
			   const struct report_unit *d)
{
	json_t *beside = json_object_get(json_object_get(res, "spec"), "beside");
	const char *name = jsonutil_str(beside, "experiment");
	const char *rname = jsonutil_str(beside, "rtt");
	json_t *view, *rows, *theirs, *rtt = NULL, *p;
	double ours_ns, theirs_ns, r_ns = NAN, logsum = 0;
	char where[256] = "", note[512] = "";
	size_t i, n = 0;

	if (!name)
		return NULL;
	view = json_object();
	report_view_put(view, "experiment", report_view_str(name));
	theirs = load_result(run, name);
	if (!theirs || !units_is_time(jsonutil_str(json_object_get(res, "probe"), "unit"), &ours_ns) ||
	    !units_is_time(jsonutil_str(json_object_get(theirs, "probe"), "unit"), &theirs_ns)) {
		report_view_put(view, "rows", json_array());
		report_view_put(view, "has_rows", json_false());
		report_view_put(view, "note", report_view_strf(
			"%s has no results in this run (run its spec too to see these points beside it).",
			name));
		json_decref(theirs);
		return view;
	}
	if (rname && (rtt = load_result(run, rname)))
		r_ns = rtt_ns(rtt, json_object_get(beside, "rtt_where"), where, sizeof where);
	rows = json_array();
	json_array_foreach(json_object_get(res, "points"), i, p) {
		double e = jsonutil_num(p, "estimate");
		json_t *q = isfinite(e) ? match(p, theirs) : NULL, *row, *vals;
		json_t *sw;
		size_t k;

		if (!q)
			continue;
		double local = jsonutil_num(q, "estimate") * theirs_ns / ours_ns;
		double pred = isfinite(r_ns) ? local + r_ns / ours_ns : NAN;

		row = json_object();
		vals = json_array();
		json_array_foreach(swept, k, sw) {
			json_t *v = json_object_get(json_object_get(p, "params_text"),
						    json_string_value(sw));

			const char *t = json_is_string(v) ? json_string_value(v) : "?";

			jsonutil_append(vals, json_pack("{s:o, s:o}", "value", report_view_line(t),
							"short", report_view_cell(t)));
		}
		report_view_put(row, "swept", vals);
		report_view_put(row, "local", report_view_num(local * d->scale));
		report_view_put(row, "remote", report_view_num(e * d->scale));
		report_view_put(row, "ratio", report_view_num(e / local));
		report_view_put(row, "predicted", isfinite(pred) ? report_view_num(pred * d->scale)
							      : report_view_str("–"));
		report_view_put(row, "vs_predicted", isfinite(pred) ? report_view_num(e / pred)
								 : report_view_str("–"));
		jsonutil_append(rows, row);
		if (e > 0 && local > 0) {
			logsum += log(e / local);
			n++;
		}
	}
	if (n)
		strf(note, sizeof note, "Over the %zu points with a match, %s takes %.3g times as long "
		     "as %s (geometric mean).", n, jsonutil_str(res, "experiment") ?
		     jsonutil_str(res, "experiment") : "this experiment", exp(logsum / (double)n), name);
	else
		strf(note, sizeof note, "No point of %s has the same parameter values as one of "
		     "these.", name);
	if (rname && isfinite(r_ns))
		strf(note + strlen(note), sizeof note - strlen(note),
		     " Predicted: %s's figure plus the smallest round trip %s measured (%.3g us%s%s%s): "
		     "one request and its reply, the transfer of the block itself left out.",
		     name, rname, r_ns / 1000, where[0] ? ", " : "", where, "");
	else if (rname)
		strf(note + strlen(note), sizeof note - strlen(note),
		     " No prediction: %s has no round trip%s in this run.", rname,
		     json_object_size(json_object_get(beside, "rtt_where")) ? " that fits rtt_where" : "");
	report_view_put(view, "has_rows", json_boolean(json_array_size(rows) > 0));
	report_view_put(view, "rows", rows);
	report_view_put(view, "note", report_view_str(note));
	json_decref(theirs);
	json_decref(rtt);
	return view;
}
