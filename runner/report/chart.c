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
			jsonutil_append(out, jsonutil_text(key));
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
	return jsonutil_text(buf);
}

/* One chart being made: what the result and the spec's `chart:` say, then
   the points, the data file and the template's view built from them. */
struct chart {
	const struct chart_request *rq;
	json_t *res, *cspec, *points;
	json_t *swept;			/* swept parameter names */
	json_t *series_params;		/* the parameters that make a series */
	json_t *series_names, *categories;	/* as met in the points */
	const char *xname, *yname;	/* yname NULL: the estimate */
	const char *xtype, *unit, *exp_name;
	double scale, logx, logy, xmin, xmax;
	int categorical, bar, nseries;
	struct cpoint *cp; size_t ncp;
	char *dat; size_t datlen;	/* charts/<base>.dat */
};

/* x, the series, bars or lines, y and its unit. */
static void choose_axes(struct chart *c)
{
	json_t *res = c->res, *p0 = json_object_get(json_array_get(c->points, 0), "params"), *v;
	const char *probe_unit = jsonutil_str(json_object_get(res, "probe"), "unit");
	const char *kind = jsonutil_str(c->cspec, "kind");
	size_t i;

	/* x: the spec's, else the first swept parameter; a name no point has
	   (a spec typo the checker let through) falls back to the default */
	c->xname = jsonutil_str(c->cspec, "x");
	if (c->xname && !json_object_get(p0, c->xname))
		c->xname = NULL;
	if (!c->xname && json_array_size(c->swept) > 0)
		c->xname = json_string_value(json_array_get(c->swept, 0));
	/* series: the spec's parameter first, then every other swept
	   parameter but x: points that differ in a swept choice are never
	   joined into one line (file_read's sequential and random, under the
	   spec's `series: cache`, would draw one zig-zag) */
	const char *sp = jsonutil_str(c->cspec, "series");

	if (sp && (!c->xname || strcmp(sp, c->xname) != 0))
		jsonutil_append(c->series_params, jsonutil_text(sp));
	json_array_foreach(c->swept, i, v)
		if ((!c->xname || strcmp(json_string_value(v), c->xname) != 0) &&
		    (!sp || strcmp(json_string_value(v), sp) != 0))
			json_array_append(c->series_params, v);
	if (c->xname)
		c->xtype = param_type(res, c->xname);
	/* strings, and any x drawn as bars, go on evenly spaced categories */
	c->categorical = !c->xname || json_is_string(json_object_get(p0, c->xname));
	c->bar = kind ? strcmp(kind, "bar") == 0 : c->categorical;
	c->categorical = c->categorical || c->bar;

	/* y: the estimate (with its CI), or a secondary metric's median */
	c->yname = jsonutil_str(c->cspec, "y");
	if (c->yname && strcmp(c->yname, "estimate") != 0) {
		json_t *metrics = json_object_get(json_object_get(res, "probe"), "metrics"), *m;
		const char *munit = NULL;

		json_array_foreach(metrics, i, m)
			if (jsonutil_str(m, "name") && strcmp(jsonutil_str(m, "name"), c->yname) == 0)
				munit = jsonutil_str(m, "unit");
		/* a metric in another unit than the probe's is shown as is */
		if (!munit || strcmp(munit, probe_unit ? probe_unit : "") != 0) {
			c->scale = 1;
			c->unit = munit ? munit : "";
		}
	} else {
		c->yname = NULL;
	}
	/* a spec's ylabel was written for the probe's own unit */
	if (jsonutil_str(c->cspec, "ylabel") && !c->yname) {
		c->scale = 1;
		c->unit = probe_unit;
	}
}

/* The label of a categorical point: x's text, else every swept value, else
   (a single point) the experiment.  NULL when out of memory. */
