/*
 * report_experiment.c - one experiment's view and chart
 * (report_experiment.h).
 */
#include "report/report_experiment.h"
#include "report/report.h"
#include "report/report_beside.h"
#include "report/report_chart_view.h"
#include "report/report_discussion.h"
#include "report/report_knees.h"
#include "report/report_markdown.h"
#include "report/report_method.h"
#include "report/report_points.h"
#include "report/report_summary.h"
#include "report/report_tools.h"
#include "report/report_unit.h"
#include "report/report_view.h"
#include "report/chart.h"
#include "results/results.h"
#include "lib/jsonutil.h"
#include "lib/strf.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *status_text(const char *st)
{
	if (!st)
		return "unknown";
	if (strcmp(st, "ok") == 0)
		return "all points measured";
	if (strcmp(st, "partial") == 0)
		return "some points did not complete";
	if (strcmp(st, "failed") == 0)
		return "failed: no point could be measured";
	if (strcmp(st, "skipped") == 0)
		return "skipped: cannot be measured here";
	if (strcmp(st, "interrupted") == 0)
		return "interrupted: the run was stopped";
	return st;
}

/* The distinct file systems the points read from (their `dir`): "ext4,
   /dev/vda at /, rw,relatime"; for NFS also what the options mean for the
   client's caches. */
/* The clock this result's cycle columns count: the run's choice
   (report_env_cycle_clock), unless the result was measured on a machine
   of another TSC rate (kept from elsewhere), whose core clock the run
   did not measure: its own TSC then. */
static double cycle_hz(const struct report_model *rm, json_t *res, int *core)
{
	double own = jsonutil_num(res, "tsc_hz");

	*core = rm->cycles_core;
	if (isfinite(own) && own > 0 && !(fabs(own / rm->tsc_hz - 1) <= 0.01)) {
		*core = 0;
		return own;
	}
	return rm->cycle_hz;
}

static json_t *filesystems_view(json_t *points)
{
	json_t *out = json_array(), *pt, *seen = json_object();
	size_t i;

	json_array_foreach(points, i, pt) {
		json_t *fs = json_object_get(pt, "filesystem");
		const char *mnt = jsonutil_str(fs, "mount"), *caches = jsonutil_str(fs, "client_caches");
		char key[4200];

		if (!mnt)
			continue;
		strf(key, sizeof key, "%s|%s", mnt, jsonutil_str(fs, "source") ? jsonutil_str(fs, "source") : "");
		if (json_object_get(seen, key))
			continue;
		jsonutil_set(seen, key, json_true());
		jsonutil_append(out, json_pack("{s:o}", "text", report_view_strf(
			"%s, %s at %s (%s)%s%s", jsonutil_str(fs, "type") ? jsonutil_str(fs, "type") : "?",
			jsonutil_str(fs, "source") ? jsonutil_str(fs, "source") : "?", mnt,
			jsonutil_str(fs, "options") ? jsonutil_str(fs, "options") : "",
			caches ? "; " : "", caches ? caches : "")));
	}
	json_decref(seen);
	return out;
}

/* A merged report's experiment (runner merge): the run its result came
   from and when; null otherwise. */
static json_t *source_view(json_t *src)
{
	json_t *v;

	if (!json_is_object(src))
		return json_null();
	v = json_object();
	report_view_put(v, "run", report_view_line(jsonutil_str(src, "run_id") ?
						  jsonutil_str(src, "run_id") : "n/a"));
	report_view_put(v, "time", report_view_date(jsonutil_str(src, "time")));
	report_view_put(v, "host", jsonutil_str(src, "host") ? report_view_line(jsonutil_str(src, "host"))
							      : json_null());
	return v;
}

/* The experiment's chart, drawn when there is something to draw, in
   e.chart; -1 when its script cannot be written (report_chart_view). */
static int add_chart(struct report_model *rm, json_t *e, json_t *res, const char *base,
		     const struct report_unit *d, int n_ok)
{
	json_t *c = report_chart_view(rm, res, base, jsonutil_str(e, "name"), d, n_ok > 0);

	if (!c)
		return -1;
	report_view_put(e, "chart", c);
	return 0;
}

