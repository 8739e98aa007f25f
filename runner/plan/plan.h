/*
 * plan.h - the plan stage (design §5.2): every transformation of specs into
 * points.  Which spec files a command line names, each spec's `quick:`
 * profile, --set, --filter, the `subtract:` targets pulled in, binding to
 * the probe's table, --quick's cut, the sweep expanded into points, and the
 * order the experiments run in (subtract: targets first).
 *
 * The probe itself is opened by the caller (exec/loader.h is a later stage);
 * plan_bind takes its table.
 */
#ifndef SYSMETER_PLAN_H
#define SYSMETER_PLAN_H

#include <stddef.h>
#include "spec/spec.h"

/* The command line's say in the plan. */
struct plan_opts {
	char *const *sets; size_t n_sets;	/* --set EXP.KEY=VALUE ('*' = every experiment) */
	char *const *filters; size_t n_filters;	/* --filter GLOB on experiment names */
	int quick;				/* --quick */
	/* check: a file that does not load is said (in err) and left out, and
	   the others go on to be checked; *n_bad counts them (may be NULL). */
	int keep_going; size_t *n_bad;
};

/* Expand the command line's paths: a directory means its *.yaml (*.yml)
   files in name order; a file is taken as it is (spec_load reports it if
   unreadable).  -1 with "DIR: cannot read: ..." or "DIR: no specs (*.yaml)
   found" in err.  Free the list with plan_files_free. */
int plan_collect(char *const *paths, size_t npaths, char ***files, size_t *nfiles,
		 char *err, size_t errlen);
void plan_files_free(char **files, size_t n);

/* Load the specs of a run: each file (with its `quick:` profile applied
   under --quick; two specs of one name are an error), then --set, then
   --filter, then the `subtract:` targets of the selected experiments, from
   the run or from a spec file of that name beside the user's spec.  The
   specs come back unbound, in file order, dependencies pulled in last.
   -1 with the message in err (nothing to free). */
int plan_specs(char *const *files, size_t nfiles, const struct plan_opts *o,
	       struct spec **specs, size_t *n, char *err, size_t errlen);
void plan_specs_free(struct spec *specs, size_t n);

/* plan_collect of the paths, then plan_specs of the files found: the
   specs a command line names.  -1 with the message in err (nothing to
   free). */
int plan_load(char *const *paths, size_t npaths, const struct plan_opts *o, struct spec **specs,
	      size_t *n, char *err, size_t errlen);

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

/* Bind s to its probe's table and expand it: the spec's quick profile is
   checked on a copy first (so its errors name its own lines, quick run or
   not), then spec_bind, plan_quick under --quick, plan_points. */
int plan_bind(struct spec *s, const struct probe *p, int quick, struct plan_point **pts,
	      size_t *npts, char *err, size_t errlen);

/* --quick: shrink a spec to a smoke profile (few repetitions, short samples,
   each swept axis cut to at most `max_vals` values: first, middle, last ...). */
void plan_quick(struct spec *s);

/* Order specs so that every `subtract:` target runs before its users.
   order[] receives indices into specs[].  Unknown targets and cycles are
   errors naming file:line:col of the subtract entry. */
int plan_order(struct spec **specs, size_t n, size_t *order, char *err, size_t errlen);

/* Does point pt of bound spec s hold every value of where (w[0..nw))?
   Numbers compare to a relative 1e-9, texts exactly. */
int plan_where_matches(const struct spec *s, const struct spec_where *w, size_t nw,
		       const struct plan_point *pt);

#endif
