/*
 * models_specs.h - the current specs of `runner models` (private to
 * models/): loaded and bound to their probes as a run would, and the
 * prediction each gives a recorded point.
 */
#ifndef SYSMETER_MODELS_SPECS_H
#define SYSMETER_MODELS_SPECS_H

#include <stddef.h>
#include <jansson.h>

#include "exec/loader.h"
#include "plan/plan.h"

struct models_spec {
	struct spec spec;
	struct loaded_probe lp;
	int probe_ok;			/* else probe_err says why */
	char probe_err[512];
	struct plan_point *pts; size_t n_pts;	/* the full plan (no --quick, no --set) */
};

struct models_specs {
	struct models_spec *e; size_t n;
};

/* Every spec of dir, checked and bound to its probe: EXIT_OK, or EXIT_USAGE
   with the message said (a spec's file:line:col, an unknown probe, a folder
   without specs).  A probe that is found but does not load leaves its spec
   unbound (probe_ok 0): its points are not judged. */
int models_specs_load(const char *dir, struct models_specs *ms);
void models_specs_free(struct models_specs *ms);

/* The spec called name, or NULL. */
const struct models_spec *models_specs_find(const struct models_specs *ms, const char *name);

/* The `prediction` object the spec gives a recorded point now, as
   results_point would record it (a formula is evaluated afterwards by
   results_predict): the point is found in the spec's plan by its
   parameters, then the first predict: entry whose where: holds and whose
   machine: names the run's machine (its CPU model or host name), else the
   first for '*'.  json null with *why set when there is none. */
json_t *models_spec_prediction(const struct models_spec *m, const json_t *point,
			       const json_t *machine, const char **why);

#endif