/* The experiment's chart file stem: its name made safe, unique in the run
   (two names may differ only in unsafe characters); anchor is "exp-<base>". */
static void unique_base(struct report_model *rm, const char *name, char *base, size_t len)
{
	size_t i;

	report_view_safe_name(name, base, len);
	for (i = 2; json_object_get(rm->bases, base); i++) {
		char b2[160];

		report_view_safe_name(name, b2, sizeof b2 - 12);
		strf(base, len, "%s-%zu", b2, i);
	}
	jsonutil_set(rm->bases, base, json_true());
}

/* Title, group, status, unit, probe, method, parameters and swept names:
   what the experiment's heading and method paragraph show. */
static void add_heading(json_t *e, json_t *mexp, json_t *res, json_t *swept,
			const struct report_unit *d)
{
	const char *name = jsonutil_str(mexp, "name"), *status = jsonutil_str(res, "status");
	const char *title = jsonutil_str(res, "title"), *group = jsonutil_str(res, "group");
	json_t *spec = json_object_get(res, "spec"), *probe = json_object_get(res, "probe");
	json_t *pv, *arr, *n;
	size_t i;

	if (!title)
		title = jsonutil_str(mexp, "title") ? jsonutil_str(mexp, "title") : name;
	report_view_put(e, "title", report_view_line(title));
	report_view_put(e, "group", report_view_str(group ? group : jsonutil_str(mexp, "group")));
	/* The description is Markdown: rendered by libcmark for each format,
	   and put in raw (the renderer escapes; see report_markdown.c). */
	char *md = report_markdown_markdown(jsonutil_str(res, "description"));
	char *tex = report_markdown_latex(jsonutil_str(res, "description"));
	char *html = report_markdown_html(jsonutil_str(res, "description"));
	report_view_put(e, "description", report_view_str(md));
	report_view_put(e, "description_tex", report_view_str(tex));
	report_view_put(e, "description_html", report_view_str(html));
	free(md);
	free(tex);
	free(html);
	md = report_markdown_markdown(jsonutil_str(res, "discussion"));
	tex = report_markdown_latex(jsonutil_str(res, "discussion"));
	html = report_markdown_html(jsonutil_str(res, "discussion"));
	report_view_put(e, "discussion", md ? report_view_str(md) : json_null());
	report_view_put(e, "discussion_tex", tex ? report_view_str(tex) : json_null());
	report_view_put(e, "discussion_html", html ? report_view_str(html) : json_null());
	free(md);
	free(tex);
	free(html);
	report_view_put(e, "status", report_view_str(status ? status : "unknown"));
	report_view_put(e, "status_text", report_view_str(status_text(status)));
	report_view_put(e, "unit", report_view_str(d->label));
	report_view_put(e, "is_time", json_boolean(d->is_time));
	report_view_put(e, "has_cycles", json_boolean(d->is_time && isfinite(d->cyc)));
	report_view_put(e, "cycle_word", report_view_str(d->cyc_word));
	report_view_put(e, "bigger_is_better",
		 json_boolean(json_is_true(json_object_get(probe, "bigger_is_better"))));
	pv = json_object();
	report_view_put(pv, "name", report_view_str(jsonutil_str(probe, "name")));
	report_view_put(pv, "version", report_view_str(jsonutil_str(probe, "version")));
	report_view_put(pv, "unit", report_view_str(jsonutil_str(probe, "unit")));
	report_view_put(e, "probe", pv);
	report_view_put(e, "method", json_is_object(spec) ? report_method_text(spec, json_object_get(res, "points"),
							     jsonutil_str(probe, "unit"))
				       : report_view_str(""));
	arr = report_method_params(spec);
	report_view_put(e, "has_params", json_boolean(json_array_size(arr) > 0));
	report_view_put(e, "params", arr);
	arr = json_array();
	json_array_foreach(swept, i, n) {
		json_t *c = json_object();

		report_view_put(c, "name", report_view_str(json_string_value(n)));
		jsonutil_append(arr, c);
	}
	report_view_put(e, "swept", arr);
	report_view_put(e, "n_swept", report_view_strf("%zu", json_array_size(swept)));
	report_view_put(e, "has_swept", json_boolean(json_array_size(swept) > 0));
}

