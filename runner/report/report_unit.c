/*
 * report_unit.c - choosing the unit an experiment's tables show
 * (report_unit.h).
 */
#include "report/report_unit.h"
#include "lib/jsonutil.h"
#include "lib/units.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* The unit that puts the typical value between 1 and 1000 (lib/units). */
void report_unit_pick(const char *probe_unit, json_t *points, double hz, int core,
		      struct report_unit *d)
{
	double ns;

	memset(d, 0, sizeof *d);
	d->scale = units_display(probe_unit, typical_value(points), d->label, sizeof d->label, &ns);
	d->is_time = isfinite(ns);
	/* cycles say something where an operation is a handful to thousands of
	   them; a whole program's billions (shown in ms or s) say nothing its
	   time does not */
	d->cyc = d->is_time && ns < 1e6 && isfinite(hz) && hz > 0 ? ns * hz / 1e9 : NAN;
	d->cyc_word = core ? "cycles" : "ticks";
}
