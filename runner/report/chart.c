/*
 * chart.c - one experiment's chart: data file + gnuplot script (chart.h).
 *
 * What is plotted follows the spec's `chart:` (x, y, series, logx/logy,
 * labels, title, kind) with defaults for what it leaves out: x is the first
 * swept parameter, the series are the other swept parameters, a string x or
 * a single point makes a bar chart, a numeric x a line chart.  Values are in
 * the unit the report tables use, with error bars from the 95 % CIs.
 *
 * Safety: user strings reach the script only through the template engine's
 * gnuplot escaping, inside single-quoted strings (no substitution happens
 * there), and the data file holds numbers and comments only.
 */
#include "report/chart.h"
#include "lib/jsonutil.h"
#include "results/results.h"
#include "lib/strf.h"
#include "lib/units.h"
#include "report/template.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHART_MAX_TICKS 16

int chart_write_file(const char *dir, const char *name, const char *data, size_t len)
{
	char dst[4096], err[4400];

	if ((size_t)snprintf(dst, sizeof dst, "%s/%s", dir, name) >= sizeof dst) {
		errno = ENAMETOOLONG;
		return -1;
	}
	/* One atomic writer for the whole run folder (errno kept on failure). */
	return results_write_file(dst, data, len, err, sizeof err);
}

/* ------------------------------------------------------------------ model */

/* The probe's declared type of parameter `name` ("size", "int", ...). */
static const char *param_type(json_t *result, const char *name)
{
	json_t *params = json_object_get(json_object_get(result, "probe"), "params"), *p;
	size_t i;

	json_array_foreach(params, i, p)
		if (jsonutil_str(p, "name") && strcmp(jsonutil_str(p, "name"), name) == 0)
			return jsonutil_str(p, "type");
	return NULL;
}

/* Swept parameters: those with more than one value in the resolved spec,
   in the spec's order (jansson keeps insertion order). */
static json_t *swept_params(json_t *result)
{
	json_t *params = json_object_get(json_object_get(result, "spec"), "params");
	json_t *out = json_array(), *vals;
	const char *key;

	json_object_foreach(params, key, vals)
		if (json_is_array(vals) && json_array_size(vals) > 1)
			json_array_append_new(out, json_string(key));
	return out;
}

/* Text of a point's parameter, for labels. */
static const char *point_param_text(json_t *pt, const char *name)
{
	const char *t = jsonutil_str(json_object_get(pt, "params_text"), name);

	return t ? t : "?";
}

/* "stride=64, op=read": the point's values of the params in `names`. */
static char *key_of(json_t *pt, json_t *names, int with_names)
{
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&buf, &len);
	json_t *n;

	if (!f)
		return NULL;
	json_array_foreach(names, i, n) {
		if (i)
			fputs(", ", f);
		if (with_names)
			fprintf(f, "%s=", json_string_value(n));
		fputs(point_param_text(pt, json_string_value(n)), f);
	}
	fclose(f);
	return buf;
}

static int index_of(json_t *arr, const char *s)
{
	size_t i;
	json_t *v;

	json_array_foreach(arr, i, v)
		if (strcmp(json_string_value(v), s) == 0)
			return (int)i;
	return -1;
}

struct cpoint {
	double x, y, lo, hi;
	int series;
};

static int cmp_cpoint(const void *a, const void *b)
{
	const struct cpoint *p = a, *q = b;

	if (p->series != q->series)
		return p->series - q->series;
	return (p->x > q->x) - (p->x < q->x);
}

static json_t *jfmt(double v)
{
	char buf[64];

	snprintf(buf, sizeof buf, "%.10g", v);
	return json_string(buf);
}

