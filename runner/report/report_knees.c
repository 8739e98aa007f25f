/*
 * report_knees.c - the knees finding in the view (report_knees.h).
 */
#include "report/report_knees.h"
#include "report/report_points.h"
#include "report/report_view.h"
#include "lib/jsonutil.h"
#include "lib/units.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "L1 32 KiB, L2 1 MiB, L3 32 MiB": the data/unified caches sysfs lists. */
static json_t *vsysfs_all(json_t *sysfs)
{
	char *buf = NULL, sz[64];
	size_t len = 0, i, n = 0;
	FILE *f = open_memstream(&buf, &len);
	json_t *sf, *out;

	json_array_foreach(sysfs, i, sf) {
		const char *type = jsonutil_str(sf, "type");

		if (type && strcmp(type, "Instruction") == 0)
			continue;
		report_view_size_text(jsonutil_num(sf, "size_bytes"), sz, sizeof sz);
		fprintf(f, "%sL%.0f %s", n++ ? ", " : "", jsonutil_num(sf, "level"), sz);
	}
	fclose(f);
	out = report_view_line(n ? buf : REPORT_VIEW_DASH);
	free(buf);
	return out;
}

/* The points of one knees series, sorted by x: x (bytes) and y (probe
   unit), the measured sizes a knee lies between. */
struct curve {
	double *x, *y;
	size_t n;
};

/* Whether point pt belongs to the series `key`: "all", or "a=1,b=2" (the
   other swept parameters' texts, results/analyze.c). */
static int in_series(json_t *pt, const char *key, const char *sparam)
{
	json_t *txt = json_object_get(pt, "params_text");
	char buf[1024], *save = NULL, *tok;

	if (strcmp(key, "all") == 0)
		return 1;
	snprintf(buf, sizeof buf, "%s", key);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		const char *v;

		if (!eq) {	/* an older key: the series parameter's value alone */
			v = sparam ? jsonutil_str(txt, sparam) : NULL;
			if (!v || strcmp(v, tok) != 0)
				return 0;
			continue;
		}
		*eq = '\0';
		v = jsonutil_str(txt, tok);
		if (!v || strcmp(v, eq + 1) != 0)
			return 0;
	}
	return 1;
}

static void curve_of(json_t *points, const char *key, const char *sparam, const char *xname,
		     struct curve *c)
{
	json_t *pt;
	size_t i;

	c->n = 0;
	c->x = calloc(json_array_size(points) + 1, sizeof *c->x);
	c->y = calloc(json_array_size(points) + 1, sizeof *c->y);
	if (!c->x || !c->y)
		return;
	json_array_foreach(points, i, pt) {
		double x = jsonutil_num(json_object_get(pt, "params"), xname);
		double y = jsonutil_num(pt, "estimate");

		if (!jsonutil_str(pt, "status") || strcmp(jsonutil_str(pt, "status"), "ok") != 0 ||
		    !isfinite(x) || !isfinite(y) || !in_series(pt, key, sparam))
			continue;
		c->x[c->n] = x;
		c->y[c->n++] = y;
	}
	for (i = 1; i < c->n; i++)
		for (size_t j = i; j > 0 && c->x[j - 1] > c->x[j]; j--) {
			double t = c->x[j]; c->x[j] = c->x[j - 1]; c->x[j - 1] = t;
			t = c->y[j]; c->y[j] = c->y[j - 1]; c->y[j - 1] = t;
		}
}

/* A knee between two measured sizes more than this apart is given as the
   bracket, not as its interpolated size: a log-log interpolation between
   32 KiB and 1 MiB is a guess with three false digits. */
#define KNEE_BRACKET 2.01

/* The measured sizes either side of x: *lo <= x <= *hi (NAN when none). */
static void bracket(const struct curve *c, double x, double *lo, double *hi)
{
	*lo = *hi = NAN;
	for (size_t i = 0; i < c->n; i++) {
		if (c->x[i] <= x)
			*lo = c->x[i];
		if (c->x[i] >= x && !isfinite(*hi))
			*hi = c->x[i];
	}
}

/* One found level, with the size sysfs gives for the same level; the knee
   as a bracket when the measured sizes around it are far apart, and then
   the note says what that bracket can and cannot tell. */