static char *category_of(const struct chart *c, json_t *pt)
{
	char *cat = c->xname ? strdup(point_param_text(pt, c->xname)) : key_of(pt, c->swept, 1);

	if (cat && !cat[0]) {
		free(cat);
		cat = strdup(jsonutil_str(c->res, "title") ? jsonutil_str(c->res, "title")
							    : c->exp_name);
	}
	return cat;
}

/* Index of s in arr, appended when new. */
static int intern(json_t *arr, const char *s)
{
	int k = index_of(arr, s);

	if (k >= 0)
		return k;
	jsonutil_append(arr, jsonutil_text(s));
	return (int)json_array_size(arr) - 1;
}

/* A point's y, CI, x and series into *out.  Returns 1, 0 to leave it out
   (failed, no value, no x), -1 when out of memory. */
static int chart_point(struct chart *c, json_t *pt, struct cpoint *out)
{
	json_t *ci = json_object_get(pt, "ci");
	struct cpoint p;

	if (!jsonutil_str(pt, "status") || strcmp(jsonutil_str(pt, "status"), "ok") != 0)
		return 0;
	if (c->yname) {
		p.y = jsonutil_num(json_object_get(json_object_get(pt, "extra"), c->yname), "median");
		p.lo = p.hi = p.y;
	} else {
		p.y = jsonutil_num(pt, "estimate");
		p.lo = json_is_number(json_array_get(ci, 0)) ? json_number_value(json_array_get(ci, 0))
							      : p.y;
		p.hi = json_is_number(json_array_get(ci, 1)) ? json_number_value(json_array_get(ci, 1))
							      : p.y;
	}
	if (!isfinite(p.y))
		return 0;
	p.y *= c->scale;
	p.lo = isfinite(p.lo) ? p.lo * c->scale : p.y;
	p.hi = isfinite(p.hi) ? p.hi * c->scale : p.y;
	if (c->categorical) {
		char *cat = category_of(c, pt);
		if (!cat)
			return -1;
		p.x = intern(c->categories, cat);
		free(cat);
	} else {
		p.x = jsonutil_num(json_object_get(pt, "params"), c->xname);
		if (!isfinite(p.x))
			return 0;
	}
	char *skey = key_of(pt, c->series_params, json_array_size(c->series_params) > 1);
	if (!skey)
		return -1;
	p.series = intern(c->series_names, skey);
	free(skey);
	*out = p;
	return 1;
}

/* Every drawable point, sorted by series and x.  -1 when out of memory. */
static int collect_points(struct chart *c)
{
	json_t *pt;
	size_t i;

	c->xmin = INFINITY;
	c->xmax = -INFINITY;
	c->cp = calloc(json_array_size(c->points) + 1, sizeof *c->cp);
	if (!c->cp)
		return -1;
	json_array_foreach(c->points, i, pt) {
		int r = chart_point(c, pt, &c->cp[c->ncp]);
		if (r < 0)
			return -1;
		if (r == 0)
			continue;
		if (c->cp[c->ncp].x < c->xmin)
			c->xmin = c->cp[c->ncp].x;
		if (c->cp[c->ncp].x > c->xmax)
			c->xmax = c->cp[c->ncp].x;
		c->ncp++;
	}
	qsort(c->cp, c->ncp, sizeof *c->cp, cmp_cpoint);
	c->nseries = (int)json_array_size(c->series_names);
	return 0;
}

/* Defaults (0 or absent: the spec did not say): log x for a geometric
   sweep over a wide range, log y when values span two decades, where a
   linear axis would flatten the small ones to nothing. */
static void choose_log(struct chart *c)
{
	if (!(c->logx > 1) && !c->categorical && c->xmin > 0 && c->xmax / c->xmin >= 64)
		c->logx = c->xtype && strcmp(c->xtype, "size") == 0 ? 2 : 10;
	if (c->categorical)
		c->logx = NAN;
	if (!(c->logy > 1)) {
		double ymin = INFINITY, ymax = -INFINITY;

		for (size_t i = 0; i < c->ncp; i++) {
			if (c->cp[i].lo < ymin)
				ymin = c->cp[i].lo;
			if (c->cp[i].hi > ymax)
				ymax = c->cp[i].hi;
		}
		c->logy = ymin > 0 && ymax / ymin >= 100 ? 10 : NAN;
	}
}