json_t *report_experiment_view(struct report_model *rm, json_t *mexp, json_t *summary)
{
	const char *name = jsonutil_str(mexp, "name"), *rpath = jsonutil_str(mexp, "result");
	json_t *e = json_object(), *res = NULL, *spec, *points, *swept, *pt, *arr, *knees;
	char path[PATH_MAX], msg[512], base[128], anchor[160];
	const char *reason, *kparam, *fc;
	struct report_unit d;
	size_t i;
	int n_ok, missing = 0, core;

	unique_base(rm, name, base, sizeof base);
	strf(anchor, sizeof anchor, "exp-%s", base);

	if (rpath) {
		strf(path, sizeof path, "%s/%s", rm->run, rpath);
		res = jsonutil_load(path, msg, sizeof msg, &missing);
		if (!res && !missing) {
			strf(rm->err, rm->errlen, "run '%s': cannot read %s: %s", rm->run, rpath, msg);
			json_decref(e);
			return NULL;
		}
	}
	if (!res) {
		/* never measured (an interrupted run): say so, do not hide it */
		const char *st = jsonutil_str(mexp, "status");

		res = json_object();
		report_view_put(res, "status", report_view_str(st ? st : "interrupted"));
		report_view_put(res, "reason", report_view_strf("no result file (%s)",
						  rpath ? rpath : "none in the manifest"));
	}
	/* prediction formulas, evaluated again from the run's files */
	if (rm->by_name && json_is_array(json_object_get(res, "points")))
		results_predict(res, rm->machine, rm->by_name);
	spec = json_object_get(res, "spec");
	points = json_object_get(res, "points");
	swept = report_points_swept(spec);
	double hz = cycle_hz(rm, res, &core);
	report_unit_pick(jsonutil_str(json_object_get(res, "probe"), "unit"), points, hz, core, &d);

	report_view_put(e, "name", report_view_str(name ? name : "?"));
	report_view_put(e, "anchor", report_view_str(anchor));
	report_view_put(e, "source", source_view(json_object_get(mexp, "source")));
	add_heading(e, mexp, res, swept, &d);

	n_ok = report_points_add(e, points, swept, &d);
	report_points_table_size(e);
	report_points_extras(e, res, points, swept);
	/* when nothing was measured, the experiment's reason or its first
	   point's */
	reason = jsonutil_str(res, "reason");
	json_array_foreach(points, i, pt)
		if (!reason && jsonutil_str(pt, "reason"))
			reason = jsonutil_str(pt, "reason");
	report_view_put(e, "reason", n_ok == 0 && reason ? report_view_line(reason) : json_null());
	report_view_put(e, "measured", json_boolean(n_ok > 0));

	knees = json_object_get(json_object_get(res, "findings"), "knees");
	kparam = jsonutil_str(knees, "param");
	arr = json_is_object(knees) ? report_knees_view(knees, res, &d) : json_array();
	report_view_put(e, "has_knees", json_boolean(json_array_size(arr) > 0));
	report_view_put(e, "knees", arr);
	report_view_put(e, "knees_param", report_view_str(kparam ? kparam : "size"));
	report_view_put(e, "beside", report_beside_view(rm->run, res, swept, &d));
	report_view_put(e, "filesystems", filesystems_view(points));
	fc = jsonutil_str(json_object_get(json_object_get(res, "findings"), "file_cache"), "summary");
	report_view_put(e, "file_cache", fc ? report_view_str(fc) : json_null());
	report_view_put(e, "generated_discussion",
			n_ok > 0 ? report_discussion_view(rm->run, name, res, &d) : json_array());

	if (add_chart(rm, e, res, base, &d, n_ok) < 0) {
		json_decref(e);
		e = NULL;
	} else {
		report_summary_add(summary, e, res, swept, &d);
	}
	json_decref(swept);
	json_decref(res);
	return e;
}
