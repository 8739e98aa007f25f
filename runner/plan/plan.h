/*
 * plan.h - expand a bound spec's axes into points (cross or zip), and the
 * run-wide plan: which specs, in what order (subtract: dependencies first).
 */
#ifndef SYSMETER_PLAN_H
#define SYSMETER_PLAN_H

#include <stddef.h>
#include "spec/spec.h"

struct plan_point {
	size_t index;
	const struct spec_val **vals;	/* one per probe parameter, table order */
};

/* Expand s's axes.  cross: cartesian product, the first parameter in the
   table varying slowest; zip: all swept axes must have equal length.
   Errors name the spec file and the `sweep:` key. */
int plan_points(const struct spec *s, struct plan_point **pts, size_t *n,
		char *err, size_t errlen);
void plan_points_free(struct plan_point *pts, size_t n);

/* --quick: shrink a spec to a smoke profile (few repetitions, short samples,
   each swept axis cut to at most `max_vals` values: first, middle, last ...). */
void plan_quick(struct spec *s);

/* Order specs so that every `subtract:` target runs before its users.
   order[] receives indices into specs[].  Unknown targets and cycles are
   errors naming file:line:col of the subtract entry. */
int plan_order(struct spec **specs, size_t n, size_t *order, char *err, size_t errlen);

#endif
