/*
 * report_unit.c - choosing the unit an experiment's tables show
 * (report_unit.h).
 */
#include "report/report_unit.h"
#include "lib/jsonutil.h"
#include "lib/strf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double time_unit_ns(const char *u)
{
	if (!u)
		return NAN;
	if (strcmp(u, "ns") == 0)
		return 1;
	if (strcmp(u, "us") == 0 || strcmp(u, "\xc2\xb5s") == 0 || strcmp(u, "\xce\xbcs") == 0)
		return 1e3;
	if (strcmp(u, "ms") == 0)
		return 1e6;
	if (strcmp(u, "s") == 0)
		return 1e9;
	return NAN;
}

static double rate_unit_bps(const char *u)
{
	static const struct { const char *u; double f; } r[] = {
		{"B/s", 1}, {"bytes/s", 1}, {"KB/s", 1e3}, {"kB/s", 1e3},
		{"MB/s", 1e6}, {"GB/s", 1e9}, {"TB/s", 1e12} };
	size_t i;

	for (i = 0; u && i < sizeof r / sizeof r[0]; i++)
		if (strcmp(u, r[i].u) == 0)
			return r[i].f;
	return NAN;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median |estimate| over ok points: what the unit is chosen for. */
static double typical_value(json_t *points)
{
	size_t i, n = 0;
	double *v = calloc(json_array_size(points) + 1, sizeof *v), med = NAN;
	json_t *pt;

	if (!v)
		return NAN;
	json_array_foreach(points, i, pt) {
		double e = jsonutil_num(pt, "estimate");

		if (isfinite(e))
			v[n++] = fabs(e);
	}
	if (n) {
		qsort(v, n, sizeof *v, cmp_double);
		med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	}
	free(v);
	return med;
}

/* The unit that puts the typical value (in probe units) between 1 and
   1000. */
void report_unit_pick(const char *probe_unit, json_t *points, double tsc_hz,
		      struct report_unit *d)
{
	double ns = time_unit_ns(probe_unit), bps = rate_unit_bps(probe_unit);
	double ref = typical_value(points);

	memset(d, 0, sizeof *d);
	d->scale = 1;
	d->cyc = NAN;
	strf(d->label, sizeof d->label, "%s", probe_unit ? probe_unit : "");
	if (!isfinite(ref) || ref == 0)
		ref = 1;
	ref = fabs(ref);
	if (isfinite(ns)) {
		static const struct { double ns; const char *l; } t[] = {
			{1, "ns"}, {1e3, "\xc2\xb5s"}, {1e6, "ms"}, {1e9, "s"} };
		size_t i = 0;

		while (i < 3 && ref * ns >= t[i + 1].ns)
			i++;
		d->scale = ns / t[i].ns;
		strf(d->label, sizeof d->label, "%s", t[i].l);
		d->is_time = 1;
		if (isfinite(tsc_hz) && tsc_hz > 0)
			d->cyc = ns * tsc_hz / 1e9;
	} else if (isfinite(bps)) {
		static const struct { double f; const char *l; } t[] = {
			{1, "B/s"}, {1e3, "KB/s"}, {1e6, "MB/s"}, {1e9, "GB/s"}, {1e12, "TB/s"} };
		size_t i = 0;

		while (i < 4 && ref * bps >= t[i + 1].f)
			i++;
		d->scale = bps / t[i].f;
		strf(d->label, sizeof d->label, "%s", t[i].l);
	}
}