/* The data file: one block per series, blocks apart by two blank lines so
   that `index N` picks one; comments are the only text.  -1 when out of
   memory. */
static int write_dat(struct chart *c)
{
	FILE *f = open_memstream(&c->dat, &c->datlen);
	size_t i = 0;

	if (!f)
		return -1;
	fprintf(f, "# charts/%s.dat: generated by sysmeter from the run's results\n", c->rq->base);
	fprintf(f, "# columns: x y ci_low ci_high bar_width\n");
	for (size_t j = 0; j < (size_t)c->nseries; j++) {
		double width = c->bar ? 0.8 / c->nseries : 0;
		const char *sname = json_string_value(json_array_get(c->series_names, j));

		if (j)
			fputs("\n\n", f);
		/* a comment line must stay one line: no newline, no final
		   backslash (which would continue it) */
		fputs("# series: ", f);
		for (; *sname; sname++)
			fputc(*sname == '\n' || *sname == '\r' || (*sname == '\\' && !sname[1]) ?
			      ' ' : *sname, f);
		fputc('\n', f);
		for (; i < c->ncp && c->cp[i].series == (int)j; i++) {
			double x = c->cp[i].x;

			if (c->bar && c->categorical)
				x += (j - (c->nseries - 1) / 2.0) * width;
			fprintf(f, "%.10g %.10g %.10g %.10g %.10g\n", x, c->cp[i].y, c->cp[i].lo,
				c->cp[i].hi, width);
		}
	}
	return fclose(f) != 0 ? -1 : 0;
}

/* A tick label for x of the given parameter type: sizes and times in
   readable units. */
static void tick_label(const char *xtype, double x, char *lbl, size_t len)
{
	static const struct { double f; const char *u; } tu[] = {
		{1, "s"}, {1e3, "ms"}, {1e6, "µs"}, {1e9, "ns"} };
	char num[64];
	size_t k = 0;

	if (strcmp(xtype, "size") == 0) {
		units_format_size_short(x, lbl, len);
	} else if (strcmp(xtype, "time") == 0) {
		while (k < 3 && fabs(x) * tu[k].f < 1)
			k++;
		units_format_number(x * tu[k].f, num, sizeof num);
		snprintf(lbl, len, "%s%s", num, tu[k].u);
	} else {
		snprintf(lbl, len, "%.10g", x);
	}
}

/* Ticks: categories by name; numeric x at the data values when there are
   few enough (at most CHART_MAX_TICKS, else every step-th).  NULL when out
   of memory. */
static json_t *make_xtics(const struct chart *c)
{
	json_t *xtics = json_array(), *v;
	char lbl[256];
	size_t i, j;

	if (!xtics)
		return NULL;
	if (c->categorical) {
		json_array_foreach(c->categories, i, v) {
			json_t *t = json_object();

			json_object_set(t, "label", v);
			jsonutil_set(t, "pos", jfmt((double)i));
			jsonutil_append(xtics, t);
		}
		return xtics;
	}
	if (!c->xtype || !(strcmp(c->xtype, "size") == 0 || strcmp(c->xtype, "time") == 0 ||
			   strcmp(c->xtype, "int") == 0))
		return xtics;
	double *xs = calloc(c->ncp, sizeof *xs);
	size_t nx = 0, step;

	if (!xs) {
		json_decref(xtics);
		return NULL;
	}
	for (i = 0; i < c->ncp; i++) {
		for (j = 0; j < nx && xs[j] != c->cp[i].x; j++)
			;
		if (j == nx)
			xs[nx++] = c->cp[i].x;
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

		tick_label(c->xtype, xs[i], lbl, sizeof lbl);
		jsonutil_set(t, "label", jsonutil_text(lbl));
		jsonutil_set(t, "pos", jfmt(xs[i]));
		jsonutil_append(xtics, t);
	}
	free(xs);
	return xtics;
}