static json_t *level_row(json_t *lvl, json_t *sysfs, const struct curve *c,
			 const struct report_unit *d)
{
	json_t *r = json_object(), *sf;
	const char *name = jsonutil_str(lvl, "name");
	double lat = jsonutil_num(lvl, "latency");
	size_t j;
	int level = 0;

	double knee = jsonutil_num(lvl, "knee_bytes");
	const char *note = jsonutil_str(lvl, "note");

	report_view_put(r, "found", json_true());
	report_view_put(r, "level", report_view_line(name ? name : "?"));
	/* the knee (where the curve has risen a level's 1.5x) where there is
	   one: a cache of that size is full there */
	double lo, hi, sfb = jsonutil_num(lvl, "sysfs_bytes");

	if (name && (name[0] == 'L' || name[0] == 'l'))
		level = atoi(name + 1);
	json_array_foreach(sysfs, j, sf) {
		const char *type = jsonutil_str(sf, "type");

		if (level > 0 && jsonutil_num(sf, "level") == level &&
		    (!type || strcmp(type, "Instruction") != 0)) {
			sfb = jsonutil_num(sf, "size_bytes");
			break;
		}
	}
	bracket(c, knee, &lo, &hi);
	if (isfinite(knee) && isfinite(lo) && isfinite(hi) && hi / lo > KNEE_BRACKET) {
		char a[64], b[64], s[64];
		const char *why = note ? strstr(note, " reported: ") : NULL;

		report_view_size_text(lo, a, sizeof a);
		report_view_size_text(hi, b, sizeof b);
		report_view_size_text(sfb, s, sizeof s);
		report_view_put(r, "size", report_view_strf("between %s and %s", a, b));
		if (isfinite(sfb) && sfb >= lo && sfb <= hi)
			report_view_put(r, "note", report_view_strf(
				"the %s reported lies in that bracket: measure sizes between %s and %s "
				"to place the knee", s, a, b));
		else if (isfinite(sfb) && why)
			report_view_put(r, "note", report_view_strf("between %s and %s here against %s%s",
								     a, b, s, why));
		else
			report_view_put(r, "note", report_view_line(note ? note : ""));
	} else {
		report_view_put(r, "size", report_view_size(isfinite(knee) ? knee
									 : jsonutil_num(lvl, "size_bytes")));
		report_view_put(r, "note", report_view_line(note ? note : ""));
	}
	report_view_put(r, "latency", report_view_num_unit(lat * d->scale, d->label));
	report_view_put(r, "cycles", isfinite(d->cyc) ? report_view_num(lat * d->cyc) : report_view_str(REPORT_VIEW_DASH));
	report_view_put(r, "sysfs", level > 0 && isfinite(sfb) ? report_view_size(sfb)
							   : report_view_str(REPORT_VIEW_DASH));
	return r;
}

/* The Memory row of a series whose curve has no DRAM plateau: "not
   reached" only when no measured point is at DRAM latency; a curve that
   got there in its last point(s) reached memory without a plateau, and
   the row gives that point. */
static json_t *memory_row(const struct curve *c, double ns_unit, const struct report_unit *d)
{
	json_t *r = json_object();
	double ymax = -INFINITY, xmax = NAN, xlast = c->n ? c->x[c->n - 1] : NAN;
	char sz[64], lat[64];

	for (size_t i = 0; i < c->n; i++)
		if (c->y[i] > ymax) {
			ymax = c->y[i];
			xmax = c->x[i];
		}
	report_view_put(r, "level", report_view_str("Memory"));
	report_view_put(r, "sysfs", report_view_str(REPORT_VIEW_DASH));
	if (c->n && isfinite(ns_unit) && ymax * ns_unit >= REPORT_KNEES_DRAM_NS) {
		report_view_size_text(xmax, sz, sizeof sz);
		report_view_put(r, "found", json_true());
		report_view_put(r, "plateau", json_false());
		report_view_put(r, "size", report_view_strf("%s, the largest measured", sz));
		report_view_put(r, "latency", report_view_num_unit(ymax * d->scale, d->label));
		report_view_put(r, "cycles", isfinite(d->cyc) ? report_view_num(ymax * d->cyc)
							     : report_view_str(REPORT_VIEW_DASH));
		report_view_put(r, "note", report_view_strf(
			"reached: DRAM latency (%d ns or more) at %s, but no plateau of two points "
			"(sweep larger sizes to measure it)", REPORT_KNEES_DRAM_NS, sz));
		return r;
	}
	report_view_put(r, "found", json_false());
	report_view_put(r, "size", report_view_str("not reached"));
	report_view_put(r, "latency", report_view_str(REPORT_VIEW_DASH));
	report_view_put(r, "cycles", report_view_str(REPORT_VIEW_DASH));
	if (c->n && isfinite(ns_unit)) {
		report_view_size_text(xlast, sz, sizeof sz);
		units_format_number(c->y[c->n - 1] * d->scale, lat, sizeof lat);
		report_view_put(r, "note", report_view_strf(
			"the largest size measured, %s, took %s %s: below DRAM latency (%d ns or more)",
			sz, lat, d->label, REPORT_KNEES_DRAM_NS));
	} else {
		report_view_put(r, "note", report_view_strf("no point at DRAM latency (%d ns or more) "
							    "within the sizes measured", REPORT_KNEES_DRAM_NS));
	}
	return r;
}

