/*
 * models_specs.c - the current specs of `runner models`: loaded from the
 * folder as a run loads them (plan_collect, plan_specs), each bound to its
 * probe as found now (loader_open, command_vars_add, plan_bind: the full
 * plan), and the prediction each gives a point recorded in a run folder.
 * The entry is picked as results_point picks it (analyze.c), but for the
 * run's machine instead of the host `runner models` runs on.
 */
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/models_specs.h"
#include "results/results.h"
#include "lib/exitcode.h"
#include "lib/jsonutil.h"

int models_specs_load(const char *dir, struct models_specs *ms)
{
	struct plan_opts po = {0};
	struct spec *specs = NULL;
	char *paths[1] = {(char *)dir}, err[4096] = "";
	size_t n = 0;

	ms->e = NULL;
	ms->n = 0;
	if (plan_load(paths, 1, &po, &specs, &n, err, sizeof err) < 0) {
		fprintf(stderr, "runner: %s\n", err);
		return EXIT_USAGE;
	}
	ms->e = calloc(n + 1, sizeof *ms->e);
	if (!ms->e) {
		plan_specs_free(specs, n);
		fprintf(stderr, "runner: models: out of memory\n");
		return EXIT_INTERNAL;
	}
	for (size_t i = 0; i < n; i++)
		ms->e[i].spec = specs[i];	/* moved: ms owns it now */
	free(specs);
	ms->n = n;
	for (size_t i = 0; i < n; i++) {
		struct models_spec *m = &ms->e[i];
		struct spec *s = &m->spec;

		if (loader_open(s->probe, &m->lp, m->probe_err, sizeof m->probe_err) < 0) {
			/* an unknown probe is a spec error, as in a run */
			if (strstr(m->probe_err, "': not found in ")) {
				fprintf(stderr, "runner: %s:%d:%d: unknown probe '%s'\n", s->file,
					s->probe_pos.line, s->probe_pos.col, s->probe);
				return EXIT_USAGE;
			}
			continue;
		}
		m->probe_ok = 1;
		if (command_vars_add(&m->lp, s, err, sizeof err) < 0 ||
		    plan_bind(s, m->lp.p, 0, &m->pts, &m->n_pts, err, sizeof err) < 0) {
			fprintf(stderr, "runner: %s\n", err);
			return EXIT_USAGE;
		}
	}
	return EXIT_OK;
}

void models_specs_free(struct models_specs *ms)
{
	for (size_t i = 0; i < ms->n; i++) {
		if (ms->e[i].probe_ok)
			loader_close(&ms->e[i].lp);
		plan_points_free(ms->e[i].pts, ms->e[i].n_pts);
		spec_free(&ms->e[i].spec);
	}
	free(ms->e);
	ms->e = NULL;
	ms->n = 0;
}

const struct models_spec *models_specs_find(const struct models_specs *ms, const char *name)
{
	for (size_t i = 0; name && i < ms->n; i++)
		if (strcmp(ms->e[i].spec.name, name) == 0)
			return &ms->e[i];
	return NULL;
}

/* Does the recorded value of a parameter (its text, its JSON value) name
   the plan's value v?  Texts are normalised by the same binding; a number
   also matches by value (a folder written by an older runner). */
static int same_value(const struct probe_param *pp, const struct spec_val *v, const char *text,
		      const json_t *val)
{
	if (text && strcmp(text, v->text) == 0)
		return 1;
	if (pp->type == PROBE_STRING || !val)
		return 0;
	if (json_is_boolean(val))
		return json_is_true(val) == (v->num != 0);
	if (!json_is_number(val))
		return 0;
	return fabs(json_number_value(val) - v->num) <= 1e-9 * fmax(1.0, fabs(v->num));
}

/* The plan point with the recorded point's values: every parameter of the
   current probe that the point records agrees (a parameter the probe has
   gained since takes the plan's first value of it). */
static const struct plan_point *plan_match(const struct models_spec *m, const json_t *point)
{
	const struct spec *s = &m->spec;
	const json_t *text = json_object_get(point, "params_text");
	const json_t *vals = json_object_get(point, "params");

	for (size_t k = 0; k < m->n_pts; k++) {
		size_t a;

		for (a = 0; a < s->n_axis; a++) {
			const struct probe_param *pp = &s->bound->params[a];
			const char *t = json_string_value(json_object_get(text, pp->name));
			const json_t *v = json_object_get(vals, pp->name);

			if ((t || v) && !same_value(pp, m->pts[k].vals[a], t, v))
				break;
		}
		if (a == s->n_axis)
			return &m->pts[k];
	}
	return NULL;
}

/* A predict: entry's machine glob against the run's machine: its CPU model
   (case ignored) or its host name, as machine_matches does for this host. */
static int run_machine_is(const char *pattern, const void *ctx)
{
	const json_t *machine = ctx;
	const char *model = jsonutil_str((json_t *)machine, "cpu_model");
	const char *host = jsonutil_str((json_t *)machine, "hostname");

	if (!pattern || strcmp(pattern, "*") == 0)
		return 1;
	if (model && fnmatch(pattern, model, FNM_CASEFOLD) == 0)
		return 1;
	return host && strcmp(pattern, host) == 0;
}

json_t *models_spec_prediction(const struct models_spec *m, const json_t *point,
			       const json_t *machine, const char **why)
{
	const struct spec *s = &m->spec;
	const struct spec_predict *pr;
	const struct plan_point *pt;

	if (!m->probe_ok) {
		*why = m->probe_err;
		return json_null();
	}
	if (!(pt = plan_match(m, point))) {
		*why = "not a point of the current spec's plan";
		return json_null();
	}
	if (!(pr = results_predict_pick(s, pt, run_machine_is, machine))) {
		*why = "no predict: entry of the current spec applies";
		return json_null();
	}
	return results_predict_entry(pr, jsonutil_num((json_t *)point, "estimate"));
}
