/*
 * plan.c - expand a bound spec into points, shrink it for --quick, and
 * order experiments so `subtract:` targets run before their users.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan.h"

/* cross: odometer over all axes, the first table row varying slowest, so
   points come out grouped the way a reader scans a table. */
static int expand_cross(const struct spec *s, struct plan_point *pts, size_t n)
{
	size_t *idx = calloc(s->n_axis ? s->n_axis : 1, sizeof *idx);
	if (!idx)
		return -1;
	for (size_t p = 0; p < n; p++) {
		pts[p].index = p;
		pts[p].vals = calloc(s->n_axis ? s->n_axis : 1, sizeof *pts[p].vals);
		if (!pts[p].vals) {
			free(idx);
			return -1;
		}
		for (size_t a = 0; a < s->n_axis; a++)
			pts[p].vals[a] = &s->axis[a][idx[a]];
		for (size_t a = s->n_axis; a-- > 0;) {
			if (++idx[a] < s->axis_n[a])
				break;
			idx[a] = 0;
		}
	}
	free(idx);
	return 0;
}

/* zip: the i-th point takes the i-th value of every swept axis; unswept
   axes (one value) repeat.  spec_bind already checked equal lengths. */
static int expand_zip(const struct spec *s, struct plan_point *pts, size_t n)
{
	for (size_t p = 0; p < n; p++) {
		pts[p].index = p;
		pts[p].vals = calloc(s->n_axis ? s->n_axis : 1, sizeof *pts[p].vals);
		if (!pts[p].vals)
			return -1;
		for (size_t a = 0; a < s->n_axis; a++)
			pts[p].vals[a] = &s->axis[a][s->axis_n[a] == 1 ? 0 : p];
	}
	return 0;
}

/* "FILE:LINE:COL: params: a cross sweep of 1000 x 10000 values expands to
   more than 1000000 points", at the largest swept parameter. */
static void too_many_points(const struct spec *s, char *err, size_t errlen)
{
	char dims[256] = "";
	size_t big = 0, nbig = 0, len;
	struct spec_pos pos = s->sweep_pos;

	for (size_t a = 0; a < s->n_axis; a++)
		if (s->axis_n[a] > 1) {
			len = strlen(dims);
			snprintf(dims + len, sizeof dims - len, "%s%zu", len ? " x " : "", s->axis_n[a]);
		}
	for (size_t i = 0; i < s->n_params; i++)
		if (s->params[i].n_vals > nbig) {
			nbig = s->params[i].n_vals;
			big = i;
		}
	if (nbig > 1)
		pos = s->params[big].pos;
	if (pos.line > 0)
		snprintf(err, errlen, "%s:%d:%d: params: a cross sweep of %s values expands to more "
			 "than 1000000 points", s->file, pos.line, pos.col, dims);
	else
		snprintf(err, errlen, "%s: params: a cross sweep of %s values expands to more than "
			 "1000000 points", s->file, dims);
}

int plan_points(const struct spec *s, struct plan_point **out, size_t *nout,
		char *err, size_t errlen)
{
	size_t n = 1;

	if (s->sweep == SWEEP_ZIP) {
		for (size_t a = 0; a < s->n_axis; a++)
			if (s->axis_n[a] > 1)
				n = s->axis_n[a];
	} else {
		for (size_t a = 0; a < s->n_axis; a++) {
			if (s->axis_n[a] && n > 1000000 / s->axis_n[a]) {
				too_many_points(s, err, errlen);
				return -1;
			}
			n *= s->axis_n[a];
		}
	}
	struct plan_point *pts = calloc(n, sizeof *pts);
	if (!pts)
		goto oom;
	if ((s->sweep == SWEEP_ZIP ? expand_zip : expand_cross)(s, pts, n) < 0) {
		plan_points_free(pts, n);
		goto oom;
	}
	*out = pts;
	*nout = n;
	return 0;
oom:
	snprintf(err, errlen, "%s: out of memory expanding the sweep", s->file);
	return -1;
}

void plan_points_free(struct plan_point *pts, size_t n)
{
	if (!pts)
		return;
	for (size_t i = 0; i < n; i++)
		free(pts[i].vals);
	free(pts);
}

/* Keep at most `keep` values of a numeric axis: first, last and evenly
   spaced ones between, so a smoke run still spans the whole range. */
