/*
 * experiments.c - the request's specs as experiments: planned, each probe
 * loaded and checked, each point expanded, and their run order.  Everything
 * that can be wrong with the input is found here, before anything is
 * written.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "engine/experiments.h"
#include "lib/exitcode.h"
#include "lib/suggest.h"

struct experiment *experiments_find(struct experiment *e, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(e[i].spec.name, name) == 0)
			return &e[i];
	return NULL;
}

/* A probe name close to an unknown one, from the probe directory. */
static void suggest_probe(const char *name, char *buf, size_t len)
{
	char **names = NULL;
	size_t n = 0;
	buf[0] = 0;
	if (loader_list(&names, &n) < 0)
		return;
	const char *s = suggest_word(name, (const char *const *)names, n);
	if (s)
		snprintf(buf, len, " (did you mean '%s'?)", s);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* check: a prediction or reference band whose `where` no point of this run
   holds (after --set, --quick) would be dropped in silence: say so. */
static void warn_unmatched(const struct spec *s, const struct plan_point *pts, size_t n)
{
	for (size_t k = 0; k < s->n_predict; k++) {
		const struct spec_predict *pr = &s->predict[k];
		size_t i;

		for (i = 0; i < n && !plan_where_matches(s, pr->where, pr->n_where, &pts[i]); i++)
			;
		if (i == n)
			fprintf(stderr, "runner: %s:%d:%d: warning: this prediction matches no point of "
				"the run (after --set and --quick)\n", s->file, pr->pos.line, pr->pos.col);
	}
	for (size_t k = 0; k < s->n_reference; k++) {
		const struct spec_reference *rf = &s->reference[k];
		size_t i;

		for (i = 0; i < n && !plan_where_matches(s, rf->where, rf->n_where, &pts[i]); i++)
			;
		if (i == n)
			fprintf(stderr, "runner: %s:%d:%d: warning: this reference band matches no point "
				"of the run (after --set and --quick)\n", s->file, rf->pos.line, rf->pos.col);
	}
}

/* check: the probe's own judgement of every point (probe->check, in a
   child): what setup() would refuse (a stride of 100 bytes) is an error
   now, not a partial run later.  The position is the first swept
   parameter's (else the first parameter's, else the probe's). */
static int check_points(const struct spec *s, const struct loaded_probe *lp,
			const struct plan_point *pts, size_t n)
{
	void **cfgs = calloc(n + 1, sizeof *cfgs);
	char **msgs = calloc(n + 1, sizeof *msgs), err[512];
	int rc = 0;

	if (!cfgs || !msgs) {
		free(cfgs);
		free(msgs);
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		if (!(cfgs[i] = loader_config(lp, (const struct spec_val *const *)pts[i].vals, err,
					      sizeof err)) && lp->p->config_size)
			goto out;	/* the run would say it; check has nothing to add */
	if (loader_check_configs(lp, cfgs, n, msgs, err, sizeof err) < 0) {
		fprintf(stderr, "runner: %s:%d:%d: %s\n", s->file, s->probe_pos.line, s->probe_pos.col,
			err);
		rc = -1;
		goto out;
	}
	struct spec_pos at = s->n_params ? s->params[0].pos : s->probe_pos;
	for (size_t k = 0; k < s->n_params; k++)
		for (size_t a = 0; a < s->n_axis; a++)
			if (s->axis_swept[a] && !strcmp(s->bound->params[a].name, s->params[k].name)) {
				at = s->params[k].pos;
				k = s->n_params;
				break;
			}
	for (size_t i = 0; i < n; i++) {
		char label[256] = "";
		size_t off = 0, same = 0;

		if (!msgs[i])
			continue;
		/* one line per distinct message: the first point, and how many more */
		for (size_t j = i + 1; j < n; j++)
			if (msgs[j] && !strcmp(msgs[j], msgs[i])) {
				free(msgs[j]);
				msgs[j] = NULL;
				same++;
			}
		for (size_t a = 0; a < s->n_axis && off < sizeof label; a++)
			if (s->axis_swept[a])
				off += (size_t)snprintf(label + off, sizeof label - off, "%s%s=%s",
							off ? "," : "", s->bound->params[a].name,
							pts[i].vals[a]->text);
		char more[48] = "";
		if (same)
			snprintf(more, sizeof more, " (and %zu more point%s)", same, same > 1 ? "s" : "");
		fprintf(stderr, "runner: %s:%d:%d: %s%s%s%s%s\n", s->file, at.line, at.col,
			label[0] ? "point " : "", label, more, label[0] ? ": " : "", msgs[i]);
		rc = -1;
	}
out:
	for (size_t i = 0; i < n; i++) {
		free(cfgs[i]);
		free(msgs[i]);
	}
	free(cfgs);
	free(msgs);
	return rc;
}

/* The plan's experiments, each with its probe resolved and its points
   expanded: everything that can reject the input.  Returns EXIT_OK or
   EXIT_USAGE (message printed). */
/* The experiments' run order (subtract: targets first).  0, or -1 (said). */
static int order(struct experiment *e, size_t n, size_t **out)
{
	char err[4096];
	struct spec **specs = calloc(n ? n : 1, sizeof *specs);
	int rc;

	*out = calloc(n ? n : 1, sizeof **out);
	for (size_t i = 0; i < n; i++)
		specs[i] = &e[i].spec;
	rc = plan_order(specs, n, *out, err, sizeof err);
	free(specs);
	if (rc < 0) {
		fprintf(stderr, "runner: %s\n", err);
		return -1;
	}
	return 0;
}

int experiments_prepare(const struct engine_request *rq, int check, struct experiment **out,
			size_t *nout, size_t **run_order)
{
	const struct engine_options *o = &rq->opt;
	size_t n_bad = 0;
	struct plan_opts po = {.sets = (char **)o->sets, .n_sets = o->n_sets,
			       .filters = (char **)o->filters, .n_filters = o->n_filters,
			       .quick = o->quick, .keep_going = check, .n_bad = &n_bad};
	struct spec *specs;
	size_t n;
	char err[4096] = "";

	if (plan_load((char **)rq->paths, rq->n_paths, &po, &specs, &n, err, sizeof err) < 0) {
		fprintf(stderr, "runner: %s\n", err);
		return EXIT_USAGE;
	}
	if (n_bad)	/* check: said now; the rest is checked too, then exit 2 */
		fprintf(stderr, "runner: %s\n", err);
	struct experiment *e = calloc(n + 1, sizeof *e);
	for (size_t i = 0; i < n; i++)
		e[i].spec = specs[i];	/* moved: the exp owns it now */
	free(specs);
	/* Every experiment is checked: all the errors are said, not the first. */
	int bad = n_bad > 0;
	for (size_t i = 0; i < n; i++) {
		struct spec *s = &e[i].spec;
		if (loader_open(s->probe, &e[i].lp, e[i].probe_err, sizeof e[i].probe_err) < 0) {
			if (strstr(e[i].probe_err, "': not found in ")) {
				char hint[256];
				suggest_probe(s->probe, hint, sizeof hint);
				fprintf(stderr, "runner: %s:%d:%d: unknown probe '%s'%s\n", s->file,
					s->probe_pos.line, s->probe_pos.col, s->probe, hint);
				bad = 1;
			} else if (check) {
				fprintf(stderr, "runner: %s:%d:%d: %s\n", s->file, s->probe_pos.line,
					s->probe_pos.col, e[i].probe_err);
				bad = 1;
			}
			continue;	/* else recorded as a failed experiment when run */
		}
		e[i].probe_ok = 1;
		if (command_vars_add(&e[i].lp, s, err, sizeof err) < 0 ||
		    plan_bind(s, e[i].lp.p, o->quick, &e[i].pts, &e[i].n_pts, err, sizeof err) < 0) {
			fprintf(stderr, "runner: %s\n", err);
			bad = 1;
			continue;
		}
		if (check) {
			warn_unmatched(s, e[i].pts, e[i].n_pts);
			if (check_points(s, &e[i].lp, e[i].pts, e[i].n_pts) < 0)
				bad = 1;
		}
	}
	if (bad || order(e, n, run_order) < 0) {
		experiments_free(e, n);
		return EXIT_USAGE;
	}
	*out = e;
	*nout = n;
	return EXIT_OK;
}

void experiments_alloc_rounds(struct experiment *x)
{
	x->planned = exec_rounds(&x->spec);
	x->adaptive = x->spec.rounds_rule.adaptive && x->planned >= 2;
	x->max_rounds = x->adaptive && x->spec.rounds_rule.max > x->planned ? x->spec.rounds_rule.max
									     : x->planned;
	x->stopped = STATS_ROUNDS_MORE;
	x->rounds = calloc(x->n_pts + 1, sizeof *x->rounds);
	x->n_rounds = calloc(x->n_pts + 1, sizeof *x->n_rounds);
	x->stop = calloc(x->n_pts + 1, sizeof *x->stop);	/* all STATS_ROUNDS_MORE */
	x->rel_half = calloc(x->n_pts + 1, sizeof *x->rel_half);
	for (size_t p = 0; p < x->n_pts; p++) {
		x->rounds[p] = calloc((size_t)x->max_rounds, sizeof **x->rounds);
		if (x->rel_half)
			x->rel_half[p] = NAN;
	}
}

void experiments_free(struct experiment *e, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (e[i].probe_ok)
			loader_close(&e[i].lp);
		for (size_t p = 0; e[i].rounds && p < e[i].n_pts; p++) {
			for (size_t k = 0; k < e[i].n_rounds[p]; k++)
				exec_result_free(&e[i].rounds[p][k]);
			free(e[i].rounds[p]);
		}
		free(e[i].rounds);
		free(e[i].n_rounds);
		free(e[i].stop);
		free(e[i].rel_half);
		free(e[i].n_kept);
		plan_points_free(e[i].pts, e[i].n_pts);
		json_decref(e[i].result);
		spec_free(&e[i].spec);
	}
	free(e);
}