/* The y label the spec did not give: what is drawn, and its unit. */
static json_t *default_ylabel(const struct chart *c)
{
	const char *what = c->yname ? c->yname : "time per operation", *unit = c->unit;
	char buf[512];

	if (!c->yname && unit && (strstr(unit, "/s") || strstr(unit, "ps")))
		what = "throughput";
	else if (!c->yname && !(unit && (strcmp(unit, "ns") == 0 || strcmp(unit, "µs") == 0 ||
					 strcmp(unit, "us") == 0 || strcmp(unit, "ms") == 0 ||
					 strcmp(unit, "s") == 0)))
		what = "value";
	snprintf(buf, sizeof buf, "%s (%s)", what, unit && unit[0] ? unit : "probe unit");
	return jsonutil_text(buf);
}

/* "stride, op": the parameters that make the series, for the key's title. */
static json_t *key_title(const struct chart *c)
{
	char *kt = NULL;
	size_t klen = 0, i;
	json_t *v, *j;

	if (json_array_size(c->series_params) > 0) {
		FILE *kf = open_memstream(&kt, &klen);

		json_array_foreach(c->series_params, i, v)
			fprintf(kf, "%s%s", i ? ", " : "", json_string_value(v));
		fclose(kf);
	}
	j = jsonutil_text(kt ? kt : "");
	free(kt);
	return j;
}

/* The file names and the template's view of the chart (docs/templates.md).
   Takes xtics' reference.  NULL when out of memory. */
static json_t *chart_view(const struct chart *c, json_t *xtics)
{
	const struct chart_request *rq = c->rq;
	const char *title = jsonutil_str(c->cspec, "title"), *xlabel = jsonutil_str(c->cspec, "xlabel");
	const char *ylabel = jsonutil_str(c->cspec, "ylabel");
	const char *rtitle = jsonutil_str(c->res, "title");
	json_t *view = json_object(), *sview = json_array();
	char name[512];

	if (!view || !sview) {
		json_decref(view);
		json_decref(sview);
		json_decref(xtics);
		return NULL;
	}
	for (size_t j = 0; j < (size_t)c->nseries; j++)
		jsonutil_append(sview, json_pack("{s:I,s:s}", "index", (json_int_t)j, "title",
			json_string_value(json_array_get(c->series_names, j))));
	static const char *const files[][2] = {
		{"data", "dat"}, {"script", "gp"}, {"png", "png"}, {"pdf", "pdf"}, {"svg", "svg"} };
	for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
		snprintf(name, sizeof name, "charts/%s.%s", rq->base, files[k][1]);
		jsonutil_set(view, files[k][0], jsonutil_text(name));
	}
	jsonutil_set(view, "want_png", json_boolean(rq->png));
	jsonutil_set(view, "want_pdf", json_boolean(rq->pdf));
	jsonutil_set(view, "want_svg", json_boolean(rq->svg));
	jsonutil_set(view, "experiment", jsonutil_text(c->exp_name));
	jsonutil_set(view, "title", jsonutil_text(title ? title : rtitle ? rtitle : c->exp_name));
	jsonutil_set(view, "xlabel", jsonutil_text(xlabel ? xlabel : c->xname ? c->xname : ""));
	jsonutil_set(view, "ylabel", ylabel ? jsonutil_text(ylabel) : default_ylabel(c));
	jsonutil_set(view, "logx", isfinite(c->logx) && c->logx > 1 ? jfmt(c->logx) : json_null());
	jsonutil_set(view, "logy", isfinite(c->logy) && c->logy > 1 ? jfmt(c->logy) : json_null());
	/* a bar or two need no full-width picture */
	int small = c->categorical && json_array_size(c->categories) * c->nseries <= 2;
	jsonutil_set(view, "png_size", jsonutil_text(small ? "640,380" : "960,560"));
	jsonutil_set(view, "pdf_size", jsonutil_text(small ? "4.2in,2.5in" : "6.2in,3.5in"));
	/* pixels at the page's scale: the page shows it at most this wide */
	jsonutil_set(view, "svg_size", jsonutil_text(small ? "640,380" : "860,500"));
	jsonutil_set(view, "bar", json_boolean(c->bar));
	jsonutil_set(view, "line", json_boolean(!c->bar));
	jsonutil_set(view, "categorical", json_boolean(c->categorical));
	jsonutil_set(view, "xmin", jfmt(c->categorical ? -0.6 : c->xmin));
	jsonutil_set(view, "xmax", jfmt(c->categorical ?
		(double)json_array_size(c->categories) - 0.4 : c->xmax));
	jsonutil_set(view, "xtics", xtics);
	jsonutil_set(view, "rotate_xtics", json_boolean(json_array_size(xtics) > 8));
	jsonutil_set(view, "series", sview);
	jsonutil_set(view, "key", json_boolean(c->nseries > 1));
	jsonutil_set(view, "key_title", key_title(c));
	return view;
}