json_t *report_knees_view(json_t *knees, json_t *res, const struct report_unit *d)
{
	json_t *spec = json_object_get(res, "spec"), *points = json_object_get(res, "points");
	json_t *out = json_array(), *series = json_object_get(knees, "series"), *s;
	double ns_unit = NAN;
	const char *key, *sparam = jsonutil_str(json_object_get(spec, "chart"), "series");
	const char *kparam = jsonutil_str(knees, "param");
	json_t *swept = report_points_swept(spec);
	size_t i;

	/* what the series values are values of: the chart's series, else the
	   first swept parameter that is not the knees' own */
	if (!sparam) {
		json_t *n;

		json_array_foreach(swept, i, n)
			if (!kparam || strcmp(json_string_value(n), kparam) != 0) {
				sparam = json_string_value(n);
				break;
			}
	}
	if (!units_is_time(jsonutil_str(json_object_get(res, "probe"), "unit"), &ns_unit))
		ns_unit = NAN;
	json_object_foreach(series, key, s) {
		json_t *k = json_object(), *rows = json_array(), *lvl;
		json_t *sysfs = json_object_get(s, "sysfs");
		struct curve c;

		curve_of(points, key, sparam, kparam ? kparam : "size", &c);

		/* keys are "64" or already "stride=64" */
		report_view_put(k, "series", sparam && !strchr(key, '=') ?
			 report_view_strf("%s=%s", sparam, key) : report_view_line(key));
		json_array_foreach(json_object_get(s, "levels"), i, lvl)
			jsonutil_append(rows, level_row(lvl, sysfs, &c, d));
		json_array_foreach(json_object_get(s, "missing"), i, lvl) {
			json_t *r = json_object();

			report_view_put(r, "found", json_false());
			report_view_put(r, "level", report_view_strf("L%.0f", jsonutil_num(lvl, "level")));
			report_view_put(r, "size", report_view_str("not found"));
			report_view_put(r, "latency", report_view_str(REPORT_VIEW_DASH));
			report_view_put(r, "cycles", report_view_str(REPORT_VIEW_DASH));
			report_view_put(r, "sysfs", report_view_size(jsonutil_num(lvl, "size_bytes")));
			report_view_put(r, "note", report_view_str("no plateau of its own on this curve"));
			jsonutil_append(rows, r);
		}
		if (json_is_false(json_object_get(s, "memory_reached")) && json_array_size(rows))
			jsonutil_append(rows, memory_row(&c, ns_unit, d));
		if (json_array_size(rows) == 0) {
			json_t *r = json_object();

			report_view_put(r, "found", json_false());
			report_view_put(r, "level", report_view_str("no knee found"));
			report_view_put(r, "size", report_view_str(REPORT_VIEW_DASH));
			report_view_put(r, "latency", report_view_str(REPORT_VIEW_DASH));
			report_view_put(r, "cycles", report_view_str(REPORT_VIEW_DASH));
			report_view_put(r, "sysfs", vsysfs_all(sysfs));
			report_view_put(r, "note", report_view_str(""));
			jsonutil_append(rows, r);
		}
		report_view_put(k, "rows", rows);
		jsonutil_append(out, k);
		free(c.x);
		free(c.y);
	}
	json_decref(swept);
	return out;
}