static void cut_axis(struct spec_val *v, size_t *n, size_t keep)
{
	if (*n <= keep)
		return;
	size_t old = *n;
	struct spec_val tmp[8];
	for (size_t i = 0; i < keep; i++) {
		size_t src = i * (old - 1) / (keep - 1);
		tmp[i] = v[src];
		v[src].text = NULL;	/* moved */
	}
	for (size_t i = 0; i < old; i++)
		free(v[i].text);
	memcpy(v, tmp, keep * sizeof *v);
	*n = keep;
}

void plan_quick(struct spec *s)
{
	s->reps.adaptive = 0;
	s->reps.min = s->reps.max = 3;
	s->rounds_rule.adaptive = 0;
	s->rounds = 1;		/* a smoke run: 3 samples in one process (t with 1 df
				   over 2 rounds would give intervals 12.7 s wide) */
	if (s->warmup > 1 || s->warmup == SPEC_WARMUP_AUTO)
		s->warmup = 1;
	if (s->min_sample_time > 0.001)
		s->min_sample_time = 0.001;
	/* Only ranges of numbers are thinned: the values of a choice or a
	   string (write_nt, vfork, ...) are different experiments, not
	   samples of a range, and a smoke run must try every one. */
	for (size_t a = 0; a < s->n_axis; a++)
		if (!s->bound || (s->bound->params[a].type != PROBE_STRING &&
				  s->bound->params[a].type != PROBE_BOOL))
			cut_axis(s->axis[a], &s->axis_n[a], 4);
}

/* Depth-first topological order; `state` 1 = on the stack (a cycle). */
static int visit(struct spec **specs, size_t n, size_t i, int *state, size_t *order,
		 size_t *k, char *err, size_t errlen)
{
	if (state[i] == 2)
		return 0;
	if (state[i] == 1) {
		snprintf(err, errlen, "%s:%d:%d: subtract: cycle through experiment '%s'",
			 specs[i]->file, specs[i]->subtract_pos ? specs[i]->subtract_pos[0].line : 1,
			 specs[i]->subtract_pos ? specs[i]->subtract_pos[0].col : 1, specs[i]->name);
		return -1;
	}
	state[i] = 1;
	for (size_t d = 0; d < specs[i]->n_subtract; d++) {
		const char *dep = specs[i]->subtract[d];
		size_t j;
		for (j = 0; j < n; j++)
			if (strcmp(specs[j]->name, dep) == 0)
				break;
		if (j == n) {
			snprintf(err, errlen,
				 "%s:%d:%d: subtract: experiment '%s' is not part of this run",
				 specs[i]->file, specs[i]->subtract_pos[d].line,
				 specs[i]->subtract_pos[d].col, dep);
			return -1;
		}
		if (j == i) {
			snprintf(err, errlen, "%s:%d:%d: subtract: an experiment cannot subtract itself",
				 specs[i]->file, specs[i]->subtract_pos[d].line,
				 specs[i]->subtract_pos[d].col);
			return -1;
		}
		if (visit(specs, n, j, state, order, k, err, errlen) < 0)
			return -1;
	}
	/* Experiments a prediction formula reads (@name) come first too when
	   they are in the run; a missing one or a loop through them is not an
	   error: the prediction then names what it lacks. */
	for (size_t u = 0; u < specs[i]->n_uses; u++)
		for (size_t j = 0; j < n; j++)
			if (j != i && state[j] == 0 && strcmp(specs[j]->name, specs[i]->uses[u]) == 0 &&
			    visit(specs, n, j, state, order, k, err, errlen) < 0)
				return -1;
	state[i] = 2;
	order[(*k)++] = i;
	return 0;
}

int plan_order(struct spec **specs, size_t n, size_t *order, char *err, size_t errlen)
{
	int *state = calloc(n ? n : 1, sizeof *state);
	size_t k = 0;
	int rc = 0;

	if (!state) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = visit(specs, n, i, state, order, &k, err, errlen);
	free(state);
	return rc;
}

int plan_where_matches(const struct spec *s, const struct spec_where *w, size_t nw,
			 const struct plan_point *pt)
{
	for (size_t i = 0; i < nw; i++) {
		size_t a;
		for (a = 0; a < s->n_axis; a++)
			if (strcmp(s->bound->params[a].name, w[i].param) == 0)
				break;
		if (a == s->n_axis)
			return 0;
		const struct spec_val *v = pt->vals[a];
		if (s->bound->params[a].type == PROBE_STRING) {
			if (strcmp(v->text, w[i].text) != 0)
				return 0;
		} else if (fabs(v->num - w[i].num) > 1e-9 * fmax(1.0, fabs(w[i].num))) {
			return 0;
		}
	}
	return 1;
}