/* charts/<base>.dat and .gp.  Returns 1, or -1 with a message in err. */
static int write_files(const struct chart *c, const char *script, char *err, size_t errlen)
{
	const struct chart_request *rq = c->rq;
	char dir[512], file[256];

	snprintf(dir, sizeof dir, "%s/charts", rq->run_dir);
	snprintf(file, sizeof file, "%s.dat", rq->base);
	if (chart_write_file(dir, file, c->dat, c->datlen) < 0)
		goto fail;
	snprintf(file, sizeof file, "%s.gp", rq->base);
	if (chart_write_file(dir, file, script, strlen(script)) < 0)
		goto fail;
	return 1;
fail:
	strf(err, errlen, "chart '%s': cannot write %s/%s: %s", c->exp_name, dir, file,
	     strerror(errno));
	return -1;
}

int chart_write(const struct chart_request *rq, char *err, size_t errlen)
{
	struct chart c = {.rq = rq, .res = rq->result, .unit = rq->unit, .scale = rq->scale};
	json_t *view = NULL, *xtics;
	char *script = NULL;
	int rc = -1;

	c.cspec = json_object_get(json_object_get(c.res, "spec"), "chart");
	c.points = json_object_get(c.res, "points");
	c.exp_name = jsonutil_str(c.res, "experiment") ? jsonutil_str(c.res, "experiment") : rq->base;
	c.logx = jsonutil_num(c.cspec, "logx");
	c.logy = jsonutil_num(c.cspec, "logy");
	c.swept = swept_params(c.res);
	c.series_names = json_array();
	c.categories = json_array();
	c.series_params = json_array();
	if (!json_is_array(c.swept) || !json_is_array(c.series_names) ||
	    !json_is_array(c.categories) || !json_is_array(c.series_params))
		goto oom;
	choose_axes(&c);
	if (collect_points(&c) < 0)
		goto oom;
	if (c.ncp == 0) {
		rc = 0;
		goto out;
	}
	choose_log(&c);
	if (write_dat(&c) < 0 || !(xtics = make_xtics(&c)) || !(view = chart_view(&c, xtics)))
		goto oom;
	script = template_render_file("chart.gp", view, TEMPLATE_GP, rq->template_dirs, err, errlen);
	if (script)
		rc = write_files(&c, script, err, errlen);
	goto out;
oom:
	strf(err, errlen, "chart '%s': out of memory", c.exp_name);
out:
	free(c.dat);
	free(script);
	free(c.cp);
	json_decref(view);
	json_decref(c.swept);
	json_decref(c.series_names);
	json_decref(c.series_params);
	json_decref(c.categories);
	return rc;
}