int chart_write(const struct chart_request *rq, char *err, size_t errlen)
{
	json_t *res = rq->result, *spec = json_object_get(res, "spec");
	json_t *cspec = json_object_get(spec, "chart"), *points = json_object_get(res, "points");
	json_t *swept = swept_params(res), *series_names = json_array(), *categories = json_array();
	json_t *series_params = json_array(), *view = NULL, *xtics = json_array(), *sview = json_array();
	const char *xname = jsonutil_str(cspec, "x"), *yname = jsonutil_str(cspec, "y");
	const char *kind = jsonutil_str(cspec, "kind");
	const char *title = jsonutil_str(cspec, "title"), *xlabel = jsonutil_str(cspec, "xlabel");
	const char *ylabel = jsonutil_str(cspec, "ylabel"), *xtype = NULL, *unit = rq->unit;
	const char *exp_name = jsonutil_str(res, "experiment");
	double scale = rq->scale, logx = jsonutil_num(cspec, "logx"), logy = jsonutil_num(cspec, "logy");
	double xmin = INFINITY, xmax = -INFINITY;
	struct cpoint *cp = NULL;
	size_t ncp = 0, i, j;
	int categorical, bar, rc = -1, nseries;
	char *dat = NULL, *script = NULL, name[512], lbl[256], num[64];
	size_t datlen = 0;
	FILE *f = NULL;
	json_t *pt, *v;

	if (!exp_name)
		exp_name = rq->base;
	if (!json_is_array(swept) || !json_is_array(series_names) || !json_is_array(categories) ||
	    !json_is_array(series_params) || !json_is_array(xtics) || !json_is_array(sview))
		goto oom;

	/* x: the spec's, else the first swept parameter; a name no point has
	   (a spec typo the checker let through) falls back to the default */
	if (xname && !json_object_get(json_object_get(json_array_get(points, 0), "params"), xname))
		xname = NULL;
	if (!xname && json_array_size(swept) > 0)
		xname = json_string_value(json_array_get(swept, 0));
	/* series: the spec's parameter, else every other swept parameter */
	if (jsonutil_str(cspec, "series")) {
		json_array_append_new(series_params, json_string(jsonutil_str(cspec, "series")));
	} else {
		json_array_foreach(swept, i, v)
			if (!xname || strcmp(json_string_value(v), xname) != 0)
				json_array_append(series_params, v);
	}
	if (xname)
		xtype = param_type(res, xname);
	/* strings, and any x drawn as bars, go on evenly spaced categories */
	categorical = !xname ||
		json_is_string(json_object_get(json_object_get(json_array_get(points, 0), "params"), xname));
	bar = kind ? strcmp(kind, "bar") == 0 : categorical;
	categorical = categorical || bar;

	/* y: the estimate (with its CI), or a secondary metric's median */
	if (yname && strcmp(yname, "estimate") != 0) {
		json_t *metrics = json_object_get(json_object_get(res, "probe"), "metrics"), *m;
		const char *munit = NULL;

		json_array_foreach(metrics, i, m)
			if (jsonutil_str(m, "name") && strcmp(jsonutil_str(m, "name"), yname) == 0)
				munit = jsonutil_str(m, "unit");
		/* a metric in another unit than the probe's is shown as is */
		if (!munit || strcmp(munit, jsonutil_str(json_object_get(res, "probe"), "unit") ?
				     jsonutil_str(json_object_get(res, "probe"), "unit") : "") != 0) {
			scale = 1;
			unit = munit ? munit : "";
		}
	} else {
		yname = NULL;
	}
	/* a spec's ylabel was written for the probe's own unit */
	if (ylabel && !yname) {
		scale = 1;
		unit = jsonutil_str(json_object_get(res, "probe"), "unit");
	}

	cp = calloc(json_array_size(points) + 1, sizeof *cp);
	if (!cp)
		goto oom;
	json_array_foreach(points, i, pt) {
		struct cpoint c;
		json_t *ci = json_object_get(pt, "ci");
		char *skey;
		int s;

		if (!jsonutil_str(pt, "status") || strcmp(jsonutil_str(pt, "status"), "ok") != 0)
			continue;
		if (yname) {
			c.y = jsonutil_num(json_object_get(json_object_get(pt, "extra"), yname), "median");
			c.lo = c.hi = c.y;
		} else {
			c.y = jsonutil_num(pt, "estimate");
			c.lo = json_is_number(json_array_get(ci, 0)) ?
				json_number_value(json_array_get(ci, 0)) : c.y;
			c.hi = json_is_number(json_array_get(ci, 1)) ?
				json_number_value(json_array_get(ci, 1)) : c.y;
		}
		if (!isfinite(c.y))
			continue;
		c.y *= scale;
		c.lo = isfinite(c.lo) ? c.lo * scale : c.y;
		c.hi = isfinite(c.hi) ? c.hi * scale : c.y;
		if (categorical) {
			char *cat = xname ? strdup(point_param_text(pt, xname)) : key_of(pt, swept, 1);

			if (!cat)
				goto oom;
			if (!cat[0]) {	/* a single point: its experiment is the label */
				free(cat);
				cat = strdup(jsonutil_str(res, "title") ? jsonutil_str(res, "title") : exp_name);
				if (!cat)
					goto oom;
			}
			c.x = index_of(categories, cat);
			if (c.x < 0) {
				json_array_append_new(categories, json_string(cat));
				c.x = (double)json_array_size(categories) - 1;
			}
			free(cat);
		} else {
			c.x = jsonutil_num(json_object_get(pt, "params"), xname);
			if (!isfinite(c.x))
				continue;
		}
		skey = key_of(pt, series_params, json_array_size(series_params) > 1);
		if (!skey)
			goto oom;
		s = index_of(series_names, skey);
		if (s < 0) {
			json_array_append_new(series_names, json_string(skey));
			s = (int)json_array_size(series_names) - 1;
		}
		free(skey);
		c.series = s;
		cp[ncp++] = c;
		if (c.x < xmin)
			xmin = c.x;
		if (c.x > xmax)
			xmax = c.x;
	}
	if (ncp == 0) {
		rc = 0;
		goto out;
	}
	qsort(cp, ncp, sizeof *cp, cmp_cpoint);
	nseries = (int)json_array_size(series_names);

	/* defaults (0 or absent: the spec did not say): log x for a geometric
	   sweep over a wide range, log y when values span two decades, where a
	   linear axis would flatten the small ones to nothing */
	if (!(logx > 1) && !categorical && xmin > 0 && xmax / xmin >= 64)
		logx = xtype && strcmp(xtype, "size") == 0 ? 2 : 10;
	if (categorical)
		logx = NAN;
	if (!(logy > 1)) {
		double ymin = INFINITY, ymax = -INFINITY;

		for (i = 0; i < ncp; i++) {
			if (cp[i].lo < ymin)
				ymin = cp[i].lo;
			if (cp[i].hi > ymax)
				ymax = cp[i].hi;
		}
		logy = ymin > 0 && ymax / ymin >= 100 ? 10 : NAN;
	}

	/* the data file: one block per series, blocks apart by two blank lines
	   so that `index N` picks one; comments are the only text */
	f = open_memstream(&dat, &datlen);
	if (!f)
		goto oom;
	fprintf(f, "# charts/%s.dat: generated by sysmeter from the run's results\n", rq->base);
	fprintf(f, "# columns: x y ci_low ci_high bar_width\n");
	for (i = 0, j = 0; j < (size_t)nseries; j++) {
		double width = bar ? 0.8 / nseries : 0;
		const char *sname = json_string_value(json_array_get(series_names, j));

		if (j)
			fputs("\n\n", f);
		/* a comment line must stay one line: no newline, no final
		   backslash (which would continue it) */
		fputs("# series: ", f);
		for (; *sname; sname++)
			fputc(*sname == '\n' || *sname == '\r' || (*sname == '\\' && !sname[1]) ?
			      ' ' : *sname, f);
		fputc('\n', f);
		for (; i < ncp && cp[i].series == (int)j; i++) {
			double x = cp[i].x;

			if (bar && categorical)
				x += (j - (nseries - 1) / 2.0) * width;
			fprintf(f, "%.10g %.10g %.10g %.10g %.10g\n", x, cp[i].y, cp[i].lo, cp[i].hi,
				width);
		}
	}
	if (fclose(f) != 0) {
		f = NULL;
		goto oom;
	}
	f = NULL;

	/* ticks: categories by name; numeric x at the data values (sizes and
	   times in readable units) when there are few enough */
	if (categorical) {
		json_array_foreach(categories, i, v) {
			json_t *t = json_object();

			json_object_set(t, "label", v);
			json_object_set_new(t, "pos", jfmt((double)i));
			json_array_append_new(xtics, t);
		}
	} else if (xtype && (strcmp(xtype, "size") == 0 || strcmp(xtype, "time") == 0 ||
			     strcmp(xtype, "int") == 0)) {
		double *xs = calloc(ncp, sizeof *xs);
		size_t nx = 0, step;

		if (!xs)
			goto oom;
		for (i = 0; i < ncp; i++) {
			for (j = 0; j < nx && xs[j] != cp[i].x; j++)
				;
			if (j == nx)
				xs[nx++] = cp[i].x;
		}
		for (i = 1; i < nx; i++)	/* insertion sort: few values */
			for (j = i; j > 0 && xs[j - 1] > xs[j]; j--) {
				double t = xs[j];

				xs[j] = xs[j - 1];
				xs[j - 1] = t;
			}
		step = (nx + CHART_MAX_TICKS - 1) / CHART_MAX_TICKS;
		for (i = 0; i < nx; i += step) {
			json_t *t = json_object();

			if (strcmp(xtype, "size") == 0)
				units_format_size_short(xs[i], lbl, sizeof lbl);
			else if (strcmp(xtype, "time") == 0) {
				static const struct { double f; const char *u; } tu[] = {
					{1, "s"}, {1e3, "ms"}, {1e6, "µs"}, {1e9, "ns"} };
				size_t k = 0;

				while (k < 3 && fabs(xs[i]) * tu[k].f < 1)
					k++;
				units_format_number(xs[i] * tu[k].f, num, sizeof num);
				snprintf(lbl, sizeof lbl, "%s%s", num, tu[k].u);
			} else
				snprintf(lbl, sizeof lbl, "%.10g", xs[i]);
			json_object_set_new(t, "label", json_string(lbl));
			json_object_set_new(t, "pos", jfmt(xs[i]));
			json_array_append_new(xtics, t);
		}
		free(xs);
	}

	for (j = 0; j < (size_t)nseries; j++) {
		json_t *s = json_object();
		const char *sname = json_string_value(json_array_get(series_names, j));

		json_object_set_new(s, "index", json_integer((json_int_t)j));
		json_object_set_new(s, "title", json_string(sname));
		json_array_append_new(sview, s);
	}

	view = json_object();
	if (!view)
		goto oom;
	snprintf(name, sizeof name, "charts/%s.dat", rq->base);
	json_object_set_new(view, "data", json_string(name));
	snprintf(name, sizeof name, "charts/%s.gp", rq->base);
	json_object_set_new(view, "script", json_string(name));
	snprintf(name, sizeof name, "charts/%s.png", rq->base);
	json_object_set_new(view, "png", json_string(name));
	snprintf(name, sizeof name, "charts/%s.pdf", rq->base);
	json_object_set_new(view, "pdf", json_string(name));
	json_object_set_new(view, "want_png", json_boolean(rq->png));
	json_object_set_new(view, "want_pdf", json_boolean(rq->pdf));
	json_object_set_new(view, "experiment", json_string(exp_name));
	json_object_set_new(view, "title", json_string(title ? title :
				jsonutil_str(res, "title") ? jsonutil_str(res, "title") : exp_name));
	if (!xlabel)
		xlabel = xname ? xname : "";
	json_object_set_new(view, "xlabel", json_string(xlabel));
	if (!ylabel) {
		const char *what = yname ? yname : "time per operation";

		if (!yname && unit && (strstr(unit, "/s") || strstr(unit, "ps")))
			what = "throughput";
		else if (!yname && !(unit && (strcmp(unit, "ns") == 0 || strcmp(unit, "µs") == 0 ||
					      strcmp(unit, "us") == 0 || strcmp(unit, "ms") == 0 ||
					      strcmp(unit, "s") == 0)))
			what = "value";
		snprintf(name, sizeof name, "%s (%s)", what, unit && unit[0] ? unit : "probe unit");
		json_object_set_new(view, "ylabel", json_string(name));
	} else {
		json_object_set_new(view, "ylabel", json_string(ylabel));
	}
	json_object_set_new(view, "logx", isfinite(logx) && logx > 1 ? jfmt(logx) : json_null());
	json_object_set_new(view, "logy", isfinite(logy) && logy > 1 ? jfmt(logy) : json_null());
	/* a bar or two need no full-width picture */
	{
		int small = categorical && json_array_size(categories) * nseries <= 2;

		json_object_set_new(view, "png_size", json_string(small ? "640,380" : "960,560"));
		json_object_set_new(view, "pdf_size", json_string(small ? "4.2in,2.5in" : "6.2in,3.5in"));
	}
	json_object_set_new(view, "bar", json_boolean(bar));
	json_object_set_new(view, "line", json_boolean(!bar));
	json_object_set_new(view, "categorical", json_boolean(categorical));
	json_object_set_new(view, "xmin", jfmt(categorical ? -0.6 : xmin));
	json_object_set_new(view, "xmax", jfmt(categorical ? (double)json_array_size(categories) - 0.4 : xmax));
	json_object_set_new(view, "xtics", xtics);
	xtics = NULL;
	json_object_set_new(view, "rotate_xtics",
			    json_boolean(json_array_size(json_object_get(view, "xtics")) > 8));
	json_object_set_new(view, "series", sview);
	sview = NULL;
	json_object_set_new(view, "key", json_boolean(nseries > 1));
	{
		char *kt = NULL;

		if (json_array_size(series_params) > 0) {
			size_t klen = 0;
			FILE *kf = open_memstream(&kt, &klen);

			json_array_foreach(series_params, i, v)
				fprintf(kf, "%s%s", i ? ", " : "", json_string_value(v));
			fclose(kf);
		}
		json_object_set_new(view, "key_title", json_string(kt ? kt : ""));
		free(kt);
	}

	script = template_render_file("chart.gp", view, TEMPLATE_GP, rq->template_dirs, err, errlen);
	if (!script)
		goto out;
	snprintf(name, sizeof name, "%s/charts", rq->run_dir);
	snprintf(lbl, sizeof lbl, "%s.dat", rq->base);
	if (chart_write_file(name, lbl, dat, datlen) < 0) {
		strf(err, errlen, "chart '%s': cannot write %s/%s: %s", exp_name, name, lbl,
		       strerror(errno));
		goto out;
	}
	snprintf(lbl, sizeof lbl, "%s.gp", rq->base);
	if (chart_write_file(name, lbl, script, strlen(script)) < 0) {
		strf(err, errlen, "chart '%s': cannot write %s/%s: %s", exp_name, name, lbl,
		       strerror(errno));
		goto out;
	}
	rc = 1;
	goto out;
oom:
	strf(err, errlen, "chart '%s': out of memory", exp_name);
out:
	if (f)
		fclose(f);
	free(dat);
	free(script);
	free(cp);
	json_decref(view);
	json_decref(swept);
	json_decref(series_names);
	json_decref(series_params);
	json_decref(categories);
	json_decref(xtics);
	json_decref(sview);
	return rc;
}
